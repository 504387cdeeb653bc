//! Named bundles of a system and its parameters (`--preset NAME`): federations' rules and a
//! server's settings, accepted wherever a system and its parameters are.
//!
//! - `fide`: [`super::federation`]'s FIDE rules with their defaults (`--system fide`).
//! - `uscf`: its US Chess rules (`--system uscf`).
//! - `lichess`: Glicko-2 as Lichess runs it (lila's `RatingCalculator` and `Glicko` settings,
//!   as published in its source): tau 0.75, a newcomer's deviation 500 and volatility 0.09,
//!   the deviation kept within 45 and 500. Lichess rates every game as it comes (`--period
//!   game`) and lets the deviation grow with the time since a player's last game, 0.21436
//!   rating periods a day; the replay's `--decay-per-day` stands in for that growth at the
//!   newcomer's volatility, `(0.09 x 173.7178)^2 x 0.21436 = 52.4` squared points a day,
//!   which the preset sets unless it is given (a player's own volatility is not used for it).

use super::{ParamMap, SystemKind};
use serde_json::Value;

/// The preset names.
pub const NAMES: [&str; 3] = ["fide", "uscf", "lichess"];

/// Lichess's deviation growth a day at a volatility of 0.09, as `--decay-per-day`.
pub const LICHESS_DECAY_PER_DAY: f64 =
    0.09 * 0.09 * super::glicko2::SCALE * super::glicko2::SCALE * 0.21436;

/// A preset: the system, its parameters, and the decay per day it implies (if any).
#[derive(Clone, Debug, PartialEq)]
pub struct Preset {
    /// The system.
    pub system: SystemKind,
    /// Its parameters.
    pub params: ParamMap,
    /// The `--decay-per-day` it implies, unless one is given.
    pub decay_per_day: Option<f64>,
}

/// The preset of this name, or an error listing the names.
pub fn preset(name: &str) -> Result<Preset, String> {
    let mut params = ParamMap::new();
    let (system, decay_per_day) = match name.trim() {
        "fide" => (SystemKind::Fide, None),
        "uscf" => (SystemKind::Uscf, None),
        "lichess" => {
            for (k, v) in [
                ("tau", 0.75),
                ("start_rd", 500.0),
                ("start_volatility", 0.09),
                ("min_rd", 45.0),
                ("max_rd", 500.0),
            ] {
                params.insert(k.into(), Value::from(v));
            }
            (SystemKind::Glicko2, Some(LICHESS_DECAY_PER_DAY))
        }
        other => {
            return Err(format!(
                "--preset: unknown preset `{other}` (known: {})",
                NAMES.join(", ")
            ));
        }
    };
    Ok(Preset {
        system,
        params,
        decay_per_day,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn presets_build_their_systems() {
        for name in NAMES {
            let p = preset(name).unwrap();
            assert!(super::super::dispatch(p.system, &p.params, super::super::ParamsOf).is_ok());
        }
        assert!(
            (LICHESS_DECAY_PER_DAY - 52.4).abs() < 0.05,
            "{LICHESS_DECAY_PER_DAY}"
        );
        assert!(preset("ecf").unwrap_err().contains("fide, uscf, lichess"));
    }
}
