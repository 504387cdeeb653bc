//! Argument parsing only: every subcommand becomes a plain job of [`crate::jobs`], which does
//! the work. (The simulation lab's `simulate` and `experiment` are the `rate-batch-lab`
//! program's, crates/lab.)

use crate::ingest::time::TimeFormat;
use crate::ingest::{ColumnMap, Format, IngestOptions, TeamSeparator};
use crate::jobs::UsageError;
use crate::jobs::compare;
use crate::jobs::options::RunOptions;
use crate::jobs::replay::{ReplayJob, run_replay};
use crate::jobs::stream::StreamMode;
use crate::jobs::tune;
use crate::output::{HistoryFormat, LeaderboardOptions, RankBy};
use crate::presets::Preset;
use crate::replay::{Draws, Growth, Period, ReplayOptions};
use crate::seasons::{SeasonBy, Seasons};
use crate::systems::{ParamMap, SystemKind, parse_param};
use clap::{Args, Parser, Subcommand};
use serde_json::Value;
use std::io::Write;
use std::path::PathBuf;

/// Replays contest histories through rating systems and publishes leaderboards and accuracy.
#[derive(Debug, Parser)]
#[command(name = "rate-batch", version, about, max_term_width = 100)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Command,
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// Replay a history in time order through a rating system: leaderboard, rating history,
    /// and how well each contest was predicted before it was rated.
    Replay(Box<ReplayArgs>),
    /// Replay the same history through several systems (in parallel) and compare their
    /// accuracy and speed: compare.csv, compare.json, compare.md, and each system's
    /// leaderboard and metrics in OUT/SYSTEM/.
    Compare(Box<CompareArgs>),
    /// Choose a system's parameters as the Elo-MMR paper did: score every candidate on the
    /// first 10 % of the contests, then report the best one's score on the remaining 90 %
    /// beside the defaults'.
    Tune(Box<TuneArgs>),
    /// Pair waiting players as Yuksel 2024 proposes (section 4): each player's desired win
    /// probability from his recent results, the opponent rating that gives it, and group
    /// matchmaking by desired opponent rating. Uses the ratings of a `--save-state` file.
    Matchmake(Box<crate::jobs::matchmake::MatchJob>),
    /// List the player names of a history that look like one player written several ways
    /// (case, accents, punctuation, word order, initials; with --one-edit, surnames one edit
    /// apart), as a CSV `alias,player,reason,...` to check and give back as `--aliases`.
    Names(Box<NamesArgs>),
    /// Print a shell's completion script: `rate-batch completions bash >
    /// ~/.local/share/bash-completion/completions/rate-batch`, `rate-batch completions zsh >
    /// ~/.zfunc/_rate-batch`, `rate-batch completions fish >
    /// ~/.config/fish/completions/rate-batch.fish`.
    Completions {
        /// The shell.
        shell: clap_complete::Shell,
    },
    /// (Internal) Decode a Parquet file in full and exit 0, or 1 if it is not readable; run
    /// in a child process before reading one, so that a decoder crash cannot take the run
    /// down with it.
    #[command(name = "__probe-parquet", hide = true)]
    ProbeParquet {
        /// The file.
        file: PathBuf,
    },
}

/// `names`: the input, and where the suggestions go.
#[derive(Debug, Args)]
pub struct NamesArgs {
    #[command(flatten)]
    pub input: InputArgs,
    /// Write the suggestions to this CSV file (atomically) instead of standard output.
    #[arg(long, value_name = "FILE")]
    pub out: Option<PathBuf>,
    /// Print no summary.
    #[arg(long)]
    pub quiet: bool,
    /// Suggest names one edit apart in the surname too, the given names the same
    /// (`Kasparow, Garry` for `Kasparov, Garry`): check each, as in a large file such pairs
    /// are as often two players (`Joao Sousa`, `Joao Souza`).
    #[arg(long)]
    pub one_edit: bool,
}

/// How `replay` and `compare` report.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, clap::ValueEnum)]
pub enum LogFormat {
    /// Readable text.
    #[default]
    Text,
    /// One JSON object per run.
    Json,
}

impl Cli {
    /// True when errors are to be reported as JSON.
    pub fn log_json(&self) -> bool {
        match &self.command {
            Command::Replay(a) => a.run.log_format == LogFormat::Json,
            Command::Compare(a) => a.run.log_format == LogFormat::Json,
            _ => false,
        }
    }
}

/// Where the history comes from and how to read it.
#[derive(Debug, Args)]
pub struct InputArgs {
    /// Input: a games or standings CSV, a PGN file (either may be gzip- or zstd-compressed,
    /// or `-` for standard input with --format), a Parquet file, a contest JSON array, or a
    /// folder of N.json contests. Several files (or a folder of CSV and PGN files) are read
    /// together, their contests merged in time order.
    #[arg(required = true, num_args = 1..)]
    pub inputs: Vec<PathBuf>,
    /// Input format (detected from the extension and the CSV header by default).
    #[arg(long, value_enum)]
    pub format: Option<Format>,
    /// Column renames, canonical=actual: `a=home_team,b=away_team,time=date`.
    #[arg(long, value_name = "COLUMN=NAME,...")]
    pub map: Option<String>,
    /// Separator of team members in a side of the games format, or `none`.
    #[arg(long, default_value = "+", value_name = "SEP")]
    pub team_sep: String,
    /// Skip and count invalid records instead of stopping at the first.
    #[arg(long)]
    pub skip_invalid: bool,
    /// How the time column of a CSV or Parquet input is written: auto (text dates and
    /// times; integers as YYYYMMDD dates or Unix seconds, as the column's first integer
    /// reads, a mixed column refused), rfc3339, date, yyyymmdd, unix, unix-ms, or a strftime
    /// pattern such as '%d/%m/%Y %H:%M' (UTC unless it has %z). Also reads --as-of.
    #[arg(long, default_value = "auto", value_name = "FORMAT")]
    pub time_format: String,
    /// Remove the whitespace around player names (by default names are kept exactly as
    /// given: `Foo` and `Foo ` are two players, and a name of spaces is a name).
    #[arg(long)]
    pub trim_names: bool,
    /// Accepted for older scripts and ignored: there is no memory estimate before reading any
    /// more (a run that runs out of memory ends with exit 3 and writes nothing).
    #[arg(long, hide = true)]
    pub no_memory_check: bool,
    /// PGN: a player new to the history starts at the rating his first game's tag gives him
    /// (`WhiteElo` / `BlackElo`, as --initial-ratings would; a file given with
    /// --initial-ratings wins for the players it lists; a missing, `?`, `-` or 0 tag seeds
    /// nobody).
    #[arg(long)]
    pub seed_from_pgn: bool,
    /// A CSV `alias,player`: each alias is read as its player's name, in the input and in the
    /// side files (--initial-ratings, --truth). `rate-batch names` suggests one.
    #[arg(long, value_name = "FILE")]
    pub aliases: Option<PathBuf>,
    /// Drop games and contests that repeat one read before (the same time, players, result
    /// and, in a PGN, moves) and report how many.
    #[arg(long)]
    pub dedupe: bool,
    /// Rate each player apart in each value of this column of a table (`pool`, as `--map
    /// pool=COLUMN`) or tag of a PGN: a chess speed class, a tennis surface. Every output
    /// carries the pool; ranks are within a pool [default: --preset lichess takes Lichess's
    /// speed classes from a `time_control` column or a PGN's `TimeControl` tag].
    #[arg(long, value_name = "COLUMN|TAG")]
    pub pool_by: Option<String>,
    /// The order contests are replayed in: `time` (sorted by time; equal times in input
    /// order) or `input` (as the input lists them, as a server rated them: a Lichess
    /// database lists games as they ended, each dated by its start) [default: time;
    /// --preset lichess: input]. `input` takes a game or a series a round.
    #[arg(long, value_enum)]
    pub order: Option<Order>,
}

