//! What every system shares: the [`RatingSystem`] trait (and [`WholeHistory`], the hooks of a
//! whole-history system), [`Rating`], the [`SystemKind`] names (generated from the registry's
//! table), parameters by name, and the divergence bound. The systems import this module, the
//! registry (`systems/mod.rs`) imports the systems: the arrows run one way.

use crate::history::{Contest, PlayerId, Round};
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

impl Rating {
    /// A rating whose display is its mean.
    pub fn new(mean: f64, uncertainty: Option<f64>) -> Self {
        Rating {
            mean,
            uncertainty,
            display: mean,
        }
    }
}

/// The time that passed for a player since his last round, as the replay hands it to
/// [`RatingSystem::elapse`].
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Elapsed {
    /// Rating periods passed. Counted (`fractional` false): 1 before each round when every
    /// round is its own period (0 at the end), or the calendar periods begun since his last
    /// round with `--period day|week|month`. Measured (`fractional` true): the time since his
    /// last contest in the system's rating periods ([`RatingSystem::rating_period_days`]), a
    /// fraction of one for a game the same day.
    pub periods: f64,
    /// The time decay's variance (`--decay-per-day` times the days passed).
    pub variance: f64,
    /// The days passed (0 where the history has no time between the rounds).
    pub days: f64,
    /// The uncertainty grows with time (`--growth time`): a system whose own growth comes
    /// with each round (TrueSkill's `tau`, Elo-MMR's `gamma`, the all-pairs drift) adds one
    /// round's growth for each period passed beyond the first. False under `--growth rounds`
    /// (such systems then add nothing for periods without a round).
    pub idle_growth: bool,
    /// `periods` is measured time rather than counted periods (see there).
    pub fractional: bool,
}

impl Elapsed {
    /// Counted periods under `--growth rounds`, without decay: what a round of the game-by-game
    /// [`crate::rater::Rater`] passes (`periods` 1).
    pub fn rounds(periods: f64) -> Self {
        Elapsed {
            periods,
            variance: 0.0,
            days: 0.0,
            idle_growth: false,
            fractional: false,
        }
    }

    /// The same, with `variance` as its decay.
    pub fn with_variance(self, variance: f64) -> Self {
        Elapsed { variance, ..self }
    }

    /// The periods beyond the first: those of a system's own growth per round that the round
    /// itself does not bring, under [`Elapsed::idle_growth`] (0 otherwise).
    pub fn idle_periods(&self) -> f64 {
        if self.idle_growth {
            (self.periods - 1.0).max(0.0)
        } else {
            0.0
        }
    }
}

/// Lichess's rating period, in days: it counts 0.21436 Glicko-2 periods a day
/// (niklasf/liglicko2's `rating_periods_per_day`); `--preset lichess` rates by it.
pub const LICHESS_PERIOD_DAYS: f64 = 1.0 / 0.21436;

/// The rating period of the systems whose uncertainty grows with time, in days, unless
/// `--rating-period` says otherwise: a month, the period of FIDE's rating lists. A player
/// back after longer gets one more period's growth for each such period.
pub const DEFAULT_PERIOD_DAYS: f64 = 30.0;

/// One rating system.
pub trait RatingSystem: Sync {
    /// Everything the system keeps per player.
    type Player: Clone + Send + Sync + Serialize + DeserializeOwned + 'static;

    /// The parameter struct (named values with the papers' defaults).
    type Params: Serialize;

    /// Which registered system this is.
    fn kind(&self) -> SystemKind;

    /// The parameters in effect.
    fn parameters(&self) -> &Self::Params;

