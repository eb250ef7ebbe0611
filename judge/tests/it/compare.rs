//! Baseline comparison: regressions, fixes, other changes, deltas, runs on
//! one side only, and the comparison page.

use crate::html_fixtures::{EVIL_ID, row, small_rows};
use tribunal_judge::internal::report::compare::Comparison;
use tribunal_judge::internal::report::compare::{
    Allow, ChangeKind, Gate, GateOutcome, InputProblem, RunKey, SideInput,
};
use tribunal_judge::internal::report::format::html::render_compare;
use tribunal_judge::{CheckKind, Outcome};
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
    let _snapshots = tribunal_testkit::bind_snapshots("judge");
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
    let comparison = Comparison::new(&base, &new);
    let html = render_compare(&comparison, comparison.default_gate());
    assert!(!html.contains(EVIL_ID));
    assert!(html.contains("<td class=\"mono\">deadline_exceeded</td>"));
    assert!(!html.contains("<script"));
    assert!(html.contains("&lt;/script&gt;"));
    assert!(html.contains(r#"class="change regression""#));
    assert!(html.contains("mock-banner"));
}

/// `n` items, one run each, all PASS, on a live backend.
fn live_rows(n: usize) -> Vec<tribunal_judge::ResultRow> {
    (0..n)
        .map(|i| {
            let mut r = row(&format!("item-{i:02}"), i, 0, Outcome::Pass);
            r.backend = "openai-chat".to_string();
            r.model = "gpt-x".to_string();
            r
        })
        .collect()
}

/// `rows` with the first `flips` turned into FAIL.
fn flipped(rows: &[tribunal_judge::ResultRow], flips: usize) -> Vec<tribunal_judge::ResultRow> {
    let mut rows = rows.to_vec();
    for r in rows.iter_mut().take(flips) {
        r.outcome = Outcome::Fail;
    }
    rows
}

#[test]
fn the_significant_gate_ignores_one_flip_in_twenty_and_fails_twelve() {
    use tribunal_judge::internal::report::compare::Gate;
    use tribunal_judge::internal::report::stats::PairedMethod;
    let base = live_rows(20);
    let significant = Gate::Significant { alpha: 0.05 };
    let one = Comparison::new(&base, &flipped(&base, 1));
    assert_eq!(one.default_gate(), significant, "live results");
    assert_eq!((one.paired.worse, one.paired.better), (1, 0));
    assert!((one.paired.p_value - 1.0).abs() < 1e-9, "{:?}", one.paired);
    assert!(!one.fails(significant));
    assert!(one.fails(Gate::Any));

    let twelve = Comparison::new(&base, &flipped(&base, 12));
    assert_eq!(twelve.paired.method, PairedMethod::McnemarExact);
    // 2 · ½¹² (statsmodels mcnemar exact: 0.00048828125).
    assert!((twelve.paired.p_value - 0.00048828125).abs() < 1e-9);
    assert!(twelve.fails(significant));
    assert!(twelve.fails(Gate::Any));
    assert!(
        twelve
            .paired_line()
            .contains("12 worse, 0 better, p = 0.0005")
    );
    assert!(
        twelve
            .gate_line(significant)
            .starts_with("gate significant regression (alpha 0.05): FAIL")
    );
    // An improvement never fails the significant gate.
    let fixed = Comparison::new(&flipped(&base, 12), &base);
    assert!(!fixed.fails(significant) && !fixed.fails(Gate::Any));
}

#[test]
fn mock_and_replayed_results_gate_on_any_regression_by_default() {
    use tribunal_judge::internal::report::compare::Gate;
    let live = live_rows(4);
    let mock: Vec<_> = (0..4)
        .map(|i| row(&format!("item-{i:02}"), i, 0, Outcome::Pass))
        .collect();
    assert_eq!(Comparison::new(&mock, &mock).default_gate(), Gate::Any);
    let replayed: Vec<_> = live
        .iter()
        .cloned()
        .map(|mut r| {
            r.replayed = true;
            r
        })
        .collect();
    assert_eq!(Comparison::new(&live, &replayed).default_gate(), Gate::Any);
    assert_eq!(Comparison::new(&replayed, &live).default_gate(), Gate::Any);
    assert!(matches!(
        Comparison::new(&live, &live).default_gate(),
        Gate::Significant { .. }
    ));
}

#[test]
fn repeats_compare_per_item_rates_with_the_sign_test() {
    use tribunal_judge::internal::report::stats::{IntervalMethod, PairedMethod};
    // Three items × two repeats. Per item (base → new): a 2/2 → 1/2,
    // b 1/2 → 0/2, c 0/2 → 0/2. Runs only in one file are left out.
    let mk = |id: &str, i: usize, r: u32, o: Outcome| row(id, i, r, o);
    use Outcome::{Fail, Pass};
    let base = vec![
        mk("a", 0, 0, Pass),
        mk("a", 0, 1, Pass),
        mk("b", 1, 0, Pass),
        mk("b", 1, 1, Fail),
        mk("c", 2, 0, Fail),
        mk("c", 2, 1, Fail),
        mk("d", 3, 0, Pass),
    ];
    let new = vec![
        mk("a", 0, 0, Fail),
        mk("a", 0, 1, Pass),
        mk("b", 1, 0, Fail),
        mk("b", 1, 1, Fail),
        mk("c", 2, 0, Fail),
        mk("c", 2, 1, Fail),
        mk("e", 4, 0, Pass),
    ];
    let c = Comparison::new(&base, &new);
    let p = &c.paired;
    assert_eq!(p.method, PairedMethod::SignTestItemRates);
    assert_eq!(p.interval_method, IntervalMethod::TMeanItemDifferences);
    assert_eq!((p.items, p.worse, p.better), (3, 2, 0));
    // Bin(2, ½): P[X ≤ 0] = ¼, two-sided ½.
    assert!((p.p_value - 0.5).abs() < 1e-9, "{p:?}");
    assert!((p.base_rate - 0.5).abs() < 1e-12 && (p.new_rate - 1.0 / 6.0).abs() < 1e-12);
    assert!(c.paired_line().contains("paired over 3 matched items"));
    // Per item, worst drop first; `c` did not change.
    let rates: Vec<(&str, usize, usize, usize)> = c
        .item_rates
        .iter()
        .map(|r| (r.id.as_str(), r.runs, r.base_pass, r.new_pass))
        .collect();
    assert_eq!(rates, vec![("a", 2, 2, 1), ("b", 2, 1, 0)]);
    let text = c.to_text();
    assert!(text.contains("  worse      a: 2/2 → 1/2 PASS\n"), "{text}");
    assert!(text.contains("  worse      b: 1/2 → 0/2 PASS\n"), "{text}");
    let page = render_compare(&c, c.default_gate());
    assert!(
        page.contains(r#"<tr class="worse"><td class="mono">a</td><td class="num">2</td><td class="num">1</td><td class="num">2</td></tr>"#),
        "{page}"
    );
    // One run per item: the per-run changes say it all.
    let single = Comparison::new(&base[..1], &new[..1]);
    assert!(single.item_rates.is_empty());
}

/// The report, the HTML page and each side of a comparison read one
/// header from the rows: the same config hash (every hash of mixed rows)
/// and the same replayed rule (every row replayed).
#[test]
fn report_page_and_compare_read_one_header() {
    let mut rows = live_rows(3);
    rows[2].config_hash = "0000aaaa".to_string();
    rows[0].replayed = true;
    let report = tribunal_judge::Report::from_rows("a", &rows);
    let page =
        tribunal_judge::internal::report::format::html::ReportPage::build(&rows, |_| Ok(None));
    let side = tribunal_judge::internal::report::compare::Side::of(&rows);
    let header = tribunal_judge::internal::rows::RunHeader::of(&rows);
    assert_eq!(header.config_hashes.len(), 2);
    for hash in [&report.config_hash, &page.config_hash, &side.config_hash] {
        assert_eq!(hash, &header.config_hash());
    }
    assert!(!report.replayed && !page.replayed && !side.replayed);
    for row in &mut rows {
        row.replayed = true;
    }
    let side = tribunal_judge::internal::report::compare::Side::of(&rows);
    assert!(side.replayed && tribunal_judge::Report::from_rows("a", &rows).replayed);
}

/// `rows` read the way `compare` reads two files (no torn line).
fn checked(
    base: &[tribunal_judge::ResultRow],
    new: &[tribunal_judge::ResultRow],
    allow: Allow,
) -> Comparison {
    Comparison::checked(
        SideInput {
            rows: base,
            torn: false,
        },
        SideInput {
            rows: new,
            torn: false,
        },
        allow,
    )
}

/// Issue 59, row 1: a baseline that stopped early compares only what it
/// ran; the new file's other runs were never gated. Runs only in the new
/// file are an input problem (`new_only_runs`), unless the caller knows
/// the baseline is complete (`Allow::new_runs`: items the change added).
#[test]
fn runs_only_in_the_new_file_are_an_input_problem_unless_allowed() {
    // The baseline stopped after 3 of 10 items; item 7 regressed.
    let new: Vec<_> = (0..10)
        .map(|i| {
            let outcome = if i == 7 { Outcome::Fail } else { Outcome::Pass };
            row(&format!("i{i}"), i, 0, outcome)
        })
        .collect();
    let base: Vec<_> = (0..3)
        .map(|i| row(&format!("i{i}"), i, 0, Outcome::Pass))
        .collect();
    let c = checked(&base, &new, Allow::default());
    assert!(!c.regressed(Gate::Any), "the regression is never matched");
    let problem = InputProblem::NewOnlyRuns {
        count: 7,
        first: ["i3", "i4", "i5", "i6", "i7"]
            .iter()
            .map(|id| RunKey {
                id: id.to_string(),
                repeat: 0,
            })
            .collect(),
    };
    assert_eq!(c.problems, vec![problem.clone()]);
    assert_eq!(c.gate_outcome(Gate::Any), GateOutcome::Ungated(&problem));
    assert_eq!(problem.code(), "new_only_runs");
    assert!(
        problem
            .to_string()
            .starts_with("new_only_runs: 7 item run(s) of the new file are not in the baseline (i3#0, i4#0, i5#0, i6#0, i7#0, …)"),
        "{problem}"
    );
    let allowed = checked(
        &base,
        &new,
        Allow {
            new_runs: true,
            ..Allow::default()
        },
    );
    assert!(allowed.problems.is_empty());
    assert_eq!(allowed.only_new.len(), 7);
    // Missing runs the other way are still a problem of their own.
    let both = checked(&new[..5], &base, Allow::default());
    assert_eq!(
        both.problems
            .iter()
            .map(InputProblem::code)
            .collect::<Vec<_>>(),
        vec!["missing_runs"]
    );
}

/// Issue 59, rows 1 and 2: a baseline run that measured nothing is never
/// gated against. A provider's failure (`backend_error`: an outage, a rate
/// limit) whatever the new run did, and any ERROR where the new run FAILs
/// (its checks never ran, so the FAIL is neither a regression nor not one),
/// are `baseline_errors`; an ERROR the new run also ERRORs on, or passes,
/// is a measurement like any other.
#[test]
fn a_baseline_that_measured_nothing_is_an_input_problem() {
    let error = |id: &str, i: usize, code: ErrorCode| {
        let mut r = row(id, i, 0, Outcome::Error);
        r.error_code = Some(code);
        r
    };
    // An outage on the baseline branch: every run a backend_error.
    let outage: Vec<_> = (0..4)
        .map(|i| error(&format!("i{i}"), i, ErrorCode::BackendError))
        .collect();
    let new: Vec<_> = (0..4)
        .map(|i| {
            let outcome = if i == 3 { Outcome::Fail } else { Outcome::Pass };
            row(&format!("i{i}"), i, 0, outcome)
        })
        .collect();
    let c = checked(&outage, &new, Allow::default());
    assert!(!c.regressed(Gate::Any), "ERROR → FAIL is no regression");
    assert_eq!(c.problems.len(), 1, "{:?}", c.problems);
    let InputProblem::BaselineErrors {
        count,
        backend,
        first,
    } = &c.problems[0]
    else {
        panic!("{:?}", c.problems)
    };
    assert_eq!((*count, *backend, first.len()), (4, 4, 4));
    assert_eq!(c.problems[0].code(), "baseline_errors");
    // Nothing lets it through.
    let all = Allow {
        missing: true,
        new_runs: true,
    };
    assert!(!checked(&outage, &new, all).problems.is_empty());

    // The model's own ERROR on the baseline: a problem only where the new
    // run FAILs.
    let base = vec![
        error("a", 0, ErrorCode::SchemaMismatch),
        error("b", 1, ErrorCode::SchemaMismatch),
        error("c", 2, ErrorCode::SchemaMismatch),
    ];
    let new = vec![
        row("a", 0, 0, Outcome::Fail),
        row("b", 1, 0, Outcome::Pass),
        error("c", 2, ErrorCode::SchemaMismatch),
    ];
    let c = checked(&base, &new, Allow::default());
    let problem = InputProblem::BaselineErrors {
        count: 1,
        backend: 0,
        first: vec![RunKey {
            id: "a".into(),
            repeat: 0,
        }],
    };
    assert_eq!(c.problems, vec![problem]);
}
