//! `metrics.json` (and the other JSON documents), pretty-printed.

use std::io::{self, Write};

/// `metrics.json`, pretty-printed.
pub fn write_metrics<T: serde::Serialize>(w: &mut dyn Write, doc: &T) -> io::Result<()> {
    serde_json::to_writer_pretty(&mut *w, doc).map_err(io::Error::other)?;
    w.write_all(b"\n")
}

/// `metrics.json`.
pub struct Metrics;

impl super::Output for Metrics {
    fn names(&self) -> &'static [&'static str] {
        &["metrics.json"]
    }

    fn wanted(&self, _: &super::Replayed) -> Vec<&'static str> {
        vec!["metrics.json"]
    }

    fn write(&self, _: &str, done: &super::Replayed, w: &mut dyn Write) -> io::Result<()> {
        write_metrics(w, done.metrics)
    }
}
