//! Exact, shallow merging of `allOf` conjuncts (and `$ref` siblings) into one
//! schema, done before objects are closed.
//!
//! Only the top level is merged: a property present in several conjuncts
//! becomes `{"allOf": [..]}` and is merged when the compiler reaches it, so
//! recursion stays under the compiler's depth and work limits. A merge that no
//! value can satisfy is [`MergeError::Infeasible`]; one this module cannot
//! express exactly is [`MergeError::Unsupported`] (the field then travels as
//! JSON-encoded text).

use serde_json::{Map, Value, json};

/// Why conjuncts could not be merged.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum MergeError {
    /// No value satisfies every conjunct.
    Infeasible(String),
    /// The combination has no exact single-schema form here.
    Unsupported(String),
}

/// Merges `conjuncts` (schema objects without top-level `$ref`/`allOf`).
/// Keywords of earlier conjuncts come first; the first `description` wins.
/// `lossy` receives keywords kept on the wire from one conjunct only (the
/// others are still enforced by local validation).
pub(crate) fn merge_all(
    conjuncts: &[Map<String, Value>],
    lossy: &mut Vec<String>,
) -> Result<Map<String, Value>, MergeError> {
    let mut acc = Map::new();
    for c in conjuncts {
        merge_into(&mut acc, c, lossy)?;
    }
    check_feasible(&acc)?;
    Ok(acc)
}

const OBJECT_KEYS: [&str; 3] = ["properties", "required", "additionalProperties"];

fn merge_into(
    acc: &mut Map<String, Value>,
    other: &Map<String, Value>,
    lossy: &mut Vec<String>,
) -> Result<(), MergeError> {
    if OBJECT_KEYS
        .iter()
        .any(|k| acc.contains_key(*k) || other.contains_key(*k))
    {
        merge_object_keywords(acc, other)?;
    }
    for (key, b) in other {
        if OBJECT_KEYS.contains(&key.as_str()) {
            continue;
        }
        let Some(a) = acc.get(key) else {
            acc.insert(key.clone(), b.clone());
            continue;
        };
        if a == b {
            continue;
        }
        let merged = match key.as_str() {
            "type" => {
                let t = intersect_types(&types_of(a), &types_of(b));
                if t.is_empty() {
                    return Err(MergeError::Infeasible(format!(
                        "the branches allow no common type ({a} and {b})"
                    )));
                }
                types_value(t)
            }
            "enum" => {
                let (Value::Array(x), Value::Array(y)) = (a, b) else {
                    return Err(MergeError::Unsupported("a malformed enum".into()));
                };
                let both: Vec<Value> = x.iter().filter(|v| y.contains(v)).cloned().collect();
                if both.is_empty() {
                    return Err(MergeError::Infeasible("the enums share no value".into()));
                }
                Value::Array(both)
            }
            "const" => {
                return Err(MergeError::Infeasible(format!(
                    "two different const values ({} and {})",
                    compact(a),
                    compact(b)
                )));
            }
            "minimum" | "exclusiveMinimum" | "minLength" | "minItems" | "minProperties" => {
                pick_number(a, b, true)?
            }
            "maximum" | "exclusiveMaximum" | "maxLength" | "maxItems" | "maxProperties" => {
                pick_number(a, b, false)?
            }
            "uniqueItems" => Value::Bool(a == &Value::Bool(true) || b == &Value::Bool(true)),
            "items"
            | "propertyNames"
            | "additionalItems"
            | "unevaluatedProperties"
            | "unevaluatedItems" => json!({ "allOf": [a, b] }),
            // not A and not B = not (A or B)
            "not" => json!({ "anyOf": [a, b] }),
            "anyOf" | "oneOf" | "patternProperties" | "prefixItems" | "if" | "then" | "else"
            | "dependentSchemas" | "dependentRequired" | "dependencies" | "contains" => {
                return Err(MergeError::Unsupported(format!(
                    "`{key}` appears in more than one branch"
                )));
            }
            "description" | "title" | "default" | "examples" | "$comment" | "$schema" | "$id"
            | "$anchor" | "$defs" | "definitions" | "discriminator" | "readOnly" | "writeOnly"
            | "deprecated" => continue,
            _ => {
                // pattern, format, multipleOf and unknown keywords: the wire keeps
                // the first; local validation enforces all of them.
                lossy.push(key.clone());
                continue;
            }
        };
        acc.insert(key.clone(), merged);
    }
    Ok(())
}

