//! Finding the JSON value in a model's final text.
//!
//! Lenient mode tries, in order: the whole text; a fenced block (a
//! `json`-tagged fence first, then an untagged one; fences of other languages
//! are not JSON); the first balanced `{…}` or `[…]` span, scanned with strings
//! and escapes respected. When the answer must be an object, spans of another
//! root type (a citation like `[1]`) are skipped. Strict mode accepts exactly
//! one JSON value and nothing else. Text mode reads no JSON at all: the
//! trimmed reply is the answer, a JSON string.

use super::parse::{ParseError, ParseLimits, parse_strict};
use serde::{Deserialize, Serialize};
use serde_json::Value;

/// How a final answer's text is read.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ExtractionMode {
    /// Whole text, else a fence, else the first balanced span. The default.
    #[default]
    Lenient,
    /// The text must be exactly one JSON value; fences are rejected.
    Strict,
    /// The answer is text, not JSON: the whole reply, trimmed, is the answer
    /// (stored as a JSON string). No schema is sent or asked for.
    Text,
}

/// Where in the text the JSON was found.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ExtractedFrom {
    /// The whole text was the JSON value.
    Whole,
    /// A fenced code block.
    Fence,
    /// A balanced span inside other text.
    Span,
}

/// A JSON value found in text.
#[derive(Debug, Clone, PartialEq)]
pub struct Extraction {
    /// The parsed value.
    pub value: Value,
    /// Where it came from.
    pub extracted_from: ExtractedFrom,
}

/// Why no JSON value could be taken from the text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ExtractionError {
    /// There is no JSON candidate at all.
    NoJson,
    /// A candidate was found but is not acceptable JSON.
    Invalid(ParseError),
    /// The candidate is cut off (unbalanced).
    Truncated,
}

/// Extracts one JSON value from `text`.
///
/// `want_object`: the answer's root must be an object, so array spans are skipped.
pub fn extract(
    text: &str,
    mode: ExtractionMode,
    want_object: bool,
    limits: &ParseLimits,
) -> Result<Extraction, ExtractionError> {
    let trimmed = text.trim();
    if trimmed.is_empty() {
        return Err(ExtractionError::NoJson);
    }
    let whole = |v| Extraction {
        value: v,
        extracted_from: ExtractedFrom::Whole,
    };
    if mode == ExtractionMode::Text {
        return Ok(whole(Value::String(trimmed.to_string())));
    }
    if mode == ExtractionMode::Strict {
        return parse_strict(trimmed, limits).map(whole).map_err(|e| {
            if e.eof {
                ExtractionError::Truncated
            } else {
                ExtractionError::Invalid(e)
            }
        });
    }

    // 1. The whole text. If it *is* one JSON document (starts with a bracket that
    //    closes at the very end), its parse error is final: never look inside it
    //    for a different, smaller value.
    //    Texts that cannot be one JSON value are not parsed at all (a cheap
    //    check on their ends), so long prose costs no full parse.
    match whole_parse(trimmed, limits) {
        None => {}
        Some(Ok(v)) => return Ok(whole(v)),
        Some(Err(e)) => {
            if let Some(first) = trimmed.bytes().next().filter(|b| matches!(b, b'{' | b'[')) {
                match balanced_end(trimmed.as_bytes(), 0, first) {
                    Some(end) if end == trimmed.len() => return Err(ExtractionError::Invalid(e)),
                    // An early answer only: without a fence, the span scan
                    // below would reach the same unbalanced bracket and say
                    // `Truncated` too (so a mutant that drops this arm is
                    // equivalent; the fenced case is what it decides).
                    None if !has_fence(trimmed) => return Err(ExtractionError::Truncated),
                    _ => {}
                }
            }
        }
    }

    // One pass finds the first opening bracket and whether a fence exists.
    let bytes = trimmed.as_bytes();
    let second = if want_object { b'{' } else { b'[' };
    let (fenced, first_open) = scan(bytes, second);

    // 2. Fenced blocks.
    if let Some(body) = fenced.then(|| find_fence(trimmed)).flatten() {
        return parse_strict(body.trim(), limits)
            .map(|v| Extraction {
                value: v,
                extracted_from: ExtractedFrom::Fence,
            })
            .map_err(|e| {
                if e.eof {
                    ExtractionError::Truncated
                } else {
                    ExtractionError::Invalid(e)
                }
            });
    }

    // 3. The first balanced span of an acceptable root type.
    // Quotes in the prose before a span are not JSON strings, so the scan for
    // an opening bracket does not track them.
    let Some(i) = first_open.or_else(|| find_either(bytes, b'{', second, b'{')) else {
        return Err(ExtractionError::NoJson);
    };
    match balanced_end(bytes, i, bytes[i]) {
        Some(end) => parse_strict(&trimmed[i..end], limits)
            .map(|v| Extraction {
                value: v,
                extracted_from: ExtractedFrom::Span,
            })
            .map_err(ExtractionError::Invalid),
        None => Err(ExtractionError::Truncated),
    }
}

