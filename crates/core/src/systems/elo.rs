//! Elo, with the variants of "Elo for games" (`../shared/papers/elo-for-games.txt`).
//!
//! `R' = R + K (S - E) + L * Pa/(Pa+Pb) + V * S` with `E = 1 / (1 + 10^((Rb - Ra)/scale))`:
//! - `S` is 1 / 0.5 / 0 for a win / draw / loss, or with `score_share` the share of points
//!   `Pa/(Pa+Pb)` (0/0 counts as 0.5);
//! - `L` (`margin`) adds the share of points whatever `S` is; `V` (`win_bonus`) rewards every
//!   game not lost, so ratings creep upwards by about `n V / 2` over n games: it is `V` times
//!   the outcome (1 / 0.5 / 0) even with `score_share`, since the paper multiplies V by S
//!   precisely because S "is anyway equal to 0 in the case that the player has lost";
//! - `floor` is the lowest rating: a player at the floor only moves up.
//!
//! Where no points are given, the share of points is the result itself. A contest of n > 2
//! entries is decomposed into its n-1 pairs per entry, each with weight `1/(n-1)`, all from
//! pre-round ratings; a team plays with the mean rating of its members and every member
//! receives the team's change; the contest weight multiplies the change.
//!
//! `elo-gaussian` is Elo with the normal distribution function as its curve, as in Elo's own
//! design (`../shared/papers/matchmaking-systems-lol-elo.txt`, section IV.A, which follows the
//! TrueSkill paper's account of it): `E = Phi((Ra - Rb) / (sqrt 2 beta))` and
//! `Delta = alpha beta sqrt(pi) (S - E)`, `Ra += Delta`, `Rb -= Delta`. There `beta^2` is the
//! variance of a player's performance, by default 200^2 (Elo's class width), and the largest
//! change `K = alpha beta sqrt(pi)` is the parameter `k` (32, so alpha = 0.0903). The paper
//! prints the argument as `(c_1 - c_2) / sqrt(2 beta)` with performances c; with skills and
//! `sqrt(2) beta` it is the probability that one performance exceeds the other, which is what
//! the surrounding text describes. It also prints `r_1 + w Delta` with `w = +-1`, which would
//! raise a loser's rating; we apply `+Delta` / `-Delta` as the TrueSkill paper does. Every
//! variant above (floor, score share, margin, win bonus, teams, n entries) applies unchanged.
//!
//! The expected scores of a contest of 512 entries or more come from one tabulated function
//! of the field rather than pair by pair (unless `exact = true`): through the shared logistic
//! sums (`numeric::shared`, within 1e-10 of each score) for Elo, and through `numeric::gauss`
//! for the normal curve (within 2e-15 of the field's size). Both are O(n) per contest.
//!
//! # Examples
//!
//! With K 32, a 1500 player who beats a 1900 player gains 29.09 (a draw 13.09, a loss -2.91);
//! with the normal curve (`elo-gaussian`, beta 200), 29.48:
//!
//! ```
//! use rate_batch_core::rater::Rater;
//! use rate_batch_core::systems::elo::{Elo, EloGaussianParams, EloParams};
//!
//! let mut r = Rater::new(Elo::new(EloParams::default())?);
//! r.seed("a", 1500.0, None, None);
//! r.seed("b", 1900.0, None, None);
//! r.rate_game("a", "b", 1.0)?;
//! assert!((r.rating("a").unwrap().mean - 1529.09).abs() < 0.005);
//!
//! let mut g = Rater::new(Elo::gaussian(EloGaussianParams::default())?);
//! g.seed("a", 1500.0, None, None);
//! g.seed("b", 1900.0, None, None);
//! g.rate_game("a", "b", 1.0)?;
//! assert!((g.rating("a").unwrap().mean - 1529.48).abs() < 0.005);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

use super::base::{
    ParamError, Rating, RatingSystem, SystemKind, check_range, entry_mean, is_zero, map_indices,
    side_mean,
};
use super::pairwise::{TABULATE_FROM, logistic_sums, outcome_sums};
use crate::history::{Contest, PlayerId, Round};
use crate::numeric::{elo_win_probability, gauss, normal_cdf};
use serde::{Deserialize, Serialize};
use std::f64::consts::{FRAC_1_SQRT_2, SQRT_2};

