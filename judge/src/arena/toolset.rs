//! The tools an arena can offer, built once per arena from its files:
//! `search` over the corpus, and the sandboxed file tools — what `tools`,
//! `corpus` and `files_root` in arena.toml ask for. `shell` (the
//! `run_command` tool, with the file tools in each run's own copy) and
//! `records` (the record tools, in each run's own copy) are built per run
//! instead (`crate::run::workdir`); here they are only named.

use super::{ARENA_TOML, CORPUS, inside, rel};
use crate::problem::Problem;
use sha2::{Digest, Sha256};
use std::path::Path;
use std::sync::Arc;
use tribunal_runtime::{Tool, ToolBox};
use tribunal_tools::{Corpus, CorpusError, FileTools, MAX_K, SearchTool};

/// The `search` tool over the corpus at `path` (every call returning
/// `fixed_k` passages when given), and a digest of the corpus file (part of
/// the config hash). A load problem carries the corpus line; `file` is how
/// problems name the corpus.
pub(crate) fn search_tool(
    path: &Path,
    file: &str,
    fixed_k: Option<usize>,
) -> Result<(Arc<dyn Tool>, String), Problem> {
    let bytes = std::fs::read(path)
        .map_err(|e| Problem::file(file, format!("cannot read the corpus: {e}")))?;
    let corpus = Corpus::load(path).map_err(|e| match e {
        CorpusError::Syntax {
            line,
            column,
            message,
            ..
        }
        | CorpusError::Invalid {
            line,
            column,
            message,
            ..
        } => Problem::at(file, line, format!("column {column}: {message}")),
        other => Problem::file(file, other.to_string()),
    })?;
    let digest = hex(&Sha256::digest(&bytes));
    let corpus = Arc::new(corpus);
    let tool = match fixed_k {
        Some(k) => SearchTool::with_fixed_k(corpus, k),
        None => SearchTool::new(corpus),
    };
    Ok((Arc::new(tool), digest))
}

/// The file tools rooted at `root`.
pub(crate) fn file_tools(root: &Path) -> Result<Vec<Arc<dyn Tool>>, String> {
    FileTools::new(root)
        .map(|f| f.tools())
        .map_err(|e| format!("files_root: {e}"))
}

/// Lowercase hex of `bytes`.
pub(crate) fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// The arena's own tools, as `tools` (with `corpus` and `files_root`) asks.
pub(super) struct Tools {
    /// The names asked for (default: `search` when the corpus exists).
    pub(super) names: Vec<String>,
    /// The tools built.
    pub(super) toolbox: ToolBox,
    /// The corpus digest (part of the config hash); empty without `search`.
    pub(super) digest: String,
    /// Whether `shell` is named: each run gets `run_command` and the file
    /// tools over its own copy.
    pub(super) shell: bool,
    /// Whether `records` is named: each run gets the record tools over its
    /// own copy.
    pub(super) records: bool,
}

/// The tool names each run of an arena naming `records` gets over its copy.
pub(crate) const RECORD_TOOLS: &[&str] = &["find_records", "get_record", "update_record"];

/// The tool names each run of a `shell` arena gets over its copy, beside
/// its command tool (`run_command`, or `run_tests`).
const SHELL_TOOLS: &[&str] = &["list_files", "read_file", "grep"];

/// The tool names a `shell` arena's runs add with `write_files`.
const WRITE_TOOLS: &[&str] = &[tribunal_tools::WRITE_FILE, tribunal_tools::APPLY_PATCH];

impl Tools {
    /// Every tool name the runs offer: the toolbox's, the copy's (with the
    /// writing tools when `writes`), then the MCP servers' (offered once
    /// their servers start; their names are known from their `tools`
    /// lists already). A `shell` arena's command tool is `run_tests` when
    /// `run_tests`, else `run_command`.
    pub(super) fn offered(
        &self,
        mcp: &[crate::arena::mcp::McpServerSpec],
        writes: bool,
        run_tests: bool,
    ) -> Vec<String> {
        let command = if run_tests {
            tribunal_tools::shell::RUN_TESTS
        } else {
            tribunal_tools::shell::RUN_COMMAND
        };
        self.toolbox
            .specs()
            .into_iter()
            .map(|s| s.name)
            .chain(
                [command]
                    .iter()
                    .chain(SHELL_TOOLS)
                    .filter(|_| self.shell)
                    .chain(WRITE_TOOLS.iter().filter(|_| self.shell && writes))
                    .map(|t| (*t).to_string()),
            )
            .chain(
                RECORD_TOOLS
                    .iter()
                    .filter(|_| self.records)
                    .map(|t| (*t).to_string()),
            )
            .chain(mcp.iter().flat_map(|m| m.tools.iter().cloned()))
            .collect()
    }
}

/// Reads `tools`, `corpus`, `search_k` and `files_root` of the arena in
/// `dir`: the tools built, each problem in `problems`.
pub(super) fn read(
    dir: &Path,
    tools: Option<&[String]>,
    corpus: Option<&str>,
    search_k: Option<i64>,
    files_root: Option<&str>,
    problems: &mut Vec<Problem>,
) -> Tools {
    let corpus_path = dir.join(corpus.unwrap_or(CORPUS));
    let names = tools.map(<[String]>::to_vec).unwrap_or_else(|| {
        if corpus_path.is_file() {
            vec!["search".to_string()]
        } else {
            Vec::new()
        }
    });
    let mut toolbox = ToolBox::new();
    let mut digest = String::new();
    let shell = names.iter().any(|n| n == "shell");
    let records = names.iter().any(|n| n == "records");
    let fixed_k = search_k.and_then(|k| {
        let problem = if !names.iter().any(|n| n == "search") {
            "search_k: the arena offers no `search` tool (add it to `tools`, or drop `search_k`)"
                .to_string()
        } else if !(1..=MAX_K as i64).contains(&k) {
            format!("search_k: must be between 1 and {MAX_K}, found {k}")
        } else {
            return usize::try_from(k).ok();
        };
        problems.push(Problem::file(ARENA_TOML, problem));
        None
    });
    for tool in &names {
        match tool.as_str() {
            "search" => match search_tool(&corpus_path, &rel(dir, &corpus_path), fixed_k) {
                Ok((t, d)) => {
                    toolbox.add(t);
                    digest = d;
                }
                Err(problem) => problems.push(problem),
            },
            // Built per run, over the run's copy.
            "shell" | "records" => {}
            "files" if shell => {}
            "files" => {
                let root = dir.join(files_root.unwrap_or("."));
                let tools = inside(dir, &root)
                    .map_err(|e| format!("files_root: {e}"))
                    .and_then(|()| file_tools(&root));
                match tools {
                    Ok(ts) => ts.into_iter().for_each(|t| toolbox.add(t)),
                    Err(message) => problems.push(Problem::file(ARENA_TOML, message)),
                }
            }
            other => problems.push(Problem::file(
                ARENA_TOML,
                format!(
                    "tools: {}",
                    super::near_miss::unknown(
                        "tool",
                        other,
                        &["search", "files", "shell", "records"]
                    )
                ),
            )),
        }
    }
    Tools {
        names,
        toolbox,
        digest,
        shell,
        records,
    }
}
