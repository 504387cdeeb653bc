//! The data model every reader produces and every system consumes.
//!
//! A [`History`] is a list of contests in chronological order. A contest is a list of entries
//! (a player or a team) with a 0-based rank range `lo..=hi` (a shared place when `lo < hi`), an
//! optional score (points, for the score-share Elo variants) and a contest weight. A two-player
//! game is a contest of two entries; a draw is a shared rank.
//!
//! Storage is flat (contests -> entries -> members in three arrays) so that a history of
//! millions of games costs about a hundred bytes per game and no allocation per game.

use rustc_hash::FxHashMap;

/// Dense player index, in order of first appearance in the input.
pub type PlayerId = u32;

/// What joins a player's name and his rating pool (`--pool-by`: a chess speed class, a
/// tennis surface) in the name a pooled history keeps for him: each (name, pool) is a player
/// of his own. A name or a pool holding it is refused when there are pools.
pub const POOL_SEP: char = '\u{1f}';

/// A player's name and his pool, if the history rates pools ([`POOL_SEP`]).
pub fn split_pool(name: &str) -> (&str, Option<&str>) {
    match name.split_once(POOL_SEP) {
        Some((n, pool)) => (n, Some(pool)),
        None => (name, None),
    }
}

const NONE: u32 = u32::MAX;

#[derive(Clone, Copy, Debug)]
struct ContestRec {
    time: i64,
    weight: f64,
    entry_start: u32,
    entry_end: u32,
    label: u32,
    series: u32,
    /// The season it belongs to (`--map season=COLUMN`), an index of [`History`]'s table.
    season: u32,
    /// The first entry played the first side (home, white, side a of a games file), not on
    /// neutral ground: the first-side advantage applies.
    first_side: bool,
    /// The entries' scores are a result written as points (a games file's result or winner
    /// column, a PGN's result): they say who won, not by how much.
    result_only: bool,
    /// Where the reader found it ([`HistoryBuilder::mark_origins`]); 0 when not said.
    origin: u64,
}

impl ContestRec {
    /// Every entry shares the first place (`entries`: the table its entries index).
    fn all_tied(&self, entries: &[EntryRec]) -> bool {
        let mine = &entries[self.entry_start as usize..self.entry_end as usize];
        mine.iter().all(|e| e.lo == mine[0].lo)
    }
}

#[derive(Clone, Copy, Debug)]
struct EntryRec {
    member_start: u32,
    member_end: u32,
    lo: u32,
    hi: u32,
    score: f64,
}

/// Counts a reader reports besides the contests themselves.
#[derive(Clone, Debug, Default, serde::Serialize)]
pub struct SourceInfo {
    /// The input path as given (for several files, the list or its ends).
    pub path: String,
    /// The files read, in turn, as a contest's origin numbers them (from 1).
    #[serde(skip)]
    pub origin_files: Vec<String>,
    /// With `--seed-from-pgn`: each player's rating tag at his first game (time, rating),
    /// by id.
    #[serde(skip)]
    pub rating_tags: Vec<Option<(i64, f64)>>,
    /// Files read, when more than one.
    #[serde(skip_serializing_if = "is_one_or_less")]
    pub files: usize,
    /// The format that read it.
    pub format: String,
    /// Records (rows, games, contests) read, including skipped ones.
    pub records: usize,
    /// What a record is for this format ("rows", "games", "contests").
    pub record_unit: String,
    /// Records skipped as invalid under `--skip-invalid`.
    pub skipped_invalid: usize,
    /// The first invalid records skipped, as their error messages (at most a few).
    pub skipped_examples: Vec<String>,
    /// Unplayed games, always skipped: PGN's result `*`, and games CSV rows whose result or
    /// scores are `NA` or empty (fixtures not yet played).
    pub skipped_unfinished: usize,
    /// Distinct player names with whitespace at their start or end (kept as given).
    #[serde(skip_serializing_if = "is_zero")]
    pub names_padded: usize,
    /// Of those, names equal to another player's name once the whitespace is removed (two
    /// players whose names differ only by padding), and the first such pair.
    #[serde(skip_serializing_if = "is_zero")]
    pub names_equal_when_trimmed: usize,
    /// The first pair of names equal once trimmed.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub names_equal_example: Option<(String, String)>,
    /// Contests dropped as repeats of one read before (`--dedupe`).
    #[serde(skip_serializing_if = "is_zero")]
    pub duplicates_dropped: u64,
    /// How the time column was read (CSV and Parquet), e.g. `auto: integers as YYYYMMDD
    /// dates (the first: 20230102)`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub time_format: Option<String>,
    /// The one time every contest has, when there are several and they all share it (a data
    /// set published without times, such as `time_seconds` 0 throughout): they are replayed
    /// in input order, and the outputs show that time.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub one_time: Option<i64>,
    /// The input has no times at all (a table without a time column): every contest is at
    /// the epoch, rated in the input's order, and the outputs leave their times empty.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub untimed: bool,
}

/// A count of 0, which the JSON leaves out.
pub(crate) fn is_zero<T: Default + PartialEq>(n: &T) -> bool {
    *n == T::default()
}

fn is_one_or_less(n: &usize) -> bool {
    *n <= 1
}

/// A player who arrives with a rating from elsewhere (`--initial-ratings`).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Seed {
    /// The player.
    pub player: PlayerId,
    /// The rating, in the system's units.
    pub rating: f64,
    /// Its standard deviation, if known.
    pub uncertainty: Option<f64>,
    /// The volatility (Glicko-2, Topcoder), if known.
    pub volatility: Option<f64>,
}

/// A whole contest history, contests sorted by time (stable: equal times keep input order).
#[derive(Clone, Debug, Default)]
pub struct History {
    names: Vec<String>,
    contests: Vec<ContestRec>,
    entries: Vec<EntryRec>,
    members: Vec<PlayerId>,
    /// Each member's share of the contest (partial play), parallel to `members`; empty when
    /// every member played it whole.
    weights: Vec<f64>,
    labels: Vec<String>,
    series: Vec<String>,
    seasons: Vec<String>,
    /// Index of the first contest: a block of a longer history (see [`History::block`])
    /// numbers its contests as the whole history does.
    offset: u32,
    /// Id of the first player in `names`: a block carries only the players new in it.
    names_offset: u32,
    /// Where the history came from.
    pub source: SourceInfo,
}

/// One entry (a player or a team) of a contest.
#[derive(Clone, Copy, Debug)]
pub struct Entry<'h> {
    /// The players of the entry (one unless it is a team).
    pub players: &'h [PlayerId],
    /// Best 0-based place covered by this entry.
    pub lo: u32,
    /// Worst 0-based place covered by this entry (`lo` unless the place is shared).
    pub hi: u32,
    /// Points scored, when the input gives them.
    pub score: Option<f64>,
    /// Each player's share of the contest (partial play), parallel to `players`; empty when
    /// every player of the entry played it whole.
    pub weights: &'h [f64],
}

impl Entry<'_> {
    /// The share of the contest the entry's `i`-th player played (1 unless partial).
    #[inline]
    pub fn weight(&self, i: usize) -> f64 {
        self.weights.get(i).copied().unwrap_or(1.0)
    }

    /// This entry's result against `other`: 1 if placed strictly better, 0 if strictly worse,
    /// 0.5 for a shared place.
    #[inline]
    pub fn outcome_against(&self, other: &Entry) -> f64 {
        if self.hi < other.lo {
            1.0
        } else if self.lo > other.hi {
            0.0
        } else {
            0.5
        }
    }
}

