//! Chess federations' Elo rules: FIDE's (`--system fide`, `--preset fide`) and US Chess's
//! (`--system uscf`, `--preset uscf`).
//!
//! Both rate individual games (a standings of n players is its n (n - 1) / 2 games, as a
//! round-robin crosstable; teams are refused) event by event: a round (`--period day`,
//! `week`, `month` or `series` for one event; `game` by default, each game its own event) is
//! rated from the ratings before it, each player's change from all his games in it. A player
//! keeps his rating, the games he has played and the highest rating he has reached. Seeded
//! players (`--initial-ratings`, `--seed-from-pgn`) count as established (FIDE: 30 games;
//! US Chess: 26).
//!
//! **FIDE** (Rating Regulations effective 1 March 2024, sections 8.3.1 to 8.3.4): the
//! expected score `PD` of a rating difference `D` from table 8.1.2 (the normal curve of Elo's
//! design rounded to 0.01 in steps of D), a difference over 400 counted as 400; the change is
//! `K sum(score - PD)` rounded to a whole number (0.5 away from zero), with `K` 40 until a
//! player has completed 30 games, 10 once his rating has reached 2400 (for good), 20
//! otherwise, and `K` lowered to the largest whole number with `K n <= 700` when he plays n
//! games in the event. Not modelled: the first rating of an unrated player from his
//! performance (a newcomer starts at `start`, 1400 by default, FIDE's floor, or from a seed)
//! and the juniors' K 40 (no birth dates in a history).
//!
//! **US Chess** (Glickman's approximating formulas for the US Chess rating system): the
//! expected score of each game `1 / (1 + 10^(-(R - R_opp) / 400))`; a player with 8 games or
//! fewer before the event takes the special formula `(N R + m R_avg + 400 (W - L)) / (N + m)`
//! (R_avg the opponents' mean rating; an unrated player has N = 0); otherwise
//! `R + K (S - E) + max(0, K (S - E) - B sqrt(max(m, 4)))` (the bonus for an event of 3 games
//! or more, B = 14), `K = 800 / (N' + m)` with `N' = min(N, 50 / sqrt(1 + (2200 - R)^2 /
//! 100000))` (50 from 2200 up). The rating floor is 100. Not modelled: the official
//! algorithm's iterative special formula and its two passes.
//!
//! # Example
//!
//! FIDE's rules: two established players of 2100 and 2300 (seeded), the lower rated wins:
//! table 8.1.2 gives him 0.24 at a difference of 200, so he gains 20 x 0.76 = 15.2, rounded 15.
//!
//! ```
//! use rate_batch_core::rater::Rater;
//! use rate_batch_core::systems::federation::{Federation, FideParams};
//!
//! let mut r = Rater::new(Federation::fide(FideParams::default())?);
//! r.seed("a", 2100.0, None, None);
//! r.seed("b", 2300.0, None, None);
//! r.rate_game("a", "b", 1.0)?;
//! assert_eq!(r.rating("a").unwrap().mean, 2115.0);
//! assert_eq!(r.rating("b").unwrap().mean, 2285.0);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

use super::base::{ParamError, Rating, RatingSystem, SystemKind, check_range};
use crate::history::{Contest, PlayerId, Round};
use serde::{Deserialize, Serialize};

/// FIDE's table 8.1.2: the upper end of each band of rating differences; the higher rated
/// player's expected score in band i is `(50 + i) / 100` (0.50 for 0 to 3, ..., 0.99 for 620
/// to 735; 1.00 above).
const FIDE_BANDS: [u32; 50] = [
    3, 10, 17, 25, 32, 39, 46, 53, 61, 68, 76, 83, 91, 98, 106, 113, 121, 129, 137, 145, 153, 162,
    170, 179, 188, 197, 206, 215, 225, 235, 245, 256, 267, 278, 290, 302, 315, 328, 344, 357, 374,
    391, 411, 432, 456, 484, 517, 559, 619, 735,
];

