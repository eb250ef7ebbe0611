//! `tribunal check`: a model's answer text (stdin) run through the same
//! pipeline as a final answer — extract, decode, validate — printed as one
//! JSON object. Exit 0 valid, 1 invalid, 2 usage or schema error.

use super::schema::{TargetArg, load_schema};
use anyhow::Context;
use serde_json::json;
use std::io::Read;
use std::path::PathBuf;
use std::process::ExitCode;
use tribunal::runtime::AnswerPolicy;
use tribunal::runtime::ExtractionMode;
use tribunal::runtime::SchemaTarget;
use tribunal::runtime::StopReason;
use tribunal::runtime::internal::answer::{evaluate_answer, repair_message};

#[derive(Debug, clap::Args)]
pub(crate) struct CheckArgs {
    /// The owner schema (a JSON file).
    #[arg(long)]
    schema: PathBuf,
    /// Accept exactly one JSON value and nothing else (no fences, no prose).
    #[arg(long)]
    strict: bool,
    /// Read the text as the wire answer of this provider (decoded before validation).
    #[arg(long, value_enum)]
    target: Option<TargetArg>,
}

pub(crate) fn run(args: CheckArgs) -> anyhow::Result<ExitCode> {
    let target = args.target.map_or(SchemaTarget::Plain, SchemaTarget::from);
    // A schema the target cannot take is a usage error, not a rejection.
    let schema = load_schema(&args.schema, target)?;
    let mut text = String::new();
    std::io::stdin()
        .read_to_string(&mut text)
        .context("cannot read the answer from stdin")?;
    let policy = AnswerPolicy {
        mode: if args.strict {
            ExtractionMode::Strict
        } else {
            ExtractionMode::Lenient
        },
        ..AnswerPolicy::default()
    };
    let out = match evaluate_answer(&schema, target, &text, StopReason::EndTurn, &policy) {
        Ok(accepted) => {
            let out = json!({
                "ok": true,
                "value": accepted.value,
                "extracted_from": accepted.extracted_from,
            });
            println!("{}", serde_json::to_string(&out)?);
            return Ok(ExitCode::SUCCESS);
        }
        Err(rejection) => {
            let errors: Vec<_> = if rejection.issues.is_empty() {
                vec![json!({"path": "", "message": rejection.summary})]
            } else {
                rejection
                    .issues
                    .iter()
                    .map(|i| json!({"path": i.path, "message": i.message}))
                    .collect()
            };
            json!({
                "ok": false,
                "code": rejection.code.as_str(),
                "errors": errors,
                "repair": repair_message(&rejection, None),
            })
        }
    };
    println!("{}", serde_json::to_string(&out)?);
    Ok(ExitCode::from(1))
}
