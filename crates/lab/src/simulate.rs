//! Synthetic histories with known true strengths, deterministic for a given seed.
//!
//! `league`: a chess league. Players get true Elo strengths from N(mean, sd^2); they meet in a
//! double round robin (circle method, colours swapped in the second half), two rounds a week
//! (Wednesday and Saturday, 18:00 UTC). Each game is drawn from the Davidson model on the true
//! strengths: with `pi = 10^(r/400)`, white wins, draws and loses in the proportions
//! `pi_w : nu sqrt(pi_w pi_b) : pi_b`, so two equal players draw with probability
//! `nu / (2 + nu)` (the default `nu = 0.8` gives 2/7, about 29 %) and the expected score is
//! close to Elo's logistic curve.

use rand::seq::SliceRandom;
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
            rate_batch_core::time::format_time(t),
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

/// The file format of a pool's games.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PoolFormat {
    /// A games CSV (`time,a,b,result`).
    Csv,
    /// PGN in the style of the Lichess database, with move text (see [`write_pool_pgn`]).
    Pgn,
}

/// The pool's players and the source of its games, shared by the CSV and the PGN writers so
/// that a seed gives the same games in both.
struct Pool {
    rng: ChaCha8Rng,
    strengths: Vec<f64>,
    names: Vec<String>,
    draw_nu: f64,
}

impl Pool {
    fn new(cfg: &PoolConfig) -> io::Result<Self> {
        if cfg.players < 2 {
            return Err(io::Error::other("a pool needs at least two players"));
        }
        let mut rng = ChaCha8Rng::seed_from_u64(cfg.seed);
        let normal = Normal::new(1500.0, 300.0).map_err(io::Error::other)?;
        let strengths: Vec<f64> = (0..cfg.players).map(|_| normal.sample(&mut rng)).collect();
        let names: Vec<String> = (0..cfg.players).map(|i| format!("player{i:06}")).collect();
        Ok(Self {
            rng,
            strengths,
            names,
            draw_nu: cfg.draw_nu,
        })
    }

    /// The next game: (first player or white, second or black, the first's score).
    fn next_game(&mut self) -> (usize, usize, f64) {
        let players = self.names.len();
        let a = self.rng.random_range(0..players);
        let mut b = self.rng.random_range(0..players - 1);
        if b >= a {
            b += 1;
        }
        let score = davidson(
            &mut self.rng,
            self.strengths[a],
            self.strengths[b],
            self.draw_nu,
        );
        (a, b, score)
    }
}

/// Writes the pool's games in `format` (see [`write_pool_games`] and [`write_pool_pgn`]).
pub fn write_pool(w: &mut dyn Write, cfg: &PoolConfig, format: PoolFormat) -> io::Result<()> {
    match format {
        PoolFormat::Csv => write_pool_games(w, cfg),
        PoolFormat::Pgn => write_pool_pgn(w, cfg),
    }
}

/// Writes `games` random pairings of a pool with strengths N(1500, 300^2) as a games CSV
/// (`time,a,b,result`), streaming, one game a minute.
pub fn write_pool_games(w: &mut dyn Write, cfg: &PoolConfig) -> io::Result<()> {
    let mut pool = Pool::new(cfg)?;
    writeln!(w, "time,a,b,result")?;
    let mut line = String::new();
    for g in 0..cfg.games {
        let (a, b, score) = pool.next_game();
        let result = match score {
            1.0 => "1",
            0.0 => "0",
            _ => "0.5",
        };
        line.clear();
        rate_batch_core::time::push_time(&mut line, cfg.start + 60 * g as i64);
        line.push(',');
        line.push_str(&pool.names[a]);
        line.push(',');
        line.push_str(&pool.names[b]);
        line.push(',');
        line.push_str(result);
        line.push('\n');
        w.write_all(line.as_bytes())?;
    }
    Ok(())
}

