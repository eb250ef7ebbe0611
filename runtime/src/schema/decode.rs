//! Decoding a provider's wire answer back into the owner's shape: the
//! [`DecodePlan`] a compilation produces, and its inverse ([`DecodePlan::encode`]),
//! which writes an owner-shaped value the way a provider would send it.

use super::merge::value_has_type;
use super::refs::escape;
use super::validate::Issue;
use crate::json::{ParseLimits, parse_strict};
use indexmap::IndexMap;
use serde::Serialize;
use serde_json::{Map, Value};

/// The inverse steps of a compilation: a tree of [`Step`]s that mirrors the
/// parts of the wire schema that differ from the owner schema.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(transparent)]
pub struct DecodePlan {
    /// The step applied to the whole wire answer.
    pub root: Step,
}

/// One inverse step, applied to the value at its place in the wire answer.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(tag = "op", rename_all = "snake_case")]
pub enum Step {
    /// The value is already owner-shaped.
    Keep,
    /// Take the value of the only property `key` (a wrapped root).
    Unwrap {
        /// The wrapper's property name (`value`).
        key: String,
        /// The step for the wrapped value.
        then: Box<Step>,
    },
    /// An object: every wire property in order, with its own step.
    Object {
        /// The wire properties (all required on the wire).
        fields: IndexMap<String, Field>,
    },
    /// An array: the step for every item.
    Array {
        /// The step for each item.
        items: Box<Step>,
    },
    /// A union: the first branch whose guard matches the value decodes it.
    AnyOf {
        /// The branches, in wire order.
        branches: Vec<Branch>,
    },
    /// The value is a string holding JSON-encoded owner-shaped text.
    Json,
    /// Like [`Step::Json`], but text that is not JSON is the string itself:
    /// for a union of plain strings and values sent as JSON text, where a
    /// model writes the string case as it is (`nightly`, not `"nightly"`).
    /// Text that parses as JSON is always the parsed value (`[]` is an array).
    JsonOrString,
    /// A string that matches one of `values` ignoring case becomes that value
    /// (Anthropic does not guarantee the capitalisation of enum values).
    Enum {
        /// The declared string values.
        values: Vec<String>,
    },
}

/// The decoding of one object property.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Field {
    /// Optional in the owner schema: absent values travel as `null`.
    #[serde(skip_serializing_if = "is_false")]
    pub optional: bool,
    /// A `null` here is a placeholder: remove the property.
    #[serde(skip_serializing_if = "is_false")]
    pub drop_null: bool,
    /// Optional on the wire too (left out of `required`): an absent value
    /// stays absent. Only when a target's limits left no room for a
    /// placeholder union.
    #[serde(skip_serializing_if = "is_false")]
    pub omittable: bool,
    /// The step for the property's value.
    #[serde(skip_serializing_if = "Step::is_keep")]
    pub then: Step,
}

/// One branch of a union and the shape that selects it.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Branch {
    /// The wire types the branch accepts (empty: any).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub types: Vec<String>,
    /// For an object branch, its property names.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub keys: Option<Vec<String>>,
    /// Those of `keys` that the wire lets the provider leave out.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub omittable: Vec<String>,
    /// Properties whose wire schema is a single constant (discriminators).
    #[serde(skip_serializing_if = "IndexMap::is_empty")]
    pub tags: IndexMap<String, Value>,
    /// The step for a value of this branch.
    pub then: Step,
}

fn is_false(b: &bool) -> bool {
    !*b
}

impl Step {
    /// Whether this step changes nothing.
    pub fn is_keep(&self) -> bool {
        matches!(self, Step::Keep)
    }
}

impl Field {
    /// Whether this field decodes to itself.
    pub(crate) fn is_trivial(&self) -> bool {
        !self.optional && !self.drop_null && !self.omittable && self.then.is_keep()
    }
}

impl DecodePlan {
    /// A plan that changes nothing.
    pub fn identity() -> Self {
        DecodePlan { root: Step::Keep }
    }

    /// Applies the plan to a wire value. A JSON-encoded field that is not valid
    /// JSON is an issue at that field's path. Values of an unexpected shape
    /// are left as they are for validation to report.
    pub fn decode(&self, wire: Value) -> Result<Value, Vec<Issue>> {
        let mut issues = Vec::new();
        let mut path = String::new();
        let value = decode_step(&self.root, wire, &mut path, &mut issues);
        if issues.is_empty() {
            Ok(value)
        } else {
            Err(issues)
        }
    }

    /// The inverse of [`decode`](Self::decode): `value` (owner-shaped) as
    /// the provider would send it. Useful for scripted backends and tests.
    pub fn encode(&self, value: &Value) -> Value {
        encode_step(&self.root, value)
    }
}

