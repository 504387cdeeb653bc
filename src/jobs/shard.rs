//! `tune --shard K/N` and `tune --merge` (and `compare`'s, [`read_shards`] shared): a sweep
//! cut into N deterministic slices that run anywhere (N processes, a job array, a cluster;
//! each with an output folder of its own), merged into exactly the result of one run.
//!
//! Shard K of N scores the parameter sets `i` with `i % N == K - 1` (every shard gets sets
//! from the whole grid: similar work each) on the tuning slice, and writes them to
//! `tune-shard-K-of-N.json` with their indices, parameters and every metric (numbers in their
//! shortest exact form, so that they read back to the same values). `--merge` takes the N
//! files (or folders holding them), checks that each was made by the same job (system, grid,
//! base parameters, random draws and seed, metric, fraction, period, decay, ties, and the
//! input's name and size), that every set is scored exactly once with the parameters this job
//! gives it, then ranks them and replays the best set and the defaults on the held-out
//! contests as a single run does: `tune.csv` is the same, byte for byte.

use crate::ingest::InputError;
use crate::metrics::MetricsReport;
use crate::systems::ParamMap;
use serde_json::{Value, json};
use std::io::{self, Write};
use std::path::{Path, PathBuf};

/// A set's metrics on the tuning slice, or why its ratings ran away.
pub type Outcome = Result<MetricsReport, String>;

/// The file a shard writes.
pub fn file_name(k: usize, n: usize) -> String {
    format!("tune-shard-{k}-of-{n}.json")
}

/// Shard `k` of `n` (1-based `k`): the indices of its sets and the sets.
pub fn select(sets: &[ParamMap], k: usize, n: usize) -> (Vec<usize>, Vec<ParamMap>) {
    let indices = indices(sets.len(), k, n);
    let mine = indices.iter().map(|&i| sets[i].clone()).collect();
    (indices, mine)
}

/// Whether item `i` of a sweep (a parameter set, a system) is shard `k`'s of `n` (1-based
/// `k`): every N-th, so that each shard gets items from the whole list.
pub(crate) fn in_shard(i: usize, k: usize, n: usize) -> bool {
    i % n == k - 1
}

/// The indices of shard `k` of `n` among `len` items.
pub(crate) fn indices(len: usize, k: usize, n: usize) -> Vec<usize> {
    (0..len).filter(|&i| in_shard(i, k, n)).collect()
}

/// Numbers that are not integers as text in Rust's shortest exact form (serde_json's parser
/// may read a float one unit in the last place off; Rust's is exact), the rest as they are.
pub(crate) fn exact(v: &Value) -> Value {
    match v {
        Value::Number(n) if !(n.is_i64() || n.is_u64()) => {
            Value::String(n.as_f64().map_or_else(String::new, |f| format!("{f:?}")))
        }
        Value::Array(a) => Value::Array(a.iter().map(exact).collect()),
        Value::Object(o) => Value::Object(o.iter().map(|(k, v)| (k.clone(), exact(v))).collect()),
        other => other.clone(),
    }
}

/// [`exact`] read back: every string that is a number becomes that number again.
pub(crate) fn numbers(v: &Value) -> Value {
    match v {
        Value::String(s) => s
            .parse::<f64>()
            .ok()
            .and_then(serde_json::Number::from_f64)
            .map_or_else(|| v.clone(), Value::Number),
        Value::Array(a) => Value::Array(a.iter().map(numbers).collect()),
        Value::Object(o) => Value::Object(o.iter().map(|(k, v)| (k.clone(), numbers(v))).collect()),
        other => other.clone(),
    }
}

/// A job's key with its input's name and size and the number of further inputs (a shard read
/// elsewhere must have read the same input).
pub(crate) fn with_input(mut key: Value, input: &Path, more: usize) -> Value {
    let bytes = std::fs::metadata(input)
        .ok()
        .filter(std::fs::Metadata::is_file)
        .map(|m| m.len());
    key["input"] = json!(input.file_name().map(|f| f.to_string_lossy().into_owned()));
    key["input_bytes"] = json!(bytes);
    key["more_inputs"] = json!(more);
    key
}

/// Writes a shard's file.
pub fn write(
    w: &mut dyn Write,
    key: &Value,
    (k, n): (usize, usize),
    indices: &[usize],
    mine: &[ParamMap],
    outcomes: &[Outcome],
) -> io::Result<()> {
    let trials: Vec<Value> = indices
        .iter()
        .zip(mine)
        .zip(outcomes)
        .map(|((i, params), outcome)| {
            let (tuning, failed) = match outcome {
                Ok(m) => (
                    exact(&serde_json::to_value(m).unwrap_or(Value::Null)),
                    Value::Null,
                ),
                Err(why) => (Value::Null, Value::from(why.as_str())),
            };
            json!({"index": i, "params": exact(&Value::Object(params.clone())), "tuning": tuning, "failed": failed})
        })
        .collect();
    let doc = json!({
        "rate_batch_tune_shard": 1,
        "job": exact(key),
        "shard": [k, n],
        "trials": trials,
    });
    serde_json::to_writer(&mut *w, &doc).map_err(io::Error::other)?;
    w.write_all(b"\n")
}

