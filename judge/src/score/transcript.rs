//! A conversation as the rubric judge reads it: each user message, the
//! agent's tool calls in reply (name, arguments, whether they succeeded)
//! and its reply, in order — what a `rubric` check of a conversation item
//! grades (see [`crate::score::rubric`]'s transcript prompt). The tools'
//! results are left out: the judge grades what the agent did and told the
//! user; the state checks read what it left.

use tribunal_runtime::DialogueReport;

/// The longest argument text shown for one call, in bytes (cut on a
/// character boundary, marked `…`).
const MAX_ARGUMENTS: usize = 600;

/// `talk` as lines of text: `USER: …`, `(the agent used the tool name
/// with a = 1, b = x; it worked | it failed)`, `AGENT: …`; an agent turn
/// that ended without a reply reads `AGENT: (no reply: {code})`.
pub(crate) fn transcript(talk: &DialogueReport) -> String {
    let mut out = String::new();
    for (i, exchange) in talk.exchanges.iter().enumerate() {
        out.push_str(&format!("USER: {}\n", exchange.user));
        let Some(turn) = talk.agent_turns.get(i) else {
            continue;
        };
        for call in &turn.tool_calls {
            let status = if call.ok { "it worked" } else { "it failed" };
            out.push_str(&format!(
                "(the agent used the tool {} with {}; {status})\n",
                call.name,
                cut(&in_words(&call.arguments))
            ));
        }
        match (&exchange.agent, turn.outcome.error_code()) {
            (Some(reply), _) => out.push_str(&format!("AGENT: {reply}\n")),
            (None, Some(code)) => out.push_str(&format!("AGENT: (no reply: {code})\n")),
            (None, None) => out.push_str("AGENT: (no reply)\n"),
        }
    }
    out.truncate(out.trim_end().len());
    out
}

/// A call's arguments as `name = value` pairs (a string value without
/// its quotes), not JSON: a small judge shown a call as JSON writes tool
/// calls of its own instead of its verdict (LIVE.md). Arguments that are
/// not a JSON object are shown as written.
fn in_words(arguments: &str) -> String {
    let Ok(serde_json::Value::Object(map)) = serde_json::from_str(arguments) else {
        return arguments.to_string();
    };
    if map.is_empty() {
        return "no arguments".to_string();
    }
    map.iter()
        .map(|(name, value)| match value {
            serde_json::Value::String(s) => format!("{name} = {s}"),
            other => format!("{name} = {other}"),
        })
        .collect::<Vec<_>>()
        .join(", ")
}

/// `text` cut to [`MAX_ARGUMENTS`] bytes.
fn cut(text: &str) -> String {
    if text.len() <= MAX_ARGUMENTS {
        return text.to_string();
    }
    let mut end = MAX_ARGUMENTS;
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    format!("{}…", &text[..end])
}

#[cfg(test)]
mod tests {
    use super::*;
    use tribunal_runtime::Exchange;
    use tribunal_runtime::ToolCallRecord;
    use tribunal_runtime::{DialogueEnd, ErrorCode, RunReport};

    fn turn(reply: Option<&str>, calls: &[(&str, &str, bool)]) -> RunReport {
        let mut report = match reply {
            Some(text) => RunReport::answered(serde_json::Value::from(text)),
            None => RunReport::failed(ErrorCode::MaxToolCallsExceeded),
        };
        report.tool_calls = calls
            .iter()
            .map(|(name, arguments, ok)| ToolCallRecord {
                name: name.to_string(),
                arguments: arguments.to_string(),
                ok: *ok,
                duration_ms: 1.0,
                repeated: false,
                from_text: false,
            })
            .collect();
        report
    }

    #[test]
    fn a_conversation_reads_turn_by_turn_with_its_calls() {
        let talk = DialogueReport {
            end: DialogueEnd::UserStopped,
            exchanges: vec![
                Exchange {
                    user: "Refund A1.".into(),
                    agent: Some("Your email?".into()),
                },
                Exchange {
                    user: "ana@example.com".into(),
                    agent: None,
                },
            ],
            agent_turns: vec![
                turn(Some("Your email?"), &[]),
                turn(
                    None,
                    &[(
                        "get_record",
                        &format!("{{\"id\": \"{}\"}}", "x".repeat(700)),
                        false,
                    )],
                ),
            ],
            final_answer: None,
            agent_usage: Default::default(),
            user_usage: Default::default(),
            wall_ms: 0.0,
        };
        let text = transcript(&talk);
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(lines[0], "USER: Refund A1.");
        assert_eq!(lines[1], "AGENT: Your email?");
        assert_eq!(lines[2], "USER: ana@example.com");
        assert!(lines[3].starts_with("(the agent used the tool get_record with id = xxx"));
        assert!(lines[3].ends_with("…; it failed)"), "{}", lines[3]);
        assert_eq!(lines[4], "AGENT: (no reply: max_tool_calls_exceeded)");
    }
}
