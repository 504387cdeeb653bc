//! Games and standings tables in Parquet, read one row group at a time: memory holds one
//! decoded row group (and its text), never the whole file, and a games table streams as a games
//! CSV does. Every column is read as text (numbers and dates are printed by polars, then
//! validated as in a CSV), so both file types accept the same values.
//!
//! The decoder (polars) can panic on a damaged file, and can abort the process: every call
//! into it is made through [`decode`], which turns a panic into an error, and the whole file is
//! first decoded in a child process ([`probe_parquet_in_child`]).

use super::columns::header_list;
use super::context::Context;
use super::errors::{FieldError, Location};
use super::options::Format;
use super::table::{Rows, format_from_header};
use polars::prelude::*;
use std::fs::File;
use std::path::Path;

/// Runs a call into the Parquet decoder: its error, or its panic on malformed input (a
/// library's, not ours), as a message; the panic is not printed.
pub(crate) fn decode<T>(f: impl FnOnce() -> PolarsResult<T>) -> Result<T, String> {
    let hook = std::panic::take_hook();
    std::panic::set_hook(Box::new(|_| {}));
    let out = std::panic::catch_unwind(std::panic::AssertUnwindSafe(f));
    std::panic::set_hook(hook);
    match out {
        Ok(r) => r.map_err(|e| e.to_string()),
        Err(_) => Err("the Parquet decoder failed on it".to_string()),
    }
}

/// A Parquet file's metadata, and its row groups read one at a time.
pub(crate) struct ParquetFile<'p> {
    path: &'p Path,
    metadata: FileMetadataRef,
    /// The columns' names.
    pub(crate) header: Vec<String>,
}

impl<'p> ParquetFile<'p> {
    /// Reads the file's metadata (its footer).
    pub(crate) fn open(path: &'p Path) -> Result<Self, String> {
        let file = File::open(path).map_err(|e| format!("cannot open it: {e}"))?;
        let (metadata, schema) = decode(|| {
            let mut r = ParquetReader::new(file);
            let metadata = r.get_metadata()?.clone();
            let schema = r.schema()?;
            Ok((metadata, schema))
        })?;
        let header = schema.iter_names().map(ToString::to_string).collect();
        Ok(Self {
            path,
            metadata,
            header,
        })
    }

    /// The rows of each row group.
    pub(crate) fn row_group_rows(&self) -> Vec<usize> {
        let groups = &self.metadata.row_groups;
        // (The row group's type is not re-exported by polars: no method path to name.)
        groups
            .iter()
            .fold(Vec::with_capacity(groups.len()), |mut v, g| {
                v.push(g.num_rows());
                v
            })
    }

    /// The decoded bytes of the largest row group.
    pub(crate) fn largest_row_group_bytes(&self) -> usize {
        let groups = &self.metadata.row_groups;
        groups
            .iter()
            .fold(0, |most, g| most.max(g.total_byte_size()))
    }

    /// The rows `offset..offset + rows` (one row group's) decoded.
    pub(crate) fn rows(&self, offset: usize, rows: usize) -> Result<DataFrame, String> {
        let file = File::open(self.path).map_err(|e| format!("cannot open it: {e}"))?;
        let metadata = self.metadata.clone();
        decode(|| {
            let mut r = ParquetReader::new(file).with_slice(Some((offset, rows)));
            r.set_metadata(metadata);
            r.finish()
        })
    }
}

/// Reads a games or standings table from Parquet, a row group at a time (see the module's
/// documentation). Rows are numbered from 1 across the row groups.
pub(crate) fn read_parquet(path: &Path, ctx: &mut Context) -> anyhow::Result<()> {
    if let Some(crashed) = probe_parquet_in_child(path) {
        return Err(ctx.error(Location::File, FieldError::whole(crashed)).into());
    }
    let unreadable = |ctx: &Context, e: String| {
        ctx.error(
            Location::File,
            FieldError::whole(format!("not a readable Parquet file: {e}")),
        )
    };
    let file = ParquetFile::open(path).map_err(|e| unreadable(ctx, e))?;
    let header = file.header.clone();
    let format = match ctx.opts.format {
        Some(Format::Games) => Format::Games,
        Some(Format::Standings) => Format::Standings,
        _ => format_from_header(&header, &ctx.opts.map).ok_or_else(|| {
            ctx.error(
                Location::File,
                FieldError::whole(format!(
                    "cannot tell games from standings by the columns ({}); the games format has a and b, the standings format player and rank",
                    header_list(&header)
                )),
            )
        })?,
    };
    ctx.source.format = format!("parquet ({format})");
    let mut rows = Rows::new(format, &header, ctx).map_err(|e| ctx.error(Location::File, e))?;
    ctx.source.record_unit = Rows::UNIT.into();
    let mut offset = 0usize;
    for n in file.row_group_rows() {
        let df = file.rows(offset, n).map_err(|e| unreadable(ctx, e))?;
        read_rows(ctx, &mut rows, &header, &df, offset)?;
        offset += n;
    }
    rows.finish(ctx)?;
    Ok(())
}

