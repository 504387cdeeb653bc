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
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
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
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
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

    /// The mean the ratings move toward: the fixed one, else the mean of `ratings` (none:
    /// nothing to move).
    pub fn target(&self, ratings: impl Iterator<Item = f64>) -> Option<f64> {
        if self.mean.is_some() {
            return self.mean;
        }
        let (sum, n) = ratings.fold((0.0, 0usize), |(s, n), r| (s + r, n + 1));
        (n > 0).then(|| sum / n as f64)
    }

    /// How far a rating moves between two seasons: the fraction `regress` of its way to
    /// `target`.
    pub fn pull(&self, rating: f64, target: f64) -> f64 {
        self.regress * (target - rating)
    }

    /// The regression between two seasons: the rating of every player `rated` says has one
    /// moved [`Seasons::pull`] toward [`Seasons::target`] (their mean, or the fixed one).
    pub fn regress<S: RatingSystem>(
        &self,
        system: &S,
        states: &mut [S::Player],
        rated: impl Fn(usize) -> bool,
    ) {
        if self.regress == 0.0 {
            return;
        }
        let ratings = (states.iter().enumerate())
            .filter(|&(p, _)| rated(p))
            .map(|(_, s)| system.rating(s).mean);
        let Some(target) = self.target(ratings) else {
            return;
        };
        for (p, s) in states.iter_mut().enumerate() {
            if rated(p) {
                let points = self.pull(system.rating(s).mean, target);
                system.shift(s, points);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::history::{HistoryBuilder, Round, SourceInfo};

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

    #[test]
    fn regression_moves_a_third_of_the_way_to_the_mean() {
        // FiveThirtyEight's NFL model: a team at 1700 starts the next season at
        // 1700 - (1700 - 1505) / 3 = 1635; one at 1400 at 1435.
        let s = Seasons {
            by: SeasonBy::Column,
            regress: 1.0 / 3.0,
            mean: Some(1505.0),
        };
        let t = s.target([0.0].into_iter()).unwrap();
        assert_eq!(t, 1505.0, "a fixed mean is the mean");
        assert!((1700.0 + s.pull(1700.0, t) - 1635.0).abs() < 1e-12);
        assert!((1400.0 + s.pull(1400.0, t) - 1435.0).abs() < 1e-12);
        // The league's mean: of 1600, 1500 and 1400 it is 1500; a half-way pull takes 1600
        // to 1550.
        let league = Seasons {
            mean: None,
            regress: 0.5,
            ..s
        };
        let m = league.target([1600.0, 1500.0, 1400.0].into_iter()).unwrap();
        assert_eq!(m, 1500.0);
        assert_eq!(1600.0 + league.pull(1600.0, m), 1550.0);
        assert_eq!(league.target(std::iter::empty()), None);
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
