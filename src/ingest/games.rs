//! The games format: two sides per row (CSV or Parquet).
//!
//! Columns `time`, `a`, `b` and the result as `score_a`+`score_b` (points, higher wins), or
//! `result` (side a's score: `1`, `0.5`, `0`, `1-0`, `0-1`, `1/2-1/2`, `½-½`, `W`/`D`/`L`, or a
//! fraction between 0 and 1), or `winner` (equal to `a` or `b`; empty or `draw` for a draw).
//! When several are present the first of that list is used. Optional `series` and `weight`.
//! A side may be a team written `p1+p2+p3` (see `TeamSeparator`). A file of winners and
//! losers maps `winner` and `loser` (and neither `a` nor `b`): each row is a win of its
//! winner over its loser.
//!
//! A `pool` column (`--pool-by COLUMN`) rates each player apart in each of its values (a
//! chess speed class, a tennis surface); with Lichess's speed classes asked for (`--preset
//! lichess`) and no pool column, a `time_control` column (`base+increment` in seconds, `-`
//! for correspondence) gives each game its class.
//!
//! Side a plays the first side (home, white: a first-side advantage applies to it), except
//! in a game whose optional `neutral` column is true (`TRUE`/`FALSE`, `1`/`0`, `yes`/`no`;
//! empty is not neutral), and in every game of a file whose `winner` column is side a's or
//! side b's own column (sides listed as winner and loser have no first side).

use super::columns::{find_column, missing_column};
use super::context::{Context, weight};
use super::errors::FieldError;
use super::options::{ColumnMap, TeamSeparator};
use crate::history::PlayerId;
use std::cmp::Ordering;

/// Where a game's rating pool comes from.
#[derive(Clone, Copy, Debug)]
enum PoolColumn {
    /// A column's value, as it is.
    Value(usize),
    /// Lichess's speed class of a time control.
    Speed(usize),
}

#[derive(Clone, Copy, Debug)]
enum OutcomeColumns {
    Scores(usize, usize),
    Result(usize),
    Winner(usize),
    /// One column per outcome, the one that happened set (`1`, `true`): side a won, side b
    /// won, and optionally a draw.
    OneHot(usize, usize, Option<usize>),
}

/// Pairs of column names that arena files give their sides, read as `a` and `b` where a file
/// has neither (and `--map` names neither): lmarena's and the Chatbot Arena's, LLMFAO's.
const SIDE_ALIASES: [(&str, &str); 2] = [("model_a", "model_b"), ("left", "right")];

/// Columns read as `time` where a file has none (and `--map` names none): lmarena's `tstamp`,
/// and the `timestamp` and `date` of many exports.
const TIME_ALIASES: [&str; 3] = ["tstamp", "timestamp", "date"];

/// One-hot outcome columns read as `a_wins`, `b_wins` and `draw` where a file has none of
/// those (the Chatbot Arena's Kaggle files).
const ONE_HOT_ALIASES: (&str, &str, &str) = ("winner_model_a", "winner_model_b", "winner_tie");

/// How a file without a time column is read, as the summary and metrics.json say it.
pub(crate) const UNTIMED: &str =
    "none: the input has no time column, and its games are rated in the input's order";

/// Column positions of a games table.
#[derive(Clone, Debug)]
pub(crate) struct GamesSchema {
    /// The time column; none: every game at one time, in the input's order.
    time: Option<usize>,
    a: usize,
    b: usize,
    outcome: OutcomeColumns,
    series: Option<usize>,
    weight: Option<usize>,
    neutral: Option<usize>,
    pool: Option<PoolColumn>,
    event: Option<usize>,
    /// The season column, read only where named (`--map season=COLUMN`).
    season: Option<usize>,
    /// Side a is a first side (not a file of winners and losers).
    sided: bool,
    names: Vec<String>,
}

