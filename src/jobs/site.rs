//! `replay --site DIR`: what the static website ([`crate::output::site`]) shows, gathered as
//! the replay goes ([`SiteTrack`]: per player a thinned rating curve and the last games, in
//! memory bounded per player) and from the history held whole (the recent games' opponents
//! and results, head-to-head counts), and the ranks of the site's previous run, for the
//! change column.

use crate::history::{History, PlayerId};
use crate::output::LeaderRow;
use crate::output::site::{H2hLine, Opponent, RecentGame, SiteData, SitePlayer};
use crate::replay::{HistoryRow, PlayerRecord, ReplayResult};
use rustc_hash::FxHashMap;
use std::io::{self, Write};
use std::path::Path;

/// Points of a player's rating curve kept at most: past this, every other one is dropped and
/// only every second one taken from then on (then every fourth...), so that a long career
/// keeps its shape in bounded memory.
const CURVE: usize = 256;
/// Recent games kept per player.
pub const RECENT: usize = 10;
/// Head-to-head lines per player page (the opponents met most).
const H2H: usize = 10;

/// A recent game whose contest is found by its time and player (a row of an earlier run's
/// history file, which numbers contests as that run replayed them).
const UNKNOWN: u32 = u32::MAX;

/// One player's curve and last games.
#[derive(Clone, Default)]
struct Track {
    /// (time, rating after), thinned.
    curve: Vec<(i64, f32)>,
    /// Rows seen, and the stride of those kept (a power of two).
    seen: u32,
    stride: u32,
    /// The last row (always drawn).
    last: Option<(i64, f32)>,
    /// The last games: (contest or [`UNKNOWN`], time, rating before, after), a ring.
    recent: Vec<(u32, i64, f32, f32)>,
    next: u8,
}

impl Track {
    /// The curve as drawn: the points kept, and the last one always.
    fn curve(&self) -> Vec<(i64, f64)> {
        let mut curve: Vec<(i64, f64)> =
            self.curve.iter().map(|&(c, v)| (c, f64::from(v))).collect();
        if let Some((c, v)) = self.last
            && self.curve.last() != Some(&(c, v))
        {
            curve.push((c, f64::from(v)));
        }
        curve
    }

    /// The last games, oldest first.
    fn ordered_recent(&self) -> Vec<(u32, i64, f32, f32)> {
        let k = self.recent.len();
        if k < RECENT {
            return self.recent.clone();
        }
        (0..k)
            .map(|i| self.recent[(self.next as usize + i) % k])
            .collect()
    }
}

/// What the replay's rows leave for the site.
#[derive(Clone, Default)]
pub struct SiteTrack {
    players: Vec<Track>,
    /// The contests this run rated (the head-to-head records count these), in the order
    /// rated.
    rated: Vec<u32>,
}

impl SiteTrack {
    /// Takes a batch of rows.
    pub fn rows(&mut self, rows: &[HistoryRow]) {
        for r in rows {
            if self.rated.last() != Some(&r.contest_id) {
                self.rated.push(r.contest_id);
            }
            self.row(r.player, r.contest_id, r.time, (r.before, r.after));
        }
    }

    /// Takes the rows of an earlier run's `history.csv` (`replay --resume` continues it), so
    /// that a resumed run's pages show whole careers: `round,contest,time,player,
    /// rating_before,rating_after,...`, players found by name in `names` (rows of players
    /// the history does not name, and a file not in this form, are left out).
    pub fn earlier_rows(&mut self, file: std::fs::File, names: &[String]) -> usize {
        let index = crate::history::NameIndex::new(names);
        let mut r = csv::Reader::from_reader(io::BufReader::with_capacity(1 << 20, file));
        let header_ok = r.headers().is_ok_and(|h| {
            h.iter().take(6).eq([
                "round",
                "contest",
                "time",
                "player",
                "rating_before",
                "rating_after",
            ])
        });
        if !header_ok {
            return 0;
        }
        let mut taken = 0;
        let mut rec = csv::StringRecord::new();
        while let Ok(true) = r.read_record(&mut rec) {
            let (Some(time), Some(player), Some(before), Some(after)) = (
                rec.get(2)
                    .and_then(|t| crate::ingest::time::parse_text(t).ok()),
                rec.get(3).and_then(|n| index.find(n)),
                rec.get(4).and_then(|v| v.parse::<f64>().ok()),
                rec.get(5).and_then(|v| v.parse::<f64>().ok()),
            ) else {
                continue;
            };
            self.row(player, UNKNOWN, time, (before, after));
            taken += 1;
        }
        taken
    }

