//! Small numeric helpers shared by the systems and the metrics.

use std::f64::consts::{FRAC_1_SQRT_2, LN_10, PI};

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

/// The standard normal distribution function `Phi(x) = erfc(-x / sqrt 2) / 2`, accurate in
/// both tails (libm's `erfc`).
#[inline]
pub fn normal_cdf(x: f64) -> f64 {
    0.5 * libm::erfc(-x * FRAC_1_SQRT_2)
}

/// The inverse of [`normal_cdf`]: the x with `Phi(x) = p`, for p in [0, 1] (-inf at 0, +inf at
/// 1, NaN outside).
///
/// Acklam's rational approximation (relative error below 1.2e-9 over the whole range), then
/// one Halley step on `Phi(x) - p` with libm's `erfc`, which brings it to a few units in the
/// last place. Below 1/2 the lower tail is solved directly; above, `1 - p` (exact for
/// p >= 1/2) is solved and the sign flipped, so that the tail that matters is never computed
/// as a difference of nearly equal numbers.
pub fn normal_quantile(p: f64) -> f64 {
    if p.is_nan() || !(0.0..=1.0).contains(&p) {
        return f64::NAN;
    }
    if p > 0.5 {
        return -lower_quantile(1.0 - p);
    }
    lower_quantile(p)
}

/// [`normal_quantile`] for p in [0, 1/2].
fn lower_quantile(p: f64) -> f64 {
    if p == 0.0 {
        return f64::NEG_INFINITY;
    }
    if p == 0.5 {
        return 0.0;
    }
    // Acklam's coefficients.
    const A: [f64; 6] = [
        -3.969_683_028_665_376e1,
        2.209_460_984_245_205e2,
        -2.759_285_104_469_687e2,
        1.383_577_518_672_69e2,
        -3.066_479_806_614_716e1,
        2.506_628_277_459_239,
    ];
    const B: [f64; 5] = [
        -5.447_609_879_822_406e1,
        1.615_858_368_580_409e2,
        -1.556_989_798_598_866e2,
        6.680_131_188_771_972e1,
        -1.328_068_155_288_572e1,
    ];
    const C: [f64; 6] = [
        -7.784_894_002_430_293e-3,
        -3.223_964_580_411_365e-1,
        -2.400_758_277_161_838,
        -2.549_732_539_343_734,
        4.374_664_141_464_968,
        2.938_163_982_698_783,
    ];
    const D: [f64; 4] = [
        7.784_695_709_041_462e-3,
        3.224_671_290_700_398e-1,
        2.445_134_137_142_996,
        3.754_408_661_907_416,
    ];
    const P_LOW: f64 = 0.02425;
    let x = if p < P_LOW {
        let q = (-2.0 * p.ln()).sqrt();
        (((((C[0] * q + C[1]) * q + C[2]) * q + C[3]) * q + C[4]) * q + C[5])
            / ((((D[0] * q + D[1]) * q + D[2]) * q + D[3]) * q + 1.0)
    } else {
        let q = p - 0.5;
        let r = q * q;
        (((((A[0] * r + A[1]) * r + A[2]) * r + A[3]) * r + A[4]) * r + A[5]) * q
            / (((((B[0] * r + B[1]) * r + B[2]) * r + B[3]) * r + B[4]) * r + 1.0)
    };
    // Halley's step: e = Phi(x) - p, u = e / phi(x).
    let e = normal_cdf(x) - p;
    let u = e * (2.0 * PI).sqrt() * (0.5 * x * x).exp();
    x - u / (1.0 + 0.5 * x * u)
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
    fn normal_quantile_to_1e12() {
        // Reference values: Python's statistics.NormalDist().inv_cdf (Wichura's AS 241,
        // accurate to about 1e-16).
        let cases = [
            (1e-300, -37.0470962993612),
            (1e-100, -21.27345356096532),
            (1e-20, -9.262340089798405),
            (1e-10, -6.361340902404056),
            (1e-5, -4.2648907939228256),
            (0.001, -3.090232306167813),
            (0.02425, -1.9729610513118845),
            (0.025, -1.9599639845400538),
            (0.1, -1.2815515655446008),
            (0.3, -0.5244005127080407),
            (0.5, 0.0),
            (0.7, 0.5244005127080407),
            (0.9, 1.2815515655446008),
            (0.97575, 1.9729610513118847),
            (0.975, 1.9599639845400536),
            (0.999, 3.090232306167813),
        ];
        for (p, want) in cases {
            let got = normal_quantile(p);
            assert!(
                (got - want).abs() <= 1e-12 * want.abs().max(1.0),
                "p {p}: {got} vs {want}"
            );
        }
        assert_eq!(normal_quantile(0.0), f64::NEG_INFINITY);
        assert_eq!(normal_quantile(1.0), f64::INFINITY);
        assert!(normal_quantile(-0.1).is_nan() && normal_quantile(1.5).is_nan());
    }

    #[test]
    fn normal_quantile_inverts_the_cdf_on_a_grid() {
        for k in 1..2000 {
            let p = k as f64 / 2000.0;
            let x = normal_quantile(p);
            assert!((normal_cdf(x) - p).abs() < 1e-15, "{p}");
            // Symmetric to the last bits.
            assert!((x + normal_quantile(1.0 - p)).abs() < 1e-12, "{p}");
        }
        for e in 1..300 {
            let p = 10f64.powi(-e);
            let x = normal_quantile(p);
            // Phi's relative slope is about |x| there, so x's rounding (|x| ulp) shows up
            // about x^2 times larger in the round trip.
            assert!(
                ((normal_cdf(x) - p) / p).abs() < 1e-15 * (4.0 + x * x),
                "1e-{e}"
            );
        }
        assert!((normal_cdf(1.959963984540054) - 0.975).abs() < 1e-15);
    }
}
