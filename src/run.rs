//! The jobs behind the subcommands, as library functions: each takes a plain options struct
//! and a writer for what it prints.

use crate::history::{History, PlayerId, SourceInfo};
use crate::ingest::truth::{RmseSeries, Truth, read_truth};
use crate::ingest::{Format, IngestOptions, InputError, ingest};
use crate::metrics::MetricsReport;
use crate::output::{self, Folder, HistoryCsv, HistoryFormat, Publication, StagedFile};
use crate::replay::Period;
use crate::replay::{
    Divergence, HistoryRow, Observer, ReplayOptions, ReplayResult, Seed, SnapshotAt, replay_from,
    replay_observed,
};
use crate::state::{self, StateFile, StateMeta};
use crate::systems::{ParamMap, ParamsOf, RatingSystem, SystemKind, SystemVisitor, dispatch};
use anyhow::Context as _;
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use serde::Serialize;
use std::io::{IsTerminal, Write};
use std::path::{Path, PathBuf};
use std::sync::mpsc::{SyncSender, sync_channel};
use std::time::{Duration, Instant};

/// A usage mistake (bad option values or combinations): exit code 2.
#[derive(Debug)]
pub struct UsageError(pub String);

impl std::fmt::Display for UsageError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for UsageError {}

/// Some parts of a job failed (a `compare` system or `tune` set); the others completed.
#[derive(Debug)]
pub struct PartialFailure(pub String);

