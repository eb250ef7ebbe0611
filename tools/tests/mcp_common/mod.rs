//! What the MCP test binaries (`mcp.rs` over stdio, `mcp_http.rs` over
//! streamable HTTP) share: the start timeout, a tool box of a server's
//! tools, and a tool call.

use serde_json::Value;
use std::time::Duration;
use tribunal_runtime::ToolBox;
use tribunal_runtime::ToolCall;
use tribunal_tools::mcp::McpServer;

/// How long a fixture server may take to start.
pub(crate) const START: Duration = Duration::from_secs(20);

/// A tool box holding every tool `server` offers.
pub(crate) fn toolbox(server: &McpServer) -> ToolBox {
    let mut tools = ToolBox::new();
    tools.extend(server.tools());
    tools
}

/// A call of tool `name` with `arguments`.
pub(crate) fn call(name: &str, arguments: Value) -> ToolCall {
    ToolCall {
        id: "call_1".into(),
        name: name.into(),
        arguments: arguments.to_string(),
    }
}
