//! One player, one game: aliases, dedupe and the names report on a PGN collection built as
//! public player collections are (each player's games in his own file, so that a game between
//! two of them is in both files, under each file's spellings and annotations).

// Exception to clippy::too_many_lines: a test here is one scenario with its table of
// cases and its checks, read top to bottom; cut into pieces it would only scatter.
#![allow(clippy::too_many_lines)]

mod common;

use common::{rate_batch, read_csv, texts, write};
use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;
use tempfile::TempDir;

/// The six players as kept: Kasparov is spelt three ways in the files, Anand, Kramnik and
/// Polgar two ways each ([`spelling`]).
const KEPT: [&str; 6] = [
    "Kasparov, Garry",
    "Anand, Viswanathan",
    "Kramnik, Vladimir",
    "Polgar, Judit",
    "Karpov, Anatoly",
    "Topalov, Veselin",
];

fn spelling(file: usize, player: usize) -> &'static str {
    let by_file: [[&str; 4]; 3] = [
        [
            "Kasparov, Garry",
            "Anand, V",
            "Kramnik, Vladimir",
            "Polgar, J",
        ],
        [
            "Kasparov, G",
            "Anand, Viswanathan",
            "Kramnik, V",
            "Polgar, Judit",
        ],
        [
            "Kasparov,G.",
            "Anand, Viswanathan",
            "Kramnik, Vladimir",
            "Polgar, Judit",
        ],
    ];
    if player < 4 {
        by_file[file][player]
    } else {
        KEPT[player]
    }
}

/// Writes the three collections (Kasparov's, Anand's, Polgar's games); returns their paths,
/// the games written in at least one file, and the copies beyond the first.
fn collection(dir: &std::path::Path) -> (Vec<std::path::PathBuf>, usize, usize) {
    let pairs: Vec<(usize, usize)> = (0..6)
        .flat_map(|i| ((i + 1)..6).map(move |j| (i, j)))
        .collect();
    let owners = [0, 1, 3];
    let mut files = vec![String::new(); 3];
    let (mut distinct, mut copies) = (0, 0);
    for k in 0..90usize {
        let (i, j) = pairs[k % pairs.len()];
        let (white, black) = if k % 2 == 0 { (i, j) } else { (j, i) };
        let result = ["1-0", "0-1", "1/2-1/2"][k % 3];
        let date = format!("2001.{:02}.{:02}", 1 + k / 28, 1 + k % 28);
        let holders: Vec<usize> = (0..3)
            .filter(|&f| owners[f] == white || owners[f] == black)
            .collect();
        if holders.is_empty() {
            continue;
        }
        distinct += 1;
        copies += holders.len() - 1;
        for &f in &holders {
            // The same moves, laid out and annotated as each collection does.
            let moves = match f {
                0 => format!(
                    "1. d4 Nf6 2. c4 e6 3. Nc3 Bb4 4. Qc2 b{} {result}",
                    k % 7 + 1
                ),
                1 => format!(
                    "1.d4 Nf6 {{main line}} 2.c4 e6 (2...g6 3.Nc3) 3.Nc3 Bb4 $1 4.Qc2!? b{} {result}",
                    k % 7 + 1
                ),
                _ => format!(
                    "1. d4 Nf6 2. c4 e6\n3. Nc3 Bb4 4. Qc2 b{}\n{result}",
                    k % 7 + 1
                ),
            };
            files[f].push_str(&format!(
                "[Event \"Games {k}\"]\n[Date \"{date}\"]\n[Round \"{}\"]\n[White \"{}\"]\n\
                 [Black \"{}\"]\n[Result \"{result}\"]\n\n{moves}\n\n",
                k % 11 + 1,
                spelling(f, white),
                spelling(f, black),
            ));
        }
    }
    let paths = ["kasparov.pgn", "anand.pgn", "polgar.pgn"]
        .iter()
        .zip(&files)
        .map(|(n, t)| write(dir, n, t))
        .collect();
    (paths, distinct, copies)
}

fn leaderboard_names(out: &std::path::Path) -> BTreeSet<String> {
    read_csv(&out.join("leaderboard.csv"))[1..]
        .iter()
        .map(|r| r[1].clone())
        .collect()
}

