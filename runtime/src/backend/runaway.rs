//! [`RunawayGuard`]: tells, while a turn streams in, that the model has run
//! away — it repeats the same passage over and over, or writes a long blank
//! stretch — so that the backend can stop reading (closing the connection
//! stops the server's decoding) instead of paying for every output token up
//! to the limit. No I/O: the backend feeds it the turn's [`Delta`]s.
//!
//! Two signs, each measured on one channel of the turn (its text, or one
//! tool call's arguments):
//!
//! - **a loop**: the channel's last [`LOOP_TAIL`] bytes already occurred
//!   [`LOOP_REPEATS`]` - 1` times before (without overlapping), within the
//!   last [`LOOP_WINDOW`] bytes — the same passage for the third time;
//! - **a blank stretch**: [`MAX_BLANK_RUN`] whitespace characters in a row.
//!
//! The thresholds come from the turns of real runs (LIVE.md, "Runaway
//! turns"): on the recorded code_review, rubric_judge and structured_output
//! cassettes of the 0.5B model they cut 57 turns that ran to the output
//! limit, about two thirds of those turns' text, and none of the turns that
//! ended on their own (a finding's text repeated twice in one answer is not
//! cut: the third time is).

use super::delta::Delta;
use crate::conversation::{ModelTurn, StopReason, Usage};

/// Bytes at the end of a channel compared with what came before.
pub(super) const LOOP_TAIL: usize = 80;
/// How many times the tail must have occurred, itself included, to be a loop.
pub(super) const LOOP_REPEATS: usize = 3;
/// How far back (bytes before the tail) earlier occurrences are looked for:
/// a loop longer than this is not seen, and each check costs at most this.
pub(super) const LOOP_WINDOW: usize = 8 * 1024;
/// Whitespace characters in a row that make a blank stretch.
pub(super) const MAX_BLANK_RUN: usize = 100;

/// Which sign of a runaway turn was seen.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum RunawayKind {
    /// The same passage for the [`LOOP_REPEATS`]th time.
    Loop,
    /// [`MAX_BLANK_RUN`] whitespace characters in a row.
    Blank,
}

/// Where and why a turn was cut.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct Cut {
    /// The sign seen.
    pub kind: RunawayKind,
    /// The channel it was seen on: `None` for the text, `Some(i)` for the
    /// arguments of the turn's `i`th tool call.
    pub channel: Option<usize>,
}

/// Watches one streaming turn (see the [module docs](self)).
#[derive(Debug, Default)]
pub(super) struct RunawayGuard {
    text: Channel,
    calls: Vec<Channel>,
    /// Text and argument deltas seen: about one output token each on the
    /// servers that stream token by token.
    deltas: u64,
    cut: Option<Cut>,
}

#[derive(Debug, Default)]
struct Channel {
    text: String,
    /// Whitespace characters at the end of `text`, and where they start.
    blank_run: usize,
    blank_start: usize,
    /// The end of what is worth keeping when the channel ran away: the
    /// first occurrence of the looping tail, or the start of the blank run.
    keep: Option<usize>,
}

impl RunawayGuard {
    /// A guard for a new turn.
    pub(super) fn new() -> Self {
        RunawayGuard::default()
    }

    /// Takes the turn's next delta. Returns the cut once the turn has run
    /// away (and from then on, without looking at more).
    pub(super) fn push(&mut self, delta: &Delta) -> Option<Cut> {
        if self.cut.is_some() {
            return self.cut;
        }
        let (channel, piece) = match delta {
            Delta::Text(text) => (None, text),
            Delta::ToolArguments {
                index, fragment, ..
            } => (Some(*index), fragment),
            // A restarted answer is a new turn, with a guard of its own.
            Delta::Restart => return None,
        };
        if piece.is_empty() {
            return None;
        }
        self.deltas += 1;
        let state = match channel {
            None => &mut self.text,
            Some(i) => {
                if self.calls.len() <= i {
                    self.calls.resize_with(i + 1, Channel::default);
                }
                &mut self.calls[i]
            }
        };
        self.cut = state.push(piece).map(|kind| Cut { kind, channel });
        self.cut
    }

    /// The turn as far as it is worth keeping, for a guard that cut it: its
    /// text up to where it ran away (through the first occurrence of the
    /// loop, or up to the blank stretch), no tool calls (a call cut in its
    /// arguments is incomplete, and an earlier one is dropped with it: the
    /// turn is repeated as a whole), stop reason [`StopReason::Runaway`].
    ///
    /// Its usage is an estimate — the stream stopped before the provider
    /// said what it counted: `input_tokens` is the caller's
    /// (`input_estimate`), `output_tokens` one per delta received.
    pub(super) fn into_turn(self, input_estimate: u64) -> ModelTurn {
        let Channel { mut text, keep, .. } = self.text;
        if let Some(keep) = keep {
            text.truncate(keep);
        }
        ModelTurn {
            text,
            tool_calls: Vec::new(),
            usage: Usage::new(input_estimate, self.deltas),
            stop: StopReason::Runaway,
            reasoning: Vec::new(),
        }
    }
}

impl Channel {
    fn push(&mut self, piece: &str) -> Option<RunawayKind> {
        for (at, c) in piece.char_indices() {
            if c.is_whitespace() {
                if self.blank_run == 0 {
                    self.blank_start = self.text.len() + at;
                }
                self.blank_run += 1;
                if self.blank_run >= MAX_BLANK_RUN {
                    self.text.push_str(&piece[..at + c.len_utf8()]);
                    self.keep = Some(self.blank_start);
                    return Some(RunawayKind::Blank);
                }
            } else {
                self.blank_run = 0;
            }
        }
        self.text.push_str(piece);
        self.keep = first_of_loop(&self.text);
        self.keep.map(|_| RunawayKind::Loop)
    }
}

