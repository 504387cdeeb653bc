//! `compare`: one history, read once, replayed through several systems in parallel (the
//! history shared read-only), with a table of accuracy and speed side by side.
//!
//! Every system goes through exactly the code of `replay` ([`replay_system`]), so its
//! figures are the ones `replay` gives alone; its leaderboard and metrics go to
//! `OUT/SYSTEM/`. The table goes to `compare.csv`, `compare.json` and `compare.md` in `OUT`,
//! and with `--report` to `report.html`.

use super::compare_shard::entry;
use super::errors::{PartialFailure, UsageError};
use super::load::{Loaded, check_replay_options, load_or_stream, same_file};
use super::options::RunOptions;
use super::report_input::report_input;
use super::rows::{CompareRow, HEADER, METRICS};
use super::stream::{Piece, fan_out};
use super::system::totals;
use super::system::{Noop, SystemJob, SystemOutcome, replay_system};
use super::write_file;
use crate::auto::FromInput;
use crate::bootstrap::metric_replicates;
use crate::ingest::stream::Streamed;
use crate::output::{self, Publication};
use crate::replay::{FirstRefusal, ReplayOptions};
use crate::systems::{ParamMap, SystemKind, dispatch, parse_param};
use anyhow::Context as _;
use indicatif::{MultiProgress, ProgressBar, ProgressDrawTarget, ProgressStyle};
use rayon::prelude::*;
use std::io::{IsTerminal, Write};
use std::path::PathBuf;
use std::sync::mpsc::Receiver;
use std::sync::{Arc, Mutex, PoisonError};

/// Everything `compare` needs.
#[derive(Clone, Debug)]
pub struct CompareJob {
    /// How to read, replay and write (each system's history file: none by default).
    pub run: RunOptions,
    /// The systems, in the order of the table.
    pub systems: Vec<SystemKind>,
    /// Their names in the table and their folders' (same order): the system's, or
    /// `SYSTEM@LABEL` for an entry that `--systems` labels (one system compared with itself
    /// under other parameters or options).
    pub names: Vec<String>,
    /// Each system's parameters (same order).
    pub params: Vec<ParamMap>,
    /// Each system's (same order): `run.replay`, with a preset's growth and rating period.
    pub system_replay: Vec<ReplayOptions>,
    /// With `--advantage`: the systems that have no first-side advantage (compared without).
    pub without_advantage: Vec<SystemKind>,
    /// `--shard K/N`: replay only the systems `i` with `i % N == K - 1` of the list and write
    /// them with `compare-shard-K-of-N.json` for a later `--merge`.
    pub shard: Option<(usize, usize)>,
    /// `--merge FILE...`: the shards' rows and folders, instead of replaying here.
    pub merge: Vec<PathBuf>,
}

/// `all` or a comma-separated list of system names, each with a label or not
/// (`elo,elo@mov`): the systems and the entries' names.
pub fn parse_systems(text: &str) -> Result<(Vec<SystemKind>, Vec<String>), String> {
    if text.trim() == "all" {
        let names = SystemKind::ALL.iter().map(|k| k.name().to_string());
        return Ok((SystemKind::ALL.to_vec(), names.collect()));
    }
    let (mut systems, mut names) = (Vec::new(), Vec::<String>::new());
    for name in text.split(',').map(str::trim).filter(|n| !n.is_empty()) {
        let (system, label) = match name.split_once('@') {
            Some((s, l)) => (s.trim(), Some(l.trim())),
            None => (name, None),
        };
        let kind = SystemKind::from_name(system).ok_or_else(|| {
            let known: Vec<&str> = SystemKind::ALL.iter().map(|k| k.name()).collect();
            format!(
                "--systems: unknown system `{system}` (known: {}, or all)",
                known.join(", ")
            )
        })?;
        if let Some(l) = label
            && (l.is_empty()
                || !l
                    .bytes()
                    .all(|b| b.is_ascii_alphanumeric() || b"-_.".contains(&b)))
        {
            return Err(format!(
                "--systems: the label of `{name}` is not letters, digits, `-`, `_` and `.` (it \
                 names a folder)"
            ));
        }
        let entry = label.map_or_else(
            || kind.name().to_string(),
            |l| format!("{}@{l}", kind.name()),
        );
        if names.contains(&entry) {
            return Err(format!(
                "--systems: `{entry}` is listed twice (label one to compare a system with itself: \
                 {}@other)",
                kind.name()
            ));
        }
        systems.push(kind);
        names.push(entry);
    }
    if systems.is_empty() {
        return Err("--systems: no system given".into());
    }
    Ok((systems, names))
}