    /// The name used on the command line and in the outputs.
    fn name(&self) -> &'static str {
        self.kind().name()
    }

    /// The state of a player before the first contest.
    fn new_player(&self) -> Self::Player;

    /// The rating of a state.
    fn rating(&self, p: &Self::Player) -> Rating;

    /// Applies a round: every contest of it, rated from the states as they are on entry
    /// (pre-round). `players` is indexed by [`PlayerId`]; only the round's participants change.
    fn update(&self, round: Round<'_>, players: &mut [Self::Player]);

    /// Probability that side `a` beats side `b` (a draw counting half), where the system
    /// defines one. A system implements this or
    /// [`win_probability_sided`](Self::win_probability_sided) (each defaults to the other):
    /// by default, the latter on neutral ground.
    fn win_probability(
        &self,
        players: &[Self::Player],
        a: &[PlayerId],
        b: &[PlayerId],
    ) -> Option<f64> {
        self.win_probability_sided(players, a, b, false)
    }

    /// [`win_probability`](Self::win_probability) of a game as it is played: with
    /// `first_side`, side `a` plays the first side (home, white; see
    /// [`Contest::first_side`]) and the system's first-side advantage, if it has one, counts
    /// for it. The default (a system without an advantage) ignores `first_side`.
    fn win_probability_sided(
        &self,
        players: &[Self::Player],
        a: &[PlayerId],
        b: &[PlayerId],
        _first_side: bool,
    ) -> Option<f64> {
        self.win_probability(players, a, b)
    }

    /// The system's rating points of first-side advantage (its parameter `advantage`) that
    /// one point of advantage on the Elo scale (a logistic curve, 400 points for odds of 10
    /// to 1) is worth, matched by the slope of the win probability at even odds between
    /// established players; `None` for a system without a first-side advantage. `--advantage
    /// auto` converts its fit with it.
    fn advantage_per_elo(&self) -> Option<f64> {
        None
    }

    /// Side `a`'s probabilities of a win, a draw and a loss (`first_side` as in
    /// [`win_probability_sided`](Self::win_probability_sided)), where the system has a
    /// draw model of its own (TrueSkill's draw margin, Bradley-Terry with Davidson's ties).
    /// `None` by default: the replay then splits the win probability into the three outcomes
    /// with a draw parameter it fits ([`crate::draws`]).
    fn outcome_probabilities(
        &self,
        _players: &[Self::Player],
        _a: &[PlayerId],
        _b: &[PlayerId],
        _first_side: bool,
    ) -> Option<[f64; 3]> {
        None
    }

    /// The performance the last round showed, where the system has such a notion.
    fn performance(&self, _p: &Self::Player) -> Option<f64> {
        None
    }

    /// What [`Rating::uncertainty`] is for this system: a short label for tables and what it
    /// means (not every system's is a standard deviation of the rating); `None` for a system
    /// without one.
    fn uncertainty_meaning(&self) -> Option<(&'static str, &'static str)> {
        None
    }

    /// The parameters in effect, for `metrics.json`.
    fn params(&self) -> Value {
        serde_json::to_value(self.parameters()).unwrap_or_default()
    }

    /// How the updates are computed where the system has a choice (exact sums, a sample of
    /// opponents, a tabulated shared function and its error bound), for `metrics.json`.
    fn method(&self) -> Option<String> {
        None
    }

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
    /// player's next round (and up to the end, or `--as-of`, for the leaderboard): see
    /// [`Elapsed`] for what the replay measures. Systems with an uncertainty add
    /// `time.variance` to it (squared), within whatever bound they keep, plus their own
    /// growth for the periods passed (Glicko's `c^2`, Glicko-2's volatility, or, under
    /// [`Elapsed::idle_growth`], one round's growth of their own for each period beyond the
    /// first); the rating does not change. Systems without an uncertainty ignore it.
    fn elapse(&self, _p: &mut Self::Player, _time: Elapsed) {}

    /// Moves a player's rating by `points` (the system's rating units), the rest of his state
    /// as it is: the regression toward the mean between two seasons ([`crate::seasons`]).
    /// Returns false, and moves nothing, for a system whose state is more than a rating that
    /// can move so (a history of performances, a whole-history fit): such a system refuses
    /// `--season-regress` (the replay asks with 0 points before it starts).
    fn shift(&self, _p: &mut Self::Player, _points: f64) -> bool {
        false
    }

    /// How long one rating period of the system lasts, in days, when its uncertainty grows
    /// with the time that passes (`--growth time`, the default, with a game or a series a
    /// round): the replay measures a player's time away in these periods
    /// ([`Elapsed::periods`], fractional). `None` (the default): the system's uncertainty
    /// does not grow with time (it has none, or a model of time of its own).
    fn rating_period_days(&self) -> Option<f64> {
        None
    }

    /// Why the system cannot rate a contest, if it cannot (Bradley-Terry's pairs from a
    /// standings larger than it takes): checked by the replay before each round is rated,
    /// which then stops with this reason.
    fn refuses(&self, _contest: &Contest<'_>) -> Option<String> {
        None
    }

    /// Whether the system honours partial play: a member's share of a contest
    /// ([`crate::history::Entry::weights`]) scaling his part in his entry's strength and his
    /// change. A system that does not refuses a contest with shares ([`refusal`]).
    fn partial_play(&self) -> bool {
        false
    }

    /// The hooks of a whole-history system ([`WholeHistory`]): Bradley-Terry and Whole-History
    /// Rating give themselves; `None` (the default) for a system updated by each round.
    fn whole_history(&self) -> Option<&dyn WholeHistory<Self::Player>> {
        None
    }
}

