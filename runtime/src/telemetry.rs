//! The spans a run makes, named and attributed after the OpenTelemetry
//! GenAI semantic conventions, as plain [`tracing`] spans: free when no
//! subscriber listens, exported as OpenTelemetry spans by the
//! `otel` layer (feature `otel`).
//!
//! | span | name | attributes |
//! |---|---|---|
//! | one run | `invoke_agent` | `gen_ai.operation.name`, `gen_ai.provider.name`, `gen_ai.request.model`, `gen_ai.usage.input_tokens` / `output_tokens` (the run's totals), `error.type` (the [`ErrorCode`]) on failure, `tribunal.turns`, `tribunal.repair_used` |
//! | one model request | `chat {model}` (client) | `gen_ai.operation.name`, `gen_ai.provider.name`, `gen_ai.request.model`, `gen_ai.request.max_tokens`, `gen_ai.response.finish_reasons`, `gen_ai.usage.input_tokens` / `output_tokens`, `error.type` (the backend failure's kind, e.g. `http`, or `deadline_exceeded`), `tribunal.turn`, `tribunal.request.purpose` |
//! | one tool call | `execute_tool {name}` | `gen_ai.operation.name`, `gen_ai.tool.name`, `gen_ai.tool.call.id`, `gen_ai.tool.type`, `error.type` = `tool_error` when the result is an error |
//! | one call's approval (an `ask` call: the wait for its decision; a `deny` call: an instant) | `approve_tool {name}` | `gen_ai.operation.name` = `approve_tool` (ours: the conventions have none), `gen_ai.tool.name`, `gen_ai.tool.call.id`, `tribunal.approval.outcome` (`approved`, `modified`, `invalid_modification`, `rejected`, `denied`, `terminated`, or `paused`), `error.type` = `approval_rejected` when the call did not run, `deadline_exceeded` when the deadline passed while it waited |
//!
//! **Never** the prompt, the answer, tool arguments or results, an
//! approver's arguments or reason, or a key:
//! only names, counts, codes and ids. (The conventions' opt-in content
//! attributes, `gen_ai.input.messages` and the like, are not recorded.)
//! The judge adds one `arena_item` span per run of an arena item.
//!
//! [`ErrorCode`]: crate::ErrorCode

use crate::approval::{ApprovalOutcome, ApprovalRecord};
use crate::conversation::{StopReason, ToolCall, Usage};
use crate::report::RequestPurpose;
use crate::report::RunReport;
use tracing::Span;
use tracing::field::Empty;

/// The `gen_ai.provider.name` of a backend name: `openai` for both OpenAI
/// APIs (and compatible servers, which speak them), `anthropic`, else the
/// backend's own name (`mock`, a custom backend's).
pub(crate) fn provider_name(backend: &str) -> &str {
    crate::backend::BackendKind::ALL
        .into_iter()
        .find(|k| k.as_str() == backend)
        .map_or(backend, |k| k.provider().otel_name)
}

/// The `invoke_agent` span of one run.
pub(crate) fn agent_span(backend: &str, model: &str) -> Span {
    tracing::info_span!(
        "invoke_agent",
        otel.name = "invoke_agent",
        otel.kind = "internal",
        otel.status_code = Empty,
        gen_ai.operation.name = "invoke_agent",
        gen_ai.provider.name = provider_name(backend),
        gen_ai.request.model = model,
        gen_ai.usage.input_tokens = Empty,
        gen_ai.usage.output_tokens = Empty,
        error.type = Empty,
        tribunal.turns = Empty,
        tribunal.repair_used = Empty,
    )
}

/// Records the outcome of a run on its `invoke_agent` span.
pub(crate) fn record_run(span: &Span, report: &RunReport) {
    record_usage(span, &report.usage);
    span.record("tribunal.turns", report.turns);
    span.record("tribunal.repair_used", report.repair_used);
    match report.outcome.error_code() {
        Some(code) => {
            span.record("error.type", code.as_str());
            span.record("otel.status_code", "error");
        }
        None => {
            span.record("otel.status_code", "ok");
        }
    }
}

