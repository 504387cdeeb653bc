//! Whole-History Rating (Coulom, "Whole-History Rating: A Bayesian Rating System for Players
//! of Time-Varying Strength", 2008): `--system whr`.
//!
//! Each player has a rating per day he played, `r_1 .. r_n` on days `t_1 < .. < t_n` (in
//! natural units, `x = start + r scale / ln 10` on the leaderboard). The model:
//! - a game on a day is Bradley-Terry between the two players' ratings of that day:
//!   `P(i beats j) = 1 / (1 + e^(r_j - r_i))`; a tie is half a win and half a loss;
//! - a player's rating follows a Wiener process: `r_(k+1) - r_k ~ N(0, w^2 (t_(k+1) - t_k))`,
//!   `w^2` given in Elo points squared per day (`w2`);
//! - on his first day each player has `prior_games` virtual wins and as many losses against
//!   a virtual player rated `start` (or his `--initial-ratings` rating), Coulom's prior.
//!
//! The fit is Coulom's: Newton's method on one player's whole series at a time, the others
//! held (the Hessian in his series is tridiagonal, so a step costs O(days)). After each round
//! its players take one such step each (Coulom's incremental use: a contest is predicted from
//! the ratings of its players' last days, fitted on the games before it); at the end of the
//! replay every player is iterated until no rating of any day moves by more than 1e-4
//! points (at most 500 sweeps over the players). The leaderboard is each player's rating of
//! his last day, with its standard deviation from his series' Hessian, the others held
//! (`1 / d_n`, the last pivot of the tridiagonal elimination).
//!
//! Contests are taken as Bradley-Terry takes them ([`super::bt`]): a game between two
//! entries; a team's members each against each opponent with weight `1 / (|A| |B|)`; a
//! standings of n as its pairs of weight `2 / n`, up to `max_standing` entries.

use super::base::{
    ParamError, Rating, RatingSystem, WholeHistory, check_range, fixed_system, side_mean,
};
use crate::history::{Contest, PlayerId, Round};
use serde::{Deserialize, Serialize};
use std::f64::consts::LN_10;

/// Whole-History Rating's parameters.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct WhrParams {
    /// The virtual opponent's rating (the prior's centre).
    pub start: f64,
    /// Rating difference for 10:1 odds.
    pub scale: f64,
    /// The Wiener process' variance per day, in rating points squared.
    pub w2: f64,
    /// Virtual wins and losses against `start` on a player's first day.
    pub prior_games: f64,
    /// The largest standings taken (as its pairs).
    pub max_standing: u32,
    /// After each round, the Newton step of each of its players covers his last this many
    /// days (0: his whole series, Coulom's incremental use); the fit at the end covers all.
    pub online_days: u32,
}

impl Default for WhrParams {
    fn default() -> Self {
        Self {
            start: 1500.0,
            scale: 400.0,
            // Coulom's choice for the KGS Go server (section 4 of the paper): 14 Elo^2/day.
            w2: 14.0,
            prior_games: 1.0,
            max_standing: 1000,
            online_days: 0,
        }
    }
}

/// One game of a day, from the player's side.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct WhrGame {
    /// The opponent, and the index of the same day among his days.
    pub opp: PlayerId,
    /// Index into the opponent's days.
    pub opp_day: u32,
    /// The player's score (1, 1/2, 0).
    pub score: f64,
    /// The game's weight.
    pub weight: f64,
}

/// A day a player played.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct WhrDay {
    /// Days since 1970-01-01 (UTC).
    pub day: i64,
    /// The rating of the day (natural units, 0 = `start`).
    pub r: f64,
    /// The games of the day.
    pub games: Vec<WhrGame>,
}

/// A player's state: his days, and the standard deviation of his last day's rating.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct WhrPlayer {
    /// The days played, in order.
    pub days: Vec<WhrDay>,
    /// The prior's centre (natural units).
    pub centre: f64,
    /// The last day's standard deviation (natural units).
    pub sd: f64,
}

/// The Whole-History Rating system.
#[derive(Clone, Debug)]
pub struct Whr {
    p: WhrParams,
    /// Points per natural unit: `scale / ln 10`.
    unit: f64,
    /// `w2` in natural units squared per day.
    w2: f64,
}

