//! Tabulation on a uniform grid and local interpolation: a function known at the nodes
//! `x_k = lo + k h` is evaluated between them by the Lagrange polynomial through the `q` nodes
//! around the point (barycentric form, equispaced weights).
//!
//! **Error bound.** For f analytic and bounded by `M` in the strip `|Im x| < d`, Cauchy's
//! estimate on a disc of radius d gives `|f^(q)| <= q! M / d^q`, and Lagrange's remainder
//! `f^(q)(xi)/q! prod (x - x_i)` is at most `M C_q (h/d)^q`, where `C_q h^q` bounds the node
//! product over the central cell ([`UniformGrid::error_bound`]). The grid carries `q/2`
//! extra nodes beyond each end so that every point of `[lo, hi]` has a centred stencil.
//!
//! Uniform nodes also make tabulating exponentials cheap: `e^(a + k b)` follows from its
//! predecessor by one multiplication ([`tanh_row`]).

/// A uniform grid with a centred interpolation stencil of `q` nodes.
#[derive(Clone, Debug)]
pub struct UniformGrid {
    /// Position of node 0 (below the interval by q/2 - 1 spacings).
    x0: f64,
    h: f64,
    len: usize,
    q: usize,
    weights: Vec<f64>,
    /// max over the central cell of |prod (x - x_i)| / h^q.
    c_q: f64,
    /// max over the central cell of the Lebesgue function (how much errors in the node
    /// values can grow in the interpolated value).
    lebesgue: f64,
}

impl UniformGrid {
    /// A grid of spacing `h` covering `[lo, hi]`, with stencils of `q` (even, >= 2) nodes.
    pub fn new(lo: f64, hi: f64, h: f64, q: usize) -> Self {
        assert!(q <= 32, "stencils of at most 32 nodes");
        assert!(
            hi >= lo && h > 0.0 && q >= 2 && q.is_multiple_of(2),
            "bad grid {lo} {hi} {h} {q}"
        );
        let half = q / 2;
        let x0 = lo - (half - 1) as f64 * h;
        let cells = ((hi - lo) / h).ceil() as usize + 1;
        let len = cells + q;
        // Equispaced barycentric weights: (-1)^i C(q-1, i).
        let mut weights = Vec::with_capacity(q);
        let mut c = 1.0;
        for i in 0..q {
            weights.push(if i % 2 == 0 { c } else { -c });
            c = c * (q - 1 - i) as f64 / (i + 1) as f64;
        }
        Self {
            x0,
            h,
            len,
            q,
            weights,
            c_q: constants(q).0,
            lebesgue: constants(q).1,
        }
    }

    /// Number of nodes.
    pub fn len(&self) -> usize {
        self.len
    }

    /// True when the grid has no node (never: a grid has at least q nodes).
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Position of node k.
    #[inline]
    pub fn x(&self, k: usize) -> f64 {
        self.x0 + k as f64 * self.h
    }

    /// Spacing.
    pub fn h(&self) -> f64 {
        self.h
    }

    /// Stencil size.
    pub fn q(&self) -> usize {
        self.q
    }

    /// The first and last node indices that have a centred stencil (the covered interval).
    pub fn inner(&self) -> (usize, usize) {
        (self.q / 2 - 1, self.len - self.q / 2)
    }

    /// The cell (node index k with x in [x_k, x_{k+1}]) of x, clamped to the inner range.
    #[inline]
    pub fn cell(&self, x: f64) -> usize {
        let (a, b) = self.inner();
        let k = ((x - self.x0) / self.h).floor();
        (k.max(a as f64) as usize).min(b - 1)
    }

    /// Interpolates at x from the node values given by `value(k)`.
    #[inline]
    pub fn eval(&self, x: f64, value: impl Fn(usize) -> f64) -> f64 {
        let first = self.cell(x) + 1 - self.q / 2;
        let (mut num, mut den) = (0.0, 0.0);
        for (i, &w) in self.weights.iter().enumerate() {
            let k = first + i;
            let d = x - self.x(k);
            if d == 0.0 {
                return value(k);
            }
            let c = w / d;
            num += c * value(k);
            den += c;
        }
        num / den
    }

