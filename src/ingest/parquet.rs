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

    /// The row groups in batches of consecutive groups, each as (first row, rows, decoded
    /// bytes): one group, or as many as make up [`BATCH_ROWS`] rows and [`BATCH_BYTES`]
    /// decoded bytes. (Each read of a slice walks the file's metadata: a read per group of a
    /// file of one-row groups would take a time quadratic in its rows.)
    pub(crate) fn batches(&self) -> Vec<(usize, usize, usize)> {
        let mut batches: Vec<(usize, usize, usize)> = Vec::new();
        let mut offset = 0usize;
        for g in &self.metadata.row_groups {
            let (rows, size) = (g.num_rows(), g.total_byte_size());
            match batches.last_mut() {
                Some((_, n, bytes)) if *n + rows <= BATCH_ROWS && *bytes + size <= BATCH_BYTES => {
                    *n += rows;
                    *bytes += size;
                }
                _ => batches.push((offset, rows, size)),
            }
            offset += rows;
        }
        batches
    }

    /// The rows `offset..offset + rows` decoded: the named columns, or all.
    pub(crate) fn rows(
        &self,
        offset: usize,
        rows: usize,
        columns: Option<&[String]>,
    ) -> Result<DataFrame, String> {
        let file = File::open(self.path).map_err(|e| format!("cannot open it: {e}"))?;
        let metadata = self.metadata.clone();
        let columns = columns.map(<[String]>::to_vec);
        decode(|| {
            let mut r = ParquetReader::new(file)
                .with_slice(Some((offset, rows)))
                .with_columns(columns);
            r.set_metadata(metadata);
            r.finish()
        })
    }

    /// The rows `offset..offset + rows` of the columns read; when they cannot be decoded,
    /// the error names the first column that cannot.
    fn used_rows(
        &self,
        offset: usize,
        rows: usize,
        columns: &[String],
    ) -> Result<DataFrame, FieldError> {
        self.rows(offset, rows, Some(columns)).map_err(|whole| {
            columns
                .iter()
                .find_map(|c| {
                    let e = self
                        .rows(offset, rows, Some(std::slice::from_ref(c)))
                        .err()?;
                    let m = format!(
                        "cannot be read ({e}); rate-batch reads Parquet columns of text, \
                         numbers, booleans, dates and timestamps"
                    );
                    Some(FieldError::new(c, m))
                })
                .unwrap_or_else(|| {
                    FieldError::whole(format!("not a readable Parquet file: {whole}"))
                })
        })
    }
}

/// The rows a batch of row groups holds at most (unless one group holds more).
const BATCH_ROWS: usize = 1 << 16;
/// The decoded bytes a batch of row groups holds at most (unless one group holds more).
const BATCH_BYTES: usize = 64 << 20;

/// The reader of Parquet tables.
pub(crate) struct Parquet;

impl super::Reader for Parquet {
    /// Reads a games or standings table from Parquet, a row group at a time (see the module's
    /// documentation). Rows are numbered from 1 across the row groups.
    fn read(&self, path: &Path, ctx: &mut Context) -> anyhow::Result<()> {
        if let Some(crashed) = probe_parquet_in_child(path) {
            return Err(ctx.stop(Location::File, crashed));
        }
        let file = ParquetFile::open(path)
            .map_err(|e| ctx.stop(Location::File, format!("not a readable Parquet file: {e}")))?;
        let header = file.header.clone();
        let format = match ctx.opts.format {
            Some(f @ (Format::Games | Format::Standings)) => f,
            _ => format_from_header(&header, &ctx.opts.map).ok_or_else(|| {
                ctx.stop(
                    Location::File,
                    format!(
                        "cannot tell games from standings by the columns ({}); the games format has a and b, the standings format player and rank",
                        header_list(&header)
                    ),
                )
            })?,
        };
        ctx.source.format = format!("parquet ({format})");
        let mut rows = Rows::new(format, &header, ctx).map_err(|e| ctx.error(Location::File, e))?;
        // Only the columns read are decoded: one of a type that cannot be read is no matter
        // unless it is used.
        let used: Vec<String> = rows.used().into_iter().map(|i| header[i].clone()).collect();
        for (offset, n, _) in file.batches() {
            let df = file
                .used_rows(offset, n, &used)
                .map_err(|e| ctx.error(Location::File, e))?;
            read_rows(ctx, &mut rows, &header, &df, offset)?;
        }
        rows.finish(ctx)
    }

    fn extensions(&self) -> &'static [&'static str] {
        &["parquet", "pq"]
    }
}