/// The names report finds every spelling and proposes the written-out one; given back as
/// `--aliases` with `--dedupe`, the collection is six players and each game once.
#[test]
fn aliases_and_dedupe_merge_a_pgn_collection() {
    let dir = TempDir::new().unwrap();
    let (files, distinct, copies) = collection(dir.path());
    let inputs: Vec<&str> = files.iter().map(|p| p.to_str().unwrap()).collect();
    assert_eq!((distinct, copies), (72, 18), "the fixture's own counts");

    // As read: eleven spellings, every copy a game.
    let raw = dir.path().join("raw");
    let mut args = vec!["replay"];
    args.extend(&inputs);
    args.extend(["--out", raw.to_str().unwrap(), "--quiet"]);
    let o = rate_batch(&args);
    assert!(o.status.success(), "{}", texts(&o).1);
    assert_eq!(leaderboard_names(&raw).len(), 11);

    // The report.
    let report = dir.path().join("names.csv");
    let mut args = vec!["names"];
    args.extend(&inputs);
    args.extend(["--out", report.to_str().unwrap()]);
    let o = rate_batch(&args);
    assert!(o.status.success(), "{}", texts(&o).1);
    assert!(
        texts(&o).0.contains("11 names; 5 look like"),
        "{}",
        texts(&o).0
    );
    let rows = read_csv(&report);
    assert_eq!(
        rows[0],
        [
            "alias",
            "player",
            "reason",
            "alias_contests",
            "player_contests",
            "also_matches"
        ]
    );
    let found: BTreeMap<&str, &str> = rows[1..]
        .iter()
        .map(|r| (r[0].as_str(), r[1].as_str()))
        .collect();
    let expected: BTreeMap<&str, &str> = [
        ("Kasparov, G", "Kasparov, Garry"),
        ("Kasparov,G.", "Kasparov, Garry"),
        ("Anand, V", "Anand, Viswanathan"),
        ("Kramnik, V", "Kramnik, Vladimir"),
        ("Polgar, J", "Polgar, Judit"),
    ]
    .into_iter()
    .collect();
    assert_eq!(found, expected);

    // With the report as the alias file: six players, every copy dropped.
    let out = dir.path().join("merged");
    let mut args = vec!["replay"];
    args.extend(&inputs);
    args.extend([
        "--aliases",
        report.to_str().unwrap(),
        "--dedupe",
        "--out",
        out.to_str().unwrap(),
    ]);
    let o = rate_batch(&args);
    assert!(o.status.success(), "{}", texts(&o).1);
    let stdout = texts(&o).0;
    assert!(
        stdout.contains(&format!("{distinct} contests, 6 players")),
        "{stdout}"
    );
    assert!(
        stdout.contains(&format!("dropped {copies} contests that repeat")),
        "{stdout}"
    );
    let names = leaderboard_names(&out);
    assert_eq!(
        names,
        KEPT.iter().map(std::string::ToString::to_string).collect()
    );
    let m: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("metrics.json")).unwrap()).unwrap();
    assert_eq!(m["input"]["duplicates_dropped"], copies);

    // Without aliases, dedupe finds only the copies spelt alike in both files.
    let alike = dir.path().join("alike");
    let mut args = vec!["replay"];
    args.extend(&inputs);
    args.extend(["--dedupe", "--out", alike.to_str().unwrap()]);
    let o = rate_batch(&args);
    assert!(o.status.success(), "{}", texts(&o).1);
    let dropped: usize = texts(&o)
        .0
        .lines()
        .find_map(|l| l.strip_prefix("dropped ")?.split(' ').next()?.parse().ok())
        .unwrap_or(0);
    assert!(dropped < copies, "{dropped}");

    // The same game with other moves (another game that day) is not a repeat.
    let twin = write(
        dir.path(),
        "twin.pgn",
        "[Date \"2001.01.01\"]\n[White \"A\"]\n[Black \"B\"]\n[Result \"1-0\"]\n\n1. e4 e5 1-0\n\n\
         [Date \"2001.01.01\"]\n[White \"A\"]\n[Black \"B\"]\n[Result \"1-0\"]\n\n1. d4 d5 1-0\n\n\
         [Date \"2001.01.01\"]\n[White \"A\"]\n[Black \"B\"]\n[Result \"1-0\"]\n\n1. e4 {!} e5 1-0\n",
    );
    let o = rate_batch(&["replay", twin.to_str().unwrap(), "--dedupe", "--dry-run"]);
    assert!(o.status.success(), "{}", texts(&o).1);
    assert!(texts(&o).0.contains("2 contests"), "{}", texts(&o).0);
    assert!(
        texts(&o).0.contains("dropped 1 contests"),
        "{}",
        texts(&o).0
    );
}

