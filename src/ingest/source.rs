//! Where an input's bytes come from: a file or standard input (`-`), decompressed as it is
//! read when its first bytes are those of gzip or zstd (whatever its name); and which files
//! an input names (several paths, or a folder of them).

use anyhow::Context as _;
use std::fs::File;
use std::io::{BufRead, BufReader, Cursor, Read};
use std::path::{Path, PathBuf};

/// The path that means standard input.
pub const STDIN: &str = "-";

/// The bytes of a file, or of the files of a folder (contest JSON); 0 for a pipe or a path
/// that cannot be read.
pub fn bytes_on_disk(path: &Path) -> u64 {
    let Ok(m) = std::fs::metadata(path) else {
        return 0;
    };
    if m.is_dir() {
        return std::fs::read_dir(path).map_or(0, |d| {
            d.flatten()
                .filter_map(|e| e.metadata().ok())
                .filter(std::fs::Metadata::is_file)
                .map(|m| m.len())
                .sum()
        });
    }
    if m.is_file() { m.len() } else { 0 }
}

/// True for `-`, standard input.
pub fn is_stdin(path: &Path) -> bool {
    path.as_os_str() == STDIN
}

pub use crate::compression::Compression;

/// Buffer of the text readers.
const BUFFER: usize = 1 << 20;

/// Opens an input for reading, decompressed if it is gzip or zstd.
pub fn open(path: &Path) -> anyhow::Result<Box<dyn BufRead + Send>> {
    let raw: Box<dyn Read + Send> = if is_stdin(path) {
        Box::new(std::io::stdin())
    } else {
        Box::new(File::open(path).with_context(|| format!("cannot open {}", path.display()))?)
    };
    let (head, raw) = peek(raw, 4).with_context(|| format!("cannot read {}", path.display()))?;
    let kind = Compression::of(&head);
    let plain = BufReader::with_capacity(BUFFER, Cursor::new(head).chain(raw));
    let (inner, what): (Box<dyn Read + Send>, _) = match kind {
        Compression::None => return Ok(Box::new(plain)),
        Compression::Gzip => (Box::new(flate2::read::MultiGzDecoder::new(plain)), "gzip"),
        Compression::Zstd => (
            Box::new(
                zstd::stream::read::Decoder::with_buffer(plain)
                    .with_context(|| format!("cannot read {}", path.display()))?,
            ),
            "zstd",
        ),
    };
    Ok(Box::new(Ahead::spawn(Damaged { inner, what })))
}

/// A reader whose bytes are produced ahead by a thread of their own: decompression on one
/// core while the reader parses on another. At most a few buffers are in flight; the thread
/// ends when the reader is dropped (its next send fails) or at the end of the input.
struct Ahead {
    rx: std::sync::mpsc::Receiver<std::io::Result<Vec<u8>>>,
    current: Vec<u8>,
    at: usize,
    done: bool,
}

impl Ahead {
    fn spawn<R: Read + Send + 'static>(mut inner: R) -> Self {
        let (tx, rx) = std::sync::mpsc::sync_channel(4);
        std::thread::spawn(move || {
            loop {
                // A whole buffer (a decoder gives little at a time), or the rest of the input.
                let mut buf = vec![0u8; BUFFER];
                let (filled, result) = fill(&mut inner, &mut buf);
                buf.truncate(filled);
                if filled > 0 && tx.send(Ok(buf)).is_err() {
                    return;
                }
                // The end of the input (an empty buffer), or its error, ends the thread.
                let last = match result {
                    Ok(()) if filled > 0 => continue,
                    Ok(()) => Ok(Vec::new()),
                    Err(e) => Err(e),
                };
                let _ = tx.send(last);
                break;
            }
        });
        Self {
            rx,
            current: Vec::new(),
            at: 0,
            done: false,
        }
    }
}

impl Read for Ahead {
    fn read(&mut self, out: &mut [u8]) -> std::io::Result<usize> {
        let n = self.fill_buf()?.read(out)?;
        self.consume(n);
        Ok(n)
    }
}

/// Buffered already: the decompressed chunks are read in place, not copied once more.
impl BufRead for Ahead {
    fn fill_buf(&mut self) -> std::io::Result<&[u8]> {
        while self.at == self.current.len() && !self.done {
            match self.rx.recv() {
                Ok(Ok(buf)) if buf.is_empty() => self.done = true,
                Ok(Ok(buf)) => {
                    self.current = buf;
                    self.at = 0;
                }
                Ok(Err(e)) => {
                    self.done = true;
                    return Err(e);
                }
                Err(_) => {
                    // Gone without its end mark: never taken for the end of the input.
                    self.done = true;
                    return Err(std::io::Error::other("the decompressing thread stopped"));
                }
            }
        }
        Ok(&self.current[self.at..])
    }

    fn consume(&mut self, n: usize) {
        self.at = (self.at + n).min(self.current.len());
    }
}

/// A decompressing reader whose errors say that the compressed data is damaged or cut short
/// (a decoder's own message, such as "unexpected end of file", says little on its own).
struct Damaged<R> {
    inner: R,
    what: &'static str,
}

impl<R: Read> Read for Damaged<R> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        self.inner.read(buf).map_err(|e| {
            std::io::Error::new(
                e.kind(),
                DamagedData(format!(
                    "its {} data is damaged or cut short ({e})",
                    self.what
                )),
            )
        })
    }
}

