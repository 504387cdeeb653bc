//! Yuksel 2024, "Skill-Based Matchmaking for Competitive Two-Player Games", section 3
//! (`../shared/papers/yuksel-2024-matchmaking.txt`).
//!
//! Per player: the rating `r`, the running sum of derivatives `D`, and West's weighted running
//! statistics `W`, `R`, `V` whose ratio `phi^2 = V / W` (equation 12) is the rating deviation.
//! With Elo's win probability `f` and its derivative `df/dr = q f (1 - f)`, `q = ln 10 / 400`
//! (appendix A), and Glicko's `g(phi)` (equation 4), a game against `b` with score `s` gives
//! - `F = g(phi_b) (s - f)` (equation 17), `D' = g(phi_b) df/dr + g(alpha phi_a) D` (eq. 15),
//! - `dr = F / D'`, clamped to `+-max_delta`; when clamped `D' = F / dr` (Algorithm 1, line 6),
//! - `r' = r + s_step dr` and the statistics of equations 9-11 (UpdateStats).
//!
//! With `zero_sum` both players move by one common amount, the least-squares solution of
//! equation 22 (Algorithm 2), and each `D'` is corrected to `F / dr`.
//!
//! Rounds with more than one game are the paper's "series of m games" (equations 6-7): the
//! sums F and D run over every game of the round, all evaluated at the pre-round ratings, and
//! the player's history is discounted once (`g(alpha phi) D`). For n entries, the zero-sum
//! variant minimises `sum (D_u dr_u - F_u)^2` subject to `sum dr_u = 0` over each group of
//! sides connected by the round's games (one game, a series between two sides, one contest;
//! the disjoint games of a day are separate groups), which for two sides is exactly equation
//! 22; the clamp then scales the group's changes by one factor.
//! A team plays with its members' mean rating (and `phi` as the root mean square of theirs);
//! its `D` is the mean of its members' `D`, every member receives the team's change, and each
//! member's `D` takes the same new-game terms and the same correction.
//!
//! The starting `R` is the starting rating (the paper starts it at zero) so that shifting all
//! starting ratings shifts every output by the same amount; `W` starts at a tiny positive value.
//!
//! # Example
//!
//! Two newcomers' first game moves each by 1/(2 d) = 347.4 with d = q/4, q = ln 10 / 400:
//!
//! ```
//! use rate_batch_core::rater::Rater;
//! use rate_batch_core::systems::yuksel::{Yuksel, YukselParams};
//!
//! let mut r = Rater::new(Yuksel::new(YukselParams::default())?);
//! r.rate_game("a", "b", 1.0)?;
//! assert!((r.rating("a").unwrap().mean - 1847.4).abs() < 0.05);
//! assert!((r.rating("b").unwrap().mean - 1152.6).abs() < 0.05);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

use super::base::{
    Elapsed, ParamError, Rating, RatingSystem, check_range, fixed_system, side_mean,
};
use super::pairwise::{logistic_sums, outcome_sums};
use crate::history::{PlayerId, Round};
use crate::numeric::{elo_win_probability, glicko_g, logistic_q};
use rustc_hash::FxHashMap;
use serde::{Deserialize, Serialize};

/// The starting `W`: tiny, only to avoid 0/0 in `V / W` before the first game.
pub const INITIAL_W: f64 = 1e-9;

/// Yuksel's parameters.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct YukselParams {
    /// Elo's scale of the win probability (400).
    pub scale: f64,
    /// A new player's rating.
    pub start: f64,
    /// alpha >= 1: how quickly the weights of past games fade as the deviation grows.
    pub alpha: f64,
    /// Largest change of one update (the Newton step's safety limit).
    pub max_delta: f64,
    /// The scale factor s <= 1 of Algorithm 1, line 9 (`r += s dr`).
    pub step_scale: f64,
    /// Algorithm 2: both sides change by opposite amounts.
    pub zero_sum: bool,
    /// Multi-entrant contests summed pair by pair, O(n^2), rather than through the tabulated
    /// shared function (within 1e-10 of each sum; see `numeric::shared`).
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub exact: bool,
    /// The first side's advantage (home, white), in rating points: added to its rating in
    /// its win probability, in games played with a first side.
    #[serde(skip_serializing_if = "super::base::is_zero")]
    pub advantage: f64,
}

