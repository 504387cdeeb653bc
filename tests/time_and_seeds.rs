//! Rating periods, initial ratings, time decay, `--as-of` and the leaderboard's selection and
//! order, through the binary.

mod common;

use common::{rate_batch, read_csv, replay_ok, texts, write};
use tempfile::TempDir;

/// Runs `replay` and returns the leaderboard rows (header first).
fn replay(dir: &std::path::Path, input: &std::path::Path, args: &[&str]) -> Vec<Vec<String>> {
    let out = dir.join("out");
    replay_ok(input, &out, args);
    read_csv(&out.join("leaderboard.csv"))
}

fn row<'a>(board: &'a [Vec<String>], name: &str) -> &'a [String] {
    board.iter().find(|r| r[1] == name).unwrap()
}

fn num(s: &str) -> f64 {
    s.parse().unwrap()
}

/// Glickman's examples from the command line: the player's three games are one rating
/// period (`--period day`), the four players start from `--initial-ratings`.
#[test]
fn glickmans_examples_from_the_command_line() {
    let dir = TempDir::new().unwrap();
    let games = write(
        dir.path(),
        "games.csv",
        "time,a,b,result\n\
         2024-03-01T10:00:00Z,me,x,1-0\n\
         2024-03-01T11:00:00Z,me,y,0-1\n\
         2024-03-01T12:00:00Z,me,z,0-1\n",
    );
    let seeds = write(
        dir.path(),
        "seeds.csv",
        "player,rating,uncertainty,volatility\n\
         me,1500,200,0.06\nx,1400,30,0.06\ny,1550,100,0.06\nz,1700,300,0.06\n",
    );
    let seeds = seeds.to_str().unwrap();
    let board = replay(
        dir.path(),
        &games,
        &[
            "--system",
            "glicko",
            "--period",
            "day",
            "--initial-ratings",
            seeds,
        ],
    );
    let me = row(&board, "me");
    // 1464.1 / 151.4
    assert!((num(&me[2]) - 1464.1).abs() < 0.05, "{me:?}");
    assert!((num(&me[3]) - 151.4).abs() < 0.05, "{me:?}");
    assert_eq!(&me[5..9], ["1", "1", "0", "2"]);
    let board = replay(
        dir.path(),
        &games,
        &[
            "--system",
            "glicko2",
            "--period",
            "day",
            "--initial-ratings",
            seeds,
        ],
    );
    let me = row(&board, "me");
    // 1464.06 / 151.52 (Glickman rounds his intermediate steps; exactly 1464.0507)
    assert!((num(&me[2]) - 1464.06).abs() < 0.01, "{me:?}");
    assert!((num(&me[3]) - 151.52).abs() < 0.005, "{me:?}");
    // Without periods every game is its own period: the games are rated one after the
    // other (1464.22 / 151.25, with no growth between them: c 0), not together.
    let board = replay(
        dir.path(),
        &games,
        &["--system", "glicko", "--c", "0", "--initial-ratings", seeds],
    );
    let me = row(&board, "me");
    assert!((num(&me[2]) - 1464.22).abs() < 0.005, "{me:?}");
    assert!((num(&me[3]) - 151.25).abs() < 0.005, "{me:?}");
}

