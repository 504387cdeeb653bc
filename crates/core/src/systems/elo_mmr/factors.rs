//! A player's logistic factors (section 5.3 of the paper): past performances, each a term of
//! equation 10.
//!
//! Factor k is a past performance `p_k` of scale `beta_k` with weight
//! `w_k = multiplicity / beta_k^2`; its term is `w_k mb_k tanh((s - p_k) a_k)` with
//! `a_k = pi / (sqrt 3 * 2 beta_k)` and `mb_k = (pi / sqrt 3) beta_k`, kept precomputed.
//!
//! **Layout.** The columns `p`, `a`, `mb`, `w` and `c` lie one after the other in a single
//! allocation, each `cap` long, the factors held being `start..end` of every column, oldest
//! first (so that the sums of equation 10 vectorise). One allocation per player instead of one
//! per column: a player's factors are a few neighbouring cache lines, fetched together, and
//! growing them is one copy. Dropping the oldest factor moves `start`; when `end` reaches
//! `cap`, what is held is moved back to the start of its columns (or to a larger allocation
//! if it fills more than half of them): amortised O(1) per factor, where shifting every
//! column by one cost a pass over the whole history per contest.
//!
//! **The product form.** `c_k = e^(-2 a_k (p_k - centre))` is kept beside them (derived,
//! never stored in a state): with `E = e^(2 a (s - centre))` computed once per evaluation for
//! factors sharing one `a` (every factor of weight-1 contests), `tanh((s - p_k) a) = 1 - 2 /
//! (E c_k + 1)`: a multiplication and a division per factor instead of an exponential.

use super::PI_SQRT3;
use super::performance::tanh;
use crate::numeric::prefetch;
use serde::{Deserialize, Serialize};

const P: usize = 0;
const A: usize = 1;
const MB: usize = 2;
const W: usize = 3;
const C: usize = 4;
const COLUMNS: usize = 5;

/// Exponents beyond this are not used in the product form (`e^600 * e^600` would overflow);
/// such evaluations take an exponential per factor.
const PRODUCT_EXPONENT: f64 = 600.0;

/// The factors of one posterior (see the module documentation).
#[derive(Clone, Debug, Default)]
pub(super) struct Factors {
    /// The columns, `cap` values each, in the order `P`, `A`, `MB`, `W`, `C`.
    buf: Vec<f64>,
    cap: u32,
    /// The factors held: `start..end` of every column.
    start: u32,
    end: u32,
    /// The `a` every factor shares, NaN if they do not (or none is held).
    shared_a: f64,
    /// The `c` column has not been derived (a state just read back; see [`Factors::derive`]).
    c_missing: bool,
    /// Every derived `c_k` is finite (no factor beyond the product form's range).
    c_ok: bool,
}

/// How a state stores the factors: the four columns, oldest first (the layout states have
/// always had).
#[derive(Serialize, Deserialize)]
#[serde(rename = "Factors")]
struct FactorsWire<P, A, M, W> {
    p: P,
    a: A,
    mb: M,
    w: W,
}

impl Serialize for Factors {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        FactorsWire {
            p: self.ps(),
            a: self.col(A),
            mb: self.col(MB),
            w: self.ws(),
        }
        .serialize(s)
    }
}

impl<'de> Deserialize<'de> for Factors {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let wire = FactorsWire::<Vec<f64>, Vec<f64>, Vec<f64>, Vec<f64>>::deserialize(d)?;
        let n = wire.p.len();
        if wire.a.len() != n || wire.mb.len() != n || wire.w.len() != n {
            return Err(serde::de::Error::custom(
                "the factor columns differ in length",
            ));
        }
        let cap = u32::try_from(n)
            .map_err(|_| serde::de::Error::custom("more factors than a player can hold"))?;
        let mut buf = Vec::with_capacity(COLUMNS * n);
        for col in [&wire.p, &wire.a, &wire.mb, &wire.w] {
            buf.extend_from_slice(col);
        }
        buf.resize(COLUMNS * n, 0.0);
        let mut f = Factors {
            buf,
            cap,
            start: 0,
            end: cap,
            shared_a: f64::NAN,
            c_missing: n > 0,
            c_ok: false,
        };
        f.shared_a = f.common_a();
        Ok(f)
    }
}

impl PartialEq for Factors {
    /// The factors held (the derived column and what lies outside `start..end` do not
    /// count).
    fn eq(&self, o: &Self) -> bool {
        [P, A, MB, W].iter().all(|&j| self.col(j) == o.col(j))
    }
}

impl Factors {
    /// Column `j` of the factors held.
    #[inline(always)]
    fn col(&self, j: usize) -> &[f64] {
        let base = j * self.cap as usize;
        &self.buf[base + self.start as usize..base + self.end as usize]
    }

