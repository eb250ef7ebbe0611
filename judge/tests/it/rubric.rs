//! `rubric` checks: a judge model grades the answer. Scripted judges pass,
//! fail and break; a broken judge makes the item ERROR; the judge's usage
//! and cost are in the row and the report.

use serde_json::json;
use std::sync::Arc;
use tribunal_judge::Pricing;
use tribunal_judge::{Arena, Outcome, Report, SharedBackend, lint_for_mock};
use tribunal_runtime::ErrorCode;
use tribunal_runtime::{ScriptTurn, ScriptedBackend};
use tribunal_testkit::arenas::{arena_dir, mock_run, options, run_on};

/// A judge turn answering `verdict` with `reason`.
fn verdict_turn(verdict: &str, reason: &str) -> serde_json::Value {
    json!({
        "json": {"result": {"verdict": verdict, "verdictFields": {"reason": reason, "score": 0.5}}},
        "usage": {"input_tokens": 300, "output_tokens": 20}
    })
}

/// An item answering `{"city": "Paris"}` with one rubric check.
fn item(id: &str, rubric_extra: serde_json::Value) -> String {
    let mut check = json!({"type": "rubric", "rubric": "Names the capital of France."});
    if let (Some(c), Some(extra)) = (check.as_object_mut(), rubric_extra.as_object()) {
        c.extend(extra.clone());
    }
    json!({
        "id": id,
        "input": "What is the capital of France?",
        "checks": [{"type": "json_valid"}, check],
        "mock": [{"json": {"city": "Paris"}, "usage": {"input_tokens": 100, "output_tokens": 10}}]
    })
    .to_string()
}

#[tokio::test]
async fn scripted_judges_pass_fail_and_error_as_scripted() {
    let dataset = [
        item(
            "green",
            json!({"mock": [verdict_turn("GREEN", "Paris is right.")]}),
        ),
        item(
            "red",
            json!({"mock": [verdict_turn("RED", "It should say Lyon.")]}),
        ),
        item(
            "red_wanted",
            json!({"pass_when": "RED", "mock": [verdict_turn("RED", "Not Lyon.")]}),
        ),
        // Two answers the envelope refuses: the repair is used up, the
        // judgement fails, and the item is ERROR — not FAIL.
        item(
            "broken_judge",
            json!({"mock": [{"text": "I think it is fine."}, {"text": "Fine, really."}]}),
        ),
    ]
    .join("\n");
    let dir = arena_dir(&[("dataset.jsonl", &dataset)]);
    let arena = Arena::load(dir.path()).unwrap();
    // Lint says beforehand what the run shows: the broken judge's script
    // ends with an answer the judge's envelope refuses.
    let problems: Vec<String> = lint_for_mock(dir.path())
        .problems
        .iter()
        .map(|p| p.to_string())
        .collect();
    assert_eq!(
        problems,
        [
            "dataset.jsonl:4:199: checks[1]: rubric: mock[1]: the final answer is refused: no_json: no JSON value was found in the response"
        ]
    );
    let out = dir.path().join("r.jsonl");
    let result = mock_run(&arena, &options(&out)).await;
    let row = |id: &str| result.rows.iter().find(|r| r.id == id).unwrap();

    let green = row("green");
    assert_eq!(green.outcome, Outcome::Pass, "{:?}", green.checks);
    assert_eq!(
        green.checks[1].detail,
        "judge: GREEN, score 0.5 (passes on GREEN): Paris is right."
    );
    let judge = green.judge.as_ref().unwrap();
    assert_eq!(
        (judge.backend.as_str(), judge.model.as_str()),
        ("mock", "scripted")
    );
    assert_eq!(
        (judge.usage.input_tokens, judge.usage.output_tokens),
        (300, 20)
    );
    assert!(!judge.failed);
    // The agent's own usage stays its own.
    assert_eq!(green.usage.input_tokens, 100);

    let red = row("red");
    assert_eq!(red.outcome, Outcome::Fail);
    assert!(!red.checks[1].ok && red.checks[0].ok);
    assert!(
        red.checks[1].detail.starts_with("judge: RED"),
        "{}",
        red.checks[1].detail
    );
    assert_eq!(row("red_wanted").outcome, Outcome::Pass);

    let broken = row("broken_judge");
    assert_eq!(broken.outcome, Outcome::Error);
    assert_eq!(broken.error_code, Some(ErrorCode::NoJson));
    assert!(broken.checks.is_empty() && broken.answer.is_none());
    let judge = broken.judge.as_ref().unwrap();
    assert!(judge.failed, "the row says the judge failed, not the agent");

    // What was written is what was returned: the judge fields round-trip.
    let written = tribunal_judge::read_rows(&out).unwrap().rows;
    assert_eq!(written.len(), 4);
    assert!(written.iter().all(|r| r.judge.is_some()));
}

