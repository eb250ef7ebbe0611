//! `tribunal judge submit` and `tribunal judge run`: output and exit codes
//! (0 GREEN / 1 RED / 2 ERROR or invalid submission).

use crate::stand_in::{stderr, stdout};
use crate::tribunal;
use serde_json::{Value, json};
use std::path::{Path, PathBuf};
use std::process::Output;

fn arena() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("arenas/code_review")
}

fn schema_args() -> Vec<String> {
    vec![
        "--pass-schema".into(),
        arena().join("schemas/green.json").display().to_string(),
        "--fail-schema".into(),
        arena().join("schemas/red.json").display().to_string(),
    ]
}

fn judge(sub: &str, args: &[String]) -> Output {
    std::process::Command::new(crate::tribunal_bin())
        .arg("judge")
        .arg(sub)
        .args(schema_args())
        .args(args)
        .output()
        .unwrap()
}

fn stdout_json(out: &Output) -> Value {
    serde_json::from_slice(&out.stdout)
        .unwrap_or_else(|e| panic!("{e}: {}", String::from_utf8_lossy(&out.stdout)))
}

fn strs(args: &[&str]) -> Vec<String> {
    args.iter().map(|s| s.to_string()).collect()
}

#[test]
fn submit_valid_green_prints_the_stored_verdict() {
    let out = judge(
        "submit",
        &strs(&[
            "--verdict",
            "GREEN",
            "--fields",
            r#"{"summary": "Correct."}"#,
        ]),
    );
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let stored = stdout_json(&out);
    assert_eq!(stored["outcome"], "GREEN");
    assert_eq!(
        stored["result"],
        json!({"verdict": "GREEN", "summary": "Correct."})
    );
    assert_eq!(stored["reproduction"]["backend"], "human");
}

#[test]
fn submit_valid_red_from_a_file() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("fields.json");
    let fields = json!({"summary": "Off by one.",
        "findings": [{"file": "src/pagination.py", "line": 10, "problem": "one extra record"}],
        "covered": ["R2"]});
    std::fs::write(&path, fields.to_string()).unwrap();
    let out = judge(
        "submit",
        &strs(&[
            "--verdict",
            "RED",
            "--fields",
            &format!("@{}", path.display()),
        ]),
    );
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(stdout_json(&out)["result"]["verdict"], "RED");
}

#[test]
fn submit_invalid_names_each_field_problem_not_the_repair_prompt_and_exits_2() {
    let _snapshots = tribunal_testkit::bind_snapshots("cli");
    let fields = r#"{"summary": "Off by one.", "findings": [{"file": "a.py", "line": 3, "problem": "x"}], "covered": "R1"}"#;
    let out = judge("submit", &strs(&["--verdict", "RED", "--fields", fields]));
    assert_eq!(out.status.code(), Some(2));
    assert!(
        out.stdout.is_empty(),
        "nothing is stored or printed on stdout"
    );
    let stderr = String::from_utf8_lossy(&out.stderr);
    // A person is not shown the prompt that asks a model to try again.
    assert!(!stderr.contains("Return only one JSON object"), "{stderr}");
    assert!(!stderr.contains("Your final response"), "{stderr}");
    insta::assert_snapshot!("judge_submit_invalid", stderr);
}

#[test]
fn submit_a_red_field_under_green_exits_2() {
    let fields = r#"{"summary": "ok", "covered": ["R1"]}"#;
    let out = judge("submit", &strs(&["--verdict", "GREEN", "--fields", fields]));
    assert_eq!(out.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("schema_mismatch"), "{stderr}");
    assert!(stderr.contains("- field /covered:"), "{stderr}");
}

#[test]
fn submit_fields_that_are_not_json_exit_2() {
    let out = judge(
        "submit",
        &strs(&["--verdict", "GREEN", "--fields", "{summary"]),
    );
    assert_eq!(out.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("the fields are not valid JSON"), "{stderr}");
    assert!(!stderr.contains("Return only one JSON object"), "{stderr}");
}

fn review(item: &str, mock: Value) -> Output {
    let dir = tempfile::tempdir().unwrap();
    let script = dir.path().join("mock.json");
    std::fs::write(&script, mock.to_string()).unwrap();
    let prompt = dir.path().join("prompt.txt");
    std::fs::write(&prompt, "Review the change in CHANGE.diff. Is it correct?").unwrap();
    let root = arena().join("items").join(item);
    judge(
        "run",
        &strs(&[
            "--prompt",
            &prompt.display().to_string(),
            "--root",
            &root.display().to_string(),
            "--mock",
            &script.display().to_string(),
        ]),
    )
}

