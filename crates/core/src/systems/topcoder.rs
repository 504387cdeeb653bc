//! Topcoder's "Algorithm Competition Rating System"
//! (topcoder.com/community/competitive-programming/how-to-compete/ratings; the same text as
//! the older topcoder.com/tc?module=Static&d1=help&d2=ratings). Every formula below is from
//! that page unless marked otherwise.
//!
//! Each coder has a rating R, a volatility V and the number of times previously rated. For a
//! contest of n coders:
//! - `AveRating = sum R / n`;
//! - the competition factor `CF = sqrt(sum V^2 / n + sum (R - AveRating)^2 / (n - 1))`;
//! - the probability that coder i beats coder j,
//!   `WP = 0.5 (erf((R_i - R_j) / sqrt(2 (V_i^2 + V_j^2))) + 1)`;
//! - the expected rank `ERank = 0.5 + sum over all coders j of P(j beats i)` (the sum includes
//!   the coder, at one half);
//! - `EPerf = -Phi^-1((ERank - 0.5) / n)` and `APerf = -Phi^-1((ARank - 0.5) / n)`, where ARank
//!   is the actual rank, 1 for first place, and "if the coder tied with another coder, the rank
//!   is the average of the positions covered by the tied coders" (`(lo + hi) / 2 + 1` here);
//!   Phi^-1 is the inverse of the standard normal distribution function
//!   ([`crate::numeric::normal_quantile`]);
//! - `PerfAs = R + CF (APerf - EPerf)`;
//! - `Weight = 1 / (1 - (0.42 / (TimesPlayed + 1) + 0.18)) - 1`, decreased by 10 % for a rating
//!   between 2000 and 2500 and by 20 % for a rating over 2500;
//! - `Cap = 150 + 1500 / (TimesPlayed + 2)`;
//! - `NewRating = (R + Weight PerfAs) / (1 + Weight)`, moved back to within Cap of R when it is
//!   further;
//! - `NewVolatility = sqrt((NewRating - R)^2 / Weight + V^2 / (Weight + 1))`, with NewRating
//!   before the cap (the page computes the volatility before capping the rating, and the
//!   Elo-MMR reference implementation does the same).
//!
//! A newcomer has rating 1200 and volatility 535 (`start`, `start_volatility`): the page does
//! not print these; they are the values Topcoder's rating code and its re-implementations use
//! for unrated coders.
//!
//! Cross-checked against the Elo-MMR paper's reference implementation (EbTech/Elo-MMR,
//! `multi-skill/src/systems/topcoder_sys.rs`), which agrees on all of the above; its
//! generalisation is offered with defaults that reproduce the published system: the weight is
//! multiplied by `contest weight * weight_multiplier`, the cap by
//! `m (1 + L) / (1 + L m)` with `m = weight_multiplier` and `L = 1/0.82 - 1`, and the
//! differences in WP by `sqrt(contest weight)`. Not implemented: the page's first pass without
//! newcomers ("first, the ratings of members who have previously competed are calculated, with
//! new members' performances not considered; second, new members are given a rating based on
//! their performance relative to everyone"), whose details the page does not give; like the
//! Elo-MMR implementation, everyone is rated in one pass. The rating 2500 itself is damped by
//! 0.9 as the page says ("between 2000 and 2500"); the Elo-MMR implementation damps it by 0.8.
//!
//! Coders with the same (rating, volatility), such as all the newcomers of a contest, are
//! computed once and weighted by their number, which is exact. ERank summed pair by pair is
//! O(n^2) in erfc evaluations; for fields of 512 groups or more it is taken from one tabulated
//! function of the field instead (`numeric::gauss`: WP is the chance that one normal
//! performance beats another, so each ERank is a Gaussian average of the expected number of
//! coders beating a score, tabulated once on a grid and integrated by the trapezoidal rule),
//! within 2e-15 of the field's size, O(n) per contest, whenever the table costs at most a
//! quarter of the pairs. `exact = true` keeps the pairs. Summed pair by pair, each pair's erfc
//! serves both directions (`P(j beats i) = 1 - P(i beats j)`), the pairs are summed in blocks
//! in parallel and the blocks' partial sums added in a fixed order; either way the results do
//! not depend on the number of threads.
//!
//! A round of several contests (`--period`): its contests are rated in turn, each from the
//! states the one before left, as Topcoder rates contest by contest (from the pre-round
//! states, a week's volatility ratios multiplied and ran away); each contest counts once in
//! TimesPlayed; the round's predictions are still scored from the pre-round states. A team plays with its members' mean
//! rating, mean volatility and mean TimesPlayed; every member receives the team's rating change
//! and its volatility ratio (new/old), and counts the contest as played. The performance
//! reported is PerfAs (of the round's last contest).
//!
//! # Example
//!
//! Three newcomers (1200 / 535) finish in order: performances 1717.57, 1200 and 682.43,
//! weight 1.5, new ratings (1200 + 1.5 perf) / 2.5 = 1510.54, 1200 and 889.46:
//!
//! ```
//! use rate_batch_core::rater::Rater;
//! use rate_batch_core::systems::topcoder::{Topcoder, TopcoderParams};
//!
//! let mut r = Rater::new(Topcoder::new(TopcoderParams::default())?);
//! r.rate_contest(&[("a", 1), ("b", 2), ("c", 3)])?;
//! assert!((r.rating("a").unwrap().mean - 1510.5423).abs() < 1e-4);
//! assert!((r.rating("c").unwrap().mean - 889.4577).abs() < 1e-4);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

