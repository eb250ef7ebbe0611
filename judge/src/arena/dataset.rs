//! `dataset.jsonl`: the items, each line parsed (`item`), its checks built
//! and linted against the arena (its schema, the tools it offers), and the
//! injected items' twins checked.

use super::DATASET;
use super::json_position::{Part, position};
use super::near_miss;
use super::schema::{ArenaSchema, SchemaSource, invalid_schema};
use crate::arena::item::{Item, LineProblem, ParsedLine, RawItem, Spot, escape, parse_line};
use crate::problem::Problem;
use crate::score::checks::{Check, ItemCheck};
use std::collections::HashMap;
use std::path::Path;
use std::sync::Arc;
use tribunal_runtime::OutputSchema;
use tribunal_runtime::internal::backend::ScriptedBackend;

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

/// One line of the dataset: its 1-based number, its text and what parsed.
struct DatasetLine {
    number: usize,
    text: String,
    parsed: ParsedLine,
}

impl DatasetLine {
    /// Problem `p` of this line, its column found from its spot.
    fn problem(&self, p: LineProblem) -> Problem {
        line_problem(self.number, &self.text, p)
    }
}

/// The problem `p` of dataset line `number` (its text `text`), its column
/// found from its spot.
pub(super) fn line_problem(number: usize, text: &str, p: LineProblem) -> Problem {
    let column = match &p.spot {
        Spot::Line => None,
        Spot::Column(c) => Some(*c),
        Spot::Value(pointer) => position(text, pointer, Part::Value).map(|(_, c)| c),
        Spot::Key(pointer) => position(text, pointer, Part::Key).map(|(_, c)| c),
    };
    match column {
        Some(c) => Problem::at_column(DATASET, (number, c), p.message),
        None => Problem::at(DATASET, number, p.message),
    }
}

/// The items of the dataset in `dir`, built and checked; every problem
/// goes to `problems` at its line and column. A line with problems gives no
/// item, but what of it parsed is still checked against the arena, so a
/// line shows every problem at once, not the first.
pub(super) fn read_items(
    dir: &Path,
    context: &ItemContext<'_>,
    problems: &mut Vec<Problem>,
) -> Vec<Item> {
    let lines = read_dataset(dir, problems);
    let permissive = OutputSchema::new(context.name, serde_json::json!({})).map(Arc::new);
    let mut cache: HashMap<String, Arc<OutputSchema>> = HashMap::new();
    let mut items = Vec::with_capacity(lines.len());
    for line in &lines {
        let built = build_item(
            (line, items.len()),
            context,
            &permissive,
            &mut cache,
            problems,
        );
        if line.parsed.whole().is_some() {
            items.extend(built);
        }
    }
    lint_twins(&items, problems);
    items
}

