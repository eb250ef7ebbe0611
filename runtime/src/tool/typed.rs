//! Tools from typed Rust functions: [`TypedTool`] for a tool with state of
//! its own, [`tool_fn`] for a closure.
//!
//! The arguments type derives its parameter schema with `schemars` (doc
//! comments become descriptions) and its decoding with `serde`; the output
//! is anything `Serialize` (a string reaches the model as plain text, any
//! other value as compact JSON); an error is anything `Display`. Both forms
//! compile their parameters for each provider
//! ([`Tool::compiles_parameters`]), so an `Option` field is offered as a
//! required, nullable property and the tool can go out in strict mode on
//! every target; the arguments a call brings are decoded back and validated
//! before they are deserialised.

use super::{Tool, ToolError, ToolOutput};
use futures::future::BoxFuture;
use schemars::JsonSchema;
use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::Value;
use std::fmt::Display;
use std::future::Future;
use std::marker::PhantomData;
use std::time::Duration;

/// A tool whose arguments and output are Rust types. Every `TypedTool` is a
/// [`Tool`], so it goes into a [`ToolBox`](super::ToolBox) as it is.
///
/// ```
/// use tribunal_runtime::TypedTool;
/// use tribunal_runtime::{ToolBox, ToolError};
///
/// /// The arguments of `add`.
/// #[derive(serde::Deserialize, schemars::JsonSchema)]
/// struct AddArgs {
///     /// The numbers to add.
///     numbers: Vec<i64>,
/// }
///
/// struct Add;
///
/// impl TypedTool for Add {
///     type Args = AddArgs;
///     type Output = i64;
///     fn name(&self) -> &str { "add" }
///     fn description(&self) -> &str { "Adds numbers." }
///     async fn call(&self, args: AddArgs) -> Result<i64, ToolError> {
///         args.numbers.iter().try_fold(0i64, |sum, n| sum.checked_add(*n))
///             .ok_or_else(|| ToolError::new("the sum overflows"))
///     }
/// }
///
/// let tools = ToolBox::new().with(Add);
/// assert_eq!(tools.specs()[0].parameters["properties"]["numbers"]["description"], "The numbers to add.");
/// ```
pub trait TypedTool: Send + Sync + 'static {
    /// The arguments, decoded from the model's call. Their schema is the
    /// tool's parameters, so it should be a struct (a JSON object); fields
    /// may be `Option`al.
    type Args: DeserializeOwned + JsonSchema + Send;
    /// What the call returns: a `String` reaches the model as it is, any
    /// other value as its compact JSON.
    type Output: Serialize;
    /// The name the model calls it by (`^[a-zA-Z0-9_-]{1,64}$`).
    fn name(&self) -> &str;
    /// What the tool does, for the model.
    fn description(&self) -> &str;
    /// Performs the call with arguments that have been validated against
    /// the derived schema and deserialised.
    fn call(
        &self,
        args: Self::Args,
    ) -> impl Future<Output = Result<Self::Output, ToolError>> + Send;
    /// This tool's own time limit (see [`Tool::timeout`]).
    fn timeout(&self) -> Option<Duration> {
        None
    }
}

impl<T: TypedTool> Tool for T {
    fn name(&self) -> &str {
        TypedTool::name(self)
    }

    fn description(&self) -> &str {
        TypedTool::description(self)
    }

    fn parameters(&self) -> Value {
        derived_parameters::<T::Args>()
    }

    fn call(&self, args: Value) -> BoxFuture<'_, Result<ToolOutput, ToolError>> {
        Box::pin(async move {
            let args = decode_args::<T::Args>(args)?;
            encode_output(TypedTool::call(self, args).await?)
        })
    }

    fn timeout(&self) -> Option<Duration> {
        TypedTool::timeout(self)
    }

    fn compiles_parameters(&self) -> bool {
        true
    }
}

/// A tool made from a closure by [`tool_fn`].
pub struct FnTool<A, F> {
    name: String,
    description: String,
    parameters: Value,
    timeout: Option<Duration>,
    function: F,
    arguments: PhantomData<fn(A)>,
}

