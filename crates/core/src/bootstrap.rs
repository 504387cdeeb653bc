//! Bootstrap intervals for any system: ratings, ranks and the accuracy metrics.
//!
//! The resampling is the Poisson bootstrap over whole contests: in replicate `r`, contest `c`
//! counts `k ~ Poisson(1)` times, `k` drawn from a hash of (seed, r, c), so a replicate is
//! the same whatever the thread count, the order replicates run in, or how the history was
//! read. (Resampling n contests with replacement gives multinomial counts whose marginals are
//! Binomial(n, 1/n), nearly Poisson(1); the Poisson counts are independent from contest to
//! contest, so no replicate needs to see the whole history to draw its counts.)
//!
//! - **Ratings and ranks**: each replicate replays the history with the system as it is, a
//!   contest of count `k` happening `k` times: with rounds of one contest (`--period game`),
//!   `k` rounds one after the other; with calendar periods or series, `k` copies in its round
//!   ([`crate::systems::WholeHistory::accumulate`]: Bradley-Terry only counts the games, and
//!   fits once at the end).
//!   The interval of a player's rating is the central `level` share of its replicate ratings
//!   (linear interpolation between order statistics); its rank interval, of its replicate
//!   ranks among the leaderboard's players (rounded outwards). Tie groups: the first player
//!   leads the first group, and each next player joins the current group while his rank
//!   interval overlaps its leader's; else he leads the next.
//! - **Metrics**: the scored contests' parts of the metrics are re-summed with the same
//!   counts (the predictions are the replay's own: the interval is the sampling noise of the
//!   metric over the contests, for this system's predictions). Systems compared with the same
//!   seed see the same counts, so their differences are paired.

use crate::history::{History, PlayerId, Round};
use crate::metrics::{Metrics, MetricsReport, ScoredContest};
use crate::replay::{Period, ReplayOptions, select_rounds};
use crate::systems::{RatingSystem, runaway};
use rayon::prelude::*;

/// How many replicates, at which level, from which seed.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct CiOptions {
    /// Replicates.
    pub replicates: u32,
    /// The central share the intervals cover (0.95).
    pub level: f64,
    /// The seed of the counts.
    pub seed: u64,
}

/// The count of contest `contest` in replicate `replicate`: Poisson(1), from a hash.
#[inline]
pub fn poisson_count(seed: u64, replicate: u32, contest: u32) -> u32 {
    let mut z = seed
        ^ u64::from(replicate).wrapping_mul(0x9E37_79B9_7F4A_7C15)
        ^ u64::from(contest).wrapping_mul(0xC2B2_AE3D_27D4_EB4F);
    // splitmix64's finaliser.
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^= z >> 31;
    poisson_inverse(z)
}

/// The inverse of Poisson(1)'s distribution function, on a hash as a fraction of 2^64:
/// how many of its values the hash reaches. Counted without branches over the first
/// eight (a branch on each would be mispredicted about once a draw), then on (one draw
/// in 100,000).
#[inline]
fn poisson_inverse(z: u64) -> u32 {
    let mut k: u32 = POISSON_CDF[..8].iter().map(|&c| u32::from(z >= c)).sum();
    if k == 8 {
        while (k as usize) < POISSON_CDF.len() && z >= POISSON_CDF[k as usize] {
            k += 1;
        }
    }
    k
}

/// Poisson(1)'s distribution function at 0, 1, ... 19, times 2^64, rounded down (worked out
/// to 60 digits: `sum_{j <= k} e^-1 / j!`).
const POISSON_CDF: [u64; 20] = [
    0x5E2D_58D8_B3BC_DF1A,
    0xBC5A_B1B1_6779_BE35,
    0xEB71_5E1D_C158_2DC2,
    0xFB23_9797_34A2_52F1,
    0xFF10_25F5_9174_DC3D,
    0xFFD9_0F3B_A405_5E19,
    0xFFFA_8B71_FC72_C913,
    0xFFFF_540C_0914_B3C9,
    0xFFFF_ED1F_4AA8_F120,
    0xFFFF_FE21_6E64_1462,
    0xFFFF_FFD4_D85D_3183,
    0xFFFF_FFFC_6DA2_62B4,
    0xFFFF_FFFF_BA12_D178,
    0xFFFF_FFFF_FB07_C64C,
    0xFFFF_FFFF_FFAB_8EA5,
    0xFFFF_FFFF_FFFA_BE22,
    0xFFFF_FFFF_FFFF_B11A,
    0xFFFF_FFFF_FFFF_FBA1,
    0xFFFF_FFFF_FFFF_FFC5,
    0xFFFF_FFFF_FFFF_FFFD,
];

