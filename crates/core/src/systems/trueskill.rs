//! TrueSkill: Herbrich, Minka and Graepel, "TrueSkill(TM): A Bayesian Skill Rating System"
//! (NIPS 2006, published 2007), with expectation propagation on its factor graph.
//!
//! # The model (the paper's factor graph)
//! Each player has a Gaussian belief `N(mu, sigma^2)` about his skill `s`. Before a contest the
//! belief widens by the skill dynamics, `sigma^2 += tau^2` (`tau` as the implementations call
//! it). In the contest player i performs
//! `p_i ~ N(s_i, beta^2)`; an entry (a player or a team) performs `t = sum_i w_i p_i`, where
//! `w_i` is the partial-play weight of member i (the paper's team performance is the plain
//! sum; the weights are the "partial play" of the TrueSkill implementations: Moserware's
//! "Computing Your Skill" and Heungsub Lee's Python `trueskill`). Entries sorted by place give
//! the differences of adjacent entries `d_k = t_k - t_{k+1}`, and the result says for each
//! `d_k` either `d_k > eps` (entry k placed strictly better: the win factor) or
//! `|d_k| <= eps` (a shared place: the draw factor). The draw margin comes from the draw
//! probability as in the implementations: `eps = Phi^-1((p_draw + 1)/2)
//! sqrt(n_k + n_{k+1}) beta`, where `n_k + n_{k+1}` is the number of players in the two
//! entries (members with any weight).
//!
//! # The update (the paper's approximate message passing)
//! Everything up to the entries' performances is Gaussian and a tree, so each entry's
//! performance has the prior `N(m_j, v_j)` with `m_j = sum w_i mu_i` and
//! `v_j = sum w_i^2 (sigma_i^2 + tau^2 + beta^2)`. The differences form a ladder (the paper's
//! Figure 1), on which expectation propagation runs: for difference k, the cavity of the two
//! entries (their prior times the message from the other neighbouring difference) gives
//! `d_k ~ N(mu_d, c^2)`; the win or draw factor replaces it with the moments of the Gaussian
//! truncated to its region (the paper's functions `v` and `w`, in normalised units
//! `t = mu_d / c`, `a = eps / c`):
//! - win: `v = phi(t - a) / Phi(t - a)`, `w = v (v + t - a)`;
//! - draw: `v = (phi(-a - t) - phi(a - t)) / (Phi(a - t) - Phi(-a - t))`,
//!   `w = v^2 + ((a - t) phi(a - t) + (a + t) phi(a + t)) / (Phi(a - t) - Phi(-a - t))`;
//!
//! the new marginal is `N(mu_d + c v, c^2 (1 - w))`, and the message it sends back is the
//! marginal divided by the cavity, passed on to both entries through `d_k = t_k - t_{k+1}`.
//! The schedule is the paper's (and the implementations'): sweep the ladder forward (k = 0, 1, ...) and backward,
//! repeatedly, until no difference's marginal moves (mean or standard deviation) by more than
//! `tolerance * beta` in a sweep (default 1e-6 beta), or `max_iterations` forward-backward
//! sweeps (default 200) have run. Then each entry's performance has received a Gaussian
//! "likelihood" message `lambda_j` (the product of the messages of its one or two
//! differences), and every member's skill is conditioned on it exactly (the tree part):
//! with `cov = w_i (sigma_i^2 + tau^2)`,
//! `mu_i += cov (tau_l - pi_l m_j) / (1 + pi_l v_j)` and
//! `sigma_i^2 *= 1 - w_i cov pi_l / (1 + pi_l v_j)`, `(pi_l, tau_l)` the natural parameters
//! (precision, precision times mean) of `lambda_j`.
//!
//! Two entries need no iteration: the closed form of the two-team update,
//! `mu_i += +/- w_i sigma_i^2 / c * v`, `sigma_i^2 *= 1 - w_i^2 sigma_i^2 / c^2 * w` with
//! `c^2 = v_0 + v_1` (the signs: + for the better placed entry, - for the other), is used
//! (and the tests check that the ladder gives the same).
//!
//! # Numerics
//! `v` and `w` are computed as the mean and variance of a standard normal truncated to an
//! interval ([`truncated_normal`]), in whichever form does not cancel or overflow:
//! - a one-sided interval `[x, inf)` (the win factor) through the hazard
//!   `H(x) = phi(x) / (1 - Phi(x))`: mean `H`, variance `1 - H (H - x)`; for x >= 4 from
//!   Laplace's continued fraction of the Mills ratio, written so that neither `H - x` nor
//!   the small variance `~1/x^2` is a difference of large numbers (a stable ratio: no NaN,
//!   inf or loss of digits for any finite t, however surprising the result);
//! - a narrow interval (where the density varies by less than a factor e) by 16-point
//!   Gauss-Legendre quadrature of the density relative to its largest value on the interval
//!   (no underflow, no cancellation, exact to rounding; a zero-width draw region, from
//!   `draw_probability = 0`, gives the point);
//! - a wide interval across 0 directly from `Phi` and `phi`;
//! - a wide interval on one side of 0 as the difference of two one-sided tails
//!   `[x1, inf)` minus `[x2, inf)` (the second holding a fraction `rho < 1/e` of the mass), by
//!   the law of total variance, every term from the hazards.
//!
//! Then `w` is kept within `[1e-12, 1 - 1e-12]`, so a factor never sends an infinite or
//! negative precision, and every variance update is written as a ratio that is positive by
//! construction (`1 + pi_l (v_j - w_i cov)` over `1 + pi_l v_j`, the numerator's
//! `v_j - w_i cov` floored at the member's own performance noise `w_i^2 beta^2`). Cavities are
//! products of Gaussians (sums of natural parameters), never divisions, so no message is ever
//! improper. Contests of thousands of entrants (Codeforces rounds, where the Elo-MMR paper
//! saw other TrueSkill implementations break down numerically) stay finite; 20,000 entrants
//! take a few tens of milliseconds (an optimised build).
//!
//! # What the project's inputs map to
//! - Places: entries are sorted by their place range (`lo`, then `hi`); adjacent entries whose
//!   ranges overlap share a place (draw factor), others are strictly ordered (win factor).
//!   Within a shared place the model needs some order for its chain of draw factors; `update`
//!   uses the entries' smallest player id, so the result does not depend on the order of the
//!   entries in the input (the core [`TrueSkill::rate`] keeps the given order among equals).
//! - Partial play: [`TrueSkill::rate`] takes a weight per member (tested against the Python
//!   package). The input formats carry a weight per contest, not per player, and a weight
//!   common to every participant would do next to nothing as partial play (it scales every
//!   entry's performance alike, which leaves their order, and so the likelihood of a strict
//!   result, unchanged). So the contest weight `w` is what it is in the other systems of the
//!   project (Elo-MMR, BAR): a lighter contest is a noisier one, with performances of variance
//!   `beta^2 / w` (and the draw margin scaled alike, so that the draw probability between
//!   equals stays the same); every member plays with partial-play weight 1. A contest of
//!   weight 0 (or not a positive number) is skipped entirely, without the dynamics; members of
//!   weight 0 in [`TrueSkill::rate`] get the dynamics and nothing else (they still count in
//!   the draw margin, as in the Python package), and an entry with no member of positive
//!   weight is left out of the ladder.
//! - Several contests in one round: each is rated from the pre-round states (with `tau^2`
//!   added once); then each player's mean changes are added and his variance ratios
//!   (new variance over the pre-contest variance `sigma^2 + tau^2`) multiplied:
//!   `mu' = mu + sum_c dmu_c`, `sigma'^2 = (sigma^2 + tau^2) prod_c ratio_c`. For one contest
//!   this is the plain update.
//! - `win_probability`: `P(d > eps) + P(|d| <= eps) / 2` for the two sides' performance
//!   difference `d ~ N(sum_a mu - sum_b mu, sum (sigma^2 + tau^2) + (n_a + n_b) beta^2)` (the
//!   next contest's prior, dynamics included), `eps` the draw margin for `n_a + n_b` players:
//!   `(Phi((D - eps)/c) + Phi((D + eps)/c)) / 2`.
//! - Rating: the mean `mu`, uncertainty `sigma`, and the conservative display
//!   `mu - 3 sigma`.
//! - Time decay (`elapse`): `sigma^2 += variance`; TrueSkill's own `tau^2` comes with each
//!   contest, not with the periods.
//!
//! # Large free-for-all contests
//! The margins add up along the ladder: placing first among n entrants says
//! `t_0 - t_{n-1} > (n - 1) eps`. With the default draw probability (eps = 0.74 for two
//! players) a field of 20,000 newcomers ends with the winner near mu = 5,950 and the last
//! near -5,900 (sigma 3.73); with `draw_probability = 0` the same field spans about
//! 55 to -5. That is the model, computed exactly; for large contests without real draws a
//! small draw probability is the faithful setting.
//!
//! Defaults (those of the Python package and of Moserware's `GameInfo`): `mu = 25`,
//! `sigma = 25/3`, `beta = 25/6`, `tau = 25/300`, `draw_probability = 0.10`; the message
//! passing: `tolerance = 1e-6` (of beta), `max_iterations = 200` (a 20,000-entrant contest
//! converges in 4 or 5 sweeps).
//!
//! # Example
//!
//! Two newcomers (25 / 8.333) and a win, with the defaults of the Python `trueskill`
//! package: the winner 29.396 / 7.171, the loser 20.604 / 7.171:
//!
//! ```
//! use rate_batch_core::rater::Rater;
//! use rate_batch_core::systems::trueskill::{TrueSkill, TrueSkillParams};
//!
//! let mut r = Rater::new(TrueSkill::new(TrueSkillParams::default())?);
//! r.rate_game("winner", "loser", 1.0)?;
//! let (w, l) = (r.rating("winner").unwrap(), r.rating("loser").unwrap());
//! assert!((w.mean - 29.396).abs() < 5e-4 && (l.mean - 20.604).abs() < 5e-4);
//! assert!((w.uncertainty.unwrap() - 7.171).abs() < 5e-4);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

use super::base::{
    Elapsed, ParamError, Rating, RatingSystem, check_range, fixed_system, map_indices,
};
use crate::history::{Contest, PlayerId, Round};
use crate::numeric::{normal_cdf, normal_pdf, normal_pdf_over_cdf, normal_quantile};
use serde::{Deserialize, Serialize};
use std::sync::OnceLock;

/// `w` is kept within `[W_MIN, 1 - W_MIN]`.
const W_MIN: f64 = 1e-12;

/// From this x on, the hazard of `[x, inf)` and its variance come from Laplace's continued
/// fraction (below it, from `phi / Phi`, where `1 - H (H - x)` loses about `x^4` ulps: 1e-12
/// relative at most).
const TAIL: f64 = 4.0;