/// A contest, borrowed from its history.
#[derive(Clone, Copy, Debug)]
pub struct Contest<'h> {
    history: &'h History,
    index: u32,
    rec: ContestRec,
}

impl<'h> Contest<'h> {
    /// Index of the contest in the history (chronological order).
    pub fn index(&self) -> usize {
        self.index as usize
    }
    /// Unix seconds (UTC).
    pub fn time(&self) -> i64 {
        self.rec.time
    }
    /// The contest weight (1 unless the input says otherwise).
    pub fn weight(&self) -> f64 {
        self.rec.weight
    }
    /// Where the reader found the contest, as the reader encoded it
    /// ([`HistoryBuilder::mark_origins`]), if it said.
    pub fn origin(&self) -> Option<u64> {
        (self.rec.origin != 0).then_some(self.rec.origin)
    }
    /// The contest's name or id in the input, if it has one.
    pub fn label(&self) -> Option<&'h str> {
        (self.rec.label != NONE).then(|| self.history.labels[self.rec.label as usize].as_str())
    }
    /// The label's id (contests of one name share it), if any: a PGN game's event under
    /// `--period event`.
    pub fn label_id(&self) -> Option<u32> {
        (self.rec.label != NONE).then_some(self.rec.label)
    }
    /// The series id (games of one best-of-N share it), if any.
    pub fn series(&self) -> Option<u32> {
        (self.rec.series != NONE).then_some(self.rec.series)
    }
    /// The season the input names for it (its `season` column), if any.
    pub fn season(&self) -> Option<&'h str> {
        (self.rec.season != NONE).then(|| self.history.seasons[self.rec.season as usize].as_str())
    }
    /// Number of entries.
    pub fn len(&self) -> usize {
        (self.rec.entry_end - self.rec.entry_start) as usize
    }
    /// True when the contest has no entries (never produced by the readers).
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
    /// The i-th entry.
    #[inline]
    pub fn entry(&self, i: usize) -> Entry<'h> {
        let e = &self.history.entries[self.rec.entry_start as usize + i];
        let members = e.member_start as usize..e.member_end as usize;
        let weights = &self.history.weights;
        Entry {
            players: &self.history.members[members.clone()],
            lo: e.lo,
            hi: e.hi,
            score: (!e.score.is_nan()).then_some(e.score),
            weights: if weights.is_empty() || weights[members.clone()].iter().all(|&w| w == 1.0) {
                &[]
            } else {
                &weights[members]
            },
        }
    }
    /// The entries in input order.
    pub fn entries(&self) -> impl ExactSizeIterator<Item = Entry<'h>> + 'h {
        let c = *self;
        (0..c.len()).map(move |i| c.entry(i))
    }
    /// Every entry shares the first place (a drawn game; a standings of ties only).
    pub fn all_tied(&self) -> bool {
        self.rec.all_tied(&self.history.entries)
    }
    /// The contest is a game whose first entry played the first side (home, white, side a
    /// of a games file), not on neutral ground: the first-side advantage applies to it.
    #[inline]
    pub fn first_side(&self) -> bool {
        self.rec.first_side && self.len() == 2
    }
    /// The entries' scores are points that give a margin of victory, not a result written as
    /// points ([`HistoryBuilder::result_only_next`]).
    pub fn has_margin(&self) -> bool {
        !self.rec.result_only
    }
    /// Some player played only part of the contest (a member's weight is not 1).
    pub fn partial(&self) -> bool {
        !self.history.weights.is_empty() && self.entries().any(|e| !e.weights.is_empty())
    }
    /// Every player of the contest, entry by entry.
    #[inline]
    pub fn players(&self) -> &'h [PlayerId] {
        let first = &self.history.entries[self.rec.entry_start as usize];
        let last = &self.history.entries[self.rec.entry_end as usize - 1];
        &self.history.members[first.member_start as usize..last.member_end as usize]
    }
}

impl History {
    /// Number of contests (in this block, for a block).
    pub fn len(&self) -> usize {
        self.contests.len()
    }
    /// Index of the first contest: 0, or where a block begins in the whole history.
    pub fn first_index(&self) -> usize {
        self.offset as usize
    }
    /// One past the index of the last contest.
    pub fn end_index(&self) -> usize {
        self.offset as usize + self.contests.len()
    }
    /// True when there is no contest.
    pub fn is_empty(&self) -> bool {
        self.contests.is_empty()
    }
    /// Number of distinct players (up to the end of this block, for a block).
    pub fn player_count(&self) -> usize {
        self.names_offset as usize + self.names.len()
    }
    /// Id of the first player whose name this history holds: 0, or for a block from a
    /// streaming reader the first player new in it.
    pub fn first_named(&self) -> usize {
        self.names_offset as usize
    }
    /// Total number of (player, contest) placings.
    pub fn placings(&self) -> usize {
        self.members.len()
    }
    /// A player's name (one of [`History::first_named`] and after).
    pub fn name(&self, p: PlayerId) -> &str {
        &self.names[p as usize - self.names_offset as usize]
    }
    /// All names, indexed by player id (from [`History::first_named`] on).
    pub fn names(&self) -> &[String] {
        &self.names
    }
    /// A history of players only (no contest): what outputs need of a streamed input.
    pub fn players_only(names: Vec<String>, source: SourceInfo) -> History {
        History {
            names,
            source,
            ..History::default()
        }
    }
    /// The i-th contest in chronological order (`i` counted over the whole history: from
    /// [`History::first_index`] to [`History::end_index`]).
    #[inline]
    pub fn contest(&self, i: usize) -> Contest<'_> {
        Contest {
            history: self,
            index: i as u32,
            rec: self.contests[i - self.offset as usize],
        }
    }
    /// Contests in chronological order.
    pub fn contests(&self) -> impl ExactSizeIterator<Item = Contest<'_>> {
        (self.first_index()..self.end_index()).map(move |i| self.contest(i))
    }

    /// The contests `range` (indices of this history) as a history of their own, with every
    /// player, label and series of this one and the same contest indices: what a streaming
    /// reader hands to the replay one piece at a time.
    pub fn block(&self, range: std::ops::Range<usize>) -> History {
        let local = range.start - self.first_index()..range.end - self.first_index();
        let mut b = History {
            names: self.names.clone(),
            labels: self.labels.clone(),
            series: self.series.clone(),
            seasons: self.seasons.clone(),
            offset: range.start as u32,
            source: self.source.clone(),
            ..History::default()
        };
        for c in &self.contests[local] {
            b.push_contest(self, c);
        }
        b
    }
    /// Appends contest `c` of `src` with its entries, members and shares (renumbered into
    /// this history's arrays).
    fn push_contest(&mut self, src: &History, c: &ContestRec) {
        let start = self.entries.len() as u32;
        for e in &src.entries[c.entry_start as usize..c.entry_end as usize] {
            let ms = self.members.len() as u32;
            let range = e.member_start as usize..e.member_end as usize;
            copy_weights(
                &mut self.weights,
                self.members.len(),
                &src.weights,
                range.clone(),
            );
            self.members.extend_from_slice(&src.members[range]);
            self.entries.push(EntryRec {
                member_start: ms,
                member_end: self.members.len() as u32,
                ..*e
            });
        }
        self.contests.push(ContestRec {
            entry_start: start,
            entry_end: self.entries.len() as u32,
            ..*c
        });
    }
    /// The name of a series id.
    pub fn series_name(&self, s: u32) -> &str {
        &self.series[s as usize]
    }
    /// Number of distinct series ids (0 when the input has none).
    pub fn series_count(&self) -> usize {
        self.series.len()
    }
}

