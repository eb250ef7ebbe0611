//! Decoding wire answers back into the owner's shape, embedded compilation,
//! hostile schemas, and proptest round trips (encode → decode → validate).

use proptest::prelude::*;
use serde_json::{Value, json};
use tribunal_runtime::SchemaTarget;
use tribunal_runtime::internal::schema::{
    WireBudget, WireLimits, WireStats, compile, compile_embedded, compile_embedded_in,
};
use tribunal_runtime::{AnswerContract, ErrorCode, OutputSchema};

fn fixture(name: &str) -> Value {
    let path = format!(
        "{}/tests/fixtures/schemas/{name}.json",
        env!("CARGO_MANIFEST_DIR")
    );
    serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

fn schema(name: &str) -> OutputSchema {
    OutputSchema::new(name, fixture(name)).unwrap()
}

#[test]
fn placeholder_null_is_removed_when_the_owner_rejects_null() {
    let s = schema("01_optional_non_null");
    let v = s
        .decode_and_validate(SchemaTarget::OpenAi, json!({"name": "a", "nick": null}))
        .unwrap();
    assert_eq!(v, json!({"name": "a"}));
}

#[test]
fn null_is_kept_where_the_owner_accepts_it() {
    let s = schema("03_optional_enum");
    let v = s
        .decode_and_validate(
            SchemaTarget::OpenAi,
            json!({"status": "Open", "color": null}),
        )
        .unwrap();
    assert_eq!(v, json!({"status": "Open", "color": null}));
}

#[test]
fn json_encoded_field_is_decoded_and_invalid_text_is_a_mismatch_at_its_path() {
    let s = schema("04_open_map");
    let v = s
        .decode_and_validate(
            SchemaTarget::OpenAi,
            json!({"id": "x", "counts": "{\"a\": 1}", "labels": null}),
        )
        .unwrap();
    assert_eq!(v, json!({"id": "x", "counts": {"a": 1}}));
    let err = s
        .decode_and_validate(
            SchemaTarget::OpenAi,
            json!({"id": "x", "counts": "{a: 1", "labels": null}),
        )
        .unwrap_err();
    assert_eq!(err.code, ErrorCode::SchemaMismatch);
    assert_eq!(err.issues[0].path, "/counts");
    // The decoded map is still validated against the owner schema.
    let err = s
        .decode_and_validate(
            SchemaTarget::OpenAi,
            json!({"id": "x", "counts": "{\"a\": \"one\"}", "labels": null}),
        )
        .unwrap_err();
    assert_eq!(err.issues[0].path, "/counts/a");
}

#[test]
fn anthropic_enum_case_is_mapped_back_openai_is_not() {
    let s = schema("33_enum_case");
    let wire = json!({"level": "HIGH", "flags": ["a", "B"]});
    let v = s
        .decode_and_validate(SchemaTarget::Anthropic, wire.clone())
        .unwrap();
    assert_eq!(v, json!({"level": "High", "flags": ["A", "B"]}));
    let err = s
        .decode_and_validate(SchemaTarget::OpenAi, wire)
        .unwrap_err();
    assert_eq!(err.code, ErrorCode::SchemaMismatch);
}

#[test]
fn anthropic_discriminator_selects_its_branch_ignoring_case() {
    let s = schema("06_oneof_discriminator");
    let v = s
        .decode_and_validate(
            SchemaTarget::Anthropic,
            json!({"shape": {"kind": "Square", "side": 2, "label": null}}),
        )
        .unwrap();
    assert_eq!(v, json!({"shape": {"kind": "square", "side": 2}}));
}

#[test]
fn wrapped_root_is_unwrapped() {
    let s = schema("16_root_array");
    let v = s
        .decode_and_validate(SchemaTarget::OpenAi, json!({"value": [{"x": 1.5}]}))
        .unwrap();
    assert_eq!(v, json!([{"x": 1.5}]));
}

/// Over OpenAI's 1,000 enum values, only the field holding the enum travels
/// as JSON-encoded text; the rest of the answer stays constrained.
#[test]
fn an_enum_over_the_limit_travels_as_text_in_its_field_only() {
    let s = schema("07_enum_2000");
    let c = s.compiled(SchemaTarget::OpenAi).unwrap();
    assert!(!c.fallback);
    assert_eq!(c.wire["properties"]["code"]["type"], "string");
    assert!(c.wire["properties"]["code"].get("enum").is_none());
    assert_eq!(
        c.notes,
        [
            "/properties/code: to fit the openai limits (2000 enum values (limit 1000)): travels as a JSON-encoded string"
        ]
    );
    let v = s
        .decode_and_validate(SchemaTarget::OpenAi, json!({"code": "\"code_0042\""}))
        .unwrap();
    assert_eq!(v, json!({"code": "code_0042"}));
    let err = s
        .decode_and_validate(SchemaTarget::OpenAi, json!({"code": "\"nope\""}))
        .unwrap_err();
    assert_eq!(err.issues[0].path, "/code");
    // Anthropic has no enum limit: the enum is sent as it is.
    let a = s.compiled(SchemaTarget::Anthropic).unwrap();
    assert_eq!(
        a.wire["properties"]["code"]["enum"]
            .as_array()
            .unwrap()
            .len(),
        2000
    );
}

/// When no subtree can bring the wire within the limits (one object with
/// 5,001 properties), the whole answer travels as one JSON-encoded string.
#[test]
fn fallback_answer_is_one_json_string() {
    let props: serde_json::Map<String, Value> = (0..5001)
        .map(|i| (format!("p{i}"), json!({"type": "integer"})))
        .collect();
    let names: Vec<String> = props.keys().cloned().collect();
    let owner = json!({"type": "object", "properties": props, "required": names});
    let s = OutputSchema::new("wide", owner).unwrap();
    let c = s.compiled(SchemaTarget::OpenAi).unwrap();
    assert!(c.fallback);
    assert_eq!(
        c.notes,
        [
            "(root): the compiled schema exceeds the openai limits (5001 object properties (limit 5000)): the whole answer travels as one JSON-encoded string"
        ]
    );
    let mut answer: serde_json::Map<String, Value> = serde_json::Map::new();
    for n in &names {
        answer.insert(n.clone(), json!(1));
    }
    let text = Value::Object(answer.clone()).to_string();
    let v = s
        .decode_and_validate(SchemaTarget::OpenAi, json!({"value": text}))
        .unwrap();
    assert_eq!(v, Value::Object(answer.clone()));
    answer.insert("p7".into(), json!("x"));
    let text = Value::Object(answer).to_string();
    let err = s
        .decode_and_validate(SchemaTarget::OpenAi, json!({"value": text}))
        .unwrap_err();
    assert_eq!(err.issues[0].path, "/p7");
}

#[test]
fn recursive_children_travel_as_text() {
    let s = schema("05_recursive_ref");
    let child = json!({"value": 2, "children": []}).to_string();
    let v = s
        .decode_and_validate(
            SchemaTarget::Anthropic,
            json!({"tree": {"value": 1, "children": [child]}}),
        )
        .unwrap();
    assert_eq!(
        v,
        json!({"tree": {"value": 1, "children": [{"value": 2, "children": []}]}})
    );
}

#[test]
fn embedded_field_is_not_wrapped_and_falls_back_to_text_over_budget() {
    let owner = fixture("20_landmark");
    let e = compile_embedded(&owner, SchemaTarget::OpenAi).unwrap();
    assert!(!e.fallback);
    assert_eq!(e.wire["type"], "object");
    // A budget already at the nesting limit pushes the field into text.
    let budget = WireBudget {
        used: WireStats::default(),
        depth: 10,
    };
    let e = compile_embedded_in(&owner, SchemaTarget::OpenAi, &budget).unwrap();
    assert!(e.fallback);
    assert_eq!(e.wire["type"], "string");
    let decoded = e
        .plan
        .decode(json!(
            "{\"name\":\"x\",\"year\":1,\"height_m\":2.0,\"sources\":[\"a\"]}"
        ))
        .unwrap();
    assert_eq!(decoded["sources"], json!(["a"]));
    // One level less, only the array (the deepest part) becomes text.
    let budget = WireBudget {
        used: WireStats::default(),
        depth: 9,
    };
    let e = compile_embedded_in(&owner, SchemaTarget::OpenAi, &budget).unwrap();
    assert!(!e.fallback);
    assert_eq!(e.wire["properties"]["name"]["type"], "string");
    assert_eq!(e.wire["properties"]["sources"]["type"], "string");
    let decoded = e
        .plan
        .decode(json!({"name": "x", "year": 1, "height_m": 2.0, "sources": "[\"a\"]"}))
        .unwrap();
    assert_eq!(decoded["sources"], json!(["a"]));
    // Two fields sharing a budget: the second sees the first's use.
    let root = json!({"anyOf": [{"type": "string"}, {"type": "integer"}]});
    let many = json!({"type": "object", "properties": (0..10)
        .map(|i| (format!("p{i}"), json!({"type": ["string", "integer"]})))
        .collect::<serde_json::Map<_, _>>(), "required": (0..10).map(|i| format!("p{i}")).collect::<Vec<_>>()});
    let first = compile_embedded(&many, SchemaTarget::Anthropic).unwrap();
    assert!(!first.fallback);
    let shared = WireBudget {
        used: WireStats::measure(&root).combine(first.stats, 1),
        depth: 1,
    };
    let second = compile_embedded_in(&many, SchemaTarget::Anthropic, &shared).unwrap();
    // 1 + 10 + 10 unions exceed 16: five of the second field's unions
    // travel as text, the rest stays constrained.
    assert!(!second.fallback);
    let texts = second
        .notes
        .iter()
        .filter(|n| {
            n.contains("to fit the anthropic limits (21 union-typed properties (limit 16))")
        })
        .count();
    assert_eq!(texts, 5, "{:#?}", second.notes);
    assert_eq!(second.stats.unions, 5);
    let total = WireStats::measure(&root)
        .combine(first.stats, 1)
        .combine(second.stats, 1);
    WireLimits::for_target(SchemaTarget::Anthropic)
        .check(&total)
        .unwrap();
}

#[test]
fn hostile_schemas_terminate_without_panicking() {
    // A reference cycle with no structure.
    let cycle = json!({"$defs": {"a": {"$ref": "#/$defs/b"}, "b": {"$ref": "#/$defs/a"}}, "$ref": "#/$defs/a"});
    for t in [SchemaTarget::OpenAi, SchemaTarget::Anthropic] {
        compile(&cycle, t).unwrap();
    }
    // Exponential inlining: each definition uses the next twice.
    let mut defs = serde_json::Map::new();
    for i in 0..40 {
        let next = if i == 39 {
            json!({"type": "string"})
        } else {
            json!({"type": "object", "properties": {
                "l": {"$ref": format!("#/$defs/d{}", i + 1)},
                "r": {"$ref": format!("#/$defs/d{}", i + 1)}}, "required": ["l", "r"]})
        };
        defs.insert(format!("d{i}"), next);
    }
    let blowup = json!({"$defs": defs, "$ref": "#/$defs/d0"});
    let c = compile(&blowup, SchemaTarget::Anthropic).unwrap();
    assert!(c.fallback);
    // A document nested far deeper than any limit.
    let mut deep = json!({"type": "string"});
    for _ in 0..1_000 {
        deep = json!({"type": "array", "items": deep});
    }
    let err = compile(&deep, SchemaTarget::OpenAi).unwrap_err();
    assert!(err.message.contains("deeper"));
    // Nonsense is an error naming the path, never a panic.
    let err = compile(
        &json!({"type": "object", "properties": {"a": {"type": 7}}}),
        SchemaTarget::OpenAi,
    )
    .unwrap_err();
    assert_eq!(err.path, "/properties/a/type");
    for junk in [json!(null), json!(3), json!("s"), json!([1]), json!(false)] {
        assert!(compile(&junk, SchemaTarget::OpenAi).is_err());
    }
    std::mem::forget(deep);
}

/// Any JSON value, a few levels deep.
fn arb_json() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        any::<i32>().prop_map(|n| json!(n)),
        "[a-z$#/]{0,8}".prop_map(Value::String),
        prop::sample::select(vec![
            "type",
            "object",
            "string",
            "properties",
            "required",
            "$ref",
            "#",
            "#/$defs/a",
            "anyOf",
            "oneOf",
            "allOf",
            "items",
            "enum",
            "const",
            "additionalProperties",
        ])
        .prop_map(|s| json!(s)),
    ];
    leaf.prop_recursive(5, 48, 6, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..4).prop_map(Value::Array),
            prop::collection::vec(
                (
                    prop::sample::select(vec![
                        "type",
                        "properties",
                        "required",
                        "$ref",
                        "$defs",
                        "anyOf",
                        "oneOf",
                        "allOf",
                        "items",
                        "enum",
                        "const",
                        "additionalProperties",
                        "a",
                        "b",
                        "prefixItems",
                        "not",
                        "minimum",
                        "pattern",
                    ]),
                    inner
                ),
                0..5
            )
            .prop_map(|kv| Value::Object(
                kv.into_iter().map(|(k, v)| (k.to_string(), v)).collect()
            )),
        ]
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(400))]

    /// Arbitrary JSON as a schema: an error or a schema, never a panic, and
    /// every success follows the target's rules.
    #[test]
    fn arbitrary_json_compiles_or_errors(v in arb_json()) {
        for t in [SchemaTarget::OpenAi, SchemaTarget::Anthropic] {
            if let Ok(c) = compile(&v, t) {
                crate::schema_compile::check_rules(&c.wire, t, true).map_err(TestCaseError::fail)?;
            }
        }
    }
}

