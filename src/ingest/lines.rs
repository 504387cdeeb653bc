//! Physical line numbers for CSV records. The csv crate's `Position::line` is one short after
//! every CRLF record end (BurntSushi/rust-csv#395) and does not count blank lines, and its
//! record start byte is where the parser began: at the blank lines skipped before the record,
//! or at the LF of the previous CRLF. So a reader wrapper notes the offsets of the line-end
//! bytes (CR and LF) it passes on, and a record's line is one plus the LFs before its first
//! byte that is not a line end. Only the line ends read ahead of the parser are kept, so memory
//! stays bounded by the buffers whatever the file's size.

use std::cell::RefCell;
use std::collections::VecDeque;
use std::io::Read;
use std::rc::Rc;

/// The longest line a text input may have (CSV and PGN; for a CSV, the longest record, whose
/// quoted fields may hold line breaks): far beyond any record of a history, small enough that
/// no single line can exhaust memory.
pub const MAX_LINE: u64 = 16 << 20;

/// The error a line longer than [`MAX_LINE`] raises (inside an `io::Error`).
#[derive(Debug)]
pub struct LineTooLong {
    /// The 1-based line (a CSV record's first).
    pub line: u64,
}

crate::error_display!(LineTooLong, self =>
    "line {} is longer than {} MiB, the most a line (or a record with its quoted line breaks) \
     may hold", self.line, MAX_LINE >> 20);

/// The line of a [`LineTooLong`] inside an I/O error, if that is what it is.
pub fn too_long(e: &std::io::Error) -> Option<u64> {
    e.get_ref()?.downcast_ref::<LineTooLong>().map(|l| l.line)
}

/// What a text input's first bytes say it is when it is no text at all: a compressed file, an
/// archive or UTF-16 text, which would otherwise be reported as invalid UTF-8 (or, in PGN,
/// read as Latin-1 junk). `None` for anything else. None of these magic numbers holds a line
/// feed, so the first line of a file holds the whole of its magic.
pub fn not_text(head: &[u8]) -> Option<&'static str> {
    const KINDS: [(&[u8], &str); 6] = [
        (
            b"\x1f\x8b",
            "looks like a gzip-compressed file; decompress it first (gunzip)",
        ),
        (
            b"\x28\xb5\x2f\xfd",
            "looks like a zstd-compressed file; decompress it first (unzstd)",
        ),
        (
            b"\xfd7zXZ\x00",
            "looks like an xz-compressed file; decompress it first (unxz)",
        ),
        (
            b"PK\x03\x04",
            "looks like a zip archive; extract the file from it first (unzip)",
        ),
        (
            b"\xff\xfe",
            "looks like UTF-16 text (a little-endian byte-order mark); save it as UTF-8 first",
        ),
        (
            b"\xfe\xff",
            "looks like UTF-16 text (a big-endian byte-order mark); save it as UTF-8 first",
        ),
    ];
    // bzip2: `BZh`, the block size 1-9, then the magic of a block (the digits of pi) or of the
    // stream's end, so that a text that begins with `BZh` is not taken for one.
    if head.len() >= 10
        && head.starts_with(b"BZh")
        && (b'1'..=b'9').contains(&head[3])
        && matches!(
            &head[4..10],
            b"\x31\x41\x59\x26\x53\x59" | b"\x17\x72\x45\x38\x50\x90"
        )
    {
        return Some("looks like a bzip2-compressed file; decompress it first (bunzip2)");
    }
    KINDS
        .iter()
        .find(|(magic, _)| head.starts_with(magic))
        .map(|(_, what)| *what)
}

/// Wraps a reader and notes where its newlines are; a record longer than [`MAX_LINE`] bytes
/// (its line feed left out) is an error, raised by the read that brings its end or its
/// [`MAX_LINE`]` + 1`-th byte, whatever the sizes of the reads. A record is a line, but for
/// the line feeds inside a quoted field (quoted as the csv crate reads: a `"` that opens a
/// field, `""` within it), which do not end it.
pub struct Counting<R> {
    inner: R,
    offset: u64,
    ahead: Rc<RefCell<VecDeque<(u64, bool)>>>,
    /// Line feeds passed; the offset where the record being read began, and its line.
    lfs: u64,
    line_start: u64,
    record_line: u64,
    /// The fields' delimiter; whether a quoted field is open, and the offset of the last
    /// quote in one (its end, unless a quote follows at once); the last byte passed on.
    delimiter: u8,
    quoted: bool,
    quote_at: Option<u64>,
    last: u8,
}

