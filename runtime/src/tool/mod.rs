//! The [`Tool`] trait agents call, and [`ToolBox`]: the set of tools of a run,
//! which validates arguments and contains every failure (unknown tool, invalid
//! arguments, tool error, panic, timeout) as an error result for the model.
//!
//! [`TypedTool`] and [`tool_fn`] make a tool from typed arguments: the
//! parameter schema is derived with `schemars` and, like an answer schema,
//! compiled for each provider ([`Tool::compiles_parameters`]), so the tool can
//! be offered in strict mode on every target.

pub mod cassette;
mod typed;

pub use typed::{FnTool, TypedTool, tool_fn};

use crate::conversation::{ToolCall, ToolResult};
use crate::output::SchemaTarget;
use crate::schema::OutputSchema;
use crate::text::{Limit, clip};
use futures::future::BoxFuture;
use indexmap::IndexMap;

use serde_json::Value;
use std::sync::Arc;
use std::time::Duration;

/// What a tool returns on success.
#[derive(Debug, Clone, PartialEq)]
pub enum ToolOutput {
    /// Plain text for the model.
    Text(String),
    /// A JSON value; the model reads its compact serialisation.
    Json(Value),
}

impl ToolOutput {
    /// The text the model reads.
    pub fn into_text(self) -> String {
        match self {
            ToolOutput::Text(t) => t,
            ToolOutput::Json(v) => v.to_string(),
        }
    }
}

/// A tool failure, reported to the model as an error result.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{message}")]
pub struct ToolError {
    /// What went wrong, for the model to read.
    pub message: String,
}

impl ToolError {
    /// Creates a tool error.
    pub fn new(message: impl Into<String>) -> Self {
        ToolError {
            message: message.into(),
        }
    }
}

/// A tool an agent can call.
///
/// Implementations must be cheap to share: a [`ToolBox`] holds them in an `Arc`
/// and calls them concurrently.
pub trait Tool: Send + Sync + 'static {
    /// The name the model calls it by (`^[a-zA-Z0-9_-]{1,64}$`).
    fn name(&self) -> &str;
    /// What the tool does, for the model.
    fn description(&self) -> &str;
    /// The JSON Schema of the arguments object.
    fn parameters(&self) -> Value;
    /// Performs the call. `args` has already been validated against
    /// [`Tool::parameters`].
    fn call(&self, args: Value) -> BoxFuture<'_, Result<ToolOutput, ToolError>>;
    /// This tool's own time limit, if it should be shorter than the toolbox default.
    fn timeout(&self) -> Option<Duration> {
        None
    }
    /// Whether a call runs inside the run's own task instead of a task of
    /// its own. For a tool whose call is short CPU work that never blocks
    /// its thread (the built-in `search`): it saves a task and a
    /// cross-thread wake-up per call. A panic is still caught and becomes
    /// an error result, but the timeout can only cut such a call at an
    /// await point, so a tool that may block or run long must keep the
    /// default. Default: `false` (its own task).
    fn runs_inline(&self) -> bool {
        false
    }
    /// Whether [`Tool::parameters`] goes through the provider schema
    /// compiler, as an answer schema does. The model is then offered each
    /// target's wire form of the schema (every object closed, every property
    /// required, an optional one nullable, a non-object root wrapped), which
    /// strict mode accepts on every target, and a call's arguments are
    /// decoded back into the schema's own shape before they are validated
    /// and passed to [`Tool::call`]. Typed tools ([`TypedTool`],
    /// [`tool_fn`]) say yes. Default: `false`: the schema is sent as written,
    /// in strict mode only when it already fits it.
    fn compiles_parameters(&self) -> bool {
        false
    }
}

pub use crate::conversation::ToolSpec;

/// What happened when one tool call was executed.
#[derive(Debug, Clone, PartialEq)]
pub struct ToolExecution {
    /// The result for the model.
    pub result: ToolResult,
    /// How long the call took.
    pub duration: Duration,
}

