//! The top-level modules of a crate import one way: no module reaches,
//! through `crate::` paths, a module that reaches it back. Read from the
//! source (a `crate::a` path in `b.rs` or `b/…` is an edge b → a; comments,
//! doc links and `#[cfg(test)] mod tests` do not count), so a cycle fails
//! `cargo test` where it is written.
//!
//! Checked for the runtime and the judge.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

type Graph = BTreeMap<String, BTreeSet<String>>;

/// The `crate::` edges between the top-level modules of the crate whose
/// source folder is `src`.
fn module_graph(src: &Path) -> Graph {
    let mut files = Vec::new();
    collect_rs(src, &mut files);
    let top = |path: &Path| -> Option<String> {
        let first = path.strip_prefix(src).ok()?.components().next()?;
        let name = first.as_os_str().to_str()?;
        let name = name.strip_suffix(".rs").unwrap_or(name);
        (!matches!(name, "lib" | "main")).then(|| name.to_string())
    };
    let mut graph = Graph::new();
    for file in &files {
        if let Some(module) = top(file) {
            graph.entry(module).or_default();
        }
    }
    let modules: BTreeSet<String> = graph.keys().cloned().collect();
    let reexports = root_reexports(src, &modules);
    for file in &files {
        let Some(from) = top(file) else { continue };
        let text = std::fs::read_to_string(file).unwrap();
        for to in crate_paths(&code_of(&text)) {
            // `crate::Arena` is the module that `pub use arena::Arena`
            // at the root names.
            let to = match reexports.get(&to) {
                Some(module) if !modules.contains(&to) => module.clone(),
                _ => to,
            };
            if to != from && modules.contains(&to) {
                graph.get_mut(&from).unwrap().insert(to);
            }
        }
    }
    graph
}

/// The names the crate root re-exports (`pub use a::{B, c::D};` at the
/// root), each with the top-level module it comes from: a `crate::B` path
/// is an edge to `a`.
fn root_reexports(src: &Path, modules: &BTreeSet<String>) -> BTreeMap<String, String> {
    let mut out = BTreeMap::new();
    let Ok(root) = std::fs::read_to_string(src.join("lib.rs")) else {
        return out;
    };
    let code = code_of(&root);
    for (at, _) in code.match_indices("pub use ") {
        let statement = code[at + "pub use ".len()..]
            .split(';')
            .next()
            .unwrap_or("");
        let mut words = statement
            .split(|c: char| !(c.is_alphanumeric() || c == '_'))
            .filter(|w| !w.is_empty());
        let Some(module) = words.next().filter(|m| modules.contains(*m)) else {
            continue;
        };
        for name in words.filter(|w| !matches!(*w, "self" | "as" | "crate")) {
            out.insert(name.to_string(), module.to_string());
        }
    }
    out
}

