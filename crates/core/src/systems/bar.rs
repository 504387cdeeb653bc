//! BAR, Bayesian Approximation Ranking: Weng and Lin, "A Bayesian Approximation Method for
//! Online Ranking" (JMLR 12, 2011), the Bradley-Terry model with full pairing (their
//! Algorithm 1), as the Elo-MMR paper (section 6.2 and footnote 4) uses it as a baseline.
//!
//! Each player has `mu` and `sigma^2`. In a contest, for every pair (i, q):
//! - `c_iq = sqrt(sigma_i^2 + sigma_q^2 + 2 beta^2)` (`beta^2` divided by the contest weight),
//! - `p_iq = exp(mu_i/c_iq) / (exp(mu_i/c_iq) + exp(mu_q/c_iq)) = 1 / (1 + exp(-(mu_i - mu_q)/c_iq))`,
//! - `s = 1, 1/2, 0` when i placed better than, tied with, worse than q,
//! - `Omega_i = sum_q sigma_i^2/c_iq (s - p_iq)`,
//! - `Delta_i = sum_q gamma_q (sigma_i^2/c_iq^2) p_iq p_qi` with `gamma_q = sigma_i/c_iq`,
//! - `mu_i += Omega_i`, `sigma_i^2 *= max(1 - Delta_i, kappa)`, `kappa = 1e-4`.
//!
//! That is the update with `normalise = false` (sums over q != i). By default (`normalise =
//! true`) the update is the one of the Elo-MMR reference implementation
//! (`multi-skill/src/systems/bar.rs` of EbTech/Elo-MMR), which "normalises the collective weight
//! of the batched updates to equal that of one maximally informative 2-player game":
//! - the `mu` step is the mean of the pairwise steps over all N entries, the self-draw
//!   included (its term `s - p = 1/2 - 1/2` is zero): `mu_i += Omega_i / N`;
//! - the variance factor is that of one game against an equally rated opponent (`p = 1/2`)
//!   whose skill is certain (`sigma_q = 0`): `Delta_i = sigma_i^2 / (4 (sigma_i^2 + 2 beta^2))`,
//!   whatever the field. The reference takes `gamma = 1` there (Weng and Lin's
//!   `gamma_q = sigma_i/c_iq` would shrink it further by `sigma_i/c`); so does this module.
//!
//! The reference also computes its win probability as the logistic of unit variance,
//! `1 / (1 + exp(-pi/sqrt(3) (mu_i - mu_q)/c_iq))`, while keeping `1/c_iq` in the step; Weng
//! and Lin's `p_iq` has no `pi/sqrt(3)`. This module follows Weng and Lin unless
//! `elo_mmr_logistic = true`, which reproduces the reference.
//!
//! Before a round every participant's variance grows by `sig_drift^2` (the reference's
//! `add_noise_and_collapse`). The defaults `beta = 25`, `sig_drift = 63` are those of the
//! reference's Codeforces experiment (`experiments/codeforces/bar-rnk.json`, tuned there for
//! the rank metrics, with the reference's win probability); the reference's code default is
//! `beta = 400 (pi/sqrt 3) / ln 10 = 315.1`, `sig_drift = 35`. New players: 1500 / 350.
//!
//! Rounds of several contests: each contest's change from the pre-round (drifted) states; the
//! `mu` changes are summed and the variance factors multiplied (then bounded below by
//! `kappa`), which for one contest is the update above. Teams: an entry plays with its
//! members' mean `mu` and root-mean-square `sigma`, and every member receives the entry's `mu`
//! change and variance factor (Weng and Lin's own team rule, with sums and shares, is not used).
//!
//! **Large fields.** The normalised update needs, for every entry i, `sum_q (s_iq - p_iq) /
//! c_iq`: O(n^2) pair by pair, as the published update (`normalise = false`) and contests
//! under 1,024 entries still are (and every contest with `exact = true`). `c_iq` depends on
//! both variances, so no single function of the field gives the sum; but as a function of
//! `lambda = ln(sigma_i^2 + b_min)` (`b_q = sigma_q^2 + 2 beta^2`, `b_min` the smallest) it is
//! analytic in the strip `|Im lambda| < pi`, and it is interpolated at Chebyshev points of
//! lambda over the field's range. At each point the variance is fixed, so the sum is a shared
//! function of `mu_i`: the `1/c` of the entries placed worse and tied come from sums in place
//! order, and `sum_q p_iq / c_iq` from the tabulated logistic sums of `numeric::shared`
//! (each within 1e-10 of itself). The degree comes from the Bernstein-ellipse bound
//! (`numeric::chebyshev`) on the largest ellipse in `|Im lambda| <= pi/2`: there, with `c^2
//! = e^lambda + d_q` (`d_q >= 0`), `|1/c| <= 2^(1/4) / sqrt(e^(Re lambda) + d_q)`, `c` lies
//! within `pi/4` of the real axis, so the logistic's argument does too and `|p| <= 2.07`,
//! `|s - p| <= 3.07`; the degree makes the interpolation error at most 1e-12 of the largest
//! sum of `1/c`. The error of the sum is then at most `Lambda (1e-10 + rounding) + 1e-12`
//! of that sum, `Lambda` the Lebesgue constant (under 4 for the degrees used), and the
//! change of `mu` is `sigma_i^2 / N` times it. The cost is O(n) per point, a few dozen points
//! a contest; a field whose degree would cost more than its pairs sums the pairs.
//!
//! # Example
//!
//! Weng and Lin's Algorithm 1 (not normalised, no drift, beta 25): 1700 / 300 and 1500 / 200
//! draw; by hand 1666.559 / 279.553 and 1514.863 / 196.060:
//!
//! ```
//! use rate_batch_core::rater::Rater;
//! use rate_batch_core::systems::bar::{Bar, BarParams};
//!
//! let p = BarParams { normalise: false, sig_drift: 0.0, ..BarParams::default() };
//! let mut r = Rater::new(Bar::new(p)?);
//! r.seed("x", 1700.0, Some(300.0), None);
//! r.seed("y", 1500.0, Some(200.0), None);
//! r.rate_game("x", "y", 0.5)?;
//! let x = r.rating("x").unwrap();
//! assert!((x.mean - 1666.559).abs() < 5e-4 && (x.uncertainty.unwrap() - 279.553).abs() < 5e-4);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

