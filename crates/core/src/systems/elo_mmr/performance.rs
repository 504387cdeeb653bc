//! Phase one of Elo-MMR: every entry's performance in a contest (section 3.1 of the paper).
//!
//! Entry j's performance prior is `P_j ~ (mu_j, delta_j^2)`, logistic or normal. The
//! performance `p_i` of entry i is the root of its `Q_i(p)` (theorem 3.2): a loss term for
//! every opponent placed better, a win term for every one placed worse, a tie term for every
//! one sharing the place, itself included.
//!
//! # What holds exactly
//!
//! In the logistic model, with `s_j = pi / (sqrt(3) delta_j)` and `t_j(p) = tanh((p - mu_j)
//! s_j / 2)`, a loss against j contributes `-(1 + t_j) s_j`, a win `(1 - t_j) s_j` and a tie
//! `-2 t_j s_j` (twice the paper's terms). So
//!
//! ```text
//! 2 Q_i(p) = -F(p) - kappa G_b(p) + C_b,   F(p) = sum over all j of s_j t_j(p),
//!                                           G_b(p) = sum over the tie block b of s_j t_j(p),
//!                                           C_b = (sum of s_j placed worse) - (sum placed better)
//! ```
//!
//! with `kappa = 1` (a tie is a win plus a loss, the paper's default) or `kappa = 0` (a tie is
//! half of each). `F` is one function for the whole contest; `G_b` and `C_b` depend only on the
//! tie block, so all members of a block share one root. The O(n^2) cost of n root searches
//! over n terms becomes: `F` tabulated once, then per block a search over `G_b` (its own
//! members) and an interpolated `F`.
//!
//! # The interpolation and its error bound
//!
//! `F` is tabulated on a uniform grid spanning every root ([`UniformGrid`]) as its distance
//! from saturation: `D- = W + F` below the middle of the field and `D+ = W - F` above it
//! (`W = sum s_j`), each term a positive number from an exponential recurrence (one
//! multiplication and one division per node, [`add_saturation_rows`]), and evaluated between
//! nodes by local Lagrange interpolation. Each `tanh` term is analytic in the strip
//! `|Im p| <= pi / (2 s_max)`, where `|tanh z - 1| <= 2 (1 - tanh(Re z))`; interpolation
//! reproduces constants, so Cauchy's estimate bounds the error in a cell by `C_q (h/d)^q`
//! times twice `D+` (or `D-`) read off the table beyond the cell's discs, plus the nodes'
//! rounding grown by the stencil's Lebesgue constant (`LocalBound`). The spacing is chosen
//! for the tolerance (default 1e-9 rating points) at the slopes of ordinary roots, with a
//! margin of 20 so that the roots near the tails pass too; each root is then accepted when
//! its cell's bound over its slope is within the tolerance, and solved again on exact sums
//! otherwise. In the tails the bound shrinks with the slope, so roots there pass as well.
//!
//! # Subsampling
//!
//! With `subsample = N` (section 5.3), each entry is compared with the entries holding the N
//! distinct prior ratings nearest to its own (a contiguous window of the rating order, itself
//! included; entries with the same rating, such as a contest's newcomers, count once, as the
//! reference implementation merges identical terms). `F` becomes the window's own sum `F_S`
//! and `G_b` the sum over the block's members inside the window. Each entry's row of node
//! values is computed once; a sweep along the rating order then keeps the current window's
//! sum, and every tie block's sum over its members in the window, up to date by adding the
//! rows that enter and subtracting those that leave (windows only move forward along the
//! sweep). The window's `C` comes from a Fenwick tree filled in rank order. The cost is one
//! row per entry plus O(rows entering and leaving + stencil) per entry, instead of N terms
//! per entry per iteration. The sweep runs in fixed segments of 512 positions, each starting
//! afresh, so the result does not depend on the number of threads.
//!
//! # The Gaussian model (Elo-MMchi)
//!
//! Loss and win terms are `l_j = -phi/(delta (1 - Phi))` and `v_j = phi/(delta Phi)`, which do
//! not collapse into one function; they are tabulated as prefix sums in rank order (losses to
//! the better blocks, wins over the worse ones), a tie as `-(p - mu_j)/delta_j^2` exactly (or
//! half a loss and half a win). Their interpolation is verified a posteriori on sampled
//! blocks (the tolerance is met, or the grid is refined). With subsampling the Gaussian model
//! sums each window exactly: the window's opponents are split by relation, alike opponents
//! merged into one term with a multiplicity, and Newton's method starts from the entry's own
//! rating ([`newton_from`]). This is O(N) per evaluation, a few evaluations per entry; slower
//! than the logistic windows, and `--subsample 0` (the exact tabulated mode) is usually faster.
//!
//! Places are compared by their best place `lo`: the same `lo` is a tie.

use crate::numeric::roots::{halley_from, newton_from, newton_in};
use crate::numeric::uniform::{UniformGrid, add_saturation_rows4, tanh_row};
use crate::numeric::{exp_vectorisable, normal_hazards, normal_pdf_over_cdf};
use crate::systems::base::map_indices;
use rayon::prelude::*;
use rustc_hash::FxHashMap;
use std::f64::consts::PI;

/// The performance model.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Model {
    /// Logistic performances (Elo-MMR).
    Logistic,
    /// Normal performances (Elo-MMchi).
    Gaussian,
}

/// An entry's performance prior: mean and standard deviation.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Prior {
    /// Mean.
    pub mu: f64,
    /// Standard deviation.
    pub delta: f64,
}

/// How to estimate.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Settings {
    /// The performance model.
    pub model: Model,
    /// A tie is half a win and half a loss (else a win plus a loss).
    pub split_ties: bool,
    /// Opponents nearest in rating to compare with; 0 = everyone.
    pub subsample: usize,
    /// Absolute tolerance on performances (rating points).
    pub tolerance: f64,
}

/// Contests up to this size are solved with exact sums throughout.
const DIRECT_MAX: usize = 64;

/// Tie blocks per run of the search for their cells, each block's search starting from the
/// previous one's cell ([`Contest::cell_from`]).
const SWEEP: usize = 64;

/// Fewer items than this are solved on the calling thread.
const PARALLEL_FROM: usize = 64;

/// Every entry's performance, in input order. `places[i]` is entry i's place range.
pub fn performances(priors: &[Prior], places: &[(u32, u32)], settings: &Settings) -> Vec<f64> {
    let c = Contest::new(priors, places, settings);
    if c.n == 0 {
        return Vec::new();
    }
    match (settings.model, c.windowed()) {
        _ if c.n <= DIRECT_MAX => c.all_direct(),
        (Model::Logistic, false) => c.logistic_exact_tabulated(),
        (Model::Logistic, true) => c.logistic_windows_tabulated(),
        (Model::Gaussian, false) => c.gaussian_exact_tabulated(),
        (Model::Gaussian, true) => c.all_direct(),
    }
}

/// Where opponent j stands relative to the entry being solved.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Rel {
    Better,
    Tie,
    Worse,
}

struct Contest<'a> {
    priors: &'a [Prior],
    set: &'a Settings,
    n: usize,
    lo: Vec<u32>,
    /// Entries in rank order (by lo; ties by rating position).
    by_rank: Vec<u32>,
    /// Blocks as ranges of `by_rank`.
    blocks: Vec<(usize, usize)>,
    /// Block of each entry.
    block_of: Vec<u32>,
    /// Entries by prior mean (stable).
    by_rating: Vec<u32>,
    /// Position of each entry in `by_rating`.
    pos: Vec<u32>,
    /// Logistic slopes `pi / (sqrt 3 delta)`.
    s: Vec<f64>,
    /// The priors' means, as a column.
    mu: Vec<f64>,
    /// Window size in distinct ratings (the number of distinct ratings when not subsampling).
    window: usize,
    /// For each distinct rating (in increasing order), its first position in `by_rating`,
    /// then n.
    distinct_start: Vec<u32>,
    /// For each position, the index of its distinct rating.
    distinct_of: Vec<u32>,
}

