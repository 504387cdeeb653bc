//! A static website of a leaderboard: plain HTML pages, one shared stylesheet, inline SVG
//! charts and a small search script, written into a folder of an output generation
//! ([`Folder`]). Nothing refers outside the site (no fonts, scripts or CDNs) and every link is
//! relative, so the site works opened from `file://` as well as from any static web server.
//!
//! Layout of the folder:
//! - `index.html`: the first [`PAGE_SIZE`] players of the leaderboard, with a search box;
//! - `ranks/K.html` (K = 2, 3, ...): the next [`PAGE_SIZE`] each, the same table and pager;
//! - `players/<id / 1000>/<id>.html`: one page per player (rating, record, a rating history
//!   chart, recent games, head-to-head lines);
//! - `metrics.html`: the run's metrics and notes;
//! - `names.js`: `var RB_NAMES=[["name",id,rank],...];`, which the search box filters as the
//!   user types (without JavaScript the box stays hidden and the tables are all there is);
//! - `style.css` (`assets/site.css`).
//!
//! The pages are askama templates (`templates/site/`), whose every `{{ }}` is escaped by the
//! project's escaper ([`super::html`]: the control characters HTML refuses become U+FFFD);
//! the strings of `names.js` are escaped for JavaScript here. A number that is not finite is
//! shown as "–". Pages are rendered straight into their buffered files, the player pages and
//! the pages of ranks in parallel (rayon) and without a sync of their own (the generation is
//! synced once when it is committed).

use super::text::{Fixed, Rating, rating_decimals, scaled};
use std::fmt;
use std::io::{self, Write};

use askama::Template;
use rayon::prelude::*;
use rustc_hash::{FxHashMap, FxHashSet};

use super::Folder;
use crate::status::Status;

/// Players per leaderboard page (`index.html`, then `ranks/2.html`, ...).
pub const PAGE_SIZE: usize = 1000;

/// Players per folder of player pages (`players/<id / PLAYERS_PER_FOLDER>/<id>.html`).
pub const PLAYERS_PER_FOLDER: u32 = 1000;

/// Shown for a number that is not finite (NaN, infinite).
const DASH: &str = "–";

/// Everything the site shows.
#[derive(Debug, Clone, Default)]
pub struct SiteData {
    /// Page title, e.g. "elo on results.csv".
    pub title: String,
    /// The rating system's name, e.g. "elo".
    pub system: String,
    /// When the site was generated, already formatted.
    pub generated: String,
    /// Time of the last contest, formatted.
    pub as_of: Option<String>,
    /// Header of the uncertainty column ("RD", "sigma"); `None`: no such column.
    pub uncertainty_label: Option<String>,
    /// The level of the players' rating intervals (0.95), when they carry some.
    pub interval_level: Option<f64>,
    /// Multi-entrant contests: contests, best rank and median rank are shown instead of W/D/L.
    pub standings: bool,
    /// A previous run's ranks were known: the change column is shown.
    pub has_previous: bool,
    /// Leaderboard order: the ranked, rank 1 first, then the provisional and the inactive.
    pub players: Vec<SitePlayer>,
    /// (name, formatted value) for the metrics page, in order.
    pub metrics: Vec<(String, String)>,
    /// Plain-text lines shown on the metrics page.
    pub notes: Vec<String>,
}

/// One player of the leaderboard.
#[derive(Debug, Clone, Default)]
pub struct SitePlayer {
    /// Page number: the page is `players/<id / 1000>/<id>.html`.
    pub id: u32,
    /// Arbitrary text from the input (escaped wherever it is written).
    pub name: String,
    /// 1-based among the ranked; `None` for a player not ranked.
    pub rank: Option<u32>,
    /// Ranked, provisional or inactive.
    pub status: Status,
    /// `None`: new since the previous run, or no previous run.
    pub previous_rank: Option<u32>,
    pub rating: f64,
    pub uncertainty: Option<f64>,
    /// Rating interval at [`SiteData::interval_level`].
    pub interval: Option<(f64, f64)>,
    /// 1-based rank interval.
    pub rank_interval: Option<(u32, u32)>,
    pub contests: u32,
    /// Shown when not [`SiteData::standings`].
    pub wins: u32,
    pub draws: u32,
    pub losses: u32,
    /// Shown when [`SiteData::standings`].
    pub best_rank: Option<u32>,
    pub median_rank: Option<f64>,
    /// Formatted date.
    pub last_played: String,
    /// (unix seconds, rating after), in time order.
    pub history: Vec<(i64, f64)>,
    /// Newest first.
    pub recent: Vec<RecentGame>,
    pub h2h: Vec<H2hLine>,
}

/// One of a player's recent games.
#[derive(Debug, Clone)]
pub struct RecentGame {
    /// Formatted date.
    pub date: String,
    pub opponent: Opponent,
    /// "W", "D", "L", or e.g. "3rd of 120".
    pub result: String,
    /// Rating before the game.
    pub before: f64,
    /// Rating after the game.
    pub after: f64,
}

