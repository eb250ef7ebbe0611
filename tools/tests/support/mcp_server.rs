//! The MCP server `tools/tests/mcp.rs` talks to, on rmcp's server side over
//! stdio: a few tools that answer, fail, take their time, or kill the
//! server mid-call.

use rmcp::handler::server::router::tool::ToolRouter;
use rmcp::handler::server::wrapper::Parameters;
use rmcp::model::{CallToolResult, ContentBlock};
use rmcp::{ServiceExt, tool, tool_handler, tool_router};
use serde::Deserialize;
use std::time::Duration;

/// The arguments of `echo`.
#[derive(Deserialize, schemars::JsonSchema)]
struct EchoArgs {
    /// The text to give back.
    text: String,
}

/// The arguments of `add`.
#[derive(Deserialize, schemars::JsonSchema)]
struct AddArgs {
    /// The first term.
    a: i64,
    /// The second term.
    b: i64,
}

/// The arguments of `sleep`.
#[derive(Deserialize, schemars::JsonSchema)]
struct SleepArgs {
    /// How long to sleep, in milliseconds.
    ms: u64,
}

#[derive(Debug, Clone)]
struct Fixture {
    tool_router: ToolRouter<Self>,
}

#[tool_router(router = tool_router)]
impl Fixture {
    #[tool(description = "Gives the text back.")]
    async fn echo(&self, Parameters(args): Parameters<EchoArgs>) -> String {
        args.text
    }

    #[tool(description = "Adds two integers; the result is structured.")]
    async fn add(&self, Parameters(args): Parameters<AddArgs>) -> CallToolResult {
        CallToolResult::structured(serde_json::json!({"sum": args.a.saturating_add(args.b)}))
    }

    #[tool(description = "Always fails.")]
    async fn fail(&self) -> CallToolResult {
        CallToolResult::error(vec![ContentBlock::text("the disk is on fire")])
    }

    #[tool(description = "Sleeps, then says so.")]
    async fn sleep(&self, Parameters(args): Parameters<SleepArgs>) -> String {
        tokio::time::sleep(Duration::from_millis(args.ms)).await;
        format!("slept {} ms", args.ms)
    }

    #[tool(description = "Ends the server process in the middle of the call.")]
    async fn crash(&self) -> String {
        std::process::exit(3)
    }

    #[tool(description = "Names the environment variable's value, if the server has it.")]
    async fn env(&self, Parameters(args): Parameters<EchoArgs>) -> String {
        std::env::var(&args.text).unwrap_or_else(|_| "unset".to_string())
    }
}

#[tool_handler(router = self.tool_router)]
impl rmcp::ServerHandler for Fixture {}

#[tokio::main(flavor = "current_thread")]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let server = Fixture {
        tool_router: Fixture::tool_router(),
    }
    .serve(rmcp::transport::stdio())
    .await?;
    server.waiting().await?;
    Ok(())
}
