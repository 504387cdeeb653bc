//! `predictions.csv` and `contests.csv` (`--predictions`): every scored prediction, for
//! computing one's own metrics.
//!
//! - `predictions.csv`: one row per scored two-entry contest, as predicted before it was
//!   rated: `contest` (its name in the input, else `#` and its number from 1 in time order),
//!   `time`, the sides `a` and `b` (a team's members joined by `+`), `first_side` (whether `a`
//!   played the first side: home, white), `p_a` (a's expected score, a draw counting half),
//!   `p_win`, `p_draw`, `p_loss` (a's three outcomes) and `outcome` (1, 0.5, 0).
//! - `contests.csv`: one row per scored contest of the ranking metrics (multi-entrant
//!   standings and games alike): `contest`, `time`, `participants` (scored), `pair_inversion`
//!   and `rank_deviation` (percent, as in metrics.json).

use super::text::{csv_field, number};
use crate::history::{Contest, History};
use crate::replay::Series;
use std::io::{self, Write};

/// Starts a line (`out` cleared) with a contest's name in the outputs and a time.
fn contest_cells(c: &Contest<'_>, time: i64, out: &mut String) {
    out.clear();
    match c.label() {
        Some(l) => csv_field(l, out),
        None => out.push_str(&format!("#{}", c.index() + 1)),
    }
    out.push(',');
    out.push_str(&crate::time::format_time(time));
}

/// The players of an entry, joined by `+`.
fn side(history: &History, players: &[u32], out: &mut String) {
    let names: Vec<&str> = players.iter().map(|&p| history.name(p)).collect();
    csv_field(&names.join("+"), out);
}

/// Writes `predictions.csv`.
pub fn write_predictions(w: &mut dyn Write, history: &History, series: &Series) -> io::Result<()> {
    w.write_all(b"contest,time,a,b,first_side,p_a,p_win,p_draw,p_loss,outcome\n")?;
    let mut line = String::new();
    for &(c, p, three, y) in &series.games {
        let c = history.contest(c as usize);
        contest_cells(&c, c.time(), &mut line);
        line.push(',');
        side(history, c.entry(0).players, &mut line);
        line.push(',');
        side(history, c.entry(1).players, &mut line);
        line.push_str(if c.first_side() { ",true" } else { ",false" });
        for v in [p, three[0], three[1], three[2], y] {
            line.push(',');
            number(v, &mut line);
        }
        line.push('\n');
        w.write_all(line.as_bytes())?;
    }
    Ok(())
}

/// Writes `contests.csv`.
pub fn write_contests(w: &mut dyn Write, history: &History, series: &Series) -> io::Result<()> {
    w.write_all(b"contest,time,participants,pair_inversion,rank_deviation\n")?;
    let mut line = String::new();
    for (&c, &(time, pair, rank, n)) in series.contest_ids.iter().zip(&series.contest_metrics) {
        contest_cells(&history.contest(c as usize), time, &mut line);
        line.push_str(&format!(",{n},"));
        number(pair, &mut line);
        line.push(',');
        number(rank, &mut line);
        line.push('\n');
        w.write_all(line.as_bytes())?;
    }
    Ok(())
}

/// `predictions.csv` and `contests.csv` (`--predictions`).
pub struct Predictions;

impl super::Output for Predictions {
    fn names(&self) -> &'static [&'static str] {
        &["predictions.csv", "contests.csv"]
    }

    fn wanted(&self, done: &super::Replayed) -> Vec<&'static str> {
        if done.predictions {
            self.names().to_vec()
        } else {
            Vec::new()
        }
    }

    fn write(&self, name: &str, done: &super::Replayed, w: &mut dyn Write) -> io::Result<()> {
        let series = &done.result.series;
        if name == "contests.csv" {
            write_contests(w, done.history, series)
        } else {
            write_predictions(w, done.history, series)
        }
    }
}
