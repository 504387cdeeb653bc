//! `report.html`: one self-contained HTML page with the metrics table and, per system, charts
//! of its replay.
//!
//! The page has no JavaScript and refers to nothing outside itself: every chart is an inline
//! `<svg>` drawn with the `plotters` SVG backend. Text in the charts is emitted as SVG
//! `<text>` (plotters without its `ttf` feature only estimates text sizes), so the browser
//! renders it with its own sans-serif font.
//!
//! Per system, in this order:
//! 1. rating trajectories of the top players (one line each, with a legend);
//! 2. a histogram of the final ratings (30 bins over their range);
//! 3. the rolling weighted mean of pair inversion % and rank deviation % over the contests;
//! 4. for two-player data only, a calibration chart (predicted win probability, in ten bins,
//!    against the observed frequency of winning).
//!
//! A chart whose data is empty is replaced by a short "no data" note. Series are thinned to at
//! most [`MAX_LINE_POINTS`] points, so the page stays small whatever the history's size.
//!
//! The page is an askama template (`templates/report/`) that escapes every text it is given
//! ([`super::html`]); the charts' SVG goes in as plotters wrote it (plotters escapes the
//! names it draws, and the characters HTML refuses are replaced), the stylesheet is
//! `assets/report.css`. The charts of all the systems are drawn before the page is written.

use super::chart::{self, finite_range, time_range};
use super::text::shorten;
use std::io::{self, Write};

use askama::Template;

use plotters::coord::Shift;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};

/// Everything the report shows; the caller decides the table's columns.
pub struct ReportInput {
    /// Page title (plain text; escaped here).
    pub title: String,
    /// One line describing the input (plain text; escaped here).
    pub description: String,
    /// Column headers of the metrics table.
    pub table_header: Vec<String>,
    /// One row per system, cells in the order of `table_header`.
    pub table_rows: Vec<Vec<String>>,
    /// The charts of each system, in the order shown.
    pub systems: Vec<SystemCharts>,
}

/// The data behind one system's charts.
pub struct SystemCharts {
    /// Where its predictions were worse than knowing nothing of the players (plain text).
    pub warnings: Vec<String>,
    /// The system's name, used as the section heading.
    pub system: String,
    /// Top players: name and (time, rating after the round) in time order.
    pub trajectories: Vec<(String, Vec<(i64, f64)>)>,
    /// Final rating of every rated player.
    pub final_ratings: Vec<f64>,
    /// Per scored contest in replay order: (time, pair inversion %, rank deviation %, scored participants).
    pub contest_metrics: Vec<(i64, f64, f64, u32)>,
    /// Two-entry games: (predicted probability that the first side wins, outcome 1 / 0.5 / 0); empty if none.
    pub calibration: Vec<(f64, f64)>,
    /// Two-entry games: (predicted probability of a draw, 1 if it was one, else 0); drawn
    /// only when the history has draws.
    pub draw_calibration: Vec<(f64, f64)>,
    /// With true ratings (`--truth`): (time, RMSE after the round) per measured round; empty
    /// if none.
    pub rmse: Vec<(i64, f64)>,
    /// With intervals (`--ci`, or a system's Hessian): the top of the leaderboard as (name,
    /// rating, interval's low end, high end), best first; empty if none.
    pub intervals: Vec<(String, f64, f64, f64)>,
}

/// Most points drawn for one line; longer series are thinned to every k-th point.
pub const MAX_LINE_POINTS: usize = 2_000;
/// Bins of the final-rating histogram.
const HISTOGRAM_BINS: usize = 30;
/// Bins of the calibration chart: 0-0.1, ..., 0.9-1.0.
const CALIBRATION_BINS: usize = 10;

/// Width of a full-width chart, in pixels.
const WIDE: u32 = 1200;
/// Width of a half-width chart.
const NARROW: u32 = 640;
const FONT: &str = "sans-serif";
/// Font sizes as plotters takes them (it writes `size / 1.24` pixels into the SVG).
const LABEL_SIZE: u32 = 17;
const DESC_SIZE: u32 = 18;

/// Qualitative colours (Tableau 10, then a darker/lighter set), reused in turn past 20 lines.
const PALETTE: [RGBColor; 20] = [
    RGBColor(31, 119, 180),
    RGBColor(255, 127, 14),
    RGBColor(44, 160, 44),
    RGBColor(214, 39, 40),
    RGBColor(148, 103, 189),
    RGBColor(140, 86, 75),
    RGBColor(227, 119, 194),
    RGBColor(127, 127, 127),
    RGBColor(188, 189, 34),
    RGBColor(23, 190, 207),
    RGBColor(57, 59, 121),
    RGBColor(173, 73, 74),
    RGBColor(99, 121, 57),
    RGBColor(140, 109, 49),
    RGBColor(123, 65, 115),
    RGBColor(82, 84, 163),
    RGBColor(214, 97, 107),
    RGBColor(140, 162, 82),
    RGBColor(189, 158, 57),
    RGBColor(165, 81, 148),
];

/// The page's stylesheet, one rule a line in the file and all on one line in the page.
const STYLE: &str = include_str!("../../assets/report.css");

/// Writes the whole report as one HTML page to `w` (`templates/report/report.html`).
pub fn write_report(w: &mut dyn Write, input: &ReportInput) -> io::Result<()> {
    let sections = input
        .systems
        .iter()
        .map(Section::of)
        .collect::<io::Result<Vec<_>>>()?;
    ReportPage {
        title: &input.title,
        description: &input.description,
        header: &input.table_header,
        rows: &input.table_rows,
        sections,
    }
    .write_into(w)
}

/// The report's page: its text is escaped by the template (`super::html`), its charts are
/// SVG drawn by plotters.
#[derive(Template)]
#[template(path = "report/report.html")]
struct ReportPage<'a> {
    title: &'a str,
    description: &'a str,
    header: &'a [String],
    rows: &'a [Vec<String>],
    sections: Vec<Section<'a>>,
}

/// One system's section: the system, and its charts under their headings (`None`: no data).
struct Section<'a> {
    sys: &'a SystemCharts,
    charts: Vec<(String, Option<String>)>,
}

