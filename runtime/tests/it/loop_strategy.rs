//! Output strategies in the loop (the answer tool, the schema off tool turns),
//! repeated identical calls, and the messages of the finalize and repair
//! turns — against the scripted backend, so every request is inspected.

use serde_json::{Value, json};
use std::sync::Arc;
use std::sync::atomic::Ordering;
use tribunal_runtime::internal::answer::finalize_message;
use tribunal_runtime::internal::machine::REPEATED_CALL_RESULT;
use tribunal_runtime::internal::output::{ANSWER_TOOL, OutputPlan, ToolChoice};
use tribunal_runtime::{Backend, Budget, ErrorCode, OnBudget, OnRepeat, ToolBox};
use tribunal_runtime::{Message, ModelTurn, StopReason, ToolCall};
use tribunal_runtime::{ModelRequest, OutputFormat, SchemaTarget, ScriptedBackend};
use tribunal_testkit::agents::*;

fn scripted(plan: OutputPlan, turns: Vec<ModelTurn>) -> Arc<ScriptedBackend> {
    Arc::new(ScriptedBackend::from_turns(turns).with_output_plan(plan))
}

fn tool_plan() -> OutputPlan {
    OutputPlan::tool(SchemaTarget::Plain)
}

/// A turn that calls the answer tool with `args`.
fn answer_call(args: &Value) -> ModelTurn {
    calls(&[(ANSWER_TOOL, args.clone())])
}

/// The right record as the plan's final answer: a call of the answer tool
/// under the tool strategy, else the text.
fn eiffel_answer(plan: OutputPlan) -> ModelTurn {
    match plan.strategy {
        tribunal_runtime::OutputStrategy::Tool => answer_call(&eiffel()),
        _ => answer(&eiffel()),
    }
}

/// The answer tool's name under the plan, if it has one.
fn answer_tool_of(plan: OutputPlan) -> Option<&'static str> {
    (plan.strategy == tribunal_runtime::OutputStrategy::Tool).then_some(ANSWER_TOOL)
}

fn names(request: &ModelRequest) -> Vec<&str> {
    request.tools.iter().map(|t| t.name.as_str()).collect()
}

fn counter_agent(
    backend: Arc<ScriptedBackend>,
) -> (tribunal_runtime::Agent, Arc<std::sync::atomic::AtomicUsize>) {
    let (tool, count) = Counter::new("count");
    (agent(backend).with_tools(ToolBox::new().with(tool)), count)
}

fn last_results(request: &ModelRequest) -> Vec<String> {
    match request.conversation.messages.last() {
        Some(Message::ToolResults { results }) => {
            results.iter().map(|r| r.content.clone()).collect()
        }
        other => panic!("expected tool results last, got {other:?}"),
    }
}

fn last_user(request: &ModelRequest) -> &str {
    match request.conversation.messages.last() {
        Some(Message::User { text }) => text,
        other => panic!("expected a user message last, got {other:?}"),
    }
}

#[tokio::test]
async fn the_answer_tool_call_is_the_answer_and_never_a_tool_call() {
    let backend = scripted(
        tool_plan(),
        vec![
            calls(&[("count", json!({"q": "Eiffel"}))]),
            answer_call(&eiffel()),
        ],
    );
    let (agent, count) = counter_agent(backend.clone());
    let run = agent
        .with_budget(Budget {
            max_tool_calls: Some(1),
            ..Budget::default()
        })
        .run("go")
        .await;
    assert_eq!(
        run.report.outcome.value(),
        Some(&eiffel()),
        "{:?}",
        run.report
    );
    assert_eq!(count.load(Ordering::SeqCst), 1);
    // Only the user tool is a tool call: the budget of 1 was not exceeded.
    assert_eq!(run.report.tool_calls.len(), 1);
    assert_eq!(run.report.tool_calls[0].name, "count");
    let requests = backend.requests();
    assert_eq!(requests.len(), 2);
    for request in &requests {
        // The answer tool first: a small model calls the first tool that fits
        // (LIVE.md, "The answer tool first").
        assert_eq!(names(request), [ANSWER_TOOL, "count"]);
        assert_eq!(request.tool_choice, ToolChoice::Auto);
        assert_eq!(
            request.output,
            OutputFormat::Text,
            "no grammar beside tools"
        );
    }
    let answer_tool = &requests[0].tools[0];
    assert_eq!(&answer_tool.parameters, landmark_schema().owner());
    // The accepted call got a result too, so a follow-up is well-formed.
    match run.conversation.messages.last() {
        Some(Message::ToolResults { results }) => {
            assert_eq!(results.len(), 1);
            assert_eq!(results[0].content, "the final answer was accepted");
            assert!(!results[0].is_error);
        }
        other => panic!("{other:?}"),
    }
}

