//! The replay: groups contests into rounds, walks them in time order, scores each contest's
//! prediction from the pre-round ratings, then applies the system's update to the round.
//! This is the only place that orders rounds in time.

use crate::draws::DrawModel;
pub use crate::history::Seed;
use crate::history::{Contest, History, PlayerId, Round};
use crate::metrics::{Metrics, MetricsReport, Participant};
use crate::numeric::prefetch;
pub use crate::record::{PlayerRecord, RECENT};
pub use crate::state::{Carry, Snapshot, SnapshotAt};
use crate::status::StatusRule;
use crate::systems::base::prefetch_value;
pub use crate::systems::{DIVERGENCE_BOUND, first_runaway, runaway};
use crate::systems::{Elapsed, Rating, RatingSystem};
use serde::Serialize;
use std::time::{Duration, Instant};

/// How contests are grouped into rounds (rated together from the same pre-round ratings).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "clap", derive(clap::ValueEnum))]
#[serde(rename_all = "kebab-case")]
pub enum Period {
    /// Every contest is its own round.
    #[default]
    Game,
    /// The games of one series (same `series` id) form a round, placed at its first game.
    Series,
    /// The games of one event form a round, placed at its first game, as a federation rates
    /// a tournament: a PGN's `Event` tag with its `EventDate` (else the first game's date), a
    /// table's `event` column.
    Event,
    /// A UTC calendar day.
    Day,
    /// An ISO week (Monday to Sunday, UTC).
    Week,
    /// A UTC calendar month.
    Month,
}

/// What a drawn game does (`--draws`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "clap", derive(clap::ValueEnum))]
#[serde(rename_all = "kebab-case")]
pub enum Draws {
    /// It is predicted, scored and rated.
    #[default]
    Update,
    /// It is predicted and scored, and counted in the records, but no rating moves: the
    /// arena evaluations of arXiv 2510.02306 found Elo, Glicko-2, online Bradley-Terry and
    /// TrueSkill 1-3 % more accurate so.
    Ignore,
}

impl Draws {
    /// The contests of `round` the system rates: under [`Draws::Ignore`] the round without
    /// its drawn two-entry games (their indices held in `kept`), else the round itself.
    pub fn rated<'a>(self, round: Round<'a>, kept: &'a mut Vec<u32>) -> Round<'a> {
        let drawn = |c: &Contest<'_>| c.len() == 2 && c.all_tied();
        if self == Draws::Ignore && round.contests().any(|c| drawn(&c)) {
            round.filtered(|c| !drawn(c), kept)
        } else {
            round
        }
    }
}

/// How a player's uncertainty grows between his rounds (`--growth`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "clap", derive(clap::ValueEnum))]
#[serde(rename_all = "kebab-case")]
pub enum Growth {
    /// With the time that passes: a round is one rating period for its players, and their
    /// time away beyond one period adds one more for each period of it, fractionally (with a
    /// game or a series a round: the system's rating periods of real time since the player's
    /// last contest; with `--period day|week|month`: the calendar periods begun). A system
    /// whose own growth comes with each round (TrueSkill, Elo-MMR) adds it again for every
    /// period beyond the first.
    #[default]
    Time,
    /// As `time`, but a round adds only the fraction of a period passed since the player's
    /// last contest (a second game an hour after the first adds almost nothing): Lichess's
    /// way, for Glicko and Glicko-2 (the systems whose own growth comes with each round
    /// keep it per round, as under `time`).
    Fractional,
    /// By counting rounds: every round is one period for its players (calendar periods with
    /// `--period day|week|month`), whatever the time between them; the growth of the earlier
    /// versions.
    Rounds,
}

/// Rounds in replay order: contest indices, and where each round starts among them.
#[derive(Clone, Debug, Default)]
pub struct Rounds {
    /// Contest indices in replay order.
    pub order: Vec<u32>,
    /// Start of each round in `order`, plus `order.len()` at the end.
    pub bounds: Vec<usize>,
}

impl Rounds {
    /// Number of rounds.
    pub fn len(&self) -> usize {
        self.bounds.len().saturating_sub(1)
    }
    /// True when there is no round.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
    /// The contests of round `r`.
    pub fn round(&self, r: usize) -> &[u32] {
        &self.order[self.bounds[r]..self.bounds[r + 1]]
    }

    /// Keeps the rounds that lie wholly within the first `n` contests (in replay order): a
    /// round that straddles the cut is left out, so that nothing after it is rated.
    pub fn first_contests(&self, n: usize) -> Rounds {
        let kept = self.bounds.iter().skip(1).take_while(|&&b| b <= n).count();
        Rounds {
            order: self.order[..self.bounds[kept]].to_vec(),
            bounds: self.bounds[..=kept].to_vec(),
        }
    }

    /// Keeps only the contests (indices in the history) `keep` accepts, dropping rounds left
    /// empty.
    pub fn filtered(&self, keep: impl Fn(u32) -> bool) -> Rounds {
        let mut kept = Rounds::default();
        for r in 0..self.len() {
            let start = kept.order.len();
            kept.order
                .extend(self.round(r).iter().copied().filter(|&c| keep(c)));
            if kept.order.len() > start {
                kept.bounds.push(start);
            }
        }
        kept.bounds.push(kept.order.len());
        kept
    }
}

impl Period {
    /// The number of the calendar period holding time `t` (consecutive periods have
    /// consecutive numbers); `None` unless the periods are calendar periods.
    pub fn calendar_key(self, t: i64) -> Option<i64> {
        use crate::time::{day_number, month_number, week_number};
        match self {
            Period::Day => Some(day_number(t)),
            Period::Week => Some(week_number(t)),
            Period::Month => Some(month_number(t)),
            Period::Game | Period::Series | Period::Event => None,
        }
    }
}

/// Groups the contests of a (time-sorted) history into rounds.
pub fn group_rounds(history: &History, period: Period) -> Rounds {
    let mut rounds = Rounds::default();
    match period {
        Period::Game => {
            rounds.order = (history.first_index() as u32..history.end_index() as u32).collect();
            rounds.bounds = (0..history.len()).collect();
        }
        Period::Series | Period::Event => {
            // A round per series (event) id, or per contest without one, in order of first
            // game.
            let mut round_of_id: Vec<u32> = Vec::new();
            let mut members: Vec<Vec<u32>> = Vec::new();
            for c in history.contests() {
                let id = if period == Period::Event {
                    c.label_id()
                } else {
                    c.series()
                };
                let fresh = members.len() as u32;
                let r = id.map_or(fresh, |s| {
                    let s = s as usize;
                    if round_of_id.len() <= s {
                        round_of_id.resize(s + 1, u32::MAX);
                    }
                    if round_of_id[s] == u32::MAX {
                        round_of_id[s] = fresh;
                    }
                    round_of_id[s]
                });
                if r == fresh {
                    members.push(Vec::new());
                }
                members[r as usize].push(c.index() as u32);
            }
            for m in members {
                rounds.bounds.push(rounds.order.len());
                rounds.order.extend(m);
            }
        }
        Period::Day | Period::Week | Period::Month => {
            rounds.order = (history.first_index() as u32..history.end_index() as u32).collect();
            let mut last = None;
            for (i, c) in history.contests().enumerate() {
                let key = period.calendar_key(c.time());
                if key != last {
                    rounds.bounds.push(i);
                    last = key;
                }
            }
        }
    }
    rounds.bounds.push(rounds.order.len());
    rounds
}

