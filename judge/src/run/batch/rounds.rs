//! [`Rounds`]: the coordinator of batch mode. Runs [`ask`](Rounds::ask);
//! the runner [`drive`](Rounds::drive)s: when every run still going is
//! waiting, the waiting requests go out as a round of batches.

use super::journal::Journal;
use crate::arena::toolset::hex;
use crate::error::JudgeError;
use crate::run::progress::{BatchRound, Progress};
use serde_json::Value;
use sha2::{Digest, Sha256};
use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};
use tokio::sync::{Notify, oneshot};
use tribunal_runtime::internal::backend::batch::{BatchEntry, BatchService, request_error};
use tribunal_runtime::internal::backend::is_retryable;
use tribunal_runtime::internal::backend::{BackendError, BackendErrorKind};

/// Attempts at creating a batch (its upload and creation), or at reading an
/// ended one, before its requests fail with the error.
const ATTEMPTS: u32 = 3;
/// Polls of one batch that may fail in a row before its requests fail with
/// the error.
const POLL_FAILURES: u32 = 5;

/// A request waiting for its round.
struct Ask {
    /// (item index, repeat, turn): the order of requests in a batch, so
    /// that a round's batch is the same whichever run asked first.
    order: (usize, u32, u32),
    id: String,
    key: String,
    /// The body's JSON length: what it adds to a batch.
    size: usize,
    body: Arc<Value>,
    reply: oneshot::Sender<Result<Value, BackendError>>,
}

#[derive(Default)]
struct State {
    /// Runs not yet ended.
    live: usize,
    waiting: Vec<Ask>,
}

/// The coordinator of batch mode (see the [module docs](super)).
pub struct Rounds {
    service: Arc<dyn BatchService>,
    poll: Duration,
    state: Mutex<State>,
    journal: Mutex<Journal>,
    wake: Notify,
}

/// A lock, whether or not a thread panicked holding it (the state stays
/// consistent: every change is one assignment).
fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
}

/// A request body's journal key (the SHA-256 of its JSON) and its size as
/// sent, in bytes, from one serialisation.
fn key_and_size(body: &Value) -> (String, usize) {
    // Serialising a `Value` cannot fail.
    let bytes = serde_json::to_vec(body).unwrap_or_default();
    (hex(&Sha256::digest(&bytes)), bytes.len())
}

impl Rounds {
    /// A coordinator for `runs` runs (each must end, by dropping its
    /// backend, for the rounds to go on), sending to `service`, polling
    /// every `poll`, journaling to `journal`.
    pub fn new(
        service: Arc<dyn BatchService>,
        poll: Duration,
        journal: Journal,
        runs: usize,
    ) -> Self {
        Rounds {
            service,
            poll,
            state: Mutex::new(State {
                live: runs,
                waiting: Vec::new(),
            }),
            journal: Mutex::new(journal),
            wake: Notify::new(),
        }
    }

    /// The batch API.
    pub fn service(&self) -> &dyn BatchService {
        self.service.as_ref()
    }

    /// A run ended: one run fewer to wait for.
    pub(crate) fn run_ended(&self) {
        {
            let mut state = lock(&self.state);
            state.live = state.live.saturating_sub(1);
        }
        self.wake.notify_one();
    }

    /// Request `id` with `body`, of the run and turn `order`: answered from the journal when an earlier
    /// process had the answer, else in the next round.
    pub(crate) async fn ask(
        &self,
        order: (usize, u32, u32),
        id: String,
        body: Value,
    ) -> Result<Value, BackendError> {
        let (key, size) = key_and_size(&body);
        let known = lock(&self.journal).take_answer(&id, &key);
        if let Some(answer) = known {
            return answer;
        }
        let (reply, answer) = oneshot::channel();
        let all_waiting = {
            let mut state = lock(&self.state);
            state.waiting.push(Ask {
                order,
                id,
                key,
                size,
                body: Arc::new(body),
                reply,
            });
            state.waiting.len() >= state.live
        };
        if all_waiting {
            self.wake.notify_one();
        }
        answer.await.unwrap_or_else(|_| {
            Err(BackendError::new(
                BackendErrorKind::Batch,
                "the batch rounds stopped before this request was answered",
            ))
        })
    }

