//! `tribunal judge`: GREEN/RED verdicts.
//!
//! - `judge submit --pass-schema P --fail-schema F --verdict GREEN|RED --fields JSON|@file.json`:
//!   a human verdict, validated through the same path as a model's. Valid:
//!   the stored verdict on stdout, exit 0. Invalid: each problem by its
//!   field path on stderr, exit 2, nothing stored.
//! - `judge run --pass-schema P --fail-schema F --prompt FILE --root DIR [--backend … --model …]`:
//!   an agent review with the file tools rooted at DIR; the stored verdict
//!   on stdout; exit 0 GREEN, 1 RED, 2 ERROR.
//! - `judge calibrate ARENA [run flags] [--min-kappa X]`: the arena run with
//!   the calibration against its gold verdicts; exit 1 only below
//!   `--min-kappa`.

use super::backend_choice::{BackendChoice, BackendRequest, Chosen, read_provider_prefix};
use super::heading;
use super::preflight::{Checked, before_first_item};
use anyhow::Context;
use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::Arc;
use std::time::Duration;
use tribunal::judge::Environment;
use tribunal::judge::internal::run::backends::MOCK_MODEL;
use tribunal::judge::internal::verdict::{
    Review, StoredVerdict, Verdict, VerdictOutcome, VerdictSchemas, run_review, submit,
};
use tribunal::runtime::{Backend, Budget, Run};
use tribunal::runtime::{BackendSettings, ScriptTurn, ScriptedBackend};
use tribunal::tools::FileTools;

#[derive(Debug, clap::Subcommand)]
pub(crate) enum JudgeCommand {
    /// Validate a human verdict and print its stored record (exit 0; 2 when invalid).
    Submit(SubmitArgs),
    /// Review code with an agent and print the stored verdict (exit 0 GREEN, 1 RED, 2 ERROR).
    Run(Box<ReviewArgs>),
    /// Run an arena and report how the judge's verdicts agree with the gold
    /// ones: accuracy, Cohen's kappa, true-RED/true-GREEN rates (95%
    /// intervals), self-agreement over --repeat, the disagreements. Takes
    /// every `run` flag; exit 1 only below --min-kappa.
    Calibrate(Box<super::run::RunArgs>),
}

/// The two owner schemas of a review.
#[derive(Debug, clap::Args)]
pub(crate) struct SchemaArgs {
    /// The GREEN (pass) owner schema, a JSON file.
    #[arg(long, value_name = "FILE", help_heading = heading::REVIEW)]
    pass_schema: PathBuf,
    /// The RED (fail) owner schema, a JSON file.
    #[arg(long, value_name = "FILE", help_heading = heading::REVIEW)]
    fail_schema: PathBuf,
}

#[derive(Debug, clap::Args)]
pub(crate) struct SubmitArgs {
    #[command(flatten)]
    schemas: SchemaArgs,
    /// The verdict: GREEN or RED.
    #[arg(long, help_heading = heading::REVIEW)]
    verdict: Verdict,
    /// The flat owner fields: a JSON object, or @FILE to read it from a file.
    #[arg(long, value_name = "JSON|@FILE", help_heading = heading::REVIEW)]
    fields: String,
}

