//! `tribunal github check-baseline`: whether a results file may be the
//! gate's baseline — stored by a push to the baseline branch, or gated
//! against by a pull request. A baseline that stopped early, or whose
//! provider failed, measured less than the head it is compared with; gated
//! against, it lets every change it never ran through (issue 59, rows 1
//! and 2). Pure but for reading the files: every reason is said on stderr
//! with its code, and the exit code is 0 (fit), 1 (not a baseline) or 2
//! (a file or arena that cannot be read).

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use tribunal::judge::internal::rows::results::{latest, read_rows};
use tribunal::judge::{Arena, Outcome, ResultRow};
use tribunal::runtime::ErrorCode;

/// How many item runs a reason names.
const NAMED: usize = 5;

#[derive(Debug, clap::Args)]
pub(crate) struct CheckBaselineArgs {
    /// The results file to check (JSON Lines, as `tribunal run` writes).
    #[arg(long, value_name = "FILE")]
    results: PathBuf,
    /// The runs per item the baseline was asked for: each item in it must
    /// have repeats 0 to K-1.
    #[arg(allow_negative_numbers = true, long, value_name = "K", value_parser = clap::value_parser!(u32).range(1..))]
    repeats: u32,
    /// The arena folder the baseline was run from: every item it runs
    /// (after --items and --limit, as `tribunal run` picks them) must be in
    /// the file, K times.
    #[arg(long, value_name = "DIR")]
    arena: Option<PathBuf>,
    /// The `--items` the run was given (comma-separated).
    #[arg(long, value_name = "ID,…", value_delimiter = ',', requires = "arena")]
    items: Vec<String>,
    /// The `--limit` the run was given.
    #[arg(
        allow_negative_numbers = true,
        long,
        value_name = "N",
        requires = "arena"
    )]
    limit: Option<usize>,
    /// The new results file it will be compared with: each of its item
    /// runs must be in the baseline, except items that are not in --arena
    /// at all (items the change added). Without --arena, every one.
    #[arg(long, value_name = "FILE")]
    covers: Option<PathBuf>,
}

/// Why a results file is not a baseline.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Unfit {
    /// The last line is torn: its run was killed mid-write.
    Torn,
    /// Not one result row.
    NoRows,
    /// Rows of several arenas or config hashes.
    Mixed(&'static str, Vec<String>),
    /// ERROR rows of the provider's failure (`backend_error`).
    BackendErrors(Vec<String>),
    /// Item runs the run was asked for and did not write.
    Short(Vec<String>),
    /// Item runs of the new file the baseline lacks.
    NotCovering(Vec<String>),
}

impl Unfit {
    fn code(&self) -> &'static str {
        match self {
            Unfit::Torn => "torn_file",
            Unfit::NoRows => "no_rows",
            Unfit::Mixed(..) => "mixed_runs",
            Unfit::BackendErrors(_) => "backend_errors",
            Unfit::Short(_) => "short",
            Unfit::NotCovering(_) => "not_covering",
        }
    }

    fn message(&self) -> String {
        match self {
            Unfit::Torn => "its last line is torn: the run that wrote it was killed".to_string(),
            Unfit::NoRows => "it holds no result row: the run never happened".to_string(),
            Unfit::Mixed(field, values) => format!(
                "it mixes rows of {} {field}s ({}): results of several runs",
                values.len(),
                values.join(", ")
            ),
            Unfit::BackendErrors(keys) => format!(
                "{} item run(s) ended in ERROR because the provider failed (backend_error: an outage, a rate limit), so nothing was measured there: {}",
                keys.len(),
                named(keys)
            ),
            Unfit::Short(keys) => format!(
                "{} item run(s) it was asked for are not in it (it stopped early: a spending cap, --fail-fast, a killed job): {}",
                keys.len(),
                named(keys)
            ),
            Unfit::NotCovering(keys) => format!(
                "{} item run(s) of the new results are not in it, so they would never be compared: {}",
                keys.len(),
                named(keys)
            ),
        }
    }
}

/// The first keys, `, …` when there are more.
fn named(keys: &[String]) -> String {
    let more = if keys.len() > NAMED { ", …" } else { "" };
    format!("{}{more}", keys[..keys.len().min(NAMED)].join(", "))
}

fn key(id: &str, repeat: u32) -> String {
    format!("{id}#{repeat}")
}

/// The item ids `tribunal run ARENA --items … --limit …` runs, in dataset
/// order ([`Arena::select_items`], the selection the run makes).
fn selected_ids(mut arena: Arena, items: &[String], limit: Option<usize>) -> Vec<String> {
    arena.select_items(items, limit);
    arena.items.into_iter().map(|i| i.id).collect()
}

