//! Compiling an owner schema into a provider's wire schema plus a decode plan.
//!
//! The wire rules (see `provider-schema-rules.md`): every object is closed and
//! lists every property as required; an optional property travels with a
//! `null` placeholder; `oneOf` becomes `anyOf`; `allOf` and `$ref` siblings
//! are merged exactly before closing; constraints the target cannot take move
//! into the `description` (and are still checked locally against the owner
//! schema); open maps, recursive references and any-typed values travel as
//! JSON-encoded strings; a root that is not a plain object is wrapped as
//! `{"value": …}`. When the result would exceed the target's limits it is
//! fitted ([`fit`](super::fit)): optional properties left out of `required`
//! where the target allows it, then the smallest subtrees as JSON-encoded
//! text; only when nothing smaller fits does the whole answer travel as one
//! JSON-encoded string.
//!
//! Compilation is deterministic (owner keyword order is kept, nothing is
//! iterated in hash order) and never panics: recursion is bounded, `$ref`
//! cycles are detected, and huge inlined schemas fall back to text.

use super::decode::{DecodePlan, Step};
use super::fit::{Fitted, Unfit, fit, unwrap, wrap};
use super::limits::{WireBudget, WireStats};
use super::lower::json_text_description;
use crate::error::SchemaError;
use crate::output::SchemaTarget;
use serde::Serialize;
use serde_json::{Value, json};
use std::sync::Arc;

/// Deepest owner schema document accepted (keeps every walk off the stack's end).
pub const MAX_SCHEMA_DEPTH: usize = 256;
/// Longest owner schema quoted in the fallback field's description.
const MAX_QUOTED_FALLBACK: usize = 100_000;

/// The result of compiling an owner schema for one target.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct CompiledSchema {
    /// The schema sent to the provider.
    pub wire: Arc<Value>,
    /// How to turn a wire answer back into an owner-shaped value.
    pub plan: DecodePlan,
    /// True when the whole answer travels as one JSON-encoded string.
    pub fallback: bool,
    /// What was dropped or moved, one line each (`<owner schema pointer>: <what>`).
    pub notes: Vec<String>,
    /// What `wire` uses of the target's limits (for combining embedded schemas).
    #[serde(skip)]
    pub stats: WireStats,
}

/// Compiles `owner` for `target` as a whole answer: the wire root is always
/// an object ([`SchemaTarget::Plain`] is the identity).
///
/// Errors name the owner schema path: an external or dangling `$ref`, a
/// malformed keyword, an `allOf` no value can satisfy, a document nested
/// deeper than [`MAX_SCHEMA_DEPTH`].
pub fn compile(owner: &Value, target: SchemaTarget) -> Result<CompiledSchema, SchemaError> {
    if target == SchemaTarget::Plain {
        return Ok(identity(owner));
    }
    check_depth(owner)?;
    match fit(owner, target, &WireBudget::default(), true) {
        Ok(f) => Ok(fitted(f)),
        Err(Unfit::Error(e)) => Err(e),
        Err(Unfit::Whole(why)) => Ok(fallback_root(owner, target, &why)),
    }
}

/// Compiles `owner` as a field embedded in a larger wire schema (no root
/// wrapping), counting limits for the field alone. See [`compile_embedded_in`].
pub fn compile_embedded(
    owner: &Value,
    target: SchemaTarget,
) -> Result<CompiledSchema, SchemaError> {
    compile_embedded_in(owner, target, &WireBudget::default())
}

/// Compiles `owner` as a field embedded in a larger wire schema, such as the
/// `verdictFields` of the GREEN/RED verdict envelope.
///
/// The field is not wrapped, whatever its root type. Limits are counted for
/// `budget.used` plus the field placed `budget.depth` levels deep; when they
/// would be exceeded the field itself becomes a JSON-encoded string
/// (`fallback: true`) whose plan parses it. The returned
/// [`CompiledSchema::stats`] are the field's own, so a caller compiling
/// several fields adds each one to the budget of the next
/// (`used.combine(field.stats, depth)`), and may re-check the finished
/// envelope with [`WireStats::measure`] and
/// [`WireLimits::check`](super::limits::WireLimits::check).
///
/// `$ref`s in `owner` resolve against `owner` itself. Decode the field's
/// value with the returned plan, then validate it against `owner`.
pub fn compile_embedded_in(
    owner: &Value,
    target: SchemaTarget,
    budget: &WireBudget,
) -> Result<CompiledSchema, SchemaError> {
    if target == SchemaTarget::Plain {
        return Ok(identity(owner));
    }
    check_depth(owner)?;
    let why = match fit(owner, target, budget, false) {
        Ok(f) => return Ok(fitted(f)),
        Err(Unfit::Error(e)) => return Err(e),
        Err(Unfit::Whole(why)) => why,
    };
    let wire = json!({
        "type": "string",
        "description": json_text_description(owner, owner, MAX_QUOTED_FALLBACK),
    });
    Ok(CompiledSchema {
        stats: WireStats::measure(&wire),
        wire: Arc::new(wire),
        plan: DecodePlan { root: Step::Json },
        fallback: true,
        notes: vec![fallback_note(target, &why)],
    })
}

/// The compilation of a wire schema that fits the target's limits.
fn fitted(f: Fitted) -> CompiledSchema {
    CompiledSchema {
        wire: Arc::new(f.wire),
        plan: DecodePlan { root: f.step },
        fallback: false,
        notes: f.notes.into_iter().collect(),
        stats: f.stats,
    }
}

fn identity(owner: &Value) -> CompiledSchema {
    CompiledSchema {
        wire: Arc::new(owner.clone()),
        plan: DecodePlan::identity(),
        fallback: false,
        notes: Vec::new(),
        stats: WireStats::default(),
    }
}

fn fallback_note(target: SchemaTarget, why: &str) -> String {
    format!(
        "(root): the compiled schema exceeds the {} limits ({why}): the whole answer travels as one JSON-encoded string",
        target.as_str()
    )
}

fn fallback_root(owner: &Value, target: SchemaTarget, why: &str) -> CompiledSchema {
    let wire = wrap(json!({
        "type": "string",
        "description": json_text_description(owner, owner, MAX_QUOTED_FALLBACK),
    }));
    CompiledSchema {
        stats: WireStats::measure(&wire),
        wire: Arc::new(wire),
        plan: DecodePlan {
            root: unwrap(Step::Json),
        },
        fallback: true,
        notes: vec![fallback_note(target, why)],
    }
}

/// Rejects documents nested deeper than [`MAX_SCHEMA_DEPTH`] (iterative).
fn check_depth(owner: &Value) -> Result<(), SchemaError> {
    let mut stack: Vec<(&Value, usize)> = vec![(owner, 0)];
    while let Some((node, depth)) = stack.pop() {
        if depth > MAX_SCHEMA_DEPTH {
            return Err(SchemaError::new(
                "",
                format!("the schema document nests deeper than {MAX_SCHEMA_DEPTH} levels"),
            ));
        }
        match node {
            Value::Object(m) => stack.extend(m.values().map(|v| (v, depth + 1))),
            Value::Array(a) => stack.extend(a.iter().map(|v| (v, depth + 1))),
            _ => {}
        }
    }
    Ok(())
}
