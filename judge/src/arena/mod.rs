//! [`Arena`]: a folder holding `dataset.jsonl` (required), `arena.toml` and
//! `corpus.json` (optional), loaded and checked in one pass.
//!
//! Defaults when `arena.toml` is absent or silent: the name is the folder's,
//! no system prompt, the output schema comes from each item's `json_schema`
//! check, the `search` tool is offered when `corpus.json` exists, default
//! budgets, lenient extraction, no tool required first, default backend
//! settings.

pub mod approval_table;
pub(crate) mod item;
pub(crate) mod lint;
pub mod mcp;
pub mod settings;
pub(crate) mod toolset;
mod verdict_table;

use crate::arena::item::{Item, RawItem, parse_line};
use crate::arena::settings::BackendSettings;
use crate::error::JudgeError;
use crate::green_red::Verdict;
use crate::problem::{LintReport, Problem};
use crate::score::checks::{Check, ItemCheck};
use crate::score::rubric::JudgeSettings;
use indexmap::IndexMap;
use serde::Deserialize;
use serde_json::Value;
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;
use tribunal_runtime::backend::ScriptedBackend;
use tribunal_runtime::json::ExtractionMode;
use tribunal_runtime::{AnswerPolicy, Budget, OnBudget, OnRepeat, OutputSchema, ToolBox};
pub use verdict_table::{VerdictArena, VerdictToml};

/// The arena's configuration file name.
pub const ARENA_TOML: &str = "arena.toml";
/// The dataset file name.
pub const DATASET: &str = "dataset.jsonl";
/// The default corpus file name.
pub const CORPUS: &str = "corpus.json";

/// A loaded arena: configuration, tools and items, all checked.
#[derive(Debug, Clone)]
pub struct Arena {
    /// The arena's name (`arena.toml` `name`; default: the folder name).
    pub name: String,
    /// The arena folder.
    pub dir: PathBuf,
    /// What the arena tests. Default: none.
    pub description: Option<String>,
    /// The system prompt. Default: none.
    pub system: Option<String>,
    /// The arena-wide output schema. Default: none (per item, from its
    /// `json_schema` check).
    pub schema: Option<Value>,
    /// The names of the tools offered (`search`, `files`).
    pub tools: Vec<String>,
    /// Budgets of each run. Default: [`Budget::default`].
    pub budget: Budget,
    /// How final answers are read. Default: lenient extraction.
    pub answer: AnswerPolicy,
    /// The items, in dataset order.
    pub items: Vec<Item>,
    /// The tools, built once and shared by every run.
    pub toolbox: Arc<ToolBox>,
    /// A digest of the tools' data (the corpus file), part of the config hash.
    pub tools_digest: String,
    /// The MCP servers of `[[mcp]]`, whose tools join `toolbox` when
    /// [`start_servers`](crate::arena::mcp::start_servers) starts them. Default: none.
    pub mcp: Vec<crate::arena::mcp::McpServerSpec>,
    /// The GREEN/RED review of a verdict arena (`[verdict]` in `arena.toml`):
    /// every item answers with the verdict envelope. Default: none.
    pub verdict: Option<VerdictArena>,
    /// Live backends' output strategy and request settings (`[backend]`).
    /// Default: every setting at its default.
    pub backend: BackendSettings,
    /// Whether every run must call a tool before it may answer
    /// (`require_tool_first`; see [`tribunal_runtime::Agent::with_tool_required_first`]).
    /// Default: no.
    pub require_tool_first: bool,
    /// Each run's cost budget in USD (`max_cost_usd` in `[budget]`), priced
    /// at the backend's model when the arena runs. Default: unlimited.
    pub max_cost_usd: Option<f64>,
    /// Prices this arena adds to or overrides in the built-in table
    /// (`[pricing]`, same layout as `pricing.toml`). Default: none.
    pub pricing: crate::pricing::Pricing,
    /// The `rubric` checks' judge (`[judge]`): its model and budgets;
    /// `--judge-backend` / `--judge-model` lay over it. Default: none set.
    pub judge: JudgeSettings,
    /// `[approval]`: which tool calls wait for a decision, and the
    /// scripted decisions each run gets. `None`: every call runs.
    pub approval: Option<approval_table::ApprovalTable>,
}

impl Arena {
    /// Loads the arena in `dir`. Fails with [`JudgeError::Lint`] listing
    /// every problem when there is any.
    pub fn load(dir: &Path) -> Result<Arena, JudgeError> {
        match load_checked(dir) {
            (Some(arena), report) if report.is_clean() => Ok(arena),
            (_, report) => Err(JudgeError::Lint(report)),
        }
    }

