//! `--preset lichess` against niklasf/liglicko2, the Glicko-2 library Lichess rates with, and
//! rating pools (`--pool-by`, Lichess's speed classes).
//!
//! `tests/data/lichess-encounters.csv` is 3,000 encounters made up by
//! `scripts/liglicko2-compare.sh --generate 3000` (in liglicko2's research format; listed as
//! the games ended, so their start times go back and forth); `lichess-liglicko2.csv` is what
//! liglicko2 9766d58 made of them with its default `RatingSystem`, 0.21436 rating periods a
//! day and one rating per (player, speed class), written by that script's harness.

// Exception to clippy::too_many_lines: a test here is one scenario with its table of
// cases and its checks, read top to bottom; cut into pieces it would only scatter.
#![allow(clippy::too_many_lines)]

mod common;

use common::{rate_batch, read_csv, replay_ok, texts, write};
use std::collections::HashMap;
use std::path::Path;
use tempfile::TempDir;

fn data(name: &str) -> std::path::PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data")
        .join(name)
}

/// Replays encounters of liglicko2's research format with `--preset lichess`, and more.
fn replay_encounters(input: &Path, out: &Path, more: &[&str]) {
    let mut args = vec![
        "--format",
        "games",
        "--map",
        "a=white,b=black,time=utc_date_time",
        "--preset",
        "lichess",
    ];
    args.extend_from_slice(more);
    replay_ok(input, out, &args);
}

/// Every (player, speed)'s rating and deviation after his last game, and his deviation as of
/// the file's last time, equal liglicko2's within 1e-9 (they differ by 1e-11: the order of a
/// few floating-point operations).
#[test]
fn preset_lichess_equals_liglicko2() {
    let dir = TempDir::new().unwrap();
    let out = dir.path().join("out");
    replay_encounters(&data("lichess-encounters.csv"), &out, &["--rank-all"]);
    let board = read_csv(&out.join("leaderboard.csv"));
    assert_eq!(board[0][..4], ["rank", "player", "pool", "rating"]);
    let ours: HashMap<(String, String), Vec<String>> = board[1..]
        .iter()
        .map(|r| ((r[1].clone(), r[2].clone()), r.clone()))
        .collect();
    let history = read_csv(&out.join("history.csv"));
    assert_eq!(history[0][3..6], ["player", "pool", "rating_before"]);
    let mut last: HashMap<(String, String), Vec<String>> = HashMap::new();
    for r in &history[1..] {
        last.insert((r[3].clone(), r[4].clone()), r.clone());
    }
    let theirs = read_csv(&data("lichess-liglicko2.csv"));
    assert_eq!(ours.len(), theirs.len() - 1);
    let num = |s: &str| s.parse::<f64>().unwrap();
    let mut worst = [0.0f64; 3];
    for t in &theirs[1..] {
        let key = (t[0].clone(), t[1].clone());
        let (o, h) = (&ours[&key], &last[&key]);
        for (k, (a, b)) in [(&o[3], &t[2]), (&h[7], &t[3]), (&o[4], &t[5])]
            .into_iter()
            .enumerate()
        {
            worst[k] = worst[k].max((num(a) - num(b)).abs());
        }
    }
    assert!(worst.iter().all(|&d| d < 1e-9), "{worst:?}");
    // Every game is scored (no warm-up), as liglicko2's research replay scores them; a
    // `--warmup` given still counts.
    let scored = |out: &Path| {
        let m: serde_json::Value =
            serde_json::from_slice(&std::fs::read(out.join("metrics.json")).unwrap()).unwrap();
        m["warmup_contests"].as_u64().unwrap()
    };
    assert_eq!(scored(&out), 0);
    let warm = dir.path().join("warm");
    replay_encounters(&data("lichess-encounters.csv"), &warm, &["--warmup", "0.5"]);
    assert_eq!(scored(&warm), 1500); // half of the 3,000 encounters
    // Sorted by time instead (the order the file's start times give), the ratings differ:
    // the order of the input is Lichess's.
    let sorted = dir.path().join("sorted");
    replay_encounters(
        &data("lichess-encounters.csv"),
        &sorted,
        &["--rank-all", "--order", "time"],
    );
    assert_ne!(
        std::fs::read(sorted.join("leaderboard.csv")).unwrap(),
        std::fs::read(out.join("leaderboard.csv")).unwrap()
    );
}

