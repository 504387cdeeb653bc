//! `--save-state` and `--resume`: a replay's full state in a file, so that a nightly job
//! applies only what is new. Everything resuming needs is here: what a replay carries from
//! round to round ([`Carry`]) and when it is taken ([`Snapshot`], [`SnapshotAt`]), the file,
//! and which contests of a new input were applied before ([`StateFile::already_applied`]).
//! The replay loop takes and gives back a [`Carry`]; the CLI's `jobs::resume` only ties a
//! job's options and files to these.
//!
//! The file: the 8 bytes `RBSTATE\0`, a little-endian `u32` format version, a little-endian
//! `u64` length, the [`StateMeta`] (postcard), the [`Carry`] of the system's player type
//! (postcard), and (version 3) the 64-bit XXH3 hash of everything before it, little-endian.
//! The meta part can be read without knowing the system, so that a state of another system or
//! with other parameters is refused before anything else. A file whose hash does not match its
//! content (a byte changed, a value edited, the file cut short) is refused; so is one whose
//! values are not finite or out of range ([`check_values`]), whatever its version.
//!
//! What a state holds: the system and its parameters, the replay options that change the
//! result (period, decay, experience threshold, the fixed number of warm-up contests), every
//! player's name and state, record and metrics so far, the watermark (the time and name of the
//! last contest applied) and a 64-bit digest of every contest applied (its time, weight, name,
//! series and every entry's players, places and score), so that contests given again are
//! recognised and skipped. The digests are a multiset: a contest that really happened twice
//! (a rematch on the same day with the same result) is skipped only as often as it was applied.
//!
//! With `--period day|week|month|series` the last round of a run may still grow (the rest of
//! the day comes tomorrow), so the state is taken before it: the next run applies that round
//! whole. Every round is then rated exactly as in one full replay. The digests of that open
//! round's contests are kept too (`pending`), so that a next input that lacks them (only the
//! games after the watermark) is refused rather than silently rated without them.
//!
//! With `--period series` the state also names the series it rated whole: a later input that
//! continues one of them (series interleaved in time, the last one not the one continued) is
//! refused, since rating its new games as a round of their own would differ from a full
//! replay.
//!
//! Version 1 files (without `pending`, `open_from` and `closed_series`) and version 2 files
//! (without the hash) are still read.

use crate::history::{Contest, History};
use crate::metrics::Metrics;
use crate::record::PlayerRecord;
use crate::time::format_time;
use serde::{Deserialize, Serialize};
use std::io::{Read, Write};

/// Everything a replay carries from one round to the next besides the ratings' definition:
/// where a resumed replay starts, and what `--save-state` keeps.
#[derive(Clone, Debug, serde::Serialize, serde::Deserialize)]
pub struct Carry<P> {
    /// Every player's system state (by id).
    pub states: Vec<P>,
    /// Every player's record (by id).
    pub records: Vec<PlayerRecord>,
    /// Players with a rating before their next round (seeded or rated once).
    pub known: Vec<bool>,
    /// Calendar period of each player's last round.
    pub last_key: Vec<i64>,
    /// The metrics so far.
    pub metrics: Metrics,
    /// Rounds and contests applied so far (the numbering of the history rows goes on).
    pub rounds_done: u64,
    /// Contests applied so far.
    pub contests_done: u64,
    /// Contests, counted from the very first, that are not scored.
    pub warmup_contests: u64,
    /// Rows of the rating history written so far.
    pub history_rows: u64,
    /// The draw model and the three-outcome metrics so far (version 5 on; a state of an
    /// earlier version resumes with a fresh draw model and counts three-outcome metrics
    /// from there).
    pub outcomes: Option<(crate::draws::DrawModel, crate::metrics::ThreeSums)>,
    /// Every player's places in contests of more than two entries (version 6 on; a state of
    /// an earlier version resumes with none, and counts them from there).
    pub places: Option<Vec<crate::record::Places>>,
    /// The base rate's sums of the scored games (version 7 on; a state of an earlier version
    /// resumes with none, and counts them from there).
    pub base: Option<crate::metrics::BaseSums>,
    /// The season in progress, with seasons (version 8 on).
    pub season: Option<crate::seasons::SeasonMark>,
    /// The regressions between seasons the players owe (version 9 on; a state of an earlier
    /// version owes none: its regressions were paid as the season began).
    pub regression: Option<crate::seasons::Regression>,
}

/// When to take the snapshot for `--save-state`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SnapshotAt {
    /// No snapshot.
    Never,
    /// After the last round (every round is complete: one contest per round).
    End,
    /// Before the last round, which may still grow (a calendar period or a series that the
    /// next input can continue).
    BeforeLastRound,
}

