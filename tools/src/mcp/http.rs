//! MCP servers over streamable HTTP (feature `mcp-http`): [`McpEndpoint`]
//! says where a server is and which headers to send, and
//! [`McpServer::connect`] speaks MCP to it with rmcp's reqwest client.
//!
//! Secrets never sit in an endpoint: a header's value is read from the
//! environment variable the endpoint names for it ([`McpEndpoint::bearer_env`],
//! [`McpEndpoint::header_env`]), when the server is connected, and no error
//! or log line shows it. An unset variable is an error before any request
//! is sent, rather than a request without its credentials.
//!
//! ```no_run
//! use std::time::Duration;
//! use tribunal_runtime::ToolBox;
//! use tribunal_tools::mcp::{McpEndpoint, McpServer};
//!
//! # async fn demo() -> Result<(), Box<dyn std::error::Error>> {
//! let docs = McpEndpoint::new("https://mcp.example.com/mcp")
//!     .bearer_env("DOCS_MCP_TOKEN")
//!     .header_env("X-Team", "DOCS_TEAM");
//! let server = McpServer::connect("docs", &docs, Duration::from_secs(30)).await?;
//! let mut tools = ToolBox::new();
//! tools.extend(server.tools()); // then `agent.with_tools(tools)`
//! # Ok(())
//! # }
//! ```

use super::{McpError, McpServer};
use rmcp::service::ClientInitializeError;
use rmcp::transport::StreamableHttpClientTransport;
use rmcp::transport::common::client_side_sse::SseRetryPolicy;
use rmcp::transport::streamable_http_client::{
    StreamableHttpClientTransportConfig, StreamableHttpError,
};
use std::collections::HashMap;
use std::ffi::OsString;
use std::sync::Arc;
use std::time::Duration;

/// The headers rmcp's client sets itself (lower case, as `http` keeps names).
const RESERVED_HEADERS: [&str; 4] = [
    "accept",
    "mcp-session-id",
    "mcp-protocol-version",
    "last-event-id",
];

/// Where an MCP server over streamable HTTP is, and the headers sent to it,
/// each valued from an environment variable.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct McpEndpoint {
    /// The server's MCP endpoint, `http://` or `https://` (e.g.
    /// `http://127.0.0.1:8000/mcp`).
    pub url: String,
    /// The variable whose value is sent as `Authorization: Bearer {value}`.
    pub bearer: Option<String>,
    /// Other headers: (header name, the variable holding its value).
    pub headers: Vec<(String, String)>,
}

impl McpEndpoint {
    /// An endpoint at `url`, sending no credentials.
    pub fn new(url: impl Into<String>) -> Self {
        McpEndpoint {
            url: url.into(),
            bearer: None,
            headers: Vec::new(),
        }
    }

    /// Sends `Authorization: Bearer {the value of variable}`, builder style.
    pub fn bearer_env(mut self, variable: impl Into<String>) -> Self {
        self.bearer = Some(variable.into());
        self
    }

    /// Sends the header `name` valued from `variable`, builder style.
    pub fn header_env(mut self, name: impl Into<String>, variable: impl Into<String>) -> Self {
        self.headers.push((name.into(), variable.into()));
        self
    }

    /// The end of the sentence of a refused credential: the variables the
    /// headers came from (`: check WEB_TOKEN`), or that none were sent.
    fn hint(&self) -> String {
        let names: Vec<&str> = self
            .bearer
            .iter()
            .map(String::as_str)
            .chain(self.headers.iter().map(|(_, v)| v.as_str()))
            .collect();
        if names.is_empty() {
            ": no credentials were sent (bearer_env, header_env)".to_string()
        } else {
            format!(": check {}", names.join(", "))
        }
    }

    /// `text` with the URL's user information (`user:password@`), if any,
    /// masked: errors quote the URL.
    fn redact(&self, text: &str) -> String {
        let authority = self.url.split_once("://").map_or("", |(_, rest)| {
            rest.split(['/', '?', '#']).next().unwrap_or_default()
        });
        match authority.rsplit_once('@') {
            Some((userinfo, _)) if !userinfo.is_empty() => text.replace(userinfo, "***"),
            _ => text.to_string(),
        }
    }

    /// The transport's configuration, its header values read through `env`.
    fn config(
        &self,
        server: &str,
        env: &dyn Fn(&str) -> Option<OsString>,
    ) -> Result<StreamableHttpClientTransportConfig, McpError> {
        let bad = |message: String| McpError::Header {
            server: server.to_string(),
            message,
        };
        let read = |header: &str, variable: &str| {
            env(variable)
                .and_then(|v| v.into_string().ok())
                .filter(|v| !v.is_empty())
                .ok_or_else(|| {
                    bad(format!(
                        "the variable {variable} (the value of {header}) is not set or empty"
                    ))
                })
        };
        let mut config = StreamableHttpClientTransportConfig::with_uri(self.url.as_str());
        config.retry_config = Arc::new(ResumeOnce);
        if let Some(variable) = &self.bearer {
            let token = read("Authorization", variable)?;
            if http::HeaderValue::from_str(&format!("Bearer {token}")).is_err() {
                return Err(bad(format!(
                    "the value of {variable} is not a valid header value"
                )));
            }
            config = config.auth_header(token);
        }
        let mut headers = HashMap::new();
        for (name, variable) in &self.headers {
            let header = http::HeaderName::from_bytes(name.as_bytes())
                .map_err(|_| bad(format!("{name:?} is not a header name")))?;
            if RESERVED_HEADERS.contains(&header.as_str()) {
                return Err(bad(format!("{name} is set by the MCP client itself")));
            }
            if header == http::header::AUTHORIZATION && self.bearer.is_some() {
                return Err(bad(format!("{name} is already sent by bearer_env")));
            }
            let mut value = http::HeaderValue::from_str(&read(name, variable)?).map_err(|_| {
                bad(format!(
                    "the value of {variable} is not a valid header value"
                ))
            })?;
            value.set_sensitive(true);
            headers.insert(header, value);
        }
        Ok(config.custom_headers(headers))
    }
}

