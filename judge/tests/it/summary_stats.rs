//! The summary's statistics on a hand-made repeated run, and how every
//! report format shows them. Expected values by hand (pass@k, pass^k from
//! `C(n, k)` by hand; the spread with `numpy.std(ddof=1)`; Wilson with
//! statsmodels, as in `stats.rs`).

use crate::html_fixtures::row;
use tribunal_judge::internal::report::format::html::{ReportPage, render_page};
use tribunal_judge::internal::report::summary::{MAX_LISTED_K, summarize};
use tribunal_judge::{Outcome, Report, ReportFormat, ResultRow};

const TOL: f64 = 1e-9;

fn close(what: &str, got: f64, want: f64) {
    assert!((got - want).abs() <= TOL, "{what}: got {got}, want {want}");
}

/// Three items × four repeats:
/// - `a` passes repeats 0, 1, 2 and fails 3 (3/4);
/// - `b` passes repeat 0 only (1/4);
/// - `c` is ERROR in repeats 0, 1 and FAIL in 2, 3 (0/4).
fn repeated_rows() -> Vec<ResultRow> {
    use Outcome::{Error, Fail, Pass};
    let plan = [
        ("a", [Pass, Pass, Pass, Fail]),
        ("b", [Pass, Fail, Fail, Fail]),
        ("c", [Error, Error, Fail, Fail]),
    ];
    let mut rows = Vec::new();
    for repeat in 0..4u32 {
        for (index, (id, outcomes)) in plan.iter().enumerate() {
            rows.push(row(id, index, repeat, outcomes[repeat as usize]));
        }
    }
    rows
}

#[test]
fn repeats_give_per_item_rates_pass_at_k_pass_hat_k_and_the_spread() {
    let s = summarize(&repeated_rows());
    assert_eq!(
        (s.total, s.pass, s.fail, s.error, s.repeats),
        (12, 4, 6, 2, 4)
    );
    close("pass rate", s.pass_rate, 4.0 / 12.0);
    close("error rate", s.error_rate, 2.0 / 12.0);
    let ci = s.pass_rate_ci.expect("12 runs give an interval");
    close("ci low", ci.low, 0.1381200910912131);
    close("ci high", ci.high, 0.6093779111272004);

    let per: Vec<(&str, usize, usize, usize)> = s
        .per_item
        .iter()
        .map(|i| (i.id.as_str(), i.runs, i.pass, i.error))
        .collect();
    assert_eq!(per, vec![("a", 4, 3, 0), ("b", 4, 1, 0), ("c", 4, 0, 2)]);

    // Per item (n = 4): pass@k = 1 − C(4−c, k)/C(4, k), pass^k = C(c, k)/C(4, k).
    //   k=1: a 3/4, b 1/4, c 0           → @1 = 1/3,    ^1 = 1/3
    //   k=2: a 1, b 1 − 3/6, c 0         → @2 = 1/2;    a 3/6, b 0, c 0 → ^2 = 1/6
    //   k=3: a 1, b 1 − 1/4, c 0         → @3 = 7/12;   a 1/4 → ^3 = 1/12
    //   k=4: a 1, b 1, c 0               → @4 = 2/3;    ^4 = 0
    let want = [
        (1, 1.0 / 3.0, 1.0 / 3.0),
        (2, 0.5, 1.0 / 6.0),
        (3, 7.0 / 12.0, 1.0 / 12.0),
        (4, 2.0 / 3.0, 0.0),
    ];
    assert_eq!(s.pass_at.len(), want.len(), "{:?}", s.pass_at);
    for (got, (k, at, hat)) in s.pass_at.iter().zip(want) {
        assert_eq!((got.k, got.items), (k, 3));
        close(&format!("pass@{k}"), got.pass_at_k, at);
        close(&format!("pass^{k}"), got.pass_hat_k, hat);
    }
    // The old all-repeats figure agrees with pass^K.
    close("pass_hat_k", s.pass_hat_k, 0.0);

    // Per repeat: 2/3, 1/3, 1/3, 0.
    let spread = s.repeat_spread.expect("four repeats have a spread");
    close("min", spread.min, 0.0);
    close("max", spread.max, 2.0 / 3.0);
    close("sd", spread.sd, 0.2721655269759087);
}

#[test]
fn one_run_each_has_no_repeat_figures_and_no_rows_no_interval() {
    let rows: Vec<ResultRow> = repeated_rows()
        .into_iter()
        .filter(|r| r.repeat == 0)
        .collect();
    let s = summarize(&rows);
    assert!(s.per_item.is_empty() && s.pass_at.is_empty() && s.repeat_spread.is_none());
    let ci = s.pass_rate_ci.expect("an interval");
    assert!(ci.low < 2.0 / 3.0 && 2.0 / 3.0 < ci.high, "{ci:?}");
    let json = serde_json::to_value(&s).unwrap();
    assert!(json.get("per_item").is_none() && json.get("pass_at").is_none());

    let empty = summarize(&[]);
    assert_eq!((empty.pass_rate_ci, empty.error_rate), (None, 0.0));
}

