//! Glicko-2 (Glickman, "Example of the Glicko-2 system", 2013; Glickman, "Dynamic paired
//! comparison models with stochastic variances", Journal of Applied Statistics 28, 2001).
//!
//! Each player has a rating `r`, a deviation `RD` and a volatility `sigma`; newcomers 1500 /
//! 350 / 0.06; the system constant `tau` is 0.5. A rating period, for a player who played in
//! it (his steps 2 to 8), on the scale `mu = (r - 1500) / 173.7178`, `phi = RD / 173.7178`:
//! - against each opponent j, `g(phi_j) = 1 / sqrt(1 + 3 phi_j^2 / pi^2)` and
//!   `E_j = 1 / (1 + exp(-g(phi_j) (mu - mu_j)))`;
//! - `v = 1 / sum g(phi_j)^2 E_j (1 - E_j)`, `Delta = v sum g(phi_j) (s_j - E_j)`;
//! - the new volatility `sigma' = exp(A / 2)`, A the root of
//!   `f(x) = e^x (Delta^2 - phi^2 - v - e^x) / (2 (phi^2 + v + e^x)^2) - (x - ln sigma^2) / tau^2`,
//!   bracketed as step 5 says (`B = ln(Delta^2 - phi^2 - v)` when positive, else the first
//!   `ln sigma^2 - k tau` where f is negative) and found by the Illinois method to 1e-6;
//! - `phi* = sqrt(phi^2 + sigma'^2)`, `phi' = 1 / sqrt(1/phi*^2 + 1/v)`,
//!   `mu' = mu + phi'^2 sum g(phi_j) (s_j - E_j)`.
//!
//! A player who plays in no period has `phi' = sqrt(phi^2 + sigma^2)` for it. Every round is a
//! rating period for the players in it; with `--period day|week|month` the periods are
//! calendar periods, and a returning player's deviation first grows by `sigma^2` for each
//! period without games since his last ([`RatingSystem::elapse`]; with the default one period
//! per round there are none).
//!
//! A contest of n entries is one game per entry against the average of the n - 1 others (1,
//! 1/2 or 0 by place): the sums over its pairs divided by n - 1, as the Elo-MMR paper's
//! Glicko baseline rates a contest (as n - 1 games of one period, hundreds of opponents fed
//! the volatility back on itself until the ratings ran away, 4e77 on Codeforces' seventh
//! round); from 512 entries on the expected scores come from a tabulated shared function of
//! the rating (within 1e-10 of each sum), O(n) per contest. All games of a round are one
//! period. A team plays with its
//! members' mean `mu` and root-mean-square `phi`; each member is then updated by the steps
//! above with his own `phi` and `sigma` and the team's `v` and score sum (as if he had played
//! the team's games at the team's expected scores). The win probability of the metrics is
//! `1 / (1 + exp(-g(sqrt(phi_a^2 + phi_b^2)) (mu_a - mu_b)))`.
//!
//! # Example
//!
//! Glickman's worked example of Glicko-2: the same player and games as Glicko's, with
//! volatility 0.06 and tau 0.5: r' = 1464.06, RD' = 151.52:
//!
//! ```
//! use rate_batch_core::rater::Rater;
//! use rate_batch_core::systems::glicko2::{Glicko2, Glicko2Params};
//!
//! let mut r = Rater::new(Glicko2::new(Glicko2Params::default())?);
//! for (name, rating, rd) in [("me", 1500.0, 200.0), ("a", 1400.0, 30.0), ("b", 1550.0, 100.0), ("c", 1700.0, 300.0)] {
//!     r.seed(name, rating, Some(rd), Some(0.06));
//! }
//! r.rate_period(&[("me", "a", 1.0), ("me", "b", 0.0), ("me", "c", 0.0)])?;
//! let me = r.rating("me").unwrap();
//! assert!((me.mean - 1464.06).abs() < 0.01);
//! assert!((me.uncertainty.unwrap() - 151.52).abs() < 0.01);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

use super::base::{
    Elapsed, ParamError, Rating, RatingSystem, check_range, fixed_system, map_indices,
};
use super::pairwise::{TABULATE_FROM, outcome_sums};
use crate::history::{Contest, PlayerId, Round};
use crate::numeric::shared;
use serde::{Deserialize, Serialize};
use std::f64::consts::PI;

