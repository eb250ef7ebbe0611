//! Never refuse a schema some value satisfies: generated (instance, schema)
//! pairs where the schema is built around the instance — with unions, `allOf`,
//! references, pattern-matched names, and unsatisfiable parts where the
//! instance leaves them unused (an absent optional property, the items of an
//! empty array, another union branch). Whenever the validator accepts the
//! instance, both targets must compile the schema, follow their rules, and
//! carry the instance through encode → decode → validate unchanged.

use crate::schema_compile::check_rules;
use proptest::prelude::*;
use serde_json::{Map, Value, json};
use tribunal_runtime::SchemaTarget;
use tribunal_runtime::internal::schema::compile;
use tribunal_runtime::{AnswerContract, OutputSchema};

/// Instances: objects, arrays and scalars, a few levels deep.
fn arb_instance() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        (-50i64..50).prop_map(|n| json!(n)),
        (-50i64..50).prop_map(|n| json!(n as f64 + 0.5)),
        "[a-c]{0,4}".prop_map(Value::String),
    ];
    leaf.prop_recursive(3, 24, 4, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..3).prop_map(Value::Array),
            prop::collection::btree_map("[a-d]{1,2}", inner, 0..4)
                .prop_map(|m| Value::Object(m.into_iter().collect())),
        ]
    })
}

/// Schemas no value satisfies (used only where the instance never reaches).
fn arb_unsatisfiable() -> impl Strategy<Value = Value> {
    prop_oneof![
        Just(json!(false)),
        Just(json!({"allOf": [{"type": "string"}, {"type": "integer"}]})),
        Just(json!({"type": "object", "required": ["z"], "additionalProperties": false})),
        Just(json!({"anyOf": [false, {"allOf": [{"const": 1}, {"const": 2}]}]})),
    ]
}

/// Any schema at all, satisfiable or not.
fn arb_other() -> impl Strategy<Value = Value> {
    prop_oneof![
        Just(json!({"type": "string"})),
        Just(json!({"type": "integer", "minimum": 100})),
        Just(
            json!({"type": "object", "properties": {"q": {"type": "boolean"}}, "required": ["q"]})
        ),
        Just(json!({"type": "array", "items": {"type": "number"}})),
        arb_unsatisfiable(),
    ]
}

/// A choice of how to describe one node, drawn once per node.
#[derive(Debug, Clone)]
struct Knobs {
    style: u8,
    wrap: u8,
    other: Value,
    never: Value,
}

fn arb_knobs() -> impl Strategy<Value = Knobs> {
    (0u8..4, 0u8..6, arb_other(), arb_unsatisfiable()).prop_map(|(style, wrap, other, never)| {
        Knobs {
            style,
            wrap,
            other,
            never,
        }
    })
}

/// A schema `v` satisfies, built with one set of knobs per node (reused
/// cyclically), collecting `$defs` for references.
fn describe(v: &Value, knobs: &[Knobs], at: &mut usize, defs: &mut Map<String, Value>) -> Value {
    let k = knobs[*at % knobs.len()].clone();
    *at += 1;
    let core = match v {
        Value::Null => match k.style {
            0 => json!({"type": "null"}),
            1 => json!({"const": null}),
            2 => json!({"enum": [null, "x"]}),
            _ => json!({"type": ["null", "string"]}),
        },
        Value::Bool(b) => match k.style {
            0 => json!({"type": "boolean"}),
            1 => json!({"const": b}),
            _ => json!({"enum": [b, 3]}),
        },
        Value::Number(n) => {
            let x = n.as_f64().unwrap_or(0.0);
            match (k.style, n.is_i64()) {
                (0, true) => json!({"type": "integer", "minimum": x - 3.0}),
                (1, _) => json!({"type": "number", "maximum": x + 1.0}),
                (2, _) => json!({"type": ["number", "string"]}),
                _ => json!({"enum": [v, "n"]}),
            }
        }
        Value::String(s) => match k.style {
            0 => json!({"type": "string", "minLength": s.chars().count()}),
            1 => json!({"type": "string", "pattern": "^[a-c]*$"}),
            2 => json!({"enum": [s, "zz"]}),
            _ => json!({"type": ["string", "null"], "maxLength": s.chars().count() + 2}),
        },
        Value::Array(items) => {
            let item = if items.is_empty() {
                // Nothing reaches the items: any schema will do.
                k.never.clone()
            } else {
                let branches: Vec<Value> =
                    items.iter().map(|i| describe(i, knobs, at, defs)).collect();
                if branches.len() == 1 {
                    branches.into_iter().next().unwrap_or(json!(true))
                } else {
                    json!({"anyOf": branches})
                }
            };
            match k.style {
                0 => json!({"type": "array", "items": item, "maxItems": items.len() + 1}),
                _ => json!({"type": "array", "items": item}),
            }
        }
        Value::Object(map) => {
            let mut props = Map::new();
            for (key, val) in map {
                props.insert(key.clone(), describe(val, knobs, at, defs));
            }
            let required: Vec<&String> = map.keys().filter(|_| k.style != 1).collect();
            match k.style {
                // Names admitted by a pattern, required, closed (issue 18).
                2 if !map.is_empty() => {
                    let any: Value = json!({"anyOf": props.values().cloned().collect::<Vec<_>>()});
                    json!({"type": "object", "patternProperties": {"^[a-d]+$": any},
                           "additionalProperties": false, "required": required})
                }
                // An extra optional property nothing satisfies.
                3 => {
                    props.insert("zz".into(), k.never.clone());
                    json!({"type": "object", "properties": props, "required": required,
                           "additionalProperties": false})
                }
                _ => json!({"type": "object", "properties": props, "required": required}),
            }
        }
    };
    match k.wrap {
        0 => json!({"allOf": [core, describe_loose(v)]}),
        1 => json!({"anyOf": [k.other, core]}),
        2 => {
            let name = format!("d{}", defs.len());
            defs.insert(name.clone(), core);
            json!({"$ref": format!("#/$defs/{name}")})
        }
        3 => json!({"oneOf": [core, k.never]}),
        _ => core,
    }
}

