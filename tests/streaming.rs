//! The streaming engine (`replay --stream`): the same outputs as a replay of the input held
//! whole, for every system and period, games CSV and PGN, with draws, teams, weights, equal
//! times, unplayed and invalid records, `--as-of`; bad and unsorted input refused before
//! anything is rated; and a peak memory that does not grow with the number of games.

mod common;

use common::{replay, texts};
use std::path::{Path, PathBuf};

/// SplitMix64, for inputs that are the same on every run.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }
    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
}

/// A games CSV over about four months: 60 players, some two-player teams, draws, weights,
/// several games at one second, an unplayed fixture now and then.
fn games_csv(n: usize, seed: u64) -> String {
    let mut rng = Rng(seed);
    let mut out = String::from("time,a,b,result,weight\n");
    let mut t = 1_600_000_000i64;
    let name = |i: u64| format!("player {i:02}");
    for _ in 0..n {
        if rng.below(4) > 0 {
            t += rng.below(12_000) as i64;
        }
        let x = rng.below(60);
        let mut y = rng.below(60);
        while y == x {
            y = rng.below(60);
        }
        let (a, b) = if rng.below(10) == 0 {
            let (x2, y2) = ((x + 1) % 60, (y + 1) % 60);
            if x2 == y || y2 == x || x2 == y2 {
                (name(x), name(y))
            } else {
                (
                    format!("{}+{}", name(x), name(x2)),
                    format!("{}+{}", name(y), name(y2)),
                )
            }
        } else {
            (name(x), name(y))
        };
        let result = ["1", "0", "0.5", "1-0", "0-1", "NA"][rng.below(6) as usize];
        let weight = if rng.below(7) == 0 { "2" } else { "" };
        let time = chrono::DateTime::from_timestamp(t, 0).unwrap().to_rfc3339();
        out.push_str(&format!("{time},{a},{b},{result},{weight}\n"));
    }
    out
}

/// A PGN of `n` games among 40 players, some drawn, some unfinished (`*`), with move text.
fn pgn(n: usize) -> String {
    let mut rng = Rng(99);
    let mut out = String::new();
    let mut day = 0i64;
    for _ in 0..n {
        day += rng.below(2) as i64;
        let date = chrono::DateTime::from_timestamp(1_500_000_000 + day * 86_400, 0)
            .unwrap()
            .format("%Y.%m.%d");
        let w = rng.below(40);
        let mut b = rng.below(40);
        while b == w {
            b = rng.below(40);
        }
        let result = ["1-0", "0-1", "1/2-1/2", "*"][rng.below(4) as usize];
        out.push_str(&format!(
            "[Event \"club\"]\n[Date \"{date}\"]\n[White \"W{w}\"]\n[Black \"B{b}\"]\n\
             [Result \"{result}\"]\n\n1. e4 {{ [%clk 0:03:00] }} e5 2. Nf3 Nc6 {result}\n\n"
        ));
    }
    out
}

/// The outputs of a replay that must not depend on how it read: the leaderboard, the rating
/// history, and metrics.json without its wall times.
fn outputs(out: &Path) -> (String, String, serde_json::Value) {
    let read = |f: &str| std::fs::read_to_string(out.join(f)).expect("the output is there");
    let mut metrics: serde_json::Value =
        serde_json::from_str(&read("metrics.json")).expect("metrics.json");
    metrics.as_object_mut().unwrap().remove("wall_seconds");
    (read("leaderboard.csv"), read("history.csv"), metrics)
}

fn same_streamed_or_not(input: &Path, dir: &Path, args: &[&str]) {
    let (whole, streamed) = (dir.join("whole"), dir.join("streamed"));
    let mut a = vec!["--stream", "off"];
    a.extend_from_slice(args);
    let o = replay(input, &whole, &a);
    assert!(o.status.success(), "{args:?}: {}", texts(&o).1);
    // Small blocks: hundreds of them, each cut where a round ends.
    let mut a = vec!["--stream", "on", "--stream-block", "23"];
    a.extend_from_slice(args);
    let o = replay(input, &streamed, &a);
    assert!(o.status.success(), "{args:?}: {}", texts(&o).1);
    let (w, s) = (outputs(&whole), outputs(&streamed));
    assert!(w.0 == s.0, "{args:?}: leaderboards differ");
    assert!(w.1 == s.1, "{args:?}: histories differ");
    assert_eq!(w.2, s.2, "{args:?}: metrics differ");
    assert!(
        w.1.lines().count() > 1000,
        "{args:?}: a history was written"
    );
}

#[test]
fn every_system_and_period_streams_to_the_same_outputs() {
    let dir = tempfile::tempdir().unwrap();
    let input = common::write(dir.path(), "games.csv", &games_csv(1200, 3));
    // The federations' rules rate games between individual players: the games without teams.
    let singles: String = games_csv(1200, 3)
        .lines()
        .filter(|l| !l.split(',').skip(1).take(2).any(|side| side.contains('+')))
        .map(|l| format!("{l}\n"))
        .collect();
    let singles = common::write(dir.path(), "singles.csv", &singles);
    // Every registered system (the sixteen of `replay --help`).
    let systems = [
        "elo",
        "yuksel",
        "elo-mmr",
        "elo-mmx",
        "bar",
        "pairwise-glicko",
        "codeforces",
        "topcoder",
        "elo-gaussian",
        "glicko",
        "glicko2",
        "trueskill",
        "bt",
        "whr",
        "fide",
        "uscf",
    ];
    assert_eq!(systems.len(), rate_batch::systems::SystemKind::ALL.len());
    for (k, system) in systems.iter().enumerate() {
        // (Topcoder runs away in calendar periods of this history, streamed or not.)
        let period = if *system == "topcoder" {
            "game"
        } else {
            ["game", "day", "week", "month"][k % 4]
        };
        let input = if ["fide", "uscf"].contains(system) {
            &singles
        } else {
            &input
        };
        same_streamed_or_not(input, dir.path(), &["--system", system, "--period", period]);
    }
    for period in ["game", "day", "week", "month"] {
        same_streamed_or_not(
            &input,
            dir.path(),
            &["--system", "glicko2", "--period", period],
        );
    }
    // history.parquet is written a row group at a time either way: the same bytes.
    let (whole, streamed) = (dir.path().join("pq-whole"), dir.path().join("pq-streamed"));
    let pq = ["--history-format", "parquet", "--system", "glicko2"];
    common::replay_ok(&input, &whole, &[&pq[..], &["--stream", "off"]].concat());
    common::replay_ok(
        &input,
        &streamed,
        &[&pq[..], &["--stream", "on", "--stream-block", "23"]].concat(),
    );
    let bytes = |d: &Path| std::fs::read(d.join("history.parquet")).unwrap();
    assert!(bytes(&whole).len() > 10_000);
    assert!(bytes(&whole) == bytes(&streamed), "history.parquet differs");
    // The cutoff is counted in the first pass (the warm-up is a share of what it keeps).
    same_streamed_or_not(
        &input,
        dir.path(),
        &[
            "--as-of",
            "2020-11-01",
            "--period",
            "week",
            "--decay-per-day",
            "3",
        ],
    );
}

