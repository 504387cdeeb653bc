//! What the two all-pairs systems (BAR and pairwise Glicko, the Elo-MMR paper's baselines of
//! section 6.2) share: a Gaussian belief per player, the skill drift before a round, teams,
//! a canonical order of a contest's entries, and how several contests of a round combine.
//!
//! Each contest is rated from the pre-round states (after the drift): every entry (a player, or
//! a team with its members' mean `mu` and root-mean-square `sigma`) gets a pair `(a, v)` from
//! the system, every member of the entry receives it, and a player's pairs from the contests of
//! the round are combined by the system (`a` summed in contest order, `v` folded by the system's
//! rule) into one change of `mu` and one factor of `sigma^2`.
//!
//! For the normalised BAR and pairwise Glicko (the defaults), a contest in which every entry
//! shares the first place carries no information and is skipped, as the Elo-MMR reference
//! implementation skips it (without it the normalised systems would still shrink every `sigma`
//! by a whole game's information); its players get no drift from it. The published updates
//! (`normalise = false`, and Glicko) rate it: a drawn game scores 1/2, which moves two players
//! of different ratings towards each other.
//!
//! Outcomes compare the entries' best places `lo` (smaller is better, equal is a tie), as the
//! reference implementation does; for standings whose tied entries share one place range, this
//! is the same as comparing the ranges.
//!
//! The O(n^2) sums run over the entries in a canonical order (place, then `mu`, then variance),
//! so that a player's sums do not depend on the input order of the entries, and each entry's
//! sums are computed on their own, in four fixed lanes, whatever the number of threads.

use super::base::Rating;
use crate::history::{Contest, PlayerId, Round};

/// Contests at least this large have their entries' sums computed in parallel.
pub const PARALLEL_FROM: usize = 128;

/// A player's belief: mean and standard deviation of the skill.
#[derive(Clone, Copy, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct MuSigma {
    /// The mean.
    pub mu: f64,
    /// The standard deviation.
    pub sigma: f64,
}

impl MuSigma {
    /// The rating the outputs show: the mean, its deviation, and the mean again as display
    /// (neither Glickman nor Weng and Lin define a conservative rating).
    pub fn rating(&self) -> Rating {
        Rating::new(self.mu, Some(self.sigma))
    }
}

/// A side (an entry, or a side of a prediction): its members' mean `mu` and mean variance
/// (the square of the root mean square of their `sigma`).
pub fn side_belief(players: &[MuSigma], side: &[PlayerId]) -> (f64, f64) {
    if let [one] = side {
        let p = &players[*one as usize];
        return (p.mu, p.sigma * p.sigma);
    }
    let n = side.len() as f64;
    let (mut mu, mut var) = (0.0, 0.0);
    for &id in side {
        let p = &players[id as usize];
        mu += p.mu;
        var += p.sigma * p.sigma;
    }
    (mu / n, var / n)
}

/// [`side_belief`] with each player weighted by his share of the contest (partial play):
/// the share-weighted means of `mu` and of the variance.
pub fn entry_belief(players: &[MuSigma], e: &crate::history::Entry<'_>) -> (f64, f64) {
    let total: f64 = e.weights.iter().sum();
    if e.weights.is_empty() || total <= 0.0 {
        return side_belief(players, e.players);
    }
    let (mut mu, mut var) = (0.0, 0.0);
    for (&id, &w) in e.players.iter().zip(e.weights) {
        let p = &players[id as usize];
        mu += w * p.mu;
        var += w * p.sigma * p.sigma;
    }
    (mu / total, var / total)
}

/// A contest's entries in canonical order: by best place, then `mu`, then variance. Entries
/// equal in all three are interchangeable, so any input order gives the same sums.
pub struct Field {
    /// Means, in canonical order.
    pub mu: Vec<f64>,
    /// Variances, in canonical order.
    pub var: Vec<f64>,
    /// For each position, its tie block `[start, end)`: the positions before `start` placed
    /// better, those from `end` on placed worse.
    pub block: Vec<(usize, usize)>,
    /// The entry index (input order) at each position.
    order: Vec<u32>,
}

