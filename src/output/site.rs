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
//! - `style.css`.
//!
//! Every string from the data is escaped where it is written (HTML text and attributes, and
//! the strings of `names.js`); a number that is not finite is shown as "–". Pages are written
//! straight into their buffered files with `write!`, the player pages and the pages of ranks
//! in parallel (rayon) and without a sync of their own (the generation is synced once when it
//! is committed).

use std::fmt;
use std::io::{self, Write};

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
    root.write("metrics.html", |w| site.metrics_page(w))?;
    root.write("index.html", |w| site.board_page(w, 1))?;
    if site.pages > 1 {
        let ranks = root.folder("ranks")?;
        (2..=site.pages).into_par_iter().try_for_each(|page| {
            ranks.write_unsynced(&format!("{page}.html"), |w| site.board_page(w, page))
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
        folder.write_unsynced(&format!("{}.html", p.id), |w| site.player_page(w, p, at))
    })
}

/// Which optional columns the leaderboard has (the same on every page).
#[derive(Debug, Clone, Copy)]
struct Columns {
    change: bool,
    interval: bool,
    rank_interval: bool,
    uncertainty: bool,
}

impl Columns {
    fn of(data: &SiteData) -> Self {
        Self {
            change: data.has_previous,
            interval: data.interval_level.is_some()
                || data.players.iter().any(|p| p.interval.is_some()),
            rank_interval: data.players.iter().any(|p| p.rank_interval.is_some()),
            uncertainty: data.uncertainty_label.is_some(),
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
            match p.rank {
                Some(rank) => write!(w, "{sep}[\"{}\",{},{rank}]", JsStr(&p.name), p.id)?,
                None => write!(
                    w,
                    "{sep}[\"{}\",{},\"{}\"]",
                    JsStr(&p.name),
                    p.id,
                    p.status.name()
                )?,
            }
        }
        w.write_all(b"\n];\n")
    }

    fn foot(&self, w: &mut dyn Write) -> io::Result<()> {
        write!(
            w,
            "<footer>Generated {} by rate-batch.</footer>\n</body>\n</html>\n",
            Esc(&self.data.generated)
        )
    }

    /// "system · as of … · generated …" under a title.
    fn subtitle(&self, w: &mut dyn Write) -> io::Result<()> {
        let d = self.data;
        write!(w, "<p class=\"sub\">System: {}", Esc(&d.system))?;
        if let Some(as_of) = &d.as_of {
            write!(w, " · as of {}", Esc(as_of))?;
        }
        writeln!(
            w,
            " · {} players · generated {}</p>",
            d.players.len(),
            Esc(&d.generated)
        )
    }

    /// Leaderboard page `page` (1: `index.html`, else `ranks/<page>.html`).
    fn board_page(&self, w: &mut dyn Write, page: usize) -> io::Result<()> {
        let d = self.data;
        let up = if page == 1 { "" } else { "../" };
        if page == 1 {
            head(w, format_args!("{}", Esc(&d.title)), up)?;
        } else {
            head(
                w,
                format_args!("{} · page {page} of {}", Esc(&d.title), self.pages),
                up,
            )?;
        }
        write!(
            w,
            "<header>\n<h1>{}</h1>\n<nav><a href=\"{up}index.html\">Leaderboard</a> · \
             <a href=\"{up}metrics.html\">Metrics</a></nav>\n</header>\n",
            Esc(&d.title)
        )?;
        self.subtitle(w)?;
        write!(
            w,
            "<div id=\"search\" hidden>\n<input type=\"search\" id=\"q\" data-prefix=\"{up}\" \
             placeholder=\"Search players (2 letters or more)\" aria-label=\"Search players\" \
             autocomplete=\"off\">\n<ol id=\"hits\"></ol>\n</div>\n\
             <script src=\"{up}names.js\" defer></script>\n<script>{SEARCH_JS}</script>\n"
        )?;
        let lo = (page - 1) * PAGE_SIZE;
        let hi = (lo + PAGE_SIZE).min(d.players.len());
        self.pager(w, page)?;
        if lo >= hi {
            w.write_all(b"<p class=\"none\">No players.</p>\n")?;
        } else {
            self.board_table(w, &d.players[lo..hi], up)?;
        }
        self.pager(w, page)?;
        self.foot(w)
    }

