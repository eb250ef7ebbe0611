//! The rerun cache: a second pass answers from the file without asking the
//! model; identical requests keep distinct samples; errors and calls cut by
//! the deadline are never cached;
//! a file of another model is refused; each run counts its own hits.

use serde_json::{Value, json};
use std::sync::Arc;
use tribunal_runtime::internal::backend::{
    BackendErrorKind, CacheCounts, Cached, ScriptedBackend, counted,
};
use tribunal_runtime::{Agent, Backend};
use tribunal_testkit::agents::{answer, eiffel, landmark_schema};

fn named(name: &str) -> Value {
    let mut v = eiffel();
    v["name"] = json!(name);
    v
}

fn agent(backend: Arc<dyn Backend>) -> Agent {
    Agent::new(backend, Arc::new(landmark_schema())).unwrap()
}

async fn names(backend: Arc<dyn Backend>, runs: usize) -> Vec<String> {
    let agent = agent(backend);
    let mut out = Vec::new();
    for _ in 0..runs {
        let run = agent.run("Eiffel Tower?").await;
        out.push(match run.report.outcome.value() {
            Some(v) => v["name"].as_str().unwrap_or("?").to_string(),
            None => format!("{:?}", run.report.outcome.error_code()),
        });
    }
    out
}

#[tokio::test]
async fn a_second_pass_asks_no_model_and_repeats_keep_distinct_samples() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("cache/openai.jsonl");
    let model = Arc::new(ScriptedBackend::from_turns(
        ["A", "B", "C"].map(|n| answer(&named(n))),
    ));
    let cached = Arc::new(Cached::open(model.clone(), &file).unwrap());
    // Three runs of the same input: the same first request three times.
    assert_eq!(names(cached.clone(), 3).await, ["A", "B", "C"]);
    assert_eq!(model.requests().len(), 3);
    assert_eq!(cached.counts(), CacheCounts { hits: 0, misses: 3 });

    // A new process: a model that would fail if asked.
    let silent = Arc::new(ScriptedBackend::from_turns([]));
    let again = Arc::new(Cached::open(silent.clone(), &file).unwrap());
    assert_eq!(
        names(again.clone(), 3).await,
        ["A", "B", "C"],
        "the same samples, in order"
    );
    assert!(silent.requests().is_empty(), "no request reached the model");
    assert_eq!(again.counts(), CacheCounts { hits: 3, misses: 0 });

    // A fourth sample is not in the cache: it goes to the model and is kept.
    let more = Arc::new(ScriptedBackend::from_turns([answer(&named("D"))]));
    let third = Arc::new(Cached::open(more.clone(), &file).unwrap());
    assert_eq!(names(third.clone(), 4).await, ["A", "B", "C", "D"]);
    assert_eq!(third.counts(), CacheCounts { hits: 3, misses: 1 });
    let lines = std::fs::read_to_string(&file).unwrap().lines().count();
    assert_eq!(lines, 1 + 4, "the header and four exchanges");
}

#[tokio::test]
async fn errors_are_never_cached() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("c.jsonl");
    // An empty script fails every request.
    let failing = Arc::new(Cached::open(Arc::new(ScriptedBackend::from_turns([])), &file).unwrap());
    assert_eq!(names(failing, 1).await, ["Some(BackendError)"]);
    assert_eq!(
        std::fs::read_to_string(&file).unwrap().lines().count(),
        1,
        "only the header"
    );
    let working = Arc::new(ScriptedBackend::from_turns([answer(&named("A"))]));
    let cached = Arc::new(Cached::open(working.clone(), &file).unwrap());
    assert_eq!(names(cached, 1).await, ["A"]);
    assert_eq!(
        working.requests().len(),
        1,
        "the failed request was asked again"
    );
}

#[tokio::test]
async fn a_cache_of_another_model_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("c.jsonl");
    let first = ScriptedBackend::from_turns([]).with_model("m1");
    drop(Cached::open(first, &file).unwrap());
    let err = Cached::open(ScriptedBackend::from_turns([]).with_model("m2"), &file)
        .expect_err("another model");
    assert_eq!(err.kind, BackendErrorKind::Config);
    assert!(
        err.message
            .contains("holds answers of mock / m1, not mock / m2"),
        "{}",
        err.message
    );
    // A corrupt file is a config error naming it, never read as empty.
    std::fs::write(&file, "not a cassette\n").unwrap();
    let err = Cached::open(ScriptedBackend::from_turns([]), &file).expect_err("corrupt");
    assert!(err.message.contains("c.jsonl"), "{}", err.message);
}