/// Landmark records, some with optional extras.
fn arb_landmark() -> impl Strategy<Value = Value> {
    (
        "[A-Za-z ]{1,12}",
        1000i64..2030,
        0.0f64..900.0,
        prop::collection::vec("[a-z]{1,6}", 1..4),
    )
        .prop_map(|(n, y, h, s)| json!({"name": n, "year": y, "height_m": h, "sources": s}))
}

fn arb_tree() -> impl Strategy<Value = Value> {
    let leaf = (0i64..100).prop_map(|v| json!({"value": v, "children": []}));
    leaf.prop_recursive(4, 16, 3, |inner| {
        ((0i64..100), prop::collection::vec(inner, 0..3))
            .prop_map(|(v, c)| json!({"value": v, "children": c}))
    })
    .prop_map(|t| json!({"tree": t}))
}

fn arb_mixed() -> impl Strategy<Value = Value> {
    (
        prop::option::of("[a-z]{0,5}"),
        prop::option::of(prop::sample::select(vec!["red", "green"])),
        prop::collection::btree_map("[a-z]{1,4}", -5i64..5, 0..4),
        prop_oneof![
            (0.5f64..9.0).prop_map(|r| json!({"kind": "circle", "radius": r})),
            (0.5f64..9.0, prop::option::of("[a-z]{1,3}")).prop_map(|(s, l)| {
                let mut v = json!({"kind": "square", "side": s});
                if let Some(l) = l {
                    v["label"] = json!(l);
                }
                v
            }),
        ],
    )
        .prop_map(|(nick, color, counts, shape)| {
            let mut v = json!({"name": "n", "counts": counts, "shape": shape});
            if let Some(n) = nick {
                v["nick"] = json!(n);
            }
            if let Some(c) = color {
                v["color"] = json!(c);
            }
            v
        })
}

