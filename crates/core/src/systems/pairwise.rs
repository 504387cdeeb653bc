//! Pairwise decomposition of a contest: each entry against every other entry, from the
//! pre-round ratings. Shared by the two-player systems (Elo, Yuksel) when a contest has more
//! than two entries.
//!
//! The sums over opponents are exact (no sampling). For large contests the logistic sums run in
//! O(n^2) with one division per pair (`Q_i / (Q_i + Q_j)` with `Q = 10^(r/scale)` taken
//! relative to the contest's best rating, so nothing overflows), split across rayon's threads
//! by entry; each entry's sum is computed the same way whatever the thread count.

use crate::numeric::elo_win_probability;
use crate::numeric::shared;
use std::f64::consts::LN_10;

/// Contests at least this large are summed in parallel.
const PARALLEL_FROM: usize = 1024;
/// Contests at least this large use the one-division-per-pair form.
const FAST_FROM: usize = 64;
/// Contests at least this large use the tabulated shared function (unless exact).
pub const TABULATE_FROM: usize = 512;

/// For each entry i: `sum over j != i of w_j * S_ij`, where `S_ij` is 1 when i placed strictly
/// better than j, 0 when strictly worse, 1/2 when their places overlap (a tie). O(n log n).
pub fn outcome_sums(ranges: &[(u32, u32)], w: &[f64]) -> Vec<f64> {
    let n = ranges.len();
    if n == 2 {
        let s = outcome(ranges[0], ranges[1]);
        return vec![w[1] * s, w[0] * (1.0 - s)];
    }
    // Entries sorted by lo (for "j placed strictly below i": lo_j > hi_i) and by hi (for
    // "j placed strictly above i": hi_j < lo_i), with suffix / prefix sums of the weights.
    let mut by_lo: Vec<usize> = (0..n).collect();
    by_lo.sort_by_key(|&j| ranges[j].0);
    let mut by_hi: Vec<usize> = (0..n).collect();
    by_hi.sort_by_key(|&j| ranges[j].1);
    let mut suffix = vec![0.0; n + 1];
    for k in (0..n).rev() {
        suffix[k] = suffix[k + 1] + w[by_lo[k]];
    }
    let mut prefix = vec![0.0; n + 1];
    for k in 0..n {
        prefix[k + 1] = prefix[k] + w[by_hi[k]];
    }
    let total = prefix[n];
    (0..n)
        .map(|i| {
            let (lo, hi) = ranges[i];
            let below = suffix[by_lo.partition_point(|&j| ranges[j].0 <= hi)];
            let above = prefix[by_hi.partition_point(|&j| ranges[j].1 < lo)];
            let tied = total - below - above - w[i];
            below + 0.5 * tied
        })
        .collect()
}

/// `S` of a pair of place ranges.
#[inline]
pub fn outcome(a: (u32, u32), b: (u32, u32)) -> f64 {
    if a.1 < b.0 {
        1.0
    } else if a.0 > b.1 {
        0.0
    } else {
        0.5
    }
}

/// For each entry i, with `f_ij` Elo's win probability of i over j at this scale:
/// `(sum over j != i of w_j f_ij, sum over j != i of w_j f_ij (1 - f_ij))`. Contests of
/// [`TABULATE_FROM`] entries or more take the tabulated shared function (each sum with i's
/// own term within [`shared::RELATIVE`] of itself) unless `exact`; smaller ones, and all
/// with `exact`, are summed pair by pair. Without `variances` the tabulated path leaves the
/// second sum out (0).
pub fn logistic_sums(
    r: &[f64],
    w: &[f64],
    scale: f64,
    exact: bool,
    variances: bool,
) -> Vec<(f64, f64)> {
    let n = r.len();
    if n >= TABULATE_FROM && !exact {
        let s = vec![LN_10 / scale; n];
        let sums = shared::logistic_sums_at(
            r,
            &shared::Terms {
                m: r,
                s: &s,
                c: w,
                d: variances.then_some(w),
            },
        );
        // Less i's own term: f_ii = 1/2.
        return sums
            .iter()
            .zip(w)
            .map(|(&(s1, s2), &wi)| {
                let s2 = if variances { s2 - 0.25 * wi } else { 0.0 };
                (s1 - 0.5 * wi, s2)
            })
            .collect();
    }
    if n < FAST_FROM {
        return (0..n).map(|i| direct_sums(r, w, scale, i)).collect();
    }
    let top = r.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    let q: Vec<f64> = r
        .iter()
        .map(|x| ((x - top) * LN_10 / scale).exp())
        .collect();
    let one = |i: usize| {
        let (s1, s2) = ratio_sums(&q, w, q[i]);
        // Remove the self term (f_ii = 1/2).
        let (s1, s2) = (s1 - 0.5 * w[i], s2 - 0.25 * w[i]);
        if s1.is_finite() && s2.is_finite() {
            (s1, s2)
        } else {
            direct_sums(r, w, scale, i)
        }
    };
    super::base::map_indices(n, PARALLEL_FROM, one)
}