    pub(super) fn len(&self) -> usize {
        (self.end - self.start) as usize
    }

    pub(super) fn ps(&self) -> &[f64] {
        self.col(P)
    }

    pub(super) fn ws(&self) -> &[f64] {
        self.col(W)
    }

    pub(super) fn ws_mut(&mut self) -> &mut [f64] {
        let base = W * self.cap as usize;
        &mut self.buf[base + self.start as usize..base + self.end as usize]
    }

    /// The `a` every factor shares, if they do.
    pub(super) fn shared_a(&self) -> Option<f64> {
        (!self.shared_a.is_nan()).then_some(self.shared_a)
    }

    fn common_a(&self) -> f64 {
        let a = self.col(A);
        match a.first() {
            Some(&first) if a.iter().all(|&x| x == first) => first,
            _ => f64::NAN,
        }
    }

    /// Room for one more factor at `end`: what is held is moved to the start of its columns,
    /// in place if it fills at most half of them, else into an allocation twice its size.
    fn make_room(&mut self) {
        let (cap, start, end) = (self.cap as usize, self.start as usize, self.end as usize);
        let len = end - start;
        let new_cap = (2 * len).max(4);
        if new_cap <= cap {
            for j in 0..COLUMNS {
                self.buf
                    .copy_within(j * cap + start..j * cap + end, j * cap);
            }
        } else {
            let mut buf = Vec::with_capacity(COLUMNS * new_cap);
            for j in 0..COLUMNS {
                buf.extend_from_slice(&self.buf[j * cap + start..j * cap + end]);
                buf.resize((j + 1) * new_cap, 0.0);
            }
            self.buf = buf;
            self.cap = u32::try_from(new_cap).expect("a history bound below 2^31");
        }
        self.start = 0;
        self.end = len as u32;
    }

    pub(super) fn push(&mut self, p: f64, beta: f64, centre: f64) {
        let a = PI_SQRT3 / (2.0 * beta);
        let held = self.len();
        self.shared_a = if held == 0 || self.shared_a == a {
            a
        } else {
            f64::NAN
        };
        if self.end == self.cap {
            self.make_room();
        }
        let (cap, k) = (self.cap as usize, self.end as usize);
        if !self.c_missing {
            let c = product_factor(a, p, centre);
            self.c_ok = c.is_finite() && (held == 0 || self.c_ok);
            self.buf[C * cap + k] = c;
        }
        self.buf[P * cap + k] = p;
        self.buf[A * cap + k] = a;
        self.buf[MB * cap + k] = PI_SQRT3 * beta;
        self.buf[W * cap + k] = 1.0 / (beta * beta);
        self.end += 1;
    }

    /// Drops the oldest factor, returning its centre and weight.
    pub(super) fn pop_oldest(&mut self) -> (f64, f64) {
        let (cap, k) = (self.cap as usize, self.start as usize);
        let old = (self.buf[P * cap + k], self.buf[W * cap + k]);
        self.start += 1;
        if self.shared_a.is_nan() {
            self.shared_a = self.common_a();
        }
        if !self.c_ok && !self.c_missing {
            self.c_ok = self.col(C).iter().all(|c| c.is_finite());
        }
        old
    }

    pub(super) fn clear(&mut self) {
        *self = Self::default();
    }

    pub(super) fn weight(&self) -> f64 {
        self.ws().iter().sum()
    }

    /// Derives the product column if it is missing (a state just read back).
    pub(super) fn derive(&mut self, centre: f64) {
        if self.c_missing {
            let (cap, start, end) = (self.cap as usize, self.start as usize, self.end as usize);
            for k in start..end {
                self.buf[C * cap + k] =
                    product_factor(self.buf[A * cap + k], self.buf[P * cap + k], centre);
            }
            self.c_missing = false;
            self.c_ok = self.col(C).iter().all(|c| c.is_finite());
        }
    }

    /// Forgets the product column, as a state read back has none (tests).
    #[cfg(test)]
    pub(super) fn forget_products(&mut self) {
        self.c_missing = true;
    }

    /// The product column is derived and usable (tests).
    #[cfg(test)]
    pub(super) fn products_usable(&self) -> bool {
        !self.c_missing && self.c_ok
    }

    /// The oldest factor held lies past the start of its columns (tests).
    #[cfg(test)]
    pub(super) fn holds_a_dropped_prefix(&self) -> bool {
        self.start > 0
    }

    /// The columns p, a, mb, w of the factors held (tests).
    #[cfg(test)]
    pub(super) fn wire_columns(&self) -> [&[f64]; 4] {
        [self.col(P), self.col(A), self.col(MB), self.col(W)]
    }

