//! `--shard K/N` and `--merge` of `tune` and `compare`: a sweep (of parameter sets, of
//! systems) cut into N deterministic slices that run anywhere (N processes, a job array, a
//! cluster; each with an output folder of its own), merged into exactly the result of one run.
//!
//! Shard K of N takes the items `i` with `i % N == K - 1` (every shard gets items from the
//! whole list: similar work each) and writes `WHAT-shard-K-of-N.json`: the job's key, its
//! number, and its items with their indices (numbers in their shortest exact form, so that
//! they read back to the same values). `--merge` takes the N files (or folders holding them),
//! checks that each was made by the same job (the key: for `tune` the system, grid, base
//! parameters, random draws and seed, metric, fraction, period, decay, ties; and the input's
//! name and size), that every item is in exactly one shard, and goes on as one run does.
//!
//! `tune`'s items are its parameter sets, scored on the tuning slice with every metric
//! ([`merge`] ranks them, then the best set and the defaults are replayed on the held-out
//! contests: `tune.csv` is the same, byte for byte); `compare`'s are in
//! [`super::compare_shard`].

use super::errors::UsageError;
use crate::ingest::InputError;
use crate::metrics::MetricsReport;
use crate::output::Publication;
use crate::systems::ParamMap;
use serde_json::{Value, json};
use std::io::{self, Write};
use std::path::{Path, PathBuf};

/// A set's metrics on the tuning slice, or why its ratings ran away.
pub type Outcome = Result<MetricsReport, String>;