/// FIDE's expected score of a player `d` points above his opponent (table 8.1.2, the
/// difference capped at `cap`; the table works on whole points: `d` is rounded).
pub fn fide_expected(d: f64, cap: f64) -> f64 {
    let capped = d.clamp(-cap, cap);
    let a = capped.abs().round();
    let band = FIDE_BANDS.iter().position(|&upper| a <= f64::from(upper));
    // Correctly rounded, (50 + i) / 100 is the very double the printed 0.50 ... 1.00 parse to.
    let high = (50 + band.unwrap_or(50)) as f64 / 100.0;
    if capped >= 0.0 { high } else { 1.0 - high }
}

/// Which federation's rules.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Rules {
    /// FIDE's.
    Fide,
    /// US Chess's (approximating formulas).
    Uscf,
}

/// The parameters of FIDE's rules (`--system fide`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct FideParams {
    /// A newcomer's rating (FIDE's floor).
    pub start: f64,
    /// K until a player has completed `new_games` games.
    pub k_new: f64,
    /// Games a player needs to leave `k_new`.
    pub new_games: u32,
    /// K below `master` (and above once a player has reached it: `k_master`).
    pub k: f64,
    /// K once a player's rating has reached `master`.
    pub k_master: f64,
    /// The rating from which `k_master` applies, for good.
    pub master: f64,
    /// A difference over this counts as this.
    pub cap: f64,
    /// `K n` at most this for n games in an event (0: no limit).
    pub max_kn: f64,
    /// Round each event's change to a whole number.
    pub round: bool,
    /// The largest standings taken (as its games: their number grows as n^2).
    pub max_standing: u32,
}

impl Default for FideParams {
    fn default() -> Self {
        Self {
            start: 1400.0,
            k_new: 40.0,
            new_games: 30,
            k: 20.0,
            k_master: 10.0,
            master: 2400.0,
            cap: 400.0,
            max_kn: 700.0,
            round: true,
            max_standing: 1000,
        }
    }
}

/// The parameters of US Chess's rules (`--system uscf`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct UscfParams {
    /// An unrated player's rating before his first event (the special formula ignores it).
    pub start: f64,
    /// The bonus threshold B.
    pub bonus: f64,
    /// The lowest rating.
    pub floor: f64,
    /// The largest standings taken (as its games: their number grows as n^2).
    pub max_standing: u32,
}

impl Default for UscfParams {
    fn default() -> Self {
        Self {
            start: 1500.0,
            bonus: 14.0,
            floor: 100.0,
            max_standing: 1000,
        }
    }
}

/// A federation-rated player.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct FedPlayer {
    /// The rating.
    pub rating: f64,
    /// Games rated so far.
    pub games: u32,
    /// The highest rating reached after an event.
    pub peak: f64,
}

/// A federation's rules.
#[derive(Clone, Debug)]
pub struct Federation {
    rules: Rules,
    fide: FideParams,
    uscf: UscfParams,
    shown: serde_json::Value,
}

impl Federation {
    /// FIDE's rules.
    pub fn fide(p: FideParams) -> Result<Self, ParamError> {
        check_range("start", p.start, -1e6, 1e6)?;
        for (name, v) in [("k_new", p.k_new), ("k", p.k), ("k_master", p.k_master)] {
            check_range(name, v, 0.0, 1e4)?;
        }
        check_range("master", p.master, -1e6, 1e6)?;
        check_range("cap", p.cap, 0.0, 1e6)?;
        check_range("max_kn", p.max_kn, 0.0, 1e9)?;
        let shown = serde_json::to_value(&p).unwrap_or_default();
        Ok(Self {
            rules: Rules::Fide,
            fide: p,
            uscf: UscfParams::default(),
            shown,
        })
    }

    /// US Chess's rules.
    pub fn uscf(p: UscfParams) -> Result<Self, ParamError> {
        check_range("start", p.start, -1e6, 1e6)?;
        check_range("bonus", p.bonus, 0.0, 1e4)?;
        check_range("floor", p.floor, -1e6, 1e6)?;
        let shown = serde_json::to_value(&p).unwrap_or_default();
        Ok(Self {
            rules: Rules::Uscf,
            fide: FideParams::default(),
            uscf: p,
            shown,
        })
    }

