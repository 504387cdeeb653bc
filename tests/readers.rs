//! Every reader: a good file, and each kind of bad input named in the issue, with the error's
//! file, place and field.

// Exception to clippy::too_many_lines: a test here is one scenario with its table of
// cases and its checks, read top to bottom; cut into pieces it would only scatter.
#![allow(clippy::too_many_lines)]

mod common;

use common::write;
use rate_batch::history::History;
use rate_batch::ingest::{
    ColumnMap, Format, IngestOptions, InputError, Location, TeamSeparator, ingest,
};
use std::path::Path;
use tempfile::TempDir;

fn opts() -> IngestOptions {
    IngestOptions::default()
}

fn read_with(
    dir: &TempDir,
    name: &str,
    text: &str,
    o: &IngestOptions,
) -> Result<History, InputError> {
    let p = write(dir.path(), name, text);
    ingest(&p, o).map_err(|e| match e.downcast::<InputError>() {
        Ok(ie) => ie,
        Err(other) => panic!("not an input error: {other:#}"),
    })
}

fn read(name: &str, text: &str) -> Result<History, InputError> {
    let dir = TempDir::new().unwrap();
    read_with(&dir, name, text, &opts())
}

/// The error of a file given as raw bytes (not UTF-8).
fn err_bytes(name: &str, bytes: &[u8]) -> InputError {
    let dir = TempDir::new().unwrap();
    let p = dir.path().join(name);
    std::fs::write(&p, bytes).unwrap();
    match ingest(&p, &opts()) {
        Ok(_) => panic!("{name} was accepted"),
        Err(e) => match e.downcast::<InputError>() {
            Ok(ie) => ie,
            Err(other) => panic!("not an input error: {other:#}"),
        },
    }
}

fn err(name: &str, text: &str) -> InputError {
    match read(name, text) {
        Ok(_) => panic!("{name} was accepted"),
        Err(e) => e,
    }
}

/// (names of entry players, lo, hi) of every contest, in order.
fn contests(h: &History) -> Vec<Vec<(Vec<String>, u32, u32)>> {
    h.contests()
        .map(|c| {
            c.entries()
                .map(|e| {
                    (
                        e.players.iter().map(|&p| h.name(p).to_string()).collect(),
                        e.lo,
                        e.hi,
                    )
                })
                .collect()
        })
        .collect()
}

fn names(list: &[&str]) -> Vec<String> {
    list.iter().map(std::string::ToString::to_string).collect()
}

fn assert_error(
    e: &InputError,
    file_suffix: &str,
    at: Location,
    field: Option<&str>,
    contains: &str,
) {
    assert!(e.file.ends_with(file_suffix), "file {} in {e}", e.file);
    assert_eq!(e.at, at, "{e}");
    assert_eq!(e.field.as_deref(), field, "{e}");
    assert!(e.message.contains(contains), "`{contains}` not in: {e}");
    assert!(!e.to_string().contains('\n'), "one line: {e}");
}

// ---------------------------------------------------------------- games CSV

#[test]
fn games_csv_with_results_sorted_stably_by_time() {
    let h = read(
        "g.csv",
        "time,a,b,result\n\
         2021-01-01,Alice,Bob,1-0\n\
         2021-01-02T10:00:00Z,Bob,Carol,1/2-1/2\n\
         2021-01-01 12:00,Carol,Alice,0\n\
         2021-01-01,Dan,Eve,W\n",
    )
    .unwrap();
    assert_eq!(h.len(), 4);
    assert_eq!(h.player_count(), 5);
    let c = contests(&h);
    assert_eq!(
        c[0],
        vec![(names(&["Alice"]), 0, 0), (names(&["Bob"]), 1, 1)]
    );
    assert_eq!(c[1][0].0, names(&["Dan"]), "equal times keep file order");
    assert_eq!(
        c[2],
        vec![(names(&["Carol"]), 1, 1), (names(&["Alice"]), 0, 0)]
    );
    assert_eq!(
        c[3],
        vec![(names(&["Bob"]), 0, 1), (names(&["Carol"]), 0, 1)]
    );
    assert_eq!(h.contest(3).time(), 1_609_581_600);
    assert_eq!(h.source.records, 4);
}

#[test]
fn games_csv_with_scores_winner_series_weight_teams_and_quotes() {
    let h = read(
        "s.csv",
        "time,a,b,score_a,score_b,weight\n2020-05-01,Home,Away,3,3,2\n2020-05-02,Away,Home,0,1,1\n",
    )
    .unwrap();
    let c = h.contest(0);
    assert_eq!(
        (c.entry(0).lo, c.entry(0).hi, c.entry(0).score),
        (0, 1, Some(3.0))
    );
    assert_eq!(c.weight(), 2.0);
    assert_eq!(
        (h.contest(1).entry(1).lo, h.contest(1).entry(1).score),
        (0, Some(1.0))
    );

    let h = read(
        "w.csv",
        "time,a,b,winner,series\n\
         2021-10-05T11:09:00Z,\"Smith, J\",Bob,\"Smith, J\",S1\n\
         2021-10-05T12:00:00Z,Bob,\"Smith, J\",,S1\n\
         2021-10-05T13:00:00Z,Ann+Ben,Cid + Dan,Cid + Dan,\n",
    )
    .unwrap();
    let c = contests(&h);
    assert_eq!(c[0][0], (names(&["Smith, J"]), 0, 0));
    assert_eq!(c[1][0], (names(&["Bob"]), 0, 1), "empty winner is a draw");
    assert_eq!(c[2][0], (names(&["Ann", "Ben"]), 1, 1));
    assert_eq!(c[2][1], (names(&["Cid", "Dan"]), 0, 0));
    assert_eq!(h.contest(0).series(), h.contest(1).series());
    assert_eq!(h.series_name(h.contest(0).series().unwrap()), "S1");
    assert_eq!(h.contest(2).series(), None);
}

#[test]
fn games_csv_map_team_separator_and_delimiters() {
    let dir = TempDir::new().unwrap();
    let o = IngestOptions {
        map: ColumnMap::parse("a=home_team,b=away_team,score_a=hg,score_b=ag,time=date").unwrap(),
        format: Some(Format::Games),
        team_separator: TeamSeparator::None,
        ..opts()
    };
    let h = read_with(
        &dir,
        "m.csv",
        "date;home_team;away_team;hg;ag\n2020-01-01;C++ Bot;Rust+Bot;1;2\n",
        &o,
    )
    .unwrap();
    assert_eq!(
        contests(&h)[0],
        vec![(names(&["C++ Bot"]), 1, 1), (names(&["Rust+Bot"]), 0, 0)]
    );
}

