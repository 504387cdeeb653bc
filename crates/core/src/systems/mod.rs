//! Rating systems, one module each, behind one small trait.
//!
//! A system knows nothing of files, formats or output: it makes a new player's state, reads a
//! rating off a state, updates the states of a round's participants from their pre-round
//! states, and predicts a two-sided contest where it can.
//!
//! Parameters are plain serde structs with the papers' defaults; the CLI and later `tune` set
//! them by name (`k=24`), so every system's parameters are reachable the same way.

pub mod allpairs;
pub mod bar;
pub mod codeforces;
pub mod elo;
pub mod elo_mmr;
pub mod glicko;
pub mod glicko2;
pub mod pairwise;
pub mod pairwise_glicko;
pub mod topcoder;
pub mod trueskill;
pub mod yuksel;

use crate::history::{PlayerId, Round};
use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::{Map, Value};

/// A rating as the outputs show it.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Rating {
    /// The system's estimate (its mean).
    pub mean: f64,
    /// Its standard deviation, where the system has one.
    pub uncertainty: Option<f64>,
    /// The conservative rating where the system defines one, else the mean.
    pub display: f64,
}

/// One rating system.
pub trait RatingSystem: Sync {
    /// Everything the system keeps per player.
    type Player: Clone + Send + Sync + Serialize + DeserializeOwned;

    /// The name used on the command line and in the outputs.
    fn name(&self) -> &'static str;

    /// The state of a player before the first contest.
    fn new_player(&self) -> Self::Player;

    /// The rating of a state.
    fn rating(&self, p: &Self::Player) -> Rating;

    /// Applies a round: every contest of it, rated from the states as they are on entry
    /// (pre-round). `players` is indexed by [`PlayerId`]; only the round's participants change.
    fn update(&self, round: Round<'_>, players: &mut [Self::Player]);

    /// Probability that side `a` beats side `b` (a draw counting half), where the system
    /// defines one.
    fn win_probability(
        &self,
        players: &[Self::Player],
        a: &[PlayerId],
        b: &[PlayerId],
    ) -> Option<f64>;

    /// The performance the last round showed, where the system has such a notion.
    fn performance(&self, _p: &Self::Player) -> Option<f64> {
        None
    }

    /// The parameters in effect, for `metrics.json`.
    fn params(&self) -> Value;

    /// The state of a player who arrives with a rating from elsewhere (`--initial-ratings`):
    /// `rating` in the system's units; the uncertainty (a standard deviation) and the
    /// volatility, where given and where the system has them, else the system's newcomer
    /// values.
    fn seeded(
        &self,
        rating: f64,
        uncertainty: Option<f64>,
        volatility: Option<f64>,
    ) -> Self::Player;

    /// Time passing for a player who has played before, called by the replay before the
    /// player's next round (and up to `--as-of` for the leaderboard): `periods` rating periods
    /// have begun since the player's last round (1 for the next round when every round is its
    /// own period; the number of calendar periods with `--period day|week|month`), and
    /// `variance` is the time decay (`--decay-per-day` times the days elapsed). Systems with
    /// an uncertainty add `variance` to it (squared), within whatever bound they keep, plus
    /// their own per-period growth (Glicko's `c^2`, Glicko-2's volatility for periods without
    /// games); the rating does not change. Systems without an uncertainty ignore it.
    fn elapse(&self, _p: &mut Self::Player, _periods: u32, _variance: f64) {}
}

/// The systems `--system` chooses from.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "clap", derive(clap::ValueEnum))]
#[serde(rename_all = "kebab-case")]
pub enum SystemKind {
    /// Elo with the variants of "Elo for games" (floor, score share, margin, win bonus).
    Elo,
    /// Yuksel 2024: variance-weighted Newton updates, incremental or zero-sum.
    Yuksel,
    /// Elo-MMR(rho): logistic performances, pseudodiffusion (Ebtekar and Liu 2021).
    EloMmr,
    /// Elo-MMchi: Elo-MMR with Gaussian performances.
    EloMmx,
    /// BAR: Weng and Lin 2011, Bradley-Terry with full pairing, normalised as in Elo-MMR.
    Bar,
    /// Glicko on every pair of a contest, normalised as in Elo-MMR.
    PairwiseGlicko,
    /// Codeforces (Mirzayanov 2015): the rating whose expected place is the geometric mean of
    /// the expected and the actual place, with two sum adjustments.
    Codeforces,
    /// Topcoder's algorithm rating: Gaussian performances, volatility, weight and cap.
    Topcoder,
    /// Elo with the normal distribution function as its curve (Elo's original design).
    EloGaussian,
    /// Glicko (Glickman 1999): rating and rating deviation, rating periods.
    Glicko,
    /// Glicko-2 (Glickman 2001): rating, deviation and volatility.
    Glicko2,
    /// TrueSkill (Herbrich, Minka, Graepel 2007): two-player, free-for-all and teams.
    #[cfg_attr(feature = "clap", value(name = "trueskill"))]
    #[serde(rename = "trueskill")]
    TrueSkill,
}

impl SystemKind {
    /// The command-line name.
    pub fn name(self) -> &'static str {
        match self {
            SystemKind::Elo => "elo",
            SystemKind::Yuksel => "yuksel",
            SystemKind::EloMmr => "elo-mmr",
            SystemKind::EloMmx => "elo-mmx",
            SystemKind::Bar => "bar",
            SystemKind::PairwiseGlicko => "pairwise-glicko",
            SystemKind::Codeforces => "codeforces",
            SystemKind::Topcoder => "topcoder",
            SystemKind::EloGaussian => "elo-gaussian",
            SystemKind::Glicko => "glicko",
            SystemKind::Glicko2 => "glicko2",
            SystemKind::TrueSkill => "trueskill",
        }
    }
}

