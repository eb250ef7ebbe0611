//! The HTML report: snapshots of the page model, escaping of hostile text,
//! the embedded data, self-containment, and the size of a 10,000-item page.

use crate::html_fixtures::{
    EVIL_ID, EVIL_TEXT, many_rows, repeated_rows, small_rows, write_fail_transcripts,
};
use serde_json::Value;
use tribunal_judge::internal::report::format::html::{ReportPage, data_json, render_page};

/// The text of the `<script type="application/json">` block.
fn embedded_data(html: &str) -> Value {
    let open = r#"<script type="application/json" id="report-data">"#;
    let start = html.find(open).unwrap() + open.len();
    let end = start + html[start..].find("</script>").unwrap();
    serde_json::from_str(&html[start..end]).unwrap()
}

#[test]
fn html_page_model_snapshot() {
    let _snapshots = tribunal_testkit::bind_snapshots("judge");
    let page = ReportPage::from_rows(&small_rows());
    insta::assert_json_snapshot!("html_page_small", page);
}

#[test]
fn html_page_model_repeated_snapshot() {
    let _snapshots = tribunal_testkit::bind_snapshots("judge");
    let page = ReportPage::from_rows(&repeated_rows());
    assert_eq!(page.summary.repeats, 2);
    assert_eq!(page.summary.unstable, vec!["golden-gate".to_string()]);
    insta::assert_json_snapshot!("html_page_repeated_header", {
        let mut v = serde_json::to_value(&page).unwrap();
        v.as_object_mut().unwrap().remove("items");
        v
    });
}