#[derive(Debug, clap::Args)]
pub(crate) struct ReviewArgs {
    #[command(flatten)]
    schemas: SchemaArgs,
    /// The review prompt (the change and the question), a text file.
    #[arg(long, value_name = "FILE", help_heading = heading::REVIEW)]
    prompt: PathBuf,
    /// The code base: the root of the file tools (list_files, read_file, grep).
    #[arg(long, value_name = "DIR", help_heading = heading::REVIEW)]
    root: PathBuf,
    /// Replace the default review system prompt with this file's text.
    #[arg(long, value_name = "FILE", help_heading = heading::REVIEW)]
    system: Option<PathBuf>,
    /// Require a tool call (reading the code) before the verdict.
    #[arg(long, help_heading = heading::REVIEW)]
    require_tool_first: bool,
    #[command(flatten)]
    reviewer: ReviewerArgs,
    /// Most tool calls over the review. Default: unlimited.
    #[arg(long, allow_negative_numbers = true, value_name = "N", help_heading = heading::BUDGETS)]
    max_tool_calls: Option<u32>,
    /// The review's deadline in seconds. Default: 300.
    #[arg(long = "deadline-secs", allow_negative_numbers = true, value_name = "SECS", help_heading = heading::BUDGETS)]
    deadline: Option<f64>,
    /// Record every live request/answer into DIR/<prompt>.jsonl.
    ///
    /// Record every live request/answer into DIR/<prompt>.jsonl, the
    /// prompt file's name with `.jsonl` (as `run --record DIR` writes
    /// DIR/<arena>.jsonl).
    #[arg(long, value_name = "DIR", help_heading = heading::RESULTS)]
    record: Option<PathBuf>,
    /// Serve answers from DIR/<prompt>.jsonl (a cassette written by --record).
    #[arg(long, value_name = "DIR", help_heading = heading::RESULTS)]
    replay: Option<PathBuf>,
    #[command(flatten)]
    backend_flags: super::backend_flags::BackendFlags,
}

impl ReviewArgs {
    /// Whether the review asks a live model rather than the mock or a
    /// cassette (the docs mark such commands).
    #[cfg(test)]
    pub(super) fn needs_live_model(&self) -> bool {
        self.reviewer.is_live() && self.replay.is_none()
    }
}

/// Who reviews (`judge run`, `review`): the provider, the model, the mock
/// script.
#[derive(Debug, clap::Args)]
pub(crate) struct ReviewerArgs {
    /// The model provider; `mock` plays the --mock script.
    #[arg(long, value_enum, default_value_t, help_heading = heading::MODEL)]
    pub(super) backend: BackendChoice,
    /// The model name (required for live backends).
    #[arg(long, help_heading = heading::MODEL)]
    pub(super) model: Option<String>,
    /// Mock mode: a JSON array of script turns the scripted model plays.
    #[arg(long, value_name = "FILE", help_heading = heading::MODEL)]
    pub(super) mock: Option<PathBuf>,
}

impl ReviewerArgs {
    /// Whether a live model reviews (`--backend` or a provider prefix).
    #[cfg(test)]
    pub(super) fn is_live(&self) -> bool {
        let prefixed = self
            .model
            .as_deref()
            .and_then(super::backend_choice::split_provider);
        self.backend.live().is_some() || prefixed.is_some()
    }

    /// Who answers, with the cassette folders and backend flags.
    pub(super) fn with<'a>(
        &'a self,
        record: Option<&'a Path>,
        replay: Option<&'a Path>,
        flags: &'a super::backend_flags::BackendFlags,
    ) -> ReviewModel<'a> {
        ReviewModel {
            choice: self.backend,
            model: self.model.as_deref(),
            mock: self.mock.as_deref(),
            record,
            replay,
            flags,
        }
    }

    /// `--model openai/gpt-4.1-mini` without `--backend` names both.
    pub(super) fn read_provider_prefix(&mut self) {
        read_provider_prefix(&mut self.backend, &mut self.model);
    }
}

pub(crate) fn run(command: JudgeCommand) -> anyhow::Result<ExitCode> {
    match command {
        JudgeCommand::Submit(a) => run_submit(a),
        JudgeCommand::Run(a) => run_review_command(*a),
        JudgeCommand::Calibrate(a) => super::run::run_gated(*a, super::run::ExitRule::Kappa),
    }
}

pub(super) fn read_schemas(green: &Path, red: &Path) -> anyhow::Result<VerdictSchemas> {
    Ok(VerdictSchemas::new(read_json(green)?, read_json(red)?)?)
}

fn load_schemas(args: &SchemaArgs) -> anyhow::Result<VerdictSchemas> {
    read_schemas(&args.pass_schema, &args.fail_schema)
}

fn read_json(path: &Path) -> anyhow::Result<Value> {
    let text =
        std::fs::read_to_string(path).with_context(|| format!("cannot read {}", path.display()))?;
    serde_json::from_str(&text).with_context(|| format!("{} is not valid JSON", path.display()))
}

