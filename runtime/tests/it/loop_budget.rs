//! Client-side budgets: tool calls at their exact boundary, tokens at their
//! boundary, turns, the deadline (paused clock), and the finalize policy.

use serde_json::json;
use std::sync::Arc;
use std::sync::atomic::Ordering;
use std::time::Duration;
use tribunal_runtime::ScriptedBackend;
use tribunal_runtime::{Agent, Backend, Budget, ErrorCode, OnBudget, Run, ToolBox};
use tribunal_testkit::agents::*;

/// Runs the landmark agent on `backend` with one `count` tool within
/// `budget`: the run, and how many times the tool ran.
async fn run_counted(backend: Arc<ScriptedBackend>, budget: Budget) -> (Run, usize) {
    let (tool, count) = Counter::new("count");
    let run = agent(backend)
        .with_tools(ToolBox::new().with(tool))
        .with_budget(budget)
        .run("go")
        .await;
    (run, count.load(Ordering::SeqCst))
}

fn budget() -> Budget {
    Budget::default()
}

#[tokio::test]
async fn max_tool_calls_exact_boundary_runs_the_batch() {
    let backend = script(vec![
        calls(&[("count", json!({"q": "a"})), ("count", json!({"q": "b"}))]),
        answer(&eiffel()),
    ]);
    let (run, count) = run_counted(
        backend,
        Budget {
            max_tool_calls: Some(2),
            ..budget()
        },
    )
    .await;
    assert!(run.report.is_ok());
    assert_eq!(count, 2);
}

/// A turn asking for one call more than the budget has left runs the
/// calls that fit, in order, refuses the last, and the run ends there.
#[tokio::test]
async fn max_tool_calls_over_by_one_runs_what_fits_and_refuses_the_rest() {
    let backend = script(vec![
        calls(&[("count", json!({"q": "a"}))]),
        calls(&[("count", json!({"q": "b"})), ("count", json!({"q": "c"}))]),
        answer(&eiffel()),
    ]);
    let (run, count) = run_counted(
        backend.clone(),
        Budget {
            max_tool_calls: Some(2),
            ..budget()
        },
    )
    .await;
    assert_eq!(
        run.report.outcome.error_code(),
        Some(ErrorCode::MaxToolCallsExceeded)
    );
    assert_eq!(count, 2, "the call that fit ran, the other did not");
    assert_eq!(backend.requests().len(), 2);
}

#[tokio::test]
async fn finalize_policy_asks_once_without_tools() {
    let backend = script(vec![
        calls(&[
            ("count", json!({"q": "a"})),
            ("count", json!({"q": "b"})),
            ("count", json!({"q": "c"})),
        ]),
        answer(&eiffel()),
    ]);
    let (run, count) = run_counted(
        backend.clone(),
        Budget {
            max_tool_calls: Some(2),
            on_budget: OnBudget::Finalize,
            ..budget()
        },
    )
    .await;
    assert!(run.report.is_ok(), "{:?}", run.report.outcome);
    assert_eq!(
        run.report.finalized_after,
        Some(ErrorCode::MaxToolCallsExceeded)
    );
    assert_eq!(count, 2, "the two calls that fit ran");
    let requests = backend.requests();
    assert!(requests[1].tools.is_empty());
}

#[tokio::test]
async fn max_tokens_boundary() {
    let at_limit = script(vec![
        with_usage(calls(&[("count", json!({}))]), 40, 10),
        with_usage(answer(&eiffel()), 40, 10),
    ]);
    let (tool, _) = Counter::new("count");
    let tools = Arc::new(ToolBox::new().with(tool));
    let limited = |b| {
        agent(b).with_tools(tools.clone()).with_budget(Budget {
            max_tokens: Some(100),
            ..budget()
        })
    };
    let run = limited(at_limit).run("go").await;
    assert!(run.report.is_ok());
    assert_eq!(run.report.usage.total(), 100);

    let over = script(vec![
        with_usage(calls(&[("count", json!({}))]), 90, 11),
        answer(&eiffel()),
    ]);
    let (run, count) = run_counted(
        over.clone(),
        Budget {
            max_tokens: Some(100),
            ..budget()
        },
    )
    .await;
    assert_eq!(
        run.report.outcome.error_code(),
        Some(ErrorCode::MaxTokensExceeded)
    );
    assert_eq!(count, 0, "no tool runs after the budget is exceeded");
    assert_eq!(over.requests().len(), 1);
    assert_eq!(run.report.usage.total(), 101);
}

#[tokio::test]
async fn repair_tokens_count_toward_the_budget() {
    let backend = script(vec![
        with_usage(text("no json here"), 50, 10),
        with_usage(answer(&eiffel()), 50, 10),
    ]);
    let run = agent(backend)
        .with_budget(Budget {
            max_tokens: Some(110),
            ..budget()
        })
        .run("go")
        .await;
    assert_eq!(
        run.report.outcome.error_code(),
        Some(ErrorCode::MaxTokensExceeded)
    );
    assert_eq!(run.report.usage.total(), 120);
}

