//! `--initial-ratings FILE`: a CSV `player,rating[,uncertainty][,volatility]` of players who
//! arrive with a rating from elsewhere (a federation's list, last season's ladder).
//!
//! The header names the columns (any order, extra columns ignored); `uncertainty` and
//! `volatility` are optional columns and may be empty in a row. A rating must be finite, an
//! uncertainty or volatility finite and positive; a player listed twice is an error. Players
//! who do not appear in the history are counted and otherwise ignored.

use super::errors::InputError;
use super::small_csv::SmallCsv;
use crate::history::Seed;
use crate::history::{History, NameIndex, canonical_name};
use std::collections::HashMap;
use std::path::Path;

/// A row's rating, uncertainty and volatility.
type Values = (f64, Option<f64>, Option<f64>);

/// Reads the file's rows: `each(csv, line, name, values)` is called for every row, `values`
/// reading and checking its numbers when the caller asks for them.
fn read_rows(
    path: &Path,
    mut each: impl FnMut(
        &SmallCsv,
        u64,
        &str,
        &dyn Fn() -> Result<Values, InputError>,
    ) -> Result<(), InputError>,
) -> Result<(), InputError> {
    const EXPECTED: &str = "player,rating[,uncertainty][,volatility]";
    let csv = SmallCsv::open(path)?;
    // A published list of a league's teams and their Elo (FiveThirtyEight's `team,elo`) is
    // read as it is.
    let either = |name: &str, other: &str| match csv.column(other) {
        Some(c) if csv.column(name).is_none() => Ok(c),
        _ => csv.require(name, EXPECTED),
    };
    let player_col = either("player", "team")?;
    let rating_col = either("rating", "elo")?;
    let (unc_col, vol_col) = (csv.column("uncertainty"), csv.column("volatility"));
    csv.for_each(player_col, |csv, line, name, rec| {
        let values = || -> Result<Values, InputError> {
            // A column's number; none in an empty field, or without the column.
            let number = |c: Option<usize>, field: &str, positive: bool| {
                let text = c.and_then(|c| rec.get(c)).unwrap_or("").trim();
                if text.is_empty() {
                    return Ok(None);
                }
                // Ratings, uncertainties and volatilities beyond 1e6 in size are no real
                // scale's and overflow some systems' arithmetic.
                match text.parse::<f64>() {
                    Ok(v) if v.abs() <= 1e6 && (!positive || v > 0.0) => Ok(Some(v)),
                    _ => Err(csv.error(
                        line,
                        Some(field),
                        format!(
                            "`{text}` is not a {}number of at most 1e6 in size",
                            if positive { "positive " } else { "" }
                        ),
                    )),
                }
            };
            let rating = number(Some(rating_col), "rating", false)?
                .ok_or_else(|| csv.error(line, Some("rating"), "empty rating".into()))?;
            let uncertainty = number(unc_col, "uncertainty", true)?;
            Ok((rating, uncertainty, number(vol_col, "volatility", true)?))
        };
        each(csv, line, name, &values)
    })
}

/// The error of a player listed on `line` and on line `first` before.
fn listed_twice(csv: &SmallCsv, line: u64, name: &str, first: u64) -> InputError {
    let m = format!("player `{name}` is listed twice (first on line {first})");
    csv.error(line, Some("player"), m)
}

/// The seeds of a file, for the players of `history`, and how many listed players it does not
/// have.
pub fn read_seeds(
    path: &Path,
    history: &History,
    aliases: Option<&std::sync::Arc<crate::names::Aliases>>,
) -> Result<(Vec<Seed>, usize), InputError> {
    let ids = NameIndex::new(history.names()).with_aliases(aliases.cloned());
    let mut seeds = Vec::new();
    // The line each player (found in the history, or else by name) was listed on.
    let mut listed: HashMap<Result<u32, String>, u64> = HashMap::new();
    let mut absent = 0;
    read_rows(path, |csv, line, name, values| {
        let player = ids.find(name);
        let key = player.ok_or_else(|| canonical_name(name).into_owned());
        if let Some(first) = listed.insert(key, line) {
            return Err(listed_twice(csv, line, name, first));
        }
        let (rating, uncertainty, volatility) = values()?;
        match player {
            Some(player) => seeds.push(Seed {
                player,
                rating,
                uncertainty,
                volatility,
            }),
            None => absent += 1,
        }
        Ok(())
    })?;
    Ok((seeds, absent))
}