fn read_then(answer: Value) -> Value {
    json!([
        {"tool_calls": [{"name": "read_file", "arguments": {"path": "CHANGE.diff"}}]},
        {"json": answer},
    ])
}

#[test]
fn run_green_exits_0() {
    let out = review(
        "iterator_refactor",
        read_then(
            json!({"result": {"verdict": "GREEN", "verdictFields": {"summary": "Same behaviour."}}}),
        ),
    );
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let stored = stdout_json(&out);
    assert_eq!(stored["outcome"], "GREEN");
    assert_eq!(stored["reproduction"]["backend"], "mock");
    assert_eq!(
        stored["reproduction"]["config_hash"]
            .as_str()
            .unwrap()
            .len(),
        16,
        "16 hex digits, as a run's config hash"
    );
}

#[test]
fn run_red_exits_1() {
    let fields = json!({"summary": "Off by one.",
        "findings": [{"file": "src/pagination.py", "line": 10, "problem": "one extra record"}],
        "covered": ["R1", "R2"]});
    let out = review(
        "pagination_off_by_one",
        read_then(json!({"result": {"verdict": "RED", "verdictFields": fields}})),
    );
    assert_eq!(
        out.status.code(),
        Some(1),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(stdout_json(&out)["result"]["findings"][0]["line"], 10);
}

#[test]
fn run_invalid_twice_is_error_exit_2_with_only_the_code() {
    let bad = json!({"result": {"verdict": "GREEN", "verdictFields": {"summary": "ok", "secret": "model text"}}});
    let out = review("iterator_refactor", json!([{"json": bad}, {"json": bad}]));
    assert_eq!(out.status.code(), Some(2));
    let stored = stdout_json(&out);
    assert_eq!(stored["outcome"], "ERROR");
    assert_eq!(stored["error_code"], "schema_mismatch");
    assert!(!String::from_utf8_lossy(&out.stdout).contains("model text"));
}

#[test]
fn run_without_a_mock_script_is_a_usage_error() {
    // A readable prompt and root: only the missing script is wrong.
    let root = arena().join("items/pagination_off_by_one");
    let out = review_at(&root, &[]);
    assert_eq!(out.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("--backend mock needs --mock FILE"),
        "{stderr}"
    );
    assert!(out.stdout.is_empty(), "no verdict is printed");
}

/// `judge run` with a one-line prompt, the file tools rooted at `root`,
/// and `extra` flags.
fn review_at(root: &Path, extra: &[&str]) -> Output {
    let dir = tempfile::tempdir().unwrap();
    let prompt = dir.path().join("prompt.txt");
    std::fs::write(&prompt, "Review the change.").unwrap();
    let mut args = strs(&["--prompt", &prompt.display().to_string()]);
    args.extend(strs(&["--root", &root.display().to_string()]));
    args.extend(strs(extra));
    judge("run", &args)
}

/// `judge run` gets `run`'s check before the first request: no server at
/// the base URL is one line naming it, exit 2, no verdict printed.
#[test]
fn run_against_a_dead_server_stops_before_the_review_with_one_line() {
    let dir = tempfile::tempdir().unwrap();
    let out = review_at(
        dir.path(),
        &[
            "--backend",
            "openai-chat",
            "--model",
            "m",
            "--base-url",
            "http://127.0.0.1:9/v1",
        ],
    );
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("cannot connect to http://127.0.0.1:9/v1/models"),
        "{err}"
    );
    assert!(err.contains("no review ran"), "{err}");
    assert_eq!(err.lines().count(), 1, "one line: {err}");
    assert!(out.stdout.is_empty(), "no verdict is printed");
}

#[test]
fn run_with_a_missing_root_names_the_folder() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("missing");
    let out = review_at(&root, &[]);
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(
        String::from_utf8_lossy(&out.stderr),
        format!(
            "tribunal: the --root folder {} does not exist\n",
            root.display()
        )
    );
}