const MIXED: &str = r#"{
  "type": "object",
  "properties": {
    "name": {"type": "string"},
    "nick": {"type": "string"},
    "color": {"enum": ["red", "green"]},
    "counts": {"type": "object", "additionalProperties": {"type": "integer"}},
    "shape": {"oneOf": [
      {"type": "object", "properties": {"kind": {"const": "circle"}, "radius": {"type": "number"}}, "required": ["kind", "radius"]},
      {"type": "object", "properties": {"kind": {"const": "square"}, "side": {"type": "number"}, "label": {"type": "string"}}, "required": ["kind", "side"]}
    ]}
  },
  "required": ["name", "counts", "shape"]
}"#;

/// encode → (the wire value validates against the wire schema) → decode →
/// the same value, which validates against the owner schema.
fn round_trip(owner: &Value, value: &Value) -> Result<(), TestCaseError> {
    let schema = OutputSchema::new("t", owner.clone()).unwrap();
    prop_assert!(
        schema.validator().is_valid(value),
        "generated value is valid"
    );
    for t in [SchemaTarget::OpenAi, SchemaTarget::Anthropic] {
        let c = schema.compiled(t).unwrap();
        let wire = c.plan.encode(value);
        let wire_validator = jsonschema::validator_for(&c.wire).unwrap();
        prop_assert!(
            wire_validator.is_valid(&wire),
            "wire value {wire} does not match the wire schema for {}",
            t.as_str()
        );
        let back = schema
            .decode_and_validate(t, wire)
            .map_err(|r| TestCaseError::fail(format!("{:?}", r.issues)))?;
        prop_assert_eq!(&back, value);
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(128))]

    #[test]
    fn landmark_round_trips(v in arb_landmark()) {
        round_trip(&fixture("20_landmark"), &v)?;
    }

    #[test]
    fn recursive_tree_round_trips(v in arb_tree()) {
        round_trip(&fixture("05_recursive_ref"), &v)?;
    }

    #[test]
    fn optional_map_and_union_round_trip(v in arb_mixed()) {
        round_trip(&serde_json::from_str(MIXED).unwrap(), &v)?;
    }

    #[test]
    fn wrapped_root_array_round_trips(xs in prop::collection::vec(-1.0e6f64..1.0e6, 0..5)) {
        let v = Value::Array(xs.into_iter().map(|x| json!({"x": x})).collect());
        round_trip(&fixture("16_root_array"), &v)?;
    }

    #[test]
    fn fallback_round_trips(i in 0usize..2000) {
        round_trip(&fixture("07_enum_2000"), &json!({"code": format!("code_{i:04}")}))?;
    }
}

