//! `tribunal import promptfooconfig.yaml DIR`: promptfoo's test cases as
//! items. Each test (`vars` + `assert`) under each prompt (a string, or
//! `file://` a text file whose prompts are split at `---` lines) is an
//! item: the prompt with its `{{var}}`s filled in is the input; each
//! assertion with a tribunal check becomes it (`equals`, `contains`,
//! `icontains`, `starts-with`, `regex`, `not-contains`, `not-icontains`,
//! `contains-any`, `icontains-any`, `llm-rubric`; `defaultTest`'s and
//! `$ref`s to `assertionTemplates` included); every other is listed per
//! item as not converted. The tests may be a `file://` CSV file, or list
//! such files among them (`import_promptfoo_csv`). promptfoo's tests hold
//! no expected answer, so no item has mock turns: run them on a model.

use super::import_item::{Mapped, escaped};
use serde_json::{Map, Value, json};
use std::path::Path;

/// The items of the promptfoo configuration `text` (read from `path`),
/// and what of it could not be imported at all.
pub(super) fn read(path: &Path, text: &str) -> anyhow::Result<(Vec<Mapped>, Vec<String>)> {
    let config: Value = serde_norway::from_str(text)
        .map_err(|e| anyhow::anyhow!("{}: not YAML: {e}", path.display()))?;
    let dir = path.parent().unwrap_or(Path::new("."));
    let mut skipped = Vec::new();
    let prompts = prompts(&config, dir, &mut skipped);
    if prompts.is_empty() {
        anyhow::bail!(
            "{}: no prompt could be read{}",
            path.display(),
            first(&skipped)
        );
    }
    let given = match config.get("tests") {
        Some(Value::Array(tests)) => tests.clone(),
        Some(file @ Value::String(_)) => vec![file.clone()],
        Some(other) => {
            anyhow::bail!(
                "{}: `tests` is {}: a list of tests or a `file://` CSV file is read",
                path.display(),
                short(other)
            )
        }
        None => anyhow::bail!("{}: no `tests`", path.display()),
    };
    let mut tests = Vec::new();
    for test in given {
        match test.as_str() {
            Some(file) => tests.extend(csv_tests(path, dir, file, &mut skipped)?),
            None => tests.push(test),
        }
    }
    let default_asserts = config
        .pointer("/defaultTest/assert")
        .and_then(Value::as_array)
        .cloned()
        .unwrap_or_default();
    let empty = Map::new();
    let templates = config
        .get("assertionTemplates")
        .and_then(Value::as_object)
        .unwrap_or(&empty);
    let mut mapped = Vec::new();
    for (t, test) in tests.iter().enumerate() {
        let vars = test
            .get("vars")
            .and_then(Value::as_object)
            .unwrap_or(&empty);
        let asserts: Vec<Value> = test
            .get("assert")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
            .chain(&default_asserts)
            .cloned()
            .collect();
        let mut checks = Vec::new();
        let mut notes = Vec::new();
        for a in &asserts {
            match check_of(a, templates) {
                Ok(check) => checks.push(check),
                Err(why) => notes.push(why),
            }
        }
        for (p, prompt) in prompts.iter().enumerate() {
            let id = if prompts.len() > 1 {
                format!("test-{}-prompt-{}", t + 1, p + 1)
            } else {
                format!("test-{}", t + 1)
            };
            if checks.is_empty() {
                skipped.push(format!(
                    "{id}: no assertion has a tribunal check ({})",
                    notes.join("; ")
                ));
                continue;
            }
            let (input, unfilled) = filled(prompt, vars);
            let mut notes = notes.clone();
            notes.extend(unfilled.into_iter().map(|v| {
                let plain = v.chars().all(|c| c.is_alphanumeric() || c == '_');
                match plain {
                    true => format!("`{{{{{v}}}}}` has no var"),
                    false => format!(
                        "`{{{{{v}}}}}` is a template expression: left as written, not evaluated"
                    ),
                }
            }));
            mapped.push(Mapped {
                item: json!({"id": id, "input": input, "checks": checks}),
                system: None,
                notes,
            });
        }
    }
    Ok((mapped, skipped))
}

/// The tests of the `file://` CSV file `file` (relative to `dir`, the
/// folder of the configuration at `path`); what of it was not converted
/// in `skipped`.
fn csv_tests(
    path: &Path,
    dir: &Path,
    file: &str,
    skipped: &mut Vec<String>,
) -> anyhow::Result<Vec<Value>> {
    let Some(name) = file.strip_prefix("file://").filter(|f| f.ends_with(".csv")) else {
        anyhow::bail!(
            "{}: tests from {file:?}: only `file://` CSV files are read (not other files, globs or datasets)",
            path.display()
        );
    };
    let csv = dir.join(name);
    let text = std::fs::read_to_string(&csv)
        .map_err(|e| anyhow::anyhow!("{}: cannot read {}: {e}", path.display(), csv.display()))?;
    let (tests, notes) = super::import_promptfoo_csv::tests(&text)
        .map_err(|e| anyhow::anyhow!("{}: {e}", csv.display()))?;
    skipped.extend(notes.into_iter().map(|n| format!("{name}: {n}")));
    Ok(tests)
}

