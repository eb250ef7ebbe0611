//! [`CommandSandbox`]: runs one command in a sandbox over a working folder,
//! under [`SandboxLimits`], and gives its [`CommandResult`].
//!
//! The engine is bubblewrap (`bwrap`); inside it, util-linux's `prlimit`
//! sets the resource limits and runs the command:
//!
//! - new user, PID, network, IPC, UTS and cgroup namespaces
//!   (`--unshare-all`): no network but a loopback of its own, and no other
//!   process of the host to see, signal or trace;
//! - a filesystem of `/usr` (and the `/bin`, `/lib`… links or folders)
//!   read-only, a handful of `/etc` files the dynamic linker and `id`
//!   read, the JDK's configuration (`/etc/java-*`), the toolchains asked
//!   for ([`CommandSandbox::with_toolchains`]: Rust, from the home, at
//!   `/opt/toolchains/rust`), a fresh `/proc`, `/dev` and `/tmp`, and the working folder at
//!   [`WORK_DIR`], the only writable place that outlives the command; the
//!   host's home, `/root`, `/etc`'s other files, `/var`, `/run` and every
//!   socket are absent;
//! - an environment of `PATH`, `HOME` ([`WORK_DIR`]), `TMPDIR` and the
//!   variables the caller declares, nothing of this process's own (bwrap
//!   itself starts with an empty environment, so the sandbox's PID 1 shows
//!   none in `/proc/1/environ`);
//! - `PR_SET_NO_NEW_PRIVS` (bwrap sets it) and `nosuid` mounts: a setuid
//!   binary gains nothing;
//! - run as root, the command runs as `nobody` (65534), so that
//!   `RLIMIT_NPROC` (which the kernel does not enforce on root) holds, and
//!   the working folder is handed to that user first ([`CommandSandbox::prepare`]);
//! - the command's death ends the sandbox's PID namespace, and with it
//!   every process it left behind; at a limit, bwrap is killed and takes
//!   the namespace with it (`--die-with-parent`).
//!
//! No seccomp filter is installed: the kernel's system calls are the
//! sandbox's attack surface (docs/sandbox.md).

use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

use tokio::io::{AsyncRead, AsyncReadExt};
use tokio::sync::Notify;

use super::limits::{LimitHit, SandboxLimits};
use super::toolchain::{Shown, Toolchain};
use crate::error::{ErrorCode, SandboxError};

/// Where the working folder is inside the sandbox (also `HOME`).
pub const WORK_DIR: &str = "/work";

/// The user a command runs as when this process is root: `nobody`.
pub(crate) const NOBODY: u32 = 65534;

/// Folders the engine's programs are looked for in (`PATH` is not read: a
/// `bwrap` earlier on someone's `PATH` is not the one trusted here).
pub(crate) const PROGRAM_DIRS: &[&str] =
    &["/usr/bin", "/bin", "/usr/sbin", "/sbin", "/usr/local/bin"];

/// Top-level system folders shown read-only: a symlink (merged `/usr`) is
/// recreated as the same link, a folder is bound.
const SYSTEM_PATHS: &[&str] = &["/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32"];

/// Files of `/etc` shown read-only when present: what the dynamic linker,
/// `id` and the C library's locale and time code read. No secrets.
const ETC_FILES: &[&str] = &[
    "/etc/ld.so.cache",
    "/etc/ld.so.conf",
    "/etc/ld.so.conf.d",
    "/etc/alternatives",
    "/etc/passwd",
    "/etc/group",
    "/etc/nsswitch.conf",
    "/etc/localtime",
];

/// The `PATH` of every command, after the folders of the toolchains shown.
const BASE_PATH: &str = "/usr/local/bin:/usr/bin:/bin";

/// The folders of `/etc` that hold the configuration of a toolchain in
/// `/usr` (`/etc/java-17-openjdk`: the JVM reads its `java.security`
/// there through links in `/usr/lib/jvm`), shown read-only. No secrets.
fn toolchain_etc() -> Vec<PathBuf> {
    let Ok(entries) = std::fs::read_dir("/etc") else {
        return Vec::new();
    };
    let mut found: Vec<PathBuf> = entries
        .filter_map(Result::ok)
        .filter(|e| {
            let name = e.file_name();
            let name = name.to_string_lossy();
            (name == "java" || name.starts_with("java-")) && e.path().is_dir()
        })
        .map(|e| e.path())
        .collect();
    found.sort();
    found
}