/// Levels of the continued fraction (at x = 4 the truncation error is below 1e-16 relative,
/// and it shrinks as x grows).
const CF_LEVELS: u32 = 40;

/// Intervals over which `-z^2/2` varies by at most this are integrated by quadrature.
const NARROW: f64 = 1.0;

/// The skill's drift a day by default (a variance): TrueSkill Through Time's default
/// `gamma` 0.03 a day on its scale of a newcomer's sigma 6, on TrueSkill's of 25/3.
pub const DRIFT_PER_DAY: f64 = (0.03 * 25.0 / 3.0 / 6.0) * (0.03 * 25.0 / 3.0 / 6.0);

/// Number of Gauss-Legendre nodes.
const GL_N: usize = 16;

/// Rounds of at least this many contests rate them on rayon's threads.
const PARALLEL_CONTESTS: usize = 16;

/// TrueSkill's parameters.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct TrueSkillParams {
    /// A newcomer's mean skill.
    pub mu: f64,
    /// A newcomer's standard deviation.
    pub sigma: f64,
    /// The standard deviation of a performance around the skill.
    pub beta: f64,
    /// The dynamics: the standard deviation added to every participant's skill before a
    /// contest.
    pub tau: f64,
    /// The probability of a draw between two players of equal skill (sets the draw margin).
    pub draw_probability: f64,
    /// Convergence of the message passing: the largest change of a difference's marginal
    /// (mean or standard deviation) in a sweep, in units of beta.
    pub tolerance: f64,
    /// The most forward-backward sweeps of the ladder for one contest.
    pub max_iterations: u32,
    /// The first side's advantage (home, white), in skill points: added to its performance
    /// mean in games played with a first side.
    #[serde(skip_serializing_if = "super::base::is_zero")]
    pub advantage: f64,
    /// The skill's drift with time, a variance per day (TrueSkill Through Time's `gamma`,
    /// squared): added for the days between a player's contests under `--growth time`, up to
    /// a newcomer's sigma; `tau` still comes with each contest.
    pub drift_per_day: f64,
}

impl Default for TrueSkillParams {
    fn default() -> Self {
        Self {
            mu: 25.0,
            sigma: 25.0 / 3.0,
            beta: 25.0 / 6.0,
            tau: 25.0 / 300.0,
            draw_probability: 0.10,
            tolerance: 1e-6,
            max_iterations: 200,
            advantage: 0.0,
            drift_per_day: DRIFT_PER_DAY,
        }
    }
}

/// A player's belief.
#[derive(Clone, Copy, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct TrueSkillPlayer {
    /// The mean skill.
    pub mu: f64,
    /// Its standard deviation.
    pub sigma: f64,
}

/// A member of an entry as [`TrueSkill::rate`] takes it.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Member {
    /// The mean skill before the contest (before the dynamics).
    pub mu: f64,
    /// The standard deviation before the contest (before the dynamics).
    pub sigma: f64,
    /// The partial-play weight (1 for the whole contest; negative or NaN counts as 0).
    pub weight: f64,
}

/// An entry (a player or a team) of a contest as [`TrueSkill::rate`] takes it.
#[derive(Clone, Copy, Debug)]
pub struct Team<'a> {
    /// Its members.
    pub members: &'a [Member],
    /// Best 0-based place covered.
    pub lo: u32,
    /// Worst 0-based place covered (`lo` unless the place is shared).
    pub hi: u32,
    /// Added to the team's performance mean: the first side's advantage (0 otherwise).
    pub offset: f64,
}

/// The TrueSkill system.
#[derive(Clone, Debug)]
pub struct TrueSkill {
    p: TrueSkillParams,
    /// `Phi^-1((p_draw + 1) / 2)`: the draw margin per `sqrt(players) beta`.
    draw_quantile: f64,
}

/// What the result says about one difference of adjacent entries.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Outcome {
    /// The first of the two placed strictly better: `d > eps`.
    Win,
    /// They share a place: `|d| <= eps`.
    Draw,
}

/// A Gaussian in natural parameters: precision and precision times mean.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
struct Natural {
    pi: f64,
    tau: f64,
}

impl Natural {
    fn times(self, o: Natural) -> Natural {
        Natural {
            pi: self.pi + o.pi,
            tau: self.tau + o.tau,
        }
    }
}

impl TrueSkill {
    /// Checks the parameters.
    pub fn new(p: TrueSkillParams) -> Result<Self, ParamError> {
        check_range("mu", p.mu, -1e12, 1e12)?;
        check_range("sigma", p.sigma, 1e-12, 1e12)?;
        check_range("beta", p.beta, 1e-12, 1e12)?;
        check_range("advantage", p.advantage, -1e12, 1e12)?;
        check_range("tau", p.tau, 0.0, 1e12)?;
        check_range("drift_per_day", p.drift_per_day, 0.0, 1e12)?;
        check_range("draw_probability", p.draw_probability, 0.0, 1.0 - 1e-12)?;
        check_range("tolerance", p.tolerance, 1e-15, 1.0)?;
        if p.max_iterations == 0 {
            return Err("parameter `max_iterations` must be at least 1".into());
        }
        let draw_quantile = normal_quantile((p.draw_probability + 1.0) / 2.0);
        Ok(Self { p, draw_quantile })
    }

    /// The draw margin between two entries of `players` players in all.
    pub fn draw_margin(&self, players: usize) -> f64 {
        self.draw_quantile * (players as f64).sqrt() * self.p.beta
    }

    /// Side a's performance lead over side b (the first side's advantage included when a
    /// plays it), its standard deviation and the draw margin; `None` for an empty side.
    fn difference(
        &self,
        players: &[TrueSkillPlayer],
        a: &[PlayerId],
        b: &[PlayerId],
        first_side: bool,
    ) -> Option<(f64, f64, f64)> {
        if a.is_empty() || b.is_empty() {
            return None;
        }
        let tau2 = self.p.tau * self.p.tau;
        let beta2 = self.p.beta * self.p.beta;
        let side = |ids: &[PlayerId]| {
            ids.iter().fold((0.0, 0.0), |(m, v), &id| {
                let s = &players[id as usize];
                (m + s.mu, v + s.sigma * s.sigma + tau2 + beta2)
            })
        };
        let (ma, va) = side(a);
        let (mb, vb) = side(b);
        let shift = if first_side { self.p.advantage } else { 0.0 };
        let eps = self.draw_margin(a.len() + b.len());
        Some((ma + shift - mb, (va + vb).sqrt(), eps))
    }

