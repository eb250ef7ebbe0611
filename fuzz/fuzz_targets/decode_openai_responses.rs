//! Arbitrary text as an OpenAI Responses answer body: `OpenAiResponsesCodec::decode`,
//! then the decoded turn encoded back into the next request (see
//! `common::decode_answer`).
#![no_main]

mod common;

use libfuzzer_sys::fuzz_target;
use tribunal_runtime::internal::backend::OpenAiResponsesCodec;

fuzz_target!(|data: &[u8]| common::decode_answer::<OpenAiResponsesCodec>(data));