/// Settling stops when no rating moves by more than this many rating points.
const TOL_POINTS: f64 = 1e-4;
/// Joint Newton steps at most at the end, and conjugate-gradient steps at most per step.
const MAX_NEWTON: usize = 50;
const MAX_CG: usize = 2000;
/// A step moves no day's rating by more than this (natural units; about 1,700 points).
const MAX_STEP: f64 = 10.0;

impl Whr {
    /// Checks the parameters.
    pub fn new(p: WhrParams) -> Result<Self, ParamError> {
        check_range("start", p.start, -1e6, 1e6)?;
        check_range("scale", p.scale, 1e-3, 1e6)?;
        check_range("w2", p.w2, 1e-9, 1e9)?;
        check_range("prior_games", p.prior_games, 1e-6, 1e6)?;
        if p.max_standing < 2 {
            return Err(ParamError(
                "parameter `max_standing` must be at least 2".into(),
            ));
        }
        let unit = p.scale / LN_10;
        Ok(Self {
            w2: p.w2 / (unit * unit),
            unit,
            p,
        })
    }

    /// The day entry of player `p` for `day` (appended when new), its index.
    fn day_of(players: &mut [WhrPlayer], p: PlayerId, day: i64) -> u32 {
        let me = &mut players[p as usize];
        // A game dated before the player's last day (rounds of `--period series` go in the
        // order of each series' first game) is taken on his last day: days only append, so
        // the indices games hold into them stay valid.
        let day = me.days.last().map_or(day, |d| day.max(d.day));
        if me.days.last().is_none_or(|d| d.day != day) {
            let r = me.days.last().map_or(me.centre, |d| d.r);
            me.days.push(WhrDay {
                day,
                r,
                games: Vec::new(),
            });
        }
        (me.days.len() - 1) as u32
    }

    /// Adds a contest's games.
    fn add_contest(c: &Contest<'_>, players: &mut [WhrPlayer]) {
        let day = c.time().div_euclid(86_400);
        super::games::for_each_game(c, |i, j, score, weight, _| {
            let (di, dj) = (Self::day_of(players, i, day), Self::day_of(players, j, day));
            players[i as usize].days[di as usize].games.push(WhrGame {
                opp: j,
                opp_day: dj,
                score,
                weight,
            });
            players[j as usize].days[dj as usize].games.push(WhrGame {
                opp: i,
                opp_day: di,
                score: 1.0 - score,
                weight,
            });
        });
    }

    /// One Newton step on player `i`'s series from day index `from` on (the days before held,
    /// as are the other players); returns the largest change. His last day's standard
    /// deviation is updated.
    fn step(&self, players: &mut [WhrPlayer], i: usize, from: usize) -> f64 {
        let all = players[i].days.len();
        if from >= all {
            return 0.0;
        }
        let n = all - from;
        let (a, b, g) = self.series_terms(players, i, from);
        // Solve (negated Hessian) step = gradient.
        let mut step = vec![0.0; n];
        let last_pivot = solve_tridiagonal((&a, &b), &g, &mut step);
        let largest = step.iter().fold(0.0f64, |m, s| m.max(s.abs()));
        let mut scale = if largest > MAX_STEP {
            MAX_STEP / largest
        } else {
            1.0
        };
        // Backtracking: far from the optimum (a player seen again after decades, his later
        // days tied to the earlier ones by little) the full step can overshoot and come back
        // at the next sweep; halve it until the log posterior does not fall.
        // (A step of less than 0.1, 17 points, is taken as it is: near the optimum Newton's
        // steps are safe, and the check costs a logarithm per game.)
        if largest * scale > 0.1 {
            let before: Vec<f64> = players[i].days[from..].iter().map(|d| d.r).collect();
            let start = self.series_log_posterior(players, i, 1.0);
            for _ in 0..40 {
                let days = players[i].days[from..].iter_mut();
                for ((day, s), r0) in days.zip(&step).zip(&before) {
                    day.r = r0 + scale * s;
                }
                if self.series_log_posterior(players, i, 1.0) >= start - 1e-12 * start.abs() {
                    break;
                }
                scale *= 0.5;
            }
        } else {
            for (day, s) in players[i].days[from..].iter_mut().zip(&step) {
                day.r += scale * s;
            }
        }
        players[i].sd = (1.0 / last_pivot).sqrt();
        largest * scale
    }
}

