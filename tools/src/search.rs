//! [`SearchTool`]: the `search` tool, BM25 over a shared [`Corpus`].
//!
//! Arguments: `{"query": string, "k": integer (optional, default 3, 1..=20)}`.
//! The model reads one line per hit, `[id] title: text`, best first; no
//! match gives a short "no results" text, not an error.

use std::sync::Arc;

use futures::future::BoxFuture;
use serde::Deserialize;
use serde_json::{Value, json};
use tribunal_runtime::text::push_joined_lines;
use tribunal_runtime::{Tool, ToolError, ToolOutput};

use crate::corpus::{Corpus, Hit};

/// Results returned when the call does not say `k`.
pub const DEFAULT_K: usize = 3;
/// The most results one call may ask for.
pub const MAX_K: usize = 20;

/// The `search` tool. Cheap to clone; clones share the corpus.
#[derive(Debug, Clone)]
pub struct SearchTool {
    corpus: Arc<Corpus>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct SearchArgs {
    query: String,
    #[serde(default)]
    k: Option<i64>,
}

impl SearchTool {
    /// A search tool over `corpus`.
    pub fn new(corpus: Arc<Corpus>) -> Self {
        SearchTool { corpus }
    }

    /// The corpus searched.
    pub fn corpus(&self) -> &Arc<Corpus> {
        &self.corpus
    }

    /// The hits for a call's arguments, after checking them (the same
    /// checks as the JSON Schema in [`Tool::parameters`]).
    pub fn hits(&self, args: &Value) -> Result<Vec<Hit>, ToolError> {
        let (query, k) = query_of(args)?;
        Ok(self.corpus.search(&query, k))
    }

    /// The JSON form of the hits for a call's arguments: an array of
    /// `{"id", "title", "text", "score"}`, best first.
    pub fn search_json(&self, args: &Value) -> Result<Value, ToolError> {
        let hits = self.hits(args)?;
        serde_json::to_value(hits)
            .map_err(|e| ToolError::new(format!("cannot serialise the hits: {e}")))
    }
}

/// The query and `k` of a call's arguments, checked.
fn query_of(args: &Value) -> Result<(String, usize), ToolError> {
    let args = SearchArgs::deserialize(args)
        .map_err(|e| ToolError::new(format!("invalid arguments for search: {e}")))?;
    let k = match args.k {
        None => DEFAULT_K,
        Some(k) if (1..=MAX_K as i64).contains(&k) => k as usize,
        Some(k) => {
            return Err(ToolError::new(format!(
                "invalid arguments for search: k must be between 1 and {MAX_K}, got {k}"
            )));
        }
    };
    Ok((args.query, k))
}

/// The text the model reads: `[id] title: text`, one line per hit (line
/// breaks inside a passage become spaces), or a short note when empty.
pub fn render_hits(hits: &[Hit]) -> String {
    render(
        hits.iter()
            .map(|h| (h.id.as_str(), h.title.as_str(), h.text.as_str())),
    )
}

/// [`render_hits`] of (id, title, text) triples, written into one string.
fn render<'a>(hits: impl ExactSizeIterator<Item = (&'a str, &'a str, &'a str)>) -> String {
    if hits.len() == 0 {
        return "no results: no passage matches the query; try other words".to_string();
    }
    let mut out = String::new();
    for (i, (id, title, text)) in hits.enumerate() {
        if i > 0 {
            out.push('\n');
        }
        out.push('[');
        push_joined_lines(&mut out, id);
        out.push_str("] ");
        push_joined_lines(&mut out, title);
        out.push_str(": ");
        push_joined_lines(&mut out, text);
    }
    out
}

impl Tool for SearchTool {
    fn name(&self) -> &str {
        "search"
    }

    fn description(&self) -> &str {
        "Search the reference corpus by keywords (BM25 ranking). Returns the best \
         passages, one per line, as `[id] title: text`. Cite passages by id."
    }

    fn parameters(&self) -> Value {
        json!({
            "type": "object",
            "properties": {
                "query": {
                    "type": "string",
                    "description": "Keywords to search for."
                },
                "k": {
                    "type": "integer",
                    "minimum": 1,
                    "maximum": MAX_K,
                    "default": DEFAULT_K,
                    "description": "How many passages to return (default 3)."
                }
            },
            "required": ["query"],
            "additionalProperties": false
        })
    }

    fn call(&self, args: Value) -> BoxFuture<'_, Result<ToolOutput, ToolError>> {
        let result = query_of(&args).map(|(query, k)| {
            let hits = self.corpus.search_passages(&query, k);
            ToolOutput::Text(render(
                hits.iter()
                    .map(|(p, _)| (p.id.as_str(), p.title.as_str(), p.text.as_str())),
            ))
        });
        Box::pin(async move { result })
    }

    /// A search is a few microseconds of CPU over the in-memory index and
    /// never blocks: it runs in the run's own task.
    fn runs_inline(&self) -> bool {
        true
    }
}
