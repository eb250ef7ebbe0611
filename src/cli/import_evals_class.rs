//! `tribunal import samples.jsonl DIR --registry evals.yaml [--eval NAME]`:
//! how an OpenAI evals eval scores its samples, read from the registry's
//! YAML, decides each item's check — `Match` (the answer starts with an
//! ideal) a regex anchored at the start, `Includes` (it contains one)
//! `contains`, `FuzzyMatch` (either holds the other, case, punctuation
//! and articles aside) `icontains`, said to be stricter. Without
//! `--registry` every ideal is `contains`, as `Includes` scores it.

use serde_json::Value;
use std::path::Path;

/// How an eval's class compares the answer with the ideal answers.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) enum EvalClass {
    /// `Includes`, and what an import without a registry assumes.
    Includes,
    /// `Match`: the answer starts with an ideal answer.
    Match,
    /// `FuzzyMatch`: either holds the other once normalised.
    FuzzyMatch,
    /// Another class (model-graded, JSON…): scored as `Includes`, said.
    Other(String),
}

impl EvalClass {
    /// What the arena's README says of the class; `None` when the checks
    /// are what the class computes.
    pub(super) fn note(&self) -> Option<String> {
        match self {
            EvalClass::Includes | EvalClass::Match => None,
            EvalClass::FuzzyMatch => Some(
                "the eval's class is FuzzyMatch, checked with `icontains`: FuzzyMatch also passes an answer that the expected one contains, and ignores punctuation and articles, so these checks are stricter".to_string(),
            ),
            EvalClass::Other(class) => Some(format!(
                "the eval's class {class} has no tribunal equivalent: each expected answer is checked with `contains`"
            )),
        }
    }
}

/// The class of the eval in the registry YAML `text` (read from
/// `registry`) that scores `samples`: the one `eval` names (an eval's
/// name, whose `id` leads to its spec, or the spec's own name), else the
/// one spec whose `samples_jsonl` is `samples` (its folder and name).
pub(super) fn class_of(
    text: &str,
    registry: &Path,
    samples: &Path,
    eval: Option<&str>,
) -> anyhow::Result<(String, EvalClass)> {
    let specs: Value = serde_norway::from_str(text)
        .map_err(|e| anyhow::anyhow!("{}: not YAML: {e}", registry.display()))?;
    let Some(specs) = specs.as_object() else {
        anyhow::bail!(
            "{}: not a registry of evals (a map of names)",
            registry.display()
        );
    };
    let class = |v: &Value| v.get("class").and_then(Value::as_str).map(str::to_string);
    let (name, spec_class) = match eval {
        Some(name) => {
            let entry = specs.get(name).ok_or_else(|| {
                anyhow::anyhow!("--eval {name}: {} has no such eval", registry.display())
            })?;
            let spec = match entry.get("id").and_then(Value::as_str) {
                Some(id) => specs.get(id).unwrap_or(entry),
                None => entry,
            };
            let found = class(spec).ok_or_else(|| {
                anyhow::anyhow!("--eval {name}: {} gives it no `class`", registry.display())
            })?;
            (name.to_string(), found)
        }
        None => {
            let tail = tail_of(samples);
            let scoring: Vec<(&String, String)> = specs
                .iter()
                .filter(|(_, v)| {
                    v.pointer("/args/samples_jsonl")
                        .and_then(Value::as_str)
                        .is_some_and(|s| s == tail || s.ends_with(&format!("/{tail}")))
                })
                .filter_map(|(k, v)| class(v).map(|c| (k, c)))
                .collect();
            match scoring.as_slice() {
                [(name, found)] => ((*name).clone(), found.clone()),
                [] => anyhow::bail!(
                    "{}: no eval's samples_jsonl is {tail}: name the eval with --eval",
                    registry.display()
                ),
                many => anyhow::bail!(
                    "{}: {} evals score {tail} ({}): name one with --eval",
                    registry.display(),
                    many.len(),
                    many.iter()
                        .map(|(k, _)| k.as_str())
                        .collect::<Vec<_>>()
                        .join(", ")
                ),
            }
        }
    };
    let kind = match spec_class.rsplit(':').next() {
        Some("Match") => EvalClass::Match,
        Some("Includes") => EvalClass::Includes,
        Some("FuzzyMatch") => EvalClass::FuzzyMatch,
        _ => EvalClass::Other(spec_class.clone()),
    };
    Ok((name, kind))
}

/// `folder/name` of `path` (its name alone when it has no folder).
fn tail_of(path: &Path) -> String {
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    match path.parent().and_then(Path::file_name) {
        Some(folder) => format!("{}/{name}", folder.to_string_lossy()),
        None => name,
    }
}
