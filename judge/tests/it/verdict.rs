//! The verdict envelope: wire schemas per target, decoding (JSON-encoded
//! `verdictFields`, Anthropic case mapping, non-permitted fields), human
//! submissions and their error text, reviews on a scripted model.

use serde_json::{Value, json};
use std::path::Path;
use std::sync::Arc;
use tribunal_judge::internal::verdict::{
    Review, StoredVerdict, Verdict, VerdictOutcome, VerdictSchemas, run_review, submit,
};
use tribunal_runtime::internal::answer::repair_message;
use tribunal_runtime::internal::schema::{WireLimits, WireStats};
use tribunal_runtime::{AnswerContract, ErrorCode};
use tribunal_runtime::{SchemaTarget, ScriptTurn, ScriptedBackend};

fn arena_dir() -> std::path::PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../arenas/code_review")
}

fn read(path: &str) -> Value {
    let text = std::fs::read_to_string(arena_dir().join(path)).unwrap();
    serde_json::from_str(&text).unwrap()
}

/// The code_review arena's owner schemas.
fn code_review() -> VerdictSchemas {
    VerdictSchemas::new(read("schemas/green.json"), read("schemas/red.json")).unwrap()
}

fn red_fields() -> Value {
    json!({
        "summary": "The slice end is one past the page.",
        "findings": [{"file": "src/pagination.py", "line": 10, "problem": "size + 1 records"}],
        "covered": ["R1", "R2"],
    })
}

#[test]
fn wire_schema_per_target() {
    let _snapshots = tribunal_testkit::bind_snapshots("judge");
    let schemas = code_review();
    for target in [SchemaTarget::OpenAi, SchemaTarget::Anthropic] {
        let wire = schemas.wire_schema(target).unwrap();
        insta::assert_json_snapshot!(format!("verdict_envelope_{}", target.as_str()), *wire);
    }
}

#[test]
fn verdict_comes_first_in_every_alternative() {
    let schemas = code_review();
    for target in [
        SchemaTarget::Plain,
        SchemaTarget::OpenAi,
        SchemaTarget::Anthropic,
    ] {
        let wire = schemas.wire_schema(target).unwrap();
        assert_eq!(wire["required"], json!(["result"]));
        assert_eq!(wire["additionalProperties"], json!(false));
        let alternatives = wire["properties"]["result"]["anyOf"].as_array().unwrap();
        assert_eq!(alternatives.len(), 2);
        for (alt, verdict) in alternatives.iter().zip(["GREEN", "RED"]) {
            let keys: Vec<&String> = alt["properties"].as_object().unwrap().keys().collect();
            assert_eq!(keys, ["verdict", "verdictFields"], "{target:?}");
            assert_eq!(alt["properties"]["verdict"]["const"], verdict);
            assert_eq!(alt["required"], json!(["verdict", "verdictFields"]));
            assert_eq!(alt["additionalProperties"], json!(false));
        }
    }
}

#[test]
fn decodes_a_red_verdict_flat_with_verdict_first() {
    let schemas = code_review();
    let wire = json!({"result": {"verdict": "RED", "verdictFields": red_fields()}});
    let flat = schemas.decode(SchemaTarget::OpenAi, wire).unwrap();
    let keys: Vec<&String> = flat.as_object().unwrap().keys().collect();
    assert_eq!(keys, ["verdict", "summary", "findings", "covered"]);
    assert_eq!(flat["verdict"], "RED");
}

#[test]
fn verdict_fields_as_json_encoded_text() {
    let schemas = code_review();
    let text = red_fields().to_string();
    for target in [
        SchemaTarget::Plain,
        SchemaTarget::OpenAi,
        SchemaTarget::Anthropic,
    ] {
        let wire = json!({"result": {"verdict": "RED", "verdictFields": text}});
        let flat = schemas.decode(target, wire).unwrap();
        assert_eq!(flat["findings"][0]["line"], 10, "{target:?}");
        assert_eq!(flat["covered"], json!(["R1", "R2"]));
    }
}

