//! Bradley-Terry fitted by maximum a posteriori on every game so far (`--system bt`).
//!
//! The model: player i has a rating `x_i` (Elo points); with `s = ln 10 / scale` and
//! `d = s (x_i - x_j + h)` (`h`, the first side's advantage in a game played with one: the
//! parameter `advantage`, 0 by default, or fitted with `fit_advantage`), i beats j with probability `1 / (1 + e^-d)`. Ties are either half a win and
//! half a loss (`ties = half`, as arena leaderboards count them), or Davidson's (1970)
//! `P(win) = e^(d/2) / Z`, `P(tie) = nu / Z`, `P(loss) = e^(-d/2) / Z`, `Z = 2 cosh(d/2) + nu`,
//! with `nu` fitted (`ties = davidson`; two equal players tie with probability
//! `nu / (2 + nu)`). Each player has a normal prior, mean `start` (or the rating given by
//! `--initial-ratings`) and standard deviation `prior_sd`: it keeps players who won or lost
//! every game, and groups of players never compared with the rest, finite, and fixes the
//! scale's offset (the pool's mean sits near `start`). A fit without a prior is refused: its
//! ratings are unbounded as soon as one player has not both won and lost.
//!
//! Games are kept collapsed: each player holds, per opponent and side (first, second, or
//! neither), the weighted counts of wins, ties and losses; memory grows with the pairs that
//! met, not with the games. A two-entry contest is a game between them, the first entry being
//! the first side (home, white, `a`); a team plays as its members, each member against each
//! opponent with weight `1 / (|A| |B|)` (a team's prediction uses its members' mean). A
//! standings of n > 2 entries is taken as its n (n - 1) / 2 pairs, with no first side, each
//! weighted `2 / n`: the n - 1 comparisons' worth of information a Plackett-Luce ranking
//! carries (a composite likelihood: the Hessian's intervals treat the pairs as independent,
//! the bootstrap does not). Standings over `max_standing` entries are refused (the pairs grow
//! as n^2).
//!
//! The fit: Newton's method on the log posterior, each step's linear system (the prior's
//! precision plus a weighted graph Laplacian) solved by conjugate gradients with the diagonal
//! as preconditioner; `h` and `ln nu` take a one-dimensional Newton step after each step of
//! the ratings. It stops when no rating moves by more than 1e-7 points. A player's
//! uncertainty is `1 / sqrt(H_ii)`, the standard deviation of its rating with every other
//! rating held at its estimate (a lower bound on the marginal one; `--ci` gives intervals
//! that include the others' uncertainty).
//!
//! Honest prediction in a replay: the ratings are refitted on all earlier games when the
//! first round of each `refit` period (a UTC day, ISO week or month; `game`: after every
//! round) is rated, warm-started from the previous fit; between refits, each round's players
//! take one Newton step on their own ratings with the others held. A contest is therefore
//! predicted from games before it only (the first round of a period from the previous
//! period's fit and the local steps since: the refit comes with its rating). At the end of the replay the ratings are fitted once more on the
//! whole history: the leaderboard is that fit.

use super::base::{
    ParamError, Rating, RatingSystem, WholeHistory, check_range, fixed_system, side_mean,
};
use crate::history::{Contest, PlayerId, Round};
use serde::{Deserialize, Serialize};
use serde_json::Value;
use std::f64::consts::LN_10;

/// How a tie counts.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Ties {
    /// Half a win and half a loss.
    #[default]
    Half,
    /// Davidson's tie model, its parameter fitted.
    Davidson,
}

/// When the ratings are refitted on all earlier games during a replay.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Refit {
    /// After every round.
    Game,
    /// At the first round of each UTC day.
    Day,
    /// At the first round of each ISO week (Monday to Sunday, UTC).
    #[default]
    Week,
    /// At the first round of each UTC month.
    Month,
    /// Only at the end (the leaderboard); between, one Newton step per player per round.
    End,
}

impl Refit {
    /// The number of the period holding time `t` (Unix seconds).
    fn key(self, t: i64) -> i64 {
        use crate::time::{day_number, month_number, week_number};
        match self {
            Refit::Game | Refit::End => i64::MIN,
            Refit::Day => day_number(t),
            Refit::Week => week_number(t),
            Refit::Month => month_number(t),
        }
    }
}

