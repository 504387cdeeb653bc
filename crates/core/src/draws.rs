//! Three outcomes from a win probability: Davidson's (1970) tie model, and its parameter
//! fitted on the games already seen.
//!
//! Davidson's model: with a strength difference `d` (natural units), side a wins with
//! probability `e^(d/2) / Z`, draws with `nu / Z` and loses with `e^(-d/2) / Z`,
//! `Z = e^(d/2) + e^(-d/2) + nu`; two equal sides draw with probability `nu / (2 + nu)`.
//!
//! A system without a draw model of its own predicts an expected score `p` (a win counting 1
//! and a draw 1/2). [`split`] turns it into three outcomes: Davidson's probabilities at the
//! difference `d` whose expected score `P(win) + P(draw) / 2` is `p`, so the system's
//! expected score, which its updates use, is kept. With `y = e^(d/2)`, the expected score is
//! `(y + nu/2) / (y + 1/y + nu)`; setting it to `p` gives
//! `(1 - p) y^2 - nu (p - 1/2) y - p = 0`, whose positive root is taken.
//!
//! [`DrawModel`] fits `nu` by maximum likelihood of the outcomes given the predictions `p`
//! of the games seen so far (a one-parameter fit: the predictions stay the system's). The
//! games are kept as counts of wins, draws and losses in 512 bins of `p`, so the model's
//! memory does not grow with the history; each prediction uses the `nu` fitted on earlier
//! games only (refitted once the games seen have grown by a tenth, or by 10,000). Before any
//! game, and to keep `nu` finite and positive, the counts start with one pseudo-draw and one
//! pseudo-decisive game between equals (`nu = 2` with nothing else; about one draw in
//! `n + 2` after n decisive games).

use serde::{Deserialize, Serialize};

/// Bins of the win probability.
const BINS: usize = 512;

/// Davidson's probabilities of a win, a draw and a loss of the side `d` (natural units)
/// stronger, with tie parameter `nu >= 0`.
pub fn davidson(d: f64, nu: f64) -> [f64; 3] {
    // Divided through by e^(|d|/2): no overflow at any d.
    let h = 0.5 * d.abs();
    let small = (-2.0 * h).exp();
    let tie = nu * (-h).exp();
    let z = 1.0 + small + tie;
    let (hi, lo) = (1.0 / z, small / z);
    if d >= 0.0 {
        [hi, tie / z, lo]
    } else {
        [lo, tie / z, hi]
    }
}

/// Davidson's probabilities whose expected score is `p` (clamped to `[1e-15, 1 - 1e-15]`),
/// with tie parameter `nu >= 0` (0: no draws, `[p, 0, 1 - p]`).
pub fn split(p: f64, nu: f64) -> [f64; 3] {
    let p = p.clamp(1e-15, 1.0 - 1e-15);
    if nu <= 0.0 {
        return [p, 0.0, 1.0 - p];
    }
    // The favourite's side, for accuracy: the root is computed for p >= 1/2.
    let (q, flip) = if p < 0.5 { (1.0 - p, true) } else { (p, false) };
    let b = nu * (q - 0.5);
    let y = (b + (b * b + 4.0 * q * (1.0 - q)).sqrt()) / (2.0 * (1.0 - q));
    let z = y + 1.0 / y + nu;
    let out = [y / z, nu / z, 1.0 / (y * z)];
    if flip { [out[2], out[1], out[0]] } else { out }
}

/// The probability of an outcome (1 a win, 1/2 a draw, 0 a loss of side a) among three.
pub fn of_outcome(probs: &[f64; 3], y: f64) -> f64 {
    if y > 0.5 {
        probs[0]
    } else if y < 0.5 {
        probs[2]
    } else {
        probs[1]
    }
}

/// Davidson's tie parameter fitted on the games seen (see the module's documentation).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct DrawModel {
    /// Per bin of the prediction: weighted counts of wins, draws and losses.
    bins: Vec<[f64; 3]>,
    /// The fitted parameter in effect.
    nu: f64,
    /// Weight of the games seen, and at the last fit.
    seen: f64,
    fitted_at: f64,
    /// Predictions split with it (scored games of a system without its own draw model).
    splits: u64,
}