#[test]
fn over_the_limits_the_verdict_fields_fit_and_else_travel_as_text() {
    // 30 optional properties: 30 placeholder unions exceed Anthropic's 16,
    // so the RED fields spend its optional properties instead, and stay
    // constrained; the envelope around them is unchanged.
    let props: serde_json::Map<String, Value> = (0..30)
        .map(|i| (format!("f{i}"), json!({"type": "string"})))
        .collect();
    let red = json!({"type": "object", "properties": props, "additionalProperties": false});
    let green = json!({"type": "object", "properties": {"summary": {"type": "string"}},
                       "required": ["summary"], "additionalProperties": false});
    let schemas = VerdictSchemas::new(green.clone(), red).unwrap();
    let envelope = schemas.envelope(SchemaTarget::Anthropic).unwrap();
    assert!(!envelope.red.fallback);
    assert!(!envelope.green.fallback);
    let fields = &envelope.wire["properties"]["result"]["anyOf"][1]["properties"]["verdictFields"];
    assert_eq!(fields["type"], "object");
    assert!(fields["required"].as_array().unwrap().len() < 30);
    WireLimits::for_target(SchemaTarget::Anthropic)
        .check(&WireStats::measure(&envelope.wire))
        .unwrap();
    let wire = json!({"result": {"verdict": "RED", "verdictFields": {"f3": "x"}}});
    let flat = schemas.decode(SchemaTarget::Anthropic, wire).unwrap();
    assert_eq!(flat, json!({"verdict": "RED", "f3": "x"}));
    // When nothing smaller fits (a reference chain that inlines to more than
    // 100,000 nodes), the whole RED fields travel as text, still validated
    // against the original owner schema.
    let mut defs = serde_json::Map::new();
    for i in 0..20 {
        let next = format!("#/$defs/d{}", i + 1);
        defs.insert(
            format!("d{i}"),
            json!({"type": "object", "properties": {"a": {"$ref": next}, "b": {"$ref": next}}}),
        );
    }
    defs.insert("d20".into(), json!({"type": "string"}));
    let red = json!({"type": "object", "properties": {"f3": {"type": "string"}, "t": {"$ref": "#/$defs/d0"}},
                     "additionalProperties": false, "$defs": defs});
    let schemas = VerdictSchemas::new(green, red).unwrap();
    let envelope = schemas.envelope(SchemaTarget::Anthropic).unwrap();
    assert!(envelope.red.fallback);
    assert_eq!(
        envelope.wire["properties"]["result"]["anyOf"][1]["properties"]["verdictFields"]["type"],
        "string"
    );
    let wire = json!({"result": {"verdict": "RED", "verdictFields": "{\"f3\": \"x\"}"}});
    let flat = schemas.decode(SchemaTarget::Anthropic, wire).unwrap();
    assert_eq!(flat, json!({"verdict": "RED", "f3": "x"}));
    let wire = json!({"result": {"verdict": "RED", "verdictFields": "{\"f3\": 3}"}});
    let err = schemas.decode(SchemaTarget::Anthropic, wire).unwrap_err();
    assert_eq!(err.code, ErrorCode::SchemaMismatch);
    assert_eq!(err.issues[0].path, "/f3");
}

#[test]
fn anthropic_lowercase_verdict_maps_to_canonical() {
    let schemas = code_review();
    let wire = json!({"result": {"verdict": "green", "verdictFields": {"summary": "fine"}}});
    let flat = schemas
        .decode(SchemaTarget::Anthropic, wire.clone())
        .unwrap();
    assert_eq!(flat, json!({"verdict": "GREEN", "summary": "fine"}));
    // Only Anthropic gets the case mapping; OpenAI's const is exact.
    let err = schemas.decode(SchemaTarget::OpenAi, wire).unwrap_err();
    assert_eq!(err.code, ErrorCode::SchemaMismatch);
    assert_eq!(err.issues[0].path, "/result/verdict");
}

