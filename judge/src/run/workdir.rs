//! The world of one run of a `shell` arena or of a conversation item: a
//! fresh copy of the item's folder ([`Arena::world_dir`]) and the tools over
//! it — `list_files`, `read_file` and `grep`, the record tools when the
//! arena names `records`, `write_file` and `apply_patch` with `write_files`,
//! and in a `shell` arena `run_command` in the sandbox — beside the arena's
//! other tools, and the tools of the arena's `per_run` MCP servers, started
//! in the copy ([`crate::arena::mcp::run_servers`]). Runs never share a copy; the
//! state checks and the `command_passes` checks read it after the run; the
//! servers are stopped ([`RunWorld::close`]) and the copy removed when the
//! run's [`RunWorld`] is dropped, after scoring, unless `keep_copies` is set.

use crate::arena::Arena;
use crate::arena::item::Item;
use crate::arena::mcp::run_servers::WorldServers;
use crate::score::{CommandWorld, Scored, run_commands, score_run};
use std::sync::Arc;
use tribunal_runtime::{RunReport, ToolBox};
use tribunal_tools::shell::{CommandSandbox, ShellTool, WorkingFolder};
use tribunal_tools::{ErrorCode, FileTools, RecordTools, SandboxError, WriteTools};

/// A run's copy and its tools.
pub(super) struct RunWorld {
    /// The copy, removed when this is dropped (`None`: kept).
    _folder: Option<WorkingFolder>,
    /// Where the copy is (kept or not): what the state checks read.
    pub(super) path: std::path::PathBuf,
    /// The sandbox the run's commands, and its `command_passes` checks, run
    /// in (a `shell` arena's).
    sandbox: Option<Arc<CommandSandbox>>,
    /// The arena's `[sandbox]` settings.
    settings: crate::arena::SandboxSettings,
    /// The arena's tools with `run_command` and the file tools over the copy.
    pub(super) toolbox: Arc<ToolBox>,
    /// The arena's `per_run` MCP servers, running in the copy.
    servers: WorldServers,
}

/// Why a run's world could not be made: the run ends ERROR with `code`.
#[derive(Debug)]
pub(super) struct WorldFailed {
    /// `internal_error` (the copy), `tool_server_failed` (a server).
    pub(super) code: tribunal_runtime::ErrorCode,
    /// What failed: a path and an I/O error, or a server's start error.
    pub(super) message: String,
}

impl std::fmt::Display for WorldFailed {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "[{}] {}", self.code.as_str(), self.message)
    }
}

impl RunWorld {
    /// [`RunWorld::new`] for item `index`, on a blocking thread: a copy of
    /// a large folder must not hold up the runtime's other runs. Then the
    /// arena's `per_run` MCP servers start in the copy. Boxed: a run in
    /// flight holds only a pointer to it.
    pub(super) async fn make(
        arena: Arc<Arena>,
        index: usize,
        repeat: u32,
        sandbox: Option<Arc<CommandSandbox>>,
    ) -> Result<Box<RunWorld>, WorldFailed> {
        let copy_failed = |message: String| WorldFailed {
            code: tribunal_runtime::ErrorCode::InternalError,
            message,
        };
        let servers = arena.run_servers.clone();
        let copied = tokio::task::spawn_blocking(move || {
            RunWorld::new(&arena, &arena.items[index], repeat, sandbox.as_ref()).map(Box::new)
        })
        .await
        .map_err(|e| copy_failed(format!("the copying task failed: {e}")))?;
        let mut world = copied.map_err(|e| copy_failed(e.to_string()))?;
        let Some(servers) = servers else {
            return Ok(world);
        };
        let Some(toolbox) = Arc::get_mut(&mut world.toolbox) else {
            return Err(copy_failed(
                "the run's tool box is shared before its start".into(),
            ));
        };
        match servers.start_in(&world.path, toolbox).await {
            Ok(started) => {
                // A server that stops ends the run after its batch of calls.
                if !started.is_empty() {
                    toolbox.halt_when(started.watch());
                }
                world.servers = started;
                Ok(world)
            }
            Err(e) => Err(WorldFailed {
                code: tribunal_runtime::ErrorCode::ToolServerFailed,
                message: format!("[{}] {e}", e.code()),
            }),
        }
    }

    /// Stops the run's MCP servers and waits until they are gone: before
    /// the copy they work in is removed.
    pub(super) async fn close(&self) {
        self.servers.close().await;
    }

