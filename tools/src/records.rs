//! [`RecordTools`]: `find_records`, `get_record` and `update_record`, the
//! domain tools of a world folder whose tables are JSON files — a
//! conversation arena's shop, library or clinic, changed by the agent in
//! its run's own copy.
//!
//! A table is `<table>.json` directly in the root: one JSON object from
//! record id to record (an object). Table names are `[a-z][a-z0-9_]*` (no
//! path can be named); a table file that is a symlink is refused. Updates
//! change existing fields only, are written whole (a temporary file, then
//! a rename) and are serialised per folder. The tools enforce no business
//! rule: the arena's policy states them, and the checks of the final state
//! find a rule broken.

use futures::future::BoxFuture;
use serde::Deserialize;
use serde_json::{Map, Value, json};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use tribunal_runtime::{Tool, ToolBox, ToolError, ToolOutput};

/// The largest table read, in bytes: 4 MiB.
const MAX_TABLE_BYTES: u64 = 4 * 1024 * 1024;
/// The most records `find_records` lists.
const MAX_FOUND: usize = 20;

/// The record tools of one folder.
#[derive(Debug, Clone)]
pub struct RecordTools {
    inner: Arc<Inner>,
}

#[derive(Debug)]
struct Inner {
    root: PathBuf,
    /// Serialises updates (read, change, write) within the folder.
    writing: Mutex<()>,
}

impl RecordTools {
    /// The record tools of the tables in `root`.
    pub fn new(root: impl AsRef<Path>) -> Self {
        RecordTools {
            inner: Arc::new(Inner {
                root: root.as_ref().to_path_buf(),
                writing: Mutex::new(()),
            }),
        }
    }

    /// The three tools.
    pub fn tools(&self) -> Vec<Arc<dyn Tool>> {
        vec![
            Arc::new(FindRecords(self.inner.clone())),
            Arc::new(GetRecord(self.inner.clone())),
            Arc::new(UpdateRecord(self.inner.clone())),
        ]
    }

    /// Adds the three tools to `toolbox`.
    pub fn add_to(&self, toolbox: &mut ToolBox) {
        self.tools().into_iter().for_each(|t| toolbox.add(t));
    }
}

impl Inner {
    /// The path of `table`, when its name is plain.
    fn table_path(&self, table: &str) -> Result<PathBuf, ToolError> {
        let plain = table.len() <= 64
            && table.starts_with(|c: char| c.is_ascii_lowercase())
            && table
                .chars()
                .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_');
        if !plain {
            return Err(ToolError::new(format!("no table named {table:?}")));
        }
        Ok(self.root.join(format!("{table}.json")))
    }

    fn read(&self, table: &str) -> Result<(PathBuf, Map<String, Value>), ToolError> {
        let path = self.table_path(table)?;
        let meta = std::fs::symlink_metadata(&path)
            .map_err(|_| ToolError::new(format!("no table named {table:?}")))?;
        if !meta.is_file() {
            return Err(ToolError::new(format!("no table named {table:?}")));
        }
        if meta.len() > MAX_TABLE_BYTES {
            return Err(ToolError::new(format!("the table {table} is too large")));
        }
        let text = std::fs::read_to_string(&path)
            .map_err(|e| ToolError::new(format!("cannot read the table {table}: {e}")))?;
        match serde_json::from_str(&text) {
            Ok(Value::Object(records)) => Ok((path, records)),
            _ => Err(ToolError::new(format!(
                "the table {table} is not a JSON object of records"
            ))),
        }
    }

    fn get(&self, args: GetArgs) -> Result<Value, ToolError> {
        let (_, records) = self.read(&args.table)?;
        records
            .get(&args.id)
            .cloned()
            .ok_or_else(|| ToolError::new(format!("no record {:?} in {}", args.id, args.table)))
    }

    fn find(&self, args: FindArgs) -> Result<Value, ToolError> {
        let (_, records) = self.read(&args.table)?;
        let wanted = args.value.trim().to_lowercase();
        let found: Map<String, Value> = records
            .into_iter()
            .filter(|(_, r)| {
                r.get(&args.field).is_some_and(|v| match v {
                    Value::String(s) => s.trim().to_lowercase() == wanted,
                    other => other.to_string().eq(&wanted),
                })
            })
            .take(MAX_FOUND)
            .collect();
        Ok(Value::Object(found))
    }