/// Writes the same games as [`write_pool_games`] (same seed, same pairings, results and
/// times; the CSV's first player is White) as PGN in the style of the Lichess database: the
/// tags `Event`, `Site`, `Date`, `White`, `Black`, `Result`, `UTCDate`, `UTCTime`, `WhiteElo`,
/// `BlackElo` (the true strengths, rounded), `TimeControl` (3 minutes) and `Termination`, then
/// on one line a move text of 20 to 60 moves with a `[%clk]` comment after each, ending with
/// the result. The moves look like SAN but are not legal chess: they are there to give a
/// reader the bytes and the comments of real games. They come from a second stream of the
/// seed's generator, so the games themselves do not depend on them.
pub fn write_pool_pgn(w: &mut dyn Write, cfg: &PoolConfig) -> io::Result<()> {
    use std::fmt::Write as _;
    let mut pool = Pool::new(cfg)?;
    let mut moves = ChaCha8Rng::seed_from_u64(cfg.seed);
    moves.set_stream(1);
    let mut game = String::with_capacity(4096);
    let mut time = String::with_capacity(20);
    for g in 0..cfg.games {
        let (white, black, score) = pool.next_game();
        let result = match score {
            1.0 => "1-0",
            0.0 => "0-1",
            _ => "1/2-1/2",
        };
        time.clear();
        rate_batch_core::time::push_time(&mut time, cfg.start + 60 * g as i64);
        // `YYYY-MM-DDTHH:MM:SSZ` (the years 0 to 9999, which a pool stays within).
        let date = time.get(..10).unwrap_or_default().replace('-', ".");
        let clock = time.get(11..19).unwrap_or_default();
        let elo = |i: usize| pool.strengths[i].round().max(0.0) as u32;
        game.clear();
        game.push_str("[Event \"Rated Blitz game\"]\n[Site \"https://rate-batch.invalid/");
        for _ in 0..8 {
            const ID: &[u8] = b"0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ";
            game.push(ID[moves.random_range(0..ID.len())] as char);
        }
        let _ = write!(
            game,
            "\"]\n[Date \"{date}\"]\n[White \"{}\"]\n[Black \"{}\"]\n[Result \"{result}\"]\n\
             [UTCDate \"{date}\"]\n[UTCTime \"{clock}\"]\n[WhiteElo \"{}\"]\n\
             [BlackElo \"{}\"]\n[TimeControl \"180+0\"]\n[Termination \"Normal\"]\n\n",
            pool.names[white],
            pool.names[black],
            elo(white),
            elo(black),
        );
        push_move_text(&mut game, &mut moves);
        game.push_str(result);
        game.push_str("\n\n");
        w.write_all(game.as_bytes())?;
    }
    Ok(())
}

