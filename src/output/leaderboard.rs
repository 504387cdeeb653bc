//! `leaderboard.csv`. Numbers are written in Rust's shortest round-trip form, so the file
//! holds exactly the values computed and is identical from run to run.

use super::table::LeaderRow;
use super::text::{csv_field, number};
use crate::history::History;
use crate::time::format_time;
use std::fmt::Write as _;
use std::io::{self, Write};

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