/// Elo's parameters.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct EloParams {
    /// The K-factor: the largest change one game can make.
    pub k: f64,
    /// Rating difference at which the stronger side is 10 times as likely to win.
    pub scale: f64,
    /// A new player's rating.
    pub start: f64,
    /// The lowest rating a player can have (none by default).
    pub floor: Option<f64>,
    /// Use the share of points `Pa/(Pa+Pb)` as the outcome S.
    pub score_share: bool,
    /// L: weight of the margin term `L * Pa/(Pa+Pb)`.
    pub margin: f64,
    /// V: the win bonus `V * S`.
    pub win_bonus: f64,
    /// Multi-entrant contests summed pair by pair, O(n^2), rather than through the tabulated
    /// shared function (within 1e-10 of each expected score; see `numeric::shared`).
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub exact: bool,
    /// The first-side advantage (home, white), in rating points: added to side a's rating
    /// in its expected score, in games played with a first side.
    #[serde(skip_serializing_if = "is_zero")]
    pub advantage: f64,
    /// A multiplier of K from a game's margin of victory (`--mov-multiplier`).
    #[serde(skip_serializing_if = "MovMultiplier::is_none")]
    pub mov_multiplier: MovMultiplier,
}

/// A multiplier of K from the margin a two-entry game was won by, when both sides' points
/// are known (else 1).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(try_from = "serde_json::Value")]
pub enum MovMultiplier {
    /// None: K as it is.
    #[default]
    #[serde(rename = "none")]
    None,
    /// FiveThirtyEight's (its NFL model): `ln(max(M, 1) + 1) * 2.2 / (D * 0.001 + 2.2)` for a
    /// game won by M points by the side whose pregame rating (the first side's advantage
    /// included) was D above the loser's, `ln(max(M, 1) + 1) * 2.2` for a draw. The
    /// denominator damps the big wins of favourites, which would otherwise inflate their
    /// ratings (autocorrelation); D is taken at -2000 at the least, so that it stays positive.
    #[serde(rename = "538")]
    FiveThirtyEight,
}

/// `538` (as text, or the number `--param` reads it as) or `none` (or null: not given).
impl TryFrom<serde_json::Value> for MovMultiplier {
    type Error = String;

    fn try_from(v: serde_json::Value) -> Result<Self, String> {
        match v.as_str().map(str::trim) {
            Some("none") => Ok(MovMultiplier::None),
            None if v.is_null() => Ok(MovMultiplier::None),
            Some("538") => Ok(MovMultiplier::FiveThirtyEight),
            _ if v.as_f64() == Some(538.0) => Ok(MovMultiplier::FiveThirtyEight),
            _ => Err(format!("mov_multiplier is 538 or none, not {v}")),
        }
    }
}

impl MovMultiplier {
    fn is_none(&self) -> bool {
        *self == MovMultiplier::None
    }

    /// The multiplier of a game whose first side scored `x` to the second's `y`, its outcome
    /// `outcome` (1, 1/2, 0) and its pregame rating difference `d` (the first side's view,
    /// advantage included).
    pub fn of(self, (x, y): (f64, f64), outcome: f64, d: f64) -> f64 {
        match self {
            MovMultiplier::None => 1.0,
            MovMultiplier::FiveThirtyEight => {
                let margin = ((x - y).abs().max(1.0) + 1.0).ln();
                let winner_ahead = if outcome > 0.5 {
                    d
                } else if outcome < 0.5 {
                    -d
                } else {
                    return margin * 2.2;
                };
                margin * 2.2 / (winner_ahead.max(-2000.0) * 0.001 + 2.2)
            }
        }
    }
}

impl Default for EloParams {
    fn default() -> Self {
        Self {
            k: 32.0,
            scale: 400.0,
            start: 1500.0,
            floor: None,
            score_share: false,
            margin: 0.0,
            win_bonus: 0.0,
            exact: false,
            advantage: 0.0,
            mov_multiplier: MovMultiplier::None,
        }
    }
}

