//! The MCP server `tools/tests/mcp.rs` talks to, on rmcp's server side: a
//! few tools that answer, fail, take their time, or kill the server
//! mid-call, and two that read and write a text file of the folder it runs
//! in (`read_text`, `append_text`: a world's domain tools in miniature).
//!
//! When `MCP_FIXTURE_PID_DIR` is set it writes a file named by its process
//! id there at start, holding its working folder: how a test finds the
//! servers it started, and sees them gone.
//!
//! Over stdio by default. With `--http ADDR` (e.g. `--http 127.0.0.1:0`) it
//! serves streamable HTTP instead, prints its endpoint (`http://{bound
//! address}/mcp`) as the first line of its standard output, and refuses
//! (HTTP 401) a request whose `Authorization` is not `Bearer
//! $MCP_FIXTURE_TOKEN`, or whose `X-Fixture-Key` is not `$MCP_FIXTURE_KEY`,
//! when that variable is set.

use rmcp::handler::server::router::tool::ToolRouter;
use rmcp::handler::server::wrapper::Parameters;
use rmcp::model::{CallToolResult, ContentBlock};
use rmcp::{ServiceExt, tool, tool_handler, tool_router};
use serde::Deserialize;
use std::time::Duration;

/// The arguments of `echo`.
#[derive(Deserialize, schemars::JsonSchema)]
struct EchoArgs {
    /// The text to give back.
    text: String,
}

/// The arguments of `add`.
#[derive(Deserialize, schemars::JsonSchema)]
struct AddArgs {
    /// The first term.
    a: i64,
    /// The second term.
    b: i64,
}

/// The arguments of `sleep`.
#[derive(Deserialize, schemars::JsonSchema)]
struct SleepArgs {
    /// How long to sleep, in milliseconds.
    ms: u64,
}

/// The arguments of `read_text`.
#[derive(Deserialize, schemars::JsonSchema)]
struct ReadArgs {
    /// The file, relative to the server's folder.
    path: String,
}

/// The arguments of `append_text`.
#[derive(Deserialize, schemars::JsonSchema)]
struct AppendArgs {
    /// The file, relative to the server's folder.
    path: String,
    /// The text added at its end.
    text: String,
}

/// `path` in the server's folder, or why not (absolute, or climbing out).
fn in_folder(path: &str) -> Result<std::path::PathBuf, String> {
    let relative = std::path::Path::new(path);
    let inside = relative
        .components()
        .all(|c| matches!(c, std::path::Component::Normal(_)));
    match inside {
        true => Ok(relative.to_path_buf()),
        false => Err(format!("{path:?} is not a path inside the folder")),
    }
}

fn failed(message: String) -> CallToolResult {
    CallToolResult::error(vec![ContentBlock::text(message)])
}

#[derive(Debug, Clone)]
struct Fixture {
    tool_router: ToolRouter<Self>,
}

#[tool_router(router = tool_router)]
impl Fixture {
    #[tool(description = "Gives the text back.")]
    async fn echo(&self, Parameters(args): Parameters<EchoArgs>) -> String {
        args.text
    }

    #[tool(description = "Adds two integers; the result is structured.")]
    async fn add(&self, Parameters(args): Parameters<AddArgs>) -> CallToolResult {
        CallToolResult::structured(serde_json::json!({"sum": args.a.saturating_add(args.b)}))
    }

    #[tool(description = "Always fails.")]
    async fn fail(&self) -> CallToolResult {
        CallToolResult::error(vec![ContentBlock::text("the disk is on fire")])
    }

    #[tool(description = "Sleeps, then says so.")]
    async fn sleep(&self, Parameters(args): Parameters<SleepArgs>) -> String {
        tokio::time::sleep(Duration::from_millis(args.ms)).await;
        format!("slept {} ms", args.ms)
    }

    #[tool(description = "Ends the server process in the middle of the call.")]
    async fn crash(&self) -> String {
        std::process::exit(3)
    }

    #[tool(description = "Reads a text file of the server's folder.")]
    async fn read_text(&self, Parameters(args): Parameters<ReadArgs>) -> CallToolResult {
        match in_folder(&args.path)
            .and_then(|p| std::fs::read_to_string(p).map_err(|e| e.to_string()))
        {
            Ok(text) => CallToolResult::success(vec![ContentBlock::text(text)]),
            Err(e) => failed(e),
        }
    }

