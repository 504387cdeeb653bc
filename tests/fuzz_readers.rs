//! Mutation fuzzing of every reader: valid samples of each format (games CSV, standings CSV,
//! contest JSON, PGN, Parquet), of the side files (initial ratings, true ratings, a
//! matchmaking pool) and of saved states (three systems) are mutated at random (bytes
//! flipped, inserted or deleted; chunks duplicated, moved or cut off; quotes, commas, line
//! breaks, a BOM, NUL, invalid UTF-8, long runs and numbers spliced in) and read, with and
//! without `--skip-invalid`. Every input must give a history or an error; none may panic.
//!
//! `FUZZ_CASES` sets the number of inputs per reader (default 300, what CI runs;
//! `FUZZ_CASES=100000 cargo test --release --test fuzz_readers` is the long run).

use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use rate_batch::history::{HistoryBuilder, SourceInfo};
use rate_batch::ingest::{Format, IngestOptions, ingest, seeds::read_seeds};
use std::path::Path;
use tempfile::TempDir;

const GAMES: &str = "time,a,b,result,series\n\
2021-10-05T11:09:00Z,DWG KIA,T1,1-0,s1\n\
2021-10-05 12:00,\"Smith, John\",Jos\u{e9},0-1,s2\n\
2021-10-06,A+B,C+D,1/2-1/2,\n\
1633500000,x,y,1,\n";

const STANDINGS: &str = "contest,time,player,rank,team,weight\n\
1,2021-01-01,a,1,t1,1\n1,2021-01-01,b,1,t1,1\n1,2021-01-01,c,2,,1\n\
2,2021-01-08T10:00:00Z,a,2,,0.5\n2,2021-01-08T10:00:00Z,d,1,,0.5\n";

const JSON: &str = r#"[{"name":"c1","time_seconds":100,"standings":[["a",0,0],["b",1,2],["c",1,2]]},
{"name":"c2","time_seconds":200,"weight":0.5,"standings":[["b",0,0],["a",1,1]]}]"#;

const PGN: &str = "[Event \"x\"]\n[White \"Alpha 1\"]\n[Black \"Beta\"]\n[Date \"2021.01.??\"]\n[Result \"1-0\"]\n\n1. e4 e5 {a comment} 1-0\n\n\
[White \"Beta\"]\n[Black \"Gamma\"]\n[Date \"2021.02.03\"]\n[Result \"1/2-1/2\"]\n\n1. d4 1/2-1/2\n\n\
[White \"Gamma\"]\n[Black \"Alpha 1\"]\n[Date \"2021.02.04\"]\n[Result \"*\"]\n\n*\n";

const SEEDS: &str = "player,rating,uncertainty,volatility\na,1500,200,0.06\nb,1400,,\n";

/// Damaged Parquet files are decoded first in a child process (the decoder can abort on
/// them); in a test the child is the rate-batch binary.
fn use_the_binary_for_probes() {
    // SAFETY: set before any thread of this test reads the environment; every test sets the
    // same value.
    unsafe { std::env::set_var("RATE_BATCH_EXE", env!("CARGO_BIN_EXE_rate-batch")) };
}