impl<'a> Contest<'a> {
    fn new(priors: &'a [Prior], places: &[(u32, u32)], set: &'a Settings) -> Self {
        let n = priors.len();
        let lo: Vec<u32> = places.iter().map(|p| p.0).collect();
        let mut by_rating: Vec<u32> = (0..n as u32).collect();
        by_rating.sort_by(|&a, &b| priors[a as usize].mu.total_cmp(&priors[b as usize].mu));
        let mut pos = vec![0u32; n];
        for (k, &e) in by_rating.iter().enumerate() {
            pos[e as usize] = k as u32;
        }
        let mut by_rank: Vec<u32> = (0..n as u32).collect();
        by_rank.sort_by_key(|&e| (lo[e as usize], pos[e as usize]));
        let mut blocks = Vec::new();
        let mut block_of = vec![0u32; n];
        let mut start = 0;
        for same in by_rank.chunk_by(|&a, &b| lo[a as usize] == lo[b as usize]) {
            for &e in same {
                block_of[e as usize] = blocks.len() as u32;
            }
            blocks.push((start, start + same.len()));
            start += same.len();
        }
        let s = priors
            .iter()
            .map(|p| PI / (3f64.sqrt() * p.delta))
            .collect();
        // Opponents with the same rating count once in a window (their terms are alike; the
        // reference implementation merges them into one term): windows are counted in
        // distinct ratings.
        let mut distinct_start = Vec::new();
        let mut distinct_of = Vec::with_capacity(n);
        for same in by_rating.chunk_by(|&a, &b| priors[a as usize].mu == priors[b as usize].mu) {
            distinct_of.resize(distinct_of.len() + same.len(), distinct_start.len() as u32);
            distinct_start.push((distinct_of.len() - same.len()) as u32);
        }
        let distinct = distinct_start.len();
        distinct_start.push(n as u32);
        let window = if set.subsample == 0 {
            distinct
        } else {
            set.subsample.min(distinct)
        };
        Self {
            priors,
            set,
            n,
            lo,
            by_rank,
            blocks,
            block_of,
            by_rating,
            pos,
            s,
            mu: priors.iter().map(|p| p.mu).collect(),
            window,
            distinct_start,
            distinct_of,
        }
    }

    fn windowed(&self) -> bool {
        self.window + 1 < self.distinct_start.len()
    }

    fn kappa(&self) -> f64 {
        if self.set.split_ties { 0.0 } else { 1.0 }
    }

    /// The window of entry e as a range of rating positions: the `window` distinct ratings
    /// around its own, with every entry holding one of them.
    fn window_of(&self, e: usize) -> (usize, usize) {
        if !self.windowed() {
            return (0, self.n);
        }
        let distinct = self.distinct_start.len() - 1;
        let d = self.distinct_of[self.pos[e] as usize] as usize;
        let a = d
            .saturating_sub(self.window / 2)
            .min(distinct - self.window);
        (
            self.distinct_start[a] as usize,
            self.distinct_start[a + self.window] as usize,
        )
    }

    fn rel(&self, my_lo: u32, j: usize) -> Rel {
        let l = self.lo[j];
        if l < my_lo {
            Rel::Better
        } else if l > my_lo {
            Rel::Worse
        } else {
            Rel::Tie
        }
    }

    // ------------------------------------------------------------------ exact sums

    /// `(g, g')` of the increasing equation of an entry placed at `my_lo` against the
    /// opponents `js`, at p.
    fn direct_eval(&self, my_lo: u32, js: &[u32], p: f64) -> (f64, f64) {
        let (mut g, mut d) = (0.0, 0.0);
        match self.set.model {
            Model::Logistic => {
                let kappa = self.kappa();
                for &j in js {
                    let j = j as usize;
                    let s = self.s[j];
                    let t = tanh((p - self.priors[j].mu) * 0.5 * s);
                    let (v, dv) = (s * t, 0.5 * s * s * (1.0 - t * t));
                    match self.rel(my_lo, j) {
                        Rel::Better => {
                            g += v + s;
                            d += dv;
                        }
                        Rel::Worse => {
                            g += v - s;
                            d += dv;
                        }
                        Rel::Tie => {
                            g += (1.0 + kappa) * v;
                            d += (1.0 + kappa) * dv;
                        }
                    }
                }
            }
            Model::Gaussian => {
                for &j in js {
                    let j = j as usize;
                    let Prior { mu, delta } = self.priors[j];
                    let z = (p - mu) / delta;
                    match self.rel(my_lo, j) {
                        Rel::Better => {
                            let (lv, ld) = minus_loss(z, delta);
                            g += lv;
                            d += ld;
                        }
                        Rel::Worse => {
                            let (wv, wd) = minus_win(z, delta);
                            g += wv;
                            d += wd;
                        }
                        Rel::Tie if self.set.split_ties => {
                            let (lv, ld) = minus_loss(z, delta);
                            let (wv, wd) = minus_win(z, delta);
                            g += 0.5 * (lv + wv);
                            d += 0.5 * (ld + wd);
                        }
                        Rel::Tie => {
                            g += z / delta;
                            d += 1.0 / (delta * delta);
                        }
                    }
                }
            }
        }
        (g, d)
    }

    /// The opponents of entry e (its window in rating order, or everyone).
    fn opponents(&self, e: usize) -> &[u32] {
        let (a, b) = self.window_of(e);
        &self.by_rating[a..b]
    }

    /// Solves entry e with exact sums.
    fn direct(&self, e: usize) -> f64 {
        let my_lo = self.lo[e];
        let js = self.opponents(e);
        let mu = self.priors[e].mu;
        let spread = self.priors[e].delta;
        if self.set.model == Model::Gaussian {
            return self.direct_gaussian(my_lo, js, mu, spread);
        }
        if !self.windowed() {
            return halley_from(self.logistic_against_all(e), mu, spread, self.tol());
        }
        newton_from(|p| self.direct_eval(my_lo, js, p), mu, spread, self.tol())
    }

