//! Readers: one per input format, each producing a [`History`].
//!
//! Every reader validates as it goes and reports the first bad record as an [`InputError`]
//! naming the file, the line (or row, or contest) and the field. With `skip_invalid` a bad
//! record is skipped and counted instead; problems with the file as a whole (a missing column,
//! unreadable bytes) always stop the run.

pub mod budget;
mod columns;
mod contest_json;
mod games;
mod lines;
mod pgn;
pub mod seeds;
pub mod small_csv;
mod standings;
mod table;
pub mod time;
pub mod truth;

use crate::history::{History, HistoryBuilder, PlayerId, SourceInfo};
use std::fmt;
use std::path::Path;

pub use games::TeamSeparator;

/// The input formats of docs/design.md.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum, serde::Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Format {
    /// Two sides per row: `time,a,b` and `result`, `score_a`/`score_b` or `winner`.
    Games,
    /// One row per participant: `contest,time,player,rank[,team][,weight]`.
    Standings,
    /// Elo-MMR contest JSON: a folder of `N.json` or one array of contests.
    Json,
    /// PGN chess games (tag pairs; move text optional).
    Pgn,
    /// Parquet with the columns of the games or the standings format.
    Parquet,
}

impl fmt::Display for Format {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let s = match self {
            Format::Games => "games",
            Format::Standings => "standings",
            Format::Json => "json",
            Format::Pgn => "pgn",
            Format::Parquet => "parquet",
        };
        f.write_str(s)
    }
}

/// Where in the input a problem is.
#[derive(Clone, Debug, PartialEq)]
pub enum Location {
    /// The file as a whole (its header, its structure).
    File,
    /// A 1-based line of a text file.
    Line(u64),
    /// A 1-based data row of a Parquet file.
    Row(u64),
    /// A contest, by its name or file.
    Contest(String),
}

/// A bad input: file, place, field and what is wrong, in one line.
#[derive(Clone, Debug, PartialEq)]
pub struct InputError {
    /// The input file (or folder member) as the user would find it.
    pub file: String,
    /// Where in it.
    pub at: Location,
    /// The field (column, tag, JSON key), when one is to blame.
    pub field: Option<String>,
    /// What is wrong.
    pub message: String,
}

impl fmt::Display for InputError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.file)?;
        match &self.at {
            Location::File => {}
            Location::Line(l) => write!(f, ", line {l}")?,
            Location::Row(r) => write!(f, ", row {r}")?,
            Location::Contest(c) => write!(f, ", contest {c}")?,
        }
        if let Some(field) = &self.field {
            write!(f, ", field `{field}`")?;
        }
        write!(f, ": {}", self.message)
    }
}

impl std::error::Error for InputError {}

impl InputError {
    /// An error about a file as a whole (no line, no field).
    pub fn whole_file(file: impl Into<String>, message: String) -> Self {
        InputError {
            file: file.into(),
            at: Location::File,
            field: None,
            message,
        }
    }
}

/// A problem with one field, before the reader adds file and place.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct FieldError {
    pub field: Option<String>,
    pub message: String,
}

impl FieldError {
    pub fn new(field: &str, message: impl Into<String>) -> Self {
        Self {
            field: Some(field.to_string()),
            message: message.into(),
        }
    }
    pub fn whole(message: impl Into<String>) -> Self {
        Self {
            field: None,
            message: message.into(),
        }
    }
}

/// Canonical column name -> the column to read it from (`--map a=home_team,...`).
#[derive(Clone, Debug, Default)]
pub struct ColumnMap(Vec<(String, String)>);

/// Column names the readers know, for checking `--map`.
pub const CANONICAL_COLUMNS: &[&str] = &[
    "time", "a", "b", "result", "score_a", "score_b", "winner", "series", "weight", "contest",
    "player", "rank", "team",
];

