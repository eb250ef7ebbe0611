//! Arbitrary text through `evaluate_answer` with the landmark schema,
//! lenient and strict, on every target.
#![no_main]

mod common;

use libfuzzer_sys::fuzz_target;
use std::sync::LazyLock;
use tribunal_runtime::ExtractionMode;
use tribunal_runtime::{AnswerPolicy, OutputSchema};
use tribunal_runtime::internal::answer::{evaluate_answer, repair_message};
use tribunal_runtime::StopReason;

static SCHEMA: LazyLock<OutputSchema> =
    LazyLock::new(|| OutputSchema::new("landmark", common::landmark()).expect("landmark"));

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    for mode in [ExtractionMode::Lenient, ExtractionMode::Strict] {
        let policy = AnswerPolicy {
            mode,
            ..AnswerPolicy::default()
        };
        for target in common::TARGETS {
            match evaluate_answer(&*SCHEMA, target, text, StopReason::EndTurn, &policy) {
                Ok(accepted) => {
                    // An accepted value is an object with the four fields.
                    assert!(accepted.value.is_object());
                }
                Err(rejection) => {
                    let _ = repair_message(&rejection, None);
                }
            }
        }
    }
});
