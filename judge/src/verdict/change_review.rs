//! A review of one change against requirements, as `tribunal review` runs
//! it: the built-in GREEN/RED owner schemas (the code_review arena's), the
//! system prompt, the first message (the requirements, the question, the
//! diff inline as `CHANGE.diff`) and the budgets. Where the diff comes from
//! (git, a file) and where the file tools are rooted is the caller's.

use super::review::Review;
use crate::arena::inline_files::with_files;
use crate::score::envelope::VerdictSchemas;
use serde_json::{Value, json};
use std::sync::Arc;
use std::time::Duration;
use tribunal_runtime::{Budget, OnBudget, SchemaError};

/// The name the diff goes under in the first message.
pub const CHANGE_FILE: &str = "CHANGE.diff";

/// The system prompt of a change review.
pub const CHANGE_REVIEW_SYSTEM: &str = "You review code changes. The first message holds the \
requirements and the change's diff (CHANGE.diff); the code base after the change is available \
through the tools list_files, read_file and grep. Read the changed code before you decide, and \
check every requirement. Answer GREEN when the change is correct and meets every requirement, \
RED otherwise. A RED verdict lists each problem with its file (relative to the code base root) \
and line in the changed code, and the requirement ids you checked.";

/// The GREEN owner schema: a summary.
pub fn green_schema() -> Value {
    json!({
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "title": "GREEN verdict fields",
        "type": "object",
        "properties": {
            "summary": {
                "type": "string",
                "minLength": 1,
                "description": "Why the change passes review, in one or two sentences."
            }
        },
        "required": ["summary"],
        "additionalProperties": false
    })
}

/// The RED owner schema: a summary, each finding at its file and line, the
/// requirement ids checked.
pub fn red_schema() -> Value {
    json!({
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "title": "RED verdict fields",
        "type": "object",
        "properties": {
            "summary": {
                "type": "string",
                "minLength": 1,
                "description": "Why the change fails review, in one or two sentences."
            },
            "findings": {
                "type": "array",
                "minItems": 1,
                "maxItems": 10,
                "description": "Each problem found, at the line where it is.",
                "items": {
                    "type": "object",
                    "properties": {
                        "file": {"type": "string", "description": "Path relative to the code base root."},
                        "line": {"type": "integer", "minimum": 1},
                        "problem": {"type": "string", "minLength": 1}
                    },
                    "required": ["file", "line", "problem"],
                    "additionalProperties": false
                }
            },
            "covered": {
                "type": "array",
                "maxItems": 10,
                "description": "The requirement ids the review checked.",
                "items": {"type": "string", "pattern": "^R[0-9]+$"}
            }
        },
        "required": ["summary", "findings", "covered"],
        "additionalProperties": false
    })
}

/// The built-in owner schemas of a change review.
pub fn change_review_schemas() -> Result<VerdictSchemas, SchemaError> {
    VerdictSchemas::new(green_schema(), red_schema())
}

/// The budgets of a change review: 12 tool calls, 8 turns, 300 s; out of
/// tool calls or turns, one tools-disabled request for the verdict.
pub fn change_review_budget() -> Budget {
    Budget {
        max_tool_calls: Some(12),
        max_turns: 8,
        deadline: Some(Duration::from_secs(300)),
        on_budget: OnBudget::Finalize,
        ..Budget::default()
    }
}

/// The first message: the requirements (each non-empty line given an id
/// `R1`, `R2`, … unless the text has its own), the question, and the diff
/// under [`CHANGE_FILE`].
pub fn change_review_prompt(requirements: &str, diff: &str) -> String {
    let requirements = numbered(requirements);
    let input = format!(
        "Review this change.\n\nRequirements:\n{requirements}\n\nIs the change correct, and does it meet every requirement? The diff is below; the code base after the change is under the tools' root."
    );
    with_files(&input, &[(CHANGE_FILE, diff)])
}

/// `text` as requirement lines: as written when any line carries an id
/// (`R1:` or `- R1:`), else each non-empty line as `- R<n>: line`.
fn numbered(text: &str) -> String {
    let has_ids = text.lines().any(|l| {
        let l = l.trim_start().trim_start_matches(['-', '*']).trim_start();
        l.strip_prefix('R').is_some_and(|rest| {
            let digits = rest.chars().take_while(char::is_ascii_digit).count();
            digits > 0 && rest[digits..].starts_with(':')
        })
    });
    if has_ids {
        return text.trim().to_string();
    }
    text.lines()
        .map(|l| l.trim().trim_start_matches(['-', '*']).trim())
        .filter(|l| !l.is_empty())
        .enumerate()
        .map(|(i, l)| format!("- R{}: {l}", i + 1))
        .collect::<Vec<_>>()
        .join("\n")
}

/// The review of `diff` against `requirements` under `schemas` (usually
/// [`change_review_schemas`]), with the system prompt and budgets of a
/// change review, a tool call required before the verdict. The caller adds
/// the tools (the file tools at the code base after the change).
pub fn change_review(schemas: Arc<VerdictSchemas>, requirements: &str, diff: &str) -> Review {
    Review::new(schemas, change_review_prompt(requirements, diff))
        .with_system(CHANGE_REVIEW_SYSTEM)
        .with_budget(change_review_budget())
        .with_tool_required_first(true)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn requirements_without_ids_are_numbered_and_ids_are_kept() {
        assert_eq!(
            numbered("keep the API\n\n* no panics\n"),
            "- R1: keep the API\n- R2: no panics"
        );
        let own = "- R1: keep the API\n- R7: no panics";
        assert_eq!(numbered(own), own);
        assert_eq!(numbered("R2: one"), "R2: one");
    }

    #[test]
    fn the_prompt_holds_the_requirements_then_the_diff() {
        let prompt = change_review_prompt("no panics", "+x\n");
        assert!(prompt.starts_with("Review this change.\n\nRequirements:\n- R1: no panics\n"));
        assert!(
            prompt.ends_with("\n\nCHANGE.diff:\n```diff\n+x\n```"),
            "{prompt}"
        );
    }
}
