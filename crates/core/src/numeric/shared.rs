//! Sums of logistic terms at many points, by tabulation: for every point x,
//!
//! ```text
//! S(x) = sum_j c_j sigma(s_j (x - m_j))        V(x) = sum_j d_j sigma(1 - sigma)(s_j (x - m_j))
//! ```
//!
//! (`sigma` the logistic function). These are the expected scores and their variances of a
//! multi-entrant contest rated pair by pair (Elo, Yuksel, Glicko): n points against n terms,
//! O(n^2) summed directly. Here each sum is tabulated once on a uniform grid over the points
//! (O(n) terms per node, the nodes' exponentials by recurrence) and interpolated at every
//! point (O(q) each): O(n * nodes + n q).
//!
//! **Representation.** With `z_j = s_j (x - m_j) / 2`, `sigma = (1 + tanh z) / 2` and
//! `sigma (1 - sigma) = sech^2(z) / 4`. S is tabulated as its distance from saturation:
//! `D- = sum c_j (1 + tanh z_j)` at the nodes below a split, `D+ = sum c_j (1 - tanh z_j)`
//! from it on (`S = D- / 2 = C - D+ / 2`, `C = sum c_j`), each term computed as a positive
//! number to a few units of its last place, so that the sums are accurate relative to
//! themselves even far in a tail, where S is a large total less a tiny deviation.
//!
//! **Error bound.** In the strip `|Im z| <= pi/4` (the grid's strip is that for the steepest
//! term), `|tanh z - 1| <= 2 (1 - tanh(Re z))`, `|tanh z + 1| <= 2 (1 + tanh(Re z))` and
//! `|sech^2 z| <= 2 sech^2(Re z)`; moving the real part by delta changes each of these real
//! values by at most a factor `e^(2 |delta|)`. So on the Cauchy discs of radius `strip`
//! around a stencil, each tabulated function is bounded by `2 e^(2 Delta)` times its value at
//! the point (`Delta` the largest reach in z), and the interpolation error is at most
//! `C_q (h/strip)^q 2 e^(2 Delta)` of the value: a bound relative to the value itself,
//! everywhere. The rounding of the node values (relative too), grown by the stencil's
//! Lebesgue constant and the same factor, is added. The spacing is chosen for a relative
//! error of [`RELATIVE`], whatever the contest.
//!
//! The result does not depend on the number of threads: the table's rows are summed in fixed
//! chunks, then in order.

use super::uniform::{UniformGrid, add_saturation_rows};
use rayon::prelude::*;
use std::f64::consts::PI;

/// The relative error bound of the tabulated sums (of each sum's own value).
pub const RELATIVE: f64 = 1e-10;

/// Terms summed per chunk of the table (in parallel, then in order).
const CHUNK: usize = 256;

/// The terms: centres `m`, slopes `s` (of the logistic's argument), and the coefficients of
/// the two sums.
pub struct Terms<'a> {
    /// Centres.
    pub m: &'a [f64],
    /// Slopes (positive).
    pub s: &'a [f64],
    /// Coefficients of S (non-negative).
    pub c: &'a [f64],
    /// Coefficients of V (non-negative); `None` when V is not wanted (it is then 0).
    pub d: Option<&'a [f64]>,
}

/// `(S(x), V(x))` at every point, by tabulation (see the module documentation), each within
/// [`RELATIVE`] of its own value (plus the rounding of `C - D+/2`, as in an exact sum).
pub fn logistic_sums_at(points: &[f64], t: &Terms) -> Vec<(f64, f64)> {
    let n = t.m.len();
    if points.is_empty() || n == 0 {
        return vec![(0.0, 0.0); points.len()];
    }
    let lo = points.iter().copied().fold(f64::INFINITY, f64::min);
    let hi = points.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    let s_max = t.s.iter().copied().fold(0.0, f64::max);
    // Half-width of the strip in x: |Im z_j| <= pi/4 for every term.
    let strip = PI / (2.0 * s_max);
    let grid = choose_grid(lo, hi, strip, s_max, n, points.len());
    let k = grid.len();
    let centre = {
        let d = |j: usize| t.d.map_or(0.0, |d| d[j]);
        let cw: f64 = (0..n).map(|j| t.c[j] + d(j)).sum();
        if cw > 0.0 {
            (0..n).map(|j| (t.c[j] + d(j)) * t.m[j]).sum::<f64>() / cw
        } else {
            0.5 * (lo + hi)
        }
    };
    let split = (((centre - grid.x(0)) / grid.h()).ceil().max(0.0) as usize).min(k);
    let (sat, sech2) = tables(&grid, t, split);
    let total_c: f64 = t.c.iter().sum();
    let q = grid.q();
    let eval_one = |x: f64| {
        let first = grid.cell(x) + 1 - q / 2;
        let v = if t.d.is_some() {
            grid.eval(x, |i| sech2[i]) / 4.0
        } else {
            0.0
        };
        let s = if first + q <= split {
            grid.eval(x, |i| sat[i]) / 2.0
        } else if first >= split {
            total_c - grid.eval(x, |i| sat[i]) / 2.0
        } else {
            // The stencil straddles the split: D- throughout (values near the middle).
            let lower = |i: usize| {
                if i < split {
                    sat[i]
                } else {
                    2.0 * total_c - sat[i]
                }
            };
            grid.eval(x, lower) / 2.0
        };
        (s, v)
    };
    super::map_indices(points.len(), 1024, |i| eval_one(points[i]))
}

