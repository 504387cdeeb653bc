//! Glicko (Glickman, "Parameter estimation in large dynamic paired comparison experiments",
//! Applied Statistics 48, 1999) applied to a contest of n entries decomposed into its pairwise
//! match-ups, as the Elo-MMR paper (section 6.2) uses it as a baseline.
//!
//! In the units of the Elo-MMR reference implementation (`multi-skill/src/systems/glicko.rs`
//! of EbTech/Elo-MMR), `beta` is the standard deviation of a logistic performance around the
//! skill (divided by the square root of the contest weight) and Glickman's constant is
//! `q = (pi/sqrt 3) / beta` (`beta = 400 (pi/sqrt 3) / ln 10 = 315.1` gives his `ln 10 / 400`).
//! For a player i with mean `mu` and deviation `sigma`, against each opponent j:
//! - `g_j = 1 / sqrt(1 + sigma_j^2 / beta^2)` (Glickman's `g(RD_j)`),
//! - `E_ij = 1 / (1 + exp(-q g_j (mu_i - mu_j)))`, `s = 1, 1/2, 0` for a better, tied, worse place,
//! - with `normalise = false`, Glickman's update over all j != i (his rating period):
//!   `1/d^2 = q^2 sum g_j^2 E_ij (1 - E_ij)`, `sigma'^2 = 1 / (1/sigma^2 + 1/d^2)`,
//!   `mu' = mu + q sigma'^2 sum g_j (s - E_ij)`.
//!
//! By default (`normalise = true`) the update is the reference implementation's, which
//! "normalises the collective weight of all N updates applying to each player, to match that of
//! a hypothetical maximally informative 2-player game, i.e., against an equally skilled player
//! whose skill is completely certain":
//! - the information is that of one game with `g = 1` and `E = 1/2`: `1/d^2 = q^2 / 4`;
//! - the score term is the mean over all N match-ups, the self-draw included (its term
//!   `g (1/2 - 1/2)` is zero): `mu' = mu + q sigma'^2 (1/N) sum g_j (s - E_ij)`.
//!
//! Before a round every participant's variance grows by `sig_drift^2` (Glickman's `c^2 t` with
//! one period per round, the reference's `add_noise_and_collapse`). The defaults `beta = 125`,
//! `sig_drift = 25` are the reference's Codeforces experiment (`experiments/codeforces/
//! glicko-rnk.json`, tuned there for the rank metrics); its code default is `beta = 315.1`
//! (Glickman's q), `sig_drift = 35`. New players: 1500 / 350.
//!
//! Rounds of several contests follow Glickman's rating period: each contest gives, from the
//! pre-round states, a score term `a = sigma^2 q S` and an information `x = sigma^2 / d^2`
//! (both relative to the entry's prior variance); a player's are summed, the variance factor is
//! `1 / (1 + sum x)` and the `mu` change is that factor times `sum a`. For one contest this is
//! the update above, and for single players it is Glickman's formula for several games in a
//! period (his worked example is a test). Summing each contest's own `mu` change instead would
//! count the shrinking of `sigma` once per contest and overshoot. Teams: an entry plays with
//! its members' mean `mu` and root-mean-square `sigma`, and every member receives the entry's
//! `mu` change and variance factor.
//!
//! Win probability of side a over side b: Glickman's expected outcome with `g` of the combined
//! deviation, `1 / (1 + exp(-q g(sqrt(sigma_a^2 + sigma_b^2)) (mu_a - mu_b)))`.
//!
//! # Example
//!
//! With Glickman's q (beta = pi / (sqrt 3 q)), no drift and no normalisation, a draw of
//! 1700 / 300 with 1500 / 200 is exactly Glicko's: 1630.695 / 251.459 (by hand):
//!
//! ```
//! use rate_batch_core::rater::Rater;
//! use rate_batch_core::systems::pairwise_glicko::{PairwiseGlicko, PairwiseGlickoParams};
//!
//! let q = std::f64::consts::LN_10 / 400.0;
//! let p = PairwiseGlickoParams {
//!     normalise: false,
//!     sig_drift: 0.0,
//!     beta: std::f64::consts::PI / (3f64.sqrt() * q),
//!     ..PairwiseGlickoParams::default()
//! };
//! let mut r = Rater::new(PairwiseGlicko::new(p)?);
//! r.seed("x", 1700.0, Some(300.0), None);
//! r.seed("y", 1500.0, Some(200.0), None);
//! r.rate_game("x", "y", 0.5)?;
//! let x = r.rating("x").unwrap();
//! assert!((x.mean - 1630.695).abs() < 5e-4 && (x.uncertainty.unwrap() - 251.459).abs() < 5e-4);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

