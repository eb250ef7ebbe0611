//! [`CappedLines`]: builds a tool output line by line up to a byte cap, then
//! counts what it had to leave out so the truncation marker can say so.

use tribunal_runtime::internal::text::{Limit, clip_marked};

/// Default cap on one file tool output, in bytes (16 KiB).
pub const DEFAULT_MAX_OUTPUT_BYTES: usize = 16 * 1024;

/// Lines collected up to a byte cap.
#[derive(Debug)]
pub(crate) struct CappedLines {
    buf: String,
    max: usize,
    shown: usize,
    omitted: usize,
}

impl CappedLines {
    /// An empty output capped at `max` bytes (the marker comes on top).
    pub(crate) fn new(max: usize) -> Self {
        CappedLines {
            buf: String::new(),
            max,
            shown: 0,
            omitted: 0,
        }
    }

    /// Appends a line if it fits. A first line longer than the cap is cut
    /// on a character boundary so that the output is never empty.
    pub(crate) fn push(&mut self, line: &str) {
        if self.omitted > 0 {
            self.omitted += 1;
            return;
        }
        let sep = usize::from(!self.buf.is_empty());
        if self.buf.len() + sep + line.len() <= self.max {
            if sep == 1 {
                self.buf.push('\n');
            }
            self.buf.push_str(line);
            self.shown += 1;
        } else if self.shown == 0 {
            self.buf
                .push_str(&clip_marked(line, Limit::Bytes(self.max), "…"));
            self.shown += 1;
            // The rest of this line counts as left out.
            self.omitted += 1;
        } else {
            self.omitted += 1;
        }
    }

    /// Number of lines shown in full or in part.
    pub(crate) fn shown(&self) -> usize {
        self.shown
    }

    /// Whether anything was left out.
    pub(crate) fn is_truncated(&self) -> bool {
        self.omitted > 0
    }

    /// Finishes the output; when something was left out, appends the line
    /// `[truncated: <what>]` where `what` is built from the number of lines
    /// left out (including a partly shown first line).
    pub(crate) fn finish(mut self, what: impl FnOnce(usize) -> String) -> String {
        if self.omitted > 0 {
            if !self.buf.is_empty() {
                self.buf.push('\n');
            }
            self.buf.push_str(&format!(
                "[truncated: {}; output is capped at {} bytes]",
                what(self.omitted),
                self.max
            ));
        }
        self.buf
    }
}

/// Cuts a single line to at most `max` characters, marking the cut.
pub(crate) fn shorten_line(line: &str, max: usize) -> String {
    let marker = format!("… [line cut at {max} characters]");
    clip_marked(line, Limit::Chars(max), &marker).into_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn under_the_cap_nothing_is_marked() {
        let mut c = CappedLines::new(100);
        c.push("a");
        c.push("b");
        assert!(!c.is_truncated());
        assert_eq!(c.finish(|n| format!("{n}")), "a\nb");
    }

    #[test]
    fn over_the_cap_lines_are_counted_and_marked() {
        let mut c = CappedLines::new(7);
        for l in ["aaa", "bbb", "ccc", "ddd"] {
            c.push(l);
        }
        assert_eq!(c.shown(), 2);
        assert_eq!(
            c.finish(|n| format!("{n} more lines")),
            "aaa\nbbb\n[truncated: 2 more lines; output is capped at 7 bytes]"
        );
    }

    #[test]
    fn a_huge_first_line_is_cut_on_a_char_boundary() {
        let mut c = CappedLines::new(5);
        c.push("ééééé");
        c.push("x");
        let out = c.finish(|n| format!("{n} lines"));
        assert!(out.starts_with("éé…\n[truncated: 2 lines;"), "{out}");
    }

    #[test]
    fn shorten() {
        assert_eq!(shorten_line("abc", 3), "abc");
        assert_eq!(shorten_line("abcd", 3), "abc… [line cut at 3 characters]");
    }
}
