//! Outputs, one file per artefact: `leaderboard.csv` (`leaderboard.rs`), `history.csv` or
//! `history.parquet` (`history.rs`), `metrics.json` (`metrics.rs`), the table printed to stdout
//! (`table.rs`) and `report.html` ([`report`]); [`text`] holds the formatting they share.
//!
//! Files are written together: an output folder as one generation swapped in at once
//! ([`Publication`]), single files under exclusive temporary names renamed into place
//! ([`FileSet`], [`replace_file`]); see [`publish`].

mod history;
mod leaderboard;
mod metrics;
pub mod publish;
pub mod report;
mod table;
mod text;

pub use history::{HistoryCsv, HistoryFormat, write_history_parquet};
pub use leaderboard::write_leaderboard;
pub use metrics::write_metrics;
pub use publish::{
    Busy, FileLock, FileSet, Folder, Publication, StagedFile, open_no_follow, replace_file,
};
pub use table::{LeaderRow, LeaderboardOptions, RankBy, leaderboard_rows, print_summary};
pub(crate) use text::csv_field;

use std::io::{self, Write};
use std::path::{Path, PathBuf};

/// A file path's folder (`.` for a bare name) and name; the error says what is wrong.
pub fn split_path(path: &Path) -> Result<(PathBuf, String), String> {
    let dir = path
        .parent()
        .filter(|d| !d.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    let name = path
        .file_name()
        .and_then(|n| n.to_str())
        .ok_or_else(|| format!("{} is not a file name", path.display()))?;
    Ok((dir.to_path_buf(), name.to_string()))
}

/// Writes one file under an exclusive temporary name and renames it into place.
pub fn write_one(
    path: &Path,
    write: impl FnOnce(&mut dyn Write) -> io::Result<()>,
) -> io::Result<()> {
    let mut set = FileSet::new();
    set.write(path, write)?;
    set.commit().map(|_| ())
}
