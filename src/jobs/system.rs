//! One system's replay of a loaded history into a folder of an output generation (shared by
//! `replay` and `compare`).

use super::errors::UsageError;
use super::load::Loaded;
use super::options::RunOptions;
use super::resume::{ReplayFailure, RunReplay, StateJob};
use super::sink::{Batch, Rows, Sink};
use super::stream::{Piece, Ran, RunStream, replay_streamed};
use crate::history::{History, PlayerId};
use crate::ingest::stream::Streamed;
use crate::output::{self, Folder, HistoryCsv, HistoryFormat, StagedFile};
use crate::replay::{ReplayOptions, ReplayResult};
use crate::systems::{ParamMap, RatingSystem, SystemKind, SystemVisitor, dispatch};
use crate::truth::RmseSeries;
use anyhow::Context as _;
use indicatif::ProgressBar;
use std::io::Write;
use std::path::PathBuf;
use std::sync::mpsc::{Receiver, sync_channel};
use std::sync::{Arc, Mutex};
use std::time::Instant;

/// One system's replay of a loaded history, its files staged in a folder.
pub struct SystemJob<'a> {
    /// The system.
    pub system: SystemKind,
    /// Its parameters by name.
    pub params: &'a ParamMap,
    /// This system's rounds, warm-up, decay and as-of: the run's, with (compare) a preset's
    /// growth and rating period, or (resumed) the contests applied before skipped. The seeds
    /// are taken from the [`Loaded`] history.
    pub replay: &'a ReplayOptions,
    /// The run's options: what to write, and how.
    pub run: &'a RunOptions,
    /// A progress bar to drive, if any.
    pub bar: Option<ProgressBar>,
    /// `--resume` / `--save-state`.
    pub state: Option<StateJob<'a>>,
    /// With `--resume`: the previous `history.csv`, how many of its rows the state has
    /// applied (copied before the new rows) and the time of its last contest, if known.
    pub continue_history: Option<(PathBuf, u64, Option<i64>)>,
    /// A streamed input read once for several systems: this system's share of the blocks
    /// (taken by the replay). Without it a streamed replay reads the input itself.
    pub(crate) pieces: Mutex<Option<Receiver<Piece>>>,
    /// Whether `--ci` covers the leaderboard too (replay: yes; compare: no, the metrics
    /// only). Without it the leaderboard has the Hessian's rating intervals where the system
    /// has a Hessian.
    pub ci_ratings: bool,
    /// `--h2h N`: write `h2h.csv` for the top N of the leaderboard (0: not).
    pub h2h: usize,
    /// What the parameters took from the input (`--advantage auto`, TrueSkill's draw
    /// probability), for metrics.json.
    pub from_input: crate::auto::FromInput,
    /// `--site`: gather what the website shows.
    pub site: bool,
}

impl SystemJob<'_> {
    /// The top players whose rating trajectories (and each contest's metrics) are kept for
    /// the report (0: none).
    fn chart_players(&self) -> usize {
        if self.run.report { REPORT_PLAYERS } else { 0 }
    }
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
    /// A streamed input's players and size, known once it was read.
    pub streamed: Option<Arc<Streamed>>,
    /// A streamed input with `--resume`: the contests skipped as applied before.
    pub skipped_applied: Option<usize>,
    /// `--ci`: the intervals as in `metrics.json`.
    pub intervals: Option<serde_json::Value>,
    /// `--site`: the players' curves and last games, and metrics.json as written.
    pub site: Option<(super::site::SiteTrack, serde_json::Value)>,
    /// What its predictions did worse than knowing nothing ([`super::metrics_doc::warnings`]).
    pub warnings: Vec<String>,
}

impl SystemOutcome {
    /// The players (and source summary) of the input: the loaded history, or what a streamed
    /// replay read.
    pub fn input<'a>(&'a self, loaded: &'a Loaded) -> &'a History {
        self.streamed
            .as_ref()
            .map_or(&loaded.history, |s| &s.players)
    }

    /// Rounds per second over the whole replay.
    pub fn rounds_per_second(&self) -> f64 {
        self.result.rounds as f64 / self.replay_seconds.max(1e-9)
    }
}

