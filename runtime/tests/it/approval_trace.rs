//! Tool-call approval in the state machine on its own: no runtime, no
//! clock, no I/O. Each case plays a transcript of model turns, decisions,
//! waits and pauses and compares the trace of actions, asks and the ending.
//! A pause goes all the way through JSON: the machine is dropped and a new
//! one is resumed from the text.

use futures::future::BoxFuture;
use serde_json::{Value, json};
use std::sync::Arc;
use std::time::{Duration, Instant};
use tribunal_runtime::RunSnapshot;
use tribunal_runtime::SchemaTarget;
use tribunal_runtime::internal::approval::{ApprovalPolicy, ArgumentCheck, Decision, ToolPolicy};
use tribunal_runtime::internal::machine::{Action, Input, Machine, MachineConfig};
use tribunal_runtime::{
    AnswerPolicy, Budget, Conversation, ErrorCode, Tool, ToolBox, ToolError, ToolOutput,
};
use tribunal_runtime::{Message, ModelTurn};
use tribunal_testkit::agents::*;

/// A tool with a given schema that is never run here (the machine only
/// reads its spec and checks arguments against it).
pub struct Schema {
    pub name: &'static str,
    pub schema: Value,
}

impl Tool for Schema {
    fn name(&self) -> &str {
        self.name
    }
    fn description(&self) -> &str {
        "a tool"
    }
    fn parameters(&self) -> Value {
        self.schema.clone()
    }
    fn call(&self, args: Value) -> BoxFuture<'_, Result<ToolOutput, ToolError>> {
        Box::pin(async move { Ok(ToolOutput::Text(format!("{} {args}", self.name))) })
    }
}

/// `write` (path and text), `read` (a path), `rm` (a path).
pub fn toolbox() -> ToolBox {
    let path = json!({"type": "object", "required": ["path"], "properties": {"path": {"type": "string"}}, "additionalProperties": false});
    ToolBox::new()
        .with(Schema {
            name: "write",
            schema: json!({"type": "object", "required": ["path", "text"], "properties": {"path": {"type": "string"}, "text": {"type": "string"}}, "additionalProperties": false}),
        })
        .with(Schema {
            name: "read",
            schema: path.clone(),
        })
        .with(Schema {
            name: "rm",
            schema: path,
        })
}

/// `write` asks, `rm` is denied, the rest runs.
pub fn policy() -> ApprovalPolicy {
    ApprovalPolicy::new(ToolPolicy::Auto)
        .with_tool("write", ToolPolicy::Ask)
        .with_tool("rm", ToolPolicy::Deny)
}

fn config(budget: Budget) -> MachineConfig {
    MachineConfig {
        budget,
        answer: AnswerPolicy::default(),
        max_output_tokens: None,
        plan: tribunal_runtime::OutputPlan::native(SchemaTarget::Plain),
        require_tool_first: false,
    }
}

fn machine(budget: Budget, start: Instant) -> Machine {
    let tools = Arc::new(toolbox());
    Machine::new(
        config(budget),
        Arc::new(landmark_schema()),
        tools.specs(),
        Conversation::new(None, "go"),
        start,
    )
    .unwrap()
    .with_approval(policy(), tools as Arc<dyn ArgumentCheck>)
}

/// A paused machine's JSON read back and resumed at `now`.
fn resumed(json: &str, budget: Budget, now: Instant) -> Result<Machine, ErrorCode> {
    let tools = Arc::new(toolbox());
    let snapshot = RunSnapshot::from_json(json).map_err(|e| e.code())?;
    Machine::resume(
        config(budget),
        Arc::new(landmark_schema()),
        tools.specs(),
        snapshot,
        (policy(), tools as Arc<dyn ArgumentCheck>),
        now,
    )
    .map_err(|e| e.code())
}

enum Step {
    Model(ModelTurn),
    Decide(Decision),
    Wait(Duration),
    /// Pause at the approval point, write the snapshot out, drop the
    /// machine, and resume a new one from the text after this long.
    Pause(Duration),
}

/// What a played run shows: the trace, the results the model read, and
/// the report.
struct Played {
    trace: String,
    results: Vec<String>,
    report: tribunal_runtime::RunReport,
}

