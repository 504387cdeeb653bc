//! Outputs that appear whole or not at all, and that nobody else can redirect.
//!
//! **An output folder** (`--out DIR`) is published as one generation. Every file of a run is
//! written into a fresh folder beside DIR (`.DIR.rate-batch-<random>`, created by this run with
//! `mkdir`, mode 0700, so nobody can plant anything in it), synced to disk; entries of DIR that
//! the run does not replace (a user's own files, another subcommand's outputs) are carried
//! into it as hard links; then the new folder and DIR are swapped in one atomic
//! `renameat2(RENAME_EXCHANGE)` (Linux), the parent folder is synced, and the previous
//! generation, now under the temporary name, is deleted. A reader that opens
//! `DIR/leaderboard.csv` (a web server, say) gets the previous run's file or the new one, and the
//! files it opens one after the other belong to one run as long as no swap happens between
//! them. A run that fails or is killed before the swap leaves DIR untouched; one killed after it
//! leaves only the previous generation behind, which the next run deletes.
//!
//! Where the exchange is not available (another system, or a file system without it) each file
//! is renamed into DIR on its own, the replaced ones kept aside until every rename succeeded
//! and put back if one fails: the set is then whole again after a failure, but a reader may
//! see a mix while the renames run (a warning says so).
//!
//! **Descriptors, not paths.** Once the generation is made, the run writes, reads metadata,
//! sets mode and owner, renames and deletes through the descriptors of the folder and the
//! generation it opened and locked, never by a path that someone able to write the parent
//! could have replaced with a symbolic link; just before the exchange both paths must still
//! name those folders. A folder the run may not write is refused (the swap would need only
//! the parent writable); deleting a generation gives the run's own read-only folders in it
//! u+rwx first.
//!
//! **Locks.** A run holds an advisory lock (`flock`) on DIR from before it reads its inputs to
//! after the swap (and on the new generation, which becomes DIR), so that a second run on the
//! same DIR fails at once with a clear message instead of mixing its files with the first's.
//! A state file (`--save-state`) is locked the same way through `.NAME.lock` beside it.
//!
//! **Names.** Temporary names carry 48 random bits and a 16-bit check of them
//! (`.NAME.rate-batch-<12 hex digits><4 hex digits>`); every temporary file or folder is created
//! exclusively (`O_EXCL`, `mkdir`) and no path this module opens follows a symbolic link at its
//! last component. The clean-up of a killed run's leftovers removes only entries whose name
//! carries a valid check, that are older than the current run and that no live run holds.

use std::ffi::{CStr, CString, OsStr};
use std::fs::{self, File, OpenOptions};
use std::io::{self, BufWriter, Write};
use std::os::fd::{AsRawFd, FromRawFd, RawFd};
use std::os::unix::fs::{DirBuilderExt, MetadataExt, OpenOptionsExt, PermissionsExt};
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::time::SystemTime;

/// Another run holds the lock of an output folder or a state file (exit code 5).
#[derive(Debug)]
pub struct Busy(pub String);

impl std::fmt::Display for Busy {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for Busy {}

const MARK: &str = ".rate-batch-";

/// The base of a generation's name when it has to be made inside the output folder.
const INNER: &str = "generation";

/// A temporary name for `base` in its folder: `.BASE.rate-batch-<12 random hex><4 hex check>`.
pub fn temporary_name(base: &str) -> String {
    let random: u64 = rand::random::<u64>() >> 16;
    format!(".{base}{MARK}{random:012x}{:04x}", check(random))
}

/// The 16-bit check of a temporary name's random part.
fn check(random: u64) -> u16 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for b in b"rate-batch".iter().chain(&random.to_le_bytes()) {
        h ^= *b as u64;
        h = h.wrapping_mul(0x0000_0100_0000_01b3);
    }
    (h >> 48) as u16
}

/// True when `name` is a temporary name this program made for `base`.
pub fn is_temporary_name(name: &str, base: &str) -> bool {
    let Some(tag) = name
        .strip_prefix('.')
        .and_then(|n| n.strip_prefix(base))
        .and_then(|n| n.strip_prefix(MARK))
    else {
        return false;
    };
    if tag.len() != 16 || !tag.bytes().all(|b| b.is_ascii_hexdigit()) {
        return false;
    }
    let (random, sum) = tag.split_at(12);
    match (
        u64::from_str_radix(random, 16),
        u16::from_str_radix(sum, 16),
    ) {
        (Ok(r), Ok(c)) => check(r) == c,
        _ => false,
    }
}

/// Opens a regular file for reading without following a symbolic link at its last component
/// (and without blocking on a planted FIFO: anything but a regular file is refused).
pub fn open_no_follow(path: &Path) -> io::Result<File> {
    let f = OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_NOFOLLOW | libc::O_NONBLOCK | libc::O_CLOEXEC)
        .open(path)
        .map_err(|e| {
            if e.raw_os_error() == Some(libc::ELOOP) {
                io::Error::other(format!(
                    "{} is a symbolic link, which is not followed",
                    path.display()
                ))
            } else {
                e
            }
        })?;
    if !f.metadata()?.is_file() {
        return Err(io::Error::other(format!(
            "{} is not a regular file",
            path.display()
        )));
    }
    Ok(f)
}

/// Creates a temporary file that did not exist, never through a symbolic link, and takes its
/// lock at once: it is held for as long as the file has its temporary name, so that another
/// run's clean-up ([`remove_leftovers`]) never deletes a file this run is still writing.
fn create_temporary(path: &Path, mode: u32) -> io::Result<File> {
    let f = OpenOptions::new()
        .write(true)
        .create_new(true)
        .mode(mode)
        .custom_flags(libc::O_NOFOLLOW | libc::O_CLOEXEC)
        .open(path)?;
    match f.try_lock() {
        Ok(()) => Ok(f),
        // Only a clean-up that took it for a leftover can hold the lock of a new file.
        Err(fs::TryLockError::WouldBlock) => Err(io::Error::other(format!(
            "{} was taken by another run's clean-up as soon as it was made; try again",
            path.display()
        ))),
        Err(fs::TryLockError::Error(e)) => Err(e),
    }
}

/// Opens a folder (not through a symbolic link) and takes its lock, checking afterwards that
/// the path still names the folder locked (a run that swapped it in between is waited out by
/// trying again).
fn lock_folder(path: &Path, what: &str) -> io::Result<File> {
    for _ in 0..20 {
        let dir = OpenOptions::new()
            .read(true)
            .custom_flags(libc::O_DIRECTORY | libc::O_NOFOLLOW | libc::O_CLOEXEC)
            .open(path)?;
        match dir.try_lock() {
            Ok(()) => {}
            Err(fs::TryLockError::WouldBlock) => return Err(busy(what)),
            Err(fs::TryLockError::Error(e)) => return Err(e),
        }
        if still_names(path, &dir)? {
            return Ok(dir);
        }
    }
    Err(busy(what))
}

