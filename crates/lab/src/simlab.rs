//! The simulation lab of Yuksel 2024, section 5: a population whose true ratings are known
//! plays round after round; the chosen rating system runs online and its ratings drive the
//! matchmaking, so the two are evaluated together (historical data cannot evaluate
//! matchmaking, section 5.1).
//!
//! `yuksel-population`: N players with true ratings drawn from N(1500, 600^2), every system
//! state starting as a newcomer's (1500 for Elo and Yuksel). Each round every player plays one
//! game: paired by group matchmaking on the desired opponent ratings (section 4.2; the sorted
//! list shuffled by swaps within a window of 5 % of the population), or at random with
//! `--random-pairing`. A game is won with Elo's probability of the true ratings (scale 400, no
//! draws), and the system rates the round (its games are disjoint, so this is the same as
//! rating them one by one). After every round: the RMSE of the ratings against the true ones
//! (mean offset removed), the ratings' scale against the truth's and the RMSE without it, and
//! the share of players whose win rate over their last 10 games is
//! within 0.4-0.6 (figure 6). Deterministic for a seed.

use rate_batch_core::history::{HistoryBuilder, PlayerId, Round, SourceInfo};
use rate_batch_core::matchmake::{P_MIN, desired_opponent, desired_probability, group_pairs};
use rate_batch_core::truth::{offset_free_rmse, scale_fit};

/// The simulations find desired opponents to a millionth of a player's uncertainty.
const PRECISION: f64 = 1e-6;
use rand::seq::SliceRandom;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use rand_distr::{Distribution, Normal};
use rate_batch_core::numeric::elo_win_probability;
use rate_batch_core::replay::PlayerRecord;
use rate_batch_core::systems::{RatingSystem, SystemVisitor};
use rayon::prelude::*;
use std::io::Write;

/// The population scenario.
#[derive(Clone, Debug)]
pub struct PopulationConfig {
    /// Number of players (even; one more is dropped).
    pub players: usize,
    /// Rounds (each player plays one game a round).
    pub rounds: usize,
    /// Mean and standard deviation of the true ratings.
    pub mean: f64,
    /// Standard deviation of the true ratings.
    pub sd: f64,
    /// Pair at random instead of by matchmaking.
    pub random_pairing: bool,
    /// Shuffle window as a fraction of the population.
    pub shuffle_fraction: f64,
    /// Matchmaking window n and target lambda.
    pub window: usize,
    /// Target win rate.
    pub target: f64,
    /// Seed.
    pub seed: u64,
}

impl Default for PopulationConfig {
    fn default() -> Self {
        Self {
            players: 1000,
            rounds: 1000,
            mean: 1500.0,
            sd: 600.0,
            random_pairing: false,
            shuffle_fraction: 0.05,
            window: 5,
            target: 0.5,
            seed: 2024,
        }
    }
}

/// What one round of the simulation measured.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct RoundStats {
    /// RMSE of the ratings against the true ones after the round (offset removed).
    pub rmse: f64,
    /// Least-squares slope of the ratings on the true ones (above 1: stretched).
    pub scale: f64,
    /// RMSE once both the offset and that scale are removed: the noise alone.
    pub rmse_scale_free: f64,
    /// Share of players with at least 10 games whose last 10 are won at a rate in [0.4, 0.6]
    /// (None before anyone has 10 games).
    pub balanced_share: Option<f64>,
}

/// Runs the simulation with a system; writes the games (`time,a,b,result`) to `games` as they
/// are played and returns the per-round statistics and the true ratings.
pub struct Population<'a> {
    /// The scenario.
    pub cfg: &'a PopulationConfig,
    /// Where the games go (None: not written).
    pub games: Option<&'a mut dyn Write>,
}

