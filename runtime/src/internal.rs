//! The door through which tribunal's own crates (the judge, the tools,
//! the `tribunal` binary, the tests) reach this crate's modules: public
//! only because Rust has no visibility between the crates of one workspace.
//! Hidden from the documentation, left out of `api/tribunal-runtime.txt`,
//! covered by no semantic-versioning promise: embedders use the names at
//! the crate's root. A feature that adds items here re-blesses nothing.
//!
//! Each module re-exports the runtime module of the same name, whole.

/// The runtime's `answer` module.
pub mod answer {
    pub use crate::answer::*;
}
/// The runtime's `approval` module.
pub mod approval {
    pub use crate::approval::*;
}
/// The runtime's `backend` module.
pub mod backend {
    pub use crate::backend::*;
}
/// The runtime's `conversation` module.
pub mod conversation {
    pub use crate::conversation::*;
}
/// The runtime's `cost` module.
pub mod cost {
    pub use crate::cost::*;
}
/// The runtime's `dialogue` module.
pub mod dialogue {
    pub use crate::dialogue::*;
}
/// The runtime's `driver` module.
pub mod driver {
    pub use crate::driver::*;
}
/// The runtime's `json` module.
pub mod json {
    pub use crate::json::*;
}
/// The runtime's `machine` module.
pub mod machine {
    pub use crate::machine::*;
}
/// The runtime's `nudge` module.
pub mod nudge {
    pub use crate::nudge::*;
}
/// The runtime's `output` module.
pub mod output {
    pub use crate::output::*;
}
/// The runtime's `report` module.
pub mod report {
    pub use crate::report::*;
}
/// The runtime's `schema` module.
pub mod schema {
    pub use crate::schema::*;
}
/// The runtime's `snapshot` module.
pub mod snapshot {
    pub use crate::snapshot::*;
}
/// The runtime's `task` module.
pub mod task {
    pub use crate::task::*;
}
/// The runtime's `text` module.
pub mod text {
    pub use crate::text::*;
}
/// The runtime's `tool` module.
pub mod tool {
    pub use crate::tool::*;
}
/// The runtime's `user` module.
pub mod user {
    pub use crate::user::*;
}
