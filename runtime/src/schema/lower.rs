//! Lowering one owner schema node into a target's wire subset, with the
//! decode step that undoes it. Driven by [`compile`](super::compile).

use super::decode::Step;
use super::keywords::{self, KeywordRole};
use super::limits::WireStats;
use super::merge::{MergeError, merge_all, types_of, value_has_type};
use super::refs::{contains_ref, is_external, resolve};
use crate::error::SchemaError;
use crate::output::SchemaTarget;
use indexmap::{IndexMap, IndexSet};
use serde_json::{Map, Value, json};
use std::collections::VecDeque;

mod shapes;
mod union;

/// A lowered node: its wire schema and decode step.
pub(crate) type Lowered = (Value, Step);

/// Why lowering stopped.
#[derive(Debug)]
pub(crate) enum Failure {
    /// The owner schema is malformed or unsupported.
    Schema(SchemaError),
    /// An `allOf` (or `$ref` with siblings) no value can satisfy.
    Infeasible(SchemaError),
    /// The wire schema would be too deep or too large to build: the whole
    /// answer falls back to JSON-encoded text.
    Overflow(String),
}

impl From<SchemaError> for Failure {
    fn from(e: SchemaError) -> Self {
        Failure::Schema(e)
    }
}

/// Deepest lowering recursion (schema nodes on one path, `$ref`s expanded).
const MAX_DEPTH: usize = 64;
/// Most nodes lowered in one compilation (bounds `$ref` inlining blow-up).
const MAX_WORK: usize = 100_000;
/// Most conjuncts in one `allOf` / `$ref` chain.
const MAX_CONJUNCTS: usize = 256;
/// Longest schema quoted in a JSON-encoded field's description.
pub(crate) const MAX_QUOTED_SCHEMA: usize = 2_000;

/// The state of one compilation.
pub(crate) struct Lowering<'a> {
    root: &'a Value,
    target: SchemaTarget,
    /// What was dropped or moved, deduplicated, in order.
    pub(crate) notes: IndexSet<String>,
    /// Pointers of the `$ref` targets being expanded (recursion detection).
    stack: Vec<String>,
    depth: usize,
    work: usize,
    /// Owner paths of property values and array items sent as JSON-encoded
    /// text to fit the target's limits (chosen by [`fit`](super::fit)), each
    /// with the limit it was exceeding.
    pub(crate) forced: IndexMap<String, String>,
    /// Optional properties that may still travel as optional (left out of
    /// `required`) instead of with a `null` placeholder; 0 keeps placeholders.
    pub(crate) omit_left: usize,
    /// Whether to record [`Candidate`]s (only when fitting).
    pub(crate) collect: bool,
    /// The subtrees that could be sent as text, in lowering order.
    pub(crate) candidates: Vec<Candidate>,
    /// Object and array wire nodes around the node being lowered.
    level: usize,
}

/// A property value or array item that could travel as JSON-encoded text
/// instead, with what its wire schema uses.
#[derive(Debug, Clone)]
pub(crate) struct Candidate {
    /// Its owner schema path (what [`Lowering::forced`] holds).
    pub(crate) path: String,
    /// Object and array wire nodes above it.
    pub(crate) level: usize,
    /// What its wire schema uses (for a property, with its placeholder).
    pub(crate) stats: WireStats,
}

impl<'a> Lowering<'a> {
    /// A lowering of the document `root` for `target`. The root itself counts
    /// as being expanded, so `{"$ref": "#"}` inside it is a recursion.
    pub(crate) fn new(root: &'a Value, target: SchemaTarget) -> Self {
        Lowering {
            root,
            target,
            notes: IndexSet::new(),
            stack: vec![String::new()],
            depth: 0,
            work: 0,
            forced: IndexMap::new(),
            omit_left: 0,
            collect: false,
            candidates: Vec::new(),
            level: 0,
        }
    }

    /// Records `wire`, lowered at `path`, as a subtree that could be sent as text.
    pub(crate) fn candidate(&mut self, path: &str, wire: &Value) {
        if self.collect {
            self.candidates.push(Candidate {
                path: path.to_string(),
                level: self.level,
                stats: WireStats::measure(wire),
            });
        }
    }

    /// Whether the subtree at `path` is to travel as text to fit the limits.
    pub(crate) fn is_forced(&self, path: &str) -> bool {
        self.forced.contains_key(path)
    }

