//! The jobs behind the subcommands, as library functions: each takes a plain options struct
//! and a writer for what it prints.

use crate::history::{History, SourceInfo};
use crate::ingest::{IngestOptions, InputError, Location, ingest};
use crate::metrics::MetricsReport;
use crate::output::{self, HistoryCsv, HistoryFormat, Staged, StagedFile};
use crate::replay::Period;
use crate::replay::{HistoryRow, Observer, ReplayOptions, ReplayResult, replay_observed};
use crate::systems::{ParamMap, RatingSystem, SystemKind, SystemVisitor, dispatch};
use anyhow::Context as _;
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use serde::Serialize;
use std::io::{IsTerminal, Write};
use std::path::PathBuf;
use std::sync::mpsc::{SyncSender, sync_channel};
use std::time::Instant;

/// A usage mistake (bad option values or combinations): exit code 2.
#[derive(Debug)]
pub struct UsageError(pub String);

impl std::fmt::Display for UsageError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for UsageError {}

/// Exit codes: 0 ok, 1 bad input, 2 usage, 3 I/O.
pub fn exit_code(e: &anyhow::Error) -> i32 {
    if e.chain().any(|c| c.is::<UsageError>()) {
        2
    } else if e.chain().any(|c| c.is::<InputError>()) {
        1
    } else if e.chain().any(|c| c.is::<std::io::Error>()) {
        3
    } else {
        1
    }
}

/// Everything `replay` needs.
#[derive(Clone, Debug)]
pub struct ReplayJob {
    /// The input file or folder.
    pub input: PathBuf,
    /// How to read it.
    pub ingest: IngestOptions,
    /// The rating system.
    pub system: SystemKind,
    /// Its parameters by name (unset ones keep their defaults).
    pub params: ParamMap,
    /// Rounds, warm-up, experience, decay, as-of (the seeds come from `initial_ratings`).
    pub replay: ReplayOptions,
    /// `--initial-ratings`: a CSV of players who start with a rating.
    pub initial_ratings: Option<PathBuf>,
    /// Who is on the leaderboard and in which order.
    pub leaderboard: output::LeaderboardOptions,
    /// Output folder.
    pub out: PathBuf,
    /// File type of the rating history.
    pub history_format: HistoryFormat,
    /// Leaderboard lines printed.
    pub top: usize,
    /// Only read and validate the input.
    pub dry_run: bool,
    /// Print nothing on success.
    pub quiet: bool,
}

struct RunReplay<'a> {
    history: &'a History,
    opts: &'a ReplayOptions,
    observer: &'a mut dyn Observer,
}

impl SystemVisitor for RunReplay<'_> {
    type Output = ReplayResult;
    fn visit<S: RatingSystem>(self, system: &S) -> ReplayResult {
        replay_observed(self.history, system, self.opts, self.observer)
    }
}

/// Where the replay's rows go: to the history formatter's thread, into memory, or nowhere
/// (no history file, or a writer that failed and has an error to report when joined); and the
/// progress bar.
enum Rows {
    Stream(SyncSender<Vec<HistoryRow>>),
    Keep(Vec<HistoryRow>),
    Drop,
}

struct Sink {
    rows: Rows,
    bar: Option<ProgressBar>,
}

impl Observer for Sink {
    fn rows(&mut self, rows: &[HistoryRow]) {
        match &mut self.rows {
            Rows::Stream(tx) => {
                if tx.send(rows.to_vec()).is_err() {
                    self.rows = Rows::Drop;
                }
            }
            Rows::Keep(kept) => kept.extend_from_slice(rows),
            Rows::Drop => {}
        }
    }
    fn progress(&mut self, done: u64) {
        if let Some(b) = &self.bar {
            b.set_position(done);
        }
    }
}

fn progress_bar(len: u64, quiet: bool) -> Option<ProgressBar> {
    if quiet || !std::io::stderr().is_terminal() {
        return None;
    }
    let bar = ProgressBar::with_draw_target(Some(len), ProgressDrawTarget::stderr());
    bar.set_style(
        ProgressStyle::with_template(
            "{spinner} replaying {bar:40} {pos}/{len} contests ({per_sec}, {eta} left)",
        )
        .unwrap_or_else(|_| ProgressStyle::default_bar()),
    );
    Some(bar)
}

