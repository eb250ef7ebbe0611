//! The command sandbox against what an agent's commands may try: each test
//! is a row of RELIABILITY.md's sandbox table. Every command goes through
//! `run_command` in a toolbox, so each test reads what the model reads;
//! each also checks that nothing outside the copy changed.
//!
//! These tests need bubblewrap (`bash .ci/run` installs it); without it
//! they fail with the install hint, never skip.

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use serde_json::{Value, json};
use tribunal_runtime::ToolBox;
use tribunal_tools::ErrorCode;
use tribunal_tools::shell::{CommandSandbox, SandboxLimits, ShellTool, WorkingFolder};

/// The sandbox, or a failure that says how to get one.
async fn sandbox() -> Arc<CommandSandbox> {
    match CommandSandbox::detect().await {
        Ok(s) => Arc::new(s),
        Err(e) => {
            panic!("{e}\n(install bubblewrap: `apt-get install bubblewrap`; bash .ci/run does)")
        }
    }
}

/// An item folder (`project/` with `keep.txt`), a folder beside it that
/// no command may touch (`outside/secret.txt`), and a run's copy of the
/// item folder.
struct World {
    _dir: tempfile::TempDir,
    project: PathBuf,
    outside: PathBuf,
    copy: WorkingFolder,
    sandbox: Arc<CommandSandbox>,
}

impl World {
    async fn new() -> World {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().canonicalize().unwrap();
        let project = root.join("project");
        let outside = root.join("outside");
        std::fs::create_dir_all(&project).unwrap();
        std::fs::create_dir_all(&outside).unwrap();
        std::fs::write(project.join("keep.txt"), "the item's file\n").unwrap();
        std::fs::write(outside.join("secret.txt"), "TOP-SECRET-42\n").unwrap();
        let sandbox = sandbox().await;
        let copy = WorkingFolder::copy_of(&project, &root, "test").unwrap();
        sandbox.prepare(copy.path()).unwrap();
        World {
            _dir: dir,
            project,
            outside,
            copy,
            sandbox,
        }
    }

    /// `line` through `run_command` under `limits`: the JSON the model reads.
    async fn run_with(&self, line: &str, limits: SandboxLimits) -> Value {
        let tool = ShellTool::new(
            self.sandbox.clone(),
            self.copy.path().to_path_buf(),
            Vec::new(),
            limits,
        );
        let toolbox = ToolBox::new().with(tool);
        let result = crate::call(&toolbox, "run_command", json!({"command": line})).await;
        assert!(!result.is_error, "an engine error: {}", result.content);
        serde_json::from_str(&result.content).unwrap()
    }

    async fn run(&self, line: &str) -> Value {
        self.run_with(line, SandboxLimits::default()).await
    }

    /// The item folder and the outside folder are as they were made.
    fn assert_nothing_outside_changed(&self) {
        let entries = |dir: &Path| {
            let mut names: Vec<String> = std::fs::read_dir(dir)
                .unwrap()
                .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
                .collect();
            names.sort();
            names
        };
        assert_eq!(entries(&self.project), ["keep.txt"]);
        assert_eq!(entries(&self.outside), ["secret.txt"]);
        assert_eq!(
            std::fs::read_to_string(self.project.join("keep.txt")).unwrap(),
            "the item's file\n"
        );
        assert_eq!(
            std::fs::read_to_string(self.outside.join("secret.txt")).unwrap(),
            "TOP-SECRET-42\n"
        );
    }
}

fn text(v: &Value, key: &str) -> String {
    v[key].as_str().unwrap_or_default().to_string()
}

#[tokio::test]
async fn a_command_runs_in_the_copy_and_its_exit_code_and_output_reach_the_model() {
    let w = World::new().await;
    let out = w
        .run("cat keep.txt; pwd; echo made > new.txt; echo oops >&2; exit 3")
        .await;
    assert_eq!(out["exit_code"], 3);
    assert_eq!(out["limit"], Value::Null);
    assert_eq!(text(&out, "stdout"), "the item's file\n/work\n");
    assert_eq!(text(&out, "stderr"), "oops\n");
    assert_eq!(
        std::fs::read_to_string(w.copy.path().join("new.txt")).unwrap(),
        "made\n"
    );
    w.assert_nothing_outside_changed();
}