/// Parameter values by name, as given by the user.
pub type ParamMap = Map<String, Value>;

/// Something to do with whichever system was chosen (the replay, a comparison...).
pub trait SystemVisitor {
    /// What the visit returns.
    type Output;
    /// Runs with the chosen system.
    fn visit<S: RatingSystem>(self, system: &S) -> Self::Output;
}

/// The parameters a system is built with (as in `metrics.json`).
pub struct ParamsOf;

impl SystemVisitor for ParamsOf {
    type Output = Value;
    fn visit<S: RatingSystem>(self, system: &S) -> Value {
        system.params()
    }
}

/// Builds the chosen system from named parameters and hands it to the visitor.
pub fn dispatch<V: SystemVisitor>(
    kind: SystemKind,
    params: &ParamMap,
    v: V,
) -> Result<V::Output, String> {
    Ok(match kind {
        SystemKind::Elo => v.visit(&elo::Elo::new(build_params(kind, params)?)?),
        SystemKind::Yuksel => v.visit(&yuksel::Yuksel::new(build_params(kind, params)?)?),
        SystemKind::EloMmr => v.visit(&elo_mmr::EloMmr::new(build_params(kind, params)?)?),
        SystemKind::EloMmx => v.visit(&elo_mmr::EloMmr::gaussian(build_params(kind, params)?)?),
        SystemKind::Bar => v.visit(&bar::Bar::new(build_params(kind, params)?)?),
        SystemKind::PairwiseGlicko => v.visit(&pairwise_glicko::PairwiseGlicko::new(
            build_params(kind, params)?,
        )?),
        SystemKind::Codeforces => {
            v.visit(&codeforces::Codeforces::new(build_params(kind, params)?)?)
        }
        SystemKind::Topcoder => v.visit(&topcoder::Topcoder::new(build_params(kind, params)?)?),
        SystemKind::EloGaussian => v.visit(&elo::Elo::gaussian(build_params(kind, params)?)?),
        SystemKind::Glicko => v.visit(&glicko::Glicko::new(build_params(kind, params)?)?),
        SystemKind::Glicko2 => v.visit(&glicko2::Glicko2::new(build_params(kind, params)?)?),
        SystemKind::TrueSkill => v.visit(&trueskill::TrueSkill::new(build_params(kind, params)?)?),
    })
}

/// Reads a parameter struct from named values, refusing names the system does not have.
pub fn build_params<P: DeserializeOwned + Serialize + Default>(
    kind: SystemKind,
    given: &ParamMap,
) -> Result<P, String> {
    let mut value = serde_json::to_value(P::default()).map_err(|e| e.to_string())?;
    let fields = value
        .as_object_mut()
        .expect("parameter structs are objects");
    let known: Vec<String> = fields.keys().cloned().collect();
    for (k, v) in given {
        if !fields.contains_key(k) {
            return Err(format!(
                "--system {} has no parameter `{}` (its parameters: {})",
                kind.name(),
                k.replace('_', "-"),
                known
                    .iter()
                    .map(|k| k.replace('_', "-"))
                    .collect::<Vec<_>>()
                    .join(", ")
            ));
        }
        fields.insert(k.clone(), v.clone());
    }
    serde_json::from_value(value).map_err(|e| format!("--system {}: {e}", kind.name()))
}

/// Parses `name=value` (a number, `true`/`false`, or text) into the map.
pub fn parse_param(spec: &str, into: &mut ParamMap) -> Result<(), String> {
    let (k, v) = spec
        .split_once('=')
        .ok_or_else(|| format!("--param `{spec}` is not of the form name=value"))?;
    let key = k.trim().replace('-', "_");
    let v = v.trim();
    let value = if let Ok(n) = v.parse::<f64>() {
        number(n).ok_or_else(|| format!("--param {k}: {v} is not finite"))?
    } else if v == "true" || v == "false" {
        Value::Bool(v == "true")
    } else {
        Value::String(v.to_string())
    };
    into.insert(key, value);
    Ok(())
}