/// A second, weaker description of `v` (its type only), for `allOf`.
fn describe_loose(v: &Value) -> Value {
    let t = match v {
        Value::Null => "null",
        Value::Bool(_) => "boolean",
        Value::Number(_) => "number",
        Value::String(_) => "string",
        Value::Array(_) => "array",
        Value::Object(_) => "object",
    };
    json!({"type": t})
}

fn arb_pair() -> impl Strategy<Value = (Value, Value)> {
    (arb_instance(), prop::collection::vec(arb_knobs(), 1..12)).prop_map(|(v, knobs)| {
        let mut defs = Map::new();
        let mut at = 0;
        let mut schema = describe(&v, &knobs, &mut at, &mut defs);
        if !defs.is_empty() {
            schema = json!({"allOf": [schema], "$defs": defs});
        }
        (v, schema)
    })
}

/// The fixed seed CI runs the generated cases from, so a run is the same
/// run on every machine. Explore with another seed by changing it (a
/// random seed once found the known collapse below).
const SEED: u64 = 0x7261_6e64_6f6d_0001;

proptest! {
    #![proptest_config(ProptestConfig {
        cases: 512,
        rng_seed: proptest::test_runner::RngSeed::Fixed(SEED),
        failure_persistence: None,
        ..ProptestConfig::default()
    })]

    #[test]
    fn a_satisfiable_schema_is_never_refused((instance, schema) in arb_pair()) {
        let Ok(validator) = jsonschema::validator_for(&schema) else {
            return Err(TestCaseError::reject("not a schema the validator takes"));
        };
        prop_assume!(validator.is_valid(&instance));
        let owner = OutputSchema::new("generated", schema.clone()).unwrap();
        for target in [SchemaTarget::OpenAi, SchemaTarget::Anthropic] {
            let compiled = compile(&schema, target).map_err(|e| {
                TestCaseError::fail(format!(
                    "{target:?} refused a schema {instance} satisfies: {e}\n{schema:#}"
                ))
            })?;
            check_rules(&compiled.wire, target, true).map_err(TestCaseError::fail)?;
            let wire = compiled.plan.encode(&instance);
            let back = owner.decode_and_validate(target, wire.clone()).map_err(|e| {
                TestCaseError::fail(format!(
                    "{target:?}: {instance} encoded as {wire} is rejected: {e:?}\n{schema:#}"
                ))
            })?;
            prop_assert_eq!(&back, &instance, "{:?} via {}", target, wire);
        }
    }
}

/// Found by a random seed of the generator above (CI, 2026-12-01) and not
/// fixed yet: an optional property whose schema admits only null travels
/// with the null placeholder, so "left out" and "null" look the same on the
/// wire, and `{}` comes back as `{"a": null}` — valid, but not what was
/// sent. Here the second item matches both union branches and the encoder
/// takes the first (with the optional null property). Run it with
/// `--ignored` once the lowering tells the two apart.
#[test]
#[ignore = "known: an absent optional null-only property decodes as null"]
fn an_absent_optional_null_property_round_trips() {
    let schema = json!({
        "type": "array",
        "items": {"anyOf": [
            {"type": "object", "properties": {"a": {"type": "null"}}, "required": []},
            {"type": "object", "properties": {}, "required": []}
        ]}
    });
    let instance = json!([{"a": null}, {}]);
    let owner = OutputSchema::new("generated", schema.clone()).unwrap();
    for target in [SchemaTarget::OpenAi, SchemaTarget::Anthropic] {
        let compiled = compile(&schema, target).unwrap();
        let wire = compiled.plan.encode(&instance);
        let back = owner.decode_and_validate(target, wire.clone()).unwrap();
        assert_eq!(back, instance, "{target:?} via {wire}");
    }
}
