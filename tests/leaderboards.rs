//! What a published leaderboard needs: active players only (hidden, never dropped from the
//! replay).

mod common;

use common::{rate_batch, read_csv, replay_ok, texts, write};
use tempfile::TempDir;

/// `--active-since` and `--active-within` leave off the players whose last game is older,
/// renumber the ranks among those shown, and change nothing of the replay (the metrics and
/// the ratings of those shown are the same).
#[test]
fn inactive_players_are_hidden_not_dropped() {
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
        replay_ok(&input, &out, &args);
        let m: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(out.join("metrics.json")).unwrap())
                .unwrap();
        (read_csv(&out.join("leaderboard.csv")), m["metrics"].clone())
    };
    let (all, m_all) = board("all", &[]);
    assert_eq!(all.len(), 1 + 5);
    for extra in [
        &["--active-within", "90d"][..],
        &["--active-within", "3m"][..],
        &["--active-since", "2024-03-01"][..],
    ] {
        let (shown, m) = board(&extra.join("_"), extra);
        assert_eq!(m, m_all, "{extra:?}: the replay is the same");
        let names: Vec<&str> = shown[1..].iter().map(|r| r[1].as_str()).collect();
        assert!(
            !names.contains(&"old1") && !names.contains(&"old2"),
            "{names:?}"
        );
        assert_eq!(names.len(), 3, "{extra:?}");
        let ranks: Vec<&str> = shown[1..].iter().map(|r| r[0].as_str()).collect();
        assert_eq!(ranks, ["1", "2", "3"], "renumbered among those shown");
        for r in &shown[1..] {
            let same = all[1..].iter().find(|a| a[1] == r[1]).unwrap();
            assert_eq!(r[2], same[2], "{}'s rating", r[1]);
        }
    }
    // Within a year: everyone.
    assert_eq!(board("year", &["--active-within", "1y"]).0.len(), 1 + 5);
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
                t[0][5..10],
                [
                    "rounds",
                    "contests",
                    "best_rank",
                    "median_rank",
                    "last_time"
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
