//! A conversation item's run ([`Item::user`]): its user simulator — the
//! item's `script` in mock mode (and live, when it gives no
//! `instructions`), else a [`ModelUser`] on the agent's model route — and
//! the conversation ([`Agent::converse`]).
//!
//! The simulator shares the agent's backend (and so its cassette and
//! cache); its tokens are counted apart (`DialogueReport::user_usage`, the
//! row's `conversation.user_usage`).

use crate::arena::UserSpec;
use crate::arena::item::Item;
use futures::future::BoxFuture;
use std::sync::Arc;
use tribunal_runtime::backend::BackendErrorKind;
use tribunal_runtime::dialogue::Exchange;
use tribunal_runtime::user::UserTurn;
use tribunal_runtime::{
    Agent, Backend, BackendError, ConversationRun, DialogueConfig, ModelUser, ScriptedUser,
    UserSimulator,
};

/// Holds `item`'s conversation with `agent`; `mock`: a scripted model run.
pub(super) async fn converse(
    agent: &Agent,
    item: &Item,
    user: &UserSpec,
    backend: Arc<dyn Backend>,
    mock: bool,
) -> ConversationRun {
    let config = DialogueConfig {
        max_user_turns: user.max_turns(),
        stop_marker: user.stop_marker().to_string(),
        final_answer: false,
    };
    let first = match item.input.trim() {
        "" => user.first_message.clone(),
        input => Some(input.to_string()),
    };
    let simulator: Box<dyn UserSimulator> = match (&user.instructions, &user.script) {
        (Some(instructions), _) if !mock => Box::new(ModelUser::new(
            backend,
            instructions,
            user.persona.as_deref(),
            user.stop_marker(),
        )),
        (_, Some(script)) => Box::new(ScriptedUser::new(script.clone(), user.stop_marker())),
        (_, None) => Box::new(NoScript),
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
