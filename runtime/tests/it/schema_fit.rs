//! Fitting a schema into a target's limits: optional properties spent before
//! unions, single subtrees as text before the whole answer, and the schemas
//! that must compile instead of being refused.

use crate::schema_compile::check_rules;
use serde_json::{Map, Value, json};
use tribunal_runtime::SchemaTarget;
use tribunal_runtime::internal::schema::compile;
use tribunal_runtime::{AnswerContract, OutputSchema};

const TARGETS: [SchemaTarget; 2] = [SchemaTarget::OpenAi, SchemaTarget::Anthropic];

fn object(props: impl IntoIterator<Item = (String, Value)>, required: &[&str]) -> Value {
    let props: Map<String, Value> = props.into_iter().collect();
    json!({"type": "object", "properties": props, "required": required})
}

/// 25 optional strings: 25 placeholder unions exceed Anthropic's 16, so 24
/// travel as optional (its optional limit) and one keeps its placeholder.
/// Left-out fields stay left out, in decoding and in encoding.
#[test]
fn anthropic_spends_optional_properties_before_unions() {
    let owner = object(
        (0..25).map(|i| (format!("f{i:02}"), json!({"type": "string"}))),
        &[],
    );
    let s = OutputSchema::new("opt", owner).unwrap();
    let c = s.compiled(SchemaTarget::Anthropic).unwrap();
    assert!(!c.fallback);
    assert_eq!(c.wire["required"], json!(["f24"]));
    assert_eq!(c.stats.optional, 24);
    assert_eq!(c.stats.unions, 1);
    check_rules(&c.wire, SchemaTarget::Anthropic, true).unwrap();
    assert_eq!(
        s.decode_and_validate(SchemaTarget::Anthropic, json!({"f03": "a", "f24": null}))
            .unwrap(),
        json!({"f03": "a"})
    );
    assert_eq!(
        c.plan.encode(&json!({"f03": "a"})),
        json!({"f03": "a", "f24": null})
    );
    // OpenAI has no union limit: every field keeps its placeholder.
    let o = s.compiled(SchemaTarget::OpenAi).unwrap();
    assert_eq!(o.wire["required"].as_array().unwrap().len(), 25);
}

/// A union whose object branches have properties left out on the wire:
/// the branch is chosen by its required keys and the keys it may hold, so a
/// branch's own decoding (here a JSON-text open map) still runs.
#[test]
fn a_union_branch_with_left_out_properties_is_still_chosen() {
    let branch = |key: &str, prefix: &str| {
        let mut props: Vec<(String, Value)> = vec![(key.to_string(), json!({"type": "integer"}))];
        props.extend((0..10).map(|i| {
            (
                format!("{prefix}{i}"),
                json!({"type": "object", "additionalProperties": {"type": "integer"}}),
            )
        }));
        object(props, &[key])
    };
    let owner = json!({"type": "object", "properties": {
        "pick": {"anyOf": [branch("x", "p"), branch("y", "q")]}
    }, "required": ["pick"]});
    let s = OutputSchema::new("pick", owner).unwrap();
    let c = s.compiled(SchemaTarget::Anthropic).unwrap();
    assert!(!c.fallback, "{:#?}", c.notes);
    check_rules(&c.wire, SchemaTarget::Anthropic, true).unwrap();
    let v = s
        .decode_and_validate(
            SchemaTarget::Anthropic,
            json!({"pick": {"y": 1, "q3": "{\"k\": 2}"}}),
        )
        .unwrap();
    assert_eq!(v, json!({"pick": {"y": 1, "q3": {"k": 2}}}));
    let v = s
        .decode_and_validate(SchemaTarget::Anthropic, json!({"pick": {"x": 1}}))
        .unwrap();
    assert_eq!(v, json!({"pick": {"x": 1}}));
}

/// 17 optional two-type fields are 17 unions even when left out of
/// `required`: one becomes JSON text, where the text `null` leaves it out
/// (no placeholder union needed).
#[test]
fn an_optional_field_sent_as_text_is_left_out_by_the_text_null() {
    let owner = object(
        (0..17).map(|i| (format!("u{i:02}"), json!({"type": ["string", "integer"]}))),
        &[],
    );
    let s = OutputSchema::new("u", owner).unwrap();
    let c = s.compiled(SchemaTarget::Anthropic).unwrap();
    assert!(!c.fallback);
    check_rules(&c.wire, SchemaTarget::Anthropic, true).unwrap();
    let texts: Vec<&String> = c
        .notes
        .iter()
        .filter(|n| n.contains(": to fit the "))
        .collect();
    assert_eq!(texts.len(), 1, "{:#?}", c.notes);
    let field = texts[0]
        .split(':')
        .next()
        .unwrap()
        .trim_start_matches("/properties/");
    assert_eq!(c.wire["properties"][field]["type"], "string");
    assert!(
        c.wire["properties"][field]["description"]
            .as_str()
            .unwrap()
            .ends_with("Write the text null to leave it out.")
    );
    let mut wire = Map::new();
    wire.insert(field.to_string(), json!("null"));
    assert_eq!(
        s.decode_and_validate(SchemaTarget::Anthropic, Value::Object(wire.clone()))
            .unwrap(),
        json!({})
    );
    wire.insert(field.to_string(), json!("7"));
    let mut want = Map::new();
    want.insert(field.to_string(), json!(7));
    assert_eq!(
        s.decode_and_validate(SchemaTarget::Anthropic, Value::Object(wire))
            .unwrap(),
        Value::Object(want)
    );
}

