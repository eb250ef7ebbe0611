//! A `rubric` check of a conversation item reads the whole conversation:
//! the judge (a stand-in on the wire) is sent the user's goal and the
//! transcript — each user message, the agent's tool calls and its replies —
//! as delimited data, then the rubric.

use crate::stand_in::{Api, Grader, judge_server, live_env, stderr, tribunal};
use serde_json::{Value, json};

/// An arena of one conversation at a shop: the agent asks for the order,
/// looks it up (`get_record`), and says what it found; a rubric check
/// asks whether it looked the order up before answering.
fn arena(dir: &std::path::Path) -> std::path::PathBuf {
    let arena = dir.join("arena");
    std::fs::create_dir_all(arena.join("world")).unwrap();
    std::fs::write(
        arena.join("world/orders.json"),
        r#"{"A1": {"status": "delivered"}}"#,
    )
    .unwrap();
    std::fs::write(
        arena.join("arena.toml"),
        "name = \"desk\"\ntools = [\"records\"]\nfiles_root = \"world\"\nschema = { type = \"object\" }\n",
    )
    .unwrap();
    let item = json!({
        "id": "status",
        "input": "Where is my lamp?",
        "user": {
            "instructions": "You are Ana. Your order is A1; give it when asked.",
            "script": [{"when": "order number", "say": "It is A1."}]
        },
        "checks": [{
            "type": "rubric",
            "rubric": "GREEN when the agent looked the order up before telling its status, RED otherwise."
        }],
        "mock": [
            {"text": "What is your order number?"},
            {"tool_calls": [{"name": "get_record", "arguments": {"table": "orders", "id": "A1"}}]},
            {"text": "Order A1 was delivered."}
        ]
    });
    std::fs::write(arena.join("dataset.jsonl"), format!("{item}\n")).unwrap();
    arena
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_conversations_rubric_judge_reads_its_transcript() {
    let _snapshots = tribunal_testkit::bind_snapshots("cli");
    let api = Api::Chat;
    let server = judge_server(api, Grader::Careful).await;
    let dir = tempfile::tempdir().unwrap();
    let arena = arena(dir.path());
    let out = dir.path().join("results.jsonl");
    let args = [
        "run",
        arena.to_str().unwrap(),
        "--judge-backend",
        api.cli_name(),
        "--judge-model",
        "judge",
        "--out",
        out.to_str().unwrap(),
    ];
    let o = tribunal(&args, dir.path(), &live_env(api, &server)).await;
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let rows = crate::json_lines(&out);
    assert_eq!(rows[0]["outcome"], "PASS", "{}", rows[0]);
    let requests = server.received_requests().await.unwrap();
    let asked: Vec<Value> = requests
        .iter()
        .filter(|r| r.method.as_str() == "POST")
        .map(|r| serde_json::from_slice(&r.body).unwrap())
        .collect();
    assert_eq!(asked.len(), 1, "one judgement");
    let user = asked[0]["messages"]
        .as_array()
        .unwrap()
        .iter()
        .find(|m| m["role"] == "user")
        .unwrap()["content"]
        .as_str()
        .unwrap()
        .to_string();
    insta::assert_snapshot!("conversation_rubric_judge_prompt", user);
}

/// The rubric judge's spend counts against `--max-cost-usd` over the run:
/// the mock agent is free, but one judgement on a priced judge model (300
/// input and 30 output tokens at $1 and $2 per million: $0.00036) is over
/// $0.0002, so no second repeat starts.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_rubric_judges_spend_counts_against_the_run_budget() {
    let api = Api::Chat;
    let server = judge_server(api, Grader::Careful).await;
    let dir = tempfile::tempdir().unwrap();
    let arena = arena(dir.path());
    let toml = std::fs::read_to_string(arena.join("arena.toml")).unwrap();
    std::fs::write(
        arena.join("arena.toml"),
        format!("{toml}\n[pricing.models.\"judge\"]\ninput = 1.0\noutput = 2.0\n"),
    )
    .unwrap();
    let out = dir.path().join("results.jsonl");
    let args = [
        "run",
        arena.to_str().unwrap(),
        "--judge-backend",
        api.cli_name(),
        "--judge-model",
        "judge",
        "--repeat",
        "3",
        "--concurrency",
        "1",
        "--max-cost-usd",
        "0.0002",
        "--out",
        out.to_str().unwrap(),
    ];
    let o = tribunal(&args, dir.path(), &live_env(api, &server)).await;
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    let rows = crate::json_lines(&out);
    assert_eq!(rows.len(), 1, "{rows:?}");
    assert_eq!(
        rows[0]["judge"]["usage"]["input_tokens"], 300,
        "{}",
        rows[0]
    );
}