/// The parameters of Elo with the normal curve (`elo-gaussian`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct EloGaussianParams {
    /// K = alpha beta sqrt(pi): the largest change one game can make.
    pub k: f64,
    /// beta: the standard deviation of a player's performance.
    pub beta: f64,
    /// A new player's rating.
    pub start: f64,
    /// The lowest rating a player can have (none by default).
    pub floor: Option<f64>,
    /// Use the share of points `Pa/(Pa+Pb)` as the outcome S.
    pub score_share: bool,
    /// L: weight of the margin term `L * Pa/(Pa+Pb)`.
    pub margin: f64,
    /// V: the win bonus `V * S`.
    pub win_bonus: f64,
    /// Multi-entrant contests summed pair by pair, O(n^2), rather than through one tabulated
    /// function of the field (within 2e-15 of the field's size; see `numeric::gauss`).
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub exact: bool,
    /// The first-side advantage, in rating points (as `elo`'s).
    #[serde(skip_serializing_if = "is_zero")]
    pub advantage: f64,
    /// A multiplier of K from a game's margin of victory (as `elo`'s).
    #[serde(skip_serializing_if = "MovMultiplier::is_none")]
    pub mov_multiplier: MovMultiplier,
}

impl Default for EloGaussianParams {
    fn default() -> Self {
        let e = EloParams::default();
        Self {
            k: e.k,
            beta: 200.0,
            start: e.start,
            floor: e.floor,
            score_share: e.score_share,
            margin: e.margin,
            win_bonus: e.win_bonus,
            exact: false,
            advantage: 0.0,
            mov_multiplier: MovMultiplier::None,
        }
    }
}

/// The win-probability curve.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Curve {
    /// `1 / (1 + 10^(-d / scale))`.
    Logistic,
    /// `Phi(d / (sqrt 2 beta))`; the field is `sqrt 2 beta`.
    Normal(f64),
}

/// The Elo system.
#[derive(Clone, Debug)]
pub struct Elo {
    p: EloParams,
    curve: Curve,
    shown: serde_json::Value,
}

impl Elo {
    /// Checks the parameters.
    pub fn new(p: EloParams) -> Result<Self, ParamError> {
        check_range("k", p.k, 0.0, f64::MAX)?;
        check_range("scale", p.scale, f64::MIN_POSITIVE, f64::MAX)?;
        check_range("start", p.start, f64::MIN, f64::MAX)?;
        check_range("margin", p.margin, f64::MIN, f64::MAX)?;
        check_range("win_bonus", p.win_bonus, f64::MIN, f64::MAX)?;
        check_range("advantage", p.advantage, f64::MIN, f64::MAX)?;
        if let Some(f) = p.floor {
            check_range("floor", f, f64::MIN, f64::MAX)?;
        }
        let shown = serde_json::to_value(&p).unwrap_or_default();
        Ok(Self {
            p,
            curve: Curve::Logistic,
            shown,
        })
    }

    /// Elo with the normal curve.
    pub fn gaussian(g: EloGaussianParams) -> Result<Self, ParamError> {
        check_range("beta", g.beta, f64::MIN_POSITIVE, f64::MAX)?;
        let mut elo = Self::new(EloParams {
            k: g.k,
            start: g.start,
            floor: g.floor,
            score_share: g.score_share,
            margin: g.margin,
            win_bonus: g.win_bonus,
            exact: g.exact,
            advantage: g.advantage,
            mov_multiplier: g.mov_multiplier,
            ..EloParams::default()
        })?;
        elo.curve = Curve::Normal(SQRT_2 * g.beta);
        elo.shown = serde_json::to_value(&g).unwrap_or_default();
        Ok(elo)
    }

    /// The first-side advantage a game gives its first entry.
    #[inline]
    fn advantage_of(&self, first_side: bool) -> f64 {
        if first_side { self.p.advantage } else { 0.0 }
    }

    /// The expected score of a side `d` rating points above its opponent.
    #[inline]
    fn expected(&self, d: f64) -> f64 {
        match self.curve {
            Curve::Logistic => elo_win_probability(d, self.p.scale),
            Curve::Normal(width) => normal_cdf(d / width),
        }
    }

