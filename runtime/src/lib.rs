//! The tribunal agent runtime: a tool-using agent loop whose final answer must
//! conform to a JSON Schema.
//!
//! # Overview
//!
//! - [`Agent`] holds a [`Backend`], a [`ToolBox`], a system prompt, an
//!   [`AnswerContract`] (usually an [`OutputSchema`]) and a [`Budget`].
//! - Each [`Agent::run`] builds a [`Machine`](machine::Machine) — the pure
//!   state machine that decides every step — and drives it against the
//!   backend and the tools.
//! - The result is a [`RunReport`]: the validated answer or a stable
//!   [`ErrorCode`], usage, tool calls, whether the one repair was used.
//! - [`Agent::for_type`] gives an `Agent<T>` whose [`Agent::run_typed`]
//!   returns a `T`.
//!
//! The root holds what an embedder needs; the modules hold the rest:
//!
//! | module | for |
//! |---|---|
//! | [`backend`] | the providers (`OpenAiChat`, `OpenAiResponses`, `Anthropic` — one sans-I/O [`Codec`](backend::Codec) each behind [`HttpBackend`](backend::HttpBackend)), the wrappers `Retry`, `Recording`, `Replay`, and `ScriptedBackend` for tests |
//! | [`conversation`] | messages, model turns, tool calls and results, usage |
//! | [`output`] | output strategies (native, tool, prompt) and the resolved plan |
//! | [`machine`], [`driver`] | the loop itself, for custom drivers and trace tests |
//! | [`RunEvent`], [`RunStream`] | a run's events as [`Agent::run_stream`] streams them |
//! | spans | the spans of a run (OpenTelemetry GenAI names and attributes); `otel` (feature `otel`) exports them |
//! | [`schema`], [`json`], [`answer`], [`AnswerContract`] | schema compilation per provider, JSON extraction, the answer pipeline, custom answer contracts |
//! | [`approval`], [`Approver`], [`snapshot`] | tool-call approval (per-tool policy, decisions, approvers) and runs paused at an approval point and resumed in another process |
//! | [`tool`], [`report`], [`text`] | tool execution records, report details, the shared text-clipping helpers |
//!
//! # Features
//!
//! `openai` (OpenAI Chat Completions and Responses, and compatible servers)
//! and `anthropic` (Anthropic Messages) are the live backends, on by
//! default; both need `http` (reqwest with rustls). With default features
//! off the crate has the loop, typed tools and answers, the scripted
//! backend and cassette replay, and no HTTP stack; [`connect`] then refuses
//! a live backend with a `Config` error naming its feature. `otel` adds the
//! `otel` module: an OpenTelemetry layer for the spans of a run.
//!
//! ```
//! use std::sync::Arc;
//! use serde_json::json;
//! use tribunal_runtime::{Agent, OutputSchema};
//! use tribunal_runtime::backend::{ScriptTurn, ScriptedBackend};
//!
//! # #[tokio::main(flavor = "current_thread")] async fn main() {
//! let schema = OutputSchema::new("answer", json!({
//!     "type": "object", "required": ["n"],
//!     "properties": {"n": {"type": "integer"}}, "additionalProperties": false
//! })).unwrap();
//! let backend = ScriptedBackend::from_script(&[
//!     serde_json::from_value::<ScriptTurn>(json!({"text": "Sure: {\"n\": 42}"})).unwrap(),
//! ]);
//! let agent = Agent::new(Arc::new(backend), Arc::new(schema)).unwrap();
//! let run = agent.run("What is six times seven?").await;
//! assert_eq!(run.report.outcome.value(), Some(&json!({"n": 42})));
//! # }
//! ```

#![deny(missing_docs)]
#![warn(unreachable_pub)]
#![forbid(unsafe_code)]

// `nudge`, `task` and `text` are public for the sibling crates (the
// judge's runner, the tools' and judge's text clipping) and this crate's
// integration tests, not for embedders: hidden from the docs and the API
// listing, and free to change in any release.
mod agent;
pub mod answer;
pub mod approval;
mod approver;
pub mod backend;
mod budget;
mod contract;
pub mod conversation;
pub mod cost;
pub mod dialogue;
pub mod driver;
mod error;
mod event;
pub mod json;
pub mod machine;
#[doc(hidden)]
pub mod nudge;
#[cfg(feature = "otel")]
pub mod otel;
pub mod output;
pub mod report;
pub mod schema;
mod seen_calls;
mod seen_results;
pub mod snapshot;
#[doc(hidden)]
pub mod task;
mod telemetry;
#[doc(hidden)]
pub mod text;
mod text_calls;
pub mod tool;
mod typed;
pub mod user;

pub use agent::{Agent, ConversationEnd, ConversationEvent, ConversationRun, Run, RunFailed};
pub use answer::AnswerPolicy;
pub use approval::{ApprovalPolicy, Decision, ToolPolicy};
pub use approver::{
    ApprovalRequest, Approver, ChannelApprover, FnApprover, ScriptedApprover, approver_fn,
};
pub use backend::{Backend, BackendError, BackendKind, BackendOptions, connect, connect_with_env};
pub use budget::{Budget, OnBudget, OnNothingNew, OnRepeat};
pub use contract::{AnswerContract, Rejection};
pub use conversation::Conversation;
pub use dialogue::{DialogueConfig, DialogueEnd, DialogueReport};
pub use error::{ErrorCode, SchemaError};
pub use event::{EventSink, RunEvent, RunStream};
pub use output::OutputChoice;
pub use report::{RunOutcome, RunReport};
pub use schema::OutputSchema;
pub use snapshot::{ConfigDigest, RunEnd, RunSnapshot, SNAPSHOT_VERSION, SnapshotError};
pub use tool::{Tool, ToolBox, ToolError, ToolOutput, ToolSpec, TypedTool, tool_fn};
pub use user::{ModelUser, ScriptLine, ScriptedUser, UserSimulator};