#[tokio::test]
async fn an_invalid_answer_call_is_repaired_through_its_tool_result_with_only_the_answer_tool() {
    let invalid =
        json!({"name": "Eiffel Tower", "year": "1889", "height_m": 330, "sources": ["1"]});
    let backend = scripted(
        tool_plan(),
        vec![answer_call(&invalid), answer_call(&eiffel())],
    );
    let (agent, _) = counter_agent(backend.clone());
    let run = agent.run("go").await;
    assert_eq!(run.report.outcome.value(), Some(&eiffel()));
    assert!(run.report.repair_used);
    let requests = backend.requests();
    let repair = &requests[1];
    assert_eq!(
        names(repair),
        [ANSWER_TOOL],
        "the repair offers only the answer tool"
    );
    assert_eq!(repair.tool_choice, ToolChoice::Required);
    assert_eq!(repair.output, OutputFormat::Text);
    let results = last_results(repair);
    assert_eq!(results.len(), 1);
    assert!(
        results[0]
            .starts_with("Your final response did not match the required schema: schema_mismatch"),
        "{}",
        results[0]
    );
    assert!(
        results[0].contains("instancePath \"/year\""),
        "{}",
        results[0]
    );
    assert!(
        results[0].ends_with(
            "Give your final answer by calling final_answer, with arguments that match its schema."
        ),
        "{}",
        results[0]
    );
}

#[tokio::test]
async fn invalid_twice_through_the_answer_tool_ends_with_the_code_only() {
    let invalid = json!({"name": "Eiffel Tower"});
    let backend = scripted(
        tool_plan(),
        vec![answer_call(&invalid), answer_call(&invalid)],
    );
    let run = agent(backend).run("go").await;
    assert_eq!(
        run.report.outcome.error_code(),
        Some(ErrorCode::SchemaMismatch)
    );
    let stored = serde_json::to_string(&run.report).unwrap();
    assert!(!stored.contains("Eiffel"), "{stored}");
}

#[tokio::test]
async fn a_text_answer_is_still_read_under_the_tool_strategy() {
    let backend = scripted(tool_plan(), vec![answer(&eiffel())]);
    let (agent, _) = counter_agent(backend);
    let run = agent.run("go").await;
    assert_eq!(run.report.outcome.value(), Some(&eiffel()));
    assert!(!run.report.repair_used);
}

#[tokio::test]
async fn calls_beside_the_answer_call_do_not_run_but_get_results() {
    let mut turn = calls(&[("count", json!({"q": "x"})), (ANSWER_TOOL, eiffel())]);
    turn.stop = StopReason::ToolUse;
    let backend = scripted(tool_plan(), vec![turn]);
    let (agent, count) = counter_agent(backend);
    let run = agent.run("go").await;
    assert_eq!(run.report.outcome.value(), Some(&eiffel()));
    assert_eq!(count.load(Ordering::SeqCst), 0);
    assert!(run.report.tool_calls.is_empty());
    match run.conversation.messages.last() {
        Some(Message::ToolResults { results }) => {
            assert_eq!(results.len(), 2);
            assert_eq!(
                results[0].content,
                "not executed: the final answer was given in the same turn"
            );
        }
        other => panic!("{other:?}"),
    }
}

#[tokio::test]
async fn without_user_tools_the_answer_tool_is_required_at_once() {
    let backend = scripted(tool_plan(), vec![answer_call(&eiffel())]);
    let run = agent(backend.clone()).run("go").await;
    assert!(run.report.is_ok());
    let request = &backend.requests()[0];
    assert_eq!(names(request), [ANSWER_TOOL]);
    assert_eq!(request.tool_choice, ToolChoice::Required);
}