impl SystemVisitor for Population<'_> {
    type Output = std::io::Result<(Vec<RoundStats>, Vec<f64>)>;
    fn visit<S: RatingSystem>(self, system: &S) -> Self::Output {
        let cfg = self.cfg;
        let mut games = self.games;
        let n = cfg.players - cfg.players % 2;
        let mut rng = ChaCha8Rng::seed_from_u64(cfg.seed);
        let normal = Normal::new(cfg.mean, cfg.sd).expect("a valid normal");
        let truth: Vec<f64> = (0..n).map(|_| normal.sample(&mut rng)).collect();
        // Names only for the games file.
        let names: Vec<String> = if games.is_some() {
            (0..n).map(|i| format!("p{i:07}")).collect()
        } else {
            Vec::new()
        };
        let mut states: Vec<S::Player> = vec![system.new_player(); n];
        let mut records: Vec<PlayerRecord> = vec![PlayerRecord::default(); n];
        let shuffle = (cfg.shuffle_fraction.max(0.0) * n as f64).round() as usize;
        let mut stats = Vec::with_capacity(cfg.rounds);
        let mut order: Vec<PlayerId> = (0..n as PlayerId).collect();
        for round in 0..cfg.rounds {
            // 1. Pairs.
            let pairs: Vec<(PlayerId, PlayerId)> = if cfg.random_pairing {
                order.shuffle(&mut rng);
                order.chunks_exact(2).map(|c| (c[0], c[1])).collect()
            } else {
                // Each player's desired opponent on its own: in parallel (the order of the
                // results is kept, so the run stays deterministic).
                let desired: Vec<(PlayerId, f64)> = (0..n)
                    .into_par_iter()
                    .map(|i| {
                        let rec = &records[i];
                        let p = desired_probability(
                            cfg.target,
                            cfg.window,
                            &rec.recent_results(cfg.window),
                            rec.contests as usize,
                        );
                        (
                            i as PlayerId,
                            desired_opponent(system, &states[i], p, PRECISION),
                        )
                    })
                    .collect();
                group_pairs(&desired, shuffle, rng.random()).0
            };
            // 2. Outcomes from the true ratings.
            let mut b = HistoryBuilder::unnamed(n);
            let time = round as i64 * 86_400;
            for &(x, y) in &pairs {
                let p = elo_win_probability(truth[x as usize] - truth[y as usize], 400.0);
                let score = if rng.random::<f64>() < p { 1.0 } else { 0.0 };
                b.add_game(time, 1.0, None, (&[x], &[y]), score, None)
                    .expect("two different players");
                if let Some(w) = games.as_deref_mut() {
                    writeln!(
                        w,
                        "{time},{},{},{}",
                        names[x as usize],
                        names[y as usize],
                        if score == 1.0 { "1-0" } else { "0-1" }
                    )?;
                }
                records[x as usize].push_result(score);
                records[y as usize].push_result(1.0 - score);
                records[x as usize].contests += 1;
                records[y as usize].contests += 1;
            }
            let history = b.finish(SourceInfo::default());
            let all: Vec<u32> = (0..history.len() as u32).collect();
            // 3. The system rates the round.
            system.update(Round::new(&history, &all), &mut states);
            // 4. Measures.
            let ratings: Vec<f64> = states.iter().map(|s| system.rating(s).mean).collect();
            let d: Vec<f64> = ratings.iter().zip(&truth).map(|(r, t)| r - t).collect();
            let with_ten: Vec<f64> = records
                .iter()
                .filter(|r| r.recent_len >= 10)
                .map(|r| r.recent_results(10).iter().sum::<f64>() / 10.0)
                .collect();
            let balanced = (!with_ten.is_empty()).then(|| {
                with_ten.iter().filter(|&&x| balanced(x)).count() as f64 / with_ten.len() as f64
            });
            let (scale, rmse_scale_free) = scale_fit(&ratings, &truth);
            stats.push(RoundStats {
                rmse: offset_free_rmse(&d),
                scale,
                rmse_scale_free,
                balanced_share: balanced,
            });
        }
        Ok((stats, truth))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rate_batch_core::systems::yuksel::{Yuksel, YukselParams};

    fn run(cfg: &PopulationConfig) -> Vec<RoundStats> {
        let y = Yuksel::new(YukselParams::default()).unwrap();
        Population { cfg, games: None }.visit(&y).unwrap().0
    }

    #[test]
    fn yuksel_converges_with_matchmaking_and_runs_are_repeatable() {
        let cfg = PopulationConfig {
            players: 200,
            rounds: 60,
            ..PopulationConfig::default()
        };
        let a = run(&cfg);
        assert_eq!(a, run(&cfg), "deterministic for a seed");
        // Everyone starts at 1500: the RMSE starts near the true spread (600) and falls.
        assert!(a[0].rmse > 400.0, "{:?}", a[0]);
        assert!(a[59].rmse < 0.5 * a[0].rmse, "{:?} -> {:?}", a[0], a[59]);
        // Removing the scale as well never leaves more error; after one game each the ratings
        // barely follow the truth (scale far below 1), after 60 their scale is near it.
        assert!(a.iter().all(|r| r.rmse_scale_free <= r.rmse + 1e-9));
        assert!(a[0].scale < 0.6, "{:?}", a[0]);
        assert!((a[59].scale - 1.0).abs() < 0.15, "{:?}", a[59]);
        // Matchmaking keeps win rates nearer one half than random pairing does.
        let random = run(&PopulationConfig {
            random_pairing: true,
            ..cfg.clone()
        });
        assert!(
            a[59].balanced_share > random[59].balanced_share,
            "{:?} {:?}",
            a[59],
            random[59]
        );
    }

    #[test]
    fn the_desired_opponent_of_a_yuksel_player_is_elos_inverse() {
        let y = Yuksel::new(YukselParams::default()).unwrap();
        let p = y.seeded(1700.0, None, None);
        // p = 1/4: r* = 1700 + 400 log10(3).
        let r = rate_batch_core::matchmake::desired_opponent(&y, &p, 0.25, PRECISION);
        assert!((r - (1700.0 + 400.0 * 3f64.log10())).abs() < 1e-3, "{r}");
    }
}

