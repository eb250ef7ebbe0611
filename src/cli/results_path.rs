//! Where results go when `--out` does not say, and where `compare ARENA`
//! finds them: one file per arena folder and configuration in `runs/`,
//! named after the arena's folder (not its `name`: a copied arena keeps
//! the name, and must not write over the original's results) and by what
//! a user changes between runs — `runs/<folder>.mock.jsonl`,
//! `runs/<arena>.<backend>-<model>.jsonl` (`.batch`, `.replay`, `.judge-…`
//! when those flags are given), as cargo keeps `target/debug` and
//! `target/release` apart. A mock run and the live run after it never
//! write over each other's results.

use std::path::{Path, PathBuf};
use std::time::SystemTime;
use tribunal::judge::Shard;

/// The folder default results files go into.
pub(crate) const RUNS: &str = "runs";

/// What a default results file is named after: the model side of the run
/// and the flags that make it another run of the same arena.
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct RunLabel<'a> {
    /// The live backend's name; `None` for the mock.
    pub(crate) backend: Option<&'a str>,
    /// `--model`.
    pub(crate) model: Option<&'a str>,
    /// `--batch`.
    pub(crate) batch: bool,
    /// `--replay`.
    pub(crate) replay: bool,
    /// `--judge-backend`'s name, when given.
    pub(crate) judge_backend: Option<&'a str>,
    /// `--judge-model`, when given.
    pub(crate) judge_model: Option<&'a str>,
}

impl RunLabel<'_> {
    /// `mock`, `openai-chat-gpt-4.1-mini`, `openai-chat-qwen.replay`,
    /// `mock.judge-openai-chat-gpt-4.1-mini`: file-name safe.
    pub(crate) fn text(&self) -> String {
        // A mock run names a model only as one of several `--model`s.
        let mut label = join_named(self.backend.unwrap_or("mock"), self.model);
        if self.batch {
            label.push_str(".batch");
        }
        if self.replay {
            label.push_str(".replay");
        }
        if self.judge_backend.is_some() || self.judge_model.is_some() {
            let judge = match self.judge_backend {
                Some(backend) => join_named(backend, self.judge_model),
                None => file_safe(self.judge_model.unwrap_or_default()),
            };
            label.push_str(".judge-");
            label.push_str(&judge);
        }
        label
    }
}

/// `backend-model`, the model made file-name safe.
fn join_named(backend: &str, model: Option<&str>) -> String {
    match model {
        Some(model) => format!("{}-{}", file_safe(backend), file_safe(model)),
        None => file_safe(backend),
    }
}

/// `s` with every character but ASCII letters, digits, `.`, `_` and `-`
/// replaced by `_` (`Qwen/Qwen2.5:0.5b` → `Qwen_Qwen2.5_0.5b`), and no
/// leading `.`.
pub(crate) fn file_safe(s: &str) -> String {
    let safe: String = s
        .chars()
        .map(|c| match c {
            'a'..='z' | 'A'..='Z' | '0'..='9' | '.' | '_' | '-' => c,
            _ => '_',
        })
        .collect();
    match safe.strip_prefix('.') {
        Some(rest) => format!("_{rest}"),
        None => safe,
    }
}

/// The default results file name: `<arena>[.calibrate].<label>.jsonl`, or
/// `<arena>[.calibrate].<label>.shard-I-of-N.jsonl` for a shard.
pub(crate) fn file_name(arena: &str, kind: &str, label: &str, shard: Option<Shard>) -> String {
    let kind = if kind.is_empty() {
        String::new()
    } else {
        format!(".{kind}")
    };
    match shard {
        Some(s) => format!(
            "{arena}{kind}.{label}.shard-{}-of-{}.jsonl",
            s.index, s.count
        ),
        None => format!("{arena}{kind}.{label}.jsonl"),
    }
}

/// The results file: `--out` as given, or `name` inside `--out` when it
/// names a folder (one that exists, or a path ending in a separator), else
/// inside `runs/`.
pub(crate) fn out_path(out: Option<&Path>, name: &str) -> PathBuf {
    match out {
        Some(path) if names_folder(path) => path.join(name),
        Some(path) => path.to_path_buf(),
        None => Path::new(RUNS).join(name),
    }
}

/// Whether `path` is an existing folder or is written as one (`results/`).
pub(crate) fn names_folder(path: &Path) -> bool {
    path.is_dir()
        || path
            .as_os_str()
            .to_string_lossy()
            .chars()
            .next_back()
            .is_some_and(std::path::is_separator)
}

