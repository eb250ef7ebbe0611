//! The smallest embedding: the agent loop, a typed tool and a typed answer
//! on the scripted backend, with no HTTP stack at all. It builds with
//! `tribunal-runtime`'s default features off:
//!
//! ```sh
//! cargo run -p tribunal-runtime --no-default-features --example minimal
//! ```
//!
//! A real embedder replaces the scripted backend with its own `Backend`
//! implementation, or turns on `openai` / `anthropic` for ours.

use serde::Deserialize;
use serde_json::json;
use std::sync::Arc;
use tribunal_runtime::{Agent, Backend, ToolBox, tool_fn};
use tribunal_runtime::{ScriptTurn, ScriptedBackend};

/// The answer: a sum.
#[derive(Debug, Deserialize, schemars::JsonSchema)]
struct Sum {
    /// The total.
    total: i64,
}

/// The arguments of `add`.
#[derive(Debug, Deserialize, schemars::JsonSchema)]
struct AddArgs {
    /// The numbers to add.
    numbers: Vec<i64>,
}

#[tokio::main(flavor = "current_thread")]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let add = tool_fn("add", "Adds numbers.", |args: AddArgs| async move {
        args.numbers
            .iter()
            .try_fold(0i64, |sum, n| sum.checked_add(*n))
            .ok_or("the sum overflows")
    });
    let script: Vec<ScriptTurn> = serde_json::from_value(json!([
        {"tool_calls": [{"name": "add", "arguments": {"numbers": [2, 40]}}]},
        {"json": {"total": 42}}
    ]))?;
    let backend: Arc<dyn Backend> = Arc::new(ScriptedBackend::from_script(&script));
    let agent = Agent::for_type::<Sum>(backend)?.with_tools(ToolBox::new().with(add));
    let (sum, run) = agent.run_typed("What is 2 + 40?").await?;
    let result = run.conversation.messages.iter().find_map(|m| match m {
        tribunal_runtime::Message::ToolResults { results } => results.first(),
        _ => None,
    });
    println!(
        "total {} after {} tool call(s); the tool said {:?}",
        sum.total,
        run.report.tool_calls.len(),
        result.map(|r| r.content.as_str())
    );
    if sum.total != 42 || result.map(|r| r.content.as_str()) != Some("42") {
        return Err("the minimal example went wrong".into());
    }
    Ok(())
}
