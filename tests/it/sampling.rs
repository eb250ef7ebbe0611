//! How answers were sampled, through the binary: every row of a live run
//! says it, the report prints it, `compare` says when the sides differ, and
//! a model that refuses the temperature costs a resend, not the run.

use crate::json_lines;
use crate::stand_in::{Api, Model, live_env, model_server, run_args, stderr, stdout, tribunal};
use serde_json::{Value, json};
use std::path::Path;
use wiremock::{Request, Respond, ResponseTemplate};

async fn run_ok(args: &[String], cwd: &Path, env: &[(&str, String)]) {
    let o = tribunal(args, cwd, env).await;
    assert_eq!(o.status.code(), Some(0), "{}\n{}", stdout(&o), stderr(&o));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn rows_and_reports_say_how_answers_were_sampled_and_compare_says_when_it_differs() {
    let api = Api::Chat;
    let (server, _) = model_server(api).await;
    let dir = tempfile::tempdir().unwrap();
    let (pinned, open) = (
        dir.path().join("pinned.jsonl"),
        dir.path().join("open.jsonl"),
    );
    let env = live_env(api, &server);
    run_ok(
        &run_args(api, &pinned, &["--temperature", "0.5", "--seed", "7"]),
        dir.path(),
        &env,
    )
    .await;
    run_ok(&run_args(api, &open, &[]), dir.path(), &env).await;

    let rows = json_lines(&pinned);
    assert_eq!(rows.len(), 15);
    for row in &rows {
        assert_eq!(
            row["sampling"],
            json!({"temperature": 0.5, "seed": 7}),
            "{row}"
        );
    }
    for row in json_lines(&open) {
        // The arena pins greedy decoding (arenas/structured_output/arena.toml).
        assert_eq!(row["sampling"], json!({"temperature": 0.0}), "{row}");
    }
    // The server saw what the rows say.
    let bodies: Vec<Value> = server
        .received_requests()
        .await
        .unwrap()
        .iter()
        .filter(|r| r.method == wiremock::http::Method::POST)
        .map(|r| serde_json::from_slice(&r.body).unwrap())
        .collect();
    let pinned_bodies = bodies.iter().filter(|b| b["temperature"] == 0.5).count();
    let open_bodies = bodies.iter().filter(|b| b["temperature"] == 0.0).count();
    assert!(
        pinned_bodies >= 15 && open_bodies >= 15,
        "{pinned_bodies} {open_bodies}"
    );
    assert_eq!(pinned_bodies + open_bodies, bodies.len());

    let report = tribunal(&["report", pinned.to_str().unwrap()], dir.path(), &[]).await;
    assert!(
        stdout(&report).contains("sampling: temperature 0.5, seed 7\n"),
        "{}",
        stdout(&report)
    );
    let report = tribunal(&["report", open.to_str().unwrap()], dir.path(), &[]).await;
    assert!(stdout(&report).contains("sampling: temperature 0\n"));

    let compare = tribunal(
        &["compare", pinned.to_str().unwrap(), open.to_str().unwrap()],
        dir.path(),
        &[],
    )
    .await;
    assert!(
        stdout(&compare).contains(
            "note: the sides were sampled differently (baseline: temperature 0.5, seed 7; new: temperature 0)"
        ),
        "{}",
        stdout(&compare)
    );
    let same = tribunal(
        &["compare", open.to_str().unwrap(), open.to_str().unwrap()],
        dir.path(),
        &[],
    )
    .await;
    assert!(!stdout(&same).contains("sampled differently"));
}

/// A model that, like OpenAI's reasoning models, refuses any temperature.
struct NoTemperature(Model);

impl Respond for NoTemperature {
    fn respond(&self, request: &Request) -> ResponseTemplate {
        let body: Value = serde_json::from_slice(&request.body).unwrap_or_default();
        if body.get("temperature").is_some() {
            return ResponseTemplate::new(400).set_body_json(json!({"error": {
                "message": "Unsupported value: 'temperature' does not support 0 with this model. Only the default (1) value is supported.",
                "type": "invalid_request_error",
                "param": "temperature",
                "code": "unsupported_value"
            }}));
        }
        self.0.respond(request)
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_model_that_refuses_the_temperature_is_run_without_it_and_the_report_says_so() {
    let api = Api::Chat;
    let server =
        tribunal_testkit::wire::serve(api.endpoint(), NoTemperature(Model::honest(api))).await;
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("results.jsonl");
    run_ok(
        &run_args(api, &out, &["--temperature", "0", "--concurrency", "1"]),
        dir.path(),
        &live_env(api, &server),
    )
    .await;
    let rows = json_lines(&out);
    assert!(rows.iter().all(|r| r["outcome"] == "PASS"), "no run fails");
    for row in &rows {
        assert_eq!(
            row["sampling"],
            json!({"temperature": 0.0, "refused": ["temperature"]}),
            "{row}"
        );
    }
    let refused = server
        .received_requests()
        .await
        .unwrap()
        .iter()
        .filter(|r| String::from_utf8_lossy(&r.body).contains("\"temperature\""))
        .count();
    assert_eq!(refused, 1, "refused once, then left out of every request");
    let report = tribunal(&["report", out.to_str().unwrap()], dir.path(), &[]).await;
    assert!(
        stdout(&report).contains(
            "sampling: the server's default (temperature refused by the model: its default used)"
        ),
        "{}",
        stdout(&report)
    );
}