/// `PATH` with the folders of `first` before `base`.
fn path_with(first: impl Iterator<Item = String>, base: &str) -> String {
    first
        .chain([base.to_string()])
        .collect::<Vec<_>>()
        .join(":")
}

/// The sandbox engine. `#[non_exhaustive]`: more may come.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Engine {
    /// bubblewrap's namespaces, under `prlimit`'s resource limits.
    Bubblewrap,
    /// No sandbox: each command runs as this process's user, with this
    /// machine's files and network, under `prlimit`'s resource limits
    /// only. Only ever chosen by name (`[sandbox] engine =
    /// "none-trusted-container"`), for a CI container that is itself the
    /// sandbox; every report of such a run says so in a banner.
    NoneTrustedContainer,
    /// A Docker container of a named image per command: no network, all
    /// capabilities dropped, a read-only root, the working folder bound.
    /// Never run against a real daemon in this version's tests.
    Docker,
    /// [`Engine::Docker`]'s command line through Podman's client.
    Podman,
}

impl Engine {
    /// Every engine.
    pub const ALL: [Engine; 4] = [
        Engine::Bubblewrap,
        Engine::NoneTrustedContainer,
        Engine::Docker,
        Engine::Podman,
    ];

    /// The engine's name, e.g. `"bubblewrap"`.
    pub fn as_str(self) -> &'static str {
        match self {
            Engine::Bubblewrap => "bubblewrap",
            Engine::NoneTrustedContainer => "none-trusted-container",
            Engine::Docker => "docker",
            Engine::Podman => "podman",
        }
    }

    /// Whether the engine runs a container of a named image.
    pub fn is_container(self) -> bool {
        matches!(self, Engine::Docker | Engine::Podman)
    }

    /// The engine named `name` ([`Engine::as_str`]).
    pub fn parse(name: &str) -> Option<Engine> {
        Engine::ALL.into_iter().find(|e| e.as_str() == name)
    }
}

/// How one command ended.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CommandResult {
    /// The exit code; `None` when the sandbox killed the command at a
    /// limit. A death by signal `n` inside reads as `128 + n`.
    pub exit_code: Option<i32>,
    /// The limit that cut the command, if one did.
    pub limit: Option<LimitHit>,
    /// stdout as read (at most the output limit), lossily UTF-8.
    pub stdout: Vec<u8>,
    /// stderr as read (at most the output limit).
    pub stderr: Vec<u8>,
}

impl CommandResult {
    /// The result as the model reads it: `exit_code`, `limit` (a
    /// [`LimitHit`] code or null) and each stream clipped to
    /// `shown_bytes` (its start and end, and how much was left out).
    pub fn to_json(&self, shown_bytes: usize) -> serde_json::Value {
        serde_json::json!({
            "exit_code": self.exit_code,
            "limit": self.limit.map(LimitHit::as_str),
            "stdout": shown(&self.stdout, shown_bytes),
            "stderr": shown(&self.stderr, shown_bytes),
        })
    }
}

/// `bytes` as text, at most `max` bytes of it: the first and last halves
/// with a `[… n bytes left out …]` line between.
fn shown(bytes: &[u8], max: usize) -> String {
    if bytes.len() <= max {
        return String::from_utf8_lossy(bytes).into_owned();
    }
    let half = max / 2;
    let head = String::from_utf8_lossy(&bytes[..half]);
    let tail = String::from_utf8_lossy(&bytes[bytes.len() - half..]);
    format!(
        "{head}\n[… {} bytes left out …]\n{tail}",
        bytes.len() - 2 * half
    )
}

/// How an engine turns one command into the process that runs it: what
/// [`CommandSandbox::run`] drives (its limits, output cap and result are
/// the same whatever the engine). bubblewrap, no sandbox, and a container
/// engine ([`super::container`]) each implement it.
pub(crate) trait EngineCommand: std::fmt::Debug + Send + Sync {
    /// The process that runs `argv` (a program and its arguments) over
    /// `dir` as [`WORK_DIR`], with the variables of `env`, under
    /// `limits`; `name` names this one run (a container's name).
    fn command(
        &self,
        dir: &Path,
        argv: &[String],
        env: &[(String, String)],
        limits: &SandboxLimits,
        name: &str,
    ) -> tokio::process::Command;

