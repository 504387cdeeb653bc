//! Outputs, one file per artefact: `leaderboard.csv` (`leaderboard.rs`), `history.csv` or
//! `history.parquet` (`history.rs`), `metrics.json` (`metrics.rs`), the table printed to stdout
//! (`table.rs`), `report.html` ([`report`]) and the website ([`site`]), both from askama
//! templates escaped by [`html`]; [`chart`] holds what their charts share, [`text`] the
//! formatting the outputs share.
//!
//! The files of one system's replay are each an [`Output`] in its own module, listed once in
//! [`SYSTEM_FILES`]: adding one is a module and a line there. The history file, written as
//! the replay goes, and the report and website, which gather several systems or runs, are
//! apart.
//!
//! Files are written together: an output folder as one generation swapped in at once
//! ([`Publication`]), single files under exclusive temporary names renamed into place
//! ([`FileSet`], [`write_one`]); see [`publish`].

pub mod chart;
pub mod h2h;
mod history;
pub mod html;
mod leaderboard;
mod metrics;
pub mod predictions;
pub mod publish;
pub mod report;
mod rmse;
pub mod site;
mod table;
mod text;

pub use history::{HistoryCsv, HistoryFormat, HistoryParquet, PARQUET_ROW_GROUP};
pub use leaderboard::{LeaderboardFormat, is_pooled};
pub use metrics::write_metrics;
pub use publish::{
    Busy, FileLock, FileSet, Folder, Publication, StagedFile, open_no_follow, write_one,
};
pub use table::{
    Interval, LeaderRow, LeaderboardOptions, RankBy, anchor_shift, is_standings, leaderboard_rows,
    print_intervals, print_summary,
};
pub(crate) use text::csv_field;

use crate::history::History;
use crate::replay::ReplayResult;
use std::io::{self, Write};

/// What one system's replay leaves for its files, and what the run asks of them.
pub struct Replayed<'a> {
    /// The players and the source: the input's, or what a stream read.
    pub history: &'a History,
    /// The history as loaded whole, whose games `h2h.csv` counts (empty when streamed).
    pub games: &'a History,
    /// The leaderboard, in order.
    pub rows: &'a [LeaderRow],
    /// The replay's result.
    pub result: &'a ReplayResult,
    /// `metrics.json`'s document.
    pub metrics: &'a serde_json::Value,
    /// `--truth`: (round, time, players, RMSE) per measured round.
    pub rmse: Option<&'a [(u32, i64, u32, f64)]>,
    /// With `--h2h` and `--ci`: the bootstrap's likelihood of superiority among the top.
    pub superiority: Option<&'a [f64]>,
    /// `--leaderboard-format`.
    pub leaderboard_format: LeaderboardFormat,
    /// `--h2h N`: the top players whose games are counted (0: none).
    pub h2h: usize,
    /// `--predictions`.
    pub predictions: bool,
    /// `--as-of` and `--skip-all-tied`: which contests were rated.
    pub rated: (Option<i64>, bool),
}

/// One output of a system's replay.
pub trait Output: Sync {
    /// Every file it may write (those the output folder owns).
    fn names(&self) -> &'static [&'static str];
    /// The files this run asks of it.
    fn wanted(&self, done: &Replayed) -> Vec<&'static str>;
    /// Writes the file `name` (one of [`Output::wanted`]).
    fn write(&self, name: &str, done: &Replayed, w: &mut dyn Write) -> io::Result<()>;
}

/// Every output of a system's replay.
pub static SYSTEM_FILES: &[&dyn Output] = &[
    &leaderboard::Leaderboard,
    &metrics::Metrics,
    &rmse::Rmse,
    &h2h::HeadToHead,
    &predictions::Predictions,
];

/// The names of every file of [`SYSTEM_FILES`].
pub fn system_file_names() -> impl Iterator<Item = &'static str> {
    SYSTEM_FILES.iter().flat_map(|o| o.names().iter().copied())
}