#[test]
fn pgn_and_skipped_records_stream_to_the_same_outputs() {
    let dir = tempfile::tempdir().unwrap();
    let input = common::write(dir.path(), "games.pgn", &pgn(1500));
    same_streamed_or_not(&input, dir.path(), &["--system", "trueskill"]);
    same_streamed_or_not(&input, dir.path(), &["--system", "elo", "--period", "day"]);
    // Invalid rows skipped and counted by both passes alike.
    let mut text = games_csv(1500, 5);
    text.insert_str(
        text.find('\n').unwrap() + 1,
        "2020-09-13T12:00:00Z,x,x,1,\n",
    );
    text.push_str("2025-01-01T00:00:00Z,p,q,7,\n");
    let input = common::write(dir.path(), "bad.csv", &text);
    same_streamed_or_not(&input, dir.path(), &["--skip-invalid"]);
    let out = dir.path().join("streamed");
    let metrics = outputs(&out).2;
    assert_eq!(metrics["input"]["skipped_invalid"], 2, "{metrics}");
}

/// Without a warm-up there is nothing to count: the input is read once (standard input too),
/// and time order and series are checked as it goes.
#[test]
fn without_a_warm_up_a_stream_is_read_once() {
    let dir = tempfile::tempdir().unwrap();
    let text = games_csv(1500, 21);
    let input = common::write(dir.path(), "games.csv", &text);
    same_streamed_or_not(&input, dir.path(), &["--warmup", "0", "--period", "week"]);
    let mut lines: Vec<&str> = text.lines().collect();
    lines.swap(900, 700);
    let unsorted = common::write(dir.path(), "unsorted.csv", &(lines.join("\n") + "\n"));
    let out = dir.path().join("out");
    let o = replay(&unsorted, &out, &["--stream", "on", "--warmup", "0"]);
    assert_eq!(o.status.code(), Some(1));
    let err = texts(&o).1;
    // After line 701, which now holds a later game (or, if that one is an unplayed fixture,
    // at line 901, which holds an earlier one).
    let line: u64 = err
        .split("unsorted.csv, line ")
        .nth(1)
        .and_then(|t| t.split(':').next())
        .and_then(|n| n.parse().ok())
        .unwrap_or(0);
    assert!(
        (702..=901).contains(&line) && err.contains("not in time order"),
        "{err}"
    );
    assert!(!out.exists(), "nothing is written");
    // A series interrupted by another game of its player, found where it is read.
    let series = common::write(
        dir.path(),
        "series.csv",
        "time,a,b,result,series\n2020-01-01,x,y,1,s1\n2020-01-02,x,z,0,\n2020-01-03,x,y,0,s1\n",
    );
    let o = replay(&series, &out, &["--stream", "on", "--warmup", "0"]);
    assert_eq!(o.status.code(), Some(1));
    assert!(
        texts(&o).1.contains("series.csv, line 4, field `series`"),
        "{}",
        texts(&o).1
    );
    // Standard input, read once.
    let stdin_out = dir.path().join("stdin");
    let args = [
        "replay",
        "-",
        "--format",
        "games",
        "--stream",
        "on",
        "--warmup",
        "0",
        "--period",
        "week",
        "--stream-block",
        "50",
        "--quiet",
        "--out",
    ];
    let o = common::with_stdin(
        &[&args[..], &[stdin_out.to_str().unwrap()]].concat(),
        text.as_bytes(),
    );
    assert!(o.status.success(), "{}", texts(&o).1);
    let board = |d: &str| std::fs::read_to_string(dir.path().join(d).join("leaderboard.csv"));
    assert_eq!(board("stdin").unwrap(), board("whole").unwrap());
}

#[test]
fn unsorted_or_bad_input_is_refused_before_anything_is_rated() {
    let dir = tempfile::tempdir().unwrap();
    let text = games_csv(300, 8);
    let mut lines: Vec<&str> = text.lines().collect();
    lines.swap(200, 150);
    let input = common::write(dir.path(), "unsorted.csv", &(lines.join("\n") + "\n"));
    let out = dir.path().join("out");
    let o = replay(&input, &out, &["--stream", "on"]);
    assert_eq!(o.status.code(), Some(1));
    let err = texts(&o).1;
    // The first row earlier than one before it: just after the row moved up to line 151
    // (unplayed fixtures between are not contests).
    let line: u64 = err
        .split("line ")
        .nth(1)
        .and_then(|t| t.split(':').next())
        .and_then(|n| n.parse().ok())
        .unwrap_or(0);
    assert!(
        (152..=160).contains(&line)
            && err.contains("not in time order")
            && err.contains("--stream off"),
        "{err}"
    );
    assert!(!out.exists(), "nothing is written");
    // Read whole, it is sorted as always.
    common::replay_ok(&input, &out, &["--stream", "off"]);
    // A bad record is found by the counting pass, before anything is rated.
    let bad = common::write(dir.path(), "bad.csv", &text.replacen(",1,", ",won,", 1));
    let out = dir.path().join("bad-out");
    let o = replay(&bad, &out, &["--stream", "on"]);
    assert_eq!(o.status.code(), Some(1));
    assert!(
        texts(&o).1.contains("unknown result `won`"),
        "{}",
        texts(&o).1
    );
    assert!(!out.exists());
    // Options that need the whole input say so.
    let st = dir.path().join("state");
    let args = [
        "--stream",
        "on",
        "--period",
        "series",
        "--save-state",
        st.to_str().unwrap(),
    ];
    let o = replay(&input, &out, &args);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        texts(&o).1.contains("--period series with --save-state"),
        "{}",
        texts(&o).1
    );
}

