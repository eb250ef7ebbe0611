//! `tribunal review [RANGE] --requirements TEXT|@FILE`: review your own
//! change in one command — the diff of a git revision range (default: the
//! uncommitted changes) or of `--diff FILE`, inline in the first message;
//! the file tools rooted at the repository; the model's server checked
//! before the review; the verdict printed for a person (`--json`: the
//! stored verdict). Exit 0 GREEN, 1 RED, 2 no verdict (with the reason).

use super::git_change;
use super::heading;
use super::judge::{ReviewerArgs, checked_review, deadline, exit_code, read_schemas};
use anyhow::Context;
use serde_json::Value;
use std::io::Read;
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::Arc;
use tribunal::judge::internal::arena::diff::first_changed_file;
use tribunal::judge::internal::arena::inline_files::MAX_INLINE_BYTES;
use tribunal::judge::internal::report::tokens::grouped;
use tribunal::judge::internal::verdict::change_review::{change_review, change_review_schemas};
use tribunal::judge::{StoredVerdict, VerdictOutcome};
use tribunal::runtime::{ErrorCode, RunReport};
use tribunal::tools::FileTools;

#[derive(Debug, clap::Args)]
pub(crate) struct ReviewArgs {
    /// The change: a git revision range (`main..HEAD`, `HEAD~1`). Default:
    /// the uncommitted changes (`git diff HEAD`; new files count once added).
    #[arg(value_name = "RANGE", help_heading = heading::REVIEW)]
    range: Option<String>,
    /// Review this diff file instead (`-`: stdin); the file tools read --repo.
    #[arg(long, value_name = "FILE", conflicts_with = "range", help_heading = heading::REVIEW)]
    diff: Option<PathBuf>,
    /// What the change must do: the text, or @FILE. Lines without ids are
    /// numbered R1, R2, …
    #[arg(long, value_name = "TEXT|@FILE", help_heading = heading::REVIEW)]
    requirements: String,
    /// The repository: with a range, any folder in it (the file tools are
    /// rooted at its top); with --diff, the folder the diff's paths start from.
    #[arg(long, value_name = "DIR", default_value = ".", help_heading = heading::REVIEW)]
    repo: PathBuf,
    /// Your own GREEN (pass) owner schema, a JSON file (with --fail-schema).
    #[arg(long, value_name = "FILE", requires = "fail_schema", help_heading = heading::REVIEW)]
    pass_schema: Option<PathBuf>,
    /// Your own RED (fail) owner schema, a JSON file (with --pass-schema).
    #[arg(long, value_name = "FILE", requires = "pass_schema", help_heading = heading::REVIEW)]
    fail_schema: Option<PathBuf>,
    #[command(flatten)]
    reviewer: ReviewerArgs,
    /// Most tool calls over the review. Default: 12.
    #[arg(allow_negative_numbers = true, long, value_name = "N", help_heading = heading::BUDGETS)]
    max_tool_calls: Option<u32>,
    /// The review's deadline in seconds. Default: 300.
    #[arg(allow_negative_numbers = true, long = "deadline-secs", value_name = "SECS", help_heading = heading::BUDGETS)]
    deadline: Option<f64>,
    /// Print the stored verdict as JSON (what `judge run` prints) instead.
    #[arg(long, help_heading = heading::OUTPUT)]
    json: bool,
    /// Record every live request/answer into DIR/review.jsonl.
    #[arg(long, value_name = "DIR", help_heading = heading::RESULTS)]
    record: Option<PathBuf>,
    /// Serve answers from DIR/review.jsonl (a cassette written by --record).
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

/// The cassette's name in the --record / --replay folder.
const CASSETTE_STEM: &str = "review";

pub(crate) fn run(mut args: ReviewArgs) -> anyhow::Result<ExitCode> {
    args.reviewer.read_provider_prefix();
    let requirements = text_or_file(&args.requirements, "--requirements")?;
    if requirements.trim().is_empty() {
        anyhow::bail!("--requirements is empty: say what the change must do");
    }
    let (root, diff) = change(&args)?;
    if diff.trim().is_empty() {
        let what = match (&args.diff, &args.range) {
            (Some(file), _) => format!("{} is empty", file.display()),
            (None, Some(range)) => format!("{range} changes nothing"),
            (None, None) => {
                "no uncommitted change to review: name a range, e.g. `tribunal review HEAD~1`"
                    .into()
            }
        };
        eprintln!("tribunal: {what}; no review");
        return Ok(ExitCode::from(2));
    }
    if diff.len() as u64 > MAX_INLINE_BYTES {
        anyhow::bail!(
            "the diff is {} bytes, over the {MAX_INLINE_BYTES} a review takes in its first message: review a smaller range",
            diff.len()
        );
    }
    let mut files =
        FileTools::new(&root).with_context(|| format!("the file tools at {}", root.display()))?;
    // The call a model is shown first reads a file the change touches.
    if let Some(path) = first_changed_file(&diff, &files) {
        files = files.with_example_path(path);
    }
    let tools = files.into_toolbox();
    let settings = args.backend_flags.settings()?;
    let schemas = match (&args.pass_schema, &args.fail_schema) {
        (Some(green), Some(red)) => read_schemas(green, red)?,
        _ => change_review_schemas()?,
    };
    let mut review = change_review(Arc::new(schemas), &requirements, &diff).with_tools(tools);
    review.budget.max_tool_calls = args.max_tool_calls.or(review.budget.max_tool_calls);
    if let Some(secs) = args.deadline {
        review.budget.deadline = Some(deadline(secs)?);
    }
    if let Some(max) = settings.max_output_tokens {
        review = review.with_max_output_tokens(max);
    }
    let backend = args
        .reviewer
        .with(
            args.record.as_deref(),
            args.replay.as_deref(),
            &args.backend_flags,
        )
        .backend(CASSETTE_STEM, &settings)?;
    let (stored, run) = match checked_review(review, backend, &settings)? {
        Ok(reviewed) => reviewed,
        Err(code) => return Ok(code),
    };
    if args.json {
        println!("{}", stored.to_json_pretty());
    } else {
        print!("{}", for_a_person(&stored, &run.report));
    }
    if let VerdictOutcome::Error(code) = stored.outcome {
        eprintln!("tribunal: no verdict: {}: {}", code.as_str(), why(code));
        if let Some(failure) = &stored.backend_failure {
            eprintln!("tribunal: the backend failure: {failure}");
        }
    }
    Ok(ExitCode::from(exit_code(stored.outcome)))
}

/// The file tools' root and the diff, from `--diff` or git.
fn change(args: &ReviewArgs) -> anyhow::Result<(PathBuf, String)> {
    super::folder::require_folder(&args.repo, "the --repo folder")?;
    let Some(file) = &args.diff else {
        let root = git_change::repository_root(&args.repo)?;
        let diff = git_change::diff(&root, args.range.as_deref())?;
        if let Some(note) = git_change::elsewhere(&root, args.range.as_deref())? {
            eprintln!("tribunal: {note}");
        }
        return Ok((root, diff));
    };
    // The folder the diff's paths are relative to, as named.
    let root = args.repo.clone();
    let diff = if file.as_os_str() == "-" {
        let mut text = String::new();
        std::io::stdin()
            .read_to_string(&mut text)
            .context("cannot read the diff from stdin")?;
        text
    } else {
        std::fs::read_to_string(file).with_context(|| format!("cannot read {}", file.display()))?
    };
    Ok((root, diff))
}

/// `value`, or the text of the file it names after `@`.
fn text_or_file(value: &str, flag: &str) -> anyhow::Result<String> {
    match value.strip_prefix('@') {
        Some(path) => {
            std::fs::read_to_string(path).with_context(|| format!("{flag}: cannot read {path}"))
        }
        None => Ok(value.to_string()),
    }
}

/// The verdict as a person reads it: the verdict and its summary, each
/// finding as `file:line: problem`, the other fields, then what the review
/// cost.
fn for_a_person(stored: &StoredVerdict, report: &RunReport) -> String {
    let mut out = String::new();
    let fields = stored.result.as_ref().and_then(Value::as_object);
    match fields {
        Some(fields) => {
            let summary = fields.get("summary").and_then(Value::as_str);
            out.push_str(stored.outcome.as_str());
            if let Some(summary) = summary {
                out.push_str(": ");
                out.push_str(&shown(summary));
            }
            out.push('\n');
            for (key, value) in fields {
                if key == "verdict" || (key == "summary" && summary.is_some()) {
                    continue;
                }
                out.push_str(&field_lines(key, value));
            }
        }
        None => {
            let code = match stored.outcome {
                VerdictOutcome::Error(code) => code.as_str(),
                _ => "no fields",
            };
            out.push_str(&format!("no verdict ({code})\n"));
        }
    }
    out.push_str(&cost_line(stored, report));
    out
}

/// One owner field: findings (objects with `file` and `line`) one per
/// line, a list of strings on one line, anything else as compact JSON.
fn field_lines(key: &str, value: &Value) -> String {
    let Value::Array(items) = value else {
        let text = value.as_str().map_or_else(|| value.to_string(), shown);
        return format!("  {}: {text}\n", shown(key));
    };
    if items.iter().all(Value::is_string) {
        let list: Vec<String> = items.iter().filter_map(Value::as_str).map(shown).collect();
        return format!("  {}: {}\n", shown(key), list.join(", "));
    }
    let mut out = format!("  {}:\n", shown(key));
    for item in items {
        let place = item.get("file").and_then(Value::as_str).map(|file| {
            match item.get("line").and_then(Value::as_u64) {
                Some(line) => format!("{}:{line}", shown(file)),
                None => shown(file),
            }
        });
        let said = item
            .get("problem")
            .and_then(Value::as_str)
            .map_or_else(|| shown(&item.to_string()), shown);
        match place {
            Some(place) => out.push_str(&format!("    {place}: {said}\n")),
            None => out.push_str(&format!("    - {said}\n")),
        }
    }
    out
}

/// A model's text as one terminal line: its lines joined, every other
/// control character (an escape sequence's ESC among them) replaced, so
/// a verdict cannot move the cursor, recolour or retitle the terminal.
fn shown(text: &str) -> String {
    tribunal::runtime::internal::text::join_lines(text)
        .chars()
        .map(|c| if c.is_control() { '\u{fffd}' } else { c })
        .collect()
}

/// `model on backend · N tool calls, M file reads · T tokens · S s`.
fn cost_line(stored: &StoredVerdict, report: &RunReport) -> String {
    let repro = &stored.reproduction;
    let reads = report
        .tool_calls
        .iter()
        .filter(|c| c.ok && c.name == "read_file")
        .count();
    let tokens = repro.usage.input_tokens + repro.usage.output_tokens;
    let count = |n: u64, what: &str| {
        let s = if n == 1 { "" } else { "s" };
        format!("{} {what}{s}", grouped(n))
    };
    // A scripted model without usage in its script spent nothing to count.
    let tokens = match tokens {
        0 => String::new(),
        n => format!(" · {}", count(n, "token")),
    };
    format!(
        "{} on {} · {}, {}{tokens} · {:.1} s\n",
        repro.model,
        repro.backend,
        count(report.tool_calls.len() as u64, "tool call"),
        count(reads as u64, "file read"),
        report.wall_ms / 1000.0
    )
}

/// Why a review gave no verdict, and what to try, for a person.
fn why(code: ErrorCode) -> &'static str {
    match code {
        ErrorCode::NoProgress => {
            "the model wrote its verdict as prose, turn after turn, instead of calling a tool to read the code (small local models do; their server does not hold them to the tool call): try a model that calls tools"
        }
        ErrorCode::Runaway | ErrorCode::Truncated => {
            "the model's answer ran on until it was cut; try again, or a larger model"
        }
        ErrorCode::DeadlineExceeded => "the review ran out of time; raise --deadline-secs",
        ErrorCode::SchemaMismatch | ErrorCode::NoJson | ErrorCode::InvalidJson => {
            "the model's verdict did not fit the verdict schema, even after one repair turn"
        }
        ErrorCode::MaxTokensExceeded | ErrorCode::MaxCostExceeded => {
            "the review spent its budget before a verdict"
        }
        ErrorCode::BackendError => "the model's server failed; the line below says how",
        ErrorCode::Refused => "the model refused, or the provider's filter stopped it",
        _ => "see docs/reliability.md for this code",
    }
}