    /// Interpolates at x the value and the derivative from the node values `value(k)` (the
    /// derivative of the barycentric form: `sum c_i (p - f_i)/(x - x_i) / sum c_i`).
    #[inline]
    pub fn eval_with_slope(&self, x: f64, value: impl Fn(usize) -> f64) -> (f64, f64) {
        let first = self.cell(x) + 1 - self.q / 2;
        let mut c = [0.0f64; 32];
        let mut f = [0.0f64; 32];
        let mut dx = [0.0f64; 32];
        let (mut num, mut den) = (0.0, 0.0);
        for (i, &w) in self.weights.iter().enumerate() {
            let k = first + i;
            let d = x - self.x(k);
            if d == 0.0 {
                // At a node: the slope from the neighbouring points is not needed by callers
                // that only step from inside a cell; use a one-sided difference.
                let h = self.h * 1e-6;
                let v = value(k);
                return (v, (self.eval(x + h, &value) - v) / h);
            }
            c[i] = w / d;
            f[i] = value(k);
            dx[i] = d;
            num += c[i] * f[i];
            den += c[i];
        }
        let p = num / den;
        let slope: f64 = (0..self.q).map(|i| c[i] * (p - f[i]) / dx[i]).sum::<f64>() / den;
        (p, slope)
    }

    /// The bound of the module documentation for a function bounded by `bound` in the strip
    /// of half-width `strip`.
    pub fn error_bound(&self, strip: f64, bound: f64) -> f64 {
        bound * self.c_q * (self.h / strip).powi(self.q as i32)
    }

    /// [`error_bound`](Self::error_bound) per unit bound for a spacing `h` (this grid's
    /// stencil, any spacing).
    pub fn error_factor(&self, h: f64, strip: f64) -> f64 {
        self.c_q * (h / strip).powi(self.q as i32)
    }

    /// The Lebesgue constant of the centred stencil: node values each wrong by at most e give
    /// an interpolated value wrong by at most `lebesgue() * e` (beyond the bound above).
    pub fn lebesgue(&self) -> f64 {
        self.lebesgue
    }

    /// Of the stencils of 8 to 24 nodes, the one, with its spacing, whose grid over a range
    /// of length `len` costs least: `spacing(q)` is the spacing a stencil of q nodes needs
    /// (`None` when it cannot meet its bound; at most `len` is used), `cost(q, nodes)` what
    /// such a grid costs. `None` when no stencil can.
    pub fn cheapest(
        len: f64,
        spacing: impl Fn(usize) -> Option<f64>,
        cost: impl Fn(usize, f64) -> f64,
    ) -> Option<(usize, f64)> {
        let mut best: Option<(f64, usize, f64)> = None;
        for q in [8, 12, 16, 20, 24] {
            let Some(h) = spacing(q) else {
                continue;
            };
            let h = h.min(len);
            let c = cost(q, len / h + q as f64);
            if best.is_none_or(|b| c < b.0) {
                best = Some((c, q, h));
            }
        }
        best.map(|(_, q, h)| (q, h))
    }

    /// The largest spacing whose bound meets `target` with stencils of q nodes.
    pub fn spacing_for(q: usize, strip: f64, bound: f64, target: f64) -> f64 {
        strip * (target / (bound * constants(q).0)).powf(1.0 / q as f64)
    }
}

/// [`central_product`] and [`central_lebesgue`] of a stencil size (even, 2 to 32), computed
/// once.
fn constants(q: usize) -> (f64, f64) {
    static TABLE: std::sync::OnceLock<Vec<(f64, f64)>> = std::sync::OnceLock::new();
    TABLE.get_or_init(|| {
        (0..=32)
            .map(|q| {
                if q >= 2 && q % 2 == 0 {
                    (central_product(q), central_lebesgue(q))
                } else {
                    (f64::NAN, f64::NAN)
                }
            })
            .collect()
    })[q]
}

/// max over t in [0, 1] of prod over i = -(q/2 - 1) ..= q/2 of |t - i| (nodes of the centred
/// stencil in units of h, the point in the middle cell), sampled finely.
fn central_product(q: usize) -> f64 {
    let half = (q / 2) as i64;
    (0..=1000)
        .map(|s| {
            let t = s as f64 / 1000.0;
            (-(half - 1)..=half)
                .map(|i| (t - i as f64).abs())
                .product::<f64>()
        })
        .fold(0.0, f64::max)
}

