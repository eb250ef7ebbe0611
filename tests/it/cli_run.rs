//! `tribunal run`, `lint` and `merge` as processes: exit codes, reports,
//! a killed run resumed, shards merged.

use crate::stand_in::{arena, code, stderr, stdout};
use crate::tribunal;
use crate::{json_lines, tribunal_bin};
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};
use tribunal_testkit::launch::assert_exit_says;

#[test]
fn mock_run_passes_and_says_mock_everywhere() {
    let dir = tempfile::tempdir().unwrap();
    let a = arena();
    let a = a.to_str().unwrap();
    let o = tribunal(&["run", a], dir.path());
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    let out = stdout(&o);
    assert!(out.contains("MOCK RUN"), "{out}");
    assert!(out.contains("15 PASS, 0 FAIL, 0 ERROR"), "{out}");
    // Plain progress lines when stderr is not a terminal; default results file.
    assert!(stderr(&o).contains("[15/15] PASS"), "{}", stderr(&o));
    let rows =
        std::fs::read_to_string(dir.path().join("runs/structured_output.mock.jsonl")).unwrap();
    assert_eq!(rows.lines().count(), 15);

    let o = tribunal(&["run", a, "--report", "json"], dir.path());
    assert_eq!(code(&o), 0);
    let json: serde_json::Value = serde_json::from_str(&stdout(&o)).unwrap();
    assert_eq!(json["mock"], true);
    assert_eq!(json["summary"]["pass"], 15);
    assert_eq!(json["items"][0]["outcome"], "PASS");

    let md = dir.path().join("out/report.md");
    let o = tribunal(
        &[
            "run",
            a,
            "--report",
            "markdown",
            "--report-file",
            md.to_str().unwrap(),
        ],
        dir.path(),
    );
    assert_eq!(code(&o), 0);
    assert!(std::fs::read_to_string(&md).unwrap().contains("**MOCK RUN"));

    let o = tribunal(&["run", a, "--report", "junit"], dir.path());
    assert!(stdout(&o).contains(
        "<testsuite name=\"structured_output\" tests=\"15\" failures=\"0\" errors=\"0\""
    ));
}

fn failing_arena(dir: &Path) -> PathBuf {
    let a = dir.join("failing");
    std::fs::create_dir_all(&a).unwrap();
    std::fs::write(
        a.join("dataset.jsonl"),
        concat!(
            r#"{"id": "ok", "input": "x", "checks": [{"type": "contains", "value": "yes"}], "mock": [{"json": "yes"}]}"#,
            "\n",
            r#"{"id": "no", "input": "x", "checks": [{"type": "contains", "value": "yes"}], "mock": [{"json": "no"}]}"#,
            "\n"
        ),
    )
    .unwrap();
    a
}

#[test]
fn exit_codes() {
    let dir = tempfile::tempdir().unwrap();
    let failing = failing_arena(dir.path());
    let f = failing.to_str().unwrap();
    assert_eq!(code(&tribunal(&["run", f], dir.path())), 1);
    assert_eq!(
        code(&tribunal(&["run", f, "--min-pass-rate", "0.5"], dir.path())),
        0
    );
    assert_eq!(
        code(&tribunal(&["run", f, "--min-pass-rate", "0.6"], dir.path())),
        1
    );
    // Usage errors.
    assert_eq!(
        code(&tribunal(&["run", f, "--shard", "3/2"], dir.path())),
        2
    );
    assert_eq!(
        code(&tribunal(&["run", f, "--report", "pdf"], dir.path())),
        2
    );
    let o = tribunal(&["run", f, "--backend", "anthropic"], dir.path());
    assert_exit_says(&o, 2, "--model");
    // A lint problem: reported with file:line, exit 2, for run and lint.
    std::fs::write(
        failing.join("dataset.jsonl"),
        "{\"id\": \"a\", \"input\": \"x\", \"checks\": [{\"type\": \"bogus\"}]}\n",
    )
    .unwrap();
    let o = tribunal(&["run", f], dir.path());
    assert_exit_says(
        &o,
        2,
        "dataset.jsonl:1:47: checks[0]: unknown check type `bogus`",
    );
    let o = tribunal(&["lint", f], dir.path());
    assert_eq!(code(&o), 2);
    assert!(stdout(&o).contains("dataset.jsonl:1:"), "{}", stdout(&o));
    let a = arena();
    assert_eq!(
        code(&tribunal(&["lint", a.to_str().unwrap()], dir.path())),
        0
    );
}

/// An unknown `--backend` or `--report` is a usage error that lists every
/// accepted value, the mock and the HTML page among them.
#[test]
fn an_unknown_backend_or_report_lists_every_accepted_value() {
    let dir = tempfile::tempdir().unwrap();
    let a = arena();
    let a = a.to_str().unwrap();
    let backends = "[possible values: mock, openai-chat, openai-responses, anthropic]";
    let formats = "[possible values: terminal, json, markdown, junit, html]";
    for (args, list) in [
        (vec!["run", a, "--backend", "gemini"], backends),
        (vec!["judge", "run", "--backend", "gemini"], backends),
        (vec!["run", a, "--report", "pdf"], formats),
        (vec!["merge", "r.jsonl", "--report", "pdf"], formats),
    ] {
        let o = tribunal(&args, dir.path());
        assert_eq!(code(&o), 2, "{args:?}");
        assert!(stderr(&o).contains(list), "{args:?}: {}", stderr(&o));
    }
    assert!(!dir.path().join("runs").exists(), "nothing ran");
}

/// A missing arena folder is named as such (not as its dataset.jsonl), exit 2.
#[test]
fn a_missing_arena_folder_is_named() {
    let dir = tempfile::tempdir().unwrap();
    let o = tribunal(&["run", "missing"], dir.path());
    assert_eq!(code(&o), 2);
    assert_eq!(
        stderr(&o),
        "tribunal: the arena folder missing does not exist\n"
    );
    let o = tribunal(&["lint", "missing"], dir.path());
    assert_eq!(code(&o), 2);
    assert_eq!(stdout(&o), "the arena folder missing does not exist\n");
    std::fs::write(dir.path().join("file"), "").unwrap();
    let o = tribunal(&["run", "file"], dir.path());
    assert_eq!(code(&o), 2);
    assert_eq!(
        stderr(&o),
        "tribunal: the arena folder file is not a folder\n"
    );
}

