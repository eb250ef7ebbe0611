//! [`WriteTools`]: `write_file` and `apply_patch`, tools that change files
//! under one root — a run's own working copy, never a user's folder.
//!
//! - `write_file {"path", "content"}`: the file's whole new text (folders
//!   made as needed).
//! - `apply_patch {"path", "patch"}`: a unified diff of that one file
//!   (`@@ -a,b +c,d @@` hunks; `---`/`+++` lines optional), parsed and
//!   applied by the `diffy` crate.
//!
//! **Invariant:** no file outside the root is written. A path goes through
//! the read tools' lexical checks (no `..`, no absolute path, percent
//! forms too); the deepest folder of it that exists is canonicalised and
//! must lie under the root (a symlinked folder out of it is refused); the
//! new text is written to a fresh file beside the target (`create_new`,
//! which never follows a link) and renamed over it, and a rename replaces
//! a symlink rather than writing where it points. What is left: a command
//! of the same run swapping a checked folder for a link in the moment
//! between the check and the rename (docs/sandbox.md).

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

use futures::future::BoxFuture;
use serde::Deserialize;
use serde_json::{Value, json};
use tribunal_runtime::{Tool, ToolBox, ToolError, ToolOutput};

use crate::error::{ErrorCode, FileToolsError, PathError};
use crate::files::{blocking, parse_args};
use crate::sandbox::{MAX_FILE_BYTES, Sandbox, check_lexically};

/// The `write_file` tool's name.
pub const WRITE_FILE: &str = "write_file";
/// The `apply_patch` tool's name.
pub const APPLY_PATCH: &str = "apply_patch";

/// What is done to each file written, after the write (e.g. handing it to
/// the sandbox's user).
type AfterWrite = Arc<dyn Fn(&Path) -> std::io::Result<()> + Send + Sync>;

/// The two writing tools of one root.
#[derive(Clone)]
pub struct WriteTools {
    inner: Arc<Inner>,
}

impl std::fmt::Debug for WriteTools {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("WriteTools")
            .field("root", &self.inner.sandbox.root())
            .finish_non_exhaustive()
    }
}

struct Inner {
    sandbox: Sandbox,
    after_write: Option<AfterWrite>,
}

impl WriteTools {
    /// Writing tools rooted at `root`, an existing directory.
    pub fn new(root: impl AsRef<Path>) -> Result<WriteTools, FileToolsError> {
        Ok(WriteTools {
            inner: Arc::new(Inner {
                sandbox: Sandbox::at(root.as_ref())?,
                after_write: None,
            }),
        })
    }

    /// Calls `after` on each file written and each folder made (a failure
    /// is the call's error). Default: nothing.
    pub fn with_after_write(
        self,
        after: impl Fn(&Path) -> std::io::Result<()> + Send + Sync + 'static,
    ) -> WriteTools {
        WriteTools {
            inner: Arc::new(Inner {
                sandbox: self.inner.sandbox.clone(),
                after_write: Some(Arc::new(after)),
            }),
        }
    }

    /// `write_file` and `apply_patch`, sharing this root.
    pub fn tools(&self) -> Vec<Arc<dyn Tool>> {
        vec![
            Arc::new(WriteFile(self.inner.clone())),
            Arc::new(ApplyPatch(self.inner.clone())),
        ]
    }

    /// Adds the two tools to `toolbox`.
    pub fn add_to(&self, toolbox: &mut ToolBox) {
        for tool in self.tools() {
            toolbox.add(tool);
        }
    }
}

fn unwritable(shown: &str, e: impl std::fmt::Display) -> PathError {
    PathError::new(
        ErrorCode::FileUnwritable,
        format!("cannot write `{shown}`: {e}"),
    )
}

impl Inner {
    /// The place `path` (from a model) is written to: inside the root, its
    /// folder made; the target itself may not exist yet.
    fn target(&self, path: &str) -> Result<PathBuf, PathError> {
        check_lexically(path)?;
        let root = self.sandbox.root();
        let rel = Path::new(path);
        let (Some(parent), Some(name)) = (rel.parent(), rel.file_name()) else {
            return Err(PathError::new(
                ErrorCode::PathMalformed,
                format!("`{path}` names no file; give a path like `src/lib.rs`"),
            ));
        };
        // The deepest folder of the path that exists, canonical.
        let mut existing = root.join(parent);
        let mut missing = Vec::new();
        while std::fs::symlink_metadata(&existing).is_err() {
            match (existing.file_name(), existing.parent()) {
                (Some(last), Some(up)) if existing != root => {
                    missing.push(last.to_os_string());
                    existing = up.to_path_buf();
                }
                _ => break,
            }
        }
        let canonical = existing.canonicalize().map_err(|e| unwritable(path, e))?;
        if !canonical.starts_with(root) {
            return Err(PathError::new(
                ErrorCode::PathOutsideRoot,
                format!(
                    "refused `{path}`: it resolves (through a symlink) to a location outside \
                     the root directory"
                ),
            ));
        }
        if !canonical.is_dir() {
            return Err(PathError::new(
                ErrorCode::PathNotAFile,
                format!("refused `{path}`: a part of it is a file, not a folder"),
            ));
        }
        let mut folder = canonical;
        for part in missing.iter().rev() {
            folder.push(part);
            std::fs::create_dir(&folder).map_err(|e| unwritable(path, e))?;
            self.after(&folder, path)?;
        }
        let target = folder.join(name);
        if std::fs::symlink_metadata(&target).is_ok_and(|m| m.is_dir()) {
            return Err(PathError::new(
                ErrorCode::PathNotAFile,
                format!("`{path}` is a directory, not a file"),
            ));
        }
        Ok(target)
    }

