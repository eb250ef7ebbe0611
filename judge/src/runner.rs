//! The runner's old path: everything here moved to [`crate::run`] and is
//! re-exported for one release.

pub use crate::pricing::BATCH_PRICE;
pub use crate::run::{CostStop, RunMode, RunOptions, RunResult, run_arena};

use crate::arena::Arena;
use crate::arena::item::Item;
use crate::rows::results::ResultRow;
use std::sync::Arc;

/// Runs one item once and scores it by its checks (without the rubric
/// judge, whose checks stay as the mock judged them).
#[deprecated(
    note = "run the arena with `run::run_arena` (`RunOptions::in_memory`, `--items`-like selection with `Arena::items`)"
)]
pub async fn run_item(
    arena: &Arena,
    item: &Item,
    repeat: u32,
    backend: Arc<dyn tribunal_runtime::Backend>,
    config_hash: &str,
) -> ResultRow {
    crate::run::run_one(arena, item, repeat, backend, config_hash).await
}