/// An owner `pattern` written for catastrophic backtracking (`^(a+)+$`
/// against 40 `a`s and a `!`) is judged — a mismatch at its path — instead
/// of hanging the run: the validator's regex engine does not backtrack
/// exponentially on it.
#[test]
fn a_backtracking_pattern_is_judged_not_hung() {
    let owner = OutputSchema::new(
        "evil",
        json!({"type": "object", "required": ["s"],
               "properties": {"s": {"type": "string", "pattern": "^(a+)+$"}}}),
    )
    .unwrap();
    let answer = json!({"s": format!("{}!", "a".repeat(40))});
    let issues = owner.validator().issues(&answer);
    assert_eq!(issues.len(), 1);
    assert_eq!(issues[0].path, "/s");
    assert!(owner.validator().issues(&json!({"s": "aaaa"})).is_empty());
}

/// A wrapped root (`{"value": …}`) is unwrapped only when it is exactly
/// that one key; anything else is passed on as sent, so validation reports
/// the shape the model really sent instead of a `null` that hides it.
#[test]
fn unwrap_takes_only_an_object_of_exactly_the_wrapper_key() {
    use tribunal_runtime::internal::schema::{DecodePlan, Step};
    let plan = DecodePlan {
        root: Step::Unwrap {
            key: "value".into(),
            then: Box::new(Step::Keep),
        },
    };
    assert_eq!(plan.decode(json!({"value": [1, 2]})), Ok(json!([1, 2])));
    for sent in [
        json!({"value": 1, "extra": 2}),
        json!({"other": 1}),
        json!({}),
        json!([1]),
        json!("value"),
    ] {
        assert_eq!(plan.decode(sent.clone()), Ok(sent.clone()), "{sent}");
    }
}

