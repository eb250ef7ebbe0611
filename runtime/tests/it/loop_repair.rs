//! The single repair: tools disabled, exact message format, path and length
//! caps, and an error outcome that keeps only the code.

use serde_json::json;
use std::sync::Arc;
use tribunal_runtime::Message;
use tribunal_runtime::internal::answer::repair_message;
use tribunal_runtime::{Agent, Backend, ErrorCode, OutputSchema, RunOutcome, ToolBox};
use tribunal_testkit::agents::*;

fn last_user_text(request: &tribunal_runtime::ModelRequest) -> String {
    match request.conversation.messages.last() {
        Some(Message::User { text }) => text.clone(),
        other => panic!("expected a user message, got {other:?}"),
    }
}

#[tokio::test]
async fn invalid_then_repaired() {
    let backend = script(vec![
        calls(&[("count", json!({}))]),
        answer(&json!({"name": "Eiffel Tower", "year": "1889", "height_m": 330, "sources": ["1"]})),
        answer(&eiffel()),
    ]);
    let (tool, _) = Counter::new("count");
    let run = agent(backend.clone())
        .with_tools(ToolBox::new().with(tool))
        .run("go")
        .await;
    assert_eq!(run.report.outcome, RunOutcome::Ok { value: eiffel() });
    assert!(run.report.repair_used);
    let requests = backend.requests();
    assert_eq!(requests.len(), 3);
    assert_eq!(requests[1].tools.len(), 1);
    assert!(
        requests[2].tools.is_empty(),
        "the repair request advertises no tools"
    );
    assert_eq!(
        last_user_text(&requests[2]),
        "Your final response did not match the required schema: schema_mismatch: 1 problem(s) against the schema\n\
         - instancePath \"/year\": \"1889\" is not of type \"integer\"\n\
         Return only one JSON object matching the schema."
    );
}

#[tokio::test]
async fn six_errors_give_five_path_lines_and_long_messages_are_cut() {
    let schema = OutputSchema::new(
        "six",
        json!({
            "type": "object",
            "properties": {
                "a": {"type": "integer"}, "b": {"type": "integer"}, "c": {"type": "integer"},
                "d": {"type": "integer"}, "e": {"type": "integer"}, "f": {"type": "integer"}
            }
        }),
    )
    .unwrap();
    let long = "x".repeat(500);
    let bad = json!({"a": long, "b": "b", "c": "c", "d": "d", "e": "e", "f": "f"});
    let backend = script(vec![answer(&bad), answer(&json!({"a": 1}))]);
    let agent = Agent::new(backend.clone() as Arc<dyn Backend>, Arc::new(schema)).unwrap();
    let run = agent.run("go").await;
    assert!(run.report.is_ok());
    let message = last_user_text(&backend.requests()[1]);
    let lines: Vec<&str> = message.lines().collect();
    let path_lines: Vec<&&str> = lines
        .iter()
        .filter(|l| l.starts_with("- instancePath"))
        .collect();
    assert_eq!(path_lines.len(), 5, "{message}");
    let first = path_lines[0];
    let (_, msg) = first.split_once("\": ").unwrap();
    assert_eq!(msg.chars().count(), 200, "{first}");
    assert!(
        lines[0].starts_with(
            "Your final response did not match the required schema: schema_mismatch: "
        )
    );
    assert_eq!(
        *lines.last().unwrap(),
        "Return only one JSON object matching the schema."
    );
}

#[tokio::test]
async fn no_json_repair_has_no_path_lines() {
    let backend = script(vec![
        text("I think it is about 300 metres."),
        answer(&eiffel()),
    ]);
    let run = agent(backend.clone()).run("go").await;
    assert!(run.report.is_ok());
    assert_eq!(
        last_user_text(&backend.requests()[1]),
        "Your final response did not match the required schema: no_json: no JSON value was found in the response\n\
         Return only one JSON object matching the schema."
    );
}

