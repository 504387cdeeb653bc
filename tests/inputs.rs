//! Inputs as they are published: gzip and zstd files (recognised by their first bytes),
//! standard input (`-`), several files or a folder of them read as one history in time order,
//! with a bad file named in the error; and streamed replays of all of these.

mod common;

use common::{replay, replay_ok, texts, write};
use std::io::Write as _;
use std::path::Path;

/// One season per file, in time order, the seasons sharing players; some games of the second
/// season at the same second as the last of the first.
fn season(year: u32, games: usize) -> String {
    let mut out = String::from("tourney_date,winner_name,loser_name\n");
    for g in 0..games {
        let (w, l) = ((g * 7 + year as usize) % 13, (g * 3 + 5) % 13);
        let (w, l) = if w == l { (w, (l + 1) % 13) } else { (w, l) };
        let day = 1 + g * 28 / games;
        out.push_str(&format!("{year}01{day:02},P{w},P{l}\n"));
    }
    out
}

const WINNER_LOSER: &[&str] = &[
    "--map",
    "time=tourney_date,a=winner_name,b=loser_name",
    "--format",
    "games",
    "--time-format",
    "yyyymmdd",
];

/// A games CSV whose winner is side a: the result column is added by a recipe in the README;
/// here every row is a win of side a.
fn with_result(text: &str) -> String {
    let mut lines = text.lines();
    let mut out = format!("{},result\n", lines.next().unwrap());
    for l in lines {
        out.push_str(&format!("{l},1\n"));
    }
    out
}

/// A CSV without its header.
fn body(text: &str) -> &str {
    text.split_once('\n').unwrap().1
}

fn gzip(bytes: &[u8]) -> Vec<u8> {
    let mut e = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
    e.write_all(bytes).unwrap();
    e.finish().unwrap()
}

fn read(p: &Path) -> String {
    std::fs::read_to_string(p).unwrap()
}

#[test]
fn compressed_files_replay_as_the_text_they_hold() {
    let dir = tempfile::tempdir().unwrap();
    let text = with_result(&(season(2001, 300) + body(&season(2002, 200))));
    let plain = write(dir.path(), "s.csv", &text);
    let gz = dir.path().join("s.csv.gz");
    std::fs::write(&gz, gzip(text.as_bytes())).unwrap();
    let zst = dir.path().join("season-data");
    std::fs::write(&zst, zstd::encode_all(text.as_bytes(), 3).unwrap()).unwrap();
    let out = |n: &str| dir.path().join(n);
    replay_ok(&plain, &out("plain"), WINNER_LOSER);
    replay_ok(&gz, &out("gz"), WINNER_LOSER);
    replay_ok(&zst, &out("zst"), WINNER_LOSER);
    let board = read(&out("plain").join("leaderboard.csv"));
    assert!(board.lines().count() == 14, "{board}");
    assert_eq!(read(&out("gz").join("leaderboard.csv")), board);
    assert_eq!(read(&out("zst").join("leaderboard.csv")), board);
    assert_eq!(
        read(&out("zst").join("history.csv")),
        read(&out("plain").join("history.csv"))
    );
    // Streamed: both passes decompress.
    let mut args = WINNER_LOSER.to_vec();
    args.extend(["--stream", "on", "--stream-block", "10"]);
    replay_ok(&zst, &out("zst-streamed"), &args);
    assert_eq!(read(&out("zst-streamed").join("leaderboard.csv")), board);
    // A zstd PGN, its format told by the name under the compression's.
    let pgn = "[White \"a\"]\n[Black \"b\"]\n[Result \"1-0\"]\n[Date \"2020.01.01\"]\n\n1. e4 1-0\n\n\
               [White \"b\"]\n[Black \"a\"]\n[Result \"1/2-1/2\"]\n[Date \"2020.01.02\"]\n\n1. d4 1/2-1/2\n";
    let p = dir.path().join("games.pgn.zst");
    std::fs::write(&p, zstd::encode_all(pgn.as_bytes(), 3).unwrap()).unwrap();
    // Contest JSON compressed too (a single array file; detected through the compression).
    let json =
        r#"[{"name":"r1","time_seconds":1600000000,"standings":[["x",0,0],["y",1,1],["z",2,2]]}]"#;
    let jz = dir.path().join("contests.json.gz");
    std::fs::write(&jz, gzip(json.as_bytes())).unwrap();
    replay_ok(&jz, &out("json-gz"), &[]);
    assert!(read(&out("json-gz").join("leaderboard.csv")).contains(",x,"));
    let o = replay(&p, &out("pgn"), &[]);
    assert!(o.status.success(), "{}", texts(&o).1);
    let board = read(&out("pgn").join("leaderboard.csv"));
    assert!(board.contains(",a,") && board.contains(",b,"), "{board}");
}

