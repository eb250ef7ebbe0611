//! Launching the `tribunal` binary from a test: a clean environment, the
//! binary's path given by the test (`env!("CARGO_BIN_EXE_tribunal")` exists
//! only in the root package's own tests).

use std::ffi::OsStr;
use std::path::Path;
use std::process::Output;

/// The variables no launched process inherits from the test's environment:
/// a CI job's own shard would change which items a run runs; a developer's
/// key, base URL, proxy or log filter would reach past the stand-in server.
pub const INHERITED_VARS_REMOVED: [&str; 14] = [
    "TRIBUNAL_SHARD",
    "TRIBUNAL_SHARDS",
    "JOB_COMPLETION_INDEX",
    "OPENAI_API_KEY",
    "OPENAI_BASE_URL",
    "ANTHROPIC_API_KEY",
    "ANTHROPIC_BASE_URL",
    "RUST_LOG",
    "HTTP_PROXY",
    "HTTPS_PROXY",
    "ALL_PROXY",
    "http_proxy",
    "https_proxy",
    "all_proxy",
];

/// `bin ARGS` in `cwd`, without [`INHERITED_VARS_REMOVED`].
pub fn command<S: AsRef<OsStr>>(bin: &Path, args: &[S], cwd: &Path) -> std::process::Command {
    let mut command = std::process::Command::new(bin);
    command.args(args).current_dir(cwd);
    for name in INHERITED_VARS_REMOVED {
        command.env_remove(name);
    }
    command
}

/// Runs `bin ARGS` in `cwd` to its end with `env` set (and nothing of
/// [`INHERITED_VARS_REMOVED`] inherited), without blocking the runtime that
/// serves the stand-in model.
pub async fn run_with_env<S: AsRef<OsStr>>(
    bin: &Path,
    args: &[S],
    cwd: &Path,
    env: &[(&str, String)],
) -> Output {
    let mut command = tokio::process::Command::from(command(bin, args, cwd));
    for (name, value) in env {
        command.env(name, value);
    }
    command.output().await.unwrap()
}

/// The exit code of a process that exited (not killed by a signal).
pub fn code(output: &Output) -> i32 {
    output.status.code().unwrap()
}

/// The process's standard error as text.
pub fn stderr(output: &Output) -> String {
    String::from_utf8_lossy(&output.stderr).into_owned()
}

/// The process's standard output as text.
pub fn stdout(output: &Output) -> String {
    String::from_utf8_lossy(&output.stdout).into_owned()
}

/// Asserts that the process exited with `expected` and that its standard
/// error says `needle` (the whole standard error in the failure message).
#[track_caller]
pub fn assert_exit_says(output: &Output, expected: i32, needle: &str) {
    let stderr = stderr(output);
    assert_eq!(output.status.code(), Some(expected), "{stderr}");
    assert!(stderr.contains(needle), "wanted {needle:?} in:\n{stderr}");
}