#[tokio::test]
async fn invalid_twice_is_an_error_that_keeps_only_the_code() {
    let secret = "MODEL-TEXT-MARKER-7f3a";
    let bad =
        json!({"name": secret, "year": secret, "height_m": 1, "sources": [secret], secret: 1});
    let backend = script(vec![answer(&bad), answer(&bad)]);
    let run = agent(backend.clone()).run("go").await;
    assert_eq!(
        run.report.outcome.error_code(),
        Some(ErrorCode::SchemaMismatch)
    );
    assert!(run.report.repair_used);
    assert_eq!(backend.requests().len(), 2, "exactly one repair");
    let stored = serde_json::to_string(&run.report).unwrap();
    assert!(!stored.contains(secret), "{stored}");
    assert!(!stored.contains("instancePath"), "{stored}");
}

#[tokio::test]
async fn duplicate_keys_are_invalid_json() {
    let backend = script(vec![
        text(r#"{"name":"A","name":"B","year":1,"height_m":1,"sources":["1"]}"#),
        text(r#"{"name":"A","year":1,"year":2,"height_m":1,"sources":["1"]}"#),
    ]);
    let run = agent(backend).run("go").await;
    assert_eq!(
        run.report.outcome.error_code(),
        Some(ErrorCode::InvalidJson)
    );
}

#[tokio::test]
async fn hundred_thousand_deep_nesting_is_invalid_json_without_overflow() {
    let deep = "[".repeat(100_000) + &"]".repeat(100_000);
    let deep_obj = "{\"a\":".repeat(100_000) + "1" + &"}".repeat(100_000);
    let backend = script(vec![text(&deep), text(&deep_obj)]);
    let run = agent(backend).run("go").await;
    assert_eq!(
        run.report.outcome.error_code(),
        Some(ErrorCode::InvalidJson)
    );
}

#[tokio::test]
async fn truncated_and_too_large() {
    let mut cut = text(r#"{"name": "Eiffel"#);
    cut.stop = tribunal_runtime::StopReason::Length;
    let huge = text(&format!(
        "{{\"name\": \"{}\"}}",
        "x".repeat(2 * 1024 * 1024)
    ));
    let backend = script(vec![cut, huge]);
    let run = agent(backend.clone()).run("go").await;
    assert_eq!(run.report.outcome.error_code(), Some(ErrorCode::TooLarge));
    assert!(last_user_text(&backend.requests()[1]).contains(": truncated: "));
}

#[test]
fn repair_message_format_is_exact() {
    let rejection = tribunal_runtime::Rejection::schema_mismatch(
        "result must match the selected verdict's owner schema",
        vec![tribunal_runtime::Issue::new(
            "/covered",
            "\"R1\" is not of type \"array\"",
        )],
    );
    assert_eq!(
        repair_message(&rejection, None),
        "Your final response did not match the required schema: schema_mismatch: result must match the selected verdict's owner schema\n\
         - instancePath \"/covered\": \"R1\" is not of type \"array\"\n\
         Return only one JSON object matching the schema."
    );
}

#[test]
fn an_answer_of_exactly_max_bytes_is_read_one_more_is_too_large() {
    use tribunal_runtime::SchemaTarget;
    use tribunal_runtime::StopReason;
    use tribunal_runtime::internal::answer::evaluate_answer;
    let answer = eiffel().to_string();
    let exact = tribunal_runtime::AnswerPolicy {
        max_bytes: answer.len(),
        ..Default::default()
    };
    let schema = landmark_schema();
    let read = evaluate_answer(
        &schema,
        SchemaTarget::Plain,
        &answer,
        StopReason::EndTurn,
        &exact,
    );
    assert_eq!(read.map(|a| a.value), Ok(eiffel()));
    let smaller = tribunal_runtime::AnswerPolicy {
        max_bytes: answer.len() - 1,
        ..exact
    };
    let err = evaluate_answer(
        &schema,
        SchemaTarget::Plain,
        &answer,
        StopReason::EndTurn,
        &smaller,
    )
    .expect_err("one byte over");
    assert_eq!(err.code, ErrorCode::TooLarge);
}
