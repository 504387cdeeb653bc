//! The rating history: `history.csv` (written as the replay produces rows, and continued on
//! resume) or `history.parquet`. CSV numbers are in Rust's shortest round-trip form.

use super::text::{csv_field, number};
use crate::history::History;
use crate::replay::HistoryRow;
use crate::time::push_time;
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

/// The header of `history.csv`.
const HISTORY_HEADER: &[u8] =
    b"round,contest,time,player,rating_before,rating_after,uncertainty_after,performance\n";

/// `history.csv`, written as the replay produces rows:
/// `round,contest,time,player,rating_before,rating_after,uncertainty_after,performance`.
pub struct HistoryCsv {
    /// Player names as CSV fields, by id.
    names: Vec<String>,
    time_of: (u32, String),
}

impl HistoryCsv {
    /// Writes the header; the players are those of `history` (and those added later).
    pub fn new(history: &History, w: &mut dyn Write) -> io::Result<Self> {
        w.write_all(HISTORY_HEADER)?;
        let mut out = Self {
            names: Vec::new(),
            time_of: (u32::MAX, String::new()),
        };
        out.add_names(history.names());
        Ok(out)
    }

    /// Players new to a streamed history, in the order of their ids.
    pub fn add_names(&mut self, names: &[String]) {
        // Names quoted once, not once per row.
        self.names.extend(names.iter().map(|n| {
            let mut s = String::new();
            csv_field(n, &mut s);
            s
        }));
    }

    /// Copies the header and the first `rows` rows of a previous `history.csv` (byte for
    /// byte), so that the new rows continue it. Quoted fields may hold line breaks.
    pub fn continuing(
        history: &History,
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
                push_time(&mut self.time_of.1, r.time);
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
    let time_ms: Vec<i64> = rows.iter().map(|r| r.time * 1000).collect();
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
