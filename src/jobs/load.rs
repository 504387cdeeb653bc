//! Reading a replay's inputs: the history, the initial ratings and the truth.

use super::errors::UsageError;
use super::options::RunOptions;
use crate::history::History;
use crate::ingest::truth::{Truth, read_truth};
use crate::ingest::{IngestOptions, InputError, ingest_as};
use crate::replay::{ReplayOptions, Seed};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

/// True when both paths name one existing file or folder (the same device and inode, links
/// followed): an output that is one of the inputs, whatever path each was given by.
pub(crate) fn same_file(a: &Path, b: &Path) -> bool {
    use std::os::unix::fs::MetadataExt;
    let id = |p: &Path| std::fs::metadata(p).ok().map(|m| (m.dev(), m.ino()));
    id(a).is_some_and(|a| id(b) == Some(a))
}

/// Refuses an output file (`flag`, at `out`: what it holds is `what`) that is one of the files
/// read (`inputs`, each as a message names it): writing it would destroy that file.
pub(crate) fn refuse_overwriting<'a>(
    (flag, out, what): (&str, &Path, &str),
    inputs: impl IntoIterator<Item = (&'a str, &'a Path)>,
) -> Result<(), UsageError> {
    // An input folder's files are all read: the output may be none of them, nor join them.
    let absolute = std::path::absolute(out).unwrap_or_else(|_| out.to_path_buf());
    let inside =
        |dir: &Path| dir.is_dir() && absolute.ancestors().skip(1).any(|a| same_file(a, dir));
    for (input, p) in inputs {
        if same_file(out, p) {
            return Err(UsageError(format!(
                "{flag} {} is {input}: {what} would overwrite it",
                out.display()
            )));
        }
        if inside(p) {
            return Err(UsageError(format!(
                "{flag} {} is inside {input}, the folder {}, whose files are all read: {what} \
                 would overwrite one or be read with them; write it elsewhere",
                out.display(),
                p.display()
            )));
        }
    }
    Ok(())
}

/// The files a run's input is read from: its inputs and `--aliases`, each as a message names
/// it.
pub(crate) fn input_files<'a>(
    input: &'a Path,
    ingest: &'a IngestOptions,
) -> impl Iterator<Item = (&'a str, &'a Path)> {
    (std::iter::once(input).chain(ingest.more.iter().map(PathBuf::as_path)))
        .map(|p| ("the input", p))
        .chain(ingest.aliases_file.as_deref().map(|p| ("--aliases", p)))
}

/// An ingested history with the players seeded from `--initial-ratings`.
#[derive(Default)]
pub struct Loaded {
    /// The history.
    pub history: History,
    /// Players with an initial rating.
    pub seeds: Vec<Seed>,
    /// Players of the initial-ratings file who are not in the history.
    pub seeds_absent: usize,
    /// Players seeded from their PGN rating tags (`--seed-from-pgn`).
    pub seeded_from_pgn: usize,
    /// The file they came from.
    pub seeds_file: Option<PathBuf>,
    /// Time spent reading.
    pub ingest_time: Duration,
    /// `--truth`: the true ratings.
    pub truth: Option<Truth>,
    /// A streamed input: `history` holds no contest, the replay reads them as it goes.
    pub stream: Option<super::stream::StreamPlan>,
    /// A streamed input's `--initial-ratings`, by name: its players are seeded as they come.
    pub seed_list: Option<std::sync::Arc<crate::ingest::seeds::SeedList>>,
}

/// The games a replay of `loaded` rates and their draws (TrueSkill's default draw margin): of
/// the history held whole, or of a stream's counting pass; `None` for a stream read once.
pub(crate) fn draw_counts(loaded: &Loaded, opts: &ReplayOptions) -> Option<crate::history::Count> {
    match &loaded.stream {
        None => Some(crate::auto::draw_counts(&loaded.history, opts)),
        Some(plan) => plan.counted.as_ref().map(|c| c.count),
    }
}

/// The size of what was replayed.
#[derive(Clone, Copy, Debug, serde::Serialize)]
pub struct Totals {
    /// Contests read.
    pub contests: usize,
    /// Distinct players.
    pub players: usize,
    /// (player, contest) placings.
    pub placings: usize,
}

impl Totals {
    /// The totals of a history held whole.
    pub fn of(h: &History) -> Self {
        Self {
            contests: h.len(),
            players: h.player_count(),
            placings: h.placings(),
        }
    }
}