/// The season column where `--map season=COLUMN` names one (a table's `season` column is
/// read only when asked for: seasons change what a replay does between them); an error when
/// the table lacks it.
pub(crate) fn season_column(
    header: &[String],
    map: &ColumnMap,
) -> Result<Option<usize>, FieldError> {
    if !map.maps("season") {
        return Ok(None);
    }
    let name = map.source("season");
    find_column(header, name).map(Some).ok_or_else(|| {
        let what = format!(": `--map season={name}` names no column of the header (");
        missing_column(header, name, &what)
    })
}

impl GamesSchema {
    /// Finds the columns in a header; a missing required column is an error naming it. With
    /// `speed`, a `time_control` column gives the pools where no `pool` column does.
    pub fn resolve(header: &[String], map: &ColumnMap, speed: bool) -> Result<Self, FieldError> {
        let col = |name: &str| find_column(header, map.source(name));
        let need = |name: &str| {
            let what = " (the games format needs a, b and a result, and reads time where there \
                        is one; ";
            col(name).ok_or_else(|| missing_column(header, map.source(name), what))
        };
        // A file of winners and losers (`--map winner=...,loser=...`): the winner is side a,
        // the loser side b, and neither plays a first side.
        let winner_loser = col("a").is_none() && col("b").is_none();
        let (a, b) = match (
            winner_loser,
            col("winner"),
            col("loser"),
            side_aliases(header, map),
        ) {
            (true, Some(w), Some(l), _) => (w, l),
            (true, _, _, Some(sides)) => sides,
            _ => (need("a")?, need("b")?),
        };
        // Without a time column (and none named): one of [`TIME_ALIASES`], else the input's
        // order.
        let time = match col("time") {
            Some(t) => Some(t),
            None if map.maps("time") => return Err(need("time").unwrap_err()),
            None => TIME_ALIASES.iter().find_map(|c| find_column(header, c)),
        };
        let outcome = match (col("score_a"), col("score_b"), col("result"), col("winner")) {
            (Some(x), Some(y), _, _) => OutcomeColumns::Scores(x, y),
            (_, _, Some(r), _) => OutcomeColumns::Result(r),
            (_, _, _, Some(w)) => OutcomeColumns::Winner(w),
            _ => match one_hot(header, map)? {
                Some((x, y, d)) => OutcomeColumns::OneHot(x, y, d),
                None => {
                    let what = ": the games format needs `result`, `score_a` and `score_b`, \
                                `winner`, or one column per outcome (`--map \
                                a_wins=COLUMN,b_wins=COLUMN,draw=COLUMN`) (";
                    return Err(missing_column(header, map.source("result"), what));
                }
            },
        };
        let names = header.to_vec();
        let sided = !matches!(outcome, OutcomeColumns::Winner(w) if w == a || w == b);
        Ok(Self {
            time,
            a,
            b,
            outcome,
            series: col("series"),
            weight: col("weight"),
            neutral: col("neutral"),
            pool: match (col("pool"), col("time_control")) {
                (Some(p), _) => Some(PoolColumn::Value(p)),
                (None, _) if map.maps("pool") => return Err(need("pool").unwrap_err()),
                (None, Some(t)) if speed => Some(PoolColumn::Speed(t)),
                _ => None,
            },
            event: col("event"),
            season: season_column(header, map)?,
            sided,
            names,
        })
    }

    /// The columns read, by position.
    pub fn used(&self) -> Vec<usize> {
        let outcome = match self.outcome {
            OutcomeColumns::Scores(x, y) => vec![Some(x), Some(y)],
            OutcomeColumns::Result(r) | OutcomeColumns::Winner(r) => vec![Some(r)],
            OutcomeColumns::OneHot(x, y, d) => vec![Some(x), Some(y), d],
        };
        let pool = self.pool.as_ref().map(|p| match p {
            PoolColumn::Value(c) | PoolColumn::Speed(c) => *c,
        });
        let mut used: Vec<usize> = [Some(self.a), Some(self.b), self.time]
            .into_iter()
            .chain(outcome)
            .chain([self.series, self.weight, self.neutral, pool, self.event])
            .chain([self.season])
            .flatten()
            .collect();
        used.sort_unstable();
        used.dedup();
        used
    }
}

