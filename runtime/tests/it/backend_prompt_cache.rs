//! Prompt caching on the wire: every agent request of a run keeps the
//! previous request's prefix (tools, system prompt, earlier messages)
//! byte-identical on all three APIs, which is what OpenAI's automatic cache
//! needs; Anthropic requests carry `cache_control` breakpoints on the stable
//! prefix, where the previous request ended and on the latest message — never
//! more than four, none below the model's minimum, none when turned off.

use serde_json::{Map, Value, json};
use std::sync::Arc;
use tribunal_runtime::ToolChoice;
use tribunal_runtime::internal::backend::AnthropicCodec;
use tribunal_runtime::internal::backend::prompt_cache::{
    MAX_BREAKPOINTS, breakpoints, without_breakpoints,
};
use tribunal_runtime::internal::backend::{
    BackendOptions, Codec, ModelRequest, OutputFormat, ProviderConfig,
};
use tribunal_runtime::{Agent, BackendKind, Conversation, OutputChoice, ToolBox, connect_with_env};
use tribunal_runtime::{Message, ModelTurn, ToolCall, ToolResult};
use tribunal_testkit::agents::{eiffel, landmark_schema};
use tribunal_testkit::wire::*;

/// A system prompt long enough to cache on any model with the default
/// minimum (1,024 tokens at 2 bytes a token), made of one sentence.
fn long_system() -> String {
    "You answer questions about landmarks from the search results only; cite the passages you use. "
        .repeat(24)
}

/// The searches of a run before its answer.
const SEARCHES: usize = 3;

/// The bodies of one run on `kind`: `SEARCHES` searches (distinct queries),
/// then a valid answer.
async fn research_run(kind: BackendKind, options: &BackendOptions, system: &str) -> Vec<Value> {
    let mut turns: Vec<_> = (0..SEARCHES)
        .map(|i| {
            let query = json!({"query": format!("Eiffel Tower, part {i}")});
            tool_call_turn(kind, &format!("call_{i}"), "search", query)
        })
        .collect();
    turns.push(text_turn(kind, &eiffel().to_string()));
    let server = model_server(kind, turns).await;
    let backend = connect_with_env(kind, "test-model", options, &env_for(kind, &server)).unwrap();
    let run = Agent::new(backend, Arc::new(landmark_schema()))
        .unwrap()
        .with_system(system)
        .with_tools(ToolBox::new().with(Search))
        .run("Give me the landmark record of the Eiffel Tower.")
        .await;
    assert_eq!(run.report.outcome.value(), Some(&eiffel()), "{kind}");
    let bodies = bodies(&server).await;
    assert_eq!(bodies.len(), SEARCHES + 1, "{kind}");
    bodies
}

/// The options `auto` gives the hosted APIs (native, schema on tool turns),
/// the tool strategy (what it gives any other server), and the prompt one.
fn strategies() -> [BackendOptions; 3] {
    [
        BackendOptions {
            settings: tribunal_runtime::BackendSettings {
                output: OutputChoice::Native,
                schema_on_tool_turns: Some(true),
                ..Default::default()
            },
            ..BackendOptions::default()
        },
        BackendOptions {
            settings: tribunal_runtime::BackendSettings {
                output: OutputChoice::Tool,
                ..Default::default()
            },
            ..BackendOptions::default()
        },
        BackendOptions {
            settings: tribunal_runtime::BackendSettings {
                output: OutputChoice::Prompt,
                ..Default::default()
            },
            ..BackendOptions::default()
        },
    ]
}

/// The conversation field of a body of `kind`: `messages` (Chat, Anthropic)
/// or `input` (Responses).
fn conversation_field(kind: BackendKind) -> &'static str {
    match kind {
        BackendKind::OpenAiResponses => "input",
        BackendKind::OpenAiChat | BackendKind::Anthropic => "messages",
    }
}

/// Asserts that request `next` repeats request `earlier` byte for byte but
/// for the messages added at the end: every other field (tools, system
/// prompt or instructions, output format, tool choice, settings) is the
/// same JSON text, and the earlier messages are the first of `next`'s.
fn assert_prefix_kept(kind: BackendKind, earlier: &Value, next: &Value, what: &str) {
    let (earlier, next) = match kind {
        // Anthropic's marks move from turn to turn; its cache ignores them.
        BackendKind::Anthropic => (without_breakpoints(earlier), without_breakpoints(next)),
        _ => (earlier.clone(), next.clone()),
    };
    let field = conversation_field(kind);
    let (Value::Object(a), Value::Object(b)) = (&earlier, &next) else {
        panic!("{what}: bodies are objects");
    };
    let keys = |m: &Map<String, Value>| m.keys().cloned().collect::<Vec<_>>();
    assert_eq!(keys(a), keys(b), "{kind} {what}: the same fields, in order");
    for (key, value) in a.iter().filter(|(k, _)| *k != field) {
        assert_eq!(
            value.to_string(),
            b[key].to_string(),
            "{kind} {what}: `{key}` changed"
        );
    }
    let (old, new) = (a[field].as_array().unwrap(), b[field].as_array().unwrap());
    assert!(
        new.len() > old.len(),
        "{kind} {what}: the conversation grew"
    );
    assert_eq!(
        Value::Array(old.clone()).to_string(),
        Value::Array(new[..old.len()].to_vec()).to_string(),
        "{kind} {what}: the earlier messages changed"
    );
}

