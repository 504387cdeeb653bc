//! Rating games and contests one at a time, by player name, with any system: the front door
//! for a program that rates as results come in rather than replaying a file.
//!
//! ```
//! use rate_batch_core::rater::Rater;
//! use rate_batch_core::systems::glicko2::{Glicko2, Glicko2Params};
//!
//! let mut rater = Rater::new(Glicko2::new(Glicko2Params::default())?);
//! rater.rate_game("ann", "bob", 1.0)?; // ann beats bob
//! rater.rate_game("bob", "cy", 0.5)?; // bob and cy draw
//! assert!(rater.rating("ann").unwrap().mean > 1500.0);
//! assert_eq!(rater.leaderboard()[0].0, "ann");
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! A rated game is exactly what `rate-batch replay --period game --growth rounds` does with it
//! (a Rater knows no time): a returning
//! player's state first goes through the system's time step for one rating period, then the
//! round is rated from the states before it. [`Rater::rate_period`] rates several games as one
//! rating period (Glicko's and Glicko-2's periods), [`Rater::rate_contest`] a ranking of many.

use crate::history::{
    ContestError, HistoryBuilder, PlayerId, Round, SourceInfo, canonical_name, ranks_to_ranges,
};
use crate::systems::{DIVERGENCE_BOUND, first_runaway, refusal};
use crate::systems::{Elapsed, Rating, RatingSystem};
use rustc_hash::FxHashMap;

/// Why a game or contest could not be rated.
#[derive(Clone, Debug, PartialEq)]
pub enum RateError {
    /// The game or contest is not well formed (a player twice, fewer than two entries).
    Contest(ContestError),
    /// A score outside [0, 1].
    Score(f64),
    /// An empty player name (refused as `replay` refuses it).
    EmptyName,
    /// The system cannot take the contest ([`RatingSystem::refuses`]: a standings larger
    /// than Bradley-Terry takes), with the reason.
    Refused(String),
    /// The system's ratings ran away: a player's rating or uncertainty is not finite or is
    /// beyond the replay's bound. The states are as before the round.
    Diverged {
        /// The player.
        player: String,
        /// What ran away.
        value: String,
    },
}

impl std::fmt::Display for RateError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            RateError::Contest(e) => write!(f, "{e}"),
            RateError::Score(s) => write!(f, "score {s} is not within [0, 1]"),
            RateError::EmptyName => write!(f, "empty player name"),
            RateError::Refused(why) => write!(f, "{why}"),
            RateError::Diverged { player, value } => write!(
                f,
                "`{player}`'s {value} is beyond ±{DIVERGENCE_BOUND:e}: the system diverged; \
                 the round was not applied"
            ),
        }
    }
}

impl std::error::Error for RateError {}

impl From<ContestError> for RateError {
    fn from(e: ContestError) -> Self {
        RateError::Contest(e)
    }
}

/// Players by name and their states under one system. Names are kept as `replay` keeps them:
/// exactly as given, in Unicode NFC (two spellings of one accented name are one player).
///
/// A call that is refused (a malformed game or contest, a runaway rating) changes no rating,
/// but the players it named are known from then on, as newcomers.
pub struct Rater<S: RatingSystem> {
    system: S,
    names: Vec<String>,
    ids: FxHashMap<String, PlayerId>,
    states: Vec<S::Player>,
    /// Rounds each player was rated in (a returning player's time step applies when > 0).
    rounds: Vec<u32>,
}

impl<S: RatingSystem> Rater<S> {
    /// A rater with no players yet.
    pub fn new(system: S) -> Self {
        Self {
            system,
            names: Vec::new(),
            ids: FxHashMap::default(),
            states: Vec::new(),
            rounds: Vec::new(),
        }
    }

    /// The system.
    pub fn system(&self) -> &S {
        &self.system
    }

    /// A player's id, added as a newcomer on first sight (the name in NFC).
    fn id(&mut self, name: &str) -> PlayerId {
        let name = canonical_name(name);
        if let Some(&id) = self.ids.get(name.as_ref()) {
            return id;
        }
        let id = self.names.len() as PlayerId;
        self.names.push(name.to_string());
        self.ids.insert(name.into_owned(), id);
        self.states.push(self.system.new_player());
        self.rounds.push(0);
        id
    }

    /// A known player's id.
    fn find(&self, name: &str) -> Option<PlayerId> {
        self.ids.get(canonical_name(name).as_ref()).copied()
    }

