//! The MCP servers an arena names: `[[mcp]]` tables in `arena.toml`, each a
//! server started as a child process for the run (`command`) or reached
//! over streamable HTTP (`url`), offering the tools its `tools` list names.
//!
//! ```toml
//! [[mcp]]
//! name = "github"                      # a label: errors and logs name the server by it
//! command = "npx"
//! args = ["-y", "@modelcontextprotocol/server-github"]
//! env = ["GITHUB_PERSONAL_ACCESS_TOKEN"]   # variables passed from the environment, by name
//! tools = ["search_issues"]            # the tools offered; each must be listed by the server
//! start_timeout_secs = 30              # default 30
//!
//! [[mcp]]
//! name = "docs"
//! url = "https://mcp.example.com/mcp"  # streamable HTTP (feature `mcp-http`)
//! bearer_env = "DOCS_MCP_TOKEN"        # sent as `Authorization: Bearer $DOCS_MCP_TOKEN`
//! header_env = { "X-Team" = "DOCS_TEAM" }  # other headers: header = variable
//! tools = ["search_docs"]
//!
//! [[mcp]]
//! name = "shop"
//! command = "python3"
//! args = ["shop_server.py", "--db", "{workdir}/orders.json"]
//! per_run = true                       # one server per run, in the run's copy
//! tools = ["find_order", "refund"]
//! ```
//!
//! A `per_run` server (a command only) is started for each run (item ×
//! repeat) in the run's own copy of its world: its working folder is the
//! copy, and `{workdir}` in its `args` stands for the copy's path. It is a
//! world's domain tools in any language: concurrent runs and repeats never
//! share its state, the item's state checks read what it left, and it is
//! stopped and reaped when the run ends. A run whose server stopped during
//! it ends ERROR `tool_server_failed` after that batch of calls (its
//! world's state is unknown; `ToolBox::halt_when`). At
//! the arena's start each such server is started once more, in a copy of
//! the first item's world, to check and hash its tools, then stopped
//! (docs/conversations.md, "The world").
//!
//! A table has exactly one of `command` and `url`; `args` and `env` go with
//! `command`, `bearer_env` and `header_env` with `url`. Secrets never sit in
//! the file: `env` names variables whose values the server gets from
//! tribunal's environment, and the server's environment is otherwise
//! cleared (see `tribunal_tools::mcp`); `bearer_env` and `header_env` name
//! the variables whose values are sent as headers, and an unset one stops
//! the start (`mcp_header`) rather than sending a request without it. Lint
//! never shows a value it refuses (a `NAME=value` entry may hold a secret),
//! nor the URL. The `tools` list is required: it is what lint checks the
//! items' tool names against, and a small model does better with only the
//! tools the task needs.
//!
//! [`start_servers`] (feature `mcp`; a `url` also needs `mcp-http`, else
//! `mcp_http_not_built`) starts the servers and returns the
//! arena with their tools added; the tools' listed schemas then enter the
//! config hash like the built-in tools'. With [`McpCassette::Record`] the
//! tools' specs and every call's result go into a tool cassette
//! (`tribunal_runtime::internal::tool::cassette`); with [`McpCassette::Replay`] no
//! server starts: the tools come from that cassette, with the specs and
//! answers they had, so a replayed run needs neither the model nor the
//! servers (no process is started and no URL is connected to).

use serde::{Deserialize, Serialize};

pub(crate) mod run_servers;

/// The longest a server may take to start, by default.
pub const DEFAULT_START_TIMEOUT_SECS: f64 = 30.0;