#[test]
fn a_field_of_the_other_verdict_is_a_schema_mismatch() {
    let schemas = code_review();
    let wire = json!({"result": {"verdict": "GREEN", "verdictFields": red_fields()}});
    let err = schemas.decode(SchemaTarget::Plain, wire).unwrap_err();
    assert_eq!(err.code, ErrorCode::SchemaMismatch);
    let paths: Vec<&str> = err.issues.iter().map(|i| i.path.as_str()).collect();
    assert!(paths.contains(&"/findings"), "{paths:?}");
    assert!(paths.contains(&"/covered"), "{paths:?}");
}

#[test]
fn an_undeclared_field_of_an_open_owner_schema_is_not_dropped() {
    // The GREEN schema does not close its object: the wire does, so an extra
    // field is still not permitted.
    let green = json!({"type": "object", "properties": {"summary": {"type": "string"}}});
    let red = json!({"type": "object", "properties": {"summary": {"type": "string"}}});
    let schemas = VerdictSchemas::new(green, red).unwrap();
    let wire =
        json!({"result": {"verdict": "GREEN", "verdictFields": {"summary": "ok", "score": 3}}});
    let err = schemas.decode(SchemaTarget::Anthropic, wire).unwrap_err();
    assert_eq!(err.code, ErrorCode::SchemaMismatch);
    assert_eq!(err.issues[0].path, "/score");
}

#[test]
fn envelope_shape_errors_name_the_path() {
    let schemas = code_review();
    let cases = [
        (json!([1]), ""),
        (json!({"verdict": "GREEN"}), ""),
        (
            json!({"result": {"verdict": "GREEN", "verdictFields": {"summary": "x"}}, "extra": 1}),
            "/extra",
        ),
        (
            json!({"result": {"verdict": "AMBER", "verdictFields": {}}}),
            "/result/verdict",
        ),
        (json!({"result": {"verdict": "RED"}}), "/result"),
        (
            json!({"result": {"verdictFields": {}, "verdict": "RED", "x": 1}}),
            "/result/x",
        ),
    ];
    for (wire, path) in cases {
        let err = schemas
            .decode(SchemaTarget::OpenAi, wire.clone())
            .unwrap_err();
        assert_eq!(err.code, ErrorCode::SchemaMismatch, "{wire}");
        assert_eq!(err.issues[0].path, path, "{wire}");
    }
}

#[test]
fn owner_schemas_are_checked_when_loaded() {
    let obj = json!({"type": "object", "properties": {"summary": {"type": "string"}}});
    assert!(VerdictSchemas::new(json!({"type": "string"}), obj.clone()).is_err());
    let with_verdict = json!({"type": "object", "properties": {"verdict": {"type": "string"}}});
    let err = VerdictSchemas::new(obj, with_verdict).unwrap_err();
    assert_eq!(err.path, "/properties/verdict");
}

#[test]
fn submission_error_text() {
    let _snapshots = tribunal_testkit::bind_snapshots("judge");
    let schemas = code_review();
    let mut fields = red_fields();
    fields["covered"] = json!("R1");
    let err = submit(&schemas, Verdict::Red, fields).unwrap_err();
    // For a person, not the model's repair prompt (which the rejection
    // still gives).
    assert_ne!(err.to_string(), repair_message(&err.rejection, None));
    assert!(!err.to_string().contains("Return only one JSON object"));
    insta::assert_snapshot!("verdict_submission_error", err.to_string());

    // Many problems: each by its field path, each message cut to 200 characters.
    let long = "x".repeat(500);
    let fields = json!({"summary": 1, "findings": [], "covered": [long, 2, 3, 4, 5, 6], "more": 1});
    let err = submit(&schemas, Verdict::Red, fields).unwrap_err();
    insta::assert_snapshot!("verdict_submission_error_many", err.to_string());
    let text = err.to_string();
    assert_eq!(
        text.lines().filter(|l| l.starts_with("- ")).count(),
        err.rejection.issues.len().min(10)
    );
    assert!(text.lines().all(|l| l.chars().count() <= 2 * 200 + 40));
}

