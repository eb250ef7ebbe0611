//! The load check's body, shared by `in_flight` (the system allocator), the
//! root package's `in_flight_mimalloc` (the `tribunal` program's allocator)
//! and the runtime's allocation test, which counts one of its runs.
#![allow(clippy::unwrap_used)]

use futures::future::BoxFuture;
use serde_json::Value;
use serde_json::json;
use std::sync::Arc;
use std::time::{Duration, Instant};
use tribunal_runtime::ScriptedBackend;
use tribunal_runtime::{Agent, Backend, OutputSchema, Tool, ToolBox, ToolError, ToolOutput};
use tribunal_runtime::{ModelTurn, StopReason, ToolCall};

/// A tool that answers at once.
pub(crate) struct Echo;

impl Tool for Echo {
    fn name(&self) -> &str {
        "echo"
    }
    fn description(&self) -> &str {
        "echoes"
    }
    fn parameters(&self) -> Value {
        json!({"type": "object", "properties": {"q": {"type": "string"}}})
    }
    fn call(&self, _args: Value) -> BoxFuture<'_, Result<ToolOutput, ToolError>> {
        Box::pin(async { Ok(ToolOutput::Text("[1] Eiffel Tower: 1889, 330 m".into())) })
    }
}

/// What every run of the check shares: the answer schema and the tools.
pub(crate) struct Shared {
    schema: Arc<OutputSchema>,
    tools: Arc<ToolBox>,
}

impl Shared {
    /// The schema (`{"n": integer}`) and the one tool, [`Echo`].
    pub(crate) fn new() -> Shared {
        let schema = OutputSchema::new(
            "answer",
            json!({"type": "object", "required": ["n"], "properties": {"n": {"type": "integer"}}}),
        )
        .unwrap();
        Shared {
            schema: Arc::new(schema),
            tools: Arc::new(ToolBox::new().with(Echo)),
        }
    }

    /// The agent of one run: its own script of one tool call, then the
    /// answer, each model call taking `latency`.
    pub(crate) fn agent(&self, latency: Duration) -> Agent {
        let backend: Arc<dyn Backend> = Arc::new(
            ScriptedBackend::from_turns([
                ModelTurn {
                    tool_calls: vec![ToolCall {
                        id: "c1".into(),
                        name: "echo".into(),
                        arguments: r#"{"q":"Eiffel Tower"}"#.into(),
                    }],
                    stop: StopReason::ToolUse,
                    ..Default::default()
                },
                ModelTurn {
                    text: "{\"n\": 1}".into(),
                    ..Default::default()
                },
            ])
            .with_latency(latency)
            .without_request_log(),
        );
        Agent::new(backend, self.schema.clone())
            .unwrap()
            .with_tools(self.tools.clone())
    }
}

/// Runs the check with the arguments of the process.
pub(crate) fn main() {
    let mut args = std::env::args().skip(1);
    let runs: usize = args.next().and_then(|a| a.parse().ok()).unwrap_or(10_000);
    let latency_ms: u64 = args.next().and_then(|a| a.parse().ok()).unwrap_or(50);
    let rt = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .unwrap();
    let shared = Shared::new();
    let floor = args.next().is_some_and(|a| a == "floor");
    let started = Instant::now();
    let ok = rt.block_on(async {
        if floor {
            let latency = Duration::from_millis(latency_ms);
            let handles: Vec<_> = (0..runs)
                .map(|_| {
                    tokio::spawn(async move {
                        tokio::time::sleep(latency).await;
                        tokio::time::sleep(latency).await;
                        true
                    })
                })
                .collect();
            return join(handles, started.elapsed()).await;
        }
        let latency = Duration::from_millis(latency_ms);
        let handles: Vec<_> = (0..runs)
            .map(|_| {
                let agent = shared.agent(latency);
                tokio::spawn(async move { agent.run("go").await.report.is_ok() })
            })
            .collect();
        join(handles, started.elapsed()).await
    });
    let (ok, spawned) = ok;
    let wall = started.elapsed();
    let ideal = Duration::from_millis(2 * latency_ms);
    let peak = std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| {
            s.lines()
                .find(|l| l.starts_with("VmHWM"))
                .map(|l| l.trim_start_matches("VmHWM:").trim().to_string())
        })
        .unwrap_or_else(|| "unknown".into());
    println!(
        "{ok}/{runs} runs ok; wall {:.1} ms (all spawned after {:.1} ms); ideal {} ms (two model calls); ratio {:.2}; peak RSS {peak}",
        wall.as_secs_f64() * 1000.0,
        spawned.as_secs_f64() * 1000.0,
        ideal.as_millis(),
        wall.as_secs_f64() / ideal.as_secs_f64()
    );
}

/// Waits for every run; returns how many ended well, and `spawned`.
async fn join(handles: Vec<tokio::task::JoinHandle<bool>>, spawned: Duration) -> (usize, Duration) {
    let mut ok = 0;
    for h in handles {
        if h.await.unwrap_or(false) {
            ok += 1;
        }
    }
    (ok, spawned)
}