/// Who a recent game was against.
#[derive(Debug, Clone)]
pub enum Opponent {
    /// A player of the leaderboard (linked to their page).
    Player { id: u32, name: String },
    /// A team or several players, as plain text.
    Team(String),
    /// A many-entrant contest; the label may be empty.
    Field { label: String, entrants: u32 },
}

/// A player's record against one opponent.
#[derive(Debug, Clone, Default)]
pub struct H2hLine {
    pub id: u32,
    pub name: String,
    pub wins: u32,
    pub draws: u32,
    pub losses: u32,
}

/// Writes the whole site into `root` (a folder of an atomic output generation).
///
/// Fails if two players share an id (their pages would be one file).
pub fn write_site(root: &Folder, data: &SiteData) -> io::Result<()> {
    let mut ids = FxHashSet::with_capacity_and_hasher(data.players.len(), Default::default());
    for p in &data.players {
        if !ids.insert(p.id) {
            return Err(io::Error::other(format!(
                "two players of the site share the id {}: their pages would be one file",
                p.id
            )));
        }
    }
    let site = Site {
        data,
        ids,
        columns: Columns::of(data),
        pages: data.players.len().div_ceil(PAGE_SIZE).max(1),
        ranked: data.players.iter().filter(|p| p.rank.is_some()).count(),
    };

    root.write("style.css", |w| w.write_all(STYLE.as_bytes()))?;
    root.write("names.js", |w| site.names_js(w))?;
    let metrics = MetricsPage {
        site: &site,
        up: "",
    };
    root.write("metrics.html", |w| metrics.write_into(w))?;
    root.write("index.html", |w| BoardPage::new(&site, 1).write_into(w))?;
    if site.pages > 1 {
        let ranks = root.folder("ranks")?;
        (2..=site.pages).into_par_iter().try_for_each(|page| {
            ranks.write_unsynced(&format!("{page}.html"), |w| {
                BoardPage::new(&site, page).write_into(w)
            })
        })?;
    }

    // One folder per thousand ids, made before the pages are written in parallel.
    let mut folders: FxHashMap<u32, Folder> = FxHashMap::default();
    for p in &data.players {
        let shard = p.id / PLAYERS_PER_FOLDER;
        if let std::collections::hash_map::Entry::Vacant(e) = folders.entry(shard) {
            e.insert(root.folder(&format!("players/{shard}"))?);
        }
    }
    data.players.par_iter().enumerate().try_for_each(|(at, p)| {
        let folder = &folders[&(p.id / PLAYERS_PER_FOLDER)];
        let page = PlayerPage {
            site: &site,
            up: "../../",
            p,
            // Its "Leaderboard" link leads to the page of ranks that lists it.
            board_href: page_href(1, at / PAGE_SIZE + 1),
            chart: super::chart::rating_chart(&p.history),
        };
        folder.write_unsynced(&format!("{}.html", p.id), |w| page.write_into(w))
    })
}

/// Which optional columns the leaderboard has (the same on every page).
#[derive(Debug, Clone, Copy)]
struct Columns {
    change: bool,
    interval: bool,
    rank_interval: bool,
    uncertainty: bool,
    /// How many columns the table has.
    count: usize,
}

impl Columns {
    fn of(data: &SiteData) -> Self {
        let change = data.has_previous;
        let interval =
            data.interval_level.is_some() || data.players.iter().any(|p| p.interval.is_some());
        let rank_interval = data.players.iter().any(|p| p.rank_interval.is_some());
        let uncertainty = data.uncertainty_label.is_some();
        let count = 7 + [change, interval, rank_interval, uncertainty]
            .iter()
            .filter(|&&on| on)
            .count();
        Self {
            change,
            interval,
            rank_interval,
            uncertainty,
            count,
        }
    }
}

struct Site<'a> {
    data: &'a SiteData,
    /// The ids that have a page (others are not linked).
    ids: FxHashSet<u32>,
    columns: Columns,
    /// Leaderboard pages (at least one: `index.html`).
    pages: usize,
    /// Players ranked.
    ranked: usize,
}

impl Site<'_> {
    fn names_js(&self, w: &mut dyn Write) -> io::Result<()> {
        w.write_all(b"var RB_NAMES=[")?;
        for (i, p) in self.data.players.iter().enumerate() {
            let sep = if i == 0 { "\n" } else { ",\n" };
            write!(w, "{sep}[\"{}\",{},", JsStr(&p.name), p.id)?;
            match p.rank {
                Some(rank) => write!(w, "{rank}]")?,
                None => write!(w, "\"{}\"]", p.status.name())?,
            }
        }
        w.write_all(b"\n];\n")
    }
}

// ---------------------------------------------------------------------------------------------
// The pages: askama templates (templates/site/), every `{{ }}` escaped (super::html).

/// `index.html` (page 1) or `ranks/<page>.html`.
#[derive(Template)]
#[template(path = "site/board.html")]
struct BoardPage<'a> {
    site: &'a Site<'a>,
    page: usize,
    /// Leads to the site's root.
    up: &'static str,
    /// The players of the page, each with the heading of his status above the first of the
    /// players not ranked who have it.
    rows: Vec<(Option<&'static str>, &'a SitePlayer)>,
    pager: Option<Pager>,
}

