//! What the charts of the site and of the report share: the ticks of a time axis and their
//! labels; and the site's rating-history chart, an inline SVG built here (only numbers and
//! dates: nothing in it needs escaping).

use std::fmt::{self, Write as _};

use super::text::{Fixed, Rating, scaled};

/// The round steps a time axis may take, finest first, and the most ticks it may have.
pub struct TickSteps {
    /// Most ticks.
    pub max: usize,
    /// Steps of a fixed length, in seconds (hours to weeks).
    pub seconds: &'static [i64],
    /// Steps in months, each tick on the first of a month.
    pub months: &'static [i64],
}

/// The site's rating chart: up to five ticks.
pub const SITE_STEPS: TickSteps = TickSteps {
    max: 5,
    seconds: &[
        HOUR,
        3 * HOUR,
        6 * HOUR,
        12 * HOUR,
        DAY,
        2 * DAY,
        7 * DAY,
        14 * DAY,
    ],
    months: &[
        1, 2, 3, 6, 12, 24, 60, 120, 240, 600, 1_200, 2_400, 6_000, 12_000, 24_000, 60_000,
        120_000, 240_000, 600_000, 1_200_000,
    ],
};

/// The report's time axes: up to eight ticks.
pub const REPORT_STEPS: TickSteps = TickSteps {
    max: 8,
    seconds: &[
        HOUR,
        2 * HOUR,
        3 * HOUR,
        6 * HOUR,
        12 * HOUR,
        DAY,
        2 * DAY,
        7 * DAY,
        14 * DAY,
    ],
    months: &[1, 2, 3, 6, 12, 24, 60, 120, 240, 600, 1_200, 6_000],
};

const HOUR: i64 = 3_600;
const DAY: i64 = 86_400;

/// What a tick stands for, which its label shows.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TimeUnit {
    Hour,
    Day,
    Month,
    Year,
}

/// Round time ticks inside `[t0, t1]` (UTC): the first of `steps` that gives at most
/// `steps.max` ticks, with the unit of that step (a step of whole years is `Year`). `None`
/// when no step fits (the caller then marks the two ends); the ticks may be empty when a step
/// fits but no round time falls inside.
pub fn time_ticks(t0: i64, t1: i64, steps: &TickSteps) -> Option<(Vec<i64>, TimeUnit)> {
    use chrono::{DateTime, Datelike, NaiveDate};
    let max = steps.max;
    for &step in steps.seconds {
        // Wide arithmetic and a bounded count: any pair of times ends (extreme ones included).
        if (t1 as i128 - t0 as i128) / (step as i128) < max as i128 {
            let first = t0
                .div_euclid(step)
                .checked_mul(step)
                .and_then(|t| t.checked_add(if t0.rem_euclid(step) == 0 { 0 } else { step }))?;
            let ticks = (0..=max as i64)
                .map_while(|i| first.checked_add(i * step))
                .take_while(|&t| t <= t1)
                .collect();
            let unit = if step < DAY {
                TimeUnit::Hour
            } else {
                TimeUnit::Day
            };
            return Some((ticks, unit));
        }
    }
    let month_start = |m: i64| -> Option<i64> {
        let year = i32::try_from(m.div_euclid(12)).ok()?;
        let date = NaiveDate::from_ymd_opt(year, m.rem_euclid(12) as u32 + 1, 1)?;
        Some(date.and_hms_opt(0, 0, 0)?.and_utc().timestamp())
    };
    let d0 = DateTime::from_timestamp(t0, 0)?;
    let m0 = d0.year() as i64 * 12 + d0.month0() as i64;
    for &step in steps.months {
        // The first month boundary at or after t0 whose index is a multiple of the step.
        let mut m = m0.div_euclid(step) * step;
        while month_start(m).is_some_and(|t| t < t0) {
            m += step;
        }
        let ticks: Vec<i64> = (0..=max as i64)
            .map_while(|i| month_start(m + i * step))
            .take_while(|&t| t <= t1)
            .collect();
        if ticks.len() <= max {
            let unit = if step >= 12 {
                TimeUnit::Year
            } else {
                TimeUnit::Month
            };
            return Some((ticks, unit));
        }
    }
    None
}