struct Entry {
    tool: Arc<dyn Tool>,
    spec: ToolSpec,
    arguments: Arguments,
}

/// How a tool's arguments are checked.
enum Arguments {
    /// Against the schema as written; `None` when it does not compile (the
    /// arguments are then only checked to be a JSON object).
    AsWritten(Option<Arc<jsonschema::Validator>>),
    /// Decoded from the target's wire form, then validated against the
    /// owner schema ([`Tool::compiles_parameters`]).
    Compiled(Arc<OutputSchema>),
}

impl Entry {
    /// The parameters the model is offered on `target` when they are not
    /// the schema as written (`None`: as written). A schema the compiler
    /// refuses for `target` is offered as written, and its arguments are
    /// then taken as written too.
    fn wire_parameters(&self, target: SchemaTarget) -> Option<Arc<serde_json::Value>> {
        match &self.arguments {
            Arguments::Compiled(schema) => schema.compiled(target).ok().map(|c| c.wire.clone()),
            Arguments::AsWritten(_) => None,
        }
    }
}

/// The wire specs of a toolbox with compiled tools, one per provider
/// target, made on first use.
#[derive(Default)]
struct WireSpecs {
    openai: std::sync::OnceLock<Arc<[ToolSpec]>>,
    anthropic: std::sync::OnceLock<Arc<[ToolSpec]>>,
}

/// The tools of a run. Executes calls concurrently and never lets a tool crash
/// the run.
pub struct ToolBox {
    tools: IndexMap<String, Entry>,
    specs: Arc<[ToolSpec]>,
    /// Whether any tool compiles its parameters (else every target's specs
    /// are `specs`).
    any_compiled: bool,
    wire_specs: WireSpecs,
    /// Time limit per call when the tool sets none. Default: 30 s.
    pub default_timeout: Duration,
    /// Cap on one result's text, in bytes; longer results are cut with a
    /// visible marker. Default: 64 KiB.
    pub max_output_bytes: usize,
    /// Asked after each batch of calls: a code ends the run ([`ToolBox::halt_when`]).
    halt: Option<Arc<HaltCheck>>,
}

/// What [`ToolBox::halt_when`] is given.
type HaltCheck = dyn Fn() -> Option<crate::error::ErrorCode> + Send + Sync;

impl Default for ToolBox {
    fn default() -> Self {
        ToolBox::new()
    }
}

/// Adds shared tools (each replacing one of the same name), as
/// [`ToolBox::add`] does: `tools.extend(mcp_server.tools())`.
impl Extend<Arc<dyn Tool>> for ToolBox {
    fn extend<I: IntoIterator<Item = Arc<dyn Tool>>>(&mut self, tools: I) {
        for tool in tools {
            self.add(tool);
        }
    }
}

impl std::fmt::Debug for ToolBox {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ToolBox")
            .field("tools", &self.tools.keys().collect::<Vec<_>>())
            .field("default_timeout", &self.default_timeout)
            .field("max_output_bytes", &self.max_output_bytes)
            .finish()
    }
}

impl ToolBox {
    /// An empty toolbox.
    pub fn new() -> Self {
        ToolBox {
            tools: IndexMap::new(),
            specs: Arc::from(Vec::new()),
            any_compiled: false,
            wire_specs: WireSpecs::default(),
            default_timeout: Duration::from_secs(30),
            max_output_bytes: 64 * 1024,
            halt: None,
        }
    }

    /// Ends the runs on this tool box when `check`, asked after each batch
    /// of tool calls, gives a code: the run ends with it (an error outcome;
    /// its tool calls recorded) instead of going on. For tools whose world
    /// can be lost during a run — a tool server that stopped — so a run (a
    /// conversation) does not go on feeding the model errors.
    pub fn halt_when(
        &mut self,
        check: impl Fn() -> Option<crate::error::ErrorCode> + Send + Sync + 'static,
    ) {
        self.halt = Some(Arc::new(check));
    }

