//! The jobs behind the subcommands, as library functions: each takes a plain options struct
//! and a writer for what it prints. `replay` and `compare` share [`system::replay_system`];
//! resume lives in [`resume`], reading in [`load`], the rows' destinations in [`sink`],
//! `metrics.json` in [`metrics_doc`], the errors and exit codes in [`errors`].

pub mod compare;
pub mod compare_shard;
pub mod errors;
pub mod load;
pub mod matchmake;
pub mod metrics_doc;
pub mod names;
pub mod options;
pub mod replay;
pub mod report_input;
pub mod resume;
pub mod rows;
pub mod shard;
pub mod sink;
pub mod site;
pub mod stream;
pub mod system;
pub mod tune;

pub use errors::{UsageError, exit_code};

use anyhow::Context as _;
use std::sync::atomic::{AtomicBool, Ordering};

/// Files' paths as printed.
pub(crate) fn shown<'a>(files: impl IntoIterator<Item = &'a std::path::PathBuf>) -> Vec<String> {
    files.into_iter().map(|p| p.display().to_string()).collect()
}

/// Writes the file `name` in `folder` of an output generation; an error names the file
/// where it would have been published.
pub(crate) fn write_file(
    folder: &crate::output::Folder,
    name: &str,
    write: impl FnOnce(&mut dyn std::io::Write) -> std::io::Result<()>,
) -> anyhow::Result<()> {
    (folder.write(name, write)).with_context(|| system::cannot_write(folder, name))
}

/// Set by the program's `main`: the process ends when the job returns.
static PROCESS_ENDS_AFTER: AtomicBool = AtomicBool::new(false);

/// Tells the jobs that the process ends when they return, so that what they hold to the end (a
/// history of millions of placings, its players' states) is left to the operating system
/// instead of freed piece by piece on one thread: on the Codeforces set that freeing took a
/// third of a second after the outputs were published. A library caller never sets it.
pub fn process_ends_after_job() {
    PROCESS_ENDS_AFTER.store(true, Ordering::Relaxed);
}

/// Drops what a job held to its end, unless the process ends after the job (then it is left
/// to the operating system; see [`process_ends_after_job`]).
pub(crate) fn release<T>(held: T) {
    if PROCESS_ENDS_AFTER.load(Ordering::Relaxed) {
        std::mem::forget(held);
    } else {
        drop(held);
    }
}
