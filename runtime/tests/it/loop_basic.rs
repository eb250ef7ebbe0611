//! The loop's main paths: tool call then answer, concurrency of one turn's
//! calls, tool failures contained, refusal, follow-up, typed output.

use futures::future::BoxFuture;
use serde_json::{Value, json};
use std::sync::Arc;
use std::sync::atomic::Ordering;
use std::time::Duration;
use tribunal_runtime::OutputFormat;
use tribunal_runtime::{
    Agent, Backend, ErrorCode, RunOutcome, Tool, ToolBox, ToolError, ToolOutput,
};
use tribunal_runtime::{Message, ModelTurn, StopReason};
use tribunal_testkit::agents::*;

#[tokio::test]
async fn tool_call_then_answer() {
    let backend = script(vec![
        calls(&[("count", json!({"q": "Eiffel Tower"}))]),
        text(&format!("Here it is:\n```json\n{}\n```", eiffel())),
    ]);
    let (tool, count) = Counter::new("count");
    let agent = agent(backend.clone()).with_tools(ToolBox::new().with(tool));
    let run = agent.run("Return the record for Eiffel Tower.").await;

    assert_eq!(run.report.outcome, RunOutcome::Ok { value: eiffel() });
    assert_eq!(count.load(Ordering::SeqCst), 1);
    assert_eq!(run.report.turns, 2);
    assert!(!run.report.repair_used);
    assert_eq!(run.report.tool_calls.len(), 1);
    assert!(run.report.tool_calls[0].ok);
    assert_eq!(
        run.report.extracted_from,
        Some(tribunal_runtime::ExtractedFrom::Fence)
    );
    let requests = backend.requests();
    assert_eq!(requests.len(), 2);
    assert_eq!(
        requests[0].tools.len(),
        1,
        "tools advertised on normal turns"
    );
    assert!(matches!(
        requests[0].output,
        OutputFormat::JsonSchema { .. }
    ));
    match requests[1].conversation.messages.last() {
        Some(Message::ToolResults { results }) => {
            assert_eq!(results[0].id, "c0");
            assert_eq!(results[0].content, "counted");
            assert!(!results[0].is_error);
        }
        other => panic!("expected tool results, got {other:?}"),
    }
    assert_eq!(backend.remaining(), 0);
}

/// Two tools that each wait for the other: they finish only if they run at
/// the same time.
struct Rendezvous(Arc<tokio::sync::Barrier>, &'static str);

impl Tool for Rendezvous {
    fn name(&self) -> &str {
        self.1
    }
    fn description(&self) -> &str {
        "waits for its partner"
    }
    fn parameters(&self) -> Value {
        json!({"type": "object"})
    }
    fn call(&self, _args: Value) -> BoxFuture<'_, Result<ToolOutput, ToolError>> {
        Box::pin(async move {
            self.0.wait().await;
            Ok(ToolOutput::Text("met".into()))
        })
    }
}

#[tokio::test(start_paused = true)]
async fn tools_of_one_turn_run_concurrently() {
    let barrier = Arc::new(tokio::sync::Barrier::new(2));
    let backend = script(vec![
        calls(&[("a", json!({})), ("b", json!({}))]),
        answer(&eiffel()),
    ]);
    let mut tools = ToolBox::new()
        .with(Rendezvous(barrier.clone(), "a"))
        .with(Rendezvous(barrier, "b"));
    tools.default_timeout = Duration::from_secs(1);
    let run = agent(backend).with_tools(tools).run("go").await;
    assert!(run.report.is_ok());
    assert!(
        run.report.tool_calls.iter().all(|c| c.ok),
        "a sequential executor would time out: {:?}",
        run.report.tool_calls
    );
}

struct Panics;
impl Tool for Panics {
    fn name(&self) -> &str {
        "panics"
    }
    fn description(&self) -> &str {
        "always panics"
    }
    fn parameters(&self) -> Value {
        json!({"type": "object"})
    }
    fn call(&self, _args: Value) -> BoxFuture<'_, Result<ToolOutput, ToolError>> {
        Box::pin(async move { panic!("tool bug") })
    }
}

