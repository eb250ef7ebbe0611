//! MCP tools over streamable HTTP (feature `mcp-http`) against the fixture
//! server (`tests/support/mcp_server.rs --http`): the tools listed and
//! called as over stdio; credentials sent from the environment only and a
//! refused one a coded start error; a server that goes away or is slow
//! gives error results, never a hung run.
#![allow(clippy::unwrap_used, clippy::expect_used, missing_docs)]

use serde_json::json;
use std::ffi::OsString;
use std::time::Duration;
use tokio::io::AsyncBufReadExt;
use tribunal_tools::mcp::{McpEndpoint, McpError, McpServer};

mod mcp_common;
use mcp_common::{START, call, toolbox};

/// A fixture server over HTTP, killed when dropped.
struct HttpFixture {
    child: tokio::process::Child,
    url: String,
}

/// Starts the fixture on a free port with `env` set; its first line of
/// output is its endpoint.
async fn http_fixture(env: &[(&str, &str)]) -> HttpFixture {
    let mut command = tokio::process::Command::new(env!("CARGO_BIN_EXE_mcp-test-server"));
    command
        .args(["--http", "127.0.0.1:0"])
        .env_remove("MCP_FIXTURE_TOKEN")
        .env_remove("MCP_FIXTURE_KEY")
        .envs(env.iter().copied())
        .stdout(std::process::Stdio::piped())
        .kill_on_drop(true);
    let mut child = command.spawn().unwrap();
    let stdout = child.stdout.take().unwrap();
    let mut lines = tokio::io::BufReader::new(stdout).lines();
    let url = tokio::time::timeout(START, lines.next_line())
        .await
        .unwrap()
        .unwrap()
        .unwrap();
    assert!(url.starts_with("http://127.0.0.1:"), "{url}");
    HttpFixture { child, url }
}

/// An environment holding only `vars`.
fn env_of(vars: &'static [(&'static str, &'static str)]) -> impl Fn(&str) -> Option<OsString> {
    move |name| {
        vars.iter()
            .find(|(k, _)| *k == name)
            .map(|(_, v)| OsString::from(v))
    }
}

async fn connect(fixture: &HttpFixture) -> McpServer {
    McpServer::connect("web", &McpEndpoint::new(&fixture.url), START)
        .await
        .unwrap()
}

#[tokio::test]
async fn the_tools_of_a_server_over_http_are_listed_and_called() {
    let fixture = http_fixture(&[]).await;
    let server = connect(&fixture).await;
    assert_eq!(server.name(), "web");
    let tools = toolbox(&server);
    let names: Vec<String> = tools.specs().into_iter().map(|s| s.name).collect();
    assert_eq!(
        names,
        [
            "add",
            "append_text",
            "crash",
            "echo",
            "env",
            "fail",
            "read_text",
            "sleep"
        ]
    );
    let cases = [
        (call("echo", json!({"text": "hello"})), false, "hello"),
        (call("add", json!({"a": 2, "b": 40})), false, "{\"sum\":42}"),
        (call("fail", json!({})), true, "error: the disk is on fire"),
    ];
    for (call, is_error, content) in cases {
        let done = tools.execute(&call).await;
        assert_eq!(
            (done.result.is_error, done.result.content.as_str()),
            (is_error, content),
            "{call:?}"
        );
    }
    // Checked against the server's schema before any request.
    let bad = tools
        .execute(&call("add", json!({"a": "two", "b": 1})))
        .await;
    assert!(
        bad.result
            .content
            .starts_with("error: invalid arguments for add"),
        "{}",
        bad.result.content
    );
}

#[tokio::test]
async fn credentials_come_from_the_environment_and_a_refused_one_is_a_coded_error() {
    let fixture = http_fixture(&[("MCP_FIXTURE_TOKEN", "t0k3n"), ("MCP_FIXTURE_KEY", "k3y")]).await;
    let endpoint = McpEndpoint::new(&fixture.url)
        .bearer_env("WEB_TOKEN")
        .header_env("X-Fixture-Key", "WEB_KEY");

    let right = env_of(&[("WEB_TOKEN", "t0k3n"), ("WEB_KEY", "k3y")]);
    let server = McpServer::connect_with_env("web", &endpoint, START, &right)
        .await
        .unwrap();
    let echoed = toolbox(&server)
        .execute(&call("echo", json!({"text": "in"})))
        .await;
    assert_eq!(echoed.result.content, "in");

    let wrong = env_of(&[("WEB_TOKEN", "wr0ng-t0k3n"), ("WEB_KEY", "k3y")]);
    let e = McpServer::connect_with_env("web", &endpoint, START, &wrong)
        .await
        .unwrap_err();
    assert_eq!(e.code(), "mcp_auth", "{e}");
    assert_eq!(
        e.to_string(),
        "the MCP server web refused the credentials (HTTP 401): check WEB_TOKEN, WEB_KEY"
    );
    let wrong_key = env_of(&[("WEB_TOKEN", "t0k3n"), ("WEB_KEY", "n0t-the-k3y")]);
    let e = McpServer::connect_with_env("web", &endpoint, START, &wrong_key)
        .await
        .unwrap_err();
    assert_eq!(e.code(), "mcp_auth", "{e}");
    assert!(!format!("{e} {e:?}").contains("n0t-the-k3y"), "{e:?}");

    // No credentials configured: refused, and the error says none were sent.
    let e = McpServer::connect("web", &McpEndpoint::new(&fixture.url), START)
        .await
        .unwrap_err();
    assert_eq!(e.code(), "mcp_auth", "{e}");
    assert!(e.to_string().contains("no credentials were sent"), "{e}");

    // A variable that is not set: nothing is sent at all.
    let unset = env_of(&[("WEB_KEY", "k3y")]);
    let e = McpServer::connect_with_env("web", &endpoint, START, &unset)
        .await
        .unwrap_err();
    assert_eq!(e.code(), "mcp_header", "{e}");
    assert_eq!(
        e.to_string(),
        "the MCP server web: the variable WEB_TOKEN (the value of Authorization) is not set or empty"
    );
    // A header the client sets itself is refused before any request.
    let reserved = McpEndpoint::new(&fixture.url).header_env("Accept", "WEB_KEY");
    let e = McpServer::connect_with_env("web", &reserved, START, &right)
        .await
        .unwrap_err();
    assert_eq!(
        e.to_string(),
        "the MCP server web: Accept is set by the MCP client itself"
    );
    // A value that cannot be a header is refused without being shown.
    let bad = env_of(&[("WEB_TOKEN", "line\nbreak-s3cret"), ("WEB_KEY", "k3y")]);
    let e = McpServer::connect_with_env("web", &endpoint, START, &bad)
        .await
        .unwrap_err();
    assert_eq!(e.code(), "mcp_header", "{e}");
    assert!(!format!("{e} {e:?}").contains("s3cret"), "{e:?}");
}

