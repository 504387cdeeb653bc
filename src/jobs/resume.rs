//! `--resume` and `--save-state` in a replay job: the state file read and checked against the
//! job's system, parameters and options, and the state of this run built. What a state is and
//! which contests it applied is `rate_batch_core::state`.

use crate::history::History;
use crate::ingest::InputError;
use crate::replay::Period;
use crate::replay::{
    Divergence, Observer, ReplayOptions, ReplayResult, SnapshotAt, replay_from, replay_observed,
};
use crate::state::{self, StateFile, StateMeta};
use crate::systems::{RatingSystem, SystemVisitor};
use std::path::Path;

pub(crate) struct RunReplay<'a> {
    pub(crate) history: &'a History,
    pub(crate) opts: &'a ReplayOptions,
    pub(crate) observer: &'a mut dyn Observer,
    pub(crate) state: Option<&'a StateJob<'a>>,
}

/// What a replay with `--resume` / `--save-state` carries in and out.
pub struct StateJob<'a> {
    /// The state resumed from.
    pub resume: Option<&'a StateFile>,
    /// Take a snapshot to save.
    pub save: bool,
    /// The file resumed from (for messages).
    pub resume_path: Option<&'a Path>,
    /// The parameters as asked ([`asked`]), kept in the state to check a resumed run by.
    pub asked: String,
    /// What they took from the input (JSON), kept for the nights after.
    pub from_input: String,
}

/// The parameters as a command asked for them, as a state keeps them: JSON with the keys
/// sorted (`--param a=1 --param b=2` asks what `--param b=2 --param a=1` does).
pub(crate) fn asked(params: &crate::systems::ParamMap) -> String {
    let sorted: std::collections::BTreeMap<&String, &serde_json::Value> = params.iter().collect();
    serde_json::to_string(&sorted).unwrap_or_default()
}

/// A resumed run's parameters: those the state was made with, as they were resolved, and
/// what they took from the input then. `None` for a state of a version before 7, which
/// keeps only the resolved parameters (its run resolves them again, and is checked by them).
pub(crate) fn resumed_params(
    file: &StateFile,
) -> Option<Result<(crate::systems::ParamMap, crate::auto::FromInput), String>> {
    let m = &file.meta;
    if m.asked.is_empty() {
        return None;
    }
    let damaged = |e: serde_json::Error| format!("damaged state file: its parameters: {e}");
    Some((|| {
        let serde_json::Value::Object(params) = serde_json::from_str(&m.params).map_err(damaged)?
        else {
            return Err("damaged state file: its parameters are not an object".into());
        };
        let from_input = if m.from_input.is_empty() {
            crate::auto::FromInput::default()
        } else {
            serde_json::from_str(&m.from_input).map_err(damaged)?
        };
        Ok((params, from_input))
    })())
}

impl StateJob<'_> {
    /// An error of the state resumed from, naming its file.
    pub(crate) fn error(state: Option<&Self>, message: String) -> InputError {
        let file = state.and_then(|s| s.resume_path);
        InputError::whole_file(
            file.map_or_else(String::new, |p| p.display().to_string()),
            message,
        )
    }
}

/// Why a replay stopped.
pub(crate) enum ReplayFailure {
    /// The system's ratings ran away.
    Diverged(Divergence),
    /// A streamed replay's reader stopped before the end of the input: its own error says why.
    Unread,
    /// The state resumed from cannot be used, or does not fit the input (an error naming the
    /// file); or the input does not fit the options (a usage error).
    State(anyhow::Error),
}

impl ReplayFailure {
    /// The run's error.
    pub(crate) fn error(self) -> anyhow::Error {
        match self {
            ReplayFailure::Diverged(d) => d.into(),
            // Fed by a reader it does not own (one of a `compare`'s systems): the reader's
            // error, reported by whoever joins it, says why.
            ReplayFailure::Unread => anyhow::anyhow!("the input's reader stopped before its end"),
            ReplayFailure::State(e) => e,
        }
    }
}

