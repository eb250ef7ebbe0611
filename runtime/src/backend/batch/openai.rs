//! The OpenAI Batch API: the bodies of one round as a JSONL file
//! (`POST /files`, purpose `batch`), a batch over it on the codec's
//! endpoint (`POST /batches`, window `24h`), `GET /batches/{id}` to poll,
//! and the output and error files (`GET /files/{id}/content`) once it ends.

use super::super::codec::Codec;
use super::super::http::Endpoint;
use super::super::provider::ProviderConfig;
use super::super::refused_sampling::{RefusedSampling, refusal_in_answer};
use super::{
    BatchCounts, BatchEntry, BatchLimits, BatchResult, BatchService, BatchStatus,
    MAX_RESULTS_BYTES, clip, count, id_of, json_lines, path_id, request_error,
};
use crate::backend::{BackendError, BackendErrorKind, BackendInfo, ModelRequest, SamplingField};
use crate::conversation::ModelTurn;
use futures::future::BoxFuture;
use reqwest::Method;
use serde_json::{Value, json};
use std::marker::PhantomData;

/// The states in which an OpenAI batch has ended.
const ENDED: [&str; 4] = ["completed", "failed", "expired", "cancelled"];

/// The OpenAI batch client of the API `C` speaks (Chat Completions or
/// Responses).
pub(super) struct OpenAiBatches<C> {
    config: ProviderConfig,
    endpoint: Endpoint,
    /// The sampling fields the model refused: left out from then on.
    refused: RefusedSampling,
    codec: PhantomData<fn() -> C>,
}

impl<C: Codec> OpenAiBatches<C> {
    /// A client for `config` (the key checked to travel in a header).
    pub(super) fn new(config: ProviderConfig) -> Result<Self, BackendError> {
        let endpoint = Endpoint::of(&C::PROVIDER, &config)?;
        Ok(OpenAiBatches {
            config,
            endpoint,
            refused: RefusedSampling::default(),
            codec: PhantomData,
        })
    }

    /// The endpoint a batch runs on, as OpenAI names it: the base URL's
    /// path and the API's (`/v1/chat/completions`).
    fn batch_endpoint(&self) -> String {
        format!("{}{}", self.endpoint.base_path(), C::PROVIDER.path)
    }

    fn name(&self) -> &'static str {
        C::PROVIDER.name
    }

    /// The batch object.
    async fn batch(&self, id: &str) -> Result<Value, BackendError> {
        let path = format!("/batches/{}", path_id(self.name(), id)?);
        self.endpoint
            .object(self.endpoint.request(Method::GET, &path))
            .await
    }

    /// The lines of file `id`.
    async fn file_lines(&self, id: &str, what: &str) -> Result<Vec<Value>, BackendError> {
        let path = format!("/files/{}/content", path_id(self.name(), id)?);
        let bytes = self
            .endpoint
            .body(self.endpoint.request(Method::GET, &path), MAX_RESULTS_BYTES)
            .await?;
        json_lines(self.name(), what, &bytes)
    }

    /// One line of an output or error file as a result.
    fn result(&self, mut line: Value) -> Option<BatchResult> {
        let custom_id = line.get("custom_id")?.as_str()?.to_string();
        let error = line
            .get_mut("error")
            .map(Value::take)
            .filter(|e| !e.is_null());
        let response = line
            .get_mut("response")
            .map(Value::take)
            .filter(|r| !r.is_null());
        let answer = match (error, response) {
            (Some(error), _) => {
                let text = |k: &str| error.get(k).and_then(Value::as_str).unwrap_or("");
                let code = match text("code") {
                    "" => "batch_request_failed",
                    code => code,
                };
                Err(request_error(
                    self.name(),
                    code,
                    self.endpoint.scrub(clip(text("message"))),
                ))
            }
            (None, Some(mut response)) => {
                let status = response
                    .get("status_code")
                    .and_then(Value::as_u64)
                    .unwrap_or(0);
                let mut body = response
                    .get_mut("body")
                    .map(Value::take)
                    .unwrap_or_default();
                self.endpoint.scrub_answer(&mut body);
                if status == 200 {
                    Ok(body)
                } else {
                    Err(self.status_error(status, &body))
                }
            }
            (None, None) => Err(request_error(
                self.name(),
                "batch_missing_result",
                "the line has neither a response nor an error",
            )),
        };
        Some(BatchResult { custom_id, answer })
    }

    /// The `Http` error of a request the batch answered with an error
    /// status.
    fn status_error(&self, status: u64, body: &Value) -> BackendError {
        let error = body.get("error").unwrap_or(body);
        let text = |k: &str| error.get(k).and_then(Value::as_str).map(str::to_string);
        let provider_type = text("type").or_else(|| text("code"));
        let mut message = format!("{} answered HTTP {status} inside the batch", self.name());
        if let Some(t) = &provider_type {
            message.push_str(&format!(" ({t})"));
        }
        if let Some(m) = text("message") {
            message.push_str(": ");
            message.push_str(clip(&m));
        }
        let mut error = BackendError::new(BackendErrorKind::Http, self.endpoint.scrub(&message));
        error.status = u16::try_from(status).ok();
        error.provider_type = provider_type;
        error.refused_sampling = error
            .status
            .and_then(|status| refusal_in_answer(status, body));
        error
    }
}

