//! `metrics.json`: what was run on what, and how well it predicted.

use super::load::Loaded;
use crate::history::SourceInfo;
use crate::metrics::MetricsReport;
use crate::output::{self};
use crate::replay::{Growth, Period, ReplayResult};
use serde::Serialize;
use std::time::Duration;

/// `metrics.json`: what was run on what, and how well it predicted.
#[derive(Serialize)]
pub(crate) struct MetricsDocument<'a> {
    pub(crate) system: &'a str,
    pub(crate) params: &'a serde_json::Value,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) method: Option<&'a str>,
    /// What the system fitted beside the ratings (Bradley-Terry's advantage and tie
    /// parameter).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) fitted: Option<&'a serde_json::Value>,
    /// What the parameters took from the input: `advantage` (`--advantage auto`: how it was
    /// fitted, and its value) and TrueSkill's `draw_probability`.
    #[serde(flatten)]
    pub(crate) from_input: crate::auto::FromInput,
    /// What the leaderboard's `uncertainty` column is, for this system.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) uncertainty: Option<serde_json::Value>,
    /// The draw model that split the predictions of a system without one of its own into
    /// win, draw and loss (Davidson's, its parameter fitted on the games before each).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) draw_model: Option<serde_json::Value>,
    pub(crate) input: InputSummary<'a>,
    /// Resumed: the whole history the metrics cover (`input` is this run's).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) history: Option<WholeHistory>,
    pub(crate) period: Period,
    pub(crate) decay_per_day: f64,
    /// How uncertainty grew between a player's rounds: `--growth`, and the rating period in
    /// days where periods were measured in time.
    pub(crate) growth: Growth,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) rating_period_days: Option<f64>,
    /// `--order input`, shown when given.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub(crate) input_order: bool,
    /// Who the leaderboard ranked: the status rule in effect.
    pub(crate) status: &'a crate::status::StatusRule,
    /// `--skip-all-tied`, shown when given.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub(crate) skip_all_tied: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) as_of: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) initial_ratings: Option<InitialRatings>,
    /// `--seed-from-pgn`: players who started at their first game's rating tag.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) seeded_from_pgn: Option<usize>,
    pub(crate) leaderboard: &'a output::LeaderboardOptions,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) truth: Option<TruthSummary>,
    pub(crate) rounds: usize,
    pub(crate) warmup_contests: usize,
    pub(crate) experienced_after_contests: u32,
    pub(crate) metrics: &'a MetricsReport,
    /// `--ci`: the bootstrap intervals.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) intervals: Option<serde_json::Value>,
    /// Where the predictions did worse than knowing nothing of the players.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub(crate) warnings: Vec<String>,
    pub(crate) wall_seconds: WallSeconds,
}

/// Where a replay's scored predictions are worse than knowing nothing of the players: a
/// two-outcome log-loss above the constant forecast of the base rate's (the first side's mean
/// score, or 1/2), a pair inversion of 50 % or less (a coin's). Empty when they are better.
pub(crate) fn warnings(m: &MetricsReport) -> Vec<String> {
    let mut out = Vec::new();
    let t = &m.two_player;
    if let (Some(ll), Some(base)) = (t.log_loss, t.base_log_loss)
        && ll > base
    {
        out.push(format!(
            "log-loss {ll:.4} is worse than the base rate's {base:.4} (a constant forecast of \
             the first side's mean score, or 1/2)"
        ));
    }
    if let Some(pi) = m.all.pair_inversion
        && pi <= 50.0
    {
        out.push(format!(
            "pair inversion {pi:.2} % orders the pairs no better than a coin's 50 %"
        ));
    }
    out
}

/// Prints a system's [`warnings`] on standard error.
pub(crate) fn print_warnings(system: &str, warnings: &[String]) {
    for w in warnings {
        eprintln!("warning: {system} predicts worse than knowing nothing of the players: {w}");
    }
}

/// The metrics' bootstrap replicates as intervals (and, where given, how many of the
/// rating replicates completed and failed), for `metrics.json`.
pub(crate) fn intervals(
    scores: &[crate::metrics::ScoredContest],
    ci: &crate::bootstrap::CiOptions,
    ratings: Option<(u32, u32)>,
) -> serde_json::Value {
    let reports = crate::bootstrap::metric_replicates(scores, ci);
    // Each metric's interval over the replicates (`null` where no replicate has the metric).
    let pick = |f: &dyn Fn(&MetricsReport) -> Option<f64>| {
        let mut v: Vec<f64> = reports.iter().filter_map(f).collect();
        crate::bootstrap::central(&mut v, ci.level).map(|(lo, hi)| [lo, hi])
    };
    let mut doc = serde_json::json!({
        "level": ci.level,
        "replicates": ci.replicates,
        "seed": ci.seed,
        "method": "Poisson bootstrap over whole contests",
        "metrics": {
            "all": {
                "pair_inversion": pick(&|m| m.all.pair_inversion),
                "rank_deviation": pick(&|m| m.all.rank_deviation),
            },
            "experienced": {
                "pair_inversion": pick(&|m| m.experienced.pair_inversion),
                "rank_deviation": pick(&|m| m.experienced.rank_deviation),
            },
            "two_player": {
                "log_loss": pick(&|m| m.two_player.log_loss),
                "brier": pick(&|m| m.two_player.brier),
                "accuracy": pick(&|m| m.two_player.accuracy),
                "log_loss_3": pick(&|m| m.two_player.log_loss_3),
            },
        },
    });
    if let Some((done, failed)) = ratings {
        doc["ratings"] = serde_json::json!({ "replicates": done, "failed": failed });
    }
    doc
}

