//! Lowering `anyOf` / `oneOf`: the surrounding keywords distributed into
//! every branch, nested unions flattened, constant-only unions collapsed into
//! one `enum`, and the tagged decode step that tells branches apart.

use super::{
    Failure, Lowered, Lowering, type_keyword, wire_keys, wire_omittable, wire_tags, wire_types,
};
use crate::error::SchemaError;
use crate::output::SchemaTarget;
use crate::schema::decode::{Branch, Step};
use crate::schema::keywords::{self, KeywordRole};
use crate::schema::merge::types_of;
use serde_json::{Map, Value, json};

impl Lowering<'_> {
    /// `anyOf` / `oneOf`, with the surrounding keywords distributed into
    /// every branch.
    pub(super) fn lower_union(
        &mut self,
        map: &Map<String, Value>,
        path: &str,
    ) -> Result<Lowered, Failure> {
        if map.contains_key("anyOf") && map.contains_key("oneOf") {
            return Ok(self.json_field(
                &Value::Object(map.clone()),
                path,
                "anyOf together with oneOf",
            ));
        }
        let key = if map.contains_key("oneOf") {
            "oneOf"
        } else {
            "anyOf"
        };
        let Some(Value::Array(branches)) = map.get(key) else {
            return Err(SchemaError::new(
                format!("{path}/{key}"),
                format!("`{key}` must be an array"),
            )
            .into());
        };
        if branches.is_empty() {
            return Err(SchemaError::new(
                format!("{path}/{key}"),
                format!("`{key}` must not be empty"),
            )
            .into());
        }
        if key == "oneOf" {
            self.note(
                path,
                "oneOf sent as anyOf (exclusivity is checked on receipt)",
            );
        }
        if map.contains_key("discriminator") {
            self.note(
                path,
                "`discriminator` dropped (the branches' const values select)",
            );
        }
        let base: Map<String, Value> = map
            .iter()
            .filter(|(k, _)| k.as_str() != key && keywords::role(k) != KeywordRole::Annotation)
            .map(|(k, v)| (k.clone(), v.clone()))
            .collect();
        let mut lowered: Vec<Lowered> = Vec::new();
        for (i, b) in branches.iter().enumerate() {
            let at = format!("{path}/{key}/{i}");
            let node = if base.is_empty() {
                b.clone()
            } else {
                json!({ "allOf": [Value::Object(base.clone()), b] })
            };
            match self.lower(&node, &at) {
                Ok(x) => lowered.push(x),
                Err(Failure::Infeasible(_)) => {
                    self.note(
                        &at,
                        "this branch cannot match the surrounding schema; left out",
                    );
                }
                Err(e) => return Err(e),
            }
        }
        self.finish_union(map, lowered, path)
    }

    /// Builds the wire `anyOf` of the owner node `map` from its lowered
    /// branches, and its decode step (nested unions flattened).
    pub(super) fn finish_union(
        &mut self,
        map: &Map<String, Value>,
        lowered: Vec<Lowered>,
        path: &str,
    ) -> Result<Lowered, Failure> {
        let description = map.get("description");
        let mut flat: Vec<Lowered> = Vec::new();
        for (wire, step) in lowered {
            let nested = match &wire {
                Value::Object(m) if m.len() == 1 => {
                    m.get("anyOf").and_then(Value::as_array).cloned()
                }
                _ => None,
            };
            match (nested, step) {
                (Some(ws), Step::AnyOf { branches }) if ws.len() == branches.len() => {
                    flat.extend(ws.into_iter().zip(branches.into_iter().map(|b| b.then)));
                }
                (Some(ws), Step::Keep) => flat.extend(ws.into_iter().map(|w| (w, Step::Keep))),
                (_, step) => flat.push((wire, step)),
            }
        }
        flat.dedup_by(|a, b| a.0 == b.0 && a.1 == b.1);
        if flat.is_empty() {
            return Err(Failure::Infeasible(SchemaError::new(
                path,
                "no branch of the union can be satisfied",
            )));
        }
        if flat.len() == 1 {
            let (mut wire, step) = flat.remove(0);
            if let (Some(d), Value::Object(m)) = (description, &mut wire)
                && !m.contains_key("description")
            {
                m.insert("description".into(), d.clone());
            }
            return Ok((wire, step));
        }
        if let Some(collapsed) = self.collapse_constants(description, &flat) {
            return Ok(collapsed);
        }
        // A JSON-text branch beside a branch that takes plain strings: the
        // text `[]` could be either, and the string branch would win with a
        // valid but wrong value. The branches that take strings become one
        // text field, read as JSON when it parses, else as the plain string;
        // the others (objects, numbers, …) stay constrained beside it.
        let is_text = |s: &Step| matches!(s, Step::Json | Step::JsonOrString);
        let text = flat.iter().any(|(_, s)| is_text(s));
        let string = flat.iter().any(|(w, s)| !is_text(s) && admits_strings(w));
        if text && string {
            let others: Vec<Lowered> = flat
                .into_iter()
                .filter(|(w, s)| !is_text(s) && !admits_strings(w))
                .collect();
            let why = if others.is_empty() {
                "a union of a JSON-text branch and a string branch"
            } else {
                "the string and JSON-text branches of a union, as one field"
            };
            let (mut wire, _) = self.json_field(&Value::Object(map.clone()), path, why);
            if let Some(Value::String(d)) = wire.get_mut("description") {
                *d = d.replacen(
                    "A JSON-encoded string.",
                    "A JSON-encoded value, or a plain string written as it is (text that is itself JSON, such as 42 or true, as a quoted JSON string).",
                    1,
                );
            }
            if others.is_empty() {
                return Ok((wire, Step::JsonOrString));
            }
            flat = others;
            flat.push((wire, Step::JsonOrString));
        }
        let keep = flat.iter().all(|(_, s)| s.is_keep());
        let mut wire = Map::new();
        if let Some(d) = description {
            wire.insert("description".into(), d.clone());
        }
        let mut branches = Vec::with_capacity(flat.len());
        let mut wires = Vec::with_capacity(flat.len());
        for (w, then) in flat {
            branches.push(Branch {
                types: wire_types(&w),
                keys: wire_keys(&w),
                omittable: wire_omittable(&w),
                tags: wire_tags(&w),
                then,
            });
            wires.push(w);
        }
        wire.insert("anyOf".into(), Value::Array(wires));
        let step = if keep {
            Step::Keep
        } else {
            Step::AnyOf { branches }
        };
        Ok((Value::Object(wire), step))
    }

    /// A union of primitive constants (`oneOf: [{const: a}, {const: b}]`)
    /// becomes one `enum`: fewer unions for Anthropic's limit. Branch
    /// descriptions are kept as lines of the description.
    fn collapse_constants(&self, description: Option<&Value>, flat: &[Lowered]) -> Option<Lowered> {
        let mut types: Vec<String> = Vec::new();
        let mut values: Vec<Value> = Vec::new();
        let mut lines: Vec<String> = description
            .and_then(Value::as_str)
            .map(|d| vec![d.to_string()])
            .unwrap_or_default();
        for (wire, _) in flat {
            let m = wire.as_object()?;
            if m.keys()
                .any(|k| !matches!(k.as_str(), "type" | "const" | "enum" | "description"))
            {
                return None;
            }
            let mine: Vec<Value> = match (m.get("const"), m.get("enum")) {
                (Some(c), None) => vec![c.clone()],
                (None, Some(Value::Array(e))) => e.clone(),
                _ => return None,
            };
            for t in types_of(m.get("type")?) {
                if !types.contains(&t) {
                    types.push(t);
                }
            }
            if let Some(d) = m.get("description").and_then(Value::as_str) {
                let names: Vec<String> = mine.iter().map(Value::to_string).collect();
                lines.push(format!("{}: {d}", names.join(", ")));
            }
            for v in mine {
                if !values.contains(&v) {
                    values.push(v);
                }
            }
        }
        let mut wire = Map::new();
        wire.insert("type".into(), type_keyword(&types));
        if !lines.is_empty() {
            wire.insert("description".into(), Value::String(lines.join("\n")));
        }
        let strings: Vec<String> = values
            .iter()
            .filter_map(Value::as_str)
            .map(str::to_string)
            .collect();
        wire.insert("enum".into(), Value::Array(values));
        let step = if self.target == SchemaTarget::Anthropic && !strings.is_empty() {
            Step::Enum { values: strings }
        } else {
            Step::Keep
        };
        Some((Value::Object(wire), step))
    }
}

/// Whether the wire schema `w` (a flattened union branch) accepts strings.
fn admits_strings(w: &Value) -> bool {
    match w.get("type") {
        Some(t) => types_of(t).iter().any(|t| t == "string"),
        None => true,
    }
}
