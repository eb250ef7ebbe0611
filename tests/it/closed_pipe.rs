//! Issue #62 point 8: every command ends quietly when its reader closes the
//! pipe (`tribunal completions bash | head -1`): no panic, no error line,
//! exit 141 as `cat` would.

use crate::stand_in::{arena, code, stderr};
use std::process::Stdio;

/// `tribunal ARGS` in `cwd` writing into a pipe whose reading end is
/// already closed.
fn into_closed_pipe(args: &[&str], cwd: &std::path::Path) -> std::process::Output {
    let (reader, writer) = std::io::pipe().unwrap();
    drop(reader);
    crate::tribunal_command(args, cwd)
        .stdout(Stdio::from(writer))
        .stderr(Stdio::piped())
        .output()
        .unwrap()
}

#[test]
fn every_command_ends_quietly_on_a_closed_pipe() {
    let dir = tempfile::tempdir().unwrap();
    let a = arena();
    let a = a.to_str().unwrap();
    let corpus = std::path::Path::new(a).join("corpus.json");
    let commands: Vec<Vec<&str>> = vec![
        vec!["completions", "bash"],
        vec!["man"],
        vec!["--help"],
        vec!["lint", a],
        vec!["run", a, "-q", "--out", "one.jsonl"],
        vec!["run", a, "-q", "--out", "two.jsonl", "--report", "json"],
        vec!["report", "done.jsonl"],
        vec!["search", corpus.to_str().unwrap(), "Eiffel tower"],
    ];
    // The file `report` reads.
    crate::tribunal(&["run", a, "-q", "--out", "done.jsonl"], dir.path());
    for args in commands {
        let o = into_closed_pipe(&args, dir.path());
        assert_eq!(code(&o), 141, "{args:?}: {}", stderr(&o));
        let err = stderr(&o);
        for noise in ["panicked", "Broken pipe", "BrokenPipe", "tribunal:"] {
            assert!(!err.contains(noise), "{args:?}: {err}");
        }
    }
}