    /// The JSON-encoded text field that replaces a forced subtree.
    pub(crate) fn forced_field(&mut self, node: &Value, path: &str) -> Lowered {
        let excess = self.forced.get(path).cloned().unwrap_or_default();
        let why = format!("to fit the {} limits ({excess})", self.target.as_str());
        self.json_field(node, path, why)
    }

    pub(crate) fn note(&mut self, path: &str, text: impl std::fmt::Display) {
        let at = if path.is_empty() { "(root)" } else { path };
        self.notes.insert(format!("{at}: {text}"));
    }

    /// Lowers `node`, found at JSON Pointer `path` of the owner schema.
    pub(crate) fn lower(&mut self, node: &Value, path: &str) -> Result<Lowered, Failure> {
        self.depth += 1;
        self.work += 1;
        let out = if self.depth > MAX_DEPTH {
            Err(Failure::Overflow(format!(
                "the schema nests deeper than {MAX_DEPTH} levels"
            )))
        } else if self.work > MAX_WORK {
            Err(Failure::Overflow(format!(
                "the inlined schema has more than {MAX_WORK} nodes"
            )))
        } else {
            self.lower_node(node, path)
        };
        self.depth -= 1;
        out
    }

    fn lower_node(&mut self, node: &Value, path: &str) -> Result<Lowered, Failure> {
        let map = match node {
            Value::Bool(true) => return Ok(self.json_field(node, path, "accepts any value")),
            Value::Bool(false) => {
                return Err(Failure::Infeasible(SchemaError::new(
                    path,
                    "the schema `false` admits no value",
                )));
            }
            Value::Object(map) => map,
            _ => {
                return Err(
                    SchemaError::new(path, "a schema must be an object or a boolean").into(),
                );
            }
        };
        if map.contains_key("$ref") || map.contains_key("allOf") {
            return self.lower_conjunction(node, path);
        }
        if map.contains_key("anyOf") || map.contains_key("oneOf") {
            return self.lower_union(map, path);
        }
        self.lower_plain(map, path)
    }

    /// `$ref` (with siblings) and `allOf`: collect the conjuncts, merge them
    /// exactly, then lower the merged schema.
    fn lower_conjunction(&mut self, node: &Value, path: &str) -> Result<Lowered, Failure> {
        let mut conjuncts: Vec<Map<String, Value>> = Vec::new();
        let mut refs: Vec<String> = Vec::new();
        let mut had_all_of = false;
        let mut queue: VecDeque<(&Value, String)> = VecDeque::from([(node, path.to_string())]);
        while let Some((item, at)) = queue.pop_front() {
            let map = match item {
                Value::Bool(true) => continue,
                Value::Bool(false) => {
                    return Err(Failure::Infeasible(SchemaError::new(
                        at,
                        "allOf cannot be satisfied: it contains the schema `false`",
                    )));
                }
                Value::Object(m) => m,
                _ => {
                    return Err(
                        SchemaError::new(at, "a schema must be an object or a boolean").into(),
                    );
                }
            };
            let mut children: Vec<(&Value, String)> = Vec::new();
            let own: Map<String, Value> = map
                .iter()
                .filter(|(k, _)| !matches!(k.as_str(), "$ref" | "allOf" | "$defs" | "definitions"))
                .map(|(k, v)| (k.clone(), v.clone()))
                .collect();
            if !own.is_empty() {
                conjuncts.push(own);
            }
            if let Some(r) = map.get("$ref") {
                let r_at = format!("{at}/$ref");
                let Some(r) = r.as_str() else {
                    return Err(SchemaError::new(r_at, "`$ref` must be a string").into());
                };
                if is_external(self.root, r) {
                    return Ok(self.json_field(node, path, "an external reference"));
                }
                let (target, target_path) = resolve(self.root, r, &r_at)?;
                if self.stack.contains(&target_path) {
                    return Ok(self.json_field(node, path, "a recursive reference"));
                }
                if !refs.contains(&target_path) {
                    refs.push(target_path.clone());
                    children.push((target, target_path));
                }
            }
            if let Some(all_of) = map.get("allOf") {
                had_all_of = true;
                let Value::Array(branches) = all_of else {
                    return Err(SchemaError::new(
                        format!("{at}/allOf"),
                        "`allOf` must be an array",
                    )
                    .into());
                };
                if branches.is_empty() {
                    return Err(SchemaError::new(
                        format!("{at}/allOf"),
                        "`allOf` must not be empty",
                    )
                    .into());
                }
                for (i, b) in branches.iter().enumerate() {
                    children.push((b, format!("{at}/allOf/{i}")));
                }
            }
            // Depth-first, in document order: own keywords, the `$ref`, then `allOf`.
            for child in children.into_iter().rev() {
                queue.push_front(child);
            }
            if conjuncts.len() + queue.len() > MAX_CONJUNCTS {
                return Err(Failure::Overflow(format!(
                    "more than {MAX_CONJUNCTS} allOf / $ref conjuncts at {path}"
                )));
            }
        }
        let merged = if conjuncts.len() == 1 {
            conjuncts.remove(0)
        } else {
            let mut lossy = Vec::new();
            match merge_all(&conjuncts, &mut lossy) {
                Ok(m) => {
                    if !lossy.is_empty() {
                        lossy.dedup();
                        self.note(
                            path,
                            format!(
                                "allOf: the wire keeps one `{}`; every branch's is checked on receipt",
                                lossy.join("`, `")
                            ),
                        );
                    }
                    m
                }
                Err(MergeError::Infeasible(why)) => {
                    return Err(Failure::Infeasible(SchemaError::new(
                        path,
                        format!("allOf cannot be satisfied: {why}"),
                    )));
                }
                Err(MergeError::Unsupported(why)) => {
                    return Ok(self.json_field(
                        node,
                        path,
                        format!("an allOf that cannot be merged exactly ({why})"),
                    ));
                }
            }
        };
        if had_all_of {
            self.note(path, "allOf merged into one schema before closing objects");
        }
        let depth = self.stack.len();
        self.stack.extend(refs);
        let out = self.lower(&Value::Object(merged), path);
        self.stack.truncate(depth);
        out
    }

