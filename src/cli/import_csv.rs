//! `tribunal import FILE.csv DIR`: a CSV file with a header row whose
//! columns name the question (`question`, `input` or `prompt`) and the
//! expected answer (`answer`, `ideal`, `target` or `expected`), as the
//! JSON Lines samples of `import` name them. Fields follow RFC 4180
//! (quoted with `"`, a `""` inside is a quote, line breaks inside quotes).

use serde_json::{Map, Value};

/// The records of `text` as JSON objects keyed by the header's names, each
/// with its line; or why the file is no such CSV.
pub(super) fn records(text: &str) -> Result<Vec<(usize, Value)>, String> {
    let records = named_records(text)?;
    Ok(records
        .into_iter()
        .map(|(line, fields)| {
            let obj: Map<String, Value> = fields
                .into_iter()
                .map(|(name, field)| {
                    let key = match name.to_lowercase().as_str() {
                        "expected" => "answer".to_string(),
                        "prompt" => "question".to_string(),
                        other => other.to_string(),
                    };
                    (key, Value::String(field))
                })
                .collect();
            (line, Value::Object(obj))
        })
        .collect())
}

/// One record: the line it starts on, and its fields named by the header.
pub(super) type NamedRecord = (usize, Vec<(String, String)>);

/// The records of `text` (blank ones skipped), each with its line and its
/// fields named by the header as written (trimmed); or why the file is
/// no such CSV.
pub(super) fn named_records(text: &str) -> Result<Vec<NamedRecord>, String> {
    let rows = parse(text)?;
    let Some((header, body)) = rows.split_first() else {
        return Err("an empty CSV file".to_string());
    };
    let names: Vec<String> = header.1.iter().map(|h| h.trim().to_string()).collect();
    Ok(body
        .iter()
        .filter(|(_, fields)| !fields.iter().all(|f| f.trim().is_empty()))
        .map(|(line, fields)| {
            let named = names.iter().cloned().zip(fields.iter().cloned()).collect();
            (*line, named)
        })
        .collect())
}

/// Each record of `text` with the line it starts on.
fn parse(text: &str) -> Result<Vec<(usize, Vec<String>)>, String> {
    let mut rows = Vec::new();
    let mut fields = Vec::new();
    let mut field = String::new();
    let mut quoted = false;
    let mut line = 1;
    let mut start = 1;
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        match (quoted, c) {
            (true, '"') if chars.peek() == Some(&'"') => {
                chars.next();
                field.push('"');
            }
            (true, '"') => quoted = false,
            (true, c) => {
                if c == '\n' {
                    line += 1;
                }
                field.push(c);
            }
            (false, '"') if field.is_empty() => quoted = true,
            (false, ',') => fields.push(std::mem::take(&mut field)),
            (false, '\r') => {}
            (false, '\n') => {
                fields.push(std::mem::take(&mut field));
                rows.push((start, std::mem::take(&mut fields)));
                line += 1;
                start = line;
            }
            (false, c) => field.push(c),
        }
    }
    if quoted {
        return Err(format!("line {start}: a quoted field is not closed"));
    }
    if !field.is_empty() || !fields.is_empty() {
        fields.push(field);
        rows.push((start, fields));
    }
    Ok(rows)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quoted_fields_hold_commas_quotes_and_line_breaks() {
        let text = "question,answer\n\"Say \"\"hi\"\", twice\",\"hi\nhi\"\r\nplain,2\n";
        let records = records(text).unwrap();
        assert_eq!(records[0].0, 2);
        assert_eq!(records[0].1["question"], "Say \"hi\", twice");
        assert_eq!(records[0].1["answer"], "hi\nhi");
        assert_eq!(records[1].0, 4);
        assert_eq!(records[1].1["answer"], "2");
        assert!(super::records("q\n\"open").is_err());
    }
}