    /// The code a run on this tool box ends with now, if any ([`ToolBox::halt_when`]).
    pub(crate) fn halted(&self) -> Option<crate::error::ErrorCode> {
        self.halt.as_ref().and_then(|check| check())
    }

    /// Adds a tool (replacing one of the same name), builder style.
    pub fn with(mut self, tool: impl Tool) -> Self {
        self.add(Arc::new(tool));
        self
    }

    /// Adds a shared tool (replacing one of the same name).
    pub fn add(&mut self, tool: Arc<dyn Tool>) {
        let parameters = tool.parameters();
        let compiled = tool
            .compiles_parameters()
            .then(|| OutputSchema::new(tool.name(), parameters.clone()));
        let arguments = match compiled {
            Some(Ok(schema)) => Arguments::Compiled(Arc::new(schema)),
            Some(Err(e)) => {
                tracing::warn!(tool = tool.name(), error = %e, "the tool's parameter schema does not compile; its arguments are only checked to be an object");
                Arguments::AsWritten(None)
            }
            // A tool whose own schema does not compile still gets called; its
            // arguments are then only checked to be a JSON object.
            None => {
                Arguments::AsWritten(jsonschema::options().build(&parameters).ok().map(Arc::new))
            }
        };
        let spec = ToolSpec {
            name: tool.name().to_string(),
            description: tool.description().to_string(),
            parameters,
        };
        self.tools.insert(
            spec.name.clone(),
            Entry {
                tool,
                spec,
                arguments,
            },
        );
        self.specs = self.tools.values().map(|e| e.spec.clone()).collect();
        self.any_compiled = self
            .tools
            .values()
            .any(|e| matches!(e.arguments, Arguments::Compiled(_)));
        self.wire_specs = WireSpecs::default();
    }

    /// The tools, in the order they were added (to build a larger tool box
    /// from this one).
    pub fn tools(&self) -> impl Iterator<Item = &Arc<dyn Tool>> {
        self.tools.values().map(|e| &e.tool)
    }

    /// Whether there are no tools.
    pub fn is_empty(&self) -> bool {
        self.tools.is_empty()
    }

    /// The tools as advertised to the model, in insertion order.
    pub fn specs(&self) -> Vec<ToolSpec> {
        self.specs.to_vec()
    }

    /// The same specs, shared (cheap to clone into every request of a run).
    pub fn shared_specs(&self) -> Arc<[ToolSpec]> {
        self.specs.clone()
    }

    /// The specs as offered to a model of `target`: a tool that compiles
    /// its parameters ([`Tool::compiles_parameters`]) has them in the
    /// target's wire form; every other tool as written. Shared, and made
    /// once per target.
    pub fn specs_for(&self, target: SchemaTarget) -> Arc<[ToolSpec]> {
        let cell = match target {
            _ if !self.any_compiled => return self.specs.clone(),
            SchemaTarget::Plain => return self.specs.clone(),
            SchemaTarget::OpenAi => &self.wire_specs.openai,
            SchemaTarget::Anthropic => &self.wire_specs.anthropic,
        };
        cell.get_or_init(|| {
            self.tools
                .values()
                .map(|e| match e.wire_parameters(target) {
                    Some(wire) => ToolSpec {
                        parameters: (*wire).clone(),
                        ..e.spec.clone()
                    },
                    None => e.spec.clone(),
                })
                .collect()
        })
        .clone()
    }

    /// Executes a batch of calls whose arguments are in the tools' own
    /// shape ([`SchemaTarget::Plain`]) concurrently; results come back in
    /// call order.
    pub async fn execute_all(&self, calls: &[ToolCall]) -> Vec<ToolExecution> {
        self.execute_all_for(SchemaTarget::Plain, calls).await
    }

