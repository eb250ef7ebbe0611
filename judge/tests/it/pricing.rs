//! The pricing table: the built-in file, model lookup, the cost of a usage
//! by hand, and which runs are free, priced or unpriced.

use crate::html_fixtures::row;
use tribunal_judge::internal::pricing::{Cost, CostSummary, ModelPrice, Pricing};
use tribunal_judge::{Outcome, Report, ReportFormat};
use tribunal_runtime::Usage;

#[test]
fn the_builtin_table_parses_with_its_date_and_sane_prices() {
    let builtin = Pricing::from_toml(
        tribunal_judge::internal::pricing::BUILTIN_PRICING,
        "pricing.toml",
    )
    .expect("the shipped table parses");
    assert_eq!(&builtin, Pricing::builtin());
    assert_eq!(builtin.taken.as_deref(), Some("2026-12-01"));
    assert!(builtin.source.is_some());
    for model in [
        "gpt-4.1",
        "gpt-4o-mini",
        "gpt-5",
        "claude-sonnet-4-5",
        "claude-haiku-4-5",
    ] {
        let p = builtin
            .price(model)
            .unwrap_or_else(|| panic!("{model} is priced"));
        assert!(p.output > p.input && p.input > 0.0, "{model}: {p:?}");
        assert!(p.cache_read.is_some_and(|r| r < p.input), "{model}: {p:?}");
    }
}

/// Anthropic bills a 5-minute cache write at 1.25× the input price and a
/// cache read at 0.1× (the breakpoints tribunal sends are 5-minute ones):
/// every Claude model of the built-in table says so, so the report's cost
/// of a cached run is the invoice's.
#[test]
fn every_builtin_claude_model_prices_cache_writes_and_reads_at_anthropics_multipliers() {
    let claude: Vec<(&String, &ModelPrice)> = Pricing::builtin()
        .models
        .iter()
        .filter(|(name, _)| name.starts_with("claude-"))
        .collect();
    assert!(claude.len() >= 6);
    let near = |a: f64, b: f64| (a - b).abs() < 1e-9;
    for (name, p) in claude {
        assert!(
            p.cache_write.is_some_and(|w| near(w, 1.25 * p.input)),
            "{name}: {p:?}"
        );
        assert!(
            p.cache_read.is_some_and(|r| near(r, 0.1 * p.input)),
            "{name}: {p:?}"
        );
    }
}

#[test]
fn a_model_is_found_by_name_or_a_dated_name_never_by_a_guess() {
    let pricing = Pricing::builtin();
    let input = |m: &str| pricing.price(m).map(|p| p.input);
    assert_eq!(input("gpt-4.1"), Some(2.0));
    assert_eq!(input("gpt-4.1-mini"), Some(0.40));
    assert_eq!(
        input("gpt-4.1-mini-2025-04-14"),
        Some(0.40),
        "the longest listed name"
    );
    assert_eq!(input("gpt-4.1-2025-04-14"), Some(2.0));
    assert_eq!(input("claude-sonnet-4-5-20250929"), Some(3.0));
    assert_eq!(input("claude-sonnet-4-5-latest"), Some(3.0));
    // Another model that merely starts like a listed one is not priced.
    assert_eq!(input("gpt-4.1-turbo"), None);
    assert_eq!(input("gpt-4.1-2025"), None);
    assert_eq!(input("gpt-4"), None);
    assert_eq!(input("qwen"), None);
}

#[test]
fn the_cost_of_a_usage_by_hand() {
    let price = ModelPrice {
        input: 3.0,
        output: 15.0,
        cache_read: Some(0.30),
        cache_write: Some(3.75),
    };
    let usage = Usage {
        input_tokens: 10_000,
        output_tokens: 2_000,
        cache_read_tokens: 6_000,
        cache_write_tokens: 1_000,
        reasoning_tokens: 500,
    };
    // (3,000 × 3 + 6,000 × 0.30 + 1,000 × 3.75 + 2,000 × 15) / 1e6
    // = (9,000 + 1,800 + 3,750 + 30,000) / 1e6 = 0.04455
    assert!((price.cost(&usage) - 0.04455).abs() < 1e-15);
    // Without cache prices the cached tokens cost as input.
    let plain = ModelPrice {
        cache_read: None,
        cache_write: None,
        ..price
    };
    assert!((plain.cost(&usage) - (10_000.0 * 3.0 + 2_000.0 * 15.0) / 1e6).abs() < 1e-15);
}