    /// Each item's gold verdict, in dataset order: the verdict of its
    /// first `verdict_equals` check, when it has one (its verdict is
    /// `GREEN` or `RED`: lint refuses anything else). What
    /// [`crate::calibrate`] scores a judge against.
    pub fn gold_verdicts(&self) -> IndexMap<String, Verdict> {
        self.items
            .iter()
            .filter_map(|item| {
                let gold = item.checks.iter().find_map(|c| match &c.check {
                    Check::VerdictEquals { verdict, .. } => Some(*verdict),
                    _ => None,
                })?;
                Some((item.id.clone(), gold))
            })
            .collect()
    }

    /// The human labels of the items' `rubric` checks (`gold_rubric`),
    /// keyed by [`crate::score::rubric::rubric_key`]: what
    /// [`crate::report::calibration::calibrate_rubric`] scores the judge against.
    pub fn gold_rubric(&self) -> IndexMap<String, Verdict> {
        self.items
            .iter()
            .flat_map(|item| {
                item.gold_rubric
                    .iter()
                    .enumerate()
                    .map(|(k, v)| (crate::score::rubric::rubric_key(&item.id, k), *v))
            })
            .collect()
    }

    /// What keeps this arena from running in mock mode: each item without
    /// `mock` turns, as a problem at its dataset line. `tribunal run` with
    /// the mock backend refuses to start while there is any (the item
    /// would only end as a `backend_error`), and `tribunal lint --mock`
    /// lists them.
    pub fn mock_problems(&self) -> Vec<Problem> {
        self.problems_in_mock(true)
    }

    /// [`mock_problems`](Arena::mock_problems) when a live judge grades
    /// the mock answers: only the items without `mock` turns.
    pub fn mock_agent_problems(&self) -> Vec<Problem> {
        self.problems_in_mock(false)
    }

    fn problems_in_mock(&self, mock_judge: bool) -> Vec<Problem> {
        let empty = |steps: &Option<Arc<[tribunal_runtime::backend::ScriptStep]>>| {
            steps.as_ref().is_none_or(|steps| steps.is_empty())
        };
        let mut out = Vec::new();
        for item in &self.items {
            if empty(&item.mock) {
                out.push(Problem::at(
                    DATASET,
                    item.line,
                    format!(
                        "item {:?}: no mock turns: run it with a live --backend or add `mock`",
                        item.id
                    ),
                ));
            }
            for (i, c) in item.checks.iter().enumerate() {
                if mock_judge && matches!(c.check, Check::Rubric { .. }) && empty(&c.judge_mock) {
                    out.push(Problem::at(
                        DATASET,
                        item.line,
                        format!(
                            "item {:?}: checks[{i}]: rubric: no mock judge turns: run it with a live --backend or add `mock` to the check",
                            item.id
                        ),
                    ));
                }
            }
        }
        out
    }

    /// Whether any item has a `rubric` check (the run then needs a judge).
    pub fn has_rubric(&self) -> bool {
        self.items.iter().any(Item::has_rubric)
    }
}

/// `arena.toml`.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct ArenaToml {
    /// Checked by [`plain_name`] after parsing (with its line), so a bad
    /// name is one problem, not a reason to drop the rest of the file.
    name: Option<toml::Spanned<String>>,
    description: Option<String>,
    system: Option<String>,
    /// A path (relative to the arena folder) or an inline table.
    schema: Option<toml::Value>,
    tools: Option<Vec<String>>,
    corpus: Option<String>,
    /// The root of the file tools, relative to the arena folder. Default: the folder.
    files_root: Option<String>,
    extraction: Option<ExtractionMode>,
    require_tool_first: Option<bool>,
    budget: Option<BudgetToml>,
    verdict: Option<VerdictToml>,
    /// Checked by [`settings::checked`] after parsing (its problems at
    /// their lines).
    backend: Option<BackendSettings>,
    pricing: Option<crate::pricing::Pricing>,
    judge: Option<crate::score::rubric::JudgeToml>,
    /// `[[mcp]]`: MCP servers whose tools the runs offer.
    mcp: Option<Vec<crate::arena::mcp::McpServerSpec>>,
    /// `[approval]`: tool calls that wait for a (scripted) decision.
    approval: Option<approval_table::ApprovalTable>,
}