#[tokio::test]
async fn a_server_that_goes_away_gives_error_results_at_once() {
    let mut fixture = http_fixture(&[]).await;
    let server = connect(&fixture).await;
    let mut tools = toolbox(&server);
    // Shorter than one wait for a broken stream's resumption (the server's
    // 3 s retry hint): a call that waited for one would end as a timeout,
    // not as "not reachable". No wall-clock assertion needed.
    tools.default_timeout = GONE_WITHIN;
    // The server exits in the middle of the call.
    let crashed = tools.execute(&call("crash", json!({}))).await;
    assert!(crashed.result.is_error);
    assert_eq!(
        crashed.result.content,
        "error: the MCP server web is not reachable"
    );
    let after = tools
        .execute(&call("echo", json!({"text": "still there?"})))
        .await;
    assert_eq!(
        after.result.content,
        "error: the MCP server web is not reachable"
    );
    fixture.child.wait().await.unwrap();

    // A server killed between calls.
    let mut fixture = http_fixture(&[]).await;
    let server = connect(&fixture).await;
    let mut tools = toolbox(&server);
    tools.default_timeout = GONE_WITHIN;
    assert_eq!(
        tools
            .execute(&call("echo", json!({"text": "up"})))
            .await
            .result
            .content,
        "up"
    );
    fixture.child.kill().await.unwrap();
    let gone = tools.execute(&call("echo", json!({"text": "down"}))).await;
    assert_eq!(
        gone.result.content,
        "error: the MCP server web is not reachable"
    );
}

/// The tool timeout of the server-gone test: under the 3 s an rmcp server
/// asks a client to wait before resuming a broken stream.
const GONE_WITHIN: Duration = Duration::from_secs(2);

#[tokio::test]
async fn a_slow_call_over_http_is_cut_at_its_timeout_and_the_server_goes_on() {
    let fixture = http_fixture(&[]).await;
    let server = connect(&fixture).await;
    let mut tools = toolbox(&server);
    tools.default_timeout = Duration::from_millis(200);
    let slow = tools.execute(&call("sleep", json!({"ms": 5_000}))).await;
    assert_eq!(
        slow.result.content,
        "error: the tool sleep timed out after 200 ms"
    );
    let next = tools.execute(&call("echo", json!({"text": "next"}))).await;
    assert_eq!(
        (next.result.is_error, next.result.content.as_str()),
        (false, "next")
    );
}

#[tokio::test]
async fn an_unreachable_or_bad_url_fails_to_connect_with_a_code() {
    // A port nothing listens on any more.
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let url = format!("http://127.0.0.1:{port}/mcp");
    let e = McpServer::connect("nobody", &McpEndpoint::new(&url), START)
        .await
        .unwrap_err();
    assert_eq!(e.code(), "mcp_connect", "{e}");
    assert!(
        e.to_string().starts_with(&format!(
            "the MCP server nobody could not be reached at {url}: "
        )),
        "{e}"
    );

    // User information in the URL is never shown.
    let with_password = format!("http://user:hunter2@127.0.0.1:{port}/mcp");
    let e = McpServer::connect("nobody", &McpEndpoint::new(&with_password), START)
        .await
        .unwrap_err();
    assert_eq!(e.code(), "mcp_connect", "{e}");
    assert!(!format!("{e} {e:?}").contains("hunter2"), "{e:?}");

    let e = McpServer::connect("ftp", &McpEndpoint::new("ftp://example.invalid/mcp"), START)
        .await
        .unwrap_err();
    assert_eq!(e.code(), "mcp_connect", "{e}");

    // Something that answers HTTP but not MCP within the start timeout.
    let silent = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}/mcp", silent.local_addr().unwrap());
    let e = McpServer::connect("mute", &McpEndpoint::new(&url), Duration::from_millis(300))
        .await
        .unwrap_err();
    assert!(matches!(e, McpError::StartTimedOut { .. }), "{e}");
    assert_eq!(e.code(), "mcp_start_timeout");
}