use super::base::{
    Elapsed, ParamError, Rating, RatingSystem, check_range, fixed_system, map_indices, side_mean,
};
use crate::history::{Contest, PlayerId, Round};
use crate::numeric::{gauss, normal_cdf, normal_quantile};
use serde::{Deserialize, Serialize};
use std::f64::consts::FRAC_1_SQRT_2;

/// Groups of coders per block of the expected-rank sums.
const BLOCK: usize = 128;

/// Fields of at least this many groups may use the tabulated expected ranks.
const TABULATE_FROM: usize = 512;

/// The weight's limit for a coder who has played many times is `1/0.82 - 1`.
const LIMIT_WEIGHT: f64 = 1.0 / 0.82 - 1.0;

/// Topcoder's parameters.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct TopcoderParams {
    /// A newcomer's rating (1200).
    pub start: f64,
    /// A newcomer's volatility (535).
    pub start_volatility: f64,
    /// Elo-MMR's weight multiplier (1: the published weights and caps).
    pub weight_multiplier: f64,
    /// Expected ranks summed pair by pair, O(n^2), rather than through one tabulated function
    /// of the field (within 2e-15 of the field's size; see `numeric::gauss`).
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub exact: bool,
}

impl Default for TopcoderParams {
    fn default() -> Self {
        Self {
            start: 1200.0,
            start_volatility: 535.0,
            weight_multiplier: 1.0,
            exact: false,
        }
    }
}

/// A coder's state.
#[derive(Clone, Copy, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct TopcoderPlayer {
    /// The rating.
    pub rating: f64,
    /// The volatility (the standard deviation of the coder's performances).
    pub volatility: f64,
    /// Contests rated so far.
    pub times_played: u32,
    /// PerfAs of the last round (NaN before the first).
    pub performance: f64,
}

/// The Topcoder system.
#[derive(Clone, Debug)]
pub struct Topcoder {
    p: TopcoderParams,
    cap_multiplier: f64,
}

/// One entry of a contest as Topcoder sees it.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Coder {
    /// Rating before the contest.
    pub rating: f64,
    /// Volatility before the contest.
    pub volatility: f64,
    /// Times previously rated (a team's mean, so not necessarily an integer).
    pub times_played: f64,
}

/// Everything one contest computes for its entries (in entry order).
#[derive(Clone, Debug, PartialEq)]
pub struct ContestChanges {
    /// AveRating.
    pub ave_rating: f64,
    /// The competition factor CF.
    pub cf: f64,
    /// ERank.
    pub erank: Vec<f64>,
    /// ARank.
    pub arank: Vec<f64>,
    /// EPerf.
    pub eperf: Vec<f64>,
    /// APerf.
    pub aperf: Vec<f64>,
    /// PerfAs.
    pub perf_as: Vec<f64>,
    /// The weight, damped above 2000.
    pub weight: Vec<f64>,
    /// The cap.
    pub cap: Vec<f64>,
    /// The new rating, within the cap.
    pub new_rating: Vec<f64>,
    /// The new volatility.
    pub new_volatility: Vec<f64>,
}

impl Topcoder {
    /// Checks the parameters.
    pub fn new(p: TopcoderParams) -> Result<Self, ParamError> {
        check_range("start", p.start, -1e9, 1e9)?;
        check_range("start_volatility", p.start_volatility, 1e-6, 1e9)?;
        check_range("weight_multiplier", p.weight_multiplier, 1e-12, f64::MAX)?;
        let m = p.weight_multiplier;
        let cap_multiplier = m * (1.0 + LIMIT_WEIGHT) / (1.0 + LIMIT_WEIGHT * m);
        Ok(Self { p, cap_multiplier })
    }

