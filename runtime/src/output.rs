//! How a run asks for its final answer and where it reads it from: the
//! [`OutputStrategy`] and the resolved [`OutputPlan`] a backend reports.
//!
//! | strategy | the answer travels as | tools-disabled turns (repair, finalize) |
//! |---|---|---|
//! | [`Native`](OutputStrategy::Native) | the assistant's text, under the provider's structured-output field | the field is always attached |
//! | [`Tool`](OutputStrategy::Tool) | the arguments of a call to the answer tool, whose parameters are the wire schema | only the answer tool is offered, and a tool call is required |
//! | [`Prompt`](OutputStrategy::Prompt) | the assistant's text; the schema is written into the system prompt | as on every turn |
//!
//! Why there is more than one: an OpenAI-compatible server such as llama.cpp
//! or vLLM turns a `json_schema` response format into a grammar. On a request
//! that also offers tools, a grammar-bound model can only write the final JSON
//! and never calls a tool. Those servers constrain tool-call arguments with a
//! grammar too, so an answer given *as a tool call* is constrained without
//! taking the tools away. The hosted OpenAI and Anthropic APIs apply the
//! schema only to the final text and keep native structured output with tools.
//! [`resolve_plan`](crate::backend::resolve_plan) picks per backend
//! and base URL.

use serde::{Deserialize, Serialize};
use std::str::FromStr;

/// Which provider dialect a backend's structured output follows. The loop
/// compiles the owner schema for this target and decodes answers from it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, PartialOrd, Ord)]
#[serde(rename_all = "snake_case")]
pub enum SchemaTarget {
    /// No transformation: the owner schema is shown as is (scripted backends,
    /// the prompt strategy) and answers are expected in owner shape.
    Plain,
    /// OpenAI strict structured output (Chat Completions and Responses).
    OpenAi,
    /// Anthropic Messages `output_config.format`.
    Anthropic,
}

impl SchemaTarget {
    /// The stable lowercase name (`plain`, `openai`, `anthropic`).
    pub fn as_str(self) -> &'static str {
        match self {
            SchemaTarget::Plain => "plain",
            SchemaTarget::OpenAi => "openai",
            SchemaTarget::Anthropic => "anthropic",
        }
    }
}

/// Where the final answer travels (runtime/src/output.rs says how each works).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum OutputStrategy {
    /// The provider's structured-output field (`response_format`,
    /// `text.format`, `output_config.format`).
    #[default]
    Native,
    /// A call to the answer tool ([`ANSWER_TOOL`]) whose parameters are the
    /// wire schema. It never counts against `max_tool_calls`.
    Tool,
    /// The schema in the system prompt; the answer is read from the text.
    Prompt,
}

impl OutputStrategy {
    /// The stable lowercase name (`native`, `tool`, `prompt`).
    pub fn as_str(self) -> &'static str {
        match self {
            OutputStrategy::Native => "native",
            OutputStrategy::Tool => "tool",
            OutputStrategy::Prompt => "prompt",
        }
    }
}

impl std::fmt::Display for OutputStrategy {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// The user's choice of strategy: a fixed one, or `auto` (per backend and
/// base URL; see [`BackendOptions`](crate::backend::BackendOptions)).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum OutputChoice {
    /// Pick what works for the backend and base URL. The default.
    #[default]
    Auto,
    /// Always [`OutputStrategy::Native`].
    Native,
    /// Always [`OutputStrategy::Tool`].
    Tool,
    /// Always [`OutputStrategy::Prompt`].
    Prompt,
}

impl OutputChoice {
    /// The stable lowercase name (`auto`, `native`, `tool`, `prompt`).
    pub fn as_str(self) -> &'static str {
        match self {
            OutputChoice::Auto => "auto",
            OutputChoice::Native => "native",
            OutputChoice::Tool => "tool",
            OutputChoice::Prompt => "prompt",
        }
    }

    /// The fixed strategy, or `None` for `auto`.
    pub fn fixed(self) -> Option<OutputStrategy> {
        match self {
            OutputChoice::Auto => None,
            OutputChoice::Native => Some(OutputStrategy::Native),
            OutputChoice::Tool => Some(OutputStrategy::Tool),
            OutputChoice::Prompt => Some(OutputStrategy::Prompt),
        }
    }
}