impl std::fmt::Display for PartialFailure {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for PartialFailure {}

/// Exit codes: 0 ok, 1 bad input, 2 usage, 3 I/O, 4 a rating system failed (its ratings ran
/// away; with `compare` and `tune`, the other rows are complete), 5 another run holds the
/// output folder or the state (nothing was written).
pub fn exit_code(e: &anyhow::Error) -> i32 {
    if e.chain()
        .any(<dyn std::error::Error + 'static>::is::<UsageError>)
    {
        2
    } else if e
        .chain()
        .any(|c| c.is::<Divergence>() || c.is::<PartialFailure>())
    {
        4
    } else if e.chain().any(|c| {
        c.is::<output::Busy>()
            || c.downcast_ref::<std::io::Error>()
                .and_then(|io| io.get_ref())
                .is_some_and(
                    <dyn std::error::Error + std::marker::Send + std::marker::Sync + 'static>::is::<
                        output::Busy,
                    >,
                )
    }) {
        5
    } else if e
        .chain()
        .any(<dyn std::error::Error + 'static>::is::<InputError>)
    {
        1
    } else if e
        .chain()
        .any(<dyn std::error::Error + 'static>::is::<std::io::Error>)
    {
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
    /// Also write `report.html`.
    pub report: bool,
    /// `--save-state`: where to write the state after the run.
    pub save_state: Option<PathBuf>,
    /// `--resume`: the state to start from.
    pub resume: Option<PathBuf>,
    /// Report as one JSON object (`--log-format json`).
    pub json: bool,
    /// `--truth`: true ratings to measure the RMSE against.
    pub truth: Option<PathBuf>,
}

struct RunReplay<'a> {
    history: &'a History,
    opts: &'a ReplayOptions,
    observer: &'a mut dyn Observer,
    state: Option<&'a StateJob<'a>>,
}

/// What a replay with `--resume` / `--save-state` carries in and out.
pub struct StateJob<'a> {
    /// The state resumed from.
    pub resume: Option<&'a StateFile>,
    /// Take a snapshot to save.
    pub save: bool,
    /// The file resumed from (for messages).
    pub resume_path: Option<&'a Path>,
}

/// Why a replay stopped.
enum ReplayFailure {
    /// The state resumed from cannot be used (a message).
    State(String),
    /// The system's ratings ran away.
    Diverged(Divergence),
}

impl From<Divergence> for ReplayFailure {
    fn from(d: Divergence) -> Self {
        ReplayFailure::Diverged(d)
    }
}

impl SystemVisitor for RunReplay<'_> {
    type Output = Result<(ReplayResult, Option<Vec<u8>>), ReplayFailure>;
    fn visit<S: RatingSystem>(self, system: &S) -> Self::Output {
        let Some(state) = self.state else {
            return Ok((
                replay_observed(self.history, system, self.opts, self.observer)?,
                None,
            ));
        };
        let from = state
            .resume
            .map(StateFile::carry::<S::Player>)
            .transpose()
            .map_err(ReplayFailure::State)?;
        let at = match (state.save, self.opts.period) {
            (false, _) => SnapshotAt::Never,
            (true, Period::Game) => SnapshotAt::End,
            (true, _) => SnapshotAt::BeforeLastRound,
        };
        let (result, snapshot) =
            replay_from(self.history, system, self.opts, self.observer, from, at)?;
        let Some(snap) = snapshot else {
            return Ok((result, None));
        };
        // The state: every digest applied before and now (as often as applied), the contests
        // of this input left for the next run, the watermark, the players.
        let h = self.history;
        let mut applied: Vec<u64> = state
            .resume
            .map(|f| f.meta.applied.clone())
            .unwrap_or_default();
        let mut now = vec![false; h.len()];
        for &c in &snap.applied {
            now[c as usize] = true;
            applied.push(state::contest_digest(h, &h.contest(c as usize)));
        }
        applied.sort_unstable();
        let before = self.opts.skip.as_deref();
        let mut pending: Vec<u64> = h
            .contests()
            .filter(|c| !now[c.index()] && !before.is_some_and(|b| b[c.index()]))
            .map(|c| state::contest_digest(h, &c))
            .collect();
        pending.sort_unstable();
        let mut closed_series: Vec<String> = Vec::new();
        if self.opts.period == Period::Series {
            closed_series = state
                .resume
                .map(|f| f.meta.closed_series.clone())
                .unwrap_or_default();
            closed_series.extend(snap.applied.iter().filter_map(|&c| {
                h.contest(c as usize)
                    .series()
                    .map(|s| h.series_name(s).to_string())
            }));
            closed_series.sort_unstable();
            closed_series.dedup();
        }
        let last = snap.applied.last().map(|&c| h.contest(c as usize));
        let watermark = match last {
            Some(c) => Some((c.time(), c.label().map(str::to_string))),
            None => state.resume.and_then(|f| f.meta.watermark.clone()),
        };
        let meta = StateMeta {
            system: system.name().to_string(),
            params: system.params().to_string(),
            period: period_name(self.opts.period),
            decay_per_day: self.opts.decay_per_day,
            experienced_after: self.opts.experienced_after,
            players: h.names().to_vec(),
            watermark,
            applied,
            history_rows: snap.carry.history_rows,
            open_from: snap.open_from.filter(|_| !pending.is_empty()),
            pending,
            closed_series,
        };
        let mut bytes = Vec::new();
        state::write_state(&mut bytes, &meta, &snap.carry)
            .map_err(|e| ReplayFailure::State(e.to_string()))?;
        Ok((result, Some(bytes)))
    }
}

/// The command-line name of a period.
fn period_name(p: Period) -> String {
    serde_json::to_value(p)
        .ok()
        .and_then(|v| v.as_str().map(str::to_string))
        .unwrap_or_default()
}

/// Where the replay's rows go: to the history formatter's thread, into memory, or nowhere
/// (no history file, or a writer that failed and has an error to report when joined); and the
/// progress bar.
enum Rows {
    Stream(SyncSender<Vec<HistoryRow>>),
    Keep(Vec<HistoryRow>),
    Drop,
}

struct Sink<'a> {
    rows: Rows,
    bar: Option<ProgressBar>,
    /// (player, contest, rating after) of every row, for the report's trajectories.
    trajectory: Option<Vec<(u32, u32, f32)>>,
    rate: RateMeter,
    /// `--truth`: the RMSE of the ratings against the true ones, round by round.
    truth: Option<(&'a History, &'a Truth, RmseSeries)>,
}

/// The best rate of rounds per second over stretches of at least 50 ms.
struct RateMeter {
    last: Instant,
    last_rounds: u64,
    peak: Option<f64>,
}

impl RateMeter {
    fn new() -> Self {
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
    fn rows(&mut self, rows: &[HistoryRow]) {
        if let Some((history, truth, series)) = &mut self.truth {
            for r in rows {
                if let Some(v) = truth.get(r.contest_id, r.player) {
                    let time = history.contest(r.contest_id as usize).time();
                    series.add(r.round, time, r.after, v);
                }
            }
        }
        if let Some(t) = &mut self.trajectory {
            t.extend(
                rows.iter()
                    .map(|r| (r.player, r.contest_id, r.after as f32)),
            );
        }
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
    fn progress(&mut self, done: u64, rounds: u64) {
        if let Some(b) = &self.bar {
            b.set_position(done);
        }
        self.rate.at(rounds);
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

/// An ingested history with the players seeded from `--initial-ratings`.
pub struct Loaded {
    /// The history.
    pub history: History,
    /// Players with an initial rating.
    pub seeds: Vec<Seed>,
    /// Players of the initial-ratings file who are not in the history.
    pub seeds_absent: usize,
    /// The file they came from.
    pub seeds_file: Option<PathBuf>,
    /// Time spent reading.
    pub ingest_time: Duration,
    /// `--truth`: the true ratings.
    pub truth: Option<Truth>,
}

/// Reads the input (and the initial ratings); an input without any contest is an error.
pub fn load(
    input: &Path,
    ingest_opts: &IngestOptions,
    initial_ratings: Option<&Path>,
    truth: Option<&Path>,
) -> anyhow::Result<Loaded> {
    let t0 = Instant::now();
    let format = match ingest_opts.format {
        Some(f) => f,
        None => crate::ingest::detect(input)?,
    };
    if ingest_opts.time_format != crate::ingest::time::TimeFormat::Auto
        && matches!(format, Format::Json | Format::Pgn)
    {
        return Err(UsageError(format!(
            "--time-format applies to the time column of CSV and Parquet inputs; {format} \
             inputs have their own (contest JSON: time_seconds, Unix seconds; PGN: Date and \
             UTCDate, YYYY.MM.DD)"
        ))
        .into());
    }
    if !ingest_opts.no_memory_check {
        crate::ingest::budget::check(input, format, &ingest_opts.map)?;
    }
    let history = ingest(input, ingest_opts)?;
    let (seeds, seeds_absent) = match initial_ratings {
        Some(path) => crate::ingest::seeds::read_seeds(path, &history)?,
        None => (Vec::new(), 0),
    };
    let src = &history.source;
    if history.is_empty() {
        return Err(InputError::whole_file(
            src.path.clone(),
            format!(
                "no contest to rate ({} {} read, {} skipped)",
                src.records,
                src.record_unit,
                src.skipped_invalid + src.skipped_unfinished
            ),
        )
        .into());
    }
    let truth = truth.map(|p| read_truth(p, &history)).transpose()?;
    Ok(Loaded {
        history,
        seeds,
        seeds_absent,
        seeds_file: initial_ratings.map(Path::to_path_buf),
        ingest_time: t0.elapsed(),
        truth,
    })
}

/// Checks the options shared by `replay` and `compare`.
pub fn check_replay_options(opts: &ReplayOptions) -> Result<(), UsageError> {
    if !(0.0..=1.0).contains(&opts.warmup) {
        return Err(UsageError(format!(
            "--warmup {} is not a fraction between 0 and 1",
            opts.warmup
        )));
    }
    let decay = opts.decay_per_day;
    if !(decay.is_finite() && decay >= 0.0) {
        return Err(UsageError(format!(
            "--decay-per-day {decay} is not a non-negative number"
        )));
    }
    Ok(())
}

/// One system's replay of a loaded history, its files staged in a folder.
pub struct SystemJob<'a> {
    /// The system.
    pub system: SystemKind,
    /// Its parameters by name.
    pub params: &'a ParamMap,
    /// Rounds, warm-up, decay, as-of (the seeds are taken from the [`Loaded`] history).
    pub replay: &'a ReplayOptions,
    /// File type of the rating history.
    pub history_format: HistoryFormat,
    /// Who is on the leaderboard.
    pub leaderboard: &'a output::LeaderboardOptions,
    /// Keep each contest's metrics and the rating trajectories of this many top players, for
    /// the report (0: none).
    pub chart_players: usize,
    /// A progress bar to drive, if any.
    pub bar: Option<ProgressBar>,
    /// `--resume` / `--save-state`.
    pub state: Option<StateJob<'a>>,
    /// With `--resume`: the previous `history.csv` and how many of its rows the state has
    /// applied; they are copied before the new rows.
    pub continue_history: Option<(PathBuf, u64)>,
}

/// What one system's replay produced.
pub struct SystemOutcome {
    /// The replay's result.
    pub result: ReplayResult,
    /// The leaderboard.
    pub rows: Vec<output::LeaderRow>,
    /// Wall time of the replay (with the history file written alongside).
    pub replay_seconds: f64,
    /// The best rate of rounds per second over stretches of the replay (None when it was too
    /// short to measure in stretches).
    pub peak_rounds_per_second: Option<f64>,
    /// Rating trajectories of the top players (with `chart_players`).
    pub trajectories: Vec<(String, Vec<(i64, f64)>)>,
    /// The state file's bytes, with `--save-state`.
    pub state_bytes: Option<Vec<u8>>,
    /// With `--truth`: (time, RMSE) per measured round.
    pub rmse: Vec<(i64, f64)>,
}

impl SystemOutcome {
    /// Rounds per second over the whole replay.
    pub fn rounds_per_second(&self) -> f64 {
        self.result.rounds as f64 / self.replay_seconds.max(1e-9)
    }
}

/// Replays one system and stages `leaderboard.csv`, `metrics.json` and the history file in
/// `staged`, a folder of an output generation (published by the caller).
pub fn replay_system(
    loaded: &Loaded,
    job: &SystemJob,
    staged: &Folder,
) -> anyhow::Result<SystemOutcome> {
    let history = &loaded.history;
    let src = &history.source;
    let ctx = |name: &str| format!("cannot write {}", staged.final_path(name).display());
    let t1 = Instant::now();
    let mut sink = Sink {
        rows: Rows::Drop,
        bar: job.bar.clone(),
        trajectory: (job.chart_players > 0).then(Vec::new),
        rate: RateMeter::new(),
        truth: loaded
            .truth
            .as_ref()
            .map(|t| (history, t, RmseSeries::default())),
    };
    // The replay itself; rows are kept only when a sink takes them.
    let mut state_bytes = None;
    let mut run = |sink: &mut Sink| -> anyhow::Result<ReplayResult> {
        let opts = ReplayOptions {
            keep_history: !matches!(sink.rows, Rows::Drop)
                || sink.trajectory.is_some()
                || sink.truth.is_some(),
            seeds: loaded.seeds.clone(),
            series: job.chart_players > 0,
            ..job.replay.clone()
        };
        let visitor = RunReplay {
            history,
            opts: &opts,
            observer: sink,
            state: job.state.as_ref(),
        };
        let (result, bytes) = dispatch(job.system, job.params, visitor)
            .map_err(UsageError)?
            .map_err(|e| -> anyhow::Error {
                match e {
                    ReplayFailure::Diverged(d) => d.into(),
                    ReplayFailure::State(e) => {
                        let file = job
                            .state
                            .as_ref()
                            .and_then(|s| s.resume_path)
                            .map_or_else(String::new, |p| p.display().to_string());
                        InputError::whole_file(file, e).into()
                    }
                }
            })?;
        state_bytes = bytes;
        Ok(result)
    };
    let result = match job.history_format {
        // history.csv goes through a pipeline: the replay hands over rows, one thread formats
        // them, another writes the text, so that all three overlap.
        HistoryFormat::Csv => {
            let mut file = staged
                .open("history.csv")
                .with_context(|| ctx("history.csv"))?;
            let mut csv = match &job.continue_history {
                Some((previous, rows)) => HistoryCsv::continuing(
                    history, &mut file, previous, *rows,
                )
                .with_context(|| {
                    format!(
                        "cannot append to {} (use --history-format none, or restore it)",
                        previous.display()
                    )
                })?,
                None => HistoryCsv::new(history, &mut file).with_context(|| ctx("history.csv"))?,
            };
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
                    output::write_history_parquet(w, history, &kept)
                })
                .with_context(|| ctx("history.parquet"))?;
            result
        }
    };
    if let Some(b) = &sink.bar {
        b.finish_and_clear();
    }
    let replay_time = t1.elapsed();
    let rmse: Vec<(u32, i64, u32, f64)> = match sink.truth.take() {
        Some((_, _, mut series)) => {
            series.close();
            series.points
        }
        None => Vec::new(),
    };
    if loaded.truth.is_some() {
        staged
            .write("rmse.csv", |w| {
                writeln!(w, "round,time,players,rmse")?;
                for (r, t, n, v) in &rmse {
                    writeln!(w, "{r},{},{n},{v}", crate::ingest::time::format_time(*t))?;
                }
                Ok(())
            })
            .with_context(|| ctx("rmse.csv"))?;
    }
    let rows = output::leaderboard_rows(history, &result, job.leaderboard);
    staged
        .write("leaderboard.csv", |w| {
            output::write_leaderboard(w, history, &rows)
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
        // The last instant covered (the cutoff is exclusive).
        as_of: job
            .replay
            .as_of
            .map(|t| crate::ingest::time::format_time(t - 1)),
        initial_ratings: loaded.seeds_file.as_ref().map(|p| InitialRatings {
            file: p.display().to_string(),
            players: loaded.seeds.len(),
            not_in_history: loaded.seeds_absent,
        }),
        leaderboard: job.leaderboard,
        truth: loaded.truth.as_ref().map(|t| TruthSummary {
            file: t.file.clone(),
            values: t.len(),
            rounds_measured: rmse.len(),
            last_rmse: rmse.last().map(|p| p.3),
            mean_rmse_last_tenth: {
                let tail = &rmse[rmse.len() - rmse.len() / 10..];
                (!tail.is_empty())
                    .then(|| tail.iter().map(|p| p.3).sum::<f64>() / tail.len() as f64)
            },
        }),
        rounds: result.rounds_total(),
        warmup_contests: result.warmup_contests,
        experienced_after_contests: job.replay.experienced_after,
        metrics: &result.metrics,
        wall_seconds: WallSeconds {
            ingest: loaded.ingest_time.as_secs_f64(),
            replay: replay_time.as_secs_f64(),
            total_before_writing: (loaded.ingest_time + replay_time).as_secs_f64(),
        },
    };
    staged
        .write("metrics.json", |w| output::write_metrics(w, &doc))
        .with_context(|| ctx("metrics.json"))?;
    let trajectories = match sink.trajectory.take() {
        Some(points) => top_trajectories(history, &rows, job.chart_players, &points),
        None => Vec::new(),
    };
    Ok(SystemOutcome {
        peak_rounds_per_second: sink.rate.peak,
        result,
        rows,
        replay_seconds: replay_time.as_secs_f64(),
        trajectories,
        state_bytes,
        rmse: rmse.iter().map(|p| (p.1, p.3)).collect(),
    })
}

/// The (time, rating after) points of the first `n` players of the leaderboard.
fn top_trajectories(
    history: &History,
    rows: &[output::LeaderRow],
    n: usize,
    points: &[(u32, u32, f32)],
) -> Vec<(String, Vec<(i64, f64)>)> {
    let top: Vec<PlayerId> = rows.iter().take(n).map(|r| r.player).collect();
    let mut slot = vec![usize::MAX; history.player_count()];
    for (k, &p) in top.iter().enumerate() {
        slot[p as usize] = k;
    }
    let mut lines: Vec<Vec<(i64, f64)>> = vec![Vec::new(); top.len()];
    for &(p, contest, after) in points {
        let k = slot[p as usize];
        if k != usize::MAX {
            lines[k].push((history.contest(contest as usize).time(), after as f64));
        }
    }
    top.iter()
        .map(|&p| history.name(p).to_string())
        .zip(lines)
        .collect()
}

/// Runs `replay`: reads the input, replays, writes the outputs (atomically), prints the top of
/// the leaderboard and the metrics.
pub fn run_replay(job: &ReplayJob, stdout: &mut dyn Write) -> anyhow::Result<()> {
    let t0 = Instant::now();
    check_replay_options(&job.replay)?;
    // Check the system's parameters before reading anything.
    dispatch(job.system, &job.params, Noop).map_err(UsageError)?;
    check_paths(job)?;
    // Hold the state's and the output folder's locks from before anything is read: a second
    // run on the same files fails here, at once.
    let _state_lock = job
        .save_state
        .as_deref()
        .map(output::FileLock::take)
        .transpose()
        .with_context(|| "cannot lock the state".to_string())?;
    let staged = if job.dry_run {
        None
    } else {
        Some(
            Publication::begin(&job.out, REPLAY_OUTPUTS)
                .with_context(|| format!("cannot prepare {}", job.out.display()))?,
        )
    };
    let resume = match &job.resume {
        Some(path) => Some(read_state_for(path, job)?),
        None => None,
    };
    let ingest_opts = IngestOptions {
        known_players: resume
            .as_ref()
            .map(|f| f.meta.players.clone())
            .unwrap_or_default(),
        ..job.ingest.clone()
    };
    let loaded = load(
        &job.input,
        &ingest_opts,
        job.initial_ratings.as_deref(),
        job.truth.as_deref(),
    )?;
    let mut replay_opts = job.replay.clone();
    let mut skipped_applied = 0usize;
    if let Some(f) = &resume {
        let (skip, n) = already_applied(&loaded.history, f)?;
        skipped_applied = n;
        replay_opts.skip = Some(std::sync::Arc::new(skip));
    }
    let history = &loaded.history;
    let src = &history.source;
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
            print_skipped(stdout, history)?;
        }
        return Ok(());
    }