/// Reads the input (and the initial ratings); an input without any contest is an error.
pub fn load(
    input: &Path,
    ingest_opts: &IngestOptions,
    initial_ratings: Option<&Path>,
    truth: Option<&Path>,
) -> anyhow::Result<Loaded> {
    let t0 = Instant::now();
    let format = crate::ingest::format_of(input, ingest_opts)?;
    crate::ingest::time_format_applies(format, ingest_opts).map_err(UsageError)?;
    // The format detected above: detection reads the input, and runs once.
    let history = ingest_as(input, format, ingest_opts)?;
    let mut seeded_from_pgn = 0;
    let (mut seeds, seeds_absent) = match initial_ratings {
        Some(path) => {
            crate::ingest::seeds::read_seeds(path, &history, ingest_opts.aliases.as_ref())?
        }
        None => (Vec::new(), 0),
    };
    if ingest_opts.seed_from_pgn {
        if format != crate::ingest::Format::Pgn {
            return Err(UsageError(format!(
                "--seed-from-pgn seeds players from PGN rating tags, and this input is read as {}",
                history.source.format
            ))
            .into());
        }
        let before = seeds.len();
        seeds_from_tags(&mut seeds, &history.source.rating_tags);
        seeded_from_pgn = seeds.len() - before;
    }
    let src = &history.source;
    if history.is_empty() {
        return Err(InputError::nothing_to_rate(src).into());
    }
    let truth = truth
        .map(|p| read_truth(p, &history, ingest_opts.aliases.as_ref()))
        .transpose()?;
    Ok(Loaded {
        history,
        seeds,
        seeds_absent,
        seeded_from_pgn,
        seeds_file: initial_ratings.map(Path::to_path_buf),
        ingest_time: t0.elapsed(),
        truth,
        ..Loaded::default()
    })
}

/// Adds to `seeds` a seed for every player with a rating tag (`--seed-from-pgn`) whom they do
/// not seed already, and sorts them by player.
fn seeds_from_tags(seeds: &mut Vec<Seed>, tags: &[Option<(i64, f64)>]) {
    let listed: std::collections::HashSet<u32> = seeds.iter().map(|s| s.player).collect();
    for (p, tag) in tags.iter().enumerate() {
        if let Some((_, rating)) = tag
            && !listed.contains(&(p as u32))
        {
            seeds.push(Seed {
                player: p as u32,
                rating: *rating,
                uncertainty: None,
                volatility: None,
            });
        }
    }
    seeds.sort_by_key(|s| s.player);
}

/// Plans the streaming of `run`'s input, read with `ingest` (its counting pass, see
/// [`super::stream::plan`]) or, when it does not stream, reads it whole. `report`: the run
/// draws or lists every contest (whole input); `state`: with `--save-state` or `--resume`.
pub(crate) fn load_or_stream(
    run: &RunOptions,
    ingest: &IngestOptions,
    replay: &ReplayOptions,
    report: bool,
    state: bool,
) -> anyhow::Result<Loaded> {
    let (mode, block) = run.stream;
    let t0 = Instant::now();
    // A stream meets its players as it goes: the seeds are read first, by name (a file with
    // padded names is matched as a whole read matches it: read whole). A seeds file that is
    // not a regular file (a pipe) can be read once only: read whole, unless --stream on.
    use super::stream::StreamMode;
    let piped = (run.initial_ratings.as_deref())
        .filter(|p| mode == StreamMode::Auto && !std::fs::metadata(p).is_ok_and(|m| m.is_file()));
    let seeds = match &run.initial_ratings {
        Some(path) if mode != StreamMode::Off && piped.is_none() => Some(
            crate::ingest::seeds::SeedList::read(path, ingest.aliases.as_ref())?,
        ),
        _ => None,
    };
    let request = super::stream::StreamRequest {
        input: &run.input,
        replay,
        mode,
        block,
        quiet: run.quiet,
        // `--truth` is matched against every player before the replay, and so is an
        // `--initial-ratings` file whose names have whitespace around them (a whole read
        // matches one to a trimmed name only if no player has it exactly); the report draws
        // trajectories over every contest; `--seed-from-pgn` seeds players from tags read
        // before the replay.
        needs_whole: [
            (run.truth.is_some(), "--truth"),
            (
                seeds.as_ref().is_some_and(|l| l.padded),
                "--initial-ratings with names padded by whitespace",
            ),
            (report, "--report, --predictions or --site"),
            (piped.is_some(), "--initial-ratings from a pipe"),
            (ingest.seed_from_pgn, "--seed-from-pgn"),
        ]
        .into_iter()
        .find_map(|(needs, option)| needs.then_some(option)),
        state,
    };
    let loaded = match super::stream::plan(&request, ingest)? {
        // Streamed: its players and contests are read as the replay goes.
        Some(plan) => {
            let source = plan.counted.as_ref().map_or_else(
                || crate::history::SourceInfo {
                    path: plan.path.display().to_string(),
                    format: plan.format.to_string(),
                    ..Default::default()
                },
                |c| c.source.clone(),
            );
            Loaded {
                history: History::players_only(Vec::new(), source),
                seeds_file: run.initial_ratings.clone(),
                ingest_time: t0.elapsed(),
                stream: Some(plan),
                seed_list: seeds.map(std::sync::Arc::new),
                ..Loaded::default()
            }
        }
        None => load(
            &run.input,
            ingest,
            run.initial_ratings.as_deref(),
            run.truth.as_deref(),
        )?,
    };
    super::errors::gap_needs_times(replay, &loaded.history.source)?;
    Ok(loaded)
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
