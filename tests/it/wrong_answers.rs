//! Wrong answers scored end to end. The fixture arenas `tests/fixtures/
//! wrong_answers` and `wrong_verdicts` script a model that is wrong on
//! purpose — a wrong value, a forbidden string, a regex miss, a missing word,
//! a stricter inline schema, an answer still invalid after the repair, a right
//! answer without the required tool, GREEN for a RED change and the reverse —
//! beside one right control item each. Every item must come out exactly as
//! its checks say, in the results rows, in every report format, in the JUnit
//! file and in `compare`, whether the mock backend or a stand-in server over
//! HTTP plays the script.

use crate::stand_in::{ALL, Api, Msg, live_env, run_args_for, stderr, stdout, text_of, tribunal};
use serde_json::{Value, json};
use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use wiremock::matchers::{method, path};
use wiremock::{Mock, Request, Respond, ResponseTemplate};

fn fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures")
        .join(name)
}

/// What an item must come out as: the outcome, the error code of an ERROR,
/// and the types of the checks that failed (sorted).
#[derive(Debug, Clone, PartialEq, Eq)]
struct Expected {
    outcome: String,
    error_code: Option<String>,
    failed: Vec<String>,
}

fn pass() -> Expected {
    Expected {
        outcome: "PASS".into(),
        error_code: None,
        failed: Vec::new(),
    }
}

fn fail(check: &str) -> Expected {
    Expected {
        outcome: "FAIL".into(),
        error_code: None,
        failed: vec![check.into()],
    }
}

fn error(code: &str) -> Expected {
    Expected {
        outcome: "ERROR".into(),
        error_code: Some(code.into()),
        failed: Vec::new(),
    }
}

fn expected_answers() -> BTreeMap<&'static str, Expected> {
    BTreeMap::from([
        ("control_right", pass()),
        ("wrong_value", fail("json_path_equals")),
        ("forbidden_string", fail("not_contains")),
        ("regex_miss", fail("regex")),
        ("contains_miss", fail("contains")),
        ("inline_schema_fail", fail("json_schema")),
        ("invalid_after_repair", error("schema_mismatch")),
        ("tool_never_used", fail("tool_used")),
    ])
}

fn expected_verdicts() -> BTreeMap<&'static str, Expected> {
    BTreeMap::from([
        ("red_called_green", fail("verdict_equals")),
        ("green_called_red", fail("verdict_equals")),
        ("right_red", pass()),
    ])
}

/// Each item's outcome as the rows of `results` say it.
fn scored(results: &Path) -> BTreeMap<String, Expected> {
    let mut out = BTreeMap::new();
    for row in crate::json_lines(results) {
        let outcome = row["outcome"].as_str().unwrap().to_string();
        let error_code = row["error_code"].as_str().map(String::from);
        let failed: BTreeSet<String> = row["checks"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|c| c["ok"] == false)
            .map(|c| c["type"].as_str().unwrap().to_string())
            .collect();
        if outcome == "ERROR" {
            assert!(
                row["checks"].as_array().unwrap().is_empty(),
                "an ERROR row scores no check: {row}"
            );
            assert!(
                row["answer"].is_null(),
                "an ERROR row keeps no answer: {row}"
            );
        }
        let id = row["id"].as_str().unwrap().to_string();
        let expected = Expected {
            outcome,
            error_code,
            failed: failed.into_iter().collect(),
        };
        assert!(out.insert(id, expected).is_none(), "one row per item");
    }
    out
}

fn assert_scored(results: &Path, expected: &BTreeMap<&'static str, Expected>, label: &str) {
    let want: BTreeMap<String, Expected> = expected
        .iter()
        .map(|(k, v)| (k.to_string(), v.clone()))
        .collect();
    assert_eq!(scored(results), want, "{label}");
}

/// The run's exit status and output, in mock mode, with a report format.
async fn mock_run(arena: &Path, out: &Path, report: &[&str]) -> std::process::Output {
    let mut args = vec![
        "run",
        arena.to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
    ];
    args.extend_from_slice(report);
    tribunal(&args, arena, &[]).await
}