/// A round: contests rated together from the same pre-round ratings (one contest by default;
/// a series or a calendar period with `--period`).
#[derive(Clone, Copy, Debug)]
pub struct Round<'h> {
    history: &'h History,
    contests: &'h [u32],
}

impl<'h> Round<'h> {
    /// A round of the given contest indices (in replay order).
    pub fn new(history: &'h History, contests: &'h [u32]) -> Self {
        Self { history, contests }
    }
    /// The round's contests that `keep` keeps, their indices held in `into`.
    pub fn filtered<'a>(
        &self,
        keep: impl Fn(&Contest<'_>) -> bool,
        into: &'a mut Vec<u32>,
    ) -> Round<'a>
    where
        'h: 'a,
    {
        into.clear();
        into.extend(
            self.contests
                .iter()
                .copied()
                .filter(|&c| keep(&self.history.contest(c as usize))),
        );
        Round::new(self.history, into)
    }
    /// Number of contests in the round.
    pub fn len(&self) -> usize {
        self.contests.len()
    }
    /// True for a round without contests (never produced by the replay).
    pub fn is_empty(&self) -> bool {
        self.contests.is_empty()
    }
    /// The contests, in replay order.
    pub fn contests(&self) -> impl ExactSizeIterator<Item = Contest<'h>> + 'h {
        let h = self.history;
        self.contests.iter().map(move |&i| h.contest(i as usize))
    }
}

/// Why a contest was refused by [`HistoryBuilder::end_contest`].
#[derive(Clone, Debug, PartialEq)]
pub enum ContestError {
    /// The same player appears twice (a player against himself, or twice in one standings).
    DuplicatePlayer(String),
    /// A contest needs at least two entries to say anything.
    TooFewEntries(usize),
    /// A rank range that is reversed or beyond the number of entries.
    BadRankRange {
        /// The best place of the range.
        lo: u32,
        /// The worst place of the range.
        hi: u32,
        /// The contest's number of entries.
        entries: usize,
    },
}

impl std::error::Error for ContestError {}

impl std::fmt::Display for ContestError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ContestError::DuplicatePlayer(p) => {
                write!(f, "player `{p}` appears more than once in the contest")
            }
            ContestError::TooFewEntries(n) => {
                write!(f, "a contest needs at least two entries, this one has {n}")
            }
            ContestError::BadRankRange { lo, hi, entries } => write!(
                f,
                "rank range {lo}..{hi} is not a valid place among {entries} entries"
            ),
        }
    }
}

pub use crate::names::canonical_name;

/// Finds players by name in a side file (`--initial-ratings`, `--truth`, a matchmaking pool):
/// the name exactly as the history keeps it (after NFC), else, when no player has that
/// exact name, the name without its surrounding whitespace. So a side file typed with padding
/// finds its players, and a player whose name has padding (`Foo\t` beside `Foo`) is still
/// found exactly.
pub struct NameIndex<'n> {
    ids: FxHashMap<&'n str, PlayerId>,
    aliases: Option<std::sync::Arc<crate::names::Aliases>>,
}

impl<'n> NameIndex<'n> {
    /// Indexes names by id.
    pub fn new(names: &'n [String]) -> Self {
        Self {
            ids: names
                .iter()
                .enumerate()
                .map(|(i, n)| (n.as_str(), i as PlayerId))
                .collect(),
            aliases: None,
        }
    }

    /// Finds a name given as an alias under its player's name ([`crate::names::Aliases`]), as
    /// the readers keep it.
    pub fn with_aliases(mut self, aliases: Option<std::sync::Arc<crate::names::Aliases>>) -> Self {
        self.aliases = aliases;
        self
    }

    fn get(&self, name: &str) -> Option<PlayerId> {
        let name = self.aliases.as_ref().map_or(name, |a| a.resolve(name));
        self.ids.get(name).copied()
    }

    /// The player of a name as a side file gives it.
    pub fn find(&self, name: &str) -> Option<PlayerId> {
        self.get(&canonical_name(name)).or_else(|| {
            let trimmed = name.trim();
            (trimmed.len() != name.len() && !trimmed.is_empty())
                .then(|| self.get(&canonical_name(trimmed)))?
        })
    }
}

/// Counting: a contest's players looked up by a scan up to this many, then by hash.
const LIVE_SCAN: usize = 32;

fn fx_hash(name: &str) -> u64 {
    use std::hash::BuildHasher;
    rustc_hash::FxBuildHasher.hash_one(name)
}

/// Builds a [`History`]: interns player names, collects contests, sorts them by time.
#[derive(Default)]
pub struct HistoryBuilder {
    h: History,
    /// Each name's id by the name's hash ([`NameSlot`]).
    ids: hashbrown::HashTable<NameSlot>,
    /// Scratch for [`HistoryBuilder::pooled_player`]'s joined names.
    pooled_key: String,
    /// The ids of the labels, series and seasons by name (in this order).
    tag_ids: [FxHashMap<Box<str>, u32>; 3],
    open: Option<ContestRec>,
    /// Contests and players already handed over in blocks ([`HistoryBuilder::take_block`]).
    contests_taken: u32,
    names_taken: u32,
    /// Counting only ([`HistoryBuilder::counting`]), and the names of the open contest.
    count: Option<Count>,
    live: usize,
    /// Counting, a contest of [`LIVE_SCAN`] players or more: the first of the open contest's
    /// players with each 64-bit hash of a name (a name whose hash is held by another name is
    /// looked for by a scan, so a collision costs time, never a wrong id).
    live_index: FxHashMap<u64, u32>,
    /// Scratch for the duplicate check: per player id, the number of the last check that saw it.
    seen: Vec<u32>,
    checks: u32,
    /// Spellings of players mapped to the names kept ([`HistoryBuilder::set_aliases`]).
    aliases: Option<std::sync::Arc<crate::names::Aliases>>,
    /// Duplicate contests dropped ([`HistoryBuilder::dedupe`]).
    dedupe: Option<Dedupe>,
    /// Keep the contests in the order they were added ([`HistoryBuilder::keep_input_order`]).
    keep_order: bool,
    /// The name of the next game added ([`HistoryBuilder::name_next_game`]).
    next_label: Option<String>,
    /// The season of the next contest begun, interned ([`HistoryBuilder::season_of_next`];
    /// `None` for no season).
    next_season: Option<u32>,
    /// The next contest begun is a result written as points ([`HistoryBuilder::result_only_next`]).
    result_only_next: bool,
}

/// A name's id in the builder's table, with the name itself when it is short: a lookup then
/// reads one slot, where a map of boxed names read the slot, then the name far from it in
/// the heap (200,000 players: the lookups were half of the read, each a few cache misses).
#[derive(Clone, Copy)]
struct NameSlot {
    /// The name's bytes and its length in the last, or for a longer name its first bytes
    /// and [`LONG`] (compared in full with the names table).
    short: [u8; SHORT + 1],
    id: PlayerId,
}

/// The longest name kept whole in its [`NameSlot`].
const SHORT: usize = 15;
/// The length byte of a longer name's slot.
const LONG: u8 = u8::MAX;