impl<'a> BoardPage<'a> {
    fn new(site: &'a Site<'a>, page: usize) -> Self {
        let players = &site.data.players;
        let on_page = &players
            [((page - 1) * PAGE_SIZE).min(players.len())..(page * PAGE_SIZE).min(players.len())];
        let mut group = None;
        let rows = on_page
            .iter()
            .map(|p| {
                // The entrants not ranked come after the ranked, each status under its heading.
                let heading = (p.status != Status::Ranked && group != Some(p.status)).then(|| {
                    group = Some(p.status);
                    status_heading(&p.status)
                });
                (heading, p)
            })
            .collect();
        Self {
            site,
            page,
            up: if page == 1 { "" } else { "../" },
            rows,
            pager: Pager::new(site.pages, page, on_page),
        }
    }
}

/// First, previous, next and last page around the page's place and ranks.
struct Pager {
    before: [PagerLink; 2],
    /// The ranks shown on the page (ties make them differ from the positions).
    ranks: Option<(u32, u32)>,
    after: [PagerLink; 2],
}

struct PagerLink {
    /// `None`: no such page (shown greyed).
    href: Option<String>,
    label: &'static str,
}

impl Pager {
    /// `None` when there is one page.
    fn new(pages: usize, page: usize, on_page: &[SitePlayer]) -> Option<Self> {
        if pages <= 1 {
            return None;
        }
        let link = |to: usize, label, on: bool| PagerLink {
            href: on.then(|| page_href(page, to)),
            label,
        };
        let first = on_page.iter().find_map(|p| p.rank);
        let last = on_page.iter().rev().find_map(|p| p.rank);
        Some(Self {
            before: [
                link(1, "« First", page > 1),
                link(page.saturating_sub(1).max(1), "‹ Previous", page > 1),
            ],
            ranks: first.zip(last),
            after: [
                link((page + 1).min(pages), "Next ›", page < pages),
                link(pages, "Last »", page < pages),
            ],
        })
    }
}

#[derive(Template)]
#[template(path = "site/metrics.html")]
struct MetricsPage<'a> {
    site: &'a Site<'a>,
    up: &'static str,
}

#[derive(Template)]
#[template(path = "site/player.html")]
struct PlayerPage<'a> {
    site: &'a Site<'a>,
    up: &'static str,
    p: &'a SitePlayer,
    /// The page of ranks that lists the player, from the root.
    board_href: String,
    /// The rating chart's SVG, or the note shown instead.
    chart: Result<String, &'static str>,
}

/// The relative address of leaderboard page `to` from page `from` (1: `index.html`, else
/// `ranks/<k>.html`), or from a player page when `from` is 1 and the caller adds `../../`.
fn page_href(from: usize, to: usize) -> String {
    match (from, to) {
        (1, 1) => "index.html".into(),
        (1, k) => format!("ranks/{k}.html"),
        (_, 1) => "../index.html".into(),
        (_, k) => format!("{k}.html"),
    }
}

/// `players/<k>/<id>.html`, a player's page from the root.
fn player_path(id: &u32) -> String {
    format!("players/{}", player_folder_path(id))
}

/// `<k>/<id>.html`, a player's page from the folder `players/`.
fn player_folder_path(id: &u32) -> String {
    format!("{}/{id}.html", id / PLAYERS_PER_FOLDER)
}

// The numbers of the pages, as the templates show them (askama passes their arguments by
// reference).

fn rating(v: &f64) -> Rating {
    Rating(*v)
}

/// The content of a JavaScript (JSON) string literal: quotes, backslashes and control
/// characters escaped, U+2028 and U+2029 too, and `</` written `<\/` so that no name can
/// close a script element.
struct JsStr<'a>(&'a str);

impl fmt::Display for JsStr<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let s = self.0;
        let mut start = 0;
        let mut prev = '\0';
        for (i, c) in s.char_indices() {
            let esc: Option<&str> = match c {
                '"' => Some("\\\""),
                '\\' => Some("\\\\"),
                '\n' => Some("\\n"),
                '\r' => Some("\\r"),
                '\t' => Some("\\t"),
                '/' if prev == '<' => Some("\\/"),
                '\u{2028}' => Some("\\u2028"),
                '\u{2029}' => Some("\\u2029"),
                c if (c as u32) < 0x20 || c == '\u{7f}' => None,
                _ => {
                    prev = c;
                    continue;
                }
            };
            prev = c;
            f.write_str(&s[start..i])?;
            match esc {
                Some(e) => f.write_str(e)?,
                None => write!(f, "\\u{:04x}", c as u32)?,
            }
            start = i + c.len_utf8();
        }
        f.write_str(&s[start..])
    }
}

/// "[lo, hi]".
struct Interval<'a>(&'a (f64, f64));

impl fmt::Display for Interval<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "[{}, {}]", Rating(self.0.0), Rating(self.0.1))
    }
}

/// A level as a percentage: 0.95 → "95%", 0.683 → "68.3%".
struct Percent<'a>(&'a f64);

impl fmt::Display for Percent<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let p = *self.0 * 100.0;
        if !p.is_finite() {
            f.write_str(DASH)
        } else if (p - p.round()).abs() < 1e-9 {
            write!(f, "{p:.0}%")
        } else {
            let s = format!("{p:.2}");
            write!(f, "{}%", s.trim_end_matches('0'))
        }
    }
}

