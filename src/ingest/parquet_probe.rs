//! A Parquet file decoded in a child process before this one reads it: a malformed file can
//! make the decoder abort the process (see [`probe_parquet_in_child`]).

use std::path::Path;

/// Decodes a Parquet file in full in this process, a row group at a time as the reader does;
/// true when it decodes.
pub fn probe_parquet_here(path: &Path) -> bool {
    let Ok(file) = super::parquet::ParquetFile::open(path) else {
        return false;
    };
    let mut offset = 0;
    file.row_group_rows().into_iter().all(|n| {
        let ok = file.rows(offset, n).is_ok();
        offset += n;
        ok
    })
}

/// The program to run the Parquet probe with: `RATE_BATCH_EXE` if set, else this program if
/// it is rate-batch (not, say, a test harness).
fn probe_exe() -> Option<std::path::PathBuf> {
    if let Some(p) = std::env::var_os("RATE_BATCH_EXE") {
        return Some(p.into());
    }
    let me = std::env::current_exe().ok()?;
    let name = me.file_stem()?.to_str()?;
    (name == "rate-batch").then_some(me)
}

/// Decodes a Parquet file in a child process first: a malformed file can make the Parquet
/// decoder (polars) abort the whole process with an impossible allocation, which no Rust code
/// can catch (pola-rs/polars#15342). Returns the error to report when the child crashed;
/// `None` when it decoded the file, reported an ordinary error (read again here for the
/// message), or could not be run.
pub(crate) fn probe_parquet_in_child(path: &Path) -> Option<String> {
    let exe = probe_exe()?;
    let status = std::process::Command::new(exe)
        .arg("__probe-parquet")
        .arg(path)
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .status()
        .ok()?;
    match status.code() {
        Some(0) | Some(1) => None,
        _ => Some(format!(
            "the Parquet decoder crashed on this file ({status}): its data pages are damaged"
        )),
    }
}