/// The results files of `arena` in `runs`, oldest first: the files
/// `run` writes there by default (`<stem>.jsonl` and `<stem>.<label>.jsonl`,
/// `stem` the arena folder's [`results_stem`]), not its shards' nor `judge
/// calibrate`'s, and not a file whose first row is another arena's.
pub(crate) fn results_of(runs: &Path, stem: &str, arena: &str) -> anyhow::Result<Vec<PathBuf>> {
    let entries = match std::fs::read_dir(runs) {
        Ok(entries) => entries,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
        Err(e) => anyhow::bail!("cannot read {}: {e}", runs.display()),
    };
    let prefix = format!("{stem}.");
    let mut found: Vec<(SystemTime, PathBuf)> = Vec::new();
    for entry in entries.flatten() {
        let name = entry.file_name().to_string_lossy().into_owned();
        let ours = name.starts_with(&prefix)
            && name.ends_with(".jsonl")
            && !name.contains(".shard-")
            && !name.starts_with(&format!("{stem}.calibrate."));
        let path = entry.path();
        if !ours || !path.is_file() || first_row_of_another_arena(&path, arena) {
            continue;
        }
        let modified = entry
            .metadata()
            .and_then(|m| m.modified())
            .unwrap_or(SystemTime::UNIX_EPOCH);
        found.push((modified, path));
    }
    found.sort();
    Ok(found.into_iter().map(|(_, path)| path).collect())
}

/// Whether the first line of `path` is a row of an arena other than
/// `arena` (`runs/a.b.mock.jsonl` is arena `a.b`'s, not `a`'s). A file
/// that cannot be read this way is kept: `compare` says what is wrong.
fn first_row_of_another_arena(path: &Path, arena: &str) -> bool {
    use std::io::BufRead;
    let Ok(file) = std::fs::File::open(path) else {
        return false;
    };
    let mut line = String::new();
    if std::io::BufReader::new(file).read_line(&mut line).is_err() {
        return false;
    }
    serde_json::from_str::<serde_json::Value>(&line)
        .ok()
        .and_then(|row| row.get("arena")?.as_str().map(|a| a != arena))
        .unwrap_or(false)
}

/// What default results files of the arena in `dir` are named after: the
/// folder's own name (of its full path: `.` is the folder it stands for),
/// file-name safe; `name` when the path has no last part.
pub(crate) fn results_stem(dir: &Path, name: &str) -> String {
    let full = std::fs::canonicalize(dir).unwrap_or_else(|_| dir.to_path_buf());
    match full.file_name() {
        Some(folder) => file_safe(&folder.to_string_lossy()),
        None => file_safe(name),
    }
}

/// The `name` in `dir/arena.toml`.
pub(crate) fn arena_name(dir: &Path) -> anyhow::Result<String> {
    let path = dir.join("arena.toml");
    let text = std::fs::read_to_string(&path)
        .map_err(|e| anyhow::anyhow!("cannot read {}: {e}", path.display()))?;
    let table: toml::Table = text
        .parse()
        .map_err(|e| anyhow::anyhow!("{}: {e}", path.display()))?;
    match table.get("name").and_then(toml::Value::as_str) {
        Some(name) => Ok(name.to_string()),
        None => anyhow::bail!("{}: no `name`", path.display()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn labels_name_the_model_side_and_the_flags_that_change_the_run() {
        let mock = RunLabel::default();
        assert_eq!(mock.text(), "mock");
        let live = RunLabel {
            backend: Some("openai-chat"),
            model: Some("Qwen/Qwen2.5-0.5B:q4 k"),
            ..RunLabel::default()
        };
        assert_eq!(live.text(), "openai-chat-Qwen_Qwen2.5-0.5B_q4_k");
        let replay = RunLabel {
            replay: true,
            batch: true,
            ..live
        };
        assert_eq!(
            replay.text(),
            "openai-chat-Qwen_Qwen2.5-0.5B_q4_k.batch.replay"
        );
        let stand_in = RunLabel {
            model: Some("qwen/a"),
            ..mock
        };
        assert_eq!(stand_in.text(), "mock-qwen_a");
        let judged = RunLabel {
            judge_backend: Some("anthropic"),
            judge_model: Some("claude"),
            ..mock
        };
        assert_eq!(judged.text(), "mock.judge-anthropic-claude");
        assert_eq!(file_safe(".hidden/x"), "_hidden_x");
    }

    #[test]
    fn file_names_keep_the_kind_and_the_shard() {
        let shard = Shard { index: 2, count: 4 };
        assert_eq!(file_name("a", "", "mock", None), "a.mock.jsonl");
        assert_eq!(
            file_name("a", "calibrate", "mock", Some(shard)),
            "a.calibrate.mock.shard-2-of-4.jsonl"
        );
    }
}