use super::allpairs::{self, AllPairs, Field, MuSigma, side_belief, split_sums};
use super::base::{Elapsed, ParamError, Rating, RatingSystem, check_range, fixed_system};
use crate::history::{PlayerId, Round};
use crate::numeric::{chebyshev, exp_vectorisable, shared};
use rayon::prelude::*;
use serde::{Deserialize, Serialize};
use std::f64::consts::FRAC_PI_2;

/// Fields of at least this many entries may take the tabulated sums.
const TABULATE_FROM: usize = 1024;
/// The highest degree of the interpolation in the variance.
const MAX_DEGREE: usize = 64;
/// The interpolation's part of the bound, relative to the largest sum of `1/c`.
const INTERPOLATION: f64 = 1e-12;
/// A node of the interpolation costs about as much as this many entries' pairs.
const NODE_COST: usize = 64;

/// `pi / sqrt(3)`: the logistic of this slope has unit variance.
pub const UNIT_LOGISTIC: f64 = std::f64::consts::PI / 1.732_050_807_568_877_2;

/// BAR's parameters.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct BarParams {
    /// beta: the spread of a performance around the skill (`2 beta^2` enters every `c_iq^2`).
    pub beta: f64,
    /// Standard deviation added to each participant's skill before a round.
    pub sig_drift: f64,
    /// kappa: the smallest factor by which one round may shrink a variance.
    pub kappa: f64,
    /// A new player's mean.
    pub mu_init: f64,
    /// A new player's standard deviation.
    pub sigma_init: f64,
    /// The Elo-MMR normalisation (one maximally informative game); false for Weng and Lin's
    /// Algorithm 1 as published.
    pub normalise: bool,
    /// The reference implementation's win probability, with `pi/sqrt(3)` in the exponent.
    pub elo_mmr_logistic: bool,
    /// The normalised update's sums over opponents pair by pair, O(n^2), rather than through
    /// tabulated functions of the field (see the module documentation).
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub exact: bool,
}