/// The sides of a file with neither `a` nor `b` (and `--map` naming neither): a pair of
/// [`SIDE_ALIASES`], the first the header has whole.
pub(crate) fn side_aliases(header: &[String], map: &ColumnMap) -> Option<(usize, usize)> {
    if map.maps("a") || map.maps("b") {
        return None;
    }
    SIDE_ALIASES
        .iter()
        .find_map(|(a, b)| Some((find_column(header, a)?, find_column(header, b)?)))
}

/// The one-hot outcome columns: `a_wins` and `b_wins` (and `draw` where there is one), as
/// named or mapped, else the Chatbot Arena's [`ONE_HOT_ALIASES`]. A mapped column that is
/// missing, or one of the two without the other, is an error.
fn one_hot(
    header: &[String],
    map: &ColumnMap,
) -> Result<Option<(usize, usize, Option<usize>)>, FieldError> {
    let col = |name: &str| find_column(header, map.source(name));
    let missing = |name: &str| {
        let what = ": one column per outcome needs a_wins and b_wins (and draw where games \
                    can be drawn) (";
        missing_column(header, map.source(name), what)
    };
    let named = ["a_wins", "b_wins", "draw"]
        .iter()
        .any(|c| map.maps(c) || col(c).is_some());
    if named {
        let a = col("a_wins").ok_or_else(|| missing("a_wins"))?;
        let b = col("b_wins").ok_or_else(|| missing("b_wins"))?;
        let draw = match col("draw") {
            None if map.maps("draw") => return Err(missing("draw")),
            d => d,
        };
        return Ok(Some((a, b, draw)));
    }
    let (a, b, d) = ONE_HOT_ALIASES;
    Ok(find_column(header, a)
        .zip(find_column(header, b))
        .map(|(x, y)| (x, y, find_column(header, d))))
}

/// Side a's score from a winner column's value that names neither side by its player: `a`,
/// `1`, `left`, `model_a` or side a's column name for a's win, likewise for b (`b`, `2`,
/// `right`, `model_b`), and a draw as empty, `draw`, `tie`, `tie (bothbad)` or `0` (any case).
fn winner_token(v: &str, (a_column, b_column): (&str, &str)) -> Option<f64> {
    let is = |words: &[&str]| words.iter().any(|w| v.eq_ignore_ascii_case(w));
    if is(&["a", "1", "left", "model_a", a_column]) {
        Some(1.0)
    } else if is(&["b", "2", "right", "model_b", b_column]) {
        Some(0.0)
    } else if v.is_empty() || is(&["draw", "tie", "tie (bothbad)", "0"]) {
        Some(0.5)
    } else {
        None
    }
}

/// Reads rows of a games table into the history.
pub(crate) struct GamesReader {
    pub(crate) schema: GamesSchema,
    side_a: Side,
    side_b: Side,
    times: super::time::TimeParser,
}

/// One side of a game: its players, and each one's share of the game (`p1*0.5+p2`).
#[derive(Default)]
struct Side {
    players: Vec<PlayerId>,
    shares: Vec<f64>,
}

impl GamesReader {
    pub fn new(schema: GamesSchema, time_format: super::time::TimeFormat) -> Self {
        Self {
            schema,
            side_a: Side::default(),
            side_b: Side::default(),
            times: super::time::TimeParser::new(time_format),
        }
    }

    /// Ends the table: how its time column was read ([`UNTIMED`] without one).
    pub fn finish(self, ctx: &mut Context) {
        let reading = self.schema.time.map(|_| self.times.reading());
        ctx.source.untimed |= reading.is_none();
        ctx.source.time_format = Some(reading.unwrap_or_else(|| UNTIMED.to_string()));
    }

