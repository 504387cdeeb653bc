//! The options every run shares, resolved once from the command line and handed down as they
//! are: `replay` and `compare` hold one [`RunOptions`], and each system's replay borrows it.

use super::stream::StreamMode;
use crate::bootstrap::CiOptions;
use crate::ingest::IngestOptions;
use crate::output::{HistoryFormat, LeaderboardFormat, LeaderboardOptions};
use crate::replay::ReplayOptions;
use crate::systems::ParamMap;
use std::path::PathBuf;

/// How to read, how to replay and what to write: the options `replay` and `compare` share.
#[derive(Clone, Debug, Default)]
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

/// Parameter names that set a replay option rather than a system parameter, in `tune`'s grid
/// and in `compare`'s `--param SYSTEM:NAME=VALUE`: the draw policy (`update`, `ignore`), and
/// the regression between seasons and its mean (with seasons).
pub const OPTION_KEYS: [&str; 3] = ["draws", "season_regress", "season_mean"];

/// A set's system parameters (without its [`OPTION_KEYS`]) and its replay options: `base`
/// with what those keys set.
pub fn set_options(
    params: &ParamMap,
    base: &ReplayOptions,
) -> Result<(ParamMap, ReplayOptions), String> {
    let mut params = params.clone();
    let mut opts = base.clone();
    if let Some(v) = params.remove("draws") {
        opts.draws = match v.as_str() {
            Some("update") => crate::replay::Draws::Update,
            Some("ignore") => crate::replay::Draws::Ignore,
            _ => return Err(format!("draws={v}: the draw policy is update or ignore")),
        };
    }
    for key in &OPTION_KEYS[1..] {
        let Some(v) = params.remove(*key) else {
            continue;
        };
        let x = (v.as_f64()).ok_or_else(|| format!("{key}={v} is not a number"))?;
        let seasons = opts.seasons.as_mut().ok_or_else(|| {
            format!("{key} needs seasons: --map season=COLUMN or --season-gap DAYS")
        })?;
        match *key {
            "season_regress" => seasons.regress = x,
            _ => seasons.mean = Some(x),
        }
        seasons.check()?;
    }
    Ok((params, opts))
}