/// Resumed, the metrics are the whole history's: so is what it held, besides this run's
/// input (`metrics.json`'s `history`).
fn whole_history(
    job: &SystemJob,
    rated: &super::sink::Rated,
    result: &ReplayResult,
) -> Option<super::metrics_doc::WholeHistory> {
    job.state
        .as_ref()
        .and_then(|s| s.resume)
        .map(|f| super::metrics_doc::WholeHistory {
            what: "the history the metrics cover: the runs resumed from and this one",
            contests: f.meta.applied.len() as u64 + rated.contests,
            placings: f.meta.history_rows + rated.placings,
            players: result.ratings.len(),
            rounds: result.rounds_total(),
        })
}

/// The leaderboard's rows: ratings moved by `--anchor`, the status rule as asked; refused
/// for a pooled history where one leaderboard is needed.
fn ranked_rows(
    job: &SystemJob,
    history: &History,
    result: &mut ReplayResult,
) -> anyhow::Result<Vec<output::LeaderRow>> {
    let shift = output::anchor_shift(history, result, &job.run.leaderboard).map_err(UsageError)?;
    if shift != 0.0 {
        for r in &mut result.ratings {
            r.mean += shift;
            r.display += shift;
        }
    }
    result.status_rule = job.run.leaderboard.status_rule(&result.status_rule);
    let rows = output::leaderboard_rows(history, result, &job.run.leaderboard);
    if (job.h2h > 0 || (job.ci_ratings && job.run.ci.is_some()))
        && output::is_pooled(history, &rows)
    {
        return Err(UsageError(
            "--h2h and --ci's ranks are among one leaderboard's players, and a pooled history \
             (--pool-by) has one per pool: replay each pool's games alone for them"
                .into(),
        )
        .into());
    }
    Ok(rows)
}

/// The leaderboard's intervals: from the fit's information (`bt`, `whr`), then with `--ci`
/// the bootstrap's (`metrics.json`'s `intervals`), and with `--h2h` too the bootstrap's
/// likelihood of superiority among the top.
fn add_intervals(
    loaded: &Loaded,
    job: &SystemJob,
    history: &History,
    rows: &mut [output::LeaderRow],
    result: &ReplayResult,
) -> anyhow::Result<(Option<serde_json::Value>, Option<Vec<f64>>)> {
    // From the fit's observed information (`bt`, `whr`) at the level asked.
    if let Some(sds) = &result.hessian_sds {
        let z = crate::numeric::normal_quantile(0.5 + job.run.ci_level / 2.0);
        for row in rows.iter_mut() {
            let (r, sd) = (row.rating.mean, sds[row.player as usize]);
            let rating = (r - z * sd, r + z * sd);
            row.interval = Some(output::Interval {
                rating,
                rank: None,
                group: None,
            });
        }
    }
    let Some(ci) = &job.run.ci else {
        return Ok((None, None));
    };
    // With --h2h and --ci: the bootstrap's likelihood of superiority among the top.
    let (ratings, superiority) = (job.ci_ratings)
        .then(|| rating_intervals(loaded, job, history, rows, ci))
        .transpose()?
        .unzip();
    let intervals = super::metrics_doc::intervals(&result.series.scores, ci, ratings);
    Ok((Some(intervals), superiority))
}

/// What a streamed input cannot give: refused before the replay.
fn refuse_streamed(loaded: &Loaded, job: &SystemJob) -> Result<(), UsageError> {
    let why = if loaded.stream.is_none() {
        return Ok(());
    } else if job.ci_ratings && job.run.ci.is_some() {
        "--ci replays the history once per replicate and needs it held in memory; this input \
         is streamed (give --stream off, or compare --ci for the metrics' intervals alone)"
    } else if job.h2h > 0 {
        "--h2h counts the games between the top players and needs the history held in \
         memory; this input is streamed (give --stream off)"
    } else {
        return Ok(());
    };
    Err(UsageError(why.into()))
}

