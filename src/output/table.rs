//! The leaderboard's order and the summary printed to stdout.

use super::text::shorten;
use crate::history::{History, PlayerId};
use crate::metrics::MetricsReport;
use crate::replay::{PlayerRecord, ReplayResult};
use crate::systems::Rating;
use rayon::prelude::*;
use serde::Serialize;
use std::io::{self, Write};

/// One line of the leaderboard.
#[derive(Clone, Debug)]
pub struct LeaderRow {
    /// 1-based; equal ratings share a rank (1, 2, 2, 4).
    pub rank: usize,
    /// The player.
    pub player: PlayerId,
    /// Final rating.
    pub rating: Rating,
    /// Games and results.
    pub record: PlayerRecord,
    /// With `--ci`: the bootstrap intervals.
    pub interval: Option<Interval>,
}

/// A player's bootstrap intervals (`--ci`).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Interval {
    /// The rating's interval.
    pub rating: (f64, f64),
    /// The rank's interval (the bootstrap's only).
    pub rank: Option<(u32, u32)>,
    /// The tie group: a group is led by its first player, and the next join it while their
    /// rank intervals overlap the leader's.
    pub group: Option<u32>,
}

/// What the leaderboard orders by.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, clap::ValueEnum, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum RankBy {
    /// The rating (the system's estimate).
    #[default]
    Rating,
    /// The display rating (the conservative rating where the system has one, such as
    /// TrueSkill's mu - 3 sigma; else the rating).
    Display,
}

/// Who is on the leaderboard and in which order.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct LeaderboardOptions {
    /// Players rated in fewer rounds are left off (they still count in the replay).
    pub min_rounds: u32,
    /// The order.
    pub rank_by: RankBy,
    /// `--anchor`: players whose given ratings fix the scale's offset (name, rating).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub anchors: Vec<(String, f64)>,
    /// `--active-since`: players whose last contest is before this time (Unix seconds) are
    /// left off (they still count in the replay).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub active_since: Option<i64>,
    /// `--active-within`: players whose last contest is more than this many days before the
    /// last contest of the replay are left off.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub active_within_days: Option<f64>,
}

/// The shift that `--anchor` applies to every rating: the mean of the anchors' given ratings
/// less the mean of their ratings (0 without anchors); an anchor not among the players is an
/// error naming it.
pub fn anchor_shift(
    history: &History,
    result: &ReplayResult,
    opts: &LeaderboardOptions,
) -> Result<f64, String> {
    if opts.anchors.is_empty() {
        return Ok(0.0);
    }
    let index = crate::history::NameIndex::new(history.names());
    let mut sum = 0.0;
    for (name, given) in &opts.anchors {
        let id = index
            .find(name)
            .filter(|&p| result.records[p as usize].contests > 0)
            .ok_or_else(|| format!("--anchor `{name}`: no player of that name was rated"))?;
        sum += given - result.ratings[id as usize].mean;
    }
    Ok(sum / opts.anchors.len() as f64)
}

/// Players rated in at least `min_rounds` rounds (and at least one), best first by the chosen
/// rating (equal ratings by name; equal ratings share a rank).
pub fn leaderboard_rows(
    history: &History,
    result: &ReplayResult,
    opts: &LeaderboardOptions,
) -> Vec<LeaderRow> {
    let key = |p: PlayerId| {
        let r = &result.ratings[p as usize];
        match opts.rank_by {
            RankBy::Rating => r.mean,
            RankBy::Display => r.display,
        }
    };
    // The activity cutoff: the later of `--active-since` and `--active-within` before the
    // replay's last contest.
    let last = result
        .records
        .iter()
        .filter(|r| r.contests > 0)
        .map(|r| r.last_time)
        .max()
        .unwrap_or(0);
    let within = opts
        .active_within_days
        .map(|d| last - (d * 86_400.0).round() as i64);
    let cutoff = opts.active_since.max(within).unwrap_or(i64::MIN);
    let mut ids: Vec<PlayerId> = (0..history.player_count() as PlayerId)
        .filter(|&p| {
            let rec = &result.records[p as usize];
            rec.contests > 0 && rec.rounds >= opts.min_rounds && rec.last_time >= cutoff
        })
        .collect();
    // On the pool's threads (a leaderboard of 358,554 players took a fifth of a second on one):
    // the order is total (equal ratings by name, names unique), so it is the same whatever the
    // threads; the ranks are settled after, in order.
    ids.par_sort_by(|&a, &b| {
        key(b)
            .total_cmp(&key(a))
            .then_with(|| history.name(a).cmp(history.name(b)))
    });
    let mut rows: Vec<LeaderRow> = ids
        .par_iter()
        .enumerate()
        .map(|(i, &p)| LeaderRow {
            rank: i + 1,
            player: p,
            rating: result.ratings[p as usize],
            record: result.records[p as usize].clone(),
            interval: None,
        })
        .collect();
    for i in 1..rows.len() {
        if key(rows[i - 1].player) == key(rows[i].player) {
            rows[i].rank = rows[i - 1].rank;
        }
    }
    rows
}

