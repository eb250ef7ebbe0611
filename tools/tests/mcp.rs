//! MCP tools against a real MCP server process (`tests/support/mcp_server.rs`,
//! rmcp's server side over stdio): listed tools become tools of a run with
//! the same validation, timeouts and error results as built-in ones; a
//! crashed or slow server gives error results, never a hung run.
#![allow(clippy::unwrap_used, clippy::expect_used, missing_docs)]

use serde_json::json;
use std::sync::Arc;
use std::time::Duration;
use tribunal_runtime::{Agent, Backend, OutputSchema, ToolBox};
use tribunal_runtime::{ScriptTurn, ScriptedBackend};
use tribunal_tools::mcp::{McpCommand, McpError, McpServer};

mod mcp_common;
use mcp_common::{START, call, toolbox};

fn fixture() -> McpCommand {
    McpCommand::new(env!("CARGO_BIN_EXE_mcp-test-server"))
}

/// The fixture server, started.
async fn start_fixture() -> McpServer {
    McpServer::start("fixture", &fixture(), START)
        .await
        .unwrap()
}

#[tokio::test]
async fn the_servers_tools_are_listed_with_their_schemas() {
    let server = start_fixture().await;
    let tools = toolbox(&server);
    let names: Vec<String> = tools.specs().into_iter().map(|s| s.name).collect();
    assert_eq!(
        names,
        [
            "add",
            "append_text",
            "crash",
            "echo",
            "env",
            "fail",
            "read_text",
            "sleep"
        ],
        "{names:?}"
    );
    let echo = tools
        .specs()
        .into_iter()
        .find(|s| s.name == "echo")
        .unwrap();
    assert_eq!(echo.description, "Gives the text back.");
    assert_eq!(
        echo.parameters["properties"]["text"]["description"],
        "The text to give back."
    );
}

#[tokio::test]
async fn calls_come_back_as_text_json_or_error_results() {
    let server = start_fixture().await;
    let tools = toolbox(&server);
    let cases = [
        (
            call("echo", json!({"text": "hello"})),
            false,
            "hello".to_string(),
        ),
        (
            call("add", json!({"a": 2, "b": 40})),
            false,
            json!({"sum": 42}).to_string(),
        ),
        (
            call("fail", json!({})),
            true,
            "error: the disk is on fire".to_string(),
        ),
    ];
    for (call, is_error, content) in cases {
        let done = tools.execute(&call).await;
        assert_eq!(
            (done.result.is_error, done.result.content),
            (is_error, content),
            "{call:?}"
        );
    }
    // Arguments are checked against the server's schema before any call.
    let bad = tools
        .execute(&call("add", json!({"a": "two", "b": 1})))
        .await;
    assert!(bad.result.is_error);
    assert!(
        bad.result
            .content
            .starts_with("error: invalid arguments for add"),
        "{}",
        bad.result.content
    );
}

#[tokio::test]
async fn a_server_that_dies_mid_call_gives_error_results_at_once() {
    let server = start_fixture().await;
    let mut tools = toolbox(&server);
    tools.default_timeout = Duration::from_secs(60);
    let crashed = tools.execute(&call("crash", json!({}))).await;
    assert!(crashed.result.is_error);
    assert_eq!(
        crashed.result.content,
        "error: the MCP server fixture is not running"
    );
    // Every later call fails the same way. Neither waited for the 60 s
    // timeout: that would read "timed out after 60000 ms".
    let after = tools
        .execute(&call("echo", json!({"text": "still there?"})))
        .await;
    assert_eq!(
        after.result.content,
        "error: the MCP server fixture is not running"
    );
}

#[tokio::test]
async fn a_slow_call_is_cut_at_its_timeout_and_the_server_goes_on() {
    let server = start_fixture().await;
    let mut tools = toolbox(&server);
    tools.default_timeout = Duration::from_millis(200);
    let slow = tools.execute(&call("sleep", json!({"ms": 5_000}))).await;
    assert_eq!(
        slow.result.content,
        "error: the tool sleep timed out after 200 ms"
    );
    let next = tools.execute(&call("echo", json!({"text": "next"}))).await;
    assert_eq!(
        (next.result.is_error, next.result.content.as_str()),
        (false, "next")
    );
}

#[tokio::test]
async fn the_server_sees_only_the_variables_its_command_names() {
    // The environment the server's variables are read from.
    let env = |name: &str| match name {
        "TRIBUNAL_MCP_TEST_SECRET" => Some("s3cret".into()),
        "TRIBUNAL_MCP_TEST_KEY" => Some("sk-model-key".into()),
        other => std::env::var_os(other),
    };
    let command = fixture().pass_env("TRIBUNAL_MCP_TEST_SECRET");
    let server = McpServer::start_with_env("fixture", &command, START, &env)
        .await
        .unwrap();
    let tools = toolbox(&server);
    let named = tools
        .execute(&call("env", json!({"text": "TRIBUNAL_MCP_TEST_SECRET"})))
        .await;
    assert_eq!(named.result.content, "s3cret");
    let other = tools
        .execute(&call("env", json!({"text": "TRIBUNAL_MCP_TEST_KEY"})))
        .await;
    assert_eq!(other.result.content, "unset");
}