    /// This track (an earlier run's rows) followed by `later` (this run's): each player's
    /// curve the two curves (thinned again to at most [`CURVE`] points), his last games the
    /// last of both.
    pub fn then(mut self, later: SiteTrack) -> SiteTrack {
        self.rated.extend(later.rated);
        if self.players.len() < later.players.len() {
            self.players.resize(later.players.len(), Track::default());
        }
        for (t, l) in self.players.iter_mut().zip(later.players) {
            if l.seen == 0 {
                continue;
            }
            let later_recent = l.ordered_recent();
            let mut curve = std::mem::take(&mut t.curve);
            curve.extend(l.curve);
            let step = curve.len().div_ceil(CURVE).max(1);
            t.curve = curve.into_iter().step_by(step).collect();
            t.seen = t.seen.saturating_add(l.seen);
            t.last = l.last;
            let mut recent = t.ordered_recent();
            recent.extend(later_recent);
            let keep = recent.len().saturating_sub(RECENT);
            t.recent = recent.split_off(keep);
            t.next = (t.recent.len() % RECENT) as u8;
        }
        self
    }

    fn row(&mut self, player: PlayerId, contest: u32, time: i64, (before, after): (f64, f64)) {
        let p = player as usize;
        if self.players.len() <= p {
            self.players.resize(p + 1, Track::default());
        }
        let t = &mut self.players[p];
        let point = (time, after as f32);
        if t.stride == 0 {
            t.stride = 1;
        }
        if t.seen.is_multiple_of(t.stride) {
            if t.curve.len() == CURVE {
                let mut k = 0;
                t.curve.retain(|_| {
                    k += 1;
                    k % 2 == 1
                });
                t.stride *= 2;
            }
            if t.seen.is_multiple_of(t.stride) {
                t.curve.push(point);
            }
        }
        t.seen = t.seen.saturating_add(1);
        t.last = Some(point);
        let g = (contest, time, before as f32, after as f32);
        if t.recent.len() < RECENT {
            t.recent.push(g);
        } else {
            t.recent[t.next as usize] = g;
        }
        t.next = ((t.next as usize + 1) % RECENT) as u8;
    }
}

/// The previous run's ranks, by player name, from `DIR/ranks.csv` (none when absent or not a
/// file this program wrote: a link planted there is not followed).
pub fn previous_ranks(dir: &Path) -> FxHashMap<String, u32> {
    let Some(mut r) = site_csv(dir, "ranks.csv") else {
        return FxHashMap::default();
    };
    let rank = |rec: csv::StringRecord| Some((rec.get(1)?.to_string(), rec.get(0)?.parse().ok()?));
    let ranks = r.records().filter_map(|rec| rec.map(rank).transpose());
    ranks.collect::<Result<_, _>>().unwrap_or_default()
}

/// A CSV of the site's folder, to read (none when absent; a link planted there is not
/// followed).
fn site_csv(dir: &Path, name: &str) -> Option<csv::Reader<io::BufReader<std::fs::File>>> {
    let file = crate::output::open_no_follow(&dir.join(name)).ok()?;
    Some(csv::Reader::from_reader(io::BufReader::new(file)))
}

/// `ranks.csv`: `rank,player` of this run (what the next run compares with).
pub fn write_ranks(w: &mut dyn Write, history: &History, rows: &[LeaderRow]) -> io::Result<()> {
    let mut line = String::new();
    w.write_all(b"rank,player\n")?;
    for r in rows {
        let Some(rank) = r.rank else {
            continue;
        };
        line.clear();
        crate::output::csv_field(history.name(r.player), &mut line);
        writeln!(w, "{rank},{line}")?;
    }
    Ok(())
}

/// What an earlier run's site knew that a resumed run's input may not hold (it may be only
/// the new games): every head-to-head tally and each player's last games, by name, from
/// `h2h.csv` and `recent.csv` in the site's folder (written by every run, read only by a
/// resumed one; a link planted there is not followed).
#[derive(Default)]
pub struct EarlierSite {
    /// (player, opponent) -> the player's wins, draws, losses.
    h2h: Vec<(String, String, [u32; 3])>,
    /// Per player, the last games as the page showed them, newest first.
    recent: FxHashMap<String, Vec<EarlierGame>>,
}