impl<C: Codec> BatchService for OpenAiBatches<C> {
    fn info(&self) -> BackendInfo<'_> {
        self.config.info(C::PROVIDER.name)
    }

    fn encode(&self, request: &ModelRequest) -> Result<Value, BackendError> {
        let mut body = C::encode(request, &self.config)?;
        self.refused.strip(&mut body);
        Ok(body)
    }

    fn refused_sampling(&self) -> Vec<SamplingField> {
        self.refused.fields()
    }

    fn drops_refused(&self, error: &BackendError, before: &[SamplingField]) -> bool {
        self.refused.drops(
            error,
            before,
            &self.config.settings,
            (C::PROVIDER.name, &self.config.model),
        )
    }

    fn decode(&self, answer: Value) -> Result<ModelTurn, BackendError> {
        C::decode(answer)
    }

    /// 50,000 requests and 200 MB per input file; a little under, for the
    /// lines' envelopes.
    fn limits(&self) -> BatchLimits {
        BatchLimits {
            max_requests: 50_000,
            max_bytes: 190 * 1024 * 1024,
        }
    }

    fn submit<'a>(
        &'a self,
        entries: &'a [BatchEntry],
    ) -> BoxFuture<'a, Result<String, BackendError>> {
        Box::pin(async move {
            let url = self.batch_endpoint();
            let mut file = Vec::new();
            for entry in entries {
                let line = json!({
                    "custom_id": entry.custom_id,
                    "method": "POST",
                    "url": url,
                    "body": &*entry.body,
                });
                serde_json::to_writer(&mut file, &line).map_err(|e| {
                    BackendError::new(
                        BackendErrorKind::Protocol,
                        format!("{}: cannot write the batch file: {e}", self.name()),
                    )
                })?;
                file.push(b'\n');
            }
            let part = reqwest::multipart::Part::bytes(file).file_name("batch.jsonl");
            let form = reqwest::multipart::Form::new()
                .text("purpose", "batch")
                .part("file", part);
            let uploaded = self
                .endpoint
                .object(
                    self.endpoint
                        .request(Method::POST, "/files")
                        .multipart(form),
                )
                .await?;
            let file_id = id_of(self.name(), "uploaded file", &uploaded)?;
            let create = json!({
                "input_file_id": file_id,
                "endpoint": url,
                "completion_window": "24h",
            });
            let batch = self
                .endpoint
                .object(
                    self.endpoint
                        .request(Method::POST, "/batches")
                        .json(&create),
                )
                .await?;
            id_of(self.name(), "batch", &batch)
        })
    }

    fn poll<'a>(&'a self, id: &'a str) -> BoxFuture<'a, Result<BatchStatus, BackendError>> {
        Box::pin(async move {
            let batch = self.batch(id).await?;
            Ok(status_of(&batch))
        })
    }

    fn results<'a>(&'a self, id: &'a str) -> BoxFuture<'a, Result<Vec<BatchResult>, BackendError>> {
        Box::pin(async move {
            let batch = self.batch(id).await?;
            let mut results = Vec::new();
            for (key, what) in [
                ("output_file_id", "output file"),
                ("error_file_id", "error file"),
            ] {
                let Some(file) = batch.get(key).and_then(Value::as_str) else {
                    continue;
                };
                for line in self.file_lines(file, what).await? {
                    results.extend(self.result(line));
                }
            }
            Ok(results)
        })
    }
}

/// The status of an OpenAI batch object.
fn status_of(batch: &Value) -> BatchStatus {
    let state = batch
        .get("status")
        .and_then(Value::as_str)
        .unwrap_or("unknown")
        .to_string();
    let counts = batch.get("request_counts").cloned().unwrap_or_default();
    BatchStatus {
        ended: ENDED.contains(&state.as_str()),
        state,
        counts: BatchCounts {
            total: count(&counts, "total"),
            succeeded: count(&counts, "completed"),
            failed: count(&counts, "failed"),
        },
    }
}