use super::allpairs::{self, AllPairs, Field, MuSigma, side_belief, split_sums};
use super::bar::UNIT_LOGISTIC;
use super::base::{Elapsed, ParamError, Rating, RatingSystem, check_range, fixed_system};
use crate::history::{PlayerId, Round};
use crate::numeric::exp_vectorisable;
use crate::numeric::shared;
use crate::systems::pairwise::TABULATE_FROM;
use serde::{Deserialize, Serialize};

/// The parameters of pairwise Glicko.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct PairwiseGlickoParams {
    /// beta: the standard deviation of a (logistic) performance around the skill.
    pub beta: f64,
    /// Standard deviation added to each participant's skill before a round.
    pub sig_drift: f64,
    /// A new player's mean.
    pub mu_init: f64,
    /// A new player's deviation.
    pub sigma_init: f64,
    /// The Elo-MMR normalisation (one maximally informative game); false for Glickman's update
    /// over all the pairs.
    pub normalise: bool,
    /// Contests summed pair by pair, O(n^2), rather than through the tabulated shared function
    /// from 512 entries on (within 1e-10 of each sum; see `numeric::shared`).
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub exact: bool,
}

impl Default for PairwiseGlickoParams {
    fn default() -> Self {
        Self {
            beta: 125.0,
            sig_drift: 25.0,
            mu_init: 1500.0,
            sigma_init: 350.0,
            normalise: true,
            exact: false,
        }
    }
}

/// Pairwise Glicko.
#[derive(Clone, Debug)]
pub struct PairwiseGlicko {
    p: PairwiseGlickoParams,
    /// The first side's advantage, in rating points: Glicko's (see [`super::glicko`]), 0 here.
    pub(super) advantage: f64,
}

impl PairwiseGlicko {
    /// Checks the parameters.
    pub fn new(p: PairwiseGlickoParams) -> Result<Self, ParamError> {
        check_range("beta", p.beta, f64::MIN_POSITIVE, f64::MAX)?;
        check_range("sig_drift", p.sig_drift, 0.0, f64::MAX)?;
        check_range("mu_init", p.mu_init, f64::MIN, f64::MAX)?;
        check_range("sigma_init", p.sigma_init, f64::MIN_POSITIVE, f64::MAX)?;
        Ok(Self { p, advantage: 0.0 })
    }

    /// [`AllPairs::contest`] of a large field: the opponents' win probabilities depend on the
    /// opponent's deviation only (`E_ij = 1 / (1 + e^(-q g_j (mu_i - mu_j)))`), so `sum_j g_j
    /// E_ij` and `sum_j g_j^2 E_ij (1 - E_ij)` are shared functions of `mu_i`, tabulated once
    /// ([`shared::logistic_sums_at`]); the scores `sum g_j s_ij` come from sums of g in place
    /// order.
    fn tabulated(&self, field: &Field, q: f64, g: &[f64], qg: &[f64]) -> Vec<(f64, f64)> {
        let n = field.len();
        let g2: Vec<f64> = g.iter().map(|x| x * x).collect();
        let sums = shared::logistic_sums_at(
            &field.mu,
            &shared::Terms {
                m: &field.mu,
                s: qg,
                c: g,
                d: Some(&g2),
            },
        );
        // Sums of g over the positions placed worse and tied (in place order).
        let places = field.worse_and_tied(g);
        let count = n as f64;
        (0..n)
            .map(|i| {
                let (won, block) = places[i];
                let tied = block - g[i];
                // Less i's own terms: E_ii = 1/2.
                let expected = sums[i].0 - 0.5 * g[i];
                let sum = won + 0.5 * tied - expected;
                let var_i = field.var[i];
                if self.p.normalise {
                    (var_i * q * sum / count, var_i * q * q / 4.0)
                } else {
                    let info = q * q * (sums[i].1 - 0.25 * g2[i]);
                    (var_i * q * sum, var_i * info)
                }
            })
            .collect()
    }
}