struct EarlierGame {
    date: String,
    /// `player`, `team` or `field`.
    kind: String,
    opponent: String,
    entrants: u32,
    result: String,
    before: f64,
    after: f64,
}

/// The earlier run's site data in `dir`, when it left some (`recent.csv` is written last of
/// the two and read first: without it, nothing is taken).
pub fn earlier_site(dir: &Path) -> Option<EarlierSite> {
    let records = |name: &str| -> Option<Vec<csv::StringRecord>> {
        site_csv(dir, name)?
            .records()
            .collect::<Result<_, _>>()
            .ok()
    };
    let mut earlier = EarlierSite::default();
    for rec in records("recent.csv")? {
        let num = |i: usize| rec.get(i).and_then(|v| v.parse::<f64>().ok());
        let (Some(player), Some(date), Some(kind), Some(opponent), Some(result)) =
            (rec.get(0), rec.get(1), rec.get(2), rec.get(3), rec.get(5))
        else {
            return None;
        };
        let game = EarlierGame {
            date: date.to_string(),
            kind: kind.to_string(),
            opponent: opponent.to_string(),
            entrants: rec.get(4).and_then(|v| v.parse().ok()).unwrap_or(0),
            result: result.to_string(),
            before: num(6)?,
            after: num(7)?,
        };
        earlier
            .recent
            .entry(player.to_string())
            .or_default()
            .push(game);
    }
    for rec in records("h2h.csv")? {
        let count = |i: usize| rec.get(i).and_then(|v| v.parse::<u32>().ok());
        let (Some(p), Some(q), Some(w), Some(d), Some(l)) =
            (rec.get(0), rec.get(1), count(2), count(3), count(4))
        else {
            return None;
        };
        earlier.h2h.push((p.to_string(), q.to_string(), [w, d, l]));
    }
    Some(earlier)
}

/// `h2h.csv`: `player,opponent,wins,draws,losses`, every pair of single players that met
/// (once, from the first's side), for the next resumed run.
pub fn write_h2h(w: &mut dyn Write, history: &History, tallies: &Tallies) -> io::Result<()> {
    let mut pairs: Vec<_> = tallies.0.iter().collect();
    pairs.sort_unstable_by_key(|(k, _)| **k);
    let mut out = csv::Writer::from_writer(w);
    out.write_record(["player", "opponent", "wins", "draws", "losses"])?;
    for (&(a, b), r) in pairs {
        let [wins, draws, losses] = r.map(|n| n.to_string());
        out.write_record([history.name(a), history.name(b), &wins, &draws, &losses])?;
    }
    out.flush()
}

/// `recent.csv`: each player's last games as the pages show them, newest first
/// (`player,date,kind,opponent,entrants,result,before,after`), for the next resumed run.
pub fn write_recent(w: &mut dyn Write, data: &SiteData) -> io::Result<()> {
    let mut out = csv::Writer::from_writer(w);
    out.write_record([
        "player", "date", "kind", "opponent", "entrants", "result", "before", "after",
    ])?;
    for p in &data.players {
        for g in &p.recent {
            let (kind, opponent, entrants) = match &g.opponent {
                Opponent::Player { name, .. } => ("player", name.as_str(), 0),
                Opponent::Team(t) => ("team", t.as_str(), 0),
                Opponent::Field { label, entrants } => ("field", label.as_str(), *entrants),
            };
            out.write_record([
                p.name.as_str(),
                &g.date,
                kind,
                opponent,
                &entrants.to_string(),
                &g.result,
                &g.before.to_string(),
                &g.after.to_string(),
            ])?;
        }
    }
    out.flush()
}

/// Every head-to-head tally: (lower id, higher id) -> the lower's wins, draws, losses.
#[derive(Default)]
pub struct Tallies(FxHashMap<(PlayerId, PlayerId), [u32; 3]>);

fn date(t: i64) -> String {
    let s = crate::time::format_time(t);
    match s.strip_suffix("T00:00:00Z") {
        Some(d) => d.to_string(),
        None => s.replace('T', " ").trim_end_matches('Z').to_string(),
    }
}

