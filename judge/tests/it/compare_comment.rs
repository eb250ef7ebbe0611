//! The pull-request comment of a comparison (`compare --report comment`):
//! one snapshot per situation a reviewer meets — no change, a significant
//! regression, a flip that is not significant, a changed GREEN/RED verdict,
//! a cost increase, a mock baseline — and the cap on a long list.

use crate::html_fixtures::row;
use serde_json::json;
use tribunal_judge::internal::report::compare::Comparison;
use tribunal_judge::internal::report::compare::Gate;
use tribunal_judge::internal::report::format::{CommentOptions, SideCosts};
use tribunal_judge::{CostSummary, Pricing};
use tribunal_judge::{Outcome, ResultRow};

const SIGNIFICANT: Gate = Gate::Significant { alpha: 0.05 };
const DETAILS: &str = "https://github.invalid/acme/widgets/actions/runs/5";

/// `n` items, one run each, all PASS, on a live, priced model.
fn live_rows(n: usize) -> Vec<ResultRow> {
    (0..n)
        .map(|i| {
            let mut r = row(&format!("item-{i:02}"), i, 0, Outcome::Pass);
            r.backend = "openai-chat".to_string();
            r.model = "gpt-4.1-mini".to_string();
            r
        })
        .collect()
}

/// `rows` with the first `flips` turned into FAIL.
fn flipped(rows: &[ResultRow], flips: usize) -> Vec<ResultRow> {
    let mut rows = rows.to_vec();
    for r in rows.iter_mut().take(flips) {
        r.outcome = Outcome::Fail;
        r.checks[1].ok = false;
        r.checks[1].detail = "year: expected 1889, got 1890".into();
    }
    rows
}

/// The comment with the built-in prices, the usual notes and cap.
fn comment(base: &[ResultRow], new: &[ResultRow], gate: Gate) -> String {
    comment_capped(base, new, gate, CommentOptions::DEFAULT_MAX_ITEMS)
}

fn comment_capped(base: &[ResultRow], new: &[ResultRow], gate: Gate, cap: usize) -> String {
    let pricing = Pricing::builtin();
    let costs = SideCosts {
        base: CostSummary::of(base, pricing).1,
        new: CostSummary::of(new, pricing).1,
    };
    let notes = ["Baseline: the results stored by run 41 on `main`.".to_string()];
    Comparison::new(base, new).to_comment(&CommentOptions {
        gate,
        max_items: cap,
        details_url: Some(DETAILS),
        notes: &notes,
        costs: Some(&costs),
    })
}

#[test]
fn no_change() {
    let _snapshots = tribunal_testkit::bind_snapshots("judge");
    let rows = live_rows(20);
    let body = comment(&rows, &rows, SIGNIFICANT);
    assert!(body.starts_with("### ✅ tribunal: `structured_output` passes the gate"));
    insta::assert_snapshot!("comment_no_change", body);
}

#[test]
fn a_significant_regression() {
    let _snapshots = tribunal_testkit::bind_snapshots("judge");
    let base = live_rows(20);
    let body = comment(&base, &flipped(&base, 12), SIGNIFICANT);
    assert!(body.starts_with("### ❌ tribunal: `structured_output` regressed"));
    assert!(body.contains("**Newly failing (12)**"));
    assert!(body.contains(&format!("- … and 2 more: [the full comparison]({DETAILS})")));
    insta::assert_snapshot!("comment_significant_regression", body);
}

#[test]
fn a_flip_that_is_not_significant_passes_and_still_shows() {
    let _snapshots = tribunal_testkit::bind_snapshots("judge");
    let base = live_rows(20);
    let body = comment(&base, &flipped(&base, 1), SIGNIFICANT);
    assert!(body.starts_with("### ✅"));
    // Why, not only which check: the failed check's detail.
    assert!(body.contains(
        "- `item-00` #0: PASS → FAIL (`json_path_equals: year: expected 1889, got 1890`)"
    ));
    insta::assert_snapshot!("comment_nonsignificant_flip", body);
}

#[test]
fn a_changed_verdict() {
    let _snapshots = tribunal_testkit::bind_snapshots("judge");
    let verdict = |rows: &mut Vec<ResultRow>, id: usize, v: &str| {
        rows[id].answer = Some(json!({"verdict": v, "summary": "…"}));
    };
    let mut base = live_rows(6);
    let mut new = live_rows(6);
    for i in 0..6 {
        verdict(&mut base, i, "RED");
        verdict(&mut new, i, "RED");
    }
    verdict(&mut new, 2, "GREEN");
    new[4].answer = Some(json!({"summary": "no verdict given"}));
    let body = comment(&base, &new, SIGNIFICANT);
    assert!(body.contains("**Changed GREEN/RED verdicts (2)**"));
    assert!(body.contains("- `item-02` #0: RED → GREEN"));
    assert!(body.contains("- `item-04` #0: RED → none"));
    insta::assert_snapshot!("comment_changed_verdict", body);
    // Every format says it, not only the comment.
    let c = Comparison::new(&base, &new);
    assert_eq!(c.verdict_changes.len(), 2);
    assert!(
        c.to_text()
            .contains("  verdict    item-02 #0: RED → GREEN\n")
    );
    let md = c.to_markdown(SIGNIFICANT);
    assert!(md.contains("## Changed GREEN/RED verdicts"));
    assert!(md.contains("| `item-04` | 0 | RED | none |"));
    assert!(c.to_json(SIGNIFICANT, 0).contains("\"verdict_changes\""));
}

#[test]
fn a_cost_increase() {
    let _snapshots = tribunal_testkit::bind_snapshots("judge");
    let base = live_rows(10);
    let mut new = base.clone();
    for r in &mut new {
        r.usage.input_tokens *= 3;
        r.usage.output_tokens *= 2;
    }
    let body = comment(&base, &new, SIGNIFICANT);
    let cost = body
        .lines()
        .find(|l| l.starts_with("| cost per item run |"))
        .unwrap_or_default();
    assert!(cost.contains("+$0.000"), "{cost}");
    insta::assert_snapshot!("comment_cost_increase", body);
}

#[test]
fn a_mock_baseline() {
    let _snapshots = tribunal_testkit::bind_snapshots("judge");
    let mut base = live_rows(5);
    for r in &mut base {
        r.backend = "mock".to_string();
        r.model = "scripted".to_string();
    }
    let new = live_rows(5);
    let body = comment(&base, &new, Gate::Any);
    assert!(body.contains("> **Mock:** the baseline is a mock run"));
    insta::assert_snapshot!("comment_mock_baseline", body);
}

#[test]
fn the_cap_counts_the_rest_and_a_replay_is_said() {
    let mut base = live_rows(30);
    for r in &mut base {
        r.replayed = true;
    }
    let new = flipped(&base, 25);
    let body = comment_capped(&base, &new, Gate::Any, 3);
    let listed = body.lines().filter(|l| l.contains(": PASS → FAIL")).count();
    assert_eq!(listed, 3);
    assert!(body.contains(&format!(
        "- … and 22 more: [the full comparison]({DETAILS})"
    )));
    assert!(body.contains("> **Replay:** both sides are replayed from a cassette"));
}
