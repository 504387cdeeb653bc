//! Streamed replays: whether a replay streams its input (`--stream`), the counting pass that
//! decides it, and the replays fed block by block while the input is read on another thread
//! (once, for one system or for all the systems of a `compare`).
//! Memory then holds the players' states, the block being read, the block being rated and the
//! open round, never every contest.

use super::errors::UsageError;
use super::resume::{InputContests, ReplayFailure, StateJob, snapshot_at, state_bytes};
use super::sink::Sink;
use crate::history::{History, PlayerId};
use crate::ingest::stream::{Counted, Streamed, count, stream};
use crate::ingest::{Format, IngestOptions, InputError, Location};
use crate::replay::{Period, ReplayOptions, ReplayResult, Replayer, SnapshotAt};
use crate::state::{AppliedCheck, StateFile, contest_digest_named};
use crate::systems::{RatingSystem, SystemVisitor};
use std::io::Read as _;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::mpsc::{Receiver, SyncSender, sync_channel};

/// Whether `replay` streams its input.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, clap::ValueEnum)]
pub enum StreamMode {
    /// Stream inputs of at least 256 MiB (PGN: of 4 million games) that can be streamed;
    /// read smaller ones whole.
    #[default]
    Auto,
    /// Stream, or say why the input or the options cannot be.
    On,
    /// Read the input whole (and sort it by time if it is not in time order).
    Off,
}

/// `--stream auto` streams inputs from this size on (of text: see [`COMPRESSED_TEXT`]).
pub const STREAM_ABOVE: u64 = 256 << 20;

/// `--stream auto` streams a PGN input of this many games or more. A game's text ranges
/// from 300 bytes (tags only) to a few thousand (moves with clocks), while a game read whole
/// holds about 120 bytes whatever its text: a size rule would stream a month of Lichess
/// games that fits in 500 MB, and read twice what it decompresses.
pub const STREAM_GAMES_ABOVE: u64 = 4_000_000;

/// How many bytes of text `--stream auto` takes a byte of a compressed file for: games CSV
/// and PGN shrink 5 to 10 times under gzip or zstd (Lichess-style PGN 5.2 times at zstd's
/// level 3), so a compressed file of 52 MiB or more streams.
pub const COMPRESSED_TEXT: u64 = 5;

/// A replay that streams: the input, and what its counting pass found.
#[derive(Clone, Debug)]
pub struct StreamPlan {
    /// The input.
    pub path: PathBuf,
    /// Its format (games or PGN).
    pub format: Format,
    /// How to read it.
    pub opts: IngestOptions,
    /// Contests the replay rates (before `--as-of`): the warm-up is a share of them.
    pub contests: usize,
    /// Contests per block.
    pub block: usize,
    /// The counting pass's findings (none for a stream read once: `--warmup 0`).
    pub counted: Option<Counted>,
}

/// What a replay asks of a stream: its input and options, and which of its options needs the
/// whole input, if one does.
pub(crate) struct StreamRequest<'a> {
    pub(crate) input: &'a Path,
    pub(crate) replay: &'a ReplayOptions,
    pub(crate) mode: StreamMode,
    pub(crate) block: usize,
    pub(crate) quiet: bool,
    /// Named in `--stream on`'s refusal: "--report needs the whole input", say.
    pub(crate) needs_whole: Option<&'static str>,
    /// `--save-state` or `--resume`.
    pub(crate) state: bool,
}

/// Why a replay cannot stream with these options, if it cannot.
fn obstacle(req: &StreamRequest, more: &[PathBuf]) -> Option<String> {
    let once = req.replay.warmup == 0.0;
    let stdin = std::iter::once(req.input)
        .chain(more.iter().map(PathBuf::as_path))
        // Standard input, or a pipe named by a path (`<(zcat f.gz)`): they can be read once.
        .any(|p| {
            crate::ingest::source::is_stdin(p)
                || std::fs::metadata(p).is_ok_and(|m| !m.is_file() && !m.is_dir())
        });
    let why = if !once && stdin {
        "standard input or a pipe can be read only once, and this stream is read twice \
         (count, then rate): give a file (replay and compare read a stream once with \
         --warmup 0)"
            .into()
    } else if req.replay.period == Period::Event {
        "--period event gathers each event's games from anywhere in the input".into()
    } else if req.replay.period == Period::Series && req.state {
        "--period series with --save-state or --resume needs the whole input (the state \
         names the series closed)"
            .into()
    } else if let Some(option) = req.needs_whole {
        format!("{option} needs the whole input")
    } else {
        return None;
    };
    Some(why)
}