    /// First, previous, next and last page (nothing when there is one page).
    fn pager(&self, w: &mut dyn Write, page: usize) -> io::Result<()> {
        let n = self.pages;
        if n <= 1 {
            return Ok(());
        }
        let href = |to: usize| PageHref { from: page, to };
        w.write_all(b"<nav class=\"pager\">")?;
        let link = |w: &mut dyn Write, to: usize, label: &str, on: bool| {
            if on {
                write!(w, "<a href=\"{}\">{label}</a> ", href(to))
            } else {
                write!(w, "<span class=\"off\">{label}</span> ")
            }
        };
        link(w, 1, "« First", page > 1)?;
        link(w, page.saturating_sub(1).max(1), "‹ Previous", page > 1)?;
        // The ranks shown on the page (ties make them differ from the positions).
        let players = &self.data.players;
        let on_page = &players
            [((page - 1) * PAGE_SIZE).min(players.len())..(page * PAGE_SIZE).min(players.len())];
        let first = on_page.iter().find_map(|p| p.rank);
        let last = on_page.iter().rev().find_map(|p| p.rank);
        match (first, last) {
            (Some(first), Some(last)) => write!(
                w,
                "<span class=\"at\">Page {page} of {n} (ranks {first}–{last})</span> "
            )?,
            _ => write!(
                w,
                "<span class=\"at\">Page {page} of {n} (not ranked)</span> "
            )?,
        }
        link(w, (page + 1).min(n), "Next ›", page < n)?;
        link(w, n, "Last »", page < n)?;
        w.write_all(b"</nav>\n")
    }