fn busy(what: &str) -> io::Error {
    io::Error::other(Busy(format!(
        "another rate-batch run is writing {what} (it holds its lock); nothing was written: \
         try again when it has finished"
    )))
}

/// Syncs a folder's entries to disk.
fn sync_folder(path: &Path) -> io::Result<()> {
    File::open(path)?.sync_all()
}

/// The folder and the last component of a path.
fn split(path: &Path) -> io::Result<(PathBuf, String)> {
    let name = path
        .file_name()
        .and_then(OsStr::to_str)
        .filter(|n| !n.is_empty() && *n != "." && *n != "..")
        .ok_or_else(|| {
            io::Error::other(format!(
                "{} does not end in a file or folder name",
                path.display()
            ))
        })?;
    let parent = match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
        _ => PathBuf::from("."),
    };
    Ok((parent, name.to_string()))
}

/// Test hooks (debug builds only): `RATE_BATCH_FAULT` names a step that fails, so that the
/// tests can show what a failure there leaves behind.
fn fault(step: &str) -> bool {
    cfg!(debug_assertions)
        && std::env::var("RATE_BATCH_FAULT").is_ok_and(|v| v.split(',').any(|s| s == step))
}

fn injected(step: &str) -> io::Error {
    io::Error::other(format!("injected failure at {step} (RATE_BATCH_FAULT)"))
}

/// Removes what killed runs left beside `target` (`.NAME.rate-batch-*` with a valid check,
/// older than `start`, not held by a live run): a folder or a regular file only once its lock
/// is taken here (without waiting), since a live run holds the lock of every generation and
/// temporary file it is writing; anything else is left alone. Errors are ignored: a leftover
/// that cannot be removed now is tried again next time.
fn remove_leftovers(parent: &Path, base: &str, start: SystemTime) {
    let Ok(entries) = fs::read_dir(parent) else {
        return;
    };
    for e in entries.flatten() {
        let name = e.file_name();
        let Some(name) = name.to_str() else { continue };
        if !is_temporary_name(name, base) {
            continue;
        }
        let path = e.path();
        let Ok(meta) = fs::symlink_metadata(&path) else {
            continue;
        };
        if meta.modified().is_ok_and(|m| m >= start) {
            continue;
        }
        if meta.is_dir() {
            // A live run holds its generation's lock.
            if let Ok(d) = OpenOptions::new()
                .read(true)
                .custom_flags(libc::O_DIRECTORY | libc::O_NOFOLLOW | libc::O_CLOEXEC)
                .open(&path)
                && d.try_lock().is_ok()
            {
                let _ = remove_folder(&d, &path);
            }
        } else if meta.is_file() {
            // A live run holds the lock of the temporary file it is writing (see
            // `create_temporary`); the name must still be the file locked.
            if let Ok(f) = OpenOptions::new()
                .read(true)
                .custom_flags(libc::O_NOFOLLOW | libc::O_NONBLOCK | libc::O_CLOEXEC)
                .open(&path)
                && f.try_lock().is_ok()
                && still_names(&path, &f).unwrap_or(false)
            {
                let _ = fs::remove_file(&path);
            }
        }
    }
}

/// An output folder being written as one new generation; see the module documentation.
pub struct Publication {
    target: PathBuf,
    parent: PathBuf,
    generation: PathBuf,
    /// Top-level names this kind of run writes: the previous run's files of these names are
    /// replaced (or dropped when this run does not write them), everything else carried over.
    owned: Vec<String>,
    written: Mutex<Vec<PathBuf>>,
    /// The output folder, opened and locked at the start (after the swap: the previous
    /// generation, under the temporary name). Its metadata is read through this descriptor,
    /// never by path, so that a folder put at the path meanwhile is not taken for it.
    folder_fd: File,
    /// The new generation, opened and locked when made: its mode and owner are set through
    /// this descriptor, never by path (a path someone renamed and replaced with a symbolic
    /// link would be followed).
    generation_fd: File,
    committed: bool,
    /// The folder did not exist before this run (removed again, if still empty, on failure).
    created: bool,
    /// Why the new generation cannot replace the folder itself (its files are then renamed
    /// into it).
    why_not_swap: Option<String>,
    /// Files were written without a sync of their own ([`Folder::write_unsynced`]): the
    /// generation's file system is synced once before the swap.
    unsynced: std::sync::atomic::AtomicBool,
}

