//! The comparison table's rows (a system's figures side by side), shared by `compare` and the
//! report.

use super::system::SystemOutcome;
use crate::history::History;
use serde::Serialize;

/// One row of the comparison.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct CompareRow {
    /// The system.
    pub system: &'static str,
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
    /// Accuracy of the favourite (fraction).
    pub accuracy: Option<f64>,
    /// Wall time of the replay (seconds).
    pub wall_seconds: f64,
    /// Rounds per second over the replay.
    pub rounds_per_second: f64,
    /// The best rate over stretches of the replay (the mean when it was too short).
    pub peak_rounds_per_second: f64,
    /// Why the system failed (its ratings ran away), if it did; the figures are then empty.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub failed: Option<String>,
}

impl CompareRow {
    pub(crate) fn new(outcome: &SystemOutcome) -> Self {
        let m = &outcome.result.metrics;
        let mean = outcome.rounds_per_second();
        Self {
            system: outcome.result.system,
            pair_inversion_all: m.all.pair_inversion,
            pair_inversion_experienced: m.experienced.pair_inversion,
            rank_deviation_all: m.all.rank_deviation,
            rank_deviation_experienced: m.experienced.rank_deviation,
            log_loss: m.two_player.log_loss,
            brier: m.two_player.brier,
            accuracy: m.two_player.accuracy,
            wall_seconds: outcome.replay_seconds,
            rounds_per_second: mean,
            peak_rounds_per_second: outcome.peak_rounds_per_second.unwrap_or(mean).max(mean),
            failed: None,
        }
    }

    /// The row of a system that failed.
    pub(crate) fn failed(system: &'static str, why: String) -> Self {
        Self {
            system,
            pair_inversion_all: None,
            pair_inversion_experienced: None,
            rank_deviation_all: None,
            rank_deviation_experienced: None,
            log_loss: None,
            brier: None,
            accuracy: None,
            wall_seconds: f64::NAN,
            rounds_per_second: f64::NAN,
            peak_rounds_per_second: f64::NAN,
            failed: Some(why),
        }
    }

    /// The cells of the table, as text (empty where the metric does not apply).
    pub fn cells(&self) -> Vec<String> {
        let f = |v: Option<f64>, d: usize| v.map_or(String::new(), |v| format!("{v:.d$}"));
        if let Some(why) = &self.failed {
            let mut cells = vec![self.system.to_string(), format!("failed: {why}")];
            cells.resize(HEADER.len(), String::new());
            return cells;
        }
        vec![
            self.system.to_string(),
            f(self.pair_inversion_all, 2),
            f(self.pair_inversion_experienced, 2),
            f(self.rank_deviation_all, 2),
            f(self.rank_deviation_experienced, 2),
            f(self.log_loss, 4),
            f(self.brier, 4),
            f(self.accuracy.map(|a| 100.0 * a), 2),
            format!("{:.3}", self.wall_seconds),
            format!("{:.0}", self.rounds_per_second),
            format!("{:.0}", self.peak_rounds_per_second),
        ]
    }
}

/// Column names of [`CompareRow::cells`].
pub const HEADER: [&str; 11] = [
    "system",
    "pair inv. all %",
    "pair inv. exp. %",
    "rank dev. all %",
    "rank dev. exp. %",
    "log-loss",
    "Brier",
    "accuracy %",
    "wall s",
    "rounds/s",
    "peak rounds/s",
];

pub(crate) fn describe(history: &History, totals: super::load::Totals) -> String {
    format!(
        "{}: {} contests, {} players, {} placings",
        history.source.path, totals.contests, totals.players, totals.placings
    )
}
