//! A strict JSON parser for untrusted text.
//!
//! On top of `serde_json` it rejects what makes an answer ambiguous or
//! dangerous: duplicate keys in one object (`{"verdict":"GREEN","verdict":"RED"}`),
//! nesting deeper than a limit, and integers outside the 64-bit range (which
//! `serde_json` would silently round to a float). A pre-scan measures depth
//! iteratively, so no input can overflow the stack.

use serde::de::{self, DeserializeSeed, MapAccess, SeqAccess, Visitor};
use serde_json::{Map, Value};
use std::fmt;

/// Limits applied by [`parse_strict`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ParseLimits {
    /// Deepest allowed nesting of arrays and objects. Default: 128. Values
    /// above [`MAX_DEPTH_CEILING`] are clamped to it.
    pub max_depth: usize,
}

impl Default for ParseLimits {
    fn default() -> Self {
        ParseLimits { max_depth: 128 }
    }
}

/// The largest depth limit accepted (keeps recursion far from the stack's end).
pub const MAX_DEPTH_CEILING: usize = 1024;

/// Why text was not accepted as JSON.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{message}")]
pub struct ParseError {
    /// One-line description (may quote a key from the input).
    pub message: String,
    /// True when the text ended inside a value (an unbalanced or cut-off document).
    pub eof: bool,
}

/// Parses `text` as exactly one JSON value (surrounding whitespace allowed).
pub fn parse_strict(text: &str, limits: &ParseLimits) -> Result<Value, ParseError> {
    let max_depth = limits.max_depth.min(MAX_DEPTH_CEILING);
    prescan(text, max_depth)?;
    let mut de = serde_json::Deserializer::from_str(text);
    // The pre-scan has bounded the depth, so serde_json's own fixed limit (which
    // would reject depth 128 itself) is not needed to protect the stack.
    de.disable_recursion_limit();
    let value = StrictValue.deserialize(&mut de).map_err(to_parse_error)?;
    de.end().map_err(to_parse_error)?;
    Ok(value)
}

fn to_parse_error(e: serde_json::Error) -> ParseError {
    ParseError {
        eof: e.is_eof(),
        message: e.to_string(),
    }
}

/// Checks depth and integer range without recursion.
fn prescan(text: &str, max_depth: usize) -> Result<(), ParseError> {
    let bytes = text.as_bytes();
    let mut depth = 0usize;
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            b'"' => {
                i += 1;
                while i < bytes.len() {
                    match bytes[i] {
                        b'\\' => i += 2,
                        b'"' => break,
                        _ => i += 1,
                    }
                }
            }
            b'[' | b'{' => {
                depth += 1;
                if depth > max_depth {
                    return Err(ParseError {
                        message: format!("nesting deeper than {max_depth} levels"),
                        eof: false,
                    });
                }
            }
            b']' | b'}' => depth = depth.saturating_sub(1),
            b'-' | b'0'..=b'9' => {
                let start = i;
                while i + 1 < bytes.len()
                    && matches!(bytes[i + 1], b'0'..=b'9' | b'.' | b'e' | b'E' | b'+' | b'-')
                {
                    i += 1;
                }
                let token = &text[start..=i];
                let is_integer = !token.contains(['.', 'e', 'E']);
                if is_integer && token.parse::<i64>().is_err() && token.parse::<u64>().is_err() {
                    // Either out of range or not a number at all; only the former is
                    // ours to report, serde_json reports the latter.
                    if token
                        .trim_start_matches('-')
                        .bytes()
                        .all(|b| b.is_ascii_digit())
                        && token.len() > 1
                    {
                        return Err(ParseError {
                            message: format!(
                                "integer out of the 64-bit range: {}",
                                crate::text::clip(token, crate::text::Limit::Chars(40))
                            ),
                            eof: false,
                        });
                    }
                }
            }
            _ => {}
        }
        i += 1;
    }
    Ok(())
}

struct StrictValue;

impl<'de> DeserializeSeed<'de> for StrictValue {
    type Value = Value;
    fn deserialize<D: de::Deserializer<'de>>(self, d: D) -> Result<Value, D::Error> {
        d.deserialize_any(StrictVisitor)
    }
}

struct StrictVisitor;

impl<'de> Visitor<'de> for StrictVisitor {
    type Value = Value;