/// The central `level` share of `values` (sorted here): linear interpolation between order
/// statistics (the usual sample quantile); `None` when empty.
pub fn central(values: &mut [f64], level: f64) -> Option<(f64, f64)> {
    if values.is_empty() {
        return None;
    }
    values.sort_by(f64::total_cmp);
    let q = |p: f64| {
        let h = p * (values.len() - 1) as f64;
        let (i, f) = (h.floor() as usize, h - h.floor());
        let next = values[(i + 1).min(values.len() - 1)];
        values[i] + f * (next - values[i])
    };
    let tail = (1.0 - level) / 2.0;
    Some((q(tail), q(1.0 - tail)))
}

/// Intervals for the players of a leaderboard, in its order.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct RatingIntervals {
    /// Each player's rating interval.
    pub rating: Vec<(f64, f64)>,
    /// Each player's rank interval (1 best).
    pub rank: Vec<(u32, u32)>,
    /// Each player's tie group (1 for the first).
    pub group: Vec<u32>,
    /// Replicates that completed (the intervals are theirs).
    pub replicates: u32,
    /// Replicates that ran away or were refused, left out.
    pub failed: u32,
    /// For the first `top` players of the board: the share of replicates in which player `i`
    /// is rated above player `j` (ties half), at `i * top + j`: the likelihood of
    /// superiority.
    pub superiority: Vec<f64>,
}

/// Replays `ci.replicates` bootstrap replicates of the history (on rayon's threads) and
/// gives the intervals of the players `board` (a leaderboard, best first): of their ratings
/// (the display rating with `display`), shifted in each replicate as `--anchor` shifts the
/// leaderboard (`anchors`: player and rating); and the likelihood of superiority between
/// each two of the first `top`.
pub fn rating_intervals<S: RatingSystem>(
    history: &History,
    system: &S,
    opts: &ReplayOptions,
    board: &[PlayerId],
    (anchors, display): (&[(PlayerId, f64)], bool),
    ci: &CiOptions,
    top: usize,
) -> RatingIntervals {
    let rounds = select_rounds(history, opts);
    let runs: Vec<Option<(Vec<f64>, Vec<u32>)>> = (0..ci.replicates)
        .into_par_iter()
        .map(|r| {
            let ratings = replicate(history, &rounds, system, opts, ci.seed, r)?;
            let value = |p: PlayerId| {
                let x = ratings[p as usize];
                if display { x.display } else { x.mean }
            };
            let shift = if anchors.is_empty() {
                0.0
            } else {
                anchors
                    .iter()
                    .map(|&(p, v)| v - ratings[p as usize].mean)
                    .sum::<f64>()
                    / anchors.len() as f64
            };
            let values: Vec<f64> = board.iter().map(|&p| value(p) + shift).collect();
            let mut order: Vec<u32> = (0..board.len() as u32).collect();
            order.sort_by(|&a, &b| {
                values[b as usize]
                    .total_cmp(&values[a as usize])
                    .then(a.cmp(&b))
            });
            let mut ranks = vec![0u32; board.len()];
            for (pos, &i) in order.iter().enumerate() {
                let tied = pos > 0 && values[order[pos - 1] as usize] == values[i as usize];
                ranks[i as usize] = if tied {
                    ranks[order[pos - 1] as usize]
                } else {
                    pos as u32 + 1
                };
            }
            Some((values, ranks))
        })
        .collect();
    let done: Vec<&(Vec<f64>, Vec<u32>)> = runs.iter().flatten().collect();
    let mut out = RatingIntervals {
        replicates: done.len() as u32,
        failed: ci.replicates - done.len() as u32,
        ..RatingIntervals::default()
    };
    if done.is_empty() {
        return out;
    }
    let top = top.min(board.len());
    out.superiority = vec![0.0; top * top];
    for i in 0..top {
        for j in 0..top {
            if i != j {
                // Ordering as -1, 0, 1: 0, 1/2 or 1 above.
                let above: f64 = (done.iter())
                    .map(|d| f64::from(d.0[i].total_cmp(&d.0[j]) as i8 + 1) / 2.0)
                    .sum();
                out.superiority[i * top + j] = above / done.len() as f64;
            }
        }
    }
    let mut column = Vec::with_capacity(done.len());
    for i in 0..board.len() {
        column.clear();
        column.extend(done.iter().map(|d| d.0[i]));
        out.rating
            .push(central(&mut column, ci.level).unwrap_or((f64::NAN, f64::NAN)));
        column.clear();
        column.extend(done.iter().map(|d| f64::from(d.1[i])));
        let (lo, hi) = central(&mut column, ci.level).unwrap_or((0.0, 0.0));
        // Outwards, but not past a whole number missed by rounding ((1 - 0.9) / 2 is
        // 0.04999...).
        out.rank
            .push(((lo + 1e-9).floor() as u32, (hi - 1e-9).ceil() as u32));
    }
    // A group is led by its first player; the next joins while its rank interval overlaps
    // the leader's (overlap with the one just above would chain: on the international
    // football results every team ends up in one group).
    let (mut group, mut leader) = (1, 0);
    for i in 0..board.len() {
        if i > 0 && out.rank[i].0 > out.rank[leader].1 {
            group += 1;
            leader = i;
        }
        out.group.push(group);
    }
    out
}

