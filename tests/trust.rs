//! Never wrong in silence: how times are read, runaway ratings, and (below) outputs and
//! state that cannot be corrupted, through the binary.

// Exception to clippy::too_many_lines: a test here is one scenario with its table of
// cases and its checks, read top to bottom; cut into pieces it would only scatter.
#![allow(clippy::too_many_lines)]

mod common;

use common::{listing, rate_batch, read_csv, replay, replay_ok, texts, write};
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

/// `compare INPUT --systems SYSTEMS --out OUT` on a football-like file, and more arguments.
fn compare_football(
    input: &Path,
    out: &Path,
    systems: &str,
    extra: &[&str],
) -> std::process::Output {
    let mut args = vec![
        "compare",
        s(input),
        "--format",
        "games",
        "--map",
        FOOTBALL_MAP,
        "--systems",
        systems,
        "--out",
        s(out),
    ];
    args.extend_from_slice(extra);
    rate_batch(&args)
}

/// Every system, in the test build (debug: integer overflow would panic), through a sparse,
/// disconnected, lopsided history: no panic, no failure, and every rating within an
/// ordinary range (Codeforces ran away to 4.9e15 on the real football results).
#[test]
fn a_football_like_history_through_every_system_stays_finite_and_sane() {
    let dir = TempDir::new().unwrap();
    let input = dir.path().join("results.csv");
    football_like(&input, 6000);
    let out = dir.path().join("cmp");
    let o = compare_football(&input, &out, "all", &["--quiet"]);
    assert!(o.status.success(), "{}", texts(&o).1);
    let table = read_csv(&out.join("compare.csv"));
    assert_eq!(table.len(), 1 + rate_batch::systems::SystemKind::ALL.len());
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
    let o = compare_football(
        &input,
        &out,
        "elo,glicko2,trueskill",
        &["--param", "elo:k=1e12"],
    );
    let (stdout, stderr) = texts(&o);
    assert_eq!(o.status.code(), Some(4), "{stderr}");
    assert!(stderr.contains("1 of 3 systems failed (elo)"), "{stderr}");
    assert!(
        stdout.contains("| elo | failed: elo diverged in round 0"),
        "{stdout}"
    );
    let table = read_csv(&out.join("compare.csv"));
    let failed = table[0].iter().position(|h| h == "failed").unwrap();
    assert_eq!(table.len(), 1 + 3, "a row for every system: {table:?}");
    assert!(table[1][failed].starts_with("failed: elo diverged"));
    for row in &table[2..] {
        assert_eq!(row[failed], "");
        assert!(row[1].parse::<f64>().unwrap() > 50.0, "{row:?}");
        assert!(out.join(&row[0]).join("leaderboard.csv").exists());
    }
    assert!(!out.join("elo").exists());

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

// ---------------------------------------------------------------- outputs

/// The three outputs of a replay, as text.
fn outputs(out: &Path) -> Vec<String> {
    ["leaderboard.csv", "history.csv", "metrics.json"]
        .iter()
        .map(|f| std::fs::read_to_string(out.join(f)).unwrap())
        .collect()
}

fn league(dir: &Path, name: &str, games: usize) -> PathBuf {
    let mut text = String::from("time,a,b,result\n");
    let mut rng = Rng(games as u64 + 7);
    for g in 0..games {
        let a = rng.below(30);
        let b = (a + 1 + rng.below(29)) % 30;
        let _ = writeln!(
            text,
            "{},p{a},p{b},{}",
            1_600_000_000 + 60 * g,
            rng.below(3) as f64 / 2.0
        );
    }
    write(dir, name, &text)
}

/// Symbolic links planted where a run writes are never followed: not at an output's name, not
/// at any name the old temporary scheme (`.NAME.tmp-PID`) could use, not at the previous
/// history a resumed run copies. The temporary names are random (48 bits), so none can be
/// planted in advance; a foreign `.x.tmp-123` file and a user's own file survive the run.
#[test]
fn planted_links_are_never_followed_and_foreign_files_survive() {
    let dir = TempDir::new().unwrap();
    let input = league(dir.path(), "g.csv", 200);
    let out = dir.path().join("site");
    std::fs::create_dir(&out).unwrap();
    let victim = write(dir.path(), "victim.txt", "precious");
    std::os::unix::fs::symlink(&victim, out.join("leaderboard.csv")).unwrap();
    // Every name the old scheme could pick for the next few thousand processes.
    let next = std::process::id();
    for pid in next..next + 3000 {
        for f in ["leaderboard.csv", "history.csv", "metrics.json"] {
            std::os::unix::fs::symlink(&victim, out.join(format!(".{f}.tmp-{pid}"))).unwrap();
        }
    }
    write(&out, ".x.tmp-123", "not ours");
    write(&out, "index.html", "the league's own page");
    let o = replay(&input, &out, &[]);
    assert!(o.status.success(), "{}", texts(&o).1);
    assert_eq!(std::fs::read_to_string(&victim).unwrap(), "precious");
    let meta = std::fs::symlink_metadata(out.join("leaderboard.csv")).unwrap();
    assert!(
        meta.is_file(),
        "the planted link was replaced by the output"
    );
    assert_eq!(
        std::fs::read_to_string(out.join(".x.tmp-123")).unwrap(),
        "not ours"
    );
    assert_eq!(
        std::fs::read_to_string(out.join("index.html")).unwrap(),
        "the league's own page"
    );
    // The planted links are still links (carried over, not followed, not removed).
    assert!(
        std::fs::symlink_metadata(out.join(format!(".history.csv.tmp-{next}")))
            .unwrap()
            .file_type()
            .is_symlink()
    );
    // Nothing of the run is left beside the folder.
    assert_eq!(listing(dir.path()), ["g.csv", "site", "victim.txt"]);

    // A resumed run copies the previous history.csv: a link planted there is refused.
    let state = dir.path().join("s.state");
    let o = replay(&input, &out, &["--save-state", s(&state)]);
    assert!(o.status.success(), "{}", texts(&o).1);
    std::fs::remove_file(out.join("history.csv")).unwrap();
    std::os::unix::fs::symlink(&victim, out.join("history.csv")).unwrap();
    let o = replay(&input, &out, &["--resume", s(&state)]);
    assert!(!o.status.success());
    assert!(
        texts(&o)
            .1
            .contains("is a symbolic link, which is not followed"),
        "{}",
        texts(&o).1
    );
    assert_eq!(std::fs::read_to_string(&victim).unwrap(), "precious");

    // The output folder itself may not be a link (it is replaced as a whole).
    let link = dir.path().join("link");
    std::os::unix::fs::symlink(&out, &link).unwrap();
    let o = replay(&input, &link, &[]);
    assert_eq!(o.status.code(), Some(3));
    assert!(
        texts(&o).1.contains("is a symbolic link"),
        "{}",
        texts(&o).1
    );
}

/// A failure at the swap, at any rename of the fallback without a swap, or a kill just before
/// the swap leaves the previous set whole (and no temporary files once the next run is done).
#[test]
fn a_failure_while_publishing_leaves_the_previous_set_whole() {
    let dir = TempDir::new().unwrap();
    let first = league(dir.path(), "a.csv", 100);
    let second = league(dir.path(), "b.csv", 150);
    let out = dir.path().join("o");
    assert!(replay(&first, &out, &["--report"]).status.success());
    let before = outputs(&out);
    let run_with = |fault: &str| {
        std::process::Command::new(env!("CARGO_BIN_EXE_rate-batch"))
            .args(["replay", s(&second), "--out", s(&out), "--quiet"])
            .env("RATE_BATCH_FAULT", fault)
            .output()
            .unwrap()
    };
    for fault in [
        "exchange",
        "kill-before-swap",
        // The renames of history.csv (aside, in), report.html (aside) and leaderboard.csv
        // (in): the owned names' order is `replay_outputs`'.
        "no-exchange,rename:0",
        "no-exchange,rename:1",
        "no-exchange,rename:4",
        "no-exchange,rename:7",
    ] {
        let o = run_with(fault);
        assert!(!o.status.success(), "{fault}");
        assert!(outputs(&out) == before, "{fault}: the previous set changed");
        assert_eq!(
            listing(&out),
            [
                "history.csv",
                "leaderboard.csv",
                "metrics.json",
                "report.html"
            ],
            "{fault}"
        );
    }
    // The fallback itself publishes the whole new set (and drops the old report), whether the
    // swap is refused or an entry cannot be carried over; a user's file stays.
    let fallback_run = |fault: &str, says: &str| {
        let o = run_with(fault);
        let err = texts(&o).1;
        assert!(o.status.success() && err.contains(says), "{fault}: {err}");
    };
    write(&out, "mine.txt", "user");
    fallback_run("carry", "renamed into it one by one");
    assert_eq!(
        listing(&out),
        ["history.csv", "leaderboard.csv", "metrics.json", "mine.txt"]
    );
    std::fs::remove_file(out.join("mine.txt")).unwrap();
    assert!(replay(&first, &out, &["--report"]).status.success());
    fallback_run("no-exchange", "cannot swap folders");
    assert!(replay(&first, &out, &["--report"]).status.success());
    fallback_run("no-sibling", "its parent folder is not writable");
    assert_eq!(
        listing(&out),
        ["history.csv", "leaderboard.csv", "metrics.json"]
    );
    assert!(replay(&first, &out, &["--report"]).status.success());
    fallback_run("no-exchange", "cannot swap folders");
    assert_eq!(
        listing(&out),
        ["history.csv", "leaderboard.csv", "metrics.json"]
    );
    let fallback = outputs(&out);
    assert!(replay(&second, &out, &[]).status.success());
    // The same files as with the swap (metrics.json differs only in its wall times).
    assert!(
        outputs(&out)[..2] == fallback[..2],
        "the same files as with the swap"
    );
    assert_eq!(
        listing(dir.path()),
        ["a.csv", "b.csv", "o"],
        "leftovers removed"
    );
}

/// Two runs on one folder at once: the one that comes second finds the lock held and stops
/// (exit 5, nothing written); the folder holds one complete set, the other run's.
#[test]
fn two_concurrent_runs_end_with_one_complete_set() {
    let dir = TempDir::new().unwrap();
    let input = common::pool(&dir.path().join("big.csv"), 2000, 150_000, 7);
    let out = dir.path().join("o");
    let spawn = |system: &str| {
        std::process::Command::new(env!("CARGO_BIN_EXE_rate-batch"))
            .args([
                "replay",
                s(&input),
                "--out",
                s(&out),
                "--quiet",
                "--system",
                system,
            ])
            .stderr(std::process::Stdio::piped())
            .spawn()
            .unwrap()
    };
    let runs = [spawn("elo"), spawn("glicko2")].map(|c| c.wait_with_output().unwrap());
    let codes: Vec<Option<i32>> = runs.iter().map(|o| o.status.code()).collect();
    assert!(
        codes.iter().all(|c| *c == Some(0) || *c == Some(5)) && codes.contains(&Some(0)),
        "{codes:?}"
    );
    for o in runs.iter().filter(|o| o.status.code() == Some(5)) {
        assert!(texts(o).1.contains("another rate-batch run is writing"));
    }
    // One complete set, equal to what its system writes alone.
    let m = metrics(&out.join("metrics.json"));
    let system = m["system"].as_str().unwrap();
    assert_eq!(
        listing(&out),
        ["history.csv", "leaderboard.csv", "metrics.json"]
    );
    let alone = dir.path().join("alone");
    assert!(
        replay(&input, &alone, &["--system", system])
            .status
            .success()
    );
    for f in ["leaderboard.csv", "history.csv"] {
        assert!(
            std::fs::read(out.join(f)).unwrap() == std::fs::read(alone.join(f)).unwrap(),
            "{f}"
        );
    }
    assert_eq!(listing(dir.path()), ["alone", "big.csv", "o"]);
}

/// `--save-state` naming an input is refused before anything is read or written.
#[test]
fn a_state_may_not_overwrite_an_input() {
    let dir = TempDir::new().unwrap();
    let input = league(dir.path(), "g.csv", 20);
    let text = std::fs::read(&input).unwrap();
    let o = replay(&input, &dir.path().join("o"), &["--save-state", s(&input)]);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        texts(&o)
            .1
            .contains("is the input: the state would overwrite it")
    );
    assert_eq!(std::fs::read(&input).unwrap(), text);
    // Nor may it, `names`' list or `matchmake`'s pairs overwrite any file read: the aliases,
    // the input, the state, the pool.
    let aliases = dir.path().join("aliases.csv");
    std::fs::write(&aliases, "alias,player\n").unwrap();
    let state = dir.path().join("st");
    replay_ok(&input, &dir.path().join("o"), &["--save-state", s(&state)]);
    let pool = dir.path().join("pool.csv");
    std::fs::write(&pool, "player\np0\np1\n").unwrap();
    let (i, a, st, pl) = (s(&input), s(&aliases), s(&state), s(&pool));
    let o2 = dir.path().join("o2");
    for (args, message) in [
        (
            vec![
                "replay",
                i,
                "--aliases",
                a,
                "--save-state",
                a,
                "--out",
                s(&o2),
            ],
            "--save-state",
        ),
        (vec!["names", i, "--out", i], "--out"),
        (vec!["names", i, "--aliases", a, "--out", a], "--out"),
        (
            vec!["matchmake", "--state", st, "--pool", pl, "--out", st],
            "is --state",
        ),
        (
            vec!["matchmake", "--state", st, "--pool", pl, "--out", pl],
            "is --pool",
        ),
    ] {
        let before: Vec<_> = [&input, &aliases, &state, &pool]
            .map(|f| std::fs::read(f).unwrap())
            .into();
        let o = rate_batch(&args);
        assert_eq!(o.status.code(), Some(2), "{args:?}: {}", texts(&o).1);
        assert!(texts(&o).1.contains(message), "{args:?}: {}", texts(&o).1);
        assert!(
            texts(&o).1.contains("would overwrite it"),
            "{}",
            texts(&o).1
        );
        let after: Vec<_> = [&input, &aliases, &state, &pool]
            .map(|f| std::fs::read(f).unwrap())
            .into();
        assert!(before == after, "{args:?} changed a file it read");
    }
    // Nor a file inside an input folder, whose files are all read.
    let folder = dir.path().join("folder");
    std::fs::create_dir(&folder).unwrap();
    std::fs::copy(&input, folder.join("a.csv")).unwrap();
    let (f, inner) = (s(&folder), folder.join("a.csv"));
    let beside = folder.join("state");
    for args in [
        vec!["names", f, "--out", s(&inner)],
        vec!["replay", f, "--save-state", s(&beside), "--out", s(&o2)],
    ] {
        let o = rate_batch(&args);
        assert_eq!(o.status.code(), Some(2), "{args:?}: {}", texts(&o).1);
        assert!(
            texts(&o).1.contains("whose files are all read"),
            "{}",
            texts(&o).1
        );
    }
    assert_eq!(listing(&folder), ["a.csv"]);
    assert_eq!(
        std::fs::read(&inner).unwrap(),
        std::fs::read(&input).unwrap()
    );
}

