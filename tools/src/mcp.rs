//! Tools of MCP servers (feature `mcp`): [`McpServer`] starts a server as a
//! child process, speaks MCP to it over stdio with the official Rust SDK
//! (`rmcp`), reads its tool list once, and gives each listed tool as a
//! [`Tool`] of a run ([`McpServer::tools`]). With the feature `mcp-http`,
//! `McpServer::connect` reaches a server over streamable HTTP instead
//! (`McpEndpoint`: its URL and the headers whose values come from the
//! environment); its tools behave the same.
//!
//! An MCP tool is a tool like any other: the [`ToolBox`](tribunal_runtime::ToolBox)
//! validates its arguments against the server's input schema, counts it
//! against `max_tool_calls`, cuts it at its timeout and caps its output.
//! Whatever goes wrong on the server's side becomes an error result for the
//! model, never a hung or failed run:
//!
//! - a result the server marks `isError` reads `error: {its text}`;
//! - a server that refuses the call (a JSON-RPC error) reads `error: the MCP
//!   server {name} refused the call: {message}`;
//! - a server that has exited, before or during the call, reads `error: the
//!   MCP server {name} is not running`, at once (no wait for a timeout); a
//!   server over HTTP that went away reads
//!   `error: the MCP server {name} is not reachable`.
//!
//! The server's environment is not ours: it gets `PATH`, `HOME`, `USER`,
//! `LANG`, `LC_ALL`, `TMPDIR` and the variables the command names
//! ([`McpCommand::pass_env`]), read from this process's environment, so an
//! API key meant for the model never reaches it and a secret the server
//! needs is never written in a config file. Its standard error goes to the
//! log (`tracing`, debug level). The child is killed when the last handle on
//! it ([`McpServer`] or one of its tools) is dropped.
//!
//! ```no_run
//! use std::time::Duration;
//! use tribunal_runtime::ToolBox;
//! use tribunal_tools::mcp::{McpCommand, McpServer};
//!
//! # async fn demo() -> Result<(), Box<dyn std::error::Error>> {
//! let github = McpCommand::new("npx")
//!     .args(["-y", "@modelcontextprotocol/server-github"])
//!     .pass_env("GITHUB_PERSONAL_ACCESS_TOKEN");
//! let server = McpServer::start("github", &github, Duration::from_secs(30)).await?;
//! let mut tools = ToolBox::new();
//! tools.extend(server.tools()); // then `agent.with_tools(tools)`
//! # Ok(())
//! # }
//! ```

use rmcp::model::{CallToolRequestParams, CallToolResult, ContentBlock};
use rmcp::service::{Peer, RoleClient, RunningService, ServiceError, ServiceExt};
use rmcp::transport::TokioChildProcess;
use serde_json::Value;
use std::ffi::OsString;
use std::sync::Arc;
use std::time::Duration;
use tokio::io::AsyncBufReadExt;
use tribunal_runtime::{Tool, ToolError, ToolOutput};

#[cfg(feature = "mcp-http")]
mod http;
#[cfg(feature = "mcp-http")]
pub use http::McpEndpoint;

/// The variables every server gets from this process's environment, beside
/// the ones its command names.
const BASE_ENV: [&str; 6] = ["PATH", "HOME", "USER", "LANG", "LC_ALL", "TMPDIR"];

/// How to start an MCP server: a program, its arguments, and the names of
/// the environment variables it may read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct McpCommand {
    /// The program (a path, or a name looked up on `PATH`).
    pub program: String,
    /// Its arguments.
    pub args: Vec<String>,
    /// Variables passed on from this process's environment, by name; an
    /// unset one is left out.
    pub env: Vec<String>,
    /// The folder it runs in (`None`: this process's).
    pub current_dir: Option<std::path::PathBuf>,
}

impl McpCommand {
    /// A command running `program` with no arguments.
    pub fn new(program: impl Into<String>) -> Self {
        McpCommand {
            program: program.into(),
            args: Vec::new(),
            env: Vec::new(),
            current_dir: None,
        }
    }

