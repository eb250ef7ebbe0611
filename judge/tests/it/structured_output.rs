//! The structured_output arena in mock mode: 15/15 PASS, the scored JSON
//! report snapshot, and gold values that equal the corpus passages.

use serde_json::Value;
use tribunal_judge::{Check, Report, ReportFormat};
use tribunal_runtime::ScriptStep;
use tribunal_testkit::arenas::{arenas_dir, mock_run, options, structured_output};

#[tokio::test]
async fn mock_run_passes_every_item_and_matches_the_snapshot() {
    let _snapshots = tribunal_testkit::bind_snapshots("judge");
    let arena = structured_output();
    assert_eq!(arena.items.len(), 15);
    let dir = tempfile::tempdir().unwrap();
    let result = mock_run(&arena, &options(&dir.path().join("r.jsonl"))).await;
    let report = Report::from_rows(&arena.name, &result.rows);
    assert!(report.mock);
    assert_eq!(
        (
            report.summary.total,
            report.summary.pass,
            report.summary.fail,
            report.summary.error
        ),
        (15, 15, 0, 0)
    );
    let json: Value = serde_json::from_str(&report.render(ReportFormat::Json)).unwrap();
    let hash = json["config_hash"].as_str().unwrap();
    assert!(hash.len() == 16 && hash.chars().all(|c| c.is_ascii_hexdigit()));
    insta::assert_json_snapshot!("structured_output_mock_report", json, {
        ".config_hash" => "[hash]",
        ".items[].wall_ms" => "[ms]",
        ".items[].tool_calls[].duration_ms" => "[ms]",
    });
}

#[test]
fn gold_values_equal_the_corpus_passages() {
    let arena = structured_output();
    let corpus: Vec<Value> = serde_json::from_str(
        &std::fs::read_to_string(arenas_dir().join("structured_output/corpus.json")).unwrap(),
    )
    .unwrap();
    assert_eq!(corpus.len(), 27, "15 landmarks + 12 distractors");
    for item in &arena.items {
        let gold = |path: &str| {
            item.checks
                .iter()
                .find_map(|c| match &c.check {
                    Check::JsonPathEquals { path: p, value, .. } if p == path => {
                        Some(value.clone())
                    }
                    _ => None,
                })
                .unwrap_or_else(|| panic!("{}: no check on {path}", item.id))
        };
        let name = gold("name");
        let passage = corpus
            .iter()
            .find(|p| p["title"] == name)
            .unwrap_or_else(|| panic!("no passage titled {name}"));
        let text = passage["text"].as_str().unwrap();
        let year = gold("year").to_string();
        let height = format!("{} m", gold("height_m"));
        assert!(text.contains(&year), "{}: {year} not in {text}", item.id);
        assert!(
            text.contains(&height),
            "{}: {height} not in {text}",
            item.id
        );
        assert_eq!(
            item.input,
            format!("Return the record for {}.", name.as_str().unwrap())
        );
        // The mock cites the landmark's own passage.
        let mock = item.mock.as_ref().unwrap();
        assert_eq!(mock.len(), 2);
        let (ScriptStep::Turn(call), ScriptStep::Turn(last)) = (&mock[0], &mock[1]) else {
            panic!("{}: the mock script plays two turns", item.id);
        };
        assert_eq!(call.tool_calls[0].name, "search");
        let answer: Value = serde_json::from_str(&last.text).unwrap();
        assert_eq!(answer["sources"][0], passage["id"]);
    }
}
