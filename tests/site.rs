//! `replay --site DIR`: the static website as a league publishes it.

mod common;

use common::{rate_batch, texts, write};
use std::path::Path;
use tempfile::TempDir;

fn read(p: &Path) -> String {
    std::fs::read_to_string(p).unwrap_or_else(|e| panic!("{}: {e}", p.display()))
}

fn site_run(games: &Path, out: &Path, site: &Path, extra: &[&str]) -> std::process::Output {
    let mut args = vec![
        "replay",
        games.to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
        "--site",
        site.to_str().unwrap(),
    ];
    args.extend_from_slice(extra);
    rate_batch(&args)
}

/// The site of a small league: every player on the index with a link to a page that has the
/// rating chart (one point per game), the last games with their opponents and results, the
/// head-to-head counts; the metrics page; a second run shows the changes of rank.
#[test]
fn a_league_site_with_pages_and_rank_changes() {
    let dir = TempDir::new().unwrap();
    // ann beats bob three times, bob beats cid twice, then cid beats ann.
    let games = write(
        dir.path(),
        "g.csv",
        "time,a,b,result\n2024-01-01,ann,bob,1\n2024-01-02,ann,bob,1\n2024-01-03,bob,cid,1\n\
         2024-01-04,ann,bob,1\n2024-01-05,bob,cid,1\n2024-01-06,cid,ann,1\n",
    );
    // (Six games rank nobody by the status rules: the league's site ranks everyone.)
    let (out, site) = (dir.path().join("out"), dir.path().join("site"));
    let o = site_run(&games, &out, &site, &["--rank-all"]);
    assert!(o.status.success(), "{}", texts(&o).1);
    assert!(
        texts(&o).0.contains("(index.html, 3 player pages)"),
        "{}",
        texts(&o).0
    );
    for f in [
        "index.html",
        "metrics.html",
        "style.css",
        "names.js",
        "ranks.csv",
    ] {
        assert!(site.join(f).is_file(), "{f}");
    }
    let index = read(&site.join("index.html"));
    let order: Vec<usize> = ["ann", "bob", "cid"]
        .iter()
        .map(|n| index.find(&format!(">{n}</a>")).unwrap())
        .collect();
    assert!(order[0] < order[1] && order[1] < order[2], "ann, bob, cid");
    // Pages by player id: ann 0, bob 1, cid 2.
    let ann = read(&site.join("players/0/0.html"));
    let points = ann
        .split("<polyline")
        .nth(1)
        .and_then(|s| s.split("points=\"").nth(1))
        .and_then(|s| s.split('"').next())
        .unwrap();
    assert_eq!(points.split_whitespace().count(), 4, "ann played 4 games");
    // Her last game first: lost to cid; her head-to-head with bob 3-0-0.
    let recent = ann.split("Recent games").nth(1).unwrap();
    let first_row = recent.split("<tr").nth(2).unwrap();
    assert!(
        first_row.contains("2024-01-06") && first_row.contains("cid"),
        "{first_row}"
    );
    assert!(first_row.contains(">L<"), "{first_row}");
    assert!(first_row.contains("href=\"../0/2.html\""), "{first_row}");
    let h2h = ann.split("Head to head").nth(1).unwrap();
    let bob = h2h.split("<tr").find(|r| r.contains(">bob<")).unwrap();
    assert!(bob.contains(">3<") && bob.contains(">0<"), "{bob}");
    assert!(read(&site.join("metrics.html")).contains("log loss"));
    assert!(ann.contains(">Opponent</th>"));
    assert_eq!(
        read(&site.join("ranks.csv")),
        "rank,player\n1,ann\n2,bob\n3,cid\n"
    );

    // Next night: cid beats ann and bob again and again; dan arrives.
    let more = write(
        dir.path(),
        "g2.csv",
        &format!(
            "{}2024-01-07,cid,ann,1\n2024-01-08,cid,bob,1\n2024-01-09,cid,ann,1\n\
             2024-01-10,dan,bob,1\n",
            read(&games)
        ),
    );
    let o = site_run(&more, &out, &site, &["--rank-all"]);
    assert!(o.status.success(), "{}", texts(&o).1);
    let index = read(&site.join("index.html"));
    let row_of = |name: &str| {
        index
            .split("<tr")
            .find(|r| r.contains(&format!(">{name}</a>")))
            .unwrap()
            .to_string()
    };
    assert!(row_of("cid").contains("▲2"), "{}", row_of("cid"));
    assert!(row_of("dan").contains("new"), "{}", row_of("dan"));
    assert!(row_of("ann").contains('▼'), "{}", row_of("ann"));
}

