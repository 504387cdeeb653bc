//! Outputs that appear whole or not at all, and that nobody else can redirect. The design and
//! its reasons are in `docs/outputs-and-state.md`.
//!
//! **An output folder** (`--out DIR`) is published as one generation: every file of a run is
//! written into a new folder beside DIR (`.DIR.rate-batch-<random>`, made by this run, mode
//! 0700) and synced; the entries of DIR the run does not write are carried into it (files as
//! hard links: the same inode, so owner, mode and ACLs come along; folders recreated); it is
//! given DIR's owner, group and mode, swapped with DIR in one `renameat2(RENAME_EXCHANGE)`, and
//! the previous generation is deleted. A run that fails or is killed before the swap leaves DIR
//! untouched.
//!
//! **One rule for what cannot be carried exactly:** the swap is made only when the new folder
//! can be the old one, and each test is the operation itself: the new folder and each recreated
//! subfolder must take its original owner and group (`fchown`: not another user's for a run
//! that is not root, nor a group the user is not in), each file must link, nothing may be a
//! mount point, DIR may have no default ACL, its parent must be writable and the file system
//! must swap. Otherwise the run renames its files into DIR one by one, putting the replaced ones
//! back if a rename fails, and warns that readers may see a mix meanwhile.
//!
//! **Descriptors, not paths.** DIR's parent is opened once; everything after goes through
//! descriptors of it, of DIR and of the generation, never following a symbolic link at a name
//! (`O_NOFOLLOW`, `AT_SYMLINK_NOFOLLOW`), and just before the swap both names must still be the
//! folders held. A folder the run may not write is refused. Deleting a generation gives each
//! folder in it u+rwx through its descriptor first; one its owner made unreadable (no `u+r` or
//! `u+x`) cannot be opened, is never changed by name, and keeps its generation behind (tried
//! again by each run) until it is readable.
//!
//! **Locks and names.** A run holds a `flock` on DIR and on its generation until the swap is
//! done, so that a second run fails at once ([`Busy`], exit code 5); a state is locked through
//! `.NAME.lock`. Temporary names carry 48 random bits and a 16-bit check
//! (`.NAME.rate-batch-<12 hex><4 hex>`), are created exclusively, and the clean-up removes only
//! entries with a valid check, older than the run and whose lock no live run holds.

use std::ffi::{CString, OsStr};
use std::fs::{self, File, Permissions};
use std::io::{self, BufWriter, Write};
use std::os::fd::AsFd;
use std::os::unix::fs::{MetadataExt, PermissionsExt, fchown};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Mutex, MutexGuard, PoisonError};
use std::time::SystemTime;

use rustix::fs::{Access, AtFlags, CWD, FileType, Mode, OFlags};
use rustix::io::Errno;
use rustix::path::Arg;

/// `io::Error::other(format!(...))`.
macro_rules! error {
    ($($arg:tt)*) => { io::Error::other(format!($($arg)*)) };
}

/// Another run holds the lock of an output folder or a state file (exit code 5).
#[derive(Debug)]
pub struct Busy(pub String);
crate::error_display!(Busy, self => "{}", self.0);

const MARK: &str = ".rate-batch-";

/// The base of a generation's name when it has to be made inside the output folder.
const INNER: &str = "generation";

/// A file that did not exist (`O_EXCL`), for writing.
const NEW_FILE: OFlags = OFlags::WRONLY.union(OFlags::CREATE).union(OFlags::EXCL);

/// A temporary name for `base` in its folder: `.BASE.rate-batch-<12 random hex><4 hex check>`.
pub fn temporary_name(base: &str) -> String {
    let random: u64 = rand::random::<u64>() >> 16;
    format!(".{base}{MARK}{random:012x}{:04x}", check(random))
}

/// The 16-bit check of a temporary name's random part (FNV-1a).
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
    let tag = name
        .strip_prefix('.')
        .and_then(|n| n.strip_prefix(base)?.strip_prefix(MARK));
    let Some(tag) = tag.filter(|t| t.len() == 16 && t.bytes().all(|b| b.is_ascii_hexdigit()))
    else {
        return false;
    };
    let (random, sum) = tag.split_at(12);
    u64::from_str_radix(random, 16).is_ok_and(|r| u16::from_str_radix(sum, 16) == Ok(check(r)))
}