    /// The logistic equation of entry e against every entry, `F + kappa G_b - C_b` (see the
    /// module documentation), with F summed over the contest's columns in four lanes: what
    /// [`direct_eval`](Self::direct_eval) computes, without a branch per opponent.
    fn logistic_against_all(&self, e: usize) -> impl Fn(f64) -> (f64, f64, f64) + '_ {
        let (a, b) = self.blocks[self.block_of[e] as usize];
        let weight = |range: &[u32]| range.iter().map(|&j| self.s[j as usize]).sum::<f64>();
        let c = weight(&self.by_rank[b..]) - weight(&self.by_rank[..a]);
        let members = &self.by_rank[a..b];
        let kappa = self.kappa();
        move |p| {
            let (mut g, mut d, mut d2) = tanh_sums_chunked(&self.mu, &self.s, p);
            g -= c;
            for &j in members {
                let j = j as usize;
                let s = self.s[j];
                let t = tanh((p - self.mu[j]) * 0.5 * s);
                g += kappa * s * t;
                d += kappa * 0.5 * s * s * (1.0 - t * t);
                d2 -= kappa * 0.5 * s * s * s * t * (1.0 - t * t);
            }
            (g, d, d2)
        }
    }

    /// [`direct`](Self::direct) for the Gaussian model: the opponents are first split by
    /// relation into columns of (mean, 1/delta, multiplicity), so that each evaluation of the equation runs
    /// branch-free loops computing only the term each opponent needs.
    fn direct_gaussian(&self, my_lo: u32, js: &[u32], mu: f64, spread: f64) -> f64 {
        SPLIT.with(|cell| {
            let mut split = cell.borrow_mut();
            let [better, worse, tie] = &mut *split;
            better.clear();
            worse.clear();
            tie.clear();
            for &j in js {
                let j = j as usize;
                let prior = self.priors[j];
                let column = match self.rel(my_lo, j) {
                    Rel::Better => &mut *better,
                    Rel::Worse => &mut *worse,
                    Rel::Tie => &mut *tie,
                };
                // Opponents alike (newcomers, mostly) arrive together in rating order and
                // are summed as one term of that multiplicity.
                let inv = 1.0 / prior.delta;
                match column.last_mut() {
                    Some((m, i, w)) if *m == prior.mu && *i == inv => *w += 1.0,
                    _ => column.push((prior.mu, inv, 1.0)),
                }
            }
            let split_ties = self.set.split_ties;
            let eval = |p: f64| {
                let (mut g, mut d) = (0.0, 0.0);
                let loss = |g: &mut f64, d: &mut f64, mu: f64, inv: f64, w: f64| {
                    let z = (p - mu) * inv;
                    let r = normal_pdf_over_cdf(-z);
                    *g += w * r * inv;
                    *d += w * (r * r - z * r) * inv * inv;
                };
                let win = |g: &mut f64, d: &mut f64, mu: f64, inv: f64, w: f64| {
                    let z = (p - mu) * inv;
                    let r = normal_pdf_over_cdf(z);
                    *g -= w * r * inv;
                    *d += w * (z * r + r * r) * inv * inv;
                };
                for &(m, inv, w) in better.iter() {
                    loss(&mut g, &mut d, m, inv, w);
                }
                for &(m, inv, w) in worse.iter() {
                    win(&mut g, &mut d, m, inv, w);
                }
                for &(m, inv, w) in tie.iter() {
                    if split_ties {
                        loss(&mut g, &mut d, m, inv, 0.5 * w);
                        win(&mut g, &mut d, m, inv, 0.5 * w);
                    } else {
                        g += w * (p - m) * inv * inv;
                        d += w * inv * inv;
                    }
                }
                (g, d)
            };
            newton_from(eval, mu, spread, self.tol())
        })
    }

    /// Refines an interpolated root of entry e with exact sums: Newton steps from `estimate`
    /// (already within the interpolation error, so one or two steps reach the tolerance);
    /// a full search if that does not settle.
    fn polish(&self, e: usize, estimate: f64) -> f64 {
        let my_lo = self.lo[e];
        let js = self.opponents(e);
        let all = (!self.windowed() && self.set.model == Model::Logistic)
            .then(|| self.logistic_against_all(e));
        let mut x = estimate;
        for _ in 0..3 {
            let (g, d) = match &all {
                Some(f) => {
                    let (g, d, _) = f(x);
                    (g, d)
                }
                None => self.direct_eval(my_lo, js, x),
            };
            if d.is_nan() || d <= 0.0 {
                break;
            }
            let step = g / d;
            x -= step;
            if step.abs() <= self.tol() {
                return x;
            }
        }
        self.direct(e)
    }

    fn tol(&self) -> f64 {
        self.set.tolerance.min(1e-9)
    }

    /// Every entry with exact sums (members of a block share the root when not subsampling).
    fn all_direct(&self) -> Vec<f64> {
        if self.windowed() {
            return map_indices(self.n, PARALLEL_FROM, |e| self.direct(e));
        }
        let roots = map_indices(self.blocks.len(), PARALLEL_FROM, |b| {
            self.direct(self.by_rank[self.blocks[b].0] as usize)
        });
        (0..self.n)
            .map(|e| roots[self.block_of[e] as usize])
            .collect()
    }

    // ------------------------------------------------------------------ grids

    /// A uniform grid on `[lo, hi]` fine enough that a function analytic and bounded by
    /// `bound` in the strip `|Im p| < strip` interpolates within `target`; the stencil size is
    /// chosen for the least cost of `terms` table entries per node plus `roots` searches.
    fn grid(
        lo: f64,
        hi: f64,
        strip: f64,
        bound: f64,
        target: f64,
        terms: usize,
        roots: usize,
    ) -> UniformGrid {
        let len = (hi - lo).max(1e-6);
        let pad = len * 1e-9 + 1e-6;
        let (q, h) = UniformGrid::cheapest(
            len,
            |q| Some(UniformGrid::spacing_for(q, strip, bound, target)),
            |q, nodes| nodes * terms as f64 + (roots * q * 12) as f64,
        )
        .expect("every stencil has a spacing");
        UniformGrid::new(lo - pad, hi + pad, h, q)
    }

    /// The cell `k` (nodes k, k+1) where the increasing node values `at(k)` change sign;
    /// `None` if they do not within the grid.
    fn cell_of(grid: &UniformGrid, at: impl Fn(usize) -> f64) -> Option<usize> {
        let (a, b) = grid.inner();
        if at(a) > 0.0 || at(b) < 0.0 {
            return None;
        }
        Some(Self::bisect_cell(a, b, at))
    }

    /// The cell between nodes `a` and `b` (`at(a) <= 0 <= at(b)`) where `at` changes sign,
    /// by bisection.
    fn bisect_cell(mut a: usize, mut b: usize, at: impl Fn(usize) -> f64) -> usize {
        while b - a > 1 {
            let mid = (a + b) / 2;
            if at(mid) <= 0.0 {
                a = mid;
            } else {
                b = mid;
            }
        }
        a
    }

    /// [`cell_of`](Self::cell_of) searched for from cell `near`: steps of 1, 2, 4, ... from
    /// it towards the sign change bracket it, then bisection. For increasing node values,
    /// the same cell as [`cell_of`](Self::cell_of), in O(log distance) evaluations.
    fn cell_from(grid: &UniformGrid, at: impl Fn(usize) -> f64, near: usize) -> Option<usize> {
        let (first, last) = grid.inner();
        let near = near.clamp(first, last - 1);
        let (mut a, mut b);
        let mut step = 1;
        if at(near) <= 0.0 {
            a = near;
            loop {
                if a + step >= last {
                    if at(last) < 0.0 {
                        return None;
                    }
                    b = last;
                    break;
                }
                if at(a + step) > 0.0 {
                    b = a + step;
                    break;
                }
                a += step;
                step *= 2;
            }
        } else {
            b = near;
            loop {
                if b - first <= step {
                    if at(first) > 0.0 {
                        return None;
                    }
                    a = first;
                    break;
                }
                if at(b - step) <= 0.0 {
                    a = b - step;
                    break;
                }
                b -= step;
                step *= 2;
            }
        }
        Some(Self::bisect_cell(a, b, at))
    }

    /// Root in cell k of `interpolated table(·) + exact(x)`, where the table part is known at
    /// the nodes and `exact` gives a value and slope; returns the root with the slope there.
    /// Newton from the linear interpolation of the cell's ends, kept inside the cell.
    fn solve_cell(
        &self,
        grid: &UniformGrid,
        k: usize,
        table: impl Fn(usize) -> f64,
        exact: impl Fn(f64) -> (f64, f64),
    ) -> (f64, f64) {
        let f = |x: f64| {
            let (v, d) = grid.eval_with_slope(x, &table);
            let (ev, ed) = exact(x);
            (v + ev, d + ed)
        };
        let (a, b) = (grid.x(k), grid.x(k + 1));
        let (fa, fb) = (table(k) + exact(a).0, table(k + 1) + exact(b).0);
        let guess = if fb > fa {
            a - fa * (b - a) / (fb - fa)
        } else {
            0.5 * (a + b)
        };
        let root = newton_in(f, a, b, guess, self.tol() * 0.1);
        (root, f(root).1)
    }

    // ------------------------------------------------------------------ logistic, exact

    fn logistic_exact_tabulated(&self) -> Vec<f64> {
        let n = self.n;
        let kappa = self.kappa();
        // Weights placed better and worse than each block, from prefix and suffix sums in rank
        // order (each a sum of positive terms, accurate even where it is tiny).
        let prefix = self.weight_prefix(&self.by_rank);
        let mut suffix = vec![0.0; n + 1];
        for (k, &e) in self.by_rank.iter().enumerate().rev() {
            suffix[k] = suffix[k + 1] + self.s[e as usize];
        }
        let total = prefix[n];
        // Roots are monotone in rank (theorem 5.2): the extreme blocks bound them all.
        let first = self.by_rank[self.blocks[0].0] as usize;
        let last = self.by_rank[self.blocks[self.blocks.len() - 1].0] as usize;
        let (top, bottom) = rayon::join(|| self.direct(first), || self.direct(last));
        if self.blocks.len() == 1 || top.is_nan() || bottom.is_nan() || top <= bottom {
            return self.all_direct();
        }
        let s_max = self.s.iter().copied().fold(0.0, f64::max);
        let strip = PI / (2.0 * s_max);
        let typical = [0.25, 0.5, 0.75]
            .iter()
            // F' there: the sum of s_j^2 (1 - t_j^2) / 2.
            .map(|f| tanh_sums_chunked(&self.mu, &self.s, bottom + f * (top - bottom)).1)
            .fold(f64::INFINITY, f64::min);
        let grid = Self::grid(
            bottom,
            top,
            strip,
            total,
            // A margin of 20 below the typical slope's need: roots nearer the tails, with
            // smaller slopes, then pass the cell-by-cell check too (see `LocalBound`).
            self.tol() * typical * 0.05,
            n,
            self.blocks.len(),
        );
        let table = self.saturation_table(&grid);
        let local = LocalBound::new(&grid, strip, total, &table);
        let split = table.split;
        // Roots fall with the rank (theorem 5.2), so each block's cell is searched for from
        // the previous block's, in fixed runs of blocks (the same search whatever the number
        // of threads); the first of a run bisects the grid.
        let solve = |&(a, b): &(usize, usize), hint: &mut Option<usize>| -> f64 {
            let members = &self.by_rank[a..b];
            let tie = prefix[b] - prefix[a];
            // The increasing equation is F + kappa G - C = 0 with C = worse - better and
            // F = W - D+ = D- - W: from a node at or above the split, -D+ + (2 better +
            // tie); below it, D- - (2 worse + tie). Either is -F - C computed from small
            // numbers in its own tail.
            let (upper, lower) = (2.0 * prefix[a] + tie, 2.0 * suffix[b] + tie);
            let h = |k: usize| {
                if k < split {
                    table.values[k] - lower
                } else {
                    upper - table.values[k]
                }
            };
            let g = |x: f64| -> (f64, f64) {
                let (mut v, mut d) = (0.0, 0.0);
                for &j in members {
                    let j = j as usize;
                    let s = self.s[j];
                    let t = tanh((x - self.priors[j].mu) * 0.5 * s);
                    v += kappa * s * t;
                    d += kappa * 0.5 * s * s * (1.0 - t * t);
                }
                (v, d)
            };
            let at = |k| h(k) + g(grid.x(k)).0;
            let found = match *hint {
                Some(near) => Self::cell_from(&grid, at, near),
                None => Self::cell_of(&grid, at),
            };
            let Some(k) = found else {
                return self.direct(members[0] as usize);
            };
            *hint = Some(k);
            let (root, slope) = self.solve_cell(&grid, k, h, g);
            let error = local.at(grid.cell(root)) + 4.0 * f64::EPSILON * upper.min(lower);
            if slope > 0.0 && error / slope <= self.tol() {
                root
            } else {
                self.polish(members[0] as usize, root)
            }
        };
        let roots: Vec<f64> = self
            .blocks
            .par_chunks(SWEEP)
            .map(|run| {
                let mut hint = None;
                run.iter()
                    .map(|b| solve(b, &mut hint))
                    .collect::<Vec<f64>>()
            })
            .collect::<Vec<_>>()
            .concat();
        (0..n).map(|e| roots[self.block_of[e] as usize]).collect()
    }

    /// `F = sum_j s_j tanh(z_j)` at every node as its distance from saturation: `D- = W + F`
    /// below the split node, `D+ = W - F` from it on (the split at the weighted mean of the
    /// priors, between the tails). Entries with the same prior (a contest's newcomers) share
    /// one row; fixed chunks of rows are summed in parallel, then in order.
    fn saturation_table(&self, grid: &UniformGrid) -> SaturationTable {
        const CHUNK: usize = 512;
        let k = grid.len();
        let total: f64 = self.s.iter().sum();
        let centre = (0..self.n)
            .map(|j| self.s[j] * self.priors[j].mu)
            .sum::<f64>()
            / total;
        let split = (((centre - grid.x(0)) / grid.h()).ceil().max(0.0) as usize).min(k);
        let (rows, row_of) = self.distinct_priors();
        let mut count = vec![0.0; rows.len()];
        for &r in &row_of {
            count[r as usize] += 1.0;
        }
        let partials: Vec<Vec<f64>> = (0..rows.len())
            .collect::<Vec<_>>()
            .par_chunks(CHUNK)
            .map(|chunk| {
                let mut acc = vec![0.0; k];
                // Four rows at a time (the same sums as one at a time, in the same order).
                for group in chunk.chunks(4) {
                    let mut four = [(0.0, 0.0, 0.0); 4];
                    for (lane, &r) in four.iter_mut().zip(group) {
                        let j = rows[r] as usize;
                        let (mu, s) = (self.priors[j].mu, self.s[j]);
                        *lane = ((grid.x(0) - mu) * 0.5 * s, grid.h() * 0.5 * s, count[r] * s);
                    }
                    add_saturation_rows4(four, split, &mut acc);
                }
                acc
            })
            .collect();
        let mut values = vec![0.0; k];
        for p in partials {
            for (t, v) in values.iter_mut().zip(p) {
                *t += v;
            }
        }
        // Each term within 128 + 8 units of its last place (the reseeded recurrence and the
        // division), each chunk's sum within CHUNK, the partial sums within their count.
        let relative_noise = (136 + CHUNK + rows.len() / CHUNK + 1) as f64 * f64::EPSILON;
        SaturationTable {
            values,
            split,
            relative_noise,
        }
    }

    // ------------------------------------------------------------------ logistic, windows

    /// The prefix sums of the entries' weights `s` in `order` (rating order, or rank order:
    /// by slots).
    fn weight_prefix(&self, order: &[u32]) -> Vec<f64> {
        let mut w = vec![0.0; self.n + 1];
        for (k, &e) in order.iter().enumerate() {
            w[k + 1] = w[k] + self.s[e as usize];
        }
        w
    }

    /// The members of entry `e`'s tie block within the window `(a, b)` of rating positions:
    /// a range of slots (members sorted by rating position).
    fn tie_slots(&self, e: usize, (a, b): (usize, usize)) -> (usize, usize) {
        let (bs, be) = self.blocks[self.block_of[e] as usize];
        let members = &self.by_rank[bs..be];
        let t1 = bs + members.partition_point(|&j| (self.pos[j as usize] as usize) < a);
        let t2 = bs + members.partition_point(|&j| (self.pos[j as usize] as usize) < b);
        (t1, t2)
    }

    /// C per entry, the weight of its window placed worse less the weight placed better (of
    /// `w_rating` and `w_slot`, the weights' prefix sums in rating and rank order): a Fenwick
    /// tree over rating positions holds the better-placed weights.
    fn window_targets(&self, w_rating: &[f64], w_slot: &[f64]) -> Vec<f64> {
        let mut c = vec![0.0; self.n];
        let mut fenwick = Fenwick::new(self.n);
        for &(bs, be) in &self.blocks {
            for &e in &self.by_rank[bs..be] {
                let e = e as usize;
                let (a, b) = self.window_of(e);
                let better = fenwick.range(a, b);
                let (t1, t2) = self.tie_slots(e, (a, b));
                let tie = w_slot[t2] - w_slot[t1];
                let worse = (w_rating[b] - w_rating[a]) - better - tie;
                c[e] = worse - better;
            }
            for &e in &self.by_rank[bs..be] {
                fenwick.add(self.pos[e as usize] as usize, self.s[e as usize]);
            }
        }
        c
    }

    /// The grid of the windows' tables and its error bound. It spans every window's ratings
    /// and a margin of seven performance widths of its extreme entries (an entry that beats
    /// all N of its window performs about ln(N)/s above them); roots beyond it are solved
    /// with exact sums.
    fn window_grid(&self, w_rating: &[f64]) -> (UniformGrid, f64) {
        let n = self.n;
        let s_max = self.s.iter().copied().fold(0.0, f64::max);
        let s_min = self.s.iter().copied().fold(f64::INFINITY, f64::min);
        let edge = |range: &[u32]| {
            range
                .iter()
                .map(|&e| 7.0 / self.s[e as usize])
                .fold(0.0, f64::max)
        };
        let span = self.window.min(n);
        let lo = self.priors[self.by_rating[0] as usize].mu - edge(&self.by_rating[..span]);
        let hi = self.priors[self.by_rating[n - 1] as usize].mu + edge(&self.by_rating[n - span..]);
        let strip = PI / (2.0 * s_max);
        // Window weights (sampled): the smallest sets the typical slope, the largest the bound
        // (|F_S + kappa G| <= (1 + kappa) W_S in the strip).
        let (w_small, w_large) =
            (0..n)
                .step_by((n / 64).max(1))
                .fold((f64::INFINITY, 0.0f64), |(lo, hi), e| {
                    let (a, b) = self.window_of(e);
                    let w = w_rating[b] - w_rating[a];
                    (lo.min(w), hi.max(w))
                });
        let typical = w_small * s_min / 16.0;
        let bound_weight = (1.0 + self.kappa()) * w_large;
        let grid = Self::grid(
            lo,
            hi,
            strip,
            bound_weight,
            self.tol() * typical * 0.5,
            2 * n,
            n,
        );
        let bound = grid.error_bound(strip, bound_weight);
        (grid, bound)
    }

    fn logistic_windows_tabulated(&self) -> Vec<f64> {
        let n = self.n;
        let kappa = self.kappa();
        // Scalars: weight prefix in rating order and in rank order (slots).
        let w_rating = self.weight_prefix(&self.by_rating);
        let w_slot = self.weight_prefix(&self.by_rank);
        let c = self.window_targets(&w_rating, &w_slot);
        let (grid, bound) = self.window_grid(&w_rating);
        let k = grid.len();
        // Every entry's node values once; then a sweep over the rating order keeps the
        // current window's sum (F) and each tie block's sum over its members in the window (G)
        // up to date by adding the rows that enter and subtracting those that leave. The sweep
        // runs in fixed segments of positions, each starting afresh, so the result does not
        // depend on the number of threads.
        let mut values = buffer(0, n * k);
        values.par_chunks_mut(k).enumerate().for_each(|(e, row)| {
            let (mu, s) = (self.priors[e].mu, self.s[e]);
            tanh_row((grid.x(0) - mu) * 0.5 * s, grid.h() * 0.5 * s, s, row);
        });
        let row = |e: u32| &values[e as usize * k..(e as usize + 1) * k];
        const SEGMENT: usize = 512;
        let segments: Vec<Vec<(u32, f64)>> = (0..n.div_ceil(SEGMENT))
            .into_par_iter()
            .map(|sg| {
                let mut f_sum = Window::new(k);
                let mut g_sums: FxHashMap<u32, Window> = FxHashMap::default();
                let mut out = Vec::with_capacity(SEGMENT);
                for pos in sg * SEGMENT..((sg + 1) * SEGMENT).min(n) {
                    let e = self.by_rating[pos] as usize;
                    let (a, b) = self.window_of(e);
                    f_sum.slide(a, b, |i| row(self.by_rating[i]));
                    let block = self.block_of[e];
                    let (bs, be) = self.blocks[block as usize];
                    let g: &[f64] = if be - bs == 1 {
                        row(e as u32)
                    } else {
                        let (t1, t2) = self.tie_slots(e, (a, b));
                        let w = g_sums.entry(block).or_insert_with(|| Window::new(k));
                        w.slide(t1, t2, |i| row(self.by_rank[i]));
                        &w.sum
                    };
                    let f = &f_sum.sum;
                    let table = |j: usize| f[j] + kappa * g[j];
                    let root = match Self::cell_of(&grid, |j| table(j) - c[e]) {
                        None => self.direct(e),
                        Some(cell) => {
                            let (root, slope) =
                                self.solve_cell(&grid, cell, table, |_| (-c[e], 0.0));
                            if slope > 0.0 && bound / slope <= self.tol() {
                                root
                            } else {
                                self.polish(e, root)
                            }
                        }
                    };
                    out.push((e as u32, root));
                }
                out
            })
            .collect();
        give_back(0, values);
        let mut roots = vec![0.0; n];
        for (e, r) in segments.into_iter().flatten() {
            roots[e as usize] = r;
        }
        roots
    }

    // ------------------------------------------------------------------ Gaussian, exact

    /// One representative entry per distinct prior (mean and spread), in rating order, and
    /// for every entry the index of its prior among them.
    fn distinct_priors(&self) -> (Vec<u32>, Vec<u32>) {
        let mut rows: Vec<u32> = Vec::new();
        let mut row_of = vec![0u32; self.n];
        let prior = |e: &u32| self.priors[*e as usize];
        for same in self.by_rating.chunk_by(|a, b| prior(a) == prior(b)) {
            same.iter()
                .for_each(|e| row_of[*e as usize] = rows.len() as u32);
            rows.push(same[0]);
        }
        (rows, row_of)
    }

    fn gaussian_exact_tabulated(&self) -> Vec<f64> {
        let n = self.n;
        let first = self.by_rank[self.blocks[0].0] as usize;
        let last = self.by_rank[self.blocks[self.blocks.len() - 1].0] as usize;
        let (top, bottom) = (self.direct(first), self.direct(last));
        if self.blocks.len() == 1 || top.is_nan() || bottom.is_nan() || top <= bottom {
            return self.all_direct();
        }
        let d_min = self
            .priors
            .iter()
            .map(|p| p.delta)
            .fold(f64::INFINITY, f64::min);
        let weight: f64 = self.priors.iter().map(|p| 1.0 / p.delta).sum();
        let mut refine = 1.0;
        loop {
            // The strip and bound are heuristic for the normal hazards; the result is checked
            // below against exact sums on sampled blocks, and the grid refined if needed.
            let strip = 0.75 * d_min / refine;
            let target = self.tol() * weight / d_min * 1e-3;
            let grid = Self::grid(
                bottom,
                top,
                strip,
                4.0 * weight,
                target,
                2 * n,
                self.blocks.len(),
            );
            // Per-block roots with losses and wins interpolated on the grid: from prefix
            // tables of every entry's node values while they take at most [`TABLE_VALUES`]
            // values each, streamed in rank order beyond that.
            let roots = if (n + 1) * grid.len() <= TABLE_VALUES {
                self.gaussian_on_tables(&grid)
            } else {
                self.gaussian_streamed(&grid)
            };
            let samples: Vec<usize> = (0..16).map(|i| i * (self.blocks.len() - 1) / 15).collect();
            let worst = samples
                .par_iter()
                .map(|&b| {
                    let e = self.by_rank[self.blocks[b].0] as usize;
                    let p = roots[b];
                    let (g, d) = self.direct_eval(self.lo[e], self.opponents(e), p);
                    (g / d).abs()
                })
                .reduce(|| 0.0, f64::max);
            if worst <= self.tol() * 10.0 || refine >= 8.0 {
                return (0..n).map(|e| roots[self.block_of[e] as usize]).collect();
            }
            refine *= 2.0;
        }
    }

    /// The root of one block (`members`, in rank order) given its row of node values (the
    /// other entries' terms; the members' own in `exact` unless ties are split).
    fn block_root(
        &self,
        grid: &UniformGrid,
        members: &[u32],
        table: impl Fn(usize) -> f64 + Copy,
    ) -> f64 {
        let exact = |x: f64| -> (f64, f64) {
            if self.set.split_ties {
                (0.0, 0.0)
            } else {
                members.iter().fold((0.0, 0.0), |(v, d), &j| {
                    let p = self.priors[j as usize];
                    let w = 1.0 / (p.delta * p.delta);
                    (v + (x - p.mu) * w, d + w)
                })
            }
        };
        let Some(cell) = Self::cell_of(grid, |j| table(j) + exact(grid.x(j)).0) else {
            return self.direct(members[0] as usize);
        };
        self.solve_cell(grid, cell, table, exact).0
    }

    /// Adds one entry's node values, `-l` (the loss term) and `-v` (the win term), into `l`
    /// and `w`.
    fn add_node_values(&self, grid: &UniformGrid, e: usize, l: &mut [f64], w: &mut [f64]) {
        let Prior { mu, delta } = self.priors[e];
        for (j, (lj, wj)) in l.iter_mut().zip(w.iter_mut()).enumerate() {
            // minus_loss(z).0 and minus_win(z).0 from one pair of hazards.
            let (h_win, h_loss) = normal_hazards((grid.x(j) - mu) / delta);
            *lj += h_loss / delta;
            *wj += -h_win / delta;
        }
    }

    /// The Gaussian model's per-block roots from prefix tables in rank order: `(n + 1) k` values each.
    fn gaussian_on_tables(&self, grid: &UniformGrid) -> Vec<f64> {
        let n = self.n;
        let split = self.set.split_ties;
        // Prefix sums in rank order of -l_j and -v_j at every node. Entries with the same
        // prior (a contest's newcomers) share one row of node values.
        let k = grid.len();
        let (rows, row_of) = self.distinct_priors();
        let mut loss = buffer(0, rows.len() * k);
        let mut win = buffer(3, rows.len() * k);
        loss.par_chunks_mut(k)
            .zip(win.par_chunks_mut(k))
            .zip(&rows)
            .for_each(|((lr, wr), &e)| {
                lr.fill(0.0);
                wr.fill(0.0);
                self.add_node_values(grid, e as usize, lr, wr);
            });
        let rank_rows: Vec<u32> = self.by_rank.iter().map(|&e| row_of[e as usize]).collect();
        let lp = prefix_rows(&rank_rows, &loss, k, 1);
        give_back(0, loss);
        let vp = prefix_rows(&rank_rows, &win, k, 2);
        give_back(3, win);
        let roots = self
            .blocks
            .par_iter()
            .map(|&(a, b)| {
                let table = |j: usize| {
                    let row = |i: usize| i * k + j;
                    let mut v = lp[row(a)] + (vp[row(n)] - vp[row(b)]);
                    if split {
                        v += 0.5 * ((lp[row(b)] - lp[row(a)]) + (vp[row(b)] - vp[row(a)]));
                    }
                    v
                };
                self.block_root(grid, &self.by_rank[a..b], table)
            })
            .collect();
        give_back(1, lp);
        give_back(2, vp);
        roots
    }

    /// The Gaussian model's per-block roots without tables of the whole field: the blocks are cut into
    /// chunks of about [`STREAM_CHUNK`] entries; each chunk's sums at the nodes, then the sums
    /// of the loss terms before each chunk and of the win terms after it (each a sum of the
    /// terms themselves, in order, so that nothing cancels: the last block's win terms are
    /// exactly none); then each chunk's blocks, their members' node values computed a second
    /// time, the win terms after each block summed backwards through the chunk and the loss
    /// terms before it forwards. Memory O(k (n / STREAM_CHUNK + threads * STREAM_CHUNK))
    /// (each chunk at work holds three values per node for each of its blocks) instead of
    /// O(k n), for twice the node values. The chunks depend on the contest only, so the
    /// result does not depend on the threads.
    fn gaussian_streamed(&self, grid: &UniformGrid) -> Vec<f64> {
        let k = grid.len();
        let split = self.set.split_ties;
        let mut chunks: Vec<(usize, usize)> = Vec::new();
        let (mut start, mut count) = (0, 0);
        for (b, &(lo, hi)) in self.blocks.iter().enumerate() {
            count += hi - lo;
            if count >= STREAM_CHUNK {
                chunks.push((start, b + 1));
                (start, count) = (b + 1, 0);
            }
        }
        if start < self.blocks.len() {
            chunks.push((start, self.blocks.len()));
        }
        let members =
            |(b0, b1): (usize, usize)| &self.by_rank[self.blocks[b0].0..self.blocks[b1 - 1].1];
        let sums: Vec<(Vec<f64>, Vec<f64>)> = chunks
            .par_iter()
            .map(|&c| {
                let (mut l, mut w) = (vec![0.0; k], vec![0.0; k]);
                for &e in members(c) {
                    self.add_node_values(grid, e as usize, &mut l, &mut w);
                }
                (l, w)
            })
            .collect();
        let add = |acc: &mut [f64], x: &[f64]| acc.iter_mut().zip(x).for_each(|(a, x)| *a += x);
        let mut l_before = Vec::with_capacity(chunks.len());
        let mut running = vec![0.0; k];
        for (l, _) in &sums {
            l_before.push(running.clone());
            add(&mut running, l);
        }
        let mut w_after = vec![Vec::new(); chunks.len()];
        let mut running = vec![0.0; k];
        for (c, (_, w)) in sums.iter().enumerate().rev() {
            w_after[c] = running.clone();
            add(&mut running, w);
        }
        drop(sums);
        let roots: Vec<Vec<f64>> = chunks
            .par_iter()
            .zip(l_before)
            .zip(w_after)
            .map(|((&(b0, b1), mut lp), mut va)| {
                let blocks = &self.blocks[b0..b1];
                let nb = blocks.len();
                let (mut bl, mut bv) = (vec![0.0; nb * k], vec![0.0; nb * k]);
                for (i, &(a, b)) in blocks.iter().enumerate() {
                    let (l, w) = (&mut bl[i * k..(i + 1) * k], &mut bv[i * k..(i + 1) * k]);
                    for &e in &self.by_rank[a..b] {
                        self.add_node_values(grid, e as usize, l, w);
                    }
                }
                // The win terms after each block, from the chunk's end backwards.
                let mut rows = vec![0.0; nb * k];
                for i in (0..nb).rev() {
                    rows[i * k..(i + 1) * k].copy_from_slice(&va);
                    add(&mut va, &bv[i * k..(i + 1) * k]);
                }
                let mut out = Vec::with_capacity(nb);
                for (i, &(a, b)) in blocks.iter().enumerate() {
                    let row = &mut rows[i * k..(i + 1) * k];
                    let (l, w) = (&bl[i * k..(i + 1) * k], &bv[i * k..(i + 1) * k]);
                    for j in 0..k {
                        row[j] += lp[j];
                        if split {
                            row[j] += 0.5 * (l[j] + w[j]);
                        }
                    }
                    let row = &*row;
                    out.push(self.block_root(grid, &self.by_rank[a..b], |j| row[j]));
                    add(&mut lp, l);
                }
                out
            })
            .collect();
        roots.concat()
    }
}