/// Replays one system and stages `leaderboard.csv`, `metrics.json` and the history file in
/// `staged`, a folder of an output generation (published by the caller).
pub fn replay_system(
    loaded: &Loaded,
    job: &SystemJob,
    staged: &Folder,
) -> anyhow::Result<SystemOutcome> {
    refuse_streamed(loaded, job)?;
    let history = &loaded.history;
    let t1 = Instant::now();
    let mut sink = Sink {
        bar: job.bar.clone(),
        trajectory: (job.chart_players() > 0).then(Vec::new),
        truth: loaded
            .truth
            .as_ref()
            .map(|t| (history, t, RmseSeries::default())),
        site: job.site.then(super::site::SiteTrack::default),
        ..Sink::quiet()
    };
    let Ran {
        result,
        state: state_bytes,
        streamed,
        skipped,
        seeded,
    } = replay_writing_history(loaded, job, staged, &mut sink)?;
    let history = streamed.as_ref().map_or(history, |s| &s.players);
    let totals = totals(loaded, streamed.as_ref());
    if let Some(b) = &sink.bar {
        b.finish_and_clear();
    }
    let replay_time = t1.elapsed();
    // The RMSE against the true ratings (`--truth`) per measured round.
    let rmse = sink
        .truth
        .take()
        .map_or_else(Vec::new, |(_, _, mut series)| {
            series.close();
            series.points
        });
    let mut result = result;
    let mut rows = ranked_rows(job, history, &mut result)?;
    let (intervals, superiority) = add_intervals(loaded, job, history, &mut rows, &result)?;
    let doc = super::metrics_doc::document(
        (loaded, seeded),
        (history, totals),
        job.replay,
        &job.run.leaderboard,
        &result,
        &rmse,
        replay_time,
    );
    let warnings = super::metrics_doc::warnings(&result.metrics);
    let doc = super::metrics_doc::MetricsDocument {
        intervals: intervals.clone(),
        from_input: job.from_input.clone(),
        warnings: warnings.clone(),
        history: whole_history(job, &sink.rated, &result),
        ..doc
    };
    let metrics = serde_json::to_value(&doc)?;
    let done = output::Replayed {
        history,
        games: &loaded.history,
        rows: &rows,
        result: &result,
        metrics: &metrics,
        rmse: loaded.truth.as_ref().map(|_| rmse.as_slice()),
        superiority: superiority.as_deref(),
        leaderboard_format: job.run.leaderboard_format,
        h2h: job.h2h,
        predictions: job.run.predictions,
        rated: (job.replay.as_of, job.replay.skip_all_tied),
    };
    for file in output::SYSTEM_FILES {
        for name in file.wanted(&done) {
            super::write_file(staged, name, |w| file.write(name, &done, w))?;
        }
    }
    let site = sink.site.take().map(|track| (track, metrics));
    let trajectories = match sink.trajectory.take() {
        Some(points) => top_trajectories(history, &rows, job.chart_players(), &points),
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
        streamed,
        skipped_applied: skipped,
        intervals,
        site,
        warnings,
    })
}

/// `--ci` on the leaderboard: every row's rating and rank intervals and tie group, from the
/// bootstrap replicates of the history (held whole: a streamed input is refused); the
/// replicates that completed and failed, and the likelihoods of superiority among the top.
fn rating_intervals(
    loaded: &Loaded,
    job: &SystemJob,
    history: &History,
    rows: &mut [output::LeaderRow],
    ci: &crate::bootstrap::CiOptions,
) -> anyhow::Result<((u32, u32), Vec<f64>)> {
    let index = crate::history::NameIndex::new(history.names());
    let anchors: Vec<(PlayerId, f64)> = job
        .run
        .leaderboard
        .anchors
        .iter()
        .filter_map(|(name, r)| index.find(name).map(|p| (p, *r)))
        .collect();
    // The ranked entrants (the rows' first): ranks are among them.
    let board: Vec<PlayerId> = rows
        .iter()
        .take_while(|r| r.rank.is_some())
        .map(|r| r.player)
        .collect();
    let opts = ReplayOptions {
        seeds: loaded.seeds.clone(),
        ..job.replay.clone()
    };
    struct Intervals<'a> {
        history: &'a History,
        opts: &'a ReplayOptions,
        board: &'a [PlayerId],
        anchors: &'a [(PlayerId, f64)],
        display: bool,
        ci: &'a crate::bootstrap::CiOptions,
        top: usize,
    }
    impl SystemVisitor for Intervals<'_> {
        type Output = crate::bootstrap::RatingIntervals;
        fn visit<S: RatingSystem>(self, system: &S) -> Self::Output {
            crate::bootstrap::rating_intervals(
                self.history,
                system,
                self.opts,
                self.board,
                (self.anchors, self.display),
                self.ci,
                self.top,
            )
        }
    }
    let visitor = Intervals {
        history,
        opts: &opts,
        board: &board,
        anchors: &anchors,
        display: job.run.leaderboard.rank_by == output::RankBy::Display,
        ci,
        top: job.h2h,
    };
    let iv = dispatch(job.system, job.params, visitor).map_err(UsageError)?;
    if iv.replicates == 0 {
        anyhow::bail!(
            "--ci: every one of the {} bootstrap replicates ran away or was refused by {}; no \
             interval can be given",
            ci.replicates,
            job.system.name()
        );
    }
    for (k, row) in rows.iter_mut().take(board.len()).enumerate() {
        row.interval = Some(output::Interval {
            rating: iv.rating[k],
            rank: Some(iv.rank[k]),
            group: Some(iv.group[k]),
        });
    }
    Ok(((iv.replicates, iv.failed), iv.superiority))
}