#[tokio::test]
async fn a_server_on_the_hosts_loopback_is_unreachable() {
    let w = World::new().await;
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    listener.set_nonblocking(true).unwrap();
    let port = listener.local_addr().unwrap().port();
    let out = w
        .run(&format!(
            "bash -c 'echo hello > /dev/tcp/127.0.0.1/{port}' && echo CONNECTED"
        ))
        .await;
    assert_ne!(out["exit_code"], 0, "{out}");
    assert!(!text(&out, "stdout").contains("CONNECTED"));
    // Nothing reached the server.
    assert_eq!(
        listener.accept().map(|_| ()).unwrap_err().kind(),
        std::io::ErrorKind::WouldBlock
    );
    w.assert_nothing_outside_changed();
}

#[tokio::test]
async fn a_name_does_not_resolve() {
    let w = World::new().await;
    let out = w
        .run("getent hosts example.com; getent hosts localhost.localdomain.invalid")
        .await;
    assert_ne!(out["exit_code"], 0, "{out}");
    assert_eq!(text(&out, "stdout"), "");
    let out = w.run("cat /etc/resolv.conf").await;
    assert_ne!(out["exit_code"], 0, "{out}");
}

#[tokio::test]
async fn writes_outside_the_copy_change_nothing_outside_it() {
    let w = World::new().await;
    let outside = w.outside.display();
    let project = w.project.display();
    let out = w
        .run(&format!(
            "echo pwned > {outside}/secret.txt; echo pwned > {project}/keep.txt; \
             touch /usr/pwned /etc/pwned /pwned; mkdir -p {outside} && echo pwned > {outside}/new.txt; \
             echo done"
        ))
        .await;
    assert_eq!(text(&out, "stdout"), "done\n");
    assert!(text(&out, "stderr").contains("/usr/pwned"), "{out}");
    assert!(!Path::new("/usr/pwned").exists());
    assert!(!Path::new("/etc/pwned").exists());
    w.assert_nothing_outside_changed();
}

#[tokio::test]
async fn the_hosts_home_keys_and_other_folders_are_absent() {
    let w = World::new().await;
    let home = std::env::var("HOME").unwrap_or_else(|_| "/root".to_string());
    let outside = w.outside.display();
    let out = w
        .run(&format!(
            "ls -a {home}/.ssh; cat {home}/.ssh/id_*; cat {outside}/secret.txt; ls /root /var /run /home; \
             echo HOME=$HOME"
        ))
        .await;
    let stdout = text(&out, "stdout");
    assert_eq!(stdout, "HOME=/work\n", "{out}");
    assert!(!stdout.contains("TOP-SECRET"));
    assert!(text(&out, "stderr").contains("No such file or directory"));
}

#[tokio::test]
async fn the_environment_holds_only_the_declared_variables() {
    let w = World::new().await;
    let tool = ShellTool::new(
        w.sandbox.clone(),
        w.copy.path().to_path_buf(),
        vec![("LANG".to_string(), "C.UTF-8".to_string())],
        SandboxLimits::default(),
    );
    let toolbox = ToolBox::new().with(tool);
    let line = "env | sort; echo ---; tr '\\0' '\\n' < /proc/1/environ; echo ---";
    let result = crate::call(&toolbox, "run_command", json!({"command": line})).await;
    let out: Value = serde_json::from_str(&result.content).unwrap();
    let stdout = text(&out, "stdout");
    let (env, pid1) = stdout.split_once("---\n").unwrap();
    let names: Vec<&str> = env
        .lines()
        .map(|l| l.split_once('=').map_or(l, |(n, _)| n))
        .collect();
    assert_eq!(names, ["HOME", "LANG", "PATH", "PWD", "TMPDIR"], "{stdout}");
    // The sandbox's PID 1 (bubblewrap) was started with no variables.
    assert_eq!(pid1, "---\n", "{stdout}");
}

#[tokio::test]
async fn a_symlink_out_of_the_copy_leads_nowhere() {
    let w = World::new().await;
    let secret = w.outside.join("secret.txt");
    std::os::unix::fs::symlink(&secret, w.copy.path().join("leak")).unwrap();
    std::os::unix::fs::symlink("../../../../../../..", w.copy.path().join("up")).unwrap();
    let out = w
        .run("cat leak; echo pwned > leak; ls up/root up/home; cat up/etc/shadow; echo done")
        .await;
    assert_eq!(text(&out, "stdout"), "done\n", "{out}");
    w.assert_nothing_outside_changed();
}

