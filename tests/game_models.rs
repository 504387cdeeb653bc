//! What real games carry: the first side's advantage (given, fitted on the warm-up, switched
//! off by a neutral column) and the three outcomes' predictions.

// Exception to clippy::too_many_lines: a test here is one scenario with its table of
// cases and its checks, read top to bottom; cut into pieces it would only scatter.
#![allow(clippy::too_many_lines)]

mod common;

use common::{rate_batch, read_csv, replay_ok, texts, write};
use tempfile::TempDir;

/// The error of replaying a games file that must fail (asserted), as printed.
fn games_error(dir: &std::path::Path, text: &str) -> String {
    let bad = write(dir, "bad.csv", text);
    let o = rate_batch(&[
        "replay",
        bad.to_str().unwrap(),
        "--format",
        "games",
        "--out",
        dir.join("bad").to_str().unwrap(),
    ]);
    let err = texts(&o).1;
    assert!(!o.status.success(), "{err}");
    err
}

fn metrics(dir: &std::path::Path) -> serde_json::Value {
    serde_json::from_str(&std::fs::read_to_string(dir.join("metrics.json")).unwrap()).unwrap()
}

/// A generated league with a known home advantage of 100 Elo points: 40 players of
/// strengths spread 200 points, every pair meeting home and away in each of 8 seasons, the
/// home side winning with probability `1 / (1 + 10^(-(x_h + 100 - x_a) / 400))`; every 10th
/// game on neutral ground (`neutral` TRUE), where the advantage is not there.
fn home_league(dir: &std::path::Path) -> std::path::PathBuf {
    let mut x: u64 = 20_261_125;
    let mut uniform = move || {
        x = x
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        (x >> 11) as f64 / (1u64 << 53) as f64
    };
    let n = 40;
    let strength: Vec<f64> = (0..n)
        .map(|i| 200.0 * (i as f64 - (n - 1) as f64 / 2.0) / 11.5)
        .collect();
    let mut text = String::from("date,home,away,result,neutral\n");
    let mut day = 0;
    for _season in 0..8 {
        for h in 0..n {
            for a in 0..n {
                if h == a {
                    continue;
                }
                day += 1;
                let neutral = day % 10 == 0;
                let adv = if neutral { 0.0 } else { 100.0 };
                let p = 1.0 / (1.0 + 10f64.powf(-(strength[h] + adv - strength[a]) / 400.0));
                let result = u8::from(uniform() < p);
                let (y, m, d) = (2000 + day / 360, 1 + (day / 30) % 12, 1 + day % 28);
                text.push_str(&format!(
                    "{y:04}-{m:02}-{d:02},p{h:02},p{a:02},{result},{}\n",
                    if neutral { "TRUE" } else { "FALSE" }
                ));
            }
        }
    }
    write(dir, "home.csv", &text)
}

