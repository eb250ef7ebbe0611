//! Arbitrary text as a wire answer of each target: strictly parsed, then
//! decoded and validated for the landmark schema and for the GREEN/RED
//! verdict envelope.
#![no_main]

mod common;

use libfuzzer_sys::fuzz_target;
use std::sync::LazyLock;
use tribunal_judge::VerdictSchemas;
use tribunal_runtime::internal::json::{ParseLimits, parse_strict};
use tribunal_runtime::{AnswerContract, OutputSchema};

static LANDMARK: LazyLock<OutputSchema> =
    LazyLock::new(|| OutputSchema::new("landmark", common::landmark()).expect("landmark"));
static VERDICT: LazyLock<VerdictSchemas> = LazyLock::new(|| {
    let (green, red) = common::verdict_owners();
    VerdictSchemas::new(green, red).expect("verdict schemas")
});

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let Ok(wire) = parse_strict(text, &ParseLimits { max_depth: 128 }) else {
        return;
    };
    for target in common::TARGETS {
        let _ = LANDMARK.decode_and_validate(target, wire.clone());
        let _ = VERDICT.decode_and_validate(target, wire.clone());
    }
});
