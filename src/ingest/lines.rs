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

/// The longest line a text input may have (CSV and PGN): far beyond any record of a history,
/// small enough that no single line can exhaust memory.
pub const MAX_LINE: u64 = 16 << 20;

/// The error a line longer than [`MAX_LINE`] raises (inside an `io::Error`).
#[derive(Debug)]
pub struct LineTooLong {
    /// The 1-based line.
    pub line: u64,
}

crate::error_display!(LineTooLong, self =>
    "line {} is longer than {} MiB, the most a line may hold", self.line, MAX_LINE >> 20);

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

/// Wraps a reader and notes where its newlines are; a line longer than [`MAX_LINE`] bytes
/// (its line feed left out) is an error, raised by the read that brings its end or its
/// [`MAX_LINE`]` + 1`-th byte, whatever the sizes of the reads.
pub struct Counting<R> {
    inner: R,
    offset: u64,
    ahead: Rc<RefCell<VecDeque<(u64, bool)>>>,
    /// Line feeds passed, and the offset just after the last one.
    lfs: u64,
    line_start: u64,
}

/// Answers the line of a byte offset, for offsets that never decrease.
pub struct Lines {
    ahead: Rc<RefCell<VecDeque<(u64, bool)>>>,
    before: u64,
}

/// A reader that counts lines, and the counter to ask.
pub fn counting<R: Read>(inner: R) -> (Counting<R>, Lines) {
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
    };
    (reader, lines)
}

impl<R: Read> Read for Counting<R> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let n = self.inner.read(buf)?;
        let mut ahead = self.ahead.borrow_mut();
        let too_long =
            |line| std::io::Error::new(std::io::ErrorKind::InvalidData, LineTooLong { line });
        for i in memchr::memchr2_iter(b'\n', b'\r', &buf[..n]) {
            let lf = buf[i] == b'\n';
            ahead.push_back((self.offset + i as u64, lf));
            if lf {
                // A line is too long whatever the reads it came in: checked at its end too.
                let end = self.offset + i as u64;
                if end - self.line_start > MAX_LINE {
                    return Err(too_long(self.lfs + 1));
                }
                self.lfs += 1;
                self.line_start = end + 1;
            }
        }
        self.offset += n as u64;
        if self.offset - self.line_start > MAX_LINE {
            return Err(too_long(self.lfs + 1));
        }
        Ok(n)
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
        let (reader, mut lines) = counting(text.as_bytes());
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