/// A snapshot and the contests (history indices) it has applied.
#[derive(Clone, Debug)]
pub struct Snapshot<P> {
    /// The carried state.
    pub carry: Carry<P>,
    /// Contests of this replay applied in the snapshot.
    pub applied: Vec<u32>,
    /// Time of the first contest of the round left out (BeforeLastRound), if any.
    pub open_from: Option<i64>,
    /// The time and label of the last contest applied in the snapshot, if any.
    pub last_applied: Option<(i64, Option<String>)>,
}

/// The file's first bytes.
pub const MAGIC: &[u8; 8] = b"RBSTATE\0";
/// The format version this build writes (it reads 1 to this).
pub const VERSION: u32 = 9;

/// The hash that closes a version 3 file.
fn hash(bytes: &[u8]) -> u64 {
    xxhash_rust::xxh3::xxh3_64(bytes)
}

/// Everything of a state but the players' system states.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct StateMeta {
    /// The system's name.
    pub system: String,
    /// Its parameters (JSON text, as in metrics.json).
    pub params: String,
    /// The round grouping (its command-line name).
    pub period: String,
    /// `--decay-per-day`.
    pub decay_per_day: f64,
    /// Earlier contests a player needs to count as experienced.
    pub experienced_after: u32,
    /// Player names by id.
    pub players: Vec<String>,
    /// The last contest applied: time and name (if the input names contests).
    pub watermark: Option<(i64, Option<String>)>,
    /// Digests of every contest applied, sorted (repeated as often as applied).
    pub applied: Vec<u64>,
    /// Rows of the rating history written for the applied rounds.
    pub history_rows: u64,
    /// Digests of the contests read but left for the next run (the open round), sorted.
    pub pending: Vec<u64>,
    /// Time of the first contest of the open round.
    pub open_from: Option<i64>,
    /// With `--period series`: the series rated whole (sorted), which a later input must not
    /// continue.
    pub closed_series: Vec<String>,
    /// `--skip-all-tied` (version 4 on; earlier versions rated every contest).
    pub skip_all_tied: bool,
    /// `--growth` (version 7 on; empty in an earlier version's state, whose growth was
    /// `rounds`).
    pub growth: String,
    /// `--rating-period` in days, where given (version 7 on).
    pub rating_period_days: Option<f64>,
    /// `--order input` (version 7 on): contests are replayed in the input's order, so one
    /// older than the watermark may be new.
    pub input_order: bool,
    /// The parameters as the command asked for them (version 7 on; JSON, as `--param` and
    /// `--advantage` gave them, `auto` kept): what a resumed run is checked against, since
    /// what was taken from the input (below) may differ from night to night. Empty in an
    /// earlier version's state, which is checked by its parameters as resolved.
    pub asked: String,
    /// What the parameters took from the input ([`crate::auto::FromInput`], JSON; version 7
    /// on): a resumed run keeps these values and reports them again.
    pub from_input: String,
    /// The draw policy and the seasons with their regression (version 8 on; JSON of
    /// [`crate::replay::ReplayOptions::rules`], empty for the defaults: draws rated, no
    /// seasons): a resumed run must rate draws, cut seasons and regress the same way.
    pub rules: String,
}

impl StateMeta {
    /// The growth the state was made with: its `growth`, `rounds` for an earlier version's.
    pub fn growth(&self) -> &str {
        if self.growth.is_empty() {
            "rounds"
        } else {
            &self.growth
        }
    }
}

/// Zero bytes that turn a meta of an older version into the current one: each version added
/// fields at the end only, and postcard writes every added field's default (an empty list or
/// text, `None`, `false`) as one zero byte. Version 1 lacks `pending`, `open_from` and
/// `closed_series` (version 2) and `skip_all_tied` (version 4); versions 2 and 3 lack the
/// last; versions before 7 lack `growth`, `rating_period_days`, `input_order`, `asked` and
/// `from_input` (5); versions before 8 lack `rules` (1); version 9 changed only the carry. A
/// new version that adds a field with
/// a default encoded otherwise needs its own rule.
fn meta_padding(version: u32) -> usize {
    [
        4 + 5 + 1,
        1 + 5 + 1,
        1 + 5 + 1,
        5 + 1,
        5 + 1,
        5 + 1,
        1,
        0,
        0,
    ][version as usize - 1]
}