impl Publication {
    /// Starts a generation for the folder `target` (created if missing), holding its lock.
    /// `owned` lists the top-level names (files or folders) this kind of run writes.
    pub fn begin(target: &Path, owned: &[&str]) -> io::Result<Self> {
        let start = SystemTime::now();
        let (parent, base) = split(target)?;
        fs::create_dir_all(&parent)?;
        let mut created = false;
        match fs::symlink_metadata(target) {
            Ok(m) if m.file_type().is_symlink() => {
                return Err(io::Error::other(format!(
                    "{} is a symbolic link: the output folder is replaced as a whole, so give \
                     the folder itself (not followed, so that nobody can redirect the outputs)",
                    target.display()
                )));
            }
            Ok(m) if !m.is_dir() => {
                return Err(io::Error::other(format!(
                    "{} exists and is not a folder",
                    target.display()
                )));
            }
            Ok(_) => {}
            Err(e) if e.kind() == io::ErrorKind::NotFound => match fs::create_dir(target) {
                Ok(()) => created = true,
                Err(e) if e.kind() == io::ErrorKind::AlreadyExists => {}
                Err(e) => return Err(e),
            },
            Err(e) => return Err(e),
        }
        let lock = lock_folder(target, &target.display().to_string())?;
        // A folder the run may not write is refused, as writing into it always was: the swap
        // itself needs only the parent writable, but would replace the content of a folder
        // made read-only (root may write anything and passes).
        if let Err(e) = writable(target) {
            return Err(io::Error::new(
                e.kind(),
                format!(
                    "{} is not writable by this run ({e}): the outputs replace files in it, so \
                     give it write permission (chmod u+w) or choose another folder",
                    target.display()
                ),
            ));
        }
        remove_leftovers(&parent, &base, start);
        remove_leftovers(target, INNER, start);
        // Beside the folder; where its parent is not writable (a folder the run may write in
        // a folder it may not), inside it, and then written into by renames.
        let mut inside = None;
        let mut generation = parent.join(temporary_name(&base));
        let beside = if fault("no-sibling") {
            Err(io::Error::from_raw_os_error(libc::EACCES))
        } else {
            fs::DirBuilder::new().mode(0o700).create(&generation)
        };
        if let Err(e) = beside {
            if !matches!(
                e.raw_os_error(),
                Some(libc::EACCES) | Some(libc::EPERM) | Some(libc::EROFS)
            ) {
                return Err(e);
            }
            generation = target.join(temporary_name(INNER));
            fs::DirBuilder::new().mode(0o700).create(&generation)?;
            inside = Some(format!(
                "its parent folder is not writable ({e}), so a new folder cannot be made beside it"
            ));
        }
        let gen_lock = lock_folder(&generation, &target.display().to_string())?;
        // The new folder must be able to take the old one's place exactly: its group now (so
        // that files inherit it as they would in the folder, when it is set-group-id), its
        // owner at the swap (root only; another user's folder is kept and written into). Both
        // folders are read and changed through the descriptors held, not by path.
        let old = lock.metadata()?;
        let euid = unsafe_geteuid();
        let why_not_swap = if inside.is_some() {
            inside
        } else if euid != 0 && old.uid() != euid {
            Some("the folder belongs to another user".to_string())
        } else if gen_lock.metadata()?.gid() != old.gid()
            && std::os::unix::fs::fchown(&gen_lock, None, Some(old.gid())).is_err()
        {
            Some("a new folder cannot be given the folder's group".to_string())
        } else if has_default_acl(&lock) {
            Some("the folder has a default ACL, which a new folder would lack".to_string())
        } else {
            if old.mode() & 0o2000 != 0 {
                gen_lock.set_permissions(fs::Permissions::from_mode(0o2700))?;
            }
            None
        };
        Ok(Self {
            target: target.to_path_buf(),
            parent,
            generation,
            owned: owned.iter().map(std::string::ToString::to_string).collect(),
            written: Mutex::new(Vec::new()),
            folder_fd: lock,
            generation_fd: gen_lock,
            committed: false,
            created,
            why_not_swap,
            unsynced: std::sync::atomic::AtomicBool::new(false),
        })
    }

    /// The folder as a whole.
    pub fn root(&self) -> Folder<'_> {
        Folder {
            publication: self,
            rel: PathBuf::new(),
        }
    }

    /// A subfolder (created in the new generation, through its descriptor).
    pub fn folder(&self, name: &str) -> io::Result<Folder<'_>> {
        let mut rel = PathBuf::new();
        for part in Path::new(name).components() {
            let std::path::Component::Normal(part) = part else {
                return Err(io::Error::other(format!(
                    "{name} is not a plain folder name"
                )));
            };
            rel.push(part);
            match mkdir_at(self.generation_fd.as_raw_fd(), &cpath(&rel)?, 0o777) {
                Err(e) if e.kind() != io::ErrorKind::AlreadyExists => return Err(e),
                _ => {}
            }
        }
        Ok(Folder {
            publication: self,
            rel: PathBuf::from(name),
        })
    }

    /// The final paths of the files written, in the order written.
    pub fn targets(&self) -> Vec<PathBuf> {
        let written = self
            .written
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        written.iter().map(|r| self.target.join(r)).collect()
    }

    /// Makes the new generation the folder's content, at once; returns the files' paths.
    pub fn commit(mut self) -> io::Result<Vec<PathBuf>> {
        // The swap replaces the folder itself: only when the new one can be the old one
        // exactly (owner, group, default ACL, every entry carried over); else the files are
        // renamed into the folder, which keeps it.
        let mut why_not = self.why_not_swap.take();
        if why_not.is_none()
            && let Err(why) = self.carry_over()
        {
            why_not = Some(why);
        }
        let written = self.targets();
        // Files written without their own sync: the whole file system once (one call for
        // thousands of pages instead of one each).
        if self.unsynced.load(std::sync::atomic::Ordering::Relaxed) {
            sync_file_system(&self.generation_fd)?;
        }
        // Every folder of the generation to disk (the other files were synced as they
        // finished).
        sync_tree(&self.generation_fd)?;
        if fault("kill-before-swap") {
            std::process::abort();
        }
        let swapped = match why_not {
            Some(why) => Err(why),
            None => {
                // The folder keeps its permissions, group and (for root) owner: read from the
                // folder locked at the start, set on the new generation's descriptor (a path
                // would follow a symbolic link planted at it).
                let old = self.folder_fd.metadata()?;
                if unsafe_geteuid() == 0 {
                    std::os::unix::fs::fchown(
                        &self.generation_fd,
                        Some(old.uid()),
                        Some(old.gid()),
                    )?;
                }
                self.generation_fd
                    .set_permissions(fs::Permissions::from_mode(old.mode() & 0o7777))?;
                // The swap goes by path: both paths must still name the folders held.
                for (path, held) in [
                    (&self.target, &self.folder_fd),
                    (&self.generation, &self.generation_fd),
                ] {
                    if !still_names(path, held)? {
                        return Err(io::Error::other(format!(
                            "{} was moved or replaced during the run (by someone who can write \
                             {}); nothing was published",
                            path.display(),
                            self.parent.display()
                        )));
                    }
                }
                match exchange(&self.generation, &self.target) {
                    Ok(()) => Ok(()),
                    Err(e) if unsupported(&e) => {
                        Err(format!("this file system cannot swap folders ({e})"))
                    }
                    Err(e) => return Err(e),
                }
            }
        };
        match swapped {
            Ok(()) => {
                self.committed = true;
                sync_folder(&self.parent)?;
                // The previous generation now has the temporary name (and is the folder
                // locked at the start).
                let _ = remove_folder(&self.folder_fd, &self.generation);
            }
            Err(why) => {
                eprintln!(
                    "warning: {}: {why}; its files are renamed into it one by one instead of \
                     swapped in at once (a reader may see a mix of two runs meanwhile)",
                    self.target.display()
                );
                self.rename_each()?;
                self.committed = true;
                self.folder_fd.sync_all()?;
                let _ = remove_folder(&self.generation_fd, &self.generation);
            }
        }
        Ok(written)
    }

    /// Links the entries of the current folder that this run neither writes nor owns into
    /// the new generation, walking both by folder descriptors (an entry swapped for a
    /// symbolic link meanwhile is never followed). Only what can be carried exactly is: a
    /// file or link as a hard link to the same inode (never a copy, which would change its
    /// owner, or keep a set-user-id bit on a copy made by root), a folder recreated with its
    /// owner and mode. Anything else (another user's file that cannot be linked, another
    /// user's folder when the run is not root, a mount point) is the reason returned, and
    /// the run then publishes by renaming its own files into the folder instead.
    fn carry_over(&self) -> Result<(), String> {
        if fault("carry") {
            return Err("injected failure while carrying entries over (RATE_BATCH_FAULT)".into());
        }
        let root = self.folder_fd.metadata().map_err(|e| e.to_string())?;
        let walk = Walk {
            dev: root.dev(),
            euid: unsafe_geteuid(),
        };
        let names: Vec<String> = self.owned.clone();
        walk.carry(
            self.folder_fd.as_raw_fd(),
            self.generation_fd.as_raw_fd(),
            &|name: &[u8]| names.iter().any(|o| o.as_bytes() == name),
            Path::new(""),
        )
    }

    /// The fallback without an atomic swap: each file renamed into place, the replaced ones
    /// kept aside and put back if any rename fails. Every rename is made relative to the
    /// folders' descriptors, not by path.
    fn rename_each(&self) -> io::Result<()> {
        let (new, live) = (self.generation_fd.as_raw_fd(), self.folder_fd.as_raw_fd());
        let aside_name = cstr(temporary_name("previous").as_bytes())?;
        mkdir_at(new, &aside_name, 0o700)?;
        let aside_fd = open_dir_at(new, &aside_name)?;
        let aside = aside_fd.as_raw_fd();
        // (from, to, name) of each rename made.
        let mut moves: Vec<(RawFd, RawFd, CString)> = Vec::new();
        // The previous content of the owned names goes aside, the new content comes in.
        let result = (|| -> io::Result<()> {
            for (k, n) in self.owned.iter().enumerate() {
                let name = cstr(n.as_bytes())?;
                if stat_at(live, &name).is_ok() {
                    if fault(&format!("rename:{}", 2 * k)) {
                        return Err(injected("a rename"));
                    }
                    rename_at(live, &name, aside, &name)?;
                    moves.push((live, aside, name.clone()));
                }
                if stat_at(new, &name).is_ok() {
                    if fault(&format!("rename:{}", 2 * k + 1)) {
                        return Err(injected("a rename"));
                    }
                    rename_at(new, &name, live, &name)?;
                    moves.push((new, live, name));
                }
            }
            Ok(())
        })();
        if let Err(e) = result {
            // Undo in reverse order: the previous set is whole again.
            for (from, to, name) in moves.iter().rev() {
                let _ = rename_at(*to, name, *from, name);
            }
            return Err(e);
        }
        Ok(())
    }
}

