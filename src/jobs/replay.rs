//! `replay`: one system over one history, its outputs published together, the state saved last.

use super::errors::UsageError;
use super::load::{check_replay_options, input_files, refuse_overwriting, same_file};
use super::options::RunOptions;
use super::resume::{CheckState, StateJob, cli_name};
use super::sink::progress;
use super::system::{Noop, SystemJob, SystemOutcome, replay_system};
use crate::history::History;
use crate::ingest::IngestOptions;
use crate::ingest::InputError;
use crate::output::{self, HistoryFormat, Publication};
use crate::replay::ReplayOptions;
use crate::state::StateFile;
use crate::systems::{ParamMap, ParamsOf, SystemKind, dispatch};
use anyhow::Context as _;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::time::Instant;

/// Everything `replay` needs.
#[derive(Clone, Debug)]
pub struct ReplayJob {
    /// How to read, replay and write.
    pub run: RunOptions,
    /// The rating system.
    pub system: SystemKind,
    /// Its parameters by name (unset ones keep their defaults).
    pub params: ParamMap,
    /// Leaderboard lines printed.
    pub top: usize,
    /// Only read and validate the input.
    pub dry_run: bool,
    /// `--save-state`: where to write the state after the run.
    pub save_state: Option<PathBuf>,
    /// `--resume`: the state to start from.
    pub resume: Option<PathBuf>,
    /// `--h2h N`: `h2h.csv` for the top N.
    pub h2h: usize,
    /// `--site DIR`: the static website.
    pub site: Option<PathBuf>,
}

/// Runs `replay`: reads the input, replays, writes the outputs (atomically), prints the top of
/// the leaderboard and the metrics.
pub fn run_replay(job: &ReplayJob, stdout: &mut dyn Write) -> anyhow::Result<()> {
    let t0 = Instant::now();
    check_job(job)?;
    // Hold the state's and the output folder's locks from before anything is read: a second
    // run on the same files fails here, at once. A dry run writes neither, so it takes neither
    // lock (nor makes the state's lock file): it may check an input while a run writes.
    let _state_lock = job
        .save_state
        .as_deref()
        .filter(|_| !job.dry_run)
        .map(output::FileLock::take)
        .transpose()
        .with_context(|| "cannot lock the state".to_string())?;
    let staged = (!job.dry_run)
        .then(|| Publication::begin(&job.run.out, &replay_outputs()))
        .transpose()
        .with_context(|| format!("cannot prepare {}", job.run.out.display()))?;
    let site = begin_site(job)?;
    let resume = job
        .resume
        .as_deref()
        .map(|path| read_state_for(path, job))
        .transpose()?;
    let loaded = load_input(job, resume.as_ref())?;
    let mut replay_opts = job.run.replay.clone();
    let mut skipped_applied = 0usize;
    // A streamed input's contests applied before are found as they come.
    if let Some(f) = resume.as_ref().filter(|_| loaded.stream.is_none()) {
        // See [`StateFile::already_applied`]; its errors name the input.
        let source = &loaded.history.source;
        let (skip, n) = f
            .already_applied(&loaded.history)
            .map_err(|(origin, m)| super::errors::at_origin(source, origin, m))?;
        skipped_applied = n;
        replay_opts.skip = Some(std::sync::Arc::new(skip));
    }
    let Some(staged) = staged else {
        return dry_run(job, &loaded, resume.as_ref(), stdout);
    };
    let (params, from_input) = resolved_params(job, resume.as_ref(), &loaded, &replay_opts)?;
    // A system that cannot rate a contest of the input is refused before it rates a round
    // (a stream's contests are checked as they come: its history here has none).
    if let Some(why) = dispatch(
        job.system,
        &params,
        crate::replay::FirstRefusal(&loaded.history, &replay_opts),
    )
    .map_err(UsageError)?
    {
        return Err(UsageError(format!("{why}; nothing was replayed")).into());
    }
    let system_job = system_job(
        job,
        (&params, from_input),
        &loaded,
        &replay_opts,
        resume.as_ref(),
    );
    let outcome = replay_system(&loaded, &system_job, &staged.root())?;
    super::metrics_doc::print_warnings(job.system.name(), &outcome.warnings);
    if job.run.report {
        let input = super::report_input::report_input(
            &loaded,
            &[(job.system.name(), &outcome)],
            job.run.ci.as_ref(),
        );
        let write = |w: &mut dyn Write| output::report::write_report(w, &input);
        super::write_file(&staged.root(), "report.html", write)?;
    }
    let site_pages = write_site_pages(job, site.as_ref(), &outcome, &loaded)?;
    let written = publish(job, staged, site, &outcome)?;
    let done = Done {
        site: job.site.as_deref().zip(site_pages),
        history: outcome.input(&loaded),
        contests: super::system::totals(&loaded, outcome.streamed.as_ref()).contests,
        outcome: &outcome,
        from_input: &system_job.from_input,
        written: &written,
        skipped_applied: outcome.skipped_applied.unwrap_or(skipped_applied),
        seconds: t0.elapsed().as_secs_f64(),
    };
    let printed = if job.run.json {
        done.print_json(job, stdout)
    } else if !job.run.quiet {
        done.print_text(job, stdout)
    } else {
        Ok(())
    };
    super::release((loaded, outcome));
    printed
}