/// What the review of the streaming found: a state that would overwrite the second input, a
/// pipe named by a path, a cutoff before every contest, `--time-format` on a PGN: each as a
/// whole read has it.
#[test]
fn streaming_options_are_checked_as_a_whole_read_checks_them() {
    let dir = tempfile::tempdir().unwrap();
    let a = common::write(dir.path(), "a.csv", &games_csv(200, 1));
    let b = common::write(dir.path(), "b.csv", &games_csv(200, 2));
    let out = dir.path().join("out");
    let o = common::rate_batch(&[
        "replay",
        a.to_str().unwrap(),
        b.to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
        "--save-state",
        b.to_str().unwrap(),
    ]);
    assert_eq!(o.status.code(), Some(2), "{}", texts(&o).1);
    assert!(texts(&o).1.contains("is the input"), "{}", texts(&o).1);
    assert!(
        std::fs::read_to_string(&b).unwrap().starts_with("time,"),
        "b.csv is intact"
    );
    // A FIFO, as `<(zcat f.gz)` gives: one pass only.
    let fifo = dir.path().join("fifo");
    assert!(
        std::process::Command::new("mkfifo")
            .arg(&fifo)
            .status()
            .unwrap()
            .success()
    );
    let o = replay(&fifo, &out, &["--format", "games", "--stream", "on"]);
    assert_eq!(o.status.code(), Some(2), "{}", texts(&o).1);
    assert!(
        texts(&o).1.contains("a pipe can be read only once"),
        "{}",
        texts(&o).1
    );
    // Every contest after the cutoff: replayed with nothing to rate, streamed or not.
    for mode in ["off", "on"] {
        let o = replay(
            &a,
            &dir.path().join(mode),
            &["--as-of", "2000-01-01", "--stream", mode],
        );
        assert!(o.status.success(), "--stream {mode}: {}", texts(&o).1);
    }
    // --time-format does not apply to PGN, streamed or not.
    let pgn = common::write(dir.path(), "g.pgn", &pgn(10));
    for mode in ["off", "on"] {
        let o = replay(&pgn, &out, &["--time-format", "unix", "--stream", mode]);
        assert_eq!(o.status.code(), Some(2), "--stream {mode}: {}", texts(&o).1);
    }
}

/// Run in a child process by [`memory_is_bounded_by_players_not_games`]: replays the file
/// named by `RATE_BATCH_CHILD_INPUT` in-process and prints its own peak resident size.
#[test]
#[ignore = "run by memory_is_bounded_by_players_not_games in a child process"]
fn child_replay_reports_its_peak_memory() {
    let (Ok(input), Ok(out), Ok(mode)) = (
        std::env::var("RATE_BATCH_CHILD_INPUT"),
        std::env::var("RATE_BATCH_CHILD_OUT"),
        std::env::var("RATE_BATCH_CHILD_STREAM"),
    ) else {
        return;
    };
    use clap::Parser;
    let cli = rate_batch::cli::Cli::parse_from([
        "rate-batch",
        "replay",
        &input,
        "--out",
        &out,
        "--quiet",
        "--history-format",
        "none",
        "--stream",
        &mode,
        "--stream-block",
        "4096",
    ]);
    rate_batch::cli::run(cli, &mut std::io::sink()).unwrap();
    let status = std::fs::read_to_string("/proc/self/status").unwrap();
    let hwm = status
        .lines()
        .find_map(|l| l.strip_prefix("VmHWM:"))
        .expect("VmHWM in /proc/self/status");
    println!("PEAK_KIB {}", hwm.trim().trim_end_matches(" kB"));
}

fn peak_kib(input: &Path, out: &Path, mode: &str) -> i64 {
    let o = std::process::Command::new(std::env::current_exe().unwrap())
        .args([
            "child_replay_reports_its_peak_memory",
            "--exact",
            "--ignored",
            "--nocapture",
            "--test-threads",
            "1",
        ])
        .env("RATE_BATCH_CHILD_INPUT", input)
        .env("RATE_BATCH_CHILD_OUT", out)
        .env("RATE_BATCH_CHILD_STREAM", mode)
        .output()
        .unwrap();
    let text = texts(&o).0;
    text.lines()
        .find_map(|l| l.split("PEAK_KIB ").nth(1))
        .unwrap_or_else(|| panic!("no peak reported: {text} {}", texts(&o).1))
        .parse()
        .unwrap()
}

