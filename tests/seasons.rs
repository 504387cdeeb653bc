//! Seasons through the binary: where they begin (a season column, or a pause of the league),
//! the regression toward the mean between them (hand-computed), the history's season column,
//! a resumed run across a season's start, and the options refused where they mean nothing.

mod common;

use common::{rate_batch, read_csv, replay, replay_ok, texts, write};
use tempfile::TempDir;

const MAP: &str = "a=home,b=away,score_a=hs,score_b=as,time=date";

/// Two seasons of a three-team league: A beats B in 2021; in 2022 A and B draw, then C,
/// seeded at 1800 and new, plays A.
fn two_seasons(dir: &std::path::Path) -> std::path::PathBuf {
    write(
        dir,
        "league.csv",
        "date,season,home,away,hs,as\n\
         2021-09-01,2021,A,B,1,0\n\
         2022-09-01,2022,A,B,0,0\n\
         2022-09-08,2022,C,A,2,1\n",
    )
}

/// `rating_before` and `season` of each row of history.csv, by player.
fn befores(out: &std::path::Path) -> Vec<(String, String, String)> {
    let rows = read_csv(&out.join("history.csv"));
    let h = &rows[0];
    let col = |name: &str| h.iter().position(|c| c == name).unwrap();
    let (p, b, s) = (col("player"), col("rating_before"), col("season"));
    rows[1..]
        .iter()
        .map(|r| (r[p].clone(), r[b].clone(), r[s].clone()))
        .collect()
}

#[test]
fn ratings_move_toward_the_mean_between_seasons() {
    let dir = TempDir::new().unwrap();
    let input = two_seasons(dir.path());
    // FiveThirtyEight's `team,elo` list of starting ratings, read as published.
    let seeds = write(dir.path(), "seeds.csv", "team,elo\nC,1800\n");
    let map = format!("{MAP},season=season");
    let base = [
        "--map",
        &map,
        "--param",
        "k=32",
        "--warmup",
        "0",
        "--initial-ratings",
        seeds.to_str().unwrap(),
    ];
    // 2021: A 1516, B 1484. Before 2022, a quarter of the way to 1400: A 1516 - 29 = 1487,
    // B 1484 - 21 = 1463. C came with 1800 and had not played: he keeps it.
    let out = dir.path().join("fixed");
    let mut args = base.to_vec();
    args.extend(["--season-regress", "0.25", "--season-mean", "1400"]);
    replay_ok(&input, &out, &args);
    let rows = befores(&out);
    let want = [
        ("A", "1500", "2021"),
        ("B", "1500", "2021"),
        ("A", "1487", "2022"),
        ("B", "1463", "2022"),
        ("C", "1800", "2022"),
    ];
    assert_eq!(rows.len(), 6);
    for (got, (p, b, s)) in rows.iter().zip(want) {
        assert_eq!((got.0.as_str(), got.2.as_str()), (p, s));
        let before: f64 = got.1.parse().unwrap();
        assert!((before - b.parse::<f64>().unwrap()).abs() < 1e-9, "{got:?}");
    }
    // The league's mean: of those who played (A and B), 1500; a half-way pull takes A from
    // 1516 to 1508 and B from 1484 to 1492.
    let out = dir.path().join("league");
    let mut args = base.to_vec();
    args.extend(["--season-regress", "0.5"]);
    replay_ok(&input, &out, &args);
    let rows = befores(&out);
    assert_eq!((rows[2].1.as_str(), rows[3].1.as_str()), ("1508", "1492"));
    // Without a season column, a pause of 180 days or more starts a season: the same
    // ratings, the seasons numbered.
    let out = dir.path().join("gap");
    let args = [
        "--map",
        MAP,
        "--param",
        "k=32",
        "--warmup",
        "0",
        "--season-gap",
        "180",
        "--season-regress",
        "0.5",
    ];
    replay_ok(&input, &out, &args);
    let rows = befores(&out);
    assert_eq!((rows[2].1.as_str(), rows[3].1.as_str()), ("1508", "1492"));
    assert_eq!((rows[0].2.as_str(), rows[2].2.as_str()), ("1", "2"));
    // history.parquet has the column too, with the seasons' names.
    let out = dir.path().join("parquet");
    let mut args = base.to_vec();
    args.extend(["--season-regress", "0.5", "--history-format", "parquet"]);
    replay_ok(&input, &out, &args);
    use polars::prelude::{ParquetReader, SerReader};
    let df = ParquetReader::new(std::fs::File::open(out.join("history.parquet")).unwrap())
        .finish()
        .unwrap();
    let seasons: Vec<Option<&str>> = df.column("season").unwrap().str().unwrap().iter().collect();
    assert_eq!(
        seasons,
        ["2021", "2021", "2022", "2022", "2022", "2022"].map(Some)
    );
    // Without seasons the history has no season column.
    let out = dir.path().join("none");
    replay_ok(&input, &out, &["--map", MAP]);
    let header = &read_csv(&out.join("history.csv"))[0];
    assert!(!header.iter().any(|c| c == "season"), "{header:?}");
}