/// One run of the population experiment: a system with its parameters, and the pairing.
#[derive(Clone, Debug)]
pub struct ExperimentRun {
    /// The label in the table and the chart.
    pub label: String,
    /// The system.
    pub system: rate_batch_core::systems::SystemKind,
    /// Its parameters.
    pub params: rate_batch_core::systems::ParamMap,
    /// Random pairing instead of matchmaking.
    pub random_pairing: bool,
}

/// The paper's comparison (figures 5 and 7): Yuksel zero-sum with s = 1 and s = 0.95 (and 0.7,
/// where this reading of the algorithm becomes stable under random pairing), Elo with
/// K = 24, Glicko, and TrueSkill with its default parameters scaled to ratings around 1500 (mu
/// 1500, sigma 500, beta 250, tau 5: the usual 25 / 8.33 / 4.17 / 0.083 times 60), each with
/// matchmaking and with random pairing.
pub fn paper_runs() -> Vec<ExperimentRun> {
    use rate_batch_core::systems::{ParamMap, SystemKind, parse_param};
    let params = |specs: &[&str]| {
        let mut m = ParamMap::new();
        for s in specs {
            parse_param(s, &mut m).expect("a valid parameter");
        }
        m
    };
    let systems = [
        (
            "yuksel zero-sum",
            SystemKind::Yuksel,
            params(&["zero_sum=true"]),
        ),
        (
            "yuksel zero-sum s=0.95",
            SystemKind::Yuksel,
            params(&["zero_sum=true", "step_scale=0.95"]),
        ),
        (
            "yuksel zero-sum s=0.7",
            SystemKind::Yuksel,
            params(&["zero_sum=true", "step_scale=0.7"]),
        ),
        ("elo K=24", SystemKind::Elo, params(&["k=24"])),
        ("glicko", SystemKind::Glicko, params(&[])),
        (
            "trueskill (scaled defaults)",
            SystemKind::TrueSkill,
            params(&["mu=1500", "sigma=500", "beta=250", "tau=5"]),
        ),
    ];
    let mut runs = Vec::new();
    for random_pairing in [false, true] {
        for (label, system, p) in &systems {
            runs.push(ExperimentRun {
                label: label.to_string(),
                system: *system,
                params: p.clone(),
                random_pairing,
            });
        }
    }
    runs
}

/// Runs every experiment on the same population (in parallel) and returns their statistics.
pub fn run_experiment(
    cfg: &PopulationConfig,
    runs: &[ExperimentRun],
) -> Result<Vec<Vec<RoundStats>>, String> {
    use rayon::prelude::*;
    runs.par_iter()
        .map(|r| {
            let c = PopulationConfig {
                random_pairing: r.random_pairing,
                ..cfg.clone()
            };
            rate_batch_core::systems::dispatch(
                r.system,
                &r.params,
                Population {
                    cfg: &c,
                    games: None,
                },
            )?
            .map(|(s, _)| s)
            .map_err(|e| e.to_string())
        })
        .collect()
}

