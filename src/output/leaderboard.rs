//! `leaderboard.csv`. Numbers are written in Rust's shortest round-trip form, so the file
//! holds exactly the values computed and is identical from run to run.

use super::table::LeaderRow;
use super::text::{csv_field, number};
use crate::history::History;
use crate::time::format_time;
use std::fmt::Write as _;
use std::io::{self, Write};

/// `rank,player,rating,uncertainty,display_rating,rounds,wins,draws,losses,last_time`.
/// Rows are formatted in batches, each cut into pieces formatted on rayon's threads and
/// written in order: the file is the same whatever the number of threads.
pub fn write_leaderboard(
    w: &mut dyn Write,
    history: &History,
    rows: &[LeaderRow],
) -> io::Result<()> {
    use rayon::prelude::*;
    /// Rows per piece, and pieces per batch (a batch's text is held at once).
    const PIECE: usize = 4096;
    const BATCH: usize = 16 * PIECE;
    let ci = rows.iter().any(|r| r.interval.is_some());
    w.write_all(if ci {
        b"rank,player,rating,uncertainty,display_rating,rounds,wins,draws,losses,last_time,\
          rating_lo,rating_hi,rank_lo,rank_hi,tie_group\n"
    } else {
        b"rank,player,rating,uncertainty,display_rating,rounds,wins,draws,losses,last_time\n"
    })?;
    for batch in rows.chunks(BATCH) {
        let pieces: Vec<String> = batch
            .par_chunks(PIECE)
            .map(|piece| {
                let mut text = String::with_capacity(piece.len() * 96);
                for r in piece {
                    row(&mut text, history, r);
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

/// One row, with its line end.
fn row(line: &mut String, history: &History, r: &LeaderRow) {
    let _ = write!(line, "{},", r.rank);
    csv_field(history.name(r.player), line);
    line.push(',');
    number(r.rating.mean, line);
    line.push(',');
    number(r.rating.uncertainty.unwrap_or(f64::NAN), line);
    line.push(',');
    number(r.rating.display, line);
    let rec = &r.record;
    let _ = write!(
        line,
        ",{},{},{},{},{}",
        rec.rounds,
        rec.wins,
        rec.draws,
        rec.losses,
        format_time(rec.last_time)
    );
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
    }
    line.push('\n');
}