    /// Rates one contest: the new state of every member, entry by entry and member by member
    /// in the order given. Members' states are taken before the dynamics (this adds
    /// `tau^2`). Entries may come in any order; those sharing a place are chained in the
    /// order given.
    pub fn rate(&self, teams: &[Team<'_>]) -> Vec<TrueSkillPlayer> {
        self.rate_detailed(teams, false).0
    }

    /// [`rate`](Self::rate), also returning the number of sweeps of the ladder (0 for the
    /// closed form); `ladder` forces the message passing for two entries too.
    fn rate_detailed(&self, teams: &[Team<'_>], ladder: bool) -> (Vec<TrueSkillPlayer>, usize) {
        let tau2 = self.p.tau * self.p.tau;
        let beta2 = self.p.beta * self.p.beta;
        let weight = |m: &Member| if m.weight > 0.0 { m.weight } else { 0.0 };
        // Every member with the dynamics applied; that is the answer for whoever the contest
        // does not inform.
        let mut out: Vec<TrueSkillPlayer> = teams
            .iter()
            .flat_map(|t| t.members.iter())
            .map(|m| TrueSkillPlayer {
                mu: m.mu,
                sigma: (m.sigma * m.sigma + tau2).sqrt(),
            })
            .collect();
        let mut start = Vec::with_capacity(teams.len());
        let mut acc = 0;
        for t in teams {
            start.push(acc);
            acc += t.members.len();
        }
        // Each entry's performance prior N(m, v).
        let prior: Vec<(f64, f64)> = teams
            .iter()
            .enumerate()
            .map(|(j, t)| {
                let s = &out[start[j]..start[j] + t.members.len()];
                t.members
                    .iter()
                    .zip(s)
                    .fold((t.offset, 0.0), |(m, v), (mem, st)| {
                        let w = weight(mem);
                        (m + w * st.mu, v + w * w * (st.sigma * st.sigma + beta2))
                    })
            })
            .collect();
        let mut order: Vec<usize> = (0..teams.len())
            .filter(|&j| prior[j].1 > 0.0 && prior[j].1.is_finite() && prior[j].0.is_finite())
            .collect();
        order.sort_by_key(|&j| (teams[j].lo, teams[j].hi));
        let n = order.len();
        if n < 2 {
            return (out, 0);
        }
        let factors: Vec<(Outcome, f64)> = order
            .windows(2)
            .map(|w| {
                let (a, b) = (&teams[w[0]], &teams[w[1]]);
                let outcome = if b.lo <= a.hi {
                    Outcome::Draw
                } else {
                    Outcome::Win
                };
                (outcome, self.draw_margin(a.members.len() + b.members.len()))
            })
            .collect();
        let priors: Vec<(f64, f64)> = order.iter().map(|&j| prior[j]).collect();

        if n == 2 && !ladder {
            // The closed form.
            let (m0, v0) = priors[0];
            let (m1, v1) = priors[1];
            let c = (v0 + v1).sqrt();
            let (outcome, eps) = factors[0];
            let (v, w) = vw(outcome, m0 - m1, c, eps);
            for (k, sign) in [(0, 1.0), (1, -1.0)] {
                let j = order[k];
                for (i, mem) in teams[j].members.iter().enumerate() {
                    let st = &mut out[start[j] + i];
                    let wt = weight(mem);
                    let var = st.sigma * st.sigma;
                    st.mu += sign * wt * var / c * v;
                    let share = (wt * wt * var / (c * c)).min(1.0);
                    st.sigma = (var * (1.0 - share * w).max(1.0 - w)).sqrt();
                }
            }
            return (out, 0);
        }

        let (lambda, sweeps) = self.ladder(&priors, &factors);
        for (k, &j) in order.iter().enumerate() {
            let l = lambda[k];
            if !(l.pi > 0.0 && l.pi.is_finite() && l.tau.is_finite()) {
                continue;
            }
            let (m, v) = priors[k];
            let denom = 1.0 + l.pi * v;
            let gain = (l.tau - l.pi * m) / denom;
            for (i, mem) in teams[j].members.iter().enumerate() {
                let st = &mut out[start[j] + i];
                let wt = weight(mem);
                let var = st.sigma * st.sigma;
                let cov = wt * var;
                let rest = (v - wt * cov).max(wt * wt * beta2);
                st.mu += cov * gain;
                st.sigma = (var * (1.0 + l.pi * rest) / denom).sqrt();
            }
        }
        (out, sweeps)
    }

    /// Expectation propagation on the ladder of differences: the entries' performance priors
    /// `(m, v)` in place order and each adjacent difference's outcome and draw margin. Returns
    /// each entry's likelihood message (the product of its differences' messages) and the
    /// number of forward-backward sweeps.
    fn ladder(&self, priors: &[(f64, f64)], factors: &[(Outcome, f64)]) -> (Vec<Natural>, usize) {
        let n = priors.len();
        let prior: Vec<Natural> = priors
            .iter()
            .map(|&(m, v)| Natural {
                pi: 1.0 / v,
                tau: m / v,
            })
            .collect();
        // up[k]: from difference k to entry k; down[k]: from difference k to entry k + 1.
        let mut up = vec![Natural::default(); n - 1];
        let mut down = vec![Natural::default(); n - 1];
        // The marginal of each difference (mean, sd) after its last update.
        let mut marginal = vec![(f64::NAN, f64::NAN); n - 1];
        let tol = self.p.tolerance * self.p.beta;
        let mut sweeps = 0;
        let mut update = |k: usize, up: &mut [Natural], down: &mut [Natural]| -> f64 {
            let a = if k > 0 {
                prior[k].times(down[k - 1])
            } else {
                prior[k]
            };
            let b = if k + 1 < n - 1 {
                prior[k + 1].times(up[k + 1])
            } else {
                prior[k + 1]
            };
            let (mean_a, var_a) = (a.tau / a.pi, 1.0 / a.pi);
            let (mean_b, var_b) = (b.tau / b.pi, 1.0 / b.pi);
            let mu_d = mean_a - mean_b;
            let var_d = var_a + var_b;
            if !(var_d > 0.0 && var_d.is_finite() && mu_d.is_finite()) {
                return 0.0;
            }
            let c = var_d.sqrt();
            let (outcome, eps) = factors[k];
            let (v, w) = vw(outcome, mu_d, c, eps);
            // The new marginal N(mu_d + c v, var_d (1 - w)) over the cavity N(mu_d, var_d).
            let var_new = var_d * (1.0 - w);
            let pi_t = w / var_new;
            let tau_t = pi_t * mu_d + c * v / var_new;
            let msg_up = Natural {
                pi: pi_t / (1.0 + pi_t * var_b),
                tau: (tau_t + pi_t * mean_b) / (1.0 + pi_t * var_b),
            };
            let msg_down = Natural {
                pi: pi_t / (1.0 + pi_t * var_a),
                tau: (pi_t * mean_a - tau_t) / (1.0 + pi_t * var_a),
            };
            let finite = |m: &Natural| m.pi.is_finite() && m.tau.is_finite() && m.pi >= 0.0;
            if !(finite(&msg_up) && finite(&msg_down)) {
                return 0.0;
            }
            up[k] = msg_up;
            down[k] = msg_down;
            let new = (mu_d + c * v, var_new.sqrt());
            let old = std::mem::replace(&mut marginal[k], new);
            let change = (new.0 - old.0).abs().max((new.1 - old.1).abs());
            if change.is_nan() {
                f64::INFINITY
            } else {
                change
            }
        };
        while sweeps < self.p.max_iterations as usize {
            sweeps += 1;
            let mut delta = 0.0f64;
            for k in 0..n - 1 {
                delta = delta.max(update(k, &mut up, &mut down));
            }
            for k in (0..n.saturating_sub(2)).rev() {
                delta = delta.max(update(k, &mut up, &mut down));
            }
            if delta <= tol {
                break;
            }
        }
        let lambda = (0..n)
            .map(|j| {
                let mut l = Natural::default();
                if j < n - 1 {
                    l = l.times(up[j]);
                }
                if j > 0 {
                    l = l.times(down[j - 1]);
                }
                l
            })
            .collect();
        (lambda, sweeps)
    }

    /// The new states of the participants of one contest, from `players` (pre-round).
    fn contest(
        &self,
        players: &[TrueSkillPlayer],
        contest: &Contest,
    ) -> Vec<(PlayerId, TrueSkillPlayer)> {
        let weight = contest.weight();
        if !(weight > 0.0 && weight.is_finite()) {
            return Vec::new();
        }
        // A contest of weight w: performances of spread beta / sqrt(w).
        let scaled;
        let sys = if weight == 1.0 {
            self
        } else {
            scaled = TrueSkill {
                p: TrueSkillParams {
                    beta: self.p.beta / weight.sqrt(),
                    ..self.p.clone()
                },
                draw_quantile: self.draw_quantile,
            };
            &scaled
        };
        let advantage = if contest.first_side() {
            self.p.advantage
        } else {
            0.0
        };
        let mut entries: Vec<_> = contest
            .entries()
            .enumerate()
            .map(|(i, e)| (e, if i == 0 { advantage } else { 0.0 }))
            .collect();
        entries.sort_by_key(|(e, _)| (e.lo, e.hi, e.players.iter().min().copied()));
        let members: Vec<Member> = entries
            .iter()
            .flat_map(|(e, _)| {
                e.players
                    .iter()
                    .enumerate()
                    .map(move |(i, &id)| (id, e.weight(i)))
            })
            .map(|(id, weight)| {
                let s = &players[id as usize];
                Member {
                    mu: s.mu,
                    sigma: s.sigma,
                    weight,
                }
            })
            .collect();
        let mut teams = Vec::with_capacity(entries.len());
        let mut at = 0;
        for (e, offset) in &entries {
            let len = e.players.len();
            teams.push(Team {
                members: &members[at..at + len],
                lo: e.lo,
                hi: e.hi,
                offset: *offset,
            });
            at += len;
        }
        let new = sys.rate(&teams);
        entries
            .iter()
            .flat_map(|(e, _)| e.players.iter().copied())
            .zip(new)
            .collect()
    }
}

/// The truncation of `d ~ N(mu, c^2)` to the region of `outcome`: the paper's `(v, w)`, the
/// normalised mean shift and variance reduction, `w` within `[W_MIN, 1 - W_MIN]`.
fn vw(outcome: Outcome, mu: f64, c: f64, eps: f64) -> (f64, f64) {
    let (mean, var) = match outcome {
        Outcome::Win => truncated_normal((eps - mu) / c, f64::INFINITY),
        Outcome::Draw => truncated_normal((-eps - mu) / c, (eps - mu) / c),
    };
    let w = (1.0 - var).clamp(W_MIN, 1.0 - W_MIN);
    (mean, w)
}

/// Mean and variance of a standard normal truncated to `[l, u]` (`l <= u`, either may be
/// infinite; `l = u` gives the point).
pub fn truncated_normal(l: f64, u: f64) -> (f64, f64) {
    if l.is_nan() || u.is_nan() {
        return (f64::NAN, f64::NAN);
    }
    if l == f64::NEG_INFINITY && u == f64::INFINITY {
        return (0.0, 1.0);
    }
    if u == f64::INFINITY {
        return upper_tail_moments(l);
    }
    if l == f64::NEG_INFINITY {
        let (m, v) = upper_tail_moments(-u);
        return (-m, v);
    }
    // Mirror so that the interval reaches at least as far right as left.
    if -l > u {
        let (m, v) = truncated_normal(-u, -l);
        return (-m, v);
    }
    // Now u >= |l|. The variation of -z^2/2 over the interval.
    let variation = if l >= 0.0 {
        0.5 * (u - l) * (u + l)
    } else {
        0.5 * u * u
    };
    if variation <= NARROW {
        return quadrature_moments(l, u);
    }
    if l < 0.0 {
        // Across 0 and wide: at least Phi(sqrt 2) - 1/2 = 0.42 of the mass, no cancellation.
        let mass = normal_cdf(u) - normal_cdf(l);
        let (pl, pu) = (normal_pdf(l), normal_pdf(u));
        let mean = (pl - pu) / mass;
        let var = 1.0 + (l * pl - u * pu) / mass - mean * mean;
        return (mean, var.max(0.0));
    }
    // 0 <= l < u, wide: [l, inf) minus [u, inf), the latter with the fraction rho < 1/e of
    // the mass of the former. In the frame y = z - l.
    let t1 = UpperTail::at(l);
    let t2 = UpperTail::at(u);
    let rho = (-0.5 * (u - l) * (u + l)).exp() * t1.hazard / t2.hazard;
    let e1 = t1.excess;
    let e2 = (u - l) + t2.excess;
    let mean_in = (e1 - rho * e2) / (1.0 - rho);
    let gap = e2 - mean_in;
    let var_in = (t1.var - rho * t2.var - rho * (1.0 - rho) * gap * gap) / (1.0 - rho);
    (l + mean_in, var_in.max(0.0))
}

/// The standard normal truncated to `[x, inf)`: its hazard `H = phi(x) / (1 - Phi(x))` (the
/// mean), the excess `H - x` and the variance `1 - H (H - x)`.
#[derive(Clone, Copy, Debug)]
struct UpperTail {
    hazard: f64,
    excess: f64,
    var: f64,
}

impl UpperTail {
    fn at(x: f64) -> Self {
        if x >= TAIL {
            // Laplace: (1 - Phi(x)) / phi(x) = 1/(x + 1/(x + 2/(x + 3/(x + ...)))). With
            // F2 = x + 3/(x + 4/(x + ...)) and F1 = x + 2/F2: H = x + 1/F1, so H - x = 1/F1
            // without cancellation, and 1 - H (H - x) = 1 - x/F1 - 1/F1^2
            // = (F1 - x)/F1 - 1/F1^2 = (2 F1 - F2) / (F1^2 F2), about 1/x^2, without
            // cancellation either (and written so that F1^2 F2 never overflows).
            let mut f = x;
            for k in (2..=CF_LEVELS).rev() {
                f = x + (k + 1) as f64 / f;
            }
            let f2 = f;
            let f1 = x + 2.0 / f2;
            Self {
                hazard: x + 1.0 / f1,
                excess: 1.0 / f1,
                var: (2.0 - f2 / f1) / f1 / f2,
            }
        } else {
            let hazard = normal_pdf_over_cdf(-x);
            let excess = hazard - x;
            Self {
                hazard,
                excess,
                var: (1.0 - hazard * excess).max(0.0),
            }
        }
    }
}

/// The moments of `[x, inf)`; `x = -inf` gives the whole normal.
fn upper_tail_moments(x: f64) -> (f64, f64) {
    if x == f64::NEG_INFINITY {
        return (0.0, 1.0);
    }
    if x == f64::INFINITY {
        return (f64::INFINITY, 0.0);
    }
    let t = UpperTail::at(x);
    (t.hazard, t.var)
}

/// Gauss-Legendre nodes and weights on [-1, 1], computed once by Newton's method on the
/// Legendre polynomial's three-term recurrence.
fn gauss_legendre() -> &'static [(f64, f64); GL_N] {
    static NODES: OnceLock<[(f64, f64); GL_N]> = OnceLock::new();
    NODES.get_or_init(|| {
        let n = GL_N;
        // P_n(x) and P_n'(x).
        let legendre = |x: f64| {
            let (mut p0, mut p1) = (1.0, x);
            for k in 2..=n {
                let kf = k as f64;
                let p2 = ((2.0 * kf - 1.0) * x * p1 - (kf - 1.0) * p0) / kf;
                p0 = p1;
                p1 = p2;
            }
            (p1, n as f64 * (x * p1 - p0) / (x * x - 1.0))
        };
        let mut out = [(0.0, 0.0); GL_N];
        for i in 0..n / 2 {
            let mut x = (std::f64::consts::PI * (i as f64 + 0.75) / (n as f64 + 0.5)).cos();
            for _ in 0..100 {
                let (p, dp) = legendre(x);
                let dx = p / dp;
                x -= dx;
                if dx.abs() <= 1e-16 {
                    break;
                }
            }
            let (_, dp) = legendre(x);
            let w = 2.0 / ((1.0 - x * x) * dp * dp);
            out[i] = (x, w);
            out[n - 1 - i] = (-x, w);
        }
        out
    })
}

/// Mean and variance of the standard normal on a finite `[l, u]` over which its density
/// varies by at most a factor `e^NARROW`: quadrature of the density relative to its value at
/// the point of the interval nearest 0, in the frame of the interval's midpoint.
fn quadrature_moments(l: f64, u: f64) -> (f64, f64) {
    let mid = 0.5 * (l + u);
    let half = 0.5 * (u - l);
    let nodes = gauss_legendre();
    let mut f = [0.0; GL_N];
    let (mut s0, mut s1) = (0.0, 0.0);
    for (k, &(x, w)) in nodes.iter().enumerate() {
        // -(z^2 - z0^2)/2 at z = mid + half x, from the distance a = |z - z0| (kept exact).
        let exponent = if l > 0.0 {
            let a = half * (1.0 + x);
            -0.5 * a * (2.0 * l + a)
        } else if u < 0.0 {
            let a = half * (1.0 - x);
            -0.5 * a * (a - 2.0 * u)
        } else {
            let z = mid + half * x;
            -0.5 * z * z
        };
        f[k] = w * exponent.exp();
        s0 += f[k];
        s1 += f[k] * x;
    }
    let mean_x = s1 / s0;
    let s2: f64 = nodes
        .iter()
        .zip(&f)
        .map(|(&(x, _), fk)| fk * (x - mean_x) * (x - mean_x))
        .sum();
    (mid + half * mean_x, half * half * s2 / s0)
}

impl RatingSystem for TrueSkill {
    type Player = TrueSkillPlayer;
    fixed_system!(
        TrueSkill,
        TrueSkillParams,
        uncertainty: "sigma",
        "the standard deviation of the skill mu (the display rating is mu - 3 sigma)"
    );

