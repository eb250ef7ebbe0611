//! Where a JSON pointer's value (or its key) sits in a JSON text, as a
//! 1-based line and column: a problem found in the parsed value is shown
//! at its place in the file (serde_json keeps no positions).
//!
//! The text is JSON that already parsed; anything unexpected gives `None`
//! (the problem then has no column), never a wrong place. A key that occurs
//! twice in one object is found at its first occurrence.

/// What of a member to point at.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Part {
    /// The value (a wrong type, a bad schema keyword's value).
    Value,
    /// The member's key (an unknown key); the value for an array element
    /// or the root.
    Key,
}

/// The 1-based (line, column) of `pointer` in `text`, column in characters.
pub(crate) fn position(text: &str, pointer: &str, part: Part) -> Option<(usize, usize)> {
    let bytes = text.as_bytes();
    let mut at = skip_space(bytes, 0);
    let mut key_at = at;
    for token in tokens(pointer)? {
        let (key, value) = match bytes.get(at)? {
            b'{' => member(text, at, &token)?,
            b'[' => {
                let value = element(bytes, at, token.parse().ok()?)?;
                (value, value)
            }
            _ => return None,
        };
        key_at = key;
        at = value;
    }
    let offset = match part {
        Part::Value => at,
        Part::Key => key_at,
    };
    Some(line_column(text, offset))
}

/// The 1-based (line, column) of byte `offset` in `text`.
pub(crate) fn line_column(text: &str, offset: usize) -> (usize, usize) {
    let before = text.get(..offset).unwrap_or(text);
    let line = before.matches('\n').count() + 1;
    let line_start = before.rfind('\n').map_or(0, |i| i + 1);
    let column = before.get(line_start..).map_or(0, |s| s.chars().count()) + 1;
    (line, column)
}

/// The character column of serde_json's (byte) `column` on a one-line `text`.
pub(crate) fn char_column(text: &str, column: usize) -> usize {
    let bytes = column.saturating_sub(1).min(text.len());
    let end = (0..=bytes)
        .rev()
        .find(|&i| text.is_char_boundary(i))
        .unwrap_or(0);
    text.get(..end).map_or(0, |s| s.chars().count()) + 1
}

/// The pointer's reference tokens, unescaped (`~1` is `/`, `~0` is `~`).
fn tokens(pointer: &str) -> Option<Vec<String>> {
    if pointer.is_empty() {
        return Some(Vec::new());
    }
    let rest = pointer.strip_prefix('/')?;
    Some(
        rest.split('/')
            .map(|t| t.replace("~1", "/").replace("~0", "~"))
            .collect(),
    )
}

/// The offsets of the key and the value of member `name` of the object
/// opening at `at`.
fn member(text: &str, at: usize, name: &str) -> Option<(usize, usize)> {
    let bytes = text.as_bytes();
    let mut i = skip_space(bytes, at + 1);
    loop {
        if bytes.get(i)? != &b'"' {
            return None;
        }
        let key_end = string_end(bytes, i)?;
        let key: String = serde_json::from_str(text.get(i..key_end)?).ok()?;
        let colon = skip_space(bytes, key_end);
        if bytes.get(colon)? != &b':' {
            return None;
        }
        let value = skip_space(bytes, colon + 1);
        if key == name {
            return Some((i, value));
        }
        i = skip_space(bytes, value_end(bytes, value)?);
        match bytes.get(i)? {
            b',' => i = skip_space(bytes, i + 1),
            _ => return None,
        }
    }
}

/// The offset of element `index` of the array opening at `at`.
fn element(bytes: &[u8], at: usize, index: usize) -> Option<usize> {
    let mut i = skip_space(bytes, at + 1);
    for _ in 0..index {
        if bytes.get(i)? == &b']' {
            return None;
        }
        i = skip_space(bytes, value_end(bytes, i)?);
        match bytes.get(i)? {
            b',' => i = skip_space(bytes, i + 1),
            _ => return None,
        }
    }
    (bytes.get(i)? != &b']').then_some(i)
}

/// The offset just past the value starting at `at`.
fn value_end(bytes: &[u8], at: usize) -> Option<usize> {
    match bytes.get(at)? {
        b'"' => string_end(bytes, at),
        b'{' | b'[' => {
            let mut depth = 0usize;
            let mut i = at;
            while let Some(&b) = bytes.get(i) {
                match b {
                    b'"' => {
                        i = string_end(bytes, i)?;
                        continue;
                    }
                    b'{' | b'[' => depth += 1,
                    b'}' | b']' => {
                        depth -= 1;
                        if depth == 0 {
                            return Some(i + 1);
                        }
                    }
                    _ => {}
                }
                i += 1;
            }
            None
        }
        _ => Some(
            bytes[at..]
                .iter()
                .position(|b| matches!(b, b',' | b'}' | b']') || b.is_ascii_whitespace())
                .map_or(bytes.len(), |n| at + n),
        ),
    }
}

/// The offset just past the string opening at `at` (its closing quote).
fn string_end(bytes: &[u8], at: usize) -> Option<usize> {
    let mut i = at + 1;
    while let Some(&b) = bytes.get(i) {
        match b {
            b'\\' => i += 2,
            b'"' => return Some(i + 1),
            _ => i += 1,
        }
    }
    None
}

fn skip_space(bytes: &[u8], mut i: usize) -> usize {
    while bytes.get(i).is_some_and(u8::is_ascii_whitespace) {
        i += 1;
    }
    i
}

#[cfg(test)]
mod tests {
    use super::*;

    const SCHEMA: &str = "{\n  \"type\": \"object\",\n  \"properties\": {\n    \"a/b\": {\"type\": \"objekt\"},\n    \"country\": {\"type\": [\"string\", 3]}\n  },\n  \"required\": \"country\"\n}\n";

    #[test]
    fn pointers_find_their_values_and_keys() {
        assert_eq!(position(SCHEMA, "", Part::Value), Some((1, 1)));
        assert_eq!(position(SCHEMA, "/type", Part::Value), Some((2, 11)));
        assert_eq!(position(SCHEMA, "/type", Part::Key), Some((2, 3)));
        assert_eq!(
            position(SCHEMA, "/properties/a~1b/type", Part::Value),
            Some((4, 21))
        );
        assert_eq!(
            position(SCHEMA, "/properties/country/type/1", Part::Value),
            Some((5, 36))
        );
        assert_eq!(position(SCHEMA, "/required", Part::Value), Some((7, 15)));
    }

    #[test]
    fn a_pointer_that_leads_nowhere_has_no_position() {
        assert_eq!(position(SCHEMA, "/nope", Part::Value), None);
        assert_eq!(position(SCHEMA, "/type/0", Part::Value), None);
        assert_eq!(
            position(SCHEMA, "/properties/country/type/2", Part::Value),
            None
        );
        assert_eq!(position(SCHEMA, "type", Part::Value), None);
    }

    #[test]
    fn columns_count_characters_and_escapes_are_read() {
        let line = r#"{"é\"x": 1, "k": "ü", "v": 2}"#;
        assert_eq!(position(line, "/é\"x", Part::Value), Some((1, 10)));
        assert_eq!(position(line, "/v", Part::Value), Some((1, 28)));
        assert_eq!(char_column(line, 1), 1);
        assert_eq!(char_column(line, 4), 3);
        assert_eq!(char_column(line, 999), 30);
    }
}