/// The size of the input: the loaded history's, or what a streamed replay read.
pub(crate) fn totals(loaded: &Loaded, streamed: Option<&Arc<Streamed>>) -> super::load::Totals {
    streamed.map_or_else(
        || super::load::Totals::of(&loaded.history),
        |s| streamed_totals(s),
    )
}

/// The size of a streamed input, once read.
pub(crate) fn streamed_totals(s: &Streamed) -> super::load::Totals {
    super::load::Totals {
        contests: usize::try_from(s.contests).unwrap_or(usize::MAX),
        players: s.players.player_count(),
        placings: usize::try_from(s.placings).unwrap_or(usize::MAX),
    }
}

pub(crate) fn cannot_write(staged: &Folder, name: &str) -> String {
    format!("cannot write {}", staged.final_path(name).display())
}

/// The replay through the sink (rows are kept only when it takes them).
fn run(loaded: &Loaded, job: &SystemJob, sink: &mut Sink) -> anyhow::Result<Ran> {
    // The Hessian's intervals where the system has them, unless the bootstrap gives the
    // leaderboard's.
    let bootstrapped = job.ci_ratings && job.run.ci.is_some();
    let hessian_reference = (!bootstrapped).then(|| {
        job.run
            .leaderboard
            .anchors
            .iter()
            .map(|(name, _)| name.clone())
            .collect()
    });
    let opts = ReplayOptions {
        keep_history: !matches!(sink.rows, Rows::Drop)
            || sink.trajectory.is_some()
            || sink.truth.is_some(),
        seeds: loaded.seeds.clone(),
        series: job.chart_players() > 0 || job.run.predictions,
        hessian_reference,
        ..job.replay.clone()
    };
    if let Some(plan) = &loaded.stream {
        let shared = job
            .pieces
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .take();
        return replay_streamed(plan, opts.period, shared, |pieces| {
            let visitor = RunStream {
                pieces,
                contests: plan.contests,
                opts: &opts,
                sink,
                state: job.state.as_ref(),
                input: &plan.path,
                seeds: loaded.seed_list.as_deref(),
            };
            dispatch(job.system, job.params, visitor).map_err(UsageError)
        });
    }
    let visitor = RunReplay {
        history: &loaded.history,
        opts: &opts,
        observer: sink,
        state: job.state.as_ref(),
    };
    let (result, state) = dispatch(job.system, job.params, visitor)
        .map_err(UsageError)?
        .map_err(ReplayFailure::error)?;
    Ok(Ran {
        result,
        state,
        streamed: None,
        skipped: None,
        seeded: None,
    })
}

/// The replay with its rating history written in the format asked for.
fn replay_writing_history(
    loaded: &Loaded,
    job: &SystemJob,
    staged: &Folder,
    sink: &mut Sink,
) -> anyhow::Result<Ran> {
    match job.run.history_format {
        HistoryFormat::Csv => replay_writing_csv(loaded, job, staged, sink),
        HistoryFormat::None => run(loaded, job, sink),
        HistoryFormat::Parquet => replay_writing_parquet(loaded, job, staged, sink),
    }
}

/// `history.parquet` written a row group at a time by another thread as the replay hands over
/// rows (and, streamed, the names of new players before their rows).
fn replay_writing_parquet(
    loaded: &Loaded,
    job: &SystemJob,
    staged: &Folder,
    sink: &mut Sink,
) -> anyhow::Result<Ran> {
    let mut file = staged
        .open("history.parquet")
        .with_context(|| cannot_write(staged, "history.parquet"))?;
    let history = &loaded.history;
    let seasons = job.replay.seasons.is_some();
    let (rows_tx, rows_rx) = sync_channel::<Batch>(4);
    std::thread::scope(|scope| {
        let writer = scope.spawn(move || -> std::io::Result<StagedFile> {
            // On a write error this returns, the channel closes, and the replay's sends fail
            // (it carries on without history; the error is reported when joined).
            let mut parquet = output::HistoryParquet::new(history, seasons, &mut file);
            for batch in rows_rx {
                match batch {
                    Batch::Names(names) => parquet.add_names(&names),
                    Batch::Seasons(seasons) => {
                        seasons
                            .iter()
                            .for_each(|(n, name)| parquet.add_season(*n, name));
                    }
                    Batch::Rows(rows) => parquet.rows(&rows)?,
                }
            }
            parquet.finish()?;
            Ok(file)
        });
        sink.rows = Rows::Stream(rows_tx);
        let result = run(loaded, job, sink);
        sink.rows = Rows::Drop;
        finish_history(writer, result, staged, "history.parquet")
    })
}

