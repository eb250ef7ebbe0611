//! How many heap allocations one run makes: a binary of its own, because it
//! counts through its own global allocator.
//!
//! 10,000 runs in flight are bounded by the allocator, not by the loop's
//! arithmetic: on glibc's malloc, a block freed on another worker thread than
//! the one that made it can take that thread's arena lock (BENCHMARKS.md,
//! "Fifth look"). So the count of a typical run is held here, the way
//! `a_run_in_flight_holds_a_small_future` holds its size. When a change (or a
//! dependency update) moves it, measure `in_flight` again before raising a
//! limit.
//!
//! The counts are the process's, so the binary holds one test: while it
//! counts, no other test runs and the harness's own thread only waits.
#![allow(clippy::unwrap_used)]

use stats_alloc::{INSTRUMENTED_SYSTEM, Region, StatsAlloc};
use std::alloc::System;
use std::time::Duration;

/// The `in_flight` load check, whose run this test counts.
#[path = "../examples/in_flight/load.rs"]
#[allow(dead_code)]
mod load;

use load::Shared;

/// The system allocator, counting.
#[global_allocator]
static COUNTING: &StatsAlloc<System> = &INSTRUMENTED_SYSTEM;

/// Counts the allocations and reallocations of one run (not of building its
/// agent) on a current-thread runtime, where the run, its tool's task and the
/// timers all live.
fn count_one_run(shared: &Shared) -> (usize, usize) {
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    // One run first: the runtime warms its own structures on its first task
    // and timer, and the schema and the tools' specs are built once.
    assert!(
        rt.block_on(shared.agent(Duration::ZERO).run("go"))
            .report
            .is_ok()
    );
    let agent = shared.agent(Duration::ZERO);
    let region = Region::new(COUNTING);
    let run = rt.block_on(agent.run("go"));
    let counted = region.change();
    assert!(run.report.is_ok(), "{:?}", run.report.outcome);
    (counted.allocations, counted.reallocations)
}

/// Counts the allocations of building one scripted agent.
fn count_one_agent(shared: &Shared) -> usize {
    drop(shared.agent(Duration::ZERO));
    let region = Region::new(COUNTING);
    let agent = shared.agent(Duration::ZERO);
    let counted = region.change();
    drop(agent);
    counted.allocations
}

#[test]
fn a_tool_run_and_its_agent_allocate_little_and_never_grow_in_place() {
    let shared = Shared::new();
    let (allocations, reallocations) = count_one_run(&shared);
    // Before this test: 39 and one reallocation. Since, a turn whose calls
    // repeat none allocates no flags (one fewer), and the conversation grows
    // into a fresh buffer (one more, and no reallocation). A dependency
    // update may move it by a few.
    assert!(
        allocations <= 39,
        "one run with a tool call made {allocations} allocations"
    );
    // glibc's `realloc` takes the arena lock of the thread that made the
    // block, bypassing the per-thread cache, and a run's conversation is
    // usually grown on another worker than the one that made it.
    assert_eq!(
        reallocations, 0,
        "one run with a tool call grew {reallocations} blocks in place"
    );
    // The mock runner builds an agent per run: the script's turns (5), its
    // steps (2) and the backend. 10 when the backend's name and model were
    // owned strings.
    let allocations = count_one_agent(&shared);
    assert!(
        allocations <= 8,
        "building an agent made {allocations} allocations"
    );
}
