//! [`VerdictSchemas`]: the GREEN/RED verdict envelope — its wire schema per
//! provider target, and the decoding of a wire answer into the flat stored
//! verdict, validated against the chosen verdict's ORIGINAL owner schema.
//!
//! The wire answer is
//!
//! ```json
//! {"result": {"verdict": "RED", "verdictFields": {"summary": "…", "findings": […]}}}
//! ```
//!
//! where `result` is an `anyOf` of two closed alternatives, each putting its
//! `verdict` const first (so constrained key ordering cannot pick a verdict
//! because an owner field sorts before it). `verdictFields` is the verdict's
//! owner schema compiled as an embedded field: null placeholders,
//! JSON-encoded fallbacks, and — when the target's limits would be exceeded —
//! the whole owner object as JSON-encoded text. The root is an object, not
//! the `anyOf`, because OpenAI rejects a root union.

use crate::green_red::Verdict;
use serde_json::{Map, Value, json};
use std::collections::BTreeSet;
use std::sync::{Arc, OnceLock};
use tribunal_runtime::Rejection;
use tribunal_runtime::internal::backend::SchemaTarget;
use tribunal_runtime::internal::json::{ParseLimits, parse_strict};
use tribunal_runtime::internal::schema::Issue;
use tribunal_runtime::internal::schema::{
    CompiledSchema, DecodePlan, Step, WireBudget, WireLimits, WireStats, compile_embedded_in,
    contains_ref, rebase_local_refs,
};
use tribunal_runtime::internal::text::one_line;
use tribunal_runtime::{AnswerContract, ErrorCode, OutputSchema, SchemaError};

/// The envelope's root property.
pub const RESULT_KEY: &str = "result";
/// The discriminator inside `result` (and the first key of a stored verdict).
pub const VERDICT_KEY: &str = "verdict";
/// The owner fields inside `result`.
pub const FIELDS_KEY: &str = "verdictFields";
/// The format name sent to providers.
pub const FORMAT_NAME: &str = "verdict";
/// The summary of every owner-field rejection (the repair and submission text).
pub const FIELDS_MISMATCH: &str = "result must match the selected verdict's owner schema";

/// Levels of nesting above `verdictFields` (the root object and the chosen
/// alternative's object).
const FIELDS_DEPTH: usize = 2;

/// The two owner schemas of a review and their compiled envelopes.
///
/// Each owner schema is an object of owner fields and must not declare a
/// `verdict` property (the stored verdict puts `verdict` next to the fields).
/// Compilation happens at most once per target and is cached; share one
/// `VerdictSchemas` in an `Arc`.
#[derive(Debug)]
pub struct VerdictSchemas {
    green: OutputSchema,
    red: OutputSchema,
    green_keys: Option<BTreeSet<String>>,
    red_keys: Option<BTreeSet<String>>,
    openai: OnceLock<Result<Arc<Envelope>, SchemaError>>,
    anthropic: OnceLock<Result<Arc<Envelope>, SchemaError>>,
    plain: OnceLock<Result<Arc<Envelope>, SchemaError>>,
}

/// The envelope compiled for one target.
#[derive(Debug, Clone)]
pub struct Envelope {
    /// The schema sent to the provider.
    pub wire: Arc<Value>,
    /// The GREEN owner schema compiled as `verdictFields`.
    pub green: CompiledSchema,
    /// The RED owner schema compiled as `verdictFields`.
    pub red: CompiledSchema,
}

impl Envelope {
    /// The compiled owner fields of `verdict`.
    pub fn fields(&self, verdict: Verdict) -> &CompiledSchema {
        match verdict {
            Verdict::Green => &self.green,
            Verdict::Red => &self.red,
        }
    }
}

impl VerdictSchemas {
    /// Loads the GREEN (pass) and RED (fail) owner schemas. Fails, naming the
    /// verdict, on a schema the validator cannot compile, a root that is not
    /// an object, or a declared `verdict` property.
    pub fn new(green: Value, red: Value) -> Result<Self, SchemaError> {
        let green = owner(Verdict::Green, green)?;
        let red = owner(Verdict::Red, red)?;
        Ok(VerdictSchemas {
            green_keys: declared_keys(green.owner()),
            red_keys: declared_keys(red.owner()),
            green,
            red,
            openai: OnceLock::new(),
            anthropic: OnceLock::new(),
            plain: OnceLock::new(),
        })
    }

