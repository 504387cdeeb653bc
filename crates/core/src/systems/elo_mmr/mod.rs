//! Elo-MMR(rho) and Elo-MMchi, Ebtekar and Liu 2021 (`../shared/papers/elo-mmr-2021.txt`).
//!
//! Per round, for every participant (Algorithm 1):
//! 1. **Diffusion** (Algorithm 2): the skill uncertainty grows by `gamma^2` (per contest, scaled
//!    by its weight, plus `drift_per_day` times the days since the player's last round). In the
//!    logistic model this is the pseudodiffusion with transfer rate `rho`: with
//!    `kappa = sigma^2 / (sigma^2 + gamma^2)`, the Gaussian factor keeps `kappa^rho` of its
//!    weight and receives `(1 - kappa^rho)` of all weights, centred at the current rating; then
//!    the Gaussian weight is multiplied by `kappa` and every logistic weight by
//!    `kappa^(1 + rho)` (section 4.2). In the Gaussian model the belief simply widens.
//! 2. **Performance** (section 3.1, [`performance`]): the root of `Q_i`, all from the
//!    post-diffusion priors `P_j ~ (mu_j, sigma_j^2 + beta^2)`.
//! 3. **Update** (section 3.2): the performance joins the posterior as a logistic factor of
//!    scale `beta` (or is multiplied in as a Gaussian); the rating is the root of equation 10,
//!    `w_0 (s - p_0) + sum_k w_k beta_k (pi/sqrt 3) tanh((s - p_k) pi / (beta_k sqrt 12)) = 0`,
//!    and `1/sigma^2 = 1/sigma_prior^2 + 1/beta^2` (equation 8).
//!
//! Parameters default to the paper's reference setting: weight limit 0.2 and sigma limit 80,
//! i.e. `beta^2 = (1 + 1/0.2) 80^2` (beta = 195.96) and `gamma^2 = 0.2 * 80^2` (gamma = 35.78),
//! rho 1, mu 1500, sigma 350. A contest of weight w scales the weight limit to `0.2 w`, which
//! keeps the sigma limit: `beta_w^2 = sl^2 + (beta^2 - sl^2)/w` and
//! `gamma_w^2 = sl^4 w / (beta^2 - sl^2)`, with the sigma limit `sl` recovered from beta and
//! gamma. History compression (section 5.3): beyond `history` logistic factors the oldest is
//! folded into the Gaussian factor (weights add, centres average by weight).
//!
//! Teams (section 3.3): a team performs as the sum of its members, `mu_team = sum mu_i` and
//! `delta_team^2 = |team| beta^2 + sum sigma_i^2`; member i is credited with the performance
//! `P_team - sum_{j != i} mu_j`, of variance `|team| beta^2 + sum_{j != i} sigma_j^2`.
//!
//! A round of several contests (a calendar period) diffuses each player once, by the drift of
//! all its contests together (pseudodiffusions compose), rates each contest from the same
//! priors, and adds one factor per contest.
//!
//! The displayed (conservative) rating is `mu - 2 (sigma - sl)`, the reference
//! implementation's leaderboard convention.
//!
//! # Example
//!
//! Two newcomers, the first wins (worked from the paper with mpmath, 30 digits): Elo-MMR
//! rates the winner 1629.39142698 and the loser 1370.60857302; Elo-MMchi the winner
//! 1655.54250709:
//!
//! ```
//! use rate_batch_core::rater::Rater;
//! use rate_batch_core::systems::elo_mmr::{EloMmr, EloMmrParams, EloMmxParams};
//!
//! let mut r = Rater::new(EloMmr::new(EloMmrParams::default())?);
//! r.rate_game("a", "b", 1.0)?;
//! assert!((r.rating("a").unwrap().mean - 1629.391_426_98).abs() < 1e-6);
//! assert!((r.rating("b").unwrap().mean - 1370.608_573_02).abs() < 1e-6);
//! let mut x = Rater::new(EloMmr::gaussian(EloMmxParams::default())?);
//! x.rate_game("a", "b", 1.0)?;
//! assert!((x.rating("a").unwrap().mean - 1655.542_507_09).abs() < 1e-6);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

mod factors;
pub mod performance;

use super::base::{
    Elapsed, ParamError, Rating, RatingSystem, SystemKind, check_range, map_ahead, pick_mut,
    update_each_ahead,
};
use crate::history::{Contest, PlayerId, Round};
use crate::numeric::normal_cdf;
use crate::numeric::roots::halley_in;
use factors::Factors;
use performance::{Model, Prior, Settings};
use serde::{Deserialize, Serialize};
use std::f64::consts::PI;

/// Rounds of fewer players are updated on the calling thread.
const PARALLEL_FROM: usize = 64;

/// pi / sqrt(3): the logistic distribution's scale per unit standard deviation, inverted.
const PI_SQRT3: f64 = PI / 1.732_050_807_568_877_2;

/// Parameters of Elo-MMR (the logistic model).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct EloMmrParams {
    /// A newcomer's rating.
    pub mu_init: f64,
    /// A newcomer's uncertainty.
    pub sigma_init: f64,
    /// Spread of one performance around the skill, for a contest of weight 1.
    pub beta: f64,
    /// Skill drift per contest (standard deviation), for weight 1.
    pub gamma: f64,
    /// Transfer rate of the pseudodiffusion (0: pure decay; large: Elo-MMR(infinity)).
    pub rho: f64,
    /// Extra drift variance per day since the player's previous round.
    pub drift_per_day: f64,
    /// Ties count as half a win and half a loss (else as a win plus a loss).
    pub split_ties: bool,
    /// Opponents nearest in rating used to estimate a performance (0, the default: all, as
    /// the reference implementation's `mmr`; its `mmr-fast` takes the 100 nearest, in buckets
    /// of rating 2 wide).
    pub subsample: usize,
    /// Logistic factors kept per player before the oldest are folded into the Gaussian one.
    pub history: usize,
    /// Precision of performances and ratings (rating points).
    pub tolerance: f64,
}

