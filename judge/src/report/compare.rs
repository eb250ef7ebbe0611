//! [`Comparison`]: a baseline results file against a new one — which item
//! runs changed outcome (PASS → FAIL/ERROR is a regression, the reverse a
//! fix), the pass-rate delta with its interval and an exact paired test,
//! and token and latency deltas; [`Gate`] decides whether CI should fail
//! ([`GateOutcome`]: pass, regression, or inputs that cannot be gated on).
//! Pure: it takes rows, not files; how it reads is `report::format`'s.

use crate::green_red::Verdict;
use crate::report::cache_total;
use crate::report::calibration::judged_verdict;
use crate::report::stats::percentile;
use crate::report::stats::{Interval, PairedItem, PairedTest, paired_test, wilson};
use crate::report::tokens::{TokenChange, TokenUse, run_tokens};
use crate::rows::RunHeader;
use crate::rows::results::ResultRow;
use crate::score::Outcome;
use crate::score::checks::CheckKind;
use serde::{Deserialize, Serialize};
use std::collections::{BTreeMap, BTreeSet};
use tribunal_runtime::ErrorCode;
use tribunal_runtime::internal::backend::CacheCounts;

mod inputs;

pub use inputs::{Allow, InputProblem, SideInput, Which, input_problems};

/// The numbers of one side of a comparison.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Side {
    /// The arena's name (of the first row).
    pub arena: String,
    /// The backend's name.
    pub backend: String,
    /// The model name.
    pub model: String,
    /// The config hash (of the first row).
    pub config_hash: String,
    /// How the answers were sampled (the report's `sampling`); absent on
    /// mock rows and rows written before rows said.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sampling: Option<String>,
    /// Item runs (rows).
    pub total: usize,
    /// PASS rows.
    pub pass: usize,
    /// FAIL rows.
    pub fail: usize,
    /// ERROR rows.
    pub error: usize,
    /// `pass / total` (0 without rows).
    pub pass_rate: f64,
    /// The 95% Wilson interval of `pass_rate` (null without rows).
    pub pass_rate_ci: Option<Interval>,
    /// Whether the rows came from the mock backend.
    pub mock: bool,
    /// Whether the rows were replayed from a cassette.
    pub replayed: bool,
    /// The rerun cache's hits and misses over the rows (`run --cache`);
    /// absent when no row used it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rerun_cache: Option<CacheCounts>,
    /// The tokens spent: per item run, per PASS, the cached share (the
    /// same figures as the report's `tokens`; the rubric judge's included).
    pub tokens: TokenUse,
    /// Mean wall time per row, in milliseconds.
    pub wall_mean_ms: f64,
    /// Median wall time, in milliseconds.
    pub wall_p50_ms: f64,
    /// 95th-percentile wall time, in milliseconds.
    pub wall_p95_ms: f64,
}

impl Side {
    /// The numbers of `rows`.
    pub fn of(rows: &[ResultRow]) -> Side {
        let header = RunHeader::of(rows);
        let count = |o: Outcome| rows.iter().filter(|r| r.outcome == o).count();
        let n = rows.len();
        let mean = |sum: f64| if n == 0 { 0.0 } else { sum / n as f64 };
        let mut walls: Vec<f64> = rows.iter().map(|r| r.wall_ms).collect();
        walls.sort_by(f64::total_cmp);
        Side {
            arena: header.arena.clone().unwrap_or_default(),
            config_hash: header.config_hash(),
            sampling: header.sampling(),
            backend: header.backend,
            model: header.model,
            total: n,
            pass: count(Outcome::Pass),
            fail: count(Outcome::Fail),
            error: count(Outcome::Error),
            pass_rate: mean(count(Outcome::Pass) as f64),
            pass_rate_ci: wilson(count(Outcome::Pass), n),
            mock: header.mock,
            replayed: header.replayed,
            rerun_cache: cache_total(rows),
            tokens: TokenUse::of(rows),
            wall_mean_ms: mean(walls.iter().sum()),
            wall_p50_ms: percentile(&walls, 0.50),
            wall_p95_ms: percentile(&walls, 0.95),
        }
    }
}