/// Appends 40 to 120 half-moves that look like SAN, each with its clock (three minutes each,
/// a few seconds spent a move), as Lichess writes them: `1. e4 { [%clk 0:03:00] } 1... e5
/// { [%clk 0:03:00] } 2. Nf3 ...`, and a space. Pawns stay on the third to sixth ranks and
/// take on a neighbouring file, each side castles at most once; nothing else is checked.
fn push_move_text(out: &mut String, rng: &mut ChaCha8Rng) {
    use std::fmt::Write as _;
    const PIECES: &[&str] = &["", "", "", "N", "B", "R", "Q", "K"];
    const FILES: &[u8] = b"abcdefgh";
    let half_moves = rng.random_range(40..=120usize);
    let mut clocks = [180u32; 2];
    let mut castled = [false; 2];
    for h in 0..half_moves {
        // One draw a half-move, its bits cut into the choices.
        let bits: u64 = rng.random();
        let side = h % 2;
        let number = h / 2 + 1;
        let _ = if side == 0 {
            write!(out, "{number}. ")
        } else {
            write!(out, "{number}... ")
        };
        if h >= 6 && !castled[side] && bits.is_multiple_of(12) {
            castled[side] = true;
            out.push_str(if bits >> 4 & 3 == 0 { "O-O-O" } else { "O-O" });
        } else {
            let piece = PIECES[(bits >> 8 & 7) as usize];
            let capture = bits >> 11 & 7 == 0;
            let file = (bits >> 14 & 7) as usize;
            let rank = if piece.is_empty() {
                3 + (bits >> 17 & 3) as u8
            } else {
                1 + (bits >> 17 & 7) as u8
            };
            out.push_str(piece);
            if capture {
                if piece.is_empty() {
                    // From the file on the left, or on the right on the a-file.
                    out.push(FILES[if file == 0 { 1 } else { file - 1 }] as char);
                }
                out.push('x');
            }
            out.push(FILES[file] as char);
            out.push((b'0' + rank) as char);
            if bits >> 23 & 15 == 0 {
                out.push('+');
            }
        }
        // Lichess shows the clock after the move; the first moves take no time.
        if h >= 2 {
            clocks[side] = clocks[side].saturating_sub((bits >> 27 & 7) as u32 % 6);
        }
        let c = clocks[side];
        let _ = write!(
            out,
            " {{ [%clk {}:{:02}:{:02}] }} ",
            c / 3600,
            c / 60 % 60,
            c % 60
        );
    }
}

/// Settings of the Elo-MMR paper's synthetic contests (section 6.1): players with Gaussian
/// initial skills, ranked in each round by independent logistic performances, their skills
/// drifting by Gaussian increments between sessions.
///
/// A *session* is one pass over every player: the players are shuffled and split into rounds
/// of `group` (the last round of a session may be smaller), so that, as the paper says, every
/// player competes in every session. The paper's small set is 75 sessions of 1,000 players in
/// rounds of 5 (15,000 rounds); its large set is 50 sessions of 10,000 players in one round.
/// Drift is added to every skill between consecutive sessions.
#[derive(Clone, Debug, PartialEq)]
pub struct SynthConfig {
    /// Number of players.
    pub players: usize,
    /// Players per round.
    pub group: usize,
    /// Sessions (each player plays once per session).
    pub sessions: usize,
    /// Random seed.
    pub seed: u64,
    /// Mean of the initial skills.
    pub mean: f64,
    /// Standard deviation of the initial skills.
    pub skill_sd: f64,
    /// Standard deviation of a performance around the skill (a logistic distribution).
    pub perf_sd: f64,
    /// Standard deviation of the skill drift between sessions.
    pub drift_sd: f64,
    /// Unix seconds of the first session; sessions are a day apart, rounds a minute apart.
    pub start: i64,
}

impl SynthConfig {
    /// The paper's small set: 1,000 players, 5 per round, 15,000 rounds.
    pub fn small() -> Self {
        Self {
            players: 1_000,
            group: 5,
            sessions: 75,
            ..Self::large()
        }
    }

    /// A crowd: three contests of 1,000,000 entrants (everyone in each), as races, MOOCs and
    /// online game events rank them; the benchmark of cost per placing at scale (`--players`
    /// and `--group` set the size, `--sessions` the contests).
    pub fn crowd() -> Self {
        Self {
            players: 1_000_000,
            group: 1_000_000,
            sessions: 3,
            ..Self::large()
        }
    }

    /// The paper's large set: 10,000 players, all in each of 50 rounds.
    pub fn large() -> Self {
        Self {
            players: 10_000,
            group: 10_000,
            sessions: 50,
            seed: 2021,
            mean: 1500.0,
            skill_sd: 350.0,
            perf_sd: 200.0,
            drift_sd: 35.0,
            start: 1_609_459_200,
        }
    }