/// How to replay.
#[derive(Clone, Debug)]
pub struct ReplayOptions {
    /// Round grouping.
    pub period: Period,
    /// Fraction of the contests (from the start, integer division) that update ratings but
    /// are not scored.
    pub warmup: f64,
    /// Earlier contests a player needs to count as experienced.
    pub experienced_after: u32,
    /// Keep one row per player per contest.
    pub keep_history: bool,
    /// Time decay: variance added per day between a player's rounds (and up to the end).
    pub decay_per_day: f64,
    /// How uncertainty grows between a player's rounds.
    pub growth: Growth,
    /// The length of a rating period in days under [`Growth::Time`] with a game or series a
    /// round, in place of the system's own ([`RatingSystem::rating_period_days`]).
    pub rating_period_days: Option<f64>,
    /// The history's contests are in the order of its input, not sorted by time (`--order
    /// input`): a state resumed from takes a contest older than its last as new.
    pub input_order: bool,
    /// Replay only the contests before this time (Unix seconds, exclusive); the leaderboard's
    /// uncertainties are decayed up to it.
    pub as_of: Option<i64>,
    /// Players who start with a rating from elsewhere.
    pub seeds: Vec<Seed>,
    /// Keep each scored contest's metrics and each scored game's prediction (for charts).
    pub series: bool,
    /// Replay only the rounds that lie wholly within the first this many contests (`tune`'s
    /// tuning slice: nothing after the cut is rated or scored).
    pub max_contests: Option<usize>,
    /// Contests (by index in the history) left out of the replay: a resumed replay's
    /// contests that were applied before.
    pub skip: Option<std::sync::Arc<Vec<bool>>>,
    /// Leave out every contest in which all entries share the first place (a drawn game, a
    /// standings of ties only), as the Elo-MMR reference implementation does: neither rated
    /// nor scored, nor counted in the warm-up's share.
    pub skip_all_tied: bool,
    /// What a drawn two-entry game does to the ratings.
    pub draws: Draws,
    /// Seasons, and the regression toward the mean between them ([`crate::seasons`]).
    pub seasons: Option<crate::seasons::Seasons>,
    /// The name of the input's season column, if seasons come from one (a state keeps it: a
    /// run with another column cannot resume it).
    pub season_column: Option<String>,
    /// Keep every scored contest's parts of the metrics ([`Series::scores`]).
    pub keep_scores: bool,
    /// Ask the system for its Hessian's standard deviations at the end
    /// ([`crate::systems::WholeHistory::hessian_sds`]), of each rating less the mean rating of
    /// the players of these names (empty, or none of them met: less the mean of every
    /// player's).
    pub hessian_reference: Option<Vec<String>>,
}

impl Default for ReplayOptions {
    fn default() -> Self {
        Self {
            period: Period::Game,
            warmup: 0.1,
            experienced_after: 5,
            keep_history: true,
            decay_per_day: 0.0,
            growth: Growth::Time,
            rating_period_days: None,
            input_order: false,
            as_of: None,
            seeds: Vec::new(),
            series: false,
            max_contests: None,
            skip: None,
            skip_all_tied: false,
            draws: Draws::Update,
            seasons: None,
            season_column: None,
            keep_scores: false,
            hessian_reference: None,
        }
    }
}

impl ReplayOptions {
    /// The draw policy and the seasons as a state keeps them (JSON; empty for the defaults,
    /// draws rated and no seasons, as a state before version 8 made them).
    pub fn rules(&self) -> String {
        self.rules_with(self.season_column.as_deref())
    }

    /// [`ReplayOptions::rules`] with the season column `column` (none: as a state before
    /// version 9 kept them, without it).
    pub fn rules_with(&self, column: Option<&str>) -> String {
        if self.draws == Draws::Update && self.seasons.is_none() {
            return String::new();
        }
        let mut rules = serde_json::json!({"draws": self.draws, "seasons": self.seasons});
        if let Some(c) = column {
            rules["season_column"] = c.into();
        }
        rules.to_string()
    }

    /// The length in days of the rating periods measured in real time for `system`: under
    /// [`Growth::Time`] with a game or a series a round, for a system whose uncertainty grows
    /// with time; `None` when periods are counted.
    pub fn measured_period<S: RatingSystem>(&self, system: &S) -> Option<f64> {
        if self.growth == Growth::Rounds || self.period.calendar_key(0).is_some() {
            return None;
        }
        system
            .rating_period_days()
            .map(|d| self.rating_period_days.unwrap_or(d))
    }

    /// The time that passes for a player last seen in calendar period `last_key` at
    /// `last_time`, arriving at time `time` (its calendar period `key`, if the periods are
    /// calendar periods) for a round (`round`, else for the end): the rating periods
    /// (measured in periods of `measured` days, at least one for a round under
    /// [`Growth::Time`]; else the calendar periods begun; else 1 for a round and 0 for the end)
    /// and the decay's variance.
    #[inline]
    pub(crate) fn time_passed(
        &self,
        (last_key, last_time): (i64, i64),
        (key, time): (Option<i64>, i64),
        round: bool,
        measured: Option<f64>,
    ) -> Elapsed {
        let days = (time - last_time).max(0) as f64 / 86_400.0;
        let periods = match measured {
            Some(length) if round && self.growth == Growth::Time => (days / length).max(1.0),
            Some(length) => days / length,
            // Calendar periods begun since the last.
            None => key.map_or(f64::from(u32::from(round)), |k| {
                k.saturating_sub(last_key).clamp(0, u32::MAX.into()) as f64
            }),
        };
        Elapsed {
            periods,
            variance: self.decay_per_day * days,
            days,
            idle_growth: self.growth != Growth::Rounds,
            fractional: measured.is_some() && self.growth == Growth::Fractional,
        }
    }

    /// The calendar period of the replay's end at `end` (`as_of` is an exclusive cutoff: its
    /// periods are those of the last instant it covers; `--as-of 2024-01-01` ends within that
    /// day, not at the start of the next).
    pub(crate) fn end_key(&self, end: i64) -> Option<i64> {
        let last_instant = if self.as_of.is_some() { end - 1 } else { end };
        self.period.calendar_key(last_instant)
    }

    /// Time passes up to the replay's end at `end` for every player who played (`last`: the
    /// calendar period and the time of his last round; `None` if he never played), as before
    /// the leaderboard. `check` sees each state changed; its error stops the passing.
    pub(crate) fn pass_to_end<S: RatingSystem, E>(
        &self,
        system: &S,
        states: &mut [S::Player],
        end: i64,
        last: impl Fn(usize) -> Option<(i64, i64)>,
        mut check: impl FnMut(usize, &S::Player) -> Result<(), E>,
    ) -> Result<(), E> {
        let (end_key, measured) = (self.end_key(end), self.measured_period(system));
        for (p, state) in states.iter_mut().enumerate() {
            let Some(last) = last(p) else {
                continue;
            };
            let time = self.time_passed(last, (end_key, end), false, measured);
            if time.periods > 0.0 || time.variance > 0.0 {
                system.elapse(state, time);
                check(p, state)?;
            }
        }
        Ok(())
    }
}

/// One row of the rating history: a player in a contest.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct HistoryRow {
    /// Round index in replay order.
    pub round: u32,
    /// Contest index in replay order.
    pub contest: u32,
    /// The contest's index in the history.
    pub contest_id: u32,
    /// The contest's time (Unix seconds).
    pub time: i64,
    /// The player.
    pub player: PlayerId,
    /// Rating before the round.
    pub before: f64,
    /// Rating after the round.
    pub after: f64,
    /// Uncertainty after the round (NaN when the system has none).
    pub uncertainty: f64,
    /// The round's performance (NaN when the system has none).
    pub performance: f64,
    /// The season's number ([`crate::seasons::SeasonMark::number`]; 0 without seasons).
    pub season: u32,
}

/// What happened contest by contest (kept with [`ReplayOptions::series`]).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Series {
    /// Per scored contest, in replay order: time, pair inversion (%), rank deviation (%) and
    /// the number of scored participants (all participants with a prior).
    pub contest_metrics: Vec<(i64, f64, f64, u32)>,
    /// Per scored two-entry contest, as it was predicted (what predictions.csv and the
    /// report's calibration charts show): the contest (its index in the
    /// history), the first entry's expected score, its probabilities of a win, a draw and a
    /// loss, and its result (1, 1/2, 0).
    pub games: Vec<(u32, f64, [f64; 3], f64)>,
    /// The contest (index in the history) of each entry of `contest_metrics`.
    pub contest_ids: Vec<u32>,
    /// Every scored contest's parts of the metrics, in replay order (kept with
    /// [`ReplayOptions::keep_scores`], for the metrics' bootstrap intervals).
    pub scores: Vec<crate::metrics::ScoredContest>,
}

/// A system's ratings ran away: a rating or uncertainty not finite or beyond
/// [`DIVERGENCE_BOUND`], found at the round where it happened.
#[derive(Clone, Debug, PartialEq)]
pub struct Divergence {
    /// The system.
    pub system: &'static str,
    /// The round (0-based, counted over the whole history when resumed).
    pub round: u64,
    /// The round's first contest: its label or number, and its time.
    pub contest: String,
    /// The player whose value ran away (the first found).
    pub player: String,
    /// What ran away and its value (`rating 4.93e15`).
    pub value: String,
    /// Why the system refused the round, when it did not run away but cannot rate it
    /// ([`RatingSystem::refuses`]); `player` and `value` are then empty.
    pub refused: Option<String>,
}

