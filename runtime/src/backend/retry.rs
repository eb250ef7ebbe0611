//! [`Retry`]: a [`Backend`] wrapper that retries transient failures.
//!
//! Retried: HTTP 408, 409, 429, 500, 502, 503, 504, 529; a connection that
//! failed, or an answer that never came, broke off or stalled part-way (a
//! dropped or idle stream, a body cut short); and a provider's error event
//! inside a stream whose type says it passes ([`TRANSIENT_ERROR_TYPES`]).
//! Never retried: other statuses (400, 401, 403, 404, …), other error
//! events (an invalid request), and answers that could not be understood.
//!
//! A retry discards the partial answer; a streaming caller that had some of
//! it is first sent [`Delta::Restart`]. Tokens a failed attempt spent
//! ([`BackendError::spent`]) are added to the turn, or to the last error.
//! The wait is the provider's `Retry-After` when given, else exponential
//! backoff with jitter; a `Retry-After` longer than [`Retry::with_max_wait`]
//! is not waited for (the error is returned). The run deadline cancels a
//! wait: the driver bounds the whole `complete` call with it.

use super::timeouts::Stage;
use super::{
    Backend, BackendError, BackendErrorKind, Delta, DeltaSink, ModelRequest, Wrapper, forward,
};
use crate::conversation::{ModelTurn, Usage};
use rand::Rng;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

/// HTTP statuses worth another attempt.
pub(super) const RETRYABLE_STATUSES: [u16; 8] = [408, 409, 429, 500, 502, 503, 504, 529];

/// Provider error types of a stream's error event worth another attempt:
/// overloaded, rate-limited, a server error (Anthropic `overloaded_error`,
/// `api_error`, `rate_limit_error`; OpenAI `server_error`,
/// `rate_limit_exceeded`).
pub(super) const TRANSIENT_ERROR_TYPES: [&str; 5] = [
    "overloaded_error",
    "api_error",
    "rate_limit_error",
    "server_error",
    "rate_limit_exceeded",
];

/// Whether `error` is worth another attempt (see the module docs).
pub fn is_retryable(error: &BackendError) -> bool {
    match error.kind {
        BackendErrorKind::Http => error
            .status
            .is_some_and(|s| RETRYABLE_STATUSES.contains(&s)),
        // A connection that failed, timed out, broke off or stalled. A
        // provider's own error event inside a stream only when its type is
        // one that passes — the same error before the stream (529, 500, 429)
        // is retried too (Anthropic: "errors can occur after a 200").
        BackendErrorKind::Transport => match error.stage {
            Some(Stage::ErrorEvent) => error
                .provider_type
                .as_deref()
                .is_some_and(|t| TRANSIENT_ERROR_TYPES.contains(&t)),
            _ => true,
        },
        _ => false,
    }
}

/// Retries the inner backend's transient failures.
#[derive(Debug)]
pub struct Retry<B> {
    inner: B,
    max_retries: u32,
    base_delay: Duration,
    max_delay: Duration,
    max_wait: Duration,
}

impl<B: Backend> Retry<B> {
    /// Wraps `inner`, allowing `max_retries` retries after the first attempt.
    pub fn new(inner: B, max_retries: u32) -> Self {
        Retry {
            inner,
            max_retries,
            base_delay: Duration::from_millis(500),
            max_delay: Duration::from_secs(8),
            max_wait: Duration::from_secs(60),
        }
    }

    /// Sets the backoff: the `n`th retry (from 0) waits a random time between
    /// half and all of `base · 2ⁿ`, at most `max`. Default: 500 ms, 8 s.
    pub fn with_backoff(mut self, base: Duration, max: Duration) -> Self {
        self.base_delay = base;
        self.max_delay = max;
        self
    }

    /// Sets the longest `Retry-After` honoured; a longer one ends the retries
    /// with the error. Default: 60 s.
    pub fn with_max_wait(mut self, max_wait: Duration) -> Self {
        self.max_wait = max_wait;
        self
    }

    /// The wrapped backend.
    pub fn inner(&self) -> &B {
        &self.inner
    }

    /// How long to wait before retry number `retry` (from 0) after `error`;
    /// `None` when the provider asks for longer than the maximum wait.
    fn delay(&self, retry: u32, error: &BackendError) -> Option<Duration> {
        if let Some(wait) = error.retry_after {
            return (wait <= self.max_wait).then_some(wait);
        }
        let full = self
            .base_delay
            .saturating_mul(2u32.saturating_pow(retry))
            .min(self.max_delay);
        let half = full / 2;
        let jitter = rand::rng().random_range(0.0..=1.0);
        Some(half + half.mul_f64(jitter))
    }
}

impl<B: Backend> Wrapper for Retry<B> {
    type Inner = B;

    fn inner(&self) -> &B {
        &self.inner
    }

