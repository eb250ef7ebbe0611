//! Tool cassettes: the results of tools whose answers come from outside the
//! run (an MCP server), recorded so that a replayed run needs none of them.
//!
//! [`ToolRecorder`] wraps tools ([`ToolRecorder::record`]): each wrapped
//! tool is written down once (name, description, parameters) and each call
//! with its arguments and result. [`replay_tools`] reads such a file back
//! into tools that offer the same specs — so a replayed request offers the
//! model exactly what the recorded one did — and answer a call with the
//! result recorded for the same arguments (the n-th call with given
//! arguments gets the n-th result recorded for them). A call that was never
//! recorded gets an error result that says so; the run goes on.
//!
//! The file is JSON Lines: a header `{"version": 1, "kind": "tools"}`, then
//! `{"tool": {"name", "description", "parameters"}}` and
//! `{"call": {"name", "arguments", "result": {"text"|"json"|"error": …}}}`
//! lines. Like backend cassettes it holds what the tools said, never a key.

use super::{Tool, ToolError, ToolOutput, ToolSpec};
use futures::future::BoxFuture;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use std::collections::{HashMap, VecDeque};
use std::fs::File;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::Duration;

/// The layout version written and read.
const VERSION: u32 = 1;

/// A tool cassette that cannot be written or read.
#[derive(Debug, thiserror::Error)]
#[error("tool cassette {}: {message}", path.display())]
pub struct ToolCassetteError {
    /// The file.
    pub path: PathBuf,
    /// What is wrong (with the line, for a bad line).
    pub message: String,
}

fn fail(path: &Path, message: impl Into<String>) -> ToolCassetteError {
    ToolCassetteError {
        path: path.to_path_buf(),
        message: message.into(),
    }
}

#[derive(Debug, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
enum Line {
    Tool(ToolSpec),
    Call(RecordedCall),
}

#[derive(Debug, Serialize, Deserialize)]
struct Header {
    version: u32,
    kind: String,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
struct RecordedCall {
    name: String,
    arguments: Value,
    result: RecordedResult,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
enum RecordedResult {
    Text(String),
    Json(Value),
    Error(String),
}

impl RecordedResult {
    fn of(result: &Result<ToolOutput, ToolError>) -> Self {
        match result {
            Ok(ToolOutput::Text(text)) => RecordedResult::Text(text.clone()),
            Ok(ToolOutput::Json(value)) => RecordedResult::Json(value.clone()),
            Err(e) => RecordedResult::Error(e.message.clone()),
        }
    }

    fn into_result(self) -> Result<ToolOutput, ToolError> {
        match self {
            RecordedResult::Text(text) => Ok(ToolOutput::Text(text)),
            RecordedResult::Json(value) => Ok(ToolOutput::Json(value)),
            RecordedResult::Error(message) => Err(ToolError::new(message)),
        }
    }
}

/// The key a call's result is filed under: the tool and its arguments with
/// object keys sorted.
fn call_key(name: &str, arguments: &Value) -> String {
    format!("{name}\n{}", crate::json::sorted_keys(arguments))
}

/// Writes a tool cassette (see the [module docs](self)).
#[derive(Debug)]
pub struct ToolRecorder {
    path: PathBuf,
    file: Mutex<File>,
}

impl ToolRecorder {
    /// Creates (or empties) the cassette at `path` and writes its header.
    pub fn create(path: &Path) -> Result<Arc<Self>, ToolCassetteError> {
        let mut file =
            File::create(path).map_err(|e| fail(path, format!("cannot create it: {e}")))?;
        let header = Header {
            version: VERSION,
            kind: "tools".into(),
        };
        let text = serde_json::to_string(&header).map_err(|e| fail(path, e.to_string()))?;
        writeln!(file, "{text}").map_err(|e| fail(path, format!("cannot write it: {e}")))?;
        Ok(Arc::new(ToolRecorder {
            path: path.to_path_buf(),
            file: Mutex::new(file),
        }))
    }

    /// `tool`, recording into this cassette: its spec now, each call's
    /// arguments and result as it returns.
    pub fn record(
        self: &Arc<Self>,
        tool: Arc<dyn Tool>,
    ) -> Result<Arc<dyn Tool>, ToolCassetteError> {
        let spec = ToolSpec {
            name: tool.name().to_string(),
            description: tool.description().to_string(),
            parameters: tool.parameters(),
        };
        self.write(&Line::Tool(spec))?;
        Ok(Arc::new(RecordingTool {
            inner: tool,
            recorder: Arc::clone(self),
        }))
    }