/// Reads the input (a resumed run's known players interned first), whole or as a stream plan.
fn load_input(job: &ReplayJob, resume: Option<&StateFile>) -> anyhow::Result<super::load::Loaded> {
    let ingest_opts = IngestOptions {
        known_players: resume.map(|f| f.meta.players.clone()).unwrap_or_default(),
        ..job.run.ingest.clone()
    };
    let state = job.resume.is_some() || job.save_state.is_some();
    let report = job.run.report || job.run.predictions || job.site.is_some();
    super::load::load_or_stream(&job.run, &ingest_opts, &job.run.replay, report, state)
}

/// Refuses to resume the state at `path` in a run that would end (`--as-of`) before its last
/// contest, or drop the `history.csv` it continues by writing another history format (the
/// folder keeps only the files a run writes).
fn resumable_here(job: &ReplayJob, path: &Path, state: &StateFile) -> Result<(), UsageError> {
    if let (Some(as_of), Some((last, _))) = (job.run.replay.as_of, &state.meta.watermark)
        && *last >= as_of
    {
        return Err(UsageError(format!(
            "cannot resume from {}: its last contest ({}) is after the end of --as-of ({}): \
             a resumed run cannot end before its state",
            path.display(),
            crate::time::format_time(*last),
            crate::time::format_time(as_of - 1)
        )));
    }
    let csv = job.run.out.join("history.csv");
    let format = job.run.history_format;
    if state.meta.history_rows > 0
        && format != HistoryFormat::Csv
        && std::fs::symlink_metadata(&csv).is_ok_and(|m| m.is_file())
    {
        return Err(UsageError(format!(
            "{} holds the history this state continues, and --history-format {} would drop \
             it: give --history-format csv to continue it, or move it away first",
            csv.display(),
            cli_name(format)
        )));
    }
    Ok(())
}

/// `--dry-run`: the input read and checked (against the state resumed from too), what it
/// holds printed (and that it is valid), nothing written.
fn dry_run(
    job: &ReplayJob,
    loaded: &super::load::Loaded,
    resume: Option<&StateFile>,
    stdout: &mut dyn Write,
) -> anyhow::Result<()> {
    // Streamed, a dry run reads the input once more for its players (the counting pass
    // has validated it, and checked its order), holding only their names, and checks it
    // against the state resumed from as a whole read does.
    let streamed = loaded
        .stream
        .as_ref()
        .map(|plan| dry_run_streamed(plan, resume))
        .transpose()?;
    if job.run.quiet {
        return Ok(());
    }
    let (history, totals) = match &streamed {
        Some(read) => (&read.players, super::system::streamed_totals(read)),
        None => (&loaded.history, super::load::Totals::of(&loaded.history)),
    };
    let src = &history.source;
    writeln!(
        stdout,
        "{}: {} format, {} {} read, {} contests, {} players, {} placings; input is valid",
        src.path,
        src.format,
        src.records,
        src.record_unit,
        totals.contests,
        totals.players,
        totals.placings
    )?;
    print_skipped(stdout, history)?;
    Ok(())
}

