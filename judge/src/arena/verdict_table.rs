//! A verdict arena: `arena.toml` declares a GREEN/RED review with
//!
//! ```toml
//! tools = ["files"]
//! files_root = "items"
//!
//! [verdict]
//! pass_schema = "schemas/green.json"   # the GREEN owner schema
//! fail_schema = "schemas/red.json"     # the RED owner schema
//! item_root = "items/{id}"             # optional: file tools rooted per item
//! example_path_from = "CHANGE.diff"     # optional: read_file's example is
//!                                       # the first file this diff changes
//! ```
//!
//! Every item's answer is then the verdict envelope; the stored answer is the
//! flat verdict, which `verdict_equals` and the owner-field checks read. With
//! `item_root`, each run of an item gets the file tools (`list_files`,
//! `read_file`, `grep`) rooted at that folder (`{id}` is the item id), so
//! every item is its own small code base and paths in findings are relative
//! to it; the arena-wide tools are then not offered to that run.

use super::{ARENA_TOML, DATASET};
use crate::arena::diff::first_changed_file;
use crate::arena::item::Item;
use crate::arena::toolset::file_tools;
use crate::problem::Problem;
use crate::score::envelope::VerdictSchemas;
use serde::Deserialize;
use serde_json::Value;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use tribunal_runtime::ToolBox;
use tribunal_tools::FileTools;

/// The `[verdict]` table of `arena.toml`.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct VerdictToml {
    /// The GREEN owner schema: a JSON file, relative to the arena folder.
    pub pass_schema: String,
    /// The RED owner schema: a JSON file, relative to the arena folder.
    pub fail_schema: String,
    /// The root of each item's file tools, relative to the arena folder,
    /// with `{id}` standing for the item id. Default: none (the arena's tools).
    #[serde(default)]
    pub item_root: Option<String>,
    /// A diff in each item's folder whose first changed file is shown as
    /// `read_file`'s example (and so in the nudge's example call), e.g.
    /// `CHANGE.diff`. Needs `item_root`. Default: none (a generic example).
    #[serde(default)]
    pub example_path_from: Option<String>,
}

/// The review of a verdict arena: its owner schemas and where each item's
/// code lives.
#[derive(Debug, Clone)]
pub struct VerdictArena {
    /// The GREEN and RED owner schemas; every item answers with their envelope.
    pub schemas: Arc<VerdictSchemas>,
    /// The per-item root of the file tools (`{id}` is the item id), relative
    /// to the arena folder. `None`: the arena's own tools.
    pub item_root: Option<String>,
    /// The diff in each item's folder whose first changed file is
    /// `read_file`'s example (`example_path_from`). Default: none.
    pub example_path_from: Option<String>,
}

impl VerdictArena {
    /// The folder of `item_id`'s file tools, when roots are per item.
    pub fn item_dir(&self, arena_dir: &Path, item_id: &str) -> Option<PathBuf> {
        self.item_root
            .as_ref()
            .map(|r| arena_dir.join(r.replace("{id}", item_id)))
    }

    /// The tools of one run of `item_id`: the file tools rooted at its
    /// folder, or `None` to use the arena's tools. A folder that vanished
    /// after loading gives an empty toolbox (the run's tool calls then fail
    /// as tool errors).
    pub fn toolbox_for(&self, arena_dir: &Path, item_id: &str) -> Option<Arc<ToolBox>> {
        let dir = self.item_dir(arena_dir, item_id)?;
        let mut toolbox = ToolBox::new();
        match FileTools::new(&dir) {
            Ok(files) => self.with_example(files).add_to(&mut toolbox),
            Err(e) => tracing::warn!(item = %item_id, "no file tools: {e}"),
        }
        Some(Arc::new(toolbox))
    }

    /// `files` with the first file of the item's `example_path_from` diff
    /// as read_file's example, when the arena names one and it has one.
    pub(crate) fn with_example(&self, files: FileTools) -> FileTools {
        match self.example_path(&files) {
            Ok(Some(path)) => files.with_example_path(path),
            _ => files,
        }
    }