/// `F = sum_j s_j tanh(z_j)` tabulated as its distance from saturation (see
/// [`Contest::saturation_table`]).
struct SaturationTable {
    /// `D- = W + F` at the nodes below `split`, `D+ = W - F` from it on.
    values: Vec<f64>,
    split: usize,
    /// Each value is within this share of itself of the exact sum (rounding of the terms and
    /// of their summation, worst case).
    relative_noise: f64,
}

/// The error of the interpolated `F` cell by cell: the interpolation error bound, sharper than
/// the global one in the tails, plus the rounding of the tabulated values.
///
/// Lagrange interpolation reproduces constants, so the error of interpolating `F` is that of
/// `F - W` or `F + W`, and Cauchy's estimate needs only a bound of these on the discs of radius
/// `strip` around the stencil. In the strip `|Im z| <= pi/4` (the grid's strip is that for the
/// steepest term), `|tanh z| <= 1` and `|tanh z - 1| <= 2 e^(-2 Re z) <= 2 (1 - tanh(Re z))`
/// for `Re z >= 0`, while for `Re z < 0` the left side is at most 2 and the right side at
/// least 2: so `|F - W| <= 2 D+(x_lo)` on the discs, `x_lo` their leftmost real point, and
/// likewise `|F + W| <= 2 D-(x_hi)`. Both come from the table at a node beyond the discs (D+
/// decreases, D- increases). The table's own values are accurate relative to themselves, so
/// their rounding, grown by the stencil's Lebesgue constant, shrinks in the tails too.
///
/// Far in the tails, where a root's slope is tiny, both parts shrink with it. With the global
/// bound (`W`) and the plain tanh sums (a total of size W minus a tiny deviation), those roots
/// had to be solved again with exact sums, O(n) each and a share of n of them: the quadratic
/// cost of million-entrant contests.
struct LocalBound {
    /// For each cell, the bound of the interpolated F's error there.
    bound: Vec<f64>,
}

