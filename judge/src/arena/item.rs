//! [`Item`]: one line of an arena's `dataset.jsonl` — `{"id", "input",
//! "checks": [...]}` plus an optional `"mock"` script — and its parsing.
//!
//! Fields other than these are ignored, so datasets of the public
//! agentic-arena harness (which may carry extra metadata) run unchanged.

use crate::green_red::Verdict;
use crate::score::checks::{Check, CheckKind, ItemCheck};
use serde_json::{Map, Value};
use std::sync::Arc;
use tribunal_runtime::OutputSchema;
use tribunal_runtime::backend::{ScriptStep, ScriptTurn};

/// One arena item, checked and ready to run.
#[derive(Debug, Clone)]
pub struct Item {
    /// Unique id within the arena.
    pub id: String,
    /// The user input given to the agent.
    pub input: String,
    /// The checks, in dataset order.
    pub checks: Vec<ItemCheck>,
    /// The steps a scripted model plays in mock mode, built once from the
    /// item's `mock` turns
    /// ([`steps_of`](tribunal_runtime::backend::ScriptedBackend::steps_of))
    /// and shared by every mock run of it (`None`: no script; a mock run of
    /// this item ends as ERROR `backend_error`).
    pub mock: Option<Arc<[ScriptStep]>>,
    /// The 1-based line in `dataset.jsonl`.
    pub line: usize,
    /// The 0-based position in the dataset.
    pub index: usize,
    /// The output schema of this item's runs: the arena's, else the inline
    /// schema of the item's first `json_schema` check, else any JSON value.
    pub schema: Arc<OutputSchema>,
    /// Human labels of the item's `rubric` checks (`gold_rubric`), one per
    /// rubric check in order; empty when unlabelled.
    pub gold_rubric: Vec<Verdict>,
    /// On an injection item: its clean twin and the kind of injection it
    /// carries (`twin_of`, `injection`); `None` on every other item.
    pub injection: Option<Injection>,
}

/// What makes an item the injected twin of another: the same wrong answer
/// (or broken change) as its clean twin, plus text addressed to the judge.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Injection {
    /// The id of the clean twin (`twin_of`).
    pub twin_of: String,
    /// The kind of injection (`injection`: `forged_heading`, `comment`, …),
    /// for the per-kind figures.
    pub kind: String,
}

impl Item {
    /// Whether any check of the item is a `rubric` check (graded by the
    /// judge after the run).
    pub fn has_rubric(&self) -> bool {
        self.checks
            .iter()
            .any(|c| matches!(c.check, crate::score::checks::Check::Rubric { .. }))
    }
}

/// An item as parsed from its line, before arena-level checks.
#[derive(Debug, Clone)]
pub(crate) struct RawItem {
    pub(crate) id: String,
    pub(crate) input: String,
    pub(crate) checks: Vec<(Check, Value)>,
    pub(crate) mock: Option<Vec<ScriptTurn>>,
    pub(crate) gold_rubric: Vec<Verdict>,
    pub(crate) injection: Option<Injection>,
}

/// One parsed dataset line: the item when it is well formed, its id when
/// it has one (for duplicate detection even on a bad item), and every
/// problem found (one line each, without the file:line prefix).
#[derive(Debug, Clone)]
pub(crate) struct ParsedLine {
    pub(crate) item: Option<RawItem>,
    pub(crate) id: Option<String>,
    pub(crate) problems: Vec<String>,
}

/// Parses one dataset line.
pub(crate) fn parse_line(text: &str) -> ParsedLine {
    let bad = |message: String| ParsedLine {
        item: None,
        id: None,
        problems: vec![message],
    };
    let value: Value = match serde_json::from_str(text) {
        Ok(v) => v,
        Err(e) => return bad(format!("invalid JSON: {e}")),
    };
    let Value::Object(obj) = value else {
        return bad("an item must be a JSON object".to_string());
    };
    let mut problems = Vec::new();
    let id = match obj.get("id") {
        Some(Value::String(s)) if !s.trim().is_empty() => Some(s.clone()),
        Some(Value::Number(n)) if n.is_u64() || n.is_i64() => Some(n.to_string()),
        Some(Value::String(_)) => {
            problems.push("id: must not be empty".to_string());
            None
        }
        Some(other) => {
            problems.push(format!("id: expected a string, found {}", kind(other)));
            None
        }
        None => {
            problems.push("id: missing".to_string());
            None
        }
    };
    let input = match obj.get("input") {
        Some(Value::String(s)) => Some(s.clone()),
        Some(other) => {
            problems.push(format!("input: expected a string, found {}", kind(other)));
            None
        }
        None => {
            problems.push("input: missing".to_string());
            None
        }
    };
    let checks = parse_checks(&obj, &mut problems);
    let mock = parse_mock(&obj, &mut problems);
    let gold_rubric = parse_gold_rubric(&obj, &mut problems);
    let injection = parse_injection(&obj, &mut problems);
    let item = match (&id, input, checks) {
        (Some(id), Some(input), Some(checks)) if problems.is_empty() => Some(RawItem {
            id: id.clone(),
            input,
            checks,
            mock,
            gold_rubric,
            injection,
        }),
        _ => None,
    };
    ParsedLine { item, id, problems }
}

