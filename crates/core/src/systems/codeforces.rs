//! The Codeforces rating system as published by Mike Mirzayanov in "Open Codeforces Rating
//! System" (codeforces.com/blog/entry/20762, updated October 2015) and the reference code
//! linked from it (`CodeforcesRatingCalculator`, codeforces.com/contest/1/submission/13861109).
//! Every formula below is from that post and its code unless marked otherwise.
//!
//! For a contest of n entries with ratings `r`:
//! - `P(a beats b) = 1 / (1 + 10^((r_b - r_a)/400))` (Elo's probability, `getEloWinProbability`);
//! - the seed (expected place) `seed_i = 1 + sum over j != i of P(j beats i)`;
//! - the rank as Codeforces assigns it: a tied group takes the worst place it covers, 1-based
//!   (`reassignRanks`), here `hi + 1`;
//! - `midRank_i = sqrt(rank_i * seed_i)`;
//! - the rating needed for that place, `needRating_i`: the largest integer R in [1, 8000) whose
//!   seed is at least `midRank_i`, found by the code's binary search (`getRatingToRank`:
//!   `left = 1`, `right = 8000`, `while right - left > 1`, returning `left`), the seed of R
//!   being `1 + sum over the other entrants j of P(j beats R)`;
//! - `delta_i = (needRating_i - r_i) / 2`, truncated toward zero as Java's integer division;
//! - "total sum should not be more than zero": `inc = -sum(delta) / n - 1` (integer division)
//!   is added to every delta;
//! - "sum of top-4*sqrt should be adjusted to zero": with the entries sorted by rating,
//!   best first, the first `min(n, 4 * round(sqrt(n)))` define `sum2`, and
//!   `inc2 = min(max(-sum2 / count, -10), 0)` is added to every delta.
//!
//! New players start at 1500 (`INITIAL_RATING` of the published code; `start`).
//!
//! The player's own term. The published code's `getSeed(contestants, rating)` sums over *all*
//! contestants, so the seed of a candidate rating R also counts the player's own pre-contest
//! rating as an opponent. For a winner far above the field this makes the needed rating
//! `r + 400 log10(2/eps)` (eps the seed's excess over 1), a gain that grows with the gap: a
//! runaway (replaying the Codeforces history from 1500 for everyone, the top rating passes
//! 10^15). Re-implementations that were checked against the site's actual rating changes
//! (TLE's `rating_calculator.py`, the Carrot extension, QAQrz/Codeforces-Rating-System) leave
//! the player out, which is the default here; `seed_counts_self = true` gives the 2015 code
//! literally (the seeds of the entries themselves never count the player in either form).
//!
//! Other departures, which leave the published numbers unchanged in the ordinary case:
//! - the search range [1, 8000) is widened (downwards or upwards, doubling) only when a
//!   needed rating would otherwise be cut off at its ends, which the published code would
//!   silently clamp: with ratings of the usual range nothing changes;
//! - an entry whose seed lies within 10^-9 of 1 (far above everyone) or of n (far below) is
//!   solved in a stable form of the same definitions (`stable_need`): in floating
//!   point `1 + P` is exactly 1 there, the needed rating had no solution and the widened search
//!   ran to some 10^15 (on two-player histories, where the geometric mean gives every expected
//!   win about +60 and gaps keep widening);
//! - ratings are real numbers (a team plays at its members' mean, which need not be an
//!   integer, as may `start`); deltas stay integers (truncated as Java does) so that
//!   individual ratings from an integer start stay integers, as on the site;
//! - the contest weight and `weight_multiplier` follow the generalisation of the Elo-MMR
//!   paper's reference implementation (EbTech/Elo-MMR, `multi-skill/src/systems/codeforces_sys.rs`):
//!   with w = `contest weight * weight_multiplier` the step is `w / (1 + w) * (needRating - r)`
//!   (1/2 for w = 1) and the performance scale is `scale / sqrt(contest weight)`. `scale` is
//!   that implementation's `beta` in Elo points, `scale = beta * ln 10 * sqrt 3 / pi` (its
//!   default beta is 400 here). With the defaults this is the published algorithm. That
//!   implementation otherwise differs from the published one, and is not followed there: it
//!   places a tie at the middle of its places, finds the performance as a real root rather
//!   than an integer, takes the expected place of a candidate rating as `1/2 + the sum over
//!   all entrants` (own old rating included: half-way between the two forms above), and
//!   applies neither sum adjustment.
//!
//! Computation. The published code is O(n^2) for the seeds and O(n^2 log 8000) for the
//! needed ratings; here both are exact but cheaper: ratings are grouped by value (Codeforces
//! ratings are integers, so a contest of 18,000 has a few thousand distinct ones), each
//! probability is `Q_j / (Q_j + Q_x)` with `Q = 10^(r/scale)` relative to the contest's best
//! rating (one division per pair), and `S(R) = sum over entrants of P(entrant beats R)` is
//! tabulated once per contest at every integer R that any needed rating can take; each
//! entry's binary search then reads the table and subtracts its own term. Seeds, table
//! entries and searches are computed independently per item (in parallel with rayon for
//! large contests), each in a fixed order, so results do not depend on the number of threads.
//!
//! A round of several contests: every contest's deltas are computed from the pre-round
//! ratings and summed per player. A team plays at its members' mean rating and every member
//! receives the team's delta. The performance reported is the needed rating (the mean over
//! the round's contests).
//!
//! # Example
//!
//! Three newcomers at 1500 finish first, second and third: needed ratings 1733, 1500 and
//! 1331, raw changes 116, 0 and -84, the adjustments -11 and 0: 1605, 1489 and 1405 (worked
//! by hand in the tests; `tests/reference/cf_tc_reference.py` agrees):
//!
//! ```
//! use rate_batch_core::rater::Rater;
//! use rate_batch_core::systems::codeforces::{Codeforces, CodeforcesParams};
//!
//! let mut r = Rater::new(Codeforces::new(CodeforcesParams::default())?);
//! r.rate_contest(&[("a", 1), ("b", 2), ("c", 3)])?;
//! let got: Vec<f64> = ["a", "b", "c"].map(|n| r.rating(n).unwrap().mean).to_vec();
//! assert_eq!(got, [1605.0, 1489.0, 1405.0]);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