    /// Checks the settings.
    pub fn validate(&self) -> Result<(), String> {
        if self.players < 2 || self.group < 2 {
            return Err("synthetic contests need at least two players, two a round".into());
        }
        let bad = |x: f64| !(x.is_finite() && x >= 0.0);
        if bad(self.skill_sd) || bad(self.perf_sd) || bad(self.drift_sd) || !self.mean.is_finite() {
            return Err("standard deviations must be finite and non-negative".into());
        }
        Ok(())
    }

    /// Rounds in one session.
    pub fn rounds_per_session(&self) -> usize {
        self.players.div_ceil(self.group.max(1))
    }
}

/// Writes the synthetic contests as a standings CSV (`contest,time,player,rank`) and the
/// true skill of every participant at the time of each round (`contest,player,skill`).
/// Returns the number of rounds written.
pub fn write_synth(
    standings: &mut dyn Write,
    truth: &mut dyn Write,
    cfg: &SynthConfig,
) -> io::Result<usize> {
    cfg.validate().map_err(io::Error::other)?;
    let mut rng = ChaCha8Rng::seed_from_u64(cfg.seed);
    let initial = Normal::new(cfg.mean, cfg.skill_sd).map_err(io::Error::other)?;
    let drift = Normal::new(0.0, cfg.drift_sd).map_err(io::Error::other)?;
    // A logistic distribution of scale s has standard deviation s * pi / sqrt(3).
    let scale = cfg.perf_sd * 3f64.sqrt() / std::f64::consts::PI;
    let mut skills: Vec<f64> = (0..cfg.players).map(|_| initial.sample(&mut rng)).collect();
    let width = (cfg.players - 1).to_string().len();
    let names: Vec<String> = (0..cfg.players).map(|i| format!("p{i:0width$}")).collect();
    let per_session = cfg.rounds_per_session();
    let total = per_session * cfg.sessions;
    let rwidth = total.saturating_sub(1).to_string().len();
    writeln!(standings, "contest,time,player,rank")?;
    writeln!(truth, "contest,player,skill")?;
    let mut order: Vec<usize> = (0..cfg.players).collect();
    let mut entries: Vec<(f64, usize)> = Vec::with_capacity(cfg.group);
    let mut round = 0usize;
    for session in 0..cfg.sessions {
        if session > 0 {
            for s in &mut skills {
                *s += drift.sample(&mut rng);
            }
        }
        if per_session > 1 {
            order.shuffle(&mut rng);
        }
        for (j, group) in order.chunks(cfg.group).enumerate() {
            let contest = format!("synth-{round:0rwidth$}");
            let time = rate_batch_core::time::format_time(
                cfg.start + 86_400 * session as i64 + 60 * j as i64,
            );
            entries.clear();
            for &i in group {
                // Inverse-CDF sampling; u in (0, 1) so the logarithm is finite.
                let u: f64 = rng.random_range(f64::EPSILON..1.0);
                entries.push((skills[i] + scale * (u / (1.0 - u)).ln(), i));
            }
            entries.sort_by(|a, b| b.0.total_cmp(&a.0));
            for (rank, &(_, i)) in entries.iter().enumerate() {
                writeln!(standings, "{contest},{time},{},{}", names[i], rank + 1)?;
                writeln!(truth, "{contest},{},{:.3}", names[i], skills[i])?;
            }
            round += 1;
        }
    }
    Ok(round)
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
    fn pool_pgn_has_the_csvs_games_with_lichess_tags_and_move_text() {
        let cfg = PoolConfig {
            players: 7,
            games: 60,
            ..PoolConfig::default()
        };
        let mut csv = Vec::new();
        write_pool(&mut csv, &cfg, PoolFormat::Csv).unwrap();
        let mut pgn = Vec::new();
        write_pool(&mut pgn, &cfg, PoolFormat::Pgn).unwrap();
        let mut again = Vec::new();
        write_pool_pgn(&mut again, &cfg).unwrap();
        assert_eq!(pgn, again, "deterministic");
        let csv = String::from_utf8(csv).unwrap();
        let pgn = String::from_utf8(pgn).unwrap();
        // A game is its tags, a blank line, the move text and a blank line.
        let games: Vec<&str> = pgn.split_terminator("\n\n").collect();
        assert_eq!(games.len(), 2 * cfg.games);
        assert!(pgn.ends_with("\n\n") && !pgn.ends_with("\n\n\n"));
        for (row, pair) in csv.lines().skip(1).zip(games.chunks(2)) {
            let f: Vec<&str> = row.split(',').collect();
            let (tags, moves) = (pair[0], pair[1]);
            let tag = |name: &str| {
                tags.lines()
                    .find_map(|l| l.strip_prefix(&format!("[{name} \"")))
                    .and_then(|v| v.strip_suffix("\"]"))
                    .unwrap_or_else(|| panic!("no {name} in {tags}"))
            };
            let names: Vec<&str> = tags
                .lines()
                .map(|l| l[1..].split(' ').next().unwrap())
                .collect();
            assert_eq!(
                names,
                [
                    "Event",
                    "Site",
                    "Date",
                    "White",
                    "Black",
                    "Result",
                    "UTCDate",
                    "UTCTime",
                    "WhiteElo",
                    "BlackElo",
                    "TimeControl",
                    "Termination"
                ]
            );
            assert_eq!(tag("Event"), "Rated Blitz game");
            assert_eq!(tag("TimeControl"), "180+0");
            assert_eq!(tag("Termination"), "Normal");
            // `2020-01-01T00:00:00Z` -> `2020.01.01`, `00:00:00`.
            assert_eq!(tag("UTCDate"), f[0][..10].replace('-', "."));
            assert_eq!(tag("Date"), tag("UTCDate"));
            assert_eq!(tag("UTCTime"), &f[0][11..19]);
            assert_eq!((tag("White"), tag("Black")), (f[1], f[2]));
            let result = match f[3] {
                "1" => "1-0",
                "0" => "0-1",
                _ => "1/2-1/2",
            };
            assert_eq!(tag("Result"), result);
            assert!(tag("WhiteElo").parse::<u32>().is_ok());
            // One line of move text: `1. e4 { [%clk 0:03:00] } 1... e5 { [%clk 0:03:00] }
            // 2. ...`, 20 to 60 moves, then the result.
            assert!(!moves.contains('\n'));
            assert!(moves.starts_with("1. "), "{moves}");
            assert!(moves.ends_with(&format!("] }} {result}")), "{moves}");
            let clocks = moves.matches("{ [%clk ").count();
            assert!((40..=120).contains(&clocks), "{clocks} half-moves");
            assert!(moves.contains(" { [%clk 0:03:00] } 1... "), "{moves}");
        }
        // The move text is the bulk of the file, as in real databases.
        assert!(pgn.len() > 20 * csv.len(), "{} vs {}", pgn.len(), csv.len());
    }

    #[test]
    fn same_seed_same_league_and_draw_rate_near_two_sevenths() {
        let a = league(&LeagueConfig::default()).unwrap();
        let b = league(&LeagueConfig::default()).unwrap();
        assert_eq!(a.games, b.games);
        let draws = a.games.iter().filter(|g| g.3 == 0.5).count() as f64 / a.games.len() as f64;
        assert!((0.18..0.32).contains(&draws), "draw rate {draws}");
    }

    #[test]
    fn synthetic_contests_have_the_papers_shape() {
        let cfg = SynthConfig {
            players: 12,
            group: 5,
            sessions: 3,
            ..SynthConfig::small()
        };
        let (mut s, mut t) = (Vec::new(), Vec::new());
        let rounds = write_synth(&mut s, &mut t, &cfg).unwrap();
        // 12 players in rounds of 5: 5, 5, 2 per session.
        assert_eq!(rounds, 9);
        let s = String::from_utf8(s).unwrap();
        let t = String::from_utf8(t).unwrap();
        assert_eq!(s.lines().count(), 1 + 36);
        assert_eq!(t.lines().count(), 1 + 36);
        // Everyone plays exactly once per session, and ranks run 1..=n in each round.
        let rows: Vec<Vec<&str>> = s.lines().skip(1).map(|l| l.split(',').collect()).collect();
        for session in 0..3 {
            let mut players: Vec<&str> = rows[session * 12..(session + 1) * 12]
                .iter()
                .map(|r| r[2])
                .collect();
            players.sort_unstable();
            players.dedup();
            assert_eq!(players.len(), 12);
        }
        let mut expected_rank = 0;
        let mut last = "";
        for r in &rows {
            if r[0] != last {
                expected_rank = 0;
                last = r[0];
            }
            expected_rank += 1;
            assert_eq!(r[3], expected_rank.to_string());
        }
        // Deterministic for a seed.
        let (mut s2, mut t2) = (Vec::new(), Vec::new());
        write_synth(&mut s2, &mut t2, &cfg).unwrap();
        assert_eq!(s.as_bytes(), &s2[..]);
        assert_eq!(t.as_bytes(), &t2[..]);
    }

    #[test]
    fn synthetic_skills_and_drift_have_the_stated_spread() {
        // 2,000 players, two sessions: initial sd 350, drift sd 35 between them.
        let cfg = SynthConfig {
            players: 2_000,
            group: 2_000,
            sessions: 2,
            ..SynthConfig::large()
        };
        let (mut s, mut t) = (Vec::new(), Vec::new());
        write_synth(&mut s, &mut t, &cfg).unwrap();
        let t = String::from_utf8(t).unwrap();
        let mut first = std::collections::HashMap::new();
        let mut steps = Vec::new();
        let mut initial = Vec::new();
        for l in t.lines().skip(1) {
            let f: Vec<&str> = l.split(',').collect();
            let x: f64 = f[2].parse().unwrap();
            match first.insert(f[1].to_string(), x) {
                None => initial.push(x),
                Some(prev) => steps.push(x - prev),
            }
        }
        let sd = |v: &[f64], mean: f64| {
            (v.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / v.len() as f64).sqrt()
        };
        let mean = initial.iter().sum::<f64>() / initial.len() as f64;
        assert!((mean - 1500.0).abs() < 25.0, "mean {mean}");
        let s0 = sd(&initial, mean);
        assert!((s0 - 350.0).abs() < 20.0, "sd {s0}");
        let sd_drift = sd(&steps, 0.0);
        assert!((sd_drift - 35.0).abs() < 2.5, "drift sd {sd_drift}");
        // Over all pairs of the first round, the stronger player finishes ahead with
        // probability about 1/2 + atan(350/200)/pi = 0.835 (Gaussian approximation of the
        // logistic performance): a performance sd of 110 (the logistic scale taken for the sd)
        // would give 0.90, no noise 1.0.
        let s = String::from_utf8(s).unwrap();
        let rank: std::collections::HashMap<&str, usize> = s
            .lines()
            .skip(1)
            .take(2_000)
            .map(|l| {
                let f: Vec<&str> = l.split(',').collect();
                (f[2], f[3].parse().unwrap())
            })
            .collect();
        let skill: Vec<(&str, f64)> = t
            .lines()
            .skip(1)
            .take(2_000)
            .map(|l| {
                let f: Vec<&str> = l.split(',').collect();
                (f[1], f[2].parse().unwrap())
            })
            .collect();
        let (mut right, mut pairs) = (0usize, 0usize);
        for (i, &(a, sa)) in skill.iter().enumerate() {
            for &(b, sb) in &skill[i + 1..] {
                pairs += 1;
                if (sa > sb) == (rank[a] < rank[b]) {
                    right += 1;
                }
            }
        }
        let share = right as f64 / pairs as f64;
        assert!((0.81..0.86).contains(&share), "ordered right {share}");
    }
}
