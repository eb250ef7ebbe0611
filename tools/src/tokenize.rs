//! The tokeniser shared by indexing and querying: lowercase, split on every
//! character that is not a letter or digit, keep numbers, fold diacritics
//! (`é` → `e`, `ß` → `ss`, `ø` → `o`).
//!
//! ASCII tokens take a fast path; only tokens with non-ASCII characters go
//! through Unicode compatibility decomposition (NFKD).

use unicode_normalization::UnicodeNormalization;
use unicode_normalization::char::is_combining_mark;

/// Calls `f` with each token of `text`, in order.
///
/// ```text
/// "Zürich's Café-Tower, 1889" → zurich, s, cafe, tower, 1889
/// ```
pub(crate) fn for_each_token(text: &str, mut f: impl FnMut(&str)) {
    let mut buf = String::new();
    let mut ascii = true;
    for c in text.chars() {
        if c.is_ascii_alphanumeric() {
            buf.push(c.to_ascii_lowercase());
        } else if c.is_ascii() {
            if !buf.is_empty() {
                emit(&mut buf, ascii, &mut f);
                ascii = true;
            }
        } else if c.is_alphanumeric() || (!buf.is_empty() && is_combining_mark(c)) {
            // A combining mark continues the token it decorates (decomposed
            // input such as `e\u{301}`); folding removes it below.
            ascii = false;
            buf.push(c);
        } else if !buf.is_empty() {
            emit(&mut buf, ascii, &mut f);
            ascii = true;
        }
    }
    if !buf.is_empty() {
        emit(&mut buf, ascii, &mut f);
    }
}

/// The tokens of `text` as owned strings.
#[cfg(test)]
pub(crate) fn tokens(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    for_each_token(text, |t| out.push(t.to_string()));
    out
}

fn emit(buf: &mut String, ascii: bool, f: &mut impl FnMut(&str)) {
    if ascii {
        f(buf);
    } else {
        let folded = fold(buf);
        if !folded.is_empty() {
            f(&folded);
        }
    }
    buf.clear();
}

/// Lowercases and strips diacritics from a non-ASCII token.
fn fold(token: &str) -> String {
    let mut out = String::with_capacity(token.len());
    for c in token.nfkd() {
        for l in c.to_lowercase() {
            match l {
                _ if is_combining_mark(l) => {}
                'ß' => out.push_str("ss"),
                'æ' => out.push_str("ae"),
                'œ' => out.push_str("oe"),
                'þ' => out.push_str("th"),
                'ø' => out.push('o'),
                'đ' | 'ð' => out.push('d'),
                'ł' => out.push('l'),
                'ı' => out.push('i'),
                // NFKD can turn one character into several, some of them
                // separators (e.g. `½` → `1⁄2`); drop those.
                _ if l.is_alphanumeric() => out.push(l),
                _ => {}
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::tokens;

    #[test]
    fn lowercases_and_splits_on_punctuation() {
        assert_eq!(
            tokens("The CN-Tower's height: 553.3 m (1976)."),
            ["the", "cn", "tower", "s", "height", "553", "3", "m", "1976"]
        );
    }

    #[test]
    fn folds_diacritics_precomposed_and_decomposed() {
        assert_eq!(tokens("Zürich Café São"), ["zurich", "cafe", "sao"]);
        assert_eq!(
            tokens("Cafe\u{301} Straße Øresund"),
            ["cafe", "strasse", "oresund"]
        );
        assert_eq!(tokens("ÉCOLE Œuvre Łódź"), ["ecole", "oeuvre", "lodz"]);
    }

    #[test]
    fn empty_and_separator_only_text_has_no_tokens() {
        assert!(tokens("").is_empty());
        assert!(tokens(" -- ,;! \u{301}").is_empty());
    }

    #[test]
    fn non_latin_letters_are_kept() {
        assert_eq!(tokens("東京タワー tower"), ["東京タワー", "tower"]);
    }
}
