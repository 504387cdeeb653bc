//! Matchmaking of Yuksel 2024 (`../shared/papers/yuksel-2024-matchmaking.txt`, section 4):
//! for each waiting player the win probability the next game should have so that the win rate
//! over a window of games comes back to the target (equations 23-25), the opponent rating
//! that gives it (equation 26, `r* = f^-1(p)`, with `f` the system's own win probability), and
//! group matchmaking (section 4.2): sort by desired opponent rating, optionally shuffle by
//! swapping players within a small window (to avoid the same pairs again), pair neighbours.
//!
//! Equations, with `n` the window, `w` the wins among the last `min(m, n)` games (draws half),
//! `m` the games played and `lambda` the target win rate:
//! - `p = (lambda (2n + 1) - w) / (n + 1)` once `m >= n` (24);
//! - `p = (lambda (n + m + 1) - w) / (n + 1)` while `m < n` (25), so a newcomer gets `lambda`;
//! - the acceptable opponents lie in `f^-1(p +/- delta_p)`.
//!
//! `p` can leave (0, 1) after a streak (the window cannot be repaired by one game); it is kept
//! within `[P_MIN, 1 - P_MIN]` so that the desired rating stays finite.

use crate::history::PlayerId;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

/// The desired probability is kept this far from 0 and 1.
pub const P_MIN: f64 = 1e-3;

/// Equations 24-25: the win probability the next game should have. `recent` holds the
/// results (1, 1/2, 0) of the last games, oldest first, at most `n` of them used; `played` is
/// the number of games played in all (`m`).
pub fn desired_probability(target: f64, n: usize, recent: &[f64], played: usize) -> f64 {
    let used = &recent[recent.len().saturating_sub(n)..];
    let w: f64 = used.iter().sum();
    let nf = n as f64;
    let p = if played >= n {
        (target * (2.0 * nf + 1.0) - w) / (nf + 1.0)
    } else {
        (target * (nf + played as f64 + 1.0) - w) / (nf + 1.0)
    };
    p.clamp(P_MIN, 1.0 - P_MIN)
}

