//! What a replay records of each player besides the rating: rounds, results, the last time,
//! and the recent results matchmaking reads.

use serde::Serialize;

/// What the leaderboard needs of a player besides the rating.
#[derive(Clone, Debug, Default, PartialEq, Serialize, serde::Deserialize)]
pub struct PlayerRecord {
    /// Rounds the player was rated in.
    pub rounds: u32,
    /// Contests played.
    pub contests: u32,
    /// Contests won (a two-entry contest won; alone in first place in a larger one).
    pub wins: u32,
    /// Contests drawn (a drawn game; a shared first place).
    pub draws: u32,
    /// Contests lost (everything else).
    pub losses: u32,
    /// Time of the last contest.
    pub last_time: i64,
    /// The last results (up to [`RECENT`]), two bits each, newest in the lowest bits: 2 a
    /// win, 1 a draw, 0 a loss (in a contest of more entries, the share of the others placed
    /// below, ties half, rounded to a half).
    pub recent: u32,
    /// How many results `recent` holds.
    pub recent_len: u8,
    /// The places taken in contests of more than two entries (kept in the state apart from
    /// the record: [`crate::state::Carry::places`]).
    #[serde(skip)]
    pub places: Places,
}

/// A player's places (1-based) in contests of more than two entries, for the leaderboard's
/// best and median place, in memory bounded per player: the places themselves while there
/// are at most [`Places::EXACT`] of them (the median is then exact); after that, counts
/// between the distinct places of those first ones, so that the median is interpolated
/// within the gap that holds it (exact where the first places left no gap, as for a player
/// who is always first, or whose places cover a range densely).
#[derive(Clone, Debug, Default, PartialEq, Serialize, serde::Deserialize)]
pub struct Places {
    /// The best place; 0 before any.
    pub best: u32,
    /// The places so far (sorted) while exact; then the distinct places that bound the counts.
    edges: Vec<u32>,
    /// Once past exact, for each edge i: the places below it and above the edge before
    /// (index 2i), the places equal to it (2i + 1); last, the places above the last edge.
    counts: Vec<u32>,
    /// The worst place.
    worst: u32,
}

impl Places {
    /// Places kept exactly per player.
    pub const EXACT: usize = 64;

    /// The bucket of a place once past exact.
    fn bucket(edges: &[u32], place: u32) -> usize {
        let i = edges.partition_point(|&e| e < place);
        2 * i + usize::from(edges.get(i) == Some(&place))
    }

    /// Where the places kept begin in memory (to ask for them before [`add`](Self::add)).
    pub fn first_held(&self) -> *const u32 {
        self.edges.as_ptr()
    }

    /// Notes a place (1-based).
    pub fn add(&mut self, place: u32) {
        let place = place.max(1);
        self.best = if self.best == 0 {
            place
        } else {
            self.best.min(place)
        };
        self.worst = self.worst.max(place);
        if self.counts.is_empty() {
            let at = self.edges.partition_point(|&e| e <= place);
            self.edges.insert(at, place);
            if self.edges.len() > Self::EXACT {
                let mut edges = self.edges.clone();
                edges.dedup();
                let mut counts = vec![0u32; 2 * edges.len() + 1];
                for &p in &self.edges {
                    counts[Self::bucket(&edges, p)] += 1;
                }
                self.edges = edges;
                self.counts = counts;
            }
        } else {
            let b = Self::bucket(&self.edges, place);
            self.counts[b] = self.counts[b].saturating_add(1);
        }
    }

    /// Whether the places are ones [`add`](Self::add) can leave (a state file's are checked):
    /// sorted, no more kept than [`EXACT`](Self::EXACT) allows, counts matching the edges,
    /// best and worst bounding them.
    pub fn is_consistent(&self) -> bool {
        let sorted = self.edges.windows(2).all(|w| w[0] <= w[1]);
        let sizes = if self.counts.is_empty() {
            self.edges.len() <= Self::EXACT
        } else {
            self.edges.len() <= Self::EXACT + 1
                && self.counts.len() == 2 * self.edges.len() + 1
                && self.edges.windows(2).all(|w| w[0] < w[1])
        };
        let bounds = match (self.edges.first(), self.edges.last()) {
            (Some(&first), Some(&last)) => {
                self.best >= 1 && self.best <= first && last <= self.worst
            }
            _ => self.best == 0 && self.worst == 0,
        };
        sorted && sizes && bounds
    }