    fn update(&self, args: UpdateArgs) -> Result<Value, ToolError> {
        let _writing = self.writing.lock().unwrap_or_else(|e| e.into_inner());
        let (path, mut records) = self.read(&args.table)?;
        let Some(Value::Object(record)) = records.get_mut(&args.id) else {
            return Err(ToolError::new(format!(
                "no record {:?} in {}",
                args.id, args.table
            )));
        };
        if args.changes.is_empty() {
            return Err(ToolError::new("`changes` is empty"));
        }
        if let Some(field) = args.changes.keys().find(|k| !record.contains_key(*k)) {
            return Err(ToolError::new(format!(
                "the record has no field {field:?} (fields: {})",
                record.keys().cloned().collect::<Vec<_>>().join(", ")
            )));
        }
        record.extend(args.changes);
        let updated = Value::Object(record.clone());
        let text = serde_json::to_string_pretty(&Value::Object(records))
            .map_err(|e| ToolError::new(format!("cannot write the table: {e}")))?;
        let temporary = path.with_extension("json.writing");
        std::fs::write(&temporary, text)
            .and_then(|()| std::fs::rename(&temporary, &path))
            .map_err(|e| ToolError::new(format!("cannot write the table {}: {e}", args.table)))?;
        Ok(updated)
    }
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct GetArgs {
    table: String,
    id: String,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct FindArgs {
    table: String,
    field: String,
    value: String,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct UpdateArgs {
    table: String,
    id: String,
    changes: Map<String, Value>,
}

/// Runs `work` on a blocking thread (file I/O), as JSON output.
fn blocking<A, F>(
    args: Value,
    tool: &'static str,
    work: F,
) -> BoxFuture<'static, Result<ToolOutput, ToolError>>
where
    A: for<'de> Deserialize<'de> + Send + 'static,
    F: FnOnce(A) -> Result<Value, ToolError> + Send + 'static,
{
    Box::pin(async move {
        let args: A = A::deserialize(&args)
            .map_err(|e| ToolError::new(format!("invalid arguments for {tool}: {e}")))?;
        let value = match tokio::runtime::Handle::try_current() {
            Ok(handle) => handle
                .spawn_blocking(move || work(args))
                .await
                .map_err(|e| ToolError::new(format!("{tool} failed: {e}")))??,
            Err(_) => work(args)?,
        };
        Ok(ToolOutput::Json(value))
    })
}

fn table_schema() -> Value {
    json!({"type": "string", "description": "The table's name, e.g. `orders`."})
}

struct FindRecords(Arc<Inner>);

impl Tool for FindRecords {
    fn name(&self) -> &str {
        "find_records"
    }
    fn description(&self) -> &str {
        "Find the records of a table whose field equals a value (ignoring case). \
         Returns an object from record id to record (at most 20)."
    }
    fn parameters(&self) -> Value {
        json!({
            "type": "object",
            "properties": {
                "table": table_schema(),
                "field": {"type": "string"},
                "value": {"type": "string"}
            },
            "required": ["table", "field", "value"],
            "additionalProperties": false
        })
    }
    fn call(&self, args: Value) -> BoxFuture<'_, Result<ToolOutput, ToolError>> {
        let inner = self.0.clone();
        blocking(args, "find_records", move |a| inner.find(a))
    }
}

struct GetRecord(Arc<Inner>);

impl Tool for GetRecord {
    fn name(&self) -> &str {
        "get_record"
    }
    fn description(&self) -> &str {
        "Get one record of a table by its id."
    }
    fn parameters(&self) -> Value {
        json!({
            "type": "object",
            "properties": {"table": table_schema(), "id": {"type": "string"}},
            "required": ["table", "id"],
            "additionalProperties": false
        })
    }
    fn call(&self, args: Value) -> BoxFuture<'_, Result<ToolOutput, ToolError>> {
        let inner = self.0.clone();
        blocking(args, "get_record", move |a| inner.get(a))
    }
}

struct UpdateRecord(Arc<Inner>);

impl Tool for UpdateRecord {
    fn name(&self) -> &str {
        "update_record"
    }
    fn description(&self) -> &str {
        "Change existing fields of one record: `changes` maps field to new value. \
         Returns the updated record."
    }
    fn parameters(&self) -> Value {
        json!({
            "type": "object",
            "properties": {
                "table": table_schema(),
                "id": {"type": "string"},
                "changes": {"type": "object"}
            },
            "required": ["table", "id", "changes"],
            "additionalProperties": false
        })
    }
    fn call(&self, args: Value) -> BoxFuture<'_, Result<ToolOutput, ToolError>> {
        let inner = self.0.clone();
        blocking(args, "update_record", move |a| inner.update(a))
    }
}