/// The shard files `--merge` names: files, and the `WHAT-shard-*.json` of folders.
fn shard_files(what: &str, paths: &[PathBuf]) -> anyhow::Result<Vec<PathBuf>> {
    let prefix = format!("{what}-shard-");
    let mut files = Vec::new();
    for p in paths {
        if p.is_dir() {
            let mut inside: Vec<PathBuf> = std::fs::read_dir(p)?
                .filter_map(Result::ok)
                .map(|e| e.path())
                .filter(|f| {
                    f.file_name()
                        .and_then(|n| n.to_str())
                        .is_some_and(|n| n.starts_with(&prefix) && n.ends_with(".json"))
                })
                .collect();
            inside.sort();
            files.extend(inside);
        } else {
            files.push(p.clone());
        }
    }
    Ok(files)
}

pub(crate) fn bad(file: &Path, message: String) -> anyhow::Error {
    InputError::whole_file(file.display().to_string(), message).into()
}

/// One shard's file as `--merge` read it.
pub(crate) struct Shard {
    pub(crate) file: PathBuf,
    /// Shard `k` of `n` (1-based `k`).
    pub(crate) k: usize,
    pub(crate) n: usize,
    pub(crate) doc: Value,
}

/// Reads the shards of a `what` job (`tune`, `compare`) that `paths` name (files, or folders
/// holding `WHAT-shard-*.json`): each must be a shard of this version made by the job whose
/// key is `key` (the fields that differ are named), all of one N, each K once, none missing.
pub(crate) fn read_shards(
    what: &str,
    paths: &[PathBuf],
    key: &Value,
) -> anyhow::Result<Vec<Shard>> {
    let files = shard_files(what, paths)?;
    let tag = format!("rate_batch_{what}_shard");
    let mut shards: Vec<Shard> = Vec::new();
    let mut of: Option<usize> = None;
    let mut seen = std::collections::BTreeSet::new();
    for file in files {
        let text = std::fs::read_to_string(&file)
            .map_err(|e| bad(&file, format!("cannot read the shard: {e}")))?;
        let doc: Value = serde_json::from_str(&text)
            .map_err(|e| bad(&file, format!("not a {what} shard: {e}")))?;
        if doc[tag.as_str()] != 1 {
            return Err(bad(&file, format!("not a {what} shard of this version")));
        }
        if doc["job"] != *key {
            let differs: Vec<String> = key
                .as_object()
                .into_iter()
                .flatten()
                .filter(|(k, v)| doc["job"][k.as_str()] != **v)
                .map(|(k, _)| k.clone())
                .collect();
            return Err(bad(
                &file,
                format!(
                    "made by another {what} than this one (it differs in: {}): merge with the \
                     options and input the shards ran with",
                    differs.join(", ")
                ),
            ));
        }
        let (k, n) = match (doc["shard"][0].as_u64(), doc["shard"][1].as_u64()) {
            (Some(k), Some(n)) if k >= 1 && k <= n => (k as usize, n as usize),
            _ => return Err(bad(&file, "its shard number is not K of N".into())),
        };
        if of.is_some_and(|m| m != n) {
            return Err(bad(
                &file,
                format!("a shard of {n}, beside shards of {}", of.unwrap_or(0)),
            ));
        }
        of = Some(n);
        if !seen.insert(k) {
            return Err(bad(&file, format!("shard {k} of {n} is given twice")));
        }
        shards.push(Shard { file, k, n, doc });
    }
    let n = of.unwrap_or(0);
    let missing: Vec<usize> = (1..=n).filter(|k| !seen.contains(k)).collect();
    if n == 0 || !missing.is_empty() {
        return Err(super::errors::UsageError(format!(
            "--merge: {} of the {n} shards are missing ({}); give every {what}-shard-K-of-{n}.json",
            missing.len(),
            missing
                .iter()
                .map(ToString::to_string)
                .collect::<Vec<_>>()
                .join(", ")
        ))
        .into());
    }
    Ok(shards)
}

/// Every set's outcome from the shards `paths` names, made by the sweep whose key is `key`, in
/// the sets' order.
pub fn merge(key: &Value, paths: &[PathBuf], sets: &[ParamMap]) -> anyhow::Result<Vec<Outcome>> {
    let key = exact(key);
    let mut outcomes: Vec<Option<Outcome>> = vec![None; sets.len()];
    for Shard { file, k, n, doc } in read_shards("tune", paths, &key)? {
        let file = &file;
        for t in doc["trials"].as_array().into_iter().flatten() {
            let i = t["index"]
                .as_u64()
                .map(|i| i as usize)
                .filter(|&i| i < sets.len() && in_shard(i, k, n))
                .ok_or_else(|| bad(file, "a set's index is not one of this shard's".into()))?;
            if t["params"] != exact(&Value::Object(sets[i].clone())) {
                return Err(bad(
                    file,
                    format!("set {i} has other parameters than this sweep's"),
                ));
            }
            let outcome = match (&t["failed"], &t["tuning"]) {
                (Value::String(why), _) => Err(why.clone()),
                (_, tuning) => Ok(serde_json::from_value::<MetricsReport>(numbers(tuning))
                    .map_err(|e| bad(file, format!("set {i}'s metrics: {e}")))?),
            };
            if outcomes[i].replace(outcome).is_some() {
                return Err(bad(file, format!("set {i} is scored twice")));
            }
        }
    }
    outcomes
        .into_iter()
        .enumerate()
        .map(|(i, o)| {
            o.ok_or_else(|| {
                super::errors::UsageError(format!("--merge: set {i} is in no shard")).into()
            })
        })
        .collect()
}