/// Ends a replay that fed a history writer's thread (its channel closed by the caller): the
/// writer joined, the replay's error first, then the file's, then the file completed.
fn finish_history(
    writer: std::thread::ScopedJoinHandle<'_, std::io::Result<StagedFile>>,
    result: anyhow::Result<Ran>,
    staged: &Folder,
    name: &str,
) -> anyhow::Result<Ran> {
    let file = writer
        .join()
        .unwrap_or_else(|p| std::panic::resume_unwind(p));
    let result = result?;
    file.and_then(StagedFile::finish)
        .with_context(|| cannot_write(staged, name))?;
    Ok(result)
}

/// `history.csv` through a pipeline: the replay hands over rows, one thread formats them (a
/// large batch in pieces on rayon's threads), another writes the text and hands its buffers
/// back to be filled again, so that all three overlap (continuing the previous file with
/// `--resume`).
fn replay_writing_csv(
    loaded: &Loaded,
    job: &SystemJob,
    staged: &Folder,
    sink: &mut Sink,
) -> anyhow::Result<Ran> {
    let history = &loaded.history;
    let mut file = staged
        .open("history.csv")
        .with_context(|| cannot_write(staged, "history.csv"))?;
    let seasons = job.replay.seasons.is_some();
    let mut csv = match &job.continue_history {
        Some((previous, rows, last)) => {
            HistoryCsv::continuing(history, seasons, &mut file, previous, (*rows, *last))
                .with_context(|| {
                    format!(
                        "cannot append to {} (restore the history this state continues, or \
                         move it away and give --history-format none)",
                        previous.display()
                    )
                })?
        }
        None => HistoryCsv::new(history, seasons, &mut file)
            .with_context(|| cannot_write(staged, "history.csv"))?,
    };
    let (rows_tx, rows_rx) = sync_channel::<Batch>(4);
    let (text_tx, text_rx) = sync_channel::<Vec<String>>(4);
    // The writer hands the text's buffers back to the formatter, which fills them again.
    let (spent_tx, spent_rx) = std::sync::mpsc::channel::<Vec<String>>();
    std::thread::scope(|scope| {
        scope.spawn(move || {
            for batch in rows_rx {
                match batch {
                    Batch::Names(names) => csv.add_names(&names),
                    Batch::Seasons(seasons) => {
                        seasons
                            .iter()
                            .for_each(|(n, name)| csv.add_season(*n, name));
                    }
                    Batch::Rows(rows) => {
                        let mut pieces = spent_rx.try_recv().unwrap_or_default();
                        csv.rows_into(&rows, &mut pieces);
                        if text_tx.send(pieces).is_err() {
                            break;
                        }
                    }
                }
            }
        });
        let writer = scope.spawn(move || -> std::io::Result<StagedFile> {
            // On a write error the formatter stops when this channel closes, then the
            // replay's sends fail and it carries on without history.
            for pieces in text_rx {
                for text in &pieces {
                    file.write_all(text.as_bytes())?;
                }
                let _ = spent_tx.send(pieces);
            }
            Ok(file)
        });
        sink.rows = Rows::Stream(rows_tx);
        let result = run(loaded, job, sink);
        // Closing the channel ends the formatter, then the writer.
        sink.rows = Rows::Drop;
        finish_history(writer, result, staged, "history.csv")
    })
}

/// The (time, rating after) points of the first `n` ranked players of the leaderboard.
pub(crate) fn top_trajectories(
    history: &History,
    rows: &[output::LeaderRow],
    n: usize,
    points: &[(u32, u32, f32)],
) -> Vec<(String, Vec<(i64, f64)>)> {
    let top: Vec<PlayerId> = rows
        .iter()
        .filter(|r| r.rank.is_some())
        .take(n)
        .map(|r| r.player)
        .collect();
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

/// Players whose trajectories the report draws.
pub const REPORT_PLAYERS: usize = 10;

/// A visitor that only builds the system (to check its parameters early).
pub struct Noop;

impl SystemVisitor for Noop {
    type Output = ();
    fn visit<S: RatingSystem>(self, _: &S) {}
}