/// `--advantage auto` recovers the generated 100 points within 15 (fitted on the warm-up,
/// here its first 30 %, by Bradley-Terry), for Elo and for bt itself, and improves Elo's
/// log-loss over no advantage.
#[test]
fn the_advantage_is_recovered_from_the_warmup() {
    let dir = TempDir::new().unwrap();
    let input = home_league(dir.path());
    let map = ["--format", "games", "--map", "a=home,b=away,time=date"];
    let run = |name: &str, extra: &[&str]| {
        let out = dir.path().join(name);
        let mut args = map.to_vec();
        args.extend_from_slice(&["--warmup", "0.3"]);
        args.extend_from_slice(extra);
        replay_ok(&input, &out, &args);
        metrics(&out)
    };
    let fitted = run("elo-auto", &["--system", "elo", "--advantage", "auto"]);
    let adv = &fitted["advantage"];
    let elo = adv["elo"].as_f64().unwrap();
    assert!((elo - 100.0).abs() < 15.0, "{adv}");
    assert_eq!(
        adv["points"].as_f64(),
        Some(elo),
        "Elo's points are Elo points"
    );
    assert_eq!(fitted["params"]["advantage"].as_f64(), Some(elo));
    // 8 seasons of 1,560 games: the first 30 %, of which 9 in 10 with a first side.
    assert_eq!(adv["warmup_contests"].as_u64(), Some(3744));
    let with_first_side = adv["games_with_a_first_side"].as_u64().unwrap();
    assert!(
        (3360..=3380).contains(&with_first_side),
        "{with_first_side}"
    );
    let plain = run("elo", &["--system", "elo"]);
    let ll = |m: &serde_json::Value| m["metrics"]["two_player"]["log_loss"].as_f64().unwrap();
    assert!(
        ll(&fitted) < ll(&plain) - 0.005,
        "{} {}",
        ll(&fitted),
        ll(&plain)
    );
    let bt = run("bt-auto", &["--system", "bt", "--advantage", "auto"]);
    let own = bt["fitted"]["advantage"].as_f64().unwrap();
    assert!((own - 100.0).abs() < 15.0, "{}", bt["fitted"]);
    assert_eq!(bt["params"]["fit_advantage"].as_bool(), Some(true));
}

/// A game on neutral ground is rated as without the advantage: the same leaderboard as with
/// no advantage at all; the same game at home is not.
#[test]
fn a_neutral_game_has_no_advantage() {
    let dir = TempDir::new().unwrap();
    let games = |neutral: &str| {
        format!(
            "time,a,b,result,neutral\n2024-01-01,x,y,1,{neutral}\n2024-01-02,y,z,0.5,{neutral}\n"
        )
    };
    let neutral = write(dir.path(), "neutral.csv", &games("yes"));
    let home = write(dir.path(), "home.csv", &games(""));
    let board = |input: &std::path::Path, name: &str, extra: &[&str]| {
        let out = dir.path().join(name);
        let mut args = vec!["--format", "games", "--warmup", "0"];
        args.extend_from_slice(extra);
        replay_ok(input, &out, &args);
        std::fs::read(out.join("leaderboard.csv")).unwrap()
    };
    for system in ["elo", "glicko2", "trueskill"] {
        let adv = if system == "trueskill" { "1" } else { "60" };
        let none = board(&home, &format!("{system}-none"), &["--system", system]);
        let given = ["--system", system, "--advantage", adv];
        let on_neutral = board(&neutral, &format!("{system}-neutral"), &given);
        let at_home = board(&home, &format!("{system}-home"), &given);
        assert_eq!(on_neutral, none, "{system}");
        assert_ne!(at_home, none, "{system}");
    }
    // A value that is not true or false is an error naming the line and the column.
    let err = games_error(
        dir.path(),
        "time,a,b,result,neutral\n2024-01-01,x,y,1,maybe\n",
    );
    assert!(
        err.contains("line 2") && err.contains("neutral") && err.contains("maybe"),
        "{err}"
    );
    // A system without a first side refuses an advantage.
    let o = rate_batch(&[
        "replay",
        home.to_str().unwrap(),
        "--format",
        "games",
        "--system",
        "elo-mmr",
        "--advantage",
        "50",
        "--out",
        dir.path().join("refused").to_str().unwrap(),
    ]);
    assert_eq!(o.status.code(), Some(2), "{}", texts(&o).1);
    assert!(
        texts(&o).1.contains("no first-side advantage"),
        "{}",
        texts(&o).1
    );
}

