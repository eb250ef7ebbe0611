//! Integration tests of `tribunal-runtime`, one binary with a module per area.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    missing_docs,
    unreachable_pub
)]

mod approval_resume;
mod approval_trace;
mod backend_cache;
mod backend_loop;
mod backend_prompt_cache;
mod backend_record;
mod backend_retry;
mod backend_sampling;
mod conversation_trace;
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
mod stream_faults;
mod streaming;
mod text_calls;
mod text_form_trace;
mod tool_typed;