/// A resumed run cannot end (`--as-of`) before the last contest its state applied: refused,
/// not published as of a time its ratings are not.
#[test]
fn a_resumed_run_cannot_end_before_its_state() {
    let dir = TempDir::new().unwrap();
    let input = league(dir.path(), "g.csv", 20);
    let (out, state) = (dir.path().join("o"), dir.path().join("st"));
    replay_ok(&input, &out, &["--save-state", s(&state)]);
    let before = std::fs::read(out.join("leaderboard.csv")).unwrap();
    let o = replay(
        &input,
        &out,
        &["--resume", s(&state), "--as-of", "2000-01-01"],
    );
    assert_eq!(o.status.code(), Some(2));
    assert!(
        texts(&o).1.contains("after the end of --as-of"),
        "{}",
        texts(&o).1
    );
    assert_eq!(std::fs::read(out.join("leaderboard.csv")).unwrap(), before);
    let later = ["--resume", s(&state), "--as-of", "2100-01-01"];
    replay_ok(&input, &out, &later);
}

/// Another run that wrote the output folder between two nights leaves a `history.csv` that
/// is not the one the state continues: the resumed run refuses it (its row at the state's
/// count is not of the state's last contest) instead of publishing the other run's rows.
#[test]
fn a_resumed_run_refuses_another_runs_history() {
    let dir = TempDir::new().unwrap();
    let d = dir.path();
    let n1 = write(
        d,
        "n1.csv",
        "time,a,b,result\n2020-01-01,A,B,1\n2020-01-02,B,C,1\n",
    );
    let n2 = write(
        d,
        "n2.csv",
        "time,a,b,result\n2020-01-01,A,B,1\n2020-01-02,B,C,1\n2020-01-03,C,A,1\n",
    );
    let other = write(
        d,
        "other.csv",
        "time,a,b,result\n2021-05-01,X,Y,1\n2021-05-02,Y,Z,1\n2021-05-03,Z,X,1\n",
    );
    let (out, state) = (d.join("out"), d.join("st"));
    replay_ok(&n1, &out, &["--save-state", s(&state)]);
    replay_ok(&other, &out, &[]);
    let o = replay(&n2, &out, &["--resume", s(&state)]);
    assert_eq!(o.status.code(), Some(3), "{}", texts(&o).1);
    assert!(
        texts(&o).1.contains("not the history this state continues"),
        "{}",
        texts(&o).1
    );
    // Its own history continues as before.
    let (own, state2) = (d.join("own"), d.join("st2"));
    replay_ok(&n1, &own, &["--save-state", s(&state2)]);
    replay_ok(&n2, &own, &["--resume", s(&state2)]);
    let whole = d.join("whole");
    replay_ok(&n2, &whole, &[]);
    let read = |dir: &Path| std::fs::read(dir.join("history.csv")).unwrap();
    assert!(read(&own) == read(&whole));
    // An input without times (its history's time empty) resumes as before.
    let (untimed, state3) = (d.join("untimed"), d.join("st3"));
    let no_time = |name: &str, n: usize| {
        let rows = ["a,b,result", "A,B,1", "B,C,1", "C,A,1"];
        write(d, name, &(rows[..n].join("\n") + "\n"))
    };
    replay_ok(
        &no_time("u1.csv", 3),
        &untimed,
        &["--save-state", s(&state3)],
    );
    let u2 = no_time("u2.csv", 4);
    replay_ok(&u2, &untimed, &["--resume", s(&state3)]);
    let whole_untimed = d.join("whole-untimed");
    replay_ok(&u2, &whole_untimed, &[]);
    assert!(read(&untimed) == read(&whole_untimed));
    // Nor does a resumed run that writes another history format drop the history.csv its
    // state continues.
    let kept = read(&own);
    for format in ["none", "parquet"] {
        let args = ["--resume", s(&state2), "--history-format", format];
        let o = replay(&n2, &own, &args);
        assert_eq!(o.status.code(), Some(2), "{format}: {}", texts(&o).1);
        assert!(texts(&o).1.contains("would drop it"), "{}", texts(&o).1);
        assert!(read(&own) == kept, "{format}");
    }
}

