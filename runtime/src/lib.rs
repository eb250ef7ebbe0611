//! The tribunal agent runtime: a tool-using agent loop whose final answer must
//! conform to a JSON Schema.
//!
//! # Overview
//!
//! - [`Agent`] holds a [`Backend`], a [`ToolBox`], a system prompt, an
//!   [`AnswerContract`] (usually an [`OutputSchema`]) and a [`Budget`].
//! - Each [`Agent::run`] builds a [`Machine`] — the pure state machine that
//!   decides every step — and drives it against the backend and the tools.
//! - The result is a [`RunReport`]: the validated answer or a stable
//!   [`ErrorCode`], usage, tool calls, whether the one repair was used.
//!
//! ```
//! use std::sync::Arc;
//! use serde_json::json;
//! use tribunal_runtime::{Agent, OutputSchema, ScriptedBackend, ScriptTurn};
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

mod agent;
mod answer;
pub mod backend;
mod budget;
mod contract;
mod conversation;
mod driver;
mod error;
pub mod json;
mod machine;
mod output;
mod report;
pub mod schema;
/// Text helpers shared by the tools and the judge crates.
pub mod text;
mod tool;
mod typed;

pub use agent::{Agent, Run, RunFailed};
pub use answer::{
    Accepted, AnswerPolicy, MAX_REPAIR_MESSAGE_CHARS, MAX_REPAIR_PATHS, evaluate_answer,
    finalize_message, prompt_instruction, repair_message,
};
pub use backend::anthropic::Anthropic;
pub use backend::config::{
    BackendKind, BackendOptions, ProviderConfig, connect, connect_with_env, resolve_plan,
};
pub use backend::openai_chat::OpenAiChat;
pub use backend::openai_responses::OpenAiResponses;
pub use backend::record::Recording;
pub use backend::replay::Replay;
pub use backend::retry::Retry;
pub use backend::scripted::{ScriptStep, ScriptToolCall, ScriptTurn, ScriptedBackend};
pub use backend::{
    Backend, BackendError, BackendErrorKind, BackendInfo, ModelRequest, OutputFormat, SchemaTarget,
};
pub use budget::{Budget, OnBudget};
pub use contract::{AnswerContract, Rejection};
pub use conversation::{Conversation, Message, ModelTurn, StopReason, ToolCall, ToolResult, Usage};
pub use driver::drive;
pub use error::{ErrorCode, SchemaError};
pub use machine::{
    Action, Input, Machine, MachineConfig, REPEATED_CALL_RESULT, TOOL_FIRST_MESSAGE,
};
pub use output::{
    ANSWER_TOOL, ANSWER_TOOL_DESCRIPTION, OutputChoice, OutputPlan, OutputStrategy, ToolChoice,
    UnknownStrategy,
};
pub use report::{BackendFailure, RunOutcome, RunReport, ToolCallRecord};
pub use schema::{Issue, OutputSchema};
pub use tool::{Tool, ToolBox, ToolError, ToolExecution, ToolOutput, ToolSpec};