struct Fails;
impl Tool for Fails {
    fn name(&self) -> &str {
        "fails"
    }
    fn description(&self) -> &str {
        "always fails"
    }
    fn parameters(&self) -> Value {
        json!({"type": "object"})
    }
    fn call(&self, _args: Value) -> BoxFuture<'_, Result<ToolOutput, ToolError>> {
        Box::pin(async move { Err(ToolError::new("disk on fire")) })
    }
}

#[tokio::test(start_paused = true)]
async fn every_tool_failure_goes_back_to_the_model_as_an_error_result() {
    let (slow, _) = Counter::new("slow");
    let slow = Counter {
        sleep: Duration::from_secs(60),
        ..slow
    };
    let (count, _) = Counter::new("count");
    let backend = script(vec![
        calls(&[
            ("nope", json!({})),
            ("count", json!({"q": 5})),
            ("panics", json!({})),
            ("fails", json!({})),
            ("slow", json!({})),
        ]),
        ModelTurn {
            tool_calls: vec![tribunal_runtime::ToolCall {
                id: "raw".into(),
                name: "count".into(),
                arguments: "{not json".into(),
            }],
            stop: StopReason::ToolUse,
            ..Default::default()
        },
        answer(&eiffel()),
    ]);
    let mut tools = ToolBox::new()
        .with(count)
        .with(Panics)
        .with(Fails)
        .with(slow);
    tools.default_timeout = Duration::from_secs(2);
    let run = agent(backend.clone()).with_tools(tools).run("go").await;
    assert!(run.report.is_ok(), "{:?}", run.report.outcome);
    assert_eq!(run.report.tool_calls.len(), 6);
    assert!(run.report.tool_calls.iter().all(|c| !c.ok));
    let requests = backend.requests();
    let Some(Message::ToolResults { results }) = requests[1].conversation.messages.last() else {
        panic!("expected tool results");
    };
    let contents: Vec<&str> = results.iter().map(|r| r.content.as_str()).collect();
    assert!(contents[0].contains("unknown tool"), "{contents:?}");
    assert!(contents[1].contains("invalid arguments"), "{contents:?}");
    assert!(contents[2].contains("crashed"), "{contents:?}");
    assert!(contents[3].contains("disk on fire"), "{contents:?}");
    assert!(contents[4].contains("timed out"), "{contents:?}");
    let Some(Message::ToolResults { results }) = requests[2].conversation.messages.last() else {
        panic!("expected tool results");
    };
    assert!(results[0].content.contains("not valid JSON"));
}

/// A tool that runs inline ([`Tool::runs_inline`]), doing `what`, and
/// records the task it was called in.
struct Inline {
    name: &'static str,
    what: InlineDoes,
    task: Arc<std::sync::Mutex<Vec<Option<tokio::task::Id>>>>,
}

#[derive(Clone, Copy)]
enum InlineDoes {
    Answer,
    PanicInCall,
    PanicInFuture,
    Sleep,
}

impl Tool for Inline {
    fn name(&self) -> &str {
        self.name
    }
    fn description(&self) -> &str {
        "runs in the caller's task"
    }
    fn parameters(&self) -> Value {
        json!({"type": "object"})
    }
    fn runs_inline(&self) -> bool {
        true
    }
    fn call(&self, _args: Value) -> BoxFuture<'_, Result<ToolOutput, ToolError>> {
        if let Ok(mut tasks) = self.task.lock() {
            tasks.push(tokio::task::try_id());
        }
        let what = self.what;
        if matches!(what, InlineDoes::PanicInCall) {
            panic!("tool bug before its future");
        }
        Box::pin(async move {
            match what {
                InlineDoes::PanicInFuture => panic!("tool bug in its future"),
                InlineDoes::Sleep => tokio::time::sleep(Duration::from_secs(60)).await,
                InlineDoes::Answer | InlineDoes::PanicInCall => {}
            }
            Ok(ToolOutput::Text("inline".into()))
        })
    }
}