impl Default for BarParams {
    fn default() -> Self {
        Self {
            beta: 25.0,
            sig_drift: 63.0,
            kappa: 1e-4,
            mu_init: 1500.0,
            sigma_init: 350.0,
            normalise: true,
            elo_mmr_logistic: false,
            exact: false,
        }
    }
}

/// The BAR system.
#[derive(Clone, Debug)]
pub struct Bar {
    p: BarParams,
    /// The slope of the win probability: 1, or `pi/sqrt(3)` with `elo_mmr_logistic`.
    slope: f64,
}

impl Bar {
    /// Checks the parameters.
    pub fn new(p: BarParams) -> Result<Self, ParamError> {
        check_range("beta", p.beta, f64::MIN_POSITIVE, f64::MAX)?;
        check_range("sig_drift", p.sig_drift, 0.0, f64::MAX)?;
        check_range("kappa", p.kappa, f64::MIN_POSITIVE, 1.0)?;
        check_range("mu_init", p.mu_init, f64::MIN, f64::MAX)?;
        check_range("sigma_init", p.sigma_init, f64::MIN_POSITIVE, f64::MAX)?;
        let slope = if p.elo_mmr_logistic {
            UNIT_LOGISTIC
        } else {
            1.0
        };
        Ok(Self { p, slope })
    }

    /// `p_iq` from the difference of means and `c_iq`.
    #[inline]
    fn p(&self, diff: f64, c: f64) -> f64 {
        1.0 / (1.0 + (-self.slope * diff / c).exp())
    }

    /// The normalised update's sums over opponents, `sum_q (s_iq - p_iq) / c_iq` for every
    /// position i, through tabulated functions (see the module documentation) rather than
    /// pair by pair: `None` with `exact`, below [`TABULATE_FROM`] entries, when the degree the
    /// bound asks for is over [`MAX_DEGREE`] or would cost more than the pairs, and for
    /// values no table can hold.
    fn tabulated(&self, field: &Field, two_beta_sq: f64) -> Option<Vec<f64>> {
        let n = field.len();
        if self.p.exact || n < TABULATE_FROM {
            return None;
        }
        let (mu, var) = (&field.mu[..], &field.var[..]);
        let b: Vec<f64> = var.iter().map(|v| v + two_beta_sq).collect();
        let b_min = b.iter().copied().fold(f64::INFINITY, f64::min);
        if !(b_min > 0.0 && b_min.is_finite() && mu.iter().all(|m| m.is_finite())) {
            return None;
        }
        let d: Vec<f64> = b.iter().map(|x| x - b_min).collect();
        // lambda = ln(var + b_min): then var + b_q = e^lambda + d_q with d_q >= 0.
        let lambda: Vec<f64> = var.iter().map(|v| (v + b_min).ln()).collect();
        let lo = lambda.iter().copied().fold(f64::INFINITY, f64::min);
        let hi = lambda.iter().copied().fold(f64::NEG_INFINITY, f64::max);
        if !(lo.is_finite() && hi.is_finite()) {
            return None;
        }
        let (centre, half) = (0.5 * (lo + hi), 0.5 * (hi - lo));
        // The size of the sums of 1/c at lambda = x (real), the largest at the smallest x.
        let r_sum = |x: f64| d.iter().map(|d| 1.0 / (x.exp() + d).sqrt()).sum::<f64>();
        let degree = if half <= 1e-13 * centre.abs().max(1.0) {
            0
        } else {
            // The ellipse inside |Im lambda| <= pi/2, where each term is bounded by 3.07 *
            // 2^(1/4) times 1/c at the ellipse's leftmost real part (module documentation).
            let rho = chebyshev::rho_for_strip(FRAC_PI_2 / half);
            let x_min = centre - half * 0.5 * (rho + 1.0 / rho);
            let bound = 3.07 * 2f64.powf(0.25) * r_sum(x_min);
            chebyshev::degree_for(rho, bound, INTERPOLATION * r_sum(lo), MAX_DEGREE)?
        };
        // Each node costs about a table of n terms; the pairs cost n^2 / 2 pair terms.
        if (degree + 1) * NODE_COST > n {
            return None;
        }
        let (nodes, weights) = chebyshev::points_and_weights(degree);
        let t: Vec<f64> = lambda
            .iter()
            .map(|l| {
                if degree == 0 {
                    0.0
                } else {
                    ((l - centre) / half).clamp(-1.0, 1.0)
                }
            })
            .collect();
        let hit: Vec<Option<usize>> = t
            .iter()
            .map(|&ti| nodes.iter().position(|&x| x == ti))
            .collect();
        // Per position: the barycentric numerator and denominator, or the value at its node.
        let mut acc = vec![(0.0, 0.0); n];
        let k = self.slope;
        for (m, (&tm, &wm)) in nodes.iter().zip(&weights).enumerate() {
            let u = (centre + half * tm).exp() - b_min;
            let r: Vec<f64> = b.iter().map(|bq| 1.0 / (u + bq).sqrt()).collect();
            let slopes: Vec<f64> = r.iter().map(|x| k * x).collect();
            let s = shared::logistic_sums_at(
                mu,
                &shared::Terms {
                    m: mu,
                    s: &slopes,
                    c: &r,
                    d: None,
                },
            );
            // 1/c of the positions placed worse, and of each tie block (the position itself
            // included: its p = 1/2 cancels it in S).
            let places = field.worse_and_tied(&r);
            acc.par_iter_mut().enumerate().for_each(|(i, a)| {
                let (worse, tied) = places[i];
                let g = worse + 0.5 * tied - s[i].0;
                match hit[i] {
                    Some(j) if j == m => *a = (g, f64::NAN),
                    Some(_) => {}
                    None => {
                        let c = wm / (t[i] - tm);
                        a.0 += c * g;
                        a.1 += c;
                    }
                }
            });
        }
        Some(
            acc.iter()
                .zip(&hit)
                .map(|(&(num, den), h)| if h.is_some() { num } else { num / den })
                .collect(),
        )
    }
}

