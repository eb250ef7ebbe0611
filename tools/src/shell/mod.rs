//! Commands in a sandbox: [`CommandSandbox`] (the engine: bubblewrap under
//! `prlimit`), [`SandboxLimits`] and the [`LimitHit`] that cut a command,
//! [`WorkingFolder`] (a run's copy of a folder) and [`ShellTool`], the
//! `run_command` tool agents call over one working folder.

mod engine;
mod limits;
mod tool;

pub use engine::{CommandResult, CommandSandbox, Engine, WORK_DIR, WorkingFolder};
pub use limits::{LimitHit, SandboxLimits};
pub use tool::{RUN_COMMAND, ShellTool};