/// Equation 26: the rating `x` at which `f(x) = p`, for `f` the player's win probability
/// against an opponent rated `x` (decreasing in `x`), by bisection to `tol` from a bracket
/// grown outwards from `around` in steps of `step`.
pub fn invert(f: impl Fn(f64) -> f64, p: f64, around: f64, step: f64, tol: f64) -> f64 {
    let (mut lo, mut hi) = (around - step, around + step);
    let mut grow = step;
    // f(lo) >= p >= f(hi) (f decreases).
    for _ in 0..200 {
        if f(lo) >= p {
            break;
        }
        grow *= 2.0;
        lo -= grow;
    }
    grow = step;
    for _ in 0..200 {
        if f(hi) <= p {
            break;
        }
        grow *= 2.0;
        hi += grow;
    }
    for _ in 0..200 {
        let mid = 0.5 * (lo + hi);
        if hi - lo <= tol {
            return mid;
        }
        if f(mid) >= p {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    0.5 * (lo + hi)
}

/// Equation 26 for a player of any system: the opponent rating at which the system's own win
/// probability for the player is `p` (kept within `[P_MIN, 1 - P_MIN]`), the opponent being a
/// player seeded at that rating. Found by bisection from the player's rating in steps of his
/// uncertainty (100 where the system has none), to `precision` times that step.
pub fn desired_opponent<S: crate::systems::RatingSystem>(
    system: &S,
    state: &S::Player,
    p: f64,
    precision: f64,
) -> f64 {
    let rating = system.rating(state);
    let step = rating.uncertainty.unwrap_or(100.0).max(1e-3);
    let f = |x: f64| {
        let pair = [state.clone(), system.seeded(x, None, None)];
        system.win_probability(&pair, &[0], &[1]).unwrap_or(0.5)
    };
    invert(
        f,
        p.clamp(P_MIN, 1.0 - P_MIN),
        rating.mean,
        step,
        step * precision,
    )
}

/// Group matchmaking: sorts by desired opponent rating, swaps each player with one at most
/// `shuffle` places further (at random, seeded) and pairs neighbours. With an odd number of
/// players the last one waits.
pub fn group_pairs(
    desired: &[(PlayerId, f64)],
    shuffle: usize,
    seed: u64,
) -> (Vec<(PlayerId, PlayerId)>, Option<PlayerId>) {
    let mut order: Vec<(PlayerId, f64)> = desired.to_vec();
    order.sort_by(|a, b| a.1.total_cmp(&b.1).then(a.0.cmp(&b.0)));
    if shuffle > 0 {
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        for i in 0..order.len() {
            let j = (i + rng.random_range(0..=shuffle)).min(order.len() - 1);
            order.swap(i, j);
        }
    }
    let pairs = order.chunks_exact(2).map(|c| (c[0].0, c[1].0)).collect();
    let left = (order.len() % 2 == 1).then(|| order[order.len() - 1].0);
    (pairs, left)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::numeric::elo_win_probability;

    #[test]
    fn desired_probabilities_follow_equations_24_and_25() {
        // A newcomer: p = lambda.
        assert_eq!(desired_probability(0.5, 5, &[], 0), 0.5);
        // m = 2 < n = 5, two wins: (0.5 (5 + 2 + 1) - 2) / 6 = 2 / 6.
        assert!((desired_probability(0.5, 5, &[1.0, 1.0], 2) - 2.0 / 6.0).abs() < 1e-12);
        // m >= n, 3 wins and a draw in the last 5: (0.5 * 11 - 3.5) / 6 = 1/3.
        let recent = [0.0, 0.0, 1.0, 1.0, 0.5, 1.0];
        assert!((desired_probability(0.5, 5, &recent, 40) - 1.0 / 3.0).abs() < 1e-12);
        // Five losses: (5.5 - 0) / 6 = 0.9167; five wins: 0.5/6, kept above P_MIN.
        assert!((desired_probability(0.5, 5, &[0.0; 5], 5) - 5.5 / 6.0).abs() < 1e-12);
        assert!((desired_probability(0.5, 5, &[1.0; 5], 5) - 0.5 / 6.0).abs() < 1e-12);
        // Equation 23 holds: the window's expected win rate is the target.
        let p = desired_probability(0.5, 5, &recent, 40);
        assert!(((3.5 + 6.0 * p) / 11.0 - 0.5).abs() < 1e-12);
    }

    #[test]
    fn the_desired_opponent_inverts_elos_curve() {
        // f(x) = 1 / (1 + 10^((x - 1600) / 400)); p = 1/3 at x = 1600 + 400 log10(2).
        let f = |x: f64| elo_win_probability(1600.0 - x, 400.0);
        let x = invert(f, 1.0 / 3.0, 1600.0, 100.0, 1e-9);
        assert!((x - (1600.0 + 400.0 * 2f64.log10())).abs() < 1e-6, "{x}");
        // p = 1/2 is the player's own rating; extreme p still converge.
        assert!((invert(f, 0.5, 1000.0, 100.0, 1e-9) - 1600.0).abs() < 1e-6);
        let far = invert(f, 1e-3, 1600.0, 100.0, 1e-6);
        assert!((f(far) - 1e-3).abs() < 1e-9, "{far}");
    }

    #[test]
    fn group_pairs_neighbours_by_desired_rating() {
        let desired = [
            (0, 1500.0),
            (1, 1900.0),
            (2, 1510.0),
            (3, 1890.0),
            (4, 1200.0),
        ];
        let (pairs, left) = group_pairs(&desired, 0, 1);
        assert_eq!(pairs, vec![(4, 0), (2, 3)]);
        assert_eq!(left, Some(1));
        // With a shuffle window everyone is still paired once, and the seed repeats.
        let many: Vec<(PlayerId, f64)> = (0..100).map(|i| (i, (i * 37 % 101) as f64)).collect();
        let (a, _) = group_pairs(&many, 3, 7);
        let (b, _) = group_pairs(&many, 3, 7);
        assert_eq!(a, b);
        let mut seen: Vec<PlayerId> = a.iter().flat_map(|p| [p.0, p.1]).collect();
        seen.sort_unstable();
        assert_eq!(seen, (0..100).collect::<Vec<_>>());
    }
}
