//! Typed tools ([`TypedTool`], [`tool_fn`]): derived parameter schemas
//! compiled per provider (strict on every target), calls decoded from the
//! wire form and deserialised, outputs and errors as the model reads them.

use serde::{Deserialize, Serialize};
use serde_json::{Value, json};
use std::collections::BTreeMap;
use std::sync::{Arc, Mutex};
use std::time::Duration;
use tribunal_runtime::ToolCall;
use tribunal_runtime::{Agent, OutputChoice, ToolBox, ToolError, connect_with_env};
use tribunal_runtime::{BackendOptions, SchemaTarget};
use tribunal_runtime::{TypedTool, tool_fn};
use tribunal_testkit::agents::{Even, eiffel, landmark_schema};
use tribunal_testkit::wire::*;

/// The arguments of `lookup`.
#[derive(Debug, Clone, PartialEq, Deserialize, schemars::JsonSchema)]
struct Lookup {
    /// The landmark's name.
    name: String,
    /// Only facts from this year on.
    since: Option<i32>,
    /// Labels to match, by key (an open map: it travels as JSON text).
    #[serde(default)]
    labels: BTreeMap<String, String>,
}

/// What `lookup` returns.
#[derive(Debug, Serialize)]
struct Facts {
    name: String,
    height_m: f64,
}

/// A `lookup` tool that keeps the arguments it was called with.
fn lookup(seen: Arc<Mutex<Vec<Lookup>>>) -> impl tribunal_runtime::Tool {
    tool_fn("lookup", "Looks a landmark up.", move |args: Lookup| {
        let seen = seen.clone();
        async move {
            seen.lock().unwrap().push(args.clone());
            match args.name.as_str() {
                "Eiffel Tower" => Ok(Facts {
                    name: args.name,
                    height_m: 330.0,
                }),
                other => Err(format!("no entry for {other}")),
            }
        }
    })
}

fn call(name: &str, arguments: Value) -> ToolCall {
    ToolCall {
        id: "call_1".to_string(),
        name: name.to_string(),
        arguments: arguments.to_string(),
    }
}

#[test]
fn the_derived_schema_is_kept_as_written_and_compiled_for_each_provider() {
    let _snapshots = tribunal_testkit::bind_snapshots("runtime");
    let tools = ToolBox::new().with(lookup(Arc::default()));
    let owner = &tools.specs()[0].parameters;
    assert_eq!(
        owner["properties"]["name"]["description"],
        "The landmark's name."
    );
    assert_eq!(owner["required"], json!(["name"]), "as derived: {owner}");
    assert_eq!(
        tools.specs_for(SchemaTarget::Plain)[0].parameters,
        *owner,
        "the plain target takes the schema as written"
    );
    let mut wire = serde_json::Map::new();
    for target in [SchemaTarget::OpenAi, SchemaTarget::Anthropic] {
        let spec = tools.specs_for(target)[0].clone();
        let params = &spec.parameters;
        assert_eq!(params["additionalProperties"], false, "{params}");
        assert_eq!(
            params["required"],
            json!(["name", "since", "labels"]),
            "every property is required on the wire: {params}"
        );
        wire.insert(target.as_str().to_string(), params.clone());
    }
    insta::assert_json_snapshot!("tool_typed_lookup_parameters", wire);
}

#[test]
fn a_hand_written_tool_is_offered_as_written_on_every_target() {
    let tools = ToolBox::new().with(Search);
    for target in [
        SchemaTarget::Plain,
        SchemaTarget::OpenAi,
        SchemaTarget::Anthropic,
    ] {
        assert_eq!(tools.specs_for(target).to_vec(), tools.specs());
    }
}

