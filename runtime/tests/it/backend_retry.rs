//! Retries over real HTTP (wiremock) with a paused clock: `Retry-After`,
//! exhausted retries, statuses that are not retried, and a stalled answer
//! that ends at the run deadline.

use std::sync::Arc;
use std::time::Duration;
use tribunal_runtime::BackendOptions;
use tribunal_runtime::{Agent, BackendKind, Budget, Conversation, ErrorCode, connect_with_env};
use tribunal_runtime::{BackendErrorKind, ModelRequest, OutputFormat};
use tribunal_testkit::agents::{eiffel, landmark_schema};
use tribunal_testkit::wire::*;

fn request() -> ModelRequest {
    ModelRequest {
        conversation: Conversation::new(None, "hi").into(),
        tool_choice: Default::default(),
        tools: Vec::new().into(),
        output: OutputFormat::Text,
        max_output_tokens: Some(32),
    }
}

/// Options for a test on a paused clock: no stage timeouts, since a paused
/// clock jumps to any pending timer while a real server is still answering.
fn paused() -> BackendOptions {
    BackendOptions {
        timeouts: Some(tribunal_runtime::Timeouts::unbounded()),
        ..BackendOptions::default()
    }
}

#[tokio::test(start_paused = true)]
async fn retry_after_is_honoured_then_success() {
    for kind in ALL {
        let server = model_server(
            kind,
            vec![
                error_turn(kind, 429, "rate_limit_error").insert_header("retry-after", "2"),
                text_turn(kind, "hello"),
            ],
        )
        .await;
        let env = env_for(kind, &server);
        let backend = connect_with_env(kind, "test-model", &paused(), &env).unwrap();
        let start = tokio::time::Instant::now();
        let turn = backend.complete(&request()).await.unwrap();
        assert_eq!(turn.text, "hello");
        assert!(start.elapsed() >= Duration::from_secs(2), "{kind}: waited");
        assert_eq!(bodies(&server).await.len(), 2, "{kind}");
    }
}

#[tokio::test(start_paused = true)]
async fn server_errors_give_up_after_exactly_three_attempts() {
    for kind in ALL {
        let server = model_server(kind, vec![error_turn(kind, 500, "server_error")]).await;
        let env = env_for(kind, &server);
        let backend = connect_with_env(kind, "test-model", &paused(), &env).unwrap();
        let err = backend.complete(&request()).await.unwrap_err();
        assert_eq!((err.kind, err.status), (BackendErrorKind::Http, Some(500)));
        assert_eq!(bodies(&server).await.len(), 3, "{kind}");
    }
}

#[tokio::test(start_paused = true)]
async fn overloaded_529_is_retried() {
    let kind = BackendKind::Anthropic;
    let server = model_server(
        kind,
        vec![
            error_turn(kind, 529, "overloaded_error"),
            text_turn(kind, "ok"),
        ],
    )
    .await;
    let env = env_for(kind, &server);
    let backend = connect_with_env(kind, "test-model", &paused(), &env).unwrap();
    assert_eq!(backend.complete(&request()).await.unwrap().text, "ok");
    assert_eq!(bodies(&server).await.len(), 2);
}

// On the real clock: nothing here should wait. Under the paused clock the
// test once saw two requests for one 400 in a loaded CI run — most likely
// the clock auto-advanced while the server's thread was slow to answer and
// a client timer dropped the connection, which was then retried.
#[tokio::test]
async fn client_errors_are_not_retried() {
    for kind in ALL {
        for (status, kind_name) in [
            (400, "invalid_request_error"),
            (401, "authentication_error"),
            (403, "permission_error"),
            (404, "not_found_error"),
        ] {
            let server = model_server(kind, vec![error_turn(kind, status, kind_name)]).await;
            let env = env_for(kind, &server);
            let backend =
                connect_with_env(kind, "test-model", &BackendOptions::default(), &env).unwrap();
            let err = backend.complete(&request()).await.unwrap_err();
            assert_eq!(err.status, Some(status));
            assert_eq!(err.provider_type.as_deref(), Some(kind_name));
            assert_eq!(bodies(&server).await.len(), 1, "{kind} {status}");
        }
    }
}

/// A server that accepts each connection and closes it at once, before any
/// response: every attempt is a connection failure. Counts the attempts.
fn closing_server() -> (u16, Arc<std::sync::atomic::AtomicUsize>) {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    let accepted = Arc::new(std::sync::atomic::AtomicUsize::new(0));
    let count = Arc::clone(&accepted);
    std::thread::spawn(move || {
        for stream in listener.incoming() {
            count.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
            drop(stream);
        }
    });
    (port, accepted)
}

/// Real clock (the backoff waits are 0.25–1.5 s in all): a paused clock
/// would jump over the HTTP client's timers while it waits on real sockets.
#[tokio::test]
async fn connection_failures_are_retried_exactly_max_retries_times() {
    let (port, accepted) = closing_server();
    let env = move |name: &str| match name {
        "OPENAI_API_KEY" => Some(FAKE_KEY.to_string()),
        "OPENAI_BASE_URL" => Some(format!("http://127.0.0.1:{port}/v1")),
        _ => None,
    };
    let backend = connect_with_env(
        BackendKind::OpenAiChat,
        "m",
        &BackendOptions::default(),
        &env,
    )
    .unwrap();
    let err = backend.complete(&request()).await.unwrap_err();
    assert_eq!((err.kind, err.status), (BackendErrorKind::Transport, None));
    // The first attempt and the two default retries, then the error.
    assert_eq!(accepted.load(std::sync::atomic::Ordering::SeqCst), 3);

    // With no retries: one attempt.
    let (port, accepted) = closing_server();
    let env = move |name: &str| match name {
        "OPENAI_API_KEY" => Some(FAKE_KEY.to_string()),
        "OPENAI_BASE_URL" => Some(format!("http://127.0.0.1:{port}/v1")),
        _ => None,
    };
    let options = BackendOptions {
        settings: tribunal_runtime::BackendSettings {
            max_retries: Some(0),
            ..Default::default()
        },
        ..BackendOptions::default()
    };
    let backend = connect_with_env(BackendKind::OpenAiChat, "m", &options, &env).unwrap();
    let err = backend.complete(&request()).await.unwrap_err();
    assert_eq!(err.kind, BackendErrorKind::Transport);
    assert_eq!(accepted.load(std::sync::atomic::Ordering::SeqCst), 1);
}

#[tokio::test(start_paused = true)]
async fn a_stalled_answer_ends_at_the_deadline() {
    for kind in ALL {
        let stalled = text_turn(kind, &eiffel().to_string()).set_delay(Duration::from_secs(30));
        let server = model_server(kind, vec![stalled]).await;
        let env = env_for(kind, &server);
        let backend = connect_with_env(kind, "test-model", &paused(), &env).unwrap();
        let agent = Agent::new(backend, Arc::new(landmark_schema()))
            .unwrap()
            .with_budget(Budget {
                deadline: Some(Duration::from_secs(5)),
                ..Budget::default()
            });
        let real = std::time::Instant::now();
        let start = tokio::time::Instant::now();
        let run = agent.run("Eiffel Tower?").await;
        assert_eq!(
            run.report.outcome.error_code(),
            Some(ErrorCode::DeadlineExceeded),
            "{kind}"
        );
        // The deadline, in virtual time; no real wait for the stalled body
        // (which would take its whole 30 s: the only real bound that cannot
        // flake on a loaded machine).
        assert!(start.elapsed() >= Duration::from_secs(5));
        assert!(start.elapsed() < Duration::from_secs(30));
        assert!(real.elapsed() < Duration::from_secs(30));
    }
}
