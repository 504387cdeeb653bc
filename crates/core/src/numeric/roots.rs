//! Root finders for strictly increasing functions.
//!
//! They keep a bracket `[lo, hi]` with `f(lo) < 0 < f(hi)` once one is found and never leave
//! it, so they cannot diverge: Newton's (and Halley's) method falls back to bisection whenever
//! its step would leave the bracket or stalls. (The bracket search and plain bisection serve
//! the tests, as references.)

#[cfg(test)]
/// Finds a bracket around the root of an increasing `f`, starting at `[lo, hi]` and doubling
/// the width outwards. Returns `(lo, f(lo), hi, f(hi))`, or `None` if no sign change appears
/// within 64 doublings (f bounded away from zero).
pub fn bracket(
    f: &mut impl FnMut(f64) -> f64,
    mut lo: f64,
    mut hi: f64,
) -> Option<(f64, f64, f64, f64)> {
    if lo > hi {
        std::mem::swap(&mut lo, &mut hi);
    }
    let mut width = (hi - lo).max(1.0);
    let (mut flo, mut fhi) = (f(lo), f(hi));
    for _ in 0..64 {
        if flo <= 0.0 && fhi >= 0.0 {
            return Some((lo, flo, hi, fhi));
        }
        if flo > 0.0 {
            hi = lo;
            fhi = flo;
            lo -= width;
            flo = f(lo);
        } else {
            lo = hi;
            flo = fhi;
            hi += width;
            fhi = f(hi);
        }
        width *= 2.0;
    }
    None
}

#[cfg(test)]
/// The root of a strictly increasing `f` given as `x -> (f(x), f'(x))`, searched from the
/// bracket hint `[lo, hi]` (widened as needed), to absolute tolerance `tol` on x.
pub fn newton_increasing(mut f: impl FnMut(f64) -> (f64, f64), lo: f64, hi: f64, tol: f64) -> f64 {
    let Some((lo, _, hi, _)) = bracket(&mut |x| f(x).0, lo, hi) else {
        return f64::NAN;
    };
    newton_in(f, lo, hi, 0.5 * (lo + hi), tol)
}

/// The root of a strictly increasing `f` given as `x -> (f(x), f'(x))`, by Newton's method
/// from `guess` without a bracket to begin with: until two evaluations of opposite sign
/// bracket the root, a step is limited to `width` (which doubles while steps keep hitting the
/// limit); then it goes on as [`newton_in`]. Newton's steps on a convex or concave increasing
/// function approach the root from one side, so this usually converges without ever
/// evaluating the far end of a bracket: a good guess costs two or three evaluations. NaN when
/// no root is found.
pub fn newton_from(mut f: impl FnMut(f64) -> (f64, f64), guess: f64, width: f64, tol: f64) -> f64 {
    let f = |x| {
        let (v, d) = f(x);
        (v, d, 0.0)
    };
    newton_safeguarded(f, f64::NEG_INFINITY, f64::INFINITY, guess, width, tol)
}

/// The root of a strictly increasing `f` (given as `x -> (f(x), f'(x))`) known to lie in
/// `[lo, hi]`, by Newton's method from `guess`. A step that would leave the bracket, or that
/// would not at least halve the step before last, is replaced by bisection (the classic
/// safeguard), so the bracket keeps shrinking. The bracket's ends are never evaluated.
pub fn newton_in(
    mut f: impl FnMut(f64) -> (f64, f64),
    lo: f64,
    hi: f64,
    guess: f64,
    tol: f64,
) -> f64 {
    let f = |x| {
        let (v, d) = f(x);
        (v, d, 0.0)
    };
    newton_safeguarded(f, lo, hi, guess.clamp(lo, hi), hi - lo, tol)
}

/// [`newton_in`] with Halley's correction: `f` also gives `f''`, and each step is Newton's
/// divided by `1 - f f'' / (2 f'^2)` (cubic convergence: from a guess near the root, one
/// evaluation fewer than Newton's method), under the same safeguards; where the correction
/// is far from 1 the step is Newton's.
pub fn halley_in(
    f: impl FnMut(f64) -> (f64, f64, f64),
    lo: f64,
    hi: f64,
    guess: f64,
    tol: f64,
) -> f64 {
    newton_safeguarded(f, lo, hi, guess.clamp(lo, hi), hi - lo, tol)
}

/// [`newton_from`] with Halley's correction (see [`halley_in`]).
pub fn halley_from(f: impl FnMut(f64) -> (f64, f64, f64), guess: f64, width: f64, tol: f64) -> f64 {
    newton_safeguarded(f, f64::NEG_INFINITY, f64::INFINITY, guess, width, tol)
}

/// All of the above: `[lo, hi]` brackets the root, an end may be infinite (not yet known).
/// Where bisection is called for and an end is still infinite, the step is `width` towards
/// the root, doubling each time.
fn newton_safeguarded(
    mut f: impl FnMut(f64) -> (f64, f64, f64),
    mut lo: f64,
    mut hi: f64,
    mut x: f64,
    mut width: f64,
    tol: f64,
) -> f64 {
    let mut step_before = hi - lo;
    let mut step = step_before;
    for _ in 0..200 {
        let (v, d, d2) = f(x);
        if v == 0.0 {
            return x;
        }
        if v < 0.0 {
            lo = x;
        } else {
            hi = x;
        }
        // Halley's correction (exactly 1 without a second derivative, for Newton's method).
        let correction = match 1.0 - v * d2 / (2.0 * d * d) {
            c if (0.5..=2.0).contains(&c) => c,
            _ => 1.0,
        };
        let delta = v / d / correction;
        let newton = x - delta;
        if d > 0.0 && delta.abs() <= tol && newton >= lo && newton <= hi {
            // Converged: the remaining step is below the tolerance (near the root the
            // function's rounding noise must not send it bisecting).
            return newton;
        }
        let bisect = d.is_nan()
            || d <= 0.0
            || newton <= lo
            || newton >= hi
            || (2.0 * v).abs() > (step_before * d * correction).abs();
        step_before = step;
        let next = if lo.is_finite() && hi.is_finite() {
            if bisect { 0.5 * (lo + hi) } else { newton }
        } else if !bisect && (newton - x).abs() < width {
            newton
        } else {
            let towards = if v < 0.0 { width } else { -width };
            width *= 2.0;
            x + towards
        };
        step = (next - x).abs();
        x = next;
        if step <= tol || hi - lo <= tol {
            return x;
        }
    }
    if lo.is_finite() && hi.is_finite() {
        x
    } else {
        f64::NAN
    }
}