/// Bradley-Terry's parameters.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct BtParams {
    /// The prior's mean: a newcomer's rating, and about the pool's mean.
    pub start: f64,
    /// Rating difference for 10:1 odds (400: the Elo scale).
    pub scale: f64,
    /// The prior's standard deviation, in rating points.
    pub prior_sd: f64,
    /// How a tie counts: `half` or `davidson`.
    pub ties: Ties,
    /// The first side's advantage (home, white), in rating points, when it is not fitted.
    pub advantage: f64,
    /// Fit the first side's advantage (from `advantage` as a start).
    pub fit_advantage: bool,
    /// When a replay refits on all earlier games: `game`, `day`, `week`, `month` or `end`.
    pub refit: Refit,
    /// The largest standings taken (as its pairs).
    pub max_standing: u32,
}

impl Default for BtParams {
    fn default() -> Self {
        Self {
            start: 1500.0,
            scale: 400.0,
            prior_sd: 400.0,
            ties: Ties::Half,
            advantage: 0.0,
            fit_advantage: false,
            refit: Refit::Week,
            max_standing: 1000,
        }
    }
}

/// One player's results against one opponent from one side, collapsed: weighted counts of
/// wins, ties and losses.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct PairCount {
    /// The opponent.
    pub opp: PlayerId,
    /// +1: this player was the first side; -1: the second; 0: neither (a standings).
    pub side: i8,
    /// Wins, ties and losses, weighted.
    pub w: f64,
    /// Ties.
    pub t: f64,
    /// Losses.
    pub l: f64,
}

/// The fit's global values, kept in player 0's state (every replayed history has a player
/// 0, and a state saved with `--save-state` carries them).
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct Fit {
    /// The refit period of the last full fit.
    pub key: i64,
    /// The first side's advantage (0 unless fitted).
    pub advantage: f64,
    /// Davidson's tie parameter (0 unless fitted).
    pub nu: f64,
}

/// A player's state.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct BtPlayer {
    /// The rating.
    pub rating: f64,
    /// Its standard deviation with the others held (see the module's documentation).
    pub sd: f64,
    /// The prior's mean and standard deviation.
    pub prior: (f64, f64),
    /// Results by opponent and side, sorted by (opponent, side).
    pub pairs: Vec<PairCount>,
    /// The global values of the last full fit (player 0 only).
    pub fit: Option<Fit>,
}

/// The Bradley-Terry system.
#[derive(Clone, Debug)]
pub struct Bt {
    p: BtParams,
    /// `ln 10 / scale`.
    s: f64,
}

/// A Newton step of the ratings moves no rating by more than this (points): far from the
/// optimum the quadratic model overshoots.
const MAX_STEP: f64 = 400.0;
/// The final fit has converged when no rating moves by more than this (points).
const TOL: f64 = 1e-7;
/// A refit during a replay is one Newton step from the previous fit (warm: a week's games
/// move it little, and the next refit goes on from there), its linear system solved to this
/// (points).
const TOL_REFIT: f64 = 1e-2;
/// Newton steps at most per fit, and conjugate-gradient steps at most per Newton step.
const MAX_NEWTON: usize = 100;
const MAX_CG: usize = 2000;
/// Players from which a fit's passes run on rayon's threads.
const PARALLEL_FROM: usize = 8192;
/// Players per piece of a pass (the sums are added piece by piece, in order, whatever the
/// thread count).
const PIECE: usize = 2048;

impl Bt {
    /// Checks the parameters.
    pub fn new(p: BtParams) -> Result<Self, ParamError> {
        check_range("start", p.start, -1e6, 1e6)?;
        check_range("scale", p.scale, 1e-3, 1e6)?;
        if p.prior_sd == 0.0 {
            return Err(ParamError(
                "bt needs a prior (prior-sd > 0): without one a player who won, or lost, every \
                 game, or a group never compared with the rest, has no finite rating; a large \
                 prior-sd (1e4) is nearly flat"
                    .into(),
            ));
        }
        check_range("prior_sd", p.prior_sd, 1e-3, 1e6)?;
        check_range("advantage", p.advantage, -1e5, 1e5)?;
        if p.max_standing < 2 {
            return Err(ParamError(
                "parameter `max_standing` must be at least 2".into(),
            ));
        }
        Ok(Self {
            s: LN_10 / p.scale,
            p,
        })
    }

