//! `gold_test` against the arena (lint): each item with one has a gold
//! verdict and a folder holding `CHANGE.diff`, and each folder of
//! `gold_tests/` is an item's with a `gold_test`.

use crate::arena::gold_test::{CHANGE_DIFF, GOLD_TESTS_DIR};
use crate::arena::item::Item;
use crate::problem::Problem;
use std::path::{Path, PathBuf};

/// Each item's `gold_test` against the arena: the item has a gold verdict
/// and a folder holding `CHANGE.diff` (`item_dir`: the verdict table's), and each
/// folder of `gold_tests/` is an item's with a `gold_test`.
pub(crate) fn lint(
    arena_dir: &Path,
    item_dir: &dyn Fn(&str) -> Option<PathBuf>,
    items: &[Item],
    problems: &mut Vec<Problem>,
) {
    let mut at = |item: &Item, message: String| {
        problems.push(Problem::at(
            super::DATASET,
            item.line,
            format!("gold_test: item {:?}: {message}", item.id),
        ))
    };
    for item in items.iter().filter(|i| i.gold_test.is_some()) {
        if item.gold_verdict().is_none() {
            at(
                item,
                "needs the item's gold verdict (a verdict_equals check)".to_string(),
            );
        }
        match item_dir(&item.id) {
            None => at(
                item,
                "needs [verdict] item_root (the change's folder, holding CHANGE.diff)".to_string(),
            ),
            Some(dir) if !dir.join(CHANGE_DIFF).is_file() => at(
                item,
                format!(
                    "{CHANGE_DIFF} is missing from {}: the parent is the folder with it undone",
                    super::rel(arena_dir, &dir)
                ),
            ),
            Some(dir) => {
                let kept = item.gold_test.iter().flat_map(|t| &t.from_change);
                for path in kept
                    .filter(|p| !std::fs::symlink_metadata(dir.join(p)).is_ok_and(|m| m.is_file()))
                {
                    at(
                        item,
                        format!(
                            "from_change: {path} is not a file of {}",
                            super::rel(arena_dir, &dir)
                        ),
                    );
                }
            }
        }
    }
    let Ok(entries) = std::fs::read_dir(arena_dir.join(GOLD_TESTS_DIR)) else {
        return;
    };
    let mut orphans: Vec<String> = entries
        .filter_map(Result::ok)
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|name| !items.iter().any(|i| &i.id == name && i.gold_test.is_some()))
        .collect();
    orphans.sort();
    for name in orphans {
        problems.push(Problem::file(
            format!("{GOLD_TESTS_DIR}/{name}"),
            format!("no item {name:?} has a gold_test to run these files"),
        ));
    }
}