impl LocalBound {
    fn new(grid: &UniformGrid, strip: f64, total: f64, table: &SaturationTable) -> Self {
        let global = grid.error_bound(strip, 1.0);
        let q = grid.q();
        // The discs reach `strip` beyond the stencil, which reaches q/2 nodes from its cell.
        let reach = (strip / grid.h()).ceil() as usize + q / 2 + 1;
        let len = grid.len();
        let v = &table.values;
        let bound = (0..len)
            .map(|k| {
                let mut m = total;
                if let Some(lo) = k.checked_sub(reach)
                    && lo >= table.split
                {
                    m = m.min(2.0 * v[lo]);
                }
                if k + 1 + reach < len && k + 1 + reach < table.split {
                    m = m.min(2.0 * v[k + 1 + reach]);
                }
                let first = (k + 1).saturating_sub(q / 2);
                let largest = v[first..(first + q).min(len)]
                    .iter()
                    .copied()
                    .fold(0.0, f64::max);
                global * m + grid.lebesgue() * table.relative_noise * largest
            })
            .collect();
        Self { bound }
    }

    fn at(&self, cell: usize) -> f64 {
        self.bound[cell.min(self.bound.len() - 1)]
    }
}

/// [`tanh_sums`] over fixed chunks of the columns, summed on rayon's threads and then in
/// order, for large contests (the same result whatever the number of threads).
fn tanh_sums_chunked(mu: &[f64], s: &[f64], p: f64) -> (f64, f64, f64) {
    const CHUNK: usize = 4096;
    if mu.len() < 2 * CHUNK {
        return tanh_sums(mu, s, p);
    }
    let parts: Vec<(f64, f64, f64)> = mu
        .par_chunks(CHUNK)
        .zip(s.par_chunks(CHUNK))
        .map(|(m, s)| tanh_sums(m, s, p))
        .collect();
    parts
        .iter()
        .fold((0.0, 0.0, 0.0), |(v, d, d2), &(pv, pd, pd2)| {
            (v + pv, d + pd, d2 + pd2)
        })
}

