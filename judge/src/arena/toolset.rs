//! The tools an arena can offer, built once per arena from its files:
//! `search` over the corpus, and the sandboxed file tools.

use crate::problem::Problem;
use sha2::{Digest, Sha256};
use std::path::Path;
use std::sync::Arc;
use tribunal_runtime::Tool;
use tribunal_tools::{Corpus, CorpusError, FileTools, SearchTool};

/// The `search` tool over the corpus at `path`, and a digest of the corpus
/// file (part of the config hash). A load problem carries the corpus line;
/// `file` is how problems name the corpus.
pub(crate) fn search_tool(path: &Path, file: &str) -> Result<(Arc<dyn Tool>, String), Problem> {
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
    Ok((Arc::new(SearchTool::new(Arc::new(corpus))), digest))
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
