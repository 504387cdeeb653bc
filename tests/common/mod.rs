//! Helpers shared by the integration tests.
#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

/// A file of the project's `../shared` folder. The tests that read it are `#[ignore]`d (run
/// with `-- --ignored`), so when one runs the folder must be there: its absence fails loudly.
pub fn shared(rel: &str) -> PathBuf {
    let p = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../shared")
        .join(rel);
    assert!(
        p.exists(),
        "{} is absent: this test reads ../shared/datasets (run it where that folder is)",
        p.display()
    );
    p
}

/// Runs the binary with arguments.
pub fn rate_batch(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_rate-batch"))
        .args(args)
        .output()
        .expect("the binary runs")
}

/// Runs the binary with arguments and `input` piped into its standard input (written from a
/// thread, so that a run that stops reading early cannot block the test; a run that refuses
/// without reading closes the pipe, and the write's error is expected then).
pub fn with_stdin(args: &[&str], input: &[u8]) -> Output {
    use std::io::Write;
    use std::process::Stdio;
    let mut child = Command::new(env!("CARGO_BIN_EXE_rate-batch"))
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the binary runs");
    let mut stdin = child.stdin.take().unwrap();
    let bytes = input.to_vec();
    let writer = std::thread::spawn(move || {
        let _ = stdin.write_all(&bytes);
    });
    let out = child.wait_with_output().unwrap();
    writer.join().unwrap();
    out
}

/// Runs `replay INPUT --out OUT --quiet ARGS...`.
pub fn replay(input: &Path, out: &Path, args: &[&str]) -> Output {
    command("replay", input, out, args)
}

/// Runs `COMMAND INPUT --out OUT --quiet ARGS...` (`replay`, `compare`, ...).
pub fn command(command: &str, input: &Path, out: &Path, args: &[&str]) -> Output {
    let mut all = vec![
        command,
        input.to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
        "--quiet",
    ];
    all.extend_from_slice(args);
    rate_batch(&all)
}

/// Runs `replay INPUT --out OUT --quiet ARGS...` and asserts that it succeeds.
pub fn replay_ok(input: &Path, out: &Path, args: &[&str]) {
    let o = replay(input, out, args);
    assert!(o.status.success(), "{args:?}: {}", texts(&o).1);
}

/// Writes a file in a folder and returns its path.
pub fn write(dir: &Path, name: &str, text: &str) -> PathBuf {
    let p = dir.join(name);
    std::fs::write(&p, text).unwrap();
    p
}

/// Text of stdout and stderr.
pub fn texts(o: &Output) -> (String, String) {
    (
        String::from_utf8_lossy(&o.stdout).into_owned(),
        String::from_utf8_lossy(&o.stderr).into_owned(),
    )
}

/// Names of the files in a folder, sorted.
pub fn listing(dir: &Path) -> Vec<String> {
    let mut v: Vec<String> = match std::fs::read_dir(dir) {
        Ok(r) => r
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect(),
        Err(_) => Vec::new(),
    };
    v.sort();
    v
}

/// Reads a CSV output into rows of fields (header included).
pub fn read_csv(path: &Path) -> Vec<Vec<String>> {
    let mut r = csv::ReaderBuilder::new()
        .has_headers(false)
        .from_path(path)
        .unwrap();
    r.records()
        .map(|rec| rec.unwrap().iter().map(str::to_string).collect())
        .collect()
}

/// A league of `players` (`rate-batch-lab simulate league --players N`: seed 2024, Davidson
/// draws nu 0.8) into `dir/league.csv`, its true strengths beside it in `league-truth.csv`.
/// The lab's own job, called as a library.
pub fn league(dir: &Path, players: usize) -> PathBuf {
    let games = dir.join("league.csv");
    let cfg = rate_batch_lab::simulate::LeagueConfig {
        players,
        ..rate_batch_lab::simulate::LeagueConfig::default()
    };
    rate_batch_lab::jobs::league(
        &cfg,
        &games,
        &dir.join("league-truth.csv"),
        &mut std::io::sink(),
    )
    .unwrap();
    games
}

/// A pool of `games` random games among `players` (`rate-batch-lab simulate pool --players P
/// --games G --seed S --out OUT`) at `out`: a games CSV, or PGN for a `.pgn` name, compressed
/// for a further `.gz` or `.zst`. The lab's own job, called as a library.
pub fn pool(out: &Path, players: usize, games: usize, seed: u64) -> PathBuf {
    let cfg = rate_batch_lab::simulate::PoolConfig {
        players,
        games,
        seed,
        ..rate_batch_lab::simulate::PoolConfig::default()
    };
    rate_batch_lab::jobs::pool(&cfg, out, &mut std::io::sink()).unwrap();
    out.to_path_buf()
}
