//! Numeric helpers shared by the systems and the metrics: win probabilities, the normal
//! distribution, root finders (`roots`) and tabulation with local interpolation (`uniform`).

pub mod roots;
pub mod uniform;

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

/// 1 / sqrt(2 pi)
const FRAC_1_SQRT_2PI: f64 = 0.398_942_280_401_432_7;

/// The standard normal density.
#[inline]
pub fn normal_pdf(z: f64) -> f64 {
    FRAC_1_SQRT_2PI * (-0.5 * z * z).exp()
}

/// The standard normal distribution function, accurate in both tails (through `erfc`).
#[inline]
pub fn normal_cdf(z: f64) -> f64 {
    0.5 * libm::erfc(-z / std::f64::consts::SQRT_2)
}

/// `phi(z) / Phi(z)`: the hazard of losing to a normal variable, accurate to a few 1e-14 for
/// every z (below z = -20 the ratio of two tiny numbers loses digits, and an asymptotic series
/// takes over).
#[inline]
pub fn normal_pdf_over_cdf(z: f64) -> f64 {
    if z > -20.0 {
        normal_pdf(z) / normal_cdf(z)
    } else {
        // Phi(z) = phi(z)/(-z) (1 - 1/z^2 + 3/z^4 - 15/z^6 + ...), the terms (2k-1)!!/z^2k.
        -z / mills_series(1.0 / (z * z))
    }
}

/// `1 - u + 3u^2 - 15u^3 + ...` to the term `(2k-1)!! u^k` for k = 12 (relative error below
/// 1e-19 for u <= 1/20^2).
fn mills_series(u: f64) -> f64 {
    let mut acc = 1.0;
    for k in (1..=12).rev() {
        acc = 1.0 - (2 * k - 1) as f64 * u * acc;
    }
    acc
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

    #[test]
    fn normal_distribution_and_its_hazard() {
        assert!((normal_cdf(0.0) - 0.5).abs() < 1e-16);
        assert!((normal_cdf(1.0) - 0.841_344_746_068_542_9).abs() < 1e-15);
        assert!((normal_cdf(-5.0) - 2.866_515_718_791_939e-7).abs() < 1e-21);
        // Against mpmath (40 digits) on both sides of the switch to the series and far out.
        for (z, want) in [
            (-5.0, 5.186_503_967_125_842),
            (-19.999, 20.048_755_531_910_834),
            (-20.0, 20.049_753_068_527_85),
            (-35.0, 35.028_524_970_596_69),
            (-60.0, 60.016_657_420_241_125),
        ] {
            let got = normal_pdf_over_cdf(z);
            assert!((got - want).abs() / want < 5e-14, "{z}: {got} vs {want}");
        }
        assert!((normal_pdf_over_cdf(2.0) - normal_pdf(2.0) / normal_cdf(2.0)).abs() < 1e-16);
    }
}