    fn expected(&self, d: f64) -> f64 {
        match self.rules {
            Rules::Fide => fide_expected(d, self.fide.cap),
            Rules::Uscf => crate::numeric::elo_win_probability(d, 400.0),
        }
    }

    /// FIDE's K for a player before an event of `n` games.
    fn fide_k(&self, p: &FedPlayer, n: u32) -> f64 {
        let f = &self.fide;
        let k = if p.games < f.new_games {
            f.k_new
        } else if p.peak >= f.master {
            f.k_master
        } else {
            f.k
        };
        if f.max_kn > 0.0 && k * f64::from(n) > f.max_kn {
            (f.max_kn / f64::from(n)).floor()
        } else {
            k
        }
    }

    /// The new state of a player after an event: his games as (opponent's rating, score).
    fn after_event(&self, p: &FedPlayer, games: &[(f64, f64)]) -> FedPlayer {
        let m = games.len() as u32;
        let score: f64 = games.iter().map(|g| g.1).sum();
        let expected: f64 = games.iter().map(|g| self.expected(p.rating - g.0)).sum();
        let rating = match self.rules {
            Rules::Fide => {
                let change = self.fide_k(p, m) * (score - expected);
                // Rounded half away from zero (8.3.4).
                p.rating
                    + if self.fide.round {
                        change.round()
                    } else {
                        change
                    }
            }
            Rules::Uscf => {
                let mf = f64::from(m);
                let n = f64::from(p.games);
                let r = if p.games <= 8 {
                    let avg = games.iter().map(|g| g.0).sum::<f64>() / mf;
                    let wins = games.iter().filter(|g| g.1 > 0.5).count() as f64;
                    let losses = games.iter().filter(|g| g.1 < 0.5).count() as f64;
                    let own = if p.games == 0 { 0.0 } else { n * p.rating };
                    (own + mf * avg + 400.0 * (wins - losses)) / (n + mf)
                } else {
                    let star = if p.rating > 2200.0 {
                        50.0
                    } else {
                        50.0 / (1.0 + (2200.0 - p.rating).powi(2) / 100_000.0).sqrt()
                    };
                    let k = 800.0 / (n.min(star) + mf);
                    let gain = k * (score - expected);
                    let bonus = if m >= 3 {
                        (gain - self.uscf.bonus * mf.max(4.0).sqrt()).max(0.0)
                    } else {
                        0.0
                    };
                    p.rating + gain + bonus
                };
                r.max(self.uscf.floor)
            }
        };
        FedPlayer {
            rating,
            games: p.games + m,
            peak: p.peak.max(rating),
        }
    }
}

impl RatingSystem for Federation {
    type Player = FedPlayer;
    type Params = serde_json::Value;

    fn kind(&self) -> SystemKind {
        match self.rules {
            Rules::Fide => SystemKind::Fide,
            Rules::Uscf => SystemKind::Uscf,
        }
    }

    fn parameters(&self) -> &serde_json::Value {
        &self.shown
    }

    fn new_player(&self) -> FedPlayer {
        let start = match self.rules {
            Rules::Fide => self.fide.start,
            Rules::Uscf => self.uscf.start,
        };
        FedPlayer {
            games: 0,
            ..self.seeded(start, None, None)
        }
    }

    fn seeded(&self, rating: f64, _: Option<f64>, _: Option<f64>) -> FedPlayer {
        let games = match self.rules {
            Rules::Fide => self.fide.new_games,
            Rules::Uscf => 26,
        };
        FedPlayer {
            rating,
            games,
            peak: rating,
        }
    }

    fn rating(&self, p: &FedPlayer) -> Rating {
        Rating::new(p.rating, None)
    }

    fn refuses(&self, contest: &Contest<'_>) -> Option<String> {
        if contest.entries().any(|e| e.players.len() != 1) {
            return Some(format!(
                "{} rates games between individual players, and this contest has a team",
                self.name()
            ));
        }
        // A standings is its games, n (n - 1) / 2 of them.
        let max = match self.rules {
            Rules::Fide => self.fide.max_standing,
            Rules::Uscf => self.uscf.max_standing,
        };
        super::games::refuse_large(self.name(), contest, max)
    }