    /// A node without `$ref`, `allOf`, `anyOf` or `oneOf`.
    fn lower_plain(&mut self, map: &Map<String, Value>, path: &str) -> Result<Lowered, Failure> {
        let node = || Value::Object(map.clone());
        if let Some(e) = map.get("enum") {
            let Value::Array(values) = e else {
                return Err(
                    SchemaError::new(format!("{path}/enum"), "`enum` must be an array").into(),
                );
            };
            if values.is_empty() {
                return Err(Failure::Infeasible(SchemaError::new(
                    format!("{path}/enum"),
                    "an empty `enum` admits no value",
                )));
            }
            if values.iter().any(|v| v.is_object() || v.is_array()) {
                return Ok(self.json_field(&node(), path, "an enum of structured values"));
            }
        }
        if map
            .get("const")
            .is_some_and(|c| c.is_object() || c.is_array())
        {
            return Ok(self.json_field(&node(), path, "a structured const"));
        }
        let types = match map.get("type") {
            Some(t) => {
                let names = types_of(t);
                let valid = !names.is_empty()
                    && names
                        .iter()
                        .all(|n| keywords::TYPE_NAMES.contains(&n.as_str()))
                    && (t.is_string() || t.as_array().is_some_and(|a| a.len() == names.len()));
                if !valid {
                    return Err(SchemaError::new(
                        format!("{path}/type"),
                        format!(
                            "`type` must name JSON types, found {}",
                            super::merge::compact(t)
                        ),
                    )
                    .into());
                }
                let mut unique: Vec<String> = Vec::new();
                for n in names {
                    if !unique.contains(&n) {
                        unique.push(n);
                    }
                }
                unique
            }
            None => match infer_types(map) {
                Some(t) => t,
                None => return Ok(self.json_field(&node(), path, "accepts values of any type")),
            },
        };
        let structured = types
            .iter()
            .filter(|t| *t == "object" || *t == "array")
            .count();
        if types.len() > 1 && structured > 0 {
            // Split into one branch per structured type plus one for the rest.
            let mut lowered = Vec::new();
            let primitives: Vec<&String> = types
                .iter()
                .filter(|t| *t != "object" && *t != "array")
                .collect();
            let mut groups: Vec<Value> = types
                .iter()
                .filter(|t| *t == "object" || *t == "array")
                .map(|t| json!(t))
                .collect();
            if !primitives.is_empty() {
                groups.push(if primitives.len() == 1 {
                    json!(primitives[0])
                } else {
                    json!(primitives)
                });
            }
            for group in groups {
                let mut branch = map.clone();
                branch.remove("description");
                branch.insert("type".into(), group);
                match self.lower(&Value::Object(branch), path) {
                    Ok(x) => lowered.push(x),
                    Err(Failure::Infeasible(_)) => {}
                    Err(e) => return Err(e),
                }
            }
            return self.finish_union(map, lowered, path);
        }
        match types.first().map(String::as_str) {
            Some("object") if types.len() == 1 => self.lower_object(map, path),
            Some("array") if types.len() == 1 => self.lower_array(map, path),
            _ => Ok(self.lower_primitive(map, types, path)),
        }
    }
    /// The wire description of `map`: its own, plus every constraint the
    /// target cannot take (which is noted).
    fn describe(
        &mut self,
        map: &Map<String, Value>,
        types: &[&str],
        handled: &[&str],
        path: &str,
    ) -> Option<String> {
        let mut dropped = Map::new();
        for (k, v) in map {
            if handled.contains(&k.as_str()) || !keywords::applies(k, types) {
                continue;
            }
            match keywords::role(k) {
                KeywordRole::Constraint => {
                    if k == "unevaluatedProperties" && v == &Value::Bool(false) {
                        continue; // wire objects are closed anyway
                    }
                    dropped.insert(k.clone(), v.clone());
                }
                KeywordRole::Annotation | KeywordRole::Unknown => {}
            }
        }
        let own = map.get("description").and_then(Value::as_str);
        if dropped.is_empty() {
            return own.map(str::to_string);
        }
        let keys: Vec<&str> = dropped.keys().map(String::as_str).collect();
        self.note(
            path,
            format!(
                "`{}` moved to the description (checked on receipt)",
                keys.join("`, `")
            ),
        );
        let text = format!("Checked on receipt: {}", Value::Object(dropped));
        Some(match own {
            Some(d) if !d.is_empty() => format!("{d}\n{text}"),
            _ => text,
        })
    }

