//! The machine's approval point: a turn's calls held until each `ask` call
//! has a decision, the decisions turned into runs and results, and the
//! held run paused into a [`RunSnapshot`] and restored from one.
//!
//! ```text
//! Model(Agent, Sent) ──turn with calls, some ask/deny──▶ Approval(held) ──every call decided──▶ Tools(Due) / Model(Agent, Due)
//!                                                          │  ▲ handle_decision(i, approve | modify | reject)
//!                                                          │  └─┘
//!                                                          ├─ terminate ──▶ Done(approval_terminated)
//!                                                          ├─ later ──────▶ Done(approval_pending)   (a pausable driver snapshots first)
//!                                                          └─ deadline ───▶ Done(deadline_exceeded)
//! ```

use super::{Batch, Machine, MachineConfig, State, error};
use crate::approval::{
    ApprovalOutcome, ApprovalPolicy, ApprovalRecord, ArgumentCheck, CallState, Decision,
    PendingCall, TERMINATED_RESULT, ToolPolicy, denied_result, invalid_modification_result,
    rejected_result,
};
use crate::backend::OutputFormat;
use crate::contract::AnswerContract;
use crate::conversation::{Message, ToolCall, ToolResult, ToolSpec};
use crate::error::ErrorCode;
use crate::seen_calls::{Repeats, SeenCalls};
use crate::snapshot::{
    CallSnapshot, ConfigDigest, RunSnapshot, SnapshotError, SnapshotParts, digest_of,
};
use serde_json::json;
use std::sync::Arc;
use std::time::Instant;

/// The result every call of a turn gets when its run ends waiting for a
/// decision nobody will make.
const PENDING_RESULT: &str = "error: not executed: no decision was made on this call";

/// A machine's approval settings and what approval has done so far.
pub(super) struct Approving {
    policy: ApprovalPolicy,
    check: Arc<dyn ArgumentCheck>,
    records: Vec<ApprovalRecord>,
}

impl std::fmt::Debug for Approving {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Approving")
            .field("policy", &self.policy)
            .field("records", &self.records)
            .finish_non_exhaustive()
    }
}

/// A turn's calls held at the approval point: the batch and how approval
/// has settled each call so far.
#[derive(Debug, Clone, PartialEq)]
pub(super) struct Held {
    batch: Batch,
    states: Vec<CallState>,
}

impl Held {
    /// Whether some call still waits for a decision.
    pub(super) fn waits(&self) -> bool {
        self.states.iter().any(|s| matches!(s, CallState::Pending))
    }
}

impl Machine {
    /// Holds tool calls for approval under `policy`: an `ask` tool's calls
    /// wait for [`handle_decision`](Self::handle_decision), a `deny` tool's
    /// are refused without asking. `check` validates an approver's modified
    /// arguments against the tool's schema (usually the run's
    /// [`ToolBox`](crate::ToolBox)). Without it (the default) every call runs
    /// at once.
    pub fn with_approval(mut self, policy: ApprovalPolicy, check: Arc<dyn ArgumentCheck>) -> Self {
        self.approval = Some(Box::new(Approving {
            policy,
            check,
            records: Vec::new(),
        }));
        self
    }

    /// The next call waiting for a decision, when the machine is at an
    /// approval point ([`poll`](Self::poll) then returns `None`). Answer it
    /// with [`handle_decision`](Self::handle_decision); calls are asked in
    /// call order.
    pub fn pending_approval(&self) -> Option<PendingCall> {
        let State::Approval(held) = &self.state else {
            return None;
        };
        let index = held
            .states
            .iter()
            .position(|s| matches!(s, CallState::Pending))?;
        let call = held.batch.calls.get(index)?.clone();
        Some(PendingCall::new(call, index, self.turns))
    }

    /// Every call that went through approval so far, in the order decided.
    pub fn approvals(&self) -> &[ApprovalRecord] {
        self.approval.as_ref().map_or(&[], |a| a.records.as_slice())
    }

    /// Takes the approval records (for a finished run's report).
    pub fn take_approvals(&mut self) -> Vec<ApprovalRecord> {
        self.approval
            .as_mut()
            .map(|a| std::mem::take(&mut a.records))
            .unwrap_or_default()
    }