fn direct_sums(r: &[f64], w: &[f64], scale: f64, i: usize) -> (f64, f64) {
    let mut s1 = 0.0;
    let mut s2 = 0.0;
    for j in 0..r.len() {
        if j != i {
            let f = elo_win_probability(r[i] - r[j], scale);
            s1 += w[j] * f;
            s2 += w[j] * f * (1.0 - f);
        }
    }
    (s1, s2)
}

/// `sum_j w_j f_j` and `sum_j w_j f_j (1 - f_j)` with `f_j = qi / (qi + q_j)`, over all j, in
/// four independent lanes so that the compiler can vectorise it.
#[inline]
fn ratio_sums(q: &[f64], w: &[f64], qi: f64) -> (f64, f64) {
    let mut a = [0.0f64; 4];
    let mut b = [0.0f64; 4];
    let qc = q.chunks_exact(4);
    let wc = w.chunks_exact(4);
    let (qr, wr) = (qc.remainder(), wc.remainder());
    for (qs, ws) in qc.zip(wc) {
        for k in 0..4 {
            let f = qi / (qi + qs[k]);
            let wf = ws[k] * f;
            a[k] += wf;
            b[k] += wf * (1.0 - f);
        }
    }
    for (qj, wj) in qr.iter().zip(wr) {
        let f = qi / (qi + qj);
        a[0] += wj * f;
        b[0] += wj * f * (1.0 - f);
    }
    ((a[0] + a[1]) + (a[2] + a[3]), (b[0] + b[1]) + (b[2] + b[3]))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn outcome_sums_with_ties_match_the_pairwise_definition() {
        // places: A alone first, B and C tied second-third, D last.
        let ranges = [(0, 0), (1, 2), (1, 2), (3, 3)];
        let w = [1.0, 2.0, 3.0, 4.0];
        let got = outcome_sums(&ranges, &w);
        for i in 0..4 {
            let want: f64 = (0..4)
                .filter(|&j| j != i)
                .map(|j| w[j] * outcome(ranges[i], ranges[j]))
                .sum();
            assert!((got[i] - want).abs() < 1e-12, "{i}: {} vs {want}", got[i]);
        }
        assert_eq!(got[0], 9.0);
        assert_eq!(got[1], 0.5 * 3.0 + 4.0);
        assert_eq!(got[3], 0.0);
    }

    #[test]
    fn fast_logistic_sums_agree_with_the_direct_ones() {
        let n = 1500;
        let r: Vec<f64> = (0..n)
            .map(|i| 1500.0 + ((i * 7919) % 1000) as f64 - 500.0)
            .collect();
        let w: Vec<f64> = (0..n).map(|i| 0.5 + (i % 3) as f64 * 0.25).collect();
        let fast = logistic_sums(&r, &w, 400.0, true, true);
        for i in [0, 1, 17, 700, 1499] {
            let (d1, d2) = direct_sums(&r, &w, 400.0, i);
            assert!((fast[i].0 - d1).abs() < 1e-9 * d1.abs().max(1.0), "{i}");
            assert!((fast[i].1 - d2).abs() < 1e-9 * d2.abs().max(1.0), "{i}");
        }
    }

    #[test]
    fn extreme_ratings_do_not_overflow() {
        let mut r = vec![0.0; 100];
        r[0] = 1.0e6;
        r[1] = -1.0e6;
        let w = vec![1.0; 100];
        let s = logistic_sums(&r, &w, 400.0, true, true);
        assert!(s.iter().all(|(a, b)| a.is_finite() && b.is_finite()));
        assert!((s[0].0 - 99.0).abs() < 1e-9);
        assert!(s[1].0.abs() < 1e-9);
    }
}