/// A Glicko-2 player as states before version 7 keep him: rating, deviation and volatility,
/// nothing pending beyond the next period (the growth by counted rounds of those versions).
#[derive(Deserialize)]
struct Glicko2Before7(f64, f64, f64);

/// A state body of a version before 7 in today's layout: only Glicko-2's player changed (he
/// keeps the fraction of a period pending since version 7). The players' states come first
/// in a carry (postcard writes a struct's fields one after the other): the rest is kept.
fn upgrade_body(system: &str, body: Vec<u8>) -> Result<Vec<u8>, String> {
    if system != "glicko2" {
        return Ok(body);
    }
    let damaged = |e: postcard::Error| format!("damaged state file: {e}");
    // The whole carry is read, so that a damaged one is refused with the file.
    postcard::from_bytes::<Carry<Glicko2Before7>>(&body).map_err(damaged)?;
    let (old, rest): (Vec<Glicko2Before7>, _) =
        postcard::take_from_bytes(&body).map_err(damaged)?;
    let states: Vec<_> = (old.iter())
        .map(|p| crate::systems::glicko2::Glicko2Player::new(p.0, p.1, p.2))
        .collect();
    let mut upgraded = postcard::to_stdvec(&states).map_err(damaged)?;
    upgraded.extend_from_slice(rest);
    Ok(upgraded)
}

/// Writes a state.
pub fn write_state<P: Serialize>(
    w: &mut dyn Write,
    meta: &StateMeta,
    carry: &Carry<P>,
) -> std::io::Result<()> {
    let head = postcard::to_stdvec(meta).map_err(std::io::Error::other)?;
    let body = postcard::to_stdvec(carry).map_err(std::io::Error::other)?;
    let mut all = Vec::with_capacity(28 + head.len() + body.len());
    all.extend_from_slice(MAGIC);
    all.extend_from_slice(&VERSION.to_le_bytes());
    all.extend_from_slice(&(head.len() as u64).to_le_bytes());
    all.extend_from_slice(&head);
    all.extend_from_slice(&body);
    let sum = hash(&all);
    all.extend_from_slice(&sum.to_le_bytes());
    w.write_all(&all)
}

/// A state file read up to its players' system states.
#[derive(Debug)]
pub struct StateFile {
    /// The meta part.
    pub meta: StateMeta,
    body: Vec<u8>,
}

impl StateFile {
    /// Reads a state file; errors say what is wrong with it.
    pub fn read(r: &mut dyn Read) -> Result<StateFile, String> {
        let mut all = Vec::new();
        r.read_to_end(&mut all).map_err(|e| e.to_string())?;
        if all.len() < 20 || &all[..8] != MAGIC {
            return Err("not a rate-batch state file".into());
        }
        let version = u32::from_le_bytes(all[8..12].try_into().expect("4 bytes"));
        if !(1..=VERSION).contains(&version) {
            return Err(format!(
                "state format version {version}, this build reads versions 1 to {VERSION}"
            ));
        }
        if version >= 3 {
            let Some(cut) = all.len().checked_sub(8).filter(|&c| c >= 20) else {
                return Err("the state file is truncated".into());
            };
            let stored = u64::from_le_bytes(all[cut..].try_into().expect("8 bytes"));
            if hash(&all[..cut]) != stored {
                return Err(
                    "damaged state file: its checksum does not match its content \
                     (changed, cut short or corrupted since it was written); replay from \
                     scratch or restore it"
                        .into(),
                );
            }
            all.truncate(cut);
        }
        let len = u64::from_le_bytes(all[12..20].try_into().expect("8 bytes")) as usize;
        let head = all
            .get(20..20usize.saturating_add(len))
            .ok_or("the state file is truncated")?;
        let damaged = |e: postcard::Error| format!("damaged state file: {e}");
        let mut head = head.to_vec();
        head.resize(head.len() + meta_padding(version), 0);
        let meta: StateMeta = postcard::from_bytes(&head).map_err(damaged)?;
        let mut body = all[20 + len..].to_vec();
        if version < 9 {
            // Versions 5 to 9 each added a field at the carry's end (`outcomes`, `places`,
            // `base`, `season`, `regression`), `None` in an earlier version's: one zero byte
            // each.
            body.resize(body.len() + (9 - version.max(4)) as usize, 0);
        }
        if version < 7 {
            body = upgrade_body(&meta.system, body)?;
        }
        Ok(StateFile { meta, body })
    }

