//! Elo-MMR contest JSON: a folder of `N.json` files (N = 0, 1, 2, ...; other files, and
//! entries that are not regular files such as a FIFO, are ignored) or one file holding an
//! array of contests. A contest is
//! `{"name", "time_seconds", "weight"?, "standings": [[handle, lo, hi], ...]}` with 0-based
//! inclusive places `lo..=hi` (a shared place when `lo < hi`). Contests are ordered by
//! `time_seconds`, equal times by N as a number (by array position for one file).
//!
//! A JSON file that holds games instead (an array of objects without `standings`, or JSON
//! lines: lmarena's battles) is read as a games table ([`super::json_games`]).
//!
//! Files are read and parsed in parallel; players are then interned in contest order, so ids
//! do not depend on the number of threads. A streamed read takes the files a few at a time, in
//! the same order, and hands each contest on.

use super::context::Context;
use super::errors::{FieldError, InputError, Location};
use crate::history::PlayerId;
use anyhow::Context as _;
use rayon::prelude::*;
use serde::Deserialize;
use std::borrow::Cow;
use std::path::{Path, PathBuf};

#[derive(Deserialize)]
struct RawContest<'a> {
    name: Option<String>,
    time_seconds: i64,
    weight: Option<f64>,
    #[serde(borrow)]
    standings: Vec<(Cow<'a, str>, i64, i64)>,
}

/// The reader of contest JSON (and of JSON games, which it tells apart).
pub(crate) struct ContestJson;

impl super::Reader for ContestJson {
    /// Reads a folder of `N.json` contests or one JSON file (contests, or games).
    fn read(&self, path: &Path, ctx: &mut Context) -> anyhow::Result<()> {
        ctx.source.record_unit = "contests".into();
        if path.is_dir() {
            read_folder(path, ctx)
        } else {
            read_array(path, ctx)
        }
    }

    fn takes_time_format(&self) -> bool {
        false
    }

    fn extensions(&self) -> &'static [&'static str] {
        &["json", "jsonl", "ndjson"]
    }
}

/// The folder's contest files `N.json`, by N: regular files (or links to them) only.
pub(crate) fn numbered_files(dir: &Path) -> anyhow::Result<Vec<(u64, PathBuf)>> {
    let mut files = Vec::new();
    for entry in std::fs::read_dir(dir).with_context(|| format!("cannot list {}", dir.display()))? {
        let entry = entry.with_context(|| format!("cannot list {}", dir.display()))?;
        let name = entry.file_name();
        let Some(name) = name.to_str() else { continue };
        let Some(stem) = name.strip_suffix(".json") else {
            continue;
        };
        if stem.is_empty() || !stem.bytes().all(|b| b.is_ascii_digit()) {
            continue;
        }
        let Ok(n) = stem.parse::<u64>() else { continue };
        let path = entry.path();
        // A FIFO (or a device, a folder) named like a contest is not one, and opening a FIFO
        // would wait for a writer for ever: refused, named, never read nor passed over.
        super::errors::not_a_file(&path)?;
        files.push((n, path));
    }
    files.sort_unstable();
    Ok(files)
}

/// A file's bytes.
fn read_file(p: &Path) -> anyhow::Result<Vec<u8>> {
    std::fs::read(p).with_context(|| format!("cannot read {}", p.display()))
}

/// JSON parsed after a UTF-8 byte-order mark, which some editors write (JSON forbids it, but
/// CSV and PGN files with one are read too).
fn parse<'a, T: Deserialize<'a>>(bytes: &'a [u8]) -> serde_json::Result<T> {
    serde_json::from_slice(bytes.strip_prefix(b"\xef\xbb\xbf").unwrap_or(bytes))
}

fn json_error(file: &Path, e: &serde_json::Error) -> InputError {
    super::errors::json_error_as(file, e, "invalid contest JSON")
}

fn read_folder(dir: &Path, ctx: &mut Context) -> anyhow::Result<()> {
    let files = numbered_files(dir)?;
    if files.is_empty() {
        return Err(ctx.stop(
            Location::File,
            "the folder holds no contest files named N.json (0.json, 1.json, ...)",
        ));
    }
    if ctx.emit.is_some() || ctx.builder.count().is_some() {
        return stream_folder(&files, ctx);
    }
    // Each file read, parsed and checked on the pool's threads (its bytes dropped there), so
    // that only the interning is left to this one.
    let trim = ctx.opts.trim_names;
    let parsed: Vec<anyhow::Result<Result<(i64, Checked), serde_json::Error>>> =
        files
            .par_iter()
            .map(|(_, p)| {
                let bytes = read_file(p)?;
                Ok(parse::<RawContest>(&bytes)
                    .map(|c| (c.time_seconds, check(&file_name(p), c, trim))))
            })
            .collect();
    // A file that cannot be read stops the run before any that does not parse.
    let parsed: Vec<_> = parsed.into_iter().collect::<anyhow::Result<_>>()?;
    let mut good: Vec<(i64, u64, Checked)> = Vec::with_capacity(parsed.len());
    for (res, (n, p)) in parsed.into_iter().zip(&files) {
        ctx.source.records += 1;
        match res {
            Ok((t, c)) => good.push((t, *n, c)),
            Err(e) => ctx.skip_or_fail(json_error(p, &e))?,
        }
    }
    good.sort_by_key(|(t, n, _)| (*t, *n));
    for (_, _, c) in good {
        add_checked(ctx, c)?;
    }
    Ok(())
}

