//! `rmse.csv` (`--truth`): per measured round, the RMSE of the ratings against the true ones
//! after removing the mean offset.

use super::{Output, Replayed};
use std::io::{self, Write};

/// `rmse.csv`.
pub struct Rmse;

impl Output for Rmse {
    fn names(&self) -> &'static [&'static str] {
        &["rmse.csv"]
    }

    fn wanted(&self, done: &Replayed) -> Vec<&'static str> {
        done.rmse.map(|_| "rmse.csv").into_iter().collect()
    }

    fn write(&self, _: &str, done: &Replayed, w: &mut dyn Write) -> io::Result<()> {
        writeln!(w, "round,time,players,rmse")?;
        for (r, t, n, v) in done.rmse.unwrap_or_default() {
            writeln!(w, "{r},{},{n},{v}", crate::time::format_time(*t))?;
        }
        Ok(())
    }
}
