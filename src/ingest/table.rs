//! Tables: the games and standings formats, read from CSV (streaming, with exact line numbers)
//! or from Parquet (through polars). Both feed the same row validators, so a value means the
//! same thing in either file type.

use super::columns::{find_column, header_list};
use super::context::Context;
use super::errors::{FieldError, InputError, Location};
use super::games::{GamesReader, GamesSchema};
use super::lines::Lines;
use super::options::{ColumnMap, Format};
use super::standings::{StandingsReader, StandingsSchema};
use anyhow::Context as _;
use std::io::{BufRead, Read};
use std::path::Path;

pub(crate) fn open(path: &Path) -> anyhow::Result<Box<dyn BufRead + Send>> {
    super::source::open(path)
}

/// The field delimiter: tab for `.tsv`, else whichever of `,` `;` tab is most frequent in the
/// header line (comma when none is).
pub(crate) fn sniff_delimiter(path: &Path, first_line: &str) -> u8 {
    if super::source::format_extension(path).as_deref() == Some("tsv") {
        return b'\t';
    }
    let count = |c: char| first_line.matches(c).count();
    let (commas, semis, tabs) = (count(','), count(';'), count('\t'));
    if tabs > commas && tabs >= semis {
        b'\t'
    } else if semis > commas {
        b';'
    } else {
        b','
    }
}

/// The first line of a text input (at most [`super::lines::MAX_LINE`] bytes), read from the
/// reader that goes on with the rest: a pipe can be read only once.
pub(crate) fn first_line<R: BufRead>(r: &mut R, path: &Path) -> anyhow::Result<Vec<u8>> {
    let mut buf = Vec::new();
    r.take(super::lines::MAX_LINE)
        .read_until(b'\n', &mut buf)
        .with_context(|| format!("cannot read {}", path.display()))?;
    Ok(buf)
}

fn header_fields(line: &str, delimiter: u8) -> Vec<String> {
    let mut rdr = csv::ReaderBuilder::new()
        .has_headers(false)
        .delimiter(delimiter)
        .from_reader(line.as_bytes());
    rdr.records()
        .next()
        .and_then(Result::ok)
        .map(|r| {
            r.iter()
                .map(|f| f.trim_start_matches('\u{feff}').trim().to_string())
                .collect()
        })
        .unwrap_or_default()
}

pub(crate) fn format_from_header(header: &[String], map: &ColumnMap) -> Option<Format> {
    let has = |c: &str| find_column(header, map.source(c)).is_some();
    // The formats' distinctive columns; with some of them missing, the reader of the format
    // they point to names the missing column.
    let games = has("a")
        || has("b")
        || (has("winner") && has("loser"))
        || super::games::has_side_aliases(header, map);
    let standings = has("rank") || has("player");
    match (games, standings) {
        (true, false) => Some(Format::Games),
        (true, true) if has("a") && has("b") => Some(Format::Games),
        (_, true) => Some(Format::Standings),
        (false, false) => None,
    }
}

/// Tells games from standings by the CSV header, its columns named as `map` names them.
pub(crate) fn detect_csv(path: &Path, map: &ColumnMap) -> anyhow::Result<Format> {
    let head = first_line(&mut open(path)?, path)?;
    let not_table = if head.is_empty() {
        Some("empty file: no header")
    } else {
        super::lines::not_text(&head)
    };
    if let Some(what) = not_table {
        return Err(InputError::whole_file(path.display().to_string(), what.to_string()).into());
    }
    let line = String::from_utf8_lossy(&head);
    let header = header_fields(&line, sniff_delimiter(path, &line));
    // The columns as `--map` names them: a file of `home_team,away_team` mapped to a and b
    // is a games table.
    format_from_header(&header, map).ok_or_else(|| {
        InputError {
            file: path.display().to_string(),
            at: Location::Line(1),
            field: None,
            message: format!(
                "cannot tell the format from the header ({}): the games format has columns a and b, the standings format player and rank; use --format (and --map to rename columns)",
                header_list(&header)
            ),
        }
        .into()
    })
}

/// The rows of a games or a standings table, whatever the file type.
pub(crate) enum Rows {
    Games(GamesReader),
    Standings(StandingsReader),
}