// ---------------------------------------------------------------- state integrity

/// A state with one byte changed, a rating edited in place, cut short, or holding NaN (with
/// its checksum recomputed, or in the older format without one) is refused: exit 1, the state
/// file named, nothing written.
#[test]
fn a_damaged_state_is_refused_naming_the_file() {
    let dir = TempDir::new().unwrap();
    let input = league(dir.path(), "g.csv", 120);
    let state = dir.path().join("elo.state");
    let out = dir.path().join("o");
    let o = replay(&input, &out, &["--save-state", s(&state)]);
    assert!(o.status.success(), "{}", texts(&o).1);
    let good = std::fs::read(&state).unwrap();
    let resume = |bytes: &[u8]| {
        let p = dir.path().join("damaged.state");
        std::fs::write(&p, bytes).unwrap();
        let o = replay(
            &input,
            &dir.path().join("o2"),
            &["--resume", s(&p), "--history-format", "none"],
        );
        let written = dir.path().join("o2").exists();
        let _ = std::fs::remove_dir_all(dir.path().join("o2"));
        (o.status.code(), texts(&o).1, written)
    };
    assert_eq!(resume(&good).0, Some(0), "the state itself is fine");
    // The top player's rating, as the f64 the file holds.
    let board = read_csv(&out.join("leaderboard.csv"));
    let top: f64 = board[1][2].parse().unwrap();
    let at = good
        .windows(8)
        .position(|w| w == top.to_le_bytes())
        .expect("the rating is in the file");
    let with = |k: usize, v: &[u8]| {
        let mut b = good.clone();
        b[k..k + v.len()].copy_from_slice(v);
        b
    };
    let rehash = |mut b: Vec<u8>| {
        let n = b.len() - 8;
        let sum = xxhash_rust::xxh3::xxh3_64(&b[..n]);
        b[n..].copy_from_slice(&sum.to_le_bytes());
        b
    };
    let cases: Vec<(&str, Vec<u8>, &str)> = vec![
        (
            "a byte changed",
            with(good.len() / 2, &[good[good.len() / 2] ^ 1]),
            "checksum",
        ),
        (
            "a rating edited",
            with(at, &(top + 100.0).to_le_bytes()),
            "checksum",
        ),
        ("cut short", good[..good.len() - 20].to_vec(), "checksum"),
        (
            "cut to nothing",
            good[..10].to_vec(),
            "not a rate-batch state file",
        ),
        (
            "NaN, checksum recomputed",
            rehash(with(at, &f64::NAN.to_le_bytes())),
            "rating NaN is not a finite number",
        ),
        (
            "1e300, checksum recomputed",
            rehash(with(at, &1e300f64.to_le_bytes())),
            "is not a finite number within",
        ),
        (
            "NaN in a version 2 file",
            {
                let mut b = with(at, &f64::NAN.to_le_bytes());
                b.truncate(b.len() - 8);
                b[8] = 2;
                b
            },
            "rating NaN",
        ),
    ];
    for (what, bytes, says) in cases {
        let (code, err, written) = resume(&bytes);
        assert_eq!(code, Some(1), "{what}: {err}");
        assert!(!written, "{what}: nothing written");
        assert!(err.contains("damaged.state"), "{what}: {err}");
        assert!(err.contains(says), "{what}: {err}");
    }
}