impl RatingSystem for Whr {
    type Player = WhrPlayer;
    fixed_system!(
        Whr,
        WhrParams,
        uncertainty: "sd",
        "the standard deviation of today's rating from the fit's curvature (Coulom's approximation)"
    );

    fn new_player(&self) -> WhrPlayer {
        WhrPlayer {
            days: Vec::new(),
            centre: 0.0,
            // Before any game: the prior's alone, two virtual games at even odds.
            sd: (1.0 / (0.5 * self.p.prior_games)).sqrt(),
        }
    }

    fn rating(&self, p: &WhrPlayer) -> Rating {
        let r = p.days.last().map_or(p.centre, |d| d.r);
        Rating::new(self.p.start + self.unit * r, Some(self.unit * p.sd))
    }

    fn update(&self, round: Round<'_>, players: &mut [WhrPlayer]) {
        let mut ids: Vec<PlayerId> = Vec::new();
        for c in round.contests() {
            Self::add_contest(&c, players);
            ids.extend_from_slice(c.players());
        }
        ids.sort_unstable();
        ids.dedup();
        for &i in &ids {
            let days = players[i as usize].days.len();
            let from = match self.p.online_days {
                0 => 0,
                k => days.saturating_sub(k as usize),
            };
            self.step(players, i as usize, from);
        }
    }

    fn win_probability(
        &self,
        players: &[WhrPlayer],
        a: &[PlayerId],
        b: &[PlayerId],
    ) -> Option<f64> {
        let r = |p: &WhrPlayer| p.days.last().map_or(p.centre, |d| d.r);
        let d = side_mean(players, a, r) - side_mean(players, b, r);
        Some(1.0 / (1.0 + (-d).exp()))
    }

    fn method(&self) -> Option<String> {
        Some(
            "Newton steps on each player's whole series (tridiagonal), one per player after \
             each round; at the end, sweeps over every player to convergence"
                .into(),
        )
    }

    fn seeded(
        &self,
        rating: f64,
        _uncertainty: Option<f64>,
        _volatility: Option<f64>,
    ) -> WhrPlayer {
        WhrPlayer {
            centre: (rating - self.p.start) / self.unit,
            ..self.new_player()
        }
    }

    fn refuses(&self, contest: &Contest<'_>) -> Option<String> {
        super::games::refuse_large("whr", contest, self.p.max_standing)
    }

    fn whole_history(&self) -> Option<&dyn WholeHistory<WhrPlayer>> {
        Some(self)
    }
}

/// Whole-History Rating refits every player's days on all the games so far.
impl WholeHistory<WhrPlayer> for Whr {
    /// As in the replay: the settled fit starts from the rounds' Newton steps.
    fn accumulate(&self, round: Round<'_>, players: &mut [WhrPlayer]) {
        self.update(round, players);
    }

    fn settle(&self, players: &mut [WhrPlayer]) {
        // A few sweeps of each player's own Newton step (with its line search) bring every
        // series near the optimum; the joint Newton steps then converge where sweeps alone
        // would crawl (a slowly mixing mode: groups of players linked by few games drift
        // against each other by a fraction of a point a sweep).
        for _ in 0..3 {
            for i in 0..players.len() {
                self.step(players, i, 0);
            }
        }
        self.newton_all(players);
        for i in 0..players.len() {
            let (a, b, g) = self.series_terms(players, i, 0);
            if !a.is_empty() {
                let mut x = vec![0.0; a.len()];
                players[i].sd = (1.0 / solve_tridiagonal((&a, &b), &g, &mut x)).sqrt();
            }
        }
    }
}

/// Solves the tridiagonal system (diagonal `a`, off-diagonal `b`) `T x = y` into `x`, by
/// elimination and back substitution; returns the last pivot, the inverse of the last
/// diagonal element of `T^-1` (the variance of the last unknown, the others held). Empty
/// systems return infinity.
fn solve_tridiagonal((a, b): (&[f64], &[f64]), y: &[f64], x: &mut [f64]) -> f64 {
    let n = a.len();
    if n == 0 {
        return f64::INFINITY;
    }
    let mut d = a.to_vec();
    let mut y = y.to_vec();
    for k in 1..n {
        let m = b[k - 1] / d[k - 1];
        d[k] -= m * b[k - 1];
        y[k] -= m * y[k - 1];
    }
    x[n - 1] = y[n - 1] / d[n - 1];
    for k in (0..n - 1).rev() {
        x[k] = (y[k] - b[k] * x[k + 1]) / d[k];
    }
    d[n - 1]
}