/// An optional property no value satisfies is left out (the object is fine
/// without it); items no value satisfies leave only the empty array; a
/// required one still makes the schema unsatisfiable, named at its path.
#[test]
fn unsatisfiable_parts_that_can_be_absent_do_not_refuse_the_schema() {
    let never = json!({"allOf": [{"type": "string"}, {"type": "boolean"}]});
    let owner = json!({"type": "object", "properties": {
        "a": never, "b": {"type": "string"}, "xs": {"type": "array", "items": never}
    }, "required": ["b"]});
    let s = OutputSchema::new("never", owner.clone()).unwrap();
    for target in TARGETS {
        let c = s.compiled(target).unwrap();
        assert!(!c.fallback);
        check_rules(&c.wire, target, true).unwrap();
        assert!(c.wire["properties"].get("a").is_none());
        assert!(
            c.notes.iter().any(
                |n| n == "/properties/a: no value can satisfy this optional property; left out"
            )
        );
        assert_eq!(
            c.wire["properties"]["xs"]["type"],
            json!(["string", "null"])
        );
        let v = s
            .decode_and_validate(target, json!({"b": "x", "xs": "[]"}))
            .unwrap();
        assert_eq!(v, json!({"b": "x", "xs": []}));
        assert!(
            s.decode_and_validate(target, json!({"b": "x", "xs": "[1]"}))
                .is_err()
        );
    }
    // The schema `false` as items is the same case (found by the generator).
    let empty_only =
        json!({"type": "object", "properties": {"xs": {"type": "array", "items": false}}});
    for target in TARGETS {
        let c = compile(&empty_only, target).unwrap();
        assert_eq!(
            c.plan.decode(json!({"xs": "[]"})).unwrap(),
            json!({"xs": []})
        );
    }
    let mut required = owner;
    required["required"] = json!(["a", "b"]);
    let e = compile(&required, SchemaTarget::OpenAi).unwrap_err();
    assert_eq!(e.path, "/properties/a");
}

/// A reference through the document's own `$id` (as SchemaStore's
/// catalog-info.json writes them) resolves in the document; a reference
/// to another document travels as text for the validator to check.
#[test]
fn references_through_the_own_id_resolve_and_external_ones_are_text() {
    let owner = json!({
        "$schema": "http://json-schema.org/draft-07/schema#",
        "$id": "https://example.org/schemas/catalog.json",
        "type": "object",
        "properties": {
            "local": {"$ref": "catalog.json#/definitions/n"},
            "full": {"$ref": "https://example.org/schemas/catalog.json#/definitions/n"},
            "meta": {"$ref": "http://json-schema.org/draft-07/schema#"}
        },
        "required": ["local", "full", "meta"],
        "definitions": {"n": {"type": "integer"}}
    });
    let s = OutputSchema::new("ids", owner).unwrap();
    for target in TARGETS {
        let c = s.compiled(target).unwrap();
        assert_eq!(c.wire["properties"]["local"]["type"], "integer");
        assert_eq!(c.wire["properties"]["full"]["type"], "integer");
        assert_eq!(c.wire["properties"]["meta"]["type"], "string");
        assert!(
            c.notes.contains(
                &"/properties/meta: an external reference: travels as a JSON-encoded string"
                    .to_string()
            )
        );
        // The draft-07 meta-schema (bundled with the validator) checks it.
        let ok = s.decode_and_validate(
            target,
            json!({"local": 1, "full": 2, "meta": "{\"type\": \"string\"}"}),
        );
        assert_eq!(ok.unwrap()["meta"], json!({"type": "string"}));
        let bad = s.decode_and_validate(
            target,
            json!({"local": 1, "full": 2, "meta": "{\"type\": 5}"}),
        );
        assert!(bad.is_err());
    }
}