/// What `--truth` measured.
#[derive(Serialize)]
pub(crate) struct TruthSummary {
    pub(crate) file: String,
    /// (contest, player) true values that apply to the history.
    pub(crate) values: usize,
    /// Rounds with at least two players measured.
    pub(crate) rounds_measured: usize,
    /// RMSE after the last measured round.
    pub(crate) last_rmse: Option<f64>,
    /// Mean RMSE over the last tenth of the measured rounds.
    pub(crate) mean_rmse_last_tenth: Option<f64>,
}

#[derive(Serialize)]
pub(crate) struct InitialRatings {
    pub(crate) file: String,
    pub(crate) players: usize,
    pub(crate) not_in_history: usize,
}

#[derive(Serialize)]
pub(crate) struct InputSummary<'a> {
    #[serde(flatten)]
    pub(crate) source: &'a SourceInfo,
    #[serde(flatten)]
    pub(crate) totals: super::load::Totals,
}

/// A resumed run's whole history: what the runs resumed from rated, and this one.
#[derive(Serialize)]
pub(crate) struct WholeHistory {
    pub(crate) what: &'static str,
    pub(crate) contests: u64,
    pub(crate) placings: u64,
    pub(crate) players: usize,
    pub(crate) rounds: usize,
}

#[derive(Serialize)]
pub(crate) struct WallSeconds {
    pub(crate) ingest: f64,
    pub(crate) replay: f64,
    pub(crate) total_before_writing: f64,
}

/// The document of one system's replay (`seeded`: a streamed replay's count of the players
/// it seeded).
pub(crate) fn document<'a>(
    (loaded, seeded): (&'a Loaded, Option<usize>),
    (history, totals): (&'a crate::history::History, super::load::Totals),
    replay: &'a crate::replay::ReplayOptions,
    leaderboard: &'a crate::output::LeaderboardOptions,
    result: &'a ReplayResult,
    rmse: &[(u32, i64, u32, f64)],
    replay_time: Duration,
) -> MetricsDocument<'a> {
    MetricsDocument {
        system: result.system,
        params: &result.params,
        method: result.method.as_deref(),
        fitted: result.fitted.as_ref(),
        from_input: crate::auto::FromInput::default(),
        uncertainty: result
            .uncertainty
            .map(|(label, is)| serde_json::json!({ "label": label, "is": is })),
        draw_model: result.draw_model.map(|(nu, games)| {
            serde_json::json!({
                "model": "Davidson, matched to the system's expected score",
                "nu": nu,
                "equal_sides_draw": nu / (2.0 + nu),
                "games_fitted_on": games,
            })
        }),
        input: InputSummary {
            source: &history.source,
            totals,
        },
        period: replay.period,
        decay_per_day: replay.decay_per_day,
        growth: replay.growth,
        rating_period_days: result.rating_period_days,
        input_order: replay.input_order,
        status: &result.status_rule,
        warnings: Vec::new(),
        history: None,
        skip_all_tied: replay.skip_all_tied,
        // The last instant covered (the cutoff is exclusive).
        as_of: replay.as_of.map(|t| crate::time::format_time(t - 1)),
        // Streamed, the players seeded are counted as they came.
        initial_ratings: loaded.seeds_file.as_ref().map(|p| {
            let listed = loaded.seed_list.as_ref().map(|l| l.len());
            InitialRatings {
                file: p.display().to_string(),
                players: seeded.unwrap_or(loaded.seeds.len()),
                not_in_history: match (seeded, listed) {
                    (Some(s), Some(l)) => l.saturating_sub(s),
                    _ => loaded.seeds_absent,
                },
            }
        }),
        seeded_from_pgn: (loaded.seeded_from_pgn > 0).then_some(loaded.seeded_from_pgn),
        leaderboard,
        truth: loaded.truth.as_ref().map(|t| TruthSummary {
            file: t.file.clone(),
            values: t.len(),
            rounds_measured: rmse.len(),
            last_rmse: rmse.last().map(|p| p.3),
            mean_rmse_last_tenth: {
                let tail = &rmse[rmse.len() - rmse.len() / 10..];
                (!tail.is_empty())
                    .then(|| tail.iter().map(|p| p.3).sum::<f64>() / tail.len() as f64)
            },
        }),
        rounds: result.rounds_total(),
        warmup_contests: result.warmup_contests,
        experienced_after_contests: replay.experienced_after,
        metrics: &result.metrics,
        intervals: None,
        wall_seconds: WallSeconds {
            ingest: loaded.ingest_time.as_secs_f64(),
            replay: replay_time.as_secs_f64(),
            total_before_writing: (loaded.ingest_time + replay_time).as_secs_f64(),
        },
    }
}