    /// The first file the item's `example_path_from` diff (under `files`'
    /// root) changes: `None` when the arena names no diff; the reason when
    /// the diff cannot be read or changes no file that is there.
    fn example_path(&self, files: &FileTools) -> Result<Option<String>, String> {
        let Some(name) = &self.example_path_from else {
            return Ok(None);
        };
        let path = files.resolve(name).map_err(|e| format!("{name}: {e}"))?;
        let diff = std::fs::read_to_string(path).map_err(|e| format!("{name}: {e}"))?;
        match first_changed_file(&diff, files) {
            Some(changed) => Ok(Some(changed)),
            None => Err(format!(
                "{name} changes no file that is in the item's folder"
            )),
        }
    }

    /// Checks that every item's folder exists and lies inside the arena
    /// folder (lint): neither `item_root` (`../other/{id}`) nor an item id
    /// (`../../etc`) may point the file tools elsewhere.
    pub(crate) fn lint_items(&self, arena_dir: &Path, items: &[Item], problems: &mut Vec<Problem>) {
        for item in items {
            let Some(dir) = self.item_dir(arena_dir, &item.id) else {
                continue;
            };
            let checked = file_tools(&dir).and_then(|_| super::inside(arena_dir, &dir));
            if let Err(message) = checked {
                problems.push(Problem::at(
                    DATASET,
                    item.line,
                    format!("verdict.item_root: item {:?}: {message}", item.id),
                ));
                continue;
            }
            if let Some(message) = self.example_problem(&dir) {
                problems.push(Problem::at(
                    DATASET,
                    item.line,
                    format!("verdict.example_path_from: item {:?}: {message}", item.id),
                ));
            }
        }
    }

    /// Why the item folder `dir` gives no example path, when the arena
    /// asks for one: its diff is missing, or changes no file that is there.
    fn example_problem(&self, dir: &Path) -> Option<String> {
        let files = FileTools::new(dir).ok()?;
        self.example_path(&files).err()
    }
}

/// Loads the review of `table`; every problem goes to `problems`. `tools`
/// are the arena's tool names (`item_root` needs `files` among them, so the
/// mock scripts and `tool_used` checks are linted against the file tools).
pub(crate) fn load_verdict(
    dir: &Path,
    table: &VerdictToml,
    tools: &[String],
    problems: &mut Vec<Problem>,
) -> Option<VerdictArena> {
    if table.example_path_from.is_some() && table.item_root.is_none() {
        problems.push(Problem::file(
            ARENA_TOML,
            "verdict.example_path_from: needs verdict.item_root (the diff is read in each item's folder)",
        ));
    }
    if table.item_root.is_some() && !tools.iter().any(|t| t == "files" || t == "shell") {
        problems.push(Problem::file(
            ARENA_TOML,
            "verdict.item_root: needs tools = [\"files\"] (or [\"shell\"])",
        ));
    }
    let green = read_json(dir, "pass_schema", &table.pass_schema, problems);
    let red = read_json(dir, "fail_schema", &table.fail_schema, problems);
    let (green, red) = (green?, red?);
    match VerdictSchemas::new(green, red) {
        Ok(s) => Some(VerdictArena {
            schemas: Arc::new(s),
            item_root: table.item_root.clone(),
            example_path_from: table.example_path_from.clone(),
        }),
        Err(e) => {
            problems.push(Problem::file(ARENA_TOML, format!("verdict: {e}")));
            None
        }
    }
}

/// The owner schema `key` names (`rel`): `None` when it cannot be read or
/// breaks its metaschema (each mistake at its place in the file).
fn read_json(dir: &Path, key: &str, rel: &str, problems: &mut Vec<Problem>) -> Option<Value> {
    let what = format!("verdict.{key}: cannot read {rel}");
    let file = super::read_json_file(&dir.join(rel), &what, rel, problems)?;
    let Err(e) = tribunal_runtime::OutputSchema::new(key, file.value.clone()) else {
        return Some(file.value);
    };
    let source = super::schema::SchemaSource {
        file: rel.to_string(),
        text: Some(file.text),
        line: None,
        base: String::new(),
        label: format!("verdict.{key}"),
    };
    problems.extend(super::schema::invalid_schema(&file.value, &e, &source));
    None
}
