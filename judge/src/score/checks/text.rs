//! What the text checks read in an answer: its text (`contains`, `regex`,
//! …), the numbers it holds (`numeric_equals`) and its sentences
//! (`sentence_count`).

use regex::Regex;
use serde_json::Value;
use std::sync::LazyLock;

/// The text `contains`, `not_contains` and `regex` read: a string answer as
/// is, anything else as compact JSON.
pub fn answer_text(answer: &Value) -> String {
    match answer {
        Value::String(s) => s.clone(),
        other => other.to_string(),
    }
}

/// Every number in `answer`, in document order: each JSON number, and each
/// number written in a string (`1,250.5` reads as 1250.5; a `-` counts as
/// a sign only where no letter or digit comes before it, so `2024-05` holds
/// 2024 and 5).
pub(super) fn numbers_in(answer: &Value) -> Vec<f64> {
    let mut out = Vec::new();
    let mut stack = vec![answer];
    while let Some(v) = stack.pop() {
        match v {
            Value::Number(n) => out.extend(n.as_f64()),
            Value::String(s) => out.extend(numbers_in_text(s)),
            // Reversed onto the stack so they come off in document order.
            Value::Array(items) => stack.extend(items.iter().rev()),
            Value::Object(map) => stack.extend(map.values().rev()),
            Value::Null | Value::Bool(_) => {}
        }
    }
    out
}

static NUMBER: LazyLock<Regex> = LazyLock::new(|| {
    // Digits with optional thousands groups, a fraction and an exponent.
    // A literal pattern: it compiles (the tests run it).
    Regex::new(r"-?(?:\d{1,3}(?:,\d{3})+|\d+)(?:\.\d+)?(?:[eE][-+]?\d+)?")
        .expect("a valid literal pattern")
});

/// The numbers written in `text`.
pub(super) fn numbers_in_text(text: &str) -> Vec<f64> {
    NUMBER
        .find_iter(text)
        .filter_map(|m| {
            let mut written = m.as_str();
            let after_word = text[..m.start()]
                .chars()
                .next_back()
                .is_some_and(char::is_alphanumeric);
            if after_word {
                written = written.trim_start_matches('-');
            }
            written.replace(',', "").parse::<f64>().ok()
        })
        .filter(|x| x.is_finite())
        .collect()
}

/// The sentences of `answer`: of a string answer, its text; of a JSON
/// answer, the sum over its strings (keys are not prose).
pub(super) fn sentence_count(answer: &Value) -> usize {
    let mut total = 0;
    let mut stack = vec![answer];
    while let Some(v) = stack.pop() {
        match v {
            Value::String(s) => total += sentences_in(s),
            Value::Array(items) => stack.extend(items),
            Value::Object(map) => stack.extend(map.values()),
            Value::Null | Value::Bool(_) | Value::Number(_) => {}
        }
    }
    total
}

/// The sentences of `text`. A sentence ends at a run of `.`, `!`, `?` or
/// `…` (closing quotes and brackets may follow) followed by whitespace or
/// the end; a piece counts when it holds a letter or digit. So `3.14`,
/// `example.com` and `Wait...` ending the text each end at most one, and
/// text without end punctuation is one sentence.
pub(super) fn sentences_in(text: &str) -> usize {
    let chars: Vec<char> = text.chars().collect();
    let mut count = 0;
    let mut has_word = false;
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        if is_terminator(c) {
            let mut j = i;
            while j < chars.len() && is_terminator(chars[j]) {
                j += 1;
            }
            while j < chars.len() && is_closer(chars[j]) {
                j += 1;
            }
            let ends = chars.get(j).is_none_or(|c| c.is_whitespace());
            if ends {
                if has_word {
                    count += 1;
                }
                has_word = false;
            }
            i = j;
            continue;
        }
        has_word |= c.is_alphanumeric();
        i += 1;
    }
    count + usize::from(has_word)
}

fn is_terminator(c: char) -> bool {
    matches!(c, '.' | '!' | '?' | '…')
}

fn is_closer(c: char) -> bool {
    matches!(c, '"' | '\'' | ')' | ']' | '”' | '’' | '»')
}
