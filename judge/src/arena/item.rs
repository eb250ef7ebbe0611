//! [`Item`]: one line of an arena's `dataset.jsonl` — `{"id", "input",
//! "checks": [...]}` plus an optional `"mock"` script — and its parsing.
//!
//! Fields other than these are ignored, so datasets of the public
//! agentic-arena harness (which may carry extra metadata) run unchanged.

use crate::arena::gold_test::{GoldSpot, GoldTest};
use crate::arena::near_miss;
use crate::arena::user_spec::UserSpec;
use crate::green_red::Verdict;
use crate::score::checks::{Check, CheckKind, ItemCheck};
use serde_json::{Map, Value};
use std::sync::Arc;
use tribunal_runtime::OutputSchema;
use tribunal_runtime::internal::backend::{ScriptStep, ScriptTurn};

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
    /// ([`steps_of`](tribunal_runtime::internal::backend::ScriptedBackend::steps_of))
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
    #[doc(hidden)] // read by tribunal's own crates; no promise
    /// On a conversation item: its simulated user (`user`); the `input`,
    /// when given, is the user's first message.
    pub user: Option<Arc<UserSpec>>,
    #[doc(hidden)] // read by tribunal's own crates; no promise
    /// On a review item: its runnable gold (`gold_test`), a command whose
    /// result on the change and on its parent shows the gold verdict.
    pub gold_test: Option<GoldTest>,
    /// The project's own test command (`test_command`: a program and its
    /// arguments), what `run_tests` runs (`[sandbox] run_tests`); never
    /// the gold test.
    pub(crate) test_command: Option<Vec<String>>,
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

    /// The gold verdict: the verdict of the item's first `verdict_equals`
    /// check, when it has one.
    pub fn gold_verdict(&self) -> Option<Verdict> {
        self.checks.iter().find_map(|c| match &c.check {
            Check::VerdictEquals { verdict, .. } => Some(*verdict),
            _ => None,
        })
    }
}

/// An item as parsed from its line, before arena-level checks.
#[derive(Debug, Clone)]
pub(crate) struct RawItem {
    pub(crate) id: String,
    pub(crate) input: String,
    /// The checks that parsed, each with its position in `checks`.
    pub(crate) checks: Vec<(usize, Check, Value)>,
    pub(crate) mock: Option<Vec<ScriptTurn>>,
    pub(crate) gold_rubric: Vec<Verdict>,
    pub(crate) injection: Option<Injection>,
    pub(crate) user: Option<UserSpec>,
    pub(crate) gold_test: Option<GoldTest>,
    pub(crate) test_command: Option<Vec<String>>,
}

/// Where on its line a problem is.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Spot {
    /// The whole line (no column).
    Line,
    /// A 1-based column.
    Column(usize),
    /// The value at a JSON pointer into the line's object.
    Value(String),
    /// The key of the member at a JSON pointer (an unknown key).
    Key(String),
}

/// One problem of a dataset line: where, and what (one line, without the
/// file:line prefix).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct LineProblem {
    pub(crate) spot: Spot,
    pub(crate) message: String,
}

impl LineProblem {
    pub(crate) fn new(spot: Spot, message: impl Into<String>) -> Self {
        LineProblem {
            spot,
            message: message.into(),
        }
    }

    /// A problem with the value at `pointer`.
    fn at(pointer: impl Into<String>, message: impl Into<String>) -> Self {
        LineProblem::new(Spot::Value(pointer.into()), message)
    }
}

/// One parsed dataset line: the item (well formed when `problems` is
/// empty; else what of it parsed, with placeholders, so its checks can
/// still be linted), its id when it has one (for duplicate detection even
/// on a bad item), and every problem found.
#[derive(Debug, Clone)]
pub(crate) struct ParsedLine {
    pub(crate) item: Option<RawItem>,
    pub(crate) id: Option<String>,
    pub(crate) problems: Vec<LineProblem>,
}

impl ParsedLine {
    /// The item, when the line has no problem at all.
    pub(crate) fn whole(&self) -> Option<&RawItem> {
        self.item.as_ref().filter(|_| self.problems.is_empty())
    }
}

