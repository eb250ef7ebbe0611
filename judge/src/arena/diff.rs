//! What a diff changes, as far as the file tools can see: the first file
//! it leaves in place, shown to a reviewer as `read_file`'s example
//! (`[verdict] example_path_from`, `tribunal review`); and the change
//! undone (`undo`): a review item's parent, for its gold test.

use std::path::{Component, Path, PathBuf};
use tribunal_tools::FileTools;

/// The first file `diff` leaves in place (`+++ b/PATH`, not a deletion)
/// that `files` can read: the example path a reviewer is shown
/// ([`FileTools::with_example_path`]), so the call it copies reads a file
/// the change touches.
pub fn first_changed_file(diff: &str, files: &FileTools) -> Option<String> {
    diff.lines()
        .filter_map(|line| line.strip_prefix("+++ "))
        .map(|path| path.strip_prefix("b/").unwrap_or(path).trim_end())
        .filter(|path| *path != "/dev/null")
        .find(|path| files.resolve(path).is_ok_and(|p| p.is_file()))
        .map(str::to_string)
}

/// One file of a diff: its path before and after (`None`: `/dev/null`)
/// and its hunks.
struct FileDiff {
    old: Option<String>,
    new: Option<String>,
    hunks: Vec<Hunk>,
}

/// One hunk: the line its new side starts at (1-based, as its header
/// says) and its lines on each side.
struct Hunk {
    new_start: usize,
    old: Vec<String>,
    new: Vec<String>,
}

/// Undoes `diff`, a unified diff from a parent to the files in `dir`
/// (`-p1` paths, `a/…` and `b/…`): each hunk's new lines are replaced by
/// its old ones, a file the diff creates is removed and one it deletes is
/// written back. The hunk headers' line counts are not trusted (a diff
/// written by hand often gets them wrong, and GNU patch then refuses it):
/// each hunk's new lines are looked for in the file, nearest the line its
/// header names. `Err`: a path leaving `dir`, a file missing, or a hunk
/// whose new lines are not in the file; `dir` may then be half undone.
pub(crate) fn undo(diff: &str, dir: &Path) -> Result<(), String> {
    for file in parse(diff)? {
        match (&file.old, &file.new) {
            (_, Some(new)) => {
                let path = inside(dir, new)?;
                let text = std::fs::read_to_string(&path).map_err(|e| format!("{new}: {e}"))?;
                let undone = undo_hunks(&text, &file.hunks).map_err(|e| format!("{new}: {e}"))?;
                if file.old.is_none() {
                    std::fs::remove_file(&path).map_err(|e| format!("{new}: {e}"))?;
                } else {
                    std::fs::write(&path, undone).map_err(|e| format!("{new}: {e}"))?;
                }
            }
            (Some(old), None) => {
                let text: String = file
                    .hunks
                    .iter()
                    .flat_map(|h| &h.old)
                    .map(|l| format!("{l}\n"))
                    .collect();
                let path = inside(dir, old)?;
                if let Some(parent) = path.parent() {
                    std::fs::create_dir_all(parent).map_err(|e| format!("{old}: {e}"))?;
                }
                std::fs::write(&path, text).map_err(|e| format!("{old}: {e}"))?;
            }
            (None, None) => return Err("a file diff from /dev/null to /dev/null".to_string()),
        }
    }
    Ok(())
}

/// `dir` joined with the diff path `path`, refused when it is absolute or
/// has a `..`.
fn inside(dir: &Path, path: &str) -> Result<PathBuf, String> {
    let relative = Path::new(path);
    if path.is_empty()
        || !relative
            .components()
            .all(|c| matches!(c, Component::Normal(_)))
    {
        return Err(format!("{path:?}: a diff path must stay inside the folder"));
    }
    Ok(dir.join(relative))
}

/// `text` with each of `hunks` undone, the last first.
fn undo_hunks(text: &str, hunks: &[Hunk]) -> Result<String, String> {
    let mut lines: Vec<&str> = text.lines().collect();
    for (n, hunk) in hunks.iter().enumerate().rev() {
        let at = find(&lines, &hunk.new, hunk.new_start.saturating_sub(1)).ok_or_else(|| {
            format!(
                "hunk {} (line {}): its new lines are not in the file",
                n + 1,
                hunk.new_start
            )
        })?;
        lines.splice(at..at + hunk.new.len(), hunk.old.iter().map(String::as_str));
    }
    let mut out = lines.join("\n");
    if !lines.is_empty() && (text.ends_with('\n') || text.is_empty()) {
        out.push('\n');
    }
    Ok(out)
}

/// Where `wanted` starts in `lines`, the match nearest `near` first.
fn find(lines: &[&str], wanted: &[String], near: usize) -> Option<usize> {
    let last = lines.len().checked_sub(wanted.len())?;
    let matches = |at: usize| {
        lines[at..at + wanted.len()]
            .iter()
            .zip(wanted)
            .all(|(a, b)| a == b)
    };
    (0..=last)
        .filter(|&at| matches(at))
        .min_by_key(|&at| at.abs_diff(near))
}