/// Merges `properties`, `required` and `additionalProperties` of both sides,
/// honouring each side's `additionalProperties` for the other's extra names.
fn merge_object_keywords(
    acc: &mut Map<String, Value>,
    other: &Map<String, Value>,
) -> Result<(), MergeError> {
    let empty = Map::new();
    let props_a = props(acc).unwrap_or(&empty).clone();
    let props_b = props(other).unwrap_or(&empty);
    let mut required: Vec<Value> = Vec::new();
    for r in [acc.get("required"), other.get("required")]
        .into_iter()
        .flatten()
    {
        let Value::Array(names) = r else {
            return Err(MergeError::Unsupported("a malformed `required`".into()));
        };
        for n in names {
            if !required.contains(n) {
                required.push(n.clone());
            }
        }
    }
    let is_required = |name: &str| required.iter().any(|r| r == name);
    let ap_a = acc.get("additionalProperties").cloned();
    let ap_b = other.get("additionalProperties").cloned();
    let patterns_a = acc.get("patternProperties").cloned();
    let patterns_b = other.get("patternProperties").cloned();
    for (side, ap) in [(acc as &Map<_, _>, &ap_b), (other, &ap_a)] {
        if ap.is_some() && side.contains_key("patternProperties") {
            return Err(MergeError::Unsupported(
                "patternProperties combined with additionalProperties".into(),
            ));
        }
    }

    let mut merged = Map::new();
    let names = props_a
        .keys()
        .chain(props_b.keys().filter(|k| !props_a.contains_key(*k)));
    for name in names {
        let mut parts: Vec<Value> = Vec::new();
        // A name a side does not declare is governed by that side's additionalProperties.
        // A name a side's patternProperties admit is governed by those
        // patterns instead.
        for (own, own_ap, own_patterns) in [
            (&props_a, &ap_a, &patterns_a),
            (props_b, &ap_b, &patterns_b),
        ] {
            if own.get(name).is_none()
                && let Some(schemas) = pattern_schemas(own_patterns.as_ref(), name)
            {
                parts.extend(schemas);
                continue;
            }
            match own.get(name) {
                Some(s) => parts.push(s.clone()),
                None => match own_ap {
                    Some(Value::Bool(false)) => {
                        if is_required(name) {
                            return Err(MergeError::Infeasible(format!(
                                "property `{name}` is required by one branch and forbidden by another (additionalProperties: false)"
                            )));
                        }
                        parts.push(Value::Bool(false));
                    }
                    Some(s @ Value::Object(_)) => parts.push(s.clone()),
                    _ => {}
                },
            }
        }
        if parts.contains(&Value::Bool(false)) {
            // Forbidden by one side and optional: it can never appear.
            continue;
        }
        parts.dedup();
        let schema = if parts.len() == 1 {
            parts.remove(0)
        } else {
            json!({ "allOf": parts })
        };
        merged.insert(name.clone(), schema);
    }
    let ap = match (ap_a, ap_b) {
        (Some(Value::Bool(false)), _) | (_, Some(Value::Bool(false))) => Some(Value::Bool(false)),
        (Some(a), Some(b)) if a == b => Some(a),
        (Some(Value::Bool(true)), x) | (x, Some(Value::Bool(true))) => x,
        (Some(a), Some(b)) => Some(json!({ "allOf": [a, b] })),
        (a, None) => a,
        (None, b) => b,
    };
    if !merged.is_empty() || acc.contains_key("properties") || other.contains_key("properties") {
        acc.insert("properties".into(), Value::Object(merged));
    }
    if !required.is_empty() {
        acc.insert("required".into(), Value::Array(required));
    }
    if let Some(ap) = ap {
        acc.insert("additionalProperties".into(), ap);
    }
    Ok(())
}

/// The schemas of the `patternProperties` entries that admit `name`;
/// `None` when none does. A pattern this crate's regex engine cannot compile
/// is taken to admit every name: feasibility is never denied on a doubt
/// (local validation applies the real pattern).
fn pattern_schemas(patterns: Option<&Value>, name: &str) -> Option<Vec<Value>> {
    let Some(Value::Object(patterns)) = patterns else {
        return None;
    };
    let admitting: Vec<Value> = patterns
        .iter()
        .filter(|(pattern, _)| regex::Regex::new(pattern).map_or(true, |re| re.is_match(name)))
        .map(|(_, schema)| schema.clone())
        .collect();
    (!admitting.is_empty()).then_some(admitting)
}

fn props(map: &Map<String, Value>) -> Option<&Map<String, Value>> {
    map.get("properties").and_then(Value::as_object)
}

