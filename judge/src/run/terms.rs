//! The terms every run of an arena runs under: the config hash its rows
//! carry, the price its cost budgets are checked at, and the budget.

use super::options::RunOptions;
use crate::arena::Arena;
use crate::error::JudgeError;
use crate::pricing::BATCH_PRICE;
use crate::run::backends::BackendFactory;
use crate::run::batch::BatchSettings;
use crate::run::hash::{
    config_hash_of_mode, with_cost_price, with_live_approval, with_user_cost_price,
};
use tribunal_runtime::Budget;
use tribunal_runtime::internal::cost::{CostLimit, ModelPrice};

/// What every run of one [`run_arena`](super::run_arena) is held to.
#[derive(Debug, Clone)]
pub(super) struct Terms {
    /// The config hash (with the budget price when a per-run cost budget
    /// is set: a changed price can change which runs stop).
    pub(super) hash: String,
    /// The price the cost budgets are checked at, when one is set.
    pub(super) price: Option<ModelPrice>,
    /// Each run's budget: the arena's, with its cost limit; no deadline in
    /// batch mode (a batch may take its whole window).
    pub(super) budget: Budget,
}

/// The terms of running `arena` on `backends` with `options`; refuses
/// options that cannot work (no repeat, a batch API that is not the run's
/// backend, a cost budget on an unpriced model).
pub(super) fn terms(
    arena: &Arena,
    backends: &dyn BackendFactory,
    options: &RunOptions,
) -> Result<Terms, JudgeError> {
    if options.repeat == 0 {
        return Err(JudgeError::Usage("repeat must be at least 1".to_string()));
    }
    if let Some(batch) = &options.batch {
        check_batch(batch, backends, options)?;
    }
    let hash = config_hash_of_mode(
        arena,
        backends.name(),
        backends.model(),
        &backends.output_plan(),
        options.batch.is_some(),
    );
    let price = budget_price(arena, backends, options)?.map(|p| match options.batch {
        Some(_) => p.scaled(BATCH_PRICE),
        None => p,
    });
    let hash = match (arena.max_cost_usd, &price) {
        (Some(_), Some(price)) => with_cost_price(&hash, price),
        _ => hash,
    };
    let hash = match (arena.max_cost_usd, user_price(arena, backends, options)) {
        (Some(_), Some(user)) => with_user_cost_price(&hash, &user),
        _ => hash,
    };
    let hash = match &options.approval {
        Some(approval) => with_live_approval(&hash, &approval.policy),
        None => hash,
    };
    let mut budget = arena.budget;
    if options.batch.is_some() {
        // Tools keep their own timeouts.
        budget.deadline = None;
    }
    if let (Some(max_usd), Some(price)) = (arena.max_cost_usd, price) {
        budget.max_cost = Some(CostLimit { max_usd, price });
    }
    Ok(Terms {
        hash,
        price,
        budget,
    })
}

/// The price the cost budgets of a run on `backends` use: the model's
/// price, free for the mock and for an unpriced model on a custom endpoint;
/// an error naming the model when a budget is set and the model is unpriced.
fn budget_price(
    arena: &Arena,
    backends: &dyn BackendFactory,
    options: &RunOptions,
) -> Result<Option<ModelPrice>, JudgeError> {
    if arena.max_cost_usd.is_none() && options.max_total_usd.is_none() {
        return Ok(None);
    }
    let billed = !backends.is_mock() && !backends.is_custom_endpoint();
    if let Some(price) = options.pricing.charged(backends.model(), billed) {
        return Ok(Some(price));
    }
    Err(JudgeError::Usage(format!(
        "a cost budget is set but model {:?} is in no pricing table; price it in a pricing file or in [pricing] of arena.toml",
        backends.model()
    )))
}

/// The price a model-played user on a route of its own (`[user]`,
/// `--user-*`) is charged at, when the run has a cost budget: its spend
/// counts against it (`talk::SimulatorRoute::with_budget_pricing`). `None`
/// without one, or when the user rides the agent's route (priced as the
/// agent), or is unpriced (not counted).
fn user_price(
    arena: &Arena,
    backends: &dyn BackendFactory,
    options: &RunOptions,
) -> Option<ModelPrice> {
    arena.max_cost_usd?;
    let item = arena
        .items
        .iter()
        .find(|i| i.user.as_ref().is_some_and(|u| u.instructions.is_some()))?;
    let user = backends.user_for(item)?;
    let billed = !crate::rows::is_mock(user.name()) && !backends.user_on_custom_endpoint();
    options.pricing.charged(user.model(), billed)
}

/// Refuses a batch run that cannot work: its batch API is not the backend
/// the run is named by, or it has a spending limit over the run (which
/// stops starting runs, while a batch run starts them all at once).
fn check_batch(
    batch: &BatchSettings,
    backends: &dyn BackendFactory,
    options: &RunOptions,
) -> Result<(), JudgeError> {
    let info = batch.service.info();
    if info.name != backends.name()
        || info.model != backends.model()
        || info.plan != backends.output_plan()
    {
        return Err(JudgeError::Usage(format!(
            "the batch API ({} / {}) is not the run's backend ({} / {})",
            info.name,
            info.model,
            backends.name(),
            backends.model()
        )));
    }
    if options.max_total_usd.is_some() {
        return Err(JudgeError::Usage(
            "a batch run starts every item at once, so a spending limit over the run (max_total_usd) cannot stop any: drop it (max_cost_usd per run in arena.toml still holds)".to_string(),
        ));
    }
    Ok(())
}
