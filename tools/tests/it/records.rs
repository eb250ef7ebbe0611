//! The record tools: find, get and update records of the JSON tables in a
//! folder, and nothing outside it.

use serde_json::{Value, json};
use tribunal_runtime::SchemaTarget;
use tribunal_runtime::ToolBox;
use tribunal_runtime::ToolCall;
use tribunal_tools::RecordTools;

fn world() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("orders.json"),
        json!({
            "A1": {"customer": "ana@example.com", "status": "delivered", "refunded": false},
            "A2": {"customer": "bo@example.com", "status": "shipped", "refunded": false}
        })
        .to_string(),
    )
    .unwrap();
    dir
}

async fn call(tools: &ToolBox, name: &str, args: Value) -> (bool, String) {
    let call = ToolCall {
        id: "c1".into(),
        name: name.into(),
        arguments: args.to_string(),
    };
    let mut out = tools
        .execute_all_for(SchemaTarget::Plain, std::slice::from_ref(&call))
        .await;
    let e = out.remove(0);
    (!e.result.is_error, e.result.content)
}

#[tokio::test]
async fn records_are_found_read_and_updated_in_place() {
    let dir = world();
    let mut tools = ToolBox::new();
    RecordTools::new(dir.path()).add_to(&mut tools);
    let (ok, found) = call(
        &tools,
        "find_records",
        json!({"table": "orders", "field": "customer", "value": "ANA@example.com"}),
    )
    .await;
    assert!(
        ok && found.contains("A1") && !found.contains("A2"),
        "{found}"
    );
    let (ok, got) = call(&tools, "get_record", json!({"table": "orders", "id": "A2"})).await;
    assert!(ok && got.contains("shipped"), "{got}");
    let (ok, _) = call(
        &tools,
        "update_record",
        json!({"table": "orders", "id": "A1", "changes": {"refunded": true}}),
    )
    .await;
    assert!(ok);
    let text = std::fs::read_to_string(dir.path().join("orders.json")).unwrap();
    let table: Value = serde_json::from_str(&text).unwrap();
    assert_eq!(table["A1"]["refunded"], json!(true));
    assert_eq!(table["A2"]["refunded"], json!(false));
}

#[tokio::test]
async fn no_new_field_no_missing_record_and_no_path_outside() {
    let dir = world();
    let mut tools = ToolBox::new();
    RecordTools::new(dir.path()).add_to(&mut tools);
    for (name, args) in [
        (
            "update_record",
            json!({"table": "orders", "id": "A1", "changes": {"discount": 50}}),
        ),
        (
            "update_record",
            json!({"table": "orders", "id": "Z9", "changes": {"refunded": true}}),
        ),
        (
            "update_record",
            json!({"table": "orders", "id": "A1", "changes": {}}),
        ),
        ("get_record", json!({"table": "../outside", "id": "x"})),
        ("get_record", json!({"table": "/etc/passwd", "id": "x"})),
        ("get_record", json!({"table": "customers", "id": "x"})),
    ] {
        let (ok, text) = call(&tools, name, args.clone()).await;
        assert!(!ok, "{name} {args}: {text}");
    }
    #[cfg(unix)]
    {
        let outside = tempfile::tempdir().unwrap();
        std::fs::write(outside.path().join("t.json"), r#"{"x": {"a": 1}}"#).unwrap();
        std::os::unix::fs::symlink(
            outside.path().join("t.json"),
            dir.path().join("linked.json"),
        )
        .unwrap();
        let (ok, _) = call(
            &tools,
            "update_record",
            json!({"table": "linked", "id": "x", "changes": {"a": 2}}),
        )
        .await;
        assert!(!ok);
        let kept = std::fs::read_to_string(outside.path().join("t.json")).unwrap();
        assert_eq!(kept, r#"{"x": {"a": 1}}"#);
    }
}
