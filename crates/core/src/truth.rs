//! How far ratings are from known true ratings (synthetic histories, `--truth`): the RMSE once
//! the mean offset is removed, round by round, and the scale of the ratings against the truth.

/// RMSE of (rating - truth) after removing the mean difference, per round, from history rows
/// as they come (rows of one round are contiguous).
#[derive(Clone, Debug, Default)]
pub struct RmseSeries {
    round: Option<u32>,
    time: i64,
    diffs: Vec<f64>,
    /// Per round with at least two players measured: (round, time, players, rmse).
    pub points: Vec<(u32, i64, u32, f64)>,
}

impl RmseSeries {
    /// Adds one row: the player's rating after `round` (in contest `contest` at `time`).
    pub fn add(&mut self, round: u32, time: i64, rating: f64, truth: f64) {
        if self.round != Some(round) {
            self.close();
            self.round = Some(round);
            self.time = time;
        }
        self.diffs.push(rating - truth);
    }

    /// Ends the current round.
    pub fn close(&mut self) {
        if let Some(r) = self.round.take() {
            if self.diffs.len() >= 2 {
                self.points.push((
                    r,
                    self.time,
                    self.diffs.len() as u32,
                    offset_free_rmse(&self.diffs),
                ));
            }
            self.diffs.clear();
        }
    }
}

/// How the ratings' spread compares with the truth's: the least-squares slope of the ratings
/// on the true ratings (1 when the scale is right, above 1 when the ratings are stretched) and
/// the RMSE left once both the mean offset and that scale are removed (the noise alone).
/// `(1, 0)` for fewer than two players or a truth without spread.
pub fn scale_fit(ratings: &[f64], truth: &[f64]) -> (f64, f64) {
    let n = ratings.len().min(truth.len());
    if n < 2 {
        return (1.0, 0.0);
    }
    let (r, t) = (&ratings[..n], &truth[..n]);
    let mr = r.iter().sum::<f64>() / n as f64;
    let mt = t.iter().sum::<f64>() / n as f64;
    let (mut cov, mut var) = (0.0, 0.0);
    for (x, y) in r.iter().zip(t) {
        cov += (x - mr) * (y - mt);
        var += (y - mt) * (y - mt);
    }
    if var <= 0.0 {
        return (1.0, 0.0);
    }
    let slope = cov / var;
    let rss: f64 = r
        .iter()
        .zip(t)
        .map(|(x, y)| {
            let e = (x - mr) - slope * (y - mt);
            e * e
        })
        .sum();
    (slope, (rss / n as f64).sqrt())
}

/// `sqrt(mean((d - mean d)^2))`.
pub fn offset_free_rmse(d: &[f64]) -> f64 {
    let n = d.len() as f64;
    let mean = d.iter().sum::<f64>() / n;
    (d.iter().map(|x| (x - mean) * (x - mean)).sum::<f64>() / n).sqrt()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rmse_ignores_a_common_offset() {
        // Ratings 100 above the truth everywhere: zero.
        assert_eq!(offset_free_rmse(&[100.0, 100.0, 100.0]), 0.0);
        // Differences 0 and 20: offset 10, rmse 10.
        assert!((offset_free_rmse(&[0.0, 20.0]) - 10.0).abs() < 1e-12);
        let mut s = RmseSeries::default();
        s.add(0, 5, 1500.0, 1400.0);
        s.add(0, 5, 1500.0, 1420.0);
        s.add(1, 9, 1600.0, 1600.0);
        s.close();
        assert_eq!(
            s.points,
            vec![(0, 5, 2, 10.0)],
            "a round of one player is not measured"
        );
    }

    #[test]
    fn scale_fit_finds_a_stretch_and_the_noise_left() {
        // Ratings 2 * truth + 5: slope 2, nothing left.
        let t = [1000.0, 1500.0, 2000.0];
        let r: Vec<f64> = t.iter().map(|x| 2.0 * x + 5.0).collect();
        let (b, e) = scale_fit(&r, &t);
        assert!((b - 2.0).abs() < 1e-12 && e < 1e-9, "{b} {e}");
        // By hand: truth -1, 0, 1, 2 (centred -1.5, -0.5, 0.5, 1.5, sum of squares 5) and
        // ratings -1, 1, 1, 3 (centred -2, 0, 0, 2): covariance sum 6, slope 6 / 5 = 1.2,
        // residuals -0.2, 0.6, -0.6, 0.2, rmse sqrt(0.8 / 4).
        let (b, e) = scale_fit(&[-1.0, 1.0, 1.0, 3.0], &[-1.0, 0.0, 1.0, 2.0]);
        assert!((b - 1.2).abs() < 1e-12, "{b}");
        assert!((e - 0.2f64.sqrt()).abs() < 1e-12, "{e}");
        // No spread in the truth, or one player: nothing to fit.
        assert_eq!(scale_fit(&[1.0, 2.0], &[3.0, 3.0]), (1.0, 0.0));
        assert_eq!(scale_fit(&[1.0], &[3.0]), (1.0, 0.0));
    }
}
