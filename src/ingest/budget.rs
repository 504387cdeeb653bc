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
//! are estimated from a sample of the input's first bytes (at most [`SAMPLE`], or until it has
//! seen [`MAX_NAMES`] distinct names): its records per byte, and the rate at which new names
//! still appear in the sample's second half, extrapolated linearly (an upper bound for most
//! histories, exact for one of only new players). The sample streams through small buffers.

use super::options::Format;
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
/// The most of an input a sample reads to estimate the counts.
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

/// Distinct names a sample keeps (as 64-bit hashes): the sample stops there. Small enough that
/// no allocation of the sample passes glibc's threshold for `mmap` (128 KiB): freeing such a
/// block raises that threshold for the rest of the run, and the replay's own large blocks
/// would then stay in the heap (measured: +140 MB of peak on the Codeforces folder).
const MAX_NAMES: usize = 6000;
/// Buffers of the sample's reads.
const READ_BUFFER: usize = 64 << 10;

/// Counts in a sample: records, placings, distinct names (hashes, with their total length),
/// and the distinct count every so many records, to tell the rate of new names late in it.
struct Sample {
    bytes: u64,
    records: u64,
    placings: u64,
    names: FxHashSet<u64>,
    name_bytes: u64,
    /// (records, distinct names) every 64 records.
    marks: Vec<(u64, u64)>,
}

impl Default for Sample {
    fn default() -> Self {
        Self {
            bytes: 0,
            records: 0,
            placings: 0,
            names: FxHashSet::with_capacity_and_hasher(MAX_NAMES, Default::default()),
            name_bytes: 0,
            marks: Vec::with_capacity(1024),
        }
    }
}

impl Sample {
    fn name(&mut self, n: &[u8]) {
        use std::hash::{BuildHasher, Hasher};
        let mut h = rustc_hash::FxBuildHasher.build_hasher();
        h.write(n);
        if self.names.len() < MAX_NAMES && self.names.insert(h.finish()) {
            self.name_bytes += n.len() as u64;
        }
    }

    /// Ends a record; false when the sample is full.
    fn record(&mut self) -> bool {
        self.records += 1;
        if self.records.is_multiple_of(64) && self.marks.len() < self.marks.capacity() {
            self.marks.push((self.records, self.names.len() as u64));
        }
        self.names.len() < MAX_NAMES
    }