#[test]
fn games_csv_bad_inputs_name_file_line_and_field() {
    let head = "time,a,b,result\n2021-01-01,A,B,1\n";
    let e = err("t.csv", &format!("{head}2021-13-01,A,B,1\n"));
    assert_error(
        &e,
        "t.csv",
        Location::Line(3),
        Some("time"),
        "malformed time `2021-13-01`",
    );
    let e = err("r.csv", &format!("{head}2021-01-02,A,B,2-0\n"));
    assert_error(
        &e,
        "r.csv",
        Location::Line(3),
        Some("result"),
        "unknown result `2-0`",
    );
    let e = err("p.csv", &format!("{head}2021-01-02,,B,1\n"));
    assert_error(
        &e,
        "p.csv",
        Location::Line(3),
        Some("a"),
        "empty player name",
    );
    let e = err("h.csv", &format!("{head}2021-01-02,A,A,1\n"));
    assert_error(
        &e,
        "h.csv",
        Location::Line(3),
        Some("b"),
        "plays against himself",
    );
    let e = err("tm.csv", &format!("{head}2021-01-02,A+C,B+A,1\n"));
    assert_error(
        &e,
        "tm.csv",
        Location::Line(3),
        Some("b"),
        "plays against himself",
    );
    let e = err("e.csv", &format!("{head}2021-01-02,A+,B,1\n"));
    assert_error(
        &e,
        "e.csv",
        Location::Line(3),
        Some("a"),
        "empty player name in team",
    );
    let e = err("m.csv", "time,a,b\n2021-01-01,A,B\n");
    assert_error(
        &e,
        "m.csv",
        Location::Line(1),
        Some("result"),
        "missing column",
    );
    let e = err("m2.csv", "time,a,result\n2021-01-01,A,1\n");
    assert_error(&e, "m2.csv", Location::Line(1), Some("b"), "missing column");
    let e = err("w.csv", "time,a,b,winner\n2021-01-01,A,B,C\n");
    assert_error(
        &e,
        "w.csv",
        Location::Line(2),
        Some("winner"),
        "neither side a",
    );
    let e = err("s.csv", "time,a,b,score_a,score_b\n2021-01-01,A,B,-1,2\n");
    assert_error(
        &e,
        "s.csv",
        Location::Line(2),
        Some("score_a"),
        "not a non-negative number",
    );
    let e = err("s.csv", "time,a,b,score_a,score_b\n2021-01-01,A,B,1,NaN\n");
    assert_error(
        &e,
        "s.csv",
        Location::Line(2),
        Some("score_b"),
        "not a non-negative number",
    );
    // Scores are bounded (1e15 at most): a larger one is refused on the same path, so
    // --skip-invalid skips it like any bad row.
    let huge = "time,a,b,score_a,score_b\n2021-01-01,A,B,2e15,1\n2021-01-02,A,B,1e15,0\n";
    let e = err("s.csv", huge);
    assert_error(
        &e,
        "s.csv",
        Location::Line(2),
        Some("score_a"),
        "score `2e15` is too large (at most 1e15)",
    );
    let dir = TempDir::new().unwrap();
    let skip = IngestOptions {
        skip_invalid: true,
        ..opts()
    };
    let h = read_with(&dir, "s.csv", huge, &skip).unwrap();
    assert_eq!((h.len(), h.source.skipped_invalid), (1, 1));
    let e = err("f.csv", &format!("{head}2021-01-02,A,B\n"));
    assert_error(
        &e,
        "f.csv",
        Location::Line(3),
        None,
        "3 fields, the header has 4",
    );
    let e = err("wt.csv", "time,a,b,result,weight\n2021-01-01,A,B,1,0\n");
    assert_error(
        &e,
        "wt.csv",
        Location::Line(2),
        Some("weight"),
        "not a number within [1e-6, 1e6]",
    );
    // A weight no system can compute with (1e308 made Elo-MMR and Topcoder fail) is refused.
    let e = err(
        "wt2.csv",
        "time,a,b,result,weight\n2021-01-01,A,B,1,1\n2021-01-02,A,B,1,1e308\n",
    );
    assert_error(
        &e,
        "wt2.csv",
        Location::Line(3),
        Some("weight"),
        "not a number within [1e-6, 1e6]",
    );
}

#[test]
fn quoted_newlines_keep_line_numbers_exact() {
    let e = err(
        "q.csv",
        "time,a,b,result\n2021-01-01,\"A\nB\",C,1\n2021-01-02,A,C,x\n",
    );
    assert_error(
        &e,
        "q.csv",
        Location::Line(4),
        Some("result"),
        "unknown result `x`",
    );
    // CRLF line ends and runs of blank lines: still the physical line (the csv crate's own
    // count is one short per CRLF and skips blank lines).
    for (name, text) in [
        (
            "crlf.csv",
            "time,a,b,result\r\n2021-01-01,A,B,1\r\n2021-01-02,A,C,x\r\n",
        ),
        (
            "blank.csv",
            "time,a,b,result\n\n2021-01-01,A,B,1\n\n\n\n2021-01-02,A,C,x\n",
        ),
        (
            "both.csv",
            "time,a,b,result\r\n\r\n2021-01-01,A,B,1\r\n\r\n2021-01-02,A,C,x\r\n",
        ),
    ] {
        let line = text
            .split_inclusive('\n')
            .position(|l| l.contains(",x"))
            .unwrap()
            + 1;
        assert_error(
            &err(name, text),
            name,
            Location::Line(line as u64),
            Some("result"),
            "unknown result `x`",
        );
    }
    // A column named twice is ambiguous.
    assert_error(
        &err("dup.csv", "time,a,b,A,result\n2021-01-01,x,y,z,1\n"),
        "dup.csv",
        Location::Line(1),
        None,
        "column `A` appears twice",
    );
    // A byte that is not UTF-8 is named by its column.
    assert_error(
        &err_bytes(
            "u.csv",
            b"time,a,b,result\n2021-01-01,A,B,1\n2021-01-02,\xff,C,1\n",
        ),
        "u.csv",
        Location::Line(3),
        Some("a"),
        "invalid UTF-8",
    );
}

/// A compressed file, an archive or UTF-16 text given as a CSV or PGN is named for what it
/// looks like, not reported as invalid UTF-8 (or read as Latin-1 junk); an empty file says so;
/// a header listed in an error is cut short when it is long.
#[test]
fn compressed_empty_and_wide_inputs_say_what_they_are() {
    // The first bytes of `gzip -c` of a games CSV, cut short: the decoder's error names the
    // file and says what is wrong.
    let gz = b"\x1f\x8b\x08\x00\x00\x00\x00\x00\x00\x03\x2b\xc9\xcc\x4d\xd5\x49\x04\x00";
    let dir = TempDir::new().unwrap();
    let games = IngestOptions {
        format: Some(Format::Games),
        ..opts()
    };
    let in_dir = |name: &str, bytes: &[u8], o: &IngestOptions| {
        let p = dir.path().join(name);
        std::fs::write(&p, bytes).unwrap();
        ingest(&p, o).unwrap_err().downcast::<InputError>().unwrap()
    };
    for name in ["g.csv", "g.pgn", "g.gz"] {
        let p = dir.path().join(name);
        std::fs::write(&p, gz).unwrap();
        let e = ingest(&p, &games).unwrap_err();
        let text = format!("{e:#}");
        assert!(
            text.contains(name) && text.contains("gzip data is damaged or cut short"),
            "{text}"
        );
    }
    // Whole, it reads as the text it holds, whatever the name.
    let text = "time,a,b,result\n2021-01-01,x,y,1\n2021-01-02,y,z,0.5\n";
    let mut e = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
    std::io::Write::write_all(&mut e, text.as_bytes()).unwrap();
    let p = dir.path().join("whole.gz");
    std::fs::write(&p, e.finish().unwrap()).unwrap();
    let h = ingest(&p, &games).unwrap();
    assert_eq!((h.len(), h.player_count()), (2, 3));
    let utf16 = b"\xff\xfet\x00i\x00m\x00e\x00,\x00a\x00\n\x00";
    let e = in_dir("u16.csv", utf16, &games);
    assert!(e.message.contains("UTF-16"), "{e}");
    assert!(!e.message.contains("invalid UTF-8"), "{e}");
    // An empty file, with the format detected or given.
    for o in [&opts(), &games] {
        assert_error(
            &in_dir("empty.csv", b"", o),
            "empty.csv",
            Location::File,
            None,
            "empty file: no header",
        );
    }
    // A header of 300 columns without the games format's: its listing is cut near 200
    // characters, with the count of the columns not shown.
    let header: Vec<String> = (0..300).map(|k| format!("column{k:03}")).collect();
    let text = format!("{}\n", header.join(","));
    let e = in_dir("wide.csv", text.as_bytes(), &opts());
    assert!(e.message.contains("cannot tell the format"), "{e}");
    assert!(e.message.contains("column000, column001, "), "{e}");
    assert!(e.message.contains(", … (282 more columns)"), "{e}");
    assert!(!e.message.contains("column299"), "{e}");
    let e = in_dir("wide.csv", text.as_bytes(), &games);
    assert!(e.message.contains("missing column"), "{e}");
    assert!(e.message.contains("… (282 more columns)"), "{e}");
}

