//! Glicko (Glickman, "Parameter estimation in large dynamic paired comparison experiments",
//! Applied Statistics 48, 1999; the same formulas as his "The Glicko system", 1995).
//!
//! Each player has a rating `r` and a rating deviation `RD`; newcomers 1500 / 350. A rating
//! period:
//! 1. at its start, a returning player's deviation grows with the periods `t` since the last
//!    one played: `RD = min(sqrt(RD^2 + c^2 t), RD_0)` (`RD_0` = 350, the newcomers'). With
//!    `--period day|week|month` the periods are calendar periods (`t` counts those without
//!    games too); otherwise every round is its own period and `t` = 1. The default `c` is 0:
//!    no growth unless `--c` is given (with one period per game, any `c` would grow a player's
//!    deviation per game played, not per unit of time: use `--decay-per-day` for that);
//! 2. all the period's games are rated from the period's pre-ratings: with
//!    `q = ln 10 / 400`, `g(RD) = 1 / sqrt(1 + 3 q^2 RD^2 / pi^2)` and
//!    `E_j = 1 / (1 + 10^(-g(RD_j) (r - r_j) / 400))`,
//!    `1/d^2 = q^2 sum g(RD_j)^2 E_j (1 - E_j)`,
//!    `r' = r + q / (1/RD^2 + 1/d^2) sum g(RD_j) (s_j - E_j)`,
//!    `RD' = sqrt(1 / (1/RD^2 + 1/d^2))`.
//!
//! A contest of n entries is n - 1 games per entry in the period (one against every other
//! entry: 1, 1/2 or 0 by place), all from the pre-ratings; a team plays with its members' mean
//! rating and root-mean-square deviation and every member receives its change. The expected
//! outcome of a game (the win probability of the metrics) is Glickman's
//! `1 / (1 + 10^(-g(sqrt(RD_a^2 + RD_b^2)) (r_a - r_b) / 400))`.
//!
//! These are the formulas of pairwise Glicko without the Elo-MMR normalisation, with Glickman's
//! `q`, so the sums are those of [`super::pairwise_glicko`] (`beta = pi / (sqrt 3 q)` =
//! 315.08 there is Glickman's `g`); this module adds the rating periods and the cap.
//!
//! # Example
//!
//! Glickman's worked example ("The Glicko system", section 3): a 1500 / 200 player beats a
//! 1400 / 30 player and loses to 1550 / 100 and 1700 / 300 in one rating period, and ends at
//! 1464.1 / 151.4:
//!
//! ```
//! use rate_batch_core::rater::Rater;
//! use rate_batch_core::systems::glicko::{Glicko, GlickoParams};
//!
//! let mut r = Rater::new(Glicko::new(GlickoParams::default())?);
//! for (name, rating, rd) in [("me", 1500.0, 200.0), ("a", 1400.0, 30.0), ("b", 1550.0, 100.0), ("c", 1700.0, 300.0)] {
//!     r.seed(name, rating, Some(rd), None);
//! }
//! r.rate_period(&[("me", "a", 1.0), ("me", "b", 0.0), ("me", "c", 0.0)])?;
//! let me = r.rating("me").unwrap();
//! assert!((me.mean - 1464.1).abs() < 0.05);
//! assert!((me.uncertainty.unwrap() - 151.4).abs() < 0.05);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

use super::allpairs::{self, MuSigma};
use super::base::{Elapsed, ParamError, Rating, RatingSystem, check_range, fixed_system};
use super::pairwise_glicko::{PairwiseGlicko, PairwiseGlickoParams};
use crate::history::{PlayerId, Round};
use crate::numeric::logistic_q;
use serde::{Deserialize, Serialize};
use std::f64::consts::PI;

/// Glicko's parameters.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct GlickoParams {
    /// A newcomer's rating.
    pub start: f64,
    /// A newcomer's rating deviation, also the largest deviation.
    pub start_rd: f64,
    /// Growth of the deviation per rating period: `RD^2 += c^2` (0: none).
    pub c: f64,
    /// Rating difference for 10:1 odds (Glickman's q = ln 10 / scale).
    pub scale: f64,
    /// Contests summed pair by pair, O(n^2), rather than through the tabulated shared function
    /// from 512 entries on (within 1e-10 of each sum; see `numeric::shared`).
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub exact: bool,
    /// The first side's advantage (home, white), in rating points: added to its rating in
    /// its expected score, in games played with a first side.
    #[serde(skip_serializing_if = "super::base::is_zero")]
    pub advantage: f64,
}

impl Default for GlickoParams {
    fn default() -> Self {
        Self {
            start: 1500.0,
            start_rd: 350.0,
            c: 10.0,
            scale: 400.0,
            exact: false,
            advantage: 0.0,
        }
    }
}

/// The Glicko system.
#[derive(Clone, Debug)]
pub struct Glicko {
    p: GlickoParams,
    pairs: PairwiseGlicko,
}

