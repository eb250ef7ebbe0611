//! Snapshots of every fixture owner schema compiled for each provider target,
//! and a rule checker that walks every compiled wire schema.

use serde_json::{Value, json};
use std::path::{Path, PathBuf};
use tribunal_runtime::SchemaTarget;
use tribunal_runtime::internal::schema::{
    CompiledSchema, WireLimits, WireStats, compile, compile_embedded,
};

const TARGETS: [SchemaTarget; 2] = [SchemaTarget::OpenAi, SchemaTarget::Anthropic];

/// The `.json` files of `dir`, sorted by name.
pub(crate) fn json_files(dir: &Path) -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "json"))
        .collect();
    files.sort();
    files
}

pub(crate) fn fixtures() -> Vec<(String, Value)> {
    let dir = PathBuf::from(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/fixtures/schemas"
    ));
    json_files(&dir)
        .into_iter()
        .map(|p| {
            let name = p.file_stem().unwrap().to_string_lossy().into_owned();
            let text = std::fs::read_to_string(&p).unwrap();
            (name, serde_json::from_str(&text).unwrap())
        })
        .collect()
}

fn shown(result: &Result<CompiledSchema, tribunal_runtime::SchemaError>) -> Value {
    match result {
        Ok(c) => json!({"wire": *c.wire, "plan": c.plan, "fallback": c.fallback, "notes": c.notes}),
        Err(e) => json!({"error": {"path": e.path, "message": e.message}}),
    }
}

#[test]
fn snapshots_per_target() {
    let _snapshots = tribunal_testkit::bind_snapshots("runtime");
    let fixtures = fixtures();
    assert!(fixtures.len() >= 30, "at least 30 owner schemas");
    for (name, owner) in &fixtures {
        for target in TARGETS {
            let compiled = compile(owner, target);
            insta::assert_json_snapshot!(
                format!("schema_compile__{name}__{}", target.as_str()),
                shown(&compiled)
            );
        }
    }
}

#[test]
fn compilation_is_deterministic() {
    for (_, owner) in fixtures() {
        for target in TARGETS {
            let a = serde_json::to_string(&shown(&compile(&owner, target))).unwrap();
            let b = serde_json::to_string(&shown(&compile(&owner.clone(), target))).unwrap();
            assert_eq!(a, b);
        }
    }
}

#[test]
fn every_wire_schema_follows_the_target_rules() {
    let mut checked = 0;
    for (name, owner) in fixtures() {
        for target in TARGETS {
            let Ok(c) = compile(&owner, target) else {
                continue;
            };
            check_rules(&c.wire, target, true)
                .unwrap_or_else(|e| panic!("{name} for {}: {e}\n{:#}", target.as_str(), c.wire));
            // The stats recorded are those of the wire.
            assert_eq!(c.stats, WireStats::measure(&c.wire), "{name}");
            // The wire is itself a usable JSON Schema.
            jsonschema::validator_for(&c.wire).unwrap();
            checked += 1;
            if let Ok(e) = compile_embedded(&owner, target) {
                check_rules(&e.wire, target, false)
                    .unwrap_or_else(|err| panic!("{name} embedded for {}: {err}", target.as_str()));
            }
        }
    }
    assert!(checked >= 60);
}