#[test]
fn a_valid_submission_is_stored_flat() {
    let schemas = code_review();
    let stored = submit(&schemas, Verdict::Green, json!({"summary": "Looks right."})).unwrap();
    assert_eq!(stored.outcome, VerdictOutcome::Green);
    assert_eq!(
        stored.result,
        Some(json!({"verdict": "GREEN", "summary": "Looks right."}))
    );
    assert_eq!(stored.reproduction.backend, "human");
    assert_eq!(stored.reproduction.config_hash.len(), 16);
    let round: StoredVerdict = serde_json::from_str(&stored.to_json_pretty()).unwrap();
    assert_eq!(round, stored);
}

fn turns(v: Value) -> Vec<ScriptTurn> {
    serde_json::from_value(v).unwrap()
}

fn review(dir: &Path) -> Review {
    let tools = tribunal_tools::FileTools::new(dir).unwrap().into_toolbox();
    Review::new(Arc::new(code_review()), "Review the change in CHANGE.diff.").with_tools(tools)
}

#[tokio::test]
async fn a_review_reads_files_then_answers() {
    let dir = arena_dir().join("items/pagination_off_by_one");
    let backend = ScriptedBackend::from_script(&turns(json!([
        {"tool_calls": [{"name": "read_file", "arguments": {"path": "CHANGE.diff"}}]},
        {"json": {"result": {"verdict": "RED", "verdictFields": red_fields()}},
         "usage": {"input_tokens": 10, "output_tokens": 5}},
    ])));
    let review = review(&dir);
    let (stored, run) = run_review(&review, Arc::new(backend)).await.unwrap();
    assert_eq!(stored.outcome, VerdictOutcome::Red);
    assert_eq!(stored.reproduction.usage.output_tokens, 5);
    assert_eq!(stored.reproduction.config_hash, review.config_hash());
    assert!(run.report.tool_calls[0].ok);
}

#[tokio::test]
async fn an_invalid_answer_after_the_repair_is_an_error_with_only_its_code() {
    let dir = arena_dir().join("items/pagination_off_by_one");
    let bad = json!({"result": {"verdict": "GREEN", "verdictFields": {"summary": "ok", "covered": ["R1"]}}});
    let backend = ScriptedBackend::from_script(&turns(json!([{"json": bad}, {"json": bad}])));
    let (stored, run) = run_review(&review(&dir), Arc::new(backend)).await.unwrap();
    assert_eq!(
        stored.outcome,
        VerdictOutcome::Error(ErrorCode::SchemaMismatch)
    );
    assert!(run.report.repair_used);
    assert_eq!(stored.result, None);
    let json: Value = serde_json::from_str(&stored.to_json_pretty()).unwrap();
    assert_eq!(json["outcome"], "ERROR");
    assert_eq!(json["error_code"], "schema_mismatch");
    assert!(!stored.to_json_pretty().contains("covered"));
}

#[tokio::test]
async fn fenced_answers_are_refused_by_strict_extraction() {
    let dir = arena_dir().join("items/pagination_off_by_one");
    let text = format!(
        "```json\n{}\n```",
        json!({"result": {"verdict": "GREEN", "verdictFields": {"summary": "ok"}}})
    );
    let backend = ScriptedBackend::from_script(&turns(json!([{"text": text}, {"text": text}])));
    let (stored, run) = run_review(&review(&dir), Arc::new(backend)).await.unwrap();
    assert_eq!(
        stored.outcome,
        VerdictOutcome::Error(ErrorCode::InvalidJson),
        "{stored:?}"
    );
    assert!(run.report.repair_used, "the fence got its one repair");
    assert_eq!(run.report.turns, 2);
    assert_eq!(stored.result, None);

    // The same envelope bare is accepted: the fence alone was refused.
    let bare = json!({"result": {"verdict": "GREEN", "verdictFields": {"summary": "ok"}}});
    let backend = ScriptedBackend::from_script(&turns(json!([{"text": bare.to_string()}])));
    let (stored, _) = run_review(&review(&dir), Arc::new(backend)).await.unwrap();
    assert_eq!(stored.outcome, VerdictOutcome::Green, "{stored:?}");
}