impl Glicko {
    /// Checks the parameters.
    pub fn new(p: GlickoParams) -> Result<Self, ParamError> {
        check_range("start", p.start, -1e9, 1e9)?;
        check_range("start_rd", p.start_rd, 1e-6, 1e9)?;
        check_range("c", p.c, 0.0, 1e9)?;
        check_range("scale", p.scale, 1e-6, 1e9)?;
        check_range("advantage", p.advantage, -1e9, 1e9)?;
        let beta = PI / (3f64.sqrt() * logistic_q(p.scale));
        // No drift per round: growth between periods is applied by [`RatingSystem::elapse`],
        // per player. Not normalised: a drawn game scores 1/2 (Glickman), so a contest of
        // ties is rated.
        let mut pairs = PairwiseGlicko::new(PairwiseGlickoParams {
            beta,
            sig_drift: 0.0,
            mu_init: p.start,
            sigma_init: p.start_rd,
            normalise: false,
            exact: p.exact,
        })?;
        pairs.advantage = p.advantage;
        Ok(Self { p, pairs })
    }
}

impl RatingSystem for Glicko {
    type Player = MuSigma;
    fixed_system!(
        Glicko,
        GlickoParams,
        uncertainty: "RD",
        "Glicko's rating deviation: the standard deviation of the rating"
    );

    fn new_player(&self) -> MuSigma {
        self.pairs.new_player()
    }

    fn seeded(&self, rating: f64, uncertainty: Option<f64>, volatility: Option<f64>) -> MuSigma {
        self.pairs.seeded(rating, uncertainty, volatility)
    }

    fn shift(&self, p: &mut MuSigma, points: f64) -> bool {
        p.mu += points;
        true
    }

    /// `RD = min(sqrt(RD^2 + c^2 t + decay), RD_0)` for the `t` periods passed (fractional
    /// under `--growth time`); a deviation already above `RD_0` (seeded so) does not grow.
    fn elapse(&self, p: &mut MuSigma, time: Elapsed) {
        let growth = self.p.c * self.p.c * time.periods + time.variance;
        self.pairs
            .elapse(p, Elapsed::rounds(0.0).with_variance(growth));
    }

    fn rating_period_days(&self) -> Option<f64> {
        Some(super::base::DEFAULT_PERIOD_DAYS)
    }

    fn rating(&self, p: &MuSigma) -> Rating {
        p.rating()
    }

    fn update(&self, round: Round<'_>, players: &mut [MuSigma]) {
        allpairs::update_round(&self.pairs, round, players);
    }

    fn advantage_per_elo(&self) -> Option<f64> {
        Some(self.p.scale / 400.0)
    }

