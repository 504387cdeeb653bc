//! `compare --shard K/N` and `compare --merge` (see [`super::shard`]): shard K replays the
//! systems `i` with `i % N == K - 1` of the `--systems` list.
//!
//! A shard writes its systems' folders as `compare` does (`OUT/SYSTEM/`) and
//! `compare-shard-K-of-N.json`: the job's key (systems, parameters, every option that moves a
//! figure, the input's name and size), the input as `compare.json` describes it, and each of
//! its systems' row and, with `--ci`, the metrics of every bootstrap replicate (the intervals
//! compare systems pair by pair, so they are worked out at the merge, over every system).
//! `--merge` writes `compare.csv`, `compare.json` and `compare.md` from the rows in the
//! `--systems` order and copies each system's folder from beside its shard's file: the same
//! files as one run, but for the wall times, which are each shard's own.

use super::rows::CompareRow;
use super::shard::{bad, exact, gather, numbers, read_shards};
use crate::metrics::MetricsReport;
use crate::output::{Folder, open_no_follow};
use serde_json::{Value, json};
use std::io;
use std::path::{Path, PathBuf};

/// A system's entry in its shard's file: its index in the whole `--systems` list, its row
/// and, with `--ci`, its replicates' metrics.
pub(crate) fn entry(i: usize, row: &CompareRow, replicates: Option<&Vec<MetricsReport>>) -> Value {
    exact(&json!({"index": i, "row": row, "replicates": replicates}))
}

/// A system as `--merge` found it: its row, the folder of its files beside its shard's (none
/// for a system that failed), and its replicates' metrics with `--ci`.
pub type Merged = (CompareRow, Option<PathBuf>, Option<Vec<MetricsReport>>);

/// Reads the shards `paths` names, made by the comparison whose key is `key` of `systems`:
/// every system (in the `--systems` order), and the input as the first shard described it.
pub fn merge(
    key: &Value,
    paths: &[PathBuf],
    systems: &[String],
) -> anyhow::Result<(Vec<Merged>, Value)> {
    let mut shards = read_shards("compare", paths, key)?;
    shards.sort_by_key(|s| s.k);
    let input = shards
        .iter()
        .map(|s| &s.doc["input"])
        .find(|i| !i.is_null());
    let input = input.cloned().unwrap_or(Value::Null);
    let name = |i: usize| systems[i].clone();
    let merged = gather(
        &shards,
        ("systems", "system", systems.len()),
        (&name, "is in two shards"),
        |file, i, s| {
            let kind = systems[i].as_str();
            // A row as a shard wrote it (its intervals are worked out again at the merge).
            let row = (s["row"]["system"] == kind)
                .then(|| serde_json::from_value::<CompareRow>(numbers(&s["row"])).ok())
                .flatten()
                .map(|row| CompareRow {
                    system: kind.to_string(),
                    ..row
                })
                .ok_or_else(|| bad(file, format!("{kind}'s row is not one compare wrote")))?;
            let dir = file.parent().unwrap_or(Path::new(".")).join(kind);
            let folder = row.failed.is_none().then_some(dir);
            if let Some(dir) = &folder
                && !dir.is_dir()
            {
                return Err(bad(
                    file,
                    format!(
                        "{kind}'s folder is not beside it ({}): give the shards' output folders \
                         as they were written",
                        dir.display()
                    ),
                ));
            }
            let replicates = match &s["replicates"] {
                Value::Null => None,
                r => Some(
                    serde_json::from_value::<Vec<MetricsReport>>(numbers(r))
                        .map_err(|e| bad(file, format!("{kind}'s replicates: {e}")))?,
                ),
            };
            Ok((row, folder, replicates))
        },
    )?;
    Ok((merged, input))
}

/// Copies a shard's system folder (its regular files; nothing through a link) into `to`.
pub fn copy_folder(from: &Path, to: &Folder) -> anyhow::Result<()> {
    let mut names: Vec<String> = Vec::new();
    for entry in std::fs::read_dir(from)? {
        let entry = entry?;
        if !entry.file_type()?.is_file() {
            return Err(bad(
                &entry.path(),
                "not a regular file: a shard's system folder holds only the files compare \
                 wrote"
                    .into(),
            ));
        }
        names.push(entry.file_name().to_string_lossy().into_owned());
    }
    names.sort();
    for name in names {
        let mut src = open_no_follow(&from.join(&name))?;
        to.write(&name, |w| io::copy(&mut src, w).map(drop))?;
    }
    Ok(())
}
