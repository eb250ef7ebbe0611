//! [`Pricing`]: what a model's tokens cost, and [`Cost`]: the cost of one
//! run under it.
//!
//! The built-in table is `judge/pricing.toml` (compiled in); `--pricing
//! FILE` and the `[pricing]` table of `arena.toml` lay over it. A model in
//! no table is *unpriced* — reported as such, never as 0. A mock run, and a
//! run against a server at a base URL other than the provider's own, cost 0
//! unless the model is priced (a table may price the mock's `scripted`
//! model, e.g. to test cost budgets).

use crate::error::JudgeError;
use crate::rows::is_mock;
use crate::rows::results::ResultRow;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::path::Path;
use std::sync::OnceLock;
use tribunal_runtime::internal::conversation::Usage;
pub use tribunal_runtime::internal::cost::ModelPrice;

/// What a batch request costs, as a share of the online price: both
/// providers bill batches at half.
pub const BATCH_PRICE: f64 = 0.5;

/// The built-in table's text.
pub const BUILTIN_PRICING: &str = include_str!("../pricing.toml");

/// A pricing table.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Pricing {
    /// When the prices were taken (`YYYY-MM-DD`), if the table says.
    #[serde(default)]
    pub taken: Option<String>,
    /// Where they were taken from, if the table says.
    #[serde(default)]
    pub source: Option<String>,
    /// Prices by model name.
    #[serde(default)]
    pub models: BTreeMap<String, ModelPrice>,
}

/// The cost of one run.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Cost {
    /// Priced: this many USD.
    Usd(f64),
    /// Nothing billed: a mock run, or an unpriced model on a server other
    /// than the provider's own.
    Free,
    /// The model is in no pricing table.
    Unpriced,
}

impl Cost {
    /// The cost of two parts of one run (the agent and its judge):
    /// unpriced when either is.
    pub fn plus(self, other: Cost) -> Cost {
        match (self, other) {
            (Cost::Unpriced, _) | (_, Cost::Unpriced) => Cost::Unpriced,
            (Cost::Free, Cost::Free) => Cost::Free,
            (a, b) => Cost::Usd(a.usd().unwrap_or(0.0) + b.usd().unwrap_or(0.0)),
        }
    }

    /// The amount, `None` when unpriced.
    pub fn usd(self) -> Option<f64> {
        match self {
            Cost::Usd(x) => Some(x),
            Cost::Free => Some(0.0),
            Cost::Unpriced => None,
        }
    }
}

impl Pricing {
    /// The built-in table (parsed once). Should it ever fail to parse — a
    /// test guards against that — every model is unpriced.
    pub fn builtin() -> &'static Pricing {
        static BUILTIN: OnceLock<Pricing> = OnceLock::new();
        BUILTIN
            .get_or_init(|| Pricing::from_toml(BUILTIN_PRICING, "pricing.toml").unwrap_or_default())
    }

    /// Parses a table; `origin` names it in errors.
    pub fn from_toml(text: &str, origin: &str) -> Result<Pricing, JudgeError> {
        let pricing: Pricing = toml::from_str(text)
            .map_err(|e| JudgeError::Usage(format!("{origin}: not a pricing table: {e}")))?;
        pricing.checked(origin)
    }

    /// Reads a table from `path`.
    pub fn read(path: &Path) -> Result<Pricing, JudgeError> {
        let text = std::fs::read_to_string(path).map_err(|e| JudgeError::io(path, e))?;
        Pricing::from_toml(&text, &path.display().to_string())
    }

    /// Refuses negative or non-finite prices, naming the model.
    pub(crate) fn checked(self, origin: &str) -> Result<Pricing, JudgeError> {
        for (name, price) in &self.models {
            if let Some(problem) = price.problem() {
                return Err(JudgeError::Usage(format!(
                    "{origin}: model {name:?}: {problem}"
                )));
            }
        }
        Ok(self)
    }

    /// This table with `over`'s models added or replacing ours.
    pub fn overlaid(mut self, over: &Pricing) -> Pricing {
        for (name, price) in &over.models {
            self.models.insert(name.clone(), *price);
        }
        if over.taken.is_some() {
            self.taken = over.taken.clone();
        }
        if over.source.is_some() {
            self.source = over.source.clone();
        }
        self
    }

    /// The prices of `model`: its exact name, else a listed name followed
    /// by a date suffix (`-2025-04-14`, `-20250929`) or `-latest`.
    pub fn price(&self, model: &str) -> Option<&ModelPrice> {
        if let Some(p) = self.models.get(model) {
            return Some(p);
        }
        self.models
            .iter()
            .filter(|(name, _)| {
                model
                    .strip_prefix(name.as_str())
                    .and_then(|rest| rest.strip_prefix('-'))
                    .is_some_and(is_version_suffix)
            })
            .max_by_key(|(name, _)| name.len())
            .map(|(_, p)| p)
    }

    /// The prices a run of `model` is charged at: the table's, else free
    /// when `billed` is false (the mock, a server at a custom base URL),
    /// else none (unpriced).
    pub fn charged(&self, model: &str, billed: bool) -> Option<ModelPrice> {
        match self.price(model) {
            Some(p) => Some(*p),
            None if !billed => Some(ModelPrice::FREE),
            None => None,
        }
    }

    /// The cost of one result row.
    pub fn cost_of(&self, row: &ResultRow) -> Cost {
        let mut agent = self.cost_at(&row.backend, &row.model, row.custom_endpoint, &row.usage);
        if let (true, Cost::Usd(usd)) = (row.batch, agent) {
            agent = Cost::Usd(usd * BATCH_PRICE);
        }
        [self.judge_cost_of(row), self.user_cost_of(row)]
            .into_iter()
            .flatten()
            .fold(agent, Cost::plus)
    }

    /// What the row's simulated user cost (already part of
    /// [`cost_of`](Pricing::cost_of)); `None` without a model playing it.
    pub fn user_cost_of(&self, row: &ResultRow) -> Option<Cost> {
        let talk = row.conversation.as_ref()?;
        let user = talk.simulator.as_ref()?;
        Some(self.cost_at(
            &user.backend,
            &user.model,
            user.custom_endpoint,
            &talk.user_usage,
        ))
    }

    /// The price the simulated user `played_by` is charged at (free on
    /// the mock or a custom endpoint when unpriced; `None`: unpriced).
    pub(crate) fn user_price(
        &self,
        played_by: &crate::rows::results::SimulatorRecord,
    ) -> Option<ModelPrice> {
        let billed = !is_mock(&played_by.backend) && !played_by.custom_endpoint;
        self.charged(&played_by.model, billed)
    }

    /// What the row's rubric judge cost (already part of
    /// [`cost_of`](Pricing::cost_of)); `None` without a judge.
    pub fn judge_cost_of(&self, row: &ResultRow) -> Option<Cost> {
        row.judge
            .as_ref()
            .map(|j| self.cost_at(&j.backend, &j.model, j.custom_endpoint, &j.usage))
    }

    /// The cost of `usage` on `model` of `backend`.
    fn cost_at(&self, backend: &str, model: &str, custom_endpoint: bool, usage: &Usage) -> Cost {
        let billed = !is_mock(backend) && !custom_endpoint;
        match (self.charged(model, billed), self.price(model)) {
            (Some(p), Some(_)) => Cost::Usd(p.cost(usage)),
            (Some(_), None) => Cost::Free,
            (None, _) => Cost::Unpriced,
        }
    }
}