/// Publishes the outputs, then the website (a site never shows a run whose files were not
/// published), then the state (if this fails, the next run resumes from the previous state
/// and recomputes the same outputs); the files written.
fn publish(
    job: &ReplayJob,
    staged: Publication,
    site: Option<(Publication, EarlierSite)>,
    outcome: &SystemOutcome,
) -> anyhow::Result<Vec<PathBuf>> {
    let written = staged
        .commit()
        .with_context(|| format!("cannot publish the outputs in {}", job.run.out.display()))?;
    if let Some((publication, _)) = site {
        let dir = job.site.as_ref().expect("a site");
        publication
            .commit()
            .with_context(|| format!("cannot publish the site in {}", dir.display()))?;
    }
    if let (Some(path), Some(bytes)) = (&job.save_state, &outcome.state_bytes) {
        output::write_one(path, |w| w.write_all(bytes))
            .with_context(|| format!("cannot write the state {}", path.display()))?;
    }
    Ok(written)
}

/// The options, the paths and the system's parameters, checked before anything is read.
fn check_job(job: &ReplayJob) -> anyhow::Result<()> {
    check_replay_options(&job.run.replay)?;
    let checkable = crate::first_side::checkable(job.system, &job.params).map_err(UsageError)?;
    dispatch(job.system, &checkable, Noop).map_err(UsageError)?;
    check_paths(job)?;
    let state = job.resume.is_some() || job.save_state.is_some();
    let why = if job.run.replay.period == crate::replay::Period::Event && state {
        "--period event with --save-state or --resume: an event may go on in the next input, \
         and its games are one round; rate nightly by --period month (the period of FIDE's \
         rating lists) or day"
    } else if job.run.ci.is_some() && job.resume.is_some() {
        "--ci replays the whole history once per replicate, and a resumed run holds only the \
         contests it has not applied: replay the whole input without --resume"
    } else {
        return Ok(());
    };
    Err(UsageError(why.into()).into())
}

/// The website's publication, with the previous run's ranks and (resumed) its head-to-head
/// tallies and last games.
fn begin_site(job: &ReplayJob) -> anyhow::Result<Option<(Publication, EarlierSite)>> {
    // The website's folder: locked from the start too, its previous ranks read before any
    // of it is replaced.
    Ok(match (&job.site, job.dry_run) {
        (Some(dir), false) => Some((
            Publication::begin(dir, SITE_OUTPUTS)
                .with_context(|| format!("cannot prepare {}", dir.display()))?,
            (
                super::site::previous_ranks(dir),
                // A resumed run's input may hold only the new games: the earlier run's
                // head-to-head tallies and last games are read back.
                job.resume
                    .as_ref()
                    .and_then(|_| super::site::earlier_site(dir)),
            ),
        )),
        _ => None,
    })
}

/// The system's parameters: resumed, those the state was made with, as resolved then (what
/// `auto` and the draw rate took from that night's input is kept); otherwise resolved from
/// this input.
fn resolved_params(
    job: &ReplayJob,
    resume: Option<&StateFile>,
    loaded: &super::load::Loaded,
    replay_opts: &ReplayOptions,
) -> anyhow::Result<(ParamMap, crate::auto::FromInput)> {
    Ok(match resume.and_then(super::resume::resumed_params) {
        Some(kept) => {
            let file = job.resume.as_deref().unwrap_or(Path::new("")).display();
            kept.map_err(|m| InputError::whole_file(file.to_string(), m))?
        }
        None => {
            let mut params = job.params.clone();
            let from_input = crate::auto::resolve(
                job.system,
                &mut params,
                loaded.stream.is_none().then_some(&loaded.history),
                super::load::draw_counts(loaded, replay_opts),
                replay_opts,
            )
            .map_err(UsageError)?;
            (params, from_input)
        }
    })
}