impl AllPairs for PairwiseGlicko {
    fn drift(&self) -> f64 {
        self.p.sig_drift
    }

    /// `a = sigma^2 q S`, `v = sigma^2 / d^2`.
    fn contest(&self, field: &Field, weight: f64) -> Vec<(f64, f64)> {
        let beta_sq = self.p.beta * self.p.beta / weight;
        let beta = beta_sq.sqrt();
        let q = UNIT_LOGISTIC / beta;
        // Per opponent: g_j = beta / sqrt(beta^2 + sigma_j^2) and
        // q g_j = (pi/sqrt 3) / sqrt(beta^2 + sigma_j^2).
        let root: Vec<f64> = field.var.iter().map(|v| (beta_sq + v).sqrt()).collect();
        let g: Vec<f64> = root.iter().map(|r| beta / r).collect();
        let qg: Vec<f64> = root.iter().map(|r| UNIT_LOGISTIC / r).collect();
        let mu = &field.mu[..];
        if field.len() >= TABULATE_FROM && !self.p.exact {
            return self.tabulated(field, q, &g, &qg);
        }
        let opps: Vec<(f64, f64, f64)> = (0..field.len()).map(|j| (mu[j], qg[j], g[j])).collect();
        let n = field.len() as f64;
        if self.p.normalise {
            let info = q * q / 4.0;
            field.map(|i| {
                let mu_i = mu[i];
                // g (s - E) with s = 0: -g / (1 + exp(q g (mu_j - mu_i))); s adds g.
                let f = |(mu_j, qg_j, g_j): (f64, f64, f64)| {
                    let e = exp_vectorisable(qg_j * (mu_j - mu_i));
                    [g_j, g_j / (1.0 + e)]
                };
                let [lost, tied, won] = split_sums(field, &opps, i, f);
                let sum = -lost[1] + (0.5 * tied[0] - tied[1]) + (won[0] - won[1]);
                let var_i = field.var[i];
                (var_i * q * sum / n, var_i * info)
            })
        } else {
            field.map(|i| {
                let mu_i = mu[i];
                let f = |(mu_j, qg_j, g_j): (f64, f64, f64)| {
                    let p = 1.0 / (1.0 + exp_vectorisable(qg_j * (mu_j - mu_i)));
                    [g_j, g_j * p, g_j * g_j * p * (1.0 - p)]
                };
                let [lost, tied, won] = split_sums(field, &opps, i, f);
                let sum = -lost[1] + (0.5 * tied[0] - tied[1]) + (won[0] - won[1]);
                let info = q * q * ((lost[2] + tied[2]) + won[2]);
                let var_i = field.var[i];
                (var_i * q * sum, var_i * info)
            })
        }
    }

    const V_NONE: f64 = 0.0;

    fn fold(acc: f64, v: f64) -> f64 {
        acc + v
    }

    fn finish(&self, a: f64, v: f64) -> (f64, f64) {
        let factor = 1.0 / (1.0 + v);
        (factor * a, factor)
    }

    /// The normalised update skips a contest of ties, as the Elo-MMR reference does;
    /// Glickman's own update (`normalise = false`) scores each tie 1/2.
    fn skips_all_tied(&self) -> bool {
        self.p.normalise
    }