/// A file of winners and losers (the winner column is side a's own) has no first side:
/// `--advantage auto` has nothing to fit and says so.
#[test]
fn winner_loser_files_have_no_first_side() {
    let dir = TempDir::new().unwrap();
    let mut text = String::from("date,winner_name,loser_name\n");
    for d in 1..=28 {
        text.push_str(&format!("2024-02-{d:02},p{},p{}\n", d % 5, (d + 1) % 5));
    }
    let input = write(dir.path(), "wl.csv", &text);
    let o = rate_batch(&[
        "replay",
        input.to_str().unwrap(),
        "--format",
        "games",
        "--map",
        "a=winner_name,b=loser_name,winner=winner_name,time=date",
        "--advantage",
        "auto",
        "--out",
        dir.path().join("wl").to_str().unwrap(),
    ]);
    assert!(!o.status.success());
    assert!(
        texts(&o).1.contains("no game with a first side"),
        "{}",
        texts(&o).1
    );
}

/// Every system's two-sided predictions come with three outcomes: the three-outcome
/// log-loss and the draw rates in metrics.json and in compare's table; for a system without
/// a draw model of its own, the fitted draw parameter (the generated league's draws come
/// from Davidson's model with nu = 0.8: the fit on Elo's predictions lands near it).
#[test]
fn three_outcomes_are_predicted_and_scored() {
    let dir = TempDir::new().unwrap();
    let league = common::league(dir.path(), 24);
    let out = dir.path().join("cmp");
    let o = rate_batch(&[
        "compare",
        league.to_str().unwrap(),
        "--systems",
        "elo,glicko2,trueskill,bt",
        "--param",
        "bt:ties=davidson",
        "--out",
        out.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", texts(&o).1);
    assert!(texts(&o).0.contains("log-loss 3"), "{}", texts(&o).0);
    let rows = read_csv(&out.join("compare.csv"));
    let col = rows[0].iter().position(|h| h == "log_loss_3").unwrap();
    for r in &rows[1..] {
        let v: f64 = r[col].parse().unwrap();
        assert!(v > 0.5 && v < 1.2, "{r:?}");
    }
    let elo = metrics(&out.join("elo"));
    let t = &elo["metrics"]["two_player"];
    let (rate, predicted) = (
        t["draw_rate"].as_f64().unwrap(),
        t["predicted_draw_rate"].as_f64().unwrap(),
    );
    // (Shares in percent, as every share of the outputs.)
    assert!(rate > 15.0 && (predicted - rate).abs() < 5.0, "{t}");
    let nu = elo["draw_model"]["nu"].as_f64().unwrap();
    assert!(nu > 0.5 && nu < 1.2, "{}", elo["draw_model"]);
    // TrueSkill and bt with Davidson's ties predict draws themselves.
    for own in ["trueskill", "bt"] {
        assert!(metrics(&out.join(own)).get("draw_model").is_none(), "{own}");
    }
}

/// Partial play: a member's share of a game written `name*share` in a games file's team cell,
/// or in a standings file's `share` column. TrueSkill gives the Python package `trueskill`
/// 0.4.5's numbers (`rate([(r, r), (r, r)], weights=[(1, 0.5), (1, 1)])` from newcomers; see
/// the core test `partial_play_matches_the_python_package`), within 1e-5 (the package's
/// approximate normal functions); a member of share 0 is left as he was (Elo) or only takes
/// the dynamics (TrueSkill: sigma^2 + tau^2); a system without member weights refuses.
#[test]
fn partial_play_is_read_and_honoured() {
    let dir = TempDir::new().unwrap();
    let games = write(
        dir.path(),
        "pp.csv",
        "time,a,b,result\n2024-01-01,a1 + a2*0.5,b1+b2,1\n",
    );
    let standings = write(
        dir.path(),
        "pp-standings.csv",
        "contest,time,player,rank,team,share\n\
         c1,2024-01-01,a1,1,A,\nc1,2024-01-01,a2,1,A,0.5\n\
         c1,2024-01-01,b1,2,B,1\nc1,2024-01-01,b2,2,B,\n",
    );
    let want = [
        ("a1", 30.674785065660878, 7.494813543662416),
        ("a2", 27.83739253283044, 8.132133740921446),
        ("b1", 19.32521493433912, 7.494813543662416),
        ("b2", 19.32521493433912, 7.494813543662416),
    ];
    for (input, format) in [(&games, "games"), (&standings, "standings")] {
        let out = dir.path().join(format);
        replay_ok(
            input,
            &out,
            // (The package's draw probability, 0.10: rate-batch's default is the input's
            // draw rate, none here.)
            &[
                "--format",
                format,
                "--system",
                "trueskill",
                "--warmup",
                "0",
                "--param",
                "draw_probability=0.1",
            ],
        );
        let board = read_csv(&out.join("leaderboard.csv"));
        for (name, mu, sigma) in want {
            let row = board.iter().find(|r| r[1] == name).unwrap();
            let (m, s): (f64, f64) = (row[2].parse().unwrap(), row[3].parse().unwrap());
            assert!(
                (m - mu).abs() < 1e-5 && (s - sigma).abs() < 1e-5,
                "{format} {name}: {m} {s}"
            );
        }
    }
    // Share 0: Elo leaves him at 1500 and gives his mate the whole change; TrueSkill only
    // adds the dynamics (25, 8.333749989583854: the package's numbers).
    let zero = write(
        dir.path(),
        "zero.csv",
        "time,a,b,result\n2024-01-01,a1+a2*0,b1,1\n",
    );
    let rating = |system: &str, name: &str| -> (f64, String) {
        let out = dir.path().join(format!("zero-{system}"));
        replay_ok(
            &zero,
            &out,
            &["--format", "games", "--system", system, "--warmup", "0"],
        );
        let board = read_csv(&out.join("leaderboard.csv"));
        let row = board.iter().find(|r| r[1] == name).unwrap();
        (row[2].parse().unwrap(), row[3].clone())
    };
    assert_eq!(rating("elo", "a2").0, 1500.0);
    assert_eq!(
        rating("elo", "a1").0,
        1516.0,
        "a1 plays the whole game: K/2 for an even win"
    );
    let (mu, sigma) = rating("trueskill", "a2");
    assert_eq!(mu, 25.0);
    assert!((sigma.parse::<f64>().unwrap() - 8.333749989583854).abs() < 1e-9);
    // A system without member weights refuses, naming why; a share outside [0, 1] is an
    // input error naming the line and field.
    let o = rate_batch(&[
        "replay",
        games.to_str().unwrap(),
        "--format",
        "games",
        "--system",
        "glicko2",
        "--out",
        dir.path().join("refused").to_str().unwrap(),
    ]);
    assert!(!o.status.success());
    assert!(
        texts(&o).1.contains("cannot rate partial play"),
        "{}",
        texts(&o).1
    );
    let err = games_error(dir.path(), "time,a,b,result\n2024-01-01,x+y*1.5,z,1\n");
    assert!(
        err.contains("line 2") && err.contains("within 0 and 1"),
        "{err}"
    );
}

/// Federation rules and seeds from the data: a PGN whose players' first games carry their
/// ratings (`WhiteElo`/`BlackElo`), rated by `--preset fide` with `--seed-from-pgn` in one
/// event (`--period day`). By hand (FIDE 8.3, table 8.1.2): Ann (2100, seeded as
/// established: K 20) beats Bob (2300; D = -200: PD 0.24), draws Cid (2050; D = 50: 0.57)
/// and loses to Dan (2700; D = -600 counts as -400: 0.08): 20 x (1.5 - 0.89) = 12.2, rounded
/// 12: 2112. A later tag (Ann's 2500 in the second event) does not reseed her.
#[test]
fn fide_preset_with_seeds_from_pgn() {
    let dir = TempDir::new().unwrap();
    let game = |date: &str, w: &str, we: &str, b: &str, be: &str, r: &str| {
        format!(
            "[Event \"e\"]\n[Date \"{date}\"]\n[White \"{w}\"]\n[Black \"{b}\"]\n\
             [WhiteElo \"{we}\"]\n[BlackElo \"{be}\"]\n[Result \"{r}\"]\n\n{r}\n\n"
        )
    };
    let mut pgn = String::new();
    pgn += &game("2024.03.01", "Ann", "2100", "Bob", "2300", "1-0");
    pgn += &game("2024.03.01", "Cid", "2050", "Ann", "2100", "1/2-1/2");
    pgn += &game("2024.03.01", "Ann", "2100", "Dan", "2700", "0-1");
    pgn += &game("2024.04.01", "Ann", "2500", "Eve", "?", "1/2-1/2");
    let input = write(dir.path(), "club.pgn", &pgn);
    let out = dir.path().join("fide");
    replay_ok(
        &input,
        &out,
        &[
            "--preset",
            "fide",
            "--seed-from-pgn",
            "--period",
            "day",
            "--warmup",
            "0",
        ],
    );
    let board = read_csv(&out.join("leaderboard.csv"));
    let rating = |name: &str| -> f64 {
        board.iter().find(|r| r[1] == name).unwrap()[2]
            .parse()
            .unwrap()
    };
    // Ann's second event: 2112 v Eve, unrated (the FIDE floor 1400 as a newcomer, K 40 for
    // her): D = 712 counts as 400: PD 0.92; K 20 x (0.5 - 0.92) = -8.4: 2104.
    assert_eq!(rating("Ann"), 2104.0);
    assert_eq!(rating("Bob"), 2300.0 - (20.0f64 * 0.76).round());
    let m = metrics(&out);
    assert_eq!(m["system"], "fide");
    assert_eq!(
        m["seeded_from_pgn"].as_u64(),
        Some(4),
        "Ann, Bob, Cid, Dan; not Eve"
    );
    // Seeds need PGN.
    let csv = write(dir.path(), "g.csv", "time,a,b,result\n2024-01-01,x,y,1\n");
    let o = rate_batch(&[
        "replay",
        csv.to_str().unwrap(),
        "--seed-from-pgn",
        "--out",
        dir.path().join("no").to_str().unwrap(),
    ]);
    assert_eq!(o.status.code(), Some(2), "{}", texts(&o).1);
    assert!(texts(&o).1.contains("PGN rating tags"), "{}", texts(&o).1);
}

/// `--preset lichess` is Glicko-2 with liglicko2's settings, its fractional growth of
/// 0.21436 periods a day, the input's order and Lichess's leaderboard rule; an explicit
/// option goes over the preset's (0 included); compare takes presets in --systems (with
/// their growth), and tune goes over a preset's parameters.
#[test]
fn presets_in_replay_compare_and_tune() {
    let dir = TempDir::new().unwrap();
    let league = common::league(dir.path(), 12);
    let out = dir.path().join("lichess");
    replay_ok(&league, &out, &["--preset", "lichess"]);
    let m = metrics(&out);
    assert_eq!(m["system"], "glicko2");
    let p = &m["params"];
    assert_eq!(
        (
            p["tau"].as_f64(),
            p["start_rd"].as_f64(),
            p["start_volatility"].as_f64()
        ),
        (Some(0.75), Some(500.0), Some(0.09))
    );
    assert_eq!(
        (p["min_rd"].as_f64(), p["max_rd"].as_f64()),
        (Some(45.0), Some(500.0))
    );
    // liglicko2's RatingSystem defaults: volatility and rating bounds, the regulator and
    // the change a game may make.
    assert_eq!(
        (
            p["min_volatility"].as_f64(),
            p["max_volatility"].as_f64(),
            p["min_rating"].as_f64(),
            p["max_rating"].as_f64(),
            p["regulator"].as_f64(),
            p["max_delta"].as_f64()
        ),
        (
            Some(0.01),
            Some(0.1),
            Some(400.0),
            Some(4000.0),
            Some(1.02),
            Some(700.0)
        )
    );
    // Its growth: the fraction of Lichess's period passed (0.21436 a day), no decay, the
    // input's order, Lichess's leaderboard rule.
    assert_eq!(m["decay_per_day"].as_f64(), Some(0.0));
    assert_eq!(m["growth"], "fractional");
    assert!((m["rating_period_days"].as_f64().unwrap() * 0.21436 - 1.0).abs() < 1e-12);
    assert_eq!(m["input_order"], true);
    assert_eq!(
        (
            m["status"]["provisional_above"].as_f64(),
            m["status"]["min_contests"].as_u64(),
            m["status"]["active_within_days"].as_f64()
        ),
        (Some(75.0), Some(30), Some(7.0))
    );
    // An explicit value of an option the preset sets is honoured, 0 included.
    let zero = dir.path().join("zero");
    replay_ok(
        &league,
        &zero,
        &[
            "--preset",
            "lichess",
            "--decay-per-day",
            "0",
            "--growth",
            "rounds",
            "--order",
            "time",
        ],
    );
    let z = metrics(&zero);
    assert_eq!(
        (z["growth"].as_str(), z.get("input_order")),
        (Some("rounds"), None)
    );
    let decayed = dir.path().join("decayed");
    replay_ok(
        &league,
        &decayed,
        &["--preset", "lichess", "--decay-per-day", "3"],
    );
    assert_eq!(metrics(&decayed)["decay_per_day"].as_f64(), Some(3.0));
    // A parameter given goes over the preset's.
    let over = dir.path().join("over");
    replay_ok(&league, &over, &["--preset", "lichess", "--tau", "0.3"]);
    assert_eq!(metrics(&over)["params"]["tau"].as_f64(), Some(0.3));
    let cmp = dir.path().join("cmp");
    let o = rate_batch(&[
        "compare",
        league.to_str().unwrap(),
        "--systems",
        "elo,fide,uscf,lichess",
        "--out",
        cmp.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", texts(&o).1);
    let g2 = metrics(&cmp.join("glicko2"));
    assert_eq!(g2["params"]["max_rd"].as_f64(), Some(500.0));
    assert_eq!(g2["growth"], "fractional");
    assert_eq!(metrics(&cmp.join("elo"))["growth"], "time");
    // Tuning tau over the preset differs from tuning it over Glicko-2's defaults (the
    // preset's deviations and volatility stay under the grid).
    let tune = |name: &str, base: &[&str]| {
        let out = dir.path().join(name);
        let mut args = vec!["tune", league.to_str().unwrap()];
        args.extend_from_slice(base);
        args.extend_from_slice(&["--grid", "tau=0.5,0.75", "--out", out.to_str().unwrap()]);
        let o = rate_batch(&args);
        assert!(o.status.success(), "{}", texts(&o).1);
        let rows = read_csv(&out.join("tune.csv"));
        let ll = rows[0].iter().position(|h| h == "log_loss").unwrap();
        rows[1][ll].clone()
    };
    assert_ne!(
        tune("tune-lichess", &["--preset", "lichess"]),
        tune("tune-glicko2", &["--system", "glicko2"])
    );
    let o = rate_batch(&[
        "replay",
        league.to_str().unwrap(),
        "--preset",
        "ecf",
        "--out",
        dir.path().join("x").to_str().unwrap(),
    ]);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        texts(&o).1.contains("fide, uscf, lichess"),
        "{}",
        texts(&o).1
    );
}

/// A file of winners and losers read with `--map winner=...,loser=...` gives what the same
/// file gives read the old way with its sides swapped (`a` the loser, `b` the winner, the
/// `winner` column naming who won): the same metrics (log-loss, Brier and accuracy are
/// symmetric) and the same calibration chart (drawn from each match's favourite).
#[test]
fn winner_loser_files_read_either_way_alike() {
    let dir = TempDir::new().unwrap();
    let mut text = String::from("date,winner_name,loser_name\n");
    let mut x: u64 = 7;
    for d in 0..300 {
        x = x
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        let (p, q) = ((x >> 33) % 9, (x >> 40) % 9);
        if p == q {
            continue;
        }
        // Lower numbers win more often: the winner is the smaller one 3 times in 4.
        let (w, l) = if (p < q) != (x >> 20).is_multiple_of(4) {
            (p, q)
        } else {
            (q, p)
        };
        text.push_str(&format!(
            "2024-{:02}-{:02},p{w},p{l}\n",
            1 + d / 28 % 12,
            1 + d % 28
        ));
    }
    let input = write(dir.path(), "wl.csv", &text);
    let run = |name: &str, map: &str| {
        let out = dir.path().join(name);
        replay_ok(
            &input,
            &out,
            &[
                "--format", "games", "--map", map, "--report", "--system", "glicko2",
            ],
        );
        let m = metrics(&out);
        let html = std::fs::read_to_string(out.join("report.html")).unwrap();
        let start = html.find("Calibration of predicted win").unwrap();
        let chart = html[start..].split("</svg>").next().unwrap().to_string();
        (m["metrics"].clone(), chart)
    };
    let (m1, c1) = run("wl", "winner=winner_name,loser=loser_name,time=date");
    let (m2, c2) = run(
        "swapped",
        "a=loser_name,b=winner_name,winner=winner_name,time=date",
    );
    // The same to the last digits a system's complementary probabilities allow.
    let close = |a: &serde_json::Value, b: &serde_json::Value| {
        for (group, fields) in a.as_object().unwrap() {
            for (k, v) in fields.as_object().unwrap() {
                let w = &b[group][k];
                match (v.as_f64(), w.as_f64()) {
                    (Some(x), Some(y)) => assert!((x - y).abs() < 1e-9, "{group}.{k}: {x} {y}"),
                    _ => assert_eq!(v, w, "{group}.{k}"),
                }
            }
        }
    };
    close(&m1, &m2);
    assert_eq!(c1, c2);
    assert!(m1["two_player"]["games_scored"].as_u64().unwrap() > 200);
}

/// `--predictions`: predictions.csv holds every scored game's predictions and outcome, from
/// which metrics.json's two-sided figures come back to the last digits; contests.csv every
/// scored contest's ranking metrics, whose participant-weighted mean is metrics.json's.
#[test]
fn predictions_reproduce_the_metrics() {
    let dir = TempDir::new().unwrap();
    let league = common::league(dir.path(), 14);
    let out = dir.path().join("p");
    replay_ok(&league, &out, &["--system", "glicko2", "--predictions"]);
    let m = metrics(&out);
    let t = &m["metrics"]["two_player"];
    let rows = read_csv(&out.join("predictions.csv"));
    assert_eq!(
        rows[0],
        [
            "contest",
            "time",
            "a",
            "b",
            "first_side",
            "p_a",
            "p_win",
            "p_draw",
            "p_loss",
            "outcome"
        ]
    );
    assert_eq!(rows.len() as u64 - 1, t["games_scored"].as_u64().unwrap());
    let (mut ll, mut ll3) = (0.0, 0.0);
    for r in &rows[1..] {
        let v: Vec<f64> = r[5..].iter().map(|x| x.parse().unwrap()).collect();
        let (p, y) = (v[0].clamp(1e-15, 1.0 - 1e-15), v[4]);
        ll -= y * p.ln() + (1.0 - y) * (1.0 - p).ln();
        let k = if y == 1.0 {
            1
        } else if y == 0.5 {
            2
        } else {
            3
        };
        ll3 -= v[k].max(1e-15).ln();
        assert!((v[1] + v[2] + v[3] - 1.0).abs() < 1e-12, "{r:?}");
        assert!((v[1] + v[2] / 2.0 - v[0]).abs() < 1e-12, "{r:?}");
    }
    let n = (rows.len() - 1) as f64;
    assert!((ll / n - t["log_loss"].as_f64().unwrap()).abs() < 1e-12);
    assert!((ll3 / n - t["log_loss_3"].as_f64().unwrap()).abs() < 1e-12);
    let contests = read_csv(&out.join("contests.csv"));
    let all = &m["metrics"]["all"];
    assert_eq!(
        contests.len() as u64 - 1,
        all["contests_scored"].as_u64().unwrap()
    );
    let (mut sum, mut count) = (0.0, 0.0);
    for r in &contests[1..] {
        let k: f64 = r[2].parse().unwrap();
        sum += k * r[3].parse::<f64>().unwrap();
        count += k;
    }
    assert!((sum / count - all["pair_inversion"].as_f64().unwrap()).abs() < 1e-9);
}

/// `--leaderboard-format json|parquet`: the CSV's rows and columns, typed, in place of it.
#[test]
fn leaderboards_in_json_and_parquet() {
    use polars::prelude::*;
    let dir = TempDir::new().unwrap();
    let league = common::league(dir.path(), 10);
    let csv_out = dir.path().join("csv");
    replay_ok(&league, &csv_out, &["--system", "glicko2", "--ci", "20"]);
    let csv = read_csv(&csv_out.join("leaderboard.csv"));
    let json_out = dir.path().join("json");
    replay_ok(
        &league,
        &json_out,
        &[
            "--system",
            "glicko2",
            "--ci",
            "20",
            "--leaderboard-format",
            "json",
        ],
    );
    assert!(!json_out.join("leaderboard.csv").exists());
    let json: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(json_out.join("leaderboard.json")).unwrap())
            .unwrap();
    let rows = json.as_array().unwrap();
    assert_eq!(rows.len(), csv.len() - 1);
    for (r, c) in rows.iter().zip(&csv[1..]) {
        for (k, name) in csv[0].iter().enumerate() {
            // (serde_json's parser may miss the last bit of a float: compared as numbers.)
            match &r[name.as_str()] {
                serde_json::Value::String(s) => assert_eq!(s, &c[k], "{name}"),
                serde_json::Value::Number(n) => {
                    let want: f64 = c[k].parse().unwrap();
                    let got = n.as_f64().unwrap();
                    assert!(
                        (got - want).abs() <= 1e-15 * want.abs(),
                        "{name}: {got} {want}"
                    );
                }
                serde_json::Value::Null => assert_eq!(c[k], "", "{name}"),
                other => panic!("{name}: {other}"),
            }
        }
    }
    let pq_out = dir.path().join("pq");
    replay_ok(
        &league,
        &pq_out,
        &[
            "--system",
            "glicko2",
            "--ci",
            "20",
            "--leaderboard-format",
            "parquet",
        ],
    );
    let df = ParquetReader::new(std::fs::File::open(pq_out.join("leaderboard.parquet")).unwrap())
        .finish()
        .unwrap();
    assert_eq!(df.height(), csv.len() - 1);
    let names: Vec<String> = df
        .get_column_names()
        .iter()
        .map(std::string::ToString::to_string)
        .collect();
    assert_eq!(names, csv[0]);
    let ratings = df.column("rating").unwrap().f64().unwrap().clone();
    for (k, c) in csv[1..].iter().enumerate() {
        assert_eq!(ratings.get(k).unwrap().to_string(), c[2]);
    }
}

/// A hostile field (a megabyte where a flag or a result goes) is named, line and column, in
/// an error that quotes only its two ends.
#[test]
fn a_huge_field_is_quoted_short() {
    let dir = TempDir::new().unwrap();
    let huge = "Z".repeat(1 << 20);
    for text in [
        format!("time,a,b,result,neutral\n2024-01-01,x,y,1,{huge}\n"),
        format!("time,a,b,result\n2024-01-01,x,y,{huge}\n"),
    ] {
        let err = games_error(dir.path(), &text);
        assert!(err.len() < 2000, "{} bytes", err.len());
        assert!(
            err.contains("line 2") && err.contains("characters left out"),
            "{err}"
        );
    }
}