/// A change as a cell shows it: its text, and the cell's class.
struct Change {
    class: &'static str,
    text: String,
}

/// The signed change from `before` to `after`, with the decimals of the ratings shown beside
/// it; its class "", " up" or " down".
fn delta(before: &f64, after: &f64) -> Change {
    let delta = after - before;
    let (class, text) = if !delta.is_finite() {
        ("", DASH.to_string())
    } else {
        let d = rating_decimals(*before).max(rating_decimals(*after));
        match scaled(delta, d) {
            None => ("", format!("{delta:+.0}")),
            Some(0) => ("", format!("±{}", Fixed { units: 0, d })),
            Some(units) if delta > 0.0 => (" up", format!("+{}", Fixed { units, d })),
            Some(units) => (" down", format!("-{}", Fixed { units, d })),
        }
    };
    Change { class, text }
}

/// What the heading above a status's entrants says.
fn status_heading(s: &Status) -> &'static str {
    match s {
        Status::Ranked => "ranked",
        Status::Provisional => "provisional (too uncertain, or too few contests, to rank yet)",
        Status::Inactive => "inactive (no contest in the activity window before the last)",
    }
}

/// The change of rank since the previous run: ▲3, ▼2, "new", "=", and its class; nothing
/// for a player not ranked.
fn change(p: &SitePlayer) -> Option<Change> {
    let rank = p.rank?;
    let (class, text) = match p.previous_rank {
        None => ("new", "new".to_string()),
        Some(prev) if prev > rank => ("up", format!("▲{}", prev - rank)),
        Some(prev) if prev < rank => ("down", format!("▼{}", rank - prev)),
        Some(_) => ("same", "=".to_string()),
    };
    Some(Change { class, text })
}

struct OptRank<'a>(&'a Option<u32>);

impl fmt::Display for OptRank<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.0 {
            Some(r) => write!(f, "{r}"),
            None => f.write_str(DASH),
        }
    }
}

/// A median rank: whole, or with one decimal (x.5); "–" when missing or not finite.
struct MedianRank<'a>(&'a Option<f64>);

impl fmt::Display for MedianRank<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.0 {
            Some(m) if m.is_finite() && m.fract() == 0.0 => write!(f, "{m:.0}"),
            Some(m) if m.is_finite() => write!(f, "{m:.1}"),
            _ => f.write_str(DASH),
        }
    }
}

// ---------------------------------------------------------------------------------------------
// The static parts.

/// The search box's script: filters `RB_NAMES` (from `names.js`) by substring, ignoring case,
/// from two characters on, and lists up to 50 matches as links (relative to the page by the
/// input's `data-prefix`). Built with DOM nodes, so names are never parsed as HTML.
const SEARCH_JS: &str = include_str!("../../assets/search.js");

const STYLE: &str = include_str!("../../assets/site.css");

#[cfg(test)]
mod tests {
    use super::*;
    use crate::output::Publication;
    use std::fs;
    use std::path::Path;

    const OWNED: &[&str] = &[
        "index.html",
        "style.css",
        "names.js",
        "metrics.html",
        "players",
        "ranks",
    ];

    const EVIL: &str = "<b>&\"x'</b>";

    fn player(id: u32, rank: u32, name: &str) -> SitePlayer {
        SitePlayer {
            id,
            name: name.to_string(),
            rank: Some(rank),
            rating: 1600.0 - rank as f64,
            contests: 10,
            wins: 5,
            draws: 2,
            losses: 3,
            last_played: "2024-06-30".into(),
            ..SitePlayer::default()
        }
    }

    fn sample() -> SiteData {
        let mut players = vec![
            player(7, 1, "Alice"),
            player(1234, 2, EVIL),
            player(3, 3, "Carol"),
            player(42, 4, "Dan"),
        ];
        players[0].previous_rank = Some(4); // ▲3
        players[1].previous_rank = Some(1); // ▼1
        players[2].previous_rank = None; // new
        players[3].previous_rank = Some(4); // =
        players[0].interval = Some((1550.0, 1650.0));
        players[0].rank_interval = Some((1, 3));
        players[0].uncertainty = Some(45.26);
        players[0].history = vec![
            (1_577_836_800, 1500.0), // 2020-01-01
            (1_609_459_200, 1550.0), // 2021-01-01
            (1_640_995_200, 1530.0),
            (1_672_531_200, 1580.0),
            (1_704_067_200, 1599.0), // 2024-01-01
        ];
        players[0].recent = vec![
            RecentGame {
                date: "2024-06-30".into(),
                opponent: Opponent::Player {
                    id: 1234,
                    name: EVIL.into(),
                },
                result: "W".into(),
                before: 1590.0,
                after: 1599.0,
            },
            RecentGame {
                date: "2024-06-01".into(),
                opponent: Opponent::Team("Team <A>".into()),
                result: "L".into(),
                before: 1600.0,
                after: 1590.0,
            },
            RecentGame {
                date: "2024-05-01".into(),
                opponent: Opponent::Field {
                    label: String::new(),
                    entrants: 120,
                },
                result: "3rd of 120".into(),
                before: 1600.0,
                after: 1600.0,
            },
        ];
        players[0].h2h = vec![H2hLine {
            id: 3,
            name: "Carol".into(),
            wins: 2,
            draws: 1,
            losses: 0,
        }];
        players[1].history = vec![(1_704_067_200, 1598.0)];
        SiteData {
            title: "elo on <results>.csv".into(),
            system: "elo".into(),
            generated: "2026-11-25 05:10 UTC".into(),
            as_of: Some("2024-06-30".into()),
            uncertainty_label: Some("RD".into()),
            interval_level: Some(0.95),
            standings: false,
            has_previous: true,
            players,
            metrics: vec![("log-loss".into(), "0.612".into())],
            notes: vec!["4 players, 12 games <from> results.csv".into()],
        }
    }