/// Deeper than OpenAI's 10 levels, only the part below the limit is text.
#[test]
fn only_the_part_below_the_nesting_limit_is_text() {
    let mut node = json!({"type": "object", "properties": {"leaf": {"type": "integer"}}, "required": ["leaf"]});
    for i in (0..12).rev() {
        node = object([(format!("l{i}"), node)], &[&format!("l{i}")]);
    }
    let s = OutputSchema::new("deep", node).unwrap();
    let c = s.compiled(SchemaTarget::OpenAi).unwrap();
    assert!(!c.fallback);
    check_rules(&c.wire, SchemaTarget::OpenAi, true).unwrap();
    assert_eq!(c.stats.depth, 10);
    let texts: Vec<&String> = c
        .notes
        .iter()
        .filter(|n| n.contains(": to fit the "))
        .collect();
    assert_eq!(texts.len(), 1);
    assert!(texts[0].starts_with("/properties/l0/properties/l1/properties/l2/properties/l3/properties/l4/properties/l5/properties/l6/properties/l7/properties/l8/properties/l9:"), "{}", texts[0]);
    // Anthropic has no depth limit: all native.
    let a = s.compiled(SchemaTarget::Anthropic).unwrap();
    assert!(a.notes.iter().all(|n| !n.contains("to fit")));
}

/// A union of a branch sent as JSON text (an array of nothing) and a plain
/// string branch: both are strings on the wire, and the text `[]` decoded by
/// the string branch would be the valid but wrong value `"[]"` (found by the
/// generator). The whole union travels as one text field: JSON when it
/// parses (`[]` stays an array), else the plain string.
#[test]
fn a_text_branch_beside_a_string_branch_is_not_read_as_the_string() {
    let owner = json!({"type": "object", "properties": {"v": {"anyOf": [
        {"type": "string"}, {"type": "array", "items": false}
    ]}}, "required": ["v"]});
    let s = OutputSchema::new("amb", owner).unwrap();
    for target in TARGETS {
        let c = s.compiled(target).unwrap();
        assert!(c.notes.contains(
            &"/properties/v: a union of a JSON-text branch and a string branch: travels as a JSON-encoded string".to_string()
        ), "{:#?}", c.notes);
        let v = s.decode_and_validate(target, json!({"v": "[]"})).unwrap();
        assert_eq!(v, json!({"v": []}));
        let v = s
            .decode_and_validate(target, json!({"v": "\"[]\""}))
            .unwrap();
        assert_eq!(v, json!({"v": "[]"}));
        // A plain string that is not JSON is the string itself (a small
        // model on llama.cpp wrote `nightly`, not `"nightly"`).
        let v = s
            .decode_and_validate(target, json!({"v": "nightly"}))
            .unwrap();
        assert_eq!(v, json!({"v": "nightly"}));
        assert_eq!(
            c.plan.encode(&json!({"v": "nightly"})),
            json!({"v": "\"nightly\""})
        );
        let d = c.wire["properties"]["v"]["description"].as_str().unwrap();
        assert!(
            d.starts_with("A JSON-encoded value, or a plain string written as it is"),
            "{d}"
        );
    }
}

/// Beside the string and JSON-text branches, an object branch stays
/// constrained: only the branches that take strings become the text field.
#[test]
fn only_the_string_branches_of_a_union_become_text() {
    let owner = json!({"type": "object", "properties": {"tags": {"anyOf": [
        {"type": "string"},
        {"type": "object", "additionalProperties": {"type": "string"}},
        {"type": "object", "properties": {"os": {"type": "string"}}, "required": ["os"], "additionalProperties": false}
    ]}}, "required": ["tags"]});
    let s = OutputSchema::new("tags", owner).unwrap();
    for target in TARGETS {
        let c = s.compiled(target).unwrap();
        check_rules(&c.wire, target, true).unwrap();
        let branches = c.wire["properties"]["tags"]["anyOf"].as_array().unwrap();
        assert_eq!(branches.len(), 2, "{:#}", c.wire);
        assert_eq!(branches[0]["type"], "object");
        assert_eq!(branches[1]["type"], "string");
        assert!(c.notes.contains(
            &"/properties/tags: the string and JSON-text branches of a union, as one field: travels as a JSON-encoded string".to_string()
        ), "{:#?}", c.notes);
        let v = s
            .decode_and_validate(target, json!({"tags": {"os": "linux"}}))
            .unwrap();
        assert_eq!(v, json!({"tags": {"os": "linux"}}));
        let v = s
            .decode_and_validate(target, json!({"tags": "nightly"}))
            .unwrap();
        assert_eq!(v, json!({"tags": "nightly"}));
        let v = s
            .decode_and_validate(target, json!({"tags": "{\"arch\": \"arm64\"}"}))
            .unwrap();
        assert_eq!(v, json!({"tags": {"arch": "arm64"}}));
    }
}