/// The order of the replay (`--order`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum Order {
    /// By time.
    Time,
    /// As the input lists the contests.
    Input,
}

impl InputArgs {
    /// The reading options with a preset's order where none is given.
    pub fn ingest_with(&self, preset: &Preset) -> anyhow::Result<IngestOptions> {
        let mut ingest = self.ingest()?;
        if self.order.is_none() {
            ingest.input_order = preset.input_order;
        }
        ingest.speed_pools = preset.speed_pools;
        Ok(ingest)
    }

    /// The reading options (the alias file read).
    pub fn ingest(&self) -> anyhow::Result<IngestOptions> {
        let mut map = match &self.map {
            Some(m) => ColumnMap::parse(m).map_err(UsageError)?,
            None => ColumnMap::default(),
        };
        if let Some(by) = self.pool_by.as_deref().map(str::trim) {
            if by.is_empty() {
                return Err(
                    UsageError("--pool-by: the column or tag's name is empty".into()).into(),
                );
            }
            if map.maps("pool") && map.source("pool") != by {
                return Err(UsageError(format!(
                    "--pool-by {by} and --map pool={} name two pool columns",
                    map.source("pool")
                ))
                .into());
            }
            map.set("pool", by);
        }
        let time_format: TimeFormat = self.time_format.parse().map_err(UsageError)?;
        Ok(IngestOptions {
            format: self.format,
            map,
            skip_invalid: self.skip_invalid,
            team_separator: self.team_sep.parse::<TeamSeparator>().map_err(UsageError)?,
            known_players: Vec::new(),
            time_format,
            trim_names: self.trim_names,
            seed_from_pgn: self.seed_from_pgn,
            aliases: (self.aliases.as_deref())
                .map(crate::ingest::aliases::read_aliases)
                .transpose()?
                .map(std::sync::Arc::new),
            aliases_file: self.aliases.clone(),
            dedupe: self.dedupe,
            more: self.inputs[1..].to_vec(),
            input_order: self.order == Some(Order::Input),
            pool_tag: self.pool_by.as_deref().map(|t| t.trim().to_string()),
            speed_pools: false,
            events: false,
        })
    }

    /// The first input (the others are in [`IngestOptions::more`]).
    pub fn first(&self) -> PathBuf {
        self.inputs[0].clone()
    }
}

/// How contests form rounds and how uncertainty grows between them (shared by `replay`,
/// `compare` and `tune`).
#[derive(Debug, Args)]
pub struct RoundArgs {
    /// Group contests into rounds rated together from the same pre-round ratings [default:
    /// game; a preset's: fide and uscf rate by event].
    #[arg(long, value_enum)]
    pub period: Option<Period>,
    /// Time decay: variance added to a player's uncertainty per day between rounds and up to
    /// the end (systems with an uncertainty; in the system's rating units squared) [default:
    /// 0].
    #[arg(long, value_name = "VARIANCE")]
    pub decay_per_day: Option<f64>,
    /// How a player's uncertainty grows between his rounds: `time` (a round is one rating
    /// period, and time away beyond one period adds one more for each period of it:
    /// the system's rating periods with a game or a series a round, the calendar periods
    /// begun with --period day|week|month), `fractional` (a round adds only the fraction of
    /// a period passed since the player's last contest: Lichess's way, for Glicko and
    /// Glicko-2) or `rounds` (one period per round whatever the time between: the earlier
    /// versions' growth) [default: time; --preset lichess: fractional].
    #[arg(long, value_enum)]
    pub growth: Option<Growth>,
    /// The length of one rating period for --growth time or fractional with a game or a
    /// series a round, such as `30d`, `1w` or `1m` [default: 30 days, a month (FIDE's rating
    /// period); --preset lichess: Lichess's 0.21436 periods a day, 4.665 days].
    #[arg(long, value_name = "SPAN")]
    pub rating_period: Option<String>,
    /// What a drawn game does: `update` the ratings, or `ignore` (predicted and scored,
    /// counted in the records, but not rated) [default: update].
    #[arg(long, value_enum, default_value_t = Draws::Update)]
    pub draws: Draws,
    /// Without a season column (`--map season=COLUMN`): a new season begins after a pause of
    /// the whole league's play of this many days or more (such as 90 for a football league).
    #[arg(long, value_name = "DAYS")]
    pub season_gap: Option<f64>,
    /// Between two seasons every rating moves this fraction of the way to the mean (one
    /// third in FiveThirtyEight's football forecasts); needs seasons, from a season column or
    /// --season-gap. elo, elo-gaussian, glicko, glicko2, trueskill and yuksel have it
    /// [default: 0].
    #[arg(long, value_name = "FRACTION")]
    pub season_regress: Option<f64>,
    /// The mean the ratings move toward between seasons [default: the league's, the mean
    /// rating of every player who has played so far].
    #[arg(long, value_name = "RATING")]
    pub season_mean: Option<f64>,
}

/// The input's season column, if `--map season=COLUMN` names one.
fn season_column(map: &crate::ingest::ColumnMap) -> Option<&str> {
    map.maps("season").then(|| map.source("season"))
}

impl RoundArgs {
    /// Sets the options' rounds and growth, a preset's where none is given; the seasons, by
    /// the input's season column `column` where there is one (`--map season=COLUMN`).
    fn apply(
        &self,
        opts: &mut ReplayOptions,
        preset: &Preset,
        column: Option<&str>,
    ) -> Result<(), UsageError> {
        opts.period = self.period.or(preset.period).unwrap_or_default();
        opts.decay_per_day = self.decay_per_day.unwrap_or(0.0);
        opts.growth = self.growth.or(preset.growth).unwrap_or_default();
        opts.draws = self.draws;
        opts.rating_period_days =
            rating_period_days(self.rating_period.as_deref())?.or(preset.rating_period_days);
        opts.seasons = self.seasons(column.is_some())?;
        opts.season_column = column.map(str::to_string);
        Ok(())
    }