/// Glicko-2's scale: `400 / ln 10`.
pub const SCALE: f64 = 173.7178;

/// Glicko-2's parameters.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct Glicko2Params {
    /// A newcomer's rating.
    pub start: f64,
    /// A newcomer's rating deviation.
    pub start_rd: f64,
    /// A newcomer's volatility.
    pub start_volatility: f64,
    /// The system constant tau: how much the volatility can change.
    pub tau: f64,
    /// Convergence tolerance of the volatility iteration.
    pub tolerance: f64,
    /// The first side's advantage (home, white), in rating points: added to its rating in
    /// its expected score, in games played with a first side.
    #[serde(skip_serializing_if = "super::base::is_zero")]
    pub advantage: f64,
    /// The smallest deviation a player keeps (0: none; Lichess: 45).
    #[serde(skip_serializing_if = "super::base::is_zero")]
    pub min_rd: f64,
    /// The largest deviation (0, the default: the newcomers' `start_rd`, as Glicko caps it;
    /// Lichess: 500). A player away for long returns as uncertain as a newcomer, not more.
    #[serde(skip_serializing_if = "super::base::is_zero")]
    pub max_rd: f64,
    /// The smallest volatility (0: none; Lichess: 0.01).
    #[serde(skip_serializing_if = "super::base::is_zero")]
    pub min_volatility: f64,
    /// The largest volatility (0: none; Lichess: 0.1).
    #[serde(skip_serializing_if = "super::base::is_zero")]
    pub max_volatility: f64,
    /// The lowest rating (none by default; Lichess: 400).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub min_rating: Option<f64>,
    /// The highest rating (none by default; Lichess: 4000).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub max_rating: Option<f64>,
    /// The largest change of a rating in one round (0: none; Lichess: 700 a game).
    #[serde(skip_serializing_if = "super::base::is_zero")]
    pub max_delta: f64,
    /// Lichess's rating regulator: a gain of a player rated below `start + max_rd` is
    /// multiplied by this (1: none; Lichess: 1.02, against the deflation of a pool).
    #[serde(skip_serializing_if = "is_one")]
    pub regulator: f64,
}

fn is_one(x: &f64) -> bool {
    *x == 1.0
}

impl Default for Glicko2Params {
    fn default() -> Self {
        Self {
            start: 1500.0,
            start_rd: 350.0,
            start_volatility: 0.06,
            tau: 0.5,
            tolerance: 1e-6,
            advantage: 0.0,
            min_rd: 0.0,
            max_rd: 0.0,
            min_volatility: 0.0,
            max_volatility: 0.0,
            min_rating: None,
            max_rating: None,
            max_delta: 0.0,
            regulator: 1.0,
        }
    }
}

/// A player's state, on the Glicko scale.
#[derive(Clone, Copy, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Glicko2Player {
    /// Rating r.
    pub rating: f64,
    /// Rating deviation RD as of the start of the current period (his last update, with the
    /// growth of the whole periods passed since).
    pub rd: f64,
    /// Volatility sigma.
    pub volatility: f64,
    /// The fraction of a period passed since, whose growth the next update adds with the new
    /// volatility (step 6: `phi* = sqrt(phi^2 + pending sigma'^2)`): 1 for a newcomer and
    /// under counted periods, `min(t, 1)` for `t` periods of measured time, 0 after an update.
    pub pending: f64,
    /// Whether the deviation shown and predicted with includes `pending`'s growth at the
    /// current volatility (measured time: the deviation as of now, as Lichess shows it); under
    /// counted periods a period's growth comes with its update (Glickman).
    pub shown: bool,
}

impl Glicko2Player {
    /// A player's state from its rating, deviation and volatility, with nothing pending
    /// beyond one period for the next update.
    pub fn new(rating: f64, rd: f64, volatility: f64) -> Self {
        Glicko2Player {
            rating,
            rd,
            volatility,
            pending: 1.0,
            shown: false,
        }
    }
}

/// The Glicko-2 system.
#[derive(Clone, Debug)]
pub struct Glicko2 {
    p: Glicko2Params,
}