    // Equivalent under mutation (`→ Ok(Default::default())`): serde_json's
    // `deserialize_any` always calls one of the `visit_*` methods below, so
    // this text only appears in an error no JSON input can produce.
    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a JSON value")
    }
    fn visit_bool<E>(self, v: bool) -> Result<Value, E> {
        Ok(Value::Bool(v))
    }
    fn visit_i64<E>(self, v: i64) -> Result<Value, E> {
        Ok(Value::from(v))
    }
    fn visit_u64<E>(self, v: u64) -> Result<Value, E> {
        Ok(Value::from(v))
    }
    fn visit_f64<E: de::Error>(self, v: f64) -> Result<Value, E> {
        serde_json::Number::from_f64(v)
            .map(Value::Number)
            .ok_or_else(|| E::custom("number out of range"))
    }
    fn visit_str<E>(self, v: &str) -> Result<Value, E> {
        Ok(Value::String(v.to_owned()))
    }
    // Equivalent under mutation (`→ Ok(Default::default())`): serde_json's
    // string reader hands strings to `visit_str` / `visit_borrowed_str` only;
    // kept for other deserializers.
    fn visit_string<E>(self, v: String) -> Result<Value, E> {
        Ok(Value::String(v))
    }
    // Equivalent under mutation, like `visit_none`: `Value::default()` is
    // `Value::Null`.
    fn visit_unit<E>(self) -> Result<Value, E> {
        Ok(Value::Null)
    }
    fn visit_none<E>(self) -> Result<Value, E> {
        Ok(Value::Null)
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Value, A::Error> {
        let mut out = Vec::new();
        while let Some(v) = seq.next_element_seed(StrictValue)? {
            out.push(v);
        }
        Ok(Value::Array(out))
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Value, A::Error> {
        let mut out = Map::new();
        while let Some(key) = map.next_key::<String>()? {
            if out.contains_key(&key) {
                return Err(de::Error::custom(format_args!(
                    "duplicate key {:?} in one object",
                    crate::text::clip(&key, crate::text::Limit::Chars(64))
                )));
            }
            let v = map.next_value_seed(StrictValue)?;
            out.insert(key, v);
        }
        Ok(Value::Object(out))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(s: &str) -> Result<Value, ParseError> {
        parse_strict(s, &ParseLimits::default())
    }

    #[test]
    fn accepts_plain_values_and_keeps_key_order() {
        let v = parse(r#" {"b": 1, "a": [true, null, 1.5, "x"]} "#).unwrap();
        assert_eq!(v.to_string(), r#"{"b":1,"a":[true,null,1.5,"x"]}"#);
    }

    #[test]
    fn rejects_duplicate_keys() {
        let e = parse(r#"{"verdict":"GREEN","verdict":"RED"}"#).unwrap_err();
        assert!(e.message.contains("duplicate key"), "{e}");
        assert!(parse(r#"{"a":{"k":1,"k":2}}"#).is_err());
    }

    #[test]
    fn rejects_nan_infinity_and_out_of_range() {
        assert!(parse("NaN").is_err());
        assert!(parse("[Infinity]").is_err());
        assert!(parse("1e400").is_err());
        assert!(parse("123456789012345678901234567890").is_err());
        assert!(parse("-9223372036854775808").is_ok());
        assert!(parse("18446744073709551615").is_ok());
        assert!(parse("0").is_ok());
    }

    #[test]
    fn deep_nesting_is_an_error_not_a_stack_overflow() {
        let deep = "[".repeat(100_000) + &"]".repeat(100_000);
        let e = parse(&deep).unwrap_err();
        assert!(e.message.contains("nesting"));
        let ok = "[".repeat(128) + &"]".repeat(128);
        assert!(parse(&ok).is_ok());
        let too_deep = "[".repeat(129) + &"]".repeat(129);
        assert!(parse(&too_deep).is_err());
        let limited = parse_strict("[[[1]]]", &ParseLimits { max_depth: 2 });
        assert!(limited.is_err());
    }

    #[test]
    fn brackets_inside_strings_do_not_count_as_depth() {
        let s = format!("{{\"a\": \"{}\"}}", "[".repeat(1000));
        assert!(parse(&s).is_ok());
    }

    /// Depth is nesting, not the number of brackets: many siblings at one
    /// level are fine (a scan that never closed a level would refuse them).
    #[test]
    fn closed_levels_do_not_count_as_depth() {
        let siblings = format!("[{}]", vec!["[]"; 200].join(","));
        assert!(parse(&siblings).is_ok());
        let limited = ParseLimits { max_depth: 2 };
        assert!(parse_strict("[[1],[2],[3]]", &limited).is_ok());
    }

    /// An escaped quote does not end a string: the brackets after it are
    /// still text (a scan that ignored `\` would count them as depth).
    #[test]
    fn an_escaped_quote_keeps_the_string_open() {
        let limited = ParseLimits { max_depth: 2 };
        let v = parse_strict(r#"["a\"[[[[", 1]"#, &limited).unwrap();
        assert_eq!(v[0], "a\"[[[[");
    }

    /// An escape skips exactly the escaped character: nesting far after a
    /// late escape is still measured (a scan that jumped ahead would miss it).
    #[test]
    fn an_escape_skips_one_character_only() {
        let text = format!(
            "{}[\"\\n\", {}{}]",
            " ".repeat(200),
            "[".repeat(130),
            "]".repeat(130)
        );
        let e = parse(&text).unwrap_err();
        assert!(e.message.contains("nesting deeper than 128"), "{e}");
    }

    /// Only a run of digits too long for 64 bits is "out of range"; any other
    /// malformed number (`-`, `1-2`) gets serde_json's own message.
    #[test]
    fn malformed_numbers_are_not_called_out_of_range() {
        for text in ["[-]", "[1-2]", "-"] {
            let e = parse(text).unwrap_err();
            assert!(!e.message.contains("64-bit"), "{text}: {e}");
        }
        let e = parse("[-99999999999999999999]").unwrap_err();
        assert!(e.message.contains("integer out of the 64-bit range"), "{e}");
    }

    #[test]
    fn trailing_content_is_rejected() {
        assert!(parse("{} {}").is_err());
        let e = parse(r#"{"a": [1, 2"#).unwrap_err();
        assert!(e.eof);
    }
}
