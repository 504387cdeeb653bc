//! Readers: one per input format, each producing a [`History`].
//!
//! Every reader validates as it goes and reports the first bad record as an [`InputError`]
//! naming the file, the line (or row, or contest) and the field. With `skip_invalid` a bad
//! record is skipped and counted instead; problems with the file as a whole (a missing column,
//! unreadable bytes) always stop the run.

pub mod aliases;
mod columns;
mod contest_json;
mod context;
mod csv_input;
mod errors;
mod games;
mod json_games;
mod lines;
mod options;
pub mod parquet;
mod pgn;
pub mod seeds;
mod series;
pub mod small_csv;
pub mod source;
mod standings;
pub mod stream;
mod table;
pub mod time;
pub mod truth;

use crate::history::History;
use clap::ValueEnum as _;
use std::path::{Path, PathBuf};

use context::{Context, note_padded_names};
pub use errors::{InputError, Location, origin_of};
pub use options::{CANONICAL_COLUMNS, ColumnMap, Format, IngestOptions, TeamSeparator};
pub use parquet::probe_parquet_here;

/// Reads an input into a [`History`]. Errors are [`InputError`] for bad content and
/// `std::io::Error` (inside anyhow) for files that cannot be read.
pub fn ingest(path: &Path, opts: &IngestOptions) -> anyhow::Result<History> {
    ingest_as(path, format_of(path, opts)?, opts)
}

/// The format an input is read in: `--format`, else the one [`detect`] finds.
pub fn format_of(path: &Path, opts: &IngestOptions) -> anyhow::Result<Format> {
    opts.format.map_or_else(|| detect(path, &opts.map), Ok)
}

/// [`ingest`] of an input whose format is known (`opts.format` is not consulted for it): for
/// a caller that has detected it already, so that the input is not read twice to detect it.
/// With further inputs (`opts.more`, or a folder of CSV and PGN files), every file is read in
/// turn into one history, its contests sorted by time (equal times in the order of the files).
pub fn ingest_as(path: &Path, format: Format, opts: &IngestOptions) -> anyhow::Result<History> {
    let builder = crate::history::HistoryBuilder::with_players(&opts.known_players);
    let mut ctx = Context::new(path, format, opts, builder, false);
    read_input(path, format, &mut ctx)?;
    let mut history = ctx.finish();
    check_series(&history)?;
    note_padded_names(&mut history);
    Ok(history)
}

/// What differs from one input format to another when reading it. Each format's file
/// implements it, and [`Format::reader`] gives the one of a format.
pub(crate) trait Reader {
    /// Reads one file of this format into the shared context: whole, or handing each contest
    /// on when the context streams.
    fn read(&self, path: &Path, ctx: &mut Context) -> anyhow::Result<()>;
    /// Whether `--time-format` says how the times are written (a table's time column), rather
    /// than the format writing them its own way.
    fn takes_time_format(&self) -> bool {
        true
    }
    /// The file extensions (past a compression's) that detection takes for this format.
    fn extensions(&self) -> &'static [&'static str] {
        &[]
    }
}

impl Format {
    /// The reader of this format: the one place that picks a reader by the format.
    pub(crate) fn reader(self) -> &'static dyn Reader {
        match self {
            Format::Games => &csv_input::Csv(Format::Games),
            Format::Standings => &csv_input::Csv(Format::Standings),
            Format::Json => &contest_json::ContestJson,
            Format::Pgn => &pgn::Pgn,
            Format::Parquet => &parquet::Parquet,
        }
    }
}

/// Reads every file of the input (`path` and `opts.more`, see [`input_files`]) into `ctx`,
/// the first in `format`, the others in `--format` or as detected; the context's errors name
/// each file, and the source summary names them all and counts the repeats dropped.
pub(crate) fn read_input(path: &Path, format: Format, ctx: &mut Context) -> anyhow::Result<()> {
    let files = input_files(path, &ctx.opts.more)?;
    for (k, file) in files.iter().enumerate() {
        let f = if k == 0 {
            format
        } else {
            format_of(file, ctx.opts)?
        };
        ctx.file = file.display().to_string();
        ctx.source.origin_files.push(ctx.file.clone());
        f.reader().read(file, ctx)?;
    }
    if files.len() > 1 {
        ctx.source.path = files_summary(&files);
        ctx.source.files = files.len();
    }
    ctx.source.duplicates_dropped = ctx.builder.duplicates_dropped();
    Ok(())
}

/// The files an input names: `path` and `more`, each folder that is not a contest JSON folder
/// standing for its CSV, TSV and PGN files (in name order).
pub fn input_files(path: &Path, more: &[PathBuf]) -> anyhow::Result<Vec<PathBuf>> {
    let mut files = Vec::new();
    for p in std::iter::once(path).chain(more.iter().map(PathBuf::as_path)) {
        if p.is_dir() && contest_json::numbered_files(p)?.is_empty() {
            let inside = source::folder_files(p)?;
            if inside.is_empty() {
                let m = "the folder holds no contest files (N.json) and no CSV, TSV or PGN file";
                return Err(InputError::whole_file(p.display(), m).into());
            }
            files.extend(inside);
        } else {
            files.push(p.to_path_buf());
        }
    }
    Ok(files)
}

