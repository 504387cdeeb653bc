//! The leaderboard's order and the summary printed to stdout.

use super::text::shorten;
use crate::history::{History, PlayerId, split_pool};
use crate::metrics::MetricsReport;
use crate::replay::{PlayerRecord, ReplayResult};
use crate::status::{Status, StatusRule};
use crate::systems::Rating;
use rayon::prelude::*;
use serde::Serialize;
use std::io::{self, Write};

/// One line of the leaderboard.
#[derive(Clone, Debug)]
pub struct LeaderRow {
    /// 1-based among the ranked entrants; equal ratings share a rank (1, 2, 2, 4); `None` for
    /// an entrant not ranked (provisional or inactive).
    pub rank: Option<usize>,
    /// Ranked, provisional or inactive.
    pub status: Status,
    /// The player.
    pub player: PlayerId,
    /// Final rating.
    pub rating: Rating,
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

/// Who is ranked on the leaderboard and in which order.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct LeaderboardOptions {
    /// The order.
    pub rank_by: RankBy,
    /// `--anchor`: players whose given ratings fix the scale's offset (name, rating).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub anchors: Vec<(String, f64)>,
    /// The status rule in place of the system family's (a preset's), before the options
    /// below.
    #[serde(skip)]
    pub rule: Option<StatusRule>,
    /// `--provisional-above`: `Some(None)` for `none`.
    #[serde(skip)]
    pub provisional_above: Option<Option<f64>>,
    /// `--provisional-below`.
    #[serde(skip)]
    pub min_contests: Option<u32>,
    /// `--min-rounds`.
    #[serde(skip)]
    pub min_rounds: u32,
    /// `--active-within`: `Some(None)` for `none`.
    #[serde(skip)]
    pub active_within_days: Option<Option<f64>>,
    /// `--active-since` (Unix seconds).
    #[serde(skip)]
    pub active_since: Option<i64>,
    /// `--rank-all`.
    #[serde(skip)]
    pub rank_all: bool,
}

impl LeaderboardOptions {
    /// The status rule in effect: the preset's or the system family's (`family`), with the
    /// command line's thresholds over it.
    pub fn status_rule(&self, family: &StatusRule) -> StatusRule {
        let mut rule = self.rule.clone().unwrap_or_else(|| family.clone());
        if let Some(above) = self.provisional_above {
            rule.provisional_above = above;
        }
        if let Some(n) = self.min_contests {
            rule.min_contests = n;
        }
        rule.min_rounds = rule.min_rounds.max(self.min_rounds);
        if let Some(days) = self.active_within_days {
            rule.active_within_days = days;
        }
        if self.active_since.is_some() {
            rule.active_since = self.active_since;
        }
        rule.rank_all |= self.rank_all;
        rule
    }
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

/// Every rated player, the ranked first, then the provisional, then the inactive, each best
/// first by the chosen rating (equal ratings by name); the ranked are ranked (equal ratings
/// share a rank), the others have none. A pooled history (`--pool-by`) lists its pools one
/// after the other (by name), each ranked on its own. The status is by the result's rule
/// ([`LeaderboardOptions::status_rule`] gives the one in effect).
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
    let rule = &result.status_rule;
    // Activity is counted back from the replay's last contest.
    let last = result
        .records
        .iter()
        .filter(|r| r.contests > 0)
        .map(|r| r.last_time)
        .max()
        .unwrap_or(0);
    let active_from = rule.active_from(last);
    let status = |p: PlayerId| {
        let p = p as usize;
        rule.status(&result.ratings[p], &result.records[p], active_from)
    };
    // Each player's pool (a pooled history's, by its place among the pools' names), status,
    // rating and id, ordered on the pool's threads (a leaderboard of 358,554 players took a
    // fifth of a second on one): the order is total (equal ratings by name, names unique),
    // so it is the same whatever the threads; the ranks are settled after, in order.
    let pool = |p: PlayerId| split_pool(history.name(p)).1;
    let played = || {
        (0..history.player_count() as PlayerId).filter(|&p| result.records[p as usize].contests > 0)
    };
    let pools: std::collections::BTreeSet<Option<&str>> = played().map(pool).collect();
    let places: rustc_hash::FxHashMap<Option<&str>, u32> = pools.into_iter().zip(0..).collect();
    let place = |p: PlayerId| places[&pool(p)];
    let mut ids: Vec<(u32, Status, f64, PlayerId)> =
        played().map(|p| (place(p), status(p), key(p), p)).collect();
    ids.par_sort_by(|&(pa, sa, ka, a), &(pb, sb, kb, b)| {
        pa.cmp(&pb)
            .then(sa.cmp(&sb))
            .then_with(|| kb.total_cmp(&ka))
            .then_with(|| history.name(a).cmp(history.name(b)))
    });
    let mut rows: Vec<LeaderRow> = ids
        .par_iter()
        .map(|&(_, status, _, p)| LeaderRow {
            rank: None,
            status,
            player: p,
            rating: result.ratings[p as usize],
            interval: None,
        })
        .collect();
    // Ranks count the ranked of each pool; equal ratings share one.
    let mut position = 0;
    for i in 0..rows.len() {
        if i > 0 && ids[i].0 != ids[i - 1].0 {
            position = 0;
        }
        if rows[i].status != Status::Ranked {
            continue;
        }
        position += 1;
        rows[i].rank = Some(position);
        if position > 1 && key(rows[i - 1].player) == key(rows[i].player) {
            rows[i].rank = rows[i - 1].rank;
        }
    }
    rows
}