/// In prompt mode the model reads the envelope as written: an owner schema's
/// `#/$defs/…` references must still resolve inside it.
#[test]
fn the_prompt_mode_envelope_keeps_owner_refs_resolvable() {
    let red = json!({
        "type": "object",
        "$defs": {"finding": {"type": "object",
            "properties": {"line": {"type": "integer"}, "next": {"$ref": "#/$defs/finding"}},
            "required": ["line"]}},
        "properties": {"findings": {"type": "array", "items": {"$ref": "#/$defs/finding"}}},
        "required": ["findings"],
    });
    let schemas = VerdictSchemas::new(read("schemas/green.json"), red).unwrap();
    let wire = schemas.wire_schema(SchemaTarget::Plain).unwrap();
    let alternatives = &wire["properties"]["result"]["anyOf"];
    // GREEN has no refs: inlined as written. RED is placed under `$defs`.
    assert_eq!(
        alternatives[0]["properties"]["verdictFields"],
        read("schemas/green.json")
    );
    assert_eq!(
        alternatives[1]["properties"]["verdictFields"],
        json!({"$ref": "#/$defs/red"})
    );
    assert_eq!(
        wire["$defs"]["red"]["properties"]["findings"]["items"]["$ref"],
        "#/$defs/red/$defs/finding"
    );
    // The envelope compiles as a schema of its own (no dangling reference)
    // and judges through the rebased references.
    let envelope = tribunal_runtime::OutputSchema::new("envelope", (*wire).clone()).unwrap();
    let good = json!({"result": {"verdict": "RED", "verdictFields": {
        "findings": [{"line": 3, "next": {"line": 4}}]}}});
    assert!(envelope.validator().issues(&good).is_empty());
    let bad = json!({"result": {"verdict": "RED", "verdictFields": {
        "findings": [{"line": 3, "next": {"line": "four"}}]}}});
    assert!(!envelope.validator().issues(&bad).is_empty());
    // Decoding still validates against the original owner schema.
    let flat = schemas.decode(SchemaTarget::Plain, good).unwrap();
    assert_eq!(flat["findings"][0]["next"]["line"], 4);
}

/// The verdict's own spelling, the schemas it was given back, and the wire
/// format name, as the rest of the judge reads them.
#[test]
fn verdicts_and_their_schemas_read_back_as_given() {
    assert_eq!(Verdict::Green.to_string(), "GREEN");
    assert_eq!(format!("{}", Verdict::Red), "RED");
    let green = json!({"type": "object", "properties": {"summary": {"type": "string"}},
                       "required": ["summary"], "additionalProperties": false});
    let red = json!({"type": "object", "properties": {"why": {"type": "string"}},
                     "required": ["why"], "additionalProperties": false});
    let schemas = VerdictSchemas::new(green.clone(), red.clone()).unwrap();
    assert_eq!(schemas.owner(Verdict::Green), &green);
    assert_eq!(schemas.owner(Verdict::Red), &red);
    assert_eq!(schemas.format_name(), "verdict");
}

/// A review's config hash is a SHA-256 digest that tells reviews apart: the
/// prompt and the system prompt both change it, an identical review does not.
#[test]
fn a_review_hash_is_a_digest_of_what_the_review_asks() {
    let dir = arena_dir().join("items/pagination_off_by_one");
    let hash = review(&dir).config_hash();
    assert_eq!(hash.len(), 16, "{hash}");
    assert!(hash.bytes().all(|b| b.is_ascii_hexdigit()), "{hash}");
    assert_eq!(review(&dir).config_hash(), hash);
    let tools = tribunal_tools::FileTools::new(&dir).unwrap().into_toolbox();
    let other_prompt =
        Review::new(Arc::new(code_review()), "Review something else.").with_tools(tools);
    assert_ne!(other_prompt.config_hash(), hash);
    assert_ne!(review(&dir).with_system("Be terse.").config_hash(), hash);
}

