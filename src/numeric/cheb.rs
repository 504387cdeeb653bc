//! Piecewise Chebyshev interpolation: an interval cut into equal pieces, each sampled at `m`
//! Chebyshev points of the second kind (the piece's ends included and shared with its
//! neighbours), and evaluated with the barycentric formula, which is exact at the nodes and
//! numerically stable between them.
//!
//! For a function analytic and bounded by `M` in the strip `|Im x| < h` around the real axis,
//! the interpolant on a piece of half-width `r` errs by at most `4 M rho^-(m-1) / (rho - 1)`
//! with `rho = h/r + sqrt((h/r)^2 + 1)`: the Bernstein ellipse of that `rho` has semi-minor
//! axis `h` and so lies in the strip (Trefethen, Approximation Theory and Approximation
//! Practice, theorem 8.2). [`error_bound`] computes it.

/// An interval `[lo, hi]` cut into `pieces` equal pieces with `m` nodes each.
#[derive(Clone, Debug)]
pub struct Grid {
    lo: f64,
    width: f64,
    pieces: usize,
    m: usize,
    nodes: Vec<f64>,
    weights: Vec<f64>,
}

impl Grid {
    /// A grid on `[lo, hi]` (`lo < hi`), `pieces >= 1`, `m >= 2`.
    pub fn new(lo: f64, hi: f64, pieces: usize, m: usize) -> Self {
        assert!(
            hi > lo && pieces >= 1 && m >= 2,
            "bad grid {lo} {hi} {pieces} {m}"
        );
        let width = (hi - lo) / pieces as f64;
        let mut nodes = Vec::with_capacity(pieces * (m - 1) + 1);
        for q in 0..pieces {
            let a = lo + q as f64 * width;
            for k in 0..m - 1 {
                // Increasing order: -cos(k pi / (m - 1)) runs from -1 to 1.
                let t = -(std::f64::consts::PI * k as f64 / (m - 1) as f64).cos();
                nodes.push(a + 0.5 * width * (t + 1.0));
            }
        }
        nodes.push(hi);
        let weights = (0..m)
            .map(|k| {
                let sign = if k % 2 == 0 { 1.0 } else { -1.0 };
                if k == 0 || k == m - 1 {
                    0.5 * sign
                } else {
                    sign
                }
            })
            .collect();
        Self {
            lo,
            width,
            pieces,
            m,
            nodes,
            weights,
        }
    }

    /// All nodes, increasing.
    pub fn nodes(&self) -> &[f64] {
        &self.nodes
    }

    /// Number of pieces.
    pub fn pieces(&self) -> usize {
        self.pieces
    }

    /// Nodes per piece.
    pub fn m(&self) -> usize {
        self.m
    }

    /// Left end of the interval.
    pub fn lo(&self) -> f64 {
        self.lo
    }

    /// Right end of the interval.
    pub fn hi(&self) -> f64 {
        self.nodes[self.nodes.len() - 1]
    }

    /// Index of the node at the start of piece `q` (`q == pieces` gives the last node).
    pub fn boundary(&self, q: usize) -> usize {
        q * (self.m - 1)
    }

    /// The node indices of piece `q`.
    pub fn piece_nodes(&self, q: usize) -> std::ops::Range<usize> {
        let b = self.boundary(q);
        b..b + self.m
    }

    /// Half the width of a piece.
    pub fn half_width(&self) -> f64 {
        0.5 * self.width
    }

    /// Evaluates at `x` the interpolant of piece `q` through `values` (its `m` node values).
    pub fn eval(&self, q: usize, values: &[f64], x: f64) -> f64 {
        let nodes = &self.nodes[self.piece_nodes(q)];
        let (mut num, mut den) = (0.0, 0.0);
        for ((&xk, &fk), &wk) in nodes.iter().zip(values).zip(&self.weights) {
            let d = x - xk;
            if d == 0.0 {
                return fk;
            }
            let c = wk / d;
            num += c * fk;
            den += c;
        }
        num / den
    }
}

/// The interpolation error bound of the module documentation, for pieces of half-width `r`
/// with `m` nodes, for a function analytic and bounded by `bound` in the strip `|Im x| < strip`.
pub fn error_bound(r: f64, m: usize, strip: f64, bound: f64) -> f64 {
    let a = strip / r;
    let rho = a + (a * a + 1.0).sqrt();
    4.0 * bound * rho.powi(-(m as i32 - 1)) / (rho - 1.0)
}

/// The smallest `m` (at least 4) whose [`error_bound`] is at most `target`, or `None` past 200.
pub fn nodes_for(r: f64, strip: f64, bound: f64, target: f64) -> Option<usize> {
    (4..=200).find(|&m| error_bound(r, m, strip, bound) <= target)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nodes_are_increasing_and_shared_at_boundaries() {
        let g = Grid::new(-2.0, 4.0, 3, 5);
        assert_eq!(g.nodes().len(), 3 * 4 + 1);
        assert!(g.nodes().windows(2).all(|w| w[0] < w[1]));
        assert_eq!(g.nodes()[g.boundary(1)], 0.0);
        assert_eq!(g.nodes()[g.boundary(3)], 4.0);
        assert_eq!(g.piece_nodes(2), 8..13);
    }

    #[test]
    fn interpolation_error_is_within_the_bound() {
        // tanh((x - c) s / 2) is bounded by 1 for |Im x| <= pi / (2 s).
        let (s, c) = (0.01, 37.0);
        let f = |x: f64| ((x - c) * s / 2.0).tanh();
        let g = Grid::new(-1500.0, 1500.0, 6, 30);
        let strip = std::f64::consts::PI / (2.0 * s);
        let bound = error_bound(g.half_width(), g.m(), strip, 1.0);
        let mut worst: f64 = 0.0;
        for q in 0..g.pieces() {
            let values: Vec<f64> = g.nodes()[g.piece_nodes(q)].iter().map(|&x| f(x)).collect();
            let (a, b) = (g.nodes()[g.boundary(q)], g.nodes()[g.boundary(q + 1)]);
            for i in 0..=200 {
                let x = a + (b - a) * i as f64 / 200.0;
                worst = worst.max((g.eval(q, &values, x) - f(x)).abs());
            }
        }
        assert!(worst <= bound, "error {worst} above bound {bound}");
        assert!(bound < 1e-6, "the bound is useful: {bound}");
        assert_eq!(nodes_for(g.half_width(), strip, 1.0, bound), Some(30));
    }
}