fn ordinal(n: u32) -> String {
    let suffix = match (n % 10, n % 100) {
        (_, 11..=13) => "th",
        (1, _) => "st",
        (2, _) => "nd",
        (3, _) => "rd",
        _ => "th",
    };
    format!("{n}{suffix}")
}

/// Games between two single players among the contests rated (`rated`), added to an earlier
/// run's tallies (`earlier`, by name).
fn tallies(history: &History, rated: &[u32], earlier: Option<&EarlierSite>) -> Tallies {
    let mut pairs: FxHashMap<(PlayerId, PlayerId), [u32; 3]> = FxHashMap::default();
    if let Some(e) = earlier {
        let index = crate::history::NameIndex::new(history.names());
        for (p, q, [w, d, l]) in &e.h2h {
            let (Some(p), Some(q)) = (index.find(p), index.find(q)) else {
                continue;
            };
            let (key, r) = if p < q {
                ((p, q), [*w, *d, *l])
            } else {
                ((q, p), [*l, *d, *w])
            };
            let t = pairs.entry(key).or_default();
            (0..3).for_each(|k| t[k] += r[k]);
        }
    }
    let mut rated = rated.to_vec();
    rated.sort_unstable();
    rated.dedup();
    for &c in &rated {
        let c = history.contest(c as usize);
        if c.len() != 2 {
            continue;
        }
        let (x, y) = (c.entry(0), c.entry(1));
        let ([p], [q]) = (x.players, y.players) else {
            continue;
        };
        let k = result_of(&x);
        let (a, b, k) = if p < q { (*p, *q, k) } else { (*q, *p, 2 - k) };
        pairs.entry((a, b)).or_default()[k] += 1;
    }
    Tallies(pairs)
}

/// An entry's result in a two-entry contest: 0 a win, 1 a draw, 2 a loss.
fn result_of(e: &crate::history::Entry) -> usize {
    match (e.hi, e.lo) {
        (0, _) => 0,
        (_, 0) => 1,
        _ => 2,
    }
}

/// Per player, the opponents met most: (opponent, wins, draws, losses).
fn head_to_head(history: &History, tallies: &Tallies) -> Vec<Vec<(PlayerId, [u32; 3])>> {
    let mut per: Vec<Vec<(PlayerId, [u32; 3])>> = vec![Vec::new(); history.player_count()];
    for (&(a, b), &[w, d, l]) in &tallies.0 {
        per[a as usize].push((b, [w, d, l]));
        per[b as usize].push((a, [l, d, w]));
    }
    for lines in &mut per {
        lines.sort_by_key(|(q, r)| (std::cmp::Reverse(r.iter().sum::<u32>()), *q));
        lines.truncate(H2H);
    }
    per
}

/// The entry of each (contest, player) asked for, each contest scanned once (a contest of
/// thousands is not searched once per player).
fn entries_of(
    history: &History,
    mut wanted: Vec<(u32, PlayerId)>,
) -> FxHashMap<(u32, PlayerId), u32> {
    wanted.sort_unstable();
    wanted.dedup();
    let mut found = FxHashMap::default();
    for group in wanted.chunk_by(|a, b| a.0 == b.0) {
        let c = history.contest(group[0].0 as usize);
        if group.len() <= 2 && c.len() <= 64 {
            for &(k, p) in group {
                if let Some(i) = (0..c.len()).find(|&i| c.entry(i).players.contains(&p)) {
                    found.insert((k, p), i as u32);
                }
            }
            continue;
        }
        for i in 0..c.len() {
            for p in c.entry(i).players {
                if group.binary_search(&(group[0].0, *p)).is_ok() {
                    found.insert((group[0].0, *p), i as u32);
                }
            }
        }
    }
    found
}

/// The contests of games known by their time and player (an earlier run's rows): among a
/// player's contests at that time, the last.
fn contests_at(history: &History, wanted: &[(i64, PlayerId)]) -> FxHashMap<(i64, PlayerId), u32> {
    let mut found = FxHashMap::default();
    if wanted.is_empty() {
        return found;
    }
    let want: rustc_hash::FxHashSet<(i64, PlayerId)> = wanted.iter().copied().collect();
    let times: rustc_hash::FxHashSet<i64> = wanted.iter().map(|w| w.0).collect();
    for c in history.contests() {
        if !times.contains(&c.time()) {
            continue;
        }
        for i in 0..c.len() {
            for &p in c.entry(i).players {
                if want.contains(&(c.time(), p)) {
                    found.insert((c.time(), p), c.index() as u32);
                }
            }
        }
    }
    found
}

