//! What every reader shares while it builds a history: the [`Context`] (builder, options,
//! counts, error policy), player names as kept, and contest weights.

use super::errors::{FieldError, InputError, Location};
use super::options::{Format, IngestOptions};
use crate::history::{History, HistoryBuilder, PlayerId, SourceInfo};
use std::path::Path;

/// What every reader shares: the builder, the options, the counts and the error policy; for
/// a streamed input, where its blocks go.
pub(crate) struct Context<'o> {
    /// The file being read (errors name it; the source summary names every input).
    pub file: String,
    pub opts: &'o IngestOptions,
    pub builder: HistoryBuilder,
    pub source: SourceInfo,
    /// Streaming: the blocks' destination.
    pub emit: Option<Emit<'o>>,
    /// Counting: the file and place where the first contest earlier than one before it was
    /// read.
    pub disorder_at: Option<(String, Location)>,
    /// Counting a standings input: the file and place of the first row of a contest whose
    /// rows continue after another contest began (such an input cannot stream).
    pub scattered_at: Option<(String, Location)>,
    /// Errors set aside by [`Context::defer`] until [`Context::report_deferred`].
    pub(crate) deferred: (Vec<InputError>, usize),
    /// The rating pool of the record being read (`--pool-by`), which the players it names
    /// are rated in: each (name, pool) is a player.
    pub pool: Option<String>,
    /// The contests of the builder whose origin is said.
    marked: usize,
}

/// Where a streaming reader's blocks go, and how they are cut: at least `size` contests, ended
/// where a round of `period` ends (a calendar period that is still open stays with the reader).
pub(crate) struct Emit<'o> {
    pub period: crate::replay::Period,
    pub size: usize,
    /// Contests pending at which to look for a cut next.
    pub next_check: usize,
    /// Takes a block; false when the replay has stopped.
    pub send: &'o mut dyn FnMut(History) -> bool,
    /// Contests and placings handed over.
    pub contests: u64,
    pub placings: u64,
    /// Contests pending when last looked at, and the latest time so far: a stream must come in
    /// time order (checked here too, for a stream read once, without a counting pass).
    pub looked: usize,
    pub latest: i64,
    /// The series check of a whole read, run as the contests come.
    pub series: super::series::SeriesCheck,
}

/// Why a streaming reader stopped early: the replay it feeds stopped (and reports why).
#[derive(Debug)]
pub struct ReplayStopped;
crate::error_display!(ReplayStopped, self => "the replay stopped");

/// The skipped records whose errors the source summary keeps.
pub(crate) const SKIPPED_EXAMPLES: usize = 5;

impl<'o> Context<'o> {
    /// A context that reads into `builder`, given the options' aliases and with `--dedupe`
    /// its duplicate check (`in_order`: the input is read in time order, as a stream or its
    /// counting pass, so a repeat has its original's time).
    pub(crate) fn new(
        path: &Path,
        format: Format,
        opts: &'o IngestOptions,
        mut builder: HistoryBuilder,
        in_order: bool,
    ) -> Self {
        builder.set_aliases(opts.aliases.clone());
        if opts.dedupe {
            builder.dedupe(in_order);
        }
        Self {
            file: path.display().to_string(),
            opts,
            builder,
            source: SourceInfo {
                path: path.display().to_string(),
                format: format.to_string(),
                ..SourceInfo::default()
            },
            emit: None,
            disorder_at: None,
            scattered_at: None,
            deferred: (Vec::new(), 0),
            pool: None,
            marked: 0,
        }
    }

    /// The id of a player name, interned on first sight ([`HistoryBuilder::player`]).
    #[inline]
    pub fn player(&mut self, name: &str) -> PlayerId {
        match &self.pool {
            Some(pool) => self.builder.pooled_player(name, pool),
            None => self.builder.player(name),
        }
    }

    /// Refuses a player's name that holds the character joining a name to its pool, when
    /// players are rated in pools.
    pub fn check_pooled_name(&self, name: &str, field: &str) -> Result<(), FieldError> {
        if self.pool.is_some() && name.contains(crate::history::POOL_SEP) {
            return Err(FieldError::new(
                field,
                "a player's name may not hold the control character U+001F when players are \
                 rated in pools",
            ));
        }
        Ok(())
    }

