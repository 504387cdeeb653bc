//! Streamed reading, for inputs too large to hold: a counting pass, then a pass that hands the
//! replay one block of contests at a time.
//!
//! The counting pass reads and validates the whole input as [`super::ingest`] would, keeping
//! no contest and no player: it finds the number of contests (the warm-up is a share of it),
//! whether they come in time order, and the first bad record, before anything is rated. The
//! second pass reads the input again and hands over blocks of about [`BLOCK`] contests, each
//! ending where a round ends. Every reader streams: it gives each contest as it reads it (a
//! standings contest when the next begins: a streamed standings input keeps each contest's
//! rows together).

use super::context::{Context, Emit, note_padded_names};
use super::errors::Location;
use super::options::{Format, IngestOptions};
use crate::history::{Count, History, HistoryBuilder, SourceInfo};
use crate::replay::Period;
use std::path::Path;

pub use super::context::ReplayStopped;

/// Contests per block: a few megabytes of two-player games.
pub const BLOCK: usize = 1 << 16;

/// What the counting pass found.
#[derive(Clone, Debug)]
pub struct Counted {
    /// Contests, time order and series.
    pub count: Count,
    /// The file and place where the first contest earlier than one before it was read.
    pub disorder_at: Option<(String, Location)>,
    /// The file and place where a standings contest's rows continued after another began.
    pub scattered_at: Option<(String, Location)>,
    /// What was read (records, skipped ones).
    pub source: SourceInfo,
}

/// The counting pass over an input: contests before `cutoff` (all without one), time order,
/// series; bad records are reported as the full read reports them.
pub fn count(
    path: &Path,
    format: Format,
    opts: &IngestOptions,
    cutoff: Option<i64>,
) -> anyhow::Result<Counted> {
    let builder = HistoryBuilder::counting(cutoff);
    let mut ctx = Context::new(path, format, opts, builder, true);
    super::read_input(path, format, &mut ctx)?;
    Ok(Counted {
        count: ctx.builder.count().copied().unwrap_or_default(),
        disorder_at: ctx.disorder_at,
        scattered_at: ctx.scattered_at,
        source: ctx.source,
    })
}

/// What the streaming pass read: the players (a history without contests, with the source
/// summary) and how many contests and placings it handed over.
pub struct Streamed {
    /// Every player, and what was read.
    pub players: History,
    /// Contests handed over.
    pub contests: u64,
    /// Placings handed over.
    pub placings: u64,
}

/// The streaming pass: the contests of a time-ordered input (see [`count`]) handed to `send`
/// in blocks of at least `block` contests that end where rounds of `period` end. `send`
/// returns false when the replay has stopped; reading then stops with [`ReplayStopped`].
pub fn stream(
    path: &Path,
    format: Format,
    opts: &IngestOptions,
    period: Period,
    block: usize,
    send: &mut dyn FnMut(History) -> bool,
) -> anyhow::Result<Streamed> {
    let builder = HistoryBuilder::with_players(&opts.known_players);
    let mut ctx = Context::new(path, format, opts, builder, true);
    ctx.emit = Some(Emit {
        period,
        size: block,
        next_check: block,
        send,
        contests: 0,
        placings: 0,
        looked: 0,
        latest: i64::MIN,
        series: super::series::SeriesCheck::default(),
    });
    super::read_input(path, format, &mut ctx)?;
    ctx.hand_over(true)?;
    let (contests, placings) = ctx
        .emit
        .as_ref()
        .map_or((0, 0), |e| (e.contests, e.placings));
    let names = ctx.builder.into_names();
    let mut players = History::players_only(names, ctx.source);
    note_padded_names(&mut players);
    Ok(Streamed {
        players,
        contests,
        placings,
    })
}