/// The same 60 players in 100,000 and in 400,000 games: streamed, the peak resident size grows
/// by less than 4 MiB; read whole it grows by the contests held (about 80 bytes a game), which
/// shows that the measure sees growth where there is some.
#[test]
fn memory_is_bounded_by_players_not_games() {
    if !Path::new("/proc/self/status").exists() {
        eprintln!("skipped: no /proc/self/status to read the peak memory from");
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let small = common::write(dir.path(), "small.csv", &games_csv(100_000, 11));
    let large = common::write(dir.path(), "large.csv", &games_csv(400_000, 11));
    let out = dir.path().join("out");
    let streamed = peak_kib(&large, &out, "on") - peak_kib(&small, &out, "on");
    let whole = peak_kib(&large, &out, "off") - peak_kib(&small, &out, "off");
    eprintln!("300,000 more games: streamed {streamed} KiB more at the peak, read whole {whole}");
    assert!(
        streamed < 4 * 1024,
        "streamed, 300,000 more games took {streamed} KiB more"
    );
    assert!(
        whole > 12 * 1024,
        "read whole, 300,000 more games took only {whole} KiB more: the measure is blind"
    );
}

/// Runs `compare INPUT --out OUT --quiet ARGS...`.
fn compare(input: &Path, out: &Path, args: &[&str]) -> std::process::Output {
    common::command("compare", input, out, args)
}

/// `compare.csv` without its three timing columns (wall seconds, rounds per second, peak).
fn compare_table(out: &Path) -> Vec<Vec<String>> {
    let mut reader = csv::ReaderBuilder::new()
        .has_headers(false)
        .from_path(out.join("compare.csv"))
        .expect("compare.csv");
    reader
        .records()
        .map(|r| {
            let mut cells: Vec<String> = r.unwrap().iter().map(str::to_string).collect();
            cells.drain(9..12);
            cells
        })
        .collect()
}

/// `compare` streamed reads the input once and hands every block to all its systems: each
/// system's leaderboard, history and metrics, and the table, are those of the input read
/// whole.
#[test]
fn compare_streams_one_read_to_every_system() {
    let dir = tempfile::tempdir().unwrap();
    let input = common::write(dir.path(), "games.csv", &games_csv(900, 5));
    let (whole, streamed) = (dir.path().join("whole"), dir.path().join("streamed"));
    let args = [
        "--systems",
        "all",
        "--period",
        "week",
        "--history-format",
        "csv",
    ];
    // The federations' rules refuse the teams: before any replay when the input is read
    // whole (their rows say why, the run succeeds), at the first team's round when it is
    // streamed (nothing tells before: exit 4, their rows failed); the others complete.
    let o = compare(&input, &whole, &[&args[..], &["--stream", "off"]].concat());
    assert_eq!(o.status.code(), Some(0), "{}", texts(&o).1);
    let on = ["--stream", "on", "--stream-block", "17"];
    let o = compare(&input, &streamed, &[&args[..], &on[..]].concat());
    assert_eq!(o.status.code(), Some(4), "{}", texts(&o).1);
    let (mut table, mut table_streamed) = (compare_table(&whole), compare_table(&streamed));
    assert_eq!(table.len(), 17, "a row for each of the sixteen systems");
    let with = |t: &[Vec<String>], what: &str| -> Vec<String> {
        t[1..]
            .iter()
            .filter(|r| r[9].starts_with(what))
            .map(|r| r[0].clone())
            .collect()
    };
    assert_eq!(with(&table, "refused: "), ["fide", "uscf"]);
    assert_eq!(with(&table_streamed, "failed: "), ["fide", "uscf"]);
    for t in [&mut table, &mut table_streamed] {
        t.iter_mut().for_each(|r| r[9].clear());
    }
    assert_eq!(table, table_streamed);
    let failed = with(&compare_table(&whole), "refused: ");
    for row in table[1..].iter().filter(|r| !failed.contains(&r[0])) {
        let (w, s) = (
            outputs(&whole.join(&row[0])),
            outputs(&streamed.join(&row[0])),
        );
        assert!(w.0 == s.0, "{}: leaderboards differ", row[0]);
        assert!(w.1 == s.1, "{}: histories differ", row[0]);
        assert_eq!(w.2, s.2, "{}: metrics differ", row[0]);
    }
    let json = |d: &Path| -> serde_json::Value {
        serde_json::from_str(&std::fs::read_to_string(d.join("compare.json")).unwrap()).unwrap()
    };
    let (w, s) = (json(&whole), json(&streamed));
    for key in ["contests", "players", "placings"] {
        assert_eq!(w[key], s[key], "{key}");
    }
    let played = games_csv(900, 5)
        .lines()
        .skip(1)
        .filter(|l| !l.contains(",NA,"))
        .count();
    assert_eq!(
        w["contests"], played as u64,
        "the unplayed fixtures are not contests"
    );
}

/// A streamed `compare` read once (`--warmup 0`) meets a bad record half-way: the whole run
/// fails naming it, and nothing is written. A system that runs away gets its failed row while
/// the others read on to the end.
#[test]
fn a_streamed_compare_fails_whole_on_bad_input_and_row_by_row_on_a_runaway() {
    let dir = tempfile::tempdir().unwrap();
    let text = games_csv(900, 6);
    let mut lines: Vec<String> = text.lines().map(str::to_string).collect();
    let mut fields: Vec<&str> = lines[700].split(',').collect();
    fields[3] = "won";
    lines[700] = fields.join(",");
    let bad = common::write(dir.path(), "bad.csv", &(lines.join("\n") + "\n"));
    let out = dir.path().join("bad-out");
    let once = ["--stream", "on", "--warmup", "0", "--stream-block", "16"];
    let o = compare(
        &bad,
        &out,
        &[&once[..], &["--systems", "elo,glicko2"]].concat(),
    );
    let err = texts(&o).1;
    assert_eq!(o.status.code(), Some(1), "{err}");
    assert!(
        err.contains("line 701") && err.contains("unknown result `won`"),
        "{err}"
    );
    assert!(
        !out.exists() || common::listing(&out).is_empty(),
        "nothing is written"
    );
    // Elo with K 10^12 runs away in the first round; Glicko-2 is not held up by it.
    let input = common::write(dir.path(), "games.csv", &text);
    let out = dir.path().join("out");
    let args = ["--systems", "elo,glicko2", "--param", "elo:k=1e12"];
    let o = compare(&input, &out, &[&once[..], &args[..]].concat());
    assert_eq!(o.status.code(), Some(4), "{}", texts(&o).1);
    let table = compare_table(&out);
    assert!(table[1][9].starts_with("failed: elo diverged"), "{table:?}");
    assert_eq!(table[2][0], "glicko2");
    assert!(table[2][1].parse::<f64>().unwrap() > 50.0, "{table:?}");
    assert!(!out.join("elo").exists());
    let lb = std::fs::read_to_string(out.join("glicko2/leaderboard.csv")).unwrap();
    assert!(lb.lines().count() > 50, "{lb}");
}

/// `--save-state` and `--resume` stream: a history saved in part and resumed on the whole
/// gives the same state file, byte for byte, and the same outputs (the history continued) as
/// the same two runs read whole, by game and by week (whose last round is left open for the
/// next run).
#[test]
fn save_state_and_resume_stream_to_the_same_state_and_outputs() {
    let dir = tempfile::tempdir().unwrap();
    let full_text = games_csv(1500, 9);
    let cut = full_text.lines().count() * 3 / 5;
    let part_text: String = full_text
        .lines()
        .take(cut)
        .map(|l| format!("{l}\n"))
        .collect();
    let full = common::write(dir.path(), "full.csv", &full_text);
    let part = common::write(dir.path(), "part.csv", &part_text);
    for period in ["game", "week"] {
        let run = |mode: &str| {
            let out = dir.path().join(format!("out-{period}-{mode}"));
            let state = |k: u8| dir.path().join(format!("state{k}-{period}-{mode}"));
            let s = |p: &Path| p.to_str().unwrap().to_string();
            let common_args = ["--system", "glicko2", "--period", period, "--stream", mode];
            let (s1, s2) = (s(&state(1)), s(&state(2)));
            let first = [
                &common_args[..],
                &["--stream-block", "41", "--save-state", &s1],
            ];
            common::replay_ok(&part, &out, &first.concat());
            let second = [
                &common_args[..],
                &["--stream-block", "37", "--resume", &s1, "--save-state", &s2],
            ];
            let o = common::rate_batch(
                &[
                    &[
                        "replay",
                        full.to_str().unwrap(),
                        "--out",
                        out.to_str().unwrap(),
                    ][..],
                    &second.concat(),
                ]
                .concat(),
            );
            assert!(o.status.success(), "{period} {mode}: {}", texts(&o).1);
            let skipped = texts(&o)
                .0
                .lines()
                .find(|l| l.contains("applied before were skipped"))
                .and_then(|l| l.rsplit(": ").next())
                .map(str::to_string);
            let read = |p: PathBuf| std::fs::read(p).expect("the state is written");
            (outputs(&out), read(state(1)), read(state(2)), skipped)
        };
        let (whole, streamed) = (run("off"), run("on"));
        assert!(whole.1 == streamed.1, "{period}: the first states differ");
        assert!(whole.2 == streamed.2, "{period}: the second states differ");
        let (w, s) = (&whole.0, &streamed.0);
        assert!(w.0 == s.0, "{period}: leaderboards differ");
        assert!(w.1 == s.1, "{period}: histories differ");
        assert_eq!(w.2, s.2, "{period}: metrics differ");
        assert!(w.1.lines().count() > 2000, "the history was continued");
        assert_eq!(whole.3, streamed.3);
        assert!(whole.3.is_some(), "the skipped contests are reported");
    }
}

/// A streamed `--resume` meets a contest older than the state's last that was never applied:
/// the run fails naming it (as a whole read does, only later in the read), and neither the
/// outputs nor the state are touched.
#[test]
fn a_streamed_resume_refuses_a_rewritten_past() {
    let dir = tempfile::tempdir().unwrap();
    let text = games_csv(600, 10);
    let lines: Vec<&str> = text.lines().collect();
    let part = common::write(dir.path(), "part.csv", &(lines[..400].join("\n") + "\n"));
    let out = dir.path().join("out");
    let state = dir.path().join("state");
    let st = state.to_str().unwrap();
    common::replay_ok(&part, &out, &["--stream", "on", "--save-state", st]);
    let before = (common::listing(&out), std::fs::read(&state).unwrap());
    // A game of the first part's time between two new players: never applied, yet older.
    let mut rewritten: Vec<String> = lines.iter().map(|&l| l.to_owned()).collect();
    let mut fields: Vec<String> = rewritten[200].split(',').map(str::to_string).collect();
    (fields[1], fields[2], fields[3]) = ("new one".into(), "new two".into(), "1".into());
    rewritten.insert(201, fields.join(","));
    let full = common::write(dir.path(), "full.csv", &(rewritten.join("\n") + "\n"));
    let args = ["--stream", "on", "--resume", st, "--save-state", st];
    let o = replay(&full, &out, &args);
    let err = texts(&o).1;
    assert_eq!(o.status.code(), Some(1), "{err}");
    // Named at its line (the game inserted after line 201), not by an index after sorting.
    assert!(
        err.contains("full.csv, line 202") && err.contains("never applied"),
        "{err}"
    );
    assert_eq!(common::listing(&out), before.0);
    assert!(
        std::fs::read(&state).unwrap() == before.1,
        "the state is as it was"
    );
    // Read whole, the same refusal; and a dry run, streamed or not, checks it too.
    for args in [
        &["--stream", "off", "--resume", st][..],
        &["--stream", "on", "--resume", st, "--dry-run"],
        &["--stream", "off", "--resume", st, "--dry-run"],
    ] {
        let o = replay(&full, &out, args);
        assert_eq!(o.status.code(), Some(1), "{args:?}");
        assert!(
            texts(&o).1.contains("never applied"),
            "{args:?}: {}",
            texts(&o).1
        );
        if !args.contains(&"--dry-run") {
            assert!(
                texts(&o).1.contains("full.csv, line 202"),
                "{}",
                texts(&o).1
            );
        }
    }
    // The input as it was, continued: the streamed dry run passes.
    let rest = common::write(dir.path(), "rest.csv", &(lines.join("\n") + "\n"));
    common::replay_ok(
        &rest,
        &out,
        &["--stream", "on", "--resume", st, "--dry-run"],
    );
}

/// A streamed `--dry-run` holds the players, not the contests, and says what a whole read
/// says: records, contests, players, placings and the skipped records.
#[test]
fn a_streamed_dry_run_reports_as_a_whole_read() {
    let dir = tempfile::tempdir().unwrap();
    let input = common::write(dir.path(), "games.csv", &games_csv(700, 12));
    let out = dir.path().join("out");
    let dry = |mode: &str| {
        let o = common::rate_batch(&[
            "replay",
            input.to_str().unwrap(),
            "--out",
            out.to_str().unwrap(),
            "--dry-run",
            "--stream",
            mode,
            "--stream-block",
            "29",
        ]);
        assert!(o.status.success(), "{mode}: {}", texts(&o).1);
        texts(&o).0
    };
    let whole = dry("off");
    assert!(
        whole.contains("700 rows read") && whole.contains("skipped"),
        "{whole}"
    );
    assert_eq!(whole, dry("on"));
    assert!(!out.exists(), "a dry run writes nothing");
}

/// A games table in Parquet is read a row group at a time, and streams: the file written with
/// row groups of 37 rows (the games of `games_csv`, the weights as numbers) gives the outputs
/// of the same games read from CSV, read whole or streamed; an error names its row counted
/// across the row groups; a standings table streams as well.
#[test]
fn parquet_is_read_by_row_groups_and_streams() {
    use polars::prelude::*;
    let dir = tempfile::tempdir().unwrap();
    let text = games_csv(800, 13);
    let csv = common::write(dir.path(), "games.csv", &text);
    let lines: Vec<Vec<&str>> = text
        .lines()
        .skip(1)
        .map(|l| l.split(',').collect())
        .collect();
    let column = |k: usize| -> Vec<&str> { lines.iter().map(|f| f[k]).collect() };
    let weights: Vec<Option<f64>> = lines.iter().map(|f| f[4].parse().ok()).collect();
    let write = |name: &str, results: Vec<&str>| {
        let mut df = df!(
            "time" => column(0),
            "a" => column(1),
            "b" => column(2),
            "result" => results,
            "weight" => weights.clone(),
        )
        .unwrap();
        let path = dir.path().join(name);
        ParquetWriter::new(std::fs::File::create(&path).unwrap())
            .with_row_group_size(Some(37))
            .finish(&mut df)
            .unwrap();
        path
    };
    let pq = write("games.parquet", column(3));
    // The CSV's weights are text ("2" or empty); the same numbers in the outputs.
    let args = ["--system", "glicko2", "--period", "week"];
    let from_csv = dir.path().join("from-csv");
    common::replay_ok(&csv, &from_csv, &[&args[..], &["--stream", "off"]].concat());
    same_streamed_or_not(&pq, dir.path(), &args);
    let o = outputs(&dir.path().join("streamed"));
    let c = outputs(&from_csv);
    assert!(
        o.0 == c.0,
        "the leaderboards of the CSV and the Parquet differ"
    );
    assert!(
        o.1 == c.1,
        "the histories of the CSV and the Parquet differ"
    );
    // A bad result in the 10th row group: its row, counted from the first.
    let mut results = column(3);
    results[400] = "won";
    let bad = write("bad.parquet", results);
    for mode in ["off", "on"] {
        let o = replay(&bad, &dir.path().join("bad"), &["--stream", mode]);
        let err = texts(&o).1;
        assert_eq!(o.status.code(), Some(1), "{err}");
        assert!(
            err.contains("bad.parquet, row 401") && err.contains("unknown result `won`"),
            "{mode}: {err}"
        );
    }
    // A standings table streams too (its contests' rows together).
    let mut st = df!(
        "contest" => ["c1", "c1", "c2", "c2"],
        "time" => ["2021-01-01", "2021-01-01", "2021-01-02", "2021-01-02"],
        "player" => ["ann", "bob", "ann", "bob"],
        "rank" => [1i64, 2, 2, 1],
    )
    .unwrap();
    let standings = dir.path().join("standings.parquet");
    ParquetWriter::new(std::fs::File::create(&standings).unwrap())
        .finish(&mut st)
        .unwrap();
    let (st_whole, st_streamed) = (dir.path().join("st-whole"), dir.path().join("st-streamed"));
    common::replay_ok(&standings, &st_whole, &["--stream", "off"]);
    common::replay_ok(&standings, &st_streamed, &["--stream", "on"]);
    assert_eq!(outputs(&st_whole), outputs(&st_streamed));
}

/// Standings of `n` contests among 30 players, 2 to 7 entries each (some two-player teams,
/// ties, weights), several contests at one time; contest 40 has a single entry (invalid) and
/// the 99th row a rank that is not a number. Each contest's rows are together.
fn standings_csv(n: usize, seed: u64) -> String {
    let mut rng = Rng(seed);
    let mut out = String::from("contest,time,player,rank,team,weight\n");
    let mut t = 1_600_000_000i64;
    let mut rows = 0;
    for c in 0..n {
        if rng.below(3) > 0 {
            t += rng.below(200_000) as i64;
        }
        let entries = if c == 40 { 1 } else { 2 + rng.below(6) };
        let weight = if rng.below(5) == 0 { "2" } else { "" };
        let mut used: Vec<u64> = Vec::new();
        let mut rank = 1;
        for e in 0..entries {
            if e > 0 && rng.below(4) > 0 {
                rank = e + 1;
            }
            let members = if rng.below(4) == 0 { 2 } else { 1 };
            let team = if members == 2 {
                format!("t{e}")
            } else {
                String::new()
            };
            for _ in 0..members {
                let mut p = rng.below(30);
                while used.contains(&p) {
                    p = rng.below(30);
                }
                used.push(p);
                rows += 1;
                let r = if rows == 99 {
                    "x".to_string()
                } else {
                    rank.to_string()
                };
                out.push_str(&format!("c{c},{t},p{p:02},{r},{team},{weight}\n"));
            }
        }
    }
    out
}

/// A standings CSV streams when each contest's rows are together: the outputs, and with
/// `--skip-invalid` the count of what was skipped (a bad row, and a contest of one entry,
/// reported after every row as a whole read reports it), are those of the whole read. Its
/// rows scattered, `--stream on` refuses it naming the row; read whole, it is read as always.
#[test]
fn standings_stream_when_each_contest_is_together() {
    let dir = tempfile::tempdir().unwrap();
    let text = standings_csv(300, 14);
    let input = common::write(dir.path(), "standings.csv", &text);
    for period in ["game", "week"] {
        same_streamed_or_not(
            &input,
            dir.path(),
            &["--system", "elo-mmr", "--period", period, "--skip-invalid"],
        );
    }
    let skipped = |out: &Path| {
        let m: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(out.join("metrics.json")).unwrap())
                .unwrap();
        m["input"]["skipped_invalid"].clone()
    };
    let streamed = skipped(&dir.path().join("streamed"));
    assert_eq!(streamed, skipped(&dir.path().join("whole")));
    assert_eq!(streamed, 2, "the bad row and the contest of one entry");
    // Without --skip-invalid, the first error is the whole read's: the bad row (line 100).
    let o = replay(&input, &dir.path().join("x"), &["--stream", "on"]);
    assert_eq!(o.status.code(), Some(1));
    assert!(texts(&o).1.contains("line 100"), "{}", texts(&o).1);
    // A contest's rows scattered: its first row moved after the next contest's rows began.
    let mut lines: Vec<&str> = text.lines().collect();
    let moved = lines.remove(1);
    lines.insert(30, moved);
    let scattered = common::write(dir.path(), "scattered.csv", &(lines.join("\n") + "\n"));
    let args = ["--stream", "on", "--skip-invalid"];
    let o = replay(&scattered, &dir.path().join("y"), &args);
    let err = texts(&o).1;
    assert_eq!(o.status.code(), Some(1), "{err}");
    assert!(
        err.contains("line 31") && err.contains("keeps each contest's rows together"),
        "{err}"
    );
    let whole = ["--stream", "off", "--skip-invalid"];
    common::replay_ok(&scattered, &dir.path().join("y"), &whole);
}