#[test]
fn many_repeats_list_k_up_to_ten_and_k() {
    let rows: Vec<ResultRow> = (0..12u32)
        .map(|r| row("x", 0, r, if r < 6 { Outcome::Pass } else { Outcome::Fail }))
        .collect();
    let s = summarize(&rows);
    let ks: Vec<usize> = s.pass_at.iter().map(|p| p.k).collect();
    let mut want: Vec<usize> = (1..=MAX_LISTED_K).collect();
    want.push(12);
    assert_eq!(ks, want);
    // 6 of 12: pass@7 is certain (only 6 runs can fail), pass^7 impossible.
    let p7 = &s.pass_at[6];
    assert_eq!((p7.k, p7.pass_at_k, p7.pass_hat_k), (7, 1.0, 0.0));
    // pass@6 = 1 − C(6,6)/C(12,6) = 1 − 1/924.
    close("pass@6", s.pass_at[5].pass_at_k, 1.0 - 1.0 / 924.0);
}

#[test]
fn an_item_with_fewer_runs_than_k_is_left_out_of_that_k() {
    // `a` has 3 runs, `b` only 1 (an interrupted run).
    let rows = vec![
        row("a", 0, 0, Outcome::Pass),
        row("a", 0, 1, Outcome::Fail),
        row("a", 0, 2, Outcome::Pass),
        row("b", 1, 0, Outcome::Fail),
    ];
    let s = summarize(&rows);
    let items: Vec<(usize, usize)> = s.pass_at.iter().map(|p| (p.k, p.items)).collect();
    assert_eq!(items, vec![(1, 2), (2, 1), (3, 1)]);
    close("pass@1", s.pass_at[0].pass_at_k, (2.0 / 3.0 + 0.0) / 2.0);
}

#[test]
fn every_format_shows_the_interval_and_the_repeat_figures() {
    let rows = repeated_rows();
    let report = Report::from_rows("structured_output", &rows);
    let terminal = report.render(ReportFormat::Terminal);
    for want in [
        "pass rate 33.3% (95% CI 13.8–60.9%, Wilson, over all 12 runs; ERROR counts as not passed)",
        "(spread 0.0–66.7%, sd 27.2 points)",
        "pass@1 33.3%, @2 50.0%, @3 58.3%, @4 66.7%",
        "pass^1 33.3%, ^2 16.7%, ^3 8.3%, ^4 0.0%",
        "mean over the 3 item(s) with ≥ k runs",
        "ITEM  PASS/RUNS    RATE  ERROR\na           3/4   75.0%  0\n",
        "c           0/4    0.0%  2\n",
    ] {
        assert!(
            terminal.contains(want),
            "terminal lacks {want:?}:\n{terminal}"
        );
    }
    let markdown = report.render(ReportFormat::Markdown);
    for want in [
        "(95% CI 13.8–60.9%, Wilson, over all 12 runs",
        "pass@1 33.3%, @2 50.0%",
        "## Per item over 4 repeats",
        "| `b` | 1 | 4 | 25.0% | 0 |",
    ] {
        assert!(
            markdown.contains(want),
            "markdown lacks {want:?}:\n{markdown}"
        );
    }
    let junit = report.render(ReportFormat::Junit);
    for want in [
        r#"<property name="pass_rate" value="0.333333"/>"#,
        r#"<property name="pass_rate_ci95_low" value="0.138120"/>"#,
        r#"<property name="pass_rate_ci95_high" value="0.609378"/>"#,
        r#"<property name="error_rate" value="0.166667"/>"#,
        r#"<property name="pass_at_3" value="0.583333"/>"#,
        r#"<property name="pass_hat_2" value="0.166667"/>"#,
    ] {
        assert!(junit.contains(want), "junit lacks {want:?}:\n{junit}");
    }
    let json: serde_json::Value = serde_json::from_str(&report.render(ReportFormat::Json)).unwrap();
    assert_eq!(json["summary"]["pass_at"][1]["k"], 2);
    assert_eq!(json["summary"]["per_item"][2]["error"], 2);
    let html = render_page(&ReportPage::from_rows(&rows));
    for want in [
        "pass rate (4 of 12, 95% CI 13.8–60.9%)",
        "k=2: pass@k 50.0%, pass^k 16.7%",
        "(spread 0.0%–66.7%, sd 27.2 points)",
    ] {
        assert!(html.contains(want), "html lacks {want:?}");
    }
}
