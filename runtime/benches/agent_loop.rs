//! Loop overhead: one full scripted run (one tool call, final answer extracted
//! and validated), and 10,000 runs in flight at once with 50 ms of simulated
//! model latency per call.
#![allow(missing_docs, clippy::unwrap_used)]

use criterion::{Criterion, criterion_group, criterion_main};
use serde_json::json;
use std::sync::Arc;
use std::time::Duration;
use tribunal_runtime::ModelTurn;
use tribunal_runtime::ScriptedBackend;
use tribunal_runtime::{Agent, Backend, OutputSchema, ToolBox};
use tribunal_testkit::agents::{answer, calls, eiffel, landmark_schema};
use tribunal_testkit::wire::Search;

fn schema() -> Arc<OutputSchema> {
    Arc::new(landmark_schema())
}

/// One search, then the record.
fn turns() -> Vec<ModelTurn> {
    vec![
        calls(&[("search", json!({"query": "Eiffel Tower"}))]),
        answer(&eiffel()),
    ]
}

fn one_run(c: &mut Criterion) {
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    let schema = schema();
    let tools = Arc::new(ToolBox::new().with(Search));
    c.bench_function("loop/one_scripted_run", |b| {
        b.to_async(&rt).iter(|| {
            let backend: Arc<dyn Backend> =
                Arc::new(ScriptedBackend::from_turns(turns()).without_request_log());
            let agent = Agent::new(backend, schema.clone())
                .unwrap()
                .with_tools(tools.clone());
            async move {
                let run = agent.run("Return the record for Eiffel Tower.").await;
                assert!(run.report.is_ok());
            }
        })
    });
}

fn ten_thousand_in_flight(c: &mut Criterion) {
    let rt = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .unwrap();
    let schema = schema();
    let tools = Arc::new(ToolBox::new().with(Search));
    let mut group = c.benchmark_group("loop");
    group.sample_size(10);
    group.bench_function("10k_runs_50ms_latency", |b| {
        b.to_async(&rt).iter(|| {
            let schema = schema.clone();
            let tools = tools.clone();
            async move {
                let handles: Vec<_> = (0..10_000)
                    .map(|_| {
                        let backend: Arc<dyn Backend> = Arc::new(
                            ScriptedBackend::from_turns(turns())
                                .with_latency(Duration::from_millis(50))
                                .without_request_log(),
                        );
                        let agent = Agent::new(backend, schema.clone())
                            .unwrap()
                            .with_tools(tools.clone());
                        tokio::spawn(async move { agent.run("go").await.report.is_ok() })
                    })
                    .collect();
                for h in handles {
                    assert!(h.await.unwrap());
                }
            }
        })
    });
    group.finish();
}

criterion_group!(benches, one_run, ten_thousand_in_flight);
criterion_main!(benches);