/// A contest file's name, which names its contest in messages and labels.
fn file_name(p: &Path) -> String {
    p.file_name()
        .map_or_else(String::new, |f| f.to_string_lossy().into_owned())
}

/// Files read and parsed at once by a streamed read (a few MiB of JSON).
const STREAM_FILES: usize = 64;

/// A streamed read of the folder, in the order of a whole read without holding it: a first
/// look parses every file (a few at a time, in parallel) for its time, reporting the files
/// that do not parse in the order of their numbers, as a whole read does; then the contests,
/// by time and number, are read and parsed again a few at a time and handed on as they are
/// added (their content's errors in the whole read's order too).
fn stream_folder(files: &[(u64, PathBuf)], ctx: &mut Context) -> anyhow::Result<()> {
    let mut order: Vec<(i64, u64, usize)> = Vec::with_capacity(files.len());
    for (b, batch) in files.chunks(STREAM_FILES).enumerate() {
        let times: Vec<anyhow::Result<Result<i64, serde_json::Error>>> = batch
            .par_iter()
            .map(|(_, p)| Ok(parse::<RawContest>(&read_file(p)?).map(|c| c.time_seconds)))
            .collect();
        for (k, (time, (n, p))) in times.into_iter().zip(batch).enumerate() {
            ctx.source.records += 1;
            match time? {
                Ok(t) => order.push((t, *n, b * STREAM_FILES + k)),
                Err(e) => ctx.skip_or_fail(json_error(p, &e))?,
            }
        }
    }
    order.sort_by_key(|&(t, n, _)| (t, n));
    for batch in order.chunks(STREAM_FILES) {
        let bytes: Vec<Vec<u8>> = batch
            .par_iter()
            .map(|&(_, _, i)| read_file(&files[i].1))
            .collect::<anyhow::Result<_>>()?;
        let trim = ctx.opts.trim_names;
        let parsed: Vec<Result<Checked, serde_json::Error>> = bytes
            .par_iter()
            .zip(batch)
            .map(|(b, &(_, _, i))| {
                parse::<RawContest>(b).map(|c| check(&file_name(&files[i].1), c, trim))
            })
            .collect();
        for (res, &(_, _, i)) in parsed.into_iter().zip(batch) {
            let p = &files[i].1;
            // It parsed a moment ago: a file rewritten since is an error.
            let c = res.map_err(|e| json_error(p, &e))?;
            let at = Location::Contest(file_name(p));
            add_checked(ctx, c)?;
            ctx.after_record(&at)?;
        }
    }
    Ok(())
}

fn read_array(path: &Path, ctx: &mut Context) -> anyhow::Result<()> {
    // Through the text opener: a `.json.gz` or `.json.zst` is detected as JSON, and read so.
    let mut bytes = Vec::new();
    std::io::Read::read_to_end(&mut super::source::open(path)?, &mut bytes)
        .with_context(|| format!("cannot read {}", path.display()))?;
    // An array of games (lmarena's battles), or JSON lines: a games table.
    if super::json_games::is_games(&bytes) {
        return super::json_games::read(path, &bytes, ctx);
    }
    let contests: Vec<RawContest> = parse(&bytes).map_err(|e| json_error(path, &e))?;
    let mut order: Vec<(usize, RawContest)> = contests.into_iter().enumerate().collect();
    order.sort_by_key(|(_, c)| c.time_seconds);
    for (i, c) in order {
        ctx.source.records += 1;
        add_checked(ctx, check(&format!("#{i}"), c, ctx.opts.trim_names))?;
        // Streamed: handed on as added (in time order already).
        ctx.after_record(&Location::Contest(format!("#{i}")))?;
    }
    Ok(())
}

/// A contest checked on its own, before its players are interned: what a whole read can work
/// out on every core, leaving the interning (which must go in contest order, so that ids do not
/// depend on the threads) to one.
struct Checked {
    at: Location,
    /// The placings found bad, in the standings' order (skipped under `--skip-invalid`).
    placings: Vec<FieldError>,
    contest: Result<Ready, FieldError>,
}

/// A contest ready to be interned: its players' names in one buffer.
struct Ready {
    time: i64,
    weight: f64,
    label: String,
    names: String,
    /// The end of each name in `names`, and its place range.
    ends: Vec<usize>,
    places: Vec<(u32, u32)>,
}

impl Ready {
    fn names(&self) -> impl Iterator<Item = &str> {
        let starts = std::iter::once(0).chain(self.ends.iter().copied());
        starts.zip(&self.ends).map(|(a, &b)| &self.names[a..b])
    }
}

