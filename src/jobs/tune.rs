//! `tune`: hyperparameters chosen the way the Elo-MMR paper chose them. Every parameter set
//! (a grid, or random draws within the grid's ranges) is scored on the first 10 % of the
//! contests alone (replayed from scratch, every contest with a prior scored); the best set is
//! then replayed on the whole history and scored on the remaining 90 % only (the first 10 % as
//! warm-up), next to the defaults scored the same way. Parameter sets run in parallel.
//!
//! Nothing after the tuning slice can influence the choice: the slice is replayed on its own.

use super::errors::{PartialFailure, UsageError};
use super::load::{Loaded, check_replay_options};
use super::options::{OPTION_KEYS, RunOptions, set_options};
use super::resume::ReplayFailure;
use super::sink::Sink;
use super::stream::{RunStream, fan_out};
use crate::history::History;
use crate::ingest::stream::Streamed;
use crate::metrics::MetricsReport;
use crate::output::Publication;
use crate::replay::{ReplayOptions, replay};
use crate::systems::{
    ParamMap, ParamsOf, RatingSystem, SystemKind, SystemVisitor, dispatch, number,
};
use anyhow::Context as _;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use rayon::prelude::*;
use serde::Serialize;
use serde_json::Value;
use std::io::Write;
use std::path::PathBuf;
use std::sync::Arc;

/// What the parameter sets are ranked by.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum TuneMetric {
    /// Pair inversion of all scored participants (higher is better).
    Pair,
    /// Rank deviation of all scored participants (lower is better).
    Rankdev,
    /// Log-loss of the two-entry contests (lower is better).
    Logloss,
}

impl TuneMetric {
    /// The metric's value in a report (None when it was not measured).
    pub fn value(self, m: &MetricsReport) -> Option<f64> {
        match self {
            TuneMetric::Pair => m.all.pair_inversion,
            TuneMetric::Rankdev => m.all.rank_deviation,
            TuneMetric::Logloss => m.two_player.log_loss,
        }
    }

    /// True when `a` is better than `b`.
    fn better(self, a: f64, b: f64) -> bool {
        match self {
            TuneMetric::Pair => a > b,
            TuneMetric::Rankdev | TuneMetric::Logloss => a < b,
        }
    }
}

/// Everything `tune` needs.
#[derive(Clone, Debug)]
pub struct TuneJob {
    /// How to read, replay (rounds, decay; the warm-up is the tuning fraction) and whether to
    /// stream (the sets fed by one read, then the held-out replays by another); `tune.csv`
    /// goes to `run.out`, and none of the replays' outputs is written.
    pub run: RunOptions,
    /// The system.
    pub system: SystemKind,
    /// Parameter names and their candidate values (the grid).
    pub grid: Grid,
    /// Parameters every set starts from (a `--preset`'s), the grid's values over them; the
    /// held-out comparison's baseline.
    pub base: ParamMap,
    /// Draw this many sets at random within each parameter's range instead of the grid.
    pub random: Option<usize>,
    /// Seed of the random draws.
    pub seed: u64,
    /// The metric.
    pub metric: TuneMetric,
    /// Share of the contests, from the start, that the sets are scored on.
    pub fraction: f64,
    /// Result lines printed.
    pub top: usize,
    /// `--shard K/N`: score only the sets `i` with `i % N == K - 1` and write them to
    /// `tune-shard-K-of-N.json` for a later `--merge`.
    pub shard: Option<(usize, usize)>,
    /// `--merge FILE...`: the shards' scores, instead of scoring the sets here.
    pub merge: Vec<PathBuf>,
}

/// Parameter names and their candidate values: numbers, or words (`mov_multiplier=none,538`,
/// `draws=update,ignore`).
pub type Grid = Vec<(String, Vec<Value>)>;

/// A grid of numbers (a system's default grid) as a [`Grid`].
pub fn numeric_grid(grid: Vec<(String, Vec<f64>)>) -> Grid {
    let value = |v: f64| number(v).unwrap_or(Value::Null);
    (grid.into_iter())
        .map(|(name, vs)| (name, vs.into_iter().map(value).collect()))
        .collect()
}