impl Drop for Publication {
    fn drop(&mut self) {
        if !self.committed {
            let _ = remove_folder(&self.generation_fd, &self.generation);
            // The folder this run made, if still empty and still the one at the path.
            if self.created && still_names(&self.target, &self.folder_fd).unwrap_or(false) {
                let _ = fs::remove_dir(&self.target);
            }
        }
    }
}

fn unsafe_geteuid() -> u32 {
    // SAFETY: geteuid has no preconditions.
    unsafe { libc::geteuid() }
}

/// The walk of [`Publication::carry_over`].
struct Walk {
    /// The output folder's device: an entry on another is a mount point.
    dev: u64,
    euid: u32,
}

/// An owned directory stream over a duplicate of a folder descriptor.
struct DirStream(*mut libc::DIR);

impl DirStream {
    fn open(fd: RawFd) -> io::Result<Self> {
        // SAFETY: dup of a descriptor this process holds; fdopendir takes the duplicate over.
        unsafe {
            let d = libc::dup(fd);
            if d < 0 {
                return Err(io::Error::last_os_error());
            }
            let dir = libc::fdopendir(d);
            if dir.is_null() {
                let e = io::Error::last_os_error();
                libc::close(d);
                return Err(e);
            }
            libc::rewinddir(dir);
            Ok(Self(dir))
        }
    }

    /// The next entry's name (without `.` and `..`).
    fn next_name(&mut self) -> Option<Vec<u8>> {
        loop {
            // SAFETY: the stream is open; readdir's entry is valid until the next call, and
            // its name is copied out before that.
            let name = unsafe {
                let ent = libc::readdir(self.0);
                if ent.is_null() {
                    return None;
                }
                std::ffi::CStr::from_ptr((*ent).d_name.as_ptr())
                    .to_bytes()
                    .to_vec()
            };
            if name != b"." && name != b".." {
                return Some(name);
            }
        }
    }
}

impl Drop for DirStream {
    fn drop(&mut self) {
        // SAFETY: closes the stream opened in `open`, once.
        unsafe { libc::closedir(self.0) };
    }
}

fn cstr(name: &[u8]) -> io::Result<CString> {
    CString::new(name).map_err(|e| io::Error::other(e.to_string()))
}

fn cpath(path: &Path) -> io::Result<CString> {
    use std::os::unix::ffi::OsStrExt;
    cstr(path.as_os_str().as_bytes())
}

/// A system call's 0 or -1 as a result.
fn cvt(r: libc::c_int) -> io::Result<()> {
    if r == 0 {
        Ok(())
    } else {
        Err(io::Error::last_os_error())
    }
}

/// `fstatat` of a name relative to an open folder, not following a symbolic link.
fn stat_at(at: RawFd, name: &CStr) -> io::Result<libc::stat> {
    // SAFETY: fills a zeroed struct for a NUL-terminated name relative to an open folder.
    unsafe {
        let mut st: libc::stat = std::mem::zeroed();
        cvt(libc::fstatat(
            at,
            name.as_ptr(),
            &mut st,
            libc::AT_SYMLINK_NOFOLLOW,
        ))?;
        Ok(st)
    }
}

fn is_dir(st: &libc::stat) -> bool {
    st.st_mode & libc::S_IFMT == libc::S_IFDIR
}

/// Opens a folder relative to an open one, never through a symbolic link at its last
/// component.
fn open_dir_at(at: RawFd, name: &CStr) -> io::Result<File> {
    // SAFETY: openat of a NUL-terminated name relative to an open folder; the descriptor is
    // owned by the File returned.
    let fd = unsafe {
        libc::openat(
            at,
            name.as_ptr(),
            libc::O_RDONLY | libc::O_DIRECTORY | libc::O_NOFOLLOW | libc::O_CLOEXEC,
        )
    };
    if fd < 0 {
        return Err(io::Error::last_os_error());
    }
    // SAFETY: a descriptor just opened and owned by nobody else.
    Ok(unsafe { File::from_raw_fd(fd) })
}

