//! Toolchains a sandbox shows beside `/usr`: [`Toolchain`], named by an
//! arena (`[sandbox] toolchains = ["rust"]`), and [`Shown`], how one is
//! shown — read-only, under [`TOOLCHAINS_DIR`], its `bin` first on `PATH`.
//!
//! Rust: the toolchain of this machine's `rustc` (`rustc --print
//! sysroot`, as the user running tribunal would get it; usually rustup's
//! under `~/.rustup`). Only its `bin`, `lib` and `libexec` folders are
//! shown, at `/opt/toolchains/rust`; nothing else of the home they live
//! in (`~/.cargo`'s credentials and registry, `~/.ssh`, rustup's other
//! toolchains and settings) and no variable (`RUSTUP_*`, `CARGO_*`). When
//! the sandbox's user is not this process's (root runs commands as
//! `nobody`) and cannot reach the folder (a home is `0700`), a mirror of
//! those three folders is made of hard links in the system's temporary
//! folder, for this sandbox only, and bound instead: the same files,
//! their own modes; removed with the sandbox.

use std::path::{Path, PathBuf};

use crate::error::{ErrorCode, SandboxError};

/// Where the toolchains are inside the sandbox: `/opt/toolchains/<name>`.
pub(crate) const TOOLCHAINS_DIR: &str = "/opt/toolchains";

/// The folders of a Rust toolchain a command needs: `rustc`, `cargo`,
/// their libraries and the standard library, the linker wrapper.
const RUST_FOLDERS: &[&str] = &["bin", "lib", "libexec"];

/// A toolchain of this machine that lives outside `/usr`, which a sandbox
/// shows only when asked. `#[non_exhaustive]`: more may come.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Toolchain {
    /// The toolchain of this machine's `rustc` (`rustc --print sysroot`).
    Rust,
}

impl Toolchain {
    /// Every toolchain.
    pub const ALL: [Toolchain; 1] = [Toolchain::Rust];

    /// Its name, e.g. `"rust"`.
    pub fn as_str(self) -> &'static str {
        match self {
            Toolchain::Rust => "rust",
        }
    }

    /// The toolchain named `name` ([`Toolchain::as_str`]).
    pub fn parse(name: &str) -> Option<Toolchain> {
        Toolchain::ALL.into_iter().find(|t| t.as_str() == name)
    }
}

/// How a sandbox shows its toolchains.
#[derive(Debug, Default)]
pub(crate) struct Shown {
    /// Host folders bound read-only, each at its folder in the sandbox.
    pub(crate) binds: Vec<(PathBuf, String)>,
    /// The sandbox's folders put before its `PATH`.
    pub(crate) path: Vec<String>,
    /// The same `bin` folders on this machine, for the engine that runs
    /// commands without a sandbox.
    pub(crate) host_path: Vec<PathBuf>,
    /// Mirrors made for the sandbox's user; removed when dropped.
    mirrors: Vec<Mirror>,
}

impl Shown {
    /// Finds each of `toolchains` on this machine; `mirror` when the
    /// sandbox's user is not this process's (it may not reach a home).
    /// Refuses ([`ErrorCode::SandboxUnavailable`]) when one is missing.
    pub(crate) fn find(toolchains: &[Toolchain], mirror: bool) -> Result<Shown, SandboxError> {
        let mut shown = Shown::default();
        for toolchain in toolchains {
            match toolchain {
                Toolchain::Rust => shown.add_rust(mirror)?,
            }
        }
        Ok(shown)
    }

    /// The names of the shown toolchains' folders in the sandbox, for a
    /// banner; empty when none.
    pub(crate) fn describe(&self) -> String {
        if self.binds.is_empty() {
            return String::new();
        }
        let mirrored = if self.mirrors.is_empty() {
            ""
        } else {
            " (hard-linked copies the sandbox's user can read)"
        };
        let names: Vec<&str> = self.path.iter().map(String::as_str).collect();
        format!(", toolchains read-only: {}{mirrored}", names.join(", "))
    }