    /// Takes the decision for the call at `index` of the held turn, at
    /// `now`. A decision for a call that is not waiting is a driver bug: the
    /// run ends with [`ErrorCode::InternalError`]. [`Decision::Later`] ends
    /// the run with [`ErrorCode::ApprovalPending`]: a driver that can pause
    /// takes a [`snapshot`](Self::snapshot) instead of passing it on.
    pub fn handle_decision(&mut self, index: usize, decision: Decision, now: Instant) {
        let target = self.config.target();
        let turn = self.turns;
        let (State::Approval(held), Some(approving)) = (&mut self.state, self.approval.as_mut())
        else {
            if !self.is_done() {
                tracing::error!("a decision while no call waits for one");
                self.finish(error(ErrorCode::InternalError), now);
            }
            return;
        };
        let (Some(call), Some(state @ CallState::Pending)) =
            (held.batch.calls.get(index), held.states.get_mut(index))
        else {
            tracing::error!(index, "a decision for a call that does not wait for one");
            self.finish(error(ErrorCode::InternalError), now);
            return;
        };
        let record = |outcome, arguments, reason| ApprovalRecord {
            turn,
            call_id: call.id.clone(),
            tool: call.name.clone(),
            outcome,
            arguments,
            reason,
        };
        let ending = match decision {
            Decision::Approve => {
                *state = CallState::Run;
                approving
                    .records
                    .push(record(ApprovalOutcome::Approved, None, None));
                None
            }
            Decision::Modify { arguments } => {
                let arguments = arguments.to_string();
                let changed = with_arguments(call, &arguments);
                let outcome = match approving.check.check(target, &changed) {
                    Ok(()) => {
                        *state = CallState::RunWith {
                            arguments: arguments.clone(),
                        };
                        ApprovalOutcome::Modified
                    }
                    Err(problem) => {
                        *state = CallState::NotRun {
                            result: invalid_modification_result(&problem),
                        };
                        ApprovalOutcome::InvalidModification
                    }
                };
                approving
                    .records
                    .push(record(outcome, Some(arguments), None));
                None
            }
            Decision::Reject { reason } => {
                *state = CallState::NotRun {
                    result: rejected_result(&reason),
                };
                approving
                    .records
                    .push(record(ApprovalOutcome::Rejected, None, Some(reason)));
                None
            }
            Decision::Terminate => {
                approving
                    .records
                    .push(record(ApprovalOutcome::Terminated, None, None));
                Some((ErrorCode::ApprovalTerminated, TERMINATED_RESULT))
            }
            Decision::Later => Some((ErrorCode::ApprovalPending, PENDING_RESULT)),
        };
        if let Some((code, content)) = ending {
            // Every call gets a result, so the conversation stays well-formed.
            let results = held
                .batch
                .calls
                .iter()
                .map(|c| ToolResult {
                    id: c.id.clone(),
                    content: content.to_string(),
                    is_error: true,
                })
                .collect();
            self.conversation_mut()
                .messages
                .push(Message::ToolResults { results });
            self.finish(error(code), now);
            return;
        }
        if self.past_deadline(now) {
            self.finish(error(ErrorCode::DeadlineExceeded), now);
        }
    }

    /// The held turn when some call of `batch` is not `auto` under the
    /// approval policy; `deny` calls are settled (and recorded) at once.
    pub(super) fn hold_for_approval(&mut self, batch: &Batch) -> Option<Held> {
        let turn = self.turns;
        let approving = self.approval.as_mut()?;
        let policies: Vec<ToolPolicy> = batch
            .calls
            .iter()
            .map(|c| approving.policy.policy_for(&c.name))
            .collect();
        // A call the budget refused is settled already: never asked.
        let refused = |i: usize| {
            batch
                .settled
                .as_ref()
                .and_then(|s| s.get(i))
                .filter(|s| matches!(s, CallState::NotRun { .. }))
                .cloned()
        };
        let held = (0..batch.calls.len()).any(|i| {
            !batch.repeated.of(i) && refused(i).is_none() && policies[i] != ToolPolicy::Auto
        });
        if !held {
            return None;
        }
        let mut states = Vec::with_capacity(batch.calls.len());
        for (i, call) in batch.calls.iter().enumerate() {
            if let Some(state) = refused(i) {
                states.push(state);
                continue;
            }
            let state = match policies[i] {
                _ if batch.repeated.of(i) => CallState::Repeat,
                ToolPolicy::Ask => CallState::Pending,
                ToolPolicy::Deny => {
                    approving.records.push(ApprovalRecord {
                        turn,
                        call_id: call.id.clone(),
                        tool: call.name.clone(),
                        outcome: ApprovalOutcome::Denied,
                        arguments: None,
                        reason: None,
                    });
                    CallState::NotRun {
                        result: denied_result(&call.name),
                    }
                }
                _ => CallState::Run,
            };
            states.push(state);
        }
        Some(Held {
            batch: batch.clone(),
            states,
        })
    }

