//! `compare --shard K/N` and `compare --merge`: a comparison of many systems cut into N
//! deterministic slices (shard K replays the systems `i` with `i % N == K - 1` of the
//! `--systems` list), merged into the comparison one run gives.
//!
//! A shard writes its systems' folders as `compare` does (`OUT/SYSTEM/`) and
//! `compare-shard-K-of-N.json`: the job's key (systems, parameters, every option that moves a
//! figure, the input's name and size), each of its systems' row (numbers in their shortest
//! exact form, see [`super::shard::exact`]) and, with `--ci`, the metrics of every bootstrap
//! replicate (the intervals compare systems pair by pair, so they are worked out at the
//! merge, over every system). `--merge` checks the shards as `tune --merge` does, writes
//! `compare.csv`, `compare.json` and `compare.md` from the rows in the `--systems` order and
//! copies each system's folder from beside its shard's file: the same files as one run, but
//! for the wall times, which are each shard's own.

use super::rows::{CompareRow, MetricCi};
use super::shard::{Shard, bad, exact, numbers, read_shards};
use crate::metrics::MetricsReport;
use crate::output::{Folder, open_no_follow};
use crate::systems::SystemKind;
use serde_json::{Value, json};
use std::io::{self, Write};
use std::path::Path;

/// The file a shard writes.
pub fn file_name(k: usize, n: usize) -> String {
    format!("compare-shard-{k}-of-{n}.json")
}

/// A shard's file: `rows` (with their indices in the whole `--systems` list and, with
/// `--ci`, their replicates' metrics) and the input as `compare.json` describes it.
pub fn write(
    w: &mut dyn Write,
    key: &Value,
    (k, n): (usize, usize),
    rows: &[(usize, CompareRow, Option<Vec<MetricsReport>>)],
    input: Value,
) -> io::Result<()> {
    let systems: Vec<Value> = rows
        .iter()
        .map(|(i, row, replicates)| {
            json!({
                "index": i,
                "row": exact(&serde_json::to_value(row).unwrap_or(Value::Null)),
                "replicates": replicates
                    .as_ref()
                    .map(|r| exact(&serde_json::to_value(r).unwrap_or(Value::Null))),
            })
        })
        .collect();
    let doc = json!({
        "rate_batch_compare_shard": 1,
        "job": exact(key),
        "shard": [k, n],
        "input": input,
        "systems": systems,
    });
    serde_json::to_writer(&mut *w, &doc).map_err(io::Error::other)?;
    w.write_all(b"\n")
}

/// What `--merge` gathered: every system's row (in the `--systems` order), its replicates'
/// metrics with `--ci`, the folder of its files, and the input as the first shard described
/// it.
pub struct Merged {
    pub rows: Vec<CompareRow>,
    pub replicates: Vec<Option<Vec<MetricsReport>>>,
    pub folders: Vec<std::path::PathBuf>,
    pub input: Value,
}

