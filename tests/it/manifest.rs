//! The published crates' manifests, read through `cargo metadata`: the
//! crates.io fields, the test support kept out of them, and the MSRV.
//!
//! No older toolchain can be installed where CI runs (rustup reaches no
//! download server), so the MSRV (`rust-version`, 1.88) is not built with
//! that Rust. What is checked instead: every crate the published crates
//! build (normal and build dependencies, every platform, every feature the
//! workspace turns on) declares a `rust-version` no newer than ours; our
//! edition and our syntax (let-chains) fit it; and clippy's
//! `incompatible_msrv` (on in `cargo clippy`) refuses std APIs stabilised
//! after it. A dependency that declares no `rust-version` is not covered.

use std::collections::{BTreeSet, HashMap};
use std::path::Path;

use serde_json::Value;

/// The crates published to crates.io (`tribunal-testkit` is not).
const PUBLISHED: [&str; 4] = [
    "tribunal-runtime",
    "tribunal-tools",
    "tribunal-judge",
    "tribunal",
];

/// What `cargo ARGS` writes to stdout, run at the workspace's root; fails
/// the test when cargo fails.
fn cargo(args: &[&str]) -> Vec<u8> {
    let out = std::process::Command::new(env!("CARGO"))
        .args(args)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "cargo {}: {}",
        args.join(" "),
        String::from_utf8_lossy(&out.stderr)
    );
    out.stdout
}

fn metadata() -> Value {
    serde_json::from_slice(&cargo(&["metadata", "--format-version", "1", "--locked"])).unwrap()
}

/// `1.88`, `1.88.0` → (1, 88, 0).
fn version(text: &str) -> (u64, u64, u64) {
    let mut parts = text.split('.').map(|p| p.parse::<u64>().unwrap());
    (
        parts.next().unwrap(),
        parts.next().unwrap_or(0),
        parts.next().unwrap_or(0),
    )
}

fn str_of<'a>(package: &'a Value, field: &str) -> &'a str {
    package[field].as_str().unwrap_or("")
}

fn workspace_packages(meta: &Value) -> HashMap<String, &Value> {
    let members: BTreeSet<&str> = meta["workspace_members"]
        .as_array()
        .unwrap()
        .iter()
        .map(|id| id.as_str().unwrap())
        .collect();
    meta["packages"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|p| members.contains(str_of(p, "id")))
        .map(|p| (str_of(p, "name").to_string(), p))
        .collect()
}

#[test]
fn the_published_crates_carry_the_crates_io_fields() {
    let meta = metadata();
    let members = workspace_packages(&meta);
    for name in PUBLISHED {
        let p = members[name];
        for field in [
            "description",
            "license",
            "repository",
            "readme",
            "rust_version",
        ] {
            assert!(!str_of(p, field).is_empty(), "{name}: no `{field}`");
        }
        let keywords = p["keywords"].as_array().unwrap();
        assert!(
            (1..=5).contains(&keywords.len()),
            "{name}: crates.io takes 1 to 5 keywords"
        );
        assert!(
            !p["categories"].as_array().unwrap().is_empty(),
            "{name}: no categories"
        );
        assert!(
            p["metadata"]["docs"]["rs"]["features"].is_array(),
            "{name}: no [package.metadata.docs.rs] features"
        );
        assert!(p["publish"].is_null(), "{name}: must stay publishable");
        assert_eq!(
            str_of(p, "rust_version"),
            str_of(members["tribunal"], "rust_version"),
            "{name}: the workspace's rust-version"
        );
    }
    let testkit = members["tribunal-testkit"];
    assert_eq!(
        testkit["publish"],
        serde_json::json!([]),
        "testkit: publish = false"
    );
}

/// Each published package ships the texts of both licences its `license`
/// names (`MIT OR Apache-2.0`): the root's files, through each crate's
/// `include` (the crates' folders link to them).
#[test]
fn every_published_package_ships_both_licence_texts() {
    for name in PUBLISHED {
        let out = cargo(&["package", "--list", "--locked", "--allow-dirty", "-p", name]);
        let files = String::from_utf8_lossy(&out);
        assert!(files.lines().any(|f| f == "Cargo.toml"), "{name}: {files}");
        for licence in ["LICENSE-MIT", "LICENSE-APACHE"] {
            assert!(
                files.lines().any(|f| f == licence),
                "{name}: {licence} is not in its package (its `include`)"
            );
        }
    }
}

