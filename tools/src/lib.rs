//! Tools for tribunal agents: BM25 search over a passage corpus, file
//! tools confined to one directory, and commands in a sandbox.
//!
//! # Brief overview
//!
//! - [`Corpus`] loads a JSON array of `{"id"?, "title", "text"}` passages and
//!   builds an in-memory inverted index once; [`Corpus::search`] ranks
//!   passages with Okapi BM25 (k1 = 1.2, b = 0.75) and returns [`Hit`]s,
//!   ties broken by id. A passage whose title words all appear in the query
//!   gets its score multiplied by [`TITLE_MATCH_BOOST`], so that the passage
//!   *about* "Tokyo Tower" outranks "Tokyo Skytree … taller than the older
//!   Tokyo Tower". It is immutable: share it as `Arc<Corpus>`.
//! - [`SearchTool`] wraps an `Arc<Corpus>` as the `search` tool of the
//!   runtime's [`Tool`](tribunal_runtime::Tool) trait; the model reads one
//!   `[id] title: text` line per hit.
//! - [`FileTools`] gives `list_files`, `read_file` and `grep` rooted at a
//!   directory. Paths that escape the root (`..`, absolute, percent-encoded,
//!   symlinks out) are refused with a [`PathError`]; binary files are
//!   refused; every output is capped (16 KiB by default) with a visible
//!   `[truncated: …]` line.
//! - [`WriteTools`] gives `write_file` and `apply_patch` (a unified diff,
//!   applied by `diffy`) in a root, the same path checks before any write.
//! - [`shell`] runs commands in a sandbox (bubblewrap: no network, only a
//!   working folder writable, limits on time, CPU, memory, processes and
//!   output); its `run_command` tool is [`shell::ShellTool`].
//! - `mcp` (feature `mcp`) gives the tools of MCP servers, each started as
//!   a child process and spoken to over stdio.
//!
//! Tokenisation (shared by indexing and queries) lowercases, splits on
//! anything that is not a letter or digit, keeps numbers and folds
//! diacritics (`Zürich` → `zurich`). There is no stemming and no stop list:
//! `towers` does not match `tower`.
//!
//! # Example
//!
//! ```
//! use std::sync::Arc;
//! use tribunal_tools::{Corpus, SearchTool, render_hits};
//!
//! let corpus = Corpus::from_json_str(
//!     r#"[
//!         {"id": "eiffel", "title": "Eiffel Tower", "text": "Wrought-iron tower in Paris, 1889."},
//!         {"id": "tokyo", "title": "Tokyo Tower", "text": "Inspired by the Eiffel Tower; 333 m."}
//!     ]"#,
//!     "inline.json",
//! )?;
//! let hits = corpus.search("Eiffel Tower", 3);
//! assert_eq!(hits[0].id, "eiffel");
//! assert!(hits[0].score > hits[1].score);
//! assert_eq!(
//!     render_hits(&hits[..1]),
//!     "[eiffel] Eiffel Tower: Wrought-iron tower in Paris, 1889."
//! );
//!
//! // The same ranking as a tool, sharing the index.
//! let tool = SearchTool::new(Arc::new(corpus));
//! let json = tool.search_json(&serde_json::json!({"query": "333", "k": 1}))?;
//! assert_eq!(json[0]["id"], "tokyo");
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
#![deny(missing_docs)]
#![warn(unreachable_pub)]
#![forbid(unsafe_code)]

mod bm25;
mod cap;
mod corpus;
mod error;
mod files;
#[cfg(feature = "mcp")]
pub mod mcp;
mod records;
mod sandbox;
mod search;
pub mod shell;
mod tokenize;
mod write;

pub use bm25::TITLE_MATCH_BOOST;
pub use cap::DEFAULT_MAX_OUTPUT_BYTES;
pub use corpus::{Corpus, Hit, Passage};
pub use error::{CorpusError, ErrorCode, FileToolsError, PathError, SandboxError};
pub use files::FileTools;
pub use records::RecordTools;
pub use sandbox::MAX_FILE_BYTES;
pub use search::{DEFAULT_K, MAX_K, SearchTool, render_hits};
pub use write::{APPLY_PATCH, WRITE_FILE, WriteTools};