#[tokio::test]
async fn an_agent_error_is_not_judged() {
    let line = json!({
        "id": "no_answer", "input": "x",
        "checks": [{"type": "rubric", "rubric": "r", "mock": [verdict_turn("GREEN", "ok")]}],
        "mock": [{"text": "no json"}, {"text": "still none"}]
    })
    .to_string();
    let dir = arena_dir(&[("dataset.jsonl", &line)]);
    let arena = Arena::load(dir.path()).unwrap();
    let result = mock_run(&arena, &options(&dir.path().join("r.jsonl"))).await;
    assert_eq!(result.rows[0].outcome, Outcome::Error);
    assert!(result.rows[0].judge.is_none());
}

#[tokio::test]
async fn the_judges_usage_and_cost_are_in_the_row_and_the_report() {
    let dataset = item("priced", json!({}));
    let dir = arena_dir(&[("dataset.jsonl", &dataset)]);
    let arena = Arena::load(dir.path()).unwrap();
    let turns = |t: serde_json::Value| {
        let turns: Vec<ScriptTurn> = serde_json::from_value(t).unwrap();
        ScriptedBackend::shared(ScriptedBackend::steps_of(&turns))
    };
    let agent = turns(
        json!([{"json": {"city": "Paris"}, "usage": {"input_tokens": 1000, "output_tokens": 100}}]),
    )
    .with_model("gpt-5-nano");
    let judge = turns(json!([{
        "json": {"result": {"verdict": "GREEN", "verdictFields": {"reason": "right"}}},
        "usage": {"input_tokens": 2000, "output_tokens": 50}
    }]))
    .with_model("gpt-4.1");
    let backends = SharedBackend::new(Arc::new(agent)).with_judge(Arc::new(judge), false);
    let opts = options(&dir.path().join("r.jsonl"));
    let result = run_on(&arena, Arc::new(backends), &opts).await.unwrap();
    let row = &result.rows[0];
    assert_eq!(row.outcome, Outcome::Pass, "{:?}", row.checks);
    let judge = row.judge.as_ref().unwrap();
    assert_eq!(judge.model, "gpt-4.1");
    assert_eq!(
        (judge.usage.input_tokens, judge.usage.output_tokens),
        (2000, 50)
    );

    // gpt-5-nano: 1000 × $0.05/M + 100 × $0.40/M = $0.00009;
    // gpt-4.1 (the judge): 2000 × $2/M + 50 × $8/M = $0.0044.
    let pricing = Pricing::builtin();
    let report = Report::priced("a", &result.rows, pricing);
    let item = &report.items[0];
    let judge_cost = item.judge_cost_usd.flatten().unwrap();
    assert!((judge_cost - 0.0044).abs() < 1e-12, "{judge_cost}");
    let total = item.cost_usd.unwrap();
    assert!((total - 0.00449).abs() < 1e-12, "{total}");
    assert!((report.cost.total_usd - 0.00449).abs() < 1e-12);
    let json: serde_json::Value = serde_json::from_str(&report.to_json()).unwrap();
    assert_eq!(json["items"][0]["judge"]["model"], "gpt-4.1");
    assert_eq!(json["items"][0]["judge"]["usage"]["input_tokens"], 2000);

    // An unpriced judge makes the run's cost unknown, and names the judge.
    let mut unpriced = result.rows.clone();
    if let Some(j) = unpriced[0].judge.as_mut() {
        j.backend = "openai-chat".to_string();
        j.model = "judge-of-nowhere".to_string();
    }
    let report = Report::priced("a", &unpriced, pricing);
    assert_eq!(report.items[0].cost_usd, None);
    assert_eq!(
        report.cost.unpriced_models,
        vec!["judge-of-nowhere".to_string()]
    );
}

