//! [`ScriptedBackend`]: plays a fixed script of assistant turns, for
//! deterministic tests, benchmarks and mock mode.

use super::{Backend, BackendError, BackendErrorKind, BackendInfo, ModelRequest, SchemaTarget};
use crate::conversation::{ModelTurn, StopReason, ToolCall, Usage};
use crate::output::OutputPlan;
use futures::future::BoxFuture;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use std::borrow::Cow;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

/// One step of a script.
#[derive(Debug, Clone, PartialEq)]
pub enum ScriptStep {
    /// Return this turn.
    Turn(ModelTurn),
    /// Fail with this error.
    Fail(BackendError),
}

/// A script step as written in files (an arena item's `"mock"` array).
///
/// ```json
/// {"tool_calls": [{"name": "search", "arguments": {"query": "Eiffel Tower"}}]}
/// {"json": {"name": "Eiffel Tower", "year": 1889}}
/// {"text": "plain text", "stop": "length", "usage": {"input_tokens": 10, "output_tokens": 5}}
/// ```
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ScriptTurn {
    /// The assistant's text.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub text: Option<String>,
    /// A JSON value the assistant answers with (serialised as its text).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub json: Option<Value>,
    /// Tool calls.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub tool_calls: Vec<ScriptToolCall>,
    /// Stop reason (default: `tool_use` with tool calls, else `end_turn`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stop: Option<StopReason>,
    /// Reported usage (default: 0 / 0).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub usage: Option<Usage>,
}

/// A tool call in a written script.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ScriptToolCall {
    /// Call id (default: `call_<turn>_<index>`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub id: Option<String>,
    /// Tool name.
    pub name: String,
    /// Arguments: a JSON value, or a string taken as raw argument text.
    #[serde(default)]
    pub arguments: Value,
}

impl ScriptTurn {
    /// Converts a written turn into a [`ModelTurn`]; `turn_index` numbers default call ids.
    pub fn to_model_turn(&self, turn_index: usize) -> ModelTurn {
        let mut text = self.text.clone().unwrap_or_default();
        if let Some(json) = &self.json {
            if !text.is_empty() {
                text.push('\n');
            }
            text.push_str(&json.to_string());
        }
        let tool_calls: Vec<ToolCall> = self
            .tool_calls
            .iter()
            .enumerate()
            .map(|(i, c)| ToolCall {
                id: c
                    .id
                    .clone()
                    .unwrap_or_else(|| format!("call_{turn_index}_{i}")),
                name: c.name.clone(),
                arguments: match &c.arguments {
                    Value::String(raw) => raw.clone(),
                    Value::Null => "{}".to_string(),
                    other => other.to_string(),
                },
            })
            .collect();
        let stop = self.stop.unwrap_or(if tool_calls.is_empty() {
            StopReason::EndTurn
        } else {
            StopReason::ToolUse
        });
        ModelTurn {
            text,
            tool_calls,
            usage: self.usage.unwrap_or_default(),
            stop,
            reasoning: Vec::new(),
        }
    }
}

/// A backend that plays a script.
///
/// Records every request it receives ([`ScriptedBackend::requests`]), fails
/// with a clear error on a call beyond the script, and reports unconsumed
/// steps ([`ScriptedBackend::remaining`]).
#[derive(Debug)]
pub struct ScriptedBackend {
    steps: Arc<[ScriptStep]>,
    next: AtomicUsize,
    requests: Mutex<Vec<ModelRequest>>,
    log_requests: bool,
    latency: Duration,
    plan: OutputPlan,
    /// Built for every mock run: the default costs no allocation.
    model: Cow<'static, str>,
}

/// The name a scripted backend reports.
const NAME: &str = "mock";

impl ScriptedBackend {
    /// A backend that plays `steps` in order.
    pub fn new(steps: Vec<ScriptStep>) -> Self {
        ScriptedBackend::shared(steps.into())
    }

