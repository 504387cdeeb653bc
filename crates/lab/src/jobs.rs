//! The simulation lab's jobs (`simulate` and `experiment`), taking plain configurations: the
//! command line only parses them.

use crate::simlab;
use crate::simulate;
use anyhow::Context as _;
use rate_batch::jobs::UsageError;
use rate_batch::output::FileSet;
use rate_batch_core::systems::{ParamMap, SystemKind, parse_param};
use std::io::Write;
use std::path::{Path, PathBuf};

/// The context of an error while writing `path`: the message names the file.
fn cannot_write(path: &Path) -> String {
    format!("cannot write {}", path.display())
}

fn write_file(
    path: &Path,
    write: impl FnOnce(&mut dyn Write) -> std::io::Result<()>,
) -> anyhow::Result<()> {
    rate_batch::output::write_one(path, write).with_context(|| cannot_write(path))
}

/// The single-player experiment (Yuksel 2024, section 5.2): one new player rated by four
/// systems side by side.
pub fn single(
    shape: simlab::Shape,
    games: usize,
    random_opponents: bool,
    seed: u64,
    out: &Path,
    stdout: &mut dyn Write,
) -> anyhow::Result<()> {
    use simlab::{Single, SingleConfig};
    if games == 0 {
        return Err(UsageError("--games must be at least 1".into()).into());
    }
    let cfg = SingleConfig {
        shape,
        games,
        random_opponents,
        window: 5,
        seed,
    };
    let systems: [(&str, SystemKind, &[&str]); 4] = [
        ("yuksel", SystemKind::Yuksel, &[]),
        ("elo", SystemKind::Elo, &["k=24"]),
        ("glicko", SystemKind::Glicko, &[]),
        (
            "trueskill",
            SystemKind::TrueSkill,
            &["mu=1500", "sigma=500", "beta=250", "tau=5"],
        ),
    ];
    let mut runs = Vec::new();
    for (_, kind, specs) in &systems {
        let mut params = ParamMap::new();
        for spec in *specs {
            parse_param(spec, &mut params).map_err(UsageError)?;
        }
        runs.push(
            rate_batch_core::systems::dispatch(*kind, &params, Single { cfg: &cfg })
                .map_err(UsageError)?,
        );
    }
    write_file(out, |w| {
        let names: Vec<&str> = systems.iter().map(|s| s.0).collect();
        let mut header = vec!["game".to_string(), "true".to_string()];
        header.extend(names.iter().map(std::string::ToString::to_string));
        for column in ["win_rate", "opponent", "score"] {
            header.extend(names.iter().map(|n| format!("{column}_{n}")));
        }
        writeln!(w, "{}", header.join(","))?;
        for g in 0..games {
            let mut row = vec![(g + 1).to_string(), runs[0][g].truth.to_string()];
            row.extend(runs.iter().map(|r| r[g].estimate.to_string()));
            row.extend(runs.iter().map(|r| r[g].win_rate.to_string()));
            row.extend(runs.iter().map(|r| r[g].opponent.to_string()));
            row.extend(runs.iter().map(|r| r[g].score.to_string()));
            writeln!(w, "{}", row.join(","))?;
        }
        Ok(())
    })?;
    let summaries: Vec<simlab::SingleSummary> = runs.iter().map(|r| simlab::summarise(r)).collect();
    let errors: Vec<String> = systems
        .iter()
        .zip(&summaries)
        .map(|((name, _, _), s)| format!("{name} {:.1}", s.second_half_error))
        .collect();
    // Figure 1's point about matchmaking: how long the runs of wins or losses get, and how
    // often the last 10 games are won at a rate within 0.4-0.6 (from the 10th game on).
    let streaks: Vec<String> = systems
        .iter()
        .zip(&summaries)
        .map(|((name, _, _), s)| {
            let share = s
                .balanced_share
                .map_or("-".into(), |b| format!("{:.0} %", 100.0 * b));
            format!("{name} {} / {share}", s.longest_run)
        })
        .collect();
    writeln!(
        stdout,
        "{games} games ({shape:?}, {}): mean |estimate - true| over the second half: {}; \
         longest run of wins or losses / share of last-10 win rates within 0.4-0.6: {}; per \
         game in {}",
        if random_opponents {
            "random opponents within 250"
        } else {
            "matchmaking"
        },
        errors.join(", "),
        streaks.join(", "),
        out.display()
    )?;
    Ok(())
}