    /// The seasons these options and the input's season column (`column`) describe.
    fn seasons(&self, column: bool) -> Result<Option<Seasons>, UsageError> {
        let by = match (column, self.season_gap) {
            (true, Some(_)) => {
                return Err(UsageError(
                    "--map season=COLUMN and --season-gap both say where seasons begin: give \
                     one"
                    .into(),
                ));
            }
            (true, None) => SeasonBy::Column,
            (false, Some(days)) => SeasonBy::Gap(days),
            (false, None) if self.season_regress.is_some() || self.season_mean.is_some() => {
                return Err(UsageError(
                    "--season-regress and --season-mean need seasons: a season column \
                     (--map season=COLUMN) or --season-gap DAYS"
                        .into(),
                ));
            }
            (false, None) => return Ok(None),
        };
        let seasons = Seasons {
            by,
            regress: self.season_regress.unwrap_or(0.0),
            mean: self.season_mean,
        };
        seasons.check().map_err(UsageError)?;
        Ok(Some(seasons))
    }
}

/// How to replay, and the options of the outputs (shared by `replay` and `compare`).
#[derive(Debug, Args)]
pub struct RunArgs {
    #[command(flatten)]
    pub rounds: RoundArgs,
    /// Output folder.
    #[arg(long, default_value = "output")]
    pub out: PathBuf,
    /// File type of the rating history [default: csv for replay, none for compare].
    #[arg(long, value_enum)]
    pub history_format: Option<HistoryFormat>,
    /// Fraction of the contests, from the start, that update ratings but are not scored
    /// [default: 0.1; --preset lichess: 0, every game scored, as Lichess's own figures are].
    #[arg(long)]
    pub warmup: Option<f64>,
    /// Print nothing on success but the JSON log with --log-format json (errors still go to
    /// stderr).
    #[arg(long)]
    pub quiet: bool,
    /// `json`: on success one JSON object on stdout (what was read, applied and written, and
    /// the metrics), on failure one on stderr (`error`, `exit_code`), for schedulers.
    #[arg(long, value_enum, default_value_t = LogFormat::Text)]
    pub log_format: LogFormat,
    /// Worker threads (default: one per core).
    #[arg(long)]
    pub threads: Option<usize>,
    /// Replay only what happened up to this time: a date (the whole day counts) or a time;
    /// the leaderboard is as of then, with decay applied up to it.
    #[arg(long, value_name = "TIME")]
    pub as_of: Option<String>,
    /// Players who start with a rating from elsewhere: a CSV
    /// `player,rating[,uncertainty][,volatility]`; others start at the system's defaults.
    #[arg(long, value_name = "FILE")]
    pub initial_ratings: Option<PathBuf>,
    /// Mark as provisional (listed, not ranked) the players whose uncertainty, as of the
    /// end, is above this (in the system's units), or `none` [default: the system family's:
    /// 110 Elo points, Lichess's provisional deviation, for a system whose uncertainty is a
    /// deviation of the rating (TrueSkill's sigma 2.34); --preset lichess 75].
    #[arg(long, value_name = "X|none")]
    pub provisional_above: Option<String>,
    /// Mark as provisional the players rated in fewer contests [default: 5, FIDE's first
    /// rating, for a system without an uncertainty; uscf 26; --preset lichess 30].
    #[arg(long, value_name = "N")]
    pub provisional_below: Option<u32>,
    /// Mark as provisional the players rated in fewer rounds.
    #[arg(long, default_value_t = 0, value_name = "N")]
    pub min_rounds: u32,
    /// Mark as inactive (listed, not ranked) the players whose last contest is before this
    /// date or time.
    #[arg(long, value_name = "TIME")]
    pub active_since: Option<String>,
    /// Mark as inactive the players whose last contest is more than this long before the
    /// history's last: `365d`, `52w`, `6m` (30-day months), `2y` (365-day years), or `none`
    /// [default: 365d, FIDE's year without a rated game; --preset lichess 7d].
    #[arg(long, value_name = "SPAN|none")]
    pub active_within: Option<String>,
    /// Rank every rated player, whatever his uncertainty, contests or last contest (for
    /// research: the status column still says what the rule would have made of him).
    #[arg(long)]
    pub rank_all: bool,
    /// Leaderboard order: the rating, or the display (conservative) rating.
    #[arg(long, value_enum, default_value_t = RankBy::Rating)]
    pub rank_by: RankBy,
    /// True ratings of a synthetic history (CSV `[contest,]player,skill`): writes rmse.csv,
    /// the RMSE of the ratings against them per round after removing the mean offset.
    #[arg(long, value_name = "FILE")]
    pub truth: Option<PathBuf>,
    /// Also write `report.html`: the metrics, rating trajectories of the top players, the
    /// distribution of ratings, the metrics over time and (two-player data) calibration.
    #[arg(long)]
    pub report: bool,
    /// The leaderboard's file: leaderboard.csv, leaderboard.json (an array of one object a
    /// player) or leaderboard.parquet.
    #[arg(long, value_enum, default_value_t = crate::output::LeaderboardFormat::Csv)]
    pub leaderboard_format: crate::output::LeaderboardFormat,
    /// Also write predictions.csv (every scored two-entry contest's predicted win, draw and
    /// loss, and its outcome) and contests.csv (every scored contest's ranking metrics).
    #[arg(long)]
    pub predictions: bool,
    /// Leave out every contest in which all entries tie (a drawn game, a standings of ties
    /// only), as the Elo-MMR reference implementation does: neither rated nor scored.
    #[arg(long)]
    pub skip_all_tied: bool,
    /// Fix the leaderboard's scale with a player's rating, NAME=RATING (repeatable): every
    /// rating is shifted by the same amount, so that the anchors' mean matches the mean of
    /// the ratings given (one anchor: exactly). The rating history keeps the system's own
    /// scale.
    #[arg(long, value_name = "NAME=RATING")]
    pub anchor: Vec<String>,
    /// Bootstrap intervals from N replicates (e.g. 200): the metrics' in metrics.json (and
    /// compare's table); with replay also each player's rating and rank intervals and tie
    /// group in leaderboard.csv (the history replayed once per replicate, whole contests
    /// counted Poisson(1) times).
    #[arg(long, value_name = "N")]
    pub ci: Option<u32>,
    /// The share of the bootstrap distribution the intervals cover.
    #[arg(long, default_value_t = 0.95, value_name = "LEVEL")]
    pub ci_level: f64,
    /// The seed of the bootstrap's counts (the same seed gives the same intervals).
    #[arg(long, default_value_t = 1, value_name = "SEED")]
    pub ci_seed: u64,
}