/// Parses `k=16,24,32;scale=400`; a value that is not a number is a word
/// (`mov_multiplier=none,538`).
pub fn parse_grid(text: &str) -> Result<Grid, String> {
    let mut grid: Grid = Vec::new();
    for part in text.split(';').map(str::trim).filter(|p| !p.is_empty()) {
        let (name, values) = part
            .split_once('=')
            .ok_or_else(|| format!("--grid: `{part}` is not NAME=V1,V2,..."))?;
        let name = name.trim().replace('-', "_");
        let value = |v: &str| match v.trim() {
            "" => Err(format!("--grid: an empty value of {name}")),
            v => Ok(match v.parse::<f64>() {
                Ok(x) if x.is_finite() => number(x).unwrap_or(Value::Null),
                Ok(_) => return Err(format!("--grid: `{v}` of {name} is not a finite number")),
                Err(_) => Value::String(v.to_string()),
            }),
        };
        let values = values.split(',').map(value);
        let values = values.collect::<Result<Vec<Value>, String>>()?;
        if grid.iter().any(|(n, _)| *n == name) {
            return Err(format!("--grid: {name} is given twice"));
        }
        grid.push((name, values));
    }
    if grid.is_empty() {
        return Err("--grid: no parameter given".into());
    }
    Ok(grid)
}

/// The parameter sets: every combination of the grid, or `random` draws uniform within each
/// parameter's [min, max] (rounded to integers when all its values are integers), or, for a
/// parameter with a word among its values, one of its values drawn uniformly.
pub fn parameter_sets(
    grid: &[(String, Vec<Value>)],
    random: Option<usize>,
    seed: u64,
) -> Vec<ParamMap> {
    let value = |v: f64| number(v).unwrap_or(Value::Null);
    let Some(n) = random else {
        // Every combination, the last parameter varying fastest.
        let mut sets = vec![ParamMap::new()];
        for (name, vs) in grid {
            let with = |s: &ParamMap, v: &Value| {
                let mut s = s.clone();
                s.insert(name.clone(), v.clone());
                s
            };
            sets = sets
                .iter()
                .flat_map(|s| vs.iter().map(move |v| with(s, v)))
                .collect();
        }
        return sets;
    };
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let mut draw = |(name, vs): &(String, Vec<Value>)| {
        let Some(xs) = vs.iter().map(Value::as_f64).collect::<Option<Vec<f64>>>() else {
            return (name.clone(), vs[rng.random_range(0..vs.len())].clone());
        };
        let lo = xs.iter().copied().fold(f64::INFINITY, f64::min);
        let hi = xs.iter().copied().fold(f64::NEG_INFINITY, f64::max);
        let v = if hi > lo {
            rng.random_range(lo..=hi)
        } else {
            lo
        };
        let integers = xs.iter().all(|x| x.fract() == 0.0);
        (name.clone(), value(if integers { v.round() } else { v }))
    };
    (0..n)
        .map(|_| grid.iter().map(&mut draw).collect())
        .collect()
}

/// One parameter set's outcome.
#[derive(Clone, Debug, PartialEq)]
pub struct Trial {
    /// The parameters.
    pub params: ParamMap,
    /// The metrics on the tuning slice (empty when the set failed).
    pub tuning: MetricsReport,
    /// Why the set failed (its ratings ran away), if it did.
    pub failed: Option<String>,
}

/// A replay's metrics, or the runaway that stopped it.
type Scored = Result<MetricsReport, crate::replay::Divergence>;

/// The replay of a history with one set of parameters, scored.
struct Score<'a> {
    history: &'a History,
    opts: &'a ReplayOptions,
}

impl SystemVisitor for Score<'_> {
    type Output = Scored;
    fn visit<S: RatingSystem>(self, system: &S) -> Self::Output {
        Ok(replay(self.history, system, self.opts)?.metrics)
    }
}

/// The options of the tuning replays: the first `fraction` of `contests` contests, from
/// scratch, every contest with a prior scored.
fn slice_options(contests: usize, fraction: f64, base: &ReplayOptions) -> ReplayOptions {
    ReplayOptions {
        warmup: 0.0,
        keep_history: false,
        max_contests: Some(crate::numeric::first_share(contests, fraction).max(1)),
        ..base.clone()
    }
}

/// The options of the held-out replays: the whole history, scored after the first `fraction`
/// of the contests.
fn held_options(fraction: f64, base: &ReplayOptions) -> ReplayOptions {
    ReplayOptions {
        warmup: fraction,
        keep_history: false,
        ..base.clone()
    }
}