    /// A field that travels as a JSON-encoded string.
    pub(crate) fn json_field(
        &mut self,
        node: &Value,
        path: &str,
        why: impl std::fmt::Display,
    ) -> Lowered {
        self.note(path, format!("{why}: travels as a JSON-encoded string"));
        let own = node.get("description").and_then(Value::as_str);
        let text = json_text_description(self.root, node, MAX_QUOTED_SCHEMA);
        let description = match own {
            Some(d) if !d.is_empty() => format!("{d}\n{text}"),
            _ => text,
        };
        (
            json!({ "type": "string", "description": description }),
            Step::Json,
        )
    }

    /// Whether the owner schema `node` surely accepts `null` (false when unsure).
    fn owner_accepts_null(&self, node: &Value, depth: usize) -> bool {
        if depth > 16 {
            return false;
        }
        let map = match node {
            Value::Bool(b) => return *b,
            Value::Object(m) => m,
            _ => return false,
        };
        let own = match map.get("type") {
            Some(t) => types_of(t).iter().any(|t| t == "null"),
            None => true,
        } && map
            .get("enum")
            .is_none_or(|e| e.as_array().is_some_and(|a| a.contains(&Value::Null)))
            && map.get("const").is_none_or(Value::is_null);
        if !own {
            return false;
        }
        if let Some(r) = map.get("$ref").and_then(Value::as_str) {
            match resolve(self.root, r, "") {
                Ok((t, _)) if self.owner_accepts_null(t, depth + 1) => {}
                _ => return false,
            }
        }
        if let Some(Value::Array(all)) = map.get("allOf")
            && !all.iter().all(|b| self.owner_accepts_null(b, depth + 1))
        {
            return false;
        }
        for key in ["anyOf", "oneOf"] {
            if let Some(Value::Array(any)) = map.get(key)
                && !any.iter().any(|b| self.owner_accepts_null(b, depth + 1))
            {
                return false;
            }
        }
        true
    }
}

/// The `type` keyword for `types`: a string for one type, else an array.
fn type_keyword(types: &[String]) -> Value {
    match types {
        [one] => Value::String(one.clone()),
        _ => json!(types),
    }
}

/// The description of a JSON-encoded field: what its text must decode to.
pub(crate) fn json_text_description(root: &Value, node: &Value, max: usize) -> String {
    // A bare reference is quoted as what it points to.
    let mut node = node;
    for _ in 0..8 {
        match node.get("$ref").and_then(Value::as_str) {
            Some(r) if node.get("allOf").is_none() => match resolve(root, r, "") {
                Ok((target, _)) => node = target,
                Err(_) => break,
            },
            _ => break,
        }
    }
    let mut quoted = node.clone();
    if let Value::Object(m) = &mut quoted {
        m.remove("description");
        if !std::ptr::eq(root, node) && contains_ref(node) {
            for defs in ["$defs", "definitions"] {
                if let Some(d) = root.get(defs)
                    && !m.contains_key(defs)
                {
                    m.insert(defs.into(), d.clone());
                }
            }
        }
    }
    let text = quoted.to_string();
    if text.chars().count() <= max {
        format!("A JSON-encoded string. Its decoded value must match this JSON Schema: {text}")
    } else {
        "A JSON-encoded string. Its decoded value is checked against the schema on receipt."
            .to_string()
    }
}