use super::base::{
    ParamError, Rating, RatingSystem, check_range, fixed_system, map_indices, side_mean,
};
use crate::history::{Contest, PlayerId, Round};
use crate::numeric::elo_win_probability;
use serde::{Deserialize, Serialize};
use std::f64::consts::LN_10;

/// The published search range for the needed rating: `left = 1`, `right = 8000`.
pub const SEARCH_RANGE: (i64, i64) = (1, 8000);

/// Largest adjustment of the top group (`inc2 >= -10`).
const TOP_ADJUSTMENT_LIMIT: i64 = 10;

/// How many times the search range may double when a needed rating lies outside it.
const MAX_WIDENINGS: u32 = 40;

/// An entry whose seed lies within this of its bounds (1 for a runaway winner, n for a
/// hopeless last) is computed in the stable form ([`Codeforces::stable_need`]): `1 + sum P`
/// cannot resolve what lies beyond it in floating point.
const SATURATED: f64 = 1e-9;

/// How far beyond the field's ratings, in units of the scale, a stable search looks: the
/// logistic terms are zero in floating point beyond about 324.
const STABLE_REACH: f64 = 330.0;

/// Work lists at least this long are computed in parallel.
const PARALLEL_FROM: usize = 128;

/// The Codeforces system's parameters.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct CodeforcesParams {
    /// A new player's rating (1500 in the published code).
    pub start: f64,
    /// Elo's scale of the win probability (400).
    pub scale: f64,
    /// Elo-MMR's weight multiplier: the step is `w / (1 + w)` of the way to the needed rating,
    /// with `w = contest weight * weight_multiplier` (1 gives the published 1/2).
    pub weight_multiplier: f64,
    /// Count the player's own pre-contest rating in the seed of a candidate rating, as the
    /// published 2015 code literally does (see the module documentation: a runaway for
    /// dominant players).
    pub seed_counts_self: bool,
}

impl Default for CodeforcesParams {
    fn default() -> Self {
        Self {
            start: 1500.0,
            scale: 400.0,
            weight_multiplier: 1.0,
            seed_counts_self: false,
        }
    }
}

/// A player's state.
#[derive(Clone, Copy, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct CodeforcesPlayer {
    /// The rating.
    pub rating: f64,
    /// The needed rating of the last round (NaN before the first).
    pub performance: f64,
}

/// The Codeforces system.
#[derive(Clone, Debug)]
pub struct Codeforces {
    p: CodeforcesParams,
}

/// Everything one contest computes for its entries (in entry order).
#[derive(Clone, Debug, PartialEq)]
pub struct ContestChanges {
    /// The rank as Codeforces assigns it (1-based, a tie at its worst place).
    pub rank: Vec<f64>,
    /// `1 + sum over the others of P(other beats me)`.
    pub seed: Vec<f64>,
    /// The rating whose seed is `sqrt(rank * seed)`.
    pub need: Vec<f64>,
    /// `(need - rating) / 2`, truncated, before the two adjustments.
    pub raw: Vec<i64>,
    /// The first adjustment, `-sum(raw) / n - 1`.
    pub inc: i64,
    /// The second adjustment, from the top `min(n, 4 round(sqrt n))` by rating, in [-10, 0].
    pub inc2: i64,
    /// How many entries define the second adjustment.
    pub top_count: usize,
    /// The final change of each entry: `raw + inc + inc2`.
    pub delta: Vec<f64>,
}

/// The entrants of a contest grouped by rating, with `Q = 10^((r - top)/scale)`.
struct Field {
    /// Distinct ratings, ascending.
    r: Vec<f64>,
    /// How many entries have each rating.
    count: Vec<f64>,
    /// `Q` of each rating.
    q: Vec<f64>,
    top: f64,
    /// `ln 10 / scale`.
    k: f64,
}

impl Field {
    fn new(ratings: &[f64], scale: f64) -> Self {
        let mut sorted = ratings.to_vec();
        sorted.sort_by(f64::total_cmp);
        let (mut r, mut count) = (Vec::new(), Vec::new());
        for same in sorted.chunk_by(|a, b| a.total_cmp(b).is_eq()) {
            r.push(same[0]);
            count.push(same.len() as f64);
        }
        let top = *r.last().expect("a contest has entries");
        let k = LN_10 / scale;
        let q = r.iter().map(|x| ((x - top) * k).exp()).collect();
        Self {
            r,
            count,
            q,
            top,
            k,
        }
    }

    /// Index of a rating among the distinct ones.
    fn group(&self, x: f64) -> usize {
        self.r.partition_point(|y| y.total_cmp(&x).is_lt())
    }

    #[inline]
    fn q_of(&self, x: f64) -> f64 {
        ((x - self.top) * self.k).exp()
    }

    /// `S(x)`: the sum over all entrants of the probability that they beat a player rated x.
    fn s(&self, x: f64) -> f64 {
        let s = count_ratio_sum(&self.q, &self.count, self.q_of(x));
        if s.is_finite() {
            s
        } else {
            // Only when Q under- or overflows (ratings some 100,000 points apart).
            self.r
                .iter()
                .zip(&self.count)
                .map(|(r, c)| c * logistic(r - x, self.k))
                .sum()
        }
    }