    /// Starts loading the first cache line of each column the rating root reads.
    #[inline(always)]
    pub(super) fn prefetch(&self) {
        if self.end > self.start {
            let (cap, k) = (self.cap as usize, self.start as usize);
            for j in 0..COLUMNS {
                prefetch(&raw const self.buf[j * cap + k]);
            }
        }
    }

    /// The terms of equation 10 and their first two derivatives at s, in four lanes the
    /// compiler can vectorise (the order of the sum is fixed). With a shared `a` and the
    /// product column derived, no exponential per factor.
    pub(super) fn sums(&self, s: f64, centre: f64) -> (f64, f64, f64) {
        #[cfg(target_arch = "x86_64")]
        if std::arch::is_x86_feature_detected!("avx2") {
            // SAFETY: the CPU has AVX2, checked just above.
            return unsafe { self.sums_avx2(s, centre) };
        }
        self.sums_here(s, centre)
    }

    /// [`sums`](Self::sums) compiled for AVX2: the same arithmetic in the same order (so the
    /// same bits; no operation is fused), four lanes to a vector instead of two.
    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx2")]
    unsafe fn sums_avx2(&self, s: f64, centre: f64) -> (f64, f64, f64) {
        match self.product_exponent(s, centre) {
            Some(e) => product_lanes_avx2(self.col(W), self.col(MB), self.col(A), self.col(C), e),
            None => self.sums_here(s, centre),
        }
    }

    /// `E = e^(2 a (s - centre))` if the product form applies at s (see [`sums`](Self::sums)).
    #[inline(always)]
    fn product_exponent(&self, s: f64, centre: f64) -> Option<f64> {
        let sa = self.shared_a()?;
        let x = 2.0 * sa * (s - centre);
        (self.c_ok && !self.c_missing && x.abs() <= PRODUCT_EXPONENT).then(|| x.exp())
    }

    #[inline(always)]
    fn sums_here(&self, s: f64, centre: f64) -> (f64, f64, f64) {
        let (w, mb, a) = (self.col(W), self.col(MB), self.col(A));
        match self.product_exponent(s, centre) {
            Some(e) => {
                let c = self.col(C);
                lanes(w, mb, a, |k| 1.0 - 2.0 / (e * c[k] + 1.0))
            }
            None => {
                let p = self.ps();
                lanes(w, mb, a, |k| tanh((s - p[k]) * a[k]))
            }
        }
    }
}

/// The sums of [`lanes`] in four lanes: factor k goes to lane k mod 4, and the lanes are added
/// pairwise at the end (a fixed order, whatever the code that fills them).
#[derive(Default)]
struct Lanes {
    v: [f64; 4],
    d: [f64; 4],
    d2: [f64; 4],
}

impl Lanes {
    /// Adds one factor's terms (`t` its tanh, `w mb` its weight, `a` its slope) to lane `l`.
    #[inline(always)]
    fn add(&mut self, l: usize, t: f64, w: f64, mb: f64, a: f64) {
        let wm = w * mb;
        let sech2 = 1.0 - t * t;
        self.v[l] += wm * t;
        self.d[l] += wm * a * sech2;
        self.d2[l] -= 2.0 * wm * a * a * t * sech2;
    }

    fn total(&self) -> (f64, f64, f64) {
        let add = |x: [f64; 4]| (x[0] + x[1]) + (x[2] + x[3]);
        (add(self.v), add(self.d), add(self.d2))
    }
}

/// `sum_k w_k mb_k (t_k, a_k sech^2, -2 a_k^2 t_k sech^2)` over the factors, with `t_k =
/// t_of(k)`, in four fixed lanes ([`Lanes`]). Written four factors at a time, as arrays, so
/// that the compiler makes each step one vector operation (the division above all).
#[inline(always)]
fn lanes(w: &[f64], mb: &[f64], a: &[f64], t_of: impl Fn(usize) -> f64) -> (f64, f64, f64) {
    let n = w.len();
    let (mb, a) = (&mb[..n], &a[..n]);
    let mut sums = Lanes::default();
    let whole = n - n % 4;
    for k in (0..whole).step_by(4) {
        let t: [f64; 4] = std::array::from_fn(|l| t_of(k + l));
        for l in 0..4 {
            sums.add(l, t[l], w[k + l], mb[k + l], a[k + l]);
        }
    }
    for (l, k) in (whole..n).enumerate() {
        sums.add(l, t_of(k), w[k], mb[k], a[k]);
    }
    sums.total()
}