    fn after(&self, written: &Path, shown: &str) -> Result<(), PathError> {
        match &self.after_write {
            Some(after) => after(written).map_err(|e| unwritable(shown, e)),
            None => Ok(()),
        }
    }

    /// Writes `text` to `target` through a fresh file renamed over it,
    /// keeping the permissions of a file it replaces.
    fn replace(&self, target: &Path, text: &str, shown: &str) -> Result<(), PathError> {
        static NEXT: AtomicU64 = AtomicU64::new(0);
        if text.len() as u64 > MAX_FILE_BYTES {
            return Err(PathError::new(
                ErrorCode::FileTooLarge,
                format!("refused `{shown}`: more than the {MAX_FILE_BYTES} bytes a file may have"),
            ));
        }
        let folder = target.parent().unwrap_or(target);
        let n = NEXT.fetch_add(1, Ordering::Relaxed);
        let fresh = folder.join(format!(".tribunal-write-{}-{n}", std::process::id()));
        let written = std::fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .open(&fresh)
            .and_then(|mut file| std::io::Write::write_all(&mut file, text.as_bytes()))
            .and_then(|()| match std::fs::symlink_metadata(target) {
                Ok(old) if old.is_file() => std::fs::set_permissions(&fresh, old.permissions()),
                _ => Ok(()),
            })
            .map_err(|e| unwritable(shown, e))
            .and_then(|()| self.after(&fresh, shown))
            .and_then(|()| std::fs::rename(&fresh, target).map_err(|e| unwritable(shown, e)));
        if written.is_err() {
            let _ = std::fs::remove_file(&fresh);
        }
        written
    }

    fn write_file(&self, args: WriteArgs) -> Result<String, ToolError> {
        let path = args.path.trim_start_matches("./");
        let target = self.target(path)?;
        self.replace(&target, &args.content, path)?;
        Ok(format!(
            "wrote `{path}`: {} lines, {} bytes",
            args.content.lines().count(),
            args.content.len()
        ))
    }

    fn apply_patch(&self, args: PatchArgs) -> Result<String, ToolError> {
        let path = args.path.trim_start_matches("./");
        let resolved = self.sandbox.resolve(path)?;
        let text = self.sandbox.read_text(&resolved, path)?;
        let patch = diffy::Patch::from_str(&args.patch).map_err(|e| {
            PathError::new(
                ErrorCode::PatchInvalid,
                format!(
                    "the patch is not a unified diff ({e}); give hunks like \
                     `@@ -3,2 +3,2 @@` with ` `, `-` and `+` lines, or use write_file"
                ),
            )
        })?;
        if patch.hunks().is_empty() {
            return Err(PathError::new(
                ErrorCode::PatchInvalid,
                "the patch has no hunks (`@@ -a,b +c,d @@` lines); nothing was changed",
            )
            .into());
        }
        let patched = diffy::apply(&text, &patch).map_err(|e| {
            PathError::new(
                ErrorCode::PatchDoesNotApply,
                format!(
                    "{e} of the patch to `{path}`: its context and `-` lines are not in the \
                     file; read_file the lines again, or use write_file; nothing was changed"
                ),
            )
        })?;
        let target = self.target(path)?;
        self.replace(&target, &patched, path)?;
        Ok(format!(
            "patched `{path}`: {} hunk(s) applied, now {} lines",
            patch.hunks().len(),
            patched.lines().count()
        ))
    }
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct WriteArgs {
    path: String,
    content: String,
}

struct WriteFile(Arc<Inner>);

impl Tool for WriteFile {
    fn name(&self) -> &str {
        WRITE_FILE
    }
    fn description(&self) -> &str {
        "Write a text file in your copy of the project: `content` becomes the file's whole \
         text (it is created, with its folders, when missing)."
    }
    fn parameters(&self) -> Value {
        json!({
            "type": "object",
            "properties": {
                "path": { "type": "string", "description": "Path relative to the root, e.g. `src/lib.rs`." },
                "content": { "type": "string", "description": "The file's whole new text." }
            },
            "required": ["path", "content"],
            "additionalProperties": false
        })
    }
    fn call(&self, args: Value) -> BoxFuture<'_, Result<ToolOutput, ToolError>> {
        let inner = self.0.clone();
        blocking(move || inner.write_file(parse_args(WRITE_FILE, &args)?))
    }
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct PatchArgs {
    path: String,
    patch: String,
}

struct ApplyPatch(Arc<Inner>);

impl Tool for ApplyPatch {
    fn name(&self) -> &str {
        APPLY_PATCH
    }
    fn description(&self) -> &str {
        "Change one existing text file in your copy of the project with a unified diff: \
         hunks `@@ -start,count +start,count @@` of ` ` (context), `-` (removed) and `+` \
         (added) lines. The file is left as it was when a hunk does not match."
    }
    fn parameters(&self) -> Value {
        json!({
            "type": "object",
            "properties": {
                "path": { "type": "string", "description": "The file to change, relative to the root." },
                "patch": { "type": "string", "description": "A unified diff of that file." }
            },
            "required": ["path", "patch"],
            "additionalProperties": false
        })
    }
    fn call(&self, args: Value) -> BoxFuture<'_, Result<ToolOutput, ToolError>> {
        let inner = self.0.clone();
        blocking(move || inner.apply_patch(parse_args(APPLY_PATCH, &args)?))
    }
}
