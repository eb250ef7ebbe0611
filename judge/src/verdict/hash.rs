//! [`review_hash`]: SHA-256 over the canonical JSON of everything that
//! shapes a verdict — prompt, system prompt, both owner schemas, tools,
//! budgets and extraction — so a stored verdict names the config that
//! produced it.

use super::{Verdict, VerdictSchemas};
use crate::run::hash::{budget_fields, short_digest};
use serde_json::{Value, json};
use tribunal_runtime::{AnswerPolicy, Budget, ToolSpec};

/// Version of the hashed layout; bump it when the layout changes.
const HASH_LAYOUT: u32 = 1;

/// The config hash of a review: the first 16 lowercase hex digits (as every
/// config hash, a run's too) of SHA-256 over the canonical
/// JSON (keys sorted) of the prompt, the system prompt, the GREEN and RED
/// owner schemas, the tools offered, the budgets and the answer policy.
/// A human submission hashes only the schemas (`prompt` and `system` are
/// `None`, no tools).
pub fn review_hash(
    prompt: Option<&str>,
    system: Option<&str>,
    schemas: &VerdictSchemas,
    tools: &[ToolSpec],
    budget: Option<&Budget>,
    answer: Option<&AnswerPolicy>,
) -> String {
    digest(&review_config(
        prompt, system, schemas, tools, budget, answer,
    ))
}

/// What [`review_hash`] digests, for a caller that adds to it
/// ([`Review::config_hash`](super::Review::config_hash)).
pub(crate) fn review_config(
    prompt: Option<&str>,
    system: Option<&str>,
    schemas: &VerdictSchemas,
    tools: &[ToolSpec],
    budget: Option<&Budget>,
    answer: Option<&AnswerPolicy>,
) -> Value {
    json!({
        "layout": HASH_LAYOUT,
        "prompt": prompt,
        "system": system,
        "schemas": {
            "green": schemas.owner(Verdict::Green),
            "red": schemas.owner(Verdict::Red),
        },
        "tools": tools.iter().map(|s| json!({
            "name": s.name, "description": s.description, "parameters": s.parameters,
        })).collect::<Vec<_>>(),
        "budget": budget.map(budget_fields),
        "answer": answer.map(|a| json!({
            "mode": a.mode, "max_depth": a.max_depth, "max_bytes": a.max_bytes,
        })),
    })
}

/// The config hash of `config`: 16 hex digits of the SHA-256 of its
/// canonical JSON, as a run's.
pub(crate) fn digest(config: &Value) -> String {
    short_digest(config)
}
