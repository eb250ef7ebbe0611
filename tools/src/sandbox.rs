//! [`Sandbox`]: the root directory the file tools may read, and the checks
//! that keep every path inside it.
//!
//! A path from a model is refused when it (or its percent-decoded form, so
//! `%2e%2e` counts as `..`) is empty, contains a NUL byte, is absolute (also
//! `\…` and `C:…`), or has a `..` component (with `/` or `\` separators).
//! What remains is joined to the root and canonicalised, which resolves
//! symlinks; the result must still lie under the canonical root.
//!
//! **Invariant:** no file outside the root is ever opened or listed; walks do
//! not follow directory symlinks, and file symlinks are listed only when
//! their target is inside the root.

use std::io::ErrorKind;
use std::path::{Path, PathBuf};

use crate::error::{ErrorCode, FileToolsError, PathError};

/// Largest file the tools will read, in bytes (8 MiB).
pub const MAX_FILE_BYTES: u64 = 8 * 1024 * 1024;
/// Most directory entries one walk visits.
pub(crate) const MAX_WALK_ENTRIES: usize = 100_000;
/// Directories a walk skips.
const SKIPPED_DIRS: &[&str] = &[".git"];

/// A canonical root directory and the path checks against it.
#[derive(Debug, Clone)]
pub(crate) struct Sandbox {
    root: PathBuf,
}

/// The files found by [`Sandbox::walk`].
#[derive(Debug, Default)]
pub(crate) struct Walk {
    /// Paths relative to the root, `/`-separated, sorted.
    pub(crate) files: Vec<String>,
    /// Whether the walk stopped at [`MAX_WALK_ENTRIES`].
    pub(crate) truncated: bool,
}

impl Sandbox {
    /// A sandbox rooted at `root`, which must be an existing directory: the
    /// root the file tools, reading or writing, check every path against.
    pub(crate) fn at(root: &Path) -> Result<Self, FileToolsError> {
        let canonical = root
            .canonicalize()
            .map_err(|source| FileToolsError::RootUnreadable {
                path: root.to_path_buf(),
                source,
            })?;
        if !canonical.is_dir() {
            return Err(FileToolsError::RootNotADirectory {
                path: root.to_path_buf(),
            });
        }
        Ok(Sandbox { root: canonical })
    }

    /// The canonical root.
    pub(crate) fn root(&self) -> &Path {
        &self.root
    }

    /// Resolves a path given by a model to a canonical path inside the root,
    /// or says why not.
    pub(crate) fn resolve(&self, path: &str) -> Result<PathBuf, PathError> {
        check_lexically(path)?;
        let joined = self.root.join(path);
        let canonical = joined.canonicalize().map_err(|e| match e.kind() {
            ErrorKind::NotFound => PathError::new(
                ErrorCode::PathNotFound,
                format!("`{path}` does not exist; call list_files to see the files"),
            ),
            _ => PathError::new(
                ErrorCode::FileUnreadable,
                format!("cannot resolve `{path}`: {e}"),
            ),
        })?;
        if !canonical.starts_with(&self.root) {
            return Err(PathError::new(
                ErrorCode::PathOutsideRoot,
                format!(
                    "refused `{path}`: it resolves (through a symlink) to a location \
                     outside the root directory"
                ),
            ));
        }
        Ok(canonical)
    }

    /// All regular files under the root (plus file symlinks whose target is
    /// inside it), skipping `.git`.
    pub(crate) fn walk(&self) -> Walk {
        let mut walk = Walk::default();
        let mut visited = 0usize;
        let mut stack: Vec<(PathBuf, String)> = vec![(self.root.clone(), String::new())];
        while let Some((dir, rel)) = stack.pop() {
            let Ok(entries) = std::fs::read_dir(&dir) else {
                continue;
            };
            for entry in entries.flatten() {
                visited += 1;
                if visited > MAX_WALK_ENTRIES {
                    walk.truncated = true;
                    break;
                }
                let name = entry.file_name().to_string_lossy().into_owned();
                let child_rel = if rel.is_empty() {
                    name.clone()
                } else {
                    format!("{rel}/{name}")
                };
                let Ok(kind) = entry.file_type() else {
                    continue;
                };
                if kind.is_dir() {
                    if !SKIPPED_DIRS.contains(&name.as_str()) {
                        stack.push((entry.path(), child_rel));
                    }
                } else if kind.is_file() {
                    walk.files.push(child_rel);
                } else if kind.is_symlink() {
                    let inside_file = entry
                        .path()
                        .canonicalize()
                        .is_ok_and(|t| t.starts_with(&self.root) && t.is_file());
                    if inside_file {
                        walk.files.push(child_rel);
                    }
                }
            }
            if walk.truncated {
                break;
            }
        }
        walk.files.sort();
        walk
    }