    /// Over the entrants (less one of group `skip`, if given), in logarithms: the log of the
    /// sum of the probabilities that they beat a player rated x, and the log of the sum of
    /// the probabilities that he beats them. Each is summed from its own terms, in logs, so
    /// that neither is lost however far apart the ratings are (`1 - p` rounds to 0 beyond a
    /// gap of about 6,400 points, `p` itself underflows beyond about 120,000).
    fn log_tails(&self, x: f64, skip: Option<usize>) -> (f64, f64) {
        let terms = |sign: f64| {
            let lw = |k: usize| {
                let c = if skip == Some(k) {
                    self.count[k] - 1.0
                } else {
                    self.count[k]
                };
                (c > 0.0).then(|| c.ln() + ln_logistic(sign * (self.r[k] - x) * self.k))
            };
            let top = (0..self.r.len())
                .filter_map(lw)
                .fold(f64::NEG_INFINITY, f64::max);
            if top == f64::NEG_INFINITY {
                return top;
            }
            let sum: f64 = (0..self.r.len())
                .filter_map(lw)
                .map(|v| (v - top).exp())
                .sum();
            top + sum.ln()
        };
        (terms(1.0), terms(-1.0))
    }

    /// The probability that the entry of group g beats a player rated x.
    fn own(&self, g: usize, x: f64) -> f64 {
        let (qg, qx) = (self.q[g], self.q_of(x));
        let p = qg / (qg + qx);
        if p.is_finite() {
            p
        } else {
            logistic(self.r[g] - x, self.k)
        }
    }
}

/// `1 / (1 + e^(-diff k))`, Elo's probability, with the exponent kept finite so that far-apart
/// ratings give 0 or 1 without the slow overflow path of `exp`.
#[inline]
fn logistic(diff: f64, k: f64) -> f64 {
    1.0 / (1.0 + (-diff * k).clamp(-745.0, 709.0).exp())
}

/// `ln(1 / (1 + e^-y))` for any y, without overflow or loss.
fn ln_logistic(y: f64) -> f64 {
    if y >= 0.0 {
        -(-y).exp().ln_1p()
    } else {
        y - y.exp().ln_1p()
    }
}

/// `sum_k c_k q_k / (q_k + qx)` in four independent lanes (so that it vectorises), in a fixed
/// order.
#[inline]
fn count_ratio_sum(q: &[f64], c: &[f64], qx: f64) -> f64 {
    let mut acc = [0.0f64; 4];
    let qc = q.chunks_exact(4);
    let cc = c.chunks_exact(4);
    let (qr, cr) = (qc.remainder(), cc.remainder());
    for (qs, cs) in qc.zip(cc) {
        for k in 0..4 {
            acc[k] += cs[k] * qs[k] / (qs[k] + qx);
        }
    }
    for (qj, cj) in qr.iter().zip(cr) {
        acc[0] += cj * qj / (qj + qx);
    }
    (acc[0] + acc[1]) + (acc[2] + acc[3])
}

/// The published binary search: the largest R in [lo, hi) for which `pred` holds, or `lo` when
/// it holds nowhere (`pred` must be monotone: true, then false).
fn search(lo: i64, hi: i64, pred: impl Fn(i64) -> bool) -> i64 {
    let (mut left, mut right) = (lo, hi);
    while right - left > 1 {
        let mid = left + (right - left) / 2;
        if pred(mid) {
            left = mid;
        } else {
            right = mid;
        }
    }
    left
}

fn map_range<T: Send>(n: usize, f: impl Fn(usize) -> T + Sync + Send) -> Vec<T> {
    map_indices(n, PARALLEL_FROM, f)
}

impl Codeforces {
    /// Checks the parameters.
    pub fn new(p: CodeforcesParams) -> Result<Self, ParamError> {
        check_range("start", p.start, -1e9, 1e9)?;
        check_range("scale", p.scale, 1e-6, f64::MAX)?;
        check_range("weight_multiplier", p.weight_multiplier, 1e-12, f64::MAX)?;
        Ok(Self { p })
    }

    /// Rates one contest from the entries' ratings and 0-based place ranges.
    pub fn contest_changes(
        &self,
        ratings: &[f64],
        ranges: &[(u32, u32)],
        weight: f64,
    ) -> ContestChanges {
        let n = ratings.len();
        let scale = self.p.scale / weight.sqrt();
        let w = weight * self.p.weight_multiplier;
        let step = w / (1.0 + w);
        let field = Field::new(ratings, scale);
        let groups: Vec<usize> = ratings.iter().map(|&r| field.group(r)).collect();

        // Seeds: 1 + S(r_i) - P(i beats i), the last exactly 1/2.
        let group_seed = map_range(field.r.len(), |g| 0.5 + field.s(field.r[g]));
        let saturated: Vec<bool> = group_seed
            .iter()
            .map(|&s| s - 1.0 < SATURATED || n as f64 - s < SATURATED)
            .collect();
        let mut seed: Vec<f64> = groups.iter().map(|&g| group_seed[g]).collect();
        let rank: Vec<f64> = ranges.iter().map(|&(_, hi)| (hi + 1) as f64).collect();
        let mid: Vec<f64> = (0..n).map(|i| (rank[i] * seed[i]).sqrt()).collect();
        let skip: Vec<bool> = groups.iter().map(|&g| saturated[g]).collect();

        let mut need = self.needed_ratings(&field, &groups, &mid, &skip);
        for i in (0..n).filter(|&i| skip[i]) {
            (seed[i], need[i]) = self.stable_need(&field, groups[i], rank[i]);
        }
        let raw: Vec<i64> = (0..n)
            .map(|i| (step * (need[i] - ratings[i])).trunc() as i64)
            .collect();

        // "Total sum should not be more than zero." (Summed wide: no overflow, whatever the
        // ratings.)
        let sum: i128 = raw.iter().map(|&d| d as i128).sum();
        let inc = (-sum / n as i128 - 1).clamp(i64::MIN as i128, i64::MAX as i128) as i64;
        // "Sum of top-4*sqrt should be adjusted to zero": best rating first; equal ratings in
        // standings order, as the published code's stable sort leaves them.
        let mut by_rating: Vec<usize> = (0..n).collect();
        by_rating.sort_by(|&a, &b| {
            ratings[b]
                .total_cmp(&ratings[a])
                .then(ranges[a].0.cmp(&ranges[b].0))
        });
        let top_count = n.min(4 * (n as f64).sqrt().round() as usize);
        let sum2: i128 = by_rating[..top_count]
            .iter()
            .map(|&i| raw[i] as i128 + inc as i128)
            .sum();
        let inc2 = (-sum2 / top_count as i128).clamp(-TOP_ADJUSTMENT_LIMIT as i128, 0) as i64;
        let delta = raw
            .iter()
            .map(|&d| (d as i128 + inc as i128 + inc2 as i128) as f64)
            .collect();
        ContestChanges {
            rank,
            seed,
            need,
            raw,
            inc,
            inc2,
            top_count,
            delta,
        }
    }

