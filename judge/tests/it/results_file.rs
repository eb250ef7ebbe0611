//! The results file's error codes: every code written is read back equal;
//! a code this version does not know is a corrupt row at its line, never a
//! silent `backend_error`.

use crate::html_fixtures::row;
use tribunal_judge::{JudgeError, Outcome, ResultRow, ResultsWriter, merge_files, read_rows};
use tribunal_runtime::ErrorCode;

/// One ERROR row per code, in `ErrorCode::ALL` order.
fn error_rows() -> Vec<ResultRow> {
    ErrorCode::ALL
        .iter()
        .enumerate()
        .map(|(i, code)| {
            let mut r = row(&format!("item-{i}"), i, 0, Outcome::Error);
            r.error_code = Some(*code);
            r
        })
        .collect()
}

#[test]
fn every_error_code_written_is_read_back_equal() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("r.jsonl");
    let writer = ResultsWriter::create(&path).unwrap();
    let rows = error_rows();
    for r in &rows {
        writer.write(r).unwrap();
    }
    let text = std::fs::read_to_string(&path).unwrap();
    for (line, code) in text.lines().zip(ErrorCode::ALL) {
        let needle = format!("\"error_code\":\"{}\"", code.as_str());
        assert!(line.contains(&needle), "{line}");
    }
    let read = read_rows(&path).unwrap();
    assert!(!read.torn);
    let codes: Vec<Option<ErrorCode>> = read.rows.iter().map(|r| r.error_code).collect();
    let written: Vec<Option<ErrorCode>> = ErrorCode::ALL.into_iter().map(Some).collect();
    assert_eq!(codes, written);
    assert_eq!(read.rows, rows);
}

/// The rows of [`error_rows`] with line 3's code replaced by one no
/// version knows.
fn file_with_unknown_code(dir: &std::path::Path) -> std::path::PathBuf {
    let mut text = String::new();
    for (i, r) in error_rows().iter().enumerate() {
        let mut line = serde_json::to_string(r).unwrap();
        if i == 2 {
            line = line.replace(
                &format!("\"error_code\":\"{}\"", ErrorCode::ALL[2].as_str()),
                "\"error_code\":\"no_such_code\"",
            );
            assert!(line.contains("no_such_code"));
        }
        text.push_str(&line);
        text.push('\n');
    }
    let path = dir.join("r.jsonl");
    std::fs::write(&path, text).unwrap();
    path
}

#[test]
fn an_unknown_error_code_is_corruption_at_its_line() {
    let dir = tempfile::tempdir().unwrap();
    let path = file_with_unknown_code(dir.path());
    for result in [
        read_rows(&path).map(|r| r.rows),
        merge_files(std::slice::from_ref(&path)),
    ] {
        let e = result.unwrap_err();
        let JudgeError::CorruptResults {
            path: at,
            line,
            message,
        } = &e
        else {
            panic!("expected CorruptResults at line 3, got {e:?}");
        };
        assert_eq!((at, *line), (&path, 3));
        assert!(message.contains("no_such_code"), "{message}");
        let shown = e.to_string();
        let at_line = format!("{}:3: not a result row", path.display());
        assert!(shown.starts_with(&at_line), "{shown}");
    }
}
