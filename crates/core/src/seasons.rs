//! Seasons: where a league's history breaks (a season column, or a pause of the whole
//! league's play) and the regression toward the mean between two seasons that the published
//! football forecasts apply (FiveThirtyEight's NFL model pulls every rating a third of the way
//! back to 1505 before each season).
//!
//! The replay asks [`Seasons::begins`] before each round whether it opens a season; when it
//! does, every player who has played is moved (a seeded player not met yet keeps the rating
//! he came with) a fraction `regress` of the way to the mean
//! ([`Seasons::target`]: the league's, or a fixed one), through the system's
//! [`crate::systems::RatingSystem::shift`]. The season in progress ([`SeasonMark`]) is carried
//! in a resume state, so a nightly run that starts a season regresses exactly as one whole
//! replay would.

use crate::history::Round;
use crate::systems::RatingSystem;
use serde::{Deserialize, Serialize};

/// Where seasons begin.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum SeasonBy {
    /// The input's season column (`--map season=COLUMN`): a season begins with a round whose
    /// first contest names another season than the season in progress (a contest with no
    /// season stays in the one in progress).
    Column,
    /// A pause of the whole league (`--season-gap DAYS`): a season begins with a round that
    /// starts this many days or more after the latest contest before it.
    Gap(f64),
}

/// Seasons and what happens between them.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct Seasons {
    /// Where they begin.
    pub by: SeasonBy,
    /// The fraction of the way to the mean each rating moves between two seasons (0: none,
    /// 1: everyone back to the mean).
    pub regress: f64,
    /// The mean they move toward (in the system's rating units); `None`: the league's mean,
    /// the mean rating of every player who has played so far.
    pub mean: Option<f64>,
}

/// The season in progress, as the replay carries it (and a resume state keeps it).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct SeasonMark {
    /// Seasons begun, this one included (the first is 1).
    pub number: u32,
    /// Its name in the season column, if it has one.
    pub name: Option<String>,
    /// The time of the latest contest rated in it.
    pub latest: i64,
}

impl SeasonMark {
    /// The season's name in the outputs: its column's value, else its number.
    pub fn label(&self) -> String {
        self.name.clone().unwrap_or_else(|| self.number.to_string())
    }
}

impl Seasons {
    /// Checks the values: a fraction within 0 and 1, a positive gap, a finite mean.
    pub fn check(&self) -> Result<(), String> {
        if !(0.0..=1.0).contains(&self.regress) {
            return Err(format!(
                "--season-regress {} is not a fraction within 0 and 1",
                self.regress
            ));
        }
        if let SeasonBy::Gap(days) = self.by
            && !(days.is_finite() && days > 0.0)
        {
            return Err(format!(
                "--season-gap {days} is not a positive number of days"
            ));
        }
        if let Some(m) = self.mean
            && !m.is_finite()
        {
            return Err(format!("--season-mean {m} is not a number"));
        }
        Ok(())
    }

    /// Whether `round` opens a season after the one in progress (`mark`, none before the
    /// first round), and `mark` brought up to date: the first round opens season 1 (nothing
    /// to regress yet), a later one a new season where the column's value changes or the
    /// league paused long enough.
    pub fn begins(&self, mark: &mut Option<SeasonMark>, round: &Round<'_>) -> bool {
        let (first, last) = round.contests().fold((i64::MAX, i64::MIN), |(lo, hi), c| {
            (lo.min(c.time()), hi.max(c.time()))
        });
        let named = round.contests().find_map(|c| c.season());
        let Some(m) = mark else {
            *mark = Some(SeasonMark {
                number: 1,
                name: named.map(str::to_string),
                latest: last,
            });
            return false;
        };
        let new = match self.by {
            SeasonBy::Column => matches!((named, &m.name), (Some(n), Some(now)) if n != now),
            SeasonBy::Gap(days) => (first - m.latest) as f64 >= days * 86_400.0,
        };
        m.number += u32::from(new);
        // (First contests without a season name, then one with: still the first season.)
        if new || m.name.is_none() {
            m.name = named.map(str::to_string);
        }
        m.latest = m.latest.max(last);
        new
    }

    /// How far a rating moves between two seasons: the fraction `regress` of its way to
    /// `target`.
    pub fn pull(&self, rating: f64, target: f64) -> f64 {
        self.regress * (target - rating)
    }

