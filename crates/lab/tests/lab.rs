//! The lab's program, `rate-batch-lab`: its subcommands run from the command line, their
//! outputs and errors; and that the command line writes byte for byte what the lab's jobs
//! write when called as a library (as the product's tests call them for their data).

use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use tempfile::TempDir;

/// Runs the lab's binary with arguments.
fn lab(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_rate-batch-lab"))
        .args(args)
        .output()
        .expect("the binary runs")
}

/// Text of stdout and stderr.
fn texts(o: &Output) -> (String, String) {
    (
        String::from_utf8_lossy(&o.stdout).into_owned(),
        String::from_utf8_lossy(&o.stderr).into_owned(),
    )
}

fn stderr(o: &Output) -> String {
    texts(o).1
}

fn s(p: &Path) -> &str {
    p.to_str().unwrap()
}

/// Reads a CSV output into rows of fields (header included; no field holds a comma).
fn read_csv(path: &Path) -> Vec<Vec<String>> {
    std::fs::read_to_string(path)
        .unwrap()
        .lines()
        .map(|l| l.split(',').map(str::to_string).collect())
        .collect()
}

/// The command line's options reach the jobs: `simulate pool` (PGN, zstd), `league` and
/// `crowd` write the same bytes as the library calls with the same settings (the defaults
/// included: the pool's seed 7, the league's 2024 and nu 0.8, the crowd's 2021).
#[test]
fn the_command_line_writes_what_the_library_writes() {
    use rate_batch_lab::{jobs, simulate};
    let dir = TempDir::new().unwrap();
    let p = |name: &str| dir.path().join(name);
    let sink = &mut std::io::sink();
    let same = |a: &PathBuf, b: &PathBuf| {
        assert!(
            std::fs::read(a).unwrap() == std::fs::read(b).unwrap(),
            "{} and {} differ",
            a.display(),
            b.display()
        );
    };
    let o = lab(&[
        "simulate",
        "pool",
        "--players",
        "30",
        "--games",
        "400",
        "--out",
        s(&p("cli.pgn.zst")),
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(texts(&o).0.starts_with("wrote 400 games of 30 players to "));
    let cfg = simulate::PoolConfig {
        players: 30,
        games: 400,
        ..simulate::PoolConfig::default()
    };
    jobs::pool(&cfg, &p("lib.pgn.zst"), sink).unwrap();
    same(&p("cli.pgn.zst"), &p("lib.pgn.zst"));

    let o = lab(&[
        "simulate",
        "league",
        "--players",
        "9",
        "--out",
        s(&p("cli-league.csv")),
        "--truth",
        s(&p("cli-truth.csv")),
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let cfg = simulate::LeagueConfig {
        players: 9,
        ..simulate::LeagueConfig::default()
    };
    jobs::league(&cfg, &p("lib-league.csv"), &p("lib-truth.csv"), sink).unwrap();
    same(&p("cli-league.csv"), &p("lib-league.csv"));
    same(&p("cli-truth.csv"), &p("lib-truth.csv"));

    // The truth goes beside --out unless named.
    let o = lab(&[
        "simulate",
        "crowd",
        "--players",
        "50",
        "--group",
        "50",
        "--out",
        s(&p("cli-crowd.csv")),
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let cfg = simulate::SynthConfig {
        players: 50,
        group: 50,
        ..simulate::SynthConfig::crowd()
    };
    jobs::synth(&cfg, &p("lib-crowd.csv"), &p("lib-crowd-truth.csv"), sink).unwrap();
    same(&p("cli-crowd.csv"), &p("lib-crowd.csv"));
    same(&p("cli-crowd-truth.csv"), &p("lib-crowd-truth.csv"));
}

/// `rate-batch-lab experiment`: the paper's comparison in one command: a table of twelve runs and two charts,
/// over one seed or several.
#[test]
fn experiment_writes_the_table_and_charts() {
    let dir = TempDir::new().unwrap();
    let out = dir.path().join("exp");
    let o = lab(&[
        "experiment",
        "--players",
        "40",
        "--rounds",
        "30",
        "--out",
        out.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", texts(&o).1);
    let md = std::fs::read_to_string(out.join("experiment.md")).unwrap();
    assert_eq!(md.lines().count(), 2 + 12, "{md}");
    assert!(
        md.lines()
            .next()
            .unwrap()
            .contains("| scale @30 | RMSE without scale @30 |")
    );
    assert!(md.contains("| yuksel zero-sum | matchmaking |"));
    let rmse = read_csv(&out.join("rmse.csv"));
    assert_eq!((rmse.len(), rmse[0].len()), (1 + 30, 1 + 12));
    for page in ["experiment.html", "experiment-random-pairing.html"] {
        let html = std::fs::read_to_string(out.join(page)).unwrap();
        assert_eq!(html.matches("<svg").count(), 1, "{page}");
        assert!(!html.contains("<script"));
    }
    // Two seeds: each seed's figures in seeds.csv, the table their mean and range, rmse.csv
    // their mean.
    let two = dir.path().join("two");
    let o = lab(&[
        "experiment",
        "--players",
        "40",
        "--rounds",
        "30",
        "--seed",
        "2024,7",
        "--out",
        two.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", texts(&o).1);
    let seeds = read_csv(&two.join("seeds.csv"));
    let pick = |seed: &str, round: &str| -> f64 {
        seeds
            .iter()
            .find(|r| {
                r[0] == seed && r[1] == "yuksel zero-sum" && r[2] == "matchmaking" && r[3] == round
            })
            .unwrap()[4]
            .parse()
            .unwrap()
    };
    // The first seed's figures are those of the one-seed run.
    assert_eq!(pick("2024", "30"), rmse[30][1].parse::<f64>().unwrap());
    let (a, b) = (pick("2024", "30"), pick("7", "30"));
    assert_ne!(a, b);
    let mean_rmse = read_csv(&two.join("rmse.csv"));
    let m: f64 = mean_rmse[30][1].parse().unwrap();
    assert!((m - (a + b) / 2.0).abs() < 1e-9 * m, "{m} {a} {b}");
    let md = std::fs::read_to_string(two.join("experiment.md")).unwrap();
    let row = md
        .lines()
        .find(|l| l.starts_with("| yuksel zero-sum | matchmaking |"))
        .unwrap();
    let want = format!("{:.1} ({:.1}-{:.1})", (a + b) / 2.0, a.min(b), a.max(b));
    assert!(row.contains(&want), "{row} lacks {want}");
}

/// `rate-batch-lab simulate yuksel-population`: the per-round statistics, the games and the true ratings.
#[test]
fn a_simulated_population_writes_its_statistics_games_and_truth() {
    let dir = TempDir::new().unwrap();
    let (stats, games, truth) = (
        dir.path().join("stats.csv"),
        dir.path().join("games.csv"),
        dir.path().join("truth.csv"),
    );
    let o = lab(&[
        "simulate",
        "yuksel-population",
        "--zero-sum",
        "--players",
        "61",
        "--rounds",
        "20",
        "--stats",
        stats.to_str().unwrap(),
        "--games",
        games.to_str().unwrap(),
        "--truth",
        truth.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", texts(&o).1);
    let rows = read_csv(&stats);
    assert_eq!(
        rows[0],
        [
            "round",
            "rmse",
            "scale",
            "rmse_scale_free",
            "balanced_share"
        ]
    );
    assert_eq!(rows.len(), 1 + 20);
    let num = |s: &str| s.parse::<f64>().unwrap();
    for r in &rows[1..] {
        assert!(num(&r[3]) <= num(&r[1]) + 1e-9, "{r:?}");
    }
    // Nobody has 10 games before round 10; from then on the share is measured.
    assert_eq!((rows[9][4].as_str(), rows[10][4].is_empty()), ("", false));
    // 61 players: one is dropped, 30 games a round; the truth lists the 60 players.
    assert_eq!(read_csv(&games).len(), 1 + 30 * 20);
    assert_eq!(read_csv(&truth).len(), 1 + 60);
    // A shuffle window outside [0, 1] of the population is refused, and the stats stay.
    let before = std::fs::read(&stats).unwrap();
    for bad in ["NaN", "1.5"] {
        let o = lab(&[
            "simulate",
            "yuksel-population",
            "--shuffle-fraction",
            bad,
            "--stats",
            stats.to_str().unwrap(),
        ]);
        assert!(!o.status.success());
        assert!(
            texts(&o).1.contains("--shuffle-fraction"),
            "{}",
            texts(&o).1
        );
    }
    assert_eq!(std::fs::read(&stats).unwrap(), before);
}

/// `rate-batch-lab simulate yuksel-single`: one new player, four systems side by side, game by game.
#[test]
fn a_single_new_player_against_a_converged_pool() {
    let dir = TempDir::new().unwrap();
    let out = dir.path().join("single.csv");
    let o = lab(&[
        "simulate",
        "yuksel-single",
        "--shape",
        "rising-then-flat",
        "--games",
        "200",
        "--out",
        out.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", texts(&o).1);
    let rows = read_csv(&out);
    assert_eq!(
        rows[0][..6],
        ["game", "true", "yuksel", "elo", "glicko", "trueskill"]
    );
    assert_eq!(rows.len(), 1 + 200);
    // The true rating rises from 1500 to 2500 over the first half, then stays.
    assert_eq!(rows[1][1], "1500");
    assert_eq!(rows[200][1], "2500");
    // The games themselves: each system's opponent and score, consistent with its win rate
    // over the last 10 games.
    let col = |name: &str| rows[0].iter().position(|c| c == name).unwrap();
    let (score, rate, opp) = (
        col("score_glicko"),
        col("win_rate_glicko"),
        col("opponent_glicko"),
    );
    let num = |s: &str| s.parse::<f64>().unwrap();
    for g in 10..=200 {
        let won: f64 = (g - 9..=g).map(|k| num(&rows[k][score])).sum();
        assert!((num(&rows[g][rate]) - won / 10.0).abs() < 1e-12, "game {g}");
        assert!(num(&rows[g][opp]) > 0.0);
    }
    assert!(texts(&o).0.contains("mean |estimate - true|"));
}

/// The lab's outputs (`simulate`, `experiment`) that cannot be written are named in the error,
/// as the other subcommands' are: here their folder is a regular file.
#[test]
fn a_lab_output_that_cannot_be_written_is_named() {
    let dir = TempDir::new().unwrap();
    let blocker = dir.path().join("blocker");
    std::fs::write(&blocker, "a file, not a folder").unwrap();
    let under = |name: &str| blocker.join(name);
    let ok = dir.path().join("ok.csv");
    let cases: [(Vec<&str>, PathBuf); 4] = [
        (
            vec!["simulate", "pool", "--players", "4", "--games", "10"],
            under("pool.csv"),
        ),
        (
            vec![
                "simulate",
                "league",
                "--players",
                "4",
                "--out",
                s(&ok),
                "--truth",
            ],
            under("truth.csv"),
        ),
        (
            vec!["simulate", "synth-small", "--players", "10", "--group", "5"],
            under("synth.csv"),
        ),
        (
            vec![
                "experiment",
                "--players",
                "4",
                "--rounds",
                "2",
                "--seed",
                "1",
            ],
            under("experiment"),
        ),
    ];
    for (args, path) in &cases {
        let mut args = args.clone();
        if args.last() != Some(&"--truth") {
            args.push("--out");
        }
        args.push(s(path));
        let o = lab(&args);
        assert_eq!(o.status.code(), Some(3), "{args:?}: {}", stderr(&o));
        assert!(stderr(&o).contains(s(path)), "{args:?}: {}", stderr(&o));
    }
}