/// How many entrants have each status: ranked, provisional, inactive.
pub fn status_counts(rows: &[LeaderRow]) -> [usize; 3] {
    let mut n = [0; 3];
    for r in rows {
        n[r.status as usize] += 1;
    }
    n
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

/// Prints the top of the leaderboard (of each pool, in a pooled history) and the metrics.
pub fn print_summary(
    out: &mut dyn Write,
    history: &History,
    result: &ReplayResult,
    rows: &[LeaderRow],
    top: usize,
) -> io::Result<()> {
    let pool = |r: &LeaderRow| split_pool(history.name(r.player)).1;
    for (k, group) in rows.chunk_by(|a, b| pool(a) == pool(b)).enumerate() {
        if let Some(name) = pool(&group[0]) {
            let n = status_counts(group);
            writeln!(
                out,
                "{}pool {name}: {} rated, {} ranked",
                if k > 0 { "\n" } else { "" },
                group.len(),
                n[0]
            )?;
        }
        print_table(out, history, result, group, top)?;
    }
    let counts = status_counts(rows);
    writeln!(
        out,
        "Rated {}: {} ranked, {} provisional, {} inactive ({})",
        rows.len(),
        counts[0],
        counts[1],
        counts[2],
        describe_rule(&result.status_rule, result.uncertainty.map(|u| u.0))
    )?;
    print_metrics(out, &result.metrics, result.warmup_contests)
}

/// A printed row's uncertainty and interval cells (empty when no row has one).
fn interval_cells(r: &LeaderRow, has_unc: bool, has_ci: bool) -> (String, String) {
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
    (unc, ci)
}

/// A printed row's record: contests, best and median place of standings, else wins, draws
/// and losses.
fn record_cells(rec: &PlayerRecord, standings: bool) -> (String, String, String) {
    if standings {
        let b = rec.places.best;
        (
            rec.contests.to_string(),
            if b > 0 { b.to_string() } else { "-".into() },
            rec.places
                .median()
                .map_or_else(|| "-".into(), |m| format!("{m}")),
        )
    } else {
        (
            rec.wins.to_string(),
            rec.draws.to_string(),
            rec.losses.to_string(),
        )
    }
}

/// The top of one leaderboard (a pool's): its ranked entrants, as a league prints its table;
/// with none ranked yet, the top by rating with their status.
fn print_table(
    out: &mut dyn Write,
    history: &History,
    result: &ReplayResult,
    rows: &[LeaderRow],
    top: usize,
) -> io::Result<()> {
    let counts = status_counts(rows);
    let none_ranked = counts[0] == 0;
    let shown_rows: Vec<&LeaderRow> = rows
        .iter()
        .filter(|r| none_ranked || r.rank.is_some())
        .take(top)
        .collect();
    if none_ranked && !rows.is_empty() {
        writeln!(
            out,
            "No entrant is ranked yet ({} provisional, {} inactive: see the status column of the \
             leaderboard); the top by rating:",
            counts[1], counts[2]
        )?;
    }
    let name = |r: &LeaderRow| shown(split_pool(history.name(r.player)).0).into_owned();
    let width = shown_rows
        .iter()
        .map(|r| name(r).chars().count())
        .max()
        .unwrap_or(6)
        .clamp(6, 32);
    let has_unc = rows.iter().any(|r| r.rating.uncertainty.is_some());
    let has_ci = rows.iter().any(|r| r.interval.is_some());
    // Standings: contests, best and median place instead of wins, draws and losses.
    let standings = is_standings(rows, &result.records);
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
    for r in shown_rows {
        let (unc, ci) = interval_cells(r, has_unc, has_ci);
        let rec = &result.records[r.player as usize];
        let (n1, n2, n3) = record_cells(rec, standings);
        writeln!(
            out,
            "{:>5}  {:<width$}  {:>8.1}{}{}  {:>6}  {:>5}  {:>5}  {:>5}",
            r.rank
                .map_or_else(|| r.status.name()[..4].to_string(), |k| k.to_string()),
            shorten(&name(r), width),
            r.rating.mean,
            unc,
            ci,
            rec.rounds,
            n1,
            n2,
            n3
        )?;
    }
    if counts[0] > top {
        writeln!(
            out,
            "  ... {} more ranked in leaderboard.csv",
            counts[0] - top
        )?;
    }
    Ok(())
}

/// The rule in words, for the summary: `provisional: RD above 110; inactive: no contest in
/// the last 365 days`.
pub fn describe_rule(rule: &StatusRule, label: Option<&str>) -> String {
    if rule.rank_all {
        return "every entrant ranked: --rank-all".into();
    }
    let mut provisional = Vec::new();
    if let Some(u) = rule.provisional_above {
        provisional.push(format!(
            "{} above {}",
            label.unwrap_or("uncertainty"),
            round_text(u)
        ));
    }
    if rule.min_contests > 0 {
        provisional.push(format!("fewer than {} contests", rule.min_contests));
    }
    if rule.min_rounds > 0 {
        provisional.push(format!("fewer than {} rounds", rule.min_rounds));
    }
    let mut text = if provisional.is_empty() {
        "nobody provisional".to_string()
    } else {
        format!("provisional: {}", provisional.join(" or "))
    };
    match (rule.active_within_days, rule.active_since) {
        (Some(d), _) => text.push_str(&format!(
            "; inactive: no contest in the last {} days",
            round_text(d)
        )),
        (None, Some(t)) => text.push_str(&format!(
            "; inactive: no contest since {}",
            crate::time::format_time(t)
        )),
        (None, None) => text.push_str("; nobody inactive"),
    }
    text
}

/// A threshold as text: whole numbers without decimals, others to two.
fn round_text(v: f64) -> String {
    if v.fract() == 0.0 {
        format!("{v:.0}")
    } else {
        format!("{v:.2}")
    }
}

/// `--ci`: the metrics' intervals (as in `metrics.json`), one line per metric given.
pub fn print_intervals(out: &mut dyn Write, iv: &serde_json::Value) -> io::Result<()> {
    let m = &iv["metrics"];
    writeln!(
        out,
        "  {:.0} % intervals ({} bootstrap replicates over contests):",
        100.0 * iv["level"].as_f64().unwrap_or(f64::NAN),
        iv["replicates"]
    )?;
    // (Name, group and key in the document, decimals, unit.)
    let lines = [
        ("pair inversion, all", "all", "pair_inversion", 2, " %"),
        (
            "pair inversion, experienced",
            "experienced",
            "pair_inversion",
            2,
            " %",
        ),
        ("rank deviation, all", "all", "rank_deviation", 2, " %"),
        ("log-loss", "two_player", "log_loss", 4, ""),
        ("Brier", "two_player", "brier", 4, ""),
        ("favourite accuracy", "two_player", "accuracy", 2, " %"),
        ("log-loss, win/draw/loss", "two_player", "log_loss_3", 4, ""),
    ];
    for (name, group, key, digits, unit) in lines {
        let v = &m[group][key];
        if let (Some(lo), Some(hi)) = (v[0].as_f64(), v[1].as_f64()) {
            writeln!(out, "    {name:<28} {lo:.digits$} - {hi:.digits$}{unit}")?;
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
    if m.all.contests_scored == 0 && m.two_player.games_scored == 0 {
        // (`--warmup 1`, an arena's one fit: a table of dashes would say nothing more.)
        return writeln!(
            out,
            "Prediction before each contest: none scored (the first {warmup} contests are the \
             warm-up, and a player's first round is not scored)"
        );
    }
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
pub fn is_standings(rows: &[LeaderRow], records: &[PlayerRecord]) -> bool {
    rows.iter()
        .any(|r| records[r.player as usize].places.best > 0)
}
