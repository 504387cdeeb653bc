//! The simulation lab's benchmark: rounds of Yuksel 2024's population simulation with
//! matchmaking (each round a large set of disjoint games, rated at once). Run with
//! `cargo bench -p rate-batch-lab --bench population`.

use criterion::{Criterion, criterion_group, criterion_main};
use rate_batch_core::systems::SystemVisitor;
use rate_batch_core::systems::yuksel::{Yuksel, YukselParams};
use rate_batch_lab::simlab::{Population, PopulationConfig};

fn bench_population(c: &mut Criterion) {
    // 100,000 players, 3 rounds of matchmaking (each 50,000 games rated as one round).
    let cfg = PopulationConfig {
        players: 100_000,
        rounds: 3,
        ..PopulationConfig::default()
    };
    let y = Yuksel::new(YukselParams {
        zero_sum: true,
        ..YukselParams::default()
    })
    .unwrap();
    c.bench_function("simulate 100k players x 3 rounds, Yuksel zero-sum", |b| {
        b.iter(|| {
            Population {
                cfg: &cfg,
                games: None,
            }
            .visit(&y)
            .unwrap()
        });
    });
}

criterion_group! {
    name = benches;
    config = Criterion::default().sample_size(10);
    targets = bench_population
}
criterion_main!(benches);
