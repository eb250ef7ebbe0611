//! Rows: what a run leaves behind — one [`ResultRow`](results::ResultRow)
//! per finished run in a JSON Lines results file, and opt-in transcripts.
//! Below the runner (which writes them) and the reports (which read them).

mod header;
mod mock;
pub mod results;
mod sampling;
pub mod transcript;

pub use header::RunHeader;
pub use mock::{MOCK_BACKEND, MOCK_MODEL, is_mock};
pub use sampling::Sampling;