#[test]
fn a_killed_run_resumes_with_every_item_exactly_once() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("r.jsonl");
    let a = arena();
    let mut child = Command::new(tribunal_bin())
        .args(["run", a.to_str().unwrap(), "--out", out.to_str().unwrap()])
        .args(["--mock-latency-ms", "400", "--concurrency", "2"])
        .current_dir(dir.path())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let started = Instant::now();
    let lines = |p: &Path| {
        std::fs::read_to_string(p)
            .map(|t| t.lines().count())
            .unwrap_or(0)
    };
    while lines(&out) < 3 {
        assert!(
            started.elapsed() < Duration::from_secs(30),
            "no rows appeared"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
    child.kill().unwrap();
    child.wait().unwrap();
    // The kill can land mid-write: only newline-terminated lines are rows
    // (resume drops a torn last line), so count those.
    let text = std::fs::read_to_string(&out).unwrap();
    let before = text
        .split_inclusive('\n')
        .filter(|l| l.ends_with('\n'))
        .count();
    assert!(before >= 3, "{before} rows before the kill");
    assert!(
        before < 15,
        "all 15 rows were written before the kill: the run was not interrupted"
    );

    let o = tribunal(
        &[
            "run",
            a.to_str().unwrap(),
            "--out",
            out.to_str().unwrap(),
            "--resume",
        ],
        dir.path(),
    );
    assert_exit_says(&o, 0, &format!("{before} already finished"));
    let mut ids: Vec<String> = json_lines(&out)
        .iter()
        .map(|row| row["id"].as_str().unwrap().to_string())
        .collect();
    assert_eq!(ids.len(), 15);
    ids.sort();
    ids.dedup();
    assert_eq!(ids.len(), 15, "every item exactly once");
}

/// The rows of a results file, by item id.
fn rows_by_id(path: &Path) -> std::collections::BTreeMap<String, serde_json::Value> {
    json_lines(path)
        .into_iter()
        .map(|row| (row["id"].as_str().unwrap().to_string(), row))
        .collect()
}

/// `--retry-errors` runs the ERROR item again and keeps the PASS row: the
/// second dataset would fail `ok` if it ran again.
#[test]
fn retry_errors_runs_only_the_error_item_again() {
    let dir = tempfile::tempdir().unwrap();
    let a = dir.path().join("retry");
    std::fs::create_dir_all(&a).unwrap();
    let dataset = |ok: &str, bad: &str| {
        let check = r#"[{"type": "contains", "value": "yes"}]"#;
        [("ok", ok), ("bad", bad)]
            .map(|(id, mock)| {
                format!(r#"{{"id": "{id}", "input": "x", "checks": {check}, "mock": {mock}}}"#)
            })
            .join("\n")
    };
    let no_json = r#"[{"text": "no json here"}, {"text": "still none"}]"#;
    std::fs::write(
        a.join("dataset.jsonl"),
        dataset(r#"[{"json": "yes"}]"#, no_json),
    )
    .unwrap();
    let out = dir.path().join("r.jsonl");
    let run = |extra: &[&str]| {
        let mut args = vec!["run", a.to_str().unwrap(), "--out", out.to_str().unwrap()];
        args.extend(extra);
        tribunal(&args, dir.path())
    };
    assert_eq!(code(&run(&[])), 1);
    let first = rows_by_id(&out);
    assert_eq!(first["ok"]["outcome"], "PASS");
    assert_eq!(first["bad"]["outcome"], "ERROR");

    std::fs::write(
        a.join("dataset.jsonl"),
        dataset(r#"[{"json": "no"}]"#, r#"[{"json": "yes"}]"#),
    )
    .unwrap();
    let o = run(&["--retry-errors"]);
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    let second = rows_by_id(&out);
    assert_eq!(second.len(), 2, "one row per item");
    assert_eq!(second["ok"], first["ok"], "the PASS row is kept as it was");
    assert_eq!(second["bad"]["outcome"], "PASS");
    assert_eq!(
        std::fs::read_to_string(&out).unwrap().lines().count(),
        2,
        "the retried row replaced the ERROR row"
    );
}

#[test]
fn shards_merge_into_one_report() {
    let dir = tempfile::tempdir().unwrap();
    let a = arena();
    for i in 1..=2 {
        let o = tribunal(
            &["run", a.to_str().unwrap(), "--shard", &format!("{i}/2")],
            dir.path(),
        );
        assert_eq!(code(&o), 0, "{}", stderr(&o));
    }
    let s1 = dir
        .path()
        .join("runs/structured_output.mock.shard-1-of-2.jsonl");
    let s2 = dir
        .path()
        .join("runs/structured_output.mock.shard-2-of-2.jsonl");
    let merged = dir.path().join("merged.jsonl");
    let o = tribunal(
        &[
            "merge",
            s1.to_str().unwrap(),
            s2.to_str().unwrap(),
            "--out",
            merged.to_str().unwrap(),
            "--report",
            "json",
        ],
        dir.path(),
    );
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    let json: serde_json::Value = serde_json::from_str(&stdout(&o)).unwrap();
    assert_eq!(json["summary"]["total"], 15);
    assert_eq!(json["mock"], true);
    assert_eq!(
        std::fs::read_to_string(&merged).unwrap().lines().count(),
        15
    );
}

/// Issue #62 point 8: shard files of two different runs (the system prompt
/// changed between them, so another config hash) are refused as not shards
/// of one run, with advice that fits `merge`: no `--resume`, which merge
/// has not.
#[test]
fn merge_refuses_files_of_two_runs_without_advice_about_resume() {
    let dir = tempfile::tempdir().unwrap();
    let a = failing_arena(dir.path());
    let one = dir.path().join("one.jsonl");
    let two = dir.path().join("two.jsonl");
    for (out, system) in [(&one, "Answer."), (&two, "Answer briefly.")] {
        std::fs::write(a.join("arena.toml"), format!("system = {system:?}\n")).unwrap();
        let o = tribunal(
            &[
                "run",
                a.to_str().unwrap(),
                "--shard",
                "1/2",
                "--out",
                out.to_str().unwrap(),
            ],
            dir.path(),
        );
        assert_ne!(code(&o), 2, "{}", stderr(&o));
    }
    let o = tribunal(
        &["merge", one.to_str().unwrap(), two.to_str().unwrap()],
        dir.path(),
    );
    assert_eq!(code(&o), 2);
    let err = stderr(&o);
    assert!(
        err.contains("they are not shards of one run; merge only the files of one run"),
        "{err}"
    );
    assert!(!err.contains("--resume") && !err.contains("--out"), "{err}");
}

#[test]
fn repeat_reports_pass_hat_k() {
    let dir = tempfile::tempdir().unwrap();
    let a = arena();
    let o = tribunal(
        &[
            "run",
            a.to_str().unwrap(),
            "--repeat",
            "3",
            "--report",
            "json",
        ],
        dir.path(),
    );
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    let json: serde_json::Value = serde_json::from_str(&stdout(&o)).unwrap();
    assert_eq!(json["summary"]["total"], 45);
    assert_eq!(json["summary"]["repeats"], 3);
    assert_eq!(json["summary"]["pass_hat_k"], 1.0);
    assert_eq!(json["summary"]["per_repeat"].as_array().unwrap().len(), 3);
}

/// The most runs whose intervals (from each row's `finished_at_ms` and
/// `wall_ms`) overlap at one moment.
fn max_overlap(path: &Path) -> usize {
    let mut events = Vec::new();
    for row in json_lines(path) {
        let end = row["finished_at_ms"].as_f64().unwrap();
        let start = end - row["wall_ms"].as_f64().unwrap();
        // Rows carry whole milliseconds: shrink each interval by 2 ms so a
        // run that starts as another ends does not count as overlapping.
        events.push((start + 2.0, 1i32));
        events.push((end - 2.0, -1i32));
    }
    events.sort_by(|a, b| a.0.total_cmp(&b.0).then(a.1.cmp(&b.1)));
    let (mut now, mut most) = (0i32, 0i32);
    for (_, step) in events {
        now += step;
        most = most.max(now);
    }
    most as usize
}

/// `--concurrency N` runs N items at once and never more: with 100 ms model
/// turns, the rows' intervals overlap N deep (1 for a sequential run).
#[test]
fn concurrency_bounds_the_runs_in_flight() {
    let dir = tempfile::tempdir().unwrap();
    let a = arena();
    for n in [1usize, 4] {
        let out = dir.path().join(format!("c{n}.jsonl"));
        let o = tribunal(
            &[
                "run",
                a.to_str().unwrap(),
                "--out",
                out.to_str().unwrap(),
                "--mock-latency-ms",
                "100",
                "--concurrency",
                &n.to_string(),
            ],
            dir.path(),
        );
        assert_eq!(code(&o), 0, "{}", stderr(&o));
        assert_eq!(max_overlap(&out), n, "--concurrency {n}");
    }
}

#[test]
fn a_bad_pricing_table_fails_before_anything_runs() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("r.jsonl");
    let missing = dir.path().join("nope.toml");
    let o = tribunal(
        &[
            "run",
            arena().to_str().unwrap(),
            "--out",
            out.to_str().unwrap(),
            "--pricing",
            missing.to_str().unwrap(),
        ],
        dir.path(),
    );
    assert_exit_says(&o, 2, "nope.toml");
    assert!(!out.exists(), "no item ran");

    // An arena's own [pricing] table is checked like the rest of arena.toml.
    let arena_dir = dir.path().join("priced");
    std::fs::create_dir(&arena_dir).unwrap();
    std::fs::write(
        arena_dir.join("dataset.jsonl"),
        r#"{"id": "a", "input": "x", "checks": [{"type": "json_schema", "schema": {"type": "object"}}], "mock": [{"json": {}}]}"#,
    )
    .unwrap();
    std::fs::write(
        arena_dir.join("arena.toml"),
        "[pricing.models.\"m\"]\ninput = -1.0\noutput = 1.0\n",
    )
    .unwrap();
    let o = tribunal(&["lint", arena_dir.to_str().unwrap()], dir.path());
    assert_eq!(code(&o), 2, "{}", stdout(&o));
    let text = format!("{}{}", stdout(&o), stderr(&o));
    assert!(
        text.contains("arena.toml: pricing: model \"m\": prices must be finite and not negative"),
        "{text}"
    );
}

#[test]
fn max_cost_usd_stops_the_run_and_says_so() {
    let dir = tempfile::tempdir().unwrap();
    let arena_dir = dir.path().join("costly");
    std::fs::create_dir(&arena_dir).unwrap();
    let line = |id: &str| {
        format!(
            r#"{{"id": "{id}", "input": "x", "checks": [{{"type": "json_schema", "schema": {{"type": "object"}}}}], "mock": [{{"json": {{}}, "usage": {{"input_tokens": 1000, "output_tokens": 0}}}}]}}"#
        )
    };
    let dataset: Vec<String> = ["a", "b", "c"].iter().map(|id| line(id)).collect();
    std::fs::write(arena_dir.join("dataset.jsonl"), dataset.join("\n")).unwrap();
    let pricing = dir.path().join("p.toml");
    std::fs::write(
        &pricing,
        "[models.\"scripted\"]\ninput = 1.0\noutput = 1.0\n",
    )
    .unwrap();
    let out = dir.path().join("r.jsonl");
    let run = |extra: &[&str]| {
        let mut args = vec![
            "run",
            arena_dir.to_str().unwrap(),
            "--concurrency",
            "1",
            "--out",
            out.to_str().unwrap(),
            "--pricing",
            pricing.to_str().unwrap(),
        ];
        args.extend(extra);
        tribunal(&args, dir.path())
    };
    let o = run(&["--max-cost-usd", "0.0015"]);
    assert_eq!(code(&o), 1, "{}", stderr(&o));
    assert!(
        stderr(&o).contains(
            "stopped starting item runs: $0.002000 spent of --max-cost-usd $0.0015; 1 item run(s) not started"
        ),
        "{}",
        stderr(&o)
    );
    assert_eq!(json_lines(&out).len(), 2);
    assert!(
        stdout(&o).contains("cost $0.002000 over 2 run(s)"),
        "{}",
        stdout(&o)
    );
    let o = run(&["--max-cost-usd=-1"]);
    assert_exit_says(&o, 2, "not an amount of USD");
}

#[test]
fn cache_needs_a_live_backend_and_no_replay() {
    let dir = tempfile::tempdir().unwrap();
    let cache = dir.path().join("cache");
    let o = tribunal(
        &[
            "run",
            arena().to_str().unwrap(),
            "--cache",
            cache.to_str().unwrap(),
        ],
        dir.path(),
    );
    assert_exit_says(
        &o,
        2,
        "--record, --replay and --cache need a live --backend",
    );
    let cassettes =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("arenas/structured_output/cassettes");
    let o = tribunal(
        &[
            "run",
            arena().to_str().unwrap(),
            "--backend",
            "openai-chat",
            "--model",
            "qwen",
            "--replay",
            cassettes.to_str().unwrap(),
            "--cache",
            cache.to_str().unwrap(),
        ],
        dir.path(),
    );
    assert_exit_says(&o, 2, "--cache has nothing to do with --replay");
    assert!(!cache.exists());
}

#[test]
fn a_mock_run_refuses_items_without_mock_turns_before_running_any() {
    let dir = tempfile::tempdir().unwrap();
    let a = dir.path().join("half_mocked");
    std::fs::create_dir_all(&a).unwrap();
    std::fs::write(
        a.join("dataset.jsonl"),
        concat!(
            r#"{"id": "ok", "input": "x", "checks": [{"type": "contains", "value": "yes"}], "mock": [{"json": "yes"}]}"#,
            "\n",
            r#"{"id": "live_only", "input": "x", "checks": [{"type": "contains", "value": "yes"}]}"#,
            "\n"
        ),
    )
    .unwrap();
    let f = a.to_str().unwrap();
    let o = tribunal(&["run", f], dir.path());
    assert_eq!(code(&o), 2, "{}", stderr(&o));
    assert!(
        stderr(&o).contains(
            "dataset.jsonl:2: item \"live_only\": no mock turns: run it with a live --backend or add `mock`"
        ),
        "{}",
        stderr(&o)
    );
    assert!(
        !dir.path().join("runs").exists(),
        "no item ran, no results file"
    );
    // `lint` checks the files (clean); `lint --mock` also what mock mode needs.
    assert_eq!(code(&tribunal(&["lint", f], dir.path())), 0);
    let o = tribunal(&["lint", "--mock", f], dir.path());
    assert_eq!(code(&o), 2);
    assert!(
        stdout(&o).contains("dataset.jsonl:2: item \"live_only\": no mock turns"),
        "{}",
        stdout(&o)
    );
}

/// `tribunal ARGS` in `cwd` with an OpenAI key and a base URL where no
/// server listens: a live run that must be refused, or replayed, before
/// any request goes out.
fn offline_live(args: &[&str], cwd: &Path) -> Output {
    Command::new(tribunal_bin())
        .args(args)
        .current_dir(cwd)
        .env("OPENAI_API_KEY", "sk-test")
        .env("OPENAI_BASE_URL", "http://127.0.0.1:9/v1")
        .output()
        .unwrap()
}

/// An arena with one `rubric` check whose scripted judge says GREEN.
fn rubric_arena(dir: &Path) -> PathBuf {
    let a = dir.join("graded");
    std::fs::create_dir_all(&a).unwrap();
    let line = serde_json::json!({
        "id": "capital", "input": "Capital of France?",
        "checks": [{"type": "rubric", "rubric": "Names Paris.", "mock": [
            {"json": {"result": {"verdict": "GREEN", "verdictFields": {"reason": "It says Paris."}}},
             "usage": {"input_tokens": 40, "output_tokens": 5}}
        ]}],
        "gold_rubric": "GREEN",
        "mock": [{"json": "Paris"}]
    });
    std::fs::write(a.join("dataset.jsonl"), line.to_string()).unwrap();
    a
}

#[test]
fn rubric_checks_run_on_the_mock_judge_and_need_a_judge_model_live() {
    let dir = tempfile::tempdir().unwrap();
    let a = rubric_arena(dir.path());
    let f = a.to_str().unwrap();
    let o = tribunal(&["run", f, "--report", "json", "--calibrate"], dir.path());
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    let json: serde_json::Value = serde_json::from_str(&stdout(&o)).unwrap();
    let item = &json["items"][0];
    assert_eq!(item["outcome"], "PASS");
    assert_eq!(item["judge"]["usage"]["input_tokens"], 40);
    assert_eq!(
        item["checks"][0]["detail"],
        "judge: GREEN (passes on GREEN): It says Paris."
    );
    assert_eq!(json["rubric_calibration"]["subject"], "rubric");
    assert_eq!(json["rubric_calibration"]["accuracy"]["rate"], 1.0);
    assert!(
        json.get("calibration").is_none(),
        "no verdict_equals gold here"
    );

    // Live: the judge's model must be named before anything runs.
    let o = offline_live(
        &["run", f, "--backend", "openai-chat", "--model", "m"],
        dir.path(),
    );
    assert_exit_says(
        &o,
        2,
        "has rubric checks: name their judge with --judge-model",
    );
    let o = offline_live(
        &[
            "run",
            f,
            "--backend",
            "openai-chat",
            "--model",
            "m",
            "--judge-backend",
            "mock",
            "--judge-model",
            "j",
        ],
        dir.path(),
    );
    assert_exit_says(&o, 2, "need a live judge backend");
}

/// The rubric_judge arena's real-model cassette (LIVE.md): the mock agent's
/// fixed answers graded by Qwen2.5-Coder-0.5B on llama.cpp, replayed with
/// no server. The outcomes are the live run's, judge errors included.
#[test]
fn a_live_judge_replays_from_its_cassette_on_mock_answers() {
    let dir = tempfile::tempdir().unwrap();
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let a = root.join("arenas/rubric_judge");
    let cassettes = a.join("cassettes");
    assert!(cassettes.join("rubric_judge.judge.jsonl").is_file());
    let o = offline_live(
        &[
            "run",
            a.to_str().unwrap(),
            "--report",
            "json",
            "--calibrate",
            "--judge-backend",
            "openai-chat",
            "--judge-model",
            "qwen",
            "--concurrency",
            "2",
            "--replay",
            cassettes.to_str().unwrap(),
        ],
        dir.path(),
    );
    assert_eq!(code(&o), 1, "{}", stderr(&o));
    let json: serde_json::Value = serde_json::from_str(&stdout(&o)).unwrap();
    let outcomes: Vec<(String, String, String)> = json["items"]
        .as_array()
        .unwrap()
        .iter()
        .map(|i| {
            (
                i["id"].as_str().unwrap().to_string(),
                i["outcome"].as_str().unwrap().to_string(),
                i["error_code"].as_str().unwrap_or("").to_string(),
            )
        })
        .collect();
    let expected = [
        ("http_404", "PASS", ""),
        ("http_404_wrong", "PASS", ""),
        ("boiling_point", "FAIL", ""),
        ("boiling_point_wrong", "ERROR", "schema_mismatch"),
        ("git_revert", "ERROR", "runaway"),
        ("git_revert_wrong", "FAIL", ""),
        ("one_sentence", "ERROR", "runaway"),
        ("one_sentence_wrong", "FAIL", ""),
    ];
    let expected: Vec<(String, String, String)> = expected
        .iter()
        .map(|(a, b, c)| (a.to_string(), b.to_string(), c.to_string()))
        .collect();
    assert_eq!(outcomes, expected);
    let items = json["items"].as_array().unwrap();
    assert!(items.iter().all(|i| i["judge"]["model"] == "qwen"));
    assert!(
        items
            .iter()
            .all(|i| i["judge"]["usage"]["input_tokens"].as_u64().unwrap() > 0)
    );
    assert_eq!(
        items[4]["judge"]["failed"], true,
        "a runaway judgement is the judge's"
    );
    // The real judge against the human labels, as LIVE.md reports: of 8,
    // 2 agree; gold G 4/8, R 4/8; judged G 3/8, R 2/8, none 3/8;
    // p_e = 5/16, kappa = (1/4 − 5/16) / (11/16) = −1/11.
    let kappa = json["rubric_calibration"]["kappa"]["value"]
        .as_f64()
        .unwrap();
    assert!((kappa + 1.0 / 11.0).abs() < 1e-12, "{kappa}");
}

/// `--model` without `--backend` used to run the mock and exit 0: a user
/// who named a model believed they had tested it.
#[test]
fn a_model_without_a_backend_is_refused_with_the_fix_not_mocked() {
    let dir = tempfile::tempdir().unwrap();
    let arena = arena();
    let o = tribunal(
        &["run", arena.to_str().unwrap(), "--model", "gpt-4.1-mini"],
        dir.path(),
    );
    assert_eq!(o.status.code(), Some(2));
    let err = stderr(&o);
    assert!(
        err.contains(
            "--model gpt-4.1-mini needs a live --backend: without one, tribunal runs the mock"
        ),
        "{err}"
    );
    assert!(err.contains("Add --backend openai-chat"), "{err}");
    assert!(err.contains("--model openai/gpt-4.1-mini"), "{err}");
    assert!(!dir.path().join("runs").exists(), "no results written");

    // Named with its provider, the model picks the backend: here the
    // openai-chat backend, which finds no server before any item runs.
    let o = tribunal(
        &[
            "run",
            arena.to_str().unwrap(),
            "--model",
            "openai/gpt-4.1-mini",
            "--base-url",
            "http://127.0.0.1:9/v1",
        ],
        dir.path(),
    );
    assert_eq!(o.status.code(), Some(2));
    let err = stderr(&o);
    assert!(
        err.contains("cannot connect to http://127.0.0.1:9/v1/models"),
        "{err}"
    );
}

/// `--concurrency 0` used to be accepted (and ran nothing in flight);
/// `--repeat -1` said "unexpected argument". Both name the flag and the rule.
#[test]
fn counts_below_one_are_refused_naming_the_flag() {
    let dir = tempfile::tempdir().unwrap();
    let arena = arena();
    let a = arena.to_str().unwrap();
    let o = tribunal(&["run", a, "--concurrency", "0"], dir.path());
    assert_eq!(o.status.code(), Some(2));
    assert!(
        stderr(&o).contains("\"0\" is not a number of runs in flight (1 or more)"),
        "{}",
        stderr(&o)
    );
    for repeat in ["-1", "0"] {
        let o = tribunal(&["run", a, "--repeat", repeat], dir.path());
        assert_eq!(o.status.code(), Some(2));
        let err = stderr(&o);
        assert!(err.contains("--repeat"), "{err}");
        assert!(!err.contains("unexpected argument"), "{err}");
    }
    assert!(!dir.path().join("runs").exists());
}

/// Ctrl-C (SIGINT) ends a run saying what was kept and how to finish it;
/// `--resume` then runs only the rest.
#[test]
fn an_interrupted_run_says_what_it_kept_and_resume_finishes_it() {
    let dir = tempfile::tempdir().unwrap();
    let arena = arena();
    let out = dir.path().join("r.jsonl");
    let args = |extra: &[&str]| {
        let mut a = vec![
            "run".to_string(),
            arena.display().to_string(),
            "--concurrency".into(),
            "1".into(),
            "--mock-latency-ms".into(),
            "200".into(),
            "--out".into(),
            out.display().to_string(),
        ];
        a.extend(extra.iter().map(|s| s.to_string()));
        a
    };
    let child = Command::new(tribunal_bin())
        .args(args(&[]))
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    // Wait for the first finished row (no time is asserted).
    let deadline = Instant::now() + Duration::from_secs(60);
    while json_rows(&out) < 1 {
        assert!(Instant::now() < deadline, "no row was written");
        std::thread::sleep(Duration::from_millis(20));
    }
    let killed = Command::new("kill")
        .args(["-INT", &child.id().to_string()])
        .status()
        .unwrap();
    assert!(killed.success());
    let o = child.wait_with_output().unwrap();
    assert_eq!(o.status.code(), Some(130), "{}", stderr(&o));
    let err = stderr(&o);
    let kept = json_rows(&out);
    assert!(kept < 15, "interrupted before the end");
    assert!(
        err.contains(&format!(
            "tribunal: interrupted: {kept} finished run(s) are kept in {}",
            out.display()
        )),
        "{err}"
    );
    assert!(
        err.contains("the same command with --resume runs the rest"),
        "{err}"
    );
    let resumed = Command::new(tribunal_bin())
        .args(args(&["--resume"]))
        .output()
        .unwrap();
    assert_eq!(resumed.status.code(), Some(0), "{}", stderr(&resumed));
    assert!(
        stderr(&resumed).contains(&format!("{kept} already finished")),
        "{}",
        stderr(&resumed)
    );
    assert_eq!(json_lines(&out).len(), 15);
}

/// The complete rows of a results file so far.
fn json_rows(path: &Path) -> usize {
    std::fs::read_to_string(path).map_or(0, |t| {
        t.split_inclusive('\n')
            .filter(|l| l.ends_with('\n') && !l.trim().is_empty())
            .count()
    })
}

/// A fresh run refuses to empty a results file holding another run's rows
/// (another arena or config hash) unless --force says so; `judge calibrate`
/// writes beside `run`'s file, not over it.
#[test]
fn results_of_another_run_are_never_replaced_without_force() {
    let dir = tempfile::tempdir().unwrap();
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let landmarks = root.join("arenas/structured_output");
    let wrong = root.join("tests/fixtures/wrong_answers");
    let out = dir.path().join("b.jsonl");
    let run_wrong = || {
        tribunal(
            &[
                "run",
                wrong.to_str().unwrap(),
                "--out",
                out.to_str().unwrap(),
                "--min-pass-rate",
                "0",
            ],
            dir.path(),
        )
    };
    let o = run_wrong();
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let before = std::fs::read_to_string(&out).unwrap();

    let o = tribunal(
        &[
            "run",
            landmarks.to_str().unwrap(),
            "--out",
            out.to_str().unwrap(),
        ],
        dir.path(),
    );
    assert_eq!(o.status.code(), Some(2));
    let err = stderr(&o);
    assert!(
        err.contains("holds the results of another run (arena \"wrong_answers\""),
        "{err}"
    );
    assert!(
        err.contains("pass --force to replace them, or --out FILE to write elsewhere"),
        "{err}"
    );
    assert_eq!(
        std::fs::read_to_string(&out).unwrap(),
        before,
        "nothing was overwritten"
    );

    // The same run again replaces its own rows without a word; --force
    // replaces another run's.
    let o = run_wrong();
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let o = tribunal(
        &[
            "run",
            landmarks.to_str().unwrap(),
            "--out",
            out.to_str().unwrap(),
            "--force",
        ],
        dir.path(),
    );
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert!(
        json_lines(&out)
            .iter()
            .all(|r| r["arena"] == "structured_output")
    );

    // `judge calibrate` keeps to its own file.
    let review = root.join("arenas/code_review");
    let o = tribunal(
        &["run", review.to_str().unwrap(), "--min-pass-rate", "0"],
        dir.path(),
    );
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let run_file = dir.path().join("runs/code_review.mock.jsonl");
    let run_rows = std::fs::read_to_string(&run_file).unwrap();
    let o = tribunal(
        &["judge", "calibrate", review.to_str().unwrap()],
        dir.path(),
    );
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert!(
        dir.path()
            .join("runs/code_review.calibrate.mock.jsonl")
            .is_file()
    );
    assert_eq!(std::fs::read_to_string(&run_file).unwrap(), run_rows);
    // README's replay after the mock calibration: a file of its own.
    let cassettes = review.join("cassettes");
    let o = tribunal(
        &[
            "judge",
            "calibrate",
            review.to_str().unwrap(),
            "--backend",
            "openai-chat",
            "--model",
            "qwen",
            "--replay",
            cassettes.to_str().unwrap(),
        ],
        dir.path(),
    );
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let replayed = json_lines(
        &dir.path()
            .join("runs/code_review.calibrate.openai-chat-qwen.replay.jsonl"),
    );
    assert!(
        replayed.iter().all(|r| r["replayed"] == true),
        "{replayed:?}"
    );
}

/// `--items` and `--limit` run a part of an arena; an unknown id is named.
#[test]
fn items_and_limit_run_part_of_an_arena() {
    let dir = tempfile::tempdir().unwrap();
    let (arena, out) = (arena(), dir.path().join("r.jsonl"));
    let a = arena.to_str().unwrap();
    let o = tribunal(
        &[
            "run",
            a,
            "--items",
            "cn-tower,eiffel-tower",
            "--out",
            out.to_str().unwrap(),
        ],
        dir.path(),
    );
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let ids: Vec<String> = json_lines(&out)
        .iter()
        .map(|r| r["id"].as_str().unwrap().to_string())
        .collect();
    assert_eq!(ids.len(), 2);
    assert!(ids.contains(&"cn-tower".to_string()) && ids.contains(&"eiffel-tower".to_string()));

    let o = tribunal(
        &["run", a, "--limit", "3", "--out", out.to_str().unwrap()],
        dir.path(),
    );
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert_eq!(json_lines(&out).len(), 3);

    let o = tribunal(&["run", a, "--items", "eiffel-tower,atlantis"], dir.path());
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("--items:"), "{}", stderr(&o));
    assert!(
        stderr(&o).contains("has no item \"atlantis\""),
        "{}",
        stderr(&o)
    );
    assert!(!dir.path().join("runs").exists());
}

/// `--deadline-secs` sets each run's deadline over arena.toml's; a value
/// that is not a positive number of seconds names the flag.
#[test]
fn deadline_secs_overrides_the_arena_and_refuses_nonsense() {
    let dir = tempfile::tempdir().unwrap();
    let (arena, out) = (arena(), dir.path().join("r.jsonl"));
    let a = arena.to_str().unwrap();
    let o = tribunal(
        &[
            "run",
            a,
            "--limit",
            "2",
            "--mock-latency-ms",
            "400",
            "--deadline-secs",
            "0.1",
            "--min-pass-rate",
            "0",
            "--out",
            out.to_str().unwrap(),
        ],
        dir.path(),
    );
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let rows = json_lines(&out);
    assert_eq!(rows.len(), 2);
    assert!(
        rows.iter().all(|r| r["error_code"] == "deadline_exceeded"),
        "{rows:?}"
    );
    for bad in ["0", "-1", "soon", "inf"] {
        let o = tribunal(&["run", a, "--deadline-secs", bad], dir.path());
        assert_eq!(o.status.code(), Some(2), "{bad}");
        assert!(
            stderr(&o).contains("is not a deadline"),
            "{bad}: {}",
            stderr(&o)
        );
    }
}

/// `--fail-fast` stops starting runs after the first that does not pass
/// (the rows so far kept, exit 1, the count named), and `--resume` runs the
/// rest; `-q` prints no progress line, only the report.
#[test]
fn fail_fast_stops_at_the_first_failure_and_quiet_prints_no_progress() {
    let dir = tempfile::tempdir().unwrap();
    let a = dir.path().join("many");
    std::fs::create_dir_all(&a).unwrap();
    // The first item fails; the other five pass.
    let mut lines = vec![
        r#"{"id": "a0", "input": "x", "checks": [{"type": "contains", "value": "yes"}], "mock": [{"json": "no"}]}"#.to_string(),
    ];
    for i in 1..6 {
        lines.push(format!(
            r#"{{"id": "a{i}", "input": "x", "checks": [{{"type": "contains", "value": "yes"}}], "mock": [{{"json": "yes"}}]}}"#
        ));
    }
    std::fs::write(a.join("dataset.jsonl"), lines.join("\n")).unwrap();
    let out = dir.path().join("r.jsonl");
    let (a, out_s) = (a.to_str().unwrap(), out.to_str().unwrap());
    let base = ["run", a, "--out", out_s, "--concurrency", "1"];
    let o = tribunal(&[&base[..], &["--fail-fast", "-q"]].concat(), dir.path());
    assert_eq!(code(&o), 1, "{}", stderr(&o));
    let err = stderr(&o);
    assert!(err.contains("--fail-fast: stopped starting item runs after one did not pass; 5 item run(s) not started"), "{err}");
    assert!(!err.contains("[1/"), "quiet: no progress line: {err}");
    assert_eq!(json_lines(&out).len(), 1);

    let o = tribunal(&[&base[..], &["--resume"]].concat(), dir.path());
    assert_eq!(code(&o), 1, "the failed item still fails");
    assert!(
        stderr(&o).contains("[1/5]"),
        "progress without -q: {}",
        stderr(&o)
    );
    assert_eq!(json_lines(&out).len(), 6, "the rest ran");
}

/// Keys and base URLs come from the [`Environment`] the caller passes,
/// never from the process: a base URL given only there makes the backend
/// a custom endpoint, and a key missing there is missing.
#[test]
fn prepare_reads_keys_and_base_urls_from_the_environment_it_is_given() {
    use tribunal::judge::{Environment, PlanError, RunPlan};
    use tribunal::runtime::BackendKind;
    let arena = tribunal::judge::Arena::load(
        &Path::new(env!("CARGO_MANIFEST_DIR")).join("arenas/structured_output"),
    )
    .unwrap();
    let plan = RunPlan::live(BackendKind::OpenAiChat, "qwen");
    let local = Environment::from_iter([("OPENAI_BASE_URL", "http://127.0.0.1:9/v1")]);
    let prepared = plan.prepare(&arena, &local).unwrap();
    assert!(prepared.backends().is_custom_endpoint());
    // The hosted API without a key in the given environment: refused,
    // whatever the process holds.
    let refused = plan.prepare(&arena, &Environment::empty()).map(|_| ());
    assert!(
        matches!(&refused, Err(PlanError::Backend(e)) if e.to_string().contains("OPENAI_API_KEY")),
        "{refused:?}"
    );
}

/// The rubric judge's server: `--judge-base-url`, else the run's own
/// `--base-url` when the judge is on the run's provider.
#[test]
fn a_judge_is_reached_at_its_own_base_url_or_the_runs() {
    use tribunal::judge::{Environment, JudgeRoute, RunPlan};
    use tribunal::runtime::BackendKind;
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("arenas/rubric_judge");
    let arena = tribunal::judge::Arena::load(&dir).unwrap();
    let local = Some("http://127.0.0.1:9/v1".to_string());
    // A mock run graded by a judge on a local server: nothing else needed.
    let plan = RunPlan::mock()
        .with_judge(JudgeRoute::Live(BackendKind::OpenAiChat))
        .with_judge_model(Some("qwen".into()))
        .with_judge_base_url(local.clone());
    let env = Environment::empty();
    let prepared = plan.prepare(&arena, &env).unwrap();
    let backends = prepared.backends();
    assert!(backends.is_mock() && backends.judge_on_custom_endpoint());
    // A live run on a local server: its judge (same provider) is there too.
    let plan = RunPlan::live(BackendKind::OpenAiChat, "qwen")
        .with_judge_model(Some("qwen".into()))
        .with_base_url(local);
    let prepared = plan.prepare(&arena, &env).unwrap();
    let backends = prepared.backends();
    assert!(backends.is_custom_endpoint() && backends.judge_on_custom_endpoint());

    let out = tempfile::tempdir().unwrap();
    let a = dir.to_str().unwrap();
    let o = tribunal(
        &["run", a, "--judge-base-url", "http://127.0.0.1:9/v1"],
        out.path(),
    );
    assert_exit_says(&o, 2, "--judge-base-url needs a live judge");
}

/// Refused before anything is connected or written: a `--record` folder
/// is never made.
#[test]
fn approve_ask_is_refused_without_a_terminal() {
    let dir = tempfile::tempdir().unwrap();
    let a = arena();
    let o = tribunal(
        &["run", a.to_str().unwrap(), "--approve", "ask"],
        dir.path(),
    );
    assert_exit_says(&o, 2, "--approve ask needs a terminal");
    let cassettes = dir.path().join("cassettes");
    let o = tribunal(
        &[
            "run",
            a.to_str().unwrap(),
            "--approve",
            "ask",
            "--backend",
            "openai-chat",
            "--model",
            "m",
            "--base-url",
            "http://127.0.0.1:9/v1",
            "--record",
            cassettes.to_str().unwrap(),
        ],
        dir.path(),
    );
    assert_exit_says(&o, 2, "--approve ask needs a terminal");
    assert!(!cassettes.exists(), "nothing connected before the refusal");
    let o = tribunal(
        &["run", a.to_str().unwrap(), "--approve", "ask", "--batch"],
        dir.path(),
    );
    assert_eq!(code(&o), 2);
}

/// The commands `tribunal init` suggests, in order, on the default paths:
/// the mock run, then a live one. Each writes a file named by its backend
/// and model, so the live run is not refused for the mock's results (nor
/// the mock's replaced), and `compare ARENA` finds the two.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_mock_run_and_a_live_run_keep_their_own_files_and_compare_finds_both() {
    use crate::stand_in::{Api, MODEL, live_env, model_server};
    let dir = tempfile::tempdir().unwrap();
    let a = arena();
    let a = a.to_str().unwrap();
    let mock = crate::stand_in::tribunal(&["run", a], dir.path(), &[]).await;
    assert_eq!(code(&mock), 0, "{}", stderr(&mock));
    let mock_file = dir.path().join("runs/structured_output.mock.jsonl");
    assert!(
        stderr(&mock).contains("results: runs/structured_output.mock.jsonl"),
        "{}",
        stderr(&mock)
    );
    let mock_rows = std::fs::read_to_string(&mock_file).unwrap();
    // The mock's file is the older one, whatever the clock's resolution.
    let an_hour_ago = std::time::SystemTime::now() - Duration::from_secs(3600);
    std::fs::File::options()
        .write(true)
        .open(&mock_file)
        .unwrap()
        .set_modified(an_hour_ago)
        .unwrap();

    let (server, _) = model_server(Api::Chat).await;
    let live_args = ["run", a, "--backend", "openai-chat", "--model", MODEL];
    let env = live_env(Api::Chat, &server);
    let live = crate::stand_in::tribunal(&live_args, dir.path(), &env).await;
    assert_eq!(code(&live), 0, "{}", stderr(&live));
    let live_file = format!("runs/structured_output.openai-chat-{MODEL}.jsonl");
    assert!(
        stderr(&live).contains(&format!("results: {live_file}")),
        "{}",
        stderr(&live)
    );
    let live_rows = json_lines(&dir.path().join(&live_file));
    assert_eq!(live_rows.len(), 15);
    assert!(live_rows.iter().all(|r| r["backend"] == "openai-chat"));
    assert_eq!(std::fs::read_to_string(&mock_file).unwrap(), mock_rows);

    let o = tribunal(&["compare", a], dir.path());
    assert_eq!(code(&o), 0, "{}{}", stdout(&o), stderr(&o));
    assert!(
        stderr(&o).contains(&format!(
            "compare: runs/structured_output.mock.jsonl (baseline) → {live_file} (new)"
        )),
        "{}",
        stderr(&o)
    );
    assert!(
        stdout(&o).contains(&format!(
            "compare structured_output (mock · scripted) → structured_output (openai-chat · {MODEL})"
        )),
        "{}",
        stdout(&o)
    );
}

/// `run --html FILE` writes the HTML report in the same step and says
/// where; its items table is HTML (it reads with scripts off), a FAIL row
/// saying why.
#[test]
fn run_html_writes_the_report_page_beside_the_results() {
    let dir = tempfile::tempdir().unwrap();
    let wrong = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/wrong_answers");
    let page = dir.path().join("pages/report.html");
    let o = tribunal(
        &[
            "run",
            wrong.to_str().unwrap(),
            "--html",
            page.to_str().unwrap(),
        ],
        dir.path(),
    );
    assert_eq!(code(&o), 1, "{}", stderr(&o));
    assert!(
        stderr(&o).contains(&format!("report: {} (", page.display())),
        "{}",
        stderr(&o)
    );
    // The terminal report still prints.
    assert!(stdout(&o).contains("MOCK RUN"), "{}", stdout(&o));
    let html = std::fs::read_to_string(&page).unwrap();
    assert!(!html.contains("needs JavaScript"));
    let row = html
        .split(r#"<tr class="item FAIL" data-i=""#)
        .find(|r| r.contains(r#"<td class="id">wrong_value</td>"#))
        .unwrap_or_else(|| panic!("no server-rendered FAIL row for wrong_value"));
    let row = &row[..row.find("</tr>").unwrap()];
    assert!(
        row.contains(r#"<div class="why">json_path_equals: year: expected 1889"#),
        "{row}"
    );
}

/// A mock run measured no tokens and no cost: its report says so in one
/// short line instead of a line of zeros and a $0 cost, in the terminal,
/// Markdown and HTML reports.
#[test]
fn a_mock_report_says_tokens_and_cost_are_not_measured() {
    let dir = tempfile::tempdir().unwrap();
    let a = arena();
    let a = a.to_str().unwrap();
    let said = "tokens and cost: not measured (mock run: the scripted model spends none)";
    let page = dir.path().join("r.html");
    let o = tribunal(&["run", a, "--html", page.to_str().unwrap()], dir.path());
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    let terminal = stdout(&o);
    assert!(terminal.contains(&format!("\n{said}\n")), "{terminal}");
    assert!(!terminal.contains("$0.000000"), "{terminal}");
    assert!(!terminal.contains("tokens 0 over"), "{terminal}");
    let html = std::fs::read_to_string(&page).unwrap();
    assert!(html.contains(said), "{html:.3000}");
    assert!(!html.contains(r#"id="cost""#));
    let o = tribunal(&["run", a, "--report", "markdown"], dir.path());
    assert!(
        stdout(&o).contains(&format!("\n{said}\n")),
        "{}",
        stdout(&o)
    );
    assert!(!stdout(&o).contains("$0.000000"), "{}", stdout(&o));
}

/// Issue #62 point 2: a mock answer that breaks the schema ends its run
/// with the cause `lint` gives (`schema_mismatch: /total: "500" is not of
/// type "number"`), in the report and the row, not `backend_error:
/// script` (the script had no turn for the repair the runtime asked for).
#[test]
fn run_gives_the_cause_lint_gives_for_a_mock_answer_that_breaks_the_schema() {
    let dir = tempfile::tempdir().unwrap();
    let a = dir.path().join("invoices");
    std::fs::create_dir_all(&a).unwrap();
    std::fs::write(a.join("arena.toml"), "schema = \"schema.json\"\n").unwrap();
    std::fs::write(
        a.join("schema.json"),
        r#"{"type": "object", "properties": {"total": {"type": "number"}}, "required": ["total"]}"#,
    )
    .unwrap();
    std::fs::write(
        a.join("dataset.jsonl"),
        r#"{"id": "item-1", "input": "x", "checks": [{"type": "json_schema"}], "mock": [{"json": {"total": "500"}}]}"#,
    )
    .unwrap();
    let cause = r#"/total: "500" is not of type "number""#;
    let o = tribunal(&["lint", a.to_str().unwrap()], dir.path());
    assert!(stdout(&o).contains(cause), "{}", stdout(&o));
    let o = tribunal(&["run", a.to_str().unwrap()], dir.path());
    assert_eq!(code(&o), 1, "{}", stderr(&o));
    let out = stdout(&o);
    let line = out.lines().find(|l| l.starts_with("item-1")).unwrap();
    assert!(line.contains("ERROR"), "{out}");
    assert!(line.contains(&format!("schema_mismatch: {cause}")), "{out}");
    assert!(!out.contains("backend_error"), "{out}");
    let rows = json_lines(&dir.path().join("runs/invoices.mock.jsonl"));
    assert_eq!(rows[0]["error_code"], "schema_mismatch");
    assert!(rows[0].get("backend_failure").is_none());
    assert!(
        rows[0]["error_detail"].as_str().unwrap().starts_with(cause),
        "{}",
        rows[0]
    );
}