/// Several files named in one line: all of them up to three, else the first and the last.
fn files_summary(files: &[PathBuf]) -> String {
    let name = |p: &PathBuf| p.display().to_string();
    if files.len() <= 3 {
        files.iter().map(name).collect::<Vec<_>>().join(", ")
    } else {
        format!(
            "{}, ..., {} ({} files)",
            name(&files[0]),
            name(&files[files.len() - 1]),
            files.len()
        )
    }
}

/// A series id names one best-of-N: in time order, its games may not be interleaved with any
/// other contest of its players (a round of `--period series` is rated at the series' start,
/// so such a game would be rated and scored with results from its future), and each of its
/// games shares a player with the games before (otherwise the id was used for two series).
fn check_series(h: &History) -> Result<(), InputError> {
    if h.series_count() == 0 {
        return Ok(());
    }
    let mut check = series::SeriesCheck::default();
    for c in h.contests() {
        let series = c.series().map(|s| h.series_name(s));
        check
            .contest(series, c.time(), c.players(), |p| h.name(p), &|| {
                series::sides(c.entries().map(|e| e.players), |p| h.name(p))
            })
            .map_err(|message| {
                let (file, at) = errors::origin_of(&h.source, c.origin())
                    .unwrap_or_else(|| (h.source.path.clone(), Location::File));
                InputError::new(file, at, Some("series".into()), message)
            })?;
    }
    Ok(())
}

/// `--time-format` reads the time column of CSV and Parquet inputs; given for another format
/// it is refused (a message for the caller's usage error).
pub fn time_format_applies(format: Format, opts: &IngestOptions) -> Result<(), String> {
    if opts.time_format != time::TimeFormat::Auto && !format.reader().takes_time_format() {
        return Err(format!(
            "--time-format applies to the time column of CSV and Parquet inputs; {format} \
             inputs have their own (contest JSON: time_seconds, Unix seconds; PGN: Date and \
             UTCDate, YYYY.MM.DD)"
        ));
    }
    Ok(())
}

/// Picks the format from the path: a folder or `.json` is contest JSON, `.pgn` is PGN,
/// `.parquet`/`.pq` is Parquet; otherwise a CSV whose header says games or standings. The
/// header of a pipe (or another file that is not a regular one, such as `/dev/stdin`) is not
/// looked at: what detection read would be lost to the reader, so `--format` must be given.
pub fn detect(path: &Path, map: &ColumnMap) -> anyhow::Result<Format> {
    let whole = |m: &str| -> anyhow::Error { InputError::whole_file(path.display(), m).into() };
    if source::is_stdin(path) {
        return Err(whole(
            "standard input: pass --format (games, standings, pgn, or json for contest JSON or JSON lines of games) to read it",
        ));
    }
    let meta = std::fs::metadata(path).ok();
    if meta.as_ref().is_some_and(std::fs::Metadata::is_dir) {
        // A folder of N.json contests, else a folder of CSV or PGN files read together (one
        // at least: input_files refuses a folder without).
        if !contest_json::numbered_files(path)?.is_empty() {
            return Ok(Format::Json);
        }
        return detect(&input_files(path, &[])?[0], map);
    }
    let ext = source::format_extension(path).unwrap_or_default();
    let by_ext = Format::value_variants()
        .iter()
        .find(|f| f.reader().extensions().contains(&ext.as_str()));
    if let Some(&f) = by_ext {
        return Ok(f);
    }
    if meta.is_some_and(|m| !m.is_file()) {
        return Err(whole("cannot detect the format of a pipe: pass --format"));
    }
    table::detect_csv(path, map)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn error_is_one_line_with_file_place_and_field() {
        let e = InputError {
            file: "games.csv".into(),
            at: Location::Line(12),
            field: Some("result".into()),
            message: "unknown result `2-0`".into(),
        };
        assert_eq!(
            e.to_string(),
            "games.csv, line 12, field `result`: unknown result `2-0`"
        );
    }

    #[test]
    fn column_map_parses_and_refuses_unknown_columns() {
        let m = ColumnMap::parse("a=home_team, b=away_team,time=date").unwrap();
        assert_eq!(m.source("a"), "home_team");
        assert_eq!(m.source("time"), "date");
        assert_eq!(m.source("winner"), "winner");
        assert!(
            ColumnMap::parse("home=x")
                .unwrap_err()
                .contains("unknown column `home`")
        );
        assert!(ColumnMap::parse("a").is_err());
        // A column mapped twice is refused (the first would win silently).
        let twice = ColumnMap::parse("season=season,a=x,season=a").unwrap_err();
        assert!(twice.contains("`season` is given twice"), "{twice}");
    }
}
