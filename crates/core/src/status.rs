//! Who a leaderboard ranks. Every entrant is `ranked`, `provisional` or `inactive`, as a
//! federation, a league or a server publishes its list: the established and active entrants
//! ranked, the others listed apart and marked. The status decides what is ranked, never what
//! is predicted: the replay and its metrics do not look at it.
//!
//! One rule per system family, each from what the family's anchor publishes:
//! - **Provisional**: for a system whose uncertainty is a standard deviation of the rating
//!   (Glicko, Glicko-2, TrueSkill, Elo-MMR and Elo-MMchi, BAR, pairwise Glicko,
//!   Bradley-Terry, WHR), an uncertainty above 110 Elo points as of the history's end:
//!   Lichess's provisional deviation (lila's `provisionalDeviation`), in the system's own
//!   units ([`RatingSystem::advantage_per_elo`] points an Elo point: TrueSkill's sigma 2.34
//!   with its defaults). For the others (Elo, Codeforces, Topcoder, Yuksel, FIDE), fewer than
//!   5 rated contests: FIDE publishes a first rating after 5 games; US Chess's rating is
//!   provisional up to 25 games, so `uscf` wants 26.
//! - **Inactive**: no contest within 365 days before the history's last contest: FIDE's
//!   inactivity (no rated game in a year). A history whose contests share one time has no
//!   inactive entrant.
//! - `--preset lichess` ranks as Lichess's leaderboards do: a deviation of at most 75
//!   (lila's `standardRankableDeviation`), 30 rated games, and a game within the last week.
//!
//! An entrant both inactive and provisional is inactive.

use crate::record::PlayerRecord;
use crate::systems::{Rating, RatingSystem, SystemKind};
use serde::Serialize;

/// An entrant's standing on the leaderboard.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Status {
    /// Established and active: ranked.
    #[default]
    Ranked,
    /// Too uncertain, or too few contests: listed apart, unranked.
    Provisional,
    /// No contest within the activity window: listed apart, unranked.
    Inactive,
}

impl Status {
    /// The name the outputs write.
    pub fn name(self) -> &'static str {
        match self {
            Status::Ranked => "ranked",
            Status::Provisional => "provisional",
            Status::Inactive => "inactive",
        }
    }
}

/// Lichess's provisional deviation, in Elo points.
pub const PROVISIONAL_DEVIATION: f64 = 110.0;

/// FIDE's games for a first rating.
pub const FIRST_RATING_GAMES: u32 = 5;

/// FIDE's year without a rated game, in days.
pub const INACTIVE_AFTER_DAYS: f64 = 365.0;

/// The rule that gives each entrant a [`Status`] (by default, every entrant is ranked).
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct StatusRule {
    /// Provisional while the uncertainty (the system's units, as of the end) is above this.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub provisional_above: Option<f64>,
    /// Provisional with fewer rated contests than this.
    pub min_contests: u32,
    /// Provisional with fewer rated rounds than this (`--min-rounds`).
    #[serde(skip_serializing_if = "crate::history::is_zero")]
    pub min_rounds: u32,
    /// Inactive without a contest within this many days before the history's last contest.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub active_within_days: Option<f64>,
    /// Inactive with a last contest before this time (Unix seconds; `--active-since`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub active_since: Option<i64>,
    /// Every rated entrant ranked, whatever his status (for research).
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub rank_all: bool,
}

impl StatusRule {
    /// The rule of `system`'s family (see the module's documentation).
    pub fn of<S: RatingSystem>(system: &S) -> Self {
        let kind = system.kind();
        // Whether the uncertainty is a standard deviation of the rating (not a spread of
        // performances or of changes: Topcoder's volatility, Yuksel's phi).
        let deviation = system.uncertainty_meaning().is_some()
            && !matches!(kind, SystemKind::Topcoder | SystemKind::Yuksel);
        let provisional_above =
            deviation.then(|| PROVISIONAL_DEVIATION * system.advantage_per_elo().unwrap_or(1.0));
        let min_contests = match kind {
            _ if deviation => 0,
            SystemKind::Uscf => 26,
            _ => FIRST_RATING_GAMES,
        };
        StatusRule {
            provisional_above,
            min_contests,
            active_within_days: Some(INACTIVE_AFTER_DAYS),
            ..StatusRule::default()
        }
    }

    /// Lichess's leaderboards: a deviation of at most 75, 30 rated games, a game within the
    /// last 7 days.
    pub fn lichess() -> Self {
        StatusRule {
            provisional_above: Some(75.0),
            min_contests: 30,
            active_within_days: Some(7.0),
            ..StatusRule::default()
        }
    }