/// What `--stream auto` takes for the size of an input file's text: its bytes, or
/// [`COMPRESSED_TEXT`] times them for a gzip or zstd file.
fn text_bytes(p: &Path) -> u64 {
    let len = crate::ingest::source::bytes_on_disk(p);
    match crate::ingest::source::compression(p) {
        crate::ingest::source::Compression::None => len,
        _ => len.saturating_mul(COMPRESSED_TEXT),
    }
}

/// The games of a PGN file as `--stream auto` estimates them: its text's size (see
/// [`text_bytes`]) times the games a byte in its first MiB (`[White` tags at a line's start).
fn pgn_games(p: &Path) -> u64 {
    const SAMPLE: u64 = 1 << 20;
    let text = text_bytes(p);
    // Under 256 MiB of text a PGN holds too few games to stream (300 bytes a game at the
    // least); and only a file is sampled: standard input or a pipe is read once, by the
    // replay.
    if text < STREAM_ABOVE || !std::fs::metadata(p).is_ok_and(|m| m.is_file()) {
        return 0;
    }
    let mut head = Vec::new();
    let read = crate::ingest::source::open(p)
        .and_then(|r| Ok(std::io::Read::take(r, SAMPLE).read_to_end(&mut head)?));
    if read.is_err() || head.is_empty() {
        // Unreadable here: the read that follows says why.
        return 0;
    }
    let games = memchr::memmem::find_iter(&head, b"\n[White ").count() as u64
        + u64::from(head.starts_with(b"[White "));
    // A first MiB without a game (one huge game, or none) counts as one game.
    text.saturating_mul(games.max(1)) / head.len() as u64
}

/// Decides whether the replay streams; when it does, runs the counting pass (which reports
/// bad records as a full read does) and returns the plan.
pub(crate) fn plan(
    req: &StreamRequest,
    opts: &IngestOptions,
) -> anyhow::Result<Option<StreamPlan>> {
    if req.mode == StreamMode::Off {
        return Ok(None);
    }
    let forced = req.mode == StreamMode::On;
    let format = crate::ingest::format_of(req.input, opts)?;
    crate::ingest::time_format_applies(format, opts).map_err(UsageError)?;
    if let Some(why) = obstacle(req, &opts.more) {
        return if forced {
            Err(UsageError(format!("--stream on: {why}")).into())
        } else {
            Ok(None)
        };
    }
    let files = crate::ingest::input_files(req.input, &opts.more)?;
    let small = if format == Format::Pgn {
        files.iter().map(|p| pgn_games(p)).sum::<u64>() < STREAM_GAMES_ABOVE
    } else {
        files.iter().map(|p| text_bytes(p)).sum::<u64>() < STREAM_ABOVE
    };
    if !forced && small {
        return Ok(None);
    }
    let mut plan = StreamPlan {
        path: req.input.to_path_buf(),
        format,
        opts: opts.clone(),
        contests: 0,
        block: req.block,
        counted: None,
    };
    // Without a warm-up nothing needs counting: one pass, which checks time order and
    // series as it goes (an error then stops the run half-way; nothing is written).
    if req.replay.warmup == 0.0 {
        return Ok(Some(plan));
    }
    let counted = count(req.input, format, opts, req.replay.as_of)?;
    let c = &counted.count;
    // Input that cannot stream: an error under `--stream on`, else a note and a whole read.
    let note =
        |(file, at): (String, Location), why: String| -> anyhow::Result<Option<StreamPlan>> {
            let e = InputError::new(file, at, None, why);
            if forced {
                return Err(e.into());
            }
            if !req.quiet {
                eprintln!("note: {e}; reading it whole instead of streaming");
            }
            Ok(None)
        };
    if let (Some((_, time, latest)), Some(at), false) =
        (c.first_disorder, &counted.disorder_at, opts.input_order)
    {
        return note(
            at.clone(),
            format!(
                "not in time order: a contest of {} after one of {}; a streamed input must be \
                 sorted by time (--stream off reads it whole and sorts it in memory)",
                crate::time::format_time(time),
                crate::time::format_time(latest)
            ),
        );
    }
    if let Some(at) = &counted.scattered_at {
        return note(
            at.clone(),
            "a contest's rows continue here after another contest began; a streamed standings \
             input keeps each contest's rows together (--stream off reads it whole)"
                .to_string(),
        );
    }
    // As a whole read decides it: no contest at all (one whose contests all lie past
    // `--as-of` is replayed, with nothing to rate, as when read whole).
    if c.contests == 0 {
        let src = &counted.source;
        return Err(InputError::nothing_to_rate(src).into());
    }
    // The warm-up is a share of the contests rated, as a whole read counts them.
    let rated = if req.replay.skip_all_tied {
        c.before_cutoff - c.all_tied_before_cutoff
    } else {
        c.before_cutoff
    };
    plan.contests = usize::try_from(rated).unwrap_or(usize::MAX);
    plan.counted = Some(counted);
    Ok(Some(plan))
}