    /// The log-likelihood's slope in `d` and its curvature (the negated second derivative)
    /// for one collapsed record at `d`.
    #[inline]
    fn terms(&self, d: f64, r: &PairCount, nu: f64) -> (f64, f64) {
        let n = r.w + r.t + r.l;
        match self.p.ties {
            Ties::Half => {
                let p = 1.0 / (1.0 + (-d).exp());
                (r.w + 0.5 * r.t - n * p, n * p * (1.0 - p))
            }
            Ties::Davidson => {
                let h = (0.5 * d).clamp(-700.0, 700.0);
                let (ch, sh) = (h.cosh(), h.sinh());
                let z = 2.0 * ch + nu;
                (
                    0.5 * (r.w - r.l) - n * sh / z,
                    n * (1.0 + 0.5 * nu * ch) / (z * z),
                )
            }
        }
    }

    /// The probability that a side at rating difference `diff` (points, first side's
    /// advantage included) wins, a tie counting half.
    fn expected(&self, diff: f64, nu: f64) -> f64 {
        let d = self.s * diff;
        match self.p.ties {
            Ties::Half => 1.0 / (1.0 + (-d).exp()),
            Ties::Davidson => {
                let h = (0.5 * d).clamp(-700.0, 700.0);
                (h.exp() + 0.5 * nu) / (2.0 * h.cosh() + nu)
            }
        }
    }

    /// The rating difference of side `a` over side `b` (the first side's advantage included
    /// when `a` plays it) and the tie parameter in effect.
    fn difference(
        &self,
        players: &[BtPlayer],
        a: &[PlayerId],
        b: &[PlayerId],
        first_side: bool,
    ) -> (f64, f64) {
        let fit = self.fit_of(players);
        let h = if first_side { fit.advantage } else { 0.0 };
        (
            side_mean(players, a, |p| p.rating) - side_mean(players, b, |p| p.rating) + h,
            fit.nu,
        )
    }

    /// The global values in effect (player 0's), or the starting ones.
    fn fit_of(&self, players: &[BtPlayer]) -> Fit {
        players.first().and_then(|p| p.fit).unwrap_or(Fit {
            key: i64::MIN,
            advantage: self.p.advantage,
            nu: 0.0,
        })
    }

    /// Adds one contest's results to the counts.
    fn add_contest(c: &Contest<'_>, players: &mut [BtPlayer]) {
        super::games::for_each_game(c, |i, j, outcome, w, side| {
            add_result(&mut players[i as usize].pairs, j, side, outcome, w);
            add_result(&mut players[j as usize].pairs, i, -side, 1.0 - outcome, w);
        });
    }

    /// Slope and curvature of player i's log posterior in its own rating (points), with the
    /// per-record curvatures (in points^-2) written to `c` when given.
    fn player_terms(
        &self,
        players: &[BtPlayer],
        x: impl Fn(usize) -> f64,
        fit: &Fit,
        i: usize,
        mut c: Option<&mut [f64]>,
    ) -> (f64, f64) {
        let s = self.s;
        let me = &players[i];
        let (mean, sd) = me.prior;
        let xi = x(i);
        let mut g = (mean - xi) / (sd * sd);
        let mut h = 1.0 / (sd * sd);
        for (k, r) in me.pairs.iter().enumerate() {
            let d = s * (xi - x(r.opp as usize) + f64::from(r.side) * fit.advantage);
            let (psi, cur) = self.terms(d, r, fit.nu);
            g += s * psi;
            let cur = s * s * cur;
            h += cur;
            if let Some(c) = c.as_deref_mut() {
                c[k] = cur;
            }
        }
        (g, h)
    }

    /// [`WholeHistory::hessian_sds`] under `ties = half`: the sandwich `S J S` (`S` the
    /// inverse of the negated Hessian, `solve` its product with a vector; `J` the observed
    /// variance of the records' scores). Half a win and half a loss is not a likelihood of
    /// the tie itself: its curvature `p (1 - p)` per game overstates what a tie leaves
    /// uncertain (a tie's score, 1/2, is closer to the prediction than a win's or a loss's),
    /// so that with many ties `S` alone gives intervals wider than the bootstrap's. With no
    /// ties `J` is about the Hessian's own part and the sandwich about `S`.
    fn sandwich_sds(
        &self,
        players: &[BtPlayer],
        fit: &Fit,
        solve: impl Fn(Vec<f64>) -> Vec<f64>,
        weights: &[f64],
    ) -> Vec<f64> {
        let n = players.len();
        let s = self.s;
        // Each record once (from the player of the lower id), with its score's variance.
        let mut records: Vec<(usize, usize, f64)> = Vec::new();
        for (i, p) in players.iter().enumerate() {
            for r in p.pairs.iter().filter(|r| r.opp as usize > i) {
                let j = r.opp as usize;
                let d = s * (p.rating - players[j].rating + f64::from(r.side) * fit.advantage);
                let q = 1.0 / (1.0 + (-d).exp());
                let v = r.w * (1.0 - q).powi(2) + r.t * (0.5 - q).powi(2) + r.l * q * q;
                records.push((i, j, s * s * v));
            }
        }
        // u = S (e_i - weights): column i of S (S is symmetric) less S times the weights.
        let mean = solve(weights.to_vec());
        (0..n)
            .map(|i| {
                let mut e = vec![0.0; n];
                e[i] = 1.0;
                let u: Vec<f64> = solve(e).iter().zip(&mean).map(|(a, b)| a - b).collect();
                records
                    .iter()
                    .map(|&(a, b, v)| v * (u[a] - u[b]).powi(2))
                    .sum::<f64>()
                    .sqrt()
            })
            .collect()
    }