/// A parameter value as JSON: whole numbers as integers (so that they fill integer
/// parameters too), others as floats; `None` when not finite.
pub fn number(v: f64) -> Option<Value> {
    if v.fract() == 0.0 && v.abs() < 9.0e15 {
        Some(Value::Number((v as i64).into()))
    } else {
        serde_json::Number::from_f64(v).map(Value::Number)
    }
}

/// Mean of a function of the members of a side (a team plays with its members' mean).
#[inline]
pub fn side_mean<P>(players: &[P], side: &[PlayerId], f: impl Fn(&P) -> f64) -> f64 {
    if let [one] = side {
        return f(&players[*one as usize]);
    }
    side.iter().map(|&p| f(&players[p as usize])).sum::<f64>() / side.len() as f64
}

/// Maps `f` over `0..n`, on rayon's threads when n is at least `parallel_from`. Each item is
/// computed by the same code either way, so the results do not depend on the thread count.
pub(crate) fn map_indices<T: Send>(
    n: usize,
    parallel_from: usize,
    f: impl Fn(usize) -> T + Sync + Send,
) -> Vec<T> {
    use rayon::prelude::*;
    if n >= parallel_from {
        (0..n).into_par_iter().map(f).collect()
    } else {
        (0..n).map(f).collect()
    }
}

/// Applies `f` to every item with its companion in `with`, on rayon's threads when there are
/// at least `parallel_from` items (below that, handing work to the pool costs more than it
/// saves). Each item is updated by the same code either way.
pub(crate) fn update_each<T: Send, U: Sync>(
    items: &mut [T],
    with: &[U],
    parallel_from: usize,
    f: impl Fn(&mut T, &U) + Sync + Send,
) {
    use rayon::prelude::*;
    if items.len() >= parallel_from {
        items.par_iter_mut().zip(with).for_each(|(t, u)| f(t, u));
    } else {
        items.iter_mut().zip(with).for_each(|(t, u)| f(t, u));
    }
}

/// Checks that a parameter is a finite number within bounds.
pub(crate) fn check_range(name: &str, v: f64, lo: f64, hi: f64) -> Result<(), String> {
    if v.is_finite() && v >= lo && v <= hi {
        Ok(())
    } else {
        Err(format!("parameter `{name}` = {v} is outside [{lo}, {hi}]"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unknown_parameters_are_refused_with_the_list() {
        let mut m = ParamMap::new();
        parse_param("floor=1000", &mut m).unwrap();
        let err = build_params::<yuksel::YukselParams>(SystemKind::Yuksel, &m).unwrap_err();
        assert!(err.contains("no parameter `floor`"), "{err}");
        assert!(err.contains("max-delta"), "{err}");
        let p: elo::EloParams = build_params(SystemKind::Elo, &m).unwrap();
        assert_eq!(p.floor, Some(1000.0));
        assert_eq!(p.k, 32.0);
    }

    #[test]
    fn bar_and_pairwise_glicko_take_their_parameters_by_name() {
        let mut m = ParamMap::new();
        parse_param("beta=200", &mut m).unwrap();
        parse_param("sig-drift=0", &mut m).unwrap();
        parse_param("normalise=false", &mut m).unwrap();
        let p: bar::BarParams = build_params(SystemKind::Bar, &m).unwrap();
        assert_eq!((p.beta, p.sig_drift, p.normalise), (200.0, 0.0, false));
        assert_eq!((p.kappa, p.mu_init, p.sigma_init), (1e-4, 1500.0, 350.0));
        let g: pairwise_glicko::PairwiseGlickoParams =
            build_params(SystemKind::PairwiseGlicko, &m).unwrap();
        assert_eq!((g.beta, g.sig_drift, g.normalise), (200.0, 0.0, false));
        parse_param("kappa=0.001", &mut m).unwrap();
        let err =
            build_params::<pairwise_glicko::PairwiseGlickoParams>(SystemKind::PairwiseGlicko, &m)
                .unwrap_err();
        assert!(
            err.contains("no parameter `kappa`") && err.contains("sig-drift"),
            "{err}"
        );
    }

    #[test]
    fn params_parse_numbers_bools_and_text() {
        let mut m = ParamMap::new();
        parse_param("k=24", &mut m).unwrap();
        parse_param("zero-sum=true", &mut m).unwrap();
        assert_eq!(m["k"], serde_json::json!(24));
        assert_eq!(m["zero_sum"], serde_json::json!(true));
        assert!(parse_param("k", &mut m).is_err());
    }
}