#[tokio::test]
async fn mock_wrong_answers_fail_exactly_as_their_checks_say() {
    let dir = tempfile::tempdir().unwrap();
    for (name, expected) in [
        ("wrong_answers", expected_answers()),
        ("wrong_verdicts", expected_verdicts()),
    ] {
        let arena = fixture(name);
        let results = dir.path().join(format!("{name}.jsonl"));
        let o = mock_run(&arena, &results, &[]).await;
        assert_eq!(o.status.code(), Some(1), "{name}: {}", stderr(&o));
        assert_scored(&results, &expected, name);
        // The terminal table: one line per item with its result.
        let table = stdout(&o);
        for (id, e) in &expected {
            let line = table
                .lines()
                .find(|l| l.split_whitespace().next() == Some(id))
                .unwrap_or_else(|| panic!("{name}: no line for {id}:\n{table}"));
            assert_eq!(
                line.split_whitespace().nth(1),
                Some(e.outcome.as_str()),
                "{line}"
            );
            for check in &e.failed {
                assert!(line.contains(&format!("{check}:")), "{line}");
            }
            if let Some(code) = &e.error_code {
                assert!(line.contains(code.as_str()), "{line}");
            }
        }
        let (pass, fail, err) = counts(&expected);
        assert!(
            table.contains(&format!("{pass} PASS, {fail} FAIL, {err} ERROR")),
            "{table}"
        );
    }
}

fn counts(expected: &BTreeMap<&'static str, Expected>) -> (usize, usize, usize) {
    let n = |o: &str| expected.values().filter(|e| e.outcome == o).count();
    (n("PASS"), n("FAIL"), n("ERROR"))
}