/// A contest JSON folder streams in the whole read's order (by time, then number, whatever
/// order the numbers give) a few files at a time: with a file that does not parse and a
/// contest of a single placing skipped (`--skip-invalid`), the outputs and what was skipped
/// are the whole read's.
#[test]
fn a_contest_json_folder_streams_in_time_order() {
    let dir = tempfile::tempdir().unwrap();
    let folder = dir.path().join("contests");
    std::fs::create_dir(&folder).unwrap();
    let mut rng = Rng(15);
    for n in 0..250u64 {
        // Numbers and times in different orders: each block of ten runs backwards in time.
        let t = 1_600_000_000 + (n / 10 * 10 + (9 - n % 10)) * 3_600;
        let text = if n == 33 {
            "{\"name\": \"broken\", \"time_seconds\": ".to_string()
        } else {
            let entries = if n == 70 { 1 } else { 2 + rng.below(13) };
            let mut players: Vec<String> = Vec::new();
            while (players.len() as u64) < entries {
                let p = format!("p{:02}", rng.below(40));
                if !players.contains(&p) {
                    players.push(p);
                }
            }
            let standings: Vec<String> = players
                .iter()
                .enumerate()
                .map(|(i, p)| format!("[\"{p}\", {i}, {i}]"))
                .collect();
            format!(
                "{{\"name\": \"Round {n}\", \"time_seconds\": {t}, \"standings\": [{}]}}",
                standings.join(", ")
            )
        };
        std::fs::write(folder.join(format!("{n}.json")), text).unwrap();
    }
    same_streamed_or_not(
        &folder,
        dir.path(),
        &[
            "--system",
            "elo-mmr",
            "--skip-invalid",
            "--history-format",
            "csv",
        ],
    );
    let skipped = |out: &Path| -> serde_json::Value {
        let m: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(out.join("metrics.json")).unwrap())
                .unwrap();
        m["input"].clone()
    };
    let (w, s) = (
        skipped(&dir.path().join("whole")),
        skipped(&dir.path().join("streamed")),
    );
    assert_eq!(
        w["skipped_invalid"], 2,
        "the broken file and the contest of one placing"
    );
    assert_eq!(w["skipped_invalid"], s["skipped_invalid"]);
    assert_eq!(w["skipped_examples"], s["skipped_examples"]);
}

