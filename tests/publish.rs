//! How a run publishes its outputs, from the command line: folders it may not write, what it
//! leaves behind, what it refuses, and errors that name the file (tests/trust.rs has the swap,
//! the locks and the links).

use std::os::unix::fs::{MetadataExt, PermissionsExt};
use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use tempfile::TempDir;

fn s(p: &Path) -> &str {
    p.to_str().unwrap()
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

/// A small league of games (`time,a,b,result`).
fn league(dir: &Path) -> PathBuf {
    let mut text = String::from("time,a,b,result\n");
    for g in 0..120u64 {
        let (a, b) = (g % 7, (g * 3 + 1) % 7);
        if a != b {
            text.push_str(&format!("{},p{a},p{b},{}\n", 1_600_000_000 + 60 * g, g % 3));
        }
    }
    let path = dir.join("g.csv");
    std::fs::write(&path, text.replace(",2\n", ",0.5\n")).unwrap();
    path
}

fn entries(dir: &Path) -> Vec<String> {
    let mut v: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    v.sort();
    v
}

fn mode(path: &Path) -> u32 {
    std::fs::symlink_metadata(path).unwrap().mode() & 0o7777
}

fn chmod(path: &Path, mode: u32) {
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(mode)).unwrap();
}

/// Runs the program as a user without privileges: the test's own user when it is not root;
/// as root, `nobody` (65534) through `setpriv`, the program hard-linked into the scratch
/// folder (the build folder may not be reachable). `None` when neither is possible (the
/// test then says so and checks nothing).
struct Unprivileged {
    bin: PathBuf,
    /// The user to switch to (root only).
    uid: Option<u32>,
}

impl Unprivileged {
    fn new(dir: &Path) -> Option<Self> {
        // SAFETY: geteuid has no preconditions.
        if unsafe { libc::geteuid() } != 0 {
            return Some(Self {
                bin: env!("CARGO_BIN_EXE_rate-batch").into(),
                uid: None,
            });
        }
        let setpriv = Command::new("setpriv")
            .args(["--reuid=65534", "--regid=65534", "--clear-groups", "true"])
            .status()
            .is_ok_and(|s| s.success());
        let bin = dir.join("rate-batch");
        if !setpriv || std::fs::hard_link(env!("CARGO_BIN_EXE_rate-batch"), &bin).is_err() {
            eprintln!("skipped: root without setpriv, or the program cannot be linked");
            return None;
        }
        chmod(dir, 0o755);
        Some(Self {
            bin,
            uid: Some(65534),
        })
    }

    fn run(&self, dir: &Path, args: &[&str]) -> Output {
        let mut c = match self.uid {
            None => Command::new(&self.bin),
            Some(uid) => {
                let mut c = Command::new("setpriv");
                c.arg(format!("--reuid={uid}"))
                    .arg(format!("--regid={uid}"))
                    .arg("--clear-groups")
                    .arg(&self.bin);
                c
            }
        };
        c.args(args).current_dir(dir).output().unwrap()
    }

    /// Gives `path` and everything in it to the user (root only).
    fn own(&self, path: &Path) {
        let Some(uid) = self.uid else { return };
        std::os::unix::fs::lchown(path, Some(uid), Some(uid)).unwrap();
        if std::fs::symlink_metadata(path).unwrap().is_dir() {
            for e in std::fs::read_dir(path).unwrap() {
                self.own(&e.unwrap().path());
            }
        }
    }
}

/// An output folder its user made read-only (0555) is refused, as before the swap: the swap
/// itself would need only the parent writable. Nothing changes and nothing is left beside it.
#[test]
fn a_read_only_output_folder_is_refused_and_left_as_it_is() {
    let dir = TempDir::new().unwrap();
    let Some(user) = Unprivileged::new(dir.path()) else {
        return;
    };
    let input = league(dir.path());
    let out = dir.path().join("site/out");
    std::fs::create_dir_all(&out).unwrap();
    user.own(dir.path());
    let replay = || {
        user.run(
            dir.path(),
            &["replay", s(&input), "--out", s(&out), "--quiet"],
        )
    };
    let o = replay();
    assert!(o.status.success(), "{}", stderr(&o));
    let before = std::fs::read(out.join("leaderboard.csv")).unwrap();
    chmod(&out, 0o555);
    for _ in 0..2 {
        let o = replay();
        assert_eq!(o.status.code(), Some(3), "{}", stderr(&o));
        assert!(
            stderr(&o).contains("is not writable by this run"),
            "{}",
            stderr(&o)
        );
    }
    assert_eq!(mode(&out), 0o555);
    assert_eq!(std::fs::read(out.join("leaderboard.csv")).unwrap(), before);
    assert_eq!(entries(out.parent().unwrap()), ["out"]);
}

