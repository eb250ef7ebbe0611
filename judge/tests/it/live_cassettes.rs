//! Real-model cassettes: both shipped arenas as recorded against llama.cpp's
//! `llama-server` with Qwen2.5-Coder-0.5B-Instruct (how: LIVE.md), replayed
//! through the public snapshot API. No server, no key. A change in what we
//! send (prompts, tools, strategy wording, settings) makes a request the
//! cassette has no answer for; a change in how we read answers changes the
//! scored report. Either fails here: record again (LIVE.md) and review.

use std::path::{Path, PathBuf};
use tribunal_runtime::{Backend, OutputStrategy, Replay};

fn arena(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../arenas")
        .join(name)
}

fn cassette(name: &str) -> PathBuf {
    arena(name).join("cassettes").join(format!("{name}.jsonl"))
}

/// The cassettes are what LIVE.md says: a real compatible server, where
/// `auto` picks the tool strategy.
#[test]
fn the_cassettes_come_from_the_real_server_under_auto() {
    for name in ["structured_output", "code_review"] {
        let replay = Replay::from_file(cassette(name)).unwrap();
        assert_eq!(replay.name(), "openai-chat", "{name}");
        assert_eq!(replay.model(), "qwen", "{name}");
        assert_eq!(
            replay.output_plan().strategy,
            OutputStrategy::Tool,
            "{name}"
        );
        assert!(replay.remaining() > 0, "{name}");
    }
}

#[test]
fn structured_output_replayed_from_a_real_small_model() {
    bind_snapshots!();
    tribunal_judge::assert_arena_snapshot!(
        "live_structured_output_qwen05b",
        arena("structured_output").to_str().unwrap(),
        replay = cassette("structured_output")
    );
}

#[test]
fn code_review_replayed_from_a_real_small_model() {
    bind_snapshots!();
    tribunal_judge::assert_arena_snapshot!(
        "live_code_review_qwen05b",
        arena("code_review").to_str().unwrap(),
        replay = cassette("code_review")
    );
}