impl AllPairs for Bar {
    fn drift(&self) -> f64 {
        self.p.sig_drift
    }

    /// `a` is the `mu` change, `v` the variance factor.
    fn contest(&self, field: &Field, weight: f64) -> Vec<(f64, f64)> {
        let two_beta_sq = 2.0 * self.p.beta * self.p.beta / weight;
        let (mu, var) = (&field.mu[..], &field.var[..]);
        let opps: Vec<(f64, f64)> = mu.iter().copied().zip(var.iter().copied()).collect();
        let k = self.slope;
        let n = field.len() as f64;
        if self.p.normalise {
            let tabulated = self.tabulated(field, two_beta_sq);
            if let Some(sums) = tabulated {
                return (0..field.len())
                    .map(|i| {
                        let var_i = var[i];
                        let delta = var_i / (4.0 * (var_i + two_beta_sq));
                        (var_i * sums[i] / n, (1.0 - delta).max(self.p.kappa))
                    })
                    .collect();
            }
            field.map(|i| {
                let (mu_i, var_i) = (mu[i], var[i]);
                let base = var_i + two_beta_sq;
                // (s - p) / c with s = 0 here: -p/c = -r / (1 + e^-z); s adds r.
                let f = |(mu_q, var_q): (f64, f64)| {
                    let r = 1.0 / (base + var_q).sqrt();
                    let e = exp_vectorisable(-k * (mu_i - mu_q) * r);
                    [r, r / (1.0 + e)]
                };
                let [lost, tied, won] = split_sums(field, &opps, i, f);
                let sum = -lost[1] + (0.5 * tied[0] - tied[1]) + (won[0] - won[1]);
                let delta = var_i / (4.0 * base);
                (var_i * sum / n, (1.0 - delta).max(self.p.kappa))
            })
        } else {
            field.map(|i| {
                let (mu_i, var_i) = (mu[i], var[i]);
                let (sigma_i, base) = (var_i.sqrt(), var_i + two_beta_sq);
                // Per q: ((s - p)/c split as before, gamma sigma_i^2/c^2 p (1 - p)).
                let f = |(mu_q, var_q): (f64, f64)| {
                    let r = 1.0 / (base + var_q).sqrt();
                    let p = 1.0 / (1.0 + exp_vectorisable(-k * (mu_i - mu_q) * r));
                    [r, p * r, sigma_i * r * r * r * p * (1.0 - p)]
                };
                let [lost, tied, won] = split_sums(field, &opps, i, f);
                let omega = var_i * (-lost[1] + (0.5 * tied[0] - tied[1]) + (won[0] - won[1]));
                let delta = var_i * ((lost[2] + tied[2]) + won[2]);
                (omega, (1.0 - delta).max(self.p.kappa))
            })
        }
    }