    fn new_player(&self) -> TrueSkillPlayer {
        self.seeded(self.p.mu, None, None)
    }

    fn rating(&self, p: &TrueSkillPlayer) -> Rating {
        Rating {
            mean: p.mu,
            uncertainty: Some(p.sigma),
            display: p.mu - 3.0 * p.sigma,
        }
    }

    fn update(&self, round: Round<'_>, players: &mut [TrueSkillPlayer]) {
        let contests: Vec<Contest<'_>> = round.contests().collect();
        let pre: &[TrueSkillPlayer] = players;
        let results = map_indices(contests.len(), PARALLEL_CONTESTS, |i| {
            self.contest(pre, &contests[i])
        });
        if let [one] = &results[..] {
            for &(id, s) in one {
                players[id as usize] = s;
            }
            return;
        }
        // Several contests: mean changes add up, variance ratios multiply.
        let tau2 = self.p.tau * self.p.tau;
        let mut changes: Vec<(PlayerId, f64, f64)> = Vec::new();
        for r in &results {
            for &(id, s) in r {
                let old = &players[id as usize];
                let var0 = old.sigma * old.sigma + tau2;
                changes.push((id, s.mu - old.mu, s.sigma * s.sigma / var0));
            }
        }
        changes.sort_by_key(|c| c.0);
        for same in changes.chunk_by(|a, b| a.0 == b.0) {
            let s = &mut players[same[0].0 as usize];
            let var0 = s.sigma * s.sigma + tau2;
            s.mu += same.iter().map(|c| c.1).sum::<f64>();
            s.sigma = (var0 * same.iter().map(|c| c.2).product::<f64>()).sqrt();
        }
    }

    /// Partial play as the Python package `trueskill` has it: a member's performance counts
    /// times his share in his team's.
    fn partial_play(&self) -> bool {
        true
    }

    /// Between established players (their own deviation left out): a difference of spread
    /// `sqrt(2 (beta^2 + tau^2))`.
    fn advantage_per_elo(&self) -> Option<f64> {
        let spread = (2.0 * (self.p.beta * self.p.beta + self.p.tau * self.p.tau)).sqrt();
        Some(super::base::normal_points_per_elo(spread))
    }

    fn win_probability_sided(
        &self,
        players: &[TrueSkillPlayer],
        a: &[PlayerId],
        b: &[PlayerId],
        first_side: bool,
    ) -> Option<f64> {
        let (d, c, eps) = self.difference(players, a, b, first_side)?;
        Some(0.5 * (normal_cdf((d - eps) / c) + normal_cdf((d + eps) / c)))
    }

    /// TrueSkill's own: a win beyond the draw margin, a draw within it (when the draw
    /// probability is not 0; without a margin, the replay's fitted split).
    fn outcome_probabilities(
        &self,
        players: &[TrueSkillPlayer],
        a: &[PlayerId],
        b: &[PlayerId],
        first_side: bool,
    ) -> Option<[f64; 3]> {
        let (d, c, eps) = self.difference(players, a, b, first_side)?;
        if eps <= 0.0 {
            return None;
        }
        let (win, loss) = (normal_cdf((d - eps) / c), normal_cdf((-d - eps) / c));
        Some([win, (1.0 - win - loss).max(0.0), loss])
    }

    fn seeded(
        &self,
        rating: f64,
        uncertainty: Option<f64>,
        _volatility: Option<f64>,
    ) -> TrueSkillPlayer {
        TrueSkillPlayer {
            mu: rating,
            sigma: uncertainty.unwrap_or(self.p.sigma),
        }
    }

    fn shift(&self, p: &mut TrueSkillPlayer, points: f64) -> bool {
        p.mu += points;
        true
    }

    /// The decay, and under `--growth time` the drift of the days passed (that growth capped
    /// at the newcomers' sigma); TrueSkill's own `tau^2` comes with each contest instead.
    fn elapse(&self, p: &mut TrueSkillPlayer, time: Elapsed) {
        let drift = if time.idle_growth {
            self.p.drift_per_day * time.days
        } else {
            0.0
        };
        let capped = drift.min((self.p.sigma * self.p.sigma - p.sigma * p.sigma).max(0.0));
        p.sigma = (p.sigma * p.sigma + capped + time.variance).max(0.0).sqrt();
    }

    fn rating_period_days(&self) -> Option<f64> {
        Some(super::base::DEFAULT_PERIOD_DAYS)
    }
}

#[cfg(test)]
// The expected values are quoted with all the digits their sources print.
#[allow(clippy::excessive_precision)]
mod tests {
    use super::*;
    use crate::history::{History, HistoryBuilder, SourceInfo, ranks_to_ranges};

    fn ts() -> TrueSkill {
        TrueSkill::new(TrueSkillParams::default()).unwrap()
    }

    fn with(f: impl FnOnce(&mut TrueSkillParams)) -> TrueSkill {
        let mut p = TrueSkillParams::default();
        f(&mut p);
        TrueSkill::new(p).unwrap()
    }

    fn m(mu: f64, sigma: f64) -> Member {
        Member {
            mu,
            sigma,
            weight: 1.0,
        }
    }

    /// Rates entries of members given with their 0-based ranks (equal ranks share a place,
    /// as the Python package's `ranks`); the new (mu, sigma) of every member in order.
    fn rate_ranked(sys: &TrueSkill, groups: &[Vec<Member>], ranks: &[u64]) -> Vec<(f64, f64)> {
        rate_ranked_detailed(sys, groups, ranks, false).0
    }

    fn rate_ranked_detailed(
        sys: &TrueSkill,
        groups: &[Vec<Member>],
        ranks: &[u64],
        ladder: bool,
    ) -> (Vec<(f64, f64)>, usize) {
        let ranges = ranks_to_ranges(&ranks.iter().map(|r| r + 1).collect::<Vec<_>>());
        let teams: Vec<Team> = groups
            .iter()
            .zip(&ranges)
            .map(|(g, &(lo, hi))| Team {
                members: g,
                lo,
                hi,
                offset: 0.0,
            })
            .collect();
        let (out, sweeps) = sys.rate_detailed(&teams, ladder);
        (out.iter().map(|p| (p.mu, p.sigma)).collect(), sweeps)
    }

    fn newcomers(sizes: &[usize]) -> Vec<Vec<Member>> {
        sizes
            .iter()
            .map(|&n| vec![m(25.0, 25.0 / 3.0); n])
            .collect()
    }

    fn singles(states: &[(f64, f64)]) -> Vec<Vec<Member>> {
        states.iter().map(|&(mu, s)| vec![m(mu, s)]).collect()
    }

    #[track_caller]
    fn assert_close(got: &[(f64, f64)], want: &[(f64, f64)], tol: f64) {
        assert_eq!(got.len(), want.len());
        for (g, w) in got.iter().zip(want) {
            assert!(
                (g.0 - w.0).abs() <= tol && (g.1 - w.1).abs() <= tol,
                "got {got:?}\nwant {want:?}"
            );
        }
    }

    /// A history of one contest per list of `(members, lo, hi)`, players named `p{id}` and
    /// created in id order `0..players` first (so that ids do not depend on the entry order).
    fn history(players: usize, contests: &[Vec<(Vec<u32>, u32, u32)>], weight: f64) -> History {
        let mut b = HistoryBuilder::new();
        for i in 0..players {
            b.player(&format!("p{i}"));
        }
        for (t, entries) in contests.iter().enumerate() {
            b.begin_contest(t as i64, weight, None, None);
            for (ids, lo, hi) in entries {
                b.add_entry(ids, *lo, *hi, None);
            }
            b.end_contest().unwrap();
        }
        b.finish(SourceInfo::default())
    }

