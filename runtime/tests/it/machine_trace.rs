//! The state machine on its own: no runtime, no clock, no I/O. Each case
//! plays a transcript of inputs and compares the trace of actions.

use serde_json::json;
use std::sync::Arc;
use std::time::{Duration, Instant};
use tribunal_runtime::ModelTurn;
use tribunal_runtime::SchemaTarget;
use tribunal_runtime::internal::machine::{Action, Input, Machine, MachineConfig};
use tribunal_runtime::{
    AnswerPolicy, Budget, Conversation, ErrorCode, OnBudget, OnNothingNew, OnRepeat,
};
use tribunal_testkit::agents::*;

enum Step {
    Model(ModelTurn),
    Tools,
    /// The tools ran, each call's result this text.
    ToolsSaid(&'static str),
    Wait(Duration),
}

/// Plays `steps` against a fresh machine and returns the action trace plus
/// the outcome, e.g. `CallModel(tools=1), CallTools(1), CallModel(tools=1), Done(ok)`.
fn check(budget: Budget, steps: Vec<Step>) -> String {
    let start = Instant::now();
    let mut now = start;
    let spec = tribunal_runtime::ToolSpec {
        name: "count".into(),
        description: "counts".into(),
        parameters: json!({"type": "object"}),
    };
    let mut machine = machine_with(budget, vec![spec], start);
    let mut trace = Vec::new();
    let mut steps = steps.into_iter();
    loop {
        match machine.poll(now) {
            Some(Action::CallModel(req)) => {
                trace.push(format!("CallModel(tools={})", req.tools.len()));
                loop {
                    match steps.next() {
                        Some(Step::Wait(d)) => now += d,
                        Some(Step::Model(turn)) => {
                            machine.handle(Input::Turn(turn), now);
                            break;
                        }
                        Some(Step::Tools | Step::ToolsSaid(_)) | None => {
                            machine.handle(Input::DeadlineExceeded, now);
                            break;
                        }
                    }
                }
            }
            Some(Action::CallTools(calls)) => {
                trace.push(format!("CallTools({})", calls.len()));
                let mut executions = executed(&calls);
                match steps.next() {
                    Some(Step::Wait(d)) => now += d,
                    Some(Step::ToolsSaid(text)) => {
                        for e in &mut executions {
                            e.result.content = text.to_string();
                        }
                    }
                    _ => {}
                }
                machine.handle(Input::ToolsDone(executions), now);
            }
            Some(Action::Done) => break,
            None => {
                trace.push("Stuck".into());
                break;
            }
        }
    }
    let report = machine.into_report();
    let mut end = match report.outcome.error_code() {
        Some(code) => code.to_string(),
        None => "ok".to_string(),
    };
    if report.repair_used {
        end.push_str("; repair");
    }
    if let Some(code) = report.finalized_after {
        end.push_str(&format!("; finalized after {code}"));
    }
    trace.push(format!("Done({end})"));
    trace.join(", ")
}

/// A machine with `budget` and `tools`, started at `start`.
fn machine_with(budget: Budget, tools: Vec<tribunal_runtime::ToolSpec>, start: Instant) -> Machine {
    let config = MachineConfig {
        budget,
        answer: AnswerPolicy::default(),
        max_output_tokens: None,
        plan: tribunal_runtime::OutputPlan::native(SchemaTarget::Plain),
        require_tool_first: false,
    };
    Machine::new(
        config,
        Arc::new(landmark_schema()),
        tools,
        Conversation::new(None, "go"),
        start,
    )
    .unwrap()
}

/// A machine without tools and with default budgets.
fn machine(start: Instant) -> Machine {
    machine_with(Budget::default(), Vec::new(), start)
}

#[test]
fn an_input_the_machine_did_not_ask_for_is_an_internal_error() {
    let now = Instant::now();
    // Tool results while a model turn is awaited.
    let mut m = machine(now);
    assert!(matches!(m.poll(now), Some(Action::CallModel(_))));
    m.handle(Input::ToolsDone(Vec::new()), now);
    assert_eq!(m.poll(now), Some(Action::Done));
    assert_eq!(
        m.into_report().outcome.error_code(),
        Some(ErrorCode::InternalError)
    );
    // A model turn before the machine asked for one.
    let mut m = machine(now);
    m.handle(Input::Turn(answer(&eiffel())), now);
    assert!(m.is_done());
    assert_eq!(
        m.into_report().outcome.error_code(),
        Some(ErrorCode::InternalError)
    );
}

#[test]
fn an_unexpected_input_is_logged_by_its_kind_only() {
    let capture = crate::backend_record::Capture::default();
    let out = capture.out.clone();
    tracing::subscriber::with_default(capture, || {
        let now = Instant::now();
        let mut m = machine(now);
        assert!(matches!(m.poll(now), Some(Action::CallModel(_))));
        m.handle(Input::ToolsDone(Vec::new()), now);
    });
    let log = out.lock().unwrap().clone();
    assert!(
        log.contains(
            "ERROR tribunal_runtime::machine message=unexpected input for state input=tools_done"
        ),
        "{log}"
    );
}

#[test]
fn the_report_keeps_tool_and_wall_times_in_milliseconds_and_the_conversation() {
    let start = Instant::now();
    let spec = tribunal_runtime::ToolSpec {
        name: "count".into(),
        description: "counts".into(),
        parameters: json!({"type": "object"}),
    };
    let mut m = machine_with(Budget::default(), vec![spec], start);
    assert!(matches!(m.poll(start), Some(Action::CallModel(_))));
    m.handle(Input::Turn(calls(&[("count", json!({}))])), start);
    let Some(Action::CallTools(batch)) = m.poll(start) else {
        panic!("expected the tool call");
    };
    let mut done = executed(&batch);
    done[0].duration = Duration::from_millis(250);
    m.handle(Input::ToolsDone(done), start + Duration::from_millis(300));
    assert!(matches!(
        m.poll(start + Duration::from_millis(300)),
        Some(Action::CallModel(_))
    ));
    let end = start + Duration::from_millis(1500);
    m.handle(Input::Turn(answer(&eiffel())), end);
    assert_eq!(m.poll(end), Some(Action::Done));
    // user, the call, its result, the answer.
    assert_eq!(m.conversation().messages.len(), 4, "{:?}", m.conversation());
    let report = m.into_report();
    assert_eq!(report.tool_calls.len(), 1);
    assert_eq!(report.tool_calls[0].duration_ms, 250.0);
    assert_eq!(report.wall_ms, 1500.0);
}

#[test]
fn a_report_taken_before_the_end_is_an_internal_error() {
    let now = Instant::now();
    let mut m = machine(now);
    assert!(matches!(m.poll(now), Some(Action::CallModel(_))));
    assert_eq!(m.poll(now), None, "waiting for the model");
    assert!(!m.is_done());
    assert_eq!(
        m.into_report().outcome.error_code(),
        Some(ErrorCode::InternalError)
    );
}

#[test]
fn a_finished_machine_ignores_later_inputs() {
    let now = Instant::now();
    let mut m = machine(now);
    assert!(matches!(m.poll(now), Some(Action::CallModel(_))));
    m.handle(Input::Turn(answer(&eiffel())), now);
    m.handle(Input::DeadlineExceeded, now);
    m.handle(Input::Turn(text("late")), now);
    assert_eq!(m.poll(now), Some(Action::Done));
    assert_eq!(m.poll(now), Some(Action::Done));
    assert_eq!(m.into_report().outcome.value(), Some(&eiffel()));
}

#[test]
fn traces() {
    use Step::*;
    let b = Budget::default;
    let cases: Vec<(&str, Budget, Vec<Step>, &str)> = vec![
        (
            "answer at once",
            b(),
            vec![Model(answer(&eiffel()))],
            "CallModel(tools=1), Done(ok)",
        ),
        (
            "tool then answer",
            b(),
            vec![
                Model(calls(&[("count", json!({}))])),
                Tools,
                Model(answer(&eiffel())),
            ],
            "CallModel(tools=1), CallTools(1), CallModel(tools=1), Done(ok)",
        ),
        (
            "repair without tools",
            b(),
            vec![Model(text("nope")), Model(answer(&eiffel()))],
            "CallModel(tools=1), CallModel(tools=0), Done(ok; repair)",
        ),
        (
            "invalid twice",
            b(),
            vec![Model(text("nope")), Model(text("{\"name\": 1}"))],
            "CallModel(tools=1), CallModel(tools=0), Done(schema_mismatch; repair)",
        ),
        (
            "tool budget, fail: what fits runs, then the run ends",
            Budget {
                max_tool_calls: Some(1),
                ..b()
            },
            vec![
                Model(calls(&[
                    ("count", json!({"n": 1})),
                    ("count", json!({"n": 2})),
                ])),
                Tools,
            ],
            "CallModel(tools=1), CallTools(1), Done(max_tool_calls_exceeded)",
        ),
        (
            "tool budget, finalize: what fits runs, then the answer turn",
            Budget {
                max_tool_calls: Some(1),
                on_budget: OnBudget::Finalize,
                ..b()
            },
            vec![
                Model(calls(&[
                    ("count", json!({"n": 1})),
                    ("count", json!({"n": 2})),
                ])),
                Tools,
                Model(answer(&eiffel())),
            ],
            "CallModel(tools=1), CallTools(1), CallModel(tools=0), Done(ok; finalized after max_tool_calls_exceeded)",
        ),
        (
            "tool budget spent: a turn of calls runs none",
            Budget {
                max_tool_calls: Some(1),
                ..b()
            },
            vec![
                Model(calls(&[("count", json!({"n": 1}))])),
                Tools,
                Model(calls(&[
                    ("count", json!({"n": 2})),
                    ("count", json!({"n": 3})),
                ])),
            ],
            "CallModel(tools=1), CallTools(1), CallModel(tools=1), Done(max_tool_calls_exceeded)",
        ),
        (
            "the same call twice in one turn runs once and counts once",
            Budget {
                max_tool_calls: Some(1),
                ..b()
            },
            vec![
                Model(calls(&[
                    ("count", json!({"n": 1})),
                    ("count", json!({"n": 1})),
                ])),
                Tools,
                Model(answer(&eiffel())),
            ],
            "CallModel(tools=1), CallTools(1), CallModel(tools=1), Done(ok)",
        ),
        (
            "turn budget, finalize then repair",
            Budget {
                max_turns: 1,
                on_budget: OnBudget::Finalize,
                ..b()
            },
            vec![
                Model(calls(&[("count", json!({}))])),
                Tools,
                Model(text("nope")),
                Model(answer(&eiffel())),
            ],
            "CallModel(tools=1), CallTools(1), CallModel(tools=0), CallModel(tools=0), Done(ok; repair; finalized after max_turns_exceeded)",
        ),
        (
            "turn budget, finalize, repair rejected too",
            Budget {
                max_turns: 1,
                on_budget: OnBudget::Finalize,
                ..b()
            },
            vec![
                Model(calls(&[("count", json!({}))])),
                Tools,
                Model(text("nope")),
                Model(text("still nope")),
            ],
            "CallModel(tools=1), CallTools(1), CallModel(tools=0), CallModel(tools=0), Done(no_json; repair; finalized after max_turns_exceeded)",
        ),
        (
            "deadline during the repair after a finalize",
            Budget {
                max_turns: 1,
                on_budget: OnBudget::Finalize,
                deadline: Some(Duration::from_secs(10)),
                ..b()
            },
            vec![
                Model(calls(&[("count", json!({}))])),
                Tools,
                Model(text("nope")),
                Wait(Duration::from_secs(11)),
                Model(answer(&eiffel())),
            ],
            "CallModel(tools=1), CallTools(1), CallModel(tools=0), CallModel(tools=0), Done(deadline_exceeded; repair; finalized after max_turns_exceeded)",
        ),
        (
            "a turn of repeats only: finalize (the default)",
            b(),
            vec![
                Model(calls(&[("count", json!({"q": "a"}))])),
                Tools,
                Model(calls(&[("count", json!({"q": "a"}))])),
                Model(answer(&eiffel())),
            ],
            "CallModel(tools=1), CallTools(1), CallModel(tools=1), CallModel(tools=0), Done(ok; finalized after tool_calls_repeated)",
        ),
        (
            "another query, the same passages: on by choice, the loop answers",
            Budget {
                on_nothing_new: OnNothingNew::Finalize,
                ..b()
            },
            vec![
                Model(calls(&[("count", json!({"q": "a"}))])),
                ToolsSaid("[p1] one\n[p2] two"),
                Model(calls(&[("count", json!({"q": "b"}))])),
                ToolsSaid("[p2] two\n[p1] one"),
                Model(answer(&eiffel())),
            ],
            "CallModel(tools=1), CallTools(1), CallModel(tools=1), CallTools(1), CallModel(tools=0), Done(ok; finalized after nothing_new)",
        ),
        (
            "another query, the same passages: by default the loop goes on",
            b(),
            vec![
                Model(calls(&[("count", json!({"q": "a"}))])),
                ToolsSaid("[p1] one"),
                Model(calls(&[("count", json!({"q": "b"}))])),
                ToolsSaid("[p1] one"),
                Model(answer(&eiffel())),
            ],
            "CallModel(tools=1), CallTools(1), CallModel(tools=1), CallTools(1), CallModel(tools=1), Done(ok)",
        ),
        (
            "a result with one new passage is news",
            Budget {
                on_nothing_new: OnNothingNew::Finalize,
                ..b()
            },
            vec![
                Model(calls(&[("count", json!({"q": "a"}))])),
                ToolsSaid("[p1] one"),
                Model(calls(&[("count", json!({"q": "b"}))])),
                ToolsSaid("[p1] one\n[p3] three"),
                Model(calls(&[("count", json!({"q": "c"}))])),
                Tools,
                Model(answer(&eiffel())),
            ],
            "CallModel(tools=1), CallTools(1), CallModel(tools=1), CallTools(1), CallModel(tools=1), CallTools(1), CallModel(tools=1), Done(ok)",
        ),
        (
            "a turn of repeats only, notice: tools stay offered",
            Budget {
                on_repeat: OnRepeat::Notice,
                ..b()
            },
            vec![
                Model(calls(&[("count", json!({"q": "a"}))])),
                Tools,
                Model(calls(&[("count", json!({"q": "a"}))])),
                Model(answer(&eiffel())),
            ],
            "CallModel(tools=1), CallTools(1), CallModel(tools=1), CallModel(tools=1), Done(ok)",
        ),
        (
            "a turn with one fresh call beside a repeat goes on",
            b(),
            vec![
                Model(calls(&[("count", json!({"q": "a"}))])),
                Tools,
                Model(calls(&[
                    ("count", json!({"q": "a"})),
                    ("count", json!({"q": "b"})),
                ])),
                Tools,
                Model(answer(&eiffel())),
            ],
            "CallModel(tools=1), CallTools(1), CallModel(tools=1), CallTools(1), CallModel(tools=1), Done(ok)",
        ),
        (
            "repeats, finalize, then the repair (not counted as the finalize)",
            b(),
            vec![
                Model(calls(&[("count", json!({"q": "a"}))])),
                Tools,
                Model(calls(&[("count", json!({"q": "a"}))])),
                Model(text("nope")),
                Model(text("still nope")),
            ],
            "CallModel(tools=1), CallTools(1), CallModel(tools=1), CallModel(tools=0), CallModel(tools=0), Done(no_json; repair; finalized after tool_calls_repeated)",
        ),
        (
            "repeats under on_budget = fail still finalize, inside the deadline",
            Budget {
                deadline: Some(Duration::from_secs(10)),
                ..b()
            },
            vec![
                Model(calls(&[("count", json!({"q": "a"}))])),
                Tools,
                Model(calls(&[("count", json!({"q": "a"}))])),
                Wait(Duration::from_secs(11)),
                Model(answer(&eiffel())),
            ],
            "CallModel(tools=1), CallTools(1), CallModel(tools=1), CallModel(tools=0), Done(deadline_exceeded)",
        ),
        (
            "deadline during the finalize turn",
            Budget {
                max_turns: 1,
                on_budget: OnBudget::Finalize,
                deadline: Some(Duration::from_secs(10)),
                ..b()
            },
            vec![
                Model(calls(&[("count", json!({}))])),
                Tools,
                Wait(Duration::from_secs(11)),
                Model(answer(&eiffel())),
            ],
            "CallModel(tools=1), CallTools(1), CallModel(tools=0), Done(deadline_exceeded)",
        ),
        (
            "deadline passes during tools",
            Budget {
                deadline: Some(Duration::from_secs(10)),
                ..b()
            },
            vec![
                Model(calls(&[("count", json!({}))])),
                Wait(Duration::from_secs(11)),
            ],
            "CallModel(tools=1), CallTools(1), Done(deadline_exceeded)",
        ),
        (
            "answer arriving after the deadline",
            Budget {
                deadline: Some(Duration::from_secs(10)),
                ..b()
            },
            vec![Wait(Duration::from_secs(10)), Model(answer(&eiffel()))],
            "CallModel(tools=1), Done(deadline_exceeded)",
        ),
        (
            "tokens over budget on the answer",
            Budget {
                max_tokens: Some(10),
                ..b()
            },
            vec![Model(with_usage(answer(&eiffel()), 10, 1))],
            "CallModel(tools=1), Done(max_tokens_exceeded)",
        ),
    ];
    for (name, budget, steps, expected) in cases {
        assert_eq!(check(budget, steps), expected, "case: {name}");
    }
}

/// Plays one model turn of `calls` on a machine with `budget`, runs what it
/// asks to run, and returns the calls it ran and the results every call id
/// got, in order.
fn one_turn(budget: Budget, turn: ModelTurn) -> (Vec<String>, Vec<(String, String)>) {
    let start = Instant::now();
    let spec = tribunal_runtime::ToolSpec {
        name: "count".into(),
        description: "counts".into(),
        parameters: json!({"type": "object"}),
    };
    let mut machine = machine_with(budget, vec![spec], start);
    let mut ran = Vec::new();
    let mut turn = Some(turn);
    while let Some(action) = machine.poll(start) {
        match action {
            Action::CallModel(_) => match turn.take() {
                Some(t) => machine.handle(Input::Turn(t), start),
                None => break,
            },
            Action::CallTools(calls) => {
                ran.extend(calls.iter().map(|c| format!("{} {}", c.id, c.arguments)));
                let done: Vec<_> = calls
                    .iter()
                    .map(|c| tribunal_runtime::ToolExecution {
                        result: tribunal_runtime::ToolResult {
                            id: c.id.clone(),
                            content: format!("result of {}", c.arguments),
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
    let results = machine
        .conversation()
        .messages
        .iter()
        .filter_map(|m| match m {
            tribunal_runtime::Message::ToolResults { results } => Some(results),
            _ => None,
        })
        .flatten()
        .map(|r| (r.id.clone(), r.content.clone()))
        .collect();
    (ran, results)
}

/// Issue 52: a turn asking for one search three times over (and once more
/// with its keys in another order) runs it once; every call id gets that
/// one result.
#[test]
fn the_same_call_in_one_turn_runs_once_and_each_id_gets_its_result() {
    let turn = calls(&[
        ("count", json!({"q": "a", "k": 1})),
        ("count", json!({"q": "a", "k": 1})),
        ("count", json!({"q": "b"})),
        ("count", json!({"k": 1, "q": "a"})),
    ]);
    let (ran, results) = one_turn(Budget::default(), turn);
    assert_eq!(ran, [r#"c0 {"q":"a","k":1}"#, r#"c2 {"q":"b"}"#]);
    let a = r#"result of {"q":"a","k":1}"#;
    let b = r#"result of {"q":"b"}"#;
    let expected: Vec<(String, String)> = [("c0", a), ("c1", a), ("c2", b), ("c3", a)]
        .iter()
        .map(|(id, r)| (id.to_string(), r.to_string()))
        .collect();
    assert_eq!(results, expected);
}

/// Issue 52: a turn asking for more calls than the budget has left runs the
/// ones that fit, in order, and refuses the rest with the reason — not all
/// of them.
#[test]
fn a_turn_over_the_tool_budget_runs_what_fits_and_refuses_the_rest() {
    let turn = calls(&[
        ("count", json!({"n": 1})),
        ("count", json!({"n": 2})),
        ("count", json!({"n": 1})),
        ("count", json!({"n": 3})),
        ("count", json!({"n": 3})),
    ]);
    let budget = Budget {
        max_tool_calls: Some(2),
        on_budget: OnBudget::Finalize,
        ..Budget::default()
    };
    let (ran, results) = one_turn(budget, turn);
    assert_eq!(ran, [r#"c0 {"n":1}"#, r#"c1 {"n":2}"#]);
    let refused = tribunal_runtime::internal::machine::BUDGET_REFUSED_RESULT;
    let got: Vec<&str> = results.iter().map(|(_, r)| r.as_str()).collect();
    assert_eq!(
        got,
        [
            r#"result of {"n":1}"#,
            r#"result of {"n":2}"#,
            r#"result of {"n":1}"#,
            refused,
            refused
        ]
    );
}