#[tokio::test]
async fn max_turns() {
    let backend = script(vec![
        calls(&[("count", json!({"n": 1}))]),
        calls(&[("count", json!({"n": 2}))]),
        answer(&eiffel()),
    ]);
    let (run, _) = run_counted(
        backend,
        Budget {
            max_turns: 2,
            ..budget()
        },
    )
    .await;
    assert_eq!(
        run.report.outcome.error_code(),
        Some(ErrorCode::MaxTurnsExceeded)
    );
}

#[tokio::test(start_paused = true)]
async fn deadline_hit_by_a_slow_tool() {
    let backend = script(vec![calls(&[("slow", json!({}))]), answer(&eiffel())]);
    let (slow, _) = Counter::new("slow");
    let slow = Counter {
        sleep: Duration::from_secs(600),
        ..slow
    };
    let mut tools = ToolBox::new().with(slow);
    tools.default_timeout = Duration::from_secs(3600);
    let started = tokio::time::Instant::now();
    let run = agent(backend)
        .with_tools(tools)
        .with_budget(Budget {
            deadline: Some(Duration::from_secs(30)),
            ..budget()
        })
        .run("go")
        .await;
    assert_eq!(
        run.report.outcome.error_code(),
        Some(ErrorCode::DeadlineExceeded)
    );
    assert_eq!(started.elapsed(), Duration::from_secs(30));
}

#[tokio::test(start_paused = true)]
async fn deadline_hit_by_a_slow_repair() {
    let backend = Arc::new(SlowOnCall::new(
        script(vec![text("not json"), answer(&eiffel())]),
        2,
        Duration::from_secs(120),
    ));
    let started = tokio::time::Instant::now();
    let run = Agent::new(backend as Arc<dyn Backend>, Arc::new(landmark_schema()))
        .unwrap()
        .with_budget(Budget {
            deadline: Some(Duration::from_secs(60)),
            ..budget()
        })
        .run("go")
        .await;
    assert_eq!(
        run.report.outcome.error_code(),
        Some(ErrorCode::DeadlineExceeded)
    );
    assert!(run.report.repair_used);
    assert_eq!(started.elapsed(), Duration::from_secs(60));
}

/// $1 per million input tokens, $10 per million output, cache reads $0.10.
fn price() -> tribunal_runtime::ModelPrice {
    tribunal_runtime::ModelPrice {
        input: 1.0,
        output: 10.0,
        cache_read: Some(0.1),
        cache_write: None,
    }
}

fn cost_limit(max_usd: f64) -> Budget {
    Budget {
        max_cost: Some(tribunal_runtime::CostLimit {
            max_usd,
            price: price(),
        }),
        ..budget()
    }
}

#[tokio::test]
async fn max_cost_at_its_boundary_runs_on_and_over_it_stops_before_the_tools() {
    // Each turn: 100 input, 10 output → 100·1 + 10·10 = 200 per million.
    let turns = || {
        script(vec![
            with_usage(calls(&[("count", json!({}))]), 100, 10),
            with_usage(answer(&eiffel()), 100, 10),
        ])
    };
    let (run, count) = run_counted(turns(), cost_limit(400e-6)).await;
    assert!(
        run.report.is_ok(),
        "exactly at the limit: {:?}",
        run.report.outcome
    );
    assert_eq!(count, 1);

    let backend = turns();
    let (run, count) = run_counted(backend.clone(), cost_limit(199e-6)).await;
    assert_eq!(
        run.report.outcome.error_code(),
        Some(ErrorCode::MaxCostExceeded)
    );
    assert_eq!(count, 0, "no tool after the budget is spent");
    assert_eq!(
        backend.requests().len(),
        1,
        "no request after the budget is spent"
    );
}

#[tokio::test]
async fn cached_tokens_are_spent_at_the_cache_price_and_the_repair_counts() {
    // 1,000 input of which 900 cached: 100·1 + 900·0.1 + 0 output = 190 per
    // million; the repair turn spends the same again.
    let cached = |turn: tribunal_runtime::ModelTurn| {
        let mut turn = with_usage(turn, 1000, 0);
        turn.usage.cache_read_tokens = 900;
        turn
    };
    let run = agent(script(vec![
        cached(text("no json here")),
        cached(answer(&eiffel())),
    ]))
    .with_budget(cost_limit(380e-6))
    .run("go")
    .await;
    assert!(run.report.is_ok(), "{:?}", run.report.outcome);
    assert!(run.report.repair_used);
    let run = agent(script(vec![
        cached(text("no json here")),
        cached(answer(&eiffel())),
    ]))
    .with_budget(cost_limit(379e-6))
    .run("go")
    .await;
    assert_eq!(
        run.report.outcome.error_code(),
        Some(ErrorCode::MaxCostExceeded)
    );
}
