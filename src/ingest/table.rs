//! Tables: the games and standings formats, read from CSV (streaming, with exact line numbers)
//! or from Parquet (through polars). Both feed the same row validators, so a value means the
//! same thing in either file type.

use super::columns::{find_column, header_list};
use super::context::Context;
use super::errors::{FieldError, InputError, Location};
use super::games::{GamesReader, GamesSchema};
use super::options::{ColumnMap, Format};
use super::standings::{StandingsReader, StandingsSchema};
use anyhow::Context as _;
use std::io::{BufRead, Read};
use std::path::Path;

/// The field delimiter: tab for `.tsv`, else whichever of `,` `;` tab is most frequent in the
/// header line (comma when none is).
fn sniff_delimiter(path: &Path, first_line: &str) -> u8 {
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

/// The first line of a text table (at most [`super::lines::MAX_LINE`] bytes), read from the
/// reader that goes on with the rest (a pipe can be read only once), and the field delimiter
/// it shows; an empty file, or one that is no text at all, is refused.
pub(crate) fn first_line<R: BufRead>(r: &mut R, path: &Path) -> anyhow::Result<(Vec<u8>, u8)> {
    let mut head = Vec::new();
    r.take(super::lines::MAX_LINE)
        .read_until(b'\n', &mut head)
        .with_context(|| format!("cannot read {}", path.display()))?;
    let not_table = if head.is_empty() {
        Some("empty file: no header")
    } else {
        super::lines::not_text(&head)
    };
    if let Some(what) = not_table {
        return Err(InputError::whole_file(path.display(), what).into());
    }
    let delimiter = sniff_delimiter(path, &String::from_utf8_lossy(&head));
    Ok((head, delimiter))
}

/// A header's column names, without the spaces around them and a byte-order mark.
pub(crate) fn header_names(record: &csv::StringRecord) -> Vec<String> {
    let name = |f: &str| f.trim_start_matches('\u{feff}').trim().to_string();
    record.iter().map(name).collect()
}

pub(crate) fn format_from_header(header: &[String], map: &ColumnMap) -> Option<Format> {
    let has = |c: &str| find_column(header, map.source(c)).is_some();
    // The formats' distinctive columns; with some of them missing, the reader of the format
    // they point to names the missing column.
    let games = has("a")
        || has("b")
        || (has("winner") && has("loser"))
        || super::games::side_aliases(header, map).is_some();
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
    let (head, delimiter) = first_line(&mut super::source::open(path)?, path)?;
    let line = String::from_utf8_lossy(&head);
    let mut rdr = csv::ReaderBuilder::new()
        .has_headers(false)
        .delimiter(delimiter)
        .from_reader(line.as_bytes());
    let first = rdr.records().next().and_then(Result::ok);
    let header = first.map(|r| header_names(&r)).unwrap_or_default();
    // The columns as `--map` names them: a file of `home_team,away_team` mapped to a and b
    // is a games table.
    format_from_header(&header, map).ok_or_else(|| {
        let m = format!(
            "cannot tell the format from the header ({}): the games format has columns a and b, the standings format player and rank; use --format (and --map to rename columns)",
            header_list(&header)
        );
        InputError::new(path.display(), Location::Line(1), None, m).into()
    })
}

/// The rows of a games or a standings table, whatever the file type.
pub(crate) enum Rows {
    Games(GamesReader),
    Standings(StandingsReader),
}

impl Rows {
    /// The reader of a table of `format` with this header (whose records are rows).
    pub(crate) fn new(
        format: Format,
        header: &[String],
        ctx: &mut Context,
    ) -> Result<Self, FieldError> {
        ctx.source.record_unit = "rows".into();
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
            Rows::Games(g) => g.schema.used(),
            Rows::Standings(s) => s.schema.used(),
        }
    }

    /// Reads one record's row, its cells given by column: a bad one is refused or, under
    /// `--skip-invalid`, counted; then [`Context::after_record`]. (Before it, a streamed
    /// standings table's open contest is built when the row begins another.)
    pub(crate) fn record<'r>(
        &mut self,
        ctx: &mut Context,
        at: &Location,
        get: impl Fn(usize) -> &'r str,
    ) -> anyhow::Result<()> {
        let read = match self {
            Rows::Games(g) => g.row(ctx, get),
            Rows::Standings(s) => {
                s.before_row(ctx, at, &get)?;
                s.row(ctx, at, get)
            }
        };
        if let Err(e) = read {
            ctx.reject(at.clone(), e)?;
        }
        ctx.after_record(at)
    }

    /// Ends the table (a standings table's contests are complete only now).
    pub(crate) fn finish(self, ctx: &mut Context) -> anyhow::Result<()> {
        match self {
            Rows::Games(g) => {
                g.finish(ctx);
                Ok(())
            }
            Rows::Standings(s) => s.finish(ctx),
        }
    }
}