/// One recent game as the player's page shows it (`entry`: the player's entry in it).
fn recent_game(
    history: &History,
    p: PlayerId,
    entry: Option<u32>,
    (contest, before, after): (u32, f32, f32),
) -> RecentGame {
    let c = history.contest(contest as usize);
    let n = c.len();
    let mine = entry.map(|i| c.entry(i as usize));
    let field = || Opponent::Field {
        label: c.label().unwrap_or("").to_string(),
        entrants: n as u32,
    };
    let (opponent, result) = match mine {
        Some(e) if n == 2 => {
            let other = (0..2)
                .map(|i| c.entry(i))
                .find(|o| !o.players.contains(&p))
                .expect("two entries");
            let opponent = match other.players {
                [q] => Opponent::Player {
                    id: *q,
                    name: history.name(*q).to_string(),
                },
                team => Opponent::Team(
                    team.iter()
                        .map(|&q| history.name(q))
                        .collect::<Vec<_>>()
                        .join(" + "),
                ),
            };
            (opponent, ["W", "D", "L"][result_of(&e)].to_string())
        }
        Some(e) => {
            let place = if e.lo == e.hi {
                ordinal(e.lo + 1)
            } else {
                format!("T-{}", ordinal(e.lo + 1))
            };
            (field(), format!("{place} of {n}"))
        }
        None => (field(), String::new()),
    };
    RecentGame {
        date: date(c.time()),
        opponent,
        result,
        before: f64::from(before),
        after: f64::from(after),
    }
}

/// What the site shows.
pub struct SiteInput<'a> {
    pub history: &'a History,
    pub rows: &'a [LeaderRow],
    pub result: &'a ReplayResult,
    pub track: &'a SiteTrack,
    pub previous: &'a FxHashMap<String, u32>,
    pub ci_level: f64,
    pub as_of: Option<i64>,
    /// metrics.json as written (its metrics and input summary are shown).
    pub metrics: &'a serde_json::Value,
    /// A resumed run's: what the earlier run's site knew.
    pub earlier: Option<&'a EarlierSite>,
}

/// The metrics page's lines from metrics.json's `metrics` object (nested keys joined).
fn metric_lines(prefix: &str, v: &serde_json::Value, out: &mut Vec<(String, String)>) {
    match v {
        serde_json::Value::Object(m) => {
            for (k, v) in m {
                let key = if prefix.is_empty() {
                    k.replace('_', " ")
                } else {
                    format!("{prefix} / {}", k.replace('_', " "))
                };
                metric_lines(&key, v, out);
            }
        }
        serde_json::Value::Number(n) => {
            let s = match (n.as_u64(), n.as_f64()) {
                (Some(u), _) => u.to_string(),
                (None, Some(f)) if f.abs() >= 1000.0 => format!("{f:.1}"),
                (None, Some(f)) => format!("{f:.4}"),
                _ => n.to_string(),
            };
            out.push((prefix.to_string(), s));
        }
        serde_json::Value::Null => out.push((prefix.to_string(), "–".into())),
        serde_json::Value::Array(a) if a.len() <= 4 && a.iter().all(|x| !x.is_object()) => {
            let parts: Vec<String> = a.iter().map(std::string::ToString::to_string).collect();
            out.push((prefix.to_string(), parts.join(", ")));
        }
        serde_json::Value::Array(_) => {}
        other => out.push((
            prefix.to_string(),
            other.to_string().trim_matches('"').to_string(),
        )),
    }
}

impl EarlierGame {
    /// The game as a page shows it, its opponent found by name among this run's players.
    fn shown(&self, index: &crate::history::NameIndex) -> RecentGame {
        RecentGame {
            date: self.date.clone(),
            opponent: match (self.kind.as_str(), index.find(&self.opponent)) {
                ("player", Some(id)) => Opponent::Player {
                    id,
                    name: self.opponent.clone(),
                },
                ("field", _) => Opponent::Field {
                    label: self.opponent.clone(),
                    entrants: self.entrants,
                },
                _ => Opponent::Team(self.opponent.clone()),
            },
            result: self.result.clone(),
            before: self.before,
            after: self.after,
        }
    }
}