/// The file shard `k` of `n` of a `what` job writes.
pub fn file_name(what: &str, k: usize, n: usize) -> String {
    format!("{what}-shard-{k}-of-{n}.json")
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

/// Writes shard `k` of `n` of a `what` job into `staged` (the job's `key`, then `fields`),
/// publishes it in `out` and, unless `done` is `None` (quiet), says what the shard did and
/// the files it wrote in `out`.
pub(crate) fn publish(
    staged: Publication,
    out: &Path,
    (what, k, n): (&str, usize, usize),
    key: &Value,
    fields: Vec<(&str, Value)>,
    done: Option<String>,
    stdout: &mut dyn Write,
) -> anyhow::Result<()> {
    let mut doc = serde_json::Map::new();
    doc.insert(format!("rate_batch_{what}_shard"), json!(1));
    doc.insert("job".into(), exact(key));
    doc.insert("shard".into(), json!([k, n]));
    doc.extend(fields.into_iter().map(|(name, v)| (name.to_string(), v)));
    let name = file_name(what, k, n);
    super::write_file(&staged.root(), &name, |w| {
        serde_json::to_writer(&mut *w, &doc).map_err(io::Error::other)?;
        w.write_all(b"\n")
    })?;
    let written = staged.commit()?;
    if let Some(done) = done {
        let files = super::shown(written.iter().filter(|p| p.parent() == Some(out)));
        writeln!(
            stdout,
            "{what} shard {k}/{n}: {done}; merge the {n} shards with --merge\nWrote {}",
            files.join(", ")
        )?;
    }
    Ok(())
}

/// `tune`'s shard: each set's entry (index, parameters, and its metrics or why it failed).
pub(crate) fn trials(indices: &[usize], mine: &[ParamMap], outcomes: &[Outcome]) -> Value {
    let trials = indices.iter().zip(mine).zip(outcomes);
    trials
        .map(|((i, params), outcome)| {
            let (tuning, failed) = (outcome.as_ref().ok(), outcome.as_ref().err());
            exact(&json!({"index": i, "params": params, "tuning": tuning, "failed": failed}))
        })
        .collect()
}

/// The shard files `--merge` names: files, and the `WHAT-shard-*.json` of folders.
fn shard_files(what: &str, paths: &[PathBuf]) -> anyhow::Result<Vec<PathBuf>> {
    let prefix = format!("{what}-shard-");
    let mut files = Vec::new();
    for p in paths {
        if !p.is_dir() {
            files.push(p.clone());
            continue;
        }
        let shard = |f: &PathBuf| {
            let name = f.file_name().and_then(|n| n.to_str());
            name.is_some_and(|n| n.starts_with(&prefix) && n.ends_with(".json"))
        };
        let inside = std::fs::read_dir(p)?
            .filter_map(Result::ok)
            .map(|e| e.path());
        let mut inside: Vec<PathBuf> = inside.filter(shard).collect();
        inside.sort();
        files.extend(inside);
    }
    Ok(files)
}

/// The error of a shard file (or of a file beside it) that cannot be merged.
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
    let key = exact(key);
    let tag = format!("rate_batch_{what}_shard");
    let mut shards: Vec<Shard> = Vec::new();
    let mut of: Option<usize> = None;
    let mut seen = std::collections::BTreeSet::new();
    for file in shard_files(what, paths)? {
        let text = std::fs::read_to_string(&file)
            .map_err(|e| bad(&file, format!("cannot read the shard: {e}")))?;
        let doc: Value = serde_json::from_str(&text)
            .map_err(|e| bad(&file, format!("not a {what} shard: {e}")))?;
        if doc[tag.as_str()] != 1 {
            return Err(bad(&file, format!("not a {what} shard of this version")));
        }
        if doc["job"] != key {
            let differs: Vec<&str> = key
                .as_object()
                .into_iter()
                .flatten()
                .filter(|(k, v)| doc["job"][k.as_str()] != **v)
                .map(|(k, _)| k.as_str())
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
        if let Some(m) = of
            && m != n
        {
            return Err(bad(&file, format!("a shard of {n}, beside shards of {m}")));
        }
        of = Some(n);
        if !seen.insert(k) {
            return Err(bad(&file, format!("shard {k} of {n} is given twice")));
        }
        shards.push(Shard { file, k, n, doc });
    }
    let n = of.unwrap_or(0);
    let missing: Vec<String> = (1..=n)
        .filter(|k| !seen.contains(k))
        .map(|k| k.to_string())
        .collect();
    if n == 0 || !missing.is_empty() {
        let why = format!(
            "--merge: {} of the {n} shards are missing ({}); give every {what}-shard-K-of-{n}.json",
            missing.len(),
            missing.join(", ")
        );
        return Err(UsageError(why).into());
    }
    Ok(shards)
}

/// Every item of a sweep of `count` (a `noun`), read by `read` from its entry in the `list`
/// of the shard that holds it (the file, the index, the entry), in the sweep's order. `name`
/// names an item in the errors: in two entries (`twice` said of it), in none.
pub(crate) fn gather<T>(
    shards: &[Shard],
    (list, noun, count): (&str, &str, usize),
    (name, twice): (&dyn Fn(usize) -> String, &str),
    mut read: impl FnMut(&Path, usize, &Value) -> anyhow::Result<T>,
) -> anyhow::Result<Vec<T>> {
    let mut found: Vec<Option<T>> = (0..count).map(|_| None).collect();
    for Shard { file, k, n, doc } in shards {
        for entry in doc[list].as_array().into_iter().flatten() {
            let i = entry["index"]
                .as_u64()
                .map(|i| i as usize)
                .filter(|&i| i < count && in_shard(i, *k, *n))
                .ok_or_else(|| bad(file, format!("a {noun}'s index is not one of this shard's")))?;
            let item = read(file, i, entry)?;
            if found[i].replace(item).is_some() {
                return Err(bad(file, format!("{} {twice}", name(i))));
            }
        }
    }
    let found = found.into_iter().enumerate();
    found
        .map(|(i, item)| {
            item.ok_or_else(|| UsageError(format!("--merge: {} is in no shard", name(i))).into())
        })
        .collect()
}

/// Every set's outcome from the shards `paths` names, made by the sweep whose key is `key`, in
/// the sets' order.
pub fn merge(key: &Value, paths: &[PathBuf], sets: &[ParamMap]) -> anyhow::Result<Vec<Outcome>> {
    let shards = read_shards("tune", paths, key)?;
    let name = |i: usize| format!("set {i}");
    gather(
        &shards,
        ("trials", "set", sets.len()),
        (&name, "is scored twice"),
        |file, i, t| {
            if t["params"] != exact(&Value::Object(sets[i].clone())) {
                return Err(bad(
                    file,
                    format!("set {i} has other parameters than this sweep's"),
                ));
            }
            Ok(match (&t["failed"], &t["tuning"]) {
                (Value::String(why), _) => Err(why.clone()),
                (_, tuning) => Ok(serde_json::from_value::<MetricsReport>(numbers(tuning))
                    .map_err(|e| bad(file, format!("set {i}'s metrics: {e}")))?),
            })
        },
    )
}
