//! `tribunal schema compile` and `tribunal check`: output shape and exit codes.

use serde_json::{Value, json};
use std::io::Write;
use std::path::PathBuf;
use std::process::{Command, Output, Stdio};
use tribunal::runtime::SchemaTarget;
use tribunal::runtime::StopReason;
use tribunal::runtime::internal::answer::{evaluate_answer, repair_message};
use tribunal::runtime::{AnswerPolicy, OutputSchema};

fn fixture(name: &str) -> PathBuf {
    PathBuf::from(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/runtime/tests/fixtures/schemas"
    ))
    .join(format!("{name}.json"))
}

fn run(args: &[&str], stdin: &str) -> Output {
    let mut child = Command::new(crate::tribunal_bin())
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    // The program may exit before reading stdin (usage errors): ignore a broken pipe.
    let _ = child.stdin.take().unwrap().write_all(stdin.as_bytes());
    child.wait_with_output().unwrap()
}

fn stdout_json(out: &Output) -> Value {
    serde_json::from_slice(&out.stdout).unwrap()
}

fn one_line_stderr(out: &Output) -> String {
    let err = String::from_utf8_lossy(&out.stderr).into_owned();
    assert_eq!(err.trim_end().lines().count(), 1, "stderr: {err}");
    err
}

#[test]
fn schema_compile_prints_wire_plan_fallback_notes() {
    let _snapshots = tribunal_testkit::bind_snapshots("cli");
    let landmark = fixture("20_landmark");
    for target in ["openai", "anthropic"] {
        let out = run(
            &[
                "schema",
                "compile",
                "--target",
                target,
                landmark.to_str().unwrap(),
            ],
            "",
        );
        assert_eq!(out.status.code(), Some(0));
        let v = stdout_json(&out);
        let keys: Vec<&str> = v.as_object().unwrap().keys().map(String::as_str).collect();
        assert_eq!(keys, ["wire", "plan", "fallback", "notes"]);
        insta::assert_json_snapshot!(format!("cli_schema_compile_landmark_{target}"), v);
    }
    // Over a limit, the part that exceeds it travels as text, and says so.
    let out = run(
        &[
            "schema",
            "compile",
            "--target",
            "openai",
            fixture("07_enum_2000").to_str().unwrap(),
        ],
        "",
    );
    let v = stdout_json(&out);
    assert_eq!(v["fallback"], json!(false));
    assert_eq!(
        v["notes"],
        json!([
            "/properties/code: to fit the openai limits (2000 enum values (limit 1000)): travels as a JSON-encoded string"
        ])
    );
    // When no part can make it fit, the whole answer does.
    let dir = tempfile::tempdir().unwrap();
    let wide = dir.path().join("wide.json");
    let props: serde_json::Map<String, serde_json::Value> = (0..5001)
        .map(|i| (format!("p{i}"), json!({"type": "integer"})))
        .collect();
    std::fs::write(
        &wide,
        json!({"type": "object", "properties": props}).to_string(),
    )
    .unwrap();
    let out = run(
        &[
            "schema",
            "compile",
            "--target",
            "openai",
            wide.to_str().unwrap(),
        ],
        "",
    );
    assert_eq!(stdout_json(&out)["fallback"], json!(true));
}

#[test]
fn schema_compile_unsupported_or_unreadable_exits_2() {
    let out = run(
        &[
            "schema",
            "compile",
            "--target",
            "openai",
            fixture("34_external_ref").to_str().unwrap(),
        ],
        "",
    );
    // An external reference compiles as text, but the offline validator
    // cannot resolve it: exit 2, naming it.
    assert_eq!(out.status.code(), Some(2));
    assert!(one_line_stderr(&out).contains("https://example.com/schemas/x.json"));
    let out = run(
        &[
            "schema",
            "compile",
            "--target",
            "anthropic",
            fixture("15_allof_infeasible").to_str().unwrap(),
        ],
        "",
    );
    assert_eq!(out.status.code(), Some(2));
    assert!(one_line_stderr(&out).contains("allOf cannot be satisfied"));
    let out = run(
        &[
            "schema",
            "compile",
            "--target",
            "openai",
            "/no/such/schema.json",
        ],
        "",
    );
    assert_eq!(out.status.code(), Some(2));
    one_line_stderr(&out);
    assert!(out.stdout.is_empty());
    let out = run(&["schema", "compile", "--target", "gemini", "x.json"], "");
    assert_eq!(out.status.code(), Some(2));
}

