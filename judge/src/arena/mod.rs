//! [`Arena`]: a folder holding `dataset.jsonl` (required), `arena.toml` and
//! `corpus.json` (optional), loaded and checked in one pass.
//!
//! Defaults when `arena.toml` is absent or silent: the name is the folder's,
//! no system prompt, the output schema comes from each item's `json_schema`
//! check, the `search` tool is offered when `corpus.json` exists, default
//! budgets, lenient extraction, no tool required first, default backend
//! settings.

pub mod approval_table;
mod budget_table;
mod dataset;
pub mod diff;
pub mod gold_test;
mod gold_test_lint;
pub mod inline_files;
pub(crate) mod item;
pub(crate) mod json_position;
mod judge_table;
pub(crate) mod lint;
pub mod mcp;
mod mock_lint;
pub(crate) mod near_miss;
mod pricing_table;
pub(crate) mod sandbox_table;
mod schema;
pub mod settings;
pub(crate) mod toolset;
pub(crate) mod user_spec;
mod user_table;
mod verdict_table;

use crate::arena::item::Item;
use crate::arena::settings::BackendSettings;
use crate::error::JudgeError;
use crate::green_red::Verdict;
use crate::problem::{LintReport, Problem};
use crate::score::checks::Check;
use crate::score::rubric::JudgeSettings;
use indexmap::IndexMap;
pub use sandbox_table::SandboxSettings;
use serde::Deserialize;
use serde_json::Value;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use tribunal_runtime::internal::json::ExtractionMode;
use tribunal_runtime::{AnswerPolicy, Budget, ToolBox};
pub use user_spec::UserSpec;
pub use user_table::UserSettings;
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
    /// The names of the tools offered (`search`, `files`, `shell`, `records`).
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
    #[doc(hidden)] // an arena table read by tribunal's own crates; no promise
    /// The MCP servers of `[[mcp]]`, whose tools join `toolbox` when
    /// [`start_servers`](crate::arena::mcp::start_servers) starts them. Default: none.
    pub mcp: Vec<crate::arena::mcp::McpServerSpec>,
    #[doc(hidden)] // an arena table read by tribunal's own crates; no promise
    /// The GREEN/RED review of a verdict arena (`[verdict]` in `arena.toml`):
    /// every item answers with the verdict envelope. Default: none.
    pub verdict: Option<VerdictArena>,
    /// Live backends' output strategy and request settings (`[backend]`).
    /// Default: every setting at its default.
    pub backend: BackendSettings,
    /// Files of each item put into its first user message after its input
    /// (`inline_files`; see [`inline_files`]). Default: none.
    pub inline_files: Vec<String>,
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
    #[doc(hidden)] // an arena table read by tribunal's own crates; no promise
    /// The `rubric` checks' judge (`[judge]`): its model and budgets;
    /// `--judge-backend` / `--judge-model` lay over it. Default: none set.
    pub judge: JudgeSettings,
    #[doc(hidden)] // an arena table read by tribunal's own crates; no promise
    /// The conversation items' simulated user (`[user]`): its own provider,
    /// model and budget; `--user-backend` / `--user-model` lay over it.
    /// Default: none set (the user rides the agent's backend).
    pub user: UserSettings,
    #[doc(hidden)] // an arena table read by tribunal's own crates; no promise
    /// `[approval]`: which tool calls wait for a decision, and the
    /// scripted decisions each run gets. `None`: every call runs.
    pub approval: Option<approval_table::ApprovalTable>,
    #[doc(hidden)] // an arena table read by tribunal's own crates; no promise
    /// `[sandbox]`, when `tools` names `shell`: each run gets its own copy
    /// of its folder ([`Arena::world_dir`]) with `run_command` and the file
    /// tools over it. `None`: no command runs.
    pub sandbox: Option<SandboxSettings>,
    /// What the gold tests (`tribunal lint --run`) run under: `[sandbox]`
    /// as read (also in a review arena without `shell`), else the defaults.
    pub(crate) gold_sandbox: SandboxSettings,
    /// The root of the file tools (`files_root`, default: the arena folder).
    pub files_root: PathBuf,
    /// The `[[mcp]]` servers started for each run (`per_run`), once
    /// [`start_servers`](crate::arena::mcp::start_servers) has checked them.
    pub(crate) run_servers: Option<Arc<mcp::run_servers::RunServers>>,
}

