//! `tribunal import FILE DIR`: an arena from a dataset another tool keeps —
//! OpenAI evals samples (`{"input": [chat messages], "ideal": …}`),
//! inspect_ai samples (`{"input": "…", "target": …}`) or plain question and
//! answer lines (`{"question": "…", "answer": …}`), one JSON object a line;
//! a CSV file with such columns (`import_csv`); a promptfoo configuration
//! (`.yaml`) is `import_promptfoo`'s.
//! Each line becomes a text-answer item (`extraction = "text"`) with a
//! `contains` check per expected answer (`iregex` for several) and a mock
//! turn playing it; what could not be mapped is listed per line in the
//! arena's README and on stderr. With `--registry`, OpenAI evals' class
//! decides the checks (`import_evals_class`). The arena lints clean; exit
//! 0, 2 when the file cannot be read or no line maps.

use super::import_evals_class::{EvalClass, class_of};
use super::import_item::{Mapped, escaped};
use serde_json::{Value, json};
use std::fmt::Write as _;
use std::path::PathBuf;
use std::process::ExitCode;

#[derive(Debug, clap::Args)]
pub(crate) struct ImportArgs {
    /// The dataset: JSON Lines of OpenAI evals, inspect_ai or question/answer samples.
    file: PathBuf,
    /// The new arena's folder (created; must not exist or be empty).
    dir: PathBuf,
    /// OpenAI evals: the registry YAML whose eval scores FILE; its class
    /// decides the checks (Match: starts with; Includes: contains;
    /// FuzzyMatch: icontains). Default: every ideal answer is `contains`.
    #[arg(long, value_name = "YAML")]
    registry: Option<PathBuf>,
    /// With --registry: the eval (its name in the YAML), when more than one
    /// eval there scores FILE or none names it.
    #[arg(long, value_name = "NAME", requires = "registry")]
    eval: Option<String>,
}

/// An expected answer longer than this is said to want a rubric.
const LONG_ANSWER: usize = 100;

pub(crate) fn run(args: ImportArgs) -> anyhow::Result<ExitCode> {
    if std::fs::read_dir(&args.dir).is_ok_and(|mut d| d.next().is_some()) {
        anyhow::bail!(
            "{} is not empty: import writes a new arena into an empty or new folder; nothing was written",
            args.dir.display()
        );
    }
    let text = std::fs::read_to_string(&args.file)
        .map_err(|e| anyhow::anyhow!("cannot read {}: {e}", args.file.display()))?;
    let yaml = args
        .file
        .extension()
        .is_some_and(|x| x == "yaml" || x == "yml");
    let csv = args.file.extension().is_some_and(|x| x == "csv");
    let class = match &args.registry {
        None => EvalClass::Includes,
        Some(_) if yaml || csv => anyhow::bail!(
            "--registry is OpenAI evals' registry: it scores JSON Lines samples, not {}",
            args.file.display()
        ),
        Some(registry) => {
            let text = std::fs::read_to_string(registry)
                .map_err(|e| anyhow::anyhow!("cannot read {}: {e}", registry.display()))?;
            let (name, class) = class_of(&text, registry, &args.file, args.eval.as_deref())?;
            eprintln!("import: eval {name} ({class:?})");
            class
        }
    };
    let (mapped, mut skipped) = if yaml {
        super::import_promptfoo::read(&args.file, &text)?
    } else if csv {
        let records = super::import_csv::records(&text)
            .map_err(|e| anyhow::anyhow!("{}: {e}", args.file.display()))?;
        samples(records.into_iter().map(|(n, v)| (n, Ok(v))), &class)
    } else {
        let lines = text
            .lines()
            .enumerate()
            .filter(|(_, l)| !l.trim().is_empty());
        samples(
            lines.map(|(i, l)| {
                (
                    i + 1,
                    serde_json::from_str::<Value>(l).map_err(|e| format!("not JSON: {e}")),
                )
            }),
            &class,
        )
    };
    skipped.extend(class.note());
    write_arena(&args, mapped, skipped)
}