#[test]
fn check_valid_answer_exits_0() {
    let text = "Here it is:\n```json\n{\"name\":\"Eiffel Tower\",\"year\":1889,\"height_m\":330,\"sources\":[\"p1\"]}\n```";
    let out = run(
        &[
            "check",
            "--schema",
            fixture("20_landmark").to_str().unwrap(),
        ],
        text,
    );
    assert_eq!(out.status.code(), Some(0));
    assert_eq!(
        stdout_json(&out),
        json!({"ok": true, "value": {"name": "Eiffel Tower", "year": 1889, "height_m": 330, "sources": ["p1"]}, "extracted_from": "fence"})
    );
}

#[test]
fn check_invalid_answer_exits_1_with_the_loops_repair_message() {
    let path = fixture("20_landmark");
    let text = r#"{"name":"Eiffel Tower","year":"1889","height_m":330,"sources":[]}"#;
    let out = run(&["check", "--schema", path.to_str().unwrap()], text);
    assert_eq!(out.status.code(), Some(1));
    let v = stdout_json(&out);
    let keys: Vec<&str> = v.as_object().unwrap().keys().map(String::as_str).collect();
    assert_eq!(keys, ["ok", "code", "errors", "repair"]);
    assert_eq!(v["ok"], json!(false));
    assert_eq!(v["code"], json!("schema_mismatch"));
    let paths: Vec<&str> = v["errors"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["path"].as_str().unwrap())
        .collect();
    assert_eq!(paths, ["/year", "/sources"]);
    // The exact message the loop would send.
    let owner: Value = serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
    let schema = OutputSchema::new("20_landmark", owner).unwrap();
    let rejection = evaluate_answer(
        &schema,
        SchemaTarget::Plain,
        text,
        StopReason::EndTurn,
        &AnswerPolicy::default(),
    )
    .unwrap_err();
    assert_eq!(v["repair"], json!(repair_message(&rejection, None)));

    let out = run(
        &["check", "--schema", path.to_str().unwrap()],
        "I don't know.",
    );
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(stdout_json(&out)["code"], json!("no_json"));
}

#[test]
fn check_with_target_decodes_the_wire_answer() {
    let path = fixture("01_optional_non_null");
    let out = run(
        &[
            "check",
            "--schema",
            path.to_str().unwrap(),
            "--target",
            "openai",
        ],
        r#"{"name":"a","nick":null}"#,
    );
    assert_eq!(out.status.code(), Some(0));
    assert_eq!(stdout_json(&out)["value"], json!({"name": "a"}));
    // Without --target the placeholder is owner-shaped data, and invalid.
    let out = run(
        &["check", "--schema", path.to_str().unwrap()],
        r#"{"name":"a","nick":null}"#,
    );
    assert_eq!(out.status.code(), Some(1));
    let out = run(
        &[
            "check",
            "--schema",
            fixture("16_root_array").to_str().unwrap(),
            "--target",
            "anthropic",
        ],
        r#"{"value":[{"x":1}]}"#,
    );
    assert_eq!(stdout_json(&out)["value"], json!([{"x": 1}]));
}

#[test]
fn check_strict_rejects_prose_and_fences() {
    let path = fixture("20_landmark");
    let text = "```json\n{\"name\":\"x\",\"year\":1,\"height_m\":1,\"sources\":[\"a\"]}\n```";
    let out = run(
        &["check", "--schema", path.to_str().unwrap(), "--strict"],
        text,
    );
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(stdout_json(&out)["code"], json!("invalid_json"));
}

#[test]
fn check_usage_errors_exit_2() {
    let out = run(&["check"], "{}");
    assert_eq!(out.status.code(), Some(2));
    let out = run(&["check", "--schema", "/no/such.json"], "{}");
    assert_eq!(out.status.code(), Some(2));
    one_line_stderr(&out);
}