    /// Sends rounds until every run has ended. Errors: the journal cannot
    /// be written (the runs still waiting then fail, as their replies are
    /// dropped).
    pub async fn drive(&self, progress: &dyn Progress) -> Result<(), JudgeError> {
        loop {
            let asks = {
                let mut state = lock(&self.state);
                if state.live == 0 && state.waiting.is_empty() {
                    return Ok(());
                }
                if !state.waiting.is_empty() && state.waiting.len() >= state.live {
                    std::mem::take(&mut state.waiting)
                } else {
                    Vec::new()
                }
            };
            if asks.is_empty() {
                self.wake.notified().await;
                continue;
            }
            let round = self.round(asks).await?;
            progress.batch_round(&round);
        }
    }

    /// One round: `asks` in new batches (or the earlier process's), polled
    /// until each batch ends, every ask answered.
    async fn round(&self, mut asks: Vec<Ask>) -> Result<BatchRound, JudgeError> {
        asks.sort_unstable_by_key(|a| a.order);
        let number = lock(&self.journal).next_round();
        let (mut waits, fresh) = self.split_in_flight(asks);
        let resumed = waits.iter().map(|(_, g)| g.len()).sum();
        let submitted = fresh.len();
        let mut failed = 0;
        for chunk in self.chunks(fresh) {
            let entries: Vec<BatchEntry> = chunk
                .iter()
                .map(|a| BatchEntry {
                    custom_id: a.id.clone(),
                    body: a.body.clone(),
                })
                .collect();
            match self.submit(&entries).await {
                Ok(batch) => {
                    let requests = chunk
                        .iter()
                        .map(|a| (a.id.clone(), a.key.clone()))
                        .collect();
                    lock(&self.journal).submitted(number, &batch, requests)?;
                    waits.push((batch, chunk));
                }
                Err(error) => {
                    tracing::warn!(error = %error, "a batch could not be created");
                    failed += chunk.len();
                    for ask in chunk {
                        let _ = ask.reply.send(Err(error.clone()));
                    }
                }
            }
        }
        let batches = waits.iter().map(|(b, _)| b.clone()).collect();
        let started = Instant::now();
        let mut succeeded = 0;
        let mut failures: HashMap<String, u32> = HashMap::new();
        while !waits.is_empty() {
            let mut still = Vec::new();
            for (batch, group) in waits {
                let status = match self.service.poll(&batch).await {
                    Ok(status) => status,
                    Err(error) => {
                        let count = failures.entry(batch.clone()).or_default();
                        *count += 1;
                        if *count < POLL_FAILURES {
                            tracing::debug!(batch, error = %error, "polling a batch failed");
                            still.push((batch, group));
                        } else {
                            failed += group.len();
                            fail_all(group, &error);
                        }
                        continue;
                    }
                };
                if !status.ended {
                    still.push((batch, group));
                    continue;
                }
                let (ok, bad) = self.read(&batch, &status.state, group).await?;
                succeeded += ok;
                failed += bad;
            }
            waits = still;
            if !waits.is_empty() {
                tokio::time::sleep(self.poll).await;
            }
        }
        Ok(BatchRound {
            round: number,
            submitted,
            resumed,
            batches,
            succeeded,
            failed,
            waited: started.elapsed(),
        })
    }

    /// `asks` split into those an earlier process already submitted,
    /// grouped by their batch (in the journal), and the fresh ones.
    fn split_in_flight(&self, asks: Vec<Ask>) -> (Vec<(String, Vec<Ask>)>, Vec<Ask>) {
        let mut waits: Vec<(String, Vec<Ask>)> = Vec::new();
        let mut fresh = Vec::new();
        let journal = lock(&self.journal);
        for ask in asks {
            match journal.in_flight(&ask.id, &ask.key) {
                Some(batch) => match waits.iter_mut().find(|(b, _)| b == batch) {
                    Some((_, group)) => group.push(ask),
                    None => waits.push((batch.to_string(), vec![ask])),
                },
                None => fresh.push(ask),
            }
        }
        (waits, fresh)
    }

    /// `asks` cut into batches within the provider's limits.
    fn chunks(&self, asks: Vec<Ask>) -> Vec<Vec<Ask>> {
        let limits = self.service.limits();
        let mut chunks: Vec<Vec<Ask>> = Vec::new();
        let mut bytes = 0usize;
        for ask in asks {
            let size = ask.size;
            let full = chunks.last().is_none_or(|c| {
                c.len() >= limits.max_requests.max(1)
                    || (!c.is_empty() && bytes + size > limits.max_bytes)
            });
            if full {
                chunks.push(Vec::new());
                bytes = 0;
            }
            bytes += size;
            if let Some(chunk) = chunks.last_mut() {
                chunk.push(ask);
            }
        }
        chunks
    }

