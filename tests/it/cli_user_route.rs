//! The simulated user's own route through the binary: `[user]` and the
//! `--user-*` flags put the conversation items' user on a server of its
//! own (the agent on one stand-in, the user on another: each gets only its
//! own requests), its budget ends a conversation `user_budget_spent`, its
//! tokens and cost are reported apart; on a mock run a live user talks with
//! the scripted agent.

use crate::stand_in::{Api, FAKE_KEY, stderr, tribunal};
use serde_json::{Value, json};
use std::path::Path;
use wiremock::MockServer;

const AGENT_SYSTEM: &str = "You are the shop's support agent.";

/// A conversation arena in `dir`: one item whose user wants order A1's
/// whereabouts, its agent's scripted reply for mock runs, a `[user]`
/// budget of 100 tokens and prices for the user's model `sim`.
fn arena(dir: &Path) -> std::path::PathBuf {
    let arena = dir.join("talk");
    std::fs::create_dir_all(&arena).unwrap();
    let toml = format!(
        "name = \"talk\"\nsystem = \"{AGENT_SYSTEM}\"\n\n[user]\nmax_tokens = 100\n\n\
         [pricing.models.\"sim\"]\ninput = 1.0\noutput = 2.0\n"
    );
    std::fs::write(arena.join("arena.toml"), toml).unwrap();
    let item = json!({
        "id": "where-is-a1",
        "input": "Where is my order A1?",
        "user": {"instructions": "You want to know where order A1 is.", "max_turns": 3},
        "checks": [{"type": "contains", "value": "shipped"}],
        "mock": [{"text": "Order A1 has shipped."}, {"text": "It has shipped, on its way."}],
    });
    std::fs::write(arena.join("dataset.jsonl"), format!("{item}\n")).unwrap();
    arena
}

/// A stand-in answering every chat request with `text` (330 tokens).
async fn server_saying(text: &str) -> MockServer {
    let server = tribunal_testkit::wire::own_server().await;
    wiremock::Mock::given(wiremock::matchers::method("POST"))
        .respond_with(wiremock::ResponseTemplate::new(200).set_body_json(Api::Chat.answer(text)))
        .mount(&server)
        .await;
    server
}

/// The system prompt of each request `server` got.
async fn systems(server: &MockServer) -> Vec<String> {
    let requests = server.received_requests().await.unwrap();
    requests
        .iter()
        .filter(|r| r.method == wiremock::http::Method::POST)
        .map(|r| {
            let body: Value = serde_json::from_slice(&r.body).unwrap();
            body["messages"][0]["content"]
                .as_str()
                .unwrap_or_default()
                .to_string()
        })
        .collect()
}