    /// The seed and needed rating of an entry of group `g` whose seed is saturated (within
    /// [`SATURATED`] of 1 or of n): the same definitions as the published code's, evaluated in
    /// a form that floating point can resolve. With `B` the sum of the others' probabilities
    /// of beating the entry (`seed = 1 + B`), `A` that of the entry beating them (`B = n - 1 -
    /// A`), `m = sqrt(rank seed)` and N the terms of the candidate's seed (n - 1, or n when it
    /// counts the player himself), the published test `1 + up(R) >= m` is `up(R) >= m - 1 =
    /// (rank - 1 + rank B) / (m + 1)`, and equally `down(R) <= N + 1 - m =
    /// ((N + 1)^2 - rank n + rank A) / (N + 1 + m)`, with `up + down = N`. Both sums and both targets are taken in
    /// logarithms from their own terms, and the form whose target is the smaller half is
    /// searched. Without this a winner far above the field has `seed == 1` exactly and its
    /// needed rating is unbounded: the search widened until it reached some 10^15 (the
    /// runaway on two-player histories).
    fn stable_need(&self, field: &Field, g: usize, rank: f64) -> (f64, f64) {
        let n: f64 = field.count.iter().sum();
        let (log_b, log_a) = field.log_tails(field.r[g], Some(g));
        let b = log_b.exp();
        let seed = 1.0 + b;
        let m = (rank * seed).sqrt();
        let skip = (!self.p.seed_counts_self).then_some(g);
        let terms = if skip.is_some() { n - 1.0 } else { n };
        let log_up = if rank > 1.0 {
            (rank - 1.0 + rank * b).ln() - (m + 1.0).ln()
        } else {
            log_b - (m + 1.0).ln()
        };
        let exact_part = (terms + 1.0).powi(2) - rank * n;
        let log_down = if exact_part > 0.0 {
            (exact_part + rank * log_a.exp()).ln() - (terms + 1.0 + m).ln()
        } else {
            rank.ln() + log_a - (terms + 1.0 + m).ln()
        };
        // The result lies within the field's span plus the reach of a logistic term beyond
        // it (a target of e^-745 at the most).
        let span = field.top - field.r[0];
        let reach = span + STABLE_REACH * LN_10 / field.k;
        let lo = (field.r[0] - reach).floor() as i64;
        let hi = (field.top + reach).ceil() as i64;
        let need = if log_up <= (terms / 2.0).ln() {
            search(lo, hi, |r| field.log_tails(r as f64, skip).0 >= log_up)
        } else {
            search(lo, hi, |r| field.log_tails(r as f64, skip).1 <= log_down)
        };
        (seed, need as f64)
    }

    /// The needed rating of every entry not `skip`ped (NaN for those): the published search
    /// over [1, 8000) (widened when a result would be cut off), reading a table of `S` over the
    /// integers any result can take.
    fn needed_ratings(
        &self,
        field: &Field,
        groups: &[usize],
        mid: &[f64],
        skip: &[bool],
    ) -> Vec<f64> {
        let exclude = !self.p.seed_counts_self;
        if skip.iter().all(|&s| s) {
            return vec![f64::NAN; mid.len()];
        }
        let (m_min, m_max) = mid
            .iter()
            .zip(skip)
            .filter(|(_, s)| !**s)
            .fold((f64::INFINITY, f64::NEG_INFINITY), |(a, b), (&m, _)| {
                (a.min(m), b.max(m))
            });
        // Bounds of every entry's seed function f_i(R): without the own term S < f_i < 1 + S;
        // with it (the 2015 code) f_i = 1 + S.
        let f_low = |r: i64| {
            let s = field.s(r as f64);
            if exclude { s } else { 1.0 + s }
        };
        let f_high = |r: i64| 1.0 + field.s(r as f64);
        let (mut lo, mut hi) = SEARCH_RANGE;
        for _ in 0..MAX_WIDENINGS {
            if f_low(lo) >= m_max {
                break;
            }
            lo -= hi - lo;
        }
        for _ in 0..MAX_WIDENINGS {
            if f_high(hi - 1) < m_min {
                break;
            }
            hi += hi - lo;
        }
        // Every result lies in [first, last].
        let first = search(lo, hi, |r| f_low(r) >= m_max);
        let last = search(lo, hi, |r| f_high(r) >= m_min);
        let span = (last - first + 1) as usize;
        let bits = 64 - (span as u64).leading_zeros() as usize;
        let table: Option<Vec<f64>> = (span <= mid.len() * (bits + 1))
            .then(|| map_range(span, |k| field.s((first + k as i64) as f64)));
        let s_at = |r: i64| match &table {
            Some(t) => t[(r - first) as usize],
            None => field.s(r as f64),
        };
        map_range(mid.len(), |i| {
            if skip[i] {
                return f64::NAN;
            }
            let m = mid[i];
            let g = groups[i];
            let seed_at = |r: i64, s: f64| {
                if exclude {
                    1.0 + s - field.own(g, r as f64)
                } else {
                    1.0 + s
                }
            };
            let found = if seed_at(first, s_at(first)) >= m {
                search(first, last + 1, |r| seed_at(r, s_at(r)) >= m)
            } else {
                // Not reached unless widening stopped early or rounding made the own-term
                // bound inexact: the published search over the whole range.
                search(lo, hi, |r| seed_at(r, field.s(r as f64)) >= m)
            };
            found as f64
        })
    }