/// `parse_strict` of the whole text, or `None` when the text surely is not
/// one JSON value (the parse would fail): a scalar must span the whole text,
/// so its first and last bytes must fit. Objects and arrays are always
/// parsed: their error decides between invalid and truncated.
fn whole_parse(text: &str, limits: &ParseLimits) -> Option<Result<Value, ParseError>> {
    let bytes = text.as_bytes();
    let (&first, &last) = (bytes.first()?, bytes.last()?);
    let possible = match first {
        b'{' | b'[' => true,
        // `||` for `&&` here only parses texts that fail anyway (an
        // unterminated string) and then falls through to the same later
        // steps: a cost, not an outcome.
        b'"' => last == b'"' && bytes.len() >= 2,
        b'-' | b'0'..=b'9' => bytes
            .iter()
            .all(|b| matches!(b, b'0'..=b'9' | b'-' | b'+' | b'.' | b'e' | b'E')),
        b't' | b'f' | b'n' => matches!(text, "true" | "false" | "null"),
        _ => false,
    };
    possible.then(|| parse_strict(text, limits))
}

/// One pass over `bytes`: whether a fence (```` ``` ````) occurs, and the index
/// of the first `{` or `second` before the scan stopped. The scan stops at
/// the first fence, where the index may be `None` even if a bracket follows.
///
/// A pass saved, not an outcome: answering "maybe a fence, no bracket yet"
/// for every text gives the same extraction through `find_fence` and
/// `find_either`, two passes later (so the mutant `(true, None)` survives
/// as an equivalent).
fn scan(bytes: &[u8], second: u8) -> (bool, Option<usize>) {
    let mut first_open = None;
    let mut pos = 0;
    loop {
        let (a, b) = if first_open.is_none() {
            (b'{', second)
        } else {
            (b'`', b'`')
        };
        let Some(i) = find_either(&bytes[pos..], a, b, b'`').map(|i| pos + i) else {
            return (false, first_open);
        };
        if bytes[i] == b'`' {
            if bytes[i..].starts_with(b"```") {
                return (true, first_open);
            }
        } else {
            first_open = Some(i);
        }
        pos = i + 1;
    }
}

/// The index of the first byte equal to `a`, `b` or `c`. Scans 64-byte
/// blocks with a branch-free test the compiler vectorises, then finds the
/// position inside the block.
fn find_either(bytes: &[u8], a: u8, b: u8, c: u8) -> Option<usize> {
    const BLOCK: usize = 64;
    let is = |x: u8| x == a || x == b || x == c;
    let mut chunks = bytes.chunks_exact(BLOCK);
    let mut offset = 0;
    for chunk in &mut chunks {
        // Any hit, as one `bool` per byte OR-ed together. Two mutants of
        // this line survive as equivalents: the last `|` as `^` (`b == c`
        // only in the fence search, where `a` is the same byte and hits),
        // and the first as `^` (two `{` in a block cancel in the scan, but
        // `extract` then searches again with `c = '{'`, which hits).
        let hit = chunk
            .iter()
            .fold(false, |acc, &x| acc | (x == a) | (x == b) | (x == c));
        if hit {
            return chunk.iter().position(|&x| is(x)).map(|i| offset + i);
        }
        offset += BLOCK;
    }
    chunks
        .remainder()
        .iter()
        .position(|&x| is(x))
        .map(|i| offset + i)
}

/// Given `bytes[start] == open`, returns the index one past the bracket that
/// closes it, tracking all bracket kinds and skipping string contents.
/// `None` if the text ends first (or brackets are mismatched beyond repair).
fn balanced_end(bytes: &[u8], start: usize, open: u8) -> Option<usize> {
    debug_assert_eq!(bytes.get(start), Some(&open));
    let mut stack: Vec<u8> = Vec::new();
    let mut in_string = false;
    let mut i = start;
    while i < bytes.len() {
        let b = bytes[i];
        if in_string {
            match b {
                b'\\' => i += 1,
                b'"' => in_string = false,
                _ => {}
            }
        } else {
            match b {
                b'"' => in_string = true,
                b'{' => stack.push(b'}'),
                b'[' => stack.push(b']'),
                b'}' | b']' => {
                    if stack.pop() != Some(b) {
                        // Mismatched: treat the span as ending here; the parser
                        // will report it as invalid JSON.
                        return Some(i + 1);
                    }
                    if stack.is_empty() {
                        return Some(i + 1);
                    }
                }
                _ => {}
            }
        }
        i += 1;
    }
    None
}