/// Compressed data that does not decompress: a bad input (exit 1), though it surfaces as a
/// read error.
#[derive(Debug)]
pub struct DamagedData(pub String);
crate::error_display!(DamagedData, self => "{}", self.0);

/// How `path` is compressed (plain for standard input, which is not looked at).
pub fn compression(path: &Path) -> Compression {
    if is_stdin(path) {
        return Compression::None;
    }
    let head = File::open(path).and_then(|f| peek(f, 4));
    head.map_or(Compression::None, |(head, _)| Compression::of(&head))
}

/// Reads up to `n` bytes (fewer only at the end), handing back the rest of the reader.
fn peek<R: Read>(mut r: R, n: usize) -> std::io::Result<(Vec<u8>, R)> {
    let mut head = vec![0u8; n];
    let (got, result) = fill(&mut r, &mut head);
    result?;
    head.truncate(got);
    Ok((head, r))
}

/// Reads into `buf` until it is full or the input ends: the bytes read, and the error that
/// stopped the reading, if one did.
fn fill(r: &mut impl Read, buf: &mut [u8]) -> (usize, std::io::Result<()>) {
    let mut filled = 0;
    while filled < buf.len() {
        match r.read(&mut buf[filled..]) {
            Ok(0) => break,
            Ok(n) => filled += n,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(e) => return (filled, Err(e)),
        }
    }
    (filled, Ok(()))
}

/// The extension that tells the format, in lower case: the last one, or the one before a
/// compression extension (`games.csv.gz` is a CSV).
pub fn format_extension(path: &Path) -> Option<String> {
    let content = Compression::from_path(path).content_path(path);
    let ext = content.extension()?.to_str()?;
    Some(ext.to_ascii_lowercase())
}

/// The data files of a folder that is not a contest JSON folder: CSV, TSV and PGN files
/// (plain or compressed), in name order, hidden files left out.
pub fn folder_files(dir: &Path) -> anyhow::Result<Vec<PathBuf>> {
    let mut files = Vec::new();
    for entry in std::fs::read_dir(dir).with_context(|| format!("cannot list {}", dir.display()))? {
        let entry = entry.with_context(|| format!("cannot list {}", dir.display()))?;
        let path = entry.path();
        let hidden = entry.file_name().to_string_lossy().starts_with('.');
        let data = matches!(
            format_extension(&path).as_deref(),
            Some("csv" | "tsv" | "pgn")
        );
        if !hidden && data {
            // (A FIFO or a device named as a data file is refused, never passed over.)
            super::errors::not_a_file(&path)?;
            files.push(path);
        }
    }
    files.sort();
    Ok(files)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write;

    #[test]
    fn compressed_inputs_read_as_the_plain_text() {
        let dir = tempfile::tempdir().unwrap();
        let text = "time,a,b,result\n2020-01-01,x,y,1\n".repeat(1000);
        let plain = dir.path().join("g.csv");
        std::fs::write(&plain, &text).unwrap();
        let gz = dir.path().join("g.data");
        let mut e = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
        e.write_all(text.as_bytes()).unwrap();
        // Two members, as `cat a.gz b.gz` makes: both are read.
        let mut bytes = e.finish().unwrap();
        let mut e = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
        e.write_all(b"2021-01-01,z,y,0\n").unwrap();
        bytes.extend(e.finish().unwrap());
        std::fs::write(&gz, bytes).unwrap();
        let zst = dir.path().join("g.csv.zst");
        std::fs::write(&zst, zstd::encode_all(text.as_bytes(), 3).unwrap()).unwrap();
        let read = |p: &Path| {
            let mut s = String::new();
            open(p).unwrap().read_to_string(&mut s).unwrap();
            s
        };
        assert_eq!(read(&plain), text);
        assert_eq!(read(&gz), text.clone() + "2021-01-01,z,y,0\n");
        assert_eq!(read(&zst), text);
        assert_eq!(compression(&gz), Compression::Gzip);
        assert_eq!(compression(&zst), Compression::Zstd);
        assert_eq!(compression(&plain), Compression::None);
        // Shorter than a magic number.
        let tiny = dir.path().join("t.csv");
        std::fs::write(&tiny, "a").unwrap();
        assert_eq!(read(&tiny), "a");
    }

    /// Several of the decompressing thread's buffers, and a reader dropped half-way.
    #[test]
    fn large_compressed_inputs_read_whole_across_buffers() {
        let dir = tempfile::tempdir().unwrap();
        let text: String = (0..200_000)
            .map(|i| format!("2020-01-01,p{i},q{i},1\n"))
            .collect();
        assert!(text.len() > 3 * BUFFER);
        let zst = dir.path().join("big.csv.zst");
        std::fs::write(&zst, zstd::encode_all(text.as_bytes(), 1).unwrap()).unwrap();
        let mut read = String::new();
        open(&zst).unwrap().read_to_string(&mut read).unwrap();
        assert!(read == text);
        let mut part = [0u8; 100];
        open(&zst).unwrap().read_exact(&mut part).unwrap();
        assert_eq!(&part[..], &text.as_bytes()[..100]);
    }

    #[test]
    fn the_format_extension_looks_through_compression() {
        for (p, e) in [
            ("a.csv", Some("csv")),
            ("a.PGN.zst", Some("pgn")),
            ("atp_2024.csv.gz", Some("csv")),
            ("a.gz", None),
            ("a", None),
        ] {
            assert_eq!(format_extension(Path::new(p)).as_deref(), e, "{p}");
        }
    }
}