    fn add_rust(&mut self, mirror: bool) -> Result<(), SandboxError> {
        let sysroot = rust_sysroot()?;
        let inside = format!("{TOOLCHAINS_DIR}/{}", Toolchain::Rust.as_str());
        let from = if mirror && !reachable_by_others(&sysroot) {
            let made = Mirror::of(&sysroot, RUST_FOLDERS).map_err(|e| {
                unavailable(format!(
                    "cannot link the Rust toolchain ({}) into {} for the sandbox's user: {e}; \
                     put TMPDIR on the toolchain's file system, or install it where every user \
                     can read it (RUSTUP_HOME=/opt/rustup)",
                    sysroot.display(),
                    std::env::temp_dir().display()
                ))
            })?;
            let path = made.path.clone();
            self.mirrors.push(made);
            path
        } else {
            sysroot.clone()
        };
        for folder in RUST_FOLDERS {
            if sysroot.join(folder).is_dir() {
                self.binds
                    .push((from.join(folder), format!("{inside}/{folder}")));
            }
        }
        self.path.push(format!("{inside}/bin"));
        self.host_path.push(sysroot.join("bin"));
        Ok(())
    }
}

fn unavailable(message: String) -> SandboxError {
    SandboxError::new(ErrorCode::SandboxUnavailable, message)
}

/// The sysroot of this machine's `rustc`, checked: an absolute folder
/// with `bin/rustc` and `lib/rustlib`, neither `/` nor a folder holding
/// this process's home.
fn rust_sysroot() -> Result<PathBuf, SandboxError> {
    let missing = |why: String| {
        unavailable(format!(
            "no Rust toolchain for the sandbox ([sandbox] toolchains = [\"rust\"]): {why}; \
             install Rust (rustup.rs) or drop \"rust\" from `toolchains`"
        ))
    };
    let out = std::process::Command::new("rustc")
        .args(["--print", "sysroot"])
        // rustup must not fetch a toolchain a rust-toolchain.toml names.
        .env("RUSTUP_AUTO_INSTALL", "0")
        .stdin(std::process::Stdio::null())
        .output()
        .map_err(|e| missing(format!("cannot run `rustc --print sysroot`: {e}")))?;
    if !out.status.success() {
        return Err(missing(format!(
            "`rustc --print sysroot` failed ({}): {}",
            out.status,
            String::from_utf8_lossy(&out.stderr).trim()
        )));
    }
    let printed = String::from_utf8_lossy(&out.stdout).trim().to_string();
    let sysroot = Path::new(&printed)
        .canonicalize()
        .map_err(|e| missing(format!("its sysroot {printed:?}: {e}")))?;
    let home = std::env::var_os("HOME")
        .map(PathBuf::from)
        .and_then(|h| h.canonicalize().ok());
    if sysroot.parent().is_none() || home.is_some_and(|h| h.starts_with(&sysroot)) {
        return Err(missing(format!(
            "its sysroot {} holds this user's home: it is not shown",
            sysroot.display()
        )));
    }
    if !sysroot.join("bin/rustc").is_file() || !sysroot.join("lib/rustlib").is_dir() {
        return Err(missing(format!(
            "{} has no bin/rustc and lib/rustlib",
            sysroot.display()
        )));
    }
    Ok(sysroot)
}

/// Whether every user may reach `path`: each folder from `/` to it may be
/// searched by others.
#[cfg(unix)]
fn reachable_by_others(path: &Path) -> bool {
    use std::os::unix::fs::PermissionsExt;
    path.ancestors()
        .all(|p| std::fs::metadata(p).is_ok_and(|m| m.permissions().mode() & 0o001 != 0))
}

#[cfg(not(unix))]
fn reachable_by_others(_: &Path) -> bool {
    true
}

/// A folder of hard links to some folders of a toolchain, removed when
/// dropped.
#[derive(Debug)]
struct Mirror {
    path: PathBuf,
}

