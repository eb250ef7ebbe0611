//! Modules import one way: no module reaches, through its paths, a module
//! that reaches it back. Checked at every level of a crate: its top-level
//! modules, and the files and subfolders inside each folder module (the
//! siblings `a` and `b` inside `backend/`: an edge b → a when `b.rs` or a
//! file under `b/` names `super::a`, `crate::backend::a`, or an item that
//! `backend/mod.rs` re-exports from `a`). Read from the source: comments,
//! doc links and unit tests (`#[cfg(test)] mod tests`, `tests.rs`) do not
//! count, so a cycle fails `cargo test` where it is written.
//!
//! Checked for the runtime, the tools, the judge and the CLI (`src/cli/`,
//! its `github/` folder).

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

type Graph = BTreeMap<String, BTreeSet<String>>;

/// One source file of a crate: its module path (`["backend", "codec"]`;
/// empty for the crate root) and its code (see [`code_of`]).
struct File {
    module: Vec<String>,
    code: String,
}

/// Every source file under `src` with its module path, unit tests left out.
fn files(src: &Path) -> Vec<File> {
    let mut paths = Vec::new();
    collect_rs(src, &mut paths);
    let mut out = Vec::new();
    for path in paths {
        let Ok(rel) = path.strip_prefix(src) else {
            continue;
        };
        let mut module: Vec<String> = rel
            .components()
            .filter_map(|c| c.as_os_str().to_str())
            .map(|c| c.strip_suffix(".rs").unwrap_or(c).to_string())
            .collect();
        if module.last().is_some_and(|m| m == "tests") {
            continue;
        }
        if module.last().is_some_and(|m| m == "mod")
            || (module.len() == 1 && matches!(module[0].as_str(), "lib" | "main"))
        {
            module.pop();
        }
        let text = std::fs::read_to_string(&path).unwrap();
        out.push(File {
            module,
            code: code_of(&text),
        });
    }
    out
}

/// The folder modules of a crate: every module path that has a child.
fn folders(files: &[File]) -> BTreeSet<Vec<String>> {
    files
        .iter()
        .filter(|f| !f.module.is_empty())
        .map(|f| f.module[..f.module.len() - 1].to_vec())
        .collect()
}

/// The graph of the modules directly inside `folder` (`[]`: the crate's
/// top level): an edge `b -> a` when a file in or under child `b` names
/// child `a` (or an item the folder re-exports from `a`). The folder's own
/// module (`mod.rs`, `folder.rs`; `lib.rs` at the top) is no node: it is
/// the face of its children, and naming its own items is no edge.
fn folder_graph(files: &[File], folder: &[String]) -> Graph {
    let depth = folder.len();
    let mut graph = Graph::new();
    for f in files {
        if f.module.len() > depth && f.module.starts_with(folder) {
            graph.entry(f.module[depth].clone()).or_default();
        }
    }
    let children: BTreeSet<String> = graph.keys().cloned().collect();
    let own = files.iter().find(|f| f.module == folder);
    let reexports = own.map_or_else(BTreeMap::new, |f| reexports(&f.code, &children));
    // A child, or the child a name the folder re-exports comes from.
    let target = |name: &str| -> Option<String> {
        if children.contains(name) {
            Some(name.to_string())
        } else {
            reexports.get(name).cloned()
        }
    };
    for f in files {
        if f.module.len() <= depth || !f.module.starts_with(folder) {
            continue;
        }
        let from = f.module[depth].clone();
        for path in paths_of(&f.module, &f.code) {
            if path.len() > depth
                && path.starts_with(folder)
                && let Some(to) = target(&path[depth])
                && to != from
            {
                graph.entry(from.clone()).or_default().insert(to);
            }
        }
    }
    let targets: BTreeSet<String> = graph.values().flatten().cloned().collect();
    for t in targets {
        graph.entry(t).or_default();
    }
    graph
}

/// The top-level module graph of the crate at `src`.
fn module_graph(src: &Path) -> Graph {
    folder_graph(&files(src), &[])
}

