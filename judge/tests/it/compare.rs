//! Baseline comparison: regressions, fixes, other changes, deltas, runs on
//! one side only, and the comparison page.

use crate::html_fixtures::{EVIL_ID, row, small_rows};
use tribunal_judge::compare::ChangeKind;
use tribunal_judge::html::render_compare;
use tribunal_judge::{CheckKind, Comparison, Outcome};
use tribunal_runtime::ErrorCode;

#[test]
fn compare_finds_regressions_fixes_and_changes() {
    let base = vec![
        row("a", 0, 0, Outcome::Pass),
        row("b", 1, 0, Outcome::Pass),
        row("c", 2, 0, Outcome::Fail),
        row("d", 3, 0, Outcome::Error),
        row("e", 4, 0, Outcome::Fail),
        row("f", 5, 0, Outcome::Pass),
    ];
    let new = vec![
        row("a", 0, 0, Outcome::Fail),
        row("b", 1, 0, Outcome::Error),
        row("c", 2, 0, Outcome::Pass),
        row("d", 3, 0, Outcome::Pass),
        row("e", 4, 0, Outcome::Error),
        row("f", 5, 0, Outcome::Pass),
    ];
    let c = Comparison::new(&base, &new);
    let kinds: Vec<(&str, ChangeKind)> =
        c.changes.iter().map(|x| (x.id.as_str(), x.kind)).collect();
    assert_eq!(
        kinds,
        vec![
            ("a", ChangeKind::Regression),
            ("b", ChangeKind::Regression),
            ("c", ChangeKind::Fix),
            ("d", ChangeKind::Fix),
            ("e", ChangeKind::Changed),
        ]
    );
    assert_eq!((c.regressions(), c.fixes(), c.matched), (2, 2, 6));
    assert_eq!(c.changes[0].failed_checks, vec![CheckKind::JsonPathEquals]);
    assert_eq!(
        c.changes[1].error_code,
        Some(ErrorCode::MaxToolCallsExceeded)
    );
    // Same pass count on both sides (3 of 6).
    assert_eq!(c.pass_rate_delta, 0.0);
}

#[test]
fn compare_without_changes_has_no_regression() {
    let c = Comparison::new(&small_rows(), &small_rows());
    assert!(c.changes.is_empty());
    assert_eq!(c.regressions(), 0);
    assert_eq!(c.pass_rate_delta, 0.0);
    assert_eq!(c.tokens_total_delta, 0);
    assert_eq!(c.wall_mean_delta_ms, 0.0);
}

#[test]
fn compare_deltas_and_one_sided_runs() {
    let base = vec![
        row("a", 0, 0, Outcome::Fail),
        row("gone", 1, 0, Outcome::Pass),
    ];
    let mut a = row("a", 0, 0, Outcome::Pass);
    a.usage.input_tokens += 100;
    a.wall_ms += 20.0;
    let new = vec![a, row("added", 2, 0, Outcome::Pass)];
    let c = Comparison::new(&base, &new);
    assert_eq!(c.fixes(), 1);
    assert_eq!(c.regressions(), 0, "a missing run is not a regression");
    assert_eq!(c.only_base.len(), 1);
    assert_eq!(c.only_base[0].id, "gone");
    assert_eq!(c.only_new[0].id, "added");
    assert_eq!(c.changes[0].tokens_delta, 100);
    assert_eq!(c.changes[0].wall_delta_ms, 20.0);
    assert_eq!(c.pass_rate_delta, 1.0 - 0.5);
    assert!(c.tokens_total_delta > 100);
}

#[test]
fn compare_matches_repeats_separately() {
    let base = vec![row("a", 0, 0, Outcome::Pass), row("a", 0, 1, Outcome::Pass)];
    let new = vec![row("a", 0, 0, Outcome::Pass), row("a", 0, 1, Outcome::Fail)];
    let c = Comparison::new(&base, &new);
    assert_eq!(c.regressions(), 1);
    assert_eq!(c.changes[0].repeat, 1);
}

#[test]
fn compare_snapshot() {
    bind_snapshots!();
    let base = small_rows();
    let mut new = small_rows();
    new[0] = row("eiffel-tower", 0, 0, Outcome::Fail);
    new[1] = row("golden-gate", 1, 0, Outcome::Pass);
    new[2].usage.output_tokens += 50;
    new[3].wall_ms += 5.0;
    let c = Comparison::new(&base, &new);
    insta::assert_json_snapshot!("compare_small", c);
    insta::assert_snapshot!("compare_small_text", c.to_text());
}

#[test]
fn compare_page_escapes_ids() {
    let base = small_rows();
    let mut new = small_rows();
    new[3].outcome = Outcome::Error;
    new[3].error_code = Some(ErrorCode::DeadlineExceeded);
    new[0].outcome = Outcome::Fail;
    let html = render_compare(&Comparison::new(&base, &new));
    assert!(!html.contains(EVIL_ID));
    assert!(html.contains("<td class=\"mono\">deadline_exceeded</td>"));
    assert!(!html.contains("<script"));
    assert!(html.contains("&lt;/script&gt;"));
    assert!(html.contains(r#"class="change regression""#));
    assert!(html.contains("mock-banner"));
}
