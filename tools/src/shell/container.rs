//! The container engine ([`Engine::Docker`], [`Engine::Podman`]): each
//! command in a fresh container of the arena's image, through the client's
//! `run`:
//!
//! - `--network none`, `--cap-drop ALL`, `--security-opt
//!   no-new-privileges`, a read-only root with a fresh `/tmp` (tmpfs);
//! - the working folder bound at [`WORK_DIR`], the working directory and
//!   `HOME`, the only writable place that outlives the command;
//! - `--pids-limit`, `--memory` (the container's total, where bubblewrap
//!   can limit each process only), and the per-process `ulimit`s of
//!   [`SandboxLimits`] (`cpu`, `fsize`, `core`);
//! - run as `nobody` when this process is root (the folder handed to it
//!   first), else as this process's user and group;
//! - `--name` per command: at a limit the client is killed and the
//!   container stopped by name (`kill`), since a container outlives its
//!   client.
//!
//! The client is found in the folders bubblewrap is looked for in, and
//! its daemon asked for its version once; either missing is a
//! `sandbox_unavailable` refusal. Built and tested without a daemon: the
//! command line is held by a snapshot, the refusals by fake clients; it
//! was never run against a real Docker or Podman daemon.

use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::time::Duration;

use super::engine::{
    CommandSandbox, Engine, EngineCommand, NOBODY, PROGRAM_DIRS, WORK_DIR, is_root,
};
use super::limits::SandboxLimits;
use crate::error::{ErrorCode, SandboxError};
use std::sync::Arc;

/// How long the daemon may take to answer the version probe.
const PROBE_TIME: Duration = Duration::from_secs(15);

/// Variables of this process the client itself may need to reach its
/// daemon; none reaches the container (only `--env` does).
const CLIENT_VARIABLES: &[&str] = &[
    "DOCKER_HOST",
    "DOCKER_CONFIG",
    "DOCKER_CONTEXT",
    "CONTAINER_HOST",
    "XDG_RUNTIME_DIR",
    "HOME",
];

/// A container engine's client and the image its commands run in.
#[derive(Debug)]
pub(crate) struct Container {
    engine: Engine,
    client: PathBuf,
    image: String,
    /// The user and group commands run as.
    user: (u32, u32),
    /// Whether the folder is handed to `user` first (this process is root).
    hand_over: bool,
}

impl Container {
    /// The client of `engine` found in `dirs`, its daemon asked for its
    /// version once; refused with [`ErrorCode::SandboxUnavailable`] and
    /// the reason otherwise.
    pub(crate) async fn detect(
        engine: Engine,
        image: &str,
        dirs: &[&Path],
    ) -> Result<Container, SandboxError> {
        let unavailable =
            |message: String| SandboxError::new(ErrorCode::SandboxUnavailable, message);
        if !engine.is_container() {
            return Err(unavailable(format!(
                "no sandbox: `{}` is not a container engine",
                engine.as_str()
            )));
        }
        if image.trim().is_empty() {
            return Err(unavailable(
                "no sandbox: a container engine needs an image ([sandbox] image)".to_string(),
            ));
        }
        let name = engine.as_str();
        let client = dirs
            .iter()
            .map(|dir| dir.join(name))
            .find(|p| p.is_file())
            .ok_or_else(|| {
                unavailable(format!(
                    "no sandbox: `{name}` is not installed (looked in {}); install it, or use \
                     engine = \"bubblewrap\" (docs/sandbox.md)",
                    dirs.iter()
                        .map(|d| d.display().to_string())
                        .collect::<Vec<_>>()
                        .join(", ")
                ))
            })?;
        let root = is_root();
        let container = Container {
            engine,
            user: if root { (NOBODY, NOBODY) } else { this_user() },
            hand_over: root,
            client,
            image: image.to_string(),
        };
        container.probe().await?;
        Ok(container)
    }

    /// `client version`: whether the daemon answers.
    async fn probe(&self) -> Result<(), SandboxError> {
        let mut c = self.client_command();
        c.arg("version")
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .kill_on_drop(true);
        let name = self.engine.as_str();
        let unavailable =
            |message: String| SandboxError::new(ErrorCode::SandboxUnavailable, message);
        let out = tokio::time::timeout(PROBE_TIME, c.output())
            .await
            .map_err(|_| {
                unavailable(format!(
                    "no sandbox: the {name} daemon did not answer `{name} version` in {} s",
                    PROBE_TIME.as_secs()
                ))
            })?
            .map_err(|e| unavailable(format!("no sandbox: cannot start `{name}`: {e}")))?;
        if out.status.success() {
            return Ok(());
        }
        let said = String::from_utf8_lossy(&out.stderr);
        let said = said.trim();
        Err(unavailable(format!(
            "no sandbox: the {name} daemon is not reachable (`{name} version` exited {}): {}",
            out.status
                .code()
                .map_or("by a signal".to_string(), |c| c.to_string()),
            if said.is_empty() { "no output" } else { said }
        )))
    }

