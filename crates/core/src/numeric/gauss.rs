//! Sums of normal win probabilities between players with their own spreads, in O(n) per
//! contest instead of O(n^2): for every query i (a point `x_i`, a spread `s_i > 0`),
//!
//! ```text
//! B_i = sum_j w_j Phi((r_j - x_i) / sqrt(v_j^2 + s_i^2))
//! ```
//!
//! (the expected number of players j who beat a performance drawn around `x_i`; Topcoder's
//! expected rank, and Elo with the normal curve, where every spread is the same).
//!
//! **Method.** `Phi((r_j - x)/sqrt(v_j^2 + s^2))` is the probability that a normal
//! performance `N(r_j, v_j^2)` beats an independent one `N(x, s^2)`, so
//!
//! ```text
//! B_i = integral N(t; x_i, s_i^2) H(t) dt,     H(t) = sum_j w_j Phi((r_j - t) / v_j),
//! ```
//!
//! a Gaussian average of one function H of one variable, the same for every query. H is
//! computed exactly (every term) at the nodes `t_k = t_0 + k h` of one uniform grid, and each
//! `B_i` by the trapezoidal rule on those nodes within `T s_i` of `x_i`: O(nodes * n) for the
//! table and O(T s_i / h) per query.
//!
//! **Error bound.** The integrand is entire. On the line `Im t = y`, `|N(t)|` integrates to
//! `e^(y^2 / 2 s^2)`, and `|Phi(u)| <= e^(b^2/2) Phi(Re u) <= e^(b^2/2)` for `|Im u| = b`
//! (integrate `phi` along the horizontal line from minus infinity, where `|phi(u)| =
//! phi(Re u) e^(b^2/2)`), so `|H(t)| <= W e^(y^2 / 2 v_min^2)` with `W = sum w_j`. The
//! trapezoidal rule's error for a function analytic in the strip `|Im t| < a` is at most
//! `2 M / (e^(2 pi a / h) - 1)`, M the bound of the integrals of `|f|` along the lines of
//! the strip (Trefethen and Weideman, "The exponentially convergent trapezoidal rule", SIAM
//! Review 56, 2014, theorem 5.1). Here `M <= W e^(kappa a^2)`, `kappa = (1/v_min^2 +
//! 1/s_min^2) / 2`; at the best `a = pi / (kappa h)` the bound is `2 W X / (1 - X^2)` with
//! `X = e^(-pi^2 / (kappa h^2))`, and h is chosen to make it [`TRAPEZOID`]` W`. Nodes more
//! than `T s_i` from `x_i` are left out: each of the two tails is at most `W Phi(-(T - h/s_i))`
//! (each `h N(t_k)` is at most the integral of N over the cell inward of `t_k`, and
//! `H <= W` on the real line), and `T = h / s_i + `[`TAIL_Z`] makes both together at most
//! [`TAIL`]` W`. The terms of H further than [`SATURATED`] spreads from a node count as 0
//! or `w_j` (an error below `1e-17 w_j` each).
//!
//! Altogether `|B_i - exact| <= `[`ABSOLUTE`]` W` plus the rounding of the table and of
//! the trapezoid (tens of units in the last place of W), where the exact pairwise sum has the
//! rounding of n terms.
//!
//! The result does not depend on the number of threads: each node's H is summed in term
//! order, and each query on its own.

use super::erfc;
use std::f64::consts::{FRAC_1_SQRT_2, PI};

/// The trapezoidal rule's part of the bound, relative to the total weight W.
pub const TRAPEZOID: f64 = 1e-15;
/// The left-out tails' part of the bound, relative to W.
pub const TAIL: f64 = 1e-15;
/// `Phi(-TAIL_Z) <= TAIL / 2`.
const TAIL_Z: f64 = 8.1;
/// A term of H further than this many spreads from a node is 0 or `w_j` there
/// (`Phi(-8.5) = 9.5e-18`).
const SATURATED: f64 = 8.5;
/// The whole bound of a sum, relative to W (the trapezoid, the tails and the saturated
/// terms of H, each summed over terms whose weights add up to W).
pub const ABSOLUTE: f64 = TRAPEZOID + TAIL + 1e-17;

