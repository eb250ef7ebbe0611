//! [`Cached`]: a [`Backend`] wrapper that answers a request it has answered
//! before from a cache file, and asks the wrapped backend otherwise — so a
//! rerun after a change to checks or reports makes no model call.
//!
//! The cache file *is* a cassette ([`super::record`]): a header, then one
//! exchange per answered request, appended as answers arrive. A request is
//! matched by its normalised key ([`request_key`]) and by how many times
//! this process has asked it before: the n-th identical request gets the
//! n-th cached answer, so `--repeat 5` keeps five distinct samples of an
//! item's first turn. Errors are never cached, nor a call the run deadline
//! cut (only a [`Recording`](super::Recording) above writes it, as `cut`): a
//! cut holds no answer, and it tells of that run's deadline and the server's
//! speed, not of the request, so a rerun asks the model again. A request
//! whose answers are used up goes to the model and its answer is added.
//!
//! Which backend, model, base URL and settings the answers came from is the
//! caller's business: keep one file per combination (the CLI names the file
//! by a hash of them). The header's backend and model must match the wrapped
//! backend's.
//!
//! Each run can count its hits and misses with [`counted`].

use super::delta::send_whole;
use super::record::{
    CassetteLine, RecordedOutcome, append_line, request_json, request_key, write_line,
};
use super::{
    Backend, BackendError, BackendErrorKind, DeltaSink, ModelRequest, Replay, Wrapper, forward,
};
use crate::conversation::ModelTurn;
use serde::{Deserialize, Serialize};
use std::collections::{HashMap, VecDeque};
use std::fs::{File, OpenOptions};
use std::future::Future;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::{Arc, Mutex};

/// Cache hits and misses (of one run, or of all).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct CacheCounts {
    /// Requests answered from the cache.
    pub hits: u32,
    /// Requests that went to the model.
    pub misses: u32,
}

#[derive(Debug, Default)]
struct Counter {
    hits: AtomicU32,
    misses: AtomicU32,
}

impl Counter {
    fn get(&self) -> CacheCounts {
        CacheCounts {
            hits: self.hits.load(Ordering::Relaxed),
            misses: self.misses.load(Ordering::Relaxed),
        }
    }
}

tokio::task_local! {
    static RUN_COUNTER: Arc<Counter>;
}

/// Runs `future` and counts the cache hits and misses of the [`Cached`]
/// backends it calls (none when it calls none).
pub fn counted<F: Future>(future: F) -> impl Future<Output = (F::Output, CacheCounts)> {
    // Not an `async fn`: one would hold `future` twice (as its argument and
    // inside the scope it awaits), doubling the size of every run's task.
    use futures::FutureExt;
    let counter = Arc::new(Counter::default());
    RUN_COUNTER
        .scope(counter.clone(), future)
        .map(move |output| (output, counter.get()))
}

/// Answers from the cache file when it can, from the wrapped backend when
/// it cannot.
#[derive(Debug)]
pub struct Cached<B> {
    inner: B,
    path: PathBuf,
    answers: Mutex<HashMap<String, VecDeque<ModelTurn>>>,
    file: Mutex<File>,
    total: Counter,
}

fn io_error(path: &Path, what: &str, e: std::io::Error) -> BackendError {
    BackendError::new(
        BackendErrorKind::Config,
        format!("cannot {what} the cache {}: {e}", path.display()),
    )
}

/// Cuts a torn last line (a run killed while writing it) off the cache
/// file, as the results file does; returns the length kept.
fn keep_whole_lines(path: &Path) -> Result<u64, BackendError> {
    let bytes = std::fs::read(path).map_err(|e| io_error(path, "read", e))?;
    let whole = bytes.iter().rposition(|b| *b == b'\n').map_or(0, |i| i + 1);
    if whole < bytes.len() {
        tracing::warn!(
            "the cache {} ended in a torn line; it is discarded",
            path.display()
        );
        let file = OpenOptions::new()
            .write(true)
            .open(path)
            .map_err(|e| io_error(path, "open", e))?;
        file.set_len(whole as u64)
            .map_err(|e| io_error(path, "truncate", e))?;
    }
    Ok(whole as u64)
}