    // Bigger inputs get a progress bar (on a terminal only).
    let bar = (history.placings() > 200_000)
        .then(|| progress_bar(history.len() as u64, job.quiet))
        .flatten();
    let system_job = SystemJob {
        system: job.system,
        params: &job.params,
        replay: &replay_opts,
        state: (resume.is_some() || job.save_state.is_some()).then(|| StateJob {
            resume: resume.as_ref(),
            save: job.save_state.is_some(),
            resume_path: job.resume.as_deref(),
        }),
        continue_history: match (&resume, job.history_format) {
            (Some(f), HistoryFormat::Csv) => {
                Some((job.out.join("history.csv"), f.meta.history_rows))
            }
            _ => None,
        },
        history_format: job.history_format,
        leaderboard: &job.leaderboard,
        chart_players: if job.report { REPORT_PLAYERS } else { 0 },
        bar,
    };
    let staged = staged.expect("a publication unless --dry-run");
    let outcome = replay_system(&loaded, &system_job, &staged.root())?;
    if job.report {
        let input = crate::compare::report_input(&loaded, &[(job.system, &outcome)]);
        staged
            .root()
            .write("report.html", |w| output::report::write_report(w, &input))
            .with_context(|| format!("cannot write {}", job.out.join("report.html").display()))?;
    }
    let written = staged
        .commit()
        .with_context(|| format!("cannot publish the outputs in {}", job.out.display()))?;
    // The state last: if this fails, the next run resumes from the previous state and
    // recomputes the same outputs.
    if let (Some(path), Some(bytes)) = (&job.save_state, &outcome.state_bytes) {
        output::replace_file(path, bytes)
            .with_context(|| format!("cannot write the state {}", path.display()))?;
    }
    let result = &outcome.result;
    let rows = &outcome.rows;