    /// The engine, its program and the user commands run as, for a banner.
    fn describe(&self) -> String;

    /// The user and group commands run as when not this process's: the
    /// working folder is handed to them first.
    fn run_as(&self) -> Option<(u32, u32)> {
        None
    }

    /// What stops run `name` once its process was killed at a limit,
    /// when killing it is not enough (a container outlives its client).
    fn stop(&self, _name: &str) -> Option<tokio::process::Command> {
        None
    }

    /// This engine showing the toolchains of `shown` too; `None` when it
    /// cannot show this machine's (a container has its image's).
    fn with_toolchains(&self, _shown: Arc<Shown>) -> Option<Arc<dyn EngineCommand>> {
        None
    }
}

/// A sandbox that was tried once and works: made by
/// [`CommandSandbox::detect`], which refuses when none can be made (or by
/// [`CommandSandbox::container`] or [`CommandSandbox::trusted_container`],
/// only when an arena names them).
#[derive(Debug, Clone)]
pub struct CommandSandbox {
    pub(super) engine: Engine,
    pub(super) inner: Arc<dyn EngineCommand>,
}

/// bubblewrap under `prlimit`.
#[derive(Debug, Clone)]
struct Bubblewrap {
    bwrap: PathBuf,
    prlimit: PathBuf,
    /// The user and group commands run as when this process is root.
    run_as: Option<(u32, u32)>,
    /// The folders of `/etc` of the toolchains in `/usr` ([`toolchain_etc`]).
    etc: Vec<PathBuf>,
    /// The toolchains shown beside `/usr`.
    toolchains: Arc<Shown>,
}

/// No sandbox: `prlimit` alone.
#[derive(Debug, Clone)]
struct NoSandbox {
    prlimit: PathBuf,
    /// The toolchains whose `bin` folders come first on `PATH`.
    toolchains: Arc<Shown>,
}

impl CommandSandbox {
    /// Finds bubblewrap and `prlimit` and runs `true` in a sandbox once.
    /// Refuses with [`ErrorCode::SandboxUnavailable`] and the reason (a
    /// program missing, namespaces refused, as on Ubuntu 24.04 with
    /// AppArmor's user-namespace restriction) when no sandbox can be
    /// made; there is no unsandboxed fallback.
    pub async fn detect() -> Result<CommandSandbox, SandboxError> {
        let dirs: Vec<&Path> = PROGRAM_DIRS.iter().map(Path::new).collect();
        CommandSandbox::detect_in(&dirs).await
    }

    /// [`CommandSandbox::detect`] with `bwrap` and `prlimit` looked for in
    /// `dirs` only (a test's, or a distribution's own layout).
    pub async fn detect_in(dirs: &[&Path]) -> Result<CommandSandbox, SandboxError> {
        if !cfg!(target_os = "linux") {
            return Err(SandboxError::new(
                ErrorCode::SandboxUnavailable,
                "no sandbox: the command sandbox is bubblewrap, which needs Linux; on macOS and \
                 Windows run tribunal in a Linux container or VM (docs/sandbox.md)",
            ));
        }
        let find = |name: &str| {
            dirs.iter()
                .map(|dir| dir.join(name))
                .find(|p| p.is_file())
                .ok_or_else(|| {
                    SandboxError::new(
                        ErrorCode::SandboxUnavailable,
                        format!(
                            "no sandbox: `{name}` is not installed (looked in {}); install the \
                             `bubblewrap` and `util-linux` packages (docs/sandbox.md)",
                            dirs.iter()
                                .map(|d| d.display().to_string())
                                .collect::<Vec<_>>()
                                .join(", ")
                        ),
                    )
                })
        };
        let sandbox = CommandSandbox {
            engine: Engine::Bubblewrap,
            inner: Arc::new(Bubblewrap {
                bwrap: find("bwrap")?,
                prlimit: find("prlimit")?,
                run_as: is_root().then_some((NOBODY, NOBODY)),
                etc: toolchain_etc(),
                toolchains: Arc::default(),
            }),
        };
        let made = WorkingFolder::empty_in(&std::env::temp_dir(), "probe")
            .and_then(|folder| sandbox.prepare(folder.path()).map(|()| folder));
        let folder = made.map_err(|e| {
            SandboxError::new(
                ErrorCode::SandboxUnavailable,
                format!("no sandbox: cannot make a folder to try it in: {e}"),
            )
        })?;
        let result = sandbox
            .run(
                folder.path(),
                &["true".to_string()],
                &[],
                &SandboxLimits::default(),
            )
            .await
            .map_err(|e| SandboxError::new(ErrorCode::SandboxUnavailable, e.message))?;
        if result.exit_code != Some(0) {
            return Err(SandboxError::new(
                ErrorCode::SandboxUnavailable,
                format!(
                    "no sandbox: bubblewrap could not start `true` (exit {:?}): {}; on Ubuntu \
                     24.04 and later see docs/sandbox.md (AppArmor restricts user namespaces)",
                    result.exit_code,
                    String::from_utf8_lossy(&result.stderr).trim()
                ),
            ));
        }
        Ok(sandbox)
    }

