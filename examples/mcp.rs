//! An agent with the tools of an MCP server reached over stdio.
//!
//! ```sh
//! cargo run --example mcp -- PROGRAM [ARGS…]     # any MCP server that lists an `add` tool
//! cargo build && cargo run --example mcp -- target/debug/tribunal-mcp-fixture
//! ```
//!
//! The model here is scripted (it calls `add`, then answers with the sum);
//! the server and its tool are real. `tests/it/example.rs` runs it against
//! the fixture server.

use serde_json::json;
use std::sync::Arc;
use std::time::Duration;
use tribunal::runtime::{Agent, Backend, OutputSchema, Run, ToolBox};
use tribunal::runtime::{ScriptTurn, ScriptedBackend};
use tribunal::tools::mcp::{McpCommand, McpServer};

/// Starts `program args…` as an MCP server, offers its `add` tool to a
/// scripted agent and runs it; returns the run.
pub async fn demo(program: &str, args: &[String]) -> Result<Run, Box<dyn std::error::Error>> {
    // [readme:mcp]
    // The server gets only the variables its command names (`pass_env`).
    let calc = McpCommand::new(program).args(args.iter().cloned());
    let server = McpServer::start("calc", &calc, Duration::from_secs(30)).await?;
    // Offer only the tools the task needs: a small model does better.
    let mut tools = ToolBox::new();
    tools.extend(server.tools().into_iter().filter(|t| t.name() == "add"));
    // [/readme:mcp]
    let schema = OutputSchema::new(
        "sum",
        json!({"type": "object", "required": ["sum"], "additionalProperties": false,
               "properties": {"sum": {"type": "integer"}}}),
    )?;
    let agent = Agent::new(scripted()?, Arc::new(schema))?.with_tools(tools);
    Ok(agent.run("What is 1234 + 4321?").await)
}

/// The scripted model: calls `add`, then answers.
fn scripted() -> Result<Arc<dyn Backend>, Box<dyn std::error::Error>> {
    let script: Vec<ScriptTurn> = serde_json::from_value(json!([
        {"tool_calls": [{"name": "add", "arguments": {"a": 1234, "b": 4321}}]},
        {"json": {"sum": 5555}}
    ]))?;
    Ok(Arc::new(ScriptedBackend::from_script(&script)))
}

#[tokio::main(flavor = "current_thread")]
#[allow(dead_code)]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut args = std::env::args().skip(1);
    let program = args.next().ok_or("usage: mcp PROGRAM [ARGS…]")?;
    let run = demo(&program, &args.collect::<Vec<_>>()).await?;
    println!(
        "{:?}, tool calls: {:?}",
        run.report.outcome, run.report.tool_calls
    );
    Ok(())
}
