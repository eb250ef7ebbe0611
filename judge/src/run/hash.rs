//! The config hash: SHA-256 over the canonical JSON of everything that
//! shapes a run's result (prompt, schema, tools, budgets, extraction,
//! backend settings and output plan, backend, model). Rows written under one hash are never mixed with
//! another's.

use crate::arena::Arena;
use crate::arena::toolset::hex;
use serde_json::{Value, json};
use sha2::{Digest, Sha256};
use tribunal_runtime::internal::approval::ApprovalPolicy;
use tribunal_runtime::internal::cost::ModelPrice;
use tribunal_runtime::internal::json::sorted_keys;
use tribunal_runtime::internal::output::OutputPlan;
use tribunal_runtime::{Budget, OnBudget, OnNothingNew};

/// Version of the hashed layout; bump it when the layout changes.
const HASH_LAYOUT: u32 = 2;

/// The config hash of running `arena` on `backend`/`model` with output
/// `plan`: the first 16 hex digits of SHA-256 over the canonical config
/// (which holds the arena's backend settings but `max_retries` and
/// `prompt_cache`: see [`BackendSettings`](crate::arena::settings::BackendSettings)).
pub fn config_hash(arena: &Arena, backend: &str, model: &str, plan: &OutputPlan) -> String {
    config_hash_of_mode(arena, backend, model, plan, false)
}

/// [`config_hash`], of a run whose model requests go through the
/// provider's batch API when `batch` (`tribunal run --batch`): its rows
/// are not mixed with an online run's.
pub fn config_hash_of_mode(
    arena: &Arena,
    backend: &str,
    model: &str,
    plan: &OutputPlan,
    batch: bool,
) -> String {
    short_digest(&config_value(arena, backend, model, plan, batch))
}

/// The first 16 hex digits of the SHA-256 of `config`'s canonical JSON:
/// every config hash.
pub(crate) fn short_digest(config: &Value) -> String {
    hex(&Sha256::digest(canonical(config).as_bytes()))[..16].to_string()
}

/// The digest of an item's `checks` as written in the dataset, in order
/// (16 hex digits of the SHA-256 of their canonical JSON): what a row says
/// scored it ([`ResultRow::checks_digest`](crate::ResultRow::checks_digest)).
pub fn checks_digest(checks: &[crate::score::checks::ItemCheck]) -> String {
    short_digest(&Value::Array(
        checks.iter().map(|c| c.spec.as_ref().clone()).collect(),
    ))
}

/// [`checks_digest`] of each item of `arena`, in `arena.items`' order.
pub(crate) fn checks_digests(arena: &Arena) -> Vec<String> {
    arena
        .items
        .iter()
        .map(|item| checks_digest(&item.checks))
        .collect()
}

