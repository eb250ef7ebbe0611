//! `tribunal search`: JSON hits on stdout, exit 2 on an unreadable corpus.

use std::process::Command;

use crate::tribunal_bin;

fn corpus_file(dir: &std::path::Path) -> std::path::PathBuf {
    let path = dir.join("corpus.json");
    std::fs::write(
        &path,
        r#"[
  {"id": "eiffel", "title": "Eiffel Tower", "text": "Paris, 1889, 330 m."},
  {"title": "Tokyo Tower", "text": "Tokyo, 1958, 333 m; inspired by the Eiffel Tower."},
  {"id": 7, "title": "CN Tower", "text": "Toronto, 1976, 553 m."}
]"#,
    )
    .unwrap();
    path
}

#[test]
fn prints_the_hits_as_one_json_array_best_first() {
    let dir = tempfile::tempdir().unwrap();
    let out = Command::new(tribunal_bin())
        .arg("search")
        .arg(corpus_file(dir.path()))
        .arg("Eiffel Tower")
        .output()
        .unwrap();
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let hits: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let ids: Vec<&str> = hits
        .as_array()
        .unwrap()
        .iter()
        .map(|h| h["id"].as_str().unwrap())
        .collect();
    assert_eq!(ids, ["eiffel", "1", "7"]);
    let first = &hits[0];
    assert_eq!(first["title"], "Eiffel Tower");
    assert_eq!(first["text"], "Paris, 1889, 330 m.");
    assert!(first["score"].as_f64().unwrap() > hits[1]["score"].as_f64().unwrap());
}

#[test]
fn k_limits_and_no_match_is_an_empty_array() {
    let dir = tempfile::tempdir().unwrap();
    let corpus = corpus_file(dir.path());
    let run = |args: &[&str]| {
        let out = Command::new(tribunal_bin())
            .arg("search")
            .arg(&corpus)
            .args(args)
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(0));
        serde_json::from_slice::<serde_json::Value>(&out.stdout).unwrap()
    };
    assert_eq!(run(&["tower", "-k", "1"]).as_array().unwrap().len(), 1);
    assert_eq!(run(&["zzz"]), serde_json::json!([]));
}

#[test]
fn an_unreadable_corpus_exits_2_with_one_line() {
    let dir = tempfile::tempdir().unwrap();
    let missing = dir.path().join("missing.json");
    let out = Command::new(tribunal_bin())
        .arg("search")
        .arg(&missing)
        .arg("x")
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8(out.stderr).unwrap();
    assert_eq!(err.trim_end().lines().count(), 1, "{err}");
    assert!(err.contains("missing.json"), "{err}");

    let bad = dir.path().join("bad.json");
    std::fs::write(&bad, "[\n  {\"title\": \"a\", \"text\": }\n]").unwrap();
    let out = Command::new(tribunal_bin())
        .arg("search")
        .arg(&bad)
        .arg("x")
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8(out.stderr).unwrap();
    assert_eq!(err.trim_end().lines().count(), 1, "{err}");
    assert!(err.contains("bad.json:2:"), "{err}");
    assert!(out.stdout.is_empty());
}
