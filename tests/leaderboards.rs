//! What a published leaderboard needs: the established, active entrants ranked, the others
//! listed apart and marked (never dropped from the replay).

// Exception to clippy::too_many_lines: a test here is one scenario with its table of
// cases and its checks, read top to bottom; cut into pieces it would only scatter.
#![allow(clippy::too_many_lines)]

mod common;

use common::{rate_batch, read_csv, replay_ok, texts, write};
use tempfile::TempDir;

/// A leaderboard keeps every entrant: `--active-since` and `--active-within` mark the players
/// whose last game is older `inactive` (no rank; listed after the ranked), the ranks count the
/// ranked only, and the replay is the same (the metrics and every rating). The default window
/// is FIDE's year; `none` turns it off; `--rank-all` ranks everyone.
#[test]
fn inactive_players_are_marked_not_dropped() {
    let dir = TempDir::new().unwrap();
    // old1 and old2 stop playing in January; the others play on until June.
    let mut text = String::from("time,a,b,result\n");
    for d in 1..=28 {
        text.push_str(&format!("2024-01-{d:02},old1,old2,1\n"));
        text.push_str(&format!("2024-01-{d:02},new1,old1,1\n"));
    }
    for m in 2..=6 {
        for d in 1..=20 {
            text.push_str(&format!("2024-{m:02}-{d:02},new1,new2,0.5\n"));
            text.push_str(&format!("2024-{m:02}-{d:02},new2,new3,1\n"));
        }
    }
    let input = write(dir.path(), "g.csv", &text);
    let board = |name: &str, extra: &[&str]| {
        let out = dir.path().join(name);
        let mut args = vec!["--format", "games"];
        args.extend_from_slice(extra);
        let o = rate_batch(
            &[
                &[
                    "replay",
                    input.to_str().unwrap(),
                    "--out",
                    out.to_str().unwrap(),
                ][..],
                &args,
            ]
            .concat(),
        );
        assert!(o.status.success(), "{}", texts(&o).1);
        let m: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(out.join("metrics.json")).unwrap())
                .unwrap();
        (
            read_csv(&out.join("leaderboard.csv")),
            m["metrics"].clone(),
            texts(&o).0,
        )
    };
    // Within FIDE's year (the default) everyone is active: five ranked.
    let (all, m_all, printed) = board("all", &[]);
    assert_eq!(all[0][10], "status");
    assert_eq!(all.len(), 1 + 5);
    assert!(all[1..].iter().all(|r| r[10] == "ranked"), "{all:?}");
    assert!(
        printed.contains("Rated 5: 5 ranked, 0 provisional, 0 inactive"),
        "{printed}"
    );
    for extra in [
        &["--active-within", "90d"][..],
        &["--active-within", "3m"][..],
        &["--active-since", "2024-03-01"][..],
    ] {
        let (shown, m, printed) = board(&extra.join("_"), extra);
        assert_eq!(m, m_all, "{extra:?}: the replay is the same");
        assert_eq!(shown.len(), 1 + 5, "every entrant listed");
        let names: Vec<&str> = shown[1..].iter().map(|r| r[1].as_str()).collect();
        let ranks: Vec<&str> = shown[1..].iter().map(|r| r[0].as_str()).collect();
        let status: Vec<&str> = shown[1..].iter().map(|r| r[10].as_str()).collect();
        assert_eq!(
            ranks,
            ["1", "2", "3", "", ""],
            "{extra:?}: ranked among the active"
        );
        assert_eq!(
            status,
            ["ranked", "ranked", "ranked", "inactive", "inactive"]
        );
        let mut gone = names[3..].to_vec();
        gone.sort_unstable();
        assert_eq!(gone, ["old1", "old2"], "{extra:?}");
        for r in &shown[1..] {
            let same = all[1..].iter().find(|a| a[1] == r[1]).unwrap();
            assert_eq!(r[2], same[2], "{}'s rating", r[1]);
        }
        assert!(
            printed.contains("Rated 5: 3 ranked, 0 provisional, 2 inactive"),
            "{printed}"
        );
        // The printed table ranks the active only.
        assert!(!printed.contains("old1"), "{printed}");
    }
    // `none`: nobody inactive; --rank-all: everyone ranked, the status still said.
    let (none, _, _) = board(
        "none",
        &["--active-within", "none", "--active-since", "2024-03-01"],
    );
    assert_eq!(
        none[1..].iter().filter(|r| r[10] == "inactive").count(),
        2,
        "since still marks"
    );
    let (none, _, _) = board("none2", &["--active-within", "none"]);
    assert!(none[1..].iter().all(|r| r[10] == "ranked"));
    let (every, _, _) = board("every", &["--active-within", "90d", "--rank-all"]);
    assert_eq!(
        every[1..].iter().map(|r| r[0].as_str()).collect::<Vec<_>>(),
        ["1", "2", "3", "4", "5"]
    );
    assert!(every[1..].iter().all(|r| r[10] == "ranked"));
    // Provisional: fewer contests than --provisional-below (Elo has no uncertainty); new3
    // played 100, old2 28.
    let (few, _, printed) = board("few", &["--provisional-below", "50"]);
    let status = |t: &Vec<Vec<String>>, n: &str| t.iter().find(|r| r[1] == n).unwrap()[10].clone();
    assert_eq!(status(&few, "old2"), "provisional");
    assert_eq!(status(&few, "new3"), "ranked");
    assert!(
        printed.contains("provisional: fewer than 50 contests"),
        "{printed}"
    );
    let o = rate_batch(&[
        "replay",
        input.to_str().unwrap(),
        "--format",
        "games",
        "--active-within",
        "soon",
        "--out",
        dir.path().join("bad").to_str().unwrap(),
    ]);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        texts(&o).1.contains("365d, 52w, 6m or 2y"),
        "{}",
        texts(&o).1
    );
}

