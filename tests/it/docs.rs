//! The docs' reference sections are made from the code's own lists, so
//! they cannot drift from what the program accepts, and every relative link
//! of README.md and docs/*.md leads somewhere. (That every command in their
//! ```sh blocks parses is checked beside the command line's definition:
//! `src/cli/doc_commands.rs`.)

use std::path::{Path, PathBuf};
use tribunal::judge::CheckKind;

/// The checks reference, which holds the check table.
const CHECKS: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/docs/checks.md");

const START: &str =
    "<!-- check-table start: CheckKind::markdown_table(), kept current by a test -->\n";
const END: &str = "<!-- check-table end -->";

#[test]
fn the_docs_check_table_is_the_check_kind_list() {
    let readme = std::fs::read_to_string(CHECKS).unwrap();
    let start = readme.find(START).expect("the check-table start marker") + START.len();
    let end = readme[start..]
        .find(END)
        .expect("the check-table end marker")
        + start;
    let expected = CheckKind::markdown_table();
    assert!(
        readme[start..end] == expected,
        "docs/checks.md's check table is out of date; between the markers it must read:\n{expected}"
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

/// Every code block of README.md and docs/*.md under a `<!-- region: FILE
/// NAME -->` marker is that region of a file `cargo test` compiles and runs
/// (the embedding examples), so the docs' embedding code cannot drift from
/// working code.
#[test]
fn the_docs_embedding_code_is_the_compiled_examples() {
    let mut seen = Vec::new();
    for doc in doc_files() {
        seen.extend(regions_of(&doc));
    }
    seen.sort();
    assert_eq!(
        seen,
        [
            "README.md: examples/embed.rs agent",
            "docs/embedding.md: examples/embed.rs agent",
            "docs/embedding.md: examples/embed.rs stream",
            "docs/embedding.md: examples/embed.rs typed",
            "docs/embedding.md: examples/mcp.rs mcp"
        ]
    );
}

/// The `FILE NAME` regions `doc` shows, each checked against its file.
fn regions_of(doc: &Path) -> Vec<String> {
    let readme = std::fs::read_to_string(doc).unwrap();
    let label = doc.strip_prefix(ROOT).unwrap_or(doc).display().to_string();
    let mut seen = Vec::new();
    for (i, _) in readme.match_indices("<!-- region: ") {
        let marker_end = readme[i..].find(" -->").unwrap() + i;
        let (file, name) = readme[i + 13..marker_end].split_once(' ').unwrap();
        let block_start = readme[marker_end..].find("```rust,ignore\n").unwrap() + marker_end + 15;
        let block_end = readme[block_start..].find("```\n").unwrap() + block_start;
        assert_eq!(
            &readme[block_start..block_end],
            region(file, name),
            "{label}'s block for {file} [{name}] is out of date"
        );
        seen.push(format!("{label}: {file} {name}"));
    }
    seen
}

const ROOT: &str = env!("CARGO_MANIFEST_DIR");

/// README.md and every docs/*.md guide.
fn doc_files() -> Vec<PathBuf> {
    let root = Path::new(ROOT);
    let mut docs: Vec<PathBuf> = std::fs::read_dir(root.join("docs"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "md"))
        .collect();
    docs.sort();
    docs.insert(0, root.join("README.md"));
    docs
}

/// The text of `markdown` outside fenced blocks.
fn prose(markdown: &str) -> String {
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
}

/// The anchors GitHub gives the headings of `markdown`: lowercased,
/// punctuation but `-` and `_` dropped, blanks as `-`, a repeated one
/// numbered (`-1`, `-2`).
fn anchors(markdown: &str) -> Vec<String> {
    let (mut out, mut bases) = (Vec::new(), Vec::new());
    for line in prose(markdown).lines() {
        let Some(title) = line.strip_prefix('#') else {
            continue;
        };
        let title = title.trim_start_matches('#').trim();
        let slug: String = title
            .to_lowercase()
            .chars()
            .filter(|c| c.is_alphanumeric() || matches!(c, ' ' | '-' | '_'))
            .map(|c| if c == ' ' { '-' } else { c })
            .collect();
        let n = bases.iter().filter(|b| **b == slug).count();
        out.push(if n == 0 {
            slug.clone()
        } else {
            format!("{slug}-{n}")
        });
        bases.push(slug);
    }
    out
}

/// The targets of the inline links and images of `markdown` (outside
/// fenced blocks and code spans).
fn link_targets(markdown: &str) -> Vec<String> {
    let text: String = prose(markdown)
        .split('`')
        .step_by(2)
        .collect::<Vec<_>>()
        .join("");
    text.match_indices("](")
        .filter_map(|(i, _)| {
            let rest = &text[i + 2..];
            rest.find(')').map(|end| rest[..end].to_string())
        })
        .collect()
}

/// Every relative link of README.md and docs/*.md names a file or folder
/// that exists, and an anchor (`file.md#heading`, `#heading`) names a
/// heading of that file: moving a section cannot strand its readers.
#[test]
fn every_relative_link_of_the_docs_leads_somewhere() {
    let (mut checked, mut broken) = (0, Vec::new());
    for doc in doc_files() {
        let text = std::fs::read_to_string(&doc).unwrap();
        let label = doc.strip_prefix(ROOT).unwrap_or(&doc).display().to_string();
        for target in link_targets(&text) {
            if target.contains("://") || target.starts_with("mailto:") {
                continue;
            }
            checked += 1;
            let (path, anchor) = target.split_once('#').unwrap_or((&target, ""));
            let file = match path {
                "" => doc.clone(),
                p => doc.parent().unwrap().join(p),
            };
            if !file.exists() {
                broken.push(format!("{label}: {target}: no such file"));
                continue;
            }
            if !anchor.is_empty() && file.extension().is_some_and(|e| e == "md") {
                let headings = anchors(&std::fs::read_to_string(&file).unwrap());
                if !headings.iter().any(|h| h == anchor) {
                    broken.push(format!("{label}: {target}: no such heading"));
                }
            }
        }
    }
    assert!(checked > 20, "only {checked} links found");
    assert!(broken.is_empty(), "{}", broken.join("\n"));
}

#[test]
fn anchors_are_github_s() {
    assert_eq!(
        anchors(
            "# A\n## Snapshot regression: catch `cargo test`\n### The gate (GitHub Actions)\n## A\n"
        ),
        [
            "a",
            "snapshot-regression-catch-cargo-test",
            "the-gate-github-actions",
            "a-1"
        ]
    );
}

/// Every guide in docs/ opens by saying what its reader will have at the
/// end, and README.md stays a front door.
#[test]
fn each_guide_says_what_its_reader_will_have_and_the_readme_stays_short() {
    for doc in doc_files().iter().skip(1) {
        let text = std::fs::read_to_string(doc).unwrap();
        let opening = text.lines().skip(1).find(|l| !l.trim().is_empty());
        assert!(
            opening.is_some_and(|l| l.starts_with("**At the end**")),
            "{}: open with **At the end** …, what the reader will have",
            doc.display()
        );
    }
    let readme = std::fs::read_to_string(Path::new(ROOT).join("README.md")).unwrap();
    let lines = readme.lines().count();
    assert!(lines <= 250, "README.md is {lines} lines; at most 250");
    let first_block = readme
        .split("```sh\n")
        .nth(1)
        .and_then(|b| b.split("```").next());
    let commands: Vec<&str> = first_block
        .unwrap_or("")
        .lines()
        .map(|l| l.split('#').next().unwrap_or("").trim())
        .collect();
    assert_eq!(
        commands,
        [
            "cargo run --release -- run arenas/structured_output",
            "cargo test --workspace"
        ],
        "README.md must open with the two commands"
    );
    assert!(
        !readme
            .split("## ")
            .next()
            .unwrap_or("")
            .contains("TRIBUNAL_SKIP_BROWSER"),
        "the browser paragraph belongs in docs/contributing.md"
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
    prose(markdown)
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

/// The guide that holds the backend settings table.
const LIVE_MODELS: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/docs/live-models.md");

const SETTINGS_START: &str =
    "<!-- backend-settings start: BackendSettings::SPECS, kept current by a test -->\n";
const SETTINGS_END: &str = "<!-- backend-settings end -->";

/// The backend settings as a Markdown table, made from their one
/// declaration.
fn backend_settings_table() -> String {
    use tribunal::runtime::internal::backend::{BackendSettings, Hashed, SettingKind};
    let mut table = String::from(
        "| `[backend]` key | flag | value | unset | config hash | rerun cache key | what it sets |\n|---|---|---|---|---|---|---|\n",
    );
    for spec in BackendSettings::SPECS {
        let flag = match spec.kind {
            SettingKind::Bool => format!("`--{0} BOOL`, `--no-{0}`", spec.flag()),
            _ => format!("`--{} {}`", spec.flag(), spec.value_name),
        };
        let value = match (spec.kind, spec.unit) {
            (SettingKind::Bool, _) => "true / false".to_string(),
            (SettingKind::Count { min }, Some(unit)) => format!("{unit}, at least {min}"),
            (SettingKind::Count { min }, None) => format!("a count, at least {min}"),
            (SettingKind::Integer, _) => "an integer".to_string(),
            (SettingKind::Number { min, max }, _) => format!("{min} to {max}"),
            (SettingKind::Seconds, _) => "seconds, above 0, at most a day".to_string(),
            (SettingKind::Choice { names, .. }, _) => names.join(" / "),
            (SettingKind::JsonObject, _) => "a JSON object".to_string(),
            (kind, _) => format!("{kind:?}"),
        };
        let hashed = match spec.hashed {
            Hashed::Always => "yes",
            Hashed::WhenSet => "when set",
            Hashed::Never => "no",
        };
        let cached = match (spec.cached, spec.planned) {
            (true, _) => "yes",
            (false, true) => "through the output plan",
            (false, false) => "no",
        };
        table.push_str(&format!(
            "| `{}` | {flag} | {value} | {} | {hashed} | {cached} | {} |\n",
            spec.name,
            spec.default,
            spec.help.trim_end_matches('.')
        ));
    }
    table
}

#[test]
fn the_docs_backend_settings_table_is_the_declaration() {
    let guide = std::fs::read_to_string(LIVE_MODELS).unwrap();
    let start = guide
        .find(SETTINGS_START)
        .expect("the backend-settings start marker")
        + SETTINGS_START.len();
    let end = guide[start..]
        .find(SETTINGS_END)
        .expect("the backend-settings end marker")
        + start;
    let expected = backend_settings_table();
    assert!(
        guide[start..end] == expected,
        "docs/live-models.md's backend settings table is out of date; between the markers it must read:\n{expected}"
    );
}