/// Whether process `pid` is gone: not there, or not yet reaped (a zombie
/// counts as there).
fn gone(pid: u32) -> bool {
    !std::path::Path::new(&format!("/proc/{pid}")).exists()
}

/// The process id the fixture wrote in `pids` at start (its only file).
fn started_pid(pids: &std::path::Path) -> u32 {
    let entry = std::fs::read_dir(pids).unwrap().next().unwrap().unwrap();
    entry.file_name().to_str().unwrap().parse().unwrap()
}

#[tokio::test]
async fn a_server_runs_in_its_folder_and_close_stops_and_reaps_it() {
    let folder = tempfile::tempdir().unwrap();
    let pids = tempfile::tempdir().unwrap();
    std::fs::write(folder.path().join("note.txt"), "start").unwrap();
    let pid_dir = pids.path().as_os_str().to_os_string();
    let env = move |name: &str| match name {
        "MCP_FIXTURE_PID_DIR" => Some(pid_dir.clone()),
        other => std::env::var_os(other),
    };
    let command = fixture()
        .current_dir(folder.path())
        .pass_env("MCP_FIXTURE_PID_DIR");
    let server = McpServer::start_with_env("fixture", &command, START, &env)
        .await
        .unwrap();
    let tools = toolbox(&server);
    let append = call("append_text", json!({"path": "note.txt", "text": "+1"}));
    assert_eq!(tools.execute(&append).await.result.content, "appended");
    let read = tools
        .execute(&call("read_text", json!({"path": "note.txt"})))
        .await;
    assert_eq!(read.result.content, "start+1");
    assert_eq!(
        std::fs::read_to_string(folder.path().join("note.txt")).unwrap(),
        "start+1"
    );
    // Nothing outside its folder by a relative path.
    let out = tools
        .execute(&call("read_text", json!({"path": "../x"})))
        .await;
    assert!(out.result.is_error, "{}", out.result.content);
    let pid = started_pid(pids.path());
    assert!(server.is_running() && !gone(pid));
    server.close().await;
    assert!(!server.is_running());
    assert!(gone(pid), "the server {pid} is still there after close");
    let after = tools
        .execute(&call("read_text", json!({"path": "note.txt"})))
        .await;
    assert_eq!(
        after.result.content,
        "error: the MCP server fixture is not running"
    );
}

#[tokio::test]
async fn a_server_that_died_is_not_running() {
    let server = start_fixture().await;
    let tools = toolbox(&server);
    assert!(server.is_running());
    let crashed = tools.execute(&call("crash", json!({}))).await;
    assert!(crashed.result.is_error);
    assert!(!server.is_running());
}

#[tokio::test]
async fn a_program_that_is_not_there_or_not_a_server_fails_to_start_with_a_code() {
    let missing = McpServer::start("ghost", &McpCommand::new("/nonexistent/mcp"), START).await;
    let e = missing.unwrap_err();
    assert_eq!(e.code(), "mcp_spawn", "{e}");
    assert!(
        e.to_string()
            .starts_with("the MCP server ghost could not be started")
    );

    let not_a_server = McpServer::start("cat", &McpCommand::new("true"), START).await;
    assert_eq!(not_a_server.unwrap_err().code(), "mcp_handshake");

    let silent = McpServer::start(
        "sleeper",
        &McpCommand::new("sleep").args(["30"]),
        Duration::from_millis(300),
    )
    .await;
    let silent = silent.unwrap_err();
    assert!(matches!(silent, McpError::StartTimedOut { .. }), "{silent}");
    assert_eq!(silent.code(), "mcp_start_timeout");
}

/// An agent run whose model calls an MCP tool: the result reaches the
/// model like any tool's.
#[tokio::test]
async fn an_agent_calls_an_mcp_tool() {
    let server = start_fixture().await;
    let script: Vec<ScriptTurn> = serde_json::from_value(json!([
        {"tool_calls": [{"name": "add", "arguments": {"a": 40, "b": 2}}]},
        {"json": {"n": 42}}
    ]))
    .unwrap();
    let backend = Arc::new(ScriptedBackend::from_script(&script));
    let schema = OutputSchema::new(
        "answer",
        json!({"type": "object", "required": ["n"], "properties": {"n": {"type": "integer"}},
               "additionalProperties": false}),
    )
    .unwrap();
    let agent = Agent::new(backend.clone() as Arc<dyn Backend>, Arc::new(schema))
        .unwrap()
        .with_tools(toolbox(&server));
    let run = agent.run("What is 40 + 2?").await;
    assert_eq!(run.report.outcome.value(), Some(&json!({"n": 42})));
    assert!(run.report.tool_calls[0].ok);
    let second = &backend.requests()[1];
    let last = second.conversation.messages.last().unwrap();
    assert!(format!("{last:?}").contains("{\\\"sum\\\":42}"), "{last:?}");
}

