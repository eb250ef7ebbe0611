//! The change `tribunal review` reviews, from git: the repository's root
//! (where the file tools are rooted), the diff of a revision range (or of
//! the uncommitted changes), and whether the files under the root are the
//! code as the range leaves it.
//!
//! git is run as a program (`git -C ROOT …`): its own output and errors,
//! no library's idea of a repository.

use anyhow::{Context, bail};
use std::path::{Path, PathBuf};
use std::process::Command;

/// A git command in `dir`, its stdout as text; its stderr in the error.
fn git(dir: &Path, args: &[&str]) -> anyhow::Result<String> {
    let output = Command::new("git")
        .arg("-C")
        .arg(dir)
        .args(args)
        .output()
        .context("cannot run git (is it installed and on PATH?)")?;
    if !output.status.success() {
        let stderr = String::from_utf8_lossy(&output.stderr);
        bail!(
            "git {} failed: {}",
            args.join(" "),
            stderr.trim().lines().next().unwrap_or("no message")
        );
    }
    String::from_utf8(output.stdout).context("git's output is not UTF-8 text")
}

/// The top folder of the repository `dir` is in.
pub(crate) fn repository_root(dir: &Path) -> anyhow::Result<PathBuf> {
    let top = git(dir, &["rev-parse", "--show-toplevel"]).with_context(|| {
        format!(
            "{} is not in a git repository: run inside one, or pass --diff FILE",
            dir.display()
        )
    })?;
    Ok(PathBuf::from(top.trim_end_matches(['\n', '\r'])))
}

/// Refuses a range git would read as an option (a side starting with
/// `-`) or that names nothing.
fn checked(range: &str) -> anyhow::Result<&str> {
    let sides = range.split("..").map(|side| side.trim_start_matches('.'));
    if range.trim().is_empty() || sides.clone().any(|side| side.starts_with('-')) {
        bail!("{range:?} is not a revision range (e.g. HEAD~1, main..HEAD)");
    }
    Ok(range)
}

/// The diff of `range` in the repository at `root` (`None`: the
/// uncommitted changes, staged or not, against HEAD). A range with a side
/// that starts with `-` is refused (git would read it as an option).
pub(crate) fn diff(root: &Path, range: Option<&str>) -> anyhow::Result<String> {
    let range = checked(range.unwrap_or("HEAD"))?;
    git(
        root,
        &[
            "diff",
            "--no-color",
            "--no-ext-diff",
            "--no-textconv",
            range,
            "--",
        ],
    )
}

/// When `range` ends at a commit other than HEAD (`main..feature` with
/// another branch checked out), the sentence saying that the file tools
/// read the working tree, not the code the range leaves; `None` when they
/// read that code (no range, one revision diffed against the working tree,
/// or a range ending at HEAD).
pub(crate) fn elsewhere(root: &Path, range: Option<&str>) -> anyhow::Result<Option<String>> {
    let Some(range) = range else {
        return Ok(None);
    };
    let end = match range.split_once("...").or_else(|| range.split_once("..")) {
        Some((_, end)) if !end.is_empty() => end,
        // `A..` ends at HEAD; a single revision is diffed against the
        // working tree.
        _ => return Ok(None),
    };
    let commit = |rev: &str| {
        git(
            root,
            &[
                "rev-parse",
                "--verify",
                "--quiet",
                &format!("{rev}^{{commit}}"),
            ],
        )
    };
    // A revision git cannot resolve is the diff's error to report.
    let (Ok(end_commit), Ok(head)) = (commit(checked(end)?), commit("HEAD")) else {
        return Ok(None);
    };
    if end_commit.trim() == head.trim() {
        return Ok(None);
    }
    Ok(Some(format!(
        "note: {range} ends at {end}, but the file tools read the working tree (HEAD is {}); check out {end} to review the code as the change leaves it",
        head.trim().get(..12).unwrap_or(head.trim())
    )))
}