/// One replicate's final ratings, or `None` when a rating ran away or the system refused a
/// contest.
fn replicate<S: RatingSystem>(
    history: &History,
    rounds: &crate::replay::Rounds,
    system: &S,
    opts: &ReplayOptions,
    seed: u64,
    r: u32,
) -> Option<Vec<crate::systems::Rating>> {
    let n = history.player_count();
    let mut states = vec![system.new_player(); n];
    for s in opts.seeds.iter().filter(|s| (s.player as usize) < n) {
        states[s.player as usize] = system.seeded(s.rating, s.uncertainty, s.volatility);
    }
    let mut run = Replicate {
        history,
        system,
        opts,
        measured: opts.measured_period(system),
        played: vec![false; n],
        last_time: vec![0; n],
        last_key: vec![0; n],
        stamp: vec![0u32; n],
        round_no: 0,
        parts: Vec::new(),
        regression: (opts.seasons).and_then(|s| s.regression(system, &states, |_| false)),
    };
    let mut list: Vec<u32> = Vec::new();
    let mut season = None;
    for k in 0..rounds.len() {
        let contests = rounds.round(k);
        // Seasons begin where the replay's begin (with the round as played, not resampled).
        if let Some(s) = &opts.seasons
            && s.begins(&mut season, &Round::new(history, contests))
            && let Some(r) = &mut run.regression
        {
            r.season_begins();
        }
        if opts.period == Period::Game {
            for &c in contests {
                for _ in 0..poisson_count(seed, r, c) {
                    run.apply(std::slice::from_ref(&c), &mut states)?;
                }
            }
        } else {
            list.clear();
            for &c in contests {
                list.extend(std::iter::repeat_n(c, poisson_count(seed, r, c) as usize));
            }
            if !list.is_empty() {
                run.apply(&list, &mut states)?;
            }
        }
    }
    if let Some(r) = &mut run.regression {
        r.pay_all(system, &mut states, |p| run.played[p]);
    }
    if let Some(whole) = system.whole_history() {
        whole.settle(&mut states);
    }
    // Time passes up to the end for everyone, as the replay lets it pass before the
    // leaderboard (decay, calendar periods begun since a player's last round).
    let end = opts.as_of.or_else(|| {
        rounds
            .order
            .iter()
            .map(|&c| history.contest(c as usize).time())
            .max()
    });
    if let Some(end) = end {
        let last = |p: usize| run.played[p].then(|| (run.last_key[p], run.last_time[p]));
        let Ok(()) = opts.pass_to_end(system, &mut states, end, last, |_, _| {
            Ok::<_, std::convert::Infallible>(())
        });
    }
    Some(states.iter().map(|s| system.rating(s)).collect())
}

/// A replicate's replay: rounds applied to the players' states, time passing before each as
/// the replay lets it.
struct Replicate<'a, S> {
    history: &'a History,
    system: &'a S,
    opts: &'a ReplayOptions,
    /// [`ReplayOptions::measured_period`].
    measured: Option<f64>,
    /// Whether each player played, the time of his last contest, and the calendar period of
    /// his last round.
    played: Vec<bool>,
    last_time: Vec<i64>,
    last_key: Vec<i64>,
    /// The round each player last arrived at (numbered from 1), and the round's number.
    stamp: Vec<u32>,
    round_no: u32,
    /// The players of the round being applied, each once.
    parts: Vec<PlayerId>,
    /// The regressions between seasons the players owe.
    regression: Option<crate::seasons::Regression>,
}

