//! The runner: ERROR vs FAIL, repeats and pass^k, shards, resume after a
//! torn write, retry of ERROR rows, a fresh run over an old file, refusing
//! a changed config.

use std::collections::BTreeSet;
use std::sync::Arc;
use tribunal_judge::internal::rows::results::merge_files;
use tribunal_judge::{Arena, JudgeError, Outcome, Report, ReportFormat, RunMode, Shard, read_rows};
use tribunal_runtime::ErrorCode;
use tribunal_runtime::{ScriptTurn, ScriptedBackend};
use tribunal_testkit::arenas::{
    arena_dir, item, mock_run, options, run_on, structured_output, try_mock_run,
};

const CHECKS: &str = r#"[{"type": "json_path_equals", "path": "n", "value": 1}]"#;

fn mixed_arena() -> tempfile::TempDir {
    let dataset = [
        item("pass", CHECKS, r#"[{"json": {"n": 1}}]"#),
        item("fail", CHECKS, r#"[{"json": {"n": 2}}]"#),
        item(
            "error",
            CHECKS,
            r#"[{"text": "no json here"}, {"text": "still no json"}]"#,
        ),
        item("noscript", CHECKS, "[]"),
    ]
    .join("\n");
    arena_dir(&[("dataset.jsonl", &dataset)])
}

#[tokio::test]
async fn error_is_never_a_fail() {
    let dir = mixed_arena();
    let arena = Arena::load(dir.path()).unwrap();
    let result = mock_run(&arena, &options(&dir.path().join("r.jsonl"))).await;
    let by_id = |id: &str| result.rows.iter().find(|r| r.id == id).unwrap();
    assert_eq!(by_id("pass").outcome, Outcome::Pass);
    assert_eq!(by_id("fail").outcome, Outcome::Fail);
    assert_eq!(by_id("fail").checks[0].detail, "n: expected 1, got 2");
    let error = by_id("error");
    assert_eq!(error.outcome, Outcome::Error);
    assert_eq!(error.error_code, Some(ErrorCode::NoJson));
    assert!(error.checks.is_empty() && error.answer.is_none());
    assert_eq!(by_id("noscript").error_code, Some(ErrorCode::BackendError));
    // The model's text never reaches the row.
    let text = std::fs::read_to_string(dir.path().join("r.jsonl")).unwrap();
    assert!(!text.contains("no json here"));
    let report = Report::from_rows(&arena.name, &result.rows);
    assert_eq!(
        (
            report.summary.pass,
            report.summary.fail,
            report.summary.error
        ),
        (1, 1, 2)
    );
    assert!(!report.passed(None));
    assert!(report.passed(Some(0.25)));
    assert!(!report.passed(Some(0.3)));
}

#[tokio::test]
async fn repeats_report_pass_hat_k_and_unstable_items() {
    // A fresh scripted backend per run: the same answer every repeat, so the
    // arena is stable; instability is shown by a hand-made row set.
    let dir = mixed_arena();
    let arena = Arena::load(dir.path()).unwrap();
    let mut opts = options(&dir.path().join("r.jsonl"));
    opts.repeat = 3;
    let result = mock_run(&arena, &opts).await;
    assert_eq!(result.rows.len(), 12);
    let report = Report::from_rows(&arena.name, &result.rows);
    let s = &report.summary;
    assert_eq!((s.repeats, s.items), (3, 4));
    assert_eq!(
        s.per_repeat.iter().map(|r| r.pass).collect::<Vec<_>>(),
        vec![1, 1, 1]
    );
    assert_eq!(s.pass_hat_k, 0.25);
    assert!(s.unstable.is_empty());

    let mut rows = result.rows.clone();
    let flip = rows
        .iter_mut()
        .find(|r| r.id == "pass" && r.repeat == 1)
        .unwrap();
    flip.outcome = Outcome::Fail;
    let s = tribunal_judge::internal::report::summary::summarize(&rows);
    assert_eq!(s.unstable, vec!["pass".to_string()]);
    assert_eq!(s.pass_hat_k, 0.0);
    assert!((s.per_repeat[1].pass_rate - 0.0).abs() < 1e-9);
    let text = Report::from_rows(&arena.name, &rows).render(ReportFormat::Terminal);
    assert!(text.contains("pass^3 0.0%; unstable: pass"), "{text}");
}

#[tokio::test]
async fn shards_partition_the_items_and_merge_back() {
    let arena = structured_output();
    let dir = tempfile::tempdir().unwrap();
    let mut files = Vec::new();
    let mut seen = BTreeSet::new();
    for i in 1..=3 {
        let mut opts = options(&dir.path().join(format!("s{i}.jsonl")));
        opts.shard = Some(format!("{i}/3").parse().unwrap());
        let result = mock_run(&arena, &opts).await;
        for row in &result.rows {
            assert!(seen.insert(row.id.clone()), "{} in two shards", row.id);
        }
        files.extend(opts.out);
    }
    assert_eq!(seen.len(), 15);
    let merged = merge_files(&files).unwrap();
    assert_eq!(merged.len(), 15);
    // Report order is dataset order, whatever the shard.
    let ids: Vec<&str> = merged.iter().map(|r| r.id.as_str()).collect();
    let expected: Vec<&str> = arena.items.iter().map(|i| i.id.as_str()).collect();
    assert_eq!(ids, expected);
    // Stable by id across processes and versions: the shard is a fixed
    // function of the id (the first 8 bytes of its SHA-256, modulo N), so a
    // CI matrix keeps each item on the same shard. Values from Python's
    // hashlib: int.from_bytes(sha256(id)[:8], "big") % 3 + 1.
    for (id, shard) in [
        ("eiffel-tower", 1),
        ("golden-gate-bridge", 1),
        ("cn-tower", 3),
    ] {
        for i in 1..=3 {
            let s: Shard = format!("{i}/3").parse().unwrap();
            assert_eq!(s.contains(id), i == shard, "{id} in {i}/3");
        }
    }
    assert!("0/3".parse::<Shard>().is_err() && "4/3".parse::<Shard>().is_err());
}

#[tokio::test]
async fn resume_discards_a_torn_line_and_runs_each_item_once() {
    let arena = structured_output();
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("r.jsonl");
    mock_run(&arena, &options(&out)).await;
    // Keep 5 complete rows and half of the 6th: a process killed mid-write.
    let text = std::fs::read_to_string(&out).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    let mut cut = lines[..5].join("\n");
    cut.push('\n');
    cut.push_str(&lines[5][..lines[5].len() / 2]);
    std::fs::write(&out, &cut).unwrap();
    let read = read_rows(&out).unwrap();
    assert!(read.torn);
    assert_eq!(read.rows.len(), 5);

    let mut opts = options(&out);
    opts.mode = RunMode::Resume;
    let result = mock_run(&arena, &opts).await;
    assert!(result.torn_discarded);
    assert_eq!((result.skipped, result.executed), (5, 10));
    assert_eq!(result.rows.len(), 15);
    let read = read_rows(&out).unwrap();
    assert!(!read.torn);
    let ids: Vec<String> = read.rows.iter().map(|r| r.id.clone()).collect();
    let unique: BTreeSet<&String> = ids.iter().collect();
    assert_eq!(
        (ids.len(), unique.len()),
        (15, 15),
        "every item exactly once"
    );
}

#[tokio::test]
async fn a_bad_line_before_the_end_is_corruption() {
    let arena = structured_output();
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("r.jsonl");
    mock_run(&arena, &options(&out)).await;
    let text = std::fs::read_to_string(&out).unwrap();
    std::fs::write(&out, format!("{{oops\n{text}")).unwrap();
    assert!(matches!(
        read_rows(&out),
        Err(JudgeError::CorruptResults { line: 1, .. })
    ));
}

/// A last line with its newline was written whole: if it is not a row, the
/// file is damaged (not torn), and nothing is dropped silently — also for
/// input that is hostile rather than torn (100,000-deep nesting, a row of
/// the wrong shape).
#[tokio::test]
async fn a_complete_bad_last_line_is_corruption_not_a_torn_write() {
    let arena = structured_output();
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("r.jsonl");
    mock_run(&arena, &options(&out)).await;
    let text = std::fs::read_to_string(&out).unwrap();
    let deep = format!("{}{}", "[".repeat(100_000), "]".repeat(100_000));
    for bad in ["{oops", r#"{"version": 1, "id": 5}"#, &deep] {
        std::fs::write(&out, format!("{text}{bad}\n")).unwrap();
        match read_rows(&out) {
            Err(JudgeError::CorruptResults { line: 16, .. }) => {}
            other => panic!("{}: {other:?}", &bad[..bad.len().min(20)]),
        }
        // Without its newline the same line is a torn write.
        std::fs::write(&out, format!("{text}{bad}")).unwrap();
        let read = read_rows(&out).unwrap();
        assert!(read.torn);
        assert_eq!(read.rows.len(), 15);
    }
}

#[tokio::test]
async fn resume_refuses_a_changed_config() {
    let arena = structured_output();
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("r.jsonl");
    mock_run(&arena, &options(&out)).await;
    let mut changed = arena.clone();
    changed.system = Some("a different prompt".to_string());
    let mut opts = options(&out);
    opts.mode = RunMode::Resume;
    let err = try_mock_run(&changed, &opts).await.unwrap_err();
    assert!(matches!(err, JudgeError::ConfigMismatch { .. }), "{err}");
}

#[tokio::test]
async fn retry_errors_reruns_only_error_rows_and_replaces_them() {
    let dir = mixed_arena();
    let arena = Arena::load(dir.path()).unwrap();
    let out = dir.path().join("r.jsonl");
    let first = mock_run(&arena, &options(&out)).await;
    // Fix the erroring item's script; the config hash does not include scripts.
    let mut fixed = arena.clone();
    let fixed_script: Vec<ScriptTurn> = serde_json::from_str(r#"[{"json": {"n": 1}}]"#).unwrap();
    let it = fixed.items.iter_mut().find(|i| i.id == "error").unwrap();
    it.mock = Some(ScriptedBackend::steps_of(&fixed_script));
    let mut opts = options(&out);
    opts.mode = RunMode::RetryErrors;
    let result = mock_run(&fixed, &opts).await;
    assert_eq!((result.executed, result.skipped), (2, 2));
    let by_id = |id: &str| result.rows.iter().find(|r| r.id == id).unwrap().clone();
    assert_eq!(by_id("error").outcome, Outcome::Pass);
    assert_eq!(by_id("noscript").outcome, Outcome::Error);
    let unchanged = first.rows.iter().find(|r| r.id == "fail").unwrap();
    assert_eq!(by_id("fail").finished_at_ms, unchanged.finished_at_ms);
    // One row per key on disk after the retry.
    assert_eq!(read_rows(&out).unwrap().rows.len(), 4);
}

#[tokio::test]
async fn a_fresh_run_empties_the_results_file_and_runs_everything() {
    let dir = mixed_arena();
    let arena = Arena::load(dir.path()).unwrap();
    let out = dir.path().join("r.jsonl");
    mock_run(&arena, &options(&out)).await;
    let mut fixed = arena.clone();
    let it = fixed.items.iter_mut().find(|i| i.id == "error").unwrap();
    let script: Vec<ScriptTurn> = serde_json::from_str(r#"[{"json": {"n": 1}}]"#).unwrap();
    it.mock = Some(ScriptedBackend::steps_of(&script));
    let result = mock_run(&fixed, &options(&out)).await;
    assert_eq!((result.executed, result.skipped), (4, 0));
    let rows = read_rows(&out).unwrap().rows;
    assert_eq!(rows.len(), 4, "the old rows are gone");
    let error = rows.iter().find(|r| r.id == "error").unwrap();
    assert_eq!(error.outcome, Outcome::Pass);
}

#[tokio::test]
async fn junit_marks_fail_as_failure_and_error_as_error() {
    let _snapshots = tribunal_testkit::bind_snapshots("judge");
    let dir = mixed_arena();
    let arena = Arena::load(dir.path()).unwrap();
    let result = mock_run(&arena, &options(&dir.path().join("r.jsonl"))).await;
    let xml = Report::from_rows(&arena.name, &result.rows).render(ReportFormat::Junit);
    let name = &arena.name;
    let normalised = regex::Regex::new(r#"time="[0-9.]+""#)
        .unwrap()
        .replace_all(&xml, r#"time="[s]""#)
        .replace(&result.rows[0].config_hash, "[hash]")
        .replace(name.as_str(), "[arena]");
    insta::assert_snapshot!("junit_mixed", normalised);
    assert_eq!(xml.matches("<testcase ").count(), 4);
    assert_eq!(xml.matches("<failure ").count(), 1);
    assert_eq!(xml.matches("<error ").count(), 2);
    assert!(xml.contains(r#"tests="4" failures="1" errors="2""#));
}

#[tokio::test]
async fn reports_of_mock_runs_say_so() {
    let rows = Vec::new();
    let empty = Report::from_rows("x", &rows);
    assert!(!empty.mock);
    assert!(!empty.passed(None), "no rows is not a pass");

    // A mock run's report says so in every format; the same rows from a
    // live backend do not.
    let arena = structured_output();
    let dir = tempfile::tempdir().unwrap();
    let mut rows = mock_run(&arena, &options(&dir.path().join("r.jsonl")))
        .await
        .rows;
    let mock = Report::from_rows(&arena.name, &rows);
    assert!(mock.mock);
    // Every row passed: the run passes, with or without a pass-rate floor.
    assert!(mock.summary.all_pass() && mock.passed(None) && mock.passed(Some(1.0)));
    let one_failed = {
        let mut rows = rows.clone();
        rows[0].outcome = Outcome::Fail;
        Report::from_rows(&arena.name, &rows)
    };
    assert!(!one_failed.summary.all_pass() && !one_failed.passed(None));
    assert!(one_failed.passed(Some(0.9)) && !one_failed.passed(Some(0.95)));
    for format in [
        ReportFormat::Terminal,
        ReportFormat::Markdown,
        ReportFormat::Junit,
    ] {
        let text = mock.render(format);
        // (JUnit escapes the banner's apostrophe.)
        assert!(
            text.contains("MOCK RUN: a scripted model"),
            "{format:?}: {text}"
        );
    }
    let json: serde_json::Value = serde_json::from_str(&mock.render(ReportFormat::Json)).unwrap();
    assert_eq!(json["mock"], true);
    for row in &mut rows {
        row.backend = "openai-chat".into();
        row.model = "gpt-test".into();
    }
    let live = Report::from_rows(&arena.name, &rows);
    assert!(!live.mock);
    for format in [
        ReportFormat::Terminal,
        ReportFormat::Markdown,
        ReportFormat::Junit,
    ] {
        let text = live.render(format);
        assert!(!text.contains("MOCK RUN"), "{format:?}: {text}");
    }
    let json: serde_json::Value = serde_json::from_str(&live.render(ReportFormat::Json)).unwrap();
    assert_eq!(json["mock"], false);
    assert_eq!(json.get("replayed"), None, "written only when true");

    // Replayed rows say so everywhere, as mock rows say MOCK.
    for row in &mut rows {
        row.replayed = true;
    }
    let replayed = Report::from_rows(&arena.name, &rows);
    assert!(replayed.replayed && !replayed.mock);
    for format in [
        ReportFormat::Terminal,
        ReportFormat::Markdown,
        ReportFormat::Junit,
    ] {
        let text = replayed.render(format);
        assert!(text.contains("REPLAY: every answer"), "{format:?}: {text}");
        assert!(!live.render(format).contains("REPLAY"), "{format:?}");
    }
    let json: serde_json::Value =
        serde_json::from_str(&replayed.render(ReportFormat::Json)).unwrap();
    assert_eq!(json["replayed"], true);
    let page = tribunal_judge::internal::report::format::html::render_page(
        &tribunal_judge::internal::report::format::html::ReportPage::from_rows(&rows),
    );
    assert!(page.contains(r#"id="replay-banner""#));

    // Rows whose commands ran with no sandbox say so in every format.
    let banner = tribunal_judge::internal::report::format::UNSANDBOXED_BANNER;
    assert!(!live.render(ReportFormat::Terminal).contains("UNSANDBOXED"));
    assert_eq!(json.get("unsandboxed"), None, "written only when true");
    rows[0].unsandboxed = true;
    let unsandboxed = Report::from_rows(&arena.name, &rows);
    for format in [
        ReportFormat::Terminal,
        ReportFormat::Markdown,
        ReportFormat::Junit,
    ] {
        let text = unsandboxed.render(format);
        let shown = match format {
            ReportFormat::Junit => banner.replace('"', "&quot;").replace('\'', "&apos;"),
            _ => banner.to_string(),
        };
        assert!(text.contains(&shown), "{format:?}: {text}");
    }
    let json: serde_json::Value =
        serde_json::from_str(&unsandboxed.render(ReportFormat::Json)).unwrap();
    assert_eq!(json["unsandboxed"], true);
    let page = tribunal_judge::internal::report::format::html::render_page(
        &tribunal_judge::internal::report::format::html::ReportPage::from_rows(&rows),
    );
    assert!(page.contains(r#"<p class="mock-banner" id="unsandboxed-banner">UNSANDBOXED: the model&#39;s commands ran with NO sandbox"#), "{page}");
}

/// Four items whose mock turn uses 1,000 input tokens each; with `scripted`
/// priced at $1 per million input tokens every run costs $0.001.
fn priced_arena(arena_toml: &str) -> (tempfile::TempDir, tribunal_judge::Pricing) {
    let mock = r#"[{"json": {"n": 1}, "usage": {"input_tokens": 1000, "output_tokens": 0}}]"#;
    let dataset = ["a", "b", "c", "d"]
        .map(|id| item(id, CHECKS, mock))
        .join("\n");
    let dir = arena_dir(&[("dataset.jsonl", &dataset), ("arena.toml", arena_toml)]);
    let pricing = tribunal_judge::Pricing::from_toml(
        "[models.\"scripted\"]\ninput = 1.0\noutput = 1.0\n",
        "test",
    )
    .unwrap();
    (dir, pricing)
}

#[tokio::test]
async fn max_total_usd_stops_starting_runs_once_spent() {
    let (dir, pricing) = priced_arena("");
    let arena = Arena::load(dir.path()).unwrap();
    let mut opts = options(&dir.path().join("r.jsonl"));
    opts.concurrency = 1;
    opts.pricing = pricing;
    opts.max_total_usd = Some(0.0025);
    let result = mock_run(&arena, &opts).await;
    // $0.001 after a, $0.002 after b (still under), $0.003 after c: d never starts.
    let ids: Vec<&str> = result.rows.iter().map(|r| r.id.as_str()).collect();
    assert_eq!(ids, vec!["a", "b", "c"]);
    assert_eq!(result.executed, 3);
    let stop = result.stopped_for_cost.expect("the budget stopped the run");
    assert_eq!(stop.not_started, 1);
    assert!((stop.spent_usd - 0.003).abs() < 1e-12, "{stop:?}");
    assert_eq!(stop.max_usd, 0.0025);

    // Resuming with a larger budget runs only the item that never started.
    opts.mode = RunMode::Resume;
    opts.max_total_usd = Some(1.0);
    let result = mock_run(&arena, &opts).await;
    assert_eq!((result.executed, result.skipped), (1, 3));
    assert!(result.stopped_for_cost.is_none());
}

#[tokio::test]
async fn max_cost_usd_per_run_ends_a_run_with_max_cost_exceeded() {
    use tribunal_judge::BackendFactory as _;
    let (dir, pricing) = priced_arena("[budget]\nmax_cost_usd = 0.0005\n");
    let arena = Arena::load(dir.path()).unwrap();
    assert_eq!(arena.max_cost_usd, Some(0.0005));
    let mut opts = options(&dir.path().join("r.jsonl"));
    opts.pricing = pricing.clone();
    let result = mock_run(&arena, &opts).await;
    assert!(
        result
            .rows
            .iter()
            .all(|r| r.error_code == Some(ErrorCode::MaxCostExceeded)),
        "{:?}",
        result.rows
    );
    // The cost budget is part of the config: a run without it does not
    // resume this file.
    let (plain_dir, _) = priced_arena("");
    let plain = Arena::load(plain_dir.path()).unwrap();
    let plan = tribunal_judge::internal::run::backends::MockBackends::default().output_plan();
    assert_ne!(
        tribunal_judge::internal::run::hash::config_hash(&arena, "mock", "scripted", &plan),
        tribunal_judge::internal::run::hash::config_hash(&plain, "mock", "scripted", &plan)
    );
    // So is batch mode; an online run's hash is the plain one.
    let online =
        tribunal_judge::internal::run::hash::config_hash(&arena, "mock", "scripted", &plan);
    let mode = |batch| {
        tribunal_judge::internal::run::hash::config_hash_of_mode(
            &arena, "mock", "scripted", &plan, batch,
        )
    };
    assert_eq!(mode(false), online);
    assert_ne!(mode(true), online);

    // At $0.001 per run a $0.001 budget holds.
    let (dir, _) = priced_arena("[budget]\nmax_cost_usd = 0.001\n");
    let arena = Arena::load(dir.path()).unwrap();
    let mut opts = options(&dir.path().join("r.jsonl"));
    opts.pricing = pricing;
    let result = mock_run(&arena, &opts).await;
    assert!(result.rows.iter().all(|r| r.outcome == Outcome::Pass));

    // The price the budget is checked at is part of the config too: at
    // twice the price the same budget ends every run, and those rows carry
    // another hash, so the cheaper run's file is not resumed under it.
    let dearer = tribunal_judge::Pricing::from_toml(
        "[models.\"scripted\"]\ninput = 2.0\noutput = 2.0\n",
        "test",
    )
    .unwrap();
    let mut resumed = opts.clone();
    resumed.pricing = dearer;
    resumed.mode = RunMode::Resume;
    let err = try_mock_run(&arena, &resumed)
        .await
        .expect_err("another price is another config");
    assert!(err.to_string().contains("hash"), "{err}");
    resumed.mode = RunMode::Replace;
    let result = mock_run(&arena, &resumed).await;
    assert!(
        result
            .rows
            .iter()
            .all(|r| r.error_code == Some(ErrorCode::MaxCostExceeded))
    );
}

#[tokio::test]
async fn a_cost_budget_on_an_unpriced_hosted_model_is_refused_before_any_run() {
    use tribunal_judge::internal::run::backends::SharedBackend;
    use tribunal_runtime::ScriptedBackend;
    let (dir, _) = priced_arena("[budget]\nmax_cost_usd = 1.0\n");
    let arena = Arc::new(Arena::load(dir.path()).unwrap());
    let out = dir.path().join("r.jsonl");
    let backend = Arc::new(ScriptedBackend::from_turns([]).with_model("gpt-9-preview"));
    let err = run_on(
        &arena,
        Arc::new(SharedBackend::new(backend.clone())),
        &options(&out),
    )
    .await
    .expect_err("unpriced");
    assert!(
        err.to_string()
            .contains("model \"gpt-9-preview\" is in no pricing table"),
        "{err}"
    );
    assert!(!out.exists(), "nothing ran");
    // On a local server the same model costs 0, so the budget holds.
    let local = SharedBackend::new(backend).on_custom_endpoint(true);
    assert!(
        run_on(&arena, Arc::new(local), &options(&out))
            .await
            .is_ok()
    );
}

/// A model that answers after `delay`, counting the calls it began and
/// the ones it finished.
struct Slow {
    delay: std::time::Duration,
    began: std::sync::atomic::AtomicUsize,
    finished: std::sync::atomic::AtomicUsize,
}

impl tribunal_runtime::Backend for Slow {
    fn info(&self) -> tribunal_runtime::BackendInfo<'_> {
        tribunal_runtime::BackendInfo {
            name: "slow",
            model: "slow",
            plan: ScriptedBackend::from_turns([]).output_plan(),
        }
    }

    fn complete<'a>(
        &'a self,
        _request: &'a tribunal_runtime::ModelRequest,
    ) -> futures::future::BoxFuture<
        'a,
        Result<tribunal_runtime::ModelTurn, tribunal_runtime::BackendError>,
    > {
        use std::sync::atomic::Ordering;
        Box::pin(async move {
            self.began.fetch_add(1, Ordering::SeqCst);
            tokio::time::sleep(self.delay).await;
            self.finished.fetch_add(1, Ordering::SeqCst);
            Ok(tribunal_runtime::ModelTurn {
                text: r#"{"n": 1}"#.to_string(),
                ..Default::default()
            })
        })
    }
}

#[tokio::test(start_paused = true)]
async fn dropping_the_run_cancels_every_run_in_flight() {
    use std::sync::atomic::Ordering;
    use std::time::Duration;
    let dataset = ["a", "b", "c"]
        .map(|id| item(id, CHECKS, r#"[{"json": {"n": 1}}]"#))
        .join("\n");
    let dir = arena_dir(&[("dataset.jsonl", &dataset)]);
    let arena = Arc::new(Arena::load(dir.path()).unwrap());
    let slow = Arc::new(Slow {
        delay: Duration::from_secs(10),
        began: Default::default(),
        finished: Default::default(),
    });
    let backends = tribunal_judge::internal::run::backends::SharedBackend::new(slow.clone());
    let mut opts = options(&dir.path().join("r.jsonl"));
    opts.concurrency = 3;
    let cut = tokio::time::timeout(
        Duration::from_secs(1),
        run_on(&arena, Arc::new(backends), &opts),
    )
    .await;
    assert!(cut.is_err(), "the timeout dropped the run");
    assert_eq!(
        slow.began.load(Ordering::SeqCst),
        3,
        "all three were in flight"
    );
    // Long past the model's delay: a detached run would have finished.
    tokio::time::sleep(Duration::from_secs(60)).await;
    assert_eq!(slow.finished.load(Ordering::SeqCst), 0);
}

/// A run without a results file keeps its rows in memory only: the same
/// rows as a run to a file, nothing written; resuming or batching, which
/// need a file, are refused before anything runs.
#[tokio::test]
async fn an_in_memory_run_returns_the_rows_and_writes_nothing() {
    let (dir, _) = priced_arena("");
    let arena = Arena::load(dir.path()).unwrap();
    let to_file = mock_run(&arena, &options(&dir.path().join("r.jsonl"))).await;
    let before: Vec<_> = std::fs::read_dir(dir.path()).unwrap().collect();
    let in_memory = mock_run(
        &arena,
        &tribunal_judge::RunOptions::in_memory().with_concurrency(8),
    )
    .await;
    let ids = |rows: &[tribunal_judge::ResultRow]| {
        rows.iter()
            .map(|r| (r.id.clone(), r.outcome))
            .collect::<Vec<_>>()
    };
    assert_eq!(ids(&in_memory.rows), ids(&to_file.rows));
    assert_eq!(in_memory.config_hash, to_file.config_hash);
    let after: Vec<_> = std::fs::read_dir(dir.path()).unwrap().collect();
    assert_eq!(before.len(), after.len(), "no file was written");

    for options in [
        tribunal_judge::RunOptions::in_memory().with_mode(RunMode::Resume),
        tribunal_judge::RunOptions::in_memory().with_mode(RunMode::RetryErrors),
    ] {
        let err = try_mock_run(&arena, &options)
            .await
            .expect_err("nothing to resume from");
        assert!(err.to_string().contains("results file"), "{err}");
    }
}

/// A row keeps its answer until the report: without the spare capacity
/// the parser grew its arrays and strings with (every run of a large arena
/// in memory at once).
#[tokio::test]
async fn rows_keep_answers_without_spare_capacity() {
    fn spare(value: &serde_json::Value) -> usize {
        match value {
            serde_json::Value::String(s) => s.capacity() - s.len(),
            serde_json::Value::Array(items) => {
                items.capacity() - items.len() + items.iter().map(spare).sum::<usize>()
            }
            serde_json::Value::Object(map) => map.values().map(spare).sum(),
            _ => 0,
        }
    }
    let arena = structured_output();
    let result = mock_run(&arena, &tribunal_judge::RunOptions::in_memory()).await;
    let answers: Vec<_> = result
        .rows
        .iter()
        .filter_map(|r| r.answer.as_ref())
        .collect();
    assert!(!answers.is_empty());
    for answer in answers {
        assert_eq!(spare(answer), 0, "{answer}");
    }
}
