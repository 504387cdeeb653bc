//! Accuracy metrics, as defined in docs/design.md (after the Elo-MMR paper and its reference
//! implementation). Every contest is scored before its round is applied, from pre-round
//! ratings; the replay decides which participants are scored (warm-up, first contest,
//! experience), this module only counts.
//!
//! - Pair inversion (higher is better): each participant scores the percentage of the others
//!   whose order relative to him the ratings predict correctly. A pair is wrong only when the
//!   participant placed strictly better has a strictly lower rating. The contest's mean equals
//!   `100 (1 - inversions / C(n,2))`, with inversions counted by merge sort.
//! - Rank deviation (lower is better): sorted by rating (descending, ties in standings order),
//!   the participant at position i with places lo..=hi among the scored participants scores
//!   `100 |i - clamp(i, lo, hi)| / (n - 1)`.
//! - Both are averaged over all scored (participant, contest) pairs. Contests with fewer than
//!   two scored participants, or where they all tie, are skipped.
//! - Two-entry contests also: log-loss (natural log), Brier score, and the accuracy of the
//!   favourite (1 if it won, 1/2 for a draw or when there is no favourite, 0 if it lost).

use serde::Serialize;

/// One scored participant (an entry) of a contest.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Participant {
    /// Pre-round rating (a team's mean).
    pub rating: f64,
    /// Places in the contest (any consistent numbering; renumbered here).
    pub lo: u32,
    /// Worst place covered.
    pub hi: u32,
}

/// Sums of one contest's per-participant scores.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ContestScore {
    /// Number of scored participants.
    pub n: usize,
    /// Sum over participants of their pair-inversion score (percent).
    pub pair_sum: f64,
    /// Sum over participants of their rank-deviation score (percent).
    pub rank_sum: f64,
}

/// One scored contest's parts of the metrics, kept for the metrics' bootstrap intervals.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ScoredContest {
    /// The contest's index in the history.
    pub contest: u32,
    /// Its ranking score over all scored participants, if it counted.
    pub all: Option<ContestScore>,
    /// Over the experienced ones, if it counted.
    pub experienced: Option<ContestScore>,
    /// A two-entry contest's log-loss, Brier score and accuracy (as [`Metrics::add_game`]
    /// gives them).
    pub two: Option<(f64, f64, f64)>,
    /// Its three-outcome log-loss (0 when `two` is `None`).
    pub log_loss_3: f64,
}

/// Buffers reused from contest to contest.
#[derive(Clone, Debug, Default)]
pub struct Scratch {
    by_rating: Vec<(f64, u32, u32)>,
    values: Vec<f64>,
    merge: Vec<f64>,
}

/// Scores one contest. `parts` is in standings order or any order; it is reordered.
/// Returns `None` for a contest that is skipped (fewer than two participants, all tied).
pub fn score_contest(parts: &mut [Participant], scratch: &mut Scratch) -> Option<ContestScore> {
    let n = parts.len();
    if n < 2 {
        return None;
    }
    if let [a, b] = parts {
        // Two participants: the pair is wrong when the better placed is strictly lower rated;
        // then both are one position off.
        if (a.lo, a.hi) == (b.lo, b.hi) {
            return None;
        }
        let (better, worse) = if (a.lo, a.hi) < (b.lo, b.hi) {
            (a, b)
        } else {
            (b, a)
        };
        let wrong = better.rating < worse.rating;
        return Some(ContestScore {
            n: 2,
            pair_sum: if wrong { 0.0 } else { 200.0 },
            rank_sum: if wrong { 200.0 } else { 0.0 },
        });
    }
    // Standings order, ties in input order (a stable sort).
    parts.sort_by_key(|p| (p.lo, p.hi));
    if parts[0].lo == parts[n - 1].lo && parts[0].hi == parts[n - 1].hi {
        return None;
    }
    // Renumber places within the scored participants: a tie block (equal lo..=hi) covers the
    // positions of its members.
    let mut start = 0;
    for block in parts.chunk_by_mut(|a, b| (a.lo, a.hi) == (b.lo, b.hi)) {
        let end = start + block.len();
        for p in block {
            p.lo = start as u32;
            p.hi = (end - 1) as u32;
        }
        start = end;
    }
    let denom = (n - 1) as f64;

    // Rank deviation: stable sort by rating, descending (equal ratings keep standings order).
    let by_rating = &mut scratch.by_rating;
    by_rating.clear();
    by_rating.extend(parts.iter().map(|p| (p.rating, p.lo, p.hi)));
    by_rating.sort_by(|a, b| b.0.total_cmp(&a.0));
    let rank_sum: f64 = by_rating
        .iter()
        .enumerate()
        .map(|(i, &(_, lo, hi))| {
            let i = i as u32;
            let err = i.abs_diff(i.clamp(lo, hi));
            100.0 * err as f64 / denom
        })
        .sum();

    // Pair inversion: within each tie block order by rating descending, so that no pair of a
    // block can count; then count pairs i < j with rating_i < rating_j strictly, which are
    // exactly the pairs where the better placed has the strictly lower rating.
    for block in parts.chunk_by_mut(|a, b| a.lo == b.lo) {
        block.sort_by(|a, b| b.rating.total_cmp(&a.rating));
    }
    scratch.values.clear();
    scratch.values.extend(parts.iter().map(|p| -p.rating));
    let inversions = count_strict_inversions(&mut scratch.values, &mut scratch.merge);
    let pairs = (n * (n - 1) / 2) as f64;
    let pair_sum = n as f64 * 100.0 * (1.0 - inversions as f64 / pairs);
    Some(ContestScore {
        n,
        pair_sum,
        rank_sum,
    })
}

