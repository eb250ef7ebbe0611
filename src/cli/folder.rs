//! Folder arguments (`run ARENA`, `lint ARENA…`, `judge run --root DIR`):
//! a missing folder is named as such, not as the first file read from it.

use std::path::Path;

/// Refuses `path` unless it is a folder; `what` names it in the message,
/// e.g. "the arena folder".
pub(crate) fn require_folder(path: &Path, what: &str) -> anyhow::Result<()> {
    match std::fs::metadata(path) {
        Ok(meta) if meta.is_dir() => Ok(()),
        Ok(_) => anyhow::bail!("{what} {} is not a folder", path.display()),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            anyhow::bail!("{what} {} does not exist", path.display())
        }
        Err(e) => anyhow::bail!("{what} {}: {e}", path.display()),
    }
}