#[test]
fn rubric_checks_and_the_judge_table_are_linted() {
    let lines = [
        json!({"id": "a", "input": "x", "checks": [{"type": "rubric", "rubric": " "}], "mock": [{"json": 1}]}),
        json!({"id": "b", "input": "x", "checks": [{"type": "rubric", "rubric": "r", "mock": [{"tool_calls": [{"name": "search", "arguments": {}}]}]}], "mock": [{"json": 1}]}),
        json!({"id": "c", "input": "x", "checks": [{"type": "rubric", "rubric": "r", "pass_when": "AMBER"}]}),
    ]
    .map(|l| l.to_string())
    .join("\n");
    let toml = "[judge]\nmodel = \"m\"\ndeadline_secs = -1\nbackend = \"ollama\"\n";
    let dir = arena_dir(&[("dataset.jsonl", &lines), ("arena.toml", toml)]);
    let found: Vec<String> = tribunal_judge::lint(dir.path())
        .problems
        .iter()
        .map(|p| p.to_string())
        .collect();
    let expected = [
        "arena.toml: judge: deadline_secs must be a positive number of seconds, got -1",
        "arena.toml: judge: unknown backend \"ollama\"",
        "dataset.jsonl:1:59: checks[0]: rubric: `rubric` is empty",
        "dataset.jsonl:2:70: checks[0]: rubric: mock: the judge is offered no tools",
        "dataset.jsonl:3:33: checks[0]: rubric: unknown value `AMBER`; expected one of `GREEN`, `RED`",
    ];
    assert_eq!(found.len(), expected.len(), "{}", found.join("\n"));
    for (got, want) in found.iter().zip(expected) {
        assert!(
            got.starts_with(want),
            "{got:?} does not start with {want:?}"
        );
    }

    // In mock mode a rubric check needs its judge's turns.
    let line = json!({"id": "a", "input": "x", "checks": [{"type": "rubric", "rubric": "r"}], "mock": [{"json": 1}]}).to_string();
    let dir = arena_dir(&[("dataset.jsonl", &line)]);
    let problems: Vec<String> = lint_for_mock(dir.path())
        .problems
        .iter()
        .map(|p| p.to_string())
        .collect();
    assert_eq!(
        problems,
        [
            "dataset.jsonl:1: item \"a\": checks[0]: rubric: no mock judge turns: run it with a live --backend or add `mock` to the check"
        ]
    );
}

