//! A games or standings CSV file, read as a stream on one core.

use super::context::Context;
use super::errors::{FieldError, InputError, Location};
use super::lines::{Counting, Lines};
use super::options::Format;
use super::table::{Rows, first_line, header_names};
use std::io::{Cursor, Read};
use std::path::Path;

/// The reader of a CSV in the games or the standings format (the one it holds).
pub(crate) struct Csv(pub(crate) Format);

impl super::Reader for Csv {
    /// Reads a games or standings CSV, streaming: its header, then its records, each
    /// validated into `ctx` (a bad one is refused or, under `--skip-invalid`, counted).
    fn read(&self, path: &Path, ctx: &mut Context) -> anyhow::Result<()> {
        // One open: the delimiter is sniffed from the first line, which is then read again
        // from memory ahead of the rest of the same reader (a pipe cannot be opened twice).
        let mut file = super::source::open(path)?;
        let (head, delimiter) = first_line(&mut file, path)?;
        let (counting, mut lines) =
            super::lines::counting(Cursor::new(head).chain(file), delimiter);
        let mut rdr = csv::ReaderBuilder::new()
            .delimiter(delimiter)
            .flexible(true)
            .trim(csv::Trim::Headers)
            .from_reader(counting);
        let (header, mut rows) = read_header(&mut rdr, &mut lines, self.0, ctx)?;
        read_records(&mut rdr, &mut lines, &mut rows, &header, path, ctx)?;
        rows.finish(ctx)
    }
}

/// Reads and checks a table's header: its column names, and the reader of its rows.
fn read_header<R: Read>(
    rdr: &mut csv::Reader<Counting<R>>,
    lines: &mut Lines,
    format: Format,
    ctx: &mut Context,
) -> anyhow::Result<(Vec<String>, Rows)> {
    let header = match rdr.headers() {
        Ok(h) => header_names(h),
        Err(e) => return Err(csv_error(ctx, e, lines, &[]).into()),
    };
    if header.iter().all(String::is_empty) {
        return Err(ctx.stop(Location::File, "empty file: no header"));
    }
    // Columns are found by name (any case): a name given twice would be ambiguous.
    let mut names = rustc_hash::FxHashSet::default();
    for h in &header {
        if !h.is_empty() && !names.insert(h.to_ascii_lowercase()) {
            let m = format!("column `{h}` appears twice in the header");
            return Err(ctx.stop(Location::Line(1), m));
        }
    }
    let rows = Rows::new(format, &header, ctx).map_err(|e| ctx.error(Location::Line(1), e))?;
    Ok((header, rows))
}

/// Reads the records that follow the header.
fn read_records<R: Read>(
    rdr: &mut csv::Reader<Counting<R>>,
    lines: &mut Lines,
    rows: &mut Rows,
    header: &[String],
    path: &Path,
    ctx: &mut Context,
) -> anyhow::Result<()> {
    let width = header.len();
    let mut rec = csv::StringRecord::new();
    loop {
        match rdr.read_record(&mut rec) {
            Ok(false) => break,
            Ok(true) => {}
            Err(e) => {
                if let csv::ErrorKind::Io(io) = e.kind()
                    && let Some(line) = super::lines::too_long(io)
                {
                    return Err(ctx.stop(Location::Line(line), io.to_string()));
                }
                if e.is_io_error() {
                    let context = format!("cannot read {}", path.display());
                    return Err(anyhow::Error::new(e).context(context));
                }
                ctx.source.records += 1;
                ctx.skip_or_fail(csv_error(ctx, e, lines, header))?;
                continue;
            }
        }
        let at = Location::Line(lines.of(rec.position()));
        if rec.len() == 1 && rec.get(0).is_some_and(|f| f.trim().is_empty()) {
            // A blank line: not a record.
            continue;
        }
        ctx.source.records += 1;
        if rec.len() != width {
            ctx.reject(
                at,
                FieldError::whole(format!(
                    "row has {} fields, the header has {width}",
                    rec.len()
                )),
            )?;
            continue;
        }
        rows.record(ctx, &at, |i| rec.get(i).unwrap_or(""))?;
    }
    Ok(())
}

/// A CSV error (not an I/O one) as an input error, at its line.
fn csv_error(ctx: &Context, e: csv::Error, lines: &mut Lines, header: &[String]) -> InputError {
    let at = e
        .position()
        .map_or(Location::File, |p| Location::Line(lines.line_of(p.byte())));
    let problem = match e.kind() {
        csv::ErrorKind::Utf8 { err, .. } => match header.get(err.field()) {
            Some(name) => FieldError::new(name, "invalid UTF-8 (the file must be UTF-8)"),
            None => FieldError::whole(format!("invalid UTF-8 in field {}", err.field() + 1)),
        },
        _ => FieldError::whole(e.to_string()),
    };
    ctx.error(at, problem)
}
