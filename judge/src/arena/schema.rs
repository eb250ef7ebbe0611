//! `schema` in arena.toml: the arena-wide output schema, a path to a JSON
//! file or an inline table.

use super::{ARENA_TOML, read_json_file, rel};
use crate::problem::Problem;
use serde_json::Value;
use std::path::Path;
use std::sync::Arc;
use tribunal_runtime::OutputSchema;

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
    let value = table.and_then(|s| read_schema(dir, s, problems));
    let output = value.as_ref().and_then(|s| {
        OutputSchema::new(name, s.clone())
            .map(Arc::new)
            .map_err(|e| {
                problems.push(Problem::file(
                    ARENA_TOML,
                    format!("schema: invalid schema: {e}"),
                ))
            })
            .ok()
    });
    // The arena's schema is unknown (not absent) when arena.toml or the
    // schema file could not be read.
    let unknown = output.is_none() && (!toml_read || table.is_some());
    ArenaSchema {
        value,
        output,
        unknown,
    }
}

fn read_schema(dir: &Path, schema: &toml::Value, problems: &mut Vec<Problem>) -> Option<Value> {
    match schema {
        toml::Value::String(p) => {
            let path = dir.join(p);
            read_json_file(
                &path,
                &format!("schema: cannot read {p}"),
                &rel(dir, &path),
                problems,
            )
        }
        toml::Value::Table(_) => match serde_json::to_value(schema) {
            Ok(v) => Some(v),
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
