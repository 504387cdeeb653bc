//! The standings format: one row per participant per contest (CSV or Parquet).
//!
//! Columns `contest,time,player,rank` with optional `team` (rows of one contest with equal
//! `team` form a team, which must share one rank), `weight` (the contest's) and `share` (the
//! share of the contest this player played, within 0 and 1: partial play; empty is 1). Rank 1
//! is best, equal ranks are
//! ties; ranks need not be dense (`1,1,3` and `1,1,2` mean the same). The rows of a contest need
//! not be adjacent; every row of a contest must give the same time and weight.
//!
//! A streamed read (or its counting pass) keeps each contest's rows together instead: a
//! contest is complete when the next one begins ([`StandingsReader::before_row`]), so that it
//! can be handed over at once; one whose rows continue after another began cannot stream.
//! Its contests, players and errors are those of a whole read: a contest found invalid is
//! reported where a whole read reports it, after every row.

use super::columns::{find_column, missing_column};
use super::context::{Context, weight};
use super::errors::{FieldError, Location};
use super::options::ColumnMap;
use crate::history::{PlayerId, ranks_to_ranges};
use rustc_hash::{FxHashMap, FxHashSet};

/// Column positions of a standings table.
#[derive(Clone, Debug)]
pub(crate) struct StandingsSchema {
    contest: usize,
    time: usize,
    player: usize,
    rank: usize,
    team: Option<usize>,
    weight: Option<usize>,
    share: Option<usize>,
    season: Option<usize>,
    names: Vec<String>,
}

impl StandingsSchema {
    pub fn resolve(header: &[String], map: &ColumnMap) -> Result<Self, FieldError> {
        let col = |name: &str| find_column(header, map.source(name));
        let need = |name: &str| {
            let what = " (the standings format needs contest, time, player and rank; ";
            col(name).ok_or_else(|| missing_column(header, map.source(name), what))
        };
        Ok(Self {
            contest: need("contest")?,
            time: need("time")?,
            player: need("player")?,
            rank: need("rank")?,
            team: col("team"),
            weight: col("weight"),
            share: col("share"),
            season: super::games::season_column(header, map)?,
            names: header.to_vec(),
        })
    }

    /// The columns read, by position.
    pub fn used(&self) -> Vec<usize> {
        let optional = [self.team, self.weight, self.share, self.season];
        let required = [self.contest, self.time, self.player, self.rank];
        required
            .into_iter()
            .chain(optional.into_iter().flatten())
            .collect()
    }
}

struct Placing {
    player: PlayerId,
    rank: u64,
    /// Index into the contest's team names, or `NO_TEAM`.
    team: u32,
    /// The share of the contest played (partial play).
    share: f64,
}

const NO_TEAM: u32 = u32::MAX;

struct Pending {
    label: String,
    /// The season of its first row, if the table names seasons.
    season: Option<String>,
    first: Location,
    time: i64,
    weight: f64,
    placings: Vec<Placing>,
    players: FxHashSet<PlayerId>,
    /// team name -> (index, rank)
    teams: FxHashMap<String, (u32, u64)>,
}

/// A row's fields read by the schema, `get(i)` the i-th field.
impl StandingsSchema {
    fn name(&self, i: usize) -> &str {
        self.names[i].as_str()
    }

    /// The row's rank: a positive integer.
    fn rank<'r>(&self, get: impl Fn(usize) -> &'r str) -> Result<u64, FieldError> {
        let rank_raw = get(self.rank).trim();
        match rank_raw.parse::<u64>() {
            Ok(r) if r >= 1 => Ok(r),
            _ => Err(FieldError::new(
                self.name(self.rank),
                format!("rank `{rank_raw}` is not a positive integer"),
            )),
        }
    }

    /// The row's player's share of the contest: 1 without a share column or value.
    fn share<'r>(&self, get: impl Fn(usize) -> &'r str) -> Result<f64, FieldError> {
        match self.share.map(|i| (i, get(i).trim())) {
            None | Some((_, "")) => Ok(1.0),
            Some((i, v)) => match v.parse::<f64>() {
                Ok(x) if (0.0..=1.0).contains(&x) => Ok(x),
                _ => Err(FieldError::new(
                    self.name(i),
                    format!(
                        "share `{v}` is not a number within 0 and 1 (the share of the contest played)"
                    ),
                )),
            },
        }
    }
}

