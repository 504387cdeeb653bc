//! `compare`, `tune` and `--report` through the binary.

mod common;

use common::{rate_batch, read_csv, replay_ok, texts, write};
use tempfile::TempDir;

fn metrics(path: &std::path::Path) -> serde_json::Value {
    serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

fn standings(dir: &std::path::Path) -> std::path::PathBuf {
    write(
        dir,
        "s.csv",
        "contest,time,player,rank\n\
         1,2021-01-01,a,1\n1,2021-01-01,b,2\n1,2021-01-01,c,2\n1,2021-01-01,d,4\n\
         2,2021-01-08,a,2\n2,2021-01-08,b,1\n2,2021-01-08,c,3\n2,2021-01-08,e,4\n\
         3,2021-01-15,e,1\n3,2021-01-15,a,2\n3,2021-01-15,d,3\n\
         4,2021-01-22,b,1\n4,2021-01-22,c,2\n4,2021-01-22,d,3\n4,2021-01-22,e,3\n",
    )
}

/// Every system in `compare` gives exactly what `replay` gives alone: the same leaderboard
/// bytes and the same metrics.
#[test]
fn compare_gives_what_replay_gives_alone() {
    let dir = TempDir::new().unwrap();
    let input = standings(dir.path());
    let out = dir.path().join("cmp");
    let o = rate_batch(&[
        "compare",
        input.to_str().unwrap(),
        "--systems",
        "all",
        "--warmup",
        "0",
        "--param",
        "elo:k=24",
        "--out",
        out.to_str().unwrap(),
        "--report",
        // (Four small contests rank nobody by the status rules: every player is charted.)
        "--rank-all",
    ]);
    let (stdout, stderr) = texts(&o);
    assert!(o.status.success(), "{stderr}");
    let table = read_csv(&out.join("compare.csv"));
    assert_eq!(
        table.len(),
        1 + rate_batch::systems::SystemKind::ALL.len(),
        "{stdout}"
    );
    for row in &table[1..] {
        let system = row[0].as_str();
        let alone = dir.path().join(format!("alone-{system}"));
        let mut args = vec!["--system", system, "--warmup", "0", "--rank-all"];
        if system == "elo" {
            args.extend(["--k", "24"]);
        }
        replay_ok(&input, &alone, &args);
        assert_eq!(
            std::fs::read(alone.join("leaderboard.csv")).unwrap(),
            std::fs::read(out.join(system).join("leaderboard.csv")).unwrap(),
            "{system}"
        );
        let a = metrics(&alone.join("metrics.json"));
        let c = metrics(&out.join(system).join("metrics.json"));
        assert_eq!(a["metrics"], c["metrics"], "{system}");
        assert_eq!(a["params"], c["params"], "{system}");
        // The table holds the same numbers.
        let pi = a["metrics"]["all"]["pair_inversion"].as_f64().unwrap();
        assert_eq!(row[1].parse::<f64>().unwrap(), pi, "{system}");
    }
    let m = metrics(&out.join("elo").join("metrics.json"));
    assert_eq!(m["params"]["k"].as_f64(), Some(24.0));
    assert!(stdout.contains("| elo-mmr |"), "{stdout}");
    let html = std::fs::read_to_string(out.join("report.html")).unwrap();
    assert!(html.starts_with("<!DOCTYPE html>") && !html.contains("<script"));
    // Three charts per system without two-entry contests (trajectories, distribution,
    // metrics over time), and bt's rating intervals (from its Hessian).
    assert_eq!(
        html.matches("<svg").count(),
        3 * rate_batch::systems::SystemKind::ALL.len() + 1,
        "one svg per chart"
    );
    assert_eq!(html.matches("with its rating intervals").count(), 1);
}

#[test]
fn compare_refuses_unknown_systems_and_foreign_parameters() {
    let dir = TempDir::new().unwrap();
    let input = standings(dir.path());
    for (args, needle) in [
        (vec!["--systems", "elo,nope"], "unknown system `nope`"),
        (
            vec!["--systems", "elo", "--param", "glicko:c=3"],
            "not among --systems",
        ),
        (
            vec!["--systems", "elo", "--param", "elo:tau=3"],
            "no parameter `tau`",
        ),
        (
            vec!["--systems", "elo", "--param", "k=3"],
            "SYSTEM:NAME=VALUE",
        ),
    ] {
        let out = dir.path().join("x");
        let mut all = vec![
            "compare",
            input.to_str().unwrap(),
            "--out",
            out.to_str().unwrap(),
        ];
        all.extend(args);
        let o = rate_batch(&all);
        assert_eq!(o.status.code(), Some(2));
        assert!(texts(&o).1.contains(needle), "{}", texts(&o).1);
        assert!(!out.exists());
    }
}

#[test]
fn replay_report_has_a_calibration_chart_for_games() {
    let dir = TempDir::new().unwrap();
    let games = write(
        dir.path(),
        "g.csv",
        "time,a,b,result\n1,a,b,1-0\n2,b,c,1-0\n3,c,a,0-1\n4,a,b,1/2-1/2\n5,b,c,1-0\n6,c,a,1-0\n",
    );
    let out = dir.path().join("o");
    replay_ok(&games, &out, &["--report", "--warmup", "0", "--rank-all"]);
    let html = std::fs::read_to_string(out.join("report.html")).unwrap();
    // Ratings, histogram, calibration of wins and, the history having a scored draw, of
    // draws.
    assert_eq!(html.matches("<svg").count(), 5, "with both calibrations");
    assert!(html.contains("Calibration of predicted draw probabilities"));
    assert!(html.contains("elo"));
    // Without draws, no draw calibration.
    let decisive = write(
        dir.path(),
        "d.csv",
        "time,a,b,result\n1,a,b,1-0\n2,b,c,1-0\n3,c,a,0-1\n4,a,b,0-1\n",
    );
    let out = dir.path().join("d");
    replay_ok(
        &decisive,
        &out,
        &["--report", "--warmup", "0", "--rank-all"],
    );
    let html = std::fs::read_to_string(out.join("report.html")).unwrap();
    assert_eq!(
        html.matches("<svg").count(),
        4,
        "with the calibration of wins"
    );
}

#[test]
fn tune_writes_its_table_and_a_held_out_score() {
    let dir = TempDir::new().unwrap();
    let mut text = String::from("time,a,b,result\n");
    // A fixed order of strength: a > b > c > d.
    let names = ["a", "b", "c", "d"];
    for g in 0..200 {
        let (x, y) = (g % 4, (g / 4 + g + 1) % 4);
        if x == y {
            continue;
        }
        let res = if x < y { "1-0" } else { "0-1" };
        text.push_str(&format!("{g},{},{},{res}\n", names[x], names[y]));
    }
    let games = write(dir.path(), "g.csv", &text);
    let out = dir.path().join("t");
    let o = rate_batch(&[
        "tune",
        games.to_str().unwrap(),
        "--system",
        "elo",
        "--grid",
        "k=8,16,32,64",
        "--metric",
        "logloss",
        "--out",
        out.to_str().unwrap(),
    ]);
    let (stdout, stderr) = texts(&o);
    assert!(o.status.success(), "{stderr}");
    let t = read_csv(&out.join("tune.csv"));
    assert_eq!(t.len(), 1 + 4);
    assert_eq!(t[0][..2], ["rank", "k"]);
    assert_eq!(
        t[1][1], "64",
        "the fastest spread predicts a fixed order best"
    );
    assert!(
        stdout.contains("Held out") && stdout.contains("k=64"),
        "{stdout}"
    );
    let o = rate_batch(&[
        "tune",
        games.to_str().unwrap(),
        "--grid",
        "k=8,x",
        "--out",
        out.to_str().unwrap(),
    ]);
    assert_eq!(o.status.code(), Some(2));
    // A word where the system takes a number: refused by the system, before any replay.
    assert!(
        texts(&o).1.contains(r#"string "x", expected f64"#),
        "{}",
        texts(&o).1
    );
    // More sets than any run should try: a usage error, not an allocation failure.
    let o = rate_batch(&[
        "tune",
        games.to_str().unwrap(),
        "--random",
        "18446744073709551615",
        "--out",
        out.to_str().unwrap(),
    ]);
    assert_eq!(o.status.code(), Some(2), "{}", texts(&o).1);
    assert!(texts(&o).1.contains("at most 10000"), "{}", texts(&o).1);
}

/// With rounds longer than one contest (`--period day`), the tuning slice holds only whole
/// rounds within the first 10 %: changing the games after it cannot change the choice.
#[test]
fn tune_with_periods_never_sees_past_its_slice() {
    let dir = TempDir::new().unwrap();
    // 40 days of up to 5 games (every fifth day has none): 160 contests, a slice of 16, which
    // cuts the fourth day (contests 15-19, games 15-19).
    let names = ["a", "b", "c", "d", "e"];
    let make = |flip_from: usize| {
        let mut text = String::from("time,a,b,result\n");
        for g in 0..200usize {
            let (x, y) = (g % 5, (g / 5 + g + 1) % 5);
            if x == y {
                continue;
            }
            let mut win = x < y;
            if g >= flip_from {
                win = !win;
            }
            let res = if win { "1-0" } else { "0-1" };
            let t = format!(
                "2021-{:02}-{:02}T{:02}:00:00Z",
                1 + g / 5 / 28,
                1 + g / 5 % 28,
                g % 5
            );
            text.push_str(&format!("{t},{},{},{res}\n", names[x], names[y]));
        }
        text
    };
    let tune = |name: &str, text: &str| {
        let games = write(dir.path(), name, text);
        let out = dir.path().join(format!("{name}.out"));
        let o = rate_batch(&[
            "tune",
            games.to_str().unwrap(),
            "--system",
            "elo",
            "--period",
            "day",
            "--metric",
            "logloss",
            "--out",
            out.to_str().unwrap(),
        ]);
        assert!(o.status.success(), "{}", texts(&o).1);
        std::fs::read_to_string(out.join("tune.csv")).unwrap()
    };
    // Flipping every result from game 16 on (inside the day that straddles the cut) changes
    // nothing: that day is not part of the slice.
    assert_eq!(tune("a.csv", &make(usize::MAX)), tune("b.csv", &make(16)));
}

/// `compare --ci`: every metric's interval per system, one best system per metric, the
/// others marked indistinguishable or worse, in compare.csv and the printed table.
#[test]
fn compare_with_intervals_marks_the_best_per_metric() {
    let dir = TempDir::new().unwrap();
    let league = common::league(dir.path(), 12);
    let out = dir.path().join("cmp");
    let o = rate_batch(&[
        "compare",
        league.to_str().unwrap(),
        "--systems",
        "elo,glicko,bt",
        "--ci",
        "50",
        "--out",
        out.to_str().unwrap(),
    ]);
    let (stdout, stderr) = texts(&o);
    assert!(o.status.success(), "{stderr}");
    assert!(stdout.contains("`*`: the best system"), "{stdout}");
    // The report's table has the intervals and marks too.
    let report = dir.path().join("rep");
    let o = rate_batch(&[
        "replay",
        league.to_str().unwrap(),
        "--system",
        "elo",
        "--ci",
        "30",
        "--report",
        "--quiet",
        "--out",
        report.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", texts(&o).1);
    let html = std::fs::read_to_string(report.join("report.html")).unwrap();
    assert!(html.contains(" *</td>"), "the single system is the best");
    assert!(html.contains("with its rating intervals"));
    let table = read_csv(&out.join("compare.csv"));
    let col = |name: &str| table[0].iter().position(|h| h == name).unwrap();
    for metric in ["pair_inversion_all", "log_loss", "brier", "accuracy"] {
        let marks: Vec<&str> = table[1..]
            .iter()
            .map(|r| r[col(&format!("{metric}_versus_best"))].as_str())
            .collect();
        assert_eq!(
            marks.iter().filter(|m| **m == "best").count(),
            1,
            "{metric}: {marks:?}"
        );
        assert!(
            marks
                .iter()
                .all(|m| ["best", "indistinguishable", "worse"].contains(m)),
            "{marks:?}"
        );
        for r in &table[1..] {
            let (lo, hi): (f64, f64) = (
                r[col(&format!("{metric}_lo"))].parse().unwrap(),
                r[col(&format!("{metric}_hi"))].parse().unwrap(),
            );
            assert!(lo <= hi, "{metric} {r:?}");
        }
    }
}

/// Two players who take turns winning: whoever won last is the favourite, and loses. Elo's
/// predictions are then worse than knowing nothing (log-loss above the base rate's ln 2, every
/// pair ordered wrong): `replay` says so on stderr and in metrics.json, `compare` marks the
/// row in its tables and the report; a system that predicts better is not marked.
#[test]
fn predictions_worse_than_a_coin_are_flagged() {
    let dir = TempDir::new().unwrap();
    let mut text = String::from("time,a,b,result\n");
    for k in 0..60 {
        text.push_str(&format!(
            "2024-01-{:02}T{:02}:00:00Z,x,y,{}\n",
            1 + k / 24,
            k % 24,
            1 - k % 2
        ));
    }
    let input = write(dir.path(), "turns.csv", &text);
    let out = dir.path().join("elo");
    let o = rate_batch(&[
        "replay",
        input.to_str().unwrap(),
        "--system",
        "elo",
        "--out",
        out.to_str().unwrap(),
    ]);
    let (_, stderr) = texts(&o);
    assert!(o.status.success(), "{stderr}");
    assert!(
        stderr
            .contains("warning: elo predicts worse than knowing nothing of the players: log-loss"),
        "{stderr}"
    );
    let m = metrics(&out.join("metrics.json"));
    let warnings = m["warnings"].as_array().unwrap();
    assert_eq!(warnings.len(), 2, "{warnings:?}");
    assert!(warnings[0].as_str().unwrap().contains("base rate's 0.6931"));
    assert!(
        warnings[1]
            .as_str()
            .unwrap()
            .contains("pair inversion 0.00 %")
    );

    let cmp = dir.path().join("cmp");
    let o = rate_batch(&[
        "compare",
        input.to_str().unwrap(),
        "--systems",
        "elo,bt",
        "--out",
        cmp.to_str().unwrap(),
        "--report",
    ]);
    let (stdout, stderr) = texts(&o);
    assert!(o.status.success(), "{stderr}");
    assert!(stdout.contains("| elo ! |"), "{stdout}");
    assert!(
        stdout.contains("`!`: predicts worse than knowing nothing"),
        "{stdout}"
    );
    let table = read_csv(&cmp.join("compare.csv"));
    let warnings = table[0].iter().position(|h| h == "warnings").unwrap();
    assert!(table[1][warnings].contains("log-loss"), "{table:?}");
    let json = metrics(&cmp.join("compare.json"));
    assert_eq!(json["systems"][0]["warnings"].as_array().unwrap().len(), 2);
    let html = std::fs::read_to_string(cmp.join("report.html")).unwrap();
    assert!(html.contains("<p class=\"warn\">Predicts worse than knowing nothing"));

    // x wins every game, from either side: Elo predicts better than the base rate (the first
    // side scores half), no warning.
    let mut text = String::from("time,a,b,result\n");
    for k in 0..60 {
        let (a, b, r) = if k % 2 == 0 {
            ("x", "y", 1)
        } else {
            ("y", "x", 0)
        };
        text.push_str(&format!(
            "2024-02-{:02}T{:02}:00:00Z,{a},{b},{r}\n",
            1 + k / 24,
            k % 24
        ));
    }
    let fair = write(dir.path(), "fair.csv", &text);
    let out = dir.path().join("fair");
    let o = rate_batch(&[
        "replay",
        fair.to_str().unwrap(),
        "--system",
        "elo",
        "--out",
        out.to_str().unwrap(),
    ]);
    assert!(!texts(&o).1.contains("warning"), "{}", texts(&o).1);
    assert!(metrics(&out.join("metrics.json")).get("warnings").is_none());
}

/// A system that cannot rate a contest of the input (here partial play, which Glicko-2 has no
/// weight for) is refused before any replay: `replay` exits 2 naming the contest, the reason
/// and the systems to use; `compare` gives its row the reason, replays the others and
/// succeeds.
#[test]
fn a_system_that_cannot_rate_the_input_is_refused_before_the_replay() {
    let dir = TempDir::new().unwrap();
    let input = write(
        dir.path(),
        "pp.csv",
        "time,a,b,result\n2024-01-01,x,y,1\n2024-01-02,x + w*0.5,y+z,1\n2024-01-03,y,x,0\n",
    );
    let o = rate_batch(&[
        "replay",
        input.to_str().unwrap(),
        "--system",
        "glicko2",
        "--out",
        dir.path().join("r").to_str().unwrap(),
    ]);
    assert_eq!(o.status.code(), Some(2));
    let stderr = texts(&o).1;
    assert!(
        stderr.contains("glicko2 cannot rate contest #2 of 2024-01-02T00:00:00Z")
            && stderr.contains("rate it with elo")
            && stderr.ends_with("nothing was replayed\n"),
        "{stderr}"
    );
    let cmp = dir.path().join("cmp");
    let o = rate_batch(&[
        "compare",
        input.to_str().unwrap(),
        "--systems",
        "elo,glicko2",
        "--out",
        cmp.to_str().unwrap(),
    ]);
    let (stdout, stderr) = texts(&o);
    assert!(o.status.success(), "{stderr}");
    assert!(
        stdout.contains("| glicko2 | refused: glicko2 cannot rate contest #2"),
        "{stdout}"
    );
    let table = read_csv(&cmp.join("compare.csv"));
    assert!(table[2][12].starts_with("refused: "), "{table:?}");
    assert!(!cmp.join("glicko2").exists(), "nothing was replayed");
    assert!(cmp.join("elo").join("leaderboard.csv").exists());
    // Every system refused: nothing to compare.
    let o = rate_batch(&[
        "compare",
        input.to_str().unwrap(),
        "--systems",
        "glicko,glicko2",
        "--out",
        dir.path().join("none").to_str().unwrap(),
    ]);
    assert_eq!(o.status.code(), Some(2));
    assert!(texts(&o).1.contains("no system can rate this input"));
}