    /// Fits every player's rating (and the global values) from the ratings as they are:
    /// Newton steps until no rating moves by more than `tol`, or only one with `one_step`.
    fn refit(&self, players: &mut [BtPlayer], fit: &mut Fit, tol: f64, one_step: bool) {
        let n = players.len();
        if n == 0 {
            return;
        }
        let mut offsets = Vec::with_capacity(n + 1);
        offsets.push(0usize);
        for p in players.iter() {
            offsets.push(offsets.last().copied().unwrap_or(0) + p.pairs.len());
        }
        let mut x: Vec<f64> = players.iter().map(|p| p.rating).collect();
        let mut c = vec![0.0; offsets[n]];
        let ties_total: f64 = players.iter().flat_map(|p| &p.pairs).map(|r| r.t).sum();
        let fit_nu = self.p.ties == Ties::Davidson && ties_total > 0.0;
        if fit_nu && fit.nu <= 0.0 {
            fit.nu = 1.0;
        }
        if !fit_nu {
            fit.nu = 0.0;
        }
        if !self.p.fit_advantage {
            fit.advantage = self.p.advantage;
        }
        let mut g = vec![0.0; n];
        let mut hd = vec![0.0; n];
        for _ in 0..MAX_NEWTON {
            self.gradient(players, &x, fit, &offsets, &mut c, &mut g, &mut hd);
            let mut step = pcg(players, &offsets, &c, &hd, &g, tol);
            let largest = step.iter().fold(0.0f64, |m, v| m.max(v.abs()));
            if largest > MAX_STEP {
                let f = MAX_STEP / largest;
                step.iter_mut().for_each(|v| *v *= f);
            }
            for (xi, di) in x.iter_mut().zip(&step) {
                *xi += di;
            }
            let mut moved = largest;
            if self.p.fit_advantage {
                moved = moved.max(self.step_advantage(players, &x, fit));
            }
            if fit_nu {
                moved = moved.max(self.step_nu(players, &x, fit) * self.p.scale);
            }
            if one_step || !moved.is_finite() || moved < tol {
                break;
            }
        }
        self.gradient(players, &x, fit, &offsets, &mut c, &mut g, &mut hd);
        for ((p, xi), hi) in players.iter_mut().zip(&x).zip(&hd) {
            p.rating = *xi;
            p.sd = 1.0 / hi.sqrt();
        }
    }

    /// Every player's slope and curvature, and the per-record curvatures.
    #[allow(clippy::too_many_arguments)]
    fn gradient(
        &self,
        players: &[BtPlayer],
        x: &[f64],
        fit: &Fit,
        offsets: &[usize],
        c: &mut [f64],
        g: &mut [f64],
        hd: &mut [f64],
    ) {
        use rayon::prelude::*;
        let run = |first: usize, c: &mut [f64], g: &mut [f64], hd: &mut [f64]| {
            let base = offsets[first];
            for k in 0..g.len() {
                let i = first + k;
                let cs = &mut c[offsets[i] - base..offsets[i + 1] - base];
                (g[k], hd[k]) = self.player_terms(players, |j| x[j], fit, i, Some(cs));
            }
        };
        if players.len() >= PARALLEL_FROM {
            let pieces = split_by(c, offsets, PIECE);
            pieces
                .into_par_iter()
                .zip(g.par_chunks_mut(PIECE))
                .zip(hd.par_chunks_mut(PIECE))
                .enumerate()
                .for_each(|(k, ((c, g), hd))| run(k * PIECE, c, g, hd));
        } else {
            run(0, c, g, hd);
        }
    }