#[tokio::test]
async fn the_answer_tool_takes_another_name_beside_a_user_tool_called_final_answer() {
    let backend = scripted(tool_plan(), vec![calls(&[("final_answer_1", eiffel())])]);
    let (tool, count) = Counter::new("final_answer");
    let run = agent(backend.clone())
        .with_tools(ToolBox::new().with(tool))
        .run("go")
        .await;
    assert_eq!(run.report.outcome.value(), Some(&eiffel()));
    assert_eq!(count.load(Ordering::SeqCst), 0);
    assert_eq!(
        names(&backend.requests()[0]),
        ["final_answer_1", "final_answer"]
    );
}

#[tokio::test]
async fn native_plan_keeps_the_schema_off_tool_turns_when_told() {
    let plan = OutputPlan {
        schema_on_tool_turns: false,
        ..OutputPlan::native(SchemaTarget::Plain)
    };
    let backend = scripted(
        plan,
        vec![
            calls(&[("count", json!({"q": "a"}))]),
            text("the Eiffel Tower is 330 m"),
            answer(&eiffel()),
        ],
    );
    let (agent, _) = counter_agent(backend.clone());
    let run = agent.run("go").await;
    assert_eq!(run.report.outcome.value(), Some(&eiffel()));
    let requests = backend.requests();
    assert_eq!(requests[0].output, OutputFormat::Text);
    assert_eq!(requests[1].output, OutputFormat::Text);
    // The repair offers no tools, and so carries the schema.
    assert!(requests[2].tools.is_empty());
    assert!(matches!(
        requests[2].output,
        OutputFormat::JsonSchema { .. }
    ));
    // The default plan carries it on every turn.
    let backend = scripted(
        OutputPlan::native(SchemaTarget::Plain),
        vec![answer(&eiffel())],
    );
    let (agent, _) = counter_agent(backend.clone());
    agent.run("go").await;
    assert!(matches!(
        backend.requests()[0].output,
        OutputFormat::JsonSchema { .. }
    ));
}

#[tokio::test]
async fn a_repeated_call_is_not_run_again_and_still_counts() {
    let backend = scripted(
        OutputPlan::native(SchemaTarget::Plain),
        vec![
            calls(&[("count", json!({"q": "Eiffel Tower"}))]),
            // The same call, spelled differently: still the same call.
            ModelTurn {
                tool_calls: vec![ToolCall {
                    id: "again".into(),
                    name: "count".into(),
                    arguments: "{ \"q\" :  \"Eiffel Tower\" }".into(),
                }],
                stop: StopReason::ToolUse,
                ..Default::default()
            },
            // A third call would exceed the budget of 2.
            calls(&[("count", json!({"q": "Tour Eiffel"}))]),
        ],
    );
    let (agent, count) = counter_agent(backend.clone());
    let run = agent
        .with_budget(Budget {
            max_tool_calls: Some(2),
            on_repeat: OnRepeat::Notice,
            ..Budget::default()
        })
        .run("go")
        .await;
    assert_eq!(count.load(Ordering::SeqCst), 1, "the repeat did not run");
    assert_eq!(
        run.report.outcome.error_code(),
        Some(ErrorCode::MaxToolCallsExceeded),
        "the repeat counted toward max_tool_calls"
    );
    let records = &run.report.tool_calls;
    assert_eq!(records.len(), 2);
    assert!(records[0].ok && !records[0].repeated);
    assert!(!records[1].ok && records[1].repeated);
    let requests = backend.requests();
    assert_eq!(last_results(&requests[2]), [REPEATED_CALL_RESULT]);
    assert!(REPEATED_CALL_RESULT.contains("result is above"));
}