impl Whr {
    /// Player `i`'s series from day index `from` on: the negated Hessian's diagonal and
    /// off-diagonal, and the gradient (the others, and his days before `from`, held).
    fn series_terms(
        &self,
        players: &[WhrPlayer],
        i: usize,
        from: usize,
    ) -> (Vec<f64>, Vec<f64>, Vec<f64>) {
        let me = &players[i];
        let days = &me.days[from.min(me.days.len())..];
        let n = days.len();
        let mut a = vec![0.0; n];
        let mut b = vec![0.0; n.saturating_sub(1)];
        let mut g = vec![0.0; n];
        if n == 0 {
            return (a, b, g);
        }
        for (k, d) in days.iter().enumerate() {
            for gm in &d.games {
                let opp = players[gm.opp as usize].days[gm.opp_day as usize].r;
                let p = 1.0 / (1.0 + (opp - d.r).exp());
                g[k] += gm.weight * (gm.score - p);
                a[k] += gm.weight * p * (1.0 - p);
            }
        }
        if from == 0 {
            // The virtual games of the first day.
            let p = 1.0 / (1.0 + (me.centre - days[0].r).exp());
            g[0] += self.p.prior_games * (1.0 - 2.0 * p);
            a[0] += 2.0 * self.p.prior_games * p * (1.0 - p);
        } else {
            // The link to the last day held.
            let held = &me.days[from - 1];
            let prec = self.link(held.day, days[0].day);
            g[0] -= prec * (days[0].r - held.r);
            a[0] += prec;
        }
        for k in 0..n - 1 {
            let prec = self.link(days[k].day, days[k + 1].day);
            let diff = days[k + 1].r - days[k].r;
            g[k] += prec * diff;
            g[k + 1] -= prec * diff;
            a[k] += prec;
            a[k + 1] += prec;
            b[k] = -prec;
        }
        (a, b, g)
    }

    /// The Wiener process' precision between two days.
    fn link(&self, from: i64, to: i64) -> f64 {
        1.0 / (self.w2 * (to - from).max(1) as f64)
    }

    /// Player `i`'s log posterior in his own series, his games counted `share` times (1: the
    /// others held; 1/2: his half of the whole posterior), up to a constant.
    fn series_log_posterior(&self, players: &[WhrPlayer], i: usize, share: f64) -> f64 {
        // ln sigma(z), stable for either sign.
        let ln_sigma = |z: f64| -(-z).exp().ln_1p();
        let me = &players[i];
        let mut total = 0.0;
        for d in &me.days {
            for gm in &d.games {
                let z = d.r - players[gm.opp as usize].days[gm.opp_day as usize].r;
                total +=
                    share * gm.weight * (gm.score * ln_sigma(z) + (1.0 - gm.score) * ln_sigma(-z));
            }
        }
        if let Some(first) = me.days.first() {
            let z = first.r - me.centre;
            total += self.p.prior_games * (ln_sigma(z) + ln_sigma(-z));
        }
        for w in me.days.windows(2) {
            let diff = w[1].r - w[0].r;
            total -= 0.5 * diff * diff * self.link(w[0].day, w[1].day);
        }
        total
    }

    /// The log posterior of every rating of every day (each game once: half from each
    /// side).
    fn objective(&self, players: &[WhrPlayer]) -> f64 {
        (0..players.len())
            .map(|i| self.series_log_posterior(players, i, 0.5))
            .sum()
    }

