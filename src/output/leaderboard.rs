//! `leaderboard.csv`. Numbers are written in Rust's shortest round-trip form, so the file
//! holds exactly the values computed and is identical from run to run.

use super::history::{column, finite_column, player_columns, polars_io, utc_column};
use super::table::{Interval, LeaderRow, is_standings};
use super::text::{csv_name, number};
use crate::history::{History, split_pool};
use crate::replay::PlayerRecord;
use crate::time::format_time;
use polars::prelude::{DataFrame, ParquetWriter};
use std::fmt::Write as _;
use std::io::{self, Write};

/// `rank,player,rating,uncertainty,display_rating,rounds,wins,draws,losses,last_time,status`
/// (`rank` empty for an entrant not ranked: `status` provisional or inactive; `pool` after
/// `player` in a pooled history, whose ranks are within a pool); for a history of standings (any contest of more than two entries: [`is_standings`]) `contests,
/// best_rank,median_rank` instead of `wins,draws,losses`. Rows are formatted in batches, each cut into pieces formatted on rayon's threads and
/// written in order: the file is the same whatever the number of threads.
pub fn write_leaderboard(
    w: &mut dyn Write,
    history: &History,
    rows: &[LeaderRow],
    records: &[PlayerRecord],
) -> io::Result<()> {
    use rayon::prelude::*;
    /// Rows per piece, and pieces per batch (a batch's text is held at once).
    const PIECE: usize = 4096;
    const BATCH: usize = 16 * PIECE;
    let ci = rows.iter().any(|r| r.interval.is_some());
    let standings = is_standings(rows, records);
    let pooled = is_pooled(history, rows);
    w.write_all(if pooled {
        b"rank,player,pool,rating,uncertainty,display_rating,rounds,".as_slice()
    } else {
        b"rank,player,rating,uncertainty,display_rating,rounds,"
    })?;
    w.write_all(if standings {
        b"contests,best_rank,median_rank,last_time,status"
    } else {
        b"wins,draws,losses,last_time,status"
    })?;
    w.write_all(if ci {
        b",rating_lo,rating_hi,rank_lo,rank_hi,tie_group\n"
    } else {
        b"\n"
    })?;
    for batch in rows.chunks(BATCH) {
        let pieces: Vec<String> = batch
            .par_chunks(PIECE)
            .map(|piece| {
                let mut text = String::with_capacity(piece.len() * 96);
                for r in piece {
                    let rec = &records[r.player as usize];
                    row(&mut text, history, (r, rec), (standings, ci));
                }
                text
            })
            .collect();
        for text in &pieces {
            w.write_all(text.as_bytes())?;
        }
    }
    Ok(())
}

/// A player's last time as the leaderboard shows it: empty for an input without times.
fn last_time(history: &History, rec: &PlayerRecord) -> String {
    if history.source.untimed {
        String::new()
    } else {
        format_time(rec.last_time)
    }
}

/// One row, with its line end.
fn row(
    line: &mut String,
    history: &History,
    (r, rec): (&LeaderRow, &PlayerRecord),
    (standings, ci): (bool, bool),
) {
    if let Some(rank) = r.rank {
        let _ = write!(line, "{rank}");
    }
    line.push(',');
    csv_name(history.name(r.player), line);
    line.push(',');
    number(r.rating.mean, line);
    line.push(',');
    number(r.rating.uncertainty.unwrap_or(f64::NAN), line);
    line.push(',');
    number(r.rating.display, line);
    if standings {
        let _ = write!(line, ",{},{},", rec.rounds, rec.contests);
        if rec.places.best > 0 {
            let _ = write!(line, "{}", rec.places.best);
        }
        line.push(',');
        number(rec.places.median().unwrap_or(f64::NAN), line);
        let _ = write!(line, ",{},{}", last_time(history, rec), r.status.name());
    } else {
        let _ = write!(
            line,
            ",{},{},{},{},{},{}",
            rec.rounds,
            rec.wins,
            rec.draws,
            rec.losses,
            last_time(history, rec),
            r.status.name()
        );
    }
    if let Some(i) = &r.interval {
        line.push(',');
        number(i.rating.0, line);
        line.push(',');
        number(i.rating.1, line);
        match (i.rank, i.group) {
            (Some((lo, hi)), Some(g)) => {
                let _ = write!(line, ",{lo},{hi},{g}");
            }
            _ => line.push_str(",,,"),
        }
    } else if ci {
        // An entrant not ranked has no interval (they are the ranked entrants').
        line.push_str(",,,,,");
    }
    line.push('\n');
}