/// The metrics page's notes: the input, the leaderboard, the parameters, what the metrics
/// cover when resumed, duplicates dropped, and what the uncertainty means.
fn site_notes(s: &SiteInput) -> Vec<String> {
    let src = &s.history.source;
    let mut notes = vec![
        format!(
            "Input: {} ({} format, {} {} read)",
            src.path, src.format, src.records, src.record_unit
        ),
        format!(
            "{} players on the leaderboard; {} rounds rated ({}).",
            s.rows.len(),
            s.result.rounds_total(),
            s.result.system
        ),
        format!("Parameters: {}", s.result.params),
    ];
    // Resumed: the metrics are the whole history's, the input above this run's.
    if let Some(h) = s.metrics.get("history") {
        notes.insert(
            1,
            format!(
                "The metrics cover the whole history, the runs resumed from and this one: {} \
                 contests, {} placings, {} players (the input above is this run's).",
                h["contests"], h["placings"], h["players"]
            ),
        );
    }
    if src.duplicates_dropped > 0 {
        notes.push(format!(
            "{} contests that repeat one read before were dropped (--dedupe).",
            src.duplicates_dropped
        ));
    }
    if let Some((label, meaning)) = s.result.uncertainty {
        notes.push(format!("{label}: {meaning}"));
    }
    notes
}

/// A player's page: his leaderboard row, with his curve, last games and head-to-head.
fn site_player(
    history: &History,
    (r, records): (&crate::output::LeaderRow, &[PlayerRecord]),
    previous: &FxHashMap<String, u32>,
    (curve, recent): (Vec<(i64, f64)>, Vec<RecentGame>),
    h2h: &[(PlayerId, [u32; 3])],
) -> SitePlayer {
    let p = r.player;
    let rec = &records[p as usize];
    SitePlayer {
        id: p,
        name: history.name(p).to_string(),
        rank: r.rank.map(|k| k as u32),
        status: r.status,
        previous_rank: previous.get(history.name(p)).copied(),
        rating: r.rating.mean,
        uncertainty: r.rating.uncertainty,
        interval: r.interval.map(|i| i.rating),
        rank_interval: r.interval.and_then(|i| i.rank),
        contests: rec.contests,
        wins: rec.wins,
        draws: rec.draws,
        losses: rec.losses,
        best_rank: (rec.places.best > 0).then_some(rec.places.best),
        median_rank: rec.places.median(),
        last_played: if rec.contests > 0 {
            date(rec.last_time)
        } else {
            String::new()
        },
        history: curve,
        recent,
        h2h: (h2h.iter())
            .map(|&(id, [wins, draws, losses])| H2hLine {
                id,
                name: history.name(id).to_string(),
                wins,
                draws,
                losses,
            })
            .collect(),
    }
}

/// The site's data around the players' pages: title, dates, columns shown, metrics, notes.
fn site_pages(s: &SiteInput, players: Vec<SitePlayer>) -> SiteData {
    let mut metrics = Vec::new();
    metric_lines("", &s.metrics["metrics"], &mut metrics);
    let src = &s.history.source;
    let last = s.history.contests().last().map(|c| c.time());
    let file = Path::new(&src.path)
        .file_name()
        .map_or_else(|| src.path.clone(), |f| f.to_string_lossy().into_owned());
    SiteData {
        title: format!("{} on {file}", s.result.system),
        system: s.result.system.to_string(),
        generated: {
            let now = std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map_or(0, |d| d.as_secs() as i64);
            let t = crate::time::format_time(now);
            format!("{} UTC", t.get(..16).unwrap_or(&t).replace('T', " "))
        },
        as_of: last.map(date),
        uncertainty_label: s
            .rows
            .iter()
            .any(|r| r.rating.uncertainty.is_some())
            .then(|| s.result.uncertainty.map_or("±", |u| u.0).to_string()),
        interval_level: s
            .rows
            .iter()
            .any(|r| r.interval.is_some())
            .then_some(s.ci_level),
        standings: crate::output::is_standings(s.rows, &s.result.records),
        has_previous: !s.previous.is_empty(),
        players,
        metrics,
        notes: site_notes(s),
    }
}

