//! `tribunal review`: a change from git (a range, the uncommitted changes)
//! or a diff file, reviewed with the file tools at the repository; the
//! verdict for a person or as JSON; exit 0 GREEN, 1 RED, 2 no verdict.

use crate::action_gate::git;
use crate::stand_in::{stderr, stdout};
use crate::tribunal;
use serde_json::{Value, json};
use std::path::Path;
use std::process::{Command, Output};

/// A repository of two commits: `src/page.py` written, then changed.
fn repository() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir(dir.path().join("src")).unwrap();
    std::fs::write(
        dir.path().join("src/page.py"),
        "def page(n):\n    return n\n",
    )
    .unwrap();
    git(dir.path(), &["init", "-q", "-b", "trunk"]);
    git(dir.path(), &["add", "."]);
    git(dir.path(), &["commit", "-q", "-m", "first"]);
    std::fs::write(
        dir.path().join("src/page.py"),
        "def page(n):\n    return n + 1\n",
    )
    .unwrap();
    git(dir.path(), &["commit", "-q", "-am", "second"]);
    dir
}

/// The scripted reviewer: reads `src/page.py`, then answers `verdict`.
fn script(dir: &Path, verdict: Value) -> String {
    let path = dir.join("mock.json");
    let turns = json!([
        {"tool_calls": [{"name": "read_file", "arguments": {"path": "src/page.py"}}]},
        {"json": {"result": verdict}, "usage": {"input_tokens": 1200, "output_tokens": 60}}
    ]);
    std::fs::write(&path, turns.to_string()).unwrap();
    path.display().to_string()
}

fn red() -> Value {
    json!({"verdict": "RED", "verdictFields": {
        "summary": "Pages start at 2.",
        "findings": [{"file": "src/page.py", "line": 2, "problem": "n + 1 skips the first page"}],
        "covered": ["R1"]
    }})
}

fn review(repo: &Path, args: &[&str]) -> Output {
    tribunal(args, repo)
}

#[test]
fn a_red_verdict_reads_as_findings_at_their_lines_and_exits_1() {
    let repo = repository();
    let mock = script(repo.path(), red());
    let out = review(
        repo.path(),
        &[
            "review",
            "HEAD~1",
            "--requirements",
            "pages start at 1",
            "--mock",
            &mock,
        ],
    );
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    let text = stdout(&out);
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines[0], "RED: Pages start at 2.");
    assert!(
        lines.contains(&"    src/page.py:2: n + 1 skips the first page"),
        "{text}"
    );
    assert!(lines.contains(&"  covered: R1"), "{text}");
    assert!(
        lines
            .last()
            .unwrap()
            .starts_with("scripted on mock · 1 tool call, 1 file read · 1,260 tokens · "),
        "{text}"
    );
}

#[test]
fn green_exits_0_and_json_prints_the_stored_verdict() {
    let repo = repository();
    let mock = script(
        repo.path(),
        json!({"verdict": "GREEN", "verdictFields": {"summary": "Fine."}}),
    );
    let out = review(
        repo.path(),
        &[
            "review",
            "HEAD~1",
            "--requirements",
            "x",
            "--mock",
            &mock,
            "--json",
        ],
    );
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let stored: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(stored["outcome"], "GREEN");
    assert_eq!(stored["result"]["summary"], "Fine.");
}

/// The diff is part of what is reviewed: the same change from git or from
/// a diff file is the same review (one config hash); another change is
/// another review.
#[test]
fn the_change_from_git_or_from_a_file_is_the_same_review() {
    let repo = repository();
    let mock = script(repo.path(), red());
    let hash = |args: &[&str]| {
        let mut all = vec![
            "review",
            "--requirements",
            "pages start at 1",
            "--mock",
            &mock,
            "--json",
        ];
        all.extend_from_slice(args);
        let out = review(repo.path(), &all);
        assert_eq!(out.status.code(), Some(1), "{args:?}: {}", stderr(&out));
        let stored: Value = serde_json::from_slice(&out.stdout).unwrap();
        stored["reproduction"]["config_hash"]
            .as_str()
            .unwrap()
            .to_string()
    };
    let diff = Command::new("git")
        .arg("-C")
        .arg(repo.path())
        .args(["diff", "--no-color", "HEAD~1"])
        .output()
        .unwrap()
        .stdout;
    let file = repo.path().join("change.diff");
    std::fs::write(&file, diff).unwrap();
    let from_git = hash(&["HEAD~1"]);
    assert_eq!(from_git, hash(&["--diff", &file.display().to_string()]));
    // Uncommitted: the working tree against HEAD.
    std::fs::write(
        repo.path().join("src/page.py"),
        "def page(n):\n    return n - 1\n",
    )
    .unwrap();
    let uncommitted = hash(&[]);
    assert_ne!(uncommitted, from_git);
}

#[test]
fn nothing_to_review_is_exit_2_saying_what_to_name() {
    let repo = repository();
    let mock = script(repo.path(), red());
    let out = review(
        repo.path(),
        &["review", "--requirements", "x", "--mock", &mock],
    );
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(
        stderr(&out),
        "tribunal: no uncommitted change to review: name a range, e.g. `tribunal review HEAD~1`; no review\n"
    );
    assert!(out.stdout.is_empty());
    refused(
        repo.path(),
        &["HEAD..HEAD"],
        &mock,
        "HEAD..HEAD changes nothing",
    );
}