/// Answers the line of a byte offset, for offsets that never decrease.
pub struct Lines {
    ahead: Rc<RefCell<VecDeque<(u64, bool)>>>,
    before: u64,
}

/// A reader of a CSV whose fields `delimiter` parts that counts lines, and the counter to ask.
pub fn counting<R: Read>(inner: R, delimiter: u8) -> (Counting<R>, Lines) {
    let ahead = Rc::new(RefCell::new(VecDeque::new()));
    let lines = Lines {
        ahead: Rc::clone(&ahead),
        before: 0,
    };
    let reader = Counting {
        inner,
        offset: 0,
        ahead,
        lfs: 0,
        line_start: 0,
        record_line: 1,
        delimiter,
        quoted: false,
        quote_at: None,
        last: b'\n',
    };
    (reader, lines)
}

impl<R: Read> Read for Counting<R> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let n = self.inner.read(buf)?;
        let ahead = Rc::clone(&self.ahead);
        let mut ahead = ahead.borrow_mut();
        let too_long =
            |line| std::io::Error::new(std::io::ErrorKind::InvalidData, LineTooLong { line });
        for i in memchr::memchr3_iter(b'\n', b'\r', b'"', &buf[..n]) {
            let at = self.offset + i as u64;
            if buf[i] == b'"' {
                self.quote(at, if i > 0 { buf[i - 1] } else { self.last });
                continue;
            }
            // A line end after a quoted field's last quote: the field is closed.
            if self.quote_at.take().is_some() {
                self.quoted = false;
            }
            let lf = buf[i] == b'\n';
            ahead.push_back((at, lf));
            if lf {
                self.lfs += 1;
                // A record is too long whatever the reads it came in: checked at its end too.
                if !self.quoted {
                    if at - self.line_start > MAX_LINE {
                        return Err(too_long(self.record_line));
                    }
                    self.line_start = at + 1;
                    self.record_line = self.lfs + 1;
                }
            }
        }
        self.offset += n as u64;
        if n > 0 {
            self.last = buf[n - 1];
        }
        if self.offset - self.line_start > MAX_LINE {
            return Err(too_long(self.record_line));
        }
        Ok(n)
    }
}

impl<R> Counting<R> {
    /// A quote at offset `at`, the byte before it `before`: it opens a field at the field's
    /// start; in a quoted field it is the field's end, or with the quote right after it one
    /// quote of the text.
    fn quote(&mut self, at: u64, before: u8) {
        match self.quote_at.take() {
            Some(q) if q + 1 == at => {}
            Some(_) => {
                self.quoted = false;
                self.quote(at, before);
            }
            None if self.quoted => self.quote_at = Some(at),
            None => {
                self.quoted = matches!(before, b'\n' | b'\r') || before == self.delimiter;
            }
        }
    }
}

impl Lines {
    /// The 1-based line of a record whose parse began at byte `offset`: line ends from there
    /// on (blank lines, the LF of a CRLF) come before the record itself.
    pub fn line_of(&mut self, offset: u64) -> u64 {
        let mut ahead = self.ahead.borrow_mut();
        let mut at = offset;
        while let Some(&(pos, lf)) = ahead.front() {
            if pos < at {
                ahead.pop_front();
            } else if pos == at {
                ahead.pop_front();
                at += 1;
            } else {
                break;
            }
            self.before += lf as u64;
        }
        self.before + 1
    }

