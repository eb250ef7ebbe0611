//! `write_file` and `apply_patch` on a temporary tree: files written and
//! patched inside the root, every escape (`..`, absolute, percent forms,
//! a symlinked folder or file pointing out) refused with its code and
//! nothing outside the root changed, a patch that does not match refused
//! with the file left as it was.

use std::fs;
use std::path::{Path, PathBuf};

use serde_json::json;
use tempfile::TempDir;
use tribunal_runtime::ToolBox;
use tribunal_tools::{APPLY_PATCH, WRITE_FILE, WriteTools};

use crate::call;

/// `root/` is the tools' root; `outside/` sits next to it.
struct Tree {
    dir: TempDir,
}

impl Tree {
    fn new() -> Tree {
        let dir = tempfile::tempdir().unwrap();
        fs::create_dir_all(dir.path().join("root/src")).unwrap();
        fs::create_dir_all(dir.path().join("outside")).unwrap();
        fs::write(
            dir.path().join("root/src/calc.py"),
            "def add(a, b):\n    return a - b\n\n\ndef sub(a, b):\n    return a - b\n",
        )
        .unwrap();
        fs::write(dir.path().join("outside/secret.txt"), "untouched\n").unwrap();
        Tree { dir }
    }

    fn root(&self) -> PathBuf {
        self.dir.path().join("root")
    }

    fn outside(&self) -> PathBuf {
        self.dir.path().join("outside")
    }

    fn toolbox(&self) -> ToolBox {
        let mut toolbox = ToolBox::new();
        WriteTools::new(self.root()).unwrap().add_to(&mut toolbox);
        toolbox
    }

    /// Every file under `outside/`, with its text.
    fn outside_files(&self) -> Vec<(String, String)> {
        let mut files: Vec<_> = fs::read_dir(self.outside())
            .unwrap()
            .map(|e| {
                let e = e.unwrap();
                let text = fs::read_to_string(e.path()).unwrap_or_default();
                (e.file_name().to_string_lossy().into_owned(), text)
            })
            .collect();
        files.sort();
        files
    }
}

#[tokio::test]
async fn write_file_creates_and_replaces_files_and_their_folders() {
    let t = Tree::new();
    let tools = t.toolbox();
    let r = call(
        &tools,
        WRITE_FILE,
        json!({"path": "src/calc.py", "content": "def add(a, b):\n    return a + b\n"}),
    )
    .await;
    assert!(!r.is_error, "{}", r.content);
    assert_eq!(r.content, "wrote `src/calc.py`: 2 lines, 32 bytes");
    assert_eq!(
        fs::read_to_string(t.root().join("src/calc.py")).unwrap(),
        "def add(a, b):\n    return a + b\n"
    );
    let r = call(
        &tools,
        WRITE_FILE,
        json!({"path": "./tests/deep/test_new.py", "content": "x = 1\n"}),
    )
    .await;
    assert!(!r.is_error, "{}", r.content);
    assert_eq!(
        fs::read_to_string(t.root().join("tests/deep/test_new.py")).unwrap(),
        "x = 1\n"
    );
    // No temporary file is left beside the ones written.
    let names: Vec<_> = fs::read_dir(t.root().join("src"))
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .collect();
    assert_eq!(names, ["calc.py"]);
}

#[tokio::test]
async fn escapes_are_refused_with_their_codes_and_nothing_outside_changes() {
    let t = Tree::new();
    let tools = t.toolbox();
    let before = t.outside_files();
    for (path, code) in [
        ("../outside/secret.txt", "path_parent"),
        ("../outside/new.txt", "path_parent"),
        ("src/../../outside/new.txt", "path_parent"),
        ("%2e%2e/outside/new.txt", "path_parent"),
        ("/tmp/tribunal-write-test.txt", "path_absolute"),
        ("", "path_malformed"),
        ("src", "path_not_a_file"),
    ] {
        for (tool, args) in [
            (WRITE_FILE, json!({"path": path, "content": "pwned\n"})),
            (
                APPLY_PATCH,
                json!({"path": path, "patch": "@@ -1 +1 @@\n-untouched\n+pwned\n"}),
            ),
        ] {
            let r = call(&tools, tool, args).await;
            assert!(r.is_error, "{tool} {path}: {}", r.content);
            assert!(
                r.content.contains(code),
                "{tool} {path}: expected {code}, got {}",
                r.content
            );
        }
    }
    assert!(!Path::new("/tmp/tribunal-write-test.txt").exists());
    assert_eq!(t.outside_files(), before);
}

