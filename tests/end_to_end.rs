//! The binary on the real data sets of `../shared/datasets` (marked `#[ignore]`, so that
//! `cargo test` shows them as ignored where that folder may be absent; CI runs them with
//! `cargo test --test end_to_end -- --ignored`, and they fail when asked to run without it)
//! and on small inputs: counts, outputs, exit codes, atomicity.

// Exception to clippy::too_many_lines: a test here is one scenario with its table of
// cases and its checks, read top to bottom; cut into pieces it would only scatter.
#![allow(clippy::too_many_lines)]

mod common;

use common::{listing, rate_batch, read_csv, replay_ok, shared, texts, write};
use tempfile::TempDir;

fn metrics(dir: &std::path::Path) -> serde_json::Value {
    serde_json::from_str(&std::fs::read_to_string(dir.join("metrics.json")).unwrap()).unwrap()
}

/// Sum of a leaderboard column.
fn column_sum(rows: &[Vec<String>], name: &str) -> u64 {
    let i = rows[0].iter().position(|h| h == name).unwrap();
    rows[1..].iter().map(|r| r[i].parse::<u64>().unwrap()).sum()
}

#[test]
#[ignore = "reads ../shared/datasets: cargo test --test end_to_end -- --ignored (CI runs it)"]
fn lol_worlds_with_elo_yuksel_and_zero_sum() {
    let input = shared("datasets/lol-worlds-2021.csv");
    let input = input.to_str().unwrap();
    for extra in [
        &["--system", "elo"][..],
        &["--system", "yuksel"],
        &["--system", "yuksel", "--zero-sum"],
    ] {
        let out = TempDir::new().unwrap();
        let mut args = vec!["replay", input, "--out", out.path().to_str().unwrap()];
        args.extend_from_slice(extra);
        let o = rate_batch(&args);
        let (stdout, stderr) = texts(&o);
        assert!(o.status.success(), "{extra:?}: {stderr}");
        assert_eq!(
            listing(out.path()),
            ["history.csv", "leaderboard.csv", "metrics.json"]
        );
        let board = read_csv(&out.path().join("leaderboard.csv"));
        assert_eq!(board.len(), 1 + 22, "22 teams");
        assert_eq!(column_sum(&board, "wins"), 121);
        assert_eq!(column_sum(&board, "losses"), 121);
        assert_eq!(column_sum(&board, "draws"), 0);
        let history = read_csv(&out.path().join("history.csv"));
        assert_eq!(history.len(), 1 + 242);
        let m = metrics(out.path());
        assert_eq!(m["input"]["contests"], 121);
        assert_eq!(m["warmup_contests"], 12);
        assert!(m["metrics"]["two_player"]["log_loss"].as_f64().unwrap() > 0.0);
        assert!(
            stdout.contains("DWG KIA") && stdout.contains("pair inversion"),
            "{stdout}"
        );
        if extra.len() == 3 {
            // Zero-sum: every game moves the two teams by opposite amounts.
            for pair in history[1..].chunks(2) {
                let d =
                    |r: &Vec<String>| r[5].parse::<f64>().unwrap() - r[4].parse::<f64>().unwrap();
                assert!((d(&pair[0]) + d(&pair[1])).abs() < 1e-9, "{pair:?}");
            }
        }
    }
}

#[test]
#[ignore = "reads ../shared/datasets: cargo test --test end_to_end -- --ignored (CI runs it)"]
fn tcec_pgn_stops_at_the_first_invalid_result_or_skips_all_four() {
    let input = shared("datasets/tcec/tcec_headers.pgn");
    let input = input.to_str().unwrap();
    let out = TempDir::new().unwrap();
    let dir = out.path().to_str().unwrap();
    let o = rate_batch(&["replay", input, "--out", dir]);
    let (_, stderr) = texts(&o);
    assert_eq!(o.status.code(), Some(1), "{stderr}");
    assert_eq!(stderr.lines().count(), 1, "one line: {stderr}");
    assert!(
        stderr.contains("tcec_headers.pgn, line 148566, field `Result`: invalid result `?`"),
        "{stderr}"
    );
    assert!(listing(out.path()).is_empty(), "no output left behind");

    let o = rate_batch(&["replay", input, "--out", dir, "--skip-invalid"]);
    let (stdout, stderr) = texts(&o);
    assert!(o.status.success(), "{stderr}");
    assert!(stdout.contains("skipped 4 invalid games"), "{stdout}");
    assert!(stdout.contains("skipped 3 unplayed games"), "{stdout}");
    let m = metrics(out.path());
    assert_eq!(m["input"]["contests"], 27_605);
    assert_eq!(m["input"]["records"], 27_612);
    assert_eq!(m["input"]["skipped_invalid"], 4);
    assert_eq!(m["input"]["skipped_unfinished"], 3);
    let board = read_csv(&out.path().join("leaderboard.csv"));
    assert_eq!(column_sum(&board, "draws"), 2 * 14_940);
    assert_eq!(
        column_sum(&board, "wins") + column_sum(&board, "draws") + column_sum(&board, "losses"),
        2 * 27_605
    );
}

