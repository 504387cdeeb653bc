//! `--save-state` / `--resume`: a history replayed in chunks gives exactly the outputs of one
//! full replay, for every system; states of another system or options are refused; a contest
//! older than the watermark that was never applied is an error.

mod common;

use common::{rate_batch, replay_ok, texts, write};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use std::path::{Path, PathBuf};
use tempfile::TempDir;

/// The first `n` games of the demo league (several games a day), as cumulative chunk files
/// cut after the given numbers of games.
fn chunks(dir: &Path, n: usize, cuts: &[usize]) -> Vec<PathBuf> {
    let text = std::fs::read_to_string(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("datasets/chess-league.csv"),
    )
    .unwrap();
    let lines: Vec<&str> = text.lines().collect();
    let mut files = Vec::new();
    for (k, &cut) in cuts.iter().chain(std::iter::once(&n)).enumerate() {
        let body = lines[..=cut].join("\n") + "\n";
        files.push(write(dir, &format!("part{k}.csv"), &body));
    }
    files
}

/// A folder's metrics.json.
fn metrics_doc(dir: &Path) -> serde_json::Value {
    serde_json::from_str(&std::fs::read_to_string(dir.join("metrics.json")).unwrap()).unwrap()
}

/// Its accuracy figures.
fn metrics(dir: &Path) -> serde_json::Value {
    metrics_doc(dir)["metrics"].clone()
}

/// Asserts that two output folders hold the same leaderboard and history, byte for byte.
fn same_outputs(a: &Path, b: &Path) {
    for f in ["leaderboard.csv", "history.csv"] {
        assert!(
            std::fs::read(a.join(f)).unwrap() == std::fs::read(b.join(f)).unwrap(),
            "{} and {} differ in {f}",
            a.display(),
            b.display()
        );
    }
}

/// Replays the chunks with --save-state / --resume into `out`.
fn chunked(parts: &[PathBuf], out: &Path, state: &Path, args: &[&str]) {
    for (k, part) in parts.iter().enumerate() {
        let mut all = args.to_vec();
        all.extend(["--save-state", state.to_str().unwrap()]);
        if k > 0 {
            all.extend(["--resume", state.to_str().unwrap()]);
        }
        replay_ok(part, out, &all);
    }
}

#[test]
fn chunks_give_exactly_the_full_replay_for_every_system() {
    let dir = TempDir::new().unwrap();
    let mut rng = ChaCha8Rng::seed_from_u64(11);
    let n = 400;
    for system in rate_batch::systems::SystemKind::ALL
        .iter()
        .map(|k| k.name())
    {
        for period in ["game", "day"] {
            // Random cuts (2 or 3), often inside a day: the league plays several games a day.
            let mut cuts: Vec<usize> = (0..rng.random_range(2..4))
                .map(|_| rng.random_range(1..n))
                .collect();
            cuts.sort_unstable();
            cuts.dedup();
            let parts = chunks(dir.path(), n, &cuts);
            let mut args = vec!["--system", system, "--period", period, "--warmup", "0"];
            if system == "trueskill" {
                // Given: from the input, the first night's draw rate would be kept, and the
                // full replay's is the whole history's
                // (`a_nightly_run_resumes_with_the_values_fitted_the_first_night`).
                args.extend(["--param", "draw_probability=0.2"]);
            }
            let full = dir.path().join(format!("full-{system}-{period}"));
            replay_ok(parts.last().unwrap(), &full, &args);
            let out = dir.path().join(format!("chunked-{system}-{period}"));
            let state = dir.path().join(format!("state-{system}-{period}.bin"));
            chunked(&parts, &out, &state, &args);
            eprintln!("{system} {period}, cuts {cuts:?}");
            same_outputs(&full, &out);
            assert_eq!(metrics(&full), metrics(&out), "{system} {period}");
            assert_eq!(
                metrics_doc(&full)["rounds"],
                metrics_doc(&out)["rounds"],
                "{system} {period}: rounds"
            );
        }
    }
}