impl McpServer {
    /// Connects to the MCP server `name` at `endpoint` over streamable HTTP,
    /// completes the handshake and reads its tool list, all within
    /// `timeout`. Header values are read from this process's environment.
    pub async fn connect(
        name: &str,
        endpoint: &McpEndpoint,
        timeout: Duration,
    ) -> Result<McpServer, McpError> {
        Self::connect_with_env(name, endpoint, timeout, &|k| std::env::var_os(k)).await
    }

    /// [`McpServer::connect`], reading header values through `env` instead
    /// of this process's environment.
    pub async fn connect_with_env(
        name: &str,
        endpoint: &McpEndpoint,
        timeout: Duration,
        env: &dyn Fn(&str) -> Option<OsString>,
    ) -> Result<McpServer, McpError> {
        let url = endpoint.url.as_str();
        if !(url.starts_with("http://") || url.starts_with("https://")) {
            return Err(McpError::Connect {
                server: name.to_string(),
                url: endpoint.redact(url),
                message: "the URL must start with http:// or https://".to_string(),
            });
        }
        let transport = StreamableHttpClientTransport::from_config(endpoint.config(name, env)?);
        Self::handshake(name, transport, timeout, "is not reachable", |e| {
            classify(name, endpoint, e)
        })
        .await
    }
}

/// How a broken event stream is resumed: once, after the server's `retry`
/// hint (rmcp servers send 3 s) or else 100 ms; a resumption that fails
/// ends the stream, and the call reads "not reachable". rmcp's default
/// retries for ever, so a call to a server that went away mid-answer
/// waited for its timeout. A resumption that succeeds (a server that
/// closes a long call's stream on purpose, SEP-1699) starts the count anew.
#[derive(Debug)]
struct ResumeOnce;

impl SseRetryPolicy for ResumeOnce {
    fn retry(&self, failed: usize) -> Option<Duration> {
        (failed == 0).then_some(Duration::from_millis(100))
    }
}

/// The transport's error type.
type HttpError = StreamableHttpError<reqwest::Error>;

/// A failed handshake as an [`McpError`]: refused credentials, an
/// unreachable server, or else a failed handshake with its message.
fn classify(
    server: &str,
    endpoint: &McpEndpoint,
    error: &(dyn std::error::Error + 'static),
) -> McpError {
    let mut cause = Some(error);
    while let Some(e) = cause {
        // The handshake's transport error is a field, not a `source`.
        if let Some(ClientInitializeError::TransportError { error, .. }) =
            e.downcast_ref::<ClientInitializeError>()
        {
            cause = Some(error);
            continue;
        }
        if let Some(e) = e.downcast_ref::<HttpError>() {
            match e {
                StreamableHttpError::AuthRequired(_) => return auth(server, endpoint, 401),
                StreamableHttpError::InsufficientScope(_) => return auth(server, endpoint, 403),
                StreamableHttpError::HttpStatus(s) if matches!(s.status, 401 | 403) => {
                    return auth(server, endpoint, s.status);
                }
                // reqwest's own message only repeats the URL: its causes say why.
                StreamableHttpError::Client(c) if c.is_connect() || c.is_builder() => {
                    return McpError::Connect {
                        server: server.to_string(),
                        url: endpoint.redact(&endpoint.url),
                        message: endpoint.redact(
                            &std::error::Error::source(c)
                                .map(chain)
                                .unwrap_or_else(|| c.to_string()),
                        ),
                    };
                }
                _ => {}
            }
        }
        cause = e.source();
    }
    McpError::Handshake {
        server: server.to_string(),
        message: endpoint.redact(&chain(error)),
    }
}

fn auth(server: &str, endpoint: &McpEndpoint, status: u16) -> McpError {
    McpError::Auth {
        server: server.to_string(),
        status,
        hint: endpoint.hint(),
    }
}

/// An error and its causes, `: `-separated, each once.
fn chain(error: &(dyn std::error::Error + 'static)) -> String {
    let mut text = error.to_string();
    let mut cause = error.source();
    while let Some(e) = cause {
        let more = e.to_string();
        if !text.contains(&more) {
            text.push_str(": ");
            text.push_str(&more);
        }
        cause = e.source();
    }
    text
}
