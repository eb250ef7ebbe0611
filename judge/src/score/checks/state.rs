//! The state checks: what a run left in its world (its own copy of the
//! arena's folder) — a JSON file's value at a pointer (`file_json`), a
//! file's text (`file_contains`). A path that leaves the world (`..`, an
//! absolute path, a symlink out) fails the check; nothing outside is read.

use super::values_equal;
use serde_json::Value;
use std::path::{Component, Path, PathBuf};
use tribunal_runtime::internal::text::one_line;

/// The largest file a state check reads: 4 MiB.
const MAX_STATE_FILE_BYTES: u64 = 4 * 1024 * 1024;

/// `file_json`: the JSON file `path` holds `expected` at `pointer`.
pub(super) fn file_json(
    world: Option<&Path>,
    path: &str,
    pointer: &str,
    expected: &Value,
) -> (bool, String) {
    let text = match read(world, path) {
        Ok(text) => text,
        Err(why) => return (false, why),
    };
    let value: Value = match serde_json::from_str(&text) {
        Ok(v) => v,
        Err(e) => return (false, format!("{path} is not JSON: {e}")),
    };
    match value.pointer(pointer) {
        Some(actual) if values_equal(actual, expected, None) => {
            (true, format!("{path} {pointer} is {expected}"))
        }
        Some(actual) => (
            false,
            format!(
                "{path} {pointer} is {}, expected {expected}",
                one_line(&actual.to_string(), 120)
            ),
        ),
        None => (false, format!("{path} has nothing at {pointer}")),
    }
}

/// `file_contains`: the file `path` contains `needle`, ignoring case
/// (`absent`: does not).
pub(super) fn file_contains(
    world: Option<&Path>,
    path: &str,
    needle: &str,
    absent: bool,
) -> (bool, String) {
    let text = match read(world, path) {
        Ok(text) => text,
        Err(why) => return (false, why),
    };
    let found = text.to_lowercase().contains(&needle.to_lowercase());
    let said = match found {
        true => format!("{path} contains {needle:?}"),
        false => format!("{path} does not contain {needle:?}"),
    };
    (found != absent, said)
}

/// The text of `path` inside `world`, or why it cannot be read.
fn read(world: Option<&Path>, path: &str) -> Result<String, String> {
    let Some(world) = world else {
        return Err("the run has no world folder to check".to_string());
    };
    let file = inside(world, path)?;
    let meta = std::fs::metadata(&file).map_err(|e| format!("{path}: {e}"))?;
    if meta.len() > MAX_STATE_FILE_BYTES {
        return Err(format!("{path} is over {MAX_STATE_FILE_BYTES} bytes"));
    }
    std::fs::read_to_string(&file).map_err(|e| format!("{path}: {e}"))
}

/// Whether `path` names a file inside a world: not empty, relative, no `..`.
pub fn world_path(path: &str) -> bool {
    !path.is_empty()
        && Path::new(path)
            .components()
            .all(|c| matches!(c, Component::Normal(_) | Component::CurDir))
}

/// `path` resolved inside `world`: relative, no `..`, and (symlinks
/// followed) still under the world's folder.
fn inside(world: &Path, path: &str) -> Result<PathBuf, String> {
    let relative = Path::new(path);
    if !world_path(path) {
        return Err(format!("{path:?} is not a path inside the world"));
    }
    let root = world
        .canonicalize()
        .map_err(|e| format!("the world folder: {e}"))?;
    let file = root
        .join(relative)
        .canonicalize()
        .map_err(|e| format!("{path}: {e}"))?;
    if !file.starts_with(&root) {
        return Err(format!("{path} leads outside the world"));
    }
    Ok(file)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn state_checks_read_the_world_and_nothing_outside_it() {
        let dir = tempfile::tempdir().unwrap();
        let world = dir.path().join("world");
        std::fs::create_dir(&world).unwrap();
        std::fs::write(
            world.join("orders.json"),
            r#"{"orders": [{"id": "A1", "status": "refunded"}]}"#,
        )
        .unwrap();
        std::fs::write(dir.path().join("secret.txt"), "outside").unwrap();
        let w = Some(world.as_path());
        assert!(file_json(w, "orders.json", "/orders/0/status", &json!("refunded")).0);
        // Exact, as `json_path_equals` is without leniency asked by name.
        assert!(!file_json(w, "orders.json", "/orders/0/status", &json!("Refunded")).0);
        assert!(!file_json(w, "orders.json", "/orders/0/status", &json!("delivered")).0);
        assert!(!file_json(w, "orders.json", "/orders/9", &json!(1)).0);
        assert!(file_contains(w, "orders.json", "a1", false).0);
        assert!(file_contains(w, "orders.json", "B7", true).0);
        assert!(!file_contains(w, "../secret.txt", "outside", false).0);
        assert!(!file_contains(w, "/etc/hostname", "x", true).0);
        assert!(!file_contains(None, "orders.json", "a1", false).0);
        #[cfg(unix)]
        {
            std::os::unix::fs::symlink(dir.path().join("secret.txt"), world.join("link")).unwrap();
            let (ok, why) = file_contains(w, "link", "outside", false);
            assert!(!ok && why.contains("outside the world"), "{why}");
        }
    }
}