/// A read-only folder of the user's inside the output folder is carried into each new
/// generation with its mode, and the previous generation is still deleted (its copy of that
/// folder is given u+w first); a killed run's read-only leftover goes too.
#[test]
fn read_only_folders_of_the_user_do_not_keep_old_generations_behind() {
    let dir = TempDir::new().unwrap();
    let Some(user) = Unprivileged::new(dir.path()) else {
        return;
    };
    let input = league(dir.path());
    let site = dir.path().join("site");
    let out = site.join("out");
    std::fs::create_dir_all(out.join("assets")).unwrap();
    std::fs::write(out.join("assets/site.css"), "body {}").unwrap();
    // A killed run's leftover, read-only inside and out.
    let leftover = site.join(rate_batch::output::publish::temporary_name("out"));
    std::fs::create_dir_all(leftover.join("old/deeper")).unwrap();
    std::fs::write(leftover.join("old/deeper/f"), "x").unwrap();
    user.own(dir.path());
    for p in ["old/deeper", "old", ""] {
        chmod(&leftover.join(p), 0o555);
    }
    chmod(&out.join("assets"), 0o555);
    for _ in 0..2 {
        let o = user.run(
            dir.path(),
            &["replay", s(&input), "--out", s(&out), "--quiet"],
        );
        assert!(o.status.success(), "{}", stderr(&o));
        // (Nothing but what the small input's predictions are worth.)
        let text = stderr(&o);
        let other: Vec<&str> = text
            .lines()
            .filter(|l| !l.contains("predicts worse than knowing nothing"))
            .collect();
        assert!(other.is_empty(), "swapped: {}", stderr(&o));
        assert_eq!(entries(&site), ["out"], "nothing left beside the folder");
    }
    assert_eq!(mode(&out.join("assets")), 0o555);
    assert_eq!(
        std::fs::read_to_string(out.join("assets/site.css")).unwrap(),
        "body {}"
    );
}

/// A folder is carried into a new generation only if it can be given its own owner and group.
/// A user without privileges cannot give a folder a group they are not in, so with such a folder
/// of theirs in the output folder the run renames its files into the folder instead of swapping
/// (a warning says why), and that folder stays as it is: the same folder, with its group.
#[test]
fn a_folder_whose_group_cannot_be_given_makes_the_run_rename_instead() {
    let dir = TempDir::new().unwrap();
    let Some(user) = Unprivileged::new(dir.path()) else {
        return;
    };
    if user.uid.is_none() {
        eprintln!("skipped: giving a folder a group its user is not in needs root");
        return;
    }
    let input = league(dir.path());
    let out = dir.path().join("site/out");
    std::fs::create_dir_all(out.join("assets")).unwrap();
    std::fs::write(out.join("assets/site.css"), "body {}").unwrap();
    user.own(dir.path());
    // Group 0, which the user (no supplementary groups) is not in.
    std::os::unix::fs::lchown(out.join("assets"), None, Some(0)).unwrap();
    let ino = std::fs::metadata(out.join("assets")).unwrap().ino();
    let o = user.run(
        dir.path(),
        &["replay", s(&input), "--out", s(&out), "--quiet"],
    );
    assert!(o.status.success(), "{}", stderr(&o));
    let text = stderr(&o);
    assert!(
        text.contains("`assets` cannot be given its owner and group")
            && text.contains("renamed into it one by one"),
        "{text}"
    );
    let m = std::fs::metadata(out.join("assets")).unwrap();
    assert_eq!(
        (m.ino(), m.gid()),
        (ino, 0),
        "the same folder, with its group"
    );
    assert!(out.join("leaderboard.csv").is_file());
    assert_eq!(
        entries(out.parent().unwrap()),
        ["out"],
        "nothing left beside it"
    );
}

/// `--dry-run` writes nothing, so it takes no lock: not the state's (its lock file and folder
/// are not made), and it runs while another run holds that lock.
#[test]
fn a_dry_run_takes_no_lock() {
    let dir = TempDir::new().unwrap();
    let input = league(dir.path());
    let states = dir.path().join("states");
    let state = states.join("elo.state");
    let out = dir.path().join("out");
    let dry_run = || {
        Command::new(env!("CARGO_BIN_EXE_rate-batch"))
            .args(["replay", s(&input), "--system", "elo", "--dry-run"])
            .args(["--out", s(&out), "--save-state", s(&state)])
            .output()
            .unwrap()
    };
    let o = dry_run();
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(!states.exists(), "no lock file, no folder for it");
    assert!(!out.exists());
    let _held = rate_batch::output::FileLock::take(&state).unwrap();
    let o = dry_run();
    assert!(o.status.success(), "{}", stderr(&o));
    assert_eq!(entries(&states), [".elo.state.lock"]);
}

/// `replay` and `compare` refuse an output folder that is the input folder, also when it is
/// given by another path (a symbolic link to it): the same device and inode, one check for
/// both. Nothing in it changes.
#[test]
fn an_output_folder_that_is_the_input_folder_is_refused() {
    let dir = TempDir::new().unwrap();
    let contests = dir.path().join("contests");
    std::fs::create_dir(&contests).unwrap();
    std::fs::write(contests.join("1.json"), "[]").unwrap();
    let link = dir.path().join("link");
    std::os::unix::fs::symlink(&contests, &link).unwrap();
    for out in [&contests, &link] {
        for cmd in ["replay", "compare"] {
            let o = Command::new(env!("CARGO_BIN_EXE_rate-batch"))
                .args([cmd, s(&contests), "--out", s(out)])
                .output()
                .unwrap();
            assert_eq!(o.status.code(), Some(2), "{cmd}: {}", stderr(&o));
            assert!(
                stderr(&o).contains("is the input folder"),
                "{cmd}: {}",
                stderr(&o)
            );
        }
    }
    assert_eq!(entries(&contests), ["1.json"]);
}