/// `sum_j s_j tanh((p - mu_j) s_j / 2)` and its first two derivatives, in four lanes the
/// compiler can vectorise (the order of the sum is fixed).
fn tanh_sums(mu: &[f64], s: &[f64], p: f64) -> (f64, f64, f64) {
    let mut v = [0.0f64; 4];
    let mut d = [0.0f64; 4];
    let mut d2 = [0.0f64; 4];
    let term = |m: f64, s: f64, l: usize, v: &mut [f64; 4], d: &mut [f64; 4], d2: &mut [f64; 4]| {
        let t = tanh((p - m) * 0.5 * s);
        let sech2 = 1.0 - t * t;
        v[l] += s * t;
        d[l] += 0.5 * s * s * sech2;
        d2[l] -= 0.5 * s * s * s * t * sech2;
    };
    let (mc, sc) = (mu.chunks_exact(4), s.chunks_exact(4));
    let (mr, sr) = (mc.remainder(), sc.remainder());
    for (m, s) in mc.zip(sc) {
        for l in 0..4 {
            term(m[l], s[l], l, &mut v, &mut d, &mut d2);
        }
    }
    for (l, (&m, &s)) in mr.iter().zip(sr).enumerate() {
        term(m, s, l, &mut v, &mut d, &mut d2);
    }
    let add = |x: [f64; 4]| (x[0] + x[1]) + (x[2] + x[3]);
    (add(v), add(d), add(d2))
}