/// What [`config_hash_of_mode`] hashes.
fn config_value(
    arena: &Arena,
    backend: &str,
    model: &str,
    plan: &OutputPlan,
    batch: bool,
) -> Value {
    let mut config = json!({
        "layout": HASH_LAYOUT,
        "system": arena.system,
        "schema": arena.schema,
        "verdict": arena.verdict.as_ref().map(|v| json!({
            "green": v.schemas.owner(crate::green_red::Verdict::Green),
            "red": v.schemas.owner(crate::green_red::Verdict::Red),
            "item_root": v.item_root,
        })),
        "tools": arena.toolbox.specs().iter().map(|s| json!({
            "name": s.name, "description": s.description, "parameters": s.parameters,
        })).collect::<Vec<_>>(),
        "tools_digest": arena.tools_digest,
        "budget": budget_fields(&arena.budget),
        "answer": {
            "mode": arena.answer.mode,
            "max_depth": arena.answer.max_depth,
            "max_bytes": arena.answer.max_bytes,
        },
        "require_tool_first": arena.require_tool_first,
        "backend_settings": arena.backend.hashed(),
        "output_plan": plan,
        "backend": backend,
        "model": model,
    });
    // Only with [approval]: its policy and scripted decisions decide which
    // calls run, so other arenas' hashes stay as they were.
    if let (Some(approval), Some(map)) = (&arena.approval, config.as_object_mut()) {
        map.insert("approval".to_string(), json!(approval));
    }
    // Only when set: read_file's example is the item's changed file.
    if let (Some(example), Some(verdict)) = (
        arena
            .verdict
            .as_ref()
            .and_then(|v| v.example_path_from.as_ref()),
        config.get_mut("verdict"),
    ) {
        verdict["example_path_from"] = json!(example);
    }
    // Only when set: the first message carries the items' files.
    if !arena.inline_files.is_empty()
        && let Some(map) = config.as_object_mut()
    {
        map.insert("inline_files".to_string(), json!(arena.inline_files));
    }
    // Only with rubric checks: the judge decides outcomes too.
    if arena.has_rubric()
        && let Some(map) = config.as_object_mut()
    {
        map.insert("judge".to_string(), json!(arena.judge));
        map.insert("judge_prompt".to_string(), judge_prompt_fields(arena));
    }
    // Only with conversation items: the user simulator's prompt (its
    // version and the reply-turn wording) shapes every conversation.
    if arena.items.iter().any(|i| i.user.is_some())
        && let Some(map) = config.as_object_mut()
    {
        map.insert(
            "user_simulator".to_string(),
            json!({
                "prompt_version": tribunal_runtime::internal::user::USER_PROMPT_VERSION,
                "prompt": tribunal_runtime::internal::user::user_prompt("{instructions}", Some("{persona}"), "{stop}"),
                "records": arena.tools.iter().any(|t| t == "records"),
            }),
        );
        // Only when set, so other conversation arenas' hashes stay: the
        // user's own model and budget change the conversations.
        if arena.user != crate::arena::UserSettings::default() {
            map.insert("user".to_string(), json!(arena.user));
        }
    }
    // Only with MCP servers (whose tools' listed schemas are in `tools`):
    // how each is started, so other arenas' hashes stay as they were.
    if !arena.mcp.is_empty()
        && let Some(map) = config.as_object_mut()
    {
        map.insert("mcp".to_string(), mcp_fields(arena));
    }
    // Only when set, so the hashes of arenas without a cost budget stay as
    // they were.
    if let (Some(max), Some(budget)) = (arena.max_cost_usd, config.get_mut("budget")) {
        budget["max_cost_usd"] = json!(max);
    }
    // Only with `shell`, so other arenas' hashes stay as they were: the
    // commands' limits and variables shape what they can do.
    if let Some(sandbox) = &arena.sandbox
        && let Some(map) = config.as_object_mut()
    {
        let l = &sandbox.limits;
        map.insert(
            "sandbox".to_string(),
            json!({
                "engine": sandbox.engine.as_str(),
                "wall_ms": l.wall_time.as_millis() as u64,
                "cpu_secs": l.cpu_secs,
                "memory_bytes": l.memory_bytes,
                "processes": l.processes,
                "file_bytes": l.file_bytes,
                "output_bytes": l.output_bytes,
                "shown_bytes": l.shown_bytes,
                "env": sandbox.env,
            }),
        );
        if let Some(image) = &sandbox.image
            && let Some(table) = map.get_mut("sandbox")
        {
            table["image"] = json!(image);
        }
        // Only when on, so the hashes of arenas with run_command stay.
        if sandbox.run_tests
            && let Some(table) = map.get_mut("sandbox")
        {
            table["run_tests"] = json!(sandbox.test_command);
        }
        // Only when named, so the hashes of arenas without stay.
        if !sandbox.toolchains.is_empty()
            && let Some(table) = map.get_mut("sandbox")
        {
            let names: Vec<&str> = sandbox.toolchains.iter().map(|t| t.as_str()).collect();
            table["toolchains"] = json!(names);
        }
        // Only when on, so the hashes of arenas that only run commands stay.
        if sandbox.write_files {
            map.insert("write_files".to_string(), json!(true));
        }
    }
    // Only in batch mode, so online hashes stay as they were.
    if batch && let Some(map) = config.as_object_mut() {
        map.insert("batch".to_string(), json!(true));
    }
    config
}

/// What the judge is sent: its effective instructions and the prompt's
/// shape (the template, rendered on placeholders), so rows judged under
/// another prompt never resume into this run's.
fn judge_prompt_fields(arena: &Arena) -> Value {
    let system = arena
        .judge
        .system
        .as_deref()
        .unwrap_or(crate::score::rubric::DEFAULT_JUDGE_SYSTEM);
    let template = crate::score::rubric::judge_prompt("RUBRIC", "TASK", &Value::from("ANSWER"));
    let mut fields = json!({"system": system, "template": template});
    // Only when a conversation has rubric checks (they read its transcript),
    // so the hashes of other arenas stay as they were.
    if arena
        .items
        .iter()
        .any(|i| i.user.is_some() && i.has_rubric())
        && let Some(map) = fields.as_object_mut()
    {
        let transcript = crate::score::rubric::transcript_prompt("RUBRIC", "GOAL", "TRANSCRIPT");
        map.insert("transcript_template".to_string(), json!(transcript));
    }
    fields
}

