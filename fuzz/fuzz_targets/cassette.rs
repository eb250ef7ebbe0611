//! Arbitrary text as a replay cassette (`--replay DIR`): `Replay::from_text`,
//! then, when it loads, one request served from it — what `tribunal run
//! --replay` does with a file someone hands it.
#![no_main]

use libfuzzer_sys::fuzz_target;
use std::sync::LazyLock;
use tribunal_runtime::{Backend, Conversation};
use tribunal_runtime::{ModelRequest, OutputFormat, Replay};

static RUNTIME: LazyLock<tokio::runtime::Runtime> = LazyLock::new(|| {
    tokio::runtime::Builder::new_current_thread()
        .build()
        .expect("runtime")
});

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let Ok(replay) = Replay::from_text("fuzz.jsonl", text) else {
        return;
    };
    let request = ModelRequest {
        conversation: Conversation::new(Some("sys".into()), "hello").into(),
        tools: Vec::new().into(),
        tool_choice: Default::default(),
        output: OutputFormat::Text,
        max_output_tokens: None,
    };
    let before = replay.remaining();
    let served = RUNTIME.block_on(replay.complete(&request));
    // A recorded outcome is served at most once; nothing is served from an
    // empty cassette.
    assert!(replay.remaining() <= before);
    if before == 0 {
        assert!(served.is_err());
    }
});