/// Rounds at which the table shows the RMSE.
pub fn table_rounds(rounds: usize) -> Vec<usize> {
    let mut v: Vec<usize> = [1, 10, 100, 1000, 2000, 10_000, 100_000]
        .into_iter()
        .filter(|&r| r <= rounds)
        .collect();
    if v.last() != Some(&rounds) {
        v.push(rounds);
    }
    v
}

/// How the new player's true rating moves in `yuksel-single`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum Shape {
    /// Fixed at 2000 (figure 1).
    Fixed,
    /// From 1500 to 2500, steadily (figure 2a).
    Rising,
    /// From 1500 to 2500 over the first half, then flat (figure 2b).
    RisingThenFlat,
    /// 1700, then 2200 from the middle on (figure 3a).
    Jump,
}

impl Shape {
    /// The true rating at game `g` of `n`.
    pub fn truth(self, g: usize, n: usize) -> f64 {
        let x = g as f64 / n.max(1) as f64;
        match self {
            Shape::Fixed => 2000.0,
            Shape::Rising => 1500.0 + 1000.0 * x,
            Shape::RisingThenFlat => 1500.0 + 1000.0 * (2.0 * x).min(1.0),
            Shape::Jump => {
                if x < 0.5 {
                    1700.0
                } else {
                    2200.0
                }
            }
        }
    }
}

/// The single-player scenario (section 5.2): a new player, starting as a newcomer, against a
/// pool whose ratings have converged to the true ones (opponents are certain: their rating is
/// their true rating).
#[derive(Clone, Debug)]
pub struct SingleConfig {
    /// The true rating's course.
    pub shape: Shape,
    /// Games.
    pub games: usize,
    /// Opponents at random within +-250 of the player's true rating instead of matchmaking.
    pub random_opponents: bool,
    /// Matchmaking window n (the paper: 5, a window of 11 games) and `delta_p` (1 / (2n + 2)).
    pub window: usize,
    /// Seed.
    pub seed: u64,
}

/// A win rate over the last 10 games that counts as balanced (figure 6: within 0.4-0.6).
pub fn balanced(rate: f64) -> bool {
    (0.4..=0.6).contains(&rate)
}

/// What figures 1-3 show of one system's run of the new player.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SingleSummary {
    /// Mean |estimate - true rating| over the second half of the games.
    pub second_half_error: f64,
    /// The longest run of wins or of losses.
    pub longest_run: usize,
    /// Share of the games from the 10th on whose last-10 win rate is balanced (None before).
    pub balanced_share: Option<f64>,
}

/// Summarises one system's run of the new player.
pub fn summarise(run: &[SingleGame]) -> SingleSummary {
    let half = run.len() / 2;
    let tail = &run[half..];
    let second_half_error = tail
        .iter()
        .map(|g| (g.estimate - g.truth).abs())
        .sum::<f64>()
        / tail.len().max(1) as f64;
    let (mut longest_run, mut current) = (0, 0);
    for (i, g) in run.iter().enumerate() {
        current = if i > 0 && run[i - 1].score == g.score {
            current + 1
        } else {
            1
        };
        longest_run = longest_run.max(current);
    }
    let later = &run[run.len().min(9)..];
    let balanced_share = (!later.is_empty())
        .then(|| later.iter().filter(|g| balanced(g.win_rate)).count() as f64 / later.len() as f64);
    SingleSummary {
        second_half_error,
        longest_run,
        balanced_share,
    }
}

/// One game of the new player, as one system saw it.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SingleGame {
    /// The player's true rating at this game.
    pub truth: f64,
    /// The opponent's (true and rated) rating.
    pub opponent: f64,
    /// The player's score (1 won, 0 lost).
    pub score: f64,
    /// The system's estimate after the game.
    pub estimate: f64,
    /// The player's win rate over his last 10 games (fewer at the start).
    pub win_rate: f64,
}

/// One system's run of the new player, game after game. The opponents and outcomes depend on
/// the estimate only through the matchmaking, so with random opponents every system sees the
/// same games.
pub struct Single<'a> {
    /// The scenario.
    pub cfg: &'a SingleConfig,
}