    fn advantage(&self) -> f64 {
        self.advantage
    }
}

impl RatingSystem for PairwiseGlicko {
    type Player = MuSigma;
    fixed_system!(
        PairwiseGlicko,
        PairwiseGlickoParams,
        uncertainty: "sigma",
        "the standard deviation of the rating"
    );

    fn new_player(&self) -> MuSigma {
        self.seeded(self.p.mu_init, None, None)
    }

    fn seeded(&self, rating: f64, uncertainty: Option<f64>, _volatility: Option<f64>) -> MuSigma {
        MuSigma {
            mu: rating,
            sigma: uncertainty.unwrap_or(self.p.sigma_init),
        }
    }

    /// The decay, and under `--growth time` the drift of each period passed beyond the
    /// first, capped at the newcomers' uncertainty (Glicko's RD never grows past theirs).
    fn elapse(&self, p: &mut MuSigma, time: Elapsed) {
        let growth = self.p.sig_drift * self.p.sig_drift * time.idle_periods() + time.variance;
        p.sigma = (p.sigma * p.sigma + growth)
            .sqrt()
            .min(self.p.sigma_init.max(p.sigma));
    }

    fn rating_period_days(&self) -> Option<f64> {
        Some(super::base::DEFAULT_PERIOD_DAYS)
    }

    fn rating(&self, p: &MuSigma) -> Rating {
        p.rating()
    }

    fn update(&self, round: Round<'_>, players: &mut [MuSigma]) {
        allpairs::update_round(self, round, players);
    }