#[test]
fn standard_input_is_read_with_its_format_given() {
    let dir = tempfile::tempdir().unwrap();
    let text = with_result(&season(2001, 100));
    let plain = write(dir.path(), "s.csv", &text);
    let run = |input: &[u8], args: &[&str], out: &Path| {
        let mut all = vec!["replay", "-", "--quiet", "--out", out.to_str().unwrap()];
        all.extend_from_slice(args);
        common::with_stdin(&all, input)
    };
    let (a, b) = (dir.path().join("file"), dir.path().join("stdin"));
    replay_ok(&plain, &a, WINNER_LOSER);
    let o = run(text.as_bytes(), WINNER_LOSER, &b);
    assert!(o.status.success(), "{}", texts(&o).1);
    assert_eq!(
        read(&b.join("leaderboard.csv")),
        read(&a.join("leaderboard.csv"))
    );
    // Compressed on standard input too.
    let c = dir.path().join("stdin-gz");
    let o = run(&gzip(text.as_bytes()), WINNER_LOSER, &c);
    assert!(o.status.success(), "{}", texts(&o).1);
    assert_eq!(
        read(&c.join("leaderboard.csv")),
        read(&a.join("leaderboard.csv"))
    );
    // A PGN that would be read once (`--warmup 0`, as `--preset lichess` sets it): every
    // game rated, none taken by a look at the input's first MiB.
    let games: String = (0..50)
        .map(|k| {
            format!(
                "[White \"w{k}\"]\n[Black \"b{k}\"]\n[Result \"1-0\"]\n[Date \"2020.01.{:02}\"]\n\n\
                 1. e4 1-0\n\n",
                k % 28 + 1
            )
        })
        .collect();
    let g = dir.path().join("stdin-pgn");
    let o = run(games.as_bytes(), &["--format", "pgn", "--warmup", "0"], &g);
    assert!(o.status.success(), "{}", texts(&o).1);
    assert_eq!(read(&g.join("leaderboard.csv")).lines().count(), 1 + 100);
    // Without --format: said, not guessed.
    let o = run(text.as_bytes(), &[], &dir.path().join("x"));
    assert_eq!(o.status.code(), Some(1));
    assert!(texts(&o).1.contains("pass --format"), "{}", texts(&o).1);
    // Streaming needs a file: standard input cannot be read twice.
    let mut args = WINNER_LOSER.to_vec();
    args.extend(["--stream", "on"]);
    let o = run(text.as_bytes(), &args, &dir.path().join("y"));
    assert_eq!(o.status.code(), Some(2));
    assert!(texts(&o).1.contains("standard input"), "{}", texts(&o).1);
}

