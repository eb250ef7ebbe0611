//! A run that stops at a file-writing tool until a person approves, across
//! two processes: the first run pauses at the `write_file` call, writes the
//! paused run to `DIR/snapshot.json` and exits; a second invocation reads
//! it, decides, and finishes the run (writing the file if approved).
//!
//! ```sh
//! cargo run -p tribunal-runtime --example approval -- start /tmp/approval
//! cargo run -p tribunal-runtime --example approval -- approve /tmp/approval
//! # or: … -- reject /tmp/approval "not that file"
//! ```
//!
//! The model is scripted, so it runs without a server; a resumed scripted
//! model starts at the turn the run paused after, as a real model would
//! simply be asked the next question.

use serde::{Deserialize, Serialize};
use serde_json::json;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use tribunal_runtime::ScriptedApprover;
use tribunal_runtime::{Agent, Backend, ToolBox, tool_fn};
use tribunal_runtime::{ApprovalPolicy, Decision, ToolPolicy};
use tribunal_runtime::{RunEnd, RunSnapshot};
use tribunal_runtime::{ScriptTurn, ScriptedBackend};

/// The answer: which file the agent saved.
#[derive(Debug, Deserialize, Serialize, schemars::JsonSchema, PartialEq)]
pub struct Saved {
    /// The file's name.
    pub file: String,
    /// Whether the agent believes it was written.
    pub written: bool,
}

/// The arguments of `write_file`.
#[derive(Debug, Deserialize, schemars::JsonSchema)]
struct WriteArgs {
    /// A plain file name (no folders).
    name: String,
    /// What to write.
    text: String,
}

/// What the scripted model does: write a file, then answer.
fn script() -> Result<Vec<ScriptTurn>, serde_json::Error> {
    serde_json::from_value(json!([
        {"tool_calls": [{"name": "write_file", "arguments": {"name": "notes.txt", "text": "approved by a person\n"}}]},
        {"json": {"file": "notes.txt", "written": true}}
    ]))
}

/// The agent: `write_file` (into `dir`, plain names only) asks before it
/// runs; the approver here has no decisions, so the run pauses there.
fn agent(dir: &Path, script: &[ScriptTurn]) -> Result<Agent<Saved>, Box<dyn std::error::Error>> {
    let root = dir.to_path_buf();
    let write_file = tool_fn(
        "write_file",
        "Writes a text file.",
        move |args: WriteArgs| {
            let root = root.clone();
            async move {
                let plain = !args.name.is_empty()
                    && !args.name.contains(['/', '\\'])
                    && args.name != ".."
                    && args.name != ".";
                if !plain {
                    return Err(format!("{:?} is not a plain file name", args.name));
                }
                tokio::fs::write(root.join(&args.name), &args.text)
                    .await
                    .map_err(|e| e.to_string())?;
                Ok(format!("wrote {} bytes to {}", args.text.len(), args.name))
            }
        },
    );
    let backend: Arc<dyn Backend> = Arc::new(ScriptedBackend::from_script(script));
    let policy = ApprovalPolicy::new(ToolPolicy::Auto).with_tool("write_file", ToolPolicy::Ask);
    Ok(Agent::for_type::<Saved>(backend)?
        .with_tools(ToolBox::new().with(write_file))
        .with_approval(policy, Arc::new(ScriptedApprover::new([]))))
}

fn snapshot_path(dir: &Path) -> PathBuf {
    dir.join("snapshot.json")
}

/// The first process: runs until the write waits for a person, and writes
/// the paused run to `dir/snapshot.json`. Returns the calls that wait.
pub async fn start(dir: &Path) -> Result<Vec<String>, Box<dyn std::error::Error>> {
    std::fs::create_dir_all(dir)?;
    let end = agent(dir, &script()?)?.start("Save a note.").await;
    let RunEnd::Paused(snapshot) = end else {
        return Err("the run finished without asking".into());
    };
    std::fs::write(snapshot_path(dir), snapshot.to_json()?)?;
    Ok(snapshot
        .pending_calls()
        .iter()
        .map(|p| format!("{} {}", p.call.name, p.call.arguments))
        .collect())
}

/// The second process: reads the paused run, applies `decision` to the
/// waiting call and finishes the run.
pub async fn finish(
    dir: &Path,
    decision: Decision,
) -> Result<tribunal_runtime::Run, Box<dyn std::error::Error>> {
    let snapshot = RunSnapshot::from_json(&std::fs::read_to_string(snapshot_path(dir))?)?;
    let turn = usize::try_from(snapshot.turns())?;
    let rest = script()?.get(turn..).unwrap_or_default().to_vec();
    let end = agent(dir, &rest)?.resume(snapshot, vec![decision]).await?;
    let Some(finished) = end.finished() else {
        return Err("the run paused again".into());
    };
    std::fs::remove_file(snapshot_path(dir))?;
    Ok(finished)
}

#[tokio::main(flavor = "current_thread")]
#[allow(dead_code)]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let usage = "usage: approval start DIR | approve DIR | reject DIR REASON";
    let (mode, dir) = match (args.first(), args.get(1)) {
        (Some(mode), Some(dir)) => (mode.as_str(), Path::new(dir)),
        _ => return Err(usage.into()),
    };
    match mode {
        "start" => {
            for call in start(dir).await? {
                println!("waiting for approval: {call}");
            }
            println!("paused: {}", snapshot_path(dir).display());
        }
        "approve" | "reject" => {
            let decision = match (mode, args.get(2)) {
                ("approve", _) => Decision::approve(),
                (_, Some(reason)) => Decision::reject(reason.clone()),
                _ => return Err(usage.into()),
            };
            let finished = finish(dir, decision).await?;
            for record in &finished.report.approvals {
                println!(
                    "{} {}: {}",
                    record.tool,
                    record.call_id,
                    record.outcome.as_str()
                );
            }
            println!("{}", serde_json::to_string(&finished.report.outcome)?);
        }
        _ => return Err(usage.into()),
    }
    Ok(())
}