impl NameSlot {
    fn key(name: &str) -> [u8; SHORT + 1] {
        let b = name.as_bytes();
        let mut key = [0; SHORT + 1];
        let n = b.len().min(SHORT);
        key[..n].copy_from_slice(&b[..n]);
        key[SHORT] = if b.len() <= SHORT {
            b.len() as u8
        } else {
            LONG
        };
        key
    }
}

/// What the builder knows of the contests kept, to drop a contest kept before.
#[derive(Default)]
struct Dedupe {
    /// Each contest's 128-bit digest (see [`HistoryBuilder::dedupe`]).
    seen: rustc_hash::FxHashSet<u128>,
    /// Forget the digests of earlier times when a later time comes (a time-ordered input).
    prune: bool,
    latest: Option<i64>,
    dropped: u64,
    /// What the reader gave of the next contest besides what the history keeps (a PGN game's
    /// moves).
    fingerprint: u64,
}

/// A contest's label, series or season field.
type Tag = fn(&mut ContestRec) -> &mut u32;

/// Moves the names a block's contests refer to (labels, series or seasons: the field `id` picks one)
/// into the block's own table, and interns those of the contests left in a new table of the
/// builder.
fn split_names<'c>(
    id: Tag,
    (block, block_table): (&mut [ContestRec], &mut Vec<String>),
    left: impl Iterator<Item = &'c mut ContestRec>,
    (table, ids): (&mut Vec<String>, &mut FxHashMap<Box<str>, u32>),
) {
    let old = std::mem::take(table);
    ids.clear();
    let mut local: FxHashMap<u32, u32> = FxHashMap::default();
    for c in block {
        let v = id(c);
        if *v != NONE {
            let next = block_table.len() as u32;
            *v = *local.entry(*v).or_insert_with(|| {
                block_table.push(old[*v as usize].clone());
                next
            });
        }
    }
    for c in left {
        let v = id(c);
        if *v != NONE {
            *v = intern(ids, table, &old[*v as usize]);
        }
    }
}

/// The id of `s` in `store` (`map` its ids by name), interned on first sight.
fn intern(map: &mut FxHashMap<Box<str>, u32>, store: &mut Vec<String>, s: &str) -> u32 {
    if let Some(&id) = map.get(s) {
        return id;
    }
    let id = store.len() as u32;
    store.push(s.to_owned());
    map.insert(s.into(), id);
    id
}

/// What a counting builder ([`HistoryBuilder::counting`]) learns of an input.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Count {
    /// Contests kept (valid).
    pub contests: u64,
    /// Contests before the cutoff (all of them without one).
    pub before_cutoff: u64,
    /// Of those, the contests in which every entry shares the first place (a drawn game):
    /// what `--skip-all-tied` leaves out.
    pub all_tied_before_cutoff: u64,
    /// The cutoff (Unix seconds, exclusive), if any.
    pub cutoff: Option<i64>,
    /// The latest time so far.
    pub latest: Option<i64>,
    /// The first contest earlier than one before it: its number among the contests kept
    /// (0-based), its time and the latest time before it.
    pub first_disorder: Option<(u64, i64, i64)>,
    /// Whether a contest belongs to a series.
    pub series: bool,
    /// Of the contests before the cutoff, those of two entries (games).
    pub games: u64,
    /// Drawn games among them.
    pub draws: u64,
    /// A contest of more than two entries was counted (TrueSkill's default draw margin).
    pub larger: bool,
}

impl Count {
    /// Counts a valid contest of time `time` (in a series or not) and `entries` entries.
    pub(crate) fn add(&mut self, time: i64, series: bool, all_tied: bool, entries: u32) {
        if let Some(latest) = self.latest
            && time < latest
            && self.first_disorder.is_none()
        {
            self.first_disorder = Some((self.contests, time, latest));
        }
        self.latest = Some(self.latest.map_or(time, |l| l.max(time)));
        self.contests += 1;
        let before = self.cutoff.is_none_or(|c| time < c);
        self.before_cutoff += u64::from(before);
        self.all_tied_before_cutoff += u64::from(before && all_tied);
        if before {
            self.games += u64::from(entries == 2);
            self.draws += u64::from(entries == 2 && all_tied);
            self.larger |= entries > 2;
        }
        self.series |= series;
    }
}

impl HistoryBuilder {
    /// A new, empty builder.
    pub fn new() -> Self {
        Self::default()
    }

    /// Players named by an alias are kept under the alias's player ([`crate::names`]) from
    /// now on.
    pub fn set_aliases(&mut self, aliases: Option<std::sync::Arc<crate::names::Aliases>>) {
        self.aliases = aliases.filter(|a| !a.is_empty());
    }

    /// Drops, from now on, every contest that repeats one kept before: the same time, weight,
    /// label, series and first side, the same entries (players by name, with their shares,
    /// places and points; in any order unless the first entry plays the first side), and the
    /// same [`fingerprint`](Self::fingerprint). Contests are compared by a 128-bit digest of
    /// these (two different contests share one with a chance far below one in 10^20 for a
    /// billion contests). With `prune`, for an input known to come in time order, digests are
    /// forgotten once a later time comes (a repeat has the time of the contest it repeats), so
    /// that memory does not grow with the input.
    pub fn dedupe(&mut self, prune: bool) {
        self.dedupe = Some(Dedupe {
            prune,
            ..Dedupe::default()
        });
    }

    /// The contests dropped as repeats ([`dedupe`](Self::dedupe)).
    pub fn duplicates_dropped(&self) -> u64 {
        self.dedupe.as_ref().map_or(0, |d| d.dropped)
    }

    /// What the reader knows of the next contest besides what the history keeps, for
    /// [`dedupe`](Self::dedupe) (a digest of a PGN game's moves): contests that differ in it
    /// are not repeats.
    pub fn fingerprint(&mut self, fingerprint: u64) {
        if let Some(d) = &mut self.dedupe {
            d.fingerprint = fingerprint;
        }
    }

    /// The digest of a contest for [`dedupe`](Self::dedupe).
    fn digest(&self, rec: &ContestRec, fingerprint: u64) -> u128 {
        use std::hash::{Hash, Hasher};
        struct Two(rustc_hash::FxHasher, std::hash::DefaultHasher);
        impl Two {
            fn new() -> Self {
                Self(
                    rustc_hash::FxHasher::default(),
                    std::hash::DefaultHasher::new(),
                )
            }
            fn add<T: Hash + ?Sized>(&mut self, v: &T) {
                v.hash(&mut self.0);
                v.hash(&mut self.1);
            }
            fn done(&self) -> u128 {
                (u128::from(self.0.finish()) << 64) | u128::from(self.1.finish())
            }
        }
        let h = &self.h;
        let mut entries: Vec<u128> = h.entries[rec.entry_start as usize..rec.entry_end as usize]
            .iter()
            .map(|e| {
                let mut t = Two::new();
                t.add(&(e.lo, e.hi, e.score.to_bits()));
                for m in e.member_start as usize..e.member_end as usize {
                    t.add(h.names[h.members[m] as usize].as_str());
                    t.add(&h.weights.get(m).copied().unwrap_or(1.0).to_bits());
                }
                t.done()
            })
            .collect();
        if !rec.first_side {
            entries.sort_unstable();
        }
        let mut t = Two::new();
        t.add(&(rec.time, rec.weight.to_bits(), rec.first_side, fingerprint));
        let name = |table: &[String], id: u32| (id != NONE).then(|| table[id as usize].clone());
        t.add(&name(&h.labels, rec.label));
        t.add(&name(&h.series, rec.series));
        t.add(&entries);
        t.done()
    }