    /// Reads a file as UTF-8 text; refuses binary and oversized files.
    /// `shown` is the path as the model gave it, for messages.
    pub(crate) fn read_text(&self, path: &Path, shown: &str) -> Result<String, PathError> {
        let meta = std::fs::metadata(path).map_err(|e| {
            PathError::new(
                ErrorCode::FileUnreadable,
                format!("cannot read `{shown}`: {e}"),
            )
        })?;
        if !meta.is_file() {
            return Err(PathError::new(
                ErrorCode::PathNotAFile,
                format!("`{shown}` is a directory, not a file; call list_files with a glob"),
            ));
        }
        if meta.len() > MAX_FILE_BYTES {
            return Err(PathError::new(
                ErrorCode::FileTooLarge,
                format!(
                    "`{shown}` is {} bytes, more than the {} bytes the tools read",
                    meta.len(),
                    MAX_FILE_BYTES
                ),
            ));
        }
        let bytes = std::fs::read(path).map_err(|e| {
            PathError::new(
                ErrorCode::FileUnreadable,
                format!("cannot read `{shown}`: {e}"),
            )
        })?;
        let binary = || {
            PathError::new(
                ErrorCode::FileBinary,
                format!("refused `{shown}`: it is a binary file, not text"),
            )
        };
        if bytes.contains(&0) {
            return Err(binary());
        }
        let mut text = String::from_utf8(bytes).map_err(|_| binary())?;
        if text.starts_with('\u{feff}') {
            text.drain(..'\u{feff}'.len_utf8());
        }
        Ok(text)
    }
}

/// The checks that need no file system: on the path as given and on each
/// percent-decoded form of it.
pub(crate) fn check_lexically(path: &str) -> Result<(), PathError> {
    if path.trim().is_empty() {
        return Err(PathError::new(
            ErrorCode::PathMalformed,
            "the path is empty; give a path relative to the root, e.g. `src/lib.rs`",
        ));
    }
    check_form(path, path, false)?;
    let mut form = path.to_string();
    // Decode repeatedly so that `%252e%252e` is caught too.
    for _ in 0..3 {
        let decoded = percent_decode(&form);
        if decoded == form {
            break;
        }
        check_form(path, &decoded, true)?;
        form = decoded;
    }
    Ok(())
}

fn check_form(original: &str, form: &str, decoded: bool) -> Result<(), PathError> {
    let how = if decoded {
        format!(" (it decodes to `{form}`)")
    } else {
        String::new()
    };
    if form.contains('\0') {
        return Err(PathError::new(
            ErrorCode::PathMalformed,
            format!("refused `{original}`{how}: the path contains a NUL byte"),
        ));
    }
    let bytes = form.as_bytes();
    let drive = bytes.len() >= 2 && bytes[0].is_ascii_alphabetic() && bytes[1] == b':';
    if form.starts_with(['/', '\\']) || drive || Path::new(form).is_absolute() {
        return Err(PathError::new(
            ErrorCode::PathAbsolute,
            format!(
                "refused `{original}`{how}: absolute paths are not allowed; \
                 give a path relative to the root, e.g. `src/lib.rs`"
            ),
        ));
    }
    if form.split(['/', '\\']).any(|c| c.trim() == "..") {
        return Err(PathError::new(
            ErrorCode::PathParent,
            format!(
                "refused `{original}`{how}: `..` would escape the root directory; \
                 paths are relative to the root and must stay inside it"
            ),
        ));
    }
    Ok(())
}

/// Decodes `%XX` escapes; invalid escapes are kept as they are.
fn percent_decode(s: &str) -> String {
    let bytes = s.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%' && i + 2 < bytes.len() {
            let hex = |b: u8| (b as char).to_digit(16);
            if let (Some(h), Some(l)) = (hex(bytes[i + 1]), hex(bytes[i + 2])) {
                out.push((h * 16 + l) as u8);
                i += 3;
                continue;
            }
        }
        out.push(bytes[i]);
        i += 1;
    }
    String::from_utf8_lossy(&out).into_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn code(path: &str) -> Option<&'static str> {
        check_lexically(path).err().map(|e| e.code().as_str())
    }

    #[test]
    fn lexical_refusals() {
        assert_eq!(code("src/lib.rs"), None);
        assert_eq!(code("./a/b.txt"), None);
        assert_eq!(code("a..b/c"), None);
        assert_eq!(code(""), Some("path_malformed"));
        assert_eq!(code("a\0b"), Some("path_malformed"));
        assert_eq!(code("../x"), Some("path_parent"));
        assert_eq!(code("a/../../x"), Some("path_parent"));
        assert_eq!(code("a\\..\\x"), Some("path_parent"));
        assert_eq!(code(".."), Some("path_parent"));
        assert_eq!(code("/etc/passwd"), Some("path_absolute"));
        assert_eq!(code("\\windows"), Some("path_absolute"));
        assert_eq!(code("C:/x"), Some("path_absolute"));
        assert_eq!(code("%2e%2e/x"), Some("path_parent"));
        assert_eq!(code("%2E%2E%2Fx"), Some("path_parent"));
        assert_eq!(code("a/%252e%252e/%252e%252e/x"), Some("path_parent"));
        assert_eq!(code("%2fetc%2fpasswd"), Some("path_absolute"));
        assert_eq!(code("a%20b.txt"), None);
        assert_eq!(code("100%"), None);
        assert_eq!(code("%zz"), None);
    }

    #[test]
    fn decode() {
        assert_eq!(percent_decode("%2e%2E/%41"), "../A");
        assert_eq!(percent_decode("50%"), "50%");
        assert_eq!(percent_decode("%4"), "%4");
    }
}
