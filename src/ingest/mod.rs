//! Readers: one per input format, each producing a [`History`].
//!
//! Every reader validates as it goes and reports the first bad record as an [`InputError`]
//! naming the file, the line (or row, or contest) and the field. With `skip_invalid` a bad
//! record is skipped and counted instead; problems with the file as a whole (a missing column,
//! unreadable bytes) always stop the run.

pub mod budget;
mod columns;
mod contest_json;
mod context;
mod csv_input;
mod errors;
mod games;
mod lines;
mod options;
mod parallel;
pub mod parquet;
mod pgn;
pub mod seeds;
pub mod small_csv;
pub mod source;
mod standings;
pub mod stream;
mod table;
pub mod time;
pub mod truth;

use crate::history::{History, PlayerId};
use std::path::{Path, PathBuf};

use context::{Context, note_padded_names};
pub use errors::{InputError, Location};
pub use options::{CANONICAL_COLUMNS, ColumnMap, Format, IngestOptions, TeamSeparator};
pub use parquet::probe_parquet_here;

/// Reads an input into a [`History`]. Errors are [`InputError`] for bad content and
/// `std::io::Error` (inside anyhow) for files that cannot be read.
pub fn ingest(path: &Path, opts: &IngestOptions) -> anyhow::Result<History> {
    let format = match opts.format {
        Some(f) => f,
        None => detect(path)?,
    };
    ingest_as(path, format, opts)
}

/// [`ingest`] of an input whose format is known (`opts.format` is not consulted for it): for
/// a caller that has detected it already, so that the input is not read twice to detect it.
/// With further inputs (`opts.more`, or a folder of CSV and PGN files), every file is read in
/// turn into one history, its contests sorted by time (equal times in the order of the files).
pub fn ingest_as(path: &Path, format: Format, opts: &IngestOptions) -> anyhow::Result<History> {
    let files = input_files(path, &opts.more)?;
    let mut ctx = Context::new(path, format, opts);
    read_files(
        &files,
        format,
        &mut ctx,
        &mut |path, format, ctx| match format {
            Format::Games | Format::Standings => csv_input::read_csv(path, format, ctx),
            Format::Parquet => parquet::read_parquet(path, ctx),
            Format::Json => contest_json::read(path, ctx),
            Format::Pgn => pgn::read(path, ctx),
        },
    )?;
    let mut history = ctx.finish();
    check_series(&history)?;
    note_padded_names(&mut history);
    Ok(history)
}

/// A reader of one file into the shared context.
type ReadOne<'r> = dyn FnMut(&Path, Format, &mut Context) -> anyhow::Result<()> + 'r;

/// Reads `files` in turn with `read` (the first in `format`, the others in `--format` or as
/// detected), the context's errors naming each file; the source summary names them all.
pub(crate) fn read_files(
    files: &[PathBuf],
    format: Format,
    ctx: &mut Context,
    read: &mut ReadOne,
) -> anyhow::Result<()> {
    for (k, file) in files.iter().enumerate() {
        let f = match (k, ctx.opts.format) {
            (0, _) => format,
            (_, Some(f)) => f,
            (_, None) => detect(file)?,
        };
        ctx.file = file.display().to_string();
        read(file, f, ctx)?;
    }
    if files.len() > 1 {
        ctx.source.path = files_summary(files);
        ctx.source.files = files.len();
    }
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
                return Err(InputError::whole_file(
                    p.display().to_string(),
                    "the folder holds no contest files (N.json) and no CSV, TSV or PGN file"
                        .to_string(),
                )
                .into());
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
    let mut check = SeriesCheck::default();
    for c in h.contests() {
        let series = c.series().map(|s| h.series_name(s));
        check
            .contest(series, c.time(), c.players(), |p| h.name(p), &|| {
                sides(h, &c)
            })
            .map_err(|message| InputError {
                field: Some("series".into()),
                ..InputError::whole_file(h.source.path.clone(), message)
            })?;
    }
    Ok(())
}

/// A contest's sides as a message names them: `a+b vs c`.
fn sides(h: &History, c: &crate::history::Contest) -> String {
    let sides: Vec<String> = c
        .entries()
        .map(|e| {
            let names: Vec<&str> = e.players.iter().map(|&p| h.name(p)).collect();
            names.join("+")
        })
        .collect();
    sides.join(" vs ")
}