    /// Creates a batch of `entries`, retrying transient failures.
    async fn submit(&self, entries: &[BatchEntry]) -> Result<String, BackendError> {
        retrying("creating a batch", || self.service.submit(entries)).await
    }

    /// Reads the results of ended batch `batch` (its provider state
    /// `state`), journals them and answers `group`. Returns (succeeded,
    /// failed).
    async fn read(
        &self,
        batch: &str,
        state: &str,
        group: Vec<Ask>,
    ) -> Result<(usize, usize), JudgeError> {
        // The batch is paid for: a transient failure to read it is retried.
        let results = match retrying("reading a batch", || self.service.results(batch)).await {
            Ok(results) => results,
            Err(error) => {
                tracing::warn!(batch, error = %error, "the results of a batch could not be read");
                let n = group.len();
                fail_all(group, &error);
                return Ok((0, n));
            }
        };
        let mut by_id: HashMap<String, Result<Value, BackendError>> = results
            .into_iter()
            .map(|r| (r.custom_id, r.answer))
            .collect();
        let name = self.service.info().name;
        let outcomes: Vec<(Ask, Result<Value, BackendError>)> = group
            .into_iter()
            .map(|ask| {
                let outcome = by_id.remove(&ask.id).unwrap_or_else(|| {
                    Err(request_error(
                        name,
                        format!("batch_{state}"),
                        format!("the batch ended ({state}) without a result for this request"),
                    ))
                });
                (ask, outcome)
            })
            .collect();
        lock(&self.journal).answered(
            outcomes
                .iter()
                .map(|(a, o)| (a.id.as_str(), a.key.as_str(), o)),
        )?;
        let ok = outcomes.iter().filter(|(_, o)| o.is_ok()).count();
        let bad = outcomes.len() - ok;
        for (ask, outcome) in outcomes {
            let _ = ask.reply.send(outcome);
        }
        Ok((ok, bad))
    }
}

/// `call()`, tried again (up to [`ATTEMPTS`] in all) while it fails with a
/// transient error, after the wait the provider asked for or a short backoff.
async fn retrying<T, F, Fut>(what: &str, call: F) -> Result<T, BackendError>
where
    F: Fn() -> Fut,
    Fut: std::future::Future<Output = Result<T, BackendError>>,
{
    let mut attempt = 0;
    loop {
        attempt += 1;
        match call().await {
            Ok(value) => return Ok(value),
            Err(e) if attempt < ATTEMPTS && is_retryable(&e) => {
                let wait = e
                    .retry_after
                    .unwrap_or(Duration::from_millis(500 * u64::from(attempt)))
                    .min(Duration::from_secs(60));
                tracing::debug!(error = %e, ?wait, "{what} failed; trying again");
                tokio::time::sleep(wait).await;
            }
            Err(e) => return Err(e),
        }
    }
}