/// The names a module file re-exports (`pub use a::{B, c::D};`), each with
/// the child module it comes from: naming `B` is an edge to `a`.
fn reexports(code: &str, children: &BTreeSet<String>) -> BTreeMap<String, String> {
    let mut out = BTreeMap::new();
    for statement in use_statements(code) {
        let mut words = statement
            .split(|c: char| !(c.is_alphanumeric() || c == '_'))
            .filter(|w| !w.is_empty())
            .skip_while(|w| matches!(*w, "self" | "crate"));
        let Some(module) = words.next().filter(|m| children.contains(*m)) else {
            continue;
        };
        for name in words.filter(|w| !matches!(*w, "self" | "as" | "crate")) {
            out.insert(name.to_string(), module.to_string());
        }
    }
    out
}

/// The paths of every re-export in `code` (`pub use …;`,
/// `pub(crate) use …;`), without their `pub … use`.
fn use_statements(code: &str) -> Vec<&str> {
    let mut out = Vec::new();
    for prefix in ["pub use ", "pub(crate) use ", "pub(super) use "] {
        for (at, _) in code.match_indices(prefix) {
            let rest = &code[at + prefix.len()..];
            out.push(rest.split(';').next().unwrap_or(""));
        }
    }
    out
}

/// Every module path `code` (the file of `module`) names through `crate::`,
/// `super::` or `self::`, resolved from the crate root: in `backend/codec.rs`
/// `super::delta::Delta` is `["backend", "delta", "Delta"]`, and
/// `crate::{a::b, c}` gives `["a", "b"]` and `["c"]`.
fn paths_of(module: &[String], code: &str) -> Vec<Vec<String>> {
    let bytes = code.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while i < code.len() {
        let starts_word = i == 0 || {
            let b = bytes[i - 1];
            !(b.is_ascii_alphanumeric() || b == b'_' || b == b':')
        };
        let rest = &code[i..];
        let base: Option<(Vec<String>, usize)> = if !starts_word {
            None
        } else if rest.starts_with("crate::") {
            Some((Vec::new(), "crate::".len()))
        } else if rest.starts_with("self::") {
            Some((module.to_vec(), "self::".len()))
        } else if rest.starts_with("super::") {
            let mut up = 0;
            let mut len = 0;
            while rest[len..].starts_with("super::") {
                up += 1;
                len += "super::".len();
            }
            (up <= module.len()).then(|| (module[..module.len() - up].to_vec(), len))
        } else {
            None
        };
        match base {
            Some((base, len)) => {
                for tail in use_tree(&rest[len..]) {
                    let mut path = base.clone();
                    path.extend(tail);
                    out.push(path);
                }
                i += len;
            }
            None => i += rest.chars().next().map_or(1, char::len_utf8),
        }
    }
    out
}

/// The paths of a use tree or path at the start of `text`: `a::b::C` gives
/// `[a, b, C]`, `{a::b, c::{D, E}}` gives `[a, b]`, `[c, D]`, `[c, E]`.
fn use_tree(text: &str) -> Vec<Vec<String>> {
    let text = text.trim_start();
    if let Some(group) = text.strip_prefix('{') {
        let mut out = Vec::new();
        let mut depth = 0;
        let mut item_start = 0;
        for (i, c) in group.char_indices() {
            match c {
                '{' => depth += 1,
                '}' | ',' if depth == 0 => {
                    let item = group[item_start..i].trim();
                    if !item.is_empty() {
                        out.extend(use_tree(item));
                    }
                    if c == '}' {
                        break;
                    }
                    item_start = i + 1;
                }
                '}' => depth -= 1,
                _ => {}
            }
        }
        return out;
    }
    let ident: String = text
        .chars()
        .take_while(|c| c.is_alphanumeric() || *c == '_')
        .collect();
    if ident.is_empty() {
        return Vec::new();
    }
    match text[ident.len()..].strip_prefix("::") {
        Some(rest) => {
            let tails = use_tree(rest);
            if tails.is_empty() {
                vec![vec![ident]]
            } else {
                tails
                    .into_iter()
                    .map(|mut tail| {
                        tail.insert(0, ident.clone());
                        tail
                    })
                    .collect()
            }
        }
        None => vec![vec![ident]],
    }
}