impl Default for DrawModel {
    fn default() -> Self {
        Self::new()
    }
}

impl DrawModel {
    /// No game seen: `nu` from the pseudo-counts (2).
    pub fn new() -> Self {
        let mut bins = vec![[0.0; 3]; BINS];
        let mid = Self::bin(0.5);
        bins[mid] = [0.5, 1.0, 0.5];
        let mut m = Self {
            bins,
            nu: 2.0,
            seen: 0.0,
            fitted_at: 0.0,
            splits: 0,
        };
        m.refit();
        m
    }

    fn bin(p: f64) -> usize {
        ((p.clamp(0.0, 1.0) * BINS as f64) as usize).min(BINS - 1)
    }

    fn centre(i: usize) -> f64 {
        (i as f64 + 0.5) / BINS as f64
    }

    /// The fitted tie parameter in effect.
    pub fn nu(&self) -> f64 {
        self.nu
    }

    /// Games seen (weighted).
    pub fn seen(&self) -> f64 {
        self.seen
    }

    /// Checks a model read back from a state file: every count and the parameter finite and
    /// not negative, the bins as many as this build keeps.
    pub fn check(&self) -> Result<(), String> {
        let ok = |v: f64| v.is_finite() && v >= 0.0;
        if self.bins.len() != BINS
            || !self.bins.iter().flatten().all(|&v| ok(v))
            || !(ok(self.nu) && ok(self.seen) && ok(self.fitted_at))
        {
            return Err("its draw model is out of range".into());
        }
        Ok(())
    }

    /// The three probabilities for a prediction `p`, with the parameter fitted so far
    /// (counted as a prediction split).
    pub fn predict(&mut self, p: f64) -> [f64; 3] {
        self.splits += 1;
        split(p, self.nu)
    }

    /// Predictions split so far.
    pub fn splits(&self) -> u64 {
        self.splits
    }

    /// Adds a game predicted `p` with outcome `y` (1, 1/2, 0) and weight `w`; refits when
    /// the games seen have grown enough.
    pub fn observe(&mut self, p: f64, y: f64, w: f64) {
        if !(p.is_finite() && w > 0.0) {
            return;
        }
        // Kept from the favourite's side (Davidson's split is symmetric), so that the fit does
        // not depend on which side a game lists first; at even odds a win and a loss count
        // half each.
        let (p, y) = if p < 0.5 { (1.0 - p, 1.0 - y) } else { (p, y) };
        let bin = &mut self.bins[Self::bin(p)];
        if y == 0.5 {
            bin[1] += w;
        } else if p == 0.5 {
            bin[0] += 0.5 * w;
            bin[2] += 0.5 * w;
        } else if y > 0.5 {
            bin[0] += w;
        } else {
            bin[2] += w;
        }
        self.seen += w;
        if self.seen >= (1.1 * self.fitted_at).min(self.fitted_at + 10_000.0) {
            self.refit();
        }
    }

    /// The log-likelihood of the counts at `ln nu = t`, and its first two derivatives in t.
    fn loglik(&self, t: f64) -> (f64, f64, f64) {
        let (mut l, mut g, mut h) = (0.0, 0.0, 0.0);
        let eps = 1e-4;
        for (i, c) in self.bins.iter().enumerate() {
            if c[0] + c[1] + c[2] == 0.0 {
                continue;
            }
            let p = Self::centre(i);
            let f = |t: f64| {
                let q = split(p, t.exp());
                c[0] * q[0].max(1e-300).ln()
                    + c[1] * q[1].max(1e-300).ln()
                    + c[2] * q[2].max(1e-300).ln()
            };
            let (lm, l0, lp) = (f(t - eps), f(t), f(t + eps));
            l += l0;
            g += (lp - lm) / (2.0 * eps);
            h += (lp - 2.0 * l0 + lm) / (eps * eps);
        }
        (l, g, h)
    }