    /// Writes the site of `data` into a new folder and returns it (kept with the temp dir).
    fn render(data: &SiteData) -> (tempfile::TempDir, std::path::PathBuf) {
        let tmp = tempfile::tempdir().unwrap();
        let out = tmp.path().join("site");
        let publication = Publication::begin(&out, OWNED).unwrap();
        write_site(&publication.root(), data).unwrap();
        publication.commit().unwrap();
        (tmp, out)
    }

    fn read(path: &Path) -> String {
        fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
    }

    /// The `<tr>` rows of the first `<tbody>`.
    fn body_rows(html: &str) -> Vec<&str> {
        let start = html.find("<tbody>").unwrap();
        let end = start + html[start..].find("</tbody>").unwrap();
        html[start..end]
            .split("<tr>")
            .skip(1)
            .map(|r| r.split("</tr>").next().unwrap())
            .collect()
    }

    #[test]
    fn index_lists_the_players_in_order_escaped_with_their_changes() {
        let data = sample();
        let (_tmp, out) = render(&data);
        let index = read(&out.join("index.html"));
        assert!(index.starts_with("<!DOCTYPE html>"));
        assert!(index.contains("<link rel=\"stylesheet\" href=\"style.css\">"));
        assert!(index.contains("<script src=\"names.js\" defer></script>"));
        assert!(index.contains("data-prefix=\"\""));
        assert!(index.contains("href=\"metrics.html\""));
        assert!(index.contains("<title>elo on &lt;results&gt;.csv</title>"));
        assert!(!index.contains("<results>"));
        // The raw name never appears, the escaped one does.
        assert!(!index.contains(EVIL));
        assert!(!index.contains("<b>"));
        let escaped = "&lt;b&gt;&amp;&quot;x&#39;&lt;/b&gt;";
        let rows = body_rows(&index);
        assert_eq!(rows.len(), 4);
        let expected = [
            (7, "Alice", "▲3"),
            (1234, escaped, "▼1"),
            (3, "Carol", ">new<"),
            (42, "Dan", ">=<"),
        ];
        for (k, (row, (id, name, change))) in rows.iter().zip(expected).enumerate() {
            assert!(
                row.starts_with(&format!("<td class=\"num\">{}</td>", k + 1)),
                "{row}"
            );
            let link = format!(
                "<a href=\"players/{}/{id}.html\">{name}</a>",
                id / PLAYERS_PER_FOLDER
            );
            assert!(row.contains(&link), "{row} lacks {link}");
            assert!(row.contains(change), "{row} lacks {change}");
            assert!(row.contains(&format!(">{}<", 1600 - (k + 1))), "{row}");
        }
        // Optional columns: interval, rank range, uncertainty; W/D/L, not standings.
        assert!(index.contains("<th>95% interval</th>"));
        assert!(index.contains("<th>Rank range</th>"));
        assert!(index.contains("<th class=\"num\">RD</th>"));
        assert!(rows[0].contains("[1550, 1650]"));
        assert!(rows[0].contains("1–3"));
        assert!(rows[0].contains("<td class=\"num\">45.3</td>"));
        assert!(index.contains("<th class=\"num\">W</th>"));
        assert!(!index.contains("Median"));
        // One page: no pager, no ranks folder.
        assert!(!index.contains("class=\"pager\""));
        assert!(!out.join("ranks").exists());
        assert!(read(&out.join("style.css")).contains("table"));

        // Without a previous run there is no change column; standings columns instead.
        let mut data = sample();
        data.has_previous = false;
        data.standings = true;
        data.uncertainty_label = None;
        data.players[0].best_rank = Some(1);
        data.players[0].median_rank = Some(2.5);
        let (_tmp, out) = render(&data);
        let index = read(&out.join("index.html"));
        let rows = body_rows(&index);
        assert!(!index.contains("▲") && !index.contains("▼") && !index.contains(">new<"));
        assert!(!index.contains("<th class=\"num\">RD</th>"));
        assert!(index.contains("<th class=\"num\">Median</th>"));
        assert!(
            rows[0].contains(
                "<td class=\"num\">10</td><td class=\"num\">1</td><td class=\"num\">2.5</td>"
            ),
            "{}",
            rows[0]
        );
        assert!(rows[1].contains("<td class=\"num\">–</td><td class=\"num\">–</td>"));
    }