/// The terms of H: centres `r`, spreads `v` (positive) and weights `w` (non-negative).
pub struct Normals<'a> {
    /// Centres.
    pub r: &'a [f64],
    /// Spreads (standard deviations), positive.
    pub v: &'a [f64],
    /// Weights, non-negative.
    pub w: &'a [f64],
}

/// `B_i` (see the module documentation) for every query `(x[i], s[i])`, each within
/// [`ABSOLUTE`]` * sum w` of the exact sum (plus rounding); `None` when a spread is not a
/// positive finite number, a value is not finite, or the table would take more than `budget`
/// terms (then the caller sums the pairs).
pub fn beating_sums(t: &Normals, x: &[f64], s: &[f64], budget: f64) -> Option<Vec<f64>> {
    let finite_positive = |v: &f64| v.is_finite() && *v > 0.0;
    if x.is_empty() || t.r.is_empty() {
        return Some(vec![0.0; x.len()]);
    }
    if !t.v.iter().all(finite_positive)
        || !s.iter().all(finite_positive)
        || !t.r.iter().chain(x).chain(t.w).all(|v| v.is_finite())
    {
        return None;
    }
    let v_min = t.v.iter().copied().fold(f64::INFINITY, f64::min);
    let s_min = s.iter().copied().fold(f64::INFINITY, f64::min);
    let h = spacing(v_min, s_min);
    let reach = |i: usize| (h / s[i] + TAIL_Z) * s[i];
    let lo = (0..x.len())
        .map(|i| x[i] - reach(i))
        .fold(f64::INFINITY, f64::min);
    let hi = (0..x.len())
        .map(|i| x[i] + reach(i))
        .fold(f64::NEG_INFINITY, f64::max);
    let nodes = ((hi - lo) / h).ceil() + 2.0;
    // A spread so small that its square's reciprocal overflows gives h = 0, and a range near
    // the largest doubles an infinite count: both are left to the pairs, as is any budget
    // the table does not fit (a NaN budget fits nothing).
    let fits = h > 0.0 && nodes.is_finite() && nodes * (t.r.len() as f64) <= budget;
    if !fits {
        return None;
    }
    let t0 = lo - h;
    let nodes = nodes as usize;
    let table = h_table(t, t0, h, nodes);
    let one = |i: usize| {
        let (xi, si) = (x[i], s[i]);
        let r = reach(i);
        let first = (((xi - r - t0) / h).ceil().max(0.0)) as usize;
        let last = (((xi + r - t0) / h).floor() as usize).min(nodes - 1);
        let c = -0.5 / (si * si);
        let base = t0 + first as f64 * h - xi;
        let window = &table[first..=last];
        // Node first + k goes to lane k % 4: four independent lanes the compiler vectorises.
        let mut acc = [0.0f64; 4];
        let mut quads = window.chunks_exact(4);
        let mut k = 0usize;
        for quad in &mut quads {
            for l in 0..4 {
                let d = base + (k + l) as f64 * h;
                acc[l] += super::exp_vectorisable(c * d * d) * quad[l];
            }
            k += 4;
        }
        for (l, &hk) in quads.remainder().iter().enumerate() {
            let d = base + (k + l) as f64 * h;
            acc[l] += super::exp_vectorisable(c * d * d) * hk;
        }
        ((acc[0] + acc[1]) + (acc[2] + acc[3])) * h / (si * (2.0 * PI).sqrt())
    };
    Some(super::map_indices(x.len(), 1024, one))
}

/// The spacing for which the trapezoid's bound is [`TRAPEZOID`]: with `X = e^(-pi^2 /
/// (kappa h^2))`, `2 X / (1 - X^2) <= TRAPEZOID` holds for `X <= TRAPEZOID / 2 * e^(-0.01)`.
fn spacing(v_min: f64, s_min: f64) -> f64 {
    let kappa = 0.5 * (1.0 / (v_min * v_min) + 1.0 / (s_min * s_min));
    let log = (2.0 / TRAPEZOID).ln() + 0.01;
    PI / (kappa * log).sqrt()
}