    fn board_table(&self, w: &mut dyn Write, players: &[SitePlayer], up: &str) -> io::Result<()> {
        let (d, c) = (self.data, self.columns);
        w.write_all(
            b"<div class=\"scroll\">\n<table class=\"board\">\n<thead><tr><th class=\"num\">#</th>",
        )?;
        if c.change {
            w.write_all("<th class=\"chg\">±</th>".as_bytes())?;
        }
        w.write_all(b"<th class=\"name\">Player</th><th class=\"num\">Rating</th>")?;
        if c.interval {
            match d.interval_level {
                Some(level) => write!(w, "<th>{} interval</th>", Percent(level))?,
                None => w.write_all(b"<th>Interval</th>")?,
            }
        }
        if c.rank_interval {
            w.write_all(b"<th>Rank range</th>")?;
        }
        if let Some(label) = &d.uncertainty_label {
            write!(w, "<th class=\"num\">{}</th>", Esc(label))?;
        }
        if d.standings {
            w.write_all(b"<th class=\"num\">Contests</th><th class=\"num\">Best</th><th class=\"num\">Median</th>")?;
        } else {
            w.write_all(
                b"<th class=\"num\">W</th><th class=\"num\">D</th><th class=\"num\">L</th>",
            )?;
        }
        w.write_all(b"<th>Last played</th></tr></thead>\n<tbody>\n")?;
        let columns = 7
            + usize::from(c.change)
            + usize::from(c.interval)
            + usize::from(c.rank_interval)
            + usize::from(d.uncertainty_label.is_some());
        let mut group = None;
        for p in players {
            // The entrants not ranked come after the ranked, each status under its heading.
            if p.status != Status::Ranked && group != Some(p.status) {
                group = Some(p.status);
                writeln!(
                    w,
                    "<tr class=\"apart\"><th colspan=\"{columns}\">Not ranked: {}</th></tr>",
                    status_heading(p.status)
                )?;
            }
            match p.rank {
                Some(rank) => write!(w, "<tr><td class=\"num\">{rank}</td>")?,
                None => write!(
                    w,
                    "<tr class=\"{0}\"><td class=\"num st\">{0}</td>",
                    p.status.name()
                )?,
            }
            if c.change {
                write!(w, "<td class=\"chg\">{}</td>", Change(p))?;
            }
            write!(
                w,
                "<td class=\"name\"><a href=\"{up}{}\">{}</a></td><td class=\"num\">{}</td>",
                PlayerPath(p.id),
                Esc(&p.name),
                Rating(p.rating)
            )?;
            if c.interval {
                match p.interval {
                    Some(iv) => write!(w, "<td class=\"iv\">{}</td>", Interval(iv))?,
                    None => w.write_all(b"<td></td>")?,
                }
            }
            if c.rank_interval {
                match p.rank_interval {
                    Some((a, b)) => write!(w, "<td class=\"iv\">{a}–{b}</td>")?,
                    None => w.write_all(b"<td></td>")?,
                }
            }
            if c.uncertainty {
                match p.uncertainty {
                    Some(u) => write!(w, "<td class=\"num\">{}</td>", Rating(u))?,
                    None => w.write_all(b"<td></td>")?,
                }
            }
            if d.standings {
                write!(
                    w,
                    "<td class=\"num\">{}</td><td class=\"num\">{}</td><td class=\"num\">{}</td>",
                    p.contests,
                    OptRank(p.best_rank),
                    MedianRank(p.median_rank)
                )?;
            } else {
                write!(
                    w,
                    "<td class=\"num\">{}</td><td class=\"num\">{}</td><td class=\"num\">{}</td>",
                    p.wins, p.draws, p.losses
                )?;
            }
            writeln!(w, "<td class=\"date\">{}</td></tr>\n", Esc(&p.last_played))?;
        }
        w.write_all(b"</tbody>\n</table>\n</div>")
    }

    fn metrics_page(&self, w: &mut dyn Write) -> io::Result<()> {
        let d = self.data;
        head(w, format_args!("Metrics · {}", Esc(&d.title)), "")?;
        write!(
            w,
            "<header>\n<h1>Metrics</h1>\n<nav><a href=\"index.html\">Leaderboard</a></nav>\n\
             </header>\n<p class=\"sub\">{}</p>\n",
            Esc(&d.title)
        )?;
        self.subtitle(w)?;
        if d.metrics.is_empty() {
            w.write_all(b"<p class=\"none\">No metrics.</p>\n")?;
        } else {
            w.write_all(b"<div class=\"scroll\">\n<table class=\"metrics\">\n<thead><tr><th>Metric</th><th class=\"num\">Value</th></tr></thead>\n<tbody>\n")?;
            for (name, value) in &d.metrics {
                writeln!(
                    w,
                    "<tr><td>{}</td><td class=\"num\">{}</td></tr>",
                    Esc(name),
                    Esc(value)
                )?;
            }
            w.write_all(b"</tbody>\n</table>\n</div>\n")?;
        }
        if !d.notes.is_empty() {
            w.write_all(b"<h2>Notes</h2>\n<ul class=\"notes\">\n")?;
            for note in &d.notes {
                writeln!(w, "<li>{}</li>\n", Esc(note))?;
            }
            w.write_all(b"</ul>")?;
        }
        self.foot(w)
    }