/// Opens `name` relative to the folder `at` ([`CWD`] for a path), never following a symbolic
/// link at its last component.
fn open_at(at: impl AsFd, name: impl Arg, flags: OFlags, mode: u32) -> io::Result<File> {
    let flags = flags | OFlags::NOFOLLOW | OFlags::CLOEXEC;
    Ok(rustix::fs::openat(at, name, flags, Mode::from_raw_mode(mode))?.into())
}

/// Opens the folder `name` in `at` (`ENOTDIR` for anything else, a symbolic link included).
fn open_dir_at(at: impl AsFd, name: impl Arg) -> io::Result<File> {
    open_at(at, name, OFlags::RDONLY | OFlags::DIRECTORY, 0)
}

fn mkdir_at(at: impl AsFd, name: impl Arg, mode: u32) -> rustix::io::Result<()> {
    rustix::fs::mkdirat(at, name, Mode::from_raw_mode(mode))
}

fn is_errno(e: &io::Error, errno: Errno) -> bool {
    Errno::from_io_error(e) == Some(errno)
}

/// True when `name` in `at` (a symbolic link not followed) is the file `held` is open on.
fn same_at(at: impl AsFd, name: impl Arg, held: &File) -> io::Result<bool> {
    let held = rustix::fs::fstat(held)?;
    match rustix::fs::statat(at, name, AtFlags::SYMLINK_NOFOLLOW) {
        Ok(now) => Ok((now.st_dev, now.st_ino) == (held.st_dev, held.st_ino)),
        Err(Errno::NOENT) => Ok(false),
        Err(e) => Err(e.into()),
    }
}

/// The names in an open folder, without `.` and `..`.
fn entries(dir: &File) -> io::Result<Vec<CString>> {
    let mut names = Vec::new();
    for entry in rustix::fs::Dir::read_from(dir)? {
        let name = entry?.file_name().to_owned();
        if !matches!(name.as_bytes(), b"." | b"..") {
            names.push(name);
        }
    }
    Ok(names)
}

/// Takes the lock of an open file without waiting; `held()` is the error if another has it.
fn lock(file: &File, held: impl FnOnce() -> io::Error) -> io::Result<()> {
    match file.try_lock() {
        Ok(()) => Ok(()),
        Err(fs::TryLockError::WouldBlock) => Err(held()),
        Err(fs::TryLockError::Error(e)) => Err(e),
    }
}

