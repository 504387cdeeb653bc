//! The lab's `simulate pool` output formats, read by the product: PGN (read back by the PGN
//! reader as the same games as the CSV of the seed) and `.gz` / `.zst` compression of either.
//! (The pools come from the lab's job called as a library: `rate-batch-lab simulate pool`.)

mod common;

use common::{rate_batch, replay_ok, texts};
use std::io::Read;
use std::path::{Path, PathBuf};
use tempfile::TempDir;

fn s(p: &Path) -> &str {
    p.to_str().unwrap()
}

/// Writes a small pool (30 players, 400 games, seed 11) to `dir/name`.
fn pool(dir: &Path, name: &str) -> PathBuf {
    common::pool(&dir.join(name), 30, 400, 11)
}

/// What `replay --dry-run` reports after the format: `N games read` (or `rows`), then the
/// contests, players and placings.
fn dry_run(input: &Path) -> (String, String) {
    let o = rate_batch(&["replay", s(input), "--dry-run"]);
    let (stdout, stderr) = texts(&o);
    assert!(o.status.success(), "{stderr}");
    let first = stdout.lines().next().unwrap_or_default();
    let (read, history) = first
        .split_once(" format, ")
        .and_then(|(_, rest)| rest.split_once(" read, "))
        .unwrap_or_else(|| panic!("{first}"));
    (read.to_string(), history.to_string())
}

#[test]
fn pool_pgn_replays_to_the_same_leaderboard_as_the_csv() {
    let dir = TempDir::new().unwrap();
    let csv = pool(dir.path(), "pool.csv");
    let pgn = pool(dir.path(), "pool.pgn");
    let pgn_text = std::fs::read_to_string(&pgn).unwrap();
    assert!(
        pgn_text.starts_with("[Event \"Rated Blitz game\"]\n"),
        "{}",
        &pgn_text[..200]
    );
    assert_eq!(pgn_text.matches("[Event ").count(), 400);
    // Both are 400 games between 30 players (400 PGN games read, none skipped, as 400 CSV
    // rows).
    let (read_pgn, pgn_history) = dry_run(&pgn);
    let (read_csv, csv_history) = dry_run(&csv);
    assert_eq!((&*read_pgn, &*read_csv), ("400 games", "400 rows"));
    assert_eq!(pgn_history, csv_history);
    assert_eq!(
        pgn_history,
        "400 contests, 30 players, 800 placings; input is valid"
    );
    let (out_csv, out_pgn) = (dir.path().join("o-csv"), dir.path().join("o-pgn"));
    replay_ok(&csv, &out_csv, &["--system", "elo"]);
    replay_ok(&pgn, &out_pgn, &["--system", "elo"]);
    let leaderboard = |out: &Path| std::fs::read(out.join("leaderboard.csv")).unwrap();
    assert_eq!(leaderboard(&out_csv), leaderboard(&out_pgn));
    assert!(leaderboard(&out_csv).len() > 30 * 10, "a leaderboard of 30");
}

#[test]
fn compressed_pool_outputs_decompress_to_the_plain_files() {
    let dir = TempDir::new().unwrap();
    for plain in ["pool.csv", "pool.pgn"] {
        let bytes = std::fs::read(pool(dir.path(), plain)).unwrap();
        let gz = std::fs::read(pool(dir.path(), &format!("{plain}.gz"))).unwrap();
        let zst = std::fs::read(pool(dir.path(), &format!("{plain}.zst"))).unwrap();
        assert!(gz.starts_with(&[0x1f, 0x8b]), "{plain}.gz is gzip");
        assert!(
            zst.starts_with(&[0x28, 0xb5, 0x2f, 0xfd]),
            "{plain}.zst is zstd"
        );
        assert!(gz.len() < bytes.len() && zst.len() < bytes.len());
        let mut from_gz = Vec::new();
        flate2::read::GzDecoder::new(&gz[..])
            .read_to_end(&mut from_gz)
            .unwrap();
        assert!(from_gz == bytes, "{plain}.gz decompresses to {plain}");
        let from_zst = zstd::stream::decode_all(&zst[..]).unwrap();
        assert!(from_zst == bytes, "{plain}.zst decompresses to {plain}");
    }
    // Written atomically, as the plain files are: no temporary file is left beside them.
    assert_eq!(
        common::listing(dir.path()),
        [
            "pool.csv",
            "pool.csv.gz",
            "pool.csv.zst",
            "pool.pgn",
            "pool.pgn.gz",
            "pool.pgn.zst"
        ]
    );
}
