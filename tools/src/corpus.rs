//! [`Corpus`]: the passages an agent can search, loaded from a JSON file and
//! indexed once, and [`Hit`], one search result.
//!
//! The file is a JSON array of `{"id"?, "title", "text"}` objects. `id` is
//! optional (default: the passage's position, `"0"`, `"1"`, …); a numeric id
//! becomes its string form. Other fields are ignored. Load errors name the
//! file, line and column.

use std::collections::HashMap;
use std::path::Path;

use serde::{Deserialize, Serialize};
use serde_json::Value;
use serde_json::value::RawValue;

use crate::bm25::Index;
use crate::error::CorpusError;

/// One passage of a corpus.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Passage {
    /// Identifier, unique within a corpus loaded from a file.
    pub id: String,
    /// Title; indexed together with the text.
    pub title: String,
    /// Body text.
    pub text: String,
}

impl Passage {
    /// Creates a passage.
    pub fn new(id: impl Into<String>, title: impl Into<String>, text: impl Into<String>) -> Self {
        Passage {
            id: id.into(),
            title: title.into(),
            text: text.into(),
        }
    }
}

/// One search result: a passage and its BM25 score.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Hit {
    /// The passage id.
    pub id: String,
    /// The passage title.
    pub title: String,
    /// The passage text.
    pub text: String,
    /// The BM25 score, times [`crate::TITLE_MATCH_BOOST`] when every word
    /// of the title is in the query (higher is better; always > 0).
    pub score: f64,
}

/// A searchable set of passages with its inverted index, built once.
///
/// Immutable after construction, so share it as `Arc<Corpus>` between the
/// runs of an arena and search it concurrently.
pub struct Corpus {
    passages: Vec<Passage>,
    index: Index,
    /// Tie-break position of each passage in id order.
    tie_rank: Vec<u32>,
    by_id: HashMap<String, usize>,
}

impl std::fmt::Debug for Corpus {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Corpus")
            .field("passages", &self.passages.len())
            .field("terms", &self.index.term_count())
            .finish()
    }
}

#[derive(Deserialize)]
struct RawPassage {
    #[serde(default)]
    id: Option<Value>,
    title: String,
    text: String,
}

impl Corpus {
    /// Reads and indexes a corpus file.
    pub fn load(path: &Path) -> Result<Corpus, CorpusError> {
        let text = std::fs::read_to_string(path).map_err(|source| CorpusError::Unreadable {
            path: path.to_path_buf(),
            source,
        })?;
        Corpus::from_json_str(&text, &path.display().to_string())
    }

    /// Parses and indexes a corpus from JSON text; `source_name` (usually
    /// the file path) is used in error messages.
    pub fn from_json_str(text: &str, source_name: &str) -> Result<Corpus, CorpusError> {
        let items: Vec<&RawValue> =
            serde_json::from_str(text).map_err(|e| CorpusError::Syntax {
                source_name: source_name.to_string(),
                line: e.line(),
                column: e.column(),
                message: format!(
                    "{} (a corpus is a JSON array of {{\"id\", \"title\", \"text\"}} objects)",
                    strip_position(&e)
                ),
            })?;
        let mut passages = Vec::with_capacity(items.len());
        // id → offset of the passage that first used it.
        let mut seen: HashMap<String, usize> = HashMap::with_capacity(items.len());
        for (pos, raw) in items.into_iter().enumerate() {
            let offset = (raw.get().as_ptr() as usize).saturating_sub(text.as_ptr() as usize);
            let (line, column) = line_column(text, offset);
            let invalid = |message: String| CorpusError::Invalid {
                source_name: source_name.to_string(),
                line,
                column,
                message,
            };
            let p: RawPassage = serde_json::from_str(raw.get()).map_err(|e| {
                // Positions inside the element are relative to its start.
                let (l, c) = if e.line() <= 1 {
                    (line, column + e.column().saturating_sub(1))
                } else {
                    (line + e.line() - 1, e.column())
                };
                CorpusError::Syntax {
                    source_name: source_name.to_string(),
                    line: l,
                    column: c,
                    message: format!("passage {pos}: {}", strip_position(&e)),
                }
            })?;
            let id = match p.id {
                None | Some(Value::Null) => pos.to_string(),
                Some(Value::String(s)) if s.trim().is_empty() => {
                    return Err(invalid(format!("passage {pos}: the id is empty")));
                }
                Some(Value::String(s)) => s,
                Some(Value::Number(n)) => n.to_string(),
                Some(other) => {
                    return Err(invalid(format!(
                        "passage {pos}: the id must be a string or a number, not {other}"
                    )));
                }
            };
            if let Some(&first) = seen.get(&id) {
                let (fl, fc) = line_column(text, first);
                return Err(invalid(format!(
                    "passage {pos}: duplicate id {id:?} (first used at line {fl}, column {fc})"
                )));
            }
            seen.insert(id.clone(), offset);
            passages.push(Passage {
                id,
                title: p.title,
                text: p.text,
            });
        }
        tracing::debug!(
            source = source_name,
            passages = passages.len(),
            "corpus loaded"
        );
        Ok(Corpus::from_passages(passages))
    }