    /// The changes of one contest from the players' current ratings.
    fn contest(&self, players: &[CodeforcesPlayer], contest: &Contest) -> ContestChanges {
        let ratings: Vec<f64> = contest
            .entries()
            .map(|e| side_mean(players, e.players, |p| p.rating))
            .collect();
        let ranges: Vec<(u32, u32)> = contest.entries().map(|e| (e.lo, e.hi)).collect();
        self.contest_changes(&ratings, &ranges, contest.weight())
    }
}

impl RatingSystem for Codeforces {
    type Player = CodeforcesPlayer;
    fixed_system!(Codeforces, CodeforcesParams);

    fn new_player(&self) -> CodeforcesPlayer {
        self.seeded(self.p.start, None, None)
    }

    fn seeded(&self, rating: f64, _: Option<f64>, _: Option<f64>) -> CodeforcesPlayer {
        CodeforcesPlayer {
            rating,
            performance: f64::NAN,
        }
    }

    fn rating(&self, p: &CodeforcesPlayer) -> Rating {
        Rating::new(p.rating, None)
    }

    fn update(&self, round: Round<'_>, players: &mut [CodeforcesPlayer]) {
        // Every contest from the pre-round ratings, then the deltas summed per player (and
        // the needed ratings averaged).
        let mut changes: Vec<(PlayerId, f64, f64)> = Vec::new();
        for contest in round.contests() {
            let ch = self.contest(players, &contest);
            for (k, e) in contest.entries().enumerate() {
                changes.extend(e.players.iter().map(|&p| (p, ch.delta[k], ch.need[k])));
            }
        }
        changes.sort_by_key(|c| c.0);
        for same in changes.chunk_by(|a, b| a.0 == b.0) {
            let s = &mut players[same[0].0 as usize];
            s.rating += same.iter().map(|c| c.1).sum::<f64>();
            s.performance = same.iter().map(|c| c.2).sum::<f64>() / same.len() as f64;
        }
    }

    fn win_probability(
        &self,
        players: &[CodeforcesPlayer],
        a: &[PlayerId],
        b: &[PlayerId],
    ) -> Option<f64> {
        let ra = side_mean(players, a, |p| p.rating);
        let rb = side_mean(players, b, |p| p.rating);
        Some(elo_win_probability(ra - rb, self.p.scale))
    }

