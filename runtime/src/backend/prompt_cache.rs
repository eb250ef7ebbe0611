//! Anthropic prompt caching: where an encoded Messages body gets its
//! `cache_control` breakpoints (`place_breakpoints`), pure like the codec
//! that calls it.
//!
//! Anthropic caches a prompt's prefix (tools, then system, then messages) up
//! to a block marked `"cache_control": {"type": "ephemeral"}` (5 minutes);
//! a later request that repeats the prefix reads it at 0.1× the input price,
//! and writing it costs 1.25×. At most [`MAX_BREAKPOINTS`] marks per request.
//! A request gets up to three:
//!
//! 1. **the stable prefix**: the system prompt (sent as one text block when
//!    marked), else the last tool — the same on every agent turn of a run and
//!    on every item of an arena;
//! 2. **where the previous request of the run ended**: the last block before
//!    the conversation's last assistant turn, so this request reads exactly
//!    what the previous one wrote, however many blocks the turn added
//!    (Anthropic looks back only about 20 blocks from a mark);
//! 3. **the latest message**: its last block, written now for the next turn.
//!
//! A mark is content-neutral: Anthropic matches the prefix without its
//! marks, so the mark of the request before last may move on.
//!
//! # The minimum prefix, estimated
//!
//! Anthropic caches nothing shorter than a model's minimum
//! ([`min_cacheable_tokens`]); a mark on a shorter prefix is ignored, with no
//! error and no charge. We have no tokenizer, so a prefix's tokens are
//! estimated from its JSON bytes at [`BYTES_PER_TOKEN`] = 2 bytes a token
//! (about half of what Claude's tokenizer averages on English, and below what
//! code, JSON or non-Latin text reach), and a mark is left out only where
//! even that estimate is under the minimum. The estimate errs high on
//! purpose: a mark on a prefix that turns out too short costs nothing,
//! while a mark wrongly left out makes every later turn pay full price for
//! that prefix. (The tool-use system prompt Anthropic adds is not counted,
//! which only makes the real prefix longer.) Tiny requests stay as they were
//! (system as a string, no marks).
//!
//! # Cassette and cache keys
//!
//! Breakpoints are part of no key. `Recording`, `Replay` and `Cached` key
//! the provider-neutral request, and the codec adds the marks below them,
//! from that request, the model and `prompt_cache`, so they never change an
//! answer. A cassette recorded with caching on replays with it off and the
//! other way round, the rerun cache's file name leaves `prompt_cache` out,
//! and so does the config hash (a results file may mix both, and `compare`
//! sets one against the other). A replayed or cached answer reports the
//! usage that was recorded, cache reads and writes included.

use serde_json::{Map, Value, json};

/// The most `cache_control` marks Anthropic takes in one request.
pub const MAX_BREAKPOINTS: usize = 4;

/// Bytes of JSON counted as one token when estimating a prefix's length
/// (see the [module docs](self)).
pub const BYTES_PER_TOKEN: usize = 2;

/// A model's minimum cacheable prefix in tokens where it differs from
/// [`DEFAULT_MIN_CACHEABLE_TOKENS`], by model name prefix. From
/// platform.claude.com/docs/en/build-with-claude/prompt-caching as our
/// reference search stored it on 2026-12-01.
const MIN_CACHEABLE_TOKENS: [(&str, u64); 6] = [
    ("claude-opus-4-5", 4096),
    ("claude-opus-4-6", 4096),
    ("claude-opus-4-7", 4096),
    ("claude-haiku-4-5", 4096),
    ("claude-3-5-haiku", 2048),
    ("claude-3-haiku", 2048),
];

/// The minimum of Sonnet 4.5 and 4, Opus 4.1 and 4, Sonnet 3.7, and of any
/// model not listed (the smallest documented one: a model we do not know is
/// marked rather than left uncached).
pub const DEFAULT_MIN_CACHEABLE_TOKENS: u64 = 1024;

/// The shortest prefix `model` caches, in tokens.
pub fn min_cacheable_tokens(model: &str) -> u64 {
    MIN_CACHEABLE_TOKENS
        .iter()
        .find(|(name, _)| model.starts_with(name))
        .map_or(DEFAULT_MIN_CACHEABLE_TOKENS, |(_, min)| *min)
}

/// The estimated tokens of `bytes` bytes of JSON (rounded up).
pub fn estimated_tokens(bytes: usize) -> u64 {
    bytes.div_ceil(BYTES_PER_TOKEN) as u64
}

/// A block of an encoded body's `messages`: message index, block index.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct BlockAt {
    pub message: usize,
    pub block: usize,
}

/// Where a mark goes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Mark {
    System,
    Tool(usize),
    Block(BlockAt),
}