/// Decay grows the uncertainty with the days since a player's last round and changes no
/// rating; `--as-of` replays only what came before and decays up to it.
#[test]
fn decay_and_as_of() {
    let dir = TempDir::new().unwrap();
    let games = write(
        dir.path(),
        "games.csv",
        "time,a,b,result\n\
         2021-01-01,a,b,1-0\n\
         2021-01-01,c,d,1/2-1/2\n\
         2021-12-31,c,d,1-0\n\
         2022-06-01,a,c,1-0\n",
    );
    // Every system of the registry: those with an uncertainty see it grow, the others (Elo,
    // Codeforces) have none with or without decay.
    let mut with_uncertainty = Vec::new();
    for system in rate_batch::systems::SystemKind::ALL
        .iter()
        .map(|k| k.name())
    {
        let plain = replay(dir.path(), &games, &["--system", system]);
        let decayed = replay(
            dir.path(),
            &games,
            &["--system", system, "--decay-per-day", "100"],
        );
        // b last played on 2021-01-01 and never again: 516 days of decay up to 2022-06-01,
        // and decay changes no rating.
        let (p, d) = (row(&plain, "b"), row(&decayed, "b"));
        assert_eq!(p[2], d[2], "{system}: the rating");
        if p[3].is_empty() {
            assert!(d[3].is_empty(), "{system}: {d:?}");
            continue;
        }
        with_uncertainty.push(system);
        let (u0, u1) = (num(&p[3]), num(&d[3]));
        if system == "bt" || system == "whr" {
            // Fitted models: the uncertainty is the fit's (whole-history rating's Wiener
            // process is its own), and the decay does not apply.
            assert_eq!(u1, u0, "{system}");
        } else if system == "glicko" {
            // Capped at the starting deviation.
            assert!(u1 > u0 && u1 <= 350.0 + 1e-9, "{system}: {u0} -> {u1}");
        } else {
            assert!(u1 > u0, "{system}: {u0} -> {u1}");
        }
    }
    let without: Vec<&str> = rate_batch::systems::SystemKind::ALL
        .iter()
        .map(|k| k.name())
        .filter(|s| !with_uncertainty.contains(s))
        .collect();
    assert_eq!(
        without,
        ["elo", "codeforces", "elo-gaussian", "fide", "uscf"]
    );

    // As of 2021-12-31: the last game is left out, the one on that day is in.
    let board = replay(
        dir.path(),
        &games,
        &["--system", "elo", "--as-of", "2021-12-31"],
    );
    assert_eq!(board.len(), 1 + 4);
    assert_eq!(&row(&board, "a")[5..9], ["1", "1", "0", "0"]);
    assert_eq!(&row(&board, "c")[5..9], ["2", "1", "1", "0"]);
    let board = replay(
        dir.path(),
        &games,
        &["--system", "elo", "--as-of", "2021-12-30T23:59:59Z"],
    );
    assert_eq!(&row(&board, "c")[5..9], ["1", "0", "1", "0"]);
    // Glicko-2 as of a date a year on: b's deviation grows with the decay up to it (its
    // growth by volatility counted in rounds, of which none passes).
    let early = replay(
        dir.path(),
        &games,
        &[
            "--system",
            "glicko2",
            "--decay-per-day",
            "100",
            "--growth",
            "rounds",
            "--as-of",
            "2021-01-01",
        ],
    );
    let later = replay(
        dir.path(),
        &games,
        &[
            "--system",
            "glicko2",
            "--decay-per-day",
            "100",
            "--growth",
            "rounds",
            "--as-of",
            "2021-06-01",
        ],
    );
    let (u0, u1) = (num(&row(&early, "b")[3]), num(&row(&later, "b")[3]));
    // 151 more days of 100 per day (the start of 2021-06-02 minus that of 2021-01-02).
    assert!((u1 * u1 - u0 * u0 - 15_100.0).abs() < 1e-6, "{u0} -> {u1}");
    // A bad date is a usage error.
    let o = rate_batch(&[
        "replay",
        games.to_str().unwrap(),
        "--as-of",
        "2021-13-01",
        "--out",
        dir.path().join("x").to_str().unwrap(),
    ]);
    assert_eq!(o.status.code(), Some(2), "{}", texts(&o).1);
    assert!(texts(&o).1.contains("--as-of"));
}

/// Glicko's c grows a returning player's deviation per calendar period since his last one.
#[test]
fn glicko_c_counts_calendar_periods() {
    let dir = TempDir::new().unwrap();
    let games = write(
        dir.path(),
        "games.csv",
        "time,a,b,result\n2021-01-04,a,b,1-0\n2021-03-01,a,c,1-0\n2021-03-02,c,d,1-0\n",
    );
    let with_c = |period: &str| {
        replay(
            dir.path(),
            &games,
            &[
                "--system", "glicko", "--c", "30", "--period", period, "--growth", "rounds",
            ],
        )
    };
    // b never returns: with weekly periods, from the week of 2021-01-04 to that of
    // 2021-03-02 (8 weeks) its deviation grows by 30^2 per week up to the end (with a game a
    // round and the rounds counted, none passes after his last).
    let (week, game) = (with_c("week"), with_c("game"));
    let (ub_week, ub_game) = (num(&row(&week, "b")[3]), num(&row(&game, "b")[3]));
    assert!(
        (ub_week * ub_week - ub_game * ub_game - 8.0 * 900.0).abs() < 1e-6,
        "{ub_game} -> {ub_week}"
    );
    // `--as-of` the day of the last game ends within that day: no period has begun since, so
    // the board is the one without `--as-of`; a day later, one daily period has begun (+30^2
    // for d, who last played on 2021-03-02).
    let day = |extra: &[&str]| {
        let mut args = vec!["--system", "glicko", "--c", "30", "--period", "day"];
        args.extend_from_slice(extra);
        replay(dir.path(), &games, &args)
    };
    let plain = day(&[]);
    assert_eq!(day(&["--as-of", "2021-03-02"]), plain);
    let (ud, ud_later) = (
        num(&row(&plain, "d")[3]),
        num(&row(&day(&["--as-of", "2021-03-03"]), "d")[3]),
    );
    assert!(
        (ud_later * ud_later - ud * ud - 900.0).abs() < 1e-6,
        "{ud} -> {ud_later}"
    );
}