    /// Every call of the held turn is decided: run the approved ones (with
    /// their new arguments), answer the rest.
    pub(super) fn release(&mut self, held: Held, now: Instant) {
        let Held { batch, states } = held;
        let fresh: Arc<[ToolCall]> = batch
            .calls
            .iter()
            .zip(&states)
            .filter_map(|(call, state)| match state {
                CallState::Run => Some(call.clone()),
                CallState::RunWith { arguments } => Some(with_arguments(call, arguments)),
                CallState::Repeat | CallState::Pending | CallState::NotRun { .. } => None,
            })
            .collect();
        let batch = Batch {
            fresh,
            settled: Some(states.into()),
            ..batch
        };
        if batch.fresh.is_empty() {
            self.on_tools(&batch, Vec::new(), now);
        } else {
            self.state = State::Tools(batch, super::Step::Due);
        }
    }

    /// The digest of what this machine's run depends on (see
    /// [`ConfigDigest`]): a snapshot resumes only on a machine with the same.
    pub fn config_digest(&self) -> ConfigDigest {
        let tools = serde_json::to_value(&*self.tools).unwrap_or_default();
        let output = match &self.output {
            OutputFormat::JsonSchema { name, schema } => json!({"name": name, "schema": schema}),
            OutputFormat::Text => json!(null),
        };
        let answer = json!({"format": output, "plan": self.config.plan});
        let settings = json!({
            "budget": self.config.budget,
            "answer_policy": self.config.answer,
            "max_output_tokens": self.config.max_output_tokens,
            "require_tool_first": self.config.require_tool_first,
        });
        ConfigDigest {
            tools: digest_of(&tools),
            answer: digest_of(&answer),
            settings: digest_of(&settings),
        }
    }

    /// The run, paused at `now`, when it is at an approval point (`None`
    /// otherwise). The machine is left as it was: drop it, or go on.
    pub fn snapshot(&self, now: Instant) -> Option<RunSnapshot> {
        let State::Approval(held) = &self.state else {
            return None;
        };
        let calls = held
            .batch
            .calls
            .iter()
            .zip(&held.states)
            .map(|(call, state)| CallSnapshot {
                id: call.id.clone(),
                tool: call.name.clone(),
                state: state.clone(),
            })
            .collect();
        Some(RunSnapshot::from_parts(SnapshotParts {
            config: self.config_digest(),
            conversation: (*self.conversation).clone(),
            calls,
            turns: self.turns,
            usage: self.usage,
            tool_calls_counted: self.tool_calls_executed,
            tool_calls: self.tool_records.clone(),
            approvals: self.approvals().to_vec(),
            seen_calls: self.seen_calls.places(),
            elapsed: self.carried + now.saturating_duration_since(self.started),
            deadline_left: self.deadline.map(|d| d.saturating_duration_since(now)),
        }))
    }

    /// A machine that continues `snapshot` at `now`, with the agent's
    /// `config`, `contract` and `tools` (checked against the snapshot's
    /// [`ConfigDigest`]) and approval settings. The deadline gets the time
    /// it had left at the pause.
    pub fn resume(
        config: MachineConfig,
        contract: Arc<dyn AnswerContract>,
        tools: impl Into<Arc<[ToolSpec]>>,
        snapshot: RunSnapshot,
        approval: (ApprovalPolicy, Arc<dyn ArgumentCheck>),
        now: Instant,
    ) -> Result<Self, SnapshotError> {
        let form = super::AnswerForm::of(&config.answer);
        Self::resume_as(
            config,
            contract,
            tools.into(),
            snapshot,
            approval,
            (now, form),
        )
    }

