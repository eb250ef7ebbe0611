//! The vocabulary of tool-call approval: which tools ask before they run
//! ([`ApprovalPolicy`], [`ToolPolicy`]), what an approver decides for one
//! pending call ([`Decision`]), what it is shown ([`PendingCall`]) and what
//! the run keeps of it ([`ApprovalRecord`]).
//!
//! The decisions are taken by the [`Machine`](crate::machine::Machine): it
//! holds a turn's calls at an approval point, answers `deny` tools itself,
//! checks modified arguments ([`ArgumentCheck`]) and turns each decision into
//! a run, a changed run, or a result the model reads. Who decides (a person,
//! a table, a closure) is an [`Approver`](crate::approver::Approver), asked
//! by the driver.
//!
//! | decision | the call | the model reads | record |
//! |---|---|---|---|
//! | approve | runs | its result | `approved` |
//! | modify (valid) | runs with the new arguments | a note naming them, then the result | `modified` |
//! | modify (invalid against the tool's schema) | does not run | why the change was refused | `invalid_modification` |
//! | reject | does not run | the approver's reason | `rejected` |
//! | terminate | nothing more runs | (every call gets a result) | `terminated`; the run ends with `approval_terminated` |
//! | later | waits | — | none: a pausable run pauses; otherwise the run ends with `approval_pending` |
//! | (a `deny` tool, never asked) | does not run | that the tool is not allowed | `denied` |
//!
//! A call that repeats an earlier call of the run — approved, changed or
//! refused — is answered as a repeat (pointing at the earlier result), not
//! asked again.
//!
//! Every call of a held turn counts toward `max_tool_calls` whatever its
//! decision, as a repeated call does: the budget is checked when the turn
//! arrives, before any call is held.

use crate::conversation::ToolCall;
use crate::output::SchemaTarget;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// Whether one tool's calls run at once, wait for a decision, or never run.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum ToolPolicy {
    /// Runs without asking. The default.
    #[default]
    Auto,
    /// Waits for an approver's [`Decision`].
    Ask,
    /// Never runs: rejected without asking; the model reads that the tool
    /// is not allowed.
    Deny,
}

impl ToolPolicy {
    /// The stable snake_case spelling.
    pub fn as_str(self) -> &'static str {
        match self {
            ToolPolicy::Auto => "auto",
            ToolPolicy::Ask => "ask",
            ToolPolicy::Deny => "deny",
        }
    }
}

/// The approval policy of an agent: a [`ToolPolicy`] per tool name, and one
/// for every other tool. Serialisable (an arena's `[approval]` table can be
/// read into it): `{"default": "auto", "tools": {"write_file": "ask",
/// "shell": "deny"}}`, both fields optional.
///
/// ```
/// use tribunal_runtime::{ApprovalPolicy, ToolPolicy};
/// let policy = ApprovalPolicy::new(ToolPolicy::Auto)
///     .with_tool("write_file", ToolPolicy::Ask)
///     .with_tool("shell", ToolPolicy::Deny);
/// assert_eq!(policy.policy_for("search"), ToolPolicy::Auto);
/// assert_eq!(policy.policy_for("write_file"), ToolPolicy::Ask);
/// ```
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct ApprovalPolicy {
    /// The policy of a tool not named in `tools`. Default: auto.
    #[serde(default)]
    default: ToolPolicy,
    /// Per tool name.
    #[serde(default)]
    tools: BTreeMap<String, ToolPolicy>,
}

impl ApprovalPolicy {
    /// `default` for every tool not named later.
    pub fn new(default: ToolPolicy) -> Self {
        ApprovalPolicy {
            default,
            tools: BTreeMap::new(),
        }
    }

    /// Sets the policy of the tool called `name`.
    pub fn with_tool(mut self, name: impl Into<String>, policy: ToolPolicy) -> Self {
        self.tools.insert(name.into(), policy);
        self
    }

