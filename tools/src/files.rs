//! [`FileTools`]: `list_files`, `read_file` and `grep`, read-only tools
//! rooted at one directory (for code review arenas).
//!
//! - `list_files {"glob"?}`: the files under the root, one relative path per
//!   line, sorted. `.git` is skipped.
//! - `read_file {"path", "start_line"?, "end_line"?}`: the file's lines
//!   numbered from 1, as `n: text`, under a `path: lines a-b of n` header.
//! - `grep {"pattern", "glob"?}`: every matching line as `path:line: text`.
//!
//! Globs match the whole relative path and `*` crosses `/`, so `*.rs`
//! matches `src/lib.rs`. Every path goes through the sandbox (see
//! `sandbox.rs`); binary files are refused by `read_file` and skipped by
//! `grep`; every output is capped ([`DEFAULT_MAX_OUTPUT_BYTES`] by default)
//! and ends with a `[truncated: …]` line when something was left out.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use futures::future::BoxFuture;
use globset::{GlobBuilder, GlobMatcher};
use serde::Deserialize;
use serde_json::{Value, json};
use tribunal_runtime::{Tool, ToolBox, ToolError, ToolOutput};

use crate::cap::{CappedLines, DEFAULT_MAX_OUTPUT_BYTES, shorten_line};
use crate::error::{FileToolsError, PathError};
use crate::sandbox::Sandbox;

/// Longest line text `grep` shows, in characters.
const GREP_LINE_CHARS: usize = 300;
/// Longest line text `read_file` shows, in characters.
const READ_LINE_CHARS: usize = 2_000;
/// `grep` stops counting left-out matches here.
const GREP_MAX_COUNTED: usize = 10_000;
/// Compiled size limit of a `grep` regex, in bytes.
const REGEX_SIZE_LIMIT: usize = 1 << 20;

/// The file tools of one root directory.
#[derive(Debug, Clone)]
pub struct FileTools {
    inner: Arc<Inner>,
}

#[derive(Debug)]
struct Inner {
    sandbox: Sandbox,
    max_output_bytes: usize,
    /// A path worth reading first, shown as read_file's example.
    example_path: Option<String>,
}

impl FileTools {
    /// File tools rooted at `root`, which must be an existing directory.
    /// Output cap: [`DEFAULT_MAX_OUTPUT_BYTES`].
    pub fn new(root: impl AsRef<Path>) -> Result<FileTools, FileToolsError> {
        Ok(FileTools {
            inner: Arc::new(Inner {
                sandbox: Sandbox::at(root.as_ref())?,
                max_output_bytes: DEFAULT_MAX_OUTPUT_BYTES,
                example_path: None,
            }),
        })
    }

    /// Sets the cap on each output, in bytes (the truncation marker comes
    /// on top). Default: [`DEFAULT_MAX_OUTPUT_BYTES`] (16 KiB).
    pub fn with_max_output_bytes(self, max: usize) -> FileTools {
        FileTools {
            inner: Arc::new(Inner {
                sandbox: self.inner.sandbox.clone(),
                max_output_bytes: max.max(1),
                example_path: self.inner.example_path.clone(),
            }),
        }
    }

    /// Shows `path` (relative to the root, e.g. a file a change touches)
    /// as `read_file`'s example: in its `path` description and as the
    /// parameter's `examples`, so the call a model is shown first (the
    /// runtime's nudge writes one out from `examples`) reads a file that
    /// is there. Default: none (the description's example is generic).
    pub fn with_example_path(self, path: impl Into<String>) -> FileTools {
        FileTools {
            inner: Arc::new(Inner {
                sandbox: self.inner.sandbox.clone(),
                max_output_bytes: self.inner.max_output_bytes,
                example_path: Some(path.into()),
            }),
        }
    }

    /// The canonical root directory.
    pub fn root(&self) -> &Path {
        self.inner.sandbox.root()
    }

    /// Resolves a path as the tools would: a canonical path inside the root,
    /// or the refusal the model would read.
    pub fn resolve(&self, path: &str) -> Result<PathBuf, PathError> {
        self.inner.sandbox.resolve(path)
    }

    /// The three tools, sharing this root: `list_files`, `read_file`, `grep`.
    pub fn tools(&self) -> Vec<Arc<dyn Tool>> {
        vec![
            Arc::new(ListFiles(self.inner.clone())),
            Arc::new(ReadFile(self.inner.clone())),
            Arc::new(Grep(self.inner.clone())),
        ]
    }

    /// Adds the three tools to `toolbox`.
    pub fn add_to(&self, toolbox: &mut ToolBox) {
        for tool in self.tools() {
            toolbox.add(tool);
        }
    }

    /// A toolbox holding just the three tools.
    pub fn into_toolbox(self) -> ToolBox {
        let mut toolbox = ToolBox::new();
        self.add_to(&mut toolbox);
        toolbox
    }
}

