//! The `search` tool through a `ToolBox`, as the agent loop calls it.

use std::sync::Arc;

use serde_json::json;
use tribunal_runtime::{Tool, ToolBox};
use tribunal_tools::{Corpus, Passage, SearchTool};

use crate::call;

fn corpus() -> Arc<Corpus> {
    let passages = (0..25)
        .map(|i| {
            Passage::new(
                i.to_string(),
                format!("Tower {i}"),
                format!("A tower, number {i}."),
            )
        })
        .chain([Passage::new(
            "eiffel",
            "Eiffel Tower",
            "Wrought iron,\nParis.\n\n1889.",
        )])
        .collect();
    Arc::new(Corpus::from_passages(passages))
}

fn tool() -> SearchTool {
    SearchTool::new(corpus())
}

fn toolbox() -> ToolBox {
    ToolBox::new().with(tool())
}

#[tokio::test]
async fn renders_one_line_per_hit() {
    let r = call(&toolbox(), "search", json!({"query": "eiffel paris"})).await;
    assert!(!r.is_error);
    assert_eq!(
        r.content,
        "[eiffel] Eiffel Tower: Wrought iron, Paris. 1889."
    );
}

#[tokio::test]
async fn k_defaults_to_3_and_goes_up_to_20() {
    let tb = toolbox();
    let r = call(&tb, "search", json!({"query": "tower"})).await;
    assert_eq!(r.content.lines().count(), 3);
    let r = call(&tb, "search", json!({"query": "tower", "k": 20})).await;
    assert_eq!(r.content.lines().count(), 20);
    assert!(r.content.starts_with("[eiffel] ") || r.content.starts_with("[0] "));
}

#[tokio::test]
async fn k_out_of_range_or_bad_args_are_errors_for_the_model() {
    let tb = toolbox();
    for args in [
        json!({"query": "tower", "k": 0}),
        json!({"query": "tower", "k": 21}),
        json!({"query": "tower", "k": "3"}),
        json!({"k": 3}),
        json!({"query": "tower", "extra": 1}),
    ] {
        let r = call(&tb, "search", args.clone()).await;
        assert!(r.is_error, "{args}: {}", r.content);
    }
    // Called directly, without the toolbox's schema check, too.
    let e = tool()
        .call(json!({"query": "x", "k": 99}))
        .await
        .unwrap_err();
    assert!(e.message.contains("between 1 and 20"), "{}", e.message);
}

#[tokio::test]
async fn no_match_is_a_short_text_not_an_error() {
    let tb = toolbox();
    for q in ["", "zzz"] {
        let r = call(&tb, "search", json!({"query": q})).await;
        assert!(!r.is_error);
        assert!(r.content.starts_with("no results"), "{}", r.content);
    }
}

#[test]
fn the_json_form_has_id_title_text_score() {
    let v = tool()
        .search_json(&json!({"query": "eiffel", "k": 1}))
        .unwrap();
    assert_eq!(v.as_array().unwrap().len(), 1);
    let hit = &v[0];
    assert_eq!(hit["id"], "eiffel");
    assert_eq!(hit["title"], "Eiffel Tower");
    assert!(hit["score"].as_f64().unwrap() > 0.0);
    assert_eq!(
        tool().search_json(&json!({"query": ""})).unwrap(),
        json!([])
    );
}

#[test]
fn advertised_schema() {
    let t = tool();
    assert_eq!(t.name(), "search");
    let p = t.parameters();
    assert_eq!(p["required"], json!(["query"]));
    assert_eq!(p["properties"]["k"]["maximum"], 20);
}

#[tokio::test]
async fn the_call_reads_as_render_hits_of_the_same_hits() {
    let tool = tool();
    for args in [
        json!({"query": "tower eiffel", "k": 5}),
        json!({"query": "no such words"}),
    ] {
        let r = call(&toolbox(), "search", args.clone()).await;
        let hits = tool.hits(&args).unwrap_or_default();
        assert_eq!(r.content, tribunal_tools::render_hits(&hits), "{args}");
    }
}

#[tokio::test]
async fn a_fixed_k_is_every_calls_k_and_not_offered_to_the_model() {
    let fixed = SearchTool::with_fixed_k(corpus(), 5);
    assert_eq!(fixed.fixed_k(), Some(5));
    let params = fixed.parameters();
    assert_eq!(params["properties"].as_object().unwrap().len(), 1);
    assert_eq!(params["required"], json!(["query"]));
    assert!(tool().parameters()["properties"].get("k").is_some());

    let tb = ToolBox::new().with(fixed);
    let r = call(&tb, "search", json!({"query": "tower"})).await;
    assert!(!r.is_error);
    assert_eq!(r.content.lines().count(), 5);
    // Naming `k` is an argument the schema does not have: refused, with why
    // (by the toolbox's schema check, and by the tool itself when called
    // directly).
    let r = call(&tb, "search", json!({"query": "tower", "k": 5})).await;
    assert!(r.is_error);
    assert!(r.content.contains("'k' was unexpected"), "{}", r.content);
    let direct = SearchTool::with_fixed_k(corpus(), 5).hits(&json!({"query": "tower", "k": 5}));
    assert!(direct.is_err());
    // Out of range when fixed: held to 1..=MAX_K.
    assert_eq!(SearchTool::with_fixed_k(corpus(), 0).fixed_k(), Some(1));
    assert_eq!(SearchTool::with_fixed_k(corpus(), 99).fixed_k(), Some(20));
}