/// One `[[mcp]]` table.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct McpServerSpec {
    /// The server's label (letters, digits, `_`, `-`).
    pub name: String,
    /// The program that runs the server.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub command: Option<String>,
    /// Its arguments.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub args: Vec<String>,
    /// The names of the environment variables passed to it.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub env: Vec<String>,
    /// The tools of the server offered to the model.
    #[serde(default)]
    pub tools: Vec<String>,
    /// How long the server may take to start (spawn, handshake, tool list).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub start_timeout_secs: Option<f64>,
    /// A streamable-HTTP server's URL (`http://` or `https://`), instead of
    /// `command`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub url: Option<String>,
    /// With `url`: the variable whose value is sent as `Authorization:
    /// Bearer {value}`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub bearer_env: Option<String>,
    /// With `url`: other headers sent, each header name mapped to the
    /// variable holding its value.
    #[serde(default, skip_serializing_if = "std::collections::BTreeMap::is_empty")]
    pub header_env: std::collections::BTreeMap<String, String>,
    /// With `command`: a server started for each run in the run's copy of
    /// its world (`{workdir}` in `args` is the copy's path), instead of
    /// one for the whole arena run.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub per_run: bool,
}

/// What `{workdir}` in a `per_run` server's `args` stands for.
pub(crate) const WORKDIR: &str = "{workdir}";

/// Whether `name` is an environment variable name (letters, digits, `_`,
/// not starting with a digit).
fn variable_name(name: &str) -> bool {
    name.chars()
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
}

/// Whether `name` is an HTTP header name (a token of RFC 9110).
fn header_name(name: &str) -> bool {
    !name.is_empty()
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "!#$%&'*+-.^_`|~".contains(c))
}

/// The headers rmcp's client sets itself.
const RESERVED_HEADERS: [&str; 4] = [
    "accept",
    "mcp-session-id",
    "mcp-protocol-version",
    "last-event-id",
];

/// What is wrong with a server URL, if anything; never quoting it.
fn url_problem(url: &str) -> Option<&'static str> {
    let rest = url
        .strip_prefix("http://")
        .or_else(|| url.strip_prefix("https://"));
    let Some(rest) = rest else {
        return Some("must start with http:// or https://");
    };
    let authority = rest.split(['/', '?', '#']).next().unwrap_or_default();
    if authority.is_empty() || url.chars().any(|c| c.is_whitespace() || c.is_control()) {
        return Some("is not a URL with a host");
    }
    if authority.contains('@') {
        return Some("holds credentials: give them with bearer_env or header_env instead");
    }
    None
}

/// Reads `[[mcp]]`: the servers (none when absent), each table's
/// problems in `problems`.
pub(super) fn read(
    tables: Option<Vec<McpServerSpec>>,
    problems: &mut Vec<crate::problem::Problem>,
) -> Vec<McpServerSpec> {
    let servers = tables.unwrap_or_default();
    for server in &servers {
        for message in server.problems() {
            problems.push(crate::problem::Problem::file(super::ARENA_TOML, message));
        }
    }
    servers
}