/// `tune` streams: the sets scored on one read, the best set and the defaults held out on a
/// second; `tune.csv` and what is printed are those of the input read whole.
#[test]
fn tune_streams_to_the_same_trials() {
    let dir = tempfile::tempdir().unwrap();
    let input = common::write(dir.path(), "games.csv", &games_csv(1500, 16));
    let run = |mode: &str| {
        let out = dir.path().join(format!("tune-{mode}"));
        let o = common::rate_batch(&[
            "tune",
            input.to_str().unwrap(),
            "--system",
            "glicko2",
            "--grid",
            "tau=0.3,0.6,1.2",
            "--period",
            "week",
            "--fraction",
            "0.3",
            "--out",
            out.to_str().unwrap(),
            "--stream",
            mode,
            "--stream-block",
            "19",
        ]);
        assert!(o.status.success(), "{mode}: {}", texts(&o).1);
        let table = std::fs::read_to_string(out.join("tune.csv")).unwrap();
        (
            table,
            texts(&o).0.replace(&out.display().to_string(), "OUT"),
        )
    };
    let (whole, streamed) = (run("off"), run("on"));
    assert_eq!(whole.1, streamed.1, "what is printed");
    assert_eq!(whole.0, streamed.0, "tune.csv");
    assert_eq!(whole.0.lines().count(), 1 + 3, "{}", whole.0);
    assert!(
        whole.1.contains("held out") || whole.1.contains("defaults"),
        "{}",
        whole.1
    );
}

