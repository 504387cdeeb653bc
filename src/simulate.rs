//! Synthetic histories with known true strengths, deterministic for a given seed.
//!
//! `league`: a chess league. Players get true Elo strengths from N(mean, sd^2); they meet in a
//! double round robin (circle method, colours swapped in the second half), two rounds a week
//! (Wednesday and Saturday, 18:00 UTC). Each game is drawn from the Davidson model on the true
//! strengths: with `pi = 10^(r/400)`, white wins, draws and loses in the proportions
//! `pi_w : nu sqrt(pi_w pi_b) : pi_b`, so two equal players draw with probability
//! `nu / (2 + nu)` (the default `nu = 0.8` gives 2/7, about 29 %) and the expected score is
//! close to Elo's logistic curve.

use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use rand_distr::{Distribution, Normal};
use std::io::{self, Write};

/// The league's settings.
#[derive(Clone, Debug, PartialEq)]
pub struct LeagueConfig {
    /// Number of players (an odd number gets a bye each round).
    pub players: usize,
    /// Random seed.
    pub seed: u64,
    /// Mean of the true strengths.
    pub mean: f64,
    /// Their standard deviation.
    pub sd: f64,
    /// Davidson's draw parameter.
    pub draw_nu: f64,
    /// Unix seconds of the first round's day (a Wednesday or Saturday works best).
    pub start: i64,
}

impl Default for LeagueConfig {
    fn default() -> Self {
        Self {
            players: 50,
            seed: 2024,
            mean: 1500.0,
            sd: 200.0,
            draw_nu: 0.8,
            // 2025-09-03, a Wednesday.
            start: 1_756_857_600,
        }
    }
}

/// A generated league: games and true strengths.
#[derive(Clone, Debug)]
pub struct League {
    /// Player names, in the order of `strengths`.
    pub names: Vec<String>,
    /// True Elo strength of each player.
    pub strengths: Vec<f64>,
    /// (unix time, white index, black index, white's score)
    pub games: Vec<(i64, usize, usize, f64)>,
}

const FIRST: &[&str] = &[
    "Ada", "Boris", "Chiara", "Dmitri", "Elif", "Farid", "Greta", "Hugo", "Ines", "Jonas", "Kemal",
    "Lena", "Mateo", "Nadia", "Oskar", "Priya", "Quentin", "Rosa", "Sven", "Tamar", "Umar", "Vera",
    "Wen", "Ximena", "Yusuf", "Zofia",
];
const LAST: &[&str] = &[
    "Adler", "Brandt", "Costa", "Duval", "Eriksen", "Fontaine", "Gallo", "Horvat",
];

fn name(i: usize) -> String {
    let first = FIRST[i % FIRST.len()];
    let last = LAST[(i / FIRST.len()) % LAST.len()];
    let round = i / (FIRST.len() * LAST.len());
    if round == 0 {
        format!("{first} {last}")
    } else {
        format!("{first} {last} {}", round + 1)
    }
}

/// Generates the league.
pub fn league(cfg: &LeagueConfig) -> Result<League, String> {
    if cfg.players < 2 {
        return Err("a league needs at least two players".into());
    }
    if !(cfg.draw_nu >= 0.0 && cfg.draw_nu.is_finite() && cfg.sd >= 0.0 && cfg.sd.is_finite()) {
        return Err("draw parameter and standard deviation must be finite and non-negative".into());
    }
    let mut rng = ChaCha8Rng::seed_from_u64(cfg.seed);
    let normal = Normal::new(cfg.mean, cfg.sd).map_err(|e| e.to_string())?;
    let strengths: Vec<f64> = (0..cfg.players)
        .map(|_| (normal.sample(&mut rng) * 10.0).round() / 10.0)
        .collect();
    let names: Vec<String> = (0..cfg.players).map(name).collect();

    // Circle method: slot 0 fixed, the others rotate; a phantom player makes the count even.
    let n = cfg.players + cfg.players % 2;
    let mut slots: Vec<usize> = (0..n).collect();
    let single_rounds = n - 1;
    let mut games = Vec::new();
    let day = 86_400;
    for round in 0..2 * single_rounds {
        if round == single_rounds {
            slots = (0..n).collect();
        }
        // Wednesday, Saturday, Wednesday, ... at 18:00.
        let week = (round / 2) as i64;
        let offset = if round % 2 == 0 { 0 } else { 3 };
        let time = cfg.start + (week * 7 + offset) * day + 18 * 3600;
        for k in 0..n / 2 {
            let (x, y) = (slots[k], slots[n - 1 - k]);
            if x >= cfg.players || y >= cfg.players {
                continue;
            }
            // Alternate colours by board and round; swap them in the second half.
            let swap = (k + round % single_rounds) % 2 == 1;
            let (white, black) = if swap ^ (round >= single_rounds) {
                (y, x)
            } else {
                (x, y)
            };
            let score = davidson(&mut rng, strengths[white], strengths[black], cfg.draw_nu);
            games.push((time, white, black, score));
        }
        slots[1..].rotate_right(1);
    }
    Ok(League {
        names,
        strengths,
        games,
    })
}

fn davidson(rng: &mut ChaCha8Rng, white: f64, black: f64, nu: f64) -> f64 {
    let pw = 10f64.powf(white / 400.0);
    let pb = 10f64.powf(black / 400.0);
    let pd = nu * (pw * pb).sqrt();
    let u: f64 = rng.random::<f64>() * (pw + pd + pb);
    if u < pw {
        1.0
    } else if u < pw + pd {
        0.5
    } else {
        0.0
    }
}