    /// The states after one round of all the contests of `h`.
    fn after(sys: &TrueSkill, h: &History, states: &[(f64, f64)]) -> Vec<(f64, f64)> {
        let all: Vec<u32> = (0..h.len() as u32).collect();
        let mut players: Vec<TrueSkillPlayer> = states
            .iter()
            .map(|&(mu, sigma)| TrueSkillPlayer { mu, sigma })
            .collect();
        sys.update(Round::new(h, &all), &mut players);
        players.iter().map(|p| (p.mu, p.sigma)).collect()
    }

    // ---- Two players: the numbers of the Python package's documentation --------------------

    #[test]
    fn two_newcomers_win_and_draw() {
        let s = ts();
        // Heungsub Lee's `trueskill` documentation ("1:1 competition game"), defaults mu 25,
        // sigma 25/3, beta 25/6, tau 25/300, draw probability 0.10: the winner
        // Rating(mu=29.396, sigma=7.171), the loser Rating(mu=20.604, sigma=7.171); a draw
        // Rating(mu=25.000, sigma=6.458) for both. Printed to 3 decimals.
        let win = rate_ranked(&s, &newcomers(&[1, 1]), &[0, 1]);
        assert_close(&win, &[(29.396, 7.171), (20.604, 7.171)], 5e-4);
        let draw = rate_ranked(&s, &newcomers(&[1, 1]), &[0, 0]);
        assert_close(&draw, &[(25.000, 6.458), (25.000, 6.458)], 5e-4);
        // The same closed form in 40-digit arithmetic (python3 mpmath, the paper's v and w
        // with eps = sqrt(2) erfinv(0.1) sqrt(2) beta = 0.74046658745214739):
        // 29.395831692991513 / 7.1714758070092207, draw 25 / 6.4575156832450505. (Moserware's
        // tests print 29.39583201999924 / 7.171475587326186 and 6.4575196623173081: their
        // approximate inverse normal moves the 7th digit.)
        assert_close(
            &win,
            &[
                (29.395831692991513, 7.1714758070092207),
                (20.604168307008487, 7.1714758070092207),
            ],
            1e-12,
        );
        assert_close(&draw, &[(25.0, 6.4575156832450505); 2], 1e-12);
        assert!((s.draw_margin(2) - 0.74046658745214739).abs() < 1e-14);
    }

    #[test]
    fn chess_scale_example_of_moserware() {
        // Moserware's TwoPlayerChessTestNotDrawn ("inspired by a real bug"): GameInfo(1200,
        // 1200/3, 200, 1200/300, 0.03); 1301.0007/42.9232 beats 1188.7560/42.5570 and gets
        // 1304.7820836053318/42.843513887848658, the loser 1185.0383099003536/
        // 42.485604606897752. Their test allows 0.085; the exact closed form is 5e-4 away.
        let s = with(|p| {
            *p = TrueSkillParams {
                mu: 1200.0,
                sigma: 400.0,
                beta: 200.0,
                tau: 4.0,
                draw_probability: 0.03,
                ..TrueSkillParams::default()
            }
        });
        let got = rate_ranked(
            &s,
            &singles(&[(1301.0007, 42.9232), (1188.7560, 42.5570)]),
            &[0, 1],
        );
        assert_close(
            &got,
            &[
                (1304.7820836053318, 42.843513887848658),
                (1185.0383099003536, 42.485604606897752),
            ],
            1e-3,
        );
        // The closed form in 40-digit arithmetic (python3 mpmath, eps = sqrt(2) erfinv(0.03)
        // sqrt(2) 200): 1304.7815992431160 / 42.843607480158630 and 1185.0387861039875 /
        // 42.485695834939024. (The Python package gives 1304.78159893 / 42.84360749.)
        assert_close(
            &got,
            &[
                (1304.7815992431160, 42.843607480158630),
                (1185.0387861039875, 42.485695834939024),
            ],
            1e-9,
        );
    }

    // ---- Free-for-all and teams: the Python package's tests and Moserware's ----------------

    /// Ranks and the expected (mu, sigma) of each entrant.
    type Case<'a> = (&'a [u64], &'a [(f64, f64)]);

    #[test]
    fn free_for_all_of_newcomers() {
        let s = ts();
        // sublee/trueskill, trueskilltests.py `individual()` (3 decimals, defaults as above),
        // the same as Moserware's ThreeTeamsOfOneNotDrawn, FourTeamsOfOneNotDrawn,
        // FiveTeamsOfOneNotDrawn, SixteenTeamsOfOneNotDrawn, ThreeTeamsOfOneDrawn and
        // EightTeamsOfOneDrawn.
        let cases: [Case; 6] = [
            (
                &[0, 1, 2],
                &[(31.675, 6.656), (25.000, 6.208), (18.325, 6.656)],
            ),
            (
                &[0, 0, 0],
                &[(25.000, 5.698), (25.000, 5.695), (25.000, 5.698)],
            ),
            (
                &[0, 1, 2, 3],
                &[
                    (33.207, 6.348),
                    (27.401, 5.787),
                    (22.599, 5.787),
                    (16.793, 6.348),
                ],
            ),
            (
                &[0, 1, 2, 3, 4],
                &[
                    (34.363, 6.136),
                    (29.058, 5.536),
                    (25.000, 5.420),
                    (20.942, 5.536),
                    (15.637, 6.136),
                ],
            ),
            (
                &[0; 8],
                &[
                    (25.000, 4.592),
                    (25.000, 4.583),
                    (25.000, 4.576),
                    (25.000, 4.573),
                    (25.000, 4.573),
                    (25.000, 4.576),
                    (25.000, 4.583),
                    (25.000, 4.592),
                ],
            ),
            (
                &[0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15],
                &[
                    (40.539, 5.276),
                    (36.810, 4.711),
                    (34.347, 4.524),
                    (32.336, 4.433),
                    (30.550, 4.380),
                    (28.893, 4.349),
                    (27.310, 4.330),
                    (25.766, 4.322),
                    (24.234, 4.322),
                    (22.690, 4.330),
                    (21.107, 4.349),
                    (19.450, 4.380),
                    (17.664, 4.433),
                    (15.653, 4.524),
                    (13.190, 4.711),
                    (9.461, 5.276),
                ],
            ),
        ];
        for (ranks, want) in cases {
            let (got, sweeps) =
                rate_ranked_detailed(&s, &newcomers(&vec![1; ranks.len()]), ranks, false);
            // The package's `almost` allows one unit in the third decimal.
            assert_close(&got, want, 1e-3 + 1e-9);
            assert!((2..50).contains(&sweeps), "{sweeps}");
        }
        // Moserware's digits for three and five players (from Ralf Herbrich's F#
        // implementation, their comment says), to the ~5e-7 by which their normal functions
        // differ from exact ones (the two-player case above shows the same offset).
        let got = rate_ranked(&s, &newcomers(&[1; 3]), &[0, 1, 2]);
        assert_close(
            &got,
            &[
                (31.675352419172107, 6.6559853776206905),
                (25.000000000003912, 6.2078966412243233),
                (18.324647580823971, 6.6559853776218318),
            ],
            2e-6,
        );
        let got = rate_ranked(&s, &newcomers(&[1; 5]), &[0, 1, 2, 3, 4]);
        assert_close(
            &got,
            &[
                (34.363135705841188, 6.1361528798112692),
                (29.058448805636779, 5.5358352402833413),
                (25.000000000031758, 5.4200805474429847),
                (20.941551194426314, 5.5358352402709672),
                (15.636864294158848, 6.136152879829349),
            ],
            2e-6,
        );
    }

    // Exception to clippy::too_many_lines: one scenario and its published figures, read top
    // to bottom.
    #[allow(clippy::too_many_lines)]
    #[test]
    fn teams_and_upsets() {
        let s = ts();
        // sublee/trueskill, trueskilltests.py `n_vs_n`, `one_vs_n`, `upset` and
        // `multiple_teams` (3 decimals; one unit in the last allowed, as the package's `almost`
        // does; its documentation prints 33.731 / 16.269 for the 1 vs 2, its test 33.730 /
        // 16.270: the exact value is 33.73067). Moserware's tests have the same numbers
        // (OneOnTwoSimpleTest, TwoOnTwoUpsetTest, ThreeOnTwoTests, TwoOnFourOnTwoWinDraw,
        // EightTeamsOfOneUpset, OneOnOneMassiveUpsetDrawTest...).
        let tol = 1e-3 + 1e-9;
        let got = rate_ranked(&s, &newcomers(&[2, 2]), &[0, 1]);
        assert_close(
            &got,
            &[
                (28.108, 7.774),
                (28.108, 7.774),
                (21.892, 7.774),
                (21.892, 7.774),
            ],
            tol,
        );
        let got = rate_ranked(&s, &newcomers(&[2, 2]), &[0, 0]);
        assert_close(&got, &[(25.000, 7.455); 4], tol);
        let got = rate_ranked(&s, &newcomers(&[4, 4]), &[0, 1]);
        let mut want = vec![(27.198, 8.059); 4];
        want.extend([(22.802, 8.059); 4]);
        assert_close(&got, &want, tol);
        let got = rate_ranked(&s, &newcomers(&[1, 2]), &[0, 1]);
        assert_close(
            &got,
            &[(33.731, 7.317), (16.269, 7.317), (16.269, 7.317)],
            tol,
        );
        let got = rate_ranked(&s, &newcomers(&[1, 2]), &[0, 0]);
        assert_close(
            &got,
            &[(31.660, 7.138), (18.340, 7.138), (18.340, 7.138)],
            tol,
        );
        let got = rate_ranked(&s, &newcomers(&[1, 3]), &[0, 1]);
        assert_close(
            &got,
            &[
                (36.337, 7.527),
                (13.663, 7.527),
                (13.663, 7.527),
                (13.663, 7.527),
            ],
            tol,
        );
        let got = rate_ranked(&s, &newcomers(&[1, 3]), &[0, 0]);
        // Compared to 2 decimals there.
        assert_close(
            &got,
            &[
                (34.990, 7.455),
                (15.010, 7.455),
                (15.010, 7.455),
                (15.010, 7.455),
            ],
            1e-2,
        );
        let got = rate_ranked(&s, &newcomers(&[1, 7]), &[0, 1]);
        let mut want = vec![(40.582, 7.917)];
        want.extend([(9.418, 7.917); 7]);
        assert_close(&got, &want, tol);
        // Upsets.
        let got = rate_ranked(&s, &singles(&[(25.0, 25.0 / 3.0), (50.0, 12.5)]), &[0, 0]);
        assert_close(&got, &[(31.662, 7.137), (35.010, 7.910)], tol);
        let two_two = vec![
            vec![m(20.0, 8.0), m(25.0, 6.0)],
            vec![m(35.0, 7.0), m(40.0, 5.0)],
        ];
        let got = rate_ranked(&s, &two_two, &[0, 1]);
        assert_close(
            &got,
            &[
                (29.698, 7.008),
                (30.455, 5.594),
                (27.575, 6.346),
                (36.211, 4.768),
            ],
            tol,
        );
        let three_two = vec![
            vec![m(28.0, 7.0), m(27.0, 6.0), m(26.0, 5.0)],
            vec![m(30.0, 4.0), m(31.0, 3.0)],
        ];
        let got = rate_ranked(&s, &three_two, &[0, 1]);
        assert_close(
            &got,
            &[
                (28.658, 6.770),
                (27.484, 5.856),
                (26.336, 4.917),
                (29.785, 3.958),
                (30.879, 2.983),
            ],
            tol,
        );
        let got = rate_ranked(&s, &three_two, &[1, 0]);
        assert_close(
            &got,
            &[
                (21.840, 6.314),
                (22.474, 5.575),
                (22.857, 4.757),
                (32.012, 3.877),
                (32.132, 2.949),
            ],
            tol,
        );
        let eight: Vec<(f64, f64)> = (0..8)
            .map(|i| (10.0 + 5.0 * i as f64, 8.0 - i as f64))
            .collect();
        let got = rate_ranked(&s, &singles(&eight), &[0, 1, 2, 3, 4, 5, 6, 7]);
        assert_close(
            &got,
            &[
                (35.135, 4.506),
                (32.585, 4.037),
                (31.329, 3.756),
                (30.984, 3.453),
                (31.751, 3.064),
                (34.051, 2.541),
                (38.263, 1.849),
                (44.118, 0.983),
            ],
            tol,
        );
        // Three teams, the last two sharing second place (2 vs 4 vs 2, ranks 0, 1, 1).
        let teams = vec![
            vec![m(40.0, 4.0), m(45.0, 3.0)],
            vec![m(20.0, 7.0), m(19.0, 6.0), m(30.0, 9.0), m(10.0, 4.0)],
            vec![m(50.0, 5.0), m(30.0, 2.0)],
        ];
        let got = rate_ranked(&s, &teams, &[0, 1, 1]);
        assert_close(
            &got,
            &[
                (40.877, 3.840),
                (45.493, 2.934),
                (19.609, 6.396),
                (18.712, 5.625),
                (29.353, 7.673),
                (9.872, 3.891),
                (48.830, 4.590),
                (29.813, 1.976),
            ],
            tol,
        );
    }