    fn win_probability_sided(
        &self,
        players: &[MuSigma],
        a: &[PlayerId],
        b: &[PlayerId],
        first_side: bool,
    ) -> Option<f64> {
        if !first_side || self.p.advantage == 0.0 {
            return self.pairs.win_probability(players, a, b);
        }
        // Each side as one player of its mean and variance, side a's advantage added.
        let both = [(a, self.p.advantage), (b, 0.0)].map(|(side, advantage)| {
            let (mu, var) = super::allpairs::side_belief(players, side);
            MuSigma {
                mu: mu + advantage,
                sigma: var.sqrt(),
            }
        });
        self.pairs.win_probability(&both, &[0], &[1])
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::history::{HistoryBuilder, SourceInfo};
    use crate::systems::allpairs::test_util::after;

    fn glicko() -> Glicko {
        Glicko::new(GlickoParams::default()).unwrap()
    }

    /// Glickman's example ("The Glicko system", section 3): a 1500 / 200 player beats
    /// 1400 / 30 and loses to 1550 / 100 and 1700 / 300 in one rating period:
    /// 1464 / 151.4 (he prints r' = 1464 and RD' = 151.4; 1464.1 to one decimal).
    #[test]
    fn glickmans_example() {
        let mut b = HistoryBuilder::new();
        let [me, a, bb, c] = ["me", "a", "b", "c"].map(|n| b.player(n));
        for (k, (opp, won)) in [(a, true), (bb, false), (c, false)].into_iter().enumerate() {
            b.begin_contest(k as i64, 1.0, None, None);
            let (w, l) = if won { (me, opp) } else { (opp, me) };
            b.add_entry(&[w], 0, 0, None);
            b.add_entry(&[l], 1, 1, None);
            b.end_contest().unwrap();
        }
        let h = b.finish(SourceInfo::default());
        let start = [
            (1500.0, 200.0),
            (1400.0, 30.0),
            (1550.0, 100.0),
            (1700.0, 300.0),
        ];
        let got = after(&glicko(), &h, &start);
        assert!((got[0].mu - 1464.1).abs() < 0.05, "{}", got[0].mu);
        assert!((got[0].sigma - 151.4).abs() < 0.05, "{}", got[0].sigma);
    }

    /// A draw scores 1/2: 1700 / 300 and 1500 / 200 move towards each other and both
    /// deviations shrink (by hand with Glickman's formulas: 1630.695056738 / 251.458997583 and
    /// 1528.670234891 / 186.762327360). Two equal newcomers who draw keep 1500 and shrink to
    /// 290.23, as after a decisive game.
    #[test]
    fn a_draw_is_half_a_point() {
        use crate::systems::allpairs::test_util::{assert_state, contest};
        let h = contest(&[("x", 0, 1), ("y", 0, 1)]);
        let got = after(&glicko(), &h, &[(1700.0, 300.0), (1500.0, 200.0)]);
        assert_state(got[0], 1630.695056738002, 251.458997582887);
        assert_state(got[1], 1528.670234891169, 186.762327359607);
        let got = after(&glicko(), &h, &[(1500.0, 350.0), (1500.0, 350.0)]);
        assert_eq!((got[0].mu, got[1].mu), (1500.0, 1500.0));
        assert!(
            (got[0].sigma - 290.2305060910912).abs() < 1e-9,
            "{:?}",
            got[0]
        );
    }

    #[test]
    fn deviation_grows_with_periods_up_to_the_start() {
        let g = Glicko::new(GlickoParams {
            c: 63.2,
            ..GlickoParams::default()
        })
        .unwrap();
        let mut p = MuSigma {
            mu: 1700.0,
            sigma: 50.0,
        };
        g.elapse(&mut p, Elapsed::rounds(1.0));
        // sqrt(50^2 + 63.2^2) = sqrt(6494.24) = 80.5868
        assert!((p.sigma - 80.5868).abs() < 1e-4, "{}", p.sigma);
        g.elapse(&mut p, Elapsed::rounds(30.0));
        assert_eq!((p.mu, p.sigma), (1700.0, 350.0));
        // The default c is 10 a period: 2.5 periods of time add 250 to the variance, and the
        // decay's variance comes on top.
        let mut q = MuSigma {
            mu: 1700.0,
            sigma: 50.0,
        };
        glicko().elapse(&mut q, Elapsed::rounds(2.5));
        assert!(
            (q.sigma - (2500.0f64 + 250.0).sqrt()).abs() < 1e-12,
            "{}",
            q.sigma
        );
        let mut r = MuSigma {
            mu: 1700.0,
            sigma: 50.0,
        };
        glicko().elapse(
            &mut r,
            Elapsed::rounds(0.0).with_variance(60.0 * 60.0 - 50.0 * 50.0),
        );
        assert!((r.sigma - 60.0).abs() < 1e-9, "{}", r.sigma);
    }

    fn one_game(draw: bool) -> crate::history::History {
        let mut b = HistoryBuilder::new();
        let (x, y) = (b.player("x"), b.player("y"));
        b.begin_contest(0, 1.0, None, None);
        b.add_entry(&[x], 0, 0, None);
        b.add_entry(&[y], u32::from(!draw), u32::from(!draw), None);
        b.end_contest().unwrap();
        b.finish(SourceInfo::default())
    }

    #[test]
    fn symmetric_players_stay_symmetric_and_a_win_never_lowers() {
        let g = glicko();
        let got = after(&g, &one_game(true), &[(1500.0, 350.0), (1500.0, 350.0)]);
        assert_eq!(got[0], got[1]);
        assert!((got[0].mu - 1500.0).abs() < 1e-9);
        let got = after(&g, &one_game(false), &[(1500.0, 350.0), (1500.0, 350.0)]);
        assert!((got[0].mu - 1500.0 + (got[1].mu - 1500.0)).abs() < 1e-9);
        assert_eq!(got[0].sigma, got[1].sigma);
        for (mu, sigma) in [(900.0, 30.0), (1500.0, 350.0), (2400.0, 80.0)] {
            for opp in [(1000.0, 300.0), (2000.0, 50.0), (3000.0, 350.0)] {
                let got = after(&g, &one_game(false), &[(mu, sigma), opp]);
                assert!(got[0].mu > mu && got[1].mu < opp.0, "{mu} {sigma} {opp:?}");
                assert!(got[0].sigma < sigma && got[1].sigma < opp.1);
            }
        }
    }

    #[test]
    fn deviation_never_grows_within_a_period_with_games() {
        let mut b = HistoryBuilder::new();
        let [x, y, z] = ["x", "y", "z"].map(|n| b.player(n));
        b.begin_contest(0, 1.0, None, None);
        b.add_entry(&[x], 0, 0, None);
        b.add_entry(&[y], 1, 2, None);
        b.add_entry(&[z], 1, 2, None);
        b.end_contest().unwrap();
        let h = b.finish(SourceInfo::default());
        let start = [(1500.0, 350.0), (1900.0, 40.0), (1200.0, 200.0)];
        let got = after(&glicko(), &h, &start);
        for (g, s) in got.iter().zip(&start) {
            assert!(g.sigma < s.1, "{g:?} from {s:?}");
        }
        // The winner gains; the 1900 who lost to a 1500 and tied a 1200 loses; the 1200 gains
        // more from its tie with the 1900 than it loses to the 1500.
        assert!(got[0].mu > 1500.0 && got[1].mu < 1900.0 && got[2].mu > 1200.0);
    }
}
