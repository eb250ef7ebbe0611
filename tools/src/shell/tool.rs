//! [`ShellTool`]: `run_command {"command"}`, a shell line run by `/bin/sh -c`
//! in a [`CommandSandbox`] over one working folder. The model reads the
//! exit code, the [`LimitHit`](super::LimitHit) code that cut the command
//! (or null) and both streams clipped; an engine failure is an error result
//! starting with its code (`sandbox_failed: …`).
//!
//! Narrower, for a reviewer: `run_tests {}` ([`ShellTool::run_tests`])
//! runs one fixed command — the project's test command — and no other.

use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use futures::future::BoxFuture;
use serde::Deserialize;
use serde_json::{Value, json};
use tribunal_runtime::{Tool, ToolError, ToolOutput};

use super::engine::{CommandSandbox, WORK_DIR};
use super::limits::SandboxLimits;

/// The tool's name.
pub const RUN_COMMAND: &str = "run_command";

/// The name of the tool that runs the project's tests only.
pub const RUN_TESTS: &str = "run_tests";

/// Time the toolbox allows a call beyond the command's wall time (the
/// sandbox's start and its kill).
const GRACE: Duration = Duration::from_secs(10);

/// `run_command` over one working folder.
#[derive(Debug, Clone)]
pub struct ShellTool {
    sandbox: Arc<CommandSandbox>,
    dir: PathBuf,
    env: Vec<(String, String)>,
    limits: SandboxLimits,
    description: String,
    /// `run_tests`: the one command it runs (a program and its
    /// arguments); `None`: `run_command`, any shell line.
    tests: Option<Vec<String>>,
}

impl ShellTool {
    /// The tool running its commands in `sandbox` over `dir` (a working
    /// folder already [prepared](CommandSandbox::prepare)), with the
    /// variables of `env` declared, under `limits`.
    pub fn new(
        sandbox: Arc<CommandSandbox>,
        dir: PathBuf,
        env: Vec<(String, String)>,
        limits: SandboxLimits,
    ) -> ShellTool {
        let description = format!(
            "Runs a shell command (`/bin/sh -c`) in a sandbox whose working directory, \
             {WORK_DIR}, is your own copy of the project: the only place you can write. \
             There is no network. Limits: {} s wall time, {} s CPU. Returns the exit code, \
             `limit` (which limit cut the command, or null) and stdout and stderr, each \
             clipped to {} bytes (start and end).",
            limits.wall_time.as_secs(),
            limits.cpu_secs,
            limits.shown_bytes
        );
        ShellTool {
            sandbox,
            dir,
            env,
            limits,
            description,
            tests: None,
        }
    }

    /// `run_tests`: a tool with no arguments that runs `command` (a
    /// program and its arguments: the project's test command) as
    /// [`ShellTool::new`]'s tool runs a line, and nothing else (its schema
    /// refuses any argument).
    pub fn run_tests(
        sandbox: Arc<CommandSandbox>,
        dir: PathBuf,
        env: Vec<(String, String)>,
        limits: SandboxLimits,
        command: Vec<String>,
    ) -> ShellTool {
        let description = format!(
            "Runs this project's tests (`{}`) in a sandbox over your own copy of the project, \
             {WORK_DIR}, with no network, and nothing else; it takes no arguments. Limits: {} s \
             wall time, {} s CPU. Returns the exit code (0: the tests pass), `limit` (which \
             limit cut them, or null) and stdout and stderr, each clipped to {} bytes (start \
             and end).",
            command.join(" "),
            limits.wall_time.as_secs(),
            limits.cpu_secs,
            limits.shown_bytes
        );
        ShellTool {
            sandbox,
            dir,
            env,
            limits,
            description,
            tests: Some(command),
        }
    }
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Args {
    command: String,
}

impl Tool for ShellTool {
    fn name(&self) -> &str {
        if self.tests.is_some() {
            RUN_TESTS
        } else {
            RUN_COMMAND
        }
    }

    fn description(&self) -> &str {
        &self.description
    }

    fn parameters(&self) -> Value {
        if self.tests.is_some() {
            return json!({"type": "object", "properties": {}, "additionalProperties": false});
        }
        json!({
            "type": "object",
            "properties": {
                "command": {
                    "type": "string",
                    "description": "The shell line, e.g. `ls -la` or `python3 -m pytest -q`."
                }
            },
            "required": ["command"],
            "additionalProperties": false
        })
    }

    fn call(&self, args: Value) -> BoxFuture<'_, Result<ToolOutput, ToolError>> {
        Box::pin(async move {
            let argv = match &self.tests {
                Some(command) => command.clone(),
                None => {
                    let args = Args::deserialize(&args).map_err(|e| {
                        ToolError::new(format!("invalid arguments for {RUN_COMMAND}: {e}"))
                    })?;
                    vec!["/bin/sh".to_string(), "-c".to_string(), args.command]
                }
            };
            let result = self
                .sandbox
                .run(&self.dir, &argv, &self.env, &self.limits)
                .await
                .map_err(|e| ToolError::new(e.to_string()))?;
            Ok(ToolOutput::Json(result.to_json(self.limits.shown_bytes)))
        })
    }

    fn timeout(&self) -> Option<Duration> {
        Some(self.limits.wall_time + GRACE)
    }
}
