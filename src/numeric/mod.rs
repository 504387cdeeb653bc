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

/// `e^x` in plain arithmetic that the compiler can vectorise (the library `exp` is a call), for
/// the O(n^2) loops of the all-pairs systems. Cody-Waite reduction `x = n ln 2 + r` with
/// `|r| <= ln 2 / 2`, Taylor polynomial of degree 13 (truncation below 1e-17), and `2^n` built
/// from its bits; within a few units in the last place of `f64::exp`. `x` is clamped to
/// [-700, 700] (`e^-700` = 1e-304 stands for anything smaller, `e^700` = 1e304 for anything
/// larger); NaN gives NaN.
#[inline(always)]
pub fn exp_vectorisable(x: f64) -> f64 {
    const LOG2_E: f64 = std::f64::consts::LOG2_E;
    // fdlibm's split of ln 2: n * LN2_HI is exact for |n| < 2^11.
    const LN2_HI: f64 = f64::from_bits(0x3fe6_2e42_fee0_0000);
    const LN2_LO: f64 = f64::from_bits(0x3dea_39ef_3579_3c76);
    // Adding 1.5 * 2^52 rounds to an integer (to nearest) and leaves it in the low bits.
    const SHIFTER: f64 = 6_755_399_441_055_744.0;
    let x = x.clamp(-700.0, 700.0);
    let t = x * LOG2_E + SHIFTER;
    let n = t - SHIFTER;
    let r = (x - n * LN2_HI) - n * LN2_LO;
    // sum r^k / k!, k = 0..=13, by Horner.
    let mut p = 1.0 / 6_227_020_800.0;
    p = p * r + 1.0 / 479_001_600.0;
    p = p * r + 1.0 / 39_916_800.0;
    p = p * r + 1.0 / 3_628_800.0;
    p = p * r + 1.0 / 362_880.0;
    p = p * r + 1.0 / 40_320.0;
    p = p * r + 1.0 / 5_040.0;
    p = p * r + 1.0 / 720.0;
    p = p * r + 1.0 / 120.0;
    p = p * r + 1.0 / 24.0;
    p = p * r + 1.0 / 6.0;
    p = p * r + 0.5;
    p = p * r + 1.0;
    p = p * r + 1.0;
    // 2^n: the integer n sits in the low bits of t.
    let scale = f64::from_bits(
        t.to_bits()
            .wrapping_sub(SHIFTER.to_bits())
            .wrapping_add(1023)
            << 52,
    );
    p * scale
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
    fn vectorisable_exp_is_within_a_few_ulp_of_the_library_exp() {
        let mut worst = 0.0f64;
        for k in -699_000..=699_000 {
            let x = k as f64 * 1e-3 + 1.234_567e-4;
            let (got, want) = (exp_vectorisable(x), x.exp());
            worst = worst.max(((got - want) / want).abs());
        }
        assert!(worst < 5e-16, "{worst:e}");
        assert_eq!(exp_vectorisable(0.0), 1.0);
        assert_eq!(exp_vectorisable(-1e9), (-700.0f64).exp());
        assert!(exp_vectorisable(f64::NAN).is_nan());
    }

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