    /// The players' states, for the system the meta names.
    pub fn carry<P: for<'de> Deserialize<'de>>(&self) -> Result<Carry<P>, String> {
        let carry: Carry<P> =
            postcard::from_bytes(&self.body).map_err(|e| format!("damaged state file: {e}"))?;
        let n = self.meta.players.len();
        if carry.states.len() != n
            || carry.records.len() != n
            || carry.known.len() != n
            || carry.last_key.len() != n
            || carry.places.as_ref().is_some_and(|p| p.len() != n)
        {
            return Err("damaged state file: the player tables disagree".into());
        }
        Ok(carry)
    }

    /// Which contests of `history` were applied before ([`AppliedCheck`]), and how many; an
    /// error (with the origin of the contest to blame, where there is one) for an input that
    /// cannot be resumed.
    pub fn already_applied(
        &self,
        history: &History,
    ) -> Result<(Vec<bool>, usize), (Option<u64>, String)> {
        let mut check = AppliedCheck::new(&self.meta);
        let skip = history
            .contests()
            .map(|c| {
                check
                    .contest(history, &c, contest_digest(history, &c))
                    .map_err(|m| (c.origin(), m))
            })
            .collect::<Result<Vec<bool>, _>>()?;
        let n = check.finish().map_err(|m| (None, m))?;
        Ok((skip, n))
    }
}

/// Checks every value of a state read back: each player's rating and uncertainty finite and
/// within the replay's divergence bound, times within the years 0 to 9999, the counts
/// consistent, the metrics in range. A state that was written by a replay passes; one edited
/// or damaged in a way the hash cannot see (versions 1 and 2) is refused here.
pub fn check_values<S: crate::systems::RatingSystem>(
    system: &S,
    meta: &StateMeta,
    carry: &Carry<S::Player>,
) -> Result<(), String> {
    let (lo, hi) = crate::time::TIME_RANGE;
    let time_ok = |t: i64| (lo..=hi).contains(&t);
    for (p, state) in carry.states.iter().enumerate() {
        let name = meta.players.get(p).map_or("?", String::as_str);
        if let Some(what) = crate::systems::runaway(&system.rating(state)) {
            return Err(format!(
                "damaged state file: player `{name}`'s {what} is not a finite number within \
                 ±{:e}",
                crate::systems::DIVERGENCE_BOUND
            ));
        }
        let r = &carry.records[p];
        // Calendar keys are days, weeks or months since 1970: within the years 0 to 9999.
        if !(-4_000_000..=4_000_000).contains(&carry.last_key[p]) {
            return Err(format!(
                "damaged state file: player `{name}`'s last period is out of range"
            ));
        }
        if r.rounds > r.contests
            || r.wins as u64 + r.draws as u64 + r.losses as u64 != r.contests as u64
            || (r.contests > 0 && !time_ok(r.last_time))
            || carry
                .places
                .as_ref()
                .is_some_and(|pl| !pl[p].is_consistent() || pl[p].count() > u64::from(r.contests))
        {
            return Err(format!(
                "damaged state file: player `{name}`'s record is inconsistent"
            ));
        }
    }
    carry
        .metrics
        .check()
        .map_err(|e| format!("damaged state file: {e}"))?;
    if let Some((draws, three)) = &carry.outcomes {
        let mut m = Metrics::new();
        m.three = three.clone();
        m.check()
            .and_then(|()| draws.check())
            .map_err(|e| format!("damaged state file: {e}"))?;
    }
    let watermark_ok = meta.watermark.as_ref().is_none_or(|(t, _)| time_ok(*t));
    // Counts far beyond any history (2^40 rounds or contests) are damage.
    let counts_ok = carry.rounds_done < 1 << 40
        && carry.contests_done < 1 << 40
        && carry.warmup_contests < 1 << 40
        && carry.history_rows < 1 << 50;
    if !watermark_ok
        || !counts_ok
        || !meta.open_from.is_none_or(time_ok)
        || !meta.decay_per_day.is_finite()
        || carry.history_rows != meta.history_rows
    {
        return Err("damaged state file: its bookkeeping is inconsistent".into());
    }
    if let Some(r) = &carry.regression {
        r.check(carry.states.len())
            .map_err(|e| format!("damaged state file: {e}"))?;
    }
    Ok(())
}

/// A contest as messages name it: by its label, if it has one (the caller names its file and
/// line: its index here is after sorting, not a place in the input).
fn contest_name(c: &Contest) -> String {
    c.label()
        .map_or_else(|| "the contest".to_string(), |l| format!("contest `{l}`"))
}

/// How many times each digest occurs.
fn digest_counts(digests: &[u64]) -> rustc_hash::FxHashMap<u64, usize> {
    let mut counts = rustc_hash::FxHashMap::default();
    for &d in digests {
        *counts.entry(d).or_insert(0) += 1;
    }
    counts
}