/// max over t in [0, 1] of the sum over the centred stencil's nodes of |L_i(t)| (the Lagrange
/// basis polynomials, nodes in units of h), sampled finely and rounded up by a tenth.
fn central_lebesgue(q: usize) -> f64 {
    let half = (q / 2) as i64;
    let nodes: Vec<f64> = (-(half - 1)..=half).map(|i| i as f64).collect();
    let worst = (0..=1000)
        .map(|s| {
            let t = s as f64 / 1000.0;
            (0..nodes.len())
                .map(|i| {
                    nodes
                        .iter()
                        .enumerate()
                        .filter(|&(j, _)| j != i)
                        .map(|(_, &xj)| (t - xj) / (nodes[i] - xj))
                        .product::<f64>()
                        .abs()
                })
                .sum::<f64>()
        })
        .fold(0.0, f64::max);
    worst * 1.1
}

/// Adds, for z = a + i b (i = 0, 1, ...; `b >= 0`): `c (1 + tanh z)` below node `split` and
/// `c (1 - tanh z)` from it on to `sat`, and, if given, `d sech^2 z` to `sech2`. With
/// `E = e^(2z)` by the recurrence `E_(i+1) = E_i e^(2b)`, reseeded exactly every 64 nodes, and
/// `u = 1 / (E + 1)`: `1 + tanh z = 2 E u`, `1 - tanh z = 2 u`, `sech^2 z = 4 E u^2`, each a
/// positive number within a few units of its own last place (E is taken at most 1e300, where
/// every one of them is saturated) and one division per node. So a sum of such rows is
/// accurate relative to itself, even far in a tail where the plain tanh sum is a large total
/// less a tiny deviation.
pub fn add_saturation_rows(
    a: f64,
    b: f64,
    (c, d): (f64, f64),
    split: usize,
    sat: &mut [f64],
    mut sech2: Option<&mut [f64]>,
) {
    // E only grows along a row, so once it overflows it stays saturated.
    debug_assert!(b >= 0.0, "rows run towards larger z");
    let ratio = (2.0 * b).exp();
    let (c2, d4) = (2.0 * c, 4.0 * d);
    for (block, s_chunk) in sat.chunks_mut(64).enumerate() {
        let first = block * 64;
        let mut e = (2.0 * (a + first as f64 * b)).exp();
        for (i, s) in s_chunk.iter_mut().enumerate() {
            let ec = e.min(1e300);
            let u = 1.0 / (ec + 1.0);
            let lower = if first + i < split { ec } else { 1.0 };
            *s += c2 * lower * u;
            if let Some(v) = sech2.as_deref_mut() {
                v[first + i] += d4 * ec * u * u;
            }
            e *= ratio;
        }
    }
}

/// [`add_saturation_rows`] for four rows `(a, b, c)` at once, without `sech2`: the same
/// values added to `sat` in the rows' order (bit for bit what four calls would give), each
/// row's recurrence in a lane of its own, so that a node's four divisions are one vector
/// instruction. A row `(0, 0, 0)` adds nothing.
pub fn add_saturation_rows4(rows: [(f64, f64, f64); 4], split: usize, sat: &mut [f64]) {
    #[cfg(target_arch = "x86_64")]
    if std::arch::is_x86_feature_detected!("avx2") {
        // SAFETY: the CPU has AVX2, checked just above.
        unsafe { rows4_avx2(rows, split, sat) };
        return;
    }
    rows4(rows, split, sat);
}

/// [`rows4`] compiled for AVX2 (the arithmetic, and so every value, is the same; only the
/// vectors are wider).
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
unsafe fn rows4_avx2(rows: [(f64, f64, f64); 4], split: usize, sat: &mut [f64]) {
    rows4(rows, split, sat);
}

