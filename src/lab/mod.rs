//! The simulation lab: synthetic histories with known true strengths ([`simulate`]), the
//! Yuksel 2024 experiments run online with matchmaking ([`simlab`]), and the jobs of the
//! `simulate` and `experiment` subcommands ([`jobs`]).

pub mod jobs;
pub mod simlab;
pub mod simulate;