/// The rows of one decoded row group, the first numbered `offset + 1`.
fn read_rows(
    ctx: &mut Context,
    rows: &mut Rows,
    header: &[String],
    df: &DataFrame,
    offset: usize,
) -> anyhow::Result<()> {
    // Every column as text (a column not read is not decoded: its cells are empty).
    let mut texts: Vec<Option<Column>> = Vec::with_capacity(header.len());
    for name in header {
        let col = df.column(name).ok();
        texts.push(col.map(|c| column_text(ctx, name, c, offset)).transpose()?);
    }
    // Walk the columns in step, a row at a time, without copying the cells.
    let mut cells = Vec::with_capacity(texts.len());
    for (c, name) in texts.iter().zip(header) {
        cells.push(
            c.as_ref()
                .map(|c| c.str().map(polars::prelude::ChunkedArray::iter))
                .transpose()
                .map_err(|e| ctx.error(Location::File, FieldError::new(name, e.to_string())))?,
        );
    }
    let mut row: Vec<&str> = vec![""; cells.len()];
    for r in 0..df.height() {
        for (slot, it) in row.iter_mut().zip(cells.iter_mut()) {
            if let Some(it) = it {
                *slot = it.next().flatten().unwrap_or("");
            }
        }
        ctx.source.records += 1;
        let at = Location::Row((offset + r) as u64 + 1);
        rows.record(ctx, &at, |i| row[i])?;
    }
    Ok(())
}

/// Column `name` of a row group (its first row numbered `offset + 1`) as text; one that
/// cannot be (nested values, bytes that are not UTF-8) is named, with its type, and its first
/// bad row where one can be found.
fn column_text(
    ctx: &mut Context,
    name: &str,
    col: &Column,
    offset: usize,
) -> anyhow::Result<Column> {
    let dtype = col.dtype().clone();
    if dtype == DataType::Binary
        && let Ok(bytes) = col.binary()
        && let Some(row) = bytes
            .iter()
            .position(|v| v.is_some_and(|v| std::str::from_utf8(v).is_err()))
    {
        let e = FieldError::new(name, "bytes that are not UTF-8 text");
        return Err(ctx
            .error(Location::Row((offset + row) as u64 + 1), e)
            .into());
    }
    let text = match &dtype {
        DataType::List(_) => Err(format!(
            "column of type {dtype}: a list per row, not one value; rate-batch reads \
             one value per cell"
        )),
        // Dates and timestamps are printed here, each value checked: the decoder's own
        // printing panics on one beyond the calendar it knows. Such a value is given as
        // text that says so, which the time column refuses (naming the row; skipped under
        // --skip-invalid).
        DataType::Date => dates_text(name, col),
        DataType::Datetime(unit, _) => instants_text(name, col, *unit),
        _ => col.cast(&DataType::String).map_err(|e| e.to_string()),
    };
    text.map_err(|m| {
        ctx.error(
            Location::File,
            FieldError::new(name, format!("cannot be read as text ({dtype}): {m}")),
        )
        .into()
    })
}

/// A column of dates as text (`2024-01-31`).
fn dates_text(name: &str, col: &Column) -> Result<Column, String> {
    let days = col.date().map_err(|e| e.to_string())?.physical().iter();
    Ok(temporal_text(
        name,
        days.map(|v| v.map(i64::from)),
        |v| {
            let day = i32::try_from(v)
                .ok()?
                .checked_add(UNIX_EPOCH_DAYS_FROM_CE)?;
            let date = chrono::NaiveDate::from_num_days_from_ce_opt(day)?;
            Some(date.format("%Y-%m-%d").to_string())
        },
        |v| format!("the date {v} days from 1970-01-01, beyond the calendar"),
    ))
}

/// A column of timestamps in `unit` as text (RFC 3339).
fn instants_text(name: &str, col: &Column, unit: TimeUnit) -> Result<Column, String> {
    let instants = col.datetime().map_err(|e| e.to_string())?.physical().iter();
    let per_second: i64 = match unit {
        TimeUnit::Milliseconds => 1_000,
        TimeUnit::Microseconds => 1_000_000,
        TimeUnit::Nanoseconds => 1_000_000_000,
    };
    // (The instant in UTC, with or without a zone named: Parquet stores UTC.)
    Ok(temporal_text(
        name,
        instants,
        |v| {
            let nanos = v.rem_euclid(per_second) * (1_000_000_000 / per_second);
            let t = chrono::DateTime::from_timestamp(
                v.div_euclid(per_second),
                u32::try_from(nanos).ok()?,
            )?;
            Some(t.to_rfc3339_opts(chrono::SecondsFormat::AutoSi, true))
        },
        |v| format!("the timestamp {v} {unit} from 1970, beyond the calendar"),
    ))
}

/// Days from 0001-01-01 (chrono's day 1) to 1970-01-01, less one.
const UNIX_EPOCH_DAYS_FROM_CE: i32 = 719_163;

/// A column of dates or timestamps as text, each value printed by `print`, or by `beyond`
/// when it cannot be.
fn temporal_text(
    name: &str,
    values: impl Iterator<Item = Option<i64>>,
    print: impl Fn(i64) -> Option<String>,
    beyond: impl Fn(i64) -> String,
) -> Column {
    let texts: Vec<Option<String>> = values
        .map(|v| v.map(|v| print(v).unwrap_or_else(|| beyond(v))))
        .collect();
    Column::new(name.into(), texts)
}

/// Decodes a Parquet file in full in this process, a row group at a time as the reader does;
/// true when it decodes.
pub fn probe_parquet_here(path: &Path) -> bool {
    let Ok(file) = ParquetFile::open(path) else {
        return false;
    };
    file.batches()
        .into_iter()
        .all(|(offset, n, _)| file.rows(offset, n, None).is_ok())
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
