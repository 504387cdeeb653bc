//! rate-batch's engine: contest histories, rating systems, the replay in time order, the
//! accuracy metrics and the resume state. It knows nothing of files, formats or command lines
//! (those are the `rate-batch` crate's), so it can be used on its own.
//!
//! The shape: a [`history::History`] (contests of entries, players interned to ids) is replayed
//! by [`replay`] round by round through one of the [`systems`] (each behind the
//! [`systems::RatingSystem`] trait): every contest is scored from the ratings before it
//! ([`metrics`]), then the round is rated. [`state`] saves and checks what a replay carries
//! from one run to the next.

#![warn(missing_docs)]

pub mod auto;
pub mod bootstrap;
pub mod draws;
pub mod first_side;
pub mod history;
pub mod matchmake;
pub mod metrics;
pub mod names;
pub mod numeric;
pub mod presets;
pub mod rater;
pub mod record;
pub mod replay;
pub mod seasons;
pub mod state;
pub mod status;
pub mod systems;
pub mod time;
pub mod truth;

/// Drops a large value (a million players' states, a name table) on a thread of its own, so
/// that the caller goes on with its result instead of first freeing the value piece by piece;
/// values of fewer than [`DROP_ASIDE_FROM`] parts are dropped at once. Nothing waits on the
/// drop, and a process that ends meanwhile just ends. (A thread that cannot be started drops
/// the value before `spawn` returns.)
pub(crate) fn drop_aside<T: Send + 'static>(value: T, parts: usize) {
    if parts >= DROP_ASIDE_FROM {
        let _ = std::thread::Builder::new()
            .name("drop".into())
            .spawn(move || drop(value));
    }
}

/// The size from which [`drop_aside`] drops on a thread of its own.
pub(crate) const DROP_ASIDE_FROM: usize = 65_536;