    /// Gives a player who has not played yet a rating from elsewhere (in the system's units;
    /// the uncertainty a standard deviation, the volatility Glicko-2's), as
    /// `--initial-ratings` does; a player with a seed counts as rated before.
    pub fn seed(
        &mut self,
        name: &str,
        rating: f64,
        uncertainty: Option<f64>,
        volatility: Option<f64>,
    ) {
        let id = self.id(name) as usize;
        self.states[id] = self.system.seeded(rating, uncertainty, volatility);
    }

    /// Rates one game: `score_a` is a's result (1 a win, 1/2 a draw, 0 a loss).
    pub fn rate_game(&mut self, a: &str, b: &str, score_a: f64) -> Result<(), RateError> {
        self.rate_period(&[(a, b, score_a)])
    }

    /// Rates several games as one round (one rating period): every game from the ratings
    /// before the round.
    pub fn rate_period(&mut self, games: &[(&str, &str, f64)]) -> Result<(), RateError> {
        if let Some(&(_, _, s)) = games.iter().find(|g| !(0.0..=1.0).contains(&g.2)) {
            return Err(RateError::Score(s));
        }
        if games.iter().any(|g| g.0.is_empty() || g.1.is_empty()) {
            return Err(RateError::EmptyName);
        }
        let ids: Vec<(PlayerId, PlayerId, f64)> = games
            .iter()
            .map(|&(a, b, s)| (self.id(a), self.id(b), s))
            .collect();
        if let Some(&(a, _, _)) = games
            .iter()
            .zip(&ids)
            .find(|(_, i)| i.0 == i.1)
            .map(|x| x.0)
        {
            return Err(ContestError::DuplicatePlayer(a.to_string()).into());
        }
        let players: Vec<PlayerId> = ids.iter().flat_map(|g| [g.0, g.1]).collect();
        self.rate(&players, |local, b| {
            for &(a, bb, s) in &ids {
                b.add_game(0, 1.0, None, (&[local(a)], &[local(bb)]), s, None)?;
            }
            Ok(())
        })
    }

    /// Rates a contest of many: each player with a rank (1 best; equal ranks tie; `1, 1, 3` and
    /// `1, 1, 2` mean the same).
    pub fn rate_contest(&mut self, standings: &[(&str, u64)]) -> Result<(), RateError> {
        if standings.iter().any(|s| s.0.is_empty()) {
            return Err(RateError::EmptyName);
        }
        let ids: Vec<PlayerId> = standings.iter().map(|&(n, _)| self.id(n)).collect();
        let mut seen = rustc_hash::FxHashSet::default();
        if let Some((&(n, _), _)) = standings
            .iter()
            .zip(&ids)
            .find(|(_, id)| !seen.insert(**id))
        {
            return Err(ContestError::DuplicatePlayer(n.to_string()).into());
        }
        let ranks: Vec<u64> = standings.iter().map(|&(_, r)| r).collect();
        let ranges = ranks_to_ranges(&ranks);
        self.rate(&ids, |local, b| {
            b.begin_contest(0, 1.0, None, None);
            for (&p, &(lo, hi)) in ids.iter().zip(&ranges) {
                b.add_entry(&[local(p)], lo, hi, None);
            }
            b.end_contest()
        })
    }