fn collect_rs(dir: &Path, out: &mut Vec<std::path::PathBuf>) {
    let mut entries: Vec<_> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    entries.sort();
    for path in entries {
        if path.is_dir() {
            collect_rs(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

/// The code of a source file: without its unit-test module and comments.
fn code_of(text: &str) -> String {
    let text = text
        .find("#[cfg(test)]\nmod tests")
        .map_or(text, |at| &text[..at]);
    text.lines()
        .filter(|line| !line.trim_start().starts_with("//"))
        .map(|line| line.split(" //").next().unwrap_or(line))
        .collect::<Vec<_>>()
        .join("\n")
}

/// The first segment of every `crate::` path in `code`: `crate::a::b` and
/// `crate::{a::b, c}` give `a` (and `c`).
fn crate_paths(code: &str) -> Vec<String> {
    let ident = |s: &str| -> String {
        s.chars()
            .take_while(|c| c.is_alphanumeric() || *c == '_')
            .collect()
    };
    let mut out = Vec::new();
    for (at, _) in code.match_indices("crate::") {
        let rest = &code[at + "crate::".len()..];
        if let Some(group) = rest.strip_prefix('{') {
            // Top-level items of the group: split at commas outside braces.
            let mut depth = 0;
            let mut item_start = 0;
            for (i, c) in group.char_indices() {
                match c {
                    '{' => depth += 1,
                    '}' if depth == 0 => {
                        out.push(ident(group[item_start..i].trim_start()));
                        break;
                    }
                    '}' => depth -= 1,
                    ',' if depth == 0 => {
                        out.push(ident(group[item_start..i].trim_start()));
                        item_start = i + 1;
                    }
                    _ => {}
                }
            }
        } else {
            out.push(ident(rest));
        }
    }
    out.retain(|m| !m.is_empty());
    out
}

/// The graph's cycles: its strongly connected parts of more than one module.
fn cycles(graph: &Graph) -> Vec<BTreeSet<String>> {
    // Tarjan's algorithm; the graphs have a few dozen nodes.
    struct State<'g> {
        graph: &'g Graph,
        index: BTreeMap<&'g str, usize>,
        low: BTreeMap<&'g str, usize>,
        stack: Vec<&'g str>,
        found: Vec<BTreeSet<String>>,
    }
    fn visit<'g>(s: &mut State<'g>, v: &'g str) {
        let n = s.index.len();
        s.index.insert(v, n);
        s.low.insert(v, n);
        s.stack.push(v);
        for w in &s.graph[v] {
            let w = w.as_str();
            if !s.index.contains_key(w) {
                visit(s, w);
                let low = s.low[v].min(s.low[w]);
                s.low.insert(v, low);
            } else if s.stack.contains(&w) {
                let low = s.low[v].min(s.index[w]);
                s.low.insert(v, low);
            }
        }
        if s.low[v] == s.index[v] {
            let mut part = BTreeSet::new();
            while let Some(w) = s.stack.pop() {
                part.insert(w.to_string());
                if w == v {
                    break;
                }
            }
            if part.len() > 1 {
                s.found.push(part);
            }
        }
    }
    let mut state = State {
        graph,
        index: BTreeMap::new(),
        low: BTreeMap::new(),
        stack: Vec::new(),
        found: Vec::new(),
    };
    for v in graph.keys() {
        if !state.index.contains_key(v.as_str()) {
            visit(&mut state, v);
        }
    }
    state.found
}

/// Each cycle with the edges inside it, for the failure message.
fn describe(graph: &Graph, found: &[BTreeSet<String>]) -> String {
    let mut out = String::new();
    for part in found {
        out.push_str(&format!("cycle of {}:\n", part.len()));
        for from in part {
            let inside: Vec<&str> = graph[from]
                .iter()
                .filter(|t| part.contains(*t))
                .map(String::as_str)
                .collect();
            out.push_str(&format!("  {from} -> {}\n", inside.join(", ")));
        }
    }
    out
}

fn src(krate: &str) -> std::path::PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join(krate)
        .join("src")
}

/// Fails, naming each cycle's edges, when `krate`'s top-level modules
/// import in a circle; `module` and `imports` are one edge the graph must
/// have, so that a reader that finds nothing cannot pass.
fn assert_one_way(krate: &str, module: &str, imports: &str) {
    let graph = module_graph(&src(krate));
    assert!(
        graph.get(module).is_some_and(|to| to.contains(imports)),
        "{krate}: the graph is read ({module} -> {imports})"
    );
    let found = cycles(&graph);
    assert!(
        found.is_empty(),
        "{krate}: the top-level modules import in a circle:\n{}",
        describe(&graph, &found)
    );
}

#[test]
fn the_runtime_modules_import_one_way() {
    assert_one_way("runtime", "machine", "backend");
}

#[test]
fn the_judge_modules_import_one_way() {
    assert_one_way("judge", "run", "arena");
}

#[test]
fn a_cycle_written_into_a_crate_is_found() {
    let dir = tempfile::tempdir().unwrap();
    let src = dir.path();
    std::fs::create_dir(src.join("b")).unwrap();
    std::fs::write(
        src.join("lib.rs"),
        "mod a;\nmod b;\nmod c;\nmod d;\npub use c::{X, W as V};\n",
    )
    .unwrap();
    // Through the root's re-export: d -> c.
    std::fs::write(src.join("d.rs"), "fn f(_: crate::X, _: crate::V) {}\n").unwrap();
    std::fs::write(
        src.join("a.rs"),
        "use crate::{c::X, b::{Y, Z}};\n// crate::nothing\n",
    )
    .unwrap();
    std::fs::write(src.join("b/mod.rs"), "mod inner;\n").unwrap();
    std::fs::write(src.join("b/inner.rs"), "fn f() { crate::a::g() }\n").unwrap();
    std::fs::write(
        src.join("c.rs"),
        "/// [`crate::a`]\npub struct X;\n#[cfg(test)]\nmod tests {\n    use crate::a;\n}\n",
    )
    .unwrap();
    let graph = module_graph(src);
    assert_eq!(graph["a"], BTreeSet::from(["b".into(), "c".into()]));
    assert!(graph["c"].is_empty(), "doc links and tests are no edges");
    assert_eq!(graph["d"], BTreeSet::from(["c".into()]));
    assert_eq!(
        cycles(&graph),
        vec![BTreeSet::from(["a".to_string(), "b".to_string()])]
    );
}

/// The judge's folders follow its data: an arena is loaded, run, scored
/// into rows, and reported. Each top-level module imports only modules of
/// a lower layer (the vocabulary imports only itself).
#[test]
fn the_judge_imports_follow_its_flow() {
    const LAYERS: &[&[&str]] = &[
        &["problem", "green_red"],
        &["error"],
        &["shard"],
        &["score"],
        &["rows"],
        &["pricing"],
        &["arena"],
        &["run"],
        &["report", "runner"],
        &["verdict"],
        &["snapshot"],
    ];
    let layer = |m: &str| LAYERS.iter().position(|l| l.contains(&m));
    let graph = module_graph(&src("judge"));
    let mut wrong = Vec::new();
    for (from, to) in &graph {
        let Some(from_layer) = layer(from) else {
            wrong.push(format!("{from} is in no layer: place it"));
            continue;
        };
        for t in to {
            if layer(t).is_none_or(|l| l >= from_layer) {
                wrong.push(format!("{from} -> {t}"));
            }
        }
    }
    assert!(
        wrong.is_empty(),
        "imports against the flow: {}",
        wrong.join("; ")
    );
}