/// How each MCP server is started.
fn mcp_fields(arena: &Arena) -> Value {
    let servers = arena
        .mcp
        .iter()
        .map(|m| {
            let mut server = json!({"name": m.name, "command": m.command, "args": m.args, "env": m.env, "tools": m.tools});
            // Only when set, so the hashes of arena-wide servers stay as
            // they were.
            if let (true, Some(map)) = (m.per_run, server.as_object_mut()) {
                map.insert("per_run".to_string(), json!(true));
            }
            // Only for a server at a url, so the hashes of command servers
            // stay as they were: where it is and which variables its
            // headers come from (never their values).
            if let (Some(url), Some(map)) = (&m.url, server.as_object_mut()) {
                map.insert("url".to_string(), json!(url));
                map.insert("bearer_env".to_string(), json!(m.bearer_env));
                map.insert("header_env".to_string(), json!(m.header_env));
            }
            server
        })
        .collect();
    Value::Array(servers)
}

/// `hash` of a run whose per-run cost budget (`max_cost_usd`) is checked
/// at `price`: the price decides which runs end `max_cost_exceeded`, so a
/// changed price is another configuration (its rows are not resumed into,
/// nor mixed with, the old price's). The runner applies it only when that
/// budget is in force; without one the hash is [`config_hash_of_mode`]'s.
pub fn with_cost_price(hash: &str, price: &ModelPrice) -> String {
    short_digest(&json!({"config": hash, "max_cost_price": price}))
}

/// `hash` of a run whose per-run cost budget also counts its simulated
/// users' spend, priced at `price` (their own route's model): that price
/// decides which conversations end `max_cost_exceeded` too.
pub(crate) fn with_user_cost_price(hash: &str, price: &ModelPrice) -> String {
    short_digest(&json!({"config": hash, "max_cost_user_price": price}))
}

/// `hash` for runs whose tool calls a live approver decides under
/// `policy` (a person, a UI): what they decide is not in the arena, so
/// their rows never share a hash with unattended runs.
pub fn with_live_approval(hash: &str, policy: &ApprovalPolicy) -> String {
    short_digest(&json!({"config": hash, "live_approval": policy}))
}

/// The budget fields a config hash covers (the cost budget is added apart,
/// only when set). `on_repeat` decides whether a looping run answers or
/// spends its tool budget, `max_idle_turns` when a run that will not call a
/// tool ends and `on_idle` how, `on_nothing_new` whether a run finding
/// nothing new answers: they shape results, so they are hashed.
pub(crate) fn budget_fields(budget: &Budget) -> Value {
    let mut fields = json!({
        "max_tokens": budget.max_tokens,
        "max_tool_calls": budget.max_tool_calls,
        "deadline_ms": budget.deadline.map(|d| d.as_millis() as u64),
        "max_turns": budget.max_turns,
        "on_budget": budget.on_budget,
        "on_repeat": budget.on_repeat,
        "max_idle_turns": budget.max_idle_turns,
    });
    // `on_idle` only when it finalizes: earlier hashes stay as they were.
    if budget.on_idle != OnBudget::Fail
        && let Value::Object(map) = &mut fields
    {
        map.insert("on_idle".into(), json!(budget.on_idle));
    }
    // `on_nothing_new` only when it finalizes, for the same reason.
    if budget.on_nothing_new != OnNothingNew::Continue
        && let Value::Object(map) = &mut fields
    {
        map.insert("on_nothing_new".into(), json!(budget.on_nothing_new));
    }
    fields
}