#[inline(always)]
fn rows4(rows: [(f64, f64, f64); 4], split: usize, sat: &mut [f64]) {
    let ratio: [f64; 4] = std::array::from_fn(|l| (2.0 * rows[l].1).exp());
    let c2: [f64; 4] = std::array::from_fn(|l| 2.0 * rows[l].2);
    for (block, chunk) in sat.chunks_mut(64).enumerate() {
        let first = block * 64;
        let mut e: [f64; 4] =
            std::array::from_fn(|l| (2.0 * (rows[l].0 + first as f64 * rows[l].1)).exp());
        let below = split.saturating_sub(first).min(chunk.len());
        let (lower, upper) = chunk.split_at_mut(below);
        // `c (1 + tanh z) = 2 c E u` below the split node, `c (1 - tanh z) = 2 c u` from it.
        let mut add = |s: &mut f64, below: bool| {
            let mut t = [0.0f64; 4];
            for l in 0..4 {
                let ec = e[l].min(1e300);
                let u = 1.0 / (ec + 1.0);
                t[l] = (c2[l] * if below { ec } else { 1.0 }) * u;
                e[l] *= ratio[l];
            }
            *s = (((*s + t[0]) + t[1]) + t[2]) + t[3];
        };
        lower.iter_mut().for_each(|s| add(s, true));
        upper.iter_mut().for_each(|s| add(s, false));
    }
}