impl<'a> Section<'a> {
    fn of(sys: &'a SystemCharts) -> io::Result<Self> {
        let mut charts = vec![(
            "Rating trajectories of the top ranked players".to_string(),
            trajectory_chart(&sys.trajectories)?,
        )];
        if !sys.intervals.is_empty() {
            charts.push((
                "The top of the leaderboard with its rating intervals".into(),
                interval_chart(&sys.intervals)?,
            ));
        }
        charts.push((
            "Distribution of final ratings".into(),
            histogram_chart(&sys.final_ratings)?,
        ));
        let window = rolling_window(sys.contest_metrics.len());
        charts.push((
            format!(
                "Metrics over time (weighted rolling mean over {window} contest{})",
                if window == 1 { "" } else { "s" }
            ),
            metrics_chart(&sys.contest_metrics)?,
        ));
        if !sys.rmse.is_empty() {
            charts.push((
                "RMSE of the ratings against the true ratings (mean offset removed)".into(),
                rmse_chart(&sys.rmse)?,
            ));
        }
        if !sys.calibration.is_empty() {
            charts.push((
                "Calibration of predicted win probabilities".into(),
                calibration_chart(
                    &sys.calibration,
                    "predicted probability that the first side wins",
                    "observed win frequency (draw = 0.5)",
                )?,
            ));
        }
        if sys.draw_calibration.iter().any(|d| d.1 > 0.0) {
            charts.push((
                "Calibration of predicted draw probabilities".into(),
                calibration_chart(
                    &sys.draw_calibration,
                    "predicted probability of a draw",
                    "observed draw frequency",
                )?,
            ));
        }
        Ok(Self { sys, charts })
    }
}

/// The stylesheet as the page has it: the file's lines joined.
fn style() -> String {
    STYLE.lines().collect()
}

type Area<'a> = DrawingArea<SVGBackend<'a>, Shift>;

/// A chart's frame on `area`: its margins (all round, and on the right), 48 pixels for the x
/// labels and `y_labels` for the y labels.
fn frame<'a, 'b>(
    area: &'a Area<'b>,
    (margin, right): (u32, u32),
    y_labels: u32,
) -> ChartBuilder<'a, 'b, SVGBackend<'b>> {
    let mut chart = ChartBuilder::on(area);
    chart.margin(margin).margin_right(right);
    chart.x_label_area_size(48).y_label_area_size(y_labels);
    chart
}
type DrawResult = Result<(), Box<dyn std::error::Error + 'static>>;

