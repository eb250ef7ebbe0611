//! Sampling settings a model refuses. Hosted reasoning models take no
//! temperature but their default (OpenAI answers HTTP 400 with
//! `"param": "temperature"`), and some Anthropic models refuse a
//! temperature and a top_p together. Such a refusal is the model's, not the
//! run's: the live backend sends the request again without the field, and
//! leaves it out of every later request to that model; the result rows say
//! which setting was left out ([`Backend::refused_sampling`]), so a report
//! never claims a temperature that was not used.
//!
//! [`Backend::refused_sampling`]: super::Backend::refused_sampling

#[cfg(feature = "http")]
use super::settings::BackendSettings;
#[cfg(feature = "http")]
use serde_json::Value;
#[cfg(feature = "http")]
use std::sync::atomic::{AtomicU8, Ordering};

/// A sampling field of the request body (in stored files by its name in
/// request bodies: `temperature`, `top_p`, `seed`).
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, serde::Serialize, serde::Deserialize,
)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum SamplingField {
    /// `temperature`.
    Temperature,
    /// `top_p`.
    TopP,
    /// `seed`.
    Seed,
}

impl SamplingField {
    /// Every field, in the order reports list them.
    pub const ALL: [SamplingField; 3] = [
        SamplingField::Temperature,
        SamplingField::TopP,
        SamplingField::Seed,
    ];

    /// The field's name in request bodies and settings.
    pub fn as_str(self) -> &'static str {
        match self {
            SamplingField::Temperature => "temperature",
            SamplingField::TopP => "top_p",
            SamplingField::Seed => "seed",
        }
    }

    #[cfg(feature = "http")]
    fn bit(self) -> u8 {
        match self {
            SamplingField::Temperature => 1,
            SamplingField::TopP => 2,
            SamplingField::Seed => 4,
        }
    }

    /// This field's value in `settings`, as a request body carries it (a
    /// plain JSON number), if they set it.
    #[cfg(feature = "http")]
    pub(crate) fn value_in(self, settings: &BackendSettings) -> Option<Value> {
        match self {
            SamplingField::Temperature => settings.temperature.map(Value::from),
            SamplingField::TopP => settings.top_p.map(Value::from),
            SamplingField::Seed => settings.seed.map(Value::from),
        }
    }

    #[cfg(feature = "http")]
    fn named(name: &str) -> Option<SamplingField> {
        SamplingField::ALL.into_iter().find(|f| f.as_str() == name)
    }
}

#[cfg(feature = "http")]
/// The fields a backend's model has refused so far, shared by every run on
/// that backend (a model that refuses a temperature refuses it every time).
#[derive(Debug, Default)]
pub(crate) struct RefusedSampling(AtomicU8);

#[cfg(feature = "http")]
impl RefusedSampling {
    /// Marks `field` refused; whether it was not already.
    pub(crate) fn refuse(&self, field: SamplingField) -> bool {
        self.0.fetch_or(field.bit(), Ordering::Relaxed) & field.bit() == 0
    }

    /// The refused fields, in [`SamplingField::ALL`]'s order.
    pub(crate) fn fields(&self) -> Vec<SamplingField> {
        let bits = self.0.load(Ordering::Relaxed);
        SamplingField::ALL
            .into_iter()
            .filter(|f| bits & f.bit() != 0)
            .collect()
    }

    /// Whether `error` refuses a sampling field that a body carried: one
    /// `settings` set and that was not yet among the refused fields
    /// (`before`: [`fields`](Self::fields) read before that body was
    /// encoded). The field is then marked refused (one WARN line naming
    /// `backend`, `model` and the field, the first time) and the request
    /// should be sent again. Concurrent requests refused together are each
    /// sent again; a request is sent again at most once per field.
    pub(crate) fn drops(
        &self,
        error: &super::BackendError,
        before: &[SamplingField],
        settings: &BackendSettings,
        (backend, model): (&str, &str),
    ) -> bool {
        match error.refused_sampling {
            Some(field) if field.value_in(settings).is_some() && !before.contains(&field) => {
                if self.refuse(field) {
                    tracing::warn!(
                        backend,
                        model,
                        field = field.as_str(),
                        "the model refuses this sampling setting: sent without it from now on"
                    );
                }
                true
            }
            _ => false,
        }
    }