fn collect_rs(dir: &Path, out: &mut Vec<PathBuf>) {
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

/// The `src` folder of the crate in folder `krate` (`""`: the root
/// package, the facade and the CLI).
fn src(krate: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join(krate)
        .join("src")
}

/// The cycles of every folder of the crate at `src` (its top level
/// included), each named by its folder (`backend/`, `crate root`).
fn cycles_in_folders(src: &Path) -> String {
    let files = files(src);
    let mut out = String::new();
    let mut all = folders(&files);
    all.insert(Vec::new());
    for folder in &all {
        let graph = folder_graph(&files, folder);
        let found = cycles(&graph);
        if !found.is_empty() {
            let name = if folder.is_empty() {
                "the crate root".to_string()
            } else {
                format!("{}/", folder.join("/"))
            };
            out.push_str(&format!("in {name}: {}", describe(&graph, &found)));
        }
    }
    out
}

/// Fails, naming each cycle and its folder, when the files of a folder of
/// the crate at `src` import in a circle; `whose` names the crate.
fn assert_folders_one_way(src: &Path, whose: &str) {
    let found = cycles_in_folders(src);
    assert!(
        found.is_empty(),
        "{whose} folders import in a circle:\n{found}"
    );
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

/// Inside every folder of the runtime too: the files of `backend/`, of
/// `backend/stream/`, of `schema/`, … import one way.
#[test]
fn the_runtime_folders_import_one_way() {
    let src = src("runtime");
    let backend = folder_graph(&files(&src), &["backend".to_string()]);
    assert!(
        backend.get("http").is_some_and(|to| to.contains("codec")),
        "the graph of backend/ is read (http -> codec): {backend:?}"
    );
    assert_folders_one_way(&src, "the runtime's");
}

#[test]
fn the_judge_folders_import_one_way() {
    assert_folders_one_way(&src("judge"), "the judge's");
}

#[test]
fn the_tools_modules_import_one_way() {
    assert_one_way("tools", "search", "corpus");
    assert_folders_one_way(&src("tools"), "the tools'");
}

/// The CLI: the files of `src/cli/` (a file per subcommand, the pieces they
/// share) and of its `github/` folder import one way.
#[test]
fn the_cli_modules_import_one_way() {
    let src = src("");
    let files = files(&src);
    let cli = folder_graph(&files, &["cli".to_string()]);
    assert!(
        cli.get("merge")
            .is_some_and(|to| to.contains("report_opts")),
        "the graph of cli/ is read (merge -> report_opts): {cli:?}"
    );
    assert!(
        folders(&files).contains(&vec!["cli".to_string(), "github".to_string()]),
        "cli/github/ is a folder of the graph"
    );
    assert_folders_one_way(&src, "the CLI's");
}

/// The files of the runtime's `backend/` in layers: the vocabulary (kinds,
/// settings, timeouts, deltas) at the bottom, the codecs above it, the
/// HTTP transport above the codecs, and `connect` (config.rs), which
/// assembles a backend from settings, at the top. Each file imports only
/// files of a lower layer. The trait, the request and the error are
/// `backend/mod.rs`'s own, under every layer.
#[test]
fn the_backend_imports_follow_its_layers() {
    const LAYERS: &[&[&str]] = &[
        // Vocabulary.
        &["timeouts", "delta", "kind", "prompt_cache", "scripted"],
        &["setting_spec"],
        &["settings"],
        &["refused_sampling", "options"],
        &["provider"],
        // Codecs: pure functions of a request and an answer.
        &["wire", "runaway"],
        &["openai_wire", "stream"],
        &["codec"],
        &["openai_chat", "openai_responses", "anthropic"],
        // Transport.
        &["http"],
        &["batch"],
        // Wrappers: they know only the trait.
        &["retry", "record"],
        &["replay"],
        &["cache"],
        // Assembly.
        &["config"],
    ];
    let graph = folder_graph(&files(&src("runtime")), &["backend".to_string()]);
    let wrong = against_layers(&graph, LAYERS);
    assert!(
        wrong.is_empty(),
        "backend/ imports against its layers: {}",
        wrong.join("; ")
    );
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

/// Inside a folder: `super::` paths at any depth, `crate::f::` paths and
/// names the folder re-exports; the folder's own items are no node.
#[test]
fn a_cycle_inside_a_folder_is_found() {
    let dir = tempfile::tempdir().unwrap();
    let src = dir.path();
    std::fs::create_dir_all(src.join("f/deep")).unwrap();
    let write = |path: &str, text: &str| std::fs::write(src.join(path), text).unwrap();
    write("lib.rs", "mod f;\n");
    write(
        "f/mod.rs",
        "mod low;\nmod mid;\nmod top;\nmod deep;\npub use mid::{Mid, Other as O};\n\
         pub struct Own(low::L);\n",
    );
    write("f/low.rs", "pub struct L;\n/// [`super::top`]\nfn g() {}\n");
    // The re-exported name `Mid` is mid; `Own` is the folder's own.
    write(
        "f/top.rs",
        "use super::{Mid, Own};\nuse crate::f::low::L;\n",
    );
    write("f/mid.rs", "pub struct Mid(super::low::L);\n");
    // `super::super::top` is f's top; `super::sibling` is inside deep/.
    write("f/deep/mod.rs", "mod leaf;\nmod sibling;\n");
    write(
        "f/deep/leaf.rs",
        "use super::super::top;\nuse super::sibling;\n",
    );
    write("f/deep/sibling.rs", "");
    let files = files(src);
    let graph = folder_graph(&files, &["f".to_string()]);
    assert_eq!(graph["top"], BTreeSet::from(["low".into(), "mid".into()]));
    assert_eq!(graph["mid"], BTreeSet::from(["low".into()]));
    assert!(graph["low"].is_empty(), "a doc link is no edge");
    assert_eq!(graph["deep"], BTreeSet::from(["top".into()]));
    let deep = folder_graph(&files, &["f".to_string(), "deep".to_string()]);
    assert_eq!(deep["leaf"], BTreeSet::from(["sibling".into()]));
    assert!(cycles_in_folders(src).is_empty());
    // low reaches top, which reaches low.
    write("f/low.rs", "pub struct L;\nfn g() { super::top::h() }\n");
    let found = cycle_in(src, "f/", 3);
    assert!(found.contains("  low -> top\n"), "{found}");
    // Through a re-export, from a subfolder: sibling -> leaf -> sibling.
    write("f/low.rs", "pub struct L;\n");
    write(
        "f/deep/sibling.rs",
        "fn g() { crate::f::deep::leaf::h() }\n",
    );
    cycle_in(src, "f/deep/", 2);
}

/// The cycles of the folders of the crate at `src`, which must begin with
/// one of `size` modules inside `folder` (`f/deep/`).
fn cycle_in(src: &Path, folder: &str, size: usize) -> String {
    let found = cycles_in_folders(src);
    let head = format!("in {folder}: cycle of {size}:\n");
    assert!(found.starts_with(&head), "{found}");
    found
}

/// The root package's layout: `lib.rs` (the facade) and `main.rs` (the
/// binary) both at the top, the CLI's files in `cli/` and `cli/github/`; a
/// cycle in either folder is found, named by its folder.
#[test]
fn a_cycle_in_the_cli_is_found() {
    let dir = tempfile::tempdir().unwrap();
    let src = dir.path();
    std::fs::create_dir_all(src.join("cli/github")).unwrap();
    let write = |path: &str, text: &str| std::fs::write(src.join(path), text).unwrap();
    write("lib.rs", "pub use tribunal_judge as judge;\n");
    write("main.rs", "mod cli;\nfn main() { cli::dispatch() }\n");
    write(
        "cli/mod.rs",
        "mod github;\nmod report;\nmod report_opts;\nmod run;\n",
    );
    write("cli/run.rs", "use super::report_opts::ReportOpts;\n");
    write(
        "cli/report.rs",
        "use super::report_opts::{ReportOpts, emit};\n",
    );
    write("cli/report_opts.rs", "pub(crate) struct ReportOpts;\n");
    write("cli/github/mod.rs", "mod api;\nmod comment;\n");
    write("cli/github/api.rs", "pub(crate) fn get() {}\n");
    write("cli/github/comment.rs", "fn post() { super::api::get() }\n");
    assert!(cycles_in_folders(src).is_empty());
    // The report writer calls back into the `report` command's file.
    write(
        "cli/report_opts.rs",
        "pub(crate) struct ReportOpts;\nfn emit() { super::report::emit_html() }\n",
    );
    let found = cycle_in(src, "cli/", 2);
    assert!(found.contains("  report_opts -> report\n"), "{found}");
    write("cli/report_opts.rs", "pub(crate) struct ReportOpts;\n");
    write(
        "cli/github/api.rs",
        "fn get() { crate::cli::github::comment::post() }\n",
    );
    cycle_in(src, "cli/github/", 2);
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
        &["verdict", "gold_check"],
        &["snapshot", "internal"],
    ];
    let graph = module_graph(&src("judge"));
    let wrong = against_layers(&graph, LAYERS);
    assert!(
        wrong.is_empty(),
        "imports against the flow: {}",
        wrong.join("; ")
    );
}

/// The runtime's I/O-free core — the machine and what it decides with —
/// names no I/O: no async runtime, no HTTP client, no file, socket, process
/// or environment, and reaches the rest of the runtime only for the few
/// plain types the machine hands to the driver (the request it asks to
/// send, the error and the tool execution it is handed back). What a crate
/// of its own (a `tribunal-proto`, as quinn-proto is to quinn) would hold,
/// checked here without one (ARCHITECTURE.md, "The machine does no I/O").
#[test]
fn the_io_free_core_names_no_io() {
    const CORE: &[&str] = &[
        "machine",
        "conversation",
        "dialogue",
        "schema",
        "json",
        "output",
        "snapshot",
        // What those import.
        "answer",
        "approval",
        "budget",
        "contract",
        "cost",
        "error",
        "nudge",
        "report",
        "seen_calls",
        "seen_results",
        "text_calls",
        "text",
    ];
    /// The types of other modules the core names: the request the machine
    /// asks the driver to send and the outcomes the driver hands back.
    const HANDED_OVER: &[(&str, &str)] = &[
        ("backend", "BackendError"),
        ("backend", "BackendErrorKind"),
        ("backend", "ModelRequest"),
        ("backend", "OutputFormat"),
        ("backend", "Stage"),
        ("tool", "ToolExecution"),
    ];
    const IO: &[&str] = &[
        "tokio::",
        "reqwest::",
        "async_openai::",
        "eventsource_stream::",
        "std::fs",
        "std::net",
        "std::process",
        "std::env",
        "std::io::stdin",
    ];
    let mut wrong = BTreeSet::new();
    let mut handed_seen = BTreeSet::new();
    for file in files(&src("runtime")) {
        let Some(module) = file.module.first() else {
            continue;
        };
        if !CORE.contains(&module.as_str()) {
            continue;
        }
        let name = file.module.join("/");
        for io in IO {
            if file.code.contains(io) {
                wrong.insert(format!("{name} names {io}"));
            }
        }
        for path in paths_of(&file.module, &file.code) {
            let (Some(to), item) = (path.first(), path.get(1)) else {
                continue;
            };
            let handed = item.is_some_and(|i| HANDED_OVER.contains(&(to.as_str(), i.as_str())));
            if handed {
                handed_seen.insert(path.join("::"));
            }
            if !CORE.contains(&to.as_str()) && !handed {
                wrong.insert(format!("{name} -> {}", path.join("::")));
            }
        }
    }
    assert!(
        handed_seen.contains("backend::ModelRequest"),
        "the core's paths are read: {handed_seen:?}"
    );
    assert!(
        wrong.is_empty(),
        "the I/O-free core reaches out: {wrong:#?}"
    );
}

/// The edges of `graph` that do not point to a lower layer of `layers`
/// (listed bottom first), and the modules that are in none.
fn against_layers(graph: &Graph, layers: &[&[&str]]) -> Vec<String> {
    let layer = |m: &str| layers.iter().position(|l| l.contains(&m));
    let mut wrong = Vec::new();
    for (from, to) in graph {
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
    wrong
}
