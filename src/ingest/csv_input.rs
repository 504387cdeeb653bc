//! A games or standings CSV file, read as a stream on one core.

use super::context::Context;
use super::errors::{FieldError, Location};
use super::options::Format;
use super::table::{first_line, open, read_sequential, sniff_delimiter};
use std::io::{Cursor, Read};
use std::path::Path;

/// The reader of a CSV in the games or the standings format (the one it holds).
pub(crate) struct Csv(pub(crate) Format);

impl super::Reader for Csv {
    /// Reads a games or standings CSV, streaming.
    fn read(&self, path: &Path, ctx: &mut Context) -> anyhow::Result<()> {
        // One open: the delimiter is sniffed from the first line, which is then read again
        // from memory ahead of the rest of the same reader (a pipe cannot be opened twice).
        let mut file = open(path)?;
        let head = first_line(&mut file, path)?;
        if let Some(what) = super::lines::not_text(&head) {
            return Err(ctx.error(Location::File, FieldError::whole(what)).into());
        }
        let delimiter = sniff_delimiter(path, &String::from_utf8_lossy(&head));
        read_sequential(path, self.0, delimiter, Cursor::new(head).chain(file), ctx)
    }
}