    /// Removes the refused fields from an encoded request body.
    pub(crate) fn strip(&self, body: &mut Value) {
        let bits = self.0.load(Ordering::Relaxed);
        if bits == 0 {
            return;
        }
        if let Value::Object(map) = body {
            for field in SamplingField::ALL {
                if bits & field.bit() != 0 {
                    map.remove(field.as_str());
                }
            }
        }
    }
}

#[cfg(feature = "http")]
/// The sampling field an HTTP error answer refuses, if it is such a
/// refusal: a 400 (or 422) whose error names the field as its `param`
/// (OpenAI: `unsupported_value` / `unsupported_parameter`), or whose message
/// says a temperature and a top_p cannot both be given (Anthropic: the
/// top_p is then the one left out) or that the field is not supported.
pub(crate) fn refusal_in(status: u16, body: &[u8]) -> Option<SamplingField> {
    if !matches!(status, 400 | 422) {
        return None;
    }
    refusal_in_answer(status, &serde_json::from_slice(body).ok()?)
}

#[cfg(feature = "http")]
/// [`refusal_in`] of an answer already read as JSON (a batch's answer to
/// one of its requests).
pub(crate) fn refusal_in_answer(status: u16, value: &Value) -> Option<SamplingField> {
    if !matches!(status, 400 | 422) {
        return None;
    }
    let error = value
        .get("error")
        .filter(|e| e.is_object())
        .unwrap_or(value);
    if let Some(field) = error
        .get("param")
        .and_then(Value::as_str)
        .and_then(SamplingField::named)
    {
        return Some(field);
    }
    let message = error.get("message").and_then(Value::as_str)?.to_lowercase();
    if message.contains("temperature")
        && message.contains("top_p")
        && message.contains("cannot both")
    {
        return Some(SamplingField::TopP);
    }
    let unsupported = ["not supported", "unsupported", "does not support"]
        .iter()
        .any(|s| message.contains(s));
    if !unsupported {
        return None;
    }
    let named: Vec<SamplingField> = SamplingField::ALL
        .into_iter()
        .filter(|f| message.contains(f.as_str()))
        .collect();
    match named.as_slice() {
        [one] => Some(*one),
        _ => None,
    }
}

#[cfg(all(test, feature = "http"))]
mod tests {
    use super::*;
    use serde_json::json;

    fn refusal(status: u16, body: Value) -> Option<SamplingField> {
        refusal_in(status, body.to_string().as_bytes())
    }

    #[test]
    fn openai_names_the_refused_field_as_its_param() {
        // The shape OpenAI answers a reasoning model's temperature with.
        let body = json!({"error": {
            "message": "Unsupported value: 'temperature' does not support 0 with this model. Only the default (1) value is supported.",
            "type": "invalid_request_error",
            "param": "temperature",
            "code": "unsupported_value"
        }});
        assert_eq!(refusal(400, body.clone()), Some(SamplingField::Temperature));
        // Not a refusal at another status.
        assert_eq!(refusal(500, body), None);
        let top_p = json!({"error": {"message": "Unsupported parameter: 'top_p' is not supported with this model.", "type": "invalid_request_error", "param": "top_p", "code": "unsupported_parameter"}});
        assert_eq!(refusal(400, top_p), Some(SamplingField::TopP));
    }

    #[test]
    fn anthropic_refusing_both_leaves_out_the_top_p() {
        let body = json!({"type": "error", "error": {
            "type": "invalid_request_error",
            "message": "`temperature` and `top_p` cannot both be specified for this model. Please use only one."
        }});
        assert_eq!(refusal(400, body), Some(SamplingField::TopP));
    }

    #[test]
    fn other_bad_requests_are_not_refusals() {
        for body in [
            json!({"error": {"message": "max_tokens is too large", "param": "max_tokens"}}),
            json!({"error": {"message": "temperature must be at most 2"}}),
            json!({"error": {"message": "unsupported: temperature and seed"}}),
            json!("not an object"),
        ] {
            assert_eq!(refusal(400, body.clone()), None, "{body}");
        }
        assert_eq!(refusal_in(400, b"<html>"), None);
    }

    #[test]
    fn a_refused_field_is_stripped_from_every_later_body() {
        let refused = RefusedSampling::default();
        assert!(refused.refuse(SamplingField::Temperature));
        assert!(!refused.refuse(SamplingField::Temperature));
        let mut body = json!({"model": "m", "temperature": 0.0, "seed": 7});
        refused.strip(&mut body);
        assert_eq!(body, json!({"model": "m", "seed": 7}));
        assert_eq!(refused.fields(), vec![SamplingField::Temperature]);
    }
}
