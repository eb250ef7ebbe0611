//! `tribunal compare` fails closed: a new file that is cut short, empty,
//! torn, of another arena or mixing runs is a failure with its own exit code
//! and message, never a passing gate (exit 0) and never the regression
//! code (1); `--allow-missing` lets a deliberately smaller run through.

use crate::stand_in::{stderr, stdout};
use crate::{json_lines, tribunal_bin};
use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn compare(base: &Path, new: &Path, extra: &[&str]) -> Output {
    Command::new(tribunal_bin())
        .arg("compare")
        .arg(base)
        .arg(new)
        .args(extra)
        .output()
        .unwrap()
}

/// The mock structured_output arena's results (15 rows, all PASS).
fn mock_results(dir: &Path) -> PathBuf {
    let arena = Path::new(env!("CARGO_MANIFEST_DIR")).join("arenas/structured_output");
    let results = dir.join("base.jsonl");
    let o = Command::new(tribunal_bin())
        .arg("run")
        .arg(&arena)
        .arg("--out")
        .arg(&results)
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    results
}

/// Result row `row` as an outage on the provider's side gives it: an
/// ERROR with `backend_error` (HTTP 429), no checks, no answer.
pub(crate) fn as_outage(mut row: Value) -> Value {
    row["outcome"] = "ERROR".into();
    row["error_code"] = "backend_error".into();
    row["backend_failure"] = serde_json::json!({"kind": "http", "status": 429});
    row["checks"] = serde_json::json!([]);
    row["answer"] = Value::Null;
    row
}

fn write_rows(path: &Path, rows: &[Value]) {
    let body: String = rows.iter().map(|r| format!("{r}\n")).collect();
    std::fs::write(path, body).unwrap();
}