    /// Rates one round of `players` built by `add` (with their ids in the round), unless the
    /// round is malformed or a rating runs away: their states are copied out, go through the
    /// time step of a returning player, are rated together and copied back.
    ///
    /// A system that fits every player at once (Bradley-Terry, whole-history rating, whose
    /// every game the Rater dates 0: one day, no drift) rates the round on all the states (the
    /// players' ids their own), which are then fitted on everything rated so far
    /// ([`crate::systems::WholeHistory::settle`]), so that the ratings read are the fit on all
    /// of it. A round that would run away (not known to happen with such a system: its prior
    /// keeps every rating finite) is refused, but the states are not restored.
    fn rate(
        &mut self,
        players: &[PlayerId],
        add: impl FnOnce(&dyn Fn(PlayerId) -> PlayerId, &mut HistoryBuilder) -> Result<(), ContestError>,
    ) -> Result<(), RateError> {
        let whole = self.system.whole_history();
        // The round's players, each once, in order of first appearance.
        let mut local_of: FxHashMap<PlayerId, PlayerId> = FxHashMap::default();
        let mut order: Vec<PlayerId> = Vec::new();
        for &p in players {
            local_of.entry(p).or_insert_with(|| {
                order.push(p);
                (order.len() - 1) as PlayerId
            });
        }
        let mut b = HistoryBuilder::unnamed(if whole.is_some() {
            self.states.len()
        } else {
            order.len()
        });
        add(&|p| if whole.is_some() { p } else { local_of[&p] }, &mut b)?;
        let h = b.finish(SourceInfo::default());
        if let Some(why) = h.contests().find_map(|c| refusal(&self.system, &c)) {
            return Err(RateError::Refused(why));
        }
        let contests: Vec<u32> = (0..h.len() as u32).collect();
        let round = Round::new(&h, &contests);
        let returning = |p: PlayerId| self.rounds[p as usize] > 0;
        if let Some(whole) = whole {
            order.sort_unstable();
            for &p in order.iter().filter(|&&p| returning(p)) {
                self.system
                    .elapse(&mut self.states[p as usize], Elapsed::rounds(1.0));
            }
            self.system.update(round, &mut self.states);
            whole.settle(&mut self.states);
            if let Some((k, value)) = first_runaway(&self.system, &self.states, &order) {
                let player = self.names[k].clone();
                return Err(RateError::Diverged { player, value });
            }
        } else {
            let mut local: Vec<S::Player> = order
                .iter()
                .map(|&p| {
                    let mut st = self.states[p as usize].clone();
                    if returning(p) {
                        self.system.elapse(&mut st, Elapsed::rounds(1.0));
                    }
                    st
                })
                .collect();
            self.system.update(round, &mut local);
            let positions: Vec<PlayerId> = (0..local.len() as PlayerId).collect();
            if let Some((k, value)) = first_runaway(&self.system, &local, &positions) {
                let player = self.names[order[k] as usize].clone();
                return Err(RateError::Diverged { player, value });
            }
            for (&p, st) in order.iter().zip(local) {
                self.states[p as usize] = st;
            }
        }
        for &p in &order {
            self.rounds[p as usize] += 1;
        }
        Ok(())
    }

    /// A player's rating, if he is known.
    pub fn rating(&self, name: &str) -> Option<Rating> {
        let id = self.find(name)?;
        Some(self.system.rating(&self.states[id as usize]))
    }

    /// The system's probability that `a` beats `b` (a draw counting half), where it defines
    /// one; an unknown player counts as a newcomer. `a` plays the first side, as in
    /// [`rate_game`](Self::rate_game): the system's first-side advantage, if it has one,
    /// counts for him.
    pub fn win_probability(&self, a: &str, b: &str) -> Option<f64> {
        if self.system.whole_history().is_some()
            && let (Some(x), Some(y)) = (self.find(a), self.find(b))
        {
            // The fit's global values (an advantage, a tie parameter) live in the states.
            return self
                .system
                .win_probability_sided(&self.states, &[x], &[y], true);
        }
        let newcomer = self.system.new_player();
        let state = |n: &str| {
            self.find(n)
                .map_or(newcomer.clone(), |id| self.states[id as usize].clone())
        };
        let pair = [state(a), state(b)];
        self.system.win_probability_sided(&pair, &[0], &[1], true)
    }

    /// Every player with his rating, best first (equal ratings by name).
    pub fn leaderboard(&self) -> Vec<(&str, Rating)> {
        let mut rows: Vec<(&str, Rating)> = self
            .names
            .iter()
            .zip(&self.states)
            .map(|(n, s)| (n.as_str(), self.system.rating(s)))
            .collect();
        rows.sort_by(|a, b| b.1.mean.total_cmp(&a.1.mean).then_with(|| a.0.cmp(b.0)));
        rows
    }
}

/// A [`Rater`] of a system chosen at run time (by name and named parameters, as the command
/// line chooses one): the same calls, behind one type whatever the system (for bindings to
/// other languages).
pub trait AnyRater: Send + Sync {
    /// The system's name.
    fn system_name(&self) -> &'static str;
    /// [`Rater::seed`].
    fn seed(&mut self, name: &str, rating: f64, uncertainty: Option<f64>, volatility: Option<f64>);
    /// [`Rater::rate_game`].
    fn rate_game(&mut self, a: &str, b: &str, score_a: f64) -> Result<(), RateError>;
    /// [`Rater::rate_period`].
    fn rate_period(&mut self, games: &[(&str, &str, f64)]) -> Result<(), RateError>;
    /// [`Rater::rate_contest`].
    fn rate_contest(&mut self, standings: &[(&str, u64)]) -> Result<(), RateError>;
    /// [`Rater::rating`].
    fn rating(&self, name: &str) -> Option<Rating>;
    /// [`Rater::win_probability`].
    fn win_probability(&self, a: &str, b: &str) -> Option<f64>;
    /// [`Rater::leaderboard`], the names copied.
    fn leaderboard(&self) -> Vec<(String, Rating)>;
}