/// The items every system with a fixed kind and its parameters in `self.p` writes alike, in
/// its `impl RatingSystem`: `type Params`, [`RatingSystem::kind`],
/// [`RatingSystem::parameters`] and, where given, [`RatingSystem::uncertainty_meaning`]
/// (its label and its meaning).
macro_rules! fixed_system {
    ($kind:ident, $params:ty $(, uncertainty: $label:literal, $meaning:literal)?) => {
        type Params = $params;

        fn kind(&self) -> $crate::systems::SystemKind {
            $crate::systems::SystemKind::$kind
        }

        fn parameters(&self) -> &$params {
            &self.p
        }

        $(fn uncertainty_meaning(&self) -> Option<(&'static str, &'static str)> {
            Some(($label, $meaning))
        })?
    };
}
pub(crate) use fixed_system;

/// The hooks of a whole-history system ([`RatingSystem::whole_history`]; `P` its players'
/// states): its ratings are refitted from all the results so far rather than updated by each
/// round (Bradley-Terry, Whole-History Rating). Its [`RatingSystem::update`] reads and changes
/// every player's state (a player's games point into his opponents' states), so a caller that
/// rates with copies of the participants' states alone (the [`crate::rater::Rater`]) hands it
/// all of them instead.
pub trait WholeHistory<P> {
    /// Brings every state up to date after the last round: the fit once more on the whole
    /// history. Called once by the replay at its end, after the snapshot for `--save-state`
    /// was taken and before the leaderboard is read.
    fn settle(&self, players: &mut [P]);