/// Marks the Messages `body` of a request to `model` for caching (see the
/// [module docs](self)); `previous_end` is the block the run's previous
/// request ended with, if there was one. A body that already asks for
/// caching itself (a top-level `cache_control`, from the extra body) is left
/// alone, as is one that is not a Messages body.
pub(crate) fn place_breakpoints(body: &mut Value, model: &str, previous_end: Option<BlockAt>) {
    let Value::Object(map) = body else {
        return;
    };
    if map.contains_key("cache_control") {
        return;
    }
    let min = min_cacheable_tokens(model);
    let long_enough = |bytes: usize| estimated_tokens(bytes) >= min;
    let tools = map.get("tools").and_then(Value::as_array);
    let mut prefix: usize = tools.into_iter().flatten().map(json_len).sum();
    let system = map.get("system").filter(|s| !s.is_null());
    prefix += system.map_or(0, json_len);
    let mut marks = Vec::with_capacity(3);
    if long_enough(prefix) {
        match (system, tools) {
            (Some(Value::String(text)), _) if !text.is_empty() => marks.push(Mark::System),
            (None, Some(tools)) if !tools.is_empty() => marks.push(Mark::Tool(tools.len() - 1)),
            _ => {}
        }
    }
    let messages = map.get("messages").and_then(Value::as_array);
    let last = messages.and_then(|m| {
        let message = m.len().checked_sub(1)?;
        let block = blocks(&m[message]).len().checked_sub(1)?;
        Some(BlockAt { message, block })
    });
    for (m, message) in messages.into_iter().flatten().enumerate() {
        for (b, block) in blocks(message).iter().enumerate() {
            prefix += json_len(block);
            let here = Some(BlockAt {
                message: m,
                block: b,
            });
            if (here == previous_end || here == last) && long_enough(prefix) && markable(block) {
                marks.push(Mark::Block(BlockAt {
                    message: m,
                    block: b,
                }));
            }
        }
    }
    debug_assert!(marks.len() <= MAX_BREAKPOINTS);
    for mark in marks {
        apply(map, mark);
    }
}

/// The content blocks of an encoded message (none when not an array).
fn blocks(message: &Value) -> &[Value] {
    message
        .get("content")
        .and_then(Value::as_array)
        .map_or(&[], Vec::as_slice)
}

/// Whether Anthropic takes a mark on `block`: a non-empty text block, a
/// tool result or a tool call (not a thinking block).
fn markable(block: &Value) -> bool {
    match block.get("type").and_then(Value::as_str) {
        Some("text") => block
            .get("text")
            .and_then(Value::as_str)
            .is_some_and(|t| !t.is_empty()),
        Some("tool_result" | "tool_use") => true,
        _ => false,
    }
}

fn ephemeral() -> Value {
    json!({"type": "ephemeral"})
}

fn apply(map: &mut Map<String, Value>, mark: Mark) {
    match mark {
        Mark::System => {
            if let Some(system) = map.get_mut("system") {
                let text = system.take();
                *system = json!([{"type": "text", "text": text, "cache_control": ephemeral()}]);
            }
        }
        Mark::Tool(index) => {
            if let Some(Value::Object(tool)) = map.get_mut("tools").and_then(|t| t.get_mut(index)) {
                tool.insert("cache_control".into(), ephemeral());
            }
        }
        Mark::Block(at) => {
            let block = map
                .get_mut("messages")
                .and_then(|m| m.get_mut(at.message))
                .and_then(|m| m.get_mut("content"))
                .and_then(|c| c.get_mut(at.block));
            if let Some(Value::Object(block)) = block {
                block.insert("cache_control".into(), ephemeral());
            }
        }
    }
}

/// The JSON Pointers of the blocks `body` marks for caching (objects with a
/// `cache_control` field), in document order: what a request asks Anthropic
/// to cache, for tests and logs.
pub fn breakpoints(body: &Value) -> Vec<String> {
    fn walk(v: &Value, at: &str, out: &mut Vec<String>) {
        match v {
            Value::Object(map) => {
                if map.contains_key("cache_control") {
                    out.push(at.to_string());
                }
                for (k, v) in map {
                    walk(v, &format!("{at}/{k}"), out);
                }
            }
            Value::Array(items) => {
                for (i, v) in items.iter().enumerate() {
                    walk(v, &format!("{at}/{i}"), out);
                }
            }
            _ => {}
        }
    }
    let mut out = Vec::new();
    walk(body, "", &mut out);
    out
}

/// `value` without its `cache_control` fields: the content Anthropic's cache
/// matches a prefix by (marks move from request to request).
pub fn without_breakpoints(value: &Value) -> Value {
    match value {
        Value::Object(map) => Value::Object(
            map.iter()
                .filter(|(k, _)| *k != "cache_control")
                .map(|(k, v)| (k.clone(), without_breakpoints(v)))
                .collect(),
        ),
        Value::Array(items) => Value::Array(items.iter().map(without_breakpoints).collect()),
        other => other.clone(),
    }
}