/// What the reader hands a streamed replay: blocks, then what was read.
pub(crate) enum Piece {
    Block(Arc<History>),
    End(Arc<Streamed>),
}

/// The reader's side: reads the plan's input once and hands every block to each replay still
/// listening (several systems of a `compare` share one read), then what was read, checked
/// against the counting pass. Stops with [`ReplayStopped`] once no replay listens.
///
/// [`ReplayStopped`]: crate::ingest::stream::ReplayStopped
pub(crate) fn read_for(
    plan: &StreamPlan,
    period: Period,
    mut listeners: Vec<SyncSender<Piece>>,
) -> anyhow::Result<()> {
    let mut send = |block: History| {
        let block = Arc::new(block);
        listeners.retain(|tx| tx.send(Piece::Block(Arc::clone(&block))).is_ok());
        !listeners.is_empty()
    };
    let read = stream(
        &plan.path,
        plan.format,
        &plan.opts,
        period,
        plan.block,
        &mut send,
    )?;
    changed_since_counted(plan, &read)?;
    let read = Arc::new(read);
    for tx in &listeners {
        // A replay that stopped since the last block no longer needs the end.
        let _ = tx.send(Piece::End(Arc::clone(&read)));
    }
    Ok(())
}

/// Several replays fed by one read of a streamed input (`compare`'s systems, `tune`'s
/// parameter sets), each on a thread of its own: each waits for the reader's next block and the
/// reader for the slowest replay, so none may wait for a worker another holds. `replay(k,
/// pieces)` runs the `k`-th of `n`. The reader's error (a bad record) is the whole run's; one
/// that stopped because every replay stopped (they ran away) is not an error.
pub(crate) fn fan_out<T: Send>(
    plan: &StreamPlan,
    period: Period,
    n: usize,
    replay: impl Fn(usize, Receiver<Piece>) -> T + Sync,
) -> anyhow::Result<Vec<T>> {
    let (senders, receivers): (Vec<_>, Vec<_>) = (0..n).map(|_| sync_channel::<Piece>(2)).unzip();
    std::thread::scope(|scope| {
        let reader = scope.spawn(|| read_for(plan, period, senders));
        let replay = &replay;
        let handles: Vec<_> = receivers
            .into_iter()
            .enumerate()
            .map(|(k, pieces)| scope.spawn(move || replay(k, pieces)))
            .collect();
        let out: Vec<T> = handles
            .into_iter()
            .map(|h| h.join().unwrap_or_else(|p| std::panic::resume_unwind(p)))
            .collect();
        match reader
            .join()
            .unwrap_or_else(|p| std::panic::resume_unwind(p))
        {
            Err(e) if !e.is::<crate::ingest::stream::ReplayStopped>() => Err(e),
            _ => Ok(out),
        }
    })
}

/// One system's streamed replay: its blocks rated as they come, the new players' names
/// passed to the history writer before their rows; with `--resume`, the contests the state
/// applied before found block by block and skipped; with `--save-state`, each contest's digest
/// kept for the state (eight bytes a contest, as the state file itself keeps).
pub(crate) struct RunStream<'a, 's> {
    pub(crate) pieces: Receiver<Piece>,
    /// Contests the replay rates (the warm-up is a share of them).
    pub(crate) contests: usize,
    pub(crate) opts: &'a ReplayOptions,
    pub(crate) sink: &'a mut Sink<'s>,
    pub(crate) state: Option<&'a StateJob<'a>>,
    /// The input, as the errors of a resumed state name it.
    pub(crate) input: &'a Path,
    /// `--initial-ratings`, by name: the players seeded as their names come.
    pub(crate) seeds: Option<&'a crate::ingest::seeds::SeedList>,
}

