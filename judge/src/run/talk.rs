//! A conversation item's run ([`Item::user`]): its user simulator — a
//! [`ModelUser`] on the user's route ([`SimulatorRoute`]) when the item
//! gives `instructions` and there is one, else the item's `script` — and
//! the conversation ([`Agent::converse`]) under the user's budget
//! (`[user]`).
//!
//! The user's route is its own (`[user]`, `--user-backend`: its own
//! cassette `<arena>.user.jsonl`) or, on a live run without one, the
//! agent's backend (its cassette and cache). Its tokens are counted apart
//! (`DialogueReport::user_usage`, the row's `conversation.user_usage`) and
//! priced at the model that played it (`conversation.simulator`).

use crate::arena::item::Item;
use crate::arena::{UserSettings, UserSpec};
use crate::rows::results::SimulatorRecord;
use crate::run::backends::BackendFactory;
use futures::future::BoxFuture;
use std::sync::Arc;
use tribunal_runtime::BackendErrorKind;
use tribunal_runtime::Exchange;
use tribunal_runtime::UserTurn;
use tribunal_runtime::{
    Agent, Backend, BackendError, ConversationRun, DialogueConfig, ModelUser, ScriptedUser,
    UserSimulator,
};

/// The model a conversation item's user is played by.
#[derive(Clone)]
pub(super) struct SimulatorRoute {
    backend: Arc<dyn Backend>,
    custom_endpoint: bool,
    /// The price its tokens count against the run's cost budget at
    /// (`None`: no budget, or its model is unpriced).
    price: Option<tribunal_runtime::ModelPrice>,
}

impl SimulatorRoute {
    /// The route of `item`'s user: none for a scripted one (no
    /// `instructions`, or a mock run without a user route); else the
    /// user's own route, or the agent's `backend` on a live run.
    pub(super) fn of(
        item: &Item,
        backends: &dyn BackendFactory,
        backend: &Arc<dyn Backend>,
    ) -> Option<SimulatorRoute> {
        item.user.as_ref()?.instructions.as_ref()?;
        match backends.user_for(item) {
            Some(user) => Some(SimulatorRoute {
                backend: user,
                custom_endpoint: backends.user_on_custom_endpoint(),
                price: None,
            }),
            None => (!backends.is_mock()).then(|| SimulatorRoute {
                backend: backend.clone(),
                custom_endpoint: backends.is_custom_endpoint(),
                price: None,
            }),
        }
    }

    /// The route, its spend counted against a cost budget priced by
    /// `pricing` (`None`: the run has no cost budget). An unpriced model
    /// on a billed API cannot be counted: said in the log, counted apart
    /// only.
    pub(super) fn with_budget_pricing(mut self, pricing: Option<&crate::pricing::Pricing>) -> Self {
        if let Some(pricing) = pricing {
            self.price = pricing.user_price(&self.record());
            if self.price.is_none() {
                tracing::warn!(
                    model = self.backend.model(),
                    "the simulated user's model is in no pricing table: its spend is not counted against the cost budget"
                );
            }
        }
        self
    }

    /// Who played the user, for the row (its cost is priced from it).
    pub(super) fn record(&self) -> SimulatorRecord {
        SimulatorRecord {
            backend: self.backend.name().to_string(),
            model: self.backend.model().to_string(),
            custom_endpoint: self.custom_endpoint,
        }
    }
}

/// Holds `item`'s conversation with `agent`, its user a model on `route`
/// (when given and the item has `instructions`), else its script.
pub(super) async fn converse(
    agent: &Agent,
    item: &Item,
    (user, settings): (&UserSpec, &UserSettings),
    route: Option<SimulatorRoute>,
) -> ConversationRun {
    let config = DialogueConfig {
        max_user_turns: user.max_turns(),
        stop_marker: user.stop_marker().to_string(),
        final_answer: false,
        max_user_tokens: settings.max_tokens,
        user_price: route.as_ref().and_then(|r| r.price),
    };
    let first = match item.input.trim() {
        "" => user.first_message.clone(),
        input => Some(input.to_string()),
    };
    let simulator: Box<dyn UserSimulator> = match (&user.instructions, &user.script, route) {
        (Some(instructions), _, Some(route)) => Box::new(
            ModelUser::new(
                route.backend,
                instructions,
                user.persona.as_deref(),
                user.stop_marker(),
            )
            .with_max_output_tokens(settings.max_output_tokens.or(Some(512))),
        ),
        (_, Some(script), _) => Box::new(ScriptedUser::new(script.clone(), user.stop_marker())),
        (_, None, _) => Box::new(NoScript),
    };
    agent.converse(simulator.as_ref(), config, first).await
}

/// The user of a mock run whose item has no `script`: fails at once, so
/// the run ends `user_simulator_failed`.
struct NoScript;

impl UserSimulator for NoScript {
    fn next<'a>(&'a self, _: &'a [Exchange]) -> BoxFuture<'a, Result<UserTurn, BackendError>> {
        Box::pin(std::future::ready(Err(BackendError::new(
            BackendErrorKind::Config,
            "a mock run of a conversation item needs the user's `script`",
        ))))
    }
}