    /// The original owner schema of `verdict`.
    pub fn owner(&self, verdict: Verdict) -> &Value {
        self.schema(verdict).owner()
    }

    fn schema(&self, verdict: Verdict) -> &OutputSchema {
        match verdict {
            Verdict::Green => &self.green,
            Verdict::Red => &self.red,
        }
    }

    #[doc(hidden)] // no promise: read by tribunal's own crates
    /// The envelope compiled for `target` (cached).
    pub fn envelope(&self, target: SchemaTarget) -> Result<Arc<Envelope>, SchemaError> {
        let cell = match target {
            SchemaTarget::Plain => &self.plain,
            SchemaTarget::OpenAi => &self.openai,
            SchemaTarget::Anthropic => &self.anthropic,
        };
        cell.get_or_init(|| self.compile(target).map(Arc::new))
            .clone()
    }

    fn compile(&self, target: SchemaTarget) -> Result<Envelope, SchemaError> {
        let skeleton = WireStats::measure(&envelope_schema(&json!({}), &json!({})));
        let green = compile_embedded_in(
            self.green.owner(),
            target,
            &WireBudget {
                used: skeleton,
                depth: FIELDS_DEPTH,
            },
        )
        .map_err(|e| at_verdict(Verdict::Green, e))?;
        let red = compile_embedded_in(
            self.red.owner(),
            target,
            &WireBudget {
                used: skeleton.combine(green.stats, FIELDS_DEPTH),
                depth: FIELDS_DEPTH,
            },
        )
        .map_err(|e| at_verdict(Verdict::Red, e))?;
        let wire = if target == SchemaTarget::Plain {
            plain_envelope(self.green.owner(), self.red.owner())
        } else {
            envelope_schema(&green.wire, &red.wire)
        };
        // A guard: the RED field was compiled within the budget left by the
        // skeleton and the GREEN field, so this check cannot fail unless
        // `compile_embedded_in` breaks its budget (equivalent under mutation).
        if target != SchemaTarget::Plain {
            WireLimits::for_target(target)
                .check(&WireStats::measure(&wire))
                .map_err(|why| {
                    SchemaError::new(
                        "",
                        format!(
                            "the verdict envelope exceeds the {} limits: {why}",
                            target.as_str()
                        ),
                    )
                })?;
        }
        Ok(Envelope {
            wire: Arc::new(wire),
            green,
            red,
        })
    }

    /// Decodes a wire answer for `target` into the flat stored verdict
    /// `{"verdict": …, …owner fields}`, validated against the chosen
    /// verdict's original owner schema.
    pub fn decode(&self, target: SchemaTarget, wire: Value) -> Result<Value, Rejection> {
        let envelope = self
            .envelope(target)
            .map_err(|e| Rejection::new(ErrorCode::SchemaMismatch, e.to_string()))?;
        let (verdict, fields) = split(target, wire)?;
        let fields = decode_fields(&envelope.fields(verdict).plan, fields)?;
        self.validate(verdict, fields)
    }

    /// Validates flat owner `fields` against `verdict`'s original owner
    /// schema and returns the stored verdict `{"verdict": …, …fields}`.
    ///
    /// An owner field the schema does not declare is not permitted (every
    /// wire object is closed) unless the schema explicitly admits other
    /// properties; it is a `schema_mismatch`, never dropped.
    pub fn validate(&self, verdict: Verdict, fields: Value) -> Result<Value, Rejection> {
        let Value::Object(map) = fields else {
            return Err(Rejection::schema_mismatch(
                FIELDS_MISMATCH,
                vec![Issue::new(
                    "",
                    format!("{} is not of type \"object\"", short(&fields)),
                )],
            ));
        };
        let keys = match verdict {
            Verdict::Green => &self.green_keys,
            Verdict::Red => &self.red_keys,
        };
        let mut issues: Vec<Issue> = Vec::new();
        for key in map.keys() {
            let declared = keys.as_ref().is_none_or(|k| k.contains(key));
            if key == VERDICT_KEY || !declared {
                issues.push(Issue::new(
                    format!("/{}", escape(key)),
                    format!(
                        "{key:?} is not a field of the {} verdict's owner schema",
                        verdict.as_str()
                    ),
                ));
            }
        }
        let fields = Value::Object(map);
        issues.extend(self.schema(verdict).validator().issues(&fields));
        if !issues.is_empty() {
            return Err(Rejection::schema_mismatch(FIELDS_MISMATCH, issues));
        }
        let Value::Object(map) = fields else {
            // `fields` was rebuilt from an object just above.
            return Err(Rejection::new(ErrorCode::SchemaMismatch, FIELDS_MISMATCH));
        };
        let mut flat = Map::with_capacity(map.len() + 1);
        flat.insert(
            VERDICT_KEY.to_string(),
            Value::String(verdict.as_str().into()),
        );
        flat.extend(map);
        Ok(Value::Object(flat))
    }
}

