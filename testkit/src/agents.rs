//! The runtime's loop tests and benches: the landmark schema, scripted
//! turns and agents, tools that count or sleep, a backend that is slow once.

use futures::future::BoxFuture;
use serde_json::{Value, json};
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;
use tribunal_runtime::ToolExecution;
use tribunal_runtime::{Agent, Backend, OutputSchema, Tool, ToolError, ToolOutput};
use tribunal_runtime::{ModelTurn, StopReason, ToolCall, ToolResult, Usage};
use tribunal_runtime::{ScriptTurn, ScriptedBackend};

/// The landmark record schema of the structured_output arena, as JSON
/// (the arena's own `schema.json` also caps `sources` at 5).
pub fn landmark_json() -> Value {
    json!({
            "type": "object",
            "required": ["name", "year", "height_m", "sources"],
            "properties": {
                "name": {"type": "string"},
                "year": {"type": "integer"},
                "height_m": {"type": "number"},
                "sources": {"type": "array", "items": {"type": "string"}, "minItems": 1}
            },
            "additionalProperties": false
    })
}

/// [`landmark_json`] as the output schema `landmark`.
pub fn landmark_schema() -> OutputSchema {
    OutputSchema::new("landmark", landmark_json()).unwrap()
}

/// A valid landmark record: the Eiffel Tower.
pub fn eiffel() -> Value {
    json!({"name": "Eiffel Tower", "year": 1889, "height_m": 330, "sources": ["1"]})
}

/// A turn answering `t` as text.
pub fn text(t: &str) -> ModelTurn {
    ModelTurn {
        text: t.to_string(),
        ..Default::default()
    }
}

/// A turn answering `v` as JSON text.
pub fn answer(v: &Value) -> ModelTurn {
    text(&v.to_string())
}

/// `turn` reporting `input` and `output` tokens.
pub fn with_usage(mut turn: ModelTurn, input: u64, output: u64) -> ModelTurn {
    turn.usage = Usage::new(input, output);
    turn
}

/// A turn calling the tools `calls` (name, arguments), ids `c0`, `c1`, ….
pub fn calls(calls: &[(&str, Value)]) -> ModelTurn {
    ModelTurn {
        text: String::new(),
        tool_calls: calls
            .iter()
            .enumerate()
            .map(|(i, (name, args))| ToolCall {
                id: format!("c{i}"),
                name: name.to_string(),
                arguments: args.to_string(),
            })
            .collect(),
        stop: StopReason::ToolUse,
        usage: Usage::default(),
        reasoning: Vec::new(),
    }
}

/// A scripted backend playing `turns` in order.
pub fn script(turns: Vec<ModelTurn>) -> Arc<ScriptedBackend> {
    Arc::new(ScriptedBackend::from_turns(turns))
}

/// The landmark agent (no tools) on `backend`.
pub fn agent(backend: Arc<ScriptedBackend>) -> Agent {
    Agent::new(backend as Arc<dyn Backend>, Arc::new(landmark_schema())).unwrap()
}

/// A script turn from its JSON form (`{"text": …}`, `{"json": …}`, …).
pub fn script_turn(v: Value) -> ScriptTurn {
    serde_json::from_value(v).unwrap()
}

/// Each of `calls` executed without error in 1 ms, its result
/// "NAME ran": what a driver hands the state machine after a tool turn.
pub fn executed(calls: &[ToolCall]) -> Vec<ToolExecution> {
    calls
        .iter()
        .map(|c| ToolExecution {
            result: ToolResult {
                id: c.id.clone(),
                content: format!("{} ran", c.name),
                is_error: false,
            },
            duration: Duration::from_millis(1),
        })
        .collect()
}

/// A tool that counts its executions, optionally sleeping first.
pub struct Counter {
    /// The tool's name.
    pub name: &'static str,
    /// Executions so far.
    pub count: Arc<AtomicUsize>,
    /// How long each execution sleeps first.
    pub sleep: Duration,
}

impl Counter {
    /// A counter named `name` that does not sleep, and its count.
    pub fn new(name: &'static str) -> (Self, Arc<AtomicUsize>) {
        let count = Arc::new(AtomicUsize::new(0));
        (
            Counter {
                name,
                count: count.clone(),
                sleep: Duration::ZERO,
            },
            count,
        )
    }
}

impl Tool for Counter {
    fn name(&self) -> &str {
        self.name
    }
    fn description(&self) -> &str {
        "counts its calls"
    }
    fn parameters(&self) -> Value {
        json!({"type": "object", "properties": {"q": {"type": "string"}}, "additionalProperties": false})
    }
    fn call(&self, _args: Value) -> BoxFuture<'_, Result<ToolOutput, ToolError>> {
        Box::pin(async move {
            self.count.fetch_add(1, Ordering::SeqCst);
            if !self.sleep.is_zero() {
                tokio::time::sleep(self.sleep).await;
            }
            Ok(ToolOutput::Text("counted".into()))
        })
    }
}

/// A type whose `Deserialize` refuses what its derived schema admits (an
/// odd `n`), like a custom or `try_from` deserialiser would.
#[derive(Debug, schemars::JsonSchema, PartialEq)]
pub struct Even {
    /// Must be even.
    pub n: u32,
}

impl<'de> serde::Deserialize<'de> for Even {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        #[derive(serde::Deserialize)]
        struct Raw {
            n: u32,
        }
        let raw = Raw::deserialize(d)?;
        if raw.n % 2 == 0 {
            Ok(Even { n: raw.n })
        } else {
            Err(serde::de::Error::custom("n must be even"))
        }
    }
}

/// A scripted backend whose n-th call (1-based) takes `slow` before it
/// answers: a model call that the run deadline cuts.
pub struct SlowOnCall {
    inner: Arc<ScriptedBackend>,
    slow_call: usize,
    slow: Duration,
    calls: AtomicUsize,
}

impl SlowOnCall {
    /// `inner`, whose call number `slow_call` (1-based) first sleeps `slow`.
    pub fn new(inner: Arc<ScriptedBackend>, slow_call: usize, slow: Duration) -> Self {
        SlowOnCall {
            inner,
            slow_call,
            slow,
            calls: AtomicUsize::new(0),
        }
    }

    /// How many calls it was asked.
    /// A turn calling the tools `calls` (name, arguments), ids `c0`, `c1`, ….
    pub fn calls(&self) -> usize {
        self.calls.load(Ordering::SeqCst)
    }
}

impl Backend for SlowOnCall {
    fn info(&self) -> tribunal_runtime::BackendInfo<'_> {
        self.inner.info()
    }
    fn complete<'a>(
        &'a self,
        request: &'a tribunal_runtime::ModelRequest,
    ) -> BoxFuture<'a, Result<ModelTurn, tribunal_runtime::BackendError>> {
        Box::pin(async move {
            if self.calls.fetch_add(1, Ordering::SeqCst) + 1 == self.slow_call {
                tokio::time::sleep(self.slow).await;
            }
            self.inner.complete(request).await
        })
    }
}
