//! The streaming engine's core: a history fed to a [`Replayer`] in blocks (cut where rounds
//! end) gives the same ratings, records, history rows, metrics and snapshots, bit for bit, as
//! the whole history replayed at once, for every system, every period, and with seeds, a
//! warm-up, `as_of`, a tuning cut, contests to skip and both kinds of snapshot.

use rate_batch_core::history::{History, HistoryBuilder, SourceInfo};
use rate_batch_core::replay::{
    HistoryRow, Observer, Period, ReplayOptions, Replayer, Seed, SnapshotAt, group_rounds,
    replay_from, replayed_contests,
};
use rate_batch_core::systems::{ParamMap, RatingSystem, SystemKind, SystemVisitor, dispatch};

/// A small deterministic generator (SplitMix64).
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }
    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
}

/// 400 contests among 40 players over about four months: two-player games (some drawn, some
/// best-of-three series played back to back), team games, and standings of five to eight
/// entries with shared places; several contests a day, some at the same second.
fn history() -> History {
    let mut rng = Rng(20261124);
    let mut b = HistoryBuilder::new();
    // Players are named as they first play, as a reader names them.
    let ids: Vec<String> = (0..40).map(|i| format!("p{i}")).collect();
    let mut t = 1_700_000_000i64;
    let mut series = 0;
    let mut k = 0;
    while k < 400 {
        if rng.below(3) > 0 {
            t += rng.below(80_000) as i64;
        }
        let kind = rng.below(10);
        if kind < 5 {
            let x = rng.below(40) as usize;
            let mut y = rng.below(40) as usize;
            while y == x {
                y = rng.below(40) as usize;
            }
            let (x, y) = (b.player(&ids[x]), b.player(&ids[y]));
            let games = if kind == 0 { 3 } else { 1 };
            let name = format!("s{series}");
            series += 1;
            for _ in 0..games {
                let score = [0.0, 0.5, 1.0][rng.below(3) as usize];
                let s = (games > 1).then_some(name.as_str());
                b.add_game(t, 1.0, s, (&[x], &[y]), score, None).unwrap();
                t += 600;
                k += 1;
            }
        } else if kind < 7 {
            let mut pick: Vec<u32> = Vec::new();
            while pick.len() < 4 {
                let p = b.player(&ids[rng.below(40) as usize]);
                if !pick.contains(&p) {
                    pick.push(p);
                }
            }
            let score = [0.0, 0.5, 1.0][rng.below(3) as usize];
            b.add_game(t, 2.0, None, (&pick[..2], &pick[2..]), score, None)
                .unwrap();
            k += 1;
        } else {
            let n = 5 + rng.below(4) as usize;
            let mut pick: Vec<u32> = Vec::new();
            while pick.len() < n {
                let p = b.player(&ids[rng.below(40) as usize]);
                if !pick.contains(&p) {
                    pick.push(p);
                }
            }
            let ranks: Vec<u64> = (0..n).map(|_| 1 + rng.below(4)).collect();
            let places = rate_batch_core::history::ranks_to_ranges(&ranks);
            b.begin_contest(t, 1.0, Some(&format!("c{k}")), None);
            for (p, (lo, hi)) in pick.iter().zip(places) {
                b.add_entry(&[*p], lo, hi, None);
            }
            b.end_contest().unwrap();
            k += 1;
        }
    }
    b.finish(SourceInfo::default())
}

/// The blocks a streaming reader hands over: the contests of `h` given again to a builder,
/// which hands over what it holds at each cut (with only the names new since the last).
fn taken_blocks(h: &History, cuts: &[usize]) -> Vec<History> {
    // The same ids: the generator named every player first; a reader names them as they come.
    let mut b = HistoryBuilder::new();
    let mut blocks = Vec::new();
    let mut next = cuts.iter().peekable();
    for c in h.contests() {
        if next.peek().is_some_and(|&&cut| cut == c.index()) {
            next.next();
            blocks.push(b.take_block(b.pending()));
        }
        let series = c.series().map(|s| h.series_name(s).to_string());
        b.begin_contest(c.time(), c.weight(), c.label(), series.as_deref());
        for e in c.entries() {
            let ids: Vec<u32> = e.players.iter().map(|&p| b.player(h.name(p))).collect();
            b.add_entry(&ids, e.lo, e.hi, e.score);
        }
        if c.first_side() {
            b.set_first_side();
        }
        b.end_contest().unwrap();
    }
    blocks.push(b.take_block(b.pending()));
    blocks
}

/// The positions where a block may end: no round of `period` has contests on both sides.
fn cuts(h: &History, period: Period) -> Vec<usize> {
    let rounds = group_rounds(h, period);
    (1..h.len())
        .filter(|&i| {
            (0..rounds.len()).all(|r| {
                let c = rounds.round(r);
                c.iter().all(|&x| (x as usize) < i) || c.iter().all(|&x| (x as usize) >= i)
            })
        })
        .collect()
}

struct Rows(Vec<HistoryRow>);

impl Observer for Rows {
    fn rows(&mut self, rows: &[HistoryRow]) {
        self.0.extend_from_slice(rows);
    }
}