/// Lichess's speed classes from a time control (the estimated duration base + 40 x
/// increment: under 30 s ultrabullet, 180 bullet, 480 blitz, 1500 rapid, else classical; `-`
/// correspondence) and `--pool-by` rate each (player, pool) apart: a player's blitz and
/// bullet games never meet, every output carries the pool, ranks are within a pool.
#[test]
fn pools_rate_each_pool_apart() {
    let dir = TempDir::new().unwrap();
    let games = write(
        dir.path(),
        "g.csv",
        "white,black,result,utc_date_time,time_control\n\
         ann,bob,1-0,2024-01-01 10:00:00,29+0\n\
         ann,bob,0-1,2024-01-01 10:05:00,60+2\n\
         cid,ann,1/2-1/2,2024-01-01 10:10:00,180+0\n\
         bob,cid,1-0,2024-01-01 10:20:00,300+5\n\
         ann,cid,1-0,2024-01-01 11:00:00,1500+0\n\
         ann,bob,1-0,2024-01-02 11:00:00,-\n",
    );
    let out = dir.path().join("out");
    replay_encounters(&games, &out, &[]);
    let board = read_csv(&out.join("leaderboard.csv"));
    let mut pools: Vec<(String, String)> = board[1..]
        .iter()
        .map(|r| (r[2].clone(), r[1].clone()))
        .collect();
    pools.sort();
    let want: Vec<(String, String)> = [
        ("blitz", "ann"),
        ("blitz", "cid"),
        ("bullet", "ann"),
        ("bullet", "bob"),
        ("classical", "ann"),
        ("classical", "cid"),
        ("correspondence", "ann"),
        ("correspondence", "bob"),
        ("rapid", "bob"),
        ("rapid", "cid"),
        ("ultrabullet", "ann"),
        ("ultrabullet", "bob"),
    ]
    .iter()
    .map(|(a, b)| (a.to_string(), b.to_string()))
    .collect();
    assert_eq!(pools, want);
    // Each pool's players played one game there: each pair is a newcomer's first game.
    let ann_ub = board
        .iter()
        .find(|r| r[1] == "ann" && r[2] == "ultrabullet")
        .unwrap();
    let ann_bu = board
        .iter()
        .find(|r| r[1] == "ann" && r[2] == "bullet")
        .unwrap();
    assert_eq!(
        ann_ub[3],
        board
            .iter()
            .find(|r| r[1] == "bob" && r[2] == "bullet")
            .unwrap()[3]
    );
    assert!(
        ann_ub[3].parse::<f64>().unwrap() > 1500.0 && ann_bu[3].parse::<f64>().unwrap() < 1500.0
    );
    let history = read_csv(&out.join("history.csv"));
    assert_eq!(history[0][4], "pool");
    assert_eq!(history.len(), 1 + 12);
    // --pool-by names a table's column (a tennis file's surface), as --map pool= does; the
    // printed table gives each pool its own top.
    let tennis = write(
        dir.path(),
        "t.csv",
        "time,a,b,result,surface\n1,x,y,1,Clay\n2,x,y,0,Grass\n3,y,z,1,Clay\n",
    );
    let o = rate_batch(&[
        "replay",
        tennis.to_str().unwrap(),
        "--pool-by",
        "surface",
        "--rank-all",
        "--out",
        dir.path().join("t").to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", texts(&o).1);
    let printed = texts(&o).0;
    assert!(
        printed.contains("pool Clay: 3 rated, 3 ranked"),
        "{printed}"
    );
    assert!(
        printed.contains("pool Grass: 2 rated, 2 ranked"),
        "{printed}"
    );
    let t = read_csv(&dir.path().join("t/leaderboard.csv"));
    let ranks: Vec<(&str, &str, &str)> = t[1..]
        .iter()
        .map(|r| (r[0].as_str(), r[1].as_str(), r[2].as_str()))
        .collect();
    assert_eq!(
        ranks,
        [
            ("1", "x", "Clay"),
            ("2", "y", "Clay"),
            ("3", "z", "Clay"),
            ("1", "y", "Grass"),
            ("2", "x", "Grass")
        ]
    );
    // --h2h and --ci's ranks need one leaderboard: refused with pools.
    let o = rate_batch(&[
        "replay",
        tennis.to_str().unwrap(),
        "--pool-by",
        "surface",
        "--h2h",
        "2",
        "--out",
        dir.path().join("h").to_str().unwrap(),
    ]);
    assert_eq!(o.status.code(), Some(2), "{}", texts(&o).1);
    assert!(texts(&o).1.contains("one per pool"), "{}", texts(&o).1);
    // A missing pool column, an empty pool and a bad time control are errors naming the
    // field.
    for (args, text, needle) in [
        (
            &["--pool-by", "court"][..],
            "time,a,b,result\n1,x,y,1\n",
            "court",
        ),
        (
            &["--pool-by", "surface"][..],
            "time,a,b,result,surface\n1,x,y,1,\n",
            "empty rating pool",
        ),
        (
            &["--preset", "lichess", "--map", "time_control=tc"][..],
            "time,a,b,result,tc\n1,x,y,1,blitz\n",
            "not a time control",
        ),
    ] {
        let f = write(dir.path(), "bad.csv", text);
        let o = rate_batch(
            &[
                &[
                    "replay",
                    f.to_str().unwrap(),
                    "--out",
                    dir.path().join("bad").to_str().unwrap(),
                ][..],
                args,
            ]
            .concat(),
        );
        assert_eq!(o.status.code(), Some(1), "{args:?}: {}", texts(&o).1);
        assert!(texts(&o).1.contains(needle), "{args:?}: {}", texts(&o).1);
    }
}
