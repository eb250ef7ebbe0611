//! Prompt caching end to end: the `tests/fixtures/prompt_cache` arena (one
//! item of five requests under a long system prompt) on a stand-in Anthropic
//! server that reports cache writes and reads as Anthropic does
//! ([`AnthropicCache`]), recorded with caching on (the default) and with
//! `--no-prompt-cache`, and priced from the replayed cassettes by the
//! built-in table's `claude-sonnet-4-5` prices: the report's cost line says
//! caching at least halves the item's cost.

use crate::stand_in::{AnthropicCache, Api, FAKE_KEY, code, stderr, stdout, tribunal};
use serde_json::{Value, json};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use tribunal::runtime::internal::backend::prompt_cache::breakpoints;
use wiremock::matchers::{method, path};
use wiremock::{Mock, MockServer, Request, Respond, ResponseTemplate};

/// A model the built-in pricing table prices, with cache prices of its own.
const PRICED_MODEL: &str = "claude-sonnet-4-5";
/// The searches the researcher makes before it answers.
const SEARCHES: usize = 4;

fn arena() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/prompt_cache")
}

/// Searches [`SEARCHES`] times (a new query each time), then answers with
/// the record (through the answer tool when offered); reports usage through
/// an [`AnthropicCache`] and keeps the marks of each request.
struct Researcher {
    cache: AnthropicCache,
    marks: Arc<Mutex<Vec<usize>>>,
}

impl Respond for Researcher {
    fn respond(&self, request: &Request) -> ResponseTemplate {
        let Ok(body) = serde_json::from_slice::<Value>(&request.body) else {
            return ResponseTemplate::new(400);
        };
        self.marks.lock().unwrap().push(breakpoints(&body).len());
        let results = body["messages"]
            .as_array()
            .into_iter()
            .flatten()
            .flat_map(|m| m["content"].as_array().into_iter().flatten())
            .filter(|b| b["type"] == "tool_result")
            .count();
        let through_tool = body["tools"]
            .as_array()
            .into_iter()
            .flatten()
            .any(|t| t["name"] == "final_answer");
        let record = json!({"name": "Eiffel Tower", "year": 1889, "city": "Paris"});
        let api = Api::Anthropic;
        let mut reply = match (results < SEARCHES, through_tool) {
            (true, _) => {
                let query = ["", " completed", " city", " other names"][results % 4];
                let args = json!({"query": format!("Eiffel Tower{query}")});
                api.tool_call(&format!("call_{results}"), "search", args)
            }
            (false, true) => api.tool_call("call_answer", "final_answer", record),
            (false, false) => api.answer(&record.to_string()),
        };
        reply["usage"] = self.cache.usage(&body, 30);
        ResponseTemplate::new(200).set_body_json(reply)
    }
}

/// A stand-in Anthropic server playing [`Researcher`], and the marks it saw.
async fn researcher_server() -> (MockServer, Arc<Mutex<Vec<usize>>>) {
    let server = tribunal_testkit::wire::own_server().await;
    let marks = Arc::new(Mutex::new(Vec::new()));
    Mock::given(method("POST"))
        .and(path(Api::Anthropic.endpoint()))
        .respond_with(Researcher {
            cache: AnthropicCache::default(),
            marks: Arc::clone(&marks),
        })
        .mount(&server)
        .await;
    (server, marks)
}

/// `tribunal run` of the fixture on the anthropic backend and the priced
/// model, then `extra`; asserts exit 0 and returns stdout.
async fn run(cwd: &Path, env: &[(&str, String)], extra: &[&str]) -> String {
    let arena = arena();
    let mut args = vec![
        "run",
        arena.to_str().unwrap(),
        "--backend",
        "anthropic",
        "--model",
        PRICED_MODEL,
    ];
    args.extend_from_slice(extra);
    let o = tribunal(&args, cwd, env).await;
    assert_eq!(code(&o), 0, "{args:?}\n{}\n{}", stdout(&o), stderr(&o));
    stdout(&o)
}

/// The USD amount of the report's cost line (`cost $0.012300 over …`).
fn cost_line_usd(report: &str) -> f64 {
    let line = report
        .lines()
        .find(|l| l.starts_with("cost $"))
        .unwrap_or_else(|| panic!("no cost line in:\n{report}"));
    let amount = line["cost $".len()..].split_whitespace().next().unwrap();
    amount.parse().unwrap()
}

/// Runs the fixture live (recording into `dir/<name>`) with `flags`, then
/// replays the cassette; returns the replay's report, its results row, and
/// the number of marks each live request carried.
async fn recorded_then_replayed(
    dir: &Path,
    name: &str,
    flags: &[&str],
) -> (String, Value, Vec<usize>) {
    let (server, marks) = researcher_server().await;
    let env = vec![
        (Api::Anthropic.key_var(), FAKE_KEY.to_string()),
        (
            Api::Anthropic.base_url_var(),
            Api::Anthropic.base_url(&server),
        ),
    ];
    let cassettes = dir.join(name);
    let live_out = dir.join(format!("{name}.live.jsonl"));
    let mut live = vec![
        "--record",
        cassettes.to_str().unwrap(),
        "--out",
        live_out.to_str().unwrap(),
    ];
    live.extend_from_slice(flags);
    let live_report = run(dir, &env, &live).await;
    drop(server);
    let replay_out = dir.join(format!("{name}.replay.jsonl"));
    let replay_report = run(
        dir,
        &[],
        &[
            "--replay",
            cassettes.to_str().unwrap(),
            "--out",
            replay_out.to_str().unwrap(),
        ],
    )
    .await;
    // The recorded cost is the live one.
    assert_eq!(cost_line_usd(&live_report), cost_line_usd(&replay_report));
    let rows = crate::json_lines(&replay_out);
    assert_eq!(rows.len(), 1);
    let marks = marks.lock().unwrap().clone();
    (replay_report, rows[0].clone(), marks)
}

#[tokio::test]
async fn caching_at_least_halves_the_cost_of_a_recorded_five_turn_item() {
    let dir = tempfile::tempdir().unwrap();
    let (on, on_row, on_marks) = recorded_then_replayed(dir.path(), "on", &[]).await;
    let (off, off_row, off_marks) =
        recorded_then_replayed(dir.path(), "off", &["--no-prompt-cache"]).await;
    for row in [&on_row, &off_row] {
        assert_eq!(row["outcome"], "PASS", "{row}");
        assert_eq!(row["turns"], SEARCHES as u64 + 1, "{row}");
    }
    // Every request marked (within Anthropic's four), none without caching.
    assert_eq!(on_marks.len(), SEARCHES + 1);
    assert!(on_marks.iter().all(|m| (2..=4).contains(m)), "{on_marks:?}");
    assert_eq!(off_marks, vec![0; SEARCHES + 1]);
    // The item's tokens: the same prompt, billed in other parts.
    let usage = |row: &Value, field: &str| row["usage"][field].as_u64().unwrap_or(0);
    assert_eq!(
        usage(&on_row, "input_tokens"),
        usage(&off_row, "input_tokens")
    );
    assert_eq!(usage(&off_row, "cache_read_tokens"), 0);
    assert!(usage(&on_row, "cache_read_tokens") > usage(&on_row, "cache_write_tokens"));
    let (on_usd, off_usd) = (cost_line_usd(&on), cost_line_usd(&off));
    assert!(
        on_usd <= 0.5 * off_usd,
        "caching on costs ${on_usd}, off ${off_usd}\n{on}\n{off}"
    );
}