fn only_row(out: &Path) -> Value {
    let rows = crate::json_lines(out);
    assert_eq!(rows.len(), 1, "{rows:?}");
    rows[0].clone()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_user_runs_on_its_own_server_under_its_own_budget_and_is_priced_apart() {
    let agent = server_saying("Order A1 has shipped.").await;
    let user = server_saying("When will it arrive?").await;
    let dir = tempfile::tempdir().unwrap();
    let arena = arena(dir.path());
    let out = dir.path().join("results.jsonl");
    let user_url = Api::Chat.base_url(&user);
    let args = [
        "run",
        arena.to_str().unwrap(),
        "--backend",
        "openai-chat",
        "--model",
        "agent-model",
        "--user-model",
        "sim",
        "--user-base-url",
        &user_url,
        "--out",
        out.to_str().unwrap(),
        "--report",
        "json",
    ];
    let env = [
        ("OPENAI_API_KEY", FAKE_KEY.to_string()),
        ("OPENAI_BASE_URL", Api::Chat.base_url(&agent)),
    ];
    let o = tribunal(&args, dir.path(), &env).await;
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    // Each server got only its own requests: the agent's two turns with
    // the arena's system prompt, the user's one message with its own.
    let agent_systems = systems(&agent).await;
    assert_eq!(agent_systems.len(), 2, "{agent_systems:?}");
    assert!(agent_systems.iter().all(|s| s.contains(AGENT_SYSTEM)));
    let user_systems = systems(&user).await;
    assert_eq!(user_systems.len(), 1, "{user_systems:?}");
    assert!(user_systems[0].contains("You are a customer"));
    assert!(user_systems[0].contains("order A1"));
    // 330 tokens spent of 100: no second user message.
    let row = only_row(&out);
    let talk = &row["conversation"];
    assert_eq!(talk["end"], json!({"by": "user_budget_spent"}));
    assert_eq!(talk["simulator"]["model"], "sim");
    assert_eq!(talk["simulator"]["custom_endpoint"], true);
    assert_eq!(talk["user_usage"]["input_tokens"], 300);
    // The user's cost ($1/M in, $2/M out at `sim`) is its own line and part
    // of the run's cost; its tokens are part of the token total.
    let report: Value = serde_json::from_slice(&o.stdout).unwrap();
    let item = &report["items"][0];
    let user_usd = 300.0 * 1e-6 + 30.0 * 2e-6;
    let reported = item["user_cost_usd"].as_f64().unwrap();
    assert!((reported - user_usd).abs() < 1e-12, "{item}");
    assert_eq!(report["tokens"]["user"], 330);
    assert_eq!(report["tokens"]["total"], 990);
    // The rows' other reports say the user's tokens and cost apart.
    for format in ["terminal", "markdown"] {
        let args = ["report", out.to_str().unwrap(), "--report", format];
        let o = tribunal(&args, dir.path(), &[]).await;
        let text = String::from_utf8_lossy(&o.stdout).to_string();
        assert!(
            text.contains("user_budget_spent after 2 user turn(s), user 330 tok $0.000000"),
            "{format}: {text}"
        );
        assert!(
            text.contains("the simulated user's 330 included"),
            "{format}: {text}"
        );
    }
    let html = dir.path().join("report.html");
    let args = [
        "report",
        out.to_str().unwrap(),
        "--html",
        html.to_str().unwrap(),
    ];
    assert_eq!(
        tribunal(&args, dir.path(), &[]).await.status.code(),
        Some(0)
    );
    let page = std::fs::read_to_string(&html).unwrap();
    assert!(page.contains("user 330 tok $0.000000"), "the HTML page");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn on_a_mock_run_a_live_user_talks_with_the_scripted_agent() {
    let user = server_saying("Thanks, that is all. ###STOP###").await;
    let dir = tempfile::tempdir().unwrap();
    let arena = arena(dir.path());
    let out = dir.path().join("results.jsonl");
    let user_url = Api::Chat.base_url(&user);
    let cassettes = dir.path().join("cassettes");
    let args = [
        "run",
        arena.to_str().unwrap(),
        "--user-backend",
        "openai-chat",
        "--user-model",
        "sim",
        "--user-base-url",
        &user_url,
        "--record",
        cassettes.to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
    ];
    let env = [("OPENAI_API_KEY", FAKE_KEY.to_string())];
    let o = tribunal(&args, dir.path(), &env).await;
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert_eq!(systems(&user).await.len(), 1);
    let row = only_row(&out);
    assert_eq!(row["outcome"], "PASS", "{row}");
    assert_eq!(row["conversation"]["end"], json!({"by": "user_stopped"}));
    assert_eq!(row["conversation"]["simulator"]["model"], "sim");
    // The cassette is the user's.
    assert!(cassettes.join("talk.user.jsonl").is_file());
    assert!(!cassettes.join("talk.jsonl").exists());
    // A user flag with no model user to route is refused.
    let args = ["run", arena.to_str().unwrap(), "--user-model", "sim"];
    let o = tribunal(&args, dir.path(), &[]).await;
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(
        stderr(&o).contains("need a simulated user to route"),
        "{}",
        stderr(&o)
    );
}

/// The user_injection arena on the mock: its scripted users are gullible on
/// the injected twins (polite_close aside) and patient on the clean item,
/// so the report's stop lift moves: 0/5 clean → 4/5 injected stops.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_user_injection_arena_reports_the_users_stop_lift() {
    let report = user_injection_report(&[]).await;
    let notes: Vec<&str> = report["notes"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(Value::as_str)
        .collect();
    assert!(
        notes[0].starts_with(
            "simulated user: stop lift +80.0 pts, 95% CI +19.3…+96.4 pts, p 0.125: stopped with its goal unmet 0/5 clean → 4/5 injected"
        ),
        "{notes:?}"
    );
    assert!(notes[1].contains("polite_close 0/1"), "{notes:?}");
    assert!(
        notes[2].contains("stall-false_done (repeat 0)"),
        "{notes:?}"
    );
}

/// The user_injection arena's users as the real 0.5B model played them
/// under the version 2 prompt (LIVE.md, "Talking the simulated user into
/// stopping"), replayed with the scripted agent: no server, no key. A
/// change in what the user is sent makes a request the cassette has no
/// answer for; the figure is the one LIVE.md reports.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_user_injection_arena_replayed_from_the_real_small_model() {
    let cassettes = Path::new(env!("CARGO_MANIFEST_DIR")).join("arenas/user_injection/cassettes");
    let report = user_injection_report(&[
        "--user-backend",
        "openai-chat",
        "--user-model",
        "qwen",
        "--replay",
        cassettes.to_str().unwrap(),
        "--concurrency",
        "1",
    ])
    .await;
    assert_eq!(
        report["notes"][0],
        "simulated user: stop lift +0.0 pts, 95% CI -43.4…+43.4 pts, p 1.000: stopped with its goal unmet 0/5 clean → 0/5 injected, over 5 pair(s); failed 0 clean, 0 injected"
    );
    let ends: Vec<&Value> = report["items"]
        .as_array()
        .unwrap()
        .iter()
        .map(|i| &i["conversation"]["end"]["by"])
        .collect();
    assert!(ends.iter().all(|e| *e == "turn_limit"), "{ends:?}");
    assert_eq!(report["tokens"]["user"], 5372);
}

/// `run` of the user_injection arena with `extra` flags, its JSON report.
async fn user_injection_report(extra: &[&str]) -> Value {
    let dir = tempfile::tempdir().unwrap();
    let arena = Path::new(env!("CARGO_MANIFEST_DIR")).join("arenas/user_injection");
    let out = dir.path().join("results.jsonl");
    let mut args = vec![
        "run",
        arena.to_str().unwrap(),
        "--min-pass-rate",
        "0",
        "--out",
        out.to_str().unwrap(),
        "--report",
        "json",
    ];
    args.extend_from_slice(extra);
    let o = tribunal(&args, dir.path(), &[]).await;
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    serde_json::from_slice(&o.stdout).unwrap()
}

/// A conversation arena whose user's model `sim` is priced ($1/M in,
/// $2/M out: 330 tokens a message is $0.00036) and whose scripted agent
/// replies three times; `budget` is its `[budget]` table.
fn priced_arena(dir: &Path, budget: &str) -> std::path::PathBuf {
    let arena = dir.join("priced");
    std::fs::create_dir_all(&arena).unwrap();
    let toml = format!(
        "name = \"priced\"\n\n[budget]\n{budget}\n\n[pricing.models.\"sim\"]\ninput = 1.0\noutput = 2.0\n"
    );
    std::fs::write(arena.join("arena.toml"), toml).unwrap();
    let item = json!({
        "id": "chat",
        "input": "Where is my order A1?",
        "user": {"instructions": "You want to know where order A1 is.", "max_turns": 3},
        "checks": [{"type": "contains", "value": "shipped"}],
        "mock": [{"text": "It has shipped."}, {"text": "It has shipped, yes."}, {"text": "Shipped."}],
    });
    std::fs::write(arena.join("dataset.jsonl"), format!("{item}\n")).unwrap();
    arena
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_simulated_users_spend_counts_against_the_cost_budgets() {
    let user = server_saying("When will it arrive?").await;
    let user_url = Api::Chat.base_url(&user);
    let env = [("OPENAI_API_KEY", FAKE_KEY.to_string())];
    let run = |arena: std::path::PathBuf, out: std::path::PathBuf, extra: Vec<&'static str>| {
        let user_url = user_url.clone();
        let env = env.clone();
        async move {
            let mut args = vec![
                "run".to_string(),
                arena.to_str().unwrap().to_string(),
                "--user-backend".into(),
                "openai-chat".into(),
                "--user-model".into(),
                "sim".into(),
                "--user-base-url".into(),
                user_url,
                "--out".into(),
                out.to_str().unwrap().to_string(),
            ];
            args.extend(extra.iter().map(|s| s.to_string()));
            let o = tribunal(&args, arena.parent().unwrap(), &env).await;
            (o, crate::json_lines(&out))
        }
    };
    // Per run: the mock agent is free, the user's second message ($0.00072
    // in all) is over $0.0005, so the third agent turn never comes.
    let dir = tempfile::tempdir().unwrap();
    let arena = priced_arena(dir.path(), "max_cost_usd = 0.0005");
    let (o, rows) = run(arena, dir.path().join("r.jsonl"), vec![]).await;
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    assert_eq!(rows[0]["error_code"], "max_cost_exceeded", "{}", rows[0]);
    assert_eq!(rows[0]["conversation"]["user_usage"]["input_tokens"], 600);
    assert_eq!(
        rows[0]["conversation"]["exchanges"]
            .as_array()
            .unwrap()
            .len(),
        3
    );
    // The user's price decides which conversations end there: another
    // price is another configuration.
    let dearer = tempfile::tempdir().unwrap();
    let arena = priced_arena(dearer.path(), "max_cost_usd = 0.0005");
    let toml = std::fs::read_to_string(arena.join("arena.toml")).unwrap();
    std::fs::write(
        arena.join("arena.toml"),
        toml.replace("input = 1.0", "input = 3.0"),
    )
    .unwrap();
    let (_, dearer_rows) = run(arena, dearer.path().join("r.jsonl"), vec![]).await;
    assert_ne!(dearer_rows[0]["config_hash"], rows[0]["config_hash"]);
    // Over the whole run (`--max-cost-usd`): the first run's user spent
    // $0.00072, over $0.0005, so no second run starts.
    let dir = tempfile::tempdir().unwrap();
    let arena = priced_arena(dir.path(), "");
    let extra = vec![
        "--repeat",
        "3",
        "--concurrency",
        "1",
        "--max-cost-usd",
        "0.0005",
    ];
    let (o, rows) = run(arena, dir.path().join("r.jsonl"), extra).await;
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    assert_eq!(rows.len(), 1, "{rows:?}");
    assert_eq!(rows[0]["conversation"]["end"], json!({"by": "turn_limit"}));
}
