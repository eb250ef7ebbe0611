//! The provider-neutral conversation: messages, tool calls, tool results, usage
//! and stop reasons. Backends translate these to and from their wire formats.

use serde::{Deserialize, Serialize};

/// Token usage of one model turn (or a sum of turns).
///
/// `input_tokens` counts every input token, cached or not; the cache and
/// reasoning counts are parts of it (of `input_tokens` and
/// `output_tokens`), as the providers bill them. The parts are written
/// only when non-zero, so files of servers that report none are unchanged.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Usage {
    /// Input (prompt) tokens, cached ones included.
    pub input_tokens: u64,
    /// Output (completion) tokens, reasoning included.
    pub output_tokens: u64,
    /// Of `input_tokens`: read from the provider's prompt cache (OpenAI
    /// `cached_tokens`, Anthropic `cache_read_input_tokens`).
    #[serde(default, skip_serializing_if = "is_zero")]
    pub cache_read_tokens: u64,
    /// Of `input_tokens`: written to the prompt cache (Anthropic
    /// `cache_creation_input_tokens`; OpenAI reports none).
    #[serde(default, skip_serializing_if = "is_zero")]
    pub cache_write_tokens: u64,
    /// Of `output_tokens`: reasoning tokens (OpenAI `reasoning_tokens`;
    /// Anthropic bills thinking as output and reports no split).
    #[serde(default, skip_serializing_if = "is_zero")]
    pub reasoning_tokens: u64,
}

fn is_zero(n: &u64) -> bool {
    *n == 0
}

impl Usage {
    /// Input and output tokens, nothing cached or reasoned.
    pub fn new(input_tokens: u64, output_tokens: u64) -> Usage {
        Usage {
            input_tokens,
            output_tokens,
            ..Usage::default()
        }
    }

    /// Whether no token is counted at all.
    pub fn is_empty(&self) -> bool {
        *self == Usage::default()
    }

    /// Input plus output tokens.
    pub fn total(&self) -> u64 {
        self.input_tokens.saturating_add(self.output_tokens)
    }

    /// Input tokens neither read from nor written to the cache.
    pub fn uncached_input_tokens(&self) -> u64 {
        self.input_tokens
            .saturating_sub(self.cache_read_tokens)
            .saturating_sub(self.cache_write_tokens)
    }

    /// Adds another usage to this one, saturating.
    pub fn add(&mut self, other: Usage) {
        self.input_tokens = self.input_tokens.saturating_add(other.input_tokens);
        self.output_tokens = self.output_tokens.saturating_add(other.output_tokens);
        self.cache_read_tokens = self
            .cache_read_tokens
            .saturating_add(other.cache_read_tokens);
        self.cache_write_tokens = self
            .cache_write_tokens
            .saturating_add(other.cache_write_tokens);
        self.reasoning_tokens = self.reasoning_tokens.saturating_add(other.reasoning_tokens);
    }
}

/// Why the model stopped producing the turn.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum StopReason {
    /// The model finished its turn.
    #[default]
    EndTurn,
    /// The model stopped to have tools called.
    ToolUse,
    /// The output-token ceiling cut the turn off (OpenAI `length`, Anthropic `max_tokens`).
    Length,
    /// The model refused, or a content filter stopped it.
    Refusal,
    /// We stopped reading: the turn ran away while it streamed in (it
    /// repeated one passage, or wrote a long blank stretch; see
    /// the runaway guard of [`BackendSettings::cut_runaway`](crate::backend::BackendSettings::cut_runaway)).
    Runaway,
}

/// One tool call the model asked for.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ToolCall {
    /// The provider's id for the call; the result must carry the same id.
    pub id: String,
    /// The tool's name as the model wrote it (may name no known tool).
    pub name: String,
    /// The arguments as raw JSON text, exactly as received (may be invalid JSON).
    pub arguments: String,
}

/// The result of one tool call, as sent back to the model.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ToolResult {
    /// The id of the [`ToolCall`] this answers.
    pub id: String,
    /// The text the model reads.
    pub content: String,
    /// Whether the call failed (invalid arguments, unknown tool, tool error, panic, timeout).
    pub is_error: bool,
}

/// One assistant turn as a backend returns it.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct ModelTurn {
    /// The assistant's text (may be empty when it only calls tools).
    #[serde(default)]
    pub text: String,
    /// Tool calls, in the order the model made them.
    #[serde(default)]
    pub tool_calls: Vec<ToolCall>,
    /// Tokens this turn used.
    #[serde(default)]
    pub usage: Usage,
    /// Why the turn ended.
    #[serde(default)]
    pub stop: StopReason,
    /// The provider's reasoning blocks of this turn, verbatim, to be sent
    /// back with it: Anthropic `thinking` / `redacted_thinking` blocks, which
    /// the API requires again on the next request when extended thinking is
    /// on and the turn called tools. Empty for other providers.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub reasoning: Vec<serde_json::Value>,
}

/// One message of a conversation.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "role", rename_all = "snake_case")]
pub enum Message {
    /// A user message.
    User {
        /// The text.
        text: String,
    },
    /// An assistant turn: text and/or tool calls.
    Assistant {
        /// The text (may be empty).
        text: String,
        /// Tool calls (may be empty).
        tool_calls: Vec<ToolCall>,
        /// The turn's provider reasoning blocks, verbatim (see
        /// [`ModelTurn::reasoning`]); sent back only to the provider that
        /// produced them.
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        reasoning: Vec<serde_json::Value>,
    },
    /// The results of the previous assistant turn's tool calls.
    ToolResults {
        /// One result per call, same order as the calls.
        results: Vec<ToolResult>,
    },
}

/// A system prompt plus the messages exchanged so far.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Conversation {
    /// The system prompt, if any.
    pub system: Option<String>,
    /// The messages, oldest first.
    pub messages: Vec<Message>,
}

impl Conversation {
    /// A conversation with an optional system prompt and one user message.
    pub fn new(system: Option<String>, user: impl Into<String>) -> Self {
        // Room for the one message only: a run waiting on its first model
        // call (most of 10,000 in flight) holds no more; the vector grows
        // when the answers come.
        Conversation {
            system,
            messages: vec![Message::User { text: user.into() }],
        }
    }

    /// Appends a user message.
    pub fn push_user(&mut self, text: impl Into<String>) {
        self.messages.push(Message::User { text: text.into() });
    }

    /// Appends an assistant turn.
    pub fn push_assistant(&mut self, turn: &ModelTurn) {
        self.messages.push(Message::Assistant {
            text: turn.text.clone(),
            tool_calls: turn.tool_calls.clone(),
            reasoning: turn.reasoning.clone(),
        });
    }
}

/// A tool as advertised to the model.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ToolSpec {
    /// The tool's name.
    pub name: String,
    /// What it does.
    pub description: String,
    /// JSON Schema of its arguments.
    pub parameters: serde_json::Value,
}
