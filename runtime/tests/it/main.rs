//! Integration tests of `tribunal-runtime`, one binary with a module per area.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    missing_docs,
    unreachable_pub
)]

/// Points insta at the workspace's `snapshots/runtime/` folder for the rest of
/// the enclosing scope.
#[allow(unused_macros)]
macro_rules! bind_snapshots {
    () => {
        let mut settings = insta::Settings::clone_current();
        settings.set_snapshot_path(concat!(env!("CARGO_MANIFEST_DIR"), "/../snapshots/runtime"));
        settings.set_prepend_module_to_snapshot(false);
        let _snapshot_guard = settings.bind_to_scope();
    };
}

mod approval_resume;
mod approval_trace;
mod backend_cache;
mod backend_loop;
mod backend_prompt_cache;
mod backend_record;
mod backend_retry;
mod backend_support;
mod example_approval;
mod faults;
mod loop_basic;
mod loop_budget;
mod loop_repair;
mod loop_strategy;
mod machine_trace;
mod schema_compile;
mod schema_corpus;
mod schema_decode;
mod schema_fit;
mod schema_satisfiable;
mod streaming;
mod support;
mod tool_typed;