    /// The page of `p`, at position `at` of the leaderboard (its "Leaderboard" link leads to
    /// the page of ranks that lists it).
    fn player_page(&self, w: &mut dyn Write, p: &SitePlayer, at: usize) -> io::Result<()> {
        let d = self.data;
        let up = "../../";
        head(w, format_args!("{} · {}", Esc(&p.name), Esc(&d.title)), up)?;
        write!(
            w,
            "<header>\n<h1>{}</h1>\n<nav><a href=\"{up}{}\">Leaderboard</a> · \
             <a href=\"{up}metrics.html\">Metrics</a></nav>\n</header>\n\
             <p class=\"sub\">{}</p>\n<dl class=\"facts\">\n",
            Esc(&p.name),
            PageHref {
                from: 1,
                to: at / PAGE_SIZE + 1,
            },
            Esc(&d.title),
        )?;
        let Some(rank) = p.rank else {
            writeln!(
                w,
                "<dt>Rank</dt><dd class=\"{}\">Not ranked: {}</dd>",
                p.status.name(),
                status_heading(p.status)
            )?;
            return self.player_rest(w, p);
        };
        write!(w, "<dt>Rank</dt><dd>{rank} of {}", self.ranked)?;
        if let Some((a, b)) = p.rank_interval {
            write!(w, " <span class=\"iv\">(range {a}–{b})</span>")?;
        }
        if d.has_previous {
            match p.previous_rank {
                Some(prev) if prev != rank => write!(
                    w,
                    " <span class=\"chg\">{} since the previous run (was {prev})</span>",
                    Change(p)
                )?,
                Some(_) => w.write_all(b" <span class=\"chg\">unchanged since the previous run</span>")?,
                None => w.write_all(b" <span class=\"chg\"><span class=\"new\">new</span> since the previous run</span>")?,
            }
        }
        w.write_all(b"</dd>\n")?;
        self.player_rest(w, p)
    }

    /// A player's page after his rank: rating, record, chart, recent games, head to head.
    fn player_rest(&self, w: &mut dyn Write, p: &SitePlayer) -> io::Result<()> {
        let d = self.data;
        write!(w, "<dt>Rating</dt><dd><b>{}</b>", Rating(p.rating))?;
        if let Some(iv) = p.interval {
            write!(w, " <span class=\"iv\">{}", Interval(iv))?;
            if let Some(level) = d.interval_level {
                write!(w, " ({})", Percent(level))?;
            }
            w.write_all(b"</span>")?;
        }
        if let Some(u) = p.uncertainty {
            let label = d.uncertainty_label.as_deref().unwrap_or("uncertainty");
            write!(w, " · {} {}", Esc(label), Rating(u))?;
        }
        write!(w, "</dd>\n<dt>Contests</dt><dd>{}</dd>\n", p.contests)?;
        if d.standings {
            write!(
                w,
                "<dt>Best rank</dt><dd>{}</dd>\n<dt>Median rank</dt><dd>{}</dd>\n",
                OptRank(p.best_rank),
                MedianRank(p.median_rank)
            )?;
        } else {
            writeln!(
                w,
                "<dt>Record</dt><dd>{} W · {} D · {} L</dd>",
                p.wins, p.draws, p.losses
            )?;
        }
        write!(
            w,
            "<dt>Last played</dt><dd>{}</dd>\n</dl>\n<h2>Rating history</h2>\n",
            Esc(&p.last_played)
        )?;
        match super::chart::rating_chart(&p.history) {
            Ok(svg) => w.write_all(svg.as_bytes())?,
            Err(note) => writeln!(w, "<p class=\"none\">{note}</p>")?,
        }

        w.write_all(b"<h2>Recent games</h2>\n")?;
        if p.recent.is_empty() {
            w.write_all(b"<p class=\"none\">No games.</p>\n")?;
        } else {
            // Standings: the contest (its name and field) where a game has the opponent.
            let against = if d.standings { "Contest" } else { "Opponent" };
            write!(
                w,
                "<div class=\"scroll\">\n<table>\n<thead><tr><th>Date</th><th class=\"name\">{against}</th><th>Result</th><th class=\"num\">Rating</th><th class=\"num\">±</th></tr></thead>\n<tbody>\n"
            )?;
            for g in &p.recent {
                write!(
                    w,
                    "<tr><td class=\"date\">{}</td><td class=\"name\">",
                    Esc(&g.date)
                )?;
                match &g.opponent {
                    Opponent::Player { id, name } => self.player_link(w, *id, name)?,
                    Opponent::Team(name) => write!(w, "{}", Esc(name))?,
                    Opponent::Field { label, entrants } if label.is_empty() => {
                        write!(w, "field of {entrants}")?;
                    }
                    Opponent::Field { label, entrants } => {
                        write!(w, "{} ({entrants} entrants)", Esc(label))?;
                    }
                }
                let class = match g.result.as_str() {
                    "W" => " class=\"w\"",
                    "D" => " class=\"d\"",
                    "L" => " class=\"l\"",
                    _ => "",
                };
                writeln!(
                    w,
                    "</td><td{class}>{}</td><td class=\"num\">{} → {}</td>{}</tr>",
                    Esc(&g.result),
                    Rating(g.before),
                    Rating(g.after),
                    Delta(g.before, g.after)
                )?;
            }
            w.write_all(b"</tbody>\n</table>\n</div>\n")?;
        }

        if !p.h2h.is_empty() {
            w.write_all(b"<h2>Head to head</h2>\n<div class=\"scroll\">\n<table>\n<thead><tr><th class=\"name\">Opponent</th><th class=\"num\">W</th><th class=\"num\">D</th><th class=\"num\">L</th></tr></thead>\n<tbody>\n")?;
            for h in &p.h2h {
                w.write_all(b"<tr><td class=\"name\">")?;
                self.player_link(w, h.id, &h.name)?;
                writeln!(
                    w,
                    "</td><td class=\"num\">{}</td><td class=\"num\">{}</td><td class=\"num\">{}</td></tr>",
                    h.wins, h.draws, h.losses
                )?;
            }
            w.write_all(b"</tbody>\n</table>\n</div>\n")?;
        }
        self.foot(w)
    }