    /// No sandbox ([`Engine::NoneTrustedContainer`]): commands run as this
    /// process's user in the working folder, with this machine's files and
    /// network, under `prlimit`'s limits (looked for as
    /// [`CommandSandbox::detect`] does). For a CI container that is itself
    /// the sandbox, and only when named; never a fallback.
    pub fn trusted_container() -> Result<CommandSandbox, SandboxError> {
        let prlimit = PROGRAM_DIRS
            .iter()
            .map(|dir| Path::new(dir).join("prlimit"))
            .find(|p| p.is_file())
            .ok_or_else(|| {
                SandboxError::new(
                    ErrorCode::SandboxUnavailable,
                    "`prlimit` is not installed: the limits of engine \"none-trusted-container\" \
                     need it; install the `util-linux` package",
                )
            })?;
        Ok(CommandSandbox {
            engine: Engine::NoneTrustedContainer,
            inner: Arc::new(NoSandbox {
                prlimit,
                toolchains: Arc::default(),
            }),
        })
    }

    /// This sandbox showing `toolchains` of this machine too, read-only
    /// (none: itself). Refuses ([`ErrorCode::SandboxUnavailable`]) when
    /// one is not installed, or for a container engine, whose commands
    /// have the image's toolchains. Rust is `rustc --print sysroot`'s
    /// `bin`, `lib` and `libexec`, at `/opt/toolchains/rust`, its `bin`
    /// first on `PATH`; nothing else of the home it lives in.
    pub fn with_toolchains(self, toolchains: &[Toolchain]) -> Result<CommandSandbox, SandboxError> {
        if toolchains.is_empty() {
            return Ok(self);
        }
        let shown = Shown::find(toolchains, self.inner.run_as().is_some())?;
        let inner = self.inner.with_toolchains(Arc::new(shown)).ok_or_else(|| {
            SandboxError::new(
                ErrorCode::SandboxUnavailable,
                format!(
                    "engine \"{}\" cannot show this machine's toolchains: its commands have the \
                     image's; drop `toolchains` or pick an image that has them",
                    self.engine.as_str()
                ),
            )
        })?;
        Ok(CommandSandbox {
            engine: self.engine,
            inner,
        })
    }

    /// The engine.
    pub fn engine(&self) -> Engine {
        self.engine
    }

    /// The engine, its program and the user commands run as, for a banner.
    pub fn describe(&self) -> String {
        self.inner.describe()
    }

    /// Makes `dir` (a working folder made for the sandbox, never a user's
    /// own) writable by the sandbox's user: hands every entry to `nobody`
    /// when this process is root; nothing otherwise.
    pub fn prepare(&self, dir: &Path) -> std::io::Result<()> {
        match self.inner.run_as() {
            Some((uid, gid)) => chown_tree(dir, uid, gid),
            None => Ok(()),
        }
    }