fn decode_step(step: &Step, value: Value, path: &mut String, issues: &mut Vec<Issue>) -> Value {
    match step {
        Step::Keep => value,
        Step::Unwrap { key, then } => match value {
            Value::Object(mut map) if map.len() == 1 && map.contains_key(key) => {
                let inner = map.remove(key).unwrap_or(Value::Null);
                let len = path.len();
                path.push('/');
                path.push_str(&escape(key));
                let out = decode_step(then, inner, path, issues);
                path.truncate(len);
                out
            }
            other => other,
        },
        Step::Object { fields } => match value {
            Value::Object(map) => {
                let mut out = Map::with_capacity(map.len());
                for (k, v) in map {
                    let Some(field) = fields.get(&k) else {
                        out.insert(k, v);
                        continue;
                    };
                    if v.is_null() && field.drop_null {
                        continue;
                    }
                    let len = path.len();
                    path.push('/');
                    path.push_str(&escape(&k));
                    let v = decode_step(&field.then, v, path, issues);
                    path.truncate(len);
                    if v.is_null() && field.drop_null {
                        continue; // JSON-encoded text `null`: left out
                    }
                    out.insert(k, v);
                }
                Value::Object(out)
            }
            other => other,
        },
        Step::Array { items } => match value {
            Value::Array(values) => {
                let mut out = Vec::with_capacity(values.len());
                for (i, v) in values.into_iter().enumerate() {
                    let len = path.len();
                    path.push('/');
                    path.push_str(&i.to_string());
                    out.push(decode_step(items, v, path, issues));
                    path.truncate(len);
                }
                Value::Array(out)
            }
            other => other,
        },
        Step::AnyOf { branches } => match select(branches, &value) {
            Some(b) => decode_step(&b.then, value, path, issues),
            None => value,
        },
        Step::Json => match value {
            Value::String(text) => match parse_strict(&text, &ParseLimits::default()) {
                Ok(v) => v,
                Err(e) => {
                    issues.push(Issue::new(
                        path.clone(),
                        format!(
                            "the JSON-encoded text is not valid JSON: {}",
                            crate::text::one_line(&e.message, 160)
                        ),
                    ));
                    Value::String(text)
                }
            },
            other => other,
        },
        Step::JsonOrString => match value {
            Value::String(text) => {
                parse_strict(&text, &ParseLimits::default()).unwrap_or(Value::String(text))
            }
            other => other,
        },
        Step::Enum { values } => match value {
            Value::String(s) => Value::String(case_map(values, s)),
            other => other,
        },
    }
}

/// `s`, or the one declared value equal to it ignoring case.
fn case_map(values: &[String], s: String) -> String {
    if values.contains(&s) {
        return s;
    }
    let lower = s.to_lowercase();
    let mut hits = values.iter().filter(|v| v.to_lowercase() == lower);
    match (hits.next(), hits.next()) {
        (Some(only), None) => only.clone(),
        _ => s,
    }
}

/// The branch for `value`: exact tags first, then tags ignoring case.
fn select<'a>(branches: &'a [Branch], value: &Value) -> Option<&'a Branch> {
    let fits = |b: &Branch, fold: bool| {
        (b.types.is_empty() || b.types.iter().any(|t| value_has_type(value, t)))
            && match (&b.keys, value) {
                (Some(keys), Value::Object(map)) => {
                    map.keys().all(|k| keys.contains(k))
                        && keys
                            .iter()
                            .all(|k| map.contains_key(k) || b.omittable.contains(k))
                }
                _ => true,
            }
            && b.tags.iter().all(|(k, tag)| match value.get(k) {
                Some(v) if v == tag => true,
                Some(Value::String(v)) if fold => tag
                    .as_str()
                    .is_some_and(|t| t.to_lowercase() == v.to_lowercase()),
                _ => false,
            })
    };
    branches
        .iter()
        .find(|b| fits(b, false))
        .or_else(|| branches.iter().find(|b| fits(b, true)))
}

fn encode_step(step: &Step, value: &Value) -> Value {
    match step {
        Step::Keep | Step::Enum { .. } => value.clone(),
        Step::Unwrap { key, then } => {
            let mut map = Map::new();
            map.insert(key.clone(), encode_step(then, value));
            Value::Object(map)
        }
        Step::Object { fields } => match value {
            Value::Object(map) => {
                let mut out = Map::with_capacity(fields.len());
                for (k, field) in fields {
                    match map.get(k) {
                        Some(v) => {
                            out.insert(k.clone(), encode_step(&field.then, v));
                        }
                        None if field.optional && !field.omittable => {
                            out.insert(k.clone(), Value::Null);
                        }
                        None => {}
                    }
                }
                for (k, v) in map {
                    if !fields.contains_key(k) {
                        out.insert(k.clone(), v.clone());
                    }
                }
                Value::Object(out)
            }
            other => other.clone(),
        },
        Step::Array { items } => match value {
            Value::Array(values) => {
                Value::Array(values.iter().map(|v| encode_step(items, v)).collect())
            }
            other => other.clone(),
        },
        Step::AnyOf { branches } => {
            for b in branches {
                let encoded = encode_step(&b.then, value);
                if select(std::slice::from_ref(b), &encoded).is_some() {
                    return encoded;
                }
            }
            value.clone()
        }
        Step::Json | Step::JsonOrString => Value::String(value.to_string()),
    }
}
