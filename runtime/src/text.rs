//! Clipping text to a length in characters or bytes (never inside a
//! character), with or without a marker, and putting text on one line.

use std::borrow::Cow;

/// How much of a text [`clip`] keeps.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Limit {
    /// At most this many characters (Unicode scalar values).
    Chars(usize),
    /// At most this many bytes of UTF-8, cut back to a character boundary.
    Bytes(usize),
}

/// The longest prefix of `s` within `limit`, ending on a character
/// boundary: `s` itself when it fits.
pub fn clip(s: &str, limit: Limit) -> &str {
    let end = match limit {
        Limit::Chars(max) => s.char_indices().nth(max).map_or(s.len(), |(i, _)| i),
        Limit::Bytes(max) if max >= s.len() => s.len(),
        Limit::Bytes(max) => (0..=max)
            .rev()
            .find(|&i| s.is_char_boundary(i))
            .unwrap_or(0),
    };
    &s[..end]
}

/// [`clip`] with `marker` appended when something was cut (the marker
/// comes on top of the limit); `s` unchanged when it fits.
pub fn clip_marked<'a>(s: &'a str, limit: Limit, marker: &str) -> Cow<'a, str> {
    let kept = clip(s, limit);
    if kept.len() == s.len() {
        Cow::Borrowed(s)
    } else {
        Cow::Owned(format!("{kept}{marker}"))
    }
}

/// `s` on one line — every line break (`\n`, `\r`) becomes a space — cut
/// to `max` characters, without a marker.
pub fn one_line(s: &str, max: usize) -> String {
    clip(s, Limit::Chars(max))
        .chars()
        .map(|c| if c == '\n' || c == '\r' { ' ' } else { c })
        .collect()
}

/// The non-blank lines of `s`, each trimmed, joined by single spaces.
pub fn join_lines(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    push_joined_lines(&mut out, s);
    out
}

/// Appends [`join_lines`]`(s)` to `out`, without a string of its own.
pub fn push_joined_lines(out: &mut String, s: &str) {
    let mut first = true;
    for line in s.split(['\r', '\n']).map(str::trim) {
        if line.is_empty() {
            continue;
        }
        if !first {
            out.push(' ');
        }
        out.push_str(line);
        first = false;
    }
}

/// Whether `text` is a plain identifier, as a provider's error type must be
/// to be stored (`rate_limit_error`): 1 to 64 of `[A-Za-z0-9_.-]`.
pub fn is_identifier(text: &str) -> bool {
    !text.is_empty()
        && text.len() <= 64
        && text
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'.' | b'-'))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn exact_limits_in_chars_and_bytes() {
        for limit in [Limit::Chars, Limit::Bytes] {
            assert_eq!(clip("abcd", limit(3)), "abc", "n+1");
            assert_eq!(clip("abc", limit(3)), "abc", "n");
            assert_eq!(clip("ab", limit(3)), "ab", "n-1");
            assert_eq!(clip("abc", limit(0)), "", "zero");
        }
    }

    #[test]
    fn chars_count_characters_not_bytes() {
        // "é" is 2 bytes, "日" 3, "🦀" 4.
        let s = "é日🦀x";
        assert_eq!(clip(s, Limit::Chars(2)), "é日");
        assert_eq!(clip(s, Limit::Chars(3)), "é日🦀");
        assert_eq!(clip(s, Limit::Chars(4)), s);
        assert_eq!(clip(s, Limit::Chars(5)), s);
    }

    #[test]
    fn bytes_never_split_a_character() {
        // "日" is bytes 0..3, "🦀" bytes 3..7.
        let s = "日🦀";
        assert_eq!(clip(s, Limit::Bytes(2)), "");
        assert_eq!(clip(s, Limit::Bytes(3)), "日");
        assert_eq!(clip(s, Limit::Bytes(6)), "日");
        assert_eq!(clip(s, Limit::Bytes(7)), s);
        assert_eq!(clip("ééééé", Limit::Bytes(5)), "éé");
    }

    #[test]
    fn empty_input() {
        assert_eq!(clip("", Limit::Chars(0)), "");
        assert_eq!(clip("", Limit::Chars(5)), "");
        assert_eq!(clip("", Limit::Bytes(0)), "");
        assert_eq!(clip_marked("", Limit::Chars(0), "…"), "");
        assert_eq!(one_line("", 3), "");
        assert_eq!(join_lines(""), "");
    }

    #[test]
    fn the_marker_comes_only_after_a_cut() {
        assert_eq!(clip_marked("abc", Limit::Chars(3), "…"), "abc");
        assert!(matches!(
            clip_marked("abc", Limit::Chars(3), "…"),
            Cow::Borrowed(_)
        ));
        assert_eq!(clip_marked("abcd", Limit::Chars(3), "…"), "abc…");
        assert_eq!(clip_marked("日🦀", Limit::Bytes(5), "…"), "日…");
        assert_eq!(clip_marked("abcd", Limit::Chars(3), " [cut]"), "abc [cut]");
    }

    #[test]
    fn one_line_replaces_each_break_then_cuts() {
        assert_eq!(one_line("a\nb\r\nc", 100), "a b  c");
        assert_eq!(one_line("ab\ncd", 3), "ab ");
        assert_eq!(one_line("ab\ncd", 5), "ab cd");
        assert_eq!(one_line("é\né", 2), "é ");
    }

    #[test]
    fn join_lines_drops_blank_lines_and_trims() {
        assert_eq!(join_lines("  a \r\n\n  \n b\rc  "), "a b c");
        assert_eq!(join_lines("one"), "one");
        let mut out = String::from("[x] ");
        push_joined_lines(&mut out, " two\n\n lines ");
        assert_eq!(out, "[x] two lines");
    }
}