impl ColumnMap {
    /// Parses `canonical=actual,...`.
    pub fn parse(spec: &str) -> Result<Self, String> {
        let mut pairs = Vec::new();
        for part in spec.split(',').map(str::trim).filter(|p| !p.is_empty()) {
            let (k, v) = part
                .split_once('=')
                .ok_or_else(|| format!("--map: `{part}` is not of the form column=name"))?;
            let (k, v) = (k.trim(), v.trim());
            if !CANONICAL_COLUMNS.contains(&k) {
                return Err(format!(
                    "--map: unknown column `{k}` (known: {})",
                    CANONICAL_COLUMNS.join(", ")
                ));
            }
            if v.is_empty() {
                return Err(format!("--map: empty name for `{k}`"));
            }
            pairs.push((k.to_string(), v.to_string()));
        }
        Ok(Self(pairs))
    }

    /// The name of the column that holds `canonical`.
    pub fn source<'a>(&'a self, canonical: &'a str) -> &'a str {
        self.0
            .iter()
            .find(|(k, _)| k == canonical)
            .map_or(canonical, |(_, v)| v.as_str())
    }
}

/// How to read an input.
#[derive(Clone, Debug, Default)]
pub struct IngestOptions {
    /// Overrides detection.
    pub format: Option<Format>,
    /// Column renames for the CSV and Parquet formats.
    pub map: ColumnMap,
    /// Skip and count bad records instead of stopping.
    pub skip_invalid: bool,
    /// How a side of the games format names a team.
    pub team_separator: TeamSeparator,
    /// Players interned first, in this order (a resumed replay's known players).
    pub known_players: Vec<String>,
    /// How the time column of a CSV or Parquet input is written (`--time-format`).
    pub time_format: time::TimeFormat,
    /// Remove the whitespace around player names (`--trim-names`).
    pub trim_names: bool,
    /// Skip the memory check before reading (`--no-memory-check`).
    pub no_memory_check: bool,
}

/// Reads an input into a [`History`]. Errors are [`InputError`] for bad content and
/// `std::io::Error` (inside anyhow) for files that cannot be read.
pub fn ingest(path: &Path, opts: &IngestOptions) -> anyhow::Result<History> {
    let format = match opts.format {
        Some(f) => f,
        None => detect(path)?,
    };
    let mut ctx = Context::new(path, format, opts);
    match format {
        Format::Games | Format::Standings => table::read_csv(path, format, &mut ctx)?,
        Format::Parquet => table::read_parquet(path, &mut ctx)?,
        Format::Json => contest_json::read(path, &mut ctx)?,
        Format::Pgn => pgn::read(path, &mut ctx)?,
    }
    let mut history = ctx.finish();
    check_series(&history)?;
    note_padded_names(&mut history);
    Ok(history)
}

/// A series id names one best-of-N: in time order, its games may not be interleaved with any
/// other contest of its players (a round of `--period series` is rated at the series' start,
/// so such a game would be rated and scored with results from its future), and each of its
/// games shares a player with the games before (otherwise the id was used for two series).
fn check_series(h: &History) -> Result<(), InputError> {
    if h.series_count() == 0 {
        return Ok(());
    }
    // Per series id: index of its first contest and its players so far; per player: the
    // index and series of his latest contest.
    let mut series: Vec<Option<(usize, Vec<PlayerId>)>> = vec![None; h.series_count()];
    let mut latest: Vec<Option<(usize, Option<u32>)>> = vec![None; h.player_count()];
    for c in h.contests() {
        if let Some(s) = c.series()
            && let Some((first, players)) = &series[s as usize]
        {
            let problem = if !c.players().iter().any(|p| players.contains(p)) {
                Some("has no player of its earlier games (one id for two series?)".to_string())
            } else {
                c.players().iter().find_map(|&p| match latest[p as usize] {
                    Some((k, other)) if k > *first && other != Some(s) => Some(format!(
                        "comes after {} played another contest ({}) since the series began; a \
                         series' games cannot be interleaved with other games of its players",
                        h.name(p),
                        time::format_time(h.contest(k).time())
                    )),
                    _ => None,
                })
            };
            if let Some(problem) = problem {
                let sides: Vec<String> = c
                    .entries()
                    .map(|e| {
                        let names: Vec<&str> = e.players.iter().map(|&p| h.name(p)).collect();
                        names.join("+")
                    })
                    .collect();
                return Err(InputError {
                    field: Some("series".into()),
                    ..InputError::whole_file(
                        h.source.path.clone(),
                        format!(
                            "series `{}`: its game of {} ({}) {problem}",
                            h.series_name(s),
                            time::format_time(c.time()),
                            sides.join(" vs ")
                        ),
                    )
                });
            }
        }
        if let Some(s) = c.series() {
            let (_, players) = series[s as usize].get_or_insert((c.index(), Vec::new()));
            for &p in c.players() {
                if !players.contains(&p) {
                    players.push(p);
                }
            }
        }
        for &p in c.players() {
            latest[p as usize] = Some((c.index(), c.series()));
        }
    }
    Ok(())
}

