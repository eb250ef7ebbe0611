//! `tribunal schema compile`: an owner schema compiled for one provider, as
//! `{"wire", "plan", "fallback", "notes"}` on stdout.

use anyhow::Context;
use serde_json::{Value, json};
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use tribunal::runtime::SchemaTarget;
use tribunal::runtime::internal::schema::compile as compile_schema;
use tribunal::runtime::{OutputSchema, SchemaError};

/// A provider whose structured-output subset a schema is compiled for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub(crate) enum TargetArg {
    /// OpenAI strict structured output (Chat Completions and Responses).
    Openai,
    /// Anthropic Messages `output_config.format`.
    Anthropic,
}

impl From<TargetArg> for SchemaTarget {
    fn from(t: TargetArg) -> Self {
        match t {
            TargetArg::Openai => SchemaTarget::OpenAi,
            TargetArg::Anthropic => SchemaTarget::Anthropic,
        }
    }
}

#[derive(Debug, clap::Subcommand)]
pub(crate) enum SchemaCommand {
    /// Compile an owner JSON Schema into a provider's wire schema and print
    /// {"wire", "plan", "fallback", "notes"}.
    Compile(CompileArgs),
}

#[derive(Debug, clap::Args)]
pub(crate) struct CompileArgs {
    /// The provider to compile for.
    #[arg(long, value_enum)]
    target: TargetArg,
    /// The owner schema (a JSON file).
    schema: PathBuf,
}

pub(crate) fn run(command: SchemaCommand) -> anyhow::Result<ExitCode> {
    match command {
        SchemaCommand::Compile(args) => compile(args),
    }
}

fn compile(args: CompileArgs) -> anyhow::Result<ExitCode> {
    let target = args.target.into();
    let schema = load_schema(&args.schema, target)?;
    let compiled = schema
        .compiled(target)
        .map_err(|e| schema_error(&args.schema, &e))?;
    let out = json!({
        "wire": *compiled.wire,
        "plan": compiled.plan,
        "fallback": compiled.fallback,
        "notes": compiled.notes,
    });
    println!("{}", serde_json::to_string_pretty(&out)?);
    Ok(ExitCode::SUCCESS)
}

/// Reads and loads an owner schema and checks that it compiles for `target`;
/// every failure is one line naming the file (and the schema path).
pub(crate) fn load_schema(path: &Path, target: SchemaTarget) -> anyhow::Result<OutputSchema> {
    let text = std::fs::read_to_string(path)
        .with_context(|| format!("cannot read the schema {}", path.display()))?;
    let owner: Value =
        serde_json::from_str(&text).with_context(|| format!("{} is not JSON", path.display()))?;
    let name = path
        .file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_default();
    // The compiler's errors name the schema path; run it before the validator.
    compile_schema(&owner, target).map_err(|e| schema_error(path, &e))?;
    OutputSchema::new(&name, owner).map_err(|e| schema_error(path, &e))
}

fn schema_error(path: &Path, e: &SchemaError) -> anyhow::Error {
    let at = if e.path.is_empty() { "(root)" } else { &e.path };
    anyhow::anyhow!(
        "{}: unsupported schema at {at}: {}",
        path.display(),
        e.message.replace('\n', " ")
    )
}
