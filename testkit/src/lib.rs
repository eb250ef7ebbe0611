//! Test support shared by the tribunal workspace's tests and benches: one
//! place for what every test binary used to copy.
//!
//! - [`snapshots`]: binds insta to the workspace's `snapshots/<folder>/`.
//! - [`agents`]: the landmark schema, scripted turns and agents, counting
//!   and slow tools and backends (the runtime's loop tests and benches).
//! - [`wire`]: a wiremock "model" per provider API that plays provider-shaped
//!   answers in order, and builders of those answers (the backend tests).
//! - `stand_in` (feature `cli`): stand-in models for the CLI's end-to-end tests — one that
//!   plays the structured_output arena, a code reviewer, a rubric judge —
//!   and Anthropic's prompt cache as they play it.
//! - `batch` (feature `cli`): a fake of the providers' batch APIs over the stand-in model.
//! - [`sse`]: each API's server-sent events, for the stand-ins that stream.
//! - [`faulty`]: a raw-socket stand-in of each API that streams those events
//!   and drops, stalls, trickles or garbles them on cue.
//! - [`json`]: JSON Lines files and timing-free JSON.
//! - [`launch`]: the `tribunal` binary launched in a clean environment.
//! - `arenas` (feature `judge`): arena folders on disk and mock runs.
//!
//! Test code: a failed set-up panics with what failed (`unwrap`/`expect`
//! are allowed here, as in the tests that use this crate).
#![allow(clippy::unwrap_used, clippy::expect_used)]

pub mod agents;
#[cfg(feature = "judge")]
pub mod arenas;
#[cfg(feature = "cli")]
pub mod batch;
pub mod faulty;
pub mod json;
pub mod launch;
pub mod snapshots;
pub mod sse;
#[cfg(feature = "cli")]
pub mod stand_in;
pub mod wire;

pub use snapshots::bind_snapshots;
