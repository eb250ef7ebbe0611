//! The tribunal agent runtime: a tool-using agent loop whose final answer must
//! conform to a JSON Schema.
//!
//! # Overview
//!
//! - [`Agent`] holds a [`Backend`], a [`ToolBox`], a system prompt, an
//!   [`AnswerContract`] (usually an [`OutputSchema`]) and a [`Budget`].
//! - Each [`Agent::run`] builds the pure state machine that decides every
//!   step and drives it against the backend and the tools.
//! - The result is a [`RunReport`]: the validated answer or a stable
//!   [`ErrorCode`], usage, tool calls, whether the one repair was used.
//! - [`Agent::for_type`] gives an `Agent<T>` whose [`Agent::run_typed`]
//!   returns a `T`.
//!
//! Every public name is at the root:
//!
//! | names | for |
//! |---|---|
//! | [`connect`], [`BackendKind`], [`BackendOptions`], [`BackendSettings`], [`ScriptedBackend`], [`Recording`], [`Replay`] | the providers (OpenAI Chat and Responses, Anthropic, any compatible server), cassettes, and a scripted backend for tests |
//! | [`Backend`], [`ModelRequest`], [`ModelTurn`], [`OutputPlan`], [`DeltaSink`] | a backend of your own |
//! | [`Conversation`], [`Message`], [`ToolCall`], [`ToolResult`], [`Usage`] | messages, model turns, tool calls and results, usage |
//! | [`Tool`], [`TypedTool`], [`tool_fn`], [`ToolBox`] | tools: typed or raw, and the set a run offers |
//! | [`RunEvent`], [`RunStream`] | a run's events as [`Agent::run_stream`] streams them |
//! | [`OutputSchema`], [`AnswerContract`], [`AnswerPolicy`], [`OutputChoice`] | the answer's schema (compiled per provider), custom answer contracts, how answers are read |
//! | [`ApprovalPolicy`], [`Approver`], [`RunSnapshot`] | tool-call approval (per-tool policy, decisions, approvers) and runs paused at an approval point and resumed in another process |
//! | [`Agent::converse`], [`UserSimulator`], [`ModelUser`], [`ScriptedUser`], [`DialogueConfig`] | conversations with a simulated user |
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
//! use tribunal_runtime::{Agent, OutputSchema, ScriptTurn, ScriptedBackend};
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

// The public API is the names re-exported below, each at the root and
// nowhere else (api/tribunal-runtime.txt lists them). The modules are
// private; `internal` is the door of tribunal's own crates (the judge, the
// tools, the binary, the tests) to the rest: hidden, unlisted, free to
// change in any release.
mod agent;
mod answer;
mod approval;
mod approver;
mod backend;
mod budget;
mod contract;
mod conversation;
mod cost;
mod dialogue;
mod driver;
mod error;
mod event;
mod json;
mod machine;
mod nudge;
#[cfg(feature = "otel")]
pub mod otel;
mod output;
mod report;
mod schema;
mod seen_calls;
mod seen_results;
mod snapshot;
mod task;
mod telemetry;
mod text;
mod text_calls;
mod tool;
mod typed;
mod user;

pub use agent::{Agent, ConversationEnd, ConversationEvent, ConversationRun, Run, RunFailed};
pub use answer::AnswerPolicy;
pub use approval::{
    ApprovalOutcome, ApprovalPolicy, ApprovalRecord, Decision, PendingCall, ToolPolicy,
};
pub use approver::{
    ApprovalRequest, Approver, ChannelApprover, FnApprover, ScriptedApprover, approver_fn,
};
pub use backend::{
    Backend, BackendError, BackendErrorKind, BackendInfo, BackendKind, BackendOptions,
    BackendSettings, Delta, DeltaSink, ModelRequest, OutputFormat, Recording, Replay,
    SamplingField, ScriptStep, ScriptToolCall, ScriptTurn, ScriptedBackend, Stage, Timeouts,
    connect, connect_with_env,
};
pub use budget::{Budget, OnBudget, OnNothingNew, OnRepeat};
pub use contract::{AnswerContract, Rejection};
pub use conversation::{Conversation, Message, ModelTurn, StopReason, ToolCall, ToolResult, Usage};
pub use cost::{CostLimit, ModelPrice};
pub use dialogue::{
    DIALOGUE_SNAPSHOT_VERSION, DialogueConfig, DialogueEnd, DialogueReport, DialogueSnapshot,
    Exchange,
};
pub use error::{ErrorCode, SchemaError};
pub use event::{EventSink, RunEvent, RunStream};
pub use json::{ExtractedFrom, ExtractionMode};
pub use output::{
    OutputChoice, OutputPlan, OutputStrategy, SchemaTarget, ToolChoice, UnknownStrategy,
};
pub use report::{BackendFailure, RequestPurpose, RunOutcome, RunReport, ToolCallRecord};
pub use schema::{Issue, OutputSchema};
pub use snapshot::{ConfigDigest, RunEnd, RunSnapshot, SNAPSHOT_VERSION, SnapshotError};
pub use tool::{
    FnTool, Tool, ToolBox, ToolError, ToolExecution, ToolOutput, ToolSpec, TypedTool, tool_fn,
};
pub use user::{ModelUser, ScriptLine, ScriptedUser, UserSimulator, UserTurn};

#[doc(hidden)]
pub mod internal;