/// Writes the website's pages and side files into its publication; the number of players
/// with a page.
fn write_site_pages(
    job: &ReplayJob,
    site: Option<&(Publication, EarlierSite)>,
    outcome: &SystemOutcome,
    loaded: &super::load::Loaded,
) -> anyhow::Result<Option<usize>> {
    Ok(match (site, &outcome.site) {
        (Some((publication, (previous, earlier_site))), Some((track, metrics))) => {
            let history = outcome.input(loaded);
            // Resumed: the earlier runs' rows, from the history file this run continues (the
            // previous generation's, still in place), come before this run's.
            let earlier = match (&job.resume, job.run.history_format) {
                (Some(_), HistoryFormat::Csv) => {
                    output::open_no_follow(&job.run.out.join("history.csv"))
                        .ok()
                        .map(|file| {
                            let mut t = super::site::SiteTrack::default();
                            t.earlier_rows(file, history.names());
                            t
                        })
                }
                _ => None,
            };
            let merged = earlier.map(|e| e.then(track.clone()));
            let track = merged.as_ref().unwrap_or(track);
            let (data, tallies) = super::site::site_data(&super::site::SiteInput {
                history,
                rows: &outcome.rows,
                result: &outcome.result,
                track,
                previous,
                ci_level: job.run.ci_level,
                as_of: job.run.replay.as_of,
                metrics,
                earlier: earlier_site.as_ref(),
            });
            let root = publication.root();
            let dir = || job.site.as_ref().expect("a site").display().to_string();
            output::site::write_site(&root, &data)
                .with_context(|| format!("cannot write the site in {}", dir()))?;
            root.write("ranks.csv", |w| {
                super::site::write_ranks(w, history, &outcome.rows)
            })
            .and_then(|()| root.write("h2h.csv", |w| super::site::write_h2h(w, history, &tallies)))
            .and_then(|()| root.write("recent.csv", |w| super::site::write_recent(w, &data)))
            .with_context(|| format!("cannot write the site in {}", dir()))?;
            Some(data.players.len())
        }
        _ => None,
    })
}

/// What a site run starts from: the previous run's ranks by name and, resumed, the earlier
/// runs' head-to-head tallies and last games.
type EarlierSite = (
    rustc_hash::FxHashMap<String, u32>,
    Option<super::site::EarlierSite>,
);

/// The second pass of a streamed dry run: the players, and with `--resume` the check of the
/// input against the state (contest by contest, block by block).
fn dry_run_streamed(
    plan: &super::stream::StreamPlan,
    resume: Option<&crate::state::StateFile>,
) -> anyhow::Result<crate::ingest::stream::Streamed> {
    let mut check = resume.map(|f| crate::state::AppliedCheck::new(&f.meta));
    // The names of the blocks before (each block names only its new players).
    let mut names = rate_batch_core::replay::NameList::default();
    let mut refused: Option<String> = None;
    let mut send = |block: History| {
        if let Some(check) = &mut check {
            for (c, d) in super::stream::block_digests(&block, &names) {
                if let Err(m) = check.contest(&block, &c, d) {
                    refused = Some(m);
                    return false;
                }
            }
            names.extend(block.names().iter().map(String::as_str));
        }
        true
    };
    let read = crate::ingest::stream::stream(
        &plan.path,
        plan.format,
        &plan.opts,
        crate::replay::Period::Game,
        plan.block,
        &mut send,
    );
    let bad = |m: String| InputError::whole_file(plan.path.display().to_string(), m);
    if let Some(m) = refused {
        return Err(bad(m).into());
    }
    let read = read?;
    check
        .map(crate::state::AppliedCheck::finish)
        .transpose()
        .map_err(bad)?;
    Ok(read)
}

/// The one-system job of a replay: its state handling, where the history continues, and a
/// progress bar for bigger inputs (on a terminal only).
fn system_job<'a>(
    job: &'a ReplayJob,
    (params, from_input): (&'a ParamMap, crate::auto::FromInput),
    loaded: &super::load::Loaded,
    replay_opts: &'a ReplayOptions,
    resume: Option<&'a crate::state::StateFile>,
) -> SystemJob<'a> {
    // A streamed input's contests are counted, its placings not yet.
    let (contests, placings) = match &loaded.stream {
        Some(plan) => (plan.contests, plan.contests * 2),
        None => (loaded.history.len(), loaded.history.placings()),
    };
    let bar = match &loaded.stream {
        // Read once: nothing is known of the size before the end.
        Some(plan) if plan.counted.is_none() => progress(None, job.run.quiet),
        _ => (placings > 200_000)
            .then(|| progress(Some(contests as u64), job.run.quiet))
            .flatten(),
    };
    SystemJob {
        system: job.system,
        params,
        replay: replay_opts,
        run: &job.run,
        state: (resume.is_some() || job.save_state.is_some()).then(|| StateJob {
            resume,
            save: job.save_state.is_some(),
            resume_path: job.resume.as_deref(),
            asked: super::resume::asked(&job.params),
            from_input: serde_json::to_string(&from_input).unwrap_or_default(),
        }),
        continue_history: match (resume, job.run.history_format) {
            (Some(f), HistoryFormat::Csv) => {
                let last = f.meta.watermark.as_ref().map(|w| w.0);
                Some((job.run.out.join("history.csv"), f.meta.history_rows, last))
            }
            _ => None,
        },
        bar,
        pieces: Default::default(),
        ci_ratings: true,
        h2h: job.h2h,
        from_input,
        site: job.site.is_some(),
    }
}

