//! The errors of the jobs and the process's exit codes.

use crate::ingest::InputError;
use crate::ingest::source::DamagedData;
use crate::output::{self};
use crate::replay::Divergence;

/// A usage mistake (bad option values or combinations): exit code 2.
#[derive(Debug)]
pub struct UsageError(pub String);

impl std::fmt::Display for UsageError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for UsageError {}

/// Some parts of a job failed (a `compare` system or `tune` set); the others completed.
#[derive(Debug)]
pub struct PartialFailure(pub String);

impl std::fmt::Display for PartialFailure {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for PartialFailure {}

/// Exit codes: 0 ok, 1 bad input, 2 usage, 3 I/O, 4 a rating system failed (its ratings ran
/// away; with `compare` and `tune`, the other rows are complete), 5 another run holds the
/// output folder or the state (nothing was written).
pub fn exit_code(e: &anyhow::Error) -> i32 {
    if e.chain()
        .any(<dyn std::error::Error + 'static>::is::<UsageError>)
    {
        2
    } else if e
        .chain()
        .any(|c| c.is::<Divergence>() || c.is::<PartialFailure>())
    {
        4
    } else if e.chain().any(|c| {
        c.is::<output::Busy>()
            || c.downcast_ref::<std::io::Error>()
                .and_then(|io| io.get_ref())
                .is_some_and(
                    <dyn std::error::Error + std::marker::Send + std::marker::Sync + 'static>::is::<
                        output::Busy,
                    >,
                )
    }) {
        5
    } else if e.chain().any(|c| {
        c.is::<InputError>()
            || c.is::<DamagedData>()
            || c.downcast_ref::<std::io::Error>()
                .and_then(|io| io.get_ref())
                .is_some_and(<dyn std::error::Error + Send + Sync + 'static>::is::<DamagedData>)
    }) {
        1
    } else if e
        .chain()
        .any(<dyn std::error::Error + 'static>::is::<std::io::Error>)
    {
        3
    } else {
        1
    }
}
