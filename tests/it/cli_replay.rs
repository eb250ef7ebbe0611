//! `run --replay DIR` through the binary on hostile cassettes: each is a
//! configuration error naming the cassette and its line, exit 2, before any
//! item runs (no results file, no partial rows).

use crate::tribunal_bin;
use std::path::Path;
use std::process::Command;

#[test]
fn hostile_cassettes_exit_2_naming_the_cassette_and_line() {
    let arena = Path::new(env!("CARGO_MANIFEST_DIR")).join("arenas/structured_output");
    let header = r#"{"type":"header","version":1,"backend":"openai-chat","model":"m","schema_target":"open_ai"}"#;
    let deep = format!("{}{}", "[".repeat(100_000), "]".repeat(100_000));
    let cases: Vec<(&str, String, &str)> = vec![
        ("empty", String::new(), "it is empty"),
        ("garbage", "not json at all\n".to_string(), "line 1 "),
        ("deep nesting", format!("{deep}\n"), "line 1 "),
        (
            "a second header",
            format!("{header}\n{header}\n"),
            "line 2 ",
        ),
        (
            "a newer version",
            header.replace(r#""version":1,"#, r#""version":99,"#) + "\n",
            "version 99 is newer than 2",
        ),
        (
            "random bytes",
            String::from_utf8_lossy(&[0xff, 0x00, 0x9c, b'\n', 0x80]).into_owned(),
            "line 1 ",
        ),
    ];
    for (label, text, line) in cases {
        let dir = tempfile::tempdir().unwrap();
        let cassettes = dir.path().join("cassettes");
        std::fs::create_dir(&cassettes).unwrap();
        let cassette = cassettes.join("structured_output.jsonl");
        std::fs::write(&cassette, text).unwrap();
        let results = dir.path().join("results.jsonl");
        let out = Command::new(tribunal_bin())
            .arg("run")
            .arg(&arena)
            .args(["--backend", "openai-chat", "--model", "m", "--replay"])
            .arg(&cassettes)
            .arg("--out")
            .arg(&results)
            .env_remove("OPENAI_API_KEY")
            .env_remove("OPENAI_BASE_URL")
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{label}: {stderr}");
        let named = format!("cassette {}: {line}", cassette.display());
        assert!(stderr.contains(&named), "{label}: wants {named}: {stderr}");
        assert!(!stderr.contains("panicked"), "{label}: {stderr}");
        let rows = std::fs::read_to_string(&results).unwrap_or_default();
        assert!(rows.is_empty(), "{label}: no item ran: {rows}");
    }
}