    /// With [`dedupe`](Self::dedupe): whether a valid contest repeats one kept before (and
    /// is to be dropped); else false.
    fn repeats(&mut self, rec: &ContestRec) -> bool {
        let Some(d) = &self.dedupe else {
            return false;
        };
        let digest = self.digest(rec, d.fingerprint);
        let d = self.dedupe.as_mut().expect("dedupe is on");
        d.fingerprint = 0;
        if d.prune && d.latest.is_some_and(|t| rec.time > t) {
            d.seen.clear();
        }
        d.latest = Some(d.latest.map_or(rec.time, |t| t.max(rec.time)));
        if d.seen.insert(digest) {
            false
        } else {
            d.dropped += 1;
            true
        }
    }

    /// A builder whose first players are `names`, in this order (ids 0, 1, ...), so that a
    /// resumed replay keeps its players' ids.
    pub fn with_players(names: &[String]) -> Self {
        let mut b = Self::new();
        for n in names {
            b.player(n);
        }
        b
    }

    /// A builder with `n` players (ids 0..n) that have no names, for histories that only a
    /// rating system reads (the simulations build one per round for up to millions of
    /// players): no name is stored or interned, so `player` cannot find these ids.
    pub fn unnamed(n: usize) -> Self {
        let mut b = Self::new();
        b.h.names = vec![String::new(); n];
        b
    }

    /// A builder that keeps no contest and no player, only counts the contests a reader gives
    /// it (those before `cutoff` apart) and notes whether they come in time order: the cheap
    /// first pass of a streamed input. Players are interned one contest at a time (so that a
    /// player twice in one contest is still refused), then forgotten.
    pub fn counting(cutoff: Option<i64>) -> Self {
        Self {
            count: Some(Count {
                cutoff,
                ..Count::default()
            }),
            ..Self::default()
        }
    }

    /// What a counting builder has counted.
    pub fn count(&self) -> Option<&Count> {
        self.count.as_ref()
    }

    /// Hands over the first `n` contests kept (which must be in time order, and whole rounds
    /// of the replay) as a block ([`History::block`]'s kind): its contests numbered after
    /// those handed over before, its names those of the players new since the last block.
    pub fn take_block(&mut self, n: usize) -> History {
        let h = &mut self.h;
        let n = n.min(h.contests.len());
        let entries_end = n
            .checked_sub(1)
            .map_or(0, |i| h.contests[i].entry_end as usize);
        let members_end = entries_end
            .checked_sub(1)
            .map_or(0, |i| h.entries[i].member_end as usize);
        let mut block = History {
            names: h.names[self.names_taken as usize..].to_vec(),
            names_offset: self.names_taken,
            offset: self.contests_taken,
            contests: h.contests.drain(..n).collect(),
            entries: h.entries.drain(..entries_end).collect(),
            members: h.members.drain(..members_end).collect(),
            // (The shares are as many as the members, or none.)
            weights: h
                .weights
                .drain(..members_end.min(h.weights.len()))
                .collect(),
            ..History::default()
        };
        debug_assert!(block.contests.windows(2).all(|w| w[0].time <= w[1].time));
        for c in &mut h.contests {
            c.entry_start -= entries_end as u32;
            c.entry_end -= entries_end as u32;
        }
        for e in &mut h.entries {
            e.member_start -= members_end as u32;
            e.member_end -= members_end as u32;
        }
        if let Some(open) = &mut self.open {
            open.entry_start -= entries_end as u32;
        }
        // Labels, series and season names go with their contests; the builder starts new tables for
        // those left.
        let tables: [(Tag, _, _); 3] = [
            (|c| &mut c.label, &mut block.labels, &mut h.labels),
            (|c| &mut c.series, &mut block.series, &mut h.series),
            (|c| &mut c.season, &mut block.seasons, &mut h.seasons),
        ];
        for ((id, block_table, table), ids) in tables.into_iter().zip(&mut self.tag_ids) {
            split_names(
                id,
                (&mut block.contests, block_table),
                h.contests.iter_mut().chain(self.open.as_mut()),
                (table, ids),
            );
        }
        self.contests_taken += n as u32;
        self.names_taken = h.names.len() as u32;
        block
    }

    /// Every player's name, by id (what a streaming reader keeps to the end).
    pub fn into_names(self) -> Vec<String> {
        self.h.names
    }

    /// Contests kept and not yet handed over in a block.
    pub fn pending(&self) -> usize {
        self.h.contests.len()
    }

    /// The time of the `i`-th contest not yet handed over.
    pub fn pending_time(&self, i: usize) -> i64 {
        self.h.contests[i].time
    }

    /// The series of the `i`-th contest not yet handed over, if it has one.
    pub fn pending_series(&self, i: usize) -> Option<&str> {
        self.h.contest(i).series().map(|s| self.h.series_name(s))
    }

    /// The entries (each its players) of the `i`-th contest not yet handed over.
    pub fn pending_entries(&self, i: usize) -> Vec<&[PlayerId]> {
        self.h.contest(i).entries().map(|e| e.players).collect()
    }

    /// The players of the `i`-th contest not yet handed over, entry by entry (the builder
    /// keeps no contest of fewer than two entries).
    pub fn pending_players(&self, i: usize) -> &[PlayerId] {
        self.h.contest(i).players()
    }

    /// The id of a player name, interned on first sight. The name is kept in Unicode
    /// normalisation form C ([`canonical_name`]) and otherwise exactly as given: its
    /// whitespace is not trimmed here (the readers remove it only under `--trim-names`). The
    /// name must already be validated (non-empty).
    pub fn player(&mut self, name: &str) -> PlayerId {
        let name = &*canonical_name(name);
        if let Some(a) = &self.aliases {
            let kept = a.resolve(name);
            if kept.len() != name.len() || kept != name {
                let kept = kept.to_owned();
                return self.interned(&kept);
            }
        }
        self.interned(name)
    }

    /// [`player`](Self::player) in a rating pool: the player of this name (canonical, its
    /// alias applied) in `pool`, a player apart from him in any other pool ([`POOL_SEP`]).
    pub fn pooled_player(&mut self, name: &str, pool: &str) -> PlayerId {
        let name = &*canonical_name(name);
        let kept = self.aliases.as_ref().map_or(name, |a| a.resolve(name));
        // The joined name built in a buffer kept from call to call.
        let mut key = std::mem::take(&mut self.pooled_key);
        key.clear();
        key.push_str(kept);
        key.push(POOL_SEP);
        key.push_str(pool);
        let id = self.interned(&key);
        self.pooled_key = key;
        id
    }

    /// [`player`](Self::player) of a name already canonical, aliases applied.
    fn interned(&mut self, name: &str) -> PlayerId {
        if self.count.is_some() {
            return self.contest_player(name);
        }
        let names = &self.h.names;
        let key = NameSlot::key(name);
        let entry = self.ids.entry(
            fx_hash(name),
            |s| s.short == key && (key[SHORT] != LONG || names[s.id as usize] == name),
            |s| fx_hash(&names[s.id as usize]),
        );
        match entry {
            hashbrown::hash_table::Entry::Occupied(e) => e.get().id,
            hashbrown::hash_table::Entry::Vacant(e) => {
                let id = names.len() as PlayerId;
                e.insert(NameSlot { short: key, id });
                self.h.names.push(name.to_owned());
                id
            }
        }
    }