    if job.json {
        let doc = serde_json::json!({
            "status": "ok",
            "system": result.system,
            "input": src.path,
            "contests_read": history.len(),
            "contests_applied": history.len() - skipped_applied,
            "contests_skipped_as_applied_before": skipped_applied,
            "records_skipped_invalid": src.skipped_invalid,
            "records_skipped_unfinished": src.skipped_unfinished,
            "players": rows.len(),
            "rounds": result.rounds_total(),
            "rounds_rated_now": result.rounds,
            "metrics": result.metrics,
            "written": written.iter().map(|p| p.display().to_string()).collect::<Vec<_>>(),
            "state": job.save_state.as_ref().map(|p| p.display().to_string()),
            "seconds": t0.elapsed().as_secs_f64(),
        });
        writeln!(stdout, "{doc}")?;
    } else if !job.quiet {
        writeln!(
            stdout,
            "{} on {}: {} contests, {} players, {} rounds ({} period)",
            result.system,
            src.path,
            history.len(),
            rows.len(),
            result.rounds_total(),
            period_name(job.replay.period)
        )?;
        print_skipped(stdout, history)?;
        if let Some(path) = &job.resume {
            writeln!(
                stdout,
                "resumed from {}: {skipped_applied} contests applied before were skipped",
                path.display()
            )?;
        }
        writeln!(stdout)?;
        output::print_summary(stdout, history, result, rows, job.top)?;
        writeln!(stdout)?;
        let names: Vec<String> = written.iter().map(|p| p.display().to_string()).collect();
        writeln!(stdout, "Wrote {}", names.join(", "))?;
    }
    Ok(())
}

/// Reads a state for `--resume` and checks that it was made by the same system with the same
/// parameters and options.
fn read_state_for(path: &Path, job: &ReplayJob) -> anyhow::Result<StateFile> {
    let bad = |message: String| InputError::whole_file(path.display().to_string(), message);
    let mut f = output::open_no_follow(path)
        .with_context(|| format!("cannot read the state {}", path.display()))?;
    let state = StateFile::read(&mut f).map_err(bad)?;
    let m = &state.meta;
    let params = dispatch(job.system, &job.params, ParamsOf)
        .map_err(UsageError)?
        .to_string();
    let mut differences = Vec::new();
    if m.system != job.system.name() {
        differences.push(format!(
            "it was made with --system {}, this run uses {}",
            m.system,
            job.system.name()
        ));
    } else if m.params != params {
        differences.push(format!(
            "it was made with the parameters {}, this run has {params}",
            m.params
        ));
    }
    if m.period != period_name(job.replay.period) {
        differences.push(format!("it was made with --period {}", m.period));
    }
    if m.decay_per_day != job.replay.decay_per_day {
        differences.push(format!(
            "it was made with --decay-per-day {}",
            m.decay_per_day
        ));
    }
    if m.experienced_after != job.replay.experienced_after {
        differences.push("it counts experience differently".into());
    }
    if job.history_format == HistoryFormat::Parquet {
        differences
            .push("--resume appends to history.csv; use --history-format csv or none".into());
    }
    if !differences.is_empty() {
        return Err(UsageError(format!(
            "cannot resume from {}: {}",
            path.display(),
            differences.join("; ")
        ))
        .into());
    }
    // Every value, before anything else is read.
    dispatch(job.system, &job.params, CheckState(&state))
        .map_err(UsageError)?
        .map_err(bad)?;
    Ok(state)
}

/// Reads a state's players for the system and checks every value.
struct CheckState<'a>(&'a StateFile);

