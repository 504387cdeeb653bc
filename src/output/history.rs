//! The rating history: `history.csv` (written as the replay produces rows, and continued on
//! resume) or `history.parquet`. CSV numbers are in Rust's shortest round-trip form.

use super::text::{csv_field, csv_name, number};
use crate::history::History;
use crate::replay::HistoryRow;
use crate::time::push_time;
use polars::prelude::{
    BatchedWriter, Column, DataFrame, DataType, NamedFrom, ParquetWriter, PolarsError, Series,
    TimeUnit, TimeZone,
};
use std::io::{self, BufRead, Write};
use std::path::Path;

/// The file type of the rating history.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, clap::ValueEnum, serde::Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum HistoryFormat {
    /// `history.csv`
    #[default]
    Csv,
    /// `history.parquet` (time as a timestamp of UTC time, stored without a time zone)
    Parquet,
    /// No rating history file.
    None,
}

/// The header of `history.csv`: with `pool` after `player` in a pooled history
/// (`--pool-by`), `season` last with seasons.
fn header(pooled: bool, seasons: bool) -> String {
    format!(
        "round,contest,time,player,{}rating_before,rating_after,uncertainty_after,performance{}\n",
        if pooled { "pool," } else { "" },
        if seasons { ",season" } else { "" }
    )
}

/// The seasons' names by number, as the replay tells them ([`crate::replay::Observer::season`]),
/// in the order of their numbers.
#[derive(Clone, Default)]
struct SeasonNames(Vec<(u32, String)>);

impl SeasonNames {
    /// Season `number`'s name: a new season, or the latest one named anew.
    fn add(&mut self, number: u32, name: String) {
        match self.0.last_mut() {
            Some((n, last)) if *n == number => *last = name,
            Some((n, _)) if *n > number => {}
            _ => self.0.push((number, name)),
        }
    }
    /// The name of season `number` (empty for one not told).
    fn get(&self, number: u32) -> &str {
        let i = self.0.partition_point(|(n, _)| *n < number);
        self.0
            .get(i)
            .filter(|(n, _)| *n == number)
            .map_or("", |(_, name)| name.as_str())
    }
}

/// Whether a history rates its players in pools (its first player's name holds one).
pub fn pooled(names: &[String]) -> bool {
    names
        .first()
        .is_some_and(|n| n.contains(crate::history::POOL_SEP))
}

/// `history.csv`, written as the replay produces rows:
/// `round,contest,time,player,rating_before,rating_after,uncertainty_after,performance` (with
/// `pool` after `player` in a pooled history).
pub struct HistoryCsv {
    /// Player names as CSV fields, by id (and the seasons' names).
    names: Names,
    time_of: (u32, String),
}

/// Player names as CSV fields, in one buffer (a row's name is read from a few neighbouring
/// cache lines instead of a `String` of its own somewhere on the heap: a replay's rows name
/// its players in no order, and fetching scattered names was a third of formatting them).
#[derive(Default)]
struct Names {
    text: String,
    /// Where name i ends in `text` (it starts where name i - 1 ends).
    ends: Vec<usize>,
    /// The input has no times: the time column is left empty.
    untimed: bool,
    /// With seasons: their names as CSV fields, written last on each row.
    seasons: Option<SeasonNames>,
}

impl Names {
    #[inline]
    fn get(&self, i: usize) -> &str {
        let start = if i == 0 { 0 } else { self.ends[i - 1] };
        &self.text[start..self.ends[i]]
    }
}

impl HistoryCsv {
    /// Writes the header; the players are those of `history` (and those added later); a
    /// `season` column with `seasons`.
    pub fn new(history: &History, seasons: bool, w: &mut dyn Write) -> io::Result<Self> {
        w.write_all(header(pooled(history.names()), seasons).as_bytes())?;
        let mut out = Self {
            names: Names {
                untimed: history.source.untimed,
                seasons: seasons.then(SeasonNames::default),
                ..Names::default()
            },
            time_of: (u32::MAX, String::new()),
        };
        out.add_names(history.names());
        Ok(out)
    }

    /// A season's name, before its rows.
    pub fn add_season(&mut self, number: u32, name: &str) {
        if let Some(s) = &mut self.names.seasons {
            let mut field = String::new();
            csv_field(name, &mut field);
            s.add(number, field);
        }
    }

    /// Players new to a streamed history, in the order of their ids.
    pub fn add_names(&mut self, names: &[String]) {
        // Names quoted once, not once per row; a pooled name as its name and its pool.
        for n in names {
            csv_name(n, &mut self.names.text);
            self.names.ends.push(self.names.text.len());
        }
    }

