//! What the report shows of the systems' outcomes.

use super::load::Loaded;
use super::rows::{CompareRow, HEADER, describe};
use super::system::SystemOutcome;
use crate::output;
use crate::systems::SystemKind;

/// What the report shows for the given systems' outcomes.
pub fn report_input(
    loaded: &Loaded,
    outcomes: &[(SystemKind, &SystemOutcome)],
) -> output::report::ReportInput {
    let history = &loaded.history;
    let rows: Vec<CompareRow> = outcomes.iter().map(|(_, o)| CompareRow::new(o)).collect();
    output::report::ReportInput {
        title: format!("rate-batch: {}", history.source.path),
        description: describe(history, super::load::Totals::of(history)),
        table_header: HEADER
            .iter()
            .map(std::string::ToString::to_string)
            .collect(),
        table_rows: rows.iter().map(CompareRow::cells).collect(),
        systems: outcomes
            .iter()
            .map(|(kind, o)| output::report::SystemCharts {
                system: kind.name().to_string(),
                trajectories: o.trajectories.clone(),
                final_ratings: o.rows.iter().map(|r| r.rating.mean).collect(),
                contest_metrics: o.result.series.contest_metrics.clone(),
                calibration: o.result.series.calibration.clone(),
                rmse: o.rmse.clone(),
            })
            .collect(),
    }
}