fn cases() -> usize {
    std::env::var("FUZZ_CASES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(300)
}

/// Pieces spliced into inputs: the characters and tokens readers must survive.
const SPLICES: [&[u8]; 18] = [
    b"\"",
    b",",
    b"\n",
    b"\r\n",
    b"\xEF\xBB\xBF",
    b"\0",
    b"\xFF\xFE",
    b"\xC3",
    b"[",
    b"]",
    b"{",
    b"-1",
    b"1e309",
    b"NaN",
    b"18446744073709551616",
    b"9999-99-99",
    b"\"\"",
    b"\t",
];

fn mutate(rng: &mut ChaCha8Rng, seed: &[u8]) -> Vec<u8> {
    let mut v = seed.to_vec();
    for _ in 0..rng.random_range(1..6) {
        let len = v.len().max(1);
        match rng.random_range(0..8) {
            0 if !v.is_empty() => {
                let i = rng.random_range(0..v.len());
                v[i] ^= 1 << rng.random_range(0..8);
            }
            1 => {
                let i = rng.random_range(0..=v.len());
                v.insert(i, rng.random());
            }
            2 if !v.is_empty() => {
                let i = rng.random_range(0..v.len());
                let n = rng.random_range(1..=(v.len() - i).min(16));
                v.drain(i..i + n);
            }
            3 => {
                let i = rng.random_range(0..=v.len());
                let s = SPLICES[rng.random_range(0..SPLICES.len())];
                v.splice(i..i, s.iter().copied());
            }
            4 if !v.is_empty() => {
                // Duplicate a chunk somewhere else.
                let i = rng.random_range(0..v.len());
                let n = rng.random_range(1..=(v.len() - i).min(64));
                let chunk: Vec<u8> = v[i..i + n].to_vec();
                let j = rng.random_range(0..=v.len());
                v.splice(j..j, chunk);
            }
            5 => v.truncate(rng.random_range(0..len)),
            6 => {
                // A long run of one byte.
                let i = rng.random_range(0..=v.len());
                let b = [b'a', b'9', b',', b'"', b' '][rng.random_range(0..5)];
                let n = rng.random_range(100..5000);
                v.splice(i..i, std::iter::repeat_n(b, n));
            }
            _ => {
                // Swap two bytes.
                if v.len() > 1 {
                    let (i, j) = (rng.random_range(0..v.len()), rng.random_range(0..v.len()));
                    v.swap(i, j);
                }
            }
        }
    }
    v
}

/// Reads every mutant of `seed` with `read`; a panic fails the test with the input saved.
fn fuzz(name: &str, seed: &[u8], ext: &str, read: impl Fn(&Path, bool) -> bool) {
    let dir = TempDir::new().unwrap();
    let path = dir.path().join(format!("input.{ext}"));
    // Each target its own stream (seeded from its whole name, not its length, which several
    // share).
    let stream = name.bytes().fold(0xcbf2_9ce4_8422_2325_u64, |h, b| {
        (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3)
    });
    let mut rng = ChaCha8Rng::seed_from_u64(stream);
    // The seed itself must read.
    std::fs::write(&path, seed).unwrap();
    assert!(read(&path, false), "{name}: the seed does not read");
    for case in 0..cases() {
        let input = mutate(&mut rng, seed);
        std::fs::write(&path, &input).unwrap();
        let skip = case % 2 == 1;
        let outcome = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| read(&path, skip)));
        if outcome.is_err() {
            let keep = std::env::temp_dir().join(format!("fuzz-crash-{name}-{case}.{ext}"));
            std::fs::write(&keep, &input).unwrap();
            panic!(
                "{name}: case {case} panicked; input saved to {}",
                keep.display()
            );
        }
    }
}

fn with_format(format: Format) -> impl Fn(&Path, bool) -> bool {
    move |p: &Path, skip: bool| {
        let o = IngestOptions {
            format: Some(format),
            skip_invalid: skip,
            ..IngestOptions::default()
        };
        ingest(p, &o).is_ok()
    }
}

#[test]
fn games_csv_never_panics() {
    fuzz("games", GAMES.as_bytes(), "csv", with_format(Format::Games));
}

#[test]
fn standings_csv_never_panics() {
    fuzz(
        "standings",
        STANDINGS.as_bytes(),
        "csv",
        with_format(Format::Standings),
    );
}

#[test]
fn contest_json_never_panics() {
    fuzz("json", JSON.as_bytes(), "json", with_format(Format::Json));
}

#[test]
fn pgn_never_panics() {
    fuzz("pgn", PGN.as_bytes(), "pgn", with_format(Format::Pgn));
}

#[test]
fn parquet_never_panics() {
    use polars::prelude::*;
    let dir = TempDir::new().unwrap();
    let p = dir.path().join("seed.parquet");
    let mut df = DataFrame::new(
        3,
        vec![
            Column::new(
                "time".into(),
                vec!["2021-01-01", "2021-01-02", "2021-01-03"],
            ),
            Column::new("a".into(), vec!["x", "y", "z"]),
            Column::new("b".into(), vec!["y", "z", "x"]),
            Column::new("result".into(), vec!["1-0", "0-1", "1/2-1/2"]),
        ],
    )
    .unwrap();
    ParquetWriter::new(std::fs::File::create(&p).unwrap())
        .finish(&mut df)
        .unwrap();
    let seed = std::fs::read(&p).unwrap();
    use_the_binary_for_probes();
    fuzz("parquet", &seed, "parquet", with_format(Format::Parquet));
}

/// Parquet whose time column is dates at the calendar's ends and whose scores are narrow
/// integers: the fuzzed files never panic (the decoder's own printing of such dates did).
#[test]
fn parquet_of_extreme_dates_and_narrow_integers_never_panics() {
    use polars::prelude::*;
    let dir = TempDir::new().unwrap();
    let p = dir.path().join("seed.parquet");
    let mut df = DataFrame::new(
        3,
        vec![
            Column::new("time".into(), vec![i32::MAX, -i32::MAX, 19_000])
                .cast(&DataType::Date)
                .unwrap(),
            Column::new("a".into(), vec!["x", "y", "z"]),
            Column::new("b".into(), vec!["y", "z", "x"]),
            Column::new("score_a".into(), vec![2i64, 0, 1])
                .cast(&DataType::Int8)
                .unwrap(),
            Column::new("score_b".into(), vec![1i64, 0, 3])
                .cast(&DataType::UInt8)
                .unwrap(),
        ],
    )
    .unwrap();
    ParquetWriter::new(std::fs::File::create(&p).unwrap())
        .finish(&mut df)
        .unwrap();
    let seed = std::fs::read(&p).unwrap();
    use_the_binary_for_probes();
    // (Its two dates beyond the calendar are invalid rows: read with --skip-invalid, the seed
    // is one game.)
    let read = with_format(Format::Parquet);
    fuzz("parquet-dates", &seed, "parquet", |p: &Path, _| {
        read(p, true)
    });
}