/// `SYSTEM:NAME=VALUE` parameters into one map per entry (in the order of `names`, the
/// entries' names: `elo:k=24`, `elo@mov:mov_multiplier=538`); a parameter of an entry that is
/// not compared is an error.
pub fn parse_system_params(specs: &[String], names: &[String]) -> Result<Vec<ParamMap>, String> {
    let mut maps = vec![ParamMap::new(); names.len()];
    for spec in specs {
        let (entry, rest) = spec
            .split_once(':')
            .ok_or_else(|| format!("--param `{spec}` is not of the form SYSTEM:NAME=VALUE"))?;
        let entry = entry.trim();
        let system = entry.split_once('@').map_or(entry, |(s, _)| s);
        SystemKind::from_name(system)
            .ok_or_else(|| format!("--param `{spec}`: unknown system `{system}`"))?;
        let k = names
            .iter()
            .position(|n| n == entry)
            .ok_or_else(|| format!("--param `{spec}`: {entry} is not among --systems"))?;
        parse_param(rest, &mut maps[k])?;
    }
    Ok(maps)
}

/// Runs `compare`.
pub fn run_compare(job: &CompareJob, stdout: &mut dyn Write) -> anyhow::Result<()> {
    check_job(job)?;
    let shard_file = job
        .shard
        .map(|(k, n)| super::shard::file_name("compare", k, n));
    // Every system's folder is the comparison's: one generation, swapped in at once.
    let mut owned: Vec<&str> = match &shard_file {
        Some(name) => vec![name.as_str()],
        None => vec!["compare.csv", "compare.json", "compare.md", "report.html"],
    };
    owned.extend(SystemKind::ALL.iter().map(|k| k.name()));
    owned.extend(job.names.iter().map(String::as_str));
    let staged = Publication::begin(&job.run.out, &owned)
        .with_context(|| format!("cannot prepare {}", job.run.out.display()))?;
    if !job.merge.is_empty() {
        return merge_shards(job, staged, stdout);
    }
    let part = job.shard.map(|(k, n)| shard_part(job, k, n));
    let (whole, job) = (job, part.as_ref().unwrap_or(job));
    let report = job.run.report || job.run.predictions;
    let loaded = load_or_stream(&job.run, &job.run.ingest, &job.run.replay, report, false)?;
    let (params, advantages, refused) = resolve_each(job, &loaded)?;
    let outcomes = replay_each(job, (&params, &advantages, &refused), &loaded, &staged)?;
    let (rows, done) = table_rows(job, &refused, outcomes)?;
    for r in &rows {
        super::metrics_doc::print_warnings(&r.system, &r.warnings);
    }
    // Every completed system's metrics re-summed with the same counts: paired.
    let reports: Option<Replicates> = job.run.ci.map(|ci| {
        let replicates = |o: &SystemOutcome| metric_replicates(&o.result.series.scores, &ci);
        done.iter().map(|o| o.as_ref().map(replicates)).collect()
    });
    // A streamed input's players and size are known once it was read (by a system that
    // replayed to the end: if none did, the table says only that they failed).
    let read: Option<Arc<Streamed>> = done.iter().flatten().find_map(|o| o.streamed.clone());
    let totals = totals(&loaded, read.as_ref());
    // `compare.json`'s description of the input.
    let described = serde_json::json!({
        "input": read.as_ref().map_or(&loaded.history, |r| &r.players).source,
        "contests": totals.contests,
        "players": totals.players,
        "placings": totals.placings,
        "ingest_seconds": loaded.ingest_time.as_secs_f64(),
    });
    if let Some(shard) = whole.shard {
        let tables = (rows, reports);
        return write_shard(whole, (job, shard), tables, described, staged, stdout);
    }
    let report = job.run.report.then(|| {
        let pairs: Vec<(&str, &SystemOutcome)> = (job.names.iter().zip(&done))
            .filter_map(|(name, o)| Some((name.as_str(), o.as_ref()?)))
            .collect();
        report_input(&loaded, &pairs, job.run.ci.as_ref())
    });
    let tables = (rows, reports.as_ref());
    finish(job, staged, tables, (&described, report), stdout)
}

