//! What the report shows of the systems' outcomes.

use super::load::Loaded;
use super::rows::{CompareRow, HEADER, describe};
use super::system::SystemOutcome;
use crate::bootstrap::metric_replicates;
use crate::output;

/// A game as the calibration chart shows it: from its first side when it has one; from its
/// favourite's otherwise (neutral ground, a file of winners and losers), so that the chart
/// does not depend on which side a file lists first.
fn charted(first_side: bool, p: f64, y: f64) -> (f64, f64) {
    if first_side || p > 0.5 {
        (p, y)
    } else if p < 0.5 {
        (1.0 - p, 1.0 - y)
    } else {
        (0.5, 0.5)
    }
}

/// What the report shows for the given systems' outcomes (each with its name in the table:
/// the system's, or a labelled entry's).
pub fn report_input(
    loaded: &Loaded,
    outcomes: &[(&str, &SystemOutcome)],
    ci: Option<&crate::bootstrap::CiOptions>,
) -> output::report::ReportInput {
    let history = &loaded.history;
    let rows = outcomes.iter().map(|(name, o)| CompareRow::new(name, o));
    let mut rows: Vec<CompareRow> = rows.collect();
    if let Some(ci) = ci {
        // The metrics' intervals, and with several systems the marks against the best.
        let replicates = |o: &SystemOutcome| metric_replicates(&o.result.series.scores, ci);
        let reports: Vec<_> = outcomes.iter().map(|(_, o)| Some(replicates(o))).collect();
        super::rows::add_intervals(&mut rows, &reports, ci.level);
    }
    output::report::ReportInput {
        title: format!("rate-batch: {}", history.source.path),
        description: describe(history, super::load::Totals::of(history)),
        table_header: HEADER.map(String::from).to_vec(),
        table_rows: rows.iter().map(CompareRow::cells).collect(),
        systems: outcomes
            .iter()
            .map(|(name, o)| output::report::SystemCharts {
                system: (*name).to_string(),
                warnings: o.warnings.clone(),
                trajectories: o.trajectories.clone(),
                final_ratings: o.rows.iter().map(|r| r.rating.mean).collect(),
                contest_metrics: o.result.series.contest_metrics.clone(),
                calibration: o
                    .result
                    .series
                    .games
                    .iter()
                    .map(|&(c, p, _, y)| charted(history.contest(c as usize).first_side(), p, y))
                    .collect(),
                draw_calibration: o
                    .result
                    .series
                    .games
                    .iter()
                    .map(|&(_, _, three, y)| (three[1], f64::from(u8::from(y == 0.5))))
                    .collect(),
                rmse: o.rmse.clone(),
                intervals: o
                    .rows
                    .iter()
                    .take(INTERVAL_PLAYERS)
                    .filter_map(|r| {
                        let i = r.interval?;
                        Some((
                            o.input(loaded).name(r.player).to_string(),
                            r.rating.mean,
                            i.rating.0,
                            i.rating.1,
                        ))
                    })
                    .collect(),
            })
            .collect(),
    }
}

/// Players of the report's interval chart.
const INTERVAL_PLAYERS: usize = 30;