    /// After each record of a reader that hands contests to the builder as it reads them
    /// (games, PGN): notes where time order first breaks (counting), hands over a block when
    /// enough contests are pending (streaming).
    #[inline]
    pub fn after_record(&mut self, at: &Location) -> anyhow::Result<()> {
        // The contests this record gave: where they were found, for errors found later.
        let kept = self.builder.pending();
        if kept > self.marked {
            let origin = super::errors::origin(self.source.origin_files.len(), at);
            self.builder.mark_origins(self.marked, origin);
        }
        self.marked = kept;
        if let Some(count) = self.builder.count() {
            if count.first_disorder.is_some() && self.disorder_at.is_none() {
                self.disorder_at = Some((self.file.clone(), at.clone()));
            }
            return Ok(());
        }
        // A whole read (most runs) has nothing more to do here.
        let Some(e) = &mut self.emit else {
            return Ok(());
        };
        let b = &self.builder;
        let n = b.pending();
        if n > e.looked {
            // Games and PGN give one contest per record at most.
            let t = b.pending_time(n - 1);
            let error = |field: Option<&str>, message| {
                InputError::new(&self.file, at.clone(), field.map(str::to_string), message)
            };
            if t < e.latest && !self.opts.input_order {
                let m = format!(
                    "not in time order: a contest of {} after one of {}; a streamed input must be \
                     sorted by time (--stream off reads it whole and sorts it in memory)",
                    crate::time::format_time(t),
                    crate::time::format_time(e.latest)
                );
                return Err(error(None, m).into());
            }
            let sides =
                || super::series::sides(b.pending_entries(n - 1).into_iter(), |p| b.name(p));
            let (series, players) = (b.pending_series(n - 1), b.pending_players(n - 1));
            e.series
                .contest(series, t, players, |p| b.name(p), &sides)
                .map_err(|m| error(Some("series"), m))?;
            e.latest = t;
            e.looked = n;
        }
        if n >= e.next_check {
            self.hand_over(false)?;
        }
        Ok(())
    }

    /// Hands over the pending contests that are whole rounds (all of them at the end).
    pub fn hand_over(&mut self, at_end: bool) -> anyhow::Result<()> {
        let Some(e) = &mut self.emit else {
            return Ok(());
        };
        let b = &mut self.builder;
        let n = b.pending();
        let cut = if at_end {
            n
        } else {
            match e.period.calendar_key(b.pending_time(n - 1)) {
                // The open calendar period stays: cut where it begins.
                Some(last) => {
                    let mut i = n - 1;
                    while i > 0 && e.period.calendar_key(b.pending_time(i - 1)) == Some(last) {
                        i -= 1;
                    }
                    i
                }
                None if e.period == crate::replay::Period::Series => series_cut(b, &e.series),
                None => n,
            }
        };
        if cut == 0 {
            // One period holds every pending contest: look again when it has doubled.
            e.next_check = n * 2;
            return Ok(());
        }
        // Contests are numbered with 32 bits (history rows, the state): about 4.3 billion.
        if e.contests + cut as u64 > u64::from(u32::MAX) {
            let m = format!(
                "more than {} contests, the most one replay numbers (32-bit contest numbers in \
                 the history rows and the state)",
                u32::MAX
            );
            return Err(self.stop(Location::File, m));
        }
        let block = b.take_block(cut);
        self.marked = self.marked.saturating_sub(block.len());
        e.contests += block.len() as u64;
        e.placings += block.placings() as u64;
        e.next_check = b.pending() + e.size;
        e.looked = b.pending();
        if !(e.send)(block) {
            return Err(ReplayStopped.into());
        }
        Ok(())
    }

    /// Builds the full error for a place in the file being read.
    pub fn error(&self, at: Location, e: FieldError) -> InputError {
        InputError::new(&self.file, at, e.field, e.message)
    }

    /// The error that stops the read: `message`, about a place in the file being read.
    pub fn stop(&self, at: Location, message: impl Into<String>) -> anyhow::Error {
        self.error(at, FieldError::whole(message)).into()
    }

    /// A bad record: an error, or under `--skip-invalid` a count and `Ok`.
    pub fn reject(&mut self, at: Location, e: FieldError) -> Result<(), InputError> {
        self.skip_or_fail(self.error(at, e))
    }

    /// [`Context::reject`] later: a streamed read whose whole read reports some errors after
    /// all others (a standings contest's, after every row) sets the error aside (the first few
    /// kept, the rest counted) to be reported by [`Context::report_deferred`].
    pub fn defer(&mut self, at: Location, e: FieldError) {
        // Without --skip-invalid the first ends the read; with it, the first few are examples
        // and the rest are counted.
        let skip = self.opts.skip_invalid;
        let keep = if skip {
            self.deferred.0.len() < SKIPPED_EXAMPLES
        } else {
            self.deferred.0.is_empty()
        };
        if keep {
            self.deferred.0.push(self.error(at, e));
        } else if skip {
            self.deferred.1 += 1;
        }
    }

    /// Reports the errors set aside ([`Context::defer`]), as a whole read would have.
    pub fn report_deferred(&mut self) -> Result<(), InputError> {
        let (first, more) = std::mem::take(&mut self.deferred);
        for e in first {
            self.skip_or_fail(e)?;
        }
        self.source.skipped_invalid += more;
        Ok(())
    }

