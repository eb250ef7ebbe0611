//! Telling a tool call that repeats an earlier call of the run from a fresh one.

use crate::conversation::{Conversation, Message, ToolCall};
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
/// once. A call is kept as its place in the run's conversation (which only
/// grows), not as a copy: a run in flight is memory.
#[derive(Debug, Default)]
pub(crate) struct SeenCalls {
    calls: Vec<Seen>,
}

/// Which calls of one turn repeat an earlier call of the run. Usually none
/// does, and then it holds nothing: no flags are allocated for the turn.
#[derive(Debug, Clone, Default, PartialEq)]
pub(crate) struct Repeats(Option<Arc<[bool]>>);

impl Repeats {
    /// The repeats of a turn whose call at `i` repeats when `flags[i]`.
    pub(crate) fn from_flags(flags: Vec<bool>) -> Self {
        match flags.iter().any(|f| *f) {
            true => Repeats(Some(flags.into())),
            false => Repeats(None),
        }
    }

    /// Whether any call of the turn repeats an earlier one.
    pub(crate) fn any(&self) -> bool {
        self.0.is_some()
    }

    /// Whether the turn's call at `index` repeats an earlier one.
    pub(crate) fn of(&self, index: usize) -> bool {
        self.0
            .as_ref()
            .is_some_and(|flags| flags.get(index).copied().unwrap_or(false))
    }
}

/// Where a tool call is in a conversation: the index of its assistant
/// message, and its index among that message's calls.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct CallAt {
    message: usize,
    call: usize,
}

impl CallAt {
    fn in_conversation(self, conversation: &Conversation) -> Option<&ToolCall> {
        match conversation.messages.get(self.message) {
            Some(Message::Assistant { tool_calls, .. }) => tool_calls.get(self.call),
            _ => None,
        }
    }
}

#[derive(Debug)]
struct Seen {
    at: CallAt,
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

/// Whether the (trimmed) argument texts `a` and `b` of two calls of one
/// tool are the same arguments: equal as text, or equal as JSON (object
/// keys in any order), each parsed at most once through its cache.
fn same_arguments(a: &str, a_parsed: &mut Arguments, b: &str, b_parsed: &mut Arguments) -> bool {
    if a == b {
        return true;
    }
    // serde_json's maps compare without regard to key order.
    matches!((a_parsed.json(a), b_parsed.json(b)), (Some(x), Some(y)) if x == y)
}

/// For each call of one turn, the earlier call of the same turn it is the
/// same as (the same tool, [`same_arguments`]), if any: the twin that runs
/// for both. `None` (nothing allocated) when no call of the turn has a twin.
pub(crate) fn twins(calls: &[ToolCall]) -> Option<Vec<Option<usize>>> {
    let mut out: Option<Vec<Option<usize>>> = None;
    // Each call's arguments, parsed when first compared as JSON (allocated
    // only then: most turns compare texts or names only).
    let mut parsed: Vec<Arguments> = Vec::new();
    for (i, call) in calls.iter().enumerate() {
        let text = call.arguments.trim();
        let first = (0..i).find(|&j| {
            let earlier = &calls[j];
            if out.as_ref().is_some_and(|t| t[j].is_some()) || earlier.name != call.name {
                return false;
            }
            let earlier_text = earlier.arguments.trim();
            if earlier_text == text {
                return true;
            }
            if parsed.is_empty() {
                parsed.resize_with(calls.len(), || Arguments::Unparsed);
            }
            let (before, from_i) = parsed.split_at_mut(i);
            same_arguments(text, &mut from_i[0], earlier_text, &mut before[j])
        });
        if let Some(j) = first {
            out.get_or_insert_with(|| vec![None; calls.len()])[i] = Some(j);
        }
    }
    out
}

impl SeenCalls {
    /// The places of the calls recorded, as `[message, call]` pairs (a
    /// snapshot's `seen_calls`).
    pub(crate) fn places(&self) -> Vec<[usize; 2]> {
        self.calls
            .iter()
            .map(|s| [s.at.message, s.at.call])
            .collect()
    }

    /// The record of calls at `places` (of the conversation they were taken
    /// from; a place that holds no call is never a repeat).
    pub(crate) fn from_places(places: &[[usize; 2]]) -> Self {
        SeenCalls {
            calls: places
                .iter()
                .map(|[message, call]| Seen {
                    at: CallAt {
                        message: *message,
                        call: *call,
                    },
                    arguments: Arguments::Unparsed,
                })
                .collect(),
        }
    }

    /// Records the tool calls of the assistant message at `message` in
    /// `conversation`, in order, and returns which of them repeat a call
    /// recorded before (an earlier turn's, or an earlier one of this turn).
    /// No repeats for a message that is not an assistant turn. Every turn
    /// recorded must be of the same conversation.
    pub(crate) fn record_turn(&mut self, conversation: &Conversation, message: usize) -> Repeats {
        let calls = match conversation.messages.get(message) {
            Some(Message::Assistant { tool_calls, .. }) => tool_calls.len(),
            _ => 0,
        };
        self.reserve(calls);
        let mut flags: Option<Vec<bool>> = None;
        for call in 0..calls {
            if self.is_repeat(conversation, CallAt { message, call }) {
                flags.get_or_insert_with(|| vec![false; calls])[call] = true;
            }
        }
        Repeats(flags.map(Arc::from))
    }