#[tokio::test(start_paused = true)]
async fn an_inline_tool_runs_in_the_runs_task_and_its_failures_are_still_contained() {
    let task = Arc::new(std::sync::Mutex::new(Vec::new()));
    let tool = |name, what| Inline {
        name,
        what,
        task: task.clone(),
    };
    let backend = script(vec![
        calls(&[
            ("answers", json!({})),
            ("panics_in_call", json!({})),
            ("panics_in_future", json!({})),
            ("sleeps", json!({})),
        ]),
        answer(&eiffel()),
    ]);
    let mut tools = ToolBox::new()
        .with(tool("answers", InlineDoes::Answer))
        .with(tool("panics_in_call", InlineDoes::PanicInCall))
        .with(tool("panics_in_future", InlineDoes::PanicInFuture))
        .with(tool("sleeps", InlineDoes::Sleep));
    tools.default_timeout = Duration::from_secs(2);
    let run = agent(backend.clone()).with_tools(tools).run("go").await;
    assert!(run.report.is_ok(), "{:?}", run.report.outcome);
    let requests = backend.requests();
    let Some(Message::ToolResults { results }) = requests[1].conversation.messages.last() else {
        panic!("expected tool results");
    };
    let contents: Vec<&str> = results.iter().map(|r| r.content.as_str()).collect();
    assert_eq!(contents[0], "inline");
    assert!(
        contents[1].contains("the tool panics_in_call crashed"),
        "{contents:?}"
    );
    assert!(
        contents[2].contains("the tool panics_in_future crashed"),
        "{contents:?}"
    );
    assert!(
        contents[3].contains("timed out after 2000 ms"),
        "{contents:?}"
    );
    // The test body is not a task, so a call made in a task of its own
    // would see a task id here.
    let seen = task.lock().map(|t| t.clone()).unwrap_or_default();
    assert_eq!(seen, vec![None; 4], "every call ran in the run's own task");
}

#[tokio::test]
async fn refusal_ends_the_run_without_a_repair() {
    let backend = script(vec![ModelTurn {
        text: "I can't help with that.".into(),
        stop: StopReason::Refusal,
        ..Default::default()
    }]);
    let run = agent(backend.clone()).run("go").await;
    assert_eq!(run.report.outcome.error_code(), Some(ErrorCode::Refused));
    assert!(!run.report.repair_used);
    assert_eq!(backend.requests().len(), 1);
}

#[tokio::test]
async fn backend_failure_is_backend_error() {
    let backend = script(vec![]);
    let run = agent(backend).run("go").await;
    assert_eq!(
        run.report.outcome.error_code(),
        Some(ErrorCode::BackendError)
    );
}

#[tokio::test]
async fn follow_up_is_plain_text_without_schema_or_tools() {
    let backend = script(vec![answer(&eiffel()), text("Because the corpus says so.")]);
    let (tool, _) = Counter::new("count");
    let agent = agent(backend.clone()).with_tools(ToolBox::new().with(tool));
    let mut run = agent.run("go").await;
    assert!(run.report.is_ok());
    let reply = agent
        .follow_up(&mut run.conversation, "Why that height?")
        .await
        .unwrap();
    assert_eq!(reply, "Because the corpus says so.");
    let last = backend.requests().pop().unwrap();
    assert_eq!(last.output, OutputFormat::Text);
    assert!(last.tools.is_empty());
}

#[derive(Debug, serde::Deserialize, schemars::JsonSchema, PartialEq)]
struct Landmark {
    name: String,
    year: i64,
    height_m: f64,
}

#[tokio::test]
async fn typed_output_from_a_rust_type() {
    let backend = script(vec![answer(
        &json!({"name": "CN Tower", "year": 1976, "height_m": 553.3}),
    )]);
    let agent = Agent::for_type::<Landmark>(backend as Arc<dyn Backend>).unwrap();
    let (landmark, _run) = agent.run_typed("CN Tower?").await.unwrap();
    assert_eq!(
        landmark,
        Landmark {
            name: "CN Tower".into(),
            year: 1976,
            height_m: 553.3
        }
    );
}

