//! Preconditioned conjugate gradients, for the systems fitted by Newton's method on the whole
//! history (Bradley-Terry's ratings, whole-history rating's days): each Newton step's linear
//! system is symmetric positive definite and sparse.

/// Solves `A v = b`, `A` symmetric positive definite, by conjugate gradients. `apply(x, out)`
/// writes `A x`, `precondition(r, z)` writes `M^-1 r`, and `dot` is the inner product (the
/// caller's, so that its order of summation, and the bits, are the caller's to fix). Stops
/// when the largest component of the preconditioned residual (the step still to take, by
/// the preconditioner) is at most `tol`, when the curvature along a direction is not
/// positive (or NaN), or after `max_steps`.
pub fn conjugate_gradients(
    b: &[f64],
    apply: impl Fn(&[f64], &mut [f64]),
    precondition: impl Fn(&[f64], &mut [f64]),
    dot: impl Fn(&[f64], &[f64]) -> f64,
    (tol, max_steps): (f64, usize),
) -> Vec<f64> {
    let n = b.len();
    let mut v = vec![0.0; n];
    let mut r = b.to_vec();
    let mut z = vec![0.0; n];
    precondition(&r, &mut z);
    let mut p = z.clone();
    let mut ap = vec![0.0; n];
    let mut rz = dot(&r, &z);
    let positive = |x: f64| x.partial_cmp(&0.0) == Some(std::cmp::Ordering::Greater);
    for _ in 0..max_steps {
        let left = z.iter().fold(0.0f64, |m, s| m.max(s.abs()));
        // (NaN stops it too.)
        if !positive(left - tol) {
            break;
        }
        apply(&p, &mut ap);
        let pap = dot(&p, &ap);
        if !positive(pap) {
            break;
        }
        let alpha = rz / pap;
        for i in 0..n {
            v[i] += alpha * p[i];
            r[i] -= alpha * ap[i];
        }
        precondition(&r, &mut z);
        let rz_new = dot(&r, &z);
        let beta = rz_new / rz;
        rz = rz_new;
        for i in 0..n {
            p[i] = z[i] + beta * p[i];
        }
    }
    v
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A 3 x 3 system solved by hand: [[4, 1, 0], [1, 3, 1], [0, 1, 2]] v = [1, 2, 3] has
    /// v = (1/18) [4, 2, 26] (Cramer's rule; the determinant is 18).
    #[test]
    fn solves_a_small_system() {
        let a = [[4.0, 1.0, 0.0], [1.0, 3.0, 1.0], [0.0, 1.0, 2.0]];
        let apply = |x: &[f64], out: &mut [f64]| {
            for (i, row) in a.iter().enumerate() {
                out[i] = row.iter().zip(x).map(|(a, x)| a * x).sum();
            }
        };
        let jacobi = |r: &[f64], z: &mut [f64]| {
            for i in 0..3 {
                z[i] = r[i] / a[i][i];
            }
        };
        let dot = |x: &[f64], y: &[f64]| x.iter().zip(y).map(|(x, y)| x * y).sum::<f64>();
        let v = conjugate_gradients(&[1.0, 2.0, 3.0], apply, jacobi, dot, (1e-14, 50));
        for (got, want) in v.iter().zip([4.0 / 18.0, 2.0 / 18.0, 26.0 / 18.0]) {
            assert!((got - want).abs() < 1e-12, "{v:?}");
        }
    }
}