    #[test]
    fn player_pages_chart_links_and_tables() {
        let data = sample();
        let (_tmp, out) = render(&data);
        let page = read(&out.join("players/0/7.html"));
        assert!(page.contains("<link rel=\"stylesheet\" href=\"../../style.css\">"));
        assert!(page.contains("href=\"../../index.html\""));
        assert!(page.contains("href=\"../../metrics.html\""));
        assert!(page.contains("<h1>Alice</h1>"));
        assert!(page.contains("<b>1599</b>"));
        assert!(page.contains("[1550, 1650] (95%)"));
        assert!(page.contains("RD 45.3"));
        assert!(page.contains("5 W · 2 D · 3 L"));
        assert!(page.contains("▲3</span> since the previous run (was 4)"));
        // The chart: one polyline with a point per history entry, and the last dot.
        assert_eq!(page.matches("<svg").count(), 1);
        let poly = page.split("<polyline").nth(1).expect("a polyline");
        let points = poly
            .split("points=\"")
            .nth(1)
            .unwrap()
            .split('"')
            .next()
            .unwrap();
        assert_eq!(points.split(' ').count(), data.players[0].history.len());
        assert!(points.split(' ').all(|p| p.split(',').count() == 2));
        assert!(page.contains("<circle class=\"last\""));
        // Year ticks over 2020..2024.
        for year in 2020..=2024 {
            assert!(page.contains(&format!(">{year}</text>")), "{year}");
        }
        // Recent games: a player link relative to this page, escaped; a team; a field.
        assert!(
            page.contains("<a href=\"../1/1234.html\">&lt;b&gt;&amp;&quot;x&#39;&lt;/b&gt;</a>")
        );
        assert!(page.contains("Team &lt;A&gt;"));
        assert!(page.contains("field of 120"));
        assert!(page.contains("1590 → 1599</td><td class=\"num up\">+9</td>"));
        assert!(page.contains("1600 → 1590</td><td class=\"num down\">-10</td>"));
        assert!(page.contains("1600 → 1600</td><td class=\"num\">±0</td>"));
        assert!(page.contains("<td>3rd of 120</td>"));
        // Head to head.
        assert!(page.contains("<a href=\"../0/3.html\">Carol</a></td><td class=\"num\">2</td><td class=\"num\">1</td><td class=\"num\">0</td>"));
        assert!(!page.contains(EVIL));

        // One point: a dot and no line; none: a note.
        let one = read(&out.join("players/1/1234.html"));
        assert!(one.contains("<svg") && one.contains("<circle"));
        assert!(!one.contains("<polyline"));
        assert!(!one.contains(EVIL));
        assert!(one.contains("<h1>&lt;b&gt;&amp;&quot;x&#39;&lt;/b&gt;</h1>"));
        let none = read(&out.join("players/0/3.html"));
        assert!(!none.contains("<svg"));
        assert!(none.contains("No rated contests."));
        assert!(none.contains("No games."));
        assert!(none.contains("<span class=\"new\">new</span> since the previous run"));

        // Metrics.
        let metrics = read(&out.join("metrics.html"));
        assert!(metrics.contains("<td>log-loss</td><td class=\"num\">0.612</td>"));
        assert!(metrics.contains("<li>4 players, 12 games &lt;from&gt; results.csv</li>"));
        assert!(metrics.contains("href=\"index.html\""));
    }

    #[test]
    fn names_js_escapes_names_for_a_script() {
        let mut data = sample();
        data.players[2].name = "x</script><script>alert(1)</script>\"\\\n\u{2028}".into();
        let (_tmp, out) = render(&data);
        let js = read(&out.join("names.js"));
        assert!(js.starts_with("var RB_NAMES=["));
        assert!(js.trim_end().ends_with("];"));
        assert!(!js.contains("</script>"));
        assert!(!js.contains("</"));
        assert!(js.contains("[\"x<\\/script><script>alert(1)<\\/script>\\\"\\\\\\n\\u2028\",3,3]"));
        assert!(js.contains("[\"Alice\",7,1]"));
        // A name with quotes and a tag: JSON string content, not HTML-escaped.
        assert!(js.contains("[\"<b>&\\\"x'<\\/b>\",1234,2]"));
        // Each entry is valid JSON once the variable is taken off.
        let json = js
            .trim_end()
            .strip_prefix("var RB_NAMES=")
            .unwrap()
            .strip_suffix(';')
            .unwrap();
        let parsed: Vec<(String, u32, u32)> = serde_json::from_str(json).unwrap();
        assert_eq!(parsed.len(), 4);
        assert_eq!(parsed[2].0, data.players[2].name);
        assert_eq!(parsed[1].0, EVIL);
        // The search script stays small.
        assert!(SEARCH_JS.len() < 2048, "{}", SEARCH_JS.len());
    }

