//! `--initial-ratings FILE`: a CSV `player,rating[,uncertainty][,volatility]` of players who
//! arrive with a rating from elsewhere (a federation's list, last season's ladder).
//!
//! The header names the columns (any order, extra columns ignored); `uncertainty` and
//! `volatility` are optional columns and may be empty in a row. A rating must be finite, an
//! uncertainty or volatility finite and positive; a player listed twice is an error. Players
//! who do not appear in the history are counted and otherwise ignored.

use super::{InputError, Location};
use crate::history::History;
use crate::replay::Seed;
use std::collections::HashMap;
use std::path::Path;

/// The seeds of a file, for the players of `history`, and how many listed players it does not
/// have.
pub fn read_seeds(path: &Path, history: &History) -> Result<(Vec<Seed>, usize), InputError> {
    let file = path.display().to_string();
    let err = |at: Location, field: Option<&str>, message: String| InputError {
        file: file.clone(),
        at,
        field: field.map(str::to_string),
        message,
    };
    let mut reader = csv::ReaderBuilder::new()
        .flexible(false)
        .trim(csv::Trim::All)
        .from_path(path)
        .map_err(|e| err(Location::File, None, format!("cannot read: {e}")))?;
    let headers = reader
        .headers()
        .map_err(|e| err(Location::Line(1), None, format!("unreadable header: {e}")))?
        .clone();
    let col = |name: &str| headers.iter().position(|h| h.eq_ignore_ascii_case(name));
    let (Some(player_col), Some(rating_col)) = (col("player"), col("rating")) else {
        return Err(err(
            Location::Line(1),
            None,
            format!(
                "missing column `{}` (expected player,rating[,uncertainty][,volatility])",
                if col("player").is_none() {
                    "player"
                } else {
                    "rating"
                }
            ),
        ));
    };
    let (unc_col, vol_col) = (col("uncertainty"), col("volatility"));
    let ids: HashMap<&str, u32> = history
        .names()
        .iter()
        .enumerate()
        .map(|(i, n)| (n.as_str(), i as u32))
        .collect();
    let mut seeds = Vec::new();
    let mut listed: HashMap<String, u64> = HashMap::new();
    let mut absent = 0;
    for rec in reader.records() {
        let rec = rec.map_err(|e| {
            let line = e.position().map_or(0, |p| p.line());
            err(
                Location::Line(line),
                None,
                format!("unreadable record: {e}"),
            )
        })?;
        let line = rec.position().map_or(0, |p| p.line());
        let at = || Location::Line(line);
        let name = rec.get(player_col).unwrap_or("");
        if name.is_empty() {
            return Err(err(at(), Some("player"), "empty player name".into()));
        }
        if let Some(first) = listed.insert(crate::history::canonical_name(name).into_owned(), line)
        {
            return Err(err(
                at(),
                Some("player"),
                format!("player `{name}` is listed twice (first on line {first})"),
            ));
        }
        let number = |c: usize, field: &str, positive: bool| -> Result<Option<f64>, InputError> {
            let text = rec.get(c).unwrap_or("");
            if text.is_empty() {
                return Ok(None);
            }
            match text.parse::<f64>() {
                Ok(v) if v.is_finite() && (!positive || v > 0.0) => Ok(Some(v)),
                _ => Err(err(
                    at(),
                    Some(field),
                    format!(
                        "`{text}` is not a {}number",
                        if positive { "positive " } else { "" }
                    ),
                )),
            }
        };
        let rating = number(rating_col, "rating", false)?
            .ok_or_else(|| err(at(), Some("rating"), "empty rating".into()))?;
        let uncertainty = unc_col
            .map(|c| number(c, "uncertainty", true))
            .transpose()?
            .flatten();
        let volatility = vol_col
            .map(|c| number(c, "volatility", true))
            .transpose()?
            .flatten();
        match ids.get(&*crate::history::canonical_name(name)) {
            Some(&player) => seeds.push(Seed {
                player,
                rating,
                uncertainty,
                volatility,
            }),
            None => absent += 1,
        }
    }
    Ok((seeds, absent))
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
        read_seeds(&path, &history()).map_err(|e| e.to_string())
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