/// The length of `value` as compact JSON, counted without building it.
fn json_len(value: &Value) -> usize {
    struct Count(usize);
    impl std::io::Write for Count {
        fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
            self.0 += buf.len();
            Ok(buf.len())
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }
    let mut count = Count(0);
    match serde_json::to_writer(&mut count, value) {
        Ok(()) => count.0,
        Err(_) => 0,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn text(text: &str) -> Value {
        json!({"type": "text", "text": text})
    }

    #[test]
    fn minimums_by_model() {
        assert_eq!(min_cacheable_tokens("claude-sonnet-4-5-20250929"), 1024);
        assert_eq!(min_cacheable_tokens("claude-haiku-4-5"), 4096);
        assert_eq!(min_cacheable_tokens("claude-3-5-haiku-latest"), 2048);
        assert_eq!(min_cacheable_tokens("claude-opus-4-5-20251101"), 4096);
        assert_eq!(min_cacheable_tokens("claude-opus-4-1"), 1024);
        assert_eq!(min_cacheable_tokens("test-model"), 1024);
        assert_eq!(estimated_tokens(2047), 1024);
        assert_eq!(estimated_tokens(2045), 1023);
    }

    #[test]
    fn a_short_prefix_is_not_marked_and_a_long_one_is() {
        let long = "x".repeat(2100);
        let mut short = json!({"system": "be brief", "messages": [
            {"role": "user", "content": [text("hi")]}]});
        let before = short.clone();
        place_breakpoints(&mut short, "claude-sonnet-4-5", None);
        assert_eq!(short, before);
        let mut body = json!({"system": long, "messages": [
            {"role": "user", "content": [text("hi")]}]});
        place_breakpoints(&mut body, "claude-sonnet-4-5", None);
        assert_eq!(breakpoints(&body), ["/system/0", "/messages/0/content/0"]);
        assert_eq!(body["system"][0]["text"], json!(long));
        // The same prefix is too short for Haiku 4.5.
        let mut haiku = json!({"system": long, "messages": [
            {"role": "user", "content": [text("hi")]}]});
        place_breakpoints(&mut haiku, "claude-haiku-4-5", None);
        assert!(breakpoints(&haiku).is_empty());
    }

    #[test]
    fn without_a_system_prompt_the_last_tool_is_marked() {
        let schema = json!({"type": "object", "description": "y".repeat(2100)});
        let mut body = json!({"messages": [{"role": "user", "content": [text("hi")]}],
            "tools": [{"name": "a", "input_schema": {}}, {"name": "b", "input_schema": schema}]});
        place_breakpoints(&mut body, "m", None);
        assert_eq!(breakpoints(&body), ["/messages/0/content/0", "/tools/1"]);
    }

    #[test]
    fn the_previous_end_and_the_last_block_are_marked_once_each() {
        let mut body = json!({"system": "s".repeat(2100), "messages": [
            {"role": "user", "content": [text("q")]},
            {"role": "assistant", "content": [{"type": "thinking", "thinking": "t"},
                {"type": "tool_use", "id": "1", "name": "a", "input": {}}]},
            {"role": "user", "content": [
                {"type": "tool_result", "tool_use_id": "1", "content": "r"}, text("")]}]});
        let previous = BlockAt {
            message: 0,
            block: 0,
        };
        let mut marked = body.clone();
        place_breakpoints(&mut marked, "m", Some(previous));
        // The last block is an empty text block, which takes no mark.
        assert_eq!(breakpoints(&marked), ["/system/0", "/messages/0/content/0"]);
        body["messages"][2]["content"][1] = text("now answer");
        place_breakpoints(&mut body, "m", Some(previous));
        assert_eq!(
            breakpoints(&body),
            [
                "/system/0",
                "/messages/0/content/0",
                "/messages/2/content/1"
            ]
        );
    }

    #[test]
    fn a_body_that_asks_for_caching_itself_is_left_alone() {
        let mut body = json!({"system": "s".repeat(4000), "cache_control": {"type": "ephemeral"},
            "messages": [{"role": "user", "content": [text("q")]}]});
        let before = body.clone();
        place_breakpoints(&mut body, "m", None);
        assert_eq!(body, before);
    }

    #[test]
    fn json_len_is_the_compact_length() {
        let v = json!({"a": [1, "two", {"b": null}]});
        assert_eq!(json_len(&v), v.to_string().len());
    }

    #[test]
    fn breakpoints_are_found_and_taken_out() {
        let mut body = json!({"system": "s".repeat(2100), "messages": [
            {"role": "user", "content": [text("q")]}]});
        let plain = body.clone();
        place_breakpoints(&mut body, "m", None);
        assert_eq!(breakpoints(&body), ["/system/0", "/messages/0/content/0"]);
        let unmarked = without_breakpoints(&body);
        assert!(breakpoints(&unmarked).is_empty());
        assert_eq!(unmarked["messages"], plain["messages"]);
    }
}
