//! The output files. Numbers are written in Rust's shortest round-trip form, so the files hold
//! exactly the values computed and are identical from run to run.

use super::table::LeaderRow;
use crate::history::History;
use crate::replay::HistoryRow;
use crate::time::{format_time, push_time};
use std::fmt::Write as _;

use std::io::{self, BufRead, Write};
use std::path::Path;

/// The file type of the rating history.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, clap::ValueEnum, serde::Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum HistoryFormat {
    /// `history.csv`
    #[default]
    Csv,
    /// `history.parquet` (time as a UTC timestamp)
    Parquet,
    /// No rating history file.
    None,
}

pub(crate) fn csv_field(s: &str, out: &mut String) {
    // Quoted when a reader could split or trim it: separators, quotes, line breaks, and
    // whitespace at either end (names are kept exactly as given).
    if s.contains([',', '"', '\n', '\r'])
        || s.starts_with(char::is_whitespace)
        || s.ends_with(char::is_whitespace)
    {
        out.push('"');
        out.push_str(&s.replace('"', "\"\""));
        out.push('"');
    } else {
        out.push_str(s);
    }
}

/// Shortest round-trip form (ryu); empty for NaN (no value).
fn number(v: f64, out: &mut String) {
    if v.is_finite() {
        let mut b = ryu::Buffer::new();
        let s = b.format_finite(v);
        out.push_str(s.strip_suffix(".0").unwrap_or(s));
    }
}

/// `rank,player,rating,uncertainty,display_rating,rounds,wins,draws,losses,last_time`
pub fn write_leaderboard(
    w: &mut dyn Write,
    history: &History,
    rows: &[LeaderRow],
) -> io::Result<()> {
    let mut line = String::new();
    w.write_all(
        b"rank,player,rating,uncertainty,display_rating,rounds,wins,draws,losses,last_time\n",
    )?;
    for r in rows {
        line.clear();
        let _ = write!(line, "{},", r.rank);
        csv_field(history.name(r.player), &mut line);
        line.push(',');
        number(r.rating.mean, &mut line);
        line.push(',');
        number(r.rating.uncertainty.unwrap_or(f64::NAN), &mut line);
        line.push(',');
        number(r.rating.display, &mut line);
        let rec = &r.record;
        let _ = writeln!(
            line,
            ",{},{},{},{},{}",
            rec.rounds,
            rec.wins,
            rec.draws,
            rec.losses,
            format_time(rec.last_time)
        );
        w.write_all(line.as_bytes())?;
    }
    Ok(())
}

/// The header of `history.csv`.
const HISTORY_HEADER: &[u8] =
    b"round,contest,time,player,rating_before,rating_after,uncertainty_after,performance\n";

/// `history.csv`, written as the replay produces rows:
/// `round,contest,time,player,rating_before,rating_after,uncertainty_after,performance`.
pub struct HistoryCsv<'h> {
    history: &'h History,
    names: Vec<String>,
    time_of: (u32, String),
}

impl<'h> HistoryCsv<'h> {
    /// Writes the header.
    pub fn new(history: &'h History, w: &mut dyn Write) -> io::Result<Self> {
        w.write_all(HISTORY_HEADER)?;
        // Names quoted once, not once per row.
        let names = history
            .names()
            .iter()
            .map(|n| {
                let mut s = String::new();
                csv_field(n, &mut s);
                s
            })
            .collect();
        Ok(Self {
            history,
            names,
            time_of: (u32::MAX, String::new()),
        })
    }