/// Replays of `history`, one with each of `sets` and `opts` (in parallel), in the sets' order.
fn replay_sets(
    history: &History,
    kind: SystemKind,
    sets: &[&ParamMap],
    opts: &ReplayOptions,
) -> Result<Vec<Scored>, String> {
    let score = |params| {
        let (params, opts) = &set_options(params, opts)?;
        dispatch(kind, params, Score { history, opts })
    };
    sets.par_iter().map(|&params| score(params)).collect()
}

/// Each replay's [`Outcome`]: its metrics, or why its ratings ran away.
fn outcomes(scored: Vec<Scored>) -> Vec<Outcome> {
    scored
        .into_iter()
        .map(|s| s.map_err(|d| d.to_string()))
        .collect()
}

pub use super::shard::Outcome;

/// The trials of the sets scored `outcomes` (a set whose replay ran away has failed), best
/// first.
fn rank(
    kind: SystemKind,
    sets: Vec<ParamMap>,
    outcomes: Vec<Outcome>,
    metric: TuneMetric,
) -> Result<Vec<Trial>, String> {
    let mut trials: Vec<Trial> = sets
        .into_iter()
        .zip(outcomes)
        .map(|(params, outcome)| Trial {
            params,
            failed: outcome.as_ref().err().cloned(),
            tuning: outcome.unwrap_or_else(|_| crate::metrics::Metrics::new().report()),
        })
        .collect();
    // Best first; unmeasured last; among equals the sets with more parameters at their
    // defaults first (no change without evidence), then the order of the sets.
    let defaults = dispatch(kind, &ParamMap::new(), ParamsOf)?;
    let same = |d: &Value, v: &Value| match (d.as_f64(), v.as_f64()) {
        (Some(x), Some(y)) => x == y,
        _ => d == v,
    };
    let at_default = |t: &Trial| {
        t.params
            .iter()
            .filter(|&(k, v)| defaults.get(k).is_some_and(|d| same(d, v)))
            .count()
    };
    trials.sort_by(|a, b| {
        use std::cmp::Ordering::{Greater, Less};
        let value = |t: &Trial| metric.value(&t.tuning).filter(|_| t.failed.is_none());
        match (value(a), value(b)) {
            _ if a.failed.is_some() != b.failed.is_some() => {
                a.failed.is_some().cmp(&b.failed.is_some())
            }
            (Some(x), Some(y)) if metric.better(x, y) => Less,
            (Some(x), Some(y)) if metric.better(y, x) => Greater,
            (Some(_), None) => Less,
            (None, Some(_)) => Greater,
            _ => at_default(b).cmp(&at_default(a)),
        }
    });
    Ok(trials)
}

/// Replays of the loaded input, one with each of `sets` and `opts` (in parallel; a streamed
/// input read once for all, see [`fan_out`]): their metrics, and a streamed input's players
/// and size (from a replay that read to the end).
fn replay_loaded(
    job: &TuneJob,
    loaded: &Loaded,
    sets: &[&ParamMap],
    opts: &ReplayOptions,
) -> anyhow::Result<(Vec<Scored>, Option<Arc<Streamed>>)> {
    let Some(plan) = &loaded.stream else {
        // `--initial-ratings`: every set starts the seeded players where the file says.
        let opts = &ReplayOptions {
            seeds: loaded.seeds.clone(),
            ..opts.clone()
        };
        let scored = replay_sets(&loaded.history, job.system, sets, opts).map_err(UsageError)?;
        return Ok((scored, None));
    };
    let runs = fan_out(plan, opts.period, sets.len(), |k, pieces| {
        let mut sink = Sink::quiet();
        let (params, opts) = &set_options(sets[k], opts)?;
        let visitor = RunStream {
            pieces,
            contests: plan.contests,
            opts,
            sink: &mut sink,
            state: None,
            input: &plan.path,
            seeds: loaded.seed_list.as_deref(),
        };
        dispatch(job.system, params, visitor)
    })?;
    let mut read = None;
    let mut scored = Vec::with_capacity(runs.len());
    for run in runs {
        match run.map_err(UsageError)? {
            Ok(ran) => {
                read = read.or(ran.streamed);
                scored.push(Ok(ran.result.metrics));
            }
            Err(ReplayFailure::Diverged(d)) => scored.push(Err(d)),
            // (Unread: the reader's error was returned by the fan-out.)
            Err(failure) => return Err(failure.error()),
        }
    }
    Ok((scored, read))
}

