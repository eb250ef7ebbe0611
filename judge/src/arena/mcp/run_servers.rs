//! `[[mcp]]` servers started per run (`per_run = true`): each run (item ×
//! repeat) starts its own process of each such server, in the run's copy of
//! its world (its working folder; `{workdir}` in its `args`), and stops it
//! when the run ends — so concurrent runs and repeats never share what the
//! server keeps, and the item's state checks read what it left in the copy.
//!
//! At the arena's start ([`start_servers`](super::start_servers)) each
//! per-run server is started once in a copy of the first item's world: its
//! listed tools are checked against `tools` (a missing one stops the run
//! before it starts, `mcp_tool_missing`), and their specs join the arena's
//! tool box as [stand-ins](PerRunTool) — so the config hash and the
//! requests see the listed schemas — then that probe is stopped. A run's
//! world ([`crate::run`]'s `RunWorld`) replaces the stand-ins with the
//! tools of its own servers ([`RunServers::start_in`]). A replayed run
//! starts none: its tools answer from the tool cassette, as an arena-wide
//! server's do (and so leave the copy as it was).

// Without the feature `mcp` no server starts, and most of this is unused.
#![cfg_attr(not(feature = "mcp"), allow(dead_code))]

use super::{McpServerSpec, McpStartError, WORKDIR};
use futures::future::BoxFuture;
use serde_json::Value;
use std::collections::BTreeMap;
use std::ffi::OsString;
use std::path::Path;
use std::sync::Arc;
use tribunal_runtime::ToolBox;
use tribunal_runtime::internal::tool::cassette::ToolRecorder;
use tribunal_runtime::{Tool, ToolError, ToolOutput, ToolSpec};

/// The per-run servers of an arena run, and what starting one takes.
pub(crate) struct RunServers {
    /// The `per_run` tables.
    specs: Vec<McpServerSpec>,
    /// The variables they may get, read at the arena's start.
    vars: BTreeMap<String, OsString>,
    /// Where their calls are recorded (`--record-tools`).
    recorder: Option<Arc<ToolRecorder>>,
}

impl std::fmt::Debug for RunServers {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        // Never the variables' values.
        f.debug_struct("RunServers")
            .field(
                "servers",
                &self.specs.iter().map(|s| &s.name).collect::<Vec<_>>(),
            )
            .field("recorded", &self.recorder.is_some())
            .finish()
    }
}

impl RunServers {
    /// The servers of `specs` that are `per_run` (`None`: there are none),
    /// their variables read through `env` now.
    pub(crate) fn of(
        specs: &[McpServerSpec],
        env: &(dyn Fn(&str) -> Option<OsString> + Sync),
        recorder: Option<Arc<ToolRecorder>>,
    ) -> Option<RunServers> {
        let specs: Vec<McpServerSpec> = specs.iter().filter(|s| s.per_run).cloned().collect();
        if specs.is_empty() {
            return None;
        }
        let vars = specs
            .iter()
            .flat_map(variables_of)
            .filter_map(|name| Some((name.clone(), env(&name)?)))
            .collect();
        Some(RunServers {
            specs,
            vars,
            recorder,
        })
    }

    /// Starts every per-run server in `dir` (one after the other, each
    /// within its start timeout) and puts the tools its `tools` names into
    /// `toolbox`, in place of the stand-ins. The servers live as long as
    /// the returned [`WorldServers`] or their tools.
    pub(crate) async fn start_in(
        &self,
        dir: &Path,
        toolbox: &mut ToolBox,
    ) -> Result<WorldServers, McpStartError> {
        let mut started = WorldServers::default();
        let env = |name: &str| self.vars.get(name).cloned();
        for spec in &self.specs {
            let server = start_one(spec, dir, &env).await?;
            let tools = offered(spec, &server)?;
            started.servers.push(Arc::new(server));
            for tool in tools {
                match &self.recorder {
                    Some(recorder) => toolbox.add(recorder.record(tool)?),
                    None => toolbox.add(tool),
                }
            }
        }
        Ok(started)
    }
}

/// `spec`'s command with `{workdir}` in its arguments made `dir`.
pub(crate) fn args_in(spec: &McpServerSpec, dir: &Path) -> Vec<String> {
    let dir = dir.to_string_lossy();
    spec.args.iter().map(|a| a.replace(WORKDIR, &dir)).collect()
}