/// A table cell for one figure over the seeds: the value, or the mean and the range.
fn over_seeds(values: &[f64], decimals: usize, unit: &str) -> String {
    let n = values.len() as f64;
    let mean = values.iter().sum::<f64>() / n;
    if values.len() == 1 {
        return format!("{mean:.decimals$}{unit}");
    }
    let lo = values.iter().copied().fold(f64::INFINITY, f64::min);
    let hi = values.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    format!("{mean:.decimals$}{unit} ({lo:.decimals$}-{hi:.decimals$})")
}

/// The paper's population comparison (figures 5 and 7), in one command.
pub fn experiment(
    players: usize,
    rounds: usize,
    seeds: &[u64],
    out: &Path,
    stdout: &mut dyn Write,
) -> anyhow::Result<()> {
    use simlab::{PopulationConfig, paper_runs, run_experiment};
    if players < 2 || rounds == 0 || seeds.is_empty() {
        return Err(UsageError(
            "--players must be at least 2, --rounds at least 1, and --seed given".into(),
        )
        .into());
    }
    // The output folder's lock from the start (a second experiment on it stops at once).
    let publication = rate_batch::output::Publication::begin(
        out,
        &[
            "experiment.md",
            "rmse.csv",
            "seeds.csv",
            "experiment.html",
            "experiment-random-pairing.html",
        ],
    )
    .with_context(|| format!("cannot prepare {}", out.display()))?;
    let cfg = PopulationConfig {
        players,
        rounds,
        ..PopulationConfig::default()
    };
    let runs = paper_runs();
    let t0 = std::time::Instant::now();
    let mut by_seed: Vec<Vec<Vec<simlab::RoundStats>>> = Vec::with_capacity(seeds.len());
    for &seed in seeds {
        let c = PopulationConfig {
            seed,
            ..cfg.clone()
        };
        by_seed.push(run_experiment(&c, &runs).map_err(UsageError)?);
    }
    let ex = Experiment {
        players,
        rounds,
        seeds,
        runs: &runs,
        by_seed: &by_seed,
        marks: simlab::table_rounds(rounds),
    };
    let (header, rows) = ex.table();
    let mut md = format!(
        "| {} |\n|{}\n",
        header.join(" | "),
        "---|".repeat(header.len())
    );
    for row in &rows {
        md.push_str(&format!("| {} |\n", row.join(" | ")));
    }
    let staged = publication.root();
    let ctx = |name: &str| cannot_write(&staged.final_path(name));
    staged
        .write("experiment.md", |w| w.write_all(md.as_bytes()))
        .with_context(|| ctx("experiment.md"))?;
    staged
        .write("rmse.csv", |w| ex.write_rmse(w))
        .with_context(|| ctx("rmse.csv"))?;
    staged
        .write("seeds.csv", |w| ex.write_seeds(w))
        .with_context(|| ctx("seeds.csv"))?;
    for (file, random) in [
        ("experiment.html", false),
        ("experiment-random-pairing.html", true),
    ] {
        staged
            .write(file, |w| ex.write_chart(w, random, (&header, &rows)))
            .with_context(|| ctx(file))?;
    }
    let written = publication
        .commit()
        .with_context(|| format!("cannot publish the outputs in {}", out.display()))?;
    write!(stdout, "{md}")?;
    let names: Vec<String> = written.iter().map(|p| p.display().to_string()).collect();
    writeln!(
        stdout,
        "\n{:.1} s; wrote {}",
        t0.elapsed().as_secs_f64(),
        names.join(", ")
    )?;
    Ok(())
}

/// How a run paired its players.
fn pairing(random: bool) -> &'static str {
    if random { "random" } else { "matchmaking" }
}

/// The population comparison's results: `by_seed[seed][run][round]`.
struct Experiment<'a> {
    players: usize,
    rounds: usize,
    seeds: &'a [u64],
    runs: &'a [simlab::ExperimentRun],
    by_seed: &'a [Vec<Vec<simlab::RoundStats>>],
    /// The rounds the table shows (1-based).
    marks: Vec<usize>,
}