/// What a replay gives: the result, the state's bytes with `--save-state`, a streamed
/// input's players and size.
pub(crate) struct Ran {
    pub(crate) result: ReplayResult,
    pub(crate) state: Option<Vec<u8>>,
    pub(crate) streamed: Option<Arc<Streamed>>,
    /// Streamed with `--resume`: the contests skipped as applied before (a whole read knows
    /// them before the replay).
    pub(crate) skipped: Option<usize>,
    /// Streamed with `--initial-ratings`: the players seeded (a whole read knows them first).
    pub(crate) seeded: Option<usize>,
}

impl SystemVisitor for RunStream<'_, '_> {
    type Output = Result<Ran, ReplayFailure>;
    fn visit<S: RatingSystem>(self, system: &S) -> Self::Output {
        let state = self.state;
        let resumed = state.and_then(|s| s.resume);
        // The errors: the state's name the file resumed from; the input's name it as a whole,
        // or a contest's line in it (a single file's, where the reader found it).
        let state_error = |m: String| ReplayFailure::State(StateJob::error(state, m).into());
        let path = self.input.display().to_string();
        let source = crate::history::SourceInfo {
            origin_files: vec![path.clone()],
            path,
            ..Default::default()
        };
        let input_error = |origin: Option<u64>, m: String| {
            ReplayFailure::State(super::errors::at_origin(&source, origin, m).into())
        };
        let from = resumed
            .map(StateFile::carry::<S::Player>)
            .transpose()
            .map_err(state_error)?;
        let at = state.map_or(SnapshotAt::Never, |s| snapshot_at(s, self.opts.period));
        let mut replayer = Replayer::new(system, self.opts, from, at, self.contests);
        let mut check = resumed.map(|f| AppliedCheck::new(&f.meta));
        let keep = at != SnapshotAt::Never;
        // With a snapshot: every contest's digest, and whether it was applied before.
        let (mut digests, mut skipped) = (Vec::<u64>::new(), Vec::<bool>::new());
        let mut seeded = 0;
        let mut end = None;
        // Returning drops the receiver: the reader's next send to this replay fails.
        for piece in self.pieces {
            let block = match piece {
                Piece::Block(block) => block,
                Piece::End(read) => {
                    end = Some(read);
                    break;
                }
            };
            self.sink.names(block.names());
            if let Some(list) = self.seeds {
                let first = block.first_named();
                let found: Vec<_> = (first..block.player_count())
                    .filter_map(|p| list.seed(p as PlayerId, block.name(p as PlayerId)))
                    .collect();
                seeded += found.len();
                replayer.add_seeds(found);
            }
            let mut skip = Vec::new();
            if check.is_some() || keep {
                debug_assert_eq!(block.first_index(), digests.len());
                for (c, d) in block_digests(&block, replayer.names()) {
                    if let Some(check) = &mut check {
                        let applied = check.contest(&block, &c, d);
                        skip.push(applied.map_err(|m| input_error(c.origin(), m))?);
                    }
                    if keep {
                        digests.push(d);
                    }
                }
                if keep {
                    skipped.extend_from_slice(&skip);
                }
            }
            replayer
                .feed_skipping(block, &skip, self.sink)
                .map_err(ReplayFailure::Diverged)?;
        }
        let read = end.ok_or(ReplayFailure::Unread)?;
        // (A block does not know; the read as a whole does.)
        super::errors::gap_needs_times(self.opts, &read.players.source)
            .map_err(|e| ReplayFailure::State(e.into()))?;
        let skipped_n = check.map(AppliedCheck::finish).transpose();
        let skipped_n = skipped_n.map_err(|m| input_error(None, m))?;
        let (result, snap) = replayer
            .finish(self.sink)
            .map_err(ReplayFailure::Diverged)?;
        let bytes = match (state, snap) {
            (Some(state), Some(snap)) => {
                let input = InputContests {
                    digests: &digests,
                    skipped: &skipped,
                    closed_now: Vec::new(),
                    players: read.players.names(),
                };
                Some(state_bytes(system, self.opts, state, snap, input).map_err(state_error)?)
            }
            _ => None,
        };
        Ok(Ran {
            result,
            state: bytes,
            streamed: Some(read),
            skipped: skipped_n,
            seeded: self.seeds.map(|_| seeded),
        })
    }
}

