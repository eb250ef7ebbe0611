//! The README's reference sections are made from the code's own lists, so
//! they cannot drift from what the program accepts.

use tribunal::judge::CheckKind;

const START: &str =
    "<!-- check-table start: CheckKind::markdown_table(), kept current by a test -->\n";
const END: &str = "<!-- check-table end -->";

#[test]
fn the_readme_check_table_is_the_check_kind_list() {
    let readme =
        std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/README.md")).unwrap();
    let start = readme.find(START).expect("the check-table start marker") + START.len();
    let end = readme[start..]
        .find(END)
        .expect("the check-table end marker")
        + start;
    let expected = CheckKind::markdown_table();
    assert!(
        readme[start..end] == expected,
        "README.md's check table is out of date; between the markers it must read:\n{expected}"
    );
}

/// The lines of `path` between `// [readme:NAME]` and `// [/readme:NAME]`,
/// without their common indentation.
fn region(path: &str, name: &str) -> String {
    let text = std::fs::read_to_string(format!("{}/{path}", env!("CARGO_MANIFEST_DIR"))).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    let at = |marker: String| {
        lines
            .iter()
            .position(|l| l.trim() == marker)
            .unwrap_or_else(|| panic!("{path}: no {marker}"))
    };
    let (start, end) = (
        at(format!("// [readme:{name}]")),
        at(format!("// [/readme:{name}]")),
    );
    let body = &lines[start + 1..end];
    let indent = body
        .iter()
        .filter(|l| !l.trim().is_empty())
        .map(|l| l.len() - l.trim_start().len())
        .min()
        .unwrap_or(0);
    body.iter()
        .map(|l| l.get(indent..).unwrap_or("").trim_end())
        .map(|l| format!("{l}\n"))
        .collect()
}

/// Every README code block under a `<!-- region: FILE NAME -->` marker is
/// that region of a file `cargo test` compiles and runs (the embedding
/// examples), so the README's embedding code cannot drift from working code.
#[test]
fn the_readme_embedding_code_is_the_compiled_examples() {
    let readme =
        std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/README.md")).unwrap();
    let mut seen = Vec::new();
    for (i, _) in readme.match_indices("<!-- region: ") {
        let marker_end = readme[i..].find(" -->").unwrap() + i;
        let (file, name) = readme[i + 13..marker_end].split_once(' ').unwrap();
        let block_start = readme[marker_end..].find("```rust,ignore\n").unwrap() + marker_end + 15;
        let block_end = readme[block_start..].find("```\n").unwrap() + block_start;
        assert_eq!(
            &readme[block_start..block_end],
            region(file, name),
            "README.md's block for {file} [{name}] is out of date"
        );
        seen.push(format!("{file} {name}"));
    }
    assert_eq!(
        seen,
        [
            "examples/embed.rs typed",
            "examples/embed.rs agent",
            "examples/embed.rs stream",
            "examples/mcp.rs mcp"
        ]
    );
}
