//! Will a replay of this input fit in memory? Checked before reading, so that a run that
//! cannot fit ends at once with a clear error (exit 3) instead of being killed or aborted
//! half-way.
//!
//! What is available is the least of the memory the kernel reports available
//! (`/proc/meminfo`), what the process's cgroup still allows (v2 `memory.max` less
//! `memory.current`, v1 `memory.limit_in_bytes` less `memory.usage_in_bytes`) and the address
//! space `ulimit -v` (`RLIMIT_AS`) leaves beyond what the process already maps.
//!
//! What a replay needs grows with the placings (a game is two) and with the distinct players
//! (each name is stored twice, and every system keeps a state per player): about
//! [`PER_PLACING`] bytes per placing and [`PER_PLAYER`] plus twice the name per player, plus
//! the raw bytes of contest JSON (read whole) and the decoded columns of Parquet. The counts
//! are estimated from a sample of the input's first [`SAMPLE`] bytes: its records per byte,
//! and the rate at which new names still appear in the sample's second half, extrapolated
//! linearly (an upper bound for most histories, exact for one of only new players).

use super::Format;
use rustc_hash::FxHashSet;
use std::io::{BufRead, BufReader, Read};
use std::path::Path;

/// Bytes a replay keeps per placing (the history's entry and member, the round order, the
/// replay's bookkeeping), measured with `/usr/bin/time -v` on generated histories.
pub const PER_PLACING: f64 = 56.0;
/// Bytes per distinct player besides the name (the interning table, the record, a system
/// state).
pub const PER_PLAYER: f64 = 320.0;
/// Fixed costs (the program, thread stacks, buffers).
const FIXED: f64 = 64.0 * 1024.0 * 1024.0;
/// The sample read to estimate the counts.
pub const SAMPLE: usize = 8 << 20;
/// Inputs smaller than this are not checked (they fit anywhere this program runs).
const CHECK_FROM: u64 = 32 << 20;

/// What an input is estimated to hold and need.
#[derive(Clone, Debug, PartialEq)]
pub struct Estimate {
    /// Placings (entries' players in contests).
    pub placings: f64,
    /// Distinct players.
    pub players: f64,
    /// Bytes a replay needs.
    pub bytes: f64,
}

/// The memory this process can still use, if any limit can be read.
pub fn available() -> Option<u64> {
    let mut limits: Vec<u64> = Vec::new();
    if let Ok(t) = std::fs::read_to_string("/proc/meminfo")
        && let Some(kb) = t
            .lines()
            .find(|l| l.starts_with("MemAvailable:"))
            .and_then(|l| l.split_whitespace().nth(1)?.parse::<u64>().ok())
    {
        limits.push(kb * 1024);
    }
    limits.extend(cgroup_room());
    limits.extend(address_space_room());
    limits.into_iter().min()
}

fn read_u64(path: &Path) -> Option<u64> {
    std::fs::read_to_string(path).ok()?.trim().parse().ok()
}

/// A field of a cgroup's `memory.stat` (0 when absent).
fn stat_field(path: &Path, name: &str) -> u64 {
    std::fs::read_to_string(path)
        .ok()
        .and_then(|t| {
            t.lines().find_map(|l| {
                let (k, v) = l.split_once(' ')?;
                (k == name).then(|| v.trim().parse().ok()).flatten()
            })
        })
        .unwrap_or(0)
}