/// A games CSV given twice (two exports of one league) is each game once with --dedupe, the
/// same leaderboard as the file read alone; a neutral game listed with its sides swapped is
/// the same game.
#[test]
fn dedupe_of_a_games_file_read_twice() {
    let dir = TempDir::new().unwrap();
    let league = common::league(dir.path(), 10);
    let alone = dir.path().join("alone");
    common::replay_ok(&league, &alone, &[]);
    let twice = dir.path().join("twice");
    let o = rate_batch(&[
        "replay",
        league.to_str().unwrap(),
        league.to_str().unwrap(),
        "--dedupe",
        "--out",
        twice.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", texts(&o).1);
    assert_eq!(
        std::fs::read(alone.join("leaderboard.csv")).unwrap(),
        std::fs::read(twice.join("leaderboard.csv")).unwrap()
    );
    let games = read_csv(&league).len() - 1;
    assert!(
        texts(&o).0.contains(&format!("dropped {games} contests")),
        "{}",
        texts(&o).0
    );
    let swapped = write(
        dir.path(),
        "n.csv",
        "time,a,b,score_a,score_b,neutral\n2024-01-01,x,y,2,1,true\n2024-01-01,y,x,1,2,true\n\
         2024-01-01,y,x,1,2,false\n",
    );
    let o = rate_batch(&["replay", swapped.to_str().unwrap(), "--dedupe", "--dry-run"]);
    assert!(o.status.success(), "{}", texts(&o).1);
    // The neutral copy with its sides swapped is dropped; the home game of y is another.
    assert!(texts(&o).0.contains("2 contests"), "{}", texts(&o).0);
}

/// Aliases reach the side files: a seed and a waiting player named by an alias find their
/// player; without the aliases matchmake refuses the unknown name.
#[test]
fn aliases_reach_seeds_and_the_matchmaking_pool() {
    let dir = TempDir::new().unwrap();
    let games = write(
        dir.path(),
        "g.csv",
        "time,a,b,result\n1,\"Kasparov, Garry\",\"Anand, V\",1\n2,\"Anand, Viswanathan\",\"Kasparov, G\",0\n\
         3,\"Kasparov, G\",Karpov,1\n",
    );
    let aliases = write(
        dir.path(),
        "aliases.csv",
        "alias,player\n\"Kasparov, G\",\"Kasparov, Garry\"\n\"Anand, V\",\"Anand, Viswanathan\"\n",
    );
    let seeds = write(
        dir.path(),
        "seeds.csv",
        "player,rating\n\"Kasparov, G\",2800\n",
    );
    let out = dir.path().join("o");
    let state = dir.path().join("s.state");
    // The games, read with the aliases and a seed file.
    let seeded = |seeds: &Path, out: &Path, extra: &[&str]| {
        let mut args = vec![
            "replay",
            games.to_str().unwrap(),
            "--aliases",
            aliases.to_str().unwrap(),
            "--initial-ratings",
            seeds.to_str().unwrap(),
            "--out",
            out.to_str().unwrap(),
        ];
        args.extend_from_slice(extra);
        rate_batch(&args)
    };
    let o = seeded(&seeds, &out, &["--save-state", state.to_str().unwrap()]);
    assert!(o.status.success(), "{}", texts(&o).1);
    let board = read_csv(&out.join("leaderboard.csv"));
    assert_eq!(board.len(), 1 + 3);
    assert_eq!(board[1][1], "Kasparov, Garry");
    let rating: f64 = board[1][2].parse().unwrap();
    assert!(rating > 2790.0, "seeded through the alias: {rating}");
    // A seed file naming one player twice through an alias is refused.
    let twice = write(
        dir.path(),
        "twice.csv",
        "player,rating\n\"Kasparov, G\",2800\n\"Kasparov, Garry\",2700\n",
    );
    let o = seeded(&twice, &dir.path().join("o2"), &[]);
    assert!(!o.status.success());
    assert!(texts(&o).1.contains("twice"), "{}", texts(&o).1);

    let pool = write(dir.path(), "pool.csv", "player\n\"Kasparov, G\"\nKarpov\n");
    let pairs = dir.path().join("pairs.csv");
    let matchmake = |extra: &[&str]| {
        let mut args = vec![
            "matchmake",
            "--state",
            state.to_str().unwrap(),
            "--pool",
            pool.to_str().unwrap(),
            "--out",
            pairs.to_str().unwrap(),
            "--quiet",
        ];
        args.extend_from_slice(extra);
        rate_batch(&args)
    };
    let o = matchmake(&[]);
    assert!(!o.status.success());
    assert!(texts(&o).1.contains("Kasparov, G"), "{}", texts(&o).1);
    let o = matchmake(&["--aliases", aliases.to_str().unwrap()]);
    assert!(o.status.success(), "{}", texts(&o).1);
    assert_eq!(read_csv(&pairs).len(), 2, "one pair");
}

/// Bad alias files fail with the file and line.
#[test]
fn bad_alias_files_are_refused() {
    let dir = TempDir::new().unwrap();
    let games = write(dir.path(), "g.csv", "time,a,b,result\n1,x,y,1\n");
    for (text, needle) in [
        ("alias,player\nx,y\nx,z\n", "line 3"),
        ("alias,player\nx,y\ny,x\n", "circle"),
        ("alias\nx\n", "missing column `player`"),
    ] {
        let aliases = write(dir.path(), "a.csv", text);
        let out = dir.path().join("o");
        let o = rate_batch(&[
            "replay",
            games.to_str().unwrap(),
            "--aliases",
            aliases.to_str().unwrap(),
            "--out",
            out.to_str().unwrap(),
        ]);
        assert_eq!(o.status.code(), Some(1), "{text}: an input error");
        let err = texts(&o).1;
        assert!(err.contains("a.csv") && err.contains(needle), "{err}");
        assert!(!out.exists());
    }
}