    /// Extrapolates to `total` bytes.
    fn estimate(&self, total: u64, extra_bytes: f64) -> Option<Estimate> {
        if self.records == 0 || self.bytes == 0 {
            return None;
        }
        let scale = total as f64 / self.bytes as f64;
        let records = self.records as f64 * scale;
        let placings = self.placings as f64 * scale;
        let distinct = self.names.len() as f64;
        // New names per record over the sample's second half (all of it when short).
        let (r0, d0) = self
            .marks
            .iter()
            .rev()
            .find(|m| m.0 <= self.records / 2)
            .copied()
            .unwrap_or((0, 0));
        let rate = (distinct - d0 as f64) / (self.records - r0).max(1) as f64;
        let players = (distinct + rate * (records - self.records as f64).max(0.0))
            .min(placings.max(distinct));
        let name_len = self.name_bytes as f64 / distinct.max(1.0);
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

/// The first bytes of a file, through a small buffer.
fn sample_reader(path: &Path) -> Option<std::io::Take<BufReader<std::fs::File>>> {
    let f = std::fs::File::open(path).ok()?;
    Some(BufReader::with_capacity(READ_BUFFER, f).take(SAMPLE as u64))
}

/// A CSV's sample: the name columns from its header (`a` and `b`, or `player`, renamed by
/// `--map`).
fn sample_csv(path: &Path, map: &super::options::ColumnMap) -> Option<Sample> {
    let mut first = Vec::new();
    sample_reader(path)?
        .take(READ_BUFFER as u64)
        .read_until(b'\n', &mut first)
        .ok()?;
    // The delimiter and the columns as the reader finds them.
    let delimiter = super::table::sniff_delimiter(path, &String::from_utf8_lossy(&first));
    let mut rdr = csv::ReaderBuilder::new()
        .delimiter(delimiter)
        .flexible(true)
        .from_reader(sample_reader(path)?);
    let header: Vec<String> = rdr
        .byte_headers()
        .ok()?
        .iter()
        .map(|h| String::from_utf8_lossy(h).into_owned())
        .collect();
    let col = |c: &str| super::columns::find_column(&header, map.source(c));
    let cols: Vec<usize> = match (col("a"), col("b"), col("player")) {
        (Some(a), Some(b), _) => vec![a, b],
        (_, _, Some(p)) => vec![p],
        _ => return None,
    };
    let mut s = Sample::default();
    let mut rec = csv::ByteRecord::new();
    while rdr.read_byte_record(&mut rec).unwrap_or(false) {
        for &c in &cols {
            if let Some(n) = rec.get(c) {
                s.placings += 1;
                s.name(n);
            }
        }
        if !s.record() {
            break;
        }
    }
    s.bytes = rdr.position().byte();
    Some(s)
}

/// A PGN's sample: games by their `Result` tag, names from `White` and `Black`.
fn sample_pgn(path: &Path) -> Option<Sample> {
    let mut r = sample_reader(path)?;
    let mut s = Sample::default();
    let mut line = Vec::with_capacity(1024);
    loop {
        line.clear();
        match (&mut r)
            .take(READ_BUFFER as u64)
            .read_until(b'\n', &mut line)
        {
            Ok(0) | Err(_) => break,
            Ok(n) => s.bytes += n as u64,
        }
        let t = line.trim_ascii();
        if t.starts_with(b"[Result ") {
            if !s.record() {
                break;
            }
        } else if let Some(v) = t
            .strip_prefix(b"[White ")
            .or_else(|| t.strip_prefix(b"[Black "))
        {
            s.placings += 1;
            s.name(v);
        }
    }
    Some(s)
}

/// Reads a contest's standings, counting each handle into a sample, without keeping them.
struct Standings<'s>(&'s mut Sample);

impl<'de> serde::de::DeserializeSeed<'de> for Standings<'_> {
    type Value = ();
    fn deserialize<D: serde::Deserializer<'de>>(self, d: D) -> Result<(), D::Error> {
        struct Seq<'s>(&'s mut Sample);
        impl<'de> serde::de::Visitor<'de> for Seq<'_> {
            type Value = ();
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("standings")
            }
            fn visit_seq<A: serde::de::SeqAccess<'de>>(self, mut seq: A) -> Result<(), A::Error> {
                while let Some((name, _, _)) = seq.next_element::<(
                    std::borrow::Cow<'de, str>,
                    serde::de::IgnoredAny,
                    serde::de::IgnoredAny,
                )>()? {
                    self.0.placings += 1;
                    self.0.name(name.as_bytes());
                }
                Ok(())
            }
        }
        d.deserialize_seq(Seq(self.0))
    }
}

/// A contest file, its standings counted into a sample.
struct Contest<'s>(&'s mut Sample);

impl<'de> serde::de::DeserializeSeed<'de> for Contest<'_> {
    type Value = ();
    fn deserialize<D: serde::Deserializer<'de>>(self, d: D) -> Result<(), D::Error> {
        struct Map<'s>(&'s mut Sample);
        impl<'de> serde::de::Visitor<'de> for Map<'_> {
            type Value = ();
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("a contest")
            }
            fn visit_map<A: serde::de::MapAccess<'de>>(self, mut map: A) -> Result<(), A::Error> {
                while let Some(key) = map.next_key::<std::borrow::Cow<'de, str>>()? {
                    if key == "standings" {
                        map.next_value_seed(Standings(&mut *self.0))?;
                    } else {
                        map.next_value::<serde::de::IgnoredAny>()?;
                    }
                }
                Ok(())
            }
        }
        d.deserialize_map(Map(self.0))
    }
}

/// Contest JSON: the first files of a folder counted by their standings (streamed, nothing
/// kept but the counts).
fn sample_json(path: &Path) -> Option<(Sample, u64)> {
    use serde::de::DeserializeSeed;
    if !path.is_dir() {
        return None;
    }
    // The files the reader reads, in its order.
    let files: Vec<(u64, std::path::PathBuf)> = super::contest_json::numbered_files(path)
        .ok()?
        .into_iter()
        .filter_map(|(_, p)| Some((std::fs::metadata(&p).ok()?.len(), p)))
        .collect();
    let total: u64 = files.iter().map(|f| f.0).sum();
    let mut s = Sample::default();
    for (len, p) in files {
        if s.bytes >= SAMPLE as u64 || s.names.len() >= MAX_NAMES {
            break;
        }
        let Ok(f) = std::fs::File::open(&p) else {
            continue;
        };
        let mut de =
            serde_json::Deserializer::from_reader(BufReader::with_capacity(READ_BUFFER, f));
        if Contest(&mut s).deserialize(&mut de).is_ok() {
            s.bytes += len;
            s.record();
        }
    }
    Some((s, total))
}

