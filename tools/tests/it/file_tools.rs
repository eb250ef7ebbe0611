//! `list_files`, `read_file` and `grep` on a temporary tree: normal use,
//! path-escape attempts, binary files, output caps.

use std::fs;
use std::path::Path;

use serde_json::json;
use tempfile::TempDir;
use tribunal_runtime::ToolBox;
use tribunal_tools::{ErrorCode, FileTools};

use crate::call;

/// `root/` is the sandbox; `outside/` sits next to it.
struct Tree {
    dir: TempDir,
}

impl Tree {
    fn new() -> Tree {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().join("root");
        fs::create_dir_all(root.join("src/nested")).unwrap();
        fs::create_dir_all(root.join(".git")).unwrap();
        fs::create_dir_all(dir.path().join("outside")).unwrap();
        fs::write(root.join("README.md"), "# Demo\nSee src/lib.rs.\n").unwrap();
        fs::write(
            root.join("src/lib.rs"),
            "//! Demo.\npub fn add(a: u32, b: u32) -> u32 {\n    a + b\n}\n\npub fn sub(a: u32, b: u32) -> u32 {\n    a - b\n}\n",
        )
        .unwrap();
        fs::write(
            root.join("src/nested/util.rs"),
            "pub fn unused() {}\r\n// TODO: remove\r\n",
        )
        .unwrap();
        fs::write(root.join("logo.png"), b"\x89PNG\r\n\x1a\n\0\0\0\rIHDR").unwrap();
        fs::write(root.join("latin1.txt"), b"caf\xe9\n").unwrap();
        fs::write(root.join(".git/config"), "[core]\n").unwrap();
        fs::write(dir.path().join("outside/secret.txt"), "TOP SECRET add\n").unwrap();
        Tree { dir }
    }

    fn root(&self) -> std::path::PathBuf {
        self.dir.path().join("root")
    }

    fn toolbox(&self) -> ToolBox {
        FileTools::new(self.root()).unwrap().into_toolbox()
    }
}

#[cfg(unix)]
fn symlink(target: &Path, link: &Path) {
    std::os::unix::fs::symlink(target, link).unwrap();
}

#[tokio::test]
async fn list_files_sorted_relative_and_without_git() {
    let t = Tree::new();
    let r = call(&t.toolbox(), "list_files", json!({})).await;
    assert!(!r.is_error);
    assert_eq!(
        r.content,
        "README.md\nlatin1.txt\nlogo.png\nsrc/lib.rs\nsrc/nested/util.rs"
    );
    let r = call(&t.toolbox(), "list_files", json!({"glob": "*.rs"})).await;
    assert_eq!(r.content, "src/lib.rs\nsrc/nested/util.rs");
    let r = call(&t.toolbox(), "list_files", json!({"glob": "src/nested/**"})).await;
    assert_eq!(r.content, "src/nested/util.rs");
    let r = call(&t.toolbox(), "list_files", json!({"glob": "*.py"})).await;
    assert!(!r.is_error);
    assert_eq!(r.content, "no files match the glob `*.py`");
    let r = call(&t.toolbox(), "list_files", json!({"glob": "a[b"})).await;
    assert!(
        r.is_error && r.content.contains("invalid glob"),
        "{}",
        r.content
    );
}

#[tokio::test]
async fn read_file_numbers_lines_and_honours_the_range() {
    let t = Tree::new();
    let tb = t.toolbox();
    let r = call(&tb, "read_file", json!({"path": "src/lib.rs"})).await;
    assert!(!r.is_error, "{}", r.content);
    assert_eq!(
        r.content,
        "src/lib.rs: lines 1-8 of 8\n1: //! Demo.\n2: pub fn add(a: u32, b: u32) -> u32 {\n3:     a + b\n4: }\n5: \n6: pub fn sub(a: u32, b: u32) -> u32 {\n7:     a - b\n8: }"
    );
    let r = call(
        &tb,
        "read_file",
        json!({"path": "./src/lib.rs", "start_line": 6, "end_line": 7}),
    )
    .await;
    assert_eq!(
        r.content,
        "src/lib.rs: lines 6-7 of 8\n6: pub fn sub(a: u32, b: u32) -> u32 {\n7:     a - b"
    );
    // end_line past the end is clamped; CRLF is stripped.
    let r = call(
        &tb,
        "read_file",
        json!({"path": "src/nested/util.rs", "start_line": 2, "end_line": 99}),
    )
    .await;
    assert_eq!(
        r.content,
        "src/nested/util.rs: lines 2-2 of 2\n2: // TODO: remove"
    );
}

#[tokio::test]
async fn read_file_range_and_lookup_errors() {
    let t = Tree::new();
    let tb = t.toolbox();
    for (args, needle) in [
        (
            json!({"path": "src/lib.rs", "start_line": 9}),
            "past the end",
        ),
        (
            json!({"path": "src/lib.rs", "start_line": 5, "end_line": 4}),
            "before start_line",
        ),
        (json!({"path": "src/lib.rs", "start_line": 0}), "minimum"),
        (json!({"path": "nope.rs"}), "path_not_found"),
        (json!({"path": "src"}), "path_not_a_file"),
        (json!({"path": ""}), "path_malformed"),
    ] {
        let r = call(&tb, "read_file", args.clone()).await;
        assert!(r.is_error, "{args}");
        assert!(r.content.contains(needle), "{args}: {}", r.content);
    }
}