    /// The policy of the tool called `name`.
    pub fn policy_for(&self, name: &str) -> ToolPolicy {
        self.tools.get(name).copied().unwrap_or(self.default)
    }

    /// Whether any call could wait or be refused (some policy is not auto).
    pub fn is_auto(&self) -> bool {
        self.default == ToolPolicy::Auto && self.tools.values().all(|p| *p == ToolPolicy::Auto)
    }
}

/// What an approver decides for one pending call.
///
/// Serialised with a `decision` tag: `{"decision": "approve"}`,
/// `{"decision": "modify", "arguments": {...}}`, `{"decision": "reject",
/// "reason": "..."}`, `{"decision": "terminate"}`, `{"decision": "later"}`
/// (the form a scripted decision list is written in).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "decision", rename_all = "snake_case")]
#[non_exhaustive]
pub enum Decision {
    /// Run the call as the model made it.
    Approve,
    /// Run the call with these arguments instead (in the form the model's
    /// arguments take, checked against the tool's schema again; a change
    /// that does not fit is refused and the call does not run).
    Modify {
        /// The replacement arguments.
        arguments: serde_json::Value,
    },
    /// Do not run the call; the model reads `reason` as its result.
    Reject {
        /// Why, for the model.
        reason: String,
    },
    /// End the run now with [`ErrorCode::ApprovalTerminated`](crate::ErrorCode::ApprovalTerminated).
    Terminate,
    /// Not now: a pausable run ([`Agent::start`](crate::Agent::start),
    /// [`Agent::start_stream`](crate::Agent::start_stream),
    /// [`Agent::resume`](crate::Agent::resume)) pauses into a
    /// [`RunSnapshot`](crate::snapshot::RunSnapshot); any other run ends
    /// with [`ErrorCode::ApprovalPending`](crate::ErrorCode::ApprovalPending).
    Later,
}

impl Decision {
    /// Run the call as made.
    pub fn approve() -> Self {
        Decision::Approve
    }

    /// Run the call with `arguments` instead.
    pub fn modify(arguments: serde_json::Value) -> Self {
        Decision::Modify { arguments }
    }

    /// Do not run the call; the model reads `reason`.
    pub fn reject(reason: impl Into<String>) -> Self {
        Decision::Reject {
            reason: reason.into(),
        }
    }

    /// End the run.
    pub fn terminate() -> Self {
        Decision::Terminate
    }

    /// Decide later (pause).
    pub fn later() -> Self {
        Decision::Later
    }
}

/// A tool call waiting for a decision: what an approver is shown.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct PendingCall {
    /// The call as the model made it (arguments as raw text).
    pub call: ToolCall,
    /// Its place among the calls of its turn, from 0: what
    /// [`Machine::handle_decision`](crate::machine::Machine::handle_decision) takes.
    pub index: usize,
    /// The model turn that made it, from 1.
    pub turn: u32,
}

impl PendingCall {
    /// A pending call (for approvers' tests).
    pub fn new(call: ToolCall, index: usize, turn: u32) -> Self {
        PendingCall { call, index, turn }
    }
}

/// What approval did with one call.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum ApprovalOutcome {
    /// Approved as made; it ran.
    Approved,
    /// Approved with other arguments, which fit the tool's schema; it ran
    /// with them.
    Modified,
    /// Approved with other arguments that do not fit the tool's schema: it
    /// did not run, and the model read why.
    InvalidModification,
    /// Rejected; the model read the reason.
    Rejected,
    /// A `deny` tool: rejected without asking.
    Denied,
    /// The approver ended the run here.
    Terminated,
}

impl ApprovalOutcome {
    /// The stable snake_case spelling (span attribute, reports).
    pub fn as_str(self) -> &'static str {
        match self {
            ApprovalOutcome::Approved => "approved",
            ApprovalOutcome::Modified => "modified",
            ApprovalOutcome::InvalidModification => "invalid_modification",
            ApprovalOutcome::Rejected => "rejected",
            ApprovalOutcome::Denied => "denied",
            ApprovalOutcome::Terminated => "terminated",
        }
    }
}

