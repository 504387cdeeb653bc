//! `metrics.json` (and the other JSON documents), pretty-printed.

use std::io::{self, Write};

/// `metrics.json`, pretty-printed.
pub fn write_metrics<T: serde::Serialize>(w: &mut dyn Write, doc: &T) -> io::Result<()> {
    serde_json::to_writer_pretty(&mut *w, doc).map_err(io::Error::other)?;
    w.write_all(b"\n")
}