// ---------------------------------------------------------------- bounded work

/// Runs the binary and kills it after `limit` (a hang fails the test instead of CI).
fn run_bounded(args: &[&str], limit: std::time::Duration) -> std::process::Output {
    let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_rate-batch"))
        .args(args)
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let start = std::time::Instant::now();
    while child.try_wait().unwrap().is_none() {
        if start.elapsed() > limit {
            child.kill().unwrap();
            panic!("{args:?} still running after {limit:?}");
        }
        std::thread::sleep(std::time::Duration::from_millis(10));
    }
    child.wait_with_output().unwrap()
}

/// A data set published without times (the Elo-MMR authors' reddit set has `time_seconds` 0
/// in every contest): replayed in input order, and said so, since its outputs show 1970.
#[test]
fn contests_that_all_share_one_time_are_said_to() {
    let dir = TempDir::new().unwrap();
    let contests = |times: [i64; 3]| {
        format!(
            r#"[{{"name":"a","time_seconds":{},"standings":[["x",0,0],["y",1,1],["z",2,2]]}},
               {{"name":"b","time_seconds":{},"standings":[["y",0,0],["x",1,1],["z",2,2]]}},
               {{"name":"c","time_seconds":{},"standings":[["z",0,0],["y",1,1],["x",2,2]]}}]"#,
            times[0], times[1], times[2]
        )
    };
    let same = write(dir.path(), "same.json", &contests([0, 0, 0]));
    let out = dir.path().join("o");
    let o = rate_batch(&["replay", s(&same), "--out", s(&out)]);
    assert!(o.status.success(), "{}", texts(&o).1);
    assert!(
        texts(&o)
            .0
            .contains("every contest has the same time, 1970-01-01T00:00:00Z"),
        "{}",
        texts(&o).0
    );
    assert_eq!(metrics(&out.join("metrics.json"))["input"]["one_time"], 0);

    let apart = write(dir.path(), "apart.json", &contests([0, 86_400, 86_400]));
    let out = dir.path().join("o2");
    let o = rate_batch(&["replay", s(&apart), "--out", s(&out)]);
    assert!(o.status.success(), "{}", texts(&o).1);
    assert!(!texts(&o).0.contains("same time"), "{}", texts(&o).0);
    assert!(
        metrics(&out.join("metrics.json"))["input"]
            .get("one_time")
            .is_none()
    );
}