    /// Copies `item`'s folder and builds the run's tools over the copy
    /// (`run_command` with a `sandbox`).
    fn new(
        arena: &Arena,
        item: &Item,
        repeat: u32,
        sandbox: Option<&Arc<CommandSandbox>>,
    ) -> Result<RunWorld, SandboxError> {
        let copy_failed = |e: std::io::Error| {
            SandboxError::new(
                ErrorCode::WorkingCopyFailed,
                format!("cannot copy {}: {e}", arena.world_dir(item).display()),
            )
        };
        let settings = arena.sandbox.clone().unwrap_or_default();
        let label = format!("run-{}", repeat);
        let folder = WorkingFolder::copy_of(&arena.world_dir(item), &std::env::temp_dir(), &label)
            .map_err(copy_failed)?;
        if let Some(sandbox) = sandbox {
            sandbox.prepare(folder.path()).map_err(copy_failed)?;
        }
        let mut toolbox = ToolBox::new();
        toolbox.default_timeout = arena.toolbox.default_timeout;
        toolbox.max_output_bytes = arena.toolbox.max_output_bytes;
        toolbox.extend(arena.toolbox.tools().cloned());
        let files = FileTools::new(folder.path())
            .map_err(|e| SandboxError::new(ErrorCode::WorkingCopyFailed, e.to_string()))?;
        // A review's read_file example is the changed file, as without a copy.
        let files = match &arena.verdict {
            Some(verdict) => verdict.with_example(files),
            None => files,
        };
        files.add_to(&mut toolbox);
        if arena.tools.iter().any(|t| t == "records") {
            RecordTools::new(folder.path()).add_to(&mut toolbox);
        }
        if settings.write_files {
            let writes = WriteTools::new(folder.path())
                .map_err(|e| SandboxError::new(ErrorCode::WorkingCopyFailed, e.to_string()))?;
            let writes = match sandbox {
                Some(sandbox) => {
                    let owner = sandbox.clone();
                    writes.with_after_write(move |written| owner.prepare(written))
                }
                None => writes,
            };
            writes.add_to(&mut toolbox);
        }
        if let Some(sandbox) = sandbox {
            let dir = folder.path().to_path_buf();
            let (env, limits) = (settings.env.clone(), settings.limits);
            let tool = if settings.run_tests {
                let command = item
                    .test_command
                    .clone()
                    .unwrap_or_else(|| settings.test_command.clone());
                ShellTool::run_tests(sandbox.clone(), dir, env, limits, command)
            } else {
                ShellTool::new(sandbox.clone(), dir, env, limits)
            };
            toolbox.add(Arc::new(tool));
        }
        let path = folder.path().to_path_buf();
        let folder = if settings.keep_copies {
            tracing::info!(item = %item.id, repeat, copy = %folder.path().display(), "the run's copy is kept");
            folder.keep();
            None
        } else {
            Some(folder)
        };
        Ok(RunWorld {
            _folder: folder,
            path,
            sandbox: sandbox.cloned(),
            settings,
            toolbox: Arc::new(toolbox),
            servers: WorldServers::default(),
        })
    }

    /// The run scored ([`score_run`]), its `command_passes` checks run on
    /// the copy as the agent left it; an ERROR when the sandbox itself
    /// failed, or `tool_server_failed` when a server of the world stopped
    /// during the run (what it left in the copy is unknown).
    pub(super) async fn scored(&self, item: &Item, report: &mut RunReport) -> Scored {
        if let Some(server) = self.servers.lost() {
            tracing::warn!(item = %item.id, server, "a per-run MCP server stopped during the run");
            return Scored::Failed {
                code: tribunal_runtime::ErrorCode::ToolServerFailed,
                backend_failure: None,
                detail: Some(format!(
                    "the MCP server {server} of the run's world stopped during the run"
                )),
            };
        }
        let mut scored = score_run(&item.checks, report, Some(&self.path));
        let Some(sandbox) = &self.sandbox else {
            return scored;
        };
        let world = CommandWorld {
            sandbox,
            dir: &self.path,
            env: &self.settings.env,
            limits: self.settings.limits,
        };
        match run_commands(world, &item.checks, &mut scored).await {
            Ok(()) => scored,
            Err(e) => {
                tracing::warn!(item = %item.id, "a command check could not run: {e}");
                Scored::Failed {
                    code: tribunal_runtime::ErrorCode::InternalError,
                    backend_failure: None,
                    detail: Some(format!("a command check could not run: {e}")),
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A review arena with `run_command` keeps `example_path_from`: the
    /// copy's `read_file` shows the changed file as its example (seen on
    /// the real server: without it the 0.5B copied `src/lib.rs`).
    #[test]
    fn a_reviews_copy_keeps_the_changed_file_as_read_files_example() {
        let dir = tempfile::tempdir().unwrap();
        let arena_dir = dir.path();
        std::fs::create_dir_all(arena_dir.join("items/a/src")).unwrap();
        std::fs::write(arena_dir.join("items/a/src/page.py"), "x = 2\n").unwrap();
        std::fs::write(
            arena_dir.join("items/a/CHANGE.diff"),
            "--- a/src/page.py\n+++ b/src/page.py\n@@ -1 +1 @@\n-x = 1\n+x = 2\n",
        )
        .unwrap();
        std::fs::write(arena_dir.join("green.json"), "{\"type\": \"object\"}").unwrap();
        std::fs::write(
            arena_dir.join("arena.toml"),
            "tools = [\"shell\"]\nfiles_root = \"items\"\n[verdict]\npass_schema = \"green.json\"\n\
             fail_schema = \"green.json\"\nitem_root = \"items/{id}\"\nexample_path_from = \"CHANGE.diff\"\n",
        )
        .unwrap();
        std::fs::write(
            arena_dir.join("dataset.jsonl"),
            "{\"id\": \"a\", \"input\": \"x\", \"checks\": [{\"type\": \"verdict_equals\", \"verdict\": \"RED\"}]}\n",
        )
        .unwrap();
        let arena = Arena::load(arena_dir).unwrap();
        let world = RunWorld::new(&arena, &arena.items[0], 0, None).unwrap();
        let read_file = world
            .toolbox
            .tools()
            .find(|t| t.name() == "read_file")
            .unwrap();
        assert_eq!(
            read_file.parameters()["properties"]["path"]["examples"],
            serde_json::json!(["src/page.py"])
        );
    }
}