    /// The earliest last contest of an active entrant, for a history whose last contest is
    /// at `last` (Unix seconds).
    pub fn active_from(&self, last: i64) -> i64 {
        let within = self
            .active_within_days
            .map(|d| last.saturating_sub((d * 86_400.0).round() as i64));
        self.active_since.max(within).unwrap_or(i64::MIN)
    }

    /// A rated entrant's status, his last contest compared with `active_from`
    /// ([`StatusRule::active_from`]).
    pub fn status(&self, rating: &Rating, record: &PlayerRecord, active_from: i64) -> Status {
        if self.rank_all {
            return Status::Ranked;
        }
        if record.last_time < active_from {
            return Status::Inactive;
        }
        let uncertain = (self.provisional_above.zip(rating.uncertainty))
            .is_some_and(|(max, u)| u > max || u.is_nan());
        if uncertain || record.contests < self.min_contests || record.rounds < self.min_rounds {
            Status::Provisional
        } else {
            Status::Ranked
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::systems::{
        Elo, EloParams, Federation, Glicko2, Glicko2Params, TrueSkill, TrueSkillParams, UscfParams,
    };

    fn record(contests: u32, last_time: i64) -> PlayerRecord {
        PlayerRecord {
            contests,
            rounds: contests,
            last_time,
            ..PlayerRecord::default()
        }
    }

    fn rating(u: Option<f64>) -> Rating {
        Rating {
            mean: 1500.0,
            uncertainty: u,
            display: 1500.0,
        }
    }

    #[test]
    fn each_family_has_its_anchor() {
        let g2 = StatusRule::of(&Glicko2::new(Glicko2Params::default()).unwrap());
        assert_eq!((g2.provisional_above, g2.min_contests), (Some(110.0), 0));
        // TrueSkill: 110 Elo points at its defaults' slope, sqrt(2 (beta^2 + tau^2)) wide.
        let ts = StatusRule::of(&TrueSkill::new(TrueSkillParams::default()).unwrap());
        let spread = (2.0f64 * ((25.0f64 / 6.0).powi(2) + (25.0f64 / 300.0).powi(2))).sqrt();
        let expect =
            110.0 * spread * std::f64::consts::LN_10 / 1600.0 * (2.0 * std::f64::consts::PI).sqrt();
        assert!((ts.provisional_above.unwrap() - expect).abs() < 1e-12);
        assert!((ts.provisional_above.unwrap() - 2.3387).abs() < 1e-4);
        let elo = StatusRule::of(&Elo::new(EloParams::default()).unwrap());
        assert_eq!((elo.provisional_above, elo.min_contests), (None, 5));
        let uscf = StatusRule::of(&Federation::uscf(UscfParams::default()).unwrap());
        assert_eq!(uscf.min_contests, 26);
        assert_eq!(elo.active_within_days, Some(365.0));
    }

    #[test]
    fn statuses_by_the_rule() {
        let rule = StatusRule::of(&Glicko2::new(Glicko2Params::default()).unwrap());
        let year = 365 * 86_400;
        let last = 10 * year;
        let from = rule.active_from(last);
        assert_eq!(from, 9 * year);
        let s = |u: f64, contests: u32, t: i64| {
            rule.status(&rating(Some(u)), &record(contests, t), from)
        };
        assert_eq!(s(80.0, 40, last), Status::Ranked);
        assert_eq!(
            s(110.0, 40, last),
            Status::Ranked,
            "at the threshold: ranked"
        );
        assert_eq!(s(110.5, 40, last), Status::Provisional);
        assert_eq!(
            s(80.0, 40, 9 * year),
            Status::Ranked,
            "a year to the second"
        );
        assert_eq!(s(80.0, 40, 9 * year - 1), Status::Inactive);
        assert_eq!(
            s(300.0, 1, 0),
            Status::Inactive,
            "inactive before provisional"
        );
        let counted = StatusRule::of(&Elo::new(EloParams::default()).unwrap());
        let c = |contests: u32| counted.status(&rating(None), &record(contests, last), from);
        assert_eq!((c(4), c(5)), (Status::Provisional, Status::Ranked));
        let all = StatusRule {
            rank_all: true,
            ..rule
        };
        assert_eq!(
            all.status(&rating(Some(300.0)), &record(1, 0), from),
            Status::Ranked
        );
        let lichess = StatusRule::lichess();
        let l = |u: f64, games: u32, t: i64| {
            lichess.status(
                &rating(Some(u)),
                &record(games, t),
                lichess.active_from(last),
            )
        };
        assert_eq!(l(75.0, 30, last), Status::Ranked);
        assert_eq!(l(75.1, 30, last), Status::Provisional);
        assert_eq!(l(60.0, 29, last), Status::Provisional);
        assert_eq!(l(60.0, 30, last - 8 * 86_400), Status::Inactive);
    }
}