/// Best-of-3 series between pairs of 24 players, two series at a time (their games
/// interleaved, their players apart), some games without a series; `bad` makes a series'
/// third game come after one of its players played elsewhere.
fn series_csv(n: usize, seed: u64, bad: bool) -> String {
    let mut rng = Rng(seed);
    let mut out = String::from("time,a,b,result,series\n");
    let mut t = 1_600_000_000i64;
    for k in 0..n {
        let mut picked: Vec<u64> = Vec::new();
        while picked.len() < 4 {
            let p = rng.below(24);
            if !picked.contains(&p) {
                picked.push(p);
            }
        }
        let name = |i: u64| format!("p{i:02}");
        let (s1, s2) = (format!("s{k}a"), format!("s{k}b"));
        for g in 0..3 {
            for (x, y, s) in [(picked[0], picked[1], &s1), (picked[2], picked[3], &s2)] {
                t += 600 + rng.below(3_000) as i64;
                let result = ["1", "0", "0.5"][rng.below(3) as usize];
                out.push_str(&format!("{t},{},{},{result},{s}\n", name(x), name(y)));
            }
            if g == 1 && bad && k == n / 2 {
                // A game of the first series' player outside it, before its third game.
                t += 60;
                out.push_str(&format!("{t},{},{},1,\n", name(picked[0]), name(picked[2])));
            }
        }
        if rng.below(3) == 0 {
            t += 600;
            out.push_str(&format!("{t},{},{},0,\n", name(picked[1]), name(picked[3])));
        }
    }
    out
}

/// Inputs with series stream, `--period series` too (a block ends where no series is open
/// and none is split): the series check of a whole read runs as the contests come, the blocks carry their series' names (the state's
/// digests name them), and outputs and states are the whole read's. A series broken by an
/// interleaved game stops a streamed run where it is found, with the whole read's message.
#[test]
fn inputs_with_series_stream_with_their_check() {
    let dir = tempfile::tempdir().unwrap();
    let input = common::write(dir.path(), "series.csv", &series_csv(120, 17, false));
    for period in ["game", "day", "series"] {
        same_streamed_or_not(
            &input,
            dir.path(),
            &["--system", "trueskill", "--period", period],
        );
    }
    // By series, with blocks of 3 contests: each cut waits until no series is open, or spans it.
    let (whole, streamed) = (dir.path().join("s-whole"), dir.path().join("s-streamed"));
    let by_series = ["--system", "elo-mmr", "--period", "series"];
    common::replay_ok(
        &input,
        &whole,
        &[&by_series[..], &["--stream", "off"]].concat(),
    );
    let small = ["--stream", "on", "--stream-block", "3"];
    common::replay_ok(&input, &streamed, &[&by_series[..], &small[..]].concat());
    assert_eq!(outputs(&whole), outputs(&streamed));
    // A state saved and resumed, streamed and not: the same bytes.
    let text = series_csv(120, 17, false);
    let part_text: String = text.lines().take(400).map(|l| format!("{l}\n")).collect();
    let part = common::write(dir.path(), "part.csv", &part_text);
    let mut states = Vec::new();
    for mode in ["off", "on"] {
        let st = dir.path().join(format!("state-{mode}"));
        let s = st.to_str().unwrap();
        let out = dir.path().join(format!("st-out-{mode}"));
        let args = ["--stream", mode, "--stream-block", "5", "--save-state", s];
        common::replay_ok(&part, &out, &args);
        let args = [
            "--stream",
            mode,
            "--stream-block",
            "7",
            "--resume",
            s,
            "--save-state",
            s,
        ];
        common::replay_ok(&input, &out, &args);
        states.push(std::fs::read(&st).unwrap());
    }
    assert!(states[0] == states[1], "the states differ");
    // Broken: the streamed runs (two passes, one pass) stop with the whole read's message.
    let bad = common::write(dir.path(), "bad.csv", &series_csv(120, 17, true));
    let whole = replay(&bad, &dir.path().join("b0"), &["--stream", "off"]);
    assert_eq!(whole.status.code(), Some(1));
    let message = texts(&whole).1;
    let core = message
        .split("series `")
        .nth(1)
        .map(|m| format!("series `{m}"))
        .expect("the series named");
    assert!(core.contains("played another contest"), "{message}");
    for args in [
        &["--stream", "on"][..],
        &["--stream", "on", "--warmup", "0"],
    ] {
        let out = dir.path().join("b1");
        let o = replay(&bad, &out, args);
        let err = texts(&o).1;
        assert_eq!(o.status.code(), Some(1), "{err}");
        assert!(
            err.contains("line ") && err.contains(core.trim()),
            "{args:?}: {err}"
        );
        assert!(!out.exists(), "nothing is written");
    }
}