    /// The regression between seasons of a replay whose players' states are `states`,
    /// `played(p)` saying who has played; `None` when nothing moves (`regress` 0).
    pub fn regression<S: RatingSystem>(
        &self,
        system: &S,
        states: &[S::Player],
        played: impl Fn(usize) -> bool,
    ) -> Option<Regression> {
        let league = (states.iter().enumerate())
            .filter(|&(p, _)| self.mean.is_none() && played(p))
            .map(|(_, s)| system.rating(s).mean);
        let (sum, count) = league.fold((0.0, 0), |(s, n), r| (s + r, n + 1));
        (self.regress > 0.0).then(|| Regression {
            seasons: *self,
            paid: vec![0; states.len()],
            targets: vec![0.0],
            sums: vec![0.0],
            sum,
            count,
        })
    }
}

/// The regressions between seasons, each owed by every player who has played and paid when
/// his state is next read (before his next round, or at the end), all he owes at once: a
/// season's start costs one step rather than one for each player ever met, so that a season
/// column that changes at every game (a wrong column, or a hostile file) costs no more than
/// a real league's few seasons.
///
/// Owing `m` pulls of a fraction `R` toward the targets `T_(k-m+1) .. T_k`, a rating `r`
/// becomes `(1-R)^m r + R sum_j (1-R)^(k-j) T_j`; the sum is `G_k - (1-R)^m G_(k-m)`, where
/// `G_k = (1-R) G_(k-1) + T_k`. One pull is `R (T_k - r)`, as [`Seasons::pull`] writes it.
/// The league's mean is kept as the sum and count of the ratings of those who have played,
/// each as it is with every pull paid: a pull toward their mean keeps their sum, so only
/// their rounds change it. A resume state carries all of it, so that a resumed run pays
/// exactly what one whole replay would.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Regression {
    /// The seasons' options (a resumed run's are the state's: see the state's rules).
    seasons: Seasons,
    /// Per player: the pulls paid (of those counted in `targets`).
    paid: Vec<u32>,
    /// Per pull `k` (from 1; 0 is the start): its target `T_k`, and `G_k`.
    targets: Vec<f64>,
    sums: Vec<f64>,
    /// The ratings of the players who have played, summed, and their count (for the
    /// league's mean; not kept with a fixed mean).
    sum: f64,
    count: u64,
}

impl Regression {
    /// A season begins: one pull more owed by all who have played (none while nobody has,
    /// for the league's mean).
    pub fn season_begins(&mut self) {
        let s = self.seasons;
        let target = match s.mean {
            Some(mean) => mean,
            None if self.count > 0 => self.sum / self.count as f64,
            None => return,
        };
        let kept = 1.0 - s.regress;
        self.sums
            .push(kept * self.sums[self.sums.len() - 1] + target);
        self.targets.push(target);
    }

    /// Player `p` pays the pulls he owes if he has played (`played`); else he owes none
    /// from now on.
    fn settle<S: RatingSystem>(
        &mut self,
        system: &S,
        (state, p): (&mut S::Player, usize),
        played: bool,
    ) {
        if p >= self.paid.len() {
            self.paid.resize(p + 1, 0);
        }
        let k = self.targets.len() - 1;
        let owed = k - self.paid[p] as usize;
        self.paid[p] = k as u32;
        if !played || owed == 0 {
            return;
        }
        let (s, r) = (self.seasons, system.rating(state).mean);
        let points = if owed == 1 {
            s.pull(r, self.targets[k])
        } else {
            let q = (1.0 - s.regress).powf(owed as f64);
            q * r + s.regress * (self.sums[k] - q * self.sums[k - owed]) - r
        };
        system.shift(state, points);
    }

    /// Before player `p`'s round: he pays what he owes (if he has played: `played`); then
    /// his rating leaves the league's sum until [`Regression::rated`] puts it back.
    pub fn pay<S: RatingSystem>(
        &mut self,
        system: &S,
        (state, p): (&mut S::Player, usize),
        played: bool,
    ) {
        self.settle(system, (&mut *state, p), played);
        if played && self.seasons.mean.is_none() {
            self.sum -= system.rating(state).mean;
            self.count = self.count.saturating_sub(1);
        }
    }