/// What else shapes a review's answer changes its hash too — the output
/// ceiling, a required first tool call, the backend's request settings —
/// while a review that sets none of them keeps the hash `review_hash`
/// gives (so verdicts stored before keep theirs).
#[test]
fn a_review_hash_sees_the_output_ceiling_the_first_tool_and_the_backend_settings() {
    let dir = arena_dir().join("items/pagination_off_by_one");
    let plain = review(&dir);
    let hash = plain.config_hash();
    assert_eq!(
        hash,
        tribunal_judge::internal::verdict::review_hash(
            Some(&plain.prompt),
            Some(&plain.system),
            &plain.schemas,
            &plain.tools.specs(),
            Some(&plain.budget),
            Some(&plain.answer),
        )
    );
    let at = |t: f64| serde_json::json!({"request": {"temperature": t}});
    let changed = [
        review(&dir).with_max_output_tokens(256).config_hash(),
        review(&dir).with_tool_required_first(true).config_hash(),
        review(&dir).with_settings(at(0.0)).config_hash(),
        review(&dir).with_settings(at(0.7)).config_hash(),
    ];
    for (i, h) in changed.iter().enumerate() {
        assert_ne!(h, &hash, "change {i}");
    }
    assert_ne!(changed[2], changed[3], "the temperature is seen");
}

/// What each outcome means to a caller: its verdict (the process exit code
/// of `tribunal judge run` is the CLI's).
#[test]
fn each_outcome_has_its_verdict() {
    let error = VerdictOutcome::Error(ErrorCode::SchemaMismatch);
    assert_eq!(VerdictOutcome::Green.verdict(), Some(Verdict::Green));
    assert_eq!(VerdictOutcome::Red.verdict(), Some(Verdict::Red));
    assert_eq!(error.verdict(), None);
}

/// The built-in schemas of `tribunal review` are the code_review arena's:
/// what the arena calibrates is what the command asks for.
#[test]
fn the_change_review_schemas_are_the_code_review_arenas() {
    use tribunal_judge::internal::verdict::change_review::{green_schema, red_schema};
    assert_eq!(green_schema(), read("schemas/green.json"));
    assert_eq!(red_schema(), read("schemas/red.json"));
}

/// A change review's first request: its system prompt, the requirements
/// numbered, the diff inline, the file tools offered and a tool call
/// required before the verdict.
#[tokio::test]
async fn a_change_review_starts_from_the_requirements_and_the_diff() {
    use tribunal_judge::internal::verdict::change_review::{
        CHANGE_REVIEW_SYSTEM, change_review, change_review_schemas,
    };
    use tribunal_runtime::Message;
    let dir = arena_dir().join("items/pagination_off_by_one");
    let diff = std::fs::read_to_string(dir.join("CHANGE.diff")).unwrap();
    let tools = tribunal_tools::FileTools::new(&dir).unwrap().into_toolbox();
    let review = change_review(
        Arc::new(change_review_schemas().unwrap()),
        "page numbers start at 1\nno page holds more than `size` records",
        &diff,
    )
    .with_tools(tools);
    let backend = Arc::new(ScriptedBackend::from_script(&turns(json!([
        {"tool_calls": [{"name": "read_file", "arguments": {"path": "src/pagination.py"}}]},
        {"json": {"result": {"verdict": "RED", "verdictFields": red_fields()}}},
    ]))));
    let (stored, _) = run_review(&review, backend.clone()).await.unwrap();
    assert_eq!(stored.outcome, VerdictOutcome::Red);
    let first = &backend.requests()[0];
    assert_eq!(
        first.conversation.system.as_deref(),
        Some(CHANGE_REVIEW_SYSTEM)
    );
    let Message::User { text } = &first.conversation.messages[0] else {
        panic!("{:?}", first.conversation.messages[0]);
    };
    assert!(
        text.contains(
            "- R1: page numbers start at 1\n- R2: no page holds more than `size` records"
        ),
        "{text}"
    );
    assert!(
        text.ends_with(&format!("CHANGE.diff:\n```diff\n{diff}```")),
        "{text}"
    );
    assert_eq!(first.tool_choice, tribunal_runtime::ToolChoice::Required);
    let offered: Vec<String> = first.tools.iter().map(|t| t.name.clone()).collect();
    assert!(offered.contains(&"read_file".to_string()), "{offered:?}");
}