    /// A Newton step of the first side's advantage, the ratings held; returns its size.
    fn step_advantage(&self, players: &[BtPlayer], x: &[f64], fit: &mut Fit) -> f64 {
        let s = self.s;
        let (mut g, mut h) = (0.0, 0.0);
        for (i, p) in players.iter().enumerate() {
            for r in p.pairs.iter().filter(|r| r.side == 1) {
                let d = s * (x[i] - x[r.opp as usize] + fit.advantage);
                let (psi, cur) = self.terms(d, r, fit.nu);
                g += s * psi;
                h += s * s * cur;
            }
        }
        if h <= 0.0 {
            return 0.0;
        }
        let step = (g / h).clamp(-MAX_STEP, MAX_STEP);
        fit.advantage += step;
        step.abs()
    }

    /// A Newton step of `ln nu`, the ratings held; returns its size.
    fn step_nu(&self, players: &[BtPlayer], x: &[f64], fit: &mut Fit) -> f64 {
        let s = self.s;
        let nu = fit.nu;
        let (mut g, mut h) = (0.0, 0.0);
        // Every game is in both players' counts: the sums are twice the game's.
        for (i, p) in players.iter().enumerate() {
            for r in &p.pairs {
                let d = s * (x[i] - x[r.opp as usize] + f64::from(r.side) * fit.advantage);
                let ch = (0.5 * d).clamp(-700.0, 700.0).cosh();
                let z = 2.0 * ch + nu;
                let n = r.w + r.t + r.l;
                g += r.t - n * nu / z;
                h += n * nu * 2.0 * ch / (z * z);
            }
        }
        if h <= 0.0 {
            return 0.0;
        }
        let step = (g / h).clamp(-2.0, 2.0);
        fit.nu = (nu.ln() + step).exp().clamp(1e-9, 1e9);
        // The change made (at a bound, none more: a history of draws only has nu at 1e9).
        (fit.nu.ln() - nu.ln()).abs()
    }

    /// One Newton step for each of `ids` on its own rating, the others held (all from the
    /// ratings before the step).
    fn local_steps(&self, players: &mut [BtPlayer], ids: &[PlayerId], fit: &Fit) {
        let steps: Vec<(f64, f64)> = ids
            .iter()
            .map(|&i| self.player_terms(players, |j| players[j].rating, fit, i as usize, None))
            .collect();
        for (&i, (g, h)) in ids.iter().zip(steps) {
            let p = &mut players[i as usize];
            p.rating += (g / h).clamp(-MAX_STEP, MAX_STEP);
            p.sd = 1.0 / h.sqrt();
        }
    }
}

/// Players up to which [`WholeHistory::hessian_sds`] inverts the Hessian (dense: n^3 / 3
/// operations, about a second at this size).
const DENSE_MAX: usize = 1500;

/// The Cholesky factor of the symmetric positive definite `n x n` matrix `a` (row major), in
/// place in its lower triangle; `None` if it is not positive definite.
fn cholesky(a: &mut [f64], n: usize) -> Option<()> {
    for j in 0..n {
        let s: f64 = (0..j).map(|k| a[j * n + k] * a[j * n + k]).sum();
        let d = a[j * n + j] - s;
        if d.partial_cmp(&0.0) != Some(std::cmp::Ordering::Greater) {
            return None;
        }
        let d = d.sqrt();
        a[j * n + j] = d;
        for i in j + 1..n {
            let s: f64 = (0..j).map(|k| a[i * n + k] * a[j * n + k]).sum();
            a[i * n + j] = (a[i * n + j] - s) / d;
        }
    }
    Some(())
}

/// Adds a result to a player's sorted counts.
fn add_result(pairs: &mut Vec<PairCount>, opp: PlayerId, side: i8, outcome: f64, w: f64) {
    let at = pairs.binary_search_by(|r| (r.opp, r.side).cmp(&(opp, side)));
    let i = match at {
        Ok(i) => i,
        Err(i) => {
            pairs.insert(
                i,
                PairCount {
                    opp,
                    side,
                    w: 0.0,
                    t: 0.0,
                    l: 0.0,
                },
            );
            i
        }
    };
    let r = &mut pairs[i];
    if outcome > 0.75 {
        r.w += w;
    } else if outcome < 0.25 {
        r.l += w;
    } else {
        r.t += w;
    }
}