    /// Validates one row and adds its game. `get(i)` is the i-th field ("" when null).
    pub fn row<'r>(
        &mut self,
        ctx: &mut Context,
        get: impl Fn(usize) -> &'r str,
    ) -> Result<(), FieldError> {
        let s = &self.schema;
        let name = |i: usize| s.name(i);
        let times = &mut self.times;
        let time = s.time.map_or(Ok(0), |t| {
            times.parse(get(t)).map_err(|m| FieldError::new(name(t), m))
        })?;
        if s.unplayed(&get) {
            ctx.source.skipped_unfinished += 1;
            return Ok(());
        }
        ctx.pool = s.pool(&get)?;
        self.side_a.read(ctx, get(s.a), name(s.a))?;
        self.side_b.read(ctx, get(s.b), name(s.b))?;
        let (a, b) = (&self.side_a, &self.side_b);
        if let Some(p) = a.players.iter().find(|p| b.players.contains(p)) {
            return Err(FieldError::new(
                name(s.b),
                format!("player `{}` plays against himself", ctx.builder.name(*p)),
            ));
        }
        let (score_a, points) = s.outcome(&get)?;
        if !matches!(s.outcome, OutcomeColumns::Scores(..)) {
            ctx.builder.result_only_next();
        }
        let series = s.series.map(|i| get(i).trim()).filter(|v| !v.is_empty());
        let weight = s.weight.map_or(Ok(1.0), |i| weight(get(i), name(i)))?;
        let neutral = s.neutral(&get)?;
        if let Some(season) = s.season.map(|i| get(i).trim()).filter(|v| !v.is_empty()) {
            ctx.builder.season_of_next(season);
        }
        if let (Some(i), true) = (s.event, ctx.opts.events) {
            let event = get(i).trim();
            if !event.is_empty() {
                ctx.builder.name_next_game(event);
            }
        }
        ctx.builder
            .add_game_with(
                s.sided && !neutral,
                time,
                weight,
                series,
                (&a.players, &b.players),
                (&a.shares, &b.shares),
                score_a,
                Some(points),
            )
            .map_err(|e| FieldError::new(name(s.b), e.to_string()))
    }
}

/// A row's fields read by the schema, `get(i)` the i-th field ("" when null).
impl GamesSchema {
    fn name(&self, i: usize) -> &str {
        self.names[i].as_str()
    }

