//! tribunal: an embeddable agent runtime with a built-in eval judge.
//!
//! This facade re-exports the three library crates:
//!
//! - [`runtime`]: the agent loop ([`runtime::Agent`]), backends, budgets,
//!   structured final answers.
//! - [`tools`]: the tools agents call (corpus search, sandboxed file tools).
//! - [`judge`]: arenas, mechanical checks, GREEN/RED verdicts, reports.

pub use tribunal_judge as judge;
pub use tribunal_runtime as runtime;
pub use tribunal_tools as tools;
