//! The simulation lab: synthetic histories with known true strengths ([`simulate`]), the
//! Yuksel 2024 experiments run online with matchmaking ([`simlab`]). The jobs of the
//! `simulate` and `experiment` subcommands that write their files are in `crate::jobs::lab`.

pub mod simlab;
pub mod simulate;