/// Asserts the target's rules on a wire schema: closed objects listing every
/// property as required, no keyword the target rejects, supported formats
/// and patterns, primitive enums, an object root, limits respected.
pub(crate) fn check_rules(wire: &Value, target: SchemaTarget, root: bool) -> Result<(), String> {
    if root && wire.get("type") != Some(&json!("object")) {
        return Err("the root is not a plain object".into());
    }
    WireLimits::for_target(target).check(&WireStats::measure(wire))?;
    let allowed: &[&str] = match target {
        SchemaTarget::OpenAi => &[
            "type",
            "description",
            "properties",
            "required",
            "additionalProperties",
            "items",
            "enum",
            "const",
            "anyOf",
            "pattern",
            "format",
            "minimum",
            "maximum",
            "exclusiveMinimum",
            "exclusiveMaximum",
            "multipleOf",
            "minItems",
            "maxItems",
        ],
        _ => &[
            "type",
            "description",
            "properties",
            "required",
            "additionalProperties",
            "items",
            "enum",
            "const",
            "anyOf",
            "pattern",
            "format",
            "minItems",
        ],
    };
    let formats: &[&str] = &[
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
    let mut stack = vec![(wire, String::new())];
    while let Some((node, at)) = stack.pop() {
        let map = node
            .as_object()
            .ok_or(format!("{at}: a schema that is not an object"))?;
        for k in map.keys() {
            if !allowed.contains(&k.as_str()) {
                return Err(format!("{at}: keyword `{k}` is not allowed"));
            }
        }
        if map.is_empty() {
            return Err(format!("{at}: an empty schema"));
        }
        if !map.contains_key("type") && !map.contains_key("anyOf") {
            return Err(format!("{at}: neither type nor anyOf"));
        }
        if let Some(d) = map.get("description") {
            d.as_str()
                .ok_or(format!("{at}: description is not a string"))?;
        }
        let is_object = map.get("type") == Some(&json!("object"))
            || map
                .get("type")
                .and_then(Value::as_array)
                .is_some_and(|t| t.contains(&json!("object")));
        if is_object {
            let props = map
                .get("properties")
                .and_then(Value::as_object)
                .ok_or(format!("{at}: object without properties"))?;
            if map.get("additionalProperties") != Some(&json!(false)) {
                return Err(format!("{at}: object not closed"));
            }
            let required: Vec<&str> = map
                .get("required")
                .and_then(Value::as_array)
                .ok_or(format!("{at}: object without required"))?
                .iter()
                .map(|v| v.as_str().unwrap())
                .collect();
            let names: Vec<&str> = props.keys().map(String::as_str).collect();
            // OpenAI: every property required. Anthropic also allows optional
            // ones (counted by the limits check above), never unknown names.
            let listed: Vec<&str> = names
                .iter()
                .copied()
                .filter(|n| required.contains(n))
                .collect();
            let ok = match target {
                SchemaTarget::OpenAi => required == names,
                _ => required == listed,
            };
            if !ok {
                return Err(format!(
                    "{at}: required {required:?} does not match the properties {names:?}"
                ));
            }
            for (k, v) in props {
                stack.push((v, format!("{at}/properties/{k}")));
            }
        }
        if let Some(items) = map.get("items") {
            stack.push((items, format!("{at}/items")));
        }
        if let Some(branches) = map.get("anyOf") {
            for (i, b) in branches
                .as_array()
                .ok_or("anyOf not an array")?
                .iter()
                .enumerate()
            {
                stack.push((b, format!("{at}/anyOf/{i}")));
            }
        }
        if let Some(f) = map.get("format").and_then(Value::as_str) {
            let ok = formats.contains(&f) || (target == SchemaTarget::Anthropic && f == "uri");
            if !ok {
                return Err(format!("{at}: format `{f}` is not supported"));
            }
        }
        if let Some(p) = map.get("pattern").and_then(Value::as_str) {
            if p.contains("(?=") || p.contains("(?!") || p.contains("(?<") {
                return Err(format!("{at}: lookaround in pattern"));
            }
            if target == SchemaTarget::Anthropic && p.contains("\\b") {
                return Err(format!("{at}: \\b in an Anthropic pattern"));
            }
        }
        if let Some(n) = map.get("minItems").and_then(Value::as_u64)
            && target == SchemaTarget::Anthropic
            && n > 1
        {
            return Err(format!("{at}: minItems {n} on Anthropic"));
        }
        if let Some(values) = map.get("enum") {
            let values = values.as_array().ok_or("enum not an array")?;
            if values.iter().any(|v| v.is_object() || v.is_array()) {
                return Err(format!("{at}: structured enum value"));
            }
        }
    }
    Ok(())
}

/// Names a `patternProperties` admits may be required under
/// `additionalProperties: false` (issue 18's refused real-world shape):
/// `{"alpha": 1}` and `{"x-beta": "b"}` both validate, so neither target
/// may refuse the schema, and the wire keeps to the target's rules.
#[test]
fn names_admitted_by_pattern_properties_are_not_refused() {
    let owner = json!({
        "type": "object",
        "additionalProperties": false,
        "patternProperties": {"^x-": {"type": "string"}, "^[a-z]+$": {"type": "integer"}},
        "oneOf": [
            {"required": ["alpha"]},
            {"properties": {"x-beta": {"minLength": 1}}, "required": ["x-beta"]}
        ]
    });
    let validator = jsonschema::validator_for(&owner).unwrap();
    assert!(validator.is_valid(&json!({"alpha": 1})));
    assert!(validator.is_valid(&json!({"x-beta": "b"})));
    for target in TARGETS {
        let compiled = compile(&owner, target)
            .unwrap_or_else(|e| panic!("{target:?} refused a satisfiable schema: {e}"));
        check_rules(&compiled.wire, target, true).unwrap_or_else(|e| panic!("{target:?}: {e}"));
    }
    // An `allOf` that requires a name no pattern admits is still
    // infeasible, and says so.
    let infeasible = json!({"allOf": [
        {"type": "object", "additionalProperties": false, "patternProperties": {"^x-": {}}},
        {"required": ["alpha"]}
    ]});
    assert!(
        !jsonschema::validator_for(&infeasible)
            .unwrap()
            .is_valid(&json!({"alpha": 1}))
    );
    for target in TARGETS {
        let err = compile(&infeasible, target).expect_err("no value satisfies it");
        assert!(
            err.message
                .contains("property `alpha` is required but not allowed"),
            "{target:?}: {err}"
        );
    }
}
