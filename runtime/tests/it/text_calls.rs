//! Tool calls a model wrote as text (issue 51, part 1): read on agent turns
//! when the plan says so, for tools the turn offered, never on a finalize or
//! repair turn; each runs as any call does and its record says where it
//! came from.

use serde_json::{Value, json};
use std::sync::Arc;
use std::time::{Duration, Instant};
use tribunal_runtime::OutputPlan;
use tribunal_runtime::RunReport;
use tribunal_runtime::SchemaTarget;
use tribunal_runtime::ToolExecution;
use tribunal_runtime::internal::machine::{Action, Input, Machine, MachineConfig};
use tribunal_runtime::{AnswerPolicy, Budget, Conversation, ToolSpec};
use tribunal_runtime::{Message, ModelTurn, ToolResult};
use tribunal_testkit::agents::*;

/// A turn of the 0.5B reviewer on the code_review arena, as the server
/// returned it under `tool_choice: "required"`: the call as text, then
/// prose quoting it (arenas/code_review/cassettes/code_review.jsonl).
const SMALL_MODEL_TURN: &str = "{\"name\": \"list_files\", \"arguments\": {}}\n\nThe code has been called but not the tool. The tools are list_files, read_file, and grep, but the code has not been executed to call these tools. The answer is {\"name\": \"list_files\", \"arguments\": {}}. The change does not meet";

fn tool(name: &str) -> ToolSpec {
    ToolSpec {
        name: name.into(),
        description: name.into(),
        parameters: json!({"type": "object"}),
    }
}

/// Plays `turns` against a tool-strategy machine with the user tools
/// `list_files` and `read_file`; returns the trace, the report and the
/// conversation's messages.
fn play(
    read_text_calls: bool,
    require_tool_first: bool,
    turns: Vec<ModelTurn>,
) -> (String, RunReport, Vec<Message>) {
    play_with(
        Budget::default(),
        read_text_calls,
        require_tool_first,
        turns,
    )
}

fn play_with(
    budget: Budget,
    read_text_calls: bool,
    require_tool_first: bool,
    turns: Vec<ModelTurn>,
) -> (String, RunReport, Vec<Message>) {
    let start = Instant::now();
    let mut plan = OutputPlan::tool(SchemaTarget::Plain);
    plan.read_text_calls = read_text_calls;
    let config = MachineConfig {
        budget,
        answer: AnswerPolicy::default(),
        max_output_tokens: None,
        plan,
        require_tool_first,
    };
    let mut machine = Machine::new(
        config,
        Arc::new(landmark_schema()),
        vec![tool("list_files"), tool("read_file")],
        Conversation::new(None, "review"),
        start,
    )
    .unwrap();
    let mut trace = Vec::new();
    let mut turns = turns.into_iter();
    while let Some(action) = machine.poll(start) {
        match action {
            Action::CallModel(request) => {
                let names: Vec<&str> = request.tools.iter().map(|t| t.name.as_str()).collect();
                trace.push(format!("model[{}]", names.join(",")));
                match turns.next() {
                    Some(turn) => machine.handle(Input::Turn(turn), start),
                    None => machine.handle(Input::DeadlineExceeded, start),
                }
            }
            Action::CallTools(calls) => {
                trace.push(format!(
                    "tools[{}]",
                    calls
                        .iter()
                        .map(|c| format!("{} {} {}", c.id, c.name, c.arguments))
                        .collect::<Vec<_>>()
                        .join("; ")
                ));
                let done = calls
                    .iter()
                    .map(|c| ToolExecution {
                        result: ToolResult {
                            id: c.id.clone(),
                            content: "a.rs".into(),
                            is_error: false,
                        },
                        duration: Duration::from_millis(1),
                    })
                    .collect();
                machine.handle(Input::ToolsDone(done), start);
            }
            Action::Done => break,
        }
    }
    let (report, conversation) = machine.into_parts();
    let end = match report.outcome.error_code() {
        Some(code) => code.to_string(),
        None => "ok".into(),
    };
    trace.push(end);
    (trace.join(" → "), report, conversation.messages)
}

fn final_answer(value: &Value) -> ModelTurn {
    calls(&[("final_answer", value.clone())])
}

#[test]
fn a_call_written_as_text_runs_and_the_history_shows_it_as_a_call() {
    let (trace, report, messages) = play(
        true,
        false,
        vec![text(SMALL_MODEL_TURN), final_answer(&eiffel())],
    );
    assert_eq!(
        trace,
        "model[final_answer,list_files,read_file] → tools[text-1-0 list_files {}] → model[final_answer,list_files,read_file] → ok"
    );
    // Read once although the prose quotes it again; counted as a call.
    assert_eq!(report.tool_calls.len(), 1);
    assert!(report.tool_calls[0].from_text);
    // The turn stands in the history as the call, not as its text.
    match &messages[1] {
        Message::Assistant {
            text, tool_calls, ..
        } => {
            assert_eq!(text, "");
            assert_eq!(tool_calls.len(), 1);
            assert_eq!(tool_calls[0].id, "text-1-0");
        }
        other => panic!("expected the assistant turn, got {other:?}"),
    }
}

