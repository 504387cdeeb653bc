//! `--truth FILE`: the true ratings of a synthetic history, to measure how far the ratings are
//! from them (RMSE per round, after removing the mean offset, since ratings are relative).
//!
//! A CSV with a `player` column and the true value in `skill`, `rating`, `true_rating` or
//! `strength` (the first present); with a `contest` column the value holds for that contest
//! (the files `simulate synth-small|synth-large` write), without one for the whole history
//! (the league's truth file). Errors name the file, line and field.

use super::InputError;
use super::small_csv::SmallCsv;
use crate::history::{History, PlayerId};
use std::collections::HashMap;
use std::path::Path;

/// True values by (contest index, player), for the participants the file covers.
#[derive(Clone, Debug, Default)]
pub struct Truth {
    /// The file, for messages and metrics.json.
    pub file: String,
    values: HashMap<(u32, PlayerId), f64>,
}

impl Truth {
    /// The true value of a player in a contest, if the file gives one.
    pub fn get(&self, contest: u32, player: PlayerId) -> Option<f64> {
        self.values.get(&(contest, player)).copied()
    }

    /// Number of (contest, player) values that apply to the history.
    pub fn len(&self) -> usize {
        self.values.len()
    }

    /// True when no value applies.
    pub fn is_empty(&self) -> bool {
        self.values.is_empty()
    }
}

/// Reads a truth file for the contests and players of `history`.
pub fn read_truth(path: &Path, history: &History) -> Result<Truth, InputError> {
    let csv = SmallCsv::open(path)?;
    let player_col = csv.require(
        "player",
        "player and skill, rating, true_rating or strength",
    )?;
    let (value_col, value_name) = ["skill", "rating", "true_rating", "strength"]
        .iter()
        .find_map(|n| csv.column(n).map(|c| (c, *n)))
        .ok_or_else(|| {
            csv.error(
                1,
                None,
                "missing the true value: a column skill, rating, true_rating or strength".into(),
            )
        })?;
    let contest_col = csv.column("contest");
    let players = crate::history::NameIndex::new(history.names());
    let mut contests_of: HashMap<&str, Vec<u32>> = HashMap::new();
    for c in history.contests() {
        if let Some(l) = c.label() {
            contests_of.entry(l).or_default().push(c.index() as u32);
        }
    }
    let file = path.display().to_string();
    let mut per_contest: HashMap<(u32, PlayerId), f64> = HashMap::new();
    let mut constant: HashMap<PlayerId, f64> = HashMap::new();
    csv.for_each(player_col, |csv, line, name, rec| {
        let text = rec.get(value_col).unwrap_or("").trim();
        let value = text
            .parse::<f64>()
            .ok()
            .filter(|v| v.is_finite())
            .ok_or_else(|| {
                csv.error(line, Some(value_name), format!("`{text}` is not a number"))
            })?;
        let Some(player) = players.find(name) else {
            return Ok(());
        };
        match contest_col {
            Some(c) => {
                let label = rec.get(c).unwrap_or("").trim();
                for &k in contests_of.get(label).map_or(&[][..], Vec::as_slice) {
                    if per_contest.insert((k, player), value).is_some() {
                        return Err(csv.error(
                            line,
                            Some("player"),
                            format!("`{name}` has a second true value for contest `{label}`"),
                        ));
                    }
                }
            }
            None => {
                if constant.insert(player, value).is_some() {
                    return Err(csv.error(
                        line,
                        Some("player"),
                        format!("`{name}` has a second true value"),
                    ));
                }
            }
        }
        Ok(())
    })?;
    if !constant.is_empty() {
        for c in history.contests() {
            for &p in c.players() {
                if let Some(&v) = constant.get(&p) {
                    per_contest.entry((c.index() as u32, p)).or_insert(v);
                }
            }
        }
    }
    Ok(Truth {
        file,
        values: per_contest,
    })
}

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
    use crate::history::{HistoryBuilder, SourceInfo};

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

    #[test]
    fn reads_per_contest_and_constant_truth() {
        let mut b = HistoryBuilder::new();
        let (x, y) = (b.player("x"), b.player("y"));
        b.begin_contest(0, 1.0, Some("c0"), None);
        b.add_entry(&[x], 0, 0, None);
        b.add_entry(&[y], 1, 1, None);
        b.end_contest().unwrap();
        let h = b.finish(SourceInfo::default());
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("t.csv");
        std::fs::write(&p, "contest,player,skill\nc0,x,1700\nc0,y,1300\nc9,x,1\n").unwrap();
        let t = read_truth(&p, &h).unwrap();
        assert_eq!(
            (t.get(0, x), t.get(0, y), t.len()),
            (Some(1700.0), Some(1300.0), 2)
        );
        std::fs::write(&p, "player,true_rating\nx,1650\nnobody,3\n").unwrap();
        let t = read_truth(&p, &h).unwrap();
        assert_eq!((t.get(0, x), t.get(0, y)), (Some(1650.0), None));
        // A player given twice (here once with padding, found by the trimmed name) is an
        // error, not a silent override.
        std::fs::write(&p, "player,skill\nx,1650\n x ,1700\n").unwrap();
        let e = read_truth(&p, &h).unwrap_err().to_string();
        assert!(
            e.contains("line 3") && e.contains("second true value"),
            "{e}"
        );
        std::fs::write(&p, "player,skill\nx,high\n").unwrap();
        let e = read_truth(&p, &h).unwrap_err().to_string();
        assert!(e.contains("line 2") && e.contains("skill"), "{e}");
        std::fs::write(&p, "player,elo\nx,1\n").unwrap();
        assert!(
            read_truth(&p, &h)
                .unwrap_err()
                .to_string()
                .contains("missing the true value")
        );
    }
}