impl Rows {
    /// The reader of a table of `format` with this header.
    pub(crate) fn new(
        format: Format,
        header: &[String],
        ctx: &Context,
    ) -> Result<Self, FieldError> {
        let (map, times) = (&ctx.opts.map, ctx.opts.time_format.clone());
        // A streamed read (or its counting pass) takes a standings contest's rows together.
        let contiguous = ctx.emit.is_some() || ctx.builder.count().is_some();
        Ok(match format {
            Format::Standings => Rows::Standings(StandingsReader::new(
                StandingsSchema::resolve(header, map)?,
                times,
                contiguous,
            )),
            _ => Rows::Games(GamesReader::new(
                GamesSchema::resolve(header, map, ctx.opts.speed_pools)?,
                times,
            )),
        })
    }

    /// The columns read, by position in the header.
    pub(crate) fn used(&self) -> Vec<usize> {
        match self {
            Rows::Games(g) => g.schema().used(),
            Rows::Standings(s) => s.schema().used(),
        }
    }

    fn width(&self) -> usize {
        match self {
            Rows::Games(g) => g.schema().width(),
            Rows::Standings(s) => s.schema().width(),
        }
    }

    /// Before a row (its cells given by column): a streamed standings table's open contest
    /// is built when the row begins another.
    pub(crate) fn before_row<'r>(
        &mut self,
        ctx: &mut Context,
        at: &Location,
        get: impl Fn(usize) -> &'r str,
    ) -> anyhow::Result<()> {
        match self {
            Rows::Games(_) => Ok(()),
            Rows::Standings(s) => {
                let label = get(s.contest_column());
                s.before_row(ctx, at, label)
            }
        }
    }

    /// Reads one row, its cells given by column.
    pub(crate) fn row<'r>(
        &mut self,
        ctx: &mut Context,
        at: &Location,
        get: impl Fn(usize) -> &'r str,
    ) -> Result<(), FieldError> {
        match self {
            Rows::Games(g) => g.row(ctx, get),
            Rows::Standings(s) => s.row(ctx, at, get),
        }
    }

    /// Ends the table (a standings table's contests are complete only now).
    pub(crate) fn finish(self, ctx: &mut Context) -> anyhow::Result<()> {
        match self {
            Rows::Games(g) => {
                ctx.source.time_format = Some(g.time_reading());
                ctx.source.untimed |= !g.schema().timed();
                Ok(())
            }
            Rows::Standings(s) => s.finish(ctx),
        }
    }

    /// What a record of a table is.
    pub(crate) const UNIT: &'static str = "rows";
}

/// The CSV reader of a table: its records, with their lines counted.
pub(crate) type CsvReader<R> = csv::Reader<super::lines::Counting<R>>;

/// A CSV reader of a table's header and records.
pub(crate) fn csv_reader<R: Read>(delimiter: u8, reader: R) -> (CsvReader<R>, Lines) {
    let (reader, lines) = super::lines::counting(reader);
    let rdr = csv::ReaderBuilder::new()
        .delimiter(delimiter)
        .flexible(true)
        .trim(csv::Trim::Headers)
        .from_reader(reader);
    (rdr, lines)
}

/// Reads a CSV table, header and records, in order on this thread.
pub(crate) fn read_sequential<R: Read>(
    path: &Path,
    format: Format,
    delimiter: u8,
    input: R,
    ctx: &mut Context,
) -> anyhow::Result<()> {
    let (mut rdr, mut lines) = csv_reader(delimiter, input);
    let (header, mut rows) = read_header(&mut rdr, &mut lines, format, ctx)?;
    read_records(
        &mut rdr,
        &mut lines,
        &mut rows,
        &header,
        path,
        ctx,
        &mut |ctx, at| ctx.after_record(at),
    )?;
    rows.finish(ctx)?;
    Ok(())
}

