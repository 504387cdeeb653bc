//! The first side's advantage in every system that has one: a game played with a first side
//! and advantage A is rated, and predicted, as the same game on neutral ground with the first
//! side's rating raised by A; hand-computed values for Elo, Glicko and TrueSkill.

use rate_batch_core::history::{History, HistoryBuilder, Round, SourceInfo};
use rate_batch_core::systems::{
    ParamMap, RatingSystem, SystemKind, SystemVisitor, dispatch, number,
};

/// One game, a beats b (`score_a` 1) or a draw, played with a first side or on neutral
/// ground.
fn game(first_side: bool, score_a: f64) -> History {
    let mut b = HistoryBuilder::new();
    let (a, bb) = (b.player("a"), b.player("b"));
    if first_side {
        b.add_game(0, 1.0, None, (&[a], &[bb]), score_a, None)
            .unwrap();
    } else {
        b.add_game_with(
            false,
            0,
            1.0,
            None,
            (&[a], &[bb]),
            (&[], &[]),
            score_a,
            None,
        )
        .unwrap();
    }
    b.finish(SourceInfo::default())
}

/// The two players' ratings and uncertainties after the game, from seeded states, and the
/// win probability before it as played.
struct After {
    first_side: bool,
    start: (f64, f64),
    score_a: f64,
}

impl SystemVisitor for After {
    type Output = ([f64; 4], f64);
    fn visit<S: RatingSystem>(self, system: &S) -> ([f64; 4], f64) {
        let h = game(self.first_side, self.score_a);
        let mut states = vec![
            system.seeded(self.start.0, Some(120.0 * scale(system)), Some(0.06)),
            system.seeded(self.start.1, Some(90.0 * scale(system)), Some(0.06)),
        ];
        let p = system
            .win_probability_sided(&states, &[0], &[1], self.first_side)
            .unwrap();
        system.update(Round::new(&h, &[0]), &mut states);
        let (ra, rb) = (system.rating(&states[0]), system.rating(&states[1]));
        (
            [
                ra.mean,
                ra.uncertainty.unwrap_or(0.0),
                rb.mean,
                rb.uncertainty.unwrap_or(0.0),
            ],
            p,
        )
    }
}

/// Rating points per Elo point of the system (TrueSkill's skills are about 1/40 as wide).
fn scale<S: RatingSystem>(system: &S) -> f64 {
    if system.kind() == SystemKind::TrueSkill {
        25.0 / 1000.0
    } else {
        1.0
    }
}

fn params(advantage: f64) -> ParamMap {
    let mut m = ParamMap::new();
    m.insert("advantage".into(), number(advantage).unwrap());
    m
}

#[test]
fn a_first_side_game_is_the_neutral_game_with_the_advantage_added() {
    for kind in [
        SystemKind::Elo,
        SystemKind::EloGaussian,
        SystemKind::Glicko,
        SystemKind::Glicko2,
        SystemKind::TrueSkill,
        SystemKind::Yuksel,
    ] {
        let unit = if kind == SystemKind::TrueSkill {
            0.025
        } else {
            1.0
        };
        let (ra, rb, adv) = (1500.0 * unit, 1540.0 * unit, 80.0 * unit);
        for score in [1.0, 0.5, 0.0] {
            let sided = dispatch(
                kind,
                &params(adv),
                After {
                    first_side: true,
                    start: (ra, rb),
                    score_a: score,
                },
            )
            .unwrap();
            let raised = dispatch(
                kind,
                &params(0.0),
                After {
                    first_side: false,
                    start: (ra + adv, rb),
                    score_a: score,
                },
            )
            .unwrap();
            let tol = 1e-9 * unit.max(1.0) * 1600.0;
            assert!(
                (sided.1 - raised.1).abs() < 1e-12,
                "{kind:?}: win probability {} vs {}",
                sided.1,
                raised.1
            );
            let (s, r) = (sided.0, raised.0);
            assert!(
                ((s[0] - ra) - (r[0] - (ra + adv))).abs() < tol,
                "{kind:?} {score}: the first side's change {} vs {}",
                s[0] - ra,
                r[0] - ra - adv
            );
            assert!((s[1] - r[1]).abs() < tol, "{kind:?}: {s:?} {r:?}");
            assert!(
                (s[2] - r[2]).abs() < tol && (s[3] - r[3]).abs() < tol,
                "{kind:?}: {s:?} {r:?}"
            );
            // And the advantage matters: without it the first side does worse.
            let plain = dispatch(
                kind,
                &params(0.0),
                After {
                    first_side: true,
                    start: (ra, rb),
                    score_a: score,
                },
            )
            .unwrap();
            assert!(plain.1 < sided.1 - 0.01, "{kind:?}");
            // On neutral ground the advantage is not given.
            let neutral = dispatch(
                kind,
                &params(adv),
                After {
                    first_side: false,
                    start: (ra, rb),
                    score_a: score,
                },
            )
            .unwrap();
            assert_eq!(neutral, plain, "{kind:?}: a neutral game has no advantage");
        }
    }
}

