//! Small numeric helpers shared by the systems and the metrics.

use std::f64::consts::{LN_10, PI};

/// Elo's win probability of a player `diff` rating points above the opponent:
/// `1 / (1 + 10^(-diff/scale))`.
#[inline]
pub fn elo_win_probability(diff: f64, scale: f64) -> f64 {
    1.0 / (1.0 + (-diff * LN_10 / scale).exp())
}

/// `q = ln(10) / scale`, the slope constant of the logistic curve in rating units
/// (Glickman's q for scale 400).
#[inline]
pub fn logistic_q(scale: f64) -> f64 {
    LN_10 / scale
}

/// Glicko's attenuation `g(phi) = 1 / sqrt(1 + 3 q^2 phi^2 / pi^2)`.
#[inline]
pub fn glicko_g(phi: f64, q: f64) -> f64 {
    1.0 / (1.0 + 3.0 * q * q * phi * phi / (PI * PI)).sqrt()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn elo_probability_of_400_points_is_ten_to_one() {
        assert!((elo_win_probability(400.0, 400.0) - 10.0 / 11.0).abs() < 1e-15);
        assert!((elo_win_probability(-400.0, 400.0) - 1.0 / 11.0).abs() < 1e-15);
        assert_eq!(elo_win_probability(0.0, 400.0), 0.5);
    }

    #[test]
    fn g_of_glickman_example() {
        // Glickman's Glicko paper: g(30) = 0.9955, g(100) = 0.9531, g(300) = 0.7242.
        let q = logistic_q(400.0);
        assert!((glicko_g(30.0, q) - 0.9955).abs() < 5e-5);
        assert!((glicko_g(100.0, q) - 0.9531).abs() < 5e-5);
        assert!((glicko_g(300.0, q) - 0.7242).abs() < 5e-5);
        assert_eq!(glicko_g(0.0, q), 1.0);
    }
}
