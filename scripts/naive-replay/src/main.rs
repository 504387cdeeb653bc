//! A straightforward Elo replay of a games CSV (`time,a,b,result` with side a's score 1, 0.5
//! or 0, in time order), as a user would write it with the skillratings crate: the rating of
//! every player in a hash map keyed by name, the leaderboard printed at the end. The baseline
//! that `rate-batch replay --system elo` is measured against (docs/performance.md, "Streaming and scale").

use skillratings::Outcomes;
use skillratings::elo::{EloConfig, EloRating, elo};
use std::collections::HashMap;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let path = std::env::args().nth(1).ok_or("usage: naive-replay GAMES.csv")?;
    let mut reader = csv::Reader::from_path(path)?;
    let headers = reader.headers()?.clone();
    let col = |name: &str| headers.iter().position(|h| h == name).ok_or(format!("no column {name}"));
    let (a, b, result) = (col("a")?, col("b")?, col("result")?);
    let config = EloConfig { k: 32.0 };
    let mut ratings: HashMap<String, EloRating> = HashMap::new();
    let mut record = csv::StringRecord::new();
    while reader.read_record(&mut record)? {
        let outcome = match &record[result] {
            "1" => Outcomes::WIN,
            "0" => Outcomes::LOSS,
            _ => Outcomes::DRAW,
        };
        let ra = *ratings.entry(record[a].to_string()).or_default();
        let rb = *ratings.entry(record[b].to_string()).or_default();
        let (na, nb) = elo(&ra, &rb, &outcome, &config);
        ratings.insert(record[a].to_string(), na);
        ratings.insert(record[b].to_string(), nb);
    }
    let mut board: Vec<(&String, f64)> = ratings.iter().map(|(n, r)| (n, r.rating)).collect();
    board.sort_by(|x, y| y.1.total_cmp(&x.1).then(x.0.cmp(y.0)));
    for (name, rating) in board.iter().take(10) {
        println!("{name},{rating:.1}");
    }
    Ok(())
}