    fn update(&self, round: Round<'_>, players: &mut [FedPlayer]) {
        // Every player's games of the event, from the ratings before it.
        let mut games: Vec<(PlayerId, f64, f64)> = Vec::new();
        for c in round.contests() {
            if c.weight() <= 0.0 {
                continue;
            }
            // Each game, as (player, opponent's rating, player's score), both ways.
            for x in 0..c.len() {
                let (a, rating_a) = (c.entry(x), players[c.entry(x).players[0] as usize].rating);
                for y in x + 1..c.len() {
                    let b = c.entry(y);
                    let s = a.outcome_against(&b);
                    games.push((a.players[0], players[b.players[0] as usize].rating, s));
                    games.push((b.players[0], rating_a, 1.0 - s));
                }
            }
        }
        games.sort_by_key(|g| g.0);
        let mut mine: Vec<(f64, f64)> = Vec::new();
        for same in games.chunk_by(|a, b| a.0 == b.0) {
            mine.clear();
            mine.extend(same.iter().map(|g| (g.1, g.2)));
            let id = same[0].0 as usize;
            players[id] = self.after_event(&players[id], &mine);
        }
    }

    fn win_probability(
        &self,
        players: &[FedPlayer],
        a: &[PlayerId],
        b: &[PlayerId],
    ) -> Option<f64> {
        match (a, b) {
            ([x], [y]) => {
                Some(self.expected(players[*x as usize].rating - players[*y as usize].rating))
            }
            _ => None,
        }
    }