    /// Runs `argv` (a program and its arguments; `sh -c …` for a shell
    /// line) with `dir` as the writable [`WORK_DIR`], the variables of
    /// `env` declared, under `limits`. `Err` only when the engine itself
    /// failed ([`ErrorCode::SandboxFailed`]); a command that fails, or one
    /// cut at a limit, is an `Ok` result that says so.
    pub async fn run(
        &self,
        dir: &Path,
        argv: &[String],
        env: &[(String, String)],
        limits: &SandboxLimits,
    ) -> Result<CommandResult, SandboxError> {
        let failed = |what: &str, e: std::io::Error| {
            SandboxError::new(ErrorCode::SandboxFailed, format!("{what}: {e}"))
        };
        static RUNS: AtomicU64 = AtomicU64::new(0);
        let name = format!(
            "tribunal-{}-{}",
            std::process::id(),
            RUNS.fetch_add(1, Ordering::Relaxed)
        );
        let mut command = piped(self.inner.command(dir, argv, env, limits, &name));
        let mut child = command.spawn().map_err(|e| {
            failed(
                &format!("cannot start the {} engine", self.engine.as_str()),
                e,
            )
        })?;
        let read = Arc::new(AtomicU64::new(0));
        let over = Arc::new(Notify::new());
        let cap = limits.output_bytes;
        let stdout = child.stdout.take();
        let stderr = child.stderr.take();
        let mut out = Vec::new();
        let mut err = Vec::new();
        let limit = {
            let reading = async {
                let (a, b) = tokio::join!(
                    read_capped(stdout, &mut out, cap, &read, &over),
                    read_capped(stderr, &mut err, cap, &read, &over),
                );
                a.and(b)
            };
            let run = async {
                reading.await?;
                child.wait().await
            };
            tokio::select! {
                status = run => Ok(status.map_err(|e| failed("waiting for the command", e))?),
                () = tokio::time::sleep(limits.wall_time) => Err(LimitHit::WallTime),
                () = over.notified() => Err(LimitHit::Output),
            }
        };
        let exit_code = match limit {
            Ok(status) => status.code(),
            Err(hit) => {
                // bwrap dies, its PID 1 with it (`--die-with-parent`), and
                // the kernel kills the rest of the namespace.
                child.start_kill().map_err(|e| failed("cannot kill", e))?;
                child
                    .wait()
                    .await
                    .map_err(|e| failed("waiting after a kill", e))?;
                if let Some(mut stop) = self.inner.stop(&name) {
                    // Boxed: only a container's cut run pays for its future.
                    let stopped =
                        Box::pin(stop.stdout(Stdio::null()).stderr(Stdio::null()).status());
                    if let Err(e) = stopped.await {
                        tracing::warn!(run = %name, "cannot stop a run cut at a limit: {e}");
                    }
                }
                return Ok(CommandResult {
                    exit_code: None,
                    limit: Some(hit),
                    stdout: out,
                    stderr: err,
                });
            }
        };
        if self.engine == Engine::Bubblewrap && exit_code == Some(1) && err.starts_with(b"bwrap: ")
        {
            return Err(SandboxError::new(
                ErrorCode::SandboxFailed,
                format!(
                    "bubblewrap could not set up the sandbox: {}",
                    String::from_utf8_lossy(&err).trim()
                ),
            ));
        }
        Ok(CommandResult {
            exit_code,
            limit: exit_code.and_then(LimitHit::from_exit_code),
            stdout: out,
            stderr: err,
        })
    }
}

impl EngineCommand for Bubblewrap {
    /// `bwrap … -- prlimit … -- argv`, bwrap with an empty environment.
    fn command(
        &self,
        dir: &Path,
        argv: &[String],
        env: &[(String, String)],
        limits: &SandboxLimits,
        _name: &str,
    ) -> tokio::process::Command {
        let mut c = tokio::process::Command::new(&self.bwrap);
        c.env_clear().args([
            "--unshare-all",
            "--die-with-parent",
            "--new-session",
            "--ro-bind",
            "/usr",
            "/usr",
        ]);
        for path in SYSTEM_PATHS {
            match std::fs::read_link(path) {
                Ok(target) => {
                    c.arg("--symlink").arg(target).arg(path);
                }
                Err(_) if Path::new(path).is_dir() => {
                    c.args(["--ro-bind", path, path]);
                }
                Err(_) => {}
            }
        }
        for file in ETC_FILES {
            c.args(["--ro-bind-try", file, file]);
        }
        for folder in &self.etc {
            c.arg("--ro-bind").arg(folder).arg(folder);
        }
        for (from, to) in &self.toolchains.binds {
            c.arg("--ro-bind").arg(from).arg(to);
        }
        let path = path_with(self.toolchains.path.iter().cloned(), BASE_PATH);
        c.args(["--proc", "/proc", "--dev", "/dev", "--tmpfs", "/tmp"])
            .arg("--bind")
            .arg(dir)
            .arg(WORK_DIR)
            .args(["--chdir", WORK_DIR, "--clearenv"])
            .args(["--setenv", "PATH", &path])
            .args(["--setenv", "HOME", WORK_DIR, "--setenv", "TMPDIR", "/tmp"]);
        for (name, value) in env {
            c.arg("--setenv").arg(name).arg(value);
        }
        // The limits are set inside the sandbox, on the command alone: its
        // user namespace then counts its processes apart from every other
        // sandbox's (set outside, `RLIMIT_NPROC` would count all the
        // sandboxes of the same user, and 100 at once would fail to start).
        c.arg("--")
            .arg(&self.prlimit)
            .args(prlimit_args(limits, argv));
        #[cfg(unix)]
        if let Some((uid, gid)) = self.run_as {
            c.uid(uid).gid(gid);
        }
        c
    }

