//! Arbitrary bytes as a results file (`runs/<arena>.jsonl`) through
//! `read_rows`, then every report format and a comparison of the rows with
//! themselves — what `report`, `merge`, `compare` and `--resume` do with a
//! file a user hands them.
#![no_main]

use libfuzzer_sys::fuzz_target;
use std::path::PathBuf;
use std::sync::LazyLock;
use tempfile::TempDir;
use tribunal_judge::{read_rows, Comparison, Report, ReportFormat};
use tribunal_judge::internal::rows::results::latest;

static FILE: LazyLock<(TempDir, PathBuf)> = LazyLock::new(|| {
    let dir = tempfile::Builder::new()
        .prefix("fuzz_results")
        .tempdir()
        .expect("temp dir");
    let path = dir.path().join("results.jsonl");
    (dir, path)
});

fuzz_target!(|data: &[u8]| {
    let path = &FILE.1;
    std::fs::write(path, data).expect("write results");
    let Ok(read) = read_rows(path) else {
        return;
    };
    // Only a last line without its newline can be torn.
    if data.is_empty() || data.ends_with(b"\n") {
        assert!(!read.torn);
    }
    assert!(read.good_len as usize <= data.len());
    let rows = latest(read.rows.clone());
    let report = Report::from_rows("fuzz", &rows);
    for format in [
        ReportFormat::Terminal,
        ReportFormat::Json,
        ReportFormat::Markdown,
        ReportFormat::Junit,
    ] {
        let _ = report.render(format);
    }
    let comparison = Comparison::new(&read.rows, &rows);
    assert_eq!(comparison.regressions(), 0);
    let _ = comparison.to_text();
});