/// Why `rows` (`torn` when the file ended in a torn line) is not a
/// baseline of `repeats` runs per item of `expected` (when known), that
/// covers `head`'s runs but those of items outside `expected`.
fn unfit(
    rows: &[ResultRow],
    torn: bool,
    repeats: u32,
    expected: Option<&[String]>,
    head: Option<&[ResultRow]>,
) -> Vec<Unfit> {
    let mut out = Vec::new();
    if torn {
        out.push(Unfit::Torn);
    }
    if rows.is_empty() {
        out.push(Unfit::NoRows);
        return out;
    }
    for (field, values) in [
        (
            "arena",
            rows.iter()
                .map(|r| r.arena.clone())
                .collect::<BTreeSet<_>>(),
        ),
        (
            "config hash",
            rows.iter().map(|r| r.config_hash.clone()).collect(),
        ),
    ] {
        if values.len() > 1 {
            out.push(Unfit::Mixed(field, values.into_iter().collect()));
        }
    }
    let failed: Vec<String> = rows
        .iter()
        .filter(|r| r.outcome == Outcome::Error && r.error_code == Some(ErrorCode::BackendError))
        .map(|r| {
            let status = r
                .backend_failure
                .as_ref()
                .and_then(|f| f.status)
                .map(|s| format!(" (HTTP {s})"))
                .unwrap_or_default();
            format!("{}{status}", key(&r.id, r.repeat))
        })
        .collect();
    if !failed.is_empty() {
        out.push(Unfit::BackendErrors(failed));
    }
    let have: BTreeSet<(&str, u32)> = rows.iter().map(|r| (r.id.as_str(), r.repeat)).collect();
    // Every item the run was asked for (or, unknown, every item in it),
    // each repeat.
    let mut seen = BTreeSet::new();
    let ids: Vec<&str> = match expected {
        Some(ids) => ids.iter().map(String::as_str).collect(),
        None => rows
            .iter()
            .map(|r| r.id.as_str())
            .filter(|id| seen.insert(*id))
            .collect(),
    };
    let short: Vec<String> = ids
        .iter()
        .flat_map(|id| (0..repeats).map(move |r| (*id, r)))
        .filter(|k| !have.contains(k))
        .map(|(id, r)| key(id, r))
        .collect();
    if !short.is_empty() {
        out.push(Unfit::Short(short));
    }
    if let Some(head) = head {
        let on_branch: Option<BTreeSet<&str>> =
            expected.map(|ids| ids.iter().map(String::as_str).collect());
        let lacking: Vec<String> = head
            .iter()
            .filter(|r| !have.contains(&(r.id.as_str(), r.repeat)))
            // An item the baseline's arena does not have is one the change
            // added: there is nothing to compare it with.
            .filter(|r| {
                on_branch
                    .as_ref()
                    .is_none_or(|ids| ids.contains(r.id.as_str()))
            })
            .map(|r| key(&r.id, r.repeat))
            .collect();
        if !lacking.is_empty() {
            out.push(Unfit::NotCovering(lacking));
        }
    }
    out
}

/// The rows of `path` (the latest per item run) and whether it was torn.
fn read(path: &Path) -> anyhow::Result<(Vec<ResultRow>, bool)> {
    let read = read_rows(path)
        .map_err(|e| anyhow::anyhow!("check-baseline: cannot read {}: {e}", path.display()))?;
    Ok((latest(read.rows), read.torn))
}