#[tokio::test]
async fn every_report_format_shows_the_wrong_answers() {
    let dir = tempfile::tempdir().unwrap();
    let arena = fixture("wrong_answers");
    let expected = expected_answers();
    let (pass, fail, err) = counts(&expected);
    let mut reports = BTreeMap::new();
    for format in ["json", "markdown", "junit", "html"] {
        let results = dir.path().join(format!("{format}.jsonl"));
        let file = dir.path().join(format!("report.{format}"));
        let o = mock_run(
            &arena,
            &results,
            &["--report", format, "--report-file", file.to_str().unwrap()],
        )
        .await;
        assert_eq!(o.status.code(), Some(1), "{format}: {}", stderr(&o));
        assert_scored(&results, &expected, format);
        reports.insert(format, std::fs::read_to_string(&file).unwrap());
    }

    let report: Value = serde_json::from_str(&reports["json"]).unwrap();
    assert_eq!(
        (
            &report["summary"]["pass"],
            &report["summary"]["fail"],
            &report["summary"]["error"]
        ),
        (&json!(pass), &json!(fail), &json!(err))
    );
    for item in report["items"].as_array().unwrap() {
        let e = &expected[item["id"].as_str().unwrap()];
        assert_eq!(item["outcome"], e.outcome, "{item}");
        assert_eq!(
            item["error_code"].as_str(),
            e.error_code.as_deref(),
            "{item}"
        );
        let failed: Vec<&str> = item["checks"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|c| c["ok"] == false)
            .map(|c| c["type"].as_str().unwrap())
            .collect();
        assert_eq!(failed, e.failed, "{item}");
    }

    let markdown = &reports["markdown"];
    assert!(
        markdown.contains(&format!("{pass} PASS, {fail} FAIL, {err} ERROR")),
        "{markdown}"
    );
    for (id, e) in &expected {
        let row = markdown
            .lines()
            .find(|l| l.starts_with(&format!("| `{id}` |")))
            .unwrap_or_else(|| panic!("no row for {id}"));
        assert!(row.contains(&format!("| {} |", e.outcome)), "{row}");
        for check in &e.failed {
            assert!(row.contains(&format!("{check}:")), "{row}");
        }
    }

    let junit = &reports["junit"];
    assert!(
        junit.contains(&format!(
            r#"<testsuite name="wrong_answers" tests="{}" failures="{fail}" errors="{err}""#,
            expected.len()
        )),
        "{junit}"
    );
    for (id, e) in &expected {
        let case = junit_case(junit, id);
        match e.outcome.as_str() {
            "PASS" => assert!(case.ends_with("/>"), "{case}"),
            "FAIL" => {
                assert!(case.contains(r#"<failure type="check""#), "{case}");
                for check in &e.failed {
                    assert!(case.contains(&format!(">{check}:")), "{case}");
                }
            }
            _ => assert!(
                case.contains(&format!(
                    r#"<error type="{}""#,
                    e.error_code.as_deref().unwrap()
                )),
                "{case}"
            ),
        }
    }

    // The HTML page carries its rows as data: `["id",repeat,"OUTCOME",code,…`.
    let html = &reports["html"];
    for (id, e) in &expected {
        let code = e
            .error_code
            .as_ref()
            .map_or("null".to_string(), |c| format!("\"{c}\""));
        let row = format!(r#"["{id}",0,"{}",{code},"#, e.outcome);
        assert!(html.contains(&row), "the HTML page lacks {row}");
    }
}

/// The testcase element of `id`, from its start tag to its end.
fn junit_case<'a>(junit: &'a str, id: &str) -> &'a str {
    let start = junit
        .find(&format!(r#"name="{id}""#))
        .unwrap_or_else(|| panic!("no testcase {id}"));
    let rest = &junit[start..];
    let end = match (rest.find("/>"), rest.find('>')) {
        // `<testcase … />`: no child element.
        (Some(close), Some(open)) if close < open => close + 2,
        _ => rest.find("</testcase>").unwrap() + "</testcase>".len(),
    };
    &rest[..end]
}

/// The fixture arena with every item's script replaced by a right answer, as
/// the baseline a regression is measured against.
fn right_version(dir: &Path) -> PathBuf {
    let source = fixture("wrong_answers");
    let target = dir.join("wrong_answers");
    std::fs::create_dir_all(&target).unwrap();
    for file in ["arena.toml", "schema.json", "corpus.json"] {
        std::fs::copy(source.join(file), target.join(file)).unwrap();
    }
    let search =
        json!({"tool_calls": [{"name": "search", "arguments": {"query": "Eiffel Tower"}}]});
    let mut lines = Vec::new();
    for line in std::fs::read_to_string(source.join("dataset.jsonl"))
        .unwrap()
        .lines()
    {
        let mut item: Value = serde_json::from_str(line).unwrap();
        // The one item whose check wants a year from 1900 on gets one.
        let year = if item["id"] == "inline_schema_fail" {
            1900
        } else {
            1889
        };
        let right = json!({"name": "Eiffel Tower", "year": year, "city": "Paris"});
        item["mock"] = json!([search, {"json": right}]);
        lines.push(item.to_string());
    }
    std::fs::write(target.join("dataset.jsonl"), lines.join("\n") + "\n").unwrap();
    target
}

#[tokio::test]
async fn compare_names_every_wrong_answer_a_regression() {
    let dir = tempfile::tempdir().unwrap();
    let right = right_version(dir.path());
    let base = dir.path().join("base.jsonl");
    let o = mock_run(&right, &base, &[]).await;
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let all_pass: BTreeMap<&'static str, Expected> =
        expected_answers().keys().map(|k| (*k, pass())).collect();
    assert_scored(&base, &all_pass, "baseline");

    let new = dir.path().join("new.jsonl");
    mock_run(&fixture("wrong_answers"), &new, &[]).await;
    let args = ["compare", base.to_str().unwrap(), new.to_str().unwrap()];
    let o = tribunal(&args, dir.path(), &[]).await;
    assert_eq!(
        o.status.code(),
        Some(1),
        "regressions exit 1: {}",
        stdout(&o)
    );
    let text = stdout(&o);
    let expected = expected_answers();
    let (_, fail, err) = counts(&expected);
    assert!(
        text.contains(&format!("{} regression(s), 0 fix(es)", fail + err)),
        "{text}"
    );
    for (id, e) in &expected {
        let listed = text.lines().find(|l| l.contains(&format!(" {id} #0:")));
        let want = match e.outcome.as_str() {
            "PASS" => None,
            "FAIL" => Some(format!(
                "REGRESSION {id} #0: PASS → FAIL ({}: ",
                e.failed.join(", ")
            )),
            _ => Some(format!(
                "REGRESSION {id} #0: PASS → ERROR ({})",
                e.error_code.as_deref().unwrap()
            )),
        };
        // A FAIL says why: its failed check and the check's detail.
        let listed = listed.map(str::trim);
        match want {
            Some(want) if e.outcome == "FAIL" => assert!(
                listed.is_some_and(|l| l.starts_with(&want) && l.ends_with(')')),
                "{id}: {listed:?} does not start {want:?}:\n{text}"
            ),
            want => assert_eq!(listed, want.as_deref(), "{id}:\n{text}"),
        }
    }

    // The other way round every change is a fix: nothing regressed.
    let args = ["compare", new.to_str().unwrap(), base.to_str().unwrap()];
    let o = tribunal(&args, dir.path(), &[]).await;
    assert_eq!(o.status.code(), Some(0), "fixes only: {}", stdout(&o));
    assert!(
        stdout(&o).contains(&format!("0 regression(s), {} fix(es)", fail + err)),
        "{}",
        stdout(&o)
    );
}

/// A stand-in model that plays each item's own `mock` script over HTTP: the
/// item is found by its input (the first user message), the turn by how many
/// assistant messages the request already holds.
struct ScriptPlayer {
    api: Api,
    scripts: BTreeMap<String, Vec<Value>>,
}

impl ScriptPlayer {
    fn new(api: Api, arena: &Path) -> Self {
        let text = std::fs::read_to_string(arena.join("dataset.jsonl")).unwrap();
        let scripts = text
            .lines()
            .filter(|l| !l.trim().is_empty())
            .map(|l| {
                let item: Value = serde_json::from_str(l).unwrap();
                let input = item["input"].as_str().unwrap().to_string();
                (input, item["mock"].as_array().unwrap().clone())
            })
            .collect();
        ScriptPlayer { api, scripts }
    }
}

impl Respond for ScriptPlayer {
    fn respond(&self, request: &Request) -> ResponseTemplate {
        let Ok(body) = serde_json::from_slice::<Value>(&request.body) else {
            return ResponseTemplate::new(400);
        };
        let conversation = self.api.conversation(&body);
        let input = conversation.iter().find_map(|m| match m {
            Msg::User(text) => Some(text.clone()),
            _ => None,
        });
        let turn = conversation
            .iter()
            .filter(|m| matches!(m, Msg::Assistant))
            .count();
        let step = input
            .and_then(|i| self.scripts.get(&i))
            .and_then(|script| script.get(turn));
        let Some(step) = step else {
            return ResponseTemplate::new(500).set_body_json(json!({"error": {
                "type": "script_over", "message": "the script has no such turn"}}));
        };
        let body = match (step.get("tool_calls"), step.get("json")) {
            (Some(calls), _) => {
                let call = &calls[0];
                let id = format!("call_{turn}");
                let name = call["name"].as_str().unwrap();
                self.api.tool_call(&id, name, call["arguments"].clone())
            }
            (None, Some(answer)) => self.api.answer(&answer.to_string()),
            (None, None) => self.api.answer(&text_of(&step["text"])),
        };
        ResponseTemplate::new(200).set_body_json(body)
    }
}

#[tokio::test]
async fn a_stand_in_server_playing_the_wrong_answers_scores_the_same() {
    let dir = tempfile::tempdir().unwrap();
    for api in ALL {
        for (name, expected) in [
            ("wrong_answers", expected_answers()),
            ("wrong_verdicts", expected_verdicts()),
        ] {
            let arena = fixture(name);
            let server = tribunal_testkit::wire::own_server().await;
            Mock::given(method("POST"))
                .and(path(api.endpoint()))
                .respond_with(ScriptPlayer::new(api, &arena))
                .mount(&server)
                .await;
            let results = dir.path().join(format!("{name}-{}.jsonl", api.cli_name()));
            let args = run_args_for(&arena, api, &results, &[]);
            let o = tribunal(&args, dir.path(), &live_env(api, &server)).await;
            let label = format!("{name} on {api:?}");
            assert_eq!(o.status.code(), Some(1), "{label}: {}", stderr(&o));
            assert_scored(&results, &expected, &label);
        }
    }
}