/// Six teams, three seasons of a double round robin with made-up scores.
fn league(dir: &std::path::Path, seasons: usize) -> std::path::PathBuf {
    league_resting(dir, seasons, &[])
}

/// [`league`], with the teams `resting` sitting out its second season.
fn league_resting(dir: &std::path::Path, seasons: usize, resting: &[&str]) -> std::path::PathBuf {
    let teams = ["A", "B", "C", "D", "E", "F"];
    let mut text = String::from("date,season,home,away,hs,as\n");
    let mut n = 0u32;
    for s in 0..seasons {
        let year = 2000 + s;
        for (i, h) in teams.iter().enumerate() {
            for (j, a) in teams.iter().enumerate() {
                if i == j || (s == 1 && (resting.contains(h) || resting.contains(a))) {
                    continue;
                }
                n += 1;
                let day = 1 + n % 28;
                let month = 1 + (n / 28) % 6;
                let (x, y) = ((n * 7 + i as u32) % 4, (n * 3 + j as u32) % 3);
                text.push_str(&format!(
                    "{year}-{month:02}-{day:02},{year},{h},{a},{x},{y}\n"
                ));
            }
        }
    }
    let name = format!("league{seasons}{}.csv", resting.concat());
    write(dir, &name, &text)
}

/// E and F sit out the second season: when the night's state is taken they owe its pull,
/// and they pay it with the third's when they come back in the resumed run.
#[test]
fn a_resumed_run_regresses_as_one_whole_replay() {
    let dir = TempDir::new().unwrap();
    let resting = ["E", "F"];
    let first = league_resting(dir.path(), 2, &resting);
    let all = league_resting(dir.path(), 3, &resting);
    let map = format!("{MAP},season=season");
    let args = [
        "--map",
        map.as_str(),
        "--season-regress",
        "0.3",
        "--mov-multiplier",
        "538",
        "--warmup",
        "0",
    ];
    let whole = dir.path().join("whole");
    replay_ok(&all, &whole, &args);
    let state = dir.path().join("state.bin");
    let night1 = dir.path().join("night1");
    let mut a1 = args.to_vec();
    a1.extend(["--save-state", state.to_str().unwrap()]);
    replay_ok(&first, &night1, &a1);
    // The next night begins a season: the regression happens in the resumed run.
    let night2 = dir.path().join("night2");
    std::fs::create_dir_all(&night2).unwrap();
    std::fs::copy(night1.join("history.csv"), night2.join("history.csv")).unwrap();
    let mut a2 = args.to_vec();
    a2.extend(["--resume", state.to_str().unwrap()]);
    replay_ok(&all, &night2, &a2);
    for file in ["leaderboard.csv", "history.csv"] {
        assert_eq!(
            std::fs::read_to_string(whole.join(file)).unwrap(),
            std::fs::read_to_string(night2.join(file)).unwrap(),
            "{file}"
        );
    }
    // Other seasons, or another draw policy, cannot continue that state.
    let regress = args.iter().position(|&a| a == "0.3").unwrap();
    for other in [("0.2", None), ("0.3", Some(["--draws", "ignore"]))] {
        let mut a = args.to_vec();
        a[regress] = other.0;
        a.extend(other.1.into_iter().flatten());
        a.extend(["--resume", state.to_str().unwrap()]);
        let o = replay(&all, &dir.path().join("other"), &a);
        assert_eq!(o.status.code(), Some(2), "{other:?}");
        assert!(texts(&o).1.contains("cannot resume"), "{}", texts(&o).1);
    }
    // Nor seasons from another column (the state names its column).
    let mut a = args.to_vec();
    let other_map = format!("{MAP},season=date");
    a[1] = &other_map;
    a.extend(["--resume", state.to_str().unwrap()]);
    let o = replay(&all, &dir.path().join("other"), &a);
    assert_eq!(o.status.code(), Some(2));
    let said = texts(&o).1;
    assert!(said.contains(r#""season_column":"season""#), "{said}");
}

#[test]
fn season_options_are_refused_where_they_mean_nothing() {
    let dir = TempDir::new().unwrap();
    let input = two_seasons(dir.path());
    let out = dir.path().join("out");
    let map = format!("{MAP},season=season");
    let cases: [(&[&str], &str); 5] = [
        (&["--map", MAP, "--season-regress", "0.3"], "need seasons"),
        (
            &["--map", &map, "--season-gap", "90"],
            "both say where seasons begin",
        ),
        (
            &["--map", &map, "--season-regress", "1.5"],
            "not a fraction within 0 and 1",
        ),
        (
            &[
                "--map",
                &map,
                "--season-regress",
                "0.3",
                "--system",
                "codeforces",
            ],
            "codeforces has no regression between seasons",
        ),
        (
            &[
                "--map",
                "a=home,b=away,score_a=hs,score_b=as,time=date,season=year",
            ],
            "`--map season=year` names no column",
        ),
    ];
    for (args, message) in cases {
        let o = replay(&input, &out, args);
        assert_ne!(o.status.code(), Some(0), "{args:?}");
        assert!(texts(&o).1.contains(message), "{args:?}: {}", texts(&o).1);
        assert!(!out.exists(), "nothing written");
    }
    // A pause of the league cannot be measured in an input without times.
    let untimed = write(
        dir.path(),
        "untimed.csv",
        "a,b,score_a,score_b\nA,B,3,1\nA,B,1,3\n",
    );
    for stream in ["off", "on"] {
        let args = [
            "--season-gap",
            "1",
            "--season-regress",
            "0.5",
            "--stream",
            stream,
        ];
        let o = replay(&untimed, &out, &args);
        assert_eq!(o.status.code(), Some(2), "{stream}");
        assert!(
            texts(&o).1.contains("has no time column"),
            "{}",
            texts(&o).1
        );
        assert!(!out.exists(), "nothing written");
    }
}

#[test]
fn tune_searches_the_draw_policy_and_the_regression() {
    let dir = TempDir::new().unwrap();
    let input = league(dir.path(), 3);
    let out = dir.path().join("tune");
    let map = format!("{MAP},season=season");
    let o = rate_batch(&[
        "tune",
        input.to_str().unwrap(),
        "--map",
        &map,
        "--advantage",
        "auto",
        "--grid",
        "k=16,32;mov_multiplier=none,538;draws=update,ignore;season_regress=0,0.3",
        "--metric",
        "logloss",
        "--fraction",
        "0.5",
        "--out",
        out.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", texts(&o).1);
    let rows = read_csv(&out.join("tune.csv"));
    assert_eq!(rows.len(), 1 + 16, "every combination");
    let header = &rows[0];
    for c in ["k", "mov_multiplier", "draws", "season_regress", "log_loss"] {
        assert!(header.iter().any(|h| h == c), "{c} in {header:?}");
    }
    let col = header.iter().position(|h| h == "draws").unwrap();
    assert!(
        rows[1..]
            .iter()
            .all(|r| r[col] == "update" || r[col] == "ignore")
    );
    // The sets differ: the option keys reach the replays.
    let ll = header.iter().position(|h| h == "log_loss").unwrap();
    let mut losses: Vec<&str> = rows[1..].iter().map(|r| r[ll].as_str()).collect();
    losses.sort_unstable();
    losses.dedup();
    assert!(losses.len() > 8, "{losses:?}");
    // The advantage is fitted on the tuning part, and printed as a number.
    assert!(texts(&o).0.contains("advantage="), "{}", texts(&o).0);
    assert!(
        !texts(&o).0.contains("advantage=\"auto\""),
        "{}",
        texts(&o).0
    );
    // Option keys without seasons are refused.
    let o = rate_batch(&[
        "tune",
        input.to_str().unwrap(),
        "--map",
        MAP,
        "--grid",
        "season_regress=0,0.3",
        "--out",
        out.to_str().unwrap(),
    ]);
    assert_eq!(o.status.code(), Some(2));
    assert!(texts(&o).1.contains("needs seasons"), "{}", texts(&o).1);
}

#[test]
fn tune_seeds_every_set_read_whole_or_streamed() {
    let dir = TempDir::new().unwrap();
    let input = league(dir.path(), 3);
    let map = format!("{MAP},season=season");
    // `--initial-ratings` seeds every set's replays, read whole or streamed alike.
    let seeds = write(dir.path(), "seeds.csv", "team,elo\nA,1700\nF,1300\n");
    let tune = |name: &str, extra: &[&str]| {
        let to = dir.path().join(name);
        let mut args = vec![
            "tune",
            input.to_str().unwrap(),
            "--map",
            &map,
            "--advantage",
            "30",
            "--grid",
            "k=16,32;season_regress=0,0.3",
            "--quiet",
            "--out",
            to.to_str().unwrap(),
        ];
        args.extend_from_slice(extra);
        let o = rate_batch(&args);
        assert!(o.status.success(), "{}", texts(&o).1);
        std::fs::read_to_string(to.join("tune.csv")).unwrap()
    };
    let seeded = ["--initial-ratings", seeds.to_str().unwrap()];
    let whole = tune("seeded", &[&seeded[..], &["--stream", "off"]].concat());
    let streamed = tune(
        "seeded-stream",
        &[&seeded[..], &["--stream", "on"]].concat(),
    );
    assert_eq!(whole, streamed);
    assert_ne!(whole, tune("unseeded", &[]));
}

#[test]
fn compare_sets_one_system_beside_itself_with_the_options() {
    let dir = TempDir::new().unwrap();
    let input = league(dir.path(), 3);
    let map = format!("{MAP},season=season");
    let out = dir.path().join("cmp");
    let o = rate_batch(&[
        "compare",
        input.to_str().unwrap(),
        "--map",
        &map,
        "--systems",
        "elo,elo@mov,elo@third",
        "--param",
        "elo@mov:mov_multiplier=538",
        "--param",
        "elo@third:mov_multiplier=538",
        "--param",
        "elo@third:season_regress=0.3333",
        "--param",
        "elo@third:draws=ignore",
        "--advantage",
        "40",
        "--warmup",
        "0",
        "--report",
        "--out",
        out.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", texts(&o).1);
    let table = read_csv(&out.join("compare.csv"));
    let names: Vec<&str> = table[1..].iter().map(|r| r[0].as_str()).collect();
    assert_eq!(names, ["elo", "elo@mov", "elo@third"]);
    // Each entry is what replay gives with its options, in a folder of its name.
    let alone = |name: &str, extra: &[&str]| {
        let to = dir.path().join(format!("alone-{name}"));
        let mut args = vec!["--map", map.as_str(), "--advantage", "40", "--warmup", "0"];
        args.extend_from_slice(extra);
        replay_ok(&input, &to, &args);
        assert_eq!(
            std::fs::read(to.join("leaderboard.csv")).unwrap(),
            std::fs::read(out.join(name).join("leaderboard.csv")).unwrap(),
            "{name}"
        );
    };
    alone("elo", &[]);
    alone("elo@mov", &["--mov-multiplier", "538"]);
    alone(
        "elo@third",
        &[
            "--mov-multiplier",
            "538",
            "--season-regress",
            "0.3333",
            "--draws",
            "ignore",
        ],
    );
    // The report draws each entry's charts, its calibration among them.
    let html = std::fs::read_to_string(out.join("report.html")).unwrap();
    for name in names {
        assert!(html.contains(&format!("<h2>{name}</h2>")), "{name}");
    }
    // Entries named twice, labels that are no folder name, a parameter of no entry.
    for (systems, param, message) in [
        ("elo,elo", None, "listed twice"),
        ("elo,elo@a/b", None, "not letters, digits"),
        (
            "elo,elo@x",
            Some("elo@y:k=20"),
            "elo@y is not among --systems",
        ),
    ] {
        let mut args = vec![
            "compare",
            input.to_str().unwrap(),
            "--map",
            &map,
            "--systems",
            systems,
            "--out",
            out.to_str().unwrap(),
        ];
        if let Some(p) = param {
            args.extend(["--param", p]);
        }
        let o = rate_batch(&args);
        assert_eq!(o.status.code(), Some(2), "{systems}");
        assert!(texts(&o).1.contains(message), "{systems}: {}", texts(&o).1);
    }
}

/// `tune --advantage auto` for bt: bt fits its own advantage (`fit_advantage`), which the
/// sets carry in place of `auto`.
#[test]
fn tune_takes_bts_own_advantage_fit() {
    let dir = TempDir::new().unwrap();
    let input = league(dir.path(), 2);
    let out = dir.path().join("bt");
    let o = rate_batch(&[
        "tune",
        input.to_str().unwrap(),
        "--map",
        MAP,
        "--system",
        "bt",
        "--advantage",
        "auto",
        "--grid",
        "prior_sd=200,400",
        "--fraction",
        "0.5",
        "--out",
        out.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", texts(&o).1);
    assert!(
        texts(&o).0.contains("fit-advantage=true"),
        "{}",
        texts(&o).0
    );
}

/// A season whose first game names none: its rows from the first named game on carry its
/// name, not its number.
#[test]
fn a_season_named_after_its_first_game_is_shown_by_its_name() {
    let dir = TempDir::new().unwrap();
    let input = write(
        dir.path(),
        "late.csv",
        "date,season,home,away,hs,as\n\
         2021-09-01,,A,B,1,0\n\
         2021-09-08,2021,B,A,1,0\n\
         2022-09-01,2022,A,B,0,0\n",
    );
    let out = dir.path().join("out");
    let map = format!("{MAP},season=season");
    replay_ok(&input, &out, &["--map", &map, "--season-regress", "0.5"]);
    let seasons: Vec<String> = befores(&out).into_iter().map(|r| r.2).collect();
    assert_eq!(seasons[2..], ["2021", "2021", "2022", "2022"]);
}

/// A season column that changes at every game (a wrong column, or a hostile file): each
/// season's pull is owed, not applied to everyone met so far, and paid at the end. Game i of
/// n, `pI` beating `qI` (Elo, K 32: 1516 and 1484), is followed by n - 1 - i seasons, each
/// halving the way to 1500, the fixed mean or the league's (Elo keeps it at 1500).
#[test]
fn a_season_at_every_game_is_owed_not_paid_by_everyone() {
    let dir = TempDir::new().unwrap();
    let n = 3000;
    let mut text = String::from("date,season,home,away,hs,as\n");
    for i in 0..n {
        text.push_str(&format!("2020-01-01,s{i},p{i},q{i},1,0\n"));
    }
    let input = write(dir.path(), "every.csv", &text);
    let map = format!("{MAP},season=season");
    for mean in [&["--season-mean", "1500"][..], &[]] {
        let out = dir.path().join("out");
        let mut args = vec![
            "--map",
            map.as_str(),
            "--season-regress",
            "0.5",
            "--ci",
            "3",
        ];
        args.extend(mean);
        replay_ok(&input, &out, &args);
        let rows = read_csv(&out.join("leaderboard.csv"));
        let col = |name: &str| rows[0].iter().position(|c| c == name).unwrap();
        let (player, rating) = (col("player"), col("rating"));
        let of = |who: String| {
            let row = rows.iter().find(|r| r[player] == who).unwrap();
            row[rating].parse::<f64>().unwrap()
        };
        for back in 0..6 {
            let i = n - 1 - back;
            let want = 16.0 * 0.5f64.powi(back);
            assert!(
                (of(format!("p{i}")) - 1500.0 - want).abs() < 0.01,
                "{mean:?} p{i}"
            );
            assert!(
                (of(format!("q{i}")) - 1500.0 + want).abs() < 0.01,
                "{mean:?} q{i}"
            );
        }
        assert_eq!(of("p0".into()), 1500.0, "{mean:?}");
    }
}

/// `--mov-multiplier 538` scales K by the margin of the points only where the input gives
/// both sides' points: a result column, a winner column or a PGN's result says who won, not
/// by how much, and leaves K as it is (A, 1500, beats B: 1516 with K 32; with the points 1-0,
/// 32 ln 2 / 2 = 11.09 up).
#[test]
fn the_margin_multiplier_needs_points() {
    let dir = TempDir::new().unwrap();
    let d = dir.path();
    let pgn = "[Event \"x\"]\n[Date \"2020.01.01\"]\n[White \"A\"]\n[Black \"B\"]\n\
               [Result \"1-0\"]\n\n1. e4 e5 1-0\n";
    for (name, text, after) in [
        ("result.csv", "time,a,b,result\n2020-01-01,A,B,1\n", "1516"),
        ("winner.csv", "time,a,b,winner\n2020-01-01,A,B,A\n", "1516"),
        ("game.pgn", pgn, "1516"),
        (
            "points.csv",
            "time,a,b,score_a,score_b\n2020-01-01,A,B,1,0\n",
            "1511.0903548889592",
        ),
    ] {
        let input = write(d, name, text);
        let out = d.join(format!("out-{name}"));
        replay_ok(&input, &out, &["--mov-multiplier", "538", "--warmup", "0"]);
        let rows = read_csv(&out.join("history.csv"));
        let after_col = rows[0].iter().position(|c| c == "rating_after").unwrap();
        assert_eq!(rows[1][after_col], after, "{name}");
    }
}