#[test]
fn min_rounds_and_rank_by() {
    let dir = TempDir::new().unwrap();
    let games = write(
        dir.path(),
        "games.csv",
        "time,a,b,result\n1,a,b,1-0\n2,a,c,1-0\n3,c,b,1-0\n4,d,a,1-0\n",
    );
    // (Elo's rule wants 5 contests: --provisional-below 1 leaves --min-rounds to decide.)
    let board = replay(
        dir.path(),
        &games,
        &["--min-rounds", "2", "--provisional-below", "1"],
    );
    let names: Vec<&str> = board[1..].iter().map(|r| r[1].as_str()).collect();
    // Elo: a 1516, then 1531.27 (beat c), then 1513.83 (lost to d); c 1484.73, then 1500.70
    // (beat b); b 1484, then 1468.03; d, who played once, is provisional, listed after.
    assert_eq!(names, ["a", "c", "b", "d"]);
    assert_eq!(board[4][0], "", "d played once: not ranked");
    assert_eq!(board[4][10], "provisional");
    // Elo's display rating is the rating: same order either way; Elo-MMR's display
    // rating is mu - 2 (sigma - 80), which can reorder.
    let by_rating = replay(dir.path(), &games, &["--system", "elo-mmr"]);
    let by_display = replay(
        dir.path(),
        &games,
        &["--system", "elo-mmr", "--rank-by", "display"],
    );
    let order = |b: &[Vec<String>], col: usize| {
        let v: Vec<f64> = b[1..].iter().map(|r| num(&r[col])).collect();
        v.windows(2).all(|w| w[0] >= w[1])
    };
    assert!(order(&by_rating, 2) && order(&by_display, 4));
    // Here the two orders differ: d has the higher rating, a (less uncertain) the higher
    // display rating.
    assert_eq!((&by_rating[1][1][..], &by_display[1][1][..]), ("d", "a"));
}

/// Initial ratings: bad files are refused with file, line and field; players of the file
/// who never play are counted in metrics.json.
#[test]
fn initial_ratings_errors_and_counts() {
    let dir = TempDir::new().unwrap();
    let games = write(
        dir.path(),
        "g.csv",
        "time,a,b,result\n1,a,b,1-0\n2,a,b,0-1\n",
    );
    let bad = write(dir.path(), "bad.csv", "player,rating\na,1500\nb,high\n");
    let out = dir.path().join("o");
    let o = rate_batch(&[
        "replay",
        games.to_str().unwrap(),
        "--initial-ratings",
        bad.to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
    ]);
    assert!(!o.status.success());
    let err = texts(&o).1;
    assert!(
        err.contains("bad.csv") && err.contains("line 3") && err.contains("rating"),
        "{err}"
    );
    assert!(!out.exists(), "nothing written");
    let good = write(dir.path(), "good.csv", "player,rating\na,2000\nzed,1000\n");
    let board = replay(
        dir.path(),
        &games,
        &["--initial-ratings", good.to_str().unwrap(), "--warmup", "0"],
    );
    // a starts at 2000 and is scored from its first game.
    assert!(num(&row(&board, "a")[2]) > 1950.0);
    let m: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(dir.path().join("out/metrics.json")).unwrap(),
    )
    .unwrap();
    assert_eq!(m["initial_ratings"]["players"], 1);
    assert_eq!(m["initial_ratings"]["not_in_history"], 1);
    // Game 1: a (seeded) against b (new): not scored; game 2: both known now.
    assert_eq!(m["metrics"]["two_player"]["games_scored"], 1);
}