impl SystemVisitor for RunReplay<'_> {
    type Output = Result<(ReplayResult, Option<Vec<u8>>), ReplayFailure>;
    fn visit<S: RatingSystem>(self, system: &S) -> Self::Output {
        let Some(state) = self.state else {
            let result = replay_observed(self.history, system, self.opts, self.observer);
            return Ok((result.map_err(ReplayFailure::Diverged)?, None));
        };
        let state_error = |m: String| ReplayFailure::State(StateJob::error(Some(state), m).into());
        let from = state
            .resume
            .map(StateFile::carry::<S::Player>)
            .transpose()
            .map_err(state_error)?;
        let at = snapshot_at(state, self.opts.period);
        let (result, snapshot) =
            replay_from(self.history, system, self.opts, self.observer, from, at)
                .map_err(ReplayFailure::Diverged)?;
        let Some(snap) = snapshot else {
            return Ok((result, None));
        };
        let h = self.history;
        let series = self.opts.period == Period::Series;
        let closed_now = snap
            .applied
            .iter()
            .filter(|_| series)
            .filter_map(|&c| h.contest(c as usize).series())
            .map(|s| h.series_name(s).to_string())
            .collect();
        let digests: Vec<u64> = h.contests().map(|c| state::contest_digest(h, &c)).collect();
        let before = self.opts.skip.as_deref().map_or(&[][..], Vec::as_slice);
        let input = InputContests {
            digests: &digests,
            skipped: before,
            closed_now,
            players: h.names(),
        };
        let bytes = state_bytes(system, self.opts, state, snap, input).map_err(state_error)?;
        Ok((result, Some(bytes)))
    }
}

/// What a state records of this run's input: each contest's digest (by index in the input),
/// those the state resumed from had applied, the series this run closed, the players.
pub(crate) struct InputContests<'a> {
    pub(crate) digests: &'a [u64],
    /// Indexed as `digests`; a contest past its end was not applied before.
    pub(crate) skipped: &'a [bool],
    pub(crate) closed_now: Vec<String>,
    pub(crate) players: &'a [String],
}

/// The state file of a replay that took `snap`: every digest applied before and now (as often
/// as applied), the contests of this input left for the next run, the watermark, the players.
pub(crate) fn state_bytes<S: RatingSystem>(
    system: &S,
    opts: &ReplayOptions,
    state: &StateJob,
    snap: state::Snapshot<S::Player>,
    input: InputContests,
) -> Result<Vec<u8>, String> {
    let mut applied: Vec<u64> = state
        .resume
        .map(|f| f.meta.applied.clone())
        .unwrap_or_default();
    let mut now = vec![false; input.digests.len()];
    for &c in &snap.applied {
        now[c as usize] = true;
        applied.push(input.digests[c as usize]);
    }
    applied.sort_unstable();
    let skipped = |c: usize| input.skipped.get(c).is_some_and(|&s| s);
    let mut pending: Vec<u64> = (0..input.digests.len())
        .filter(|&c| !now[c] && !skipped(c))
        .map(|c| input.digests[c])
        .collect();
    pending.sort_unstable();
    let mut closed_series: Vec<String> = Vec::new();
    if opts.period == Period::Series {
        closed_series = state
            .resume
            .map(|f| f.meta.closed_series.clone())
            .unwrap_or_default();
        closed_series.extend(input.closed_now);
        closed_series.sort_unstable();
        closed_series.dedup();
    }
    let watermark = snap
        .last_applied
        .clone()
        .or_else(|| state.resume.and_then(|f| f.meta.watermark.clone()));
    let meta = StateMeta {
        system: system.name().to_string(),
        params: system.params().to_string(),
        period: cli_name(opts.period),
        decay_per_day: opts.decay_per_day,
        experienced_after: opts.experienced_after,
        players: input.players.to_vec(),
        watermark,
        applied,
        history_rows: snap.carry.history_rows,
        open_from: snap.open_from.filter(|_| !pending.is_empty()),
        pending,
        closed_series,
        skip_all_tied: opts.skip_all_tied,
        growth: cli_name(opts.growth),
        rating_period_days: opts.rating_period_days,
        input_order: opts.input_order,
        asked: state.asked.clone(),
        from_input: state.from_input.clone(),
        rules: opts.rules(),
    };
    let mut bytes = Vec::new();
    state::write_state(&mut bytes, &meta, &snap.carry).map_err(|e| e.to_string())?;
    Ok(bytes)
}

/// Where a replay with this state job takes its snapshot: at the end for games, before the
/// last round (left open for the next run) for periods.
pub(crate) fn snapshot_at(state: &StateJob, period: Period) -> SnapshotAt {
    match (state.save, period) {
        (false, _) => SnapshotAt::Never,
        (true, Period::Game) => SnapshotAt::End,
        (true, _) => SnapshotAt::BeforeLastRound,
    }
}

/// The command-line name of a growth, a period or a metric.
pub(crate) fn cli_name(value: impl serde::Serialize) -> String {
    serde_json::to_value(value)
        .ok()
        .and_then(|v| v.as_str().map(str::to_string))
        .unwrap_or_default()
}

/// Reads a state's players for the system and checks every value.
pub(crate) struct CheckState<'a>(pub(crate) &'a StateFile);

impl SystemVisitor for CheckState<'_> {
    type Output = Result<(), String>;
    fn visit<S: RatingSystem>(self, system: &S) -> Self::Output {
        let carry = self.0.carry::<S::Player>()?;
        state::check_values(system, &self.0.meta, &carry)
    }
}
