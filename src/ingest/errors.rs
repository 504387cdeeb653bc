//! What a reader reports: where in the input ([`Location`]) and what is wrong
//! ([`InputError`]), from a field's own problem ([`FieldError`]).

use std::fmt;

/// Where in the input a problem is.
#[derive(Clone, Debug, PartialEq)]
pub enum Location {
    /// The file as a whole (its header, its structure).
    File,
    /// A 1-based line of a text file.
    Line(u64),
    /// A 1-based data row of a Parquet file.
    Row(u64),
    /// A contest, by its name or file.
    Contest(String),
}

/// A bad input: file, place, field and what is wrong, in one line.
#[derive(Clone, Debug, PartialEq)]
pub struct InputError {
    /// The input file (or folder member) as the user would find it.
    pub file: String,
    /// Where in it.
    pub at: Location,
    /// The field (column, tag, JSON key), when one is to blame.
    pub field: Option<String>,
    /// What is wrong.
    pub message: String,
}

impl fmt::Display for InputError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.file)?;
        match &self.at {
            Location::File => {}
            Location::Line(l) => write!(f, ", line {l}")?,
            Location::Row(r) => write!(f, ", row {r}")?,
            Location::Contest(c) => write!(f, ", contest {c}")?,
        }
        if let Some(field) = &self.field {
            write!(f, ", field `{field}`")?;
        }
        write!(f, ": {}", self.message)
    }
}

impl std::error::Error for InputError {}

impl InputError {
    /// An error at `at` in `file`, about `field` when one is to blame.
    pub fn new(
        file: impl fmt::Display,
        at: Location,
        field: Option<String>,
        message: impl Into<String>,
    ) -> Self {
        let (file, message) = (file.to_string(), message.into());
        InputError {
            file,
            at,
            field,
            message,
        }
    }

    /// An error about a file as a whole (no line, no field).
    pub fn whole_file(file: impl fmt::Display, message: impl Into<String>) -> Self {
        Self::new(file, Location::File, None, message)
    }

    /// An input that holds no contest to rate, with what was read and skipped.
    pub fn nothing_to_rate(src: &crate::history::SourceInfo) -> Self {
        Self::whole_file(
            src.path.clone(),
            format!(
                "no contest to rate ({} {} read, {} skipped)",
                src.records,
                src.record_unit,
                src.skipped_invalid + src.skipped_unfinished
            ),
        )
    }
}

/// A problem with one field, before the reader adds file and place.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct FieldError {
    pub field: Option<String>,
    pub message: String,
}

/// The longest field name or message an error keeps: a hostile value (a field of megabytes)
/// quoted in a message is cut in its middle, so that the error stays readable.
const MAX_ERROR_TEXT: usize = 600;

/// `text`, or its first and last `MAX_ERROR_TEXT / 2` characters around a note of how many
/// were left out.
fn capped(text: String) -> String {
    let n = text.chars().count();
    if n <= MAX_ERROR_TEXT {
        return text;
    }
    let half = MAX_ERROR_TEXT / 2;
    let head: String = text.chars().take(half).collect();
    let tail: String = text.chars().skip(n - half).collect();
    format!("{head}[... {} characters left out ...]{tail}", n - 2 * half)
}

impl FieldError {
    pub fn new(field: &str, message: impl Into<String>) -> Self {
        Self {
            field: Some(capped(field.to_string())),
            message: capped(message.into()),
        }
    }
    pub fn whole(message: impl Into<String>) -> Self {
        Self {
            field: None,
            message: capped(message.into()),
        }
    }
}

/// A contest's origin as [`crate::history::HistoryBuilder::mark_origins`] keeps it: the
/// file's number among the inputs read (from 1), whether the place is a row (Parquet) or a
/// line, and its number; 0 (not said) for another place.
pub(crate) fn origin(file: usize, at: &Location) -> u64 {
    let (row, n) = match at {
        Location::Line(l) => (0, *l),
        Location::Row(r) => (1, *r),
        _ => return 0,
    };
    if file == 0 || file >= 1 << 22 || n >= 1 << 40 {
        return 0;
    }
    ((file as u64) << 41) | (row << 40) | n
}

/// Where a contest was found: its file and line or row, when its reader said.
pub fn origin_of(
    source: &crate::history::SourceInfo,
    origin: Option<u64>,
) -> Option<(String, Location)> {
    let o = origin?;
    let file = source
        .origin_files
        .get(usize::try_from(o >> 41).ok()?.checked_sub(1)?)?;
    let n = o & ((1 << 40) - 1);
    let at = if o >> 40 & 1 == 1 {
        Location::Row(n)
    } else {
        Location::Line(n)
    };
    Some((file.clone(), at))
}

/// Refuses a folder's member named as a data file that is not a regular file (nor a link to
/// one): a FIFO, a device, a socket or a folder. A path whose metadata cannot be read passes,
/// so that reading it names the problem.
pub(crate) fn not_a_file(path: &std::path::Path) -> Result<(), InputError> {
    use std::os::unix::fs::FileTypeExt;
    let Ok(m) = std::fs::metadata(path) else {
        return Ok(());
    };
    let t = m.file_type();
    let what = if m.is_file() {
        return Ok(());
    } else if t.is_fifo() {
        "a FIFO"
    } else if t.is_char_device() || t.is_block_device() {
        "a device"
    } else if t.is_socket() {
        "a socket"
    } else if t.is_dir() {
        "a folder"
    } else {
        "not a regular file"
    };
    Err(InputError::whole_file(
        path.display(),
        format!(
            "{what}, named as a data file of the folder: only regular files (or links to them) \
             are read; move it out of the folder"
        ),
    ))
}

/// A JSON error as an input error naming its line: truncated JSON, or `what` the file is not.
pub(crate) fn json_error_as(
    file: &std::path::Path,
    e: &serde_json::Error,
    what: &str,
) -> InputError {
    let message = match e.classify() {
        serde_json::error::Category::Eof => format!("truncated JSON ({e})"),
        _ => format!("{what} ({e})"),
    };
    let at = match e.line() {
        0 => Location::File,
        l => Location::Line(l as u64),
    };
    InputError::new(file.display(), at, None, message)
}