impl std::fmt::Display for Divergence {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        if let Some(why) = &self.refused {
            return write!(
                f,
                "{} cannot rate round {} (contest {}): {why}",
                self.system, self.round, self.contest
            );
        }
        write!(
            f,
            "{} diverged in round {} (contest {}): `{}`'s {} is beyond ±{:e}, where no real \
             rating lies; the system cannot rate this history with these parameters",
            self.system, self.round, self.contest, self.player, self.value, DIVERGENCE_BOUND
        )
    }
}

impl std::error::Error for Divergence {}

/// The result of a replay.
#[derive(Clone, Debug)]
pub struct ReplayResult {
    /// The system's name.
    pub system: &'static str,
    /// Its parameters.
    pub params: serde_json::Value,
    /// How it computed its updates, where it has a choice ([`RatingSystem::method`]).
    pub method: Option<String>,
    /// What the system fitted beside the ratings ([`crate::systems::WholeHistory::fitted`]).
    pub fitted: Option<serde_json::Value>,
    /// With [`ReplayOptions::hessian_reference`], where the system has them: every player's
    /// standard deviation from the fit's Hessian ([`crate::systems::WholeHistory::hessian_sds`]).
    pub hessian_sds: Option<Vec<f64>>,
    /// Final rating of every player (by id).
    pub ratings: Vec<Rating>,
    /// Record of every player (by id).
    pub records: Vec<PlayerRecord>,
    /// The rating history (empty unless kept).
    pub history: Vec<HistoryRow>,
    /// Accuracy.
    pub metrics: MetricsReport,
    /// Number of rounds rated by this replay.
    pub rounds: usize,
    /// Rounds rated before it (by the runs of the state resumed from).
    pub rounds_before: usize,
    /// Contests not scored at the start.
    pub warmup_contests: usize,
    /// Time spent replaying (not reading or writing).
    pub elapsed: Duration,
    /// Contest by contest (empty unless asked for).
    pub series: Series,
    /// The draw parameter `nu` in effect at the end and the games it was fitted on, when
    /// scored predictions were split into three outcomes with it ([`crate::draws`]; not for
    /// a system with a draw model of its own).
    pub draw_model: Option<(f64, f64)>,
    /// What the ratings' uncertainty is (a label and its meaning), where the system has one.
    pub uncertainty: Option<(&'static str, &'static str)>,
    /// The system family's rule of who its leaderboard ranks ([`StatusRule::of`]).
    pub status_rule: StatusRule,
    /// The length of a rating period in days where the uncertainty grew by periods of
    /// measured time ([`ReplayOptions::measured_period`]).
    pub rating_period_days: Option<f64>,
}

impl ReplayResult {
    /// Rounds of the whole history: those of the runs resumed from and this replay's.
    pub fn rounds_total(&self) -> usize {
        self.rounds_before + self.rounds
    }
}

/// Receives what a replay produces as it goes.
pub trait Observer {
    /// Rows of the rating history, in replay order, a batch of whole rounds at a time.
    fn rows(&mut self, _rows: &[HistoryRow]) {}
    /// Contests and rounds done so far (every 32,768 placings or so, and at the end).
    fn progress(&mut self, _contests_done: u64, _rounds_done: u64) {}
    /// A season's number and name (its column's value, else its number), before its rows:
    /// with seasons, at the first round of a replay (the season in progress, for a resumed
    /// one), where each new one begins, and again with its name when the first contests of
    /// a season had none.
    fn season(&mut self, _number: u32, _name: &str) {}
}

/// Keeps every history row in memory.
impl Observer for Vec<HistoryRow> {
    fn rows(&mut self, rows: &[HistoryRow]) {
        self.extend_from_slice(rows);
    }
}

/// Rows are handed to the observer in batches of about this many.
const ROW_BATCH: usize = 1 << 16;

/// Players' names by id, kept in one buffer: a replay copies every name of its input once
/// (a million `String`s cost 0.28 s to copy and free; this is two allocations).
#[derive(Clone, Debug, Default)]
pub struct NameList {
    text: String,
    /// The end of each name in `text`.
    ends: Vec<usize>,
}

impl NameList {
    /// Names held.
    pub fn len(&self) -> usize {
        self.ends.len()
    }

    /// True when no name is held.
    pub fn is_empty(&self) -> bool {
        self.ends.is_empty()
    }

    /// Appends names (ids `len()`, `len() + 1`, ...).
    pub fn extend<'s>(&mut self, names: impl IntoIterator<Item = &'s str>) {
        for n in names {
            self.text.push_str(n);
            self.ends.push(self.text.len());
        }
    }
}

impl std::ops::Index<usize> for NameList {
    type Output = str;
    fn index(&self, i: usize) -> &str {
        let start = if i == 0 { 0 } else { self.ends[i - 1] };
        &self.text[start..self.ends[i]]
    }
}

/// A round of one contest at least this large is scored while the system rates it.
const OVERLAP_FROM: usize = 256;

/// Contests (and rounds) of this many entries (players) or more are rated as one piece of
/// rayon's work, and have their predictions gathered on the pool's threads.
const PARALLEL_FROM: usize = 4_096;

/// How many players ahead the time-passed step asks for the records it will read.
const ELAPSE_AHEAD: usize = 8;

/// A contest as the replay's messages name it: its label (else its number) and its time.
fn contest_named(c: &Contest) -> String {
    let name = c
        .label()
        .map_or_else(|| format!("#{}", c.index() + 1), |l| format!("`{l}`"));
    format!("{name} of {}", crate::time::format_time(c.time()))
}

/// Why a system (visited: [`crate::systems::dispatch`]) cannot rate the history as the
/// options replay it, if it cannot: its first contest the system refuses
/// ([`crate::systems::refusal`]: a standings too large for a system that takes it as its
/// pairs, partial play, teams where only individuals are rated), named, with the reason and
/// what to use instead. Checked before a replay, so that such a system is refused before it
/// rates a round. (Contests after the cutoff, applied before or past `max_contests` are not
/// rated, and not checked.) A system without a regression between seasons
/// ([`RatingSystem::shift`]) is refused `--season-regress` here too.
pub struct FirstRefusal<'a>(pub &'a History, pub &'a ReplayOptions);

impl crate::systems::SystemVisitor for FirstRefusal<'_> {
    type Output = Option<String>;
    fn visit<S: RatingSystem>(self, system: &S) -> Option<String> {
        let FirstRefusal(history, opts) = self;
        if let Some(s) = &opts.seasons
            && s.regress > 0.0
            && !system.shift(&mut system.new_player(), 0.0)
        {
            return Some(format!(
                "{} has no regression between seasons (--season-regress): its state is more \
                 than a rating to move; elo, elo-gaussian, glicko, glicko2, trueskill and \
                 yuksel have one",
                system.name()
            ));
        }
        let skipped = |i: usize| opts.skip.as_ref().is_some_and(|s| s.get(i) == Some(&true));
        history
            .contests()
            .take(opts.max_contests.unwrap_or(usize::MAX))
            .filter(|c| opts.as_of.is_none_or(|t| c.time() < t) && !skipped(c.index()))
            .find_map(|c| {
                let why = crate::systems::refusal(system, &c)?;
                let named = contest_named(&c);
                Some(format!(
                    "{} cannot rate contest {named}: {why}",
                    system.name()
                ))
            })
    }
}

/// Replays a history through a system; the rating history is in the result when
/// `opts.keep_history` is set.
pub fn replay<S: RatingSystem>(
    history: &History,
    system: &S,
    opts: &ReplayOptions,
) -> Result<ReplayResult, Divergence> {
    let mut rows = Vec::with_capacity(if opts.keep_history {
        history.placings()
    } else {
        0
    });
    let mut result = replay_observed(history, system, opts, &mut rows)?;
    result.history = rows;
    Ok(result)
}

/// Replays, streaming history rows (when `opts.keep_history`) and progress to `observer`;
/// the result's `history` stays empty.
pub fn replay_observed<S: RatingSystem>(
    history: &History,
    system: &S,
    opts: &ReplayOptions,
    observer: &mut dyn Observer,
) -> Result<ReplayResult, Divergence> {
    Ok(replay_from(history, system, opts, observer, None, SnapshotAt::Never)?.0)
}

/// A replay's result and the snapshot taken for `--save-state`, if any.
pub type ResultAndSnapshot<P> = (ReplayResult, Option<Snapshot<P>>);

/// Replays, starting from `from` (a resumed replay: the players of `history` with the ids of
/// `from.states` come first) or from scratch, and takes a snapshot for `--save-state` where
/// asked: the whole history as one block of a [`Replayer`].
pub fn replay_from<S: RatingSystem>(
    history: &History,
    system: &S,
    opts: &ReplayOptions,
    observer: &mut dyn Observer,
    from: Option<Carry<S::Player>>,
    snapshot_at: SnapshotAt,
) -> Result<ResultAndSnapshot<S::Player>, Divergence> {
    let contests = replayed_contests(history, opts);
    let mut replayer = Replayer::new(system, opts, from, snapshot_at, contests);
    replayer.feed(history, observer)?;
    replayer.finish(observer)
}

