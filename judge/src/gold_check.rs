//! The gold tests run ([`check_gold_tests`], `tribunal lint --run`): for
//! each review item with a `gold_test` ([`crate::arena::gold_test`]), its
//! command runs in the sandbox on two copies of the item's folder, the
//! change as it is and its parent (`CHANGE.diff` undone), each with the
//! arena's `gold_tests/<id>/` laid over it; an item whose gold verdict the
//! two results contradict is listed with how each side ended. They run
//! in the sandbox of the arena's `[sandbox]` ([`gold_sandbox`]): its
//! engine, toolchains, limits and variables.

use crate::arena::Arena;
use crate::arena::diff::undo;
use crate::arena::gold_test::{CHANGE_DIFF, GOLD_TESTS_DIR, GoldTest, TestEnd};
use crate::arena::item::Item;
use crate::green_red::Verdict;
use crate::score::detail;
use std::path::Path;
use tribunal_tools::shell::{CommandSandbox, SandboxLimits, WorkingFolder};
use tribunal_tools::{ErrorCode, SandboxError};

/// One item's gold test, run on both sides.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GoldCheck {
    /// The item's id.
    pub id: String,
    /// Its 1-based line in `dataset.jsonl`.
    pub line: usize,
    /// Its gold verdict.
    pub gold: Verdict,
    /// How the test ended on the change, and its detail (exit code or
    /// limit, and the end of its output).
    pub change: (TestEnd, String),
    /// How it ended on the parent; `Err`: the parent could not be made
    /// (`CHANGE.diff` does not undo).
    pub parent: Result<(TestEnd, String), String>,
    /// Why the results contradict the gold verdict; `None`: they agree.
    pub contradiction: Option<String>,
}

/// The sandbox `arena`'s gold tests run in: its `[sandbox]` engine
/// (bubblewrap when it has none) showing its `toolchains`; refused
/// ([`ErrorCode::SandboxUnavailable`]) when it cannot be made, never
/// another engine instead.
pub async fn gold_sandbox(arena: &Arena) -> Result<CommandSandbox, SandboxError> {
    crate::run::command_sandbox(&arena.gold_sandbox).await
}

/// Runs the gold test of every item of `arena` that has one, in dataset
/// order, each side in its own copy (under the system's temporary folder)
/// in `sandbox` ([`gold_sandbox`]), under the arena's `[sandbox]` limits
/// and variables (the defaults when it has none). `Err` only when the
/// sandbox or a copy failed: no result can be trusted then.
pub async fn check_gold_tests(
    arena: &Arena,
    sandbox: &CommandSandbox,
) -> Result<Vec<GoldCheck>, SandboxError> {
    let settings = &arena.gold_sandbox;
    let mut checks = Vec::new();
    for item in &arena.items {
        let (Some(test), Some(gold)) = (&item.gold_test, item.gold_verdict()) else {
            continue;
        };
        let side = Side {
            arena,
            item,
            test,
            sandbox,
            env: &settings.env,
            limits: settings.limits,
        };
        let change = side.run(false).await?;
        let parent = side.run(true).await?;
        let change = change.map_err(|e| {
            SandboxError::new(ErrorCode::WorkingCopyFailed, format!("{}: {e}", item.id))
        })?;
        let contradiction = contradiction(gold, test.parent, &change, &parent);
        checks.push(GoldCheck {
            id: item.id.clone(),
            line: item.line,
            gold,
            change,
            parent,
            contradiction,
        });
    }
    Ok(checks)
}

/// What one side's run needs.
struct Side<'a> {
    arena: &'a Arena,
    item: &'a Item,
    test: &'a GoldTest,
    sandbox: &'a CommandSandbox,
    env: &'a [(String, String)],
    limits: SandboxLimits,
}

impl Side<'_> {
    /// The test run on a copy of the change, or of its `parent`: how it
    /// ended and its detail; the inner `Err` when the parent cannot be
    /// made (the diff does not undo).
    async fn run(&self, parent: bool) -> Result<Result<(TestEnd, String), String>, SandboxError> {
        let dir = self.arena.world_dir(self.item);
        let copy_failed = |e: std::io::Error| {
            SandboxError::new(
                ErrorCode::WorkingCopyFailed,
                format!("cannot copy {}: {e}", dir.display()),
            )
        };
        let label = if parent { "gold-parent" } else { "gold-change" };
        let copy =
            WorkingFolder::copy_of(&dir, &std::env::temp_dir(), label).map_err(copy_failed)?;
        if parent && let Err(e) = undo_change(copy.path()) {
            return Ok(Err(e));
        }
        if parent {
            for path in &self.test.from_change {
                let to = copy.path().join(path);
                // Replaced, never written through a link the parent holds.
                if std::fs::symlink_metadata(&to).is_ok_and(|m| !m.is_dir()) {
                    std::fs::remove_file(&to).map_err(copy_failed)?;
                }
                std::fs::copy(dir.join(path), &to).map_err(copy_failed)?;
            }
        }
        let files = self.arena.dir.join(GOLD_TESTS_DIR).join(&self.item.id);
        if files.is_dir() {
            copy.add_copy_of(&files).map_err(copy_failed)?;
        }
        self.sandbox.prepare(copy.path()).map_err(copy_failed)?;
        let ran = self
            .sandbox
            .run(copy.path(), &self.test.command, self.env, &self.limits)
            .await?;
        let end = if ran.exit_code == Some(0) && ran.limit.is_none() {
            TestEnd::Passes
        } else {
            TestEnd::Fails
        };
        Ok(Ok((end, detail(&ran))))
    }
}

/// Undoes the `CHANGE.diff` in `dir` there: the parent.
fn undo_change(dir: &Path) -> Result<(), String> {
    let diff = std::fs::read_to_string(dir.join(CHANGE_DIFF))
        .map_err(|e| format!("cannot read {CHANGE_DIFF}: {e}"))?;
    undo(&diff, dir).map_err(|e| format!("{CHANGE_DIFF} does not undo: {e}"))
}

/// Why the test's ends contradict `gold` and the parent's expected end,
/// or `None`.
fn contradiction(
    gold: Verdict,
    expected_parent: TestEnd,
    change: &(TestEnd, String),
    parent: &Result<(TestEnd, String), String>,
) -> Option<String> {
    let mut found = Vec::new();
    let wanted = TestEnd::on_change(gold);
    if change.0 != wanted {
        found.push(format!(
            "gold {gold} but the test {} on the change ({})",
            change.0.as_str(),
            change.1
        ));
    }
    match parent {
        Err(e) => found.push(format!("the parent cannot be made: {e}")),
        Ok((end, detail)) if *end != expected_parent => found.push(format!(
            "the test {} on the parent, where the item says it {} ({detail})",
            end.as_str(),
            expected_parent.as_str()
        )),
        Ok(_) => {}
    }
    (!found.is_empty()).then(|| found.join("; "))
}