    /// A backend that plays `steps`, shared with other backends (build the
    /// steps once with [`ScriptedBackend::steps_of`] and play them in many
    /// runs without copying them).
    pub fn shared(steps: Arc<[ScriptStep]>) -> Self {
        ScriptedBackend {
            steps,
            next: AtomicUsize::new(0),
            requests: Mutex::new(Vec::new()),
            log_requests: true,
            latency: Duration::ZERO,
            plan: OutputPlan::native(SchemaTarget::Plain),
            model: Cow::Borrowed("scripted"),
        }
    }

    /// A backend that returns these turns in order.
    pub fn from_turns(turns: impl IntoIterator<Item = ModelTurn>) -> Self {
        ScriptedBackend::new(turns.into_iter().map(ScriptStep::Turn).collect())
    }

    /// A backend from written script turns.
    pub fn from_script(turns: &[ScriptTurn]) -> Self {
        ScriptedBackend::shared(ScriptedBackend::steps_of(turns))
    }

    /// The steps that written script turns play, for [`ScriptedBackend::shared`].
    pub fn steps_of(turns: &[ScriptTurn]) -> Arc<[ScriptStep]> {
        turns
            .iter()
            .enumerate()
            .map(|(i, t)| ScriptStep::Turn(t.to_model_turn(i)))
            .collect()
    }

    /// Waits `latency` before each turn (simulated model latency). Default: none.
    pub fn with_latency(mut self, latency: Duration) -> Self {
        self.latency = latency;
        self
    }

    /// Plays answers in the wire dialect of `target`, so decode is exercised.
    /// Default: [`SchemaTarget::Plain`].
    pub fn with_target(mut self, target: SchemaTarget) -> Self {
        self.plan.target = target;
        self
    }

    /// Reports `plan` to the loop, which then builds its requests for that
    /// strategy (the answer tool, schema on tool turns, …). Default: native,
    /// schema on every turn, [`SchemaTarget::Plain`].
    pub fn with_output_plan(mut self, plan: OutputPlan) -> Self {
        self.plan = plan;
        self
    }

    /// The model name reported. Default: `scripted`.
    pub fn with_model(mut self, model: impl Into<String>) -> Self {
        self.model = Cow::Owned(model.into());
        self
    }

    /// Keeps no request log ([`requests`](Self::requests) stays empty): for
    /// mock runs and load tests, where nothing reads it. A kept request
    /// holds a share of the run's conversation, so the loop must copy the
    /// conversation when it next grows; without the log it grows in place.
    pub fn without_request_log(mut self) -> Self {
        self.log_requests = false;
        self
    }

    /// Every request received so far (none after
    /// [`without_request_log`](Self::without_request_log)).
    pub fn requests(&self) -> Vec<ModelRequest> {
        self.requests.lock().map(|r| r.clone()).unwrap_or_default()
    }

    /// How many steps were never played.
    pub fn remaining(&self) -> usize {
        self.steps
            .len()
            .saturating_sub(self.next.load(Ordering::SeqCst))
    }
}

impl Backend for ScriptedBackend {
    fn info(&self) -> BackendInfo<'_> {
        BackendInfo {
            name: NAME,
            model: &self.model,
            plan: self.plan,
        }
    }

    fn complete<'a>(
        &'a self,
        request: &'a ModelRequest,
    ) -> BoxFuture<'a, Result<ModelTurn, BackendError>> {
        Box::pin(async move {
            if self.log_requests
                && let Ok(mut log) = self.requests.lock()
            {
                log.push(request.clone());
            }
            let index = self.next.fetch_add(1, Ordering::SeqCst);
            if !self.latency.is_zero() {
                tokio::time::sleep(self.latency).await;
            }
            match self.steps.get(index) {
                Some(ScriptStep::Turn(turn)) => Ok(turn.clone()),
                Some(ScriptStep::Fail(e)) => Err(e.clone()),
                None => Err(BackendError::new(
                    BackendErrorKind::Script,
                    format!(
                        "the script has {} step(s) and request {} asked for one more",
                        self.steps.len(),
                        index + 1
                    ),
                )),
            }
        })
    }
}
