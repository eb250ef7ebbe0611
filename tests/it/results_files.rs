//! Issue #62 point 3: where a run's results go. A copied arena (same
//! `name`, another folder) never writes over the original's results; a
//! new run says what it replaced; `init`'s arena.toml names the file the
//! run really writes.

use crate::stand_in::{code, stderr};
use crate::tribunal;

#[test]
fn a_copied_arena_never_writes_over_the_original_results() {
    let dir = tempfile::tempdir().unwrap();
    let o = tribunal(&["init", "invoices"], dir.path());
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    // The copy keeps arena.toml's `name = "invoices"`.
    let copy = dir.path().join("invoices_v2");
    std::fs::create_dir(&copy).unwrap();
    for entry in std::fs::read_dir(dir.path().join("invoices")).unwrap() {
        let entry = entry.unwrap();
        std::fs::copy(entry.path(), copy.join(entry.file_name())).unwrap();
    }
    let o = tribunal(&["run", "invoices", "-q"], dir.path());
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    let original = dir.path().join("runs/invoices.mock.jsonl");
    let before = std::fs::read_to_string(&original).unwrap();
    let o = tribunal(&["run", "invoices_v2", "-q"], dir.path());
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    assert!(
        stderr(&o).contains("results: runs/invoices_v2.mock.jsonl"),
        "{}",
        stderr(&o)
    );
    assert_eq!(std::fs::read_to_string(&original).unwrap(), before);
    // `compare ARENA` finds each folder's own files.
    let o = tribunal(&["compare", "invoices_v2"], dir.path());
    assert!(
        stderr(&o).contains("runs/invoices_v2.mock.jsonl"),
        "{}",
        stderr(&o)
    );
    assert!(
        !stderr(&o).contains("runs/invoices.mock.jsonl"),
        "{}",
        stderr(&o)
    );
}

#[test]
fn a_new_run_says_it_replaced_the_rows_of_the_run_before() {
    let dir = tempfile::tempdir().unwrap();
    let o = tribunal(&["init", "capitals"], dir.path());
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    let o = tribunal(&["run", "capitals"], dir.path());
    assert!(!stderr(&o).contains("already finished"), "{}", stderr(&o));
    assert!(!stderr(&o).contains("replaced"), "{}", stderr(&o));
    let o = tribunal(&["run", "capitals"], dir.path());
    assert!(
        stderr(&o).contains(
            "this run started runs/capitals.mock.jsonl anew: the 2 row(s) of the run before were replaced"
        ),
        "{}",
        stderr(&o)
    );
    let rows = std::fs::read_to_string(dir.path().join("runs/capitals.mock.jsonl")).unwrap();
    assert_eq!(rows.lines().count(), 2);
}

/// The file `init`'s arena.toml names is the one `run` writes.
#[test]
fn init_names_the_results_file_run_writes() {
    let dir = tempfile::tempdir().unwrap();
    let o = tribunal(&["init", "my_arena"], dir.path());
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    let toml = std::fs::read_to_string(dir.path().join("my_arena/arena.toml")).unwrap();
    assert!(toml.contains("runs/my_arena.mock.jsonl"), "{toml}");
    assert!(!toml.contains("runs/my_arena.jsonl"), "{toml}");
    let o = tribunal(&["run", "my_arena", "-q"], dir.path());
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    assert!(dir.path().join("runs/my_arena.mock.jsonl").is_file());
}