#[tokio::test]
async fn a_call_in_the_wire_form_is_decoded_before_the_function_sees_it() {
    let seen = Arc::new(Mutex::new(Vec::new()));
    let tools = ToolBox::new().with(lookup(seen.clone()));
    let wire = json!({"name": "Eiffel Tower", "since": null, "labels": "{\"kind\":\"tower\"}"});
    let done = tools
        .execute_for(SchemaTarget::OpenAi, &call("lookup", wire.clone()))
        .await;
    assert!(!done.result.is_error, "{}", done.result.content);
    assert_eq!(
        serde_json::from_str::<Value>(&done.result.content).unwrap(),
        json!({"name": "Eiffel Tower", "height_m": 330.0}),
        "a struct output reaches the model as JSON"
    );
    assert_eq!(
        seen.lock().unwrap().as_slice(),
        [Lookup {
            name: "Eiffel Tower".into(),
            since: None,
            labels: BTreeMap::from([("kind".into(), "tower".into())]),
        }]
    );

    // The same wire arguments taken as written (no target) are not the
    // schema's own shape: the map is a string there.
    let as_written = tools.execute(&call("lookup", wire)).await;
    assert!(as_written.result.is_error);
    assert!(
        as_written.result.content.contains("/labels"),
        "{}",
        as_written.result.content
    );
}

#[tokio::test]
async fn invalid_arguments_and_failures_become_error_results() {
    let tools = ToolBox::new().with(lookup(Arc::default()));
    let cases = [
        (
            json!({"name": 7, "since": null, "labels": "{}"}),
            "error: invalid arguments for lookup:\n- instancePath \"/name\"",
        ),
        (
            json!({"name": "x", "since": null, "labels": "not json"}),
            "error: invalid arguments for lookup:\n- instancePath \"/labels\"",
        ),
        (
            json!({"name": "Big Ben", "since": 1859, "labels": "{}"}),
            "error: no entry for Big Ben",
        ),
    ];
    for (args, says) in cases {
        let done = tools
            .execute_for(SchemaTarget::OpenAi, &call("lookup", args.clone()))
            .await;
        assert!(done.result.is_error, "{args}");
        assert!(
            done.result.content.starts_with(says),
            "{args}: {}",
            done.result.content
        );
    }
}

/// A typed tool with state: halves even numbers, answers in text.
struct Halve {
    calls: Mutex<u32>,
}

impl TypedTool for Halve {
    type Args = Even;
    type Output = String;
    fn name(&self) -> &str {
        "halve"
    }
    fn description(&self) -> &str {
        "Halves an even number."
    }
    async fn call(&self, args: Even) -> Result<String, ToolError> {
        *self.calls.lock().unwrap() += 1;
        Ok(format!("half of {} is {}", args.n, args.n / 2))
    }
    fn timeout(&self) -> Option<Duration> {
        Some(Duration::from_millis(250))
    }
}

#[tokio::test]
async fn a_typed_tool_struct_answers_in_text_and_its_deserialize_has_the_last_word() {
    let tools = ToolBox::new().with(Halve {
        calls: Mutex::new(0),
    });
    let ok = tools
        .execute_for(SchemaTarget::OpenAi, &call("halve", json!({"n": 8})))
        .await;
    assert_eq!(
        ok.result.content, "half of 8 is 4",
        "a string output is plain text"
    );
    assert!(!ok.result.is_error);

    let odd = tools
        .execute_for(SchemaTarget::OpenAi, &call("halve", json!({"n": 7})))
        .await;
    assert!(odd.result.is_error);
    assert!(
        odd.result
            .content
            .starts_with("error: the arguments do not fit the tool: n must be even"),
        "{}",
        odd.result.content
    );
}

#[tokio::test]
async fn a_typed_tool_keeps_its_own_time_limit() {
    let slow = tool_fn("slow", "Sleeps.", |_: Even| async {
        tokio::time::sleep(Duration::from_secs(5)).await;
        Ok::<_, String>("done")
    })
    .with_timeout(Duration::from_millis(20));
    let tools = ToolBox::new().with(slow);
    let done = tools.execute(&call("slow", json!({"n": 2}))).await;
    assert!(done.result.is_error);
    assert_eq!(
        done.result.content,
        "error: the tool slow timed out after 20 ms"
    );
}