impl Default for YukselParams {
    fn default() -> Self {
        Self {
            scale: 400.0,
            start: 1500.0,
            alpha: 2.0,
            max_delta: 350.0,
            step_scale: 1.0,
            zero_sum: false,
            exact: false,
            advantage: 0.0,
        }
    }
}

/// A player's state.
#[derive(Clone, Copy, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct YukselPlayer {
    /// The rating estimate r.
    pub r: f64,
    /// The running sum of derivatives D.
    pub d: f64,
    /// Sum of weights W.
    pub w: f64,
    /// Weighted mean of past ratings R.
    pub mean: f64,
    /// Weighted sum of squares V.
    pub var: f64,
}

impl YukselPlayer {
    /// The rating deviation `sqrt(V / W)`.
    pub fn phi(&self) -> f64 {
        (self.var.max(0.0) / self.w).sqrt()
    }
}

/// The Yuksel system.
#[derive(Clone, Debug)]
pub struct Yuksel {
    p: YukselParams,
    q: f64,
}

/// One side of the round's games: a roster and its sums.
struct Unit<'h> {
    members: &'h [PlayerId],
    /// The sides connected to this one by the round's games (a union-find parent): the
    /// zero-sum constraint holds within each connected group.
    group: usize,
    /// sum of w g(phi_opp) (s - f)
    f: f64,
    /// sum of w g(phi_opp) df/dr
    g: f64,
}

impl Yuksel {
    /// Checks the parameters.
    pub fn new(p: YukselParams) -> Result<Self, ParamError> {
        check_range("scale", p.scale, f64::MIN_POSITIVE, f64::MAX)?;
        check_range("advantage", p.advantage, f64::MIN, f64::MAX)?;
        check_range("start", p.start, f64::MIN, f64::MAX)?;
        check_range("alpha", p.alpha, 1.0, f64::MAX)?;
        check_range("max_delta", p.max_delta, f64::MIN_POSITIVE, f64::MAX)?;
        check_range("step_scale", p.step_scale, f64::MIN_POSITIVE, 1.0)?;
        let q = logistic_q(p.scale);
        Ok(Self { p, q })
    }

    fn g(&self, phi: f64) -> f64 {
        glicko_g(phi, self.q)
    }

    /// UpdateStats of Algorithm 1.
    fn update_stats(&self, p: &mut YukselPlayer, dr: f64) {
        let omega = self.g(self.p.alpha * p.phi());
        p.r += self.p.step_scale * dr;
        p.w = omega * p.w + 1.0;
        let dm = p.r - p.mean;
        p.mean += dm / p.w;
        p.var = omega * p.var + dm * (p.r - p.mean);
    }

    /// The sides of a round with the sums of their games, from pre-round states.
    fn units<'h>(&self, round: Round<'h>, players: &[YukselPlayer]) -> Vec<Unit<'h>> {
        let mut units: Vec<Unit<'h>> = Vec::new();
        // Sides are found again by roster: a lone player by id, a team by its sorted roster.
        let mut index: FxHashMap<Vec<PlayerId>, usize> = FxHashMap::default();
        let mut lone: FxHashMap<PlayerId, usize> = FxHashMap::default();
        let single = round.len() == 1;
        if !single {
            lone.reserve(2 * round.len());
        }
        let mut unit_of = Vec::new();
        for contest in round.contests() {
            unit_of.clear();
            for e in contest.entries() {
                let u = if single {
                    units.len()
                } else if let [p] = e.players {
                    *lone.entry(*p).or_insert(units.len())
                } else {
                    let mut key = e.players.to_vec();
                    key.sort_unstable();
                    *index.entry(key).or_insert(units.len())
                };
                if u == units.len() {
                    units.push(Unit {
                        members: e.players,
                        group: u,
                        f: 0.0,
                        g: 0.0,
                    });
                }
                unit_of.push(u);
            }
            // Every side of this contest joins the group of its first side.
            let root = find(&mut units, unit_of[0]);
            for &u in &unit_of[1..] {
                let r = find(&mut units, u);
                units[r].group = root;
            }
            let w = contest.weight();
            let rating = |side: &[PlayerId]| side_mean(players, side, |p| p.r);
            let phi = |side: &[PlayerId]| side_mean(players, side, |p| p.phi().powi(2)).sqrt();
            if contest.len() == 2 {
                let (a, b) = (contest.entry(0), contest.entry(1));
                let shift = if contest.first_side() {
                    self.p.advantage
                } else {
                    0.0
                };
                let f = elo_win_probability(
                    rating(a.players) + shift - rating(b.players),
                    self.p.scale,
                );
                let s = a.outcome_against(&b);
                let df = self.q * f * (1.0 - f);
                let (ga, gb) = (self.g(phi(a.players)), self.g(phi(b.players)));
                let (ua, ub) = (unit_of[0], unit_of[1]);
                units[ua].f += w * gb * (s - f);
                units[ua].g += w * gb * df;
                units[ub].f += w * ga * (f - s);
                units[ub].g += w * ga * df;
                continue;
            }
            let r: Vec<f64> = contest.entries().map(|e| rating(e.players)).collect();
            let gs: Vec<f64> = contest.entries().map(|e| self.g(phi(e.players))).collect();
            let ranges: Vec<(u32, u32)> = contest.entries().map(|e| (e.lo, e.hi)).collect();
            let expected = logistic_sums(&r, &gs, self.p.scale, self.p.exact, true);
            let scores = outcome_sums(&ranges, &gs);
            for (i, &u) in unit_of.iter().enumerate() {
                units[u].f += w * (scores[i] - expected[i].0);
                units[u].g += w * self.q * expected[i].1;
            }
        }
        let n = units.len();
        for u in 0..n {
            let r = find(&mut units, u);
            units[u].group = r;
        }
        units
    }
}