/// Each sample (its line, its JSON or why it has none) as an item, and
/// why each other is not one.
fn samples(
    samples: impl Iterator<Item = (usize, Result<Value, String>)>,
    class: &EvalClass,
) -> (Vec<Mapped>, Vec<String>) {
    let mut mapped = Vec::new();
    let mut skipped = Vec::new();
    for (n, sample) in samples {
        match sample.and_then(|v| map_line(&v, n, class)) {
            Ok(m) => mapped.push(m),
            Err(why) => skipped.push(format!("line {n}: {why}")),
        }
    }
    (mapped, skipped)
}

/// The arena of `mapped` in `args.dir`, its README listing `skipped` and
/// every item's notes.
fn write_arena(
    args: &ImportArgs,
    mut mapped: Vec<Mapped>,
    skipped: Vec<String>,
) -> anyhow::Result<ExitCode> {
    if mapped.is_empty() {
        anyhow::bail!(
            "{}: no line could be imported{}",
            args.file.display(),
            skipped
                .first()
                .map(|s| format!(" ({s})"))
                .unwrap_or_default()
        );
    }
    // One system prompt shared by every line goes to arena.toml; else each
    // stays in its item's input.
    let first = mapped.first().and_then(|m| m.system.clone());
    let shared = mapped.iter().all(|m| m.system == first);
    let mut dataset = String::new();
    let mut notes = skipped.clone();
    for m in &mut mapped {
        if !shared && let Some(system) = &m.system {
            let input = m.item["input"].as_str().unwrap_or_default();
            m.item["input"] = json!(format!("{system}\n\n{input}"));
        }
        dataset.push_str(&m.item.to_string());
        dataset.push('\n');
        let id = m.item["id"].as_str().unwrap_or_default().to_string();
        notes.extend(m.notes.iter().map(|n| format!("{id}: {n}")));
    }
    let mut toml = String::from(
        "# Imported by `tribunal import`: answers are text, scored by text checks.\nextraction = \"text\"\n",
    );
    if shared && let Some(system) = &first {
        let _ = writeln!(toml, "system = {}", toml_string(system));
    }
    let mut readme = format!(
        "# Imported from {}\n\n{} item(s), each a text answer scored by text checks (docs/import.md says how each source maps). An item with an expected answer has a mock turn playing it, so `tribunal run` in mock mode passes: the plumbing, not a model.\n",
        args.file.display(),
        mapped.len()
    );
    if notes.is_empty() {
        readme.push_str("\nEverything was mapped.\n");
    } else {
        readme.push_str("\nNot mapped:\n\n");
        for n in &notes {
            let _ = writeln!(readme, "- {n}");
        }
    }
    std::fs::create_dir_all(&args.dir)?;
    std::fs::write(args.dir.join("arena.toml"), toml)?;
    std::fs::write(args.dir.join("dataset.jsonl"), dataset)?;
    std::fs::write(args.dir.join("README.md"), readme)?;
    println!(
        "imported {} item(s) into {}; {} thing(s) not mapped{}",
        mapped.len(),
        args.dir.display(),
        notes.len(),
        if notes.is_empty() {
            ""
        } else {
            " (README.md lists them)"
        }
    );
    for n in &notes {
        eprintln!("tribunal: import: not mapped: {n}");
    }
    Ok(ExitCode::SUCCESS)
}

/// A TOML basic string holding `s`.
fn toml_string(s: &str) -> String {
    toml::Value::String(s.to_string()).to_string()
}