    /// Executes a batch of calls made by a model of `target` (offered
    /// [`ToolBox::specs_for`] that target) concurrently; results come back
    /// in call order.
    pub async fn execute_all_for(
        &self,
        target: SchemaTarget,
        calls: &[ToolCall],
    ) -> Vec<ToolExecution> {
        futures::future::join_all(calls.iter().map(|c| self.execute_for(target, c))).await
    }

    /// Executes one call whose arguments are in the tool's own shape.
    /// Every failure becomes an error result.
    pub async fn execute(&self, call: &ToolCall) -> ToolExecution {
        self.execute_for(SchemaTarget::Plain, call).await
    }

    /// Executes one call made by a model of `target`. Every failure becomes
    /// an error result.
    pub async fn execute_for(&self, target: SchemaTarget, call: &ToolCall) -> ToolExecution {
        let started = tokio::time::Instant::now();
        let span = crate::telemetry::tool_span(call);
        let (content, is_error) = match self.prepare(target, call) {
            Err(message) => (message, true),
            Ok((tool, args)) => {
                tracing::Instrument::instrument(self.invoke(tool, args), span.clone()).await
            }
        };
        crate::telemetry::record_tool_result(&span, is_error);
        let content = cap_output(content, self.max_output_bytes);
        ToolExecution {
            result: ToolResult {
                id: call.id.clone(),
                content,
                is_error,
            },
            duration: started.elapsed(),
        }
    }

    fn prepare(
        &self,
        target: SchemaTarget,
        call: &ToolCall,
    ) -> Result<(Arc<dyn Tool>, Value), String> {
        let Some(entry) = self.tools.get(&call.name) else {
            let known: Vec<&str> = self.tools.keys().map(String::as_str).collect();
            return Err(format!(
                "error: unknown tool {:?}; available tools: {}",
                clip(&call.name, Limit::Chars(64)),
                known.join(", ")
            ));
        };
        let raw = if call.arguments.trim().is_empty() {
            "{}"
        } else {
            call.arguments.as_str()
        };
        let args: Value = crate::json::parse_strict(raw, &crate::json::ParseLimits::default())
            .map_err(|e| format!("error: the arguments are not valid JSON: {}", e.message))?;
        let args = match &entry.arguments {
            Arguments::AsWritten(validator) => {
                check_as_written(validator.as_deref(), &entry.spec.name, &args)?;
                args
            }
            Arguments::Compiled(schema) => decode_compiled(schema, target, &entry.spec.name, args)?,
        };
        Ok((entry.tool.clone(), args))
    }

    async fn invoke(&self, tool: Arc<dyn Tool>, args: Value) -> (String, bool) {
        let limit = tool.timeout().unwrap_or(self.default_timeout);
        let outcome = if tool.runs_inline() {
            invoke_inline(&tool, args, limit).await
        } else {
            invoke_spawned(tool.clone(), args, limit).await
        };
        let name = tool.name();
        match outcome {
            Invoked::Done(Ok(output)) => (output.into_text(), false),
            Invoked::Done(Err(e)) => (format!("error: {}", e.message), true),
            Invoked::Panicked => {
                tracing::warn!(tool = %name, "tool panicked");
                (format!("error: the tool {name} crashed"), true)
            }
            Invoked::TimedOut => (
                format!(
                    "error: the tool {name} timed out after {} ms",
                    limit.as_millis()
                ),
                true,
            ),
        }
    }
}

/// The checks a call's arguments get before its tool runs, without running
/// it: how the machine validates an approver's modified arguments.
#[doc(hidden)] // the approval check is the runtime's own; no promise
impl crate::approval::ArgumentCheck for ToolBox {
    fn check(&self, target: SchemaTarget, call: &ToolCall) -> Result<(), String> {
        self.prepare(target, call).map(|_| ())
    }
}