    fn performance(&self, p: &CodeforcesPlayer) -> Option<f64> {
        p.performance.is_finite().then_some(p.performance)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::history::{HistoryBuilder, SourceInfo};

    fn cf(f: impl FnOnce(&mut CodeforcesParams)) -> Codeforces {
        let mut p = CodeforcesParams::default();
        f(&mut p);
        Codeforces::new(p).unwrap()
    }

    /// Places without ties, in the given order (0 = first).
    fn places(order: &[u32]) -> Vec<(u32, u32)> {
        order.iter().map(|&p| (p, p)).collect()
    }

    /// The published algorithm literally: every seed and every step of every binary search
    /// summed directly over all contestants with Elo's formula, O(n^2 log 8000).
    fn naive_needs(ratings: &[f64], ranges: &[(u32, u32)], counts_self: bool) -> Vec<f64> {
        let n = ratings.len();
        (0..n)
            .map(|i| {
                let seed = 1.0
                    + (0..n)
                        .filter(|&j| j != i)
                        .map(|j| elo_win_probability(ratings[j] - ratings[i], 400.0))
                        .sum::<f64>();
                let mid = ((ranges[i].1 + 1) as f64 * seed).sqrt();
                let seed_at = |r: i64| {
                    1.0 + (0..n)
                        .filter(|&j| counts_self || j != i)
                        .map(|j| elo_win_probability(ratings[j] - r as f64, 400.0))
                        .sum::<f64>()
                };
                search(1, 8000, |r| seed_at(r) >= mid) as f64
            })
            .collect()
    }

    /// A contest of `n` entries with ratings and places spread deterministically.
    fn spread_contest(n: usize, distinct: usize) -> (Vec<f64>, Vec<(u32, u32)>) {
        let ratings: Vec<f64> = (0..n)
            .map(|i| 1200.0 + ((i * 7919) % distinct) as f64 * 1500.0 / distinct as f64)
            .map(f64::round)
            .collect();
        // Places: mostly by rating with noise, the last fifth tied.
        let mut by: Vec<usize> = (0..n).collect();
        by.sort_by_key(|&i| {
            let noise = ((i * 104_729) % 600) as f64;
            (-(ratings[i] + noise)) as i64
        });
        let mut ranges = vec![(0, 0); n];
        let tied_from = n - n / 5;
        for (place, &i) in by.iter().enumerate() {
            ranges[i] = if place >= tied_from {
                (tied_from as u32, n as u32 - 1)
            } else {
                (place as u32, place as u32)
            };
        }
        (ratings, ranges)
    }

    #[test]
    fn three_newcomers_by_hand() {
        // All at 1500: each seed is 1 + 2 * 1/2 = 2; ranks 1, 2, 3; midRank sqrt 2, 2, sqrt 6.
        // The seed of a candidate R counts the two others: 1 + 2 / (1 + 10^((R - 1500)/400)):
        //   >= sqrt 2  <=>  R <= 1500 + 400 log10(2/0.41421 - 1) = 1733.6  -> 1733
        //   >= 2       <=>  R <= 1500 + 400 log10(1)             = 1500    -> 1500
        //   >= sqrt 6  <=>  R <= 1500 + 400 log10(2/1.44949 - 1) = 1331.7  -> 1331
        // raw = trunc((need - 1500) / 2) = 116, 0, -84 (sum 32); inc = -(32/3) - 1 = -11;
        // top min(3, 4 round(sqrt 3)) = 3: sum2 = 32 - 33 = -1, inc2 = min(max(0, -10), 0) = 0.
        // Deltas 105, -11, -95. (tests/reference/cf_tc_reference.py agrees.)
        let h =
            crate::systems::allpairs::test_util::contest(&[("a", 0, 0), ("b", 1, 1), ("c", 2, 2)]);
        let sys = cf(|_| {});
        let mut players = vec![sys.new_player(); 3];
        sys.update(Round::new(&h, &[0]), &mut players);
        let got: Vec<f64> = players.iter().map(|p| p.rating).collect();
        assert_eq!(got, [1605.0, 1489.0, 1405.0]);
        let perf: Vec<f64> = players.iter().map(|p| p.performance).collect();
        assert_eq!(perf, [1733.0, 1500.0, 1331.0]);

        let ch = sys.contest_changes(&[1500.0; 3], &places(&[0, 1, 2]), 1.0);
        assert_eq!(ch.seed, [2.0, 2.0, 2.0]);
        assert_eq!(ch.raw, [116, 0, -84]);
        assert_eq!((ch.inc, ch.inc2, ch.top_count), (-11, 0, 3));

        // The 2015 code's getSeed counts all three: 1 + 3 / (1 + 10^x):
        //   R <= 1500 + 400 log10(3/0.41421 - 1) = 1818.1, 1500 + 400 log10 2 = 1620.4,
        //   1500 + 400 log10(3/1.44949 - 1) = 1511.7; raw 159, 60, 5; inc = -(224/3) - 1 = -75.
        let ch = cf(|p| p.seed_counts_self = true).contest_changes(
            &[1500.0; 3],
            &places(&[0, 1, 2]),
            1.0,
        );
        assert_eq!(ch.need, [1818.0, 1620.0, 1511.0]);
        assert_eq!(ch.raw, [159, 60, 5]);
        assert_eq!((ch.inc, ch.inc2), (-75, 0));
        assert_eq!(ch.delta, [84.0, -15.0, -70.0]);
    }

    #[test]
    fn three_rated_players_by_hand() {
        // Ratings 2000, 1600, 1400 finishing 2nd, 3rd, 1st. P(a beats b) = 1/(1 + 10^((b-a)/400)):
        //   seed(2000) = 1 + P(1600>2000) + P(1400>2000) = 1 + 0.090909 + 0.030653 = 1.121563
        //   seed(1600) = 1 + 0.909091 + 0.240253 = 2.149344
        //   seed(1400) = 1 + 0.969347 + 0.759747 = 2.729093
        // midRank = sqrt(2 * 1.121563) = 1.49771, sqrt(3 * 2.149344) = 2.53929,
        // sqrt(1 * 2.729093) = 1.65200. The 2000's needed R: 1 + P(1600>R) + P(1400>R) >= 1.49771
        // holds up to R = 1706; likewise 1355 and 1968. raw -147, -122, 284 (sum 15);
        // inc = -(15/3) - 1 = -6; sum2 over all 3 = 15 - 18 = -3, inc2 = min(max(1, -10), 0) = 0.
        let sys = cf(|_| {});
        let ratings = [2000.0, 1600.0, 1400.0];
        let ch = sys.contest_changes(&ratings, &places(&[1, 2, 0]), 1.0);
        let seeds = [1.1215625209408064, 2.149343982442951, 2.729093496616242];
        for (got, want) in ch.seed.iter().zip(seeds) {
            assert!((got - want).abs() < 1e-12, "{got} vs {want}");
        }
        assert_eq!(ch.rank, [2.0, 3.0, 1.0]);
        assert_eq!(ch.need, [1706.0, 1355.0, 1968.0]);
        assert_eq!(ch.raw, [-147, -122, 284]);
        assert_eq!((ch.inc, ch.inc2), (-6, 0));
        assert_eq!(ch.delta, [-153.0, -128.0, 278.0]);

        // The 2015 code (own term counted): needs 2062, 1637, 1985; raw 31, 18, 292;
        // inc = -(341/3) - 1 = -114; new ratings 1917, 1504, 1578.
        let published = cf(|p| p.seed_counts_self = true);
        let ch = published.contest_changes(&ratings, &places(&[1, 2, 0]), 1.0);
        assert_eq!(ch.need, [2062.0, 1637.0, 1985.0]);
        assert_eq!(ch.raw, [31, 18, 292]);
        assert_eq!((ch.inc, ch.inc2), (-114, 0));
        assert_eq!(ch.delta, [-83.0, -96.0, 178.0]);

        // The two who share 2nd-3rd both get rank 3 (the worst place of the group): the
        // 2000's midRank becomes sqrt(3 * 1.121563) = 1.83431; 2015 code: need 1904, raw -48,
        // inc = -(262/3) - 1 = -88; new ratings 1864, 1530, 1604.
        let ch = published.contest_changes(&ratings, &[(1, 2), (1, 2), (0, 0)], 1.0);
        assert_eq!(ch.rank, [3.0, 3.0, 1.0]);
        assert_eq!(ch.need, [1904.0, 1637.0, 1985.0]);
        assert_eq!(ch.delta, [-136.0, -70.0, 204.0]);
        let ch = sys.contest_changes(&ratings, &[(1, 2), (1, 2), (0, 0)], 1.0);
        assert_eq!(ch.rank, [3.0, 3.0, 1.0]);
        assert!(ch.need[0] < 1706.0);
    }

    #[test]
    fn the_published_code_runs_away_with_a_dominant_winner() {
        // One player 2500 points above 300 others wins: the 2015 code's own term makes the
        // needed rating 5629 (+787 after the adjustments); without it 4120 (+36).
        // (tests/reference/cf_tc_reference.py.)
        let mut ratings = vec![1500.0; 301];
        ratings[0] = 4000.0;
        let order: Vec<u32> = (0..301).collect();
        let ch = cf(|p| p.seed_counts_self = true).contest_changes(&ratings, &places(&order), 1.0);
        assert_eq!((ch.need[0], ch.delta[0]), (5629.0, 787.0));
        let ch = cf(|_| {}).contest_changes(&ratings, &places(&order), 1.0);
        assert_eq!((ch.need[0], ch.delta[0]), (4120.0, 36.0));
    }

    #[test]
    fn far_apart_ratings_are_rated_as_the_formulas_say_not_run_away() {
        // Two players 10,000 points apart, the favourite wins. By the published definitions,
        // with B = P(loser beats winner) = 1 / (1 + 10^25): seed 1 + B, midRank sqrt(1 + B), and
        // the needed rating is the largest R with P(loser beats R) >= sqrt(1 + B) - 1 ~ B / 2,
        // i.e. R <= winner + 400 log10(2) = winner + 120.4: 11120. For the loser (rank 2, A
        // = B): P(R beats winner) <= A / 2, R <= loser - 120.4: 879. raw 60 and -60 (sum 0),
        // inc -1, inc2 0: +59 / -61. In floating point 1 + B == 1, and the published search
        // (widened here beyond its [1, 8000)) ran away to some 10^15.
        for counts_self in [false, true] {
            let sys = cf(|p| p.seed_counts_self = counts_self);
            let ch = sys.contest_changes(&[11_000.0, 1000.0], &places(&[0, 1]), 1.0);
            if counts_self {
                // The 2015 code's own term (above): the winner needs 400 log10(2 / B) more,
                // 10,120 here, and the loser about the middle; large, but the formulas' own.
                assert_eq!(ch.need, [21_120.0, 5999.0]);
            } else {
                assert_eq!(ch.need, [11_120.0, 879.0]);
                assert_eq!(ch.delta, [59.0, -61.0]);
            }
        }
        // Beyond where the probabilities themselves underflow (300,000 points apart): the
        // same changes, computed in logarithms.
        let ch = cf(|_| {}).contest_changes(&[301_000.0, 1000.0], &places(&[0, 1]), 1.0);
        assert_eq!(ch.need, [301_120.0, 879.0]);
        assert_eq!(ch.delta, [59.0, -61.0]);
        // An upset across 10,000 points: the formulas' large swing, but a finite one.
        let ch = cf(|_| {}).contest_changes(&[11_000.0, 1000.0], &places(&[1, 0]), 1.0);
        assert!(
            ch.delta[1] > 4000.0 && ch.delta[1] < 10_000.0,
            "{:?}",
            ch.delta
        );
        // A field: a runaway top and a hopeless last among ordinary players stay within reach.
        let mut ratings = vec![1500.0; 50];
        ratings[0] = 90_000.0;
        ratings[49] = -90_000.0;
        let order: Vec<u32> = (0..50).collect();
        let ch = cf(|_| {}).contest_changes(&ratings, &places(&order), 1.0);
        assert!((90_000.0..90_300.0).contains(&ch.need[0]), "{}", ch.need[0]);
        assert!(
            (-90_300.0..-90_000.0).contains(&ch.need[49]),
            "{}",
            ch.need[49]
        );
    }

    #[test]
    fn the_two_adjustments() {
        // 100 entrants, 1500 but for 40 at 1510 placed 21st to 60th, in that order
        // (reference: tests/reference/cf_tc_reference.py): sum(raw) = 1305,
        // inc = -(1305/100) - 1 = -14, top 40 (the 1510s) -> inc2 = -4.
        let sys = cf(|_| {});
        let mut ratings = vec![1500.0; 100];
        ratings[20..60].fill(1510.0);
        let order: Vec<u32> = (0..100).collect();
        let ch = sys.contest_changes(&ratings, &places(&order), 1.0);
        assert_eq!(ch.raw.iter().sum::<i64>(), 1305);
        assert_eq!((ch.inc, ch.inc2, ch.top_count), (-14, -4, 40));
        let picks: Vec<f64> = [0, 19, 20, 59, 60, 99]
            .iter()
            .map(|&i| ch.delta[i])
            .collect();
        assert_eq!(picks, [219.0, 52.0, 46.0, -35.0, -35.0, -95.0]);
        assert_eq!(ch.delta.iter().sum::<f64>(), -495.0);

        // The 40 at 1600 placed first: their gains are large and inc2 stops at -10.
        let mut ratings = vec![1500.0; 100];
        ratings[..40].fill(1600.0);
        let ch = sys.contest_changes(&ratings, &places(&order), 1.0);
        assert_eq!((ch.inc, ch.inc2), (-11, -10));
        let picks: Vec<f64> = [0, 39, 40, 99].iter().map(|&i| ch.delta[i]).collect();
        assert_eq!(picks, [198.0, -18.0, 8.0, -96.0]);

        // On any contest: after the first adjustment the total is at most -1 (the mean at most
        // -1/n, and at most -1 when the raw sum was negative); the second is within [-10, 0],
        // so the total stays negative.
        for (n, distinct) in [(2, 2), (3, 3), (57, 20), (400, 150), (1000, 1000)] {
            let (ratings, ranges) = spread_contest(n, distinct);
            let ch = sys.contest_changes(&ratings, &ranges, 1.0);
            let raw_sum: i64 = ch.raw.iter().sum();
            let after_first = raw_sum + n as i64 * ch.inc;
            assert!(after_first <= -1, "n {n}: {after_first}");
            if raw_sum < 0 {
                assert!(after_first <= -(n as i64), "n {n}");
            }
            assert!((-10..=0).contains(&ch.inc2), "n {n}: {}", ch.inc2);
            let total: f64 = ch.delta.iter().sum();
            assert_eq!(total, (after_first + n as i64 * ch.inc2) as f64);
            assert!(total / n as f64 <= -1.0 / n as f64);
        }
    }

    #[test]
    fn a_better_place_never_rates_lower() {
        let sys = cf(|_| {});
        // Few distinct ratings, so that many pairs start equal.
        let (ratings, ranges) = spread_contest(600, 12);
        let ch = sys.contest_changes(&ratings, &ranges, 1.0);
        let new: Vec<f64> = ratings.iter().zip(&ch.delta).map(|(r, d)| r + d).collect();
        let mut equal_pairs = 0;
        for i in 0..ratings.len() {
            for j in 0..ratings.len() {
                if ranges[i].1 < ranges[j].0 {
                    // The published code's own checks (validateDeltas): placed better and rated
                    // higher stays at least as high; placed better and rated lower gains at least
                    // as much.
                    if ratings[i] >= ratings[j] {
                        assert!(new[i] >= new[j], "{i} {j}");
                        equal_pairs += usize::from(ratings[i] == ratings[j]);
                    } else {
                        assert!(ch.delta[i] >= ch.delta[j], "{i} {j}");
                    }
                }
            }
        }
        assert!(equal_pairs > 1000, "{equal_pairs}");
    }

    #[test]
    fn fast_needs_equal_the_published_search() {
        for counts_self in [false, true] {
            let sys = cf(|p| p.seed_counts_self = counts_self);
            for (n, distinct) in [(5, 5), (64, 30), (300, 300)] {
                let (ratings, ranges) = spread_contest(n, distinct);
                let ch = sys.contest_changes(&ratings, &ranges, 1.0);
                assert_eq!(
                    ch.need,
                    naive_needs(&ratings, &ranges, counts_self),
                    "n {n}"
                );
            }
        }
    }

    #[test]
    fn the_search_range_widens_only_when_needed() {
        let sys = cf(|_| {});
        // Around 7,900 the winner needs more than 7999, where the published search stops.
        let ch = sys.contest_changes(&[7900.0, 7800.0, 7700.0], &places(&[0, 1, 2]), 1.0);
        assert_eq!(ch.need[0], 8081.0);
        assert!(ch.need[0] > 7999.0, "{:?}", ch.need);
        // The seed of the result (the two others) is at least midRank, one more is below it.
        let seed = |r: f64| {
            1.0 + [7800.0, 7700.0]
                .iter()
                .map(|x| elo_win_probability(x - r, 400.0))
                .sum::<f64>()
        };
        let mid = (ch.rank[0] * ch.seed[0]).sqrt();
        assert!(seed(ch.need[0]) >= mid && seed(ch.need[0] + 1.0) < mid);
        // Likewise below 1.
        let ch = sys.contest_changes(&[0.0, -100.0, 50.0], &places(&[1, 2, 0]), 1.0);
        assert!(ch.need[1] < 1.0, "{:?}", ch.need);
        // Ordinary ratings: exactly the published range.
        let (ratings, ranges) = spread_contest(200, 200);
        let ch = sys.contest_changes(&ratings, &ranges, 1.0);
        assert!(ch.need.iter().all(|&r| (1.0..8000.0).contains(&r)));
    }

    #[test]
    fn results_do_not_depend_on_the_thread_count() {
        let sys = cf(|_| {});
        let (ratings, ranges) = spread_contest(700, 700);
        let run = |threads: usize| {
            rayon::ThreadPoolBuilder::new()
                .num_threads(threads)
                .build()
                .unwrap()
                .install(|| sys.contest_changes(&ratings, &ranges, 1.0))
        };
        let (one, two) = (run(1), run(2));
        let bits = |v: &[f64]| v.iter().map(|x| x.to_bits()).collect::<Vec<_>>();
        assert_eq!(bits(&one.seed), bits(&two.seed));
        assert_eq!(bits(&one.need), bits(&two.need));
        assert_eq!(one, two);
    }

    #[test]
    fn teams_and_rounds_of_several_contests() {
        // Contest 0: team {a, b} (1600 and 1400: plays at 1500) first, c second, d third.
        // Contest 1, same round: c beats a.
        let mut b = HistoryBuilder::new();
        let ids: Vec<u32> = ["a", "b", "c", "d"].iter().map(|n| b.player(n)).collect();
        b.begin_contest(0, 1.0, None, None);
        b.add_entry(&ids[0..2], 0, 0, None);
        b.add_entry(&ids[2..3], 1, 1, None);
        b.add_entry(&ids[3..4], 2, 2, None);
        b.end_contest().unwrap();
        b.begin_contest(0, 1.0, None, None);
        b.add_entry(&ids[2..3], 0, 0, None);
        b.add_entry(&ids[0..1], 1, 1, None);
        b.end_contest().unwrap();
        let h = b.finish(SourceInfo::default());
        let sys = cf(|_| {});
        let start = |r| CodeforcesPlayer {
            rating: r,
            performance: f64::NAN,
        };
        let before = vec![start(1600.0), start(1400.0), start(1500.0), start(1500.0)];
        let first = sys.contest_changes(&[1500.0; 3], &places(&[0, 1, 2]), 1.0);
        let second = sys.contest_changes(&[1500.0, 1600.0], &places(&[0, 1]), 1.0);
        let mut players = before.clone();
        sys.update(Round::new(&h, &[0, 1]), &mut players);
        assert_eq!(players[0].rating, 1600.0 + first.delta[0] + second.delta[1]);
        assert_eq!(players[1].rating, 1400.0 + first.delta[0]);
        assert_eq!(players[2].rating, 1500.0 + first.delta[1] + second.delta[0]);
        assert_eq!(players[3].rating, 1500.0 + first.delta[2]);
        assert_eq!(
            players[2].performance,
            (first.need[1] + second.need[0]) / 2.0
        );
        // The same contest alone is the example of three newcomers.
        let mut alone = before;
        sys.update(Round::new(&h, &[0]), &mut alone);
        assert_eq!(alone[0].rating - 1600.0, 105.0);
        assert_eq!(alone[1].rating - 1400.0, 105.0);
    }

    #[test]
    fn win_probability_is_elo() {
        let sys = cf(|_| {});
        let players = [
            CodeforcesPlayer {
                rating: 1900.0,
                performance: f64::NAN,
            },
            CodeforcesPlayer {
                rating: 1500.0,
                performance: f64::NAN,
            },
        ];
        let p = sys.win_probability(&players, &[0], &[1]).unwrap();
        assert!((p - 10.0 / 11.0).abs() < 1e-15);
        assert_eq!(sys.new_player().rating, 1500.0);
        assert_eq!(sys.rating(&players[0]).display, 1900.0);
    }
}