/// Which contests of a resumed input the state applied before, contest by contest (a streamed
/// input is checked block by block). A digest applied k times skips its first k occurrences
/// only (a real rematch is new). A contest older than the watermark that was never applied is
/// an error naming it, unless the state left it for this run (the open round); so is a contest
/// that continues a series the state rated whole; and every contest the state left for this
/// run must be in the input ([`AppliedCheck::finish`]).
pub struct AppliedCheck<'m> {
    meta: &'m StateMeta,
    applied: rustc_hash::FxHashMap<u64, usize>,
    pending: rustc_hash::FxHashMap<u64, usize>,
    skipped: usize,
}

impl<'m> AppliedCheck<'m> {
    /// A check against the state described by `meta`.
    pub fn new(meta: &'m StateMeta) -> Self {
        Self {
            meta,
            applied: digest_counts(&meta.applied),
            pending: digest_counts(&meta.pending),
            skipped: 0,
        }
    }

    /// Whether contest `c` of `history` (whose digest is `digest`) was applied before, to be
    /// skipped; an error for one that cannot be resumed.
    pub fn contest(&mut self, history: &History, c: &Contest, digest: u64) -> Result<bool, String> {
        let meta = self.meta;
        if let Some(k) = self.applied.get_mut(&digest).filter(|k| **k > 0) {
            *k -= 1;
            self.skipped += 1;
            return Ok(true);
        }
        if let Some(k) = self.pending.get_mut(&digest).filter(|k| **k > 0) {
            *k -= 1;
        } else if let Some(name) = c.series().map(|s| history.series_name(s))
            && meta
                .closed_series
                .binary_search_by(|x| x.as_str().cmp(name))
                .is_ok()
        {
            return Err(format!(
                "{} of {} continues series `{name}`, which an earlier run rated \
                 whole (another series began after it): rating the new games apart would \
                 differ from a full replay; replay from scratch instead",
                contest_name(c),
                format_time(c.time()),
            ));
        } else if let Some((t, _)) = &meta.watermark
            && c.time() < *t
            && !meta.input_order
        {
            return Err(format!(
                "{} of {} is older than the state's last contest ({}) but was \
                 never applied: history cannot be rewritten by --resume (replay from \
                 scratch instead)",
                contest_name(c),
                format_time(c.time()),
                format_time(*t)
            ));
        }
        Ok(false)
    }

    /// Ends the check: how many contests were skipped, or an error if a contest the state
    /// left for this run was not in the input.
    pub fn finish(self) -> Result<usize, String> {
        let meta = self.meta;
        let missing: usize = self.pending.values().sum();
        if missing > 0 {
            let from = meta
                .open_from
                .map_or_else(String::new, |t| format!(" from {}", format_time(t)));
            return Err(format!(
                "{missing} contests of the open {} period{from} that the state left for this \
                 run are not in the input: give the input from that time on, or the whole \
                 history",
                meta.period
            ));
        }
        Ok(self.skipped)
    }
}

/// A stable 64-bit digest of a contest's content (FNV-1a over its fields), independent of
/// player ids and of the order of other contests.
pub fn contest_digest(history: &History, c: &Contest) -> u64 {
    contest_digest_named(history, c, |p| history.name(p))
}

/// [`contest_digest`] with the players' names from `name` (a streamed block holds only the
/// names of the players new in it).
pub fn contest_digest_named<'n>(
    history: &History,
    c: &Contest,
    name: impl Fn(crate::history::PlayerId) -> &'n str,
) -> u64 {
    let mut h = Fnv(0xcbf2_9ce4_8422_2325);
    h.bytes(&c.time().to_le_bytes());
    h.bytes(&c.weight().to_bits().to_le_bytes());
    h.text(c.label().unwrap_or(""));
    h.text(c.series().map_or("", |s| history.series_name(s)));
    for e in c.entries() {
        h.bytes(&e.lo.to_le_bytes());
        h.bytes(&e.hi.to_le_bytes());
        h.bytes(&e.score.map_or(u64::MAX, f64::to_bits).to_le_bytes());
        h.bytes(&(e.players.len() as u64).to_le_bytes());
        for &p in e.players {
            h.text(name(p));
        }
    }
    h.0
}

/// FNV-1a, 64 bits (from its offset basis).
struct Fnv(u64);

