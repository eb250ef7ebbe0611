//! The leaderboard: runs ranked by pass rate, each against the baseline
//! with the paired test `compare` computes (not a second one), runs that
//! read alike named by their source, and hostile names escaped in
//! Markdown and HTML.

use crate::html_fixtures::{EVIL_ID, row};
use tribunal_judge::Pricing;
use tribunal_judge::internal::report::compare::Comparison;
use tribunal_judge::internal::report::format::html::render_leaderboard;
use tribunal_judge::internal::report::leaderboard::{Entrant, Leaderboard};
use tribunal_judge::{Outcome, ResultRow};

/// Six items; the first `fails` of them FAIL, the rest PASS.
fn run(fails: usize, model: &str) -> Vec<ResultRow> {
    (0..6)
        .map(|i| {
            let outcome = if i < fails {
                Outcome::Fail
            } else {
                Outcome::Pass
            };
            let mut r = row(&format!("item-{i}"), i, 0, outcome);
            r.backend = "openai-chat".into();
            r.model = model.into();
            r
        })
        .collect()
}

fn entrant<'a>(source: &'a str, rows: &'a [ResultRow]) -> Entrant<'a> {
    Entrant {
        source,
        rows,
        torn: false,
    }
}

#[test]
fn runs_rank_by_pass_rate_and_each_meets_the_baseline_with_compares_paired_test() {
    let (base, worse, better) = (run(2, "base"), run(5, "worse"), run(0, "better"));
    let board = Leaderboard::new(
        &[
            entrant("base.jsonl", &base),
            entrant("worse.jsonl", &worse),
            entrant("better.jsonl", &better),
        ],
        0,
        &Pricing::default(),
    );
    let names: Vec<&str> = board.standings.iter().map(|s| s.name.as_str()).collect();
    assert_eq!(
        names,
        [
            "openai-chat/better",
            "openai-chat/base",
            "openai-chat/worse"
        ]
    );
    assert_eq!(board.baseline, "openai-chat/base");
    assert!(board.standings[1].versus_baseline.is_none());
    let worse_vs = board.standings[2].versus_baseline.as_ref().unwrap();
    assert_eq!(worse_vs.paired, Comparison::new(&base, &worse).paired);
    // 3 items went PASS → FAIL, none the other way: McNemar exact, 2 × 1/8.
    assert_eq!((worse_vs.paired.worse, worse_vs.paired.better), (3, 0));
    assert!((worse_vs.paired.p_value - 0.25).abs() < 1e-12);
    assert!((worse_vs.pass_rate_delta + 0.5).abs() < 1e-12);
    assert!(worse_vs.problems.is_empty());
    let side = &board.standings[0].side;
    assert_eq!((side.pass, side.total), (6, 6));
    assert!(
        side.pass_rate_ci
            .is_some_and(|ci| ci.low < 1.0 && ci.high == 1.0)
    );
}

#[test]
fn runs_that_read_alike_are_named_by_their_source_and_an_unknown_baseline_is_the_first() {
    let (a, b) = (run(1, "qwen"), run(1, "qwen"));
    let board = Leaderboard::new(
        &[entrant("runs/a.jsonl", &a), entrant("runs/b.jsonl", &b)],
        7,
        &Pricing::default(),
    );
    assert_eq!(board.baseline, "runs/a.jsonl");
    let names: Vec<&str> = board.standings.iter().map(|s| s.name.as_str()).collect();
    assert_eq!(names, ["runs/a.jsonl", "runs/b.jsonl"]);
}

#[test]
fn a_run_of_another_arena_is_not_a_clean_pair_and_the_notes_say_so() {
    let base = run(0, "a");
    let mut other = run(0, "b");
    for r in &mut other {
        r.arena = "another".into();
    }
    let board = Leaderboard::new(
        &[entrant("a.jsonl", &base), entrant("b.jsonl", &other)],
        0,
        &Pricing::default(),
    );
    let vs = board.standings[1].versus_baseline.as_ref().unwrap();
    assert_eq!(vs.problems, ["arena_mismatch"]);
    let notes = board.notes().join("\n");
    assert!(
        notes.contains("openai-chat/b and the baseline are not a clean pair (arena_mismatch)"),
        "{notes}"
    );
    // The local model is in no pricing table: its cost is said to be unknown.
    assert!(board.table()[0][6] == "unpriced", "{:?}", board.table()[0]);
}

#[test]
fn a_hostile_run_name_is_code_in_markdown_and_text_in_html() {
    let (a, b) = (run(0, "x"), run(0, "x"));
    let board = Leaderboard::new(
        &[entrant(EVIL_ID, &a), entrant("b.jsonl", &b)],
        0,
        &Pricing::default(),
    );
    let md = board.to_markdown();
    assert!(md.contains(&format!("| `{EVIL_ID}` |")), "{md}");
    let html = render_leaderboard(&board);
    assert!(!html.contains("<script>"), "{html}");
    assert!(html.contains("evil&lt;/script&gt;"), "{html}");
}