/// Draws onto a fresh SVG canvas of `size` pixels and returns the `<svg>` element (`Some`,
/// as a chart with data returns it).
fn render(
    size: (u32, u32),
    draw: impl FnOnce(&Area<'_>) -> DrawResult,
) -> io::Result<Option<String>> {
    let mut svg = String::new();
    {
        let root = SVGBackend::with_string(&mut svg, size).into_drawing_area();
        root.fill(&WHITE).map_err(io::Error::other)?;
        draw(&root).map_err(|e| io::Error::other(e.to_string()))?;
        root.present().map_err(io::Error::other)?;
    }
    // (Names drawn as the charts' text: no character HTML refuses.)
    Ok(Some(super::html::html_text(&svg).into_owned()))
}

/// Every k-th point, k chosen so that at most `max` are kept; the last point is always kept.
fn thin<T: Copy>(points: &[T], max: usize) -> Vec<T> {
    if points.len() <= max || max < 2 {
        return points.to_vec();
    }
    let k = points.len().div_ceil(max - 1);
    let mut out: Vec<T> = points.iter().step_by(k).copied().collect();
    if !(points.len() - 1).is_multiple_of(k) {
        out.push(points[points.len() - 1]);
    }
    out
}

/// Decimals for tick labels on an axis spanning `span`, enough to tell ~8 ticks apart.
fn decimals(span: f64) -> usize {
    let step = span / 8.0;
    if step >= 1.0 || !step.is_finite() || step <= 0.0 {
        0
    } else {
        ((-step.log10()).ceil() as usize).min(6)
    }
}

/// Widens `(lo, hi)` by `frac` of its span on both sides (by 1 when the span is 0).
fn pad(lo: f64, hi: f64, frac: f64) -> (f64, f64) {
    let span = hi - lo;
    if span > 0.0 {
        (lo - span * frac, hi + span * frac)
    } else {
        (lo - 1.0, hi + 1.0)
    }
}

/// The ticks of a time axis (shared with the site: [`super::chart`]), or its two ends when no
/// round step fits; and whether the labels show the time of day.
fn time_axis(t0: i64, t1: i64) -> (Vec<i64>, bool) {
    match chart::time_ticks(t0, t1, &chart::REPORT_STEPS) {
        Some((ticks, unit)) if !ticks.is_empty() => (ticks, unit == chart::TimeUnit::Hour),
        _ => (vec![t0, t1], (t1 as i128 - t0 as i128) < 3 * 86_400),
    }
}

/// Label for a time-axis tick: the date, with the time of day when `with_time`.
fn time_label(t: i64, with_time: bool) -> String {
    match chrono::DateTime::from_timestamp(t, 0) {
        Some(d) if with_time => d.format("%Y-%m-%d %H:%M").to_string(),
        Some(d) => d.format("%Y-%m-%d").to_string(),
        None => t.to_string(),
    }
}

/// Rating trajectories of the top players, legend on the right; `None` when there is no point.
fn trajectory_chart(players: &[(String, Vec<(i64, f64)>)]) -> io::Result<Option<String>> {
    let players: Vec<(&str, Vec<(i64, f64)>)> = players
        .iter()
        .map(|(name, pts)| {
            let finite: Vec<(i64, f64)> =
                pts.iter().copied().filter(|(_, r)| r.is_finite()).collect();
            (name.as_str(), thin(&finite, MAX_LINE_POINTS))
        })
        .filter(|(_, pts)| !pts.is_empty())
        .collect();
    let Some((t0, t1)) = time_range(players.iter().flat_map(|(_, p)| p.iter().map(|x| x.0))) else {
        return Ok(None);
    };
    let (y0, y1) = finite_range(players.iter().flat_map(|(_, p)| p.iter().map(|x| x.1)))
        .map(|(lo, hi)| pad(lo, hi, 0.05))
        .expect("finite points were kept");

    const ROW: u32 = 22;
    const LEGEND_W: u32 = 290;
    let height = 500.max(70 + ROW * players.len() as u32);
    render((WIDE, height), |root| {
        let (plot, legend) = root.split_horizontally(WIDE - LEGEND_W);
        let (ticks, with_time) = time_axis(t0, t1);
        let xfmt = |t: &i64| time_label(*t, with_time);
        let mut chart = frame(&plot, (12, 12), 70)
            .build_cartesian_2d((t0..t1).with_key_points(ticks), y0..y1)?;
        chart
            .configure_mesh()
            .y_labels(8)
            .x_label_formatter(&xfmt)
            .y_label_formatter(&|y| format!("{y:.*}", decimals(y1 - y0)))
            .x_desc("date")
            .y_desc("rating")
            .label_style((FONT, LABEL_SIZE))
            .axis_desc_style((FONT, DESC_SIZE))
            .light_line_style(WHITE.mix(0.0))
            .draw()?;
        for (i, (_, pts)) in players.iter().enumerate() {
            let color = PALETTE[i % PALETTE.len()];
            // A lone point would draw no line: mark it.
            let marker = if pts.len() == 1 { 3 } else { 0 };
            chart.draw_series(
                LineSeries::new(pts.iter().copied(), color.stroke_width(2)).point_size(marker),
            )?;
        }

        let title =
            TextStyle::from((FONT, DESC_SIZE).into_font().style(FontStyle::Bold)).color(&BLACK);
        legend.draw(&Text::new("player (final rating)", (8, 14), title))?;
        let label = TextStyle::from((FONT, LABEL_SIZE).into_font())
            .color(&BLACK)
            .pos(Pos::new(HPos::Left, VPos::Center));
        for (i, (name, pts)) in players.iter().enumerate() {
            let color = PALETTE[i % PALETTE.len()];
            let y = 48 + (i as u32 * ROW) as i32;
            legend.draw(&PathElement::new(
                vec![(8, y), (30, y)],
                color.stroke_width(3),
            ))?;
            let last = pts.last().map_or(f64::NAN, |p| p.1);
            let text = format!("{} ({last:.0})", shorten(name, 22));
            legend.draw(&Text::new(text, (38, y), label.clone()))?;
        }
        Ok(())
    })
}

/// Counts of `values` in `bins` equal bins over their range: (lower edge, width, counts).
/// Non-finite values are ignored; `None` when no value is finite.
fn histogram(values: &[f64], bins: usize) -> Option<(f64, f64, Vec<u64>)> {
    let (lo, hi) = finite_range(values.iter().copied())?;
    let (lo, hi) = if hi > lo {
        (lo, hi)
    } else {
        (lo - 0.5, hi + 0.5)
    };
    let width = (hi - lo) / bins as f64;
    let mut counts = vec![0u64; bins];
    for &v in values.iter().filter(|v| v.is_finite()) {
        let i = (((v - lo) / width) as usize).min(bins - 1);
        counts[i] += 1;
    }
    Some((lo, width, counts))
}

/// Histogram of the final ratings; `None` when there is no finite rating.
fn histogram_chart(ratings: &[f64]) -> io::Result<Option<String>> {
    let Some((lo, width, counts)) = histogram(ratings, HISTOGRAM_BINS) else {
        return Ok(None);
    };
    let hi = lo + width * HISTOGRAM_BINS as f64;
    let top = counts.iter().copied().max().unwrap_or(0).max(1) as f64 * 1.08;
    let total: u64 = counts.iter().sum();
    render((NARROW + 160, 400), |root| {
        let mut chart = frame(root, (12, 36), 80).build_cartesian_2d(lo..hi, 0.0..top)?;
        chart
            .configure_mesh()
            .x_labels(12)
            .y_labels(6)
            .x_label_formatter(&|x| format!("{x:.*}", decimals(hi - lo)))
            .y_label_formatter(&|y| format!("{y:.0}"))
            .x_desc(format!(
                "final rating ({total} players, {HISTOGRAM_BINS} bins)"
            ))
            .y_desc("players")
            .label_style((FONT, LABEL_SIZE))
            .axis_desc_style((FONT, DESC_SIZE))
            .disable_x_mesh()
            .light_line_style(WHITE.mix(0.0))
            .draw()?;
        let bars = || {
            counts
                .iter()
                .enumerate()
                .map(|(i, &c)| (lo + width * i as f64, c))
        };
        let bar = |x0: f64, c: u64| [(x0, 0.0), (x0 + width, c as f64)];
        let fill = PALETTE[0].mix(0.85).filled();
        chart.draw_series(bars().map(|(x0, c)| Rectangle::new(bar(x0, c), fill)))?;
        let outline = WHITE.stroke_width(1);
        let drawn = bars().filter(|b| b.1 > 0);
        chart.draw_series(drawn.map(|(x0, c)| Rectangle::new(bar(x0, c), outline)))?;
        Ok(())
    })
}

/// The top players' ratings as dots with their intervals as bars, best at the top.
fn interval_chart(players: &[(String, f64, f64, f64)]) -> io::Result<Option<String>> {
    let Some((lo, hi)) = finite_range(players.iter().flat_map(|p| [p.2, p.3])) else {
        return Ok(None);
    };
    let (lo, hi) = pad(lo, hi, 0.05);
    let n = players.len();
    let height = 80 + 22 * n as u32;
    render((WIDE, height), |root| {
        let mut chart =
            frame(root, (12, 36), 220).build_cartesian_2d(lo..hi, -0.5..n as f64 - 0.5)?;
        chart
            .configure_mesh()
            .x_labels(12)
            .y_labels(n)
            .x_label_formatter(&|x| format!("{x:.*}", decimals(hi - lo)))
            .y_label_formatter(&|y| {
                let k = n as f64 - 1.0 - y.round();
                players
                    .get(k as usize)
                    .filter(|_| (y - y.round()).abs() < 1e-6 && k >= 0.0)
                    .map(|p| format!("{} {}", k as usize + 1, shorten(&p.0, 24)))
                    .unwrap_or_default()
            })
            .x_desc("rating, with its interval")
            .label_style((FONT, LABEL_SIZE))
            .axis_desc_style((FONT, DESC_SIZE))
            .disable_y_mesh()
            .draw()?;
        let colour = PALETTE[0];
        let y = |k: usize| n as f64 - 1.0 - k as f64;
        chart.draw_series(players.iter().enumerate().map(|(k, p)| {
            PathElement::new(vec![(p.2, y(k)), (p.3, y(k))], colour.stroke_width(3))
        }))?;
        chart.draw_series(
            players
                .iter()
                .enumerate()
                .map(|(k, p)| Circle::new((p.1, y(k)), 4, BLACK.filled())),
        )?;
        Ok(())
    })
}

/// The rolling window, in contests, for `contests` scored contests: max(1, contests / 50).
pub fn rolling_window(contests: usize) -> usize {
    (contests / 50).max(1)
}

/// Rolling weighted mean of `(value, weight)` over the last `window` entries, one per entry
/// from the first full window on (entry `window - 1`). Non-finite values count with weight 0;
/// `None` where the window's weight is 0.
pub fn rolling_weighted_mean(series: &[(f64, u32)], window: usize) -> Vec<Option<f64>> {
    let window = window.max(1);
    let term = |&(v, w): &(f64, u32)| {
        if v.is_finite() {
            (v * w as f64, w as u64)
        } else {
            (0.0, 0)
        }
    };
    let mut out = Vec::with_capacity(series.len().saturating_sub(window - 1));
    let (mut sum, mut weight) = (0.0f64, 0u64);
    for (i, entry) in series.iter().enumerate() {
        let (s, w) = term(entry);
        sum += s;
        weight += w;
        if i >= window {
            let (s, w) = term(&series[i - window]);
            sum -= s;
            weight -= w;
        }
        if i + 1 >= window {
            out.push(if weight > 0 {
                Some(sum / weight as f64)
            } else {
                None
            });
        }
        // Recompute now and then so that rounding in the running sum cannot build up.
        if i % 4096 == 4095 && i + 1 >= window {
            let from = i + 1 - window;
            let (s, w) = series[from..=i]
                .iter()
                .map(term)
                .fold((0.0, 0), |a, b| (a.0 + b.0, a.1 + b.1));
            sum = s;
            weight = w;
        }
    }
    out
}

/// The rolling series of one metric: (time, value), thinned to [`MAX_LINE_POINTS`].
fn rolling_series(
    metrics: &[(i64, f64, f64, u32)],
    pick: fn(&(i64, f64, f64, u32)) -> f64,
) -> Vec<(i64, f64)> {
    let window = rolling_window(metrics.len());
    let series: Vec<(f64, u32)> = metrics.iter().map(|m| (pick(m), m.3)).collect();
    let means = rolling_weighted_mean(&series, window);
    let points: Vec<(i64, f64)> = metrics[window - 1..]
        .iter()
        .zip(means)
        .filter_map(|(m, v)| v.map(|v| (m.0, v)))
        .collect();
    thin(&points, MAX_LINE_POINTS)
}

/// Pair inversion % and rank deviation % over time; `None` when there is no contest.
fn metrics_chart(metrics: &[(i64, f64, f64, u32)]) -> io::Result<Option<String>> {
    if metrics.is_empty() {
        return Ok(None);
    }
    let lines = [
        ("pair inversion %", rolling_series(metrics, |m| m.1)),
        ("rank deviation %", rolling_series(metrics, |m| m.2)),
    ];
    time_lines_chart(&lines, "percent", &|y| format!("{y:.1}%"))
}

/// The RMSE of the ratings against the true ones, per measured round.
fn rmse_chart(points: &[(i64, f64)]) -> io::Result<Option<String>> {
    let finite: Vec<(i64, f64)> = points.iter().copied().filter(|p| p.1.is_finite()).collect();
    if finite.is_empty() {
        return Ok(None);
    }
    let lines = [("RMSE", thin(&finite, MAX_LINE_POINTS))];
    time_lines_chart(&lines, "RMSE (rating points)", &|y| format!("{y:.0}"))
}

/// Lines over time from 0 up, with a legend.
fn time_lines_chart(
    lines: &[(&str, Vec<(i64, f64)>)],
    y_desc: &str,
    yfmt: &dyn Fn(&f64) -> String,
) -> io::Result<Option<String>> {
    let Some((t0, t1)) = time_range(lines.iter().flat_map(|(_, p)| p.iter().map(|x| x.0))) else {
        return Ok(None);
    };
    let (_, hi) = finite_range(lines.iter().flat_map(|(_, p)| p.iter().map(|x| x.1)))
        .expect("points have finite values");
    let top = if hi > 0.0 { hi * 1.1 } else { 1.0 };
    render((WIDE, 400), |root| {
        let (ticks, with_time) = time_axis(t0, t1);
        let xfmt = |t: &i64| time_label(*t, with_time);
        let mut chart = frame(root, (12, 30), 70)
            .build_cartesian_2d((t0..t1).with_key_points(ticks), 0.0..top)?;
        chart
            .configure_mesh()
            .x_labels(8)
            .y_labels(8)
            .x_label_formatter(&xfmt)
            .y_label_formatter(yfmt)
            .x_desc("date (contest time)")
            .y_desc(y_desc)
            .label_style((FONT, LABEL_SIZE))
            .axis_desc_style((FONT, DESC_SIZE))
            .light_line_style(WHITE.mix(0.0))
            .draw()?;
        for (i, (name, pts)) in lines.iter().enumerate() {
            let color = PALETTE[i];
            chart
                .draw_series(LineSeries::new(pts.iter().copied(), color.stroke_width(2)))?
                .label(*name)
                .legend(move |(x, y)| {
                    PathElement::new(vec![(x, y), (x + 22, y)], color.stroke_width(3))
                });
        }
        legend(&mut chart, SeriesLabelPosition::LowerRight)?;
        Ok(())
    })
}

/// A page of one chart: lines `(x, y)` with a legend, the y axis logarithmic (values must be
/// positive; others are left out), under a title and a Markdown-free text paragraph, and a
/// table (header and rows of cells). For the lab's experiment reports (`rate-batch-lab
/// experiment`).
pub fn write_lines_page(
    w: &mut dyn Write,
    title: &str,
    text: &str,
    (header, rows): (&[String], &[Vec<String>]),
    series: &[(String, Vec<(f64, f64)>)],
    (x_desc, y_desc): (&str, &str),
) -> io::Result<()> {
    LinesPage {
        title,
        text,
        header,
        rows,
        chart: log_lines_chart(series, x_desc, y_desc)?,
    }
    .write_into(w)
}

/// The page of [`write_lines_page`].
#[derive(Template)]
#[template(path = "report/lines.html")]
struct LinesPage<'a> {
    title: &'a str,
    text: &'a str,
    header: &'a [String],
    rows: &'a [Vec<String>],
    chart: Option<String>,
}

