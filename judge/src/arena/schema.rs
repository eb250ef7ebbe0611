//! `schema` in arena.toml: the arena-wide output schema, a path to a JSON
//! file or an inline table.

use super::json_position::{self, Part};
use super::{ARENA_TOML, near_miss, read_json_file, rel};
use crate::problem::Problem;
use serde_json::Value;
use std::path::Path;
use std::sync::Arc;
use tribunal_runtime::internal::schema::Issue;
use tribunal_runtime::{OutputSchema, SchemaError};

/// The arena-wide output schema as read.
pub(super) struct ArenaSchema {
    /// The schema's JSON, when it could be read.
    pub(super) value: Option<Value>,
    /// The compiled schema, when it could be read and compiled.
    pub(super) output: Option<Arc<OutputSchema>>,
    /// Whether the schema is unknown (not absent): arena.toml or the schema
    /// could not be read, so items are not linted against its absence.
    pub(super) unknown: bool,
}

/// Reads `schema` of arena `name` in `dir` (`toml_read`: whether arena.toml
/// itself could be read), each problem in `problems`.
pub(super) fn read(
    dir: &Path,
    name: &str,
    table: Option<&toml::Value>,
    toml_read: bool,
    problems: &mut Vec<Problem>,
) -> ArenaSchema {
    let read = table.and_then(|s| read_schema(dir, s, problems));
    let output = read.as_ref().and_then(|(value, source)| {
        OutputSchema::new(name, value.clone())
            .map(Arc::new)
            .map_err(|e| problems.extend(invalid_schema(value, &e, source)))
            .ok()
    });
    // The arena's schema is unknown (not absent) when arena.toml or the
    // schema file could not be read.
    let unknown = output.is_none() && (!toml_read || table.is_some());
    ArenaSchema {
        value: read.map(|(value, _)| value),
        output,
        unknown,
    }
}

/// Where a schema is written, for the positions of its problems.
pub(super) struct SchemaSource {
    /// The file its problems are reported in.
    pub(super) file: String,
    /// The text the schema is in, when known (its problems then get a line
    /// and column).
    pub(super) text: Option<String>,
    /// The line of the text in `file` (a dataset line), or `None`: the text
    /// is the whole file.
    pub(super) line: Option<usize>,
    /// Where the schema sits in the text (`/checks/0/schema`; `""`: it is
    /// the whole text).
    pub(super) base: String,
    /// What each message starts with (`schema`, `checks[0]: json_schema`).
    pub(super) label: String,
}

/// The problems of `schema`, which did not compile (`error`): each place it
/// breaks its metaschema, named by its pointer in the schema and found in
/// the text; else the error itself.
pub(super) fn invalid_schema(
    schema: &Value,
    error: &SchemaError,
    source: &SchemaSource,
) -> Vec<Problem> {
    let issues = tribunal_runtime::internal::schema::schema_issues(schema);
    if issues.is_empty() {
        return vec![schema_problem(
            source,
            None,
            format!("invalid schema: {error}"),
        )];
    }
    // The metaschema reaches one mistake by several ways (a root `[1,2,3]`
    // breaks each of its sub-schemas' `type`): each is said once.
    let mut problems: Vec<Problem> = Vec::new();
    for issue in &issues {
        let problem = schema_problem(source, Some(&issue.path), explain(schema, issue));
        if !problems.contains(&problem) {
            problems.push(problem);
        }
    }
    problems
}

/// One problem of a schema, at the place of `pointer` in its text.
fn schema_problem(source: &SchemaSource, pointer: Option<&str>, message: String) -> Problem {
    let position = pointer.zip(source.text.as_deref()).and_then(|(p, text)| {
        json_position::position(text, &format!("{}{p}", source.base), Part::Value)
    });
    let message = match pointer {
        Some("") => format!("{}: (root): {message}", source.label),
        Some(p) => format!("{}: {p}: {message}", source.label),
        None => format!("{}: {message}", source.label),
    };
    match (position, source.line) {
        (Some((line, column)), first) => Problem::at_column(
            source.file.clone(),
            (first.unwrap_or(1) + line - 1, column),
            message,
        ),
        (None, Some(line)) => Problem::at(source.file.clone(), line, message),
        (None, None) => Problem::file(source.file.clone(), message),
    }
}

/// The JSON types a `type` keyword names.
const JSON_TYPES: [&str; 7] = [
    "array", "boolean", "integer", "null", "number", "object", "string",
];

/// The metaschema's message, or for a misspelt `type` the type it was
/// probably meant to be (the metaschema only says the value is in none of
/// the `anyOf` alternatives).
fn explain(schema: &Value, issue: &Issue) -> String {
    let tokens: Vec<&str> = issue.path.split('/').collect();
    let is_type_keyword = tokens.last() == Some(&"type")
        && !tokens.len().checked_sub(2).is_some_and(|i| {
            matches!(
                tokens[i],
                "properties" | "patternProperties" | "$defs" | "definitions" | "dependentSchemas"
            )
        });
    let named = match schema.pointer(&issue.path) {
        Some(Value::String(t)) => Some(t.as_str()),
        Some(Value::Array(ts)) => ts
            .iter()
            .filter_map(Value::as_str)
            .find(|t| !JSON_TYPES.contains(t)),
        _ => None,
    };
    match named.filter(|t| is_type_keyword && !JSON_TYPES.contains(t)) {
        Some(t) => near_miss::unknown("type", t, &JSON_TYPES),
        None => tribunal_runtime::internal::text::one_line(&issue.message, 200),
    }
}

/// The schema of `schema` in arena.toml and where it is written: a file
/// (its text for positions) or an inline table.
fn read_schema(
    dir: &Path,
    schema: &toml::Value,
    problems: &mut Vec<Problem>,
) -> Option<(Value, SchemaSource)> {
    let source = |file: String, text: Option<String>| SchemaSource {
        file,
        text,
        line: None,
        base: String::new(),
        label: "schema".to_string(),
    };
    match schema {
        toml::Value::String(p) => {
            let path = dir.join(p);
            let file = rel(dir, &path);
            let read = read_json_file(&path, &format!("schema: cannot read {p}"), &file, problems)?;
            Some((read.value, source(file, Some(read.text))))
        }
        toml::Value::Table(_) => match serde_json::to_value(schema) {
            Ok(v) => Some((v, source(ARENA_TOML.to_string(), None))),
            Err(e) => {
                problems.push(Problem::file(ARENA_TOML, format!("schema: {e}")));
                None
            }
        },
        _ => {
            problems.push(Problem::file(
                ARENA_TOML,
                "schema: expected a path or an inline table",
            ));
            None
        }
    }
}
