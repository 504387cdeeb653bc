//! A system's parameters taken from the input before a replay: `--advantage auto` (fitted on
//! the warm-up, [`crate::first_side`]) and TrueSkill's draw probability (its draw margin),
//! by default the input's draw rate. [`resolve`] does both and says what it took
//! ([`FromInput`], for metrics.json and the state a nightly run resumes from).
//!
//! TrueSkill's published default, a 10 % chance of a draw between equals, sets a margin that
//! every pair of neighbours in a ranking must clear: over a Codeforces round's ladder of
//! thousands it adds up to more than the whole scale, and the ratings mean nothing (pair
//! inversion 39 %, against 78.77 % with no margin). In a history of games it is the share of
//! draws that matters: 55 % in TCEC's archive, none in a tennis file. So where it is not given
//! (or given as `auto`) it is the share of drawn games among the input's two-entry contests,
//! and 0 when the input has a contest of more than two entries (a tie in a ranking still says
//! "equal performances" with no margin).

use crate::history::{Count, History};
use crate::replay::ReplayOptions;
use crate::systems::{ParamMap, SystemKind};
use serde::{Deserialize, Serialize};
use serde_json::Value;

/// What a run took from its input for the system's parameters, as metrics.json reports it.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct FromInput {
    /// `--advantage auto`: how the first side's advantage was fitted, and its value.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub advantage: Option<Value>,
    /// TrueSkill's draw probability taken from the input's draw rate.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub draw_probability: Option<Value>,
}

impl FromInput {
    /// One line of what was taken from the input, for the run's summary (`None`: nothing).
    pub fn summary(&self) -> Option<String> {
        let mut parts = Vec::new();
        if let Some(a) = &self.advantage {
            parts.push(match (a["points"].as_f64(), a["elo"].as_f64()) {
                (Some(p), Some(e)) if (p - e).abs() > 1e-9 => {
                    format!("advantage {p:.4} ({e:.1} Elo points, fitted on the warm-up)")
                }
                (Some(p), _) => format!("advantage {p:.1} (fitted on the warm-up)"),
                _ => "advantage fitted by the system with the ratings".to_string(),
            });
        }
        if let Some(d) = &self.draw_probability
            && let Some(v) = d["value"].as_f64()
        {
            let from = d["from"].as_str().unwrap_or_default();
            parts.push(format!("draw probability {v:.4} ({from})"));
        }
        (!parts.is_empty()).then(|| parts.join("; "))
    }
}

/// Resolves the parameters of `params` that come from the input: `advantage` (a number kept,
/// `auto` fitted on the warm-up of `history`, which a stream cannot give: an error) and
/// TrueSkill's draw probability ([`resolve_draw_probability`], from `counts`).
pub fn resolve(
    kind: SystemKind,
    params: &mut ParamMap,
    history: Option<&History>,
    counts: Option<Count>,
    opts: &ReplayOptions,
) -> Result<FromInput, String> {
    Ok(FromInput {
        advantage: crate::first_side::resolve(kind, params, history, opts)?,
        draw_probability: resolve_draw_probability(kind, params, counts),
    })
}

/// The contests of a history held whole before `opts.as_of`, counted as a stream's counting
/// pass counts them: the games (two-entry contests) a replay rates, their draws, and whether
/// it rates a contest of more than two entries, as TrueSkill's draw probability reads them.
pub fn draw_counts(history: &History, opts: &ReplayOptions) -> Count {
    let mut count = Count {
        cutoff: opts.as_of,
        ..Count::default()
    };
    for c in history.contests() {
        let series = c.series().is_some();
        count.add(c.time(), series, c.all_tied(), c.len() as u32);
    }
    count
}

/// The largest draw probability taken from an input (TrueSkill refuses 1).
const MOST: f64 = 0.99;