    #[test]
    fn partial_play_matches_the_python_package() {
        // Not published numbers: computed with the Python package trueskill 0.4.5 (`rate` with
        // `weights`, `min_delta=1e-12`), whose approximate normal functions differ from exact
        // ones by a few 1e-7 (see the two-player test), hence 1e-5.
        let s = ts();
        let mut teams = newcomers(&[2, 2]);
        teams[0][1].weight = 0.5;
        let got = rate_ranked(&s, &teams, &[0, 1]);
        assert_close(
            &got,
            &[
                (30.674785065660878, 7.494813543662416),
                (27.83739253283044, 8.132133740921446),
                (19.32521493433912, 7.494813543662416),
                (19.32521493433912, 7.494813543662416),
            ],
            1e-5,
        );
        let mut teams = vec![
            vec![m(30.0, 4.0)],
            vec![m(25.0, 6.0), m(20.0, 3.0)],
            vec![m(28.0, 5.0)],
        ];
        teams[0][0].weight = 0.7;
        teams[1][1].weight = 0.3;
        let got = rate_ranked(&s, &teams, &[0, 1, 2]);
        assert_close(
            &got,
            &[
                (33.9758350140191, 3.6724453458522257),
                (20.0919029813942, 4.228327357540749),
                (19.631679739645225, 2.984100422212612),
                (22.53544427673867, 4.024102904607251),
            ],
            1e-5,
        );
        // Weight 0: only the dynamics for that member (he still counts in the draw margin, as
        // in the package): `rate([(r, r), (r,)], weights=[(1, 0), (1,)], min_delta=1e-12)`.
        let mut teams = newcomers(&[2, 1]);
        teams[0][1].weight = 0.0;
        let got = rate_ranked(&s, &teams, &[0, 1]);
        assert_close(
            &got,
            &[
                (29.439102555825176, 7.1663161509519036),
                (25.0, 8.333749989583854),
                (20.560897444174813, 7.1663161509519036),
            ],
            1e-5,
        );
        let tau_only = (25.0f64 / 3.0).hypot(25.0 / 300.0);
        assert_eq!(got[1], (25.0, tau_only));
    }

    // ---- Invariants ---------------------------------------------------------------------

    #[test]
    fn the_ladder_agrees_with_the_closed_form_for_two_entries() {
        let s = ts();
        let cases = [
            (vec![vec![m(25.0, 8.0)], vec![m(30.0, 3.0)]], [0, 1]),
            (vec![vec![m(25.0, 8.0)], vec![m(30.0, 3.0)]], [1, 0]),
            (vec![vec![m(25.0, 8.0)], vec![m(30.0, 3.0)]], [0, 0]),
            (vec![vec![m(10.0, 1.0)], vec![m(40.0, 1.0)]], [0, 1]),
            (vec![vec![m(10.0, 1.0)], vec![m(40.0, 1.0)]], [0, 0]),
            (
                vec![
                    vec![
                        m(20.0, 8.0),
                        Member {
                            weight: 0.4,
                            ..m(25.0, 6.0)
                        },
                    ],
                    vec![
                        m(35.0, 7.0),
                        m(40.0, 5.0),
                        Member {
                            weight: 0.9,
                            ..m(22.0, 2.0)
                        },
                    ],
                ],
                [1, 0],
            ),
        ];
        for (teams, ranks) in cases {
            let (closed, zero) = rate_ranked_detailed(&s, &teams, &ranks, false);
            let (ladder, sweeps) = rate_ranked_detailed(&s, &teams, &ranks, true);
            assert_eq!(zero, 0);
            assert_eq!(sweeps, 2, "one sweep, and one to see nothing move");
            assert_close(&ladder, &closed, 1e-12);
        }
    }

    #[test]
    fn symmetric_players_stay_symmetric() {
        let s = ts();
        // A three-way tie of newcomers: equal means (the chain's ends and middle differ in
        // sigma, as in the published 5.698 / 5.695 / 5.698).
        let got = rate_ranked(&s, &newcomers(&[1, 1, 1]), &[0, 0, 0]);
        for g in &got {
            assert!((g.0 - 25.0).abs() < 1e-12, "{got:?}");
        }
        assert!((got[0].1 - got[2].1).abs() < 1e-12);
        // Mirror image: first and last of an ordered field of newcomers move by the same amount.
        let got = rate_ranked(&s, &newcomers(&[1; 7]), &[0, 1, 2, 3, 4, 5, 6]);
        for k in 0..7 {
            assert!(
                (got[k].0 - 25.0 + got[6 - k].0 - 25.0).abs() < 1e-6,
                "{got:?}"
            );
            assert!((got[k].1 - got[6 - k].1).abs() < 1e-6);
        }
        // Team-mates with the same prior get the same update.
        let got = rate_ranked(&s, &newcomers(&[3, 2, 1]), &[1, 0, 2]);
        assert_eq!(got[0], got[1]);
        assert_eq!(got[1], got[2]);
        assert_eq!(got[3], got[4]);
    }

    #[test]
    fn a_win_never_lowers_a_rating_and_a_loss_never_raises_it() {
        let s = ts();
        let mus = [-50.0, 0.0, 10.0, 25.0, 40.0, 100.0, 1e4];
        let sigmas = [0.01, 1.0, 5.0, 25.0 / 3.0, 50.0];
        for &ma in &mus {
            for &mb in &mus {
                for &sa in &sigmas {
                    for &sb in &sigmas {
                        let got = rate_ranked(&s, &singles(&[(ma, sa), (mb, sb)]), &[0, 1]);
                        assert!(
                            got[0].0 >= ma && got[1].0 <= mb,
                            "{ma} {sa} {mb} {sb}: {got:?}"
                        );
                        assert!(got.iter().all(|g| g.0.is_finite() && g.1 > 0.0));
                    }
                }
            }
        }
        // In a field: the winner never goes down, the last never up.
        let field: Vec<(f64, f64)> = (0..30)
            .map(|i| (((i * 37) % 41) as f64, 1.0 + ((i * 13) % 9) as f64))
            .collect();
        let ranks: Vec<u64> = (0..30).collect();
        let got = rate_ranked(&s, &singles(&field), &ranks);
        assert!(got[0].0 >= field[0].0 && got[29].0 <= field[29].0);
    }

    #[test]
    fn sigma_never_grows_without_dynamics() {
        let s = with(|p| p.tau = 0.0);
        let field: Vec<(f64, f64)> = (0..40)
            .map(|i| (((i * 37) % 41) as f64 - 5.0, 0.5 + ((i * 13) % 11) as f64))
            .collect();
        let ranks: Vec<u64> = (0..40).map(|i| i / 3).collect();
        for (teams, ranks) in [
            (singles(&field), ranks.clone()),
            (singles(&field[..2]), vec![0, 1]),
            (singles(&field[..2]), vec![0, 0]),
            (singles(&field[5..8]), vec![2, 0, 1]),
        ] {
            let got = rate_ranked(&s, &teams, &ranks);
            for (g, t) in got.iter().zip(&teams) {
                assert!(g.1 <= t[0].sigma, "{g:?} vs {:?}", t[0]);
            }
        }
    }

    #[test]
    fn the_order_of_the_entries_in_the_input_does_not_matter() {
        let s = ts();
        let n = 12;
        let states: Vec<(f64, f64)> = (0..n)
            .map(|i| (20.0 + ((i * 7) % 11) as f64, 2.0 + ((i * 5) % 7) as f64))
            .collect();
        // Places with shared ones: players 3 and 8 share place 2..=3, 5, 6 and 10 place 6..=8.
        let places: Vec<(u32, u32)> = vec![
            (0, 0),
            (1, 1),
            (4, 4),
            (2, 3),
            (5, 5),
            (6, 8),
            (6, 8),
            (9, 9),
            (2, 3),
            (11, 11),
            (6, 8),
            (10, 10),
        ];
        let entries = |order: &[usize]| -> Vec<(Vec<u32>, u32, u32)> {
            order
                .iter()
                .map(|&i| (vec![i as u32], places[i].0, places[i].1))
                .collect()
        };
        let forward: Vec<usize> = (0..n).collect();
        let shuffled: Vec<usize> = (0..n).map(|i| (i * 5 + 3) % n).collect();
        let reversed: Vec<usize> = (0..n).rev().collect();
        let a = after(&s, &history(n, &[entries(&forward)], 1.0), &states);
        let b = after(&s, &history(n, &[entries(&shuffled)], 1.0), &states);
        let c = after(&s, &history(n, &[entries(&reversed)], 1.0), &states);
        assert_eq!(a, b);
        assert_eq!(a, c);
        // And the better placed of two equal priors ends higher.
        let eq = after(
            &s,
            &history(
                3,
                &[vec![(vec![2], 0, 0), (vec![1], 1, 1), (vec![0], 2, 2)]],
                1.0,
            ),
            &[(25.0, 5.0), (30.0, 2.0), (25.0, 5.0)],
        );
        assert!(eq[2].0 > eq[0].0);
    }