/// A finished replay, as reported on stdout.
struct Done<'a> {
    /// `--site`: its folder and the player pages written.
    site: Option<(&'a Path, usize)>,
    history: &'a History,
    /// Contests read.
    contests: usize,
    outcome: &'a SystemOutcome,
    /// What the parameters took from the input (this night's, or the state's).
    from_input: &'a crate::auto::FromInput,
    written: &'a [PathBuf],
    skipped_applied: usize,
    seconds: f64,
}

impl Done<'_> {
    /// `--log-format json`: one object.
    fn print_json(&self, job: &ReplayJob, stdout: &mut dyn Write) -> anyhow::Result<()> {
        let (history, result) = (self.history, &self.outcome.result);
        let src = &history.source;
        let doc = serde_json::json!({
            "status": "ok",
            "system": result.system,
            "input": src.path,
            "contests_read": self.contests,
            "contests_applied": self.contests - self.skipped_applied,
            "contests_skipped_as_applied_before": self.skipped_applied,
            "records_skipped_invalid": src.skipped_invalid,
            "records_skipped_unfinished": src.skipped_unfinished,
            "players": self.outcome.rows.len(),
            "rounds": result.rounds_total(),
            "rounds_rated_now": result.rounds,
            "metrics": result.metrics,
            "intervals": self.outcome.intervals,
            "warnings": self.outcome.warnings,
            "written": super::shown(self.written),
            "site": self.site.map(|(d, n)| serde_json::json!({"folder": d.display().to_string(), "player_pages": n})),
            "state": job.save_state.as_ref().map(|p| p.display().to_string()),
            "seconds": self.seconds,
        });
        writeln!(stdout, "{doc}")?;
        Ok(())
    }

    /// The text report: what was replayed, the top of the leaderboard, the metrics, the files.
    fn print_text(&self, job: &ReplayJob, stdout: &mut dyn Write) -> anyhow::Result<()> {
        let (history, result, rows) = (self.history, &self.outcome.result, &self.outcome.rows);
        writeln!(
            stdout,
            "{} on {}: {} contests, {} players, {} rounds ({} period)",
            result.system,
            history.source.path,
            self.contests,
            rows.len(),
            result.rounds_total(),
            cli_name(job.run.replay.period)
        )?;
        print_skipped(stdout, history)?;
        print_time_model(stdout, &job.run.replay, result.system)?;
        if let Some(line) = self.from_input.summary() {
            let when = if job.resume.is_some() {
                "kept from the state resumed"
            } else {
                "taken from the input"
            };
            writeln!(stdout, "{when}: {line}")?;
        }
        if let Some(path) = &job.resume {
            writeln!(
                stdout,
                "resumed from {}: {} contests applied before were skipped",
                path.display(),
                self.skipped_applied
            )?;
        }
        writeln!(stdout)?;
        output::print_summary(stdout, history, result, rows, job.top)?;
        if let Some(iv) = &self.outcome.intervals {
            output::print_intervals(stdout, iv)?;
        }
        writeln!(stdout)?;
        writeln!(stdout, "Wrote {}", super::shown(self.written).join(", "))?;
        if let Some((dir, pages)) = self.site {
            writeln!(
                stdout,
                "Published the site in {} (index.html, {pages} player pages)",
                dir.display()
            )?;
        }
        Ok(())
    }
}