impl<S: RatingSystem + Send> AnyRater for Rater<S> {
    fn system_name(&self) -> &'static str {
        self.system.name()
    }
    fn seed(&mut self, name: &str, rating: f64, uncertainty: Option<f64>, volatility: Option<f64>) {
        Rater::seed(self, name, rating, uncertainty, volatility);
    }
    fn rate_game(&mut self, a: &str, b: &str, score_a: f64) -> Result<(), RateError> {
        Rater::rate_game(self, a, b, score_a)
    }
    fn rate_period(&mut self, games: &[(&str, &str, f64)]) -> Result<(), RateError> {
        Rater::rate_period(self, games)
    }
    fn rate_contest(&mut self, standings: &[(&str, u64)]) -> Result<(), RateError> {
        Rater::rate_contest(self, standings)
    }
    fn rating(&self, name: &str) -> Option<Rating> {
        Rater::rating(self, name)
    }
    fn win_probability(&self, a: &str, b: &str) -> Option<f64> {
        Rater::win_probability(self, a, b)
    }
    fn leaderboard(&self) -> Vec<(String, Rating)> {
        Rater::leaderboard(self)
            .into_iter()
            .map(|(n, r)| (n.to_string(), r))
            .collect()
    }
}

/// A rater of the system `kind` built from named parameters (an unknown name or a value out
/// of range is refused, with the reason).
pub fn any_rater(
    kind: crate::systems::SystemKind,
    params: &crate::systems::ParamMap,
) -> Result<Box<dyn AnyRater>, String> {
    struct Build;
    impl crate::systems::SystemOwner for Build {
        type Output = Box<dyn AnyRater>;
        fn own<S: RatingSystem + Send + 'static>(self, system: S) -> Box<dyn AnyRater> {
            Box::new(Rater::new(system))
        }
    }
    crate::systems::dispatch_owned(kind, params, Build)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::history::HistoryBuilder;
    use crate::replay::{ReplayOptions, replay};
    use crate::systems::{ParamMap, SystemKind, SystemVisitor, dispatch};

    /// Rates the same games and contest with a Rater and with a replay.
    struct Both;

    impl SystemVisitor for Both {
        type Output = (Vec<f64>, Vec<f64>);
        fn visit<S: RatingSystem>(self, system: &S) -> Self::Output {
            let names = ["a", "b", "c", "d"];
            let games = [
                ("a", "b", 1.0),
                ("c", "d", 0.5),
                ("b", "c", 0.0),
                ("d", "a", 1.0),
            ];
            let mut r = Rater::new(system);
            let mut hb = HistoryBuilder::new();
            for n in names {
                hb.player(n);
            }
            for (t, &(a, b, s)) in games.iter().enumerate() {
                r.rate_game(a, b, s).unwrap();
                let (x, y) = (hb.player(a), hb.player(b));
                hb.add_game(t as i64, 1.0, None, (&[x], &[y]), s, None)
                    .unwrap();
            }
            r.rate_contest(&[("c", 1), ("a", 2), ("b", 2), ("d", 4)])
                .unwrap();
            hb.begin_contest(10, 1.0, None, None);
            let ids = ["c", "a", "b", "d"].map(|n| hb.player(n));
            for (p, (lo, hi)) in ids.iter().zip([(0, 0), (1, 2), (1, 2), (3, 3)]) {
                hb.add_entry(&[*p], lo, hi, None);
            }
            hb.end_contest().unwrap();
            let h = hb.finish(SourceInfo::default());
            // A Rater knows no time: it rates as a replay that counts rounds.
            let opts = ReplayOptions {
                growth: crate::replay::Growth::Rounds,
                ..ReplayOptions::default()
            };
            let result = replay(&h, system, &opts).unwrap();
            let by_rater = names.map(|n| r.rating(n).unwrap().mean).to_vec();
            let by_replay = (0..4).map(|p| result.ratings[p].mean).collect();
            (by_rater, by_replay)
        }
    }

    /// For every system, a Rater gives exactly the ratings of `replay --period game --growth
    /// rounds`.
    #[test]
    fn a_rater_rates_as_the_replay_does() {
        for &kind in SystemKind::ALL {
            let (rater, replay) = dispatch(kind, &ParamMap::new(), Both).unwrap();
            if kind == SystemKind::Bt || kind == SystemKind::Whr {
                // Fitted after every call (the replay fits once at its end): the same
                // optimum, reached from other starting points.
                for (x, y) in rater.iter().zip(&replay) {
                    assert!(
                        (x - y).abs() < 1e-6,
                        "{}: {rater:?} vs {replay:?}",
                        kind.name()
                    );
                }
                continue;
            }
            assert_eq!(rater, replay, "{}", kind.name());
        }
    }

    /// A rater chosen by name rates as the typed one does.
    #[test]
    fn a_rater_chosen_by_name_is_the_typed_one() {
        use crate::systems::elo::{Elo, EloParams};
        let mut params = ParamMap::new();
        crate::systems::parse_param("k=24", &mut params).unwrap();
        let mut any = any_rater(SystemKind::Elo, &params).unwrap();
        let mut typed = Rater::new(
            Elo::new(EloParams {
                k: 24.0,
                ..EloParams::default()
            })
            .unwrap(),
        );
        for (a, b, s) in [("x", "y", 1.0), ("y", "z", 0.5), ("z", "x", 0.0)] {
            any.rate_game(a, b, s).unwrap();
            typed.rate_game(a, b, s).unwrap();
        }
        assert_eq!(any.system_name(), "elo");
        assert_eq!(any.rating("x"), typed.rating("x"));
        assert_eq!(
            any.win_probability("x", "z"),
            typed.win_probability("x", "z")
        );
        assert_eq!(any.leaderboard()[0].0, typed.leaderboard()[0].0);
        // By hand: x beats y (1512, 1488); y draws z, z moving by 24 (1/2 - E_z); then x beats
        // z: 1512 + 24 (1 - E_x) with z as it was before that game.
        let e_z = 1.0 / (1.0 + 10f64.powf((1488.0 - 1500.0) / 400.0));
        let z = 1500.0 + 24.0 * (0.5 - e_z);
        let e_x = 1.0 / (1.0 + 10f64.powf((z - 1512.0) / 400.0));
        let x = any.rating("x").unwrap().mean;
        assert!((x - (1512.0 + 24.0 * (1.0 - e_x))).abs() < 1e-9, "{x}");
        assert!(
            any_rater(SystemKind::Elo, &{
                let mut m = ParamMap::new();
                crate::systems::parse_param("tau=1", &mut m).unwrap();
                m
            })
            .is_err()
        );
    }

    #[test]
    fn bad_games_are_refused_and_change_nothing() {
        use crate::systems::elo::{Elo, EloParams};
        let mut r = Rater::new(Elo::new(EloParams::default()).unwrap());
        assert!(matches!(
            r.rate_game("a", "a", 1.0),
            Err(RateError::Contest(_))
        ));
        assert_eq!(r.rate_game("a", "b", 2.0), Err(RateError::Score(2.0)));
        assert!(r.rate_contest(&[("a", 1), ("a", 2)]).is_err());
        let mut k = Rater::new(
            Elo::new(EloParams {
                k: 1e12,
                ..EloParams::default()
            })
            .unwrap(),
        );
        assert!(matches!(
            k.rate_game("a", "b", 1.0),
            Err(RateError::Diverged { .. })
        ));
        assert_eq!(k.rating("a").unwrap().mean, 1500.0, "not applied");
        assert_eq!(k.win_probability("a", "b"), Some(0.5));
        assert_eq!(r.rate_game("", "b", 1.0), Err(RateError::EmptyName));
        assert_eq!(
            r.rate_contest(&[("c", 1), ("", 2)]),
            Err(RateError::EmptyName)
        );
    }

    /// Names are one player in either Unicode spelling, as the replay's history keeps them:
    /// "Zoë" composed and decomposed beating "bob" twice is two games of one player (Elo K 32:
    /// +16, then +15.26...), and the two spellings in one game are the same player.
    #[test]
    fn both_spellings_of_a_name_are_one_player() {
        use crate::systems::elo::{Elo, EloParams};
        let (nfc, nfd) = ("Zo\u{eb}", "Zoe\u{308}");
        let mut r = Rater::new(Elo::new(EloParams::default()).unwrap());
        r.rate_game(nfc, "bob", 1.0).unwrap();
        r.rate_game(nfd, "bob", 1.0).unwrap();
        assert_eq!(r.leaderboard().len(), 2);
        let zoe = r.rating(nfd).unwrap().mean;
        assert_eq!(r.rating(nfc).unwrap().mean, zoe);
        let second = 32.0 * (1.0 - 1.0 / (1.0 + 10f64.powf((1484.0 - 1516.0) / 400.0)));
        assert!((zoe - (1516.0 + second)).abs() < 1e-9, "{zoe}");
        assert!(matches!(
            r.rate_game(nfc, nfd, 1.0),
            Err(RateError::Contest(ContestError::DuplicatePlayer(_)))
        ));
        assert!(r.rate_contest(&[(nfc, 1), (nfd, 2)]).is_err());
    }
}