/// Reads the shards `paths` names, made by the comparison whose key is `key` of `systems`.
pub fn merge(
    key: &Value,
    paths: &[std::path::PathBuf],
    systems: &[SystemKind],
) -> anyhow::Result<Merged> {
    let key = exact(key);
    let count = systems.len();
    let mut rows: Vec<Option<CompareRow>> = vec![None; count];
    let mut replicates: Vec<Option<Vec<MetricsReport>>> = vec![None; count];
    let mut folders = vec![std::path::PathBuf::new(); count];
    let mut input = Value::Null;
    let mut shards = read_shards("compare", paths, &key)?;
    shards.sort_by_key(|s| s.k);
    for Shard { file, k, n, doc } in shards {
        let file = &file;
        if input.is_null() {
            input = doc["input"].clone();
        }
        for s in doc["systems"].as_array().into_iter().flatten() {
            let i = s["index"]
                .as_u64()
                .map(|i| i as usize)
                .filter(|&i| i < count && super::shard::in_shard(i, k, n))
                .ok_or_else(|| bad(file, "a system's index is not one of this shard's".into()))?;
            let kind = systems[i];
            let row = row_from(kind, &numbers(&s["row"])).ok_or_else(|| {
                bad(
                    file,
                    format!("{}'s row is not one compare wrote", kind.name()),
                )
            })?;
            if row.failed.is_none() {
                let dir = file.parent().unwrap_or(Path::new(".")).join(kind.name());
                if !dir.is_dir() {
                    return Err(bad(
                        file,
                        format!(
                            "{}'s folder is not beside it ({}): give the shards' output folders \
                             as they were written",
                            kind.name(),
                            dir.display()
                        ),
                    ));
                }
                folders[i] = dir;
            }
            if !s["replicates"].is_null() {
                let r = serde_json::from_value::<Vec<MetricsReport>>(numbers(&s["replicates"]))
                    .map_err(|e| bad(file, format!("{}'s replicates: {e}", kind.name())))?;
                replicates[i] = Some(r);
            }
            if rows[i].replace(row).is_some() {
                return Err(bad(file, format!("{} is in two shards", kind.name())));
            }
        }
    }
    let rows = rows
        .into_iter()
        .enumerate()
        .map(|(i, r)| {
            r.ok_or_else(|| {
                super::errors::UsageError(format!("--merge: {} is in no shard", systems[i].name()))
                    .into()
            })
        })
        .collect::<anyhow::Result<Vec<_>>>()?;
    Ok(Merged {
        rows,
        replicates,
        folders,
        input,
    })
}

/// A row as a shard wrote it (its intervals are worked out again at the merge).
fn row_from(kind: SystemKind, v: &Value) -> Option<CompareRow> {
    let opt = |name: &str| -> Option<Option<f64>> {
        match &v[name] {
            Value::Null => Some(None),
            x => x.as_f64().map(Some),
        }
    };
    let num = |name: &str| -> Option<f64> {
        match &v[name] {
            // Not finite (a replay too short to time) is written as null.
            Value::Null => Some(f64::NAN),
            x => x.as_f64(),
        }
    };
    if v["system"] != kind.name() {
        return None;
    }
    Some(CompareRow {
        system: kind.name(),
        pair_inversion_all: opt("pair_inversion_all")?,
        pair_inversion_experienced: opt("pair_inversion_experienced")?,
        rank_deviation_all: opt("rank_deviation_all")?,
        rank_deviation_experienced: opt("rank_deviation_experienced")?,
        log_loss: opt("log_loss")?,
        brier: opt("brier")?,
        accuracy: opt("accuracy")?,
        log_loss_3: opt("log_loss_3")?,
        wall_seconds: num("wall_seconds")?,
        rounds_per_second: num("rounds_per_second")?,
        peak_rounds_per_second: num("peak_rounds_per_second")?,
        failed: v["failed"].as_str().map(str::to_string),
        refused: v["refused"].as_str().map(str::to_string),
        warnings: match &v["warnings"] {
            Value::Null => Vec::new(),
            Value::Array(a) => a
                .iter()
                .map(|w| w.as_str().map(str::to_string))
                .collect::<Option<_>>()?,
            _ => return None,
        },
        intervals: Vec::<MetricCi>::new(),
    })
}

/// Copies a shard's system folder (its regular files; nothing through a link) into `to`.
pub fn copy_folder(from: &Path, to: &Folder) -> anyhow::Result<()> {
    let mut names: Vec<String> = Vec::new();
    for entry in std::fs::read_dir(from)? {
        let entry = entry?;
        let kind = entry.file_type()?;
        let name = entry.file_name().to_string_lossy().into_owned();
        if !kind.is_file() {
            return Err(bad(
                &entry.path(),
                "not a regular file: a shard's system folder holds only the files compare \
                 wrote"
                    .into(),
            ));
        }
        names.push(name);
    }
    names.sort();
    for name in names {
        let mut src = open_no_follow(&from.join(&name))?;
        to.write(&name, |w| io::copy(&mut src, w).map(drop))?;
    }
    Ok(())
}