/// How many contests of `history` a replay with `opts` rates (after `as_of`, `max_contests`
/// and the contests to skip): what the warm-up is a share of.
pub fn replayed_contests(history: &History, opts: &ReplayOptions) -> usize {
    select_rounds(history, opts).order.len()
}

/// A block of the history handed to a [`Replayer`]: borrowed (a history held whole), owned
/// (read for this replay alone) or shared (one block read once and rated by several systems).
pub enum Block<'a> {
    /// A history that outlives the replay.
    Borrowed(&'a History),
    /// A block the replay keeps as long as it needs it, alone or shared with other replays.
    Shared(std::sync::Arc<History>),
}

impl std::ops::Deref for Block<'_> {
    type Target = History;
    fn deref(&self) -> &History {
        match self {
            Block::Borrowed(h) => h,
            Block::Shared(h) => h,
        }
    }
}

impl<'a> From<&'a History> for Block<'a> {
    fn from(h: &'a History) -> Self {
        Block::Borrowed(h)
    }
}

impl From<History> for Block<'_> {
    fn from(h: History) -> Self {
        Block::Shared(std::sync::Arc::new(h))
    }
}

impl From<std::sync::Arc<History>> for Block<'_> {
    fn from(h: std::sync::Arc<History>) -> Self {
        Block::Shared(h)
    }
}

/// A replay fed one block of the history at a time, for inputs too large to hold: the
/// streaming engine's core. Each block is a [`History`] of consecutive contests (in time
/// order, numbered as in the whole history, its players those of the earlier blocks and its
/// own new ones) that ends where a round ends: a round never spans two blocks. The result is
/// the same as one [`replay_from`] of the whole history, row for row and bit for bit.
///
/// The steps of a round: time passes for its returning players ([`Replayer::elapse`]), every
/// contest is scored from the pre-round ratings ([`Replayer::score`]), the system rates the
/// round, the records and the history rows follow, and a runaway stops the replay
/// ([`Replayer::score_and_update`]).
pub struct Replayer<'a, S: RatingSystem> {
    system: &'a S,
    opts: &'a ReplayOptions,
    /// The length of a rating period in days when periods are measured in time
    /// ([`ReplayOptions::measured_period`]).
    measured: Option<f64>,
    /// The players' states, records, priors and calendar periods, the metrics, and the
    /// counts of the runs resumed from (rounds, contests, warm-up) and of the history rows
    /// handed over; the draw model, the places and the base rate's sums (`None` here) are
    /// kept in `draws`, in the records and in the metrics.
    carry: Carry<S::Player>,
    /// Round of each player's last appearance (+1), to count rounds once per player.
    last_round: Vec<u32>,
    /// Seeded players not yet met, the lowest id last.
    seeds: Vec<Seed>,
    /// Every player's name (for the message of one who runs away).
    names: NameList,
    /// The draw parameter, fitted on the games so far.
    draws: DrawModel,
    series: Series,
    rows: Vec<HistoryRow>,
    buffers: (Vec<Participant>, Vec<Participant>),
    /// The players of the current round.
    participants: Vec<PlayerId>,
    /// Rounds and contests of this replay rated so far.
    rounds: usize,
    seen_contests: usize,
    /// Placings since progress was last reported: a million games and a thousand huge
    /// contests both report often enough, and cheaply.
    placings_since_report: usize,
    /// Contests left under `max_contests` (whole rounds only), and whether the cut was met.
    budget: Option<usize>,
    /// The time of the latest contest rated.
    end: Option<i64>,
    /// The season last told to the observer (0: none yet), and whether by its name.
    season_told: (u32, bool),
    snapshot_at: SnapshotAt,
    /// Nothing reads the ratings before the end (no contest scored, no history row, no state
    /// saved: `--warmup 1 --history-format none`), and the system fits the whole history at
    /// the end: each round only adds to its counts ([`WholeHistory::accumulate`]).
    counts_only: bool,
    snapshot: Option<Snapshot<S::Player>>,
    /// With [`SnapshotAt::BeforeLastRound`]: the latest block with rounds, held until the
    /// next one shows whether its last round is the replay's last.
    held: Option<(Block<'a>, Rounds)>,
    /// Contests applied, in replay order, and the time and label of the last (kept only for
    /// a snapshot).
    applied: Vec<u32>,
    last_applied: Option<(i64, Option<String>)>,
    start: Instant,
}

impl<'a, S: RatingSystem> Replayer<'a, S> {
    /// A replay of `contests` contests in all (after `as_of` and the cuts: see
    /// [`replayed_contests`]; the warm-up is their first share), from `from` (the players as
    /// a state left them) or from scratch.
    pub fn new(
        system: &'a S,
        opts: &'a ReplayOptions,
        from: Option<Carry<S::Player>>,
        snapshot_at: SnapshotAt,
        contests: usize,
    ) -> Self {
        let mut c = from.unwrap_or_else(|| Carry {
            states: Vec::new(),
            records: Vec::new(),
            known: Vec::new(),
            last_key: Vec::new(),
            metrics: Metrics::new(),
            rounds_done: 0,
            contests_done: 0,
            warmup_contests: crate::numeric::first_share(contests, opts.warmup) as u64,
            history_rows: 0,
            outcomes: None,
            places: None,
            base: None,
            season: None,
            regression: None,
        });
        let (draws, three) = c.outcomes.take().unwrap_or_default();
        for (r, p) in c
            .records
            .iter_mut()
            .zip(c.places.take().into_iter().flatten())
        {
            r.places = p;
        }
        c.metrics.three = three;
        c.metrics.base = c.base.take().unwrap_or_default();
        if c.regression.is_none() {
            let records = &c.records;
            c.regression = (opts.seasons)
                .and_then(|s| s.regression(system, &c.states, |p| records[p].contests > 0));
        }
        let mut replayer = Self {
            system,
            opts,
            measured: opts.measured_period(system),
            last_round: vec![0; c.states.len()],
            carry: c,
            seeds: Vec::new(),
            names: NameList::default(),
            draws,
            series: Series::default(),
            rows: Vec::with_capacity(if opts.keep_history {
                ROW_BATCH + 1024
            } else {
                0
            }),
            buffers: (Vec::new(), Vec::new()),
            participants: Vec::new(),
            rounds: 0,
            seen_contests: 0,
            placings_since_report: 0,
            budget: opts.max_contests,
            end: None,
            season_told: (0, false),
            snapshot_at,
            counts_only: opts.warmup >= 1.0
                && !opts.keep_history
                && !opts.series
                && snapshot_at == SnapshotAt::Never
                && system.whole_history().is_some(),
            snapshot: None,
            held: None,
            applied: Vec::new(),
            last_applied: None,
            start: Instant::now(),
        };
        replayer.add_seeds(opts.seeds.iter().copied());
        replayer
    }

    /// Seeds for players not met yet (a streamed replay finds them as the blocks bring their
    /// names); a seed for a player already met, or carried from a state, is ignored, as
    /// [`ReplayOptions::seeds`]' are.
    pub fn add_seeds(&mut self, seeds: impl IntoIterator<Item = Seed>) {
        let met = self.carry.states.len();
        self.seeds
            .extend(seeds.into_iter().filter(|s| s.player as usize >= met));
        self.seeds.sort_by_key(|s| std::cmp::Reverse(s.player));
    }

    /// Every player's name so far, by id (those of the blocks fed, and of the state resumed
    /// from).
    pub fn names(&self) -> &NameList {
        &self.names
    }

    /// Rates the next block of the history (see the type's documentation).
    pub fn feed(
        &mut self,
        block: impl Into<Block<'a>>,
        observer: &mut dyn Observer,
    ) -> Result<(), Divergence> {
        self.feed_skipping(block, &[], observer)
    }