    /// Runs the server in `dir`, builder style (a run's own copy of its
    /// world, say: the server's relative paths then name files of it).
    pub fn current_dir(mut self, dir: impl Into<std::path::PathBuf>) -> Self {
        self.current_dir = Some(dir.into());
        self
    }

    /// Adds arguments, builder style.
    pub fn args<I, S>(mut self, args: I) -> Self
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        self.args.extend(args.into_iter().map(Into::into));
        self
    }

    /// Passes the variable `name` on from this process's environment.
    pub fn pass_env(mut self, name: impl Into<String>) -> Self {
        self.env.push(name.into());
        self
    }

    /// The names of the variables the server gets from the environment:
    /// every server's (`PATH`, `HOME`, `USER`, `LANG`, `LC_ALL`, `TMPDIR`)
    /// and the ones [`pass_env`](Self::pass_env) named.
    pub fn variables(&self) -> impl Iterator<Item = &str> {
        BASE_ENV
            .iter()
            .copied()
            .chain(self.env.iter().map(String::as_str))
    }

    /// The process to spawn, its environment read through `env`.
    fn command(&self, env: &dyn Fn(&str) -> Option<OsString>) -> tokio::process::Command {
        let mut command = tokio::process::Command::new(&self.program);
        command.args(&self.args).env_clear();
        if let Some(dir) = &self.current_dir {
            command.current_dir(dir);
        }
        for name in self.variables() {
            if let Some(value) = env(name) {
                command.env(name, value);
            }
        }
        command
    }
}

/// Why an MCP server could not be started.
#[derive(Debug, thiserror::Error)]
pub enum McpError {
    /// The program could not be run.
    #[error("the MCP server {server} could not be started: {message}")]
    Spawn {
        /// The server's name.
        server: String,
        /// Why.
        message: String,
    },
    /// It ran but did not complete the MCP handshake or list its tools.
    #[error("the MCP server {server} did not start: {message}")]
    Handshake {
        /// The server's name.
        server: String,
        /// Why.
        message: String,
    },
    /// It did not finish starting within the time allowed.
    #[error("the MCP server {server} did not start within {} ms", after.as_millis())]
    StartTimedOut {
        /// The server's name.
        server: String,
        /// The time allowed.
        after: Duration,
    },
    /// A server over HTTP could not be reached (a bad URL, nothing
    /// listening, a failed TLS handshake).
    #[error("the MCP server {server} could not be reached at {url}: {message}")]
    Connect {
        /// The server's name.
        server: String,
        /// Its URL.
        url: String,
        /// Why.
        message: String,
    },
    /// A server over HTTP refused the credentials sent (HTTP 401 or 403).
    #[error("the MCP server {server} refused the credentials (HTTP {status}){hint}")]
    Auth {
        /// The server's name.
        server: String,
        /// The HTTP status.
        status: u16,
        /// Which variables the credentials came from, as a sentence
        /// (never their values).
        hint: String,
    },
    /// A header of a server over HTTP could not be made: its variable is
    /// unset, or its name or value is not a valid header (never shown).
    #[error("the MCP server {server}: {message}")]
    Header {
        /// The server's name.
        server: String,
        /// What is wrong, naming the header and variable only.
        message: String,
    },
}

impl McpError {
    /// A stable code: `mcp_spawn`, `mcp_handshake`, `mcp_start_timeout`,
    /// `mcp_connect`, `mcp_auth` or `mcp_header`.
    pub fn code(&self) -> &'static str {
        match self {
            McpError::Spawn { .. } => "mcp_spawn",
            McpError::Handshake { .. } => "mcp_handshake",
            McpError::StartTimedOut { .. } => "mcp_start_timeout",
            McpError::Connect { .. } => "mcp_connect",
            McpError::Auth { .. } => "mcp_auth",
            McpError::Header { .. } => "mcp_header",
        }
    }
}

