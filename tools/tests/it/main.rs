//! Integration tests of `tribunal-tools`, one binary with a module per area.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    missing_docs,
    unreachable_pub
)]

mod adversarial;
mod file_tools;
mod landmarks;
mod ranking;
mod records;
#[cfg(unix)]
mod sandbox;
mod search_tool;
#[cfg(unix)]
mod toolchains;
mod write_tools;

/// Runs one tool call through a toolbox, as the agent loop would.
pub(crate) async fn call(
    toolbox: &tribunal_runtime::ToolBox,
    name: &str,
    args: serde_json::Value,
) -> tribunal_runtime::ToolResult {
    let call = tribunal_runtime::ToolCall {
        id: "call-1".to_string(),
        name: name.to_string(),
        arguments: args.to_string(),
    };
    toolbox.execute(&call).await.result
}