/// The grid over `[lo, hi]` with the least cost (`terms` table rows of every node and
/// `points` stencils) whose relative error bound meets [`RELATIVE`].
fn choose_grid(
    lo: f64,
    hi: f64,
    strip: f64,
    s_max: f64,
    terms: usize,
    points: usize,
) -> UniformGrid {
    let len = (hi - lo).max(1e-9);
    let spacing = |q: usize| {
        // Start from the spacing the bound allows without the reach factor, and shrink it
        // until the whole bound holds.
        let probe = UniformGrid::new(0.0, 1.0, 1.0, q);
        let mut h = UniformGrid::spacing_for(q, strip, 2.0, RELATIVE).min(len);
        for _ in 0..200 {
            if relative_bound(&probe, h, strip, s_max, terms) <= RELATIVE {
                return Some(h);
            }
            h *= 0.9;
        }
        None
    };
    let cost = |q: usize, nodes: f64| nodes * terms as f64 * 2.0 + (points * q * 2) as f64;
    UniformGrid::cheapest(len, spacing, cost).map_or_else(
        || UniformGrid::new(lo, hi, len / 1e6, 24),
        |(q, h)| UniformGrid::new(lo, hi, h, q),
    )
}

/// Rounding of a node value, relative to itself, for a table of `terms` rows: each term
/// within 136 units of its last place (the reseeded recurrence, the division), each chunk's
/// sum within CHUNK, the partial sums within their count.
fn node_noise(terms: usize) -> f64 {
    (136 + CHUNK + terms / CHUNK + 1) as f64 * f64::EPSILON
}

/// The bound of the module documentation for spacing h (relative to the value), with the
/// stencil size and constants of `probe`.
fn relative_bound(probe: &UniformGrid, h: f64, strip: f64, s_max: f64, terms: usize) -> f64 {
    let q = probe.q() as f64;
    // The farthest real point of the discs around the stencil, in z of the steepest term.
    let reach = 0.5 * s_max * (0.5 * q * h + strip);
    let growth = (2.0 * reach).exp();
    let interpolation = 2.0 * growth * probe.error_factor(h, strip);
    interpolation + probe.lebesgue() * node_noise(terms) * growth
}