impl SystemVisitor for CheckState<'_> {
    type Output = Result<(), String>;
    fn visit<S: RatingSystem>(self, system: &S) -> Self::Output {
        let carry = self.0.carry::<S::Player>()?;
        state::check_values(system, &self.0.meta, &carry)
    }
}

/// A contest as messages name it: its label, or its number in the input.
fn contest_name(c: &crate::history::Contest) -> String {
    c.label()
        .map_or_else(|| format!("#{}", c.index() + 1), |l| format!("`{l}`"))
}

/// How many times each digest occurs.
fn digest_counts(digests: &[u64]) -> rustc_hash::FxHashMap<u64, usize> {
    let mut counts = rustc_hash::FxHashMap::default();
    for &d in digests {
        *counts.entry(d).or_insert(0) += 1;
    }
    counts
}

/// The contests of `history` applied before (to be skipped) and how many. A digest applied k
/// times skips its first k occurrences only (a real rematch is new). A contest older than the
/// watermark that was never applied is an error naming it, unless the state left it for this
/// run (the open round); and every contest the state left for this run must be in the input.
fn already_applied(history: &History, state: &StateFile) -> anyhow::Result<(Vec<bool>, usize)> {
    let mut applied = digest_counts(&state.meta.applied);
    let mut pending = digest_counts(&state.meta.pending);
    let mut skip = vec![false; history.len()];
    let mut n = 0;
    for c in history.contests() {
        let d = state::contest_digest(history, &c);
        if let Some(k) = applied.get_mut(&d).filter(|k| **k > 0) {
            *k -= 1;
            skip[c.index()] = true;
            n += 1;
        } else if let Some(k) = pending.get_mut(&d).filter(|k| **k > 0) {
            *k -= 1;
        } else if let Some(name) = c.series().map(|s| history.series_name(s))
            && state
                .meta
                .closed_series
                .binary_search_by(|x| x.as_str().cmp(name))
                .is_ok()
        {
            return Err(InputError::whole_file(
                history.source.path.clone(),
                format!(
                    "contest {} of {} continues series `{name}`, which an earlier run rated \
                     whole (another series began after it): rating the new games apart would \
                     differ from a full replay; replay from scratch instead",
                    contest_name(&c),
                    crate::ingest::time::format_time(c.time()),
                ),
            )
            .into());
        } else if let Some((t, _)) = &state.meta.watermark
            && c.time() < *t
        {
            return Err(InputError::whole_file(
                history.source.path.clone(),
                format!(
                    "contest {} of {} is older than the state's last contest ({}) but was \
                     never applied: history cannot be rewritten by --resume (replay from \
                     scratch instead)",
                    contest_name(&c),
                    crate::ingest::time::format_time(c.time()),
                    crate::ingest::time::format_time(*t)
                ),
            )
            .into());
        }
    }
    let missing: usize = pending.values().sum();
    if missing > 0 {
        let from = state.meta.open_from.map_or_else(String::new, |t| {
            format!(" from {}", crate::ingest::time::format_time(t))
        });
        return Err(InputError::whole_file(
            history.source.path.clone(),
            format!(
                "{missing} contests of the open {} period{from} that the state left for this \
                 run are not in the input: give the input from that time on, or the whole \
                 history",
                state.meta.period
            ),
        )
        .into());
    }
    Ok((skip, n))
}