impl Field {
    /// The entries of a contest, from the (drifted) pre-round states; a game's first side
    /// with `advantage` added to its mean (see [`Contest::first_side`]).
    pub fn new(contest: &Contest, players: &[MuSigma], advantage: f64) -> Self {
        let shift = if contest.first_side() { advantage } else { 0.0 };
        let mut rows: Vec<(u32, f64, f64, u32)> = contest
            .entries()
            .enumerate()
            .map(|(i, e)| {
                let (mu, var) = entry_belief(players, &e);
                let mu = if i == 0 { mu + shift } else { mu };
                (e.lo, mu, var, i as u32)
            })
            .collect();
        rows.sort_unstable_by(|x, y| {
            x.0.cmp(&y.0)
                .then(x.1.total_cmp(&y.1))
                .then(x.2.total_cmp(&y.2))
                .then(x.3.cmp(&y.3))
        });
        let n = rows.len();
        let mut block = Vec::with_capacity(n);
        for same in rows.chunk_by(|a, b| a.0 == b.0) {
            let start = block.len();
            block.resize(start + same.len(), (start, start + same.len()));
        }
        Self {
            mu: rows.iter().map(|r| r.1).collect(),
            var: rows.iter().map(|r| r.2).collect(),
            block,
            order: rows.iter().map(|r| r.3).collect(),
        }
    }

    /// Number of entries.
    pub fn len(&self) -> usize {
        self.mu.len()
    }

    /// True for a field without entries (never built from a valid contest).
    pub fn is_empty(&self) -> bool {
        self.mu.is_empty()
    }

    /// For every position i, the sums of `w` over the positions placed worse than i and over
    /// i's tie block (i itself included), each summed term by term (no difference of
    /// running sums): what a tabulated update needs of the places.
    pub fn worse_and_tied(&self, w: &[f64]) -> Vec<(f64, f64)> {
        let n = self.len();
        let mut after = vec![0.0; n + 1];
        for q in (0..n).rev() {
            after[q] = after[q + 1] + w[q];
        }
        let mut out = vec![(0.0, 0.0); n];
        let mut i = 0;
        while i < n {
            let (start, end) = self.block[i];
            let tied: f64 = w[start..end].iter().sum();
            out[start..end].fill((after[end], tied));
            i = end;
        }
        out
    }

    /// `f(i)` for every position, in parallel for large fields; each value is computed on its
    /// own, so the results do not depend on the number of threads.
    pub fn map<T: Send>(&self, f: impl Fn(usize) -> T + Sync + Send) -> Vec<T> {
        super::base::map_indices(self.len(), PARALLEL_FROM, f)
    }
}

/// Opponents are summed in blocks of this many: `f` over the block into a buffer (a loop
/// without reduction, which the compiler vectorises), then the buffer into the lanes.
const BLOCK: usize = 64;

/// `sum over the opponents o of f(o)` (K sums at once) in four fixed lanes: the opponent at
/// offset t goes to lane `t % 4`, and the lanes are added pairwise at the end. The result
/// depends only on the opponents and their order.
#[inline(always)]
pub fn lane_sums<T: Copy, const K: usize>(opps: &[T], f: impl Fn(T) -> [f64; K]) -> [f64; K] {
    let mut acc = [[0.0f64; 4]; K];
    let mut buf = [[0.0f64; BLOCK]; K];
    for block in opps.chunks(BLOCK) {
        for (t, &o) in block.iter().enumerate() {
            let x = f(o);
            for k in 0..K {
                buf[k][t] = x[k];
            }
        }
        for k in 0..K {
            let lanes = &mut acc[k];
            let values = &buf[k][..block.len()];
            let mut quads = values.chunks_exact(4);
            for quad in &mut quads {
                for l in 0..4 {
                    lanes[l] += quad[l];
                }
            }
            for (l, &v) in quads.remainder().iter().enumerate() {
                lanes[l] += v;
            }
        }
    }
    std::array::from_fn(|k| (acc[k][0] + acc[k][1]) + (acc[k][2] + acc[k][3]))
}

