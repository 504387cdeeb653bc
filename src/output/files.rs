//! The output files. Numbers are written in Rust's shortest round-trip form, so the files hold
//! exactly the values computed and are identical from run to run.

use super::table::LeaderRow;
use crate::history::History;
use crate::ingest::time::format_time;
use crate::replay::{HistoryRow, ReplayResult};
use rayon::prelude::*;
use std::fmt::Write as _;
use std::io::{self, Write};

/// The file type of the rating history.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, clap::ValueEnum, serde::Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum HistoryFormat {
    /// `history.csv`
    #[default]
    Csv,
    /// `history.parquet` (time as a UTC timestamp)
    Parquet,
}

fn csv_field(s: &str, out: &mut String) {
    if s.contains([',', '"', '\n', '\r']) || s.starts_with(' ') || s.ends_with(' ') {
        out.push('"');
        out.push_str(&s.replace('"', "\"\""));
        out.push('"');
    } else {
        out.push_str(s);
    }
}

fn number(v: f64, out: &mut String) {
    if v.is_finite() {
        let _ = write!(out, "{v}");
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

const CHUNK: usize = 1 << 15;

/// `round,contest,time,player,rating_before,rating_after,uncertainty_after,performance`,
/// formatted in parallel chunks and written in order.
pub fn write_history_csv(
    w: &mut dyn Write,
    history: &History,
    result: &ReplayResult,
) -> io::Result<()> {
    w.write_all(
        b"round,contest,time,player,rating_before,rating_after,uncertainty_after,performance\n",
    )?;
    // Names quoted once, not once per row.
    let names: Vec<String> = history
        .names()
        .par_iter()
        .map(|n| {
            let mut s = String::new();
            csv_field(n, &mut s);
            s
        })
        .collect();
    for group in result
        .history
        .chunks(CHUNK * rayon::current_num_threads().max(1) * 2)
    {
        let texts: Vec<String> = group
            .par_chunks(CHUNK)
            .map(|rows| format_rows(history, &names, rows))
            .collect();
        for t in texts {
            w.write_all(t.as_bytes())?;
        }
    }
    Ok(())
}

fn format_rows(history: &History, names: &[String], rows: &[HistoryRow]) -> String {
    let mut s = String::with_capacity(rows.len() * 80);
    let mut time_of = (u32::MAX, String::new());
    for r in rows {
        if time_of.0 != r.contest_id {
            time_of = (
                r.contest_id,
                format_time(history.contest(r.contest_id as usize).time()),
            );
        }
        let _ = write!(s, "{},{},{},", r.round, r.contest, time_of.1);
        s.push_str(&names[r.player as usize]);
        s.push(',');
        number(r.before, &mut s);
        s.push(',');
        number(r.after, &mut s);
        s.push(',');
        number(r.uncertainty, &mut s);
        s.push(',');
        number(r.performance, &mut s);
        s.push('\n');
    }
    s
}

/// The same columns as the CSV in Parquet, `time` as a UTC timestamp in seconds, missing
/// uncertainty and performance as nulls.
pub fn write_history_parquet(
    w: &mut dyn Write,
    history: &History,
    result: &ReplayResult,
) -> io::Result<()> {
    use polars::prelude::*;
    let rows = &result.history;
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
pub fn write_metrics(w: &mut dyn Write, doc: &serde_json::Value) -> io::Result<()> {
    serde_json::to_writer_pretty(&mut *w, doc).map_err(io::Error::other)?;
    w.write_all(b"\n")
}