/// Number of pairs i < j with `x[i] > x[j]` strictly. Sorts `x` (merge sort, O(n log n));
/// `buf` is scratch space.
pub fn count_strict_inversions(x: &mut [f64], buf: &mut Vec<f64>) -> u64 {
    let n = x.len();
    if n < 2 {
        return 0;
    }
    buf.clear();
    buf.resize(n, 0.0);
    sort_count(x, buf)
}

fn sort_count(x: &mut [f64], buf: &mut [f64]) -> u64 {
    let n = x.len();
    if n <= 16 {
        // Insertion sort, counting each strict overtaking.
        let mut count = 0;
        for i in 1..n {
            let v = x[i];
            let mut j = i;
            while j > 0 && x[j - 1] > v {
                x[j] = x[j - 1];
                j -= 1;
                count += 1;
            }
            x[j] = v;
        }
        return count;
    }
    let mid = n / 2;
    let mut count = {
        let (l, r) = x.split_at_mut(mid);
        let (bl, br) = buf.split_at_mut(mid);
        sort_count(l, bl) + sort_count(r, br)
    };
    let (mut i, mut j, mut k) = (0, mid, 0);
    while i < mid && j < n {
        if x[j] < x[i] {
            // x[j] is smaller than every remaining left element.
            count += (mid - i) as u64;
            buf[k] = x[j];
            j += 1;
        } else {
            buf[k] = x[i];
            i += 1;
        }
        k += 1;
    }
    buf[k..k + (mid - i)].copy_from_slice(&x[i..mid]);
    k += mid - i;
    buf[k..k + (n - j)].copy_from_slice(&x[j..n]);
    x.copy_from_slice(&buf[..n]);
    count
}

/// Running sums of a ranking metric.
#[derive(Clone, Debug, Default, serde::Serialize, serde::Deserialize)]
struct RankingSums {
    pair_sum: f64,
    rank_sum: f64,
    participants: u64,
    contests: u64,
}

impl RankingSums {
    fn add(&mut self, s: ContestScore) {
        self.pair_sum += s.pair_sum;
        self.rank_sum += s.rank_sum;
        self.participants += s.n as u64;
        self.contests += 1;
    }
    fn report(&self) -> RankingReport {
        let avg = |s: f64| (self.participants > 0).then(|| s / self.participants as f64);
        RankingReport {
            pair_inversion: avg(self.pair_sum),
            rank_deviation: avg(self.rank_sum),
            participants_scored: self.participants,
            contests_scored: self.contests,
        }
    }
}

/// Running sums of the two-entry metrics.
#[derive(Clone, Debug, Default, serde::Serialize, serde::Deserialize)]
struct TwoSums {
    games: u64,
    log_loss: f64,
    brier: f64,
    accuracy: f64,
}

/// Running sums of the three-outcome metrics of two-entry contests (win, draw, loss): kept
/// in a state file apart from the others (the [`Metrics`]' `three`), which older state files
/// lack.
#[derive(Clone, Debug, Default, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct ThreeSums {
    games: u64,
    log_loss: f64,
    draws: f64,
    predicted_draws: f64,
}

