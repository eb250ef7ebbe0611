//! Which JSON Schema keywords each target accepts, per the provider rules:
//! annotations are dropped, supported constraints are sent, and the rest move
//! to the description and are checked on receipt.

use crate::output::SchemaTarget;
use serde_json::Value;

/// The JSON type names `type` may use.
pub(crate) const TYPE_NAMES: [&str; 7] = [
    "null", "boolean", "object", "array", "number", "integer", "string",
];

/// Keywords that imply `type: object` when `type` is absent.
pub(crate) const OBJECT_HINTS: [&str; 7] = [
    "properties",
    "additionalProperties",
    "required",
    "patternProperties",
    "minProperties",
    "maxProperties",
    "propertyNames",
];

/// Keywords that imply `type: array` when `type` is absent.
pub(crate) const ARRAY_HINTS: [&str; 6] = [
    "items",
    "prefixItems",
    "minItems",
    "maxItems",
    "uniqueItems",
    "contains",
];

/// What a keyword is, for the wire.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum KeywordRole {
    /// No effect on validity: dropped from the wire silently.
    Annotation,
    /// Restricts values: sent when supported, else moved to the description.
    Constraint,
    /// Not a JSON Schema keyword (ignored by validators): dropped.
    Unknown,
}

/// The role of keyword `k`.
pub(crate) fn role(k: &str) -> KeywordRole {
    match k {
        "title" | "description" | "default" | "examples" | "$schema" | "$id" | "$comment"
        | "$anchor" | "$dynamicAnchor" | "$defs" | "definitions" | "$vocabulary" | "readOnly"
        | "writeOnly" | "deprecated" | "contentMediaType" | "contentEncoding" | "contentSchema"
        | "discriminator" => KeywordRole::Annotation,
        "type"
        | "enum"
        | "const"
        | "minLength"
        | "maxLength"
        | "pattern"
        | "format"
        | "minimum"
        | "maximum"
        | "exclusiveMinimum"
        | "exclusiveMaximum"
        | "multipleOf"
        | "items"
        | "prefixItems"
        | "additionalItems"
        | "minItems"
        | "maxItems"
        | "uniqueItems"
        | "contains"
        | "minContains"
        | "maxContains"
        | "unevaluatedItems"
        | "properties"
        | "required"
        | "additionalProperties"
        | "patternProperties"
        | "minProperties"
        | "maxProperties"
        | "propertyNames"
        | "dependentRequired"
        | "dependentSchemas"
        | "dependencies"
        | "unevaluatedProperties"
        | "not"
        | "if"
        | "then"
        | "else"
        | "allOf"
        | "anyOf"
        | "oneOf"
        | "$ref"
        | "$dynamicRef" => KeywordRole::Constraint,
        _ => KeywordRole::Unknown,
    }
}

const OPENAI_FORMATS: [&str; 9] = [
    "date-time",
    "time",
    "date",
    "duration",
    "email",
    "hostname",
    "ipv4",
    "ipv6",
    "uuid",
];

/// Whether the primitive keyword `k` with value `v` is sent to `target` as is.
/// `type`, `enum` and `const` are handled by the caller.
pub(crate) fn primitive_keyword_supported(k: &str, v: &Value, target: SchemaTarget) -> bool {
    match k {
        "pattern" => v.as_str().is_some_and(|p| pattern_supported(p, target)),
        "format" => v.as_str().is_some_and(|f| {
            OPENAI_FORMATS.contains(&f) || (target == SchemaTarget::Anthropic && f == "uri")
        }),
        "minimum" | "maximum" | "exclusiveMinimum" | "exclusiveMaximum" | "multipleOf" => {
            target == SchemaTarget::OpenAi && v.is_number()
        }
        _ => false,
    }
}

/// Whether the array bound `k` (`minItems` / `maxItems`) is sent to `target`.
pub(crate) fn items_bound_supported(k: &str, v: &Value, target: SchemaTarget) -> bool {
    let Some(n) = v.as_u64() else { return false };
    match (target, k) {
        (SchemaTarget::OpenAi, _) => true,
        (SchemaTarget::Anthropic, "minItems") => n <= 1,
        _ => false,
    }
}

/// Whether a regular expression uses only what `target` accepts: no
/// lookaround and no backreferences (and, for Anthropic, no `\b` / `\B`).
pub(crate) fn pattern_supported(p: &str, target: SchemaTarget) -> bool {
    if ["(?=", "(?!", "(?<=", "(?<!"].iter().any(|l| p.contains(l)) {
        return false;
    }
    let mut chars = p.chars();
    while let Some(c) = chars.next() {
        if c != '\\' {
            continue;
        }
        match chars.next() {
            Some('1'..='9' | 'k') => return false,
            Some('b' | 'B') if target == SchemaTarget::Anthropic => return false,
            _ => {}
        }
    }
    true
}

/// Whether keyword `k` can affect values of one of `types` (a keyword of
/// another type passes vacuously, so it need not be described).
pub(crate) fn applies(k: &str, types: &[&str]) -> bool {
    let has = |t: &str| types.contains(&t);
    match k {
        "minLength" | "maxLength" | "pattern" | "format" => has("string"),
        "minimum" | "maximum" | "exclusiveMinimum" | "exclusiveMaximum" | "multipleOf" => {
            has("number") || has("integer")
        }
        "items" | "prefixItems" | "additionalItems" | "minItems" | "maxItems" | "uniqueItems"
        | "contains" | "minContains" | "maxContains" | "unevaluatedItems" => has("array"),
        "properties"
        | "required"
        | "additionalProperties"
        | "patternProperties"
        | "minProperties"
        | "maxProperties"
        | "propertyNames"
        | "dependentRequired"
        | "dependentSchemas"
        | "dependencies"
        | "unevaluatedProperties" => has("object"),
        _ => true,
    }
}
