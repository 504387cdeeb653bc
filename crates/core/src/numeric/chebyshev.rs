//! Interpolation at Chebyshev points (of the second kind) by the barycentric formula, with
//! the degree chosen from the Bernstein-ellipse bound (Trefethen, "Approximation Theory and
//! Approximation Practice", theorems 8.2 and 5.1): if f is analytic in the open ellipse with
//! foci -1, 1 and semi-axes summing to `rho`, and `|f| <= M` there, the interpolant of degree
//! n in the n + 1 points `cos(pi j / n)` is within `4 M rho^-n / (rho - 1)` of f on [-1, 1].

use std::f64::consts::PI;

/// The points `cos(pi j / n)`, j = 0..=n, and their barycentric weights (`(-1)^j`, halved at
/// both ends).
pub fn points_and_weights(degree: usize) -> (Vec<f64>, Vec<f64>) {
    if degree == 0 {
        return (vec![0.0], vec![1.0]);
    }
    let t = (0..=degree)
        .map(|j| (PI * j as f64 / degree as f64).cos())
        .collect();
    let w = (0..=degree)
        .map(|j| {
            let s = if j % 2 == 0 { 1.0 } else { -1.0 };
            if j == 0 || j == degree { s / 2.0 } else { s }
        })
        .collect();
    (t, w)
}

/// The `rho` of the largest ellipse inside the strip `|Im t| < b` (in units of the interval's
/// half-length): semi-minor axis `(rho - 1/rho) / 2 = b`.
pub fn rho_for_strip(b: f64) -> f64 {
    b + (b * b + 1.0).sqrt()
}

/// The smallest degree whose bound `4 M rho^-n / (rho - 1)` is at most `tolerance`, or
/// `None` beyond `max_degree`.
pub fn degree_for(rho: f64, m: f64, tolerance: f64, max_degree: usize) -> Option<usize> {
    if !(rho > 1.0 && m.is_finite() && tolerance > 0.0) {
        return None;
    }
    let need = (4.0 * m / ((rho - 1.0) * tolerance)).ln() / rho.ln();
    if need.is_nan() {
        return None;
    }
    let n = need.max(0.0).ceil() as usize;
    (n <= max_degree).then_some(n)
}

#[cfg(test)]
/// The barycentric terms `w_j / (t - t_j)` of the point t, or the index of the node t is.
pub enum At {
    /// t is node j.
    Node(usize),
    /// `w_j / (t - t_j)` for every j, and their sum.
    Between(Vec<f64>, f64),
}

#[cfg(test)]
/// The barycentric terms at t.
pub fn at(t: f64, nodes: &[f64], weights: &[f64]) -> At {
    if let Some(j) = nodes.iter().position(|&x| x == t) {
        return At::Node(j);
    }
    let c: Vec<f64> = nodes
        .iter()
        .zip(weights)
        .map(|(x, w)| w / (t - x))
        .collect();
    let sum = c.iter().sum();
    At::Between(c, sum)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn interpolate(t: f64, nodes: &[f64], weights: &[f64], values: &[f64]) -> f64 {
        match at(t, nodes, weights) {
            At::Node(j) => values[j],
            At::Between(c, sum) => c.iter().zip(values).map(|(c, v)| c * v).sum::<f64>() / sum,
        }
    }

    #[test]
    fn the_interpolant_meets_its_bound() {
        // f(t) = 1 / (t - 1.5i)(t + 1.5i) = 1 / (t^2 + 2.25): poles at +-1.5i, so analytic in
        // the ellipse of semi-minor axis 1.2 (rho = 1.2 + sqrt(2.44)), where |f| <= 1 /
        // (2.25 - 1.44) on the imaginary axis and less elsewhere: bounded by 1/0.81.
        let f = |t: f64| 1.0 / (t * t + 2.25);
        let rho = rho_for_strip(1.2);
        let m = 1.0 / 0.81;
        for tol in [1e-6, 1e-10, 1e-13] {
            let n = degree_for(rho, m, tol, 200).unwrap();
            let (nodes, weights) = points_and_weights(n);
            let values: Vec<f64> = nodes.iter().map(|&t| f(t)).collect();
            let worst = (0..=1000)
                .map(|i| -1.0 + 2.0 * i as f64 / 1000.0)
                .map(|t| (interpolate(t, &nodes, &weights, &values) - f(t)).abs())
                .fold(0.0, f64::max);
            assert!(worst <= tol, "degree {n}: {worst} > {tol}");
            // Not vacuous: two degrees fewer miss a tolerance ten times as tight.
            let (nodes, weights) = points_and_weights(n - 2);
            let values: Vec<f64> = nodes.iter().map(|&t| f(t)).collect();
            let worst = (0..=1000)
                .map(|i| -1.0 + 2.0 * i as f64 / 1000.0)
                .map(|t| (interpolate(t, &nodes, &weights, &values) - f(t)).abs())
                .fold(0.0, f64::max);
            assert!(worst > tol / 1e3, "degree {}: {worst}", n - 2);
        }
        assert!(degree_for(rho, m, 1e-300, 50).is_none());
        assert!(degree_for(rho, f64::NAN, 1e-10, 50).is_none());
    }
}