/// What kind of outcome change an item run shows.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ChangeKind {
    /// PASS before, FAIL or ERROR now.
    Regression,
    /// FAIL or ERROR before, PASS now.
    Fix,
    /// FAIL ↔ ERROR: still not passing, for another reason.
    Changed,
    /// The outcome changed, and so did the checks that scored it (the
    /// rows' `checks_digest` differ): the dataset changed, not the model,
    /// so it is neither a regression nor a fix.
    ChecksChanged,
}

/// One item run whose outcome differs between the files.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Change {
    /// The item id.
    pub id: String,
    /// The 0-based repeat.
    pub repeat: u32,
    /// The baseline outcome.
    pub base: Outcome,
    /// The new outcome.
    pub new: Outcome,
    /// Regression, fix or other change.
    pub kind: ChangeKind,
    /// The new run's error code, if it is an ERROR.
    pub error_code: Option<ErrorCode>,
    /// The new run's failed checks' types, if it is a FAIL.
    pub failed_checks: Vec<CheckKind>,
    /// Why each of `failed_checks` failed (its detail, on one line, at most
    /// [`Change::DETAIL_CHARS`] characters), in the same order.
    #[serde(default)]
    pub failed_details: Vec<String>,
    /// New tokens minus baseline tokens (input + output, the rubric
    /// judge's included).
    pub tokens_delta: i64,
    /// New wall time minus baseline wall time, in milliseconds.
    pub wall_delta_ms: f64,
}

impl Change {
    /// How long a failed check's detail (and [`Change::why`]) may be, in
    /// characters: longer ones are cut, ending in `…`.
    pub const DETAIL_CHARS: usize = 120;

    /// The failed checks' types, comma-separated.
    pub fn failed_list(&self) -> String {
        CheckKind::list(&self.failed_checks)
    }

    /// Why the new run did not pass, in at most [`Change::DETAIL_CHARS`]
    /// characters: its error code, or each failed check with its detail
    /// (`json_path_equals: year: expected 1889, got 1890`); empty for a
    /// PASS.
    pub fn why(&self) -> String {
        if let Some(code) = self.error_code {
            return code.to_string();
        }
        let each: Vec<String> = self
            .failed_checks
            .iter()
            .enumerate()
            .map(|(i, kind)| match self.failed_details.get(i) {
                Some(detail) if !detail.is_empty() => format!("{kind}: {detail}"),
                _ => kind.to_string(),
            })
            .collect();
        clipped(&each.join("; "), Self::DETAIL_CHARS)
    }
}

/// `text` on one line, cut to `max` characters with `…` as the last one
/// when it is longer.
pub(crate) fn clipped(text: &str, max: usize) -> String {
    let line = tribunal_runtime::internal::text::join_lines(text);
    if line.chars().count() <= max {
        return line;
    }
    let mut cut: String = line.chars().take(max.saturating_sub(1)).collect();
    cut.truncate(cut.trim_end().len());
    cut.push('…');
    cut
}

/// One matched item run whose GREEN/RED verdict differs between the files
/// (the answer's `verdict`; none when the run gave no GREEN or RED), whatever
/// its outcome did: a review that turned from RED to GREEN is news even when
/// both runs FAIL.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct VerdictChange {
    /// The item id.
    pub id: String,
    /// The 0-based repeat.
    pub repeat: u32,
    /// The baseline run's verdict.
    pub base: Option<Verdict>,
    /// The new run's verdict.
    pub new: Option<Verdict>,
}

impl VerdictChange {
    /// `GREEN → RED`, `none` for a run without a verdict.
    pub fn text(&self) -> String {
        format!("{} → {}", Self::word(self.base), Self::word(self.new))
    }

    /// `GREEN`, `RED`, or `none` for a run without a verdict.
    pub fn word(verdict: Option<Verdict>) -> &'static str {
        verdict.map_or("none", Verdict::as_str)
    }
}