/// Whether the leaderboard's players are rated in pools (`--pool-by`).
pub fn is_pooled(history: &History, rows: &[LeaderRow]) -> bool {
    rows.iter()
        .any(|r| history.name(r.player).contains(crate::history::POOL_SEP))
}

/// The leaderboard's file type (`--leaderboard-format`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, clap::ValueEnum, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum LeaderboardFormat {
    /// `leaderboard.csv`.
    #[default]
    Csv,
    /// `leaderboard.json`: an array of one object a player, the CSV's columns as keys.
    Json,
    /// `leaderboard.parquet`: the CSV's columns, typed (`last_time` a timestamp of UTC time,
    /// stored without a time zone).
    Parquet,
}

/// The leaderboard's file in each format, in the order of [`LeaderboardFormat`]'s variants.
const FILES: [&str; 3] = ["leaderboard.csv", "leaderboard.json", "leaderboard.parquet"];

impl LeaderboardFormat {
    /// The file's name.
    pub fn file_name(self) -> &'static str {
        FILES[self as usize]
    }
}

/// The leaderboard, in `--leaderboard-format`.
pub struct Leaderboard;

impl super::Output for Leaderboard {
    fn names(&self) -> &'static [&'static str] {
        &FILES
    }

    fn wanted(&self, done: &super::Replayed) -> Vec<&'static str> {
        vec![done.leaderboard_format.file_name()]
    }

    /// Writes it in `--leaderboard-format` (see [`write_leaderboard`] for the columns).
    fn write(&self, _: &str, done: &super::Replayed, w: &mut dyn Write) -> io::Result<()> {
        let (history, rows, records) = (done.history, done.rows, &done.result.records[..]);
        match done.leaderboard_format {
            LeaderboardFormat::Csv => write_leaderboard(w, history, rows, records),
            LeaderboardFormat::Json => write_json(w, history, rows, records),
            LeaderboardFormat::Parquet => write_parquet(w, history, rows, records),
        }
    }
}

/// `leaderboard.json`: `[{"rank": 1, "player": ..., ...}, ...]`, numbers as numbers (an
/// uncertainty or interval the system has not: `null`).
fn write_json(
    w: &mut dyn Write,
    history: &History,
    rows: &[LeaderRow],
    records: &[PlayerRecord],
) -> io::Result<()> {
    use serde_json::{Value, json};
    let num = |v: f64| serde_json::Number::from_f64(v).map_or(Value::Null, Value::Number);
    let standings = is_standings(rows, records);
    w.write_all(b"[")?;
    for (k, r) in rows.iter().enumerate() {
        let rec = &records[r.player as usize];
        let (name, pool) = split_pool(history.name(r.player));
        let mut o = json!({
            "rank": r.rank,
            "player": name,
        });
        if let Some(pool) = pool {
            o["pool"] = pool.into();
        }
        o["rating"] = num(r.rating.mean);
        o["uncertainty"] = r.rating.uncertainty.map_or(Value::Null, num);
        o["display_rating"] = num(r.rating.display);
        o["rounds"] = rec.rounds.into();
        if standings {
            o["contests"] = rec.contests.into();
            o["best_rank"] = (rec.places.best > 0).then_some(rec.places.best).into();
            o["median_rank"] = rec.places.median().map_or(Value::Null, num);
        } else {
            o["wins"] = rec.wins.into();
            o["draws"] = rec.draws.into();
            o["losses"] = rec.losses.into();
        }
        o["last_time"] = (!history.source.untimed)
            .then(|| format_time(rec.last_time))
            .into();
        o["status"] = r.status.name().into();
        if let Some(i) = &r.interval {
            o["rating_lo"] = num(i.rating.0);
            o["rating_hi"] = num(i.rating.1);
            o["rank_lo"] = i.rank.map(|x| x.0).into();
            o["rank_hi"] = i.rank.map(|x| x.1).into();
            o["tie_group"] = i.group.into();
        }
        w.write_all(if k == 0 { b"\n" } else { b",\n" })?;
        serde_json::to_writer(&mut *w, &o).map_err(io::Error::other)?;
    }
    w.write_all(b"\n]\n")
}