    /// The weight of the competition for a coder (before the contest weight).
    pub fn weight(&self, rating: f64, times_played: f64) -> f64 {
        let w = 1.0 / (1.0 - (0.42 / (times_played + 1.0) + 0.18)) - 1.0;
        let damping = if rating > 2500.0 {
            0.8
        } else if rating >= 2000.0 {
            0.9
        } else {
            1.0
        };
        w * self.p.weight_multiplier * damping
    }

    /// The cap of a coder's change.
    pub fn cap(&self, times_played: f64) -> f64 {
        (150.0 + 1500.0 / (times_played + 2.0)) * self.cap_multiplier
    }

    /// Rates one contest from the entries' states and 0-based place ranges.
    pub fn contest_changes(
        &self,
        coders: &[Coder],
        ranges: &[(u32, u32)],
        contest_weight: f64,
    ) -> ContestChanges {
        let n = coders.len();
        let nf = n as f64;
        let ave_rating = coders.iter().map(|c| c.rating).sum::<f64>() / nf;
        let mean_vol_sq = coders.iter().map(|c| c.volatility.powi(2)).sum::<f64>() / nf;
        let spread = if n > 1 {
            coders
                .iter()
                .map(|c| (c.rating - ave_rating).powi(2))
                .sum::<f64>()
                / (nf - 1.0)
        } else {
            0.0
        };
        let cf = (mean_vol_sq + spread).sqrt();

        // Coders grouped by (rating, volatility): the sum for each group, over all groups
        // weighted by their sizes, of P(j beats i) = Phi(sqrt(w) (R_j - R_i) / sqrt(V_i^2 + V_j^2)).
        let mut order: Vec<usize> = (0..n).collect();
        let key = |i: usize| (coders[i].rating, coders[i].volatility);
        order.sort_by(|&a, &b| {
            let (ka, kb) = (key(a), key(b));
            ka.0.total_cmp(&kb.0).then(ka.1.total_cmp(&kb.1))
        });
        let (mut group_r, mut group_v2, mut group_n) = (Vec::new(), Vec::new(), Vec::new());
        let mut group_of = vec![0usize; n];
        let equal = |a: usize, b: usize| {
            let (ka, kb) = (key(a), key(b));
            ka.0.total_cmp(&kb.0).is_eq() && ka.1.total_cmp(&kb.1).is_eq()
        };
        for (g, same) in order.chunk_by(|&a, &b| equal(a, b)).enumerate() {
            let (r, v) = key(same[0]);
            group_r.push(r);
            group_v2.push(v * v);
            group_n.push(same.len() as f64);
            same.iter().for_each(|&i| group_of[i] = g);
        }
        let group_losses = self
            .tabulated_losses(&group_r, &group_v2, &group_n, contest_weight)
            .unwrap_or_else(|| {
                losses(
                    &group_r,
                    &group_v2,
                    &group_n,
                    contest_weight.sqrt() * FRAC_1_SQRT_2,
                )
            });

        let mut out = ContestChanges {
            ave_rating,
            cf,
            erank: Vec::with_capacity(n),
            arank: Vec::with_capacity(n),
            eperf: Vec::with_capacity(n),
            aperf: Vec::with_capacity(n),
            perf_as: Vec::with_capacity(n),
            weight: Vec::with_capacity(n),
            cap: Vec::with_capacity(n),
            new_rating: Vec::with_capacity(n),
            new_volatility: Vec::with_capacity(n),
        };
        for (i, c) in coders.iter().enumerate() {
            let losses = group_losses[group_of[i]];
            let (lo, hi) = ranges[i];
            let arank = 0.5 * (lo + hi) as f64 + 1.0;
            let eperf = -normal_quantile(losses / nf);
            let aperf = -normal_quantile((arank - 0.5) / nf);
            let perf_as = c.rating + cf * (aperf - eperf);
            let weight = self.weight(c.rating, c.times_played) * contest_weight;
            let cap = self.cap(c.times_played);
            let tried = (c.rating + weight * perf_as) / (1.0 + weight);
            let new_rating = tried.clamp(c.rating - cap, c.rating + cap);
            let new_volatility = ((tried - c.rating).powi(2) / weight
                + c.volatility.powi(2) / (weight + 1.0))
                .sqrt();
            out.erank.push(losses + 0.5);
            out.arank.push(arank);
            out.eperf.push(eperf);
            out.aperf.push(aperf);
            out.perf_as.push(perf_as);
            out.weight.push(weight);
            out.cap.push(cap);
            out.new_rating.push(new_rating);
            out.new_volatility.push(new_volatility);
        }
        out
    }