impl Default for EloMmrParams {
    fn default() -> Self {
        Self {
            mu_init: 1500.0,
            sigma_init: 350.0,
            beta: (6.0f64 * 80.0 * 80.0).sqrt(),
            gamma: (0.2f64 * 80.0 * 80.0).sqrt(),
            rho: 1.0,
            drift_per_day: 0.0,
            split_ties: false,
            subsample: 0,
            history: 500,
            tolerance: 1e-9,
        }
    }
}

/// Parameters of Elo-MMchi (the Gaussian model): those of Elo-MMR without rho and history.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct EloMmxParams {
    /// A newcomer's rating.
    pub mu_init: f64,
    /// A newcomer's uncertainty.
    pub sigma_init: f64,
    /// Spread of one performance around the skill, for a contest of weight 1.
    pub beta: f64,
    /// Skill drift per contest (standard deviation), for weight 1.
    pub gamma: f64,
    /// Extra drift variance per day since the player's previous round.
    pub drift_per_day: f64,
    /// Ties count as half a win and half a loss (else as a win plus a loss).
    pub split_ties: bool,
    /// Opponents nearest in rating used to estimate a performance (0: all).
    pub subsample: usize,
    /// Precision of performances (rating points).
    pub tolerance: f64,
}

impl Default for EloMmxParams {
    fn default() -> Self {
        let d = EloMmrParams::default();
        Self {
            mu_init: d.mu_init,
            sigma_init: d.sigma_init,
            beta: d.beta,
            gamma: d.gamma,
            drift_per_day: d.drift_per_day,
            split_ties: d.split_ties,
            subsample: d.subsample,
            tolerance: d.tolerance,
        }
    }
}

/// A participant of a round as the update reads him before changing his state: his rating,
/// his uncertainty after the round's diffusion, and the variance diffused.
struct View {
    mu: f64,
    sigma: f64,
    g2: f64,
}

/// The uncertainty after a diffusion by `g2` (none if `g2` is not positive), as
/// [`EloMmr::diffuse`] computes it.
fn diffused_sigma(sigma: f64, g2: f64) -> f64 {
    if g2 <= 0.0 {
        sigma
    } else {
        (sigma * sigma + g2).sqrt()
    }
}

