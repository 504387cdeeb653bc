//! `tune --shard K/N` and `--merge`: a sweep cut into N slices and merged is the sweep run
//! once, byte for byte; `compare`'s likewise, but for each shard's own wall times.

mod common;

use common::{rate_batch, texts};
use std::path::Path;
use tempfile::TempDir;

fn tune(input: &Path, out: &Path, extra: &[&str]) -> std::process::Output {
    let mut args = vec![
        "tune",
        input.to_str().unwrap(),
        "--system",
        "glicko2",
        "--out",
        out.to_str().unwrap(),
        "--quiet",
    ];
    args.extend_from_slice(extra);
    rate_batch(&args)
}

#[test]
fn merged_shards_equal_one_run() {
    let dir = TempDir::new().unwrap();
    let league = common::league(dir.path(), 12);
    for sweep in [
        &["--grid", "tau=0.3,0.6,0.9,1.2;start_rd=200,350"][..],
        &["--random", "7", "--seed", "3"][..],
    ] {
        let one = dir.path().join("one");
        let o = tune(&league, &one, sweep);
        assert!(o.status.success(), "{}", texts(&o).1);
        let expected = std::fs::read(one.join("tune.csv")).unwrap();
        for n in 1..=4 {
            let shards = dir.path().join(format!("shards{n}"));
            for k in 1..=n {
                let mut args = sweep.to_vec();
                let spec = format!("{k}/{n}");
                args.extend(["--shard", spec.as_str()]);
                let o = tune(&league, &shards, &args);
                assert!(o.status.success(), "{}", texts(&o).1);
            }
            let merged = dir.path().join(format!("merged{n}"));
            let mut args = sweep.to_vec();
            args.extend(["--merge", shards.to_str().unwrap()]);
            let o = tune(&league, &merged, &args);
            assert!(o.status.success(), "{}", texts(&o).1);
            assert_eq!(
                std::fs::read(merged.join("tune.csv")).unwrap(),
                expected,
                "{sweep:?}, {n} shards"
            );
            std::fs::remove_dir_all(&shards).unwrap();
        }
    }
}

#[test]
fn merge_refuses_what_is_not_the_same_sweep() {
    let dir = TempDir::new().unwrap();
    let league = common::league(dir.path(), 8);
    let grid = ["--grid", "tau=0.3,0.6,0.9"];
    let shards = dir.path().join("shards");
    for k in ["1/3", "2/3"] {
        let mut args = grid.to_vec();
        args.extend(["--shard", k]);
        assert!(tune(&league, &shards, &args).status.success());
    }
    let out = dir.path().join("m");
    // Shard 3 is missing.
    let mut args = grid.to_vec();
    args.extend(["--merge", shards.to_str().unwrap()]);
    let o = tune(&league, &out, &args);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        texts(&o).1.contains("1 of the 3 shards are missing (3)"),
        "{}",
        texts(&o).1
    );
    // Another grid.
    let mut args = vec!["--grid", "tau=0.3,0.6,1.5"];
    args.extend(["--merge", shards.to_str().unwrap()]);
    let o = tune(&league, &out, &args);
    assert_eq!(o.status.code(), Some(1));
    let err = texts(&o).1;
    assert!(
        err.contains("tune-shard-1-of-3.json") && err.contains("grid"),
        "{err}"
    );
    // A bad shard number.
    let mut args = grid.to_vec();
    args.extend(["--shard", "4/3"]);
    let o = tune(&league, &out, &args);
    assert_eq!(o.status.code(), Some(2));
    assert!(texts(&o).1.contains("K/N"), "{}", texts(&o).1);
}

fn compare(input: &Path, out: &Path, extra: &[&str]) -> std::process::Output {
    let mut args = vec!["--ci", "30"];
    args.extend_from_slice(extra);
    compare_systems("elo,glicko,glicko2,trueskill,yuksel", input, out, &args)
}

/// `compare` of `systems` into `out`, quietly.
fn compare_systems(
    systems: &str,
    input: &Path,
    out: &Path,
    extra: &[&str],
) -> std::process::Output {
    let mut args = vec![
        "compare",
        input.to_str().unwrap(),
        "--systems",
        systems,
        "--out",
        out.to_str().unwrap(),
        "--quiet",
    ];
    args.extend_from_slice(extra);
    rate_batch(&args)
}

/// A compare.csv without its three timing columns (each run's own wall time and rates).
fn untimed(csv: &Path) -> Vec<String> {
    std::fs::read_to_string(csv)
        .unwrap()
        .lines()
        .map(|l| {
            let cells: Vec<&str> = l.split(',').collect();
            [&cells[..9], &cells[12..]].concat().join(",")
        })
        .collect()
}

