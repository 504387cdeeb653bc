//! `metrics.json`: what was run on what, and how well it predicted.

use crate::history::SourceInfo;
use crate::metrics::MetricsReport;
use crate::output::{self};
use crate::replay::Period;
use serde::Serialize;

/// `metrics.json`: what was run on what, and how well it predicted.
#[derive(Serialize)]
pub(crate) struct MetricsDocument<'a> {
    pub(crate) system: &'a str,
    pub(crate) params: &'a serde_json::Value,
    pub(crate) input: InputSummary<'a>,
    pub(crate) period: Period,
    pub(crate) decay_per_day: f64,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) as_of: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) initial_ratings: Option<InitialRatings>,
    pub(crate) leaderboard: &'a output::LeaderboardOptions,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) truth: Option<TruthSummary>,
    pub(crate) rounds: usize,
    pub(crate) warmup_contests: usize,
    pub(crate) experienced_after_contests: u32,
    pub(crate) metrics: &'a MetricsReport,
    pub(crate) wall_seconds: WallSeconds,
}

/// What `--truth` measured.
#[derive(Serialize)]
pub(crate) struct TruthSummary {
    pub(crate) file: String,
    /// (contest, player) true values that apply to the history.
    pub(crate) values: usize,
    /// Rounds with at least two players measured.
    pub(crate) rounds_measured: usize,
    /// RMSE after the last measured round.
    pub(crate) last_rmse: Option<f64>,
    /// Mean RMSE over the last tenth of the measured rounds.
    pub(crate) mean_rmse_last_tenth: Option<f64>,
}

#[derive(Serialize)]
pub(crate) struct InitialRatings {
    pub(crate) file: String,
    pub(crate) players: usize,
    pub(crate) not_in_history: usize,
}

#[derive(Serialize)]
pub(crate) struct InputSummary<'a> {
    #[serde(flatten)]
    pub(crate) source: &'a SourceInfo,
    pub(crate) contests: usize,
    pub(crate) players: usize,
    pub(crate) placings: usize,
}

#[derive(Serialize)]
pub(crate) struct WallSeconds {
    pub(crate) ingest: f64,
    pub(crate) replay: f64,
    pub(crate) total_before_writing: f64,
}