/// The seeds of a file by name, for a streamed replay, which meets its players as it goes:
/// each name as the history would keep it (NFC). A name with whitespace around it would be
/// matched by a whole read to a player of the trimmed name only if none has it exactly, which
/// a stream cannot know before its end: such a file is marked `padded` (and read whole).
#[derive(Debug, Default)]
pub struct SeedList {
    by_name: rustc_hash::FxHashMap<String, Values>,
    /// A name has whitespace around it.
    pub padded: bool,
}

impl SeedList {
    /// Reads the file; a name listed twice is an error, as in a whole read.
    pub fn read(
        path: &Path,
        aliases: Option<&std::sync::Arc<crate::names::Aliases>>,
    ) -> Result<Self, InputError> {
        let mut list = SeedList::default();
        let mut lines: HashMap<String, u64> = HashMap::new();
        read_rows(path, |csv, line, name, values| {
            list.padded |= name.trim().len() != name.len();
            let key = canonical_name(name);
            let key = aliases.map_or(&*key, |a| a.resolve(&key)).to_string();
            if let Some(first) = lines.insert(key.clone(), line) {
                return Err(listed_twice(csv, line, name, first));
            }
            list.by_name.insert(key, values()?);
            Ok(())
        })?;
        Ok(list)
    }

    /// Players listed.
    pub fn len(&self) -> usize {
        self.by_name.len()
    }

    /// True when nobody is listed.
    pub fn is_empty(&self) -> bool {
        self.by_name.is_empty()
    }

    /// The seed of player `player` named `name` (as the history keeps it), if listed.
    pub fn seed(&self, player: crate::history::PlayerId, name: &str) -> Option<Seed> {
        self.by_name
            .get(name)
            .map(|&(rating, uncertainty, volatility)| Seed {
                player,
                rating,
                uncertainty,
                volatility,
            })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::history::{HistoryBuilder, SourceInfo};

    fn history() -> History {
        let mut b = HistoryBuilder::new();
        let (x, y) = (b.player("ann"), b.player("bob"));
        b.add_game(0, 1.0, None, (&[x], &[y]), 1.0, None).unwrap();
        b.finish(SourceInfo::default())
    }

    fn read(text: &str) -> Result<(Vec<Seed>, usize), String> {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("seeds.csv");
        std::fs::write(&path, text).unwrap();
        read_seeds(&path, &history(), None).map_err(|e| e.to_string())
    }

    #[test]
    fn reads_ratings_with_optional_columns() {
        let (seeds, absent) =
            read("player,rating,uncertainty,volatility\nbob,1400,30,\nann,1500,200,0.06\ncy,1,,\n")
                .unwrap();
        assert_eq!(absent, 1);
        assert_eq!(
            seeds,
            vec![
                Seed {
                    player: 1,
                    rating: 1400.0,
                    uncertainty: Some(30.0),
                    volatility: None
                },
                Seed {
                    player: 0,
                    rating: 1500.0,
                    uncertainty: Some(200.0),
                    volatility: Some(0.06)
                }
            ]
        );
        let (seeds, _) = read("rating,player\n1700,ann\n").unwrap();
        assert_eq!((seeds[0].rating, seeds[0].uncertainty), (1700.0, None));
    }

    #[test]
    fn bad_rows_name_line_and_field() {
        let e = read("player,rating\nann,abc\n").unwrap_err();
        assert!(
            e.contains("line 2") && e.contains("rating") && e.contains("abc"),
            "{e}"
        );
        let e = read("player,rating,uncertainty\nann,1500,-3\n").unwrap_err();
        assert!(e.contains("line 2") && e.contains("uncertainty"), "{e}");
        let e = read("player,rating\nann,1500\nann,1600\n").unwrap_err();
        assert!(e.contains("line 3") && e.contains("twice"), "{e}");
        let e = read("name,rating\nann,1500\n").unwrap_err();
        assert!(e.contains("missing column `player`"), "{e}");
        let e = read("player,rating\n,1500\n").unwrap_err();
        assert!(e.contains("empty player name"), "{e}");
    }
}