    /// A link from a player page to another's (plain text for one without a page).
    fn player_link(&self, w: &mut dyn Write, id: u32, name: &str) -> io::Result<()> {
        if self.ids.contains(&id) {
            write!(w, "<a href=\"../{:#}\">{}</a>", PlayerPath(id), Esc(name))
        } else {
            write!(w, "{}", Esc(name))
        }
    }
}

/// The start of every page, up to and including `<body>`; `up` leads to the site's root.
fn head(w: &mut dyn Write, title: fmt::Arguments, up: &str) -> io::Result<()> {
    write!(
        w,
        "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n\
         <meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n\
         <title>{title}</title>\n<link rel=\"stylesheet\" href=\"{up}style.css\">\n\
         </head>\n<body>\n"
    )
}

/// `<k>/<id>.html` below `players/`, as `players/<k>/<id>.html` or, from a player page,
/// `../<k>/<id>.html` (the caller adds the prefix).
struct PlayerPath(u32);

impl fmt::Display for PlayerPath {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if f.alternate() {
            write!(f, "{}/{}.html", self.0 / PLAYERS_PER_FOLDER, self.0)
        } else {
            write!(f, "players/{}/{}.html", self.0 / PLAYERS_PER_FOLDER, self.0)
        }
    }
}

/// The relative address of leaderboard page `to` from page `from` (1: `index.html`, else
/// `ranks/<k>.html`), or from a player page when `from` is 1 and the caller adds `../../`.
struct PageHref {
    from: usize,
    to: usize,
}

impl fmt::Display for PageHref {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match (self.from, self.to) {
            (1, 1) => f.write_str("index.html"),
            (1, k) => write!(f, "ranks/{k}.html"),
            (_, 1) => f.write_str("../index.html"),
            (_, k) => write!(f, "{k}.html"),
        }
    }
}

/// Text escaped for HTML element content and attribute values.
struct Esc<'a>(&'a str);