#[test]
fn html_header_carries_counts_and_mock_banner() {
    let html = render_page(&ReportPage::from_rows(&small_rows()));
    assert!(html.contains(r#"id="mock-banner""#));
    assert!(html.contains("MOCK RUN"));
    assert!(html.contains(r#"<span class="n" id="count-pass">2</span>"#));
    assert!(html.contains(r#"<span class="n" id="count-fail">2</span>"#));
    assert!(html.contains(r#"<span class="n" id="count-error">1</span>"#));
    assert!(html.contains(r#"id="pass-rate">40.0%"#));
    assert!(html.contains("2026-08-06 07:06 UTC"));
    assert!(html.contains("cfg-0123456789ab"));
    // Not repeated: no pass^k.
    assert!(!html.contains("pass-hat-k"));

    let live: Vec<_> = small_rows()
        .into_iter()
        .map(|mut r| {
            r.backend = "openai-chat".into();
            r
        })
        .collect();
    assert!(!render_page(&ReportPage::from_rows(&live)).contains(r#"id="mock-banner""#));
}

#[test]
fn html_repeated_run_shows_pass_hat_k_and_unstable_items() {
    let html = render_page(&ReportPage::from_rows(&repeated_rows()));
    assert!(
        html.contains(r#"id="pass-hat-k">33.3%"#),
        "pass^2: 1 of 3 items"
    );
    assert!(html.contains("pass^2"));
    assert!(html.contains("1 unstable item(s)</b>: <code>golden-gate</code>"));
}

#[test]
fn html_escapes_everything_from_rows_and_transcripts() {
    let rows = small_rows();
    let dir = tempfile::tempdir().unwrap();
    write_fail_transcripts(&rows, dir.path());
    let page = ReportPage::with_transcripts(&rows, dir.path());
    assert!(page.notes.is_empty(), "{:?}", page.notes);
    assert_eq!(
        page.items.iter().filter(|i| i.transcript.is_some()).count(),
        2
    );
    let html = render_page(&page);
    // The only script elements are the page's own two.
    assert_eq!(html.matches("<script").count(), 2);
    assert_eq!(html.matches("</script>").count(), 2);
    assert!(!html.contains("<img"));
    assert!(!html.contains("<!--"));
    assert!(!html.contains(EVIL_TEXT));
    // The data round-trips exactly.
    let data = embedded_data(&html);
    let items = data["items"].as_array().unwrap();
    assert_eq!(items.len(), 5);
    assert_eq!(items[3][0], EVIL_ID);
    let msgs = items[3][12]["messages"].as_array().unwrap();
    assert!(msgs[3]["text"].as_str().unwrap().contains(EVIL_TEXT));
    assert!(items[4][9][0][2].as_str().unwrap().starts_with("<img"));
}

#[test]
fn html_page_is_self_contained() {
    let html = render_page(&ReportPage::from_rows(&small_rows()));
    for needle in [
        "http://",
        "https://",
        "<script src",
        "<link",
        "<img",
        "<iframe",
        "@import",
        "url(",
        "fetch(",
        "XMLHttpRequest",
    ] {
        assert!(!html.contains(needle), "{needle}");
    }
    assert!(html.starts_with("<!DOCTYPE html>"));
    assert!(html.trim_end().ends_with("</html>"));
}

#[test]
fn html_data_stores_each_check_spec_once() {
    let mut rows = small_rows();
    rows.extend(small_rows().into_iter().map(|mut r| {
        r.repeat = 1;
        r
    }));
    let data: Value = serde_json::from_str(&data_json(&ReportPage::from_rows(&rows))).unwrap();
    // json_schema, tool_used, and one json_path_equals per non-ERROR item (4).
    assert_eq!(data["specs"].as_array().unwrap().len(), 6);
    assert_eq!(data["repeats"], 2);
}

#[test]
fn html_unreadable_transcript_is_a_note() {
    let rows = small_rows();
    let dir = tempfile::tempdir().unwrap();
    let path =
        tribunal_judge::internal::rows::transcript::transcript_path(dir.path(), "golden-gate", 0);
    std::fs::write(&path, "{not json").unwrap();
    let page = ReportPage::with_transcripts(&rows, dir.path());
    assert_eq!(page.notes.len(), 1);
    assert!(page.notes[0].starts_with("transcript of golden-gate #0:"));
    assert!(render_page(&page).contains("transcript of golden-gate #0:"));
}

#[test]
fn html_transcript_round_trips_through_its_file() {
    let rows = small_rows();
    let t = crate::html_fixtures::transcript(&rows[1]);
    let dir = tempfile::tempdir().unwrap();
    let path = t.write(dir.path()).unwrap();
    assert!(path.ends_with("golden-gate.r0.json"));
    let back =
        tribunal_judge::internal::rows::transcript::Transcript::read(dir.path(), "golden-gate", 0)
            .unwrap();
    assert_eq!(back, Some(t));
    assert_eq!(
        tribunal_judge::internal::rows::transcript::Transcript::read(dir.path(), "absent", 0)
            .unwrap(),
        None
    );
}

/// The page without its scripts (as with scripts off, or in a mail client).
fn without_scripts(html: &str) -> String {
    html.split("<script")
        .enumerate()
        .map(|(i, part)| match i {
            0 => part,
            _ => part.split_once("</script>").map_or("", |(_, rest)| rest),
        })
        .collect()
}

/// The items table is HTML the page carries, not one its script builds:
/// every item run's row, a FAIL row saying why; a long report holds its
/// first 1,000 rows and says how many more its data holds.
#[test]
fn html_items_table_reads_without_scripts() {
    let html = render_page(&ReportPage::from_rows(&small_rows()));
    let bare = without_scripts(&html);
    assert!(!bare.contains("<script"));
    assert!(!html.contains("needs JavaScript"));
    let rows: Vec<&str> = bare.split(r#"<tr class="item "#).skip(1).collect();
    assert_eq!(rows.len(), small_rows().len());
    let fail = rows
        .iter()
        .find(|r| r.starts_with("FAIL"))
        .expect("a FAIL row");
    assert!(fail.contains(r#"<div class="why">"#), "{fail}");
    // Hostile ids and details are text in the HTML too.
    assert!(!bare.contains(EVIL_ID), "an unescaped id");

    let many = render_page(&ReportPage::from_rows(&many_rows(1500)));
    let bare = without_scripts(&many);
    assert_eq!(bare.matches(r#"<tr class="item "#).count(), 1000);
    assert!(
        bare.contains("… and 500 more item run(s)"),
        "the rest is said"
    );
}

/// A 10,000-item results file renders into a report under 5 MB.
#[test]
fn html_ten_thousand_items_stay_under_5_mb() {
    let page = ReportPage::from_rows(&many_rows(10_000));
    let html = render_page(&page);
    println!("10,000-item report: {} bytes", html.len());
    assert!(html.len() < 5 * 1024 * 1024, "{} bytes", html.len());
    assert_eq!(
        embedded_data(&html)["items"].as_array().unwrap().len(),
        10_000
    );
}

/// A conversation item's details carry its ending with the simulated
/// user's tokens, and its exchanges turn by turn (what the user said, the
/// agent's reply, its tool calls), a hostile message escaped like the rest.
#[test]
fn html_conversation_turns_are_in_the_item_data() {
    use tribunal_judge::internal::rows::results::ConversationRecord;
    use tribunal_runtime::Exchange;
    let mut rows = small_rows();
    rows[0].conversation = Some(Box::new(ConversationRecord {
        end: tribunal_runtime::DialogueEnd::UserBudgetSpent,
        exchanges: vec![
            Exchange {
                user: "refund A1".to_string(),
                agent: Some("Done.".to_string()),
            },
            Exchange {
                user: EVIL_TEXT.to_string(),
                agent: None,
            },
        ],
        calls_per_turn: vec![2],
        user_usage: tribunal_runtime::Usage::new(40, 2),
        simulator: None,
    }));
    let html = render_page(&ReportPage::from_rows(&rows));
    assert!(!html.contains(EVIL_TEXT));
    let data = embedded_data(&html);
    let items = data["items"].as_array().unwrap();
    assert_eq!(
        items[0][15],
        "user_budget_spent after 2 user turn(s), user 42 tok"
    );
    assert_eq!(
        items[0][16],
        serde_json::json!([["refund A1", "Done.", 2], [EVIL_TEXT, null, 0]])
    );
    assert_eq!(items[1][16], Value::Null);
}