/// `--truth`: the RMSE of the ratings against the true ones per round, offset removed.
#[test]
fn truth_gives_the_rmse_per_round() {
    let dir = TempDir::new().unwrap();
    let games = write(
        dir.path(),
        "g.csv",
        "time,a,b,result\n2021-01-01,a,b,1-0\n2021-01-02,c,a,1-0\n",
    );
    let truth = write(dir.path(), "t.csv", "player,true_rating\na,1600\nb,1400\n");
    let out = dir.path().join("out");
    replay_ok(
        &games,
        &out,
        &[
            "--truth",
            truth.to_str().unwrap(),
            "--history-format",
            "none",
        ],
    );
    let rows = read_csv(&out.join("rmse.csv"));
    // Game 1: a 1516, b 1484; differences -84 and +84, offset 0: RMSE 84. Game 2: c has no
    // true rating, a alone is not a measure.
    assert_eq!(rows.len(), 2, "{rows:?}");
    assert_eq!(rows[1][..3], ["0", "2021-01-01T00:00:00Z", "2"]);
    assert!((num(&rows[1][3]) - 84.0).abs() < 1e-9, "{rows:?}");
    let m: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("metrics.json")).unwrap()).unwrap();
    assert_eq!(m["truth"]["rounds_measured"], 1);
    assert_eq!(m["truth"]["values"], 3);
}

/// Uncertainty grows with the time a player is away (`--growth time`, the default): teams
/// that played in 1920 and never again have, as of 2020, an uncertainty at their system's
/// largest (a newcomer's), while the teams still playing keep the usual one; under
/// `--growth rounds` (a round is a period, whatever the time between) it does not grow.
/// Glicko by hand: the deviation after a player's last game, squared, plus c^2 = 100 for each
/// 30-day period since, is the leaderboard's.
#[test]
fn uncertainty_grows_with_time_away() {
    let dir = TempDir::new().unwrap();
    let mut text = String::from("time,a,b,result\n");
    for (year, teams) in [(1920, ["A", "B", "C", "D"]), (2020, ["C", "D", "E", "F"])] {
        for week in 0..52 {
            let day = 1 + week * 7 % 365;
            let t = chrono::NaiveDate::from_yo_opt(year, day as u32)
                .unwrap()
                .format("%Y-%m-%d");
            let r = ["1", "0", "1/2-1/2"][week % 3];
            text.push_str(&format!("{t},{},{},{r}\n", teams[0], teams[1]));
            text.push_str(&format!("{t},{},{},{r}\n", teams[2], teams[3]));
            text.push_str(&format!(
                "{t},{},{},1\n",
                teams[week % 2],
                teams[2 + week % 2]
            ));
        }
    }
    // G plays once, in June 2020.
    text.push_str("2020-06-01,G,C,1\n");
    let games = write(dir.path(), "g.csv", &text);
    for (system, largest) in [
        ("glicko2", 350.0),
        ("glicko", 350.0),
        ("trueskill", 25.0 / 3.0),
        ("elo-mmr", 350.0),
    ] {
        let board = replay(dir.path(), &games, &["--system", system]);
        let u = |name: &str| num(&row(&board, name)[3]);
        assert!(u("A") > 0.95 * largest, "{system}: A {}", u("A"));
        assert!(u("A") <= largest + 1e-9, "{system}: A {}", u("A"));
        assert!(u("C") < 0.5 * largest, "{system}: C {}", u("C"));
        assert_eq!(row(&board, "A")[10], "inactive");
        let counted = replay(
            dir.path(),
            &games,
            &["--system", system, "--growth", "rounds"],
        );
        let a = num(&row(&counted, "A")[3]);
        assert!(a < 0.5 * largest, "{system} by rounds: A {a}");
    }
    // Glicko (c 10, periods of 30 days): E and F last played on the history's last day, A a
    // century before it.
    let out = dir.path().join("g");
    replay_ok(&games, &out, &["--system", "glicko", "--c", "10"]);
    let history = read_csv(&out.join("history.csv"));
    let board = read_csv(&out.join("leaderboard.csv"));
    let after = |name: &str| {
        let r = history.iter().rev().find(|r| r[3] == name).unwrap();
        (num(&r[6]), &r[2][..10])
    };
    let last = history.last().unwrap()[2][..10].to_string();
    assert_eq!(last, "2020-12-23", "the 52nd week of 2020");
    let date = |d: &str| chrono::NaiveDate::parse_from_str(d, "%Y-%m-%d").unwrap();
    for (name, capped) in [("B", true), ("G", false)] {
        let (after, at) = after(name);
        let days = (date(&last) - date(at)).num_days() as f64;
        let grown = (after * after + 100.0 * days / 30.0).sqrt();
        assert_eq!(grown > 350.0, capped, "{name}: {grown}");
        let want = grown.min(350.0);
        assert!(
            (num(&row(&board, name)[3]) - want).abs() < 1e-9,
            "{name}: {want}"
        );
    }
    let (e_after, _) = after("E");
    assert!((num(&row(&board, "E")[3]) - e_after).abs() < 1e-9);
}