/// Runs blocking file work off the async threads when inside tokio.
pub(crate) fn blocking<F>(work: F) -> BoxFuture<'static, Result<ToolOutput, ToolError>>
where
    F: FnOnce() -> Result<String, ToolError> + Send + 'static,
{
    Box::pin(async move {
        let text = match tokio::runtime::Handle::try_current() {
            Ok(handle) => handle
                .spawn_blocking(work)
                .await
                .map_err(|e| ToolError::new(format!("the file tool failed: {e}")))??,
            Err(_) => work()?,
        };
        Ok(ToolOutput::Text(text))
    })
}

pub(crate) fn parse_args<'de, T: Deserialize<'de>>(
    tool: &str,
    args: &'de Value,
) -> Result<T, ToolError> {
    T::deserialize(args).map_err(|e| ToolError::new(format!("invalid arguments for {tool}: {e}")))
}

fn compile_glob(glob: Option<&str>) -> Result<Option<GlobMatcher>, ToolError> {
    let Some(glob) = glob.filter(|g| !g.trim().is_empty()) else {
        return Ok(None);
    };
    let glob = glob.trim_start_matches("./");
    GlobBuilder::new(glob)
        .literal_separator(false)
        .build()
        .map(|g| Some(g.compile_matcher()))
        .map_err(|e| ToolError::new(format!("invalid glob `{glob}`: {e}")))
}

fn glob_schema() -> Value {
    json!({
        "type": "string",
        "description": "Only paths matching this glob, relative to the root, e.g. `src/**/*.rs` or `*.md` (`*` also crosses `/`)."
    })
}

// ---------------------------------------------------------------- list_files

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct ListArgs {
    #[serde(default)]
    glob: Option<String>,
}

struct ListFiles(Arc<Inner>);

impl Inner {
    fn list_files(&self, args: ListArgs) -> Result<String, ToolError> {
        let glob = compile_glob(args.glob.as_deref())?;
        let walk = self.sandbox.walk();
        let mut out = CappedLines::new(self.max_output_bytes);
        let mut matched = 0usize;
        for f in walk
            .files
            .iter()
            .filter(|f| glob.as_ref().is_none_or(|g| g.is_match(f.as_str())))
        {
            matched += 1;
            out.push(f);
        }
        if matched == 0 {
            return Ok(match args.glob {
                Some(g) => format!("no files match the glob `{g}`"),
                None => "no files: the root directory is empty".to_string(),
            });
        }
        let mut text = out.finish(|n| format!("{n} more files not shown; pass a narrower glob"));
        if walk.truncated {
            text.push_str("\n[truncated: the directory tree is too large to list in full]");
        }
        Ok(text)
    }
}

impl Tool for ListFiles {
    fn name(&self) -> &str {
        "list_files"
    }
    fn description(&self) -> &str {
        "List the files under the review root, one relative path per line, sorted. \
         Optionally filter with a glob."
    }
    fn parameters(&self) -> Value {
        json!({
            "type": "object",
            "properties": { "glob": glob_schema() },
            "additionalProperties": false
        })
    }
    fn call(&self, args: Value) -> BoxFuture<'_, Result<ToolOutput, ToolError>> {
        let inner = self.0.clone();
        blocking(move || inner.list_files(parse_args("list_files", &args)?))
    }
}

// ----------------------------------------------------------------- read_file

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct ReadArgs {
    path: String,
    #[serde(default)]
    start_line: Option<i64>,
    #[serde(default)]
    end_line: Option<i64>,
}

struct ReadFile(Arc<Inner>);

impl Inner {
    fn read_file(&self, args: ReadArgs) -> Result<String, ToolError> {
        let path = args.path.trim_start_matches("./");
        let resolved = self.sandbox.resolve(path)?;
        let text = self.sandbox.read_text(&resolved, path)?;
        let lines: Vec<&str> = text.lines().collect();
        let total = lines.len();
        if total == 0 {
            return Ok(format!("{path}: empty file (0 lines)"));
        }
        let start = args.start_line.unwrap_or(1);
        let end = args.end_line.unwrap_or(total as i64);
        if start < 1 || end < 1 {
            return Err(ToolError::new(
                "invalid arguments for read_file: line numbers start at 1",
            ));
        }
        if start > total as i64 {
            return Err(ToolError::new(format!(
                "start_line {start} is past the end of `{path}`, which has {total} lines"
            )));
        }
        if end < start {
            return Err(ToolError::new(format!(
                "end_line {end} is before start_line {start}"
            )));
        }
        let (start, end) = (start as usize, (end as usize).min(total));
        let width = end.to_string().len();
        let header = format!("{path}: lines {start}-{end} of {total}");
        let mut out = CappedLines::new(self.max_output_bytes);
        out.push(&header);
        // A single line never fills the whole cap, so paging always moves on.
        let line_chars = (self.max_output_bytes / 8).clamp(16, READ_LINE_CHARS);
        for (i, line) in lines[start - 1..end].iter().enumerate() {
            let line = shorten_line(line, line_chars);
            out.push(&format!("{:>width$}: {line}", start + i));
        }
        // The header is line 0 of the output, so `shown` lines reach line
        // `start + shown - 2` of the file.
        let next = start + out.shown().saturating_sub(1);
        Ok(out.finish(|n| {
            format!("{n} more lines not shown; call read_file with start_line {next} to continue")
        }))
    }
}

