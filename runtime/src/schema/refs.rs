//! Local `$ref` resolution inside one owner schema document: `#`, JSON
//! Pointer fragments (`#/$defs/Node`, draft-07 `#/definitions/Node`) and plain
//! `$anchor` names (`#node`). Anything else is an external reference, which is
//! not supported.

use crate::error::SchemaError;
use serde_json::Value;

/// The schema `reference` points to inside `root`, and its JSON Pointer.
/// `at` is the pointer of the `$ref` keyword, for errors.
pub(crate) fn resolve<'a>(
    root: &'a Value,
    reference: &str,
    at: &str,
) -> Result<(&'a Value, String), SchemaError> {
    let Some(fragment) = reference.strip_prefix('#') else {
        return Err(SchemaError::new(
            at,
            format!(
                "external $ref `{}` is not supported (only local `#...` references)",
                short(reference)
            ),
        ));
    };
    if fragment.is_empty() {
        return Ok((root, String::new()));
    }
    if fragment.starts_with('/') {
        let pointer = percent_decode(fragment);
        return root
            .pointer(&pointer)
            .map(|v| (v, pointer.clone()))
            .ok_or_else(|| {
                SchemaError::new(at, format!("$ref `{}` points to nothing", short(reference)))
            });
    }
    find_anchor(root, fragment).ok_or_else(|| {
        SchemaError::new(
            at,
            format!("$ref `{}`: no $anchor of that name", short(reference)),
        )
    })
}

/// Finds the subschema declaring `$anchor: name` (iterative walk).
fn find_anchor<'a>(root: &'a Value, name: &str) -> Option<(&'a Value, String)> {
    let mut stack: Vec<(&Value, String)> = vec![(root, String::new())];
    while let Some((node, path)) = stack.pop() {
        match node {
            Value::Object(map) => {
                if map.get("$anchor").and_then(Value::as_str) == Some(name) {
                    return Some((node, path));
                }
                for (k, v) in map.iter().rev() {
                    if k != "enum" && k != "const" && k != "default" && k != "examples" {
                        stack.push((v, format!("{path}/{}", escape(k))));
                    }
                }
            }
            Value::Array(items) => {
                for (i, v) in items.iter().enumerate().rev() {
                    stack.push((v, format!("{path}/{i}")));
                }
            }
            _ => {}
        }
    }
    None
}

/// Decodes `%XX` escapes of a URI fragment (invalid escapes are kept).
fn percent_decode(s: &str) -> String {
    if !s.contains('%') {
        return s.to_string();
    }
    let bytes = s.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%'
            && i + 2 < bytes.len()
            && let (Some(h), Some(l)) = (hex(bytes[i + 1]), hex(bytes[i + 2]))
        {
            out.push(h * 16 + l);
            i += 3;
            continue;
        }
        out.push(bytes[i]);
        i += 1;
    }
    String::from_utf8_lossy(&out).into_owned()
}

fn hex(b: u8) -> Option<u8> {
    (b as char).to_digit(16).map(|d| d as u8)
}

/// Escapes one JSON Pointer segment.
pub(crate) fn escape(segment: &str) -> String {
    if segment.contains(['~', '/']) {
        segment.replace('~', "~0").replace('/', "~1")
    } else {
        segment.to_string()
    }
}

/// `s` cut to 120 characters for messages.
pub(crate) fn short(s: &str) -> String {
    let mut out: String = s.chars().take(120).collect();
    if out.len() < s.len() {
        out.push('…');
    }
    out
}