/// Hand-computed (python3, math module):
/// - Elo, 1500 v 1500, advantage 100: E = 1 / (1 + 10^(-1/4)) = 0.6400649998028851, and the
///   first side's win gains 32 (1 - E) = 11.517920006307676;
/// - Glicko, two newcomers (RD 350), advantage 100: `1 / (1 + 10^(-g(350 sqrt 2) 100 / 400))`
///   = 0.5766713999885229;
/// - TrueSkill's defaults, two newcomers, advantage 2 skill points: win, draw and loss
///   `Phi((d - eps) / c)`, the rest, `Phi((-d - eps) / c)` with `c^2 = 2 (sigma^2 + tau^2 +
///   beta^2)` and the draw margin of 10 %: 0.5380761183964935, 0.044300993056804794,
///   0.41762288854670176.
#[test]
fn hand_computed_cases() {
    struct Probe;
    impl SystemVisitor for Probe {
        type Output = (f64, Option<[f64; 3]>, f64);
        fn visit<S: RatingSystem>(self, system: &S) -> (f64, Option<[f64; 3]>, f64) {
            let mut states = vec![system.new_player(); 2];
            let p = system
                .win_probability_sided(&states, &[0], &[1], true)
                .unwrap();
            let three = system.outcome_probabilities(&states, &[0], &[1], true);
            let before = system.rating(&states[0]).mean;
            system.update(Round::new(&game(true, 1.0), &[0]), &mut states);
            (p, three, system.rating(&states[0]).mean - before)
        }
    }
    let (p, three, gain) = dispatch(SystemKind::Elo, &params(100.0), Probe).unwrap();
    assert!((p - 0.6400649998028851).abs() < 1e-14 && three.is_none());
    assert!((gain - 11.517920006307676).abs() < 1e-9, "{gain}");
    let (p, _, _) = dispatch(SystemKind::Glicko, &params(100.0), Probe).unwrap();
    assert!((p - 0.5766713999885229).abs() < 1e-12, "{p}");
    let (p, three, _) = dispatch(SystemKind::TrueSkill, &params(2.0), Probe).unwrap();
    let three = three.unwrap();
    let want = [
        0.5380761183964935,
        0.044300993056804794,
        0.41762288854670176,
    ];
    for k in 0..3 {
        assert!((three[k] - want[k]).abs() < 1e-9, "{three:?}");
    }
    assert!((p - (want[0] + want[1] / 2.0)).abs() < 1e-9);
}

/// A system without a first-side advantage refuses one, with the reason.
#[test]
fn systems_without_an_advantage_refuse_one() {
    for kind in [SystemKind::EloMmr, SystemKind::Codeforces, SystemKind::Bar] {
        let mut p = params(50.0);
        let e = rate_batch_core::first_side::resolve(kind, &mut p, None, &Default::default())
            .unwrap_err();
        assert!(e.contains("no first-side advantage"), "{e}");
    }
}