fn run_submit(args: SubmitArgs) -> anyhow::Result<ExitCode> {
    let schemas = load_schemas(&args.schemas)?;
    let text = match args.fields.strip_prefix('@') {
        Some(path) => {
            std::fs::read_to_string(path).with_context(|| format!("cannot read {path}"))?
        }
        None => args.fields.clone(),
    };
    let fields: Value = match serde_json::from_str(&text) {
        Ok(v) => v,
        Err(e) => {
            eprintln!("tribunal: the fields are not valid JSON: {e}");
            return Ok(ExitCode::from(2));
        }
    };
    match submit(&schemas, args.verdict, fields) {
        Ok(stored) => {
            println!("{}", stored.to_json_pretty());
            Ok(ExitCode::SUCCESS)
        }
        Err(e) => {
            eprintln!("tribunal: {e}");
            Ok(ExitCode::from(2))
        }
    }
}

fn run_review_command(mut args: ReviewArgs) -> anyhow::Result<ExitCode> {
    args.reviewer.read_provider_prefix();
    let schemas = Arc::new(load_schemas(&args.schemas)?);
    let prompt = std::fs::read_to_string(&args.prompt)
        .with_context(|| format!("cannot read {}", args.prompt.display()))?;
    super::folder::require_folder(&args.root, "the --root folder")?;
    let tools = FileTools::new(&args.root)
        .with_context(|| format!("--root {}", args.root.display()))?
        .into_toolbox();
    let defaults = Budget::default();
    let budget = Budget {
        max_tool_calls: args.max_tool_calls.or(defaults.max_tool_calls),
        deadline: match args.deadline {
            None => defaults.deadline,
            Some(secs) => Some(deadline(secs)?),
        },
        ..defaults
    };
    let settings = args.backend_flags.settings()?;
    let mut review = Review::new(schemas, prompt)
        .with_tools(tools)
        .with_budget(budget)
        .with_tool_required_first(args.require_tool_first);
    if let Some(max) = settings.max_output_tokens {
        review = review.with_max_output_tokens(max);
    }
    if let Some(path) = &args.system {
        let system = std::fs::read_to_string(path)
            .with_context(|| format!("cannot read {}", path.display()))?;
        review = review.with_system(system);
    }
    let backend = backend(&args, &settings)?;
    let (stored, _run) = match checked_review(review, backend, &settings)? {
        Ok(reviewed) => reviewed,
        Err(code) => return Ok(code),
    };
    if let Some(failure) = &stored.backend_failure {
        // The stored verdict keeps the code; a person reads why here too.
        eprintln!("tribunal: the review ended without a verdict: backend_error: {failure}");
    }
    println!("{}", stored.to_json_pretty());
    Ok(ExitCode::from(exit_code(stored.outcome)))
}

/// `review` on `backend`, after the check of its server: the stored
/// verdict and the run, or the exit code when it did not run (interrupted:
/// 130). `settings` enter the config hash: everything of the backend that
/// shapes the answer does. As `run`: a server that is not there, never
/// answers, is no API or refuses the key is one line (the error) and exit
/// 2 before the review.
pub(super) fn checked_review(
    review: Review,
    backend: Arc<dyn Backend>,
    settings: &BackendSettings,
) -> anyhow::Result<Result<(StoredVerdict, Run), ExitCode>> {
    let review = review.with_settings(serde_json::json!({
        "backend": backend.name(),
        "model": backend.model(),
        "request": settings.hashed(),
        "plan": backend.output_plan(),
    }));
    let runtime = super::tokio_runtime()?;
    if let Checked::Interrupted(code) =
        before_first_item(&runtime, backend.preflight(), "no review")?
    {
        return Ok(Err(code));
    }
    let Some(reviewed) = super::unless_interrupted(&runtime, run_review(&review, backend)) else {
        eprintln!("\ntribunal: interrupted during the review: no verdict was given or stored");
        return Ok(Err(ExitCode::from(130)));
    };
    Ok(Ok(reviewed?))
}