#[test]
fn resuming_twice_with_the_same_input_changes_nothing() {
    let dir = TempDir::new().unwrap();
    let parts = chunks(dir.path(), 120, &[60]);
    let out = dir.path().join("o");
    let state = dir.path().join("s.bin");
    let args = ["--system", "glicko2", "--period", "day", "--warmup", "0"];
    chunked(&parts, &out, &state, &args);
    let before = std::fs::read(out.join("history.csv")).unwrap();
    let board = std::fs::read(out.join("leaderboard.csv")).unwrap();
    let s = state.to_str().unwrap();
    let mut again = args.to_vec();
    again.extend(["--resume", s, "--save-state", s]);
    let head = [
        "replay",
        parts[1].to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
    ];
    let o = rate_batch(&[&head[..], &again[..]].concat());
    assert!(o.status.success(), "{}", texts(&o).1);
    assert!(texts(&o).0.contains("contests applied before were skipped"));
    assert_eq!(std::fs::read(out.join("history.csv")).unwrap(), before);
    assert_eq!(std::fs::read(out.join("leaderboard.csv")).unwrap(), board);
}

#[test]
fn other_systems_options_and_rewritten_history_are_refused() {
    let dir = TempDir::new().unwrap();
    let parts = chunks(dir.path(), 100, &[50]);
    let state = dir.path().join("s.bin");
    let out = dir.path().join("o");
    let s = state.to_str().unwrap();
    replay_ok(&parts[0], &out, &["--system", "elo", "--save-state", s]);
    let p1 = parts[1].to_str().unwrap();
    let o_dir = out.to_str().unwrap();
    for (extra, needle) in [
        (vec!["--system", "glicko"], "made with --system elo"),
        (
            vec!["--system", "elo", "--k", "24"],
            "made with the parameters",
        ),
        (vec!["--system", "elo", "--period", "day"], "--period game"),
    ] {
        let mut args = vec!["replay", p1, "--out", o_dir, "--resume", s];
        args.extend(extra);
        let o = rate_batch(&args);
        assert_eq!(o.status.code(), Some(2), "{}", texts(&o).1);
        assert!(texts(&o).1.contains(needle), "{}", texts(&o).1);
    }
    // A game dated before the watermark that was never applied.
    let text = std::fs::read_to_string(&parts[1]).unwrap();
    let late = text.replacen(
        "time,a,b,result\n",
        "time,a,b,result\n2025-09-03T17:00:00Z,Newcomer One,Newcomer Two,1-0\n",
        1,
    );
    let bad = write(dir.path(), "rewritten.csv", &late);
    let o = rate_batch(&[
        "replay",
        bad.to_str().unwrap(),
        "--out",
        o_dir,
        "--resume",
        s,
        "--system",
        "elo",
    ]);
    assert_eq!(o.status.code(), Some(1), "{}", texts(&o).1);
    assert!(
        texts(&o).1.contains("never applied") && texts(&o).1.contains("2025-09-03T17:00:00Z"),
        "{}",
        texts(&o).1
    );
    // Not a state at all.
    let junk = write(dir.path(), "junk.bin", "hello");
    let o = rate_batch(&[
        "replay",
        p1,
        "--out",
        o_dir,
        "--resume",
        junk.to_str().unwrap(),
    ]);
    assert_eq!(o.status.code(), Some(1));
    assert!(texts(&o).1.contains("not a rate-batch state file"));
}

