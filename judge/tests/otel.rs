//! An arena run's spans, exported through `tribunal_runtime::otel::layer` to
//! OpenTelemetry's in-memory exporter: one `arena_item` span per run with
//! the item's id and outcome, each run's `invoke_agent` span inside it.
//!
//! A test binary of its own: `tracing` caches, per call site, whether any
//! subscriber wants it, and in the `it` binary other tests running without
//! a subscriber left that cache saying "no" for these spans (CI exported
//! none of them). Here the one test installs its subscriber first.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    missing_docs,
    unreachable_pub
)]

use opentelemetry_sdk::trace::{InMemorySpanExporter, SdkTracerProvider};
use std::collections::BTreeMap;
use tracing_subscriber::layer::SubscriberExt;
use tribunal_judge::Arena;
use tribunal_runtime::otel::opentelemetry::trace::TracerProvider as _;
use tribunal_testkit::arenas::{mock_run, options};

#[tokio::test]
async fn each_arena_item_is_a_span_with_its_id_and_outcome() {
    let dir =
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/fixtures/wrong_answers");
    let arena = Arena::load(&dir).unwrap();
    let out = tempfile::tempdir().unwrap();
    let exporter = InMemorySpanExporter::default();
    let provider = SdkTracerProvider::builder()
        .with_simple_exporter(exporter.clone())
        .build();
    let subscriber =
        tracing_subscriber::registry().with(tribunal_runtime::otel::layer(provider.tracer("test")));
    let guard = tracing::subscriber::set_default(subscriber);
    let result = mock_run(&arena, &options(&out.path().join("r.jsonl"))).await;
    drop(guard);
    provider.force_flush().unwrap();
    let spans = exporter.get_finished_spans().unwrap();

    let attribute = |span: &opentelemetry_sdk::trace::SpanData, key: &str| {
        span.attributes
            .iter()
            .find(|kv| kv.key.as_str() == key)
            .map(|kv| kv.value.to_string())
    };
    let items: Vec<_> = spans.iter().filter(|s| s.name == "arena_item").collect();
    assert_eq!(items.len(), result.rows.len());
    let from_spans: BTreeMap<String, (String, Option<String>)> = items
        .iter()
        .map(|s| {
            assert_eq!(
                attribute(s, "tribunal.arena").as_deref(),
                Some(arena.name.as_str())
            );
            assert_eq!(attribute(s, "tribunal.repeat").as_deref(), Some("0"));
            (
                attribute(s, "tribunal.item.id").unwrap(),
                (
                    attribute(s, "tribunal.outcome").unwrap(),
                    attribute(s, "error.type"),
                ),
            )
        })
        .collect();
    let from_rows: BTreeMap<String, (String, Option<String>)> = result
        .rows
        .iter()
        .map(|r| {
            let code = r.error_code.map(|c| c.as_str().to_string());
            (r.id.clone(), (r.outcome.as_str().to_string(), code))
        })
        .collect();
    assert_eq!(from_spans, from_rows);
    // The fixture is wrong on purpose: all three outcomes are there.
    let outcomes: std::collections::BTreeSet<&str> =
        from_rows.values().map(|(o, _)| o.as_str()).collect();
    assert_eq!(outcomes.len(), 3, "{outcomes:?}");

    // Every run's `invoke_agent` span is a child of its item's span.
    let item_ids: std::collections::HashSet<_> =
        items.iter().map(|s| s.span_context.span_id()).collect();
    let agents: Vec<_> = spans.iter().filter(|s| s.name == "invoke_agent").collect();
    assert_eq!(agents.len(), items.len());
    assert!(agents.iter().all(|a| item_ids.contains(&a.parent_span_id)));
}