/// The two tables: `D-` below `split` and `D+` from it on (weights c), and `sum d sech^2`.
fn tables(grid: &UniformGrid, t: &Terms, split: usize) -> (Vec<f64>, Vec<f64>) {
    let k = grid.len();
    let n = t.m.len();
    let partials: Vec<(Vec<f64>, Vec<f64>)> = (0..n)
        .collect::<Vec<_>>()
        .par_chunks(CHUNK)
        .map(|chunk| {
            let mut sat = vec![0.0; k];
            let mut sech2 = vec![0.0; if t.d.is_some() { k } else { 0 }];
            for &j in chunk {
                let half = 0.5 * t.s[j];
                add_saturation_rows(
                    (grid.x(0) - t.m[j]) * half,
                    grid.h() * half,
                    (t.c[j], t.d.map_or(0.0, |d| d[j])),
                    split,
                    &mut sat,
                    t.d.is_some().then_some(&mut sech2[..]),
                );
            }
            (sat, sech2)
        })
        .collect();
    let mut sat = vec![0.0; k];
    let mut sech2 = vec![0.0; if t.d.is_some() { k } else { 0 }];
    for (a, b) in partials {
        sat.iter_mut().zip(&a).for_each(|(s, x)| *s += x);
        sech2.iter_mut().zip(&b).for_each(|(s, x)| *s += x);
    }
    (sat, sech2)
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::{Rng, SeedableRng};
    use rand_chacha::ChaCha8Rng;

    /// The sums at x term by term, in long form.
    fn exact(x: f64, t: &Terms) -> (f64, f64) {
        let (mut s, mut v) = (0.0, 0.0);
        for j in 0..t.m.len() {
            let u = t.s[j] * (x - t.m[j]);
            let sig = 1.0 / (1.0 + (-u).exp());
            s += t.c[j] * sig;
            // sigma (1 - sigma) from the smaller exponential: no cancellation in either tail.
            let e = (-u.abs()).exp();
            v += t.d.map_or(0.0, |d| d[j]) * e / ((1.0 + e) * (1.0 + e));
        }
        (s, v)
    }

    #[test]
    fn tabulated_sums_are_within_their_relative_bound_in_the_middle_and_far_in_the_tails() {
        let mut rng = ChaCha8Rng::seed_from_u64(16);
        for (n, spread, slopes) in [
            (3000, 900.0, false),
            (2000, 4000.0, true),
            (700, 50.0, true),
        ] {
            let m: Vec<f64> = (0..n)
                .map(|_| 1500.0 + rng.random_range(-spread..spread))
                .collect();
            let s: Vec<f64> = (0..n)
                .map(|_| {
                    let k = std::f64::consts::LN_10 / 400.0;
                    if slopes {
                        k * rng.random_range(0.3..1.0)
                    } else {
                        k
                    }
                })
                .collect();
            let c: Vec<f64> = (0..n).map(|_| rng.random_range(0.1..2.0)).collect();
            let d: Vec<f64> = (0..n).map(|_| rng.random_range(0.1..2.0)).collect();
            let t = Terms {
                m: &m,
                s: &s,
                c: &c,
                d: Some(&d),
            };
            // The points are the centres, and the extremes of the field.
            let got = logistic_sums_at(&m, &t);
            let lo = m.iter().copied().fold(f64::INFINITY, f64::min);
            let hi = m.iter().copied().fold(f64::NEG_INFINITY, f64::max);
            let mut order: Vec<usize> = (0..n).collect();
            order.sort_by(|&a, &b| m[a].total_cmp(&m[b]));
            let mut checked = order[..20].to_vec();
            checked.extend_from_slice(&order[n - 20..]);
            checked.extend((0..n).step_by(97));
            // Far beyond the field too, where S (below) and V (both ends) are tiny: each
            // within the bound of its own value, with no slack of the field's size.
            let far = [lo - 5000.0, lo - 1500.0, hi + 1500.0, hi + 5000.0];
            let got_far = logistic_sums_at(&[&m[..], &far[..]].concat(), &t);
            for (k, &x) in far.iter().enumerate() {
                let (es, ev) = exact(x, &t);
                let (gs, gv) = got_far[n + k];
                if k == 0 || k == 3 {
                    assert!(ev < 1e-3 * n as f64, "{x}: the point is in a tail");
                }
                assert!((gv - ev).abs() <= 1e-9 * ev, "n {n} at {x}: V {gv} vs {ev}");
                if x < lo {
                    assert!((gs - es).abs() <= 1e-9 * es, "n {n} at {x}: S {gs} vs {es}");
                }
            }
            for &i in &checked {
                let (es, ev) = exact(m[i], &t);
                let total: f64 = c.iter().sum();
                // S's own share of the tail: its distance from the nearer saturation.
                let own = es.min(total - es);
                assert!(
                    (got[i].0 - es).abs() <= 1e-9 * own + 1e-13 * total,
                    "n {n} point {i} at {} in [{lo}, {hi}]: S {} vs {es}",
                    m[i],
                    got[i].0
                );
                assert!(
                    (got[i].1 - ev).abs() <= 1e-9 * ev,
                    "n {n} point {i}: V {} vs {ev}",
                    got[i].1
                );
            }
        }
    }

    #[test]
    fn a_single_point_and_equal_centres_are_handled() {
        let m = vec![1000.0; 600];
        let s = vec![0.01; 600];
        let ones = vec![1.0; 600];
        let t = Terms {
            m: &m,
            s: &s,
            c: &ones,
            d: Some(&ones),
        };
        let got = logistic_sums_at(&[1000.0, 1000.0], &t);
        assert!(
            (got[0].0 - 300.0).abs() < 1e-9 && (got[0].1 - 150.0).abs() < 1e-9,
            "{got:?}"
        );
    }
}