    /// [`losses`] through one tabulated function of the field (`numeric::gauss`; the contest
    /// weight scales the ratings by its square root), for fields of [`TABULATE_FROM`] groups
    /// or more while the table costs at most a quarter of the pairs' erfc evaluations; `None`
    /// otherwise, and with `exact`.
    fn tabulated_losses(
        &self,
        r: &[f64],
        v2: &[f64],
        n: &[f64],
        contest_weight: f64,
    ) -> Option<Vec<f64>> {
        let u = r.len();
        if self.p.exact || u < TABULATE_FROM {
            return None;
        }
        let root = contest_weight.sqrt();
        let scaled: Vec<f64> = r.iter().map(|x| x * root).collect();
        let v: Vec<f64> = v2.iter().map(|x| x.sqrt()).collect();
        let terms = gauss::Normals {
            r: &scaled,
            v: &v,
            w: n,
        };
        gauss::beating_sums(&terms, &scaled, &v, 0.25 * (u * u) as f64 / 2.0)
    }

    fn contest(
        &self,
        players: &[TopcoderPlayer],
        contest: &Contest,
    ) -> (Vec<Coder>, ContestChanges) {
        let coders: Vec<Coder> = contest
            .entries()
            .map(|e| Coder {
                rating: side_mean(players, e.players, |p| p.rating),
                volatility: side_mean(players, e.players, |p| p.volatility),
                times_played: side_mean(players, e.players, |p| p.times_played as f64),
            })
            .collect();
        let ranges: Vec<(u32, u32)> = contest.entries().map(|e| (e.lo, e.hi)).collect();
        let ch = self.contest_changes(&coders, &ranges, contest.weight());
        (coders, ch)
    }
}

/// For each group g of coders (rating `r`, squared volatility `v2`, size `n`): the sum over all
/// groups k, g included, of `n_k P(k beats g)` with `P(k beats g) = erfc(c (r_g - r_k) /
/// sqrt(v2_g + v2_k)) / 2` (`c = sqrt(contest weight) / sqrt 2`), i.e. `ERank - 0.5`.
///
/// Each unordered pair's erfc is evaluated once, `P(g beats k)` being `1 - P(k beats g)`. The
/// groups are cut into blocks; each pair of blocks is one task (run in parallel) producing
/// partial sums for the rows of both blocks, and the partial sums are added up task by task
/// in a fixed order, so the result does not depend on the number of threads.
fn losses(r: &[f64], v2: &[f64], n: &[f64], c: f64) -> Vec<f64> {
    let u = r.len();
    let blocks = u.div_ceil(BLOCK);
    let tasks: Vec<(usize, usize)> = (0..blocks)
        .flat_map(|i| (i..blocks).map(move |j| (i, j)))
        .collect();
    let rows = |b: usize| b * BLOCK..((b + 1) * BLOCK).min(u);
    let partials: Vec<(Vec<f64>, Vec<f64>)> = map_indices(tasks.len(), 2, |t| {
        let (bi, bj) = tasks[t];
        let (ri, rj) = (rows(bi), rows(bj));
        let mut pi = vec![0.0; ri.len()];
        let mut pj = vec![0.0; rj.len()];
        for g in ri.clone() {
            let first = if bi == bj { g } else { rj.start };
            let mut acc = 0.0;
            for k in first..rj.end {
                if k == g {
                    // A coder against himself (and his equals): one half each.
                    acc += 0.5 * n[g];
                    continue;
                }
                let e = crate::numeric::erfc(c * (r[g] - r[k]) / (v2[g] + v2[k]).sqrt());
                acc += 0.5 * n[k] * e;
                pj[k - rj.start] += n[g] * (1.0 - 0.5 * e);
            }
            pi[g - ri.start] += acc;
        }
        (pi, pj)
    });
    let mut out = vec![0.0; u];
    for (&(bi, bj), (pi, pj)) in tasks.iter().zip(&partials) {
        for (o, x) in out[rows(bi)].iter_mut().zip(pi) {
            *o += x;
        }
        for (o, x) in out[rows(bj)].iter_mut().zip(pj) {
            *o += x;
        }
    }
    out
}

impl RatingSystem for Topcoder {
    type Player = TopcoderPlayer;
    fixed_system!(
        Topcoder,
        TopcoderParams,
        uncertainty: "volat.",
        "Topcoder's volatility: the spread of a player's performances around his rating, not the uncertainty of the rating"
    );

    fn new_player(&self) -> TopcoderPlayer {
        self.seeded(self.p.start, None, None)
    }

    /// The volatility is the file's `volatility`, else its `uncertainty` (Topcoder shows the
    /// volatility as the uncertainty), else a newcomer's; the coder counts as never rated
    /// (the first contests move a seeded rating as much as a newcomer's).
    fn seeded(
        &self,
        rating: f64,
        uncertainty: Option<f64>,
        volatility: Option<f64>,
    ) -> TopcoderPlayer {
        TopcoderPlayer {
            rating,
            volatility: volatility
                .or(uncertainty)
                .unwrap_or(self.p.start_volatility),
            times_played: 0,
            performance: f64::NAN,
        }
    }

