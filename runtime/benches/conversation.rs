//! The conversation runner's own overhead: a 10-turn conversation with a
//! scripted agent (each turn one tool call, then a reply) and a scripted
//! user, against the same 10 agent turns as 10 separate single runs.
#![allow(missing_docs, clippy::unwrap_used)]

use criterion::{Criterion, criterion_group, criterion_main};
use serde_json::json;
use std::sync::Arc;
use tribunal_runtime::ModelTurn;
use tribunal_runtime::ScriptedBackend;
use tribunal_runtime::{
    Agent, Backend, DialogueConfig, DialogueEnd, OutputSchema, ScriptLine, ScriptedUser, ToolBox,
};
use tribunal_testkit::agents::{calls, text};
use tribunal_testkit::wire::Search;

const TURNS: usize = 10;

/// One agent turn: a search, then a reply.
fn turn(i: usize) -> [ModelTurn; 2] {
    [
        calls(&[("search", json!({"query": format!("landmark {i}")}))]),
        text(&format!("Here is what I found about landmark {i}.")),
    ]
}

fn conversation(c: &mut Criterion) {
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    let schema = Arc::new(OutputSchema::new("answer", json!({"type": "object"})).unwrap());
    let tools = Arc::new(ToolBox::new().with(Search));
    let lines: Vec<ScriptLine> = (1..TURNS)
        .map(|i| ScriptLine {
            when: None,
            say: format!("And landmark {i}?"),
        })
        .collect();
    let mut group = c.benchmark_group("conversation");
    group.bench_function("ten_turns_scripted", |b| {
        b.to_async(&rt).iter(|| {
            let script: Vec<ModelTurn> = (0..TURNS).flat_map(turn).collect();
            let backend: Arc<dyn Backend> =
                Arc::new(ScriptedBackend::from_turns(script).without_request_log());
            let agent = Agent::new(backend, schema.clone())
                .unwrap()
                .with_tools(tools.clone());
            let user = ScriptedUser::new(lines.clone(), "###STOP###");
            async move {
                let config = DialogueConfig {
                    max_user_turns: TURNS as u32,
                    ..DialogueConfig::default()
                };
                let run = agent
                    .converse(&user, config, Some("Tell me about landmark 0.".into()))
                    .await;
                assert_eq!(run.report.end, DialogueEnd::TurnLimit);
            }
        })
    });
    // The baseline: the same ten agent turns, each a single run (no
    // conversation carried, no user).
    group.bench_function("ten_single_runs_scripted", |b| {
        b.to_async(&rt).iter(|| {
            let agents: Vec<Agent> = (0..TURNS)
                .map(|i| {
                    let backend: Arc<dyn Backend> = Arc::new(
                        ScriptedBackend::from_turns([
                            turn(i)[0].clone(),
                            text(&json!({"n": i}).to_string()),
                        ])
                        .without_request_log(),
                    );
                    Agent::new(backend, schema.clone())
                        .unwrap()
                        .with_tools(tools.clone())
                })
                .collect();
            async move {
                for agent in &agents {
                    assert!(agent.run("Tell me about a landmark.").await.report.is_ok());
                }
            }
        })
    });
    group.finish();
}

criterion_group!(benches, conversation);
criterion_main!(benches);