/// `latest`, `YYYYMMDD` or `YYYY-MM-DD`.
fn is_version_suffix(rest: &str) -> bool {
    let digits = |s: &str, n: usize| s.len() == n && s.bytes().all(|b| b.is_ascii_digit());
    rest == "latest"
        || digits(rest, 8)
        || matches!(rest.split('-').collect::<Vec<_>>().as_slice(),
            [y, m, d] if digits(y, 4) && digits(m, 2) && digits(d, 2))
}

/// The cost of a set of runs.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CostSummary {
    /// USD over the priced runs (mock and free runs count 0).
    pub total_usd: f64,
    /// Runs with a cost (free ones included).
    pub priced_runs: usize,
    /// Runs whose model is in no pricing table.
    pub unpriced_runs: usize,
    /// Those models, sorted.
    pub unpriced_models: Vec<String>,
    /// `total_usd / priced_runs` (0 without priced runs).
    pub mean_usd_per_run: f64,
    /// When the table's prices were taken, if it says.
    pub prices_taken: Option<String>,
}

impl CostSummary {
    /// The costs of `rows` under `pricing`: each row's, and the summary.
    pub fn of(rows: &[ResultRow], pricing: &Pricing) -> (Vec<Cost>, CostSummary) {
        let costs: Vec<Cost> = rows.iter().map(|r| pricing.cost_of(r)).collect();
        // A fold from +0.0: `Sum` for f64 starts at -0.0, which JSON shows.
        let total_usd = costs.iter().filter_map(|c| c.usd()).fold(0.0, |a, b| a + b);
        let priced_runs = costs.iter().filter(|c| c.usd().is_some()).count();
        // The model of each unpriced part: the agent's, the judge's, or both.
        let unpriced_models: std::collections::BTreeSet<&str> = rows
            .iter()
            .zip(&costs)
            .filter(|(_, c)| c.usd().is_none())
            .flat_map(|(r, _)| {
                let agent_unpriced = pricing
                    .cost_at(&r.backend, &r.model, r.custom_endpoint, &r.usage)
                    .usd()
                    .is_none();
                let judge = r
                    .judge
                    .as_ref()
                    .filter(|_| pricing.judge_cost_of(r).is_some_and(|c| c.usd().is_none()));
                let user = r
                    .conversation
                    .as_ref()
                    .and_then(|t| t.simulator.as_ref())
                    .filter(|_| pricing.user_cost_of(r).is_some_and(|c| c.usd().is_none()));
                agent_unpriced
                    .then_some(r.model.as_str())
                    .into_iter()
                    .chain(judge.map(|j| j.model.as_str()))
                    .chain(user.map(|u| u.model.as_str()))
            })
            .collect();
        let summary = CostSummary {
            total_usd,
            priced_runs,
            unpriced_runs: rows.len() - priced_runs,
            unpriced_models: unpriced_models.into_iter().map(str::to_string).collect(),
            mean_usd_per_run: if priced_runs == 0 {
                0.0
            } else {
                total_usd / priced_runs as f64
            },
            prices_taken: pricing.taken.clone(),
        };
        (costs, summary)
    }

    /// One line for people: `cost $0.012300 over 15 run(s) ($0.000820 per
    /// run; prices of 2026-12-01)`, saying which runs are unpriced.
    pub fn line(&self) -> String {
        let taken = self
            .prices_taken
            .as_deref()
            .map(|t| format!("; prices of {t}"))
            .unwrap_or_default();
        let priced = format!(
            "cost ${:.6} over {} run(s) (${:.6} per run{taken})",
            self.total_usd, self.priced_runs, self.mean_usd_per_run
        );
        match (self.priced_runs, self.unpriced_runs) {
            (_, 0) => priced,
            (0, n) => format!(
                "cost unpriced: {n} run(s) of model(s) in no pricing table ({}); add them with --pricing",
                self.unpriced_models.join(", ")
            ),
            (_, n) => format!(
                "{priced}; {n} run(s) unpriced ({}), so the total is a lower bound",
                self.unpriced_models.join(", ")
            ),
        }
    }
}