    /// Copies the header and the first `rows` rows of a previous `history.csv` (byte for
    /// byte), so that the new rows continue it. Quoted fields may hold line breaks. The last
    /// row copied must be of the state's last contest, at `last_time` (where the state knows
    /// it): else the file is another run's.
    pub fn continuing(
        history: &History,
        seasons: bool,
        w: &mut dyn Write,
        previous: &Path,
        (rows, last_time): (u64, Option<i64>),
    ) -> io::Result<Self> {
        let mut r = io::BufReader::new(super::publish::open_no_follow(previous)?);
        let mut first = Vec::new();
        r.read_until(b'\n', &mut first)?;
        if first != header(pooled(history.names()), seasons).as_bytes() {
            return Err(io::Error::other(
                "it is not a rate-batch history.csv with this run's columns",
            ));
        }
        let out = Self::new(history, seasons, w)?;
        let (mut line, mut row_start) = (Vec::new(), Vec::new());
        let mut copied = 0u64;
        let mut in_quotes = false;
        while copied < rows {
            line.clear();
            if r.read_until(b'\n', &mut line)? == 0 {
                return Err(io::Error::other(format!(
                    "it has {copied} rows, the state has applied {rows}"
                )));
            }
            if !in_quotes {
                row_start.clone_from(&line);
            }
            in_quotes ^= line.iter().filter(|&&b| b == b'"').count() % 2 == 1;
            w.write_all(&line)?;
            if !in_quotes {
                copied += 1;
            }
            // (A row's round, contest and time come first, never quoted; an input without
            // times leaves the time empty.)
            if let (true, Some(t)) = (!in_quotes && copied == rows, last_time) {
                let found = row_start.split(|&b| b == b',').nth(2).unwrap_or_default();
                let want = crate::time::format_time(t);
                if !found.is_empty() && found != want.as_bytes() {
                    let found = String::from_utf8_lossy(found);
                    return Err(io::Error::other(format!(
                        "its row {rows} is of a contest at {found}, the state's last contest \
                         is at {want}: it is not the history this state continues (another \
                         run wrote this folder since)"
                    )));
                }
            }
        }
        Ok(out)
    }

    /// Formats a batch of rows into `pieces`, buffers handed back by the writer and reused
    /// (each cleared, then filled): a large batch in pieces of [`CSV_PIECE`] rows on rayon's
    /// threads, a small one in one piece here. Written in order, the pieces are the batch's
    /// text.
    pub fn rows_into(&mut self, rows: &[HistoryRow], pieces: &mut Vec<String>) {
        let n = rows.len().div_ceil(CSV_PIECE).max(1);
        pieces.truncate(n);
        pieces.resize_with(n, String::new);
        let names = &self.names;
        if n == 1 {
            pieces[0].clear();
            format_rows(names, rows, &mut pieces[0], &mut self.time_of);
            return;
        }
        use rayon::prelude::*;
        rows.par_chunks(CSV_PIECE)
            .zip(pieces.par_iter_mut())
            .for_each(|(chunk, text)| {
                text.clear();
                format_rows(names, chunk, text, &mut (u32::MAX, String::new()));
            });
    }
}

/// Rows of `history.csv` formatted on one thread at a time (about 1.5 MB of text).
pub const CSV_PIECE: usize = 1 << 14;

/// Appends the lines of `rows` to `s`; `time_of` keeps the text of the latest contest's time.
fn format_rows(names: &Names, rows: &[HistoryRow], s: &mut String, time_of: &mut (u32, String)) {
    s.reserve(rows.len() * 90);
    let mut ints = itoa::Buffer::new();
    for r in rows {
        if time_of.0 != r.contest_id {
            time_of.0 = r.contest_id;
            time_of.1.clear();
            if !names.untimed {
                push_time(&mut time_of.1, r.time);
            }
        }
        s.push_str(ints.format(r.round));
        s.push(',');
        s.push_str(ints.format(r.contest));
        s.push(',');
        s.push_str(&time_of.1);
        s.push(',');
        s.push_str(names.get(r.player as usize));
        s.push(',');
        number(r.before, s);
        s.push(',');
        number(r.after, s);
        s.push(',');
        number(r.uncertainty, s);
        s.push(',');
        number(r.performance, s);
        if let Some(seasons) = &names.seasons {
            s.push(',');
            s.push_str(seasons.get(r.season));
        }
        s.push('\n');
    }
}

/// Rows per row group of `history.parquet`: the rows of a replay are written a row group at a
/// time as they come (so memory holds one group, not the history), and the same rows always
/// make the same file, whether the replay streamed or not.
pub const PARQUET_ROW_GROUP: usize = 1 << 20;

/// `history.parquet`, written a row group at a time: the same columns as the CSV, `time` as a
/// UTC timestamp in milliseconds, missing uncertainty and performance as nulls.
pub struct HistoryParquet<W: Write> {
    names: Vec<String>,
    /// With seasons: their names, for the `season` column.
    seasons: Option<SeasonNames>,
    pending: Vec<HistoryRow>,
    writer: Option<BatchedWriter<W>>,
    out: Option<W>,
}

