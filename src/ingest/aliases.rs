//! `--aliases FILE`: a CSV `alias,player` (header required, any column order, other columns
//! ignored: the `names` report's own columns may stay) of the spellings of players to read as
//! the name each player is kept under. Every reader applies it as it interns names, and so do
//! the side files (`--initial-ratings`, `--truth`, a matchmaking pool), so that a player is one
//! player whichever spelling a file uses. Fields are taken as given (a name keeps its
//! whitespace), compared in Unicode normalisation form C as the history keeps names.
//!
//! Chains are followed (`a` to `b`, `b` to `c` reads `a` as `c`); an alias given for two
//! players, and a circle of aliases, are errors naming the lines.

use super::errors::InputError;
use super::small_csv::SmallCsv;
use crate::names::{AliasLine, Aliases};
use std::path::Path;

/// Reads an alias file.
pub fn read_aliases(path: &Path) -> Result<Aliases, InputError> {
    const EXPECTED: &str = "alias,player";
    let csv = SmallCsv::open(path)?;
    let alias_col = csv.require("alias", EXPECTED)?;
    let player_col = csv.require("player", EXPECTED)?;
    let mut lines = Vec::new();
    csv.for_each(player_col, |csv, line, player, rec| {
        let alias = rec.get(alias_col).unwrap_or("");
        if alias.is_empty() {
            return Err(csv.error(line, Some("alias"), "empty alias".into()));
        }
        lines.push(AliasLine {
            alias: alias.to_string(),
            player: player.to_string(),
            line,
        });
        Ok(())
    })?;
    Aliases::new(&lines).map_err(|m| InputError::whole_file(path.display(), m))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn file(text: &str) -> (tempfile::TempDir, std::path::PathBuf) {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("aliases.csv");
        std::fs::write(&p, text).unwrap();
        (dir, p)
    }

    #[test]
    fn reads_and_refuses() {
        // Columns in any order, the report's extra columns ignored.
        let (_d, p) = file("player,alias,reason\n\"Kasparov, Garry\",\"Kasparov, G\",initials\n");
        let a = read_aliases(&p).unwrap();
        assert_eq!(a.resolve("Kasparov, G"), "Kasparov, Garry");
        // An unquoted comma in a name: one field too many, refused with its line.
        let (_d, p) = file("player,alias,reason\nKasparov, Garry,\"Kasparov, G\",initials\n");
        let e = read_aliases(&p).unwrap_err().to_string();
        assert!(e.contains("line 2"), "{e}");
        let (_d, p) = file("alias,player\n\"Kasparov, G\",\"Kasparov, Garry\"\n");
        let a = read_aliases(&p).unwrap();
        assert_eq!(a.resolve("Kasparov, G"), "Kasparov, Garry");
        let (_d, p) = file("alias,player\nx,y\nx,z\n");
        let e = read_aliases(&p).unwrap_err().to_string();
        assert!(
            e.contains("aliases.csv") && e.contains("line 3") && e.contains("line 2"),
            "{e}"
        );
        let (_d, p) = file("alias,name\nx,y\n");
        let e = read_aliases(&p).unwrap_err().to_string();
        assert!(e.contains("missing column `player`"), "{e}");
        let (_d, p) = file("alias,player\n,y\n");
        let e = read_aliases(&p).unwrap_err().to_string();
        assert!(e.contains("line 2") && e.contains("empty alias"), "{e}");
    }
}