impl RunArgs {
    /// The options of a run: the input read as `input` says, a preset's rules where no option
    /// is given, `history` the history's file type where `--history-format` is not given.
    pub fn options(
        &self,
        input: &InputArgs,
        stream: &StreamArgs,
        preset: &Preset,
        history: HistoryFormat,
    ) -> anyhow::Result<RunOptions> {
        let mut ingest = input.ingest_with(preset)?;
        let mut replay = self.replay_options(&ingest, preset)?;
        set_order(&mut ingest, &mut replay)?;
        Ok(RunOptions {
            input: input.first(),
            ingest,
            replay,
            initial_ratings: self.initial_ratings.clone(),
            truth: self.truth.clone(),
            stream: (stream.stream, stream.stream_block.max(1)),
            quiet: self.quiet,
            json: self.log_format == LogFormat::Json,
            out: self.out.clone(),
            history_format: self.history_format.unwrap_or(history),
            leaderboard_format: self.leaderboard_format,
            leaderboard: self.leaderboard(preset)?,
            report: self.report,
            predictions: self.predictions,
            ci: self.ci()?,
            ci_level: self.ci_level,
        })
    }

    /// The replay options, a preset's where none is given.
    pub fn replay_options(
        &self,
        ingest: &IngestOptions,
        preset: &Preset,
    ) -> Result<ReplayOptions, UsageError> {
        let times = &ingest.time_format;
        let mut opts = ReplayOptions {
            warmup: self.warmup.or(preset.warmup).unwrap_or(0.1),
            as_of: self
                .as_of
                .as_deref()
                .map(|t| as_of_cutoff(t, times))
                .transpose()?,
            skip_all_tied: self.skip_all_tied,
            keep_scores: self.ci.is_some(),
            ..ReplayOptions::default()
        };
        self.rounds
            .apply(&mut opts, preset, season_column(&ingest.map))?;
        Ok(opts)
    }

    /// `--ci`, `--ci-level`, `--ci-seed`.
    pub fn ci(&self) -> Result<Option<crate::bootstrap::CiOptions>, UsageError> {
        if !(self.ci_level > 0.0 && self.ci_level < 1.0) {
            return Err(UsageError(format!(
                "--ci-level {}: the level must lie strictly between 0 and 1",
                self.ci_level
            )));
        }
        let Some(replicates) = self.ci else {
            return Ok(None);
        };
        if !(2..=100_000).contains(&replicates) {
            return Err(UsageError(format!(
                "--ci {replicates}: the replicates must be between 2 and 100000"
            )));
        }
        Ok(Some(crate::bootstrap::CiOptions {
            replicates,
            level: self.ci_level,
            seed: self.ci_seed,
        }))
    }

    /// The leaderboard options (a preset's status rule under the thresholds given).
    pub fn leaderboard(&self, preset: &Preset) -> Result<LeaderboardOptions, UsageError> {
        let anchor = |a: &String| {
            let parsed = a.rsplit_once('=').and_then(|(name, r)| {
                let r: f64 = r.trim().parse().ok()?;
                (r.is_finite() && !name.trim().is_empty()).then(|| (name.trim().to_string(), r))
            });
            parsed.ok_or_else(|| {
                UsageError(format!(
                    "--anchor `{a}` is not of the form NAME=RATING (a finite number)"
                ))
            })
        };
        let anchors = self.anchor.iter().map(anchor).collect::<Result<_, _>>()?;
        let active_since = (self.active_since.as_deref())
            .map(|t| crate::ingest::time::parse_time(t.trim()))
            .transpose()
            .map_err(|e| UsageError(format!("--active-since: {e}")))?;
        let active_within_days = match self.active_within.as_deref().map(str::trim) {
            Some("none") => Some(None),
            Some(s) => Some(Some(
                parse_span_days("--active-within", s).map_err(UsageError)?,
            )),
            None => None,
        };
        let provisional_above = match self.provisional_above.as_deref().map(str::trim) {
            Some("none") => Some(None),
            Some(s) => match s.parse::<f64>() {
                Ok(x) if x.is_finite() && x >= 0.0 => Some(Some(x)),
                _ => {
                    return Err(UsageError(format!(
                        "--provisional-above `{s}` is not an uncertainty (a number of 0 or \
                         more) or `none`"
                    )));
                }
            },
            None => None,
        };
        Ok(LeaderboardOptions {
            rank_by: self.rank_by,
            anchors,
            rule: preset.status.clone(),
            provisional_above,
            min_contests: self.provisional_below,
            min_rounds: self.min_rounds,
            active_within_days,
            active_since,
            rank_all: self.rank_all,
        })
    }
}

#[derive(Debug, Args)]
pub struct ReplayArgs {
    #[command(flatten)]
    pub input: InputArgs,
    /// Rating system.
    #[arg(long, value_enum, default_value_t = SystemKind::Elo)]
    pub system: SystemKind,
    #[command(flatten)]
    pub run: RunArgs,
    /// A named bundle of a system and its parameters in place of --system: fide (FIDE's
    /// rules), uscf (US Chess's) or lichess (Glicko-2 as Lichess sets it); parameters given
    /// go over the preset's.
    #[arg(long, value_name = "NAME", conflicts_with = "system")]
    pub preset: Option<String>,
    /// Leaderboard lines printed.
    #[arg(long, default_value_t = 20)]
    pub top: usize,
    /// Also write h2h.csv: for each two of the top N players of the leaderboard, their games
    /// against each other (two-entry contests of one player a side), the score, and the
    /// likelihood that the higher placed is the stronger (from --ci's replicates, else from
    /// the two ratings' uncertainties).
    #[arg(long, default_value_t = 0, value_name = "N")]
    pub h2h: usize,
    /// Also publish a static website of the leaderboard in DIR (atomically, as the outputs):
    /// index and pages of ranks with a search box, one page per player (rating chart, last
    /// games, head-to-head), the metrics; the change of rank since DIR's previous run. Reads
    /// the input whole.
    #[arg(long, value_name = "DIR")]
    pub site: Option<PathBuf>,
    /// Only read and validate the input; write nothing.
    #[arg(long)]
    pub dry_run: bool,
    #[command(flatten)]
    pub stream: StreamArgs,
    /// Write the replay's full state here after the run (with the outputs), for `--resume`.
    #[arg(long, value_name = "FILE")]
    pub save_state: Option<PathBuf>,
    /// Start from a state written by `--save-state`: apply only the contests it has not
    /// applied (those given again are recognised and skipped); history.csv is continued.
    #[arg(long, value_name = "FILE")]
    pub resume: Option<PathBuf>,
    #[command(flatten)]
    pub params: SystemParams,
}