/// The uncertainty rule: Glicko-2's players above Lichess's provisional deviation (110) are
/// provisional; a player back after months has his deviation grown by his own volatility, so
/// a newcomer with two games and a player long away are provisional while the regulars are
/// ranked; `--provisional-above` moves the threshold.
#[test]
fn uncertain_players_are_provisional() {
    let dir = TempDir::new().unwrap();
    let mut text = String::from("time,a,b,result\n");
    // Four regulars play every week of 2024; `gone` plays them in January only; `new` joins
    // for two games at the end.
    let regulars = ["r1", "r2", "r3", "r4"];
    for w in 0..52usize {
        let day = (1 + 7 * w) as i64;
        for (k, pair) in [(0, 1), (2, 3), (0, 2), (1, 3)].iter().enumerate() {
            let (a, b) = (regulars[pair.0], regulars[pair.1]);
            let result = ["1", "0", "1/2-1/2", "1"][(w + k) % 4];
            text.push_str(&format!(
                "{},{a},{b},{result}\n",
                1_704_067_200 + day * 86_400 + k as i64
            ));
        }
        if w < 4 {
            text.push_str(&format!(
                "{},gone,r{},1/2-1/2\n",
                1_704_067_200 + day * 86_400 + 10,
                1 + w % 4
            ));
        }
    }
    text.push_str("1735000000,new,r1,1\n1735000100,new,r2,0\n");
    let input = write(dir.path(), "g.csv", &text);
    let run = |name: &str, extra: &[&str]| {
        let out = dir.path().join(name);
        let mut args = vec!["--system", "glicko2"];
        args.extend_from_slice(extra);
        replay_ok(&input, &out, &args);
        read_csv(&out.join("leaderboard.csv"))
    };
    let board = run("g2", &[]);
    let row = |t: &Vec<Vec<String>>, n: &str| t.iter().find(|r| r[1] == n).unwrap().clone();
    for r in regulars {
        let line = row(&board, r);
        let rd: f64 = line[3].parse().unwrap();
        assert!(rd < 110.0, "{line:?}");
        assert_eq!(line[10], "ranked");
    }
    let gone = row(&board, "gone");
    assert_eq!(gone[10], "provisional", "{gone:?}");
    assert!(gone[3].parse::<f64>().unwrap() > 110.0, "{gone:?}");
    assert_eq!(row(&board, "new")[10], "provisional");
    // A threshold above every deviation ranks all six.
    let loose = run("loose", &["--provisional-above", "1000"]);
    assert!(loose[1..].iter().all(|r| r[10] == "ranked"), "{loose:?}");
    let strict = run(
        "strict",
        &["--provisional-above", "none", "--provisional-below", "1"],
    );
    assert!(strict[1..].iter().all(|r| r[10] == "ranked"));
}

