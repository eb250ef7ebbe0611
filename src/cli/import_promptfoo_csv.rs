//! promptfoo's tests kept in a CSV file (`tests: file://tests.csv`): each
//! record is a test whose columns are its `vars`, except promptfoo's
//! special columns — `__expected`, `__expected1`, `__expected2`, … each
//! one assertion written as promptfoo writes it in a cell (`icontains:
//! bonjour`, `not-contains:x`, `contains-any:a,b`, `grade:…`, `fn:…`, or
//! plain text for `equals`), `__description` its description; the other
//! `__` columns (`__prefix`, `__suffix`, `__metric`, `__threshold`,
//! `__providerOutput`) are listed as not converted.

use serde_json::{Map, Value, json};

/// The assertion types promptfoo reads from a `type:value` cell (its
/// base types; any may take a `not-` prefix and a `(threshold)`).
const CELL_TYPES: &[&str] = &[
    "answer-relevance",
    "bleu",
    "classifier",
    "contains",
    "contains-all",
    "contains-any",
    "contains-json",
    "contains-sql",
    "contains-xml",
    "context-faithfulness",
    "context-recall",
    "context-relevance",
    "cost",
    "equals",
    "factuality",
    "g-eval",
    "icontains",
    "icontains-all",
    "icontains-any",
    "is-json",
    "is-sql",
    "is-valid-openai-function-call",
    "is-valid-openai-tools-call",
    "is-xml",
    "javascript",
    "latency",
    "levenshtein",
    "llm-rubric",
    "model-graded-closedqa",
    "model-graded-factuality",
    "moderation",
    "perplexity",
    "perplexity-score",
    "python",
    "regex",
    "rouge-n",
    "similar",
    "starts-with",
    "webhook",
];

/// The tests of the CSV `text`: one `{vars, assert, description}` test per
/// record, as promptfoo reads them, and the columns not converted.
pub(super) fn tests(text: &str) -> Result<(Vec<Value>, Vec<String>), String> {
    let records = super::import_csv::named_records(text)?;
    let mut unread: Vec<String> = Vec::new();
    let mut tests = Vec::new();
    for (_, fields) in records {
        let mut vars = Map::new();
        let mut asserts = Vec::new();
        let mut description = None;
        for (name, value) in fields {
            if name.starts_with("__expected") {
                if !value.trim().is_empty() {
                    asserts.push(assertion_of_cell(&value));
                }
            } else if name == "__description" {
                description = Some(value);
            } else if name.starts_with("__") {
                if !unread.contains(&name) {
                    unread.push(name);
                }
            } else {
                vars.insert(name, Value::String(value));
            }
        }
        let mut test = json!({"vars": vars, "assert": asserts});
        if let Some(d) = description {
            test["description"] = Value::String(d);
        }
        tests.push(test);
    }
    let notes = unread
        .into_iter()
        .map(|c| format!("column `{c}` not converted"))
        .collect();
    Ok((tests, notes))
}

/// One `__expected` cell as the assertion promptfoo makes of it.
fn assertion_of_cell(cell: &str) -> Value {
    for (prefix, kind) in [
        ("javascript:", "javascript"),
        ("fn:", "javascript"),
        ("eval:", "javascript"),
        ("python:", "python"),
    ] {
        if let Some(body) = cell.strip_prefix(prefix) {
            return json!({"type": kind, "value": body.trim()});
        }
    }
    for prefix in ["grade:", "llm-rubric:"] {
        if let Some(rubric) = cell.strip_prefix(prefix) {
            return json!({"type": "llm-rubric", "value": rubric.trim()});
        }
    }
    if let Some(file) = cell.strip_prefix("file://") {
        let kind = if file.ends_with(".py") || file.contains(".py:") {
            "python"
        } else {
            "javascript"
        };
        return json!({"type": kind, "value": file.trim()});
    }
    typed_cell(cell).unwrap_or_else(|| json!({"type": "equals", "value": cell}))
}

/// `[not-]TYPE[(threshold)][:value]` with TYPE one of [`CELL_TYPES`]; the
/// value as written after the `:` (the `-any` and `-all` types: a list,
/// split at commas and trimmed). `None` when the cell is not one.
fn typed_cell(cell: &str) -> Option<Value> {
    let (head, value) = match cell.split_once(':') {
        Some((head, value)) => (head, Some(value)),
        None => (cell, None),
    };
    let (head, threshold) = match head.strip_suffix(')').and_then(|h| h.split_once('(')) {
        Some((kind, t)) => (kind, Some(t.parse::<f64>().ok()?)),
        None => (head, None),
    };
    let base = head.strip_prefix("not-").unwrap_or(head);
    if !CELL_TYPES.contains(&base) {
        return None;
    }
    let value = value.unwrap_or_default();
    let mut a = json!({"type": head});
    a["value"] = if base.ends_with("-any") || base.ends_with("-all") {
        value
            .split(',')
            .map(|s| Value::String(s.trim().to_string()))
            .collect()
    } else {
        Value::String(value.to_string())
    };
    if let Some(t) = threshold {
        a["threshold"] = json!(t);
    }
    Some(a)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cells_read_as_promptfoo_reads_them() {
        let cases = [
            (
                "icontains:bonjour",
                json!({"type": "icontains", "value": "bonjour"}),
            ),
            (
                "not-contains:AI",
                json!({"type": "not-contains", "value": "AI"}),
            ),
            (
                "contains-any:Paris, Lyon",
                json!({"type": "contains-any", "value": ["Paris", "Lyon"]}),
            ),
            (
                "grade:Do not mention that you are an AI",
                json!({"type": "llm-rubric", "value": "Do not mention that you are an AI"}),
            ),
            (
                "similar(0.9):hello",
                json!({"type": "similar", "value": "hello", "threshold": 0.9}),
            ),
            (
                "fn:output.length < 10",
                json!({"type": "javascript", "value": "output.length < 10"}),
            ),
            (
                "file://check.py",
                json!({"type": "python", "value": "check.py"}),
            ),
            // Not a type: the whole cell is the expected output.
            (
                "Paris: the capital",
                json!({"type": "equals", "value": "Paris: the capital"}),
            ),
            ("4", json!({"type": "equals", "value": "4"})),
        ];
        for (cell, want) in cases {
            assert_eq!(assertion_of_cell(cell), want, "{cell}");
        }
    }

    #[test]
    fn expected_columns_are_assertions_and_other_special_columns_are_listed() {
        let text = "q,__expected1,__expected2,__prefix,__description\nhi,contains:a,,x,first\n";
        let (tests, notes) = tests(text).unwrap();
        assert_eq!(
            tests,
            [json!({
                "vars": {"q": "hi"},
                "assert": [{"type": "contains", "value": "a"}],
                "description": "first"
            })]
        );
        assert_eq!(notes, ["column `__prefix` not converted"]);
    }
}