/// Estimates what replaying `path` needs. `None` when it cannot be told (a Parquet file whose
/// metadata does not read, a JSON array file): the ratio of bytes is used then.
pub fn estimate(path: &Path, format: Format, map: &super::options::ColumnMap) -> Option<Estimate> {
    let meta = std::fs::metadata(path).ok()?;
    if !meta.is_dir() && !meta.is_file() {
        return None;
    }
    let size = meta.len();
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
            let file = super::parquet::ParquetFile::open(path).ok()?;
            // The largest batch of row groups, decoded: the read holds one at a time.
            let decoded = file.largest_batch_bytes() as f64;
            let rows = file.total_rows() as f64;
            // A batch decoded, then cast to text: three times its decoded columns; every
            // row may bring a new player (nothing cheaper can be known before decoding).
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
pub fn check(path: &Path, format: Format, map: &super::options::ColumnMap) -> std::io::Result<()> {
    // A pipe (or another file that is not a regular one) has no size to scale a sample by,
    // and a sample read from it would be lost to the reader: not checked.
    if std::fs::metadata(path).is_ok_and(|m| !m.is_dir() && !m.is_file())
        || super::source::is_stdin(path)
    {
        return Ok(());
    }
    // A compressed file's size says little of its text's: not checked either.
    if super::source::compression(path) != super::source::Compression::None {
        return Ok(());
    }
    let size = super::source::bytes_on_disk(path);
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
         machine with more memory, stream it (games, standings or PGN sorted by time: --stream on), \
         replay the history in parts (--save-state on the older part, then --resume with the \
         rest), or pass --no-memory-check if the estimate is \
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
            text.push_str(&format!("2021-01-01,p{k},q{k},1\n"));
        }
        std::fs::write(&path, &text).unwrap();
        let e = estimate(&path, Format::Games, &Default::default()).unwrap();
        // The sample stops at 6,000 names, 3,000 rows of short early names: it errs on the
        // side of more (lines grow longer further on), never much fewer.
        let ratio = e.placings / 600_000.0;
        assert!((0.95..1.5).contains(&ratio), "{e:?}");
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

    /// The samples read what the readers read: a folder's `N.json` files only (another
    /// `.json` there is not a contest and not counted), a CSV's columns found as the reader
    /// finds them.
    #[test]
    fn samples_count_what_the_readers_read() {
        let dir = tempfile::TempDir::new().unwrap();
        let contest = |t: u32| {
            format!(r#"{{"name":"c{t}","time_seconds":{t},"standings":[["a",0,0],["b",1,1]]}}"#)
        };
        std::fs::write(dir.path().join("0.json"), contest(1)).unwrap();
        std::fs::write(dir.path().join("10.json"), contest(2)).unwrap();
        std::fs::write(dir.path().join("notes.json"), "x".repeat(100_000)).unwrap();
        let e = estimate(dir.path(), Format::Json, &Default::default()).unwrap();
        assert_eq!((e.placings, e.players), (4.0, 2.0), "{e:?}");
        // A header in another case, with a BOM, under --map.
        let path = dir.path().join("g.csv");
        std::fs::write(&path, "\u{feff}Date;Home;Away;R\n2021-01-01;x;y;1\n").unwrap();
        let map = crate::ingest::ColumnMap::parse("a=home,b=away,time=date,result=r").unwrap();
        let e = estimate(&path, Format::Games, &map).unwrap();
        assert_eq!((e.placings, e.players), (2.0, 2.0), "{e:?}");
    }

    #[test]
    fn limits_are_read() {
        // On Linux at least the available memory is known.
        if Path::new("/proc/meminfo").exists() {
            assert!(available().is_some_and(|a| a > 0));
        }
    }
}