/// One call that went through approval (an `ask` or `deny` tool's), in the
/// order decided.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct ApprovalRecord {
    /// The model turn of the call, from 1.
    pub turn: u32,
    /// The provider's id of the call.
    pub call_id: String,
    /// The tool's name as the model wrote it.
    pub tool: String,
    /// What approval did with it.
    pub outcome: ApprovalOutcome,
    /// The approver's arguments (`modified`, `invalid_modification`), as
    /// compact JSON.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub arguments: Option<String>,
    /// The approver's reason (`rejected`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
}

/// Checks a call's arguments against its tool's schema without running it:
/// how the machine validates an approver's modified arguments. Pure (no
/// I/O); [`ToolBox`](crate::ToolBox) implements it with the checks it runs
/// before every call.
pub trait ArgumentCheck: Send + Sync {
    /// `Ok` when `call` (made by a model of `target`) would reach its tool;
    /// otherwise the text the model would read.
    fn check(&self, target: SchemaTarget, call: &ToolCall) -> Result<(), String>;
}

/// The result a `deny` tool's call gets.
pub(crate) fn denied_result(tool: &str) -> String {
    format!(
        "error: not executed: the tool {} is not allowed in this run",
        crate::text::clip(tool, crate::text::Limit::Chars(64))
    )
}

/// The result of a call the approver rejected.
pub(crate) fn rejected_result(reason: &str) -> String {
    format!("error: not executed: the call was rejected: {reason}")
}

/// The result of a call whose approved change did not fit the tool's schema.
pub(crate) fn invalid_modification_result(problem: &str) -> String {
    format!(
        "error: not executed: the approver changed the arguments, and the change was refused: {problem}"
    )
}

/// The result of every call of a turn whose approver ended the run.
pub(crate) const TERMINATED_RESULT: &str = "error: not executed: the approver ended the run";

/// What the model reads before the result of a call run with changed arguments.
pub(crate) fn modified_note(arguments: &str, result: &str) -> String {
    format!("note: the approver changed the arguments of this call to {arguments}\n{result}")
}

/// How approval has settled one call of a turn held at an approval point
/// (and, in a snapshot, its `status`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "status", rename_all = "snake_case")]
pub(crate) enum CallState {
    /// Repeats an earlier call of the run: answered without running.
    Repeat,
    /// Waits for a decision.
    Pending,
    /// Runs as made.
    Run,
    /// Runs with these arguments.
    RunWith {
        /// The approver's arguments, compact JSON.
        arguments: String,
    },
    /// Does not run; the model reads `result`.
    NotRun {
        /// The result.
        result: String,
    },
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_policy_and_decisions_read_from_their_written_form() {
        let policy: ApprovalPolicy = serde_json::from_str(
            r#"{"default": "ask", "tools": {"search": "auto", "shell": "deny"}}"#,
        )
        .unwrap();
        assert_eq!(policy.policy_for("write_file"), ToolPolicy::Ask);
        assert_eq!(policy.policy_for("search"), ToolPolicy::Auto);
        assert_eq!(policy.policy_for("shell"), ToolPolicy::Deny);
        assert!(!policy.is_auto());
        let auto: ApprovalPolicy = serde_json::from_str("{}").unwrap();
        assert!(auto.is_auto());
        let decisions: Vec<Decision> = serde_json::from_str(
            r#"[{"decision": "approve"}, {"decision": "modify", "arguments": {"path": "a"}},
                {"decision": "reject", "reason": "no"}, {"decision": "terminate"}, {"decision": "later"}]"#,
        )
        .unwrap();
        assert_eq!(
            decisions,
            [
                Decision::approve(),
                Decision::modify(serde_json::json!({"path": "a"})),
                Decision::reject("no"),
                Decision::terminate(),
                Decision::later(),
            ]
        );
        assert!(serde_json::from_str::<Decision>(r#"{"decision": "maybe"}"#).is_err());
    }
}