/// `c` cut into the records of consecutive pieces of `piece` players.
fn split_by<'a>(mut c: &'a mut [f64], offsets: &[usize], piece: usize) -> Vec<&'a mut [f64]> {
    let n = offsets.len() - 1;
    let mut out = Vec::with_capacity(n.div_ceil(piece));
    let mut first = 0;
    while first < n {
        let last = (first + piece).min(n);
        let (head, tail) = std::mem::take(&mut c).split_at_mut(offsets[last] - offsets[first]);
        out.push(head);
        c = tail;
        first = last;
    }
    out
}

/// Sum of `f(i)` over `0..n`, added piece by piece in order (the same bits on any number of
/// threads).
fn ordered_sum(n: usize, f: impl Fn(usize) -> f64 + Sync) -> f64 {
    use rayon::prelude::*;
    // Always piece by piece, so that the bits do not depend on whether the pass ran in
    // parallel either (a streamed replay's player list grows past the threshold block by
    // block).
    let piece = |k: usize| (k * PIECE..((k + 1) * PIECE).min(n)).map(&f).sum::<f64>();
    let parts: Vec<f64> = if n < PARALLEL_FROM {
        (0..n.div_ceil(PIECE)).map(piece).collect()
    } else {
        (0..n.div_ceil(PIECE)).into_par_iter().map(piece).collect()
    };
    parts.iter().sum()
}

/// Solves `H v = b` by conjugate gradients, `H` the negated Hessian of the log posterior
/// (the priors' precisions plus the records' curvatures as a graph Laplacian), its diagonal
/// `hd` the preconditioner.
fn pcg(
    players: &[BtPlayer],
    offsets: &[usize],
    c: &[f64],
    hd: &[f64],
    b: &[f64],
    tol: f64,
) -> Vec<f64> {
    use rayon::prelude::*;
    let n = b.len();
    let apply = |v: &[f64], out: &mut [f64]| {
        let row = |i: usize| {
            let p = &players[i];
            let prec = 1.0 / (p.prior.1 * p.prior.1);
            let cs = &c[offsets[i]..offsets[i + 1]];
            let mut acc = prec * v[i];
            for (r, ck) in p.pairs.iter().zip(cs) {
                acc += ck * (v[i] - v[r.opp as usize]);
            }
            acc
        };
        if n >= PARALLEL_FROM {
            out.par_iter_mut()
                .enumerate()
                .for_each(|(i, o)| *o = row(i));
        } else {
            out.iter_mut().enumerate().for_each(|(i, o)| *o = row(i));
        }
    };
    let jacobi = |r: &[f64], z: &mut [f64]| {
        for ((z, r), h) in z.iter_mut().zip(r).zip(hd) {
            *z = r / h;
        }
    };
    let dot = |x: &[f64], y: &[f64]| ordered_sum(n, |i| x[i] * y[i]);
    // Converged when the largest remaining step, by the diagonal, is negligible.
    crate::numeric::cg::conjugate_gradients(b, apply, jacobi, dot, (tol * 1e-3, MAX_CG))
}

impl RatingSystem for Bt {
    type Player = BtPlayer;
    fixed_system!(
        Bt,
        BtParams,
        uncertainty: "sd",
        "the standard deviation of the rating from the fit's curvature, every other rating held (a lower bound on the marginal one; --ci gives the bootstrap's)"
    );

    fn new_player(&self) -> BtPlayer {
        self.seeded(self.p.start, None, None)
    }

    fn rating(&self, p: &BtPlayer) -> Rating {
        Rating::new(p.rating, Some(p.sd))
    }

    fn update(&self, round: Round<'_>, players: &mut [BtPlayer]) {
        let Some(time) = round.contests().map(|c| c.time()).min() else {
            return;
        };
        let mut fit = self.fit_of(players);
        let key = self.p.refit.key(time);
        let calendar = self.p.refit != Refit::Game;
        let due = match self.p.refit {
            Refit::End => players[0].fit.is_none(),
            _ => players[0].fit.is_none() || key > fit.key,
        };
        if calendar && due {
            self.refit(players, &mut fit, TOL_REFIT, true);
            fit.key = key;
        }
        let mut ids: Vec<PlayerId> = Vec::new();
        for c in round.contests() {
            Self::add_contest(&c, players);
            ids.extend_from_slice(c.players());
        }
        if calendar {
            ids.sort_unstable();
            ids.dedup();
            self.local_steps(players, &ids, &fit);
        } else {
            self.refit(players, &mut fit, TOL_REFIT, true);
            fit.key = key;
        }
        players[0].fit = Some(fit);
    }

    fn advantage_per_elo(&self) -> Option<f64> {
        Some(self.p.scale / 400.0)
    }