    /// After a round, for each of its players who has played now: his rating back in the
    /// league's sum.
    pub fn rated<S: RatingSystem>(&mut self, system: &S, state: &S::Player) {
        if self.seasons.mean.is_none() {
            self.sum += system.rating(state).mean;
            self.count += 1;
        }
    }

    /// Every player who has played (`played`) pays what he owes, before the states are read
    /// as a whole (at the end).
    pub fn pay_all<S: RatingSystem>(
        &mut self,
        system: &S,
        states: &mut [S::Player],
        played: impl Fn(usize) -> bool,
    ) {
        for (p, state) in states.iter_mut().enumerate() {
            self.settle(system, (state, p), played(p));
        }
    }

    /// A state's regression, checked: finite sums, no player beyond the `players` nor
    /// past the pulls counted.
    pub fn check(&self, players: usize) -> Result<(), String> {
        let k = self.targets.len();
        let finite =
            (self.targets.iter().chain(&self.sums).chain([&self.sum])).all(|v| v.is_finite());
        if k == 0
            || self.seasons.check().is_err()
            || self.sums.len() != k
            || !finite
            || self.count > players as u64
            || self.paid.len() > players
            || self.paid.iter().any(|&p| p as usize >= k)
        {
            return Err("its regression between seasons is inconsistent".into());
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::history::{HistoryBuilder, Round, SourceInfo};
    use crate::systems::elo::{Elo, EloParams};

    /// Games at the given days, each with its season name (or none).
    fn history(games: &[(i64, Option<&str>)]) -> crate::history::History {
        let mut b = HistoryBuilder::new();
        let (x, y) = (b.player("x"), b.player("y"));
        for &(day, season) in games {
            if let Some(s) = season {
                b.season_of_next(s);
            }
            b.add_game(day * 86_400, 1.0, None, (&[x], &[y]), 1.0, None)
                .unwrap();
        }
        b.finish(SourceInfo::default())
    }

    fn starts(seasons: &Seasons, h: &crate::history::History) -> Vec<(bool, String)> {
        let mut mark = None;
        let ids: Vec<u32> = (0..h.len() as u32).collect();
        (0..h.len())
            .map(|i| {
                let new = seasons.begins(&mut mark, &Round::new(h, &ids[i..=i]));
                (new, mark.as_ref().unwrap().label())
            })
            .collect()
    }

    #[test]
    fn a_season_begins_where_the_column_changes_and_a_blank_stays_in_it() {
        let s = Seasons {
            by: SeasonBy::Column,
            regress: 0.5,
            mean: None,
        };
        let h = history(&[
            (1, None),
            (2, Some("1990")),
            (3, None),
            (4, Some("1990")),
            (5, Some("1991")),
            (6, Some("1991")),
        ]);
        let got = starts(&s, &h);
        let want = [
            (false, "1"),
            (false, "1990"),
            (false, "1990"),
            (false, "1990"),
            (true, "1991"),
            (false, "1991"),
        ];
        assert_eq!(
            got,
            want.map(|(b, n)| (b, n.to_string())).to_vec(),
            "a blank season stays in the season in progress"
        );
    }

    #[test]
    fn a_season_begins_after_a_pause_of_the_whole_league() {
        let s = Seasons {
            by: SeasonBy::Gap(60.0),
            regress: 0.5,
            mean: None,
        };
        // Days 0, 30, 89 (59 days after 30: the same season), 149 (60 days: a new one).
        let h = history(&[(0, None), (30, None), (89, None), (149, None), (150, None)]);
        let got: Vec<bool> = starts(&s, &h).into_iter().map(|(b, _)| b).collect();
        assert_eq!(got, [false, false, false, true, false]);
        assert_eq!(starts(&s, &h)[4].1, "2", "gap seasons are numbered");
    }

    /// Elo players at `ratings`, all of whom have played, and their regression.
    fn league(s: &Seasons, ratings: &[f64]) -> (Elo, Vec<f64>, Regression) {
        let elo = Elo::new(EloParams::default()).unwrap();
        let states: Vec<f64> = ratings.iter().map(|&r| elo.seeded(r, None, None)).collect();
        let regression = s.regression(&elo, &states, |_| true).unwrap();
        (elo, states, regression)
    }

    #[test]
    fn regression_moves_a_third_of_the_way_to_the_mean() {
        // FiveThirtyEight's NFL model: a team at 1700 starts the next season at
        // 1700 - (1700 - 1505) / 3 = 1635; one at 1400 at 1435.
        let s = Seasons {
            by: SeasonBy::Column,
            regress: 1.0 / 3.0,
            mean: Some(1505.0),
        };
        let (elo, mut states, mut r) = league(&s, &[1700.0, 1400.0]);
        r.season_begins();
        r.pay_all(&elo, &mut states, |_| true);
        assert!((states[0] - 1635.0).abs() < 1e-12, "{}", states[0]);
        assert!((states[1] - 1435.0).abs() < 1e-12, "{}", states[1]);
        // Three seasons owed at once: 1505 + 195 (2/3)^3 = 1562.777...
        let (elo, mut states, mut r) = league(&s, &[1700.0]);
        (0..3).for_each(|_| r.season_begins());
        r.pay(&elo, (&mut states[0], 0), true);
        assert!((states[0] - (1505.0 + 195.0 * 8.0 / 27.0)).abs() < 1e-9);
        // The league's mean: of 1600, 1500 and 1400 it is 1500; a half-way pull takes 1600
        // to 1550.
        let league_mean = Seasons {
            mean: None,
            regress: 0.5,
            ..s
        };
        let (elo, mut states, mut r) = league(&league_mean, &[1600.0, 1500.0, 1400.0]);
        r.season_begins();
        r.pay_all(&elo, &mut states, |_| true);
        assert_eq!(states, [1550.0, 1500.0, 1450.0]);
        // Nobody has played yet: no mean, nothing owed.
        let (elo, mut states, mut r) = league(&league_mean, &[1600.0]);
        r = Regression {
            count: 0,
            sum: 0.0,
            ..r
        };
        r.season_begins();
        r.pay_all(&elo, &mut states, |_| true);
        assert_eq!(states, [1600.0]);
    }

    /// A player who sits out a season pays both pulls when he comes back, toward the league's
    /// mean of each season's start, as if each had been applied then. By hand, a half-way
    /// pull: a 1600, b 1400 (mean 1500); season 2: b, pulled to 1450, plays and rises to
    /// 1650, a is owed 1550; season 3 begins at the mean (1550 + 1650) / 2 = 1600, and a, back,
    /// stands at 1550 + (1600 - 1550) / 2 = 1575. The sums: G_1 = 1500, G_2 = 1500 / 2 +
    /// 1600 = 2350, and 1600 / 4 + (2350 - 0) / 2 = 1575.
    #[test]
    fn pulls_owed_are_paid_as_if_each_was_applied_at_its_season() {
        let s = Seasons {
            by: SeasonBy::Column,
            regress: 0.5,
            mean: None,
        };
        let (elo, mut states, mut r) = league(&s, &[1600.0, 1400.0]);
        r.season_begins();
        let [a, b] = &mut states[..] else {
            unreachable!()
        };
        r.pay(&elo, (&mut *b, 1), true);
        assert_eq!(*b, 1450.0);
        elo.shift(b, 200.0);
        r.rated(&elo, b);
        r.season_begins();
        r.pay(&elo, (&mut *a, 0), true);
        assert!((*a - 1575.0).abs() < 1e-12, "{a}");
        // Paid once: nothing more owed.
        r.pay_all(&elo, &mut states, |_| true);
        assert!((states[0] - 1575.0).abs() < 1e-12);
        assert_eq!(states[1], 1650.0 + 0.5 * (1600.0 - 1650.0));
        assert_eq!(r.check(2), Ok(()));
        let mut damaged = r.clone();
        damaged.paid[0] = 9;
        assert!(damaged.check(2).is_err());
    }

    #[test]
    fn values_out_of_range_are_refused() {
        let ok = Seasons {
            by: SeasonBy::Gap(90.0),
            regress: 0.25,
            mean: None,
        };
        assert!(ok.check().is_ok());
        for bad in [
            Seasons { regress: 1.5, ..ok },
            Seasons {
                regress: -0.1,
                ..ok
            },
            Seasons {
                by: SeasonBy::Gap(0.0),
                ..ok
            },
            Seasons {
                by: SeasonBy::Gap(f64::NAN),
                ..ok
            },
            Seasons {
                mean: Some(f64::INFINITY),
                ..ok
            },
        ] {
            assert!(bad.check().is_err(), "{bad:?}");
        }
    }
}