/// Per system: its parameters resolved on the input, what was fitted, and why it cannot rate
/// the input.
type Resolved = (Vec<ParamMap>, Vec<FromInput>, Vec<Option<String>>);

/// Per system, with `--ci`, its metrics in every bootstrap replicate (none for a failed one).
type Replicates = Vec<Option<Vec<crate::metrics::MetricsReport>>>;

/// The options and parameters checked before anything is read.
fn check_job(job: &CompareJob) -> anyhow::Result<()> {
    check_replay_options(&job.run.replay)?;
    for (kind, params) in job.systems.iter().zip(&job.params) {
        let checkable = crate::first_side::checkable(*kind, params).map_err(UsageError)?;
        dispatch(*kind, &checkable, Noop).map_err(UsageError)?;
    }
    if job.run.input.is_dir() && same_file(&job.run.input, &job.run.out) {
        let out = job.run.out.display();
        let why =
            format!("--out {out} is the input folder: the outputs replace the folder's content");
        return Err(UsageError(why).into());
    }
    if job.run.report && (job.shard.is_some() || !job.merge.is_empty()) {
        let why = "--report draws every system's replay, which a shard or a merge does not hold: \
                   compare in one run for the report";
        return Err(UsageError(why.into()).into());
    }
    Ok(())
}

/// Each system's parameters resolved on the input (`--advantage auto`, TrueSkill's draw
/// probability), what was fitted, and why a system cannot rate the input, if it cannot.
fn resolve_each(job: &CompareJob, loaded: &Loaded) -> anyhow::Result<Resolved> {
    // `--advantage auto`, fitted for each system that has one; TrueSkill's draw probability.
    let mut params = job.params.clone();
    let counts = super::load::draw_counts(loaded, &job.run.replay);
    let history = loaded.stream.is_none().then_some(&loaded.history);
    let advantages = job.systems.iter().zip(params.iter_mut());
    let advantages = advantages
        .map(|(kind, map)| crate::auto::resolve(*kind, map, history, counts, &job.run.replay))
        .collect::<Result<_, _>>()
        .map_err(UsageError)?;
    // A system that cannot rate a contest of the input is refused before any replay (its
    // row says why, and what to use); a stream's contests are checked as they come (its
    // history here has none).
    let refused: Vec<Option<String>> = (job.systems.iter())
        .zip(&params)
        .zip(&job.system_replay)
        .map(|((kind, map), opts)| {
            dispatch(*kind, map, FirstRefusal(&loaded.history, opts)).map_err(UsageError)
        })
        .collect::<Result<_, _>>()?;
    if refused.iter().all(Option::is_some) {
        let reasons: Vec<&str> = refused.iter().flatten().map(String::as_str).collect();
        let why = format!("no system can rate this input: {}", reasons.join("; "));
        return Err(UsageError(why).into());
    }
    Ok((params, advantages, refused))
}

/// A shard's file: its systems' rows (and replicates with `--ci`), with their indices in the
/// whole `--systems` list; the shard's part of the job is `job`.
fn write_shard(
    whole: &CompareJob,
    (job, (k, n)): (&CompareJob, (usize, usize)),
    (rows, reports): (Vec<CompareRow>, Option<Replicates>),
    described: serde_json::Value,
    staged: Publication,
    stdout: &mut dyn Write,
) -> anyhow::Result<()> {
    let indices = super::shard::indices(whole.systems.len(), k, n);
    let systems = indices.into_iter().zip(&rows).enumerate();
    let systems = systems
        .map(|(j, (i, row))| entry(i, row, reports.as_ref().and_then(|r| r[j].as_ref())))
        .collect();
    let names: Vec<&str> = job.names.iter().map(String::as_str).collect();
    let done = format!(
        "{} of {} systems replayed ({})",
        rows.len(),
        whole.systems.len(),
        names.join(", ")
    );
    super::shard::publish(
        staged,
        &job.run.out,
        ("compare", k, n),
        &job_key(whole),
        vec![("input", described), ("systems", systems)],
        (!job.run.quiet).then_some(done),
        stdout,
    )
}

