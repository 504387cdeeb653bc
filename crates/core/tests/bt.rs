//! Bradley-Terry (`--system bt`): against an independent fit (the Python `choix` package),
//! and on cases whose answer is known by hand (a first side's advantage, Davidson's tie
//! parameter, a standings' pairs, a standings too large).

use rate_batch_core::history::{History, HistoryBuilder, PlayerId, SourceInfo};
use rate_batch_core::replay::{ReplayOptions, ReplayResult, replay};
use rate_batch_core::systems::bt::{Bt, BtParams, Refit, Ties};
use rate_batch_core::systems::{RatingSystem, WholeHistory};

fn data(name: &str) -> String {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data")
        .join(name);
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// Games `(a, b, score of a)`, one a minute.
fn games(list: &[(&str, &str, f64)]) -> History {
    let mut h = HistoryBuilder::new();
    for (k, (a, b, s)) in list.iter().enumerate() {
        let (a, b) = (h.player(a), h.player(b));
        h.add_game(k as i64 * 60, 1.0, None, (&[a], &[b]), *s, None)
            .unwrap();
    }
    h.finish(SourceInfo::default())
}

fn run(h: &History, p: BtParams) -> ReplayResult {
    let bt = Bt::new(p).unwrap();
    let opts = ReplayOptions {
        warmup: 0.0,
        ..ReplayOptions::default()
    };
    replay(h, &bt, &opts).unwrap()
}

fn rating(h: &History, r: &ReplayResult, name: &str) -> f64 {
    let id = h.names().iter().position(|n| n == name).unwrap();
    r.ratings[id].mean
}

/// The maximum a posteriori fit of `scripts/bt_choix.py`'s 601 generated games (40 players,
/// no ties; one player met once, who won: finite only through the prior), as the Python
/// package `choix` 0.4.1 computed it (`opt_pairwise`, Newton-CG, `alpha = 0.1`, tol 1e-12;
/// numpy 2.4.6, scipy 1.17.1): the numbers in `bt_choix_expected.csv`. choix's penalty is
/// `alpha * sum(theta^2)` (its code; its documentation says a prior of variance 1/alpha), a
/// normal prior of variance 1 / (2 alpha) on the natural strengths: 400 / ln 10 / sqrt(0.2)
/// = 388.4447935154893 rating points. Its strengths sum to zero, ours are centred on 1500.
/// choix's own solution leaves a gradient of 4.4e-9 (about 1e-6 points).
#[test]
fn equals_choix_opt_pairwise() {
    let text = data("bt_choix_games.csv");
    let list: Vec<(String, String, f64)> = text
        .lines()
        .skip(1)
        .map(|l| {
            let f: Vec<&str> = l.split(',').collect();
            (f[1].to_string(), f[2].to_string(), f[3].parse().unwrap())
        })
        .collect();
    let borrowed: Vec<(&str, &str, f64)> = list
        .iter()
        .map(|(a, b, s)| (a.as_str(), b.as_str(), *s))
        .collect();
    let h = games(&borrowed);
    let p = |refit| BtParams {
        prior_sd: 388.444_793_515_489_3,
        refit,
        ..BtParams::default()
    };
    // With nothing scored and no history kept, the replay only counts the games and fits
    // them once at the end (an arena's one fit).
    let bt = Bt::new(p(Refit::Week)).unwrap();
    let once = ReplayOptions {
        warmup: 1.0,
        keep_history: false,
        ..ReplayOptions::default()
    };
    let fitted_once = replay(&h, &bt, &once).unwrap();
    let replays = [Refit::End, Refit::Game, Refit::Week].map(|refit| (refit, run(&h, p(refit))));
    for (refit, r) in replays.into_iter().chain([(Refit::End, fitted_once)]) {
        let mut worst: f64 = 0.0;
        let mut n = 0;
        for l in data("bt_choix_expected.csv").lines().skip(1) {
            let (name, want) = l.split_once(',').unwrap();
            let want: f64 = want.parse().unwrap();
            worst = worst.max((rating(&h, &r, name) - want).abs());
            n += 1;
        }
        assert_eq!(n, 40);
        assert!(worst < 1e-5, "{refit:?}: {worst} points from choix");
    }
}

/// Two equal players, each winning 20 of 30 games at home: by symmetry their ratings are
/// equal, so the advantage is the maximum-likelihood one of a coin with p = 2/3:
/// 400 log10(2) = 120.412 points (the advantage has no prior).
#[test]
fn first_side_advantage_by_hand() {
    let mut list = Vec::new();
    for k in 0..30 {
        let home_wins = if k % 3 == 2 { 0.0 } else { 1.0 };
        list.push(("ann", "bob", home_wins));
        list.push(("bob", "ann", home_wins));
    }
    let h = games(&list);
    let p = BtParams {
        fit_advantage: true,
        refit: Refit::End,
        ..BtParams::default()
    };
    let r = run(&h, p.clone());
    assert!((rating(&h, &r, "ann") - rating(&h, &r, "bob")).abs() < 1e-9);
    let adv = r.fitted.as_ref().unwrap()["advantage"].as_f64().unwrap();
    assert!((adv - 400.0 * 2f64.log10()).abs() < 1e-6, "{adv}");
    // The home side's prediction includes it: 2/3.
    let bt = Bt::new(p).unwrap();
    let mut players = vec![bt.new_player(); 2];
    let ids: Vec<u32> = (0..h.len() as u32).collect();
    bt.update(rate_batch_core::history::Round::new(&h, &ids), &mut players);
    bt.settle(&mut players);
    let p_home = bt
        .win_probability_sided(&players, &[0], &[1], true)
        .unwrap();
    assert!((p_home - 2.0 / 3.0).abs() < 1e-9, "{p_home}");
    // On neutral ground, even.
    let p_neutral = bt.win_probability(&players, &[0], &[1]).unwrap();
    assert!((p_neutral - 0.5).abs() < 1e-9, "{p_neutral}");
}

/// Two players who each win 10 and tie 20 of 40: equal ratings, and Davidson's tie
/// probability between equals, nu / (2 + nu), is the share of ties, 1/2: nu = 2.
#[test]
fn davidson_nu_by_hand() {
    let mut list = Vec::new();
    for k in 0..40 {
        let s = match k % 4 {
            0 => 1.0,
            1 => 0.0,
            _ => 0.5,
        };
        list.push(("ann", "bob", s));
    }
    let h = games(&list);
    let r = run(
        &h,
        BtParams {
            ties: Ties::Davidson,
            refit: Refit::End,
            ..BtParams::default()
        },
    );
    let nu = r.fitted.as_ref().unwrap()["nu"].as_f64().unwrap();
    assert!((nu - 2.0).abs() < 1e-6, "{nu}");
    assert!((rating(&h, &r, "ann") - 1500.0).abs() < 1e-6);
}

/// A standings of n is its pairs, each of weight 2/n: A > B > C once (weights 2/3) equals
/// the games A-B, A-C, B-C each of weight 2/3.
#[test]
fn a_standings_is_its_pairs_weighted_two_over_n() {
    let mut s = HistoryBuilder::new();
    let ids: Vec<PlayerId> = ["a", "b", "c"].iter().map(|n| s.player(n)).collect();
    s.begin_contest(0, 1.0, None, None);
    for (k, &p) in ids.iter().enumerate() {
        s.add_entry(&[p], k as u32, k as u32, None);
    }
    s.end_contest().unwrap();
    let s = s.finish(SourceInfo::default());
    let mut g = HistoryBuilder::new();
    let ids: Vec<PlayerId> = ["a", "b", "c"].iter().map(|n| g.player(n)).collect();
    for (x, y) in [(0, 1), (0, 2), (1, 2)] {
        g.add_game(0, 2.0 / 3.0, None, (&[ids[x]], &[ids[y]]), 1.0, None)
            .unwrap();
    }
    let g = g.finish(SourceInfo::default());
    let p = BtParams {
        refit: Refit::End,
        ..BtParams::default()
    };
    let (rs, rg) = (run(&s, p.clone()), run(&g, p));
    for name in ["a", "b", "c"] {
        let (x, y) = (rating(&s, &rs, name), rating(&g, &rg, name));
        assert!((x - y).abs() < 1e-9, "{name}: {x} vs {y}");
    }
    assert!(rating(&s, &rs, "a") > rating(&s, &rs, "b"));
}

/// A standings larger than `max_standing` stops the replay with the reason.
#[test]
fn a_standings_too_large_is_refused() {
    let mut s = HistoryBuilder::new();
    s.begin_contest(0, 1.0, None, None);
    for k in 0..5u32 {
        let p = s.player(&format!("p{k}"));
        s.add_entry(&[p], k, k, None);
    }
    s.end_contest().unwrap();
    let s = s.finish(SourceInfo::default());
    let bt = Bt::new(BtParams {
        max_standing: 4,
        ..BtParams::default()
    })
    .unwrap();
    let err = replay(&s, &bt, &ReplayOptions::default()).unwrap_err();
    let text = err.to_string();
    assert!(
        text.contains("bt cannot rate round 0") && text.contains("this one has 5"),
        "{text}"
    );
}

/// The Rater refuses a standings larger than `max_standing`, as the replay does.
#[test]
fn the_rater_refuses_what_the_system_refuses() {
    use rate_batch_core::rater::{RateError, Rater};
    let mut r = Rater::new(
        Bt::new(BtParams {
            max_standing: 3,
            ..BtParams::default()
        })
        .unwrap(),
    );
    let err = r
        .rate_contest(&[("a", 1), ("b", 2), ("c", 3), ("d", 4)])
        .unwrap_err();
    assert!(
        matches!(&err, RateError::Refused(why) if why.contains("this one has 4")),
        "{err}"
    );
    r.rate_contest(&[("a", 1), ("b", 2), ("c", 3)]).unwrap();
    assert!(r.rating("a").unwrap().mean > r.rating("c").unwrap().mean);
}

/// Two teams whose members make more pairs than the largest standings taken are refused
/// too (two teams of 1,000 would be a million games).
#[test]
fn two_teams_too_large_are_refused() {
    let mut b = HistoryBuilder::new();
    let a: Vec<PlayerId> = (0..3).map(|k| b.player(&format!("a{k}"))).collect();
    let z: Vec<PlayerId> = (0..3).map(|k| b.player(&format!("z{k}"))).collect();
    b.add_game(0, 1.0, None, (&a, &z), 1.0, None).unwrap();
    let h = b.finish(SourceInfo::default());
    // Two teams of 3: 9 games between their members, more than a standings of 4 makes (6),
    // fewer than one of 5 (10).
    let bt = Bt::new(BtParams {
        max_standing: 4,
        ..BtParams::default()
    })
    .unwrap();
    let err = replay(&h, &bt, &ReplayOptions::default()).unwrap_err();
    assert!(err.to_string().contains("make 9 of them"), "{err}");
    let bt = Bt::new(BtParams {
        max_standing: 5,
        ..BtParams::default()
    })
    .unwrap();
    assert!(replay(&h, &bt, &ReplayOptions::default()).is_ok());
}
