//! Contests in which every entry ties (a drawn game, a standings of ties only): each system's
//! documented rule (docs/systems.md, "Contests in which everyone ties"), and
//! `skip_all_tied`, which leaves them out for every system as the Elo-MMR reference
//! implementation does.

use rate_batch_core::history::{History, HistoryBuilder, SourceInfo};
use rate_batch_core::replay::{ReplayOptions, replay};
use rate_batch_core::systems::{ParamMap, RatingSystem, SystemKind, SystemVisitor, dispatch};

/// `a` beats `b`; then `ties` contests of ties: `a` and `b` draw, and `a`, `b` and `c` share
/// first place.
fn history(ties: usize) -> History {
    let mut b = HistoryBuilder::new();
    let (a, bb, c) = (b.player("a"), b.player("b"), b.player("c"));
    b.begin_contest(0, 1.0, None, None);
    b.add_entry(&[a], 0, 0, None);
    b.add_entry(&[bb], 1, 1, None);
    b.end_contest().unwrap();
    if ties >= 1 {
        b.begin_contest(86_400, 1.0, None, None);
        b.add_entry(&[a], 0, 1, None);
        b.add_entry(&[bb], 0, 1, None);
        b.end_contest().unwrap();
    }
    if ties >= 2 {
        b.begin_contest(2 * 86_400, 1.0, None, None);
        for p in [a, bb, c] {
            b.add_entry(&[p], 0, 2, None);
        }
        b.end_contest().unwrap();
    }
    b.finish(SourceInfo::default())
}

struct Run<'a>(&'a History, bool);

impl SystemVisitor for Run<'_> {
    type Output = (Vec<f64>, f64, usize);
    fn visit<S: RatingSystem>(self, system: &S) -> Self::Output {
        let opts = ReplayOptions {
            skip_all_tied: self.1,
            warmup: 0.0,
            ..ReplayOptions::default()
        };
        let r = replay(self.0, system, &opts).unwrap();
        let newcomer = system.rating(&system.new_player()).mean;
        (
            r.ratings.iter().map(|x| x.mean).collect(),
            newcomer,
            r.rounds,
        )
    }
}

fn run(kind: SystemKind, h: &History, skip: bool) -> (Vec<f64>, f64, usize) {
    dispatch(kind, &ParamMap::new(), Run(h, skip)).unwrap()
}

/// The documented rule, system by system: whether a contest of ties changes ratings by
/// default.
fn rates_ties(kind: SystemKind) -> bool {
    match kind {
        // The normalised all-pairs baselines skip them, as the reference does.
        SystemKind::Bar | SystemKind::PairwiseGlicko => false,
        // A tie is half a win and half a loss (Elo family, Glicko, Glicko-2, Yuksel,
        // TrueSkill's draw), a shared place (Codeforces, Topcoder), or a tie term of the
        // performance (Elo-MMR, Elo-MMchi), or a tie in Bradley-Terry's counts: players of
        // different ratings move together.
        SystemKind::Elo
        | SystemKind::Bt
        | SystemKind::Whr
        | SystemKind::EloGaussian
        | SystemKind::Yuksel
        | SystemKind::EloMmr
        | SystemKind::EloMmx
        | SystemKind::Codeforces
        | SystemKind::Topcoder
        | SystemKind::Glicko
        | SystemKind::Glicko2
        | SystemKind::TrueSkill
        // FIDE's and US Chess's rules: a draw is half a point.
        | SystemKind::Fide
        | SystemKind::Uscf => true,
    }
}

#[test]
fn every_system_follows_its_rule_and_the_option_skips_ties_for_all() {
    let (plain, tied) = (history(0), history(2));
    for &kind in SystemKind::ALL {
        let (once, newcomer, _) = run(kind, &plain, false);
        let (skipped, _, rounds) = run(kind, &tied, true);
        // Left out: the ratings after the one decisive game, bit for bit; c never played.
        assert_eq!(skipped[..2], once[..2], "{}", kind.name());
        assert_eq!(skipped[2], newcomer, "{}", kind.name());
        assert_eq!(
            rounds,
            1,
            "{}: only the decisive game is a round",
            kind.name()
        );
        let (rated, _, _) = run(kind, &tied, false);
        if rates_ties(kind) {
            assert!(
                (rated[0] - once[0]).abs() > 1e-6,
                "{}: the ties should move a ({} vs {})",
                kind.name(),
                rated[0],
                once[0]
            );
            assert!(
                rated[0] < once[0],
                "{}: a drew with weaker players",
                kind.name()
            );
        } else {
            assert_eq!(rated[..2], once[..2], "{}", kind.name());
        }
    }
}

#[test]
fn elo_mmr_with_the_option_matches_the_reference_after_a_win_and_a_draw() {
    // The reference implementation skips the draw: a stays at the winner's rating of one
    // game against a newcomer, 1629.39 (worked out from the paper in the system's tests);
    // rated as a tie, the draw pulls a down to 1567.63.
    let tied = history(1);
    let (skipped, _, _) = run(SystemKind::EloMmr, &tied, true);
    assert!(
        (skipped[0] - 1_629.391_426_98).abs() < 1e-6,
        "{}",
        skipped[0]
    );
    let (rated, _, _) = run(SystemKind::EloMmr, &tied, false);
    assert!((rated[0] - 1567.63).abs() < 0.01, "{}", rated[0]);
}