#[tokio::test]
async fn a_turn_of_repeats_only_goes_to_the_answer_with_tools_disabled() {
    for plan in [OutputPlan::native(SchemaTarget::Plain), tool_plan()] {
        let answer_turn = eiffel_answer(plan);
        let backend = scripted(
            plan,
            vec![
                calls(&[("count", json!({"q": "Eiffel Tower"}))]),
                calls(&[("count", json!({"q": "Eiffel Tower"}))]),
                answer_turn,
            ],
        );
        let (agent, count) = counter_agent(backend.clone());
        // The budget would allow four more repeats: they are not paid for.
        let run = agent
            .with_budget(Budget {
                max_tool_calls: Some(6),
                ..Budget::default()
            })
            .run("go")
            .await;
        assert_eq!(run.report.outcome.value(), Some(&eiffel()), "{plan:?}");
        assert_eq!(
            run.report.finalized_after,
            Some(ErrorCode::ToolCallsRepeated)
        );
        assert!(
            !run.report.repair_used,
            "the finalize turn is not the repair"
        );
        assert_eq!(count.load(Ordering::SeqCst), 1, "the repeat did not run");
        let records = &run.report.tool_calls;
        assert_eq!(records.len(), 2);
        assert!(records[1].repeated);
        let requests = backend.requests();
        assert_eq!(requests.len(), 3);
        let finalize = &requests[2];
        let answer_tool = answer_tool_of(plan);
        assert_eq!(names(finalize), answer_tool.into_iter().collect::<Vec<_>>());
        assert_eq!(
            last_user(finalize),
            finalize_message(ErrorCode::ToolCallsRepeated, answer_tool)
        );
        // The repeat got its notice before the finalize message.
        let messages = &finalize.conversation.messages;
        assert!(matches!(
            &messages[messages.len() - 2],
            Message::ToolResults { results } if results[0].content == REPEATED_CALL_RESULT
        ));
    }
    assert_eq!(
        finalize_message(ErrorCode::ToolCallsRepeated, Some("final_answer")),
        "No more tools can be called: your last calls repeated earlier ones, whose results are \
         above. Give your final answer now, from what the tool results above show, by calling \
         final_answer."
    );
}

#[tokio::test]
async fn repeats_within_one_batch_run_once() {
    let backend = scripted(
        OutputPlan::native(SchemaTarget::Plain),
        vec![
            calls(&[
                ("count", json!({"q": "a"})),
                ("count", json!({"q": "a"})),
                ("count", json!({"q": "b"})),
            ]),
            answer(&eiffel()),
        ],
    );
    let (agent, count) = counter_agent(backend.clone());
    let run = agent.run("go").await;
    assert!(run.report.is_ok());
    assert_eq!(count.load(Ordering::SeqCst), 2);
    let results = last_results(&backend.requests()[1]);
    // The twin gets the one result of the call it repeats (issue 52), not
    // the notice an earlier turn's repeat gets.
    assert_eq!(results, ["counted", "counted", "counted"]);
}

#[tokio::test]
async fn the_finalize_turn_says_tools_are_spent_and_asks_for_the_answer() {
    for (plan, tools, choice) in [
        (
            OutputPlan::native(SchemaTarget::Plain),
            vec![],
            ToolChoice::Auto,
        ),
        (tool_plan(), vec![ANSWER_TOOL], ToolChoice::Required),
    ] {
        let answer_turn = eiffel_answer(plan);
        let backend = scripted(
            plan,
            vec![
                calls(&[("count", json!({"q": "a"}))]),
                calls(&[("count", json!({"q": "b"}))]),
                answer_turn,
            ],
        );
        let (agent, count) = counter_agent(backend.clone());
        let run = agent
            .with_budget(Budget {
                max_tool_calls: Some(1),
                on_budget: OnBudget::Finalize,
                ..Budget::default()
            })
            .run("go")
            .await;
        assert_eq!(run.report.outcome.value(), Some(&eiffel()), "{plan:?}");
        assert_eq!(
            run.report.finalized_after,
            Some(ErrorCode::MaxToolCallsExceeded)
        );
        assert_eq!(count.load(Ordering::SeqCst), 1);
        let finalize = &backend.requests()[2];
        assert_eq!(names(finalize), tools, "{plan:?}");
        assert_eq!(finalize.tool_choice, choice);
        let answer_tool = answer_tool_of(plan);
        assert_eq!(
            last_user(finalize),
            finalize_message(ErrorCode::MaxToolCallsExceeded, answer_tool)
        );
    }
    assert_eq!(
        finalize_message(ErrorCode::MaxToolCallsExceeded, None),
        "No more tools can be called: the tool-call budget is spent. Give your final answer now, \
         from what the tool results above show, as one JSON object matching the required schema, \
         and nothing else."
    );
    assert_eq!(
        finalize_message(ErrorCode::MaxTurnsExceeded, Some("final_answer")),
        "No more tools can be called: the turn budget is spent. Give your final answer now, \
         from what the tool results above show, by calling final_answer."
    );
}