/// Every set's [`Outcome`] on the tuning slice of the loaded input, in the sets' order (a
/// streamed input's slice is a share of the contests its plan counted).
fn score_slice(job: &TuneJob, loaded: &Loaded, sets: &[ParamMap]) -> anyhow::Result<Vec<Outcome>> {
    let contests = match &loaded.stream {
        Some(plan) => plan.counted.as_ref().map_or(plan.contests, |c| {
            usize::try_from(c.count.contests).unwrap_or(usize::MAX)
        }),
        None => loaded.history.len(),
    };
    let slice = slice_options(contests, job.fraction, &job.run.replay);
    let sets: Vec<&ParamMap> = sets.iter().collect();
    Ok(outcomes(replay_loaded(job, loaded, &sets, &slice)?.0))
}

/// A shard of the sweep: its sets scored on the tuning slice and written with their indices
/// (no held-out replays: the merge runs them).
fn run_shard(
    job: &TuneJob,
    (k, n): (usize, usize),
    sets: &[ParamMap],
    loaded: &Loaded,
    staged: Publication,
    stdout: &mut dyn Write,
) -> anyhow::Result<()> {
    let indices = super::shard::indices(sets.len(), k, n);
    let mine: Vec<ParamMap> = indices.iter().map(|&i| sets[i].clone()).collect();
    let outcomes = score_slice(job, loaded, &mine)?;
    let done = format!("{} of {} parameter sets scored", mine.len(), sets.len());
    super::shard::publish(
        staged,
        &job.run.out,
        ("tune", k, n),
        &job_key(job, sets.len()),
        vec![("trials", super::shard::trials(&indices, &mine, &outcomes))],
        (!job.run.quiet).then_some(done),
        stdout,
    )
}

/// Runs `tune`.
pub fn run_tune(job: &TuneJob, stdout: &mut dyn Write) -> anyhow::Result<()> {
    check_replay_options(&job.run.replay)?;
    let sets = checked_sets(job)?;
    // Merging: every set's scores from the shards, checked to be this job's, before reading.
    let merged = (!job.merge.is_empty())
        .then(|| super::shard::merge(&job_key(job, sets.len()), &job.merge, &sets))
        .transpose()?;
    let shard_file = job
        .shard
        .map(|(k, n)| super::shard::file_name("tune", k, n));
    // The output folder's lock from the start: a second tune on it stops before its trials.
    let owned = [shard_file.as_deref().unwrap_or("tune.csv")];
    let staged = Publication::begin(&job.run.out, &owned)
        .with_context(|| format!("cannot prepare {}", job.run.out.display()))?;
    // The plan counts the contests as the held-out replays read them: the slice is a share of
    // them.
    let held_opts = held_options(job.fraction, &job.run.replay);
    let loaded = super::load::load_or_stream(&job.run, &job.run.ingest, &held_opts, false, false)?;
    // `advantage=auto`: fitted once, on the tuning part only (the held-out replays' warm-up),
    // each set's system parameters resolved, its option keys kept beside them.
    let (mut sets, mut base) = (sets, job.base.clone());
    let history = loaded.stream.is_none().then_some(&loaded.history);
    let all = || sets.iter().chain([&base]);
    let mut resolved: Vec<ParamMap> = all()
        .map(|set| set_options(set, &held_opts).map(|(params, _)| params))
        .collect::<Result<_, _>>()
        .map_err(UsageError)?;
    crate::first_side::resolve_all(job.system, &mut resolved, history, &held_opts)
        .map_err(UsageError)?;
    for (set, mut params) in sets.iter_mut().chain([&mut base]).zip(resolved) {
        let options = set
            .iter()
            .filter(|(k, _)| OPTION_KEYS.contains(&k.as_str()));
        params.extend(options.map(|(k, v)| (k.clone(), v.clone())));
        *set = params;
    }
    if let Some(shard) = job.shard {
        return run_shard(job, shard, &sets, &loaded, staged, stdout);
    }
    let outcomes = match merged {
        Some(outcomes) => outcomes,
        None => score_slice(job, &loaded, &sets)?,
    };
    let trials = rank(job.system, sets, outcomes, job.metric).map_err(UsageError)?;
    // The best set that did not fail (failed sets sort last) and the defaults, held out.
    let best = trials.iter().find(|t| t.failed.is_none());
    let held_sets: Vec<&ParamMap> = best.map(|t| &t.params).into_iter().chain([&base]).collect();
    let (mut held, read) = replay_loaded(job, &loaded, &held_sets, &held_opts)?;
    let default_held = held
        .pop()
        .ok_or_else(|| anyhow::anyhow!("the defaults were not replayed"))?;
    let best_held = held.pop();
    let write = |w: &mut dyn Write| write_trials(w, &job.grid, &trials);
    super::write_file(&staged.root(), "tune.csv", write)?;
    let written = staged.commit()?;
    let held = [
        ("tuned", best_held.as_ref()),
        ("defaults", Some(&default_held)),
    ];
    if !job.run.quiet {
        let history = read.as_ref().map_or(&loaded.history, |r| &r.players);
        let contests = read.as_ref().map_or(loaded.history.len(), |r| {
            usize::try_from(r.contests).unwrap_or(usize::MAX)
        });
        print_report(job, (history, contests), &trials, held, &written, stdout)?;
    }
    let failed = trials.iter().filter(|t| t.failed.is_some()).count();
    let held_failed = held.iter().filter(|(_, m)| m.is_some_and(Result::is_err));
    let held_failed = held_failed.count();
    if failed > 0 || held_failed > 0 || best.is_none() {
        return Err(PartialFailure(format!(
            "tune: {failed} of {} parameter sets failed on the tuning part{}; the others are \
             complete in tune.csv",
            trials.len(),
            if held_failed > 0 {
                format!(", and {held_failed} held-out replays failed")
            } else {
                String::new()
            }
        ))
        .into());
    }
    Ok(())
}

