//! The embedder's runner: rows into any [`RowSink`], rows made once from a
//! [`Scored`] run, and [`RunPlan`] assembling backends as `tribunal run` does.

use std::sync::Arc;
use std::time::Duration;
use tribunal_judge::internal::run::backends::MockBackends;
use tribunal_judge::{
    Arena, JudgeError, MemorySink, Outcome, ResultRow, RowOrigin, RowSink, RunMode, RunOptions,
    Scored,
};
use tribunal_judge::{Environment, JudgeRoute, PlanError, RunPlan};
use tribunal_runtime::{BackendKind, BackendSettings};
use tribunal_runtime::{ErrorCode, OnRepeat, RunReport};
use tribunal_testkit::arenas::{arena_dir, arenas_dir, item, run_on, run_on_into};

const CHECKS: &str = r#"[{"type": "json_path_equals", "path": "n", "value": 1}]"#;

/// A sink that records each call, to see the runner's writes.
#[derive(Default)]
struct Recorder {
    appends: Vec<Vec<String>>,
    replaced: Option<Vec<String>>,
}

impl RowSink for Recorder {
    fn append(&mut self, rows: &[ResultRow]) -> Result<(), JudgeError> {
        self.appends
            .push(rows.iter().map(|r| r.id.clone()).collect());
        Ok(())
    }

    fn replace_all(&mut self, rows: &[ResultRow]) -> Result<(), JudgeError> {
        self.replaced = Some(rows.iter().map(|r| r.id.clone()).collect());
        Ok(())
    }
}