    /// A fixture not played yet (or abandoned): no result, skipped and counted like PGN's
    /// `*`. For `winner`, empty means a draw, so only `NA` and `*` mean unplayed there.
    fn unplayed<'r>(&self, get: impl Fn(usize) -> &'r str) -> bool {
        let unplayed = |v: &str| {
            let v = v.trim();
            v.eq_ignore_ascii_case("na") || v.eq_ignore_ascii_case("n/a") || v == "*"
        };
        match self.outcome {
            OutcomeColumns::Scores(x, y) => [x, y]
                .iter()
                .any(|&i| unplayed(get(i)) || get(i).trim().is_empty()),
            OutcomeColumns::Result(r) => unplayed(get(r)) || get(r).trim().is_empty(),
            // A side may be named `NA` (an esports team of North America): then it won.
            OutcomeColumns::Winner(w) => {
                unplayed(get(w)) && get(w) != get(self.a) && get(w) != get(self.b)
            }
            OutcomeColumns::OneHot(x, y, d) => [Some(x), Some(y), d]
                .into_iter()
                .flatten()
                .any(|i| unplayed(get(i))),
        }
    }

    /// The game's rating pool: its pool column's value, or its time control's speed class.
    fn pool<'r>(&self, get: impl Fn(usize) -> &'r str) -> Result<Option<String>, FieldError> {
        let pool = match self.pool {
            None => return Ok(None),
            Some(PoolColumn::Value(i)) => pool_value(get(i), self.name(i))?,
            Some(PoolColumn::Speed(i)) => speed_class(get(i)).ok_or_else(|| {
                let m = format!(
                    "`{}` is not a time control (`base+increment` in seconds, or `-` for \
                     correspondence)",
                    get(i).trim()
                );
                FieldError::new(self.name(i), m)
            })?,
        };
        Ok(Some(pool.to_string()))
    }

    /// Side a's score and both sides' points.
    fn outcome<'r>(&self, get: impl Fn(usize) -> &'r str) -> Result<(f64, (f64, f64)), FieldError> {
        let name = |i: usize| self.name(i);
        let score_a = match self.outcome {
            OutcomeColumns::Scores(x, y) => {
                let (pa, pb) = (points(get(x), name(x))?, points(get(y), name(y))?);
                let score_a = match pa.partial_cmp(&pb) {
                    Some(Ordering::Greater) => 1.0,
                    Some(Ordering::Less) => 0.0,
                    _ => 0.5,
                };
                return Ok((score_a, (pa, pb)));
            }
            OutcomeColumns::Result(r) => parse_result(get(r)).ok_or_else(|| {
                FieldError::new(
                    name(r),
                    format!(
                        "unknown result `{}` (expected 1, 0.5, 0, 1-0, 0-1, 1/2-1/2, W, D, L or a fraction in [0, 1])",
                        get(r).trim()
                    ),
                )
            })?,
            OutcomeColumns::Winner(w) => self.winner(w, &get)?,
            OutcomeColumns::OneHot(x, y, d) => self.one_hot_outcome((x, y, d), &get)?,
        };
        Ok((score_a, (score_a, 1.0 - score_a)))
    }

    /// Side a's score by the winner column `w`: it names a side exactly, else once the
    /// whitespace around both is removed, else by a token (`a`, `left`, `draw`, ...).
    fn winner<'r>(&self, w: usize, get: impl Fn(usize) -> &'r str) -> Result<f64, FieldError> {
        let (raw_a, raw_b) = (get(self.a), get(self.b));
        let v = get(w);
        let (vt, at, bt) = (v.trim(), raw_a.trim(), raw_b.trim());
        Ok(if v == raw_a {
            1.0
        } else if v == raw_b {
            0.0
        } else if !vt.is_empty() && vt == at && vt != bt {
            1.0
        } else if !vt.is_empty() && vt == bt && vt != at {
            0.0
        } else if let Some(sa) = winner_token(vt, (self.name(self.a), self.name(self.b))) {
            sa
        } else {
            return Err(FieldError::new(
                self.name(w),
                format!(
                    "winner `{v}` names neither side a (`{raw_a}`, or a, 1, left, \
                     model_a) nor side b (`{raw_b}`, or b, 2, right, model_b), nor a \
                     draw (empty, draw, tie, tie (bothbad), 0)"
                ),
            ));
        })
    }

    /// Side a's score by the one-hot columns `x` (a won), `y` (b won) and `d` (a draw), of
    /// which exactly one must be set.
    fn one_hot_outcome<'r>(
        &self,
        (x, y, d): (usize, usize, Option<usize>),
        get: impl Fn(usize) -> &'r str,
    ) -> Result<f64, FieldError> {
        let name = |i: usize| self.name(i);
        // A cell is set (`1`, `true`, `yes`) or not (`0`, `false`, `no`, empty); `1.0` as
        // pandas writes it counts too.
        let cell = |i: usize| {
            let v = get(i).trim();
            let set = match v {
                "1.0" => Some(true),
                "0.0" => Some(false),
                v => parse_flag(v),
            };
            set.ok_or_else(|| {
                FieldError::new(name(i), format!("`{v}` is not 1 or 0 (true or false)"))
            })
        };
        let set = (
            cell(x)?,
            cell(y)?,
            d.map(cell).transpose()?.unwrap_or(false),
        );
        match set {
            (true, false, false) => Ok(1.0),
            (false, true, false) => Ok(0.0),
            (false, false, true) => Ok(0.5),
            _ => Err(FieldError::new(
                name(x),
                format!(
                    "one outcome column must be set, and only one: {} {}, {} {}{}",
                    name(x),
                    get(x).trim(),
                    name(y),
                    get(y).trim(),
                    d.map_or(String::new(), |d| format!(
                        ", {} {}",
                        name(d),
                        get(d).trim()
                    ))
                ),
            )),
        }
    }

    /// Whether the game was played on neutral ground (no first side).
    fn neutral<'r>(&self, get: impl Fn(usize) -> &'r str) -> Result<bool, FieldError> {
        let Some(i) = self.neutral else {
            return Ok(false);
        };
        parse_flag(get(i)).ok_or_else(|| {
            FieldError::new(
                self.name(i),
                format!(
                    "`{}` is not true or false (TRUE/FALSE, 1/0, yes/no, or empty)",
                    get(i).trim()
                ),
            )
        })
    }
}