pub(crate) fn run(args: CheckBaselineArgs) -> anyhow::Result<ExitCode> {
    let (rows, torn) = read(&args.results)?;
    let expected = match &args.arena {
        Some(dir) => {
            let arena = Arena::load(dir).map_err(|e| {
                anyhow::anyhow!("check-baseline: cannot load {}: {e}", dir.display())
            })?;
            Some(selected_ids(arena, &args.items, args.limit))
        }
        None => None,
    };
    let head = match &args.covers {
        Some(path) => Some(read(path)?.0),
        None => None,
    };
    let problems = unfit(
        &rows,
        torn,
        args.repeats,
        expected.as_deref(),
        head.as_deref(),
    );
    if problems.is_empty() {
        let added = match (&head, &expected) {
            (Some(head), Some(ids)) => {
                let ids: BTreeSet<&str> = ids.iter().map(String::as_str).collect();
                head.iter().filter(|r| !ids.contains(r.id.as_str())).count()
            }
            _ => 0,
        };
        println!("fit=true");
        println!("added-runs={added}");
        eprintln!(
            "check-baseline: {} is a baseline: {} item run(s), none short, no provider failure",
            args.results.display(),
            rows.len()
        );
        return Ok(ExitCode::SUCCESS);
    }
    println!("fit=false");
    for problem in &problems {
        println!("problem={}", problem.code());
        eprintln!(
            "check-baseline: {}: {}: {}",
            args.results.display(),
            problem.code(),
            problem.message()
        );
    }
    Ok(ExitCode::from(1))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn row(id: &str, repeat: u32, outcome: &str, code: Option<&str>) -> ResultRow {
        let mut v = json!({
            "version": 1, "arena": "a", "id": id, "index": 0, "repeat": repeat,
            "config_hash": "0123456789abcdef", "outcome": outcome, "error_code": code,
            "checks": [], "answer": null,
            "usage": {"input_tokens": 0, "output_tokens": 0},
            "tool_calls": [], "wall_ms": 1.0, "turns": 1, "repair_used": false,
            "backend": "openai-chat", "model": "m", "finished_at_ms": 0
        });
        if code == Some("backend_error") {
            v["backend_failure"] = json!({"kind": "http", "status": 429});
        }
        serde_json::from_value(v).unwrap()
    }

    fn codes(problems: &[Unfit]) -> Vec<&'static str> {
        problems.iter().map(Unfit::code).collect()
    }

    #[test]
    fn a_complete_baseline_is_fit() {
        let rows = vec![row("x", 0, "PASS", None), row("x", 1, "FAIL", None)];
        let ids = vec!["x".to_string()];
        assert!(unfit(&rows, false, 2, Some(&ids), Some(&rows)).is_empty());
    }

    #[test]
    fn a_baseline_that_stopped_early_is_short() {
        // Asked for x, y, z: stopped after x.
        let rows = vec![row("x", 0, "PASS", None)];
        let ids: Vec<String> = ["x", "y", "z"].map(String::from).to_vec();
        let problems = unfit(&rows, false, 1, Some(&ids), None);
        assert_eq!(
            problems,
            vec![Unfit::Short(vec!["y#0".into(), "z#0".into()])]
        );
        // Without the arena, a missing repeat of an item it holds.
        let problems = unfit(&rows, false, 2, None, None);
        assert_eq!(problems, vec![Unfit::Short(vec!["x#1".into()])]);
    }

    #[test]
    fn provider_failures_make_it_unfit_other_errors_do_not() {
        let rows = vec![
            row("x", 0, "ERROR", Some("backend_error")),
            row("y", 0, "ERROR", Some("schema_mismatch")),
        ];
        let problems = unfit(&rows, false, 1, None, None);
        assert_eq!(codes(&problems), vec!["backend_errors"]);
        assert!(problems[0].message().contains("x#0 (HTTP 429)"));
    }

    #[test]
    fn head_runs_it_lacks_make_it_unfit_unless_the_change_added_the_item() {
        let base = vec![row("x", 0, "PASS", None)];
        let head = vec![row("x", 0, "PASS", None), row("new", 0, "PASS", None)];
        // The baseline branch's arena has only x: `new` is the change's.
        let ids = vec!["x".to_string()];
        assert!(unfit(&base, false, 1, Some(&ids), Some(&head)).is_empty());
        // Not knowing the arena, every head run must be there.
        let problems = unfit(&base, false, 1, None, Some(&head));
        assert_eq!(problems, vec![Unfit::NotCovering(vec!["new#0".into()])]);
    }

    #[test]
    fn torn_empty_and_mixed_files_are_unfit() {
        assert_eq!(
            codes(&unfit(&[], true, 1, None, None)),
            vec!["torn_file", "no_rows"]
        );
        let mut other = row("y", 0, "PASS", None);
        other.config_hash = "fedcba9876543210".into();
        let rows = vec![row("x", 0, "PASS", None), other];
        assert_eq!(
            codes(&unfit(&rows, false, 1, None, None)),
            vec!["mixed_runs"]
        );
    }

    #[test]
    fn selection_follows_items_then_limit() {
        let arena =
            Arena::load(&Path::new(env!("CARGO_MANIFEST_DIR")).join("arenas/structured_output"))
                .unwrap();
        let all = selected_ids(arena.clone(), &[], None);
        assert!(all.len() > 2);
        assert_eq!(selected_ids(arena.clone(), &[], Some(2)), all[..2].to_vec());
        let picked = vec![all[2].clone(), all[0].clone()];
        assert_eq!(
            selected_ids(arena, &picked, Some(1)),
            vec![all[0].clone()],
            "dataset order, then the limit"
        );
    }
}
