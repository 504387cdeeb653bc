//! Argument parsing only: every subcommand becomes a plain job of [`crate::jobs`], which does
//! the work. The subcommands and options are those the product's `simulate` and `experiment`
//! had before the lab became a program of its own.

use crate::simulate;
use clap::{Args, Parser, Subcommand};
use rate_batch::cli::SystemParams;
use rate_batch::jobs::UsageError;
use rate_batch_core::systems::SystemKind;
use std::io::Write;
use std::path::{Path, PathBuf};

/// The simulation lab of rate-batch: synthetic histories with known true strengths, and the
/// Yuksel 2024 experiments.
#[derive(Debug, Parser)]
#[command(name = "rate-batch-lab", version, about, max_term_width = 100)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Command,
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// Write a synthetic history with known true strengths.
    Simulate {
        #[command(subcommand)]
        scenario: Scenario,
    },
    /// Regenerate the Yuksel paper's population comparison (figures 5 and 7) in one command:
    /// experiment.md (a table), rmse.csv, experiment.html (charts) in --out.
    Experiment {
        /// Players.
        #[arg(long, default_value_t = 1000)]
        players: usize,
        /// Rounds.
        #[arg(long, default_value_t = 2000)]
        rounds: usize,
        /// Random seed (the same population and draws for every system); several, comma
        /// separated, repeat the experiment on each and report the mean and the range.
        #[arg(long, value_delimiter = ',', default_value = "2024")]
        seed: Vec<u64>,
        /// Output folder.
        #[arg(long, default_value = "output/experiment")]
        out: PathBuf,
    },
}

/// The command line with every system parameter's help ending in its systems and their
/// defaults, as the product's (`yuksel-population` takes the system parameters).
pub fn command_with_defaults() -> clap::Command {
    use clap::CommandFactory;
    rate_batch::cli::with_defaults(Cli::command())
}

#[derive(Debug, Subcommand)]
pub enum Scenario {
    /// A chess league: a double round robin with draws, from known true strengths.
    League {
        /// Number of players.
        #[arg(long, default_value_t = 50)]
        players: usize,
        /// Random seed.
        #[arg(long, default_value_t = 2024)]
        seed: u64,
        /// Davidson's draw parameter (equal players draw with probability nu/(2+nu)).
        #[arg(long, default_value_t = 0.8)]
        draw_nu: f64,
        /// The games CSV to write.
        #[arg(long, default_value = "output/league.csv")]
        out: PathBuf,
        /// The true strengths CSV to write.
        #[arg(long, default_value = "output/league-truth.csv")]
        truth: PathBuf,
    },
    /// A pool of players meeting at random, one game a minute (large histories, benchmarks).
    Pool {
        /// Number of players.
        #[arg(long, default_value_t = 10_000)]
        players: usize,
        /// Number of games.
        #[arg(long, default_value_t = 1_000_000)]
        games: usize,
        /// Random seed.
        #[arg(long, default_value_t = 7)]
        seed: u64,
        /// The games file to write, its format chosen by the name: a games CSV
        /// (`time,a,b,result`), or PGN in the style of the Lichess database (the same games,
        /// with tags and a move text that is not legal chess) if it ends in `.pgn`; a further
        /// `.gz` or `.zst` compresses it (gzip, or zstd at level 3), e.g. `pool.pgn.zst`.
        #[arg(long, default_value = "output/pool.csv")]
        out: PathBuf,
    },
    /// The Elo-MMR paper's small synthetic set: 1,000 players, 5 a round, 15,000 rounds.
    SynthSmall(SynthArgs),
    /// Yuksel 2024's population (section 5): true ratings N(1500, 600^2), everyone starts as a
    /// newcomer, one game per player per round paired by matchmaking on the system's own
    /// ratings (or at random), outcomes from Elo's probability of the true ratings.
    YukselPopulation(Box<PopulationArgs>),
    /// Yuksel 2024's single new player (section 5.2, figures 1-3) against a converged pool,
    /// rated by Yuksel, Elo (K 24), Glicko and TrueSkill (scaled to the 1500 scale) side by
    /// side, opponents by matchmaking or at random within +-250 of the true rating.
    YukselSingle {
        /// How the player's true rating moves.
        #[arg(long, value_enum, default_value_t = crate::simlab::Shape::Fixed)]
        shape: crate::simlab::Shape,
        /// Games.
        #[arg(long, default_value_t = 1000)]
        games: usize,
        /// Opponents at random within +-250 of the true rating instead of matchmaking.
        #[arg(long)]
        random_opponents: bool,
        /// Random seed.
        #[arg(long, default_value_t = 2024)]
        seed: u64,
        /// Per game: the true rating, each system's estimate and its last-10 win rate (CSV).
        #[arg(long, default_value = "output/single.csv")]
        out: PathBuf,
    },
    /// The Elo-MMR paper's large synthetic set: 10,000 players, all in each of 50 rounds.
    SynthLarge(SynthArgs),
    /// A crowd: three contests of 1,000,000 entrants each (the same players, skills drifting
    /// between them), for cost per placing at scale; `--players N --group N` for other sizes.
    Crowd(SynthArgs),
}