/// A round's participants, each once, in increasing order, and for every contest the slot
/// (position among them) of each of its players, in `players()` order.
fn round_slots(contests: &[Contest<'_>]) -> (Vec<PlayerId>, Vec<Vec<u32>>) {
    if let [c] = contests {
        // A contest names a player once: sorting its players gives both.
        let mut order: Vec<(PlayerId, u32)> = c
            .players()
            .iter()
            .enumerate()
            .map(|(k, &p)| (p, k as u32))
            .collect();
        order.sort_unstable();
        let mut slot = vec![0u32; order.len()];
        for (pos, &(_, k)) in order.iter().enumerate() {
            slot[k as usize] = pos as u32;
        }
        return (order.iter().map(|o| o.0).collect(), vec![slot]);
    }
    let mut ids: Vec<PlayerId> = contests
        .iter()
        .flat_map(|c| c.players().iter().copied())
        .collect();
    ids.sort_unstable();
    ids.dedup();
    let slots = contests
        .iter()
        .map(|c| {
            c.players()
                .iter()
                .map(|p| ids.binary_search(p).expect("a participant") as u32)
                .collect()
        })
        .collect();
    (ids, slots)
}

/// A team's members (by slot), whole members each: each is credited with the team's
/// performance less his teammates' ratings, of variance the team's noise and his
/// teammates' uncertainty.
fn credit_members(
    members: &[u32],
    team_perf: f64,
    views: &[View],
    b2: f64,
    credit: &mut impl FnMut(u32, (f64, f64), bool),
) {
    let size = members.len() as f64;
    let (mu_sum, var_sum): (f64, f64) = members.iter().fold((0.0, 0.0), |(m, v), &k| {
        let st = &views[k as usize];
        (m + st.mu, v + st.sigma * st.sigma)
    });
    for &k in members {
        let st = &views[k as usize];
        let own = (
            team_perf - (mu_sum - st.mu),
            size * b2 + var_sum - st.sigma * st.sigma,
        );
        credit(k, own, true);
    }
}

/// Partial play: the team performs `sum w mu`; member i is credited with
/// `(P - sum_{j != i} w_j mu_j) / w_i`, of variance `(sum_j w_j^2 beta^2 +
/// sum_{j != i} w_j^2 sigma_j^2) / w_i^2`; a member of share 0 with none.
fn credit_shares(
    members: &[u32],
    weights: &[f64],
    team_perf: f64,
    views: &[View],
    b2: f64,
    credit: &mut impl FnMut(u32, (f64, f64), bool),
) {
    let share = |i: usize| weights.get(i).copied().unwrap_or(1.0);
    let (mu_sum, var_sum, noise): (f64, f64, f64) =
        members
            .iter()
            .enumerate()
            .fold((0.0, 0.0, 0.0), |(m, v, b), (i, &k)| {
                let st = &views[k as usize];
                let w = share(i);
                (
                    m + w * st.mu,
                    v + w * w * st.sigma * st.sigma,
                    b + w * w * b2,
                )
            });
    for (i, &k) in members.iter().enumerate() {
        let st = &views[k as usize];
        let w = share(i);
        let own = if w > 0.0 {
            (
                (team_perf - (mu_sum - w * st.mu)) / w,
                (noise + var_sum - w * w * st.sigma * st.sigma) / (w * w),
            )
        } else {
            (f64::NAN, f64::INFINITY)
        };
        credit(k, own, w > 0.0);
    }
}

/// A player's state. (Laid out in the order written, so that the rating and uncertainty,
/// which a round reads first, come first.)
#[derive(Clone, Debug, Default, PartialEq, serde::Serialize, serde::Deserialize)]
#[repr(C)]
pub struct MmrPlayer {
    /// The rating (posterior mode).
    pub mu: f64,
    /// The uncertainty (equation 8).
    pub sigma: f64,
    /// The Gaussian factor: centre and weight.
    p0: f64,
    w0: f64,
    /// Logistic factors.
    factors: Factors,
    /// Time of the last round played.
    last_time: Option<i64>,
    /// The last performance.
    last_perf: f64,
}

impl MmrPlayer {
    /// Logistic factors held (for tests).
    #[cfg(test)]
    pub fn history_len(&self) -> usize {
        self.factors.len()
    }

    /// Total weight `w_0 + sum w_k`, which equals `1 / sigma^2`.
    pub fn total_weight(&self) -> f64 {
        self.w0 + self.factors.weight()
    }
}

/// Elo-MMR or Elo-MMchi.
#[derive(Clone, Debug)]
pub struct EloMmr {
    p: EloMmrParams,
    /// The parameters as given (Elo-MMchi's have no rho and history).
    shown: serde_json::Value,
    model: Model,
    /// The sigma limit recovered from beta and gamma, squared.
    sl2: f64,
}

impl EloMmr {
    /// Elo-MMR(rho), the logistic model.
    pub fn new(p: EloMmrParams) -> Result<Self, ParamError> {
        Self::build(p, Model::Logistic)
    }

    /// Elo-MMchi, the Gaussian model.
    pub fn gaussian(p: EloMmxParams) -> Result<Self, ParamError> {
        let full = EloMmrParams {
            mu_init: p.mu_init,
            sigma_init: p.sigma_init,
            beta: p.beta,
            gamma: p.gamma,
            drift_per_day: p.drift_per_day,
            split_ties: p.split_ties,
            subsample: p.subsample,
            tolerance: p.tolerance,
            ..EloMmrParams::default()
        };
        Self::build(full, Model::Gaussian)
    }

    fn build(p: EloMmrParams, model: Model) -> Result<Self, ParamError> {
        check_range("mu_init", p.mu_init, f64::MIN, f64::MAX)?;
        check_range("sigma_init", p.sigma_init, 1e-6, f64::MAX)?;
        check_range("beta", p.beta, 1e-6, f64::MAX)?;
        check_range("gamma", p.gamma, 0.0, f64::MAX)?;
        check_range("rho", p.rho, 0.0, 1e300)?;
        check_range("drift_per_day", p.drift_per_day, 0.0, f64::MAX)?;
        check_range("tolerance", p.tolerance, 1e-15, 1.0)?;
        if model == Model::Logistic && p.history == 0 {
            return Err("parameter `history` must be at least 1".into());
        }
        let (b2, g2) = (p.beta * p.beta, p.gamma * p.gamma);
        let sl2 = 0.5 * (-g2 + (g2 * g2 + 4.0 * g2 * b2).sqrt());
        let mut shown = serde_json::to_value(&p).unwrap_or_default();
        if let (Model::Gaussian, Some(m)) = (model, shown.as_object_mut()) {
            m.remove("rho");
            m.remove("history");
        }
        Ok(Self {
            p,
            shown,
            model,
            sl2,
        })
    }

    /// Performance variance beta_w^2 and drift gamma_w^2 of a contest of weight w.
    pub fn contest_scales(&self, weight: f64) -> (f64, f64) {
        let excess = (self.p.beta * self.p.beta - self.sl2) / weight;
        let drift = if excess > 0.0 {
            self.sl2 * self.sl2 / excess
        } else {
            0.0
        };
        (self.sl2 + excess, drift)
    }

    /// Each participant's diffusion (the round's `drift` and the days since his last round
    /// before `time`) and his post-diffusion rating and uncertainty, read without changing
    /// his state: the diffusion itself is applied by [`RatingSystem::update`] in the pass
    /// that adds his performance, while his factors are in cache (one pass over the
    /// participants' memory instead of two).
    fn views(&self, states: &[&mut MmrPlayer], drift: &[f64], time: i64) -> Vec<View> {
        let per_day = self.p.drift_per_day;
        map_ahead(states, PARALLEL_FROM, |i, pl| {
            // (Without drift per day, the days are not read: `g2 + 0 * days` is `g2`.)
            let g2 = if per_day == 0.0 {
                drift[i]
            } else {
                let days = pl
                    .last_time
                    .map_or(0.0, |t| (time - t).max(0) as f64 / 86_400.0);
                drift[i] + per_day * days
            };
            View {
                mu: pl.mu,
                sigma: diffused_sigma(pl.sigma, g2),
                g2,
            }
        })
    }

    /// The performances in contest `c` of its players, from their post-diffusion priors
    /// (`views`, by the slots `slot` of the players): `credit(slot, (performance, variance),
    /// counted)` for each, `counted` false for a member of share 0 (credited with none:
    /// `(NaN, infinity)`).
    fn contest_performances(
        &self,
        c: &Contest<'_>,
        slot: &[u32],
        views: &[View],
        mut credit: impl FnMut(u32, (f64, f64), bool),
    ) {
        let (b2, _) = self.contest_scales(c.weight());
        // The slots of each entry's members: consecutive runs of `slot`.
        let mut runs = Vec::with_capacity(c.len());
        let mut shares = Vec::with_capacity(c.len());
        let mut at = 0;
        for e in c.entries() {
            runs.push(&slot[at..at + e.players.len()]);
            shares.push(e.weights);
            at += e.players.len();
        }
        // A member's share of the contest (partial play) weighs his skill and noise.
        let share = |entry: usize, i: usize| shares[entry].get(i).copied().unwrap_or(1.0);
        let priors: Vec<Prior> = runs
            .iter()
            .enumerate()
            .map(|(j, members)| {
                let (mut mu, mut var) = (0.0, 0.0);
                for (i, &k) in members.iter().enumerate() {
                    let st = &views[k as usize];
                    let w = share(j, i);
                    mu += w * st.mu;
                    var += w * w * (st.sigma * st.sigma + b2);
                }
                Prior {
                    mu,
                    delta: var.sqrt(),
                }
            })
            .collect();
        let places: Vec<(u32, u32)> = c.entries().map(|e| (e.lo, e.hi)).collect();
        let results = performance::performances(&priors, &places, &self.settings());
        for (j, (members, &team_perf)) in runs.iter().zip(&results).enumerate() {
            if shares[j].is_empty() {
                credit_members(members, team_perf, views, b2, &mut credit);
            } else {
                credit_shares(members, shares[j], team_perf, views, b2, &mut credit);
            }
        }
    }

    /// Algorithm 2: grows the uncertainty by `g2`.
    fn diffuse(&self, pl: &mut MmrPlayer, g2: f64) {
        if g2 <= 0.0 {
            return;
        }
        let s2 = pl.sigma * pl.sigma;
        let kappa = s2 / (s2 + g2);
        match self.model {
            Model::Gaussian => {
                pl.p0 = pl.mu;
                pl.w0 = 1.0 / (s2 + g2);
                pl.factors.clear();
            }
            Model::Logistic => {
                let transfer = kappa.powf(self.p.rho);
                let w_keep = transfer * pl.w0;
                let w_moved = (1.0 - transfer) * pl.total_weight();
                if w_keep + w_moved > 0.0 {
                    pl.p0 = (w_keep * pl.p0 + w_moved * pl.mu) / (w_keep + w_moved);
                }
                pl.w0 = kappa * (w_keep + w_moved);
                let decay = kappa * transfer;
                pl.factors.ws_mut().iter_mut().for_each(|w| *w *= decay);
            }
        }
        pl.sigma = diffused_sigma(pl.sigma, g2);
    }

    /// Adds performances `(p, beta^2)` and recomputes the rating and uncertainty.
    fn absorb(&self, pl: &mut MmrPlayer, perfs: &[(f64, f64)]) {
        let mut inv = 1.0 / (pl.sigma * pl.sigma);
        for &(p, b2) in perfs {
            inv += 1.0 / b2;
            match self.model {
                Model::Gaussian => {
                    let w = 1.0 / b2;
                    pl.p0 = (pl.w0 * pl.p0 + w * p) / (pl.w0 + w);
                    pl.w0 += w;
                }
                Model::Logistic => {
                    pl.factors.push(p, b2.sqrt(), self.p.mu_init);
                    while pl.factors.len() > self.p.history {
                        let (old_p, old_w) = pl.factors.pop_oldest();
                        pl.p0 = (pl.w0 * pl.p0 + old_w * old_p) / (pl.w0 + old_w);
                        pl.w0 += old_w;
                    }
                }
            }
            pl.last_perf = p;
        }
        pl.sigma = inv.sqrt().recip();
        pl.mu = match self.model {
            Model::Gaussian => pl.p0,
            Model::Logistic => {
                pl.factors.derive(self.p.mu_init);
                self.rating_root(pl)
            }
        };
    }

    /// Equation 10's root: the robust average of the factors.
    fn rating_root(&self, pl: &MmrPlayer) -> f64 {
        let (lo, hi) = pl
            .factors
            .ps()
            .iter()
            .fold((pl.p0, pl.p0), |(lo, hi), &p| (lo.min(p), hi.max(p)));
        let f = |s: f64| {
            let (v, d, d2) = pl.factors.sums(s, self.p.mu_init);
            (pl.w0 * (s - pl.p0) + v, pl.w0 + d, d2)
        };
        // The root lies between the extreme centres (every term has one sign outside them),
        // near the previous rating; Halley's steps (the second derivative costs no
        // exponential more) reach it in about one evaluation fewer than Newton's.
        halley_in(f, lo, hi, pl.mu, self.p.tolerance)
    }

    fn settings(&self) -> Settings {
        Settings {
            model: self.model,
            split_ties: self.p.split_ties,
            subsample: self.p.subsample,
            tolerance: self.p.tolerance,
        }
    }
}

impl RatingSystem for EloMmr {
    type Player = MmrPlayer;
    type Params = serde_json::Value;

    fn uncertainty_meaning(&self) -> Option<(&'static str, &'static str)> {
        Some((
            "sigma",
            "the standard deviation of the skill mu (the display rating is mu - 2 (sigma - 80))",
        ))
    }

    fn kind(&self) -> SystemKind {
        match self.model {
            Model::Logistic => SystemKind::EloMmr,
            Model::Gaussian => SystemKind::EloMmx,
        }
    }

    fn parameters(&self) -> &serde_json::Value {
        &self.shown
    }

    fn new_player(&self) -> MmrPlayer {
        self.seeded(self.p.mu_init, None, None)
    }

    fn seeded(&self, rating: f64, uncertainty: Option<f64>, _: Option<f64>) -> MmrPlayer {
        let sigma = uncertainty.unwrap_or(self.p.sigma_init);
        MmrPlayer {
            mu: rating,
            sigma,
            p0: rating,
            w0: 1.0 / (sigma * sigma),
            factors: Factors::default(),
            last_time: None,
            last_perf: f64::NAN,
        }
    }

    /// The decay, and under `--growth time` the drift `gamma^2` of each period passed beyond
    /// the first (that growth capped at the newcomers' sigma), as one diffusion: time decay
    /// is the pseudodiffusion of a round's drift (section 4), so a year of decay followed by a
    /// round's drift equals one diffusion by their sum (composability).
    fn elapse(&self, p: &mut MmrPlayer, time: Elapsed) {
        let idle = self.p.gamma * self.p.gamma * time.idle_periods();
        let capped = idle.min((self.p.sigma_init * self.p.sigma_init - p.sigma * p.sigma).max(0.0));
        self.diffuse(p, capped + time.variance);
    }

    fn rating_period_days(&self) -> Option<f64> {
        Some(super::base::DEFAULT_PERIOD_DAYS)
    }

    fn rating(&self, p: &MmrPlayer) -> Rating {
        Rating {
            mean: p.mu,
            uncertainty: Some(p.sigma),
            display: p.mu - 2.0 * (p.sigma - self.sl2.sqrt()),
        }
    }

    fn update(&self, round: Round<'_>, players: &mut [MmrPlayer]) {
        let contests: Vec<_> = round.contests().collect();
        let (ids, slots) = round_slots(&contests);
        let mut drift = vec![0.0; ids.len()];
        for (c, slot) in contests.iter().zip(&slots) {
            let (_, g2) = self.contest_scales(c.weight());
            for &k in slot {
                drift[k as usize] += g2;
            }
        }
        let time = contests
            .iter()
            .map(crate::history::Contest::time)
            .max()
            .unwrap_or(0);
        // The participants' states, in place (no state is moved).
        let mut states: Vec<&mut MmrPlayer> = pick_mut(players, &ids);
        let views = self.views(&states, &drift, time);
        // Performances of every contest from the post-diffusion priors.
        // Each player's performances: one per contest played in the round, in contest order
        // (a round of one contest: one each, kept flat).
        let single = contests.len() == 1;
        let mut flat: Vec<(f64, f64)> = vec![(0.0, 0.0); if single { ids.len() } else { 0 }];
        let mut perfs: Vec<Vec<(f64, f64)>> = vec![Vec::new(); if single { 0 } else { ids.len() }];
        for (c, slot) in contests.iter().zip(&slots) {
            self.contest_performances(c, slot, &views, |k, own, counted| {
                if single {
                    flat[k as usize] = own;
                } else if counted {
                    perfs[k as usize].push(own);
                }
            });
        }
        // Each participant diffused, then his performances added.
        update_each_ahead(
            &mut states,
            &views,
            PARALLEL_FROM,
            |pl| pl.factors.prefetch(),
            |i, pl, view| {
                self.diffuse(pl, view.g2);
                pl.last_time = Some(time);
                let ps = match flat.get(i) {
                    // (A member of share 0 learns nothing from the contest.)
                    Some(p) if p.1.is_finite() => std::slice::from_ref(p),
                    Some(_) => &[],
                    None => &perfs[i][..],
                };
                if !ps.is_empty() {
                    self.absorb(pl, ps);
                }
            },
        );
    }

    /// Teams with members' shares (section 3.3's team performance, each member weighted by
    /// his share; see [`RatingSystem::update`] here).
    fn partial_play(&self) -> bool {
        true
    }

    fn win_probability(
        &self,
        players: &[MmrPlayer],
        a: &[PlayerId],
        b: &[PlayerId],
    ) -> Option<f64> {
        let (b2, _) = self.contest_scales(1.0);
        let side = |s: &[PlayerId]| {
            s.iter().fold((0.0, 0.0), |(m, v), &p| {
                let st = &players[p as usize];
                (m + st.mu, v + st.sigma * st.sigma + b2)
            })
        };
        let ((ma, va), (mb, vb)) = (side(a), side(b));
        let sd = (va + vb).sqrt();
        Some(match self.model {
            Model::Gaussian => normal_cdf((ma - mb) / sd),
            Model::Logistic => 1.0 / (1.0 + (-(ma - mb) * PI_SQRT3 / sd).exp()),
        })
    }

    fn performance(&self, p: &MmrPlayer) -> Option<f64> {
        p.last_perf.is_finite().then_some(p.last_perf)
    }

    fn method(&self) -> Option<String> {
        Some(match self.p.subsample {
            0 if self.model == Model::Logistic => format!(
                "exact: every opponent (the shared function tabulated within {:e} rating \
                 points of the exact sums)",
                self.p.tolerance.min(1e-9)
            ),
            0 => "exact: every opponent (loss and win terms tabulated, checked against exact \
                  sums on sampled tie blocks, the grid refined up to 8 times until within 1e-8 rating points)"
                .to_string(),
            n => format!(
                "subsampled: each entry against the {n} nearest distinct prior ratings \
                 (section 5.3)"
            ),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::history::{History, HistoryBuilder, SourceInfo, ranks_to_ranges};
    use rand::{Rng, SeedableRng};
    use rand_chacha::ChaCha8Rng;

    fn mmr() -> EloMmr {
        EloMmr::new(EloMmrParams::default()).unwrap()
    }

    /// Contests given as lists of (player, rank), one round each; players named p0, p1, ...
    fn history(contests: &[Vec<(usize, u64)>]) -> History {
        let mut b = HistoryBuilder::new();
        let max = contests.iter().flatten().map(|c| c.0).max().unwrap_or(0);
        let ids: Vec<PlayerId> = (0..=max).map(|i| b.player(&format!("p{i}"))).collect();
        for (t, c) in contests.iter().enumerate() {
            let ranks: Vec<u64> = c.iter().map(|e| e.1).collect();
            b.begin_contest(t as i64 * 86_400, 1.0, None, None);
            for (&(p, _), (lo, hi)) in c.iter().zip(ranks_to_ranges(&ranks)) {
                b.add_entry(&[ids[p]], lo, hi, None);
            }
            b.end_contest().unwrap();
        }
        b.finish(SourceInfo::default())
    }

    fn run(sys: &EloMmr, h: &History) -> Vec<MmrPlayer> {
        let mut players = vec![sys.new_player(); h.player_count()];
        let order: Vec<u32> = (0..h.len() as u32).collect();
        for i in 0..h.len() {
            sys.update(Round::new(h, &order[i..i + 1]), &mut players);
        }
        players
    }

    #[test]
    fn defaults_are_the_reference_setting() {
        let s = mmr();
        assert!((s.sl2 - 6400.0).abs() < 1e-9, "sigma limit 80");
        let (b2, g2) = s.contest_scales(1.0);
        assert!((b2 - 38_400.0).abs() < 1e-9 && (g2 - 1280.0).abs() < 1e-9);
        // Weight 2 doubles the weight limit: beta^2 = 80^2 (1 + 1/0.4), gamma^2 = 0.4 * 80^2.
        let (b2, g2) = s.contest_scales(2.0);
        assert!((b2 - 22_400.0).abs() < 1e-9 && (g2 - 2560.0).abs() < 1e-9);
    }

    #[test]
    fn two_newcomers_worked_out_from_the_paper() {
        // sigma^2 = 350^2 + 1280 after diffusion; delta^2 = sigma^2 + 38400; the winner's
        // performance is 1500 + (2/s) atanh(1/3) = 1653.8987 with s = pi/(sqrt 3 delta); the
        // rating solves w0 (x - 1500) + w beta (pi/sqrt 3) tanh((x - p) pi/(beta sqrt 12)) = 0
        // with w0 = 1/sigma^2, w = 1/beta^2 (mpmath, 30 digits): 1629.39142698159.
        let h = history(&[vec![(0, 1), (1, 2)]]);
        let ps = run(&mmr(), &h);
        assert!(
            (ps[0].mu - 1_629.391_426_981_591).abs() < 1e-8,
            "{}",
            ps[0].mu
        );
        assert!(
            (ps[1].mu - 1_370.608_573_018_409).abs() < 1e-8,
            "{}",
            ps[1].mu
        );
        assert!((ps[0].sigma - 171.195_444_253_593_8).abs() < 1e-9);
        assert!((ps[0].last_perf - 1_653.898_668_971_969).abs() < 1e-8);
        // Elo-MMchi: the winner's performance z solves phi(z)/Phi(z) = z (z = 0.5060545),
        // p = 1500 + z delta, and the Gaussian update gives 1655.54250709369.
        let ps = run(&EloMmr::gaussian(EloMmxParams::default()).unwrap(), &h);
        assert!(
            (ps[0].mu - 1_655.542_507_093_694).abs() < 1e-8,
            "{}",
            ps[0].mu
        );
        assert!((ps[0].sigma - 171.195_444_253_593_8).abs() < 1e-9);
    }

    /// A player with a varied history of performances.
    fn seasoned(sys: &EloMmr, seed: u64) -> MmrPlayer {
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        let mut pl = sys.new_player();
        let (b2, g2) = sys.contest_scales(1.0);
        for _ in 0..30 {
            sys.diffuse(&mut pl, g2);
            let p = pl.mu + rng.random_range(-400.0..400.0);
            sys.absorb(&mut pl, &[(p, b2)]);
        }
        pl
    }

    #[test]
    fn pseudodiffusion_properties_of_section_4_1() {
        let sys = mmr();
        let pl = seasoned(&sys, 1);
        // Rating preserved; uncertainty grows by gamma^2 (as measured by equation 8).
        let mut a = pl.clone();
        sys.diffuse(&mut a, 1000.0);
        assert!((sys.rating_root(&a) - pl.mu).abs() < 1e-9);
        let var = pl.sigma * pl.sigma + 1000.0;
        assert!((1.0 / a.total_weight() - var).abs() < 1e-9 * var);
        assert!((a.sigma * a.sigma - var).abs() < 1e-9 * var);
        // Composability: 400 then 600 is one diffusion of 1000.
        let mut b = pl.clone();
        sys.diffuse(&mut b, 400.0);
        sys.diffuse(&mut b, 600.0);
        assert!((b.p0 - a.p0).abs() < 1e-9 && (b.w0 - a.w0).abs() < 1e-12 * a.w0);
        for (x, y) in a.factors.ws().iter().zip(b.factors.ws()) {
            assert!((x - y).abs() < 1e-12 * x);
        }
        // Zero diffusion changes nothing.
        let mut c = pl.clone();
        sys.diffuse(&mut c, 0.0);
        assert_eq!(c, pl);
        // Zero uncertainty: with a tiny sigma, the prior becomes N(mu, gamma^2) and the history
        // is erased (its weights vanish).
        let mut d = pl.clone();
        let scale = (pl.sigma / 1e-5).powi(2);
        d.sigma = 1e-5;
        d.w0 *= scale;
        d.factors.ws_mut().iter_mut().for_each(|w| *w *= scale);
        sys.diffuse(&mut d, 1000.0);
        assert!(
            d.factors.ws().iter().all(|&w| w < 1e-12 * d.w0),
            "{:?} {}",
            d.factors,
            d.w0
        );
        assert!((d.p0 - pl.mu).abs() < 1e-6 && (1.0 / d.w0 - 1000.0).abs() < 1e-3);
    }

    #[test]
    fn robust_response_bounds_of_theorem_5_7() {
        let sys = mmr();
        for seed in 0..5 {
            let mut pl = seasoned(&sys, seed);
            let (b2, g2) = sys.contest_scales(1.0);
            sys.diffuse(&mut pl, g2);
            let beta = b2.sqrt();
            let wk: f64 = pl.factors.weight();
            let lower = PI / (beta * 3f64.sqrt()) / (pl.w0 + PI * PI / 6.0 * wk);
            let upper = PI / (beta * 3f64.sqrt()) / pl.w0;
            for extreme in [1e7, -1e7] {
                let mut q = pl.clone();
                sys.absorb(&mut q, &[(pl.mu + extreme, b2)]);
                let change = (q.mu - pl.mu).abs();
                assert!(
                    change >= lower * (1.0 - 1e-9) && change <= upper * (1.0 + 1e-9),
                    "{lower} <= {change} <= {upper}"
                );
            }
        }
    }

    #[test]
    fn a_better_rank_never_gives_a_lower_rating_theorem_5_5() {
        // Random histories among 12 players; in the last contest, player 0 is moved up one
        // place at a time (the others keep their order): his rating only rises.
        for seed in 0..6u64 {
            let mut rng = ChaCha8Rng::seed_from_u64(seed);
            let mut contests: Vec<Vec<(usize, u64)>> = (0..8)
                .map(|_| {
                    let mut order: Vec<usize> = (0..12).collect();
                    for i in (1..12).rev() {
                        order.swap(i, rng.random_range(0..=i));
                    }
                    order
                        .iter()
                        .enumerate()
                        .map(|(r, &p)| (p, r as u64 / 2 + 1))
                        .collect()
                })
                .collect();
            let others: Vec<usize> = (1..12).collect();
            let mut previous = f64::NEG_INFINITY;
            for place in (0..12).rev() {
                let mut last: Vec<(usize, u64)> = others.iter().map(|&p| (p, 0)).collect();
                last.insert(place, (0, 0));
                for (r, e) in last.iter_mut().enumerate() {
                    e.1 = r as u64 + 1;
                }
                contests.push(last);
                for sys in [mmr(), EloMmr::gaussian(EloMmxParams::default()).unwrap()] {
                    let ps = run(&sys, &history(&contests));
                    if sys.model == Model::Logistic {
                        assert!(
                            ps[0].mu > previous,
                            "seed {seed}, place {place}: {} <= {previous}",
                            ps[0].mu
                        );
                        previous = ps[0].mu;
                    }
                }
                contests.pop();
            }
        }
    }

    #[test]
    fn team_members_are_credited_the_team_performance_less_their_mates() {
        let mut b = HistoryBuilder::new();
        let ids: Vec<u32> = ["a", "b", "c", "d"].iter().map(|n| b.player(n)).collect();
        b.begin_contest(0, 1.0, None, None);
        b.add_entry(&ids[0..2], 0, 0, None);
        b.add_entry(&ids[2..4], 1, 1, None);
        b.end_contest().unwrap();
        let h = b.finish(SourceInfo::default());
        let sys = mmr();
        let ps = run(&sys, &h);
        // Symmetric teams: mates equal, the two teams mirror each other around 1500.
        assert_eq!(ps[0].mu, ps[1].mu);
        assert!((ps[0].mu + ps[2].mu - 3000.0).abs() < 1e-9);
        // The team's performance from mu 3000 and delta^2 = 2 beta^2 + 2 sigma^2; a member's is
        // that minus the mate's 1500.
        let s2 = 350.0f64 * 350.0 + 1280.0;
        let delta = (2.0 * 38_400.0 + 2.0 * s2).sqrt();
        let s = PI / (3f64.sqrt() * delta);
        let team = 3000.0 + 2.0 / s * (1.0f64 / 3.0).atanh();
        assert!((ps[0].last_perf - (team - 1500.0)).abs() < 1e-8);
        // ... with variance 2 beta^2 + sigma^2 for the member's factor.
        assert!((ps[0].sigma - (1.0 / s2 + 1.0 / (2.0 * 38_400.0 + s2)).powf(-0.5)).abs() < 1e-9);
    }

    #[test]
    fn history_is_compressed_beyond_the_bound_keeping_the_total_weight() {
        let sys = EloMmr::new(EloMmrParams {
            history: 5,
            ..EloMmrParams::default()
        })
        .unwrap();
        let pl = seasoned(&sys, 4);
        assert_eq!(pl.history_len(), 5);
        assert!((1.0 / pl.total_weight() - pl.sigma * pl.sigma).abs() < 1e-9 * pl.sigma * pl.sigma);
    }

    #[test]
    fn a_state_read_back_mid_ring_rates_on_bit_for_bit() {
        // Seven factors kept: after 30 rounds the ring has dropped a prefix it has not yet cut
        // off. A state written then is the four columns of the factors held, exactly as the
        // former layout (plain vectors, oldest first) wrote them; read back (the product
        // column derived anew), the player rates on to the same bits.
        let sys = EloMmr::new(EloMmrParams {
            history: 7,
            ..EloMmrParams::default()
        })
        .unwrap();
        let mut pl = seasoned(&sys, 9);
        assert!(
            pl.factors.holds_a_dropped_prefix(),
            "the ring holds a dropped prefix"
        );
        let held = &pl.factors;
        // The former layout's bytes, by hand: postcard writes each column as its length (a
        // varint; 7 fits one byte) and its values (little-endian f64), p, a, mb, w in turn.
        let mut former = Vec::new();
        for kept in held.wire_columns() {
            former.push(kept.len() as u8);
            for v in kept {
                former.extend_from_slice(&v.to_le_bytes());
            }
        }
        assert_eq!(postcard::to_stdvec(held).unwrap(), former);
        let bytes = postcard::to_stdvec(&pl).unwrap();
        let mut back: MmrPlayer = postcard::from_bytes(&bytes).unwrap();
        assert_eq!(back, pl);
        assert!(!back.factors.products_usable(), "derived, not stored");
        let mut rng = ChaCha8Rng::seed_from_u64(3);
        let (b2, g2) = sys.contest_scales(1.0);
        for _ in 0..12 {
            let p = pl.mu + rng.random_range(-300.0..300.0);
            for q in [&mut pl, &mut back] {
                sys.diffuse(q, g2);
                sys.absorb(q, &[(p, b2)]);
            }
            assert_eq!(back.mu.to_bits(), pl.mu.to_bits());
            assert_eq!(back.sigma.to_bits(), pl.sigma.to_bits());
        }
        assert_eq!(pl.history_len(), 7);
    }

    #[test]
    fn the_product_form_gives_the_exponential_forms_sums() {
        // Factors of one scale take the product form; far from the centre (beyond e^600) or
        // with mixed scales they take an exponential each. Both give the same sums.
        let sys = mmr();
        let pl = seasoned(&sys, 5);
        let mut plain = pl.factors.clone();
        plain.forget_products();
        assert!(pl.factors.shared_a().is_some() && pl.factors.products_usable());
        for s in [900.0, 1500.0, 1710.5, 2600.0] {
            let (v, d, d2) = pl.factors.sums(s, 1500.0);
            let (pv, pd, pd2) = plain.sums(s, 1500.0);
            assert!(
                (v - pv).abs() <= 1e-12 * pv.abs().max(1e-9),
                "{s}: {v} vs {pv}"
            );
            assert!((d - pd).abs() <= 1e-12 * pd.abs(), "{s}: {d} vs {pd}");
            assert!(
                (d2 - pd2).abs() <= 1e-9 * pd2.abs().max(1e-12),
                "{s}: {d2} vs {pd2}"
            );
        }
        let mut far = Factors::default();
        far.push(1e6, 200.0, 1500.0);
        far.push(1500.0, 200.0, 1500.0);
        assert!(
            !far.products_usable(),
            "a factor beyond the product form's range"
        );
        let (v, _, _) = far.sums(1500.0, 1500.0);
        let w = 1.0 / (200.0f64 * 200.0);
        assert!((v + w * PI_SQRT3 * 200.0).abs() < 1e-12, "{v}");
        far.pop_oldest();
        assert!(far.products_usable(), "back in range once it is dropped");
    }

    /// Time away under `--growth time`: the diffusion of `gamma^2` for each period beyond the
    /// round's own (here 3.5 periods: 2.5 gamma^2), up to the newcomers' sigma; nothing
    /// counted by rounds.
    #[test]
    fn time_away_diffuses_by_gamma_per_period() {
        let s = EloMmr::new(EloMmrParams::default()).unwrap();
        let mut p = s.new_player();
        p.sigma = 80.0;
        let g2 = EloMmrParams::default().gamma.powi(2);
        let mut away = p.clone();
        s.elapse(
            &mut away,
            Elapsed {
                periods: 3.5,
                variance: 0.0,
                days: 105.0,
                idle_growth: true,
                fractional: false,
            },
        );
        assert!(
            (away.sigma - (6400.0 + 2.5 * g2).sqrt()).abs() < 1e-9,
            "{}",
            away.sigma
        );
        let mut counted = p.clone();
        s.elapse(&mut counted, Elapsed::rounds(3.5));
        assert_eq!(counted.sigma, 80.0);
        let mut century = p.clone();
        s.elapse(
            &mut century,
            Elapsed {
                periods: 1217.0,
                variance: 0.0,
                days: 36_500.0,
                idle_growth: true,
                fractional: false,
            },
        );
        assert!((century.sigma - 350.0).abs() < 1e-9, "{}", century.sigma);
    }
}
