//! `[[mcp]]` in `arena.toml`: the runs offer the tools of an MCP server
//! started for them (the tools crate's fixture server, built here as
//! `tribunal-mcp-fixture`), lint checks the tables, and a server that cannot
//! give what the arena names stops the run before it starts (exit 2, coded).

use crate::json_lines;
use crate::stand_in::stderr;
use crate::tribunal;
use std::path::Path;
use std::process::Command;

fn fixture() -> &'static str {
    env!("CARGO_BIN_EXE_tribunal-mcp-fixture")
}

/// An arena folder whose `[[mcp]]` table is `mcp` (TOML) and whose one
/// item's mock model calls `add` and answers with the sum.
fn arena(mcp: &str) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let toml = format!(
        r#"name = "mcp-arena"
system = "Add with the add tool."
schema = {{ type = "object", required = ["sum"], additionalProperties = false, properties = {{ sum = {{ type = "integer" }} }} }}

{mcp}
"#
    );
    std::fs::write(dir.path().join("arena.toml"), toml).unwrap();
    let item = serde_json::json!({
        "id": "add", "input": "What is 1234 + 4321?",
        "checks": [{"type": "tool_used", "name": "add"}, {"type": "json_path_equals", "path": "sum", "value": 5555}],
        "mock": [
            {"tool_calls": [{"name": "add", "arguments": {"a": 1234, "b": 4321}}]},
            {"json": {"sum": 5555}}
        ]
    });
    std::fs::write(dir.path().join("dataset.jsonl"), format!("{item}\n")).unwrap();
    dir
}

fn calc(tools: &str) -> String {
    format!(
        "[[mcp]]\nname = \"calc\"\ncommand = {:?}\ntools = {tools}\n",
        fixture()
    )
}