    /// The changes of the two sides of a two-entry contest.
    #[inline]
    fn pair_changes(&self, players: &[f64], contest: &Contest) -> (f64, f64) {
        let p = &self.p;
        let (a, b) = (contest.entry(0), contest.entry(1));
        let (ra, rb) = (
            entry_mean(players, &a, |r| *r),
            entry_mean(players, &b, |r| *r),
        );
        let outcome = a.outcome_against(&b);
        let points = match (a.score, b.score) {
            (Some(x), Some(y)) => share(x, y),
            _ => outcome,
        };
        let s = if p.score_share { points } else { outcome };
        let d = ra - rb + self.advantage_of(contest.first_side());
        let e = self.expected(d);
        let k = match (a.score, b.score) {
            (Some(x), Some(y)) if contest.has_margin() => {
                p.k * p.mov_multiplier.of((x, y), outcome, d)
            }
            _ => p.k,
        };
        let w = contest.weight();
        (
            w * (k * (s - e) + p.margin * points + p.win_bonus * outcome),
            w * (k * (e - s) + p.margin * (1.0 - points) + p.win_bonus * (1.0 - outcome)),
        )
    }

    /// Each entry's expected score against the others with the normal curve: through one
    /// tabulated function of the field (`numeric::gauss`: `Phi(d / width)` is the chance that
    /// a performance `N(r_i, width^2 / 2)` beats `N(r_j, width^2 / 2)`) for contests of
    /// [`TABULATE_FROM`] entries or more, unless `exact`; pair by pair otherwise.
    fn normal_expected(&self, ratings: &[f64], width: f64) -> Vec<f64> {
        let n = ratings.len();
        if n >= TABULATE_FROM && !self.p.exact {
            let spread = vec![width * FRAC_1_SQRT_2; n];
            let ones = vec![1.0; n];
            let terms = gauss::Normals {
                r: ratings,
                v: &spread,
                w: &ones,
            };
            // Worth it while the table is a quarter of the pairs' erfc evaluations.
            let budget = 0.25 * (n * n) as f64;
            if let Some(beaten_by) = gauss::beating_sums(&terms, ratings, &spread, budget) {
                // Against each j != i: 1 - P(j beats i); i's own term is 1/2 in the sum.
                return beaten_by.iter().map(|b| (n as f64 - 0.5) - b).collect();
            }
        }
        map_indices(n, 256, |i| {
            let r = ratings[i];
            ratings.iter().map(|&o| self.expected(r - o)).sum::<f64>() - 0.5
        })
    }

    fn apply(&self, r: &mut f64, d: f64) {
        *r += d;
        if let Some(f) = self.p.floor {
            *r = r.max(f);
        }
    }

    /// The change of each entry of one contest, from the given ratings, into `out`.
    fn contest_changes(&self, players: &[f64], contest: &Contest, out: &mut Vec<f64>) {
        out.clear();
        let n = contest.len();
        let p = &self.p;
        let w = contest.weight() / (n - 1) as f64;
        if n == 2 {
            let (da, db) = self.pair_changes(players, contest);
            out.push(da);
            out.push(db);
            return;
        }
        let ratings: Vec<f64> = contest
            .entries()
            .map(|e| entry_mean(players, &e, |r| *r))
            .collect();
        let ranges: Vec<(u32, u32)> = contest.entries().map(|e| (e.lo, e.hi)).collect();
        let ones = vec![1.0; n];
        let expected: Vec<f64> = match self.curve {
            Curve::Logistic => logistic_sums(&ratings, &ones, p.scale, p.exact, false)
                .into_iter()
                .map(|e| e.0)
                .collect(),
            Curve::Normal(width) => self.normal_expected(&ratings, width),
        };
        let outcomes = outcome_sums(&ranges, &ones);
        let has_scores = contest.entries().all(|e| e.score.is_some());
        let shares: Vec<f64> = if has_scores {
            let scores: Vec<f64> = contest.entries().map(|e| e.score.unwrap_or(0.0)).collect();
            (0..n)
                .map(|i| {
                    (0..n)
                        .filter(|&j| j != i)
                        .map(|j| share(scores[i], scores[j]))
                        .sum()
                })
                .collect()
        } else {
            outcomes.clone()
        };
        out.extend((0..n).map(|i| {
            let s = if p.score_share {
                shares[i]
            } else {
                outcomes[i]
            };
            w * (p.k * (s - expected[i]) + p.margin * shares[i] + p.win_bonus * outcomes[i])
        }));
    }
}

