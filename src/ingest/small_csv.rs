//! What the small side files share (`--initial-ratings`, `--truth`, the matchmaking pool): a
//! CSV with a header, columns found by name (any case, any order), every record with its line
//! number, a non-empty `player`, and errors that name the file, line and field. Fields are
//! given as they are (a name keeps its whitespace; numbers are trimmed by their readers), and
//! names are matched to the history's with [`crate::history::NameIndex`].

use super::errors::{InputError, Location};

/// An open side file.
pub struct SmallCsv {
    file: String,
    reader: csv::Reader<super::lines::Counting<std::fs::File>>,
    headers: csv::StringRecord,
    lines: super::lines::Lines,
}

impl SmallCsv {
    /// Opens a file and reads its header.
    pub fn open(path: &std::path::Path) -> Result<Self, InputError> {
        let file = path.display().to_string();
        let f = std::fs::File::open(path)
            .map_err(|e| error(&file, 0, None, format!("cannot read: {e}")))?;
        let (counting, lines) = super::lines::counting(f, b',');
        let mut reader = csv::ReaderBuilder::new()
            .trim(csv::Trim::Headers)
            .from_reader(counting);
        let headers = reader
            .headers()
            .map_err(|e| error(&file, 1, None, format!("unreadable header: {e}")))?
            .clone();
        Ok(Self {
            file,
            reader,
            headers,
            lines,
        })
    }

    /// The index of a column, if the header has it.
    pub fn column(&self, name: &str) -> Option<usize> {
        self.headers
            .iter()
            .position(|h| h.eq_ignore_ascii_case(name))
    }

    /// An error about the file (`line` 0: the file as a whole, 1: the header).
    pub fn error(&self, line: u64, field: Option<&str>, message: String) -> InputError {
        error(&self.file, line, field, message)
    }

    /// The column `name`, or an error saying what the file should hold.
    pub fn require(&self, name: &str, expected: &str) -> Result<usize, InputError> {
        self.column(name).ok_or_else(|| {
            self.error(
                1,
                None,
                format!("missing column `{name}` (expected {expected})"),
            )
        })
    }

    /// Calls `each` with every record's line number, its non-empty `player` field (from column
    /// `player`) and the record.
    pub fn for_each(
        mut self,
        player: usize,
        mut each: impl FnMut(&Self, u64, &str, &csv::StringRecord) -> Result<(), InputError>,
    ) -> Result<(), InputError> {
        let mut rec = csv::StringRecord::new();
        loop {
            match self.reader.read_record(&mut rec) {
                Ok(false) => return Ok(()),
                Ok(true) => {}
                Err(e) => {
                    let line = self.lines.of(e.position());
                    return Err(self.error(line, None, format!("unreadable record: {e}")));
                }
            }
            let line = self.lines.of(rec.position());
            let name = rec.get(player).unwrap_or("");
            if name.is_empty() {
                return Err(self.error(line, Some("player"), "empty player name".into()));
            }
            each(&self, line, name, &rec)?;
        }
    }
}

/// An error about `file` (`line` 0: the file as a whole).
fn error(file: &str, line: u64, field: Option<&str>, message: String) -> InputError {
    let at = if line == 0 {
        Location::File
    } else {
        Location::Line(line)
    };
    InputError::new(file, at, field.map(str::to_string), message)
}
