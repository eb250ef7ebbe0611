//! `[user]` in arena.toml: the route of the simulated user of the
//! conversation items — its own provider and model (`--user-backend` /
//! `--user-model` lay over them), its budget — like `[judge]` is the rubric
//! judge's.
//!
//! ```toml
//! [user]
//! backend = "openai-chat"   # default: the run's --backend
//! model = "qwen"            # default: the run's --model (the agent's)
//! max_tokens = 6000         # the simulator's tokens per conversation; default: unlimited
//! max_output_tokens = 256   # per message; default: 512
//! ```

use super::ARENA_TOML;
use crate::problem::Problem;
use serde::{Deserialize, Serialize};
use tribunal_runtime::internal::backend::BackendKind;

/// The simulated user's route and budget (`[user]`). With neither
/// `backend` nor `model` set, the user rides the agent's backend.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct UserSettings {
    /// The simulator's provider; `--user-backend` wins. Default: the run's.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub backend: Option<BackendKind>,
    /// The simulator's model; `--user-model` wins. Default: the agent's.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub model: Option<String>,
    /// The simulator's tokens (input plus output) per conversation; once
    /// spent the conversation ends `user_budget_spent`. Default: unlimited.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_tokens: Option<u64>,
    /// Output tokens per user message. Default: 512.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_output_tokens: Option<u32>,
}

impl UserSettings {
    /// Whether the user has a route of its own (a provider or a model).
    pub(crate) fn has_own_route(&self) -> bool {
        self.backend.is_some() || self.model.is_some()
    }
}

/// `[user]` as written, the provider still a name.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct UserToml {
    backend: Option<String>,
    model: Option<String>,
    max_tokens: Option<u64>,
    max_output_tokens: Option<u32>,
}

/// Reads `[user]`: its settings (none set when absent), each problem in
/// `problems`.
pub(super) fn read(table: Option<UserToml>, problems: &mut Vec<Problem>) -> UserSettings {
    let table = table.unwrap_or_default();
    let backend = table
        .backend
        .and_then(|name| match name.parse::<BackendKind>() {
            Ok(kind) => Some(kind),
            Err(_) => {
                let known = BackendKind::ALL.map(BackendKind::as_str).join(", ");
                problems.push(Problem::file(
                    ARENA_TOML,
                    format!("user: unknown backend {name:?} (known: {known})"),
                ));
                None
            }
        });
    if table.max_tokens == Some(0) || table.max_output_tokens == Some(0) {
        problems.push(Problem::file(
            ARENA_TOML,
            "user: max_tokens and max_output_tokens must be above 0",
        ));
    }
    UserSettings {
        backend,
        model: table.model,
        max_tokens: table.max_tokens,
        max_output_tokens: table.max_output_tokens,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read_str(text: &str) -> (UserSettings, Vec<String>) {
        let table: UserToml = toml::from_str(text).unwrap();
        let mut problems = Vec::new();
        let settings = read(Some(table), &mut problems);
        (settings, problems.into_iter().map(|p| p.message).collect())
    }

    #[test]
    fn the_user_table_reads_its_route_and_budget_and_says_what_is_wrong() {
        let (settings, problems) =
            read_str("backend = \"openai-chat\"\nmodel = \"qwen\"\nmax_tokens = 6000");
        assert!(problems.is_empty());
        assert_eq!(settings.backend, Some(BackendKind::OpenAiChat));
        assert_eq!(settings.max_tokens, Some(6000));
        assert!(settings.has_own_route());
        let (settings, problems) = read_str("backend = \"nope\"\nmax_tokens = 0");
        assert!(!settings.has_own_route());
        assert!(
            problems[0].contains("unknown backend \"nope\""),
            "{problems:?}"
        );
        assert!(problems[1].contains("above 0"), "{problems:?}");
        assert!(toml::from_str::<UserToml>("goal = 1").is_err());
    }
}
