//! One run up close, for a person at a terminal (`tribunal show RESULTS
//! ITEM`): the outcome, the conversation when its transcript was kept (the
//! system prompt, each message, each tool call with its result clipped),
//! the answer, and each check with why it held or not.

use crate::rows::results::{ResultRow, error_text};
use crate::rows::transcript::Transcript;
use std::fmt::Write as _;
use tribunal_runtime::internal::conversation::Message;
use tribunal_runtime::internal::text::{Limit, clip_marked};

/// The longest message or tool result shown, in characters.
pub const SHOWN_CHARS: usize = 600;

/// `text` clipped to [`SHOWN_CHARS`], each line indented by `indent`.
fn block(text: &str, indent: &str) -> String {
    let clipped = clip_marked(text.trim_end(), Limit::Chars(SHOWN_CHARS), " … [clipped]");
    clipped.lines().map(|l| format!("{indent}{l}\n")).collect()
}

/// The run of `row` as text: its transcript's conversation when given,
/// else the tool calls the row keeps (and how to keep the conversation).
pub fn show_run(row: &ResultRow, transcript: Option<&Transcript>) -> String {
    let mut out = String::new();
    let _ = writeln!(
        out,
        "{} #{} · {} · {} {} · {} turn(s) · {:.0} ms",
        row.id,
        row.repeat,
        row.outcome.as_str(),
        row.backend,
        row.model,
        row.turns,
        row.wall_ms
    );
    if let Some(code) = row.error_code {
        let _ = writeln!(
            out,
            "error: {}",
            error_text(
                Some(code),
                row.backend_failure.as_ref(),
                row.error_detail.as_deref()
            )
        );
    }
    match transcript {
        Some(t) => conversation(&mut out, t),
        None => {
            if !row.tool_calls.is_empty() {
                let _ = writeln!(out, "\ntool calls:");
                for call in &row.tool_calls {
                    let ok = if call.ok { "ok" } else { "failed" };
                    let _ = writeln!(out, "  {}({}) {ok}", call.name, call.arguments);
                }
            }
            let _ = writeln!(
                out,
                "\n(the conversation was not kept: run with --transcripts DIR, then show with --transcripts DIR)"
            );
        }
    }
    let _ = writeln!(out, "\nanswer:");
    match &row.answer {
        Some(answer) => {
            let text = match answer {
                serde_json::Value::String(s) => s.clone(),
                other => serde_json::to_string_pretty(other).unwrap_or_default(),
            };
            out.push_str(&block(&text, "  "));
        }
        None => out.push_str("  (none)\n"),
    }
    if row.checks.is_empty() {
        let _ = writeln!(out, "\nchecks: skipped (no answer)");
    } else {
        let _ = writeln!(out, "\nchecks:");
        for c in &row.checks {
            let mark = if c.ok { "PASS" } else { "FAIL" };
            let _ = writeln!(out, "  {mark} {}: {}", c.kind, c.detail);
        }
    }
    out
}

/// The system prompt and every message of `t`'s conversation.
fn conversation(out: &mut String, t: &Transcript) {
    if let Some(system) = &t.conversation.system {
        let _ = writeln!(out, "\nsystem:");
        out.push_str(&block(system, "  "));
    }
    for message in &t.conversation.messages {
        match message {
            Message::User { text } => {
                let _ = writeln!(out, "\nuser:");
                out.push_str(&block(text, "  "));
            }
            Message::Assistant {
                text, tool_calls, ..
            } => {
                let _ = writeln!(out, "\nassistant:");
                if !text.trim().is_empty() {
                    out.push_str(&block(text, "  "));
                }
                for call in tool_calls {
                    let _ = writeln!(out, "  → {}({})", call.name, call.arguments);
                }
            }
            Message::ToolResults { results } => {
                for r in results {
                    let failed = if r.is_error { " (failed)" } else { "" };
                    let _ = writeln!(out, "\ntool result{failed}:");
                    out.push_str(&block(&r.content, "  "));
                }
            }
        }
    }
}