fn play(budget: Budget, steps: Vec<Step>) -> Played {
    let start = Instant::now();
    let mut now = start;
    let mut m = machine(budget, start);
    let mut trace = Vec::new();
    let mut steps = steps.into_iter();
    loop {
        match m.poll(now) {
            Some(Action::CallModel(req)) => {
                trace.push(format!("CallModel(tools={})", req.tools.len()));
                loop {
                    match steps.next() {
                        Some(Step::Wait(d)) => now += d,
                        Some(Step::Model(turn)) => {
                            m.handle(Input::Turn(turn), now);
                            break;
                        }
                        _ => {
                            m.handle(Input::DeadlineExceeded, now);
                            break;
                        }
                    }
                }
            }
            Some(Action::CallTools(calls)) => {
                let shown: Vec<String> = calls
                    .iter()
                    .map(|c| format!("{} {}", c.name, c.arguments))
                    .collect();
                trace.push(format!("CallTools({})", shown.join(", ")));
                m.handle(Input::ToolsDone(executed(&calls)), now);
            }
            Some(Action::Done) => break,
            None => {
                let Some(pending) = m.pending_approval() else {
                    trace.push("Stuck".into());
                    break;
                };
                trace.push(format!("Ask({}#{})", pending.call.name, pending.index));
                loop {
                    match steps.next() {
                        Some(Step::Wait(d)) => now += d,
                        Some(Step::Pause(d)) => {
                            let json = m.snapshot(now).unwrap().to_json().unwrap();
                            drop(m);
                            now += d;
                            m = resumed(&json, budget, now).unwrap();
                            trace.push("Paused".into());
                        }
                        Some(Step::Decide(decision)) => {
                            m.handle_decision(pending.index, decision, now);
                            break;
                        }
                        Some(Step::Model(_)) | None => {
                            // The driver's deadline timer fired while it waited.
                            m.handle(Input::DeadlineExceeded, now);
                            break;
                        }
                    }
                }
            }
        }
    }
    let approvals: Vec<&str> = m.approvals().iter().map(|a| a.outcome.as_str()).collect();
    let results = m
        .conversation()
        .messages
        .iter()
        .filter_map(|msg| match msg {
            Message::ToolResults { results } => Some(results),
            _ => None,
        })
        .flatten()
        .map(|r| r.content.clone())
        .collect();
    let report = m.into_report();
    let end = match report.outcome.error_code() {
        Some(code) => code.to_string(),
        None => "ok".to_string(),
    };
    trace.push(format!("Done({end}; [{}])", approvals.join(", ")));
    Played {
        trace: trace.join(", "),
        results,
        report,
    }
}

fn write(path: &str) -> (&'static str, Value) {
    ("write", json!({"path": path, "text": "hi"}))
}