/// The connection to a server, shared by its tools.
struct Connection {
    name: String,
    peer: Peer<RoleClient>,
    /// The running service, until [`McpServer::close`] takes it (dropped,
    /// it stops the server in the background).
    service: tokio::sync::Mutex<Option<RunningService<RoleClient, ()>>>,
    /// How a call that could not reach the server reads, after `the MCP
    /// server {name} `.
    gone: &'static str,
}

impl Connection {
    fn peer(&self) -> &Peer<RoleClient> {
        &self.peer
    }
}

/// A running MCP server and the tools it listed at start.
pub struct McpServer {
    connection: Arc<Connection>,
    tools: Vec<rmcp::model::Tool>,
}

impl std::fmt::Debug for McpServer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("McpServer")
            .field("name", &self.connection.name)
            .field(
                "tools",
                &self.tools.iter().map(|t| &t.name).collect::<Vec<_>>(),
            )
            .finish()
    }
}

impl McpServer {
    /// Starts `command` as the server `name`, completes the MCP handshake
    /// and reads its tool list, all within `timeout`. The variables it gets
    /// are read from this process's environment.
    pub async fn start(
        name: &str,
        command: &McpCommand,
        timeout: Duration,
    ) -> Result<McpServer, McpError> {
        Self::start_with_env(name, command, timeout, &|k| std::env::var_os(k)).await
    }

    /// [`McpServer::start`], reading the server's variables through `env`
    /// instead of this process's environment.
    pub async fn start_with_env(
        name: &str,
        command: &McpCommand,
        timeout: Duration,
        env: &(dyn Fn(&str) -> Option<OsString> + Sync),
    ) -> Result<McpServer, McpError> {
        let (transport, stderr) = TokioChildProcess::builder(command.command(env))
            .stderr(std::process::Stdio::piped())
            .spawn()
            .map_err(|e| McpError::Spawn {
                server: name.to_string(),
                message: e.to_string(),
            })?;
        if let Some(stderr) = stderr {
            tokio::spawn(log_stderr(name.to_string(), stderr));
        }
        Self::handshake(name, transport, timeout, "is not running", |message| {
            McpError::Handshake {
                server: name.to_string(),
                message: message.to_string(),
            }
        })
        .await
    }