    #[test]
    fn many_players_are_paged_by_the_thousand() {
        let data = SiteData {
            title: "big".into(),
            system: "elo".into(),
            players: (0..2500)
                .map(|i| player(i * 3, i + 1, &format!("P{i}")))
                .collect(),
            ..SiteData::default()
        };
        let (_tmp, out) = render(&data);
        assert!(out.join("ranks/2.html").is_file());
        assert!(out.join("ranks/3.html").is_file());
        assert!(!out.join("ranks/4.html").exists());
        assert!(!out.join("ranks/1.html").exists());
        let index = read(&out.join("index.html"));
        assert_eq!(body_rows(&index).len(), 1000);
        assert!(index.contains("<a href=\"ranks/2.html\">Next ›</a>"));
        assert!(index.contains("<a href=\"ranks/3.html\">Last »</a>"));
        assert!(index.contains("<span class=\"off\">« First</span>"));
        let p2 = read(&out.join("ranks/2.html"));
        let rows = body_rows(&p2);
        assert_eq!(rows.len(), 1000);
        assert!(rows[0].starts_with("<td class=\"num\">1001</td>"));
        assert!(rows[0].contains("<a href=\"../players/3/3000.html\">P1000</a>"));
        assert!(p2.contains("href=\"../style.css\""));
        assert!(p2.contains("<script src=\"../names.js\" defer>"));
        assert!(p2.contains("data-prefix=\"../\""));
        assert!(p2.contains("<a href=\"../index.html\">« First</a>"));
        assert!(p2.contains("<a href=\"../index.html\">‹ Previous</a>"));
        assert!(p2.contains("<a href=\"3.html\">Next ›</a>"));
        assert!(p2.contains("Page 2 of 3 (ranks 1001–2000)"));
        let p3 = read(&out.join("ranks/3.html"));
        assert_eq!(body_rows(&p3).len(), 500);
        assert!(p3.contains("<a href=\"2.html\">‹ Previous</a>"));
        assert!(p3.contains("<span class=\"off\">Last »</span>"));
        // Every player has a page in their folder, which links back to their page of ranks.
        for i in [0u32, 999, 1000, 2499] {
            let id = i * 3;
            let page = read(&out.join(format!("players/{}/{id}.html", id / 1000)));
            assert!(page.contains(&format!("<h1>P{i}</h1>")));
        }
        let last = read(&out.join("players/7/7497.html"));
        assert!(last.contains("href=\"../../ranks/3.html\">Leaderboard</a>"));
        let js = read(&out.join("names.js"));
        assert_eq!(js.matches("\n[\"P").count(), 2500);
    }

    #[test]
    fn non_finite_numbers_show_a_dash() {
        let mut data = sample();
        data.players[0].rating = f64::NAN;
        data.players[0].interval = Some((f64::NEG_INFINITY, f64::NAN));
        data.players[0].uncertainty = Some(f64::INFINITY);
        data.players[0].recent[0].after = f64::NAN;
        data.players[0].history.push((1_710_000_000, f64::NAN));
        let (_tmp, out) = render(&data);
        let index = read(&out.join("index.html"));
        let page = read(&out.join("players/0/7.html"));
        for html in [&index, &page] {
            assert!(!html.contains("NaN") && !html.contains("inf"), "{html}");
        }
        let row = body_rows(&index)[0];
        assert!(
            row.contains("Alice</a></td><td class=\"num\">–</td>"),
            "{row}"
        );
        assert!(row.contains("[–, –]"));
        assert!(page.contains("<b>–</b>"));
        assert!(page.contains("1590 → –</td><td class=\"num\">–</td>"));
        // The non-finite point is left out of the chart.
        let points = page
            .split("points=\"")
            .nth(1)
            .unwrap()
            .split('"')
            .next()
            .unwrap();
        assert_eq!(points.split(' ').count(), 5);
    }

    #[test]
    fn duplicate_ids_are_refused() {
        let mut data = sample();
        data.players[1].id = 7;
        let tmp = tempfile::tempdir().unwrap();
        let publication = Publication::begin(&tmp.path().join("site"), OWNED).unwrap();
        let e = write_site(&publication.root(), &data).unwrap_err();
        assert!(e.to_string().contains("share the id 7"), "{e}");
    }

    #[test]
    fn ratings_are_rounded_to_their_size() {
        for (v, s) in [
            (1523.4, "1523"),
            (1523.6, "1524"),
            (-250.7, "-251"),
            (100.0, "100"),
            (99.96, "100"),
            (99.94, "99.9"),
            (25.345, "25.3"),
            (-25.36, "-25.4"),
            (8.3333, "8.33"),
            (9.9999, "10.0"),
            (1.0, "1.00"),
            (0.5, "0.500"),
            (0.012345, "0.0123"),
            (0.0999996, "0.100"),
            (1e-9, "0"),
            (-1e-9, "0"),
            (0.0, "0"),
            (-0.0, "0"),
            (f64::NAN, "–"),
            (f64::INFINITY, "–"),
            (f64::NEG_INFINITY, "–"),
        ] {
            assert_eq!(Rating(v).to_string(), s, "{v}");
        }
        assert_eq!(Percent(&0.95).to_string(), "95%");
        assert_eq!(Percent(&0.683).to_string(), "68.3%");
        assert_eq!(MedianRank(&Some(3.0)).to_string(), "3");
        assert_eq!(MedianRank(&Some(2.5)).to_string(), "2.5");
        assert_eq!(MedianRank(&Some(f64::NAN)).to_string(), "–");
    }