/// `--merge`: the shards' rows into the tables, their systems' folders copied, published.
fn merge_shards(
    job: &CompareJob,
    staged: Publication,
    stdout: &mut dyn Write,
) -> anyhow::Result<()> {
    let (merged, input) = super::compare_shard::merge(&job_key(job), &job.merge, &job.names)?;
    let (mut rows, mut replicates) = (Vec::new(), Vec::new());
    for (name, (row, folder, reps)) in job.names.iter().zip(merged) {
        if let Some(from) = folder {
            let to = staged
                .folder(name)
                .with_context(|| format!("cannot create {}", job.run.out.join(name).display()))?;
            super::compare_shard::copy_folder(&from, &to)
                .with_context(|| format!("cannot copy {}", from.display()))?;
        }
        rows.push(row);
        replicates.push(reps);
    }
    let tables = (rows, Some(&replicates));
    finish(job, staged, tables, (&input, None), stdout)
}

/// Writes `compare.csv`, `compare.json` (the input as `input` describes it, then the rows),
/// `compare.md` and, with `--report`, `report.html`, with `--ci` each metric's intervals from
/// the systems' `replicates`; publishes the comparison and says what it wrote (or why some
/// systems failed).
fn finish(
    job: &CompareJob,
    staged: Publication,
    (mut rows, replicates): (Vec<CompareRow>, Option<&Replicates>),
    (input, report): (&serde_json::Value, Option<output::report::ReportInput>),
    stdout: &mut dyn Write,
) -> anyhow::Result<()> {
    if let (Some(ci), Some(replicates)) = (&job.run.ci, replicates) {
        super::rows::add_intervals(&mut rows, replicates, ci.level);
    }
    let table = markdown(&rows);
    let root = staged.root();
    write_file(&root, "compare.csv", |w| write_csv(w, &rows))?;
    let mut doc = input.clone();
    doc["systems"] = serde_json::to_value(&rows).map_err(std::io::Error::other)?;
    write_file(&root, "compare.json", |w| output::write_metrics(w, &doc))?;
    write_file(&root, "compare.md", |w| w.write_all(table.as_bytes()))?;
    if let Some(report) = report {
        write_file(&root, "report.html", |w| {
            output::report::write_report(w, &report)
        })?;
    }
    let written = (staged.commit())
        .with_context(|| format!("cannot publish the outputs in {}", job.run.out.display()))?;
    let written = super::shown(written.iter().filter(|p| p.parent() == Some(&job.run.out)));
    let failed: Vec<&str> = rows
        .iter()
        .filter(|r| r.failed.is_some())
        .map(|r| r.system.as_str())
        .collect();
    let path = input["input"]["path"].as_str().unwrap_or("");
    if job.run.json {
        let doc = serde_json::json!({
            "status": if failed.is_empty() { "ok" } else { "partial" },
            "input": path,
            "systems": rows,
            "written": written,
        });
        writeln!(stdout, "{doc}")?;
    } else if !job.run.quiet {
        let merged = if job.merge.is_empty() {
            ""
        } else {
            " (merged from shards)"
        };
        writeln!(
            stdout,
            "{path}: {} contests, {} players, {} placings{merged}\n\n{table}",
            input["contests"], input["players"], input["placings"]
        )?;
        writeln!(
            stdout,
            "Wrote {}, and each system's leaderboard.csv and metrics.json in {}/SYSTEM/",
            written.join(", "),
            job.run.out.display()
        )?;
    }
    if !failed.is_empty() {
        return Err(PartialFailure(format!(
            "compare: {} of {} systems failed ({}); the other rows are complete",
            failed.len(),
            rows.len(),
            failed.join(", ")
        ))
        .into());
    }
    Ok(())
}