impl Tool for ReadFile {
    fn name(&self) -> &str {
        "read_file"
    }
    fn description(&self) -> &str {
        "Read a text file under the review root, with numbered lines (1-based). \
         Optionally only lines start_line..=end_line."
    }
    fn parameters(&self) -> Value {
        let path = match &self.0.example_path {
            Some(example) => json!({
                "type": "string",
                "description": format!("Path relative to the root, e.g. `{example}`."),
                "examples": [example],
            }),
            None => json!({
                "type": "string",
                "description": "Path relative to the root, e.g. `src/lib.rs`."
            }),
        };
        json!({
            "type": "object",
            "properties": {
                "path": path,
                "start_line": { "type": "integer", "minimum": 1, "description": "First line (default 1)." },
                "end_line": { "type": "integer", "minimum": 1, "description": "Last line, inclusive (default: the last line)." }
            },
            "required": ["path"],
            "additionalProperties": false
        })
    }
    fn call(&self, args: Value) -> BoxFuture<'_, Result<ToolOutput, ToolError>> {
        let inner = self.0.clone();
        blocking(move || inner.read_file(parse_args("read_file", &args)?))
    }
}

// ---------------------------------------------------------------------- grep

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct GrepArgs {
    pattern: String,
    #[serde(default)]
    glob: Option<String>,
}

struct Grep(Arc<Inner>);

impl Inner {
    fn grep(&self, args: GrepArgs) -> Result<String, ToolError> {
        let re = regex::RegexBuilder::new(&args.pattern)
            .size_limit(REGEX_SIZE_LIMIT)
            .build()
            .map_err(|e| ToolError::new(format!("invalid regex: {e}")))?;
        let glob = compile_glob(args.glob.as_deref())?;
        let walk = self.sandbox.walk();
        let mut out = CappedLines::new(self.max_output_bytes);
        let (mut searched, mut skipped, mut matches) = (0usize, 0usize, 0usize);
        'files: for rel in walk
            .files
            .iter()
            .filter(|f| glob.as_ref().is_none_or(|g| g.is_match(f.as_str())))
        {
            // Listed files were checked by the walk; resolving again keeps a
            // file swapped for an outside symlink since then from being read.
            let text = match self
                .sandbox
                .resolve(rel)
                .and_then(|p| self.sandbox.read_text(&p, rel))
            {
                Ok(t) => t,
                Err(_) => {
                    skipped += 1;
                    continue;
                }
            };
            searched += 1;
            for (i, line) in text.lines().enumerate() {
                if re.is_match(line) {
                    matches += 1;
                    out.push(&format!(
                        "{rel}:{}: {}",
                        i + 1,
                        shorten_line(line, GREP_LINE_CHARS)
                    ));
                    if matches >= GREP_MAX_COUNTED && out.is_truncated() {
                        break 'files;
                    }
                }
            }
        }
        if matches == 0 {
            let skipped_note = if skipped > 0 {
                format!(" ({skipped} binary or unreadable files skipped)")
            } else {
                String::new()
            };
            return Ok(format!(
                "no matches for /{}/ in {searched} files{skipped_note}",
                args.pattern
            ));
        }
        let counted_all = matches < GREP_MAX_COUNTED;
        let mut text = out.finish(|n| {
            let more = if counted_all { "" } else { "at least " };
            format!("{more}{n} more matching lines not shown; narrow the pattern or pass a glob")
        });
        if walk.truncated {
            text.push_str("\n[truncated: the directory tree is too large to search in full]");
        }
        Ok(text)
    }
}

impl Tool for Grep {
    fn name(&self) -> &str {
        "grep"
    }
    fn description(&self) -> &str {
        "Search the text files under the review root with a regular expression \
         (Rust regex syntax; `(?i)` for case-insensitive). Returns `path:line: text` \
         per matching line."
    }
    fn parameters(&self) -> Value {
        json!({
            "type": "object",
            "properties": {
                "pattern": { "type": "string", "description": "A regular expression, matched per line." },
                "glob": glob_schema()
            },
            "required": ["pattern"],
            "additionalProperties": false
        })
    }
    fn call(&self, args: Value) -> BoxFuture<'_, Result<ToolOutput, ToolError>> {
        let inner = self.0.clone();
        blocking(move || inner.grep(parse_args("grep", &args)?))
    }
}