/// Decodes a Parquet file in full in this process; true when it decodes.
pub fn probe_parquet_here(path: &Path) -> bool {
    use polars::prelude::*;
    let Ok(file) = std::fs::File::open(path) else {
        return false;
    };
    std::panic::set_hook(Box::new(|_| {}));
    std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        ParquetReader::new(file).finish().is_ok()
    }))
    .unwrap_or(false)
}

/// The program to run the Parquet probe with: `RATE_BATCH_EXE` if set, else this program if
/// it is rate-batch (not, say, a test harness).
fn probe_exe() -> Option<std::path::PathBuf> {
    if let Some(p) = std::env::var_os("RATE_BATCH_EXE") {
        return Some(p.into());
    }
    let me = std::env::current_exe().ok()?;
    let name = me.file_stem()?.to_str()?;
    (name == "rate-batch").then_some(me)
}

/// Decodes a Parquet file in a child process first: a malformed file can make the Parquet
/// decoder (polars) abort the whole process with an impossible allocation, which no Rust code
/// can catch (pola-rs/polars#15342). Returns the error to report when the child crashed;
/// `None` when it decoded the file, reported an ordinary error (read again here for the
/// message), or could not be run.
pub(crate) fn probe_parquet_in_child(path: &Path) -> Option<String> {
    let exe = probe_exe()?;
    let status = std::process::Command::new(exe)
        .arg("__probe-parquet")
        .arg(path)
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .status()
        .ok()?;
    match status.code() {
        Some(0) | Some(1) => None,
        _ => Some(format!(
            "the Parquet decoder crashed on this file ({status}): its data pages are damaged"
        )),
    }
}

/// Picks the format from the path: a folder or `.json` is contest JSON, `.pgn` is PGN,
/// `.parquet`/`.pq` is Parquet; otherwise a CSV whose header says games or standings.
pub fn detect(path: &Path) -> anyhow::Result<Format> {
    if path.is_dir() {
        return Ok(Format::Json);
    }
    let ext = path
        .extension()
        .and_then(|e| e.to_str())
        .map(str::to_ascii_lowercase)
        .unwrap_or_default();
    match ext.as_str() {
        "json" => return Ok(Format::Json),
        "pgn" => return Ok(Format::Pgn),
        "parquet" | "pq" => return Ok(Format::Parquet),
        _ => {}
    }
    table::detect_csv(path)
}

/// What every reader shares: the builder, the options, the counts and the error policy.
pub(crate) struct Context<'o> {
    pub file: String,
    pub opts: &'o IngestOptions,
    pub builder: HistoryBuilder,
    pub source: SourceInfo,
}

const SKIPPED_EXAMPLES: usize = 5;

impl<'o> Context<'o> {
    fn new(path: &Path, format: Format, opts: &'o IngestOptions) -> Self {
        let file = path.display().to_string();
        Self {
            file: file.clone(),
            opts,
            builder: HistoryBuilder::with_players(&opts.known_players),
            source: SourceInfo {
                path: file,
                format: format.to_string(),
                ..SourceInfo::default()
            },
        }
    }