impl Fnv {
    fn bytes(&mut self, b: &[u8]) {
        for &x in b {
            self.0 ^= x as u64;
            self.0 = self.0.wrapping_mul(0x0000_0100_0000_01b3);
        }
    }
    fn text(&mut self, s: &str) {
        self.bytes(&(s.len() as u64).to_le_bytes());
        self.bytes(s.as_bytes());
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::history::{HistoryBuilder, SourceInfo};
    use crate::metrics::Metrics;
    use crate::record::PlayerRecord;

    // Exception to clippy::too_many_lines: one scenario and its published figures, read top
    // to bottom.
    #[allow(clippy::too_many_lines)]
    #[test]
    fn a_state_round_trips_and_damage_is_refused() {
        let meta = StateMeta {
            system: "elo".into(),
            params: "{\"k\":24}".into(),
            period: "day".into(),
            decay_per_day: 0.0,
            experienced_after: 5,
            players: vec!["a".into(), "b".into()],
            watermark: Some((86_400, Some("c1".into()))),
            applied: vec![1, 7, 7],
            history_rows: 20,
            pending: vec![3],
            open_from: Some(90_000),
            closed_series: vec!["s1".into()],
            skip_all_tied: false,
            // (Their defaults: an older version's file reads as made with them.)
            growth: String::new(),
            rating_period_days: None,
            input_order: false,
            asked: String::new(),
            from_input: String::new(),
            rules: String::new(),
        };
        let carry = Carry {
            states: vec![(1500.0, f64::NAN), (1400.0, 30.0)],
            records: vec![PlayerRecord::default(); 2],
            known: vec![true, false],
            last_key: vec![3, 4],
            metrics: Metrics::new(),
            rounds_done: 9,
            contests_done: 10,
            warmup_contests: 1,
            history_rows: 20,
            outcomes: None,
            places: None,
            base: None,
            season: None,
            regression: None,
        };
        let mut bytes = Vec::new();
        write_state(&mut bytes, &meta, &carry).unwrap();
        let file = StateFile::read(&mut bytes.as_slice()).unwrap();
        assert_eq!(file.meta, meta);
        let back: Carry<(f64, f64)> = file.carry().unwrap();
        assert_eq!(back.states[1], (1400.0, 30.0));
        assert!(back.states[0].1.is_nan(), "NaN survives (a binary format)");
        assert_eq!((back.rounds_done, back.history_rows), (9, 20));
        // Damage.
        assert!(StateFile::read(&mut &b"nonsense"[..]).is_err());
        let mut v10 = bytes.clone();
        v10[8] = 10;
        assert!(
            StateFile::read(&mut v10.as_slice())
                .unwrap_err()
                .contains("version 10")
        );
        // A version 3 file (no --skip-all-tied, --growth, --rating-period, --order, rules nor
        // the parameters asked and taken from the input in its meta, postcard's last seven
        // bytes here; no draw model, places, base rate, season or regression in its carry,
        // the carry's last five bytes) is read as made without the options, and resumes with
        // a fresh draw model and no places.
        let head = postcard::to_stdvec(&meta).unwrap();
        let head3 = &head[..head.len() - 7];
        let body = postcard::to_stdvec(&carry).unwrap();
        let body = &body[..body.len() - 5];
        let mut v3 = Vec::new();
        v3.extend_from_slice(MAGIC);
        v3.extend_from_slice(&3u32.to_le_bytes());
        v3.extend_from_slice(&(head3.len() as u64).to_le_bytes());
        v3.extend_from_slice(head3);
        v3.extend_from_slice(body);
        let sum = hash(&v3);
        v3.extend_from_slice(&sum.to_le_bytes());
        let old = StateFile::read(&mut v3.as_slice()).unwrap();
        assert_eq!(old.meta, meta, "read as without the option");
        assert_eq!(old.meta.growth(), "rounds", "the earlier versions' growth");
        let old_carry: Carry<(f64, f64)> = old.carry().unwrap();
        assert_eq!((old_carry.history_rows, old_carry.outcomes), (20, None));
        assert_eq!(old_carry.places, None);
        let mut tied = meta.clone();
        tied.skip_all_tied = true;
        let mut with = Vec::new();
        write_state(&mut with, &tied, &carry).unwrap();
        assert!(
            StateFile::read(&mut with.as_slice())
                .unwrap()
                .meta
                .skip_all_tied
        );
        // Any byte changed, or the file cut short: the checksum refuses it.
        for k in [12, 20, bytes.len() / 2, bytes.len() - 9, bytes.len() - 1] {
            let mut bad = bytes.clone();
            bad[k] ^= 0x10;
            assert!(
                StateFile::read(&mut bad.as_slice())
                    .unwrap_err()
                    .contains("checksum does not match"),
                "byte {k}"
            );
        }
        // A version 1 file (no pending contests) is still read.
        #[derive(Serialize)]
        struct V1<'a> {
            system: &'a str,
            params: &'a str,
            period: &'a str,
            decay_per_day: f64,
            experienced_after: u32,
            players: &'a [String],
            watermark: &'a Option<(i64, Option<String>)>,
            applied: &'a [u64],
            history_rows: u64,
        }
        let head = postcard::to_stdvec(&V1 {
            system: &meta.system,
            params: &meta.params,
            period: &meta.period,
            decay_per_day: meta.decay_per_day,
            experienced_after: meta.experienced_after,
            players: &meta.players,
            watermark: &meta.watermark,
            applied: &meta.applied,
            history_rows: meta.history_rows,
        })
        .unwrap();
        let body = postcard::to_stdvec(&carry).unwrap();
        let mut v1 = MAGIC.to_vec();
        v1.extend_from_slice(&1u32.to_le_bytes());
        v1.extend_from_slice(&(head.len() as u64).to_le_bytes());
        v1.extend_from_slice(&head);
        v1.extend_from_slice(&body);
        let old = StateFile::read(&mut v1.as_slice()).unwrap();
        assert_eq!(
            old.meta,
            StateMeta {
                pending: Vec::new(),
                open_from: None,
                closed_series: Vec::new(),
                ..meta.clone()
            }
        );
        assert_eq!(old.carry::<(f64, f64)>().unwrap().rounds_done, 9);
        let cut = &bytes[..bytes.len() - 3];
        assert!(StateFile::read(&mut &cut[..]).is_err());
        // A version 2 file (no checksum) cut short fails when its players are read.
        let mut v2 = bytes[..bytes.len() - 8].to_vec();
        v2[8] = 2;
        assert!(StateFile::read(&mut v2.as_slice()).is_ok());
        // (Cut into its counts: the three trailing fields of later versions are padded.)
        let cut = &v2[..v2.len() - 12];
        let file = StateFile::read(&mut &cut[..]).unwrap();
        assert!(file.carry::<(f64, f64)>().is_err());
    }

