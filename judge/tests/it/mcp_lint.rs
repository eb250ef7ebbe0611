//! `[[mcp]]` tables: exactly one of `command` and `url`, each with its own
//! fields; header values named by variable, never written or echoed; the
//! url (and the variables' names, never their values) in the config hash.

use tribunal_judge::internal::arena::mcp::McpServerSpec;

/// The problems of one `[[mcp]]` table written as TOML.
fn problems(table: &str) -> Vec<String> {
    let spec: McpServerSpec = toml::from_str(table).unwrap();
    spec.problems()
}

#[test]
fn a_server_at_a_url_lints_clean() {
    for table in [
        "name = \"web\"\nurl = \"http://127.0.0.1:8000/mcp\"\ntools = [\"add\"]",
        "name = \"web\"\nurl = \"https://mcp.example.com/mcp?x=1\"\nbearer_env = \"WEB_TOKEN\"\nheader_env = { \"X-Team\" = \"WEB_TEAM\" }\ntools = [\"add\"]",
    ] {
        assert_eq!(problems(table), Vec::<String>::new(), "{table}");
    }
}

#[test]
fn a_table_has_exactly_one_of_command_and_url() {
    let both = problems(
        "name = \"s\"\ncommand = \"srv\"\nurl = \"http://127.0.0.1:9/mcp\"\ntools = [\"add\"]",
    );
    assert_eq!(
        both,
        [
            "mcp \"s\": give either command (a server started here) or url (a server over streamable HTTP), not both"
        ]
    );
    let neither = problems("name = \"s\"\ntools = [\"add\"]");
    assert_eq!(
        neither,
        [
            "mcp \"s\": command or url is missing: give command (a server started here) or url (a server over streamable HTTP)"
        ]
    );
}

#[test]
fn each_kind_has_its_own_fields() {
    let url_with_command_fields = problems(
        "name = \"s\"\nurl = \"http://127.0.0.1:9/mcp\"\nargs = [\"-v\"]\nenv = [\"KEY\"]\ntools = [\"add\"]",
    );
    assert_eq!(
        url_with_command_fields,
        [
            "mcp \"s\": args goes with command; a server at a url gets headers (bearer_env, header_env)",
            "mcp \"s\": env goes with command; a server at a url gets headers (bearer_env, header_env)",
        ]
    );
    let command_with_url_fields = problems(
        "name = \"s\"\ncommand = \"srv\"\nbearer_env = \"T\"\nheader_env = { \"X-A\" = \"A\" }\ntools = [\"add\"]",
    );
    assert_eq!(
        command_with_url_fields,
        [
            "mcp \"s\": bearer_env goes with url; a command's server gets variables by env",
            "mcp \"s\": header_env goes with url; a command's server gets variables by env",
        ]
    );
}

#[test]
fn a_url_must_be_http_or_https_with_a_host_and_is_never_echoed() {
    for (url, says) in [
        (
            "ftp://example.com/mcp",
            "url must start with http:// or https://",
        ),
        (
            "127.0.0.1:8000/mcp",
            "url must start with http:// or https://",
        ),
        ("http:///mcp", "url is not a URL with a host"),
        ("http://exa mple.com/mcp", "url is not a URL with a host"),
        (
            "https://user:hunter2@example.com/mcp",
            "url holds credentials: give them with bearer_env or header_env instead",
        ),
    ] {
        let found = problems(&format!("name = \"s\"\nurl = {url:?}\ntools = [\"add\"]"));
        assert_eq!(found, [format!("mcp \"s\": {says}")], "{url}");
    }
}

#[test]
fn header_values_are_variable_names_and_a_value_written_instead_is_not_echoed() {
    let found = problems(
        "name = \"s\"\nurl = \"http://127.0.0.1:9/mcp\"\nbearer_env = \"Bearer sk-live-1\"\nheader_env = { \"X-Key\" = \"sk-live-2\", \"Bad Header\" = \"OK_VAR\", \"Accept\" = \"A\", \"Authorization\" = \"B\" }\ntools = [\"add\"]",
    );
    assert_eq!(
        found,
        [
            "mcp \"s\": bearer_env is not a variable name: give names only; the values come from the environment, never from this file",
            "mcp \"s\": header_env: Accept is set by the MCP client itself",
            "mcp \"s\": header_env: Authorization is already sent by bearer_env",
            "mcp \"s\": header_env: \"Bad Header\" is not a header name",
            "mcp \"s\": header_env: the value of \"X-Key\" is not a variable name: give names only; the values come from the environment, never from this file",
        ]
    );
    assert!(!found.join("\n").contains("sk-live"), "{found:?}");
}

/// The config hash holds the url and the variables' names; a command
/// server's hash is what it was before `url` existed.
#[test]
fn the_config_hash_holds_the_url_and_variable_names() {
    use tribunal_runtime::OutputPlan;
    use tribunal_runtime::SchemaTarget;
    let line = tribunal_testkit::arenas::item(
        "a",
        r#"[{"type": "json_valid"}]"#,
        r#"[{"json": {"x": 1}}]"#,
    );
    let dir = tribunal_testkit::arenas::arena_dir(&[("dataset.jsonl", &line)]);
    let arena = tribunal_judge::Arena::load(dir.path()).unwrap();
    let plan = OutputPlan::tool(SchemaTarget::OpenAi);
    let hash = |table: &str| {
        let mut with = arena.clone();
        with.mcp = vec![toml::from_str(table).unwrap()];
        tribunal_judge::internal::run::hash::config_hash(&with, "openai-chat", "m", &plan)
    };
    // A command server's hash is the one it had before `url` existed
    // (checked against that code; e77af11ce4eea3c1 until `on_repeat`, which
    // and `max_idle_turns`, which change what a looping or idle run does, joined every hash), so its results
    // files go on.
    assert_eq!(
        hash("name = \"calc\"\ncommand = \"srv\"\ntools = [\"add\"]"),
        "ae8a1a88b191a0b2"
    );
    // A per-run server is another configuration (its state is the run's).
    assert_ne!(
        hash("name = \"calc\"\ncommand = \"srv\"\ntools = [\"add\"]\nper_run = true"),
        "ae8a1a88b191a0b2"
    );
    let web = "name = \"web\"\nurl = \"http://127.0.0.1:8000/mcp\"\ntools = [\"add\"]";
    let base = hash(web);
    assert_ne!(hash(&web.replace("8000", "8001")), base);
    assert_ne!(hash(&format!("{web}\nbearer_env = \"T\"")), base);
    assert_ne!(
        hash(&format!("{web}\nheader_env = {{ \"X-A\" = \"A\" }}")),
        base
    );
}

#[test]
fn per_run_goes_with_a_command_and_workdir_with_per_run() {
    assert_eq!(
        problems(
            "name = \"s\"\ncommand = \"srv\"\nargs = [\"{workdir}/db.json\"]\nper_run = true\ntools = [\"add\"]"
        ),
        Vec::<String>::new()
    );
    assert_eq!(
        problems(
            "name = \"s\"\nurl = \"http://127.0.0.1:9/mcp\"\nper_run = true\ntools = [\"add\"]"
        ),
        ["mcp \"s\": per_run goes with command: a server at a url is not started here"]
    );
    assert_eq!(
        problems("name = \"s\"\ncommand = \"srv\"\nargs = [\"{workdir}\"]\ntools = [\"add\"]"),
        ["mcp \"s\": args: {workdir} names a run's copy: it needs per_run = true"]
    );
}
