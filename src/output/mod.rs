//! Outputs, one file per artefact: `leaderboard.csv` (`leaderboard.rs`), `history.csv` or
//! `history.parquet` (`history.rs`), `metrics.json` (`metrics.rs`), the table printed to stdout
//! (`table.rs`), `report.html` ([`report`]) and the website ([`site`]), both from askama
//! templates escaped by [`html`]; [`chart`] holds what their charts share, [`text`] the
//! formatting the outputs share.
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
pub mod site;
mod table;
mod text;

pub use history::{HistoryCsv, HistoryFormat, HistoryParquet, PARQUET_ROW_GROUP};
pub use leaderboard::{LeaderboardFormat, is_pooled, write_leaderboard, write_leaderboard_as};
pub use metrics::write_metrics;
pub use publish::{
    Busy, FileLock, FileSet, Folder, Publication, StagedFile, open_no_follow, write_one,
};
pub use table::{
    Interval, LeaderRow, LeaderboardOptions, RankBy, anchor_shift, is_standings, leaderboard_rows,
    print_intervals, print_summary,
};
pub(crate) use text::csv_field;
