//! A games or standings CSV file, read on one core or, when it is a large games table, on
//! every core ([`super::parallel`]) with the same results.

use super::context::Context;
use super::errors::{FieldError, Location};
use super::options::Format;
use super::table::{first_line, open, read_sequential, sniff_delimiter};
use std::io::{BufRead, Cursor, Read};
use std::path::Path;

/// Reads a games or standings CSV, streaming; a large games CSV is parsed on every core
/// ([`super::parallel`]), with the same results.
pub(crate) fn read_csv(path: &Path, format: Format, ctx: &mut Context) -> anyhow::Result<()> {
    // One open: the delimiter is sniffed from the first line, which is then read again from
    // memory ahead of the rest of the same reader (a pipe cannot be opened twice).
    let mut file = open(path)?;
    let head = first_line(&mut file, path)?;
    if let Some(what) = super::lines::not_text(&head) {
        return Err(ctx.error(Location::File, FieldError::whole(what)).into());
    }
    let delimiter = sniff_delimiter(path, &String::from_utf8_lossy(&head));
    // A streamed replay rates on another thread as this one reads: its reading stays on one
    // core, leaving the other to the replay (parsed on both, it was slower, and larger).
    // A duplicate check compares every contest with those before it: one reader, in order.
    if format != Format::Games || ctx.emit.is_some() || ctx.opts.dedupe {
        return read_sequential(path, format, delimiter, Cursor::new(head).chain(file), ctx);
    }
    let sizes = super::parallel::sizes();
    // The first bytes, read ahead to see whether the input is large enough to be worth the
    // threads; a read that fails is failed again where the sequential reader gets to it.
    let first = head.len();
    let mut ahead = head;
    let failed = loop {
        if ahead.len() >= sizes.parallel_from.max(first + 1) {
            return super::parallel::read(path, delimiter, ahead, file, ctx, &sizes);
        }
        match file.fill_buf() {
            Ok([]) => break None,
            Ok(bytes) => {
                let n = bytes
                    .len()
                    .min(sizes.parallel_from.max(first + 1) - ahead.len());
                ahead.extend_from_slice(&bytes[..n]);
                file.consume(n);
            }
            Err(e) => break Some(e),
        }
    };
    let rest: Box<dyn Read> = match failed {
        None => Box::new(file),
        Some(e) => Box::new(FailedRead(Some(e))),
    };
    read_sequential(path, format, delimiter, Cursor::new(ahead).chain(rest), ctx)
}

/// A reader whose first read fails with the error a source gave.
struct FailedRead(Option<std::io::Error>);

impl Read for FailedRead {
    fn read(&mut self, _: &mut [u8]) -> std::io::Result<usize> {
        self.0.take().map_or(Ok(0), Err)
    }
}
