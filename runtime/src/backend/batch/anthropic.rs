//! Anthropic Message Batches: `POST /v1/messages/batches` with every
//! request's params, `GET /v1/messages/batches/{id}` to poll, and
//! `GET /v1/messages/batches/{id}/results` once it has ended. The results
//! are read below the configured base URL, never from the `results_url`
//! the batch names, so the key goes nowhere else.

use super::super::anthropic::AnthropicCodec;
use super::super::codec::Codec;
use super::super::http::Endpoint;
use super::super::provider::ProviderConfig;
use super::super::refused_sampling::{RefusedSampling, refusal_in_answer};
use super::{
    BatchCounts, BatchEntry, BatchLimits, BatchResult, BatchService, BatchStatus,
    MAX_RESULTS_BYTES, clip, count, id_of, json_lines, path_id, request_error,
};
use crate::backend::{BackendError, BackendInfo, ModelRequest, SamplingField};
use crate::conversation::ModelTurn;
use futures::future::BoxFuture;
use reqwest::Method;
use serde_json::{Value, json};

/// The Anthropic Message Batches client.
pub(super) struct AnthropicBatches {
    config: ProviderConfig,
    endpoint: Endpoint,
    /// The sampling fields the model refused: left out from then on.
    refused: RefusedSampling,
}

/// The batches' path, below the Messages endpoint's.
fn batches_path() -> String {
    format!("{}/batches", AnthropicCodec::PROVIDER.path)
}

impl AnthropicBatches {
    /// A client for `config` (the key checked to travel in a header).
    pub(super) fn new(config: ProviderConfig) -> Result<Self, BackendError> {
        let endpoint = Endpoint::of(&AnthropicCodec::PROVIDER, &config)?;
        Ok(AnthropicBatches {
            config,
            endpoint,
            refused: RefusedSampling::default(),
        })
    }

    fn name(&self) -> &'static str {
        AnthropicCodec::PROVIDER.name
    }

    /// One line of the results as a result.
    fn result(&self, mut line: Value) -> Option<BatchResult> {
        let custom_id = line.get("custom_id")?.as_str()?.to_string();
        let mut result = line.get_mut("result").map(Value::take).unwrap_or_default();
        let kind = result
            .get("type")
            .and_then(Value::as_str)
            .unwrap_or("")
            .to_string();
        let answer = match kind.as_str() {
            "succeeded" => {
                let mut message = result
                    .get_mut("message")
                    .map(Value::take)
                    .unwrap_or_default();
                self.endpoint.scrub_answer(&mut message);
                Ok(message)
            }
            "errored" => {
                // {"type": "error", "error": {"type": "invalid_request_error", "message": …}}
                let error = result.get("error").map(|e| e.get("error").unwrap_or(e));
                let text = |k: &str| {
                    error
                        .and_then(|e| e.get(k))
                        .and_then(Value::as_str)
                        .unwrap_or("")
                };
                let provider_type = match text("type") {
                    "" => "errored",
                    t => t,
                };
                let mut failed = request_error(
                    self.name(),
                    provider_type,
                    self.endpoint.scrub(clip(text("message"))),
                );
                // An invalid request inside a batch is what the online API
                // answers with a 400: read a refused sampling field the same way.
                if provider_type == "invalid_request_error" {
                    failed.refused_sampling =
                        error.and_then(|e| refusal_in_answer(400, &json!({ "error": e })));
                }
                Err(failed)
            }
            "" => Err(request_error(
                self.name(),
                "batch_missing_result",
                "the line has no result type",
            )),
            other => Err(request_error(
                self.name(),
                other,
                "the batch ended before this request ran",
            )),
        };
        Some(BatchResult { custom_id, answer })
    }
}

impl BatchService for AnthropicBatches {
    fn info(&self) -> BackendInfo<'_> {
        self.config.info(self.name())
    }

    fn encode(&self, request: &ModelRequest) -> Result<Value, BackendError> {
        let mut body = AnthropicCodec::encode(request, &self.config)?;
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
            (self.name(), &self.config.model),
        )
    }

    fn decode(&self, answer: Value) -> Result<ModelTurn, BackendError> {
        AnthropicCodec::decode(answer)
    }

    /// 100,000 requests and 256 MB per batch; a little under, for the
    /// envelopes.
    fn limits(&self) -> BatchLimits {
        BatchLimits {
            max_requests: 100_000,
            max_bytes: 240 * 1024 * 1024,
        }
    }

    fn submit<'a>(
        &'a self,
        entries: &'a [BatchEntry],
    ) -> BoxFuture<'a, Result<String, BackendError>> {
        Box::pin(async move {
            let requests: Vec<Value> = entries
                .iter()
                .map(|e| json!({"custom_id": e.custom_id, "params": &*e.body}))
                .collect();
            let body = json!({ "requests": requests });
            let request = self
                .endpoint
                .request(Method::POST, &batches_path())
                .json(&body);
            let batch = self.endpoint.object(request).await?;
            id_of(self.name(), "batch", &batch)
        })
    }

    fn poll<'a>(&'a self, id: &'a str) -> BoxFuture<'a, Result<BatchStatus, BackendError>> {
        Box::pin(async move {
            let path = format!("{}/{}", batches_path(), path_id(self.name(), id)?);
            let request = self.endpoint.request(Method::GET, &path);
            let batch = self.endpoint.object(request).await?;
            let state = batch
                .get("processing_status")
                .and_then(Value::as_str)
                .unwrap_or("unknown")
                .to_string();
            let counts = batch.get("request_counts").cloned().unwrap_or_default();
            let failed = ["errored", "canceled", "expired"]
                .iter()
                .map(|k| count(&counts, k))
                .sum::<u64>();
            let succeeded = count(&counts, "succeeded");
            Ok(BatchStatus {
                ended: state == "ended",
                state,
                counts: BatchCounts {
                    total: succeeded + failed + count(&counts, "processing"),
                    succeeded,
                    failed,
                },
            })
        })
    }

    fn results<'a>(&'a self, id: &'a str) -> BoxFuture<'a, Result<Vec<BatchResult>, BackendError>> {
        Box::pin(async move {
            let path = format!("{}/{}/results", batches_path(), path_id(self.name(), id)?);
            let request = self.endpoint.request(Method::GET, &path);
            let bytes = self.endpoint.body(request, MAX_RESULTS_BYTES).await?;
            Ok(json_lines(self.name(), "results", &bytes)?
                .into_iter()
                .filter_map(|line| self.result(line))
                .collect())
        })
    }
}
