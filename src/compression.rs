//! The compressions rate-batch reads and writes, gzip and zstd: told apart by a file's first
//! bytes when reading (`ingest::source`), chosen by its name's last extension when writing
//! (the lab's `simulate pool`, `rate_batch_lab::compress`).

use std::path::{Path, PathBuf};

/// How a file is compressed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Compression {
    /// Plain.
    None,
    /// gzip (`.gz`; reading takes one member or several, as `cat a.gz b.gz` gives).
    Gzip,
    /// Zstandard (`.zst`; one frame or several).
    Zstd,
}

impl Compression {
    /// The compression whose magic number `head` begins with.
    pub fn of(head: &[u8]) -> Self {
        if head.starts_with(&[0x1f, 0x8b]) {
            Compression::Gzip
        } else if head.starts_with(&[0x28, 0xb5, 0x2f, 0xfd]) {
            Compression::Zstd
        } else {
            Compression::None
        }
    }

    /// The compression `path`'s last extension asks for (in any case).
    pub fn from_path(path: &Path) -> Self {
        let ext = path
            .extension()
            .and_then(|e| e.to_str())
            .map(str::to_ascii_lowercase);
        match ext.as_deref() {
            Some("gz" | "gzip") => Self::Gzip,
            Some("zst" | "zstd") => Self::Zstd,
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
}