    /// Copies the header and the first `rows` rows of a previous `history.csv` (byte for
    /// byte), so that the new rows continue it. Quoted fields may hold line breaks.
    pub fn continuing(
        history: &'h History,
        w: &mut dyn Write,
        previous: &Path,
        rows: u64,
    ) -> io::Result<Self> {
        let mut r = io::BufReader::new(super::publish::open_no_follow(previous)?);
        let mut header = Vec::new();
        r.read_until(b'\n', &mut header)?;
        if header != HISTORY_HEADER {
            return Err(io::Error::other("it is not a rate-batch history.csv"));
        }
        let mut out = Self::new(history, w)?;
        let mut line = Vec::new();
        let mut copied = 0u64;
        let mut in_quotes = false;
        while copied < rows {
            line.clear();
            if r.read_until(b'\n', &mut line)? == 0 {
                return Err(io::Error::other(format!(
                    "it has {copied} rows, the state has applied {rows}"
                )));
            }
            in_quotes ^= line.iter().filter(|&&b| b == b'"').count() % 2 == 1;
            w.write_all(&line)?;
            if !in_quotes {
                copied += 1;
            }
        }
        out.time_of = (u32::MAX, String::new());
        Ok(out)
    }

    /// Formats a batch of rows.
    pub fn rows(&mut self, rows: &[HistoryRow]) -> String {
        let mut text = String::with_capacity(rows.len() * 90);
        let s = &mut text;
        let mut ints = itoa::Buffer::new();
        for r in rows {
            if self.time_of.0 != r.contest_id {
                self.time_of.0 = r.contest_id;
                self.time_of.1.clear();
                push_time(
                    &mut self.time_of.1,
                    self.history.contest(r.contest_id as usize).time(),
                );
            }
            s.push_str(ints.format(r.round));
            s.push(',');
            s.push_str(ints.format(r.contest));
            s.push(',');
            s.push_str(&self.time_of.1);
            s.push(',');
            s.push_str(&self.names[r.player as usize]);
            s.push(',');
            number(r.before, s);
            s.push(',');
            number(r.after, s);
            s.push(',');
            number(r.uncertainty, s);
            s.push(',');
            number(r.performance, s);
            s.push('\n');
        }
        text
    }
}

/// The same columns as the CSV in Parquet, `time` as a UTC timestamp in seconds, missing
/// uncertainty and performance as nulls.
pub fn write_history_parquet(
    w: &mut dyn Write,
    history: &History,
    rows: &[HistoryRow],
) -> io::Result<()> {
    use polars::prelude::*;
    let to_io = |e: PolarsError| io::Error::other(e.to_string());
    let opt = |v: f64| v.is_finite().then_some(v);
    let time_ms: Vec<i64> = rows
        .iter()
        .map(|r| history.contest(r.contest_id as usize).time() * 1000)
        .collect();
    let time = Column::new("time".into(), time_ms)
        .cast(&DataType::Datetime(
            TimeUnit::Milliseconds,
            Some(TimeZone::UTC),
        ))
        .map_err(to_io)?;
    let columns = vec![
        Column::new(
            "round".into(),
            rows.iter().map(|r| r.round).collect::<Vec<u32>>(),
        ),
        Column::new(
            "contest".into(),
            rows.iter().map(|r| r.contest).collect::<Vec<u32>>(),
        ),
        time,
        Column::new(
            "player".into(),
            rows.iter()
                .map(|r| history.name(r.player))
                .collect::<Vec<&str>>(),
        ),
        Column::new(
            "rating_before".into(),
            rows.iter().map(|r| r.before).collect::<Vec<f64>>(),
        ),
        Column::new(
            "rating_after".into(),
            rows.iter().map(|r| r.after).collect::<Vec<f64>>(),
        ),
        Column::new(
            "uncertainty_after".into(),
            rows.iter()
                .map(|r| opt(r.uncertainty))
                .collect::<Vec<Option<f64>>>(),
        ),
        Column::new(
            "performance".into(),
            rows.iter()
                .map(|r| opt(r.performance))
                .collect::<Vec<Option<f64>>>(),
        ),
    ];
    let mut df = DataFrame::new(rows.len(), columns).map_err(to_io)?;
    ParquetWriter::new(w).finish(&mut df).map_err(to_io)?;
    Ok(())
}

/// `metrics.json`, pretty-printed.
pub fn write_metrics<T: serde::Serialize>(w: &mut dyn Write, doc: &T) -> io::Result<()> {
    serde_json::to_writer_pretty(&mut *w, doc).map_err(io::Error::other)?;
    w.write_all(b"\n")
}
