//! [`UserSpec`]: an item's `"user"` — the simulated user of a conversation
//! item: its instructions (the goal the agent never sees), persona, first
//! message, turn limit, stop marker, and a `script` for scripted users
//! (mock mode, replay, deterministic tests). Unknown fields are refused.

use serde::{Deserialize, Serialize};
use serde_json::Value;
use tribunal_runtime::ScriptLine;
use tribunal_runtime::internal::dialogue::DEFAULT_STOP_MARKER;

/// The most user turns an item may ask for.
pub(crate) const MAX_USER_TURNS: u32 = 50;

/// The simulated user of a conversation item.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct UserSpec {
    /// The user's goal and what it knows, for a model-backed user; never
    /// shown to the agent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub instructions: Option<String>,
    /// Who the user is (tone, patience), for a model-backed user.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub persona: Option<String>,
    /// The user's first message. Default: the item's `input`, else the
    /// simulator writes it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub first_message: Option<String>,
    /// The most user messages (agent turns). Default: 10.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_turns: Option<u32>,
    /// The text that ends the conversation. Default: `###STOP###`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stop_marker: Option<String>,
    /// The scripted user's lines: `{"say": …}` in order, `{"when": …,
    /// "say": …}` in reply to an agent reply containing `when`. Used in mock
    /// mode, and in live runs when there are no `instructions`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub script: Option<Vec<ScriptLine>>,
}

impl UserSpec {
    /// The stop marker.
    pub fn stop_marker(&self) -> &str {
        self.stop_marker.as_deref().unwrap_or(DEFAULT_STOP_MARKER)
    }

    /// The turn limit.
    pub fn max_turns(&self) -> u32 {
        self.max_turns.unwrap_or(10)
    }
}

/// Parses an item's `"user"` value, or says what is wrong with it.
pub(crate) fn parse(value: &Value) -> Result<UserSpec, String> {
    let spec: UserSpec = serde_json::from_value(value.clone()).map_err(|e| format!("user: {e}"))?;
    if spec.instructions.is_none() && spec.script.is_none() {
        return Err("user: give `instructions` (a simulated user) or a `script`".to_string());
    }
    if spec.max_turns.is_some_and(|n| n == 0 || n > MAX_USER_TURNS) {
        return Err(format!("user.max_turns: from 1 to {MAX_USER_TURNS}"));
    }
    if spec
        .stop_marker
        .as_deref()
        .is_some_and(|m| m.trim().is_empty())
    {
        return Err("user.stop_marker: must not be empty".to_string());
    }
    Ok(spec)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_user_spec_parses_and_refuses_unknown_or_missing_fields() {
        let spec = parse(&json!({
            "instructions": "You want a refund for order A1.",
            "script": [{"say": "refund please"}, {"when": "order", "say": "A1"}],
            "max_turns": 4
        }))
        .unwrap();
        assert_eq!((spec.max_turns(), spec.stop_marker()), (4, "###STOP###"));
        assert!(
            parse(&json!({"script": [], "goal": "x"}))
                .unwrap_err()
                .contains("unknown field `goal`")
        );
        assert!(
            parse(&json!({"persona": "terse"}))
                .unwrap_err()
                .contains("instructions")
        );
        assert!(parse(&json!({"script": [{"say": "x", "wen": "y"}]})).is_err());
        assert!(parse(&json!({"script": [], "max_turns": 0})).is_err());
        assert!(parse(&json!({"script": [], "stop_marker": " "})).is_err());
    }
}