#[cfg(test)]
/// Plain bisection of an increasing `f` on `[lo, hi]` down to width `tol` (for tests).
pub fn bisect(mut f: impl FnMut(f64) -> f64, mut lo: f64, mut hi: f64, tol: f64) -> f64 {
    while hi - lo > tol {
        let mid = 0.5 * (lo + hi);
        if mid <= lo || mid >= hi {
            break;
        }
        if f(mid) < 0.0 {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    0.5 * (lo + hi)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn newton_finds_roots_from_far_brackets() {
        let f = |x: f64| {
            (
                (x - 1234.5).tanh() + 0.25 * (x - 1234.5),
                1.0 - (x - 1234.5).tanh().powi(2) + 0.25,
            )
        };
        let r = newton_increasing(f, 0.0, 1.0, 1e-12);
        assert!((r - 1234.5).abs() < 1e-9, "{r}");
        // A function with a tiny derivative far from the root: bisection keeps it safe.
        let g = |x: f64| {
            (
                (x / 100.0).tanh() - 0.999_999,
                (1.0 - (x / 100.0).tanh().powi(2)) / 100.0,
            )
        };
        let r = newton_increasing(g, -5000.0, -4000.0, 1e-10);
        assert!(((r / 100.0).tanh() - 0.999_999).abs() < 1e-12, "{r}");
    }

    #[test]
    fn newton_in_a_known_bracket_from_a_guess() {
        let f = |x: f64| {
            (
                (x - 3.0).tanh() + 0.1 * x,
                1.0 - (x - 3.0).tanh().powi(2) + 0.1,
            )
        };
        let want = bisect(|x| f(x).0, -100.0, 100.0, 1e-13);
        for guess in [-100.0, 0.0, 2.9, 50.0, 100.0] {
            let r = newton_in(f, -100.0, 100.0, guess, 1e-12);
            assert!((r - want).abs() < 1e-10, "{guess}: {r} vs {want}");
        }
    }

    #[test]
    fn halleys_steps_reach_the_same_root_in_fewer_evaluations() {
        // x^3 + x - 10 has its root at 2.
        let calls = std::cell::Cell::new(0);
        let f3 = |x: f64| {
            calls.set(calls.get() + 1);
            (x.powi(3) + x - 10.0, 3.0 * x * x + 1.0, 6.0 * x)
        };
        let r = halley_in(f3, -10.0, 10.0, 1.5, 1e-12);
        let halley = calls.replace(0);
        let n = newton_in(|x| (f3(x).0, f3(x).1), -10.0, 10.0, 1.5, 1e-12);
        let newton = calls.get() / 2;
        assert!(
            (r - 2.0).abs() < 1e-12 && (n - 2.0).abs() < 1e-12,
            "{r} {n}"
        );
        assert!(
            halley < newton,
            "{halley} evaluations against Newton's {newton}"
        );
        // A bad guess still converges inside the bracket.
        let far = halley_in(f3, -10.0, 10.0, -9.0, 1e-12);
        assert!((far - 2.0).abs() < 1e-12, "{far}");
    }

    #[test]
    fn newton_from_a_guess_matches_the_bracketed_search() {
        // Convex, concave and flat-tailed increasing functions, guesses on both sides.
        type WithSlope = fn(f64) -> (f64, f64);
        let cases: [(WithSlope, f64); 3] = [
            (|x| (x.exp() - 5.0, x.exp()), 5f64.ln()),
            (
                |x| (x.tanh() - 0.999, 1.0 - x.tanh().powi(2)),
                0.999f64.atanh(),
            ),
            (|x| (x.powi(3) + x - 2.0, 3.0 * x * x + 1.0), 1.0),
        ];
        for (f, root) in cases {
            for guess in [-3.0, 0.0, 0.5, 2.0, 8.0] {
                let got = newton_from(f, guess, 1.0, 1e-12);
                assert!((got - root).abs() < 1e-10, "guess {guess}: {got} vs {root}");
            }
        }
        // A function with no root gives NaN rather than looping for ever.
        assert!(newton_from(|x: f64| (1.0 + 0.5 * x.tanh(), 0.5), 0.0, 1.0, 1e-9).is_nan());
    }

    #[test]
    fn bracket_expands_in_both_directions() {
        let (lo, flo, hi, fhi) = bracket(&mut |x| x - 1000.0, 0.0, 1.0).unwrap();
        assert!(lo <= 1000.0 && hi >= 1000.0 && flo <= 0.0 && fhi >= 0.0);
        let (lo, _, hi, _) = bracket(&mut |x| x + 1000.0, 0.0, 1.0).unwrap();
        assert!(lo <= -1000.0 && hi >= -1000.0);
        assert!(bracket(&mut |x: f64| 1.0 + x.tanh() * 0.5, 0.0, 1.0).is_none());
    }
}