/// One sample as an item (line `n`), checked as `class` scores it.
fn map_line(v: &Value, n: usize, class: &EvalClass) -> Result<Mapped, String> {
    let Value::Object(obj) = v else {
        return Err("not a JSON object".to_string());
    };
    let id = match obj.get("id") {
        Some(Value::String(s)) if !s.trim().is_empty() => s.clone(),
        Some(Value::Number(x)) => x.to_string(),
        _ => format!("item-{n}"),
    };
    let mut notes = Vec::new();
    let (input, system) = match obj.get("input").or_else(|| obj.get("question")) {
        Some(Value::String(s)) => (s.clone(), None),
        Some(Value::Array(messages)) => chat_input(messages, &mut notes)?,
        _ => return Err("no `input` (text or chat messages) or `question`".to_string()),
    };
    let expected = obj
        .get("ideal")
        .or_else(|| obj.get("target"))
        .or_else(|| obj.get("answer"));
    let answers: Vec<String> = match expected {
        Some(Value::String(s)) => vec![s.clone()],
        Some(Value::Array(list)) => list.iter().filter_map(text_of).collect(),
        Some(other) => text_of(other).into_iter().collect(),
        None => Vec::new(),
    };
    let answers: Vec<String> = answers
        .into_iter()
        .filter(|a| !a.trim().is_empty())
        .collect();
    let Some(first) = answers.first() else {
        return Err("no expected answer (`ideal`, `target` or `answer`)".to_string());
    };
    if answers.iter().any(|a| a.chars().count() > LONG_ANSWER) {
        notes.push(format!(
            "an expected answer over {LONG_ANSWER} characters, checked with `contains`: a model will rarely write it word for word; a `rubric` check may grade it better"
        ));
    }
    let check = check_of(&answers, class);
    for key in obj.keys() {
        if !["id", "input", "question", "ideal", "target", "answer"].contains(&key.as_str()) {
            notes.push(format!("field `{key}`"));
        }
    }
    Ok(Mapped {
        item: json!({"id": id, "input": input, "checks": [check], "mock": [{"text": first}]}),
        system,
        notes,
    })
}

/// The check of the expected `answers` (at least one) as `class` scores
/// them: one answer `contains` (`icontains` for FuzzyMatch), several any
/// of them (`iregex`); Match's anchored at the start, case kept.
fn check_of(answers: &[String], class: &EvalClass) -> Value {
    let alternatives: Vec<String> = answers.iter().map(|a| escaped(a.trim())).collect();
    match (class, answers) {
        (EvalClass::Match, _) => {
            json!({"type": "regex", "pattern": format!("^(?:{})", alternatives.join("|"))})
        }
        (EvalClass::FuzzyMatch, [one]) => json!({"type": "icontains", "value": one.trim()}),
        (_, [one]) => json!({"type": "contains", "value": one.trim()}),
        _ => json!({"type": "iregex", "value": alternatives.join("|")}),
    }
}

/// A chat as one input: its system message apart, the rest as
/// `User: …` / `Assistant: …` lines (few-shot turns flattened, said in a
/// note); one user message alone is the input as it is.
fn chat_input(
    messages: &[Value],
    notes: &mut Vec<String>,
) -> Result<(String, Option<String>), String> {
    let mut system = Vec::new();
    let mut turns = Vec::new();
    for m in messages {
        let role = m.get("role").and_then(Value::as_str).unwrap_or("user");
        let content = m
            .get("content")
            .and_then(text_of)
            .ok_or("a chat message without text content")?;
        match role {
            "system" => system.push(content),
            other => turns.push((other.to_string(), content)),
        }
    }
    let input = match turns.as_slice() {
        [] => return Err("a chat without a user message".to_string()),
        [(_, only)] => only.clone(),
        many => {
            notes.push(format!(
                "{} chat turns flattened into one input",
                many.len()
            ));
            many.iter()
                .map(|(role, text)| {
                    let who = if role == "assistant" {
                        "Assistant"
                    } else {
                        "User"
                    };
                    format!("{who}: {text}")
                })
                .collect::<Vec<_>>()
                .join("\n")
        }
    };
    let system = (!system.is_empty()).then(|| system.join("\n\n"));
    Ok((input, system))
}

/// A JSON string's text, or a number's.
fn text_of(v: &Value) -> Option<String> {
    match v {
        Value::String(s) => Some(s.clone()),
        Value::Number(n) => Some(n.to_string()),
        Value::Bool(b) => Some(b.to_string()),
        _ => None,
    }
}
