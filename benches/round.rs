//! One round of 10, 100, 1,000 and 10,000 entrants through each rating system for contests
//! of many entrants (Elo-MMR, Elo-MMchi, Codeforces, Topcoder, BAR, pairwise Glicko) and the
//! pairwise Elo and Yuksel for comparison.
//!
//! Before the timed round every player has four rated contests behind them, so the states
//! are those of a running history (Elo-MMR carries four logistic terms per player). Each
//! timed iteration starts from a fresh copy of those states (copying is not timed).
//!
//! `cargo bench --bench round`; add `-- elo-mmr/` to run one system, `-- --quick` for a short
//! pass.

use criterion::measurement::WallTime;
use criterion::{BatchSize, BenchmarkGroup, Criterion, criterion_group, criterion_main};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use rate_batch::history::{History, HistoryBuilder, PlayerId, Round, SourceInfo};
use rate_batch::systems::{ParamMap, RatingSystem, SystemKind, SystemVisitor, dispatch};
use std::hint::black_box;

const SIZES: [usize; 4] = [10, 100, 1_000, 10_000];
const WARMUP_CONTESTS: usize = 4;

/// `WARMUP_CONTESTS + 1` contests of the same `n` players, ranked by skill plus logistic
/// noise (skills N(1500, 350^2)-like, performance sd about 200); ties every 50th place.
fn contests(n: usize) -> History {
    let mut rng = ChaCha8Rng::seed_from_u64(n as u64);
    let mut b = HistoryBuilder::new();
    let ids: Vec<PlayerId> = (0..n).map(|i| b.player(&format!("p{i}"))).collect();
    let skills: Vec<f64> = (0..n)
        .map(|_| 1500.0 + 350.0 * (rng.random::<f64>() - 0.5) * 3.4)
        .collect();
    for c in 0..=WARMUP_CONTESTS {
        let mut perf: Vec<(f64, usize)> = (0..n)
            .map(|i| {
                let u: f64 = rng.random_range(1e-12..1.0);
                (skills[i] + 110.0 * (u / (1.0 - u)).ln(), i)
            })
            .collect();
        perf.sort_by(|a, b| b.0.total_cmp(&a.0));
        b.begin_contest(c as i64 * 86_400, 1.0, None, None);
        let mut place = 0;
        while place < n {
            let end = if place % 50 == 49 {
                (place + 2).min(n)
            } else {
                place + 1
            };
            for &(_, i) in &perf[place..end] {
                b.add_entry(&[ids[i]], place as u32, end as u32 - 1, None);
            }
            place = end;
        }
        b.end_contest().unwrap();
    }
    b.finish(SourceInfo::default())
}

struct TimeRound<'a, 'g> {
    group: &'a mut BenchmarkGroup<'g, WallTime>,
    history: &'a History,
    n: usize,
}

impl SystemVisitor for TimeRound<'_, '_> {
    type Output = ();
    fn visit<S: RatingSystem>(self, system: &S) {
        let order: Vec<u32> = (0..=WARMUP_CONTESTS as u32).collect();
        let mut players = vec![system.new_player(); self.n];
        for c in &order[..WARMUP_CONTESTS] {
            system.update(
                Round::new(self.history, std::slice::from_ref(c)),
                &mut players,
            );
        }
        let last = &order[WARMUP_CONTESTS..];
        self.group.bench_function(self.n.to_string(), |b| {
            b.iter_batched_ref(
                || players.clone(),
                |p| system.update(Round::new(black_box(self.history), last), p),
                BatchSize::LargeInput,
            );
        });
    }
}

fn bench_rounds(c: &mut Criterion) {
    let histories: Vec<(usize, History)> = SIZES.iter().map(|&n| (n, contests(n))).collect();
    let systems = [
        SystemKind::EloMmr,
        SystemKind::EloMmx,
        SystemKind::Codeforces,
        SystemKind::Topcoder,
        SystemKind::Bar,
        SystemKind::PairwiseGlicko,
        SystemKind::Elo,
        SystemKind::Yuksel,
    ];
    for kind in systems {
        let mut group = c.benchmark_group(kind.name());
        for (n, history) in &histories {
            let visitor = TimeRound {
                group: &mut group,
                history,
                n: *n,
            };
            dispatch(kind, &ParamMap::new(), visitor).unwrap();
        }
        group.finish();
    }
}

criterion_group! {
    name = benches;
    config = Criterion::default().sample_size(10);
    targets = bench_rounds
}
criterion_main!(benches);
