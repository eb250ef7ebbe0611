//! Embedding tribunal: a tool-using agent whose answer is a typed Rust value.
//!
//! The tool is a typed closure (`tool_fn`): its arguments are a Rust type
//! whose schema is derived. Runs offline with the scripted backend, or on a
//! live OpenAI-compatible server:
//!
//! ```sh
//! cargo run --example embed
//! OPENAI_BASE_URL=http://127.0.0.1:8080/v1 OPENAI_API_KEY=sk-local cargo run --example embed -- --live MODEL
//! cargo run --example embed -- --stream     # the same run as a stream of events
//! ```
//!
//! `tests/cassettes/embed.qwen.jsonl` is such a live run (llama.cpp, Qwen2.5-Coder-0.5B), recorded
//! with `--record` and replayed by `cargo test`:
//!
//! ```sh
//! cargo run --example embed -- --live qwen --record tests/cassettes/embed.qwen.jsonl
//! ```

use serde::Deserialize;
use serde_json::json;
use std::sync::Arc;
use tribunal::runtime::tool_fn;
use tribunal::runtime::{Agent, Backend, Budget, Run, RunEvent, Tool, ToolBox};
use tribunal::runtime::{ScriptTurn, ScriptedBackend};

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

// [readme:typed]
/// The arguments of the lookup tool: its parameter schema is derived from
/// this type (doc comments become descriptions) and compiled for each
/// provider, so the tool can be offered in strict mode.
#[derive(Debug, Deserialize, schemars::JsonSchema)]
pub struct LookupArgs {
    /// The landmark's name, e.g. "CN Tower".
    pub name: String,
    /// Only these facts ("year", "height"); every fact when left out.
    pub only: Option<Vec<String>>,
}

/// A tool the model can call: looks a landmark up in a tiny table.
pub fn lookup() -> impl Tool {
    tool_fn(
        "lookup",
        "Look up facts about a landmark by name.",
        |args: LookupArgs| async move {
            if args.name != "CN Tower" {
                return Err(format!("no entry for {}", args.name));
            }
            let wants = |fact: &str| {
                args.only
                    .as_ref()
                    .is_none_or(|o| o.iter().any(|f| f == fact))
            };
            let facts: Vec<&str> = [("year", "completed 1976"), ("height", "553 m")]
                .into_iter()
                .filter(|(fact, _)| wants(fact))
                .map(|(_, text)| text)
                .collect();
            Ok(format!("CN Tower: {}", facts.join(", ")))
        },
    )
}
// [/readme:typed]

/// The scripted model the demo runs on: one tool call, then the answer. A
/// live backend produces these turns itself.
pub fn scripted() -> Result<Arc<dyn Backend>, Box<dyn std::error::Error>> {
    let script: Vec<ScriptTurn> = serde_json::from_value(json!([
        {"tool_calls": [{"name": "lookup", "arguments": {"name": "CN Tower"}}]},
        {"json": {"name": "CN Tower", "year": 1976, "height_m": 553.0}}
    ]))?;
    Ok(Arc::new(ScriptedBackend::from_script(&script)))
}

/// Builds the agent on the scripted model, runs it, and returns the typed
/// answer with its run.
pub async fn demo() -> Result<(Landmark, Run), Box<dyn std::error::Error>> {
    demo_on(scripted()?).await
}

// [readme:agent]
/// The agent: a typed answer, the lookup tool, budgets.
pub fn agent(backend: Arc<dyn Backend>) -> Result<Agent<Landmark>, Box<dyn std::error::Error>> {
    Ok(Agent::for_type::<Landmark>(backend)?
        .with_system("Answer with the landmark's record. Use the lookup tool.")
        .with_tools(ToolBox::new().with(lookup()))
        // The record must come from the tool: a small model offered the
        // answer tool at once answers from memory (LIVE.md).
        .with_tool_required_first(true)
        .with_budget(Budget {
            max_tool_calls: Some(4),
            max_tokens: Some(20_000),
            ..Budget::default()
        }))
}
// [/readme:agent]

/// The same agent on any backend.
pub async fn demo_on(
    backend: Arc<dyn Backend>,
) -> Result<(Landmark, Run), Box<dyn std::error::Error>> {
    let (landmark, run) = agent(backend)?
        .run_typed("Return the record for CN Tower.")
        .await?;
    println!(
        "{landmark:?} in {} turn(s), {} tool call(s)",
        run.report.turns,
        run.report.tool_calls.len()
    );
    Ok((landmark, run))
}

/// The same run as a stream of events: the answer is printed as the model
/// writes it (text, or the answer tool's arguments under the tool
/// strategy), each tool call as it runs. Returns the answer, the run, and
/// everything the deltas added up to.
pub async fn stream_demo_on(
    backend: Arc<dyn Backend>,
) -> Result<(Landmark, Run, String), Box<dyn std::error::Error>> {
    use futures::StreamExt;
    use std::io::Write;
    let agent = agent(backend)?;
    // [readme:stream]
    let mut events = agent.run_stream("Return the record for CN Tower.");
    let mut streamed = String::new();
    while let Some(event) = events.next().await {
        match event {
            RunEvent::TextDelta(piece)
            | RunEvent::ToolArgumentsDelta {
                fragment: piece, ..
            } => {
                print!("{piece}");
                std::io::stdout().flush()?;
                streamed.push_str(&piece);
            }
            RunEvent::ToolCalls(calls) => println!("  [{} tool call(s) run]", calls.len()),
            RunEvent::ToolResult { result, .. } => println!("  [result: {}]", result.content),
            RunEvent::Finished(run) => {
                let value = run.report.outcome.value().ok_or("the run failed")?;
                let landmark = Landmark::deserialize(value)?;
                println!("\n{landmark:?} in {} turn(s)", run.report.turns);
                return Ok((landmark, *run, streamed));
            }
            _ => {}
        }
    }
    // [/readme:stream]
    Err("the stream ended without the run".into())
}

/// `cargo run --example embed` runs on the scripted model; `cargo run
/// --example embed -- --live MODEL [--record CASSETTE]` on any
/// OpenAI-compatible server (`OPENAI_BASE_URL`, `OPENAI_API_KEY` from the
/// environment), recording the exchange if asked.
#[tokio::main(flavor = "current_thread")]
#[allow(dead_code)]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    use tribunal::runtime::{BackendKind, BackendOptions, connect};
    let args: Vec<String> = std::env::args().skip(1).collect();
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let live = |model: &str, record: Option<&str>| {
        let options = BackendOptions {
            record: record.map(Into::into),
            ..BackendOptions::default()
        };
        connect(BackendKind::OpenAiChat, model, &options)
    };
    let (stream, args) = match args.split_last() {
        Some((&"--stream", rest)) => (true, rest),
        _ => (false, args.as_slice()),
    };
    let backend = match args {
        [] => scripted()?,
        ["--live", model] => live(model, None)?,
        ["--live", model, "--record", path] => live(model, Some(path))?,
        _ => return Err("usage: embed [--live MODEL [--record CASSETTE]] [--stream]".into()),
    };
    if stream {
        stream_demo_on(backend).await?;
    } else {
        demo_on(backend).await?;
    }
    Ok(())
}