    /// Counting: the id of a name among the open contest's players (reusing the names'
    /// buffers from one contest to the next: no allocation once they are long enough). A
    /// contest's first [`LIVE_SCAN`] players are looked up by a scan, the rest through
    /// `live_index`: a contest of a million entries costs a million lookups, not a scan each.
    fn contest_player(&mut self, name: &str) -> PlayerId {
        let live = self.live;
        let names = &mut self.h.names;
        // `None`: looked for by a scan (few players so far, or a hash another name shares).
        let hash = if live < LIVE_SCAN {
            None
        } else {
            if self.live_index.is_empty() {
                for (i, n) in names[..live].iter().enumerate() {
                    self.live_index.entry(fx_hash(n)).or_insert(i as u32);
                }
            }
            let h = fx_hash(name);
            match self.live_index.get(&h) {
                Some(&i) if names[i as usize] == name => return i as PlayerId,
                Some(_) => None,
                None => Some(h),
            }
        };
        if hash.is_none()
            && let Some(i) = names[..live].iter().position(|n| n == name)
        {
            return i as PlayerId;
        }
        match names.get_mut(live) {
            Some(slot) => {
                slot.clear();
                slot.push_str(name);
            }
            None => names.push(name.to_owned()),
        }
        if let Some(h) = hash {
            self.live_index.entry(h).or_insert(live as u32);
        }
        self.live += 1;
        live as PlayerId
    }

    /// Starts a contest. `label` names it (a contest id or title); `series` groups games of a
    /// best-of-N. Entries follow with [`add_entry`](Self::add_entry).
    pub fn begin_contest(
        &mut self,
        time: i64,
        weight: f64,
        label: Option<&str>,
        series: Option<&str>,
    ) {
        let label = label.map_or(NONE, |l| {
            intern(&mut self.tag_ids[0], &mut self.h.labels, l)
        });
        let series = series.map_or(NONE, |s| {
            intern(&mut self.tag_ids[1], &mut self.h.series, s)
        });
        let season = self.next_season.take().unwrap_or(NONE);
        let start = self.h.entries.len() as u32;
        self.open = Some(ContestRec {
            time,
            weight,
            entry_start: start,
            entry_end: start,
            label,
            series,
            season,
            first_side: false,
            result_only: std::mem::take(&mut self.result_only_next),
            origin: 0,
        });
    }

    /// Marks the open contest as a game whose first entry plays the first side (home, white,
    /// side a of a games file), not on neutral ground: a system with a first-side advantage
    /// gives it to that entry. A contest of more or fewer than two entries is never one.
    pub fn set_first_side(&mut self) {
        if let Some(open) = &mut self.open {
            open.first_side = true;
        }
    }

    /// Adds an entry to the open contest.
    pub fn add_entry(&mut self, players: &[PlayerId], lo: u32, hi: u32, score: Option<f64>) {
        self.add_weighted_entry(players, &[], lo, hi, score);
    }

    /// Adds an entry whose players played the shares `weights` of the contest (partial
    /// play; parallel to `players`, each finite and within [0, 1]; empty: all whole).
    pub fn add_weighted_entry(
        &mut self,
        players: &[PlayerId],
        weights: &[f64],
        lo: u32,
        hi: u32,
        score: Option<f64>,
    ) {
        debug_assert!(weights.is_empty() || weights.len() == players.len());
        let h = &mut self.h;
        copy_weights(&mut h.weights, h.members.len(), weights, 0..players.len());
        let member_start = h.members.len() as u32;
        h.members.extend_from_slice(players);
        h.entries.push(EntryRec {
            member_start,
            member_end: h.members.len() as u32,
            lo,
            hi,
            score: score.unwrap_or(f64::NAN),
        });
    }

    /// Validates and keeps the open contest; on error the contest is dropped and the builder
    /// stays usable (for `--skip-invalid`).
    pub fn end_contest(&mut self) -> Result<(), ContestError> {
        let mut rec = self.open.take().expect("end_contest without begin_contest");
        rec.entry_end = self.h.entries.len() as u32;
        let n = (rec.entry_end - rec.entry_start) as usize;
        let result = self.check(&rec, n);
        let repeat = result.is_ok() && self.repeats(&rec);
        match &mut self.count {
            None if result.is_ok() && !repeat => self.h.contests.push(rec),
            None => self.discard(&rec),
            Some(count) => {
                if result.is_ok() && !repeat {
                    let all_tied = rec.all_tied(&self.h.entries);
                    count.add(rec.time, rec.series != NONE, all_tied, n as u32);
                }
                self.forget();
            }
        }
        result
    }

    /// Every player's name so far, by id.
    pub fn names(&self) -> &[String] {
        &self.h.names
    }

    /// Counting: the contest's entries and players are forgotten.
    fn forget(&mut self) {
        let h = &mut self.h;
        h.entries.clear();
        h.members.clear();
        h.weights.clear();
        self.live = 0;
        self.live_index.clear();
        h.labels.clear();
        h.series.clear();
        h.seasons.clear();
        self.ids.clear();
        self.tag_ids.iter_mut().for_each(FxHashMap::clear);
    }

    fn discard(&mut self, rec: &ContestRec) {
        let first_member = self
            .h
            .entries
            .get(rec.entry_start as usize)
            .map_or(self.h.members.len(), |e| e.member_start as usize);
        self.h.entries.truncate(rec.entry_start as usize);
        self.h.members.truncate(first_member);
        self.h.weights.truncate(first_member);
    }

    fn check(&mut self, rec: &ContestRec, n: usize) -> Result<(), ContestError> {
        if n < 2 {
            return Err(ContestError::TooFewEntries(n));
        }
        let entries = &self.h.entries[rec.entry_start as usize..rec.entry_end as usize];
        let range = |e: &EntryRec| {
            if e.lo > e.hi || e.hi as usize >= n {
                return Err(ContestError::BadRankRange {
                    lo: e.lo,
                    hi: e.hi,
                    entries: n,
                });
            }
            Ok(())
        };
        let twice = |p| {
            Err(ContestError::DuplicatePlayer(
                self.h.names[p as usize].clone(),
            ))
        };
        // A game of two players: the two compared (no stamp fetched from far in memory).
        if let [a, b] = entries
            && a.member_end == a.member_start + 1
            && b.member_end == b.member_start + 1
        {
            range(a)?;
            range(b)?;
            let pa = self.h.members[a.member_start as usize];
            if pa == self.h.members[b.member_start as usize] {
                return twice(pa);
            }
            return Ok(());
        }
        self.checks += 1;
        let stamp = self.checks;
        if self.seen.len() < self.h.names.len() {
            self.seen.resize(self.h.names.len(), 0);
        }
        for e in entries {
            range(e)?;
            for &p in &self.h.members[e.member_start as usize..e.member_end as usize] {
                let slot = &mut self.seen[p as usize];
                if *slot == stamp {
                    return twice(p);
                }
                *slot = stamp;
            }
        }
        Ok(())
    }

    /// The name of an interned player.
    pub fn name(&self, p: PlayerId) -> &str {
        &self.h.names[p as usize]
    }

