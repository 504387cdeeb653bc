//! The errors of the jobs and the process's exit codes.

use crate::ingest::InputError;
use crate::ingest::source::DamagedData;
use crate::output::{self};
use crate::replay::Divergence;

/// A usage mistake (bad option values or combinations): exit code 2.
#[derive(Debug)]
pub struct UsageError(pub String);

/// Some parts of a job failed (a `compare` system or `tune` set); the others completed.
#[derive(Debug)]
pub struct PartialFailure(pub String);

crate::error_display!(UsageError, self => "{}", self.0);
crate::error_display!(PartialFailure, self => "{}", self.0);

/// Exit codes: 0 ok, 1 bad input, 2 usage, 3 I/O, 4 a rating system failed (its ratings ran
/// away; with `compare` and `tune`, the other rows are complete), 5 another run holds the
/// output folder or the state (nothing was written).
pub fn exit_code(e: &anyhow::Error) -> i32 {
    let any = |is: fn(&(dyn std::error::Error + 'static)) -> bool| e.chain().any(is);
    if any(<dyn std::error::Error>::is::<UsageError>) {
        2
    } else if any(|c| c.is::<Divergence>() || c.is::<PartialFailure>()) {
        4
    } else if any(is_or_wraps::<output::Busy>) {
        5
    } else if any(|c| c.is::<InputError>() || is_or_wraps::<DamagedData>(c)) {
        1
    } else if any(<dyn std::error::Error>::is::<std::io::Error>) {
        3
    } else {
        1
    }
}

/// Whether `c` is an `E`, or an I/O error that carries one.
fn is_or_wraps<E: std::error::Error + 'static>(c: &(dyn std::error::Error + 'static)) -> bool {
    c.is::<E>()
        || c.downcast_ref::<std::io::Error>()
            .and_then(|io| io.get_ref())
            .is_some_and(<dyn std::error::Error + Send + Sync>::is::<E>)
}

/// An error at the contest found at `origin` in `source` (its file and line or row), or about
/// the file `source` names as a whole when the reader did not say where.
pub(crate) fn at_origin(
    source: &crate::history::SourceInfo,
    origin: Option<u64>,
    message: String,
) -> InputError {
    let (file, at) = crate::ingest::origin_of(source, origin)
        .unwrap_or_else(|| (source.path.clone(), crate::ingest::Location::File));
    InputError::new(file, at, None, message)
}

/// Refuses `--season-gap` on an input without times (as `source` says): no pause of the
/// league can be measured in it.
pub(crate) fn gap_needs_times(
    opts: &crate::replay::ReplayOptions,
    source: &crate::history::SourceInfo,
) -> Result<(), UsageError> {
    let gap = (opts.seasons).is_some_and(|s| matches!(s.by, crate::seasons::SeasonBy::Gap(_)));
    if gap && source.untimed {
        return Err(UsageError(
            "--season-gap measures the league's pauses in time, and this input has no time \
             column: map one (--map time=COLUMN), or name its season column (--map \
             season=COLUMN)"
                .into(),
        ));
    }
    Ok(())
}