#[tokio::test]
async fn a_fork_bomb_is_held_at_the_process_limit_and_cut_at_the_wall_time() {
    let w = World::new().await;
    let limits = SandboxLimits {
        wall_time: Duration::from_secs(3),
        processes: 64,
        ..SandboxLimits::default()
    };
    let out = w.run_with("f() { f | f & }; f; sleep 600", limits).await;
    assert_eq!(out["limit"], "wall_time", "{out}");
    assert_eq!(out["exit_code"], Value::Null);
    assert!(text(&out, "stderr").contains("Cannot fork"), "{out}");
    // The machine still forks, and the sandbox's next command runs.
    assert_eq!(w.run("echo alive").await["stdout"], "alive\n");
}

#[tokio::test]
async fn a_command_that_never_ends_is_cut_at_the_wall_time() {
    let w = World::new().await;
    let limits = SandboxLimits {
        wall_time: Duration::from_secs(1),
        ..SandboxLimits::default()
    };
    let out = w.run_with("echo started; sleep infinity", limits).await;
    assert_eq!(out["limit"], "wall_time");
    assert_eq!(out["exit_code"], Value::Null);
    assert_eq!(text(&out, "stdout"), "started\n");
}

#[tokio::test]
async fn a_gigabyte_of_output_is_cut_at_the_output_limit_and_clipped_for_the_model() {
    let w = World::new().await;
    let limits = SandboxLimits {
        output_bytes: 1 << 20,
        shown_bytes: 1000,
        ..SandboxLimits::default()
    };
    let out = w
        .run_with("head -c 1000000000 /dev/zero | tr '\\0' x", limits)
        .await;
    assert_eq!(out["limit"], "output", "{}", text(&out, "stderr"));
    let stdout = text(&out, "stdout");
    assert!(stdout.len() < 1100, "{} bytes shown", stdout.len());
    assert!(stdout.contains("bytes left out"));
}

#[tokio::test]
async fn a_cpu_hog_is_cut_at_the_cpu_limit() {
    let w = World::new().await;
    let limits = SandboxLimits {
        cpu_secs: 1,
        ..SandboxLimits::default()
    };
    let out = w.run_with("while :; do :; done", limits).await;
    assert_eq!(out["limit"], "cpu_time", "{out}");
}

#[tokio::test]
async fn a_big_file_is_cut_at_the_file_size_limit() {
    let w = World::new().await;
    let limits = SandboxLimits {
        file_bytes: 1 << 20,
        ..SandboxLimits::default()
    };
    let out = w.run_with("head -c 5000000 /dev/zero > big", limits).await;
    assert_eq!(out["limit"], "file_size", "{out}");
    let size = std::fs::metadata(w.copy.path().join("big")).unwrap().len();
    assert_eq!(size, 1 << 20);
}

#[tokio::test]
async fn a_setuid_binary_gains_no_privilege() {
    let w = World::new().await;
    let id = w.copy.path().join("setuid-id");
    std::fs::copy("/usr/bin/id", &id).unwrap();
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(&id, std::fs::Permissions::from_mode(0o4755)).unwrap();
    let out = w
        .run("./setuid-id -u; id -u; grep NoNewPrivs /proc/self/status")
        .await;
    let stdout = text(&out, "stdout");
    let lines: Vec<&str> = stdout.lines().collect();
    assert_eq!(lines.len(), 3, "{out}");
    assert_eq!(lines[0], lines[1], "the setuid bit changed the user: {out}");
    assert_ne!(lines[0], "0");
    assert_eq!(lines[2], "NoNewPrivs:\t1");
}

#[tokio::test]
async fn another_process_cannot_be_seen_signalled_or_traced() {
    let w = World::new().await;
    let mut victim = std::process::Command::new("sleep")
        .arg("600")
        .spawn()
        .unwrap();
    let pid = victim.id();
    let out = w
        .run(&format!(
            "kill -0 {pid} && echo SIGNALLED; ls /proc/{pid} > /dev/null && echo SEEN; \
             ls /proc | grep -c '^[0-9]'"
        ))
        .await;
    let stdout = text(&out, "stdout");
    assert!(
        !stdout.contains("SIGNALLED") && !stdout.contains("SEEN"),
        "{out}"
    );
    // Only the sandbox's own processes: bwrap's PID 1, sh, ls, grep.
    let seen: u32 = stdout.trim().parse().unwrap();
    assert!(seen <= 5, "{seen} processes visible");
    assert!(
        victim.try_wait().unwrap().is_none(),
        "the host's process died"
    );
    victim.kill().unwrap();
    victim.wait().unwrap();
}