    /// Newton's method on every day of every player at once: each step's linear system (the
    /// players' tridiagonal blocks coupled by their games) solved by conjugate gradients
    /// preconditioned with the blocks themselves; a step that lowers the posterior is
    /// halved. Stops when no rating moves by more than [`TOL_POINTS`].
    fn newton_all(&self, players: &mut [WhrPlayer]) {
        let n = players.len();
        let mut off = Vec::with_capacity(n + 1);
        off.push(0usize);
        for p in players.iter() {
            off.push(off[off.len() - 1] + p.days.len());
        }
        let m = off[n];
        if m == 0 {
            return;
        }
        for _ in 0..MAX_NEWTON {
            let mut a = vec![0.0; m];
            let mut b = vec![0.0; m];
            let mut g = vec![0.0; m];
            for i in 0..n {
                let (ai, bi, gi) = self.series_terms(players, i, 0);
                a[off[i]..off[i + 1]].copy_from_slice(&ai);
                b[off[i]..off[i] + bi.len()].copy_from_slice(&bi);
                g[off[i]..off[i + 1]].copy_from_slice(&gi);
            }
            let step = Self::pcg_all(players, &off, (&a, &b), &g, TOL_POINTS * 1e-2 / self.unit);
            let largest = step.iter().fold(0.0f64, |x, s| x.max(s.abs()));
            if !largest.is_finite() {
                return;
            }
            let start = self.objective(players);
            let before: Vec<f64> = players
                .iter()
                .flat_map(|p| p.days.iter().map(|d| d.r))
                .collect();
            let mut scale = if largest > MAX_STEP {
                MAX_STEP / largest
            } else {
                1.0
            };
            for _ in 0..40 {
                let mut u = 0;
                for p in players.iter_mut() {
                    for d in &mut p.days {
                        d.r = before[u] + scale * step[u];
                        u += 1;
                    }
                }
                if self.objective(players) >= start - 1e-12 * start.abs() {
                    break;
                }
                scale *= 0.5;
            }
            if largest * scale * self.unit < TOL_POINTS {
                break;
            }
        }
    }