impl McpServerSpec {
    /// What is wrong with the table, each as a message naming its field.
    pub fn problems(&self) -> Vec<String> {
        let mut problems = Vec::new();
        let label = |s: &str| {
            !s.is_empty()
                && s.len() <= 64
                && s.chars()
                    .all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '-'))
        };
        let at = format!("mcp {:?}", self.name);
        if !label(&self.name) {
            problems.push(format!(
                "{at}: name must be 1 to 64 letters, digits, `_` or `-`"
            ));
        }
        match (self.command.as_deref(), self.url.as_deref()) {
            (Some(_), Some(_)) => problems.push(format!(
                "{at}: give either command (a server started here) or url (a server over streamable HTTP), not both"
            )),
            (None, None) => problems.push(format!(
                "{at}: command or url is missing: give command (a server started here) or url (a server over streamable HTTP)"
            )),
            (Some(c), None) if c.trim().is_empty() => {
                problems.push(format!("{at}: command is empty"));
            }
            (None, Some(url)) => {
                if let Some(problem) = url_problem(url) {
                    problems.push(format!("{at}: url {problem}"));
                }
            }
            (Some(_), None) => {}
        }
        if self.url.is_some() {
            for (field, given) in [
                ("args", !self.args.is_empty()),
                ("env", !self.env.is_empty()),
            ] {
                if given {
                    problems.push(format!(
                        "{at}: {field} goes with command; a server at a url gets headers (bearer_env, header_env)"
                    ));
                }
            }
        }
        if self.url.is_none() {
            for (field, given) in [
                ("bearer_env", self.bearer_env.is_some()),
                ("header_env", !self.header_env.is_empty()),
            ] {
                if given {
                    problems.push(format!(
                        "{at}: {field} goes with url; a command's server gets variables by env"
                    ));
                }
            }
        }
        // Never echoed: an entry written as `NAME=value` may hold a secret.
        const NAMES_ONLY: &str =
            "give names only; the values come from the environment, never from this file";
        for (i, name) in self.env.iter().enumerate() {
            if !variable_name(name) {
                problems.push(format!(
                    "{at}: env[{i}] is not a variable name: {NAMES_ONLY}"
                ));
            }
        }
        if let Some(name) = &self.bearer_env
            && !variable_name(name)
        {
            problems.push(format!(
                "{at}: bearer_env is not a variable name: {NAMES_ONLY}"
            ));
        }
        for (header, variable) in &self.header_env {
            if !header_name(header) {
                problems.push(format!("{at}: header_env: {header:?} is not a header name"));
            } else if RESERVED_HEADERS.contains(&header.to_ascii_lowercase().as_str()) {
                problems.push(format!(
                    "{at}: header_env: {header} is set by the MCP client itself"
                ));
            } else if header.eq_ignore_ascii_case("authorization") && self.bearer_env.is_some() {
                problems.push(format!(
                    "{at}: header_env: Authorization is already sent by bearer_env"
                ));
            }
            if !variable_name(variable) {
                problems.push(format!(
                    "{at}: header_env: the value of {header:?} is not a variable name: {NAMES_ONLY}"
                ));
            }
        }
        if self.per_run && self.url.is_some() {
            problems.push(format!(
                "{at}: per_run goes with command: a server at a url is not started here"
            ));
        }
        if !self.per_run && self.args.iter().any(|a| a.contains(WORKDIR)) {
            problems.push(format!(
                "{at}: args: {WORKDIR} names a run's copy: it needs per_run = true"
            ));
        }
        if self.tools.is_empty() {
            problems.push(format!(
                "{at}: tools is missing: list the server's tools to offer"
            ));
        }
        let mut seen = std::collections::HashSet::new();
        for tool in &self.tools {
            if !seen.insert(tool) {
                problems.push(format!("{at}: tools: {tool:?} is listed twice"));
            }
        }
        if let Some(secs) = self.start_timeout_secs
            && !timeout_in_range(secs)
        {
            problems.push(format!(
                "{at}: start_timeout_secs must be a number of seconds in (0, 3600], not {secs}"
            ));
        }
        problems
    }

    /// The start timeout.
    pub fn start_timeout(&self) -> std::time::Duration {
        std::time::Duration::from_secs_f64(
            self.start_timeout_secs
                .filter(|s| timeout_in_range(*s))
                .unwrap_or(DEFAULT_START_TIMEOUT_SECS),
        )
    }
}

/// Whether `secs` is a start timeout lint accepts: in (0, 3600].
fn timeout_in_range(secs: f64) -> bool {
    secs.is_finite() && secs > 0.0 && secs <= 3600.0
}

/// Why an arena's MCP servers could not be made ready.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum McpStartError {
    /// A server could not be started (spawn, handshake, timeout).
    #[cfg(feature = "mcp")]
    #[error(transparent)]
    Start(#[from] tribunal_tools::mcp::McpError),
    /// A server does not list a tool the arena names.
    #[error("the MCP server {server} has no tool {tool:?} (it lists: {listed})")]
    MissingTool {
        /// The server's label.
        server: String,
        /// The tool named in `tools`.
        tool: String,
        /// The tools the server listed, comma-separated.
        listed: String,
    },
    /// A replayed run names a tool its tool cassette does not hold.
    #[error("the tool cassette {} holds no tool {tool:?} of the MCP server {server} (it holds: {held})", cassette.display())]
    NotRecorded {
        /// The server's label.
        server: String,
        /// The tool named in `tools`.
        tool: String,
        /// The cassette.
        cassette: std::path::PathBuf,
        /// The tools it holds, comma-separated.
        held: String,
    },
    /// The tool cassette cannot be written or read.
    #[error(transparent)]
    Cassette(#[from] tribunal_runtime::internal::tool::cassette::ToolCassetteError),
    /// This build has no MCP client.
    #[error("the arena names MCP servers, and this build has no MCP support (cargo feature `mcp`)")]
    NotBuilt,
    /// This build has no MCP client over streamable HTTP.
    #[error(
        "the MCP server {server} has a url, and this build has no MCP over streamable HTTP (cargo feature `mcp-http`)"
    )]
    HttpNotBuilt {
        /// The server's label.
        server: String,
    },
}