#[tokio::test]
async fn each_run_counts_its_own_hits_and_misses() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("c.jsonl");
    let model = Arc::new(ScriptedBackend::from_turns([answer(&named("A"))]));
    let cached: Arc<dyn Backend> = Arc::new(Cached::open(model, &file).unwrap());
    let a = agent(cached.clone());
    let (_, first) = counted(a.run("Eiffel Tower?")).await;
    assert_eq!(first, CacheCounts { hits: 0, misses: 1 });
    // Two runs at once on a fresh cache over the same file: one hit (the
    // recorded answer) and one miss (the model has nothing more), each
    // counted in its own run.
    let cached: Arc<dyn Backend> =
        Arc::new(Cached::open(Arc::new(ScriptedBackend::from_turns([])), &file).unwrap());
    let a = agent(cached);
    let ((_, x), (_, y)) = tokio::join!(
        counted(a.run("Eiffel Tower?")),
        counted(a.run("Eiffel Tower?"))
    );
    let mut both = [x, y];
    both.sort_by_key(|c| c.hits);
    assert_eq!(
        both,
        [
            CacheCounts { hits: 0, misses: 1 },
            CacheCounts { hits: 1, misses: 0 }
        ]
    );
    // Outside `counted` nothing is attributed (and nothing fails).
    let (_, none) = counted(async {}).await;
    assert_eq!(none, CacheCounts::default());
}

#[tokio::test]
async fn a_torn_last_line_is_cut_off_and_the_rest_kept() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("c.jsonl");
    let model = Arc::new(ScriptedBackend::from_turns(
        ["A", "B"].map(|n| answer(&named(n))),
    ));
    let cached = Arc::new(Cached::open(model, &file).unwrap());
    assert_eq!(names(cached, 2).await, ["A", "B"]);
    // A run killed while writing a third answer leaves half a line.
    let mut text = std::fs::read_to_string(&file).unwrap();
    let whole = text.len();
    text.push_str(r#"{"type":"exchange","key":"ab"#);
    std::fs::write(&file, &text).unwrap();
    let silent = Arc::new(ScriptedBackend::from_turns([]));
    let again = Arc::new(Cached::open(silent.clone(), &file).unwrap());
    assert_eq!(std::fs::metadata(&file).unwrap().len() as usize, whole);
    assert_eq!(
        names(again, 2).await,
        ["A", "B"],
        "the whole lines still answer"
    );
    assert!(silent.requests().is_empty());
    // Only a torn header: the file starts over.
    std::fs::write(&file, r#"{"type":"hea"#).unwrap();
    let fresh = Arc::new(ScriptedBackend::from_turns([answer(&named("C"))]));
    let cached = Arc::new(Cached::open(fresh, &file).unwrap());
    assert_eq!(names(cached, 1).await, ["C"]);
    assert!(
        std::fs::read_to_string(&file)
            .unwrap()
            .starts_with(r#"{"type":"header""#)
    );
}

/// A call the run deadline cut is recorded as `cut` by the recording above
/// the cache, but never cached: it holds no answer, and it tells of that
/// run's deadline and the server's speed, not of the request. A rerun asks
/// the model again; a cache file holding a cut entry reads without error.
#[tokio::test(start_paused = true)]
async fn a_call_cut_by_the_deadline_is_not_cached() {
    use std::time::Duration;
    use tribunal_runtime::Recording;
    use tribunal_runtime::{Budget, ErrorCode};
    use tribunal_testkit::agents::SlowOnCall;

    let dir = tempfile::tempdir().unwrap();
    let (file, cassette) = (dir.path().join("cache.jsonl"), dir.path().join("run.jsonl"));
    let slow = SlowOnCall::new(
        Arc::new(ScriptedBackend::from_turns([answer(&eiffel())])),
        1,
        Duration::from_secs(3600),
    );
    let cached = Cached::open(slow, &file).unwrap();
    let recording = Arc::new(Recording::new(cached, &cassette).unwrap());
    let run = agent(recording)
        .with_budget(Budget {
            deadline: Some(Duration::from_secs(60)),
            ..Budget::default()
        })
        .run("Eiffel Tower?")
        .await;
    assert_eq!(
        run.report.outcome.error_code(),
        Some(ErrorCode::DeadlineExceeded)
    );
    let recorded = std::fs::read_to_string(&cassette).unwrap();
    assert!(recorded.contains(r#""outcome":"cut""#), "{recorded}");
    let cache = std::fs::read_to_string(&file).unwrap();
    assert_eq!(cache.lines().count(), 1, "the header alone: {cache}");

    let model = Arc::new(ScriptedBackend::from_turns([answer(&eiffel())]));
    let rerun = Arc::new(Cached::open(model.clone(), &file).unwrap());
    assert_eq!(names(rerun.clone(), 1).await, ["Eiffel Tower"]);
    assert_eq!(rerun.counts(), CacheCounts { hits: 0, misses: 1 });

    // The recorded cassette as a cache: its cut entry is no answer.
    let model = Arc::new(ScriptedBackend::from_turns([answer(&eiffel())]));
    let from_cassette = Arc::new(Cached::open(model.clone(), &cassette).unwrap());
    assert_eq!(names(from_cassette.clone(), 1).await, ["Eiffel Tower"]);
    assert_eq!(model.requests().len(), 1);
}
