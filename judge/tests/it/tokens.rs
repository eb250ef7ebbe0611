//! Tokens per item run, per PASS and the cached share in every report
//! format (terminal, Markdown, JSON, JUnit, HTML), and the change in tokens
//! per item beside the pass-rate change in every format `compare` emits.

use crate::html_fixtures::{row, small_rows};
use tribunal_judge::JudgeRecord;
use tribunal_judge::internal::report::compare::Comparison;
use tribunal_judge::internal::report::compare::Gate;
use tribunal_judge::internal::report::format::html::{ReportPage, render_page};
use tribunal_judge::internal::rows::results::read_rows;
use tribunal_judge::{Outcome, Report, ReportFormat, ResultRow};
use tribunal_runtime::Usage;

/// The small run on a live, priced model: the PASS runs read most of their
/// input from the prompt cache, one run wrote to it, the FAIL run was
/// graded by a rubric judge.
fn live_rows() -> Vec<ResultRow> {
    let mut rows = small_rows();
    for (i, r) in rows.iter_mut().enumerate() {
        r.backend = "openai-chat".into();
        r.model = "gpt-4.1-mini".into();
        r.usage = Usage {
            cache_read_tokens: if r.outcome == Outcome::Pass { 2000 } else { 0 },
            cache_write_tokens: if i == 1 { 500 } else { 0 },
            ..Usage::new(3000 + 100 * i as u64, 400)
        };
    }
    rows[1].judge = Some(JudgeRecord {
        backend: "openai-chat".into(),
        model: "gpt-4.1-mini".into(),
        usage: Usage::new(600, 34),
        verdicts: Vec::new(),
        wall_ms: 0.0,
        failed: false,
        custom_endpoint: false,
    });
    rows
}

/// The same items, every run cheaper by about 60%, same outcomes.
fn cheaper_rows() -> Vec<ResultRow> {
    let mut rows = live_rows();
    for r in &mut rows {
        r.usage.input_tokens = r.usage.input_tokens * 2 / 5;
        r.usage.cache_read_tokens = r.usage.cache_read_tokens.min(r.usage.input_tokens);
        r.usage.output_tokens = r.usage.output_tokens * 2 / 5;
    }
    rows
}

/// The report's token line: the line starting `tokens ` (terminal) or the
/// paragraph holding it (Markdown).
fn token_line(text: &str) -> &str {
    text.lines()
        .find(|l| l.starts_with("tokens "))
        .unwrap_or_else(|| panic!("no tokens line in\n{text}"))
}

#[test]
fn every_report_format_gives_tokens_per_item_per_pass_and_the_cached_share() {
    let _snapshots = tribunal_testkit::bind_snapshots("judge");
    let report = Report::from_rows("structured_output", &live_rows());
    let t = &report.tokens;
    // 5 runs: 16,000 input, 2,000 output; the judge's 600 + 34 on top.
    assert_eq!((t.runs, t.pass_runs), (5, 2));
    assert_eq!(t.total, 18_000 + 634);
    assert_eq!((t.input, t.cache_read, t.cache_write), (16_600, 4000, 500));
    assert_eq!(t.judge, Some(634));
    assert_eq!(t.per_item, Some(18_634.0 / 5.0));
    assert_eq!(t.per_pass, Some(18_634.0 / 2.0));
    assert_eq!(t.cached_share, Some(4000.0 / 16_600.0));

    let terminal = report.render(ReportFormat::Terminal);
    insta::assert_snapshot!("tokens_report_terminal", terminal);
    let markdown = report.render(ReportFormat::Markdown);
    insta::assert_snapshot!("tokens_report_markdown", markdown);
    assert_eq!(token_line(&terminal), token_line(&markdown));
    // The line sits right under the cost line it is consistent with.
    let cost_then_tokens = format!("{}\n{}", report.cost.line(), token_line(&terminal));
    assert!(terminal.contains(&cost_then_tokens), "{terminal}");

    let json: serde_json::Value = serde_json::from_str(&report.render(ReportFormat::Json)).unwrap();
    insta::assert_json_snapshot!("tokens_report_json", json["tokens"]);

    let junit = report.render(ReportFormat::Junit);
    let properties: Vec<&str> = junit
        .lines()
        .filter(|l| l.contains("<property name=\"tokens_"))
        .map(str::trim)
        .collect();
    insta::assert_snapshot!("tokens_report_junit", properties.join("\n"));
}