#[tokio::test]
async fn escapes_are_refused_with_a_message_that_says_so() {
    let t = Tree::new();
    let tb = t.toolbox();
    let outside = t.dir.path().join("outside/secret.txt");
    for (path, code) in [
        ("../outside/secret.txt".to_string(), "path_parent"),
        ("src/../../outside/secret.txt".to_string(), "path_parent"),
        ("..\\outside\\secret.txt".to_string(), "path_parent"),
        ("%2e%2e/outside/secret.txt".to_string(), "path_parent"),
        ("%2E%2E%2Foutside%2Fsecret.txt".to_string(), "path_parent"),
        ("%252e%252e/outside/secret.txt".to_string(), "path_parent"),
        (outside.display().to_string(), "path_absolute"),
        ("/etc/passwd".to_string(), "path_absolute"),
    ] {
        let r = call(&tb, "read_file", json!({"path": path})).await;
        assert!(r.is_error, "{path}");
        assert!(
            r.content.starts_with(&format!("error: {code}: refused")),
            "{path}: {}",
            r.content
        );
        assert!(!r.content.contains("TOP SECRET"));
    }
}

#[cfg(unix)]
#[tokio::test]
async fn symlinks_out_of_the_root_are_refused_and_not_listed() {
    let t = Tree::new();
    let root = t.root();
    symlink(
        &t.dir.path().join("outside/secret.txt"),
        &root.join("secret.txt"),
    );
    symlink(&t.dir.path().join("outside"), &root.join("out_dir"));
    symlink(&root.join("src/lib.rs"), &root.join("lib_link.rs"));
    let tools = FileTools::new(&root).unwrap();
    assert_eq!(
        tools.resolve("secret.txt").unwrap_err().code(),
        ErrorCode::PathOutsideRoot
    );
    assert_eq!(
        tools.resolve("out_dir/secret.txt").unwrap_err().code(),
        ErrorCode::PathOutsideRoot
    );
    let tb = tools.into_toolbox();
    let r = call(&tb, "read_file", json!({"path": "secret.txt"})).await;
    assert!(r.is_error);
    assert!(
        r.content.starts_with("error: path_outside_root: refused"),
        "{}",
        r.content
    );
    // An in-root symlink is fine.
    let r = call(
        &tb,
        "read_file",
        json!({"path": "lib_link.rs", "end_line": 1}),
    )
    .await;
    assert!(!r.is_error, "{}", r.content);
    // Listing and grep neither show nor read what lies outside.
    let r = call(&tb, "list_files", json!({})).await;
    assert!(r.content.contains("lib_link.rs"));
    assert!(
        !r.content.contains("secret") && !r.content.contains("out_dir"),
        "{}",
        r.content
    );
    let r = call(&tb, "grep", json!({"pattern": "SECRET"})).await;
    assert!(r.content.starts_with("no matches"), "{}", r.content);
}

#[cfg(unix)]
#[test]
fn a_root_reached_through_a_symlink_works() {
    let t = Tree::new();
    let link = t.dir.path().join("root_link");
    symlink(&t.root(), &link);
    let tools = FileTools::new(&link).unwrap();
    assert!(tools.resolve("src/lib.rs").is_ok());
}

#[test]
fn a_missing_or_file_root_is_an_error() {
    let t = Tree::new();
    let e = FileTools::new(t.dir.path().join("missing")).unwrap_err();
    assert_eq!(e.code(), ErrorCode::RootInvalid);
    let e = FileTools::new(t.root().join("README.md")).unwrap_err();
    assert_eq!(e.code(), ErrorCode::RootInvalid);
}

#[tokio::test]
async fn binary_files_are_refused_and_skipped_by_grep() {
    let t = Tree::new();
    let tb = t.toolbox();
    for path in ["logo.png", "latin1.txt"] {
        let r = call(&tb, "read_file", json!({"path": path})).await;
        assert!(r.is_error);
        assert!(
            r.content.starts_with("error: file_binary: refused"),
            "{}",
            r.content
        );
    }
    let r = call(&tb, "grep", json!({"pattern": "PNG|IHDR|caf"})).await;
    assert!(!r.is_error);
    assert_eq!(
        r.content,
        "no matches for /PNG|IHDR|caf/ in 3 files (2 binary or unreadable files skipped)"
    );
}