/// Writes `scale * tanh(a + k b)` for k = 0, 1, ... into `out`, by the recurrence
/// `E_(k+1) = E_k e^(2b)` on `E_k = e^(2(a + k b))`, reseeded exactly every 64 steps;
/// `tanh = 1 - 2/(E + 1)`, exact at both saturations. Absolute error below 1e-14.
pub fn tanh_row(a: f64, b: f64, scale: f64, out: &mut [f64]) {
    let ratio = (2.0 * b).exp();
    for (block, chunk) in out.chunks_mut(64).enumerate() {
        let mut e = (2.0 * (a + (block * 64) as f64 * b)).exp();
        for v in chunk {
            *v = scale * (1.0 - 2.0 / (e + 1.0));
            e *= ratio;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn four_rows_at_once_are_four_rows_one_after_the_other() {
        // Rows of every kind: saturated at either end, crossing the split, steep and flat,
        // and an empty lane. The sums must be the same bits, not merely close.
        let rows = [
            (-40.0, 0.37, 3.5),
            (-3.0, 0.05, 1.25),
            (2.0, 0.9, 0.5),
            (0.0, 0.0, 0.0),
            (-700.0, 3.0, 2.0),
            (-15.5, 0.11, 7.0),
        ];
        for split in [0, 1, 63, 64, 100, 150, 500] {
            let mut one = vec![0.0; 150];
            let mut four = vec![0.0; 150];
            for &(a, b, c) in &rows {
                add_saturation_rows(a, b, (c, 0.0), split, &mut one, None);
            }
            for group in rows.chunks(4) {
                let mut g = [(0.0, 0.0, 0.0); 4];
                g[..group.len()].copy_from_slice(group);
                add_saturation_rows4(g, split, &mut four);
            }
            assert!(
                one.iter()
                    .zip(&four)
                    .all(|(x, y)| x.to_bits() == y.to_bits()),
                "split {split}"
            );
            assert!(one.iter().any(|&x| x > 0.0));
        }
        // Without AVX2 too.
        let mut one = vec![0.0; 130];
        let mut four = vec![0.0; 130];
        for &(a, b, c) in &rows[..4] {
            add_saturation_rows(a, b, (c, 0.0), 70, &mut one, None);
        }
        rows4(rows[..4].try_into().unwrap(), 70, &mut four);
        assert!(
            one.iter()
                .zip(&four)
                .all(|(x, y)| x.to_bits() == y.to_bits())
        );
    }

    #[test]
    fn tanh_rows_match_the_library() {
        let mut out = vec![0.0; 1000];
        tanh_row(-30.0, 0.07, 2.5, &mut out);
        for (k, v) in out.iter().enumerate() {
            let want = 2.5 * (-30.0 + k as f64 * 0.07).tanh();
            assert!((v - want).abs() < 1e-14, "{k}: {v} vs {want}");
        }
        let mut out = vec![1.0; 300];
        tanh_row(400.0, -2.0, 1.0, &mut out);
        assert!(out.iter().all(|v| v.is_finite()));
        assert_eq!(out[0], 1.0);
        assert_eq!(out[100], 1.0);
        assert_eq!(out[299], -1.0, "tanh(-198) = -1");
    }

    #[test]
    fn saturation_rows_are_accurate_relative_to_themselves() {
        let mut acc = vec![0.0; 400];
        let mut sech2 = vec![0.0; 400];
        add_saturation_rows(-20.0, 0.1, (3.0, 0.5), 200, &mut acc, Some(&mut sech2));
        for (k, v) in acc.iter().enumerate() {
            let x = -20.0 + k as f64 * 0.1;
            // 1 + tanh x = 2 / (1 + e^(-2x)), 1 - tanh x = 2 / (1 + e^(2x)), in long form.
            let want = if k < 200 {
                6.0 / (1.0 + (-2.0 * x).exp())
            } else {
                6.0 / (1.0 + (2.0 * x).exp())
            };
            assert!((v - want).abs() <= 1e-13 * want, "{k}: {v} vs {want}");
            let want = 0.5 / x.cosh().powi(2);
            assert!(
                (sech2[k] - want).abs() <= 1e-13 * want,
                "{k}: {} vs {want}",
                sech2[k]
            );
        }
        // Both tails are tiny and still exact to their own precision.
        assert!(acc[0] < 1e-16 && acc[0] > 0.0 && acc[399] < 1e-16 && acc[399] > 0.0);
        // Beyond e^(2z) = 1e300 the terms are saturated: 2 below the split, 0 (to 1e-299)
        // from it on.
        let mut sat = vec![0.0; 10];
        add_saturation_rows(-10.0, 200.0, (1.0, 0.0), 5, &mut sat, None);
        let long = |k: usize, below: bool| {
            let z = -10.0 + 200.0 * k as f64;
            if below {
                2.0 / (1.0 + (-2.0 * z).exp())
            } else {
                2.0 / (1.0 + (2.0 * z).exp())
            }
        };
        for (k, v) in sat.iter().enumerate() {
            let want = long(k, k < 5);
            assert!(
                (v - want).abs() <= 1e-13 * want + 1e-299,
                "{k}: {v} vs {want}"
            );
        }
    }

    #[test]
    fn lebesgue_constants_bound_the_growth_of_node_errors() {
        for q in [2, 8, 16, 24] {
            let g = UniformGrid::new(0.0, 10.0, 0.5, q);
            // Node values wrong by +-1 in the worst pattern for the point 0.3 h into a cell.
            let x = 5.15;
            let first = g.cell(x) + 1 - q / 2;
            let worst: f64 = (0..g.len())
                .map(|k| {
                    let basis = g.eval(x, |j| f64::from(u8::from(j == k)));
                    if (first..first + q).contains(&k) {
                        basis.abs()
                    } else {
                        0.0
                    }
                })
                .sum();
            assert!(worst <= g.lebesgue(), "q {q}: {worst} > {}", g.lebesgue());
            assert!(
                g.lebesgue() < 2.0 * worst + 2.0,
                "q {q}: the constant is not vacuous"
            );
        }
    }

    #[test]
    fn interpolation_error_is_within_the_bound() {
        let (s, c) = (0.01, 37.0);
        let f = |x: f64| 3.0 * ((x - c) * s / 2.0).tanh();
        let strip = std::f64::consts::PI / (2.0 * s);
        for q in [8, 12, 16] {
            let h = UniformGrid::spacing_for(q, strip, 3.0, 1e-9);
            let g = UniformGrid::new(-1500.0, 1500.0, h, q);
            let bound = g.error_bound(strip, 3.0);
            assert!(bound <= 1e-9 * 1.000_001);
            let mut worst: f64 = 0.0;
            for i in 0..=3000 {
                let x = -1500.0 + i as f64;
                worst = worst.max((g.eval(x, |k| f(g.x(k))) - f(x)).abs());
            }
            assert!(worst <= bound, "q {q}: error {worst} above bound {bound}");
            // The bound is not vacuous: the actual error is within a few orders of it.
            assert!(worst > bound * 1e-8, "q {q}: {worst} vs {bound}");
        }
    }

    #[test]
    fn grid_covers_the_interval_with_centred_stencils() {
        let g = UniformGrid::new(10.0, 20.0, 0.5, 8);
        let (a, b) = g.inner();
        assert!(g.x(a) <= 10.0 && g.x(b) >= 20.0);
        assert_eq!(g.cell(10.0), a);
        assert!(g.cell(20.0) < b);
        assert_eq!(g.eval(15.0, |k| g.x(k) * 2.0), 30.0);
        let (v, d) = g.eval_with_slope(15.3, |k| g.x(k) * g.x(k));
        assert!(
            (v - 15.3 * 15.3).abs() < 1e-9 && (d - 30.6).abs() < 1e-9,
            "{v} {d}"
        );
    }
}