    /// The line of a record, from its position (0 when there is none).
    pub fn of(&mut self, position: Option<&csv::Position>) -> u64 {
        position.map_or(0, |p| self.line_of(p.byte()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// CRLF or LF ends, runs of blank lines and a quoted newline: every record's line is its
    /// physical line.
    #[test]
    fn records_get_their_physical_lines() {
        for text in [
            "h1,h2\r\na,1\r\n\r\nb,2\r\n\"c\nc\",3\r\n\r\n\r\nd,4\r\n",
            "h1,h2\na,1\n\nb,2\n\"c\nc\",3\n\n\nd,4\n",
        ] {
            physical_lines(text);
        }
    }

    /// A record longer than [`MAX_LINE`] is refused at its first line though its quoted field
    /// breaks it into short lines; as many bytes in short records are read, and so are they
    /// after a quote that opens no field (`5" tall`) and after quotes doubled in a quoted
    /// field, whatever the sizes of the reads.
    #[test]
    fn a_record_is_as_long_as_its_quoted_line_breaks_make_it() {
        let lines = "x".repeat(999) + "\n";
        let many = lines.repeat((MAX_LINE / 1000 + 10) as usize);
        let read = |text: &str, chunk: usize| -> Result<usize, u64> {
            let (reader, _) = counting(Chunked(text.as_bytes(), chunk), b',');
            let mut rdr = csv::ReaderBuilder::new().flexible(true).from_reader(reader);
            let mut rec = csv::ByteRecord::new();
            let mut n = 0;
            loop {
                match rdr.read_byte_record(&mut rec) {
                    Ok(true) => n += 1,
                    Ok(false) => return Ok(n),
                    Err(e) => match e.kind() {
                        csv::ErrorKind::Io(io) => return Err(too_long(io).unwrap()),
                        _ => panic!("{e}"),
                    },
                }
            }
        };
        for chunk in [1 << 16, 8191] {
            let quoted = format!("h1,h2\na,1\n\"{many}\",2\n");
            assert_eq!(read(&quoted, chunk), Err(3), "the record of line 3");
            let plain = format!("h1,h2\na,1\n{many}");
            assert!(read(&plain, chunk).is_ok());
            for opener in ["b,5\" tall\n", "\"c \"\"d\"\" e\",1\n", "\"f\"x,1\n"] {
                let text = format!("h1,h2\n{opener}{many}");
                assert!(read(&text, chunk).is_ok(), "{opener:?}");
            }
        }
    }

    /// A reader that gives at most `.1` bytes a read.
    struct Chunked<'a>(&'a [u8], usize);

    impl Read for Chunked<'_> {
        fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
            let n = self.0.len().min(self.1).min(buf.len());
            buf[..n].copy_from_slice(&self.0[..n]);
            self.0 = &self.0[n..];
            Ok(n)
        }
    }

    #[test]
    fn compressed_files_archives_and_utf16_are_told_by_their_first_bytes() {
        let bz = b"BZh91AY&SY\x00\x01";
        for (head, what) in [
            (&b"\x1f\x8b\x08\x00"[..], "gzip"),
            (b"\x28\xb5\x2f\xfd\x24", "zstd"),
            (b"\xfd7zXZ\x00\x00", "xz"),
            (bz, "bzip2"),
            (b"PK\x03\x04\x14", "zip"),
            (b"\xff\xfet\x00", "UTF-16"),
            (b"\xfe\xff\x00t", "UTF-16"),
        ] {
            let m = not_text(head).unwrap_or_else(|| panic!("{what}: not told"));
            assert!(m.contains(what), "{what}: {m}");
        }
        for text in [
            &b"time,a,b,result\n"[..],
            b"\xef\xbb\xbftime,a,b\n",
            b"BZh,a,b\n",
            b"BZh9 stands here\n",
            b"PK,a,b\n",
            b"",
            b"\x1f",
        ] {
            assert_eq!(not_text(text), None, "{text:?}");
        }
    }

    fn physical_lines(text: &str) {
        let (reader, mut lines) = counting(text.as_bytes(), b',');
        let mut rdr = csv::ReaderBuilder::new().from_reader(reader);
        let mut got = Vec::new();
        let mut rec = csv::StringRecord::new();
        while rdr.read_record(&mut rec).unwrap() {
            if rec.len() == 1 && rec.get(0) == Some("") {
                continue;
            }
            got.push((rec.get(0).unwrap().to_string(), lines.of(rec.position())));
        }
        let want = [("a", 2), ("b", 4), ("c\nc", 5), ("d", 9)];
        let want: Vec<(String, u64)> = want.iter().map(|(s, l)| (s.to_string(), *l)).collect();
        assert_eq!(got, want);
    }
}