#[test]
#[ignore = "reads ../shared/datasets: cargo test --test end_to_end -- --ignored (CI runs it)"]
fn ice_hockey_with_ties_reports_two_player_metrics() {
    let input = shared("datasets/icehockey-ncaa-2009-10.csv");
    let out = TempDir::new().unwrap();
    let o = rate_batch(&[
        "replay",
        input.to_str().unwrap(),
        "--out",
        out.path().to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", texts(&o).1);
    let board = read_csv(&out.path().join("leaderboard.csv"));
    assert_eq!(board.len(), 1 + 58);
    assert_eq!(column_sum(&board, "draws"), 2 * 125);
    let t = &metrics(out.path())["metrics"]["two_player"];
    assert!(t["games_scored"].as_u64().unwrap() > 900);
    for k in ["log_loss", "brier", "accuracy"] {
        assert!(t[k].as_f64().is_some(), "{k}");
    }
}

#[test]
fn a_failed_run_leaves_the_previous_outputs_untouched() {
    let dir = TempDir::new().unwrap();
    let good = write(
        dir.path(),
        "good.csv",
        "time,a,b,result\n2021-01-01,A,B,1\n2021-01-02,B,C,0\n",
    );
    let bad = write(
        dir.path(),
        "bad.csv",
        "time,a,b,result\n2021-01-01,A,B,1\n2021-01-02,B,C,3\n",
    );
    let out = dir.path().join("out");
    let o = rate_batch(&[
        "replay",
        good.to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
    ]);
    assert!(o.status.success());
    let before: Vec<Vec<u8>> = listing(&out)
        .iter()
        .map(|f| std::fs::read(out.join(f)).unwrap())
        .collect();
    let o = rate_batch(&[
        "replay",
        bad.to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
        "--system",
        "yuksel",
    ]);
    let (_, stderr) = texts(&o);
    assert_eq!(o.status.code(), Some(1));
    assert!(
        stderr.contains("bad.csv, line 3, field `result`: unknown result `3`"),
        "{stderr}"
    );
    let after: Vec<Vec<u8>> = listing(&out)
        .iter()
        .map(|f| std::fs::read(out.join(f)).unwrap())
        .collect();
    assert_eq!(before, after);
    assert_eq!(listing(&out).len(), 3, "no temporary files");
}

#[test]
fn exit_codes_for_usage_and_io() {
    let dir = TempDir::new().unwrap();
    let good = write(dir.path(), "g.csv", "time,a,b,result\n2021-01-01,A,B,1\n");
    let g = good.to_str().unwrap();
    let out = dir.path().join("o");
    let o_ = out.to_str().unwrap();
    let o = rate_batch(&["replay", g, "--out", o_, "--system", "yuksel", "--k", "20"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(texts(&o).1.contains("--system yuksel has no parameter `k`"));
    let o = rate_batch(&["replay", g, "--out", o_, "--warmup", "1.5"]);
    assert_eq!(o.status.code(), Some(2));
    let o = rate_batch(&["replay", g, "--out", o_, "--param", "scale=-3"]);
    assert_eq!(o.status.code(), Some(2), "{}", texts(&o).1);
    let o = rate_batch(&["replay", g, "--bogus"]);
    assert_eq!(o.status.code(), Some(2));
    // A parameter that is not a finite number (NaN used to mean "no floor" silently).
    let o = rate_batch(&["replay", g, "--out", o_, "--floor", "NaN"]);
    assert_eq!(o.status.code(), Some(2), "{}", texts(&o).1);
    assert!(texts(&o).1.contains("--floor: NaN is not a finite number"));
    let o = rate_batch(&["replay", "/nonexistent/games.csv", "--out", o_]);
    assert_eq!(o.status.code(), Some(3), "{}", texts(&o).1);
    // An output folder that cannot be created (a file is in the way).
    let blocker = write(dir.path(), "blocker", "x");
    let o = rate_batch(&["replay", g, "--out", blocker.join("sub").to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(3), "{}", texts(&o).1);
    assert!(listing(&out).is_empty());
}

#[test]
fn dry_run_validates_and_writes_nothing() {
    let dir = TempDir::new().unwrap();
    let g = write(
        dir.path(),
        "g.csv",
        "time,a,b,result\n2021-01-01,A,B,1\n2021-01-02,B,C,1/2-1/2\n",
    );
    let out = dir.path().join("o");
    let o = rate_batch(&[
        "replay",
        g.to_str().unwrap(),
        "--dry-run",
        "--out",
        out.to_str().unwrap(),
    ]);
    let (stdout, _) = texts(&o);
    assert!(o.status.success());
    assert!(stdout.contains("2 contests, 3 players"), "{stdout}");
    assert!(!out.exists());
}

#[test]
fn history_as_parquet_round_trips() {
    use polars::prelude::*;
    let dir = TempDir::new().unwrap();
    let g = write(
        dir.path(),
        "g.csv",
        "time,a,b,result\n2021-01-01T10:00:00Z,A,B,1\n2021-01-02,B,C,1/2-1/2\n2021-01-03,C,A,0\n",
    );
    let out = dir.path().join("o");
    let o = rate_batch(&[
        "replay",
        g.to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
        "--history-format",
        "parquet",
        "--system",
        "yuksel",
    ]);
    assert!(o.status.success(), "{}", texts(&o).1);
    assert_eq!(
        listing(&out),
        ["history.parquet", "leaderboard.csv", "metrics.json"]
    );
    let df = ParquetReader::new(std::fs::File::open(out.join("history.parquet")).unwrap())
        .finish()
        .unwrap();
    assert_eq!(df.height(), 6);
    let names: Vec<String> = df
        .get_column_names()
        .iter()
        .map(std::string::ToString::to_string)
        .collect();
    assert_eq!(
        names,
        [
            "round",
            "contest",
            "time",
            "player",
            "rating_before",
            "rating_after",
            "uncertainty_after",
            "performance"
        ]
    );
    let first = df
        .column("player")
        .unwrap()
        .str()
        .unwrap()
        .get(0)
        .unwrap()
        .to_string();
    assert_eq!(first, "A");
    let after = df
        .column("rating_after")
        .unwrap()
        .f64()
        .unwrap()
        .get(0)
        .unwrap();
    assert!((after - (1500.0 + 800.0 / std::f64::consts::LN_10)).abs() < 1e-9);
    assert!(matches!(
        df.column("time").unwrap().dtype(),
        DataType::Datetime(_, _)
    ));
}

#[test]
fn standings_and_json_inputs_replay_with_every_system() {
    let dir = TempDir::new().unwrap();
    let s = write(
        dir.path(),
        "s.csv",
        "contest,time,player,rank\n\
         1,2021-01-01,a,1\n1,2021-01-01,b,2\n1,2021-01-01,c,2\n1,2021-01-01,d,4\n\
         2,2021-01-08,a,2\n2,2021-01-08,b,1\n2,2021-01-08,c,3\n2,2021-01-08,e,4\n",
    );
    for system in rate_batch::systems::SystemKind::ALL
        .iter()
        .map(|k| k.name())
    {
        let out = dir.path().join(system);
        let o = rate_batch(&[
            "replay",
            s.to_str().unwrap(),
            "--system",
            system,
            "--out",
            out.to_str().unwrap(),
            "--warmup",
            "0",
        ]);
        assert!(o.status.success(), "{}", texts(&o).1);
        let m = metrics(&out);
        // Contest 2 is scored for a, b, c (e is new): b won, a second, c third.
        assert_eq!(m["metrics"]["all"]["participants_scored"], 3);
        let board = read_csv(&out.join("leaderboard.csv"));
        assert_eq!(board.len(), 6);
        // Standings: contests, best and median place (c shares second place in contest 1:
        // places 2 and 3).
        assert_eq!(board[0][6..9], ["contests", "best_rank", "median_rank"]);
        let row = |name: &str| board.iter().find(|r| r[1] == name).unwrap().clone();
        assert_eq!(&row("a")[6..9], ["2", "1", "1.5"]);
        assert_eq!(&row("c")[6..9], ["2", "2", "2.5"]);
        // Every row of the history has a performance for the systems that define one.
        let history = read_csv(&out.join("history.csv"));
        let with_performance = history[1..].iter().filter(|r| !r[7].is_empty()).count();
        let expected = if matches!(system, "codeforces" | "topcoder" | "elo-mmr" | "elo-mmx") {
            8
        } else {
            0
        };
        assert_eq!(with_performance, expected, "{system}");
    }
}

/// Replays `input` with `args` on one and on two threads and asserts the outputs are the
/// same bytes (metrics.json without its wall-clock time).
fn same_on_one_and_two_threads(dir: &std::path::Path, input: &std::path::Path, args: &[&str]) {
    let mut outputs = Vec::new();
    for threads in ["1", "2"] {
        let out = dir.join(format!("{}-t{threads}", args.join("_")));
        let mut all = vec!["--threads", threads];
        all.extend_from_slice(args);
        replay_ok(input, &out, &all);
        let mut m = metrics(&out);
        m.as_object_mut().unwrap().remove("wall_seconds");
        outputs.push((
            std::fs::read(out.join("leaderboard.csv")).unwrap(),
            std::fs::read(out.join("history.csv")).unwrap(),
            m,
        ));
    }
    assert!(
        outputs[0].0 == outputs[1].0,
        "{args:?}: leaderboards differ"
    );
    assert!(outputs[0].1 == outputs[1].1, "{args:?}: histories differ");
    assert_eq!(outputs[0].2, outputs[1].2, "{args:?}: metrics differ");
}

#[test]
fn results_are_bit_for_bit_the_same_on_one_and_two_threads() {
    let dir = TempDir::new().unwrap();
    // Contests of 3,000 individual entrants (large enough for every parallel path and every
    // tabulated shared function): the crowd scenario, scaled down.
    let solo = dir.path().join("solo.csv");
    let crowd = rate_batch_lab::simulate::SynthConfig {
        players: 3000,
        group: 3000,
        ..rate_batch_lab::simulate::SynthConfig::crowd()
    };
    rate_batch_lab::jobs::synth(
        &crowd,
        &solo,
        &dir.path().join("solo-truth.csv"),
        &mut std::io::sink(),
    )
    .unwrap();
    // Teams of three: 1,500 teams of 4,500 players, members drawn afresh each contest, ties.
    let mut text = String::from("contest,time,player,rank,team\n");
    let mut x: u64 = 12345;
    let mut next = |m: u64| {
        x = x
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        (x >> 33) % m
    };
    for c in 0..3 {
        let mut order: Vec<u64> = (0..4500).collect();
        for i in (1..order.len()).rev() {
            order.swap(i, next(i as u64 + 1) as usize);
        }
        let mut rank = 1;
        for (t, members) in order.chunks(3).enumerate() {
            if next(10) != 0 {
                rank = t + 1;
            }
            for m in members {
                text.push_str(&format!("{c},2021-01-0{},u{m},{rank},t{c}-{t}\n", c + 1));
            }
        }
    }
    let teams = write(dir.path(), "teams.csv", &text);
    // Every system of the registry, so that a new one's parallel paths are checked too.
    for system in rate_batch::systems::SystemKind::ALL
        .iter()
        .map(|k| k.name())
    {
        if ["bt", "whr", "fide", "uscf"].contains(&system) {
            // Bradley-Terry and whole-history rating take standings of at most 1,000 as
            // their pairs; bt's parallel passes begin at 8,192 players: a pool of games.
            // The federations' rules rate games between individual players.
            let pool = common::pool(&dir.path().join("pool.csv"), 10_000, 40_000, 7);
            same_on_one_and_two_threads(dir.path(), &pool, &["--system", system]);
            continue;
        }
        same_on_one_and_two_threads(dir.path(), &solo, &["--system", system]);
        same_on_one_and_two_threads(dir.path(), &teams, &["--system", system]);
    }
    for extra in [["--subsample", "500"], ["--subsample", "40"]] {
        let args = ["--system", "elo-mmr", extra[0], extra[1]];
        same_on_one_and_two_threads(dir.path(), &solo, &args);
    }
}

/// The warm-up is the first `--warmup` share of the contests by integer division, also where
/// the product falls just below a whole number in floating point (100 x 0.29).
#[test]
fn the_warmup_share_is_exact() {
    let dir = TempDir::new().unwrap();
    let mut csv = String::from("time,a,b,result\n");
    for t in 0..100 {
        csv.push_str(&format!("{t},p{},p{},1\n", t % 4, (t + 1) % 4));
    }
    let games = write(dir.path(), "g.csv", &csv);
    for (share, want) in [("0.29", 29), ("0.57", 57), ("0.1", 10)] {
        let out = dir.path().join(share);
        replay_ok(&games, &out, &["--warmup", share]);
        assert_eq!(metrics(&out)["warmup_contests"], want, "--warmup {share}");
    }
}

/// Ratings that are not finite numbers are never published: parameters beyond the system's
/// arithmetic (a start near the largest float and a huge K overflow Elo) stop the replay as a
/// divergence (exit 4) and write nothing.
#[test]
fn non_finite_ratings_are_an_error_not_an_output() {
    let dir = TempDir::new().unwrap();
    let games = write(
        dir.path(),
        "g.csv",
        "time,a,b,result\n2021-01-01,a,b,1\n2021-01-02,b,c,1\n",
    );
    let out = dir.path().join("o");
    let o = rate_batch(&[
        "replay",
        games.to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
        "--system",
        "elo",
        "--start",
        "1.7e308",
        "--k",
        "1e308",
    ]);
    assert_eq!(o.status.code(), Some(4), "{}", texts(&o).1);
    assert!(
        texts(&o).1.contains("elo diverged in round 0"),
        "{}",
        texts(&o).1
    );
    assert!(!out.join("leaderboard.csv").exists());
}

/// `--anchor` shifts every rating of the leaderboard by one amount (the anchors' mean given
/// less their mean fitted), so every difference stays; an anchor not rated is refused, and so
/// is Bradley-Terry without a prior.
#[test]
fn anchors_shift_every_rating_alike() {
    let dir = TempDir::new().unwrap();
    let games = write(
        dir.path(),
        "g.csv",
        "time,a,b,result\n1,ann,bob,1\n2,bob,cy,1\n3,cy,ann,0\n4,ann,cy,1/2-1/2\n5,dee,bob,0\n",
    );
    let ratings = |out: &std::path::Path| -> Vec<(String, f64)> {
        let mut rows: Vec<(String, f64)> = read_csv(&out.join("leaderboard.csv"))[1..]
            .iter()
            .map(|r| (r[1].clone(), r[2].parse().unwrap()))
            .collect();
        rows.sort_by(|a, b| a.0.cmp(&b.0));
        rows
    };
    let plain = dir.path().join("plain");
    replay_ok(&games, &plain, &["--system", "bt"]);
    let one = dir.path().join("one");
    replay_ok(&games, &one, &["--system", "bt", "--anchor", "bob=1000"]);
    let two = dir.path().join("two");
    replay_ok(
        &games,
        &two,
        &[
            "--system", "bt", "--anchor", "bob=1000", "--anchor", "cy=1100",
        ],
    );
    let (p, o, t) = (ratings(&plain), ratings(&one), ratings(&two));
    let bob = p.iter().find(|r| r.0 == "bob").unwrap().1;
    let cy = p.iter().find(|r| r.0 == "cy").unwrap().1;
    let shift_two = (1000.0 - bob + 1100.0 - cy) / 2.0;
    for ((a, b), c) in p.iter().zip(&o).zip(&t) {
        assert!((b.1 - a.1 - (1000.0 - bob)).abs() < 1e-9, "{a:?} {b:?}");
        assert!((c.1 - a.1 - shift_two).abs() < 1e-9, "{a:?} {c:?}");
    }
    assert_eq!(o.iter().find(|r| r.0 == "bob").unwrap().1, 1000.0);
    let o = rate_batch(&[
        "replay",
        games.to_str().unwrap(),
        "--system",
        "bt",
        "--anchor",
        "zed=1000",
        "--out",
        dir.path().join("x").to_str().unwrap(),
    ]);
    assert_eq!(o.status.code(), Some(2));
    assert!(texts(&o).1.contains("--anchor `zed`"), "{}", texts(&o).1);
    assert!(!dir.path().join("x").exists());
    let o = rate_batch(&[
        "replay",
        games.to_str().unwrap(),
        "--system",
        "bt",
        "--prior-sd",
        "0",
        "--out",
        dir.path().join("y").to_str().unwrap(),
    ]);
    assert_eq!(o.status.code(), Some(2));
    assert!(texts(&o).1.contains("bt needs a prior"), "{}", texts(&o).1);
}

/// `--ci`: the leaderboard's rating and rank intervals and tie groups, and the metrics'
/// intervals, the same bytes on one and two threads and from run to run; a different seed
/// gives other intervals; a streamed input is refused.
#[test]
fn bootstrap_intervals_are_deterministic_and_well_formed() {
    let dir = TempDir::new().unwrap();
    let league = common::league(dir.path(), 16);
    for system in ["elo", "glicko2", "bt"] {
        same_on_one_and_two_threads(dir.path(), &league, &["--system", system, "--ci", "40"]);
    }
    let out = dir.path().join("--system_elo_--ci_40-t1");
    let board = read_csv(&out.join("leaderboard.csv"));
    assert_eq!(
        board[0][10..],
        [
            "status",
            "rating_lo",
            "rating_hi",
            "rank_lo",
            "rank_hi",
            "tie_group"
        ]
    );
    let mut group = 0;
    for row in &board[1..] {
        assert_eq!(
            row[10], "ranked",
            "a league of 16 whose players all play often"
        );
        let (lo, hi): (f64, f64) = (row[11].parse().unwrap(), row[12].parse().unwrap());
        let (rlo, rhi): (u32, u32) = (row[13].parse().unwrap(), row[14].parse().unwrap());
        let g: u32 = row[15].parse().unwrap();
        assert!(lo < hi && 1 <= rlo && rlo <= rhi && rhi <= 16, "{row:?}");
        assert!(g == group || g == group + 1, "{row:?}");
        group = g;
    }
    let m = metrics(&out);
    let iv = &m["intervals"];
    assert_eq!(
        (iv["replicates"].as_u64(), iv["level"].as_f64()),
        (Some(40), Some(0.95))
    );
    let ll = &iv["metrics"]["two_player"]["log_loss"];
    let point = m["metrics"]["two_player"]["log_loss"].as_f64().unwrap();
    assert!(ll[0].as_f64().unwrap() < point && point < ll[1].as_f64().unwrap());
    assert_eq!(iv["ratings"]["failed"].as_u64(), Some(0));
    let other = dir.path().join("seed2");
    replay_ok(
        &league,
        &other,
        &["--system", "elo", "--ci", "40", "--ci-seed", "2"],
    );
    assert_ne!(
        std::fs::read(other.join("leaderboard.csv")).unwrap(),
        std::fs::read(out.join("leaderboard.csv")).unwrap()
    );
    let o = rate_batch(&[
        "replay",
        league.to_str().unwrap(),
        "--ci",
        "20",
        "--stream",
        "on",
        "--out",
        dir.path().join("streamed").to_str().unwrap(),
    ]);
    assert_eq!(o.status.code(), Some(2), "{}", texts(&o).1);
    assert!(
        texts(&o).1.contains("--ci replays the history"),
        "{}",
        texts(&o).1
    );
    let state = dir.path().join("s.state");
    replay_ok(
        &league,
        &dir.path().join("saved"),
        &["--save-state", state.to_str().unwrap()],
    );
    let o = rate_batch(&[
        "replay",
        league.to_str().unwrap(),
        "--ci",
        "20",
        "--resume",
        state.to_str().unwrap(),
        "--out",
        dir.path().join("resumed").to_str().unwrap(),
    ]);
    assert_eq!(o.status.code(), Some(2), "{}", texts(&o).1);
    assert!(texts(&o).1.contains("without --resume"), "{}", texts(&o).1);
}

/// Coverage of the 95 % intervals of the rating difference to a reference player (the
/// league's first, anchored at its true rating) on simulated leagues with known strengths
/// (`rate-batch-lab simulate league`: Davidson ties, 24 players, double round robin), through
/// the libraries:
/// for `bt` (Davidson ties) from the Hessian and from the bootstrap, within 93-97 %; for Elo
/// and Glicko-2 the share is only reported (an online system's final rating trails the
/// recent results by design, and its bootstrap interval is the spread of the replay's
/// outcome, not of an estimate of a fixed strength: it covers the truth far less often;
/// `scripts/coverage.py` measures 150 leagues of 40, docs/systems.md has the figures).
#[test]
fn intervals_cover_the_true_differences() {
    use rate_batch::bootstrap::{CiOptions, rating_intervals};
    use rate_batch::history::{HistoryBuilder, PlayerId, SourceInfo};
    use rate_batch::replay::{ReplayOptions, replay};
    use rate_batch::systems::{ParamMap, RatingSystem, SystemKind, SystemVisitor, dispatch};
    use rate_batch_lab::simulate::{LeagueConfig, league};

    struct Cover<'a> {
        history: &'a rate_batch::history::History,
        truth: &'a [f64],
        ids: &'a [PlayerId],
        replicates: u32,
    }
    /// (Hessian hits, bootstrap hits, differences)
    impl SystemVisitor for Cover<'_> {
        type Output = (usize, usize, usize);
        fn visit<S: RatingSystem>(self, system: &S) -> Self::Output {
            let reference = self.ids[0];
            let opts = ReplayOptions {
                warmup: 0.0,
                keep_history: false,
                hessian_reference: Some(vec![self.history.name(reference).to_string()]),
                ..ReplayOptions::default()
            };
            let r = replay(self.history, system, &opts).unwrap();
            let shift = self.truth[0] - r.ratings[reference as usize].mean;
            let board: Vec<PlayerId> = self.ids[1..].to_vec();
            let ci = CiOptions {
                replicates: self.replicates,
                level: 0.95,
                seed: 11,
            };
            let iv = rating_intervals(
                self.history,
                system,
                &opts,
                &board,
                (&[(reference, self.truth[0])], false),
                &ci,
                0,
            );
            let (mut hessian, mut boot) = (0, 0);
            for (k, &p) in board.iter().enumerate() {
                let t = self.truth[k + 1];
                if let Some(sds) = &r.hessian_sds {
                    let est = r.ratings[p as usize].mean + shift;
                    hessian += usize::from((est - t).abs() <= 1.959_964 * sds[p as usize]);
                }
                let (lo, hi) = iv.rating[k];
                boot += usize::from(lo <= t && t <= hi);
            }
            (hessian, boot, board.len())
        }
    }
    let mut bt_params = ParamMap::new();
    rate_batch::systems::parse_param("ties=davidson", &mut bt_params).unwrap();
    let mut totals = std::collections::BTreeMap::new();
    for seed in 1..=40u64 {
        let lg = league(&LeagueConfig {
            players: 24,
            seed,
            ..LeagueConfig::default()
        })
        .unwrap();
        let mut b = HistoryBuilder::new();
        let ids: Vec<PlayerId> = lg.names.iter().map(|n| b.player(n)).collect();
        for &(t, w, bl, s) in &lg.games {
            b.add_game(t, 1.0, None, (&[ids[w]], &[ids[bl]]), s, None)
                .unwrap();
        }
        let h = b.finish(SourceInfo::default());
        for (kind, params, replicates) in [
            (SystemKind::Bt, &bt_params, 100),
            (SystemKind::Elo, &ParamMap::new(), 60),
            (SystemKind::Glicko2, &ParamMap::new(), 60),
        ] {
            let c = dispatch(
                kind,
                params,
                Cover {
                    history: &h,
                    truth: &lg.strengths,
                    ids: &ids,
                    replicates,
                },
            )
            .unwrap();
            let e = totals.entry(kind.name()).or_insert((0, 0, 0));
            (e.0, e.1, e.2) = (e.0 + c.0, e.1 + c.1, e.2 + c.2);
        }
    }
    let share = |hits: usize, n: usize| 100.0 * hits as f64 / n as f64;
    let (h, b, n) = totals["bt"];
    println!(
        "bt: Hessian {:.1} %, bootstrap {:.1} % of {n}",
        share(h, n),
        share(b, n)
    );
    for s in ["elo", "glicko2"] {
        let (_, b, n) = totals[s];
        // Reported, not a target (58.8 % and 84.8 % here).
        println!("{s}: bootstrap {:.1} % of {n}", share(b, n));
    }
    assert!(
        (93.0..=97.0).contains(&share(h, n)),
        "Hessian {}",
        share(h, n)
    );
    assert!(
        (93.0..=97.0).contains(&share(b, n)),
        "bootstrap {}",
        share(b, n)
    );
}

/// Davidson's tie parameter recovered on generated data: the lab's `simulate pool` draws its
/// games from Davidson's model with nu = 0.5 (40,000 games of 400 players); `bt` with
/// `ties=davidson` fits 0.509 (seeds 2 and 3: 0.502, 0.490; the spread says a standard
/// error of about 0.01).
#[test]
fn bt_recovers_davidsons_nu_from_generated_games() {
    let dir = TempDir::new().unwrap();
    let pool = common::pool(&dir.path().join("pool.csv"), 400, 40_000, 1);
    let out = dir.path().join("bt");
    replay_ok(
        &pool,
        &out,
        &[
            "--system",
            "bt",
            "--param",
            "ties=davidson",
            "--param",
            "refit=end",
            "--history-format",
            "none",
        ],
    );
    let nu = metrics(&out)["fitted"]["nu"].as_f64().unwrap();
    assert!((nu - 0.5).abs() < 0.03, "nu {nu}");
}

/// `--h2h N`: the games between each two of the top N (two-entry contests of one player a
/// side; a team game is not counted), the score, and the likelihood of superiority: from
/// the uncertainties as if independent (Glicko: checked by hand from the leaderboard's own
/// figures), from the bootstrap with `--ci`, none for Elo without `--ci`.
#[test]
fn head_to_head_counts_games_and_gives_the_likelihood_of_superiority() {
    let dir = TempDir::new().unwrap();
    let games = write(
        dir.path(),
        "g.csv",
        "time,a,b,result\n1,ann,bob,1-0\n2,bob,ann,0-1\n3,ann,bob,1/2-1/2\n4,bob,cy,1-0\n\
         5,cy,ann,0-1\n6,ann+cy,bob+dee,1-0\n7,dee,cy,1/2-1/2\n",
    );
    // (Seven games rank nobody by the status rules: --rank-all ranks them all.)
    let out = dir.path().join("glicko");
    replay_ok(
        &games,
        &out,
        &["--system", "glicko", "--h2h", "3", "--rank-all"],
    );
    let board = read_csv(&out.join("leaderboard.csv"));
    let h2h = read_csv(&out.join("h2h.csv"));
    assert_eq!(
        h2h[0],
        [
            "player_a",
            "player_b",
            "rank_a",
            "rank_b",
            "games",
            "wins_a",
            "draws",
            "wins_b",
            "score_a",
            "superiority_a"
        ]
    );
    assert_eq!(h2h.len(), 1 + 3, "{h2h:?}");
    let row = |a: &str, b: &str| {
        h2h.iter()
            .find(|r| (r[0] == a && r[1] == b) || (r[0] == b && r[1] == a))
            .unwrap()
            .clone()
    };
    // ann-bob: ann won 2, drew 1 (the team game does not count).
    let ab = row("ann", "bob");
    let (wa, wb) = if ab[0] == "ann" {
        (&ab[5], &ab[7])
    } else {
        (&ab[7], &ab[5])
    };
    assert_eq!(
        (ab[4].as_str(), wa.as_str(), ab[6].as_str(), wb.as_str()),
        ("3", "2", "1", "0")
    );
    let first = &h2h[1];
    let line = |name: &str| board.iter().find(|r| r[1] == name).unwrap().clone();
    let (a, b) = (line(&first[0]), line(&first[1]));
    let num = |s: &str| s.parse::<f64>().unwrap();
    let z = (num(&a[2]) - num(&b[2])) / num(&a[3]).hypot(num(&b[3]));
    let want = rate_batch::numeric::normal_cdf(z);
    assert!((num(&first[9]) - want).abs() < 1e-12, "{first:?} vs {want}");
    assert!(num(&first[9]) >= 0.5);
    let elo = dir.path().join("elo");
    replay_ok(
        &games,
        &elo,
        &["--system", "elo", "--h2h", "2", "--rank-all"],
    );
    assert_eq!(read_csv(&elo.join("h2h.csv"))[1][9], "");
    let boot = dir.path().join("boot");
    replay_ok(
        &games,
        &boot,
        &["--system", "elo", "--h2h", "2", "--ci", "50", "--rank-all"],
    );
    let s = num(&read_csv(&boot.join("h2h.csv"))[1][9]);
    assert!(
        (0.0..=1.0).contains(&s) && (s * 50.0 * 2.0).fract() == 0.0,
        "{s}"
    );
}