/// The sums of the constant forecast of the base rate over the scored games (kept in a state
/// file apart from the others, which older state files lack): the games with a first side and
/// the first side's total score (forecast: its mean), and the games without one (forecast:
/// 1/2, since which side is listed first means nothing).
#[derive(Clone, Debug, Default, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct BaseSums {
    sided: u64,
    sided_score: f64,
    sideless: u64,
}

impl BaseSums {
    /// The constant forecast's log-loss, where a game was scored.
    fn log_loss(&self) -> Option<f64> {
        let n = self.sided + self.sideless;
        if n == 0 {
            return None;
        }
        let mut total = self.sideless as f64 * std::f64::consts::LN_2;
        if self.sided > 0 {
            let p = (self.sided_score / self.sided as f64).clamp(P_CLIP, 1.0 - P_CLIP);
            let losses = self.sided as f64 - self.sided_score;
            total -= self.sided_score * p.ln() + losses * (1.0 - p).ln();
        }
        Some(total / n as f64)
    }
}

/// Pair inversion and rank deviation over a set of participants.
#[derive(Clone, Debug, Default, PartialEq, Serialize, serde::Deserialize)]
pub struct RankingReport {
    /// Percent, higher is better.
    pub pair_inversion: Option<f64>,
    /// Percent, lower is better.
    pub rank_deviation: Option<f64>,
    /// Scored (participant, contest) pairs.
    pub participants_scored: u64,
    /// Contests that counted.
    pub contests_scored: u64,
}

/// The two-entry metrics.
#[derive(Clone, Debug, Default, PartialEq, Serialize, serde::Deserialize)]
pub struct TwoReport {
    /// Two-entry contests scored.
    pub games_scored: u64,
    /// Mean negative log-likelihood of the outcome (natural log; draws as half a win).
    pub log_loss: Option<f64>,
    /// Mean squared error of the win probability.
    pub brier: Option<f64>,
    /// Share of games the favourite won (draws and no favourite count half), in percent
    /// (as every share in the outputs).
    pub accuracy: Option<f64>,
    /// Mean negative log-likelihood of the outcome among three (win, draw, loss; natural
    /// log), over the same games.
    pub log_loss_3: Option<f64>,
    /// Share of the games drawn, in percent.
    pub draw_rate: Option<f64>,
    /// The log-loss of the constant forecast of the base rate over the same games: the first
    /// side's mean score for the games with one, 1/2 for the others. A system whose log-loss
    /// is above it predicts worse than knowing nothing of the players.
    pub base_log_loss: Option<f64>,
    /// Mean predicted probability of a draw, in percent (equal to the draw rate when the draw
    /// predictions are calibrated on the whole).
    pub predicted_draw_rate: Option<f64>,
}

/// Every metric of a replay.
#[derive(Clone, Debug, Default, PartialEq, Serialize, serde::Deserialize)]
pub struct MetricsReport {
    /// All scored participants.
    pub all: RankingReport,
    /// Participants with at least the experience threshold of earlier contests.
    pub experienced: RankingReport,
    /// Two-entry contests.
    pub two_player: TwoReport,
}

/// Accumulates the metrics of a replay.
#[derive(Clone, Debug, Default, serde::Serialize, serde::Deserialize)]
pub struct Metrics {
    all: RankingSums,
    experienced: RankingSums,
    two: TwoSums,
    #[serde(skip)]
    scratch: Scratch,
    /// The three-outcome sums and the base rate's sums, kept apart in a state file.
    #[serde(skip)]
    pub(crate) three: ThreeSums,
    #[serde(skip)]
    pub(crate) base: BaseSums,
}

/// Probabilities are kept this far from 0 and 1 in the log-loss.
const P_CLIP: f64 = 1e-15;

impl Metrics {
    /// A new, empty accumulator.
    pub fn new() -> Self {
        Self::default()
    }