/// A name as the terminal shows it: as it is, or quoted with escapes when it has control
/// characters or whitespace at either end (which would be invisible or break the table).
fn shown(name: &str) -> std::borrow::Cow<'_, str> {
    let odd = name.chars().any(char::is_control)
        || name.starts_with(char::is_whitespace)
        || name.ends_with(char::is_whitespace);
    if odd {
        format!("{name:?}").into()
    } else {
        name.into()
    }
}

fn pct(v: Option<f64>) -> String {
    v.map_or_else(|| "-".into(), |v| format!("{v:.2} %"))
}

/// Prints the top of the leaderboard and the metrics.
pub fn print_summary(
    out: &mut dyn Write,
    history: &History,
    result: &ReplayResult,
    rows: &[LeaderRow],
    top: usize,
) -> io::Result<()> {
    let width = rows
        .iter()
        .take(top)
        .map(|r| shown(history.name(r.player)).chars().count())
        .max()
        .unwrap_or(6)
        .clamp(6, 32);
    let has_unc = rows.iter().any(|r| r.rating.uncertainty.is_some());
    let has_ci = rows.iter().any(|r| r.interval.is_some());
    // Standings: contests, best and median place instead of wins, draws and losses.
    let standings = is_standings(rows);
    let (c1, c2, c3) = if standings {
        ("n", "best", "med")
    } else {
        ("W", "D", "L")
    };
    writeln!(
        out,
        "{:>5}  {:<width$}  {:>8}{}{}  {:>6}  {:>5}  {:>5}  {:>5}",
        "rank",
        "player",
        "rating",
        if has_unc {
            // The system's name for it (RD, sigma, phi...): not every one is a deviation.
            format!("  {:>7}", result.uncertainty.map_or("±", |u| u.0))
        } else {
            String::new()
        },
        if has_ci {
            format!(
                "  {:>17}  {:>11}  {:>5}",
                "rating interval", "ranks", "group"
            )
        } else {
            String::new()
        },
        "rounds",
        c1,
        c2,
        c3
    )?;
    for r in rows.iter().take(top) {
        let unc = match (has_unc, r.rating.uncertainty) {
            (false, _) => String::new(),
            (true, Some(u)) => format!("  {u:>7.1}"),
            (true, None) => format!("  {:>7}", "-"),
        };
        let ci = match (has_ci, r.interval) {
            (false, _) => String::new(),
            (true, Some(i)) => format!(
                "  {:>17}  {:>11}  {:>5}",
                format!("{:.1} - {:.1}", i.rating.0, i.rating.1),
                i.rank
                    .map_or_else(|| "-".into(), |(lo, hi)| format!("{lo} - {hi}")),
                i.group.map_or_else(|| "-".into(), |g| g.to_string())
            ),
            (true, None) => format!("  {:>17}  {:>11}  {:>5}", "-", "-", "-"),
        };
        writeln!(
            out,
            "{:>5}  {:<width$}  {:>8.1}{}{}  {:>6}  {:>5}  {:>5}  {:>5}",
            r.rank,
            shorten(&shown(history.name(r.player)), width),
            r.rating.mean,
            unc,
            ci,
            r.record.rounds,
            if standings {
                r.record.contests
            } else {
                r.record.wins
            },
            if standings {
                let b = r.record.places.best;
                if b > 0 { b.to_string() } else { "-".into() }
            } else {
                r.record.draws.to_string()
            },
            if standings {
                r.record
                    .places
                    .median()
                    .map_or_else(|| "-".into(), |m| format!("{m}"))
            } else {
                r.record.losses.to_string()
            }
        )?;
    }
    if rows.len() > top {
        writeln!(
            out,
            "  ... {} more players in leaderboard.csv",
            rows.len() - top
        )?;
    }
    print_metrics(out, &result.metrics, result.warmup_contests)
}