/// `--log-format json`: one object on stdout on success, one on stderr on failure.
#[test]
fn json_logs_for_schedulers() {
    let dir = TempDir::new().unwrap();
    let parts = chunks(dir.path(), 40, &[20]);
    let out = dir.path().join("o");
    let state = dir.path().join("s.bin");
    let o = rate_batch(&[
        "replay",
        parts[1].to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
        "--log-format",
        "json",
        "--save-state",
        state.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", texts(&o).1);
    let doc: serde_json::Value = serde_json::from_str(texts(&o).0.trim()).unwrap();
    assert_eq!(doc["status"], "ok");
    assert_eq!(doc["contests_applied"], 40);
    assert_eq!(doc["written"].as_array().unwrap().len(), 3);
    assert!(doc["metrics"]["two_player"]["log_loss"].as_f64().is_some());
    let o = rate_batch(&[
        "replay",
        dir.path().join("missing.csv").to_str().unwrap(),
        "--log-format",
        "json",
    ]);
    assert_eq!(o.status.code(), Some(3));
    let err: serde_json::Value = serde_json::from_str(texts(&o).1.trim()).unwrap();
    assert_eq!(err["status"], "error");
    assert_eq!(err["exit_code"], 3);
    assert!(err["error"].as_str().unwrap().contains("missing.csv"));
}

/// A replay killed while it writes its files leaves the previous outputs as they were; the
/// next run removes the dead run's temporary files.
#[test]
fn a_killed_replay_leaves_the_previous_outputs() {
    let dir = TempDir::new().unwrap();
    let small = chunks(dir.path(), 50, &[]);
    let out = dir.path().join("o");
    replay_ok(&small[0], &out, &[]);
    let before: Vec<(String, Vec<u8>)> = ["history.csv", "leaderboard.csv", "metrics.json"]
        .iter()
        .map(|f| (f.to_string(), std::fs::read(out.join(f)).unwrap()))
        .collect();
    let big = common::pool(&dir.path().join("big.csv"), 20_000, 400_000, 7);
    let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_rate-batch"))
        .args([
            "replay",
            big.to_str().unwrap(),
            "--out",
            out.to_str().unwrap(),
            "--quiet",
        ])
        .spawn()
        .unwrap();
    // The run writes its files into a new generation beside the output folder.
    let generation = || {
        std::fs::read_dir(dir.path())
            .unwrap()
            .map(|e| e.unwrap().path())
            .find(|p| {
                p.file_name()
                    .unwrap()
                    .to_string_lossy()
                    .starts_with(".o.rate-batch-")
            })
    };
    let start = std::time::Instant::now();
    // Kill it once it is writing history.csv.
    let tmp = loop {
        if let Some(g) = generation().filter(|g| g.join("history.csv").exists()) {
            break g;
        }
        assert!(
            child.try_wait().unwrap().is_none(),
            "the replay ended before it was killed"
        );
        assert!(
            start.elapsed().as_secs() < 120,
            "no temporary file appeared"
        );
        std::thread::sleep(std::time::Duration::from_millis(5));
    };
    child.kill().unwrap();
    child.wait().unwrap();
    for (f, bytes) in &before {
        assert_eq!(&std::fs::read(out.join(f)).unwrap(), bytes, "{f}");
    }
    assert!(tmp.exists(), "a killed run cannot clean up");
    // The next run cleans up after it.
    replay_ok(&small[0], &out, &[]);
    assert!(!tmp.exists());
    let mut names: Vec<String> = std::fs::read_dir(&out)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    assert_eq!(names, ["history.csv", "leaderboard.csv", "metrics.json"]);
}

/// `matchmake` on a Yuksel state: desired probabilities from the recent results (equations
/// 24-25), desired opponents by inverting Elo's curve (equation 26), neighbours paired.
#[test]
fn matchmake_pairs_by_desired_opponent_rating() {
    let dir = TempDir::new().unwrap();
    // a wins 3 games, b loses 3, c and d draw once, e is new.
    let games = write(
        dir.path(),
        "g.csv",
        "time,a,b,result\n1,a,b,1-0\n2,a,b,1-0\n3,a,b,1-0\n4,c,d,1/2-1/2\n",
    );
    let state = yuksel_state(dir.path(), &games);
    let pool = write(dir.path(), "pool.csv", "player\na\nb\nc\nd\ne\n");
    let pairs = dir.path().join("pairs.csv");
    // e is unknown to the state: an error naming him (a misspelt name is not silently a
    // newcomer), nothing written; with --unknown newcomer he waits as one.
    let o = matchmake(&state, &pool, &pairs);
    assert_eq!(o.status.code(), Some(1), "{}", texts(&o).1);
    assert!(
        texts(&o)
            .1
            .contains("1 waiting player the state does not know: `e`"),
        "{}",
        texts(&o).1
    );
    assert!(!pairs.exists());
    let o = matchmake_with(&state, &pool, &pairs, &["--unknown", "newcomer"]);
    assert!(o.status.success(), "{}", texts(&o).1);
    let rows = common::read_csv(&pairs);
    let by = |name: &str| {
        rows[1..]
            .iter()
            .find(|r| r[0] == name || r[1] == name)
            .unwrap()
            .clone()
    };
    let num = |s: &str| s.parse::<f64>().unwrap();
    // a: m = 3 < n = 5, w = 3: p = (0.5 * 9 - 3) / 6 = 0.25; b: (4.5 - 0) / 6 = 0.75.
    let ra = by("a");
    let (col_p, col_d, col_r) = if ra[0] == "a" { (4, 6, 2) } else { (5, 7, 3) };
    assert!((num(&ra[col_p]) - 0.25).abs() < 1e-12, "{ra:?}");
    // r* = r + 400 log10((1 - p) / p) = r + 400 log10(3).
    let want = num(&ra[col_r]) + 400.0 * 3f64.log10();
    assert!((num(&ra[col_d]) - want).abs() < 1e-6, "{ra:?}");
    // Five players: two pairs and one waiting.
    assert_eq!(rows.len(), 1 + 3);
    assert_eq!(rows.iter().filter(|r| r[1].is_empty()).count(), 1);
    // Each side's probability of winning, from the system (Elo's curve: they sum to one, and
    // the higher rated side is the favourite).
    assert_eq!(rows[0][10..], ["p_a_wins", "p_b_wins"]);
    for r in rows[1..].iter().filter(|r| !r[1].is_empty()) {
        let (pa, pb) = (num(&r[10]), num(&r[11]));
        assert!((pa + pb - 1.0).abs() < 1e-12, "{r:?}");
        assert_eq!(pa > 0.5, num(&r[2]) > num(&r[3]), "{r:?}");
    }
    assert!(rows.iter().all(|r| r.len() == 12));
    // e, whom the state has never seen, waits as a newcomer: 1500, p = lambda = 0.5.
    let re = by("e");
    let (col_p, col_r) = if re[0] == "e" { (4, 2) } else { (5, 3) };
    assert_eq!((num(&re[col_r]), num(&re[col_p])), (1500.0, 0.5), "{re:?}");
    // A name waiting twice is refused, naming the line, and the previous pairs stay.
    let before = std::fs::read(&pairs).unwrap();
    let twice = write(dir.path(), "twice.csv", "player\na\nb\na\n");
    let o = matchmake(&state, &twice, &pairs);
    assert!(!o.status.success());
    assert!(texts(&o).1.contains("line 4"), "{}", texts(&o).1);
    assert_eq!(std::fs::read(&pairs).unwrap(), before);
}

/// The simulation's history and truth, replayed with `--truth` (a day per round, so a round
/// of the simulation is a round of the replay), give back the simulation's own RMSE series:
/// the generated files are the whole experiment.
#[test]
fn a_simulated_population_replays_to_the_same_rmse() {
    let dir = TempDir::new().unwrap();
    let p = |name: &str| dir.path().join(name);
    // `rate-batch-lab simulate yuksel-population --zero-sum --players 80 --rounds 25 --stats
    // .. --games .. --truth ..`, the lab's job called as a library.
    let mut params = rate_batch::systems::ParamMap::new();
    rate_batch::systems::parse_param("zero_sum=true", &mut params).unwrap();
    let job = rate_batch_lab::jobs::PopulationJob {
        system: rate_batch::systems::SystemKind::Yuksel,
        params,
        players: 80,
        rounds: 25,
        random_pairing: false,
        shuffle_fraction: 0.05,
        seed: 2024,
        stats: p("stats.csv"),
        games: Some(p("games.csv")),
        truth: Some(p("truth.csv")),
    };
    rate_batch_lab::jobs::population(&job, &mut std::io::sink()).unwrap();
    replay_ok(
        &p("games.csv"),
        &p("out"),
        &[
            "--system",
            "yuksel",
            "--zero-sum",
            "--period",
            "day",
            "--truth",
            p("truth.csv").to_str().unwrap(),
        ],
    );
    let sim = common::read_csv(&p("stats.csv"));
    let rep = common::read_csv(&p("out").join("rmse.csv"));
    assert_eq!((sim.len(), rep.len()), (1 + 25, 1 + 25));
    for (a, b) in sim[1..].iter().zip(&rep[1..]) {
        let (x, y) = (a[1].parse::<f64>().unwrap(), b[3].parse::<f64>().unwrap());
        assert!((x - y).abs() < 1e-9 * x, "round {}: {x} vs {y}", a[0]);
        assert_eq!(b[2], "80");
    }
}

/// Replays `input` into `out` resuming from `state` (saving it again); returns the output.
fn resume(input: &Path, out: &Path, state: &Path, args: &[&str]) -> std::process::Output {
    let state = state.to_str().unwrap();
    let mut all = vec!["--resume", state, "--save-state", state];
    all.extend_from_slice(args);
    common::replay(input, out, &all)
}

/// A rematch identical to a game already applied (same players, result and day) is a new
/// game: the digests are a multiset, so the resume rates it as the full replay does.
#[test]
fn a_rematch_identical_to_an_applied_game_is_not_dropped() {
    let dir = TempDir::new().unwrap();
    let p = |n: &str| dir.path().join(n);
    let first = write(
        dir.path(),
        "p1.csv",
        "time,a,b,result\n2024-01-01,x,y,1\n2024-01-02,x,y,1\n",
    );
    let all = write(
        dir.path(),
        "all.csv",
        "time,a,b,result\n2024-01-01,x,y,1\n2024-01-02,x,y,1\n2024-01-02,x,y,1\n2024-01-03,x,y,0\n",
    );
    replay_ok(&first, &p("i"), &["--save-state", p("s").to_str().unwrap()]);
    let o = resume(&all, &p("i"), &p("s"), &[]);
    assert!(o.status.success(), "{}", texts(&o).1);
    replay_ok(&all, &p("f"), &[]);
    same_outputs(&p("i"), &p("f"));
    // Given again, nothing is new.
    let o = resume(&all, &p("i"), &p("s"), &[]);
    assert!(o.status.success(), "{}", texts(&o).1);
    same_outputs(&p("i"), &p("f"));
}

/// With `--period day` the state leaves the open day for the next run: a next input with only
/// the games after the watermark is refused (it would lose that day's games), one starting at
/// the open day gives the full replay.
#[test]
fn the_open_day_must_be_given_again() {
    let dir = TempDir::new().unwrap();
    let p = |n: &str| dir.path().join(n);
    let head = "time,a,b,result\n";
    let day1 = "2024-01-01T10:00:00Z,a,b,1\n2024-01-01T12:00:00Z,c,d,0\n";
    let day2a = "2024-01-02T09:00:00Z,a,c,1\n";
    let day2b = "2024-01-02T20:00:00Z,b,d,0.5\n2024-01-03T10:00:00Z,a,d,0\n";
    let first = write(dir.path(), "p1.csv", &format!("{head}{day1}{day2a}"));
    let after = write(dir.path(), "after.csv", &format!("{head}{day2b}"));
    let from_open = write(dir.path(), "open.csv", &format!("{head}{day2a}{day2b}"));
    let all = write(
        dir.path(),
        "all.csv",
        &format!("{head}{day1}{day2a}{day2b}"),
    );
    let args = ["--system", "glicko2", "--period", "day"];
    let save = |state: &str| {
        let mut a = args.to_vec();
        a.extend(["--save-state", state]);
        replay_ok(&first, &p("o"), &a);
    };
    save(p("s").to_str().unwrap());
    let o = resume(&after, &p("o"), &p("s"), &args);
    assert!(!o.status.success());
    assert!(
        texts(&o).1.contains("1 contests of the open day period"),
        "{}",
        texts(&o).1
    );
    let o = resume(&from_open, &p("o"), &p("s"), &args);
    assert!(o.status.success(), "{}", texts(&o).1);
    replay_ok(&all, &p("f"), &args);
    same_outputs(&p("o"), &p("f"));
}

/// With `--period series`, the state leaves the last series open; a file whose series
/// interleave resumes on itself, and a later game of a series rated whole is refused.
#[test]
fn interleaved_series_resume_exactly_or_are_refused() {
    let dir = TempDir::new().unwrap();
    let p = |n: &str| dir.path().join(n);
    let head = "time,a,b,result,series\n";
    let s1a = "2024-01-01T10:00:00Z,a,b,1,s1\n";
    let s2 = "2024-01-01T11:00:00Z,c,d,1,s2\n";
    let s1b = "2024-01-01T12:00:00Z,a,b,1,s1\n";
    let args = ["--system", "elo", "--period", "series"];
    // s1 spans s2: the state (before the last round, s2) has applied all of s1.
    let f = write(dir.path(), "f.csv", &format!("{head}{s1a}{s2}{s1b}"));
    let (s, t) = (p("s"), p("t"));
    let mut a = args.to_vec();
    a.extend(["--save-state", s.to_str().unwrap()]);
    replay_ok(&f, &p("o"), &a);
    let o = resume(&f, &p("o"), &p("s"), &args);
    assert!(o.status.success(), "{}", texts(&o).1);
    replay_ok(&f, &p("full"), &args);
    same_outputs(&p("o"), &p("full"));
    // s1 rated whole, then continued after s2 began: refused.
    let q1 = write(dir.path(), "q1.csv", &format!("{head}{s1a}{s2}"));
    let mut a = args.to_vec();
    a.extend(["--save-state", t.to_str().unwrap()]);
    replay_ok(&q1, &p("q"), &a);
    let q = write(dir.path(), "q.csv", &format!("{head}{s1a}{s2}{s1b}"));
    let o = resume(&q, &p("q"), &p("t"), &args);
    assert!(!o.status.success());
    assert!(
        texts(&o).1.contains("continues series `s1`"),
        "{}",
        texts(&o).1
    );
}

/// The README's nightly recipe as printed: its first-night command, then its crontab line
/// (run by `sh`, with `rate-batch` on the PATH) on a history that grew, with `--quiet
/// --log-format json`: the log holds one JSON object per night, and the outputs equal a full
/// replay's.
#[test]
fn the_readme_cron_line_works_as_printed() {
    let readme =
        std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("README.md")).unwrap();
    let lines: Vec<&str> = readme.lines().collect();
    let first_at = lines
        .iter()
        .position(|l| l.trim() == "# first night: replay everything, keep the state")
        .expect("the README's first-night command");
    let first_night = format!(
        "{} {}",
        lines[first_at + 1].trim().trim_end_matches('\\'),
        lines[first_at + 2].trim()
    );
    let cron = lines
        .iter()
        .find_map(|l| l.trim().strip_prefix("30 3 * * *"))
        .expect("the README's crontab line")
        .trim()
        .to_string();
    let dir = TempDir::new().unwrap();
    let bin = dir.path().join("bin");
    std::fs::create_dir(&bin).unwrap();
    std::os::unix::fs::symlink(env!("CARGO_BIN_EXE_rate-batch"), bin.join("rate-batch")).unwrap();
    let league = std::fs::read_to_string(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("datasets/chess-league.csv"),
    )
    .unwrap();
    let rows: Vec<&str> = league.lines().collect();
    let home = dir.path().join("league");
    std::fs::create_dir_all(home.join("logs")).unwrap();
    let sh = |command: &str| {
        std::process::Command::new("sh")
            .args(["-c", command])
            .current_dir(&home)
            .env(
                "PATH",
                format!("{}:{}", bin.display(), std::env::var("PATH").unwrap()),
            )
            .output()
            .unwrap()
    };
    std::fs::write(home.join("league.csv"), rows[..1000].join("\n") + "\n").unwrap();
    let o = sh(&first_night);
    assert!(o.status.success(), "{first_night}: {}", texts(&o).1);
    for upto in [1800, rows.len()] {
        std::fs::write(home.join("league.csv"), rows[..upto].join("\n") + "\n").unwrap();
        let command = cron.replace("cd /srv/league", &format!("cd '{}'", home.display()));
        let o = sh(&command);
        assert!(o.status.success(), "{command}");
    }
    let log = std::fs::read_to_string(home.join("logs/ratings.jsonl")).unwrap();
    let nights: Vec<serde_json::Value> = log
        .lines()
        .map(|l| serde_json::from_str(l).expect("one JSON object a line"))
        .collect();
    assert_eq!(nights.len(), 2, "{log}");
    for n in &nights {
        assert_eq!(n["status"], "ok");
        assert!(n["contests_applied"].as_u64().unwrap() > 0);
    }
    // The same leaderboard as one replay of the whole history.
    let full = dir.path().join("full");
    replay_ok(
        &home.join("league.csv"),
        &full,
        &["--system", "glicko2", "--period", "day"],
    );
    assert_eq!(
        std::fs::read(full.join("leaderboard.csv")).unwrap(),
        std::fs::read(home.join("site/ratings/leaderboard.csv")).unwrap()
    );
}

/// Two waiting names that find the same player of the state (`Foo` and ` Foo `, padding
/// typed in the pool) are refused, naming the pool: they would pair a player with himself.
#[test]
fn a_pool_naming_one_player_twice_is_refused() {
    let dir = TempDir::new().unwrap();
    let games = write(
        dir.path(),
        "g.csv",
        "time,a,b,result\n2021-01-01,Foo,Bar,1\n2021-01-02,Bar,Baz,0\n",
    );
    let state = yuksel_state(dir.path(), &games);
    let pool = write(dir.path(), "pool.csv", "player\nFoo\n Foo \nBaz\n");
    let o = matchmake(&state, &pool, &dir.path().join("pairs.csv"));
    let err = texts(&o).1;
    assert_eq!(o.status.code(), Some(1), "{err}");
    assert!(
        err.contains("pool.csv") && err.contains("waiting twice"),
        "{err}"
    );
}

/// A Yuksel state of `games` (in `dir/s.bin`).
fn yuksel_state(dir: &Path, games: &Path) -> PathBuf {
    let state = dir.join("s.bin");
    replay_ok(
        games,
        &dir.join("o"),
        &[
            "--system",
            "yuksel",
            "--save-state",
            state.to_str().unwrap(),
        ],
    );
    state
}

/// Runs `matchmake --state STATE --pool POOL --out PAIRS`.
fn matchmake(state: &Path, pool: &Path, pairs: &Path) -> std::process::Output {
    matchmake_with(state, pool, pairs, &[])
}

fn matchmake_with(state: &Path, pool: &Path, pairs: &Path, more: &[&str]) -> std::process::Output {
    let mut args = vec![
        "matchmake",
        "--state",
        state.to_str().unwrap(),
        "--pool",
        pool.to_str().unwrap(),
        "--out",
        pairs.to_str().unwrap(),
    ];
    args.extend_from_slice(more);
    rate_batch(&args)
}

/// A football-like season file with a home advantage: `date,home_team,away_team,home_score,
/// away_score` (the shape of martj42's `results.csv`), eight teams of spread strengths, a
/// match a day, some drawn.
fn home_and_away(dir: &Path, matches: usize) -> (PathBuf, String) {
    let mut rng = ChaCha8Rng::seed_from_u64(29);
    let strength: [f64; 8] = [1.2, 0.8, 0.5, 0.2, 0.0, -0.3, -0.6, -1.0];
    let mut text = String::from("date,home_team,away_team,home_score,away_score\n");
    for k in 0..matches {
        let h = rng.random_range(0..8);
        let a = (h + rng.random_range(1..8)) % 8;
        // The home side's edge: 0.5 on the logistic scale (about 87 Elo points).
        let d = strength[h] - strength[a] + 0.5;
        let p = 1.0 / (1.0 + (-d).exp());
        let u: f64 = rng.random();
        let (hs, as_) = if u < p * 0.8 {
            (2, 0)
        } else if u < p * 0.8 + 0.2 {
            (1, 1)
        } else {
            (0, 1)
        };
        let day =
            chrono::NaiveDate::from_ymd_opt(2020, 1, 1).unwrap() + chrono::Duration::days(k as i64);
        text.push_str(&format!("{day},Team {h},Team {a},{hs},{as_}\n"));
    }
    (write(dir, "results.csv", &text), text)
}

/// The README's nightly football run with `--advantage auto`: night 2 (the whole file, the
/// same flags) resumes from night 1's state (80 % of it) with the advantage fitted then, and
/// its leaderboard is a full replay's given that advantage, bit for bit; TrueSkill keeps
/// night 1's draw rate as its draw margin likewise. What the parameters were asked as is what
/// a resumed run is checked against.
#[test]
fn a_nightly_run_resumes_with_the_values_fitted_the_first_night() {
    let dir = TempDir::new().unwrap();
    let (whole, text) = home_and_away(dir.path(), 600);
    let lines: Vec<&str> = text.lines().collect();
    let night1 = write(dir.path(), "night1.csv", &(lines[..=480].join("\n") + "\n"));
    let map = "a=home_team,b=away_team,score_a=home_score,score_b=away_score,time=date";
    for system in ["glicko2", "trueskill"] {
        let state = dir.path().join(format!("{system}.state"));
        let out = dir.path().join(system);
        let s = state.to_str().unwrap();
        let flags = ["--map", map, "--system", system, "--advantage", "auto"];
        fn joined<'a>(flags: &[&'a str], more: &[&'a str]) -> Vec<&'a str> {
            [flags, more].concat()
        }
        replay_ok(&night1, &out, &joined(&flags, &["--save-state", s]));
        let first = metrics_doc(&out);
        let fitted = first["params"]["advantage"].as_f64().unwrap();
        // (In the system's own units: Elo-like points, or TrueSkill's, where β is 25/6.)
        let floor = if system == "trueskill" { 1.0 } else { 20.0 };
        assert!(fitted > floor, "{system}: the home edge is found: {fitted}");
        // Night 2: the same command on the whole file.
        let o = rate_batch(
            &[
                &[
                    "replay",
                    whole.to_str().unwrap(),
                    "--out",
                    out.to_str().unwrap(),
                ][..],
                &joined(&flags, &["--resume", s, "--save-state", s]),
            ]
            .concat(),
        );
        let (stdout, stderr) = texts(&o);
        assert!(o.status.success(), "{system}: {stdout}{stderr}");
        assert!(
            stdout.contains("kept from the state resumed: advantage"),
            "{system}: {stdout}"
        );
        let second = metrics_doc(&out);
        assert_eq!(second["params"], first["params"], "{system}");
        assert_eq!(second["advantage"], first["advantage"], "{system}");
        // A full replay given the fitted values.
        let full = dir.path().join(format!("{system}-full"));
        let fitted = fitted.to_string();
        let draw = format!("draw_probability={}", first["params"]["draw_probability"]);
        let mut args = vec!["--map", map, "--system", system, "--advantage", &fitted];
        if system == "trueskill" {
            assert_eq!(
                second["draw_probability"]["value"], first["params"]["draw_probability"],
                "the draw rate of night 1"
            );
            args.extend(["--param", &draw]);
        }
        replay_ok(&whole, &full, &args);
        assert_eq!(
            std::fs::read(out.join("leaderboard.csv")).unwrap(),
            std::fs::read(full.join("leaderboard.csv")).unwrap(),
            "{system}: night 2 is the full replay with night 1's values"
        );
        // Asked otherwise (the fitted value given as a number): refused, both named.
        let o = rate_batch(&[
            "replay",
            whole.to_str().unwrap(),
            "--out",
            dir.path().join("other").to_str().unwrap(),
            "--map",
            map,
            "--system",
            system,
            "--resume",
            s,
        ]);
        assert_eq!(o.status.code(), Some(2), "{system}");
        let stderr = texts(&o).1;
        assert!(
            stderr.contains(r#"{"advantage":"auto"} (as given"#),
            "{system}: {stderr}"
        );
    }
}