#[derive(Debug, Args)]
pub struct TuneArgs {
    #[command(flatten)]
    pub input: InputArgs,
    /// Rating system.
    #[arg(long, value_enum, default_value_t = SystemKind::Elo)]
    pub system: SystemKind,
    /// A named bundle of a system and its parameters in place of --system: fide, uscf or
    /// lichess (see the README's federation rules); the grid's values go over it.
    #[arg(long, value_name = "NAME", conflicts_with = "system")]
    pub preset: Option<String>,
    /// Candidate values, `NAME=V1,V2,...;NAME=...` (default: a grid per system around its
    /// published defaults). Besides the system's parameters (words too:
    /// `mov_multiplier=none,538`), `draws=update,ignore`, and with seasons
    /// `season_regress=0,0.1,0.33` and `season_mean=...`.
    #[arg(long, value_name = "GRID")]
    pub grid: Option<String>,
    /// The first side's advantage of every set, in rating points, or `auto`: fitted on the
    /// tuning part alone (the first --fraction of the contests), as replay fits it on its
    /// warm-up.
    #[arg(long, value_name = "POINTS|auto")]
    pub advantage: Option<String>,
    /// Players who start with a rating from elsewhere, in every set's replays: a CSV
    /// `player,rating[,uncertainty][,volatility]` (or a published `team,elo`).
    #[arg(long, value_name = "FILE")]
    pub initial_ratings: Option<PathBuf>,
    /// Draw this many parameter sets at random within each parameter's range of the grid.
    #[arg(long, value_name = "N")]
    pub random: Option<usize>,
    /// Seed of the random draws.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// What to optimise: pair inversion (the Elo-MMR paper's headline metric, defined for
    /// every history), rank deviation, or the log-loss of two-entry contests.
    #[arg(long, value_enum, default_value_t = tune::TuneMetric::Pair)]
    pub metric: tune::TuneMetric,
    /// Share of the contests, from the start, the sets are scored on; the rest is held out.
    #[arg(long, default_value_t = 0.1)]
    pub fraction: f64,
    #[command(flatten)]
    pub rounds: RoundArgs,
    /// Leave out every contest in which all entries tie (a drawn game, a standings of ties
    /// only), as the Elo-MMR reference implementation does: neither rated nor scored.
    #[arg(long)]
    pub skip_all_tied: bool,
    /// Output folder (for tune.csv).
    #[arg(long, default_value = "output")]
    pub out: PathBuf,
    /// Parameter sets printed.
    #[arg(long, default_value_t = 10)]
    pub top: usize,
    /// Print nothing on success.
    #[arg(long)]
    pub quiet: bool,
    /// Worker threads (default: one per core).
    #[arg(long)]
    pub threads: Option<usize>,
    /// Score only shard K of N of the parameter sets (the sets i with i % N = K - 1) and
    /// write them to OUT/tune-shard-K-of-N.json, for `--merge`; run the N shards anywhere.
    #[arg(long, value_name = "K/N", conflicts_with = "merge")]
    pub shard: Option<String>,
    /// Merge the shards' files (or folders holding them) of the same sweep: the result of
    /// one run, byte for byte (the held-out replays run here).
    #[arg(long, value_name = "FILE", num_args = 1..)]
    pub merge: Vec<PathBuf>,
    #[command(flatten)]
    pub stream: StreamArgs,
}

impl TuneArgs {
    /// The job these arguments describe.
    pub fn job(&self) -> anyhow::Result<tune::TuneJob> {
        let preset = with_preset(self.system, self.preset.as_deref())?;
        let (system, mut base) = (preset.system, preset.params.clone());
        if let Some(a) = &self.advantage {
            base.insert("advantage".into(), advantage_value(a).map_err(UsageError)?);
        }
        let grid = match &self.grid {
            Some(g) => tune::parse_grid(g).map_err(UsageError)?,
            None => tune::numeric_grid(system.default_grid()),
        };
        let mut ingest = self.input.ingest_with(&preset)?;
        let mut replay = ReplayOptions {
            skip_all_tied: self.skip_all_tied,
            ..ReplayOptions::default()
        };
        self.rounds
            .apply(&mut replay, &preset, season_column(&ingest.map))?;
        set_order(&mut ingest, &mut replay)?;
        Ok(tune::TuneJob {
            // What tune does not write is left at its defaults.
            run: RunOptions {
                input: self.input.first(),
                ingest,
                replay,
                initial_ratings: self.initial_ratings.clone(),
                stream: (self.stream.stream, self.stream.stream_block.max(1)),
                quiet: self.quiet,
                out: self.out.clone(),
                history_format: HistoryFormat::None,
                ci_level: 0.95,
                ..RunOptions::default()
            },
            system,
            grid,
            base,
            random: self.random,
            seed: self.seed,
            metric: self.metric,
            fraction: self.fraction,
            top: self.top,
            shard: self.shard.as_deref().map(parse_shard).transpose()?,
            merge: self.merge.clone(),
        })
    }
}

/// `K/N`: shard K (1-based) of N.
fn parse_shard(text: &str) -> Result<(usize, usize), UsageError> {
    let bad = || {
        UsageError(format!(
            "--shard {text}: expected K/N with 1 <= K <= N <= 10000"
        ))
    };
    let (k, n) = text.split_once('/').ok_or_else(bad)?;
    let (k, n): (usize, usize) = (
        k.trim().parse().map_err(|_| bad())?,
        n.trim().parse().map_err(|_| bad())?,
    );
    if k == 0 || k > n || n > 10_000 {
        return Err(bad());
    }
    Ok((k, n))
}

/// Whether and how a replay streams its input.
#[derive(Debug, Args)]
pub struct StreamArgs {
    /// Stream the input (read it twice: once to count and check its contests, once to rate
    /// them as they come; a `compare` reads it once for all its systems), so that memory
    /// holds the players, not the contests. `auto` streams games and standings (CSV or
    /// Parquet) of 256 MiB and more (a compressed file counts five times its size) and PGN
    /// of 4 million games and more (estimated from its first MiB), when they are in time
    /// order; `on` streams or says why it cannot; `off` reads the input whole.
    #[arg(long, value_enum, default_value_t = StreamMode::Auto, value_name = "WHEN")]
    pub stream: StreamMode,
    /// Contests per streamed block (for tests of the streaming engine).
    #[arg(long, hide = true, default_value_t = crate::ingest::stream::BLOCK)]
    pub stream_block: usize,
}

#[derive(Debug, Args)]
pub struct CompareArgs {
    #[command(flatten)]
    pub input: InputArgs,
    /// Systems to compare, comma-separated, or `all`; `SYSTEM@LABEL` is an entry of its own,
    /// to compare a system with itself under other parameters or options (`elo,elo@mov`
    /// with `--param elo@mov:mov_multiplier=538`).
    #[arg(long, default_value = "all", value_name = "S1,S2,...|all")]
    pub systems: String,
    #[command(flatten)]
    pub run: RunArgs,
    /// A parameter of one system, SYSTEM:NAME=VALUE (repeatable), e.g. `elo:k=24`; besides
    /// the system's parameters, an entry's `draws` (update, ignore) and, with seasons,
    /// `season_regress` and `season_mean`.
    #[arg(long = "param", value_name = "SYSTEM:NAME=VALUE")]
    pub param: Vec<String>,
    /// The first side's advantage for every system that has one (elo, elo-gaussian, glicko,
    /// glicko2, trueskill, yuksel, bt), in each system's points, or `auto` (fitted on the
    /// warm-up; bt fits its own); the others are compared without one (and say so).
    #[arg(long, value_name = "POINTS|auto")]
    pub advantage: Option<String>,
    /// Replay only shard K of N of the systems (those i with i % N = K - 1 in the --systems
    /// list) and write them with OUT/compare-shard-K-of-N.json, for `--merge`.
    #[arg(long, value_name = "K/N", conflicts_with = "merge")]
    pub shard: Option<String>,
    /// Merge the shards' output folders (or their compare-shard files, beside their system
    /// folders) of the same comparison: the tables and folders of one run.
    #[arg(long, value_name = "DIR", num_args = 1..)]
    pub merge: Vec<PathBuf>,
    #[command(flatten)]
    pub stream: StreamArgs,
}