/// The problems [`check`] found reported (each placing's in turn, then the contest's), or
/// the contest's players interned and the contest added.
fn add_checked(ctx: &mut Context, c: Checked) -> Result<(), InputError> {
    for problem in c.placings {
        ctx.reject(c.at.clone(), problem)?;
    }
    let r = match c.contest {
        Ok(r) => r,
        Err(problem) => return ctx.reject(c.at, problem),
    };
    let ids: Vec<PlayerId> = r.names().map(|n| ctx.builder.player(n)).collect();
    let b = &mut ctx.builder;
    b.begin_contest(r.time, r.weight, Some(&r.label), None);
    for (&id, &(lo, hi)) in ids.iter().zip(&r.places) {
        b.add_entry(&[id], lo, hi, None);
    }
    if let Err(e) = b.end_contest() {
        return ctx.reject(c.at, FieldError::new("standings", e.to_string()));
    }
    Ok(())
}

/// Everything about a contest that does not need the players' ids.
fn check(id: &str, c: RawContest, trim: bool) -> Checked {
    let label = c.name.clone().unwrap_or_else(|| id.to_string());
    let at = Location::Contest(match &c.name {
        Some(name) => format!("{id} ({name})"),
        None => id.to_string(),
    });
    let fail = |at: Location, problem: FieldError| Checked {
        at,
        placings: Vec::new(),
        contest: Err(problem),
    };
    let (lo_t, hi_t) = super::time::TIME_RANGE;
    if !(lo_t..=hi_t).contains(&c.time_seconds) {
        let message = format!(
            "{} is outside the years 0 to 9999 as Unix seconds",
            c.time_seconds
        );
        return fail(at, FieldError::new("time_seconds", message));
    }
    let weight = match c.weight.map(super::context::check_weight) {
        None => 1.0,
        Some(Ok(w)) => w,
        Some(Err(message)) => return fail(at, FieldError::new("weight", message)),
    };
    // Each placing is checked on its own: under --skip-invalid a bad one (an empty name, an
    // impossible place range, a player listed twice) is skipped and the rest of the contest
    // kept, its places renumbered among the entries that remain.
    let mut kept: Vec<(Cow<str>, i64, i64)> = Vec::with_capacity(c.standings.len());
    let mut seen: rustc_hash::FxHashSet<Cow<str>> = rustc_hash::FxHashSet::default();
    let mut placings = Vec::new();
    for (k, (handle, lo, hi)) in c.standings.iter().enumerate() {
        let problem = match super::context::player_name(handle, "", trim) {
            Err(_) => Some("empty player name".to_string()),
            Ok(_) if *lo < 0 || *hi < 0 || lo > hi || *hi > u32::MAX as i64 => Some(format!(
                "place range {lo}..{hi} is not a valid 0-based range"
            )),
            Ok(name) => {
                let name = crate::history::canonical_name(name);
                if seen.insert(name.clone()) {
                    kept.push((name, *lo, *hi));
                    None
                } else {
                    Some(format!("player `{name}` appears twice in the contest"))
                }
            }
        };
        if let Some(p) = problem {
            placings.push(FieldError::new(&format!("standings[{k}]"), p));
        }
    }
    let dropped = !placings.is_empty();
    let contest = places(&kept, dropped).map(|places| {
        let mut names = String::with_capacity(kept.iter().map(|e| e.0.len()).sum());
        let ends = kept
            .iter()
            .map(|(name, _, _)| {
                names.push_str(name);
                names.len()
            })
            .collect();
        Ready {
            time: c.time_seconds,
            weight,
            label,
            names,
            ends,
            places,
        }
    });
    Checked {
        at,
        placings,
        contest,
    }
}

/// The kept placings' place ranges, renumbered if some were dropped; or why the contest
/// cannot be rated.
fn places(kept: &[(Cow<str>, i64, i64)], dropped: bool) -> Result<Vec<(u32, u32)>, FieldError> {
    // Entries share a place range only when tied; two different ranges cannot overlap
    // (`[x, 0, 1]` with `[y, 0, 0]` would have y first and x tied for first at once): the
    // contest itself is ill-defined then.
    let mut ranges: Vec<(i64, i64)> = kept.iter().map(|e| (e.1, e.2)).collect();
    ranges.sort_unstable();
    ranges.dedup();
    if let Some(w) = ranges.windows(2).find(|w| w[1].0 <= w[0].1) {
        let ((a, b), (x, y)) = (w[0], w[1]);
        return Err(FieldError::new(
            "standings",
            format!("place ranges {a}..{b} and {x}..{y} overlap"),
        ));
    }
    if dropped && kept.len() < 2 {
        return Err(FieldError::new(
            "standings",
            "fewer than two valid placings",
        ));
    }
    Ok(if dropped {
        // Places renumbered among the entries kept (a skipped entry leaves no gap).
        let ranks: Vec<u64> = kept.iter().map(|e| e.1 as u64 + 1).collect();
        crate::history::ranks_to_ranges(&ranks)
    } else {
        kept.iter().map(|e| (e.1 as u32, e.2 as u32)).collect()
    })
}
