//! rate-batch: replays contest histories through rating systems and publishes leaderboards and
//! accuracy figures.
//!
//! The shape: `ingest` (one reader per input format) -> [`history::History`] -> `replay`
//! (rounds in time order; per contest, predict first, then update) with one of `systems`
//! -> leaderboard, rating history and `metrics` -> `output` writers. `cli` only parses
//! arguments; `run` holds the jobs behind the subcommands.

pub use rate_batch_core::{history, metrics, numeric, replay, state, systems, time};

pub mod cli;
pub mod compare;
pub mod ingest;
pub mod matchmake;
pub mod output;
pub mod run;
pub mod simlab;
pub mod simulate;
pub mod tune;