/// A lower bound that is not above its upper bound.
fn ordered((lo_name, lo): (&str, f64), (hi_name, hi): (&str, f64)) -> Result<(), ParamError> {
    if lo > hi {
        return Err(ParamError(format!(
            "{lo_name} ({lo}) is above {hi_name} ({hi})"
        )));
    }
    Ok(())
}

/// `g(phi)` on the Glicko-2 scale.
#[inline]
fn g(phi: f64) -> f64 {
    1.0 / (1.0 + 3.0 * phi * phi / (PI * PI)).sqrt()
}

/// Score sums of one player over a period: `sum g (s - E)` and `sum g^2 E (1 - E)`.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Sums {
    /// `sum g(phi_j) (s_j - E_j)`.
    pub score: f64,
    /// `sum g(phi_j)^2 E_j (1 - E_j)` = `1 / v`.
    pub info: f64,
}

impl Glicko2 {
    /// Checks the parameters.
    pub fn new(p: Glicko2Params) -> Result<Self, ParamError> {
        check_range("start", p.start, -1e9, 1e9)?;
        check_range("advantage", p.advantage, -1e9, 1e9)?;
        check_range("min_rd", p.min_rd, 0.0, 1e9)?;
        check_range("max_rd", p.max_rd, 0.0, 1e9)?;
        check_range("start_rd", p.start_rd, 1e-6, 1e9)?;
        // (0 for max_rd: the newcomers' deviation; for max_volatility: none.)
        let max_rd = if p.max_rd > 0.0 { p.max_rd } else { p.start_rd };
        ordered(("min_rd", p.min_rd), ("the largest deviation", max_rd))?;
        ordered(("start_rd", p.start_rd), ("max_rd", max_rd))?;
        check_range("min_volatility", p.min_volatility, 0.0, 1e3)?;
        check_range("max_volatility", p.max_volatility, 0.0, 1e3)?;
        if p.max_volatility > 0.0 {
            ordered(
                ("min_volatility", p.min_volatility),
                ("max_volatility", p.max_volatility),
            )?;
        }
        for (name, bound) in [("min_rating", p.min_rating), ("max_rating", p.max_rating)] {
            if let Some(b) = bound {
                check_range(name, b, -1e9, 1e9)?;
            }
        }
        if let (Some(lo), Some(hi)) = (p.min_rating, p.max_rating) {
            ordered(("min_rating", lo), ("max_rating", hi))?;
        }
        check_range("max_delta", p.max_delta, 0.0, 1e9)?;
        check_range("regulator", p.regulator, 0.0, 1e3)?;
        check_range("start_volatility", p.start_volatility, 1e-9, 1e3)?;
        check_range("tau", p.tau, 1e-6, 1e3)?;
        check_range("tolerance", p.tolerance, 1e-15, 1.0)?;
        Ok(Self { p })
    }

    /// The new volatility (step 5), by Glickman's procedure as he writes it (and liglicko2
    /// runs it): A = ln sigma^2, B bracketed as step 5.2 says, then the Illinois iteration of
    /// step 5.4 until |B - A| <= tolerance (at most 1,000 steps), sigma' = exp(A / 2).
    pub fn volatility(&self, phi: f64, sigma: f64, v: f64, delta: f64) -> f64 {
        let tau = self.p.tau;
        let tau2 = tau * tau;
        let a = (sigma * sigma).ln();
        let (phi2, d2) = (phi * phi, delta * delta);
        let f = |x: f64| {
            let ex = x.exp();
            let den = phi2 + v + ex;
            ex * (d2 - phi2 - v - ex) / (2.0 * den * den) - (x - a) / tau2
        };
        let mut big_a = a;
        let mut big_b = if d2 > phi2 + v {
            (d2 - phi2 - v).ln()
        } else {
            let mut k = 1.0;
            while f(a - k * tau) < 0.0 && k < 1e6 {
                k += 1.0;
            }
            a - k * tau
        };
        let (mut f_a, mut f_b) = (f(big_a), f(big_b));
        let mut steps = 0;
        while (big_b - big_a).abs() > self.p.tolerance && steps < 1000 {
            steps += 1;
            let big_c = big_a + (big_a - big_b) * f_a / (f_b - f_a);
            let f_c = f(big_c);
            if f_c * f_b <= 0.0 {
                big_a = big_b;
                f_a = f_b;
            } else {
                f_a /= 2.0;
            }
            big_b = big_c;
            f_b = f_c;
        }
        (big_a / 2.0).exp()
    }