/// The chart of [`write_lines_page`]: one line a series on a logarithmic y axis, the
/// points that cannot be drawn on it left out.
fn log_lines_chart(
    series: &[(String, Vec<(f64, f64)>)],
    x_desc: &str,
    y_desc: &str,
) -> io::Result<Option<String>> {
    let lines: Vec<(&str, Vec<(f64, f64)>)> = series
        .iter()
        .map(|(n, p)| {
            let ok: Vec<(f64, f64)> = p
                .iter()
                .copied()
                .filter(|q| q.0.is_finite() && q.1.is_finite() && q.1 > 0.0)
                .collect();
            (n.as_str(), thin(&ok, MAX_LINE_POINTS))
        })
        .collect();
    let (Some((x0, x1)), Some((y0, y1))) = (
        finite_range(lines.iter().flat_map(|(_, p)| p.iter().map(|q| q.0))),
        finite_range(lines.iter().flat_map(|(_, p)| p.iter().map(|q| q.1))),
    ) else {
        return Ok(None);
    };
    render((WIDE, 520), |root| {
        let mut chart = frame(root, (12, 30), 80)
            .build_cartesian_2d(x0..x1.max(x0 + 1.0), (y0 * 0.8..y1 * 1.25).log_scale())?;
        chart
            .configure_mesh()
            .x_desc(x_desc)
            .y_desc(y_desc)
            .y_labels(16)
            .x_label_formatter(&|x| format!("{x:.0}"))
            .y_label_formatter(&|y| format!("{y:.0}"))
            .label_style((FONT, LABEL_SIZE))
            .axis_desc_style((FONT, DESC_SIZE))
            .draw()?;
        for (i, (name, pts)) in lines.iter().enumerate() {
            let color = PALETTE[i % PALETTE.len()];
            chart
                .draw_series(LineSeries::new(pts.iter().copied(), color.stroke_width(2)))?
                .label(*name)
                .legend(move |(x, y)| {
                    PathElement::new(vec![(x, y), (x + 22, y)], color.stroke_width(3))
                });
        }
        legend(&mut chart, SeriesLabelPosition::UpperRight)?;
        Ok(())
    })
}