/// `Pa / (Pa + Pb)`, with 0/0 = 1/2.
#[inline]
pub fn share(pa: f64, pb: f64) -> f64 {
    if pa + pb > 0.0 { pa / (pa + pb) } else { 0.5 }
}

impl RatingSystem for Elo {
    type Player = f64;
    type Params = serde_json::Value;

    fn kind(&self) -> SystemKind {
        match self.curve {
            Curve::Logistic => SystemKind::Elo,
            Curve::Normal(_) => SystemKind::EloGaussian,
        }
    }

    fn parameters(&self) -> &serde_json::Value {
        &self.shown
    }

    fn new_player(&self) -> f64 {
        self.seeded(self.p.start, None, None)
    }

    fn seeded(&self, rating: f64, _: Option<f64>, _: Option<f64>) -> f64 {
        match self.p.floor {
            Some(f) => rating.max(f),
            None => rating,
        }
    }

    fn rating(&self, r: &f64) -> Rating {
        Rating::new(*r, None)
    }

    fn shift(&self, r: &mut f64, points: f64) -> bool {
        *r += points;
        true
    }

    fn update(&self, round: Round<'_>, players: &mut [f64]) {
        if round.len() == 1 {
            let contest = round.contests().next().expect("a round has a contest");
            if contest.len() == 2 {
                // The common case, without allocation: one game.
                let (da, db) = self.pair_changes(players, &contest);
                for (e, d) in [(contest.entry(0), da), (contest.entry(1), db)] {
                    for (i, &p) in e.players.iter().enumerate() {
                        self.apply(&mut players[p as usize], d * e.weight(i));
                    }
                }
                return;
            }
        }
        // All changes from pre-round ratings first, then applied (and floored) per player.
        let mut deltas = Vec::new();
        let mut changes: Vec<(PlayerId, f64)> = Vec::new();
        for contest in round.contests() {
            self.contest_changes(players, &contest, &mut deltas);
            for (e, d) in contest.entries().zip(&deltas) {
                changes.extend(
                    e.players
                        .iter()
                        .enumerate()
                        .map(|(i, &p)| (p, *d * e.weight(i))),
                );
            }
        }
        if round.len() > 1 {
            // A player may play several contests of a round: sum before flooring.
            changes.sort_by_key(|c| c.0);
        }
        for same in changes.chunk_by(|a, b| a.0 == b.0) {
            let d = same[1..].iter().fold(same[0].1, |d, c| d + c.1);
            self.apply(&mut players[same[0].0 as usize], d);
        }
    }

    /// A team plays at its members' mean rating weighted by their shares, and each member's
    /// change is the team's times his share.
    fn partial_play(&self) -> bool {
        true
    }

    fn advantage_per_elo(&self) -> Option<f64> {
        Some(match self.curve {
            Curve::Logistic => self.p.scale / 400.0,
            Curve::Normal(width) => super::base::normal_points_per_elo(width),
        })
    }