    #[tool(description = "Adds text at the end of a file of the server's folder.")]
    async fn append_text(&self, Parameters(args): Parameters<AppendArgs>) -> CallToolResult {
        use std::io::Write;
        let appended = in_folder(&args.path).and_then(|p| {
            std::fs::OpenOptions::new()
                .append(true)
                .create(true)
                .open(p)
                .and_then(|mut f| f.write_all(args.text.as_bytes()))
                .map_err(|e| e.to_string())
        });
        match appended {
            Ok(()) => CallToolResult::success(vec![ContentBlock::text("appended")]),
            Err(e) => failed(e),
        }
    }

    #[tool(description = "Names the environment variable's value, if the server has it.")]
    async fn env(&self, Parameters(args): Parameters<EchoArgs>) -> String {
        std::env::var(&args.text).unwrap_or_else(|_| "unset".to_string())
    }
}

#[tool_handler(router = self.tool_router)]
impl rmcp::ServerHandler for Fixture {}

impl Fixture {
    fn new() -> Self {
        Fixture {
            tool_router: Fixture::tool_router(),
        }
    }
}

#[tokio::main(flavor = "current_thread")]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    if let Some(dir) = std::env::var_os("MCP_FIXTURE_PID_DIR") {
        let here = std::env::current_dir()?;
        let file = std::path::Path::new(&dir).join(std::process::id().to_string());
        std::fs::write(file, here.to_string_lossy().as_bytes())?;
    }
    let args: Vec<String> = std::env::args().skip(1).collect();
    if let [flag, addr] = args.as_slice()
        && flag == "--http"
    {
        return serve_http(addr).await;
    }
    let server = Fixture::new().serve(rmcp::transport::stdio()).await?;
    server.waiting().await?;
    Ok(())
}

/// Whether the request carries the credentials the environment asks for.
fn authorized(headers: &hyper::HeaderMap) -> bool {
    let expect = |header: &str, wanted: Option<String>| match wanted {
        None => true,
        Some(wanted) => headers
            .get(header)
            .and_then(|v| v.to_str().ok())
            .is_some_and(|v| v == wanted),
    };
    expect(
        "authorization",
        std::env::var("MCP_FIXTURE_TOKEN")
            .ok()
            .map(|t| format!("Bearer {t}")),
    ) && expect("x-fixture-key", std::env::var("MCP_FIXTURE_KEY").ok())
}

/// Serves streamable HTTP at `addr` until killed.
async fn serve_http(addr: &str) -> Result<(), Box<dyn std::error::Error>> {
    use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
    use rmcp::transport::{StreamableHttpServerConfig, StreamableHttpService};
    use std::io::Write;
    use std::sync::Arc;

    let listener = tokio::net::TcpListener::bind(addr).await?;
    let service = Arc::new(StreamableHttpService::new(
        || Ok(Fixture::new()),
        Arc::new(LocalSessionManager::default()),
        StreamableHttpServerConfig::default().disable_allowed_hosts(),
    ));
    let mut stdout = std::io::stdout();
    writeln!(stdout, "http://{}/mcp", listener.local_addr()?)?;
    stdout.flush()?;
    loop {
        let (stream, _) = listener.accept().await?;
        let service = service.clone();
        tokio::spawn(async move {
            let handle = hyper::service::service_fn(move |request: hyper::Request<_>| {
                let service = service.clone();
                async move {
                    if !authorized(request.headers()) {
                        let mut refused = hyper::Response::new(Default::default());
                        *refused.status_mut() = hyper::StatusCode::UNAUTHORIZED;
                        refused.headers_mut().insert(
                            hyper::header::WWW_AUTHENTICATE,
                            hyper::header::HeaderValue::from_static("Bearer"),
                        );
                        return Ok::<_, std::convert::Infallible>(refused);
                    }
                    Ok(service.handle(request).await)
                }
            });
            let io = hyper_util::rt::TokioIo::new(stream);
            // A client that goes away mid-request is not the fixture's concern.
            let _ = hyper::server::conn::http1::Builder::new()
                .serve_connection(io, handle)
                .await;
        });
    }
}