impl Experiment<'_> {
    /// The RMSE series of each run, averaged over the seeds (what rmse.csv and the charts show).
    fn mean_rmse(&self) -> Vec<Vec<f64>> {
        let n = self.seeds.len() as f64;
        (0..self.runs.len())
            .map(|r| {
                (0..self.rounds)
                    .map(|k| self.by_seed.iter().map(|s| s[r][k].rmse).sum::<f64>() / n)
                    .collect()
            })
            .collect()
    }

    /// The table: a row per run, mean and range over the seeds at the marked rounds.
    fn table(&self) -> (Vec<String>, Vec<Vec<String>>) {
        let rounds = self.rounds;
        let mut header: Vec<String> = vec!["system".into(), "pairing".into()];
        header.extend(self.marks.iter().map(|r| format!("RMSE @{r}")));
        header.push(format!("scale @{rounds}"));
        header.push(format!("RMSE without scale @{rounds}"));
        header.push(format!("balanced win rates @{rounds}"));
        let rows = self
            .runs
            .iter()
            .enumerate()
            .map(|(i, r)| {
                let at = |k: usize, f: &dyn Fn(&simlab::RoundStats) -> f64| -> Vec<f64> {
                    self.by_seed.iter().map(|s| f(&s[i][k])).collect()
                };
                let mut row = vec![r.label.clone(), pairing(r.random_pairing).to_string()];
                row.extend(
                    self.marks
                        .iter()
                        .map(|&m| over_seeds(&at(m - 1, &|x| x.rmse), 1, "")),
                );
                row.push(over_seeds(&at(rounds - 1, &|x| x.scale), 3, ""));
                row.push(over_seeds(&at(rounds - 1, &|x| x.rmse_scale_free), 1, ""));
                let balanced: Option<Vec<f64>> = self
                    .by_seed
                    .iter()
                    .map(|s| s[i][rounds - 1].balanced_share.map(|b| 100.0 * b))
                    .collect();
                row.push(balanced.map_or("-".into(), |b| over_seeds(&b, 1, " %")));
                row
            })
            .collect();
        (header, rows)
    }

    /// `rmse.csv`: the seeds' mean RMSE of every run after every round.
    fn write_rmse(&self, w: &mut dyn Write) -> std::io::Result<()> {
        let names: Vec<String> = self
            .runs
            .iter()
            .map(|r| format!("{} ({})", r.label, pairing(r.random_pairing)))
            .collect();
        writeln!(w, "round,{}", names.join(","))?;
        let mean_rmse = self.mean_rmse();
        for k in 0..self.rounds {
            let vals: Vec<String> = mean_rmse.iter().map(|s| s[k].to_string()).collect();
            writeln!(w, "{},{}", k + 1, vals.join(","))?;
        }
        Ok(())
    }

    /// `seeds.csv`: every seed's figures at the table's rounds, for whoever wants more than
    /// mean and range.
    fn write_seeds(&self, w: &mut dyn Write) -> std::io::Result<()> {
        writeln!(
            w,
            "seed,system,pairing,round,rmse,scale,rmse_scale_free,balanced_share"
        )?;
        for (seed, per_run) in self.seeds.iter().zip(self.by_seed) {
            for (r, s) in self.runs.iter().zip(per_run) {
                for &m in &self.marks {
                    let x = &s[m - 1];
                    writeln!(
                        w,
                        "{seed},{},{},{m},{},{},{},{}",
                        r.label,
                        pairing(r.random_pairing),
                        x.rmse,
                        x.scale,
                        x.rmse_scale_free,
                        x.balanced_share.map_or(String::new(), |b| b.to_string())
                    )?;
                }
            }
        }
        Ok(())
    }

    /// The page of figure 5 (matchmaking) or 7 (`random`): the table and the RMSE curves.
    fn write_chart(
        &self,
        w: &mut dyn Write,
        random: bool,
        table: (&[String], &[Vec<String>]),
    ) -> std::io::Result<()> {
        let series: Vec<(String, Vec<(f64, f64)>)> = self
            .runs
            .iter()
            .zip(self.mean_rmse())
            .filter(|(r, _)| r.random_pairing == random)
            .map(|(r, s)| {
                (
                    r.label.clone(),
                    s.iter()
                        .enumerate()
                        .map(|(k, &x)| ((k + 1) as f64, x))
                        .collect(),
                )
            })
            .collect();
        let title = format!(
            "Yuksel 2024, figure {}: RMSE of the ratings, {} players, {}",
            if random { 7 } else { 5 },
            self.players,
            if random {
                "random pairing"
            } else {
                "with matchmaking"
            }
        );
        let seed_list: Vec<String> = self.seeds.iter().map(ToString::to_string).collect();
        let seed_list = seed_list.join(",");
        let (players, rounds) = (self.players, self.rounds);
        let text = format!(
            "True ratings N(1500, 600^2), seed {seed_list}; every player one game a round; \
             outcomes from Elo's probability of the true ratings; RMSE after each round, mean \
             offset removed{}. `rate-batch-lab experiment --players {players} --rounds {rounds} \
             --seed {seed_list}`.",
            if self.seeds.len() > 1 {
                ", averaged over the seeds (the table: mean and range)"
            } else {
                ""
            }
        );
        rate_batch::output::report::write_lines_page(
            w,
            &title,
            &text,
            table,
            &series,
            ("round", "RMSE (rating points, log scale)"),
        )
    }
}