/// What the process's cgroup still allows (v2, else v1), not counting the page cache it
/// could reclaim.
fn cgroup_room() -> Option<u64> {
    let cgroups = std::fs::read_to_string("/proc/self/cgroup").ok()?;
    for line in cgroups.lines() {
        let mut parts = line.splitn(3, ':');
        let (_, controllers, rel) = (parts.next()?, parts.next()?, parts.next()?);
        let rel = rel.trim_start_matches('/');
        if controllers.is_empty() {
            // v2: the limit may be set on any ancestor; the tightest room counts.
            let mut dir = Path::new("/sys/fs/cgroup").join(rel);
            let mut room: Option<u64> = None;
            loop {
                if let (Some(max), Some(cur)) = (
                    read_u64(&dir.join("memory.max")),
                    read_u64(&dir.join("memory.current")),
                ) {
                    // The page cache the kernel can drop (a file read before) is not in use.
                    let free = stat_field(&dir.join("memory.stat"), "inactive_file");
                    let r = max.saturating_sub(cur.saturating_sub(free));
                    room = Some(room.map_or(r, |x| x.min(r)));
                }
                if !dir.pop() || !dir.starts_with("/sys/fs/cgroup") {
                    break;
                }
            }
            if room.is_some() {
                return room;
            }
        } else if controllers.split(',').any(|c| c == "memory") {
            let dir = Path::new("/sys/fs/cgroup/memory").join(rel);
            let max = read_u64(&dir.join("memory.limit_in_bytes"))?;
            let used = read_u64(&dir.join("memory.usage_in_bytes"))
                .unwrap_or(0)
                .saturating_sub(stat_field(&dir.join("memory.stat"), "total_inactive_file"));
            // v1 reports "no limit" as a huge number.
            return (max < 1 << 60).then(|| max.saturating_sub(used));
        }
    }
    None
}

/// What `ulimit -v` leaves beyond the address space already mapped.
fn address_space_room() -> Option<u64> {
    let mut lim = libc::rlimit {
        rlim_cur: 0,
        rlim_max: 0,
    };
    // SAFETY: getrlimit writes into the struct it is given.
    if unsafe { libc::getrlimit(libc::RLIMIT_AS, &mut lim) } != 0
        || lim.rlim_cur == libc::RLIM_INFINITY
    {
        return None;
    }
    let mapped = std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|t| {
            t.lines()
                .find(|l| l.starts_with("VmSize:"))
                .and_then(|l| l.split_whitespace().nth(1)?.parse::<u64>().ok())
        })
        .map_or(0, |kb| kb * 1024);
    Some(lim.rlim_cur.saturating_sub(mapped))
}

/// Counts in a sample: records, placings and names, and the names first seen in its second
/// half.
#[derive(Default)]
struct Sample {
    bytes: u64,
    records: u64,
    placings: u64,
    names: FxHashSet<Vec<u8>>,
    late_records: u64,
    late_new: u64,
}

impl Sample {
    fn name(&mut self, n: &[u8], late: bool) {
        if self.names.insert(n.to_vec()) && late {
            self.late_new += 1;
        }
    }

    /// Extrapolates to `total` bytes.
    fn estimate(&self, total: u64, extra_bytes: f64) -> Option<Estimate> {
        if self.records == 0 || self.bytes == 0 {
            return None;
        }
        let scale = total as f64 / self.bytes as f64;
        let records = self.records as f64 * scale;
        let placings = self.placings as f64 * scale;
        let rate = if self.late_records > 0 {
            self.late_new as f64 / self.late_records as f64
        } else {
            1.0
        };
        let players = (self.names.len() as f64 + rate * (records - self.records as f64).max(0.0))
            .min(placings.max(self.names.len() as f64));
        let name_len = self.names.iter().map(|n| n.len()).sum::<usize>() as f64
            / self.names.len().max(1) as f64;
        Some(Estimate {
            placings,
            players,
            bytes: FIXED
                + extra_bytes
                + placings * PER_PLACING
                + players * (PER_PLAYER + 2.0 * name_len),
        })
    }
}

fn sample_bytes(path: &Path) -> Option<Vec<u8>> {
    let mut buf = Vec::with_capacity(SAMPLE);
    std::fs::File::open(path)
        .ok()?
        .take(SAMPLE as u64)
        .read_to_end(&mut buf)
        .ok()?;
    // Whole lines only.
    if buf.len() == SAMPLE
        && let Some(end) = memchr::memrchr(b'\n', &buf)
    {
        buf.truncate(end + 1);
    }
    Some(buf)
}

