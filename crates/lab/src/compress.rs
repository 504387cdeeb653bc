//! Compression of a written file, chosen by its name's last extension: `.gz` (gzip, flate2's
//! default level) or `.zst` (zstd, level 3); any other name is written as is. (Reading
//! compressed inputs is the product's: `rate_batch::ingest::source`.)

use std::io::{self, BufWriter, Write};

pub use rate_batch::compression::Compression;

/// Runs `write` on a writer that compresses into `w` as `compression` says, and completes the
/// compressed stream (its last block and trailer) before returning.
pub fn write(
    compression: Compression,
    w: &mut dyn Write,
    write: impl FnOnce(&mut dyn Write) -> io::Result<()>,
) -> io::Result<()> {
    match compression {
        Compression::None => write(w),
        Compression::Gzip => through(
            flate2::write::GzEncoder::new(w, flate2::Compression::default()),
            write,
            |e| e.finish().map(drop),
        ),
        Compression::Zstd => through(zstd::stream::write::Encoder::new(w, 3)?, write, |e| {
            e.finish().map(drop)
        }),
    }
}

/// Runs `write` into an encoder through a buffer (the encoders compress each call's bytes:
/// small writes, a CSV line, are gathered first), then ends the encoder's stream.
fn through<E: Write>(
    encoder: E,
    write: impl FnOnce(&mut dyn Write) -> io::Result<()>,
    finish: impl FnOnce(E) -> io::Result<()>,
) -> io::Result<()> {
    const BUFFER: usize = 256 << 10;
    let mut b = BufWriter::with_capacity(BUFFER, encoder);
    write(&mut b)?;
    finish(b.into_inner().map_err(io::IntoInnerError::into_error)?)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn compressed_bytes_decompress_to_the_written_ones() {
        let text: Vec<u8> = (0..200_000u32).map(|i| (i % 251) as u8).collect();
        for c in [Compression::None, Compression::Gzip, Compression::Zstd] {
            let mut out = Vec::new();
            write(c, &mut out, |w| w.write_all(&text)).unwrap();
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