    fn describe(&self) -> String {
        let user = match self.run_as {
            Some((uid, _)) => format!("uid {uid} (this process is root)"),
            None => "this process's user, in a user namespace".to_string(),
        };
        format!(
            "{} ({}), no network, only {WORK_DIR} writable, as {user}{}",
            Engine::Bubblewrap.as_str(),
            self.bwrap.display(),
            self.toolchains.describe()
        )
    }

    fn run_as(&self) -> Option<(u32, u32)> {
        self.run_as
    }

    fn with_toolchains(&self, shown: Arc<Shown>) -> Option<Arc<dyn EngineCommand>> {
        Some(Arc::new(Bubblewrap {
            toolchains: shown,
            ..self.clone()
        }))
    }
}

impl EngineCommand for NoSandbox {
    /// `prlimit … -- argv` in `dir`, with only the declared variables.
    fn command(
        &self,
        dir: &Path,
        argv: &[String],
        env: &[(String, String)],
        limits: &SandboxLimits,
        _name: &str,
    ) -> tokio::process::Command {
        let mut c = tokio::process::Command::new(&self.prlimit);
        let host = self.toolchains.host_path.iter();
        let path = path_with(host.map(|p| p.display().to_string()), BASE_PATH);
        c.env_clear()
            .current_dir(dir)
            .env("PATH", path)
            .env("HOME", dir)
            .env("TMPDIR", std::env::temp_dir())
            .envs(env.iter().map(|(k, v)| (k, v)))
            .args(prlimit_args(limits, argv));
        c
    }

    fn describe(&self) -> String {
        format!(
            "NO SANDBOX ({}): commands run as this process's user, with this machine's \
             files and network, under resource limits only",
            Engine::NoneTrustedContainer.as_str()
        )
    }

    fn with_toolchains(&self, shown: Arc<Shown>) -> Option<Arc<dyn EngineCommand>> {
        Some(Arc::new(NoSandbox {
            toolchains: shown,
            ..self.clone()
        }))
    }
}

/// `prlimit`'s arguments: `limits`, then `--` and `argv`.
pub(crate) fn prlimit_args(limits: &SandboxLimits, argv: &[String]) -> Vec<String> {
    let mut args = vec![
        format!("--cpu={}:{}", limits.cpu_secs, limits.cpu_secs + 1),
        format!("--data={}", limits.memory_bytes),
        format!("--nproc={}", limits.processes),
        format!("--fsize={}", limits.file_bytes),
        "--core=0".to_string(),
        "--".to_string(),
    ];
    args.extend_from_slice(argv);
    args
}

/// `c` with stdin closed, both streams piped and killed when dropped.
fn piped(mut c: tokio::process::Command) -> tokio::process::Command {
    c.stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .kill_on_drop(true);
    c
}

/// Reads `from` into `into` while the output read by all streams (`read`)
/// stays within `cap`; past it, wakes `over` and stops.
async fn read_capped(
    from: Option<impl AsyncRead + Unpin>,
    into: &mut Vec<u8>,
    cap: u64,
    read: &AtomicU64,
    over: &Notify,
) -> std::io::Result<()> {
    let Some(mut from) = from else {
        return Ok(());
    };
    let mut buf = [0u8; 16 * 1024];
    loop {
        let n = from.read(&mut buf).await?;
        if n == 0 {
            return Ok(());
        }
        let before = read.fetch_add(n as u64, Ordering::Relaxed);
        let room = cap.saturating_sub(before);
        let keep = usize::try_from(room).unwrap_or(usize::MAX).min(n);
        into.extend_from_slice(&buf[..keep]);
        if before + n as u64 > cap {
            over.notify_one();
            // Wait to be cut: reading on would let the command go on.
            std::future::pending::<()>().await;
        }
    }
}

