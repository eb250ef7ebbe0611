//! Structured-output benchmarks: compiling the landmark schema (cold), the
//! final-answer pipeline on a landmark answer, and the extraction scan.
#![allow(missing_docs)]

use criterion::{Criterion, Throughput, criterion_group, criterion_main};

use std::hint::black_box;
use tribunal_runtime::SchemaTarget;
use tribunal_runtime::StopReason;
use tribunal_runtime::internal::answer::evaluate_answer;
use tribunal_runtime::internal::json::{ExtractionMode, ParseLimits, extract};
use tribunal_runtime::internal::schema::compile;
use tribunal_runtime::{AnswerPolicy, OutputSchema};
use tribunal_testkit::agents::landmark_json as landmark;

const ANSWER: &str =
    r#"{"name":"Eiffel Tower","year":1889,"height_m":330,"sources":["p03","p11"]}"#;

fn bench_compile(c: &mut Criterion) {
    let owner = landmark();
    let mut g = c.benchmark_group("schema_compile_landmark_cold");
    for target in [SchemaTarget::OpenAi, SchemaTarget::Anthropic] {
        g.bench_function(target.as_str(), |b| {
            b.iter(|| compile(black_box(&owner), target))
        });
    }
    g.finish();
}

fn bench_answer(c: &mut Criterion) {
    let schema = OutputSchema::new("landmark", landmark()).expect("the landmark schema is valid");
    let policy = AnswerPolicy::default();
    let mut g = c.benchmark_group("answer_extract_decode_validate");
    for target in [
        SchemaTarget::Plain,
        SchemaTarget::OpenAi,
        SchemaTarget::Anthropic,
    ] {
        // Warm the per-target compilation cache: runs share it.
        let _ = schema.compiled(target);
        g.bench_function(target.as_str(), |b| {
            b.iter(|| {
                evaluate_answer(
                    &schema,
                    target,
                    black_box(ANSWER),
                    StopReason::EndTurn,
                    &policy,
                )
            })
        });
    }
    let fenced = format!("Here is the record:\n```json\n{ANSWER}\n```\nDone.");
    g.bench_function("openai_fenced", |b| {
        b.iter(|| {
            evaluate_answer(
                &schema,
                SchemaTarget::OpenAi,
                black_box(&fenced),
                StopReason::EndTurn,
                &policy,
            )
        })
    });
    g.finish();
}

fn bench_extract(c: &mut Criterion) {
    // 1 MB of prose (with quotes and a citation) before the JSON object.
    let sentence =
        "The tower, called \"la dame de fer\" [1], was finished in 1889; it is 330 m tall. ";
    let mut text = String::with_capacity(1 << 20);
    while text.len() + sentence.len() + ANSWER.len() < 1 << 20 {
        text.push_str(sentence);
    }
    text.push_str(ANSWER);
    let limits = ParseLimits::default();
    let mut g = c.benchmark_group("extract_scan");
    g.throughput(Throughput::Bytes(text.len() as u64));
    g.bench_function("1MB_prose_then_object", |b| {
        b.iter(|| extract(black_box(&text), ExtractionMode::Lenient, true, &limits))
    });
    g.finish();
}

criterion_group!(benches, bench_compile, bench_answer, bench_extract);
criterion_main!(benches);
