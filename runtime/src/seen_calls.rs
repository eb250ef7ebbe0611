//! Telling a tool call that repeats an earlier call of the run from a fresh one.

use crate::conversation::ToolCall;
use crate::json::{ParseLimits, parse_strict};
use serde_json::Value;
use std::sync::Arc;

/// The tool calls a run has made so far.
///
/// Two calls are the same when they name the same tool and their arguments
/// are equal JSON (object keys in any order, arrays in order), or, when the
/// arguments are not JSON, equal text once trimmed.
///
/// Nothing is parsed or copied for a call whose tool was not called before,
/// nor for one whose text equals an earlier call's: arguments are parsed only
/// to compare two calls of one tool whose texts differ, and each call at most
/// once. A call is kept as a share of its batch, not as a copy.
#[derive(Debug, Default)]
pub(crate) struct SeenCalls {
    calls: Vec<Seen>,
}

#[derive(Debug)]
struct Seen {
    batch: Arc<[ToolCall]>,
    index: usize,
    arguments: Arguments,
}

/// A call's arguments, parsed when first compared.
#[derive(Debug)]
enum Arguments {
    Unparsed,
    Json(Value),
    /// Not JSON (or past the parse limits): compared as text only.
    Text,
}

impl Arguments {
    fn parse(text: &str) -> Arguments {
        match parse_strict(text, &ParseLimits::default()) {
            Ok(value) => Arguments::Json(value),
            Err(_) => Arguments::Text,
        }
    }

    /// The parsed arguments of `text`, parsing them now if needed.
    fn json(&mut self, text: &str) -> Option<&Value> {
        if matches!(self, Arguments::Unparsed) {
            *self = Arguments::parse(text);
        }
        match self {
            Arguments::Json(value) => Some(value),
            _ => None,
        }
    }
}

impl SeenCalls {
    /// Makes room for a batch of `calls` more calls: exactly, for the first
    /// batch (most runs make few calls, and a run in flight is memory),
    /// then growing as a vector does.
    pub(crate) fn reserve(&mut self, calls: usize) {
        if self.calls.capacity() == 0 {
            self.calls.reserve_exact(calls);
        } else {
            self.calls.reserve(calls);
        }
    }

    /// Records `batch[index]` and returns whether it repeats a call recorded
    /// before (a repeat is not recorded again).
    pub(crate) fn is_repeat(&mut self, batch: &Arc<[ToolCall]>, index: usize) -> bool {
        let Some(call) = batch.get(index) else {
            return false;
        };
        let text = call.arguments.trim();
        let mut arguments = Arguments::Unparsed;
        for seen in &mut self.calls {
            let Some(earlier) = seen.batch.get(seen.index) else {
                continue;
            };
            if earlier.name != call.name {
                continue;
            }
            let earlier_text = earlier.arguments.trim();
            if earlier_text == text {
                return true;
            }
            // serde_json's maps compare without regard to key order.
            if let (Some(a), Some(b)) = (arguments.json(text), seen.arguments.json(earlier_text)) {
                if a == b {
                    return true;
                }
            }
        }
        self.calls.push(Seen {
            batch: batch.clone(),
            index,
            arguments,
        });
        false
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn call(name: &str, arguments: &str) -> ToolCall {
        ToolCall {
            id: "c".into(),
            name: name.into(),
            arguments: arguments.into(),
        }
    }

    /// Whether each call of `calls`, in order and one batch, repeats an earlier one.
    fn repeats(calls: &[(&str, &str)]) -> Vec<bool> {
        let batch: Arc<[ToolCall]> = calls.iter().map(|(n, a)| call(n, a)).collect();
        let mut seen = SeenCalls::default();
        (0..batch.len())
            .map(|i| seen.is_repeat(&batch, i))
            .collect()
    }

    #[test]
    fn equal_json_is_a_repeat_whatever_the_spelling_and_key_order() {
        assert_eq!(
            repeats(&[
                (
                    "search",
                    r#"{"q": "a", "k": 3, "o": {"x": 1, "y": [1, 2]}}"#
                ),
                ("search", r#" {"o":{"y":[1,2],"x":1},"k":3,"q":"a"} "#),
            ]),
            [false, true]
        );
    }

    #[test]
    fn other_values_other_tools_and_array_order_are_fresh() {
        assert_eq!(
            repeats(&[
                ("search", r#"{"q": "a"}"#),
                ("search", r#"{"q": "b"}"#),
                ("read", r#"{"q": "a"}"#),
                ("search", r#"{"q": ["a", "b"]}"#),
                ("search", r#"{"q": ["b", "a"]}"#),
                ("search", r#"{"q": "a", "k": 1}"#),
                // 1 and 1.0 are different JSON numbers, as they were when
                // calls were compared as canonical text.
                ("search", r#"{"q": "a", "k": 1.0}"#),
            ]),
            [false, false, false, false, false, false, false]
        );
    }

    #[test]
    fn arguments_that_are_not_json_compare_as_trimmed_text() {
        assert_eq!(
            repeats(&[
                ("shell", "ls -la"),
                ("shell", "  ls -la\n"),
                ("shell", "ls  -la"),
                ("shell", "{\"q\": "),
                ("shell", "{\"q\": \n"),
            ]),
            [false, true, false, false, true]
        );
    }

    #[test]
    fn one_call_batches_grow_the_record_as_a_vector_does() {
        let mut seen = SeenCalls::default();
        let mut growths = 0;
        for i in 0..64 {
            let batch: Arc<[ToolCall]> = Arc::new([call("s", &format!("{{\"q\":{i}}}"))]);
            let before = seen.calls.capacity();
            seen.reserve(batch.len());
            assert!(!seen.is_repeat(&batch, 0));
            growths += usize::from(seen.calls.capacity() != before);
        }
        assert_eq!(seen.calls.len(), 64);
        // Exactly one call's room for the first batch, then doubling: not a
        // reallocation per batch.
        assert!(growths <= 8, "{growths} reallocations for 64 batches");
    }

    #[test]
    fn a_repeat_is_found_across_batches_and_against_every_earlier_call() {
        let mut seen = SeenCalls::default();
        let first: Arc<[ToolCall]> =
            Arc::new([call("s", r#"{"q":"a"}"#), call("s", r#"{"q":"b"}"#)]);
        let second: Arc<[ToolCall]> =
            Arc::new([call("s", r#"{ "q" : "b" }"#), call("s", r#"{"q":"c"}"#)]);
        assert!(!seen.is_repeat(&first, 0));
        assert!(!seen.is_repeat(&first, 1));
        assert!(seen.is_repeat(&second, 0));
        assert!(!seen.is_repeat(&second, 1));
        assert!(seen.is_repeat(&second, 1), "a call is recorded once seen");
        assert_eq!(seen.calls.len(), 3, "repeats are not recorded again");
    }
}