/// Whether this process runs as root (its `/proc/self` is root's).
#[cfg(unix)]
pub(crate) fn is_root() -> bool {
    use std::os::unix::fs::MetadataExt;
    std::fs::metadata("/proc/self").is_ok_and(|m| m.uid() == 0)
}

#[cfg(not(unix))]
pub(crate) fn is_root() -> bool {
    false
}

#[cfg(not(unix))]
fn chown_tree(_: &Path, _: u32, _: u32) -> std::io::Result<()> {
    Ok(())
}

/// Hands `dir` and everything under it to `uid`:`gid`, links themselves
/// rather than what they point to.
#[cfg(unix)]
fn chown_tree(dir: &Path, uid: u32, gid: u32) -> std::io::Result<()> {
    std::os::unix::fs::lchown(dir, Some(uid), Some(gid))?;
    if std::fs::symlink_metadata(dir)?.is_dir() {
        for entry in std::fs::read_dir(dir)? {
            chown_tree(&entry?.path(), uid, gid)?;
        }
    }
    Ok(())
}

/// A folder made for one run (a copy of another folder, or empty), removed
/// when dropped unless [`WorkingFolder::keep`] was called.
#[derive(Debug)]
pub struct WorkingFolder {
    path: PathBuf,
    keep: bool,
}

impl WorkingFolder {
    /// A new empty folder at `path` (which must not exist yet).
    pub fn empty(path: &Path) -> std::io::Result<WorkingFolder> {
        std::fs::create_dir(path)?;
        Ok(WorkingFolder {
            path: path.to_path_buf(),
            keep: false,
        })
    }

    /// A new empty folder under `parent`, named `tribunal-<label>-<pid>-<n>`.
    pub fn empty_in(parent: &Path, label: &str) -> std::io::Result<WorkingFolder> {
        static NEXT: AtomicU64 = AtomicU64::new(0);
        loop {
            let n = NEXT.fetch_add(1, Ordering::Relaxed);
            let path = parent.join(format!("tribunal-{label}-{}-{n}", std::process::id()));
            match WorkingFolder::empty(&path) {
                Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => continue,
                other => return other,
            }
        }
    }

    /// A copy of `from` in a new folder under `parent` ([`Self::empty_in`]):
    /// files with their permissions, folders, and symlinks as links (never
    /// followed, so a link out of `from` copies nothing of where it
    /// points). Other entries (sockets, pipes, devices) are left out.
    pub fn copy_of(from: &Path, parent: &Path, label: &str) -> std::io::Result<WorkingFolder> {
        let folder = WorkingFolder::empty_in(parent, label)?;
        copy_tree(from, &folder.path)?;
        Ok(folder)
    }

    /// Copies the entries of `from` into this folder as
    /// [`Self::copy_of`] does, over what is there: a file of the same path
    /// is replaced, a folder's entries are added to.
    pub fn add_copy_of(&self, from: &Path) -> std::io::Result<()> {
        copy_tree(from, &self.path)
    }

    /// The folder.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Keeps the folder when dropped; gives its path.
    pub fn keep(mut self) -> PathBuf {
        self.keep = true;
        self.path.clone()
    }
}

impl Drop for WorkingFolder {
    fn drop(&mut self) {
        if !self.keep
            && let Err(e) = std::fs::remove_dir_all(&self.path)
        {
            tracing::warn!(folder = %self.path.display(), "cannot remove a working folder: {e}");
        }
    }
}