impl Arena {
    /// Keeps the items a run of `ids` (all when empty), then of the first
    /// `limit`, runs, in dataset order: the selection of `tribunal run
    /// --items … --limit …` (ids the arena lacks select nothing).
    pub fn select_items(&mut self, ids: &[String], limit: Option<usize>) {
        if !ids.is_empty() {
            self.items.retain(|i| ids.contains(&i.id));
        }
        if let Some(n) = limit {
            self.items.truncate(n);
        }
    }

    /// Whether each run of `item` works on its own copy of its world: in a
    /// `shell` arena, an arena naming `records` or a `per_run` MCP server,
    /// and for a conversation.
    pub fn copies_world(&self, item: &Item) -> bool {
        item.user.is_some()
            || self.tools.iter().any(|t| t == "shell" || t == "records")
            || self.mcp.iter().any(|m| m.per_run)
    }

    /// The folder a run of `item` works on: the verdict table's
    /// `item_root` for it, else `files_root` (in a `shell` arena `{id}`
    /// in it stands for the item's id: a folder per item). It is copied
    /// for each run when [`Arena::copies_world`].
    pub fn world_dir(&self, item: &Item) -> PathBuf {
        self.verdict
            .as_ref()
            .and_then(|v| v.item_dir(&self.dir, &item.id))
            .unwrap_or_else(|| per_item(&self.files_root, &item.id))
    }

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
    /// [`calibrate`](crate::report::calibration::calibrate) scores a judge against.
    pub fn gold_verdicts(&self) -> IndexMap<String, Verdict> {
        self.items
            .iter()
            .filter_map(|item| Some((item.id.clone(), item.gold_verdict()?)))
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
        self.problems_in_mock(true, true)
    }

    /// [`mock_problems`](Arena::mock_problems) when a live judge grades
    /// the mock answers: only the items without `mock` turns.
    pub fn mock_agent_problems(&self) -> Vec<Problem> {
        self.problems_in_mock(false, true)
    }