/// Reads and checks a table's header: its column names, and the reader of its rows.
pub(crate) fn read_header<R: Read>(
    rdr: &mut CsvReader<R>,
    lines: &mut Lines,
    format: Format,
    ctx: &mut Context,
) -> anyhow::Result<(Vec<String>, Rows)> {
    let header: Vec<String> = match rdr.headers() {
        Ok(h) => h
            .iter()
            .map(|f| f.trim_start_matches('\u{feff}').trim().to_string())
            .collect(),
        Err(e) => return Err(csv_error(ctx, e, lines, &[]).into()),
    };
    if header.iter().all(std::string::String::is_empty) {
        return Err(ctx
            .error(Location::File, FieldError::whole("empty file: no header"))
            .into());
    }
    // Columns are found by name (any case): a name given twice would be ambiguous.
    let mut names = rustc_hash::FxHashSet::default();
    for h in &header {
        if !h.is_empty() && !names.insert(h.to_ascii_lowercase()) {
            return Err(ctx
                .error(
                    Location::Line(1),
                    FieldError::whole(format!("column `{h}` appears twice in the header")),
                )
                .into());
        }
    }
    let rows = Rows::new(format, &header, ctx).map_err(|e| ctx.error(Location::Line(1), e))?;
    ctx.source.record_unit = Rows::UNIT.into();
    Ok((header, rows))
}

/// Reads the records that follow a header (or a piece of them), each validated into `ctx`:
/// a bad one is refused or, under `--skip-invalid`, counted. `after` runs after each row
/// that reached the row reader (the whole read's is [`Context::after_record`]).
pub(crate) fn read_records<R: Read>(
    rdr: &mut CsvReader<R>,
    lines: &mut Lines,
    rows: &mut Rows,
    header: &[String],
    path: &Path,
    ctx: &mut Context,
    after: &mut dyn FnMut(&mut Context, &Location) -> anyhow::Result<()>,
) -> anyhow::Result<()> {
    let width = rows.width();
    let mut rec = csv::StringRecord::new();
    loop {
        match rdr.read_record(&mut rec) {
            Ok(false) => break,
            Ok(true) => {}
            Err(e) => {
                if let csv::ErrorKind::Io(io) = e.kind()
                    && let Some(line) = super::lines::too_long(io)
                {
                    return Err(ctx
                        .error(Location::Line(line), FieldError::whole(io.to_string()))
                        .into());
                }
                if e.is_io_error() {
                    return Err(cannot_read(path, e));
                }
                let err = csv_error(ctx, e, lines, header);
                ctx.source.records += 1;
                ctx.reject(
                    err.at.clone(),
                    FieldError {
                        field: err.field,
                        message: err.message,
                    },
                )?;
                continue;
            }
        }
        ctx.source.records += 1;
        let at = Location::Line(lines.of(rec.position()));
        if rec.len() == 1 && rec.get(0).is_some_and(|f| f.trim().is_empty()) {
            // A blank line: not a record.
            ctx.source.records -= 1;
            continue;
        }
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
        let r = &rec;
        rows.before_row(ctx, &at, |i| r.get(i).unwrap_or(""))?;
        if let Err(e) = rows.row(ctx, &at, |i| r.get(i).unwrap_or("")) {
            ctx.reject(at.clone(), e)?;
        }
        after(ctx, &at)?;
    }
    Ok(())
}

/// The error of an input that cannot be read (an I/O error, inside the CSV reader's).
pub(crate) fn cannot_read(path: &Path, e: csv::Error) -> anyhow::Error {
    anyhow::Error::new(e).context(format!("cannot read {}", path.display()))
}

pub(crate) fn csv_error(
    ctx: &Context,
    e: csv::Error,
    lines: &mut Lines,
    header: &[String],
) -> InputError {
    let at = e
        .position()
        .map_or(Location::File, |p| Location::Line(lines.line_of(p.byte())));
    match e.kind() {
        csv::ErrorKind::Utf8 { err, .. } => match header.get(err.field()) {
            Some(name) => ctx.error(
                at,
                FieldError::new(name, "invalid UTF-8 (the file must be UTF-8)"),
            ),
            None => ctx.error(
                at,
                FieldError::whole(format!("invalid UTF-8 in field {}", err.field() + 1)),
            ),
        },
        _ => ctx.error(at, FieldError::whole(e.to_string())),
    }
}