    /// [`Replayer::feed`], without the contests of the block marked in `skip` (indexed from
    /// the block's first contest; a contest past its end is kept): those a resumed state
    /// applied before, found as the blocks come.
    pub fn feed_skipping(
        &mut self,
        block: impl Into<Block<'a>>,
        skip: &[bool],
        observer: &mut dyn Observer,
    ) -> Result<(), Divergence> {
        let block = block.into();
        // Every player of the input has a state and a record, rated or not.
        self.grow(block.player_count());
        if block.player_count() > self.names.len() {
            let from = self.names.len() - block.first_named();
            self.names
                .extend(block.names()[from..].iter().map(String::as_str));
        }
        let mut rounds = rounds_within(&block, self.opts, &mut self.budget);
        if skip.contains(&true) {
            let first = block.first_index();
            rounds = rounds.filtered(|c| !skip.get(c as usize - first).is_some_and(|&s| s));
        }
        if rounds.is_empty() {
            return Ok(());
        }
        if self.snapshot_at == SnapshotAt::BeforeLastRound {
            match self.held.replace((block, rounds)) {
                Some((b, r)) => self.rate(b, &r, observer, false),
                None => Ok(()),
            }
        } else {
            self.rate(block, &rounds, observer, false)
        }
    }

    /// Makes room for the players up to `n` (those new to this replay, all of them without a
    /// carry), seeded ones with their seeds.
    fn grow(&mut self, n: usize) {
        if n <= self.carry.states.len() {
            return;
        }
        let system = self.system;
        self.carry.states.resize(n, system.new_player());
        self.carry.records.resize(n, PlayerRecord::default());
        self.carry.known.resize(n, false);
        self.carry.last_key.resize(n, 0);
        self.last_round.resize(n, 0);
        while let Some(seed) = self.seeds.last().filter(|s| (s.player as usize) < n) {
            self.carry.states[seed.player as usize] =
                system.seeded(seed.rating, seed.uncertainty, seed.volatility);
            self.carry.known[seed.player as usize] = true;
            self.seeds.pop();
        }
    }

    /// Rates the rounds of one block; with `last`, the snapshot is taken before its last.
    fn rate(
        &mut self,
        block: Block<'a>,
        rounds: &Rounds,
        observer: &mut dyn Observer,
        last: bool,
    ) -> Result<(), Divergence> {
        let keep_applied = self.snapshot_at != SnapshotAt::Never;
        // The time and label of round `k`'s last contest: the watermark of a snapshot after it
        // (taken once a block, not once a round).
        let mark = |k: usize| {
            let c = block.contest(*rounds.round(k).last()? as usize);
            Some((c.time(), c.label().map(str::to_string)))
        };
        for k in 0..rounds.len() {
            let round = Round::new(&block, rounds.round(k));
            if last && k + 1 == rounds.len() {
                let mut snap = self.snapshot_now(self.applied.clone());
                snap.open_from = round.contests().map(|c| c.time()).min();
                snap.last_applied = match k.checked_sub(1) {
                    Some(before) => mark(before),
                    None => self.last_applied.clone(),
                };
                self.snapshot = Some(snap);
            }
            if let Some(seasons) = &self.opts.seasons {
                self.season_turn(seasons, &round, observer);
            }
            let first_row = self.rows.len();
            let mut step = || -> Result<(), Divergence> {
                self.elapse(&round);
                self.score_and_update(round, first_row)?;
                self.rated();
                Ok(())
            };
            if round.contests().map(|c| c.len()).sum::<usize>() >= PARALLEL_FROM {
                // A large round handed to the pool as one piece of work: its many parallel
                // steps are then started from a pool thread (work the other takes up at once)
                // instead of each being handed over from outside and waited for (two thread
                // wake-ups a step: a tenth of the replay's time on Codeforces).
                rayon::scope(|_| step())?;
            } else {
                step()?;
            }
            self.report(observer, &round);
            // (`None` is below every time.)
            self.end = self.end.max(round.contests().map(|c| c.time()).max());
            if keep_applied {
                self.applied.extend_from_slice(rounds.round(k));
            }
            self.rounds += 1;
        }
        if keep_applied && let Some(m) = rounds.len().checked_sub(1).and_then(mark) {
            self.last_applied = Some(m);
        }
        Ok(())
    }

    /// Ends the replay: the rows not yet handed over, the snapshot where asked, the time
    /// passed since each player's last round up to the end; the result.
    pub fn finish(
        mut self,
        observer: &mut dyn Observer,
    ) -> Result<ResultAndSnapshot<S::Player>, Divergence> {
        if let Some((b, r)) = self.held.take() {
            self.rate(b, &r, observer, true)?;
        }
        if !self.rows.is_empty() {
            self.flush(observer);
        }
        observer.progress(self.seen_contests as u64, self.rounds as u64);
        let at = self.snapshot_at;
        if at == SnapshotAt::End || (at != SnapshotAt::Never && self.snapshot.is_none()) {
            let applied = std::mem::take(&mut self.applied);
            let mut snap = self.snapshot_now(applied);
            snap.last_applied = self.last_applied.take();
            self.snapshot = Some(snap);
        }
        // (The snapshot keeps the regressions owed: a resumed run pays them as this one
        // would have.)
        self.pay_all();
        let system = self.system;
        if let Some(whole) = system.whole_history() {
            whole.settle(&mut self.carry.states);
        }
        if let Some(end) = self.opts.as_of.or(self.end) {
            let (records, last_key) = (&self.carry.records, &self.carry.last_key);
            let last =
                |p: usize| (records[p].contests > 0).then(|| (last_key[p], records[p].last_time));
            let check =
                |p, s: &S::Player| runaway(&system.rating(s)).map_or(Ok(()), |v| Err((p, v)));
            let states = &mut self.carry.states;
            let passed = self.opts.pass_to_end(system, states, end, last, check);
            passed.map_err(|found| self.diverged(found, None))?;
        }
        let elapsed = self.start.elapsed();
        let snapshot = self.snapshot.take();
        Ok((self.result(elapsed), snapshot))
    }

    /// What `--save-state` keeps after the rounds rated so far, which applied the contests
    /// `applied`.
    fn snapshot_now(&self, applied: Vec<u32>) -> Snapshot<S::Player> {
        let c = &self.carry;
        Snapshot {
            carry: Carry {
                rounds_done: c.rounds_done + self.rounds as u64,
                contests_done: c.contests_done + self.seen_contests as u64,
                history_rows: c.history_rows + self.rows.len() as u64,
                outcomes: Some((self.draws.clone(), c.metrics.three.clone())),
                places: Some(c.records.iter().map(|r| r.places.clone()).collect()),
                base: Some(c.metrics.base.clone()),
                ..c.clone()
            },
            applied,
            open_from: None,
            last_applied: None,
        }
    }

    /// Before a round: with seasons, whether it opens one, then the regression toward the
    /// mean; the season told to the observer when it is new to this replay.
    fn season_turn(
        &mut self,
        seasons: &crate::seasons::Seasons,
        round: &Round<'_>,
        observer: &mut dyn Observer,
    ) {
        let c = &mut self.carry;
        if seasons.begins(&mut c.season, round)
            && let Some(r) = &mut c.regression
        {
            r.season_begins();
        }
        let mark = c
            .season
            .as_ref()
            .expect("a season begins with the first round");
        // Told again when the season in progress gets its name (its first contests had none).
        let told = (mark.number, mark.name.is_some());
        if told != self.season_told {
            self.season_told = told;
            observer.season(mark.number, &mark.label());
        }
    }

    /// Those who have played pay the regressions they owe (before the states are read as a
    /// whole).
    fn pay_all(&mut self) {
        let c = &mut self.carry;
        if let Some(r) = &mut c.regression {
            let records = &c.records;
            r.pay_all(self.system, &mut c.states, |p| records[p].contests > 0);
        }
    }

    /// After a round: the ratings of its players back in the league's sum.
    fn rated(&mut self) {
        let c = &mut self.carry;
        if let Some(r) = &mut c.regression {
            for &p in &self.participants {
                if c.records[p as usize].contests > 0 {
                    r.rated(self.system, &c.states[p as usize]);
                }
            }
        }
    }

    /// Step 0: the regressions between seasons the round's returning players owe are paid,
    /// then time passes for them (rating periods, decay), once a round each; the round's
    /// players are noted.
    fn elapse(&mut self, round: &Round<'_>) {
        let round_time = round.contests().map(|c| c.time()).min().unwrap_or(0);
        let key = self.opts.period.calendar_key(round_time);
        let mark = self.rounds as u32 + 1;
        self.participants.clear();
        for c in round.contests() {
            let players = c.players();
            for (i, &p) in players.iter().enumerate() {
                // The records and marks of players a few places on, asked for before they are
                // read (in a large contest each is far from the last in memory).
                if let Some(&ahead) = players.get(i + ELAPSE_AHEAD) {
                    crate::numeric::prefetch(&raw const self.carry.records[ahead as usize]);
                    crate::numeric::prefetch(&raw const self.last_round[ahead as usize]);
                }
                let pi = p as usize;
                if self.last_round[pi] == mark {
                    continue;
                }
                self.last_round[pi] = mark;
                self.participants.push(p);
                let rec = &self.carry.records[pi];
                if let Some(r) = &mut self.carry.regression {
                    let state = &mut self.carry.states[pi];
                    r.pay(self.system, (state, pi), rec.contests > 0);
                }
                if rec.contests > 0 {
                    let time = self.opts.time_passed(
                        (self.carry.last_key[pi], rec.last_time),
                        (key, round_time),
                        true,
                        self.measured,
                    );
                    self.system.elapse(&mut self.carry.states[pi], time);
                }
                if let Some(k) = key {
                    self.carry.last_key[pi] = k;
                }
            }
        }
    }