/// Parameters of the systems. Each is checked against the chosen system: giving one that the
/// system does not have is an error.
#[derive(Debug, Args, Default)]
#[command(next_help_heading = "System parameters (defaults from the papers)")]
pub struct SystemParams {
    /// K-factor: the largest change of one game (Elo).
    #[arg(long)]
    pub k: Option<f64>,
    /// Rating difference for 10:1 odds.
    #[arg(long)]
    pub scale: Option<f64>,
    /// A new player's rating.
    #[arg(long)]
    pub start: Option<f64>,
    /// Lowest possible rating (Elo; none by default).
    #[arg(long)]
    pub floor: Option<f64>,
    /// Elo: the outcome is the share of points Pa/(Pa+Pb).
    #[arg(long)]
    pub score_share: bool,
    /// L, weight of the margin term L*Pa/(Pa+Pb) (Elo).
    #[arg(long)]
    pub margin: Option<f64>,
    /// V, the win bonus V*S (Elo).
    #[arg(long)]
    pub win_bonus: Option<f64>,
    /// Alpha >= 1, fading of past games as the deviation grows (Yuksel).
    #[arg(long)]
    pub alpha: Option<f64>,
    /// Largest change of one update (Yuksel).
    #[arg(long)]
    pub max_delta: Option<f64>,
    /// The scale factor s <= 1 of the step (Yuksel).
    #[arg(long)]
    pub step_scale: Option<f64>,
    /// Yuksel: zero-sum updates (Algorithm 2).
    #[arg(long)]
    pub zero_sum: bool,
    /// Performance spread for a contest of weight 1.
    #[arg(long)]
    pub beta: Option<f64>,
    /// Skill drift per contest (Elo-MMR/MMchi).
    #[arg(long)]
    pub gamma: Option<f64>,
    /// Transfer rate of the pseudodiffusion (Elo-MMR).
    #[arg(long)]
    pub rho: Option<f64>,
    /// Opponents nearest in rating per performance, 0 = all (Elo-MMR/MMchi).
    #[arg(long)]
    pub subsample: Option<usize>,
    /// Logistic factors kept per player before compression (Elo-MMR).
    #[arg(long)]
    pub history: Option<usize>,
    /// Drift variance added per day since a player's last round (Elo-MMR/MMchi).
    #[arg(long)]
    pub drift_per_day: Option<f64>,
    /// Elo-MMR/MMchi: a tie is half a win and half a loss (default: a win plus a loss).
    #[arg(long)]
    pub split_ties: bool,
    /// Growth of the rating deviation per rating period, RD^2 += c^2 (Glicko).
    #[arg(long)]
    pub c: Option<f64>,
    /// Glicko-2: the system constant; TrueSkill: the dynamics, added to sigma before each
    /// contest.
    #[arg(long)]
    pub tau: Option<f64>,
    /// The prior's standard deviation, in rating points (Bradley-Terry).
    #[arg(long)]
    pub prior_sd: Option<f64>,
    /// The first side's advantage (home, white, a games file's side a unless its `neutral`
    /// column says otherwise), in the system's rating points, or `auto`: fitted by
    /// Bradley-Terry on the warm-up (bt: with its ratings). Elo, elo-gaussian, glicko,
    /// glicko2, trueskill, yuksel and bt.
    #[arg(long, value_name = "POINTS|auto")]
    pub advantage: Option<String>,
    /// A multiplier of K from the margin a game was won by, where the input gives both
    /// sides' points: `538`, FiveThirtyEight's `ln(max(M, 1) + 1) * 2.2 / (D * 0.001 + 2.2)`
    /// (M the margin, D the winner's pregame lead, the first side's advantage included), or
    /// `none` [default: none]. Elo and Elo with the normal curve.
    #[arg(long, value_name = "538|none")]
    pub mov_multiplier: Option<String>,
    /// Any parameter by name, NAME=VALUE (repeatable).
    #[arg(long = "param", value_name = "NAME=VALUE")]
    pub param: Vec<String>,
}

/// The defaults of every system that has a parameter, from the registry: `elo 32,
/// elo-gaussian 32`, or one value when all agree.
fn defaults_of(param: &str) -> Option<String> {
    let mut found: Vec<(&str, String)> = Vec::new();
    for &kind in SystemKind::ALL {
        let defaults =
            crate::systems::dispatch(kind, &ParamMap::new(), crate::systems::ParamsOf).ok()?;
        if let Some(v) = defaults.get(param) {
            let text = match v {
                Value::Number(n) => {
                    let x = n.as_f64().unwrap_or(f64::NAN);
                    if x.fract() == 0.0 {
                        format!("{x:.0}")
                    } else {
                        format!("{}", (x * 1e4).round() / 1e4)
                    }
                }
                Value::Null => "none".to_string(),
                other => other.to_string(),
            };
            found.push((kind.name(), text));
        }
    }
    if found.is_empty() {
        return None;
    }
    if found.iter().all(|(_, v)| *v == found[0].1) {
        let names: Vec<&str> = found.iter().map(|(k, _)| *k).collect();
        return Some(format!("{}: {}", names.join(", "), found[0].1));
    }
    let each: Vec<String> = found.iter().map(|(k, v)| format!("{k} {v}")).collect();
    Some(each.join(", "))
}

/// The command line with every system parameter's help ending in its systems and their
/// defaults, read from the registry (so the help never states a default the code lacks).
pub fn command_with_defaults() -> clap::Command {
    use clap::CommandFactory;
    with_defaults(Cli::command())
}

/// `cmd` with every system parameter's help ending in its systems and their defaults, in every
/// subcommand (for another program's command line that takes [`SystemParams`]: the lab's).
pub fn with_defaults(cmd: clap::Command) -> clap::Command {
    fn annotate(cmd: clap::Command) -> clap::Command {
        let ids: Vec<String> = cmd
            .get_arguments()
            .map(|a| a.get_id().as_str().to_string())
            .collect();
        let mut cmd = cmd;
        for id in ids {
            if let Some(d) = defaults_of(&id) {
                cmd = cmd.mut_arg(id.as_str(), |a| {
                    let help = a
                        .get_help()
                        .map(std::string::ToString::to_string)
                        .unwrap_or_default();
                    a.help(format!("{help} [{d}]"))
                });
            }
        }
        let subs: Vec<String> = cmd
            .get_subcommands()
            .map(|c| c.get_name().to_string())
            .collect();
        for name in subs {
            cmd = cmd.mut_subcommand(name, annotate);
        }
        cmd
    }
    annotate(cmd)
}