    #[test]
    fn five_thousand_newcomers_are_ordered_by_place() {
        let s = ts();
        let n = 5000;
        let ranks: Vec<u64> = (0..n as u64).collect();
        let (got, sweeps) = rate_ranked_detailed(&s, &newcomers(&vec![1; n]), &ranks, false);
        assert!(sweeps < s.p.max_iterations as usize, "{sweeps}");
        for w in got.windows(2) {
            assert!(w[0].0 > w[1].0, "{w:?}");
        }
        for g in &got {
            assert!(g.0.is_finite() && g.1.is_finite() && g.1 > 0.0 && g.1 < 25.0 / 3.0);
        }
        // Symmetric about the middle.
        assert!((got[0].0 - 25.0 + got[n - 1].0 - 25.0).abs() < 1e-4);
    }

    #[test]
    fn twenty_thousand_entrants_with_ties_and_varied_priors_are_fast_and_finite() {
        let s = ts();
        let n = 20_000;
        let mut b = HistoryBuilder::new();
        let ids: Vec<u32> = (0..n).map(|i| b.player(&format!("p{i}"))).collect();
        b.begin_contest(0, 1.0, None, None);
        for (i, &id) in ids.iter().enumerate() {
            // Places in an order unrelated to the priors, every 7th pair tied.
            let place = ((i * 7919) % n) as u32;
            let (lo, hi) = match place % 7 {
                0 if place + 1 < n as u32 => (place, place + 1),
                1 => (place - 1, place),
                _ => (place, place),
            };
            b.add_entry(&[id], lo, hi, None);
        }
        b.end_contest().unwrap();
        let h = b.finish(SourceInfo::default());
        let states: Vec<(f64, f64)> = (0..n)
            .map(|i| {
                (
                    ((i * 37) % 60) as f64 - 5.0,
                    0.3 + ((i * 13) % 90) as f64 / 10.0,
                )
            })
            .collect();
        let start = std::time::Instant::now();
        let got = after(&s, &h, &states);
        let elapsed = start.elapsed();
        // Well under a second in an optimised build (a few tens of ms); the unoptimised test
        // build is given more room.
        let limit = if cfg!(debug_assertions) { 20.0 } else { 1.0 };
        assert!(elapsed.as_secs_f64() < limit, "{elapsed:?}");
        for (g, st) in got.iter().zip(&states) {
            assert!(g.0.is_finite() && g.1.is_finite() && g.1 > 0.0, "{g:?}");
            assert!(g.1 <= st.1.hypot(25.0 / 300.0) + 1e-12);
        }
        // The winner (place 0) went up, the last (place n-1) down.
        let c = h.contest(0);
        let first = c.entries().find(|e| e.lo == 0).unwrap().players[0] as usize;
        let last = c.entries().find(|e| e.hi == n as u32 - 1).unwrap().players[0] as usize;
        assert!(got[first].0 > states[first].0 && got[last].0 < states[last].0);
    }

    #[test]
    fn hard_cases_stay_finite() {
        let s = ts();
        // sublee/trueskill's issue #3 (ZeroDivisionError there before 0.1.4; "another
        // TrueSkill implementations cannot calculate this case"): two experts against fifteen
        // certain players, ranks 6 and 5; and twelve certain players against two, ranks 0, 28.
        let t1 = vec![m(42.234, 3.728), m(43.290, 3.842)];
        let t2 = vec![m(16.667, 0.500); 15];
        let got = rate_ranked(&s, &[t1, t2], &[6, 5]);
        assert!(
            got.iter()
                .all(|g| g.0.is_finite() && g.1 > 0.0 && g.1.is_finite()),
            "{got:?}"
        );
        // The expected result (t2 is far stronger): nothing moves the wrong way.
        assert!(got[0].0 <= 42.234 && got[2].0 >= 16.667);
        let mut t1 = vec![m(25.0, 0.5); 4];
        t1.extend([m(33.333, 0.5); 4]);
        t1.extend([m(41.667, 0.5); 4]);
        let t2 = vec![m(42.234, 3.728), m(43.291, 3.842)];
        let got = rate_ranked(&s, &[t1, t2], &[0, 28]);
        assert!(
            got.iter()
                .all(|g| g.0.is_finite() && g.1 > 0.0 && g.1.is_finite()),
            "{got:?}"
        );
        // Issue #4: 105.247/0.439 beats 27.030/0.901.
        let got = rate_ranked(&s, &singles(&[(105.247, 0.439), (27.030, 0.901)]), &[0, 1]);
        assert!(got[0].0 >= 105.247 && got[1].0 <= 27.030);
        // Upsets and draws thousands of sigmas out, in two-entry and ladder form.
        for ladder in [false, true] {
            for ranks in [[0, 1], [1, 0], [0, 0]] {
                let pair = singles(&[(1e4, 0.01), (-1e4, 0.01)]);
                let (got, _) = rate_ranked_detailed(&s, &pair, &ranks, ladder);
                assert!(
                    got.iter()
                        .all(|g| g.0.is_finite() && g.1 > 0.0 && g.1.is_finite()),
                    "{ranks:?}: {got:?}"
                );
                if ranks == [1, 0] {
                    // The upset moves both towards each other.
                    assert!(got[0].0 < 1e4 && got[1].0 > -1e4);
                }
            }
        }
        // A field of near-certain players in an order opposite to their ratings.
        let field: Vec<(f64, f64)> = (0..200).map(|i| (i as f64 * 10.0, 0.05)).collect();
        let ranks: Vec<u64> = (0..200).collect();
        let got = rate_ranked(&s, &singles(&field), &ranks);
        assert!(
            got.iter()
                .all(|g| g.0.is_finite() && g.1 > 0.0 && g.1.is_finite())
        );
        // A zero draw margin (draw probability 0) makes a draw a point constraint.
        let z = with(|p| p.draw_probability = 0.0);
        let got = rate_ranked(&z, &newcomers(&[1, 1, 1]), &[0, 0, 1]);
        assert!(
            got.iter()
                .all(|g| g.0.is_finite() && g.1 > 0.0 && g.1.is_finite())
        );
    }

    // ---- The truncated Gaussian ---------------------------------------------------------

    #[test]
    fn truncated_normal_against_mpmath() {
        // (l, u, mean, variance) of N(0, 1) truncated to [l, u]: python3 mpmath at 100 digits
        // (of the f64 endpoints),
        // mass = ncdf(u) - ncdf(l) (upper tails for l > 0), mean = (npdf(l) - npdf(u))/mass,
        // var = 1 + (l npdf(l) - u npdf(u))/mass - mean^2. Every branch: one-sided on both
        // sides of the switch to the continued fraction at 4, narrow (quadrature), wide across
        // 0, wide on one side (two tails), a point, far out.
        let inf = f64::INFINITY;
        let cases = [
            (-40.0, inf, 0.0, 1.0),
            (-5.0, inf, 1.4867199409049057e-6, 0.99999256639808514),
            (-1.0, inf, 0.28759997093917836, 0.6296862857766054),
            (0.0, inf, 0.79788456080286536, 0.36338022763241866),
            (1.0, inf, 1.5251352761609812, 0.19909766557034879),
            (3.0, inf, 3.2830986549304365, 0.070559186785268117),
            (3.999, inf, 4.2246538262576229, 0.046690699491060829),
            (4.0, inf, 4.2256071444894711, 0.046672838397422631),
            (5.0, inf, 5.1865039671258421, 0.032696434617112225),
            (8.0, inf, 8.1213681122361127, 0.01432488344334091),
            (9.99, inf, 10.08818777714384, 0.0094632667525944312),
            (10.0, inf, 10.098093233962512, 0.0094453778256562612),
            (19.999, inf, 20.048755531910834, 0.002463504359484037),
            (20.0, inf, 20.049753068527851, 0.0024632616150521636),
            (30.0, inf, 30.033259667433677, 0.001103771511890091),
            (100.0, inf, 100.00999800099926, 9.994004994826345e-5),
            (10000.0, inf, 10000.000099999998, 9.99999940000005e-9),
            (-0.3, 0.2, -0.048966998541879793, 0.020659605384467695),
            (3.0, 3.1, 3.0474631086506945, 0.00082919747753116921),
            (50.0, 50.01, 50.004585019396367, 8.2301438695859825e-6),
            (-0.5, 3.0, 0.50373445850494508, 0.47190764231025816),
            (0.5, 4.0, 1.1407611122877958, 0.26752633651959953),
            (10.0, 12.0, 10.098093233499937, 0.0094453769084979136),
            (30.0, 31.0, 30.033259667433622, 0.0011037715118352823),
            (1000.0, 1000.01, 1000.0009995440078, 9.9545387724355418e-7),
            (-1.4, 1.41, 0.002486937474929943, 0.50261057274238678),
            (-0.2, 1.5, 0.51034016643485977, 0.2078257242966579),
            (-7.2, -7.0, -7.0771210670906616, 0.0030190656744556924),
            (2.0, 2.000001, 2.0000004999998334, 8.3333333356610217e-14),
            (1e-3, 2e-3, 0.0014999998750000042, 8.3333330555546217e-8),
            (0.3, 1.5, 0.79887439771098693, 0.10850199246437407),
            (0.3, 1.6, 0.82638507356741089, 0.12442331961433963),
            (19.0, 20.5, 19.052343949197314, 0.0027250762295714753),
            (25.0, 25.04, 25.016718563118352, 0.000126906228897415),
            (25.0, 25.05, 25.019918022954066, 0.00019297128399416075),
        ];
        for (l, u, mean, var) in cases {
            let (m, v) = truncated_normal(l, u);
            assert!(
                (m - mean).abs() <= 1e-13 * mean.abs().max(1.0),
                "[{l}, {u}]: mean {m} vs {mean}"
            );
            assert!(
                (v - var).abs() <= 1e-11 * var,
                "[{l}, {u}]: var {v} vs {var}"
            );
            // The mirror image.
            let (mm, vm) = truncated_normal(-u, -l);
            assert_eq!((mm, vm), (-m, v));
        }
        assert_eq!(truncated_normal(2.0, 2.0), (2.0, 0.0));
        assert_eq!(
            truncated_normal(f64::NEG_INFINITY, f64::INFINITY),
            (0.0, 1.0)
        );
    }

