//! Integration tests of `tribunal-tools`, one binary with a module per area.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    missing_docs,
    unreachable_pub
)]

/// Points insta at the workspace's `snapshots/tools/` folder for the rest of
/// the enclosing scope.
#[allow(unused_macros)]
macro_rules! bind_snapshots {
    () => {
        let mut settings = insta::Settings::clone_current();
        settings.set_snapshot_path(concat!(env!("CARGO_MANIFEST_DIR"), "/../snapshots/tools"));
        settings.set_prepend_module_to_snapshot(false);
        let _snapshot_guard = settings.bind_to_scope();
    };
}

mod adversarial;
mod file_tools;
mod landmarks;
mod ranking;
mod search_tool;

/// Runs one tool call through a toolbox, as the agent loop would.
pub(crate) async fn call(
    toolbox: &tribunal_runtime::ToolBox,
    name: &str,
    args: serde_json::Value,
) -> tribunal_runtime::conversation::ToolResult {
    let call = tribunal_runtime::conversation::ToolCall {
        id: "call-1".to_string(),
        name: name.to_string(),
        arguments: args.to_string(),
    };
    toolbox.execute(&call).await.result
}
