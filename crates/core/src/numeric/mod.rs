//! Numeric helpers shared by the systems and the metrics: win probabilities, the normal
//! distribution, root finders (`roots`) and tabulation with local interpolation (`uniform`).

pub mod cg;
pub mod chebyshev;
pub mod gauss;
pub mod roots;
pub mod shared;
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

/// `floor(n * fraction)`, the number of items in the first `fraction` of `n` (the warm-up, the
/// tuning part), exact where `n * fraction` is a whole number that floating point rounds just
/// below it (100 * 0.29 = 28.999999999999996 counts 29). `fraction` is clamped to [0, 1].
pub fn first_share(n: usize, fraction: f64) -> usize {
    let x = n as f64 * fraction.clamp(0.0, 1.0);
    let nearest = x.round();
    let k = if (x - nearest).abs() <= 1e-9 * nearest.max(1.0) {
        nearest
    } else {
        x.floor()
    };
    (k as usize).min(n)
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
    0.5 * erfc(-z / std::f64::consts::SQRT_2)
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

unsafe extern "C" {
    /// The complementary error function, from the C library that std links: glibc's is
    /// within an ulp and several times faster than the `libm` crate's (whose exponentials are
    /// plain Rust; on Codeforces, Elo-MMchi spent 40 % of its time there).
    pub safe fn erfc(x: f64) -> f64;
}

/// Both hazards at once, `(phi(z)/Phi(z), phi(z)/Phi(-z))`, from one `exp` and one `erfc`:
/// the smaller tail comes from `erfc` and the larger one as its complement (at least 1/2, so
/// no digits are lost). Equal to [`normal_pdf_over_cdf`] at z and -z to rounding.
#[inline]
pub fn normal_hazards(z: f64) -> (f64, f64) {
    if z.abs() >= 20.0 {
        return (normal_pdf_over_cdf(z), normal_pdf_over_cdf(-z));
    }
    let phi = normal_pdf(z);
    let small = 0.5 * erfc(z.abs() / std::f64::consts::SQRT_2);
    let big = 1.0 - small;
    if z >= 0.0 {
        (phi / big, phi / small)
    } else {
        (phi / small, phi / big)
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

/// Maps `f` over `0..n`, on rayon's threads when n is at least `parallel_from`. Each item is
/// computed by the same code either way, so the results do not depend on the thread count.
pub(crate) fn map_indices<T: Send>(
    n: usize,
    parallel_from: usize,
    f: impl Fn(usize) -> T + Sync + Send,
) -> Vec<T> {
    use rayon::prelude::*;
    if n >= parallel_from {
        (0..n).into_par_iter().map(f).collect()
    } else {
        (0..n).map(f).collect()
    }
}

/// Asks the CPU to start loading the cache line holding `p` (a hint: nothing is read, and an
/// address that is not mapped is ignored).
#[inline(always)]
pub(crate) fn prefetch<T>(p: *const T) {
    #[cfg(target_arch = "x86_64")]
    // SAFETY: a prefetch never faults and reads nothing; SSE, its instruction set, is part
    // of every x86-64 CPU.
    unsafe {
        use std::arch::x86_64::{_MM_HINT_T0, _mm_prefetch};
        _mm_prefetch::<_MM_HINT_T0>(p.cast::<i8>());
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = p;
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_first_share_is_the_exact_floor() {
        // 100 * 0.29 and 100 * 0.57 fall just below 29 and 57 in floating point.
        assert_eq!((100.0 * 0.29f64).floor(), 28.0);
        assert_eq!(first_share(100, 0.29), 29);
        assert_eq!(first_share(100, 0.57), 57);
        // Every fraction k / 100 of every n up to 1000 is n k / 100 by integer division.
        for n in 0..=1000usize {
            for k in 0..=100usize {
                assert_eq!(first_share(n, k as f64 / 100.0), n * k / 100, "{n} {k}");
            }
        }
        assert_eq!(first_share(7, 0.5), 3);
        assert_eq!(first_share(10, 1.5), 10);
        assert_eq!(first_share(10, -1.0), 0);
    }

    #[test]
    fn both_hazards_at_once_match_each_alone() {
        for k in -4000..=4000 {
            let z = k as f64 * 0.01 + 0.003;
            let (a, b) = normal_hazards(z);
            let (wa, wb) = (normal_pdf_over_cdf(z), normal_pdf_over_cdf(-z));
            // Relative agreement (both underflow to 0 together far in the tail).
            let close = |x: f64, w: f64| x == w || ((x - w) / w).abs() < 1e-13;
            assert!(close(a, wa), "z {z}: {a} vs {wa}");
            assert!(close(b, wb), "z {z}: {b} vs {wb}");
        }
    }

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
