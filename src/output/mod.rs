//! Outputs, one file per artefact: `leaderboard.csv` (`leaderboard.rs`), `history.csv` or
//! `history.parquet` (`history.rs`), `metrics.json` (`metrics.rs`), the table printed to stdout
//! (`table.rs`) and `report.html` ([`report`]); [`text`] holds the formatting they share,
//! [`compress`] the `.gz` and `.zst` compression of a file chosen by its name.
//!
//! Files are written together: an output folder as one generation swapped in at once
//! ([`Publication`]), single files under exclusive temporary names renamed into place
//! ([`FileSet`], [`write_one`]); see [`publish`].

pub mod chart;
pub mod compress;
pub mod h2h;
mod history;
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

/// A character HTML does not allow in a page as it is (a control character other than tab,
/// line feed, form feed and carriage return); written as U+FFFD, the replacement character.
pub(crate) fn html_control(c: char) -> bool {
    c.is_control() && !matches!(c, '\t' | '\n' | '\x0c' | '\r')
}

/// Text with the characters HTML does not allow replaced (see [`html_control`]).
pub(crate) fn html_text(s: &str) -> std::borrow::Cow<'_, str> {
    if s.chars().any(html_control) {
        s.chars()
            .map(|c| if html_control(c) { '\u{fffd}' } else { c })
            .collect::<String>()
            .into()
    } else {
        s.into()
    }
}
