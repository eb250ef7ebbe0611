//! Arbitrary text as an arena's `dataset.jsonl` (the landmark arena's
//! `arena.toml` and schema, no tools) through `lint` and `Arena::load`.
//! The arena API reads a folder, so the input is written to a temp dir.
#![no_main]

mod common;

use libfuzzer_sys::fuzz_target;
use std::path::PathBuf;
use std::sync::LazyLock;
use tempfile::TempDir;
use tribunal_judge::{lint, Arena};

static DIR: LazyLock<(TempDir, PathBuf)> = LazyLock::new(|| {
    let dir = tempfile::Builder::new()
        .prefix("fuzz_dataset")
        .tempdir()
        .expect("temp dir");
    let path = dir.path().join("arena");
    std::fs::create_dir(&path).expect("arena dir");
    std::fs::write(
        path.join("arena.toml"),
        "name = \"fuzz\"\nschema = \"schema.json\"\ntools = []\nextraction = \"lenient\"\n",
    )
    .expect("arena.toml");
    std::fs::write(path.join("schema.json"), common::landmark().to_string()).expect("schema");
    (dir, path)
});

fuzz_target!(|data: &[u8]| {
    let dir = &DIR.1;
    std::fs::write(dir.join("dataset.jsonl"), data).expect("write dataset");
    let report = lint(dir);
    let _ = report.render();
    if let Ok(arena) = Arena::load(dir) {
        assert!(report.is_clean());
        let _ = arena.items.len();
    }
});