    /// A retry after part of the answer was passed on first sends
    /// [`Delta::Restart`]: the caller drops what it has and the answer
    /// streams again from its start.
    async fn answer<'a>(
        &'a self,
        request: &'a ModelRequest,
        sink: Option<DeltaSink<'a>>,
    ) -> Result<ModelTurn, BackendError> {
        let started = AtomicBool::new(false);
        let tracked = |delta: Delta| {
            started.store(true, Ordering::Relaxed);
            if let Some(sink) = sink {
                sink(delta);
            }
        };
        let tracked: Option<DeltaSink<'_>> = sink.map(|_| &tracked as DeltaSink<'_>);
        let mut retry = 0;
        // What the failed attempts reported spending.
        let mut spent = Usage::default();
        loop {
            let mut error = match forward(&self.inner, request, tracked).await {
                Ok(mut turn) => {
                    turn.usage.add(spent);
                    return Ok(turn);
                }
                Err(e) => e,
            };
            spent.add(*error.spent);
            *error.spent = spent;
            if retry >= self.max_retries || !is_retryable(&error) {
                return Err(error);
            }
            let Some(wait) = self.delay(retry, &error) else {
                tracing::warn!(
                    backend = self.inner.name(),
                    status = error.status,
                    "not retrying: the provider asks to wait longer than allowed"
                );
                return Err(error);
            };
            retry += 1;
            tracing::warn!(
                backend = self.inner.name(),
                status = error.status,
                kind = ?error.kind,
                stage = error.stage.map(Stage::as_str),
                retry,
                wait_ms = wait.as_millis() as u64,
                "retrying"
            );
            if started.swap(false, Ordering::Relaxed)
                && let Some(sink) = sink
            {
                sink(Delta::Restart);
            }
            tokio::time::sleep(wait).await;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::backend::OutputFormat;
    use crate::backend::scripted::{ScriptStep, ScriptedBackend};
    use crate::conversation::Conversation;

    fn http(status: u16, retry_after: Option<Duration>) -> ScriptStep {
        let mut e = BackendError::new(BackendErrorKind::Http, format!("HTTP {status}"));
        e.status = Some(status);
        e.retry_after = retry_after;
        ScriptStep::Fail(e)
    }

    fn request() -> ModelRequest {
        ModelRequest {
            conversation: Conversation::new(None, "hi").into(),
            tools: Vec::new().into(),
            tool_choice: Default::default(),
            output: OutputFormat::Text,
            max_output_tokens: None,
        }
    }

    #[tokio::test(start_paused = true)]
    async fn honours_retry_after_then_succeeds() {
        let inner = ScriptedBackend::new(vec![
            http(429, Some(Duration::from_secs(3))),
            ScriptStep::Turn(ModelTurn::default()),
        ]);
        let retry = Retry::new(inner, 2);
        let start = tokio::time::Instant::now();
        assert!(retry.complete(&request()).await.is_ok());
        assert_eq!(start.elapsed(), Duration::from_secs(3));
        assert_eq!(retry.inner().requests().len(), 2);
    }

    #[tokio::test(start_paused = true)]
    async fn gives_up_after_max_retries_and_skips_non_retryable() {
        let inner = ScriptedBackend::new(vec![http(500, None), http(503, None), http(529, None)]);
        let retry = Retry::new(inner, 2);
        let err = retry.complete(&request()).await.unwrap_err();
        assert_eq!(err.status, Some(529));
        assert_eq!(retry.inner().requests().len(), 3);

        let inner = ScriptedBackend::new(vec![http(400, None)]);
        let retry = Retry::new(inner, 2);
        assert_eq!(
            retry.complete(&request()).await.unwrap_err().status,
            Some(400)
        );
        assert_eq!(retry.inner().requests().len(), 1);
    }

    #[tokio::test(start_paused = true)]
    async fn a_too_long_retry_after_is_not_waited_for() {
        let inner = ScriptedBackend::new(vec![http(429, Some(Duration::from_secs(600)))]);
        let retry = Retry::new(inner, 2);
        let start = tokio::time::Instant::now();
        assert_eq!(
            retry.complete(&request()).await.unwrap_err().status,
            Some(429)
        );
        assert_eq!(start.elapsed(), Duration::ZERO);
    }

    #[test]
    fn classification() {
        let mut broken = BackendError::new(BackendErrorKind::Transport, "broke off");
        assert!(is_retryable(&broken));
        broken.status = Some(200);
        assert!(
            is_retryable(&broken),
            "a stream that broke off is asked again"
        );
        assert!(is_retryable(&broken.clone().at(Stage::StreamIdle)));
        let mut event = broken.at(Stage::ErrorEvent);
        assert!(!is_retryable(&event), "an error event of no known type");
        event.provider_type = Some("invalid_request_error".into());
        assert!(!is_retryable(&event));
        event.provider_type = Some("overloaded_error".into());
        assert!(is_retryable(&event));
        assert!(!is_retryable(&BackendError::new(
            BackendErrorKind::Protocol,
            "x"
        )));
    }
}