    fn method(&self) -> Option<String> {
        Some(match self.rules {
            Rules::Fide => "FIDE Rating Regulations (2024) 8.3: table 8.1.2, the 400-point rule, \
                            K 40/20/10, K n <= 700, changes rounded per event"
                .into(),
            Rules::Uscf => "US Chess approximating formulas (Glickman): the special formula to 8 \
                            games, then K = 800 / (N' + m) with the bonus (B)"
                .into(),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::history::{HistoryBuilder, SourceInfo};

    /// The table's bands, and the 400-point rule: 100 points is 0.64 (and 0.36 from below),
    /// 401 counts as 400 (0.92), 736 and more would be 1.00 but are capped.
    #[test]
    fn fide_table_and_the_400_point_rule() {
        assert_eq!(fide_expected(0.0, 400.0), 0.50);
        assert_eq!(fide_expected(3.0, 400.0), 0.50);
        assert_eq!(fide_expected(4.0, 400.0), 0.51);
        assert_eq!(fide_expected(100.0, 400.0), 0.64);
        assert!((fide_expected(-100.0, 400.0) - 0.36).abs() < 1e-12);
        assert_eq!(fide_expected(401.0, 400.0), 0.92);
        assert_eq!(fide_expected(800.0, 400.0), 0.92);
        assert_eq!(fide_expected(800.0, 1000.0), 1.0);
        // The bands are contiguous and rising.
        for w in FIDE_BANDS.windows(2) {
            assert!(w[0] < w[1]);
        }
        assert_eq!(fide_expected(735.0, 1000.0), 0.99);
    }

    /// One event, rated by hand: three games in one round (a day).
    fn event(system: &Federation, me: FedPlayer, opponents: &[(f64, f64)]) -> FedPlayer {
        let mut b = HistoryBuilder::new();
        let id = b.player("me");
        let mut states = vec![me];
        for (k, &(rating, score)) in opponents.iter().enumerate() {
            let o = b.player(&format!("o{k}"));
            states.push(system.seeded(rating, None, None));
            b.add_game(0, 1.0, None, (&[id], &[o]), score, None)
                .unwrap();
        }
        let h = b.finish(SourceInfo::default());
        let ids: Vec<u32> = (0..h.len() as u32).collect();
        system.update(Round::new(&h, &ids), &mut states);
        states[0]
    }

    /// FIDE, worked by hand after 8.3 (table 8.1.2, the 400-point rule, K):
    /// - a player rated 2100 with 40 games (K 20) beats 2300 (D = -200: PD 0.24), draws
    ///   2050 (D = 50: 0.57) and loses to 2700 (D = -600 counts as -400: 0.08): score 1.5,
    ///   expected 0.89, change 20 x 0.61 = 12.2, rounded 12: 2112;
    /// - the same as a newcomer of 10 games (K 40): 24.4, rounded 24;
    /// - a player who reached 2400 once and is now 2380 (K 10): 6.1, rounded 6;
    /// - 40 games in one event at K 20 (K n = 800 > 700): K = 17.
    #[test]
    fn fide_worked_examples() {
        let fide = Federation::fide(FideParams::default()).unwrap();
        let games = [(2300.0, 1.0), (2050.0, 0.5), (2700.0, 0.0)];
        let player = |rating, games, peak| FedPlayer {
            rating,
            games,
            peak,
        };
        let after = event(&fide, player(2100.0, 40, 2150.0), &games);
        assert_eq!((after.rating, after.games), (2112.0, 43));
        assert_eq!(
            event(&fide, player(2100.0, 10, 2100.0), &games).rating,
            2124.0
        );
        let master = event(&fide, player(2380.0, 200, 2405.0), &games);
        // From 2380: 2300 is D = 80 (0.61), 2050 is 330 (0.88), 2700 is -320 (0.13):
        // expected 1.62, score 1.5, change 10 x -0.12 = -1.2, rounded -1.
        assert_eq!(master.rating, 2379.0);
        assert_eq!(fide.fide_k(&player(2100.0, 40, 2100.0), 40), 17.0);
        assert_eq!(fide.fide_k(&player(2100.0, 40, 2100.0), 35), 20.0);
        assert_eq!(fide.fide_k(&player(2100.0, 29, 2100.0), 1), 40.0);
        // A peak of 2400 reached in an event: K 10 from the next.
        let up = event(&fide, player(2395.0, 100, 2395.0), &[(2395.0, 1.0)]);
        assert_eq!((up.rating, up.peak), (2405.0, 2405.0));
        assert_eq!(fide.fide_k(&up, 1), 10.0);
    }

    /// US Chess, the approximating formulas' example: a player rated 1500 on 6 games beats
    /// 1400, loses to 1550 and draws 1650: (6 x 1500 + 3 x 1533.33 + 400 (1 - 1)) / 9 =
    /// 1511.11. And the standard formula by hand: 1800 on 30 games (N* = 50 / sqrt(1 + 1.6)
    /// = 31.01, N' = 30), the same three games against 1700, 1850, 1950: K = 800 / 33,
    /// expected 0.64006 + 0.42854 + 0.29661 = 1.36522, gain K x 0.13478 = 3.2675, no bonus
    /// (3.27 < 14 x 2).
    #[test]
    fn uscf_worked_examples() {
        let uscf = Federation::uscf(UscfParams::default()).unwrap();
        let p = FedPlayer {
            rating: 1500.0,
            games: 6,
            peak: 1500.0,
        };
        let after = event(&uscf, p, &[(1400.0, 1.0), (1550.0, 0.0), (1650.0, 0.5)]);
        assert!(
            (after.rating - (9000.0 + 4600.0) / 9.0).abs() < 1e-9,
            "{after:?}"
        );
        let p = FedPlayer {
            rating: 1800.0,
            games: 30,
            peak: 1800.0,
        };
        let after = event(&uscf, p, &[(1700.0, 1.0), (1850.0, 0.0), (1950.0, 0.5)]);
        let e: f64 = [1700.0, 1850.0, 1950.0]
            .iter()
            .map(|o: &f64| 1.0 / (1.0 + 10f64.powf((o - 1800.0) / 400.0)))
            .sum();
        assert!((after.rating - (1800.0 + 800.0 / 33.0 * (1.5 - e))).abs() < 1e-9);
        assert!((after.rating - 1803.2675).abs() < 1e-4, "{after:?}");
        // A big event result earns the bonus: 5 wins against equals at N 30.
        let after = event(&uscf, p, &[(1800.0, 1.0); 5]);
        let k = 800.0 / 35.0;
        let gain = k * 2.5;
        assert!((after.rating - (1800.0 + gain + (gain - 14.0 * 5f64.sqrt()))).abs() < 1e-9);
    }
}