/// The site ranks as the leaderboard does: the ranked first, numbered; the provisional and
/// the inactive after them under headings, marked and unnumbered; their pages say why; the
/// search data and `ranks.csv` (what the next run's changes count from) rank the ranked only.
#[test]
fn a_site_ranks_the_ranked_and_lists_the_others_apart() {
    let dir = TempDir::new().unwrap();
    // Three regulars play all of 2024; `old` stops in January 2023; `new` plays twice in
    // December 2024.
    let mut text = String::from("time,a,b,result\n");
    for d in 1..=20 {
        text.push_str(&format!("2023-01-{d:02},old,r1,0\n"));
    }
    for m in 1..=12 {
        for d in [3, 13, 23] {
            text.push_str(&format!(
                "2024-{m:02}-{d:02},r1,r2,1\n2024-{m:02}-{d:02},r2,r3,1\n"
            ));
        }
    }
    text.push_str("2024-12-24,new,r3,1\n2024-12-25,new,r2,1\n");
    let games = write(dir.path(), "g.csv", &text);
    let (out, site) = (dir.path().join("out"), dir.path().join("site"));
    let o = site_run(&games, &out, &site, &[]);
    assert!(o.status.success(), "{}", texts(&o).1);
    let board = common::read_csv(&out.join("leaderboard.csv"));
    let status: Vec<(&str, &str, &str)> = board[1..]
        .iter()
        .map(|r| (r[0].as_str(), r[1].as_str(), r[10].as_str()))
        .collect();
    assert_eq!(
        status,
        [
            ("1", "r1", "ranked"),
            ("2", "r2", "ranked"),
            ("3", "r3", "ranked"),
            ("", "new", "provisional"),
            ("", "old", "inactive")
        ]
    );
    let index = read(&site.join("index.html"));
    let at = |needle: &str| index.find(needle).unwrap_or_else(|| panic!("{needle}"));
    assert!(
        at(">r3</a>") < at("Not ranked: provisional")
            && at("Not ranked: provisional") < at(">new</a>")
    );
    assert!(
        at(">new</a>") < at("Not ranked: inactive") && at("Not ranked: inactive") < at(">old</a>")
    );
    let row_of = |name: &str| {
        index
            .split("<tr")
            .find(|r| r.contains(&format!(">{name}</a>")))
            .unwrap()
            .to_string()
    };
    assert!(row_of("r1").contains(">1</td>"), "{}", row_of("r1"));
    assert!(
        row_of("new").contains(">provisional</td>"),
        "{}",
        row_of("new")
    );
    assert!(
        row_of("old").contains(">inactive</td>"),
        "{}",
        row_of("old")
    );
    // new is player 3 (r1 0, old 1, r2 2, r3... by first appearance: old 0, r1 1, r2 2, r3 3,
    // new 4).
    let new_page = read(&site.join("players/0/4.html"));
    assert!(new_page.contains("Not ranked: provisional"), "{new_page}");
    let r1_page = read(&site.join("players/0/1.html"));
    assert!(r1_page.contains("<dt>Rank</dt><dd>1 of 3"), "{r1_page}");
    assert_eq!(
        read(&site.join("ranks.csv")),
        "rank,player\n1,r1\n2,r2\n3,r3\n"
    );
    let names = read(&site.join("names.js"));
    assert!(names.contains("[\"old\",0,\"inactive\"]"), "{names}");
    assert!(names.contains("[\"r1\",1,1]"), "{names}");
}