    /// Places noted.
    pub fn count(&self) -> u64 {
        if self.counts.is_empty() {
            self.edges.len() as u64
        } else {
            self.counts.iter().map(|&c| u64::from(c)).sum()
        }
    }

    /// The median place (the mean of the two middle ones for an even count), if any.
    pub fn median(&self) -> Option<f64> {
        let n = self.count();
        if n == 0 {
            return None;
        }
        if self.counts.is_empty() {
            let k = self.edges.len();
            return Some(f64::from(self.edges[(k - 1) / 2] + self.edges[k / 2]) / 2.0);
        }
        // The k-th place (0-based): an edge's exactly, a gap's spread evenly over it.
        let nth = |k: u64| -> f64 {
            let mut below = 0u64;
            for (b, &c) in self.counts.iter().enumerate() {
                let c = u64::from(c);
                if k < below + c {
                    let i = b / 2;
                    if b % 2 == 1 {
                        return f64::from(self.edges[i]);
                    }
                    let lo = if i == 0 { 1 } else { self.edges[i - 1] + 1 };
                    let hi = match self.edges.get(i) {
                        Some(&e) => e - 1,
                        None => self.worst,
                    }
                    .max(lo);
                    let within = ((k - below) as f64 + 0.5) / c as f64;
                    return (f64::from(lo) + f64::from(hi - lo) * within).round();
                }
                below += c;
            }
            f64::from(self.worst)
        };
        Some((nth((n - 1) / 2) + nth(n / 2)) / 2.0)
    }
}

/// Results kept per player for matchmaking.
pub const RECENT: usize = 16;

impl PlayerRecord {
    /// Records a result (1, 1/2, 0; others are rounded to the nearest half).
    pub fn push_result(&mut self, score: f64) {
        let code = (score.clamp(0.0, 1.0) * 2.0).round() as u32;
        self.recent = (self.recent << 2) | code;
        self.recent_len = (self.recent_len + 1).min(RECENT as u8);
    }

    /// The last `n` results (at most the number kept), oldest first.
    pub fn recent_results(&self, n: usize) -> Vec<f64> {
        let k = n.min(self.recent_len as usize);
        (0..k)
            .rev()
            .map(|i| ((self.recent >> (2 * i)) & 3) as f64 / 2.0)
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn median_places_exact_then_bounded() {
        let mut p = Places::default();
        assert_eq!(p.median(), None);
        for x in [7, 3, 9, 1] {
            p.add(x);
        }
        // 1 3 7 9: (3 + 7) / 2.
        assert_eq!((p.best, p.median(), p.count()), (1, Some(5.0), 4));
        // 64 places exact, then 1000 more: the median of 1..=1064 cycling over 1..=100 is
        // found within one place, in memory that no longer grows.
        let mut q = Places::default();
        let mut all = Vec::new();
        for k in 0..1064u32 {
            let x = (k * 37) % 100 + 1;
            q.add(x);
            all.push(x);
        }
        all.sort_unstable();
        let exact = f64::from(all[531] + all[532]) / 2.0;
        let got = q.median().unwrap();
        assert!((got - exact).abs() <= 1.0, "{got} vs {exact}");
        assert!(q.edges.len() <= Places::EXACT + 1 && q.counts.len() <= 2 * Places::EXACT + 3);
        assert_eq!((q.best, q.count()), (1, 1064));
        assert!(p.is_consistent() && q.is_consistent() && Places::default().is_consistent());
        let mut bad = q.clone();
        bad.counts.pop();
        assert!(!bad.is_consistent(), "counts that do not match the edges");
        let mut bad = p.clone();
        bad.best = 2;
        assert!(!bad.is_consistent(), "a best place above the places");
        // Always first: exactly 1 however long.
        let mut r = Places::default();
        for _ in 0..500 {
            r.add(1);
        }
        assert_eq!(r.median(), Some(1.0));
        // Two places only, each exactly at an edge.
        let mut t = Places::default();
        for k in 0..301 {
            t.add(if k % 3 == 0 { 2 } else { 40 });
        }
        assert_eq!(t.median(), Some(40.0));
    }
}