#[derive(Debug, Default, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
struct BudgetToml {
    max_tokens: Option<u64>,
    max_tool_calls: Option<u32>,
    #[serde(default, deserialize_with = "deadline_secs")]
    deadline_secs: Option<Duration>,
    max_turns: Option<u32>,
    on_budget: Option<OnBudget>,
    on_repeat: Option<OnRepeat>,
    max_idle_turns: Option<u32>,
    max_cost_usd: Option<f64>,
}

/// The longest arena name.
const MAX_NAME_LEN: usize = 100;

/// Whether `name` can name files (`runs/<name>.jsonl`, `<record
/// dir>/<name>.jsonl`): a plain file name — letters, digits, `.`, `_`, `-`,
/// not starting with `.` — never a path that leads elsewhere.
pub fn plain_name(name: &str) -> bool {
    name.len() <= MAX_NAME_LEN
        && name
            .chars()
            .next()
            .is_some_and(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-')
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | '-'))
}

/// `deadline_secs`: a positive number of seconds that fits a `Duration`;
/// anything else is a lint problem at its line, never a silent default.
fn deadline_secs<'de, D: serde::Deserializer<'de>>(d: D) -> Result<Option<Duration>, D::Error> {
    let secs = f64::deserialize(d)?;
    match Duration::try_from_secs_f64(secs) {
        Ok(deadline) if !deadline.is_zero() => Ok(Some(deadline)),
        _ => Err(serde::de::Error::custom(format!(
            "deadline_secs must be a positive number of seconds, not {secs}"
        ))),
    }
}