    /// Makes room for a batch of `calls` more calls: exactly, for the first
    /// batch (most runs make few calls, and a run in flight is memory),
    /// then growing as a vector does.
    fn reserve(&mut self, calls: usize) {
        if self.calls.capacity() == 0 {
            self.calls.reserve_exact(calls);
        } else {
            self.calls.reserve(calls);
        }
    }

    /// Records the call at `at` in `conversation` and returns whether it
    /// repeats a call recorded before (a repeat is not recorded again). The
    /// calls recorded before must be in the same conversation.
    fn is_repeat(&mut self, conversation: &Conversation, at: CallAt) -> bool {
        let Some(call) = at.in_conversation(conversation) else {
            return false;
        };
        let text = call.arguments.trim();
        let mut arguments = Arguments::Unparsed;
        for seen in &mut self.calls {
            let Some(earlier) = seen.at.in_conversation(conversation) else {
                continue;
            };
            if earlier.name != call.name {
                continue;
            }
            let earlier_text = earlier.arguments.trim();
            if same_arguments(text, &mut arguments, earlier_text, &mut seen.arguments) {
                return true;
            }
        }
        self.calls.push(Seen { at, arguments });
        false
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn twins_are_the_same_calls_of_one_turn_each_pointing_at_the_first() {
        let calls = [
            call("search", r#"{"query": "a", "k": 3}"#),
            call("search", r#"{"k": 3, "query": "a"}"#),
            call("search", r#"{"query": "b"}"#),
            call("read", r#"{"query": "a", "k": 3}"#),
            call("search", "{\n  \"query\": \"a\",\n  \"k\": 3\n}"),
        ];
        assert_eq!(
            twins(&calls),
            Some(vec![None, Some(0), None, None, Some(0)])
        );
        assert_eq!(twins(&calls[2..4]), None);
    }

    fn call(name: &str, arguments: &str) -> ToolCall {
        ToolCall {
            id: "c".into(),
            name: name.into(),
            arguments: arguments.into(),
        }
    }

    /// A conversation that grows by assistant turns, and the record of its calls.
    struct Run {
        conversation: Conversation,
        seen: SeenCalls,
    }

    impl Run {
        fn new() -> Run {
            Run {
                conversation: Conversation::new(None, "go"),
                seen: SeenCalls::default(),
            }
        }

        /// Adds a turn with `calls`; returns whether each repeats an earlier call.
        fn turn(&mut self, calls: &[(&str, &str)]) -> Vec<bool> {
            let message = self.conversation.messages.len();
            self.conversation.messages.push(Message::Assistant {
                text: String::new(),
                tool_calls: calls.iter().map(|(n, a)| call(n, a)).collect(),
                reasoning: Vec::new(),
            });
            let repeats = self.seen.record_turn(&self.conversation, message);
            (0..calls.len()).map(|i| repeats.of(i)).collect()
        }
    }

    /// Whether each call of `calls`, in order and one turn, repeats an earlier one.
    fn repeats(calls: &[(&str, &str)]) -> Vec<bool> {
        Run::new().turn(calls)
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
    fn one_call_turns_grow_the_record_as_a_vector_does() {
        let mut run = Run::new();
        let mut growths = 0;
        for i in 0..64 {
            let before = run.seen.calls.capacity();
            assert_eq!(run.turn(&[("s", &format!("{{\"q\":{i}}}"))]), [false]);
            growths += usize::from(run.seen.calls.capacity() != before);
        }
        assert_eq!(run.seen.calls.len(), 64);
        // Exactly one call's room for the first turn, then doubling: not a
        // reallocation per turn.
        assert!(growths <= 8, "{growths} reallocations for 64 turns");
    }

    #[test]
    fn a_repeat_is_found_across_turns_and_against_every_earlier_call() {
        let mut run = Run::new();
        assert_eq!(
            run.turn(&[("s", r#"{"q":"a"}"#), ("s", r#"{"q":"b"}"#)]),
            [false, false]
        );
        assert_eq!(
            run.turn(&[("s", r#"{ "q" : "b" }"#), ("s", r#"{"q":"c"}"#)]),
            [true, false]
        );
        assert_eq!(
            run.turn(&[("s", r#"{"q":"c"}"#)]),
            [true],
            "a call is recorded once seen"
        );
        assert_eq!(run.seen.calls.len(), 3, "repeats are not recorded again");
    }

    #[test]
    fn a_place_that_holds_no_call_is_neither_a_repeat_nor_recorded() {
        let mut run = Run::new();
        run.turn(&[("s", "{}")]);
        // The user message, and a call index past the turn's calls.
        for at in [
            CallAt {
                message: 0,
                call: 0,
            },
            CallAt {
                message: 1,
                call: 1,
            },
        ] {
            assert!(!run.seen.is_repeat(&run.conversation, at));
        }
        assert_eq!(run.seen.calls.len(), 1);
    }
}