/// Each contest of a streamed block with its digest ([`crate::state::contest_digest`]), its
/// players named by the block (those new in it) or by `before` (those of earlier blocks).
pub(crate) fn block_digests<'b>(
    block: &'b History,
    before: &'b rate_batch_core::replay::NameList,
) -> impl Iterator<Item = (crate::history::Contest<'b>, u64)> + 'b {
    let first = block.first_named();
    block.contests().map(move |c| {
        let d = contest_digest_named(block, &c, |p| {
            if p as usize >= first {
                block.name(p)
            } else {
                &before[p as usize]
            }
        });
        (c, d)
    })
}

/// A streamed replay: fed by `shared` (a reader owned by the caller, which reports its
/// errors) or by a reader of its own on another thread. `replay` runs the system on the
/// pieces it is given. A bad record is reported before a runaway, as a whole read would
/// (the reader's only error after a runaway is that the replay stopped).
pub(crate) fn replay_streamed(
    plan: &StreamPlan,
    period: Period,
    shared: Option<Receiver<Piece>>,
    replay: impl FnOnce(Receiver<Piece>) -> Result<Result<Ran, ReplayFailure>, UsageError>,
) -> anyhow::Result<Ran> {
    if let Some(pieces) = shared {
        return replay(pieces)?.map_err(ReplayFailure::error);
    }
    let (tx, rx) = sync_channel::<Piece>(2);
    std::thread::scope(|scope| {
        let reader = scope.spawn(move || read_for(plan, period, vec![tx]));
        // The receiver is gone once `replay` returns: the reader stops at its next block.
        let ran = replay(rx);
        let read = reader
            .join()
            .unwrap_or_else(|p| std::panic::resume_unwind(p));
        match (read, ran?) {
            (Err(e), Err(ReplayFailure::Diverged(d)))
                if e.is::<crate::ingest::stream::ReplayStopped>() =>
            {
                Err(d.into())
            }
            (Err(e), _) => Err(e),
            (Ok(()), ran) => ran.map_err(ReplayFailure::error),
        }
    })
}

/// The file read twice must have given the same contests: one appended to or rewritten
/// between the passes would be rated with a warm-up counted on another file.
fn changed_since_counted(plan: &StreamPlan, read: &Streamed) -> anyhow::Result<()> {
    let Some(c) = &plan.counted else {
        // Read once: only now is it known whether there was anything to rate.
        if read.contests == 0 {
            let src = &read.players.source;
            return Err(InputError::nothing_to_rate(src).into());
        }
        return Ok(());
    };
    let counted = c.count.contests;
    if read.contests != counted {
        return Err(InputError::whole_file(
            c.source.path.clone(),
            format!(
                "the input changed while it was read: {counted} contests when counted, {} \
                 when replayed",
                read.contests
            ),
        )
        .into());
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A compressed file counts five times its bytes (recognised by its first bytes, whatever
    /// its name), a plain one its bytes, a folder the sum of its files, a missing one nothing.
    #[test]
    fn auto_sizes_compressed_files_by_their_text() {
        let dir = tempfile::tempdir().unwrap();
        let plain = dir.path().join("games.csv");
        std::fs::write(&plain, "time,a,b,result\n2020-01-01,x,y,1\n").unwrap();
        assert_eq!(text_bytes(&plain), 33);
        let packed = dir.path().join("games.data");
        let mut z = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
        std::io::Write::write_all(&mut z, b"time,a,b,result\n2020-01-01,x,y,1\n").unwrap();
        let bytes = z.finish().unwrap();
        std::fs::write(&packed, &bytes).unwrap();
        assert_eq!(text_bytes(&packed), 5 * bytes.len() as u64);
        let folder = dir.path().join("contests");
        std::fs::create_dir(&folder).unwrap();
        std::fs::write(folder.join("0.json"), "[]").unwrap();
        std::fs::write(folder.join("1.json"), "[1]").unwrap();
        assert_eq!(text_bytes(&folder), 5);
        assert_eq!(text_bytes(&dir.path().join("absent")), 0);
    }
}
