//! `--truth FILE`: the true ratings of a synthetic history, to measure how far the ratings are
//! from them (RMSE per round, after removing the mean offset, since ratings are relative).
//!
//! A CSV with a `player` column and the true value in `skill`, `rating`, `true_rating` or
//! `strength` (the first present); with a `contest` column the value holds for that contest
//! (the files `rate-batch-lab simulate synth-small|synth-large` write), without one for the
//! whole history (the league's truth file). Errors name the file, line and field.

use super::errors::InputError;
use super::small_csv::SmallCsv;
use crate::history::{History, PlayerId};

use std::collections::HashMap;
use std::path::Path;

/// True values by (contest index, player), for the participants the file covers.
#[derive(Clone, Debug, Default)]
pub struct Truth {
    /// The file, for messages and metrics.json.
    pub file: String,
    values: HashMap<(u32, PlayerId), f64>,
}

impl Truth {
    /// The true value of a player in a contest, if the file gives one.
    pub fn get(&self, contest: u32, player: PlayerId) -> Option<f64> {
        self.values.get(&(contest, player)).copied()
    }

    /// Number of (contest, player) values that apply to the history.
    pub fn len(&self) -> usize {
        self.values.len()
    }

    /// True when no value applies.
    pub fn is_empty(&self) -> bool {
        self.values.is_empty()
    }
}

/// Reads a truth file for the contests and players of `history`.
pub fn read_truth(
    path: &Path,
    history: &History,
    aliases: Option<&std::sync::Arc<crate::names::Aliases>>,
) -> Result<Truth, InputError> {
    let csv = SmallCsv::open(path)?;
    let player_col = csv.require(
        "player",
        "player and skill, rating, true_rating or strength",
    )?;
    let (value_col, value_name) = ["skill", "rating", "true_rating", "strength"]
        .iter()
        .find_map(|n| csv.column(n).map(|c| (c, *n)))
        .ok_or_else(|| {
            csv.error(
                1,
                None,
                "missing the true value: a column skill, rating, true_rating or strength".into(),
            )
        })?;
    let contest_col = csv.column("contest");
    let players = crate::history::NameIndex::new(history.names()).with_aliases(aliases.cloned());
    let mut contests_of: HashMap<&str, Vec<u32>> = HashMap::new();
    for c in history.contests() {
        if let Some(l) = c.label() {
            contests_of.entry(l).or_default().push(c.index() as u32);
        }
    }
    let mut per_contest: HashMap<(u32, PlayerId), f64> = HashMap::new();
    let mut constant: HashMap<PlayerId, f64> = HashMap::new();
    csv.for_each(player_col, |csv, line, name, rec| {
        let text = rec.get(value_col).unwrap_or("").trim();
        let value = text
            .parse::<f64>()
            .ok()
            .filter(|v| v.is_finite())
            .ok_or_else(|| {
                csv.error(line, Some(value_name), format!("`{text}` is not a number"))
            })?;
        let Some(player) = players.find(name) else {
            return Ok(());
        };
        let twice = |what: String| {
            let m = format!("`{name}` has a second true value{what}");
            Err(csv.error(line, Some("player"), m))
        };
        match contest_col {
            Some(c) => {
                let label = rec.get(c).unwrap_or("").trim();
                for &k in contests_of.get(label).map_or(&[][..], Vec::as_slice) {
                    if per_contest.insert((k, player), value).is_some() {
                        return twice(format!(" for contest `{label}`"));
                    }
                }
            }
            None => {
                if constant.insert(player, value).is_some() {
                    return twice(String::new());
                }
            }
        }
        Ok(())
    })?;
    if !constant.is_empty() {
        for c in history.contests() {
            for &p in c.players() {
                if let Some(&v) = constant.get(&p) {
                    per_contest.entry((c.index() as u32, p)).or_insert(v);
                }
            }
        }
    }
    Ok(Truth {
        file: path.display().to_string(),
        values: per_contest,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::history::{HistoryBuilder, SourceInfo};

    #[test]
    fn reads_per_contest_and_constant_truth() {
        let mut b = HistoryBuilder::new();
        let (x, y) = (b.player("x"), b.player("y"));
        b.begin_contest(0, 1.0, Some("c0"), None);
        b.add_entry(&[x], 0, 0, None);
        b.add_entry(&[y], 1, 1, None);
        b.end_contest().unwrap();
        let h = b.finish(SourceInfo::default());
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("t.csv");
        std::fs::write(&p, "contest,player,skill\nc0,x,1700\nc0,y,1300\nc9,x,1\n").unwrap();
        let t = read_truth(&p, &h, None).unwrap();
        assert_eq!(
            (t.get(0, x), t.get(0, y), t.len()),
            (Some(1700.0), Some(1300.0), 2)
        );
        std::fs::write(&p, "player,true_rating\nx,1650\nnobody,3\n").unwrap();
        let t = read_truth(&p, &h, None).unwrap();
        assert_eq!((t.get(0, x), t.get(0, y)), (Some(1650.0), None));
        // A player given twice (here once with padding, found by the trimmed name) is an
        // error, not a silent override.
        std::fs::write(&p, "player,skill\nx,1650\n x ,1700\n").unwrap();
        let e = read_truth(&p, &h, None).unwrap_err().to_string();
        assert!(
            e.contains("line 3") && e.contains("second true value"),
            "{e}"
        );
        std::fs::write(&p, "player,skill\nx,high\n").unwrap();
        let e = read_truth(&p, &h, None).unwrap_err().to_string();
        assert!(e.contains("line 2") && e.contains("skill"), "{e}");
        std::fs::write(&p, "player,elo\nx,1\n").unwrap();
        assert!(
            read_truth(&p, &h, None)
                .unwrap_err()
                .to_string()
                .contains("missing the true value")
        );
    }
}