/// Object branches told apart by their key sets: a value with both keys is
/// the two-key branch, never the one-key branch whose keys it also holds.
#[test]
fn a_union_branch_is_chosen_by_its_exact_key_set() {
    use tribunal_runtime::internal::schema::{Branch, DecodePlan, Field, Step};
    let field = |drop_null| Field {
        optional: drop_null,
        drop_null,
        omittable: false,
        then: Step::Keep,
    };
    let branch = |keys: &[&str], drop_b: bool| Branch {
        types: vec!["object".into()],
        keys: Some(keys.iter().map(|k| k.to_string()).collect()),
        omittable: Vec::new(),
        tags: Default::default(),
        then: Step::Object {
            fields: keys
                .iter()
                .map(|k| (k.to_string(), field(*k == "b" && drop_b)))
                .collect(),
        },
    };
    // The one-key branch first: an `a`-only value; the two-key branch drops
    // a null `b` (its placeholder).
    let plan = DecodePlan {
        root: Step::AnyOf {
            branches: vec![branch(&["a"], false), branch(&["a", "b"], true)],
        },
    };
    assert_eq!(plan.decode(json!({"a": 1, "b": null})), Ok(json!({"a": 1})));
    assert_eq!(plan.decode(json!({"a": 1})), Ok(json!({"a": 1})));
}

