//! Arena files as they are published, read with no converter: a file without times, winners
//! that name a side, one column per outcome, lmarena's JSON (an array or JSON lines); `bt`'s
//! fit equal to an outside implementation's, and its intervals without an anchor near the
//! bootstrap's.

mod common;

use common::{rate_batch, read_csv, replay, replay_ok, texts, write};
use std::path::Path;
use tempfile::TempDir;

fn data(name: &str) -> std::path::PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data")
        .join(name)
}

fn metrics(dir: &Path) -> serde_json::Value {
    serde_json::from_str(&std::fs::read_to_string(dir.join("metrics.json")).unwrap()).unwrap()
}

/// A leaderboard column by its header, as numbers, by player.
fn column(dir: &Path, name: &str) -> Vec<(String, f64)> {
    let board = read_csv(&dir.join("leaderboard.csv"));
    let k = board[0].iter().position(|h| h == name).unwrap();
    board[1..]
        .iter()
        .map(|r| (r[1].clone(), r[k].parse().unwrap()))
        .collect()
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

/// lmarena-style battles (`scripts/arena_choix.py`: 2,000 battles of 14 models, a quarter of
/// them ties, `tie` and `tie (bothbad)`): `bt`'s ratings are the `choix` package's maximum a
/// posteriori fit of the same battles under the same prior (0.4.1, `opt_pairwise`, ties as
/// half a win each way; `tests/data/arena-choix.csv`), far within the 0.1 points asked.
#[test]
fn arena_battles_equal_choix_fit() {
    let dir = TempDir::new().unwrap();
    let out = dir.path().join("out");
    replay_ok(
        &data("arena-battles.json"),
        &out,
        &["--system", "bt", "--ci", "200"],
    );
    let expected = read_csv(&data("arena-choix.csv"));
    let ours = column(&out, "rating");
    assert_eq!(ours.len(), expected.len() - 1);
    for r in &expected[1..] {
        let want: f64 = r[1].parse().unwrap();
        let got = ours.iter().find(|(n, _)| *n == r[0]).unwrap().1;
        assert!((got - want).abs() < 1e-3, "{}: {got} against {want}", r[0]);
    }
    // Read as Unix seconds with a fraction, from `tstamp`.
    let m = metrics(&out);
    let reading = m["input"]["time_format"].as_str().unwrap();
    assert!(reading.contains("1722471144.6426"), "{reading}");
    assert_eq!(m["input"]["contests"], 2000);
    // The one fit an arena publishes (nothing predicted, no history): the same ratings, and
    // a summary that says nothing was scored rather than a table of dashes.
    let once = dir.path().join("once");
    let o = rate_batch(&[
        "replay",
        data("arena-battles.json").to_str().unwrap(),
        "--out",
        once.to_str().unwrap(),
        "--system",
        "bt",
        "--warmup",
        "1",
        "--history-format",
        "none",
    ]);
    assert!(o.status.success(), "{}", texts(&o).1);
    assert!(texts(&o).0.contains("none scored"), "{}", texts(&o).0);
    for ((name, a), (_, b)) in ours.iter().zip(column(&once, "rating")) {
        assert!((a - b).abs() < 1e-6, "{name}: {a} against {b}");
    }
}

/// Without `--anchor`, the intervals from the fit's curvature are of each rating less the
/// mean rating (what the votes identify; the prior alone places the mean) and, ties counted
/// by the sandwich, near the bootstrap's: their median widths within 15 %. (The prior's
/// uncertainty about the common offset made them several times wider before.)
#[test]
fn curvature_intervals_are_near_the_bootstraps() {
    let dir = TempDir::new().unwrap();
    let (hessian, boot) = (dir.path().join("hessian"), dir.path().join("boot"));
    let input = data("arena-battles.json");
    replay_ok(&input, &hessian, &["--system", "bt"]);
    replay_ok(&input, &boot, &["--system", "bt", "--ci", "200"]);
    let width = |d: &Path| {
        let (lo, hi) = (column(d, "rating_lo"), column(d, "rating_hi"));
        median(lo.iter().zip(&hi).map(|(l, h)| h.1 - l.1).collect())
    };
    let (h, b) = (width(&hessian), width(&boot));
    assert!((h / b - 1.0).abs() < 0.15, "curvature {h}, bootstrap {b}");
    assert!(h > 40.0 && h < 90.0, "{h}");
}

/// The same battles as JSON lines (one object per line, a blank line among them) give the
/// same leaderboard as the array.
#[test]
fn json_lines_read_as_the_array_does() {
    let dir = TempDir::new().unwrap();
    let array: Vec<serde_json::Value> =
        serde_json::from_str(&std::fs::read_to_string(data("arena-battles.json")).unwrap())
            .unwrap();
    let mut lines: Vec<String> = array.iter().map(ToString::to_string).collect();
    lines.insert(10, String::new());
    let jsonl = write(dir.path(), "battles.jsonl", &(lines.join("\n") + "\n"));
    let (a, b) = (dir.path().join("a"), dir.path().join("b"));
    replay_ok(&data("arena-battles.json"), &a, &["--system", "bt"]);
    replay_ok(&jsonl, &b, &["--system", "bt"]);
    assert_eq!(
        std::fs::read(a.join("leaderboard.csv")).unwrap(),
        std::fs::read(b.join("leaderboard.csv")).unwrap()
    );
    // A line that is not an object: an error naming its line.
    let bad = write(
        dir.path(),
        "bad.jsonl",
        &format!("{}\n{}\n[1, 2]\n", lines[0], lines[1]),
    );
    let o = replay(&bad, &dir.path().join("c"), &["--system", "bt"]);
    assert_eq!(o.status.code(), Some(1));
    let stderr = texts(&o).1;
    assert!(
        stderr.contains("bad.jsonl, line 3: not a JSON object"),
        "{stderr}"
    );
}

/// LLMFAO's shape: no time column, the sides `left` and `right`, the winner naming one; every
/// other way a winner may name a side or a draw, in a file with `a` and `b`.
#[test]
fn winners_naming_a_side_and_files_without_times() {
    let dir = TempDir::new().unwrap();
    let llmfao = write(
        dir.path(),
        "llmfao.csv",
        "id,prompt,model_x,model_y,worker,winner,left,right\n\
         0,1,1,2,7,left,Orca,Vicuna\n1,1,2,3,7,tie,Vicuna,Koala\n\
         2,2,3,1,8,right,Koala,Orca\n3,2,2,1,8,LEFT,Vicuna,Orca\n",
    );
    let out = dir.path().join("llmfao");
    let o = rate_batch(&[
        "replay",
        llmfao.to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
    ]);
    let stdout = texts(&o).0;
    assert!(o.status.success(), "{}", texts(&o).1);
    assert!(
        stdout.contains("times: none (no time column): the games are rated in the input's order"),
        "{stdout}"
    );
    let board = read_csv(&out.join("leaderboard.csv"));
    let orca = board.iter().find(|r| r[1] == "Orca").unwrap();
    // Won two, lost one (the last: `LEFT`, any case); no time to show.
    assert_eq!(orca[6..10], ["2", "0", "1", ""]);
    assert_eq!(metrics(&out)["input"]["untimed"], true);
    let history = read_csv(&out.join("history.csv"));
    assert_eq!(history[0][2], "time");
    assert!(history[1..].iter().all(|r| r[2].is_empty()));

    let tokens = write(
        dir.path(),
        "tokens.csv",
        "time,a,b,winner\n\
         2024-01-01,x,y,a\n2024-01-02,x,y,1\n2024-01-03,x,y,model_a\n\
         2024-01-04,x,y,b\n2024-01-05,x,y,2\n2024-01-06,x,y,model_b\n2024-01-07,x,y,right\n\
         2024-01-08,x,y,tie\n2024-01-09,x,y,tie (bothbad)\n2024-01-10,x,y,Draw\n\
         2024-01-11,x,y,0\n2024-01-12,x,y,\n2024-01-13,x,y,x\n",
    );
    let out = dir.path().join("tokens");
    replay_ok(&tokens, &out, &["--system", "elo"]);
    let board = read_csv(&out.join("leaderboard.csv"));
    let x = board.iter().find(|r| r[1] == "x").unwrap();
    assert_eq!(x[6..9], ["4", "5", "4"]);
    // A value naming nothing: the error lists what a winner may be.
    let bad = write(dir.path(), "bad.csv", "time,a,b,winner\n2024-01-01,x,y,z\n");
    let o = replay(&bad, &dir.path().join("bad"), &[]);
    assert_eq!(o.status.code(), Some(1));
    let stderr = texts(&o).1;
    assert!(
        stderr.contains("bad.csv, line 2, field `winner`: winner `z` names neither side a"),
        "{stderr}"
    );
    assert!(stderr.contains("tie (bothbad)"), "{stderr}");
}

/// One column per outcome: the Chatbot Arena's Kaggle columns read as they are, others
/// through `--map a_wins=,b_wins=,draw=` (the games format inferred from the columns `--map`
/// names, no `--format`); a row with two outcomes set, or none, is refused.
#[test]
fn one_column_per_outcome() {
    let dir = TempDir::new().unwrap();
    let kaggle = write(
        dir.path(),
        "train.csv",
        "id,model_a,model_b,prompt,response_a,response_b,winner_model_a,winner_model_b,winner_tie\n\
         1,m1,m2,\"[\"\"hi,\nthere\"\"]\",\"[\"\"a\"\"]\",\"[\"\"b\"\"]\",1,0,0\n\
         2,m2,m3,\"[\"\"q\"\"]\",\"[\"\"a\"\"]\",\"[\"\"b\"\"]\",0,0,1\n\
         3,m3,m1,\"[\"\"q\"\"]\",\"[\"\"a\"\"]\",\"[\"\"b\"\"]\",0,1,0\n",
    );
    let out = dir.path().join("kaggle");
    replay_ok(&kaggle, &out, &["--system", "bt"]);
    let board = read_csv(&out.join("leaderboard.csv"));
    let m1 = board.iter().find(|r| r[1] == "m1").unwrap();
    assert_eq!(m1[6..9], ["2", "0", "0"]);

    let mapped = write(
        dir.path(),
        "votes.csv",
        "when,p1,p2,w1,w2,t\n2024-05-01,x,y,1,0,0\n2024-05-02,x,y,0,0,1\n2024-05-03,x,y,0,1,0\n\
         2024-05-04,y,x,false,true,false\n",
    );
    let map = "time=when,a=p1,b=p2,a_wins=w1,b_wins=w2,draw=t";
    let out = dir.path().join("mapped");
    replay_ok(&mapped, &out, &["--map", map]);
    let board = read_csv(&out.join("leaderboard.csv"));
    let x = board.iter().find(|r| r[1] == "x").unwrap();
    assert_eq!(x[6..9], ["2", "1", "1"]);

    let two = write(
        dir.path(),
        "two.csv",
        "when,p1,p2,w1,w2,t\n2024-05-01,x,y,1,0,0\n2024-05-02,x,y,1,1,0\n",
    );
    let o = replay(&two, &dir.path().join("two"), &["--map", map]);
    assert_eq!(o.status.code(), Some(1));
    let stderr = texts(&o).1;
    assert!(
        stderr.contains("two.csv, line 3, field `w1`: one outcome column must be set"),
        "{stderr}"
    );
    // A mapped column that is not there is named.
    let o = replay(
        &mapped,
        &dir.path().join("missing"),
        &["--map", "time=when,a=p1,b=p2,a_wins=w1,b_wins=nope"],
    );
    assert_eq!(o.status.code(), Some(1));
    assert!(
        texts(&o).1.contains("field `nope`: missing column"),
        "{}",
        texts(&o).1
    );
}

/// A file whose columns only `--map` names (martj42's `results.csv`) is a games table without
/// `--format`.
#[test]
fn map_alone_tells_the_format() {
    let dir = TempDir::new().unwrap();
    let input = write(
        dir.path(),
        "results.csv",
        "date,home_team,away_team,home_score,away_score,neutral\n\
         2023-03-25,Spain,Norway,3,0,FALSE\n2023-03-28,Norway,Spain,1,1,TRUE\n",
    );
    let out = dir.path().join("out");
    replay_ok(
        &input,
        &out,
        &[
            "--map",
            "a=home_team,b=away_team,score_a=home_score,score_b=away_score",
        ],
    );
    let m = metrics(&out);
    assert_eq!(m["input"]["format"], "games");
    // `date` is read as the time where no time column is named.
    assert_eq!(m["input"]["time_format"], "auto: text dates and times");
    let board = read_csv(&out.join("leaderboard.csv"));
    let spain = board.iter().find(|r| r[1] == "Spain").unwrap();
    assert_eq!(spain[6..10], ["1", "1", "0", "2023-03-28T00:00:00Z"]);
}
