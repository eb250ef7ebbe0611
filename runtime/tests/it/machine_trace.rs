//! The state machine on its own: no runtime, no clock, no I/O. Each case
//! plays a transcript of inputs and compares the trace of actions.

use crate::support::*;
use serde_json::json;
use std::sync::Arc;
use std::time::{Duration, Instant};
use tribunal_runtime::{
    Action, AnswerPolicy, Budget, Conversation, Input, Machine, MachineConfig, ModelTurn, OnBudget,
    SchemaTarget, ToolExecution, ToolResult,
};

enum Step {
    Model(ModelTurn),
    Tools,
    Wait(Duration),
}

fn executions(calls: &[tribunal_runtime::ToolCall]) -> Vec<ToolExecution> {
    calls
        .iter()
        .map(|c| ToolExecution {
            result: ToolResult {
                id: c.id.clone(),
                content: "ok".into(),
                is_error: false,
            },
            duration: Duration::from_millis(1),
        })
        .collect()
}

/// Plays `steps` against a fresh machine and returns the action trace plus
/// the outcome, e.g. `CallModel(tools=1), CallTools(1), CallModel(tools=1), Done(ok)`.
fn check(budget: Budget, steps: Vec<Step>) -> String {
    let start = Instant::now();
    let mut now = start;
    let config = MachineConfig {
        budget,
        answer: AnswerPolicy::default(),
        max_output_tokens: None,
        plan: tribunal_runtime::OutputPlan::native(SchemaTarget::Plain),
        require_tool_first: false,
    };
    let spec = tribunal_runtime::ToolSpec {
        name: "count".into(),
        description: "counts".into(),
        parameters: json!({"type": "object"}),
    };
    let mut machine = Machine::new(
        config,
        Arc::new(landmark_schema()),
        vec![spec],
        Conversation::new(None, "go"),
        start,
    )
    .unwrap();
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
                        Some(Step::Tools) | None => {
                            machine.handle(Input::DeadlineExceeded, now);
                            break;
                        }
                    }
                }
            }
            Some(Action::CallTools(calls)) => {
                trace.push(format!("CallTools({})", calls.len()));
                if let Some(Step::Wait(d)) = steps.next() {
                    now += d;
                }
                machine.handle(Input::ToolsDone(executions(&calls)), now);
            }
            Some(Action::Done) => break,
            None => {
                trace.push("Stuck".into());
                break;
            }
        }
    }
    let report = machine.into_report();
    let end = match report.outcome.error_code() {
        Some(code) => format!("Done({code})"),
        None => "Done(ok)".to_string(),
    };
    trace.push(end);
    trace.join(", ")
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
            "CallModel(tools=1), CallModel(tools=0), Done(ok)",
        ),
        (
            "invalid twice",
            b(),
            vec![Model(text("nope")), Model(text("{\"name\": 1}"))],
            "CallModel(tools=1), CallModel(tools=0), Done(schema_mismatch)",
        ),
        (
            "tool budget, fail",
            Budget {
                max_tool_calls: Some(1),
                ..b()
            },
            vec![Model(calls(&[("count", json!({})), ("count", json!({}))]))],
            "CallModel(tools=1), Done(max_tool_calls_exceeded)",
        ),
        (
            "tool budget, finalize",
            Budget {
                max_tool_calls: Some(1),
                on_budget: OnBudget::Finalize,
                ..b()
            },
            vec![
                Model(calls(&[("count", json!({})), ("count", json!({}))])),
                Model(answer(&eiffel())),
            ],
            "CallModel(tools=1), CallModel(tools=0), Done(ok)",
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
            "CallModel(tools=1), CallTools(1), CallModel(tools=0), CallModel(tools=0), Done(ok)",
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