#[test]
fn the_html_header_shows_the_token_figures() {
    let _snapshots = tribunal_testkit::bind_snapshots("judge");
    let page = ReportPage::from_rows(&live_rows());
    let html = render_page(&page);
    let start = html.find(r#"<div class="stat"><span class="n" id="tokens-per-item">"#);
    let start = start.expect("the tokens stat");
    let end = start + html[start..].find("</span></div></div>").unwrap_or(0);
    let stats = &html[start..end];
    insta::assert_snapshot!("tokens_html_header", stats);
    assert!(stats.contains(r#"id="tokens-per-item">3,727<"#), "{stats}");
    assert!(stats.contains(r#"id="tokens-per-pass">9,317<"#), "{stats}");
    assert!(stats.contains("cached share 24.1%"), "{stats}");
}

#[test]
fn a_run_without_a_pass_says_there_is_no_per_pass_figure() {
    let rows: Vec<ResultRow> = live_rows()
        .into_iter()
        .map(|mut r| {
            if r.outcome == Outcome::Pass {
                r.outcome = Outcome::Fail;
            }
            r
        })
        .collect();
    let report = Report::from_rows("structured_output", &rows);
    let terminal = report.render(ReportFormat::Terminal);
    assert!(
        token_line(&terminal).contains("per PASS: none (no PASS run)"),
        "{terminal}"
    );
    let json: serde_json::Value = serde_json::from_str(&report.render(ReportFormat::Json)).unwrap();
    assert_eq!(json["tokens"]["per_pass"], serde_json::Value::Null);
    assert_eq!(json["tokens"]["per_pass_missing"], "no_pass");
    let junit = report.render(ReportFormat::Junit);
    assert!(junit.contains(r#"<property name="tokens_per_pass_missing" value="no PASS run"/>"#));
    assert!(!junit.contains(r#"name="tokens_per_pass""#));
    let html = render_page(&ReportPage::from_rows(&rows));
    assert!(html.contains(r#"id="tokens-per-pass">none<"#));
}

#[test]
fn a_mock_run_says_its_tokens_are_the_scripts() {
    let report = Report::from_rows("structured_output", &small_rows());
    assert!(report.mock);
    let line = token_line(&report.to_terminal()).to_string();
    assert!(
        line.ends_with("; mock: each turn reports the `usage` its script gives, 0 without one"),
        "{line}"
    );
    assert!(line.contains("cached share not reported"), "{line}");
}

/// A row as `tribunal run` wrote it before usage had cache fields and rows
/// had `replayed`, `custom_endpoint`, `batch`, `cache` and `judge`.
const OLD_ROW: &str = r#"{"version":1,"arena":"structured_output","id":"eiffel-tower","index":0,"repeat":0,"config_hash":"cfg-0123456789ab","outcome":"PASS","error_code":null,"checks":[],"answer":{"name":"Eiffel Tower"},"usage":{"input_tokens":1200,"output_tokens":80},"tool_calls":[],"wall_ms":12.5,"turns":2,"repair_used":false,"backend":"openai-chat","model":"gpt-4.1-mini","finished_at_ms":1786000000000}"#;

#[test]
fn an_old_results_file_loads_and_its_cache_share_is_not_reported() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("old.jsonl");
    std::fs::write(&path, format!("{OLD_ROW}\n")).unwrap();
    let rows = read_rows(&path).unwrap().rows;
    assert_eq!(rows.len(), 1);
    let report = Report::from_rows("structured_output", &rows);
    assert_eq!(report.tokens.per_item, Some(1280.0));
    assert_eq!(report.tokens.cached_share, None);
    assert!(
        token_line(&report.to_terminal())
            .contains("cached share not reported (no run reported cache reads or writes)")
    );
    // Compared with a new file, its tokens are the baseline's.
    let c = Comparison::new(&rows, &rows);
    assert_eq!(c.tokens_per_item.delta, Some(0.0));
}

#[test]
fn compare_puts_the_token_change_beside_the_pass_rate_change_in_every_format() {
    let _snapshots = tribunal_testkit::bind_snapshots("judge");
    let c = Comparison::new(&live_rows(), &cheaper_rows());
    assert_eq!(c.pass_rate_delta, 0.0);
    let relative = c.tokens_per_item.relative.unwrap();
    assert!((-0.60..-0.55).contains(&relative), "{relative}");
    let gate = c.default_gate();

    let text = c.to_text();
    insta::assert_snapshot!("tokens_compare_text", text);
    let lines: Vec<&str> = text.lines().collect();
    assert!(lines[1].starts_with("pass rate 40.0% → 40.0% (+0.0 points)"));
    assert!(
        lines[2].starts_with("tokens/item 3,727 → 1,567 (-2,160, -58.0%)"),
        "{text}"
    );

    let markdown = c.to_markdown(gate);
    insta::assert_snapshot!("tokens_compare_markdown", markdown);
    assert!(markdown.contains(
        "**pass rate 40.0% → 40.0% (+0.0 points) · tokens/item 3,727 → 1,567 (-2,160, -58.0%)**"
    ));

    let json: serde_json::Value = serde_json::from_str(&c.to_json(gate, 0)).unwrap();
    insta::assert_json_snapshot!("tokens_compare_json", {
        let mut v = json.clone();
        let o = v.as_object_mut().unwrap();
        for side in ["base", "new"] {
            o[side]
                .as_object_mut()
                .unwrap()
                .retain(|k, _| k == "tokens" || k == "pass_rate");
        }
        o.retain(|k, _| {
            [
                "version",
                "gate",
                "gate_fails",
                "base",
                "new",
                "pass_rate_delta",
                "tokens_per_item",
                "tokens_per_pass",
                "tokens_total_delta",
            ]
            .contains(&k.as_str())
        });
        v
    });
    assert_eq!(
        json["tokens_per_item"]["base"],
        c.base.tokens.per_item.unwrap()
    );
}

#[test]
fn compare_without_a_pass_on_one_side_has_no_per_pass_change() {
    let base = vec![row("a", 0, 0, Outcome::Fail)];
    let new = vec![row("a", 0, 0, Outcome::Pass)];
    let c = Comparison::new(&base, &new);
    assert_eq!(c.tokens_per_pass.base, None);
    assert_eq!(
        (c.tokens_per_pass.delta, c.tokens_per_pass.relative),
        (None, None)
    );
    let line = c.tokens_line();
    assert!(
        line.contains("tokens/PASS none → 440 (input + output"),
        "{line}"
    );
    let json: serde_json::Value = serde_json::from_str(&c.to_json(Gate::Any, 0)).unwrap();
    assert_eq!(json["tokens_per_pass"]["delta"], serde_json::Value::Null);
    assert_eq!(json["base"]["tokens"]["per_pass_missing"], "no_pass");
}