    /// The largest deviation: `max_rd`, or the newcomers' deviation.
    fn max_rd(&self) -> f64 {
        if self.p.max_rd > 0.0 {
            self.p.max_rd
        } else {
            self.p.start_rd
        }
    }

    /// A deviation within `min_rd` and the largest.
    fn bounded_rd(&self, rd: f64) -> f64 {
        rd.max(self.p.min_rd).min(self.max_rd())
    }

    /// A volatility within `min_volatility` and `max_volatility` (where set).
    fn bounded_volatility(&self, v: f64) -> f64 {
        let v = v.max(self.p.min_volatility);
        if self.p.max_volatility > 0.0 {
            v.min(self.p.max_volatility)
        } else {
            v
        }
    }

    /// A rating within `min_rating` and `max_rating` (where set).
    fn bounded_rating(&self, r: f64) -> f64 {
        let r = self.p.min_rating.map_or(r, |lo| r.max(lo));
        self.p.max_rating.map_or(r, |hi| r.min(hi))
    }

    /// The deviation shown and predicted with: `rd`, and where the state says so the growth
    /// of the fraction of a period passed since (the deviation as of now), within the bounds.
    pub fn current_rd(&self, p: &Glicko2Player) -> f64 {
        if p.shown && p.pending > 0.0 {
            let phi2 = (p.rd / SCALE).powi(2) + p.pending * p.volatility * p.volatility;
            self.bounded_rd(SCALE * phi2.sqrt())
        } else {
            p.rd
        }
    }

    /// A rating change as Lichess applies it: a gain of a player below `start + max_rd`
    /// multiplied by the regulator, then the change kept within `max_delta`.
    fn regulated(&self, rating: f64, change: f64) -> f64 {
        let factor = if change > 0.0 && rating < self.p.start + self.max_rd() {
            self.p.regulator
        } else {
            1.0
        };
        let change = factor * change;
        if self.p.max_delta > 0.0 {
            change.clamp(-self.p.max_delta, self.p.max_delta)
        } else {
            change
        }
    }

    /// A player's state after a period with the given sums (steps 3 to 8); `sums.info > 0`.
    /// Step 6 adds the pending fraction of a period at the new volatility.
    pub fn rate(&self, p: &Glicko2Player, sums: Sums) -> Glicko2Player {
        let phi = p.rd / SCALE;
        let v = 1.0 / sums.info;
        let delta = v * sums.score;
        let sigma = self.bounded_volatility(self.volatility(phi, p.volatility, v, delta));
        let phi_star2 = phi * phi + p.pending * sigma * sigma;
        let phi_new = 1.0 / (1.0 / phi_star2 + 1.0 / v).sqrt();
        let change = SCALE * phi_new * phi_new * sums.score;
        Glicko2Player {
            rating: self.bounded_rating(p.rating + self.regulated(p.rating, change)),
            rd: self.bounded_rd(SCALE * phi_new),
            volatility: sigma,
            pending: 0.0,
            shown: false,
        }
    }