/// The parameter sets to try, each checked against the system before anything is read.
fn checked_sets(job: &TuneJob) -> anyhow::Result<Vec<ParamMap>> {
    let fraction = job.fraction;
    if !(fraction > 0.0 && fraction < 1.0) {
        let why = format!("--fraction {fraction} is not strictly between 0 and 1");
        return Err(UsageError(why).into());
    }
    // Each set is a replay of the tuning slice; beyond this many the run would only exhaust
    // time or memory.
    const MAX_SETS: usize = 10_000;
    let combinations = || {
        let mut sizes = job.grid.iter().map(|(_, values)| values.len());
        sizes.try_fold(1usize, usize::checked_mul)
    };
    let count = job.random.or_else(combinations);
    if count.is_none_or(|n| n > MAX_SETS) {
        return Err(UsageError(format!(
            "{} parameter sets to try: at most {MAX_SETS} (fewer --random draws or grid values)",
            count.map_or_else(|| "too many".to_string(), |n| n.to_string())
        ))
        .into());
    }
    let sets: Vec<ParamMap> = parameter_sets(&job.grid, job.random, job.seed)
        .into_iter()
        .map(|set| {
            let mut full = job.base.clone();
            full.extend(set);
            full
        })
        .collect();
    if sets.is_empty() {
        return Err(UsageError("no parameter set to try".into()).into());
    }
    let none = History::default();
    for set in &sets {
        let (params, opts) = set_options(set, &job.run.replay).map_err(UsageError)?;
        // `advantage=auto` is fitted once the input is read; its place is checked here.
        let params = crate::first_side::checkable(job.system, &params).map_err(UsageError)?;
        let why = dispatch(
            job.system,
            &params,
            crate::replay::FirstRefusal(&none, &opts),
        );
        if let Some(why) = why.map_err(UsageError)? {
            return Err(UsageError(why).into());
        }
    }
    Ok(sets)
}

