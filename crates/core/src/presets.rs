//! Named bundles of a system and its parameters (`--preset NAME`): federations' rules and a
//! server's settings, accepted wherever a system and its parameters are.
//!
//! - `fide`: [`crate::systems::federation`]'s FIDE rules with their defaults (`--system
//!   fide`).
//! - `uscf`: its US Chess rules (`--system uscf`).
//! - `lichess`: Glicko-2 as Lichess runs it, with the defaults of niklasf/liglicko2's
//!   `RatingSystem` (the library lila rates with): tau 0.75, a newcomer's deviation 500 and
//!   volatility 0.09, the deviation within 45 and 500, the volatility within 0.01 and 0.1,
//!   the rating within 400 and 4000, the rating regulator 1.02 and a change of at most 700 a
//!   game. Lichess rates every game as it comes and lets the deviation grow with the time
//!   since a player's last game at his own volatility, 0.21436 rating periods a day,
//!   fractionally: the replay's `--growth fractional` with `--rating-period 4.665d`. Every
//!   game is predicted and scored (`--warmup 0`), as liglicko2's research replay scores
//!   them; a streamed input is then read once.

use crate::replay::{Growth, Period};
use crate::status::StatusRule;
use crate::systems::{LICHESS_PERIOD_DAYS, ParamMap, SystemKind};
use serde_json::Value;

/// The preset names.
pub const NAMES: [&str; 3] = ["fide", "uscf", "lichess"];

/// A preset: the system, its parameters, and the replay options it implies (each unless
/// the command line gives one).
#[derive(Clone, Debug, PartialEq)]
pub struct Preset {
    /// The system.
    pub system: SystemKind,
    /// Its parameters.
    pub params: ParamMap,
    /// The round grouping (`--period`).
    pub period: Option<Period>,
    /// The growth of uncertainty (`--growth`).
    pub growth: Option<Growth>,
    /// The rating period in days (`--rating-period`).
    pub rating_period_days: Option<f64>,
    /// Who its leaderboard ranks, where not its system's family's rule.
    pub status: Option<StatusRule>,
    /// Contests in the order of the input (`--order input`): a server rates games as they
    /// end, and its log lists them so.
    pub input_order: bool,
    /// Lichess's speed classes as rating pools, from the input's time controls.
    pub speed_pools: bool,
    /// The share of the contests not scored (`--warmup`).
    pub warmup: Option<f64>,
}

impl Preset {
    /// A system alone: its defaults, and no option of its own.
    pub fn none(system: SystemKind) -> Self {
        Preset {
            system,
            params: ParamMap::new(),
            period: None,
            growth: None,
            rating_period_days: None,
            status: None,
            input_order: false,
            speed_pools: false,
            warmup: None,
        }
    }
}

/// The preset of this name, or an error listing the names.
pub fn preset(name: &str) -> Result<Preset, String> {
    let mut preset = Preset::none(SystemKind::Elo);
    match name.trim() {
        "fide" => {
            preset.system = SystemKind::Fide;
            preset.period = Some(Period::Event);
        }
        "uscf" => {
            preset.system = SystemKind::Uscf;
            preset.period = Some(Period::Event);
        }
        "lichess" => {
            for (k, v) in [
                ("tau", 0.75),
                ("start_rd", 500.0),
                ("start_volatility", 0.09),
                ("min_rd", 45.0),
                ("max_rd", 500.0),
                ("min_volatility", 0.01),
                ("max_volatility", 0.1),
                ("min_rating", 400.0),
                ("max_rating", 4000.0),
                ("max_delta", 700.0),
                ("regulator", 1.02),
            ] {
                preset.params.insert(k.into(), Value::from(v));
            }
            preset.system = SystemKind::Glicko2;
            preset.growth = Some(Growth::Fractional);
            preset.rating_period_days = Some(LICHESS_PERIOD_DAYS);
            preset.status = Some(StatusRule::lichess());
            preset.input_order = true;
            preset.speed_pools = true;
            preset.warmup = Some(0.0);
        }
        other => {
            return Err(format!(
                "--preset: unknown preset `{other}` (known: {})",
                NAMES.join(", ")
            ));
        }
    }
    Ok(preset)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn presets_build_their_systems() {
        for name in NAMES {
            let p = preset(name).unwrap();
            assert!(
                crate::systems::dispatch(p.system, &p.params, crate::systems::ParamsOf).is_ok()
            );
        }
        assert!(preset("ecf").unwrap_err().contains("fide, uscf, lichess"));
    }
}