/// Draws a chart's legend box at `position`, in the report's style.
fn legend<'a, DB: DrawingBackend + 'a, CT: CoordTranslate>(
    chart: &mut ChartContext<'a, DB, CT>,
    position: SeriesLabelPosition,
) -> Result<(), DrawingAreaErrorKind<DB::ErrorType>> {
    chart
        .configure_series_labels()
        .position(position)
        .label_font((FONT, LABEL_SIZE))
        .background_style(WHITE.mix(0.85))
        .border_style(BLACK.mix(0.4))
        .draw()
}

/// One bin of the calibration chart.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct CalibrationBin {
    /// Games whose predicted probability fell in the bin.
    pub games: u64,
    /// Mean predicted probability of those games.
    pub predicted: f64,
    /// Observed frequency of the first side winning (a draw counts 0.5).
    pub observed: f64,
}

/// Bins (predicted, outcome) pairs by predicted probability into `[i/10, (i+1)/10)` (1.0 goes
/// to the last bin). Pairs with a non-finite probability or outcome are skipped; probabilities
/// are clamped to [0, 1].
pub fn calibration_bins(games: &[(f64, f64)]) -> [CalibrationBin; CALIBRATION_BINS] {
    let mut acc = [(0u64, 0.0f64, 0.0f64); CALIBRATION_BINS];
    for &(p, outcome) in games {
        if !p.is_finite() || !outcome.is_finite() {
            continue;
        }
        let p = p.clamp(0.0, 1.0);
        let i = ((p * CALIBRATION_BINS as f64) as usize).min(CALIBRATION_BINS - 1);
        acc[i].0 += 1;
        acc[i].1 += p;
        acc[i].2 += outcome;
    }
    acc.map(|(n, p, o)| CalibrationBin {
        games: n,
        predicted: if n > 0 { p / n as f64 } else { f64::NAN },
        observed: if n > 0 { o / n as f64 } else { f64::NAN },
    })
}