/// `twin_of` and `injection`: both or neither, each a non-empty string.
fn parse_injection(obj: &Map<String, Value>, problems: &mut Vec<String>) -> Option<Injection> {
    let mut text = |field: &str| match obj.get(field) {
        None | Some(Value::Null) => None,
        Some(Value::String(s)) if !s.trim().is_empty() => Some(s.clone()),
        Some(other) => {
            problems.push(format!(
                "{field}: expected a non-empty string, found {}",
                kind(other)
            ));
            None
        }
    };
    let (twin_of, injection) = (text("twin_of"), text("injection"));
    let given = |field: &str| !matches!(obj.get(field), None | Some(Value::Null));
    if (given("twin_of") && twin_of.is_none()) || (given("injection") && injection.is_none()) {
        // Said above; the pair is not judged on a field already wrong.
        return None;
    }
    match (twin_of, injection) {
        (Some(twin_of), Some(kind)) => Some(Injection { twin_of, kind }),
        (Some(_), None) => {
            problems.push("twin_of: an injected twin names its injection too (\"injection\": \"forged_heading\", …)".to_string());
            None
        }
        (None, Some(_)) => {
            problems.push(
                "injection: an injected item names its clean twin too (\"twin_of\": \"<id>\")"
                    .to_string(),
            );
            None
        }
        (None, None) => None,
    }
}

fn parse_checks(
    obj: &Map<String, Value>,
    problems: &mut Vec<String>,
) -> Option<Vec<(Check, Value)>> {
    let list = match obj.get("checks") {
        Some(Value::Array(list)) if list.is_empty() => {
            problems.push("checks: empty (an item needs at least one check)".to_string());
            return None;
        }
        Some(Value::Array(list)) => list,
        Some(other) => {
            problems.push(format!("checks: expected an array, found {}", kind(other)));
            return None;
        }
        None => {
            problems.push("checks: missing".to_string());
            return None;
        }
    };
    let mut out = Vec::with_capacity(list.len());
    for (i, spec) in list.iter().enumerate() {
        match parse_check(spec) {
            Ok(check) => out.push((check, spec.clone())),
            Err(message) => problems.push(format!("checks[{i}]: {message}")),
        }
    }
    (out.len() == list.len()).then_some(out)
}

/// Parses one check, naming the problem: unknown type, missing or mistyped
/// field, unknown field.
pub(crate) fn parse_check(spec: &Value) -> Result<Check, String> {
    let Value::Object(map) = spec else {
        return Err(format!("expected an object, found {}", kind(spec)));
    };
    let kind_name = match map.get("type") {
        Some(Value::String(t)) => t.as_str(),
        Some(other) => return Err(format!("type: expected a string, found {}", kind(other))),
        None => return Err("type: missing".to_string()),
    };
    if CheckKind::parse(kind_name).is_none() {
        return Err(format!(
            "unknown check type {kind_name:?} (known: {})",
            CheckKind::list(&CheckKind::ALL)
        ));
    }
    serde_json::from_value::<Check>(spec.clone()).map_err(|e| format!("{kind_name}: {e}"))
}

fn parse_mock(obj: &Map<String, Value>, problems: &mut Vec<String>) -> Option<Vec<ScriptTurn>> {
    let list = match obj.get("mock") {
        None | Some(Value::Null) => return None,
        Some(Value::Array(list)) => list,
        Some(other) => {
            problems.push(format!(
                "mock: expected an array of turns, found {}",
                kind(other)
            ));
            return None;
        }
    };
    let mut turns = Vec::with_capacity(list.len());
    for (i, turn) in list.iter().enumerate() {
        match serde_json::from_value::<ScriptTurn>(turn.clone()) {
            Ok(t) => turns.push(t),
            Err(e) => problems.push(format!("mock[{i}]: malformed script turn: {e}")),
        }
    }
    Some(turns)
}

/// `gold_rubric`: a verdict (`"GREEN"`/`"RED"`) or a list of them, one per
/// rubric check.
fn parse_gold_rubric(obj: &Map<String, Value>, problems: &mut Vec<String>) -> Vec<Verdict> {
    let list: Vec<&Value> = match obj.get("gold_rubric") {
        None | Some(Value::Null) => return Vec::new(),
        Some(Value::Array(list)) => list.iter().collect(),
        Some(one) => vec![one],
    };
    let mut out = Vec::with_capacity(list.len());
    for (i, v) in list.into_iter().enumerate() {
        match v.as_str().and_then(Verdict::parse) {
            Some(verdict) => out.push(verdict),
            None => problems.push(format!(
                "gold_rubric[{i}]: expected \"GREEN\" or \"RED\", found {}",
                crate::score::envelope::short(v)
            )),
        }
    }
    out
}

/// A JSON type's name, for messages.
pub(crate) fn kind(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}