/// An (item, repeat) present in only one of the files.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
pub struct RunKey {
    /// The item id.
    pub id: String,
    /// The 0-based repeat.
    pub repeat: u32,
}

/// When `tribunal compare` fails (exit 1).
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Gate {
    /// Any item run that went from PASS to FAIL or ERROR. Right for mock and
    /// replayed results, where nothing is sampled and every flip is a change.
    Any,
    /// Only a regression significant at `alpha` on the paired test: more
    /// items got worse than better and the exact two-sided p-value is below
    /// `alpha`. Right for live results, where sampling alone flips items.
    Significant {
        /// The significance level, in (0, 1).
        alpha: f64,
    },
}

impl Gate {
    /// The default significance level of [`Gate::Significant`].
    pub const DEFAULT_ALPHA: f64 = 0.05;

    /// The gate a comparison uses when none is asked for: [`Gate::Any`] when
    /// either side is mock or replayed results, else [`Gate::Significant`]
    /// at [`DEFAULT_ALPHA`](Gate::DEFAULT_ALPHA).
    pub fn default_for(base: &Side, new: &Side) -> Gate {
        if base.mock || base.replayed || new.mock || new.replayed {
            Gate::Any
        } else {
            Gate::Significant {
                alpha: Gate::DEFAULT_ALPHA,
            }
        }
    }

    /// How the gate reads in a report: `any regression` or
    /// `significant regression (alpha 0.05)`.
    pub fn describe(&self) -> String {
        match self {
            Gate::Any => "any regression".to_string(),
            Gate::Significant { alpha } => format!("significant regression (alpha {alpha})"),
        }
    }
}

/// A baseline against a new run.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Comparison {
    /// The baseline's numbers.
    pub base: Side,
    /// The new run's numbers.
    pub new: Side,
    /// New pass rate minus baseline pass rate.
    pub pass_rate_delta: f64,
    /// Tokens per item run (every run, ERROR included), baseline → new.
    pub tokens_per_item: TokenChange,
    /// Tokens per PASS run (every run's tokens over the PASS runs),
    /// baseline → new.
    pub tokens_per_pass: TokenChange,
    /// New total tokens minus the baseline's.
    pub tokens_total_delta: i64,
    /// New mean wall time minus the baseline's, in milliseconds.
    pub wall_mean_delta_ms: f64,
    /// New median wall time minus the baseline's, in milliseconds.
    pub wall_p50_delta_ms: f64,
    /// New p95 wall time minus the baseline's, in milliseconds.
    pub wall_p95_delta_ms: f64,
    /// Item runs present in both files: how many.
    pub matched: usize,
    /// Every outcome change, regressions first, then fixes, then the rest;
    /// in report order within each kind.
    pub changes: Vec<Change>,
    /// Matched item runs whose GREEN/RED verdict changed, in new-file
    /// order (absent when none did: arenas without verdicts never have any).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub verdict_changes: Vec<VerdictChange>,
    /// Item runs only in the baseline (not counted as regressions).
    pub only_base: Vec<RunKey>,
    /// Item runs only in the new file.
    pub only_new: Vec<RunKey>,
    /// The paired test over the item runs in both files, grouped by item.
    pub paired: PairedTest,
    /// With repeats: every matched item whose PASS count changed, worst
    /// change first (empty with one run per item: `changes` says it all).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub item_rates: Vec<ItemRates>,
    /// Why the inputs cannot be gated on, first the one that decides the
    /// exit code ([`Comparison::checked`]); empty when they can.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub problems: Vec<InputProblem>,
}

/// One item's matched runs in both files (with repeats).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ItemRates {
    /// The item id.
    pub id: String,
    /// Runs matched on both sides.
    pub runs: usize,
    /// Of those, PASS in the baseline.
    pub base_pass: usize,
    /// Of those, PASS in the new file.
    pub new_pass: usize,
}

/// What a gate makes of a [`Comparison`] ([`Comparison::gate_outcome`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum GateOutcome<'a> {
    /// The gate passes.
    Pass,
    /// The gate finds a regression.
    Regression,
    /// The inputs cannot be gated on (the gate fails closed): the first
    /// problem found.
    Ungated(&'a InputProblem),
}