#[tokio::test]
async fn a_tool_call_on_a_tools_disabled_turn_gets_a_result_before_the_repair() {
    // The repair offers no tools; a model that calls one anyway gets a result,
    // so the request after it is well-formed.
    let backend = scripted(
        OutputPlan::native(SchemaTarget::Plain),
        vec![text("no json here"), calls(&[("count", json!({"q": "a"}))])],
    );
    let (agent, count) = counter_agent(backend.clone());
    let run = agent.run("go").await;
    assert_eq!(run.report.outcome.error_code(), Some(ErrorCode::NoJson));
    assert_eq!(count.load(Ordering::SeqCst), 0);
    match run.conversation.messages.last() {
        Some(Message::ToolResults { results }) => {
            assert_eq!(
                results[0].content,
                "not executed: tools are disabled on this turn"
            )
        }
        other => panic!("{other:?}"),
    }
}

#[test]
fn the_tool_strategy_needs_an_object_answer() {
    let schema = tribunal_runtime::OutputSchema::new("n", json!({"type": "integer"})).unwrap();
    let backend: Arc<dyn Backend> = scripted(tool_plan(), vec![]);
    let err = tribunal_runtime::Agent::new(backend, Arc::new(schema)).unwrap_err();
    assert!(
        err.message
            .contains("needs an answer whose wire schema is an object"),
        "{err}"
    );
}

#[tokio::test]
async fn a_tool_can_be_required_before_the_first_answer() {
    for plan in [tool_plan(), OutputPlan::native(SchemaTarget::Plain)] {
        let answer_turn = eiffel_answer(plan);
        let backend = scripted(
            plan,
            vec![calls(&[("count", json!({"q": "a"}))]), answer_turn],
        );
        let (agent, count) = counter_agent(backend.clone());
        let run = agent.with_tool_required_first(true).run("go").await;
        assert_eq!(run.report.outcome.value(), Some(&eiffel()));
        assert_eq!(count.load(Ordering::SeqCst), 1);
        let requests = backend.requests();
        // First: only the user's tools, and a call is required.
        assert_eq!(names(&requests[0]), ["count"], "{plan:?}");
        assert_eq!(requests[0].tool_choice, ToolChoice::Required);
        // After a tool ran: the model decides, the answer tool is back.
        assert_eq!(requests[1].tool_choice, ToolChoice::Auto);
        let expected: &[&str] = match plan.strategy {
            tribunal_runtime::OutputStrategy::Tool => &[ANSWER_TOOL, "count"],
            _ => &["count"],
        };
        assert_eq!(names(&requests[1]), expected);
    }
}

#[tokio::test]
async fn text_before_the_required_first_tool_call_is_no_answer_and_no_repair() {
    let backend = scripted(
        tool_plan(),
        vec![
            // The server did not enforce the requirement: text, even a valid record.
            answer(&eiffel()),
            calls(&[("count", json!({"q": "Eiffel"}))]),
            answer_call(&eiffel()),
        ],
    );
    let (agent, count) = counter_agent(backend.clone());
    let run = agent.with_tool_required_first(true).run("go").await;
    assert_eq!(run.report.outcome.value(), Some(&eiffel()));
    assert!(!run.report.repair_used, "the nudge is not the repair");
    assert_eq!(count.load(Ordering::SeqCst), 1);
    assert_eq!(run.report.turns, 3);
    let requests = backend.requests();
    assert_eq!(
        last_user(&requests[1]),
        tribunal_runtime::internal::nudge::tool_first_message(&requests[1].tools)
    );
    assert!(last_user(&requests[1]).contains("the tool offered is count"));
    assert_eq!(requests[1].tool_choice, ToolChoice::Required);
    assert_eq!(names(&requests[1]), ["count"]);
    // Bounded by max_turns: a model that never calls a tool ends the run.
    let backend = scripted(
        tool_plan(),
        vec![text("hello"), text("hello"), text("hello")],
    );
    let (agent, _) = counter_agent(backend.clone());
    let run = agent
        .with_tool_required_first(true)
        .with_budget(Budget {
            max_turns: 2,
            ..Budget::default()
        })
        .run("go")
        .await;
    assert_eq!(
        run.report.outcome.error_code(),
        Some(ErrorCode::MaxTurnsExceeded)
    );
    assert_eq!(backend.requests().len(), 2);
}

