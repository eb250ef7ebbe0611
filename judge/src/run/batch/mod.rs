//! Batch mode (`tribunal run --batch`): every run's next model request goes
//! into one provider batch per round, and the answers are fed back to each
//! run's loop.
//!
//! The loop does not know: each run gets a [`Backend`] whose `complete`
//! hands the request's body to the [`Rounds`] coordinator and waits. Every
//! run of the arena is in flight at once; when each run still going is
//! waiting on the model (the others are running tools between turns, or
//! have finished), the coordinator sends the waiting requests as one batch
//! (several when a provider limit needs it), polls it every `poll` until it
//! ends, and answers each run. The next round carries the next turn of
//! every run still going — so an arena finishes in as many rounds as its
//! longest run has model turns. Budgets, the repair and finalize turns,
//! checks and result rows are the online ones, with one exception: the run
//! deadline does not apply, because a batch may take up to its 24-hour
//! window; tools keep their own timeouts.
//!
//! A request's id in a batch is `i{item index}-r{repeat}-t{turn}`. The
//! [`journal`] beside the results file makes a killed run resumable
//! without paying twice.

pub mod journal;
mod rounds;

pub use crate::run::progress::BatchRound;
pub use journal::{Journal, journal_path};
pub use rounds::Rounds;

use futures::future::BoxFuture;
use std::sync::Arc;
use std::time::Duration;
use tribunal_runtime::Backend;
use tribunal_runtime::internal::backend::batch::BatchService;
use tribunal_runtime::internal::backend::{BackendError, BackendInfo, ModelRequest, SamplingField};
use tribunal_runtime::internal::conversation::ModelTurn;

/// How a run sends its model requests in batches.
#[derive(Clone)]
pub struct BatchSettings {
    /// The provider's batch API.
    pub service: Arc<dyn BatchService>,
    /// How long to wait between polls of a batch in flight.
    pub poll: Duration,
}

impl std::fmt::Debug for BatchSettings {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let info = self.service.info();
        f.debug_struct("BatchSettings")
            .field("backend", &info.name)
            .field("model", &info.model)
            .field("poll", &self.poll)
            .finish()
    }
}

/// The backend of one run in batch mode: each request waits for its round.
/// Dropped when the run ends, which tells the coordinator it has one run
/// fewer to wait for.
pub(crate) struct BatchTurns {
    rounds: Arc<Rounds>,
    index: usize,
    repeat: u32,
    turns: std::sync::atomic::AtomicU32,
}

impl BatchTurns {
    /// The backend of the run of item `index`, repeat `repeat`.
    pub(crate) fn new(rounds: Arc<Rounds>, index: usize, repeat: u32) -> Self {
        BatchTurns {
            rounds,
            index,
            repeat,
            turns: Default::default(),
        }
    }
}

impl Drop for BatchTurns {
    fn drop(&mut self) {
        self.rounds.run_ended();
    }
}

impl Backend for BatchTurns {
    fn info(&self) -> BackendInfo<'_> {
        self.rounds.service().info()
    }

    fn complete<'a>(
        &'a self,
        request: &'a ModelRequest,
    ) -> BoxFuture<'a, Result<ModelTurn, BackendError>> {
        Box::pin(async move {
            let service = self.rounds.service();
            loop {
                let before = service.refused_sampling();
                let body = service.encode(request)?;
                let turn = 1 + self
                    .turns
                    .fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                let id = format!("i{}-r{}-t{turn}", self.index, self.repeat);
                let order = (self.index, self.repeat, turn);
                match self.rounds.ask(order, id, body).await {
                    // A refused sampling field: asked again without it, in
                    // the next round, under the next id (a resumed run reads
                    // the refusal from the journal and does the same).
                    Err(error) if service.drops_refused(&error, &before) => continue,
                    answer => return service.decode(answer?),
                }
            }
        })
    }

    fn refused_sampling(&self) -> Vec<SamplingField> {
        self.rounds.service().refused_sampling()
    }
}