/// The rows of one decoded row group, the first numbered `offset + 1`.
fn read_rows(
    ctx: &mut Context,
    rows: &mut Rows,
    header: &[String],
    df: &DataFrame,
    offset: usize,
) -> anyhow::Result<()> {
    // Every column as text; one that cannot be (nested values, bytes that are not UTF-8) is
    // named, with its type, and its first bad row where one can be found.
    let mut texts: Vec<Column> = Vec::with_capacity(header.len());
    for name in header {
        let col = df
            .column(name)
            .map_err(|e| ctx.error(Location::File, FieldError::new(name, e.to_string())))?;
        let dtype = col.dtype().clone();
        let text = match &dtype {
            DataType::List(_) => Err(format!(
                "column of type {dtype}: a list per row, not one value; rate-batch reads \
                 one value per cell"
            )),
            DataType::Binary => {
                let bin = col.binary().map_err(|e| e.to_string());
                match bin.map(|b| {
                    b.iter()
                        .position(|v| v.is_some_and(|v| std::str::from_utf8(v).is_err()))
                }) {
                    Ok(Some(row)) => {
                        return Err(ctx
                            .error(
                                Location::Row((offset + row) as u64 + 1),
                                FieldError::new(name, "bytes that are not UTF-8 text"),
                            )
                            .into());
                    }
                    _ => col.cast(&DataType::String).map_err(|e| e.to_string()),
                }
            }
            _ => col.cast(&DataType::String).map_err(|e| e.to_string()),
        };
        match text {
            Ok(t) => texts.push(t),
            Err(m) => {
                return Err(ctx
                    .error(
                        Location::File,
                        FieldError::new(name, format!("cannot be read as text ({dtype}): {m}")),
                    )
                    .into());
            }
        }
    }
    // Walk the columns in step, a row at a time, without copying the cells.
    let mut cells = Vec::with_capacity(texts.len());
    for (c, name) in texts.iter().zip(header) {
        cells.push(
            c.str()
                .map(polars::prelude::ChunkedArray::iter)
                .map_err(|e| ctx.error(Location::File, FieldError::new(name, e.to_string())))?,
        );
    }
    let mut row: Vec<&str> = vec![""; cells.len()];
    for r in 0..df.height() {
        for (slot, it) in row.iter_mut().zip(cells.iter_mut()) {
            *slot = it.next().flatten().unwrap_or("");
        }
        ctx.source.records += 1;
        let at = Location::Row((offset + r) as u64 + 1);
        let fields = &row;
        rows.before_row(ctx, &at, |i| fields[i])?;
        if let Err(e) = rows.row(ctx, &at, |i| fields[i]) {
            ctx.reject(at.clone(), e)?;
        }
        ctx.after_record(&at)?;
    }
    Ok(())
}

/// Decodes a Parquet file in full in this process, a row group at a time as the reader does;
/// true when it decodes.
pub fn probe_parquet_here(path: &Path) -> bool {
    let Ok(file) = ParquetFile::open(path) else {
        return false;
    };
    let mut offset = 0;
    file.row_group_rows().into_iter().all(|n| {
        let ok = file.rows(offset, n).is_ok();
        offset += n;
        ok
    })
}

/// The program to run the Parquet probe with: `RATE_BATCH_EXE` if set, else this program if
/// it is rate-batch (not, say, a test harness).
fn probe_exe() -> Option<std::path::PathBuf> {
    if let Some(p) = std::env::var_os("RATE_BATCH_EXE") {
        return Some(p.into());
    }
    let me = std::env::current_exe().ok()?;
    let name = me.file_stem()?.to_str()?;
    (name == "rate-batch").then_some(me)
}

/// Decodes a Parquet file in a child process first: a malformed file can make the Parquet
/// decoder (polars) abort the whole process with an impossible allocation, which no Rust code
/// can catch (pola-rs/polars#15342). Returns the error to report when the child crashed;
/// `None` when it decoded the file, reported an ordinary error (read again here for the
/// message), or could not be run.
pub(crate) fn probe_parquet_in_child(path: &Path) -> Option<String> {
    let exe = probe_exe()?;
    let status = std::process::Command::new(exe)
        .arg("__probe-parquet")
        .arg(path)
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .status()
        .ok()?;
    match status.code() {
        Some(0) | Some(1) => None,
        _ => Some(format!(
            "the Parquet decoder crashed on this file ({status}): its data pages are damaged"
        )),
    }
}