/// A CSV's sample: the name columns from its header (`a` and `b`, or `player`, renamed by
/// `--map`).
fn sample_csv(path: &Path, map: &super::ColumnMap) -> Option<Sample> {
    let buf = sample_bytes(path)?;
    let first = buf.split(|&b| b == b'\n').next()?;
    let delimiter = *[b'\t', b';', b','].iter().max_by_key(|&&d| {
        (
            first.iter().filter(|&&b| b == d).count(),
            (d == b',') as usize,
        )
    })?;
    let mut rdr = csv::ReaderBuilder::new()
        .delimiter(delimiter)
        .flexible(true)
        .from_reader(buf.as_slice());
    let header: Vec<String> = rdr
        .byte_headers()
        .ok()?
        .iter()
        .map(|h| {
            String::from_utf8_lossy(h)
                .trim()
                .trim_start_matches('\u{feff}')
                .to_lowercase()
        })
        .collect();
    let col = |c: &str| {
        let want = map.source(c).to_lowercase();
        header.iter().position(|h| *h == want)
    };
    let cols: Vec<usize> = match (col("a"), col("b"), col("player")) {
        (Some(a), Some(b), _) => vec![a, b],
        (_, _, Some(p)) => vec![p],
        _ => return None,
    };
    let mut s = Sample {
        bytes: buf.len() as u64,
        ..Sample::default()
    };
    let half = buf.len() as u64 / 2;
    let mut rec = csv::ByteRecord::new();
    while rdr.read_byte_record(&mut rec).unwrap_or(false) {
        let late = rec.position().is_some_and(|p| p.byte() >= half);
        s.records += 1;
        s.late_records += late as u64;
        for &c in &cols {
            if let Some(n) = rec.get(c) {
                s.placings += 1;
                s.name(n, late);
            }
        }
    }
    Some(s)
}

/// A PGN's sample: games by their `Result` tag, names from `White` and `Black`.
fn sample_pgn(path: &Path) -> Option<Sample> {
    let buf = sample_bytes(path)?;
    let mut s = Sample {
        bytes: buf.len() as u64,
        ..Sample::default()
    };
    let half = buf.len() / 2;
    let mut at = 0;
    for line in BufReader::new(buf.as_slice())
        .split(b'\n')
        .map_while(Result::ok)
    {
        let late = at >= half;
        at += line.len() + 1;
        let t = line.trim_ascii();
        if t.starts_with(b"[Result ") {
            s.records += 1;
            s.late_records += late as u64;
        } else if let Some(v) = t
            .strip_prefix(b"[White ")
            .or_else(|| t.strip_prefix(b"[Black "))
        {
            s.placings += 1;
            s.name(v, late);
        }
    }
    Some(s)
}

/// Contest JSON: the first files of a folder (or a prefix of an array file) counted by their
/// standings.
fn sample_json(path: &Path) -> Option<(Sample, u64)> {
    #[derive(serde::Deserialize)]
    struct Raw {
        standings: Vec<(String, serde::de::IgnoredAny, serde::de::IgnoredAny)>,
    }
    let mut s = Sample::default();
    if path.is_dir() {
        let mut files: Vec<(u64, std::path::PathBuf)> = std::fs::read_dir(path)
            .ok()?
            .flatten()
            .filter(|e| e.file_name().to_str().is_some_and(|n| n.ends_with(".json")))
            .filter_map(|e| Some((e.metadata().ok()?.len(), e.path())))
            .collect();
        let total: u64 = files.iter().map(|f| f.0).sum();
        files.sort_by(|a, b| a.1.cmp(&b.1));
        let n = files.len();
        for (k, (len, p)) in files.into_iter().enumerate() {
            if s.bytes >= SAMPLE as u64 {
                break;
            }
            let late = k >= n.min(64) / 2;
            let Ok(c) = serde_json::from_slice::<Raw>(&std::fs::read(&p).ok()?) else {
                continue;
            };
            s.bytes += len;
            s.records += 1;
            s.late_records += late as u64;
            for (name, _, _) in c.standings {
                s.placings += 1;
                s.name(name.as_bytes(), late);
            }
        }
        Some((s, total))
    } else {
        None
    }
}