#[test]
fn skip_invalid_counts_and_keeps_the_rest() {
    let dir = TempDir::new().unwrap();
    let o = IngestOptions {
        skip_invalid: true,
        ..opts()
    };
    let h = read_with(
        &dir,
        "k.csv",
        "time,a,b,result\n2021-01-01,A,B,1\nnot a time,A,B,1\n2021-01-03,A,A,1\n2021-01-04,B,C,?\n2021-01-05,C,A,0.5\n",
        &o,
    )
    .unwrap();
    assert_eq!(h.len(), 2);
    assert_eq!(h.source.skipped_invalid, 3);
    assert_eq!(h.source.records, 5);
    assert!(h.source.skipped_examples[0].contains("line 3"));
}

#[test]
fn bom_crlf_and_blank_lines() {
    let h = read(
        "b.csv",
        "\u{feff}time,a,b,result\r\n2021-01-01,A,B,1\r\n\r\n2021-01-02,B,A,1\r\n",
    )
    .unwrap();
    assert_eq!(h.len(), 2);
}

/// Runs `rate-batch replay /dev/stdin ARGS...` with `text` piped into its standard input.
fn replay_piped(text: &str, args: &[&str]) -> std::process::Output {
    let all: Vec<&str> = ["replay", "/dev/stdin"]
        .iter()
        .chain(args)
        .copied()
        .collect();
    common::with_stdin(&all, text.as_bytes())
}