impl<B: Backend> Cached<B> {
    /// Opens (or creates, with its folder) the cache file at `path` for
    /// `inner`. Errors: an unreadable or corrupt file, or one written for
    /// another backend or model.
    pub fn open(inner: B, path: impl AsRef<Path>) -> Result<Self, BackendError> {
        let path = path.as_ref().to_path_buf();
        let info = inner.info();
        let mut answers: HashMap<String, VecDeque<ModelTurn>> = HashMap::new();
        let existing = path.is_file() && keep_whole_lines(&path)? > 0;
        if existing {
            let old = Replay::from_file(&path)?;
            let (name, model) = (old.name().to_string(), old.model().to_string());
            if name != info.name || model != info.model {
                return Err(BackendError::new(
                    BackendErrorKind::Config,
                    format!(
                        "the cache {} holds answers of {name} / {model}, not {} / {}",
                        path.display(),
                        info.name,
                        info.model
                    ),
                ));
            }
            for (key, outcome) in old.into_answers() {
                if let RecordedOutcome::Turn(turn) = outcome {
                    answers.entry(key).or_default().push_back(turn);
                }
            }
        } else if let Some(parent) = path.parent().filter(|p| !p.as_os_str().is_empty()) {
            std::fs::create_dir_all(parent).map_err(|e| io_error(&path, "create", e))?;
        }
        let mut file = OpenOptions::new()
            .create(true)
            .append(true)
            .open(&path)
            .map_err(|e| io_error(&path, "open", e))?;
        if !existing {
            write_line(&mut file, &CassetteLine::header(&info))
                .map_err(|e| io_error(&path, "write", e))?;
        }
        Ok(Cached {
            inner,
            path,
            answers: Mutex::new(answers),
            file: Mutex::new(file),
            total: Counter::default(),
        })
    }

    /// Hits and misses over every request so far.
    pub fn counts(&self) -> CacheCounts {
        self.total.get()
    }

    /// The cache file.
    pub fn path(&self) -> &Path {
        &self.path
    }

    fn count(&self, hit: bool) {
        let bump = |c: &Counter| {
            let n = if hit { &c.hits } else { &c.misses };
            n.fetch_add(1, Ordering::Relaxed);
        };
        bump(&self.total);
        let _ = RUN_COUNTER.try_with(|c| bump(c));
    }
}

impl<B: Backend> Wrapper for Cached<B> {
    type Inner = B;

    fn inner(&self) -> &B {
        &self.inner
    }

    /// A hit is sent whole ([`send_whole`]); a miss streams from the inner
    /// backend and is stored as the turn it adds up to.
    async fn answer<'a>(
        &'a self,
        request: &'a ModelRequest,
        sink: Option<DeltaSink<'a>>,
    ) -> Result<ModelTurn, BackendError> {
        let key = request_key(request);
        let hit = self
            .answers
            .lock()
            .ok()
            .and_then(|mut a| a.get_mut(&key).and_then(VecDeque::pop_front));
        if let Some(turn) = hit {
            self.count(true);
            if let Some(sink) = sink {
                send_whole(&turn, sink);
            }
            return Ok(turn);
        }
        self.count(false);
        let turn = forward(&self.inner, request, sink).await?;
        let line = CassetteLine::Exchange {
            key,
            request: request_json(request),
            outcome: RecordedOutcome::Turn(turn.clone()),
        };
        let written = append_line(&self.file, &line);
        if let Err(e) = written {
            // The answer is good; only the cache lost it. Say so, and
            // answer: a cache never fails a run.
            tracing::warn!("{}", io_error(&self.path, "write", e));
        }
        Ok(turn)
    }
}