/// The `chat {model}` span of model request number `turn`.
pub(crate) fn chat_span(
    backend: &str,
    model: &str,
    turn: u32,
    purpose: Option<RequestPurpose>,
    max_tokens: Option<u32>,
) -> Span {
    tracing::info_span!(
        "chat",
        otel.name = format!("chat {model}"),
        otel.kind = "client",
        otel.status_code = Empty,
        gen_ai.operation.name = "chat",
        gen_ai.provider.name = provider_name(backend),
        gen_ai.request.model = model,
        gen_ai.request.max_tokens = max_tokens,
        gen_ai.response.finish_reasons = Empty,
        gen_ai.usage.input_tokens = Empty,
        gen_ai.usage.output_tokens = Empty,
        error.type = Empty,
        tribunal.turn = turn,
        tribunal.request.purpose = purpose.map(purpose_name),
    )
}

/// Records a model answer on its `chat` span.
pub(crate) fn record_turn(span: &Span, usage: &Usage, stop: StopReason) {
    record_usage(span, usage);
    span.record("gen_ai.response.finish_reasons", finish_reason(stop));
}

/// Records a failed model call on its `chat` span: `kind` is the
/// [`BackendErrorKind`]'s name, or `deadline_exceeded` when the run's
/// deadline cut the call.
///
/// [`BackendErrorKind`]: crate::backend::BackendErrorKind
pub(crate) fn record_failure(span: &Span, kind: &str) {
    span.record("error.type", kind);
    span.record("otel.status_code", "error");
}

/// The `execute_tool {name}` span of one tool call.
pub(crate) fn tool_span(call: &ToolCall) -> Span {
    tracing::info_span!(
        "execute_tool",
        otel.name = format!("execute_tool {}", call.name),
        otel.kind = "internal",
        otel.status_code = Empty,
        gen_ai.operation.name = "execute_tool",
        gen_ai.tool.name = call.name.as_str(),
        gen_ai.tool.call.id = call.id.as_str(),
        gen_ai.tool.type = "function",
        error.type = Empty,
    )
}

/// Records a tool call's result (whether it was an error) on its span.
pub(crate) fn record_tool_result(span: &Span, is_error: bool) {
    if is_error {
        span.record("error.type", "tool_error");
        span.record("otel.status_code", "error");
    }
}

/// The `approve_tool {name}` span of one call waiting for a decision.
pub(crate) fn approval_span(call: &ToolCall) -> Span {
    approval_span_of(&call.name, &call.id)
}

fn approval_span_of(name: &str, id: &str) -> Span {
    tracing::info_span!(
        "approve_tool",
        otel.name = format!("approve_tool {name}"),
        otel.kind = "internal",
        otel.status_code = Empty,
        gen_ai.operation.name = "approve_tool",
        gen_ai.tool.name = name,
        gen_ai.tool.call.id = id,
        tribunal.approval.outcome = Empty,
        error.type = Empty,
    )
}

/// Records what approval did with a call on its span.
pub(crate) fn record_approval(span: &Span, outcome: ApprovalOutcome) {
    span.record("tribunal.approval.outcome", outcome.as_str());
    match outcome {
        ApprovalOutcome::Approved | ApprovalOutcome::Modified => {
            span.record("otel.status_code", "ok");
        }
        _ => {
            span.record("error.type", "approval_rejected");
            span.record("otel.status_code", "error");
        }
    }
}

/// Records on a call's approval span that the run paused there.
pub(crate) fn record_paused(span: &Span) {
    span.record("tribunal.approval.outcome", "paused");
}

/// The span of a `deny` call, refused without asking: made and closed at once.
pub(crate) fn denied_span(record: &ApprovalRecord) {
    let span = approval_span_of(&record.tool, &record.call_id);
    record_approval(&span, record.outcome);
}

fn record_usage(span: &Span, usage: &Usage) {
    span.record("gen_ai.usage.input_tokens", usage.input_tokens);
    span.record("gen_ai.usage.output_tokens", usage.output_tokens);
}

/// The conventions' finish reason of a stop reason.
fn finish_reason(stop: StopReason) -> &'static str {
    match stop {
        StopReason::EndTurn => "stop",
        StopReason::ToolUse => "tool_calls",
        // Cut by us for the same reason the limit cuts: it ran on.
        StopReason::Length | StopReason::Runaway => "length",
        StopReason::Refusal => "content_filter",
    }
}

fn purpose_name(purpose: RequestPurpose) -> &'static str {
    match purpose {
        RequestPurpose::Agent => "agent",
        RequestPurpose::Finalize(_) => "finalize",
        RequestPurpose::Repair => "repair",
    }
}