/// Encoding (the inverse, for scripted backends) sends an absent optional
/// field as the `null` placeholder, and leaves an absent required one absent.
#[test]
fn encode_fills_only_optional_fields_with_null() {
    let owner = json!({
        "type": "object",
        "properties": {"a": {"type": "string"}, "b": {"type": "string"}},
        "required": ["a"]
    });
    let compiled = compile(&owner, SchemaTarget::OpenAi).unwrap();
    assert_eq!(compiled.plan.encode(&json!({})), json!({"b": null}));
    assert_eq!(
        compiled.plan.encode(&json!({"a": "x"})),
        json!({"a": "x", "b": null})
    );
}

/// Branches told apart by a constant tag: the exact tag first (strings and
/// numbers alike), a string tag that differs only in case second.
#[test]
fn a_union_branch_is_chosen_by_its_tag_exactly_before_ignoring_case() {
    use tribunal_runtime::internal::schema::{Branch, DecodePlan, Field, Step};
    // `drops` marks a branch by dropping a null `z` (its placeholder).
    let branch = |tag: Value, drops: bool| Branch {
        types: vec!["object".into()],
        keys: None,
        omittable: Vec::new(),
        tags: [("kind".to_string(), tag)].into_iter().collect(),
        then: if drops {
            Step::Object {
                fields: [(
                    "z".to_string(),
                    Field {
                        optional: true,
                        drop_null: true,
                        omittable: false,
                        then: Step::Keep,
                    },
                )]
                .into_iter()
                .collect(),
            }
        } else {
            Step::Keep
        },
    };
    let plan = |branches| DecodePlan {
        root: Step::AnyOf { branches },
    };
    let strings = plan(vec![branch(json!("a"), true), branch(json!("b"), false)]);
    assert_eq!(
        strings.decode(json!({"kind": "b", "z": null})),
        Ok(json!({"kind": "b", "z": null})),
        "the b branch keeps z"
    );
    assert_eq!(
        strings.decode(json!({"kind": "a", "z": null})),
        Ok(json!({"kind": "a"}))
    );
    // Case is ignored only when no tag matches exactly.
    let cased = plan(vec![branch(json!("a"), true), branch(json!("A"), false)]);
    assert_eq!(
        cased.decode(json!({"kind": "A", "z": null})),
        Ok(json!({"kind": "A", "z": null}))
    );
    assert_eq!(
        strings.decode(json!({"kind": "B", "z": null})),
        Ok(json!({"kind": "B", "z": null})),
        "B is b ignoring case"
    );
    // Numeric tags match exactly or not at all.
    let numbers = plan(vec![branch(json!(1), true), branch(json!(2), false)]);
    assert_eq!(
        numbers.decode(json!({"kind": 2, "z": null})),
        Ok(json!({"kind": 2, "z": null}))
    );
}
