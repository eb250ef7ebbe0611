//! The world of one run of a `shell` arena: a fresh copy of the item's
//! folder ([`Arena::world_dir`]) and the tools over it — `run_command` in
//! the sandbox, `list_files`, `read_file` and `grep`, with `write_files`
//! `write_file` and `apply_patch` — beside the arena's other tools. Runs never share a copy; it is removed when the run's
//! [`RunWorld`] is dropped, after scoring, unless `keep_copies` is set.

use crate::arena::Arena;
use crate::arena::item::Item;
use crate::score::{CommandWorld, Scored, run_commands, score_run};
use std::sync::Arc;
use tribunal_runtime::{RunReport, ToolBox};
use tribunal_tools::shell::{CommandSandbox, ShellTool, WorkingFolder};
use tribunal_tools::{ErrorCode, FileTools, SandboxError, WriteTools};

/// A run's copy and its tools.
pub(super) struct RunWorld {
    /// The copy, removed when this is dropped (`None`: kept).
    _folder: Option<WorkingFolder>,
    /// The copy's path (kept or not).
    dir: std::path::PathBuf,
    /// The sandbox the run's commands, and its `command_passes` checks, run in.
    sandbox: Arc<CommandSandbox>,
    /// The arena's `[sandbox]` settings.
    settings: crate::arena::SandboxSettings,
    /// The arena's tools with `run_command` and the file tools over the copy.
    pub(super) toolbox: Arc<ToolBox>,
}

impl RunWorld {
    /// [`RunWorld::new`] for item `index`, on a blocking thread: a copy of
    /// a large folder must not hold up the runtime's other runs. Boxed: a
    /// run in flight holds only a pointer to it.
    pub(super) async fn make(
        arena: Arc<Arena>,
        index: usize,
        repeat: u32,
        sandbox: Arc<CommandSandbox>,
    ) -> Result<Box<RunWorld>, SandboxError> {
        tokio::task::spawn_blocking(move || {
            RunWorld::new(&arena, &arena.items[index], repeat, &sandbox).map(Box::new)
        })
        .await
        .map_err(|e| {
            SandboxError::new(
                ErrorCode::WorkingCopyFailed,
                format!("the copying task failed: {e}"),
            )
        })?
    }

    /// Copies `item`'s folder and builds the run's tools over the copy.
    fn new(
        arena: &Arena,
        item: &Item,
        repeat: u32,
        sandbox: &Arc<CommandSandbox>,
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
        sandbox.prepare(folder.path()).map_err(copy_failed)?;
        let mut toolbox = ToolBox::new();
        toolbox.default_timeout = arena.toolbox.default_timeout;
        toolbox.max_output_bytes = arena.toolbox.max_output_bytes;
        toolbox.extend(arena.toolbox.tools().cloned());
        let files = FileTools::new(folder.path())
            .map_err(|e| SandboxError::new(ErrorCode::WorkingCopyFailed, e.to_string()))?;
        files.add_to(&mut toolbox);
        if settings.write_files {
            let owner = sandbox.clone();
            WriteTools::new(folder.path())
                .map_err(|e| SandboxError::new(ErrorCode::WorkingCopyFailed, e.to_string()))?
                .with_after_write(move |written| owner.prepare(written))
                .add_to(&mut toolbox);
        }
        toolbox.add(Arc::new(ShellTool::new(
            sandbox.clone(),
            folder.path().to_path_buf(),
            settings.env.clone(),
            settings.limits,
        )));
        let dir = folder.path().to_path_buf();
        let folder = if settings.keep_copies {
            tracing::info!(item = %item.id, repeat, copy = %folder.path().display(), "the run's copy is kept");
            folder.keep();
            None
        } else {
            Some(folder)
        };
        Ok(RunWorld {
            _folder: folder,
            dir,
            sandbox: sandbox.clone(),
            settings,
            toolbox: Arc::new(toolbox),
        })
    }

    /// The run scored ([`score_run`]), its `command_passes` checks run on
    /// the copy as the agent left it; an ERROR when the sandbox itself
    /// failed.
    pub(super) async fn scored(&self, item: &Item, report: &mut RunReport) -> Scored {
        let mut scored = score_run(&item.checks, report);
        let world = CommandWorld {
            sandbox: &self.sandbox,
            dir: &self.dir,
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
                }
            }
        }
    }
}
