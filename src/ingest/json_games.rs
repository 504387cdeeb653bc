//! A games table written as JSON: an array of objects, or one object per line (JSON lines),
//! each object one game whose keys are the columns. This is how lmarena publishes its arena
//! battles (`model_a`, `model_b`, `winner` = `model_a`, `model_b`, `tie` or `tie (bothbad)`,
//! `tstamp` in Unix seconds with a fraction, and nested metadata that is not read).
//!
//! The columns are the keys of the first object; each later object gives its values by key
//! (a key it lacks is an empty field, a key the first object lacked is not read). Strings are
//! read as they are, numbers and booleans as their JSON text, `null` as empty, and arrays and
//! objects as their JSON text (no column of the games format takes one). The rows are then
//! read exactly as a CSV's rows are ([`super::games`]), with the same errors, naming the line
//! (JSON lines) or the object's position in the array (`row N`).

use super::context::Context;
use super::errors::{FieldError, Location};
use super::options::Format;
use super::table::Rows;
use serde::de::{DeserializeSeed, SeqAccess, Visitor};
use serde_json::{Map, Value};
use std::fmt;
use std::path::Path;

/// One object of the input.
type Object = Map<String, Value>;

/// Whether a JSON file holds games rather than contests: one object per line, or an array
/// whose first element is an object without `standings` (a contest's list of placings).
pub(crate) fn is_games(bytes: &[u8]) -> bool {
    let text = trimmed(bytes);
    match text.first() {
        Some(b'{') => true,
        Some(b'[') => {
            let mut games = false;
            // Only the first element is looked at: the rest is left unread (the error of
            // stopping early, or of a first element that is no object, is ignored).
            let mut first = |_, object: Object| {
                games = !object.contains_key("standings");
                false
            };
            let _ = Each(&mut first).deserialize(&mut serde_json::Deserializer::from_slice(text));
            games
        }
        _ => false,
    }
}

/// The text without a byte-order mark and the whitespace before the first value.
fn trimmed(bytes: &[u8]) -> &[u8] {
    let b = bytes.strip_prefix(b"\xef\xbb\xbf").unwrap_or(bytes);
    let start = b
        .iter()
        .position(|c| !c.is_ascii_whitespace())
        .unwrap_or(b.len());
    &b[start..]
}

/// Reads the games of a JSON array or JSON lines file (its bytes, read whole) into `ctx`.
pub(crate) fn read(path: &Path, bytes: &[u8], ctx: &mut Context) -> anyhow::Result<()> {
    let text = trimmed(bytes);
    let mut table = Table::default();
    if text.first() == Some(&b'[') {
        let mut failed: Option<anyhow::Error> = None;
        let mut each = |k: usize, object: Object| -> bool {
            failed = table.row(Location::Row(k as u64 + 1), &object, ctx).err();
            failed.is_none()
        };
        let parsed = Each(&mut each).deserialize(&mut serde_json::Deserializer::from_slice(text));
        if let Some(e) = failed {
            return Err(e);
        }
        parsed.map_err(|e| {
            super::errors::json_error_as(path, &e, "invalid JSON games file: an array of objects")
        })?;
    } else {
        // JSON lines: one object per line, blank lines ignored.
        let before = &bytes[..bytes.len() - text.len()];
        let skipped_lines = memchr::memchr_iter(b'\n', before).count() as u64;
        for (k, line) in text.split(|&c| c == b'\n').enumerate() {
            let at = Location::Line(skipped_lines + k as u64 + 1);
            if line.iter().all(u8::is_ascii_whitespace) {
                continue;
            }
            let object: Object = match serde_json::from_slice(line) {
                Ok(object) => object,
                Err(e) => {
                    // A line that is not an object is a bad record (skipped and counted
                    // under --skip-invalid).
                    ctx.source.records += 1;
                    ctx.reject(at, FieldError::whole(format!("not a JSON object ({e})")))?;
                    continue;
                }
            };
            table.row(at, &object, ctx)?;
        }
    }
    table.rows.map_or(Ok(()), |rows| rows.finish(ctx))
}

/// The columns (the first object's keys), the games reader, and one row's fields.
#[derive(Default)]
struct Table {
    columns: Vec<String>,
    rows: Option<Rows>,
    cells: Vec<String>,
}

impl Table {
    /// Reads one object as a row; the first one sets the columns.
    fn row(&mut self, at: Location, object: &Object, ctx: &mut Context) -> anyhow::Result<()> {
        let rows = match &mut self.rows {
            Some(rows) => rows,
            None => {
                self.columns = object.keys().map(|k| k.trim().to_string()).collect();
                let rows = Rows::new(Format::Games, &self.columns, ctx).map_err(|e| {
                    let mut err = ctx.error(at.clone(), e);
                    err.message = format!(
                        "{} (the columns of a JSON games file are the keys of its first object)",
                        err.message
                    );
                    err
                })?;
                self.cells = vec![String::new(); self.columns.len()];
                self.rows.insert(rows)
            }
        };
        ctx.source.records += 1;
        for (cell, key) in self.cells.iter_mut().zip(&self.columns) {
            cell.clear();
            match object.get(key) {
                None | Some(Value::Null) => {}
                Some(Value::String(s)) => cell.push_str(s),
                Some(v) => cell.push_str(&v.to_string()),
            }
        }
        let cells = &self.cells;
        rows.record(ctx, &at, |i| cells[i].as_str())
    }
}

/// Visits an array's objects in turn, one held at a time, until `f` says stop.
struct Each<'f>(&'f mut dyn FnMut(usize, Object) -> bool);

impl<'de> DeserializeSeed<'de> for Each<'_> {
    type Value = ();
    fn deserialize<D: serde::Deserializer<'de>>(self, d: D) -> Result<(), D::Error> {
        d.deserialize_seq(self)
    }
}

impl<'de> Visitor<'de> for Each<'_> {
    type Value = ();
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("an array of objects")
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<(), A::Error> {
        let mut k = 0;
        while let Some(object) = seq.next_element::<Object>()? {
            if !(self.0)(k, object) {
                return Err(serde::de::Error::custom("stopped"));
            }
            k += 1;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn games_are_told_from_contests_by_the_first_object() {
        assert!(is_games(b"[{\"model_a\": \"x\", \"model_b\": \"y\"}, 3]"));
        assert!(is_games(b"\xef\xbb\xbf  {\"a\": 1}\n{\"a\": 2}\n"));
        assert!(!is_games(
            b"[{\"name\": \"c\", \"time_seconds\": 1, \"standings\": [[\"x\", 0, 0]]}]"
        ));
        assert!(!is_games(b"[]"));
        assert!(!is_games(b"[1, 2]"));
        assert!(!is_games(b"nonsense"));
    }
}
