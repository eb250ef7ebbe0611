//! The typed fields of a results file: every error code written is read
//! back equal; an error code or check type this version does not know is a
//! corrupt row at its line, never read as something else.

use crate::html_fixtures::row;
use tribunal_judge::internal::rows::results::{ResultsWriter, merge_files};
use tribunal_judge::{JudgeError, Outcome, ResultRow, read_rows};
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

/// A results file of `rows` whose line 3 has `from` replaced by `to`.
fn file_with_line_3_edited(
    dir: &std::path::Path,
    rows: &[ResultRow],
    from: &str,
    to: &str,
) -> std::path::PathBuf {
    let mut text = String::new();
    for (i, r) in rows.iter().enumerate() {
        let mut line = serde_json::to_string(r).unwrap();
        if i == 2 {
            assert!(line.contains(from), "{line}");
            line = line.replace(from, to);
        }
        text.push_str(&line);
        text.push('\n');
    }
    let path = dir.join("r.jsonl");
    std::fs::write(&path, text).unwrap();
    path
}

/// Reading `path` alone and merging it both fail at line 3, naming `bad`.
fn assert_corrupt_at_line_3(path: &std::path::Path, bad: &str) {
    for result in [
        read_rows(path).map(|r| r.rows),
        merge_files(&[path.to_path_buf()]),
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
        assert_eq!((at.as_path(), *line), (path, 3));
        assert!(message.contains(bad), "{message}");
        let shown = e.to_string();
        let at_line = format!("{}:3: not a result row", path.display());
        assert!(shown.starts_with(&at_line), "{shown}");
    }
}

#[test]
fn an_unknown_error_code_is_corruption_at_its_line() {
    let dir = tempfile::tempdir().unwrap();
    let code = format!("\"error_code\":\"{}\"", ErrorCode::ALL[2].as_str());
    let path = file_with_line_3_edited(
        dir.path(),
        &error_rows(),
        &code,
        "\"error_code\":\"no_such_code\"",
    );
    assert_corrupt_at_line_3(&path, "no_such_code");
}

#[test]
fn an_unknown_check_type_is_corruption_at_its_line() {
    let dir = tempfile::tempdir().unwrap();
    let rows: Vec<ResultRow> = (0..4)
        .map(|i| row(&format!("item-{i}"), i, 0, Outcome::Pass))
        .collect();
    let path = file_with_line_3_edited(
        dir.path(),
        &rows,
        "\"type\":\"tool_used\",\"ok\"",
        "\"type\":\"tool_use\",\"ok\"",
    );
    assert_corrupt_at_line_3(&path, "tool_use");
}