/// `tanh(x) = 1 - 2 / (e^(2x) + 1)` with the vectorisable exponential: absolute error below
/// 1e-15, exact at both saturations, and cheap inside loops the compiler vectorises.
#[inline(always)]
pub fn tanh(x: f64) -> f64 {
    1.0 - 2.0 / (exp_vectorisable(2.0 * x) + 1.0)
}

/// Opponents of one entry by relation (better, worse, tied) as (mean, 1/delta, multiplicity).
type SplitColumns = [Vec<(f64, f64, f64)>; 3];

thread_local! {
    /// Columns of [`Contest::direct_gaussian`], kept between entries.
    static SPLIT: std::cell::RefCell<SplitColumns> = const { std::cell::RefCell::new([Vec::new(), Vec::new(), Vec::new()]) };
    /// Table buffers kept between contests, so that their pages stay mapped.
    static BUFFERS: std::cell::RefCell<[Vec<f64>; 4]> = const { std::cell::RefCell::new([Vec::new(), Vec::new(), Vec::new(), Vec::new()]) };
}

/// The largest prefix table (values) of the Gaussian model's grid kept in memory (64 MB);
/// larger fields are streamed.
const TABLE_VALUES: usize = 1 << 23;

/// Entries per chunk of a streamed Gaussian field.
const STREAM_CHUNK: usize = 1024;

/// A buffer of `len` values reusing the memory of buffer `slot`; its contents are left over
/// from earlier contests (every user overwrites all of it).
fn buffer(slot: usize, len: usize) -> Vec<f64> {
    let mut v = BUFFERS.with(|b| std::mem::take(&mut b.borrow_mut()[slot]));
    v.truncate(len);
    v.resize(len, 0.0);
    v
}

/// Returns a buffer for later contests.
fn give_back(slot: usize, v: Vec<f64>) {
    BUFFERS.with(|b| b.borrow_mut()[slot] = v);
}

/// Row-major prefix sums of node values over `order`: row i (of n + 1) holds the sums over
/// the first i entries of `order`, at each of the `k` nodes. `values` is row-major too (one
/// row of k node values per entry, by entry id). Chunks of fixed size are summed in parallel
/// and then offset, so the result does not depend on the number of threads.
fn prefix_rows(order: &[u32], values: &[f64], k: usize, slot: usize) -> Vec<f64> {
    const CHUNK: usize = 256;
    let n = order.len();
    let mut table = buffer(slot, (n + 1) * k);
    table[..k].fill(0.0);
    // Pass 1: local prefix sums within each chunk (rows 1..=n).
    table[k..]
        .par_chunks_mut(CHUNK * k)
        .zip(order.par_chunks(CHUNK))
        .for_each(|(rows, entries)| {
            let mut acc = vec![0.0; k];
            for (row, &e) in rows.chunks_mut(k).zip(entries) {
                let v = &values[e as usize * k..(e as usize + 1) * k];
                for ((r, a), x) in row.iter_mut().zip(acc.iter_mut()).zip(v) {
                    *a += x;
                    *r = *a;
                }
            }
        });
    // Pass 2: each chunk's offset is the previous chunk's last row; computed in order.
    let chunks = n.div_ceil(CHUNK);
    let mut offsets = vec![0.0; chunks * k];
    for c in 1..chunks {
        let last_row = c * CHUNK; // row index of the previous chunk's last entry
        let (done, todo) = offsets.split_at_mut(c * k);
        let prev = &done[(c - 1) * k..];
        for ((o, p), t) in todo[..k]
            .iter_mut()
            .zip(prev)
            .zip(&table[last_row * k..(last_row + 1) * k])
        {
            *o = p + t;
        }
    }
    table[k..]
        .par_chunks_mut(CHUNK * k)
        .zip(offsets.par_chunks(k))
        .for_each(|(rows, off)| {
            for row in rows.chunks_mut(k) {
                for (r, o) in row.iter_mut().zip(off) {
                    *r += o;
                }
            }
        });
    table
}

/// Minus the loss term against a normal opponent and its derivative, at z = (p - mu)/delta:
/// `-l = phi(z) / (delta (1 - Phi(z)))`.
#[inline]
fn minus_loss(z: f64, delta: f64) -> (f64, f64) {
    let r = normal_pdf_over_cdf(-z);
    (r / delta, (r * r - z * r) / (delta * delta))
}

/// Minus the win term and its derivative: `-v = -phi(z) / (delta Phi(z))`.
#[inline]
fn minus_win(z: f64, delta: f64) -> (f64, f64) {
    let r = normal_pdf_over_cdf(z);
    (-r / delta, (z * r + r * r) / (delta * delta))
}

/// A sliding sum of table rows over a range of indices `[lo, hi)` that only moves forward.
struct Window {
    sum: Vec<f64>,
    lo: usize,
    hi: usize,
}

impl Window {
    fn new(k: usize) -> Self {
        Self {
            sum: vec![0.0; k],
            lo: 0,
            hi: 0,
        }
    }

    /// Moves to `[lo, hi)` (both not below the current ones): rows entering are added, rows
    /// leaving subtracted; a jump past the current range starts afresh.
    fn slide<'r>(&mut self, lo: usize, hi: usize, row: impl Fn(usize) -> &'r [f64]) {
        if lo >= self.hi {
            self.sum.iter_mut().for_each(|v| *v = 0.0);
            self.lo = lo;
            self.hi = lo;
        }
        for i in self.hi..hi {
            for (v, x) in self.sum.iter_mut().zip(row(i)) {
                *v += x;
            }
        }
        for i in self.lo..lo {
            for (v, x) in self.sum.iter_mut().zip(row(i)) {
                *v -= x;
            }
        }
        self.lo = lo;
        self.hi = hi.max(self.hi);
    }
}

/// A Fenwick tree of sums over positions.
struct Fenwick(Vec<f64>);