impl McpStartError {
    /// A stable code: a start error's (`mcp_spawn`, `mcp_handshake`,
    /// `mcp_start_timeout`, `mcp_connect`, `mcp_auth`, `mcp_header`),
    /// `mcp_tool_missing`, `mcp_not_recorded`, `mcp_cassette`,
    /// `mcp_not_built` or `mcp_http_not_built`.
    pub fn code(&self) -> &'static str {
        match self {
            #[cfg(feature = "mcp")]
            McpStartError::Start(e) => e.code(),
            McpStartError::MissingTool { .. } => "mcp_tool_missing",
            McpStartError::NotRecorded { .. } => "mcp_not_recorded",
            McpStartError::Cassette(_) => "mcp_cassette",
            McpStartError::NotBuilt => "mcp_not_built",
            McpStartError::HttpNotBuilt { .. } => "mcp_http_not_built",
        }
    }
}

/// Starts the servers of `arena.mcp` (one after the other, each within its
/// start timeout) and returns the arena with the tools their `tools` lists
/// name added to its tool box. An arena without servers comes back as it
/// is. The servers live as long as the returned arena's tools: dropping
/// the arena (every copy of its tool box) ends them.
///
/// `env` reads the variables a server's `env` names (the process
/// environment in the CLI); `cassette` says whether the tools' results are
/// recorded, or replayed instead of starting any server.
pub async fn start_servers(
    arena: crate::Arena,
    env: &(dyn Fn(&str) -> Option<std::ffi::OsString> + Sync),
    cassette: McpCassette<'_>,
) -> Result<crate::Arena, McpStartError> {
    if arena.mcp.is_empty() {
        return Ok(arena);
    }
    match cassette {
        McpCassette::Replay(path) => replay(arena, path),
        McpCassette::Live => start(arena, env, None).await,
        McpCassette::Record(path) => {
            let recorder = tribunal_runtime::internal::tool::cassette::ToolRecorder::create(path)?;
            start(arena, env, Some(recorder)).await
        }
    }
}

