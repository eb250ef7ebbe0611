//! The structured_output arena in mock mode, in process: load (lint, corpus
//! index), run all 15 items, score, render the JSON report. The whole
//! process is measured separately (see BENCHMARKS.md, "Arenas").
#![allow(missing_docs, clippy::unwrap_used, clippy::expect_used)]

use criterion::{Criterion, criterion_group, criterion_main};
use std::path::Path;
use std::sync::Arc;
use tribunal_judge::{Arena, MockBackends, Report, ReportFormat, RunOptions, Silent, run_arena};

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
    let arena = Arc::new(Arena::load(&dir).unwrap());
    c.bench_function("structured_output_run_and_report", |b| {
        b.iter(|| {
            let result = rt
                .block_on(run_arena(
                    arena.clone(),
                    Arc::new(MockBackends::default()),
                    &options,
                    &Silent,
                ))
                .unwrap();
            Report::from_rows(&arena.name, &result.rows).render(ReportFormat::Json)
        })
    });
}

criterion_group!(benches, mock_run);
criterion_main!(benches);