    /// Step 1: every contest of the round scored from the pre-round ratings (after the
    /// warm-up), and its history rows begun.
    fn score(&mut self, round: &Round<'_>) {
        for (k, c) in round.contests().enumerate() {
            let replay_index = self.carry.contests_done as usize + self.seen_contests + k;
            if replay_index as u64 >= self.carry.warmup_contests {
                let game = self.gather(&c);
                add_scores(
                    &c,
                    game,
                    &mut self.buffers,
                    (&mut self.carry.metrics, &mut self.series, &mut self.draws),
                    (self.opts.series, self.opts.keep_scores),
                );
            } else if c.len() == 2
                && c.players().iter().all(|&p| self.carry.known[p as usize])
                && let Some(g) = game_prediction(self.system, &self.carry.states, &c)
                && g.own.is_none()
            {
                // The warm-up's games teach the draw model too.
                self.draws.observe(g.p, g.y, c.weight());
            }
            self.rows_before(&c, replay_index);
        }
    }

    /// The predictions to score in one contest: entries whose players all have a prior (a
    /// rated earlier round), and among them the experienced ones (every member with enough
    /// earlier contests), into the buffers; a two-entry contest's predictions and outcome.
    fn gather(&mut self, contest: &Contest) -> Option<Game> {
        let (system, states, known, records) = (
            self.system,
            &self.carry.states,
            &self.carry.known,
            &self.carry.records,
        );
        let experienced_after = self.opts.experienced_after;
        let (all, experienced) = &mut self.buffers;
        all.clear();
        experienced.clear();
        // An entry's prediction if every member has a prior, and whether every member is
        // experienced.
        let part = |e: &crate::history::Entry<'_>| {
            e.players.iter().all(|&p| known[p as usize]).then(|| {
                let part = Participant {
                    rating: crate::systems::side_mean(states, e.players, |s| system.rating(s).mean),
                    lo: e.lo,
                    hi: e.hi,
                };
                let seasoned = e
                    .players
                    .iter()
                    .all(|&p| records[p as usize].contests >= experienced_after);
                (part, seasoned)
            })
        };
        if contest.len() >= PARALLEL_FROM {
            // A large contest's entries looked up on the pool's threads (each a few reads from
            // far apart in memory) into their places in the buffers, then the entries left out
            // (marked by an impossible place range) taken out in order.
            use rayon::prelude::*;
            const LEFT_OUT: Participant = Participant {
                rating: 0.0,
                lo: u32::MAX,
                hi: 0,
            };
            all.resize(contest.len(), LEFT_OUT);
            experienced.resize(contest.len(), LEFT_OUT);
            all.par_iter_mut()
                .zip(experienced.par_iter_mut())
                .enumerate()
                .with_min_len(1_024)
                .for_each(|(i, (a, x))| {
                    // The states and records read are asked for eight entries ahead.
                    if i + 8 < contest.len() {
                        for &p in contest.entry(i + 8).players {
                            prefetch(&raw const states[p as usize]);
                            prefetch(&raw const records[p as usize]);
                        }
                    }
                    if let Some((p, seasoned)) = part(&contest.entry(i)) {
                        *a = p;
                        if seasoned {
                            *x = p;
                        }
                    }
                });
            let kept = |p: &Participant| p.lo <= p.hi;
            all.retain(kept);
            experienced.retain(kept);
            return None;
        }
        for (p, seasoned) in contest.entries().filter_map(|e| part(&e)) {
            all.push(p);
            if seasoned {
                experienced.push(p);
            }
        }
        if contest.len() == 2 && all.len() == 2 {
            return game_prediction(system, states, contest);
        }
        None
    }

    /// The history rows of a contest, with the ratings before it.
    fn rows_before(&mut self, c: &Contest<'_>, replay_index: usize) {
        if !self.opts.keep_history {
            return;
        }
        let players = c.players();
        for (i, &p) in players.iter().enumerate() {
            if let Some(&ahead) = players.get(i + 8) {
                prefetch(&raw const self.carry.states[ahead as usize]);
            }
            self.rows.push(HistoryRow {
                round: (self.carry.rounds_done + self.rounds as u64) as u32,
                contest: replay_index as u32,
                contest_id: c.index() as u32,
                time: c.time(),
                player: p,
                before: self.system.rating(&self.carry.states[p as usize]).mean,
                after: f64::NAN,
                uncertainty: f64::NAN,
                performance: f64::NAN,
                season: self.carry.season.as_ref().map_or(0, |s| s.number),
            });
        }
    }

    /// Steps 1 to 3: the round scored ([`Replayer::score`]), rated by the system (step 2),
    /// its players' records and history rows brought up to date (step 3); a rating that ran
    /// away stops the replay. For a round of one contest of [`OVERLAP_FROM`] entries or more,
    /// the predictions are gathered first, then scored and the players' records kept on one
    /// thread while the system rates the round on the others (sorting a large contest's
    /// predictions is the replay's largest serial step; neither touches the ratings); the
    /// figures are the same either way.
    fn score_and_update(&mut self, round: Round<'_>, first_row: usize) -> Result<(), Divergence> {
        // A contest of the round the system cannot rate stops the replay before it.
        for c in round.contests() {
            if let Some(why) = crate::systems::refusal(self.system, &c) {
                let none = (usize::MAX, String::new());
                return Err(Divergence {
                    refused: Some(why),
                    ..self.diverged(none, Some(&c))
                });
            }
        }
        let replay_index = self.carry.contests_done as usize + self.seen_contests;
        let first = round.contests().next();
        let large = first.filter(|c| round.len() == 1 && c.len() >= OVERLAP_FROM);
        if let Some(c) = large.filter(|_| replay_index as u64 >= self.carry.warmup_contests) {
            self.rows_before(&c, replay_index);
            let game = self.gather(&c);
            let keep = (self.opts.series, self.opts.keep_scores);
            let carry = &mut self.carry;
            // (The closures borrow disjoint fields.)
            rayon::join(
                || {
                    let sums = (&mut carry.metrics, &mut self.series, &mut self.draws);
                    add_scores(&c, game, &mut self.buffers, sums, keep);
                    let (records, known) = (&mut carry.records, &mut carry.known);
                    record_results(records, known, &self.participants, &round);
                },
                || self.system.update(round, &mut carry.states),
            );
        } else {
            self.score(&round);
            // Under `--draws ignore` the round's drawn games are rated as if not played.
            let mut kept = Vec::new();
            let rated = self.opts.draws.rated(round, &mut kept);
            match self.system.whole_history().filter(|_| self.counts_only) {
                Some(whole) => whole.accumulate(rated, &mut self.carry.states),
                None => self.system.update(rated, &mut self.carry.states),
            }
            record_results(
                &mut self.carry.records,
                &mut self.carry.known,
                &self.participants,
                &round,
            );
        }
        // A rating of the round's players that ran away stops the replay.
        if let Some(found) = first_runaway(&self.system, &self.carry.states, &self.participants) {
            return Err(self.diverged(found, first.as_ref()));
        }
        // The ratings after the round in its history rows.
        let rows = &mut self.rows[first_row..];
        for i in 0..rows.len() {
            // The states are scattered: asked for eight rows ahead.
            if let Some(ahead) = rows.get(i + 8) {
                prefetch_value(&self.carry.states[ahead.player as usize]);
            }
            let row = &mut rows[i];
            let st = &self.carry.states[row.player as usize];
            let rating = self.system.rating(st);
            row.after = rating.mean;
            row.uncertainty = rating.uncertainty.unwrap_or(f64::NAN);
            row.performance = self.system.performance(st).unwrap_or(f64::NAN);
        }
        Ok(())
    }

    /// Hands the rows kept to the observer.
    fn flush(&mut self, observer: &mut dyn Observer) {
        observer.rows(&self.rows);
        self.carry.history_rows += self.rows.len() as u64;
        self.rows.clear();
    }

    /// Hands full batches of rows and the progress to the observer.
    fn report(&mut self, observer: &mut dyn Observer, round: &Round<'_>) {
        if self.rows.len() >= ROW_BATCH {
            self.flush(observer);
        }
        self.seen_contests += round.len();
        self.placings_since_report += round.contests().map(|c| c.players().len()).sum::<usize>();
        if self.placings_since_report >= 1 << 15 {
            observer.progress(self.seen_contests as u64, self.rounds as u64 + 1);
            self.placings_since_report = 0;
        }
    }

    /// Player `p`'s `value` ran away in the current round, at contest `at` (none: at the end
    /// of the history; `p` none of the players: a refusal).
    fn diverged(&self, (p, value): (usize, String), at: Option<&Contest>) -> Divergence {
        Divergence {
            system: self.system.name(),
            round: self.carry.rounds_done + self.rounds as u64,
            contest: at.map_or_else(|| "at the end of the history".to_string(), contest_named),
            player: if p < self.names.len() {
                self.names[p].to_string()
            } else {
                String::new()
            },
            value,
            refused: None,
        }
    }

    /// The result, `elapsed` the time the replay took.
    fn result(self, elapsed: Duration) -> ReplayResult {
        let (system, names) = (self.system, &self.names);
        let whole = system.whole_history();
        let reference = self.opts.hessian_reference.as_ref().map(|wanted| {
            let wanted: Vec<_> = wanted
                .iter()
                .map(|n| crate::history::canonical_name(n))
                .collect();
            (0..names.len() as PlayerId)
                .filter(|&p| wanted.iter().any(|w| *w == names[p as usize]))
                .collect::<Vec<_>>()
        });
        let result = ReplayResult {
            system: system.name(),
            params: system.params(),
            method: system.method(),
            fitted: whole.and_then(|w| w.fitted(&self.carry.states)),
            hessian_sds: reference.and_then(|r| whole?.hessian_sds(&self.carry.states, &r)),
            ratings: self.carry.states.iter().map(|s| system.rating(s)).collect(),
            records: self.carry.records,
            history: Vec::new(),
            metrics: self.carry.metrics.report(),
            rounds: self.rounds,
            rounds_before: self.carry.rounds_done as usize,
            warmup_contests: self.carry.warmup_contests as usize,
            elapsed,
            series: self.series,
            draw_model: (self.draws.splits() > 0).then(|| (self.draws.nu(), self.draws.seen())),
            uncertainty: system.uncertainty_meaning(),
            status_rule: StatusRule::of(system),
            rating_period_days: self.measured,
        };
        let n = self.carry.states.len();
        crate::drop_aside(self.carry.states, n);
        result
    }
}