    #[test]
    fn v_and_w_are_finite_and_w_within_bounds_everywhere() {
        for k in -2000..=2000 {
            let t = k as f64 * 0.05 + 0.0123;
            for t in [t, t * 1e3, t * 1e8] {
                for eps in [0.0, 1e-9, 0.1, 0.74, 5.0] {
                    for outcome in [Outcome::Win, Outcome::Draw] {
                        let (v, w) = vw(outcome, t, 1.0, eps);
                        assert!(v.is_finite(), "{outcome:?} t {t} eps {eps}: v {v}");
                        assert!(
                            (W_MIN..=1.0 - W_MIN).contains(&w),
                            "{outcome:?} {t} {eps}: w {w}"
                        );
                    }
                }
            }
        }
        // The win's v is the hazard: v(t) = phi(t - eps) / Phi(t - eps), close to -t far out.
        let (v, w) = vw(Outcome::Win, -1e6, 1.0, 0.0);
        assert!((v - 1e6).abs() < 1e-3 && w == 1.0 - W_MIN);
    }

    #[test]
    fn gauss_legendre_nodes_integrate_polynomials_exactly() {
        let nodes = gauss_legendre();
        for p in 0..(2 * GL_N) {
            let got: f64 = nodes.iter().map(|&(x, w)| w * x.powi(p as i32)).sum();
            let want = if p % 2 == 0 {
                2.0 / (p as f64 + 1.0)
            } else {
                0.0
            };
            assert!((got - want).abs() < 1e-14, "x^{p}: {got} vs {want}");
        }
    }

    // ---- The trait -----------------------------------------------------------------------

    #[test]
    fn update_rates_a_game_and_several_contests_in_a_round() {
        let s = ts();
        // One game through the trait: the two-newcomer numbers.
        let h = history(2, &[vec![(vec![1], 0, 0), (vec![0], 1, 1)]], 1.0);
        let got = after(&s, &h, &[(25.0, 25.0 / 3.0); 2]);
        assert_close(
            &got,
            &[
                (20.604168307008487, 7.1714758070092207),
                (29.395831692991513, 7.1714758070092207),
            ],
            1e-12,
        );
        // Two contests in one round: player 0 wins one and loses the other, each from the
        // pre-round states; mean changes add up, variance ratios multiply.
        let states = [(25.0, 6.0), (28.0, 4.0), (20.0, 7.0)];
        let both = history(
            3,
            &[
                vec![(vec![0], 0, 0), (vec![1], 1, 1)],
                vec![(vec![2], 0, 0), (vec![0], 1, 1)],
            ],
            1.0,
        );
        let z = after(&s, &both, &states);
        let x = rate_ranked(&s, &singles(&[states[0], states[1]]), &[0, 1]);
        let y = rate_ranked(&s, &singles(&[states[2], states[0]]), &[0, 1]);
        let var0 = 36.0 + (25.0f64 / 300.0).powi(2);
        assert!((z[0].0 - (25.0 + (x[0].0 - 25.0) + (y[1].0 - 25.0))).abs() < 1e-12);
        let ratio = x[0].1.powi(2) / var0 * y[1].1.powi(2) / var0;
        assert!((z[0].1 - (var0 * ratio).sqrt()).abs() < 1e-12);
        assert_eq!((z[1], z[2]), (x[1], y[0]));
    }

    #[test]
    fn the_contest_weight_divides_the_performance_variance() {
        let s = ts();
        let states = [(25.0, 6.0), (28.0, 4.0), (20.0, 7.0)];
        let entries = vec![(vec![0, 1], 0, 0), (vec![2], 1, 1)];
        let got = after(
            &s,
            &history(3, std::slice::from_ref(&entries), 0.25),
            &states,
        );
        // The same as a system whose beta is twice as large (1 / sqrt(0.25)).
        let wide = with(|p| p.beta = 2.0 * 25.0 / 6.0);
        let teams = vec![vec![m(25.0, 6.0), m(28.0, 4.0)], vec![m(20.0, 7.0)]];
        let want = rate_ranked(&wide, &teams, &[0, 1]);
        assert_close(&got, &want, 1e-12);
        // Between two newcomers, a lighter contest moves the ratings less: the winner gains
        // 4.396 in a contest of weight 1, about 3.6 in one of weight 1/4.
        let game = vec![(vec![0], 0, 0), (vec![1], 1, 1)];
        let new = [(25.0, 25.0 / 3.0), (25.0, 25.0 / 3.0)];
        let light = after(&s, &history(2, std::slice::from_ref(&game), 0.25), &new);
        let full = after(&s, &history(2, std::slice::from_ref(&game), 1.0), &new);
        assert!((full[0].0 - 29.396).abs() < 1e-3, "{full:?}");
        assert!(
            light[0].0 > 25.0 && light[0].0 < full[0].0 - 0.5,
            "{light:?}"
        );
        assert!(
            light[1].0 < 25.0 && light[1].0 > full[1].0 + 0.5,
            "{light:?}"
        );
        // Weight 0: skipped, not even the dynamics.
        let none = after(&s, &history(3, &[entries], 0.0), &states);
        assert_eq!(none, states.to_vec());
    }

    #[test]
    fn win_probability_counts_a_draw_half() {
        let s = ts();
        let players = [
            TrueSkillPlayer {
                mu: 30.0,
                sigma: 3.0,
            },
            TrueSkillPlayer {
                mu: 25.0,
                sigma: 4.0,
            },
            TrueSkillPlayer {
                mu: 20.0,
                sigma: 3.0,
            },
            TrueSkillPlayer {
                mu: 30.0,
                sigma: 2.0,
            },
            TrueSkillPlayer {
                mu: 30.0,
                sigma: 5.0,
            },
        ];
        // (Phi((D - eps)/c) + Phi((D + eps)/c)) / 2, python3 mpmath: D = 5,
        // c^2 = 9 + 16 + 2 tau^2 + 2 beta^2, eps = 0.740466587452147: 0.74019970503793189.
        let p = s.win_probability(&players, &[0], &[1]).unwrap();
        assert!((p - 0.74019970503793189).abs() < 1e-14, "{p}");
        let q = s.win_probability(&players, &[1], &[0]).unwrap();
        assert!((p + q - 1.0).abs() < 1e-15);
        // Teams: performances add up. Players 2 and 3 (sum 50) against 4 (30): eps for three
        // players, c^2 = 9 + 4 + 25 + 3 tau^2 + 3 beta^2: 0.98202250298544843.
        let p = s.win_probability(&players, &[2, 3], &[4]).unwrap();
        assert!((p - 0.98202250298544843).abs() < 1e-14, "{p}");
        assert_eq!(
            s.win_probability(&players, &[0], &[0, 3]).map(|p| p < 0.5),
            Some(true)
        );
        assert_eq!(s.win_probability(&players, &[], &[0]), None);
        let fresh = [s.new_player(), s.new_player()];
        assert_eq!(s.win_probability(&fresh, &[0], &[1]), Some(0.5));
    }

    #[test]
    fn rating_seeding_elapse_and_parameters() {
        let s = ts();
        let p = s.new_player();
        assert_eq!((p.mu, p.sigma), (25.0, 25.0 / 3.0));
        let r = s.rating(&p);
        assert_eq!(r.mean, 25.0);
        assert_eq!(r.uncertainty, Some(25.0 / 3.0));
        assert!((r.display - 0.0).abs() < 1e-12);
        let seeded = s.seeded(30.0, Some(2.0), Some(0.06));
        assert_eq!((seeded.mu, seeded.sigma), (30.0, 2.0));
        assert_eq!(s.seeded(30.0, None, None).sigma, 25.0 / 3.0);
        let mut q = TrueSkillPlayer {
            mu: 30.0,
            sigma: 3.0,
        };
        // Counted rounds: the decay alone (tau comes with each game).
        s.elapse(&mut q, Elapsed::rounds(5.0).with_variance(16.0));
        assert_eq!((q.mu, q.sigma), (30.0, 5.0));
        // Growth with time: the drift of each day passed, up to the newcomers' sigma, and the
        // decay beyond it; none counted by rounds.
        let time = |days: f64, variance: f64, idle_growth: bool| Elapsed {
            periods: days / 30.0,
            variance,
            days,
            idle_growth,
            fractional: false,
        };
        let mut t = TrueSkillPlayer {
            mu: 30.0,
            sigma: 3.0,
        };
        s.elapse(&mut t, time(100.0, 0.0, false));
        assert_eq!(t.sigma, 3.0, "counted by rounds: tau comes with each game");
        s.elapse(&mut t, time(100.0, 0.0, true));
        assert!((t.sigma - (9.0 + 100.0 * DRIFT_PER_DAY).sqrt()).abs() < 1e-12);
        assert!((DRIFT_PER_DAY.sqrt() - 0.041_666_666_666_666_664).abs() < 1e-15);
        s.elapse(&mut t, time(1e9, 1.0, true));
        assert!((t.sigma - ((25.0f64 / 3.0).powi(2) + 1.0).sqrt()).abs() < 1e-12);
        assert_eq!(s.name(), "trueskill");
        let json = s.params();
        assert_eq!(json["draw_probability"], serde_json::json!(0.1));
        assert_eq!(json["max_iterations"], serde_json::json!(200));
        let back: TrueSkillParams = serde_json::from_value(json).unwrap();
        assert_eq!(back, TrueSkillParams::default());
        assert!(serde_json::from_value::<TrueSkillParams>(serde_json::json!({"k": 1})).is_err());
        let p: TrueSkillParams =
            serde_json::from_value(serde_json::json!({"beta": 200, "tau": 0})).unwrap();
        assert_eq!((p.beta, p.tau, p.mu), (200.0, 0.0, 25.0));
        for bad in [
            TrueSkillParams {
                sigma: 0.0,
                ..TrueSkillParams::default()
            },
            TrueSkillParams {
                beta: -1.0,
                ..TrueSkillParams::default()
            },
            TrueSkillParams {
                tau: f64::NAN,
                ..TrueSkillParams::default()
            },
            TrueSkillParams {
                draw_probability: 1.0,
                ..TrueSkillParams::default()
            },
            TrueSkillParams {
                max_iterations: 0,
                ..TrueSkillParams::default()
            },
        ] {
            assert!(TrueSkill::new(bad).is_err());
        }
    }
}
