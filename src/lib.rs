//! rate-batch: replays contest histories through rating systems and publishes leaderboards and
//! accuracy figures.
//!
//! The shape: `ingest` (one reader per input format) -> [`history::History`] -> `replay`
//! (rounds in time order; per contest, predict first, then update) with one of `systems`
//! -> leaderboard, rating history and `metrics` -> `output` writers. The engine (history,
//! systems, replay, metrics, the state format, matchmaking) is the `rate-batch-core` crate,
//! re-exported here; `jobs` holds the jobs behind the subcommands, and `cli` only parses
//! arguments. The simulation lab (synthetic histories, the Yuksel experiments) is the
//! `rate-batch-lab` crate, crates/lab, built on this one.

pub use rate_batch_core::{
    auto, bootstrap, draws, first_side, history, matchmake, metrics, names, numeric, presets,
    rater, replay, seasons, state, status, systems, time, truth,
};

/// `Display` (the message that `write!` makes of `$s`, the value) and `Error` for a type.
macro_rules! error_display {
    ($t:ty, $s:ident => $($message:tt)+) => {
        impl std::fmt::Display for $t {
            fn fmt(&$s, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                write!(f, $($message)+)
            }
        }
        impl std::error::Error for $t {}
    };
}
pub(crate) use error_display;

pub mod cli;
pub mod compression;
pub mod ingest;
pub mod jobs;
pub mod output;
