//! The fast paths of large contests against the exact sums they replace: the systems that
//! tabulate a shared function for contests of many entrants (Elo, Yuksel, Glicko and pairwise
//! Glicko through `numeric::shared`; Elo with the normal curve and Topcoder through
//! `numeric::gauss`; BAR through `numeric::shared` at Chebyshev nodes of the variance) rate
//! random fields of a few thousand entrants, with ties and teams,
//! within 1e-6 rating points of the same system summing pair by pair (`exact = true`).
//! Elo-MMR's table is checked root by root against bisection of the exact sums in its own
//! module's tests.

use rate_batch_core::history::{History, HistoryBuilder, SourceInfo};
use rate_batch_core::replay::{ReplayOptions, replay};
use rate_batch_core::systems::{
    ParamMap, RatingSystem, SystemKind, SystemVisitor, dispatch, parse_param,
};

/// A small deterministic generator (Knuth's MMIX linear congruence, high bits).
struct Lcg(u64);

impl Lcg {
    fn below(&mut self, n: u64) -> u64 {
        self.0 = self
            .0
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        (self.0 >> 33) % n
    }
}

/// Four contests among `players`: two of every player alone (places drawn at random, about a
/// third of them shared by two or three), one of teams of one to three, then one of
/// singles again, so that the later contests start from varied ratings.
fn fields(players: usize, seed: u64) -> History {
    let mut rng = Lcg(seed);
    let mut b = HistoryBuilder::new();
    let ids: Vec<u32> = (0..players).map(|i| b.player(&format!("p{i}"))).collect();
    for c in 0..4 {
        b.begin_contest(c as i64 * 86_400, 1.0, None, None);
        let mut order = ids.clone();
        for i in (1..order.len()).rev() {
            order.swap(i, rng.below(i as u64 + 1) as usize);
        }
        let sides: Vec<Vec<u32>> = if c == 2 {
            let mut sides = Vec::new();
            let mut rest = &order[..];
            while !rest.is_empty() {
                let size = (1 + rng.below(3) as usize).min(rest.len());
                sides.push(rest[..size].to_vec());
                rest = &rest[size..];
            }
            sides
        } else {
            order.iter().map(|&p| vec![p]).collect()
        };
        let mut place = 0u32;
        let mut k = 0;
        while k < sides.len() {
            let tied = if rng.below(3) == 0 {
                2 + rng.below(2) as usize
            } else {
                1
            };
            let end = (k + tied).min(sides.len());
            let hi = place + (end - k) as u32 - 1;
            for side in &sides[k..end] {
                b.add_entry(side, place, hi, None);
            }
            place = hi + 1;
            k = end;
        }
        b.end_contest().unwrap();
    }
    b.finish(SourceInfo::default())
}

struct Ratings<'a>(&'a History);

impl SystemVisitor for Ratings<'_> {
    type Output = Vec<f64>;
    fn visit<S: RatingSystem>(self, system: &S) -> Vec<f64> {
        let opts = ReplayOptions {
            keep_history: false,
            ..ReplayOptions::default()
        };
        let result = replay(self.0, system, &opts).expect("no runaway");
        result.ratings.iter().map(|r| r.mean).collect()
    }
}

fn ratings(kind: SystemKind, params: &[&str], h: &History) -> Vec<f64> {
    let mut m = ParamMap::new();
    for p in params {
        parse_param(p, &mut m).unwrap();
    }
    dispatch(kind, &m, Ratings(h)).unwrap()
}

#[track_caller]
fn assert_within(fast: &[f64], exact: &[f64], bound: f64, ran: bool, what: &str) {
    let worst = fast
        .iter()
        .zip(exact)
        .map(|(a, b)| (a - b).abs())
        .fold(0.0, f64::max);
    assert!(worst <= bound, "{what}: {worst} rating points apart");
    // The fast path did run (where it must): the two are not the same to the last bit.
    assert!(!ran || fast != exact, "{what}: the same to the last bit");
    // The fast path did run: ratings moved.
    assert!(
        fast.iter().any(|&r| (r - fast[0]).abs() > 1.0),
        "{what}: nothing moved"
    );
}

#[test]
fn tabulated_shared_functions_agree_with_the_pairwise_sums() {
    for (players, seed) in [(600, 1), (2500, 2)] {
        let h = fields(players, seed);
        for (kind, extra) in [
            (SystemKind::Elo, &[][..]),
            (SystemKind::Elo, &["score-share=true"][..]),
            (SystemKind::Yuksel, &[][..]),
            (SystemKind::Yuksel, &["zero-sum=true"][..]),
            (SystemKind::Glicko, &[][..]),
            (SystemKind::PairwiseGlicko, &[][..]),
            (SystemKind::PairwiseGlicko, &["normalise=false"][..]),
            (SystemKind::EloGaussian, &[][..]),
            (SystemKind::Topcoder, &[][..]),
            (SystemKind::Topcoder, &["weight-multiplier=2"][..]),
            (SystemKind::Bar, &[][..]),
            (SystemKind::Bar, &["elo-mmr-logistic=true"][..]),
        ] {
            let mut exact = vec!["exact=true"];
            exact.extend_from_slice(extra);
            let a = ratings(kind, extra, &h);
            let b = ratings(kind, &exact, &h);
            assert_within(
                &a,
                &b,
                1e-6,
                // Topcoder's and BAR's tables pay for themselves only on larger fields.
                players > 1000 || !matches!(kind, SystemKind::Topcoder | SystemKind::Bar),
                &format!("{} {extra:?} n {players}", kind.name()),
            );
        }
    }
}
