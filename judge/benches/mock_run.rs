//! The structured_output arena in mock mode, in process: load (lint, corpus
//! index), run all 15 items, score, render the JSON report. The whole
//! process is measured separately (see BENCHMARKS.md, "Arenas").
#![allow(missing_docs, clippy::unwrap_used, clippy::expect_used)]

use criterion::{Criterion, criterion_group, criterion_main};
use std::path::Path;
use tribunal_judge::{Arena, Report, ReportFormat, RunOptions, Silent};
use tribunal_judge::{Environment, RunPlan};

fn mock_run(c: &mut Criterion) {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../arenas/structured_output");
    let out = tempfile::tempdir().unwrap();
    let options = RunOptions::new(out.path().join("r.jsonl")).with_concurrency(8);
    let rt = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .unwrap();
    c.bench_function("structured_output_load", |b| {
        b.iter(|| Arena::load(&dir).unwrap())
    });
    let arena = Arena::load(&dir).unwrap();
    // The one way an arena runs: planned, prepared, its tools started.
    let prepared = RunPlan::mock()
        .prepare(&arena, &Environment::empty())
        .unwrap();
    let ready = rt.block_on(prepared.start_tools()).unwrap();
    c.bench_function("structured_output_run_and_report", |b| {
        b.iter(|| {
            let result = rt.block_on(ready.run(&options, &Silent)).unwrap();
            Report::from_rows(&arena.name, &result.rows).render(ReportFormat::Json)
        })
    });
}

criterion_group!(benches, mock_run);
criterion_main!(benches);
