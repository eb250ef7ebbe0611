//! `[sandbox]` in arena.toml, read when `tools` names `shell`: the limits
//! of each `run_command` call and the variables its commands see.
//!
//! ```toml
//! tools = ["shell"]          # run_command, and the file tools, in a copy
//! files_root = "project"     # the folder each run gets a copy of
//!
//! [sandbox]
//! timeout_secs = 60          # wall time of one command
//! cpu_secs = 60
//! memory_mb = 1024
//! processes = 256
//! output_kb = 1024           # stdout + stderr read before the command is cut
//! env = { LANG = "C.UTF-8" } # the only variables a command sees, beside
//!                            # PATH, HOME and TMPDIR
//! keep_copies = false        # keep each run's copy after scoring
//! write_files = false        # write_file and apply_patch in the copy
//!                            # (refused for review arenas)
//! engine = "bubblewrap"      # or "none-trusted-container": NO sandbox,
//!                            # for a CI container that is one; every
//!                            # report of the run then says so in a banner;
//!                            # or "docker" / "podman" with `image`
//! image = "python:3.12-slim" # the container engines' image
//! toolchains = ["rust"]      # this machine's toolchains outside /usr,
//!                            # read-only (bubblewrap, none-trusted-container)
//! run_tests = false          # the agent's command tool is run_tests: the
//!                            # item's test_command, no other command
//! test_command = ["python3", "-m", "unittest"] # run_tests' command for
//!                            # items without their own `test_command`
//! ```
//!
//! A review (`[verdict]`) arena without `shell` may have the table too:
//! its gold tests (`tribunal lint --run`) run under it.
//!
//! Each run (item × repeat) gets a fresh copy of the folder (the verdict
//! table's `item_root` for the item, else `files_root`); `run_command`
//! and the file tools work in it, and it is removed once the run is scored.

use super::ARENA_TOML;
use crate::problem::Problem;
use indexmap::IndexMap;
use serde::Deserialize;
use std::time::Duration;
use tribunal_tools::shell::{Engine, SandboxLimits, Toolchain};

/// The `[sandbox]` table as written.
#[derive(Debug, Default, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct SandboxToml {
    timeout_secs: Option<u64>,
    cpu_secs: Option<u64>,
    memory_mb: Option<u64>,
    processes: Option<u64>,
    output_kb: Option<u64>,
    #[serde(default)]
    env: IndexMap<String, String>,
    keep_copies: Option<bool>,
    write_files: Option<bool>,
    engine: Option<String>,
    image: Option<String>,
    #[serde(default)]
    toolchains: Vec<String>,
    run_tests: Option<bool>,
    test_command: Option<Vec<String>>,
}

/// How an arena's commands run: each `run_command` call's limits, the
/// variables it sees, and whether run copies are kept.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SandboxSettings {
    /// Each command's limits. Default: [`SandboxLimits::default`].
    pub limits: SandboxLimits,
    /// The variables a command sees beside `PATH`, `HOME` and `TMPDIR`,
    /// with their values as written in arena.toml (none from this
    /// process's environment). Default: none.
    pub env: Vec<(String, String)>,
    /// Whether each run's copy is kept after scoring (its path is logged).
    /// Default: no.
    pub keep_copies: bool,
    /// Whether each run also gets `write_file` and `apply_patch` over its
    /// copy. Never in a review (verdict) arena. Default: no.
    pub write_files: bool,
    /// What runs the commands: bubblewrap, or no sandbox at all
    /// ([`Engine::NoneTrustedContainer`], only when named). Default:
    /// bubblewrap.
    pub engine: Engine,
    /// The image each command's container runs (`docker`, `podman`
    /// only; required there). Default: none.
    pub image: Option<String>,
    /// This machine's toolchains outside `/usr` each command sees,
    /// read-only ([`tribunal_tools::shell::CommandSandbox::with_toolchains`]).
    /// Default: none.
    pub toolchains: Vec<Toolchain>,
    /// Whether the agent's one command tool is `run_tests` (the item's
    /// `test_command`, else [`SandboxSettings::test_command`], and no other
    /// command) instead of `run_command`. Default: no.
    pub run_tests: bool,
    /// `run_tests`' command for the items without their own (a program
    /// and its arguments). Default: none.
    pub test_command: Vec<String>,
}

impl Default for SandboxSettings {
    fn default() -> Self {
        SandboxSettings {
            limits: SandboxLimits::default(),
            env: Vec::new(),
            keep_copies: false,
            write_files: false,
            engine: Engine::Bubblewrap,
            image: None,
            toolchains: Vec::new(),
            run_tests: false,
            test_command: Vec::new(),
        }
    }
}