#[tokio::test]
async fn turns_without_progress_end_the_run_before_its_deadline() {
    // Seen on llama.cpp: prose, then after each nudge "I do not have a
    // specific tool to call first" and newlines, until the deadline.
    let backend = scripted(
        tool_plan(),
        vec![
            text("RED: looks wrong"),
            text("\n\n\n"),
            text("\n\n\n"),
            text("never asked"),
        ],
    );
    let (agent, count) = counter_agent(backend.clone());
    let run = agent.with_tool_required_first(true).run("go").await;
    assert_eq!(run.report.outcome.error_code(), Some(ErrorCode::NoProgress));
    assert_eq!(run.report.turns, 3, "the default is 3 idle turns");
    assert_eq!(count.load(Ordering::SeqCst), 0);
    assert_eq!(backend.requests().len(), 3);
    // One idle turn allowed: the first text ends the run.
    let backend = scripted(tool_plan(), vec![text("hello"), text("hello")]);
    let (agent, _) = counter_agent(backend.clone());
    let run = agent
        .with_tool_required_first(true)
        .with_budget(Budget {
            max_idle_turns: 1,
            ..Budget::default()
        })
        .run("go")
        .await;
    assert_eq!(run.report.outcome.error_code(), Some(ErrorCode::NoProgress));
    assert_eq!(backend.requests().len(), 1);
}

#[tokio::test]
async fn a_complete_answer_call_in_a_turn_cut_by_the_token_limit_is_accepted() {
    // Seen on llama.cpp: two answer calls in one turn, the first complete,
    // the second cut off by the output-token limit.
    let turn = ModelTurn {
        tool_calls: vec![
            ToolCall {
                id: "a".into(),
                name: ANSWER_TOOL.into(),
                arguments: eiffel().to_string(),
            },
            ToolCall {
                id: "b".into(),
                name: ANSWER_TOOL.into(),
                arguments: "{\"name\": \"Eiffel".into(),
            },
        ],
        stop: StopReason::Length,
        ..Default::default()
    };
    let backend = scripted(tool_plan(), vec![turn]);
    let (agent, _) = counter_agent(backend);
    let run = agent.run("go").await;
    assert_eq!(run.report.outcome.value(), Some(&eiffel()));
    assert!(!run.report.repair_used);
    // Cut inside the only call: truncated, and the one repair.
    let cut = ModelTurn {
        tool_calls: vec![ToolCall {
            id: "a".into(),
            name: ANSWER_TOOL.into(),
            arguments: "{\"name\": \"Eiffel Tower\", \"year\": 18".into(),
        }],
        stop: StopReason::Length,
        ..Default::default()
    };
    let backend = scripted(tool_plan(), vec![cut.clone(), cut]);
    let (agent, _) = counter_agent(backend);
    let run = agent.run("go").await;
    assert_eq!(run.report.outcome.error_code(), Some(ErrorCode::Truncated));
    assert!(run.report.repair_used);
}

/// Issue #62 point 1: a text answer (`ExtractionMode::Text`) travels as
/// text under every strategy: no answer tool, no schema in the request or
/// the system prompt; the trimmed reply is the answer, a JSON string.
#[tokio::test]
async fn a_text_answer_asks_for_no_json_under_any_strategy() {
    for plan in [
        OutputPlan::native(SchemaTarget::Plain),
        tool_plan(),
        OutputPlan::prompt(),
    ] {
        let backend = scripted(plan, vec![text("  The Eiffel Tower, 1889. ")]);
        let any = tribunal_runtime::OutputSchema::new("answer", json!({})).unwrap();
        let run =
            tribunal_runtime::Agent::for_text(backend.clone() as Arc<dyn Backend>, Arc::new(any))
                .unwrap()
                .run("go")
                .await;
        assert_eq!(
            run.report.outcome.value(),
            Some(&json!("The Eiffel Tower, 1889.")),
            "{plan:?}"
        );
        let request = &backend.requests()[0];
        assert_eq!(request.output, OutputFormat::Text, "{plan:?}");
        assert!(request.tools.is_empty(), "{plan:?}");
        let system = request.conversation.system.clone().unwrap_or_default();
        assert!(!system.contains("JSON"), "{plan:?}: {system}");
    }
}
