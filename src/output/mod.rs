//! Outputs: `leaderboard.csv`, `history.csv` (or `history.parquet`), `metrics.json`, and the
//! table printed to stdout.
//!
//! Files are written together: each to a temporary name in the output folder, and renamed
//! only when every one of them is complete. A run that fails before that leaves the previous
//! outputs as they were and removes its temporary files.

mod files;
pub mod report;
mod table;

pub(crate) use files::csv_field;
pub use files::{
    HistoryCsv, HistoryFormat, write_history_parquet, write_leaderboard, write_metrics,
};
pub use table::{LeaderRow, LeaderboardOptions, RankBy, leaderboard_rows, print_summary};

use std::fs::File;
use std::io::{self, BufWriter, Write};
use std::path::{Path, PathBuf};

/// A file path's folder (`.` for a bare name) and name; the error says what is wrong.
pub fn split_path(path: &Path) -> Result<(PathBuf, String), String> {
    let dir = path
        .parent()
        .filter(|d| !d.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    let name = path
        .file_name()
        .and_then(|n| n.to_str())
        .ok_or_else(|| format!("{} is not a file name", path.display()))?;
    Ok((dir.to_path_buf(), name.to_string()))
}

/// Writes one file `dir/name` under a temporary name and renames it into place.
pub fn write_one(
    dir: &Path,
    name: &str,
    write: impl FnOnce(&mut dyn Write) -> io::Result<()>,
) -> io::Result<()> {
    let mut staged = Staged::new(dir)?;
    staged.write(name, write)?;
    staged.commit().map(|_| ())
}

/// Files being written, renamed into place together by [`Staged::commit`].
pub struct Staged {
    dir: PathBuf,
    files: Vec<(PathBuf, PathBuf)>,
    committed: bool,
}

impl Staged {
    /// Prepares the output folder (created if missing).
    pub fn new(dir: &Path) -> io::Result<Self> {
        std::fs::create_dir_all(dir)?;
        remove_orphans(dir);
        Ok(Self {
            dir: dir.to_path_buf(),
            files: Vec::new(),
            committed: false,
        })
    }

    /// Opens `name` for writing under its temporary name; [`StagedFile::finish`] completes it.
    pub fn open(&mut self, name: &str) -> io::Result<StagedFile> {
        let target = self.dir.join(name);
        let tmp = self.dir.join(format!(".{name}.tmp-{}", std::process::id()));
        // Registered first so that a failure below still removes the temporary file.
        self.files.push((tmp.clone(), target));
        Ok(StagedFile(BufWriter::with_capacity(
            1 << 20,
            File::create(&tmp)?,
        )))
    }

    /// Writes `name` to its temporary file through `write`.
    pub fn write(
        &mut self,
        name: &str,
        write: impl FnOnce(&mut dyn Write) -> io::Result<()>,
    ) -> io::Result<()> {
        let mut file = self.open(name)?;
        write(&mut file)?;
        file.finish()
    }

    /// The final paths, in the order written.
    pub fn targets(&self) -> Vec<PathBuf> {
        self.files.iter().map(|(_, t)| t.clone()).collect()
    }

    /// Renames every file into place.
    pub fn commit(mut self) -> io::Result<Vec<PathBuf>> {
        for (tmp, target) in &self.files {
            std::fs::rename(tmp, target)?;
        }
        self.committed = true;
        Ok(self.targets())
    }
}

/// Removes the temporary files of runs that were killed before they could clean up
/// (`.NAME.tmp-PID` whose process no longer exists; where processes cannot be looked up, none
/// are removed).
fn remove_orphans(dir: &Path) {
    if !Path::new("/proc/self").exists() {
        return;
    }
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for e in entries.flatten() {
        let name = e.file_name();
        let Some(name) = name.to_str() else { continue };
        let Some((_, pid)) = name.strip_prefix('.').and_then(|n| n.rsplit_once(".tmp-")) else {
            continue;
        };
        if pid.parse::<u32>().is_ok() && !Path::new("/proc").join(pid).exists() {
            let _ = std::fs::remove_file(e.path());
        }
    }
}

/// A file being written under its temporary name.
pub struct StagedFile(BufWriter<File>);

impl StagedFile {
    /// Flushes and syncs the file to disk.
    pub fn finish(self) -> io::Result<()> {
        let file = self.0.into_inner().map_err(|e| e.into_error())?;
        file.sync_all()
    }
}

impl Write for StagedFile {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.0.write(buf)
    }
    fn write_all(&mut self, buf: &[u8]) -> io::Result<()> {
        self.0.write_all(buf)
    }
    fn flush(&mut self) -> io::Result<()> {
        self.0.flush()
    }
}

impl Drop for Staged {
    fn drop(&mut self) {
        if !self.committed {
            for (tmp, _) in &self.files {
                let _ = std::fs::remove_file(tmp);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn scratch(name: &str) -> PathBuf {
        let d =
            std::env::temp_dir().join(format!("rate-batch-staged-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&d);
        d
    }

    #[test]
    fn a_failed_write_leaves_the_previous_files_and_no_temporary_ones() {
        let dir = scratch("fail");
        let mut s = Staged::new(&dir).unwrap();
        s.write("a.txt", |w| w.write_all(b"old a")).unwrap();
        s.write("b.txt", |w| w.write_all(b"old b")).unwrap();
        s.commit().unwrap();

        let mut s = Staged::new(&dir).unwrap();
        s.write("a.txt", |w| w.write_all(b"new a")).unwrap();
        let err = s.write("b.txt", |w| {
            w.write_all(b"half")?;
            Err(io::Error::other("disk full"))
        });
        assert!(err.is_err());
        drop(s);
        assert_eq!(std::fs::read_to_string(dir.join("a.txt")).unwrap(), "old a");
        assert_eq!(std::fs::read_to_string(dir.join("b.txt")).unwrap(), "old b");
        let names: Vec<String> = std::fs::read_dir(&dir)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        assert_eq!(names.len(), 2, "{names:?}");
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn commit_replaces_every_file() {
        let dir = scratch("ok");
        let mut s = Staged::new(&dir).unwrap();
        s.write("a.txt", |w| w.write_all(b"1")).unwrap();
        let written = s.commit().unwrap();
        assert_eq!(written, vec![dir.join("a.txt")]);
        assert_eq!(std::fs::read_to_string(dir.join("a.txt")).unwrap(), "1");
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
