//! Integration tests of the `tribunal` package: the facade and the binary.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    missing_docs,
    unreachable_pub
)]

/// Points insta at the workspace's `snapshots/cli/` folder for the rest of
/// the enclosing scope.
macro_rules! bind_snapshots {
    () => {
        let mut settings = insta::Settings::clone_current();
        settings.set_snapshot_path(concat!(env!("CARGO_MANIFEST_DIR"), "/snapshots/cli"));
        settings.set_prepend_module_to_snapshot(false);
        let _snapshot_guard = settings.bind_to_scope();
    };
}

/// The path of the built `tribunal` binary.
pub(crate) fn tribunal_bin() -> std::path::PathBuf {
    std::path::PathBuf::from(env!("CARGO_BIN_EXE_tribunal"))
}

/// The shard variables no test process inherits: a CI job's own shard
/// would change which items a run runs.
pub(crate) const SHARD_VARS: [&str; 3] =
    ["TRIBUNAL_SHARD", "TRIBUNAL_SHARDS", "JOB_COMPLETION_INDEX"];

/// The one launcher: `tribunal ARGS` in `cwd`, without the shard
/// variables of the test's environment.
pub(crate) fn tribunal_command<S: AsRef<std::ffi::OsStr>>(
    args: &[S],
    cwd: &std::path::Path,
) -> std::process::Command {
    let mut command = std::process::Command::new(tribunal_bin());
    command.args(args).current_dir(cwd);
    for name in SHARD_VARS {
        command.env_remove(name);
    }
    command
}

/// Runs `tribunal ARGS` in `cwd` to its end.
pub(crate) fn tribunal<S: AsRef<std::ffi::OsStr>>(
    args: &[S],
    cwd: &std::path::Path,
) -> std::process::Output {
    tribunal_command(args, cwd).output().unwrap()
}

/// Runs `tribunal ARGS` in the package's folder (arguments name their
/// files absolutely).
pub(crate) fn tribunal_here<S: AsRef<std::ffi::OsStr>>(args: &[S]) -> std::process::Output {
    tribunal(args, std::path::Path::new(env!("CARGO_MANIFEST_DIR")))
}
/// `value` with every timing (a `*_ms` field) replaced by 0.
pub(crate) fn without_timings(mut value: serde_json::Value) -> serde_json::Value {
    fn walk(v: &mut serde_json::Value) {
        match v {
            serde_json::Value::Object(map) => {
                for (key, v) in map.iter_mut() {
                    if key.ends_with("_ms") {
                        *v = serde_json::Value::from(0);
                    } else {
                        walk(v);
                    }
                }
            }
            serde_json::Value::Array(items) => items.iter_mut().for_each(walk),
            _ => {}
        }
    }
    walk(&mut value);
    value
}

/// Every line of a JSON Lines file (a results file, a cassette) as JSON.
pub(crate) fn json_lines(path: &std::path::Path) -> Vec<serde_json::Value> {
    std::fs::read_to_string(path)
        .unwrap()
        .lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

mod action_gate;
mod batch_fake;
mod cli_batch;
mod cli_compare_inputs;
mod cli_init;
mod cli_judge;
mod cli_mcp;
mod cli_replay;
mod cli_report;
mod cli_run;
mod cli_schema;
mod cli_search;
mod cli_shards;
mod docs;
mod example;
mod live_arena;
mod module_graph;
mod prompt_cache;
mod secrets;
mod stand_in;
mod tool_framing;
mod wrong_answers;
