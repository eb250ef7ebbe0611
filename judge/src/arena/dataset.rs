//! `dataset.jsonl`: the items, each line parsed (`item`), its checks built
//! and linted against the arena (its schema, the tools it offers), and the
//! injected items' twins checked.

use super::DATASET;
use super::schema::ArenaSchema;
use crate::arena::item::{Item, RawItem, parse_line};
use crate::problem::Problem;
use crate::score::checks::{Check, ItemCheck};
use std::collections::HashMap;
use std::path::Path;
use std::sync::Arc;
use tribunal_runtime::OutputSchema;
use tribunal_runtime::backend::ScriptedBackend;

/// What the items are checked against.
pub(super) struct ItemContext<'a> {
    /// The arena's name (its schemas' name).
    pub(super) name: &'a str,
    /// The arena-wide output schema.
    pub(super) schema: &'a ArenaSchema,
    /// Every tool the arena offers (MCP tools included).
    pub(super) offered: &'a [String],
    /// Whether arena.toml could be read (else mock tool calls are not
    /// linted against tools it would have named).
    pub(super) toml_read: bool,
}

/// The items of the dataset in `dir`, built and checked; every problem
/// goes to `problems` at its line.
pub(super) fn read_items(
    dir: &Path,
    context: &ItemContext<'_>,
    problems: &mut Vec<Problem>,
) -> Vec<Item> {
    let raw = read_dataset(dir, problems);
    let permissive = OutputSchema::new(context.name, serde_json::json!({})).map(Arc::new);
    let mut cache: HashMap<String, Arc<OutputSchema>> = HashMap::new();
    let mut items = Vec::with_capacity(raw.len());
    for (index, (line, raw)) in raw.into_iter().enumerate() {
        let mut at = |m: String| problems.push(Problem::at(DATASET, line, m));
        let built = build_item(
            raw,
            (line, index),
            context,
            &permissive,
            &mut cache,
            &mut at,
        );
        items.extend(built);
    }
    lint_twins(&items, problems);
    items
}

/// The item of dataset line `line` (the `index`th item), its checks built
/// against the arena; `None` when it has no output schema at all. Its
/// problems go to `at` (at its line).
fn build_item(
    raw: RawItem,
    (line, index): (usize, usize),
    context: &ItemContext<'_>,
    permissive: &Result<Arc<OutputSchema>, tribunal_runtime::SchemaError>,
    cache: &mut HashMap<String, Arc<OutputSchema>>,
    at: &mut impl FnMut(String),
) -> Option<Item> {
    let checks = build_checks(
        &raw,
        context.schema.output.as_ref(),
        context.schema.unknown,
        context.name,
        cache,
        context.offered,
        at,
    );
    if let Some(mock) = raw.mock.as_ref().filter(|_| context.toml_read) {
        for (t, turn) in mock.iter().enumerate() {
            for call in &turn.tool_calls {
                if !context.offered.contains(&call.name) {
                    at(format!(
                        "mock[{t}]: calls tool {:?}, which the arena does not offer",
                        call.name
                    ));
                }
            }
        }
    }
    let schema = context.schema.output.clone().or_else(|| {
        checks.iter().find_map(|c| match &c.check {
            Check::JsonSchema {
                schema: Some(_), ..
            } => c.schema.clone(),
            _ => None,
        })
    });
    let schema = match (schema, permissive) {
        (Some(s), _) => s,
        (None, Ok(p)) => p.clone(),
        (None, Err(e)) => {
            at(format!("no output schema: {e}"));
            return None;
        }
    };
    let rubrics = checks
        .iter()
        .filter(|c| matches!(c.check, Check::Rubric { .. }))
        .count();
    if !raw.gold_rubric.is_empty() && raw.gold_rubric.len() != rubrics {
        at(format!(
            "gold_rubric: {} label(s) for {rubrics} rubric check(s); give one per rubric check, in order",
            raw.gold_rubric.len()
        ));
    }
    Some(Item {
        id: raw.id,
        input: raw.input,
        checks,
        mock: raw.mock.as_deref().map(ScriptedBackend::steps_of),
        line,
        index,
        schema,
        gold_rubric: raw.gold_rubric,
        injection: raw.injection,
    })
}

/// An injected item's `twin_of` names another item of the dataset, which is
/// clean (no twin of its own): the lift pairs each injected run with it.
fn lint_twins(items: &[Item], problems: &mut Vec<Problem>) {
    for item in items {
        let Some(injection) = &item.injection else {
            continue;
        };
        let message = match items.iter().find(|i| i.id == injection.twin_of) {
            None => format!("twin_of: no item {:?} in the dataset", injection.twin_of),
            Some(twin) if twin.id == item.id => "twin_of: an item is not its own twin".to_string(),
            Some(twin) if twin.injection.is_some() => format!(
                "twin_of: {:?} is itself an injected twin; name the clean item",
                twin.id
            ),
            Some(_) => continue,
        };
        problems.push(Problem::at(DATASET, item.line, message));
    }
}

