//! [`ResponsesStream`]: OpenAI Responses' semantic events folded back into a
//! response body.
//!
//! The stream ends with `response.completed`, `response.incomplete` or
//! `response.failed`, each carrying the whole response object — the body
//! an unstreamed call returns — so that object is the fold's result. The
//! events before it give the deltas: `response.output_text.delta` (text)
//! and `response.function_call_arguments.delta` (a call's arguments, named
//! by the `function_call` item `response.output_item.added` announced). An
//! `error` event ends the stream with the provider's error.

use super::{Flow, StreamFold, broke_off, error_event, error_fields, event_json};
use crate::backend::BackendError;
use crate::backend::delta::Delta;
use crate::backend::kind::Provider;
use serde_json::Value;

const PROVIDER: &str = Provider::OPENAI_RESPONSES.name;

/// The events read so far of one Responses stream.
#[derive(Debug, Default)]
pub struct ResponsesStream {
    /// The function calls announced so far: (output index, name).
    calls: Vec<(u64, String)>,
    /// The response object of the terminal event.
    response: Option<Value>,
}

impl StreamFold for ResponsesStream {
    fn push(
        &mut self,
        event: &str,
        data: &str,
        deltas: &mut Vec<Delta>,
    ) -> Result<Flow, BackendError> {
        let value = event_json(PROVIDER, data)?;
        let kind = value.get("type").and_then(Value::as_str).unwrap_or(event);
        let text = |key: &str| value.get(key).and_then(Value::as_str).unwrap_or("");
        match kind {
            "response.output_text.delta" if !text("delta").is_empty() => {
                deltas.push(Delta::Text(text("delta").to_string()));
            }
            "response.output_item.added" => {
                let item = value.get("item");
                let field = |key: &str| item.and_then(|i| i.get(key)).and_then(Value::as_str);
                if field("type") == Some("function_call") {
                    let index = value.get("output_index").and_then(Value::as_u64);
                    let index = index.unwrap_or(self.calls.len() as u64);
                    self.calls
                        .push((index, field("name").unwrap_or("").to_string()));
                }
            }
            "response.function_call_arguments.delta" if !text("delta").is_empty() => {
                let output = value.get("output_index").and_then(Value::as_u64);
                let position = self
                    .calls
                    .iter()
                    .position(|(i, _)| Some(*i) == output)
                    .unwrap_or(self.calls.len().saturating_sub(1));
                let name = self
                    .calls
                    .get(position)
                    .map(|(_, n)| n.clone())
                    .unwrap_or_default();
                deltas.push(Delta::ToolArguments {
                    index: position,
                    name,
                    fragment: text("delta").to_string(),
                });
            }
            "response.completed" | "response.incomplete" | "response.failed" => {
                let Some(response) = value.get("response").filter(|r| r.is_object()) else {
                    return Err(super::super::wire::protocol(
                        PROVIDER,
                        format_args!("the `{kind}` event has no response object"),
                    ));
                };
                self.response = Some(response.clone());
                return Ok(Flow::End);
            }
            "error" => {
                // `{"type": "error", "code", "message"}`, or the error nested.
                let fields = match value.get("error").filter(|e| e.is_object()) {
                    Some(error) => error_fields(error),
                    None => {
                        let code = value.get("code").and_then(Value::as_str);
                        (code.map(str::to_string), error_fields(&value).1)
                    }
                };
                return Err(error_event(PROVIDER, fields));
            }
            _ => {}
        }
        Ok(Flow::More)
    }

    fn finish(self) -> Result<Value, BackendError> {
        self.response.ok_or_else(|| {
            broke_off(
                PROVIDER,
                "the stream ended before the response was complete",
                None,
            )
        })
    }
}