/// A CSV piped in through `/dev/stdin` is read as the file itself: the header sniffed for the
/// delimiter is not lost to a second open of the pipe. Without `--format` a pipe is refused
/// (its header cannot be looked at first), not misread.
#[test]
fn a_piped_csv_reads_as_the_file() {
    let dir = TempDir::new().unwrap();
    let text = "date;home;away;hs;as\n2021-01-01;A;B;2;1\n2021-01-02;B;C;0;0\n\
                2021-01-03;C;A;1;3\n2021-01-04;A;C;0;2\n";
    let file = write(dir.path(), "g.csv", text);
    let args = [
        "--format",
        "games",
        "--map",
        "a=home,b=away,score_a=hs,score_b=as,time=date",
    ];
    let (from_file, from_pipe) = (dir.path().join("file"), dir.path().join("pipe"));
    common::replay_ok(&file, &from_file, &args);
    let o = replay_piped(
        text,
        &[
            &args[..],
            &["--quiet", "--out", from_pipe.to_str().unwrap()],
        ]
        .concat(),
    );
    assert!(o.status.success(), "{}", common::texts(&o).1);
    for f in ["leaderboard.csv", "history.csv"] {
        let (x, y) = (
            std::fs::read_to_string(from_file.join(f)).unwrap(),
            std::fs::read_to_string(from_pipe.join(f)).unwrap(),
        );
        assert!(x.lines().count() > 2, "{f}: {x}");
        assert_eq!(x, y, "{f}");
    }
    // Every game was read: A won 2 of 3, C won, drew and lost one, B drew and lost.
    let board: Vec<Vec<String>> = common::read_csv(&from_pipe.join("leaderboard.csv"))
        .into_iter()
        .skip(1)
        .map(|r| {
            vec![
                r[1].clone(),
                r[5].clone(),
                r[6].clone(),
                r[7].clone(),
                r[8].clone(),
            ]
        })
        .collect();
    assert_eq!(
        board,
        [
            ["A", "3", "2", "0", "1"],
            ["C", "3", "1", "1", "1"],
            ["B", "2", "0", "1", "1"]
        ]
    );
    let o = replay_piped(text, &["--out", dir.path().join("auto").to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(1));
    assert!(
        common::texts(&o)
            .1
            .contains("/dev/stdin: cannot detect the format of a pipe: pass --format"),
        "{}",
        common::texts(&o).1
    );
}

/// An explicit `--time-format` refuses a value of another form with an error naming the
/// line, the field and that format: a 4-byte time under rfc3339 once indexed past its end.
#[test]
fn explicit_time_formats_name_themselves_in_errors() {
    use rate_batch::ingest::time::TimeFormat;
    let dir = TempDir::new().unwrap();
    let with = |format: TimeFormat, good: &str, time: &str| {
        let o = IngestOptions {
            time_format: format,
            ..opts()
        };
        let text = format!("time,a,b,result\n{good},A,B,1\n{time},A,B,1\n");
        match read_with(&dir, "t.csv", &text, &o) {
            Ok(_) => panic!("{time} was accepted"),
            Err(e) => e,
        }
    };
    let rfc = "2021-01-01T00:00:00Z";
    for (format, good, time) in [
        (TimeFormat::Rfc3339, rfc, "2021"),
        (TimeFormat::Rfc3339, rfc, "2021-13-05T11:09:00Z"),
        (TimeFormat::Date, "2021-01-01", "2021-13-05"),
    ] {
        let name = format.to_string();
        let e = with(format, good, time);
        assert_error(
            &e,
            "t.csv",
            Location::Line(3),
            Some("time"),
            &format!("--time-format {name}"),
        );
        assert!(!e.message.contains("names another form"), "{e}");
    }
}

// ---------------------------------------------------------------- standings CSV

#[test]
fn standings_csv_with_ties_teams_and_scattered_rows() {
    let h = read(
        "st.csv",
        "contest,time,player,rank,team\n\
         c2,2021-02-01,x,2,\n\
         c1,2021-01-01,a,1,red\n\
         c1,2021-01-01,b,1,red\n\
         c1,2021-01-01,c,3,\n\
         c1,2021-01-01,d,3,\n\
         c2,2021-02-01,y,1,\n\
         c1,2021-01-01,e,2,blue\n",
    )
    .unwrap();
    assert_eq!(h.len(), 2);
    let c = contests(&h);
    // c1: red (rank 1) alone first, blue (2) second, c and d tied 3rd-4th.
    assert_eq!(
        c[0],
        vec![
            (names(&["a", "b"]), 0, 0),
            (names(&["c"]), 2, 3),
            (names(&["d"]), 2, 3),
            (names(&["e"]), 1, 1)
        ]
    );
    assert_eq!(c[1], vec![(names(&["x"]), 1, 1), (names(&["y"]), 0, 0)]);
    assert_eq!(h.contest(0).label(), Some("c1"));
}

#[test]
fn standings_bad_inputs() {
    let head = "contest,time,player,rank\nc1,2021-01-01,a,1\n";
    for bad in ["0", "-1", "1.5", "x", ""] {
        let e = err("r.csv", &format!("{head}c1,2021-01-01,b,{bad}\n"));
        assert_error(
            &e,
            "r.csv",
            Location::Line(3),
            Some("rank"),
            "is not a positive integer",
        );
    }
    let e = err("d.csv", &format!("{head}c1,2021-01-01,a,2\n"));
    assert_error(
        &e,
        "d.csv",
        Location::Line(3),
        Some("player"),
        "appears twice in contest `c1`",
    );
    let e = err("t.csv", &format!("{head}c1,2021-01-02,b,2\n"));
    assert_error(
        &e,
        "t.csv",
        Location::Line(3),
        Some("time"),
        "another time on its first row (line 2)",
    );
    let e = err("p.csv", &format!("{head}c1,2021-01-01,,2\n"));
    assert_error(
        &e,
        "p.csv",
        Location::Line(3),
        Some("player"),
        "empty player name",
    );
    let e = err("m.csv", "contest,time,player\nc1,2021-01-01,a\n");
    assert_error(
        &e,
        "m.csv",
        Location::Line(1),
        Some("rank"),
        "missing column",
    );
    let e = err("m2.csv", "contest,time,name,rank\nc1,2021-01-01,a,1\n");
    assert_error(
        &e,
        "m2.csv",
        Location::Line(1),
        Some("player"),
        "missing column",
    );
    let e = err("m3.csv", "id,when,who\nc1,2021-01-01,a\n");
    assert_error(
        &e,
        "m3.csv",
        Location::Line(1),
        None,
        "cannot tell the format",
    );
    let e = err(
        "tm.csv",
        "contest,time,player,rank,team\nc1,2021-01-01,a,1,t\nc1,2021-01-01,b,2,t\n",
    );
    assert_error(
        &e,
        "tm.csv",
        Location::Line(3),
        Some("rank"),
        "differs from rank 1 of team `t`",
    );
    let e = err("one.csv", "contest,time,player,rank\nc1,2021-01-01,a,1\n");
    assert!(matches!(e.at, Location::Contest(_)), "{e}");
    assert!(e.message.contains("at least two entries"), "{e}");
}

// ---------------------------------------------------------------- contest JSON

fn contest_json(name: &str, t: i64, standings: &str) -> String {
    format!(r#"{{"name":"{name}","url":"u","time_seconds":{t},"standings":[{standings}]}}"#)
}

#[test]
fn json_folder_orders_by_time_then_number() {
    let dir = TempDir::new().unwrap();
    let d = dir.path();
    write(
        d,
        "0.json",
        &contest_json("zero", 100, r#"["a",0,0],["b",1,2],["c",1,2]"#),
    );
    write(
        d,
        "1.json",
        &contest_json("one", 400, r#"["a",0,0],["b",1,1]"#),
    );
    write(
        d,
        "2.json",
        &contest_json("two", 300, r#"["b",0,0],["c",1,1]"#),
    );
    write(
        d,
        "10.json",
        &contest_json("ten", 300, r#"["c",0,0],["a",1,1]"#),
    );
    write(d, "all_contests.csv", "name,url\n");
    write(d, "notes.json", "not json at all");
    let h = ingest(d, &opts()).unwrap();
    let labels: Vec<&str> = h.contests().map(|c| c.label().unwrap()).collect();
    assert_eq!(labels, ["zero", "two", "ten", "one"]);
    assert_eq!(contests(&h)[0][1], (names(&["b"]), 1, 2));
    assert_eq!(h.source.records, 4);
}

#[test]
fn json_array_file() {
    let text = format!(
        "[{},\n{}]",
        contest_json("late", 9, r#"["a",0,0],["b",1,1]"#),
        contest_json("early", 5, r#"["b",0,1],["a",0,1]"#)
    );
    let h = read("all.json", &text).unwrap();
    let labels: Vec<&str> = h.contests().map(|c| c.label().unwrap()).collect();
    assert_eq!(labels, ["early", "late"]);
    assert_eq!(contests(&h)[0][0], (names(&["b"]), 0, 1));
}

#[test]
fn json_bad_inputs() {
    let dir = TempDir::new().unwrap();
    let d = dir.path();
    write(
        d,
        "0.json",
        &contest_json("ok", 1, r#"["a",0,0],["b",1,1]"#),
    );
    let full = contest_json("cut", 2, r#"["a",0,0],["b",1,1]"#);
    write(d, "1.json", &full[..full.len() - 9]);
    let e = ingest(d, &opts())
        .unwrap_err()
        .downcast::<InputError>()
        .unwrap();
    assert!(e.file.ends_with("1.json"), "{e}");
    assert!(matches!(e.at, Location::Line(1)), "{e}");
    assert!(e.message.contains("truncated JSON"), "{e}");
    // Skipped and counted under --skip-invalid.
    let o = IngestOptions {
        skip_invalid: true,
        ..opts()
    };
    let h = ingest(d, &o).unwrap();
    assert_eq!((h.len(), h.source.skipped_invalid), (1, 1));
    // Place ranges that overlap without being the same tie are refused.
    let e = err(
        "overlap.json",
        &format!("[{}]", contest_json("o", 3, r#"["x",0,1],["y",0,0]"#)),
    );
    assert!(
        e.message.contains("place ranges 0..0 and 0..1 overlap"),
        "{e}"
    );
    assert_eq!(e.field.as_deref(), Some("standings"));

    let e = err(
        "dup.json",
        &format!("[{}]", contest_json("d", 1, r#"["a",0,0],["a",1,1]"#)),
    );
    assert_error(
        &e,
        "dup.json",
        Location::Contest("#0 (d)".into()),
        Some("standings[1]"),
        "player `a` appears twice in the contest",
    );
    let e = err(
        "rng.json",
        &format!("[{}]", contest_json("r", 1, r#"["a",1,0],["b",1,1]"#)),
    );
    assert_error(
        &e,
        "rng.json",
        Location::Contest("#0 (r)".into()),
        Some("standings[0]"),
        "not a valid 0-based range",
    );
    let e = err(
        "empty.json",
        &format!("[{}]", contest_json("r", 1, r#"["",0,0],["b",1,1]"#)),
    );
    assert_error(
        &e,
        "empty.json",
        Location::Contest("#0 (r)".into()),
        Some("standings[0]"),
        "empty player name",
    );
    let e = err("field.json", r#"[{"name":"x","standings":[]}]"#);
    assert!(e.message.contains("missing field `time_seconds`"), "{e}");
    let empty = TempDir::new().unwrap();
    let e = ingest(empty.path(), &opts())
        .unwrap_err()
        .downcast::<InputError>()
        .unwrap();
    assert!(e.message.contains("no contest files"), "{e}");
}

// ---------------------------------------------------------------- names

/// Names are kept exactly as given in every reader: a name made of one U+00A0, and names
/// that differ only by a trailing tab or space, are distinct players and no contest is refused
/// (CTF standings in the Elo-MMR format have both); `--trim-names` removes the padding, but a
/// name of spaces stays a name. The summary counts the padded names.
#[test]
fn names_with_unicode_spaces_tabs_and_padding_in_every_reader() {
    let nbsp = "\u{a0}";
    let expect = |h: &History| {
        let mut n: Vec<String> = h.names().to_vec();
        n.sort();
        assert_eq!(n, names(&["Foo", "Foo\t", "bar ", nbsp]), "{:?}", h.names());
        assert_eq!(h.len(), 2);
        assert_eq!(h.source.names_padded, 3, "Foo\\t, bar and the NBSP");
        assert_eq!(h.source.names_equal_when_trimmed, 1);
        assert_eq!(
            h.source.names_equal_example,
            Some(("Foo".to_string(), "Foo\t".to_string()))
        );
    };
    // Contest JSON: one contest with all four.
    let json = format!(
        "[{}, {}]",
        contest_json(
            "ctf",
            1,
            &format!(r#"["{nbsp}",0,0],["Foo",1,1],["Foo\t",2,2],["bar ",3,3]"#)
        ),
        contest_json("ctf2", 2, r#"["Foo\t",0,0],["Foo",1,1]"#)
    );
    let h = read("ctf.json", &json).unwrap();
    expect(&h);
    assert_eq!(h.contest(0).len(), 4);
    // Standings CSV (quoted and unquoted padding).
    let h = read(
        "s.csv",
        &format!(
            "contest,time,player,rank\nc,2021-01-01,{nbsp},1\nc,2021-01-01,Foo,2\n\
             c,2021-01-01,\"Foo\t\",3\nc,2021-01-01,bar ,4\nd,2021-01-02,Foo\t,1\nd,2021-01-02,Foo,2\n"
        ),
    )
    .unwrap();
    expect(&h);
    // Games CSV, PGN.
    let h = read(
        "g.csv",
        &format!("time,a,b,result\n2021-01-01,{nbsp},Foo,1\n2021-01-02,Foo\t,bar ,0\n"),
    )
    .unwrap();
    expect(&h);
    let pgn = format!(
        "[White \"{nbsp}\"]\n[Black \"Foo\"]\n[Date \"2021.01.01\"]\n[Result \"1-0\"]\n\n\
         [White \"Foo\t\"]\n[Black \"bar \"]\n[Date \"2021.01.02\"]\n[Result \"0-1\"]\n"
    );
    let h = read("g.pgn", &pgn).unwrap();
    expect(&h);
    // --trim-names: the padding goes, the NBSP name stays, Foo and Foo\t are one player (in
    // one contest they are then refused as a duplicate, which is why it is not the default).
    let dir = TempDir::new().unwrap();
    let trim = IngestOptions {
        trim_names: true,
        ..opts()
    };
    let h = read_with(
        &dir,
        "g.csv",
        &format!("time,a,b,result\n2021-01-01,{nbsp},Foo,1\n2021-01-02,Foo\t,bar ,0\n"),
        &trim,
    )
    .unwrap();
    let mut n = h.names().to_vec();
    n.sort();
    assert_eq!(n, names(&["Foo", "bar", nbsp]));
    assert_eq!(h.source.names_padded, 1, "the NBSP name, which stays");
    let e = read_with(&dir, "c.json", &json, &trim).unwrap_err();
    assert!(e.message.contains("`Foo` appears twice"), "{e}");
}

/// Under --skip-invalid a bad placing of a contest JSON is skipped, not the contest: the rest
/// keep their order, renumbered.
#[test]
fn skip_invalid_drops_a_placing_not_the_contest() {
    let dir = TempDir::new().unwrap();
    let o = IngestOptions {
        skip_invalid: true,
        ..opts()
    };
    let json = format!(
        "[{}]",
        contest_json(
            "c",
            1,
            r#"["a",0,0],["",1,1],["b",2,3],["c",2,3],["a",4,4],["d",5,5]"#
        )
    );
    let h = read_with(&dir, "c.json", &json, &o).unwrap();
    assert_eq!(
        h.source.skipped_invalid, 2,
        "the empty name and the second `a`"
    );
    assert_eq!(
        contests(&h)[0],
        vec![
            (names(&["a"]), 0, 0),
            (names(&["b"]), 1, 2),
            (names(&["c"]), 1, 2),
            (names(&["d"]), 3, 3)
        ]
    );
    // Overlapping ranges leave the contest ill-defined: it is skipped whole, and counted;
    // the valid contest beside it is kept.
    let json = format!(
        "[{}, {}]",
        contest_json("o", 1, r#"["x",0,1],["y",0,0],["z",2,2]"#),
        contest_json("fine", 2, r#"["x",0,0],["y",1,1]"#)
    );
    let h = read_with(&dir, "o.json", &json, &o).unwrap();
    assert_eq!((h.len(), h.source.skipped_invalid), (1, 1));
    assert_eq!(h.contest(0).label(), Some("fine"));
}

// ---------------------------------------------------------------- PGN

const PGN: &str = r#"[Event "Test"]
[Date "2020.03.01"]
[White "Alpha"]
[Black "Beta"]
[Result "1-0"]

1. e4 {a comment
[not a tag]} e5 2. Nf3 1-0

[Event "Test"]
[UTCDate "2020.02.01"]
[UTCTime "10:30:00"]
[Date "2020.03.05"]
[White "Beta"]
[Black "Gamma"]
[Result "1/2-1/2"]
[Event "Test"]
[Date "2020.03.01"]
[White "Gamma"]
[Black "Alpha"]
[Result "*"]

*
"#;

#[test]
fn pgn_with_and_without_move_text() {
    let h = read("games.pgn", PGN).unwrap();
    assert_eq!(h.len(), 2);
    assert_eq!(h.source.skipped_unfinished, 1);
    assert_eq!(h.source.records, 3);
    let c = contests(&h);
    // UTCDate + UTCTime wins over Date: the Beta-Gamma draw comes first.
    assert_eq!(
        c[0],
        vec![(names(&["Beta"]), 0, 1), (names(&["Gamma"]), 0, 1)]
    );
    assert_eq!(h.contest(0).time(), 1_580_553_000);
    assert_eq!(
        c[1],
        vec![(names(&["Alpha"]), 0, 0), (names(&["Beta"]), 1, 1)]
    );
}

#[test]
fn pgn_latin1_names_are_read() {
    let dir = TempDir::new().unwrap();
    let p = dir.path().join("l.pgn");
    let mut bytes =
        b"[Date \"2020.01.01\"]\n[White \"M\xfcller\"]\n[Black \"Nu\xf1ez\"]\n[Result \"0-1\"]\n"
            .to_vec();
    bytes.extend_from_slice(b"\n0-1\n");
    std::fs::write(&p, bytes).unwrap();
    let h = ingest(&p, &opts()).unwrap();
    assert_eq!(h.name(0), "Müller");
    assert_eq!(h.name(1), "Nuñez");
}

#[test]
fn pgn_bad_inputs() {
    let e = err(
        "nr.pgn",
        "[Date \"2020.01.01\"]\n[White \"A\"]\n[Black \"B\"]\n\n1. e4 e5\n",
    );
    assert_error(
        &e,
        "nr.pgn",
        Location::Line(1),
        Some("Result"),
        "no Result tag",
    );
    let e = err(
        "q.pgn",
        "[Date \"?\"]\n[White \"?\"]\n[Black \"?\"]\n[Result \"?\"]\n\n?\n",
    );
    assert_error(
        &e,
        "q.pgn",
        Location::Line(4),
        Some("Result"),
        "invalid result `?`",
    );
    // A game's tags are its own: the second game does not inherit the first's Result (the
    // reader reuses the first's buffers).
    let e = err(
        "two.pgn",
        "[Date \"2020.01.01\"]\n[White \"A\"]\n[Black \"B\"]\n[Result \"1-0\"]\n\n1-0\n\n\
         [Date \"2020.01.02\"]\n[White \"B\"]\n[Black \"A\"]\n\n1. e4 e5\n",
    );
    assert_error(
        &e,
        "two.pgn",
        Location::Line(8),
        Some("Result"),
        "no Result tag",
    );
    let e = err(
        "d.pgn",
        "[Date \"2020.13.01\"]\n[White \"A\"]\n[Black \"B\"]\n[Result \"1-0\"]\n",
    );
    assert_error(
        &e,
        "d.pgn",
        Location::Line(1),
        Some("Date"),
        "malformed time",
    );
    let e = err(
        "p.pgn",
        "[Date \"2020.01.01\"]\n[White \"A\"]\n[Black \"\"]\n[Result \"1-0\"]\n",
    );
    assert_error(
        &e,
        "p.pgn",
        Location::Line(3),
        Some("Black"),
        "unknown player",
    );
    let e = err(
        "s.pgn",
        "[Date \"2020.01.01\"]\n[White \"A\"]\n[Black \"A\"]\n[Result \"1-0\"]\n",
    );
    assert_error(
        &e,
        "s.pgn",
        Location::Line(1),
        Some("Black"),
        "plays against himself",
    );
    let e = err("t.pgn", "[Date \"2020.01.01\"\n");
    assert_error(&e, "t.pgn", Location::Line(1), None, "malformed tag pair");
}

// ---------------------------------------------------------------- Parquet

fn parquet(path: &Path, mut df: polars::prelude::DataFrame) {
    let f = std::fs::File::create(path).unwrap();
    polars::prelude::ParquetWriter::new(f)
        .finish(&mut df)
        .unwrap();
}

/// Dates and timestamps beyond the calendar (a `date32` of ±2^31-1 days, a timestamp of 2^62
/// ms) are an error naming the file, the row and the column, not a panic of the decoder's
/// printing; a timestamp with a zone other than UTC is read as the instant it is.
#[test]
fn parquet_dates_beyond_the_calendar_are_errors_with_their_row() {
    use polars::prelude::*;
    let dir = TempDir::new().unwrap();
    let games = |time: Column| {
        DataFrame::new(
            2,
            vec![
                time,
                Column::new("a".into(), vec!["p", "q"]),
                Column::new("b".into(), vec!["q", "r"]),
                Column::new("result".into(), vec!["1", "0"]),
            ],
        )
        .unwrap()
    };
    let day = |d: i32| {
        Column::new("time".into(), vec![0, d])
            .cast(&DataType::Date)
            .unwrap()
    };
    let ms = |v: i64, zone: Option<TimeZone>| {
        Column::new("time".into(), vec![0, v])
            .cast(&DataType::Datetime(TimeUnit::Milliseconds, zone))
            .unwrap()
    };
    for (name, time) in [
        ("max.parquet", day(i32::MAX)),
        ("min.parquet", day(-i32::MAX)),
        ("huge.parquet", ms(1 << 62, Some(TimeZone::UTC))),
        ("naive.parquet", ms(-(1 << 62), None)),
    ] {
        let p = dir.path().join(name);
        parquet(&p, games(time));
        let e = ingest(&p, &opts())
            .unwrap_err()
            .downcast::<InputError>()
            .unwrap();
        assert_error(
            &e,
            name,
            Location::Row(2),
            Some("time"),
            "beyond the calendar",
        );
    }
    // In range: the same instants as the CSV's text gives.
    let p = dir.path().join("ok.parquet");
    parquet(&p, games(ms(1_700_000_000_250, Some(TimeZone::UTC))));
    let h = ingest(&p, &opts()).unwrap();
    assert_eq!(h.contest(1).time(), 1_700_000_000);
    let p = dir.path().join("day.parquet");
    parquet(&p, games(day(19_000)));
    assert_eq!(
        ingest(&p, &opts()).unwrap().contest(1).time(),
        19_000 * 86_400
    );
}

/// Narrow integer and decimal columns are read as their text, as the README says of every
/// column type; a column of a type that cannot be read is no matter when the replay does not
/// use it, and named when it does.
#[test]
fn parquet_narrow_integers_and_decimals_are_read_as_text() {
    use polars::prelude::*;
    let dir = TempDir::new().unwrap();
    let narrow = [
        DataType::Int8,
        DataType::UInt8,
        DataType::Int16,
        DataType::UInt16,
        DataType::Decimal(6, 2),
    ];
    for (k, dtype) in narrow.into_iter().enumerate() {
        let p = dir.path().join(format!("n{k}.parquet"));
        let df = DataFrame::new(
            2,
            vec![
                Column::new("time".into(), vec![1_600_000_000i64, 1_600_000_001]),
                Column::new("a".into(), vec!["p", "q"]),
                Column::new("b".into(), vec!["q", "r"]),
                Column::new("score_a".into(), vec![2i64, 0])
                    .cast(&dtype)
                    .unwrap(),
                Column::new("score_b".into(), vec![1i64, 0])
                    .cast(&dtype)
                    .unwrap(),
                Column::new("unused".into(), vec![1i64, 2])
                    .cast(&dtype)
                    .unwrap(),
            ],
        )
        .unwrap();
        parquet(&p, df);
        let h = ingest(&p, &opts()).unwrap_or_else(|e| panic!("{dtype}: {e:#}"));
        assert_eq!(h.len(), 2, "{dtype}");
        assert_eq!(
            contests(&h),
            [
                vec![(names(&["p"]), 0, 0), (names(&["q"]), 1, 1)],
                vec![(names(&["q"]), 0, 1), (names(&["r"]), 0, 1)]
            ],
            "{dtype}"
        );
    }
}

/// A file of one-row row groups is read in batches of groups: each read of a slice walks the
/// file's metadata, and a read per group took a time quadratic in the rows (32,000 rows: 21 s).
/// The rows, their order and their numbers in errors are those of the file.
#[test]
fn parquet_of_many_small_row_groups_reads_every_row_in_order() {
    use polars::prelude::*;
    let dir = TempDir::new().unwrap();
    let n = 3_000usize;
    let mut df = DataFrame::new(
        n,
        vec![
            Column::new(
                "time".into(),
                (0..n as i64).map(|i| 1_600_000_000 + i).collect::<Vec<_>>(),
            ),
            Column::new(
                "a".into(),
                (0..n).map(|i| format!("p{}", i % 50)).collect::<Vec<_>>(),
            ),
            Column::new(
                "b".into(),
                (0..n).map(|i| format!("q{}", i % 37)).collect::<Vec<_>>(),
            ),
            Column::new(
                "result".into(),
                (0..n)
                    .map(|i| if i == n - 7 { "x" } else { "1" })
                    .collect::<Vec<_>>(),
            ),
        ],
    )
    .unwrap();
    let p = dir.path().join("groups.parquet");
    ParquetWriter::new(std::fs::File::create(&p).unwrap())
        .with_row_group_size(Some(1))
        .finish(&mut df)
        .unwrap();
    let e = ingest(&p, &opts())
        .unwrap_err()
        .downcast::<InputError>()
        .unwrap();
    assert_error(
        &e,
        "groups.parquet",
        Location::Row((n - 6) as u64),
        Some("result"),
        "`x`",
    );
    let lax = IngestOptions {
        skip_invalid: true,
        ..opts()
    };
    let h = ingest(&p, &lax).unwrap();
    assert_eq!(h.len(), n - 1);
    assert!(h.contests().enumerate().all(|(k, c)| {
        let i = if k < n - 7 { k } else { k + 1 };
        c.time() == 1_600_000_000 + i as i64
    }));
}

#[test]
fn parquet_games_and_standings_with_typed_columns() {
    use polars::prelude::*;
    let dir = TempDir::new().unwrap();
    let g = dir.path().join("g.parquet");
    let time = Column::new("time".into(), vec![1_600_000_000_000i64, 1_500_000_000_000])
        .cast(&DataType::Datetime(
            TimeUnit::Milliseconds,
            Some(TimeZone::UTC),
        ))
        .unwrap();
    let df = DataFrame::new(
        2,
        vec![
            time,
            Column::new("a".into(), vec!["x", "y"]),
            Column::new("b".into(), vec!["y", "z"]),
            Column::new("result".into(), vec![1.0f64, 0.5]),
        ],
    )
    .unwrap();
    parquet(&g, df);
    let h = ingest(&g, &opts()).unwrap();
    assert_eq!(h.len(), 2);
    assert_eq!(h.contest(0).time(), 1_500_000_000);
    assert_eq!(
        contests(&h)[1],
        vec![(names(&["x"]), 0, 0), (names(&["y"]), 1, 1)]
    );
    assert_eq!(h.source.format, "parquet (games)");

    let s = dir.path().join("s.parquet");
    let df = DataFrame::new(
        3,
        vec![
            Column::new("contest".into(), vec!["c", "c", "c"]),
            Column::new("time".into(), vec![100i64, 100, 100]),
            Column::new("player".into(), vec!["p", "q", "r"]),
            Column::new("rank".into(), vec![2i64, 1, 2]),
        ],
    )
    .unwrap();
    parquet(&s, df);
    let h = ingest(&s, &opts()).unwrap();
    assert_eq!(
        contests(&h)[0],
        vec![
            (names(&["p"]), 1, 2),
            (names(&["q"]), 0, 0),
            (names(&["r"]), 1, 2)
        ]
    );

    let bad = dir.path().join("bad.parquet");
    let df = DataFrame::new(
        1,
        vec![
            Column::new("contest".into(), vec!["c"]),
            Column::new("time".into(), vec![100i64]),
            Column::new("player".into(), vec!["p"]),
            Column::new("rank".into(), vec![0i64]),
        ],
    )
    .unwrap();
    parquet(&bad, df);
    let e = ingest(&bad, &opts())
        .unwrap_err()
        .downcast::<InputError>()
        .unwrap();
    assert_error(
        &e,
        "bad.parquet",
        Location::Row(1),
        Some("rank"),
        "rank `0` is not a positive integer",
    );

    // A column that is not one value per row, and bytes that are not text: named with the
    // file, the column and (for the bytes) the row.
    let lists = dir.path().join("lists.parquet");
    let df = DataFrame::new(
        2,
        vec![
            Column::new("time".into(), vec!["2021-01-01", "2021-01-02"]),
            Column::new("a".into(), vec!["p", "q"]),
            Column::new("b".into(), vec!["q", "p"]),
            Column::new(
                "result".into(),
                vec![
                    Series::new("".into(), [1.0f64]),
                    Series::new("".into(), [0.0f64]),
                ],
            ),
        ],
    )
    .unwrap();
    parquet(&lists, df);
    let e = ingest(&lists, &opts())
        .unwrap_err()
        .downcast::<InputError>()
        .unwrap();
    assert_error(
        &e,
        "lists.parquet",
        Location::File,
        Some("result"),
        "a list per row, not one value",
    );
    let bytes = dir.path().join("bytes.parquet");
    let df = DataFrame::new(
        2,
        vec![
            Column::new("time".into(), vec!["2021-01-01", "2021-01-02"]),
            Column::new("a".into(), vec![&b"p"[..], &[0xff, 0xfe][..]]),
            Column::new("b".into(), vec!["q", "r"]),
            Column::new("result".into(), vec![1.0f64, 0.0]),
        ],
    )
    .unwrap();
    parquet(&bytes, df);
    let e = ingest(&bytes, &opts())
        .unwrap_err()
        .downcast::<InputError>()
        .unwrap();
    assert_error(
        &e,
        "bytes.parquet",
        Location::Row(2),
        Some("a"),
        "not UTF-8",
    );

    let nores = dir.path().join("nores.parquet");
    let df = DataFrame::new(
        1,
        vec![
            Column::new("time".into(), vec!["2021-01-01"]),
            Column::new("a".into(), vec!["p"]),
            Column::new("b".into(), vec!["q"]),
        ],
    )
    .unwrap();
    parquet(&nores, df);
    let e = ingest(&nores, &opts())
        .unwrap_err()
        .downcast::<InputError>()
        .unwrap();
    assert_error(
        &e,
        "nores.parquet",
        Location::File,
        Some("result"),
        "missing column",
    );

    let junk = write(dir.path(), "junk.parquet", "this is not parquet");
    let e = ingest(&junk, &opts())
        .unwrap_err()
        .downcast::<InputError>()
        .unwrap();
    assert!(e.message.contains("not a readable Parquet file"), "{e}");
}

/// The same name typed composed (NFC) and decomposed (NFD) is one player, in every format
/// that names players; quoted fields with commas and a long line read fine.
#[test]
fn unicode_forms_are_one_player_and_quoted_commas_and_long_lines_read() {
    let nfc = "Jos\u{e9} Ra\u{fa}l";
    let nfd = "Jose\u{301} Rau\u{301}l";
    assert_ne!(nfc, nfd);
    let long = "x".repeat(100_000);
    let h = read(
        "u.csv",
        &format!(
            "time,a,b,result\n2021-01-01,{nfc},\"Smith, John\",1-0\n2021-01-02,\"Smith, John\",{nfd},0-1\n2021-01-03,{long},{nfd},1/2-1/2\n"
        ),
    )
    .unwrap();
    assert_eq!(h.player_count(), 3, "{:?}", h.names());
    assert!(h.names().iter().any(|n| n == "Smith, John"));
    assert_eq!(h.names()[0], nfc, "kept in the composed form");
    let s = read(
        "s.csv",
        &format!("contest,time,player,rank\n1,2021-01-01,{nfc},1\n1,2021-01-01,b,2\n2,2021-01-02,{nfd},2\n2,2021-01-02,b,1\n"),
    )
    .unwrap();
    assert_eq!(s.player_count(), 2);
    let pgn = format!(
        "[White \"{nfc}\"]\n[Black \"b\"]\n[Date \"2021.01.01\"]\n[Result \"1-0\"]\n\n1. e4 1-0\n\n[White \"b\"]\n[Black \"{nfd}\"]\n[Date \"2021.01.02\"]\n[Result \"0-1\"]\n\n1. e4 0-1\n"
    );
    assert_eq!(read("p.pgn", &pgn).unwrap().player_count(), 2);
}

/// A series id names one best-of-N: two series of other teams may interleave with it, but not
/// another game of its own players (it would be rated with results from its future under
/// `--period series`), and every game shares a player with its earlier games.
#[test]
fn series_ids_name_one_best_of_n() {
    let head = "time,a,b,result,series\n";
    // Valid: S1 and S2 interleave, but share no player.
    let ok = format!(
        "{head}2021-01-01,A,B,1,S1\n2021-01-01,C,D,1,S2\n2021-01-02,A,B,0,S1\n2021-01-02,D,C,1,S2\n"
    );
    let h = read("ok.csv", &ok).unwrap();
    assert_eq!(h.len(), 4);
    // A played S2 between two games of S1 (or the id S1 was used again months later).
    for (name, text) in [
        (
            "between.csv",
            format!("{head}2021-01-01,A,B,1,S1\n2021-01-02,A,C,1,S2\n2021-01-03,A,B,1,S1\n"),
        ),
        (
            "nonseries.csv",
            format!("{head}2021-01-01,A,B,1,S1\n2021-01-02,A,C,1,\n2021-01-03,A,B,1,S1\n"),
        ),
    ] {
        let e = err(name, &text);
        assert_eq!(e.field.as_deref(), Some("series"), "{e}");
        // At the game's line, though the check comes after the contests are sorted.
        assert_eq!(e.at, Location::Line(4), "{e}");
        assert!(e.file.ends_with(name), "{e}");
        assert!(
            e.message.contains("comes after A played another contest"),
            "{e}"
        );
    }
    // One id for two series: no player in common.
    let e = err(
        "two.csv",
        &format!("{head}2021-01-01,A,B,1,S1\n2021-01-01,C,D,1,S1\n"),
    );
    assert!(
        e.message.contains("has no player of its earlier games"),
        "{e}"
    );
}

/// A FIFO named like a contest file (`1.json`), or a link to a device (`3.json`), is refused
/// and named, not opened (opening a FIFO would wait for a writer for ever) nor passed over in
/// silence (a contest would be lost). A FIFO named like a CSV of a folder of tables too.
#[test]
fn a_fifo_or_a_device_in_a_folder_is_refused_not_waited_on() {
    for (fifo, link) in [
        ("1.json", None),
        ("0.json.tmp", Some("3.json")),
        ("b.csv", None),
    ] {
        let dir = TempDir::new().unwrap();
        let d = dir.path().to_path_buf();
        if fifo.ends_with(".csv") {
            write(&d, "a.csv", "time,a,b,result\n2021-01-01,x,y,1\n");
        } else {
            write(
                &d,
                "0.json",
                &contest_json("a", 1, r#"["a",0,0],["b",1,1]"#),
            );
            write(
                &d,
                "2.json",
                &contest_json("c", 3, r#"["b",0,0],["c",1,1]"#),
            );
        }
        let made = std::process::Command::new("mkfifo")
            .arg(d.join(fifo))
            .status()
            .expect("mkfifo runs");
        assert!(made.success());
        let named = match link {
            Some(l) => {
                std::os::unix::fs::symlink("/dev/null", d.join(l)).unwrap();
                l
            }
            None => fifo,
        };
        // Read on a thread, so that a reader that opens the FIFO fails the test instead of
        // hanging it.
        let (tx, rx) = std::sync::mpsc::channel();
        let path = d.clone();
        std::thread::spawn(move || {
            let e = ingest(&path, &opts()).map(|h| h.len()).unwrap_err();
            tx.send(format!("{e:#}")).unwrap();
        });
        let e = rx
            .recv_timeout(std::time::Duration::from_secs(60))
            .expect("the folder is read without waiting on its FIFO");
        assert!(e.contains(named), "{e}");
        let what = if link.is_some() { "a device" } else { "a FIFO" };
        assert!(e.contains(what) && e.contains("only regular files"), "{e}");
    }
}

/// A byte-order mark before contest JSON is read, as it is before CSV and PGN.
#[test]
fn json_with_a_byte_order_mark() {
    let text = format!(
        "\u{feff}[{}]",
        contest_json("c", 1, r#"["a",0,0],["b",1,1]"#)
    );
    let h = read("bom.json", &text).unwrap();
    assert_eq!(h.len(), 1);
    let dir = TempDir::new().unwrap();
    write(
        dir.path(),
        "0.json",
        &format!("\u{feff}{}", contest_json("c", 1, r#"["a",0,0],["b",1,1]"#)),
    );
    assert_eq!(ingest(dir.path(), &opts()).unwrap().len(), 1);
}

/// Fixtures not played yet (`NA` or empty scores, as football files publish them; `NA`, `*`
/// or empty results) are skipped and counted as unplayed, like PGN's `*`; for `winner` an
/// empty cell stays a draw.
#[test]
fn unplayed_fixtures_are_skipped_and_counted() {
    let h = read(
        "f.csv",
        "date,home,away,hs,as\n2026-06-01,X,Y,2,1\n2026-07-01,X,Z,NA,NA\n2026-07-02,Y,Z,,\n",
    );
    assert!(
        h.is_err(),
        "the default column names are needed without --map"
    );
    let dir = TempDir::new().unwrap();
    let o = IngestOptions {
        map: rate_batch::ingest::ColumnMap::parse("time=date,a=home,b=away,score_a=hs,score_b=as")
            .unwrap(),
        format: Some(rate_batch::ingest::Format::Games),
        ..opts()
    };
    let h = read_with(
        &dir,
        "f.csv",
        "date,home,away,hs,as\n2026-06-01,X,Y,2,1\n2026-07-01,X,Z,NA,NA\n2026-07-02,Y,Z,,\n",
        &o,
    )
    .unwrap();
    assert_eq!(h.len(), 1);
    assert_eq!(h.source.skipped_unfinished, 2);
    assert_eq!(h.source.skipped_invalid, 0);
    assert_eq!(h.player_count(), 2, "Z played nothing yet");
    let h = read(
        "r.csv",
        "time,a,b,result\n2021-01-01,a,b,1\n2021-01-02,a,b,NA\n2021-01-03,a,b,*\n2021-01-04,a,b,\n",
    )
    .unwrap();
    assert_eq!((h.len(), h.source.skipped_unfinished), (1, 3));
    let h = read(
        "w.csv",
        "time,a,b,winner\n2021-01-01,a,b,\n2021-01-02,a,b,NA\n",
    )
    .unwrap();
    assert_eq!((h.len(), h.source.skipped_unfinished), (1, 1));
    assert_eq!(contests(&h)[0][0].1, 0, "empty winner: a draw");
    assert_eq!(contests(&h)[0][0].2, 1);
    // A side named `NA` that won is a result, not an unplayed game.
    let h = read(
        "na.csv",
        "time,a,b,winner
2021-01-01,NA,EU,NA
",
    )
    .unwrap();
    assert_eq!((h.len(), h.source.skipped_unfinished), (1, 0));
    assert_eq!(contests(&h)[0][0], (names(&["NA"]), 0, 0));
}

/// A PGN leap second (`[UTCTime "23:59:60"]`) is read as a CSV's is: the second before it, on
/// its day; a second 60 at another time is an error naming the line and the tag.
#[test]
fn a_pgn_leap_second_is_read_as_the_second_before() {
    let game = |clock: &str| {
        format!(
            "[UTCDate \"2016.12.31\"]\n[UTCTime \"{clock}\"]\n[White \"A\"]\n[Black \"B\"]\n\
             [Result \"1-0\"]\n\n1. e4 1-0\n"
        )
    };
    let h = read("leap.pgn", &game("23:59:60")).unwrap();
    assert_eq!(h.contest(0).time(), 1_483_228_799);
    let e = err("noon.pgn", &game("12:00:60"));
    assert_error(
        &e,
        "noon.pgn",
        Location::Line(2),
        Some("UTCTime"),
        "23:59:60",
    );
}