/// The names of the variables `spec`'s server gets (every server's and
/// its `env`), as `tribunal_tools::mcp` passes them: read once, at the
/// arena's start, for the runs' servers.
#[cfg(feature = "mcp")]
fn variables_of(spec: &McpServerSpec) -> Vec<String> {
    let command = spec.env.iter().fold(
        tribunal_tools::mcp::McpCommand::new(spec.command.clone().unwrap_or_default()),
        |c, name| c.pass_env(name.clone()),
    );
    command.variables().map(String::from).collect()
}

/// Without `mcp` no server starts: it gets nothing.
#[cfg(not(feature = "mcp"))]
fn variables_of(_: &McpServerSpec) -> Vec<String> {
    Vec::new()
}

#[cfg(feature = "mcp")]
async fn start_one(
    spec: &McpServerSpec,
    dir: &Path,
    env: &(dyn Fn(&str) -> Option<OsString> + Sync),
) -> Result<Server, McpStartError> {
    use tribunal_tools::mcp::McpCommand;
    let command = McpCommand::new(spec.command.clone().unwrap_or_default())
        .args(args_in(spec, dir))
        .current_dir(dir);
    let command = spec
        .env
        .iter()
        .fold(command, |c, name| c.pass_env(name.clone()));
    Ok(Server::start_with_env(&spec.name, &command, spec.start_timeout(), env).await?)
}

#[cfg(not(feature = "mcp"))]
async fn start_one(
    _spec: &McpServerSpec,
    _dir: &Path,
    _env: &(dyn Fn(&str) -> Option<OsString> + Sync),
) -> Result<Server, McpStartError> {
    Err(McpStartError::NotBuilt)
}

/// The tools of `server` that `spec` names, in its order.
fn offered(spec: &McpServerSpec, server: &Server) -> Result<Vec<Arc<dyn Tool>>, McpStartError> {
    let listed = server_tools(server);
    spec.tools
        .iter()
        .map(|wanted| {
            listed
                .iter()
                .find(|t| t.name() == wanted)
                .cloned()
                .ok_or_else(|| McpStartError::MissingTool {
                    server: spec.name.clone(),
                    tool: wanted.clone(),
                    listed: listed
                        .iter()
                        .map(|t| t.name().to_string())
                        .collect::<Vec<_>>()
                        .join(", "),
                })
        })
        .collect()
}

/// Starts each of `servers` once in a copy of `world` (the first item's),
/// checks it lists the tools its table names, and adds their stand-ins to
/// `toolbox`; every probe is stopped (and reaped) before this returns.
pub(crate) async fn probe(
    servers: &RunServers,
    world: &Path,
    toolbox: &mut ToolBox,
) -> Result<(), McpStartError> {
    let copy =
        tribunal_tools::shell::WorkingFolder::copy_of(world, &std::env::temp_dir(), "mcp-probe")
            .map_err(|e| probe_failed(servers, world, &e))?;
    let mut tools = ToolBox::new();
    let started = RunServers {
        specs: servers.specs.clone(),
        vars: servers.vars.clone(),
        recorder: None,
    }
    .start_in(copy.path(), &mut tools)
    .await;
    let started = started?;
    started.close().await;
    for tool in tools.tools() {
        toolbox.add(Arc::new(PerRunTool::of(tool.as_ref())));
    }
    Ok(())
}

/// The probe's copy could not be made: a start error of the first server.
fn probe_failed(servers: &RunServers, world: &Path, e: &std::io::Error) -> McpStartError {
    let server = servers
        .specs
        .first()
        .map(|s| s.name.clone())
        .unwrap_or_default();
    start_failed(
        server,
        format!("cannot copy {} for it: {e}", world.display()),
    )
}

#[cfg(feature = "mcp")]
fn start_failed(server: String, message: String) -> McpStartError {
    McpStartError::Start(tribunal_tools::mcp::McpError::Spawn { server, message })
}

#[cfg(not(feature = "mcp"))]
fn start_failed(_server: String, _message: String) -> McpStartError {
    McpStartError::NotBuilt
}

/// A run's started per-run servers.
#[derive(Default)]
pub(crate) struct WorldServers {
    servers: Vec<Arc<Server>>,
}

impl WorldServers {
    /// Whether the run has servers (else there is nothing to watch).
    pub(crate) fn is_empty(&self) -> bool {
        self.servers.is_empty()
    }

