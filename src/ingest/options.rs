//! How to read an input: its [`Format`], the column names (`--map`), how teams are written,
//! the time format and the other reading options.

use super::time;
use std::fmt;
use std::str::FromStr;

/// The input formats of docs/design.md.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum, serde::Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Format {
    /// Two sides per row: `time,a,b` and `result`, `score_a`/`score_b` or `winner`.
    Games,
    /// One row per participant: `contest,time,player,rank[,team][,weight]`.
    Standings,
    /// Elo-MMR contest JSON: a folder of `N.json` or one array of contests.
    Json,
    /// PGN chess games (tag pairs; move text optional).
    Pgn,
    /// Parquet with the columns of the games or the standings format.
    Parquet,
}

impl fmt::Display for Format {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let value = clap::ValueEnum::to_possible_value(self).expect("no format is hidden");
        f.write_str(value.get_name())
    }
}

/// How a side names a team: players joined by a separator (default `+`), or never a team.
#[derive(Clone, Debug, PartialEq)]
pub enum TeamSeparator {
    /// Split sides on this string.
    Sep(String),
    /// Every side is one player, whatever its name holds.
    None,
}

impl Default for TeamSeparator {
    fn default() -> Self {
        TeamSeparator::Sep("+".into())
    }
}

impl FromStr for TeamSeparator {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        match s {
            "none" => Ok(TeamSeparator::None),
            "" => Err("the team separator cannot be empty (use `none` for no teams)".into()),
            s => Ok(TeamSeparator::Sep(s.into())),
        }
    }
}

/// Canonical column name -> the column to read it from (`--map a=home_team,...`).
#[derive(Clone, Debug, Default)]
pub struct ColumnMap(Vec<(String, String)>);

/// Column names the readers know, for checking `--map`.
pub const CANONICAL_COLUMNS: &[&str] = &[
    "time",
    "a",
    "b",
    "result",
    "score_a",
    "score_b",
    "winner",
    "series",
    "weight",
    "neutral",
    "contest",
    "player",
    "rank",
    "team",
    "share",
    "loser",
    "pool",
    "time_control",
    "event",
    "a_wins",
    "b_wins",
    "draw",
    "season",
];

impl ColumnMap {
    /// Parses `canonical=actual,...`.
    pub fn parse(spec: &str) -> Result<Self, String> {
        let mut pairs = Vec::new();
        for part in spec.split(',').map(str::trim).filter(|p| !p.is_empty()) {
            let (k, v) = part
                .split_once('=')
                .ok_or_else(|| format!("--map: `{part}` is not of the form column=name"))?;
            let (k, v) = (k.trim(), v.trim());
            if !CANONICAL_COLUMNS.contains(&k) {
                return Err(format!(
                    "--map: unknown column `{k}` (known: {})",
                    CANONICAL_COLUMNS.join(", ")
                ));
            }
            if v.is_empty() {
                return Err(format!("--map: empty name for `{k}`"));
            }
            if pairs.iter().any(|(seen, _)| seen == k) {
                return Err(format!("--map: `{k}` is given twice"));
            }
            pairs.push((k.to_string(), v.to_string()));
        }
        Ok(Self(pairs))
    }

    /// Whether `canonical` is mapped to a column of another name.
    pub fn maps(&self, canonical: &str) -> bool {
        self.0.iter().any(|(k, _)| k == canonical)
    }

    /// Maps `canonical` to the column `actual` (over a mapping given before).
    pub fn set(&mut self, canonical: &str, actual: &str) {
        self.0.retain(|(k, _)| k != canonical);
        self.0.push((canonical.to_string(), actual.to_string()));
    }

    /// The name of the column that holds `canonical`.
    pub fn source<'a>(&'a self, canonical: &'a str) -> &'a str {
        self.0
            .iter()
            .find(|(k, _)| k == canonical)
            .map_or(canonical, |(_, v)| v.as_str())
    }
}

/// How to read an input.
#[derive(Clone, Debug, Default)]
pub struct IngestOptions {
    /// Overrides detection.
    pub format: Option<Format>,
    /// Column renames for the CSV and Parquet formats.
    pub map: ColumnMap,
    /// Skip and count bad records instead of stopping.
    pub skip_invalid: bool,
    /// How a side of the games format names a team.
    pub team_separator: TeamSeparator,
    /// Players interned first, in this order (a resumed replay's known players).
    pub known_players: Vec<String>,
    /// How the time column of a CSV or Parquet input is written (`--time-format`).
    pub time_format: time::TimeFormat,
    /// Remove the whitespace around player names (`--trim-names`).
    pub trim_names: bool,
    /// Keep each PGN player's rating tag (`WhiteElo`/`BlackElo`) at his first game
    /// (`--seed-from-pgn`).
    pub seed_from_pgn: bool,
    /// Spellings of players mapped to the names kept (`--aliases`), and their file (which
    /// no output may overwrite).
    pub aliases: Option<std::sync::Arc<crate::names::Aliases>>,
    pub aliases_file: Option<std::path::PathBuf>,
    /// Drop contests that repeat one read before (`--dedupe`; see
    /// [`crate::history::HistoryBuilder::dedupe`]).
    pub dedupe: bool,
    /// Further inputs read after the first (files, or folders of CSV and PGN files), their
    /// contests merged with its in time order.
    pub more: Vec<std::path::PathBuf>,
    /// Keep the contests in the order of the input rather than sorting them by time
    /// (`--order input`: a server's log lists games as they were rated).
    pub input_order: bool,
    /// Rate players apart in each rating pool: a PGN's tag of this name (`--pool-by TAG`; a
    /// table's pool is its column `pool`, `--map pool=COLUMN`).
    pub pool_tag: Option<String>,
    /// Each game named by its event (`--period event`): a PGN's `Event` tag with its
    /// `EventDate` (else the month of the game), a table's `event` column.
    pub events: bool,
    /// Lichess's speed classes as the pools, from a table's `time_control` column or a
    /// PGN's `TimeControl` tag (`base+increment` in seconds; `-` correspondence), where
    /// there is no pool otherwise (`--preset lichess`).
    pub speed_pools: bool,
}
