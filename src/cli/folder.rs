//! Folder arguments (`run ARENA`, `lint ARENA…`, `judge run --root DIR`):
//! a missing folder is named as such, not as the first file read from it;
//! and output files (`--report-file`, `--html`, `--record`), whose folder is
//! created when it is missing.

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

/// Creates the folder `file` goes into, when it names one.
pub(crate) fn create_parent(file: &Path) -> anyhow::Result<()> {
    if let Some(dir) = file.parent().filter(|d| !d.as_os_str().is_empty()) {
        std::fs::create_dir_all(dir)
            .map_err(|e| anyhow::anyhow!("creating {}: {e}", dir.display()))?;
    }
    Ok(())
}

/// Writes `contents` to `file`, creating its folder first.
pub(crate) fn write_file(file: &Path, contents: impl AsRef<[u8]>) -> anyhow::Result<()> {
    create_parent(file)?;
    std::fs::write(file, contents).map_err(|e| anyhow::anyhow!("{}: {e}", file.display()))
}