impl<W: Write> HistoryParquet<W> {
    /// A writer to `w` whose players are those of `history` (and those added later); a
    /// `season` column with `seasons`.
    pub fn new(history: &History, seasons: bool, w: W) -> Self {
        Self {
            names: history.names().to_vec(),
            seasons: seasons.then(SeasonNames::default),
            pending: Vec::new(),
            writer: None,
            out: Some(w),
        }
    }

    /// Players new to a streamed history, in the order of their ids.
    pub fn add_names(&mut self, names: &[String]) {
        self.names.extend_from_slice(names);
    }

    /// A season's name, before its rows.
    pub fn add_season(&mut self, number: u32, name: &str) {
        if let Some(s) = &mut self.seasons {
            s.add(number, name.to_string());
        }
    }

    /// Takes rows, writing every full row group.
    pub fn rows(&mut self, rows: &[HistoryRow]) -> io::Result<()> {
        let mut rest = rows;
        while !rest.is_empty() {
            let take = (PARQUET_ROW_GROUP - self.pending.len()).min(rest.len());
            self.pending.extend_from_slice(&rest[..take]);
            rest = &rest[take..];
            if self.pending.len() == PARQUET_ROW_GROUP {
                self.flush()?;
            }
        }
        Ok(())
    }

    /// Writes the last row group and the footer.
    pub fn finish(mut self) -> io::Result<()> {
        if !self.pending.is_empty() || self.writer.is_none() {
            self.flush()?;
        }
        match &self.writer {
            Some(w) => w.finish().map(drop).map_err(polars_io),
            None => Ok(()),
        }
    }

    fn flush(&mut self) -> io::Result<()> {
        let mut df = frame(&self.names, self.seasons.as_ref(), &self.pending)?;
        self.pending.clear();
        if self.writer.is_none() {
            let out = self.out.take().expect("the writer is there until finish");
            let writer = ParquetWriter::new(out).batched(df.schema());
            self.writer = Some(writer.map_err(polars_io)?);
        }
        df.rechunk_mut();
        let writer = self.writer.as_mut().expect("made above");
        writer.write_batch(&df).map_err(polars_io)
    }
}

/// A polars error as an I/O error.
pub(super) fn polars_io(e: PolarsError) -> io::Error {
    io::Error::other(e.to_string())
}

/// A column of Unix milliseconds as UTC timestamps.
pub(super) fn utc_column(ms: Column) -> io::Result<Column> {
    ms.cast(&DataType::Datetime(
        TimeUnit::Milliseconds,
        Some(TimeZone::UTC),
    ))
    .map_err(polars_io)
}

/// A column of `values`.
pub(super) fn column<T, P: ?Sized>(name: &str, values: impl Iterator<Item = T>) -> Column
where
    Series: NamedFrom<Vec<T>, P>,
{
    Column::new(name.into(), values.collect::<Vec<T>>())
}

/// A column of numbers, a missing one (not finite) as null.
pub(super) fn finite_column(name: &str, values: impl Iterator<Item = f64>) -> Column {
    column(name, values.map(|v| Some(v).filter(|v| v.is_finite())))
}

/// The `player` column of a Parquet file, and `pool` after it when `pooled` (`--pool-by`),
/// one row a name.
pub(super) fn player_columns<'a>(
    names: impl Iterator<Item = &'a str>,
    pooled: bool,
) -> Vec<Column> {
    let (players, pools): (Vec<&str>, Vec<&str>) = names
        .map(|n| {
            let (name, pool) = crate::history::split_pool(n);
            (name, pool.unwrap_or_default())
        })
        .unzip();
    let mut columns = vec![Column::new("player".into(), players)];
    if pooled {
        columns.push(Column::new("pool".into(), pools));
    }
    columns
}

/// Rows as a data frame of `history.parquet`'s columns.
fn frame(
    names: &[String],
    seasons: Option<&SeasonNames>,
    rows: &[HistoryRow],
) -> io::Result<DataFrame> {
    let time = utc_column(column("time", rows.iter().map(|r| r.time * 1000)))?;
    let int = |name: &str, g: fn(&HistoryRow) -> u32| column(name, rows.iter().map(g));
    let float = |name: &str, g: fn(&HistoryRow) -> f64| column(name, rows.iter().map(g));
    let opt = |name: &str, g: fn(&HistoryRow) -> f64| finite_column(name, rows.iter().map(g));
    let mut columns = vec![
        int("round", |r| r.round),
        int("contest", |r| r.contest),
        time,
    ];
    let players = rows.iter().map(|r| names[r.player as usize].as_str());
    columns.extend(player_columns(players, pooled(names)));
    columns.extend([
        float("rating_before", |r| r.before),
        float("rating_after", |r| r.after),
        opt("uncertainty_after", |r| r.uncertainty),
        opt("performance", |r| r.performance),
    ]);
    if let Some(s) = seasons {
        columns.push(column("season", rows.iter().map(|r| s.get(r.season))));
    }
    DataFrame::new(rows.len(), columns).map_err(polars_io)
}