    /// A site to look at (and for `scripts/site_screenshots.sh`): 1,500 players, two pages of
    /// ranks, into `$SITE_SAMPLE_DIR` (default `/tmp/rate-batch-site-sample`):
    /// `cargo test --release --lib output::site::tests::write_sample_site -- --ignored`.
    #[test]
    #[ignore]
    fn write_sample_site() {
        let mut data = sample();
        let mut seed = 7u64;
        let mut next = move || {
            seed = seed.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1);
            (seed >> 11) as f64 / (1u64 << 53) as f64
        };
        for i in 4..1500u32 {
            let mut p = player(i * 7 + 11, i + 1, &format!("Player {i}"));
            p.rating = 1600.0 - i as f64 * 0.2;
            p.previous_rank =
                (i % 9 != 0).then(|| (i as i64 + 1 + (i as i64 % 7) - 3).max(1) as u32);
            p.interval = Some((p.rating - 60.0, p.rating + 60.0));
            p.rank_interval = Some((i.saturating_sub(20).max(1), i + 20));
            p.uncertainty = Some(30.0 + next() * 40.0);
            data.players.push(p);
        }
        let alice = &mut data.players[0];
        let mut r = 1500.0;
        alice.history = (0..180)
            .map(|k| {
                r += (next() - 0.45) * 24.0;
                (1_420_070_400 + k * 10 * 86_400, r)
            })
            .collect();
        alice.rating = r;
        alice.interval = Some((r - 52.0, r + 52.0));
        let tmp = std::env::var_os("SITE_SAMPLE_DIR").map_or_else(
            || "/tmp/rate-batch-site-sample".into(),
            std::path::PathBuf::from,
        );
        let publication = Publication::begin(&tmp, OWNED).unwrap();
        write_site(&publication.root(), &data).unwrap();
        publication.commit().unwrap();
        println!("wrote {}", tmp.display());
    }

    /// 100,000 synthetic players, 50 history points, 10 recent games and 5 head-to-head lines
    /// each: `cargo test --release --lib output::site -- --ignored --nocapture` (prints the
    /// time and size; `SITE_BENCH_DIR` chooses the file system).
    #[test]
    #[ignore]
    fn a_hundred_thousand_players() {
        let n = 100_000u32;
        let players: Vec<SitePlayer> = (0..n)
            .map(|i| {
                let mut p = player(i, i + 1, &format!("Player {i} <{}>", i % 97));
                p.previous_rank = (i % 5 != 0).then_some(i + 1 + i % 7);
                p.interval = Some((p.rating - 40.0, p.rating + 40.0));
                p.uncertainty = Some(40.0 + (i % 50) as f64);
                p.history = (0..50)
                    .map(|k| {
                        (
                            1_500_000_000 + k * 604_800,
                            1500.0 + ((k * 37 + i as i64) % 200) as f64,
                        )
                    })
                    .collect();
                p.recent = (0..10)
                    .map(|k| RecentGame {
                        date: "2024-06-30".into(),
                        opponent: Opponent::Player {
                            id: (i + k + 1) % n,
                            name: format!("Player {}", (i + k + 1) % n),
                        },
                        result: ["W", "D", "L"][k as usize % 3].into(),
                        before: 1500.0 + k as f64,
                        after: 1503.5 + k as f64,
                    })
                    .collect();
                p.h2h = (0..5)
                    .map(|k| H2hLine {
                        id: (i + k * 13 + 1) % n,
                        name: format!("Player {}", (i + k * 13 + 1) % n),
                        wins: k,
                        draws: 1,
                        losses: 2,
                    })
                    .collect();
                p
            })
            .collect();
        let data = SiteData {
            title: "synthetic".into(),
            system: "elo".into(),
            generated: "now".into(),
            uncertainty_label: Some("RD".into()),
            interval_level: Some(0.95),
            has_previous: true,
            players,
            ..SiteData::default()
        };
        // SITE_BENCH_DIR: where to write (a tmpfs shows the code's own cost apart from the disk's).
        let tmp = match std::env::var_os("SITE_BENCH_DIR") {
            Some(dir) => tempfile::tempdir_in(dir).unwrap(),
            None => tempfile::tempdir().unwrap(),
        };
        let out = tmp.path().join("site");
        let start = std::time::Instant::now();
        let publication = Publication::begin(&out, OWNED).unwrap();
        write_site(&publication.root(), &data).unwrap();
        let written = start.elapsed();
        let files = publication.commit().unwrap().len();
        let total = start.elapsed();
        fn size(dir: &Path) -> u64 {
            fs::read_dir(dir)
                .unwrap()
                .map(|e| {
                    let e = e.unwrap();
                    let m = e.metadata().unwrap();
                    if m.is_dir() { size(&e.path()) } else { m.len() }
                })
                .sum()
        }
        let bytes = size(&out);
        println!(
            "{n} players: {files} files, {:.1} MB, written in {:.2} s, {:.2} s with the commit \
             ({} rayon threads)",
            bytes as f64 / 1e6,
            written.as_secs_f64(),
            total.as_secs_f64(),
            rayon::current_num_threads()
        );
        assert_eq!(files, n as usize + 4 + 99);
    }
}