/// Reads, replays and writes the outputs.
pub fn run_replay(job: &ReplayJob, stdout: &mut dyn Write) -> anyhow::Result<()> {
    let t0 = Instant::now();
    if !(0.0..=1.0).contains(&job.replay.warmup) {
        return Err(UsageError(format!(
            "--warmup {} is not a fraction between 0 and 1",
            job.replay.warmup
        ))
        .into());
    }
    let decay = job.replay.decay_per_day;
    if !(decay.is_finite() && decay >= 0.0) {
        return Err(UsageError(format!(
            "--decay-per-day {decay} is not a non-negative number"
        ))
        .into());
    }
    // Check the system's parameters before reading anything.
    dispatch(job.system, &job.params, Noop).map_err(UsageError)?;
    let history = ingest(&job.input, &job.ingest)?;
    let (seeds, seeds_absent) = match &job.initial_ratings {
        Some(path) => crate::ingest::seeds::read_seeds(path, &history)?,
        None => (Vec::new(), 0),
    };
    let ingest_time = t0.elapsed();
    let src = &history.source;
    if history.is_empty() {
        return Err(InputError {
            file: src.path.clone(),
            at: Location::File,
            field: None,
            message: format!(
                "no contest to rate ({} {} read, {} skipped)",
                src.records,
                src.record_unit,
                src.skipped_invalid + src.skipped_unfinished
            ),
        }
        .into());
    }
    if job.dry_run {
        if !job.quiet {
            writeln!(
                stdout,
                "{}: {} format, {} {} read, {} contests, {} players, {} placings; input is valid",
                src.path,
                src.format,
                src.records,
                src.record_unit,
                history.len(),
                history.player_count(),
                history.placings()
            )?;
            print_skipped(stdout, &history)?;
        }
        return Ok(());
    }

    // Bigger inputs get a progress bar (on a terminal only).
    let bar = (history.placings() > 200_000)
        .then(|| progress_bar(history.len() as u64, job.quiet))
        .flatten();
    let mut staged =
        Staged::new(&job.out).with_context(|| format!("cannot create {}", job.out.display()))?;
    let ctx = |name: &str| format!("cannot write {}", job.out.join(name).display());
    let t1 = Instant::now();
    let mut sink = Sink {
        rows: Rows::Drop,
        bar,
    };
    // The replay itself; rows are kept only when a sink takes them.
    let run = |sink: &mut Sink| -> anyhow::Result<ReplayResult> {
        let opts = ReplayOptions {
            keep_history: !matches!(sink.rows, Rows::Drop),
            seeds: seeds.clone(),
            ..job.replay.clone()
        };
        let visitor = RunReplay {
            history: &history,
            opts: &opts,
            observer: sink,
        };
        Ok(dispatch(job.system, &job.params, visitor).map_err(UsageError)?)
    };
    let result = match job.history_format {
        // history.csv goes through a pipeline: the replay hands over rows, one thread formats
        // them, another writes the text, so that all three overlap.
        HistoryFormat::Csv => {
            let mut file = staged
                .open("history.csv")
                .with_context(|| ctx("history.csv"))?;
            let mut csv =
                HistoryCsv::new(&history, &mut file).with_context(|| ctx("history.csv"))?;
            let (rows_tx, rows_rx) = sync_channel::<Vec<HistoryRow>>(4);
            let (text_tx, text_rx) = sync_channel::<String>(4);
            std::thread::scope(|scope| -> anyhow::Result<ReplayResult> {
                scope.spawn(move || {
                    for batch in rows_rx {
                        if text_tx.send(csv.rows(&batch)).is_err() {
                            break;
                        }
                    }
                });
                let writer = scope.spawn(move || -> std::io::Result<StagedFile> {
                    // On a write error the formatter stops when this channel closes, then the
                    // replay's sends fail and it carries on without history.
                    text_rx
                        .iter()
                        .try_for_each(|text| file.write_all(text.as_bytes()))?;
                    Ok(file)
                });
                sink.rows = Rows::Stream(rows_tx);
                let result = run(&mut sink);
                // Closing the channel ends the formatter, then the writer.
                sink.rows = Rows::Drop;
                let file = writer
                    .join()
                    .unwrap_or_else(|p| std::panic::resume_unwind(p));
                let result = result?;
                file.and_then(StagedFile::finish)
                    .with_context(|| ctx("history.csv"))?;
                Ok(result)
            })?
        }
        HistoryFormat::None => run(&mut sink)?,
        HistoryFormat::Parquet => {
            sink.rows = Rows::Keep(Vec::with_capacity(history.placings()));
            let result = run(&mut sink)?;
            let Rows::Keep(kept) = std::mem::replace(&mut sink.rows, Rows::Drop) else {
                unreachable!("the rows were kept")
            };
            staged
                .write("history.parquet", |w| {
                    output::write_history_parquet(w, &history, &kept)
                })
                .with_context(|| ctx("history.parquet"))?;
            result
        }
    };
    if let Some(b) = &sink.bar {
        b.finish_and_clear();
    }
    let replay_time = t1.elapsed();

    let rows = output::leaderboard_rows(&history, &result, &job.leaderboard);
    staged
        .write("leaderboard.csv", |w| {
            output::write_leaderboard(w, &history, &rows)
        })
        .with_context(|| ctx("leaderboard.csv"))?;
    let doc = MetricsDocument {
        system: result.system,
        params: &result.params,
        input: InputSummary {
            source: src,
            contests: history.len(),
            players: history.player_count(),
            placings: history.placings(),
        },
        period: job.replay.period,
        decay_per_day: job.replay.decay_per_day,
        as_of: job.replay.as_of.map(crate::ingest::time::format_time),
        initial_ratings: job.initial_ratings.as_ref().map(|p| InitialRatings {
            file: p.display().to_string(),
            players: seeds.len(),
            not_in_history: seeds_absent,
        }),
        leaderboard: &job.leaderboard,
        rounds: result.rounds,
        warmup_contests: result.warmup_contests,
        experienced_after_contests: job.replay.experienced_after,
        metrics: &result.metrics,
        wall_seconds: WallSeconds {
            ingest: ingest_time.as_secs_f64(),
            replay: replay_time.as_secs_f64(),
            total_before_writing: t0.elapsed().as_secs_f64(),
        },
    };
    staged
        .write("metrics.json", |w| output::write_metrics(w, &doc))
        .with_context(|| ctx("metrics.json"))?;
    let written = staged
        .commit()
        .with_context(|| format!("cannot move the outputs into {}", job.out.display()))?;

    if !job.quiet {
        writeln!(
            stdout,
            "{} on {}: {} contests, {} players, {} rounds ({} period)",
            result.system,
            src.path,
            history.len(),
            rows.len(),
            result.rounds,
            serde_json::to_value(job.replay.period)?
                .as_str()
                .unwrap_or("")
        )?;
        print_skipped(stdout, &history)?;
        writeln!(stdout)?;
        output::print_summary(stdout, &history, &result, &rows, job.top)?;
        writeln!(stdout)?;
        let names: Vec<String> = written.iter().map(|p| p.display().to_string()).collect();
        writeln!(stdout, "Wrote {}", names.join(", "))?;
    }
    Ok(())
}