/// A span of time as days: `365d`, `52w`, `6m` (30-day months), `2y` (365-day years), or a
/// bare number of days.
fn parse_span_days(flag: &str, text: &str) -> Result<f64, String> {
    let t = text.trim();
    let (num, unit) = match t.char_indices().last() {
        Some((i, c)) if c.is_ascii_alphabetic() => (&t[..i], c.to_ascii_lowercase()),
        _ => (t, 'd'),
    };
    let per = match unit {
        'd' => Some(1.0),
        'w' => Some(7.0),
        'm' => Some(30.0),
        'y' => Some(365.0),
        _ => None,
    };
    match (per, num.trim().parse::<f64>()) {
        (Some(per), Ok(v)) if v.is_finite() && v >= 0.0 => Ok(v * per),
        _ => Err(format!(
            "{flag} `{t}` is not a span such as 365d, 52w, 6m or 2y"
        )),
    }
}

/// Whether the contests keep the input's order (refused with rounds of a calendar period,
/// which gather contests by time), and whether the reader gathers events.
fn set_order(ingest: &mut IngestOptions, replay: &mut ReplayOptions) -> Result<(), UsageError> {
    if ingest.input_order && replay.period.calendar_key(0).is_some() {
        return Err(UsageError(
            "--order input replays the contests as the input lists them, a game or a series a \
             round: --period day, week and month gather contests by time (use --order time)"
                .into(),
        ));
    }
    replay.input_order = ingest.input_order;
    ingest.events = replay.period == Period::Event;
    Ok(())
}

/// `--rating-period`: a span of more than 0 days (and at most 100 years).
fn rating_period_days(text: Option<&str>) -> Result<Option<f64>, UsageError> {
    let Some(text) = text else {
        return Ok(None);
    };
    let days = parse_span_days("--rating-period", text).map_err(UsageError)?;
    if !(days > 0.0 && days <= 36_500.0) {
        return Err(UsageError(format!(
            "--rating-period `{}`: a rating period lasts more than 0 days and at most 100 years",
            text.trim()
        )));
    }
    Ok(Some(days))
}

/// The preset a `--preset` names, else `system` with its defaults and no option of its own.
fn with_preset(system: SystemKind, preset: Option<&str>) -> Result<Preset, UsageError> {
    match preset {
        None => Ok(Preset::none(system)),
        Some(name) => crate::presets::preset(name).map_err(UsageError),
    }
}

/// `--advantage`'s value: a number of points, or `auto`.
fn advantage_value(text: &str) -> Result<Value, String> {
    match text.trim() {
        "auto" => Ok(Value::String("auto".into())),
        t => t
            .parse::<f64>()
            .ok()
            .and_then(crate::systems::number)
            .ok_or_else(|| format!("--advantage: `{t}` is neither a number of points nor auto")),
    }
}

impl SystemParams {
    /// The parameters given, by name.
    pub fn to_map(&self) -> Result<ParamMap, String> {
        let mut m = ParamMap::new();
        let numbers = [
            ("k", self.k),
            ("scale", self.scale),
            ("start", self.start),
            ("floor", self.floor),
            ("margin", self.margin),
            ("win_bonus", self.win_bonus),
            ("alpha", self.alpha),
            ("max_delta", self.max_delta),
            ("step_scale", self.step_scale),
            ("beta", self.beta),
            ("gamma", self.gamma),
            ("rho", self.rho),
            ("subsample", self.subsample.map(|v| v as f64)),
            ("history", self.history.map(|v| v as f64)),
            ("drift_per_day", self.drift_per_day),
            ("c", self.c),
            ("tau", self.tau),
            ("prior_sd", self.prior_sd),
        ];
        for (k, v) in numbers.into_iter().filter_map(|(k, v)| Some((k, v?))) {
            let n = crate::systems::number(v);
            let why = || format!("--{}: {v} is not a finite number", k.replace('_', "-"));
            m.insert(k.into(), n.ok_or_else(why)?);
        }
        if let Some(a) = &self.advantage {
            m.insert("advantage".into(), advantage_value(a)?);
        }
        if let Some(v) = &self.mov_multiplier {
            m.insert("mov_multiplier".into(), Value::from(v.trim()));
        }
        let flags = [
            ("score_share", self.score_share),
            ("zero_sum", self.zero_sum),
            ("split_ties", self.split_ties),
        ];
        for (name, _) in flags.into_iter().filter(|f| f.1) {
            m.insert(name.into(), Value::Bool(true));
        }
        for p in &self.param {
            parse_param(p, &mut m)?;
        }
        Ok(m)
    }
}

impl ReplayArgs {
    /// The job these arguments describe.
    pub fn job(&self) -> anyhow::Result<ReplayJob> {
        let preset = with_preset(self.system, self.preset.as_deref())?;
        let mut params = preset.params.clone();
        params.extend(self.params.to_map().map_err(UsageError)?);
        Ok(ReplayJob {
            run: self
                .run
                .options(&self.input, &self.stream, &preset, HistoryFormat::Csv)?,
            system: preset.system,
            params,
            top: self.top,
            dry_run: self.dry_run,
            save_state: self.save_state.clone(),
            resume: self.resume.clone(),
            h2h: self.h2h,
            site: self.site.clone(),
        })
    }
}

impl CompareArgs {
    /// The job these arguments describe.
    pub fn job(&self) -> anyhow::Result<compare::CompareJob> {
        // A preset in --systems is its system with the preset's parameters under them (its
        // label, if it has one, kept: `lichess@fast`).
        let mut presets = Vec::new();
        let entries = self
            .systems
            .split(',')
            .map(str::trim)
            .filter(|n| !n.is_empty());
        let names: Vec<String> = entries
            .enumerate()
            .map(|(k, n)| {
                let (base, label) = n.split_once('@').map_or((n, None), |(b, l)| (b, Some(l)));
                match crate::presets::preset(base.trim()) {
                    Ok(p) if SystemKind::from_name(base.trim()).is_none() => {
                        presets.push((k, p.clone()));
                        let system = p.system.name();
                        label.map_or_else(|| system.to_string(), |l| format!("{system}@{l}"))
                    }
                    _ => n.to_string(),
                }
            })
            .collect();
        let (systems, names) = compare::parse_systems(&names.join(",")).map_err(UsageError)?;
        let mut params = compare::parse_system_params(&self.param, &names).map_err(UsageError)?;
        let no_preset = with_preset(SystemKind::Elo, None)?;
        let run = self
            .run
            .options(&self.input, &self.stream, &no_preset, HistoryFormat::None)?;
        // A preset's growth and rating period are its system's own (the round grouping is
        // the comparison's: --period).
        let mut system_replay = vec![run.replay.clone(); systems.len()];
        for (k, p) in presets {
            let mut merged = p.params.clone();
            merged.extend(std::mem::take(&mut params[k]));
            params[k] = merged;
            let own = Preset {
                period: None,
                warmup: None,
                ..p
            };
            let mut replay = self.run.replay_options(&run.ingest, &own)?;
            replay.input_order = run.replay.input_order;
            system_replay[k] = replay;
        }
        // An entry's draw policy and seasons' regression, taken out of its parameters first
        // (`elo@mov:season_regress=0.33`).
        for (map, replay) in params.iter_mut().zip(system_replay.iter_mut()) {
            (*map, *replay) = crate::jobs::options::set_options(map, replay).map_err(UsageError)?;
        }
        let mut without_advantage = Vec::new();
        if let Some(a) = &self.advantage {
            let v = advantage_value(a).map_err(UsageError)?;
            for (kind, map) in systems.iter().zip(params.iter_mut()) {
                let mut test = map.clone();
                test.insert("advantage".into(), Value::from(0.0));
                if crate::first_side::checkable(*kind, &test).is_ok() {
                    map.entry("advantage").or_insert_with(|| v.clone());
                } else {
                    without_advantage.push(*kind);
                }
            }
        }
        Ok(compare::CompareJob {
            run,
            system_replay,
            systems,
            names,
            params,
            without_advantage,
            shard: self.shard.as_deref().map(parse_shard).transpose()?,
            merge: self.merge.clone(),
        })
    }
}