#[test]
fn the_judge_enters_the_config_hash_only_with_rubric_checks() {
    use tribunal_runtime::Backend;
    let plan = ScriptedBackend::from_turns([]).output_plan();
    let hash = |dataset: &str, toml: &str| {
        let dir = arena_dir(&[("dataset.jsonl", dataset), ("arena.toml", toml)]);
        let arena = Arena::load(dir.path()).unwrap();
        tribunal_judge::internal::run::hash::config_hash(&arena, "openai-chat", "m", &plan)
    };
    let rubric = item("a", json!({}));
    let plain =
        tribunal_testkit::arenas::item("a", r#"[{"type": "json_valid"}]"#, r#"[{"json": 1}]"#);
    assert_ne!(
        hash(&rubric, "[judge]\nmodel = \"one\"\n"),
        hash(&rubric, "[judge]\nmodel = \"two\"\n")
    );
    assert_eq!(
        hash(&plain, "[judge]\nmodel = \"one\"\n"),
        hash(&plain, ""),
        "without rubric checks the judge changes nothing"
    );
}

#[tokio::test]
async fn the_rubric_judge_is_calibrated_against_gold_rubric_labels() {
    // Four labelled items; the scripted judge agrees on three and says
    // GREEN where a human said RED on the fourth. One item has no label.
    let labelled = |id: &str, label: &str, says: &str| {
        let mut v: serde_json::Value =
            serde_json::from_str(&item(id, json!({"mock": [verdict_turn(says, "because")]})))
                .unwrap();
        v["gold_rubric"] = json!(label);
        v.to_string()
    };
    let dataset = [
        labelled("a", "GREEN", "GREEN"),
        labelled("b", "RED", "RED"),
        labelled("c", "RED", "RED"),
        labelled("d", "RED", "GREEN"),
        item(
            "unlabelled",
            json!({"mock": [verdict_turn("GREEN", "fine")]}),
        ),
    ]
    .join("\n");
    let dir = arena_dir(&[("dataset.jsonl", &dataset)]);
    let arena = Arena::load(dir.path()).unwrap();
    let gold = arena.gold_rubric();
    assert_eq!(gold.len(), 4);
    let result = mock_run(&arena, &options(&dir.path().join("r.jsonl"))).await;
    let c = tribunal_judge::internal::report::calibration::calibrate_rubric(&gold, &result.rows);
    assert_eq!(
        c.subject,
        tribunal_judge::internal::report::calibration::Subject::Rubric
    );
    // GG 1, RG 1, RR 2: p_o = 3/4; rows G 1/4, R 3/4; columns G 2/4, R 2/4;
    // p_e = 1/8 + 3/8 = 1/2; kappa = (3/4 − 1/2) / (1/2) = 1/2.
    assert_eq!((c.runs, c.runs_without_gold), (4, 0));
    assert!((c.kappa.unwrap().value - 0.5).abs() < 1e-12);
    assert_eq!(c.disagreements.len(), 1);
    assert_eq!(c.disagreements[0].id, "d");
    assert!(c.lines()[0].starts_with("rubric judge vs human labels over 4 run(s)"));

    // A label count that does not match the rubric checks is a problem.
    let mut bad: serde_json::Value = serde_json::from_str(&item("x", json!({}))).unwrap();
    bad["gold_rubric"] = json!(["GREEN", "RED"]);
    let dir = arena_dir(&[("dataset.jsonl", &bad.to_string())]);
    let problems = tribunal_judge::lint(dir.path()).problems;
    assert_eq!(problems.len(), 1, "{problems:?}");
    assert!(
        problems[0]
            .message
            .starts_with("gold_rubric: 2 label(s) for 1 rubric check(s)")
    );
    bad["gold_rubric"] = json!("AMBER");
    let dir = arena_dir(&[("dataset.jsonl", &bad.to_string())]);
    let problems = tribunal_judge::lint(dir.path()).problems;
    assert!(
        problems[0]
            .message
            .starts_with("gold_rubric[0]: expected \"GREEN\" or \"RED\"")
    );
}

#[tokio::test(start_paused = true)]
async fn the_judges_time_is_its_own_beside_the_agents() {
    let line = item("timed", json!({"mock": [verdict_turn("GREEN", "ok")]}));
    let dir = arena_dir(&[("dataset.jsonl", &line)]);
    let arena = Arena::load(dir.path()).unwrap();
    // Each scripted turn takes 50 ms of the paused clock: one agent turn,
    // one judge turn.
    let backends = tribunal_judge::internal::run::backends::MockBackends {
        latency: std::time::Duration::from_millis(50),
    };
    let opts = options(&dir.path().join("r.jsonl"));
    let result = run_on(&arena, Arc::new(backends), &opts).await.unwrap();
    let row = &result.rows[0];
    assert_eq!(row.outcome, Outcome::Pass);
    assert_eq!(row.wall_ms, 50.0);
    assert_eq!(row.judge.as_ref().unwrap().wall_ms, 50.0);
}

/// `[judge] backend` is read into the provider type, and written back as
/// its name where the config hash sees it.
#[test]
fn a_judge_backend_is_a_provider_not_a_string() {
    let line = r#"{"id": "a", "input": "q", "checks": [{"type": "rubric", "rubric": "r"}], "mock": [{"json": {}}]}"#;
    let toml = "[judge]\nmodel = \"m\"\nbackend = \"anthropic\"\n";
    let dir = arena_dir(&[("dataset.jsonl", line), ("arena.toml", toml)]);
    let arena = Arena::load(dir.path()).unwrap();
    assert_eq!(
        arena.judge.backend,
        Some(tribunal_runtime::BackendKind::Anthropic)
    );
    assert_eq!(
        serde_json::to_value(&arena.judge).unwrap(),
        json!({"backend": "anthropic", "model": "m"})
    );
}