#[tokio::test]
async fn consecutive_agent_requests_share_a_byte_identical_prefix_on_every_api() {
    for kind in ALL {
        for options in strategies() {
            let bodies = research_run(kind, &options, &long_system()).await;
            for (n, pair) in bodies.windows(2).enumerate() {
                let what = format!(
                    "{:?}, request {} then {}",
                    options.settings.output,
                    n + 1,
                    n + 2
                );
                assert_prefix_kept(kind, &pair[0], &pair[1], &what);
            }
        }
    }
}

#[tokio::test]
async fn anthropic_requests_mark_the_stable_prefix_the_previous_end_and_the_latest_message() {
    let _snapshots = tribunal_testkit::bind_snapshots("runtime");
    let options = &strategies()[0];
    let bodies = research_run(BackendKind::Anthropic, options, &long_system()).await;
    let marked: Vec<Vec<String>> = bodies.iter().map(breakpoints).collect();
    // Request n+1 reads at the block request n marked last (where it ended)
    // and marks its own latest message.
    assert_eq!(
        marked,
        [
            vec!["/system/0", "/messages/0/content/0"],
            vec![
                "/system/0",
                "/messages/0/content/0",
                "/messages/2/content/0"
            ],
            vec![
                "/system/0",
                "/messages/2/content/0",
                "/messages/4/content/0"
            ],
            vec![
                "/system/0",
                "/messages/4/content/0",
                "/messages/6/content/0"
            ],
        ]
    );
    for body in &bodies {
        assert_eq!(body["system"][0]["text"], json!(long_system()));
        assert_eq!(
            body["system"][0]["cache_control"],
            json!({"type": "ephemeral"})
        );
    }
    // The snapshot shows them in place (system prompt and schema shortened).
    let shown: Vec<Value> = bodies
        .into_iter()
        .map(|mut body| {
            body["system"][0]["text"] =
                json!(format!("[system prompt: {} bytes]", long_system().len()));
            redact_schema(body)
        })
        .collect();
    insta::assert_json_snapshot!("backend_anthropic_prompt_cache_requests", shown);
}

#[tokio::test]
async fn no_marks_when_turned_off_or_below_the_minimum() {
    let kind = BackendKind::Anthropic;
    let off = BackendOptions {
        settings: tribunal_runtime::BackendSettings {
            prompt_cache: Some(false),
            ..strategies()[0].clone().settings
        },
        ..strategies()[0].clone()
    };
    for body in research_run(kind, &off, &long_system()).await {
        assert!(breakpoints(&body).is_empty(), "{body}");
        assert!(body["system"].is_string(), "{body}");
    }
    // A short prompt: the stable prefix and the early turns are under
    // 1,024 tokens even at 2 bytes a token.
    let short = research_run(kind, &strategies()[0], "Use the search tool.").await;
    for body in &short {
        assert!(breakpoints(body).is_empty(), "{body}");
    }
}

/// A request of `kind`'s codec to the test model with `conversation`.
fn request(conversation: Conversation) -> ModelRequest {
    ModelRequest {
        conversation: conversation.into(),
        tools: Vec::new().into(),
        tool_choice: ToolChoice::Auto,
        output: OutputFormat::Text,
        max_output_tokens: None,
    }
}

#[test]
fn a_long_run_of_wide_turns_stays_within_four_marks_and_reads_where_it_left_off() {
    let env = |name: &str| (name == "ANTHROPIC_API_KEY").then(|| FAKE_KEY.to_string());
    let config = ProviderConfig::from_env(
        BackendKind::Anthropic,
        "claude-sonnet-4-5",
        &BackendOptions::default(),
        &env,
    )
    .unwrap();
    let mut conversation = Conversation::new(Some(long_system()), "Find everything.");
    let mut previous_last: Option<String> = None;
    for turn in 0..12 {
        let body = AnthropicCodec::encode(&request(conversation.clone()), &config).unwrap();
        let marked = breakpoints(&body);
        assert!(marked.len() <= MAX_BREAKPOINTS, "turn {turn}: {marked:?}");
        assert_eq!(marked[0], "/system/0");
        // What the previous request marked last is marked again: this
        // request reads exactly there, though the turn between added 2 × 25
        // blocks (more than the 20 Anthropic looks back from a mark).
        if let Some(previous) = &previous_last {
            assert!(marked.contains(previous), "turn {turn}: {marked:?}");
        }
        previous_last = marked.last().cloned();
        // The model calls 25 tools at once; each answers.
        let calls: Vec<ToolCall> = (0..25)
            .map(|i| ToolCall {
                id: format!("t{turn}_{i}"),
                name: "search".into(),
                arguments: json!({"query": format!("{turn}/{i}")}).to_string(),
            })
            .collect();
        conversation.push_assistant(&ModelTurn {
            tool_calls: calls.clone(),
            ..ModelTurn::default()
        });
        conversation.messages.push(Message::ToolResults {
            results: calls
                .iter()
                .map(|c| ToolResult {
                    id: c.id.clone(),
                    content: format!("result of {}", c.id),
                    is_error: false,
                })
                .collect(),
        });
    }
}