/// Copies the entries of `from` into the existing folder `to` (a folder
/// already there is added to, a file replaced).
fn copy_tree(from: &Path, to: &Path) -> std::io::Result<()> {
    for entry in std::fs::read_dir(from)? {
        let entry = entry?;
        let kind = entry.file_type()?;
        let target = to.join(entry.file_name());
        // A file or link already there is replaced, never written through
        // (a link out of the copy would carry the write out of it).
        if std::fs::symlink_metadata(&target).is_ok_and(|m| !m.is_dir()) {
            std::fs::remove_file(&target)?;
        }
        if kind.is_symlink() {
            #[cfg(unix)]
            std::os::unix::fs::symlink(std::fs::read_link(entry.path())?, &target)?;
        } else if kind.is_dir() {
            if !target.is_dir() {
                std::fs::create_dir(&target)?;
            }
            copy_tree(&entry.path(), &target)?;
        } else if kind.is_file() {
            std::fs::copy(entry.path(), &target)?;
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Without a sandbox, the command runs in the folder itself, with only
    /// `PATH`, `HOME` (the folder), `TMPDIR` and the declared variables,
    /// under the same limits.
    #[cfg(target_os = "linux")]
    #[tokio::test]
    async fn no_sandbox_runs_in_the_folder_with_only_the_declared_variables() {
        let Ok(sandbox) = CommandSandbox::trusted_container() else {
            panic!("prlimit is missing");
        };
        assert_eq!(sandbox.engine(), Engine::NoneTrustedContainer);
        assert!(
            sandbox
                .describe()
                .starts_with("NO SANDBOX (none-trusted-container)")
        );
        let dir = tempfile::tempdir().unwrap();
        let line = "pwd; echo \"$HOME|$GREETING|${OPENAI_API_KEY:-unset}\"; grep processes /proc/self/limits | tr -s ' ' | cut -d' ' -f3";
        let argv = ["sh".to_string(), "-c".to_string(), line.to_string()];
        let env = [("GREETING".to_string(), "hi".to_string())];
        let limits = SandboxLimits {
            processes: 77,
            ..SandboxLimits::default()
        };
        let ran = sandbox.run(dir.path(), &argv, &env, &limits).await.unwrap();
        let out = String::from_utf8_lossy(&ran.stdout).into_owned();
        let here = dir.path().canonicalize().unwrap();
        let home = dir.path().display();
        assert_eq!(out, format!("{}\n{home}|hi|unset\n77\n", here.display()));
        assert_eq!(ran.exit_code, Some(0));
    }

    #[test]
    fn a_long_stream_shows_its_start_and_end_and_what_was_left_out() {
        let text: Vec<u8> = b"abcdefghij".to_vec();
        assert_eq!(shown(&text, 100), "abcdefghij");
        assert_eq!(shown(&text, 4), "ab\n[… 6 bytes left out …]\nij");
    }

    #[cfg(unix)]
    #[test]
    fn a_copy_keeps_links_as_links_and_is_removed_when_dropped() {
        let Ok(dir) = std::env::temp_dir().canonicalize() else {
            return;
        };
        let src = WorkingFolder::copy_of(Path::new("src"), &dir, "copy-test-src");
        let Ok(src) = src else {
            panic!("cannot copy src");
        };
        let link = src.path().join("out");
        assert!(std::os::unix::fs::symlink("/etc", &link).is_ok());
        let copy = WorkingFolder::copy_of(src.path(), &dir, "copy-test").map_err(|e| e.to_string());
        let copy = copy.unwrap_or_else(|e| panic!("{e}"));
        assert!(copy.path().join("lib.rs").is_file());
        assert_eq!(
            std::fs::read_link(copy.path().join("out")).ok(),
            Some(PathBuf::from("/etc"))
        );
        // Added over it: a file replaced, a folder added to.
        let over = WorkingFolder::empty_in(&dir, "copy-test-over").unwrap();
        std::fs::write(over.path().join("lib.rs"), "replaced").unwrap();
        std::fs::write(over.path().join("out"), "not through the link").unwrap();
        std::fs::create_dir(over.path().join("shell")).unwrap();
        std::fs::write(over.path().join("shell/added.rs"), "added").unwrap();
        copy.add_copy_of(over.path()).unwrap();
        assert_eq!(
            std::fs::read_to_string(copy.path().join("lib.rs")).unwrap(),
            "replaced"
        );
        assert!(copy.path().join("shell/added.rs").is_file());
        assert!(copy.path().join("shell/mod.rs").is_file());
        assert!(!copy.path().join("out").is_symlink());
        let path = copy.path().to_path_buf();
        drop(copy);
        assert!(!path.exists());
    }
}
