//! `tune --shard K/N` and `--merge`: a sweep cut into N slices and merged is the sweep run
//! once, byte for byte.

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