/// The rounds a replay rates: the history's grouped by the period, cut at `as_of` and at
/// `max_contests`, without the contests to skip.
pub(crate) fn select_rounds(history: &History, opts: &ReplayOptions) -> Rounds {
    rounds_within(history, opts, &mut opts.max_contests.clone())
}

/// [`select_rounds`] of a history or of a block of it, whole rounds within `budget` contests
/// (none: no cut), which is left with the contests that remain (0 once a round was cut).
fn rounds_within(history: &History, opts: &ReplayOptions, budget: &mut Option<usize>) -> Rounds {
    let mut rounds = group_rounds(history, opts.period);
    if let Some(cutoff) = opts.as_of {
        rounds = rounds.filtered(|c| history.contest(c as usize).time() < cutoff);
    }
    if let Some(left) = *budget {
        let kept = rounds.first_contests(left);
        *budget = Some(if kept.len() < rounds.len() {
            0
        } else {
            left - kept.order.len()
        });
        rounds = kept;
    }
    if let Some(skip) = &opts.skip {
        rounds = rounds.filtered(|c| !skip[c as usize]);
    }
    if opts.skip_all_tied {
        rounds = rounds.filtered(|c| !history.contest(c as usize).all_tied());
    }
    rounds
}

/// The round's results in its players' records (contests, results, wins, draws, losses,
/// rounds), and its players known from now on.
fn record_results(
    records: &mut [PlayerRecord],
    known: &mut [bool],
    participants: &[PlayerId],
    round: &Round<'_>,
) {
    // A round of one contest dates its players' records by it (in input order a later round
    // may be dated earlier: the player's clock goes by the rounds as rated); a round of
    // several by the latest of each player's contests.
    let single = round.len() == 1;
    for c in round.contests() {
        // The records are scattered: each is asked for eight players ahead, its places four.
        let players = c.players();
        let mut at = 0;
        for e in c.entries() {
            for &p in e.players {
                if let Some(&far) = players.get(at + 8) {
                    prefetch_value(&records[far as usize]);
                }
                if let Some(&near) = players.get(at + 4) {
                    prefetch(records[near as usize].places.first_held());
                }
                at += 1;
                let rec = &mut records[p as usize];
                rec.contests += 1;
                rec.last_time = if rec.contests == 1 || single {
                    c.time()
                } else {
                    rec.last_time.max(c.time())
                };
                let others = (c.len() - 1) as f64;
                let below = (c.len() - 1) as f64 - e.hi as f64;
                rec.push_result((below + 0.5 * (e.hi - e.lo) as f64) / others);
                if c.len() > 2 {
                    rec.places.add(e.lo + 1);
                }
                // Alone in first place wins, a shared first place draws (a drawn game).
                if e.hi == 0 {
                    rec.wins += 1;
                } else if e.lo == 0 {
                    rec.draws += 1;
                } else {
                    rec.losses += 1;
                }
            }
        }
    }
    for &p in participants {
        records[p as usize].rounds += 1;
        known[p as usize] = true;
    }
}

/// A scored two-entry contest: the first entry's predicted expected score, its result (1,
/// 1/2, 0), and the system's own probabilities of a win, a draw and a loss, if it has a
/// draw model.
#[derive(Clone, Copy, Debug)]
struct Game {
    p: f64,
    y: f64,
    own: Option<[f64; 3]>,
}

/// A two-entry contest's predictions (as the game is played: its first side's advantage
/// included) and outcome, where the system predicts one.
fn game_prediction<S: RatingSystem>(
    system: &S,
    states: &[S::Player],
    contest: &Contest,
) -> Option<Game> {
    let (a, b) = (contest.entry(0), contest.entry(1));
    let p = crate::systems::game_win_probability(system, states, contest)?;
    let own = system.outcome_probabilities(states, a.players, b.players, contest.first_side());
    Some(Game {
        p,
        y: a.outcome_against(&b),
        own,
    })
}