/// A tick's label on the site: "2024", "2024-03", "2024-03-05", "03-05 14:00" (UTC); the
/// raw seconds for a time out of the calendar's range.
pub struct TimeLabel(pub i64, pub TimeUnit);

impl fmt::Display for TimeLabel {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        use chrono::{Datelike, Timelike};
        let Some(d) = chrono::DateTime::from_timestamp(self.0, 0) else {
            return write!(f, "{}", self.0);
        };
        match self.1 {
            TimeUnit::Year => write!(f, "{}", d.year()),
            TimeUnit::Month => write!(f, "{}-{:02}", d.year(), d.month()),
            TimeUnit::Day => write!(f, "{}-{:02}-{:02}", d.year(), d.month(), d.day()),
            TimeUnit::Hour => write!(f, "{:02}-{:02} {:02}:00", d.month(), d.day(), d.hour()),
        }
    }
}

/// The (min, max) of the finite values, or `None` when there are none.
pub fn finite_range(values: impl IntoIterator<Item = f64>) -> Option<(f64, f64)> {
    values
        .into_iter()
        .filter(|v| v.is_finite())
        .fold(None, |acc, v| match acc {
            None => Some((v, v)),
            Some((lo, hi)) => Some((lo.min(v), hi.max(v))),
        })
}

/// A time axis: the range of the times, widened by half a day each way when it is a single
/// instant.
pub fn time_range(times: impl IntoIterator<Item = i64>) -> Option<(i64, i64)> {
    let range = times.into_iter().fold(None, |acc, t| match acc {
        None => Some((t, t)),
        Some((lo, hi)) => Some((t.min(lo), t.max(hi))),
    });
    match range? {
        (lo, hi) if lo == hi => Some((lo.saturating_sub(43_200), hi.saturating_add(43_200))),
        r => Some(r),
    }
}

// ---------------------------------------------------------------------------------------------
// The site's rating history chart.

const CHART_W: f64 = 640.0;
const CHART_H: f64 = 240.0;
const LEFT: f64 = 56.0;
const RIGHT: f64 = 16.0;
const TOP: f64 = 12.0;
const BOTTOM: f64 = 28.0;

/// A chart coordinate with one decimal.
struct Coord(f64);

impl fmt::Display for Coord {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let v = if self.0.is_finite() { self.0 } else { 0.0 };
        let units = scaled(v, 1).unwrap_or(0);
        if v < 0.0 && units > 0 {
            f.write_str("-")?;
        }
        Fixed { units, d: 1 }.fmt(f)
    }
}