fn fail_all(group: Vec<Ask>, error: &BackendError) {
    for ask in group {
        let _ = ask.reply.send(Err(error.clone()));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;
    use tribunal_runtime::Backend as _;
    use tribunal_runtime::internal::backend::batch::{BatchLimits, BatchResult, BatchStatus};
    use tribunal_runtime::internal::backend::{BackendInfo, ModelRequest};
    use tribunal_runtime::internal::conversation::ModelTurn;
    use tribunal_runtime::internal::output::OutputPlan;

    /// A batch API in memory: at most two requests a batch; answers each
    /// request with its body, except `skip` (no result); each batch is
    /// in progress on its first poll.
    struct TwoAtATime {
        batches: Mutex<Vec<Vec<String>>>,
        /// Reads of results; the first fails with a 503.
        reads: Mutex<u32>,
        polls: Mutex<HashMap<String, u32>>,
        skip: &'static str,
        plan: OutputPlan,
    }

    impl BatchService for TwoAtATime {
        fn info(&self) -> BackendInfo<'_> {
            BackendInfo {
                name: "fake",
                model: "m",
                plan: self.plan,
            }
        }
        fn encode(&self, _: &ModelRequest) -> Result<Value, BackendError> {
            unreachable!("the rounds are given bodies")
        }
        fn decode(&self, _: Value) -> Result<ModelTurn, BackendError> {
            unreachable!("the rounds hand back bodies")
        }
        fn limits(&self) -> BatchLimits {
            BatchLimits {
                max_requests: 2,
                max_bytes: 1 << 20,
            }
        }
        fn submit<'a>(
            &'a self,
            entries: &'a [BatchEntry],
        ) -> futures::future::BoxFuture<'a, Result<String, BackendError>> {
            Box::pin(async move {
                let mut batches = lock(&self.batches);
                batches.push(entries.iter().map(|e| e.custom_id.clone()).collect());
                Ok(format!("b{}", batches.len()))
            })
        }
        fn poll<'a>(
            &'a self,
            id: &'a str,
        ) -> futures::future::BoxFuture<'a, Result<BatchStatus, BackendError>> {
            Box::pin(async move {
                let mut polls = lock(&self.polls);
                let n = polls.entry(id.to_string()).or_default();
                *n += 1;
                Ok(BatchStatus {
                    ended: *n > 1,
                    state: "completed".into(),
                    counts: Default::default(),
                })
            })
        }
        fn results<'a>(
            &'a self,
            id: &'a str,
        ) -> futures::future::BoxFuture<'a, Result<Vec<BatchResult>, BackendError>> {
            Box::pin(async move {
                *lock(&self.reads) += 1;
                if *lock(&self.reads) == 1 {
                    let mut e = BackendError::new(BackendErrorKind::Http, "busy");
                    e.status = Some(503);
                    return Err(e);
                }
                let n: usize = id[1..].parse().unwrap();
                Ok(lock(&self.batches)[n - 1]
                    .iter()
                    .filter(|i| *i != self.skip)
                    .map(|i| BatchResult {
                        custom_id: i.clone(),
                        answer: Ok(json!({ "echo": i })),
                    })
                    .collect())
            })
        }
    }

    #[derive(Default)]
    struct Seen(Mutex<Vec<BatchRound>>);

    impl Progress for Seen {
        fn start(&self, _: &str, _: usize, _: usize, _: bool) {}
        fn finished(&self, _: &crate::rows::results::ResultRow) {}
        fn batch_round(&self, round: &BatchRound) {
            lock(&self.0).push(round.clone());
        }
        fn done(&self) {}
    }

    #[tokio::test(start_paused = true)]
    async fn a_round_waits_for_every_run_splits_at_the_limit_and_fails_a_missing_result() {
        let dir = tempfile::tempdir().unwrap();
        let service = Arc::new(TwoAtATime {
            batches: Mutex::default(),
            reads: Mutex::default(),
            polls: Mutex::default(),
            skip: "i3-r0-t1",
            plan: tribunal_runtime::internal::backend::ScriptedBackend::from_turns([])
                .output_plan(),
        });
        let journal = Journal::create(&dir.path().join("j")).unwrap();
        let rounds = Rounds::new(service.clone(), Duration::ZERO, journal, 5);
        let progress = Seen::default();
        let asks = (0..5).rev().map(|i| {
            let rounds = &rounds;
            async move {
                let answer = rounds
                    .ask((i, 0, 1), format!("i{i}-r0-t1"), json!({"i": i}))
                    .await;
                rounds.run_ended();
                answer
            }
        });
        let (answers, driven) =
            tokio::join!(futures::future::join_all(asks), rounds.drive(&progress));
        driven.unwrap();
        // One round of three batches, in item order, two at a time.
        assert_eq!(
            *lock(&service.batches),
            [
                vec!["i0-r0-t1", "i1-r0-t1"],
                vec!["i2-r0-t1", "i3-r0-t1"],
                vec!["i4-r0-t1"]
            ]
        );
        let rounds_seen = lock(&progress.0).clone();
        assert_eq!(rounds_seen.len(), 1);
        assert_eq!(
            (
                rounds_seen[0].submitted,
                rounds_seen[0].succeeded,
                rounds_seen[0].failed
            ),
            (5, 4, 1)
        );
        // A transient failure to read a paid batch was retried.
        assert_eq!(*lock(&service.reads), 4);
        // Asked from item 4 down to 0.
        assert_eq!(answers[0], Ok(json!({"echo": "i4-r0-t1"})));
        let Err(missing) = &answers[1] else {
            panic!("item 3 had no result: {:?}", answers[1]);
        };
        assert_eq!(missing.kind, BackendErrorKind::Batch);
        assert_eq!(missing.provider_type.as_deref(), Some("batch_completed"));
    }
}
