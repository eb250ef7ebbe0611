//! Where the workspace's snapshots live: `snapshots/<folder>/` at its root,
//! one folder per crate (`cli`, `judge`, `runtime`, `tools`).

use insta::internals::SettingsBindDropGuard;
use std::path::PathBuf;

/// The workspace's `snapshots/` folder.
pub fn snapshots_dir() -> PathBuf {
    PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/../snapshots"))
}

/// Points insta at `snapshots/<folder>/` (snapshot names without the module
/// path) until the returned guard is dropped:
/// `let _snapshots = bind_snapshots("judge");`.
#[must_use = "the binding ends when the guard is dropped"]
pub fn bind_snapshots(folder: &str) -> SettingsBindDropGuard {
    let mut settings = insta::Settings::clone_current();
    settings.set_snapshot_path(snapshots_dir().join(folder));
    settings.set_prepend_module_to_snapshot(false);
    settings.bind_to_scope()
}