/// An unknown strategy name.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("unknown output strategy `{0}` (expected auto, native, tool or prompt)")]
pub struct UnknownStrategy(pub String);

impl FromStr for OutputChoice {
    type Err = UnknownStrategy;

    /// Parses `auto`, `native`, `tool` or `prompt`.
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        [
            OutputChoice::Auto,
            OutputChoice::Native,
            OutputChoice::Tool,
            OutputChoice::Prompt,
        ]
        .into_iter()
        .find(|c| c.as_str() == s)
        .ok_or_else(|| UnknownStrategy(s.to_string()))
    }
}

/// How a backend takes final answers, resolved once from the user's options
/// and reported by [`Backend::output_plan`](crate::Backend::output_plan).
/// The loop builds every request from it; backends only encode requests.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct OutputPlan {
    /// Where the answer travels.
    pub strategy: OutputStrategy,
    /// The schema dialect answers are compiled for and decoded from
    /// ([`SchemaTarget::Plain`] for the prompt strategy).
    pub target: SchemaTarget,
    /// Native strategy only: whether the structured-output field rides along
    /// on requests that also offer tools. Requests without tools always
    /// carry it.
    pub schema_on_tool_turns: bool,
    /// Whether a tool call the model wrote into its text (a JSON object
    /// with the tool's `name` and `arguments`, bare, fenced or in
    /// `<tool_call>` tags) is read as a call when the server returned none,
    /// on agent turns only. [`resolve_plan`](crate::backend::resolve_plan)
    /// turns it on for servers other than the hosted APIs, where small
    /// models write calls that way and the server may not parse them.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub read_text_calls: bool,
}

impl OutputPlan {
    /// Native structured output in `target`'s dialect, on every turn.
    pub fn native(target: SchemaTarget) -> Self {
        OutputPlan {
            strategy: OutputStrategy::Native,
            target,
            schema_on_tool_turns: true,
            read_text_calls: false,
        }
    }

    /// The answer as a call to the answer tool, in `target`'s dialect.
    pub fn tool(target: SchemaTarget) -> Self {
        OutputPlan {
            strategy: OutputStrategy::Tool,
            target,
            schema_on_tool_turns: false,
            read_text_calls: false,
        }
    }

    /// The schema in the system prompt; answers in owner shape.
    pub fn prompt() -> Self {
        OutputPlan {
            strategy: OutputStrategy::Prompt,
            target: SchemaTarget::Plain,
            schema_on_tool_turns: false,
            read_text_calls: false,
        }
    }
}

/// Whether the model must call a tool on a request.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ToolChoice {
    /// The model decides (the provider's default).
    #[default]
    Auto,
    /// The model must call one of the offered tools (`"required"` on OpenAI
    /// and OpenAI-compatible servers, `{"type": "any"}` on Anthropic). The
    /// loop sends it only when the answer tool is the one tool offered.
    Required,
}

/// The answer tool's name (a user tool of the same name makes the loop use
/// `final_answer_1`, `final_answer_2`, …).
pub const ANSWER_TOOL: &str = "final_answer";

/// The answer tool's description.
pub const ANSWER_TOOL_DESCRIPTION: &str = "Give your final answer. Call this once, when you have what you need; its arguments are the answer and must match its schema. After this call the run ends.";

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn choices_parse_from_their_names() {
        for c in [
            OutputChoice::Auto,
            OutputChoice::Native,
            OutputChoice::Tool,
            OutputChoice::Prompt,
        ] {
            assert_eq!(c.as_str().parse::<OutputChoice>(), Ok(c));
        }
        let err = "grammar".parse::<OutputChoice>().unwrap_err();
        assert!(err.to_string().contains("auto, native, tool or prompt"));
        assert_eq!(OutputChoice::Auto.fixed(), None);
        assert_eq!(OutputChoice::Tool.fixed(), Some(OutputStrategy::Tool));
    }
}