    fn win_probability_sided(
        &self,
        players: &[f64],
        a: &[PlayerId],
        b: &[PlayerId],
        first_side: bool,
    ) -> Option<f64> {
        let ra = side_mean(players, a, |r| *r);
        let rb = side_mean(players, b, |r| *r);
        Some(self.expected(ra - rb + self.advantage_of(first_side)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::history::{HistoryBuilder, SourceInfo};

    /// A two-player game from the given ratings; returns both new ratings.
    fn play(elo: &Elo, ra: f64, rb: f64, score_a: f64, points: Option<(f64, f64)>) -> (f64, f64) {
        let mut b = HistoryBuilder::new();
        let (x, y) = (b.player("a"), b.player("b"));
        b.add_game(0, 1.0, None, (&[x], &[y]), score_a, points)
            .unwrap();
        let h = b.finish(SourceInfo::default());
        let mut players = vec![ra, rb];
        elo.update(Round::new(&h, &[0]), &mut players);
        (players[0], players[1])
    }

    fn elo(f: impl FnOnce(&mut EloParams)) -> Elo {
        let mut p = EloParams::default();
        f(&mut p);
        Elo::new(p).unwrap()
    }

    /// FiveThirtyEight's margin-of-victory multiplier, K 20, computed by hand:
    /// `20 ln(M + 1) 2.2 / (D 0.001 + 2.2) (S - E)`, D the winner's pregame lead.
    #[test]
    fn margin_of_victory_multiplier_by_hand() {
        let e = elo(|p| {
            p.k = 20.0;
            p.mov_multiplier = MovMultiplier::FiveThirtyEight;
        });
        let close = |x: f64, want: f64| assert!((x - want).abs() < 1e-9, "{x} vs {want}");
        // Equals, 3-0: 20 ln 4 / 2 = 13.8629.
        close(
            play(&e, 1500.0, 1500.0, 1.0, Some((3.0, 0.0))).0 - 1500.0,
            13.862_943_611_198_906,
        );
        // The favourite by 100 wins 1-0: damped by 2.2 / 2.3.
        close(
            play(&e, 1600.0, 1500.0, 1.0, Some((1.0, 0.0))).0 - 1600.0,
            4.772_812_584_845_581,
        );
        // The underdog wins 1-0: raised by 2.2 / 2.1.
        close(
            play(&e, 1600.0, 1500.0, 0.0, Some((0.0, 1.0))).0 - 1600.0,
            -9.295_717_618_806_076,
        );
        // A 2-2 draw counts a margin of 1 and the factor 2.2.
        close(
            play(&e, 1600.0, 1500.0, 0.5, Some((2.0, 2.0))).0 - 1600.0,
            -4.271_769_027_173_962,
        );
        // The home side (advantage 65) wins 7-0: its lead includes the advantage.
        let home = elo(|p| {
            p.k = 20.0;
            p.advantage = 65.0;
            p.mov_multiplier = MovMultiplier::FiveThirtyEight;
        });
        close(
            play(&home, 1500.0, 1500.0, 1.0, Some((7.0, 0.0))).0 - 1500.0,
            16.462_462_070_398_995,
        );
        // Without points the multiplier is 1: K as it is. So with a result written as
        // points (a result column, a PGN's 1-0), which says who won, not by how much.
        let (plain, _) = play(&e, 1500.0, 1500.0, 1.0, None);
        close(plain - 1500.0, 10.0);
        let mut b = HistoryBuilder::new();
        let (x, y) = (b.player("a"), b.player("b"));
        b.result_only_next();
        b.add_game(0, 1.0, None, (&[x], &[y]), 1.0, Some((1.0, 0.0)))
            .unwrap();
        let h = b.finish(SourceInfo::default());
        let mut players = vec![1500.0, 1500.0];
        e.update(Round::new(&h, &[0]), &mut players);
        close(players[0] - 1500.0, 10.0);
        // Named as `--param` reads it (538 a number), or as text; a wrong value said so.
        let given = |v: serde_json::Value| {
            let mut m = crate::systems::ParamMap::new();
            m.insert("mov_multiplier".into(), v);
            super::super::base::build_params::<EloParams>(SystemKind::Elo, &m)
        };
        let p = given(538.0.into()).unwrap();
        assert_eq!(p.mov_multiplier, MovMultiplier::FiveThirtyEight);
        assert_eq!(
            given("none".into()).unwrap().mov_multiplier,
            MovMultiplier::None
        );
        let bad = given("fivethirtyeight".into()).unwrap_err();
        assert!(bad.contains("538 or none"), "{bad}");
    }

    #[test]
    fn the_1500_player_against_1900_with_k_32() {
        let e = elo(|_| {});
        let (win, _) = play(&e, 1500.0, 1900.0, 1.0, None);
        let (draw, _) = play(&e, 1500.0, 1900.0, 0.5, None);
        let (loss, other) = play(&e, 1500.0, 1900.0, 0.0, None);
        assert!((win - 1500.0 - 29.09).abs() < 0.005, "{win}");
        assert!((draw - 1500.0 - 13.09).abs() < 0.005, "{draw}");
        assert!((loss - 1500.0 + 2.91).abs() < 0.005, "{loss}");
        // E = 1/11 exactly, and plain Elo is zero-sum.
        assert!((win - 1500.0 - 32.0 * 10.0 / 11.0).abs() < 1e-9);
        assert!((loss - 1500.0 + other - 1900.0).abs() < 1e-9);
    }

    /// E = Phi(-400 / (sqrt 2 200)) = Phi(-sqrt 2) = 0.0786496 (python3:
    /// `0.5 * math.erfc(1)`): +29.4832 / +13.4832 / -2.5168 with K = 32.
    #[test]
    fn gaussian_curve_1500_against_1900() {
        let g = Elo::gaussian(EloGaussianParams::default()).unwrap();
        assert_eq!(g.name(), "elo-gaussian");
        let (win, _) = play(&g, 1500.0, 1900.0, 1.0, None);
        let (draw, _) = play(&g, 1500.0, 1900.0, 0.5, None);
        let (loss, other) = play(&g, 1500.0, 1900.0, 0.0, None);
        assert!((win - 1529.483213).abs() < 1e-6, "{win}");
        assert!((draw - 1513.483213).abs() < 1e-6, "{draw}");
        assert!((loss - 1497.483213).abs() < 1e-6, "{loss}");
        assert!((loss - 1500.0 + other - 1900.0).abs() < 1e-9, "zero-sum");
        let p = g.win_probability(&[1500.0, 1900.0], &[0], &[1]).unwrap();
        assert!((p - 0.0786496035).abs() < 1e-9);
        // The margin multiplier: the underdog by 400 wins 3-0, K 32 times ln 4 * 2.2 /
        // (-0.4 + 2.2) = 1.6943598 times 1 - 0.0786496: +49.955170 (python3, math.erfc).
        let mov = Elo::gaussian(EloGaussianParams {
            mov_multiplier: MovMultiplier::FiveThirtyEight,
            ..EloGaussianParams::default()
        })
        .unwrap();
        let (won, _) = play(&mov, 1500.0, 1900.0, 1.0, Some((3.0, 0.0)));
        assert!((won - 1549.955170).abs() < 1e-6, "{won}");
    }

    /// 1500, 1600, 1700 finishing 2nd, 3rd, 1st: K/(n-1) = 16 times (S - sum of Phi(d / (sqrt 2
    /// 200))): +6.374610, -16.000000, +9.625390 (python3 with math.erfc).
    #[test]
    fn gaussian_curve_three_entries() {
        let g = Elo::gaussian(EloGaussianParams::default()).unwrap();
        let mut b = HistoryBuilder::new();
        let ids: Vec<u32> = ["a", "b", "c"].iter().map(|n| b.player(n)).collect();
        b.begin_contest(0, 1.0, None, None);
        for (id, place) in ids.iter().zip([1u32, 2, 0]) {
            b.add_entry(&[*id], place, place, None);
        }
        b.end_contest().unwrap();
        let h = b.finish(SourceInfo::default());
        let mut r = vec![1500.0, 1600.0, 1700.0];
        g.update(Round::new(&h, &[0]), &mut r);
        for (got, want) in r.iter().zip([1506.374610, 1584.0, 1709.625390]) {
            assert!((got - want).abs() < 1e-6, "{r:?}");
        }
    }

    #[test]
    fn a_player_at_the_floor_only_moves_up() {
        let e = elo(|p| p.floor = Some(1500.0));
        let (lost, _) = play(&e, 1500.0, 1500.0, 0.0, None);
        assert_eq!(lost, 1500.0);
        let (near, _) = play(&e, 1510.0, 1500.0, 0.0, None);
        assert_eq!(near, 1500.0, "a loss below the floor stops at the floor");
        let (won, _) = play(&e, 1500.0, 1500.0, 1.0, None);
        assert_eq!(won, 1516.0);
        assert_eq!(e.new_player(), 1500.0);
    }

    #[test]
    fn score_share_outcome() {
        let e = elo(|p| p.score_share = true);
        // 3:2 is S = 0.6 against an equal opponent: +32 * 0.1.
        let (a, b) = play(&e, 1500.0, 1500.0, 1.0, Some((3.0, 2.0)));
        assert!((a - 1503.2).abs() < 1e-9 && (b - 1496.8).abs() < 1e-9);
        // 0:0 is a draw, S = 0.5.
        let (a, _) = play(&e, 1500.0, 1500.0, 0.5, Some((0.0, 0.0)));
        assert_eq!(a, 1500.0);
    }

    #[test]
    fn margin_and_win_bonus_terms() {
        // R' = R + K(S-E) + L Pa/(Pa+Pb) + V S
        let e = elo(|p| {
            p.margin = 10.0;
            p.win_bonus = 5.0;
        });
        let (a, b) = play(&e, 1500.0, 1500.0, 1.0, Some((3.0, 1.0)));
        assert!((a - (1500.0 + 16.0 + 7.5 + 5.0)).abs() < 1e-9, "{a}");
        assert!((b - (1500.0 - 16.0 + 2.5)).abs() < 1e-9, "{b}");
        // The largest rise is K + L + V, the largest fall K (+ no margin when scoring nothing).
        let (a, b) = play(&e, 1000.0, 3000.0, 1.0, Some((1.0, 0.0)));
        assert!(a - 1000.0 < 32.0 + 10.0 + 5.0 && a - 1000.0 > 32.0 + 10.0 + 5.0 - 0.01);
        assert!(b - 3000.0 > -32.0 && b - 3000.0 < -31.99);
        // The win bonus counts half for a draw: ratings creep up by about n V / 2.
        let (a, b) = play(&elo(|p| p.win_bonus = 4.0), 1500.0, 1500.0, 0.5, None);
        assert_eq!((a, b), (1502.0, 1502.0));
        // With the share of points as S, a lost game still earns no bonus: 1500 loses 2:3 to
        // 1900 with V = 6: S = 0.4, E = 1/11, 1500 + 32 (0.4 - 1/11) = 1509.8909, no + 2.4.
        let e = elo(|p| {
            p.score_share = true;
            p.win_bonus = 6.0;
        });
        let (a, b) = play(&e, 1500.0, 1900.0, 0.0, Some((2.0, 3.0)));
        assert!(
            (a - (1500.0 + 32.0 * (0.4 - 1.0 / 11.0))).abs() < 1e-9,
            "{a}"
        );
        assert!(
            (b - (1900.0 - 32.0 * (0.4 - 1.0 / 11.0) + 6.0)).abs() < 1e-9,
            "{b}"
        );
    }

    #[test]
    fn multi_entry_contest_divides_k_and_is_zero_sum() {
        let mut b = HistoryBuilder::new();
        let ids: Vec<u32> = ["a", "b", "c", "d"].iter().map(|n| b.player(n)).collect();
        b.begin_contest(0, 1.0, None, None);
        b.add_entry(&ids[0..1], 0, 0, None);
        b.add_entry(&ids[1..2], 1, 2, None);
        b.add_entry(&ids[2..3], 1, 2, None);
        b.add_entry(&ids[3..4], 3, 3, None);
        b.end_contest().unwrap();
        let h = b.finish(SourceInfo::default());
        let before = vec![1500.0, 1600.0, 1400.0, 1500.0];
        let mut players = before.clone();
        let e = elo(|_| {});
        e.update(Round::new(&h, &[0]), &mut players);
        // a beat everyone: 32/3 * sum(1 - E).
        let exp = |x: f64, y: f64| elo_win_probability(x - y, 400.0);
        let want_a =
            1500.0 + 32.0 / 3.0 * ((1.0 - exp(1500.0, 1600.0)) + (1.0 - exp(1500.0, 1400.0)) + 0.5);
        assert!((players[0] - want_a).abs() < 1e-9);
        let total: f64 = players.iter().sum::<f64>() - before.iter().sum::<f64>();
        assert!(total.abs() < 1e-9);
    }

    #[test]
    fn team_members_receive_the_team_change() {
        let mut b = HistoryBuilder::new();
        let ids: Vec<u32> = ["a", "b", "c"].iter().map(|n| b.player(n)).collect();
        b.begin_contest(0, 1.0, None, None);
        b.add_entry(&ids[0..2], 0, 0, None);
        b.add_entry(&ids[2..3], 1, 1, None);
        b.end_contest().unwrap();
        let h = b.finish(SourceInfo::default());
        let mut players = vec![1400.0, 1600.0, 1500.0];
        elo(|_| {}).update(Round::new(&h, &[0]), &mut players);
        assert!((players[0] - 1416.0).abs() < 1e-9 && (players[1] - 1616.0).abs() < 1e-9);
        assert!((players[2] - 1484.0).abs() < 1e-9);
    }
}
