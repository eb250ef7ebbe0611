//! `tribunal report`, `tribunal compare`, and `run --transcripts DIR
//! --report html` through the binary, on the mock structured_output arena.

use crate::json_lines;
use crate::tribunal_here;
use std::path::{Path, PathBuf};

fn arena() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("arenas/structured_output")
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
    let out = tribunal_here(&[
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
    let out = tribunal_here(&[
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
    let out = tribunal_here(&[os("report"), os(&results)]);
    assert_eq!(out.status.code(), Some(0));
    assert!(String::from_utf8_lossy(&out.stdout).contains("MOCK RUN"));
}

#[test]
fn cli_compare_exits_1_on_regression_only() {
    let dir = tempfile::tempdir().unwrap();
    let (results, _) = mock_run(dir.path());

    let same = tribunal_here(&[os("compare"), os(&results), os(&results)]);
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
    let out = tribunal_here(&[
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
    let back = tribunal_here(&[os("compare"), os(&worse), os(&results)]);
    assert_eq!(back.status.code(), Some(0));
    assert!(String::from_utf8_lossy(&back.stdout).contains("1 fix(es)"));
}

#[test]
fn cli_report_exits_2_and_compare_2_or_3_on_unreadable_input() {
    let dir = tempfile::tempdir().unwrap();
    let missing = dir.path().join("missing.jsonl");
    let bad = dir.path().join("bad.jsonl");
    std::fs::write(&bad, "not json\n{\"also\": \"not a row\"}\n").unwrap();
    for input in [&missing, &bad] {
        let out = tribunal_here(&[
            os("report"),
            os(input),
            os("--html"),
            os(&dir.path().join("r.html")),
        ]);
        assert_eq!(out.status.code(), Some(2), "report {}", input.display());
    }
    // `compare` cannot read a missing file (2); a file without one result
    // row is "not results at all" (3, `no_rows`: the gate fails closed).
    for (input, exit) in [(&missing, 2), (&bad, 3)] {
        let out = tribunal_here(&[os("compare"), os(input), os(input)]);
        assert_eq!(out.status.code(), Some(exit), "compare {}", input.display());
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
        let out = tribunal_here(&args);
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {stderr}");
        assert!(stderr.contains(&at_line), "{args:?}: {stderr}");
        assert!(stderr.contains("no_such_code"), "{args:?}: {stderr}");
    }
}

/// Twenty live-looking rows (backend `openai-chat`), all PASS, made from a
/// mock run's first row; and the same with the first `flips` turned FAIL.
fn live_pair(dir: &Path, flips: usize) -> (PathBuf, PathBuf) {
    let (results, _) = mock_run(dir);
    let template = json_lines(&results).remove(0);
    let rows: Vec<serde_json::Value> = (0..20)
        .map(|i| {
            let mut r = template.clone();
            r["id"] = format!("item-{i:02}").into();
            r["index"] = i.into();
            r["backend"] = "openai-chat".into();
            r["model"] = "gpt-x".into();
            r
        })
        .collect();
    let base = dir.join(format!("base-{flips}.jsonl"));
    write_json_lines(&base, &rows);
    let mut worse = rows;
    for r in worse.iter_mut().take(flips) {
        r["outcome"] = "FAIL".into();
        r["checks"][0]["ok"] = false.into();
    }
    let new = dir.join(format!("new-{flips}.jsonl"));
    write_json_lines(&new, &worse);
    (base, new)
}

#[test]
fn cli_compare_gates_live_results_on_significance_and_mock_on_any() {
    let dir = tempfile::tempdir().unwrap();
    for (flips, significant_exit) in [(1, 0), (12, 1)] {
        let (base, new) = live_pair(dir.path(), flips);
        // Live results: `significant` is the default.
        for args in [vec![], vec![os("--gate"), os("significant")]] {
            let mut all = vec![os("compare"), os(&base), os(&new)];
            all.extend(args);
            let out = tribunal_here(&all);
            let stdout = String::from_utf8_lossy(&out.stdout);
            assert_eq!(
                out.status.code(),
                Some(significant_exit),
                "{flips} flip(s): {stdout}"
            );
            let verdict = if significant_exit == 1 {
                "FAIL"
            } else {
                "pass"
            };
            assert!(
                stdout.contains(&format!(
                    "gate significant regression (alpha 0.05): {verdict} ({flips} worse, 0 better"
                )),
                "{stdout}"
            );
            assert!(stdout.contains("McNemar exact"), "{stdout}");
        }
        let any = tribunal_here(&[os("compare"), os(&base), os(&new), os("--gate"), os("any")]);
        assert_eq!(
            any.status.code(),
            Some(1),
            "--gate any fails on {flips} flip(s)"
        );
        assert!(String::from_utf8_lossy(&any.stdout).contains(&format!(
            "gate any regression: FAIL ({flips} regression(s))"
        )));
    }

    // A looser alpha changes the verdict on a small regression: 5 of 20
    // flipped, p = 2·½⁵ = 0.0625.
    let (base, new) = live_pair(dir.path(), 5);
    let strict = tribunal_here(&[os("compare"), os(&base), os(&new)]);
    assert_eq!(strict.status.code(), Some(0));
    let html = dir.path().join("loose.html");
    let loose = tribunal_here(&[
        os("compare"),
        os(&base),
        os(&new),
        os("--alpha"),
        os("0.1"),
        os("--html"),
        os(&html),
    ]);
    assert_eq!(loose.status.code(), Some(1));
    let page = std::fs::read_to_string(&html).unwrap();
    assert!(
        page.contains(
            r#"<p class="gate fail" id="gate">gate significant regression (alpha 0.1): FAIL"#
        ),
        "{page}"
    );
    assert!(page.contains("5 worse, 0 better, p = 0.0625"), "{page}");

    // Mock results: `any` is the default, so one flip fails.
    let (results, _) = mock_run(dir.path());
    let mut lines = json_lines(&results);
    lines[0]["outcome"] = "FAIL".into();
    lines[0]["checks"][0]["ok"] = false.into();
    let worse = dir.path().join("mock-worse.jsonl");
    write_json_lines(&worse, &lines);
    let out = tribunal_here(&[os("compare"), os(&results), os(&worse)]);
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stdout).contains("gate any regression: FAIL"));
    // … unless the user asks for the significant gate.
    let out = tribunal_here(&[
        os("compare"),
        os(&results),
        os(&worse),
        os("--gate"),
        os("significant"),
    ]);
    assert_eq!(out.status.code(), Some(0));
}

#[test]
fn cli_compare_refuses_an_alpha_outside_zero_one() {
    let dir = tempfile::tempdir().unwrap();
    let (base, new) = live_pair(dir.path(), 1);
    for alpha in ["0", "1", "-0.1", "1.5", "five"] {
        let flag = format!("--alpha={alpha}");
        let out = tribunal_here(&[os("compare"), os(&base), os(&new), os(&flag)]);
        assert_eq!(out.status.code(), Some(2), "--alpha {alpha}");
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(
            stderr.contains("not a significance level in (0, 1)"),
            "{stderr}"
        );
    }
    let out = tribunal_here(&[
        os("compare"),
        os(&base),
        os(&new),
        os("--gate"),
        os("maybe"),
    ]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("any, significant"));
}

/// `compare --report markdown|json` print the pass-rate change with the
/// change in tokens per item beside it, keep the gate's exit code, and the
/// terminal text and the HTML page carry the same figure.
#[test]
fn cli_compare_reports_the_token_change_in_every_format() {
    let dir = tempfile::tempdir().unwrap();
    let (results, _) = mock_run(dir.path());
    // The new file: every run used 1,000 input and 200 output tokens (the
    // mock's script reports none: 0 in the baseline).
    let mut lines = json_lines(&results);
    for line in &mut lines {
        line["usage"] = serde_json::json!({"input_tokens": 1000, "output_tokens": 200});
    }
    let new = dir.path().join("new.jsonl");
    write_json_lines(&new, &lines);
    let runs = lines.len();

    let html = dir.path().join("compare.html");
    let text = tribunal_here(&[
        os("compare"),
        os(&results),
        os(&new),
        os("--html"),
        os(&html),
    ]);
    assert_eq!(text.status.code(), Some(0));
    let text = String::from_utf8_lossy(&text.stdout);
    assert!(
        text.contains("tokens/item 0 → 1,200 (+1,200) · tokens/PASS 0 → 1,200 (+1,200)"),
        "{text}"
    );
    let page = std::fs::read_to_string(&html).unwrap();
    assert!(
        page.contains(r#"id="tokens-per-item-change">+1,200<"#),
        "{page}"
    );

    let markdown = tribunal_here(&[
        os("compare"),
        os(&results),
        os(&new),
        os("--report"),
        os("md"),
    ]);
    assert_eq!(markdown.status.code(), Some(0));
    let markdown = String::from_utf8_lossy(&markdown.stdout);
    assert!(
        markdown.contains(
            "**pass rate 100.0% → 100.0% (+0.0 points) · tokens/item 0 → 1,200 (+1,200)**"
        ),
        "{markdown}"
    );
    assert!(markdown.contains("MOCK RUN"), "{markdown}");

    let json = tribunal_here(&[
        os("compare"),
        os(&results),
        os(&new),
        os("--report"),
        os("json"),
    ]);
    assert_eq!(json.status.code(), Some(0));
    let json: serde_json::Value = serde_json::from_slice(&json.stdout).unwrap();
    assert_eq!(json["version"], 1);
    assert_eq!(json["gate"], "any regression");
    assert_eq!(json["gate_fails"], false);
    assert_eq!(json["tokens_per_item"]["new"], 1200.0);
    assert_eq!(json["tokens_per_item"]["relative"], serde_json::Value::Null);
    assert_eq!(json["new"]["tokens"]["runs"], runs);

    // The gate still decides the exit code in every format.
    lines[0]["outcome"] = "FAIL".into();
    let worse = dir.path().join("worse.jsonl");
    write_json_lines(&worse, &lines);
    for format in ["terminal", "markdown", "json"] {
        let out = tribunal_here(&[
            os("compare"),
            os(&results),
            os(&worse),
            os("--report"),
            os(format),
        ]);
        assert_eq!(out.status.code(), Some(1), "{format}");
    }
}

/// A missing file is named once with its reason, not the OS error twice.
#[test]
fn a_missing_file_says_its_reason_once() {
    let dir = tempfile::tempdir().unwrap();
    let missing = dir.path().join("missing.jsonl");
    let html = dir.path().join("r.html");
    let o = tribunal_here(&[
        os("report"),
        missing.as_os_str(),
        os("--html"),
        html.as_os_str(),
    ]);
    assert_eq!(o.status.code(), Some(2));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.contains("missing.jsonl"), "{err}");
    assert_eq!(err.matches("os error 2").count(), 1, "{err}");
    let pricing = dir.path().join("missing.toml");
    let o = tribunal_here(&[
        os("run"),
        arena().as_os_str(),
        os("--pricing"),
        pricing.as_os_str(),
        os("--out"),
        dir.path().join("r.jsonl").as_os_str(),
    ]);
    assert_eq!(o.status.code(), Some(2));
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(err.matches("os error 2").count(), 1, "{err}");
}

/// `report` takes `run`'s formats, and a file without a row is an error,
/// not an empty report.
#[test]
fn report_renders_every_format_and_refuses_a_file_without_rows() {
    let dir = tempfile::tempdir().unwrap();
    let (results, _) = mock_run(dir.path());
    let o = tribunal_here(&[os("report"), os(&results), os("--report"), os("json")]);
    assert_eq!(
        o.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    let json: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(json["arena"], "structured_output");
    let junit = dir.path().join("junit.xml");
    let o = tribunal_here(&[
        os("report"),
        os(&results),
        os("--report"),
        os("junit"),
        os("--report-file"),
        os(&junit),
    ]);
    assert_eq!(o.status.code(), Some(0));
    assert!(
        std::fs::read_to_string(&junit)
            .unwrap()
            .contains("<testsuite")
    );

    let empty = dir.path().join("empty.jsonl");
    std::fs::write(&empty, "").unwrap();
    let o = tribunal_here(&[os("report"), os(&empty)]);
    assert_eq!(o.status.code(), Some(2));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.contains("empty.jsonl: no result row"), "{err}");
}

/// Issue #62 point 8: `report` of a results file torn mid-line says so in
/// the report itself (terminal, Markdown, JSON and the HTML page), not
/// only in a stderr line a reader of the page never sees.
#[test]
fn a_torn_results_file_is_said_in_every_report() {
    let dir = tempfile::tempdir().unwrap();
    let (results, _) = mock_run(dir.path());
    let text = std::fs::read_to_string(&results).unwrap();
    let last = text.trim_end().rfind('\n').unwrap();
    // The last row cut in the middle, without its newline.
    std::fs::write(&results, &text[..last + 40]).unwrap();
    let says = "the results file ends in a torn line";
    for format in ["terminal", "markdown", "json"] {
        let o = tribunal_here(&[os("report"), os(&results), os("--report"), os(format)]);
        assert_eq!(o.status.code(), Some(0));
        let out = String::from_utf8_lossy(&o.stdout);
        assert!(out.contains(says), "{format}: {out}");
        assert!(out.contains("14"), "{format}: {out}");
    }
    let html = dir.path().join("torn.html");
    let o = tribunal_here(&[os("report"), os(&results), os("--html"), os(&html)]);
    assert_eq!(o.status.code(), Some(0));
    let page = std::fs::read_to_string(&html).unwrap();
    assert!(page.contains(says), "the page says it");
}

/// Issue #62 point 8: README's table says what `report RESULTS` does: the
/// terminal table without a flag, HTML only with `--html`.
#[test]
fn the_readme_says_what_report_prints() {
    let dir = tempfile::tempdir().unwrap();
    let (results, _) = mock_run(dir.path());
    let o = tribunal_here(&[os("report"), os(&results)]);
    assert_eq!(o.status.code(), Some(0));
    let out = String::from_utf8_lossy(&o.stdout);
    assert!(
        out.contains("RESULT") && !out.contains("<!DOCTYPE"),
        "{out}"
    );
    let readme =
        std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("README.md")).unwrap();
    let row = readme
        .lines()
        .find(|l| l.contains("`report RESULTS`"))
        .unwrap();
    assert!(
        row.contains("terminal table") && row.contains("`--html OUT.html`"),
        "{row}"
    );
}