/// Writes the games as a games CSV (`time,a,b,result`).
pub fn write_league_games(w: &mut dyn Write, league: &League) -> io::Result<()> {
    writeln!(w, "time,a,b,result")?;
    for &(t, a, b, s) in &league.games {
        let result = match s {
            1.0 => "1-0",
            0.0 => "0-1",
            _ => "1/2-1/2",
        };
        writeln!(
            w,
            "{},{},{},{}",
            crate::ingest::time::format_time(t),
            league.names[a],
            league.names[b],
            result
        )?;
    }
    Ok(())
}

/// Writes the true strengths (`player,true_rating`), strongest first.
pub fn write_league_truth(w: &mut dyn Write, league: &League) -> io::Result<()> {
    writeln!(w, "player,true_rating")?;
    let mut order: Vec<usize> = (0..league.names.len()).collect();
    order.sort_by(|&a, &b| league.strengths[b].total_cmp(&league.strengths[a]));
    for i in order {
        writeln!(w, "{},{}", league.names[i], league.strengths[i])?;
    }
    Ok(())
}

/// Settings of a pool of players who meet at random (benchmarks, large histories).
#[derive(Clone, Debug, PartialEq)]
pub struct PoolConfig {
    /// Number of players.
    pub players: usize,
    /// Number of games.
    pub games: usize,
    /// Random seed.
    pub seed: u64,
    /// Davidson's draw parameter.
    pub draw_nu: f64,
    /// Unix seconds of the first game; games follow one a minute.
    pub start: i64,
}

impl Default for PoolConfig {
    fn default() -> Self {
        Self {
            players: 10_000,
            games: 1_000_000,
            seed: 7,
            draw_nu: 0.5,
            start: 1_577_836_800,
        }
    }
}

/// Writes `games` random pairings of a pool with strengths N(1500, 300^2) as a games CSV
/// (`time,a,b,result`), streaming, one game a minute.
pub fn write_pool_games(w: &mut dyn Write, cfg: &PoolConfig) -> io::Result<()> {
    if cfg.players < 2 {
        return Err(io::Error::other("a pool needs at least two players"));
    }
    let mut rng = ChaCha8Rng::seed_from_u64(cfg.seed);
    let normal = Normal::new(1500.0, 300.0).map_err(io::Error::other)?;
    let strengths: Vec<f64> = (0..cfg.players).map(|_| normal.sample(&mut rng)).collect();
    let names: Vec<String> = (0..cfg.players).map(|i| format!("player{i:06}")).collect();
    writeln!(w, "time,a,b,result")?;
    let mut line = String::new();
    for g in 0..cfg.games {
        let a = rng.random_range(0..cfg.players);
        let mut b = rng.random_range(0..cfg.players - 1);
        if b >= a {
            b += 1;
        }
        let result = match davidson(&mut rng, strengths[a], strengths[b], cfg.draw_nu) {
            1.0 => "1",
            0.0 => "0",
            _ => "0.5",
        };
        line.clear();
        line.push_str(&crate::ingest::time::format_time(cfg.start + 60 * g as i64));
        line.push(',');
        line.push_str(&names[a]);
        line.push(',');
        line.push_str(&names[b]);
        line.push(',');
        line.push_str(result);
        line.push('\n');
        w.write_all(line.as_bytes())?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn double_round_robin_meets_everyone_twice_with_both_colours() {
        for players in [6, 7] {
            let l = league(&LeagueConfig {
                players,
                ..LeagueConfig::default()
            })
            .unwrap();
            assert_eq!(l.games.len(), players * (players - 1));
            for a in 0..players {
                for b in 0..players {
                    if a != b {
                        let as_white = l.games.iter().filter(|g| g.1 == a && g.2 == b).count();
                        assert_eq!(as_white, 1, "{a} white against {b}");
                    }
                }
            }
            // Nobody plays twice in a round.
            for t in l.games.iter().map(|g| g.0) {
                let mut seen: Vec<usize> = l
                    .games
                    .iter()
                    .filter(|g| g.0 == t)
                    .flat_map(|g| [g.1, g.2])
                    .collect();
                let n = seen.len();
                seen.sort_unstable();
                seen.dedup();
                assert_eq!(seen.len(), n);
            }
        }
    }

    #[test]
    fn pool_games_are_valid_and_deterministic() {
        let cfg = PoolConfig {
            players: 5,
            games: 50,
            ..PoolConfig::default()
        };
        let mut a = Vec::new();
        let mut b = Vec::new();
        write_pool_games(&mut a, &cfg).unwrap();
        write_pool_games(&mut b, &cfg).unwrap();
        assert_eq!(a, b);
        let text = String::from_utf8(a).unwrap();
        assert_eq!(text.lines().count(), 51);
        for line in text.lines().skip(1) {
            let f: Vec<&str> = line.split(',').collect();
            assert_ne!(f[1], f[2]);
            assert!(["1", "0", "0.5"].contains(&f[3]));
        }
    }

    #[test]
    fn same_seed_same_league_and_draw_rate_near_two_sevenths() {
        let a = league(&LeagueConfig::default()).unwrap();
        let b = league(&LeagueConfig::default()).unwrap();
        assert_eq!(a.games, b.games);
        let draws = a.games.iter().filter(|g| g.3 == 0.5).count() as f64 / a.games.len() as f64;
        assert!((0.18..0.32).contains(&draws), "draw rate {draws}");
    }
}