#[tokio::test]
async fn a_process_left_running_is_killed_when_the_command_returns() {
    let w = World::new().await;
    // A unique argument to find it by among the host's processes.
    let marker = format!("7{}.25", std::process::id());
    let out = w
        .run(&format!(
            "sleep {marker} & setsid sleep {marker} & echo started"
        ))
        .await;
    assert_eq!(text(&out, "stdout"), "started\n");
    let left: Vec<String> = std::fs::read_dir("/proc")
        .unwrap()
        .filter_map(|e| std::fs::read(e.ok()?.path().join("cmdline")).ok())
        .map(|c| String::from_utf8_lossy(&c).replace('\0', " "))
        .filter(|c| c.contains(&marker))
        .collect();
    assert!(left.is_empty(), "still running: {left:?}");
}

#[tokio::test]
async fn a_command_that_deletes_the_copy_deletes_only_the_copy() {
    let w = World::new().await;
    let out = w
        .run("rm -rf /work/* /work/.[!.]* ; rm -rf /work; ls -A /work | wc -l")
        .await;
    assert_eq!(text(&out, "stdout").trim(), "0", "{out}");
    w.assert_nothing_outside_changed();
    // The next command still runs, in the emptied copy.
    assert_eq!(w.run("echo again > a; cat a").await["stdout"], "again\n");
}

#[tokio::test]
async fn no_sandbox_on_a_missing_folder_is_an_engine_error_with_its_code() {
    let w = World::new().await;
    let result = w
        .sandbox
        .run(
            &w.copy.path().join("missing"),
            &["true".to_string()],
            &[],
            &SandboxLimits::default(),
        )
        .await;
    assert_eq!(result.unwrap_err().code(), ErrorCode::SandboxFailed);
}

#[tokio::test]
async fn without_bubblewrap_there_is_no_sandbox_and_one_coded_refusal() {
    let empty = tempfile::tempdir().unwrap();
    let err = CommandSandbox::detect_in(&[empty.path()])
        .await
        .unwrap_err();
    assert_eq!(err.code(), ErrorCode::SandboxUnavailable);
    assert!(
        err.to_string()
            .starts_with("sandbox_unavailable: no sandbox: `bwrap` is not installed"),
        "{err}"
    );
}

/// `run_tests` runs the project's test command and nothing else: a command
/// the model sends is refused (the tool takes no arguments) and not run.
#[tokio::test]
async fn run_tests_runs_the_test_command_and_no_other() {
    let w = World::new().await;
    let command = ["sh", "-c", "cat keep.txt; echo ran > ran.txt; exit 4"].map(String::from);
    let tool = ShellTool::run_tests(
        w.sandbox.clone(),
        w.copy.path().to_path_buf(),
        Vec::new(),
        SandboxLimits::default(),
        command.to_vec(),
    );
    let toolbox = ToolBox::new().with(tool);
    let spec = toolbox.specs().into_iter().next().unwrap();
    assert_eq!(spec.name, tribunal_tools::shell::RUN_TESTS);
    assert!(
        spec.description
            .contains("(`sh -c cat keep.txt; echo ran > ran.txt; exit 4`)")
    );
    assert_eq!(spec.parameters["properties"], json!({}));
    let refused = crate::call(
        &toolbox,
        "run_tests",
        json!({"command": "echo pwned > pwned.txt"}),
    )
    .await;
    assert!(refused.is_error, "{}", refused.content);
    assert!(
        refused.content.contains("'command' was unexpected"),
        "{}",
        refused.content
    );
    assert!(!w.copy.path().join("ran.txt").exists());
    let result = crate::call(&toolbox, "run_tests", json!({})).await;
    assert!(!result.is_error, "{}", result.content);
    let out: Value = serde_json::from_str(&result.content).unwrap();
    assert_eq!(out["exit_code"], 4);
    assert_eq!(text(&out, "stdout"), "the item's file\n");
    assert!(w.copy.path().join("ran.txt").is_file());
    assert!(!w.copy.path().join("pwned.txt").exists());
    w.assert_nothing_outside_changed();
}