/// Inputs that used to hang or take quadratic time: contests at the extreme i64 times with
/// --report, a PGN game with a million tag pairs, a CSV with 100,000 columns, a line of 17 MiB.
/// Each ends at once with an answer (each takes well under a second here; the limit only
/// catches a hang).
#[test]
fn hostile_inputs_end_quickly_with_a_clear_answer() {
    let dir = TempDir::new().unwrap();
    let limit = std::time::Duration::from_secs(60);
    let json = write(
        dir.path(),
        "extreme.json",
        &format!(
            r#"[{{"name":"a","time_seconds":{},"standings":[["x",0,0],["y",1,1]]}},
               {{"name":"b","time_seconds":{},"standings":[["y",0,0],["x",1,1]]}}]"#,
            i64::MIN,
            i64::MAX
        ),
    );
    let out = dir.path().join("o");
    // Refused at once (exit 1) with this message.
    let refused = |input: &Path, says: &str| {
        let o = run_bounded(&["replay", s(input), "--report", "--out", s(&out)], limit);
        let err = texts(&o).1;
        assert!(o.status.code() == Some(1) && err.contains(says), "{err}");
    };
    refused(&json, "outside the years 0 to 9999");

    let mut pgn = String::with_capacity(30_000_000);
    for k in 0..1_000_000 {
        let _ = writeln!(pgn, "[Tag{k} \"v\"]");
    }
    pgn.push_str("[White \"a\"]\n[Black \"b\"]\n[Result \"1-0\"]\n[Date \"2021.01.01\"]\n");
    let pgn = write(dir.path(), "tags.pgn", &pgn);
    refused(
        &pgn,
        "tags.pgn, line 1: the game has more than 10000 tag pairs",
    );

    let columns: Vec<String> = (0..100_000).map(|k| format!("c{k}")).collect();
    let csv = write(
        dir.path(),
        "wide.csv",
        &format!(
            "time,a,b,result,{}\n2021-01-01,x,y,1,{}\n",
            columns.join(","),
            vec!["0"; 100_000].join(",")
        ),
    );
    let o = run_bounded(&["replay", s(&csv), "--out", s(&out), "--quiet"], limit);
    assert!(o.status.success(), "{}", texts(&o).1);

    let long = write(
        dir.path(),
        "long.csv",
        &format!("time,a,b,result\n2021-01-01,x,{},1\n", "y".repeat(17 << 20)),
    );
    refused(&long, "long.csv, line 2: line 2 is longer than 16 MiB");
}