/// `--ci`: the metrics' intervals (as in `metrics.json`), one line per metric given.
pub fn print_intervals(out: &mut dyn Write, iv: &serde_json::Value) -> io::Result<()> {
    let m = &iv["metrics"];
    let pair =
        |v: &serde_json::Value, scale: f64, digits: usize| match (v[0].as_f64(), v[1].as_f64()) {
            (Some(lo), Some(hi)) => {
                Some(format!("{:.digits$} - {:.digits$}", lo * scale, hi * scale))
            }
            _ => None,
        };
    writeln!(
        out,
        "  {:.0} % intervals ({} bootstrap replicates over contests):",
        100.0 * iv["level"].as_f64().unwrap_or(f64::NAN),
        iv["replicates"]
    )?;
    let lines = [
        (
            "pair inversion, all",
            pair(&m["all"]["pair_inversion"], 1.0, 2),
            " %",
        ),
        (
            "pair inversion, experienced",
            pair(&m["experienced"]["pair_inversion"], 1.0, 2),
            " %",
        ),
        (
            "rank deviation, all",
            pair(&m["all"]["rank_deviation"], 1.0, 2),
            " %",
        ),
        ("log-loss", pair(&m["two_player"]["log_loss"], 1.0, 4), ""),
        ("Brier", pair(&m["two_player"]["brier"], 1.0, 4), ""),
        (
            "favourite accuracy",
            pair(&m["two_player"]["accuracy"], 1.0, 2),
            " %",
        ),
        (
            "log-loss, win/draw/loss",
            pair(&m["two_player"]["log_loss_3"], 1.0, 4),
            "",
        ),
    ];
    for (name, text, unit) in lines {
        if let Some(t) = text {
            writeln!(out, "    {name:<28} {t}{unit}")?;
        }
    }
    if let Some(r) = iv.get("ratings") {
        writeln!(
            out,
            "    ratings and ranks: {} replicates replayed ({} failed and left out)",
            r["replicates"], r["failed"]
        )?;
    }
    Ok(())
}

fn print_metrics(out: &mut dyn Write, m: &MetricsReport, warmup: usize) -> io::Result<()> {
    writeln!(out)?;
    writeln!(
        out,
        "Prediction before each contest (first {warmup} contests not scored; players in their first round not scored):"
    )?;
    writeln!(
        out,
        "  pair inversion  {:>9} all, {:>9} experienced   (higher is better)",
        pct(m.all.pair_inversion),
        pct(m.experienced.pair_inversion)
    )?;
    writeln!(
        out,
        "  rank deviation  {:>9} all, {:>9} experienced   (lower is better)",
        pct(m.all.rank_deviation),
        pct(m.experienced.rank_deviation)
    )?;
    writeln!(
        out,
        "  scored          {} participants in {} contests ({} experienced in {})",
        m.all.participants_scored,
        m.all.contests_scored,
        m.experienced.participants_scored,
        m.experienced.contests_scored
    )?;
    let t = &m.two_player;
    if t.games_scored > 0 {
        writeln!(
            out,
            "  two-sided       log-loss {:.4}, Brier {:.4}, favourite accuracy {:.2} % over {} games",
            t.log_loss.unwrap_or(f64::NAN),
            t.brier.unwrap_or(f64::NAN),
            t.accuracy.unwrap_or(f64::NAN),
            t.games_scored
        )?;
        if let (Some(ll3), Some(draws), Some(predicted)) =
            (t.log_loss_3, t.draw_rate, t.predicted_draw_rate)
        {
            writeln!(
                out,
                "  three outcomes  log-loss {ll3:.4} (win, draw, loss); draws {draws:.2} %, predicted {predicted:.2} %"
            )?;
        }
    }
    Ok(())
}

/// Whether the leaderboard is one of standings: some player took a place in a contest of
/// more than two entries. Its files then give each player's contests, best place and median
/// place ([`crate::record::Places`]) instead of wins, draws and losses, which say little of a
/// contest of thousands.
pub fn is_standings(rows: &[LeaderRow]) -> bool {
    rows.iter().any(|r| r.record.places.best > 0)
}