    /// Each entry's sums over the contest (entry order), from the states given.
    pub fn contest_sums(&self, c: &Contest, players: &[Glicko2Player]) -> Vec<Sums> {
        let shift = if c.first_side() {
            self.p.advantage / SCALE
        } else {
            0.0
        };
        let sides: Vec<(f64, f64)> = c
            .entries()
            .enumerate()
            .map(|(i, e)| {
                let k = e.players.len() as f64;
                let (mut mu, mut phi2) = (0.0, 0.0);
                for &id in e.players {
                    let p = &players[id as usize];
                    mu += (p.rating - self.p.start) / SCALE;
                    phi2 += (p.rd / SCALE).powi(2);
                }
                (mu / k + if i == 0 { shift } else { 0.0 }, phi2 / k)
            })
            .collect();
        let gs: Vec<f64> = sides.iter().map(|s| g(s.1.sqrt())).collect();
        // More than two entries: one game against the field's average (see the module
        // documentation: as n - 1 games of one period, the volatility runs away).
        let per_game = if c.len() > 2 {
            1.0 / (c.len() - 1) as f64
        } else {
            1.0
        };
        if c.len() >= TABULATE_FROM {
            // The expected scores and their variances are one shared function of mu_i (E_ij
            // depends on j's mu and g only), tabulated once for the contest (within 1e-10 of
            // each sum); the results, by sums of g over the entries placed worse and tied.
            let mu: Vec<f64> = sides.iter().map(|s| s.0).collect();
            let g2: Vec<f64> = gs.iter().map(|g| g * g).collect();
            let sums = shared::logistic_sums_at(
                &mu,
                &shared::Terms {
                    m: &mu,
                    s: &gs,
                    c: &gs,
                    d: Some(&g2),
                },
            );
            let ranges: Vec<(u32, u32)> = c.entries().map(|e| (e.lo, e.hi)).collect();
            let won = outcome_sums(&ranges, &gs);
            return (0..c.len())
                .map(|i| {
                    // Less i's own terms: E_ii = 1/2.
                    let expected = sums[i].0 - 0.5 * gs[i];
                    let info = sums[i].1 - 0.25 * g2[i];
                    Sums {
                        score: (won[i] - expected) * per_game,
                        info: info * per_game,
                    }
                })
                .collect();
        }
        map_indices(c.len(), 256, |i| {
            let ei = c.entry(i);
            let mut sums = Sums::default();
            for j in 0..c.len() {
                if j == i {
                    continue;
                }
                let e = 1.0 / (1.0 + (-gs[j] * (sides[i].0 - sides[j].0)).exp());
                let s = ei.outcome_against(&c.entry(j));
                sums.score += gs[j] * (s - e);
                sums.info += gs[j] * gs[j] * e * (1.0 - e);
            }
            Sums {
                score: sums.score * per_game,
                info: sums.info * per_game,
            }
        })
    }
}

impl RatingSystem for Glicko2 {
    type Player = Glicko2Player;
    fixed_system!(
        Glicko2,
        Glicko2Params,
        uncertainty: "RD",
        "Glicko-2's rating deviation: the standard deviation of the rating"
    );

    fn new_player(&self) -> Glicko2Player {
        self.seeded(self.p.start, None, None)
    }

    fn seeded(
        &self,
        rating: f64,
        uncertainty: Option<f64>,
        volatility: Option<f64>,
    ) -> Glicko2Player {
        Glicko2Player::new(
            self.bounded_rating(rating),
            self.bounded_rd(uncertainty.unwrap_or(self.p.start_rd)),
            self.bounded_volatility(volatility.unwrap_or(self.p.start_volatility)),
        )
    }

    fn shift(&self, p: &mut Glicko2Player, points: f64) -> bool {
        p.rating += points;
        true
    }

    /// Time passing (liglicko2's split of a period, which is Glickman's for whole periods):
    /// `phi^2 += sigma^2` at the player's own volatility for every period passed beyond the
    /// first, plus the decay; the first period (or the fraction of one passed) is left
    /// pending for the next update's step 6, and with measured time it shows in the deviation
    /// as of now.
    fn elapse(&self, p: &mut Glicko2Player, time: Elapsed) {
        let idle = (time.periods - 1.0).max(0.0);
        let phi2 = (p.rd / SCALE).powi(2) + idle * p.volatility * p.volatility;
        p.rd = self.bounded_rd((SCALE * SCALE * phi2 + time.variance).sqrt());
        p.pending = time.periods.clamp(0.0, 1.0);
        p.shown = time.fractional;
    }

    fn rating_period_days(&self) -> Option<f64> {
        Some(super::base::DEFAULT_PERIOD_DAYS)
    }

    fn rating(&self, p: &Glicko2Player) -> Rating {
        Rating::new(p.rating, Some(self.current_rd(p)))
    }

    fn update(&self, round: Round<'_>, players: &mut [Glicko2Player]) {
        // Every contest's sums from the pre-round states, summed per player.
        let mut per_player: Vec<(PlayerId, Sums)> = Vec::new();
        for c in round.contests() {
            let sums = self.contest_sums(&c, players);
            for (e, s) in c.entries().zip(sums) {
                per_player.extend(e.players.iter().map(|&id| (id, s)));
            }
        }
        per_player.sort_by_key(|x| x.0);
        for same in per_player.chunk_by(|a, b| a.0 == b.0) {
            let mut total = Sums::default();
            for (_, s) in same {
                total.score += s.score;
                total.info += s.info;
            }
            let p = &mut players[same[0].0 as usize];
            if total.info > 0.0 {
                *p = self.rate(p, total);
            }
        }
    }