#[test]
fn traces() {
    use Step::*;
    let b = Budget::default;
    let with_deadline = Budget {
        deadline: Some(Duration::from_secs(10)),
        ..b()
    };
    let cases: Vec<(&str, Budget, Vec<Step>, &str)> = vec![
        (
            "auto tools run without asking",
            b(),
            vec![
                Model(calls(&[("read", json!({"path": "a"}))])),
                Model(answer(&eiffel())),
            ],
            r#"CallModel(tools=3), CallTools(read {"path":"a"}), CallModel(tools=3), Done(ok; [])"#,
        ),
        (
            "approve",
            b(),
            vec![
                Model(calls(&[write("a")])),
                Decide(Decision::approve()),
                Model(answer(&eiffel())),
            ],
            r#"CallModel(tools=3), Ask(write#0), CallTools(write {"path":"a","text":"hi"}), CallModel(tools=3), Done(ok; [approved])"#,
        ),
        (
            "modify, valid: the call runs with the approver's arguments",
            b(),
            vec![
                Model(calls(&[write("/etc/passwd")])),
                Decide(Decision::modify(json!({"path": "notes.txt", "text": "hi"}))),
                Model(answer(&eiffel())),
            ],
            r#"CallModel(tools=3), Ask(write#0), CallTools(write {"path":"notes.txt","text":"hi"}), CallModel(tools=3), Done(ok; [modified])"#,
        ),
        (
            "modify, invalid against the schema: refused, nothing runs, the run goes on",
            b(),
            vec![
                Model(calls(&[write("a")])),
                Decide(Decision::modify(json!({"path": 7}))),
                Model(answer(&eiffel())),
            ],
            "CallModel(tools=3), Ask(write#0), CallModel(tools=3), Done(ok; [invalid_modification])",
        ),
        (
            "reject",
            b(),
            vec![
                Model(calls(&[write("a")])),
                Decide(Decision::reject("not today")),
                Model(answer(&eiffel())),
            ],
            "CallModel(tools=3), Ask(write#0), CallModel(tools=3), Done(ok; [rejected])",
        ),
        (
            "terminate",
            b(),
            vec![Model(calls(&[write("a")])), Decide(Decision::terminate())],
            "CallModel(tools=3), Ask(write#0), Done(approval_terminated; [terminated])",
        ),
        (
            "later, in a run that cannot pause",
            b(),
            vec![Model(calls(&[write("a")])), Decide(Decision::later())],
            "CallModel(tools=3), Ask(write#0), Done(approval_pending; [])",
        ),
        (
            "deny: refused without asking, the other calls run",
            b(),
            vec![
                Model(calls(&[
                    ("rm", json!({"path": "a"})),
                    ("read", json!({"path": "a"})),
                ])),
                Model(answer(&eiffel())),
            ],
            r#"CallModel(tools=3), CallTools(read {"path":"a"}), CallModel(tools=3), Done(ok; [denied])"#,
        ),
        (
            "a turn of denied calls only: nothing runs, the model is asked again",
            b(),
            vec![
                Model(calls(&[("rm", json!({"path": "a"}))])),
                Model(answer(&eiffel())),
            ],
            "CallModel(tools=3), CallModel(tools=3), Done(ok; [denied])",
        ),
        (
            "a rejected call made again is a repeat, not a second ask",
            b(),
            vec![
                Model(calls(&[write("a")])),
                Decide(Decision::reject("no")),
                Model(calls(&[write("a")])),
                Model(answer(&eiffel())),
            ],
            "CallModel(tools=3), Ask(write#0), CallModel(tools=3), CallModel(tools=0), Done(ok; [rejected])",
        ),
        (
            "several pending calls of one turn: asked in order, each decided alone",
            b(),
            vec![
                Model(calls(&[
                    write("a"),
                    ("read", json!({"path": "a"})),
                    write("b"),
                    ("rm", json!({"path": "a"})),
                    write("c"),
                ])),
                Decide(Decision::approve()),
                Decide(Decision::reject("no")),
                Decide(Decision::modify(json!({"path": "d", "text": "hi"}))),
                Model(answer(&eiffel())),
            ],
            r#"CallModel(tools=3), Ask(write#0), Ask(write#2), Ask(write#4), CallTools(write {"path":"a","text":"hi"}, read {"path":"a"}, write {"path":"d","text":"hi"}), CallModel(tools=3), Done(ok; [denied, approved, rejected, modified])"#,
        ),
        (
            "terminate at the second of several calls: nothing of the turn runs",
            b(),
            vec![
                Model(calls(&[
                    write("a"),
                    ("read", json!({"path": "a"})),
                    write("b"),
                ])),
                Decide(Decision::approve()),
                Decide(Decision::terminate()),
            ],
            "CallModel(tools=3), Ask(write#0), Ask(write#2), Done(approval_terminated; [approved, terminated])",
        ),
        (
            "the deadline fires while a call waits, unpaused",
            with_deadline,
            vec![Model(calls(&[write("a")])), Wait(Duration::from_secs(11))],
            "CallModel(tools=3), Ask(write#0), Done(deadline_exceeded; [])",
        ),
        (
            "a decision that comes after the deadline does not run the call",
            with_deadline,
            vec![
                Model(calls(&[write("a")])),
                Wait(Duration::from_secs(11)),
                Decide(Decision::approve()),
            ],
            "CallModel(tools=3), Ask(write#0), Done(deadline_exceeded; [approved])",
        ),
        (
            "paused time does not count against the deadline",
            with_deadline,
            vec![
                Model(calls(&[write("a")])),
                Wait(Duration::from_secs(8)),
                Pause(Duration::from_secs(3600)),
                Wait(Duration::from_secs(1)),
                Decide(Decision::approve()),
                Model(answer(&eiffel())),
            ],
            r#"CallModel(tools=3), Ask(write#0), Paused, CallTools(write {"path":"a","text":"hi"}), CallModel(tools=3), Done(ok; [approved])"#,
        ),
        (
            "the time left at the pause is all a resumed run gets",
            with_deadline,
            vec![
                Model(calls(&[write("a")])),
                Wait(Duration::from_secs(8)),
                Pause(Duration::from_secs(3600)),
                Wait(Duration::from_secs(3)),
                Decide(Decision::approve()),
            ],
            "CallModel(tools=3), Ask(write#0), Paused, Done(deadline_exceeded; [approved])",
        ),
        (
            "a repeated call is answered, not asked",
            b(),
            vec![
                Model(calls(&[write("a")])),
                Decide(Decision::approve()),
                Model(calls(&[write("a"), write("b")])),
                Decide(Decision::approve()),
                Model(answer(&eiffel())),
            ],
            r#"CallModel(tools=3), Ask(write#0), CallTools(write {"path":"a","text":"hi"}), CallModel(tools=3), Ask(write#1), CallTools(write {"path":"b","text":"hi"}), CallModel(tools=3), Done(ok; [approved, approved])"#,
        ),
    ];
    for (name, budget, steps, expected) in cases {
        assert_eq!(play(budget, steps).trace, expected, "case: {name}");
    }
}

