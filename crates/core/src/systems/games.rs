//! A contest as weighted games between pairs of players, for the systems fitted on games
//! (Bradley-Terry, whole-history rating): a two-entry contest is a game, its first entry the
//! first side unless it was played on neutral ground (or comes from a standings); a team's members each play each opponent with weight `1 / (|A| |B|)`; a
//! standings of n > 2 is its `n (n - 1) / 2` pairs without a first side, each of weight `2 / n`
//! (the `n - 1` comparisons' worth of information of a Plackett-Luce ranking of n).

use crate::history::{Contest, PlayerId};

/// Calls `f(i, j, outcome, weight, side)` for every game of the contest: `outcome` is i's
/// result against j (1, 1/2, 0), `side` 1 when i played the first side of a game (see
/// [`Contest::first_side`]) and 0 otherwise (neutral ground, a standings). A contest of weight 0 has no games.
pub(crate) fn for_each_game(c: &Contest<'_>, mut f: impl FnMut(PlayerId, PlayerId, f64, f64, i8)) {
    let n = c.len();
    if n < 2 || c.weight() <= 0.0 {
        return;
    }
    let pair_weight = if n == 2 {
        c.weight()
    } else {
        2.0 * c.weight() / n as f64
    };
    let side = i8::from(c.first_side());
    for x in 0..n {
        let a = c.entry(x);
        for y in x + 1..n {
            let b = c.entry(y);
            let outcome = a.outcome_against(&b);
            let w = pair_weight / (a.players.len() * b.players.len()) as f64;
            for &i in a.players {
                for &j in b.players {
                    f(i, j, outcome, w, side);
                }
            }
        }
    }
}

/// Why `system` refuses a contest, if it does: a standings of more than `max` entries, or a
/// contest whose members make more pairs than such a standings would (two teams of 1,000
/// are a million pairs): the pairs grow as n^2.
pub(crate) fn refuse_large(system: &str, c: &Contest<'_>, max: u32) -> Option<String> {
    let n = c.len();
    if n > 2 && n > max as usize {
        return Some(format!(
            "{system} takes a standings as its pairs (n^2 / 2 of them), up to max-standing = \
             {max} entries, and this one has {n}: rate large standings with a per-contest \
             system (elo-mmr, trueskill), or raise max-standing"
        ));
    }
    let limit = max as u128 * (max as u128).saturating_sub(1) / 2;
    let (players, squares) = c.entries().fold((0u128, 0u128), |(p, q), e| {
        let k = e.players.len() as u128;
        (p + k, q + k * k)
    });
    let pairs = (players * players - squares) / 2;
    (pairs > limit).then(|| {
        format!(
            "{system} takes a contest as the games between the members of its entries, and \
             this one's {players} players make {pairs} of them, more than a standings of \
             max-standing = {max} would ({limit}): raise max-standing, or rate it with a \
             per-contest system (trueskill)"
        )
    })
}