/// The item of dataset line `line` (the `index`th item), its checks built
/// against the arena; `None` when the line has no item or no output schema
/// at all. Its problems go to `problems`.
fn build_item(
    (line, index): (&DatasetLine, usize),
    context: &ItemContext<'_>,
    permissive: &Result<Arc<OutputSchema>, tribunal_runtime::SchemaError>,
    cache: &mut HashMap<String, Arc<OutputSchema>>,
    problems: &mut Vec<Problem>,
) -> Option<Item> {
    let raw = line.parsed.item.as_ref()?;
    let checks = build_checks(line, raw, context, cache, problems);
    let mut at = |p: LineProblem| problems.push(line.problem(p));
    if let Some(mock) = raw.mock.as_ref().filter(|_| context.toml_read) {
        let offered: Vec<&str> = context.offered.iter().map(String::as_str).collect();
        for (t, turn) in mock.iter().enumerate() {
            for (c, call) in turn.tool_calls.iter().enumerate() {
                if !context.offered.contains(&call.name) {
                    at(LineProblem::new(
                        Spot::Value(format!("/mock/{t}/tool_calls/{c}/name")),
                        format!(
                            "mock[{t}]: calls tool {:?}, which the arena does not offer{}",
                            call.name,
                            near_miss::tool_hint(&call.name, &offered)
                        ),
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
            at(LineProblem::new(
                Spot::Line,
                format!("no output schema: {e}"),
            ));
            return None;
        }
    };
    let rubrics = checks
        .iter()
        .filter(|c| matches!(c.check, Check::Rubric { .. }))
        .count();
    // Only on a whole line: a rubric check that did not parse is not counted.
    let whole = line.parsed.whole().is_some();
    if whole && !raw.gold_rubric.is_empty() && raw.gold_rubric.len() != rubrics {
        at(LineProblem::new(
            Spot::Value("/gold_rubric".into()),
            format!(
                "gold_rubric: {} label(s) for {rubrics} rubric check(s); give one per rubric check, in order",
                raw.gold_rubric.len()
            ),
        ));
    }
    Some(Item {
        id: raw.id.clone(),
        input: raw.input.clone(),
        checks,
        mock: raw.mock.as_deref().map(ScriptedBackend::steps_of),
        line: line.number,
        index,
        schema,
        gold_rubric: raw.gold_rubric.clone(),
        injection: raw.injection.clone(),
        user: raw.user.clone().map(Arc::new),
        gold_test: raw.gold_test.clone(),
        test_command: raw.test_command.clone(),
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

/// The checks of `raw` (of dataset line `line`) built against the arena:
/// schemas compiled (`cache`: by their text), patterns, bounds, the tools
/// they name. Each problem goes to `problems` at its place on the line.
fn build_checks(
    line: &DatasetLine,
    raw: &RawItem,
    context: &ItemContext<'_>,
    cache: &mut HashMap<String, Arc<OutputSchema>>,
    problems: &mut Vec<Problem>,
) -> Vec<ItemCheck> {
    let mut out = Vec::with_capacity(raw.checks.len());
    for (i, check, spec) in &raw.checks {
        let i = *i;
        let kind = check.kind();
        // This check's problems: at a field of it, or (an inline schema's)
        // placed already.
        let mut found: Vec<LineProblem> = Vec::new();
        let mut placed: Vec<Problem> = Vec::new();
        let mut at = |field: &str, message: String| {
            let pointer = match field {
                "" => format!("/checks/{i}"),
                f => format!("/checks/{i}/{f}"),
            };
            found.push(LineProblem::new(
                Spot::Value(pointer),
                format!("checks[{i}]: {kind}: {message}"),
            ));
        };
        // The tolerance the check is written with, and the tools it names,
        // each with the pointer token of its field: checked after the match.
        let mut tol: Option<f64> = None;
        let mut named: Vec<(String, &str)> = Vec::new();
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
            } => match inline_schema(s, i, line, context.name, cache) {
                Ok(compiled) => item_check.schema = Some(compiled),
                Err(problems) => placed = problems,
            },
            Check::JsonSchema { schema: None, .. } => match context.schema.output.as_ref() {
                Some(s) => item_check.schema = Some(s.clone()),
                None if context.schema.unknown => {}
                None => at("", "no inline schema and the arena has none".to_string()),
            },
            Check::Regex { pattern, .. } | Check::Iregex { value: pattern, .. } => {
                let ignore_case = matches!(check, Check::Iregex { .. });
                match regex::RegexBuilder::new(pattern)
                    .case_insensitive(ignore_case)
                    .build()
                {
                    Ok(re) => item_check.regex = Some(re),
                    Err(e) => at(
                        if ignore_case { "value" } else { "pattern" },
                        format!(
                            "invalid pattern: {}",
                            tribunal_runtime::internal::text::one_line(&e.to_string(), 200)
                        ),
                    ),
                }
            }
            Check::SentenceCount { min, max, .. } | Check::Approvals { min, max, .. } => {
                match (min, max) {
                    (None, None) => at(
                        "",
                        "give `min`, `max` or both (without them it always holds)".to_string(),
                    ),
                    (Some(lo), Some(hi)) if lo > hi => {
                        at("min", format!("min {lo} is above max {hi}"))
                    }
                    _ => {}
                }
            }
            Check::CallCounts { counts, .. } => {
                if counts.is_empty() {
                    at(
                        "counts",
                        "`counts` is empty (it would always hold)".to_string(),
                    );
                }
                named = counts
                    .keys()
                    .map(|k| (format!("counts/{}", escape(k)), k.as_str()))
                    .collect();
            }
            Check::FileJson { path, pointer, .. } => {
                if !pointer.is_empty() && !pointer.starts_with('/') {
                    at(
                        "pointer",
                        "a JSON pointer starts with `/` (or is empty)".to_string(),
                    );
                }
                if !crate::score::checks::world_path(path) {
                    at(
                        "path",
                        "a path inside the world: relative, without `..`".to_string(),
                    );
                }
            }
            Check::FileContains { path, .. } => {
                if !crate::score::checks::world_path(path) {
                    at(
                        "path",
                        "a path inside the world: relative, without `..`".to_string(),
                    );
                }
            }
            Check::Rubric { rubric, mock, .. } => {
                if rubric.trim().is_empty() {
                    at("rubric", "`rubric` is empty".to_string());
                }
                if let Some(turns) = mock {
                    if turns.iter().any(|t| !t.tool_calls.is_empty()) {
                        at(
                            "mock",
                            "mock: the judge is offered no tools, so its turns cannot call any"
                                .to_string(),
                        );
                    }
                    item_check.judge_mock = Some(ScriptedBackend::steps_of(turns));
                }
            }
            Check::JsonPathEquals { tol: t, .. } | Check::NumericEquals { tol: t, .. } => tol = *t,
            Check::ToolArgsMatch { name, tol: t, .. } => {
                tol = *t;
                named = vec![("name".to_string(), name.as_str())];
            }
            Check::ToolUsed { name, .. } | Check::ToolNotUsed { name, .. } => {
                named = vec![("name".to_string(), name.as_str())];
            }
            Check::ToolSequence { tools, .. } => {
                for (i, tool) in tools.iter().enumerate() {
                    if !named.iter().any(|(_, t)| t == tool) {
                        named.push((format!("tools/{i}"), tool.as_str()));
                    }
                }
            }
            Check::CommandPasses {
                command,
                timeout_secs,
                ..
            } => {
                if command.first().is_none_or(|p| p.trim().is_empty()) {
                    at("command", "names no program".to_string());
                }
                if *timeout_secs == Some(0) {
                    at("timeout_secs", "must be at least 1".to_string());
                }
                let shell = [
                    tribunal_tools::shell::RUN_COMMAND,
                    tribunal_tools::shell::RUN_TESTS,
                ];
                if !context.offered.iter().any(|t| shell.contains(&t.as_str())) {
                    at(
                        "",
                        "runs in the sandbox on a run's copy: the arena needs tools = [\"shell\"]"
                            .to_string(),
                    );
                }
            }
            // Nothing to check beyond what parsing checked.
            Check::JsonValid { .. }
            | Check::VerdictEquals { .. }
            | Check::Contains { .. }
            | Check::Icontains { .. }
            | Check::NotContains { .. }
            | Check::NoTool { .. }
            | Check::MinToolCalls { .. }
            | Check::MaxToolCalls { .. } => {}
        }
        if let Some(tol) = tol
            && !(tol.is_finite() && tol >= 0.0)
        {
            at("tol", format!("tol {tol} must be a number of at least 0"));
        }
        // A misspelt tool name would make `tool_not_used` hold vacuously.
        let offered: Vec<&str> = context.offered.iter().map(String::as_str).collect();
        for (field, tool) in named {
            if !offered.contains(&tool) {
                let hint = near_miss::tool_hint(tool, &offered);
                at(
                    &field,
                    format!("the arena does not offer a tool named {tool:?}{hint}"),
                );
            }
        }
        problems.extend(placed);
        problems.extend(found.into_iter().map(|p| line.problem(p)));
        out.push(item_check);
    }
    out
}

/// The inline schema `s` of check `i` of `line`, compiled once per text
/// (`cache`), or the problems that place its error in the line.
fn inline_schema(
    s: &serde_json::Value,
    i: usize,
    line: &DatasetLine,
    arena: &str,
    cache: &mut HashMap<String, Arc<OutputSchema>>,
) -> Result<Arc<OutputSchema>, Vec<Problem>> {
    let key = s.to_string();
    if let Some(compiled) = cache.get(&key) {
        return Ok(compiled.clone());
    }
    match OutputSchema::new(arena, s.clone()) {
        Ok(compiled) => {
            let compiled = Arc::new(compiled);
            cache.insert(key, compiled.clone());
            Ok(compiled)
        }
        Err(e) => {
            let source = SchemaSource {
                file: DATASET.to_string(),
                text: Some(line.text.clone()),
                line: Some(line.number),
                base: format!("/checks/{i}/schema"),
                label: format!("checks[{i}]: json_schema"),
            };
            Err(invalid_schema(s, &e, &source))
        }
    }
}

/// Every non-blank line of the dataset, parsed; every problem of a line
/// (including a duplicate id: that line then gives no item) goes to
/// `problems`.
fn read_dataset(dir: &Path, problems: &mut Vec<Problem>) -> Vec<DatasetLine> {
    let text = match std::fs::read_to_string(dir.join(DATASET)) {
        Ok(t) => t,
        Err(e) => {
            problems.push(Problem::file(DATASET, format!("cannot read: {e}")));
            return Vec::new();
        }
    };
    let mut lines: Vec<DatasetLine> = Vec::new();
    let mut seen: HashMap<String, usize> = HashMap::new();
    for (i, line_text) in text.lines().enumerate() {
        let number = i + 1;
        if line_text.trim().is_empty() {
            continue;
        }
        let mut parsed = parse_line(line_text);
        let found = std::mem::take(&mut parsed.problems);
        problems.extend(
            found
                .iter()
                .cloned()
                .map(|p| line_problem(number, line_text, p)),
        );
        parsed.problems = found;
        if let Some(id) = &parsed.id {
            if let Some(first) = seen.get(id) {
                problems.push(Problem::at(
                    DATASET,
                    number,
                    format!("duplicate id {id:?} (first at line {first})"),
                ));
                continue;
            }
            seen.insert(id.clone(), number);
        }
        lines.push(DatasetLine {
            number,
            text: line_text.to_string(),
            parsed,
        });
    }
    let whole = lines.iter().filter(|l| l.parsed.whole().is_some()).count();
    if whole == 0 && problems.iter().all(|p| p.file != DATASET) {
        problems.push(Problem::file(DATASET, "no items"));
    }
    lines
}