    /// Adds a two-sided game as a contest: `score_a` is side a's result (above 1/2 a win, 1/2
    /// a draw, below a loss), `points` the points of each side when known. Side a plays the
    /// first side (home, white): see [`add_game_with`](Self::add_game_with) for a game without
    /// one, or with members' shares.
    pub fn add_game(
        &mut self,
        time: i64,
        weight: f64,
        series: Option<&str>,
        sides: (&[PlayerId], &[PlayerId]),
        score_a: f64,
        points: Option<(f64, f64)>,
    ) -> Result<(), ContestError> {
        self.add_game_with(
            true,
            time,
            weight,
            series,
            sides,
            (&[], &[]),
            score_a,
            points,
        )
    }

    /// [`add_game`](Self::add_game), side a playing the first side only with `first_side`
    /// (not on neutral ground, nor in a file of winners and losers), each side's players with
    /// their shares of the game (`weights`: partial play, parallel to the side's players;
    /// empty for whole).
    #[allow(clippy::too_many_arguments)]
    pub fn add_game_with(
        &mut self,
        first_side: bool,
        time: i64,
        weight: f64,
        series: Option<&str>,
        (a, b): (&[PlayerId], &[PlayerId]),
        (wa, wb): (&[f64], &[f64]),
        score_a: f64,
        points: Option<(f64, f64)>,
    ) -> Result<(), ContestError> {
        let (place_a, place_b) = if score_a > 0.5 {
            ((0, 0), (1, 1))
        } else if score_a < 0.5 {
            ((1, 1), (0, 0))
        } else {
            ((0, 1), (0, 1))
        };
        let label = self.next_label.take();
        self.begin_contest(time, weight, label.as_deref(), series);
        self.add_weighted_entry(a, wa, place_a.0, place_a.1, points.map(|p| p.0));
        self.add_weighted_entry(b, wb, place_b.0, place_b.1, points.map(|p| p.1));
        if first_side {
            self.set_first_side();
        }
        self.end_contest()
    }

    /// Names the next game added (its event, under `--period event`).
    pub fn name_next_game(&mut self, label: &str) {
        self.next_label = Some(label.to_owned());
    }

    /// The next contest begun is a result written as points (1-0, ½-½): its scores say who
    /// won, not by how much ([`Contest::has_margin`]).
    pub fn result_only_next(&mut self) {
        self.result_only_next = true;
    }

    /// The season of the next contest begun (`--map season=COLUMN`).
    pub fn season_of_next(&mut self, season: &str) {
        let id = intern(&mut self.tag_ids[2], &mut self.h.seasons, season);
        self.next_season = Some(id);
    }

    /// Says where the contests kept from the `from`-th on were found (a reader's encoding of
    /// its file and line or row, not 0), for those not said before: errors found after the
    /// contests are sorted can name it ([`Contest::origin`]).
    pub fn mark_origins(&mut self, from: usize, origin: u64) {
        for c in self.h.contests.iter_mut().skip(from) {
            if c.origin == 0 {
                c.origin = origin;
            }
        }
    }

    /// Keeps the contests in the order they are added: [`HistoryBuilder::finish`] does not
    /// sort them by time (a server's log that lists games as they were rated).
    pub fn keep_input_order(&mut self) {
        self.keep_order = true;
    }

    /// Sorts contests by time (stable, unless told to keep the input's order) and returns the
    /// history.
    pub fn finish(mut self, source: SourceInfo) -> History {
        let ids = std::mem::take(&mut self.ids);
        let n = ids.len();
        crate::drop_aside(ids, n);
        let h = &mut self.h;
        h.source = source;
        if let [first, rest @ ..] = &h.contests[..]
            && !rest.is_empty()
            && !h.source.untimed
            && rest.iter().all(|c| c.time == first.time)
        {
            h.source.one_time = Some(first.time);
        }
        if self.keep_order || h.contests.windows(2).all(|w| w[0].time <= w[1].time) {
            return self.h;
        }
        // Stable sort of the contests, then rebuild entries and members in the new order so
        // that a contest's entries stay contiguous and the arrays stay in time order.
        let mut order: Vec<u32> = (0..h.contests.len() as u32).collect();
        order.sort_by_key(|&i| h.contests[i as usize].time);
        let mut sorted = History {
            contests: Vec::with_capacity(h.contests.len()),
            entries: Vec::with_capacity(h.entries.len()),
            members: Vec::with_capacity(h.members.len()),
            ..History::default()
        };
        for &i in &order {
            sorted.push_contest(h, &h.contests[i as usize]);
        }
        (h.contests, h.entries, h.members, h.weights) = (
            sorted.contests,
            sorted.entries,
            sorted.members,
            sorted.weights,
        );
        self.h
    }
}

/// Appends to `dst` (the weights of `dst_members` members so far, empty while all are 1) the
/// weights `src[range]` (`src` empty: all 1).
fn copy_weights(
    dst: &mut Vec<f64>,
    dst_members: usize,
    src: &[f64],
    range: std::ops::Range<usize>,
) {
    if src.is_empty() {
        if !dst.is_empty() {
            dst.resize(dst_members + range.len(), 1.0);
        }
    } else if !dst.is_empty() || src[range.clone()].iter().any(|&w| w != 1.0) {
        dst.resize(dst_members, 1.0);
        dst.extend_from_slice(&src[range]);
    }
}

/// Turns ranks (1 = best, equal = tie, any positive integers) into 0-based place ranges:
/// the entries sharing a rank cover the places after every entry with a better rank.
/// `1,1,3` and `1,1,2` both give `0..=1, 0..=1, 2..=2`.
pub fn ranks_to_ranges(ranks: &[u64]) -> Vec<(u32, u32)> {
    let mut sorted: Vec<u64> = ranks.to_vec();
    sorted.sort_unstable();
    ranks
        .iter()
        .map(|r| {
            let lo = sorted.partition_point(|x| x < r);
            let hi = sorted.partition_point(|x| x <= r) - 1;
            (lo as u32, hi as u32)
        })
        .collect()
}