fn print_skipped(out: &mut dyn Write, h: &History) -> std::io::Result<()> {
    let s = &h.source;
    if s.skipped_unfinished > 0 {
        writeln!(
            out,
            "skipped {} unfinished games (result `*`)",
            s.skipped_unfinished
        )?;
    }
    if s.skipped_invalid > 0 {
        writeln!(
            out,
            "skipped {} invalid {} (--skip-invalid); the first:",
            s.skipped_invalid, s.record_unit
        )?;
        for e in &s.skipped_examples {
            writeln!(out, "  {e}")?;
        }
    }
    Ok(())
}

/// Builds a system and does nothing with it: checks parameters early.
struct Noop;

impl SystemVisitor for Noop {
    type Output = ();
    fn visit<S: RatingSystem>(self, _: &S) {}
}

/// `metrics.json`: what was run on what, and how well it predicted.
#[derive(Serialize)]
struct MetricsDocument<'a> {
    system: &'a str,
    params: &'a serde_json::Value,
    input: InputSummary<'a>,
    period: Period,
    decay_per_day: f64,
    #[serde(skip_serializing_if = "Option::is_none")]
    as_of: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    initial_ratings: Option<InitialRatings>,
    leaderboard: &'a output::LeaderboardOptions,
    rounds: usize,
    warmup_contests: usize,
    experienced_after_contests: u32,
    metrics: &'a MetricsReport,
    wall_seconds: WallSeconds,
}

#[derive(Serialize)]
struct InitialRatings {
    file: String,
    players: usize,
    not_in_history: usize,
}

#[derive(Serialize)]
struct InputSummary<'a> {
    #[serde(flatten)]
    source: &'a SourceInfo,
    contests: usize,
    players: usize,
    placings: usize,
}

#[derive(Serialize)]
struct WallSeconds {
    ingest: f64,
    replay: f64,
    total_before_writing: f64,
}
