//! Benchmarks of the hot paths: reading a games CSV, replaying it through Elo and Yuksel,
//! the exact pairwise sums of a large contest, and scoring a large contest. The pool of games
//! is the lab's (`rate-batch-lab`, a dev-dependency); the lab's own benchmark, rounds of the
//! matchmaking simulation, is crates/lab/benches/population.rs.
//!
//! Run with `cargo bench`; `cargo bench -- --quick` for a short pass.

use criterion::{Criterion, criterion_group, criterion_main};
use rate_batch::history::History;
use rate_batch::ingest::{IngestOptions, ingest};
use rate_batch::metrics::{Metrics, Participant};
use rate_batch::replay::{ReplayOptions, replay};
use rate_batch::systems::elo::{Elo, EloParams};
use rate_batch::systems::pairwise::logistic_sums;
use rate_batch::systems::yuksel::{Yuksel, YukselParams};
use rate_batch_lab::simulate::{PoolConfig, write_pool_games};
use std::hint::black_box;
use std::path::PathBuf;

const GAMES: usize = 100_000;

fn pool_csv() -> PathBuf {
    let path = std::env::temp_dir().join(format!("rate-batch-bench-pool-{GAMES}.csv"));
    if !path.exists() {
        let mut bytes = Vec::new();
        write_pool_games(
            &mut bytes,
            &PoolConfig {
                players: 5_000,
                games: GAMES,
                ..PoolConfig::default()
            },
        )
        .unwrap();
        std::fs::write(&path, bytes).unwrap();
    }
    path
}

fn history() -> History {
    ingest(&pool_csv(), &IngestOptions::default()).unwrap()
}

fn bench_ingest(c: &mut Criterion) {
    let path = pool_csv();
    c.bench_function("ingest 100k-game CSV", |b| {
        b.iter(|| ingest(black_box(&path), &IngestOptions::default()).unwrap());
    });
}

fn bench_replay(c: &mut Criterion) {
    let h = history();
    let opts = ReplayOptions {
        keep_history: false,
        ..ReplayOptions::default()
    };
    let elo = Elo::new(EloParams::default()).unwrap();
    c.bench_function("replay 100k games, Elo", |b| {
        b.iter(|| replay(black_box(&h), &elo, &opts));
    });
    let yuksel = Yuksel::new(YukselParams::default()).unwrap();
    c.bench_function("replay 100k games, Yuksel", |b| {
        b.iter(|| replay(black_box(&h), &yuksel, &opts));
    });
    let keep = ReplayOptions::default();
    c.bench_function("replay 100k games, Elo, keeping the history", |b| {
        b.iter(|| replay(black_box(&h), &elo, &keep));
    });
}

fn bench_large_contest(c: &mut Criterion) {
    let n = 5_000;
    let r: Vec<f64> = (0..n)
        .map(|i| 1500.0 + ((i * 7919) % 2000) as f64 - 1000.0)
        .collect();
    let w = vec![1.0; n];
    c.bench_function("pairwise logistic sums, 5000 entrants (exact)", |b| {
        b.iter(|| logistic_sums(black_box(&r), &w, 400.0, true, true));
    });
    c.bench_function("pairwise logistic sums, 5000 entrants (tabulated)", |b| {
        b.iter(|| logistic_sums(black_box(&r), &w, 400.0, false, true));
    });
    let parts: Vec<Participant> = (0..n)
        .map(|i| Participant {
            rating: r[i],
            lo: (i / 3 * 3) as u32,
            hi: (i / 3 * 3 + 2).min(n - 1) as u32,
        })
        .collect();
    c.bench_function("score a 5000-entrant contest", |b| {
        b.iter(|| {
            let mut m = Metrics::new();
            let mut p = parts.clone();
            m.add_ranking(&mut p, false);
            m.report()
        });
    });
}

criterion_group! {
    name = benches;
    config = Criterion::default().sample_size(10);
    targets = bench_ingest, bench_replay, bench_large_contest
}
criterion_main!(benches);