    fn elapse(&self, p: &mut TopcoderPlayer, time: Elapsed) {
        p.volatility = (p.volatility * p.volatility + time.variance).sqrt();
    }

    fn rating(&self, p: &TopcoderPlayer) -> Rating {
        Rating::new(p.rating, Some(p.volatility))
    }

    /// Rates the round's contests in turn, each from the states the one before left: Topcoder
    /// rates contest by contest (multiplying a period's volatility ratios ran away).
    fn update(&self, round: Round<'_>, players: &mut [TopcoderPlayer]) {
        for contest in round.contests() {
            let (coders, ch) = self.contest(players, &contest);
            for (k, e) in contest.entries().enumerate() {
                let change = ch.new_rating[k] - coders[k].rating;
                let ratio = ch.new_volatility[k] / coders[k].volatility;
                for &p in e.players {
                    let s = &mut players[p as usize];
                    s.rating += change;
                    s.volatility = if e.players.len() == 1 {
                        ch.new_volatility[k]
                    } else {
                        s.volatility * ratio
                    };
                    s.times_played += 1;
                    s.performance = ch.perf_as[k];
                }
            }
        }
    }

    fn win_probability(
        &self,
        players: &[TopcoderPlayer],
        a: &[PlayerId],
        b: &[PlayerId],
    ) -> Option<f64> {
        let ra = side_mean(players, a, |p| p.rating);
        let rb = side_mean(players, b, |p| p.rating);
        let va = side_mean(players, a, |p| p.volatility);
        let vb = side_mean(players, b, |p| p.volatility);
        Some(normal_cdf((ra - rb) / va.hypot(vb)))
    }