    /// Glickman's expected outcome, with `g` of the combined deviation of the two sides (each
    /// with its members' mean `mu` and RMS `sigma`).
    fn win_probability(&self, players: &[MuSigma], a: &[PlayerId], b: &[PlayerId]) -> Option<f64> {
        let (mu_a, var_a) = side_belief(players, a);
        let (mu_b, var_b) = side_belief(players, b);
        // q g(sqrt(var_a + var_b)) = (pi/sqrt 3) / sqrt(beta^2 + var_a + var_b).
        let qg = UNIT_LOGISTIC / (self.p.beta * self.p.beta + var_a + var_b).sqrt();
        Some(1.0 / (1.0 + (-qg * (mu_a - mu_b)).exp()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::history::{HistoryBuilder, SourceInfo};
    use crate::systems::allpairs::test_util::{after, assert_state, big_field, contest, contests};

    fn glicko(f: impl FnOnce(&mut PairwiseGlickoParams)) -> PairwiseGlicko {
        let mut p = PairwiseGlickoParams::default();
        f(&mut p);
        PairwiseGlicko::new(p).unwrap()
    }

    // The expected values below come from a direct Python transcription of Glickman's formulas
    // (q = (pi/sqrt 3)/beta, g(RD) = 1/sqrt(1 + 3 q^2 RD^2 / pi^2), E = 1/(1 + 10^(-g (r -
    // r_j) q / ln 10)), a loop over every pair, then the reference's normalisation), run with
    // python3 on the defaults beta 125, sig_drift 25; the drift is applied first:
    // sigma <- sqrt(sigma^2 + 25^2).

    #[test]
    fn two_players_by_hand() {
        let h = contest(&[("a", 0, 0), ("b", 1, 1)]);
        let states = [(1600.0, 200.0), (1450.0, 300.0)];
        let got = after(&glicko(|_| {}), &h, &states);
        assert_state(got[0], 1610.900089995346, 113.773613297994);
        assert_state(got[1], 1435.526188410657, 125.321182009249);
        // Glickman's update of one game.
        let got = after(&glicko(|p| p.normalise = false), &h, &states);
        assert_state(got[0], 1654.064619626427, 179.171152468911);
        assert_state(got[1], 1365.190940866929, 214.505854423162);
    }

    /// A draw: skipped by the normalised update (as the reference does), scored 1/2 by
    /// Glickman's, which with his q (beta = pi / (sqrt 3 q)) and no drift is exactly Glicko's
    /// draw (1700/300 and 1500/200: 1630.695056738 / 251.458997583 and 1528.670234891 /
    /// 186.762327360, by hand with Glickman's formulas).
    #[test]
    fn a_draw_counts_only_in_glickmans_update() {
        let h = contest(&[("x", 0, 1), ("y", 0, 1)]);
        let states = [(1700.0, 300.0), (1500.0, 200.0)];
        let got = after(&glicko(|p| p.sig_drift = 0.0), &h, &states);
        assert_eq!(
            (got[0].mu, got[0].sigma, got[1].mu),
            (1700.0, 300.0, 1500.0)
        );
        let q = std::f64::consts::LN_10 / 400.0;
        let got = after(
            &glicko(|p| {
                p.normalise = false;
                p.sig_drift = 0.0;
                p.beta = std::f64::consts::PI / (3f64.sqrt() * q);
            }),
            &h,
            &states,
        );
        assert_state(got[0], 1630.695056738002, 251.458997582887);
        assert_state(got[1], 1528.670234891169, 186.762327359607);
    }

    #[test]
    fn three_players_with_a_tie_by_hand() {
        let h = contest(&[("a", 0, 0), ("b", 1, 2), ("c", 1, 2)]);
        let states = [(1500.0, 350.0), (1600.0, 150.0), (1400.0, 250.0)];
        let got = after(&glicko(|_| {}), &h, &states);
        assert_state(got[0], 1548.350817087613, 128.289799632819);
        assert_state(got[1], 1583.119650422247, 102.125317673840);
        assert_state(got[2], 1407.272078194018, 120.842524969290);
        let got = after(&glicko(|p| p.normalise = false), &h, &states);
        assert_state(got[0], 1753.001274950979, 169.430247597427);
        assert_state(got[1], 1513.128628984461, 133.758199086080);
        assert_state(got[2], 1447.500229158894, 178.310840108333);
    }

    #[test]
    fn glickmans_worked_example_as_a_round_of_three_games() {
        // 1500/200 beats 1400/30, loses to 1550/100 and 1700/300 in one rating period, with
        // Glickman's q = ln 10 / 400 and no drift: 1464.106 / 151.399 (his paper: 1464 and
        // 151.4; python3 to 10 decimals: 1464.1064627569, 151.3989024480).
        let h = contests(&[
            &[("p", 0, 0), ("x", 1, 1)],
            &[("y", 0, 0), ("p", 1, 1)],
            &[("z", 0, 0), ("p", 1, 1)],
        ]);
        let g = glicko(|p| {
            p.normalise = false;
            p.sig_drift = 0.0;
            p.beta = 400.0 * UNIT_LOGISTIC / std::f64::consts::LN_10;
        });
        let got = after(
            &g,
            &h,
            &[
                (1500.0, 200.0),
                (1400.0, 30.0),
                (1550.0, 100.0),
                (1700.0, 300.0),
            ],
        );
        assert!((got[0].mu - 1464.1064627569).abs() < 1e-8, "{:?}", got[0]);
        assert!((got[0].sigma - 151.3989024480).abs() < 1e-8, "{:?}", got[0]);
    }

    #[test]
    fn better_placed_ends_higher_and_a_win_never_lowers_mu() {
        for normalise in [true, false] {
            let s = glicko(|p| p.normalise = normalise);
            let names: Vec<String> = (0..42).map(|i| format!("p{i}")).collect();
            let entries: Vec<(&str, u32, u32)> = names
                .iter()
                .enumerate()
                .map(|(i, n)| (n.as_str(), i as u32, i as u32))
                .collect();
            let h = contest(&entries);
            let mut states: Vec<(f64, f64)> = (0..42)
                .map(|i| (1200.0 + (i * 53 % 600) as f64, 60.0 + (i * 29 % 290) as f64))
                .collect();
            states[10] = (1500.0, 120.0);
            states[30] = (1500.0, 120.0);
            let got = after(&s, &h, &states);
            assert!(
                got[10].mu > got[30].mu,
                "{normalise}: {:?} {:?}",
                got[10],
                got[30]
            );
            assert!(got[0].mu >= states[0].0 && got[41].mu <= states[41].0);
            let h = contest(&[("a", 0, 0), ("b", 1, 1)]);
            for mu_a in [800.0, 1500.0, 2600.0] {
                for (sa, sb) in [(30.0, 350.0), (350.0, 30.0), (200.0, 200.0)] {
                    let got = after(&s, &h, &[(mu_a, sa), (1500.0, sb)]);
                    assert!(got[0].mu >= mu_a && got[1].mu <= 1500.0);
                }
            }
        }
    }

    #[test]
    fn the_round_weighs_one_maximally_informative_game() {
        // Whatever the field, 1/sigma'^2 = 1/sigma^2 + q^2/4 with q = (pi/sqrt 3)/125 and
        // sigma^2 = 350^2 + 25^2: sigma' = 128.289799632819 (python3), as after one game
        // against an equally rated opponent of certain skill (g = 1, E = 1/2).
        let (h, mut states) = big_field(300);
        states[5].sigma = 350.0;
        let states: Vec<(f64, f64)> = states.iter().map(|s| (s.mu, s.sigma)).collect();
        let got = after(&glicko(|_| {}), &h, &states);
        assert!(
            (got[5].sigma - 128.289799632819).abs() < 1e-9,
            "{:?}",
            got[5]
        );
        let duel = contest(&[("a", 0, 0), ("b", 1, 1)]);
        let drifted = 350.0f64.hypot(25.0);
        let one = after(
            &raw_duel_no_drift(),
            &duel,
            &[(1500.0, drifted), (1500.0, 0.0)],
        );
        assert!((one[0].sigma - got[5].sigma).abs() < 1e-9);
        // The weights of the N match-ups of the mu step add up to one game: against a field of
        // clones of himself (all equal, certain opponents would need sigma 0), a player who
        // beats everyone moves as far as after winning that one game.
        let clones: Vec<(String, u32)> = (0..50).map(|i| (format!("c{i}"), i)).collect();
        let entries: Vec<(&str, u32, u32)> =
            clones.iter().map(|(n, i)| (n.as_str(), *i, *i)).collect();
        let field = contest(&entries);
        let mut s = vec![(1500.0, 0.0); 50];
        s[0] = (1500.0, 350.0);
        let g0 = glicko(|p| p.sig_drift = 0.0);
        let won_all = after(&g0, &field, &s);
        let won_one = after(
            &raw_duel_no_drift(),
            &duel,
            &[(1500.0, 350.0), (1500.0, 0.0)],
        );
        // The normalised mean counts the self-draw: 49 wins of N = 50 match-ups.
        let step = won_one[0].mu - 1500.0;
        assert!((won_all[0].mu - 1500.0 - step * 49.0 / 50.0).abs() < 1e-9);
    }

    fn raw_duel_no_drift() -> PairwiseGlicko {
        glicko(|p| {
            p.normalise = false;
            p.sig_drift = 0.0;
        })
    }

    #[test]
    fn swapping_two_players_swaps_their_results_exactly() {
        let (h, states) = big_field(150);
        let s: Vec<(f64, f64)> = states.iter().map(|s| (s.mu, s.sigma)).collect();
        let got = after(&glicko(|_| {}), &h, &s);
        let mut b = HistoryBuilder::new();
        let n = states.len();
        let ids: Vec<u32> = (0..n)
            .map(|i| b.player(&format!("p{}", n - 1 - i)))
            .collect();
        let c = h.contest(0);
        b.begin_contest(0, 1.0, None, None);
        for k in (0..n).rev() {
            let e = c.entry(k);
            b.add_entry(&[ids[n - 1 - e.players[0] as usize]], e.lo, e.hi, None);
        }
        b.end_contest().unwrap();
        let h2 = b.finish(SourceInfo::default());
        let rev: Vec<(f64, f64)> = s.iter().rev().copied().collect();
        let got2 = after(&glicko(|_| {}), &h2, &rev);
        for i in 0..n {
            assert_eq!(got[i], got2[n - 1 - i], "{i}");
        }
        let h = contest(&[("a", 0, 0), ("b", 1, 1), ("c", 2, 2)]);
        let h2 = contest(&[("c", 0, 0), ("b", 1, 1), ("a", 2, 2)]);
        let s = [(1500.0, 200.0), (1550.0, 100.0), (1500.0, 200.0)];
        let (x, y) = (
            after(&glicko(|_| {}), &h, &s),
            after(&glicko(|_| {}), &h2, &s),
        );
        let (a, b, c) = ((x[0], y[2]), (x[1], y[1]), (x[2], y[0]));
        assert_eq!((a.0, c.0, b.0), (c.1, a.1, b.1));
    }

    #[test]
    fn results_do_not_depend_on_the_number_of_threads() {
        let (h, states) = big_field(400);
        let s: Vec<(f64, f64)> = states.iter().map(|s| (s.mu, s.sigma)).collect();
        for normalise in [true, false] {
            let g = glicko(|p| p.normalise = normalise);
            let run = |k: usize| {
                rayon::ThreadPoolBuilder::new()
                    .num_threads(k)
                    .build()
                    .unwrap()
                    .install(|| after(&g, &h, &s))
            };
            assert_eq!(run(1), run(2));
        }
    }

    #[test]
    fn team_members_receive_the_change_of_a_player_with_mean_and_rms() {
        let mut b = HistoryBuilder::new();
        let ids: Vec<u32> = ["a", "b", "c"].iter().map(|n| b.player(n)).collect();
        b.begin_contest(0, 1.0, None, None);
        b.add_entry(&ids[0..2], 0, 0, None);
        b.add_entry(&ids[2..3], 1, 1, None);
        b.end_contest().unwrap();
        let h = b.finish(SourceInfo::default());
        let got = after(
            &glicko(|_| {}),
            &h,
            &[(1400.0, 100.0), (1600.0, 200.0), (1500.0, 150.0)],
        );
        let drifted = |s: f64| s.hypot(25.0);
        let rms = ((drifted(100.0).powi(2) + drifted(200.0).powi(2)) / 2.0).sqrt();
        let solo = contest(&[("t", 0, 0), ("c", 1, 1)]);
        let g0 = glicko(|p| p.sig_drift = 0.0);
        let team = after(&g0, &solo, &[(1500.0, rms), (1500.0, drifted(150.0))]);
        let dmu = team[0].mu - 1500.0;
        let factor = (team[0].sigma / rms).powi(2);
        for (k, (mu, sigma)) in [(0, (1400.0, 100.0)), (1, (1600.0, 200.0))] {
            assert!((got[k].mu - mu - dmu).abs() < 1e-9);
            assert!((got[k].sigma - drifted(sigma) * factor.sqrt()).abs() < 1e-9);
        }
        assert!((got[2].mu - team[1].mu).abs() < 1e-9);
    }

    #[test]
    fn win_probability_uses_g_of_the_combined_deviation() {
        let g = glicko(|_| {});
        let players = [
            MuSigma {
                mu: 1600.0,
                sigma: 200.0,
            },
            MuSigma {
                mu: 1450.0,
                sigma: 300.0,
            },
        ];
        // q = (pi/sqrt 3)/125, g = 1/sqrt(1 + 3 q^2 (200^2 + 300^2)/pi^2),
        // 1/(1 + exp(-q g 150)) = 0.6710539285 (python3).
        let p = g.win_probability(&players, &[0], &[1]).unwrap();
        assert!((p - 0.6710539285).abs() < 1e-9, "{p}");
        let q = g.win_probability(&players, &[1], &[0]).unwrap();
        assert!((p + q - 1.0).abs() < 1e-15);
    }
}