    /// Indexes passages built in code. Unlike a file, ids are not checked
    /// for uniqueness: equal ids tie-break by position and
    /// [`Corpus::get`] returns the first.
    pub fn from_passages(passages: Vec<Passage>) -> Corpus {
        let index = Index::build(passages.iter().map(|p| (p.title.as_str(), p.text.as_str())));
        let mut order: Vec<usize> = (0..passages.len()).collect();
        // Stable, so equal ids stay in file order.
        order.sort_by_cached_key(|&pos| id_key(&passages[pos].id));
        let mut tie_rank = vec![0u32; passages.len()];
        for (rank, &pos) in order.iter().enumerate() {
            tie_rank[pos] = u32::try_from(rank).unwrap_or(u32::MAX);
        }
        let mut by_id = HashMap::with_capacity(passages.len());
        for (pos, p) in passages.iter().enumerate() {
            by_id.entry(p.id.clone()).or_insert(pos);
        }
        Corpus {
            passages,
            index,
            tie_rank,
            by_id,
        }
    }

    /// The `k` best passages for `query` by BM25 (with the title-match
    /// boost, see [`crate::TITLE_MATCH_BOOST`]), best first. Equal scores
    /// are ordered by id (numeric ids by value, before other ids, which
    /// compare as strings). An empty query, or one sharing no word with the
    /// corpus, gives an empty list.
    pub fn search(&self, query: &str, k: usize) -> Vec<Hit> {
        self.search_passages(query, k)
            .into_iter()
            .map(|(p, score)| Hit {
                id: p.id.clone(),
                title: p.title.clone(),
                text: p.text.clone(),
                score,
            })
            .collect()
    }

    /// [`Corpus::search`] without copying the passages: each hit's passage
    /// and score, best first.
    pub fn search_passages(&self, query: &str, k: usize) -> Vec<(&Passage, f64)> {
        self.index
            .search(query, k, &self.tie_rank)
            .into_iter()
            .filter_map(|(doc, score)| Some((self.passages.get(doc as usize)?, score)))
            .collect()
    }

    /// Number of passages.
    pub fn len(&self) -> usize {
        self.passages.len()
    }

    /// Whether the corpus has no passages.
    pub fn is_empty(&self) -> bool {
        self.passages.is_empty()
    }

    /// The passages, in file order.
    pub fn passages(&self) -> &[Passage] {
        &self.passages
    }

    /// The passage with this id.
    pub fn get(&self, id: &str) -> Option<&Passage> {
        self.by_id.get(id).and_then(|&i| self.passages.get(i))
    }

    /// Number of distinct terms in the index.
    pub fn term_count(&self) -> usize {
        self.index.term_count()
    }
}

/// Id order for ties: ids that are plain non-negative integers first, by
/// value; then the others, by bytes.
fn id_key(id: &str) -> (bool, u64, &str) {
    match id.parse::<u64>() {
        Ok(n) => (false, n, id),
        Err(_) => (true, 0, id),
    }
}

