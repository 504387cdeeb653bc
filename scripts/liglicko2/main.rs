//! The side of `scripts/liglicko2-compare.sh` that runs niklasf/liglicko2: reads encounters
//! (`white,black,result,utc_date_time,time_control`, the CSV of liglicko2's research tools)
//! in the order of the file, rates them with the library's default `RatingSystem`, 0.21436
//! rating periods a day and one rating per (player, Lichess speed class), and prints
//! `player,speed,rating,deviation,volatility,deviation_at_end` (the deviation as of the
//! file's last time) for every (player, speed). `--no-speed` keeps one pool.
//!
//! Built by the script in a folder of its own beside a checkout of liglicko2: it is not a
//! part of rate-batch.

use liglicko2::{Instant, Rating, RatingSystem, Score};
use std::collections::BTreeMap;

const PERIODS_PER_DAY: f64 = 0.21436;

fn speed(tc: &str) -> &'static str {
    if tc == "-" {
        return "correspondence";
    }
    let (base, inc) = tc.split_once('+').expect("base+increment");
    let seconds: u64 = base.parse::<u64>().unwrap() + 40 * inc.parse::<u64>().unwrap();
    match seconds {
        0..30 => "ultrabullet",
        30..180 => "bullet",
        180..480 => "blitz",
        480..1500 => "rapid",
        _ => "classical",
    }
}

fn instant(text: &str) -> Instant {
    let t = chrono::NaiveDateTime::parse_from_str(text, "%Y-%m-%d %H:%M:%S")
        .expect("%Y-%m-%d %H:%M:%S")
        .and_utc()
        .timestamp();
    Instant(t as f64 / 86_400.0 * PERIODS_PER_DAY)
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let no_speed = args.iter().any(|a| a == "--no-speed");
    let path = args.iter().find(|a| !a.starts_with("--")).expect("a CSV");
    let system = RatingSystem::new();
    let mut ratings: BTreeMap<(&'static str, String), Rating> = BTreeMap::new();
    let mut end = Instant(f64::NEG_INFINITY);
    let mut reader = csv::Reader::from_path(path).expect("readable");
    for row in reader.records() {
        let row = row.expect("a record");
        let score = match &row[2] {
            "1-0" => Score::WIN,
            "0-1" => Score::LOSS,
            "1/2-1/2" => Score::DRAW,
            _ => continue,
        };
        let now = instant(&row[3]);
        if now > end {
            end = now;
        }
        let pool = if no_speed { "all" } else { speed(&row[4]) };
        let (w, b) = ((pool, row[0].to_string()), (pool, row[1].to_string()));
        let get = |k: &(&'static str, String)| {
            ratings.get(k).cloned().unwrap_or_else(|| system.new_rating())
        };
        let (rw, rb) = system
            .update_ratings(&get(&w), &get(&b), score, now)
            .expect("converges");
        ratings.insert(w, rw);
        ratings.insert(b, rb);
    }
    println!("player,speed,rating,deviation,volatility,deviation_at_end");
    for ((pool, player), r) in &ratings {
        println!(
            "{player},{pool},{},{},{},{}",
            f64::from(r.rating),
            f64::from(r.deviation),
            f64::from(r.volatility),
            f64::from(system.preview_deviation(r, end))
        );
    }
}
