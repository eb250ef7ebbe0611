//! The cost of one sandboxed command: `true` run by `CommandSandbox::run`
//! (prlimit, then bubblewrap's namespaces and mounts, start to exit, output
//! read) beside `true` run by a plain `std::process::Command`; and 100 of
//! each at once on a multi-threaded runtime.
//!
//! Besides criterion's figures, the bench prints p50/p99 over 200 single
//! runs of each to stderr. Needs bubblewrap (docs/sandbox.md).
#![allow(missing_docs, clippy::unwrap_used)]

use std::time::{Duration, Instant};

use criterion::{Criterion, criterion_group, criterion_main};
use tribunal_tools::shell::{CommandSandbox, SandboxLimits, WorkingFolder};

fn percentiles(label: &str, mut samples: Vec<Duration>) {
    samples.sort();
    let at = |q: f64| samples[((samples.len() - 1) as f64 * q) as usize];
    eprintln!(
        "{label}: p50 {:.2} ms, p99 {:.2} ms over {} runs",
        at(0.5).as_secs_f64() * 1e3,
        at(0.99).as_secs_f64() * 1e3,
        samples.len()
    );
}

fn bench(c: &mut Criterion) {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .unwrap();
    let sandbox = match runtime.block_on(CommandSandbox::detect()) {
        Ok(s) => std::sync::Arc::new(s),
        Err(e) => panic!("{e}"),
    };
    let folder = WorkingFolder::empty_in(&std::env::temp_dir(), "bench").unwrap();
    sandbox.prepare(folder.path()).unwrap();
    let dir = folder.path().to_path_buf();
    let argv = vec!["true".to_string()];
    let limits = SandboxLimits::default();
    let sandboxed = || async {
        let r = sandbox.run(&dir, &argv, &[], &limits).await.unwrap();
        assert_eq!(r.exit_code, Some(0));
    };
    let plain = || {
        let status = std::process::Command::new("true").status().unwrap();
        assert!(status.success());
    };

    let p: Vec<Duration> = (0..200)
        .map(|_| {
            let t = Instant::now();
            plain();
            t.elapsed()
        })
        .collect();
    let s: Vec<Duration> = (0..200)
        .map(|_| {
            let t = Instant::now();
            runtime.block_on(sandboxed());
            t.elapsed()
        })
        .collect();
    percentiles("sandboxed true", s);
    percentiles("plain true", p);

    let mut group = c.benchmark_group("one command");
    group.bench_function("sandboxed true", |b| b.to_async(&runtime).iter(sandboxed));
    group.bench_function("plain true", |b| b.iter(plain));
    group.finish();

    let mut group = c.benchmark_group("100 at once");
    group.sample_size(10);
    group.bench_function("sandboxed true", |b| {
        b.to_async(&runtime)
            .iter(|| futures::future::join_all((0..100).map(|_| sandboxed())))
    });
    group.bench_function("plain true", |b| {
        b.to_async(&runtime).iter(|| async {
            let children = (0..100).map(|_| async {
                let status = tokio::process::Command::new("true").status().await.unwrap();
                assert!(status.success());
            });
            futures::future::join_all(children).await
        })
    });
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
