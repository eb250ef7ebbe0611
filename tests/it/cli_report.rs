//! `tribunal report`, `tribunal compare`, and `run --transcripts DIR
//! --report html` through the binary, on the mock structured_output arena.

use crate::tribunal_bin;
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
    let text = std::fs::read_to_string(&results).unwrap();
    let mut lines: Vec<serde_json::Value> = text
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    lines[0]["outcome"] = "FAIL".into();
    lines[0]["checks"][0]["ok"] = false.into();
    let worse = dir.path().join("worse.jsonl");
    let body: String = lines.iter().map(|v| format!("{v}\n")).collect();
    std::fs::write(&worse, body).unwrap();

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
