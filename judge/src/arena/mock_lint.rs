//! Lint of the mock scripts against what a run does with them: the answer
//! an item's script ends with must pass the item's answer contract (the
//! arena's schema, the item's own, or a verdict arena's envelope), each
//! scripted tool call's arguments its tool's parameter schema, and the
//! answer a `rubric` check's judge script ends with the judge's verdict
//! envelope. Without this, such an item shows only as a FAIL at run time.
//!
//! Lint only (`tribunal lint`, `lint --mock`): a run of such a script still
//! runs, and shows what the runtime makes of it — for a final answer that
//! breaks its contract, the same cause (`run/mock_cause.rs`), not the
//! script running out on the repair. A final turn that scripts
//! a stop reason of its own (`length`, `refusal`, …) is left alone: it
//! plays a failure on purpose.

use super::json_position::{Part, position};
use super::{Arena, DATASET};
use crate::problem::Problem;
use crate::score::checks::Check;
use crate::score::envelope::{FIELDS_KEY, RESULT_KEY};
use serde_json::Value;
use tribunal_runtime::internal::answer::evaluate_answer;
use tribunal_runtime::internal::approval::ArgumentCheck;
use tribunal_runtime::internal::backend::{SchemaTarget, ScriptTurn};
use tribunal_runtime::internal::conversation::StopReason;
use tribunal_runtime::internal::text::one_line;
use tribunal_runtime::{AnswerContract, AnswerPolicy, ToolBox};

/// Every problem of the arena's mock scripts, at its place in the dataset.
pub(crate) fn problems(arena: &Arena) -> Vec<Problem> {
    let Ok(text) = std::fs::read_to_string(arena.dir.join(DATASET)) else {
        // Read when the arena loaded; gone since: nothing to lint.
        return Vec::new();
    };
    let lines: Vec<&str> = text.lines().collect();
    let mut out = Vec::new();
    for item in &arena.items {
        let Some(line) = lines.get(item.line.saturating_sub(1)) else {
            continue;
        };
        let mut script = Script {
            line: item.line,
            text: line,
            out: &mut out,
        };
        let turns: Option<Vec<ScriptTurn>> = serde_json::from_str::<Value>(line)
            .ok()
            .and_then(|v| v.get("mock").cloned())
            .and_then(|m| serde_json::from_value(m).ok());
        if let Some(turns) = turns {
            let contract: &dyn AnswerContract = match &arena.verdict {
                Some(verdict) => verdict.schemas.as_ref(),
                None => item.schema.as_ref(),
            };
            // A conversation's agent turns end in text replies, not answers.
            if item.user.is_none() {
                script.final_answer(&turns, "/mock", "mock", contract, &arena.answer);
            }
            let item_tools = arena
                .verdict
                .as_ref()
                .and_then(|v| v.toolbox_for(&arena.dir, &item.id));
            let tools = item_tools.as_deref().unwrap_or(&arena.toolbox);
            script.tool_calls(&turns, tools);
        }
        for (i, check) in item.checks.iter().enumerate() {
            let Check::Rubric {
                mock: Some(turns), ..
            } = &check.check
            else {
                continue;
            };
            let Some(judge) = crate::score::rubric::rubric_schemas() else {
                continue;
            };
            script.final_answer(
                turns,
                &format!("/checks/{i}/mock"),
                &format!("checks[{i}]: rubric: mock"),
                judge.as_ref(),
                &AnswerPolicy::default(),
            );
        }
    }
    out
}

/// One item's line, where its script problems go.
struct Script<'a> {
    line: usize,
    text: &'a str,
    out: &'a mut Vec<Problem>,
}

impl Script<'_> {
    /// The problem `message` at the first of `pointers` found on the line
    /// (else at the line).
    fn push(&mut self, pointers: &[String], message: String) {
        let column = pointers
            .iter()
            .find_map(|p| position(self.text, p, Part::Value));
        self.out.push(match column {
            Some((_, c)) => Problem::at_column(DATASET, (self.line, c), message),
            None => Problem::at(DATASET, self.line, message),
        });
    }

    /// The answer `turns` (at `base` on the line, named `label`) end with,
    /// checked as the run checks it: one problem per mistake.
    fn final_answer(
        &mut self,
        turns: &[ScriptTurn],
        base: &str,
        label: &str,
        contract: &dyn AnswerContract,
        policy: &AnswerPolicy,
    ) {
        let Some((k, turn)) = turns
            .iter()
            .enumerate()
            .rfind(|(_, t)| t.tool_calls.is_empty())
        else {
            return;
        };
        if turn.stop.is_some_and(|s| s != StopReason::EndTurn) {
            return;
        }
        let model_turn = turn.to_model_turn(k);
        let Err(rejection) = evaluate_answer(
            contract,
            SchemaTarget::Plain,
            &model_turn.text,
            model_turn.stop,
            policy,
        ) else {
            return;
        };
        let field = if turn.json.is_some() { "json" } else { "text" };
        let answer = format!("{base}/{k}/{field}");
        let what = format!("{label}[{k}]: the final answer");
        if rejection.issues.is_empty() {
            let message = format!(
                "{what} is refused: {}: {}",
                rejection.code.as_str(),
                one_line(&rejection.summary, 200)
            );
            self.push(&[answer, format!("{base}/{k}")], message);
            return;
        }
        for issue in &rejection.issues {
            let path = if issue.path.is_empty() {
                "(root)"
            } else {
                &issue.path
            };
            let message = format!(
                "{what} breaks the schema: {path}: {}",
                one_line(&issue.message, 200)
            );
            // The issue's place in the answer: its path, or (a verdict's
            // owner fields) that path inside the envelope.
            let pointers = [
                format!("{answer}{}", issue.path),
                format!("{answer}/{RESULT_KEY}/{FIELDS_KEY}{}", issue.path),
                answer.clone(),
            ];
            self.push(&pointers, message);
        }
    }

    /// Each scripted call of a tool in `tools`, its arguments checked as the
    /// run checks them before the tool runs. (A tool not in `tools`, as an
    /// MCP server's, is not known until the server starts.)
    fn tool_calls(&mut self, turns: &[ScriptTurn], tools: &ToolBox) {
        for (t, turn) in turns.iter().enumerate() {
            let calls = turn.to_model_turn(t).tool_calls;
            for (c, call) in calls.iter().enumerate() {
                if !tools.tools().any(|tool| tool.name() == call.name) {
                    continue;
                }
                let Err(error) = tools.check(SchemaTarget::Plain, call) else {
                    continue;
                };
                let why = error
                    .trim_start_matches("error: ")
                    .replace(":\n- ", ": ")
                    .replace("\n- ", "; ");
                self.push(
                    &[format!("/mock/{t}/tool_calls/{c}/arguments")],
                    format!("mock[{t}]: tool_calls[{c}]: {}", one_line(&why, 300)),
                );
            }
        }
    }
}
