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
}
