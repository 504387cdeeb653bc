//! Compression of a written file, chosen by its name's last extension: `.gz` (gzip, flate2's
//! default level) or `.zst` (zstd, level 3); any other name is written as is.

use std::io::{self, BufWriter, Write};
use std::path::{Path, PathBuf};

/// How a file is compressed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Compression {
    /// Not compressed.
    None,
    /// gzip (`.gz`).
    Gzip,
    /// Zstandard (`.zst`).
    Zstd,
}

impl Compression {
    /// The compression `path`'s last extension asks for (in any case).
    pub fn from_path(path: &Path) -> Self {
        let ext = path
            .extension()
            .and_then(|e| e.to_str())
            .map(str::to_ascii_lowercase);
        match ext.as_deref() {
            Some("gz") => Self::Gzip,
            Some("zst") => Self::Zstd,
            _ => Self::None,
        }
    }

    /// `path` without the compression's extension (`pool.pgn.zst` -> `pool.pgn`), whose own
    /// extension names the format of the content.
    pub fn content_path(self, path: &Path) -> PathBuf {
        match self {
            Self::None => path.to_path_buf(),
            Self::Gzip | Self::Zstd => path.with_extension(""),
        }
    }

    /// Runs `write` on a writer that compresses into `w`, and completes the compressed
    /// stream (its last block and trailer) before returning.
    pub fn write(
        self,
        w: &mut dyn Write,
        write: impl FnOnce(&mut dyn Write) -> io::Result<()>,
    ) -> io::Result<()> {
        // The encoders compress each call's bytes: small writes (a CSV line) are gathered
        // first.
        const BUFFER: usize = 256 << 10;
        match self {
            Self::None => write(w),
            Self::Gzip => {
                let encoder = flate2::write::GzEncoder::new(w, flate2::Compression::default());
                let mut b = BufWriter::with_capacity(BUFFER, encoder);
                write(&mut b)?;
                b.into_inner()
                    .map_err(io::IntoInnerError::into_error)?
                    .finish()?;
                Ok(())
            }
            Self::Zstd => {
                let encoder = zstd::stream::write::Encoder::new(w, 3)?;
                let mut b = BufWriter::with_capacity(BUFFER, encoder);
                write(&mut b)?;
                b.into_inner()
                    .map_err(io::IntoInnerError::into_error)?
                    .finish()?;
                Ok(())
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_last_extension_decides() {
        let c = |p: &str| Compression::from_path(Path::new(p));
        assert_eq!(c("pool.pgn.zst"), Compression::Zstd);
        assert_eq!(c("out/pool.csv.GZ"), Compression::Gzip);
        assert_eq!(c("pool.zst.pgn"), Compression::None);
        assert_eq!(c("pool"), Compression::None);
        let content = |p: &str| {
            let path = Path::new(p);
            Compression::from_path(path)
                .content_path(path)
                .to_str()
                .unwrap()
                .to_string()
        };
        assert_eq!(content("out/pool.pgn.zst"), "out/pool.pgn");
        assert_eq!(content("out/pool.csv"), "out/pool.csv");
    }

    #[test]
    fn compressed_bytes_decompress_to_the_written_ones() {
        let text: Vec<u8> = (0..200_000u32).map(|i| (i % 251) as u8).collect();
        for c in [Compression::None, Compression::Gzip, Compression::Zstd] {
            let mut out = Vec::new();
            c.write(&mut out, |w| w.write_all(&text)).unwrap();
            let back = match c {
                Compression::None => out.clone(),
                Compression::Gzip => {
                    let mut v = Vec::new();
                    io::Read::read_to_end(&mut flate2::read::GzDecoder::new(&out[..]), &mut v)
                        .unwrap();
                    v
                }
                Compression::Zstd => zstd::stream::decode_all(&out[..]).unwrap(),
            };
            assert_eq!(back, text, "{c:?}");
        }
    }
}
