//! Result rows and transcripts the HTML report and comparison tests share:
//! a small run with every outcome, hostile text in ids, details and a
//! transcript, and a generator for large result files.

use serde_json::json;
use std::path::Path;
use tribunal_judge::internal::rows::transcript::Transcript;
use tribunal_judge::{CheckKind, CheckResult, Outcome, ResultRow};
use tribunal_runtime::ToolCallRecord;
use tribunal_runtime::{Conversation, ErrorCode, RunReport};
use tribunal_runtime::{Message, ToolCall, ToolResult, Usage};

/// The hostile item id: tries to close the data block and run a script.
pub const EVIL_ID: &str = "evil</script><script>document.body.dataset.pwned='id'</script><!--";
/// Hostile model text in the transcript; must render as text.
pub const EVIL_TEXT: &str = "<script>document.body.dataset.pwned='transcript'</script>";

/// One row.
pub fn row(id: &str, index: usize, repeat: u32, outcome: Outcome) -> ResultRow {
    let n = index as u64;
    let ok = outcome == Outcome::Pass;
    let checks = match outcome {
        Outcome::Error => Vec::new(),
        _ => vec![
            check(
                CheckKind::JsonSchema,
                true,
                "valid",
                json!({"type": "json_schema"}),
            ),
            check(
                CheckKind::JsonPathEquals,
                ok,
                &if ok {
                    format!("height_m: expected {}, got {}", 300 + n, 300 + n)
                } else {
                    format!("height_m: expected {}, got {}", 300 + n, 1 + n)
                },
                json!({"type": "json_path_equals", "path": "height_m", "value": 300 + n, "tol": 1}),
            ),
            check(
                CheckKind::ToolUsed,
                true,
                "search called 1 time(s)",
                json!({"type": "tool_used", "name": "search"}),
            ),
        ],
    };
    // Built as a results file holds it: the row type is non-exhaustive.
    let error_code = (outcome == Outcome::Error).then_some(ErrorCode::MaxToolCallsExceeded);
    let answer = (outcome != Outcome::Error)
        .then(|| json!({"name": id, "height_m": if ok { 300 + n } else { 1 + n }}));
    let tool_calls = vec![ToolCallRecord {
        name: "search".to_string(),
        arguments: format!(r#"{{"query":"{id}"}}"#),
        ok: true,
        duration_ms: 0.4,
        repeated: false,
        from_text: false,
    }];
    serde_json::from_value(json!({
        "version": tribunal_judge::internal::rows::results::ROW_VERSION,
        "arena": "structured_output",
        "id": id,
        "index": index,
        "repeat": repeat,
        "config_hash": "cfg-0123456789ab",
        "outcome": outcome,
        "error_code": error_code,
        "answer": answer,
        "checks": checks,
        "usage": Usage::new(400 + 10 * n, 40 + n),
        "tool_calls": tool_calls,
        "wall_ms": 10.0 + 7.5 * n as f64 + f64::from(repeat),
        "turns": 2,
        "repair_used": index % 4 == 3,
        "backend": "mock",
        "model": "scripted",
        "finished_at_ms": 1_786_000_000_000 + n * 1000,
    }))
    .expect("a fixture row reads back")
}

fn check(kind: CheckKind, ok: bool, detail: &str, spec: serde_json::Value) -> CheckResult {
    CheckResult {
        kind,
        ok,
        detail: detail.to_string(),
        spec: std::sync::Arc::new(spec),
    }
}

/// The small run: 2 PASS, 2 FAIL (one with the hostile id), 1 ERROR, plus
/// a PASS whose check detail carries markup.
pub fn small_rows() -> Vec<ResultRow> {
    let mut rows = vec![
        row("eiffel-tower", 0, 0, Outcome::Pass),
        row("golden-gate", 1, 0, Outcome::Fail),
        row("statue-of-liberty", 2, 0, Outcome::Error),
        row(EVIL_ID, 3, 0, Outcome::Fail),
        row("cn-tower", 4, 0, Outcome::Pass),
    ];
    rows[4].checks[0].detail =
        "<img src=x onerror=\"document.body.dataset.pwned='detail'\">".into();
    rows
}

/// The same items run twice; `golden-gate` passes once and fails once.
pub fn repeated_rows() -> Vec<ResultRow> {
    let mut rows = Vec::new();
    for repeat in 0..2 {
        rows.push(row("eiffel-tower", 0, repeat, Outcome::Pass));
        let gg = if repeat == 0 {
            Outcome::Pass
        } else {
            Outcome::Fail
        };
        rows.push(row("golden-gate", 1, repeat, gg));
        rows.push(row("statue-of-liberty", 2, repeat, Outcome::Error));
    }
    tribunal_judge::internal::rows::results::latest(rows)
}

/// The transcript of `row`'s run, whose model text is [`EVIL_TEXT`].
pub fn transcript(row: &ResultRow) -> Transcript {
    let conversation = Conversation {
        system: Some("You return landmark records as JSON.".to_string()),
        messages: vec![
            Message::User {
                text: format!("Return the record for {}.", row.id),
            },
            Message::Assistant {
                text: String::new(),
                tool_calls: vec![ToolCall {
                    id: "call_1".to_string(),
                    name: "search".to_string(),
                    arguments: r#"{"query":"landmark height"}"#.to_string(),
                }],
                reasoning: Vec::new(),
            },
            Message::ToolResults {
                results: vec![ToolResult {
                    id: "call_1".to_string(),
                    content: "[1] The tower is 330 m tall. </pre><b>bold?</b>".to_string(),
                    is_error: false,
                }],
            },
            Message::Assistant {
                text: format!("Here it is: {EVIL_TEXT}"),
                tool_calls: Vec::new(),
                reasoning: Vec::new(),
            },
            Message::User {
                text: "Your answer was not valid JSON. Reply with only the JSON object.".into(),
            },
            Message::Assistant {
                text: r#"{"name": "x", "height_m": 330}"#.to_string(),
                tool_calls: Vec::new(),
                reasoning: Vec::new(),
            },
        ],
    };
    let mut report = RunReport::answered(json!({"name": "x", "height_m": 330}));
    report.repair_used = true;
    report.usage = row.usage;
    report.tool_calls = row.tool_calls.clone();
    report.turns = 3;
    report.wall_ms = row.wall_ms;
    Transcript::new(row, report, conversation)
}

/// Writes the transcript of every FAIL row of `rows` under `dir`.
pub fn write_fail_transcripts(rows: &[ResultRow], dir: &Path) {
    for r in rows.iter().filter(|r| r.outcome == Outcome::Fail) {
        transcript(r).write(dir).unwrap();
    }
}

/// `n` rows of a realistic shape: 80% PASS, 15% FAIL, 5% ERROR.
pub fn many_rows(n: usize) -> Vec<ResultRow> {
    (0..n)
        .map(|i| {
            let outcome = match i % 20 {
                0 => Outcome::Error,
                1..=3 => Outcome::Fail,
                _ => Outcome::Pass,
            };
            row(&format!("landmark-{i:05}"), i, 0, outcome)
        })
        .collect()
}
