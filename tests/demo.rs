//! The demo data set in `datasets/`: it is what the generator makes, and the systems recover
//! its known true strengths.

use rate_batch::ingest::{IngestOptions, ingest};
use rate_batch::replay::{ReplayOptions, replay};
use rate_batch::systems::elo::{Elo, EloParams};
use rate_batch::systems::yuksel::{Yuksel, YukselParams};
use rate_batch::systems::{Rating, RatingSystem};
use rate_batch_lab::simulate::{LeagueConfig, league, write_league_games, write_league_truth};
use std::collections::HashMap;
use std::path::Path;

fn dataset(name: &str) -> std::path::PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("datasets")
        .join(name)
}

#[test]
fn the_committed_demo_is_what_the_generator_makes() {
    let l = league(&LeagueConfig::default()).unwrap();
    let mut games = Vec::new();
    write_league_games(&mut games, &l).unwrap();
    let mut truth = Vec::new();
    write_league_truth(&mut truth, &l).unwrap();
    assert!(
        std::fs::read(dataset("chess-league.csv")).unwrap() == games,
        "regenerate: see datasets/README.md"
    );
    assert!(std::fs::read(dataset("chess-league-truth.csv")).unwrap() == truth);
    assert_eq!(l.games.len(), 2450);
}

fn ranks(v: &[f64]) -> Vec<f64> {
    let mut order: Vec<usize> = (0..v.len()).collect();
    order.sort_by(|&a, &b| v[a].total_cmp(&v[b]));
    let mut r = vec![0.0; v.len()];
    for (k, i) in order.into_iter().enumerate() {
        r[i] = k as f64;
    }
    r
}

fn spearman(a: &[f64], b: &[f64]) -> f64 {
    let (ra, rb) = (ranks(a), ranks(b));
    let n = a.len() as f64;
    let d: f64 = ra.iter().zip(&rb).map(|(x, y)| (x - y) * (x - y)).sum();
    1.0 - 6.0 * d / (n * (n * n - 1.0))
}

fn recovered<S: RatingSystem>(system: &S) -> f64 {
    let h = ingest(&dataset("chess-league.csv"), &IngestOptions::default()).unwrap();
    let r = replay(&h, system, &ReplayOptions::default()).expect("no divergence");
    let truth: HashMap<String, f64> = std::fs::read_to_string(dataset("chess-league-truth.csv"))
        .unwrap()
        .lines()
        .skip(1)
        .map(|l| {
            let (p, t) = l.rsplit_once(',').unwrap();
            (p.to_string(), t.parse().unwrap())
        })
        .collect();
    let (mut est, mut tru) = (Vec::new(), Vec::new());
    for (id, Rating { mean, .. }) in r.ratings.iter().enumerate() {
        est.push(*mean);
        tru.push(truth[h.name(id as u32)]);
    }
    spearman(&est, &tru)
}

#[test]
fn elo_and_yuksel_recover_the_true_order() {
    // A double round robin of 50 players with 24 % draws: both systems should order the
    // players much like their true strengths (measured: Elo 0.90, Yuksel 0.87).
    let elo = recovered(&Elo::new(EloParams::default()).unwrap());
    let yuksel = recovered(&Yuksel::new(YukselParams::default()).unwrap());
    assert!(elo > 0.85, "Elo's rank correlation with the truth: {elo}");
    assert!(
        yuksel > 0.85,
        "Yuksel's rank correlation with the truth: {yuksel}"
    );
}