/// A tool from a name, a description and an async closure over typed
/// arguments:
///
/// ```
/// use tribunal_runtime::tool_fn;
/// use tribunal_runtime::ToolBox;
///
/// /// Where to look.
/// #[derive(serde::Deserialize, schemars::JsonSchema)]
/// struct Lookup {
///     /// The landmark's name.
///     name: String,
///     /// Only facts from this year on.
///     since: Option<i32>,
/// }
///
/// let lookup = tool_fn("lookup", "Looks a landmark up.", |args: Lookup| async move {
///     match args.name.as_str() {
///         "CN Tower" => Ok("completed 1976, 553 m".to_string()),
///         other => Err(format!("no entry for {other}")),
///     }
/// });
/// let tools = ToolBox::new().with(lookup);
/// assert_eq!(tools.specs()[0].name, "lookup");
/// ```
///
/// The closure's output is anything `Serialize` (a `String` reaches the
/// model as it is) and its error anything `Display` (the model reads
/// `error: {message}`).
pub fn tool_fn<A, F, Fut, O, E>(
    name: impl Into<String>,
    description: impl Into<String>,
    function: F,
) -> FnTool<A, F>
where
    A: DeserializeOwned + JsonSchema + Send + 'static,
    F: Fn(A) -> Fut + Send + Sync + 'static,
    Fut: Future<Output = Result<O, E>> + Send + 'static,
    O: Serialize,
    E: Display,
{
    FnTool {
        name: name.into(),
        description: description.into(),
        parameters: derived_parameters::<A>(),
        timeout: None,
        function,
        arguments: PhantomData,
    }
}

impl<A, F> FnTool<A, F> {
    /// Sets this tool's own time limit (see [`Tool::timeout`]).
    pub fn with_timeout(mut self, limit: Duration) -> Self {
        self.timeout = Some(limit);
        self
    }
}

impl<A, F> std::fmt::Debug for FnTool<A, F> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("FnTool")
            .field("name", &self.name)
            .field("arguments", &std::any::type_name::<A>())
            .finish()
    }
}

impl<A, F, Fut, O, E> Tool for FnTool<A, F>
where
    A: DeserializeOwned + JsonSchema + Send + 'static,
    F: Fn(A) -> Fut + Send + Sync + 'static,
    Fut: Future<Output = Result<O, E>> + Send + 'static,
    O: Serialize,
    E: Display,
{
    fn name(&self) -> &str {
        &self.name
    }

    fn description(&self) -> &str {
        &self.description
    }

    fn parameters(&self) -> Value {
        self.parameters.clone()
    }

    fn call(&self, args: Value) -> BoxFuture<'_, Result<ToolOutput, ToolError>> {
        Box::pin(async move {
            let args = decode_args::<A>(args)?;
            match (self.function)(args).await {
                Ok(output) => encode_output(output),
                Err(e) => Err(ToolError::new(e.to_string())),
            }
        })
    }

    fn timeout(&self) -> Option<Duration> {
        self.timeout
    }

    fn compiles_parameters(&self) -> bool {
        true
    }
}

/// The parameter schema of `A`, derived with `schemars` (JSON Schema
/// 2020-12, doc comments as descriptions).
fn derived_parameters<A: JsonSchema>() -> Value {
    schemars::schema_for!(A).to_value()
}

/// Validated arguments as an `A`. The schema check came first, so this
/// fails only where `A`'s `Deserialize` is stricter than its schema (a
/// custom `deserialize`, `try_from`, a number out of the field's range).
fn decode_args<A: DeserializeOwned>(args: Value) -> Result<A, ToolError> {
    serde_json::from_value(args)
        .map_err(|e| ToolError::new(format!("the arguments do not fit the tool: {e}")))
}

/// A typed output as the model reads it: a string as it is, any other value
/// as JSON.
fn encode_output<O: Serialize>(output: O) -> Result<ToolOutput, ToolError> {
    match serde_json::to_value(output) {
        Ok(Value::String(text)) => Ok(ToolOutput::Text(text)),
        Ok(value) => Ok(ToolOutput::Json(value)),
        Err(e) => Err(ToolError::new(format!(
            "the tool's output cannot be serialised: {e}"
        ))),
    }
}