#[tokio::test]
async fn rows_go_to_the_sink_given_and_no_file_is_written() {
    let dataset = [
        item("a", CHECKS, r#"[{"json": {"n": 1}}]"#),
        item("b", CHECKS, r#"[{"json": {"n": 2}}]"#),
    ]
    .join("\n");
    let dir = arena_dir(&[("dataset.jsonl", &dataset)]);
    let arena = Arc::new(Arena::load(dir.path()).unwrap());
    let mut sink = Recorder::default();
    let options = RunOptions::default().with_concurrency(1);
    let backends = Arc::new(MockBackends::default());
    let result = run_on_into(&arena, backends, &options, &mut sink)
        .await
        .unwrap();
    // One write per finished run here (one in flight), each row once.
    assert_eq!(sink.appends, [vec!["a"], vec!["b"]]);
    assert_eq!(sink.replaced, None);
    assert_eq!(result.rows.len(), 2);
    let files: Vec<_> = std::fs::read_dir(dir.path()).unwrap().collect();
    assert_eq!(files.len(), 1, "only the dataset: {files:?}");
}

#[tokio::test]
async fn a_retried_error_replaces_its_row_in_the_sink() {
    let dataset = [
        item("ok", CHECKS, r#"[{"json": {"n": 1}}]"#),
        item("broken", CHECKS, "[]"),
    ]
    .join("\n");
    let dir = arena_dir(&[("dataset.jsonl", &dataset)]);
    let arena = Arc::new(Arena::load(dir.path()).unwrap());
    let out = dir.path().join("r.jsonl");
    let backends = Arc::new(MockBackends::default());
    let first = run_on(&arena, backends.clone(), &RunOptions::new(&out))
        .await
        .unwrap();
    assert_eq!(first.rows.len(), 2);
    let mut sink = Recorder::default();
    let retry = RunOptions::new(&out).with_mode(RunMode::RetryErrors);
    run_on_into(&arena, backends, &retry, &mut sink)
        .await
        .unwrap();
    assert_eq!(sink.appends, [vec!["broken"]]);
    // One row per key once the retry is in: the kept row and the new one.
    let mut replaced = sink.replaced.unwrap();
    replaced.sort();
    assert_eq!(replaced, ["broken", "ok"]);
}

#[tokio::test]
async fn a_memory_sink_keeps_what_an_in_memory_run_returns() {
    let dir = arena_dir(&[(
        "dataset.jsonl",
        &item("a", CHECKS, r#"[{"json": {"n": 1}}]"#),
    )]);
    let arena = Arc::new(Arena::load(dir.path()).unwrap());
    let mut sink = MemorySink::new();
    let result = run_on_into(
        &arena,
        Arc::new(MockBackends::default()),
        &RunOptions::in_memory(),
        &mut sink,
    )
    .await
    .unwrap();
    assert_eq!(sink.rows(), result.rows.as_slice());
    assert_eq!(sink.into_rows()[0].outcome, Outcome::Pass);
}

#[test]
fn an_error_row_holds_its_code_and_no_answer_or_checks() {
    let origin = RowOrigin::new("arena", ("item", 0, 0), "hash", ("mock", "mock"));
    let mut report = RunReport::failed(ErrorCode::NoJson);
    report.turns = 2;
    let failed = Scored::Failed {
        code: ErrorCode::NoJson,
        backend_failure: None,
        detail: None,
    };
    let row = ResultRow::from_run(origin.clone(), report, failed, None, None);
    assert_eq!(row.outcome, Outcome::Error);
    assert_eq!(row.error_code, Some(ErrorCode::NoJson));
    assert!(row.answer.is_none() && row.checks.is_empty());
    assert_eq!(row.turns, 2);
    let answered = Scored::Answered {
        answer: serde_json::json!({"n": 1}),
        checks: Vec::new(),
    };
    let row = ResultRow::from_run(
        origin,
        RunReport::failed(ErrorCode::NoJson),
        answered,
        None,
        None,
    );
    assert_eq!((row.outcome, row.error_code), (Outcome::Pass, None));
    assert_eq!(row.answer, Some(serde_json::json!({"n": 1})));
}

#[test]
fn a_plan_assembles_the_mock_a_replay_and_refuses_a_judge_without_a_model() {
    let env = Environment::empty();
    let structured = Arena::load(&arenas_dir().join("structured_output")).unwrap();
    let mock = RunPlan::mock().prepare(&structured, &env).unwrap();
    assert!(mock.is_mock() && mock.backends().is_mock());
    // The shipped cassettes replay without a key or a server.
    let code_review = Arena::load(&arenas_dir().join("code_review")).unwrap();
    let replay = RunPlan::live(BackendKind::OpenAiChat, "qwen")
        .with_replay(Some(arenas_dir().join("code_review/cassettes")))
        .prepare(&code_review, &env)
        .unwrap();
    let replay = replay.backends();
    assert!(replay.is_replay() && !replay.is_mock() && !replay.is_custom_endpoint());
    assert_eq!((replay.name(), replay.model()), ("openai-chat", "qwen"));
    // A rubric arena on a live model with a judge that has no model.
    let mut rubric = Arena::load(&arenas_dir().join("rubric_judge")).unwrap();
    rubric.judge.model = None;
    // (A local server needs no key; nothing is sent.)
    let live = RunPlan::live(BackendKind::OpenAiChat, "qwen")
        .with_base_url(Some("http://127.0.0.1:9/v1".into()));
    let refused = live.prepare(&rubric, &env).map(|_| ());
    assert!(
        matches!(refused, Err(PlanError::NoJudgeModel { .. })),
        "{refused:?}"
    );
    // The mock judge cannot grade a live run.
    let mock_judge = live.clone().with_judge(JudgeRoute::Mock);
    assert!(matches!(
        mock_judge.prepare(&rubric, &env).map(|_| ()),
        Err(PlanError::NoLiveJudge)
    ));
    // A live judge on a mock run grades the mock answers.
    let graded = RunPlan::mock()
        .with_judge(JudgeRoute::Live(BackendKind::OpenAiChat))
        .with_judge_model(Some("qwen".into()))
        .with_replay(Some(arenas_dir().join("rubric_judge/cassettes")));
    // The route answers before a plan exists (the CLI asks it so).
    assert!(JudgeRoute::Live(BackendKind::OpenAiChat).live_judge_on_mock(&rubric));
    assert!(!JudgeRoute::Mock.live_judge_on_mock(&rubric));
    assert!(!JudgeRoute::FromArena.live_judge_on_mock(&rubric));
    let prepared = graded.prepare(&rubric, &env).unwrap();
    let backends = prepared.backends();
    assert!(backends.is_mock());
    assert_eq!(
        backends.judge_name(),
        Some(("openai-chat".to_string(), "qwen".to_string()))
    );
    // The judge's model is laid over the prepared arena, not the loaded one.
    assert_eq!(prepared.arena().judge.model.as_deref(), Some("qwen"));
    assert_eq!(rubric.judge.model, None);
}

/// What the flags change of an arena lands in the prepared run's arena;
/// the loaded one stays as it was loaded.
#[test]
fn prepare_changes_a_copy_of_the_arena_never_the_loaded_one() {
    let env = Environment::empty();
    let loaded = Arena::load(&arenas_dir().join("structured_output")).unwrap();
    let before = format!("{loaded:?}");
    let ids: Vec<String> = loaded.items.iter().map(|i| i.id.clone()).collect();
    let prepared = RunPlan::mock()
        .with_items(vec![ids[2].clone(), ids[0].clone(), ids[1].clone()])
        .with_limit(Some(2))
        .with_deadline(Some(Duration::from_secs(7)))
        .with_on_repeat(Some(OnRepeat::Notice))
        .with_backend(BackendSettings {
            temperature: Some(0.25),
            ..BackendSettings::default()
        })
        .prepare(&loaded, &env)
        .unwrap();
    let arena = prepared.arena();
    // Dataset order, then the limit.
    let kept: Vec<&str> = arena.items.iter().map(|i| i.id.as_str()).collect();
    assert_eq!(kept, [ids[0].as_str(), ids[1].as_str()]);
    assert_eq!(arena.budget.deadline, Some(Duration::from_secs(7)));
    assert_eq!(arena.budget.on_repeat, OnRepeat::Notice);
    assert_eq!(arena.backend.temperature, Some(0.25));
    assert_eq!(format!("{loaded:?}"), before, "the loaded arena changed");
    // An id the arena lacks is named, with the ids it has.
    let unknown = RunPlan::mock()
        .with_items(vec!["atlantis".into()])
        .prepare(&loaded, &env);
    match unknown {
        Err(PlanError::UnknownItem { id, count, first }) => {
            assert_eq!((id.as_str(), count), ("atlantis", ids.len()));
            assert_eq!(first.len(), ids.len().min(5));
        }
        other => panic!("{other:?}"),
    }
}

/// Backends of the caller's own enter through the plan, which then
/// connects nothing: a model, cassettes, a cache or a batch API beside
/// them is refused, not silently dropped.
#[test]
fn a_plan_with_its_own_backends_refuses_what_only_connected_backends_have() {
    let dir = arena_dir(&[(
        "dataset.jsonl",
        &item("a", CHECKS, r#"[{"json": {"n": 1}}]"#),
    )]);
    let arena = Arena::load(dir.path()).unwrap();
    let own = || RunPlan::mock().with_backends(Arc::new(MockBackends::default()));
    let env = Environment::empty();
    assert!(own().prepare(&arena, &env).is_ok());
    for plan in [
        own().with_replay(Some(dir.path().into())),
        own().with_record(Some(dir.path().into())),
        own().with_cache(Some(dir.path().into())),
        own().with_batch(Some(std::time::Duration::from_secs(1))),
    ] {
        let refused = plan.prepare(&arena, &env).err();
        assert!(
            matches!(refused, Some(PlanError::OwnBackends)),
            "{refused:?}"
        );
    }
}