/// Loads and checks the arena in `dir`: the arena when it could be built,
/// and the lint report (empty problems: clean).
pub(crate) fn load_checked(dir: &Path) -> (Option<Arena>, LintReport) {
    let mut problems = Vec::new();
    let folder_name = dir
        .canonicalize()
        .ok()
        .and_then(|p| p.file_name().map(|n| n.to_string_lossy().into_owned()))
        .or_else(|| dir.file_name().map(|n| n.to_string_lossy().into_owned()))
        .unwrap_or_else(|| "arena".to_string());
    // Unreadable: its problem is the root cause, and the items say nothing
    // of what it would have given them (the schema, the tools).
    let (config, toml_read) = match read_toml(dir, &mut problems) {
        Some(config) => (config, true),
        None => (ArenaToml::default(), false),
    };
    let name = config
        .name
        .clone()
        .map(toml::Spanned::into_inner)
        .unwrap_or(folder_name);

    let max_cost_usd = config.budget.as_ref().and_then(|b| b.max_cost_usd);
    if let Some(m) = max_cost_usd
        && !(m.is_finite() && m >= 0.0)
    {
        problems.push(Problem::file(
            ARENA_TOML,
            format!("budget.max_cost_usd must be a finite amount of at least 0, got {m}"),
        ));
    }
    let pricing = match config.pricing.clone().map(|p| p.checked("pricing")) {
        None => crate::pricing::Pricing::default(),
        Some(Ok(p)) => p,
        Some(Err(e)) => {
            problems.push(Problem::file(ARENA_TOML, e.to_string()));
            crate::pricing::Pricing::default()
        }
    };
    let schema = config
        .schema
        .as_ref()
        .and_then(|s| read_schema(dir, s, &mut problems));
    let arena_schema = schema.as_ref().and_then(|s| {
        OutputSchema::new(&name, s.clone())
            .map(Arc::new)
            .map_err(|e| {
                problems.push(Problem::file(
                    ARENA_TOML,
                    format!("schema: invalid schema: {e}"),
                ))
            })
            .ok()
    });

    // The arena's schema is unknown (not absent) when arena.toml or the
    // schema file could not be read.
    let schema_unknown = arena_schema.is_none() && (!toml_read || config.schema.is_some());

    let corpus_path = dir.join(config.corpus.as_deref().unwrap_or(CORPUS));
    let tools = config.tools.clone().unwrap_or_else(|| {
        if corpus_path.is_file() {
            vec!["search".to_string()]
        } else {
            Vec::new()
        }
    });
    let mut toolbox = ToolBox::new();
    let mut tools_digest = String::new();
    for tool in &tools {
        match tool.as_str() {
            "search" => match toolset::search_tool(&corpus_path, &rel(dir, &corpus_path)) {
                Ok((t, digest)) => {
                    toolbox.add(t);
                    tools_digest = digest;
                }
                Err(problem) => problems.push(problem),
            },
            "files" => {
                let root = dir.join(config.files_root.as_deref().unwrap_or("."));
                let tools = inside(dir, &root)
                    .map_err(|e| format!("files_root: {e}"))
                    .and_then(|()| toolset::file_tools(&root));
                match tools {
                    Ok(ts) => ts.into_iter().for_each(|t| toolbox.add(t)),
                    Err(message) => problems.push(Problem::file(ARENA_TOML, message)),
                }
            }
            other => problems.push(Problem::file(
                ARENA_TOML,
                format!("tools: unknown tool {other:?} (known: search, files)"),
            )),
        }
    }
    let mcp = config.mcp.clone().unwrap_or_default();
    for server in &mcp {
        for message in server.problems() {
            problems.push(Problem::file(ARENA_TOML, message));
        }
    }
    // The MCP tools are offered once their servers start; their names are
    // known from the `tools` lists already.
    let offered: Vec<String> = toolbox
        .specs()
        .into_iter()
        .map(|s| s.name)
        .chain(mcp.iter().flat_map(|m| m.tools.iter().cloned()))
        .collect();
    let verdict = config
        .verdict
        .as_ref()
        .and_then(|v| verdict_table::load_verdict(dir, v, &tools, &mut problems));
    for message in config.approval.iter().flat_map(|a| a.problems(&offered)) {
        problems.push(Problem::file(ARENA_TOML, message));
    }

    let (judge, judge_problems) = config.judge.clone().unwrap_or_default().settings();
    for message in judge_problems {
        problems.push(Problem::file(ARENA_TOML, message));
    }
    let raw = read_dataset(dir, &mut problems);
    let permissive = OutputSchema::new(&name, serde_json::json!({})).map(Arc::new);
    let mut cache: HashMap<String, Arc<OutputSchema>> = HashMap::new();
    let mut items = Vec::with_capacity(raw.len());
    for (index, (line, raw)) in raw.into_iter().enumerate() {
        let mut at = |m: String| problems.push(Problem::at(DATASET, line, m));
        let checks = build_checks(
            &raw,
            arena_schema.as_ref(),
            schema_unknown,
            &name,
            &mut cache,
            &offered,
            &mut at,
        );
        if let Some(mock) = raw.mock.as_ref().filter(|_| toml_read) {
            for (t, turn) in mock.iter().enumerate() {
                for call in &turn.tool_calls {
                    if !offered.contains(&call.name) {
                        at(format!(
                            "mock[{t}]: calls tool {:?}, which the arena does not offer",
                            call.name
                        ));
                    }
                }
            }
        }
        let schema = arena_schema.clone().or_else(|| {
            checks.iter().find_map(|c| match &c.check {
                Check::JsonSchema {
                    schema: Some(_), ..
                } => c.schema.clone(),
                _ => None,
            })
        });
        let schema = match (schema, &permissive) {
            (Some(s), _) => s,
            (None, Ok(p)) => p.clone(),
            (None, Err(e)) => {
                at(format!("no output schema: {e}"));
                continue;
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
        items.push(Item {
            id: raw.id,
            input: raw.input,
            checks,
            mock: raw.mock.as_deref().map(ScriptedBackend::steps_of),
            line,
            index,
            schema,
            gold_rubric: raw.gold_rubric,
            injection: raw.injection,
        });
    }
    lint_twins(&items, &mut problems);

    if let Some(v) = &verdict {
        v.lint_items(dir, &items, &mut problems);
    }
    let report_items = items.len();
    let arena = Arena {
        name: name.clone(),
        dir: dir.to_path_buf(),
        description: config.description,
        system: config.system,
        schema,
        tools,
        budget: budget(config.budget.clone().unwrap_or_default()),
        max_cost_usd,
        answer: AnswerPolicy {
            mode: config.extraction.unwrap_or_default(),
            ..AnswerPolicy::default()
        },
        items,
        toolbox: Arc::new(toolbox),
        mcp,
        tools_digest,
        verdict,
        backend: config.backend.unwrap_or_default(),
        require_tool_first: config.require_tool_first.unwrap_or(false),
        pricing,
        judge,
        approval: config.approval.clone(),
    };
    problems.sort_by(|a, b| {
        (a.file != ARENA_TOML, &a.file, a.line).cmp(&(b.file != ARENA_TOML, &b.file, b.line))
    });
    let report = LintReport {
        arena: name,
        items: report_items,
        problems,
    };
    (Some(arena), report)
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

/// `arena.toml` (the defaults when there is none); `None` when it cannot be
/// read or parsed (its problem is in `problems`).
fn read_toml(dir: &Path, problems: &mut Vec<Problem>) -> Option<ArenaToml> {
    let path = dir.join(ARENA_TOML);
    let text = match std::fs::read_to_string(&path) {
        Ok(t) => t,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Some(ArenaToml::default()),
        Err(e) => {
            problems.push(Problem::file(ARENA_TOML, format!("cannot read: {e}")));
            return None;
        }
    };
    let line_at = |offset: usize| text[..offset.min(text.len())].matches('\n').count() + 1;
    match toml::from_str::<ArenaToml>(&text) {
        Ok(mut c) => {
            if let Some(name) = c.name.take_if(|n| !plain_name(n.get_ref())) {
                problems.push(Problem::at(
                    ARENA_TOML,
                    line_at(name.span().start),
                    format!(
                        "name {:?} must be a plain file name of at most {MAX_NAME_LEN} letters, digits, '.', '_' or '-' (not starting with '.'): it names the results and cassette files",
                        tribunal_runtime::text::one_line(name.get_ref(), 60)
                    ),
                ));
            }
            c.backend = c
                .backend
                .take()
                .map(|table| settings::checked(table, ARENA_TOML, &text, &line_at, problems));
            Some(c)
        }
        Err(e) => {
            let line = e.span().map(|s| line_at(s.start)).unwrap_or(1);
            problems.push(Problem::at(
                ARENA_TOML,
                line,
                tribunal_runtime::text::one_line(e.message(), 300),
            ));
            None
        }
    }
}

fn read_schema(dir: &Path, schema: &toml::Value, problems: &mut Vec<Problem>) -> Option<Value> {
    match schema {
        toml::Value::String(p) => {
            let path = dir.join(p);
            read_json_file(
                &path,
                &format!("schema: cannot read {p}"),
                &rel(dir, &path),
                problems,
            )
        }
        toml::Value::Table(_) => match serde_json::to_value(schema) {
            Ok(v) => Some(v),
            Err(e) => {
                problems.push(Problem::file(ARENA_TOML, format!("schema: {e}")));
                None
            }
        },
        _ => {
            problems.push(Problem::file(
                ARENA_TOML,
                "schema: expected a path or an inline table",
            ));
            None
        }
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

fn budget(b: BudgetToml) -> Budget {
    let d = Budget::default();
    Budget {
        max_tokens: b.max_tokens.or(d.max_tokens),
        // Priced per backend by the runner ([`Arena::max_cost_usd`]).
        max_cost: None,
        max_tool_calls: b.max_tool_calls.or(d.max_tool_calls),
        deadline: b.deadline_secs.or(d.deadline),
        max_turns: b.max_turns.unwrap_or(d.max_turns),
        on_budget: b.on_budget.unwrap_or(d.on_budget),
        on_repeat: b.on_repeat.unwrap_or(d.on_repeat),
        max_idle_turns: b.max_idle_turns.unwrap_or(d.max_idle_turns),
    }
}

/// Refuses a folder the file tools would read (`files_root`, an item's
/// folder) outside the arena folder (`..`, an absolute path, a symlink
/// out): an arena is data, and its file tools must not open the rest of
/// the machine to the model. (`tribunal judge run --root` takes any
/// folder: there the user names it.)
fn inside(dir: &Path, root: &Path) -> Result<(), String> {
    let (Ok(dir), Ok(real)) = (dir.canonicalize(), root.canonicalize()) else {
        // A missing root is reported by the file tools themselves.
        return Ok(());
    };
    if real.starts_with(&dir) {
        Ok(())
    } else {
        Err(format!(
            "{} is outside the arena folder; the file tools may only read inside it",
            root.display()
        ))
    }
}

/// The JSON in the file at `path`, an arena file named in `arena.toml`:
/// `None` with a problem of `arena.toml` when it cannot be read (`what`,
/// then the OS error), or with one at its line of `file` when it is not
/// JSON.
fn read_json_file(
    path: &Path,
    what: &str,
    file: &str,
    problems: &mut Vec<Problem>,
) -> Option<Value> {
    let text = match std::fs::read_to_string(path) {
        Ok(t) => t,
        Err(e) => {
            problems.push(Problem::file(ARENA_TOML, format!("{what}: {e}")));
            return None;
        }
    };
    match serde_json::from_str(&text) {
        Ok(v) => Some(v),
        Err(e) => {
            problems.push(Problem::at(file, e.line(), format!("invalid JSON: {e}")));
            None
        }
    }
}

/// `path` relative to the arena folder, for problem locations.
fn rel(dir: &Path, path: &Path) -> String {
    path.strip_prefix(dir)
        .unwrap_or(path)
        .to_string_lossy()
        .into_owned()
}