impl Mirror {
    /// A new folder in the system's temporary folder (`tribunal-toolchain-
    /// <pid>-<n>`, made afresh: never one found there) with `folders` of
    /// `root` as hard links: folders made with their modes, files linked,
    /// symlinks copied as links.
    fn of(root: &Path, folders: &[&str]) -> std::io::Result<Mirror> {
        use std::sync::atomic::{AtomicU64, Ordering};
        static NEXT: AtomicU64 = AtomicU64::new(0);
        let parent = std::env::temp_dir();
        let path = loop {
            let n = NEXT.fetch_add(1, Ordering::Relaxed);
            let path = parent.join(format!("tribunal-toolchain-{}-{n}", std::process::id()));
            match std::fs::create_dir(&path) {
                Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => continue,
                Err(e) => return Err(e),
                Ok(()) => break path,
            }
        };
        let mirror = Mirror { path };
        std::fs::set_permissions(&mirror.path, std::fs::metadata(root)?.permissions())?;
        for folder in folders {
            let from = root.join(folder);
            if from.is_dir() {
                link_tree(&from, &mirror.path.join(folder))?;
            }
        }
        Ok(mirror)
    }
}

impl Drop for Mirror {
    fn drop(&mut self) {
        if let Err(e) = std::fs::remove_dir_all(&self.path) {
            tracing::warn!(folder = %self.path.display(), "cannot remove a toolchain mirror: {e}");
        }
    }
}

/// Makes `to` (new) a mirror of the folder `from`: each file a hard link.
fn link_tree(from: &Path, to: &Path) -> std::io::Result<()> {
    std::fs::create_dir(to)?;
    std::fs::set_permissions(to, std::fs::metadata(from)?.permissions())?;
    for entry in std::fs::read_dir(from)? {
        let entry = entry?;
        let kind = entry.file_type()?;
        let target = to.join(entry.file_name());
        if kind.is_symlink() {
            #[cfg(unix)]
            std::os::unix::fs::symlink(std::fs::read_link(entry.path())?, &target)?;
        } else if kind.is_dir() {
            link_tree(&entry.path(), &target)?;
        } else if kind.is_file() {
            std::fs::hard_link(entry.path(), &target)?;
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn toolchains_are_named() {
        assert_eq!(Toolchain::parse("rust"), Some(Toolchain::Rust));
        assert_eq!(Toolchain::parse("Rust"), None);
        assert_eq!(Toolchain::Rust.as_str(), "rust");
    }

    /// A mirror holds the same files (hard links, same modes) and only the
    /// folders named; it is gone once dropped, the original untouched.
    #[cfg(unix)]
    #[test]
    fn a_mirror_links_the_named_folders_and_is_removed_when_dropped() {
        use std::os::unix::fs::MetadataExt;
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        std::fs::create_dir_all(root.join("bin")).unwrap();
        std::fs::create_dir_all(root.join("share/doc")).unwrap();
        std::fs::write(root.join("bin/tool"), "#!/bin/sh\n").unwrap();
        std::fs::write(root.join("share/doc/a.html"), "doc").unwrap();
        std::os::unix::fs::symlink("tool", root.join("bin/alias")).unwrap();
        let mirror = Mirror::of(root, &["bin", "lib"]).unwrap();
        let linked = mirror.path.join("bin/tool");
        assert_eq!(
            std::fs::metadata(&linked).unwrap().ino(),
            std::fs::metadata(root.join("bin/tool")).unwrap().ino()
        );
        assert_eq!(
            std::fs::read_link(mirror.path.join("bin/alias")).unwrap(),
            Path::new("tool")
        );
        assert!(!mirror.path.join("share").exists());
        assert!(!mirror.path.join("lib").exists());
        let path = mirror.path.clone();
        drop(mirror);
        assert!(!path.exists());
        assert!(root.join("bin/tool").is_file());
    }
}