impl<S: RatingSystem> Replicate<'_, S> {
    /// Applies the round of contests `list` (a contest may be there several times); `None`
    /// when the system refuses one of them or a rating runs away.
    fn apply(&mut self, list: &[u32], states: &mut [S::Player]) -> Option<()> {
        let (system, opts) = (self.system, self.opts);
        let round = Round::new(self.history, list);
        let time = round.contests().map(|c| c.time()).min().unwrap_or(0);
        let key = opts.period.calendar_key(time);
        // A player of two contests of the round arrives once (the players of one contest,
        // most rounds, are distinct: no stamp needed).
        let single = list.len() == 1;
        self.round_no += 1;
        self.parts.clear();
        for c in round.contests() {
            if crate::systems::refusal(system, &c).is_some() {
                return None;
            }
            for &p in c.players() {
                let pi = p as usize;
                if !single {
                    if self.stamp[pi] == self.round_no {
                        continue;
                    }
                    self.stamp[pi] = self.round_no;
                }
                self.parts.push(p);
                if let Some(r) = &mut self.regression {
                    r.pay(system, (&mut states[pi], pi), self.played[pi]);
                }
                // Time passes for him as the replay lets it pass.
                if self.played[pi] {
                    let last = (self.last_key[pi], self.last_time[pi]);
                    let passed = opts.time_passed(last, (key, time), true, self.measured);
                    system.elapse(&mut states[pi], passed);
                }
                if let Some(k) = key {
                    self.last_key[pi] = k;
                }
            }
        }
        // The ratings are read only at the end: a whole-history system accumulates the round
        // (`WholeHistory::accumulate`), any other rates it.
        // Under `--draws ignore` a drawn game is rated as if not played, as in the replay.
        let mut kept = Vec::new();
        let rated = opts.draws.rated(round, &mut kept);
        match system.whole_history() {
            Some(whole) => whole.accumulate(rated, states),
            None => system.update(rated, states),
        }
        for c in round.contests() {
            for &p in c.players() {
                self.played[p as usize] = true;
                self.last_time[p as usize] = self.last_time[p as usize].max(c.time());
            }
        }
        if let Some(r) = &mut self.regression {
            for &p in &self.parts {
                r.rated(system, &states[p as usize]);
            }
        }
        self.parts
            .iter()
            .all(|&p| runaway(&system.rating(&states[p as usize])).is_none())
            .then_some(())
    }
}

/// The metrics of each replicate: the scored contests re-summed with the replicate's counts.
pub fn metric_replicates(scores: &[ScoredContest], ci: &CiOptions) -> Vec<MetricsReport> {
    // Replicates in groups, each group walking the contests a cache-sized piece at a time
    // (every replicate of the group sums the piece while it is in cache).
    const GROUP: u32 = 16;
    const PIECE: usize = 2048;
    let groups: Vec<Vec<MetricsReport>> = (0..ci.replicates.div_ceil(GROUP))
        .into_par_iter()
        .map(|g| {
            let reps: Vec<u32> = (g * GROUP..((g + 1) * GROUP).min(ci.replicates)).collect();
            let mut sums = vec![Metrics::new(); reps.len()];
            for start in (0..scores.len()).step_by(PIECE) {
                let end = (start + PIECE).min(scores.len());
                for (m, &r) in sums.iter_mut().zip(&reps) {
                    m.add_parts(&scores[start..end], |i| {
                        poisson_count(ci.seed, r, scores[start + i].contest)
                    });
                }
            }
            sums.iter().map(Metrics::report).collect()
        })
        .collect();
    groups.into_iter().flatten().collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The inverse steps up exactly at each value of the distribution function, in the
    /// branchless part and in the tail.
    #[test]
    fn poisson_inverse_steps_at_each_value() {
        assert_eq!(poisson_inverse(0), 0);
        for (k, &c) in POISSON_CDF.iter().enumerate() {
            assert_eq!(poisson_inverse(c - 1), k as u32, "below step {k}");
            assert_eq!(poisson_inverse(c), k as u32 + 1, "at step {k}");
        }
        assert_eq!(poisson_inverse(u64::MAX), 20);
    }

    #[test]
    fn poisson_counts_have_mean_and_variance_one() {
        let n = 200_000u32;
        let counts: Vec<f64> = (0..n)
            .map(|c| f64::from(poisson_count(7, c % 13, c)))
            .collect();
        let mean = counts.iter().sum::<f64>() / f64::from(n);
        let var = counts.iter().map(|k| (k - mean).powi(2)).sum::<f64>() / f64::from(n);
        // Standard errors: 1/sqrt(n) = 0.0022 for the mean, about sqrt(3/n) = 0.0039 for the
        // variance.
        assert!((mean - 1.0).abs() < 0.01, "{mean}");
        assert!((var - 1.0).abs() < 0.02, "{var}");
        let zeros = counts.iter().filter(|&&k| k == 0.0).count() as f64 / f64::from(n);
        assert!((zeros - (-1f64).exp()).abs() < 0.005, "{zeros}");
    }

    #[test]
    fn central_interpolates_between_order_statistics() {
        let mut v: Vec<f64> = (0..=100).rev().map(f64::from).collect();
        let (lo, hi) = central(&mut v, 0.9).unwrap();
        assert!(
            (lo - 5.0).abs() < 1e-9 && (hi - 95.0).abs() < 1e-9,
            "{lo} {hi}"
        );
        let mut v = vec![1.0, 2.0];
        assert_eq!(central(&mut v, 0.5), Some((1.25, 1.75)));
        assert_eq!(central(&mut [], 0.95), None);
    }
}