/// The sums of `f` for position `i` of the field, over the opponents `opps` (one per position,
/// canonical order), split by outcome: over the positions placed better (i lost), tied with i
/// (i itself left out) and worse (i won).
#[inline(always)]
pub fn split_sums<T: Copy, const K: usize>(
    field: &Field,
    opps: &[T],
    i: usize,
    f: impl Fn(T) -> [f64; K] + Copy,
) -> [[f64; K]; 3] {
    let (start, end) = field.block[i];
    let (t1, t2) = (
        lane_sums(&opps[start..i], f),
        lane_sums(&opps[i + 1..end], f),
    );
    [
        lane_sums(&opps[..start], f),
        std::array::from_fn(|k| t1[k] + t2[k]),
        lane_sums(&opps[end..], f),
    ]
}

/// A system that rates a contest entry by entry from the canonical field.
pub trait AllPairs: Sync {
    /// The standard deviation added to every participant's skill before a round.
    fn drift(&self) -> f64;

    /// `(a, v)` for every position of the field (canonical order); `weight` is the contest's.
    fn contest(&self, field: &Field, weight: f64) -> Vec<(f64, f64)>;

    /// The `v` of a player in no contest (the identity of [`fold`](Self::fold)).
    const V_NONE: f64;

    /// Combines the `v` of two contests of one round.
    fn fold(acc: f64, v: f64) -> f64;

    /// The change of `mu` and the factor of `sigma^2` from the summed `a` and folded `v`.
    fn finish(&self, a: f64, v: f64) -> (f64, f64);

    /// The first side's advantage in a game played with one (0: none).
    fn advantage(&self) -> f64 {
        0.0
    }

    /// Whether a contest whose entries all share the first place is skipped (the Elo-MMR
    /// reference implementation's baselines) rather than rated as a draw.
    fn skips_all_tied(&self) -> bool {
        true
    }
}

/// Applies a round: drift for its participants, then every contest from the drifted states,
/// combined per player.
pub fn update_round<S: AllPairs>(system: &S, round: Round<'_>, players: &mut [MuSigma]) {
    let contests: Vec<Contest> = round.contests().collect();
    // Participants of the informative contests get the drift, once per round.
    let drift = system.drift();
    let mut informative = Vec::with_capacity(contests.len());
    let mut fields = Vec::with_capacity(contests.len());
    let mut ids: Vec<PlayerId> = Vec::new();
    for c in &contests {
        if system.skips_all_tied() && c.all_tied() {
            continue;
        }
        informative.push(*c);
        ids.extend_from_slice(c.players());
    }
    if informative.len() > 1 {
        ids.sort_unstable();
        ids.dedup();
    }
    if drift > 0.0 {
        for &id in &ids {
            let p = &mut players[id as usize];
            p.sigma = p.sigma.hypot(drift);
        }
    }
    for c in &informative {
        fields.push(Field::new(c, players, system.advantage()));
    }

    if let ([c], [field]) = (&informative[..], &fields[..]) {
        // One contest: apply each entry's result to its members.
        let res = system.contest(field, c.weight());
        for (pos, &(a, v)) in res.iter().enumerate() {
            let (dmu, factor) = system.finish(a, S::fold(S::V_NONE, v));
            let e = c.entry(field.order[pos] as usize);
            for (i, &id) in e.players.iter().enumerate() {
                apply(&mut players[id as usize], dmu, factor, e.weight(i));
            }
        }
        return;
    }
    // Several contests: every result from the states above, then combined per player in
    // contest order (a stable sort by player keeps that order).
    let mut results: Vec<(PlayerId, f64, f64, f64)> = Vec::new();
    for (c, field) in informative.iter().zip(&fields) {
        let res = system.contest(field, c.weight());
        for (pos, &(a, v)) in res.iter().enumerate() {
            let e = c.entry(field.order[pos] as usize);
            for (i, &id) in e.players.iter().enumerate() {
                results.push((id, a, v, e.weight(i)));
            }
        }
    }
    results.sort_by_key(|r| r.0);
    for same in results.chunk_by(|x, y| x.0 == y.0) {
        let (mut a, mut v) = (0.0, S::V_NONE);
        for r in same {
            a += r.1;
            v = S::fold(v, r.2);
        }
        let (dmu, factor) = system.finish(a, v);
        apply(&mut players[same[0].0 as usize], dmu, factor, same[0].3);
    }
}