    /// A version 6 state of Glicko-2 (players of three numbers) is read with nothing pending
    /// beyond one period (the growth by counted rounds of that version); the new fields of
    /// a version 7 meta round-trip.
    #[test]
    fn a_version_6_glicko2_state_is_upgraded() {
        use crate::systems::glicko2::Glicko2Player;
        let meta = StateMeta {
            system: "glicko2".into(),
            params: "{}".into(),
            period: "game".into(),
            decay_per_day: 0.0,
            experienced_after: 5,
            players: vec!["a".into()],
            watermark: None,
            applied: vec![],
            history_rows: 1,
            pending: vec![],
            open_from: None,
            closed_series: vec![],
            skip_all_tied: false,
            growth: String::new(),
            rating_period_days: None,
            input_order: false,
            asked: String::new(),
            from_input: String::new(),
            rules: String::new(),
        };
        let old = Carry {
            states: vec![(1612.5, 87.25, 0.0599)],
            records: vec![PlayerRecord::default()],
            known: vec![true],
            last_key: vec![0],
            metrics: Metrics::new(),
            rounds_done: 1,
            contests_done: 1,
            warmup_contests: 0,
            history_rows: 1,
            outcomes: None,
            places: None,
            base: None,
            season: None,
            regression: None,
        };
        let head = postcard::to_stdvec(&meta).unwrap();
        let head6 = &head[..head.len() - 6];
        let mut v6 = MAGIC.to_vec();
        v6.extend_from_slice(&6u32.to_le_bytes());
        v6.extend_from_slice(&(head6.len() as u64).to_le_bytes());
        v6.extend_from_slice(head6);
        // (Version 6 carries end with the places: no base rate, no season, no regression.)
        let body = postcard::to_stdvec(&old).unwrap();
        v6.extend_from_slice(&body[..body.len() - 3]);
        let sum = hash(&v6);
        v6.extend_from_slice(&sum.to_le_bytes());
        let file = StateFile::read(&mut v6.as_slice()).unwrap();
        assert_eq!(file.meta.growth(), "rounds");
        let carry: Carry<Glicko2Player> = file.carry().unwrap();
        assert_eq!(
            carry.states,
            vec![Glicko2Player::new(1612.5, 87.25, 0.0599)]
        );
        assert_eq!(
            (carry.states[0].pending, carry.states[0].shown),
            (1.0, false)
        );
        // Version 7 keeps the new options.
        let new = StateMeta {
            growth: "fractional".into(),
            rating_period_days: Some(1.0 / 0.21436),
            input_order: true,
            asked: r#"{"advantage":"auto"}"#.into(),
            from_input: r#"{"advantage":{"points":61.5}}"#.into(),
            rules: r#"{"draws":"ignore","seasons":null}"#.into(),
            ..meta
        };
        // Version 8 keeps the draw policy, the seasons and the season in progress.
        let mut carry = carry;
        carry.season = Some(crate::seasons::SeasonMark {
            number: 3,
            name: Some("1931-32".into()),
            latest: 86_400,
        });
        let mut bytes = Vec::new();
        write_state(&mut bytes, &new, &carry).unwrap();
        let back = StateFile::read(&mut bytes.as_slice()).unwrap();
        assert_eq!(back.meta, new);
        let back = back.carry::<Glicko2Player>().unwrap();
        assert_eq!(back.states, carry.states);
        assert_eq!(back.season, carry.season);
    }