/// [`lanes`] of the product form, `t_k = 1 - 2 / (E c_k + 1)`, written with AVX2's
/// four-lane vectors: the same operations in the same order, lane by lane, as
/// [`Lanes::add`] (so the same bits; nothing is fused).
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
fn product_lanes_avx2(w: &[f64], mb: &[f64], a: &[f64], c: &[f64], e: f64) -> (f64, f64, f64) {
    use std::arch::x86_64::{
        _mm256_add_pd, _mm256_div_pd, _mm256_loadu_pd, _mm256_mul_pd, _mm256_set1_pd,
        _mm256_setzero_pd, _mm256_storeu_pd, _mm256_sub_pd,
    };
    let n = w.len();
    let (mb, a, c) = (&mb[..n], &a[..n], &c[..n]);
    let whole = n - n % 4;
    let (one, two, ev) = (_mm256_set1_pd(1.0), _mm256_set1_pd(2.0), _mm256_set1_pd(e));
    let (mut v, mut d, mut d2) = (
        _mm256_setzero_pd(),
        _mm256_setzero_pd(),
        _mm256_setzero_pd(),
    );
    for k in (0..whole).step_by(4) {
        // SAFETY: k + 4 <= whole <= n, the length of every column here.
        let load = |col: &[f64]| unsafe { _mm256_loadu_pd(col.as_ptr().add(k)) };
        let (w4, mb4, a4, c4) = (load(w), load(mb), load(a), load(c));
        let t = _mm256_sub_pd(
            one,
            _mm256_div_pd(two, _mm256_add_pd(_mm256_mul_pd(ev, c4), one)),
        );
        let wm = _mm256_mul_pd(w4, mb4);
        let sech2 = _mm256_sub_pd(one, _mm256_mul_pd(t, t));
        v = _mm256_add_pd(v, _mm256_mul_pd(wm, t));
        d = _mm256_add_pd(d, _mm256_mul_pd(_mm256_mul_pd(wm, a4), sech2));
        let twice = _mm256_mul_pd(_mm256_mul_pd(_mm256_mul_pd(two, wm), a4), a4);
        d2 = _mm256_sub_pd(d2, _mm256_mul_pd(_mm256_mul_pd(twice, t), sech2));
    }
    let mut sums = Lanes::default();
    // SAFETY: each array holds four values.
    unsafe {
        _mm256_storeu_pd(sums.v.as_mut_ptr(), v);
        _mm256_storeu_pd(sums.d.as_mut_ptr(), d);
        _mm256_storeu_pd(sums.d2.as_mut_ptr(), d2);
    }
    for (l, k) in (whole..n).enumerate() {
        sums.add(l, 1.0 - 2.0 / (e * c[k] + 1.0), w[k], mb[k], a[k]);
    }
    sums.total()
}

/// `e^(-2 a (p - centre))`, the exponent kept within the product form's range (a factor
/// beyond it makes the evaluation take the exponential path; see [`Factors::sums`]).
fn product_factor(a: f64, p: f64, centre: f64) -> f64 {
    let x = -2.0 * a * (p - centre);
    if x.abs() <= PRODUCT_EXPONENT {
        x.exp()
    } else {
        f64::NAN
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_vector_sums_are_the_plain_sums_bit_for_bit() {
        // Factors of one scale (the product form), 0 to 11 of them (whole vectors and every
        // remainder), at ratings below, inside and above their spread.
        for n in 0..12 {
            let mut f = Factors::default();
            for k in 0..n {
                f.push(
                    1200.0 + 97.0 * k as f64 - 3.5 * (k * k) as f64,
                    195.96,
                    1500.0,
                );
                f.ws_mut().iter_mut().for_each(|w| *w *= 0.83);
            }
            for s in [700.0, 1333.3, 1500.0, 1712.25, 2900.0] {
                let plain = f.sums_here(s, 1500.0);
                let got = f.sums(s, 1500.0);
                let bits = |x: (f64, f64, f64)| [x.0.to_bits(), x.1.to_bits(), x.2.to_bits()];
                assert_eq!(bits(got), bits(plain), "{n} factors at {s}");
                if n > 0 {
                    assert!(plain.1 > 0.0, "a positive slope");
                }
            }
        }
    }

    #[test]
    fn what_is_held_survives_growing_and_compacting() {
        // A bound of 5: pushes past the columns' end move what is held back to their start.
        let mut f = Factors::default();
        let mut held: Vec<f64> = Vec::new();
        for k in 0..40 {
            f.push(k as f64, 200.0, 1500.0);
            held.push(k as f64);
            if f.len() > 5 {
                let (p, w) = f.pop_oldest();
                assert_eq!(p, held.remove(0));
                assert_eq!(w, 1.0 / (200.0 * 200.0));
            }
            assert_eq!(f.ps(), &held[..]);
        }
        assert!(
            f.cap <= 16,
            "compacted in place rather than grown: {}",
            f.cap
        );
    }
}
