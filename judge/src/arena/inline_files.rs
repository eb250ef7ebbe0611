//! `inline_files` of arena.toml: files of each item put into its first
//! user message, so a reviewer starts from the change (`CHANGE.diff`) and
//! spends its tool calls on the code around it.
//!
//! ```toml
//! inline_files = ["CHANGE.diff"]
//! ```
//!
//! Each name is a path relative to the item's file root (`verdict.item_root`
//! for the item, else `files_root`), resolved as the file tools resolve a
//! path (never outside that root). The files are read when the arena loads:
//! a missing, non-UTF-8 or oversized file is a lint problem at the item's
//! line, never a run that starts without it. The first message is the
//! item's `input`, then each file under its name in a fenced block
//! ([`with_files`]).

use super::DATASET;
use crate::arena::item::Item;
use crate::problem::Problem;
use std::path::Path;
use tribunal_tools::FileTools;

/// The largest file put into a first message, in bytes: a diff a reviewer
/// reads at once, not a code base (a larger one is a lint problem; the
/// model can still read it with the file tools).
pub const MAX_INLINE_BYTES: u64 = 64 * 1024;

/// The first user message: `input`, then each `(name, text)` under its
/// name in a fenced block (the fence longer than any run of backticks in
/// the text, so no file can close it early; the language tag is the file's
/// extension when it is a plain word, e.g. `diff`).
pub fn with_files(input: &str, files: &[(&str, &str)]) -> String {
    if files.is_empty() {
        return input.to_string();
    }
    let mut message = input.trim_end().to_string();
    for (name, text) in files {
        let fence = "`".repeat(longest_backtick_run(text).max(2) + 1);
        let tag = Path::new(name)
            .extension()
            .and_then(|e| e.to_str())
            .filter(|e| e.chars().all(|c| c.is_ascii_alphanumeric()))
            .unwrap_or("");
        message.push_str(&format!("\n\n{name}:\n{fence}{tag}\n{text}"));
        if !text.ends_with('\n') {
            message.push('\n');
        }
        message.push_str(&fence);
    }
    message
}

fn longest_backtick_run(text: &str) -> usize {
    let (mut longest, mut run) = (0, 0);
    for c in text.chars() {
        run = if c == '`' { run + 1 } else { 0 };
        longest = longest.max(run);
    }
    longest
}

/// Appends the files `names` of each item (under the folder `root_of`
/// gives for it, or its refusal of one outside the arena) to its input. An item whose file cannot be put in keeps
/// its input, with the problem at its dataset line.
pub(super) fn attach(
    names: &[String],
    root_of: &dyn Fn(&Item) -> Result<std::path::PathBuf, String>,
    items: &mut [Item],
    problems: &mut Vec<Problem>,
) {
    if names.is_empty() {
        return;
    }
    for item in items.iter_mut() {
        let mut problem = |message: String| {
            problems.push(Problem::at(
                DATASET,
                item.line,
                format!("inline_files: item {:?}: {message}", item.id),
            ))
        };
        let tools =
            match root_of(item).and_then(|root| FileTools::new(&root).map_err(|e| e.to_string())) {
                Ok(t) => t,
                Err(message) => {
                    problem(message);
                    continue;
                }
            };
        let mut files = Vec::with_capacity(names.len());
        for name in names {
            match read(&tools, name) {
                Ok(text) => files.push((name.as_str(), text)),
                Err(message) => problem(format!("{name}: {message}")),
            }
        }
        if files.len() == names.len() {
            let files: Vec<(&str, &str)> = files.iter().map(|(n, t)| (*n, t.as_str())).collect();
            item.input = with_files(&item.input, &files);
        }
    }
}

/// The text of `name` under the tools' root: refused outside it, over
/// [`MAX_INLINE_BYTES`], or not UTF-8.
fn read(tools: &FileTools, name: &str) -> Result<String, String> {
    let path = tools.resolve(name).map_err(|e| e.to_string())?;
    let meta = std::fs::metadata(&path).map_err(|e| e.to_string())?;
    if !meta.is_file() {
        return Err("not a file".into());
    }
    if meta.len() > MAX_INLINE_BYTES {
        return Err(format!(
            "{} bytes, over the {MAX_INLINE_BYTES} a first message takes; leave it to the file tools",
            meta.len()
        ));
    }
    let bytes = std::fs::read(&path).map_err(|e| e.to_string())?;
    String::from_utf8(bytes).map_err(|_| "not UTF-8 text".into())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_file_comes_under_its_name_in_a_fence_it_cannot_close() {
        let message = with_files(
            "Is the change correct?\n",
            &[("CHANGE.diff", "-a\n+b\n"), ("notes.md", "```rust\nx\n```")],
        );
        assert_eq!(
            message,
            "Is the change correct?\n\nCHANGE.diff:\n```diff\n-a\n+b\n```\n\nnotes.md:\n````md\n```rust\nx\n```\n````"
        );
    }

    #[test]
    fn no_files_is_the_input_unchanged() {
        assert_eq!(with_files("question  \n", &[]), "question  \n");
    }
}