#[cfg(unix)]
#[tokio::test]
async fn symlinks_out_of_the_root_are_never_written_through() {
    let t = Tree::new();
    let link = |target: &Path, at: &str| {
        std::os::unix::fs::symlink(target, t.root().join(at)).unwrap();
    };
    link(&t.outside(), "out_dir");
    link(&t.outside().join("secret.txt"), "secret_link.txt");
    let tools = t.toolbox();
    let before = t.outside_files();
    // A folder linked out of the root: refused, nothing made there.
    for path in ["out_dir/new.txt", "out_dir/secret.txt", "out_dir/a/b.txt"] {
        let r = call(
            &tools,
            WRITE_FILE,
            json!({"path": path, "content": "pwned\n"}),
        )
        .await;
        assert!(
            r.is_error && r.content.contains("path_outside_root"),
            "{path}: {}",
            r.content
        );
    }
    // A file linked out of the root: apply_patch cannot read it, write_file
    // replaces the link itself, never the file it points to.
    let r = call(
        &tools,
        APPLY_PATCH,
        json!({"path": "secret_link.txt", "patch": "@@ -1 +1 @@\n-untouched\n+pwned\n"}),
    )
    .await;
    assert!(
        r.is_error && r.content.contains("path_outside_root"),
        "{}",
        r.content
    );
    let r = call(
        &tools,
        WRITE_FILE,
        json!({"path": "secret_link.txt", "content": "mine\n"}),
    )
    .await;
    assert!(!r.is_error, "{}", r.content);
    let meta = fs::symlink_metadata(t.root().join("secret_link.txt")).unwrap();
    assert!(
        meta.is_file(),
        "the link was replaced by a file of the root"
    );
    assert_eq!(t.outside_files(), before);
}

#[tokio::test]
async fn apply_patch_applies_a_unified_diff_and_refuses_one_that_does_not_match() {
    let t = Tree::new();
    let tools = t.toolbox();
    let patch = "--- a/src/calc.py\n+++ b/src/calc.py\n@@ -1,2 +1,2 @@\n def add(a, b):\n-    return a - b\n+    return a + b\n";
    let r = call(
        &tools,
        APPLY_PATCH,
        json!({"path": "src/calc.py", "patch": patch}),
    )
    .await;
    assert!(!r.is_error, "{}", r.content);
    assert_eq!(
        r.content,
        "patched `src/calc.py`: 1 hunk(s) applied, now 6 lines"
    );
    let fixed = "def add(a, b):\n    return a + b\n\n\ndef sub(a, b):\n    return a - b\n";
    assert_eq!(
        fs::read_to_string(t.root().join("src/calc.py")).unwrap(),
        fixed
    );
    // The same patch again: its `-` line is gone, so it does not apply.
    let r = call(
        &tools,
        APPLY_PATCH,
        json!({"path": "src/calc.py", "patch": patch}),
    )
    .await;
    assert!(
        r.is_error && r.content.contains("patch_does_not_apply"),
        "{}",
        r.content
    );
    for bad in ["not a diff at all", "--- a/x\n+++ b/x\n"] {
        let r = call(
            &tools,
            APPLY_PATCH,
            json!({"path": "src/calc.py", "patch": bad}),
        )
        .await;
        assert!(
            r.is_error && r.content.contains("patch_invalid"),
            "{bad}: {}",
            r.content
        );
    }
    let r = call(
        &tools,
        APPLY_PATCH,
        json!({"path": "src/missing.py", "patch": patch}),
    )
    .await;
    assert!(
        r.is_error && r.content.contains("path_not_found"),
        "{}",
        r.content
    );
    assert_eq!(
        fs::read_to_string(t.root().join("src/calc.py")).unwrap(),
        fixed
    );
}

#[cfg(unix)]
#[tokio::test]
async fn a_patched_file_keeps_its_permissions_and_the_hook_sees_every_write() {
    use std::os::unix::fs::PermissionsExt;
    let t = Tree::new();
    let script = t.root().join("run.sh");
    fs::write(&script, "#!/bin/sh\nexit 1\n").unwrap();
    fs::set_permissions(&script, fs::Permissions::from_mode(0o755)).unwrap();
    let seen = std::sync::Arc::new(std::sync::Mutex::new(Vec::new()));
    let seen2 = seen.clone();
    let mut tools = ToolBox::new();
    WriteTools::new(t.root())
        .unwrap()
        .with_after_write(move |p| {
            seen2.lock().unwrap().push(p.is_dir());
            Ok(())
        })
        .add_to(&mut tools);
    let r = call(
        &tools,
        APPLY_PATCH,
        json!({"path": "run.sh", "patch": "@@ -2 +2 @@\n-exit 1\n+exit 0\n"}),
    )
    .await;
    assert!(!r.is_error, "{}", r.content);
    let mode = fs::metadata(&script).unwrap().permissions().mode();
    assert_eq!(mode & 0o777, 0o755);
    let r = call(
        &tools,
        WRITE_FILE,
        json!({"path": "new/a.txt", "content": "a"}),
    )
    .await;
    assert!(!r.is_error, "{}", r.content);
    // The patched file; then the folder made, then the file written.
    assert_eq!(*seen.lock().unwrap(), [false, true, false]);
}