/// The best sets, and the held-out scores (`None`: every set failed on the tuning part) of
/// the best and of the defaults, on the history read (its players and contests); the files.
fn print_report(
    job: &TuneJob,
    (history, contests): (&History, usize),
    trials: &[Trial],
    held: [(&str, Option<&Scored>); 2],
    written: &[PathBuf],
    stdout: &mut dyn Write,
) -> anyhow::Result<()> {
    let metric = job.metric;
    let name = super::resume::cli_name(metric);
    writeln!(
        stdout,
        "{} on {}: {} parameter sets scored by {} on the first {:.0} % of {} contests",
        job.system.name(),
        history.source.path,
        trials.len(),
        name,
        100.0 * job.fraction,
        contests
    )?;
    writeln!(stdout, "\n  {name:>12}  parameters")?;
    for t in trials.iter().take(job.top) {
        let (value, failed) = match &t.failed {
            None => (fmt(metric.value(&t.tuning)), String::new()),
            Some(why) => ("-".into(), format!("   failed: {why}")),
        };
        writeln!(stdout, "  {value:>12}  {}{failed}", describe(&t.params))?;
    }
    let failed = trials.iter().filter(|t| t.failed.is_some()).count();
    if failed > 0 {
        writeln!(
            stdout,
            "{failed} of {} sets failed (listed last, with the reason, in tune.csv)",
            trials.len()
        )?;
    }
    let rest = 100.0 * (1.0 - job.fraction);
    writeln!(stdout, "\nHeld out (the remaining {rest:.0} %):")?;
    for (label, m) in held {
        match m {
            Some(Ok(m)) => writeln!(
                stdout,
                "  {label:<9} {}: {}   pair inversion {} %, rank deviation {} %, log-loss {}",
                name,
                fmt(metric.value(m)),
                fmt(m.all.pair_inversion),
                fmt(m.all.rank_deviation),
                fmt(m.two_player.log_loss)
            )?,
            Some(Err(d)) => writeln!(stdout, "  {label:<9} failed: {d}")?,
            None => writeln!(stdout, "  {label:<9} failed: every set failed")?,
        }
    }
    if let Some(best) = trials.iter().find(|t| t.failed.is_none()) {
        writeln!(stdout, "  tuned parameters: {}", describe(&best.params))?;
    }
    writeln!(stdout, "Wrote {}", super::shown(written).join(", "))?;
    Ok(())
}

/// A metric's value as printed (`-`: not measured).
fn fmt(v: Option<f64>) -> String {
    v.map_or_else(|| "-".into(), |v| format!("{v:.4}"))
}

/// Parameters as printed: `name=value`, the names as the command line spells them.
fn describe(params: &ParamMap) -> String {
    let each = params
        .iter()
        .map(|(k, v)| format!("{}={}", k.replace('_', "-"), text(v)));
    each.collect::<Vec<_>>().join(" ")
}

/// A parameter's value as printed and in `tune.csv`: a word as it is, a number as JSON.
fn text(v: &Value) -> String {
    match v {
        Value::String(word) => word.clone(),
        _ => v.to_string(),
    }
}

/// `tune.csv`: one row per set, best first: the parameters, then the tuning metrics.
fn write_trials(
    w: &mut dyn Write,
    grid: &[(String, Vec<Value>)],
    trials: &[Trial],
) -> std::io::Result<()> {
    let mut out = csv::Writer::from_writer(w);
    let mut header = vec!["rank"];
    header.extend(grid.iter().map(|(n, _)| n.as_str()));
    header.extend([
        "pair_inversion",
        "rank_deviation",
        "log_loss",
        "brier",
        "accuracy",
        "failed",
    ]);
    out.write_record(&header)?;
    let f = |v: Option<f64>| v.map_or(String::new(), |v| v.to_string());
    for (i, t) in trials.iter().enumerate() {
        let mut record = vec![(i + 1).to_string()];
        let value = |n: &String| t.params.get(n).map_or(String::new(), text);
        record.extend(grid.iter().map(|(n, _)| value(n)));
        let (all, two) = (&t.tuning.all, &t.tuning.two_player);
        let metrics = [all.pair_inversion, all.rank_deviation, two.log_loss];
        record.extend(metrics.into_iter().chain([two.brier, two.accuracy]).map(f));
        record.push(
            t.failed
                .as_ref()
                .map_or(String::new(), |why| format!("failed: {why}")),
        );
        out.write_record(&record)?;
    }
    out.flush()
}

