//! The libraries' public API is their root's names (api/*.txt lists them,
//! `bash .ci/public-api/check` compares): modules are private, and what
//! tribunal's own crates share beyond the promise goes through one hidden
//! door, `internal`. Held here: no listed signature names a type through a
//! module path (a promised item that leaks an unpromised type), and no
//! library declares a public module but the door and its feature modules.

use std::path::Path;

/// Each library, its listing, and the public modules it may declare.
const LIBRARIES: [(&str, &str, &[&str]); 2] = [
    ("runtime", "tribunal_runtime", &["internal", "otel"]),
    ("judge", "tribunal_judge", &["internal", "snapshot"]),
];

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

#[test]
fn no_listed_item_names_a_type_through_a_private_module() {
    for (folder, krate, public_modules) in LIBRARIES {
        let listing = std::fs::read_to_string(root().join(format!("api/tribunal-{folder}.txt")))
            .expect("the API listing (bash .ci/public-api/check --bless writes it)");
        let prefix = format!("{krate}::");
        let mut leaks = Vec::new();
        for line in listing.lines() {
            for (at, _) in line.match_indices(&prefix) {
                let rest = &line[at + prefix.len()..];
                let segment: String = rest
                    .chars()
                    .take_while(|c| c.is_alphanumeric() || *c == '_')
                    .collect();
                let is_module_path = segment.starts_with(|c: char| c.is_ascii_lowercase())
                    && rest[segment.len()..].starts_with("::");
                if is_module_path && !public_modules.contains(&segment.as_str()) {
                    leaks.push(line.to_string());
                }
            }
        }
        assert!(
            leaks.is_empty(),
            "{krate}: promised items name types by module paths no embedder can write; \
             re-export the type at the root or hide the item:\n{}",
            leaks.join("\n")
        );
    }
}

#[test]
fn the_libraries_declare_no_public_module_but_their_door() {
    for (folder, krate, public_modules) in LIBRARIES {
        let lib = std::fs::read_to_string(root().join(folder).join("src/lib.rs")).unwrap();
        let declared: Vec<&str> = lib
            .lines()
            .filter_map(|line| line.trim().strip_prefix("pub mod "))
            .map(|rest| rest.trim_end_matches(';').trim_end_matches(" {"))
            .collect();
        for module in &declared {
            assert!(
                public_modules.contains(module),
                "{krate} declares `pub mod {module}`: the API is the root's names; \
                 make it private and re-export what embedders need"
            );
        }
        assert!(declared.contains(&"internal"), "{krate}: the door is gone");
    }
}

/// What users copy from never reaches through a door: the examples, the
/// guides and the README use the roots' names only.
#[test]
fn examples_and_guides_use_only_the_promised_names() {
    let mut files: Vec<_> = ["examples", "runtime/examples", "docs"]
        .iter()
        .flat_map(|dir| crate::stand_in::files_under(&root().join(dir)))
        .collect();
    files.push(root().join("README.md"));
    let door = [
        "runtime::internal::",
        "judge::internal::",
        "tribunal_runtime::internal",
        "tribunal_judge::internal",
    ];
    let through: Vec<String> = files
        .iter()
        .filter(|f| matches!(f.extension().and_then(|e| e.to_str()), Some("rs" | "md")))
        .filter(|f| {
            let text = std::fs::read_to_string(f).unwrap_or_default();
            door.iter().any(|d| text.contains(d))
        })
        .map(|f| f.display().to_string())
        .collect();
    assert!(
        through.is_empty(),
        "these name tribunal's internal door, which embedders must not copy: {through:?}"
    );
}