impl Fenwick {
    fn new(n: usize) -> Self {
        Self(vec![0.0; n + 1])
    }
    fn add(&mut self, i: usize, v: f64) {
        let mut i = i + 1;
        while i < self.0.len() {
            self.0[i] += v;
            i += i & i.wrapping_neg();
        }
    }
    /// Sum over positions < i.
    fn prefix(&self, mut i: usize) -> f64 {
        let mut s = 0.0;
        while i > 0 {
            s += self.0[i];
            i -= i & i.wrapping_neg();
        }
        s
    }
    fn range(&self, a: usize, b: usize) -> f64 {
        self.prefix(b) - self.prefix(a)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::numeric::roots::bisect;
    use rand::{Rng, SeedableRng};
    use rand_chacha::ChaCha8Rng;

    /// A contest of n entries with random priors and places with ties.
    fn contest(n: usize, seed: u64) -> (Vec<Prior>, Vec<(u32, u32)>) {
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        let priors: Vec<Prior> = (0..n)
            .map(|_| Prior {
                mu: 1500.0 + rng.random_range(-900.0..900.0),
                delta: 200.0 + rng.random_range(0.0..250.0),
            })
            .collect();
        // Scores with many ties (as in programming contests), ranked by score.
        let scores: Vec<u32> = (0..n)
            .map(|_| rng.random_range(0..(n as u32 / 3).max(2)))
            .collect();
        let mut order: Vec<usize> = (0..n).collect();
        order.sort_by_key(|&i| std::cmp::Reverse(scores[i]));
        let mut places = vec![(0, 0); n];
        let mut i = 0;
        while i < n {
            let mut j = i;
            while j < n && scores[order[j]] == scores[order[i]] {
                j += 1;
            }
            for &e in &order[i..j] {
                places[e] = (i as u32, j as u32 - 1);
            }
            i = j;
        }
        (priors, places)
    }

    fn settings(model: Model, split_ties: bool, subsample: usize) -> Settings {
        Settings {
            model,
            split_ties,
            subsample,
            tolerance: 1e-9,
        }
    }

    /// Each entry's root (every `step`-th entry) by plain bisection of the exact equation.
    fn bisected(
        priors: &[Prior],
        places: &[(u32, u32)],
        set: &Settings,
        step: usize,
    ) -> Vec<(usize, f64)> {
        let c = Contest::new(priors, places, set);
        (0..priors.len())
            .step_by(step)
            .map(|e| {
                let js = c.opponents(e);
                (
                    e,
                    bisect(
                        |p| c.direct_eval(c.lo[e], js, p).0,
                        -20_000.0,
                        20_000.0,
                        1e-11,
                    ),
                )
            })
            .collect()
    }

    fn assert_close(got: &[f64], want: &[(usize, f64)], tol: f64) {
        for &(i, w) in want {
            assert!((got[i] - w).abs() <= tol, "entry {i}: {} vs {w}", got[i]);
        }
    }

    #[test]
    fn two_equal_newcomers_meet_at_atanh_one_third() {
        // A beats B, same prior: 2 s t + s t - s = 0, so t = 1/3 and
        // p = mu + (2/s) atanh(1/3) with s = pi / (sqrt 3 delta).
        let priors = [Prior {
            mu: 1500.0,
            delta: 400.0,
        }; 2];
        let p = performances(
            &priors,
            &[(0, 0), (1, 1)],
            &settings(Model::Logistic, false, 0),
        );
        let s = PI / (3f64.sqrt() * 400.0);
        let want = 1500.0 + 2.0 / s * (1.0f64 / 3.0).atanh();
        assert!((p[0] - want).abs() < 1e-9 && (p[1] - (3000.0 - want)).abs() < 1e-9);
        // With split ties the self-tie counts once: 2 s t - s = 0, t = 1/2.
        let p = performances(
            &priors,
            &[(0, 0), (1, 1)],
            &settings(Model::Logistic, true, 0),
        );
        assert!((p[0] - (1500.0 + 2.0 / s * 0.5f64.atanh())).abs() < 1e-9);
    }

    #[test]
    fn roots_agree_with_bisection_to_1e9_small_and_large_both_models() {
        for (n, model, split) in [
            (40, Model::Logistic, false),
            (40, Model::Gaussian, false),
            (40, Model::Gaussian, true),
            (600, Model::Logistic, false),
            (600, Model::Logistic, true),
            (500, Model::Gaussian, false),
            (500, Model::Gaussian, true),
        ] {
            // Above 256 entries the tabulated path runs; every 7th entry is checked.
            let (priors, places) = contest(n, n as u64);
            let set = settings(model, split, 0);
            let got = performances(&priors, &places, &set);
            let want = bisected(&priors, &places, &set, if n > 256 { 7 } else { 1 });
            assert_close(&got, &want, 1e-9);
        }
    }

    #[test]
    fn the_streamed_gaussian_field_agrees_with_the_tables_and_bisection() {
        // A field with ties (and split ties): the streamed walk, used beyond TABLE_VALUES,
        // against the prefix tables on the same grid, and against bisection of the exact
        // equation.
        for split in [false, true] {
            let (priors, places) = contest(3000, 77);
            let set = settings(Model::Gaussian, split, 0);
            let c = Contest::new(&priors, &places, &set);
            let first = c.by_rank[c.blocks[0].0] as usize;
            let last = c.by_rank[c.blocks[c.blocks.len() - 1].0] as usize;
            let (top, bottom) = (c.direct(first), c.direct(last));
            let grid = UniformGrid::new(bottom, top, (top - bottom) / 400.0, 12);
            let tables = c.gaussian_on_tables(&grid);
            let streamed = c.gaussian_streamed(&grid);
            assert_eq!(tables.len(), c.blocks.len());
            let worst = tables
                .iter()
                .zip(&streamed)
                .map(|(a, b)| (a - b).abs())
                .fold(0.0, f64::max);
            assert!(worst < 1e-9, "split {split}: {worst}");
            assert!(tables != streamed, "two summation orders, not one path");
            let by_entry: Vec<f64> = (0..priors.len())
                .map(|e| streamed[c.block_of[e] as usize])
                .collect();
            let want = bisected(&priors, &places, &set, 37);
            assert_close(&by_entry, &want, 1e-8);
            // The last block, where the win terms after it are exactly none (a difference of
            // running sums would leave rounding there, where the slope is smallest).
            let e = last;
            let root = bisect(
                |p| c.direct_eval(c.lo[e], c.opponents(e), p).0,
                -20_000.0,
                20_000.0,
                1e-11,
            );
            assert!(
                (by_entry[e] - root).abs() < 1e-8,
                "{} vs {root}",
                by_entry[e]
            );
        }
    }

    #[test]
    fn tail_roots_of_a_large_field_agree_with_bisection() {
        // Newcomers alike (every place distinct) and a mixed field: the roots far in the
        // tails, where the equation's slope is tiny, are met by the cell-by-cell bound (see
        // `LocalBound`) and checked here one by one against bisection of the exact sums.
        let n = 4000;
        let alike = vec![
            Prior {
                mu: 1500.0,
                delta: 400.0
            };
            n
        ];
        let (mixed, _) = contest(n, 11);
        let places: Vec<(u32, u32)> = (0..n as u32).map(|i| (i, i)).collect();
        for priors in [alike, mixed] {
            let set = settings(Model::Logistic, false, 0);
            let got = performances(&priors, &places, &set);
            let c = Contest::new(&priors, &places, &set);
            for e in (0..40).chain(n / 2..n / 2 + 5).chain(n - 40..n) {
                let js = c.opponents(e);
                let want = bisect(
                    |p| c.direct_eval(c.lo[e], js, p).0,
                    -20_000.0,
                    20_000.0,
                    1e-11,
                );
                let (g1, d1) = c.direct_eval(c.lo[e], js, got[e]);
                let (g2, d2) = c.direct_eval(c.lo[e], js, want);
                assert!(
                    (got[e] - want).abs() <= 1e-9,
                    "entry {e}: {} vs {want}: got g {g1} d {d1} want g {g2} d {d2}",
                    got[e]
                );
            }
        }
    }

    #[test]
    fn subsampled_windows_agree_with_exact_sums_over_the_windows() {
        for split in [false, true] {
            let (priors, places) = contest(900, 7);
            let set = settings(Model::Logistic, split, 300);
            let got = performances(&priors, &places, &set);
            let want = bisected(&priors, &places, &set, 5);
            assert_close(&got, &want, 1e-9);
        }
        let (priors, places) = contest(300, 8);
        let set = settings(Model::Gaussian, false, 100);
        assert_close(
            &performances(&priors, &places, &set),
            &bisected(&priors, &places, &set, 5),
            1e-9,
        );
    }

    #[test]
    fn a_cell_searched_from_a_neighbour_is_the_bisected_cell() {
        // Increasing node values with flat stretches and zeros at nodes; every hint, and
        // values that never change sign (no cell) at either end.
        let grid = UniformGrid::new(0.0, 100.0, 1.0, 8);
        let (first, last) = grid.inner();
        for root in [-5.0, 0.0, 0.5, 3.0, 37.0, 37.5, 50.0, 98.9, 100.0, 140.0] {
            let at = |k: usize| {
                let x = grid.x(k);
                if (x - root).abs() < 2.0 {
                    0.0_f64.max(x - root).floor()
                } else {
                    x - root
                }
            };
            let want = Contest::cell_of(&grid, at);
            for near in [
                0,
                first,
                first + 1,
                20,
                37,
                38,
                60,
                last - 1,
                last,
                last + 5,
            ] {
                assert_eq!(
                    Contest::cell_from(&grid, at, near),
                    want,
                    "root {root}, near {near}"
                );
            }
            if (0.0..=100.0).contains(&root) {
                let k = want.expect("a cell");
                assert!(
                    at(k) <= 0.0 && at(k + 1) > 0.0 || k + 1 == last,
                    "root {root}: {k}"
                );
            }
        }
    }

    #[test]
    fn tie_blocks_share_one_root_and_better_places_perform_better() {
        let (priors, places) = contest(600, 3);
        let p = performances(&priors, &places, &settings(Model::Logistic, false, 0));
        for i in 0..600 {
            for j in 0..600 {
                if places[i].0 == places[j].0 {
                    assert_eq!(p[i], p[j]);
                } else if places[i].0 < places[j].0 {
                    assert!(p[i] > p[j], "theorem 5.2: {i} placed better than {j}");
                }
            }
        }
    }

    #[test]
    fn results_do_not_depend_on_the_thread_count() {
        let (priors, places) = contest(1500, 11);
        for set in [
            settings(Model::Logistic, false, 0),
            settings(Model::Logistic, false, 500),
            settings(Model::Gaussian, false, 0),
        ] {
            let run = |threads: usize| {
                rayon::ThreadPoolBuilder::new()
                    .num_threads(threads)
                    .build()
                    .unwrap()
                    .install(|| performances(&priors, &places, &set))
            };
            let (one, two) = (run(1), run(2));
            assert!(
                one.iter()
                    .zip(&two)
                    .all(|(a, b)| a.to_bits() == b.to_bits())
            );
        }
    }
}
