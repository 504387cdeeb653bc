//! Where a replay's rows go (the history writer, memory, the report's trajectories, the truth's
//! RMSE) and its progress bar and rate.

use crate::history::History;
use crate::ingest::truth::Truth;
use crate::replay::{HistoryRow, Observer};
use crate::truth::RmseSeries;
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use std::io::IsTerminal;
use std::sync::mpsc::SyncSender;
use std::time::Instant;

/// Where the replay's rows go: to the history writer's thread, or nowhere
/// (no history file, or a writer that failed and has an error to report when joined); and the
/// progress bar.
pub(crate) enum Rows {
    Stream(SyncSender<Batch>),
    Drop,
}

/// What goes to the history formatter: the names of players new in a streamed block (before
/// their rows), and rows.
pub(crate) enum Batch {
    Names(Vec<String>),
    Rows(Vec<HistoryRow>),
    /// Seasons' numbers and names, before their rows.
    Seasons(Vec<(u32, String)>),
}

pub(crate) struct Sink<'a> {
    pub(crate) rows: Rows,
    pub(crate) bar: Option<ProgressBar>,
    /// (player, contest, rating after) of every row, for the report's trajectories.
    pub(crate) trajectory: Option<Vec<(u32, u32, f32)>>,
    pub(crate) rate: RateMeter,
    /// `--truth`: the RMSE of the ratings against the true ones, round by round.
    pub(crate) truth: Option<(&'a History, &'a Truth, RmseSeries)>,
    /// `--site`: each player's curve and last games.
    pub(crate) site: Option<super::site::SiteTrack>,
    /// The contests and placings this replay rated (rows given).
    pub(crate) rated: Rated,
    /// Seasons begun since the last rows, sent with the next rows (one message, not one a
    /// season: a season column that changes at every game would wake the writer at each).
    pub(crate) seasons: Vec<(u32, String)>,
}

/// Contests and placings rated, counted from the rows as they come (a contest's rows come
/// together).
#[derive(Default)]
pub(crate) struct Rated {
    pub(crate) contests: u64,
    pub(crate) placings: u64,
    last: Option<u32>,
}

impl Rated {
    fn rows(&mut self, rows: &[HistoryRow]) {
        for r in rows {
            if self.last != Some(r.contest_id) {
                self.contests += 1;
                self.last = Some(r.contest_id);
            }
        }
        self.placings += rows.len() as u64;
    }
}

impl Sink<'_> {
    /// A sink that keeps nothing and shows nothing (a replay scored for its metrics only).
    pub(crate) fn quiet() -> Self {
        Sink {
            rows: Rows::Drop,
            bar: None,
            trajectory: None,
            rate: RateMeter::new(),
            truth: None,
            site: None,
            rated: Rated::default(),
            seasons: Vec::new(),
        }
    }

    /// Players new in a streamed block, named before their first rows.
    pub(crate) fn names(&mut self, names: &[String]) {
        if let Rows::Stream(tx) = &self.rows
            && !names.is_empty()
            && tx.send(Batch::Names(names.to_vec())).is_err()
        {
            self.rows = Rows::Drop;
        }
    }
}

/// The best rate of rounds per second over stretches of at least 50 ms.
pub(crate) struct RateMeter {
    pub(crate) last: Instant,
    pub(crate) last_rounds: u64,
    pub(crate) peak: Option<f64>,
}

impl RateMeter {
    pub(crate) fn new() -> Self {
        Self {
            last: Instant::now(),
            last_rounds: 0,
            peak: None,
        }
    }

    fn at(&mut self, rounds: u64) {
        let now = Instant::now();
        let dt = now.duration_since(self.last).as_secs_f64();
        if dt >= 0.05 {
            let rate = (rounds - self.last_rounds) as f64 / dt;
            self.peak = Some(self.peak.map_or(rate, |p| p.max(rate)));
            self.last = now;
            self.last_rounds = rounds;
        }
    }
}

impl Observer for Sink<'_> {
    fn season(&mut self, number: u32, name: &str) {
        if let Rows::Stream(_) = &self.rows {
            self.seasons.push((number, name.to_string()));
        }
    }

    fn rows(&mut self, rows: &[HistoryRow]) {
        self.rated.rows(rows);
        if let Some((history, truth, series)) = &mut self.truth {
            for r in rows {
                if let Some(v) = truth.get(r.contest_id, r.player) {
                    let time = history.contest(r.contest_id as usize).time();
                    series.add(r.round, time, r.after, v);
                }
            }
        }
        if let Some(s) = &mut self.site {
            s.rows(rows);
        }
        if let Some(t) = &mut self.trajectory {
            t.extend(
                rows.iter()
                    .map(|r| (r.player, r.contest_id, r.after as f32)),
            );
        }
        if let Rows::Stream(tx) = &self.rows {
            let seasons = std::mem::take(&mut self.seasons);
            let sent = (seasons.is_empty() || tx.send(Batch::Seasons(seasons)).is_ok())
                && tx.send(Batch::Rows(rows.to_vec())).is_ok();
            if !sent {
                self.rows = Rows::Drop;
            }
        }
    }
    fn progress(&mut self, done: u64, rounds: u64) {
        if let Some(b) = &self.bar {
            b.set_position(done);
        }
        self.rate.at(rounds);
    }
}

/// A progress line on a terminal (none when quiet): a bar of `len` contests, or, when the
/// size is not known (a stream read once), the contests rated so far and the rate.
pub(crate) fn progress(len: Option<u64>, quiet: bool) -> Option<ProgressBar> {
    if quiet || !std::io::stderr().is_terminal() {
        return None;
    }
    let bar = ProgressBar::with_draw_target(len, ProgressDrawTarget::stderr());
    let style = match len {
        Some(_) => ProgressStyle::with_template(
            "{spinner} replaying {bar:40} {pos}/{len} contests ({per_sec}, {eta} left)",
        )
        .unwrap_or_else(|_| ProgressStyle::default_bar()),
        None => ProgressStyle::with_template("{spinner} replaying {pos} contests ({per_sec})")
            .unwrap_or_else(|_| ProgressStyle::default_spinner()),
    };
    bar.set_style(style);
    Some(bar)
}