/// Compact JSON with object keys sorted at every level.
pub fn canonical(value: &Value) -> String {
    sorted_keys(value).to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A rubric arena's hash covers what its judge is sent: the effective
    /// instructions (the default when `[judge]` sets none) and the prompt's
    /// shape, so a changed judge prompt is another configuration.
    #[test]
    fn the_judge_prompt_is_hashed() {
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../arenas/rubric_judge");
        let arena = match Arena::load(&dir) {
            Ok(arena) => arena,
            Err(e) => panic!("the arena loads: {e}"),
        };
        let plan = OutputPlan::native(tribunal_runtime::internal::output::SchemaTarget::OpenAi);
        let config = config_value(&arena, "openai-chat", "m", &plan, false);
        let prompt = &config["judge_prompt"];
        assert_eq!(prompt["system"], crate::score::rubric::DEFAULT_JUDGE_SYSTEM);
        let template = prompt["template"].as_str().unwrap_or_default();
        assert!(
            template.contains("<answer-") && template.contains("RUBRIC"),
            "{template}"
        );
    }

    /// A conversation arena's hash covers the simulated user's own route
    /// and budget (`[user]`) only when set: the support desk's hash stays.
    #[test]
    fn the_users_route_and_budget_are_hashed_only_when_set() {
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../arenas/support_desk");
        let mut arena = match Arena::load(&dir) {
            Ok(arena) => arena,
            Err(e) => panic!("the arena loads: {e}"),
        };
        let plan = OutputPlan::native(tribunal_runtime::internal::output::SchemaTarget::OpenAi);
        let config = config_value(&arena, "openai-chat", "m", &plan, false);
        assert!(config["user_simulator"].get("user").is_none());
        let without = config_hash(&arena, "openai-chat", "m", &plan);
        arena.user.max_tokens = Some(4000);
        let budgeted = config_hash(&arena, "openai-chat", "m", &plan);
        arena.user.model = Some("other".to_string());
        let other_model = config_hash(&arena, "openai-chat", "m", &plan);
        assert_ne!(without, budgeted);
        assert_ne!(budgeted, other_model);
    }

    /// A `shell` arena's hash covers its commands' limits and variables;
    /// other arenas' configs carry no `sandbox` key (their hashes stay).
    #[test]
    fn the_sandbox_settings_are_hashed_only_when_commands_run() {
        let dir =
            std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../arenas/structured_output");
        let mut arena = match Arena::load(&dir) {
            Ok(arena) => arena,
            Err(e) => panic!("the arena loads: {e}"),
        };
        let plan = OutputPlan::native(tribunal_runtime::internal::output::SchemaTarget::OpenAi);
        let config = config_value(&arena, "mock", "m", &plan, false);
        assert!(config.get("sandbox").is_none());
        let without = config_hash(&arena, "mock", "m", &plan);
        let mut settings = crate::arena::SandboxSettings {
            limits: Default::default(),
            env: vec![("LANG".to_string(), "C".to_string())],
            keep_copies: false,
            write_files: false,
            engine: tribunal_tools::shell::Engine::Bubblewrap,
            image: None,
            toolchains: Vec::new(),
            run_tests: false,
            test_command: Vec::new(),
        };
        arena.sandbox = Some(settings.clone());
        let with = config_hash(&arena, "mock", "m", &plan);
        assert_eq!(
            config_value(&arena, "mock", "m", &plan, false)["sandbox"]["engine"],
            "bubblewrap"
        );
        settings.limits.wall_time = std::time::Duration::from_secs(5);
        arena.sandbox = Some(settings.clone());
        let shorter = config_hash(&arena, "mock", "m", &plan);
        settings.env.clear();
        arena.sandbox = Some(settings.clone());
        let no_env = config_hash(&arena, "mock", "m", &plan);
        settings.write_files = true;
        arena.sandbox = Some(settings.clone());
        let writes = config_hash(&arena, "mock", "m", &plan);
        assert!(without != with && with != shorter && shorter != no_env && no_env != writes);
        // No sandbox at all is another run's terms.
        settings.engine = tribunal_tools::shell::Engine::NoneTrustedContainer;
        arena.sandbox = Some(settings.clone());
        let none = config_hash(&arena, "mock", "m", &plan);
        assert_ne!(none, writes);
        // A container's image is part of its terms.
        settings.engine = tribunal_tools::shell::Engine::Docker;
        settings.image = Some("python:3.12-slim".to_string());
        arena.sandbox = Some(settings.clone());
        let python = config_hash(&arena, "mock", "m", &plan);
        settings.image = Some("node:22-slim".to_string());
        arena.sandbox = Some(settings.clone());
        let node = config_hash(&arena, "mock", "m", &plan);
        assert!(none != python && python != node);
        // A toolchain shown is part of the terms; none keeps the hash.
        settings.engine = tribunal_tools::shell::Engine::Bubblewrap;
        settings.image = None;
        arena.sandbox = Some(settings.clone());
        let plain = config_value(&arena, "mock", "m", &plan, false);
        assert!(plain["sandbox"].get("toolchains").is_none());
        assert!(plain["sandbox"].get("run_tests").is_none());
        settings.run_tests = true;
        settings.test_command = vec!["python3".to_string(), "-m".to_string(), "unittest".into()];
        arena.sandbox = Some(settings.clone());
        let tests = config_value(&arena, "mock", "m", &plan, false);
        assert_eq!(
            tests["sandbox"]["run_tests"],
            serde_json::json!(["python3", "-m", "unittest"])
        );
        settings.run_tests = false;
        settings.toolchains = vec![tribunal_tools::shell::Toolchain::Rust];
        arena.sandbox = Some(settings);
        let rust = config_value(&arena, "mock", "m", &plan, false);
        assert_eq!(rust["sandbox"]["toolchains"], serde_json::json!(["rust"]));
    }

    /// `on_nothing_new` enters the budget's fields only when it finalizes:
    /// the budgets hashed before it existed keep their fields.
    #[test]
    fn on_nothing_new_is_hashed_only_when_it_finalizes() {
        let mut budget = Budget::default();
        let before = budget_fields(&budget);
        assert!(before.get("on_nothing_new").is_none());
        budget.on_nothing_new = OnNothingNew::Finalize;
        assert_eq!(budget_fields(&budget)["on_nothing_new"], "finalize");
    }
}