/// What makes two runs the same sweep.
fn job_key(job: &TuneJob, sets: usize) -> Value {
    let key = serde_json::json!({
        "system": job.system.name(),
        "grid": job.grid,
        "base": job.base,
        "random": job.random,
        "seed": job.seed,
        "metric": job.metric,
        "fraction": job.fraction,
        "period": format!("{:?}", job.run.replay.period),
        "decay_per_day": job.run.replay.decay_per_day,
        "skip_all_tied": job.run.replay.skip_all_tied,
        "as_of": job.run.replay.as_of,
        "sets": sets,
    });
    super::shard::with_input(key, &job.run.input, job.run.ingest.more.len())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::history::{HistoryBuilder, SourceInfo};

    /// Scores every set on the first `fraction` of the contests (in parallel), best first.
    fn run_trials(
        history: &History,
        kind: SystemKind,
        sets: Vec<ParamMap>,
        metric: TuneMetric,
        fraction: f64,
        base: &ReplayOptions,
    ) -> Result<Vec<Trial>, String> {
        let slice = slice_options(history.len(), fraction, base);
        let scored = replay_sets(history, kind, &sets.iter().collect::<Vec<_>>(), &slice)?;
        rank(kind, sets, outcomes(scored), metric)
    }

    /// Metrics of a whole replay scored on everything after the first `fraction` of contests
    /// (the inner error: the replay diverged).
    fn held_out(
        history: &History,
        kind: SystemKind,
        params: &ParamMap,
        fraction: f64,
        base: &ReplayOptions,
    ) -> Result<Scored, String> {
        let opts = &held_options(fraction, base);
        let (params, opts) = &set_options(params, opts)?;
        dispatch(kind, params, Score { history, opts })
    }

    /// Every default grid holds each of its parameters' default value exactly, as promised
    /// (the tie rule prefers sets at their defaults only if the grid has them).
    #[test]
    fn default_grids_hold_the_defaults() {
        for kind in SystemKind::ALL {
            let defaults =
                crate::systems::dispatch(*kind, &Default::default(), crate::systems::ParamsOf)
                    .unwrap();
            for (name, values) in kind.default_grid() {
                let d = defaults[&name]
                    .as_f64()
                    .unwrap_or_else(|| panic!("{kind:?} {name}"));
                assert!(
                    values.contains(&d),
                    "{kind:?}: {name} default {d} not in {values:?}"
                );
            }
        }
    }

    #[test]
    fn grids_parse_and_expand() {
        let g = parse_grid("k=16,24,32; scale = 400").unwrap();
        assert_eq!(g.len(), 2);
        let sets = parameter_sets(&g, None, 0);
        assert_eq!(sets.len(), 3);
        assert_eq!(sets[1]["k"], serde_json::json!(24));
        assert_eq!(sets[1]["scale"], serde_json::json!(400));
        assert!(parse_grid("k=1,").is_err());
        assert!(parse_grid("k=1,inf").is_err());
        // Words: a system's named choices, or the draw policy.
        let words = parse_grid("mov_multiplier=none,538;draws=update,ignore").unwrap();
        assert_eq!(
            words[0].1,
            [serde_json::json!("none"), serde_json::json!(538)]
        );
        assert_eq!(
            words[1].1,
            [serde_json::json!("update"), serde_json::json!("ignore")]
        );
        assert_eq!(parameter_sets(&words, None, 0).len(), 4);
        let drawn = parameter_sets(&words, Some(40), 1);
        for d in ["update", "ignore"] {
            assert!(drawn.iter().any(|s| s["draws"] == d), "{d} drawn");
        }
        assert!(parse_grid("k").is_err());
        assert!(parse_grid("k=1;k=2").is_err());
        let random = parameter_sets(&g, Some(50), 7);
        assert_eq!(random.len(), 50);
        for s in &random {
            let k = s["k"].as_f64().unwrap();
            assert!((16.0..=32.0).contains(&k) && k.fract() == 0.0, "{k}");
        }
        assert_eq!(random, parameter_sets(&g, Some(50), 7), "seeded");
        // Every default grid is valid for its system and holds the defaults.
        for &kind in SystemKind::ALL {
            for set in parameter_sets(&numeric_grid(kind.default_grid()), None, 0) {
                dispatch(kind, &set, super::super::system::Noop).unwrap();
            }
        }
    }

    /// Coin flips: nothing is learnable, so K = 0 (every prediction 1/2) has the best
    /// log-loss, ln 2.
    fn coin_flips(flip_last: bool) -> History {
        let mut rng = ChaCha8Rng::seed_from_u64(3);
        let mut b = HistoryBuilder::new();
        let ids: Vec<u32> = (0..20).map(|i| b.player(&format!("p{i}"))).collect();
        let n = 4000;
        for g in 0..n {
            let x = ids[rng.random_range(0..20)];
            let mut y = ids[rng.random_range(0..20)];
            while y == x {
                y = ids[rng.random_range(0..20)];
            }
            let mut score = if rng.random_bool(0.5) { 1.0 } else { 0.0 };
            if flip_last && g == n - 1 {
                score = 1.0 - score;
            }
            b.add_game(g as i64, 1.0, None, (&[x], &[y]), score, None)
                .unwrap();
        }
        b.finish(SourceInfo::default())
    }

    #[test]
    fn coin_flips_pick_k_zero_and_the_held_out_part_does_not_matter() {
        let h = coin_flips(false);
        let grid = parse_grid("k=0,8,32").unwrap();
        let sets = parameter_sets(&grid, None, 0);
        let opts = ReplayOptions::default();
        let trials = run_trials(
            &h,
            SystemKind::Elo,
            sets.clone(),
            TuneMetric::Logloss,
            0.1,
            &opts,
        )
        .unwrap();
        assert_eq!(trials[0].params["k"], serde_json::json!(0));
        let ll = trials[0].tuning.two_player.log_loss.unwrap();
        assert!((ll - std::f64::consts::LN_2).abs() < 1e-12, "{ll}");
        // Changing a result after the tuning slice changes nothing of the tuning.
        let h2 = coin_flips(true);
        let trials2 = run_trials(
            &h2,
            SystemKind::Elo,
            sets.clone(),
            TuneMetric::Logloss,
            0.1,
            &opts,
        )
        .unwrap();
        assert_eq!(trials, trials2);
        // Pair inversion cannot tell the sets apart on coin flips with K = 0 (all ratings
        // equal, never wrong) ... it can: K = 0 is never wrong, so it is the best.
        let by_pair = run_trials(&h, SystemKind::Elo, sets, TuneMetric::Pair, 0.1, &opts).unwrap();
        assert_eq!(by_pair[0].params["k"], serde_json::json!(0));
        assert_eq!(by_pair[0].tuning.all.pair_inversion, Some(100.0));
        // ... but it does change the held-out score.
        let p = trials[1].params.clone();
        assert_ne!(
            held_out(&h, SystemKind::Elo, &p, 0.1, &opts).unwrap(),
            held_out(&h2, SystemKind::Elo, &p, 0.1, &opts).unwrap()
        );
    }

    /// Equal scores: the defaults come first.
    #[test]
    fn ties_prefer_the_defaults() {
        let h = coin_flips(false);
        // Scale changes nothing when K = 0: every set ties.
        let sets = parameter_sets(&parse_grid("k=0;scale=200,400,800").unwrap(), None, 0);
        let trials = run_trials(
            &h,
            SystemKind::Elo,
            sets,
            TuneMetric::Logloss,
            0.1,
            &ReplayOptions::default(),
        )
        .unwrap();
        assert_eq!(trials[0].params["scale"], serde_json::json!(400));
    }

    /// Deterministic results by a fixed order of strength: the faster the ratings spread,
    /// the better the predictions, so the largest K wins.
    #[test]
    fn a_fixed_order_picks_the_largest_k() {
        let mut rng = ChaCha8Rng::seed_from_u64(5);
        let mut b = HistoryBuilder::new();
        let ids: Vec<u32> = (0..10).map(|i| b.player(&format!("p{i}"))).collect();
        for g in 0..3000 {
            let x = rng.random_range(0..10);
            let mut y = rng.random_range(0..10);
            while y == x {
                y = rng.random_range(0..10);
            }
            let score = if x < y { 1.0 } else { 0.0 };
            b.add_game(g, 1.0, None, (&[ids[x]], &[ids[y]]), score, None)
                .unwrap();
        }
        let h = b.finish(SourceInfo::default());
        let sets = parameter_sets(&parse_grid("k=8,16,32").unwrap(), None, 0);
        let trials = run_trials(
            &h,
            SystemKind::Elo,
            sets,
            TuneMetric::Logloss,
            0.1,
            &ReplayOptions::default(),
        )
        .unwrap();
        assert_eq!(trials[0].params["k"], serde_json::json!(32));
    }
}