/// ` (first)` of `list`, or nothing.
fn first(list: &[String]) -> String {
    list.first().map(|s| format!(" ({s})")).unwrap_or_default()
}

/// A value in a few characters, for a message.
fn short(v: &Value) -> String {
    tribunal::runtime::internal::text::one_line(&v.to_string(), 60)
}

/// The prompts of `config`: strings as written, `file://` text files
/// (relative to `dir`) split at `---` lines; each other form in `skipped`.
fn prompts(config: &Value, dir: &Path, skipped: &mut Vec<String>) -> Vec<String> {
    let list = match config.get("prompts") {
        Some(Value::Array(list)) => list.clone(),
        Some(one @ Value::String(_)) => vec![one.clone()],
        _ => Vec::new(),
    };
    let mut out = Vec::new();
    for p in &list {
        let Some(text) = p.as_str() else {
            skipped.push(format!("prompt {}: only text prompts are read", short(p)));
            continue;
        };
        let Some(file) = text.strip_prefix("file://") else {
            out.push(text.to_string());
            continue;
        };
        if !file.ends_with(".txt") {
            skipped.push(format!("prompt {text}: only .txt prompt files are read"));
            continue;
        }
        match std::fs::read_to_string(dir.join(file)) {
            Ok(body) => out.extend(split_prompts(&body)),
            Err(e) => skipped.push(format!("prompt {text}: {e}")),
        }
    }
    out
}

/// The prompts of a prompt file: its parts between `---` lines.
fn split_prompts(body: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut part = String::new();
    for line in body.lines() {
        if line.trim() == "---" {
            out.push(std::mem::take(&mut part));
        } else {
            part.push_str(line);
            part.push('\n');
        }
    }
    out.push(part);
    out.into_iter()
        .map(|p| p.trim().to_string())
        .filter(|p| !p.is_empty())
        .collect()
}

/// `prompt` with each `{{ name }}` of `vars` filled in, and the names no
/// var fills.
fn filled(prompt: &str, vars: &Map<String, Value>) -> (String, Vec<String>) {
    let mut out = String::new();
    let mut unfilled = Vec::new();
    let mut rest = prompt;
    while let Some(start) = rest.find("{{") {
        out.push_str(&rest[..start]);
        let after = &rest[start + 2..];
        let Some(end) = after.find("}}") else {
            out.push_str(&rest[start..]);
            return (out, unfilled);
        };
        let name = after[..end].trim();
        match vars.get(name) {
            Some(Value::String(s)) => out.push_str(s),
            Some(other) => out.push_str(&other.to_string()),
            None => {
                unfilled.push(name.to_string());
                out.push_str(&rest[start..start + 2 + end + 2]);
            }
        }
        rest = &after[end + 2..];
    }
    out.push_str(rest);
    (out, unfilled)
}

/// The tribunal check of one promptfoo assertion, or why there is none.
fn check_of(a: &Value, templates: &Map<String, Value>) -> Result<Value, String> {
    let a = match a.get("$ref").and_then(Value::as_str) {
        Some(r) => {
            let name = r.trim_start_matches("#/assertionTemplates/");
            templates
                .get(name)
                .ok_or_else(|| format!("`$ref` {r}: no such template"))?
        }
        None => a,
    };
    let kind = a.get("type").and_then(Value::as_str).unwrap_or("(none)");
    let text = || a.get("value").and_then(Value::as_str).map(str::to_string);
    let list = || -> Option<Vec<String>> {
        a.get("value")?
            .as_array()?
            .iter()
            .map(|v| v.as_str().map(escaped))
            .collect()
    };
    let not = |why: &str| format!("assertion `{kind}` not converted: {why}");
    let value = |v: Option<String>| v.ok_or_else(|| not("its value is not text"));
    Ok(match kind {
        "equals" => json!({"type": "regex", "pattern": format!("^{}$", escaped(&value(text())?))}),
        "contains" => json!({"type": "regex", "pattern": escaped(&value(text())?)}),
        "starts-with" => {
            json!({"type": "regex", "pattern": format!("^{}", escaped(&value(text())?))})
        }
        "regex" => json!({"type": "regex", "pattern": value(text())?}),
        "icontains" => json!({"type": "icontains", "value": value(text())?}),
        // tribunal's `not_contains` ignores case: stricter than promptfoo's.
        "not-contains" | "not-icontains" => {
            json!({"type": "not_contains", "value": value(text())?})
        }
        "contains-any" => {
            json!({"type": "regex", "pattern": list().ok_or_else(|| not("its value is not a list of text"))?.join("|")})
        }
        "icontains-any" => {
            json!({"type": "iregex", "value": list().ok_or_else(|| not("its value is not a list of text"))?.join("|")})
        }
        "llm-rubric" => json!({"type": "rubric", "rubric": value(text())?}),
        _ => return Err(not("tribunal has no such check")),
    })
}