/// Opens the folder `name` in `at` and takes its lock, then checks that the name is still the
/// folder locked (one swapped in between, by a run that has finished since, is tried again).
fn lock_folder(at: &File, name: &str, what: &str) -> io::Result<File> {
    for _ in 0..20 {
        let dir = open_dir_at(at, name)?;
        lock(&dir, || busy(what))?;
        if same_at(at, name, &dir)? {
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

/// Opens a regular file for reading without following a symbolic link at its last component
/// (and without blocking on a planted FIFO: anything but a regular file is refused).
pub fn open_no_follow(path: &Path) -> io::Result<File> {
    let f = open_at(CWD, path, OFlags::RDONLY | OFlags::NONBLOCK, 0).map_err(|e| {
        if is_errno(&e, Errno::LOOP) {
            error!(
                "{} is a symbolic link, which is not followed",
                path.display()
            )
        } else {
            e
        }
    })?;
    if !f.metadata()?.is_file() {
        return Err(error!("{} is not a regular file", path.display()));
    }
    Ok(f)
}

/// The folder and the last component of a path.
fn split(path: &Path) -> io::Result<(PathBuf, String)> {
    let name = path.file_name().and_then(OsStr::to_str);
    let name = name
        .filter(|n| !n.is_empty() && *n != "." && *n != "..")
        .ok_or_else(|| error!("{} does not end in a file or folder name", path.display()))?;
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
    error!("injected failure at {step} (RATE_BATCH_FAULT)")
}

/// Removes the `.BASE.rate-batch-*` folders and regular files of an open folder that have a
/// valid check, are older than `start` and whose lock is taken here without waiting (a live run
/// holds the lock of every generation and temporary file it writes). Errors are ignored: a
/// leftover that cannot be removed now is tried again next time.
fn remove_leftovers_in(dir: &File, base: &str, start: SystemTime) {
    for name in entries(dir).unwrap_or_default() {
        if !name.to_str().is_ok_and(|n| is_temporary_name(n, base)) {
            continue;
        }
        let Ok(f) = open_at(dir, &name, OFlags::RDONLY | OFlags::NONBLOCK, 0) else {
            continue;
        };
        let Ok(meta) = f.metadata() else { continue };
        if meta.modified().is_ok_and(|m| m >= start)
            || f.try_lock().is_err()
            || !same_at(dir, &name, &f).unwrap_or(false)
        {
            continue;
        }
        let _ = if meta.is_dir() {
            remove_folder(dir, &name, &f)
        } else if meta.is_file() {
            rustix::fs::unlinkat(dir, &name, AtFlags::empty()).map_err(io::Error::from)
        } else {
            Ok(())
        };
    }
}

/// Deletes the folder `name` in `at`, `held` being open on it: its content through descriptors
/// ([`empty_folder`]), then the name if it still is the folder held.
fn remove_folder(at: &File, name: impl Arg + Copy, held: &File) -> io::Result<()> {
    empty_folder(held, held.metadata()?.dev())?;
    if same_at(at, name, held)? {
        rustix::fs::unlinkat(at, name, AtFlags::REMOVEDIR)?;
    }
    Ok(())
}

/// Deletes the folder `name` in `at` and everything in it, unless it is a mount point (its
/// device is not `dev`).
fn remove_at(at: &File, name: impl Arg + Copy, dev: u64) -> io::Result<()> {
    let sub = open_dir_at(at, name)?;
    if sub.metadata()?.dev() != dev {
        return Err(error!("{} is a mount point", name.to_string_lossy()));
    }
    empty_folder(&sub, dev)?;
    Ok(rustix::fs::unlinkat(at, name, AtFlags::REMOVEDIR)?)
}

/// Deletes everything in an open folder, through descriptors, having given it u+rwx (so that a
/// folder made read-only, 0555, can be emptied): a name swapped for a symbolic link meanwhile
/// is removed, never followed. Goes on past an entry that cannot be removed and returns the
/// first error.
fn empty_folder(dir: &File, dev: u64) -> io::Result<()> {
    let mode = dir.metadata()?.mode();
    if mode & 0o700 != 0o700 {
        // Refused for another user's folder when the run is not root: then so is the rest.
        let _ = dir.set_permissions(Permissions::from_mode((mode | 0o700) & 0o7777));
    }
    let mut result = Ok(());
    for name in entries(dir)? {
        let r = match rustix::fs::unlinkat(dir, &name, AtFlags::empty()) {
            // A folder (EISDIR is Linux's answer for one, EPERM POSIX's).
            Err(e @ (Errno::ISDIR | Errno::PERM)) => remove_at(dir, &name, dev).map_err(|r| {
                if is_errno(&r, Errno::NOTDIR) {
                    e.into()
                } else {
                    r
                }
            }),
            r => r.map_err(io::Error::from),
        };
        result = result.and(r);
    }
    result
}

/// Syncs an open folder and every folder below it, through descriptors.
fn sync_tree(dir: &File) -> io::Result<()> {
    for name in entries(dir)? {
        match open_dir_at(dir, &name) {
            Ok(sub) => sync_tree(&sub)?,
            Err(e) if is_errno(&e, Errno::NOTDIR) => {}
            Err(e) => return Err(e),
        }
    }
    dir.sync_all()
}

/// Syncs the file system that holds `dir` (every file written in it).
#[cfg(target_os = "linux")]
fn sync_file_system(dir: &File) -> io::Result<()> {
    Ok(rustix::fs::syncfs(dir)?)
}

#[cfg(not(target_os = "linux"))]
fn sync_file_system(_: &File) -> io::Result<()> {
    rustix::fs::sync();
    Ok(())
}

/// True when an open folder has a default ACL (which files made in it inherit; a new folder
/// would not have it).
#[cfg(target_os = "linux")]
fn has_default_acl(dir: &File) -> bool {
    rustix::fs::fgetxattr_query(dir, "system.posix_acl_default").is_ok_and(|n| n > 0)
}

#[cfg(not(target_os = "linux"))]
fn has_default_acl(_: &File) -> bool {
    false
}

/// Errors of `renameat2(RENAME_EXCHANGE)` that mean the file system (or the layering, as
/// overlayfs's lower layers) cannot swap these folders, rather than a failure to write.
fn unsupported(e: &io::Error) -> bool {
    e.kind() == io::ErrorKind::Unsupported
        || matches!(
            Errno::from_io_error(e),
            Some(Errno::INVAL | Errno::NOSYS | Errno::OPNOTSUPP | Errno::XDEV | Errno::PERM)
        )
}

/// Swaps the names `a` and `b` in the folder `at` atomically.
#[cfg(target_os = "linux")]
fn exchange(at: &File, a: &str, b: &str) -> io::Result<()> {
    let flags = rustix::fs::RenameFlags::EXCHANGE;
    Ok(rustix::fs::renameat_with(at, a, at, b, flags)?)
}

#[cfg(not(target_os = "linux"))]
fn exchange(_: &File, _: &str, _: &str) -> io::Result<()> {
    Err(io::ErrorKind::Unsupported.into())
}

/// Links the entries of folder `src` not named in `skip` into folder `dst`, walking both by
/// descriptors: files (links, FIFOs...) as hard links, never copies (a copy would change the
/// owner, or keep a set-user-id bit on a copy made by root); folders recreated, then given
/// their owner, group and mode. `rel` names the folder in messages; the error is why it cannot
/// be carried exactly.
fn carry(src: &File, dst: &File, dev: u64, skip: &[String], rel: &Path) -> Result<(), String> {
    for name in entries(src).map_err(|e| e.to_string())? {
        if skip.iter().any(|s| s.as_bytes() == name.as_bytes()) {
            continue;
        }
        let shown = rel.join(name.to_string_lossy().as_ref());
        let why = |what: &dyn std::fmt::Display| format!("`{}` {what}", shown.display());
        let from = match open_dir_at(src, &name) {
            Ok(from) => from,
            Err(e) if is_errno(&e, Errno::NOTDIR) => {
                rustix::fs::linkat(src, &name, dst, &name, AtFlags::empty())
                    .map_err(|e| why(&format!("cannot be linked into the new folder ({e})")))?;
                continue;
            }
            Err(e) => return Err(why(&e)),
        };
        let st = from.metadata().map_err(|e| why(&e))?;
        if st.dev() != dev {
            return Err(why(&"is a mount point"));
        }
        mkdir_at(dst, &name, 0o700).map_err(|e| why(&e))?;
        let to = open_dir_at(dst, &name).map_err(|e| why(&e))?;
        carry(&from, &to, dev, &[], &shown)?;
        fchown(&to, Some(st.uid()), Some(st.gid()))
            .map_err(|e| why(&format!("cannot be given its owner and group ({e})")))?;
        let mode = Permissions::from_mode(st.mode() & 0o7777);
        to.set_permissions(mode).map_err(|e| why(&e))?;
    }
    Ok(())
}

/// An output folder being written as one new generation; see the module documentation.
pub struct Publication {
    target: PathBuf,
    /// The folder that holds the output folder, opened at the start.
    parent: File,
    base: String,
    /// The output folder, opened and locked at the start (after the swap: the previous
    /// generation, under the temporary name).
    folder_fd: File,
    /// The new generation, opened and locked when made, and its name: in `parent`, or in the
    /// output folder when `inside` says why not beside it.
    generation_fd: File,
    generation_name: String,
    generation: PathBuf,
    inside: Option<String>,
    /// Top-level names this kind of run writes: the previous run's entries of these names are
    /// replaced (or dropped when this run does not write them), everything else carried over.
    owned: Vec<String>,
    written: Mutex<Vec<PathBuf>>,
    committed: bool,
    /// The folder did not exist before this run (removed again, if still empty, on failure).
    created: bool,
    /// Files were written without a sync of their own ([`Folder::write_unsynced`]).
    unsynced: AtomicBool,
}

impl Publication {
    /// Starts a generation for the folder `target` (created if missing), holding its lock.
    /// `owned` lists the top-level names (files or folders) this kind of run writes.
    pub fn begin(target: &Path, owned: &[&str]) -> io::Result<Self> {
        let start = SystemTime::now();
        let (parent_path, base) = split(target)?;
        fs::create_dir_all(&parent_path)?;
        let parent = File::open(&parent_path)?;
        let created = match mkdir_at(&parent, &base, 0o777) {
            Ok(()) => true,
            Err(Errno::EXIST) => false,
            Err(e) => return Err(e.into()),
        };
        let kind = rustix::fs::statat(&parent, &base, AtFlags::SYMLINK_NOFOLLOW)?.st_mode;
        let what = target.display().to_string();
        match FileType::from_raw_mode(kind) {
            FileType::Directory => {}
            FileType::Symlink => {
                return Err(error!(
                    "{what} is a symbolic link: the output folder is replaced as a whole, so \
                     give the folder itself (not followed, so that nobody can redirect the \
                     outputs)"
                ));
            }
            _ => return Err(error!("{what} exists and is not a folder")),
        }
        let folder_fd = lock_folder(&parent, &base, &what)?;
        // Refused, as writing into it always was (the swap would need only the parent
        // writable, and replace the content of a folder made read-only).
        if let Err(e) = rustix::fs::accessat(&folder_fd, ".", Access::WRITE_OK, AtFlags::EACCESS) {
            let e = io::Error::from(e);
            let message = format!(
                "{what} is not writable by this run ({e}): the outputs replace files in it, so \
                 give it write permission (chmod u+w) or choose another folder"
            );
            return Err(io::Error::new(e.kind(), message));
        }
        remove_leftovers_in(&parent, &base, start);
        remove_leftovers_in(&folder_fd, INNER, start);
        // Beside the folder; where its parent is not writable, inside it.
        let mut generation_name = temporary_name(&base);
        let beside = if fault("no-sibling") {
            Err(Errno::ACCESS)
        } else {
            mkdir_at(&parent, &generation_name, 0o700)
        };
        let inside = match beside {
            Ok(()) => None,
            Err(e @ (Errno::ACCESS | Errno::PERM | Errno::ROFS)) => {
                generation_name = temporary_name(INNER);
                mkdir_at(&folder_fd, &generation_name, 0o700)?;
                let e = io::Error::from(e);
                Some(format!(
                    "its parent folder is not writable ({e}), so a new folder cannot be made \
                     beside it"
                ))
            }
            Err(e) => return Err(e.into()),
        };
        let (at, at_path) = match inside {
            Some(_) => (&folder_fd, target),
            None => (&parent, parent_path.as_path()),
        };
        let generation_fd = lock_folder(at, &generation_name, &what)?;
        // The folder's group now, with set-group-id if it has it, so that files inherit the
        // group as they would in the folder (if refused, so is the swap: see `commit`).
        let old = folder_fd.metadata()?;
        if fchown(&generation_fd, None, Some(old.gid())).is_ok() && old.mode() & 0o2000 != 0 {
            generation_fd.set_permissions(Permissions::from_mode(0o2700))?;
        }
        Ok(Self {
            target: target.to_path_buf(),
            generation: at_path.join(&generation_name),
            parent,
            base,
            folder_fd,
            generation_fd,
            generation_name,
            inside,
            owned: owned.iter().map(std::string::ToString::to_string).collect(),
            written: Mutex::new(Vec::new()),
            committed: false,
            created,
            unsynced: AtomicBool::new(false),
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
                return Err(error!("{name} is not a plain folder name"));
            };
            rel.push(part);
            match mkdir_at(&self.generation_fd, &rel, 0o777) {
                Ok(()) | Err(Errno::EXIST) => {}
                Err(e) => return Err(e.into()),
            }
        }
        Ok(Folder {
            publication: self,
            rel,
        })
    }

    /// The final paths of the files written, in the order written.
    pub fn targets(&self) -> Vec<PathBuf> {
        self.written().iter().map(|r| self.target.join(r)).collect()
    }

    fn written(&self) -> MutexGuard<'_, Vec<PathBuf>> {
        self.written.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Makes the new generation the folder's content, at once; returns the files' paths.
    pub fn commit(mut self) -> io::Result<Vec<PathBuf>> {
        // The swap only when the new folder can be the old one exactly (the module
        // documentation's rule): else the files are renamed into the folder, which stays.
        let old = self.folder_fd.metadata()?;
        let (from, to) = (&self.folder_fd, &self.generation_fd);
        let why_not = (self.inside.clone())
            .or_else(|| {
                let e = fchown(to, Some(old.uid()), Some(old.gid())).err()?;
                Some(format!(
                    "a new folder cannot be given its owner and group ({e})"
                ))
            })
            .or_else(|| {
                let acl = has_default_acl(from);
                acl.then(|| "the folder has a default ACL, which a new folder would lack".into())
            })
            .or_else(|| fault("carry").then(|| injected("carrying entries over").to_string()))
            .or_else(|| carry(from, to, old.dev(), &self.owned, Path::new("")).err());
        let written = self.targets();
        // Files written without their own sync: the whole file system once (one call for
        // thousands of pages); then every folder of the generation.
        if self.unsynced.load(Ordering::Relaxed) {
            sync_file_system(to)?;
        }
        sync_tree(to)?;
        if fault("kill-before-swap") {
            std::process::abort();
        }
        let why_not = match why_not {
            Some(why) => Some(why),
            None => self.swap(old.mode())?,
        };
        match why_not {
            None => {
                self.committed = true;
                self.parent.sync_all()?;
                // The previous generation, now under the temporary name.
                let _ = remove_folder(&self.parent, &self.generation_name, &self.folder_fd);
            }
            Some(why) => {
                eprintln!(
                    "warning: {}: {why}; its files are renamed into it one by one instead of \
                     swapped in at once (a reader may see a mix of two runs meanwhile)",
                    self.target.display()
                );
                self.rename_each()?;
                self.committed = true;
                self.folder_fd.sync_all()?;
                self.remove_generation();
            }
        }
        Ok(written)
    }

    /// Gives the new generation the folder's mode and, both names being still the folders
    /// held, swaps them; `Some(why)` when the file system cannot.
    fn swap(&self, mode: u32) -> io::Result<Option<String>> {
        let generation = &self.generation_fd;
        generation.set_permissions(Permissions::from_mode(mode & 0o7777))?;
        for (name, held, path) in [
            (&self.base, &self.folder_fd, &self.target),
            (&self.generation_name, generation, &self.generation),
        ] {
            if !same_at(&self.parent, name, held)? {
                return Err(error!(
                    "{} was moved or replaced during the run (by someone who can write the \
                     folder that holds it); nothing was published",
                    path.display()
                ));
            }
        }
        let swapped = if fault("no-exchange") {
            Err(Errno::INVAL.into())
        } else if fault("exchange") {
            Err(injected("the swap"))
        } else {
            exchange(&self.parent, &self.generation_name, &self.base)
        };
        match swapped {
            Ok(()) => Ok(None),
            Err(e) if unsupported(&e) => {
                Ok(Some(format!("this file system cannot swap folders ({e})")))
            }
            Err(e) => Err(e),
        }
    }

    /// The fallback without a swap: each owned name renamed into place, relative to the
    /// folders' descriptors, the replaced entries kept aside and put back if a rename fails.
    fn rename_each(&self) -> io::Result<()> {
        let (new, live) = (&self.generation_fd, &self.folder_fd);
        let aside_name = temporary_name("previous");
        mkdir_at(new, &aside_name, 0o700)?;
        let aside = &open_dir_at(new, &aside_name)?;
        let mut moves: Vec<(&File, &File, &str)> = Vec::new();
        let result = (|| -> io::Result<()> {
            for (k, name) in self.owned.iter().enumerate() {
                for (step, from, to) in [(2 * k, live, aside), (2 * k + 1, new, live)] {
                    if rustix::fs::statat(from, name, AtFlags::SYMLINK_NOFOLLOW).is_ok() {
                        if fault(&format!("rename:{step}")) {
                            return Err(injected("a rename"));
                        }
                        rustix::fs::renameat(from, name, to, name)?;
                        moves.push((from, to, name.as_str()));
                    }
                }
            }
            Ok(())
        })();
        if result.is_err() {
            // Undone in reverse order: the previous set is whole again.
            for (from, to, name) in moves.into_iter().rev() {
                let _ = rustix::fs::renameat(to, name, from, name);
            }
        }
        result
    }

    /// Deletes the new generation (not swapped in), wherever its name is.
    fn remove_generation(&self) {
        let at = if self.inside.is_some() {
            &self.folder_fd
        } else {
            &self.parent
        };
        let _ = remove_folder(at, &self.generation_name, &self.generation_fd);
    }
}

impl Drop for Publication {
    fn drop(&mut self) {
        if !self.committed {
            self.remove_generation();
            // The folder this run made, if still empty and still the one at that name.
            let (parent, base) = (&self.parent, &self.base);
            if self.created && same_at(parent, base, &self.folder_fd).unwrap_or(false) {
                let _ = rustix::fs::unlinkat(parent, base, AtFlags::REMOVEDIR);
            }
        }
    }
}

/// A folder of a [`Publication`] to write files into.
#[derive(Clone)]
pub struct Folder<'p> {
    publication: &'p Publication,
    rel: PathBuf,
}

impl<'p> Folder<'p> {
    /// A subfolder of this one (see [`Publication::folder`]).
    pub fn folder(&self, name: &str) -> io::Result<Folder<'p>> {
        let rel = self.rel.join(name);
        let rel = rel.to_str();
        self.publication
            .folder(rel.ok_or_else(|| error!("{name} is not a plain folder name"))?)
    }
}

impl Folder<'_> {
    /// Opens `name` for writing, relative to the new generation's descriptor;
    /// [`StagedFile::finish`] completes it.
    pub fn open(&self, name: &str) -> io::Result<StagedFile> {
        self.open_buffered(name, 1 << 20)
    }

    fn open_buffered(&self, name: &str, capacity: usize) -> io::Result<StagedFile> {
        let rel = self.rel.join(name);
        let file = open_at(&self.publication.generation_fd, &rel, NEW_FILE, 0o666)?;
        self.publication.written().push(rel);
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
        self.publication.unsynced.store(true, Ordering::Relaxed);
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
            .written()
            .retain(|r| !r.starts_with(&self.rel));
        let generation = &self.publication.generation_fd;
        remove_at(generation, &self.rel, generation.metadata()?.dev())
    }
}

