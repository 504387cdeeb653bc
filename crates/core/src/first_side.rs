//! `--advantage auto`: the first side's advantage fitted on the warm-up.
//!
//! The advantage is fitted by Bradley-Terry (`systems::bt`, maximum a posteriori with the
//! players' strengths, so that who happened to play at home does not bias it) on the games of
//! the warm-up only: the contests a replay rates but does not score. The predictions scored
//! afterwards have therefore not been seen by the fit. Ties count by Davidson's model when
//! the warm-up has any. The fit is on the Elo scale (400 points for odds of 10 to 1); each
//! system takes it in its own points through [`RatingSystem::advantage_per_elo`].

use crate::history::History;
use crate::replay::{ReplayOptions, replay};
use crate::systems::bt::{Bt, BtParams, Refit, Ties};

/// Fits the first side's advantage on the warm-up of `history` as `opts` replays it (its
/// first `opts.warmup` share of contests; at most `opts.max_contests`): the advantage in Elo
/// points, the warm-up's games with a first side, and its contests.
pub fn fit_on_warmup(
    history: &History,
    opts: &ReplayOptions,
) -> Result<(f64, usize, usize), String> {
    let contests = crate::numeric::first_share(history.len(), opts.warmup)
        .min(opts.max_contests.unwrap_or(usize::MAX));
    let warmup = || history.contests().take(contests);
    let games = warmup().filter(crate::history::Contest::first_side).count();
    if games == 0 {
        return Err(format!(
            "--advantage auto fits the advantage on the warm-up (the first {contests} \
             contests, --warmup {}), and it has no game with a first side (a games file's \
             side a, not neutral; a PGN's White): give --advantage POINTS, or a larger \
             --warmup",
            opts.warmup
        ));
    }
    let ties = if warmup().any(|c| c.len() == 2 && c.all_tied()) {
        Ties::Davidson
    } else {
        Ties::Half
    };
    let bt = Bt::new(BtParams {
        fit_advantage: true,
        ties,
        refit: Refit::End,
        ..BtParams::default()
    })
    .map_err(|e| e.to_string())?;
    let fit_opts = ReplayOptions {
        warmup: 1.0,
        keep_history: false,
        series: false,
        keep_scores: false,
        max_contests: Some(contests),
        hessian_reference: None,
        ..opts.clone()
    };
    let result = replay(history, &bt, &fit_opts).map_err(|d| {
        d.refused
            .clone()
            .unwrap_or_else(|| "the fit ran away".to_string())
    })?;
    let elo = result
        .fitted
        .as_ref()
        .and_then(|f| f["advantage"].as_f64())
        .filter(|x| x.is_finite())
        .ok_or("--advantage auto: the warm-up's fit gave no advantage")?;
    Ok((elo, games, contests))
}

/// The system's [`RatingSystem::advantage_per_elo`](crate::systems::RatingSystem::advantage_per_elo).
struct PerElo;

impl crate::systems::SystemVisitor for PerElo {
    type Output = Option<f64>;
    fn visit<S: crate::systems::RatingSystem>(self, system: &S) -> Option<f64> {
        system.advantage_per_elo()
    }
}

/// Resolves the parameter `advantage` of `params` for `kind`: a number is kept; `"auto"`
/// becomes Bradley-Terry's own fit (`fit_advantage`) for `bt`, and for any other system with
/// a first-side advantage the warm-up's fit ([`fit_on_warmup`]) in the system's points.
/// Returns what metrics.json reports of it (`None` without `auto`). A system without a
/// first-side advantage is refused with the reason.
pub fn resolve(
    kind: crate::systems::SystemKind,
    params: &mut crate::systems::ParamMap,
    history: Option<&History>,
    opts: &ReplayOptions,
) -> Result<Option<serde_json::Value>, String> {
    resolve_by(kind, params, &mut || fit(history, opts))
}

/// [`resolve`] of several parameter sets of one system (`tune`'s): the warm-up is fitted
/// once, when the first set asks for it.
pub fn resolve_all<'p>(
    kind: crate::systems::SystemKind,
    sets: impl IntoIterator<Item = &'p mut crate::systems::ParamMap>,
    history: Option<&History>,
    opts: &ReplayOptions,
) -> Result<(), String> {
    let mut fitted = None;
    for params in sets {
        resolve_by(kind, params, &mut || match fitted {
            Some(f) => Ok(f),
            None => Ok(*fitted.insert(fit(history, opts)?)),
        })?;
    }
    Ok(())
}

/// [`fit_on_warmup`] of a history held whole (a stream cannot be fitted before its replay).
fn fit(history: Option<&History>, opts: &ReplayOptions) -> Result<(f64, usize, usize), String> {
    let history = history.ok_or(
        "--advantage auto fits on the warm-up before the replay, and a streamed input is read \
         as it is rated: read it whole (--stream off) or give --advantage POINTS",
    )?;
    fit_on_warmup(history, opts)
}

/// [`resolve`], the warm-up's fit (the advantage in Elo points, its games and contests)
/// given by `fit`, called only for `auto`.
fn resolve_by(
    kind: crate::systems::SystemKind,
    params: &mut crate::systems::ParamMap,
    fit: &mut dyn FnMut() -> Result<(f64, usize, usize), String>,
) -> Result<Option<serde_json::Value>, String> {
    use crate::systems::SystemKind;
    use serde_json::Value;
    let Some(given) = params.get("advantage").cloned() else {
        return Ok(None);
    };
    let mut others = params.clone();
    others.remove("advantage");
    let per_elo = crate::systems::dispatch(kind, &others, PerElo)?.ok_or_else(|| {
        format!(
            "{} has no first-side advantage: it rates standings of any size, where no entry \
             plays a first side (for a home or white advantage use elo, elo-gaussian, glicko, \
             glicko2, trueskill, yuksel or bt)",
            kind.name()
        )
    })?;
    if given != Value::String("auto".into()) {
        return Ok(None);
    }
    if kind == SystemKind::Bt {
        params.remove("advantage");
        params.insert("fit_advantage".into(), Value::Bool(true));
        return Ok(Some(serde_json::json!({
            "fitted": "by bt itself, with the ratings, at each refit",
        })));
    }
    let (elo, games, contests) = fit()?;
    let points = elo * per_elo;
    params.insert(
        "advantage".into(),
        crate::systems::number(points).ok_or("--advantage auto: the fit is not finite")?,
    );
    Ok(Some(serde_json::json!({
        "fitted": "by Bradley-Terry (maximum a posteriori, with the players' strengths) on the warm-up",
        "warmup_contests": contests,
        "games_with_a_first_side": games,
        "elo": elo,
        "points": points,
    })))
}

/// `params` as they can be checked before the history is read: an `advantage` of `auto`
/// stands in as 0 (for `bt`, as `fit_advantage`), and a system without a first-side
/// advantage given one is refused ([`resolve`]'s reason).
pub fn checkable(
    kind: crate::systems::SystemKind,
    params: &crate::systems::ParamMap,
) -> Result<crate::systems::ParamMap, String> {
    let mut p = params.clone();
    // (bt resolves `auto` without the history: its own fit.)
    if kind != crate::systems::SystemKind::Bt
        && p.get("advantage") == Some(&serde_json::Value::String("auto".into()))
    {
        p.insert("advantage".into(), serde_json::Value::from(0.0));
    }
    resolve(kind, &mut p, None, &ReplayOptions::default())?;
    Ok(p)
}
