//! rate-batch-lab: the simulation lab of rate-batch, a program of its own beside the product.
//!
//! Synthetic histories with known true strengths ([`simulate`]: a chess league, a pool of
//! random games, the Elo-MMR paper's synthetic sets, crowds), and the Yuksel 2024 experiments
//! run online with matchmaking ([`simlab`]). [`jobs`] holds the jobs of the `simulate` and
//! `experiment` subcommands that write their files, [`cli`] only parses arguments. Built on
//! `rate-batch-core` (the engine) and on `rate-batch` for its output helpers only.

pub mod cli;
pub mod compress;
pub mod jobs;
pub mod simlab;
pub mod simulate;