/// Everything `simulate yuksel-population` needs.
#[derive(Clone, Debug)]
pub struct PopulationJob {
    /// The rating system run online.
    pub system: SystemKind,
    /// Its parameters by name.
    pub params: ParamMap,
    /// Number of players.
    pub players: usize,
    /// Rounds (one game per player each).
    pub rounds: usize,
    /// Pair players at random instead of by matchmaking.
    pub random_pairing: bool,
    /// Shuffle window of the matchmaking, as a fraction of the population.
    pub shuffle_fraction: f64,
    /// Random seed.
    pub seed: u64,
    /// Per round: RMSE against the true ratings and the share of balanced win rates (CSV).
    pub stats: PathBuf,
    /// The games played (CSV `time,a,b,result`), if wanted.
    pub games: Option<PathBuf>,
    /// The true ratings (CSV `player,true_rating`), if wanted.
    pub truth: Option<PathBuf>,
}

/// The population experiment's arguments, checked.
fn check_population(args: &PopulationJob) -> anyhow::Result<()> {
    if args.players < 2 || args.rounds == 0 {
        return Err(
            UsageError("--players must be at least 2 and --rounds at least 1".into()).into(),
        );
    }
    if !(0.0..=1.0).contains(&args.shuffle_fraction) {
        return Err(UsageError(format!(
            "--shuffle-fraction must be within 0 and 1 (a share of the population), not {}",
            args.shuffle_fraction
        ))
        .into());
    }
    Ok(())
}

/// Per round: RMSE, scale, scale-free RMSE and the share of balanced win rates (CSV).
fn write_stats(path: &Path, stats: &[simlab::RoundStats]) -> anyhow::Result<()> {
    write_file(path, |w| {
        writeln!(w, "round,rmse,scale,rmse_scale_free,balanced_share")?;
        for (r, s) in stats.iter().enumerate() {
            let b = s.balanced_share.map_or(String::new(), |b| b.to_string());
            writeln!(
                w,
                "{},{},{},{},{b}",
                r + 1,
                s.rmse,
                s.scale,
                s.rmse_scale_free
            )?;
        }
        Ok(())
    })
}

/// Runs the population experiment (Yuksel 2024, section 5.1) online.
pub fn population(args: &PopulationJob, stdout: &mut dyn Write) -> anyhow::Result<()> {
    use simlab::{Population, PopulationConfig};
    check_population(args)?;
    let cfg = PopulationConfig {
        players: args.players,
        rounds: args.rounds,
        random_pairing: args.random_pairing,
        shuffle_fraction: args.shuffle_fraction,
        seed: args.seed,
        ..PopulationConfig::default()
    };
    let params = args.params.clone();
    let t0 = std::time::Instant::now();
    let mut games_staged = match &args.games {
        Some(path) => {
            let mut s = FileSet::new();
            let mut f = s.open(path).with_context(|| cannot_write(path))?;
            f.write_all(b"time,a,b,result\n")
                .with_context(|| cannot_write(path))?;
            Some((s, f, path))
        }
        None => None,
    };
    let (stats, truth) = rate_batch_core::systems::dispatch(
        args.system,
        &params,
        Population {
            cfg: &cfg,
            games: games_staged.as_mut().map(|(_, f, _)| f as &mut dyn Write),
        },
    )
    .map_err(UsageError)?
    // Its only errors are the games file's.
    .with_context(|| match &args.games {
        Some(path) => cannot_write(path),
        None => "cannot write the games".to_string(),
    })?;
    let seconds = t0.elapsed().as_secs_f64();
    if let Some((s, f, path)) = games_staged {
        f.finish().with_context(|| cannot_write(path))?;
        s.commit().with_context(|| cannot_write(path))?;
    }
    if let Some(path) = &args.truth {
        write_file(path, |w| {
            writeln!(w, "player,true_rating")?;
            for (i, t) in truth.iter().enumerate() {
                writeln!(w, "p{i:07},{t}")?;
            }
            Ok(())
        })?;
    }
    write_stats(&args.stats, &stats)?;
    let at = |r: usize| stats.get(r - 1).map(|s| s.rmse);
    let marks: Vec<String> = [1, 10, 100, 1000, 2000, 10_000]
        .iter()
        .filter_map(|&r| at(r).map(|v| format!("{r}: {v:.1}")))
        .collect();
    let last = stats.last().expect("at least one round");
    writeln!(
        stdout,
        "{} players, {} rounds, {} ({}): RMSE after round {}; after the last round the \
         ratings' scale is {:.4} of the truth's and the RMSE without it {:.1}; balanced win \
         rates (last 10 games within 0.4-0.6) after the last round: {}; {seconds:.2} s; stats in \
         {}",
        truth.len(),
        stats.len(),
        args.system.name(),
        if args.random_pairing {
            "random pairing"
        } else {
            "matchmaking"
        },
        marks.join(", "),
        last.scale,
        last.rmse_scale_free,
        last.balanced_share
            .map_or("-".into(), |b| format!("{:.1} %", 100.0 * b)),
        args.stats.display()
    )?;
    Ok(())
}