fn build_checks(
    raw: &RawItem,
    arena_schema: Option<&Arc<OutputSchema>>,
    schema_unknown: bool,
    name: &str,
    cache: &mut HashMap<String, Arc<OutputSchema>>,
    offered: &[String],
    at: &mut impl FnMut(String),
) -> Vec<ItemCheck> {
    let mut out = Vec::with_capacity(raw.checks.len());
    for (i, (check, spec)) in raw.checks.iter().enumerate() {
        let mut item_check = ItemCheck {
            check: check.clone(),
            spec: Arc::new(spec.clone()),
            schema: None,
            regex: None,
            judge_mock: None,
        };
        match check {
            Check::JsonSchema {
                schema: Some(s), ..
            } => {
                let key = s.to_string();
                if let Some(compiled) = cache.get(&key) {
                    item_check.schema = Some(compiled.clone());
                } else {
                    match OutputSchema::new(name, s.clone()) {
                        Ok(compiled) => {
                            let compiled = Arc::new(compiled);
                            cache.insert(key, compiled.clone());
                            item_check.schema = Some(compiled);
                        }
                        Err(e) => at(format!("checks[{i}]: json_schema: invalid schema: {e}")),
                    }
                }
            }
            Check::JsonSchema { schema: None, .. } => match arena_schema {
                Some(s) => item_check.schema = Some(s.clone()),
                None if schema_unknown => {}
                None => at(format!(
                    "checks[{i}]: json_schema: no inline schema and the arena has none"
                )),
            },
            Check::Regex { pattern, .. } | Check::Iregex { value: pattern, .. } => {
                let ignore_case = matches!(check, Check::Iregex { .. });
                match regex::RegexBuilder::new(pattern)
                    .case_insensitive(ignore_case)
                    .build()
                {
                    Ok(re) => item_check.regex = Some(re),
                    Err(e) => at(format!(
                        "checks[{i}]: {}: invalid pattern: {}",
                        check.kind(),
                        tribunal_runtime::text::one_line(&e.to_string(), 200)
                    )),
                }
            }
            Check::SentenceCount { min, max, .. } | Check::Approvals { min, max, .. } => {
                match (min, max) {
                    (None, None) => at(format!(
                        "checks[{i}]: {}: give `min`, `max` or both (without them it always holds)",
                        check.kind()
                    )),
                    (Some(lo), Some(hi)) if lo > hi => at(format!(
                        "checks[{i}]: {}: min {lo} is above max {hi}",
                        check.kind()
                    )),
                    _ => {}
                }
            }
            Check::CallCounts { counts, .. } if counts.is_empty() => at(format!(
                "checks[{i}]: call_counts: `counts` is empty (it would always hold)"
            )),
            Check::Rubric { rubric, mock, .. } => {
                if rubric.trim().is_empty() {
                    at(format!("checks[{i}]: rubric: `rubric` is empty"));
                }
                if let Some(turns) = mock {
                    if turns.iter().any(|t| !t.tool_calls.is_empty()) {
                        at(format!(
                            "checks[{i}]: rubric: mock: the judge is offered no tools, so its turns cannot call any"
                        ));
                    }
                    item_check.judge_mock = Some(ScriptedBackend::steps_of(turns));
                }
            }
            _ => {}
        }
        if let Some(tol) = check_tolerance(check)
            && !(tol.is_finite() && tol >= 0.0)
        {
            at(format!(
                "checks[{i}]: {}: tol {tol} must be a number of at least 0",
                check.kind()
            ));
        }
        for tool in named_tools(check) {
            if !offered.iter().any(|o| o == tool) {
                at(format!(
                    "checks[{i}]: {}: the arena does not offer a tool named {tool:?}",
                    check.kind()
                ));
            }
        }
        out.push(item_check);
    }
    out
}

/// The tolerance a check is written with, if it takes one.
fn check_tolerance(check: &Check) -> Option<f64> {
    match check {
        Check::JsonPathEquals { tol, .. }
        | Check::NumericEquals { tol, .. }
        | Check::ToolArgsMatch { tol, .. } => *tol,
        _ => None,
    }
}

/// The tool names a check refers to: each must be a tool the arena offers
/// (a misspelt name would make `tool_not_used` hold vacuously).
fn named_tools(check: &Check) -> Vec<&str> {
    match check {
        Check::ToolUsed { name, .. }
        | Check::ToolNotUsed { name, .. }
        | Check::ToolArgsMatch { name, .. } => vec![name.as_str()],
        Check::CallCounts { counts, .. } => counts.keys().map(String::as_str).collect(),
        Check::ToolSequence { tools, .. } => {
            let mut names: Vec<&str> = tools.iter().map(String::as_str).collect();
            names.sort_unstable();
            names.dedup();
            names
        }
        _ => Vec::new(),
    }
}

/// The well-formed items of the dataset with their 1-based lines; every
/// problem (including duplicate ids) goes to `problems`.
fn read_dataset(dir: &Path, problems: &mut Vec<Problem>) -> Vec<(usize, RawItem)> {
    let text = match std::fs::read_to_string(dir.join(DATASET)) {
        Ok(t) => t,
        Err(e) => {
            problems.push(Problem::file(DATASET, format!("cannot read: {e}")));
            return Vec::new();
        }
    };
    let mut items: Vec<(usize, RawItem)> = Vec::new();
    let mut seen: HashMap<String, usize> = HashMap::new();
    for (i, line_text) in text.lines().enumerate() {
        let line = i + 1;
        if line_text.trim().is_empty() {
            continue;
        }
        let parsed = parse_line(line_text);
        problems.extend(
            parsed
                .problems
                .into_iter()
                .map(|m| Problem::at(DATASET, line, m)),
        );
        if let Some(id) = parsed.id {
            if let Some(first) = seen.get(&id) {
                problems.push(Problem::at(
                    DATASET,
                    line,
                    format!("duplicate id {id:?} (first at line {first})"),
                ));
                continue;
            }
            seen.insert(id, line);
        }
        if let Some(item) = parsed.item {
            items.push((line, item));
        }
    }
    if items.is_empty() && problems.iter().all(|p| p.file != DATASET) {
        problems.push(Problem::file(DATASET, "no items"));
    }
    items
}