/// `leaderboard.parquet`.
fn write_parquet(
    w: &mut dyn Write,
    history: &History,
    rows: &[LeaderRow],
    records: &[PlayerRecord],
) -> io::Result<()> {
    let rec = |r: &LeaderRow| &records[r.player as usize];
    let f = |name: &str, g: fn(&LeaderRow) -> f64| finite_column(name, rows.iter().map(g));
    // One count of each row's record, widened to `u64`.
    let count = |name: &str, g: fn(&PlayerRecord) -> u32| {
        column(name, rows.iter().map(|r| u64::from(g(rec(r)))))
    };
    let untimed = history.source.untimed;
    let ms = rows
        .iter()
        .map(|r| (!untimed).then_some(rec(r).last_time * 1000));
    let time = utc_column(column("last_time", ms))?;
    let mut columns = vec![column(
        "rank",
        rows.iter().map(|r| r.rank.map(|k| k as u64)),
    )];
    let names = rows.iter().map(|r| history.name(r.player));
    columns.extend(player_columns(names, is_pooled(history, rows)));
    columns.extend([
        f("rating", |r| r.rating.mean),
        f("uncertainty", |r| r.rating.uncertainty.unwrap_or(f64::NAN)),
        f("display_rating", |r| r.rating.display),
        count("rounds", |r| r.rounds),
    ]);
    // Contests and places of standings, else wins, draws and losses.
    if is_standings(rows, records) {
        let best = |r: &LeaderRow| Some(rec(r).places.best).filter(|&b| b > 0);
        columns.extend([
            count("contests", |r| r.contests),
            column("best_rank", rows.iter().map(best)),
            column("median_rank", rows.iter().map(|r| rec(r).places.median())),
        ]);
    } else {
        columns.extend([
            count("wins", |r| r.wins),
            count("draws", |r| r.draws),
            count("losses", |r| r.losses),
        ]);
    }
    columns.push(time);
    columns.push(column("status", rows.iter().map(|r| r.status.name())));
    // The intervals (`--ci`, or a fit's).
    if rows.iter().any(|r| r.interval.is_some()) {
        let iv = |name: &str, g: fn(&Interval) -> f64| {
            finite_column(
                name,
                rows.iter().map(|r| r.interval.as_ref().map_or(f64::NAN, g)),
            )
        };
        let ivu = |name: &str, g: fn(&Interval) -> Option<u32>| {
            column(name, rows.iter().map(|r| r.interval.as_ref().and_then(g)))
        };
        columns.extend([
            iv("rating_lo", |i| i.rating.0),
            iv("rating_hi", |i| i.rating.1),
            ivu("rank_lo", |i| i.rank.map(|x| x.0)),
            ivu("rank_hi", |i| i.rank.map(|x| x.1)),
            ivu("tie_group", |i| i.group),
        ]);
    }
    let mut df = DataFrame::new(rows.len(), columns).map_err(polars_io)?;
    ParquetWriter::new(w).finish(&mut df).map_err(polars_io)?;
    Ok(())
}
