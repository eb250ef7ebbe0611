//! `tribunal report`, `tribunal compare`, and `run --transcripts DIR
//! --report html` through the binary, on the mock structured_output arena.

use crate::{json_lines, tribunal_bin};
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn arena() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("arenas/structured_output")
}

fn tribunal(args: &[&std::ffi::OsStr]) -> Output {
    Command::new(tribunal_bin()).args(args).output().unwrap()
}

fn os<S: AsRef<std::ffi::OsStr> + ?Sized>(s: &S) -> &std::ffi::OsStr {
    s.as_ref()
}

/// Writes `lines` as a JSON Lines file.
fn write_json_lines(path: &Path, lines: &[serde_json::Value]) {
    let body: String = lines.iter().map(|v| format!("{v}\n")).collect();
    std::fs::write(path, body).unwrap();
}

/// Runs the arena in mock mode with transcripts and an HTML report.
fn mock_run(dir: &Path) -> (PathBuf, PathBuf) {
    let results = dir.join("results.jsonl");
    let transcripts = dir.join("transcripts");
    let html = dir.join("run.html");
    let out = tribunal(&[
        os("run"),
        os(&arena()),
        os("--out"),
        os(&results),
        os("--transcripts"),
        os(&transcripts),
        os("--report"),
        os("html"),
        os("--report-file"),
        os(&html),
    ]);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let page = std::fs::read_to_string(&html).unwrap();
    assert!(page.starts_with("<!DOCTYPE html>"));
    assert!(page.contains(r#"id="mock-banner""#));
    assert!(page.contains(r#""messages":"#), "transcripts are embedded");
    (results, transcripts)
}

#[test]
fn cli_run_writes_transcripts_and_report_renders_them() {
    let dir = tempfile::tempdir().unwrap();
    let (results, transcripts) = mock_run(dir.path());
    let files = std::fs::read_dir(&transcripts).unwrap().count();
    assert_eq!(files, 15, "one transcript per item");
    let one = std::fs::read_to_string(transcripts.join("eiffel-tower.r0.json")).unwrap();
    let t: serde_json::Value = serde_json::from_str(&one).unwrap();
    assert!(t["conversation"]["messages"].as_array().unwrap().len() >= 3);
    assert!(t["report"]["usage"].is_object());

    let html = dir.path().join("out/report.html");
    let out = tribunal(&[
        os("report"),
        os(&results),
        os("--html"),
        os(&html),
        os("--transcripts"),
        os(&transcripts),
    ]);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let page = std::fs::read_to_string(&html).unwrap();
    assert!(page.contains(r#"id="count-pass">15<"#));
    assert_eq!(page.matches(r#""messages":"#).count(), 15);

    // Without --html: the terminal table.
    let out = tribunal(&[os("report"), os(&results)]);
    assert_eq!(out.status.code(), Some(0));
    assert!(String::from_utf8_lossy(&out.stdout).contains("MOCK RUN"));
}

#[test]
fn cli_compare_exits_1_on_regression_only() {
    let dir = tempfile::tempdir().unwrap();
    let (results, _) = mock_run(dir.path());

    let same = tribunal(&[os("compare"), os(&results), os(&results)]);
    assert_eq!(
        same.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&same.stdout)
    );

    // The new file: the first row now fails one check.
    let mut lines = json_lines(&results);
    lines[0]["outcome"] = "FAIL".into();
    lines[0]["checks"][0]["ok"] = false.into();
    let worse = dir.path().join("worse.jsonl");
    write_json_lines(&worse, &lines);

    let html = dir.path().join("compare.html");
    let out = tribunal(&[
        os("compare"),
        os(&results),
        os(&worse),
        os("--html"),
        os(&html),
    ]);
    assert_eq!(out.status.code(), Some(1));
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(stdout.contains("1 regression(s)"), "{stdout}");
    assert!(stdout.contains("REGRESSION"));
    assert!(
        std::fs::read_to_string(&html)
            .unwrap()
            .contains("change regression")
    );

    // The reverse is a fix: exit 0.
    let back = tribunal(&[os("compare"), os(&worse), os(&results)]);
    assert_eq!(back.status.code(), Some(0));
    assert!(String::from_utf8_lossy(&back.stdout).contains("1 fix(es)"));
}

#[test]
fn cli_report_and_compare_exit_2_on_unreadable_input() {
    let dir = tempfile::tempdir().unwrap();
    let missing = dir.path().join("missing.jsonl");
    let bad = dir.path().join("bad.jsonl");
    std::fs::write(&bad, "not json\n{\"also\": \"not a row\"}\n").unwrap();
    for input in [&missing, &bad] {
        let out = tribunal(&[
            os("report"),
            os(input),
            os("--html"),
            os(&dir.path().join("r.html")),
        ]);
        assert_eq!(out.status.code(), Some(2), "report {}", input.display());
        let out = tribunal(&[os("compare"), os(input), os(input)]);
        assert_eq!(out.status.code(), Some(2), "compare {}", input.display());
    }
}

/// A row whose error code this version does not know is a corrupt line:
/// `report` and `compare` exit 2 naming the file and line, and never read
/// it as some other code.
#[test]
fn cli_report_and_compare_name_the_line_of_an_unknown_error_code() {
    let dir = tempfile::tempdir().unwrap();
    let (results, _) = mock_run(dir.path());
    let mut lines = json_lines(&results);
    lines[1]["outcome"] = "ERROR".into();
    lines[1]["error_code"] = "no_such_code".into();
    lines[1]["checks"] = serde_json::json!([]);
    lines[1]["answer"] = serde_json::Value::Null;
    let bad = dir.path().join("unknown-code.jsonl");
    write_json_lines(&bad, &lines);
    let at_line = format!("{}:2: not a result row", bad.display());
    for args in [
        vec![os("report"), os(&bad)],
        vec![os("compare"), os(&results), os(&bad)],
    ] {
        let out = tribunal(&args);
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {stderr}");
        assert!(stderr.contains(&at_line), "{args:?}: {stderr}");
        assert!(stderr.contains("no_such_code"), "{args:?}: {stderr}");
    }
}