/// The files of a unified diff, each with its hunks.
fn parse(diff: &str) -> Result<Vec<FileDiff>, String> {
    let path = |header: &str| {
        let path = header.split('\t').next().unwrap_or(header).trim_end();
        (path != "/dev/null").then(|| {
            path.strip_prefix("a/")
                .or_else(|| path.strip_prefix("b/"))
                .unwrap_or(path)
                .to_string()
        })
    };
    let mut files: Vec<FileDiff> = Vec::new();
    let mut lines = diff.lines().peekable();
    while let Some(line) = lines.next() {
        if let Some(old) = line.strip_prefix("--- ")
            && let Some(new) = lines.peek().and_then(|l| l.strip_prefix("+++ "))
        {
            files.push(FileDiff {
                old: path(old),
                new: path(new),
                hunks: Vec::new(),
            });
            lines.next();
        } else if let Some(header) = line.strip_prefix("@@ ") {
            let file = files
                .last_mut()
                .ok_or("a hunk before any `--- `/`+++ ` file header")?;
            let new_start = header
                .split_whitespace()
                .find_map(|w| w.strip_prefix('+'))
                .and_then(|r| r.split(',').next())
                .and_then(|n| n.parse().ok())
                .ok_or_else(|| format!("malformed hunk header `@@ {header}`"))?;
            let mut hunk = Hunk {
                new_start,
                old: Vec::new(),
                new: Vec::new(),
            };
            while let Some(body) = lines.peek() {
                let (sign, rest) = body.split_at(body.len().min(1));
                match sign {
                    " " | "" => {
                        hunk.old.push(rest.to_string());
                        hunk.new.push(rest.to_string());
                    }
                    "-" if !body.starts_with("--- ") => hunk.old.push(rest.to_string()),
                    "+" => hunk.new.push(rest.to_string()),
                    "\\" => {}
                    _ => break,
                }
                lines.next();
            }
            file.hunks.push(hunk);
        }
    }
    if files.is_empty() {
        return Err("no file in the diff (`--- a/…` then `+++ b/…`)".to_string());
    }
    Ok(files)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn undo_restores_the_parent_even_when_the_hunk_counts_are_wrong() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir(dir.path().join("src")).unwrap();
        std::fs::write(dir.path().join("src/a.py"), "x = 1\ny = 3\nz = 4\n").unwrap();
        std::fs::write(dir.path().join("new.txt"), "made\n").unwrap();
        // The header says 9 lines on each side; the hunk has 3 and 3.
        let diff = "--- a/src/a.py\n+++ b/src/a.py\n@@ -1,9 +1,9 @@\n x = 1\n-y = 2\n+y = 3\n z = 4\n\
                    --- /dev/null\n+++ b/new.txt\n@@ -0,0 +1 @@\n+made\n\
                    --- a/gone.txt\n+++ /dev/null\n@@ -1 +0,0 @@\n-was here\n";
        undo(diff, dir.path()).unwrap();
        assert_eq!(
            std::fs::read_to_string(dir.path().join("src/a.py")).unwrap(),
            "x = 1\ny = 2\nz = 4\n"
        );
        assert!(!dir.path().join("new.txt").exists());
        assert_eq!(
            std::fs::read_to_string(dir.path().join("gone.txt")).unwrap(),
            "was here\n"
        );
    }

    #[test]
    fn undo_refuses_a_path_out_of_the_folder_and_a_hunk_not_in_the_file() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("a.txt"), "one\n").unwrap();
        let out = "--- a/../a.txt\n+++ b/../a.txt\n@@ -1 +1 @@\n-zero\n+one\n";
        assert_eq!(
            undo(out, dir.path()).unwrap_err(),
            "\"../a.txt\": a diff path must stay inside the folder"
        );
        let absent = "--- a/a.txt\n+++ b/a.txt\n@@ -1 +1 @@\n-zero\n+two\n";
        assert_eq!(
            undo(absent, dir.path()).unwrap_err(),
            "a.txt: hunk 1 (line 1): its new lines are not in the file"
        );
        assert_eq!(
            undo("", dir.path()).unwrap_err(),
            "no file in the diff (`--- a/…` then `+++ b/…`)"
        );
    }

    #[test]
    fn the_example_path_is_the_first_file_the_diff_leaves_that_exists() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir(dir.path().join("src")).unwrap();
        std::fs::write(dir.path().join("src/kept.py"), "x\n").unwrap();
        let files = FileTools::new(dir.path()).unwrap();
        let diff = "--- a/gone.py\n+++ /dev/null\n@@ -1 +0,0 @@\n-x\n\
                    --- a/missing.py\n+++ b/missing.py\n@@ -1 +1 @@\n-x\n+y\n\
                    --- a/src/kept.py\n+++ b/src/kept.py\n@@ -1 +1 @@\n-w\n+x\n";
        assert_eq!(
            first_changed_file(diff, &files).as_deref(),
            Some("src/kept.py")
        );
        assert_eq!(first_changed_file("+++ b/../outside\n", &files), None);
    }
}