/// Creates a file that did not exist, relative to an open folder, never through a symbolic
/// link at its last component.
fn create_at(at: RawFd, name: &CStr, mode: u32) -> io::Result<File> {
    // SAFETY: as in `open_dir_at`.
    let fd = unsafe {
        libc::openat(
            at,
            name.as_ptr(),
            libc::O_WRONLY | libc::O_CREAT | libc::O_EXCL | libc::O_NOFOLLOW | libc::O_CLOEXEC,
            mode as libc::c_uint,
        )
    };
    if fd < 0 {
        return Err(io::Error::last_os_error());
    }
    // SAFETY: a descriptor just opened and owned by nobody else.
    Ok(unsafe { File::from_raw_fd(fd) })
}

fn mkdir_at(at: RawFd, name: &CStr, mode: u32) -> io::Result<()> {
    // SAFETY: mkdirat of a NUL-terminated name relative to an open folder.
    cvt(unsafe { libc::mkdirat(at, name.as_ptr(), mode as libc::mode_t) })
}

fn rename_at(from: RawFd, old: &CStr, to: RawFd, new: &CStr) -> io::Result<()> {
    // SAFETY: renameat of NUL-terminated names relative to two open folders.
    cvt(unsafe { libc::renameat(from, old.as_ptr(), to, new.as_ptr()) })
}

/// Checks that the run may write in a folder (its effective user and groups, as `open` would).
fn writable(path: &Path) -> io::Result<()> {
    let p = cpath(path)?;
    // SAFETY: faccessat of a NUL-terminated path; nothing is written.
    cvt(unsafe { libc::faccessat(libc::AT_FDCWD, p.as_ptr(), libc::W_OK, libc::AT_EACCESS) })
}

/// Deletes a folder this module made or swapped out, `held` being open on it (and locked):
/// its content through descriptors (see [`empty_folder`]), then its name if `path` still
/// names it. A leftover that cannot be removed now is tried again by the next run.
fn remove_folder(held: &File, path: &Path) -> io::Result<()> {
    let (euid, st) = (unsafe_geteuid(), held.metadata()?);
    allow_own(held, st.uid(), st.mode(), euid)?;
    empty_folder(held.as_raw_fd(), st.dev(), euid)?;
    if still_names(path, held)? {
        fs::remove_dir(path)?;
    }
    Ok(())
}

/// Gives a folder of the run's own user u+rwx, so that it can be emptied even when made
/// read-only (0555). Root needs no permission bits; other users' folders are left as they
/// are (the carry-over walk never puts one into a generation a non-root run swaps).
fn allow_own(dir: &File, uid: u32, mode: u32, euid: u32) -> io::Result<()> {
    if euid != 0 && uid == euid && mode & 0o700 != 0o700 {
        dir.set_permissions(fs::Permissions::from_mode((mode | 0o700) & 0o7777))?;
    }
    Ok(())
}

/// Deletes everything in an open folder, through descriptors: a name swapped for a symbolic
/// link meanwhile is removed, never followed, and nothing on another file system (`dev`
/// differs: a mount point) is entered. Goes on past an entry that cannot be removed and
/// returns the first error.
fn empty_folder(dir: RawFd, dev: u64, euid: u32) -> io::Result<()> {
    let mut names = Vec::new();
    let mut stream = DirStream::open(dir)?;
    while let Some(name) = stream.next_name() {
        names.push(cstr(&name)?);
    }
    drop(stream);
    let mut result = Ok(());
    for name in names {
        let r = match stat_at(dir, &name) {
            Ok(st) if is_dir(&st) && st.st_dev != dev => Err(io::Error::other(format!(
                "{} is a mount point",
                name.to_string_lossy()
            ))),
            Ok(st) if is_dir(&st) => remove_at(dir, &name, dev, euid),
            // SAFETY: unlinkat of a NUL-terminated name relative to an open folder.
            Ok(_) => cvt(unsafe { libc::unlinkat(dir, name.as_ptr(), 0) }),
            Err(e) => Err(e),
        };
        if result.is_ok() {
            result = r;
        }
    }
    result
}

/// Deletes the folder `name` in the open folder `at` and everything in it (see
/// [`empty_folder`]); a folder of the run's user that it may not even read is given u+rwx
/// first (by name, not following a link).
fn remove_at(at: RawFd, name: &CStr, dev: u64, euid: u32) -> io::Result<()> {
    let st = stat_at(at, name)?;
    let sub = match open_dir_at(at, name) {
        Err(e) if e.raw_os_error() == Some(libc::EACCES) && euid != 0 && st.st_uid == euid => {
            // SAFETY: fchmodat of a NUL-terminated name relative to an open folder.
            cvt(unsafe {
                libc::fchmodat(
                    at,
                    name.as_ptr(),
                    (st.st_mode | 0o700) & 0o7777,
                    libc::AT_SYMLINK_NOFOLLOW,
                )
            })?;
            open_dir_at(at, name)?
        }
        r => r?,
    };
    allow_own(&sub, st.st_uid, st.st_mode, euid)?;
    empty_folder(sub.as_raw_fd(), dev, euid)?;
    // SAFETY: unlinkat of a NUL-terminated name relative to an open folder.
    cvt(unsafe { libc::unlinkat(at, name.as_ptr(), libc::AT_REMOVEDIR) })
}

/// Syncs an open folder and every folder below it, through descriptors (one open per level).
/// Syncs the file system that holds `dir` (every file written in it).
fn sync_file_system(dir: &File) -> io::Result<()> {
    #[cfg(target_os = "linux")]
    {
        // SAFETY: a plain system call on a descriptor we own.
        if unsafe { libc::syncfs(dir.as_raw_fd()) } == 0 {
            return Ok(());
        }
        Err(io::Error::last_os_error())
    }
    #[cfg(not(target_os = "linux"))]
    {
        let _ = dir;
        // SAFETY: sync(2) takes no arguments.
        unsafe { libc::sync() };
        Ok(())
    }
}

fn sync_tree(dir: &File) -> io::Result<()> {
    let mut folders = Vec::new();
    let mut stream = DirStream::open(dir.as_raw_fd())?;
    while let Some(name) = stream.next_name() {
        let name = cstr(&name)?;
        if is_dir(&stat_at(dir.as_raw_fd(), &name)?) {
            folders.push(name);
        }
    }
    drop(stream);
    for name in folders {
        sync_tree(&open_dir_at(dir.as_raw_fd(), &name)?)?;
    }
    dir.sync_all()
}

