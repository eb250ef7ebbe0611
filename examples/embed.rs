//! Embedding tribunal: a tool-using agent whose answer is a typed Rust value.
//!
//! Runs offline with the scripted backend; swap in a live backend
//! (`tribunal::runtime::backend::connect`) for a real model.
//!
//! ```sh
//! cargo run --example embed
//! ```

use futures::future::BoxFuture;
use serde::Deserialize;
use serde_json::{Value, json};
use std::sync::Arc;
use tribunal::runtime::backend::{ScriptTurn, ScriptedBackend};
use tribunal::runtime::{Agent, Backend, Budget, Run, Tool, ToolBox, ToolError, ToolOutput};

/// The answer we want: derived into a JSON Schema with `schemars`, validated
/// by the loop, deserialised into this type.
#[derive(Debug, Deserialize, schemars::JsonSchema, PartialEq)]
pub struct Landmark {
    /// The landmark's name.
    pub name: String,
    /// Year of completion.
    pub year: i32,
    /// Height in metres.
    pub height_m: f64,
}

/// A tool the model can call: looks a landmark up in a tiny table.
struct Lookup;

impl Tool for Lookup {
    fn name(&self) -> &str {
        "lookup"
    }
    fn description(&self) -> &str {
        "Look up facts about a landmark by name."
    }
    fn parameters(&self) -> Value {
        json!({
            "type": "object",
            "properties": {"name": {"type": "string"}},
            "required": ["name"],
            "additionalProperties": false
        })
    }
    fn call(&self, args: Value) -> BoxFuture<'_, Result<ToolOutput, ToolError>> {
        Box::pin(async move {
            match args["name"].as_str() {
                Some("CN Tower") => Ok(ToolOutput::Text("CN Tower: completed 1976, 553 m".into())),
                Some(other) => Err(ToolError::new(format!("no entry for {other}"))),
                None => Err(ToolError::new("name must be a string")),
            }
        })
    }
}

/// Builds the agent, runs it, and returns the typed answer with its run.
pub async fn demo() -> Result<(Landmark, Run), Box<dyn std::error::Error>> {
    // A scripted model: one tool call, then the answer. A live backend would
    // produce these turns itself.
    let script: Vec<ScriptTurn> = serde_json::from_value(json!([
        {"tool_calls": [{"name": "lookup", "arguments": {"name": "CN Tower"}}]},
        {"json": {"name": "CN Tower", "year": 1976, "height_m": 553.0}}
    ]))?;
    let backend: Arc<dyn Backend> = Arc::new(ScriptedBackend::from_script(&script));

    let agent = Agent::for_type::<Landmark>(backend)?
        .with_system("Answer with the landmark's record. Use the lookup tool.")
        .with_tools(ToolBox::new().with(Lookup))
        .with_budget(Budget {
            max_tool_calls: Some(4),
            max_tokens: Some(20_000),
            ..Budget::default()
        });

    let (landmark, run) = agent.run_typed("Return the record for CN Tower.").await?;
    println!(
        "{landmark:?} in {} turn(s), {} tool call(s)",
        run.report.turns,
        run.report.tool_calls.len()
    );
    Ok((landmark, run))
}

#[tokio::main(flavor = "current_thread")]
#[allow(dead_code)]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    demo().await?;
    Ok(())
}
