//! Commands in a sandbox: [`CommandSandbox`] (the engine: bubblewrap under
//! `prlimit`; a Docker or Podman container of a named image; or, only when
//! named, none), [`SandboxLimits`] and the [`LimitHit`] that cut a command,
//! [`WorkingFolder`] (a run's copy of a folder) and [`ShellTool`], the
//! `run_command` tool agents call over one working folder, and the
//! [`Toolchain`]s of this machine a sandbox may show beside `/usr`.

mod container;
mod engine;
mod limits;
mod tool;
mod toolchain;

pub use engine::{CommandResult, CommandSandbox, Engine, WORK_DIR, WorkingFolder};
pub use limits::{LimitHit, SandboxLimits};
pub use tool::{RUN_COMMAND, RUN_TESTS, ShellTool};
pub use toolchain::Toolchain;