#[test]
fn with_reading_off_the_same_text_is_an_answer_and_is_repaired() {
    let (trace, report, _) = play(
        false,
        false,
        vec![text(SMALL_MODEL_TURN), final_answer(&eiffel())],
    );
    assert_eq!(
        trace,
        "model[final_answer,list_files,read_file] → model[final_answer] → ok"
    );
    assert!(report.repair_used);
    assert!(report.tool_calls.is_empty());
}

#[test]
fn a_text_call_gets_a_run_past_require_tool_first_instead_of_a_nudge() {
    // The 0.5B reviewer's `no_progress`: three turns like this one, each
    // answered with a nudge, before.
    let (trace, report, _) = play(
        true,
        true,
        vec![text(SMALL_MODEL_TURN), final_answer(&eiffel())],
    );
    assert_eq!(
        trace,
        "model[list_files,read_file] → tools[text-1-0 list_files {}] → model[final_answer,list_files,read_file] → ok"
    );
    assert!(report.tool_calls[0].from_text);
}

#[test]
fn the_answer_tool_written_as_text_is_the_answer() {
    let written = format!(
        "```json\n{}\n```",
        json!({"name": "final_answer", "arguments": eiffel()})
    );
    let (trace, report, _) = play(true, false, vec![text(&written)]);
    assert_eq!(trace, "model[final_answer,list_files,read_file] → ok");
    assert_eq!(report.outcome.value(), Some(&eiffel()));
    assert!(!report.repair_used);
}

#[test]
fn a_tool_the_turn_did_not_offer_is_not_read() {
    // `final_answer` is not offered before the first call under
    // require_tool_first; `rm` never is.
    let written = json!({"name": "rm", "arguments": {"path": "/"}}).to_string();
    let (trace, _, _) = play(true, false, vec![text(&written), final_answer(&eiffel())]);
    assert_eq!(
        trace,
        "model[final_answer,list_files,read_file] → model[final_answer] → ok"
    );
    let answer = json!({"name": "final_answer", "arguments": eiffel()}).to_string();
    let (trace, _, _) = play(true, true, vec![text(&answer)]);
    assert!(
        trace.starts_with("model[list_files,read_file] → model[list_files,read_file]"),
        "{trace}"
    );
}

#[test]
fn a_repair_turn_never_reads_text_as_calls() {
    // The agent turn's prose is an answer (invalid: repaired); the repair
    // turn writes a call as text: it is read as the answer it is, invalid,
    // and no tool runs.
    let (trace, report, _) = play(
        true,
        false,
        vec![text("GREEN\n\nThe change is fine."), text(SMALL_MODEL_TURN)],
    );
    assert_eq!(
        trace,
        "model[final_answer,list_files,read_file] → model[final_answer] → schema_mismatch"
    );
    assert!(report.tool_calls.is_empty());
}

/// Issue 51, part 2: a run that writes prose on every turn while a tool
/// call is required ends `no_progress` (the default), or, under
/// `on_idle = finalize`, is asked once, tools off, for its answer — which
/// the report marks as finalized after `no_progress`.
#[test]
fn idle_turns_end_the_run_or_under_on_idle_finalize_ask_for_the_answer() {
    let prose = || text("GREEN\n\nThe change renames the function.");
    let (trace, _, _) = play(true, true, vec![prose(), prose(), prose()]);
    assert_eq!(
        trace,
        "model[list_files,read_file] → model[list_files,read_file] → model[list_files,read_file] → no_progress"
    );
    let budget = Budget {
        on_idle: tribunal_runtime::OnBudget::Finalize,
        ..Budget::default()
    };
    let (trace, report, messages) = play_with(
        budget,
        true,
        true,
        vec![prose(), prose(), prose(), final_answer(&eiffel())],
    );
    assert_eq!(
        trace,
        "model[list_files,read_file] → model[list_files,read_file] → model[list_files,read_file] → model[final_answer] → ok"
    );
    assert_eq!(
        report.finalized_after,
        Some(tribunal_runtime::ErrorCode::NoProgress)
    );
    assert!(report.tool_calls.is_empty());
    let asked = messages.iter().rev().find_map(|m| match m {
        Message::User { text } => Some(text.clone()),
        _ => None,
    });
    assert_eq!(
        asked.as_deref(),
        Some(
            "No tools can be called any more. Give your final answer now, by calling final_answer."
        )
    );
}