    /// Completes the MCP handshake over `transport` and reads the tool
    /// list, within `timeout`; a failure becomes the error `failed` makes
    /// of it.
    async fn handshake<T, E, A>(
        name: &str,
        transport: T,
        timeout: Duration,
        gone: &'static str,
        failed: impl Fn(&(dyn std::error::Error + 'static)) -> McpError,
    ) -> Result<McpServer, McpError>
    where
        T: rmcp::transport::IntoTransport<RoleClient, E, A>,
        E: std::error::Error + Send + Sync + 'static,
    {
        let handshake = async {
            let service = ().serve(transport).await.map_err(|e| failed(&e))?;
            let tools = service
                .peer()
                .list_all_tools()
                .await
                .map_err(|e| failed(&e))?;
            Ok::<_, McpError>((service, tools))
        };
        let (service, tools) = match tokio::time::timeout(timeout, handshake).await {
            Ok(started) => started?,
            Err(_) => {
                return Err(McpError::StartTimedOut {
                    server: name.to_string(),
                    after: timeout,
                });
            }
        };
        tracing::debug!(server = name, tools = tools.len(), "MCP server started");
        Ok(McpServer {
            connection: Arc::new(Connection {
                name: name.to_string(),
                peer: service.peer().clone(),
                service: tokio::sync::Mutex::new(Some(service)),
                gone,
            }),
            tools,
        })
    }

    /// The server's name.
    pub fn name(&self) -> &str {
        &self.connection.name
    }

    /// Whether the server is still there: `false` once its process has
    /// exited (or its HTTP session is gone) or it was [closed](Self::close).
    pub fn is_running(&self) -> bool {
        !self.connection.peer.is_transport_closed()
    }

    /// Stops the server and waits until it has: a child process gets its
    /// input closed, then `SIGTERM`, then is killed (a few seconds apart at
    /// most), and is reaped. Its tools then fail at once (`the MCP server
    /// {name} is not running`). Dropping the last handle stops it too, in
    /// the background; closing is for a caller that must know it is gone.
    pub async fn close(&self) {
        let service = self.connection.service.lock().await.take();
        if let Some(service) = service
            && let Err(e) = service.cancel().await
        {
            tracing::debug!(server = %self.connection.name, "the MCP server's task failed: {e}");
        }
    }

    /// One [`Tool`] per tool the server listed at start, in its order. A
    /// name outside `^[a-zA-Z0-9_-]{1,64}$` is offered sanitised and called
    /// by its own.
    pub fn tools(&self) -> Vec<Arc<dyn Tool>> {
        self.tools
            .iter()
            .map(|t| {
                Arc::new(McpTool {
                    connection: self.connection.clone(),
                    name: tribunal_runtime::internal::schema::sanitize_name(&t.name),
                    remote_name: t.name.to_string(),
                    description: t.description.as_deref().unwrap_or_default().to_string(),
                    parameters: Value::Object((*t.input_schema).clone()),
                }) as Arc<dyn Tool>
            })
            .collect()
    }
}

/// Forwards a server's standard error to the log, line by line.
async fn log_stderr(server: String, stderr: tokio::process::ChildStderr) {
    let mut lines = tokio::io::BufReader::new(stderr).lines();
    while let Ok(Some(line)) = lines.next_line().await {
        tracing::debug!(server = %server, "{line}");
    }
}

/// One tool of an MCP server.
struct McpTool {
    connection: Arc<Connection>,
    name: String,
    remote_name: String,
    description: String,
    parameters: Value,
}

impl Tool for McpTool {
    fn name(&self) -> &str {
        &self.name
    }

    fn description(&self) -> &str {
        &self.description
    }

    fn parameters(&self) -> Value {
        self.parameters.clone()
    }

    fn call(&self, args: Value) -> futures::future::BoxFuture<'_, Result<ToolOutput, ToolError>> {
        Box::pin(async move {
            let mut params = CallToolRequestParams::new(self.remote_name.clone());
            if let Value::Object(arguments) = args {
                params = params.with_arguments(arguments);
            }
            let server = &self.connection.name;
            match self.connection.peer().call_tool(params).await {
                Ok(result) => read_result(result),
                Err(ServiceError::McpError(e)) => Err(ToolError::new(format!(
                    "the MCP server {server} refused the call: {}",
                    e.message
                ))),
                Err(ServiceError::TransportClosed | ServiceError::TransportSend(_)) => Err(
                    ToolError::new(format!("the MCP server {server} {}", self.connection.gone)),
                ),
                Err(e) => Err(ToolError::new(format!("the MCP server {server}: {e}"))),
            }
        })
    }
}

/// A call's result as the model reads it: its text blocks joined by
/// newlines (other blocks as their JSON), else its structured content as
/// JSON; an error result as a [`ToolError`].
fn read_result(result: CallToolResult) -> Result<ToolOutput, ToolError> {
    let mut text = String::new();
    for block in &result.content {
        if !text.is_empty() {
            text.push('\n');
        }
        match block {
            ContentBlock::Text(t) => text.push_str(&t.text),
            other => text.push_str(&serde_json::to_string(other).unwrap_or_default()),
        }
    }
    let output = match (text.is_empty(), result.structured_content) {
        (true, Some(structured)) => ToolOutput::Json(structured),
        _ => ToolOutput::Text(text),
    };
    match result.is_error {
        Some(true) => Err(ToolError::new(match output.into_text() {
            t if t.is_empty() => "the tool reported an error".to_string(),
            t => t,
        })),
        _ => Ok(output),
    }
}
