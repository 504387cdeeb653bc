//! The rule of series (a best-of-N named by a `series` column): in time order, a series' games
//! may not be interleaved with any other contest of its players, and each shares a player with
//! the games before. Checked one contest at a time, by a whole read and by a stream alike.

use crate::history::PlayerId;
use crate::time;

/// The series check of a whole read (`check_series`) one contest at a time, in time order: a
/// streamed read checks contests as they come. Per series: the index of its first contest and its players so
/// far; per player: the index, series and time of his latest contest.
///
/// It also knows which series are still open: a series is closed once each of its players
/// has played a contest outside it since (a later game of it between them would break the
/// rule), and only then is its round of `--period series` whole.
#[derive(Default)]
pub(crate) struct SeriesCheck {
    ids: rustc_hash::FxHashMap<Box<str>, u32>,
    series: Vec<(u64, Vec<PlayerId>)>,
    latest: Vec<Option<(u64, Option<u32>, i64)>>,
    contests: u64,
    /// Per series, its players who have not played outside it since.
    staying: Vec<u32>,
}

impl SeriesCheck {
    /// Checks the next contest (of `series`, if any, at `time`, between `players`); the
    /// message of one that breaks the rule (`sides` names its sides).
    pub(crate) fn contest<'n>(
        &mut self,
        series: Option<&str>,
        time: i64,
        players: &[PlayerId],
        name: impl Fn(PlayerId) -> &'n str,
        sides: &dyn Fn() -> String,
    ) -> Result<(), String> {
        let index = self.contests;
        self.contests += 1;
        // Before the first game of any series nothing needs keeping: a contest matters only
        // once it comes after a series began.
        if series.is_none() && self.series.is_empty() {
            return Ok(());
        }
        if let Some(&p) = players.iter().max()
            && self.latest.len() <= p as usize
        {
            self.latest.resize(p as usize + 1, None);
        }
        let s = series.map(|name| {
            let next = self.ids.len() as u32;
            *self.ids.entry(name.into()).or_insert(next)
        });
        if let (Some(s), Some(name_of_series)) = (s, series)
            && let Some((first, members)) = self.series.get(s as usize)
        {
            let problem = if !players.iter().any(|p| members.contains(p)) {
                Some("has no player of its earlier games (one id for two series?)".to_string())
            } else {
                players.iter().find_map(|&p| match self.latest[p as usize] {
                    Some((k, other, t)) if k > *first && other != Some(s) => Some(format!(
                        "comes after {} played another contest ({}) since the series began; a \
                         series' games cannot be interleaved with other games of its players",
                        name(p),
                        time::format_time(t)
                    )),
                    _ => None,
                })
            };
            if let Some(problem) = problem {
                return Err(format!(
                    "series `{name_of_series}`: its game of {} ({}) {problem}",
                    time::format_time(time),
                    sides()
                ));
            }
        }
        // Players leaving a series for this contest.
        for &p in players {
            if let Some((_, Some(before), _)) = self.latest[p as usize]
                && Some(before) != s
            {
                self.staying[before as usize] -= 1;
            }
        }
        if let Some(s) = s {
            if self.series.len() <= s as usize {
                self.series.push((index, Vec::new()));
                self.staying.push(0);
            }
            let members = &mut self.series[s as usize].1;
            for &p in players {
                if self.latest[p as usize].is_none_or(|(_, before, _)| before != Some(s)) {
                    self.staying[s as usize] += 1;
                }
                if !members.contains(&p) {
                    members.push(p);
                }
            }
        }
        for &p in players {
            self.latest[p as usize] = Some((index, s, time));
        }
        Ok(())
    }

    /// Whether the series of this name may still have games to come.
    pub(crate) fn is_open(&self, name: &str) -> bool {
        self.ids
            .get(name)
            .is_some_and(|&s| self.staying[s as usize] > 0)
    }
}

/// A contest's sides as a message names them (`a+b vs c`): its entries' players, named.
pub(crate) fn sides<'n>(
    entries: impl Iterator<Item = &'n [PlayerId]>,
    name: impl Fn(PlayerId) -> &'n str,
) -> String {
    let side = |players: &[PlayerId]| players.iter().map(|&p| name(p)).collect::<Vec<_>>();
    entries
        .map(|players| side(players).join("+"))
        .collect::<Vec<_>>()
        .join(" vs ")
}
