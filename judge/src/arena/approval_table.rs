//! `[approval]` of `arena.toml`: which tool calls wait for a decision and
//! the decisions a run gets — scripted, what a person would decide — so an
//! arena measures what an agent does with a refusal, and how often it asks
//! for a tool it may not use.
//!
//! ```toml
//! [approval]
//! default = "auto"                   # tools not named: auto | ask | deny
//! tools = { search = "ask", write_file = "deny" }
//! # The `ask` calls' decisions, in order over the run; then `fallback`.
//! decisions = [{ decision = "approve" }, { decision = "reject", reason = "Not that query." }]
//! fallback = { decision = "approve" } # default: none (the run ends approval_pending)
//! ```

use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use tribunal_runtime::ScriptedApprover;
use tribunal_runtime::internal::approval::{ApprovalPolicy, Decision, ToolPolicy};

/// The `[approval]` table, read.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ApprovalTable {
    /// The policy of a tool not named in `tools`.
    #[serde(default)]
    pub default: ToolPolicy,
    /// Per tool name.
    #[serde(default)]
    pub tools: BTreeMap<String, ToolPolicy>,
    /// The decisions the run's `ask` calls get, in order.
    #[serde(default)]
    pub decisions: Vec<Decision>,
    /// The decision once `decisions` are used up; `None`: none comes (a
    /// run cannot wait, so it ends `approval_pending`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub fallback: Option<Decision>,
}

impl ApprovalTable {
    /// The policy the runs are held to.
    pub fn policy(&self) -> ApprovalPolicy {
        self.tools
            .iter()
            .fold(ApprovalPolicy::new(self.default), |p, (tool, policy)| {
                p.with_tool(tool.clone(), *policy)
            })
    }

    /// A fresh approver for one run (each run gets the whole list).
    pub fn approver(&self) -> ScriptedApprover {
        let approver = ScriptedApprover::new(self.decisions.iter().cloned());
        match &self.fallback {
            Some(fallback) => approver.with_fallback(fallback.clone()),
            None => approver,
        }
    }

    /// What is wrong with the table for an arena offering `offered`: a
    /// named tool it does not offer.
    pub(crate) fn problems(&self, offered: &[String]) -> Vec<String> {
        self.tools
            .keys()
            .filter(|tool| !offered.contains(tool))
            .map(|tool| {
                format!(
                    "[approval] tools: {tool:?} is not a tool of the arena (offered: {})",
                    offered.join(", ")
                )
            })
            .collect()
    }
}

/// Reads `[approval]` for an arena offering `offered`: the table as
/// written, each problem in `problems`.
pub(super) fn read(
    table: Option<&ApprovalTable>,
    offered: &[String],
    problems: &mut Vec<crate::problem::Problem>,
) -> Option<ApprovalTable> {
    for message in table.iter().flat_map(|a| a.problems(offered)) {
        problems.push(crate::problem::Problem::file(super::ARENA_TOML, message));
    }
    table.cloned()
}
