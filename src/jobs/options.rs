//! The options every run shares, resolved once from the command line and handed down as they
//! are: `replay` and `compare` hold one [`RunOptions`], and each system's replay borrows it.

use super::stream::StreamMode;
use crate::bootstrap::CiOptions;
use crate::ingest::IngestOptions;
use crate::output::{HistoryFormat, LeaderboardFormat, LeaderboardOptions};
use crate::replay::ReplayOptions;
use std::path::PathBuf;

/// How to read, how to replay and what to write: the options `replay` and `compare` share.
#[derive(Clone, Debug)]
pub struct RunOptions {
    /// The input file or folder (the others are in `ingest.more`).
    pub input: PathBuf,
    /// How to read it.
    pub ingest: IngestOptions,
    /// Rounds, warm-up, experience, decay, as-of (the seeds come from `initial_ratings`).
    pub replay: ReplayOptions,
    /// `--initial-ratings`: a CSV of players who start with a rating.
    pub initial_ratings: Option<PathBuf>,
    /// `--truth`: true ratings to measure the RMSE against.
    pub truth: Option<PathBuf>,
    /// Whether to stream the input, and the contests of a streamed block.
    pub stream: (StreamMode, usize),
    /// Print nothing on success.
    pub quiet: bool,
    /// Report as one JSON object (`--log-format json`).
    pub json: bool,
    /// Output folder.
    pub out: PathBuf,
    /// File type of the rating history.
    pub history_format: HistoryFormat,
    /// The leaderboard's file type.
    pub leaderboard_format: LeaderboardFormat,
    /// Who is on the leaderboard and in which order.
    pub leaderboard: LeaderboardOptions,
    /// Also write `report.html`.
    pub report: bool,
    /// `--predictions`: also write predictions.csv and contests.csv.
    pub predictions: bool,
    /// `--ci`: bootstrap intervals.
    pub ci: Option<CiOptions>,
    /// `--ci-level` (also the level of the Hessian's intervals without `--ci`).
    pub ci_level: f64,
}
