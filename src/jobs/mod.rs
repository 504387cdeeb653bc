//! The jobs behind the subcommands, as library functions: each takes a plain options struct
//! and a writer for what it prints. `replay` and `compare` share [`system::replay_system`];
//! resume lives in [`resume`], reading in [`load`], the rows' destinations in [`sink`],
//! `metrics.json` in [`metrics_doc`], the errors and exit codes in [`errors`].

pub mod compare;
pub mod errors;
pub mod lab;
pub mod load;
pub mod matchmake;
pub mod metrics_doc;
pub mod names;
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

pub use errors::{PartialFailure, UsageError, exit_code};
pub use load::{Loaded, check_replay_options, load};
pub use replay::{REPLAY_OUTPUTS, ReplayJob, run_replay};
pub use resume::StateJob;
pub use system::{Noop, REPORT_PLAYERS, SystemJob, SystemOutcome, replay_system};