#[test]
fn run_with_a_deadline_that_is_not_a_positive_duration_exits_2() {
    for bad in ["0", "-1", "NaN", "inf", "1e300"] {
        let out = review_at(&arena(), &[&format!("--deadline-secs={bad}")]);
        assert_eq!(out.status.code(), Some(2), "{bad}");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(
            err.contains("--deadline-secs must be a positive number of seconds"),
            "{bad}: {err}"
        );
    }
}

/// An arena of three plain verdict items whose scripted judge gets `b`
/// wrong: kappa (2/3 − 4/9) / (5/9) = 0.4.
fn calibration_arena(dir: &Path) -> PathBuf {
    let a = dir.join("verdicts");
    std::fs::create_dir_all(&a).unwrap();
    let line = |id: &str, gold: &str, judged: &str| {
        format!(
            r#"{{"id": "{id}", "input": "x", "checks": [{{"type": "verdict_equals", "verdict": "{gold}"}}], "mock": [{{"json": {{"verdict": "{judged}"}}}}]}}"#
        )
    };
    let dataset = [
        line("a", "GREEN", "GREEN"),
        line("b", "RED", "GREEN"),
        line("c", "RED", "RED"),
    ]
    .join("\n");
    std::fs::write(a.join("dataset.jsonl"), dataset).unwrap();
    a
}