impl Comparison {
    /// Compares `base` with `new`, each the latest row per (item, repeat),
    /// matching rows by item id and repeat.
    pub fn new(base: &[ResultRow], new: &[ResultRow]) -> Comparison {
        let key = |r: &ResultRow| (r.id.clone(), r.repeat);
        let base_map: BTreeMap<(String, u32), &ResultRow> =
            base.iter().map(|r| (key(r), r)).collect();
        let new_keys: BTreeSet<(String, u32)> = new.iter().map(key).collect();
        let mut changes = Vec::new();
        let mut verdict_changes = Vec::new();
        let mut matched = 0;
        let mut only_new = Vec::new();
        for n in new {
            let Some(b) = base_map.get(&key(n)) else {
                only_new.push(run_key(n));
                continue;
            };
            matched += 1;
            let (base_verdict, new_verdict) = (judged_verdict(b), judged_verdict(n));
            if base_verdict != new_verdict {
                verdict_changes.push(VerdictChange {
                    id: n.id.clone(),
                    repeat: n.repeat,
                    base: base_verdict,
                    new: new_verdict,
                });
            }
            let kind = match (b.outcome, n.outcome) {
                (x, y) if x == y => continue,
                _ if checks_changed(b, n) => ChangeKind::ChecksChanged,
                (Outcome::Pass, _) => ChangeKind::Regression,
                (_, Outcome::Pass) => ChangeKind::Fix,
                _ => ChangeKind::Changed,
            };
            changes.push(Change {
                id: n.id.clone(),
                repeat: n.repeat,
                base: b.outcome,
                new: n.outcome,
                kind,
                error_code: n.error_code,
                failed_checks: failed(n).map(|c| c.kind).collect(),
                failed_details: failed(n)
                    .map(|c| clipped(&c.detail, Change::DETAIL_CHARS))
                    .collect(),
                tokens_delta: run_tokens(n) as i64 - run_tokens(b) as i64,
                wall_delta_ms: n.wall_ms - b.wall_ms,
            });
        }
        changes.sort_by_key(|c| match c.kind {
            ChangeKind::Regression => 0,
            ChangeKind::Fix => 1,
            ChangeKind::Changed => 2,
            ChangeKind::ChecksChanged => 3,
        });
        let only_base = base
            .iter()
            .filter(|r| !new_keys.contains(&key(r)))
            .map(run_key)
            .collect();
        let rates = paired_items(&base_map, new);
        let counts: Vec<PairedItem> = rates
            .iter()
            .map(|r| PairedItem {
                runs: r.runs,
                base_pass: r.base_pass,
                new_pass: r.new_pass,
            })
            .collect();
        let paired = paired_test(&counts);
        let mut item_rates: Vec<ItemRates> = if rates.iter().any(|r| r.runs > 1) {
            rates
                .into_iter()
                .filter(|r| r.base_pass != r.new_pass)
                .collect()
        } else {
            Vec::new()
        };
        // Worst first: the largest drop in pass rate, then by id.
        item_rates.sort_by(|a, b| {
            let drop = |r: &ItemRates| (r.base_pass as f64 - r.new_pass as f64) / r.runs as f64;
            drop(b).total_cmp(&drop(a)).then_with(|| a.id.cmp(&b.id))
        });
        let (b, n) = (Side::of(base), Side::of(new));
        Comparison {
            paired,
            item_rates,
            pass_rate_delta: n.pass_rate - b.pass_rate,
            tokens_per_item: TokenChange::between(b.tokens.per_item, n.tokens.per_item),
            tokens_per_pass: TokenChange::between(b.tokens.per_pass, n.tokens.per_pass),
            tokens_total_delta: n.tokens.total as i64 - b.tokens.total as i64,
            wall_mean_delta_ms: n.wall_mean_ms - b.wall_mean_ms,
            wall_p50_delta_ms: n.wall_p50_ms - b.wall_p50_ms,
            wall_p95_delta_ms: n.wall_p95_ms - b.wall_p95_ms,
            base: b,
            new: n,
            matched,
            changes,
            verdict_changes,
            only_base,
            only_new,
            problems: Vec::new(),
        }
    }