/// The root of a side's group (with path halving).
fn find(units: &mut [Unit<'_>], mut u: usize) -> usize {
    while units[u].group != u {
        let up = units[units[u].group].group;
        units[u].group = up;
        u = up;
    }
    u
}

impl RatingSystem for Yuksel {
    type Player = YukselPlayer;
    fixed_system!(
        Yuksel,
        YukselParams,
        uncertainty: "phi",
        "Yuksel's phi: the weighted spread of the player's recent rating changes, not a standard deviation of the rating"
    );

    fn new_player(&self) -> YukselPlayer {
        self.seeded(self.p.start, None, None)
    }

    /// A seeded player starts at the given rating, with R (the reference the rating is kept
    /// around) there too and no history of changes.
    /// The uncertainty, if given, becomes the deviation `phi` (V = W phi^2).
    fn seeded(&self, rating: f64, uncertainty: Option<f64>, _: Option<f64>) -> YukselPlayer {
        YukselPlayer {
            r: rating,
            d: 0.0,
            w: INITIAL_W,
            mean: rating,
            var: uncertainty.map_or(0.0, |u| INITIAL_W * u * u),
        }
    }

    /// The rating and the weighted mean of his past ratings move together (the mean is
    /// where the update pulls the rating back toward).
    fn shift(&self, p: &mut YukselPlayer, points: f64) -> bool {
        p.r += points;
        p.mean += points;
        true
    }

    /// `phi^2 = V / W` grows by `variance`.
    fn elapse(&self, p: &mut YukselPlayer, time: Elapsed) {
        p.var += time.variance * p.w;
    }

    fn rating(&self, p: &YukselPlayer) -> Rating {
        Rating::new(p.r, Some(p.phi()))
    }

    fn update(&self, round: Round<'_>, players: &mut [YukselPlayer]) {
        let units = self.units(round, players);
        // Each member's D after the new games (eq. 15), and the side's D as their mean.
        let decayed = |p: &YukselPlayer| self.g(self.p.alpha * p.phi()) * p.d;
        let side_d: Vec<f64> = units
            .iter()
            .map(|u| side_mean(players, u.members, |p| decayed(p)) + u.g)
            .collect();
        // The change of each side, and the factor applied to its members' new D.
        let mut change = vec![0.0; units.len()];
        let mut d_factor = vec![1.0; units.len()];
        let max = self.p.max_delta;
        if self.p.zero_sum && units.len() >= 2 {
            let d: Vec<f64> = side_d.iter().map(|&d| d.max(1e-300)).collect();
            // The sides of each group of connected games (one game, one series, one
            // contest): groups numbered in order of first appearance, the sides listed group
            // by group (a stable sort keeps their order within a group).
            let mut number = vec![usize::MAX; units.len()];
            let mut groups = 0;
            let of: Vec<usize> = units
                .iter()
                .map(|u| {
                    if number[u.group] == usize::MAX {
                        number[u.group] = groups;
                        groups += 1;
                    }
                    number[u.group]
                })
                .collect();
            let mut sides: Vec<usize> = (0..units.len()).collect();
            sides.sort_by_key(|&k| of[k]);
            for group in sides.chunk_by(|&x, &y| of[x] == of[y]) {
                if let [a, b] = group[..] {
                    // Equation 22, with exactly opposite changes.
                    let (ua, ub) = (&units[a], &units[b]);
                    let dr = ((d[a] * ua.f - d[b] * ub.f) / (d[a] * d[a] + d[b] * d[b]))
                        .clamp(-max, max);
                    change[a] = dr;
                    change[b] = -dr;
                } else if group.len() > 2 {
                    let num: f64 = group.iter().map(|&k| units[k].f / d[k]).sum();
                    let den: f64 = group.iter().map(|&k| 1.0 / (d[k] * d[k])).sum();
                    let lambda = num / den;
                    for &k in group {
                        change[k] = units[k].f / d[k] - lambda / (d[k] * d[k]);
                    }
                    let largest = group.iter().fold(0.0f64, |m, &k| m.max(change[k].abs()));
                    if largest > max {
                        let t = max / largest;
                        group.iter().for_each(|&k| change[k] *= t);
                    }
                }
            }
            for (k, u) in units.iter().enumerate() {
                let target = u.f / change[k];
                if change[k] != 0.0 && target.is_finite() && target > 0.0 {
                    d_factor[k] = target / d[k];
                }
            }
        } else {
            for (k, u) in units.iter().enumerate() {
                let mut dr = u.f / side_d[k];
                if dr.is_nan() {
                    dr = 0.0;
                }
                if dr.abs() >= max {
                    dr = max.copysign(dr);
                    d_factor[k] = (u.f / dr) / side_d[k];
                }
                change[k] = dr;
            }
        }
        // Apply: D first (the new-game terms and the correction), then the rating and its
        // statistics, once per player. A player in two rosters of one round (a period with
        // changing team-mates) takes both changes and both D increments.
        // Lone players are sides of their own, one each (found again by id), so when every
        // side is one player each player takes exactly one side's change.
        if units.iter().all(|u| u.members.len() == 1) {
            for (k, u) in units.iter().enumerate() {
                let p = &mut players[u.members[0] as usize];
                p.d = (decayed(p) + u.g) * d_factor[k];
                let dr = change[k];
                self.update_stats(p, dr);
            }
            return;
        }
        let mut per_player: FxHashMap<PlayerId, (f64, f64)> = FxHashMap::default();
        let mut order: Vec<PlayerId> = Vec::new();
        for (k, u) in units.iter().enumerate() {
            for &m in u.members {
                let p = &players[m as usize];
                let base = decayed(p);
                let increment = (base + u.g) * d_factor[k] - base;
                let slot = per_player.entry(m).or_insert_with(|| {
                    order.push(m);
                    (0.0, 0.0)
                });
                slot.0 += change[k];
                slot.1 += increment;
            }
        }
        for m in order {
            let (dr, inc) = per_player[&m];
            let p = &mut players[m as usize];
            p.d = decayed(p) + inc;
            self.update_stats(p, dr);
        }
    }

    fn advantage_per_elo(&self) -> Option<f64> {
        Some(self.p.scale / 400.0)
    }

    fn win_probability_sided(
        &self,
        players: &[YukselPlayer],
        a: &[PlayerId],
        b: &[PlayerId],
        first_side: bool,
    ) -> Option<f64> {
        let shift = if first_side { self.p.advantage } else { 0.0 };
        let ra = side_mean(players, a, |p| p.r);
        let rb = side_mean(players, b, |p| p.r);
        Some(elo_win_probability(ra + shift - rb, self.p.scale))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::history::History;

    fn yuksel(f: impl FnOnce(&mut YukselParams)) -> Yuksel {
        let mut p = YukselParams::default();
        f(&mut p);
        Yuksel::new(p).unwrap()
    }

    /// Games between named players: (a, b, score of a), each its own round.
    fn games(list: &[(&str, &str, f64)]) -> History {
        let timed: Vec<_> = list
            .iter()
            .enumerate()
            .map(|(t, &(x, y, s))| (t as i64, x, y, s, None))
            .collect();
        crate::history::games(&timed)
    }

    fn replay(sys: &Yuksel, h: &History, players: &mut [YukselPlayer]) {
        let idx: Vec<u32> = (0..h.len() as u32).collect();
        for i in 0..h.len() {
            sys.update(Round::new(h, &idx[i..i + 1]), players);
        }
    }

    #[test]
    fn newcomers_first_game_moves_each_by_347_4() {
        let sys = yuksel(|_| {});
        let h = games(&[("a", "b", 1.0)]);
        let mut ps = vec![sys.new_player(); 2];
        replay(&sys, &h, &mut ps);
        // q f (1 - f) at f = 1/2:
        let d = std::f64::consts::LN_10 / 400.0 * 0.25;
        assert!((d - 0.0014391).abs() < 5e-8);
        assert!((ps[0].r - 1500.0 - 347.4).abs() < 0.05, "{}", ps[0].r);
        assert!((ps[1].r - 1500.0 + 347.4).abs() < 0.05);
        assert!((ps[0].r - 1500.0 - 0.5 / d).abs() < 1e-9);
        assert!((ps[0].d - d).abs() < 1e-15 && (ps[1].d - d).abs() < 1e-15);
        // West's statistics after one game: W = 1 + tiny, R ~ r, V ~ 0.
        assert!((ps[0].w - 1.0).abs() < 1e-8);
        assert!((ps[0].mean - ps[0].r).abs() < 1e-5);
    }

    #[test]
    fn the_clamp_rewrites_d_as_f_over_delta() {
        let sys = yuksel(|_| {});
        let h = games(&[("a", "b", 1.0)]);
        let mut ps = vec![sys.new_player(); 2];
        ps[1].r = 2000.0;
        ps[1].mean = 2000.0;
        replay(&sys, &h, &mut ps);
        let f = elo_win_probability(-500.0, 400.0);
        let big = (1.0 - f) / (sys.q * f * (1.0 - f));
        assert!(big > 350.0, "the unclamped step would be {big}");
        assert_eq!(ps[0].r, 1850.0);
        assert!((ps[0].d - (1.0 - f) / 350.0).abs() < 1e-15, "D = F / dr");
        // The stronger newcomer has no history either: its step is clamped too.
        assert_eq!(ps[1].r, 1650.0);
        assert!((ps[1].d - (1.0 - f) / 350.0).abs() < 1e-15);
    }

    #[test]
    fn zero_sum_changes_are_exactly_opposite_and_match_algorithm_2() {
        let sys = yuksel(|p| p.zero_sum = true);
        let h = games(&[
            ("a", "b", 1.0),
            ("a", "c", 0.0),
            ("b", "c", 0.5),
            ("a", "b", 0.0),
            ("c", "a", 1.0),
        ]);
        let mut ps = vec![sys.new_player(); 3];
        let idx: Vec<u32> = (0..h.len() as u32).collect();
        for i in 0..h.len() {
            let c = h.contest(i);
            let (x, y) = (
                c.entry(0).players[0] as usize,
                c.entry(1).players[0] as usize,
            );
            let (bx, by) = (ps[x], ps[y]);
            // Algorithm 2, line by line.
            let s = c.entry(0).outcome_against(&c.entry(1));
            let f = elo_win_probability(bx.r - by.r, 400.0);
            let fa = sys.g(by.phi()) * (s - f);
            let fb = sys.g(bx.phi()) * (f - s);
            let da = sys.g(by.phi()) * sys.q * f * (1.0 - f) + sys.g(2.0 * bx.phi()) * bx.d;
            let db = sys.g(bx.phi()) * sys.q * f * (1.0 - f) + sys.g(2.0 * by.phi()) * by.d;
            let dr = ((da * fa - db * fb) / (da * da + db * db)).clamp(-350.0, 350.0);
            sys.update(Round::new(&h, &idx[i..i + 1]), &mut ps);
            assert!(((ps[x].r - bx.r) - dr).abs() < 1e-9, "game {i}");
            // Opposite to the last bits of the ratings (each sum rounds on its own).
            assert!(
                ((ps[x].r - bx.r) + (ps[y].r - by.r)).abs() < 1e-10,
                "game {i}: opposite"
            );
            if dr != 0.0 {
                assert!((ps[x].d - fa / dr).abs() < 1e-12 && (ps[y].d + fb / dr).abs() < 1e-12);
            }
        }
    }

    #[test]
    fn shifting_every_starting_rating_shifts_every_output() {
        let list = [
            ("a", "b", 1.0),
            ("b", "c", 0.5),
            ("c", "a", 1.0),
            ("a", "b", 1.0),
            ("b", "a", 0.0),
            ("c", "b", 0.0),
        ];
        let h = games(&list);
        for zero_sum in [false, true] {
            let base = yuksel(|p| p.zero_sum = zero_sum);
            let shifted = yuksel(|p| {
                p.zero_sum = zero_sum;
                p.start = 2500.0;
            });
            let mut x = vec![base.new_player(); 3];
            let mut y = vec![shifted.new_player(); 3];
            replay(&base, &h, &mut x);
            replay(&shifted, &h, &mut y);
            for (p, q) in x.iter().zip(&y) {
                assert!((q.r - p.r - 1000.0).abs() < 1e-7, "{} {}", p.r, q.r);
                assert!((q.phi() - p.phi()).abs() < 1e-6);
                assert!((q.d - p.d).abs() < 1e-12);
            }
        }
    }

    #[test]
    fn winning_raises_and_losing_lowers() {
        let sys = yuksel(|_| {});
        let h = games(&[
            ("a", "b", 1.0),
            ("a", "b", 1.0),
            ("b", "a", 1.0),
            ("a", "b", 0.5),
        ]);
        let mut ps = vec![sys.new_player(); 2];
        let idx: Vec<u32> = (0..h.len() as u32).collect();
        for i in 0..3 {
            let before = ps.clone();
            sys.update(Round::new(&h, &idx[i..i + 1]), &mut ps);
            let winner = h.contest(i).entry(0).players[0] as usize;
            assert!(ps[winner].r > before[winner].r);
            assert!(ps[1 - winner].r < before[1 - winner].r);
        }
    }

    #[test]
    fn a_series_round_is_one_update_over_all_its_games() {
        // Two games in one round: F and D sum over both, the history is discounted once.
        let sys = yuksel(|_| {});
        let h = games(&[("a", "b", 1.0), ("a", "c", 0.0)]);
        let mut ps = vec![sys.new_player(); 3];
        sys.update(Round::new(&h, &[0, 1]), &mut ps);
        // a: one win, one loss against equal newcomers: no change, D = 2 q/4.
        assert!((ps[0].r - 1500.0).abs() < 1e-9);
        assert!((ps[0].d - 2.0 * sys.q * 0.25).abs() < 1e-15);
        assert!((ps[1].r - 1500.0 + 347.436).abs() < 1e-3);
        assert!((ps[2].r - 1500.0 - 347.436).abs() < 1e-3);
    }
}

#[cfg(test)]
mod disjoint_games {
    use super::*;
    use crate::history::{HistoryBuilder, SourceInfo};

    /// Disjoint games in one round are rated exactly as one by one, in both variants.
    #[test]
    fn a_round_of_disjoint_games_is_rated_game_by_game() {
        for zero_sum in [false, true] {
            let y = Yuksel::new(YukselParams {
                zero_sum,
                ..YukselParams::default()
            })
            .unwrap();
            let mut b = HistoryBuilder::new();
            let ids: Vec<u32> = (0..4).map(|i| b.player(&format!("p{i}"))).collect();
            b.add_game(0, 1.0, None, (&[ids[0]], &[ids[1]]), 1.0, None)
                .unwrap();
            b.add_game(0, 1.0, None, (&[ids[2]], &[ids[3]]), 0.0, None)
                .unwrap();
            let h = b.finish(SourceInfo::default());
            let mut start: Vec<YukselPlayer> = (0..4)
                .map(|i| YukselPlayer {
                    r: 1400.0 + 60.0 * i as f64,
                    d: 0.0002 * (i + 1) as f64,
                    w: 3.0 + i as f64,
                    mean: 1450.0,
                    var: 900.0 * (i + 1) as f64,
                })
                .collect();
            let mut together = start.clone();
            y.update(Round::new(&h, &[0, 1]), &mut together);
            y.update(Round::new(&h, &[0]), &mut start);
            y.update(Round::new(&h, &[1]), &mut start);
            assert_eq!(together, start, "zero_sum {zero_sum}");
        }
    }
}