/// metrics.json without its wall times.
fn untimed_metrics(path: &Path) -> serde_json::Value {
    let mut v: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
    v.as_object_mut().unwrap().remove("wall_seconds");
    v
}

/// `compare --shard K/N` then `--merge`, for N = 1 to 4: the tables (bootstrap intervals and
/// their marks, worked out over every system at the merge, included) and each system's
/// leaderboard and metrics are those of one run; only the wall times are each shard's own.
#[test]
fn merged_compare_shards_equal_one_run() {
    let dir = TempDir::new().unwrap();
    let league = common::league(dir.path(), 12);
    let one = dir.path().join("one");
    let o = compare(&league, &one, &[]);
    assert!(o.status.success(), "{}", texts(&o).1);
    let expected = untimed(&one.join("compare.csv"));
    assert!(
        expected[0].ends_with("log_loss_3_versus_best"),
        "{expected:?}"
    );
    assert_eq!(expected.len(), 6);
    for n in 1..=4 {
        let mut shards = Vec::new();
        for k in 1..=n {
            let out = dir.path().join(format!("shards{n}-{k}"));
            let spec = format!("{k}/{n}");
            let o = compare(&league, &out, &["--shard", &spec]);
            assert!(o.status.success(), "{}", texts(&o).1);
            assert!(!out.join("compare.csv").exists());
            shards.push(out);
        }
        let merged = dir.path().join(format!("merged{n}"));
        let mut args = vec!["--merge"];
        args.extend(shards.iter().map(|s| s.to_str().unwrap()));
        let o = compare(&league, &merged, &args);
        assert!(o.status.success(), "{}", texts(&o).1);
        assert_eq!(untimed(&merged.join("compare.csv")), expected, "{n} shards");
        for system in ["elo", "glicko", "glicko2", "trueskill", "yuksel"] {
            let (a, b) = (one.join(system), merged.join(system));
            assert_eq!(
                std::fs::read(a.join("leaderboard.csv")).unwrap(),
                std::fs::read(b.join("leaderboard.csv")).unwrap(),
                "{system}, {n} shards"
            );
            assert_eq!(
                untimed_metrics(&a.join("metrics.json")),
                untimed_metrics(&b.join("metrics.json")),
                "{system}, {n} shards"
            );
        }
        let md = std::fs::read_to_string(merged.join("compare.md")).unwrap();
        assert!(md.contains(" * |") || md.contains("] *"), "{md}");
    }
    // A shard left out, and a shard of another comparison, are refused.
    let out = dir.path().join("bad");
    let o = compare(
        &league,
        &out,
        &["--merge", dir.path().join("shards3-1").to_str().unwrap()],
    );
    assert_eq!(o.status.code(), Some(2));
    assert!(
        texts(&o).1.contains("2 of the 3 shards are missing (2, 3)"),
        "{}",
        texts(&o).1
    );
    let shard = dir.path().join("shards1-1");
    let o = rate_batch(&[
        "compare",
        league.to_str().unwrap(),
        "--systems",
        "elo,glicko",
        "--out",
        out.to_str().unwrap(),
        "--merge",
        shard.to_str().unwrap(),
    ]);
    assert_eq!(o.status.code(), Some(1));
    assert!(texts(&o).1.contains("systems"), "{}", texts(&o).1);
}

/// A preset in `--systems` keeps its own replay options (Lichess's rating period and
/// uncertainty growth) in whichever shard replays it: the merged leaderboard is one run's.
#[test]
fn a_preset_keeps_its_replay_options_in_a_shard() {
    let dir = TempDir::new().unwrap();
    let league = common::league(dir.path(), 12);
    let run = |out: &Path, extra: &[&str]| {
        let o = compare_systems("elo,lichess", &league, out, extra);
        assert!(o.status.success(), "{}", texts(&o).1);
    };
    let one = dir.path().join("one");
    run(&one, &[]);
    let shards: Vec<_> = (1..=2).map(|k| dir.path().join(format!("s{k}"))).collect();
    for (k, out) in shards.iter().enumerate() {
        run(out, &["--shard", &format!("{}/2", k + 1)]);
    }
    let merged = dir.path().join("merged");
    let mut args = vec!["--merge"];
    args.extend(shards.iter().map(|s| s.to_str().unwrap()));
    run(&merged, &args);
    for system in ["elo", "glicko2"] {
        assert_eq!(
            std::fs::read(one.join(system).join("leaderboard.csv")).unwrap(),
            std::fs::read(merged.join(system).join("leaderboard.csv")).unwrap(),
            "{system}"
        );
    }
}