/// The leaderboard's `uncertainty` column says what it is, per system: metrics.json's
/// `uncertainty` (a label and its meaning) and the printed table's header; none for Elo.
#[test]
fn the_uncertainty_column_says_what_it_is() {
    let dir = TempDir::new().unwrap();
    let league = common::league(dir.path(), 8);
    for (system, label) in [
        ("glicko2", Some("RD")),
        ("trueskill", Some("sigma")),
        ("yuksel", Some("phi")),
        ("topcoder", Some("volat.")),
        ("elo", None),
    ] {
        let out = dir.path().join(system);
        let o = rate_batch(&[
            "replay",
            league.to_str().unwrap(),
            "--system",
            system,
            "--out",
            out.to_str().unwrap(),
        ]);
        assert!(o.status.success(), "{}", texts(&o).1);
        let m: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(out.join("metrics.json")).unwrap())
                .unwrap();
        assert_eq!(m["uncertainty"]["label"].as_str(), label, "{system}");
        let header = texts(&o)
            .0
            .lines()
            .find(|l| l.trim_start().starts_with("rank"))
            .unwrap()
            .to_string();
        if let Some(l) = label {
            assert!(header.contains(l), "{system}: {header}");
            assert!(m["uncertainty"]["is"].as_str().unwrap().len() > 20);
        } else {
            assert!(!header.contains('±'), "{header}");
        }
    }
}

/// Standings give each player's contests, best place and median place instead of W/D/L
/// (hand-computed: p1 places 1, 3, 2, 4 -> best 1, median 2.5; p5 always last).
#[test]
fn standings_show_best_and_median_places() {
    let dir = TempDir::new().unwrap();
    let mut text = String::from("contest,time,player,rank\n");
    let places = [
        [1, 2, 3, 4, 5],
        [3, 1, 2, 4, 5],
        [2, 3, 1, 4, 5],
        [4, 1, 2, 3, 5],
    ];
    for (c, order) in places.iter().enumerate() {
        for (p, rank) in order.iter().enumerate() {
            text.push_str(&format!("c{c},{},p{},{rank}\n", c + 1, p + 1));
        }
    }
    let input = write(dir.path(), "s.csv", &text);
    for format in ["csv", "json"] {
        let out = dir.path().join(format);
        replay_ok(
            &input,
            &out,
            &["--format", "standings", "--leaderboard-format", format],
        );
        let rows: Vec<(String, u64, u64, f64)> = if format == "csv" {
            let t = read_csv(&out.join("leaderboard.csv"));
            assert_eq!(
                t[0][5..11],
                [
                    "rounds",
                    "contests",
                    "best_rank",
                    "median_rank",
                    "last_time",
                    "status"
                ]
            );
            t[1..]
                .iter()
                .map(|r| {
                    (
                        r[1].clone(),
                        r[6].parse().unwrap(),
                        r[7].parse().unwrap(),
                        r[8].parse().unwrap(),
                    )
                })
                .collect()
        } else {
            let v: serde_json::Value = serde_json::from_str(
                &std::fs::read_to_string(out.join("leaderboard.json")).unwrap(),
            )
            .unwrap();
            assert!(v[0].get("wins").is_none());
            v.as_array()
                .unwrap()
                .iter()
                .map(|o| {
                    (
                        o["player"].as_str().unwrap().to_string(),
                        o["contests"].as_u64().unwrap(),
                        o["best_rank"].as_u64().unwrap(),
                        o["median_rank"].as_f64().unwrap(),
                    )
                })
                .collect()
        };
        let get = |n: &str| rows.iter().find(|r| r.0 == n).unwrap().clone();
        assert_eq!(get("p1"), ("p1".into(), 4, 1, 2.5), "{format}");
        assert_eq!(get("p2"), ("p2".into(), 4, 1, 1.5), "{format}");
        assert_eq!(get("p4"), ("p4".into(), 4, 3, 4.0), "{format}");
        assert_eq!(get("p5"), ("p5".into(), 4, 5, 5.0), "{format}");
    }
    // Two-player games keep W/D/L.
    let league = common::league(dir.path(), 4);
    let out = dir.path().join("games");
    replay_ok(&league, &out, &[]);
    assert_eq!(
        read_csv(&out.join("leaderboard.csv"))[0][6..9],
        ["wins", "draws", "losses"]
    );
}