/// Parses one dataset line.
pub(crate) fn parse_line(text: &str) -> ParsedLine {
    let bad = |problem: LineProblem| ParsedLine {
        item: None,
        id: None,
        problems: vec![problem],
    };
    let value: Value = match serde_json::from_str(text) {
        Ok(v) => v,
        Err(e) => {
            let column = crate::arena::json_position::char_column(text, e.column());
            return bad(LineProblem::new(
                Spot::Column(column),
                format!("invalid JSON: {}", crate::arena::json_error(&e)),
            ));
        }
    };
    let Value::Object(obj) = value else {
        return bad(LineProblem::at("", "an item must be a JSON object"));
    };
    let mut problems = Vec::new();
    unknown_fields(&obj, &mut problems);
    let id = match obj.get("id") {
        Some(Value::String(s)) if !s.trim().is_empty() => Some(s.clone()),
        Some(Value::Number(n)) if n.is_u64() || n.is_i64() => Some(n.to_string()),
        Some(Value::String(_)) => {
            problems.push(LineProblem::at("/id", "id: must not be empty"));
            None
        }
        Some(other) => {
            problems.push(LineProblem::at(
                "/id",
                format!("id: expected a string, found {}", kind(other)),
            ));
            None
        }
        None => {
            problems.push(LineProblem::new(Spot::Line, "id: missing"));
            None
        }
    };
    let user = match obj.get("user") {
        None | Some(Value::Null) => None,
        Some(value) => match crate::arena::user_spec::parse(value) {
            Ok(spec) => Some(spec),
            Err(message) => {
                problems.push(LineProblem::at("/user", message));
                None
            }
        },
    };
    let input = match obj.get("input") {
        Some(Value::String(s)) => Some(s.clone()),
        // A conversation's first message may be the user's own.
        None if obj.get("user").is_some_and(|u| !u.is_null()) => None,
        Some(other) => {
            problems.push(LineProblem::at(
                "/input",
                format!("input: expected a string, found {}", kind(other)),
            ));
            None
        }
        None => {
            problems.push(LineProblem::new(Spot::Line, "input: missing"));
            None
        }
    };
    let checks = parse_checks(&obj, &mut problems);
    let mock = parse_mock(&obj, &mut problems);
    let gold_rubric = parse_gold_rubric(&obj, &mut problems);
    let injection = parse_injection(&obj, &mut problems);
    let gold_test = parse_gold_test(&obj, &mut problems);
    let test_command = parse_test_command(&obj, &mut problems);
    let item = checks.map(|checks| RawItem {
        id: id.clone().unwrap_or_default(),
        input: input.unwrap_or_default(),
        checks,
        mock,
        gold_rubric,
        injection,
        user,
        gold_test,
        test_command,
    });
    ParsedLine { item, id, problems }
}

/// The fields an item may have; any other is a problem, with the near
/// miss named (`"mokc"`: did you mean `mock`?), as arena.toml's keys are.
pub(crate) const ITEM_FIELDS: &[&str] = &[
    "id",
    "input",
    "checks",
    "mock",
    "gold_rubric",
    "twin_of",
    "injection",
    "user",
    "gold_test",
    "test_command",
];

/// A problem at the key of each field of `obj` not in [`ITEM_FIELDS`].
fn unknown_fields(obj: &Map<String, Value>, problems: &mut Vec<LineProblem>) {
    for key in obj.keys().filter(|k| !ITEM_FIELDS.contains(&k.as_str())) {
        problems.push(LineProblem::new(
            Spot::Key(format!("/{}", escape(key))),
            crate::arena::near_miss::unknown("item field", key, ITEM_FIELDS),
        ));
    }
}