/// A progress bar per system, on a terminal (each taken by the system's replay).
fn progress_bars(job: &CompareJob, contests: usize) -> Vec<Mutex<Option<ProgressBar>>> {
    let multi = (!job.run.quiet && std::io::stderr().is_terminal())
        .then(|| MultiProgress::with_draw_target(ProgressDrawTarget::stderr()));
    job.names
        .iter()
        .map(|name| {
            Mutex::new(multi.as_ref().map(|m| {
                let bar = m.add(ProgressBar::new(contests as u64));
                bar.set_style(
                    ProgressStyle::with_template(&format!(
                        "{name:>16} {{bar:40}} {{pos}}/{{len}} contests ({{eta}} left)"
                    ))
                    .unwrap_or_else(|_| ProgressStyle::default_bar()),
                );
                bar
            }))
        })
        .collect()
}

/// Every system replayed into its own folder of the publication, in parallel; a streamed
/// input read once for all of them ([`fan_out`]: its reader's error stops the whole
/// comparison, a system that ran away gets its failed row).
fn replay_each(
    job: &CompareJob,
    (params, advantages, refused): (&[ParamMap], &[FromInput], &[Option<String>]),
    loaded: &Loaded,
    staged: &Publication,
) -> anyhow::Result<Vec<anyhow::Result<SystemOutcome>>> {
    let contests = loaded
        .stream
        .as_ref()
        .map_or(loaded.history.len(), |p| p.contests);
    let bars = progress_bars(job, contests);
    let one = |k: usize, pieces: Option<Receiver<Piece>>| {
        let bar = bars[k]
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .take();
        let kind = job.systems[k];
        // Not replayed: its row says why.
        if let Some(why) = &refused[k] {
            return Err(anyhow::anyhow!("{why}"));
        }
        let dir = job.run.out.join(&job.names[k]);
        let folder = staged
            .folder(&job.names[k])
            .with_context(|| format!("cannot create {}", dir.display()))?;
        let sys_job = SystemJob {
            site: false,
            system: kind,
            params: &params[k],
            replay: &job.system_replay[k],
            run: &job.run,
            bar,
            state: None,
            continue_history: None,
            pieces: Mutex::new(pieces),
            ci_ratings: false,
            h2h: 0,
            from_input: advantages[k].clone(),
        };
        let outcome = replay_system(loaded, &sys_job, &folder);
        if outcome.is_err() {
            // A failed system leaves no folder (nor an old one) behind.
            let _ = folder.discard();
        }
        outcome
    };
    match &loaded.stream {
        Some(plan) => fan_out(plan, job.run.replay.period, bars.len(), |k, pieces| {
            one(k, Some(pieces))
        }),
        None => Ok((0..bars.len())
            .into_par_iter()
            .map(|k| one(k, None))
            .collect()),
    }
}

/// The table's rows and, for a system that replayed to the end, what it produced: a system
/// refused before the replay gets a `refused` row, one whose ratings ran away a `failed` row;
/// any other error stops the run.
fn table_rows(
    job: &CompareJob,
    refused: &[Option<String>],
    outcomes: Vec<anyhow::Result<SystemOutcome>>,
) -> anyhow::Result<(Vec<CompareRow>, Vec<Option<SystemOutcome>>)> {
    let mut rows = Vec::with_capacity(outcomes.len());
    let mut done = Vec::with_capacity(outcomes.len());
    for ((name, outcome), refused) in job.names.iter().zip(outcomes).zip(refused) {
        let (row, outcome) = match (refused, outcome) {
            (Some(why), _) => (CompareRow::refused(name, why.clone()), None),
            (None, Ok(o)) => (CompareRow::new(name, &o), Some(o)),
            (None, Err(e)) => match e
                .chain()
                .find_map(|c| c.downcast_ref::<crate::replay::Divergence>())
            {
                Some(d) => (CompareRow::failed(name, d.to_string()), None),
                None => return Err(e),
            },
        };
        rows.push(row);
        done.push(outcome);
    }
    Ok((rows, done))
}