    /// [`RatingSystem::update`] when no rating will be read before the replay's end (and its
    /// [`WholeHistory::settle`]): a bootstrap replicate. A system whose final ratings do not
    /// depend on its intermediate ones (Bradley-Terry: only the counts) may skip work here.
    fn accumulate(&self, round: Round<'_>, players: &mut [P]);

    /// The standard deviation of each player's rating less the mean rating of `reference`
    /// (of every player's when empty: what the data identify, a likelihood of differences
    /// leaving the common offset to the prior), from the inverse of the fit's Hessian (its
    /// observed information), for a system fitted by maximum likelihood; `None` by default,
    /// or when the players are too many for the dense inverse.
    fn hessian_sds(&self, _players: &[P], _reference: &[PlayerId]) -> Option<Vec<f64>> {
        None
    }

    /// What the system fitted to the whole history beside the ratings (a first-side
    /// advantage, a draw parameter), for `metrics.json`.
    fn fitted(&self, _players: &[P]) -> Option<Value> {
        None
    }
}

/// Why `system` cannot rate a contest, if it cannot: partial play it does not honour, or its
/// own reason ([`RatingSystem::refuses`]).
pub fn refusal<S: RatingSystem>(system: &S, contest: &Contest<'_>) -> Option<String> {
    if contest.partial() && !system.partial_play() {
        return Some(format!(
            "{} cannot rate partial play (a member's share of a game, `name*0.5`): it has no \
             per-member weight; rate it with elo, elo-gaussian, trueskill, elo-mmr, elo-mmx or \
             bar, or give every member the whole game",
            system.name()
        ));
    }
    system.refuses(contest)
}

/// The win probability of a two-entry contest's first entry as the game was played (its
/// first-side advantage included), where the system gives one.
pub fn game_win_probability<S: RatingSystem>(
    system: &S,
    players: &[S::Player],
    contest: &Contest<'_>,
) -> Option<f64> {
    let (a, b) = (contest.entry(0), contest.entry(1));
    system.win_probability_sided(players, a.players, b.players, contest.first_side())
}

/// [`RatingSystem::advantage_per_elo`] of a normal curve `Phi(d / width)`: the logistic
/// Elo curve's slope at even odds is `ln 10 / 1600` per point, the normal's
/// `1 / (sqrt(2 pi) width)`.
pub fn normal_points_per_elo(width: f64) -> f64 {
    width * std::f64::consts::LN_10 / 1600.0 * (2.0 * std::f64::consts::PI).sqrt()
}

/// For `skip_serializing_if`: a parameter left at 0 is not shown (an advantage not used).
pub fn is_zero(x: &f64) -> bool {
    *x == 0.0
}

/// Methods that call the same method of `*self`, from their signatures.
macro_rules! forward {
    ($(fn $name:ident(&self $(, $arg:ident: $ty:ty)*) $(-> $ret:ty)?;)*) => {
        $(fn $name(&self $(, $arg: $ty)*) $(-> $ret)? {
            (*self).$name($($arg),*)
        })*
    };
}

/// A borrowed system is a system (a [`crate::rater::Rater`] can rate with one it does not
/// own).
impl<S: RatingSystem> RatingSystem for &S {
    type Player = S::Player;
    type Params = S::Params;
    forward! {
        fn kind(&self) -> SystemKind;
        fn parameters(&self) -> &Self::Params;
        fn new_player(&self) -> Self::Player;
        fn rating(&self, p: &Self::Player) -> Rating;
        fn update(&self, round: Round<'_>, players: &mut [Self::Player]);
        fn win_probability(&self, players: &[Self::Player], a: &[PlayerId], b: &[PlayerId])
            -> Option<f64>;
        fn win_probability_sided(&self, players: &[Self::Player], a: &[PlayerId],
            b: &[PlayerId], first_side: bool) -> Option<f64>;
        fn outcome_probabilities(&self, players: &[Self::Player], a: &[PlayerId],
            b: &[PlayerId], first_side: bool) -> Option<[f64; 3]>;
        fn advantage_per_elo(&self) -> Option<f64>;
        fn performance(&self, p: &Self::Player) -> Option<f64>;
        fn uncertainty_meaning(&self) -> Option<(&'static str, &'static str)>;
        fn params(&self) -> Value;
        fn method(&self) -> Option<String>;
        fn seeded(&self, rating: f64, uncertainty: Option<f64>, volatility: Option<f64>)
            -> Self::Player;
        fn elapse(&self, p: &mut Self::Player, time: Elapsed);
        fn shift(&self, p: &mut Self::Player, points: f64) -> bool;
        fn rating_period_days(&self) -> Option<f64>;
        fn refuses(&self, contest: &Contest<'_>) -> Option<String>;
        fn partial_play(&self) -> bool;
        fn whole_history(&self) -> Option<&dyn WholeHistory<Self::Player>>;
    }
}

/// Generates from the registry's table (in `systems/mod.rs`) the [`SystemKind`] enum, its
/// command-line and output names, [`SystemKind::ALL`] and each system's default tuning grid.
macro_rules! kinds {
    ($(
        $(#[$doc:meta])*
        $variant:ident = $name:literal => $build:path, grid [$($param:literal: [$($value:expr),* $(,)?]),* $(,)?];
    )*) => {
        /// The registered rating systems.
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
        #[cfg_attr(feature = "clap", derive(clap::ValueEnum))]
        pub enum SystemKind {
            $(
                $(#[$doc])*
                #[serde(rename = $name)]
                #[cfg_attr(feature = "clap", value(name = $name))]
                $variant,
            )*
        }

        impl SystemKind {
            /// Every system, in the registry's order (the order of `compare --systems all`).
            pub const ALL: &'static [SystemKind] = &[$(SystemKind::$variant),*];

            /// The name on the command line and in the outputs.
            pub fn name(self) -> &'static str {
                match self {
                    $(SystemKind::$variant => $name,)*
                }
            }

            /// The system of a name (any case).
            pub fn from_name(name: &str) -> Option<SystemKind> {
                Self::ALL
                    .iter()
                    .copied()
                    .find(|k| k.name().eq_ignore_ascii_case(name.trim()))
            }

            /// The parameter values `tune` tries by default: a grid around the published
            /// defaults, which are among the values exactly.
            pub fn default_grid(self) -> Vec<(String, Vec<f64>)> {
                match self {
                    $(SystemKind::$variant => vec![$(($param.to_string(), vec![$($value),*])),*],)*
                }
            }
        }

    };
}

registry_table!(kinds);

/// Parameter values by name, as given by the user.
pub type ParamMap = Map<String, Value>;

/// Something to do with whichever system was chosen (the replay, a comparison...).
pub trait SystemVisitor {
    /// What the visit returns.
    type Output;
    /// Runs with the chosen system.
    fn visit<S: RatingSystem>(self, system: &S) -> Self::Output;
}

/// What to do with a system chosen at run time, taking it over ([`super::dispatch_owned`]).
pub trait SystemOwner {
    /// What the call returns.
    type Output;
    /// Runs with the chosen system, which it keeps.
    fn own<S: RatingSystem + Send + 'static>(self, system: S) -> Self::Output;
}

/// The parameters a system is built with (as in `metrics.json`).
pub struct ParamsOf;

impl SystemVisitor for ParamsOf {
    type Output = Value;
    fn visit<S: RatingSystem>(self, system: &S) -> Value {
        system.params()
    }
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
    // A parameter left out of the shown set while at its default (`exact`) is still known:
    // the struct takes it.
    // (Such parameters are switches or choices: probed with `true` and with null, which a
    // choice takes for its default, so that a wrong value is reported as such below, not as
    // an unknown name.)
    let takes = |k: &str, v: &Value| {
        [v.clone(), Value::Bool(true), Value::Null]
            .into_iter()
            .any(|v| {
                let mut probe = serde_json::to_value(P::default()).unwrap_or_default();
                if let Some(m) = probe.as_object_mut() {
                    m.insert(k.to_string(), v);
                }
                serde_json::from_value::<P>(probe).is_ok()
            })
    };
    for (k, v) in given {
        if !fields.contains_key(k) && !takes(k, v) {
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

/// The mean of `f` over an entry's players, each weighted by his share of the contest
/// (partial play; the plain mean when every share is 1, or when they sum to 0).
#[inline]
pub fn entry_mean<P>(
    players: &[P],
    entry: &crate::history::Entry<'_>,
    f: impl Fn(&P) -> f64,
) -> f64 {
    if entry.weights.is_empty() {
        return side_mean(players, entry.players, f);
    }
    weighted_mean(players, entry, f)
}

/// [`entry_mean`] of an entry with shares.
#[cold]
fn weighted_mean<P>(
    players: &[P],
    entry: &crate::history::Entry<'_>,
    f: impl Fn(&P) -> f64,
) -> f64 {
    let total: f64 = entry.weights.iter().sum();
    if total <= 0.0 {
        return side_mean(players, entry.players, f);
    }
    entry
        .players
        .iter()
        .zip(entry.weights)
        .map(|(&p, &w)| w * f(&players[p as usize]))
        .sum::<f64>()
        / total
}

pub(crate) use crate::numeric::map_indices;

/// Mutable references to the items at `ids` (strictly increasing, each in range), in that
/// order: a round's participants worked on in place.
pub(crate) fn pick_mut<'a, T>(items: &'a mut [T], ids: &[PlayerId]) -> Vec<&'a mut T> {
    let mut out = Vec::with_capacity(ids.len());
    let mut rest = items;
    let mut offset = 0usize;
    for &id in ids {
        let skip = (id as usize)
            .checked_sub(offset)
            .expect("ids strictly increasing");
        let (item, tail) = std::mem::take(&mut rest)[skip..]
            .split_first_mut()
            .expect("ids in range");
        out.push(item);
        rest = tail;
        offset = id as usize + 1;
    }
    out
}

/// Items worked on per piece of parallel work by [`update_each_ahead`] and [`map_ahead`].
const AHEAD_CHUNK: usize = 256;

/// How many items ahead [`update_each_ahead`] and [`map_ahead`] ask for an item's own memory;
/// `ahead` is called half as far ahead, once that memory has had time to arrive.
const FAR: usize = 8;

/// Applies `f` to every item with its companion in `with` (and its index), on rayon's threads
/// from `parallel_from` items (below that, handing work to the pool costs more than it saves),
/// in chunks of 256. The items are behind pointers, scattered in memory (a round's
/// participants among every player's state), and their state points further (a player's
/// factors on the heap): before item i is updated, the memory of item i + 8 is asked for (see
/// [`crate::numeric::prefetch`]) and `ahead` is called on item i + 4 (to ask for what it points to). Each item
/// is updated by the same code however many threads there are.
pub(crate) fn update_each_ahead<X: Send + Sync, U: Sync>(
    items: &mut [&mut X],
    with: &[U],
    parallel_from: usize,
    ahead: impl Fn(&X) + Sync + Send,
    f: impl Fn(usize, &mut X, &U) + Sync + Send,
) {
    use rayon::prelude::*;
    let chunk = |first: usize, items: &mut [&mut X], with: &[U]| {
        for i in 0..items.len() {
            if let Some(far) = items.get(i + FAR) {
                prefetch_value(&**far);
            }
            if let Some(next) = items.get(i + FAR / 2) {
                ahead(next);
            }
            f(first + i, items[i], &with[i]);
        }
    };
    if items.len() >= parallel_from {
        items
            .par_chunks_mut(AHEAD_CHUNK)
            .zip(with.par_chunks(AHEAD_CHUNK))
            .enumerate()
            .for_each(|(c, (t, u))| chunk(c * AHEAD_CHUNK, t, u));
    } else {
        chunk(0, items, with);
    }
}

/// `f(i, item)` for every item behind `items`, in order, on rayon's threads from
/// `parallel_from` items; the memory of item i + 8 is asked for before item i is read.
pub(crate) fn map_ahead<X: Sync, T: Send>(
    items: &[&mut X],
    parallel_from: usize,
    f: impl Fn(usize, &X) -> T + Sync + Send,
) -> Vec<T> {
    use rayon::prelude::*;
    let chunk = |first: usize, items: &[&mut X], out: &mut Vec<T>| {
        for (i, item) in items.iter().enumerate() {
            if let Some(far) = items.get(i + FAR) {
                prefetch_value(&**far);
            }
            out.push(f(first + i, item));
        }
    };
    let mut out = Vec::with_capacity(items.len());
    if items.len() >= parallel_from {
        let parts: Vec<Vec<T>> = items
            .par_chunks(AHEAD_CHUNK)
            .enumerate()
            .map(|(c, t)| {
                let mut part = Vec::with_capacity(t.len());
                chunk(c * AHEAD_CHUNK, t, &mut part);
                part
            })
            .collect();
        parts.into_iter().for_each(|part| out.extend(part));
    } else {
        chunk(0, items, &mut out);
    }
    out
}

/// Asks for every cache line of `x` (see [`crate::numeric::prefetch`]).
#[inline(always)]
pub(crate) fn prefetch_value<X>(x: &X) {
    let first = std::ptr::from_ref(x).cast::<u8>();
    let size = std::mem::size_of::<X>();
    let mut offset = 0;
    while offset < size {
        crate::numeric::prefetch(first.wrapping_add(offset));
        offset += 64;
    }
    if size > 0 {
        crate::numeric::prefetch(first.wrapping_add(size - 1));
    }
}

/// Checks that a parameter is a finite number within bounds.
pub(crate) fn check_range(name: &str, v: f64, lo: f64, hi: f64) -> Result<(), ParamError> {
    if v.is_finite() && v >= lo && v <= hi {
        Ok(())
    } else {
        Err(ParamError(format!(
            "parameter `{name}` = {v} is outside [{lo}, {hi}]"
        )))
    }
}

/// A parameter a system cannot be built with (a value out of range, a name it does not have).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ParamError(pub String);

impl std::fmt::Display for ParamError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for ParamError {}

impl From<&str> for ParamError {
    fn from(s: &str) -> Self {
        ParamError(s.to_string())
    }
}

impl From<ParamError> for String {
    fn from(e: ParamError) -> String {
        e.0
    }
}

/// The largest rating or uncertainty, in the system's own units, that a replay accepts: far
/// beyond any real scale (Elo-like ratings live within a few thousand, TrueSkill's within a
/// hundred), so that only a runaway reaches it.
pub const DIVERGENCE_BOUND: f64 = 1e7;

/// What is wrong with a rating, if anything: a mean or uncertainty not finite or beyond the
/// bound. Called for every participant of every round, so the common case (nothing wrong) is
/// two comparisons and the message is built out of line.
#[inline]
pub fn runaway(r: &Rating) -> Option<String> {
    // False for NaN and the infinities too.
    let ok = |v: f64| v.abs() <= DIVERGENCE_BOUND;
    if ok(r.mean) && r.uncertainty.is_none_or(ok) {
        return None;
    }
    runaway_text(r)
}

#[cold]
#[inline(never)]
fn runaway_text(r: &Rating) -> Option<String> {
    let bad = |v: f64| !(v.is_finite() && v.abs() <= DIVERGENCE_BOUND);
    if bad(r.mean) {
        Some(format!("rating {:e}", r.mean))
    } else {
        r.uncertainty
            .filter(|&u| bad(u))
            .map(|u| format!("uncertainty {u:e}"))
    }
}

/// The first of `players` (indices into `states`) whose rating ran away, with what ran away
/// (see [`runaway`]). A long list (a large round's) is looked at on rayon's threads, each
/// rating a read far from the last; the first in the list is still the one found.
pub fn first_runaway<S: RatingSystem>(
    system: &S,
    states: &[S::Player],
    players: &[PlayerId],
) -> Option<(usize, String)> {
    use rayon::prelude::*;
    /// Lists from this long are looked at in parallel.
    const PARALLEL_FROM: usize = 4_096;
    let check = |&p: &PlayerId| {
        let p = p as usize;
        runaway(&system.rating(&states[p])).map(|what| (p, what))
    };
    if players.len() >= PARALLEL_FROM {
        players.par_iter().with_min_len(1_024).find_map_first(check)
    } else {
        players.iter().find_map(check)
    }
}