/// Builds a history of games `(time, a, b, a's score, series)` (for tests).
#[cfg(test)]
pub(crate) fn games(list: &[(i64, &str, &str, f64, Option<&str>)]) -> History {
    let mut b = HistoryBuilder::new();
    for &(t, x, y, s, series) in list {
        let (x, y) = (b.player(x), b.player(y));
        b.add_game(t, 1.0, series, (&[x], &[y]), s, None).unwrap();
    }
    b.finish(SourceInfo::default())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn game(b: &mut HistoryBuilder, t: i64, x: &str, y: &str) -> Result<(), ContestError> {
        let (x, y) = (b.player(x), b.player(y));
        b.add_game(t, 1.0, None, (&[x], &[y]), 1.0, None)
    }

    #[test]
    fn side_files_find_names_exactly_else_trimmed() {
        let names: Vec<String> = ["Foo", "Foo\t", "\u{a0}", "Zoë"]
            .iter()
            .map(std::string::ToString::to_string)
            .collect();
        let idx = NameIndex::new(&names);
        assert_eq!(idx.find("Foo"), Some(0));
        assert_eq!(idx.find("Foo\t"), Some(1), "exact beats trimmed");
        assert_eq!(idx.find(" Foo "), Some(0), "padding typed in the side file");
        assert_eq!(idx.find("\u{a0}"), Some(2));
        assert_eq!(idx.find("Zoe\u{308}"), Some(3), "NFC");
        assert_eq!(idx.find(" "), None);
        assert_eq!(idx.find("Bar"), None);
    }

    #[test]
    fn sorts_stably_by_time_and_keeps_entries_together() {
        let mut b = HistoryBuilder::new();
        game(&mut b, 20, "a", "b").unwrap();
        game(&mut b, 10, "c", "d").unwrap();
        game(&mut b, 20, "e", "f").unwrap();
        game(&mut b, 10, "g", "h").unwrap();
        let h = b.finish(SourceInfo::default());
        let order: Vec<&str> = h
            .contests()
            .map(|c| h.name(c.entry(0).players[0]))
            .collect();
        assert_eq!(order, ["c", "g", "a", "e"]);
        let c = h.contest(3);
        assert_eq!(h.name(c.entry(1).players[0]), "f");
        assert_eq!(c.players().len(), 2);
        assert_eq!(h.player_count(), 8);
    }

    /// Names kept whole in their slot, names longer than a slot and names a slot's prefix or
    /// padding could confuse each get their own id, and the same id when met again.
    #[test]
    fn names_long_short_and_alike_are_told_apart() {
        let names = [
            "a",
            "a\0",
            "fifteen_bytes_x",
            "fifteen_bytes_xy",
            "fifteen_bytes_xz",
            "fifteen_bytes_x\u{1f}blitz",
            "",
        ];
        let mut b = HistoryBuilder::new();
        let ids: Vec<PlayerId> = names.iter().map(|n| b.player(n)).collect();
        assert_eq!(ids, (0..names.len() as PlayerId).collect::<Vec<_>>());
        for (n, &id) in names.iter().zip(&ids).rev() {
            assert_eq!(b.player(n), id, "{n:?}");
            assert_eq!(b.name(id), *n);
        }
        assert_eq!(b.pooled_player("fifteen_bytes_x", "blitz"), ids[5]);
        assert_eq!(b.pooled_player("a", "blitz"), names.len() as PlayerId);
    }

    /// A counting builder's ids within a contest past the scanned first players (looked up by
    /// hash): the same name the same id at any distance, and a repeat refused as a whole
    /// read refuses it; the next contest starts afresh.
    #[test]
    fn counting_finds_a_large_contests_players_by_hash() {
        let names: Vec<String> = (0..5_000).map(|i| format!("p{i}")).collect();
        let mut counting = HistoryBuilder::counting(None);
        let mut whole = HistoryBuilder::new();
        for b in [&mut counting, &mut whole] {
            // Contest 1: every name once; contest 2: the 4,000th repeats the 40th.
            for repeat in [false, true] {
                b.begin_contest(1, 1.0, None, None);
                let mut ids = Vec::new();
                for (k, n) in names.iter().enumerate() {
                    let n = if repeat && k == 4_000 { &names[40] } else { n };
                    let id = b.player(n);
                    b.add_entry(&[id], k as u32, k as u32, None);
                    ids.push(id);
                }
                if repeat {
                    assert_eq!(ids[4_000], ids[40]);
                    assert_eq!(
                        b.end_contest(),
                        Err(ContestError::DuplicatePlayer("p40".into()))
                    );
                } else {
                    assert_eq!(
                        ids.iter().collect::<rustc_hash::FxHashSet<_>>().len(),
                        5_000
                    );
                    b.end_contest().unwrap();
                }
            }
        }
        assert_eq!(counting.count().unwrap().contests, 1);
        assert_eq!(whole.finish(SourceInfo::default()).len(), 1);
    }

    #[test]
    fn refuses_a_player_against_himself_and_recovers() {
        let mut b = HistoryBuilder::new();
        assert_eq!(
            game(&mut b, 1, "a", "a"),
            Err(ContestError::DuplicatePlayer("a".into()))
        );
        game(&mut b, 2, "a", "b").unwrap();
        let h = b.finish(SourceInfo::default());
        assert_eq!(h.len(), 1);
        assert_eq!(h.placings(), 2);
        assert_eq!(h.contest(0).entry(0).players, &[0]);
    }

    #[test]
    fn rank_ranges_from_competition_and_dense_ranks() {
        assert_eq!(ranks_to_ranges(&[1, 1, 3]), vec![(0, 1), (0, 1), (2, 2)]);
        assert_eq!(ranks_to_ranges(&[1, 1, 2]), vec![(0, 1), (0, 1), (2, 2)]);
        assert_eq!(
            ranks_to_ranges(&[3, 1, 2, 2]),
            vec![(3, 3), (0, 0), (1, 2), (1, 2)]
        );
    }

    #[test]
    fn outcome_of_entries() {
        let e = |lo, hi| Entry {
            players: &[],
            lo,
            hi,
            score: None,
            weights: &[],
        };
        assert_eq!(e(0, 0).outcome_against(&e(1, 1)), 1.0);
        assert_eq!(e(1, 1).outcome_against(&e(0, 0)), 0.0);
        assert_eq!(e(0, 1).outcome_against(&e(0, 1)), 0.5);
        assert_eq!(e(2, 2).outcome_against(&e(0, 1)), 0.0);
    }
}

#[cfg(test)]
mod partial_play_tests {
    use super::*;

    /// Members' shares of a contest follow their members through every copy of a history:
    /// the sort by time, a block, a block taken from a builder, a part appended; an entry
    /// played whole shows no shares, nor does a history without any.
    #[test]
    fn shares_follow_their_members() {
        let none: Vec<f64> = Vec::new();
        let shares_of = |h: &History| -> Vec<Vec<Vec<f64>>> {
            h.contests()
                .map(|c| c.entries().map(|e| e.weights.to_vec()).collect())
                .collect()
        };
        let build = |b: &mut HistoryBuilder| {
            let (x, y, z, w) = (b.player("x"), b.player("y"), b.player("z"), b.player("w"));
            // Out of time order, so that the sort moves them.
            b.add_game(30, 1.0, None, (&[x], &[y]), 1.0, None).unwrap();
            b.add_game_with(
                true,
                10,
                1.0,
                None,
                (&[x, y], &[z, w]),
                (&[1.0, 0.25], &[]),
                1.0,
                None,
            )
            .unwrap();
            b.add_game(20, 1.0, None, (&[z, w], &[x, y]), 0.5, None)
                .unwrap();
        };
        let mut b = HistoryBuilder::new();
        build(&mut b);
        let h = b.finish(SourceInfo::default());
        let want = vec![
            vec![vec![1.0, 0.25], none.clone()],
            vec![none.clone(), none.clone()],
            vec![none.clone(), none.clone()],
        ];
        assert_eq!(shares_of(&h), want);
        assert!(h.contest(0).partial() && !h.contest(1).partial());
        assert_eq!(shares_of(&h.block(1..3)), want[1..].to_vec());
        assert_eq!(shares_of(&h.block(0..1)), want[..1].to_vec());
        // Taken from a builder (in time order).
        let mut b = HistoryBuilder::new();
        let (x, y, z, w) = (b.player("x"), b.player("y"), b.player("z"), b.player("w"));
        b.add_game(10, 1.0, None, (&[x], &[y]), 1.0, None).unwrap();
        b.add_game_with(
            false,
            20,
            1.0,
            None,
            (&[x, y], &[z, w]),
            (&[], &[0.5, 0.0]),
            0.0,
            None,
        )
        .unwrap();
        b.add_game(30, 1.0, None, (&[z], &[w]), 1.0, None).unwrap();
        let first = b.take_block(1);
        let rest = b.take_block(2);
        assert_eq!(shares_of(&first), vec![vec![none.clone(), none.clone()]]);
        assert_eq!(
            shares_of(&rest),
            vec![
                vec![none.clone(), vec![0.5, 0.0]],
                vec![none.clone(), none.clone()]
            ]
        );
    }
}