#[test]
fn several_files_and_a_folder_read_as_one_history_in_time_order() {
    let dir = tempfile::tempdir().unwrap();
    let seasons = dir.path().join("seasons");
    std::fs::create_dir(&seasons).unwrap();
    // Given in the wrong order, the files' contests are still merged by time.
    let y1 = write(&seasons, "atp_1999.csv", &with_result(&season(1999, 120)));
    let y2 = write(&seasons, "atp_2000.csv", &with_result(&season(2000, 150)));
    let y3 = dir.path().join("atp_2001.csv.gz");
    std::fs::write(&y3, gzip(with_result(&season(2001, 90)).as_bytes())).unwrap();
    std::fs::copy(&y3, seasons.join("atp_2001.csv.gz")).unwrap();
    write(&seasons, "README.md", "not data");
    write(&seasons, ".hidden.csv", "not read");
    let all = {
        let mut t = with_result(&season(1999, 120));
        t.push_str(body(&with_result(&season(2000, 150))));
        t.push_str(body(&with_result(&season(2001, 90))));
        write(dir.path(), "all.csv", &t)
    };
    let out = |n: &str| dir.path().join(n);
    replay_ok(&all, &out("one"), WINNER_LOSER);
    let mut args = vec![
        "replay",
        y2.to_str().unwrap(),
        y1.to_str().unwrap(),
        y3.to_str().unwrap(),
        "--quiet",
        "--out",
    ];
    let many = out("many");
    args.push(many.to_str().unwrap());
    args.extend_from_slice(WINNER_LOSER);
    let o = common::rate_batch(&args);
    assert!(o.status.success(), "{}", texts(&o).1);
    let board = read(&out("one").join("leaderboard.csv"));
    assert_eq!(read(&many.join("leaderboard.csv")), board);
    assert_eq!(
        read(&many.join("history.csv")),
        read(&out("one").join("history.csv"))
    );
    let metrics = read(&many.join("metrics.json"));
    assert!(metrics.contains("\"files\": 3"), "{metrics}");
    // A folder of them, in name order (which is time order here): streamed as well.
    replay_ok(&seasons, &out("folder"), WINNER_LOSER);
    assert_eq!(read(&out("folder").join("leaderboard.csv")), board);
    let mut streamed = WINNER_LOSER.to_vec();
    streamed.extend(["--stream", "on", "--stream-block", "16"]);
    replay_ok(&seasons, &out("folder-streamed"), &streamed);
    assert_eq!(read(&out("folder-streamed").join("leaderboard.csv")), board);
    // Out of order across files, a stream refuses, naming the file and line.
    let mut args = vec![
        "replay",
        y2.to_str().unwrap(),
        y1.to_str().unwrap(),
        "--out",
    ];
    let x = out("x");
    args.push(x.to_str().unwrap());
    args.extend_from_slice(&streamed);
    let o = common::rate_batch(&args);
    assert_eq!(o.status.code(), Some(1));
    let err = texts(&o).1;
    assert!(
        err.contains("atp_1999.csv, line 2") && err.contains("not in time order"),
        "{err}"
    );
    // A bad row in the fourth file: the error names that file and its line.
    let bad = write(
        &seasons,
        "atp_2002.csv",
        "tourney_date,winner_name,loser_name,result\n20020105,P1,P2,1\n2002-13-45,P1,P3,1\n",
    );
    let o = replay(&seasons, &out("bad"), WINNER_LOSER);
    assert_eq!(o.status.code(), Some(1));
    let err = texts(&o).1;
    assert!(
        err.contains(&format!("{}, line 3", bad.display())) && err.contains("tourney_date"),
        "{err}"
    );
}

/// Compressed data that does not decompress (cut short midway) is a bad input, exit 1, for
/// every format and reading (whole, streamed): never the I/O failure's exit 3.
#[test]
fn damaged_compressed_data_is_a_bad_input() {
    let dir = tempfile::TempDir::new().unwrap();
    let pgn = "[Event \"x\"]\n[Date \"2020.01.01\"]\n[White \"a\"]\n[Black \"b\"]\n\
               [Result \"1-0\"]\n\n1. e4 1-0\n\n"
        .repeat(20_000);
    let mut csv = String::from("time,a,b,result\n");
    for i in 0..100_000 {
        csv.push_str(&format!(
            "2020-01-{:02},p{},q{},1\n",
            1 + i % 28,
            i % 97,
            i % 89
        ));
    }
    for (name, text) in [("g.pgn.gz", &pgn), ("g.csv.gz", &csv), ("g.pgn.zst", &pgn)] {
        let whole = if name.ends_with(".gz") {
            let mut e = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
            e.write_all(text.as_bytes()).unwrap();
            e.finish().unwrap()
        } else {
            zstd::encode_all(text.as_bytes(), 1).unwrap()
        };
        let path = dir.path().join(name);
        std::fs::write(&path, &whole[..whole.len() / 2]).unwrap();
        for how in [&["--dry-run"][..], &["--stream", "on"], &[]] {
            let o = replay(&path, &dir.path().join("out"), how);
            let (_, stderr) = texts(&o);
            assert_eq!(o.status.code(), Some(1), "{name} {how:?}: {stderr}");
            assert!(stderr.contains("damaged or cut short"), "{stderr}");
            assert!(!dir.path().join("out").exists());
        }
    }
}