    /// [`Comparison::new`] of two files' rows, with the problems that make
    /// it unfit to gate on ([`input_problems`]): a gate over it fails closed.
    pub fn checked(base: SideInput<'_>, new: SideInput<'_>, allow: Allow) -> Comparison {
        let mut comparison = Comparison::new(base.rows, new.rows);
        comparison.problems = input_problems(base, new, &comparison, allow);
        comparison
    }

    /// The gate to use when none is asked for ([`Gate::default_for`]).
    pub fn default_gate(&self) -> Gate {
        Gate::default_for(&self.base, &self.new)
    }

    /// Whether `gate` fails this comparison: a regression it gates on, or
    /// inputs that cannot be gated on.
    pub fn fails(&self, gate: Gate) -> bool {
        !self.problems.is_empty() || self.regressed(gate)
    }

    /// Whether `gate` finds a regression, whatever the inputs.
    pub fn regressed(&self, gate: Gate) -> bool {
        match gate {
            Gate::Any => self.regressions() > 0,
            Gate::Significant { alpha } => self.paired.significant_regression(alpha),
        }
    }

    /// What `gate` makes of this comparison: the first input problem when
    /// the inputs cannot be gated on, else a regression or a pass. The
    /// caller maps it to what it ends with (`tribunal compare`: its exit
    /// code).
    pub fn gate_outcome(&self, gate: Gate) -> GateOutcome<'_> {
        match self.problems.first() {
            Some(problem) => GateOutcome::Ungated(problem),
            None if self.regressed(gate) => GateOutcome::Regression,
            None => GateOutcome::Pass,
        }
    }

    /// How many item runs regressed (PASS → FAIL or ERROR).
    pub fn regressions(&self) -> usize {
        self.count(ChangeKind::Regression)
    }

    /// How many item runs were fixed (FAIL or ERROR → PASS).
    pub fn fixes(&self) -> usize {
        self.count(ChangeKind::Fix)
    }

    /// How many item runs changed in the way `kind` says.
    pub fn count(&self, kind: ChangeKind) -> usize {
        self.changes.iter().filter(|c| c.kind == kind).count()
    }
}

/// The matched item runs grouped by item, in id order: per item, how many
/// runs are in both files and how many of them passed on each side.
fn paired_items(base: &BTreeMap<(String, u32), &ResultRow>, new: &[ResultRow]) -> Vec<ItemRates> {
    let mut items: BTreeMap<&str, ItemRates> = BTreeMap::new();
    for n in new {
        let Some(b) = base.get(&(n.id.clone(), n.repeat)) else {
            continue;
        };
        // Scored by other checks: not a pair that measures the model.
        if checks_changed(b, n) {
            continue;
        }
        let item = items.entry(&n.id).or_insert_with(|| ItemRates {
            id: n.id.clone(),
            runs: 0,
            base_pass: 0,
            new_pass: 0,
        });
        item.runs += 1;
        item.base_pass += usize::from(b.outcome == Outcome::Pass);
        item.new_pass += usize::from(n.outcome == Outcome::Pass);
    }
    items.into_values().collect()
}

/// Whether the checks that scored `base` and `new` differ (both rows say
/// which; a row written before `checks_digest` says nothing).
fn checks_changed(base: &ResultRow, new: &ResultRow) -> bool {
    matches!(
        (&base.checks_digest, &new.checks_digest),
        (Some(x), Some(y)) if x != y
    )
}

/// The failed checks of a FAIL row (none for PASS and ERROR).
fn failed(row: &ResultRow) -> impl Iterator<Item = &crate::score::checks::CheckResult> {
    let fail = row.outcome == Outcome::Fail;
    row.checks.iter().filter(move |c| fail && !c.ok)
}

fn run_key(r: &ResultRow) -> RunKey {
    RunKey {
        id: r.id.clone(),
        repeat: r.repeat,
    }
}
