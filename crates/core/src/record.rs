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