/// Checks arguments against a schema as written: every problem (up to five)
/// becomes the error text. Valid or without a schema, they must still be a
/// JSON object.
fn check_as_written(
    validator: Option<&jsonschema::Validator>,
    name: &str,
    args: &Value,
) -> Result<(), String> {
    if let Some(validator) = validator.filter(|v| !v.is_valid(args)) {
        let problems: Vec<String> = validator
            .iter_errors(args)
            .take(5)
            .map(|e| problem(&e.instance_path().to_string(), &e.to_string()))
            .collect();
        if !problems.is_empty() {
            return Err(invalid_arguments(name, &problems));
        }
    }
    match args.is_object() {
        true => Ok(()),
        false => Err("error: the arguments must be a JSON object".to_string()),
    }
}

/// Decodes arguments from `target`'s wire form of a compiled schema (a
/// schema the compiler refused for `target` was offered as written) and
/// validates them against the owner schema.
fn decode_compiled(
    schema: &OutputSchema,
    target: SchemaTarget,
    name: &str,
    wire: Value,
) -> Result<Value, String> {
    let args = match schema.compiled(target) {
        Ok(compiled) => compiled.plan.decode(wire).map_err(|issues| {
            let problems: Vec<String> = issues.iter().take(5).map(describe_issue).collect();
            invalid_arguments(name, &problems)
        })?,
        Err(_) => wire,
    };
    let issues = schema.validator().issues(&args);
    if issues.is_empty() {
        return Ok(args);
    }
    let problems: Vec<String> = issues.iter().take(5).map(describe_issue).collect();
    Err(invalid_arguments(name, &problems))
}

fn describe_issue(issue: &crate::schema::Issue) -> String {
    problem(&issue.path, &issue.message)
}

/// One line of an invalid-arguments result: where, and what (clipped).
fn problem(path: &str, message: &str) -> String {
    format!(
        "instancePath {path:?}: {}",
        clip(message, Limit::Chars(200))
    )
}

fn invalid_arguments(name: &str, problems: &[String]) -> String {
    format!(
        "error: invalid arguments for {name}:\n- {}",
        problems.join("\n- ")
    )
}

/// How one tool call ended.
enum Invoked {
    Done(Result<ToolOutput, ToolError>),
    Panicked,
    TimedOut,
}

/// Runs the call in a task of its own, so that a panic inside the tool is
/// contained by its task and a tool that blocks its thread still lets this
/// run reach its timeout (on a multi-threaded runtime).
async fn invoke_spawned(tool: Arc<dyn Tool>, args: Value, limit: Duration) -> Invoked {
    // Aborted when dropped: at its timeout, and when the run's deadline
    // drops the whole turn.
    let handle = crate::task::AbortOnDrop::spawn(async move { tool.call(args).await });
    match tokio::time::timeout(limit, handle).await {
        Ok(Ok(result)) => Invoked::Done(result),
        Ok(Err(_panic)) => Invoked::Panicked,
        Err(_) => Invoked::TimedOut,
    }
}

/// Runs the call in the caller's task ([`Tool::runs_inline`]): a panic,
/// in `call` or in its future, is caught here.
async fn invoke_inline(tool: &Arc<dyn Tool>, args: Value, limit: Duration) -> Invoked {
    use futures::FutureExt;
    let call = std::panic::AssertUnwindSafe(|| tool.call(args));
    let Ok(future) = std::panic::catch_unwind(call) else {
        return Invoked::Panicked;
    };
    match tokio::time::timeout(limit, std::panic::AssertUnwindSafe(future).catch_unwind()).await {
        Ok(Ok(result)) => Invoked::Done(result),
        Ok(Err(_panic)) => Invoked::Panicked,
        Err(_) => Invoked::TimedOut,
    }
}

/// `text` cut to at most `max` bytes (on a char boundary), with a visible
/// marker saying how much was shown.
fn cap_output(text: String, max: usize) -> String {
    let kept = clip(&text, Limit::Bytes(max));
    if kept.len() == text.len() {
        return text;
    }
    format!(
        "{kept}\n[truncated: {} of {} bytes shown]",
        kept.len(),
        text.len()
    )
}
