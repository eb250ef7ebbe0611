//! Local `$ref` resolution inside one owner schema document: `#`, JSON
//! Pointer fragments (`#/$defs/Node`, draft-07 `#/definitions/Node`) and plain
//! `$anchor` names (`#node`), also behind the document's own `$id`. Anything
//! else is an external reference: the compiler sends it as JSON-encoded text
//! and leaves it to the validator, which resolves what it can offline.

use crate::error::SchemaError;
use serde_json::Value;

/// The schema `reference` points to inside `root`, and its JSON Pointer.
/// `at` is the pointer of the `$ref` keyword, for errors.
pub(crate) fn resolve<'a>(
    root: &'a Value,
    reference: &str,
    at: &str,
) -> Result<(&'a Value, String), SchemaError> {
    let Some(fragment) = local_fragment(root, reference) else {
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

/// The fragment of `reference` when it points into `root` itself: `#…`, or
/// a reference whose part before `#` is the document's own `$id` (in full,
/// or its last path segment, as in `catalog-info.json#/definitions/entity`).
fn local_fragment<'a>(root: &Value, reference: &'a str) -> Option<&'a str> {
    let (base, fragment) = match reference.split_once('#') {
        Some((base, fragment)) => (base, fragment),
        None => (reference, ""),
    };
    if base.is_empty() {
        return Some(fragment);
    }
    let id = root.get("$id").or_else(|| root.get("id"))?.as_str()?;
    let id = id.split('#').next().unwrap_or(id);
    let last = id.rsplit('/').next().unwrap_or(id);
    (base == id || (!last.is_empty() && base == last)).then_some(fragment)
}

/// Whether `reference` points outside the document `root`.
pub(crate) fn is_external(root: &Value, reference: &str) -> bool {
    local_fragment(root, reference).is_none()
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

/// Keywords whose values are data, not schemas: a `{"$ref": …}` inside them
/// is an instance value and is never rewritten.
const DATA_KEYWORDS: [&str; 4] = ["const", "enum", "default", "examples"];
/// Keywords whose values map names to schemas (a property may be called
/// `const`).
const NAME_MAPS: [&str; 5] = [
    "properties",
    "patternProperties",
    "$defs",
    "definitions",
    "dependentSchemas",
];

/// `schema` as it must read when placed at JSON Pointer `base` inside a
/// larger document: every local JSON Pointer reference (`#` and `#/…`) is
/// rebased onto `base` (`#/$defs/Node` → `#<base>/$defs/Node`), so it still
/// points into `schema` rather than into the new document's root. Anchor
/// references (`#name`), external references and `$ref`-shaped data under
/// `const`, `enum`, `default` and `examples` are left alone. Iterative: the
/// walk's depth is not bounded by the stack.
///
/// Used to embed an owner schema whole (with its `$defs`) in a prompt-mode
/// envelope, where the provider never sees a compiled wire schema.
pub fn rebase_local_refs(schema: Value, base: &str) -> Value {
    let mut out = schema;
    // (node, whether node is a name → schema map such as `properties`)
    let mut stack = vec![(&mut out, false)];
    while let Some((node, names)) = stack.pop() {
        match node {
            Value::Object(map) => {
                if names {
                    stack.extend(map.values_mut().map(|v| (v, false)));
                    continue;
                }
                if let Some(Value::String(reference)) = map.get_mut("$ref")
                    && let Some(fragment) = reference.strip_prefix('#')
                    && (fragment.is_empty() || fragment.starts_with('/'))
                {
                    *reference = format!("#{base}{fragment}");
                }
                for (key, value) in map.iter_mut() {
                    if !DATA_KEYWORDS.contains(&key.as_str()) {
                        stack.push((value, NAME_MAPS.contains(&key.as_str())));
                    }
                }
            }
            Value::Array(items) => stack.extend(items.iter_mut().map(|v| (v, false))),
            _ => {}
        }
    }
    out
}

/// Whether `schema` holds a `$ref` anywhere (iterative).
pub fn contains_ref(schema: &Value) -> bool {
    let mut stack = vec![schema];
    while let Some(node) = stack.pop() {
        match node {
            Value::Object(map) => {
                if map.contains_key("$ref") {
                    return true;
                }
                stack.extend(map.values());
            }
            Value::Array(items) => stack.extend(items),
            _ => {}
        }
    }
    false
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
    crate::text::clip_marked(s, crate::text::Limit::Chars(120), "…").into_owned()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn local_pointer_refs_are_rebased_and_nothing_else() {
        let schema = json!({
            "$defs": {"node": {"properties": {"next": {"$ref": "#/$defs/node"}}}},
            "properties": {
                "root": {"$ref": "#"},
                "named": {"$ref": "#anchor"},
                "external": {"$ref": "other.json#/x"},
                "const": {"$ref": "#/$defs/node"},
                "data": {"const": {"$ref": "#/data"}, "enum": [{"$ref": "#/e"}]},
            },
            "items": [{"$ref": "#/definitions/a~1b"}],
        });
        let out = rebase_local_refs(schema, "/$defs/red");
        assert_eq!(
            out["$defs"]["node"]["properties"]["next"]["$ref"],
            "#/$defs/red/$defs/node"
        );
        let props = &out["properties"];
        assert_eq!(props["root"]["$ref"], "#/$defs/red");
        assert_eq!(props["named"]["$ref"], "#anchor");
        assert_eq!(props["external"]["$ref"], "other.json#/x");
        assert_eq!(props["const"]["$ref"], "#/$defs/red/$defs/node");
        assert_eq!(props["data"]["const"], json!({"$ref": "#/data"}));
        assert_eq!(props["data"]["enum"], json!([{"$ref": "#/e"}]));
        assert_eq!(out["items"][0]["$ref"], "#/$defs/red/definitions/a~1b");
    }

    #[test]
    fn deep_schemas_do_not_overflow_the_stack() {
        let mut schema = json!({"$ref": "#"});
        for _ in 0..100_000 {
            let mut map = serde_json::Map::new();
            map.insert("items".into(), schema);
            schema = Value::Object(map);
        }
        let out = rebase_local_refs(schema, "/x");
        let mut node = &out;
        while let Some(next) = node.get("items") {
            node = next;
        }
        assert_eq!(node["$ref"], "#/x");
        // Dropping a 100,000-deep Value recurses in serde_json: leak it.
        std::mem::forget(out);
    }
}