/// Runs the binary under `ulimit -v` (KiB).
fn under_ulimit(kib: u64, args: &[&str]) -> std::process::Output {
    let mut line = format!(
        "ulimit -v {kib} && exec '{}'",
        env!("CARGO_BIN_EXE_rate-batch")
    );
    for a in args {
        line.push_str(&format!(" '{a}'"));
    }
    std::process::Command::new("sh")
        .args(["-c", &line])
        .output()
        .unwrap()
}

/// A history of only new players (each game two new names) under `ulimit -v` runs out of
/// memory and ends with a message and exit 3, not an abort (134), and writes nothing.
#[test]
fn a_run_that_cannot_fit_ends_with_a_clear_error_not_an_abort() {
    let dir = TempDir::new().unwrap();
    let distinct = |games: usize, name: &str| {
        let mut text = String::with_capacity(games * 40);
        text.push_str("time,a,b,result\n");
        for k in 0..games {
            let _ = writeln!(text, "2021-01-01T00:00:00Z,a{k},b{k},1");
        }
        write(dir.path(), name, &text)
    };
    let out = dir.path().join("o");
    let run = |kib: u64, input: &Path| {
        let o = under_ulimit(
            kib,
            &[
                "replay",
                s(input),
                "--out",
                s(&out),
                "--history-format",
                "none",
            ],
        );
        assert_eq!(o.status.code(), Some(3), "{}", texts(&o).1);
        texts(&o).1
    };
    let err = run(200_000, &distinct(500_000, "small.csv"));
    assert!(err.starts_with("error: out of memory"), "{err}");
    assert!(!out.join("leaderboard.csv").exists());
}