    /// A check that gives `tool_server_failed` once a server has stopped:
    /// what the run's tool box asks after each batch of calls
    /// ([`ToolBox::halt_when`]), so the run ends there.
    pub(crate) fn watch(
        &self,
    ) -> impl Fn() -> Option<tribunal_runtime::ErrorCode> + Send + Sync + 'static {
        let servers = self.servers.clone();
        move || {
            servers
                .iter()
                .any(|s| !running(s))
                .then_some(tribunal_runtime::ErrorCode::ToolServerFailed)
        }
    }

    /// The first server that is no longer running, by name.
    pub(crate) fn lost(&self) -> Option<&str> {
        self.servers
            .iter()
            .find(|s| !running(s))
            .map(|s| server_name(s))
    }

    /// Stops every server and waits until each is gone (reaped).
    pub(crate) async fn close(&self) {
        for server in &self.servers {
            close(server).await;
        }
    }
}

#[cfg(feature = "mcp")]
type Server = tribunal_tools::mcp::McpServer;

#[cfg(feature = "mcp")]
fn server_tools(server: &Server) -> Vec<Arc<dyn Tool>> {
    server.tools()
}

#[cfg(feature = "mcp")]
fn running(server: &Server) -> bool {
    server.is_running()
}

#[cfg(feature = "mcp")]
fn server_name(server: &Server) -> &str {
    server.name()
}

#[cfg(feature = "mcp")]
async fn close(server: &Server) {
    server.close().await;
}

/// No server starts without the feature `mcp`.
#[cfg(not(feature = "mcp"))]
enum Server {}

#[cfg(not(feature = "mcp"))]
fn server_tools(server: &Server) -> Vec<Arc<dyn Tool>> {
    match *server {}
}

#[cfg(not(feature = "mcp"))]
fn running(server: &Server) -> bool {
    match *server {}
}

#[cfg(not(feature = "mcp"))]
fn server_name(server: &Server) -> &str {
    match *server {}
}

#[cfg(not(feature = "mcp"))]
async fn close(server: &Server) {
    match *server {}
}

/// A per-run server's tool in the arena's tool box: its listed spec, for
/// the config hash and lint. Each run's world puts its own server's tool in
/// its place; called without one (never, as such an arena copies every
/// run's world) it fails, saying so.
struct PerRunTool {
    spec: ToolSpec,
}

impl PerRunTool {
    fn of(tool: &dyn Tool) -> Self {
        PerRunTool {
            spec: ToolSpec {
                name: tool.name().to_string(),
                description: tool.description().to_string(),
                parameters: tool.parameters(),
            },
        }
    }
}

impl Tool for PerRunTool {
    fn name(&self) -> &str {
        &self.spec.name
    }

    fn description(&self) -> &str {
        &self.spec.description
    }

    fn parameters(&self) -> Value {
        self.spec.parameters.clone()
    }

    fn call(&self, _args: Value) -> BoxFuture<'_, Result<ToolOutput, ToolError>> {
        Box::pin(std::future::ready(Err(ToolError::new(format!(
            "the tool {} is a per-run MCP server's, and this run has no world",
            self.spec.name
        )))))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn workdir_in_the_args_is_the_runs_copy() {
        let spec: McpServerSpec = toml::from_str(
            "name = \"s\"\ncommand = \"srv\"\nargs = [\"--db\", \"{workdir}/db.json\", \"x\"]\ntools = [\"t\"]\nper_run = true\n",
        )
        .unwrap();
        assert_eq!(
            args_in(&spec, Path::new("/tmp/run-0")),
            ["--db", "/tmp/run-0/db.json", "x"]
        );
    }

    #[test]
    fn only_per_run_tables_and_the_variables_they_may_get_are_kept() {
        let specs: Vec<McpServerSpec> = [
            "name = \"a\"\ncommand = \"a\"\ntools = [\"t\"]\n",
            "name = \"b\"\ncommand = \"b\"\ntools = [\"t\"]\nenv = [\"SHOP_KEY\"]\nper_run = true\n",
        ]
        .iter()
        .map(|t| toml::from_str(t).unwrap())
        .collect();
        let env = |name: &str| match name {
            "SHOP_KEY" => Some(OsString::from("k")),
            "PATH" => Some(OsString::from("/bin")),
            "OPENAI_API_KEY" => Some(OsString::from("sk-secret")),
            _ => None,
        };
        let servers = RunServers::of(&specs, &env, None).unwrap();
        assert_eq!(servers.specs.len(), 1);
        assert_eq!(
            servers.vars.keys().collect::<Vec<_>>(),
            ["PATH", "SHOP_KEY"]
        );
        assert!(!format!("{servers:?}").contains("/bin"), "{servers:?}");
        assert!(RunServers::of(&specs[..1], &env, None).is_none());
    }
}