    /// The client with only the variables it needs to reach its daemon.
    fn client_command(&self) -> tokio::process::Command {
        let mut c = tokio::process::Command::new(&self.client);
        c.env_clear()
            .env("PATH", "/usr/local/bin:/usr/bin:/bin")
            .envs(
                CLIENT_VARIABLES
                    .iter()
                    .filter_map(|name| Some((name, std::env::var_os(name)?))),
            );
        c
    }
}

/// The client's arguments that run `argv` in a container named `name` of
/// `image` over `dir`, as `user`, with `env` declared, under `limits`.
pub(crate) fn run_args(
    (image, name, user): (&str, &str, (u32, u32)),
    dir: &Path,
    argv: &[String],
    env: &[(String, String)],
    limits: &SandboxLimits,
) -> Vec<String> {
    let mut args: Vec<String> = [
        "run",
        "--rm",
        "--interactive=false",
        "--name",
        name,
        "--network",
        "none",
        "--cap-drop",
        "ALL",
        "--security-opt",
        "no-new-privileges",
        "--read-only",
        "--tmpfs",
        "/tmp",
    ]
    .iter()
    .map(|s| s.to_string())
    .collect();
    args.extend([
        "--user".to_string(),
        format!("{}:{}", user.0, user.1),
        "--pids-limit".to_string(),
        limits.processes.to_string(),
        "--memory".to_string(),
        limits.memory_bytes.to_string(),
        "--ulimit".to_string(),
        format!("cpu={}:{}", limits.cpu_secs, limits.cpu_secs + 1),
        "--ulimit".to_string(),
        format!("fsize={}", limits.file_bytes),
        "--ulimit".to_string(),
        "core=0".to_string(),
        "--volume".to_string(),
        format!("{}:{WORK_DIR}", dir.display()),
        "--workdir".to_string(),
        WORK_DIR.to_string(),
        "--env".to_string(),
        format!("HOME={WORK_DIR}"),
        "--env".to_string(),
        "TMPDIR=/tmp".to_string(),
    ]);
    for (key, value) in env {
        args.push("--env".to_string());
        args.push(format!("{key}={value}"));
    }
    args.push(image.to_string());
    args.extend_from_slice(argv);
    args
}

impl EngineCommand for Container {
    fn command(
        &self,
        dir: &Path,
        argv: &[String],
        env: &[(String, String)],
        limits: &SandboxLimits,
        name: &str,
    ) -> tokio::process::Command {
        let mut c = self.client_command();
        c.args(run_args(
            (&self.image, name, self.user),
            dir,
            argv,
            env,
            limits,
        ));
        c
    }

    fn describe(&self) -> String {
        format!(
            "{} ({}), image {}, no network, only {WORK_DIR} writable, as uid {}",
            self.engine.as_str(),
            self.client.display(),
            self.image,
            self.user.0
        )
    }

    fn run_as(&self) -> Option<(u32, u32)> {
        self.hand_over.then_some(self.user)
    }

    fn stop(&self, name: &str) -> Option<tokio::process::Command> {
        let mut c = self.client_command();
        c.args(["kill", name]).stdin(Stdio::null());
        Some(c)
    }
}

impl CommandSandbox {
    /// A container engine (`engine`: [`Engine::Docker`] or
    /// [`Engine::Podman`]) running `image`: its client found (in the
    /// folders [`CommandSandbox::detect`] looks in) and its daemon asked
    /// for its version once. Refuses with [`ErrorCode::SandboxUnavailable`]
    /// when the client is missing or the daemon does not answer.
    pub async fn container(engine: Engine, image: &str) -> Result<CommandSandbox, SandboxError> {
        let dirs: Vec<&Path> = PROGRAM_DIRS.iter().map(Path::new).collect();
        CommandSandbox::container_in(engine, image, &dirs).await
    }

    /// [`CommandSandbox::container`] with the client looked for in `dirs`.
    pub(crate) async fn container_in(
        engine: Engine,
        image: &str,
        dirs: &[&Path],
    ) -> Result<CommandSandbox, SandboxError> {
        let container = Container::detect(engine, image, dirs).await?;
        Ok(CommandSandbox {
            engine,
            inner: Arc::new(container),
        })
    }
}

/// This process's user and group (of its `/proc/self`).
#[cfg(unix)]
fn this_user() -> (u32, u32) {
    use std::os::unix::fs::MetadataExt;
    std::fs::metadata("/proc/self").map_or((NOBODY, NOBODY), |m| (m.uid(), m.gid()))
}

#[cfg(not(unix))]
fn this_user() -> (u32, u32) {
    (NOBODY, NOBODY)
}

#[cfg(test)]
mod tests;