impl fmt::Display for Esc<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let (s, b) = (self.0, self.0.as_bytes());
        let mut start = 0;
        let mut i = 0;
        while i < b.len() {
            // (Byte by byte: every character to replace is ASCII but the C1 controls, U+0080
            // to U+009F, which are 0xC2 and a byte 0x80 to 0x9F.)
            let (entity, len) = match b[i] {
                b'&' => ("&amp;", 1),
                b'<' => ("&lt;", 1),
                b'>' => ("&gt;", 1),
                b'"' => ("&quot;", 1),
                b'\'' => ("&#39;", 1),
                b'\t' | b'\n' | b'\x0c' | b'\r' => {
                    i += 1;
                    continue;
                }
                0x00..=0x1f | 0x7f => ("\u{fffd}", 1),
                0xc2 if matches!(b.get(i + 1), Some(0x80..=0x9f)) => ("\u{fffd}", 2),
                _ => {
                    i += 1;
                    continue;
                }
            };
            f.write_str(&s[start..i])?;
            f.write_str(entity)?;
            i += len;
            start = i;
        }
        f.write_str(&s[start..])
    }
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

/// A rating (or any rating-scaled number) for display: no decimals from 100 up, else three
/// significant digits (at most six decimals); "–" when not finite.
pub struct Rating(pub f64);

/// Decimals shown for a rating of this size.
fn rating_decimals(v: f64) -> usize {
    let a = v.abs();
    if a >= 100.0 || a == 0.0 || !a.is_finite() {
        0
    } else {
        (2 - a.log10().floor() as i64).clamp(0, 6) as usize
    }
}

impl fmt::Display for Rating {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let v = self.0;
        if !v.is_finite() {
            return f.write_str(DASH);
        }
        let mut d = rating_decimals(v);
        let Some(mut units) = scaled(v, d) else {
            // Beyond 2^53: no decimals (d is 0 from 100 up), and every digit exact.
            return write!(f, "{v:.0}");
        };
        // Rounding may carry into one more digit (99.96 → 100.0): then the decimals of the
        // new size (|v| < 100 here, so it fits).
        if d > 0 && units >= 1000 {
            d -= 1;
            units = scaled(v, d).unwrap_or(0);
        }
        if units == 0 {
            // Never "-0".
            return f.write_str("0");
        }
        if v < 0.0 {
            f.write_str("-")?;
        }
        Fixed { units, d }.fmt(f)
    }
}

/// Powers of ten up to the most decimals shown.
const POW10: [u64; 7] = [1, 10, 100, 1_000, 10_000, 100_000, 1_000_000];

/// |v| rounded (half away from zero) to `d` decimals, as a count of 10^-d, when that fits an
/// f64's integers exactly.
pub(super) fn scaled(v: f64, d: usize) -> Option<u64> {
    let units = (v.abs() * POW10[d] as f64).round();
    (units < 9.0e15).then_some(units as u64)
}

/// A non-negative number of `units` of 10^-d, written with `d` decimals (integer arithmetic:
/// float formatting with a precision is several times slower, and pages have many numbers).
pub(super) struct Fixed {
    pub(super) units: u64,
    pub(super) d: usize,
}

impl fmt::Display for Fixed {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let d = self.d;
        if d == 0 {
            write!(f, "{}", self.units)
        } else {
            let p = POW10[d];
            write!(f, "{}.{:0d$}", self.units / p, self.units % p)
        }
    }
}

/// Formats a rating for display (see [`Rating`]).
pub fn format_rating(v: f64) -> String {
    Rating(v).to_string()
}

/// "[lo, hi]".
struct Interval((f64, f64));

impl fmt::Display for Interval {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "[{}, {}]", Rating(self.0.0), Rating(self.0.1))
    }
}

/// A level as a percentage: 0.95 → "95%", 0.683 → "68.3%".
struct Percent(f64);