/// A file being written.
pub struct StagedFile(BufWriter<File>);

impl StagedFile {
    /// Flushes and syncs the file to disk.
    pub fn finish(self) -> io::Result<()> {
        self.0.into_inner()?.sync_all()
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
        let f = open_at(CWD, &lock_path, OFlags::RDWR | OFlags::CREATE, 0o600).map_err(|e| {
            let message = format!("cannot open the lock {}: {e}", lock_path.display());
            io::Error::new(e.kind(), message)
        })?;
        lock(&f, || busy(&path.display().to_string()))?;
        Ok(Self(f))
    }
}

/// Writes one file atomically through `write`: a [`FileSet`] of one.
pub fn write_one(
    path: &Path,
    write: impl FnOnce(&mut dyn Write) -> io::Result<()>,
) -> io::Result<()> {
    let mut set = FileSet::new();
    set.write(path, write)?;
    set.commit().map(drop)
}

/// Files in any folders, each written under an exclusive temporary name in its folder (a killed
/// run's temporary files for that name removed first), synced, and renamed over its target by
/// [`FileSet::commit`] (a symbolic link there is replaced, never followed), the folder synced.
#[derive(Default)]
pub struct FileSet {
    /// (temporary path, final path, the temporary file's lock): held, sharing the open file
    /// with the [`StagedFile`], until the set is committed or dropped, so that another run's
    /// clean-up never takes a file being written or waiting for the commit for a leftover.
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
        if let Ok(d) = File::open(&dir) {
            remove_leftovers_in(&d, &base, SystemTime::now());
        }
        let tmp = dir.join(temporary_name(&base));
        let file = open_at(CWD, &tmp, NEW_FILE, 0o666)?;
        // Removed on failure (only once made here: a name that already existed is another's).
        let locked = lock(&file, || {
            error!(
                "{} was taken by another run's clean-up as soon as it was made; try again",
                tmp.display()
            )
        });
        match locked.and_then(|()| file.try_clone()) {
            Ok(lock) => self.files.push((tmp, path.to_path_buf(), lock)),
            Err(e) => {
                let _ = fs::remove_file(&tmp);
                return Err(e);
            }
        }
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
            File::open(split(target)?.0)?.sync_all()?;
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
        remove_leftovers_in(&File::open(dir.path()).unwrap(), "pairs.csv", later);
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