/// Estimates what replaying `path` needs. `None` when it cannot be told (a Parquet file whose
/// metadata does not read, a JSON array file): the ratio of bytes is used then.
pub fn estimate(path: &Path, format: Format, map: &super::ColumnMap) -> Option<Estimate> {
    let size = std::fs::metadata(path).ok()?.len();
    match format {
        Format::Games | Format::Standings => sample_csv(path, map)?.estimate(size, 0.0),
        Format::Pgn => sample_pgn(path)?.estimate(size, 0.0),
        Format::Json => match sample_json(path) {
            // The files are read whole and parsed: twice their bytes besides.
            Some((s, total)) => s.estimate(total, 2.0 * total as f64),
            None => Some(Estimate {
                placings: 0.0,
                players: 0.0,
                bytes: FIXED + 4.5 * size as f64,
            }),
        },
        Format::Parquet => {
            use polars::prelude::*;
            let file = std::fs::File::open(path).ok()?;
            let hook = std::panic::take_hook();
            std::panic::set_hook(Box::new(|_| {}));
            let meta = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                let mut r = ParquetReader::new(file);
                r.get_metadata().ok().map(|m| {
                    let rows = m.num_rows as f64;
                    let decoded: f64 = m
                        .row_groups
                        .iter()
                        .map(|g| g.total_byte_size() as f64)
                        .sum();
                    (rows, decoded)
                })
            }))
            .ok()
            .flatten();
            std::panic::set_hook(hook);
            let (rows, decoded) = meta?;
            // Decoded, then cast to text: three times the decoded columns; every row may
            // bring a new player (nothing cheaper can be known before decoding).
            let placings = 2.0 * rows;
            Some(Estimate {
                placings,
                players: rows,
                bytes: FIXED + 3.0 * decoded + placings * PER_PLACING + rows * (PER_PLAYER + 32.0),
            })
        }
    }
}

/// Refuses an input whose replay would not fit in the memory available (see the module
/// documentation); inputs under 32 MiB pass without a look. `--no-memory-check` skips it
/// (the allocator still ends a run that runs out with exit 3).
pub fn check(path: &Path, format: Format, map: &super::ColumnMap) -> std::io::Result<()> {
    let size = if path.is_dir() {
        std::fs::read_dir(path)
            .map(|d| {
                d.flatten()
                    .filter_map(|e| e.metadata().ok())
                    .map(|m| m.len())
                    .sum()
            })
            .unwrap_or(0)
    } else {
        std::fs::metadata(path).map_or(0, |m| m.len())
    };
    if size < CHECK_FROM {
        return Ok(());
    }
    let (Some(need), Some(room)) = (estimate(path, format, map), available()) else {
        return Ok(());
    };
    if need.bytes <= room as f64 {
        return Ok(());
    }
    let counts = if need.placings > 0.0 {
        format!(
            " (about {:.0} million placings among {:.1} million players)",
            need.placings / 1e6,
            need.players / 1e6
        )
    } else {
        String::new()
    };
    Err(std::io::Error::other(format!(
        "{}: {:.2} GB of input{counts} needs about {:.1} GB of memory to replay, and {:.1} GB \
         is available (the least of free memory, the cgroup's limit and ulimit -v); use a \
         machine with more memory, replay the history in parts (--save-state on the older \
         part, then --resume with the rest), or pass --no-memory-check if the estimate is \
         wrong for this input",
        path.display(),
        size as f64 / 1e9,
        need.bytes / 1e9,
        room as f64 / 1e9
    )))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_sample_of_new_players_extrapolates_to_as_many_players_as_placings() {
        let dir = tempfile::TempDir::new().unwrap();
        let path = dir.path().join("g.csv");
        let mut text = String::from("time,a,b,result\n");
        for k in 0..300_000 {
            text.push_str(&format!("2021-01-01,p{},q{},1\n", k, k));
        }
        std::fs::write(&path, &text).unwrap();
        let e = estimate(&path, Format::Games, &Default::default()).unwrap();
        // The sample holds whole lines of the first 8 MiB; lines grow longer further on.
        assert!((e.placings / 600_000.0 - 1.0).abs() < 0.05, "{e:?}");
        assert!((e.players / e.placings - 1.0).abs() < 0.01, "{e:?}");
        // The same number of games among 100 players.
        let mut text = String::from("time,a,b,result\n");
        for k in 0..300_000 {
            text.push_str(&format!("2021-01-01,p{},q{},1\n", k % 100, k % 97));
        }
        std::fs::write(&path, &text).unwrap();
        let e = estimate(&path, Format::Games, &Default::default()).unwrap();
        assert!(e.players < 300.0, "{e:?}");
    }

    #[test]
    fn limits_are_read() {
        // On Linux at least the available memory is known.
        if Path::new("/proc/meminfo").exists() {
            assert!(available().is_some_and(|a| a > 0));
        }
    }
}