/// `--initial-ratings` streams: the players are seeded as the blocks bring their names, and
/// the outputs, with metrics.json's count of players seeded and not in the history, are the
/// whole read's (replay and compare). A file with a name padded by whitespace is read whole
/// (a whole read matches it to the trimmed name only if no player has it exactly).
#[test]
fn initial_ratings_stream() {
    let dir = tempfile::tempdir().unwrap();
    let input = common::write(dir.path(), "games.csv", &games_csv(1200, 18));
    let seeds = common::write(
        dir.path(),
        "seeds.csv",
        "player,rating,uncertainty\nplayer 07,1900,80\nplayer 42,1300,\nplayer 59,2100,50\nnobody,1500,\n",
    );
    let s = seeds.to_str().unwrap();
    for system in ["elo", "glicko2"] {
        same_streamed_or_not(
            &input,
            dir.path(),
            &["--system", system, "--initial-ratings", s],
        );
        let m: serde_json::Value = serde_json::from_str(
            &std::fs::read_to_string(dir.path().join("streamed/metrics.json")).unwrap(),
        )
        .unwrap();
        assert_eq!(
            m["initial_ratings"]["players"], 3,
            "{}",
            m["initial_ratings"]
        );
        assert_eq!(m["initial_ratings"]["not_in_history"], 1);
    }
    let (whole, streamed) = (dir.path().join("c-whole"), dir.path().join("c-streamed"));
    let args = ["--systems", "elo,trueskill", "--initial-ratings", s];
    let o = compare(&input, &whole, &[&args[..], &["--stream", "off"]].concat());
    assert!(o.status.success(), "{}", texts(&o).1);
    let on = ["--stream", "on", "--stream-block", "29"];
    let o = compare(&input, &streamed, &[&args[..], &on[..]].concat());
    assert!(o.status.success(), "{}", texts(&o).1);
    assert_eq!(compare_table(&whole), compare_table(&streamed));
    for system in ["elo", "trueskill"] {
        assert_eq!(
            outputs_without_history(&whole.join(system)),
            outputs_without_history(&streamed.join(system))
        );
    }
    let padded = common::write(dir.path(), "padded.csv", "player,rating\nplayer 07 ,1900\n");
    let args = [
        "--stream",
        "on",
        "--initial-ratings",
        padded.to_str().unwrap(),
    ];
    let o = replay(&input, &dir.path().join("p"), &args);
    assert_eq!(o.status.code(), Some(2), "{}", texts(&o).1);
    assert!(
        texts(&o).1.contains("padded by whitespace"),
        "{}",
        texts(&o).1
    );
}

/// The leaderboard and metrics.json (without wall times) of an output folder.
fn outputs_without_history(out: &Path) -> (String, serde_json::Value) {
    let read = |f: &str| std::fs::read_to_string(out.join(f)).expect("the output is there");
    let mut metrics: serde_json::Value =
        serde_json::from_str(&read("metrics.json")).expect("metrics.json");
    metrics.as_object_mut().unwrap().remove("wall_seconds");
    (read("leaderboard.csv"), metrics)
}

/// `--skip-all-tied` leaves the drawn games out whether the input is read whole or streamed
/// (the counting pass counts them apart, so the warm-up is the same share of the contests
/// rated); a state records the option: resumed without it, it is refused; resumed with it,
/// the drawn games already met are skipped, not taken for a rewritten past.
#[test]
fn skipping_all_tied_contests_streams_and_resumes_as_a_whole_read() {
    let dir = tempfile::tempdir().unwrap();
    let text = games_csv(1500, 21);
    let input = common::write(dir.path(), "games.csv", &text);
    same_streamed_or_not(
        &input,
        &dir.path().join("skip"),
        &["--system", "elo-mmr", "--skip-all-tied"],
    );
    let warmup = |args: &[&str]| {
        let out = dir.path().join("w");
        common::replay_ok(&input, &out, args);
        outputs(&out).2["warmup_contests"].as_u64().unwrap()
    };
    let (with, without) = (warmup(&["--skip-all-tied"]), warmup(&[]));
    assert!(
        with < without,
        "{with} vs {without}: the drawn games are not counted"
    );

    let cut = text.lines().count() * 3 / 5;
    let part_text: String = text.lines().take(cut).map(|l| format!("{l}\n")).collect();
    let part = common::write(dir.path(), "part.csv", &part_text);
    let state = dir.path().join("state");
    let s = state.to_str().unwrap();
    let out = dir.path().join("resumed");
    common::replay_ok(&part, &out, &["--skip-all-tied", "--save-state", s]);
    let o = replay(&input, &out, &["--resume", s]);
    assert!(!o.status.success());
    assert!(texts(&o).1.contains("--skip-all-tied"), "{}", texts(&o).1);
    common::replay_ok(&input, &out, &["--skip-all-tied", "--resume", s]);
    let scratch = dir.path().join("scratch");
    common::replay_ok(&input, &scratch, &["--skip-all-tied"]);
    assert!(
        outputs(&out).0 == outputs(&scratch).0,
        "the resumed leaderboard is the one of a replay from scratch"
    );
}
