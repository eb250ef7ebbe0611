//! Client-side budgets of a run. None of these is ever sent to a provider.

use crate::cost::CostLimit;
use serde::{Deserialize, Serialize};
use std::time::Duration;

/// What happens when a budget (tool calls, turns) is hit.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum OnBudget {
    /// End the run with the budget's error code. The default.
    #[default]
    Fail,
    /// Ask the model once, tools disabled, for its final answer (inside the
    /// deadline and the token budget).
    Finalize,
}

/// What happens when every tool call of a turn repeats an earlier call of
/// the run (same tool, equal arguments): the model is going round in a loop.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum OnRepeat {
    /// Stop offering tools and ask once, tools disabled, for the final answer
    /// from the results so far (inside the deadline and the token budget; not
    /// the repair). The report says the run was finalized after
    /// [`ErrorCode::ToolCallsRepeated`](crate::ErrorCode::ToolCallsRepeated).
    /// The default: measured on llama.cpp, a model that repeats a call once
    /// repeats it until the tool-call budget is spent (LIVE.md).
    #[default]
    Finalize,
    /// Answer each repeat with a notice pointing at the earlier result and go
    /// on offering tools (the repeats still count toward `max_tool_calls`).
    Notice,
}

/// What happens when a turn's tool calls ran and brought nothing new:
/// every result holds only lines earlier results of the run already showed
/// (the same passages under another query). The verbatim repeat's cousin
/// ([`OnRepeat`]): the model is going round, paying a turn each time.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum OnNothingNew {
    /// Go on offering tools. The default, as before the setting existed.
    #[default]
    Continue,
    /// Stop offering tools and ask once, tools disabled, for the final answer
    /// (as [`OnRepeat::Finalize`]); the report says the run was finalized
    /// after [`ErrorCode::NothingNew`](crate::ErrorCode::NothingNew). A turn
    /// with a failed call is not counted: an error is news.
    Finalize,
}

/// The limits of one run.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Budget {
    /// Cumulative input + output tokens over all turns (repair included).
    /// Default: unlimited.
    pub max_tokens: Option<u64>,
    /// What the run may spend over all turns (repair included), at the
    /// model's prices. Default: unlimited.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_cost: Option<CostLimit>,
    /// Tool calls executed over the run. Default: unlimited.
    pub max_tool_calls: Option<u32>,
    /// Wall-clock time for the whole run. Default: 5 minutes.
    pub deadline: Option<Duration>,
    /// Model turns (the repair and a finalize turn are extra). Default: 16.
    pub max_turns: u32,
    /// What to do when `max_tool_calls` or `max_turns` is hit. Default: fail.
    pub on_budget: OnBudget,
    /// What to do when every call of a turn repeats an earlier call of the
    /// run. Default: finalize.
    #[serde(default)]
    pub on_repeat: OnRepeat,
    /// What to do when a turn's calls ran and their results held nothing
    /// earlier results had not shown. Default: continue.
    #[serde(default, skip_serializing_if = "is_continue")]
    pub on_nothing_new: OnNothingNew,
    /// Turns in a row without progress — text that is neither a tool call
    /// nor an answer, on a turn that required a tool call — after which the
    /// run ends with `no_progress` instead of waiting for its deadline.
    /// Default: 3 (the first turn and two nudges).
    #[serde(default = "default_max_idle_turns")]
    pub max_idle_turns: u32,
    /// What to do when `max_idle_turns` is reached. Default: fail, with
    /// `no_progress`: a run that never called a tool gave no answer worth
    /// grading. `finalize` asks once, tools disabled, for an answer anyway
    /// (the report says it was finalized after `no_progress`; checks that
    /// require a tool call still fail it).
    #[serde(default, skip_serializing_if = "is_fail")]
    pub on_idle: OnBudget,
}

/// `on_idle` at its default: left out of a serialized budget, so budgets
/// written before it existed read and hash as they did.
fn is_fail(policy: &OnBudget) -> bool {
    *policy == OnBudget::Fail
}

/// `on_nothing_new` at its default: left out of a serialized budget, so
/// budgets written before it existed read and hash as they did.
fn is_continue(policy: &OnNothingNew) -> bool {
    *policy == OnNothingNew::Continue
}

fn default_max_idle_turns() -> u32 {
    3
}

impl Default for Budget {
    fn default() -> Self {
        Budget {
            max_tokens: None,
            max_cost: None,
            max_tool_calls: None,
            deadline: Some(Duration::from_secs(300)),
            max_turns: 16,
            on_budget: OnBudget::Fail,
            on_repeat: OnRepeat::Finalize,
            on_nothing_new: OnNothingNew::Continue,
            max_idle_turns: default_max_idle_turns(),
            on_idle: OnBudget::Fail,
        }
    }
}