impl fmt::Display for Percent {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let p = self.0 * 100.0;
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

/// The signed change from `before` to `after`, as a table cell, with the decimals of the
/// ratings shown beside it.
struct Delta(f64, f64);

impl fmt::Display for Delta {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let (before, after) = (self.0, self.1);
        let delta = after - before;
        if !delta.is_finite() {
            return write!(f, "<td class=\"num\">{DASH}</td>");
        }
        let d = rating_decimals(before).max(rating_decimals(after));
        let Some(units) = scaled(delta, d) else {
            return write!(f, "<td class=\"num\">{delta:+.0}</td>");
        };
        let shown = Fixed { units, d };
        if units == 0 {
            write!(f, "<td class=\"num\">±{shown}</td>")
        } else if delta > 0.0 {
            write!(f, "<td class=\"num up\">+{shown}</td>")
        } else {
            write!(f, "<td class=\"num down\">-{shown}</td>")
        }
    }
}

/// What the heading above a status's entrants says.
fn status_heading(s: Status) -> &'static str {
    match s {
        Status::Ranked => "ranked",
        Status::Provisional => "provisional (too uncertain, or too few contests, to rank yet)",
        Status::Inactive => "inactive (no contest in the activity window before the last)",
    }
}

/// The change of rank since the previous run: ▲3, ▼2, "new", "="; nothing for a player not
/// ranked.
struct Change<'a>(&'a SitePlayer);

impl fmt::Display for Change<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let p = self.0;
        let Some(rank) = p.rank else {
            return Ok(());
        };
        match p.previous_rank {
            None => f.write_str("<span class=\"new\">new</span>"),
            Some(prev) if prev > rank => {
                write!(f, "<span class=\"up\">▲{}</span>", prev - rank)
            }
            Some(prev) if prev < rank => {
                write!(f, "<span class=\"down\">▼{}</span>", rank - prev)
            }
            Some(_) => f.write_str("<span class=\"same\">=</span>"),
        }
    }
}

struct OptRank(Option<u32>);

impl fmt::Display for OptRank {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.0 {
            Some(r) => write!(f, "{r}"),
            None => f.write_str(DASH),
        }
    }
}

/// A median rank: whole, or with one decimal (x.5); "–" when missing or not finite.
struct MedianRank(Option<f64>);