    fn performance(&self, p: &TopcoderPlayer) -> Option<f64> {
        p.performance.is_finite().then_some(p.performance)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::history::{HistoryBuilder, SourceInfo};

    fn tc() -> Topcoder {
        Topcoder::new(TopcoderParams::default()).unwrap()
    }

    fn coder(rating: f64, volatility: f64, times_played: f64) -> Coder {
        Coder {
            rating,
            volatility,
            times_played,
        }
    }

    fn places(order: &[u32]) -> Vec<(u32, u32)> {
        order.iter().map(|&p| (p, p)).collect()
    }

    fn close(got: &[f64], want: &[f64]) {
        assert_eq!(got.len(), want.len());
        for (g, w) in got.iter().zip(want) {
            assert!(
                (g - w).abs() <= 1e-9 * w.abs().max(1.0),
                "{got:?} vs {want:?}"
            );
        }
    }

    #[test]
    fn three_newcomers_by_hand() {
        // 1200 / 535, never rated. AveRating 1200; CF = sqrt(535^2 + 0) = 535.
        // WP = 1/2 for every pair, so ERank = 0.5 + 3 * 0.5 = 2 and EPerf = -Phi^-1(1.5/3) = 0.
        // APerf = -Phi^-1((ARank - 0.5)/3): 0.967422, 0, -0.967422.
        // PerfAs = 1200 + 535 APerf: 1717.5705, 1200, 682.4295.
        // Weight = 1/(1 - (0.42 + 0.18)) - 1 = 1.5; Cap = 150 + 1500/2 = 900.
        // NewRating = (1200 + 1.5 PerfAs) / 2.5: 1510.5423, 1200, 889.4577.
        // NewVolatility = sqrt(dR^2 / 1.5 + 535^2 / 2.5): 422.8250, 338.3637 (= 535/sqrt 2.5,
        // the coder who performed exactly as expected), 422.8250.
        // (Numbers from tests/reference/cf_tc_reference.py.)
        let h =
            crate::systems::allpairs::test_util::contest(&[("a", 0, 0), ("b", 1, 1), ("c", 2, 2)]);
        let sys = tc();
        let mut players = vec![sys.new_player(); 3];
        assert_eq!((players[0].rating, players[0].volatility), (1200.0, 535.0));
        sys.update(Round::new(&h, &[0]), &mut players);
        let rating: Vec<f64> = players.iter().map(|p| p.rating).collect();
        let vol: Vec<f64> = players.iter().map(|p| p.volatility).collect();
        let perf: Vec<f64> = players.iter().map(|p| p.performance).collect();
        close(&rating, &[1510.5423227186461, 1200.0, 889.457677281354]);
        close(
            &vol,
            &[422.82504987247523, 338.3637096380166, 422.8250498724752],
        );
        close(&perf, &[1717.5705378644102, 1200.0, 682.4294621355898]);
        assert!(players.iter().all(|p| p.times_played == 1));
        let ch = sys.contest_changes(&[coder(1200.0, 535.0, 0.0); 3], &places(&[0, 1, 2]), 1.0);
        close(&ch.erank, &[2.0; 3]);
        close(&ch.aperf, &[0.9674215661017014, 0.0, -0.9674215661017014]);
        close(&ch.weight, &[1.5; 3]);
        close(&ch.cap, &[900.0; 3]);
        assert_eq!(ch.cf, 535.0);
    }

    #[test]
    fn three_rated_coders_by_hand() {
        // (rating, volatility, times played): (2100, 300, 10) third, (1500, 400, 3) first,
        // (2600, 250, 20) second. AveRating 2066.667;
        // CF = sqrt((300^2 + 400^2 + 250^2)/3 + (33.3^2 + 566.7^2 + 533.3^2)/2) = 638.357.
        // ERank of 2100: 0.5 + 0.5 + Phi(-600/500) + Phi(500/390.5) = 2.014862.
        // Weights: 2100: (1/(1 - (0.42/11 + 0.18)) - 1) * 0.9 = 0.251163 (damped 10 %),
        // 1500: 1/(1 - (0.42/4 + 0.18)) - 1 = 0.398601, 2600: (1/(1 - 0.2) - 1) * 0.8 = 0.2
        // (damped 20 %). Caps 150 + 1500/12 = 275, 450, 218.18; none binds.
        let sys = tc();
        let coders = [
            coder(2100.0, 300.0, 10.0),
            coder(1500.0, 400.0, 3.0),
            coder(2600.0, 250.0, 20.0),
        ];
        let ch = sys.contest_changes(&coders, &places(&[2, 0, 1]), 1.0);
        assert!((ch.ave_rating - 2066.6666666666665).abs() < 1e-9);
        assert!((ch.cf - 638.3572667401853).abs() < 1e-9);
        close(
            &ch.erank,
            &[2.0148619393752805, 2.875079861518495, 1.1100581991062244],
        );
        close(
            &ch.eperf,
            &[
                -0.012418104975204458,
                -0.8123106070949543,
                0.8297052258921993,
            ],
        );
        close(
            &ch.perf_as,
            &[1490.3666008278726, 2636.1049656113873, 2070.3516397994076],
        );
        close(&ch.weight, &[0.2511627906976743, 0.39860139860139854, 0.2]);
        close(&ch.cap, &[275.0, 450.0, 218.1818181818182]);
        close(
            &ch.new_rating,
            &[1977.6200611327326, 1823.7899151992453, 2511.7252732999013],
        );
        close(
            &ch.new_volatility,
            &[362.7163274334809, 614.3447088467664, 301.73741929568314],
        );

        // The 2100 and the 2600 tie for second and third: both get ARank 2.5.
        let ch = sys.contest_changes(&coders, &[(1, 2), (0, 0), (1, 2)], 1.0);
        close(&ch.arank, &[2.5, 1.0, 2.5]);
        close(
            &ch.new_rating,
            &[2046.3953213654925, 1823.7899151992453, 2465.8989563851296],
        );
        close(
            &ch.new_volatility,
            &[288.74507707763576, 614.3447088467664, 376.8272586030902],
        );
    }

    #[test]
    fn the_cap_holds_and_the_volatility_sees_the_uncapped_rating() {
        // A 1000 coder who has played 50 times beats two 2400s: PerfAs 2712.3, Weight 0.231884,
        // (1000 + 0.231884 * 2712.3) / 1.231884 = 1322.32, capped at 1000 + 150 + 1500/52 =
        // 1178.846; the volatility is computed from 1322.32. The 2450 who came last falls by
        // exactly its cap, 150 + 1500/62 = 174.194.
        let sys = tc();
        let coders = [
            coder(1000.0, 600.0, 50.0),
            coder(2400.0, 100.0, 60.0),
            coder(2450.0, 100.0, 60.0),
        ];
        let ch = sys.contest_changes(&coders, &places(&[0, 1, 2]), 1.0);
        close(
            &ch.new_rating,
            &[1178.8461538461538, 2354.234991784656, 2275.8064516129034],
        );
        assert!((ch.new_rating[0] - 1000.0 - ch.cap[0]).abs() < 1e-9);
        assert!((2450.0 - ch.new_rating[2] - ch.cap[2]).abs() < 1e-9);
        close(
            &ch.new_volatility,
            &[860.3859058020171, 135.68769012240816, 521.8222624252024],
        );
        for (c, (r, cap)) in coders.iter().zip(ch.new_rating.iter().zip(&ch.cap)) {
            assert!((r - c.rating).abs() <= *cap);
        }
    }

    #[test]
    fn weights_are_damped_from_2000_and_above_2500() {
        let sys = tc();
        // 1/(1 - (0.42/(t + 1) + 0.18)) - 1: 1.5 for a newcomer, 0.279070 after 10 contests,
        // tending to 1/0.82 - 1 = 0.219512.
        assert_eq!(sys.weight(1999.9, 0.0), 1.5);
        assert!((sys.weight(1500.0, 10.0) - 0.2790697674418603).abs() < 1e-15);
        assert!((sys.weight(1500.0, 1e12) - LIMIT_WEIGHT).abs() < 1e-12);
        assert!((sys.weight(2000.0, 0.0) - 1.35).abs() < 1e-15);
        assert!((sys.weight(2500.0, 0.0) - 1.35).abs() < 1e-15);
        assert!((sys.weight(2500.5, 0.0) - 1.2).abs() < 1e-15);
        assert!((sys.weight(3500.0, 10.0) - 0.8 * 0.2790697674418603).abs() < 1e-15);
        // Caps: 900 for a newcomer, 150 + 1500/12 = 275 after 10.
        assert_eq!(sys.cap(0.0), 900.0);
        assert_eq!(sys.cap(10.0), 275.0);
    }

    #[test]
    fn volatility_update() {
        // A coder who performs exactly as expected (PerfAs = R) keeps the rating and the
        // volatility shrinks to V / sqrt(W + 1); otherwise sqrt(dR^2 / W + V^2 / (W + 1)).
        let sys = tc();
        let ch = sys.contest_changes(
            &[coder(1800.0, 200.0, 4.0), coder(1800.0, 200.0, 4.0)],
            &[(0, 1), (0, 1)],
            1.0,
        );
        let w: f64 = 1.0 / (1.0 - (0.42 / 5.0 + 0.18)) - 1.0;
        close(&ch.new_rating, &[1800.0, 1800.0]);
        close(&ch.new_volatility, &[200.0 / (w + 1.0).sqrt(); 2]);
        let ch = sys.contest_changes(
            &[coder(1800.0, 200.0, 4.0), coder(1800.0, 200.0, 4.0)],
            &places(&[0, 1]),
            1.0,
        );
        let d = ch.new_rating[0] - 1800.0;
        assert!(d > 0.0);
        close(
            &ch.new_volatility,
            &[(d * d / w + 200.0f64.powi(2) / (w + 1.0)).sqrt(); 2],
        );
    }

    #[test]
    fn results_do_not_depend_on_the_thread_count() {
        // 500 coders sum the pairs; 3000 take the table (checked below).
        for n in [500, 3000] {
            let sys = tc();
            let coders: Vec<Coder> = (0..n)
                .map(|i| {
                    let r = 900.0 + ((i * 7919) % 1700) as f64 + (i as f64) * 1e-3;
                    // Every fourth a newcomer, so that groups form.
                    if i % 4 == 0 {
                        coder(1200.0, 535.0, 0.0)
                    } else {
                        coder(r, 150.0 + (i % 13) as f64 * 20.0, (i % 30) as f64)
                    }
                })
                .collect();
            let ranges: Vec<(u32, u32)> = (0..n as u32).map(|p| (p, p)).collect();
            let run = |threads: usize| {
                rayon::ThreadPoolBuilder::new()
                    .num_threads(threads)
                    .build()
                    .unwrap()
                    .install(|| sys.contest_changes(&coders, &ranges, 1.0))
            };
            let (one, two) = (run(1), run(2));
            let bits = |v: &[f64]| v.iter().map(|x| x.to_bits()).collect::<Vec<_>>();
            assert_eq!(bits(&one.erank), bits(&two.erank));
            assert_eq!(bits(&one.new_rating), bits(&two.new_rating));
            assert_eq!(bits(&one.new_volatility), bits(&two.new_volatility));
            let exact = Topcoder::new(TopcoderParams {
                exact: true,
                ..TopcoderParams::default()
            })
            .unwrap()
            .contest_changes(&coders, &ranges, 1.0);
            let apart = one
                .erank
                .iter()
                .zip(&exact.erank)
                .map(|(a, b)| (a - b).abs())
                .fold(0.0, f64::max);
            assert!(apart < 1e-10, "n {n}: {apart}");
            assert_eq!(n > 1000, apart > 0.0, "n {n}: the table used where it pays");
        }
    }

    #[test]
    fn grouping_equal_coders_is_exact() {
        // ERank from the groups and the blocks of pairs (here 3 blocks of groups) equals the
        // plain sum over coders.
        let sys = tc();
        let coders: Vec<Coder> = (0..400)
            .map(|i| match i % 3 {
                0 => coder(1200.0, 535.0, 0.0),
                1 => coder(1500.0 + i as f64, 300.0, 5.0),
                _ => coder(1500.0, 300.0, 5.0),
            })
            .collect();
        let ranges: Vec<(u32, u32)> = (0..400).map(|p| (p, p)).collect();
        let ch = sys.contest_changes(&coders, &ranges, 1.0);
        for (i, c) in coders.iter().enumerate() {
            let plain = 0.5
                + coders
                    .iter()
                    .map(|o| normal_cdf((o.rating - c.rating) / o.volatility.hypot(c.volatility)))
                    .sum::<f64>();
            assert!(
                (ch.erank[i] - plain).abs() < 1e-13 * plain,
                "{i}: {} vs {plain}",
                ch.erank[i]
            );
        }
    }

    #[test]
    fn teams_and_rounds_of_several_contests() {
        // Contest 0: team {a, b} first, c second. Contest 1 of the same round: c beats a.
        let mut b = HistoryBuilder::new();
        let ids: Vec<u32> = ["a", "b", "c"].iter().map(|n| b.player(n)).collect();
        b.begin_contest(0, 1.0, None, None);
        b.add_entry(&ids[0..2], 0, 0, None);
        b.add_entry(&ids[2..3], 1, 1, None);
        b.end_contest().unwrap();
        b.begin_contest(0, 1.0, None, None);
        b.add_entry(&ids[2..3], 0, 0, None);
        b.add_entry(&ids[0..1], 1, 1, None);
        b.end_contest().unwrap();
        let h = b.finish(SourceInfo::default());
        let sys = tc();
        let st = |rating, volatility, times_played| TopcoderPlayer {
            rating,
            volatility,
            times_played,
            performance: f64::NAN,
        };
        let before = vec![
            st(1700.0, 300.0, 4),
            st(1300.0, 500.0, 2),
            st(1400.0, 350.0, 7),
        ];
        // The team plays at rating 1500, volatility 400, times played 3.
        let first = sys.contest_changes(
            &[coder(1500.0, 400.0, 3.0), coder(1400.0, 350.0, 7.0)],
            &places(&[0, 1]),
            1.0,
        );
        let mut players = before.clone();
        sys.update(Round::new(&h, &[0]), &mut players);
        let team_change = first.new_rating[0] - 1500.0;
        assert_eq!(players[0].rating, 1700.0 + team_change);
        assert_eq!(players[1].rating, 1300.0 + team_change);
        let ratio = first.new_volatility[0] / 400.0;
        assert_eq!(players[0].volatility, 300.0 * ratio);
        assert_eq!(players[1].volatility, 500.0 * ratio);
        assert_eq!(players[2].volatility, first.new_volatility[1]);
        assert_eq!((players[0].times_played, players[1].times_played), (5, 3));
        // A round of both: the second contest is rated from what the first left (c as the
        // first made him, a as the team's change left her), as Topcoder rates in turn.
        let after_first = players.clone();
        let second = sys.contest_changes(
            &[
                coder(after_first[2].rating, after_first[2].volatility, 8.0),
                coder(after_first[0].rating, after_first[0].volatility, 5.0),
            ],
            &places(&[0, 1]),
            1.0,
        );
        let mut players = before;
        sys.update(Round::new(&h, &[0, 1]), &mut players);
        assert_eq!(players[0].rating, second.new_rating[1]);
        assert_eq!(players[2].rating, second.new_rating[0]);
        assert_eq!(players[2].volatility, second.new_volatility[0]);
        assert_eq!(players[1], after_first[1], "b played the first only");
        assert_eq!((players[0].times_played, players[2].times_played), (6, 9));
    }

    #[test]
    fn win_probability_is_the_published_wp() {
        // WP = 0.5 (erf((Ra - Rb) / sqrt(2 (Va^2 + Vb^2))) + 1): 1900/300 against 1500/400 is
        // Phi(400/500) = Phi(0.8) = 0.788145.
        let sys = tc();
        let st = |rating, volatility| TopcoderPlayer {
            rating,
            volatility,
            times_played: 3,
            performance: f64::NAN,
        };
        let players = [st(1900.0, 300.0), st(1500.0, 400.0)];
        let p = sys.win_probability(&players, &[0], &[1]).unwrap();
        let wp = 0.5 * (libm::erf(400.0 / (2.0f64 * 250_000.0).sqrt()) + 1.0);
        assert!((p - wp).abs() < 1e-15);
        assert!((p - 0.7881446014166034).abs() < 1e-12);
        let r = sys.rating(&players[0]);
        assert_eq!(
            (r.mean, r.uncertainty, r.display),
            (1900.0, Some(300.0), 1900.0)
        );
    }
}
