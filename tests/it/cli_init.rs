//! `tribunal init`: a new arena that lints clean and passes 2/2 in mock
//! mode, and never a file written over one of the user's.

use crate::json_lines;
use crate::stand_in::{stderr, stdout};
use crate::tribunal_here;

#[test]
fn init_lint_run_passes_from_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let arena = dir.path().join("capitals");
    let init = tribunal_here(&["init".as_ref(), arena.as_os_str()]);
    assert_eq!(init.status.code(), Some(0), "{}", stderr(&init));
    assert!(stdout(&init).contains("created arena \"capitals\""));
    for file in [
        "arena.toml",
        "dataset.jsonl",
        "schema.json",
        "corpus.json",
        "README.md",
    ] {
        assert!(arena.join(file).is_file(), "{file}");
    }
    let toml = std::fs::read_to_string(arena.join("arena.toml")).unwrap();
    assert!(toml.contains("name = \"capitals\""));
    assert!(!toml.contains("{{"), "every placeholder filled");

    let lint = tribunal_here(&["lint".as_ref(), arena.as_os_str()]);
    assert_eq!(
        lint.status.code(),
        Some(0),
        "{}{}",
        stdout(&lint),
        stderr(&lint)
    );

    let out = dir.path().join("capitals.jsonl");
    let run = tribunal_here(&[
        "run".as_ref(),
        arena.as_os_str(),
        "--out".as_ref(),
        out.as_os_str(),
    ]);
    assert_eq!(run.status.code(), Some(0), "{}", stderr(&run));
    let rows = json_lines(&out);
    assert_eq!(rows.len(), 2);
    assert!(rows.iter().all(|r| r["outcome"] == "PASS"), "{rows:?}");
    // The search really ran on the corpus: its passage is the source.
    assert!(rows.iter().all(|r| r["arena"] == "capitals"));
}

#[test]
fn init_refuses_a_folder_with_files_and_writes_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let mine = dir.path().join("arena.toml");
    std::fs::write(&mine, "name = \"mine\"\n").unwrap();
    let init = tribunal_here(&[
        "init".as_ref(),
        dir.path().as_os_str(),
        "--name".as_ref(),
        "x".as_ref(),
    ]);
    assert_eq!(init.status.code(), Some(2));
    let err = stderr(&init);
    assert!(err.contains("is not empty (it holds arena.toml)"), "{err}");
    assert!(err.contains("nothing was written"), "{err}");
    assert_eq!(std::fs::read_to_string(&mine).unwrap(), "name = \"mine\"\n");
    assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 1);
}

#[test]
fn init_refuses_a_name_that_cannot_name_an_arena() {
    let dir = tempfile::tempdir().unwrap();
    let arena = dir.path().join("my arena");
    let init = tribunal_here(&["init".as_ref(), arena.as_os_str()]);
    assert_eq!(init.status.code(), Some(2));
    assert!(
        stderr(&init).contains("\"my arena\" cannot name an arena"),
        "{}",
        stderr(&init)
    );
    assert!(stderr(&init).contains("pass --name NAME"));
    assert!(!arena.exists());
    let named = tribunal_here(&[
        "init".as_ref(),
        arena.as_os_str(),
        "--name".as_ref(),
        "mine".as_ref(),
    ]);
    assert_eq!(named.status.code(), Some(0), "{}", stderr(&named));
}