    /// [`Machine::resume`] with the tools as a shared slice (a conversation's
    /// final-answer run).
    pub(crate) fn resume_any(
        config: MachineConfig,
        contract: Arc<dyn AnswerContract>,
        tools: Arc<[ToolSpec]>,
        snapshot: RunSnapshot,
        approval: (ApprovalPolicy, Arc<dyn ArgumentCheck>),
        now: Instant,
    ) -> Result<Self, SnapshotError> {
        Self::resume(config, contract, tools, snapshot, approval, now)
    }

    /// [`Machine::resume`] for a conversation's reply turn (made by
    /// `Machine::reply_or_back`): its answer is the reply text, and no
    /// tool call is required first.
    pub(crate) fn resume_reply(
        config: MachineConfig,
        contract: Arc<dyn AnswerContract>,
        tools: Arc<[ToolSpec]>,
        snapshot: RunSnapshot,
        approval: (ApprovalPolicy, Arc<dyn ArgumentCheck>),
        now: Instant,
    ) -> Result<Self, SnapshotError> {
        let config = MachineConfig {
            require_tool_first: false,
            ..config
        };
        let form = super::AnswerForm::REPLY;
        Self::resume_as(config, contract, tools, snapshot, approval, (now, form))
    }

    fn resume_as(
        config: MachineConfig,
        contract: Arc<dyn AnswerContract>,
        tools: Arc<[ToolSpec]>,
        snapshot: RunSnapshot,
        approval: (ApprovalPolicy, Arc<dyn ArgumentCheck>),
        (now, form): (Instant, super::AnswerForm),
    ) -> Result<Self, SnapshotError> {
        snapshot.check()?;
        let expected = snapshot.config_digest().clone();
        let states: Vec<CallState> = snapshot.calls.iter().map(|c| c.state.clone()).collect();
        let parts = (
            snapshot.turns,
            snapshot.usage,
            snapshot.tool_calls_counted,
            snapshot.tool_calls.clone(),
            snapshot.approvals.clone(),
            snapshot.seen_calls.clone(),
            snapshot.elapsed(),
            snapshot.deadline_left(),
        );
        let (turns, usage, counted, tool_records, records, seen, elapsed, deadline_left) = parts;
        let conversation = snapshot.into_conversation();
        let machine = Machine::assemble(config, contract, tools, conversation, now, false, form)
            .map_err(|_| SnapshotError::Mismatch { part: "answer" })?;
        let (policy, check) = approval;
        let mut machine = machine.with_approval(policy, Arc::clone(&check));
        if let Some(part) = machine.config_digest().first_difference(&expected) {
            return Err(SnapshotError::Mismatch { part });
        }
        let calls: Arc<[ToolCall]> = match machine.conversation.messages.last() {
            Some(Message::Assistant { tool_calls, .. }) => tool_calls.as_slice().into(),
            _ => return Err(SnapshotError::invalid("no turn waits")),
        };
        // A change decided before the pause is checked again: the snapshot
        // may have been edited, or written by another build.
        for (call, state) in calls.iter().zip(&states) {
            if let CallState::RunWith { arguments } = state {
                check
                    .check(machine.config.target(), &with_arguments(call, arguments))
                    .map_err(|_| {
                        SnapshotError::invalid(
                            "a call's approved arguments do not fit its tool's schema",
                        )
                    })?;
            }
        }
        let flags: Vec<bool> = states
            .iter()
            .map(|s| matches!(s, CallState::Repeat))
            .collect();
        let repeated = Repeats::from_flags(flags);
        machine.seen_calls = SeenCalls::from_places(&seen);
        machine.turns = turns;
        machine.usage = usage;
        machine.tool_calls_executed = counted;
        machine.tool_records = tool_records;
        if let Some(approving) = machine.approval.as_mut() {
            approving.records = records;
        }
        machine.carried = elapsed;
        machine.deadline = match (machine.config.budget.deadline, deadline_left) {
            (Some(_), Some(left)) => Some(now + left),
            (Some(full), None) => Some(now + full),
            (None, _) => None,
        };
        let batch = Batch {
            fresh: Arc::clone(&calls),
            calls,
            repeated,
            settled: None,
            from_text: false,
        };
        machine.state = State::Approval(Held { batch, states });
        Ok(machine)
    }
}

/// `call` with `arguments` in place of its own: a call as changed by its
/// approver.
fn with_arguments(call: &ToolCall, arguments: &str) -> ToolCall {
    ToolCall {
        arguments: arguments.to_string(),
        ..call.clone()
    }
}