/// Scores a contest from its gathered predictions (and a two-entry contest's predictions
/// and outcome: its three outcomes' probabilities are the system's own, or split by
/// `draws`, which then learns the game's outcome).
fn add_scores(
    contest: &Contest,
    game: Option<Game>,
    (all, experienced): &mut (Vec<Participant>, Vec<Participant>),
    (metrics, series, draws): (&mut Metrics, &mut Series, &mut DrawModel),
    (keep_series, keep_scores): (bool, bool),
) {
    let scored = game.map(|g| {
        // The draw model learns only where it splits: a system with its own has no use for it.
        let three = g.own.unwrap_or_else(|| {
            let split = draws.predict(g.p);
            draws.observe(g.p, g.y, contest.weight());
            split
        });
        if keep_series {
            series.games.push((contest.index() as u32, g.p, three, g.y));
        }
        metrics.add_game(g.p, g.y, &three, contest.first_side())
    });
    let n = all.len() as u32;
    let ranked = metrics.add_ranking(all, false);
    let seasoned = metrics.add_ranking(experienced, true);
    if keep_scores && (ranked.is_some() || seasoned.is_some() || game.is_some()) {
        series.scores.push(crate::metrics::ScoredContest {
            contest: contest.index() as u32,
            all: ranked,
            experienced: seasoned,
            two: scored.map(|s| s.0),
            log_loss_3: scored.map_or(0.0, |s| s.1),
        });
    }
    if keep_series && let Some(s) = ranked {
        series.contest_metrics.push((
            contest.time(),
            s.pair_sum / s.n as f64,
            s.rank_sum / s.n as f64,
            n,
        ));
        series.contest_ids.push(contest.index() as u32);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::systems::elo::{Elo, EloParams};

    /// `YYYY-MM-DD` or RFC 3339 with `Z`, as Unix seconds (the tests' times).
    fn parse_time(t: &str) -> Result<i64, chrono::ParseError> {
        match t.len() {
            10 => chrono::NaiveDate::parse_from_str(t, "%Y-%m-%d").map(|d| {
                d.and_hms_opt(0, 0, 0)
                    .expect("midnight")
                    .and_utc()
                    .timestamp()
            }),
            _ => chrono::DateTime::parse_from_rfc3339(t).map(|d| d.timestamp()),
        }
    }

    /// Games (time, a, b, a's score, series).
    fn games(list: &[(&str, &str, &str, f64, Option<&str>)]) -> History {
        let timed: Vec<_> = list
            .iter()
            .map(|&(t, x, y, s, series)| (parse_time(t).unwrap(), x, y, s, series))
            .collect();
        crate::history::games(&timed)
    }

    /// `--draws ignore`: a drawn game is predicted and scored, and counted in the records,
    /// but moves no rating. Elo K 32: a beats b (1500 each, +16 and -16), then they draw, a
    /// then expected 0.5 + 0.046 (32 points ahead): updated, a gives back 1.47.
    #[test]
    fn ignored_draws_are_scored_and_counted_not_rated() {
        let h = games(&[
            ("2020-01-01", "a", "b", 1.0, None),
            ("2020-01-02", "a", "b", 0.5, None),
        ]);
        let elo = Elo::new(EloParams::default()).unwrap();
        let run = |draws| {
            let opts = ReplayOptions {
                warmup: 0.0,
                draws,
                ..ReplayOptions::default()
            };
            replay(&h, &elo, &opts).unwrap()
        };
        let (updated, ignored) = (run(Draws::Update), run(Draws::Ignore));
        let e = 1.0 / (1.0 + 10f64.powf(-32.0 / 400.0));
        assert!((updated.ratings[0].mean - (1516.0 + 32.0 * (0.5 - e))).abs() < 1e-9);
        assert_eq!(ignored.ratings[0].mean, 1516.0);
        assert_eq!(ignored.ratings[1].mean, 1484.0);
        assert_eq!(ignored.records[0].draws, 1);
        assert_eq!(ignored.records[0].contests, 2);
        // The draw is scored either way, from the same ratings (the first game is not: its
        // players had no prior).
        let two = |r: &ReplayResult| {
            (
                r.metrics.two_player.games_scored,
                r.metrics.two_player.log_loss,
            )
        };
        assert_eq!(two(&ignored).0, 1);
        assert_eq!(two(&ignored), two(&updated));
    }

    fn rounds_of(h: &History, p: Period) -> Vec<Vec<u32>> {
        let r = group_rounds(h, p);
        (0..r.len()).map(|i| r.round(i).to_vec()).collect()
    }

    #[test]
    fn a_name_list_gives_back_each_name_including_empty_and_multibyte_ones() {
        let mut l = NameList::default();
        assert!(l.is_empty());
        l.extend(["ann", "", "Zoë Ó"]);
        l.extend(["bob"]);
        assert_eq!(l.len(), 4);
        assert_eq!((&l[0], &l[1], &l[2], &l[3]), ("ann", "", "Zoë Ó", "bob"));
    }

    #[test]
    fn calendar_periods_group_by_utc_day_iso_week_and_month() {
        let h = games(&[
            ("2021-03-28T23:00:00Z", "a", "b", 1.0, None), // Sunday
            ("2021-03-29T00:30:00Z", "a", "c", 1.0, None), // Monday: new day, new week
            ("2021-03-31T12:00:00Z", "b", "c", 1.0, None), // Wednesday, still March
            ("2021-04-01T08:00:00Z", "a", "b", 0.0, None), // Thursday, April
        ]);
        assert_eq!(
            rounds_of(&h, Period::Game),
            vec![vec![0], vec![1], vec![2], vec![3]]
        );
        assert_eq!(
            rounds_of(&h, Period::Day),
            vec![vec![0], vec![1], vec![2], vec![3]]
        );
        assert_eq!(rounds_of(&h, Period::Week), vec![vec![0], vec![1, 2, 3]]);
        assert_eq!(rounds_of(&h, Period::Month), vec![vec![0, 1, 2], vec![3]]);
    }

    #[test]
    fn series_rounds_keep_a_best_of_n_together_even_when_interleaved() {
        let h = games(&[
            ("2021-01-01T10:00:00Z", "a", "b", 1.0, Some("s1")),
            ("2021-01-01T11:00:00Z", "c", "d", 1.0, Some("s2")),
            ("2021-01-01T12:00:00Z", "a", "b", 0.0, Some("s1")),
            ("2021-01-01T13:00:00Z", "e", "f", 1.0, None),
            ("2021-01-01T14:00:00Z", "c", "d", 1.0, Some("s2")),
        ]);
        assert_eq!(
            rounds_of(&h, Period::Series),
            vec![vec![0, 2], vec![1, 4], vec![3]]
        );
    }

    #[test]
    fn a_period_round_is_rated_from_pre_round_ratings() {
        // a beats b and c on the same day: with --period day both games are rated from 1500,
        // so a gains exactly twice 16; per game the second gain is smaller.
        let h = games(&[
            ("2021-01-01T10:00:00Z", "a", "b", 1.0, None),
            ("2021-01-01T11:00:00Z", "a", "c", 1.0, None),
        ]);
        let elo = Elo::new(EloParams::default()).unwrap();
        let by_day = replay(
            &h,
            &elo,
            &ReplayOptions {
                period: Period::Day,
                ..ReplayOptions::default()
            },
        )
        .unwrap();
        assert_eq!(by_day.ratings[0].mean, 1532.0);
        assert_eq!(by_day.rounds, 1);
        assert_eq!(by_day.records[0].rounds, 1);
        assert_eq!(by_day.records[0].contests, 2);
        let by_game = replay(&h, &elo, &ReplayOptions::default()).unwrap();
        assert!(by_game.ratings[0].mean < 1532.0);
        // History rows: one per player per contest, before and after the whole round.
        assert_eq!(by_day.history.len(), 4);
        assert!(
            by_day
                .history
                .iter()
                .filter(|r| r.player == 0)
                .all(|r| r.before == 1500.0 && r.after == 1532.0)
        );
    }

    /// The tuning slice keeps whole rounds within the cut: with day rounds of 3 contests, the
    /// first 7 contests hold 2 whole rounds (6 contests); the third round would reach past.
    #[test]
    fn the_first_contests_are_whole_rounds_within_the_cut() {
        let rounds = Rounds {
            order: (0..9).collect(),
            bounds: vec![0, 3, 6, 9],
        };
        assert_eq!(rounds.first_contests(7).order, (0..6).collect::<Vec<u32>>());
        assert_eq!(rounds.first_contests(6).len(), 2);
        assert_eq!(rounds.first_contests(9).len(), 3);
        assert_eq!(rounds.first_contests(2).len(), 0);
        assert_eq!(rounds.first_contests(100).len(), 3);
    }

    #[test]
    fn warm_up_and_first_contests_are_not_scored() {
        let list: Vec<(String, &str, &str, f64, Option<&str>)> = (0..20)
            .map(|i| {
                (
                    format!("2021-01-{:02}", i + 1),
                    if i % 2 == 0 { "a" } else { "b" },
                    "c",
                    1.0,
                    None,
                )
            })
            .collect();
        let refs: Vec<(&str, &str, &str, f64, Option<&str>)> = list
            .iter()
            .map(|(t, a, b, s, x)| (t.as_str(), *a, *b, *s, *x))
            .collect();
        let h = games(&refs);
        let elo = Elo::new(EloParams::default()).unwrap();
        let r = replay(&h, &elo, &ReplayOptions::default()).unwrap();
        // 20 contests, warm-up 2; every later contest has two players with a prior.
        assert_eq!(r.warmup_contests, 2);
        assert_eq!(r.metrics.two_player.games_scored, 18);
        assert_eq!(r.metrics.all.contests_scored, 18);
        // c loses every game and falls: every prediction is right once both have played.
        assert_eq!(r.metrics.all.pair_inversion, Some(100.0));
        // Without warm-up: contests 0 (a, c new) and 1 (b new) have a newcomer. Experienced
        // (5 earlier contests each): a plays the even contests, so from contest 10 on; b the
        // odd ones, from 11 on: 10 contests.
        let w = ReplayOptions {
            warmup: 0.0,
            ..ReplayOptions::default()
        };
        let r = replay(&h, &elo, &w).unwrap();
        assert_eq!(
            r.metrics.two_player.games_scored, 18,
            "the first games have no prior"
        );
        assert_eq!(r.metrics.experienced.contests_scored, 10);
        let records = &r.records;
        // Ids in order of appearance: a 0, c 1, b 2.
        assert_eq!(
            (records[1].wins, records[1].draws, records[1].losses),
            (0, 0, 20)
        );
        assert_eq!((records[2].wins, records[2].rounds), (10, 10));
    }
}