    /// Checks sums read back from a state file: finite, non-negative and within what their
    /// counts allow (each participant's score is a percentage; each game's Brier score and
    /// accuracy at most 1, its log-loss at most -ln 1e-15).
    pub fn check(&self) -> Result<(), String> {
        let ok =
            |v: f64, count: u64, per: f64| v.is_finite() && v >= 0.0 && v <= count as f64 * per;
        for (what, r) in [("all", &self.all), ("experienced", &self.experienced)] {
            if !(ok(r.pair_sum, r.participants, 100.0) && ok(r.rank_sum, r.participants, 100.0)) {
                return Err(format!("its {what} ranking metrics are out of range"));
            }
        }
        let t = &self.two;
        let max_loss = -P_CLIP.ln() + 1e-9;
        if !(ok(t.log_loss, t.games, max_loss)
            && ok(t.brier, t.games, 1.0)
            && ok(t.accuracy, t.games, 1.0))
        {
            return Err("its two-player metrics are out of range".into());
        }
        let t = &self.three;
        if !(ok(t.log_loss, t.games, max_loss)
            && ok(t.draws, t.games, 1.0)
            && ok(t.predicted_draws, t.games, 1.0 + 1e-9))
        {
            return Err("its three-outcome metrics are out of range".into());
        }
        Ok(())
    }

    /// Scores a contest for all scored participants (`experienced = false`) or for the
    /// experienced subset (`true`).
    /// Returns the contest's score, `None` when it does not count.
    #[inline]
    pub fn add_ranking(
        &mut self,
        parts: &mut [Participant],
        experienced: bool,
    ) -> Option<ContestScore> {
        let s = score_contest(parts, &mut self.scratch)?;
        if experienced {
            self.experienced.add(s);
        } else {
            self.all.add(s);
        }
        Some(s)
    }

    /// Scores a two-entry contest: `p` the first entry's predicted expected score, `y` its
    /// result (1, 1/2, 0), `three` its predicted probabilities of a win, a draw and a loss,
    /// `sided` whether the first entry plays a first side. Returns the contest's log-loss,
    /// Brier score and accuracy (as [`ScoredContest::two`] keeps them) and its three-outcome
    /// log-loss.
    #[inline]
    pub fn add_game(
        &mut self,
        p: f64,
        y: f64,
        three: &[f64; 3],
        sided: bool,
    ) -> ((f64, f64, f64), f64) {
        if sided {
            self.base.sided += 1;
            self.base.sided_score += y;
        } else {
            self.base.sideless += 1;
        }
        let ll3 = -crate::draws::of_outcome(three, y).clamp(P_CLIP, 1.0).ln();
        let t = &mut self.three;
        t.games += 1;
        t.log_loss += ll3;
        t.draws += f64::from(y == 0.5);
        t.predicted_draws += three[1];
        // The two-outcome metrics: log-loss, Brier score, accuracy.
        let pc = p.clamp(P_CLIP, 1.0 - P_CLIP);
        // A win or a loss needs one logarithm: the other term is zero (exactly: `0 * ln q`
        // is -0, and `x + -0` is `x`).
        let log_loss = if y == 1.0 {
            -pc.ln()
        } else if y == 0.0 {
            -(1.0 - pc).ln()
        } else {
            -(y * pc.ln() + (1.0 - y) * (1.0 - pc).ln())
        };
        let terms = (
            log_loss,
            (p - y) * (p - y),
            if p > 0.5 {
                y
            } else if p < 0.5 {
                1.0 - y
            } else {
                0.5
            },
        );
        self.two.games += 1;
        self.two.log_loss += terms.0;
        self.two.brier += terms.1;
        self.two.accuracy += terms.2;
        (terms, ll3)
    }

    /// Adds scored contests' contributions, each `times(i)` times (`i` its position in
    /// `parts`; 0: left out): a bootstrap replicate's metrics.
    pub fn add_parts(&mut self, parts: &[ScoredContest], times: impl Fn(usize) -> u32) {
        let m = self;
        for (i, s) in parts.iter().enumerate() {
            // (No branch on a count of 0, a third of them: it would be mispredicted.)
            let k = times(i);
            let kf = f64::from(k);
            for (sums, score) in [(&mut m.all, s.all), (&mut m.experienced, s.experienced)] {
                if let Some(c) = score {
                    sums.pair_sum += kf * c.pair_sum;
                    sums.rank_sum += kf * c.rank_sum;
                    sums.participants += u64::from(k) * c.n as u64;
                    sums.contests += u64::from(k);
                }
            }
            if let Some((ll, brier, accuracy)) = s.two {
                m.two.games += u64::from(k);
                m.two.log_loss += kf * ll;
                m.two.brier += kf * brier;
                m.two.accuracy += kf * accuracy;
                m.three.games += u64::from(k);
                m.three.log_loss += kf * s.log_loss_3;
            }
        }
    }

