//! Arbitrary bytes → JSON → an owner schema: `OutputSchema::new` and
//! `compile` for each target; a compiled schema's plan decodes its own
//! encoding of a trivial value without panicking.
#![no_main]

mod common;

use libfuzzer_sys::fuzz_target;
use serde_json::Value;
use tribunal_runtime::internal::json::{ParseLimits, parse_strict};
use tribunal_runtime::OutputSchema;
use tribunal_runtime::internal::schema::compile;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let Ok(owner) = parse_strict(text, &ParseLimits { max_depth: 128 }) else {
        return;
    };
    for target in common::TARGETS {
        if let Ok(compiled) = compile(&owner, target) {
            let _ = compiled.plan.decode(Value::Null);
            let _ = compiled.plan.decode(serde_json::json!({}));
        }
    }
    if let Ok(schema) = OutputSchema::new("fuzz", owner) {
        for target in common::TARGETS {
            let _ = schema.compiled(target);
        }
        let _ = schema.root_is_object();
    }
});
