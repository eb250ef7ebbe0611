//! Escaping for the HTML report: text and attribute values, and JSON that
//! sits inside a `<script type="application/json">` block.
//!
//! Everything that came from a model, a tool or a dataset goes through one
//! of these before it reaches the page.

use serde::Serialize;

/// Escapes `s` for HTML text and for a double- or single-quoted attribute
/// value: `&`, `<`, `>`, `"` and `'`.
pub fn escape_html(s: &str) -> String {
    escape_markup(s, |c, out| match c {
        '\'' => out.push_str("&#39;"),
        c => out.push(c),
    })
}

/// `s` with the characters HTML and XML escape alike (`&`, `<`, `>`, `"`)
/// as their entities; every other character is `other`'s to write (the
/// two languages differ on `'`, and XML on line breaks and control
/// characters: the JUnit report).
pub(crate) fn escape_markup(s: &str, other: impl Fn(char, &mut String)) -> String {
    let mut out = String::with_capacity(s.len() + s.len() / 8);
    for c in s.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            c => other(c, &mut out),
        }
    }
    out
}

/// Serialises `value` as JSON that is safe inside a `<script>` element:
/// every `<`, `>` and `&` becomes a `\u003c`-style escape (so neither
/// `</script>` nor `<!--` can appear), and U+2028 / U+2029 are escaped too.
/// `JSON.parse` of the element's text gives back the same value.
pub fn json_for_script<T: Serialize + ?Sized>(value: &T) -> Result<String, serde_json::Error> {
    let raw = serde_json::to_string(value)?;
    Ok(script_safe(&raw))
}

/// Makes already-serialised JSON text safe inside a `<script>` element (see
/// [`json_for_script`]). The replaced characters can only occur inside JSON
/// strings, where the `\uXXXX` forms mean the same.
pub fn script_safe(json: &str) -> String {
    let mut out = String::with_capacity(json.len());
    for c in json.chars() {
        match c {
            '<' => out.push_str("\\u003c"),
            '>' => out.push_str("\\u003e"),
            '&' => out.push_str("\\u0026"),
            '\u{2028}' => out.push_str("\\u2028"),
            '\u{2029}' => out.push_str("\\u2029"),
            c => out.push(c),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::{Value, json};

    #[test]
    fn html_escapes_markup_and_quotes() {
        assert_eq!(
            escape_html(r#"<script>alert("x") & 'y'</script>"#),
            "&lt;script&gt;alert(&quot;x&quot;) &amp; &#39;y&#39;&lt;/script&gt;"
        );
        assert_eq!(escape_html("plain — ünïcode"), "plain — ünïcode");
    }

    #[test]
    fn script_json_cannot_close_the_element_and_round_trips() {
        let v = json!({"t": "</script><script>alert(1)</script><!-- --> & \u{2028}", "<k>": 1});
        let s = json_for_script(&v).unwrap_or_default();
        for bad in ["</", "<!--", "<script", "-->", "\u{2028}"] {
            assert!(!s.contains(bad), "{bad} in {s}");
        }
        let back: Value = serde_json::from_str(&s).unwrap_or_default();
        assert_eq!(back, v);
    }
}
