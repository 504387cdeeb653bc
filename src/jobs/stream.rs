//! Streamed replays: whether a replay streams its input (`--stream`), the counting pass that
//! decides it, and the replay fed block by block while the input is read on another thread.
//! Memory then holds the players' states, the block being read, the block being rated and the
//! open round, never every contest.

use super::errors::UsageError;
use super::sink::Sink;
use crate::history::History;
use crate::ingest::stream::{Counted, Streamed, count, stream, streamable};
use crate::ingest::{Format, IngestOptions, InputError, Location};
use crate::replay::{Divergence, Period, ReplayOptions, ReplayResult, Replayer, SnapshotAt};
use crate::systems::{RatingSystem, SystemVisitor};
use std::borrow::Cow;
use std::path::{Path, PathBuf};
use std::sync::mpsc::sync_channel;

/// Whether `replay` streams its input.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, clap::ValueEnum)]
pub enum StreamMode {
    /// Stream inputs of at least 256 MiB that can be streamed; read smaller ones whole.
    #[default]
    Auto,
    /// Stream, or say why the input or the options cannot be.
    On,
    /// Read the input whole (and sort it by time if it is not in time order).
    Off,
}

/// `--stream auto` streams inputs from this size on.
pub const STREAM_ABOVE: u64 = 256 << 20;

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
}

/// Why a replay cannot stream with these options, if it cannot.
fn obstacle(req: &StreamRequest, more: &[PathBuf], format: Format) -> Option<String> {
    let once = req.replay.warmup == 0.0;
    let stdin = std::iter::once(req.input)
        .chain(more.iter().map(PathBuf::as_path))
        // Standard input, or a pipe named by a path (`<(zcat f.gz)`): they can be read once.
        .any(|p| {
            crate::ingest::source::is_stdin(p)
                || std::fs::metadata(p).is_ok_and(|m| !m.is_file() && !m.is_dir())
        });
    let why = if !once && stdin {
        "standard input or a pipe can be read only once, and a stream is read twice (count, \
         then rate) unless --warmup 0: give a file, or --warmup 0"
            .into()
    } else if !streamable(format) {
        format!("{format} inputs are read whole; games CSV and PGN inputs stream")
    } else if req.replay.period == Period::Series {
        "--period series needs the whole input (a series' games are checked and rated together)"
            .into()
    } else if let Some(option) = req.needs_whole {
        format!("{option} needs the whole input")
    } else {
        return None;
    };
    Some(why)
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
    let format = match opts.format {
        Some(f) => f,
        None => crate::ingest::detect(req.input)?,
    };
    crate::ingest::time_format_applies(format, opts).map_err(UsageError)?;
    if let Some(why) = obstacle(req, &opts.more, format) {
        return if forced {
            Err(UsageError(format!("--stream on: {why}")).into())
        } else {
            Ok(None)
        };
    }
    let size: u64 = crate::ingest::input_files(req.input, &opts.more)?
        .iter()
        .map(|p| std::fs::metadata(p).map_or(0, |m| if m.is_file() { m.len() } else { 0 }))
        .sum();
    if !forced && size < STREAM_ABOVE {
        return Ok(None);
    }
    // Without a warm-up nothing needs counting: one pass, which checks time order and
    // series as it goes (an error then stops the run half-way; nothing is written).
    if req.replay.warmup == 0.0 {
        return Ok(Some(StreamPlan {
            path: req.input.to_path_buf(),
            format,
            opts: opts.clone(),
            contests: 0,
            block: req.block,
            counted: None,
        }));
    }
    let counted = count(req.input, format, opts, req.replay.as_of)?;
    let c = &counted.count;
    let path = counted.source.path.clone();
    // Input that cannot stream: an error under `--stream on`, else a note and a whole read.
    let note =
        |(file, at): (String, Location), why: String| -> anyhow::Result<Option<StreamPlan>> {
            let e = InputError {
                file,
                at,
                field: None,
                message: why,
            };
            if forced {
                return Err(e.into());
            }
            if !req.quiet {
                eprintln!("note: {e}; reading it whole instead of streaming");
            }
            Ok(None)
        };
    if let (Some((_, time, latest)), Some(at)) = (c.first_disorder, &counted.disorder_at) {
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
    if c.series {
        return note(
            (path.clone(), Location::File),
            "it has series, whose checks need the whole input (--stream off)".to_string(),
        );
    }
    // As a whole read decides it: no contest at all (one whose contests all lie past
    // `--as-of` is replayed, with nothing to rate, as when read whole).
    if c.contests == 0 {
        let src = &counted.source;
        return Err(InputError::nothing_to_rate(src).into());
    }
    Ok(Some(StreamPlan {
        path: req.input.to_path_buf(),
        format,
        opts: opts.clone(),
        contests: usize::try_from(c.before_cutoff).unwrap_or(usize::MAX),
        block: req.block,
        counted: Some(counted),
    }))
}

/// Why a streamed replay stopped.
pub(crate) enum StreamFailure {
    Diverged(Divergence),
    Input(anyhow::Error),
}

/// One system's streamed replay: the input read on a scoped thread, its blocks rated here as
/// they come, the new players' names passed to the history writer before their rows.
pub(crate) struct RunStream<'a, 's> {
    pub(crate) plan: &'a StreamPlan,
    pub(crate) opts: &'a ReplayOptions,
    pub(crate) sink: &'a mut Sink<'s>,
}

impl SystemVisitor for RunStream<'_, '_> {
    type Output = Result<(ReplayResult, Streamed), StreamFailure>;
    fn visit<S: RatingSystem>(self, system: &S) -> Self::Output {
        let plan = self.plan;
        let (tx, rx) = sync_channel::<History>(2);
        std::thread::scope(|scope| {
            let reader = scope.spawn(move || {
                let mut send = |block: History| tx.send(block).is_ok();
                stream(
                    &plan.path,
                    plan.format,
                    &plan.opts,
                    self.opts.period,
                    plan.block,
                    &mut send,
                )
            });
            let mut replayer =
                Replayer::new(system, self.opts, None, SnapshotAt::Never, plan.contests);
            let mut diverged = None;
            for block in &rx {
                self.sink.names(block.names());
                if let Err(d) = replayer.feed(Cow::Owned(block), self.sink) {
                    diverged = Some(d);
                    break;
                }
            }
            // The reader's next send fails and it stops.
            drop(rx);
            let read = reader
                .join()
                .unwrap_or_else(|p| std::panic::resume_unwind(p));
            // A bad record is reported before a runaway, as a whole read would (the reader's
            // only error after a runaway is that the replay stopped).
            let read = match (read, diverged) {
                (Err(e), Some(d)) if e.is::<crate::ingest::stream::ReplayStopped>() => {
                    return Err(StreamFailure::Diverged(d));
                }
                (Err(e), _) => return Err(StreamFailure::Input(e)),
                (Ok(_), Some(d)) => return Err(StreamFailure::Diverged(d)),
                (Ok(read), None) => read,
            };
            changed_since_counted(plan, &read).map_err(StreamFailure::Input)?;
            let (result, _) = replayer
                .finish(self.sink)
                .map_err(StreamFailure::Diverged)?;
            Ok((result, read))
        })
    }
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