/// Types implied by keywords when `type` is absent (`None`: any type).
fn infer_types(map: &Map<String, Value>) -> Option<Vec<String>> {
    let of_value = |v: &Value| -> &'static str {
        match v {
            Value::Null => "null",
            Value::Bool(_) => "boolean",
            Value::String(_) => "string",
            Value::Number(_) if value_has_type(v, "integer") => "integer",
            Value::Number(_) => "number",
            Value::Array(_) => "array",
            Value::Object(_) => "object",
        }
    };
    let mut out: Vec<String> = Vec::new();
    let mut add = |t: &str| {
        if !out.iter().any(|o| o == t) {
            out.push(t.to_string());
        }
    };
    if let Some(c) = map.get("const") {
        add(of_value(c));
    } else if let Some(Value::Array(values)) = map.get("enum") {
        values.iter().for_each(|v| add(of_value(v)));
    } else if keywords::OBJECT_HINTS.iter().any(|k| map.contains_key(*k)) {
        add("object");
    } else if keywords::ARRAY_HINTS.iter().any(|k| map.contains_key(*k)) {
        add("array");
    }
    if out.iter().any(|t| t == "number") {
        out.retain(|t| t != "integer");
    }
    (!out.is_empty()).then_some(out)
}

/// Whether the wire schema `w` admits `null`.
fn wire_accepts_null(w: &Value) -> bool {
    if let Some(t) = w.get("type") {
        return types_of(t).iter().any(|t| t == "null");
    }
    w.get("anyOf")
        .and_then(Value::as_array)
        .is_some_and(|bs| bs.iter().any(wire_accepts_null))
}

/// `w` widened to admit `null` (the placeholder of an optional property).
fn make_nullable(mut w: Value) -> Value {
    let Value::Object(map) = &mut w else {
        return w;
    };
    if let Some(Value::Array(branches)) = map.get_mut("anyOf") {
        branches.push(json!({ "type": "null" }));
        return w;
    }
    let structured =
        matches!(map.get("type"), Some(Value::String(t)) if t == "object" || t == "array");
    if structured || !map.contains_key("type") {
        return json!({ "anyOf": [w, { "type": "null" }] });
    }
    if let Some(t) = map.get_mut("type") {
        let mut ts = types_of(t);
        ts.push("null".into());
        *t = json!(ts);
    }
    if let Some(Value::Array(values)) = map.get_mut("enum") {
        values.push(Value::Null);
    }
    if let Some(c) = map.shift_remove("const") {
        map.insert("enum".into(), json!([c, null]));
    }
    w
}

fn wire_types(w: &Value) -> Vec<String> {
    w.get("type").map(types_of).unwrap_or_default()
}

fn wire_keys(w: &Value) -> Option<Vec<String>> {
    if w.get("type") != Some(&json!("object")) {
        return None;
    }
    w.get("properties")
        .and_then(Value::as_object)
        .map(|p| p.keys().cloned().collect())
}

/// The properties of the object wire schema `w` missing from its `required`.
fn wire_omittable(w: &Value) -> Vec<String> {
    let Some(Value::Object(props)) = w.get("properties") else {
        return Vec::new();
    };
    let required: Vec<&str> = match w.get("required") {
        Some(Value::Array(r)) => r.iter().filter_map(Value::as_str).collect(),
        _ => Vec::new(),
    };
    props
        .keys()
        .filter(|k| !required.contains(&k.as_str()))
        .cloned()
        .collect()
}

fn wire_tags(w: &Value) -> IndexMap<String, Value> {
    let mut tags = IndexMap::new();
    if let Some(Value::Object(props)) = w.get("properties") {
        for (k, p) in props {
            if let Some(c) = p.get("const") {
                tags.insert(k.clone(), c.clone());
            } else if let Some(Value::Array(e)) = p.get("enum")
                && e.len() == 1
            {
                tags.insert(k.clone(), e[0].clone());
            }
        }
    }
    tags
}