impl fmt::Display for MedianRank {
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
const SEARCH_JS: &str = "(function(){var s=document.getElementById('search'),q=document.getElementById('q'),o=document.getElementById('hits'),p=q.getAttribute('data-prefix'),L=null;s.hidden=false;q.addEventListener('input',function(){var t=q.value.trim().toLowerCase(),a=window.RB_NAMES||[],n=0;o.textContent='';if(t.length<2)return;if(!L||L.length!==a.length)L=a.map(function(e){return String(e[0]).toLowerCase()});for(var i=0;i<a.length&&n<50;i++){if(L[i].indexOf(t)<0)continue;var e=a[i],li=document.createElement('li'),k=document.createElement('a');k.href=p+'players/'+Math.floor(e[1]/1000)+'/'+e[1]+'.html';k.textContent=e[0];li.appendChild(k);li.appendChild(document.createTextNode(typeof e[2]==='number'?' #'+e[2]:' ('+e[2]+')'));o.appendChild(li);n++}if(!n){o.textContent='No match.'}})})();";

const STYLE: &str = "\
:root{--fg:#1d2330;--muted:#5f6b7a;--line:#dde2e8;--head:#f3f5f8;--link:#1858b8;--up:#1a7f37;--down:#c62828}
*{box-sizing:border-box}
body{margin:0 auto;max-width:1200px;padding:1rem 1.25rem 2rem;font:15px/1.45 system-ui,-apple-system,\"Segoe UI\",Roboto,Helvetica,Arial,sans-serif;color:var(--fg);background:#fff}
header{display:flex;flex-wrap:wrap;align-items:baseline;justify-content:space-between;gap:.25rem 1rem}
h1{font-size:1.6rem;margin:.2rem 0;overflow-wrap:anywhere}
h2{font-size:1.15rem;margin:1.6rem 0 .5rem}
a{color:var(--link);text-decoration:none}
a:hover{text-decoration:underline}
.sub{color:var(--muted);margin:.2rem 0 1rem}
.none{color:var(--muted);font-style:italic}
#search{position:relative;margin:0 0 1rem}
#q{width:100%;max-width:28rem;padding:.45rem .6rem;font:inherit;border:1px solid #b8c1cc;border-radius:6px}
#hits{margin:.3rem 0 0;padding-left:1.6rem;max-width:28rem}
#hits li{padding:.1rem 0;color:var(--muted)}
.scroll{overflow-x:auto;-webkit-overflow-scrolling:touch}
table{border-collapse:collapse;width:100%;font-variant-numeric:tabular-nums}
th,td{padding:.3rem .6rem;border-bottom:1px solid var(--line);text-align:left;white-space:nowrap}
thead th{background:var(--head);font-weight:600;position:sticky;top:0}
tbody tr:nth-child(even){background:#fafbfc}
tbody tr:hover{background:#eef3fb}
.num{text-align:right}
td.name{white-space:normal;overflow-wrap:anywhere;min-width:10rem}
.iv,.date,.same{color:var(--muted)}
.chg{text-align:center}
.up,.w{color:var(--up)}
.down,.l{color:var(--down)}
.new{color:#8a5a00;font-size:.85em;font-weight:600;text-transform:uppercase}
tr.apart th{background:#fff;color:var(--muted);font-weight:600;padding-top:1rem;white-space:normal}
td.st{color:var(--muted);font-size:.85em}
.pager{margin:.8rem 0;display:flex;flex-wrap:wrap;gap:.3rem .8rem;align-items:center}
.pager .off{color:#a8b0ba}
.pager .at{color:var(--muted)}
dl.facts{display:grid;grid-template-columns:max-content 1fr;gap:.3rem 1.2rem;margin:0}
dl.facts dt{color:var(--muted)}
dl.facts dd{margin:0}
svg.chart{width:100%;max-width:760px;height:auto;display:block;background:#fff}
svg.chart .grid line{stroke:#eceff3;stroke-width:1}
svg.chart .axis{fill:none;stroke:#8893a0;stroke-width:1}
svg.chart text{font:11px system-ui,sans-serif;fill:var(--muted)}
svg.chart .ylab text{text-anchor:end}
svg.chart .xlab text{text-anchor:middle}
svg.chart .line{fill:none;stroke:var(--link);stroke-width:1.6;stroke-linejoin:round}
svg.chart .last{fill:var(--link);stroke:#fff;stroke-width:1.5}
ul.notes{padding-left:1.3rem}
footer{margin-top:2rem;color:var(--muted);font-size:.85rem}
@media (max-width:600px){body{padding:.6rem;font-size:14px}th,td{padding:.25rem .4rem}}
";

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

    /// Escaped text: markup's characters as entities, the control characters HTML refuses as
    /// U+FFFD, the rest as it is (multi-byte characters beside them included).
    #[test]
    fn escaped_text_has_no_control_characters() {
        assert_eq!(
            Esc("é\x01<ü\x1b\x7f\u{9f}>\tö").to_string(),
            "é\u{fffd}&lt;ü\u{fffd}\u{fffd}\u{fffd}&gt;\tö"
        );
    }

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
            assert_eq!(format_rating(v), s, "{v}");
        }
        assert_eq!(Percent(0.95).to_string(), "95%");
        assert_eq!(Percent(0.683).to_string(), "68.3%");
        assert_eq!(MedianRank(Some(3.0)).to_string(), "3");
        assert_eq!(MedianRank(Some(2.5)).to_string(), "2.5");
        assert_eq!(MedianRank(Some(f64::NAN)).to_string(), "–");
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
