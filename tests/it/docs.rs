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

const ARCHITECTURE: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/ARCHITECTURE.md");

/// ARCHITECTURE.md is a map a newcomer reads in one sitting, not an
/// inventory: history and figures go to the CHANGELOG and BENCHMARKS.md.
#[test]
fn the_architecture_map_fits_in_a_sitting() {
    let bytes = std::fs::metadata(ARCHITECTURE).unwrap().len();
    assert!(
        bytes <= 25_000,
        "ARCHITECTURE.md is {bytes} bytes; the map must stay at most 25,000"
    );
}

/// The spans between backticks of a Markdown text, fenced blocks left out.
fn code_spans(markdown: &str) -> Vec<String> {
    let mut prose = String::new();
    let mut fenced = false;
    for line in markdown.lines() {
        if line.trim_start().starts_with("```") {
            fenced = !fenced;
        } else if !fenced {
            prose.push_str(line);
            prose.push('\n');
        }
    }
    prose
        .split('`')
        .skip(1)
        .step_by(2)
        .map(str::to_string)
        .collect()
}

/// Every file or folder ARCHITECTURE.md names in backticks (`a/b.rs`,
/// `a/b/`) exists, and every test it names as `path.rs::function` is a
/// function of that file, so the map cannot go stale silently. Spans with
/// blanks or pattern characters (`<crate>/`, `*.rs`) are no paths.
#[test]
fn every_path_and_test_the_architecture_map_names_exists() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let text = std::fs::read_to_string(ARCHITECTURE).unwrap();
    const FILES: &[&str] = &[".rs", ".md", ".toml", ".yml", ".sh", ".json", ".jsonl"];
    let (mut paths, mut tests, mut missing) = (0, 0, Vec::new());
    for span in code_spans(&text) {
        if !span.contains('/')
            || span.contains("://")
            || span.contains(|c: char| c.is_whitespace() || "*?[]{}<>|".contains(c))
        {
            continue;
        }
        if let Some((file, function)) = span.split_once("::") {
            if !file.ends_with(".rs") {
                continue;
            }
            tests += 1;
            let source = std::fs::read_to_string(root.join(file)).unwrap_or_default();
            if !source.contains(&format!("fn {function}(")) {
                missing.push(span);
            }
        } else if span.ends_with('/') {
            paths += 1;
            if !root.join(&span).is_dir() {
                missing.push(span);
            }
        } else if FILES.iter().any(|ext| span.ends_with(ext)) {
            paths += 1;
            if !root.join(&span).is_file() {
                missing.push(span);
            }
        }
    }
    assert!(
        paths > 0 && tests > 0,
        "no paths or tests found in ARCHITECTURE.md"
    );
    assert!(
        missing.is_empty(),
        "ARCHITECTURE.md names what the repository does not hold:\n{}",
        missing.join("\n")
    );
}