    /// Solves the joint system `H v = g` (`H`: every player's block `a`, `b` less the games'
    /// couplings) by conjugate gradients with the blocks as preconditioner.
    fn pcg_all(
        players: &[WhrPlayer],
        off: &[usize],
        (a, b): (&[f64], &[f64]),
        g: &[f64],
        tol: f64,
    ) -> Vec<f64> {
        let m = g.len();
        // The games' couplings, in the order the days list them.
        let mut coupling: Vec<(usize, f64)> = Vec::new();
        let mut starts = Vec::with_capacity(m + 1);
        for me in players {
            for d in &me.days {
                starts.push(coupling.len());
                for gm in &d.games {
                    let opp = &players[gm.opp as usize].days[gm.opp_day as usize];
                    let p = 1.0 / (1.0 + (opp.r - d.r).exp());
                    let u = off[gm.opp as usize] + gm.opp_day as usize;
                    coupling.push((u, gm.weight * p * (1.0 - p)));
                }
            }
        }
        starts.push(coupling.len());
        let apply = |v: &[f64], out: &mut [f64]| {
            for u in 0..m {
                let mut acc = a[u] * v[u];
                if u > 0 {
                    acc += b[u - 1] * v[u - 1];
                }
                if u + 1 < m {
                    acc += b[u] * v[u + 1];
                }
                for &(w, c) in &coupling[starts[u]..starts[u + 1]] {
                    acc -= c * v[w];
                }
                out[u] = acc;
            }
        };
        // The blocks' solve (each player's tridiagonal system).
        let precondition = |r: &[f64], z: &mut [f64]| {
            for i in 0..players.len() {
                let (s, e) = (off[i], off[i + 1]);
                // (A block's last off-diagonal entry, towards the next player, is 0.)
                solve_tridiagonal((&a[s..e], &b[s..e]), &r[s..e], &mut z[s..e]);
            }
        };
        let dot = |x: &[f64], y: &[f64]| x.iter().zip(y).map(|(p, q)| p * q).sum::<f64>();
        crate::numeric::cg::conjugate_gradients(g, apply, precondition, dot, (tol, MAX_CG))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::history::HistoryBuilder;

    /// Games `(day, a, b, score of a)`, rated round by round, then settled.
    fn run(p: WhrParams, games: &[(i64, &str, &str, f64)]) -> (Whr, Vec<WhrPlayer>, Vec<String>) {
        let w = Whr::new(p).unwrap();
        let mut h = HistoryBuilder::new();
        for (day, a, b, s) in games {
            let (a, b) = (h.player(a), h.player(b));
            h.add_game(day * 86_400, 1.0, None, (&[a], &[b]), *s, None)
                .unwrap();
        }
        let names = h.names().to_vec();
        // In the order given: some cases are out of date order.
        h.keep_input_order();
        let history = h.finish(crate::history::SourceInfo::default());
        let mut players = vec![w.new_player(); history.player_count()];
        for c in 0..history.len() {
            let ids = [c as u32];
            w.update(Round::new(&history, &ids), &mut players);
        }
        w.settle(&mut players);
        (w, players, names)
    }

    /// Two players, one day, one game that A wins, the prior one virtual win and loss each
    /// against a player at 0. By symmetry r_A = -r_B = x, and A's slope is
    /// `(1 - sigma(2x)) + (1 - 2 sigma(x)) = 0`, by hand: x = 0.528048909513011 (bisection).
    #[test]
    fn one_game_by_hand() {
        let (_, players, _) = run(WhrParams::default(), &[(0, "a", "b", 1.0)]);
        let (ra, rb) = (players[0].days[0].r, players[1].days[0].r);
        // (Within the fit's tolerance, 1e-4 points: 6e-7 in natural units.)
        assert!((ra + rb).abs() < 1e-7, "{ra} {rb}");
        let s = |z: f64| 1.0 / (1.0 + (-z).exp());
        assert!((1.0 - s(2.0 * ra) + 1.0 - 2.0 * s(ra)).abs() < 1e-7);
        assert!((ra - 0.528_048_909_513_011).abs() < 1e-7, "{ra}");
    }

    /// A game dated before a player's last day (as `--period series` can order them) is
    /// taken on his last day: his days only append.
    #[test]
    fn a_game_out_of_date_order_joins_the_last_day() {
        let (_, players, names) = run(
            WhrParams::default(),
            &[(10, "a", "b", 1.0), (5, "a", "c", 1.0), (12, "c", "b", 0.5)],
        );
        let a = &players[names.iter().position(|n| n == "a").unwrap()];
        assert_eq!(a.days.len(), 1);
        assert_eq!((a.days[0].day, a.days[0].games.len()), (10, 2));
        let c = &players[names.iter().position(|n| n == "c").unwrap()];
        assert_eq!(c.days.iter().map(|d| d.day).collect::<Vec<_>>(), [5, 12]);
    }

    /// A player who loses his first 30 games against a steady opponent and then wins 30: with
    /// the whole history, his early days are rated low and his late days high, his series
    /// rising through the change; and the change is followed backwards: his rating of day 25
    /// fitted on all 60 days is far above the one fitted on the first 30 days alone (the
    /// later wins say he was already improving).
    #[test]
    fn an_improving_player_is_followed_retrospectively() {
        let mut games = Vec::new();
        for d in 0..30 {
            games.push((d, "riser", "anchor", 0.0));
            games.push((d, "steady", "anchor", 0.5));
        }
        let first_half = games.len();
        for d in 30..60 {
            games.push((d, "riser", "anchor", 1.0));
            games.push((d, "steady", "anchor", 0.5));
        }
        let p = WhrParams {
            w2: 1000.0,
            ..WhrParams::default()
        };
        let (w, players, names) = run(p.clone(), &games);
        let id = |n: &str| names.iter().position(|x| x == n).unwrap();
        let riser = &players[id("riser")];
        let unit = w.unit;
        let first = riser.days[0].r * unit;
        let last = riser.days.last().unwrap().r * unit;
        assert!(first < -150.0 && last > 150.0, "{first} {last}");
        // Rising from the lowest point on (the first days dip a little: the prior's virtual
        // games hold day 0 up).
        assert!(riser.days[5..].windows(2).all(|w| w[1].r > w[0].r));
        let (_, early, _) = run(p, &games[..first_half]);
        let (whole, part) = (
            riser.days[25].r * unit,
            early[id("riser")].days[25].r * unit,
        );
        assert!(
            whole - part > 80.0,
            "day 25: {whole} with all, {part} with the first half"
        );
        let steady = w.rating(&players[id("steady")]).mean;
        assert!((steady - w.rating(&players[id("anchor")]).mean).abs() < 60.0);
    }
}
