//! [`RunHeader`]: what a set of rows says about the run(s) that made them
//! — arena, backend, model, config hash, sampling, mock, replayed — read one way for
//! the report, the HTML page and each side of a comparison.

use super::mock::is_mock;
use super::results::ResultRow;
#[cfg(doc)]
use super::sampling::Sampling;
use std::collections::BTreeSet;

/// The header of a set of rows: the first row's arena, backend and model,
/// every config hash and way of sampling among them, and whether they are
/// mock or replayed.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct RunHeader {
    /// The first row's arena (`None` without rows).
    pub arena: Option<String>,
    /// The first row's backend (empty without rows).
    pub backend: String,
    /// The first row's model (empty without rows).
    pub model: String,
    /// The distinct config hashes, sorted (more than one: mixed runs).
    pub config_hashes: Vec<String>,
    /// Whether the rows came from the mock backend.
    pub mock: bool,
    /// Whether every row was replayed from a cassette (none: no).
    pub replayed: bool,
    /// How the answers were sampled ([`Sampling`]'s words), the distinct
    /// ways among the rows, sorted; empty when no row says (mock rows,
    /// rows written before rows said).
    pub sampling: Vec<String>,
    /// Whether any row's commands ran with no sandbox.
    pub unsandboxed: bool,
}

impl RunHeader {
    /// The header of `rows`.
    pub fn of(rows: &[ResultRow]) -> Self {
        let first = rows.first();
        let backend = first.map(|r| r.backend.clone()).unwrap_or_default();
        let hashes: BTreeSet<&str> = rows.iter().map(|r| r.config_hash.as_str()).collect();
        RunHeader {
            arena: first.map(|r| r.arena.clone()),
            mock: is_mock(&backend),
            backend,
            model: first.map(|r| r.model.clone()).unwrap_or_default(),
            config_hashes: hashes.into_iter().map(str::to_string).collect(),
            replayed: super::results::all_replayed(rows),
            sampling: rows
                .iter()
                .filter_map(|r| r.sampling.as_ref().map(ToString::to_string))
                .collect::<BTreeSet<String>>()
                .into_iter()
                .collect(),
            unsandboxed: rows.iter().any(|r| r.unsandboxed),
        }
    }

    /// How the rows were sampled, as a report says it: the one way, the
    /// ways of mixed rows joined by ` | `, or `None` when no row says.
    pub fn sampling(&self) -> Option<String> {
        (!self.sampling.is_empty()).then(|| self.sampling.join(" | "))
    }

    /// The config hash as a report shows it: the one hash, or every hash
    /// of mixed rows joined by `, ` (empty without rows).
    pub fn config_hash(&self) -> String {
        self.config_hashes.join(", ")
    }
}