/// `compare.csv`: a row per system; with `--ci`, each metric's interval and standing.
fn write_csv(w: &mut dyn Write, rows: &[CompareRow]) -> std::io::Result<()> {
    let ci = rows.iter().any(|r| !r.intervals.is_empty());
    let mut header = vec!["system".to_string()];
    header.extend(METRICS.map(|m| m.0.to_string()));
    let more = [
        "wall_seconds",
        "rounds_per_second",
        "peak_rounds_per_second",
    ];
    header.extend(
        more.into_iter()
            .chain(["failed", "warnings"])
            .map(String::from),
    );
    if ci {
        for (name, ..) in METRICS {
            header.extend(["lo", "hi", "versus_best"].map(|s| format!("{name}_{s}")));
        }
    }
    let mut out = csv::Writer::from_writer(w);
    out.write_record(&header)?;
    let f = |v: Option<f64>| v.map_or(String::new(), |v| v.to_string());
    for r in rows {
        let mut record = vec![r.system.clone()];
        record.extend(r.points().map(f));
        let times = [
            r.wall_seconds,
            r.rounds_per_second,
            r.peak_rounds_per_second,
        ];
        record.extend(times.map(|v| f(Some(v).filter(|v| v.is_finite()))));
        record.extend([r.failure().unwrap_or_default(), r.warnings.join("; ")]);
        if ci {
            for (name, ..) in METRICS {
                let cells = r.interval(name).map(|m| {
                    [
                        m.lo.to_string(),
                        m.hi.to_string(),
                        m.versus_best.to_string(),
                    ]
                });
                record.extend(cells.unwrap_or_default());
            }
        }
        out.write_record(&record)?;
    }
    out.flush()
}

/// The table as Markdown (also what is printed).
pub fn markdown(rows: &[CompareRow]) -> String {
    let mut out = format!("| {} |\n", HEADER.join(" | "));
    out.push_str(&format!("|{}\n", "---|".repeat(HEADER.len())));
    for r in rows {
        out.push_str(&format!("| {} |\n", r.cells().join(" | ")));
    }
    if rows.iter().any(|r| !r.intervals.is_empty()) {
        out.push_str(
            "\nIntervals: bootstrap over contests (the same counts for every system). `*`: the \
             best system on the metric; `~`: not distinguishable from the best (the interval \
             of the paired difference holds 0).\n",
        );
    }
    let flagged: Vec<&CompareRow> = rows.iter().filter(|r| !r.warnings.is_empty()).collect();
    if !flagged.is_empty() {
        out.push_str("\n`!`: predicts worse than knowing nothing of the players:\n");
        for r in flagged {
            out.push_str(&format!("- {}: {}\n", r.system, r.warnings.join("; ")));
        }
    }
    out
}

/// The shard's part of the job: its systems (with their parameters and replay options).
fn shard_part(job: &CompareJob, k: usize, n: usize) -> CompareJob {
    let mine = super::shard::indices(job.systems.len(), k, n);
    CompareJob {
        systems: mine.iter().map(|&i| job.systems[i]).collect(),
        names: mine.iter().map(|&i| job.names[i].clone()).collect(),
        params: mine.iter().map(|&i| job.params[i].clone()).collect(),
        system_replay: mine.iter().map(|&i| job.system_replay[i].clone()).collect(),
        ..job.clone()
    }
}

/// What makes two runs the same comparison.
fn job_key(job: &CompareJob) -> serde_json::Value {
    let name =
        |p: &Option<PathBuf>| Some(p.as_deref()?.file_name()?.to_string_lossy().into_owned());
    let key = serde_json::json!({
        "systems": job.names,
        "params": job.params,
        "replay": format!("{:?}", job.run.replay),
        "ingest": format!("{:?}", job.run.ingest),
        "leaderboard": format!("{:?}", job.run.leaderboard),
        "history_format": format!("{:?}", job.run.history_format),
        "leaderboard_format": format!("{:?}", job.run.leaderboard_format),
        "predictions": job.run.predictions,
        "ci": format!("{:?}", job.run.ci),
        "initial_ratings": name(&job.run.initial_ratings),
        "truth": name(&job.run.truth),
    });
    super::shard::with_input(key, &job.run.input, job.run.ingest.more.len())
}