/// Calibration: observed frequency per bin against the mean predicted probability (of a
/// win, or of a draw), with the diagonal as reference; `None` when no game is usable.
fn calibration_chart(
    games: &[(f64, f64)],
    x_desc: &str,
    y_desc: &str,
) -> io::Result<Option<String>> {
    let bins: Vec<CalibrationBin> = calibration_bins(games)
        .into_iter()
        .filter(|b| b.games > 0)
        .collect();
    if bins.is_empty() {
        return Ok(None);
    }
    let total: u64 = bins.iter().map(|b| b.games).sum();
    render((NARROW, 610), |root| {
        let mut chart = frame(root, (16, 28), 64)
            // A little room around [0, 1] so that points on the edges are drawn whole.
            .build_cartesian_2d(-0.02..1.02, -0.02..1.02)?;
        chart
            .configure_mesh()
            .x_labels(12)
            .y_labels(12)
            .x_label_formatter(&|x| format!("{x:.1}"))
            .y_label_formatter(&|y| format!("{y:.1}"))
            .x_desc(format!("{x_desc} ({total} games)"))
            .y_desc(y_desc)
            .label_style((FONT, LABEL_SIZE))
            .axis_desc_style((FONT, DESC_SIZE))
            .light_line_style(WHITE.mix(0.0))
            .draw()?;
        let grey = RGBColor(150, 150, 150);
        chart
            .draw_series(LineSeries::new(
                [(0.0, 0.0), (1.0, 1.0)],
                grey.stroke_width(1),
            ))?
            .label("perfect calibration (y = x)")
            .legend(move |(x, y)| {
                PathElement::new(vec![(x, y), (x + 22, y)], grey.stroke_width(2))
            });
        let color = PALETTE[3];
        chart.draw_series(LineSeries::new(
            bins.iter().map(|b| (b.predicted, b.observed)),
            color.mix(0.5).stroke_width(1),
        ))?;
        let max_games = bins.iter().map(|b| b.games).max().unwrap_or(1) as f64;
        let label = TextStyle::from((FONT, 15).into_font()).color(&RGBColor(60, 60, 60));
        chart
            .draw_series(bins.iter().map(|b| {
                // Area grows with the number of games: radius 3 to 11 pixels.
                let r = (3.0 + 8.0 * (b.games as f64 / max_games).sqrt()).round() as i32;
                // The count goes below right of the point, or above left near the right edge.
                let (at, pos) = if b.predicted < 0.75 {
                    ((r + 3, 2), Pos::new(HPos::Left, VPos::Top))
                } else {
                    ((-r - 3, -2), Pos::new(HPos::Right, VPos::Bottom))
                };
                EmptyElement::at((b.predicted, b.observed))
                    + Circle::new((0, 0), r, color.filled())
                    + Text::new(format!("n={}", b.games), at, label.pos(pos))
            }))?
            .label("observed, by bin (size and n = games)")
            .legend(move |(x, y)| Circle::new((x + 11, y), 5, color.filled()));
        legend(&mut chart, SeriesLabelPosition::UpperLeft)?;
        Ok(())
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    const DAY: i64 = 86_400;
    /// 2024-01-01T00:00:00Z.
    const T0: i64 = 1_704_067_200;

    fn render_page(input: &ReportInput) -> String {
        let mut out = Vec::new();
        write_report(&mut out, input).unwrap();
        String::from_utf8(out).unwrap()
    }

    fn count(haystack: &str, needle: &str) -> usize {
        haystack.matches(needle).count()
    }

    /// A deterministic pseudo-random stream in [0, 1) (no dependency needed).
    struct Lcg(u64);
    impl Lcg {
        fn next(&mut self) -> f64 {
            self.0 = self
                .0
                .wrapping_mul(6_364_136_223_846_793_005)
                .wrapping_add(1_442_695_040_888_963_407);
            (self.0 >> 11) as f64 / (1u64 << 53) as f64
        }
    }

    /// A small but realistic system: `players` trajectories over `contests` contests.
    fn sample_system(
        name: &str,
        players: usize,
        contests: usize,
        calibration: bool,
    ) -> SystemCharts {
        let mut rng = Lcg(42);
        let trajectories = (0..players)
            .map(|p| {
                let mut r = 1500.0 + 40.0 * p as f64;
                let pts = (0..contests)
                    .filter(|c| (c + p) % 3 != 0)
                    .map(|c| {
                        r += (rng.next() - 0.45) * 60.0;
                        (T0 + c as i64 * 3 * DAY, r)
                    })
                    .collect();
                (format!("player_{p}"), pts)
            })
            .collect();
        let final_ratings = (0..5_000)
            .map(|_| {
                let s: f64 = (0..6).map(|_| rng.next()).sum::<f64>() - 3.0;
                1500.0 + 250.0 * s
            })
            .collect();
        let contest_metrics = (0..contests)
            .map(|c| {
                let x = c as f64 / contests as f64;
                (
                    T0 + c as i64 * 3 * DAY,
                    30.0 - 8.0 * x + 6.0 * (rng.next() - 0.5),
                    22.0 - 5.0 * x + 6.0 * (rng.next() - 0.5),
                    50 + (rng.next() * 500.0) as u32,
                )
            })
            .collect();
        let calibration = if calibration {
            (0..20_000)
                .map(|_| {
                    let p = rng.next();
                    let q = 0.5 + (p - 0.5) * 0.85;
                    let u = rng.next();
                    let o = if u < 0.05 {
                        0.5
                    } else if u < q {
                        1.0
                    } else {
                        0.0
                    };
                    (p, o)
                })
                .collect()
        } else {
            Vec::new()
        };
        SystemCharts {
            system: name.to_string(),
            warnings: vec!["its log-loss <0.8> is worse".into()],
            trajectories,
            final_ratings,
            contest_metrics,
            calibration,
            draw_calibration: Vec::new(),
            rmse: Vec::new(),
            intervals: Vec::new(),
        }
    }

    fn sample_input() -> ReportInput {
        let mut elo = sample_system("elo", 10, 300, true);
        elo.trajectories[0].0 = "<b>Tom & \"Jerry\"</b>".to_string();
        ReportInput {
            title: "rate-batch report: sample".into(),
            description: "sample.csv: 300 contests, 5000 players, 120000 rows".into(),
            table_header: vec![
                "system".into(),
                "pair inversion %".into(),
                "rank deviation %".into(),
                "seconds".into(),
            ],
            table_rows: vec![
                vec!["elo".into(), "25.1".into(), "19.3".into(), "0.8".into()],
                vec![
                    "glicko <2>".into(),
                    "24.7".into(),
                    "18.9".into(),
                    "1.1".into(),
                ],
            ],
            systems: vec![elo, sample_system("glicko <2>", 12, 120, false)],
        }
    }

    /// Structural checks shared by the tests: the page is one HTML document whose `<svg>`
    /// elements are all closed, with no script and no reference outside itself.
    fn assert_well_formed(html: &str) {
        assert!(
            html.starts_with("<!DOCTYPE html>"),
            "{}",
            &html[..40.min(html.len())]
        );
        assert!(html.trim_end().ends_with("</html>"));
        assert_eq!(count(html, "<svg"), count(html, "</svg>"));
        assert!(!html.to_ascii_lowercase().contains("<script"));
        let without_ns = html.replace("http://www.w3.org/2000/svg", "");
        assert!(!without_ns.contains("http://"));
        assert!(!without_ns.contains("https://"));
        // Every <svg> is closed before the next one opens.
        let mut depth = 0i32;
        for (i, _) in html.match_indices("svg") {
            if html[..i].ends_with('<') {
                depth += 1;
            } else if html[..i].ends_with("</") {
                depth -= 1;
            }
            assert!(
                (0..=1).contains(&depth),
                "nested or unbalanced <svg> at {i}"
            );
        }
        assert_eq!(depth, 0);
    }

    #[test]
    fn report_is_well_formed_with_one_svg_per_chart() {
        let html = render_page(&sample_input());
        assert_well_formed(&html);
        // elo: 4 charts (with calibration); glicko: 3.
        assert_eq!(count(&html, "<svg"), 7);
        assert_eq!(count(&html, "<section>"), 2);
        assert_eq!(count(&html, "no data"), 0);
        assert_eq!(count(&html, "<tr>"), 3);
        assert!(html.contains("<th>pair inversion %</th>"));
        // Sections in the given order, each with the four charts in order.
        let elo = html.find("<h2>elo</h2>").unwrap();
        let glicko = html.find("<h2>glicko &lt;2&gt;</h2>").unwrap();
        assert!(elo < glicko);
        let order: Vec<usize> = [
            "Rating trajectories",
            "Distribution of final ratings",
            "Metrics over time",
            "Calibration",
        ]
        .iter()
        .map(|h| html[elo..].find(h).unwrap())
        .collect();
        assert!(order.windows(2).all(|w| w[0] < w[1]), "{order:?}");
        // Dates on the time axis, names in the legend.
        // 300 contests 3 days apart from 2024-01-01: ticks on the first of every 6th month.
        assert!(html.contains("\n2024-07-01\n</text>"));
        assert!(html.contains("\n2025-01-01\n</text>"));
        assert!(html.contains("player_3 ("));
    }

    #[test]
    fn names_and_strings_are_escaped() {
        let html = render_page(&sample_input());
        assert!(!html.contains("<b>Tom"));
        assert!(!html.contains("Tom & "));
        assert!(!html.contains("glicko <2>"));
        assert!(html.contains("&lt;b&gt;Tom &amp; &quot;Jerry&quot;&lt;/b&gt;"));
        // A system's warning is shown, escaped.
        assert!(html.contains(
            "<p class=\"warn\">Predicts worse than knowing nothing of the players: its log-loss \
             &lt;0.8&gt; is worse</p>"
        ));
        assert!(html.contains("<td>glicko &lt;2&gt;</td>"));
    }

    /// A hostile name in every text of the page the template writes (title, description,
    /// table, section, warning) and in a chart's legend: escaped, its control character
    /// replaced, never markup.
    #[test]
    fn a_hostile_name_is_escaped_everywhere() {
        let hostile = "<script>&\"'\x01x";
        let mut input = sample_input();
        input.title = hostile.into();
        input.description = hostile.into();
        input.table_rows[0][0] = hostile.into();
        input.systems[0].system = hostile.into();
        input.systems[0].warnings = vec![hostile.into()];
        input.systems[0].trajectories[0].0 = hostile.into();
        let html = render_page(&input);
        assert_well_formed(&html);
        assert!(!html.contains("<script") && !html.contains('\x01'));
        let escaped = "&lt;script&gt;&amp;&quot;&#39;\u{fffd}x";
        for needle in [
            format!("<title>{escaped}</title>"),
            format!("<h1>{escaped}</h1>"),
            format!("<p class=\"desc\">{escaped}</p>"),
            format!("<tr><td>{escaped}</td>"),
            format!("<h2>{escaped}</h2>"),
            format!("players: {escaped}</p>"),
        ] {
            assert!(html.contains(&needle), "{needle}");
        }
        // plotters writes its own entities in the SVG (&apos; for the apostrophe).
        assert!(html.contains("&lt;script&gt;&amp;&quot;&apos;\u{fffd}x ("));
    }

    #[test]
    fn empty_data_gives_no_data_notes_instead_of_charts() {
        let input = ReportInput {
            title: "t".into(),
            description: "d".into(),
            table_header: vec!["system".into()],
            table_rows: vec![vec!["x".into()]],
            systems: vec![
                SystemCharts {
                    system: "empty".into(),
                    warnings: Vec::new(),
                    trajectories: vec![("nobody".into(), vec![])],
                    final_ratings: vec![],
                    contest_metrics: vec![],
                    calibration: vec![],
                    draw_calibration: vec![],
                    rmse: vec![],
                    intervals: Vec::new(),
                },
                SystemCharts {
                    system: "only ratings".into(),
                    warnings: Vec::new(),
                    trajectories: vec![],
                    final_ratings: vec![1500.0; 3],
                    contest_metrics: vec![(T0, 10.0, 5.0, 0)],
                    calibration: vec![(f64::NAN, 1.0)],
                    draw_calibration: vec![],
                    rmse: vec![],
                    intervals: Vec::new(),
                },
            ],
        };
        let html = render_page(&input);
        assert_well_formed(&html);
        // "empty": 3 notes; "only ratings": a histogram of one value, a metrics chart whose
        // only contest has weight 0 (no data), a calibration with no usable game (no data),
        // and no trajectories.
        assert_eq!(count(&html, "<svg"), 1);
        assert_eq!(count(&html, "<p class=\"nodata\">no data</p>"), 3 + 3);
    }

    #[test]
    fn calibration_bins_hand_made() {
        let mut games = vec![(0.15, 1.0), (0.15, 0.0), (0.15, 0.0), (0.15, 0.0)];
        games.extend([(0.95, 1.0), (0.95, 0.5), (1.0, 1.0), (0.5, 0.5), (0.0, 0.0)]);
        games.push((f64::NAN, 1.0));
        let bins = calibration_bins(&games);
        assert_eq!(bins[1].games, 4);
        assert!((bins[1].observed - 0.25).abs() < 1e-12);
        assert!((bins[1].predicted - 0.15).abs() < 1e-12);
        // 0.95, 0.95 and 1.0 fall in the last bin: (1 + 0.5 + 1) / 3.
        assert_eq!(bins[9].games, 3);
        assert!((bins[9].observed - 2.5 / 3.0).abs() < 1e-12);
        assert_eq!(bins[5].games, 1);
        assert_eq!(bins[5].observed, 0.5);
        assert_eq!(bins[0].games, 1);
        assert_eq!(bins[0].observed, 0.0);
        for i in [2, 3, 4, 6, 7, 8] {
            assert_eq!(bins[i].games, 0);
            assert!(bins[i].observed.is_nan());
        }
        assert_eq!(bins.iter().map(|b| b.games).sum::<u64>(), 9);
    }

    #[test]
    fn rolling_weighted_mean_hand_computed() {
        let series = [(10.0, 1), (20.0, 3), (30.0, 0), (40.0, 1), (f64::NAN, 5)];
        let m = rolling_weighted_mean(&series, 2);
        // (10*1 + 20*3)/4, (20*3 + 30*0)/3, (30*0 + 40*1)/1, (40*1)/1 (NaN has no weight).
        assert_eq!(m, vec![Some(17.5), Some(20.0), Some(40.0), Some(40.0)]);
        let m = rolling_weighted_mean(&series, 3);
        // (10 + 60 + 0)/4, (60 + 0 + 40)/4, (0 + 40 + 0)/1.
        assert_eq!(m, vec![Some(17.5), Some(25.0), Some(40.0)]);
        assert_eq!(rolling_weighted_mean(&series[..1], 1), vec![Some(10.0)]);
        assert_eq!(rolling_weighted_mean(&[(3.0, 0)], 1), vec![None]);
        assert!(rolling_weighted_mean(&series, 6).is_empty());

        assert_eq!(rolling_window(0), 1);
        assert_eq!(rolling_window(99), 1);
        assert_eq!(rolling_window(100), 2);
        assert_eq!(rolling_window(30_000), 600);

        // The running sum agrees with the direct one over a long series.
        let mut rng = Lcg(7);
        let long: Vec<(f64, u32)> = (0..20_000)
            .map(|_| (rng.next() * 100.0, (rng.next() * 1000.0) as u32))
            .collect();
        let m = rolling_weighted_mean(&long, 400);
        assert_eq!(m.len(), long.len() - 399);
        for (j, v) in m.iter().enumerate().step_by(997) {
            let win = &long[j..j + 400];
            let w: u64 = win.iter().map(|x| x.1 as u64).sum();
            let s: f64 = win.iter().map(|x| x.0 * x.1 as f64).sum();
            assert!((v.unwrap() - s / w as f64).abs() < 1e-9);
        }
    }

    #[test]
    fn time_axes_end_for_any_times() {
        for (t0, t1) in [
            (i64::MIN, i64::MAX),
            (i64::MAX, i64::MAX),
            (i64::MIN, i64::MIN),
            (i64::MAX - 1, i64::MAX),
            (0, i64::MAX),
        ] {
            let (ticks, _) = time_axis(t0, t1);
            assert!(!ticks.is_empty() && ticks.len() <= 9, "{t0} {t1}");
        }
    }

    #[test]
    fn time_ticks_fall_on_round_dates() {
        let label = |(ticks, with_time): (Vec<i64>, bool)| -> Vec<String> {
            ticks.iter().map(|&t| time_label(t, with_time)).collect()
        };
        // 10 days from noon: one tick every 2 days, at midnight.
        assert_eq!(
            label(time_axis(T0 + DAY / 2, T0 + 10 * DAY + DAY / 2)),
            [
                "2024-01-02",
                "2024-01-04",
                "2024-01-06",
                "2024-01-08",
                "2024-01-10"
            ]
        );
        // Three years: every 6 months, on the first of the month.
        assert_eq!(
            label(time_axis(T0 + 40 * DAY, T0 + 3 * 365 * DAY)),
            [
                "2024-07-01",
                "2025-01-01",
                "2025-07-01",
                "2026-01-01",
                "2026-07-01"
            ]
        );
        // 20 hours: every 3 hours, with the time of day.
        assert_eq!(
            label(time_axis(T0 + 3_600, T0 + 21 * 3_600)),
            [
                "2024-01-01 03:00",
                "2024-01-01 06:00",
                "2024-01-01 09:00",
                "2024-01-01 12:00",
                "2024-01-01 15:00",
                "2024-01-01 18:00",
                "2024-01-01 21:00"
            ]
        );
        // Decades: yearly multiples.
        let (ticks, _) = time_axis(0, 40 * 365 * DAY);
        assert!((2..=8).contains(&ticks.len()), "{ticks:?}");
        assert!(
            ticks
                .iter()
                .all(|&t| time_label(t, false).ends_with("-01-01"))
        );
        // A single instant still gets an axis.
        let (t0, t1) = time_range([T0]).unwrap();
        assert!(t0 < T0 && T0 < t1);
        assert!(!time_axis(t0, t1).0.is_empty());
    }

    #[test]
    fn tick_decimals_follow_the_span() {
        assert_eq!(decimals(2000.0), 0);
        assert_eq!(decimals(1.0), 1);
        assert_eq!(decimals(0.1), 2);
        assert_eq!(decimals(0.0), 0);
    }

    #[test]
    fn thinning_keeps_at_most_the_limit_and_the_last_point() {
        let pts: Vec<usize> = (0..30_000).collect();
        let t = thin(&pts, MAX_LINE_POINTS);
        assert!(t.len() <= MAX_LINE_POINTS, "{}", t.len());
        assert!(t.len() > MAX_LINE_POINTS / 2);
        assert_eq!(t[0], 0);
        assert_eq!(*t.last().unwrap(), 29_999);
        assert_eq!(thin(&pts[..10], MAX_LINE_POINTS), pts[..10].to_vec());
    }

    #[test]
    fn histogram_counts_every_finite_value() {
        let (lo, width, counts) = histogram(&[0.0, 1.0, 2.0, 3.0, f64::INFINITY], 3).unwrap();
        assert_eq!((lo, width), (0.0, 1.0));
        assert_eq!(counts, vec![1, 1, 2]);
        assert!(histogram(&[f64::NAN], 3).is_none());
    }

    #[test]
    fn a_large_input_gives_a_small_file() {
        let mut rng = Lcg(3);
        let n = 30_000usize;
        let system = SystemCharts {
            system: "big".into(),
            warnings: Vec::new(),
            trajectories: (0..20)
                .map(|p| {
                    let pts = (0..2_000)
                        .map(|i| {
                            (
                                T0 + (i * 15) as i64 * 3_600,
                                1800.0 + p as f64 * 10.0 + rng.next() * 300.0,
                            )
                        })
                        .collect();
                    (format!("p{p}"), pts)
                })
                .collect(),
            final_ratings: (0..100_000).map(|_| 1000.0 + rng.next() * 2000.0).collect(),
            contest_metrics: (0..n)
                .map(|i| {
                    (
                        T0 + i as i64 * 3_600,
                        rng.next() * 40.0,
                        rng.next() * 30.0,
                        1 + (rng.next() * 900.0) as u32,
                    )
                })
                .collect(),
            calibration: (0..1_000_000)
                .map(|_| {
                    let p = rng.next();
                    (p, if rng.next() < p { 1.0 } else { 0.0 })
                })
                .collect(),
            draw_calibration: Vec::new(),
            rmse: vec![],
            intervals: Vec::new(),
        };
        let input = ReportInput {
            title: "big".into(),
            description: "large input".into(),
            table_header: vec!["system".into()],
            table_rows: vec![vec!["big".into()]],
            systems: vec![system],
        };
        let html = render_page(&input);
        assert_well_formed(&html);
        assert_eq!(count(&html, "<svg"), 4);
        assert!(html.len() < 3_000_000, "{} bytes", html.len());
    }

    /// Writes the sample report to `/tmp/report-test.html` for a look in a browser:
    /// `cargo test --lib report -- --ignored write_sample_report`, then
    /// `scripts/report-screenshot.sh /tmp/report-test.html /tmp/report-test.png`.
    #[test]
    #[ignore]
    fn write_sample_report() {
        let html = render_page(&sample_input());
        std::fs::write("/tmp/report-test.html", html).unwrap();
    }
}