impl AnswerContract for VerdictSchemas {
    fn format_name(&self) -> &str {
        FORMAT_NAME
    }

    fn wire_schema(&self, target: SchemaTarget) -> Result<Arc<Value>, SchemaError> {
        Ok(self.envelope(target)?.wire.clone())
    }

    fn wire_root_is_object(&self, _target: SchemaTarget) -> bool {
        true
    }

    fn decode_and_validate(&self, target: SchemaTarget, wire: Value) -> Result<Value, Rejection> {
        self.decode(target, wire)
    }
}

/// The envelope around two compiled `verdictFields` schemas.
fn envelope_schema(green: &Value, red: &Value) -> Value {
    let alternative = |verdict: Verdict, fields: &Value| {
        json!({
            "type": "object",
            "properties": {
                VERDICT_KEY: {"type": "string", "const": verdict.as_str()},
                FIELDS_KEY: fields,
            },
            "required": [VERDICT_KEY, FIELDS_KEY],
            "additionalProperties": false,
        })
    };
    json!({
        "type": "object",
        "properties": {
            RESULT_KEY: {
                "anyOf": [alternative(Verdict::Green, green), alternative(Verdict::Red, red)],
            },
        },
        "required": [RESULT_KEY],
        "additionalProperties": false,
    })
}

/// The envelope for prompt mode, where the owner schemas are shown as
/// written. An owner schema with `$ref`s (`#/$defs/…`, `#`) is placed whole
/// under the envelope's `$defs` with its local references rebased, so they
/// still resolve in the envelope document; one without is inlined.
fn plain_envelope(green: &Value, red: &Value) -> Value {
    let mut defs = Map::new();
    let mut place = |verdict: Verdict, owner: &Value| {
        if !contains_ref(owner) {
            return owner.clone();
        }
        let name = verdict.as_str().to_ascii_lowercase();
        let pointer = format!("/$defs/{name}");
        defs.insert(name, rebase_local_refs(owner.clone(), &pointer));
        json!({"$ref": format!("#{pointer}")})
    };
    let (green, red) = (place(Verdict::Green, green), place(Verdict::Red, red));
    let mut wire = envelope_schema(&green, &red);
    if let (false, Value::Object(root)) = (defs.is_empty(), &mut wire) {
        root.insert("$defs".into(), Value::Object(defs));
    }
    wire
}

fn owner(verdict: Verdict, schema: Value) -> Result<OutputSchema, SchemaError> {
    if !tribunal_runtime::internal::schema::root_is_object(&schema) {
        return Err(SchemaError::new(
            "",
            format!(
                "the {} owner schema must be an object schema (`\"type\": \"object\"`)",
                verdict.as_str()
            ),
        ));
    }
    if schema
        .get("properties")
        .and_then(|p| p.get(VERDICT_KEY))
        .is_some()
    {
        return Err(SchemaError::new(
            "/properties/verdict",
            format!(
                "the {} owner schema must not declare `verdict`: the stored verdict puts it next to the owner fields",
                verdict.as_str()
            ),
        ));
    }
    OutputSchema::new(FORMAT_NAME, schema).map_err(|e| at_verdict(verdict, e))
}

fn at_verdict(verdict: Verdict, e: SchemaError) -> SchemaError {
    SchemaError::new(
        e.path,
        format!("{} owner schema: {}", verdict.as_str(), e.message),
    )
}

/// The property names an owner object declares, or `None` when it admits
/// other properties explicitly (`additionalProperties` other than `false`,
/// `patternProperties`) or declares none at its root.
fn declared_keys(owner: &Value) -> Option<BTreeSet<String>> {
    let mut keys = BTreeSet::new();
    let mut parts = vec![owner];
    for combinator in ["allOf", "anyOf", "oneOf"] {
        if let Some(Value::Array(members)) = owner.get(combinator) {
            parts.extend(members.iter());
        }
    }
    for part in parts {
        if part.get("patternProperties").is_some() {
            return None;
        }
        match part.get("additionalProperties") {
            None | Some(Value::Bool(false)) => {}
            Some(_) => return None,
        }
        if part.get("$ref").is_some() {
            return None;
        }
        if let Some(Value::Object(props)) = part.get("properties") {
            keys.extend(props.keys().cloned());
        }
    }
    (!keys.is_empty()).then_some(keys)
}