impl Pending {
    /// Team `t`'s index in the contest, the team added at `rank` if new; refused (the
    /// message) when its other members have another rank.
    fn team(&mut self, t: &str, rank: u64) -> Result<u32, String> {
        if let Some(&(ti, team_rank)) = self.teams.get(t) {
            if team_rank != rank {
                return Err(format!(
                    "rank {rank} differs from rank {team_rank} of team `{t}`'s other members"
                ));
            }
            return Ok(ti);
        }
        let ti = self.teams.len() as u32;
        self.teams.insert(t.to_string(), (ti, rank));
        Ok(ti)
    }
}

/// Collects standings rows by contest; [`finish`](Self::finish) turns them into contests.
pub(crate) struct StandingsReader {
    pub(crate) schema: StandingsSchema,
    pending: Vec<Pending>,
    index: FxHashMap<String, usize>,
    times: super::time::TimeParser,
    /// Streamed: each contest is built when the next begins; the labels of those built.
    contiguous: Option<FxHashSet<String>>,
}

impl StandingsReader {
    /// A reader; `contiguous` for a streamed read (see the module's documentation).
    pub fn new(
        schema: StandingsSchema,
        time_format: super::time::TimeFormat,
        contiguous: bool,
    ) -> Self {
        Self {
            schema,
            pending: Vec::new(),
            index: FxHashMap::default(),
            times: super::time::TimeParser::new(time_format),
            contiguous: contiguous.then(FxHashSet::default),
        }
    }

    /// Streamed, before each row: the open contest is built and handed on when this row
    /// begins another, before the row's player is named (a counting read numbers players
    /// within the open contest). A row of a contest built before cannot stream: the counting
    /// pass notes where (the input is then read whole); a streamed read stops there.
    pub fn before_row<'r>(
        &mut self,
        ctx: &mut Context,
        at: &Location,
        get: impl Fn(usize) -> &'r str,
    ) -> anyhow::Result<()> {
        let label = get(self.schema.contest).trim();
        let Some(closed) = &mut self.contiguous else {
            return Ok(());
        };
        if self.pending.first().is_some_and(|p| p.label != label) {
            let p = self.pending.pop().expect("one open contest");
            self.index.clear();
            closed.insert(p.label.clone());
            let first = p.first.clone();
            build(ctx, p, true)?;
            ctx.after_record(&first)?;
        }
        if self.pending.is_empty() && closed.contains(label) {
            if ctx.builder.count().is_none() {
                let e = FieldError::new(
                    self.schema.name(self.schema.contest),
                    format!(
                        "contest `{label}` has rows after another contest began; a streamed \
                         standings input keeps each contest's rows together (--stream off reads \
                         it whole)"
                    ),
                );
                return Err(ctx.error(at.clone(), e).into());
            }
            ctx.scattered_at
                .get_or_insert_with(|| (ctx.file.clone(), at.clone()));
        }
        Ok(())
    }

    /// Validates one row and files it under its contest.
    pub fn row<'r>(
        &mut self,
        ctx: &mut Context,
        at: &Location,
        get: impl Fn(usize) -> &'r str,
    ) -> Result<(), FieldError> {
        let s = &self.schema;
        let label = get(s.contest).trim();
        if label.is_empty() {
            return Err(FieldError::new(s.name(s.contest), "empty contest id"));
        }
        let time = self
            .times
            .parse(get(s.time))
            .map_err(|m| FieldError::new(s.name(s.time), m))?;
        let weight = s.weight.map_or(Ok(1.0), |i| weight(get(i), s.name(i)))?;
        let player_raw =
            super::context::player_name(get(s.player), s.name(s.player), ctx.opts.trim_names)?;
        let rank = s.rank(&get)?;
        let team = s.team.map(|i| get(i).trim()).filter(|t| !t.is_empty());
        let share = s.share(&get)?;

        let idx = self.contest_index(label, at, time, weight)?;
        let s = &self.schema;
        if let Some(i) = s.season
            && self.pending[idx].season.is_none()
            && !get(i).trim().is_empty()
        {
            self.pending[idx].season = Some(get(i).trim().to_string());
        }
        let player = ctx.builder.player(player_raw);
        let p = &mut self.pending[idx];
        if p.players.contains(&player) {
            return Err(FieldError::new(
                s.name(s.player),
                format!("player `{player_raw}` appears twice in contest `{label}`"),
            ));
        }
        let team = match team {
            None => NO_TEAM,
            Some(t) => p
                .team(t, rank)
                .map_err(|m| FieldError::new(s.name(s.rank), m))?,
        };
        p.players.insert(player);
        p.placings.push(Placing {
            player,
            rank,
            team,
            share,
        });
        Ok(())
    }

    /// The contest `label`'s place among those pending, a new one begun at `at` if it is
    /// not there yet; refused when its time or weight differ from its first row's.
    fn contest_index(
        &mut self,
        label: &str,
        at: &Location,
        time: i64,
        weight: f64,
    ) -> Result<usize, FieldError> {
        let s = &self.schema;
        if let Some(&i) = self.index.get(label) {
            let p = &self.pending[i];
            if p.time != time {
                return Err(FieldError::new(
                    s.name(s.time),
                    format!(
                        "contest `{label}` has another time on its first row ({}); all rows of a contest must share one time",
                        location_text(&p.first)
                    ),
                ));
            }
            if p.weight != weight {
                return Err(FieldError::new(
                    s.name(s.weight.unwrap_or(s.contest)),
                    format!(
                        "contest `{label}` has another weight on its first row ({})",
                        location_text(&p.first)
                    ),
                ));
            }
            return Ok(i);
        }
        self.index.insert(label.to_string(), self.pending.len());
        self.pending.push(Pending {
            label: label.to_string(),
            season: None,
            first: at.clone(),
            time,
            weight,
            placings: Vec::new(),
            players: FxHashSet::default(),
            teams: FxHashMap::default(),
        });
        Ok(self.pending.len() - 1)
    }

    /// Builds the contests, in order of first appearance (the history sorts them by time);
    /// streamed, the last one, then the invalid ones are reported.
    pub fn finish(self, ctx: &mut Context) -> anyhow::Result<()> {
        ctx.source.time_format = Some(self.times.reading());
        let streamed = self.contiguous.is_some();
        for p in self.pending {
            let first = p.first.clone();
            build(ctx, p, streamed)?;
            if streamed {
                ctx.after_record(&first)?;
            }
        }
        ctx.report_deferred().map_err(Into::into)
    }
}

