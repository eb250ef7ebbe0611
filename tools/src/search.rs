//! [`SearchTool`]: the `search` tool, BM25 over a shared [`Corpus`].
//!
//! Arguments: `{"query": string, "k": integer (optional, default 3, 1..=20)}`,
//! or `{"query": string}` alone when the tool's owner fixed `k`
//! ([`SearchTool::with_fixed_k`]): the model is then not offered `k` at all.
//! The model reads one line per hit, `[id] title: text`, best first; no
//! match gives a short "no results" text, not an error.

use std::sync::Arc;

use futures::future::BoxFuture;
use serde::Deserialize;
use serde_json::{Value, json};
use tribunal_runtime::internal::text::push_joined_lines;
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
    /// Every call's `k`, when its owner fixed it: `k` is then not a
    /// parameter the model sees.
    fixed_k: Option<usize>,
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
        SearchTool {
            corpus,
            fixed_k: None,
        }
    }

    /// A search tool over `corpus` whose every call returns `k` passages
    /// (clamped to `1..=MAX_K`). Its parameters hold only `query`: the
    /// model neither reads nor writes `k` (about 50 tokens less per request
    /// offering the tool, on a small model's tokenizer), and a call that
    /// names `k` is refused as any unknown argument is.
    pub fn with_fixed_k(corpus: Arc<Corpus>, k: usize) -> Self {
        SearchTool {
            corpus,
            fixed_k: Some(k.clamp(1, MAX_K)),
        }
    }

    /// The `k` every call uses, when fixed.
    pub fn fixed_k(&self) -> Option<usize> {
        self.fixed_k
    }

    /// The corpus searched.
    pub fn corpus(&self) -> &Arc<Corpus> {
        &self.corpus
    }

    /// The hits for a call's arguments, after checking them (the same
    /// checks as the JSON Schema in [`Tool::parameters`]).
    pub fn hits(&self, args: &Value) -> Result<Vec<Hit>, ToolError> {
        let (query, k) = self.query_of(args)?;
        Ok(self.corpus.search(&query, k))
    }

    /// The JSON form of the hits for a call's arguments: an array of
    /// `{"id", "title", "text", "score"}`, best first.
    pub fn search_json(&self, args: &Value) -> Result<Value, ToolError> {
        let hits = self.hits(args)?;
        serde_json::to_value(hits)
            .map_err(|e| ToolError::new(format!("cannot serialise the hits: {e}")))
    }

    /// The query and `k` of a call's arguments, checked.
    fn query_of(&self, args: &Value) -> Result<(String, usize), ToolError> {
        let args = SearchArgs::deserialize(args)
            .map_err(|e| ToolError::new(format!("invalid arguments for search: {e}")))?;
        let k = match (self.fixed_k, args.k) {
            (Some(_), Some(_)) => {
                return Err(ToolError::new(
                    "invalid arguments for search: unknown field `k`, expected `query` \
                     (this search returns a fixed number of passages)",
                ));
            }
            (Some(fixed), None) => fixed,
            (None, None) => DEFAULT_K,
            (None, Some(k)) if (1..=MAX_K as i64).contains(&k) => k as usize,
            (None, Some(k)) => {
                return Err(ToolError::new(format!(
                    "invalid arguments for search: k must be between 1 and {MAX_K}, got {k}"
                )));
            }
        };
        Ok((args.query, k))
    }
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
        let mut properties = json!({
            "query": {
                "type": "string",
                "description": "Keywords to search for."
            }
        });
        if self.fixed_k.is_none() {
            properties["k"] = json!({
                "type": "integer",
                "minimum": 1,
                "maximum": MAX_K,
                "default": DEFAULT_K,
                "description": "How many passages to return (default 3)."
            });
        }
        json!({
            "type": "object",
            "properties": properties,
            "required": ["query"],
            "additionalProperties": false
        })
    }

    fn call(&self, args: Value) -> BoxFuture<'_, Result<ToolOutput, ToolError>> {
        let result = self.query_of(&args).map(|(query, k)| {
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