/// A rating pool's value: trimmed, not empty, without the character that joins a name to
/// its pool.
pub(crate) fn pool_value<'v>(raw: &'v str, field: &str) -> Result<&'v str, FieldError> {
    let v = raw.trim();
    if v.is_empty() {
        return Err(FieldError::new(
            field,
            "empty rating pool: every game of a pooled history names its pool".to_string(),
        ));
    }
    if v.contains(crate::history::POOL_SEP) {
        return Err(FieldError::new(
            field,
            "a rating pool may not hold the control character U+001F".to_string(),
        ));
    }
    Ok(v)
}

/// Lichess's speed class of a time control `base+increment` (seconds; `-` is
/// correspondence): by the estimated duration `base + 40 increment`, under 30 s
/// `ultrabullet`, under 180 `bullet`, under 480 `blitz`, under 1500 `rapid`, else
/// `classical`.
pub(crate) fn speed_class(tc: &str) -> Option<&'static str> {
    let tc = tc.trim();
    if tc == "-" {
        return Some("correspondence");
    }
    let (base, inc) = tc.split_once('+')?;
    let (base, inc): (u64, u64) = (base.trim().parse().ok()?, inc.trim().parse().ok()?);
    let seconds = base.checked_add(inc.checked_mul(40)?)?;
    Some(match seconds {
        0..30 => "ultrabullet",
        30..180 => "bullet",
        180..480 => "blitz",
        480..1500 => "rapid",
        _ => "classical",
    })
}

/// A true-or-false field: `true`/`false`, `1`/`0`, `yes`/`no`, `y`/`n`, `t`/`f` in any case;
/// empty is false.
fn parse_flag(v: &str) -> Option<bool> {
    // (Compared without a lower-cased copy: one row at a time, no allocation.)
    let v = v.trim();
    let any = |words: &[&str]| words.iter().any(|w| v.eq_ignore_ascii_case(w));
    if v.is_empty() || any(&["false", "0", "no", "n", "f"]) {
        Some(false)
    } else if any(&["true", "1", "yes", "y", "t"]) {
        Some(true)
    } else {
        None
    }
}

impl Side {
    /// Splits a side into players (a team when the separator occurs) and interns them. Names
    /// are kept as given (see [`super::context::player_name`]); in a team the spaces around
    /// each separator belong to the separator (`a + b` is `a` and `b`).
    fn read(&mut self, ctx: &mut Context, raw: &str, field: &str) -> Result<(), FieldError> {
        self.players.clear();
        self.shares.clear();
        let opts = ctx.opts;
        let sep = match &opts.team_separator {
            TeamSeparator::Sep(sep) if raw.contains(sep.as_str()) => sep.as_str(),
            _ => return self.add(ctx, raw, field, false),
        };
        let parts = raw.split(sep).count();
        for (k, part) in raw.split(sep).enumerate() {
            let mut member = part;
            if k > 0 {
                member = member.trim_start_matches(' ');
            }
            if k + 1 < parts {
                member = member.trim_end_matches(' ');
            }
            self.add(ctx, member, field, true).map_err(|e| {
                if member.trim().is_empty() {
                    FieldError::new(field, format!("empty player name in team `{raw}`"))
                } else {
                    e
                }
            })?;
        }
        Ok(())
    }