/// Resolves TrueSkill's `draw_probability` in `params` where it is not given or is `auto`:
/// the input's draw rate, 0 with a contest of more than two entries ([`draw_counts`]; `None`:
/// not known before the replay, a stream read once, and TrueSkill's published 0.10 is kept).
/// Returns what metrics.json reports of it (`None` when it was given, or for another system).
pub fn resolve_draw_probability(
    kind: SystemKind,
    params: &mut ParamMap,
    counts: Option<Count>,
) -> Option<Value> {
    if kind != SystemKind::TrueSkill {
        return None;
    }
    if (params.get("draw_probability")).is_some_and(|v| v.as_str() != Some("auto")) {
        return None;
    }
    let (value, why) = match counts {
        None => {
            params.remove("draw_probability");
            return Some(serde_json::json!({
                "value": crate::systems::TrueSkillParams::default().draw_probability,
                "from": "TrueSkill's published default: a stream read once knows no draw rate \
                         before it is rated (give --param draw_probability=)",
            }));
        }
        Some(c) if c.larger => (
            0.0,
            "0: the input has contests of more than two entries, whose ladder of draw margins \
             would add up"
                .to_string(),
        ),
        Some(c) if c.games == 0 => (0.0, "0: the input has no game".to_string()),
        Some(c) => (
            (c.draws as f64 / c.games as f64).min(MOST),
            format!(
                "the input's draw rate: {} draws in {} games",
                c.draws, c.games
            ),
        ),
    };
    params.insert(
        "draw_probability".into(),
        crate::systems::number(value).unwrap_or(Value::from(0.0)),
    );
    Some(serde_json::json!({ "value": value, "from": why }))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::history::{HistoryBuilder, SourceInfo};

    fn games(results: &[bool]) -> History {
        let mut b = HistoryBuilder::new();
        let (x, y) = (b.player("x"), b.player("y"));
        for (k, &draw) in results.iter().enumerate() {
            b.add_game(
                k as i64,
                1.0,
                None,
                (&[x], &[y]),
                if draw { 0.5 } else { 1.0 },
                None,
            )
            .unwrap();
        }
        b.finish(SourceInfo::default())
    }

    #[test]
    fn the_input_sets_trueskills_draw_probability() {
        let h = games(&[true, false, false, true, false]);
        let counts = draw_counts(&h, &ReplayOptions::default());
        assert_eq!((counts.games, counts.draws, counts.larger), (5, 2, false));
        let mut p = ParamMap::new();
        let report = resolve_draw_probability(SystemKind::TrueSkill, &mut p, Some(counts));
        assert_eq!(p["draw_probability"].as_f64(), Some(0.4));
        assert_eq!(report.unwrap()["value"].as_f64(), Some(0.4));
        // `auto` is the same; a value given, or another system, is left alone.
        let mut auto = ParamMap::new();
        auto.insert("draw_probability".into(), Value::from("auto"));
        resolve_draw_probability(SystemKind::TrueSkill, &mut auto, Some(counts));
        assert_eq!(auto["draw_probability"].as_f64(), Some(0.4));
        let mut given = ParamMap::new();
        given.insert("draw_probability".into(), Value::from(0.25));
        assert!(
            resolve_draw_probability(SystemKind::TrueSkill, &mut given, Some(counts)).is_none()
        );
        assert_eq!(given["draw_probability"].as_f64(), Some(0.25));
        let mut elo = ParamMap::new();
        assert!(resolve_draw_probability(SystemKind::Elo, &mut elo, Some(counts)).is_none());
        assert!(elo.is_empty());
        // A ranking of more than two: no margin.
        let larger = Count {
            larger: true,
            ..counts
        };
        let mut q = ParamMap::new();
        resolve_draw_probability(SystemKind::TrueSkill, &mut q, Some(larger));
        assert_eq!(q["draw_probability"].as_f64(), Some(0.0));
        // Every game drawn: below 1, which TrueSkill refuses.
        let all = Count {
            games: 3,
            draws: 3,
            larger: false,
            ..Count::default()
        };
        let mut r = ParamMap::new();
        resolve_draw_probability(SystemKind::TrueSkill, &mut r, Some(all));
        assert_eq!(r["draw_probability"].as_f64(), Some(0.99));
        // Unknown before the replay: the published 0.10.
        let mut s = ParamMap::new();
        let report = resolve_draw_probability(SystemKind::TrueSkill, &mut s, None).unwrap();
        assert!(s.is_empty());
        assert_eq!(report["value"].as_f64(), Some(0.1));
        // As of a time: the games before it.
        let cut = ReplayOptions {
            as_of: Some(3),
            ..ReplayOptions::default()
        };
        assert_eq!(draw_counts(&h, &cut).games, 3);
    }
}