/// A dependency on an unpublished crate, or a crate's dependency on itself,
/// must be a path-only dev-dependency: cargo drops those from a packaged
/// manifest. With a `version` it stays, and `cargo package` looks it up on
/// crates.io ("no matching package named `tribunal-judge` found").
#[test]
fn test_support_stays_out_of_the_packaged_manifests() {
    let meta = metadata();
    let members = workspace_packages(&meta);
    for name in PUBLISHED {
        for dep in members[name]["dependencies"].as_array().unwrap() {
            let dep_name = str_of(dep, "name");
            if dep_name == "tribunal-testkit" || dep_name == name {
                assert_eq!(
                    (str_of(dep, "kind"), str_of(dep, "req")),
                    ("dev", "*"),
                    "{name}: `{dep_name}` must be a dev-dependency by path only (no version)"
                );
            }
        }
    }
}

#[test]
fn every_dependency_builds_with_our_rust_version() {
    let meta = metadata();
    let members = workspace_packages(&meta);
    let ours = str_of(members["tribunal"], "rust_version");
    let msrv = version(ours);

    // Edition 2024 is stable from 1.85; let-chains (`if let .. && let ..`) from 1.88.
    for p in members.values() {
        assert_eq!(str_of(p, "edition"), "2024");
    }
    assert!(msrv >= (1, 85, 0), "edition 2024 needs Rust 1.85");
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let chains = ["src", "runtime/src", "tools/src", "judge/src"]
        .iter()
        .flat_map(|dir| rust_files(&root.join(dir)))
        .find(|f| std::fs::read_to_string(f).unwrap().contains("&& let "));
    if let Some(file) = chains {
        assert!(
            msrv >= (1, 88, 0),
            "{} uses let-chains: Rust 1.88",
            file.display()
        );
    }

    // The crates the published ones build: normal and build edges, not dev.
    let packages: HashMap<&str, &Value> = meta["packages"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| (str_of(p, "id"), p))
        .collect();
    let nodes: HashMap<&str, &Value> = meta["resolve"]["nodes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|n| (str_of(n, "id"), n))
        .collect();
    let mut todo: Vec<&str> = PUBLISHED
        .iter()
        .map(|n| str_of(members[*n], "id"))
        .collect();
    let mut seen = BTreeSet::new();
    while let Some(id) = todo.pop() {
        if !seen.insert(id) {
            continue;
        }
        for dep in nodes[id]["deps"].as_array().unwrap() {
            let builds = dep["dep_kinds"]
                .as_array()
                .unwrap()
                .iter()
                .any(|k| k["kind"].is_null() || k["kind"] == "build");
            if builds {
                todo.push(str_of(dep, "pkg"));
            }
        }
    }
    let newer: Vec<String> = seen
        .iter()
        .map(|id| packages[id])
        .filter(|p| !str_of(p, "rust_version").is_empty())
        .filter(|p| version(str_of(p, "rust_version")) > msrv)
        .map(|p| {
            format!(
                "{} {} (rust-version {})",
                str_of(p, "name"),
                str_of(p, "version"),
                str_of(p, "rust_version")
            )
        })
        .collect();
    assert!(
        newer.is_empty(),
        "dependencies newer than our rust-version {ours} (raise it in a minor release, \
         CHANGELOG.md \"Versioning\", or pin them): {newer:#?}"
    );
    assert!(seen.len() > 100, "the walk found the dependency tree");
}

fn rust_files(dir: &Path) -> Vec<std::path::PathBuf> {
    let mut files = Vec::new();
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            files.extend(rust_files(&path));
        } else if path.extension().is_some_and(|e| e == "rs") {
            files.push(path);
        }
    }
    files
}

/// The newest release in CHANGELOG.md is the workspace's version: a version
/// bump comes with its changelog entry.
#[test]
fn the_changelog_names_the_version() {
    let text =
        std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/CHANGELOG.md")).unwrap();
    let newest = text
        .lines()
        .filter_map(|l| l.strip_prefix("## ["))
        .find(|l| !l.starts_with("Unreleased]"))
        .expect("a released version in CHANGELOG.md");
    assert!(
        newest.starts_with(&format!("{}] - ", env!("CARGO_PKG_VERSION"))),
        "CHANGELOG.md's newest release is `## [{newest}`, the workspace is {}",
        env!("CARGO_PKG_VERSION")
    );
    assert!(
        text.contains("## [Unreleased]"),
        "keep-a-changelog's Unreleased section"
    );
}