/// Where the first occurrence of `text`'s looping tail ends, if the tail
/// has occurred [`LOOP_REPEATS`] times (see the [module docs](self)).
fn first_of_loop(text: &str) -> Option<usize> {
    if text.len() < LOOP_TAIL * LOOP_REPEATS {
        return None;
    }
    let mut start = text.len() - LOOP_TAIL;
    while !text.is_char_boundary(start) {
        start += 1;
    }
    let tail = &text[start..];
    let mut from = start.saturating_sub(LOOP_WINDOW);
    while !text.is_char_boundary(from) {
        from += 1;
    }
    let before = &text[from..start];
    let mut found = 0;
    let mut first = None;
    let mut at = 0;
    while let Some(i) = before[at..].find(tail) {
        let end = at + i + tail.len();
        first.get_or_insert(from + end);
        found += 1;
        if found + 1 >= LOOP_REPEATS {
            return first;
        }
        at = end;
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    fn text(s: &str) -> Delta {
        Delta::Text(s.to_string())
    }

    fn feed(guard: &mut RunawayGuard, s: &str, piece: usize) -> Option<Cut> {
        let chars: Vec<char> = s.chars().collect();
        chars
            .chunks(piece)
            .find_map(|c| guard.push(&text(&c.iter().collect::<String>())))
    }

    const PARAGRAPH: &str = "The change makes page numbers 1-based. The diff is in CHANGE.diff; \
        the code base after the change is under the tools' root. ";

    #[test]
    fn a_passage_for_the_third_time_is_a_loop_and_the_first_is_kept() {
        let mut guard = RunawayGuard::new();
        let looping = format!("GREEN\n\n{}", PARAGRAPH.repeat(6));
        let cut = feed(&mut guard, &looping, 4).expect("cut");
        assert_eq!(
            cut,
            Cut {
                kind: RunawayKind::Loop,
                channel: None
            }
        );
        let turn = guard.into_turn(700);
        assert_eq!(turn.stop, StopReason::Runaway);
        // Kept: the start and the passage once (through its first tail).
        assert!(turn.text.starts_with("GREEN\n\nThe change makes"));
        assert!(turn.text.len() < "GREEN\n\n".len() + 2 * PARAGRAPH.len());
        assert!(turn.tool_calls.is_empty());
        assert_eq!(turn.usage.input_tokens, 700);
        assert!(turn.usage.output_tokens > 0);
    }

    #[test]
    fn a_passage_twice_is_not_a_loop() {
        // A finding's text repeated in one answer (seen in a real answer).
        let problem = "no more tools can be called: your last calls repeated earlier ones, \
            whose results are above. Give your final answer now.";
        let answer = format!(
            r#"{{"findings": [{{"line": 36, "problem": "{problem}"}}, {{"line": 39, "problem": "{problem}"}}]}}"#
        );
        let mut guard = RunawayGuard::new();
        let args = |s: &str| Delta::ToolArguments {
            index: 0,
            name: "final_answer".into(),
            fragment: s.to_string(),
        };
        for piece in answer.as_bytes().chunks(3) {
            let piece = std::str::from_utf8(piece).expect("ascii");
            assert_eq!(guard.push(&args(piece)), None);
        }
    }

    #[test]
    fn a_loop_in_one_call_arguments_names_the_call() {
        let mut guard = RunawayGuard::new();
        let mut cut = None;
        for _ in 0..40 {
            cut = guard.push(&Delta::ToolArguments {
                index: 1,
                name: "final_answer".into(),
                fragment: "1372-0137200005".into(),
            });
            if cut.is_some() {
                break;
            }
        }
        assert_eq!(
            cut,
            Some(Cut {
                kind: RunawayKind::Loop,
                channel: Some(1)
            })
        );
    }

    #[test]
    fn a_blank_stretch_is_cut_where_it_starts() {
        let mut guard = RunawayGuard::new();
        let cut = feed(
            &mut guard,
            &format!("{{\"name\": \"read_file\"}}{}", "\n".repeat(300)),
            1,
        );
        assert_eq!(cut.map(|c| c.kind), Some(RunawayKind::Blank));
        assert_eq!(guard.into_turn(0).text, "{\"name\": \"read_file\"}");
    }

    #[test]
    fn ordinary_text_code_and_short_blank_runs_pass() {
        let mut guard = RunawayGuard::new();
        let code = "fn page(n: usize, size: usize) -> Result<Vec<u8>, Error> {\n    \
            if n < 1 || size < 1 {\n        return Err(Error::Invalid);\n    }\n\n\n    \
            Ok(records[(n - 1) * size..n * size].to_vec())\n}\n";
        let prose = "R1 holds: pages start at 1. R2 holds: a page holds `size` records. \
            R3 fails: a size of 0 is accepted at src/page.rs line 12.";
        for piece in [code, prose, code, prose, &" ".repeat(99)] {
            assert_eq!(feed(&mut guard, piece, 3), None);
        }
    }

    #[test]
    fn multibyte_text_never_splits_a_character() {
        let mut guard = RunawayGuard::new();
        let cut = feed(&mut guard, &"héllo wörld — ünïcode ✓ ".repeat(40), 5);
        assert_eq!(cut.map(|c| c.kind), Some(RunawayKind::Loop));
        let turn = guard.into_turn(0);
        assert!(turn.text.starts_with("héllo"));
    }

    #[test]
    fn a_cut_guard_stays_cut() {
        let mut guard = RunawayGuard::new();
        let cut = feed(&mut guard, &"\t".repeat(MAX_BLANK_RUN), 7);
        assert!(cut.is_some());
        assert_eq!(guard.push(&text("more")), cut);
    }
}
