//! Commands in a sandbox: [`CommandSandbox`] (the engine: bubblewrap under
//! `prlimit`; a Docker or Podman container of a named image; or, only when
//! named, none), [`SandboxLimits`] and the [`LimitHit`] that cut a command,
//! [`WorkingFolder`] (a run's copy of a folder) and [`ShellTool`], the
//! `run_command` tool agents call over one working folder.

mod container;
mod engine;
mod limits;
mod tool;

pub use engine::{CommandResult, CommandSandbox, Engine, WORK_DIR, WorkingFolder};
pub use limits::{LimitHit, SandboxLimits};
pub use tool::{RUN_COMMAND, ShellTool};