#[test]
fn initial_ratings_never_panic() {
    let mut b = HistoryBuilder::new();
    let (x, y) = (b.player("a"), b.player("b"));
    b.add_game(0, 1.0, None, (&[x], &[y]), 1.0, None).unwrap();
    let h = b.finish(SourceInfo::default());
    fuzz("seeds", SEEDS.as_bytes(), "csv", |p: &Path, _| {
        read_seeds(p, &h, None).is_ok()
    });
}

const TRUTH: &str = "contest,player,skill\n,a,1700\n,b,1300.5\nc9,a,1\n";

#[test]
fn truth_never_panics() {
    let mut b = HistoryBuilder::new();
    let (x, y) = (b.player("a"), b.player("b"));
    b.add_game(0, 1.0, None, (&[x], &[y]), 1.0, None).unwrap();
    let h = b.finish(SourceInfo::default());
    fuzz("truth", TRUTH.as_bytes(), "csv", |p: &Path, _| {
        rate_batch::ingest::truth::read_truth(p, &h, None).is_ok()
    });
}

#[test]
fn matchmaking_pool_never_panics() {
    fuzz(
        "pool",
        b"player\nann\n\"bob, jr\"\ncy\n",
        "csv",
        |p: &Path, _| rate_batch::jobs::matchmake::read_pool(p).is_ok(),
    );
}

/// A state's players read back and every value checked, for the system it names.
struct ReadState<'a>(&'a rate_batch::state::StateFile);

impl rate_batch::systems::SystemVisitor for ReadState<'_> {
    type Output = bool;
    fn visit<S: rate_batch::systems::RatingSystem>(self, system: &S) -> bool {
        self.0
            .carry::<S::Player>()
            .and_then(|c| rate_batch::state::check_values(system, &self.0.meta, &c))
            .is_ok()
    }
}

fn read_state(bytes: &[u8]) -> bool {
    let Ok(f) = rate_batch::state::StateFile::read(&mut &bytes[..]) else {
        return false;
    };
    let Some(kind) = rate_batch::systems::SystemKind::from_name(&f.meta.system) else {
        return false;
    };
    let Ok(params) = serde_json::from_str::<rate_batch::systems::ParamMap>(&f.meta.params) else {
        return false;
    };
    rate_batch::systems::dispatch(kind, &params, ReadState(&f)).unwrap_or(false)
}

/// State files of three systems (Elo's plain numbers, Glicko-2's, Elo-MMR's histories of
/// performances), mutated as they are (the checksum refuses nearly all) and with the checksum
/// made right again after the mutation, so that the decoding and the value checks behind it
/// are reached too.
#[test]
fn state_files_never_panic() {
    let dir = TempDir::new().unwrap();
    let games = dir.path().join("g.csv");
    std::fs::write(&games, GAMES_FOR_STATE).unwrap();
    for system in ["elo", "glicko2", "elo-mmr"] {
        let state = dir.path().join(format!("{system}.state"));
        let o = std::process::Command::new(env!("CARGO_BIN_EXE_rate-batch"))
            .args([
                "replay",
                games.to_str().unwrap(),
                "--quiet",
                "--system",
                system,
            ])
            .args(["--period", "day", "--history-format", "none", "--out"])
            .arg(dir.path().join(format!("out-{system}")))
            .arg("--save-state")
            .arg(&state)
            .output()
            .unwrap();
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        let seed = std::fs::read(&state).unwrap();
        fuzz(
            &format!("state-{system}"),
            &seed,
            "state",
            |p: &Path, fix| {
                let mut bytes = std::fs::read(p).unwrap();
                if fix && bytes.len() >= 28 {
                    let n = bytes.len() - 8;
                    let sum = xxhash_rust::xxh3::xxh3_64(&bytes[..n]);
                    bytes[n..].copy_from_slice(&sum.to_le_bytes());
                }
                read_state(&bytes)
            },
        );
    }
}

const GAMES_FOR_STATE: &str = "time,a,b,result\n\
2021-01-01T10:00:00Z,a,b,1\n2021-01-01T11:00:00Z,b,c,0.5\n2021-01-02T10:00:00Z,c,a,0\n\
2021-01-03T10:00:00Z,a,d,1\n2021-01-03T11:00:00Z,d,b,1\n2021-01-04T10:00:00Z,c,d,0\n";