    /// Builds the full error for a place in the file.
    pub fn error(&self, at: Location, e: FieldError) -> InputError {
        InputError {
            file: self.file.clone(),
            at,
            field: e.field,
            message: e.message,
        }
    }

    /// A bad record: an error, or under `--skip-invalid` a count and `Ok`.
    pub fn reject(&mut self, at: Location, e: FieldError) -> Result<(), InputError> {
        let err = self.error(at, e);
        self.skip_or_fail(err)
    }

    /// The same for an error already placed (in another file of a folder, say).
    pub fn skip_or_fail(&mut self, err: InputError) -> Result<(), InputError> {
        if self.opts.skip_invalid {
            self.source.skipped_invalid += 1;
            if self.source.skipped_examples.len() < SKIPPED_EXAMPLES {
                self.source.skipped_examples.push(err.to_string());
            }
            Ok(())
        } else {
            Err(err)
        }
    }

    fn finish(self) -> History {
        self.builder.finish(self.source)
    }
}

/// A player name as the history keeps it: exactly as given (NFC is applied when interned).
/// With `--trim-names` the whitespace around it is removed, unless nothing would remain (a
/// name of spaces, such as one U+00A0, stays as it is). Only an empty name is refused.
pub(crate) fn player_name<'a>(
    raw: &'a str,
    field: &str,
    trim: bool,
) -> Result<&'a str, FieldError> {
    if trim {
        let t = raw.trim();
        if !t.is_empty() {
            return Ok(t);
        }
    }
    if raw.is_empty() {
        return Err(FieldError::new(field, "empty player name"));
    }
    Ok(raw)
}

/// Counts the names with surrounding whitespace, and those equal to another name once it is
/// removed, into the source summary (so that two players told apart only by padding are never
/// a silent surprise).
fn note_padded_names(h: &mut History) {
    let padded = |n: &str| n.trim().len() != n.len();
    let count = h.names().iter().filter(|n| padded(n)).count();
    if count == 0 {
        return;
    }
    let mut by_trimmed: rustc_hash::FxHashMap<&str, &str> = rustc_hash::FxHashMap::default();
    let mut equal = 0;
    let mut example = None;
    // Unpadded names first, so that each padded one is compared with them.
    let names = h.names();
    for n in names
        .iter()
        .filter(|n| !padded(n))
        .chain(names.iter().filter(|n| padded(n)))
    {
        if let Some(other) = by_trimmed.insert(n.trim(), n) {
            equal += 1;
            example.get_or_insert_with(|| (other.to_string(), n.clone()));
        }
    }
    h.source.names_padded = count;
    h.source.names_equal_when_trimmed = equal;
    h.source.names_equal_example = example;
}

/// The range of a contest weight: wide enough for any real use (a weight scales a contest's
/// information), narrow enough that no system's arithmetic overflows or underflows with it.
pub(crate) const WEIGHT_RANGE: (f64, f64) = (1e-6, 1e6);

/// Checks a contest weight's value.
pub(crate) fn check_weight(w: f64) -> Result<f64, String> {
    let (lo, hi) = WEIGHT_RANGE;
    if w.is_finite() && (lo..=hi).contains(&w) {
        Ok(w)
    } else {
        Err(format!(
            "weight {w} is not a number within [{lo:e}, {hi:e}]"
        ))
    }
}

/// Checks a contest weight: a number within [`WEIGHT_RANGE`]; empty means 1.
pub(crate) fn weight(raw: &str, field: &str) -> Result<f64, FieldError> {
    let raw = raw.trim();
    if raw.is_empty() {
        return Ok(1.0);
    }
    let (lo, hi) = WEIGHT_RANGE;
    match raw.parse::<f64>() {
        Ok(w) if check_weight(w).is_ok() => Ok(w),
        _ => Err(FieldError::new(
            field,
            format!("weight `{raw}` is not a number within [{lo:e}, {hi:e}]"),
        )),
    }
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
