//! The machine's one text-answer path, played for both of its forms on the
//! same scripts: a run's answer under `extraction = "text"` and a
//! conversation's reply ([`Machine::new_reply`]). Each trace shows what the
//! machine asked for (the finalize and repair requests' words) and how the
//! run ended, so a case one form handles differently from the other shows
//! as a difference between the two traces.

use serde_json::json;
use std::sync::Arc;
use std::time::Instant;
use tribunal_runtime::ExtractionMode;
use tribunal_runtime::internal::machine::{Action, Input, Machine, MachineConfig};
use tribunal_runtime::{AnswerPolicy, Budget, Conversation, OnBudget, OutputSchema, ToolSpec};
use tribunal_runtime::{Message, ModelTurn, StopReason};
use tribunal_runtime::{OutputFormat, SchemaTarget};
use tribunal_testkit::agents::{calls, executed, text};

#[derive(Clone, Copy, Debug)]
enum Form {
    /// `Machine::new` under `extraction = "text"`.
    TextAnswer,
    /// `Machine::new_reply`.
    Reply,
}

fn machine(form: Form, budget: Budget, start: Instant) -> Machine {
    let mode = match form {
        Form::TextAnswer => ExtractionMode::Text,
        Form::Reply => ExtractionMode::Lenient,
    };
    let config = MachineConfig {
        budget,
        answer: AnswerPolicy {
            mode,
            ..AnswerPolicy::default()
        },
        max_output_tokens: None,
        plan: tribunal_runtime::OutputPlan::native(SchemaTarget::Plain),
        require_tool_first: false,
    };
    let any = Arc::new(OutputSchema::new("answer", json!({})).unwrap());
    let tools = vec![ToolSpec {
        name: "count".into(),
        description: "counts".into(),
        parameters: json!({"type": "object"}),
    }];
    let conversation = Conversation::new(None, "go");
    match form {
        Form::TextAnswer => Machine::new(config, any, tools, conversation, start),
        Form::Reply => Machine::new_reply(config, any, tools, conversation, start),
    }
    .unwrap()
}

/// Plays `turns` on a machine of `form`: one line per request (its tools,
/// and the message that asks for it when the machine wrote that message),
/// one per tool batch, and the ending.
fn play(form: Form, budget: Budget, turns: Vec<ModelTurn>) -> String {
    let now = Instant::now();
    let mut m = machine(form, budget, now);
    let mut turns = turns.into_iter();
    let mut trace = vec![format!("{form:?}:")];
    while let Some(action) = m.poll(now) {
        match action {
            Action::CallModel(request) => {
                assert_eq!(request.output, OutputFormat::Text);
                trace.push(format!(
                    "  model {:?} tools={}",
                    m.request_purpose().unwrap(),
                    request.tools.len()
                ));
                trace.extend(written_since_the_last_turn(&request.conversation));
                match turns.next() {
                    Some(turn) => m.handle(Input::Turn(turn), now),
                    None => m.handle(Input::DeadlineExceeded, now),
                }
            }
            Action::CallTools(batch) => {
                trace.push(format!("  tools {}", batch.len()));
                m.handle(Input::ToolsDone(executed(&batch)), now);
            }
            Action::Done => break,
        }
    }
    let report = m.into_report();
    let outcome = match report.outcome.value() {
        Some(value) => format!("ok {value}"),
        None => format!("{:?}", report.outcome.error_code().unwrap()),
    };
    trace.push(format!(
        "  end {outcome}; repair_used={} finalized_after={:?} extracted_from={:?} turns={}",
        report.repair_used, report.finalized_after, report.extracted_from, report.turns
    ));
    trace.join("\n")
}

/// The messages after the conversation's last assistant turn (the tool
/// results and the machine's requests), one line each; none before the
/// first turn.
fn written_since_the_last_turn(conversation: &Conversation) -> Vec<String> {
    let messages = &conversation.messages;
    let Some(last_turn) = messages
        .iter()
        .rposition(|m| matches!(m, Message::Assistant { .. }))
    else {
        return Vec::new();
    };
    messages[last_turn + 1..]
        .iter()
        .map(|m| match m {
            Message::User { text } => format!("    user {text:?}"),
            Message::ToolResults { results } => {
                let shown: Vec<&str> = results.iter().map(|r| r.content.as_str()).collect();
                format!("    results {shown:?}")
            }
            Message::Assistant { .. } => unreachable!("after the last assistant turn"),
        })
        .collect()
}

/// Both forms on the same budget and script, against the snapshot
/// `snapshots/runtime/text_form_<name>.snap`.
fn assert_both(name: &str, budget: Budget, turns: Vec<ModelTurn>) {
    let _snapshots = tribunal_testkit::bind_snapshots("runtime");
    let traces = [Form::TextAnswer, Form::Reply].map(|form| play(form, budget, turns.clone()));
    insta::assert_snapshot!(format!("text_form_{name}"), traces.join("\n"));
}

fn stopped(t: &str, stop: StopReason) -> ModelTurn {
    ModelTurn { stop, ..text(t) }
}

/// A tool-call budget of one, finalized when spent.
fn one_call_then_finalize() -> Budget {
    Budget {
        max_tool_calls: Some(1),
        on_budget: OnBudget::Finalize,
        ..Budget::default()
    }
}

/// A call that runs, then one over the budget (refused; the finalize turn
/// comes next), then `finalize_turns`.
fn over_the_budget(finalize_turns: Vec<ModelTurn>) -> Vec<ModelTurn> {
    let count = |n: u32| calls(&[("count", json!({ "n": n }))]);
    [count(1), count(2)]
        .into_iter()
        .chain(finalize_turns)
        .collect()
}

#[test]
fn a_spent_tool_budget_asks_each_form_for_its_text_on_the_one_finalize_path() {
    let script = over_the_budget(vec![text(" Counted once. ")]);
    assert_both("finalize", one_call_then_finalize(), script);
}

#[test]
fn a_call_on_the_finalize_turn_gets_its_result_and_the_empty_text_the_one_repair() {
    let call = calls(&[("count", json!({"n": 3}))]);
    let script = over_the_budget(vec![call, text("Counted once.")]);
    assert_both("call_on_finalize", one_call_then_finalize(), script);
}

#[test]
fn an_empty_text_gets_the_one_repair_then_ends_the_run_with_each_forms_code() {
    assert_both("empty_twice", Budget::default(), vec![text(" "), text("")]);
    let script = vec![text(""), text("Hello!")];
    assert_both("empty_then_text", Budget::default(), script);
}

#[test]
fn a_refused_or_cut_text_ends_a_text_answer_but_is_a_reply_for_the_user() {
    let script = vec![
        stopped("I cannot help with", StopReason::Length),
        stopped("I cannot help with that.", StopReason::Refusal),
    ];
    assert_both("cut_then_refused", Budget::default(), script);
}