/// Builds one contest; one that is invalid is rejected (`streamed`: set aside until the end).
fn build(ctx: &mut Context, p: Pending, streamed: bool) -> Result<(), super::errors::InputError> {
    // Entries: each team once (at its first member), each teamless player alone; their ranks.
    let mut ranks: Vec<u64> = Vec::new();
    let mut entry_of: Vec<usize> = Vec::with_capacity(p.placings.len());
    let mut team_entry: Vec<Option<usize>> = vec![None; p.teams.len()];
    for pl in &p.placings {
        let new = ranks.len();
        let e = match pl.team {
            NO_TEAM => new,
            t => *team_entry[t as usize].get_or_insert(new),
        };
        if e == new {
            ranks.push(pl.rank);
        }
        entry_of.push(e);
    }
    let mut by_entry: Vec<usize> = (0..p.placings.len()).collect();
    by_entry.sort_by_key(|&i| entry_of[i]);
    let (mut members, mut shares) = (Vec::new(), Vec::new());
    let b = &mut ctx.builder;
    if let Some(season) = &p.season {
        b.season_of_next(season);
    }
    b.begin_contest(p.time, p.weight, Some(&p.label), None);
    let entries = by_entry.chunk_by(|&i, &j| entry_of[i] == entry_of[j]);
    for (entry, &(lo, hi)) in entries.zip(&ranks_to_ranges(&ranks)) {
        members.clear();
        shares.clear();
        members.extend(entry.iter().map(|&i| p.placings[i].player));
        shares.extend(entry.iter().map(|&i| p.placings[i].share));
        b.add_weighted_entry(&members, &shares, lo, hi, None);
    }
    if let Err(e) = b.end_contest() {
        let at = Location::Contest(format!("`{}` ({})", p.label, location_text(&p.first)));
        let e = FieldError::whole(e.to_string());
        // Streamed, reported after every row, where a whole read reports it.
        if streamed {
            ctx.defer(at, e);
        } else {
            ctx.reject(at, e)?;
        }
    }
    Ok(())
}

fn location_text(l: &Location) -> String {
    match l {
        Location::Line(n) => format!("line {n}"),
        Location::Row(n) => format!("row {n}"),
        Location::Contest(c) => c.clone(),
        Location::File => "start of file".into(),
    }
}