/// `twin_of` and `injection`: both or neither, each a non-empty string.
fn parse_injection(obj: &Map<String, Value>, problems: &mut Vec<LineProblem>) -> Option<Injection> {
    let mut text = |field: &str| match obj.get(field) {
        None | Some(Value::Null) => None,
        Some(Value::String(s)) if !s.trim().is_empty() => Some(s.clone()),
        Some(other) => {
            problems.push(LineProblem::at(
                format!("/{field}"),
                format!(
                    "{field}: expected a non-empty string, found {}",
                    kind(other)
                ),
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
            problems.push(LineProblem::at("/twin_of", "twin_of: an injected twin names its injection too (\"injection\": \"forged_heading\", …)"));
            None
        }
        (None, Some(_)) => {
            problems.push(LineProblem::at(
                "/injection",
                "injection: an injected item names its clean twin too (\"twin_of\": \"<id>\")",
            ));
            None
        }
        (None, None) => None,
    }
}

/// The checks that parse, each with its position; `None` when there is no
/// list of checks at all. Every problem of every check goes to `problems`.
fn parse_checks(
    obj: &Map<String, Value>,
    problems: &mut Vec<LineProblem>,
) -> Option<Vec<(usize, Check, Value)>> {
    let list = match obj.get("checks") {
        Some(Value::Array(list)) if list.is_empty() => {
            problems.push(LineProblem::at(
                "/checks",
                "checks: empty (an item needs at least one check)",
            ));
            return None;
        }
        Some(Value::Array(list)) => list,
        Some(other) => {
            problems.push(LineProblem::at(
                "/checks",
                format!("checks: expected an array, found {}", kind(other)),
            ));
            return None;
        }
        None => {
            problems.push(LineProblem::new(Spot::Line, "checks: missing"));
            return None;
        }
    };
    let mut out = Vec::with_capacity(list.len());
    for (i, spec) in list.iter().enumerate() {
        match check_problems(spec) {
            Ok(check) => out.push((i, check, spec.clone())),
            Err(found) => problems.extend(found.into_iter().map(|(spot, message)| {
                let pointer = match &spot {
                    CheckSpot::Check => format!("/checks/{i}"),
                    CheckSpot::Value(key) => format!("/checks/{i}/{}", escape(key)),
                    CheckSpot::Key(key) => format!("/checks/{i}/{}", escape(key)),
                };
                let spot = match spot {
                    CheckSpot::Key(_) => Spot::Key(pointer),
                    _ => Spot::Value(pointer),
                };
                LineProblem::new(spot, format!("checks[{i}]: {message}"))
            })),
        }
    }
    Some(out)
}

/// Where in a check a problem is.
enum CheckSpot {
    /// The check as a whole (a missing field, a wrong type).
    Check,
    /// The value of one of its fields.
    Value(String),
    /// One of its keys (an unknown field).
    Key(String),
}

/// A JSON pointer token for `key` (`~` and `/` escaped).
pub(super) fn escape(key: &str) -> String {
    key.replace('~', "~0").replace('/', "~1")
}

/// Parses one check, or every problem it has: an unknown type (with the
/// nearest known one), each unknown field (with the nearest field of its
/// type), then what serde finds in the rest (a missing or mistyped field).
fn check_problems(spec: &Value) -> Result<Check, Vec<(CheckSpot, String)>> {
    let Value::Object(map) = spec else {
        return Err(vec![(
            CheckSpot::Check,
            format!("expected an object, found {}", kind(spec)),
        )]);
    };
    let kind_name = match map.get("type") {
        Some(Value::String(t)) => t.as_str(),
        Some(other) => {
            return Err(vec![(
                CheckSpot::Value("type".into()),
                format!("type: expected a string, found {}", kind(other)),
            )]);
        }
        None => return Err(vec![(CheckSpot::Check, "type: missing".to_string())]),
    };
    if CheckKind::parse(kind_name).is_none() {
        let known: Vec<&str> = CheckKind::ALL.iter().map(|k| k.as_str()).collect();
        return Err(vec![(
            CheckSpot::Value("type".into()),
            near_miss::unknown("check type", kind_name, &known),
        )]);
    }
    let mut found = Vec::new();
    // The fields an unknown key was told it probably meant: such a field
    // is then not also reported missing.
    let mut suggested: Vec<String> = Vec::new();
    let mut rest = map.clone();
    loop {
        let error = match serde_json::from_value::<Check>(Value::Object(rest.clone())) {
            Ok(check) if found.is_empty() => return Ok(check),
            Ok(_) => return Err(found),
            Err(e) => e.to_string(),
        };
        let expected = match near_miss::UnknownName::parse(&error) {
            Some(u) if !u.variant => u.expected,
            Some(u) => {
                found.push((CheckSpot::Check, format!("{kind_name}: {}", u.explain(""))));
                return Err(found);
            }
            None => {
                let missing = error
                    .strip_prefix("missing field `")
                    .and_then(|r| r.strip_suffix('`'));
                if !missing.is_some_and(|m| suggested.iter().any(|s| s == m)) {
                    found.push((CheckSpot::Check, format!("{kind_name}: {error}")));
                }
                return Err(found);
            }
        };
        let unknown_keys: Vec<String> = rest
            .keys()
            .filter(|k| *k != "type" && !expected.contains(k))
            .cloned()
            .collect();
        if unknown_keys.is_empty() {
            found.push((CheckSpot::Check, format!("{kind_name}: {error}")));
            return Err(found);
        }
        let known: Vec<&str> = expected.iter().map(String::as_str).collect();
        for key in unknown_keys {
            rest.remove(&key);
            suggested.extend(near_miss::closest(&key, known.iter().copied()).map(str::to_string));
            let message = near_miss::unknown("field", &key, &known);
            found.push((CheckSpot::Key(key), format!("{kind_name}: {message}")));
        }
    }
}

fn parse_mock(
    obj: &Map<String, Value>,
    problems: &mut Vec<LineProblem>,
) -> Option<Vec<ScriptTurn>> {
    let list = match obj.get("mock") {
        None | Some(Value::Null) => return None,
        Some(Value::Array(list)) => list,
        Some(other) => {
            problems.push(LineProblem::at(
                "/mock",
                format!("mock: expected an array of turns, found {}", kind(other)),
            ));
            return None;
        }
    };
    let mut turns = Vec::with_capacity(list.len());
    for (i, turn) in list.iter().enumerate() {
        match serde_json::from_value::<ScriptTurn>(turn.clone()) {
            Ok(t) => turns.push(t),
            Err(e) => problems.push(turn_problem(i, turn, &e.to_string())),
        }
    }
    Some(turns)
}

/// `gold_test`, when the item has one; each problem of it goes to
/// `problems` at its place.
fn parse_gold_test(obj: &Map<String, Value>, problems: &mut Vec<LineProblem>) -> Option<GoldTest> {
    let value = obj.get("gold_test").filter(|v| !v.is_null())?;
    match crate::arena::gold_test::parse(value) {
        Ok(test) => Some(test),
        Err(found) => {
            problems.extend(found.into_iter().map(|(spot, message)| match spot {
                GoldSpot::Value("") => LineProblem::at("/gold_test", message),
                GoldSpot::Value(field) => LineProblem::at(format!("/gold_test/{field}"), message),
                GoldSpot::Key(key) => {
                    LineProblem::new(Spot::Key(format!("/gold_test/{}", escape(&key))), message)
                }
            }));
            None
        }
    }
}

/// `test_command`: a non-empty array of non-empty strings.
fn parse_test_command(
    obj: &Map<String, Value>,
    problems: &mut Vec<LineProblem>,
) -> Option<Vec<String>> {
    let value = obj.get("test_command").filter(|v| !v.is_null())?;
    let words: Option<Vec<String>> = value.as_array().and_then(|list| {
        list.iter()
            .map(|w| {
                w.as_str()
                    .filter(|s| !s.trim().is_empty())
                    .map(String::from)
            })
            .collect()
    });
    match words {
        Some(words) if !words.is_empty() => Some(words),
        _ => {
            problems.push(LineProblem::at(
                "/test_command",
                format!(
                    "test_command: expected a non-empty array of non-empty strings (a program and its arguments), found {}",
                    kind(value)
                ),
            ));
            None
        }
    }
}

/// `gold_rubric`: a verdict (`"GREEN"`/`"RED"`) or a list of them, one per
/// rubric check.
fn parse_gold_rubric(obj: &Map<String, Value>, problems: &mut Vec<LineProblem>) -> Vec<Verdict> {
    let (list, pointer): (Vec<&Value>, fn(usize) -> String) = match obj.get("gold_rubric") {
        None | Some(Value::Null) => return Vec::new(),
        Some(Value::Array(list)) => (list.iter().collect(), |i| format!("/gold_rubric/{i}")),
        Some(one) => (vec![one], |_| "/gold_rubric".to_string()),
    };
    let mut out = Vec::with_capacity(list.len());
    for (i, v) in list.into_iter().enumerate() {
        match v.as_str().and_then(Verdict::parse) {
            Some(verdict) => out.push(verdict),
            None => problems.push(LineProblem::at(
                pointer(i),
                format!(
                    "gold_rubric[{i}]: expected \"GREEN\" or \"RED\", found {}",
                    crate::score::envelope::short(v)
                ),
            )),
        }
    }
    out
}

/// The problem of mock turn `i` that did not parse: an unknown key at
/// that key, with the nearest known one; anything else at the turn.
fn turn_problem(i: usize, turn: &Value, error: &str) -> LineProblem {
    match near_miss::UnknownName::parse(error) {
        Some(u) if !u.variant && turn.get(&u.name).is_some() => LineProblem::new(
            Spot::Key(format!("/mock/{i}/{}", escape(&u.name))),
            format!("mock[{i}]: {}", u.explain("key")),
        ),
        _ => LineProblem::at(
            format!("/mock/{i}"),
            format!("mock[{i}]: malformed script turn: {error}"),
        ),
    }
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