impl SystemVisitor for Single<'_> {
    type Output = Vec<SingleGame>;
    fn visit<S: RatingSystem>(self, system: &S) -> Self::Output {
        let cfg = self.cfg;
        let mut rng = ChaCha8Rng::seed_from_u64(cfg.seed);
        let mut me = system.new_player();
        let mut record = PlayerRecord::default();
        let delta_p = 1.0 / (2.0 * cfg.window as f64 + 2.0);
        let mut out = Vec::with_capacity(cfg.games);
        for g in 0..cfg.games {
            let truth = cfg.shape.truth(g, cfg.games);
            let opponent = if cfg.random_opponents {
                truth + rng.random_range(-250.0..=250.0)
            } else {
                let p = desired_probability(
                    0.5,
                    cfg.window,
                    &record.recent_results(cfg.window),
                    record.contests as usize,
                );
                let lo = desired_opponent(system, &me, (p + delta_p).min(1.0 - P_MIN), PRECISION);
                let hi = desired_opponent(system, &me, (p - delta_p).max(P_MIN), PRECISION);
                if hi > lo {
                    rng.random_range(lo..=hi)
                } else {
                    lo
                }
            };
            let won = rng.random::<f64>() < elo_win_probability(truth - opponent, 400.0);
            let score = if won { 1.0 } else { 0.0 };
            let mut b = HistoryBuilder::unnamed(2);
            b.add_game(g as i64, 1.0, None, (&[0], &[1]), score, None)
                .expect("two players");
            let h = b.finish(SourceInfo::default());
            let mut states = vec![me.clone(), system.seeded(opponent, Some(1.0), None)];
            system.update(Round::new(&h, &[0]), &mut states);
            me = states.swap_remove(0);
            record.push_result(score);
            record.contests += 1;
            let last = record.recent_results(10);
            let rate = last.iter().sum::<f64>() / last.len() as f64;
            out.push(SingleGame {
                truth,
                opponent,
                score,
                estimate: system.rating(&me).mean,
                win_rate: rate,
            });
        }
        out
    }
}

#[cfg(test)]
mod single_tests {
    use super::*;
    use rate_batch_core::systems::yuksel::{Yuksel, YukselParams};

    #[test]
    fn a_new_player_with_a_fixed_rating_is_found() {
        let y = Yuksel::new(YukselParams::default()).unwrap();
        let cfg = SingleConfig {
            shape: Shape::Fixed,
            games: 400,
            random_opponents: false,
            window: 5,
            seed: 3,
        };
        let run = Single { cfg: &cfg }.visit(&y);
        assert_eq!(run.len(), 400);
        // Starts at 1500, ends near the true 2000.
        assert_eq!(run[0].truth, 2000.0);
        let tail: f64 = run[300..]
            .iter()
            .map(|r| (r.estimate - r.truth).abs())
            .sum::<f64>()
            / 100.0;
        assert!(tail < 100.0, "mean error over the last 100 games: {tail}");
        // Matchmaking keeps the recent win rate near one half.
        let rate: f64 = run[300..].iter().map(|r| r.win_rate).sum::<f64>() / 100.0;
        assert!((rate - 0.5).abs() < 0.15, "{rate}");
        assert_eq!(Shape::RisingThenFlat.truth(750, 1000), 2500.0);
        assert_eq!(Shape::Rising.truth(500, 1000), 2000.0);
    }

    #[test]
    fn random_opponents_are_the_same_games_for_every_system() {
        let cfg = SingleConfig {
            shape: Shape::Jump,
            games: 100,
            random_opponents: true,
            window: 5,
            seed: 9,
        };
        let y = Single { cfg: &cfg }.visit(&Yuksel::new(YukselParams::default()).unwrap());
        let elo = rate_batch_core::systems::elo::Elo::new(Default::default()).unwrap();
        let e = Single { cfg: &cfg }.visit(&elo);
        let games = |r: &[SingleGame]| -> Vec<(f64, f64)> {
            r.iter().map(|g| (g.opponent, g.score)).collect()
        };
        assert_eq!(games(&y), games(&e));
        // Within +-250 of the true rating, which jumps from 1700 to 2200 at the middle.
        for (i, g) in y.iter().enumerate() {
            let t = if i < 50 { 1700.0 } else { 2200.0 };
            assert!((g.opponent - t).abs() <= 250.0, "{i} {g:?}");
        }
        assert_ne!(y[99].estimate, e[99].estimate);
    }
}
