//! The door through which tribunal's own crates (the `tribunal` binary, its
//! tests and the sibling crates) reach the judge's modules: public only
//! because Rust has no visibility between crates of one workspace. Hidden
//! from the documentation, left out of `api/tribunal-judge.txt` and covered
//! by no semantic-versioning promise: embedders use the names at the crate's
//! root. A feature that adds items here re-blesses nothing.
//!
//! Each module re-exports the judge module of the same name, whole.

/// The judge's `arena` module (reading and linting arenas).
pub mod arena {
    pub use crate::arena::*;
}
/// The judge's `gold_check` module (review items' gold tests, run).
pub mod gold_check {
    pub use crate::gold_check::*;
}
/// The judge's `pricing` module (the price table).
pub mod pricing {
    pub use crate::pricing::*;
}
/// The judge's `report` module (figures and their formats).
pub mod report {
    pub use crate::report::*;
}
/// The judge's `rows` module (result rows, transcripts).
pub mod rows {
    pub use crate::rows::*;
}
/// The judge's `run` module (plans, backends, batch, shards).
pub mod run {
    pub use crate::run::*;
}
/// The judge's `score` module (checks, rubric judge, grading).
pub mod score {
    pub use crate::score::*;
}
/// The judge's `verdict` module (one review).
pub mod verdict {
    pub use crate::verdict::*;
}