impl Walk {
    /// Carries the entries of folder `src` into folder `dst` (descriptors), skipping the
    /// names `skip` owns (top level only). `rel` names the folder in messages.
    fn carry(
        &self,
        src: RawFd,
        dst: RawFd,
        skip: &dyn Fn(&[u8]) -> bool,
        rel: &Path,
    ) -> Result<(), String> {
        let mut stream = DirStream::open(src).map_err(|e| e.to_string())?;
        while let Some(name) = stream.next_name() {
            if skip(&name) {
                continue;
            }
            let shown = rel.join(String::from_utf8_lossy(&name).as_ref());
            let why = |what: String| format!("`{}` {what}", shown.display());
            let c = cstr(&name).map_err(|e| why(e.to_string()))?;
            let st = stat_at(src, &c).map_err(|e| why(e.to_string()))?;
            if st.st_dev != self.dev {
                return Err(why("is a mount point".into()));
            }
            if is_dir(&st) {
                if self.euid != 0 && st.st_uid != self.euid {
                    return Err(why("is another user's folder".into()));
                }
                self.carry_folder(src, dst, &c, &st, &shown)
                    .map_err(|e| why(e.clone()))?;
            } else {
                // SAFETY: links a name relative to one open folder into another; flags 0: a
                // symbolic link is linked itself, never followed.
                if unsafe { libc::linkat(src, c.as_ptr(), dst, c.as_ptr(), 0) } != 0 {
                    return Err(why(format!(
                        "cannot be linked into the new folder ({})",
                        io::Error::last_os_error()
                    )));
                }
            }
        }
        Ok(())
    }

    fn carry_folder(
        &self,
        src: RawFd,
        dst: RawFd,
        name: &CStr,
        st: &libc::stat,
        shown: &Path,
    ) -> Result<(), String> {
        let from = open_dir_at(src, name).map_err(|e| e.to_string())?;
        mkdir_at(dst, name, 0o700).map_err(|e| e.to_string())?;
        let to = open_dir_at(dst, name).map_err(|e| e.to_string())?;
        self.carry(from.as_raw_fd(), to.as_raw_fd(), &|_| false, shown)?;
        // Owner (root only) and mode of the folder just made, through its descriptor.
        if self.euid == 0 {
            std::os::unix::fs::fchown(&to, Some(st.st_uid), Some(st.st_gid))
                .map_err(|e| e.to_string())?;
        }
        to.set_permissions(fs::Permissions::from_mode(st.st_mode & 0o7777))
            .map_err(|e| e.to_string())
    }
}

/// Errors of `renameat2(RENAME_EXCHANGE)` that mean the file system (or the layering, as
/// overlayfs's lower layers) cannot swap these folders, rather than a failure to write.
fn unsupported(e: &io::Error) -> bool {
    matches!(
        e.raw_os_error(),
        Some(libc::EINVAL)
            | Some(libc::ENOSYS)
            | Some(libc::EOPNOTSUPP)
            | Some(libc::EXDEV)
            | Some(libc::EPERM)
    ) || e.kind() == io::ErrorKind::Unsupported
}

/// True when an open folder has a default ACL (which files created in it inherit, and a new
/// folder would not have).
fn has_default_acl(dir: &File) -> bool {
    // SAFETY: asks the size of an attribute of an open descriptor; no buffer is written.
    #[cfg(target_os = "linux")]
    let n = unsafe {
        libc::fgetxattr(
            dir.as_raw_fd(),
            c"system.posix_acl_default".as_ptr(),
            std::ptr::null_mut(),
            0,
        )
    };
    #[cfg(not(target_os = "linux"))]
    let n = {
        let _ = dir;
        -1
    };
    n > 0
}

/// True when `path` (not followed if a symbolic link) still names the file `held` is open on.
fn still_names(path: &Path, held: &File) -> io::Result<bool> {
    let held = held.metadata()?;
    Ok(match fs::symlink_metadata(path) {
        Ok(now) => (now.dev(), now.ino()) == (held.dev(), held.ino()),
        Err(e) if e.kind() == io::ErrorKind::NotFound => false,
        Err(e) => return Err(e),
    })
}

/// Swaps two paths atomically.
#[cfg(target_os = "linux")]
fn exchange(a: &Path, b: &Path) -> io::Result<()> {
    use std::os::unix::ffi::OsStrExt;
    if fault("no-exchange") {
        return Err(io::Error::from_raw_os_error(libc::EINVAL));
    }
    if fault("exchange") {
        return Err(injected("the swap"));
    }
    let ca = std::ffi::CString::new(a.as_os_str().as_bytes())?;
    let cb = std::ffi::CString::new(b.as_os_str().as_bytes())?;
    // SAFETY: two valid NUL-terminated paths; renameat2 only reads them.
    let r = unsafe {
        libc::renameat2(
            libc::AT_FDCWD,
            ca.as_ptr(),
            libc::AT_FDCWD,
            cb.as_ptr(),
            libc::RENAME_EXCHANGE,
        )
    };
    if r == 0 {
        Ok(())
    } else {
        Err(io::Error::last_os_error())
    }
}

#[cfg(not(target_os = "linux"))]
fn exchange(_: &Path, _: &Path) -> io::Result<()> {
    Err(io::Error::from(io::ErrorKind::Unsupported))
}

/// A folder of a [`Publication`] to write files into.
#[derive(Clone)]
pub struct Folder<'p> {
    publication: &'p Publication,
    rel: PathBuf,
}

impl<'p> Folder<'p> {
    /// A subfolder of this one (created in the new generation, through its descriptor, as
    /// [`Publication::folder`] does).
    pub fn folder(&self, name: &str) -> io::Result<Folder<'p>> {
        let rel = self.rel.join(name);
        let rel = rel
            .to_str()
            .ok_or_else(|| io::Error::other(format!("{name} is not a plain folder name")))?;
        self.publication.folder(rel)
    }
}

impl Folder<'_> {
    /// Opens `name` for writing; [`StagedFile::finish`] completes it. Created relative to the
    /// new generation's descriptor (its path could have been replaced meanwhile).
    pub fn open(&self, name: &str) -> io::Result<StagedFile> {
        self.open_buffered(name, 1 << 20)
    }

    fn open_buffered(&self, name: &str, capacity: usize) -> io::Result<StagedFile> {
        let rel = self.rel.join(name);
        let file = create_at(
            self.publication.generation_fd.as_raw_fd(),
            &cpath(&rel)?,
            0o666,
        )?;
        self.publication
            .written
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .push(rel);
        Ok(StagedFile(BufWriter::with_capacity(capacity, file)))
    }

    /// Writes `name` through `write`.
    pub fn write(
        &self,
        name: &str,
        write: impl FnOnce(&mut dyn Write) -> io::Result<()>,
    ) -> io::Result<()> {
        let mut file = self.open(name)?;
        write(&mut file)?;
        file.finish()
    }

    /// Writes `name` through `write` without syncing it on its own: for outputs of many small
    /// files (a website's pages), synced together before the swap (`syncfs`).
    pub fn write_unsynced(
        &self,
        name: &str,
        write: impl FnOnce(&mut dyn Write) -> io::Result<()>,
    ) -> io::Result<()> {
        // Small files: a small buffer (a megabyte each would be mapped and unmapped per page).
        let mut file = self.open_buffered(name, 64 << 10)?;
        write(&mut file)?;
        self.publication
            .unsynced
            .store(true, std::sync::atomic::Ordering::Relaxed);
        file.0.flush()
    }

    /// Where `name` will be once published (for messages).
    pub fn final_path(&self, name: &str) -> PathBuf {
        self.publication.target.join(&self.rel).join(name)
    }

    /// Drops a subfolder and what was written in it from the new generation (a system of
    /// `compare` that failed leaves no folder).
    pub fn discard(self) -> io::Result<()> {
        if self.rel.as_os_str().is_empty() {
            return Ok(());
        }
        self.publication
            .written
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .retain(|r| !r.starts_with(&self.rel));
        let generation = &self.publication.generation_fd;
        remove_at(
            generation.as_raw_fd(),
            &cpath(&self.rel)?,
            generation.metadata()?.dev(),
            unsafe_geteuid(),
        )
    }
}