/// 1-based line and column (in bytes) of a byte offset.
fn line_column(text: &str, offset: usize) -> (usize, usize) {
    let before = text.as_bytes().get(..offset).unwrap_or(text.as_bytes());
    let line = before.iter().filter(|&&b| b == b'\n').count() + 1;
    let line_start = before
        .iter()
        .rposition(|&b| b == b'\n')
        .map_or(0, |i| i + 1);
    (line, offset - line_start + 1)
}

/// serde_json's message without its trailing " at line L column C".
fn strip_position(e: &serde_json::Error) -> String {
    let s = e.to_string();
    match s.rfind(" at line ") {
        Some(i) => s[..i].to_string(),
        None => s,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::error::ErrorCode;

    #[test]
    fn ids_default_to_position_and_numbers_become_strings() {
        let c = Corpus::from_json_str(
            r#"[{"title":"a","text":"x"},{"id":7,"title":"b","text":"y"},{"id":"z","title":"c","text":"w"}]"#,
            "t.json",
        )
        .unwrap();
        let ids: Vec<&str> = c.passages().iter().map(|p| p.id.as_str()).collect();
        assert_eq!(ids, ["0", "7", "z"]);
        assert_eq!(c.get("7").unwrap().title, "b");
    }

    #[test]
    fn syntax_errors_name_line_and_column() {
        let e = Corpus::from_json_str(
            "[\n  {\"title\": \"a\", \"text\": \"x\"},\n  {\"title\": }\n]",
            "c.json",
        )
        .unwrap_err();
        assert_eq!(e.code(), ErrorCode::CorpusSyntax);
        let CorpusError::Syntax { line, column, .. } = &e else {
            panic!("{e}")
        };
        assert_eq!((*line, *column), (3, 13), "{e}");
        assert!(e.to_string().starts_with("c.json:3:13: "), "{e}");
    }

    #[test]
    fn missing_field_points_into_the_passage() {
        let e = Corpus::from_json_str(
            "[\n  {\"title\": \"a\", \"text\": \"x\"},\n  {\"title\": \"b\"}\n]",
            "c.json",
        )
        .unwrap_err();
        assert_eq!(e.code(), ErrorCode::CorpusSyntax);
        let CorpusError::Syntax { line, message, .. } = &e else {
            panic!("{e}")
        };
        assert_eq!(*line, 3);
        assert!(
            message.contains("passage 1") && message.contains("`text`"),
            "{e}"
        );
    }

    #[test]
    fn not_an_array_is_a_syntax_error() {
        let e = Corpus::from_json_str(r#"{"title":"a"}"#, "c.json").unwrap_err();
        assert_eq!(e.code(), ErrorCode::CorpusSyntax);
    }

    #[test]
    fn duplicate_and_bad_ids_are_invalid() {
        let text = "[\n {\"id\": \"a\", \"title\": \"\", \"text\": \"\"},\n {\"id\": \"a\", \"title\": \"\", \"text\": \"\"}\n]";
        let e = Corpus::from_json_str(text, "c.json").unwrap_err();
        assert_eq!(e.code(), ErrorCode::CorpusInvalid);
        assert!(e.to_string().starts_with("c.json:3:2: "), "{e}");
        assert!(e.to_string().contains("line 2, column 2"), "{e}");
        let e =
            Corpus::from_json_str(r#"[{"id": true, "title": "", "text": ""}]"#, "c").unwrap_err();
        assert_eq!(e.code(), ErrorCode::CorpusInvalid);
        let e =
            Corpus::from_json_str(r#"[{"id": " ", "title": "", "text": ""}]"#, "c").unwrap_err();
        assert_eq!(e.code(), ErrorCode::CorpusInvalid);
    }

    #[test]
    fn id_order_puts_numbers_first_by_value() {
        let mut ids = vec!["b", "10", "2", "a", "0"];
        ids.sort_by_key(|id| id_key(id));
        assert_eq!(ids, ["0", "2", "10", "a", "b"]);
    }

    #[test]
    fn corpus_is_send_and_sync() {
        fn assert_send_sync<T: Send + Sync>() {}
        assert_send_sync::<Corpus>();
    }
}