#[test]
fn a_run_offers_the_tools_of_its_mcp_server() {
    let dir = arena(&calc(r#"["add"]"#));
    let arena = dir.path().to_str().unwrap();
    let out = dir.path().join("r.jsonl");
    let o = tribunal(
        &[
            "run",
            arena,
            "--out",
            out.to_str().unwrap(),
            "--transcripts",
            "t",
        ],
        dir.path(),
    );
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let rows = json_lines(&out);
    assert_eq!(rows.len(), 1);
    assert_eq!(rows[0]["outcome"], "PASS", "{}", rows[0]);
    assert_eq!(rows[0]["tool_calls"][0]["name"], "add");
    assert_eq!(rows[0]["tool_calls"][0]["ok"], true);
    // The server's structured result is what the model read.
    let transcripts: String = std::fs::read_dir(dir.path().join("t"))
        .unwrap()
        .map(|e| std::fs::read_to_string(e.unwrap().path()).unwrap())
        .collect();
    assert!(transcripts.contains(r#"{\"sum\":5555}"#), "{transcripts}");
}

#[test]
fn only_the_listed_tools_are_offered_and_enter_the_config_hash() {
    let run = |tools: &str| {
        let dir = arena(&calc(tools));
        let out = dir.path().join("r.jsonl");
        let o = tribunal(
            &[
                "run",
                dir.path().to_str().unwrap(),
                "--out",
                out.to_str().unwrap(),
            ],
            dir.path(),
        );
        (o, json_lines(&out), dir)
    };
    let (o, rows, _dir) = run(r#"["add"]"#);
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let (o2, rows2, _dir2) = run(r#"["add", "echo"]"#);
    assert_eq!(o2.status.code(), Some(0), "{}", stderr(&o2));
    assert_ne!(rows[0]["config_hash"], rows2[0]["config_hash"]);
}

#[test]
fn a_tool_the_server_does_not_list_stops_the_run() {
    let dir = arena(&calc(r#"["add", "multiply"]"#));
    let o = tribunal(&["run", dir.path().to_str().unwrap()], dir.path());
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    let err = stderr(&o);
    assert!(
        err.contains("the MCP server calc has no tool \"multiply\""),
        "{err}"
    );
    assert!(err.contains("[mcp_tool_missing]"), "{err}");
    assert!(err.contains("add"), "the listed tools are named: {err}");
}

#[test]
fn a_server_that_cannot_start_stops_the_run() {
    let dir = arena(
        "[[mcp]]\nname = \"gone\"\ncommand = \"/nonexistent/mcp-server\"\ntools = [\"add\"]\n",
    );
    let o = tribunal(&["run", dir.path().to_str().unwrap()], dir.path());
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(stderr(&o).contains("[mcp_spawn]"), "{}", stderr(&o));
}

#[test]
fn lint_checks_mcp_tables_and_knows_their_tools() {
    let dir = arena(&calc(r#"["add"]"#));
    let o = tribunal(&["lint", dir.path().to_str().unwrap()], dir.path());
    assert_eq!(
        o.status.code(),
        Some(0),
        "an item naming an MCP tool lints clean: {}",
        stderr(&o)
    );

    let bad = arena(
        "[[mcp]]\nname = \"bad name\"\ncommand = \"srv\"\nurl = \"http://127.0.0.1:9/mcp\"\nenv = [\"API-KEY=sk-1\"]\nbearer_env = \"sk-2\"\ntools = []\n",
    );
    let o = tribunal(&["lint", bad.path().to_str().unwrap()], bad.path());
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    let text = format!("{}{}", String::from_utf8_lossy(&o.stdout), stderr(&o));
    for says in [
        "name must be",
        "give either command (a server started here) or url (a server over streamable HTTP), not both",
        "env[0] is not a variable name",
        "bearer_env is not a variable name",
        "tools is missing",
        "does not offer a tool named \"add\"", // no server offers it now
    ] {
        assert!(text.contains(says), "{says}: {text}");
    }
    assert!(
        !text.contains("sk-1") && !text.contains("sk-2"),
        "a value written into env or bearer_env is never echoed: {text}"
    );

    let web = arena(
        "[[mcp]]\nname = \"calc\"\nurl = \"http://127.0.0.1:9/mcp\"\nbearer_env = \"CALC_TOKEN\"\ntools = [\"add\"]\n",
    );
    let o = tribunal(&["lint", web.path().to_str().unwrap()], web.path());
    assert_eq!(
        o.status.code(),
        Some(0),
        "a url table lints clean: {}",
        stderr(&o)
    );
}

/// The fixture server over streamable HTTP, killed when dropped.
struct HttpFixture {
    child: std::process::Child,
    url: String,
}

impl Drop for HttpFixture {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Starts the fixture over HTTP on a free port, asking for `token` (bearer)
/// and `key` (`X-Fixture-Key`).
fn http_fixture(token: &str, key: &str) -> HttpFixture {
    use std::io::BufRead;
    let mut child = Command::new(fixture())
        .args(["--http", "127.0.0.1:0"])
        .env("MCP_FIXTURE_TOKEN", token)
        .env("MCP_FIXTURE_KEY", key)
        .stdout(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let mut url = String::new();
    std::io::BufReader::new(child.stdout.take().unwrap())
        .read_line(&mut url)
        .unwrap();
    HttpFixture {
        child,
        url: url.trim().to_string(),
    }
}

/// An `[[mcp]]` table for the fixture at `url`, its token from `CALC_TOKEN`
/// and its key from `CALC_KEY`.
fn calc_at(url: &str) -> String {
    format!(
        "[[mcp]]\nname = \"calc\"\nurl = {url:?}\nbearer_env = \"CALC_TOKEN\"\nheader_env = {{ \"X-Fixture-Key\" = \"CALC_KEY\" }}\ntools = [\"add\"]\n"
    )
}

/// The variables the fixture asks for, right.
fn calc_env() -> Vec<(&'static str, String)> {
    vec![
        ("CALC_TOKEN", "t0k3n-http".to_string()),
        ("CALC_KEY", "k3y-http".to_string()),
    ]
}

/// A server at a url, its token and key from the environment: a run
/// records its tool results, and the replay runs with the server gone. A
/// wrong token stops the run before it starts (`mcp_auth`), and no value is
/// ever shown or written.
#[tokio::test]
async fn a_run_uses_an_mcp_server_over_http_and_replays_without_it() {
    use crate::stand_in::{Api, live_env, tribunal};
    let server = http_fixture("t0k3n-http", "k3y-http");
    let dir = arena(&calc_at(&server.url));
    let arena_dir = dir.path().to_str().unwrap();

    let o = tribunal(
        &["run", arena_dir],
        dir.path(),
        &[
            ("CALC_TOKEN", "wr0ng-t0k3n".to_string()),
            ("CALC_KEY", "k3y-http".to_string()),
        ],
    )
    .await;
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    let err = stderr(&o);
    assert!(err.contains("[mcp_auth]"), "{err}");
    assert!(err.contains("check CALC_TOKEN, CALC_KEY"), "{err}");
    assert!(!err.contains("t0k3n") && !err.contains("k3y"), "{err}");
    let o = tribunal(&["run", arena_dir], dir.path(), &[]).await;
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(stderr(&o).contains("[mcp_header]"), "{}", stderr(&o));

    let api = Api::Chat;
    let model = adding_model(api).await;
    let tapes = dir.path().join("tapes");
    let recorded_out = dir.path().join("recorded.jsonl");
    let args = cassette_run(arena_dir, "--record", &tapes, &recorded_out);
    let mut env = live_env(api, &model);
    env.extend(calc_env());
    let o = tribunal(&args, dir.path(), &env).await;
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let recorded = json_lines(&recorded_out);
    assert_eq!(recorded[0]["outcome"], "PASS", "{}", recorded[0]);
    let tools = json_lines(&tapes.join("mcp-arena.tools.jsonl"));
    assert_eq!(
        tools[2]["call"]["result"],
        serde_json::json!({"text": r#"{"sum":5555}"#})
    );
    for written in [tapes.join("mcp-arena.tools.jsonl"), recorded_out.clone()] {
        let text = std::fs::read_to_string(&written).unwrap();
        assert!(
            !text.contains("t0k3n") && !text.contains("k3y"),
            "no header value in {}",
            written.display()
        );
    }

    drop(server);
    let replayed_out = dir.path().join("replayed.jsonl");
    let args = cassette_run(arena_dir, "--replay", &tapes, &replayed_out);
    let o = tribunal(&args, dir.path(), &[]).await;
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let replayed = json_lines(&replayed_out);
    assert_eq!(replayed[0]["outcome"], "PASS", "{}", replayed[0]);
    assert_eq!(replayed[0]["tool_calls"][0]["ok"], true);
    assert_eq!(replayed[0]["config_hash"], recorded[0]["config_hash"]);

    // Live, with the server gone: the start fails, coded, before any item.
    let o = tribunal(&["run", arena_dir], dir.path(), &calc_env()).await;
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(stderr(&o).contains("[mcp_connect]"), "{}", stderr(&o));
}

/// `--record` writes the MCP tools' results beside the model's answers, and
/// `--replay` serves both: the replayed run starts no server (the server's
/// command writes a line to a marker file each time it starts) and reads
/// the recorded result.
#[tokio::test]
async fn a_replayed_run_starts_no_mcp_server() {
    use crate::stand_in::{Api, live_env, tribunal};
    let marker = tempfile::NamedTempFile::new().unwrap();
    let starting = format!(
        "echo started >> '{}' && exec '{}'",
        marker.path().display(),
        fixture()
    );
    let mcp = format!(
        "[[mcp]]\nname = \"calc\"\ncommand = \"sh\"\nargs = [\"-c\", {starting:?}]\ntools = [\"add\"]\n"
    );
    let dir = arena(&mcp);
    let arena_dir = dir.path().to_str().unwrap();
    let api = Api::Chat;
    let server = adding_model(api).await;
    let tapes = dir.path().join("tapes");
    let recorded_out = dir.path().join("recorded.jsonl");
    let args = cassette_run(arena_dir, "--record", &tapes, &recorded_out);
    let o = tribunal(&args, dir.path(), &live_env(api, &server)).await;
    assert_eq!(
        o.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    let started = || {
        std::fs::read_to_string(marker.path())
            .unwrap()
            .lines()
            .count()
    };
    assert_eq!(started(), 1);
    let tools = json_lines(&tapes.join("mcp-arena.tools.jsonl"));
    assert_eq!(tools[1]["tool"]["name"], "add");
    assert_eq!(
        tools[2]["call"]["arguments"],
        serde_json::json!({"a": 1234, "b": 4321})
    );
    assert_eq!(
        tools[2]["call"]["result"],
        serde_json::json!({"text": r#"{"sum":5555}"#})
    );

    let replayed_out = dir.path().join("replayed.jsonl");
    let args = cassette_run(arena_dir, "--replay", &tapes, &replayed_out);
    let o = tribunal(&args, dir.path(), &[]).await;
    assert_eq!(
        o.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    assert_eq!(started(), 1, "the replay started no server");
    let (recorded, replayed) = (json_lines(&recorded_out), json_lines(&replayed_out));
    assert_eq!(replayed[0]["outcome"], "PASS", "{}", replayed[0]);
    assert_eq!(replayed[0]["tool_calls"][0]["ok"], true);
    assert_eq!(replayed[0]["config_hash"], recorded[0]["config_hash"]);
    assert_eq!(replayed[0]["answer"], recorded[0]["answer"]);

    // A tool the cassette never held stops the replay before it starts.
    std::fs::write(
        dir.path().join("arena.toml"),
        std::fs::read_to_string(dir.path().join("arena.toml"))
            .unwrap()
            .replace(r#"tools = ["add"]"#, r#"tools = ["add", "echo"]"#),
    )
    .unwrap();
    let o = tribunal(&args, dir.path(), &[]).await;
    assert_eq!(o.status.code(), Some(2));
    assert!(
        String::from_utf8_lossy(&o.stderr).contains("[mcp_not_recorded]"),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    assert_eq!(started(), 1);
}

/// The `mcp_add` fixture arena as a real model ran it (llama.cpp,
/// Qwen2.5-Coder-0.5B, the fixture server as `tribunal-mcp-fixture` on
/// PATH; see LIVE.md), replayed from its two cassettes with neither the
/// model nor the server: the server's command is not on this run's PATH, so
/// a start would fail with `mcp_spawn`.
#[tokio::test]
async fn a_real_models_mcp_arena_replays_without_model_or_server() {
    use crate::stand_in::tribunal;
    let arena = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/mcp_add");
    let tapes = arena.join("cassettes");
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("r.jsonl");
    let args = [
        "run",
        arena.to_str().unwrap(),
        "--backend",
        "openai-chat",
        "--model",
        "qwen",
        "--replay",
        tapes.to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
    ];
    let o = tribunal(&args, dir.path(), &[("PATH", "/usr/bin:/bin".to_string())]).await;
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let rows = json_lines(&out);
    let by_id = |id: &str| rows.iter().find(|r| r["id"] == id).unwrap().clone();
    for (id, sum) in [("big", 5555), ("small", 267)] {
        let row = by_id(id);
        assert_eq!(row["outcome"], "PASS", "{row}");
        assert_eq!(row["answer"]["sum"], sum);
        assert_eq!(row["tool_calls"][0]["name"], "add");
        assert_eq!(row["tool_calls"][0]["ok"], true);
        assert_eq!(row["replayed"], true);
    }
}

/// A stand-in model on `api` that calls `add` with 1234 and 4321, then
/// answers 5555.
async fn adding_model(api: crate::stand_in::Api) -> wiremock::MockServer {
    let ok = |body| wiremock::ResponseTemplate::new(200).set_body_json(body);
    crate::stand_in::in_order(
        api.endpoint(),
        vec![
            ok(api.tool_call("call_1", "add", serde_json::json!({"a": 1234, "b": 4321}))),
            ok(api.answer(r#"{"sum": 5555}"#)),
        ],
    )
    .await
}

/// `run ARENA` on the test model with `flag` (`--record` or `--replay`)
/// `tapes` and `--out out`.
fn cassette_run(arena: &str, flag: &str, tapes: &Path, out: &Path) -> Vec<String> {
    [
        "run",
        arena,
        "--backend",
        "openai-chat",
        "--model",
        "test-model",
        flag,
        tapes.to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
    ]
    .iter()
    .map(|s| s.to_string())
    .collect()
}

/// A user's `assert_arena_snapshot!` of an arena with `[[mcp]]` servers runs
/// as `tribunal run` does: the servers start and their tools answer (it once
/// ran the items without them, every call an unknown tool).
#[test]
fn a_snapshot_of_an_mcp_arena_runs_with_its_servers_tools() {
    use tribunal::judge::snapshot::{SnapshotSource, arena_snapshot_blocking};
    let dir = arena(&calc(r#"["add"]"#));
    let value = arena_snapshot_blocking(dir.path(), &SnapshotSource::Mock);
    let value = value.unwrap_or_else(|e| panic!("the snapshot did not run: {e}"));
    let item = &value["report"]["items"][0];
    assert_eq!(item["outcome"], "PASS", "{value:#}");
    assert_eq!(item["tool_calls"][0]["name"], "add", "{value:#}");
    assert_eq!(item["tool_calls"][0]["ok"], true, "{value:#}");
}

/// An arena whose world folder holds `note.txt` ("start") and whose
/// `[[mcp]]` server (the fixture) is started per run in the run's copy,
/// writing its process id into `$MCP_FIXTURE_PID_DIR` at start; `item` is
/// its one item.
fn per_run_arena(item: &serde_json::Value) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(dir.path().join("world")).unwrap();
    std::fs::write(dir.path().join("world/note.txt"), "start").unwrap();
    let toml = format!(
        r#"name = "per-run"
files_root = "world"
schema = {{ type = "object" }}

[[mcp]]
name = "notes"
command = {:?}
args = ["{{workdir}}"]
env = ["MCP_FIXTURE_PID_DIR"]
per_run = true
tools = ["read_text", "append_text", "sleep", "crash"]
"#,
        fixture()
    );
    std::fs::write(dir.path().join("arena.toml"), toml).unwrap();
    std::fs::write(dir.path().join("dataset.jsonl"), format!("{item}\n")).unwrap();
    dir
}

/// The servers that wrote their process id into `pids`: (pid, folder).
fn started(pids: &Path) -> Vec<(u32, String)> {
    std::fs::read_dir(pids)
        .unwrap()
        .map(|e| {
            let e = e.unwrap();
            let pid = e.file_name().to_str().unwrap().parse().unwrap();
            (pid, std::fs::read_to_string(e.path()).unwrap())
        })
        .collect()
}

/// Whether process `pid` is gone (a zombie, not reaped, is still there).
fn gone(pid: u32) -> bool {
    !Path::new(&format!("/proc/{pid}")).exists()
}

/// Waits (a bounded while) until every process of `pids` is gone.
fn all_gone(pids: &[(u32, String)]) -> bool {
    for _ in 0..100 {
        if pids.iter().all(|(pid, _)| gone(*pid)) {
            return true;
        }
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
    false
}

#[test]
fn a_per_run_server_works_in_each_runs_own_copy_and_is_gone_after_it() {
    let pids = tempfile::tempdir().unwrap();
    // Each run reads the note, waits while the others do the same, then
    // appends to it: with one shared server folder a run would read
    // another's append, and its own copy would not change.
    let item = serde_json::json!({
        "id": "note", "input": "Add +run to the note.",
        "checks": [
            {"type": "file_contains", "path": "note.txt", "value": "start+run"},
            {"type": "file_contains", "path": "note.txt", "value": "+run+run", "absent": true},
            {"type": "tool_used", "name": "append_text"}
        ],
        "mock": [
            {"tool_calls": [{"name": "read_text", "arguments": {"path": "note.txt"}}]},
            {"tool_calls": [{"name": "sleep", "arguments": {"ms": 300}}]},
            {"tool_calls": [{"name": "append_text", "arguments": {"path": "note.txt", "text": "+run"}}]},
            {"json": {}}
        ]
    });
    let dir = per_run_arena(&item);
    let out = dir.path().join("r.jsonl");
    let o = crate::tribunal_command(
        &[
            "run",
            dir.path().to_str().unwrap(),
            "--repeat",
            "4",
            "--concurrency",
            "4",
            "--out",
            out.to_str().unwrap(),
            "--transcripts",
            "t",
        ],
        dir.path(),
    )
    .env("MCP_FIXTURE_PID_DIR", pids.path())
    .output()
    .unwrap();
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    let rows = json_lines(&out);
    assert_eq!(rows.len(), 4);
    for row in &rows {
        assert_eq!(row["outcome"], "PASS", "{row}");
    }
    // Every run read the note as its world began.
    let transcripts: String = std::fs::read_dir(dir.path().join("t"))
        .unwrap()
        .map(|e| std::fs::read_to_string(e.unwrap().path()).unwrap())
        .collect();
    assert!(
        !transcripts.contains("start+run"),
        "a run read another's note"
    );
    // One server checked at the start, then one per run, each in its own
    // folder; none is left.
    let servers = started(pids.path());
    assert_eq!(servers.len(), 5, "{servers:?}");
    let mut folders: Vec<&String> = servers.iter().map(|(_, f)| f).collect();
    folders.sort();
    folders.dedup();
    assert_eq!(folders.len(), 5, "{servers:?}");
    assert!(all_gone(&servers), "a server outlived its run: {servers:?}");
    // The arena's own world is as it was.
    assert_eq!(
        std::fs::read_to_string(dir.path().join("world/note.txt")).unwrap(),
        "start"
    );
}

#[test]
fn a_per_run_server_that_dies_mid_conversation_ends_the_run_tool_server_failed() {
    let pids = tempfile::tempdir().unwrap();
    let item = serde_json::json!({
        "id": "dies", "input": "Please note +x.",
        "user": {"script": [{"say": "Is it noted?"}]},
        "checks": [{"type": "file_contains", "path": "note.txt", "value": "start+x"}],
        "mock": [
            {"tool_calls": [{"name": "append_text", "arguments": {"path": "note.txt", "text": "+x"}}]},
            {"tool_calls": [{"name": "crash", "arguments": {}}]},
            {"text": "Noted."},
            {"tool_calls": [{"name": "read_text", "arguments": {"path": "note.txt"}}]},
            {"text": "I cannot read it now."}
        ]
    });
    let dir = per_run_arena(&item);
    let out = dir.path().join("r.jsonl");
    let o = crate::tribunal_command(
        &[
            "run",
            dir.path().to_str().unwrap(),
            "--out",
            out.to_str().unwrap(),
            "--deadline-secs",
            "60",
        ],
        dir.path(),
    )
    .env("MCP_FIXTURE_PID_DIR", pids.path())
    .output()
    .unwrap();
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    let rows = json_lines(&out);
    assert_eq!(rows[0]["outcome"], "ERROR", "{}", rows[0]);
    assert_eq!(rows[0]["error_code"], "tool_server_failed", "{}", rows[0]);
    // The conversation ended at the batch whose call crashed the server:
    // no reply, no second user message, no call to a server that is gone.
    let calls = rows[0]["tool_calls"].as_array().unwrap();
    assert_eq!(calls.len(), 2, "{}", rows[0]);
    assert_eq!(calls[1]["name"], "crash", "{}", rows[0]);
    let talk = &rows[0]["conversation"];
    assert_eq!(
        talk["end"],
        serde_json::json!({"by": "failed", "code": "tool_server_failed"}),
        "{talk}"
    );
    assert_eq!(talk["exchanges"].as_array().unwrap().len(), 1, "{talk}");
    // Nothing outside the run's copy was touched.
    assert_eq!(
        std::fs::read_to_string(dir.path().join("world/note.txt")).unwrap(),
        "start"
    );
    assert!(all_gone(&started(pids.path())));
}

/// A per-run server's calls are recorded like an arena-wide server's, and
/// the replay starts none — not even the start's check — and answers from
/// the cassette: the copy is then left as it was (a replayed run's state
/// checks see the world unchanged, documented).
#[tokio::test]
async fn a_per_run_servers_calls_are_recorded_and_the_replay_starts_none() {
    use crate::stand_in::{Api, live_env, tribunal};
    let pids = tempfile::tempdir().unwrap();
    let item = serde_json::json!({
        "id": "note", "input": "Add +run to the note.",
        "checks": [{"type": "file_contains", "path": "note.txt", "value": "start+run"}],
        "mock": [{"json": {}}]
    });
    let dir = per_run_arena(&item);
    let arena_dir = dir.path().to_str().unwrap();
    let api = Api::Chat;
    let ok = |body| wiremock::ResponseTemplate::new(200).set_body_json(body);
    let model = crate::stand_in::in_order(
        api.endpoint(),
        vec![
            ok(api.tool_call(
                "call_1",
                "append_text",
                serde_json::json!({"path": "note.txt", "text": "+run"}),
            )),
            ok(api.answer("{}")),
        ],
    )
    .await;
    let tapes = dir.path().join("tapes");
    let recorded_out = dir.path().join("recorded.jsonl");
    let mut env = live_env(api, &model);
    env.push((
        "MCP_FIXTURE_PID_DIR",
        pids.path().to_str().unwrap().to_string(),
    ));
    let args = cassette_run(arena_dir, "--record", &tapes, &recorded_out);
    let o = tribunal(&args, dir.path(), &env).await;
    assert_eq!(o.status.code(), Some(0), "{}", stderr(&o));
    assert_eq!(json_lines(&recorded_out)[0]["outcome"], "PASS");
    // The start's check and the run's own server.
    assert_eq!(started(pids.path()).len(), 2);
    let tools = json_lines(&tapes.join("per-run.tools.jsonl"));
    let calls: Vec<_> = tools.iter().filter_map(|l| l.get("call")).collect();
    assert_eq!(calls.len(), 1, "{tools:?}");
    assert_eq!(calls[0]["result"], serde_json::json!({"text": "appended"}));

    let replayed_out = dir.path().join("replayed.jsonl");
    let args = cassette_run(arena_dir, "--replay", &tapes, &replayed_out);
    let o = tribunal(&args, dir.path(), &env).await;
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    assert_eq!(
        started(pids.path()).len(),
        2,
        "the replay started no server"
    );
    let replayed = json_lines(&replayed_out);
    assert_eq!(replayed[0]["tool_calls"][0]["ok"], true, "{}", replayed[0]);
    assert_eq!(replayed[0]["outcome"], "FAIL", "{}", replayed[0]);
}

/// A per-run server that starts for the start's check but not for the run
/// (its command refuses a second start): the run is ERROR
/// `tool_server_failed`, the arena's world untouched.
#[test]
fn a_per_run_server_that_does_not_start_for_its_run_is_a_coded_error() {
    let once = tempfile::tempdir().unwrap();
    let marker = once.path().join("started");
    let starting = format!(
        "if [ -e '{m}' ]; then exit 3; fi; touch '{m}'; exec '{f}'",
        m = marker.display(),
        f = fixture()
    );
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(dir.path().join("world")).unwrap();
    std::fs::write(dir.path().join("world/note.txt"), "start").unwrap();
    let toml = format!(
        "name = \"once\"\nfiles_root = \"world\"\nschema = {{ type = \"object\" }}\n\n\
         [[mcp]]\nname = \"notes\"\ncommand = \"sh\"\nargs = [\"-c\", {starting:?}]\nper_run = true\n\
         tools = [\"append_text\"]\n"
    );
    std::fs::write(dir.path().join("arena.toml"), toml).unwrap();
    let item = serde_json::json!({
        "id": "note", "input": "Add +run.",
        "checks": [{"type": "file_contains", "path": "note.txt", "value": "start+run"}],
        "mock": [
            {"tool_calls": [{"name": "append_text", "arguments": {"path": "note.txt", "text": "+run"}}]},
            {"json": {}}
        ]
    });
    std::fs::write(dir.path().join("dataset.jsonl"), format!("{item}\n")).unwrap();
    let out = dir.path().join("r.jsonl");
    let o = tribunal(
        &[
            "run",
            dir.path().to_str().unwrap(),
            "--out",
            out.to_str().unwrap(),
        ],
        dir.path(),
    );
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    let rows = json_lines(&out);
    assert_eq!(rows[0]["outcome"], "ERROR", "{}", rows[0]);
    assert_eq!(rows[0]["error_code"], "tool_server_failed", "{}", rows[0]);
    assert_eq!(
        std::fs::read_to_string(dir.path().join("world/note.txt")).unwrap(),
        "start"
    );
}