fn has_fence(text: &str) -> bool {
    text.contains("```")
}

/// The body of the preferred fenced block: the first fence tagged `json`,
/// else the first untagged fence. Fences tagged with another language are skipped.
fn find_fence(text: &str) -> Option<&str> {
    let mut untagged: Option<&str> = None;
    let mut rest = text;
    while let Some(open) = rest.find("```") {
        let after = &rest[open + 3..];
        let line_end = after.find('\n')?;
        let tag = after[..line_end].trim();
        let body_start = &after[line_end + 1..];
        let close = body_start.find("```");
        let body = match close {
            Some(c) => &body_start[..c],
            // An unclosed fence: its body runs to the end (and will likely be truncated JSON).
            None => body_start,
        };
        if tag.eq_ignore_ascii_case("json") {
            return Some(body);
        }
        if tag.is_empty() && untagged.is_none() {
            untagged = Some(body);
        }
        match close {
            Some(c) => rest = &body_start[c + 3..],
            None => break,
        }
    }
    untagged
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lenient(text: &str) -> Result<Extraction, ExtractionError> {
        extract(text, ExtractionMode::Lenient, true, &ParseLimits::default())
    }

    fn any_root(text: &str) -> Result<Extraction, ExtractionError> {
        extract(
            text,
            ExtractionMode::Lenient,
            false,
            &ParseLimits::default(),
        )
    }

    #[test]
    fn a_whole_document_that_fails_to_parse_is_final_even_with_a_fence_inside() {
        // Balanced from the first byte to the last and invalid (raw newlines
        // in a string, a trailing comma): the fenced block inside its string
        // must not be answered instead.
        let text = "{\"a\": \"\n```json\n[1, 2]\n```\n\", }";
        assert!(
            matches!(any_root(text), Err(ExtractionError::Invalid(_))),
            "{:?}",
            any_root(text)
        );
        // A document that closes before the end is not the whole text: its
        // span is read.
        let e = lenient("{\"a\": 1} and that is all").unwrap();
        assert_eq!(
            (e.extracted_from, e.value["a"].as_i64()),
            (ExtractedFrom::Span, Some(1))
        );
        // Unbalanced from the first byte without a fence: truncated; with a
        // fence after it, the fence is read.
        assert!(matches!(
            lenient("{\"a\": 1, \"b\": "),
            Err(ExtractionError::Truncated)
        ));
        let e = lenient("[see below\n```json\n{\"a\": 2}\n```").unwrap();
        assert_eq!(
            (e.extracted_from, e.value["a"].as_i64()),
            (ExtractedFrom::Fence, Some(2))
        );
    }

    #[test]
    fn spans_are_found_past_inline_code_and_in_later_blocks() {
        // Lone backticks (inline code) before the JSON, and the JSON past
        // the first 64-byte block, with two brackets in one block.
        let prose =
            "Use `jq` or `python -m json.tool` to check it; the record I found is this one: ";
        assert!(prose.len() > 64);
        let text = format!(
            "{prose}{{\"a\": {{\"b\": 1}}}} and nothing more, as the task asked of me today."
        );
        let e = lenient(&text).unwrap();
        assert_eq!(e.extracted_from, ExtractedFrom::Span);
        assert_eq!(e.value, serde_json::json!({"a": {"b": 1}}));
    }

    #[test]
    fn a_span_inside_a_later_full_block_is_found() {
        // 100 bytes of prose with no bracket and no backtick, then the JSON
        // inside the second 64-byte block, then more prose so that block is
        // a full one (the block test, not the tail scan, must find it).
        let before = "The record follows after this long introduction, which has no brackets and no code in it at all, o. ";
        let after = " That is the whole answer and there is nothing else to add to it, really.";
        assert_eq!(before.len(), 100);
        for (json, want_object) in [
            ("{\"a\": 1}", true),
            ("{\"a\": {\"b\": 1}}", false),
            ("[1, 2]", false),
        ] {
            let text = format!("{before}{json}{after}");
            assert!(text.len() >= 128, "{}", text.len());
            let e = extract(
                &text,
                ExtractionMode::Lenient,
                want_object,
                &ParseLimits::default(),
            )
            .unwrap_or_else(|err| panic!("{json}: {err:?}"));
            assert_eq!(e.extracted_from, ExtractedFrom::Span, "{json}");
            assert_eq!(
                e.value,
                serde_json::from_str::<Value>(json).unwrap(),
                "{json}"
            );
        }
    }

    #[test]
    fn a_whole_scalar_is_read_as_one_value() {
        for (text, want) in [
            ("\"just a string\"", serde_json::json!("just a string")),
            ("-12.5e3", serde_json::json!(-12500.0)),
            ("7", serde_json::json!(7)),
            ("true", serde_json::json!(true)),
            ("false", serde_json::json!(false)),
            (" null ", serde_json::json!(null)),
        ] {
            let e = any_root(text).unwrap_or_else(|err| panic!("{text}: {err:?}"));
            assert_eq!(
                (e.extracted_from, &e.value),
                (ExtractedFrom::Whole, &want),
                "{text}"
            );
        }
        // Prose that merely starts like a scalar is not one.
        assert!(matches!(
            any_root("nothing here"),
            Err(ExtractionError::NoJson)
        ));
        assert!(matches!(
            any_root("12 monkeys"),
            Err(ExtractionError::NoJson)
        ));
    }

    #[test]
    fn whole_text() {
        let e = lenient(" {\"a\": 1}\n").unwrap();
        assert_eq!(e.extracted_from, ExtractedFrom::Whole);
        assert_eq!(e.value["a"], 1);
    }

    #[test]
    fn prefers_json_fence_over_other_fences() {
        let text = "Here:\n```python\n{'a': 1}\n```\nand\n```json\n{\"a\": 2}\n```";
        let e = lenient(text).unwrap();
        assert_eq!(e.extracted_from, ExtractedFrom::Fence);
        assert_eq!(e.value["a"], 2);
    }

    #[test]
    fn other_language_fence_is_not_json() {
        let text = "```python\nprint({'a': 1})\n```";
        // No json fence and no untagged fence: falls through to the span scan,
        // whose first span is Python, not JSON.
        assert!(matches!(lenient(text), Err(ExtractionError::Invalid(_))));
    }

    #[test]
    fn untagged_fence() {
        let e = lenient("Sure:\n```\n{\"a\": 3}\n```").unwrap();
        assert_eq!(e.extracted_from, ExtractedFrom::Fence);
    }

    #[test]
    fn span_skips_citation_when_object_wanted() {
        let e = lenient("As [1] says, the answer is {\"a\": \"}]\"} done").unwrap();
        assert_eq!(e.extracted_from, ExtractedFrom::Span);
        assert_eq!(e.value["a"], "}]");
    }

    #[test]
    fn array_span_when_array_allowed() {
        let e = extract(
            "list: [1, 2] ok",
            ExtractionMode::Lenient,
            false,
            &ParseLimits::default(),
        )
        .unwrap();
        assert_eq!(e.value, serde_json::json!([1, 2]));
    }

    #[test]
    fn unbalanced_is_truncated() {
        assert_eq!(
            lenient("Result: {\"a\": [1, 2"),
            Err(ExtractionError::Truncated)
        );
        assert_eq!(lenient("{\"a\": \"x}"), Err(ExtractionError::Truncated));
    }

    #[test]
    fn no_json() {
        assert_eq!(
            lenient("I cannot help with that."),
            Err(ExtractionError::NoJson)
        );
        assert_eq!(lenient("   "), Err(ExtractionError::NoJson));
    }

    #[test]
    fn whole_document_with_duplicate_keys_is_not_rescued_by_a_span() {
        let text = r#"{"verdict":"GREEN","verdict":"RED","x":{"verdict":"GREEN"}}"#;
        assert!(matches!(lenient(text), Err(ExtractionError::Invalid(_))));
    }

    #[test]
    fn strict_mode_rejects_fences_and_prose() {
        let limits = ParseLimits::default();
        assert!(extract("```json\n{}\n```", ExtractionMode::Strict, true, &limits).is_err());
        assert!(extract("ok {}", ExtractionMode::Strict, true, &limits).is_err());
        let e = extract("  {\"a\":1} \n", ExtractionMode::Strict, true, &limits).unwrap();
        assert_eq!(e.extracted_from, ExtractedFrom::Whole);
        assert_eq!(
            extract("{\"a\":", ExtractionMode::Strict, true, &limits),
            Err(ExtractionError::Truncated)
        );
    }

    #[test]
    fn escaped_quotes_inside_strings() {
        let e = lenient(r#"note {"a": "say \"}\" now", "b": 2} end"#).unwrap();
        assert_eq!(e.value["b"], 2);
    }
}