/// The files `replay` writes in its output folder (a previous run's files of these names are
/// replaced, or removed when this run does not write them): the history, the report and the
/// system's files, in the order the fallback without a swap renames them.
pub fn replay_outputs() -> Vec<&'static str> {
    let mut names = vec!["history.csv", "history.parquet", "report.html"];
    names.extend(output::system_file_names());
    names
}

/// The entries `--site` writes in its folder (the rest of a folder is carried over).
pub const SITE_OUTPUTS: &[&str] = &[
    "index.html",
    "metrics.html",
    "style.css",
    "names.js",
    "ranks.csv",
    "h2h.csv",
    "recent.csv",
    "players",
    "ranks",
];

/// Refuses a state file that is one of the inputs (the input would be overwritten), and an
/// output folder that is the input folder.
pub(crate) fn check_paths(job: &ReplayJob) -> Result<(), UsageError> {
    let run = &job.run;
    let inputs = input_files(&run.input, &run.ingest)
        .chain(
            run.initial_ratings
                .as_deref()
                .map(|p| ("--initial-ratings", p)),
        )
        .chain(run.truth.as_deref().map(|p| ("--truth", p)));
    if let Some(state) = &job.save_state {
        refuse_overwriting(("--save-state", state, "the state"), inputs)?;
    }
    if let Some(site) = &job.site {
        if same_file(site, &job.run.out) || site == &job.run.out {
            return Err(UsageError(format!(
                "--site {} is the output folder: give the website a folder of its own",
                site.display()
            )));
        }
        // The outputs are swapped in as one folder: a site inside it would be swapped away,
        // and outputs inside the site's folder would be published beside its pages.
        if let Some((inner, outer)) = nested(site, &job.run.out) {
            return Err(UsageError(format!(
                "--site {} and --out {}: {inner} is inside {outer}; give the website and the \
                 outputs folders side by side",
                site.display(),
                job.run.out.display()
            )));
        }
        if job.run.input.is_dir() && same_file(&job.run.input, site) {
            return Err(UsageError(format!(
                "--site {} is the input folder: the site replaces the folder's content",
                site.display()
            )));
        }
    }
    if job.run.input.is_dir() && same_file(&job.run.input, &job.run.out) {
        return Err(UsageError(format!(
            "--out {} is the input folder: the outputs replace the folder's content",
            job.run.out.display()
        )));
    }
    Ok(())
}

/// Which of two folders (named as given) is inside the other, when one is: each is resolved
/// through the folders of it that exist, the rest of its path taken as written.
fn nested(site: &Path, out: &Path) -> Option<(&'static str, &'static str)> {
    let resolved = |p: &Path| soft_canonicalize::soft_canonicalize(p).ok();
    let (s, o) = (resolved(site)?, resolved(out)?);
    if s != o && s.starts_with(&o) {
        Some(("the website's folder", "the output folder"))
    } else if s != o && o.starts_with(&s) {
        Some(("the output folder", "the website's folder"))
    } else {
        None
    }
}

/// What rounds and growth the replay went by, where it is not the plain default: an event a
/// round, the input's order, a rating period other than the system's month.
fn print_time_model(
    out: &mut dyn Write,
    opts: &ReplayOptions,
    system: &str,
) -> std::io::Result<()> {
    use crate::replay::{Growth, Period};
    if opts.period == Period::Event {
        writeln!(
            out,
            "rounds: each event's games rated as one, from the ratings before it, as a \
             federation rates a tournament (a PGN's Event and EventDate tags, a table's event \
             column)"
        )?;
    }
    if opts.input_order {
        writeln!(
            out,
            "order: the input's (--order input), as a server rated the games"
        )?;
    }
    match (opts.growth, opts.rating_period_days) {
        (Growth::Rounds, _) => writeln!(
            out,
            "growth: one rating period per round, whatever the time between (--growth rounds)"
        )?,
        (Growth::Fractional, Some(d)) => writeln!(
            out,
            "growth: {system}'s uncertainty grows with the fraction of a {d:.4}-day rating \
             period passed since each player's last game (--growth fractional)"
        )?,
        _ => {}
    }
    Ok(())
}