/// Everything a replay gives, as text with every float's bits.
fn outcome<S: RatingSystem>(
    system: &S,
    h: &History,
    opts: &ReplayOptions,
    at: SnapshotAt,
    blocks: Option<&[usize]>,
    taken: bool,
) -> String {
    let mut rows = Rows(Vec::new());
    let result_and_snap = match blocks {
        None => replay_from(h, system, opts, &mut rows, None, at),
        Some(cuts) => (|| {
            let mut r = Replayer::new(system, opts, None, at, replayed_contests(h, opts));
            if taken {
                for block in taken_blocks(h, cuts) {
                    r.feed(block, &mut rows)?;
                }
            } else {
                let mut from = 0;
                for &end in cuts.iter().chain(std::iter::once(&h.len())) {
                    r.feed(h.block(from..end), &mut rows)?;
                    from = end;
                }
            }
            r.finish(&mut rows)
        })(),
    };
    // A system that runs away must do so at the same place either way.
    let (result, snap) = match result_and_snap {
        Ok(x) => x,
        Err(d) => return format!("diverged: {d}"),
    };
    let bits = |v: f64| v.to_bits();
    let ratings: Vec<(u64, Option<u64>)> = result
        .ratings
        .iter()
        .map(|r| (bits(r.mean), r.uncertainty.map(bits)))
        .collect();
    let rows: Vec<_> = rows
        .0
        .iter()
        .map(|r| {
            (
                r.round,
                r.contest,
                r.contest_id,
                r.player,
                bits(r.before),
                bits(r.after),
                bits(r.uncertainty),
                bits(r.performance),
            )
        })
        .collect();
    let snap = snap.map(|s| {
        (
            serde_json::to_string(&s.carry).unwrap(),
            s.applied,
            s.open_from,
        )
    });
    format!(
        "{ratings:?}\n{:?}\n{rows:?}\n{}\n{} {} {}\n{snap:?}",
        result.records,
        serde_json::to_string(&result.metrics).unwrap(),
        result.rounds,
        result.rounds_before,
        result.warmup_contests,
    )
}

struct Check<'a> {
    h: &'a History,
    opts: &'a ReplayOptions,
    at: SnapshotAt,
    blocks: &'a [usize],
}

impl SystemVisitor for Check<'_> {
    type Output = ();
    fn visit<S: RatingSystem>(self, system: &S) {
        let whole = outcome(system, self.h, self.opts, self.at, None, false);
        let pieces = outcome(system, self.h, self.opts, self.at, Some(self.blocks), false);
        let taken = outcome(system, self.h, self.opts, self.at, Some(self.blocks), true);
        assert!(
            whole == taken,
            "{}: blocks taken from a builder at {:?} differ from the whole ({:?}, {:?})",
            system.name(),
            self.blocks,
            self.opts.period,
            self.at
        );
        assert!(
            whole == pieces,
            "{}: blocks {:?} differ from the whole ({:?}, {:?})",
            system.name(),
            self.blocks,
            self.opts.period,
            self.at
        );
    }
}

#[test]
fn blocks_replay_exactly_as_the_whole_history() {
    let h = history();
    let seeds = vec![
        Seed {
            player: 3,
            rating: 1700.0,
            uncertainty: Some(80.0),
            volatility: None,
        },
        Seed {
            player: 31,
            rating: 1400.0,
            uncertainty: None,
            volatility: None,
        },
    ];
    let times: Vec<i64> = h.contests().map(|c| c.time()).collect();
    let mut skip = vec![false; h.len()];
    for i in (5..h.len()).step_by(17) {
        skip[i] = true;
    }
    let mut rng = Rng(7);
    for period in [
        Period::Game,
        Period::Day,
        Period::Week,
        Period::Month,
        Period::Series,
    ] {
        let valid = cuts(&h, period);
        // About four months.
        assert!(valid.len() >= 2, "{period:?}: too few places to cut");
        // Blocks of one round, of random lengths, and a few large ones.
        let random: Vec<usize> = valid
            .iter()
            .copied()
            .filter(|_| rng.below(4) == 0)
            .collect();
        let large: Vec<usize> = valid
            .iter()
            .copied()
            .step_by((valid.len() / 3).max(1))
            .skip(1)
            .collect();
        let variants = [
            ReplayOptions::default(),
            ReplayOptions {
                seeds: seeds.clone(),
                series: true,
                decay_per_day: 4.0,
                ..ReplayOptions::default()
            },
            ReplayOptions {
                as_of: Some(times[300]),
                warmup: 0.25,
                ..ReplayOptions::default()
            },
            ReplayOptions {
                max_contests: Some(250),
                keep_history: false,
                ..ReplayOptions::default()
            },
            ReplayOptions {
                skip: Some(std::sync::Arc::new(skip.clone())),
                ..ReplayOptions::default()
            },
        ];
        for (v, opts) in variants.iter().enumerate() {
            let opts = ReplayOptions {
                period,
                ..opts.clone()
            };
            for blocks in [&valid, &random, &large] {
                for at in [
                    SnapshotAt::Never,
                    SnapshotAt::End,
                    SnapshotAt::BeforeLastRound,
                ] {
                    // Every system on the main variants; one system per option set otherwise
                    // (the options act in the replay, not in the systems).
                    let kinds: Vec<SystemKind> = if v == 0 && at == SnapshotAt::BeforeLastRound {
                        SystemKind::ALL.to_vec()
                    } else {
                        vec![SystemKind::ALL[(v * 5 + at as usize) % SystemKind::ALL.len()]]
                    };
                    for kind in kinds {
                        let check = Check {
                            h: &h,
                            opts: &opts,
                            at,
                            blocks,
                        };
                        dispatch(kind, &ParamMap::new(), check).unwrap();
                    }
                }
            }
        }
    }
}