    /// The averages.
    pub fn report(&self) -> MetricsReport {
        let t = &self.two;
        let avg = |s: f64| (t.games > 0).then(|| s / t.games as f64);
        let three = &self.three;
        let avg3 = |s: f64| (three.games > 0).then(|| s / three.games as f64);
        MetricsReport {
            all: self.all.report(),
            experienced: self.experienced.report(),
            two_player: TwoReport {
                games_scored: t.games,
                log_loss: avg(t.log_loss),
                brier: avg(t.brier),
                accuracy: avg(100.0 * t.accuracy),
                log_loss_3: avg3(three.log_loss),
                draw_rate: avg3(100.0 * three.draws),
                base_log_loss: self.base.log_loss(),
                predicted_draw_rate: avg3(100.0 * three.predicted_draws),
            },
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn p(rating: f64, lo: u32, hi: u32) -> Participant {
        Participant { rating, lo, hi }
    }

    fn score(mut parts: Vec<Participant>) -> Option<ContestScore> {
        score_contest(&mut parts, &mut Scratch::default())
    }

    /// Pair inversion by brute force over pairs, per participant, from the definition.
    fn brute(parts: &[Participant]) -> f64 {
        let n = parts.len();
        let mut pair = 0.0;
        for (i, a) in parts.iter().enumerate() {
            let correct = parts
                .iter()
                .enumerate()
                .filter(|&(j, b)| {
                    j != i && {
                        let wrong = (a.hi < b.lo && a.rating < b.rating)
                            || (b.hi < a.lo && b.rating < a.rating);
                        !wrong
                    }
                })
                .count();
            pair += 100.0 * correct as f64 / (n - 1) as f64;
        }
        pair
    }

    #[test]
    fn hand_computed_standings_with_ties() {
        // Standings: A 1st; B, C tied 2nd-3rd; D 4th; E 5th.
        // Ratings:   A 1500, B 1700, C 1400, D 1600, E 1600.
        let parts = vec![
            p(1500.0, 0, 0),
            p(1700.0, 1, 2),
            p(1400.0, 1, 2),
            p(1600.0, 3, 3),
            p(1600.0, 4, 4),
        ];
        // Wrong pairs (better placed, strictly lower rated): A-B, A-D, A-E, C-D, C-E.
        // B-C tie: never wrong; D-E equal ratings: not wrong. 5 of C(5,2) = 10 -> 50 %.
        let s = score(parts.clone()).unwrap();
        assert_eq!(s.n, 5);
        assert!((s.pair_sum / 5.0 - 50.0).abs() < 1e-12);
        assert!((s.pair_sum - brute(&parts)).abs() < 1e-9);
        // Rank deviation. By rating (ties keep standings order): B(1..2) at 0 -> 1; D(3) at 1 -> 2;
        // E(4) at 2 -> 2; A(0) at 3 -> 3; C(1..2) at 4 -> 2. Sum 10 of n-1 = 4: 250 %.
        assert!((s.rank_sum - 250.0).abs() < 1e-12, "{}", s.rank_sum);
    }

    #[test]
    fn a_predicted_position_inside_the_tie_range_costs_nothing() {
        // A and B tie for 1st-2nd, C 3rd. Ratings: B > A > C: B at position 0 in 0..1, A at 1 in 0..1.
        let s = score(vec![p(1500.0, 0, 1), p(1600.0, 0, 1), p(1400.0, 2, 2)]).unwrap();
        assert_eq!(s.rank_sum, 0.0);
        assert_eq!(s.pair_sum, 300.0);
    }

    #[test]
    fn equal_ratings_are_never_wrong_and_keep_standings_order() {
        let s = score(vec![p(1500.0, 0, 0), p(1500.0, 1, 1), p(1500.0, 2, 2)]).unwrap();
        assert_eq!(s.pair_sum, 300.0);
        assert_eq!(s.rank_sum, 0.0);
    }

    #[test]
    fn places_are_renumbered_within_the_scored_participants() {
        // Original places 3, 7, 7, 12 (others not scored): same as 0, 1..2, 1..2, 3.
        let a = score(vec![
            p(1.0, 3, 3),
            p(3.0, 7, 8),
            p(2.0, 7, 8),
            p(4.0, 12, 12),
        ])
        .unwrap();
        let b = score(vec![p(1.0, 0, 0), p(3.0, 1, 2), p(2.0, 1, 2), p(4.0, 3, 3)]).unwrap();
        assert_eq!(a, b);
        // By rating: 4.0 (place 3) at 0 -> 3; 3.0 (1..2) at 1 -> 0; 2.0 (1..2) at 2 -> 0; 1.0 (0) at 3 -> 3.
        assert!((a.rank_sum - 200.0).abs() < 1e-12);
    }

    #[test]
    fn two_participants_agree_with_the_general_definition() {
        for (ra, rb) in [(1.0, 2.0), (2.0, 1.0), (1.0, 1.0)] {
            let s = score(vec![p(ra, 0, 0), p(rb, 1, 1)]).unwrap();
            let wrong = ra < rb;
            assert_eq!(s.pair_sum, if wrong { 0.0 } else { 200.0 });
            assert_eq!(s.rank_sum, if wrong { 200.0 } else { 0.0 });
            // The same pair inside a larger contest, via the merge-sort path, with a third
            // participant placed last and rated lowest (never wrong, never off).
            let g = score(vec![p(ra, 0, 0), p(rb, 1, 1), p(-10.0, 2, 2)]).unwrap();
            let inv = if wrong { 1.0 } else { 0.0 };
            assert!((g.pair_sum - 300.0 * (1.0 - inv / 3.0)).abs() < 1e-12);
        }
        assert_eq!(score(vec![p(1.0, 0, 1), p(2.0, 0, 1)]), None);
    }

    #[test]
    fn skipped_contests() {
        assert_eq!(score(vec![p(1.0, 0, 0)]), None);
        assert_eq!(
            score(vec![p(1.0, 0, 2), p(2.0, 0, 2), p(3.0, 0, 2)]),
            None,
            "everyone ties"
        );
    }

    #[test]
    fn order_within_a_tie_does_not_matter() {
        let a = score(vec![p(1.0, 0, 0), p(5.0, 1, 2), p(2.0, 1, 2), p(3.0, 3, 3)]).unwrap();
        let b = score(vec![p(1.0, 0, 0), p(2.0, 1, 2), p(5.0, 1, 2), p(3.0, 3, 3)]).unwrap();
        assert_eq!(a, b);
    }

    #[test]
    fn merge_sort_inversions_match_brute_force() {
        let mut seed = 12345u64;
        for n in [2usize, 5, 17, 40, 200] {
            let v: Vec<f64> = (0..n)
                .map(|_| {
                    seed = seed
                        .wrapping_mul(6364136223846793005)
                        .wrapping_add(1442695040888963407);
                    ((seed >> 33) % 13) as f64
                })
                .collect();
            let brute = (0..n)
                .flat_map(|i| (i + 1..n).map(move |j| (i, j)))
                .filter(|&(i, j)| v[i] > v[j])
                .count() as u64;
            let mut w = v.clone();
            assert_eq!(
                count_strict_inversions(&mut w, &mut Vec::new()),
                brute,
                "n = {n}"
            );
            assert!(w.windows(2).all(|x| x[0] <= x[1]));
        }
    }

    #[test]
    fn two_player_metrics() {
        let mut m = Metrics::new();
        for (p, y) in [(0.8, 1.0), (0.8, 0.0), (0.5, 0.5), (0.25, 0.5)] {
            m.add_game(p, y, &crate::draws::split(p, 0.0), false);
        }
        let r = m.report().two_player;
        assert_eq!(r.games_scored, 4);
        let ll = (-(0.8f64.ln()) - 0.2f64.ln() - 0.5f64.ln() - 0.5 * (0.25f64.ln() + 0.75f64.ln()))
            / 4.0;
        assert!((r.log_loss.unwrap() - ll).abs() < 1e-12);
        assert!((r.brier.unwrap() - (0.04 + 0.64 + 0.0 + 0.0625) / 4.0).abs() < 1e-12);
        // In percent.
        assert!((r.accuracy.unwrap() - 100.0 * (1.0 + 0.0 + 0.5 + 0.5) / 4.0).abs() < 1e-12);
    }
}