    const V_NONE: f64 = 1.0;

    fn fold(acc: f64, v: f64) -> f64 {
        acc * v
    }

    fn finish(&self, a: f64, v: f64) -> (f64, f64) {
        (a, v.max(self.p.kappa))
    }

    /// The normalised update skips a contest of ties, as the Elo-MMR reference does; Weng
    /// and Lin's Algorithm 1 (`normalise = false`) scores each tie 1/2.
    fn skips_all_tied(&self) -> bool {
        self.p.normalise
    }
}

impl RatingSystem for Bar {
    type Player = MuSigma;
    fixed_system!(
        Bar,
        BarParams,
        uncertainty: "sigma",
        "the standard deviation of the rating"
    );

    /// An entry plays at its members' share-weighted mean; each member takes his share of
    /// the entry's change.
    fn partial_play(&self) -> bool {
        true
    }

    fn new_player(&self) -> MuSigma {
        self.seeded(self.p.mu_init, None, None)
    }

    fn seeded(&self, rating: f64, uncertainty: Option<f64>, _volatility: Option<f64>) -> MuSigma {
        MuSigma {
            mu: rating,
            sigma: uncertainty.unwrap_or(self.p.sigma_init),
        }
    }

    /// The decay, and under `--growth time` the drift of each period passed beyond the
    /// first (that growth capped at the newcomers' uncertainty).
    fn elapse(&self, p: &mut MuSigma, time: Elapsed) {
        let idle = self.p.sig_drift * self.p.sig_drift * time.idle_periods();
        let capped = idle.min((self.p.sigma_init * self.p.sigma_init - p.sigma * p.sigma).max(0.0));
        p.sigma = (p.sigma * p.sigma + capped + time.variance).sqrt();
    }

    fn rating_period_days(&self) -> Option<f64> {
        Some(super::base::DEFAULT_PERIOD_DAYS)
    }

    fn rating(&self, p: &MuSigma) -> Rating {
        p.rating()
    }

    fn update(&self, round: Round<'_>, players: &mut [MuSigma]) {
        allpairs::update_round(self, round, players);
    }