    fn win_probability_sided(
        &self,
        players: &[BtPlayer],
        a: &[PlayerId],
        b: &[PlayerId],
        first_side: bool,
    ) -> Option<f64> {
        let (diff, nu) = self.difference(players, a, b, first_side);
        Some(self.expected(diff, nu))
    }

    /// Davidson's three probabilities when ties are Davidson's.
    fn outcome_probabilities(
        &self,
        players: &[BtPlayer],
        a: &[PlayerId],
        b: &[PlayerId],
        first_side: bool,
    ) -> Option<[f64; 3]> {
        if self.p.ties != Ties::Davidson {
            return None;
        }
        let (diff, nu) = self.difference(players, a, b, first_side);
        Some(crate::draws::davidson(self.s * diff, nu))
    }

    fn method(&self) -> Option<String> {
        let refit = match self.p.refit {
            Refit::Game => "after every round",
            Refit::Day => "at each new day",
            Refit::Week => "at each new week",
            Refit::Month => "at each new month",
            Refit::End => "only at the end",
        };
        Some(format!(
            "maximum a posteriori (normal prior, sd {}), Newton steps solved by conjugate \
             gradients; refitted on all earlier games {refit}, one Newton step per player \
             between; the leaderboard is the fit on the whole history",
            self.p.prior_sd
        ))
    }

    fn seeded(&self, rating: f64, uncertainty: Option<f64>, _volatility: Option<f64>) -> BtPlayer {
        // (Within the range `prior_sd` itself is held to: a tiny sd would square to 0.)
        let sd = uncertainty
            .filter(|u| u.is_finite() && (1e-3..=1e6).contains(u))
            .unwrap_or(self.p.prior_sd);
        BtPlayer {
            rating,
            sd,
            prior: (rating, sd),
            pairs: Vec::new(),
            fit: None,
        }
    }

    fn refuses(&self, contest: &Contest<'_>) -> Option<String> {
        super::games::refuse_large("bt", contest, self.p.max_standing)
    }

    fn whole_history(&self) -> Option<&dyn WholeHistory<BtPlayer>> {
        Some(self)
    }
}

/// Bradley-Terry is refitted on every game so far.
impl WholeHistory<BtPlayer> for Bt {
    fn settle(&self, players: &mut [BtPlayer]) {
        if players.first().is_some_and(|p| p.fit.is_some()) {
            let mut fit = self.fit_of(players);
            self.refit(players, &mut fit, TOL, false);
            players[0].fit = Some(fit);
        }
    }

    /// Only the counts: the fit at the end ([`WholeHistory::settle`]) is the same from any
    /// starting point.
    fn accumulate(&self, round: Round<'_>, players: &mut [BtPlayer]) {
        for c in round.contests() {
            Self::add_contest(&c, players);
        }
        if let Some(first) = players.first_mut()
            && first.fit.is_none()
        {
            first.fit = Some(self.fit_of(&[]));
        }
    }

    fn hessian_sds(&self, players: &[BtPlayer], reference: &[PlayerId]) -> Option<Vec<f64>> {
        let n = players.len();
        if n == 0 || n > DENSE_MAX {
            return None;
        }
        let fit = self.fit_of(players);
        // The negated Hessian of the log posterior at the fit, dense, then its Cholesky
        // factor in place (lower triangle).
        let mut h = vec![0.0; n * n];
        let x = |j: usize| players[j].rating;
        for (i, p) in players.iter().enumerate() {
            let mut c = vec![0.0; p.pairs.len()];
            let (_, hii) = self.player_terms(players, x, &fit, i, Some(&mut c));
            h[i * n + i] = hii;
            for (r, ck) in p.pairs.iter().zip(&c) {
                h[i * n + r.opp as usize] -= ck;
            }
        }
        cholesky(&mut h, n)?;
        // `S b` for the inverse `S`: two triangular solves.
        let solve = |mut v: Vec<f64>| {
            for i in 0..n {
                let s: f64 = (0..i).map(|k| h[i * n + k] * v[k]).sum();
                v[i] = (v[i] - s) / h[i * n + i];
            }
            for i in (0..n).rev() {
                let s: f64 = (i + 1..n).map(|k| h[k * n + i] * v[k]).sum();
                v[i] = (v[i] - s) / h[i * n + i];
            }
            v
        };
        // The reference's weights: its mean (every player's when none is named: the
        // likelihood sees only differences, and the common offset is the prior's alone).
        let mut weights = vec![0.0; n];
        match reference {
            [] => weights.iter_mut().for_each(|w| *w = 1.0 / n as f64),
            _ => {
                for &a in reference {
                    weights[a as usize] += 1.0 / reference.len() as f64;
                }
            }
        }
        if self.p.ties == Ties::Half {
            return Some(self.sandwich_sds(players, &fit, solve, &weights));
        }
        // The diagonal of the inverse: the squared norms of the columns of L^-1.
        let mut diag = vec![0.0; n];
        let mut col = vec![0.0; n];
        for j in 0..n {
            col.iter_mut().for_each(|v| *v = 0.0);
            col[j] = 1.0 / h[j * n + j];
            diag[j] += col[j] * col[j];
            for i in j + 1..n {
                let s: f64 = (j..i).map(|k| h[i * n + k] * col[k]).sum();
                col[i] = -s / h[i * n + i];
                diag[j] += col[i] * col[i];
            }
        }
        // Var(x_i - m) with m the reference's mean: S_ii - 2 mean_a S_ia + mean_ab S_ab, the
        // means over the reference taken with one solve, `S` times the reference's weights.
        let cross = solve(weights.clone());
        let within: f64 = cross.iter().zip(&weights).map(|(c, w)| c * w).sum();
        Some(
            (0..n)
                .map(|i| (diag[i] - 2.0 * cross[i] + within).max(0.0).sqrt())
                .collect(),
        )
    }

