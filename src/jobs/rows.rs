//! The comparison table's rows (a system's figures side by side), shared by `compare` and the
//! report.

use super::system::SystemOutcome;
use crate::history::History;
use crate::metrics::MetricsReport;
use serde::{Deserialize, Deserializer, Serialize};

/// One row of the comparison (read back from a shard's file without its system and
/// intervals, which the merge sets).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct CompareRow {
    /// The system (as `--systems` names it: `elo`, or a labelled entry such as `elo@mov`).
    #[serde(skip_deserializing)]
    pub system: String,
    /// Pair inversion, all scored participants (%).
    pub pair_inversion_all: Option<f64>,
    /// Pair inversion, experienced participants (%).
    pub pair_inversion_experienced: Option<f64>,
    /// Rank deviation, all (%).
    pub rank_deviation_all: Option<f64>,
    /// Rank deviation, experienced (%).
    pub rank_deviation_experienced: Option<f64>,
    /// Two-entry contests: log-loss.
    pub log_loss: Option<f64>,
    /// Brier score.
    pub brier: Option<f64>,
    /// Accuracy of the favourite (percent).
    pub accuracy: Option<f64>,
    /// Two-entry contests: log-loss of the outcome among win, draw and loss.
    pub log_loss_3: Option<f64>,
    /// Wall time of the replay (seconds).
    #[serde(deserialize_with = "nan_if_null")]
    pub wall_seconds: f64,
    /// Rounds per second over the replay.
    #[serde(deserialize_with = "nan_if_null")]
    pub rounds_per_second: f64,
    /// The best rate over stretches of the replay (the mean when it was too short).
    #[serde(deserialize_with = "nan_if_null")]
    pub peak_rounds_per_second: f64,
    /// Why the system failed (its ratings ran away), if it did; the figures are then empty.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub failed: Option<String>,
    /// Why it was refused before the replay (it cannot rate a contest of the input), if it
    /// was; the figures are then empty.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub refused: Option<String>,
    /// Where its predictions were worse than knowing nothing of the players
    /// ([`super::metrics_doc::warnings`]).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub warnings: Vec<String>,
    /// With `--ci`: each metric's interval, and how it stands against the best system's.
    #[serde(skip_deserializing, skip_serializing_if = "Vec::is_empty")]
    pub intervals: Vec<MetricCi>,
}

/// A time or rate that was not finite (a replay too short to time), written as null.
fn nan_if_null<'de, D: Deserializer<'de>>(d: D) -> Result<f64, D::Error> {
    Ok(Option::<f64>::deserialize(d)?.unwrap_or(f64::NAN))
}

/// A metric's bootstrap interval in the comparison, and whether the system is the best on
/// it, indistinguishable from the best (the interval of its paired difference to the best
/// holds 0), or worse.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct MetricCi {
    /// The metric (as in `compare.csv`'s header).
    pub metric: &'static str,
    /// The interval.
    pub lo: f64,
    /// The interval's upper end.
    pub hi: f64,
    /// `best`, `indistinguishable` or `worse`.
    pub versus_best: &'static str,
}

/// The table's metrics: name, whether higher is better, the decimals shown, and the value of
/// a report.
type MetricOf = fn(&MetricsReport) -> Option<f64>;
pub(crate) const METRICS: [(&str, bool, usize, MetricOf); 8] = [
    ("pair_inversion_all", true, 2, |m| m.all.pair_inversion),
    ("pair_inversion_experienced", true, 2, |m| {
        m.experienced.pair_inversion
    }),
    ("rank_deviation_all", false, 2, |m| m.all.rank_deviation),
    ("rank_deviation_experienced", false, 2, |m| {
        m.experienced.rank_deviation
    }),
    ("log_loss", false, 4, |m| m.two_player.log_loss),
    ("brier", false, 4, |m| m.two_player.brier),
    ("accuracy", true, 2, |m| m.two_player.accuracy),
    ("log_loss_3", false, 4, |m| m.two_player.log_loss_3),
];

/// `--ci` in the comparison: for each metric, each system's interval over the replicates
/// (`reports[k]`: row `k`'s replicates, all with the same counts, or `None` for a failed
/// row) and its paired difference to the best system's (best by the point estimate).
pub(crate) fn add_intervals(
    rows: &mut [CompareRow],
    reports: &[Option<Vec<MetricsReport>>],
    level: f64,
) {
    use crate::bootstrap::central;
    for (j, (name, higher, _, of)) in METRICS.into_iter().enumerate() {
        let point = |k: usize| reports[k].as_ref().and(rows[k].points()[j]);
        let best = (0..rows.len())
            .filter_map(|k| point(k).map(|v| (k, v)))
            .reduce(|a, b| {
                let better = if higher { b.1 > a.1 } else { b.1 < a.1 };
                if better { b } else { a }
            });
        let Some((best, _)) = best else {
            continue;
        };
        let best_values: Vec<Option<f64>> = reports[best]
            .as_ref()
            .map(|r| r.iter().map(of).collect())
            .unwrap_or_default();
        for k in 0..rows.len() {
            let Some(reps) = &reports[k] else { continue };
            let mut values: Vec<f64> = reps.iter().filter_map(of).collect();
            let Some((lo, hi)) = central(&mut values, level) else {
                continue;
            };
            let versus_best = if k == best {
                "best"
            } else {
                let mut diff: Vec<f64> = reps
                    .iter()
                    .zip(&best_values)
                    .filter_map(|(m, b)| Some(of(m)? - (*b)?))
                    .collect();
                match central(&mut diff, level) {
                    Some((dlo, dhi)) if dlo <= 0.0 && dhi >= 0.0 => "indistinguishable",
                    _ => "worse",
                }
            };
            rows[k].intervals.push(MetricCi {
                metric: name,
                lo,
                hi,
                versus_best,
            });
        }
    }
}