/// Writes a synthetic contest set and its true skills (`simulate synth-small|synth-large`).
pub fn synth(
    cfg: &simulate::SynthConfig,
    out: &Path,
    truth: &Path,
    stdout: &mut dyn Write,
) -> anyhow::Result<()> {
    cfg.validate().map_err(UsageError)?;
    if out == truth {
        return Err(UsageError("--out and --truth must be different files".into()).into());
    }
    // Both files come from one pass of the generator: stage both, then publish both.
    let mut set = FileSet::new();
    let mut w_out = set.open(out).with_context(|| cannot_write(out))?;
    let mut w_truth = set.open(truth).with_context(|| cannot_write(truth))?;
    let both = || format!("cannot write {} and {}", out.display(), truth.display());
    let rounds = simulate::write_synth(&mut w_out, &mut w_truth, cfg).with_context(both)?;
    w_out.finish().with_context(|| cannot_write(out))?;
    w_truth.finish().with_context(|| cannot_write(truth))?;
    set.commit().with_context(both)?;
    writeln!(
        stdout,
        "wrote {rounds} rounds of {} players ({} a round, {} sessions) to {} and the true skills to {}",
        cfg.players,
        cfg.group.min(cfg.players),
        cfg.sessions,
        out.display(),
        truth.display()
    )?;
    Ok(())
}

/// Writes a league of games between players of known strengths (`simulate league`).
pub fn league(
    cfg: &simulate::LeagueConfig,
    out: &Path,
    truth: &Path,
    stdout: &mut dyn Write,
) -> anyhow::Result<()> {
    let league = simulate::league(cfg).map_err(UsageError)?;
    write_file(out, |w| simulate::write_league_games(w, &league))?;
    write_file(truth, |w| simulate::write_league_truth(w, &league))?;
    writeln!(
        stdout,
        "wrote {} games of {} players to {} and their true strengths to {}",
        league.games.len(),
        cfg.players,
        out.display(),
        truth.display()
    )?;
    Ok(())
}

/// Writes a pool of games between random players (`simulate pool`): PGN if `out`'s name ends
/// in `.pgn`, else a games CSV, compressed if a `.gz` or `.zst` follows (`pool.pgn.zst`).
pub fn pool(cfg: &simulate::PoolConfig, out: &Path, stdout: &mut dyn Write) -> anyhow::Result<()> {
    use crate::compress::{self, Compression};
    let compression = Compression::from_path(out);
    let is_pgn = compression
        .content_path(out)
        .extension()
        .is_some_and(|e| e.eq_ignore_ascii_case("pgn"));
    let format = if is_pgn {
        simulate::PoolFormat::Pgn
    } else {
        simulate::PoolFormat::Csv
    };
    write_file(out, |w| {
        compress::write(compression, w, |w| simulate::write_pool(w, cfg, format))
    })?;
    writeln!(
        stdout,
        "wrote {} games of {} players to {}",
        cfg.games,
        cfg.players,
        out.display()
    )?;
    Ok(())
}