/// The exclusive cutoff of `--as-of`: the end of the day for a date, the time itself (one
/// second after it) for a time. Read in the input's `--time-format` (when one is given and
/// it reads the value) or in any text form; in `auto` an 8-digit integer is refused as
/// ambiguous (a date or Unix seconds).
fn as_of_cutoff(text: &str, times: &TimeFormat) -> Result<i64, UsageError> {
    use crate::ingest::time::{TimeParser, parse_time};
    let t_text = text.trim();
    // Whether the value is a date (it covers its whole day) follows from the form that read
    // it: the flag's, when it reads the value, else the text forms.
    let explicit = match times {
        TimeFormat::Auto => None,
        f => TimeParser::new(f.clone()).parse(t_text).ok().map(|t| {
            let date = match f {
                TimeFormat::Yyyymmdd | TimeFormat::Date => true,
                TimeFormat::Strftime(p) => !strftime_has_clock(p),
                _ => false,
            };
            (t, date)
        }),
    };
    let (t, date_only) = match explicit {
        Some(read) => read,
        None => {
            let t = parse_time(t_text).map_err(|e| UsageError(format!("--as-of: {e}")))?;
            // The text forms without a clock are `YYYY-MM-DD` and `YYYY.MM.DD`; an integer is
            // Unix seconds.
            let date = t_text.len() == 10 && !t_text.bytes().all(|b| b.is_ascii_digit());
            (t, date)
        }
    };
    Ok(if date_only { t + 86_400 } else { t + 1 })
}

/// True when a strftime pattern reads a time of day (or an instant), not only a date.
fn strftime_has_clock(pattern: &str) -> bool {
    use chrono::format::{Fixed, Item, Numeric, StrftimeItems};
    StrftimeItems::new(pattern).any(|i| match i {
        Item::Numeric(n, _) => matches!(
            n,
            Numeric::Hour
                | Numeric::Hour12
                | Numeric::Minute
                | Numeric::Second
                | Numeric::Nanosecond
                | Numeric::Timestamp
        ),
        Item::Fixed(f) => matches!(
            f,
            Fixed::RFC3339 | Fixed::RFC2822 | Fixed::UpperAmPm | Fixed::LowerAmPm
        ),
        _ => false,
    })
}

fn set_threads(n: Option<usize>) -> anyhow::Result<()> {
    if let Some(n) = n {
        if n == 0 {
            return Err(UsageError("--threads must be at least 1".into()).into());
        }
        rayon::ThreadPoolBuilder::new()
            .num_threads(n)
            .build_global()
            .map_err(|e| UsageError(format!("--threads: {e}")))?;
    }
    Ok(())
}

/// Runs a parsed command line.
pub fn run(cli: Cli, stdout: &mut dyn Write) -> anyhow::Result<()> {
    match cli.command {
        Command::Replay(args) => {
            set_threads(args.run.threads)?;
            run_replay(&args.job()?, stdout)
        }
        Command::Compare(args) => {
            set_threads(args.run.threads)?;
            compare::run_compare(&args.job()?, stdout)
        }
        Command::Matchmake(job) => crate::jobs::matchmake::run_matchmake(&job, stdout),
        Command::Names(args) => crate::jobs::names::run_names(
            &crate::jobs::names::NamesJob {
                input: args.input.first(),
                ingest: args.input.ingest()?,
                out: args.out.clone(),
                quiet: args.quiet,
                one_edit: args.one_edit,
            },
            stdout,
        ),
        Command::Completions { shell } => {
            clap_complete::generate(shell, &mut command_with_defaults(), "rate-batch", stdout);
            Ok(())
        }
        Command::ProbeParquet { file } => {
            if crate::ingest::probe_parquet_here(&file) {
                Ok(())
            } else {
                std::process::exit(1)
            }
        }
        Command::Tune(args) => {
            set_threads(args.threads)?;
            tune::run_tune(&args.job()?, stdout)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn as_of_covers_a_whole_day_only_for_a_date() {
        let day = |t: &str, f: &str| as_of_cutoff(t, &f.parse().unwrap()).unwrap();
        const JAN1: i64 = 1_704_067_200; // 2024-01-01T00:00:00Z
        assert_eq!(day("2024-01-01", "auto"), JAN1 + 86_400);
        assert_eq!(day("2024-01-01T12:00:00Z", "auto"), JAN1 + 43_200 + 1);
        assert_eq!(day("1704067200", "auto"), JAN1 + 1, "seconds, not a day");
        assert_eq!(day("20240101", "yyyymmdd"), JAN1 + 86_400);
        // A value the flag does not read falls back to the text forms, which decide.
        assert_eq!(day("2024-01-01T12:00:00Z", "yyyymmdd"), JAN1 + 43_200 + 1);
        assert_eq!(day("1704067200", "unix"), JAN1 + 1);
        assert_eq!(day("01/01/2024", "%d/%m/%Y"), JAN1 + 86_400);
        assert_eq!(day("202401010000", "%Y%m%d%H%M"), JAN1 + 1);
        assert!(
            as_of_cutoff("20240101", &TimeFormat::Auto).is_err(),
            "ambiguous"
        );
    }

    #[test]
    fn spans_read_their_unit_and_their_errors_name_their_flag() {
        assert_eq!(parse_span_days("--rating-period", " 2w "), Ok(14.0));
        assert_eq!(parse_span_days("--active-within", "6M"), Ok(180.0));
        assert_eq!(parse_span_days("--active-within", "1.5"), Ok(1.5));
        // A bad unit and a bad number alike name the flag that was given.
        for bad in ["3x", "-3d", "d", "infd"] {
            assert_eq!(
                parse_span_days("--rating-period", bad),
                Err(format!(
                    "--rating-period `{bad}` is not a span such as 365d, 52w, 6m or 2y"
                ))
            );
        }
    }
}