    /// The items' problems on a mock run, the rubric checks' mock judge
    /// turns counted when `mock_judge`, the users' scripts when
    /// `mock_user` (not when a live model plays the users).
    pub(crate) fn problems_in_mock(&self, mock_judge: bool, mock_user: bool) -> Vec<Problem> {
        let empty = |steps: &Option<Arc<[tribunal_runtime::internal::backend::ScriptStep]>>| {
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
            if mock_user && item.user.as_ref().is_some_and(|u| u.script.is_none()) {
                out.push(Problem::at(
                    DATASET,
                    item.line,
                    format!(
                        "item {:?}: user: no `script`: run it with a live --backend or add the user's `script`",
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

    /// Whether any conversation item's user is played by a model (its
    /// `user` has `instructions`): the run may then give it a route of
    /// its own (`[user]`).
    pub fn has_model_users(&self) -> bool {
        self.items
            .iter()
            .any(|i| i.user.as_ref().is_some_and(|u| u.instructions.is_some()))
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
    /// Every search's number of passages, fixed: the model is not offered `k`.
    search_k: Option<i64>,
    /// The root of the file tools, relative to the arena folder. Default: the folder.
    files_root: Option<String>,
    /// Files of each item put into its first user message.
    inline_files: Option<Vec<String>>,
    extraction: Option<ExtractionMode>,
    require_tool_first: Option<bool>,
    budget: Option<budget_table::BudgetToml>,
    verdict: Option<VerdictToml>,
    /// Checked by [`settings::checked`] after parsing (its problems at
    /// their lines).
    backend: Option<BackendSettings>,
    pricing: Option<crate::pricing::Pricing>,
    judge: Option<crate::score::rubric::JudgeToml>,
    /// `[user]`: the simulated user's route and budget.
    user: Option<user_table::UserToml>,
    /// `[[mcp]]`: MCP servers whose tools the runs offer.
    mcp: Option<Vec<crate::arena::mcp::McpServerSpec>>,
    /// `[approval]`: tool calls that wait for a (scripted) decision.
    approval: Option<approval_table::ApprovalTable>,
    /// `[sandbox]`: the limits of `run_command` (with `tools = ["shell"]`).
    sandbox: Option<sandbox_table::SandboxToml>,
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

/// Loads and checks the arena in `dir`: the arena when it could be built,
/// and the lint report (empty problems: clean). Each table of arena.toml
/// has its reader, called in a fixed order (problems at the same place are
/// listed in it); the dataset's items are read last, against them.
pub(crate) fn load_checked(dir: &Path) -> (Option<Arena>, LintReport) {
    let mut problems = Vec::new();
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
        .unwrap_or_else(|| folder_name(dir));
    let p = &mut problems;
    let (budget, max_cost_usd) = budget_table::read(config.budget.as_ref(), p);
    let pricing = pricing_table::read(config.pricing.clone(), p);
    let schema = schema::read(dir, &name, config.schema.as_ref(), toml_read, p);
    if config.extraction == Some(ExtractionMode::Text) && config.schema.is_some() {
        p.push(Problem::file(
            ARENA_TOML,
            "schema: the answer is text (extraction = \"text\"), which has no schema: drop `schema`, or read JSON answers (extraction = \"lenient\")",
        ));
    }
    let tools = toolset::read(
        dir,
        config.tools.as_deref(),
        config.corpus.as_deref(),
        config.search_k,
        config.files_root.as_deref(),
        p,
    );
    let review = config.verdict.is_some();
    let read = sandbox_table::read(config.sandbox.as_ref(), (tools.shell, review), p);
    let gold_sandbox = read.clone().unwrap_or_default();
    let sandbox = read.filter(|_| tools.shell);
    let mcp = mcp::read(config.mcp.clone(), p);
    let writes = sandbox.as_ref().is_some_and(|s| s.write_files);
    let run_tests = sandbox.as_ref().is_some_and(|s| s.run_tests);
    let offered = tools.offered(&mcp, writes, run_tests);
    let verdict = config
        .verdict
        .as_ref()
        .and_then(|v| verdict_table::load_verdict(dir, v, &tools.names, p));
    let approval = approval_table::read(config.approval.as_ref(), &offered, p);
    let judge = judge_table::read(config.judge.clone(), p);
    let user = user_table::read(config.user.clone(), p);
    let context = dataset::ItemContext {
        name: &name,
        schema: &schema,
        offered: &offered,
        toml_read,
    };
    let mut items = dataset::read_items(dir, &context, p);
    if let Some(v) = &verdict {
        v.lint_items(dir, &items, p);
    }
    let item_dir = |id: &str| verdict.as_ref().and_then(|v| v.item_dir(dir, id));
    gold_test_lint::lint(dir, &item_dir, &items, p);
    let inline_files = config.inline_files.clone().unwrap_or_default();
    let files_root = dir.join(config.files_root.as_deref().unwrap_or("."));
    let root_of = |item: &Item| {
        let root = match &verdict {
            Some(v) => v.item_dir(dir, &item.id),
            None => None,
        }
        .unwrap_or_else(|| per_item(&files_root, &item.id));
        inside(dir, &root).map(|()| root)
    };
    inline_files::attach(&inline_files, &root_of, &mut items, p);
    // `run_tests` runs each item's test command: it must have one.
    if sandbox
        .as_ref()
        .is_some_and(|s| s.run_tests && s.test_command.is_empty())
    {
        for item in items.iter().filter(|i| i.test_command.is_none()) {
            p.push(Problem::at(
                DATASET,
                item.line,
                format!(
                    "item {}: run_tests has no command to run: give the item a test_command, or the arena [sandbox] test_command",
                    item.id
                ),
            ));
        }
    }
    // Each run of a `shell` arena copies its item's folder: it must be one.
    if sandbox.is_some() {
        for item in &items {
            match root_of(item) {
                Ok(root) if root.is_dir() => {}
                Ok(root) => p.push(Problem::file(
                    ARENA_TOML,
                    format!(
                        "item {}: its folder {} is missing",
                        item.id,
                        rel(dir, &root)
                    ),
                )),
                Err(message) => p.push(Problem::file(
                    ARENA_TOML,
                    format!("item {}: {message}", item.id),
                )),
            }
        }
    }
    sort_problems(&mut problems);
    let report = LintReport {
        arena: name.clone(),
        items: items.len(),
        problems,
    };
    let arena = Arena {
        name,
        dir: dir.to_path_buf(),
        description: config.description,
        system: config.system,
        schema: schema.value,
        tools: tools.names,
        budget,
        max_cost_usd,
        answer: AnswerPolicy {
            mode: config.extraction.unwrap_or_default(),
            ..AnswerPolicy::default()
        },
        items,
        toolbox: Arc::new(tools.toolbox),
        mcp,
        tools_digest: tools.digest,
        verdict,
        backend: config.backend.unwrap_or_default(),
        require_tool_first: config.require_tool_first.unwrap_or(false),
        inline_files,
        pricing,
        judge,
        user,
        approval,
        sandbox,
        gold_sandbox,
        files_root,
        run_servers: None,
    };
    (Some(arena), report)
}

/// Problems in file order: arena.toml first, then by file, line and
/// column (problems at the same place keep the order they were found in).
fn sort_problems(problems: &mut [Problem]) {
    problems.sort_by(|a, b| {
        (a.file != ARENA_TOML, &a.file, a.line, a.column).cmp(&(
            b.file != ARENA_TOML,
            &b.file,
            b.line,
            b.column,
        ))
    });
}

/// The arena folder's name (the arena's name when arena.toml gives none).
fn folder_name(dir: &Path) -> String {
    dir.canonicalize()
        .ok()
        .and_then(|p| p.file_name().map(|n| n.to_string_lossy().into_owned()))
        .or_else(|| dir.file_name().map(|n| n.to_string_lossy().into_owned()))
        .unwrap_or_else(|| "arena".to_string())
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
    let line_at = |offset: usize| json_position::line_column(&text, offset).0;
    match toml::from_str::<ArenaToml>(&text) {
        Ok(mut c) => {
            if let Some(name) = c.name.take_if(|n| !plain_name(n.get_ref())) {
                problems.push(Problem::at(
                    ARENA_TOML,
                    line_at(name.span().start),
                    format!(
                        "name {:?} must be a plain file name of at most {MAX_NAME_LEN} letters, digits, '.', '_' or '-' (not starting with '.'): it names the results and cassette files",
                        tribunal_runtime::internal::text::one_line(name.get_ref(), 60)
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
            let at = e
                .span()
                .map(|s| json_position::line_column(&text, s.start))
                .unwrap_or((1, 1));
            let message = near_miss::explain_message(e.message(), "key");
            problems.push(Problem::at_column(
                ARENA_TOML,
                at,
                tribunal_runtime::internal::text::one_line(&message, 300),
            ));
            None
        }
    }
}

/// `root` with `{id}` replaced by `id` (a path that is not UTF-8 holds
/// no `{id}`).
fn per_item(root: &Path, id: &str) -> PathBuf {
    match root.to_str() {
        Some(text) if text.contains("{id}") => PathBuf::from(text.replace("{id}", id)),
        _ => root.to_path_buf(),
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

/// A JSON file of an arena: its value and its text (for the positions of
/// problems found in the value).
pub(crate) struct JsonFile {
    pub(crate) value: Value,
    pub(crate) text: String,
}

/// The JSON in the file at `path`, an arena file named in `arena.toml`:
/// `None` with a problem of `arena.toml` when it cannot be read (`what`,
/// then the OS error), or with one at its line and column of `file` when
/// it is not JSON.
fn read_json_file(
    path: &Path,
    what: &str,
    file: &str,
    problems: &mut Vec<Problem>,
) -> Option<JsonFile> {
    let text = match std::fs::read_to_string(path) {
        Ok(t) => t,
        Err(e) => {
            problems.push(Problem::file(ARENA_TOML, format!("{what}: {e}")));
            return None;
        }
    };
    match serde_json::from_str(&text) {
        Ok(value) => Some(JsonFile { value, text }),
        Err(e) => {
            let line_text = text.lines().nth(e.line().saturating_sub(1)).unwrap_or("");
            let column = json_position::char_column(line_text, e.column());
            problems.push(Problem::at_column(
                file,
                (e.line(), column),
                format!("invalid JSON: {}", json_error(&e)),
            ));
            None
        }
    }
}

/// serde_json's message without its " at line L column C" (the problem
/// gives the position itself, once).
pub(crate) fn json_error(e: &serde_json::Error) -> String {
    let full = e.to_string();
    let suffix = format!(" at line {} column {}", e.line(), e.column());
    match full.strip_suffix(&suffix) {
        Some(message) => message.to_string(),
        None => full,
    }
}

/// `path` relative to the arena folder, for problem locations.
fn rel(dir: &Path, path: &Path) -> String {
    path.strip_prefix(dir)
        .unwrap_or(path)
        .to_string_lossy()
        .into_owned()
}