/// `--preset fide` rates a PGN's event (its `Event` tag and `EventDate`) as one round, as
/// FIDE rates a tournament: the same ratings as `--period month` when each event lies in a
/// month, other ones than a game a round; it says so, and metrics.json gives the period.
#[test]
fn fide_rates_an_event_as_one_round() {
    let dir = TempDir::new().unwrap();
    let game = |event: &str, date: &str, white: &str, black: &str, result: &str| {
        format!(
            "[Event \"{event}\"]\n[EventDate \"{date}\"]\n[Date \"{date}\"]\n[White \"{white}\"]\n\
             [Black \"{black}\"]\n[Result \"{result}\"]\n[WhiteElo \"2100\"]\n[BlackElo \"2000\"]\n\n\
             {result}\n\n"
        )
    };
    let mut pgn = String::new();
    for (w, b, r) in [
        ("a", "b", "1-0"),
        ("c", "d", "1/2-1/2"),
        ("a", "c", "1-0"),
        ("b", "d", "0-1"),
    ] {
        pgn.push_str(&game("Spring Open", "2024.03.02", w, b, r));
    }
    for (w, b, r) in [("d", "a", "1-0"), ("b", "c", "1-0"), ("a", "b", "1/2-1/2")] {
        pgn.push_str(&game("Summer Cup", "2024.07.06", w, b, r));
    }
    let file = write(dir.path(), "club.pgn", &pgn);
    let run = |name: &str, args: &[&str]| {
        let out = dir.path().join(name);
        let mut all = vec![
            "replay",
            file.to_str().unwrap(),
            "--seed-from-pgn",
            "--rank-all",
            "--out",
            out.to_str().unwrap(),
        ];
        all.extend_from_slice(args);
        let o = rate_batch(&all);
        assert!(o.status.success(), "{}", texts(&o).1);
        (
            read_csv(&out.join("leaderboard.csv")),
            serde_json::from_str::<serde_json::Value>(
                &std::fs::read_to_string(out.join("metrics.json")).unwrap(),
            )
            .unwrap(),
            texts(&o).0,
        )
    };
    let (event, m, printed) = run("event", &["--preset", "fide"]);
    assert_eq!(
        (m["period"].as_str(), m["rounds"].as_u64()),
        (Some("event"), Some(2))
    );
    assert!(
        printed.contains("each event's games rated as one"),
        "{printed}"
    );
    let (month, _, _) = run("month", &["--system", "fide", "--period", "month"]);
    assert_eq!(event, month);
    let (game, _, _) = run("game", &["--preset", "fide", "--period", "game"]);
    assert_ne!(event, game);
    // A FIDE event's change is rounded once: every rating is whole.
    assert!(
        event[1..].iter().all(|r| num(&r[2]).fract() == 0.0),
        "{event:?}"
    );
}

/// An `--initial-ratings` file that can be read once only (a pipe, `<(...)`) seeds as a
/// regular file does: it is read once (the stream's reading of the seeds by name is for a
/// regular file, or `--stream on`).
#[test]
fn seeds_from_a_pipe_are_read_once() {
    let dir = TempDir::new().unwrap();
    let input = write(
        dir.path(),
        "g.csv",
        "time,a,b,result\n2020-01-01,A,B,1\n2020-01-02,B,C,1\n",
    );
    let seeds = b"player,rating\nA,1600\n";
    let (piped, file) = (dir.path().join("piped"), dir.path().join("file"));
    let args = |out: &std::path::Path, seeds: &str| {
        let (i, o) = (
            input.to_str().unwrap().to_string(),
            out.to_str().unwrap().to_string(),
        );
        [
            "replay",
            &i,
            "--initial-ratings",
            seeds,
            "--out",
            &o,
            "--quiet",
        ]
        .map(String::from)
    };
    let a = args(&piped, "/dev/stdin");
    let o = common::with_stdin(&a.iter().map(String::as_str).collect::<Vec<_>>(), seeds);
    assert!(o.status.success(), "{}", texts(&o).1);
    let seeds_file = write(dir.path(), "seeds.csv", std::str::from_utf8(seeds).unwrap());
    let a = args(&file, seeds_file.to_str().unwrap());
    assert!(
        rate_batch(&a.iter().map(String::as_str).collect::<Vec<_>>())
            .status
            .success()
    );
    assert_eq!(
        read_csv(&piped.join("leaderboard.csv")),
        read_csv(&file.join("leaderboard.csv"))
    );
}