/// `tribunal review ARGS --requirements x --mock MOCK` in `dir`: exit 2,
/// nothing on stdout, and stderr (returned) saying `said`.
fn refused(dir: &Path, args: &[&str], mock: &str, said: &str) -> String {
    let mut all = vec!["review", "--requirements", "x", "--mock", mock];
    all.extend_from_slice(args);
    let out = review(dir, &all);
    assert_eq!(out.status.code(), Some(2), "{args:?}");
    assert!(out.stdout.is_empty(), "{args:?}");
    let err = stderr(&out);
    assert!(err.contains(said), "{args:?}: {err}");
    err
}

#[test]
fn outside_a_repository_or_with_an_option_as_range_it_says_what_to_do() {
    let dir = tempfile::tempdir().unwrap();
    let mock = script(dir.path(), red());
    let not_a_repository = "is not in a git repository: run inside one, or pass --diff FILE";
    refused(dir.path(), &[], &mock, not_a_repository);
    let repo = repository();
    let not_a_range = "is not a revision range";
    refused(repo.path(), &["--", "--output=/tmp/x"], &mock, not_a_range);
    refused(repo.path(), &["HEAD..--output=/tmp/x"], &mock, not_a_range);
    // A revision git does not know: git's own words, once.
    let err = refused(repo.path(), &["main..nosuch"], &mock, "git diff");
    assert!(err.contains("nosuch"), "{err}");
    assert_eq!(err.lines().count(), 1, "{err}");
}

/// A range that ends elsewhere than HEAD is reviewed against the working
/// tree's files: said on stderr, the review still runs.
#[test]
fn a_range_ending_elsewhere_says_the_tools_read_the_working_tree() {
    let repo = repository();
    let mock = script(repo.path(), red());
    let out = review(
        repo.path(),
        &[
            "review",
            "HEAD~1..HEAD",
            "--requirements",
            "x",
            "--mock",
            &mock,
        ],
    );
    assert!(!stderr(&out).contains("note:"), "{}", stderr(&out));
    git(repo.path(), &["checkout", "-q", "HEAD~1"]);
    let out = review(
        repo.path(),
        &[
            "review",
            "HEAD..trunk",
            "--requirements",
            "x",
            "--mock",
            &mock,
        ],
    );
    let err = stderr(&out);
    assert!(
        err.contains("note: HEAD..trunk ends at trunk, but the file tools read the working tree"),
        "{err}"
    );
    assert_eq!(out.status.code(), Some(1), "{err}");
}

/// No verdict: exit 2, the code and what it means on stderr.
#[test]
fn no_verdict_is_exit_2_with_the_reason() {
    let repo = repository();
    let path = repo.path().join("prose.json");
    std::fs::write(
        &path,
        json!([
            {"tool_calls": [{"name": "read_file", "arguments": {"path": "src/page.py"}}]},
            {"text": "GREEN, looks fine"},
            {"text": "GREEN!"}
        ])
        .to_string(),
    )
    .unwrap();
    let mock = path.display().to_string();
    let out = review(
        repo.path(),
        &["review", "HEAD~1", "--requirements", "x", "--mock", &mock],
    );
    assert_eq!(out.status.code(), Some(2));
    assert!(
        stdout(&out).starts_with("no verdict (invalid_json)\n"),
        "{}",
        stdout(&out)
    );
    assert!(
        stderr(&out)
            .contains("tribunal: no verdict: invalid_json: the model's verdict did not fit"),
        "{}",
        stderr(&out)
    );
}

/// The model's server is checked before the review: none at the base URL
/// is one line naming it, exit 2, nothing printed on stdout.
#[test]
fn a_dead_server_stops_the_review_before_it_starts() {
    let repo = repository();
    let out = review(
        repo.path(),
        &[
            "review",
            "HEAD~1",
            "--requirements",
            "x",
            "--backend",
            "openai-chat",
            "--model",
            "m",
            "--base-url",
            "http://127.0.0.1:9/v1",
        ],
    );
    assert_eq!(out.status.code(), Some(2));
    let err = stderr(&out);
    assert!(
        err.contains("cannot connect to http://127.0.0.1:9/v1/models"),
        "{err}"
    );
    assert!(err.contains("no review ran"), "{err}");
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(out.stdout.is_empty());
}

/// The model's text reaches the terminal as text: an escape sequence in a
/// finding cannot recolour or move anything, and its lines are joined.
#[test]
fn a_verdict_cannot_write_escape_sequences_to_the_terminal() {
    let repo = repository();
    let mock = script(
        repo.path(),
        json!({"verdict": "RED", "verdictFields": {
            "summary": "bad\u{1b}[2J\nchange",
            "findings": [{"file": "src/page.py\u{1b}]0;owned\u{7}", "line": 2, "problem": "x\ry"}],
            "covered": ["R1"]
        }}),
    );
    let out = review(
        repo.path(),
        &["review", "HEAD~1", "--requirements", "x", "--mock", &mock],
    );
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    let text = stdout(&out);
    assert!(
        !text.contains('\u{1b}') && !text.contains('\u{7}') && !text.contains('\r'),
        "{text:?}"
    );
    assert!(text.starts_with("RED: bad\u{fffd}[2J change\n"), "{text:?}");
}