    /// Glicko-2's ratings are on the Elo scale (173.7178 = 400 / ln 10 per unit).
    fn advantage_per_elo(&self) -> Option<f64> {
        Some(1.0)
    }

    fn win_probability_sided(
        &self,
        players: &[Glicko2Player],
        a: &[PlayerId],
        b: &[PlayerId],
        first_side: bool,
    ) -> Option<f64> {
        let shift = if first_side {
            self.p.advantage / SCALE
        } else {
            0.0
        };
        let side = |s: &[PlayerId]| {
            let k = s.len() as f64;
            let mu = s.iter().map(|&i| players[i as usize].rating).sum::<f64>() / k;
            let phi2 = s
                .iter()
                .map(|&i| (self.current_rd(&players[i as usize]) / SCALE).powi(2))
                .sum::<f64>()
                / k;
            (mu / SCALE, phi2)
        };
        let ((mu_a, pa), (mu_b, pb)) = (side(a), side(b));
        Some(1.0 / (1.0 + (-g((pa + pb).sqrt()) * (mu_a + shift - mu_b)).exp()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::history::{HistoryBuilder, SourceInfo};

    fn sys() -> Glicko2 {
        Glicko2::new(Glicko2Params::default()).unwrap()
    }

    fn player(rating: f64, rd: f64, volatility: f64) -> Glicko2Player {
        Glicko2Player::new(rating, rd, volatility)
    }

    /// Games of one round: (winner, loser) by name, or a draw.
    fn round(games: &[(&str, &str, bool)]) -> (crate::history::History, Vec<u32>) {
        let mut b = HistoryBuilder::new();
        for (k, &(x, y, draw)) in games.iter().enumerate() {
            let (x, y) = (b.player(x), b.player(y));
            b.begin_contest(k as i64, 1.0, None, None);
            b.add_entry(&[x], 0, 0, None);
            b.add_entry(
                &[y],
                if draw { 0 } else { 1 },
                if draw { 0 } else { 1 },
                None,
            );
            b.end_contest().unwrap();
        }
        let n = games.len() as u32;
        (b.finish(SourceInfo::default()), (0..n).collect())
    }

    /// "Example of the Glicko-2 system" (Glickman 2013): 1500 / 200 / 0.06 with tau 0.5 beats
    /// 1400 / 30, loses to 1550 / 100 and 1700 / 300: v = 1.7785, Delta = -0.4834,
    /// sigma' = 0.05999, r' = 1464.06, RD' = 151.52.
    #[test]
    fn glickmans_example() {
        let (h, all) = round(&[("me", "a", false), ("b", "me", false), ("c", "me", false)]);
        let mut players = vec![
            player(1500.0, 200.0, 0.06),
            player(1400.0, 30.0, 0.06),
            player(1550.0, 100.0, 0.06),
            player(1700.0, 300.0, 0.06),
        ];
        let s = sys();
        let c = h.contest(0);
        let sums = s.contest_sums(&c, &players);
        assert_eq!(sums.len(), 2);
        s.update(Round::new(&h, &all), &mut players);
        let me = players[0];
        // He prints mu' = -0.2069 and phi' = 0.8722 (four decimals), r' = 1464.06 and
        // RD' = 151.52 from them; exactly, r' = 1464.0507 and RD' = 151.5165.
        let round4 = |x: f64| (x * 1e4).round() / 1e4;
        assert_eq!(round4((me.rating - 1500.0) / SCALE), -0.2069, "{me:?}");
        assert_eq!(round4(me.rd / SCALE), 0.8722, "{me:?}");
        assert!((me.rating - 1464.06).abs() < 0.01, "{me:?}");
        assert!((me.rd - 151.52).abs() < 0.005, "{me:?}");
        assert!((me.volatility - 0.05999).abs() < 1e-5, "{me:?}");
    }

    #[test]
    fn volatility_root_solves_the_equation() {
        let s = sys();
        // Glickman's example on his scale.
        let (phi, sigma, v, delta) = (1.1513, 0.06, 1.7785, -0.4834);
        let x = 2.0 * s.volatility(phi, sigma, v, delta).ln();
        let ex = x.exp();
        let f = ex * (delta * delta - phi * phi - v - ex) / (2.0 * (phi * phi + v + ex).powi(2))
            - (x - (sigma * sigma).ln()) / 0.25;
        assert!(f.abs() < 1e-5, "f = {f}");
        // Delta^2 > phi^2 + v takes the other bracket.
        let big = s.volatility(0.3, 0.06, 0.5, 3.0);
        assert!(big > 0.06 && big.is_finite(), "{big}");
    }

    #[test]
    fn symmetric_players_stay_symmetric_and_a_win_never_lowers() {
        let (h, all) = round(&[("x", "y", true)]);
        let mut players = vec![player(1500.0, 350.0, 0.06); 2];
        sys().update(Round::new(&h, &all), &mut players);
        assert!((players[0].rating - 1500.0).abs() < 1e-9);
        assert_eq!(players[0].rating, players[1].rating);
        assert_eq!(players[0].rd, players[1].rd);
        let (h, all) = round(&[("x", "y", false)]);
        for opp in [900.0, 1500.0, 2600.0] {
            let mut players = vec![player(1500.0, 80.0, 0.06), player(opp, 200.0, 0.06)];
            sys().update(Round::new(&h, &all), &mut players);
            assert!(players[0].rating > 1500.0 && players[1].rating < opp);
            // Unlike Glicko's, the deviation can grow in a period with games: by sigma'^2,
            // when the games say little (a 600-point favourite winning) ...
            if opp == 900.0 {
                assert!(players[0].rd > 80.0, "{:?}", players[0]);
            }
            // ... but not after an informative game.
            if opp == 1500.0 {
                assert!(players[0].rd < 80.0, "{:?}", players[0]);
            }
        }
    }

    #[test]
    fn idle_periods_grow_the_deviation_by_the_volatility() {
        let s = sys();
        let mut p = player(1700.0, 100.0, 0.06);
        s.elapse(&mut p, Elapsed::rounds(1.0));
        assert!((p.rd - 100.0).abs() < 1e-12);
        s.elapse(&mut p, Elapsed::rounds(3.0));
        let phi = (100.0f64 / SCALE).hypot((2.0f64).sqrt() * 0.06);
        assert!((p.rd - SCALE * phi).abs() < 1e-9, "{p:?}");
        assert_eq!(p.rating, 1700.0);
    }

    /// Lichess's fractional periods (liglicko2's update, by hand): 2.5 periods grow phi^2 by
    /// 1.5 sigma^2 before the game and leave 1 for its step 6 (shown meanwhile); 0.3 of a
    /// period grows nothing before it, and its step 6 adds 0.3 sigma'^2. The newcomers'
    /// deviation caps the growth.
    #[test]
    fn fractional_periods_split_as_liglicko2() {
        let s = sys();
        let fractional = |periods: f64| Elapsed {
            periods,
            variance: 0.0,
            days: periods * 4.665,
            idle_growth: true,
            fractional: true,
        };
        let mut p = player(1700.0, 100.0, 0.06);
        s.elapse(&mut p, fractional(2.5));
        let phi2 = (100.0f64 / SCALE).powi(2) + 1.5 * 0.0036;
        assert!((p.rd - SCALE * phi2.sqrt()).abs() < 1e-9, "{p:?}");
        assert_eq!((p.pending, p.shown), (1.0, true));
        let shown = SCALE * (phi2 + 0.0036).sqrt();
        assert!((s.rating(&p).uncertainty.unwrap() - shown).abs() < 1e-9);
        // 0.3 of a period: the deviation before the game is the last update's; the game's
        // step 6 adds 0.3 of the new volatility squared.
        let mut q = player(1700.0, 100.0, 0.06);
        s.elapse(&mut q, fractional(0.3));
        assert!((q.rd - 100.0).abs() < 1e-12 && q.pending == 0.3, "{q:?}");
        let sums = Sums {
            score: 0.4,
            info: 0.5,
        };
        let after = s.rate(&q, sums);
        let (phi, v) = (q.rd / SCALE, 2.0);
        let sigma = s.volatility(phi, 0.06, v, v * 0.4);
        let phi_new = 1.0 / (1.0 / (phi * phi + 0.3 * sigma * sigma) + 1.0 / v).sqrt();
        assert!((after.rd - SCALE * phi_new).abs() < 1e-9, "{after:?}");
        assert!((after.rating - (1700.0 + SCALE * phi_new * phi_new * 0.4)).abs() < 1e-9);
        assert_eq!((after.pending, after.shown), (0.0, false));
        // A century away: the newcomers' 350, not more.
        let mut r = player(1700.0, 60.0, 0.06);
        s.elapse(&mut r, fractional(1e4));
        assert_eq!(r.rd, 350.0);
    }

    /// Lichess's regulator, clamp and bounds: a gain of a player below 2000 (start 1500 +
    /// max_rd 500) times 1.02, a change of at most 700, the rating within 400 and 4000.
    #[test]
    fn lichess_regulator_clamp_and_bounds() {
        let lichess = Glicko2::new(Glicko2Params {
            tau: 0.75,
            start_rd: 500.0,
            start_volatility: 0.09,
            min_rd: 45.0,
            max_rd: 500.0,
            min_volatility: 0.01,
            max_volatility: 0.1,
            min_rating: Some(400.0),
            max_rating: Some(4000.0),
            max_delta: 700.0,
            regulator: 1.02,
            ..Glicko2Params::default()
        })
        .unwrap();
        assert_eq!(lichess.regulated(1900.0, 10.0), 10.0 * 1.02);
        assert_eq!(lichess.regulated(2100.0, 10.0), 10.0);
        assert_eq!(lichess.regulated(1900.0, -10.0), -10.0);
        assert_eq!(lichess.regulated(1500.0, 1000.0), 700.0);
        assert_eq!(lichess.regulated(1500.0, -1000.0), -700.0);
        assert_eq!(lichess.bounded_rating(380.0), 400.0);
        assert_eq!(lichess.bounded_volatility(0.2), 0.1);
        assert_eq!(lichess.new_player().rd, 500.0);
        // The plain system has none of it.
        assert_eq!(sys().regulated(1500.0, 1000.0), 1000.0);
        assert_eq!(sys().bounded_rating(-5e8), -5e8);
    }

    /// A contest of many entries is one game against the field's average: each entry's sums
    /// are the mean over its n - 1 pairs (by hand from the pairs), and from 512 entries the
    /// tabulated sums equal the pairs' within 1e-9 of their size.
    #[test]
    fn a_large_contest_is_one_average_game() {
        let s = sys();
        for n in [4usize, 600] {
            let mut b = HistoryBuilder::new();
            let ids: Vec<u32> = (0..n).map(|k| b.player(&format!("p{k}"))).collect();
            b.begin_contest(0, 1.0, None, None);
            for (k, &id) in ids.iter().enumerate() {
                // Places 0, 1, 1, 3, 4, ...: a shared second place.
                let place = if k == 2 { 1 } else { k as u32 };
                let hi = if k == 1 { 2 } else { place };
                b.add_entry(&[id], place, hi, None);
            }
            b.end_contest().unwrap();
            let h = b.finish(SourceInfo::default());
            let players: Vec<Glicko2Player> = (0..n)
                .map(|k| {
                    player(
                        1500.0 + 300.0 * ((k * 7919) % 13) as f64 / 13.0,
                        60.0 + (k % 5) as f64 * 40.0,
                        0.06,
                    )
                })
                .collect();
            let c = h.contest(0);
            let got = s.contest_sums(&c, &players);
            for i in [0, 1, 2, n / 2, n - 1] {
                let (mu_i, e_i) = ((players[i].rating - 1500.0) / SCALE, c.entry(i));
                let mut want = Sums::default();
                for j in (0..n).filter(|&j| j != i) {
                    let gj = g(players[j].rd / SCALE);
                    let e =
                        1.0 / (1.0 + (-gj * (mu_i - (players[j].rating - 1500.0) / SCALE)).exp());
                    want.score += gj * (e_i.outcome_against(&c.entry(j)) - e);
                    want.info += gj * gj * e * (1.0 - e);
                }
                let k = (n - 1) as f64;
                assert!(
                    (got[i].score - want.score / k).abs() < 1e-9,
                    "{n} {i}: {:?}",
                    got[i]
                );
                assert!(
                    (got[i].info - want.info / k).abs() < 1e-9,
                    "{n} {i}: {:?}",
                    got[i]
                );
            }
        }
    }
}