/// Splits the envelope into the chosen verdict and its raw `verdictFields`.
fn split(target: SchemaTarget, wire: Value) -> Result<(Verdict, Value), Rejection> {
    let mismatch = |summary: &str, path: &str, message: String| {
        Rejection::schema_mismatch(summary, vec![Issue::new(path, message)])
    };
    let Value::Object(mut root) = wire else {
        return Err(mismatch(
            "the answer must be an object with one field, result",
            "",
            format!("{} is not of type \"object\"", short(&wire)),
        ));
    };
    let Some(result) = root.remove(RESULT_KEY) else {
        return Err(mismatch(
            "the answer must be an object with one field, result",
            "",
            "\"result\" is a required property".to_string(),
        ));
    };
    if let Some(extra) = root.keys().next() {
        return Err(mismatch(
            "the answer must be an object with one field, result",
            &format!("/{}", escape(extra)),
            format!("additional property {extra:?} is not allowed"),
        ));
    }
    let shape = "result must be {\"verdict\": \"GREEN\" or \"RED\", \"verdictFields\": {…}}";
    let Value::Object(mut result) = result else {
        return Err(mismatch(
            shape,
            "/result",
            format!("{} is not of type \"object\"", short(&result)),
        ));
    };
    let verdict = match result.remove(VERDICT_KEY) {
        Some(Value::String(s)) => {
            let parsed = match target {
                SchemaTarget::Anthropic => Verdict::parse_ignore_case(&s),
                SchemaTarget::OpenAi | SchemaTarget::Plain => Verdict::parse(&s),
            };
            parsed.ok_or_else(|| {
                mismatch(
                    shape,
                    "/result/verdict",
                    format!("{:?} is not one of \"GREEN\", \"RED\"", one_line(&s, 60)),
                )
            })?
        }
        Some(other) => {
            return Err(mismatch(
                shape,
                "/result/verdict",
                format!("{} is not one of \"GREEN\", \"RED\"", short(&other)),
            ));
        }
        None => {
            return Err(mismatch(
                shape,
                "/result",
                "\"verdict\" is a required property".to_string(),
            ));
        }
    };
    let Some(fields) = result.remove(FIELDS_KEY) else {
        return Err(mismatch(
            shape,
            "/result",
            "\"verdictFields\" is a required property".to_string(),
        ));
    };
    if let Some(extra) = result.keys().next() {
        return Err(mismatch(
            shape,
            &format!("/result/{}", escape(extra)),
            format!("additional property {extra:?} is not allowed"),
        ));
    }
    Ok((verdict, fields))
}

/// Decodes `verdictFields` with the verdict's plan. A string holding a
/// JSON-encoded object is parsed first even when the plan did not expect the
/// text fallback (a model in schema-in-prompt mode may send one).
fn decode_fields(plan: &DecodePlan, fields: Value) -> Result<Value, Rejection> {
    let fields = match (&plan.root, fields) {
        (Step::Json, fields) => fields,
        (_, Value::String(text)) => match parse_strict(&text, &ParseLimits::default()) {
            Ok(v @ Value::Object(_)) => v,
            Ok(other) => {
                return Err(Rejection::schema_mismatch(
                    FIELDS_MISMATCH,
                    vec![Issue::new(
                        "",
                        format!("{} is not of type \"object\"", short(&other)),
                    )],
                ));
            }
            Err(e) => {
                return Err(Rejection::schema_mismatch(
                    FIELDS_MISMATCH,
                    vec![Issue::new(
                        "",
                        format!(
                            "the JSON-encoded verdictFields is not valid JSON: {}",
                            one_line(&e.message, 160)
                        ),
                    )],
                ));
            }
        },
        (_, fields) => fields,
    };
    plan.decode(fields).map_err(|issues| {
        Rejection::schema_mismatch(
            "a JSON-encoded field of verdictFields could not be decoded",
            issues,
        )
    })
}

/// A JSON Pointer token for `key`.
fn escape(key: &str) -> String {
    key.replace('~', "~0").replace('/', "~1")
}

/// A JSON value for a message: one line, at most 120 characters.
pub(crate) fn short(v: &Value) -> String {
    one_line(&v.to_string(), 120)
}
