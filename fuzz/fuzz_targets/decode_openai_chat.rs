//! Arbitrary text as a Chat Completions answer body: `OpenAiChatCodec::decode`,
//! then the decoded turn encoded back into the next request (see
//! `common::decode_answer`).
#![no_main]

mod common;

use libfuzzer_sys::fuzz_target;
use tribunal_runtime::internal::backend::OpenAiChatCodec;

fuzz_target!(|data: &[u8]| common::decode_answer::<OpenAiChatCodec>(data));
