//! How many heap allocations one run makes: a binary of its own, because it
//! counts through its own global allocator.
//!
//! 10,000 runs in flight are bounded by the allocator, not by the loop's
//! arithmetic: on glibc's malloc, a block freed on another worker thread than
//! the one that made it can take that thread's arena lock (BENCHMARKS.md,
//! "Fifth look"). So the count of a typical run is held here, the way
//! `a_run_in_flight_holds_a_small_future` holds its size. When a change (or a
//! dependency update) moves it, measure `in_flight` again before raising a
//! limit.
//!
//! The counts are the process's, so the binary holds one test: while it
//! counts, no other test runs and the harness's own thread only waits.
#![allow(clippy::unwrap_used)]

use futures::future::BoxFuture;
use serde_json::{Value, json};
use stats_alloc::{INSTRUMENTED_SYSTEM, Region, StatsAlloc};
use std::alloc::System;
use std::sync::Arc;
use tribunal_runtime::backend::ScriptedBackend;
use tribunal_runtime::conversation::{ModelTurn, StopReason, ToolCall};
use tribunal_runtime::{Agent, Backend, OutputSchema, Tool, ToolBox, ToolError, ToolOutput};

/// The system allocator, counting.
#[global_allocator]
static COUNTING: &StatsAlloc<System> = &INSTRUMENTED_SYSTEM;

/// A tool that answers at once, in its own task as a tool does by default.
struct Echo;

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

/// The schema and tools every run shares, as in the `in_flight` load check.
struct Shared {
    schema: Arc<OutputSchema>,
    tools: Arc<ToolBox>,
}

impl Shared {
    fn new() -> Shared {
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

    /// An agent for one run of the load check: one tool call, then the answer.
    fn agent(&self) -> Agent {
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
                    text: r#"{"n": 1}"#.into(),
                    ..Default::default()
                },
            ])
            .without_request_log(),
        );
        Agent::new(backend, self.schema.clone())
            .unwrap()
            .with_tools(self.tools.clone())
    }
}

/// Counts the allocations and reallocations of one run (not of building its
/// agent) on a current-thread runtime, where the run, its tool's task and the
/// timers all live.
fn count_one_run(shared: &Shared) -> (usize, usize) {
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    // One run first: the runtime warms its own structures on its first task
    // and timer, and the schema and the tools' specs are built once.
    assert!(rt.block_on(shared.agent().run("go")).report.is_ok());
    let agent = shared.agent();
    let region = Region::new(COUNTING);
    let run = rt.block_on(agent.run("go"));
    let counted = region.change();
    assert!(run.report.is_ok(), "{:?}", run.report.outcome);
    (counted.allocations, counted.reallocations)
}

/// Counts the allocations of building one scripted agent.
fn count_one_agent(shared: &Shared) -> usize {
    drop(shared.agent());
    let region = Region::new(COUNTING);
    let agent = shared.agent();
    let counted = region.change();
    drop(agent);
    counted.allocations
}

#[test]
fn a_tool_run_and_its_agent_allocate_little_and_never_grow_in_place() {
    let shared = Shared::new();
    let (allocations, reallocations) = count_one_run(&shared);
    // Before this test: 39 and one reallocation. Since, a turn whose calls
    // repeat none allocates no flags (one fewer), and the conversation grows
    // into a fresh buffer (one more, and no reallocation). A dependency
    // update may move it by a few.
    assert!(
        allocations <= 39,
        "one run with a tool call made {allocations} allocations"
    );
    // glibc's `realloc` takes the arena lock of the thread that made the
    // block, bypassing the per-thread cache, and a run's conversation is
    // usually grown on another worker than the one that made it.
    assert_eq!(
        reallocations, 0,
        "one run with a tool call grew {reallocations} blocks in place"
    );
    // The mock runner builds an agent per run: the script's turns (5), its
    // steps (2) and the backend. 10 when the backend's name and model were
    // owned strings.
    let allocations = count_one_agent(&shared);
    assert!(
        allocations <= 8,
        "building an agent made {allocations} allocations"
    );
}