    #[test]
    fn values_a_replay_cannot_produce_are_refused() {
        use crate::systems::RatingSystem;
        use crate::systems::elo::{Elo, EloParams};
        let elo = Elo::new(EloParams::default()).unwrap();
        let meta = StateMeta {
            system: "elo".into(),
            params: "{}".into(),
            period: "day".into(),
            decay_per_day: 0.0,
            experienced_after: 5,
            players: vec!["a".into()],
            watermark: Some((86_400, None)),
            applied: vec![],
            history_rows: 2,
            pending: vec![],
            open_from: None,
            closed_series: vec![],
            skip_all_tied: false,
            growth: "time".into(),
            rating_period_days: None,
            input_order: false,
            asked: String::new(),
            from_input: String::new(),
            rules: String::new(),
        };
        let record = PlayerRecord {
            rounds: 1,
            contests: 1,
            wins: 1,
            last_time: 86_400,
            ..PlayerRecord::default()
        };
        let good = Carry {
            states: vec![elo.new_player()],
            records: vec![record],
            known: vec![true],
            last_key: vec![1],
            metrics: Metrics::new(),
            rounds_done: 1,
            contests_done: 1,
            warmup_contests: 0,
            history_rows: 2,
            outcomes: None,
            places: None,
            base: None,
            season: None,
            regression: None,
        };
        assert_eq!(check_values(&elo, &meta, &good), Ok(()));
        let bad = |f: &dyn Fn(&mut Carry<<Elo as crate::systems::RatingSystem>::Player>)| {
            let mut c = good.clone();
            f(&mut c);
            check_values(&elo, &meta, &c).unwrap_err()
        };
        assert!(bad(&|c| c.last_key[0] = i64::MIN).contains("last period"));
        assert!(bad(&|c| c.rounds_done = u64::MAX).contains("bookkeeping"));
        assert!(bad(&|c| c.records[0].wins = 2).contains("record"));
        assert!(bad(&|c| c.records[0].last_time = i64::MAX).contains("record"));
        assert!(bad(&|c| c.history_rows = 3).contains("bookkeeping"));
        // A regression owed by more players than the state has.
        let seasons = crate::seasons::Seasons {
            by: crate::seasons::SeasonBy::Column,
            regress: 0.5,
            mean: None,
        };
        let three = vec![elo.new_player(); 3];
        let owed = seasons.regression(&elo, &three, |_| true);
        assert!(bad(&|c| c.regression = owed.clone()).contains("regression between seasons"));
        let owed = seasons.regression(&elo, &three[..1], |_| true);
        let fine = Carry {
            regression: owed,
            ..good.clone()
        };
        assert_eq!(check_values(&elo, &meta, &fine), Ok(()));
    }

    #[test]
    fn digests_see_content_not_ids() {
        let build = |first: &str, swap: bool| {
            let mut b = HistoryBuilder::new();
            b.player(first);
            let (x, y) = (b.player("x"), b.player("y"));
            let (a, bb) = if swap { (y, x) } else { (x, y) };
            b.add_game(100, 1.0, None, (&[a], &[bb]), 1.0, None)
                .unwrap();
            b.finish(SourceInfo::default())
        };
        let d = |h: &History| contest_digest(h, &h.contest(0));
        // Other players interned first (other ids): same digest.
        assert_eq!(d(&build("q", false)), d(&build("r", false)));
        // Another winner: another digest.
        assert_ne!(d(&build("q", false)), d(&build("q", true)));
    }
}