#[test]
fn the_model_reads_each_decision_as_the_call_result() {
    use Step::*;
    let played = play(
        Budget::default(),
        vec![
            Model(calls(&[
                write("a"),
                write("b"),
                write("c"),
                ("rm", json!({"path": "a"})),
            ])),
            Decide(Decision::modify(json!({"path": "z", "text": "hi"}))),
            Decide(Decision::modify(json!({"path": "z"}))),
            Decide(Decision::reject("not under /etc")),
            Model(answer(&eiffel())),
        ],
    );
    assert_eq!(
        played.results,
        [
            "note: the approver changed the arguments of this call to {\"path\":\"z\",\"text\":\"hi\"}\nwrite ran",
            "error: not executed: the approver changed the arguments, and the change was refused: error: invalid arguments for write:\n- instancePath \"\": \"text\" is a required property",
            "error: not executed: the call was rejected: not under /etc",
            "error: not executed: the tool rm is not allowed in this run",
        ]
    );
    // The report's tool calls: the modified call with the arguments it ran
    // with; the refused ones did not run.
    let calls: Vec<(&str, &str, bool)> = played
        .report
        .tool_calls
        .iter()
        .map(|c| (c.name.as_str(), c.arguments.as_str(), c.ok))
        .collect();
    assert_eq!(
        calls,
        [
            ("write", r#"{"path":"z","text":"hi"}"#, true),
            ("write", r#"{"path":"b","text":"hi"}"#, false),
            ("write", r#"{"path":"c","text":"hi"}"#, false),
            ("rm", r#"{"path":"a"}"#, false),
        ]
    );
}

#[test]
fn a_terminated_run_answers_every_call_of_its_turn() {
    use Step::*;
    let played = play(
        Budget::default(),
        vec![
            Model(calls(&[write("a"), ("read", json!({"path": "a"}))])),
            Decide(Decision::terminate()),
        ],
    );
    assert_eq!(
        played.results,
        [
            "error: not executed: the approver ended the run",
            "error: not executed: the approver ended the run"
        ]
    );
    assert!(played.report.tool_calls.is_empty());
}

/// A turn of three `ask` calls and a decision for each, paused before the
/// k-th decision (or never): every pause ends as the run without one.
#[test]
fn a_pause_at_each_pending_call_of_a_turn_ends_as_the_unpaused_run() {
    use Step::*;
    let steps = |pause_at: Option<usize>| {
        let decisions = [
            Decision::approve(),
            Decision::reject("no"),
            Decision::modify(json!({"path": "d", "text": "hi"})),
        ];
        let mut steps = vec![Model(calls(&[write("a"), write("b"), write("c")]))];
        for (i, d) in decisions.into_iter().enumerate() {
            if pause_at == Some(i) {
                steps.push(Pause(Duration::from_secs(60)));
            }
            steps.push(Decide(d));
        }
        steps.push(Model(answer(&eiffel())));
        steps
    };
    let unpaused = play(Budget::default(), steps(None));
    assert_eq!(
        unpaused.trace,
        r#"CallModel(tools=3), Ask(write#0), Ask(write#1), Ask(write#2), CallTools(write {"path":"a","text":"hi"}, write {"path":"d","text":"hi"}), CallModel(tools=3), Done(ok; [approved, rejected, modified])"#
    );
    for k in 0..3 {
        let paused = play(Budget::default(), steps(Some(k)));
        assert_eq!(
            paused.trace.replace("Paused, ", ""),
            unpaused.trace,
            "paused before decision {k}"
        );
        assert_eq!(
            paused.results, unpaused.results,
            "paused before decision {k}"
        );
        let mut report = paused.report.clone();
        report.wall_ms = unpaused.report.wall_ms;
        assert_eq!(report, unpaused.report, "paused before decision {k}");
    }
}

#[test]
fn a_machine_that_is_not_at_an_approval_point_has_no_snapshot_and_takes_no_decision() {
    let now = Instant::now();
    let mut m = machine(Budget::default(), now);
    assert!(matches!(m.poll(now), Some(Action::CallModel(_))));
    assert!(m.snapshot(now).is_none());
    assert!(m.pending_approval().is_none());
    m.handle_decision(0, Decision::approve(), now);
    assert_eq!(
        m.into_report().outcome.error_code(),
        Some(ErrorCode::InternalError)
    );
}

#[test]
fn a_decision_for_a_call_that_does_not_wait_is_an_internal_error() {
    let now = Instant::now();
    let mut m = machine(Budget::default(), now);
    assert!(matches!(m.poll(now), Some(Action::CallModel(_))));
    m.handle(
        Input::Turn(calls(&[write("a"), ("read", json!({"path": "a"}))])),
        now,
    );
    assert_eq!(m.poll(now), None);
    // The auto call (index 1) does not wait.
    m.handle_decision(1, Decision::approve(), now);
    assert_eq!(
        m.into_report().outcome.error_code(),
        Some(ErrorCode::InternalError)
    );
}

/// A run paused at an approval point, as JSON.
pub fn paused_json() -> String {
    let now = Instant::now();
    let mut m = machine(Budget::default(), now);
    assert!(matches!(m.poll(now), Some(Action::CallModel(_))));
    m.handle(
        Input::Turn(calls(&[
            write("a"),
            ("rm", json!({"path": "a"})),
            write("b"),
        ])),
        now,
    );
    assert_eq!(m.poll(now), None);
    m.handle_decision(0, Decision::approve(), now);
    m.snapshot(now).unwrap().to_json().unwrap()
}

#[test]
fn a_snapshot_from_another_tool_set_or_schema_is_refused_with_its_own_code() {
    let json = paused_json();
    let now = Instant::now();
    let check = |tools: ToolBox, budget: Budget| {
        let tools = Arc::new(tools);
        Machine::resume(
            config(budget),
            Arc::new(landmark_schema()),
            tools.specs(),
            RunSnapshot::from_json(&json).unwrap(),
            (policy(), tools as Arc<dyn ArgumentCheck>),
            now,
        )
        .map(|_| ())
        .map_err(|e| (e.code(), e.to_string()))
    };
    assert_eq!(check(toolbox(), Budget::default()), Ok(()));
    // One tool fewer.
    let fewer = ToolBox::new().with(Schema {
        name: "write",
        schema: json!({"type": "object"}),
    });
    assert_eq!(
        check(fewer, Budget::default()),
        Err((
            ErrorCode::SnapshotMismatch,
            "the snapshot was taken by an agent with other tools".into()
        ))
    );
    // The same names, one schema changed.
    let changed = toolbox().with(Schema {
        name: "read",
        schema: json!({"type": "object", "properties": {"path": {"type": "integer"}}}),
    });
    assert_eq!(
        check(changed, Budget::default()).map_err(|e| e.0),
        Err(ErrorCode::SnapshotMismatch)
    );
    // Other budgets.
    let budget = Budget {
        max_tool_calls: Some(3),
        ..Budget::default()
    };
    assert_eq!(
        check(toolbox(), budget),
        Err((
            ErrorCode::SnapshotMismatch,
            "the snapshot was taken by an agent with other settings".into()
        ))
    );
    // Another answer schema.
    let tools = Arc::new(toolbox());
    let other_answer =
        tribunal_runtime::OutputSchema::new("other", json!({"type": "object"})).unwrap();
    let refused = Machine::resume(
        config(Budget::default()),
        Arc::new(other_answer),
        tools.specs(),
        RunSnapshot::from_json(&json).unwrap(),
        (policy(), tools as Arc<dyn ArgumentCheck>),
        now,
    );
    assert_eq!(
        refused.map(|_| ()).map_err(|e| e.code()),
        Err(ErrorCode::SnapshotMismatch)
    );
}

#[test]
fn an_unknown_version_or_a_broken_snapshot_is_refused_with_its_own_code() {
    let json = paused_json();
    let mut value: Value = serde_json::from_str(&json).unwrap();
    value["version"] = json!(2);
    assert_eq!(
        RunSnapshot::from_json(&value.to_string())
            .map(|_| ())
            .map_err(|e| e.code()),
        Err(ErrorCode::SnapshotVersion)
    );
    let code = |text: &str| {
        RunSnapshot::from_json(text)
            .map(|_| ())
            .map_err(|e| e.code())
    };
    assert_eq!(code("not json"), Err(ErrorCode::SnapshotInvalid));
    assert_eq!(code("{}"), Err(ErrorCode::SnapshotInvalid));
    assert_eq!(code(r#"{"version": "1"}"#), Err(ErrorCode::SnapshotInvalid));
    assert_eq!(code(r#"{"version": 1}"#), Err(ErrorCode::SnapshotInvalid));
    // The calls are not the last turn's.
    let mut value: Value = serde_json::from_str(&json).unwrap();
    value["calls"].as_array_mut().unwrap().pop();
    assert_eq!(code(&value.to_string()), Err(ErrorCode::SnapshotInvalid));
    let mut value: Value = serde_json::from_str(&json).unwrap();
    value["conversation"]["messages"]
        .as_array_mut()
        .unwrap()
        .pop();
    assert_eq!(code(&value.to_string()), Err(ErrorCode::SnapshotInvalid));
    // An approved change edited into one that does not fit the schema.
    let mut value: Value = serde_json::from_str(&json).unwrap();
    value["calls"][0] =
        json!({"id": "c0", "tool": "write", "status": "run_with", "arguments": "{\"path\": 1}"});
    let text = value.to_string();
    assert_eq!(code(&text), Ok(()), "it reads");
    assert_eq!(
        resumed(&text, Budget::default(), Instant::now()).map(|_| ()),
        Err(ErrorCode::SnapshotInvalid)
    );
    value["calls"][0]["arguments"] = json!("{\"path\": \"z\", \"text\": \"t\"}");
    assert!(resumed(&value.to_string(), Budget::default(), Instant::now()).is_ok());
    // Snapshot states the machine does not know.
    let mut value: Value = serde_json::from_str(&json).unwrap();
    value["state"] = json!("running_tools");
    assert_eq!(code(&value.to_string()), Err(ErrorCode::SnapshotInvalid));
    assert_eq!(code(&json), Ok(()));
}

#[test]
fn the_snapshot_format() {
    let _snapshots = tribunal_testkit::bind_snapshots("runtime");
    let value: Value = serde_json::from_str(&paused_json()).unwrap();
    insta::assert_json_snapshot!("run_snapshot_v1", value, {
        ".elapsed_ms" => "[ms]",
        ".deadline_left_ms" => "[ms]",
    });
}

/// A turn over the tool-call budget: the calls that fit go to approval as
/// ever, the refused ones are never asked about and read the budget's
/// reason (issue 52).
#[test]
fn a_call_the_budget_refuses_is_never_asked_about() {
    use Step::*;
    let budget = Budget {
        max_tool_calls: Some(1),
        on_budget: tribunal_runtime::OnBudget::Finalize,
        ..Budget::default()
    };
    let played = play(
        budget,
        vec![
            Model(calls(&[write("a"), write("b")])),
            Decide(Decision::approve()),
            Model(answer(&eiffel())),
        ],
    );
    assert_eq!(
        played.trace,
        "CallModel(tools=3), Ask(write#0), CallTools(write {\"path\":\"a\",\"text\":\"hi\"}), CallModel(tools=0), Done(ok; [approved])"
    );
    assert_eq!(
        played.results,
        [
            "write ran".to_string(),
            tribunal_runtime::internal::machine::BUDGET_REFUSED_RESULT.to_string()
        ]
    );
}
