//! Never wrong in silence: how times are read, runaway ratings, and (below) outputs and
//! state that cannot be corrupted, through the binary.

mod common;

use common::{rate_batch, read_csv, texts, write};
use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use tempfile::TempDir;

fn metrics(path: &Path) -> serde_json::Value {
    serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

fn s(p: &Path) -> &str {
    p.to_str().unwrap()
}

/// A small xorshift generator: the generated histories are the same on every machine.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
    fn uniform(&mut self) -> f64 {
        (self.next() >> 11) as f64 / (1u64 << 53) as f64
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
    /// Poisson by inversion (small means).
    fn poisson(&mut self, mean: f64) -> u32 {
        let (mut k, mut p, u) = (0, (-mean).exp(), self.uniform());
        let mut cdf = p;
        while u > cdf && k < 30 {
            k += 1;
            p *= mean / k as f64;
            cdf += p;
        }
        k
    }
}

/// A history shaped like international football results: 240 teams in six regions that for
/// the first 40 years only play within their region (a disconnected early history), a few
/// dominant teams far above minnows that play a handful of games, goals as scores (a quarter
/// of the games drawn), one date per game over 80 years. Written in the published file's
/// columns (`date,home_team,away_team,home_score,away_score`).
fn football_like(path: &Path, games: usize) {
    let mut rng = Rng(0x5eed_f007);
    let teams = 240;
    let strength: Vec<f64> = (0..teams)
        .map(|t| match t % 40 {
            0 => 900.0,             // a dominant team per region
            1..=24 => 0.0,          // ordinary
            _ => -700.0 - t as f64, // minnows
        })
        .collect();
    let mut text = String::from("date,home_team,away_team,home_score,away_score\n");
    let start = 1900 * 365;
    for g in 0..games {
        let day = start + g * 80 * 365 / games;
        let early = g < games / 2;
        let a = rng.below(teams);
        let b = loop {
            let b = if early {
                (a / 40) * 40 + rng.below(40)
            } else {
                rng.below(teams)
            };
            // Minnows rarely play each other: sparse teams.
            if b != a && (b % 40 < 25 || a % 40 < 25 || rng.below(10) == 0) {
                break b;
            }
        };
        let d = (strength[a] - strength[b]) / 400.0;
        let (ga, gb) = (
            rng.poisson(1.3 * 10f64.powf(d / 2.0)),
            rng.poisson(1.3 * 10f64.powf(-d / 2.0)),
        );
        let (y, doy) = (day / 365, day % 365);
        let _ = writeln!(
            text,
            "{y:04}-{:02}-{:02},T{a},T{b},{ga},{gb}",
            doy / 31 % 12 + 1,
            doy % 28 + 1
        );
    }
    std::fs::write(path, text).unwrap();
}

const FOOTBALL_MAP: &str =
    "a=home_team,b=away_team,score_a=home_score,score_b=away_score,time=date";

/// Every system, in the test build (debug: integer overflow would panic), through a sparse,
/// disconnected, lopsided history: no panic, no failure, and every rating within an
/// ordinary range (Codeforces ran away to 4.9e15 on the real football results).
#[test]
fn a_football_like_history_through_every_system_stays_finite_and_sane() {
    let dir = TempDir::new().unwrap();
    let input = dir.path().join("results.csv");
    football_like(&input, 6000);
    let out = dir.path().join("cmp");
    let o = rate_batch(&[
        "compare",
        s(&input),
        "--format",
        "games",
        "--map",
        FOOTBALL_MAP,
        "--systems",
        "all",
        "--out",
        s(&out),
        "--quiet",
    ]);
    assert!(o.status.success(), "{}", texts(&o).1);
    let table = read_csv(&out.join("compare.csv"));
    assert_eq!(table.len(), 13);
    let failed = table[0].iter().position(|h| h == "failed").unwrap();
    for row in &table[1..] {
        assert_eq!(row[failed], "", "{row:?}");
        let board = read_csv(&out.join(&row[0]).join("leaderboard.csv"));
        let largest = board[1..]
            .iter()
            .map(|r| r[2].parse::<f64>().unwrap().abs())
            .fold(0.0, f64::max);
        assert!(largest < 1e5, "{}: {largest}", row[0]);
        assert_eq!(board.len(), 241, "{}", row[0]);
    }
}

/// A system pushed to diverge (Elo with K 10^12) stops at the first round with the system, the
/// round, the contest and the player named; exit code 4; nothing is written.
#[test]
fn a_diverging_system_stops_naming_round_and_player() {
    let dir = TempDir::new().unwrap();
    let games = write(
        dir.path(),
        "g.csv",
        "time,a,b,result\n2021-01-01,ann,bob,1\n2021-01-02,bob,cy,1\n",
    );
    let out = dir.path().join("o");
    let o = rate_batch(&[
        "replay",
        s(&games),
        "--out",
        s(&out),
        "--system",
        "elo",
        "--k",
        "1e12",
    ]);
    let err = texts(&o).1;
    assert_eq!(o.status.code(), Some(4), "{err}");
    assert!(
        err.contains("elo diverged in round 0 (contest #1 of 2021-01-01T00:00:00Z)"),
        "{err}"
    );
    assert!(err.contains("`ann`'s rating 5.00000"), "{err}");
    assert!(!out.exists() || common::listing(&out).is_empty());
}

/// `compare` with one failing system writes every other row and says which failed (exit 4);
/// `tune` lists a failing set last with its reason.
#[test]
fn compare_and_tune_keep_going_past_a_failed_system() {
    let dir = TempDir::new().unwrap();
    let input = dir.path().join("results.csv");
    football_like(&input, 600);
    let out = dir.path().join("cmp");
    let o = rate_batch(&[
        "compare",
        s(&input),
        "--format",
        "games",
        "--map",
        FOOTBALL_MAP,
        "--systems",
        "elo,glicko2,trueskill",
        "--param",
        "elo:k=1e12",
        "--out",
        s(&out),
    ]);
    let (stdout, stderr) = texts(&o);
    assert_eq!(o.status.code(), Some(4), "{stderr}");
    assert!(stderr.contains("1 of 3 systems failed (elo)"), "{stderr}");
    assert!(
        stdout.contains("| elo | failed: elo diverged in round 0"),
        "{stdout}"
    );
    let table = read_csv(&out.join("compare.csv"));
    let failed = table[0].iter().position(|h| h == "failed").unwrap();
    assert!(table[1][failed].starts_with("failed: elo diverged"));
    for row in &table[2..] {
        assert_eq!(row[failed], "");
        assert!(row[1].parse::<f64>().unwrap() > 50.0, "{row:?}");
        assert!(out.join(&row[0]).join("leaderboard.csv").exists());
    }
    assert!(!out.join("elo").join("leaderboard.csv").exists());

    let tuned = dir.path().join("tune");
    let o = rate_batch(&[
        "tune",
        s(&input),
        "--format",
        "games",
        "--map",
        FOOTBALL_MAP,
        "--system",
        "elo",
        "--grid",
        "k=1e12,16,32",
        "--out",
        s(&tuned),
    ]);
    let (stdout, stderr) = texts(&o);
    assert_eq!(o.status.code(), Some(4), "{stderr}");
    assert!(stdout.contains("1 of 3 sets failed"), "{stdout}");
    let rows = read_csv(&tuned.join("tune.csv"));
    assert_eq!(rows.len(), 4);
    assert!(
        rows[3][1] == "1000000000000" && rows[3].last().unwrap().starts_with("failed: "),
        "{rows:?}"
    );
    assert!(rows[1].last().unwrap().is_empty() && rows[2].last().unwrap().is_empty());
}

/// Sackmann's ATP files: `tourney_date` as 20230102. Read as dates (not as Unix seconds of
/// 1970), so `--period week` and `--as-of` work; the reading is reported.
#[test]
fn yyyymmdd_dates_are_read_as_dates_and_an_ambiguous_column_is_refused() {
    let dir = TempDir::new().unwrap();
    let atp = write(
        dir.path(),
        "atp_matches_2023.csv",
        "tourney_id,tourney_date,winner_name,loser_name,score\n\
         2023-9900,20230102,Taylor Fritz,Matteo Berrettini,7-6 7-6\n\
         2023-9900,20230102,Alex de Minaur,Rafael Nadal,3-6 6-1 7-5\n\
         2023-0451,20230109,Taylor Fritz,Alex de Minaur,6-4 6-4\n\
         2023-0580,20230703,Rafael Nadal,Taylor Fritz,6-2 6-2\n",
    );
    let map = "time=tourney_date,a=winner_name,b=loser_name,winner=winner_name";
    let out = dir.path().join("o");
    let o = rate_batch(&[
        "replay",
        s(&atp),
        "--format",
        "games",
        "--map",
        map,
        "--period",
        "week",
        "--as-of",
        "2023-06-30",
        "--out",
        s(&out),
    ]);
    let (stdout, stderr) = texts(&o);
    assert!(o.status.success(), "{stderr}");
    assert!(
        stdout.contains("times: auto: integers as YYYYMMDD dates (the first: 20230102)"),
        "{stdout}"
    );
    let m = metrics(&out.join("metrics.json"));
    assert_eq!(m["rounds"], 2, "two ISO weeks before the cutoff");
    assert_eq!(
        m["input"]["time_format"],
        "auto: integers as YYYYMMDD dates (the first: 20230102)"
    );
    let history = read_csv(&out.join("history.csv"));
    assert_eq!(history.len(), 1 + 6, "the July match is after --as-of");
    assert_eq!(history[1][2], "2023-01-02T00:00:00Z");
    // The explicit flag reads the same; unix reads 1970.
    let o = rate_batch(&[
        "replay",
        s(&atp),
        "--format",
        "games",
        "--map",
        map,
        "--time-format",
        "unix",
        "--out",
        s(&dir.path().join("u")),
    ]);
    assert!(o.status.success());
    let history = read_csv(&dir.path().join("u").join("history.csv"));
    assert_eq!(history[1][2], "1970-08-23T03:28:22Z");

    // A column of Unix seconds in which a value also reads as a date: refused in auto,
    // naming the column, the value, both readings and the flags.
    let mixed = write(
        dir.path(),
        "mixed.csv",
        "time,a,b,result\n86400,x,y,1\n20230102,y,z,1\n",
    );
    let o = rate_batch(&["replay", s(&mixed), "--out", s(&dir.path().join("m"))]);
    let err = texts(&o).1;
    assert_eq!(o.status.code(), Some(1), "{err}");
    assert!(err.contains("mixed.csv, line 3, field `time`: ambiguous time `20230102`"));
    assert!(
        err.contains("2023-01-02") && err.contains("1970-08-23T03:28:22Z"),
        "{err}"
    );
    assert!(
        err.contains("--time-format unix or --time-format yyyymmdd"),
        "{err}"
    );
    let o = rate_batch(&[
        "replay",
        s(&mixed),
        "--time-format",
        "unix",
        "--out",
        s(&dir.path().join("m")),
        "--quiet",
    ]);
    assert!(o.status.success(), "{}", texts(&o).1);
    // --as-of with an 8-digit integer is ambiguous too.
    let o = rate_batch(&[
        "replay",
        s(&mixed),
        "--time-format",
        "unix",
        "--as-of",
        "20230630",
        "--out",
        s(&dir.path().join("m")),
        "--quiet",
    ]);
    assert!(o.status.success(), "with --time-format unix it is seconds");
    let o = rate_batch(&[
        "replay",
        s(&atp),
        "--format",
        "games",
        "--map",
        map,
        "--as-of",
        "20230630",
        "--out",
        s(&dir.path().join("a")),
    ]);
    assert_eq!(o.status.code(), Some(2));
    assert!(texts(&o).1.contains("ambiguous time `20230630`"));
}

/// Paths of a folder's entries, for listings in messages.
#[allow(dead_code)]
fn entries(dir: &Path) -> Vec<PathBuf> {
    std::fs::read_dir(dir)
        .map(|r| r.map(|e| e.unwrap().path()).collect())
        .unwrap_or_default()
}