    /// Adds a player (`in_team`: a member, who may play a share of the game).
    fn add(
        &mut self,
        ctx: &mut Context,
        n: &str,
        field: &str,
        in_team: bool,
    ) -> Result<(), FieldError> {
        let (n, share) = if in_team {
            member_share(n, field)?
        } else {
            (n, 1.0)
        };
        let n = super::context::player_name(n, field, ctx.opts.trim_names)?;
        ctx.check_pooled_name(n, field)?;
        let id = ctx.player(n);
        if self.players.contains(&id) {
            return Err(FieldError::new(
                field,
                format!("player `{n}` is twice in one team"),
            ));
        }
        self.players.push(id);
        self.shares.push(share);
        Ok(())
    }
}

/// A team member written `name*share` (partial play: the share of the game he played, a
/// number within [0, 1]) as its name and share; without a `*` followed by a number, the
/// whole is the name, with share 1.
fn member_share<'n>(member: &'n str, field: &str) -> Result<(&'n str, f64), FieldError> {
    let Some((name, share)) = member.rsplit_once('*') else {
        return Ok((member, 1.0));
    };
    let Ok(v) = share.trim().parse::<f64>() else {
        return Ok((member, 1.0));
    };
    if !(0.0..=1.0).contains(&v) {
        return Err(FieldError::new(
            field,
            format!(
                "`{}`: a member's share of the game (after `*`) is within 0 and 1, not {v}",
                member.trim()
            ),
        ));
    }
    Ok((name.trim_end(), v))
}

/// The largest score a side may have: far beyond any real tally, small enough that a score
/// stays exact in an f64 and that sums and margins of scores cannot overflow to infinity.
const MAX_SCORE: f64 = 1e15;

fn points(raw: &str, field: &str) -> Result<f64, FieldError> {
    let raw = raw.trim();
    match raw.parse::<f64>() {
        Ok(v) if (0.0..=MAX_SCORE).contains(&v) => Ok(v),
        Ok(v) if v > MAX_SCORE => Err(FieldError::new(
            field,
            format!("score `{raw}` is too large (at most {MAX_SCORE:e})"),
        )),
        _ => Err(FieldError::new(
            field,
            format!("score `{raw}` is not a non-negative number"),
        )),
    }
}

/// Side a's score from a result token.
pub(crate) fn parse_result(raw: &str) -> Option<f64> {
    let t = raw.trim();
    let is = |words: &[&str]| words.iter().any(|w| t.eq_ignore_ascii_case(w));
    if is(&["1-0", "w", "win"]) {
        Some(1.0)
    } else if is(&["0-1", "l", "loss"]) {
        Some(0.0)
    } else if is(&["1/2-1/2", "½-½", "½", "d", "draw"]) {
        Some(0.5)
    } else {
        t.parse().ok().filter(|v| (0.0..=1.0).contains(v))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn result_tokens() {
        for (t, v) in [
            ("1", 1.0),
            ("0", 0.0),
            ("0.5", 0.5),
            ("1-0", 1.0),
            ("0-1", 0.0),
            ("1/2-1/2", 0.5),
            ("½-½", 0.5),
            ("W", 1.0),
            ("d", 0.5),
            ("L", 0.0),
            (" 0.75 ", 0.75),
        ] {
            assert_eq!(parse_result(t), Some(v), "{t}");
        }
        for t in ["", "2", "-1", "1-1", "x", "?", "*", "NaN"] {
            assert_eq!(parse_result(t), None, "{t}");
        }
    }

    #[test]
    fn team_separator_parses() {
        assert_eq!("none".parse::<TeamSeparator>(), Ok(TeamSeparator::None));
        assert_eq!(
            "&".parse::<TeamSeparator>(),
            Ok(TeamSeparator::Sep("&".into()))
        );
        assert!("".parse::<TeamSeparator>().is_err());
    }
}