/// H at the nodes `t0 + k h`, `k < nodes`, each summed in term order.
fn h_table(t: &Normals, t0: f64, h: f64, nodes: usize) -> Vec<f64> {
    let one = |k: usize| {
        let tk = t0 + k as f64 * h;
        let mut sum = 0.0;
        for ((&r, &v), &w) in t.r.iter().zip(t.v).zip(t.w) {
            let u = (r - tk) / v;
            if u >= SATURATED {
                sum += w;
            } else if u > -SATURATED {
                sum += w * 0.5 * erfc(-u * FRAC_1_SQRT_2);
            }
        }
        sum
    };
    // In parallel from 2^16 terms in all.
    super::map_indices(nodes, (1usize << 16).div_ceil(t.r.len().max(1)), one)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::numeric::normal_cdf;
    use rand::{Rng, SeedableRng};
    use rand_chacha::ChaCha8Rng;

    fn exact(t: &Normals, x: f64, s: f64) -> f64 {
        (0..t.r.len())
            .map(|j| t.w[j] * normal_cdf((t.r[j] - x) / t.v[j].hypot(s)))
            .sum()
    }

    #[test]
    fn the_tabulated_sums_are_within_their_bound_of_the_pairs() {
        let mut rng = ChaCha8Rng::seed_from_u64(1616);
        // (terms, rating spread, spreads from .. to): Topcoder-like volatilities (a newcomer's
        // 535 beside veterans' 60), and one spread for all (Elo with the normal curve).
        for (n, spread, v_lo, v_hi) in [
            (2000, 1500.0, 60.0, 535.0),
            (1500, 3000.0, 200.0, 200.0),
            (800, 50.0, 5.0, 400.0),
        ] {
            let r: Vec<f64> = (0..n)
                .map(|_| 1500.0 + rng.random_range(-spread..spread))
                .collect();
            let v: Vec<f64> = (0..n)
                .map(|_| {
                    if v_lo == v_hi {
                        v_lo
                    } else {
                        rng.random_range(v_lo..v_hi)
                    }
                })
                .collect();
            let w: Vec<f64> = (0..n).map(|_| rng.random_range(1..4) as f64).collect();
            let t = Normals {
                r: &r,
                v: &v,
                w: &w,
            };
            let got = beating_sums(&t, &r, &v, f64::INFINITY).expect("a table");
            let total: f64 = w.iter().sum();
            for i in (0..n).step_by(7) {
                let want = exact(&t, r[i], v[i]);
                assert!(
                    (got[i] - want).abs() <= 2.0 * ABSOLUTE * total + 64.0 * f64::EPSILON * total,
                    "n {n}, query {i}: {} vs {want} (W {total})",
                    got[i]
                );
            }
            // And far outside the field, where B is W or 0.
            let far = beating_sums(&t, &[-1e5, 1e5], &[100.0, 100.0], f64::INFINITY).unwrap();
            assert!((far[0] - total).abs() <= 1e-12 * total && far[1].abs() <= 1e-12 * total);
        }
    }

    #[test]
    fn degenerate_spreads_and_small_budgets_fall_back_to_the_pairs() {
        let r = [1.0, 2.0, 3.0];
        let w = [1.0; 3];
        let t = Normals {
            r: &r,
            v: &[1.0, 0.0, 1.0],
            w: &w,
        };
        assert!(beating_sums(&t, &r, &[1.0; 3], f64::INFINITY).is_none());
        let t = Normals {
            r: &r,
            v: &[1.0; 3],
            w: &w,
        };
        assert!(beating_sums(&t, &r, &[1.0; 3], 10.0).is_none());
        assert!(beating_sums(&t, &r, &[f64::NAN; 3], f64::INFINITY).is_none());
        assert!(beating_sums(&t, &r, &[1.0; 3], f64::NAN).is_none());
        // A spread whose square's reciprocal overflows: no grid, not an endless one.
        assert!(beating_sums(&t, &r, &[1.0, 1e-200, 1.0], f64::INFINITY).is_none());
        let huge = [-1e308, 0.0, 1e308];
        let t_huge = Normals {
            r: &huge,
            v: &[1.0; 3],
            w: &w,
        };
        assert!(beating_sums(&t_huge, &huge, &[1.0; 3], f64::INFINITY).is_none());
        let sums = beating_sums(&t, &r, &[1.0; 3], f64::INFINITY).unwrap();
        // Against oneself: 1/2 each, plus the others.
        for (i, &b) in sums.iter().enumerate() {
            let want = exact(&t, r[i], 1.0);
            assert!((b - want).abs() < 1e-14, "{b} vs {want}");
        }
    }
}