    /// The same for an error already placed (in another file of a folder, say).
    pub fn skip_or_fail(&mut self, err: InputError) -> Result<(), InputError> {
        if self.opts.skip_invalid {
            self.source.skipped_invalid += 1;
            if self.source.skipped_examples.len() < SKIPPED_EXAMPLES {
                self.source.skipped_examples.push(err.to_string());
            }
            Ok(())
        } else {
            Err(err)
        }
    }

    pub(crate) fn finish(mut self) -> History {
        if self.opts.input_order {
            self.builder.keep_input_order();
        }
        self.builder.finish(self.source)
    }
}

/// A player name as the history keeps it: exactly as given (NFC is applied when interned).
/// With `--trim-names` the whitespace around it is removed, unless nothing would remain (a
/// name of spaces, such as one U+00A0, stays as it is). Only an empty name is refused.
pub(crate) fn player_name<'a>(
    raw: &'a str,
    field: &str,
    trim: bool,
) -> Result<&'a str, FieldError> {
    if trim {
        let t = raw.trim();
        if !t.is_empty() {
            return Ok(t);
        }
    }
    if raw.is_empty() {
        return Err(FieldError::new(field, "empty player name"));
    }
    Ok(raw)
}

/// Counts the names with surrounding whitespace, and those equal to another name once it is
/// removed, into the source summary (so that two players told apart only by padding are never
/// a silent surprise).
pub(crate) fn note_padded_names(h: &mut History) {
    let padded = |n: &str| n.trim().len() != n.len();
    let count = h.names().iter().filter(|n| padded(n)).count();
    if count == 0 {
        return;
    }
    let mut by_trimmed: rustc_hash::FxHashMap<&str, &str> = rustc_hash::FxHashMap::default();
    let mut equal = 0;
    let mut example = None;
    // Unpadded names first, so that each padded one is compared with them.
    let names = h.names();
    for n in names
        .iter()
        .filter(|n| !padded(n))
        .chain(names.iter().filter(|n| padded(n)))
    {
        if let Some(other) = by_trimmed.insert(n.trim(), n) {
            equal += 1;
            example.get_or_insert_with(|| (other.to_string(), n.clone()));
        }
    }
    h.source.names_padded = count;
    h.source.names_equal_when_trimmed = equal;
    h.source.names_equal_example = example;
}

/// The range of a contest weight: wide enough for any real use (a weight scales a contest's
/// information), narrow enough that no system's arithmetic overflows or underflows with it.
pub(crate) const WEIGHT_RANGE: (f64, f64) = (1e-6, 1e6);

/// Checks a contest weight's value.
pub(crate) fn check_weight(w: f64) -> Result<f64, String> {
    let (lo, hi) = WEIGHT_RANGE;
    if w.is_finite() && (lo..=hi).contains(&w) {
        Ok(w)
    } else {
        Err(format!(
            "weight {w} is not a number within [{lo:e}, {hi:e}]"
        ))
    }
}

/// Checks a contest weight: a number within [`WEIGHT_RANGE`]; empty means 1.
pub(crate) fn weight(raw: &str, field: &str) -> Result<f64, FieldError> {
    let raw = raw.trim();
    if raw.is_empty() {
        return Ok(1.0);
    }
    let (lo, hi) = WEIGHT_RANGE;
    let w = raw.parse().ok().and_then(|w| check_weight(w).ok());
    w.ok_or_else(|| {
        let m = format!("weight `{raw}` is not a number within [{lo:e}, {hi:e}]");
        FieldError::new(field, m)
    })
}

/// Where a block of `--period series` may end: the most pending contests that split no series
/// (a series' round holds all its games) and hold no game of a series still open (whose later
/// games would belong to that round).
fn series_cut(b: &HistoryBuilder, check: &super::series::SeriesCheck) -> usize {
    let n = b.pending();
    // Per series among the pending contests: its first and last index.
    let mut span: rustc_hash::FxHashMap<&str, (usize, usize)> = rustc_hash::FxHashMap::default();
    let mut most = n;
    for i in 0..n {
        if let Some(name) = b.pending_series(i) {
            let (first, last) = span.entry(name).or_insert((i, i));
            *last = i;
            if *first == i && check.is_open(name) {
                most = most.min(i);
            }
        }
    }
    // No cut inside a series' span: (first, last] is out (counted with a difference array).
    let mut inside = vec![0i64; most + 2];
    for &(first, last) in span.values() {
        if first < most {
            inside[first + 1] += 1;
            inside[last.min(most) + 1] -= 1;
        }
    }
    let mut depth = 0;
    let mut cut = 0;
    for (i, d) in inside.iter().take(most + 1).enumerate() {
        depth += d;
        if depth == 0 {
            cut = i;
        }
    }
    cut
}