/// Reads `[sandbox]`: the settings when `shell` is offered, or when a
/// `review` (verdict) arena has the table (its gold tests run under it);
/// a table in another arena without `shell`, a zero limit, a variable
/// name that is not one, `write_files` in a review arena, an unknown
/// toolchain or one a container engine cannot show is a problem.
pub(super) fn read(
    table: Option<&SandboxToml>,
    (shell, review): (bool, bool),
    problems: &mut Vec<Problem>,
) -> Option<SandboxSettings> {
    let gold_tests_only = review && table.is_some();
    if !(shell || gold_tests_only) {
        if table.is_some() {
            problems.push(Problem::file(
                ARENA_TOML,
                "[sandbox] has no effect: `tools` does not name `shell` (and no [verdict] runs gold tests)",
            ));
        }
        return None;
    }
    let t = table.cloned().unwrap_or_default();
    let d = SandboxLimits::default();
    let mut positive = |name: &str, value: Option<u64>, default: u64| match value {
        Some(0) => {
            problems.push(Problem::file(
                ARENA_TOML,
                format!("sandbox.{name} must be at least 1"),
            ));
            default
        }
        Some(v) => v,
        None => default,
    };
    let limits = SandboxLimits {
        wall_time: Duration::from_secs(positive(
            "timeout_secs",
            t.timeout_secs,
            d.wall_time.as_secs(),
        )),
        cpu_secs: positive("cpu_secs", t.cpu_secs, d.cpu_secs),
        memory_bytes: positive("memory_mb", t.memory_mb, d.memory_bytes >> 20)
            .saturating_mul(1 << 20),
        processes: positive("processes", t.processes, d.processes),
        output_bytes: positive("output_kb", t.output_kb, d.output_bytes >> 10)
            .saturating_mul(1 << 10),
        ..d
    };
    for name in t.env.keys() {
        let valid = name.chars().next().is_some_and(|c| !c.is_ascii_digit())
            && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_');
        if !valid {
            problems.push(Problem::file(
                ARENA_TOML,
                format!("sandbox.env: `{name}` is not a variable name (letters, digits, `_`)"),
            ));
        }
    }
    let write_files = t.write_files.unwrap_or(false);
    if write_files && review {
        problems.push(Problem::file(
            ARENA_TOML,
            "sandbox.write_files: a review ([verdict]) arena judges the change as it is; \
             its agent may run commands but not edit the files",
        ));
    }
    let engine = match t.engine.as_deref() {
        None => Engine::Bubblewrap,
        Some(name) => Engine::parse(name).unwrap_or_else(|| {
            problems.push(Problem::file(
                ARENA_TOML,
                format!(
                    "sandbox.engine: {}",
                    super::near_miss::unknown("engine", name, &Engine::ALL.map(Engine::as_str))
                ),
            ));
            Engine::Bubblewrap
        }),
    };
    let image = t.image.filter(|i| !i.trim().is_empty());
    match (engine.is_container(), &image) {
        (true, None) => problems.push(Problem::file(
            ARENA_TOML,
            format!(
                "sandbox.image: engine \"{}\" runs each command in a container of an image: name it (image = \"python:3.12-slim\")",
                engine.as_str()
            ),
        )),
        (false, Some(_)) => problems.push(Problem::file(
            ARENA_TOML,
            format!(
                "sandbox.image: has no effect: engine \"{}\" runs no container (engine = \"docker\" or \"podman\")",
                engine.as_str()
            ),
        )),
        _ => {}
    }
    let mut toolchains = Vec::new();
    for name in &t.toolchains {
        match Toolchain::parse(name) {
            Some(t) if !toolchains.contains(&t) => toolchains.push(t),
            Some(_) => {}
            None => problems.push(Problem::file(
                ARENA_TOML,
                format!(
                    "sandbox.toolchains: {}",
                    super::near_miss::unknown(
                        "toolchain",
                        name,
                        &Toolchain::ALL.map(Toolchain::as_str)
                    )
                ),
            )),
        }
    }
    if engine.is_container() && !toolchains.is_empty() {
        problems.push(Problem::file(
            ARENA_TOML,
            format!(
                "sandbox.toolchains: engine \"{}\" runs the image's toolchains, not this machine's: drop `toolchains` or pick an image that has them",
                engine.as_str()
            ),
        ));
    }
    let run_tests = t.run_tests.unwrap_or(false);
    let test_command = t.test_command.unwrap_or_default();
    if test_command.first().is_some_and(|p| p.trim().is_empty()) {
        problems.push(Problem::file(
            ARENA_TOML,
            "sandbox.test_command: names no program",
        ));
    }
    if !test_command.is_empty() && !run_tests {
        problems.push(Problem::file(
            ARENA_TOML,
            "sandbox.test_command: has no effect without run_tests = true",
        ));
    }
    if run_tests && !shell {
        problems.push(Problem::file(
            ARENA_TOML,
            "sandbox.run_tests: the agent's command tool needs tools = [\"shell\"]",
        ));
    }
    Some(SandboxSettings {
        engine,
        image,
        toolchains,
        run_tests,
        test_command,
        limits,
        env: t.env.into_iter().collect(),
        keep_copies: t.keep_copies.unwrap_or(false),
        write_files: write_files && !review,
    })
}