/// The files `replay` writes in its output folder (a previous run's files of these names are
/// replaced, or removed when this run does not write them).
pub const REPLAY_OUTPUTS: &[&str] = &[
    "leaderboard.csv",
    "history.csv",
    "history.parquet",
    "metrics.json",
    "report.html",
    "rmse.csv",
];

/// Refuses a state file that is one of the inputs (the input would be overwritten), and an
/// output folder that is the input folder.
fn check_paths(job: &ReplayJob) -> Result<(), UsageError> {
    use std::os::unix::fs::MetadataExt;
    let id = |p: &Path| std::fs::metadata(p).ok().map(|m| (m.dev(), m.ino()));
    let inputs = [
        Some(("the input", job.input.as_path())),
        job.initial_ratings
            .as_deref()
            .map(|p| ("--initial-ratings", p)),
        job.truth.as_deref().map(|p| ("--truth", p)),
    ];
    if let Some(state) = &job.save_state
        && let Some(state_id) = id(state)
    {
        for (what, p) in inputs.iter().flatten() {
            if id(p) == Some(state_id) {
                return Err(UsageError(format!(
                    "--save-state {} is {what}: the state would overwrite it",
                    state.display()
                )));
            }
        }
    }
    if job.input.is_dir() && id(&job.input).is_some() && id(&job.input) == id(&job.out) {
        return Err(UsageError(format!(
            "--out {} is the input folder: the outputs replace the folder's content",
            job.out.display()
        )));
    }
    Ok(())
}