/// Where an arena's MCP tool results come from and go.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum McpCassette<'a> {
    /// From the servers, unrecorded.
    Live,
    /// From the servers, recorded into this tool cassette.
    Record(&'a std::path::Path),
    /// From this tool cassette; no server starts.
    Replay(&'a std::path::Path),
}

/// A tool box holding `arena`'s tools, to which more can be added.
fn growable(arena: &crate::Arena) -> tribunal_runtime::ToolBox {
    let mut toolbox = tribunal_runtime::ToolBox::new();
    toolbox.default_timeout = arena.toolbox.default_timeout;
    toolbox.max_output_bytes = arena.toolbox.max_output_bytes;
    toolbox.extend(arena.toolbox.tools().cloned());
    toolbox
}

/// The arena with its MCP tools read from the tool cassette at `path`.
fn replay(mut arena: crate::Arena, path: &std::path::Path) -> Result<crate::Arena, McpStartError> {
    let recorded = tribunal_runtime::internal::tool::cassette::replay_tools(path)?;
    let mut toolbox = growable(&arena);
    for spec in &arena.mcp {
        for wanted in &spec.tools {
            match recorded.iter().find(|t| t.name() == wanted) {
                Some(tool) => toolbox.add(tool.clone()),
                None => {
                    return Err(McpStartError::NotRecorded {
                        server: spec.name.clone(),
                        tool: wanted.clone(),
                        cassette: path.to_path_buf(),
                        held: names(&recorded),
                    });
                }
            }
        }
    }
    arena.toolbox = std::sync::Arc::new(toolbox);
    Ok(arena)
}

/// Starts the server of one `[[mcp]]` table: its command, or a connection
/// to its url.
#[cfg(feature = "mcp")]
async fn start_one(
    spec: &McpServerSpec,
    env: &(dyn Fn(&str) -> Option<std::ffi::OsString> + Sync),
) -> Result<tribunal_tools::mcp::McpServer, McpStartError> {
    use tribunal_tools::mcp::{McpCommand, McpServer};
    if let Some(url) = &spec.url {
        return connect(spec, url, env).await;
    }
    let command =
        McpCommand::new(spec.command.clone().unwrap_or_default()).args(spec.args.iter().cloned());
    let command = spec
        .env
        .iter()
        .fold(command, |c, name| c.pass_env(name.clone()));
    Ok(McpServer::start_with_env(&spec.name, &command, spec.start_timeout(), env).await?)
}

#[cfg(feature = "mcp-http")]
async fn connect(
    spec: &McpServerSpec,
    url: &str,
    env: &(dyn Fn(&str) -> Option<std::ffi::OsString> + Sync),
) -> Result<tribunal_tools::mcp::McpServer, McpStartError> {
    use tribunal_tools::mcp::{McpEndpoint, McpServer};
    let mut endpoint = McpEndpoint::new(url);
    if let Some(variable) = &spec.bearer_env {
        endpoint = endpoint.bearer_env(variable.clone());
    }
    for (header, variable) in &spec.header_env {
        endpoint = endpoint.header_env(header.clone(), variable.clone());
    }
    Ok(McpServer::connect_with_env(&spec.name, &endpoint, spec.start_timeout(), env).await?)
}

#[cfg(all(feature = "mcp", not(feature = "mcp-http")))]
async fn connect(
    spec: &McpServerSpec,
    _url: &str,
    _env: &(dyn Fn(&str) -> Option<std::ffi::OsString> + Sync),
) -> Result<tribunal_tools::mcp::McpServer, McpStartError> {
    Err(McpStartError::HttpNotBuilt {
        server: spec.name.clone(),
    })
}

fn names(tools: &[std::sync::Arc<dyn tribunal_runtime::Tool>]) -> String {
    tools
        .iter()
        .map(|t| t.name().to_string())
        .collect::<Vec<_>>()
        .join(", ")
}

#[cfg(not(feature = "mcp"))]
async fn start(
    _arena: crate::Arena,
    _env: &(dyn Fn(&str) -> Option<std::ffi::OsString> + Sync),
    _recorder: Option<std::sync::Arc<tribunal_runtime::internal::tool::cassette::ToolRecorder>>,
) -> Result<crate::Arena, McpStartError> {
    Err(McpStartError::NotBuilt)
}

#[cfg(feature = "mcp")]
async fn start(
    mut arena: crate::Arena,
    env: &(dyn Fn(&str) -> Option<std::ffi::OsString> + Sync),
    recorder: Option<std::sync::Arc<tribunal_runtime::internal::tool::cassette::ToolRecorder>>,
) -> Result<crate::Arena, McpStartError> {
    let mut toolbox = growable(&arena);
    if let Some(servers) = run_servers::RunServers::of(&arena.mcp, env, recorder.clone()) {
        let world = match arena.items.first() {
            Some(item) => arena.world_dir(item),
            None => arena.files_root.clone(),
        };
        run_servers::probe(&servers, &world, &mut toolbox).await?;
        arena.run_servers = Some(std::sync::Arc::new(servers));
    }
    for spec in arena.mcp.iter().filter(|s| !s.per_run) {
        let server = start_one(spec, env).await?;
        let listed = server.tools();
        for wanted in &spec.tools {
            match listed.iter().find(|t| t.name() == wanted) {
                Some(tool) => match &recorder {
                    Some(recorder) => toolbox.add(recorder.record(tool.clone())?),
                    None => toolbox.add(tool.clone()),
                },
                None => {
                    return Err(McpStartError::MissingTool {
                        server: spec.name.clone(),
                        tool: wanted.clone(),
                        listed: names(&listed),
                    });
                }
            }
        }
    }
    arena.toolbox = std::sync::Arc::new(toolbox);
    Ok(arena)
}