/// Builds the site's data.
pub fn site_data(s: &SiteInput) -> (SiteData, Tallies) {
    let history = s.history;
    let tallies = tallies(history, &s.track.rated, s.earlier);
    let h2h = head_to_head(history, &tallies);
    let names = s
        .earlier
        .map(|_| crate::history::NameIndex::new(history.names()));
    let tracks = || {
        s.rows.iter().filter_map(|r| {
            s.track
                .players
                .get(r.player as usize)
                .map(|t| (r.player, t))
        })
    };
    // An earlier run's games: their contests by time and player.
    let earlier: Vec<(i64, PlayerId)> = tracks()
        .flat_map(|(p, t)| {
            t.recent
                .iter()
                .filter(|g| g.0 == UNKNOWN)
                .map(move |g| (g.1, p))
        })
        .collect();
    let earlier = contests_at(history, &earlier);
    let contest_of = |g: &(u32, i64, f32, f32), p: PlayerId| {
        if g.0 == UNKNOWN {
            earlier.get(&(g.1, p)).copied()
        } else {
            Some(g.0)
        }
    };
    let wanted: Vec<(u32, PlayerId)> = tracks()
        .flat_map(|(p, t)| {
            t.recent
                .iter()
                .filter_map(move |g| contest_of(g, p).map(|c| (c, p)))
        })
        .collect();
    let entries = entries_of(history, wanted);
    let players: Vec<SitePlayer> = s
        .rows
        .iter()
        .map(|r| {
            let p = r.player;
            let t = s.track.players.get(p as usize);
            let curve = t.map(Track::curve).unwrap_or_default();
            let mut recent: Vec<RecentGame> = t
                .map(|t| {
                    (t.ordered_recent().into_iter().rev())
                        // Resumed with the earlier site's games: those stand for the
                        // earlier runs' (which the input may not hold).
                        .filter(|g| s.earlier.is_none() || g.0 != UNKNOWN)
                        .filter_map(|g| {
                            let c = contest_of(&g, p)?;
                            let entry = entries.get(&(c, p)).copied();
                            Some(recent_game(history, p, entry, (c, g.2, g.3)))
                        })
                        .collect()
                })
                .unwrap_or_default();
            if let (Some(e), Some(index)) = (s.earlier, &names)
                && let Some(games) = e.recent.get(history.name(p))
            {
                let room = RECENT.saturating_sub(recent.len());
                recent.extend(games.iter().take(room).map(|g| g.shown(index)));
            }
            site_player(
                history,
                (r, &s.result.records),
                s.previous,
                (curve, recent),
                h2h.get(p as usize).map_or(&[][..], Vec::as_slice),
            )
        })
        .collect();
    (site_pages(s, players), tallies)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row(player: u32, contest: u32, after: f64) -> HistoryRow {
        HistoryRow {
            round: contest,
            contest,
            contest_id: contest,
            time: i64::from(contest),
            player,
            before: after - 1.0,
            after,
            uncertainty: f64::NAN,
            performance: f64::NAN,
            season: 0,
        }
    }

    #[test]
    fn curves_are_thinned_and_recent_games_kept_last() {
        let mut t = SiteTrack::default();
        let rows: Vec<HistoryRow> = (0..1000).map(|c| row(3, c, f64::from(c))).collect();
        t.rows(&rows);
        let p = &t.players[3];
        assert!(
            p.curve.len() <= CURVE && p.curve.len() >= CURVE / 2,
            "{}",
            p.curve.len()
        );
        // Evenly spaced from the first: every 4th of 1000.
        assert_eq!(p.stride, 4);
        assert!(p.curve.windows(2).all(|w| w[1].0 - w[0].0 == 4));
        assert_eq!(p.curve[0].0, 0);
        assert_eq!(p.last, Some((999, 999.0)));
        let mut recent: Vec<u32> = p.recent.iter().map(|g| g.0).collect();
        recent.sort_unstable();
        assert_eq!(recent, (990..1000).collect::<Vec<_>>());
        assert_eq!(ordinal(1), "1st");
        assert_eq!(ordinal(12), "12th");
        assert_eq!(ordinal(23), "23rd");
        assert_eq!(ordinal(111), "111th");
    }
}