/// Standings: the pages give places, the contests as the field; the site never lands in the
/// output folder itself, and a link planted as the previous ranks is not followed.
#[test]
fn standings_site_and_refusals() {
    let dir = TempDir::new().unwrap();
    let mut text = String::from("contest,time,player,rank\n");
    for c in 0..5 {
        for p in 0..6 {
            text.push_str(&format!("Round {c},{},p{p},{}\n", c + 1, (p + c) % 6 + 1));
        }
    }
    let input = write(dir.path(), "s.csv", &text);
    let (out, site) = (dir.path().join("out"), dir.path().join("site"));
    let o = site_run(&input, &out, &site, &["--format", "standings"]);
    assert!(o.status.success(), "{}", texts(&o).1);
    let index = read(&site.join("index.html"));
    assert!(
        index.contains("Best") && index.contains("Median"),
        "standings columns"
    );
    let page = read(&site.join("players/0/0.html"));
    assert!(page.contains("of 6"), "a place of six");
    assert!(page.contains("Round 4"), "the contest named");
    assert!(
        page.contains(">Contest</th>"),
        "the column says what it holds"
    );

    let o = site_run(&input, &out, &out, &["--format", "standings"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(texts(&o).1.contains("output folder"), "{}", texts(&o).1);

    // A planted link as ranks.csv: the change column is not fed from it.
    let planted = write(dir.path(), "planted.csv", "rank,player\n1,p5\n");
    std::fs::remove_file(site.join("ranks.csv")).unwrap();
    std::os::unix::fs::symlink(&planted, site.join("ranks.csv")).unwrap();
    let o = site_run(&input, &out, &site, &["--format", "standings"]);
    assert!(o.status.success(), "{}", texts(&o).1);
    assert!(!read(&site.join("index.html")).contains('▼'));
    assert_eq!(read(&planted), "rank,player\n1,p5\n", "untouched");
}

/// A nightly site: resumed from a state, its player pages are those of one replay of the
/// whole history, every section of them (the curve, the last games with their opponents and
/// results, the head-to-head records, the figures), whether night 2's input is the whole
/// history or only its new games (the earlier curves read back from history.csv, the earlier
/// last games and head-to-head tallies from the site's recent.csv and h2h.csv).
#[test]
fn a_resumed_site_shows_whole_careers() {
    let dir = TempDir::new().unwrap();
    let league = common::league(dir.path(), 6);
    let text = read(&league);
    let lines: Vec<&str> = text.lines().collect();
    let cut = lines.len() / 2;
    let half = write(dir.path(), "half.csv", &(lines[..cut].join("\n") + "\n"));
    // (Named as the whole file is: the pages name their input.)
    std::fs::create_dir(dir.path().join("new")).unwrap();
    let rest = write(
        &dir.path().join("new"),
        "league.csv",
        &(std::iter::once(lines[0])
            .chain(lines[cut..].iter().copied())
            .collect::<Vec<_>>()
            .join("\n")
            + "\n"),
    );
    let whole = dir.path().join("whole");
    let o = site_run(&league, &dir.path().join("out2"), &whole, &[]);
    assert!(o.status.success(), "{}", texts(&o).1);
    // The pages but their time of making and the change of rank (only the resumed run has a
    // previous one).
    let page = |root: &Path, id: usize| {
        read(&root.join(format!("players/0/{id}.html")))
            .lines()
            .filter(|l| !l.contains("Generated") && !l.contains("<dt>Rank</dt>"))
            .collect::<Vec<_>>()
            .join("\n")
    };
    for (k, night2) in [&league, &rest].into_iter().enumerate() {
        let (out, site, state) = (
            dir.path().join(format!("out-{k}")),
            dir.path().join(format!("site-{k}")),
            dir.path().join(format!("s-{k}.state")),
        );
        let s = state.to_str().unwrap();
        let o = site_run(&half, &out, &site, &["--save-state", s]);
        assert!(o.status.success(), "{}", texts(&o).1);
        let o = site_run(night2, &out, &site, &["--resume", s, "--save-state", s]);
        assert!(o.status.success(), "{}", texts(&o).1);
        for id in 0..6 {
            let (resumed, fresh) = (page(&site, id), page(&whole, id));
            for section in [
                "<polyline",
                "<h2>Recent games</h2>",
                "<h2>Head to head</h2>",
                ">W</td>",
                ">L</td>",
            ] {
                assert!(fresh.contains(section), "{section}: {fresh}");
            }
            assert_eq!(
                resumed,
                fresh,
                "player {id}, night 2 of {}",
                night2.display()
            );
        }
        // metrics.json's `history` (and metrics.html) describe the whole history, as the
        // full replay's input does; `input` is this run's.
        let json = |d: &Path| -> serde_json::Value {
            serde_json::from_str(&read(&d.join("metrics.json"))).unwrap()
        };
        let (m, full) = (json(&out), json(&dir.path().join("out2")));
        for key in ["contests", "placings", "players"] {
            assert_eq!(m["history"][key], full["input"][key], "{key}");
        }
        assert_eq!(m["history"]["rounds"], full["rounds"]);
        assert!(full.get("history").is_none());
        let html = read(&site.join("metrics.html"));
        let whole = format!(
            "the whole history, the runs resumed from and this one: {} contests",
            full["input"]["contests"]
        );
        assert!(html.contains(&whole), "{html}");
    }
}

/// The screenshot check (`scripts/site_screenshots.sh`): the pages have a table and a chart,
/// and where a headless Chromium exists, the browser renders them (screenshots and the DOM
/// it built); elsewhere it says it skipped the browser.
#[test]
fn site_screenshots_in_a_browser() {
    let dir = TempDir::new().unwrap();
    let league = common::league(dir.path(), 12);
    let (out, site) = (dir.path().join("out"), dir.path().join("site"));
    let o = site_run(&league, &out, &site, &[]);
    assert!(o.status.success(), "{}", texts(&o).1);
    let shots = dir.path().join("shots");
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("scripts/site_screenshots.sh");
    let o = std::process::Command::new("bash")
        .arg(&script)
        .arg(&site)
        .arg(&shots)
        .output()
        .unwrap();
    let (stdout, stderr) = texts(&o);
    assert!(o.status.success(), "{stdout}{stderr}");
    assert!(stdout.contains("checked:"), "{stdout}");
    if stdout.contains("skipped: no Chromium") {
        eprintln!("site_screenshots_in_a_browser: SKIPPED the browser part (no Chromium here)");
    } else {
        assert!(stdout.contains("browser:"), "{stdout}");
        for png in ["index.png", "player.png"] {
            let bytes = std::fs::read(shots.join(png)).unwrap();
            assert_eq!(&bytes[1..4], b"PNG");
        }
    }
}

/// `--site` inside `--out` (the outputs are swapped in as one folder, and the site with them),
/// or `--out` inside `--site`, is refused before any work: exit 2, both named, nothing
/// written, no staging folder left.
#[test]
fn a_site_inside_the_outputs_or_around_them_is_refused_before_any_work() {
    let dir = TempDir::new().unwrap();
    let games = write(
        dir.path(),
        "g.csv",
        "time,a,b,result\n2024-01-01,ann,bob,1\n2024-01-02,bob,cid,1\n",
    );
    let out = dir.path().join("o9");
    for (o, s) in [
        (out.clone(), out.join("web")),
        (out.clone(), out.join("deeper/./web")),
        (out.join("web/../data"), out.join("web/..")),
        (out.join("data"), out.clone()),
    ] {
        let run = site_run(&games, &o, &s, &["--quiet"]);
        let (stdout, stderr) = texts(&run);
        assert_eq!(run.status.code(), Some(2), "{stdout}{stderr}");
        assert!(stderr.contains("is inside"), "{stderr}");
        assert!(!out.exists(), "nothing written: {stderr}");
    }
    // Side by side: published.
    let run = site_run(&games, &out.join("data"), &out.join("web"), &["--quiet"]);
    assert!(run.status.success(), "{}", texts(&run).1);
    assert!(out.join("web/index.html").is_file());
}

/// Names with control characters (which HTML does not allow as they are) reach neither the
/// site's pages nor the report raw: each is the replacement character.
#[test]
fn control_characters_in_names_never_reach_the_html() {
    let dir = TempDir::new().unwrap();
    let games = write(
        dir.path(),
        "g.csv",
        "time,a,b,result\n2024-01-01,a\x01nn,b\x1bob,1\n2024-01-02,b\x1bob,c\x7fid,1\n\
         2024-01-03,c\x7fid,a\x01nn,0.5\n",
    );
    let (out, site) = (dir.path().join("out"), dir.path().join("site"));
    let run = site_run(&games, &out, &site, &["--quiet", "--report"]);
    assert!(run.status.success(), "{}", texts(&run).1);
    let mut pages = vec![out.join("report.html")];
    let mut folders = vec![site.clone()];
    while let Some(d) = folders.pop() {
        for e in std::fs::read_dir(&d).unwrap() {
            let p = e.unwrap().path();
            if p.is_dir() {
                folders.push(p);
            } else if p.extension().is_some_and(|x| x == "html") {
                pages.push(p);
            }
        }
    }
    assert!(pages.len() >= 5, "{pages:?}");
    for p in &pages {
        let html = read(p);
        let bad = html
            .chars()
            .find(|&c| c.is_control() && !matches!(c, '\t' | '\n' | '\r' | '\x0c'));
        assert_eq!(bad, None, "{}", p.display());
    }
    assert!(read(&site.join("index.html")).contains("a\u{fffd}nn"));
}

/// A hostile name (markup, quotes and a control character) reaches the site's pages and the
/// report only escaped: the templates escape every value, the control character becomes
/// U+FFFD, and the search data has it as a JavaScript string.
#[test]
fn a_hostile_name_is_escaped_on_its_page_and_in_the_report() {
    let dir = TempDir::new().unwrap();
    let hostile = "<script>&\"'\x01x";
    let games = write(
        dir.path(),
        "g.csv",
        "time,a,b,result\n2024-01-01,\"<script>&\"\"'\x01x\",bob,1\n\
         2024-01-02,bob,\"<script>&\"\"'\x01x\",0\n2024-01-03,bob,cid,1\n",
    );
    let (out, site) = (dir.path().join("out"), dir.path().join("site"));
    let o = site_run(&games, &out, &site, &["--rank-all", "--report"]);
    assert!(o.status.success(), "{}", texts(&o).1);
    let escaped = "&lt;script&gt;&amp;&quot;&#39;\u{fffd}x";

    // Its own page (id 0: the first name read), the opponent's page and the index.
    let page = read(&site.join("players/0/0.html"));
    assert!(page.contains(&format!("<h1>{escaped}</h1>")), "{page}");
    assert!(page.contains(&format!("<title>{escaped} · ")), "{page}");
    let bob = read(&site.join("players/0/1.html"));
    assert!(
        bob.contains(&format!("<a href=\"../0/0.html\">{escaped}</a>")),
        "{bob}"
    );
    let index = read(&site.join("index.html"));
    assert!(index.contains(&format!(">{escaped}</a>")), "{index}");
    for html in [&page, &bob, &index] {
        assert!(!html.contains(hostile) && !html.contains('\x01'));
        // The only scripts are the site's own: names.js and the search box.
        assert!(html.matches("<script").count() <= 2);
    }
    assert!(!page.contains("<script"), "{page}");
    let names = read(&site.join("names.js"));
    assert!(names.contains("[\"<script>&\\\"'\\u0001x\",0,"), "{names}");

    // The report: the name is drawn in the legend of the rating trajectories (plotters'
    // SVG escapes it, the control character is replaced).
    let report = read(&out.join("report.html"));
    assert!(!report.contains("<script") && !report.contains('\x01'));
    assert!(
        report.contains("&lt;script&gt;&amp;&quot;&apos;\u{fffd}x ("),
        "{report}"
    );
}
