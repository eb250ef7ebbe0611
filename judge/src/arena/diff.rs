//! What a diff changes, as far as the file tools can see: the first file
//! it leaves in place, shown to a reviewer as `read_file`'s example
//! (`[verdict] example_path_from`, `tribunal review`).

use tribunal_tools::FileTools;

/// The first file `diff` leaves in place (`+++ b/PATH`, not a deletion)
/// that `files` can read: the example path a reviewer is shown
/// ([`FileTools::with_example_path`]), so the call it copies reads a file
/// the change touches.
pub fn first_changed_file(diff: &str, files: &FileTools) -> Option<String> {
    diff.lines()
        .filter_map(|line| line.strip_prefix("+++ "))
        .map(|path| path.strip_prefix("b/").unwrap_or(path).trim_end())
        .filter(|path| *path != "/dev/null")
        .find(|path| files.resolve(path).is_ok_and(|p| p.is_file()))
        .map(str::to_string)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_example_path_is_the_first_file_the_diff_leaves_that_exists() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir(dir.path().join("src")).unwrap();
        std::fs::write(dir.path().join("src/kept.py"), "x\n").unwrap();
        let files = FileTools::new(dir.path()).unwrap();
        let diff = "--- a/gone.py\n+++ /dev/null\n@@ -1 +0,0 @@\n-x\n\
                    --- a/missing.py\n+++ b/missing.py\n@@ -1 +1 @@\n-x\n+y\n\
                    --- a/src/kept.py\n+++ b/src/kept.py\n@@ -1 +1 @@\n-w\n+x\n";
        assert_eq!(
            first_changed_file(diff, &files).as_deref(),
            Some("src/kept.py")
        );
        assert_eq!(first_changed_file("+++ b/../outside\n", &files), None);
    }
}