/// What the tool strategy and the native strategy send on OpenAI-shaped
/// servers: the typed tool strict, with its wire schema, on each backend;
/// and the model's wire-form call reaches the function decoded.
#[tokio::test]
async fn each_backend_offers_a_typed_tool_strict_and_decodes_its_call() {
    let _snapshots = tribunal_testkit::bind_snapshots("runtime");
    for kind in ALL {
        let seen = Arc::new(Mutex::new(Vec::new()));
        let wire_args = json!({"name": "Eiffel Tower", "since": null, "labels": "{}"});
        let server = model_server(
            kind,
            vec![
                tool_call_turn(kind, "call_1", "lookup", wire_args),
                text_turn(kind, &eiffel().to_string()),
            ],
        )
        .await;
        let options = BackendOptions {
            settings: tribunal_runtime::BackendSettings {
                output: OutputChoice::Native,
                ..Default::default()
            },
            ..BackendOptions::default()
        };
        let backend =
            connect_with_env(kind, "test-model", &options, &env_for(kind, &server)).unwrap();
        let agent = Agent::new(backend, Arc::new(landmark_schema()))
            .unwrap()
            .with_tools(ToolBox::new().with(lookup(seen.clone())).with(Search));
        let run = agent.run("How tall is the Eiffel Tower?").await;
        assert_eq!(
            run.report.outcome.value(),
            Some(&eiffel()),
            "{kind:?}: {:?}",
            run.report
        );
        assert_eq!(seen.lock().unwrap().len(), 1, "{kind:?}");
        assert_eq!(seen.lock().unwrap()[0].since, None);
        let result = &run.report.tool_calls[0];
        assert!(result.ok, "{kind:?}: {result:?}");

        let bodies = bodies(&server).await;
        let tools = bodies[0]["tools"].clone();
        let offered = tools.as_array().unwrap();
        let strict = |t: &Value| {
            t.get("strict").or_else(|| t["function"].get("strict")) == Some(&json!(true))
        };
        let parameters = |t: &Value| {
            ["/function/parameters", "/parameters", "/input_schema"]
                .iter()
                .find_map(|p| t.pointer(p))
                .cloned()
        };
        assert!(
            strict(&offered[0]),
            "{kind:?}: the typed tool is strict: {tools}"
        );
        assert_eq!(
            parameters(&offered[0]).unwrap()["required"],
            json!(["name", "since", "labels"]),
            "{kind:?}"
        );
        assert_eq!(
            parameters(&offered[1]),
            Some(tribunal_runtime::Tool::parameters(&Search)),
            "{kind:?}: the hand-written tool goes as written"
        );
        insta::assert_json_snapshot!(format!("tool_typed_offer_{kind:?}"), tools);
    }
}

/// A tool that asks for compilation with a schema the compiler cannot take.
struct Odd(Value);

impl tribunal_runtime::Tool for Odd {
    fn name(&self) -> &str {
        "odd"
    }
    fn description(&self) -> &str {
        "Takes odd schemas."
    }
    fn parameters(&self) -> Value {
        self.0.clone()
    }
    fn call(
        &self,
        args: Value,
    ) -> futures::future::BoxFuture<'_, Result<tribunal_runtime::ToolOutput, ToolError>> {
        Box::pin(async move { Ok(tribunal_runtime::ToolOutput::Json(args)) })
    }
    fn compiles_parameters(&self) -> bool {
        true
    }
}

#[tokio::test]
async fn a_schema_the_compiler_refuses_is_offered_and_taken_as_written() {
    // Valid JSON Schema that no value satisfies: the validator takes it,
    // the compiler refuses it for the providers.
    let infeasible = json!({"type": "object", "allOf": [{"type": "string"}],
                            "properties": {"a": {"type": "string"}}});
    // Not a schema at all: the validator refuses it.
    let broken =
        json!({"type": "object", "properties": {"a": {"$ref": "https://example.invalid/a"}}});
    // The infeasible one is still checked by its validator (which refuses
    // every value); the broken one has none, so the tool gets the object.
    let cases = [
        (
            infeasible,
            "error: invalid arguments for odd:\n- instancePath \"\"",
        ),
        (broken, "{\"a\":\"x\"}"),
    ];
    for (schema, says) in cases {
        let tools = ToolBox::new().with(Odd(schema.clone()));
        for target in [SchemaTarget::OpenAi, SchemaTarget::Anthropic] {
            assert_eq!(tools.specs_for(target)[0].parameters, schema, "{target:?}");
        }
        let done = tools
            .execute_for(SchemaTarget::OpenAi, &call("odd", json!({"a": "x"})))
            .await;
        let content = &done.result.content;
        assert!(content.starts_with(says), "{schema}: {content}");
        let not_object = tools
            .execute_for(SchemaTarget::OpenAi, &call("odd", json!(["x"])))
            .await;
        assert!(not_object.result.is_error, "{}", not_object.result.content);
    }
}