impl CompareRow {
    /// The row of a system that replayed to the end (`system`: its entry's name).
    pub(crate) fn new(system: &str, outcome: &SystemOutcome) -> Self {
        let m = &outcome.result.metrics;
        let mean = outcome.rounds_per_second();
        Self {
            system: system.to_string(),
            pair_inversion_all: m.all.pair_inversion,
            pair_inversion_experienced: m.experienced.pair_inversion,
            rank_deviation_all: m.all.rank_deviation,
            rank_deviation_experienced: m.experienced.rank_deviation,
            log_loss: m.two_player.log_loss,
            brier: m.two_player.brier,
            accuracy: m.two_player.accuracy,
            log_loss_3: m.two_player.log_loss_3,
            wall_seconds: outcome.replay_seconds,
            rounds_per_second: mean,
            peak_rounds_per_second: outcome.peak_rounds_per_second.unwrap_or(mean).max(mean),
            warnings: outcome.warnings.clone(),
            ..Self::default()
        }
    }

    /// The values of [`METRICS`], in their order.
    pub(crate) fn points(&self) -> [Option<f64>; 8] {
        [
            self.pair_inversion_all,
            self.pair_inversion_experienced,
            self.rank_deviation_all,
            self.rank_deviation_experienced,
            self.log_loss,
            self.brier,
            self.accuracy,
            self.log_loss_3,
        ]
    }

    /// The interval of a metric, if computed.
    pub fn interval(&self, metric: &str) -> Option<&MetricCi> {
        self.intervals.iter().find(|m| m.metric == metric)
    }

    /// The row of a system refused before the replay.
    pub(crate) fn refused(system: &str, why: String) -> Self {
        Self {
            failed: None,
            refused: Some(why),
            ..Self::failed(system, String::new())
        }
    }

    /// The row of a system that failed.
    pub(crate) fn failed(system: &str, why: String) -> Self {
        Self {
            system: system.to_string(),
            wall_seconds: f64::NAN,
            rounds_per_second: f64::NAN,
            peak_rounds_per_second: f64::NAN,
            failed: Some(why),
            ..Self::default()
        }
    }

    /// Why the system has no figures (`failed: ...`, `refused: ...`), if it has none.
    pub(crate) fn failure(&self) -> Option<String> {
        match (&self.failed, &self.refused) {
            (Some(why), _) => Some(format!("failed: {why}")),
            (None, Some(why)) => Some(format!("refused: {why}")),
            (None, None) => None,
        }
    }

    /// The cells of the table, as text (empty where the metric does not apply).
    pub fn cells(&self) -> Vec<String> {
        let mut cells = vec![self.system.clone()];
        if let Some(failure) = self.failure() {
            cells.push(failure);
            cells.resize(HEADER.len(), String::new());
            return cells;
        }
        // A system worse than knowing nothing is marked `!` (the table's note says why).
        if !self.warnings.is_empty() {
            cells[0].push_str(" !");
        }
        // With intervals: `value [lo, hi]`, marked `*` for the best and `~` where the paired
        // difference to the best is not significant.
        for ((name, _, d, _), v) in METRICS.into_iter().zip(self.points()) {
            let text = v.map_or(String::new(), |v| format!("{v:.d$}"));
            cells.push(match self.interval(name) {
                Some(ci) if !text.is_empty() => {
                    let mark = match ci.versus_best {
                        "best" => " *",
                        "indistinguishable" => " ~",
                        _ => "",
                    };
                    format!("{text} [{:.d$}, {:.d$}]{mark}", ci.lo, ci.hi)
                }
                _ => text,
            });
        }
        cells.extend([
            format!("{:.3}", self.wall_seconds),
            format!("{:.0}", self.rounds_per_second),
            format!("{:.0}", self.peak_rounds_per_second),
        ]);
        cells
    }
}

/// Column names of [`CompareRow::cells`].
pub const HEADER: [&str; 12] = [
    "system",
    "pair inv. all %",
    "pair inv. exp. %",
    "rank dev. all %",
    "rank dev. exp. %",
    "log-loss",
    "Brier",
    "accuracy %",
    "log-loss 3",
    "wall s",
    "rounds/s",
    "peak rounds/s",
];

/// The input as the table's caption describes it: its path and size.
pub(crate) fn describe(history: &History, totals: super::load::Totals) -> String {
    format!(
        "{}: {} contests, {} players, {} placings",
        history.source.path, totals.contests, totals.players, totals.placings
    )
}