/// A review's `--deadline-secs`: a positive, finite number of seconds.
pub(super) fn deadline(secs: f64) -> anyhow::Result<Duration> {
    match Duration::try_from_secs_f64(secs) {
        Ok(d) if !d.is_zero() => Ok(d),
        _ => anyhow::bail!("--deadline-secs must be a positive number of seconds, not {secs}"),
    }
}

/// The exit code of `judge run`: 0 GREEN, 1 RED, 2 no verdict.
pub(super) fn exit_code(outcome: VerdictOutcome) -> u8 {
    match outcome {
        VerdictOutcome::Green => 0,
        VerdictOutcome::Red => 1,
        VerdictOutcome::Error(_) => 2,
    }
}

fn backend(args: &ReviewArgs, settings: &BackendSettings) -> anyhow::Result<Arc<dyn Backend>> {
    let stem = args
        .prompt
        .file_stem()
        .map_or("review".into(), |s| s.to_string_lossy().into_owned());
    args.reviewer
        .with(
            args.record.as_deref(),
            args.replay.as_deref(),
            &args.backend_flags,
        )
        .backend(&stem, settings)
}

/// Who answers a review (`judge run`, `review`): the backend and model
/// flags, the mock script, the cassette folders.
pub(super) struct ReviewModel<'a> {
    choice: BackendChoice,
    model: Option<&'a str>,
    mock: Option<&'a Path>,
    record: Option<&'a Path>,
    replay: Option<&'a Path>,
    flags: &'a super::backend_flags::BackendFlags,
}

impl ReviewModel<'_> {
    /// The backend; a cassette is `<stem>.jsonl` in the `--record` or
    /// `--replay` folder.
    pub(super) fn backend(
        &self,
        stem: &str,
        settings: &BackendSettings,
    ) -> anyhow::Result<Arc<dyn Backend>> {
        if self.mock.is_some() && self.choice.live().is_some() {
            anyhow::bail!("--mock needs --backend mock");
        }
        let chosen = BackendRequest {
            choice: self.choice,
            model: self.model,
            record: cassette(self.record, stem, "--record")?,
            replay: cassette(self.replay, stem, "--replay")?,
            cache: None,
            flags: self.flags,
        }
        .choose(settings, &Environment::of_process())?;
        match chosen {
            Chosen::Mock => mock_backend(self.mock),
            Chosen::Live(backend) => Ok(backend),
        }
    }
}

/// The cassette of a review in the folder `dir` (`--record` or
/// `--replay`, named `flag`): `<stem>.jsonl` (the prompt file's stem for
/// `judge run`), as `run` keeps `<arena>.jsonl`. A path ending in `.jsonl`
/// is the cassette file the flag took before it took a folder: refused,
/// saying so.
fn cassette(dir: Option<&Path>, stem: &str, flag: &str) -> anyhow::Result<Option<PathBuf>> {
    let Some(dir) = dir else {
        return Ok(None);
    };
    if dir.extension().is_some_and(|e| e == "jsonl") {
        anyhow::bail!(
            "{flag} takes a folder, as on `run`: the cassette is DIR/<prompt>.jsonl; pass {}",
            dir.parent()
                .filter(|p| !p.as_os_str().is_empty())
                .map_or(".".to_string(), |p| p.display().to_string())
        );
    }
    Ok(Some(dir.join(format!("{stem}.jsonl"))))
}

/// The scripted backend playing the `--mock` script.
fn mock_backend(script: Option<&Path>) -> anyhow::Result<Arc<dyn Backend>> {
    let path = script.context("--backend mock needs --mock FILE (a JSON array of script turns)")?;
    let text =
        std::fs::read_to_string(path).with_context(|| format!("cannot read {}", path.display()))?;
    let turns: Vec<ScriptTurn> = serde_json::from_str(&text)
        .with_context(|| format!("{} is not a JSON array of script turns", path.display()))?;
    Ok(Arc::new(
        ScriptedBackend::from_script(&turns)
            .with_model(MOCK_MODEL)
            .without_request_log(),
    ))
}