#[tokio::test]
async fn typed_output_rejects_a_wrong_type_and_repairs() {
    let backend = script(vec![
        answer(&json!({"name": "CN Tower", "year": "1976", "height_m": 553.3})),
        answer(&json!({"name": "CN Tower", "year": 1976, "height_m": 553.3})),
    ]);
    let agent = Agent::for_type::<Landmark>(backend as Arc<dyn Backend>).unwrap();
    let (landmark, run) = agent.run_typed("CN Tower?").await.unwrap();
    assert_eq!(landmark.year, 1976);
    assert!(run.report.repair_used);
}

#[tokio::test]
async fn typed_output_that_does_not_deserialise_gets_the_repair() {
    let backend = script(vec![answer(&json!({"n": 3})), answer(&json!({"n": 4}))]);
    let agent = Agent::for_type::<Even>(backend.clone() as Arc<dyn Backend>).unwrap();
    let (even, run) = agent.run_typed("an even number").await.unwrap();
    assert_eq!(even, Even { n: 4 });
    assert!(run.report.repair_used);
    // The repair message names the type problem (it is what the model reads).
    let repair = backend.requests().pop().unwrap();
    let asked = match repair.conversation.messages.last() {
        Some(Message::User { text }) => text.clone(),
        other => panic!("expected the repair message, got {other:?}"),
    };
    assert!(asked.contains("n must be even"), "{asked}");
}

#[tokio::test]
async fn typed_output_that_never_deserialises_fails_in_the_report_too() {
    let backend = script(vec![answer(&json!({"n": 3})), answer(&json!({"n": 5}))]);
    let agent = Agent::for_type::<Even>(backend as Arc<dyn Backend>).unwrap();
    let failed = agent.run_typed("an even number").await.unwrap_err();
    assert_eq!(failed.code, ErrorCode::SchemaMismatch);
    assert_eq!(
        failed.report.outcome,
        RunOutcome::Error {
            code: ErrorCode::SchemaMismatch
        },
        "the report agrees with the typed result"
    );
    assert!(failed.report.repair_used);
}

struct Huge;
impl Tool for Huge {
    fn name(&self) -> &str {
        "huge"
    }
    fn description(&self) -> &str {
        "returns 10 MB"
    }
    fn parameters(&self) -> Value {
        json!({"type": "object"})
    }
    fn call(&self, _args: Value) -> BoxFuture<'_, Result<ToolOutput, ToolError>> {
        Box::pin(async move { Ok(ToolOutput::Text("é".repeat(5 * 1024 * 1024))) })
    }
}

#[tokio::test]
async fn oversized_tool_output_is_capped_with_a_marker() {
    let backend = script(vec![calls(&[("huge", json!({}))]), answer(&eiffel())]);
    let run = agent(backend.clone())
        .with_tools(ToolBox::new().with(Huge))
        .run("go")
        .await;
    assert!(run.report.is_ok());
    let requests = backend.requests();
    let Some(Message::ToolResults { results }) = requests[1].conversation.messages.last() else {
        panic!("expected tool results");
    };
    let content = &results[0].content;
    assert!(content.len() < 64 * 1024 + 100, "{}", content.len());
    assert!(content.ends_with(&format!(
        "[truncated: {} of {} bytes shown]",
        64 * 1024,
        10 * 1024 * 1024
    )));
}

/// A backend that keeps nothing of a request: it notes the address and
/// length of each request's conversation, then plays its turns.
struct Forgetful {
    turns: std::sync::Mutex<std::collections::VecDeque<ModelTurn>>,
    seen: std::sync::Mutex<Vec<(usize, usize)>>,
}

impl Backend for Forgetful {
    fn info(&self) -> tribunal_runtime::BackendInfo<'_> {
        tribunal_runtime::BackendInfo {
            name: "forgetful",
            model: "m",
            plan: tribunal_runtime::OutputPlan::native(tribunal_runtime::SchemaTarget::Plain),
        }
    }
    fn complete<'a>(
        &'a self,
        request: &'a tribunal_runtime::ModelRequest,
    ) -> BoxFuture<'a, Result<ModelTurn, tribunal_runtime::BackendError>> {
        let address = Arc::as_ptr(&request.conversation) as usize;
        let len = request.conversation.messages.len();
        self.seen.lock().unwrap().push((address, len));
        let turn = self.turns.lock().unwrap().pop_front().unwrap_or_default();
        Box::pin(async move { Ok(turn) })
    }
}