    /// Maximises the likelihood in `ln nu` (Newton's method from the current value, with
    /// halving when a step does not improve it).
    fn refit(&mut self) {
        let mut t = self.nu.max(1e-12).ln();
        let (mut l, mut g, mut h) = self.loglik(t);
        for _ in 0..50 {
            let mut step = if h < 0.0 { -g / h } else { g.signum() };
            step = step.clamp(-2.0, 2.0);
            let mut improved = false;
            for _ in 0..30 {
                let next = (t + step).clamp(-30.0, 10.0);
                let (ln, gn, hn) = self.loglik(next);
                if ln >= l {
                    (t, l, g, h) = (next, ln, gn, hn);
                    improved = true;
                    break;
                }
                step *= 0.5;
            }
            if !improved || step.abs() < 1e-9 {
                break;
            }
        }
        self.nu = t.exp();
        self.fitted_at = self.seen;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Davidson by hand: d = ln 4 (y = 2), nu = 1: Z = 2 + 1/2 + 1 = 3.5; the three sum to
    /// one, and the reversed side gets them reversed.
    #[test]
    fn davidson_by_hand() {
        let q = davidson(4f64.ln(), 1.0);
        let want = [2.0 / 3.5, 1.0 / 3.5, 0.5 / 3.5];
        for k in 0..3 {
            assert!((q[k] - want[k]).abs() < 1e-15, "{q:?}");
        }
        let r = davidson(-4f64.ln(), 1.0);
        assert!((r[0] - want[2]).abs() < 1e-15 && (r[2] - want[0]).abs() < 1e-15);
        let big = davidson(2000.0, 3.0);
        assert!(big[0] == 1.0 && big[1] >= 0.0 && big[2] >= 0.0);
    }

    /// The split keeps the expected score and is Davidson's at the matching difference:
    /// p = (2 + 1/2) / 3.5 = 5/7 with nu = 1 is the case above.
    #[test]
    fn split_keeps_the_expected_score() {
        let q = split(5.0 / 7.0, 1.0);
        let want = [2.0 / 3.5, 1.0 / 3.5, 0.5 / 3.5];
        for k in 0..3 {
            assert!((q[k] - want[k]).abs() < 1e-14, "{q:?}");
        }
        for &p in &[1e-9, 0.1, 0.3, 0.5, 0.77, 0.999] {
            for &nu in &[0.0, 0.2, 1.0, 5.0] {
                let q = split(p, nu);
                assert!((q.iter().sum::<f64>() - 1.0).abs() < 1e-12);
                assert!((q[0] + 0.5 * q[1] - p).abs() < 1e-12, "{p} {nu} {q:?}");
                assert!(q.iter().all(|&x| x >= 0.0));
            }
        }
        // Equals draw nu / (2 + nu).
        assert!((split(0.5, 1.0)[1] - 1.0 / 3.0).abs() < 1e-15);
    }

    /// Games generated from Davidson's model with nu = 0.8 (and predictions that are its
    /// expected scores): the fitted nu comes back within 5 %.
    #[test]
    fn recovers_a_known_tie_parameter() {
        let nu = 0.8;
        let mut m = DrawModel::new();
        let mut x: u64 = 99;
        let mut uniform = || {
            x = x
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            (x >> 11) as f64 / (1u64 << 53) as f64
        };
        for _ in 0..40_000 {
            let d = 4.0 * uniform() - 2.0;
            let q = davidson(d, nu);
            let p = q[0] + 0.5 * q[1];
            let u = uniform();
            let y = if u < q[0] {
                1.0
            } else if u < q[0] + q[1] {
                0.5
            } else {
                0.0
            };
            m.observe(p, y, 1.0);
        }
        assert!((m.nu() - nu).abs() < 0.04, "{}", m.nu());
        // No draws at all: nu falls towards 0.
        let mut none = DrawModel::new();
        for k in 0..10_000 {
            none.observe(0.6, f64::from(k % 2), 1.0);
        }
        assert!(none.nu() < 1e-3, "{}", none.nu());
    }
}