#[tokio::test]
async fn grep_reports_path_line_text() {
    let t = Tree::new();
    let tb = t.toolbox();
    let r = call(&tb, "grep", json!({"pattern": r"pub fn \w+\("})).await;
    assert!(!r.is_error, "{}", r.content);
    assert_eq!(
        r.content,
        "src/lib.rs:2: pub fn add(a: u32, b: u32) -> u32 {\nsrc/lib.rs:6: pub fn sub(a: u32, b: u32) -> u32 {\nsrc/nested/util.rs:1: pub fn unused() {}"
    );
    let r = call(
        &tb,
        "grep",
        json!({"pattern": "(?i)todo|demo", "glob": "src/**"}),
    )
    .await;
    assert_eq!(
        r.content,
        "src/lib.rs:1: //! Demo.\nsrc/nested/util.rs:2: // TODO: remove"
    );
    let r = call(&tb, "grep", json!({"pattern": "("})).await;
    assert!(
        r.is_error && r.content.contains("invalid regex"),
        "{}",
        r.content
    );
}

#[tokio::test]
async fn every_output_is_capped_with_a_visible_marker() {
    let t = Tree::new();
    let root = t.root();
    let long: String = (1..=5000).map(|i| format!("line {i} needle\n")).collect();
    fs::write(root.join("big.txt"), &long).unwrap();
    for i in 0..3000 {
        fs::write(root.join(format!("src/nested/f{i:04}.txt")), "x\n").unwrap();
    }
    let tb = FileTools::new(&root).unwrap().into_toolbox();

    let r = call(&tb, "read_file", json!({"path": "big.txt"})).await;
    assert!(!r.is_error);
    let (body, marker) = r.content.rsplit_once('\n').unwrap();
    assert!(body.len() <= 16 * 1024, "{}", body.len());
    assert!(body.ends_with("needle"));
    let last_shown: usize = body
        .lines()
        .last()
        .unwrap()
        .split(':')
        .next()
        .unwrap()
        .trim()
        .parse()
        .unwrap();
    assert_eq!(
        marker,
        format!(
            "[truncated: {} more lines not shown; call read_file with start_line {} to continue; output is capped at 16384 bytes]",
            5000 - last_shown,
            last_shown + 1
        )
    );

    let r = call(&tb, "grep", json!({"pattern": "needle"})).await;
    let (body, marker) = r.content.rsplit_once('\n').unwrap();
    assert!(body.len() <= 16 * 1024);
    assert!(
        marker.starts_with("[truncated: ") && marker.contains("more matching lines not shown"),
        "{marker}"
    );

    let r = call(&tb, "list_files", json!({})).await;
    let (body, marker) = r.content.rsplit_once('\n').unwrap();
    assert!(body.len() <= 16 * 1024);
    assert!(
        marker.starts_with("[truncated: ") && marker.contains("more files not shown"),
        "{marker}"
    );

    // A smaller cap is honoured too.
    let tb = FileTools::new(&root)
        .unwrap()
        .with_max_output_bytes(100)
        .into_toolbox();
    let r = call(&tb, "read_file", json!({"path": "big.txt"})).await;
    let (body, _) = r.content.rsplit_once('\n').unwrap();
    assert!(body.len() <= 100, "{body}");
}

#[tokio::test]
async fn a_very_long_line_is_cut_so_paging_moves_on() {
    let t = Tree::new();
    let root = t.root();
    fs::write(
        root.join("min.js"),
        format!("{}\nsecond\n", "x".repeat(100_000)),
    )
    .unwrap();
    let tb = t.toolbox();
    let r = call(&tb, "read_file", json!({"path": "min.js"})).await;
    assert!(!r.is_error);
    assert!(
        r.content.contains("[line cut at 2000 characters]"),
        "{}",
        &r.content[..100]
    );
    assert!(r.content.ends_with("2: second"));
}

#[test]
fn tools_are_advertised_with_their_schemas() {
    let t = Tree::new();
    let specs = t.toolbox().specs();
    let names: Vec<&str> = specs.iter().map(|s| s.name.as_str()).collect();
    assert_eq!(names, ["list_files", "read_file", "grep"]);
    assert_eq!(specs[1].parameters["required"], json!(["path"]));
    assert_eq!(specs[2].parameters["required"], json!(["pattern"]));
}

/// An example path is read_file's example, in its description and as the
/// `examples` value the runtime's nudge writes a call from; the other
/// tools are unchanged.
#[test]
fn an_example_path_is_shown_as_read_files_example() {
    let t = Tree::new();
    let plain = t.toolbox().specs();
    let specs = FileTools::new(t.root())
        .unwrap()
        .with_example_path("src/lib.rs")
        .into_toolbox()
        .specs();
    let path = &specs[1].parameters["properties"]["path"];
    assert_eq!(path["examples"], json!(["src/lib.rs"]));
    assert_eq!(
        path["description"],
        "Path relative to the root, e.g. `src/lib.rs`."
    );
    assert!(
        plain[1].parameters["properties"]["path"]
            .get("examples")
            .is_none()
    );
    assert_eq!(specs[0], plain[0]);
    assert_eq!(specs[2], plain[2]);
    let nudge = tribunal_runtime::internal::nudge::tool_first_message(&specs);
    assert!(
        nudge.contains("call read_file with the arguments {\"path\":\"src/lib.rs\"}"),
        "{nudge}"
    );
}