pub(crate) fn print_skipped(out: &mut dyn Write, h: &History) -> std::io::Result<()> {
    let s = &h.source;
    if let Some(reading) = s.time_format.as_deref().filter(|r| r.contains("integers")) {
        writeln!(out, "times: {reading}")?;
    }
    if s.untimed {
        writeln!(
            out,
            "times: none (no time column): the games are rated in the input's order, and the \
             outputs leave their times empty"
        )?;
    }
    if let Some(t) = s.one_time {
        writeln!(
            out,
            "times: every contest has the same time, {}: replayed in input order, and the outputs show that time",
            crate::time::format_time(t)
        )?;
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
    if s.duplicates_dropped > 0 {
        writeln!(
            out,
            "dropped {} contests that repeat one read before (--dedupe)",
            s.duplicates_dropped
        )?;
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

/// Reads a state for `--resume` and checks that it was made by the same system with the same
/// parameters and options.
fn read_state_for(path: &Path, job: &ReplayJob) -> anyhow::Result<StateFile> {
    let bad = |message: String| InputError::whole_file(path.display().to_string(), message);
    let mut f = output::open_no_follow(path)
        .with_context(|| format!("cannot read the state {}", path.display()))?;
    let state = StateFile::read(&mut f).map_err(bad)?;
    let m = &state.meta;
    let mut differences = Vec::new();
    if m.system != job.system.name() {
        differences.push(format!(
            "it was made with --system {}, this run uses {}",
            m.system,
            job.system.name()
        ));
    } else if !m.asked.is_empty() {
        // The parameters as asked: `--advantage auto` resumes whatever that night fitted.
        let asked = super::resume::asked(&job.params);
        if m.asked != asked {
            differences.push(format!(
                "it was made with the parameters {} (as given; {} as resolved), this run gives \
                 {asked}",
                m.asked, m.params
            ));
        }
    } else {
        // A state of a version before 7 keeps the parameters as resolved only.
        let params = dispatch(job.system, &job.params, ParamsOf)
            .map_err(UsageError)?
            .to_string();
        if m.params != params {
            differences.push(format!(
                "it was made with the parameters {}, this run has {params}",
                m.params
            ));
        }
    }
    if m.period != cli_name(job.run.replay.period) {
        differences.push(format!("it was made with --period {}", m.period));
    }
    if m.decay_per_day != job.run.replay.decay_per_day {
        let decay = m.decay_per_day;
        differences.push(format!("it was made with --decay-per-day {decay}"));
    }
    if m.growth() != cli_name(job.run.replay.growth) {
        let earlier = if m.growth.is_empty() {
            " (the growth of the earlier versions)"
        } else {
            ""
        };
        let growth = m.growth();
        differences.push(format!("it was made with --growth {growth}{earlier}"));
    }
    if m.rating_period_days != job.run.replay.rating_period_days {
        differences.push(match m.rating_period_days {
            Some(d) => format!("it was made with --rating-period {d}d"),
            None => "it was made without --rating-period".into(),
        });
    }
    if m.input_order != job.run.replay.input_order {
        let order = if m.input_order { "input" } else { "time" };
        differences.push(format!("it was made with --order {order}"));
    }
    if m.experienced_after != job.run.replay.experienced_after {
        differences.push("it counts experience differently".into());
    }
    // (A state before version 9 did not keep the season column.)
    let opts = &job.run.replay;
    if m.rules != opts.rules() && m.rules != opts.rules_with(None) {
        let rules = if m.rules.is_empty() {
            "draws rated and no seasons".to_string()
        } else {
            m.rules.clone()
        };
        differences.push(format!(
            "it was made with {rules} (--draws, --season-*, --map season=)"
        ));
    }
    if m.skip_all_tied != job.run.replay.skip_all_tied {
        let with = if m.skip_all_tied { "with" } else { "without" };
        differences.push(format!("it was made {with} --skip-all-tied"));
    }
    if !differences.is_empty() {
        return Err(UsageError(format!(
            "cannot resume from {}: {}",
            path.display(),
            differences.join("; ")
        ))
        .into());
    }
    // Every value, before anything else is read (by the system the state was made with).
    let params = match super::resume::resumed_params(&state) {
        Some(kept) => kept.map_err(bad)?.0,
        None => job.params.clone(),
    };
    dispatch(job.system, &params, CheckState(&state))
        .map_err(UsageError)?
        .map_err(bad)?;
    resumable_here(job, path, &state)?;
    Ok(state)
}