/// Requests share the run's conversation instead of copying it, and the
/// loop grows it in place once the backend has let go of the request: the
/// same conversation (one address) is seen growing over every turn.
#[tokio::test]
async fn the_conversation_is_shared_with_requests_not_copied() {
    let backend = Arc::new(Forgetful {
        turns: std::sync::Mutex::new(
            [
                calls(&[("count", json!({"q": "a"}))]),
                calls(&[("count", json!({"q": "b"}))]),
                text(&eiffel().to_string()),
            ]
            .into(),
        ),
        seen: Default::default(),
    });
    let (tool, _) = Counter::new("count");
    let agent = Agent::new(
        backend.clone() as Arc<dyn Backend>,
        Arc::new(landmark_schema()),
    )
    .unwrap()
    .with_tools(ToolBox::new().with(tool));
    let run = agent.run("go").await;
    assert!(run.report.is_ok(), "{:?}", run.report.outcome);
    let seen = backend.seen.lock().unwrap().clone();
    let lengths: Vec<usize> = seen.iter().map(|(_, len)| *len).collect();
    assert_eq!(lengths, [1, 3, 5]);
    assert!(
        seen.iter().all(|(address, _)| *address == seen[0].0),
        "the conversation was copied between turns: {seen:?}"
    );
}

#[tokio::test]
async fn a_scripted_backend_without_its_request_log_keeps_no_request() {
    let backend = Arc::new(
        tribunal_runtime::ScriptedBackend::from_turns([
            calls(&[("count", json!({"q": "a"}))]),
            text(&eiffel().to_string()),
        ])
        .without_request_log(),
    );
    let (tool, count) = Counter::new("count");
    let agent = agent(backend.clone()).with_tools(ToolBox::new().with(tool));
    let run = agent.run("go").await;
    assert!(run.report.is_ok());
    assert_eq!(count.load(Ordering::SeqCst), 1);
    assert_eq!(backend.remaining(), 0);
    assert!(backend.requests().is_empty());
}

/// A tool (in a task of its own) that finishes after a minute.
struct Finishes(Arc<std::sync::atomic::AtomicBool>);

impl Tool for Finishes {
    fn name(&self) -> &str {
        "finishes"
    }
    fn description(&self) -> &str {
        "takes a minute"
    }
    fn parameters(&self) -> Value {
        json!({"type": "object"})
    }
    fn call(&self, _args: Value) -> BoxFuture<'_, Result<ToolOutput, ToolError>> {
        Box::pin(async move {
            tokio::time::sleep(Duration::from_secs(60)).await;
            self.0.store(true, Ordering::SeqCst);
            Ok(ToolOutput::Text("done".into()))
        })
    }
}

#[tokio::test(start_paused = true)]
async fn a_tool_cut_by_the_run_deadline_stops_with_the_run() {
    let finished = Arc::new(std::sync::atomic::AtomicBool::new(false));
    let backend = script(vec![calls(&[("finishes", json!({}))])]);
    let mut tools = ToolBox::new().with(Finishes(finished.clone()));
    tools.default_timeout = Duration::from_secs(600);
    let run = agent(backend)
        .with_tools(tools)
        .with_budget(tribunal_runtime::Budget {
            deadline: Some(Duration::from_secs(5)),
            ..Default::default()
        })
        .run("go")
        .await;
    assert_eq!(
        run.report.outcome.error_code(),
        Some(ErrorCode::DeadlineExceeded)
    );
    // Long past the tool's minute: a detached task would have finished.
    tokio::time::sleep(Duration::from_secs(300)).await;
    assert!(
        !finished.load(Ordering::SeqCst),
        "the tool's task was aborted"
    );
}

#[test]
fn a_run_in_flight_holds_a_small_future() {
    // Every run in flight is one such future (in its task, in an embedder's
    // join set): 888 bytes when `run` nested three `async fn`s and every
    // await held a timer of its own.
    let agent = agent(script(vec![answer(&eiffel())]));
    let run = agent.run("go");
    let size = std::mem::size_of_val(&run);
    assert!(size <= 720, "a run's future is {size} bytes");
}