    /// `p_ab` of the two sides (each with its members' mean `mu` and RMS `sigma`).
    fn win_probability(&self, players: &[MuSigma], a: &[PlayerId], b: &[PlayerId]) -> Option<f64> {
        let (mu_a, var_a) = side_belief(players, a);
        let (mu_b, var_b) = side_belief(players, b);
        let c = (var_a + var_b + 2.0 * self.p.beta * self.p.beta).sqrt();
        Some(self.p(mu_a - mu_b, c))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::history::{HistoryBuilder, SourceInfo};
    use crate::systems::allpairs::test_util::{after, assert_state, big_field, contest, contests};

    fn bar(f: impl FnOnce(&mut BarParams)) -> Bar {
        let mut p = BarParams::default();
        f(&mut p);
        Bar::new(p).unwrap()
    }

    // The expected values below come from a direct Python transcription of the formulas (Weng
    // and Lin's Algorithm 1 with a loop over every pair, exp(mu_i/c) / (exp(mu_i/c) +
    // exp(mu_q/c)) as written, then the reference's normalisation), run with python3 on the
    // defaults beta 25, sig_drift 63, kappa 1e-4; the drift is applied first:
    // sigma <- sqrt(sigma^2 + 63^2).

    #[test]
    fn two_players_by_hand() {
        // 1600/200 beats 1450/300.
        let h = contest(&[("a", 0, 0), ("b", 1, 1)]);
        let states = [(1600.0, 200.0), (1450.0, 300.0)];
        let got = after(&bar(|_| {}), &h, &states);
        assert_state(got[0], 1623.619053847569, 182.429743970703);
        assert_state(got[1], 1399.522189019486, 266.054783108614);
        // Weng and Lin as published.
        let got = after(&bar(|p| p.normalise = false), &h, &states);
        assert_state(got[0], 1647.238107695138, 205.168556710178);
        assert_state(got[1], 1349.044378038973, 285.394715401802);
        // The reference's win probability changes the mu step only.
        let got = after(&bar(|p| p.elo_mmr_logistic = true), &h, &states);
        assert_state(got[0], 1619.172440696995, 182.429743970703);
        assert_state(got[1], 1409.025334216017, 266.054783108614);
    }

    /// A draw: skipped by the normalised update (as the reference does), scored 1/2 by Weng
    /// and Lin's Algorithm 1. By hand, no drift, beta 25: c = sqrt(300^2 + 200^2 + 2 25^2),
    /// p = 1 / (1 + exp(-(1700 - 1500) / c)), mu += sigma^2 / c (1/2 - p), sigma^2 *=
    /// 1 - (sigma / c) sigma^2 / c^2 p (1 - p): 1666.559290790 / 279.553132238 and
    /// 1514.862537427 / 196.059940022.
    #[test]
    fn a_draw_counts_only_in_weng_and_lins_update() {
        let h = contest(&[("x", 0, 1), ("y", 0, 1)]);
        let states = [(1700.0, 300.0), (1500.0, 200.0)];
        let got = after(&bar(|p| p.sig_drift = 0.0), &h, &states);
        assert_eq!(
            (got[0].mu, got[0].sigma, got[1].mu),
            (1700.0, 300.0, 1500.0)
        );
        let got = after(
            &bar(|p| {
                p.normalise = false;
                p.sig_drift = 0.0;
            }),
            &h,
            &states,
        );
        assert_state(got[0], 1666.5592907897717, 279.5531322381599);
        assert_state(got[1], 1514.862537426768, 196.05994002227044);
    }

    #[test]
    fn three_players_with_a_tie_by_hand() {
        // 1500/350 first, 1600/150 and 1400/250 tied second.
        let h = contest(&[("a", 0, 0), ("b", 1, 2), ("c", 1, 2)]);
        let states = [(1500.0, 350.0), (1600.0, 150.0), (1400.0, 250.0)];
        let got = after(&bar(|_| {}), &h, &states);
        assert_state(got[0], 1602.906153862431, 308.482076509942);
        assert_state(got[1], 1582.817726267456, 141.951251071106);
        assert_state(got[2], 1389.063209603438, 223.960893188885);
        let got = after(&bar(|p| p.normalise = false), &h, &states);
        assert_state(got[0], 1808.718461587292, 294.878764038615);
        assert_state(got[1], 1548.453178802367, 158.485843478799);
        assert_state(got[2], 1367.189628810315, 233.041816063101);
    }

    #[test]
    fn better_placed_ends_higher_and_a_win_never_lowers_mu() {
        for normalise in [true, false] {
            let b = bar(|p| p.normalise = normalise);
            // Two players with equal priors among 40 others of varied priors.
            let names: Vec<String> = (0..42).map(|i| format!("p{i}")).collect();
            let entries: Vec<(&str, u32, u32)> = names
                .iter()
                .enumerate()
                .map(|(i, n)| (n.as_str(), i as u32, i as u32))
                .collect();
            let h = contest(&entries);
            let mut states: Vec<(f64, f64)> = (0..42)
                .map(|i| (1200.0 + (i * 53 % 600) as f64, 60.0 + (i * 29 % 290) as f64))
                .collect();
            states[10] = (1500.0, 120.0);
            states[30] = (1500.0, 120.0);
            let got = after(&b, &h, &states);
            assert!(
                got[10].mu > got[30].mu,
                "{normalise}: {:?} {:?}",
                got[10],
                got[30]
            );
            assert!(got[0].mu >= states[0].0 && got[41].mu <= states[41].0);
            // Two players: the winner never goes down, the loser never up.
            let h = contest(&[("a", 0, 0), ("b", 1, 1)]);
            for mu_a in [800.0, 1500.0, 2600.0] {
                for (sa, sb) in [(30.0, 350.0), (350.0, 30.0), (200.0, 200.0)] {
                    let got = after(&b, &h, &[(mu_a, sa), (1500.0, sb)]);
                    assert!(got[0].mu >= mu_a && got[1].mu <= 1500.0);
                }
            }
        }
    }

    #[test]
    fn the_round_weighs_one_maximally_informative_game() {
        // A newcomer's variance factor is 1 - s^2 / (4 (s^2 + 2 beta^2)) with s^2 = 350^2 +
        // 63^2, whatever the field: 0.752446777691651 (python3); the same as one game against
        // an equally rated opponent of certain skill.
        let (h, mut states) = big_field(300);
        states[5].sigma = 350.0;
        let states: Vec<(f64, f64)> = states.iter().map(|s| (s.mu, s.sigma)).collect();
        let got = after(&bar(|_| {}), &h, &states);
        let drifted = 350.0f64.hypot(63.0);
        let factor = (got[5].sigma / drifted).powi(2);
        assert!((factor - 0.752446777691651).abs() < 1e-12, "{factor}");
        let duel = contest(&[("a", 0, 0), ("b", 1, 1)]);
        let one = after(&bar(|_| {}), &duel, &[(1500.0, 350.0), (1500.0, 0.0)]);
        assert!((one[0].sigma - got[5].sigma).abs() < 1e-9);
        // Weng and Lin's sum over 299 opponents shrinks it to the floor kappa instead.
        let raw = after(&bar(|p| p.normalise = false), &h, &states);
        assert!(((raw[5].sigma / drifted).powi(2) - 1e-4).abs() < 1e-12);
    }

    #[test]
    fn swapping_two_players_swaps_their_results_exactly() {
        let (h, states) = big_field(150);
        let got = after(
            &bar(|_| {}),
            &h,
            &states.iter().map(|s| (s.mu, s.sigma)).collect::<Vec<_>>(),
        );
        // The same contest with the entries in reverse order, players renamed accordingly.
        let mut b = HistoryBuilder::new();
        let n = states.len();
        let ids: Vec<u32> = (0..n)
            .map(|i| b.player(&format!("p{}", n - 1 - i)))
            .collect();
        let c = h.contest(0);
        b.begin_contest(0, 1.0, None, None);
        for k in (0..n).rev() {
            let e = c.entry(k);
            b.add_entry(&[ids[n - 1 - e.players[0] as usize]], e.lo, e.hi, None);
        }
        b.end_contest().unwrap();
        let h2 = b.finish(SourceInfo::default());
        let rev: Vec<(f64, f64)> = states.iter().rev().map(|s| (s.mu, s.sigma)).collect();
        let got2 = after(&bar(|_| {}), &h2, &rev);
        for i in 0..n {
            assert_eq!(got[i], got2[n - 1 - i], "{i}");
        }
        // Two players of equal priors exchanging their names in the standings exchange their
        // results (ids are in order of first appearance: a, b, c and then c, b, a).
        let h = contest(&[("a", 0, 0), ("b", 1, 1), ("c", 2, 2)]);
        let h2 = contest(&[("c", 0, 0), ("b", 1, 1), ("a", 2, 2)]);
        let s = [(1500.0, 200.0), (1550.0, 100.0), (1500.0, 200.0)];
        let (x, y) = (after(&bar(|_| {}), &h, &s), after(&bar(|_| {}), &h2, &s));
        let (a, b, c) = ((x[0], y[2]), (x[1], y[1]), (x[2], y[0]));
        assert_eq!((a.0, c.0, b.0), (c.1, a.1, b.1));
    }

    #[test]
    fn results_do_not_depend_on_the_number_of_threads() {
        let (h, states) = big_field(400);
        let s: Vec<(f64, f64)> = states.iter().map(|s| (s.mu, s.sigma)).collect();
        for normalise in [true, false] {
            let b = bar(|p| p.normalise = normalise);
            let run = |k: usize| {
                rayon::ThreadPoolBuilder::new()
                    .num_threads(k)
                    .build()
                    .unwrap()
                    .install(|| after(&b, &h, &s))
            };
            assert_eq!(run(1), run(2));
        }
    }

    #[test]
    fn a_round_of_two_contests_sums_the_steps_and_multiplies_the_factors() {
        let one = contest(&[("a", 0, 0), ("b", 1, 1)]);
        let two = contest(&[("c", 0, 0), ("a", 1, 1)]);
        let both = contests(&[&[("a", 0, 0), ("b", 1, 1)], &[("c", 0, 0), ("a", 1, 1)]]);
        let b = bar(|_| {});
        let (sa, sb, sc) = ((1500.0, 200.0), (1400.0, 100.0), (1700.0, 150.0));
        let x = after(&b, &one, &[sa, sb]);
        let y = after(&b, &two, &[sc, sa]);
        let z = after(&b, &both, &[sa, sb, sc]);
        assert!((z[0].mu - (x[0].mu + y[1].mu - 1500.0)).abs() < 1e-9);
        let drifted = 200.0f64.hypot(63.0);
        let f = (x[0].sigma / drifted).powi(2) * (y[1].sigma / drifted).powi(2);
        assert!((z[0].sigma - drifted * f.sqrt()).abs() < 1e-9);
        // The others played one contest each.
        assert_eq!((z[1], z[2]), (x[1], y[0]));
    }

    #[test]
    fn team_members_receive_the_change_of_a_player_with_mean_and_rms() {
        let mut b = HistoryBuilder::new();
        let ids: Vec<u32> = ["a", "b", "c"].iter().map(|n| b.player(n)).collect();
        b.begin_contest(0, 1.0, None, None);
        b.add_entry(&ids[0..2], 0, 0, None);
        b.add_entry(&ids[2..3], 1, 1, None);
        b.end_contest().unwrap();
        let h = b.finish(SourceInfo::default());
        let s = bar(|_| {});
        let got = after(&s, &h, &[(1400.0, 100.0), (1600.0, 200.0), (1500.0, 150.0)]);
        // The team as one player: mean 1500, sigma the RMS of the drifted sigmas.
        let rms = ((100.0f64.powi(2) + 200.0f64.powi(2)) / 2.0).sqrt();
        let mut s0 = s.clone();
        s0.p.sig_drift = 0.0;
        let solo = contest(&[("t", 0, 0), ("c", 1, 1)]);
        let team = after(
            &s0,
            &solo,
            &[(1500.0, rms.hypot(63.0)), (1500.0, 150.0f64.hypot(63.0))],
        );
        let dmu = team[0].mu - 1500.0;
        let factor = (team[0].sigma / rms.hypot(63.0)).powi(2);
        for (k, (mu, sigma)) in [(0, (1400.0, 100.0f64)), (1, (1600.0, 200.0))] {
            assert!((got[k].mu - mu - dmu).abs() < 1e-9);
            assert!((got[k].sigma - sigma.hypot(63.0) * factor.sqrt()).abs() < 1e-9);
        }
        assert!((got[2].mu - team[1].mu).abs() < 1e-9);
    }

    #[test]
    fn an_all_tied_contest_changes_nothing() {
        let h = contest(&[("a", 0, 2), ("b", 0, 2), ("c", 0, 2)]);
        let s = [(1500.0, 200.0), (1600.0, 100.0), (1400.0, 300.0)];
        let got = after(&bar(|_| {}), &h, &s);
        for (g, (mu, sigma)) in got.iter().zip(s) {
            assert_eq!((g.mu, g.sigma), (mu, sigma));
        }
    }

    #[test]
    fn win_probability_is_p_iq() {
        let b = bar(|_| {});
        let players = [
            MuSigma {
                mu: 1600.0,
                sigma: 200.0,
            },
            MuSigma {
                mu: 1450.0,
                sigma: 300.0,
            },
        ];
        // 1 / (1 + exp(-150 / sqrt(200^2 + 300^2 + 2 25^2))) = 0.602056... (python3:
        // 0.6020560391).
        let p = b.win_probability(&players, &[0], &[1]).unwrap();
        assert!((p - 0.6020560391).abs() < 1e-9, "{p}");
        let q = b.win_probability(&players, &[1], &[0]).unwrap();
        assert!((p + q - 1.0).abs() < 1e-15);
    }
}