/// What the folder holds besides the outputs is carried into each new generation as it is:
/// the same inodes (hard links, never copies), a FIFO that would block a reader, a subfolder
/// with its mode, and the folder's own owner, group and mode (as root: another user's folder
/// keeps its owner). A FIFO planted at `history.csv` is refused by a resumed run, not waited on.
#[test]
fn the_folder_keeps_its_owner_mode_and_foreign_entries() {
    use std::os::unix::fs::{MetadataExt, PermissionsExt};
    let dir = TempDir::new().unwrap();
    let input = league(dir.path(), "g.csv", 60);
    let out = dir.path().join("site");
    assert!(replay(&input, &out, &[]).status.success());
    std::fs::create_dir(out.join("assets")).unwrap();
    let css = write(&out.join("assets"), "site.css", "body {}");
    std::fs::set_permissions(out.join("assets"), std::fs::Permissions::from_mode(0o750)).unwrap();
    std::os::unix::fs::symlink("site.css", out.join("assets/link.css")).unwrap();
    let fifo = out.join("pipe");
    let c = std::ffi::CString::new(fifo.to_str().unwrap()).unwrap();
    // SAFETY: makes a FIFO at a valid path.
    assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o644) }, 0);
    std::fs::set_permissions(&out, std::fs::Permissions::from_mode(0o751)).unwrap();
    // SAFETY: geteuid has no preconditions.
    let root = unsafe { libc::geteuid() } == 0;
    if root {
        std::os::unix::fs::chown(&out, Some(4242), Some(4343)).unwrap();
    }
    let ino = std::fs::metadata(&css).unwrap().ino();
    let o = replay(&input, &out, &[]);
    assert!(o.status.success(), "{}", texts(&o).1);
    assert!(
        texts(&o).1.is_empty(),
        "swapped, no warning: {}",
        texts(&o).1
    );
    let m = std::fs::metadata(&out).unwrap();
    assert_eq!(m.mode() & 0o7777, 0o751);
    if root {
        assert_eq!((m.uid(), m.gid()), (4242, 4343));
    }
    assert_eq!(
        std::fs::metadata(out.join("assets/site.css"))
            .unwrap()
            .ino(),
        ino
    );
    assert_eq!(
        std::fs::metadata(out.join("assets")).unwrap().mode() & 0o7777,
        0o750
    );
    assert_eq!(
        std::fs::read_link(out.join("assets/link.css")).unwrap(),
        Path::new("site.css")
    );
    assert!(
        std::fs::symlink_metadata(&fifo)
            .unwrap()
            .file_type()
            .is_fifo()
    );

    let state = dir.path().join("s.state");
    assert!(
        replay(&input, &out, &["--save-state", s(&state)])
            .status
            .success()
    );
    std::fs::remove_file(out.join("history.csv")).unwrap();
    let c = std::ffi::CString::new(out.join("history.csv").to_str().unwrap()).unwrap();
    // SAFETY: makes a FIFO at a valid path.
    assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o644) }, 0);
    let o = run_bounded(
        &["replay", s(&input), "--out", s(&out), "--resume", s(&state)],
        std::time::Duration::from_secs(60),
    );
    assert!(!o.status.success());
    assert!(
        texts(&o).1.contains("is not a regular file"),
        "{}",
        texts(&o).1
    );
}

use std::os::unix::fs::FileTypeExt;