/// The rating history as an inline SVG: a polyline over time (every point), time and rating
/// ticks, a dot at the last point; a dot alone for one point. `Err` with a note instead when
/// there is nothing to draw.
pub fn rating_chart(history: &[(i64, f64)]) -> Result<String, &'static str> {
    let finite = || history.iter().filter(|(_, r)| r.is_finite());
    let (Some((t0, t1)), Some((lo, hi))) = (
        time_range(finite().map(|p| p.0)),
        finite_range(finite().map(|p| p.1)),
    ) else {
        return Err("No rated contests.");
    };
    let span = hi - lo;
    let pad = if span > 0.0 && span.is_finite() {
        span * 0.08
    } else {
        (lo.abs() * 0.01).max(1.0)
    };
    let (lo, hi) = (lo - pad, hi + pad);
    if !(hi - lo).is_finite() {
        return Err("Ratings too large to chart.");
    }
    let (x0, x1, y0, y1) = (LEFT, CHART_W - RIGHT, TOP, CHART_H - BOTTOM);
    let tspan = t1 as f64 - t0 as f64;
    let x = |t: i64| x0 + (t as f64 - t0 as f64) / tspan * (x1 - x0);
    let y = |r: f64| y1 - (r - lo) / (hi - lo) * (y1 - y0);

    let mut w = String::new();
    let _ = write!(
        w,
        "<svg class=\"chart\" viewBox=\"0 0 {CHART_W} {CHART_H}\" role=\"img\" \
         aria-label=\"Rating history\">\n<g class=\"grid\">"
    );
    let (step, ticks) = rating_ticks(lo, hi);
    let decimals = if step >= 1.0 {
        0
    } else {
        (-step.log10().floor()) as usize
    };
    for &r in &ticks {
        let yy = Coord(y(r));
        let _ = write!(w, "<line x1=\"{x0}\" x2=\"{x1}\" y1=\"{yy}\" y2=\"{yy}\"/>");
    }
    let times = match time_ticks(t0, t1, &SITE_STEPS) {
        Some((ticks, unit)) => ticks.into_iter().map(|t| (t, unit)).collect(),
        None => vec![(t0, TimeUnit::Day), (t1, TimeUnit::Day)],
    };
    for &(t, _) in &times {
        let xx = Coord(x(t));
        let _ = write!(w, "<line x1=\"{xx}\" x2=\"{xx}\" y1=\"{y0}\" y2=\"{y1}\"/>");
    }
    let _ = write!(
        w,
        "</g>\n<path class=\"axis\" d=\"M{x0} {y0}V{y1}H{x1}\"/>\n<g class=\"ylab\">"
    );
    for &r in &ticks {
        // "+ 0.0" turns a negative zero into zero.
        let r = r + 0.0;
        let (tx, ty) = (x0 - 6.0, Coord(y(r) + 4.0));
        let _ = write!(w, "<text x=\"{tx}\" y=\"{ty}\">{r:.decimals$}</text>");
    }
    w.push_str("</g>\n<g class=\"xlab\">");
    for &(t, unit) in &times {
        let (tx, ty, label) = (Coord(x(t)), y1 + 18.0, TimeLabel(t, unit));
        let _ = write!(w, "<text x=\"{tx}\" y=\"{ty}\">{label}</text>");
    }
    w.push_str("</g>\n");
    if finite().nth(1).is_some() {
        w.push_str("<polyline class=\"line\" points=\"");
        for (i, &(t, r)) in finite().enumerate() {
            let sep = if i == 0 { "" } else { " " };
            let _ = write!(w, "{sep}{},{}", Coord(x(t)), Coord(y(r)));
        }
        w.push_str("\"/>\n");
    }
    let (lt, lr) = *finite().next_back().expect("a point is finite");
    let _ = write!(
        w,
        "<circle class=\"last\" cx=\"{}\" cy=\"{}\" r=\"4\"><title>{}: {}</title></circle>\n</svg>\n",
        Coord(x(lt)),
        Coord(y(lr)),
        TimeLabel(lt, TimeUnit::Day),
        Rating(lr)
    );
    Ok(w)
}

/// Round rating ticks inside `[lo, hi]` (a step of 1, 2 or 5 times a power of ten, 3 to 6
/// ticks).
fn rating_ticks(lo: f64, hi: f64) -> (f64, Vec<f64>) {
    let span = hi - lo;
    if !(span > 0.0 && span.is_finite()) {
        return (1.0, vec![lo]);
    }
    let raw = span / 4.0;
    let mag = 10f64.powf(raw.log10().floor());
    let step = [1.0, 2.0, 5.0, 10.0]
        .iter()
        .map(|m| m * mag)
        .find(|s| span / s <= 5.0)
        .unwrap_or(10.0 * mag);
    let first = (lo / step).ceil();
    let ticks = (0..8)
        .map(|i| (first + i as f64) * step)
        .take_while(|&v| v <= hi)
        .collect();
    (step, ticks)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The site's axis: two to five ticks inside the range, whatever the range.
    #[test]
    fn site_time_ticks_are_round_and_few() {
        let year = 31_556_952;
        for (t0, t1) in [
            (0, 3600),
            (0, 86_400 * 3),
            (1_700_000_000, 1_700_000_000 + 86_400 * 40),
            (1_700_000_000, 1_700_000_000 + 86_400 * 400),
            (0, 30 * year),
            (-5000 * year, 5000 * year),
            (i64::MIN / 2, i64::MAX / 2),
        ] {
            let ticks = time_ticks(t0, t1, &SITE_STEPS).map_or(vec![t0, t1], |t| t.0);
            assert!((2..=5).contains(&ticks.len()), "{t0}..{t1}: {ticks:?}");
            assert!(ticks.iter().all(|&t| t >= t0 && t <= t1));
        }
        let (step, ticks) = rating_ticks(1480.0, 1620.0);
        assert_eq!(step, 50.0);
        assert_eq!(ticks, [1500.0, 1550.0, 1600.0]);
    }
}