/// A call still running at the run's deadline ends the run as
/// `deadline_exceeded`, and the server serves the next run.
#[tokio::test]
async fn a_call_past_the_run_deadline_ends_the_run_not_the_server() {
    let server = start_fixture().await;
    let script: Vec<ScriptTurn> = serde_json::from_value(json!([
        {"tool_calls": [{"name": "sleep", "arguments": {"ms": 10_000}}]},
        {"json": {"n": 1}}
    ]))
    .unwrap();
    let backend = Arc::new(ScriptedBackend::from_script(&script));
    let schema = OutputSchema::new("answer", json!({"type": "object"})).unwrap();
    let agent = Agent::new(backend as Arc<dyn Backend>, Arc::new(schema))
        .unwrap()
        .with_tools(toolbox(&server))
        .with_budget(tribunal_runtime::Budget {
            deadline: Some(Duration::from_millis(300)),
            ..tribunal_runtime::Budget::default()
        });
    let run = agent.run("Sleep.").await;
    assert_eq!(
        run.report.outcome.error_code(),
        Some(tribunal_runtime::ErrorCode::DeadlineExceeded),
        "{:?}",
        run.report.outcome
    );
    let tools = toolbox(&server);
    let next = tools.execute(&call("echo", json!({"text": "alive"}))).await;
    assert_eq!(next.result.content, "alive");
}

/// A real model (llama.cpp, Qwen2.5-Coder-0.5B) given the fixture server's
/// tools: it called `add` with the server's own schema, the server's
/// structured result went back, and the answer used it. Replays
/// `tests/cassettes/mcp.qwen.jsonl` (the fixture server still runs: the
/// cassette holds the model's side only). With `TRIBUNAL_LIVE_MODEL` set it
/// records that cassette again against `OPENAI_BASE_URL` (LIVE.md).
#[tokio::test]
async fn a_real_model_calls_an_mcp_tool() {
    use tribunal_runtime::{BackendKind, BackendOptions, connect};
    let cassette = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/cassettes/mcp.qwen.jsonl"
    );
    let live = std::env::var("TRIBUNAL_LIVE_MODEL").ok();
    let options = match &live {
        Some(_) => BackendOptions {
            record: Some(cassette.into()),
            ..BackendOptions::default()
        },
        None => BackendOptions {
            replay: Some(cassette.into()),
            ..BackendOptions::default()
        },
    };
    let model = live.as_deref().unwrap_or("qwen");
    let backend = connect(BackendKind::OpenAiChat, model, &options).unwrap();
    let server = start_fixture().await;
    let schema = OutputSchema::new(
        "sum",
        json!({"type": "object", "required": ["sum"], "properties": {"sum": {"type": "integer"}},
               "additionalProperties": false}),
    )
    .unwrap();
    // Only `add`: offered all six fixture tools, the model wrote its call
    // as text instead of making it (LIVE.md).
    let mut tools = ToolBox::new();
    tools.extend(server.tools().into_iter().filter(|t| t.name() == "add"));
    let agent = Agent::new(backend, Arc::new(schema))
        .unwrap()
        .with_system("Use the add tool to add numbers, then give the sum.")
        .with_tools(tools)
        // Offered the answer tool (listed first) at once, the model answered
        // without calling add (LIVE.md): the sum must come from the tool.
        .with_tool_required_first(true)
        .with_budget(tribunal_runtime::Budget {
            max_tool_calls: Some(3),
            ..tribunal_runtime::Budget::default()
        });
    let run = agent.run("What is 1234 + 4321?").await;
    assert!(run.report.is_ok(), "{:?}", run.report.outcome);
    let add = run
        .report
        .tool_calls
        .iter()
        .find(|c| c.name == "add")
        .expect("the model called add");
    assert!(add.ok, "{add:?}");
    let results: Vec<&str> = run
        .conversation
        .messages
        .iter()
        .filter_map(|m| match m {
            tribunal_runtime::Message::ToolResults { results } => Some(results),
            _ => None,
        })
        .flatten()
        .map(|r| r.content.as_str())
        .collect();
    assert!(results.contains(&"{\"sum\":5555}"), "{results:?}");
    assert_eq!(run.report.outcome.value(), Some(&json!({"sum": 5555})));
}