/// The population simulation's options.
#[derive(Debug, Args)]
pub struct PopulationArgs {
    /// The rating system run online.
    #[arg(long, value_enum, default_value_t = SystemKind::Yuksel)]
    pub system: SystemKind,
    /// Number of players.
    #[arg(long, default_value_t = 1000)]
    pub players: usize,
    /// Rounds (one game per player each).
    #[arg(long, default_value_t = 1000)]
    pub rounds: usize,
    /// Pair players at random instead of by matchmaking.
    #[arg(long)]
    pub random_pairing: bool,
    /// Shuffle window of the matchmaking, as a fraction of the population.
    #[arg(long, default_value_t = 0.05)]
    pub shuffle_fraction: f64,
    /// Random seed.
    #[arg(long, default_value_t = 2024)]
    pub seed: u64,
    /// Per round: RMSE against the true ratings and the share of balanced win rates (CSV).
    #[arg(long, default_value = "output/population-stats.csv")]
    pub stats: PathBuf,
    /// The games played (CSV `time,a,b,result`), if wanted.
    #[arg(long)]
    pub games: Option<PathBuf>,
    /// The true ratings (CSV `player,true_rating`), if wanted.
    #[arg(long)]
    pub truth: Option<PathBuf>,
    #[command(flatten)]
    pub params: SystemParams,
}

/// Overrides of a synthetic contest set (the defaults are the paper's).
#[derive(Debug, Args)]
pub struct SynthArgs {
    /// Number of players.
    #[arg(long)]
    players: Option<usize>,
    /// Players per round.
    #[arg(long)]
    group: Option<usize>,
    /// Sessions: every player plays once per session, skills drift between sessions.
    #[arg(long)]
    sessions: Option<usize>,
    /// Random seed.
    #[arg(long, default_value_t = 2021)]
    seed: u64,
    /// Standard deviation of a logistic performance around the skill.
    #[arg(long, default_value_t = 200.0)]
    perf_sd: f64,
    /// Standard deviation of the initial skills (mean 1500).
    #[arg(long, default_value_t = 350.0)]
    skill_sd: f64,
    /// Standard deviation of the skill drift between sessions.
    #[arg(long, default_value_t = 35.0)]
    drift_sd: f64,
    /// The standings CSV to write (default output/synth-small.csv or output/synth-large.csv).
    #[arg(long)]
    out: Option<PathBuf>,
    /// The true skills CSV to write (default: beside --out, with -truth before the extension).
    #[arg(long)]
    truth: Option<PathBuf>,
}

impl PopulationArgs {
    /// The job these arguments describe.
    pub fn job(&self) -> Result<crate::jobs::PopulationJob, UsageError> {
        Ok(crate::jobs::PopulationJob {
            system: self.system,
            params: self.params.to_map().map_err(UsageError)?,
            players: self.players,
            rounds: self.rounds,
            random_pairing: self.random_pairing,
            shuffle_fraction: self.shuffle_fraction,
            seed: self.seed,
            stats: self.stats.clone(),
            games: self.games.clone(),
            truth: self.truth.clone(),
        })
    }
}

impl SynthArgs {
    fn config(&self, base: simulate::SynthConfig) -> simulate::SynthConfig {
        simulate::SynthConfig {
            players: self.players.unwrap_or(base.players),
            group: self.group.unwrap_or(base.group),
            sessions: self.sessions.unwrap_or(base.sessions),
            seed: self.seed,
            perf_sd: self.perf_sd,
            skill_sd: self.skill_sd,
            drift_sd: self.drift_sd,
            ..base
        }
    }

    fn paths(&self, name: &str) -> (PathBuf, PathBuf) {
        let out = self
            .out
            .clone()
            .unwrap_or_else(|| Path::new("output").join(format!("{name}.csv")));
        let truth = self.truth.clone().unwrap_or_else(|| {
            let stem = out.file_stem().and_then(|s| s.to_str()).unwrap_or(name);
            out.with_file_name(format!("{stem}-truth.csv"))
        });
        (out, truth)
    }
}

/// Runs a parsed command line.
pub fn run(cli: Cli, stdout: &mut dyn Write) -> anyhow::Result<()> {
    match cli.command {
        Command::Experiment {
            players,
            rounds,
            seed,
            out,
        } => crate::jobs::experiment(players, rounds, &seed, &out, stdout),
        Command::Simulate { scenario } => match scenario {
            Scenario::League {
                players,
                seed,
                draw_nu,
                out,
                truth,
            } => {
                let cfg = simulate::LeagueConfig {
                    players,
                    seed,
                    draw_nu,
                    ..simulate::LeagueConfig::default()
                };
                crate::jobs::league(&cfg, &out, &truth, stdout)
            }
            Scenario::Pool {
                players,
                games,
                seed,
                out,
            } => {
                let cfg = simulate::PoolConfig {
                    players,
                    games,
                    seed,
                    ..simulate::PoolConfig::default()
                };
                crate::jobs::pool(&cfg, &out, stdout)
            }
            Scenario::SynthSmall(args) => {
                synth(&args, "synth-small", simulate::SynthConfig::small(), stdout)
            }
            Scenario::YukselPopulation(args) => crate::jobs::population(&args.job()?, stdout),
            Scenario::YukselSingle {
                shape,
                games,
                random_opponents,
                seed,
                out,
            } => crate::jobs::single(shape, games, random_opponents, seed, &out, stdout),
            Scenario::SynthLarge(args) => {
                synth(&args, "synth-large", simulate::SynthConfig::large(), stdout)
            }
            Scenario::Crowd(args) => synth(&args, "crowd", simulate::SynthConfig::crowd(), stdout),
        },
    }
}

/// `simulate synth-small | synth-large | crowd`: the preset `base` with the arguments given,
/// written to the scenario's default paths unless named.
fn synth(
    args: &SynthArgs,
    name: &str,
    base: simulate::SynthConfig,
    stdout: &mut dyn Write,
) -> anyhow::Result<()> {
    let (out, truth) = args.paths(name);
    crate::jobs::synth(&args.config(base), &out, &truth, stdout)
}
