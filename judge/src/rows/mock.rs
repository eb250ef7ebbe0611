//! The one test of a mock run: the backend and model names mock rows
//! carry, for reports, comparisons and prices alike.

/// The name mock rows carry as their backend.
pub const MOCK_BACKEND: &str = "mock";

/// The model name mock rows carry.
pub const MOCK_MODEL: &str = "scripted";

/// Whether rows or a run of `backend` (its name as a row carries it) came
/// from the mock backend.
pub fn is_mock(backend: &str) -> bool {
    backend == MOCK_BACKEND
}