    fn write(&self, line: &Line) -> Result<(), ToolCassetteError> {
        let text = serde_json::to_string(line).map_err(|e| fail(&self.path, e.to_string()))?;
        let mut file = self
            .file
            .lock()
            .map_err(|_| fail(&self.path, "a writer panicked"))?;
        writeln!(file, "{text}")
            .and_then(|()| file.flush())
            .map_err(|e| fail(&self.path, format!("cannot write it: {e}")))
    }
}

struct RecordingTool {
    inner: Arc<dyn Tool>,
    recorder: Arc<ToolRecorder>,
}

impl Tool for RecordingTool {
    fn name(&self) -> &str {
        self.inner.name()
    }
    fn description(&self) -> &str {
        self.inner.description()
    }
    fn parameters(&self) -> Value {
        self.inner.parameters()
    }
    fn timeout(&self) -> Option<Duration> {
        self.inner.timeout()
    }
    fn runs_inline(&self) -> bool {
        self.inner.runs_inline()
    }
    fn compiles_parameters(&self) -> bool {
        self.inner.compiles_parameters()
    }
    fn call(&self, args: Value) -> BoxFuture<'_, Result<ToolOutput, ToolError>> {
        Box::pin(async move {
            let result = self.inner.call(args.clone()).await;
            let line = Line::Call(RecordedCall {
                name: self.inner.name().to_string(),
                arguments: args,
                result: RecordedResult::of(&result),
            });
            // A lost line must not pass silently: the call fails, and the
            // model reads why (as a recording backend fails its request).
            if let Err(e) = self.recorder.write(&line) {
                return Err(ToolError::new(e.to_string()));
            }
            result
        })
    }
}

/// The tools recorded in the cassette at `path`, answering from it. Errors:
/// the file cannot be read, or a line is not a tool cassette's (named with
/// its number).
pub fn replay_tools(path: &Path) -> Result<Vec<Arc<dyn Tool>>, ToolCassetteError> {
    let text =
        std::fs::read_to_string(path).map_err(|e| fail(path, format!("cannot read it: {e}")))?;
    let mut lines = text
        .lines()
        .enumerate()
        .filter(|(_, l)| !l.trim().is_empty());
    let at = |n: usize, what: String| fail(path, format!("line {}: {what}", n + 1));
    match lines.next() {
        Some((n, line)) => match serde_json::from_str::<Header>(line) {
            Ok(h) if h.kind == "tools" && h.version == VERSION => {}
            Ok(h) => {
                return Err(at(
                    n,
                    format!(
                        "a {:?} cassette of version {} (this build reads tools, version {VERSION})",
                        h.kind, h.version
                    ),
                ));
            }
            Err(e) => return Err(at(n, format!("not a tool cassette header: {e}"))),
        },
        None => return Err(fail(path, "it is empty")),
    }
    let mut specs: Vec<ToolSpec> = Vec::new();
    let mut answers: HashMap<String, VecDeque<RecordedResult>> = HashMap::new();
    for (n, line) in lines {
        match serde_json::from_str::<Line>(line).map_err(|e| at(n, e.to_string()))? {
            Line::Tool(spec) => {
                if !specs.iter().any(|s| s.name == spec.name) {
                    specs.push(spec);
                }
            }
            Line::Call(call) => answers
                .entry(call_key(&call.name, &call.arguments))
                .or_default()
                .push_back(call.result),
        }
    }
    let answers = Arc::new(Mutex::new(answers));
    Ok(specs
        .into_iter()
        .map(|spec| {
            Arc::new(ReplayedTool {
                spec,
                answers: Arc::clone(&answers),
                path: path.to_path_buf(),
            }) as Arc<dyn Tool>
        })
        .collect())
}

struct ReplayedTool {
    spec: ToolSpec,
    answers: Arc<Mutex<HashMap<String, VecDeque<RecordedResult>>>>,
    path: PathBuf,
}

impl Tool for ReplayedTool {
    fn name(&self) -> &str {
        &self.spec.name
    }
    fn description(&self) -> &str {
        &self.spec.description
    }
    fn parameters(&self) -> Value {
        self.spec.parameters.clone()
    }
    fn runs_inline(&self) -> bool {
        true
    }
    fn call(&self, args: Value) -> BoxFuture<'_, Result<ToolOutput, ToolError>> {
        let key = call_key(&self.spec.name, &args);
        let recorded = self
            .answers
            .lock()
            .ok()
            .and_then(|mut a| a.get_mut(&key).and_then(VecDeque::pop_front));
        Box::pin(async move {
            match recorded {
                Some(result) => result.into_result(),
                None => Err(ToolError::new(format!(
                    "no recorded result for this call in the tool cassette {}",
                    self.path.display()
                ))),
            }
        })
    }
}

#[cfg(test)]
mod tests;
