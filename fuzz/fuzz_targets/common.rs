//! Shared fixtures of the fuzz targets.
#![allow(dead_code)]

use serde_json::{Map, Value};
use tribunal_runtime::internal::backend::{Codec, ProviderConfig};
use tribunal_runtime::internal::json::{ParseLimits, parse_strict};
use tribunal_runtime::Conversation;
use tribunal_runtime::{BackendErrorKind, ModelRequest, OutputFormat, SchemaTarget};
use tribunal_runtime::StopReason;
use tribunal_runtime::{OutputPlan, ToolChoice};

/// Every schema target.
pub const TARGETS: [SchemaTarget; 3] = [
    SchemaTarget::Plain,
    SchemaTarget::OpenAi,
    SchemaTarget::Anthropic,
];

/// The landmark schema of the structured_output arena (its own file).
pub fn landmark() -> Value {
    serde_json::from_str(include_str!(
        "../../arenas/structured_output/schema.json"
    ))
    .expect("schema.json")
}

/// The code_review arena's GREEN and RED owner schemas.
pub fn verdict_owners() -> (Value, Value) {
    let green: Value = serde_json::from_str(include_str!(
        "../../arenas/code_review/schemas/green.json"
    ))
    .expect("green.json");
    let red: Value = serde_json::from_str(include_str!(
        "../../arenas/code_review/schemas/red.json"
    ))
    .expect("red.json");
    (green, red)
}

/// Arbitrary text as a successful answer body of `C`'s API: strictly parsed,
/// then decoded. A failure is a protocol error naming the provider; a turn
/// says `tool_use` only with tool calls, and goes back to the provider in the
/// next request as a run sends it.
pub fn decode_answer<C: Codec>(data: &[u8]) {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let Ok(answer) = parse_strict(text, &ParseLimits { max_depth: 128 }) else {
        return;
    };
    let turn = match C::decode(answer) {
        Ok(turn) => turn,
        Err(e) => {
            assert_eq!(e.kind, BackendErrorKind::Protocol, "{}", e.message);
            assert!(e.message.starts_with(C::PROVIDER.name), "{}", e.message);
            return;
        }
    };
    assert!(turn.stop != StopReason::ToolUse || !turn.tool_calls.is_empty());
    let mut conversation = Conversation::new(Some("sys".into()), "hello");
    conversation.push_assistant(&turn);
    conversation.push_user("go on");
    let request = ModelRequest {
        conversation: conversation.into(),
        tools: Vec::new().into(),
        tool_choice: ToolChoice::Auto,
        output: OutputFormat::Text,
        max_output_tokens: None,
    };
    let config = ProviderConfig {
        model: "fuzz".into(),
        api_key: "sk-fuzz-key".into(),
        base_url: "http://127.0.0.1:9".into(),
        plan: OutputPlan::native(C::PROVIDER.target),
        temperature: None,
        seed: None,
        parallel_tool_calls: None,
        extra_body: Map::new(),
        prompt_cache: true,
        cut_runaway: true,
        timeouts: Default::default(),
    };
    C::encode(&request, &config).expect("a decoded turn encodes");
}
