//! `gold_test`: a review item's gold you can run. A command whose result
//! on the change (the item's folder) and on its parent (the folder with
//! `CHANGE.diff` undone) shows the gold verdict:
//!
//! ```json
//! "gold_test": {"command": ["python3", "-m", "unittest"], "parent": "passes"}
//! ```
//!
//! The command fails on a RED change (it shows the bug) and passes on a
//! GREEN one; `parent` says how it ends on the code before the change,
//! and is checked too. A RED test passes there when the change brought
//! the bug, and fails there when the bug was there before (an incomplete
//! fix) or the change adds the code that holds it (a new feature's bug);
//! a GREEN test fails there when the change fixes something, and passes
//! there when it keeps the behaviour (a refactor). The test's own files
//! are in the arena's `gold_tests/<id>/`, laid over both copies (the
//! parent's after the diff is undone) and never shown to the reviewer;
//! `from_change` names files of the change kept on the parent (the
//! change's own new tests, run against the code before it).
//! `tribunal lint --run` runs them (`gold_check`).

use crate::arena::near_miss;
use crate::green_red::Verdict;
use serde_json::{Map, Value};

/// The folder of the arena holding each item's gold test files, one
/// folder per item id.
pub(crate) const GOLD_TESTS_DIR: &str = "gold_tests";

/// The diff from the parent to the change, in the item's folder.
pub(crate) const CHANGE_DIFF: &str = "CHANGE.diff";

/// An item's runnable gold.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GoldTest {
    /// The program and its arguments (`sh -c …` for a shell line), run in
    /// the sandbox with the copy as its working directory.
    pub command: Vec<String>,
    /// How the command ends on the parent.
    pub parent: TestEnd,
    /// Files of the change (paths in the item's folder) laid over the
    /// parent as the change leaves them: its own tests, run against the
    /// code before it. Default: none.
    pub from_change: Vec<String>,
}

/// How a test command ends: exit 0 within its limits, or not.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TestEnd {
    /// Exit 0, within every limit.
    Passes,
    /// Any other end.
    Fails,
}

impl TestEnd {
    /// `"passes"` or `"fails"`.
    pub fn as_str(self) -> &'static str {
        match self {
            TestEnd::Passes => "passes",
            TestEnd::Fails => "fails",
        }
    }

    /// How the test ends on a change whose gold verdict is `gold`.
    pub fn on_change(gold: Verdict) -> TestEnd {
        match gold {
            Verdict::Green => TestEnd::Passes,
            Verdict::Red => TestEnd::Fails,
        }
    }
}

const FIELDS: &[&str] = &["command", "parent", "from_change"];

/// Where in `gold_test` a problem is.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum GoldSpot {
    /// The value of the field (`""`: the whole `gold_test`).
    Value(&'static str),
    /// An unknown key.
    Key(String),
}

/// Parses the value of `gold_test`: the test, or every problem of it.
pub(crate) fn parse(value: &Value) -> Result<GoldTest, Vec<(GoldSpot, String)>> {
    let Value::Object(map) = value else {
        return Err(vec![(
            GoldSpot::Value(""),
            format!(
                "gold_test: expected an object {{\"command\": [...], \"parent\": \"passes\"}}, found {}",
                crate::score::envelope::short(value)
            ),
        )]);
    };
    let mut problems = Vec::new();
    for key in map.keys().filter(|k| !FIELDS.contains(&k.as_str())) {
        problems.push((
            GoldSpot::Key(key.clone()),
            format!("gold_test: {}", near_miss::unknown("field", key, FIELDS)),
        ));
    }
    let command = command(map, &mut problems);
    let parent = match map.get("parent").map(|p| p.as_str()) {
        Some(Some("passes")) => Some(TestEnd::Passes),
        Some(Some("fails")) => Some(TestEnd::Fails),
        Some(_) => {
            problems.push((
                GoldSpot::Value("parent"),
                "gold_test.parent: expected \"passes\" or \"fails\" (how the test ends on the code before the change)".to_string(),
            ));
            None
        }
        None => {
            problems.push((
                GoldSpot::Value(""),
                "gold_test.parent: missing (\"passes\" or \"fails\": how the test ends on the code before the change)".to_string(),
            ));
            None
        }
    };
    let from_change = from_change(map, &mut problems);
    match (command, parent) {
        (Some(command), Some(parent)) if problems.is_empty() => Ok(GoldTest {
            command,
            parent,
            from_change,
        }),
        _ => Err(problems),
    }
}

/// `from_change`: paths relative to the item's folder, none with `..`.
fn from_change(map: &Map<String, Value>, problems: &mut Vec<(GoldSpot, String)>) -> Vec<String> {
    let Some(value) = map.get("from_change") else {
        return Vec::new();
    };
    let paths: Vec<String> = value
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|p| p.as_str())
        .filter(|p| {
            !p.is_empty()
                && std::path::Path::new(p)
                    .components()
                    .all(|c| matches!(c, std::path::Component::Normal(_)))
        })
        .map(str::to_string)
        .collect();
    if value
        .as_array()
        .is_none_or(|list| list.len() != paths.len())
    {
        problems.push((
            GoldSpot::Value("from_change"),
            "gold_test.from_change: expected an array of paths inside the item's folder (`tests/test_x.py`; no `..`, not absolute)".to_string(),
        ));
    }
    paths
}

/// `command`: a non-empty array of non-empty strings.
fn command(
    map: &Map<String, Value>,
    problems: &mut Vec<(GoldSpot, String)>,
) -> Option<Vec<String>> {
    let list = match map.get("command") {
        Some(Value::Array(list)) if !list.is_empty() => list,
        Some(other) => {
            problems.push((
                GoldSpot::Value("command"),
                format!(
                    "gold_test.command: expected a non-empty array of strings (a program and its arguments), found {}",
                    crate::score::envelope::short(other)
                ),
            ));
            return None;
        }
        None => {
            problems.push((
                GoldSpot::Value(""),
                "gold_test.command: missing".to_string(),
            ));
            return None;
        }
    };
    let words: Vec<String> = list
        .iter()
        .filter_map(|w| w.as_str().filter(|s| !s.is_empty()).map(str::to_string))
        .collect();
    if words.len() != list.len() {
        problems.push((
            GoldSpot::Value("command"),
            "gold_test.command: every word is a non-empty string".to_string(),
        ));
        return None;
    }
    Some(words)
}