/// A file being written.
pub struct StagedFile(BufWriter<File>);

impl StagedFile {
    /// Flushes and syncs the file to disk.
    pub fn finish(self) -> io::Result<()> {
        let file = self
            .0
            .into_inner()
            .map_err(std::io::IntoInnerError::into_error)?;
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

/// The lock of a single file (a state): `.NAME.lock` beside it, created if missing and kept.
pub struct FileLock(#[allow(dead_code)] File);

impl FileLock {
    /// Takes the lock of `path`, or fails at once if another run holds it.
    pub fn take(path: &Path) -> io::Result<Self> {
        let (dir, base) = split(path)?;
        fs::create_dir_all(&dir)?;
        let lock_path = dir.join(format!(".{base}.lock"));
        let f = OpenOptions::new()
            .read(true)
            .write(true)
            .create(true)
            .truncate(false)
            .mode(0o600)
            .custom_flags(libc::O_NOFOLLOW | libc::O_CLOEXEC)
            .open(&lock_path)
            .map_err(|e| {
                io::Error::new(
                    e.kind(),
                    format!("cannot open the lock {}: {e}", lock_path.display()),
                )
            })?;
        match f.try_lock() {
            Ok(()) => Ok(Self(f)),
            Err(fs::TryLockError::WouldBlock) => Err(busy(&path.display().to_string())),
            Err(fs::TryLockError::Error(e)) => Err(e),
        }
    }
}

/// Writes one file atomically through `write`: under an exclusive temporary name in its
/// folder, synced, renamed over `path` (a symbolic link there is replaced, never followed), and
/// the folder synced. A killed run's temporary files for `path` are removed first.
pub fn write_one(
    path: &Path,
    write: impl FnOnce(&mut dyn Write) -> io::Result<()>,
) -> io::Result<()> {
    let start = SystemTime::now();
    let (dir, base) = split(path)?;
    fs::create_dir_all(&dir)?;
    remove_leftovers(&dir, &base, start);
    let tmp = dir.join(temporary_name(&base));
    // Locked until renamed (and closed when that is done). Removed on failure only once made
    // here: a name that already existed is another run's.
    let file = create_temporary(&tmp, 0o666)?;
    let result = (|| {
        let mut w = BufWriter::with_capacity(1 << 20, file);
        write(&mut w)?;
        let file = w
            .into_inner()
            .map_err(std::io::IntoInnerError::into_error)?;
        file.sync_all()?;
        if fault("replace-file") {
            return Err(injected("the rename"));
        }
        fs::rename(&tmp, path)?;
        sync_folder(&dir)
    })();
    if result.is_err() {
        let _ = fs::remove_file(&tmp);
    }
    result
}

/// Files in any folders, each written under an exclusive temporary name and renamed into
/// place by [`FileSet::commit`] (for single-file outputs: simulations, matchmaking pairs).
#[derive(Default)]
pub struct FileSet {
    /// (temporary path, final path, the temporary file's lock): the lock is held by this
    /// descriptor (sharing the open file with the [`StagedFile`]) until the set is committed
    /// or dropped, so a finished file waiting for the commit is not taken for a leftover.
    files: Vec<(PathBuf, PathBuf, File)>,
    committed: bool,
}

impl FileSet {
    /// A new, empty set.
    pub fn new() -> Self {
        Self::default()
    }

    /// Opens `path` for writing under its temporary name; [`StagedFile::finish`] completes
    /// it.
    pub fn open(&mut self, path: &Path) -> io::Result<StagedFile> {
        let (dir, base) = split(path)?;
        fs::create_dir_all(&dir)?;
        remove_leftovers(&dir, &base, SystemTime::now());
        let tmp = dir.join(temporary_name(&base));
        let file = create_temporary(&tmp, 0o666)?;
        let lock = match file.try_clone() {
            Ok(lock) => lock,
            Err(e) => {
                let _ = fs::remove_file(&tmp);
                return Err(e);
            }
        };
        self.files.push((tmp, path.to_path_buf(), lock));
        Ok(StagedFile(BufWriter::with_capacity(1 << 20, file)))
    }

    /// Writes `path` under its temporary name through `write`.
    pub fn write(
        &mut self,
        path: &Path,
        write: impl FnOnce(&mut dyn Write) -> io::Result<()>,
    ) -> io::Result<()> {
        let mut w = self.open(path)?;
        write(&mut w)?;
        w.finish()
    }

    /// Renames every file into place.
    pub fn commit(mut self) -> io::Result<Vec<PathBuf>> {
        for (tmp, target, _) in &self.files {
            fs::rename(tmp, target)?;
            let (dir, _) = split(target)?;
            sync_folder(&dir)?;
        }
        self.committed = true;
        Ok(self.files.iter().map(|(_, t, _)| t.clone()).collect())
    }
}

impl Drop for FileSet {
    fn drop(&mut self) {
        if !self.committed {
            for (tmp, _, _) in &self.files {
                let _ = fs::remove_file(tmp);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn temporary_names_are_random_and_recognised() {
        let names: std::collections::HashSet<String> =
            (0..2000).map(|_| temporary_name("out")).collect();
        assert_eq!(names.len(), 2000, "48 random bits: no repeats");
        for n in &names {
            assert!(is_temporary_name(n, "out"), "{n}");
            assert!(!is_temporary_name(n, "ou"), "{n}");
        }
        // Foreign names that only look alike are not ours.
        for n in [
            ".out.rate-batch-000000000000ffff",
            ".out.rate-batch-abc",
            ".out.tmp-123",
            ".x.tmp-123",
            "out.rate-batch-0123456789abcdef",
        ] {
            assert!(!is_temporary_name(n, "out"), "{n}");
        }
    }

    /// The clean-up removes a killed run's temporary file, but never one a live run still
    /// holds: being written, or finished and waiting in its set for the commit.
    #[test]
    fn the_clean_up_leaves_the_temporary_files_of_live_runs() {
        let dir = tempfile::TempDir::new().unwrap();
        let target = dir.path().join("pairs.csv");
        let temporaries = || {
            let mut v: Vec<String> = fs::read_dir(dir.path())
                .unwrap()
                .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
                .filter(|n| is_temporary_name(n, "pairs.csv"))
                .collect();
            v.sort();
            v
        };
        let mut waiting = FileSet::new();
        waiting.write(&target, |w| w.write_all(b"new")).unwrap();
        let mut writing = FileSet::new();
        let mut open = writing.open(&target).unwrap();
        open.write_all(b"half").unwrap();
        let live = temporaries();
        assert_eq!(live.len(), 2);
        let dead = dir.path().join(temporary_name("pairs.csv"));
        fs::write(&dead, "killed").unwrap();
        assert_eq!(temporaries().len(), 3);
        // Every one is older than this start.
        let later = SystemTime::now() + std::time::Duration::from_secs(3600);
        remove_leftovers(dir.path(), "pairs.csv", later);
        assert_eq!(temporaries(), live, "only the killed run's file goes");
        assert_eq!(waiting.commit().unwrap(), std::slice::from_ref(&target));
        assert_eq!(fs::read_to_string(&target).unwrap(), "new");
        drop(open);
        drop(writing);
        assert!(temporaries().is_empty());
    }

    #[test]
    fn a_publication_replaces_its_names_and_keeps_the_rest() {
        let dir = tempfile::TempDir::new().unwrap();
        let out = dir.path().join("out");
        let p = Publication::begin(&out, &["a.txt", "b.txt", "sub"]).unwrap();
        p.root().write("a.txt", |w| w.write_all(b"1a")).unwrap();
        p.root().write("b.txt", |w| w.write_all(b"1b")).unwrap();
        p.folder("sub")
            .unwrap()
            .write("c.txt", |w| w.write_all(b"1c"))
            .unwrap();
        let written = p.commit().unwrap();
        assert_eq!(written.len(), 3);
        fs::write(out.join("mine.txt"), "user").unwrap();
        // Second run: writes a.txt only; b.txt and sub (owned) go, mine.txt stays.
        let p = Publication::begin(&out, &["a.txt", "b.txt", "sub"]).unwrap();
        p.root().write("a.txt", |w| w.write_all(b"2a")).unwrap();
        p.commit().unwrap();
        let mut names: Vec<String> = fs::read_dir(&out)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        names.sort();
        assert_eq!(names, ["a.txt", "mine.txt"]);
        assert_eq!(fs::read_to_string(out.join("a.txt")).unwrap(), "2a");
        assert_eq!(fs::read_to_string(out.join("mine.txt")).unwrap(), "user");
        // Nothing left beside it.
        assert_eq!(fs::read_dir(dir.path()).unwrap().count(), 1);
        // A run that is dropped leaves the folder as it was and nothing beside it.
        let p = Publication::begin(&out, &["a.txt"]).unwrap();
        p.root().write("a.txt", |w| w.write_all(b"3a")).unwrap();
        // A second run meanwhile is refused.
        let e = Publication::begin(&out, &["a.txt"]).err().unwrap();
        assert!(
            e.to_string().contains("another rate-batch run is writing"),
            "{e}"
        );
        drop(p);
        assert_eq!(fs::read_to_string(out.join("a.txt")).unwrap(), "2a");
        assert_eq!(fs::read_dir(dir.path()).unwrap().count(), 1);
    }

    /// Someone who can write the output folder's parent renames the new generation away,
    /// plants a symbolic link to another folder at its name and puts a folder of theirs at the
    /// output's path: the run refuses to publish, and neither changes nor follows into the
    /// other folder (the mode and owner are set through the generation's descriptor).
    #[test]
    fn a_generation_replaced_by_a_link_is_refused_and_the_link_not_followed() {
        let dir = tempfile::TempDir::new().unwrap();
        let victim = dir.path().join("victim");
        fs::create_dir(&victim).unwrap();
        fs::write(victim.join("secret"), "secret").unwrap();
        fs::set_permissions(&victim, fs::Permissions::from_mode(0o700)).unwrap();
        let out = dir.path().join("out");
        let p = Publication::begin(&out, &["a.txt", "sub"]).unwrap();
        p.root().write("a.txt", |w| w.write_all(b"1a")).unwrap();
        fs::rename(&p.generation, dir.path().join("stolen")).unwrap();
        std::os::unix::fs::symlink(&victim, &p.generation).unwrap();
        fs::rename(&out, dir.path().join("out-orig")).unwrap();
        fs::create_dir(&out).unwrap();
        fs::set_permissions(&out, fs::Permissions::from_mode(0o777)).unwrap();
        // Files written after that still go into the generation, wherever it is now.
        p.folder("sub")
            .unwrap()
            .write("b.txt", |w| w.write_all(b"1b"))
            .unwrap();
        assert_eq!(
            fs::read_to_string(dir.path().join("stolen/sub/b.txt")).unwrap(),
            "1b"
        );
        let e = p.commit().unwrap_err();
        assert!(
            e.to_string()
                .contains("was moved or replaced during the run"),
            "{e}"
        );
        assert_eq!(fs::metadata(&victim).unwrap().mode() & 0o7777, 0o700);
        let names: Vec<String> = fs::read_dir(&victim)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        assert_eq!(names, ["secret"]);
        // Nothing was swapped: the path still names the folder put there.
        let now = fs::symlink_metadata(&out).unwrap();
        assert!(now.is_dir() && now.mode() & 0o7777 == 0o777);
    }

    #[test]
    fn a_replaced_file_is_whole_and_a_planted_link_is_replaced_not_followed() {
        let dir = tempfile::TempDir::new().unwrap();
        let victim = dir.path().join("victim");
        fs::write(&victim, "precious").unwrap();
        let state = dir.path().join("s.state");
        std::os::unix::fs::symlink(&victim, &state).unwrap();
        write_one(&state, |w| w.write_all(b"state")).unwrap();
        assert_eq!(fs::read_to_string(&victim).unwrap(), "precious");
        assert_eq!(fs::read_to_string(&state).unwrap(), "state");
        assert!(
            !fs::symlink_metadata(&state)
                .unwrap()
                .file_type()
                .is_symlink()
        );
        let _lock = FileLock::take(&state).unwrap();
        assert!(FileLock::take(&state).is_err(), "held");
    }
}