/// Exit code and the message that names the problem, for each way the new
/// file can be unfit to gate on.
#[test]
fn each_unfit_input_fails_the_gate_with_its_own_code_and_message() {
    let dir = tempfile::tempdir().unwrap();
    let base = mock_results(dir.path());
    let rows = json_lines(&base);
    assert_eq!(rows.len(), 15);
    let file = |name: &str, body: &str| {
        let path = dir.path().join(name);
        std::fs::write(&path, body).unwrap();
        path
    };

    let cut = dir.path().join("cut.jsonl");
    write_rows(&cut, &rows[..3]);
    let hello = file("hello.jsonl", "hello world");
    let empty = file("empty.jsonl", "");
    let other_arena = dir.path().join("other.jsonl");
    write_rows(
        &other_arena,
        &rows
            .iter()
            .map(|r| {
                let mut r = r.clone();
                r["arena"] = "code_review".into();
                r
            })
            .collect::<Vec<_>>(),
    );
    let torn = dir.path().join("torn.jsonl");
    let mut body = std::fs::read_to_string(&base).unwrap();
    body.push_str("{\"version\": 1, \"arena\": \"structured_out");
    std::fs::write(&torn, body).unwrap();
    let mixed = dir.path().join("mixed.jsonl");
    write_rows(
        &mixed,
        &rows
            .iter()
            .enumerate()
            .map(|(i, r)| {
                let mut r = r.clone();
                if i % 2 == 1 {
                    r["config_hash"] = "0123456789abcdef".into();
                }
                r
            })
            .collect::<Vec<_>>(),
    );

    let cases: [(&Path, &Path, i32, &str); 6] = [
        (
            &base,
            &cut,
            7,
            "missing_runs: 12 item run(s) of the baseline are not in the new file",
        ),
        (
            &base,
            &hello,
            3,
            "no_rows: the new file holds no valid result row",
        ),
        (
            &empty,
            &empty,
            3,
            "no_rows: the baseline file holds no valid result row",
        ),
        (
            &base,
            &other_arena,
            5,
            "arena_mismatch: the baseline holds arena \"structured_output\" and the new file arena \"code_review\"",
        ),
        (
            &base,
            &torn,
            4,
            "torn_file: the new file ends in a torn line",
        ),
        (
            &base,
            &mixed,
            6,
            "mixed_runs: the new file mixes rows of 2 config_hashs",
        ),
    ];
    for (b, n, exit, says) in cases {
        for gate in ["any", "significant"] {
            let o = compare(b, n, &["--gate", gate]);
            let name = n.file_name().unwrap().to_string_lossy();
            assert_eq!(
                o.status.code(),
                Some(exit),
                "{name} --gate {gate}: {}",
                stderr(&o)
            );
            assert!(stderr(&o).contains(says), "{name}: {}", stderr(&o));
            assert!(
                stdout(&o).contains("FAIL (the inputs cannot be gated on: "),
                "{name}: {}",
                stdout(&o)
            );
        }
    }
    // A torn, empty file is both: the first problem decides the code.
    let o = compare(&base, &hello, &[]);
    assert!(
        stderr(&o).contains("torn_file: the new file"),
        "{}",
        stderr(&o)
    );

    // The same file twice still passes: nothing is missing or unfit.
    let o = compare(&base, &base, &[]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
}

#[test]
fn allow_missing_lets_a_smaller_run_through_and_says_how_much_is_missing() {
    let dir = tempfile::tempdir().unwrap();
    let base = mock_results(dir.path());
    let rows = json_lines(&base);
    let cut = dir.path().join("cut.jsonl");
    write_rows(&cut, &rows[..3]);
    let o = compare(&base, &cut, &["--allow-missing"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert!(
        stdout(&o).contains("12 item run(s) only in baseline"),
        "{}",
        stdout(&o)
    );
    assert!(
        stdout(&o).contains("gate any regression: pass"),
        "{}",
        stdout(&o)
    );
    // A regression among the runs that are there still fails the gate.
    let mut worse = rows[..3].to_vec();
    worse[0]["outcome"] = "FAIL".into();
    write_rows(&cut, &worse);
    let o = compare(&base, &cut, &["--allow-missing"]);
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
}

/// Issue 59, row 1: a baseline that stopped early (here after 3 of 15
/// items) once passed the gate on the 3 it ran — the other 12 of the new
/// file were never compared. Runs only in the new file are exit 8,
/// `new_only_runs`, unless `--allow-new-runs` says the baseline is complete
/// and the change added them.
#[test]
fn runs_only_in_the_new_file_fail_the_gate_unless_allowed() {
    let dir = tempfile::tempdir().unwrap();
    let base = mock_results(dir.path());
    let rows = json_lines(&base);
    let cut = dir.path().join("cut.jsonl");
    write_rows(&cut, &rows[..3]);
    // The new file regressed on an item the short baseline never ran.
    let mut worse = rows.clone();
    worse[9]["outcome"] = "FAIL".into();
    let new = dir.path().join("new.jsonl");
    write_rows(&new, &worse);
    for gate in ["any", "significant"] {
        let o = compare(&cut, &new, &["--gate", gate]);
        assert_eq!(o.status.code(), Some(8), "{gate}: {}", stderr(&o));
        assert!(
            stderr(&o)
                .contains("new_only_runs: 12 item run(s) of the new file are not in the baseline"),
            "{}",
            stderr(&o)
        );
    }
    let o = compare(&cut, &new, &["--report", "json"]);
    let json: Value = serde_json::from_str(&stdout(&o)).unwrap();
    assert_eq!(json["exit_code"], 8);
    assert_eq!(json["problems"][0]["code"], "new_only_runs");
    assert_eq!(json["problems"][0]["count"], 12);
    let o = compare(&cut, &new, &["--allow-new-runs"]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert!(
        stdout(&o).contains("12 item run(s) only in new"),
        "{}",
        stdout(&o)
    );
}

/// Issue 59, rows 1 and 2: an outage on the baseline branch (every run a
/// `backend_error`) once made every change pass: ERROR → PASS is a fix and
/// ERROR → FAIL no regression. A baseline run that measured nothing is
/// exit 9, `baseline_errors`, whatever the flags; so is a model's ERROR
/// where the new run FAILs.
#[test]
fn a_baseline_that_measured_nothing_fails_the_gate() {
    let dir = tempfile::tempdir().unwrap();
    let base = mock_results(dir.path());
    let rows = json_lines(&base);
    let outage = dir.path().join("outage.jsonl");
    write_rows(
        &outage,
        &rows.iter().cloned().map(as_outage).collect::<Vec<_>>(),
    );
    let mut worse = rows.clone();
    worse[4]["outcome"] = "FAIL".into();
    let new = dir.path().join("new.jsonl");
    write_rows(&new, &worse);
    for flags in [&[][..], &["--allow-missing", "--allow-new-runs"][..]] {
        let o = compare(&outage, &new, flags);
        assert_eq!(o.status.code(), Some(9), "{flags:?}: {}", stderr(&o));
        assert!(
            stderr(&o).contains(
                "baseline_errors: 15 item run(s) ended in ERROR in the baseline, which measured nothing there (15 the provider's failure"
            ),
            "{}",
            stderr(&o)
        );
    }
    // The model's own ERROR on the baseline, FAIL on the new file.
    let mut model_error = rows.clone();
    model_error[4]["outcome"] = "ERROR".into();
    model_error[4]["error_code"] = "schema_mismatch".into();
    model_error[4]["checks"] = serde_json::json!([]);
    model_error[4]["answer"] = Value::Null;
    let base_error = dir.path().join("base-error.jsonl");
    write_rows(&base_error, &model_error);
    let o = compare(&base_error, &new, &["--report", "json"]);
    assert_eq!(o.status.code(), Some(9), "{}", stderr(&o));
    let json: Value = serde_json::from_str(&stdout(&o)).unwrap();
    assert_eq!(json["problems"][0]["code"], "baseline_errors");
    assert_eq!(json["problems"][0]["backend"], 0);
    // An ERROR the new run passes is a fix, as before.
    let o = compare(&base_error, &base, &[]);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
}

/// `--report json` carries the problems with their codes and the exit code,
/// so a CI step can read why without parsing text; Markdown says it first.
#[test]
fn json_and_markdown_say_why_the_inputs_cannot_be_gated_on() {
    let dir = tempfile::tempdir().unwrap();
    let base = mock_results(dir.path());
    let cut = dir.path().join("cut.jsonl");
    write_rows(&cut, &json_lines(&base)[..3]);
    let o = compare(&base, &cut, &["--report", "json"]);
    assert_eq!(o.status.code(), Some(7));
    let json: Value = serde_json::from_str(&stdout(&o)).unwrap();
    assert_eq!(json["gate_fails"], true);
    assert_eq!(json["exit_code"], 7);
    assert_eq!(json["problems"][0]["code"], "missing_runs");
    assert_eq!(json["problems"][0]["count"], 12);
    assert_eq!(json["problems"][0]["first"].as_array().unwrap().len(), 5);
    let o = compare(&base, &cut, &["--report", "markdown"]);
    assert!(
        stdout(&o)
            .contains("> **The inputs cannot be gated on:**\n> - `missing_runs: 12 item run(s)"),
        "{}",
        stdout(&o)
    );
    let o = compare(&base, &base, &["--report", "json"]);
    let json: Value = serde_json::from_str(&stdout(&o)).unwrap();
    assert_eq!(json["exit_code"], 0);
    assert!(json.get("problems").is_none(), "{json}");
}

/// A dataset passed by mistake is no results file: exit 3 (`no_rows`, as
/// README's exit codes say), saying what it looks like; an empty file's
/// side is named as having no rows, never as a broken `( · )`.
#[test]
fn a_dataset_or_an_empty_file_is_no_results_and_says_so() {
    let dir = tempfile::tempdir().unwrap();
    let base = mock_results(dir.path());
    let dataset =
        Path::new(env!("CARGO_MANIFEST_DIR")).join("arenas/structured_output/dataset.jsonl");
    for gate in ["any", "significant"] {
        let o = compare(&base, &dataset, &["--gate", gate]);
        assert_eq!(o.status.code(), Some(3), "{}", stderr(&o));
        assert!(
            stderr(&o).contains("dataset.jsonl: it looks like a dataset (its lines are items: id, input, checks), not results"),
            "{}",
            stderr(&o)
        );
        assert!(
            stderr(&o).contains("no_rows: the new file"),
            "{}",
            stderr(&o)
        );
        assert!(
            stdout(&o).contains("FAIL (the inputs cannot be gated on: no_rows)"),
            "{}",
            stdout(&o)
        );
    }
    // A results file damaged on one line is still an unreadable input.
    let damaged = dir.path().join("damaged.jsonl");
    let mut body = std::fs::read_to_string(&base).unwrap();
    body.push_str("{\"not\": \"a row\"}\n");
    std::fs::write(&damaged, body).unwrap();
    let o = compare(&base, &damaged, &[]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));

    let empty = dir.path().join("empty.jsonl");
    std::fs::write(&empty, "").unwrap();
    let o = compare(&base, &empty, &[]);
    assert_eq!(o.status.code(), Some(3), "{}", stderr(&o));
    let text = stdout(&o);
    assert!(
        text.starts_with("compare structured_output (mock · scripted) → (no result rows)\n"),
        "{text}"
    );
    assert!(!text.contains("( · )"), "{text}");
    let o = compare(&base, &empty, &["--report", "markdown"]);
    assert!(
        stdout(&o).contains("New: no result rows."),
        "{}",
        stdout(&o)
    );
}

/// A run that went PASS → FAIL is listed with why, not only which check:
/// the failed check's detail, clipped to 120 characters, in every format.
#[test]
fn a_regression_says_why_its_check_failed_in_every_format() {
    let dir = tempfile::tempdir().unwrap();
    let base = mock_results(dir.path());
    let rows = json_lines(&base);
    let failed = |detail: &str| -> Vec<Value> {
        let mut rows = rows.clone();
        rows[0]["outcome"] = "FAIL".into();
        let checks = rows[0]["checks"].as_array_mut().unwrap();
        let check = checks
            .iter_mut()
            .find(|c| c["type"] == "json_path_equals")
            .unwrap();
        check["ok"] = false.into();
        check["detail"] = detail.into();
        rows
    };
    let id = rows[0]["id"].as_str().unwrap().to_string();
    let new = dir.path().join("new.jsonl");
    write_rows(&new, &failed("year: expected 1889, got 1890"));
    let why = "json_path_equals: year: expected 1889, got 1890";

    let o = compare(&base, &new, &[]);
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    assert!(
        stdout(&o).contains(&format!("REGRESSION {id} #0: PASS → FAIL ({why})\n")),
        "{}",
        stdout(&o)
    );
    let o = compare(&base, &new, &["--report", "markdown"]);
    assert!(
        stdout(&o).contains(&format!("| `{id}` | 0 | PASS | FAIL | `{why}` |")),
        "{}",
        stdout(&o)
    );
    let o = compare(&base, &new, &["--report", "comment"]);
    assert!(
        stdout(&o).contains(&format!("- `{id}` #0: PASS → FAIL (`{why}`)\n")),
        "{}",
        stdout(&o)
    );
    let o = compare(&base, &new, &["--report", "json"]);
    let json: Value = serde_json::from_str(&stdout(&o)).unwrap();
    assert_eq!(
        json["changes"][0]["failed_details"][0],
        "year: expected 1889, got 1890"
    );
    let page = dir.path().join("compare.html");
    let o = compare(&base, &new, &["--html", page.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(1));
    let html = std::fs::read_to_string(&page).unwrap();
    assert!(html.contains(why), "{html:.2000}");

    // A long detail is cut to 120 characters, ending in `…`.
    write_rows(&new, &failed(&format!("year: {}", "x".repeat(500))));
    let o = compare(&base, &new, &[]);
    let line = stdout(&o)
        .lines()
        .find(|l| l.contains("REGRESSION"))
        .unwrap()
        .to_string();
    let why = &line[line.find("(json_path_equals").unwrap() + 1..line.len() - 1];
    assert_eq!(why.chars().count(), 120, "{line}");
    assert!(why.ends_with('…'), "{line}");
}

/// `compare ARENA` compares the arena's two newest results files in
/// `runs/` (the older as the baseline) and says which; with fewer than
/// two it says what it found. Shards, calibrations and another arena's
/// files are not among them.
#[test]
fn compare_of_an_arena_folder_takes_its_two_newest_results() {
    let dir = tempfile::tempdir().unwrap();
    let arena = Path::new(env!("CARGO_MANIFEST_DIR")).join("arenas/structured_output");
    let runs = dir.path().join("runs");
    std::fs::create_dir_all(&runs).unwrap();
    let o = crate::tribunal(&["compare", arena.to_str().unwrap()], dir.path());
    assert_eq!(o.status.code(), Some(2));
    assert!(
        stderr(&o).contains(
            "runs/ holds 0 results file(s) of arena \"structured_output\"; compare needs two"
        ),
        "{}",
        stderr(&o)
    );
    let rows = json_lines(&mock_results(dir.path()));
    let mut worse = rows.clone();
    worse[1]["outcome"] = "ERROR".into();
    worse[1]["checks"] = Value::Array(Vec::new());
    worse[1]["answer"] = Value::Null;
    worse[1]["error_code"] = "schema_mismatch".into();
    let hour = std::time::Duration::from_secs(3600);
    let now = std::time::SystemTime::now();
    let place = |name: &str, rows: &[Value], hours_ago: u32| {
        let path = runs.join(name);
        write_rows(&path, rows);
        std::fs::File::options()
            .write(true)
            .open(&path)
            .unwrap()
            .set_modified(now - hour * hours_ago)
            .unwrap();
    };
    place("structured_output.mock.jsonl", &rows, 5);
    place("structured_output.openai-chat-old.jsonl", &rows, 3);
    place("structured_output.openai-chat-new.jsonl", &worse, 2);
    // Newer, but not candidates.
    place("structured_output.mock.shard-1-of-2.jsonl", &rows[..3], 1);
    place("structured_output.calibrate.mock.jsonl", &rows, 1);
    let other: Vec<Value> = rows
        .iter()
        .map(|r| {
            let mut r = r.clone();
            r["arena"] = "structured_output.v2".into();
            r
        })
        .collect();
    place("structured_output.v2.mock.jsonl", &other, 0);

    let o = crate::tribunal(&["compare", arena.to_str().unwrap()], dir.path());
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    assert!(
        stderr(&o).contains("compare: runs/structured_output.openai-chat-old.jsonl (baseline) → runs/structured_output.openai-chat-new.jsonl (new), the newest two of 3"),
        "{}",
        stderr(&o)
    );
    assert!(
        stdout(&o).contains("PASS → ERROR (schema_mismatch)"),
        "{}",
        stdout(&o)
    );

    // A folder and a file, or one file alone, is a usage error.
    let one = runs.join("structured_output.mock.jsonl");
    let o = crate::tribunal(&["compare", one.to_str().unwrap()], dir.path());
    assert_eq!(o.status.code(), Some(2));
    assert!(
        stderr(&o).contains("compare needs two results files"),
        "{}",
        stderr(&o)
    );
    let o = crate::tribunal(
        &["compare", arena.to_str().unwrap(), one.to_str().unwrap()],
        dir.path(),
    );
    assert_eq!(o.status.code(), Some(2));
}
