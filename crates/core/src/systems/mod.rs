//! Rating systems, one module each, behind one small trait ([`base`]), and the registry that
//! lists them once.
//!
//! A system knows nothing of files, formats or output: it makes a new player's state, reads a
//! rating off a state, updates the states of a round's participants from their pre-round
//! states, and predicts a two-sided contest where it can.
//!
//! Parameters are plain serde structs with the papers' defaults; the CLI and later `tune` set
//! them by name (`k=24`), so every system's parameters are reachable the same way.

// The registry: one line a system (name, constructor, default tuning grid), handed to the
// macro named: `kinds` in base.rs makes `SystemKind`, `dispatcher` below makes `dispatch`.
// Adding a system is a module of its own and a line here; see CONTRIBUTING.md.
macro_rules! registry_table {
    ($then:ident) => {
        $then! {
            /// Elo with the variants of "Elo for games" (floor, score share, margin, win bonus).
            Elo = "elo" => elo::Elo::new,
                grid ["k": [8.0, 12.0, 16.0, 20.0, 24.0, 32.0, 40.0, 48.0, 64.0]];
            /// Yuksel 2024: variance-weighted Newton updates, incremental or zero-sum.
            Yuksel = "yuksel" => yuksel::Yuksel::new,
                grid ["alpha": [1.0, 1.5, 2.0, 3.0], "step_scale": [0.25, 0.5, 0.75, 1.0]];
            /// Elo-MMR(rho): logistic performances, pseudodiffusion (Ebtekar and Liu 2021). The grid
            /// holds the defaults exactly: beta = 80 sqrt 6, gamma = 80 sqrt 0.2.
            EloMmr = "elo-mmr" => elo_mmr::EloMmr::new,
                grid ["beta": [150.0, 80.0 * 6f64.sqrt(), 250.0], "gamma": [20.0, 80.0 * 0.2f64.sqrt(), 50.0]];
            /// Elo-MMchi: Elo-MMR with Gaussian performances.
            EloMmx = "elo-mmx" => elo_mmr::EloMmr::gaussian,
                grid ["beta": [150.0, 80.0 * 6f64.sqrt(), 250.0], "gamma": [20.0, 80.0 * 0.2f64.sqrt(), 50.0]];
            /// BAR: Weng and Lin 2011, Bradley-Terry with full pairing, normalised as in Elo-MMR.
            Bar = "bar" => bar::Bar::new,
                grid ["beta": [15.0, 25.0, 40.0], "sig_drift": [35.0, 63.0, 90.0]];
            /// Glicko on every pair of a contest, normalised as in Elo-MMR.
            PairwiseGlicko = "pairwise-glicko" => pairwise_glicko::PairwiseGlicko::new,
                grid ["beta": [80.0, 125.0, 200.0], "sig_drift": [15.0, 25.0, 40.0]];
            /// Codeforces (Mirzayanov 2015): the rating whose expected place is the geometric mean of
            /// the expected and the actual place, with two sum adjustments.
            Codeforces = "codeforces" => codeforces::Codeforces::new,
                grid ["weight_multiplier": [0.5, 0.75, 1.0, 1.25, 1.5]];
            /// Topcoder's algorithm rating: Gaussian performances, volatility, weight and cap.
            Topcoder = "topcoder" => topcoder::Topcoder::new,
                grid ["weight_multiplier": [0.5, 0.75, 1.0, 1.25, 1.5]];
            /// Elo with the normal distribution function as its curve (Elo's original design).
            EloGaussian = "elo-gaussian" => elo::Elo::gaussian,
                grid ["k": [8.0, 12.0, 16.0, 20.0, 24.0, 32.0, 40.0, 48.0, 64.0]];
            /// Glicko (Glickman 1999): rating and rating deviation, rating periods.
            Glicko = "glicko" => glicko::Glicko::new,
                grid ["c": [0.0, 5.0, 10.0, 20.0, 35.0, 50.0]];
            /// Glicko-2 (Glickman 2001): rating, deviation and volatility.
            Glicko2 = "glicko2" => glicko2::Glicko2::new,
                grid ["tau": [0.2, 0.3, 0.5, 0.75, 1.0, 1.2], "start_volatility": [0.03, 0.06, 0.09]];
            /// TrueSkill (Herbrich, Minka, Graepel 2007): two-player, free-for-all and teams.
            TrueSkill = "trueskill" => trueskill::TrueSkill::new,
                grid ["tau": [25.0 / 300.0, 0.25, 0.5, 25.0 / 30.0], "draw_probability": [0.0, 0.01, 0.1]];
            /// Bradley-Terry by maximum a posteriori on all games so far, refitted weekly for
            /// honest predictions; ties half a win or Davidson's, a first-side advantage.
            Bt = "bt" => bt::Bt::new,
                grid ["prior_sd": [100.0, 200.0, 400.0, 800.0, 1600.0]];
            /// Whole-History Rating (Coulom 2008): a rating per player per day, a Wiener
            /// process between days, Newton's method on each player's series.
            Whr = "whr" => whr::Whr::new,
                grid ["w2": [1.0, 4.0, 14.0, 50.0, 200.0, 1000.0]];
            /// FIDE's Elo rules (2024): table 8.1.2, the 400-point rule, K 40/20/10 by games
            /// and by the highest rating reached (`--preset fide`).
            Fide = "fide" => federation::Federation::fide,
                grid ["k": [10.0, 15.0, 20.0, 30.0, 40.0]];
            /// US Chess's rules (Glickman's approximating formulas): the special formula, then
            /// K = 800 / (N' + m) with the bonus (`--preset uscf`).
            Uscf = "uscf" => federation::Federation::uscf,
                grid ["bonus": [0.0, 10.0, 14.0, 20.0]];
        }
    };
}

