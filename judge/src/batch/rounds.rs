//! [`Rounds`]: the coordinator of batch mode. Runs [`ask`](Rounds::ask);
//! the runner [`drive`](Rounds::drive)s: when every run still going is
//! waiting, the waiting requests go out as a round of batches.

use super::journal::Journal;
use crate::error::JudgeError;
use crate::progress::Progress;
use serde_json::Value;
use sha2::{Digest, Sha256};
use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};
use tokio::sync::{Notify, oneshot};
use tribunal_runtime::backend::batch::{BatchEntry, BatchService, request_error};
use tribunal_runtime::backend::retry::is_retryable;
use tribunal_runtime::backend::{BackendError, BackendErrorKind};

/// Attempts at creating a batch (its upload and creation) before the round's
/// requests fail with the error.
const SUBMIT_ATTEMPTS: u32 = 3;
/// Polls of one batch that may fail in a row before its requests fail with
/// the error.
const POLL_FAILURES: u32 = 5;

/// What one round did, for progress lines.
#[derive(Debug, Clone, PartialEq)]
pub struct BatchRound {
    /// The round's number (counting on from a resumed journal's).
    pub round: u32,
    /// Requests submitted in new batches.
    pub submitted: usize,
    /// Requests whose batch an earlier process had submitted (polled, not
    /// sent again).
    pub resumed: usize,
    /// The batches waited on.
    pub batches: Vec<String>,
    /// Requests answered.
    pub succeeded: usize,
    /// Requests that failed (in the batch, or the batch could not be sent
    /// or read).
    pub failed: usize,
    /// How long the round waited for its batches.
    pub waited: Duration,
}

/// A request waiting for its round.
struct Ask {
    /// (item index, repeat, turn): the order of requests in a batch, so
    /// that a round's batch is the same whichever run asked first.
    order: (usize, u32, u32),
    id: String,
    key: String,
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

/// The digest of a request body: its journal key.
fn digest(body: &Value) -> String {
    let mut hasher = Sha256::new();
    // Writing JSON to a hasher cannot fail.
    let _ = serde_json::to_writer(HasherWriter(&mut hasher), body);
    format!("{:x}", hasher.finalize())
}

struct HasherWriter<'a>(&'a mut Sha256);

impl std::io::Write for HasherWriter<'_> {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.0.update(buf);
        Ok(buf.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
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
        let key = digest(&body);
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
        let mut waits: Vec<(String, Vec<Ask>)> = Vec::new();
        let mut fresh = Vec::new();
        {
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
        }
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

    /// `asks` cut into batches within the provider's limits.
    fn chunks(&self, asks: Vec<Ask>) -> Vec<Vec<Ask>> {
        let limits = self.service.limits();
        let mut chunks: Vec<Vec<Ask>> = Vec::new();
        let mut bytes = 0usize;
        for ask in asks {
            // A body's size as sent, near enough: its JSON length.
            let size = ask.body.to_string().len();
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
        let mut attempt = 0;
        loop {
            attempt += 1;
            match self.service.submit(entries).await {
                Ok(id) => return Ok(id),
                Err(e) if attempt < SUBMIT_ATTEMPTS && is_retryable(&e) => {
                    let wait = e
                        .retry_after
                        .unwrap_or(Duration::from_millis(500 * u64::from(attempt)))
                        .min(Duration::from_secs(60));
                    tracing::debug!(error = %e, ?wait, "creating a batch failed; trying again");
                    tokio::time::sleep(wait).await;
                }
                Err(e) => return Err(e),
            }
        }
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
        let results = match self.service.results(batch).await {
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

fn fail_all(group: Vec<Ask>, error: &BackendError) {
    for ask in group {
        let _ = ask.reply.send(Err(error.clone()));
    }
}
