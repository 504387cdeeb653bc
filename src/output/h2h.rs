//! `h2h.csv` (`replay --h2h N`): for each two of the top N players of the leaderboard, their
//! games against each other and the likelihood that the higher placed is the stronger.
//!
//! Games are the two-entry contests with one player a side; a win, a draw and a loss are by
//! place. The likelihood of superiority is the share of `--ci`'s bootstrap replicates in
//! which the higher placed is rated above the other (ties half); without `--ci`,
//! `Phi((r_a - r_b) / sqrt(u_a^2 + u_b^2))` from the two ratings and their uncertainties, as
//! if independent (empty for a system without an uncertainty).

use super::table::LeaderRow;
use super::text::{csv_field, number};
use crate::history::{History, PlayerId};
use std::io::{self, Write};

/// One pair: the higher placed `a`, the other `b` (positions in the top).
pub struct Pair {
    a: usize,
    b: usize,
    wins_a: u64,
    draws: u64,
    wins_b: u64,
    superiority: Option<f64>,
}

/// The pairs of the top, and the top's players and ranks.
pub struct H2h {
    players: Vec<(PlayerId, usize)>,
    pairs: Vec<Pair>,
}

/// Counts the games between the players of `top` (leaderboard rows, best first) in
/// `history`; `superiority`, where given, is the bootstrap's (`i * top + j`).
pub fn table(
    history: &History,
    top: &[LeaderRow],
    superiority: Option<&[f64]>,
    (as_of, skip_all_tied): (Option<i64>, bool),
) -> H2h {
    let n = top.len();
    let position: rustc_hash::FxHashMap<_, _> =
        top.iter().enumerate().map(|(k, r)| (r.player, k)).collect();
    // (wins of the first, draws, wins of the second) by (first, second) positions.
    let mut counts = vec![(0u64, 0u64, 0u64); n * n];
    for c in history.contests() {
        // The contests the replay rated: before `--as-of`, and not a draw it left out.
        if c.len() != 2 || as_of.is_some_and(|t| c.time() >= t) || (skip_all_tied && c.all_tied()) {
            continue;
        }
        let (x, y) = (c.entry(0), c.entry(1));
        let ([p], [q]) = (x.players, y.players) else {
            continue;
        };
        let (Some(&i), Some(&j)) = (position.get(p), position.get(q)) else {
            continue;
        };
        let (lo, hi, outcome) = if i < j {
            (i, j, x.outcome_against(&y))
        } else {
            (j, i, y.outcome_against(&x))
        };
        let cell = &mut counts[lo * n + hi];
        if outcome > 0.75 {
            cell.0 += 1;
        } else if outcome < 0.25 {
            cell.2 += 1;
        } else {
            cell.1 += 1;
        }
    }
    let mut pairs = Vec::with_capacity(n * n.saturating_sub(1) / 2);
    for a in 0..n {
        for b in a + 1..n {
            let (wins_a, draws, wins_b) = counts[a * n + b];
            let from_spread = || {
                let (ra, rb) = (top[a].rating, top[b].rating);
                let spread = ra.uncertainty?.hypot(rb.uncertainty?);
                (spread > 0.0).then(|| crate::numeric::normal_cdf((ra.mean - rb.mean) / spread))
            };
            let superiority = match superiority {
                Some(s) if s.len() >= n * n => Some(s[a * n + b]),
                _ => from_spread(),
            };
            pairs.push(Pair {
                a,
                b,
                wins_a,
                draws,
                wins_b,
                superiority,
            });
        }
    }
    H2h {
        players: top
            .iter()
            .map(|r| (r.player, r.rank.unwrap_or(0)))
            .collect(),
        pairs,
    }
}

/// Writes the table.
pub fn write(w: &mut dyn Write, history: &History, t: &H2h) -> io::Result<()> {
    writeln!(
        w,
        "player_a,player_b,rank_a,rank_b,games,wins_a,draws,wins_b,score_a,superiority_a"
    )?;
    let mut line = String::new();
    for p in &t.pairs {
        line.clear();
        let ((pa, ra), (pb, rb)) = (t.players[p.a], t.players[p.b]);
        csv_field(history.name(pa), &mut line);
        line.push(',');
        csv_field(history.name(pb), &mut line);
        let games = p.wins_a + p.draws + p.wins_b;
        line.push_str(&format!(
            ",{ra},{rb},{games},{},{},{},",
            p.wins_a, p.draws, p.wins_b
        ));
        number(p.wins_a as f64 + 0.5 * p.draws as f64, &mut line);
        line.push(',');
        if let Some(s) = p.superiority {
            number(s, &mut line);
        }
        line.push('\n');
        w.write_all(line.as_bytes())?;
    }
    Ok(())
}

/// `h2h.csv` (`--h2h N`).
pub struct HeadToHead;

impl super::Output for HeadToHead {
    fn names(&self) -> &'static [&'static str] {
        &["h2h.csv"]
    }

    fn wanted(&self, done: &super::Replayed) -> Vec<&'static str> {
        (done.h2h > 0).then_some("h2h.csv").into_iter().collect()
    }

    fn write(&self, _: &str, done: &super::Replayed, w: &mut dyn Write) -> io::Result<()> {
        let ranked = done.rows.iter().take_while(|r| r.rank.is_some()).count();
        let top = &done.rows[..done.h2h.min(ranked)];
        let t = table(done.games, top, done.superiority, done.rated);
        write(w, done.history, &t)
    }
}