/// Players whose trajectories the report draws.
pub const REPORT_PLAYERS: usize = 10;

fn print_skipped(out: &mut dyn Write, h: &History) -> std::io::Result<()> {
    let s = &h.source;
    if let Some(reading) = s.time_format.as_deref().filter(|r| r.contains("integers")) {
        writeln!(out, "times: {reading}")?;
    }
    if s.names_padded > 0 {
        write!(
            out,
            "names: {} begin or end with whitespace, kept as given (--trim-names removes it)",
            s.names_padded
        )?;
        match &s.names_equal_example {
            Some((a, b)) => writeln!(
                out,
                "; {} equal another name once trimmed, rated as different players (e.g. {a:?} and {b:?})",
                s.names_equal_when_trimmed
            )?,
            None => writeln!(out)?,
        }
    }
    if s.skipped_unfinished > 0 {
        writeln!(
            out,
            "skipped {} unplayed games (no result: `*`, `NA` or empty)",
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
/// A visitor that only builds the system (to check its parameters early).
pub struct Noop;

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
    #[serde(skip_serializing_if = "Option::is_none")]
    truth: Option<TruthSummary>,
    rounds: usize,
    warmup_contests: usize,
    experienced_after_contests: u32,
    metrics: &'a MetricsReport,
    wall_seconds: WallSeconds,
}

/// What `--truth` measured.
#[derive(Serialize)]
struct TruthSummary {
    file: String,
    /// (contest, player) true values that apply to the history.
    values: usize,
    /// Rounds with at least two players measured.
    rounds_measured: usize,
    /// RMSE after the last measured round.
    last_rmse: Option<f64>,
    /// Mean RMSE over the last tenth of the measured rounds.
    mean_rmse_last_tenth: Option<f64>,
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
