//! `tribunal sandbox [--dir DIR] [--timeout-secs N] … -- CMD ARGS…`: runs one
//! command exactly as an arena's `run_command` tool would — in the same
//! sandbox, over a fresh copy of DIR (an empty folder without it), under
//! the same limits — and prints what the model would read: one JSON object
//! `{"exit_code", "limit", "stdout", "stderr"}` on stdout. The engine, the
//! limits and the copy go to stderr first. The copy is removed afterwards
//! unless `--keep`. Exit 0 when the command exited 0, 1 when it failed or
//! was cut at a limit, 2 when no sandbox can be made (`sandbox_unavailable`,
//! nothing runs) or the copy cannot be made.

use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;

use anyhow::Context;
use tribunal::tools::shell::{CommandSandbox, SandboxLimits, Toolchain, WORK_DIR, WorkingFolder};

#[derive(Debug, clap::Args)]
pub(crate) struct SandboxArgs {
    /// The folder the command gets a copy of, writable at /work. Default:
    /// an empty folder.
    #[arg(long, value_name = "DIR")]
    dir: Option<PathBuf>,
    /// Wall time of the command, in seconds ([sandbox] timeout_secs).
    #[arg(allow_negative_numbers = true, long, value_name = "N", default_value_t = SandboxLimits::default().wall_time.as_secs(),
          value_parser = clap::value_parser!(u64).range(1..))]
    timeout_secs: u64,
    /// CPU seconds of each process ([sandbox] cpu_secs).
    #[arg(allow_negative_numbers = true, long, value_name = "N", default_value_t = SandboxLimits::default().cpu_secs,
          value_parser = clap::value_parser!(u64).range(1..))]
    cpu_secs: u64,
    /// Writable memory of each process, in MiB ([sandbox] memory_mb).
    #[arg(allow_negative_numbers = true, long, value_name = "N", default_value_t = SandboxLimits::default().memory_bytes >> 20,
          value_parser = clap::value_parser!(u64).range(1..))]
    memory_mb: u64,
    /// Processes and threads at once ([sandbox] processes).
    #[arg(allow_negative_numbers = true, long, value_name = "N", default_value_t = SandboxLimits::default().processes,
          value_parser = clap::value_parser!(u64).range(1..))]
    processes: u64,
    /// stdout and stderr read before the command is cut, in KiB ([sandbox] output_kb).
    #[arg(allow_negative_numbers = true, long, value_name = "N", default_value_t = SandboxLimits::default().output_bytes >> 10,
          value_parser = clap::value_parser!(u64).range(1..))]
    output_kb: u64,
    /// A variable the command sees, NAME=VALUE ([sandbox] env); repeatable.
    /// Nothing of this process's own environment is passed.
    #[arg(long = "env", value_name = "NAME=VALUE", value_parser = name_value)]
    env: Vec<(String, String)>,
    /// A toolchain of this machine the command sees, read-only ([sandbox]
    /// toolchains): `rust`; repeatable.
    #[arg(long = "toolchain", value_name = "NAME", value_parser = toolchain)]
    toolchains: Vec<Toolchain>,
    /// Keep the copy after the command, and print its path.
    #[arg(long)]
    keep: bool,
    /// The command and its arguments (not a shell line: `-- sh -c 'LINE'` for one).
    #[arg(last = true, required = true, value_name = "CMD")]
    command: Vec<String>,
}

/// A toolchain's name.
fn toolchain(s: &str) -> Result<Toolchain, String> {
    Toolchain::parse(s).ok_or_else(|| {
        let names: Vec<&str> = Toolchain::ALL.iter().map(|t| t.as_str()).collect();
        format!("unknown toolchain `{s}` (one of: {})", names.join(", "))
    })
}

/// `NAME=VALUE`.
fn name_value(s: &str) -> Result<(String, String), String> {
    match s.split_once('=') {
        Some((name, value)) if !name.is_empty() => Ok((name.to_string(), value.to_string())),
        _ => Err(format!("expected NAME=VALUE, got `{s}`")),
    }
}

pub(crate) fn run(args: SandboxArgs) -> anyhow::Result<ExitCode> {
    let limits = SandboxLimits {
        wall_time: Duration::from_secs(args.timeout_secs),
        cpu_secs: args.cpu_secs,
        memory_bytes: args.memory_mb.saturating_mul(1 << 20),
        processes: args.processes,
        output_bytes: args.output_kb.saturating_mul(1 << 10),
        ..SandboxLimits::default()
    };
    let runtime = super::tokio_runtime()?;
    let made = runtime
        .block_on(CommandSandbox::detect())
        .and_then(|s| s.with_toolchains(&args.toolchains));
    let sandbox = match made {
        Ok(sandbox) => sandbox,
        Err(e) => {
            eprintln!("error: {e}");
            return Ok(ExitCode::from(2));
        }
    };
    let temp = std::env::temp_dir();
    let folder = match &args.dir {
        Some(dir) => WorkingFolder::copy_of(dir, &temp, "sandbox")
            .with_context(|| format!("working_copy_failed: cannot copy {}", dir.display()))?,
        None => WorkingFolder::empty_in(&temp, "sandbox")
            .context("working_copy_failed: cannot make an empty folder")?,
    };
    sandbox
        .prepare(folder.path())
        .context("working_copy_failed: cannot hand the copy to the sandbox's user")?;
    eprintln!("engine: {}", sandbox.describe());
    eprintln!("limits: {limits}");
    eprintln!("copy:   {} at {WORK_DIR}", folder.path().display());
    let result = runtime.block_on(sandbox.run(folder.path(), &args.command, &args.env, &limits));
    let result = match result {
        Ok(result) => result,
        Err(e) => {
            eprintln!("error: {e}");
            return Ok(ExitCode::from(2));
        }
    };
    println!("{}", result.to_json(limits.shown_bytes));
    if args.keep {
        eprintln!("kept:   {}", folder.keep().display());
    }
    Ok(if result.exit_code == Some(0) && result.limit.is_none() {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    })
}