/// The series check ([`check_series`]) one contest at a time, in time order: a streamed read
/// checks contests as they come. Per series: the index of its first contest and its players so
/// far; per player: the index, series and time of his latest contest.
///
/// It also knows which series are still open: a series is closed once each of its players
/// has played a contest outside it since (a later game of it between them would break the
/// rule), and only then is its round of `--period series` whole.
#[derive(Default)]
pub(crate) struct SeriesCheck {
    ids: rustc_hash::FxHashMap<Box<str>, u32>,
    series: Vec<(u64, Vec<PlayerId>)>,
    latest: Vec<Option<(u64, Option<u32>, i64)>>,
    contests: u64,
    /// Per series, its players who have not played outside it since.
    staying: Vec<u32>,
}

impl SeriesCheck {
    /// Checks the next contest (of `series`, if any, at `time`, between `players`); the
    /// message of one that breaks the rule (`sides` names its sides).
    pub(crate) fn contest<'n>(
        &mut self,
        series: Option<&str>,
        time: i64,
        players: &[PlayerId],
        name: impl Fn(PlayerId) -> &'n str,
        sides: &dyn Fn() -> String,
    ) -> Result<(), String> {
        let index = self.contests;
        self.contests += 1;
        if let Some(&p) = players.iter().max()
            && self.latest.len() <= p as usize
        {
            self.latest.resize(p as usize + 1, None);
        }
        let s = series.map(|name| {
            let next = self.ids.len() as u32;
            *self.ids.entry(name.into()).or_insert(next)
        });
        if let (Some(s), Some(name_of_series)) = (s, series)
            && let Some((first, members)) = self.series.get(s as usize)
        {
            let problem = if !players.iter().any(|p| members.contains(p)) {
                Some("has no player of its earlier games (one id for two series?)".to_string())
            } else {
                players.iter().find_map(|&p| match self.latest[p as usize] {
                    Some((k, other, t)) if k > *first && other != Some(s) => Some(format!(
                        "comes after {} played another contest ({}) since the series began; a \
                         series' games cannot be interleaved with other games of its players",
                        name(p),
                        time::format_time(t)
                    )),
                    _ => None,
                })
            };
            if let Some(problem) = problem {
                return Err(format!(
                    "series `{name_of_series}`: its game of {} ({}) {problem}",
                    time::format_time(time),
                    sides()
                ));
            }
        }
        // Players leaving a series for this contest.
        for &p in players {
            if let Some((_, Some(before), _)) = self.latest[p as usize]
                && Some(before) != s
            {
                self.staying[before as usize] -= 1;
            }
        }
        if let Some(s) = s {
            if self.series.len() <= s as usize {
                self.series.push((index, Vec::new()));
                self.staying.push(0);
            }
            let members = &mut self.series[s as usize].1;
            for &p in players {
                let stays = self.latest[p as usize].is_none_or(|(_, before, _)| before != Some(s));
                if stays {
                    self.staying[s as usize] += 1;
                }
                if !members.contains(&p) {
                    members.push(p);
                }
            }
        }
        for &p in players {
            self.latest[p as usize] = Some((index, s, time));
        }
        Ok(())
    }

    /// Whether the series of this name may still have games to come.
    pub(crate) fn is_open(&self, name: &str) -> bool {
        self.ids
            .get(name)
            .is_some_and(|&s| self.staying[s as usize] > 0)
    }
}

/// `--time-format` reads the time column of CSV and Parquet inputs; given for another format
/// it is refused (a message for the caller's usage error).
pub fn time_format_applies(format: Format, opts: &IngestOptions) -> Result<(), String> {
    if opts.time_format != time::TimeFormat::Auto && matches!(format, Format::Json | Format::Pgn) {
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
pub fn detect(path: &Path) -> anyhow::Result<Format> {
    let whole = |m: &str| -> anyhow::Error {
        InputError::whole_file(path.display().to_string(), m.to_string()).into()
    };
    if source::is_stdin(path) {
        return Err(whole(
            "standard input: pass --format (games, standings or pgn) to read it",
        ));
    }
    let meta = std::fs::metadata(path).ok();
    if meta.as_ref().is_some_and(std::fs::Metadata::is_dir) {
        // A folder of N.json contests, else a folder of CSV or PGN files read together.
        if !contest_json::numbered_files(path)?.is_empty() {
            return Ok(Format::Json);
        }
        return match source::folder_files(path)?.first() {
            Some(first) => detect(first),
            None => Err(whole(
                "the folder holds no contest files (N.json) and no CSV, TSV or PGN file",
            )),
        };
    }
    match source::format_extension(path).unwrap_or_default().as_str() {
        "json" => return Ok(Format::Json),
        "pgn" => return Ok(Format::Pgn),
        "parquet" | "pq" => return Ok(Format::Parquet),
        _ => {}
    }
    if meta.is_some_and(|m| !m.is_file()) {
        return Err(whole("cannot detect the format of a pipe: pass --format"));
    }
    table::detect_csv(path)
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
    }
}