    fn fitted(&self, players: &[BtPlayer]) -> Option<Value> {
        let fit = players.first()?.fit?;
        let mut m = serde_json::Map::new();
        if self.p.fit_advantage {
            m.insert("advantage".into(), super::base::number(fit.advantage)?);
        }
        if self.p.ties == Ties::Davidson {
            m.insert("nu".into(), super::base::number(fit.nu)?);
        }
        (!m.is_empty()).then_some(Value::Object(m))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::history::HistoryBuilder;

    /// Rates games `(a, b, score of a)` as one round each at day `t`, with `refit = game`.
    fn fitted(p: BtParams, games: &[(&str, &str, f64)]) -> (Bt, Vec<BtPlayer>, Vec<String>) {
        let bt = Bt::new(p).unwrap();
        let mut h = HistoryBuilder::new();
        for (k, (a, b, s)) in games.iter().enumerate() {
            let (a, b) = (h.player(a), h.player(b));
            h.add_game(k as i64 * 86_400, 1.0, None, (&[a], &[b]), *s, None)
                .unwrap();
        }
        let names = h.names().to_vec();
        // In the order given: some cases are out of date order.
        h.keep_input_order();
        let history = h.finish(crate::history::SourceInfo::default());
        let mut players = vec![bt.new_player(); history.player_count()];
        for c in 0..history.len() {
            let ids = [c as u32];
            bt.update(Round::new(&history, &ids), &mut players);
        }
        bt.settle(&mut players);
        (bt, players, names)
    }

    #[test]
    fn two_players_by_hand() {
        // Ann beats Bob 3 times and loses once; with prior sd s0 the MAP difference D solves
        // s (3 - 4 p) = D / s0^2 ... by symmetry x_a = 1500 + D/2, x_b = 1500 - D/2, and the
        // posterior's slope for Ann: s (3 - 4 p(D)) - (D/2) / s0^2 = 0.
        let games = [
            ("ann", "bob", 1.0),
            ("ann", "bob", 1.0),
            ("bob", "ann", 0.0),
            ("bob", "ann", 1.0),
        ];
        let p = BtParams {
            prior_sd: 1e4,
            refit: Refit::Game,
            ..BtParams::default()
        };
        let (_, players, _) = fitted(p, &games);
        let d = players[0].rating - players[1].rating;
        // Nearly flat prior: D near 400 log10(3) = 190.85 (3 wins in 4), pulled in by the
        // prior to the root of the slope below, 190.810115720644 (bisection, by hand).
        assert!((d - 190.810_115_720_644).abs() < 1e-6, "{d}");
        let s = LN_10 / 400.0;
        let pd = 1.0 / (1.0 + (-s * d).exp());
        let slope = s * (3.0 - 4.0 * pd) - (d / 2.0) / 1e8;
        assert!(slope.abs() < 1e-12, "{slope}");
        assert!((players[0].rating + players[1].rating - 3000.0).abs() < 1e-6);
    }

    #[test]
    fn no_prior_is_refused() {
        let err = Bt::new(BtParams {
            prior_sd: 0.0,
            ..BtParams::default()
        })
        .unwrap_err();
        assert!(err.0.contains("needs a prior"), "{}", err.0);
    }
}