fn pick_number(a: &Value, b: &Value, larger: bool) -> Result<Value, MergeError> {
    match (a.as_f64(), b.as_f64()) {
        (Some(x), Some(y)) => Ok(if (x >= y) == larger {
            a.clone()
        } else {
            b.clone()
        }),
        _ => Err(MergeError::Unsupported(format!(
            "non-numeric bounds ({} and {})",
            compact(a),
            compact(b)
        ))),
    }
}

/// Rejects merged schemas that no value can satisfy.
fn check_feasible(map: &Map<String, Value>) -> Result<(), MergeError> {
    let num = |k: &str| map.get(k).and_then(Value::as_f64);
    let pairs = [
        ("minimum", "maximum", false),
        ("exclusiveMinimum", "maximum", true),
        ("minimum", "exclusiveMaximum", true),
        ("exclusiveMinimum", "exclusiveMaximum", true),
        ("minLength", "maxLength", false),
        ("minItems", "maxItems", false),
        ("minProperties", "maxProperties", false),
    ];
    for (lo, hi, strict) in pairs {
        if let (Some(l), Some(h)) = (num(lo), num(hi))
            && (l > h || (strict && l >= h))
        {
            return Err(MergeError::Infeasible(format!(
                "`{lo}` {l} is above `{hi}` {h}"
            )));
        }
    }
    if let Some(t) = map.get("type") {
        let types = types_of(t);
        if let Some(c) = map.get("const")
            && !types.iter().any(|t| value_has_type(c, t))
        {
            return Err(MergeError::Infeasible(format!(
                "const {} is not of type {t}",
                compact(c)
            )));
        }
        if let Some(Value::Array(values)) = map.get("enum")
            && !values
                .iter()
                .any(|v| types.iter().any(|t| value_has_type(v, t)))
        {
            return Err(MergeError::Infeasible(format!(
                "no enum value is of type {t}"
            )));
        }
    }
    if let (Some(c), Some(Value::Array(values))) = (map.get("const"), map.get("enum"))
        && !values.contains(c)
    {
        return Err(MergeError::Infeasible(format!(
            "const {} is not in the enum",
            compact(c)
        )));
    }
    if map.get("additionalProperties") == Some(&Value::Bool(false))
        && let Some(Value::Array(required)) = map.get("required")
    {
        let declared = props(map);
        let patterns = map.get("patternProperties");
        for r in required.iter().filter_map(Value::as_str) {
            if !declared.is_some_and(|p| p.contains_key(r))
                && pattern_schemas(patterns, r).is_none()
            {
                return Err(MergeError::Infeasible(format!(
                    "property `{r}` is required but not allowed (additionalProperties: false)"
                )));
            }
        }
    }
    Ok(())
}

/// The type names of a `type` keyword value (unknown shapes give none).
pub(crate) fn types_of(t: &Value) -> Vec<String> {
    match t {
        Value::String(s) => vec![s.clone()],
        Value::Array(ts) => ts
            .iter()
            .filter_map(Value::as_str)
            .map(str::to_string)
            .collect(),
        _ => Vec::new(),
    }
}

fn types_value(mut t: Vec<String>) -> Value {
    if t.len() == 1 {
        Value::String(t.remove(0))
    } else {
        Value::Array(t.into_iter().map(Value::String).collect())
    }
}

fn intersect_types(a: &[String], b: &[String]) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for t in a {
        let hit = if b.contains(t) {
            Some(t.as_str())
        } else if (t == "number" && b.iter().any(|x| x == "integer"))
            || (t == "integer" && b.iter().any(|x| x == "number"))
        {
            Some("integer")
        } else {
            None
        };
        if let Some(h) = hit
            && !out.iter().any(|o| o == h)
        {
            out.push(h.to_string());
        }
    }
    out
}

/// Whether `v` is an instance of JSON Schema type `t`.
pub(crate) fn value_has_type(v: &Value, t: &str) -> bool {
    match t {
        "null" => v.is_null(),
        "boolean" => v.is_boolean(),
        "string" => v.is_string(),
        "array" => v.is_array(),
        "object" => v.is_object(),
        "number" => v.is_number(),
        "integer" => {
            v.is_i64()
                || v.is_u64()
                || v.as_f64()
                    .is_some_and(|f| f.fract() == 0.0 && f.is_finite())
        }
        _ => false,
    }
}

/// Compact JSON of `v`, cut to 120 characters.
pub(crate) fn compact(v: &Value) -> String {
    super::refs::short(&v.to_string())
}
