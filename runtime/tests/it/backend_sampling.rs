//! A model that refuses a sampling setting (a reasoning model's
//! temperature, Anthropic's temperature beside a top_p): the request is sent
//! again without it, later requests leave it out, and the backend says it
//! did — never a failed run.

use serde_json::{Value, json};
use tribunal_runtime::BackendKind;
use tribunal_runtime::{Backend, BackendOptions, BackendSettings, SamplingField};
use tribunal_testkit::agents::eiffel;
use tribunal_testkit::wire::*;
use wiremock::ResponseTemplate;

fn sampled(temperature: f64, top_p: Option<f64>) -> BackendOptions {
    let mut options = hosted();
    options.settings = BackendSettings {
        temperature: Some(temperature),
        top_p,
        ..options.settings.clone()
    };
    options
}

fn refusing(status: u16, body: Value) -> ResponseTemplate {
    ResponseTemplate::new(status).set_body_json(body)
}

/// The Eiffel Tower asked of a `kind` model that answers `turns` in order,
/// with `options`: the backend (to ask what it left out) and the bodies
/// the model got. The run must end with the record.
async fn answered(
    kind: BackendKind,
    turns: Vec<ResponseTemplate>,
    options: &BackendOptions,
) -> (std::sync::Arc<dyn Backend>, Vec<Value>) {
    let server = model_server(kind, turns).await;
    let backend = provider(kind, &server, options);
    let run = search_agent(backend.clone()).run("The Eiffel Tower.").await;
    assert_eq!(
        run.report.outcome.value(),
        Some(&eiffel()),
        "{:?}",
        run.report
    );
    (backend, bodies(&server).await)
}

#[tokio::test]
async fn a_refused_temperature_is_left_out_and_said_not_failed() {
    let kind = BackendKind::OpenAiChat;
    // OpenAI's answer to a reasoning model asked for temperature 0.
    let refusal = json!({"error": {
        "message": "Unsupported value: 'temperature' does not support 0 with this model. Only the default (1) value is supported.",
        "type": "invalid_request_error",
        "param": "temperature",
        "code": "unsupported_value"
    }});
    let (backend, bodies) = answered(
        kind,
        vec![
            refusing(400, refusal),
            tool_call_turn(kind, "call_1", "search", json!({"query": "Eiffel Tower"})),
            text_turn(kind, &eiffel().to_string()),
        ],
        &sampled(0.0, Some(0.9)),
    )
    .await;
    assert_eq!(
        bodies.len(),
        3,
        "the refused request, its resend, the answer"
    );
    assert_eq!(bodies[0]["temperature"], 0.0);
    for body in &bodies[1..] {
        assert!(body.get("temperature").is_none(), "{body}");
        assert_eq!(body["top_p"], 0.9, "only the refused field goes");
    }
    assert_eq!(backend.refused_sampling(), vec![SamplingField::Temperature]);
}

#[tokio::test]
async fn anthropic_refusing_a_temperature_beside_a_top_p_keeps_the_temperature() {
    let kind = BackendKind::Anthropic;
    let refusal = json!({"type": "error", "error": {
        "type": "invalid_request_error",
        "message": "`temperature` and `top_p` cannot both be specified for this model. Please use only one."
    }});
    let (backend, bodies) = answered(
        kind,
        vec![
            refusing(400, refusal),
            text_turn(kind, &eiffel().to_string()),
        ],
        &sampled(0.5, Some(0.9)),
    )
    .await;
    assert_eq!(bodies.len(), 2);
    assert_eq!(bodies[1]["temperature"], 0.5);
    assert!(bodies[1].get("top_p").is_none(), "{}", bodies[1]);
    assert_eq!(backend.refused_sampling(), vec![SamplingField::TopP]);
}

#[tokio::test]
async fn a_refusal_of_a_field_not_sent_stays_an_error() {
    // Nothing to leave out: the error is the run's, as before.
    let kind = BackendKind::OpenAiChat;
    let refusal = json!({"error": {"message": "Unsupported parameter: 'temperature'", "type": "invalid_request_error", "param": "temperature"}});
    let server = model_server(kind, vec![refusing(400, refusal)]).await;
    let backend = provider(kind, &server, &hosted());
    let run = search_agent(backend.clone()).run("hi").await;
    assert_eq!(
        run.report.outcome.error_code(),
        Some(tribunal_runtime::ErrorCode::BackendError)
    );
    assert_eq!(bodies(&server).await.len(), 1, "no second attempt");
    assert!(backend.refused_sampling().is_empty());
}

/// Requests in flight together are refused together: each is sent again
/// without the field — not only the one whose refusal came back first
/// (which alone finds the field "newly" refused).
#[tokio::test]
async fn requests_refused_together_are_each_sent_again() {
    let kind = BackendKind::OpenAiChat;
    struct RefuseTemperature(BackendKind);
    impl wiremock::Respond for RefuseTemperature {
        fn respond(&self, request: &wiremock::Request) -> ResponseTemplate {
            let body: Value = serde_json::from_slice(&request.body).unwrap_or_default();
            if body.get("temperature").is_some() {
                // Slow enough that both first requests are out before
                // either refusal is read.
                return refusing(
                    400,
                    json!({"error": {"message": "Unsupported value: 'temperature'", "type": "invalid_request_error", "param": "temperature", "code": "unsupported_value"}}),
                )
                .set_delay(std::time::Duration::from_millis(300));
            }
            text_turn(self.0, &eiffel().to_string())
        }
    }
    let server = model_server_with(kind, RefuseTemperature(kind)).await;
    let backend = provider(kind, &server, &sampled(0.0, None));
    let (first, second) = (search_agent(backend.clone()), search_agent(backend.clone()));
    let (a, b) = tokio::join!(
        first.run("The Eiffel Tower."),
        second.run("The Eiffel Tower.")
    );
    for run in [a, b] {
        assert_eq!(
            run.report.outcome.value(),
            Some(&eiffel()),
            "{:?}",
            run.report
        );
    }
    let bodies = bodies(&server).await;
    let with = bodies
        .iter()
        .filter(|b| b.get("temperature").is_some())
        .count();
    assert_eq!(
        (with, bodies.len()),
        (2, 4),
        "two refused, each sent again once"
    );
    assert_eq!(backend.refused_sampling(), vec![SamplingField::Temperature]);
}