/// A player's change, `share` of it with partial play (the mean moves by `share dmu`, the
/// variance by `1 - share (1 - factor)`).
fn apply(p: &mut MuSigma, dmu: f64, factor: f64, share: f64) {
    if share == 1.0 {
        p.mu += dmu;
        p.sigma *= factor.sqrt();
    } else {
        p.mu += share * dmu;
        p.sigma *= (1.0 - share * (1.0 - factor)).max(0.0).sqrt();
    }
}

#[cfg(test)]
pub(crate) mod test_util {
    //! Small histories for the tests of both systems.
    use super::MuSigma;
    use crate::history::{History, HistoryBuilder, Round, SourceInfo};
    use crate::systems::base::RatingSystem;

    /// The states after a round of the given contests (all of the history by default), from
    /// the given states (indexed by player id, in order of first appearance).
    pub fn after<S: RatingSystem<Player = MuSigma>>(
        system: &S,
        h: &History,
        states: &[(f64, f64)],
    ) -> Vec<MuSigma> {
        let all: Vec<u32> = (0..h.len() as u32).collect();
        let mut players: Vec<MuSigma> = states
            .iter()
            .map(|&(mu, sigma)| MuSigma { mu, sigma })
            .collect();
        system.update(Round::new(h, &all), &mut players);
        players
    }

    /// Asserts a state to 1e-9 (the hand computations print 12 decimals).
    #[track_caller]
    pub fn assert_state(got: MuSigma, mu: f64, sigma: f64) {
        assert!(
            (got.mu - mu).abs() < 1e-9 && (got.sigma - sigma).abs() < 1e-9,
            "got {got:?}, want mu {mu} sigma {sigma}"
        );
    }

    /// One contest of single players `(name, lo, hi)`.
    pub fn contest(entries: &[(&str, u32, u32)]) -> History {
        contests(&[entries])
    }

    /// Several contests of single players, in this order.
    pub fn contests(list: &[&[(&str, u32, u32)]]) -> History {
        let mut b = HistoryBuilder::new();
        for (t, entries) in list.iter().enumerate() {
            let ids: Vec<u32> = entries.iter().map(|e| b.player(e.0)).collect();
            b.begin_contest(t as i64, 1.0, None, None);
            for (e, id) in entries.iter().zip(&ids) {
                b.add_entry(&[*id], e.1, e.2, None);
            }
            b.end_contest().unwrap();
        }
        b.finish(SourceInfo::default())
    }

    /// A field of `n` single players with varied states, places in a pseudo-random order with
    /// some ties; the history and the states (indexed by player id).
    pub fn big_field(n: usize) -> (History, Vec<super::MuSigma>) {
        let mut b = HistoryBuilder::new();
        let ids: Vec<u32> = (0..n).map(|i| b.player(&format!("p{i}"))).collect();
        b.begin_contest(0, 1.0, None, None);
        // Places: a permutation by a multiplier coprime with n, every 7th pair tied.
        let mut place: Vec<u32> = (0..n).map(|i| ((i * 7919) % n) as u32).collect();
        for p in place.iter_mut() {
            if *p % 7 == 1 {
                *p -= 1;
            }
        }
        for (i, id) in ids.iter().enumerate() {
            let lo = place[i];
            let hi = if lo.is_multiple_of(7) && lo + 1 < n as u32 {
                lo + 1
            } else {
                lo
            };
            b.add_entry(&[*id], lo, hi, None);
        }
        b.end_contest().unwrap();
        let states = (0..n)
            .map(|i| super::MuSigma {
                mu: 1500.0 + ((i * 37) % 900) as f64 - 450.0,
                sigma: 40.0 + ((i * 13) % 300) as f64,
            })
            .collect();
        (b.finish(SourceInfo::default()), states)
    }
}