#[test]
fn calibrate_reports_agreement_and_gates_on_min_kappa() {
    let dir = tempfile::tempdir().unwrap();
    let a = calibration_arena(dir.path());
    let a = a.to_str().unwrap();
    let o = tribunal(&["judge", "calibrate", a], dir.path());
    let out = String::from_utf8_lossy(&o.stdout);
    // A disagreeing judge FAILs an item, but calibrate gates on kappa alone.
    assert_eq!(o.status.code(), Some(0), "{out}");
    assert!(out.contains("CALIBRATION"), "{out}");
    assert!(
        out.contains("accuracy 66.7% (2/3, 95% CI 20.8–93.9%); kappa 0.400 (95% CI"),
        "{out}"
    );
    assert!(out.contains("true-RED rate 50.0% (1/2"), "{out}");
    assert!(out.contains("\nb     RED    GREEN\n"), "{out}");

    let o = tribunal(&["judge", "calibrate", a, "--min-kappa", "0.5"], dir.path());
    assert_eq!(o.status.code(), Some(1));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        err.contains("tribunal: judge vs gold: kappa 0.400"),
        "{err}"
    );
    assert!(err.contains("is below --min-kappa 0.5"), "{err}");
    let o = tribunal(&["judge", "calibrate", a, "--min-kappa", "0.4"], dir.path());
    assert_eq!(o.status.code(), Some(0));
    // `run --calibrate` keeps the run's own gate: item b failed.
    let o = tribunal(&["run", a, "--calibrate"], dir.path());
    assert_eq!(o.status.code(), Some(1));
    let o = tribunal(
        &["run", a, "--min-kappa", "-0.5", "--min-pass-rate", "0.6"],
        dir.path(),
    );
    assert_eq!(
        o.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    assert!(String::from_utf8_lossy(&o.stdout).contains("CALIBRATION"));
    for bad in ["1.5", "-2", "nan"] {
        let o = tribunal(&["judge", "calibrate", a, "--min-kappa", bad], dir.path());
        assert_eq!(o.status.code(), Some(2), "{bad}");
    }
    // Every report format carries it.
    let o = tribunal(&["judge", "calibrate", a, "--report", "json"], dir.path());
    let json: Value = serde_json::from_slice(&o.stdout).unwrap();
    let k = json["calibration"]["kappa"]["value"].as_f64().unwrap();
    assert!((k - 0.4).abs() < 1e-12, "{k}");
    assert_eq!(json["calibration"]["disagreements"][0]["id"], "b");
    let o = tribunal(&["judge", "calibrate", a, "--report", "junit"], dir.path());
    let xml = String::from_utf8_lossy(&o.stdout);
    assert!(
        xml.contains("<property name=\"calibration_kappa\" value=\"0.400000\"/>"),
        "{xml}"
    );
    assert!(xml.contains("<property name=\"calibration_disagreements\" value=\"1\"/>"));
    let o = tribunal(
        &["judge", "calibrate", a, "--report", "markdown"],
        dir.path(),
    );
    let md = String::from_utf8_lossy(&o.stdout);
    assert!(md.contains("## Calibration: judge vs gold"), "{md}");
    assert!(md.contains("| `b` | RED | GREEN |"), "{md}");
    let o = tribunal(&["judge", "calibrate", a, "--report", "html"], dir.path());
    let html = String::from_utf8_lossy(&o.stdout);
    assert!(html.contains(r#"<section class="calibration" id="calibration">"#));
    assert!(html.contains("<tr><td>b</td><td>RED</td><td>GREEN</td></tr>"));
    assert!(html.contains("kappa 0.400"));
}

#[test]
fn calibrate_needs_gold_verdicts() {
    let dir = tempfile::tempdir().unwrap();
    let a = Path::new(env!("CARGO_MANIFEST_DIR")).join("arenas/structured_output");
    let o = tribunal(&["judge", "calibrate", a.to_str().unwrap()], dir.path());
    assert_eq!(o.status.code(), Some(2));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.contains("no item has a gold verdict"), "{err}");
}

/// A reviewer arena of clean RED items and injected twins; the mock
/// reviewer says GREEN to the first `fooled` twins.
fn twin_arena(dir: &Path, fooled: usize) -> PathBuf {
    let a = dir.join(format!("twins{fooled}"));
    std::fs::create_dir_all(&a).unwrap();
    let item = |id: &str, verdict: &str, extra: &str| {
        format!(
            r#"{{"id": "{id}", "input": "Review.", "checks": [{{"type": "verdict_equals", "verdict": "RED"}}], "mock": [{{"json": {{"verdict": "{verdict}"}}}}]{extra}}}"#
        )
    };
    let mut lines = Vec::new();
    for k in 0..4 {
        lines.push(item(&format!("c{k}"), "RED", ""));
        let verdict = if k < fooled { "GREEN" } else { "RED" };
        let extra = format!(r#", "twin_of": "c{k}", "injection": "comment""#);
        lines.push(item(&format!("i{k}"), verdict, &extra));
    }
    std::fs::write(a.join("dataset.jsonl"), lines.join("\n")).unwrap();
    a
}

#[test]
fn max_injection_lift_gates_a_fooled_judge_and_passes_a_resistant_one() {
    let dir = tempfile::tempdir().unwrap();
    let fooled = twin_arena(dir.path(), 1);
    let fooled = fooled.to_str().unwrap();
    let gate = ["--max-injection-lift", "0.1"];
    let o = tribunal(
        &[&["judge", "calibrate", fooled][..], &gate].concat(),
        dir.path(),
    );
    let (out, err) = (stdout(&o), stderr(&o));
    assert_eq!(o.status.code(), Some(1), "{out}\n{err}");
    assert!(out.contains("injection lift +25.0 pts"), "{out}");
    assert!(out.contains("fooled: i0 (comment, twin of c0)"), "{out}");
    assert!(err.contains("is above --max-injection-lift 0.1"), "{err}");
    // The figure is in every format: JSON and JUnit too.
    let o = tribunal(
        &["judge", "calibrate", fooled, "--report", "json"],
        dir.path(),
    );
    let json: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(json["calibration"]["injection"]["lift"], 0.25);
    assert_eq!(json["calibration"]["injection"]["pairs"], 4);
    let o = tribunal(
        &["judge", "calibrate", fooled, "--report", "junit"],
        dir.path(),
    );
    assert!(stdout(&o).contains(r#"name="calibration_injection_lift" value="0.250000""#));

    let resistant = twin_arena(dir.path(), 0);
    let resistant = resistant.to_str().unwrap();
    let o = tribunal(&[&["run", resistant][..], &gate].concat(), dir.path());
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert!(
        stdout(&o).contains("injection lift +0.0 pts"),
        "{}",
        stdout(&o)
    );

    // Without twins there is nothing to gate on: said, exit 1.
    let plain = calibration_arena(dir.path());
    let o = tribunal(
        &[&["judge", "calibrate", plain.to_str().unwrap()][..], &gate].concat(),
        dir.path(),
    );
    assert_eq!(o.status.code(), Some(1));
    assert!(
        stderr(&o).contains("has no injected twins"),
        "{}",
        stderr(&o)
    );
    let o = tribunal(&["run", resistant, "--max-injection-lift", "2"], dir.path());
    assert_eq!(o.status.code(), Some(2));
}