pub mod base;

pub mod allpairs;
pub mod bar;
pub mod bt;
pub mod codeforces;
pub mod elo;
pub mod elo_mmr;
pub mod federation;
mod games;
pub mod glicko;
pub mod glicko2;
pub mod pairwise;
pub mod pairwise_glicko;
pub mod topcoder;
pub mod trueskill;
pub mod whr;
pub mod yuksel;

pub use bar::{Bar, BarParams};
pub use bt::{Bt, BtParams};
pub use codeforces::{Codeforces, CodeforcesParams};
pub use elo::{Elo, EloGaussianParams, EloParams};
pub use elo_mmr::{EloMmr, EloMmrParams, EloMmxParams};
pub use federation::{Federation, FideParams, UscfParams};
pub use glicko::{Glicko, GlickoParams};
pub use glicko2::{Glicko2, Glicko2Params};
pub use pairwise_glicko::{PairwiseGlicko, PairwiseGlickoParams};
pub use topcoder::{Topcoder, TopcoderParams};
pub use trueskill::{TrueSkill, TrueSkillParams};
pub use whr::{Whr, WhrParams};
pub use yuksel::{Yuksel, YukselParams};

pub use base::*;

/// Generates from the table above [`dispatch`]: building the chosen system from named
/// parameters.
macro_rules! dispatcher {
    ($(
        $(#[$doc:meta])*
        $variant:ident = $name:literal => $build:path, grid [$($param:literal: [$($value:expr),* $(,)?]),* $(,)?];
    )*) => {
        /// Builds the chosen system from named parameters (a name the system does not have is
        /// refused) and hands it to the visitor.
        pub fn dispatch<V: SystemVisitor>(
            kind: SystemKind,
            params: &ParamMap,
            v: V,
        ) -> Result<V::Output, String> {
            Ok(match kind {
                $(SystemKind::$variant => v.visit(&$build(build_params(kind, params)?)?),)*
            })
        }

        /// [`dispatch`] handing the system over (for a caller that keeps it: a
        /// [`crate::rater::Rater`] behind a type that does not name the system).
        pub fn dispatch_owned<V: SystemOwner>(
            kind: SystemKind,
            params: &ParamMap,
            v: V,
        ) -> Result<V::Output, String> {
            Ok(match kind {
                $(SystemKind::$variant => v.own($build(build_params(kind, params)?)?),)*
            })
        }
    };
}

registry_table!(dispatcher);

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unknown_parameters_are_refused_with_the_list() {
        let mut m = ParamMap::new();
        parse_param("floor=1000", &mut m).unwrap();
        let err = build_params::<yuksel::YukselParams>(SystemKind::Yuksel, &m).unwrap_err();
        assert!(err.contains("no parameter `floor`"), "{err}");
        assert!(err.contains("max-delta"), "{err}");
        let p: elo::EloParams = build_params(SystemKind::Elo, &m).unwrap();
        assert_eq!(p.floor, Some(1000.0));
        assert_eq!(p.k, 32.0);
    }

    #[test]
    fn bar_and_pairwise_glicko_take_their_parameters_by_name() {
        let mut m = ParamMap::new();
        parse_param("beta=200", &mut m).unwrap();
        parse_param("sig-drift=0", &mut m).unwrap();
        parse_param("normalise=false", &mut m).unwrap();
        let p: bar::BarParams = build_params(SystemKind::Bar, &m).unwrap();
        assert_eq!((p.beta, p.sig_drift, p.normalise), (200.0, 0.0, false));
        assert_eq!((p.kappa, p.mu_init, p.sigma_init), (1e-4, 1500.0, 350.0));
        let g: pairwise_glicko::PairwiseGlickoParams =
            build_params(SystemKind::PairwiseGlicko, &m).unwrap();
        assert_eq!((g.beta, g.sig_drift, g.normalise), (200.0, 0.0, false));
        parse_param("kappa=0.001", &mut m).unwrap();
        let err =
            build_params::<pairwise_glicko::PairwiseGlickoParams>(SystemKind::PairwiseGlicko, &m)
                .unwrap_err();
        assert!(
            err.contains("no parameter `kappa`") && err.contains("sig-drift"),
            "{err}"
        );
    }

    #[test]
    fn params_parse_numbers_bools_and_text() {
        let mut m = ParamMap::new();
        parse_param("k=24", &mut m).unwrap();
        parse_param("zero-sum=true", &mut m).unwrap();
        assert_eq!(m["k"], serde_json::json!(24));
        assert_eq!(m["zero_sum"], serde_json::json!(true));
        assert!(parse_param("k", &mut m).is_err());
    }
}