#[test]
fn mock_and_custom_endpoints_cost_nothing_unknown_models_are_unpriced() {
    let pricing = Pricing::builtin();
    let mock = row("a", 0, 0, Outcome::Pass);
    assert_eq!(pricing.cost_of(&mock), Cost::Free);

    let mut hosted = mock.clone();
    hosted.backend = "openai-chat".into();
    hosted.model = "gpt-4.1".into();
    // 400 in, 40 out at $2 / $8 per million.
    assert_eq!(
        pricing.cost_of(&hosted),
        Cost::Usd((400.0 * 2.0 + 40.0 * 8.0) / 1e6)
    );

    let mut unknown = hosted.clone();
    unknown.model = "gpt-9-preview".into();
    assert_eq!(pricing.cost_of(&unknown), Cost::Unpriced);
    assert_eq!(Cost::Unpriced.usd(), None, "unpriced is never 0");

    // A batch run is billed at half (both providers' batch rate).
    let mut batched = hosted.clone();
    batched.batch = true;
    assert_eq!(
        pricing.cost_of(&batched),
        Cost::Usd((400.0 * 2.0 + 40.0 * 8.0) / 2e6)
    );

    let mut local = unknown.clone();
    local.custom_endpoint = true;
    assert_eq!(pricing.cost_of(&local), Cost::Free);
    // A priced model on a custom endpoint (a proxy in front of OpenAI) is priced.
    let mut proxied = hosted.clone();
    proxied.custom_endpoint = true;
    assert_eq!(pricing.cost_of(&proxied), pricing.cost_of(&hosted));

    // The report: per item, in total, and the unpriced runs named.
    let rows = vec![hosted.clone(), unknown.clone()];
    let (costs, summary) = CostSummary::of(&rows, pricing);
    assert_eq!(costs.len(), 2);
    assert_eq!((summary.priced_runs, summary.unpriced_runs), (1, 1));
    assert_eq!(summary.unpriced_models, vec!["gpt-9-preview".to_string()]);
    let report = Report::from_rows("structured_output", &rows);
    assert_eq!(report.items[1].cost_usd, None);
    // The report that takes its rows (the CLI's) is the same report.
    assert_eq!(
        Report::priced_owned("structured_output", rows.clone(), Pricing::builtin()),
        report
    );
    let text = report.render(ReportFormat::Terminal);
    assert!(
        text.contains("cost $0.001120 over 1 run(s) ($0.001120 per run; prices of 2026-12-01); 1 run(s) unpriced (gpt-9-preview), so the total is a lower bound"),
        "{text}"
    );
    assert!(text.contains("3 check(s) held · $0.001120"), "{text}");
    assert!(text.contains("· unpriced"), "{text}");
    let only_unknown = Report::from_rows("structured_output", &[unknown]);
    assert!(
        only_unknown
            .render(ReportFormat::Markdown)
            .contains("cost unpriced: 1 run(s) of model(s) in no pricing table (gpt-9-preview)")
    );
    let junit = report.render(ReportFormat::Junit);
    assert!(
        junit.contains(r#"<property name="cost_usd" value="0.001120"/>"#),
        "{junit}"
    );
    assert!(junit.contains(r#"<property name="cost_unpriced_runs" value="1"/>"#));
}

#[test]
fn an_overlay_adds_and_replaces_models_and_bad_prices_are_refused() {
    let over = Pricing::from_toml(
        "[models.\"qwen\"]\ninput = 0.1\noutput = 0.2\n[models.\"gpt-4.1\"]\ninput = 1.0\noutput = 4.0\n",
        "mine.toml",
    )
    .unwrap();
    let merged = Pricing::builtin().clone().overlaid(&over);
    assert_eq!(merged.price("qwen").map(|p| p.input), Some(0.1));
    assert_eq!(merged.price("gpt-4.1").map(|p| p.output), Some(4.0));
    assert_eq!(
        merged.price("gpt-4o").map(|p| p.input),
        Some(2.5),
        "the rest kept"
    );
    assert_eq!(merged.taken.as_deref(), Some("2026-12-01"));

    for (text, want) in [
        (
            "[models.\"m\"]\ninput = -1.0\noutput = 1.0\n",
            "mine.toml: model \"m\": prices must be finite and not negative",
        ),
        (
            "[models.\"m\"]\ninput = 1.0\n",
            "mine.toml: not a pricing table",
        ),
        (
            "[models.\"m\"]\ninput = 1.0\noutput = 1.0\ncache = 1.0\n",
            "unknown field `cache`",
        ),
        ("[model.\"m\"]\n", "unknown field `model`"),
        (
            "[models.\"m\"]\ninput = nan\noutput = 1.0\n",
            "prices must be finite",
        ),
    ] {
        let err = Pricing::from_toml(text, "mine.toml")
            .expect_err(text)
            .to_string();
        assert!(err.contains(want), "{text:?}: {err}");
    }
}
