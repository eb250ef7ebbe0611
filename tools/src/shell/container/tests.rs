//! The container engine without a daemon: its command line (a snapshot),
//! the refusals when the client or its daemon is missing (fake clients),
//! and a run through a fake client that echoes what it was given.

use super::*;
use crate::shell::CommandSandbox;

fn argv(line: &str) -> Vec<String> {
    vec!["sh".to_string(), "-c".to_string(), line.to_string()]
}

/// A fake client `name` in `dir`: the shell script `body`, run once before
/// it is handed over. A test thread that forks while the script's file is
/// still open for writing gives its child that descriptor until the
/// child's exec, and running the script then fails "Text file busy"
/// (ETXTBSY: seen once in CI); once one run starts, nothing can hold it
/// open for writing any more, since our own descriptor is closed.
#[cfg(unix)]
fn fake_client(dir: &Path, name: &str, body: &str) {
    use std::os::unix::fs::PermissionsExt;
    let path = dir.join(name);
    std::fs::write(&path, format!("#!/bin/sh\n{body}")).unwrap();
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).unwrap();
    for _ in 0..200 {
        match std::process::Command::new(&path).output() {
            Err(e) if e.kind() == std::io::ErrorKind::ExecutableFileBusy => {
                std::thread::sleep(std::time::Duration::from_millis(10));
            }
            Err(e) => panic!("the fake client {} does not run: {e}", path.display()),
            Ok(_) => return,
        }
    }
    panic!("the fake client {} stayed busy", path.display());
}

#[test]
fn the_run_command_line_isolates_the_container_and_sets_every_limit() {
    let limits = SandboxLimits {
        processes: 64,
        memory_bytes: 512 << 20,
        ..SandboxLimits::default()
    };
    let env = [("LANG".to_string(), "C.UTF-8".to_string())];
    let args = run_args(
        ("python:3.12-slim", "tribunal-7-0", (NOBODY, NOBODY)),
        Path::new("/tmp/tribunal-run-0-3"),
        &argv("python3 -m unittest"),
        &env,
        &limits,
    );
    let _snapshots = tribunal_testkit::bind_snapshots("tools");
    insta::assert_snapshot!(args.join("\n"));
}

#[tokio::test]
async fn a_missing_client_is_one_coded_refusal() {
    let dir = tempfile::tempdir().unwrap();
    let e = Container::detect(Engine::Docker, "python:3.12-slim", &[dir.path()])
        .await
        .unwrap_err();
    assert_eq!(e.code, ErrorCode::SandboxUnavailable);
    assert_eq!(
        e.message,
        format!(
            "no sandbox: `docker` is not installed (looked in {}); install it, or use engine = \"bubblewrap\" (docs/sandbox.md)",
            dir.path().display()
        )
    );
    let e = Container::detect(Engine::Podman, " ", &[dir.path()])
        .await
        .unwrap_err();
    assert_eq!(
        e.message,
        "no sandbox: a container engine needs an image ([sandbox] image)"
    );
}

#[cfg(unix)]
#[tokio::test]
async fn a_daemon_that_does_not_answer_is_one_coded_refusal() {
    let dir = tempfile::tempdir().unwrap();
    fake_client(
        dir.path(),
        "docker",
        "echo 'Cannot connect to the Docker daemon at unix:///var/run/docker.sock. Is the docker daemon running?' >&2\nexit 1\n",
    );
    let e = CommandSandbox::container_in(Engine::Docker, "alpine:3", &[dir.path()])
        .await
        .unwrap_err();
    assert_eq!(e.code, ErrorCode::SandboxUnavailable);
    assert_eq!(
        e.message,
        "no sandbox: the docker daemon is not reachable (`docker version` exited 1): Cannot connect to the Docker daemon at unix:///var/run/docker.sock. Is the docker daemon running?"
    );
}

/// A container's commands have its image's toolchains: showing this
/// machine's is one coded refusal, before any command runs.
#[cfg(unix)]
#[tokio::test]
async fn a_container_refuses_to_show_this_machines_toolchains() {
    let dir = tempfile::tempdir().unwrap();
    fake_client(dir.path(), "docker", "exit 0\n");
    let sandbox = CommandSandbox::container_in(Engine::Docker, "alpine:3", &[dir.path()])
        .await
        .unwrap();
    let e = sandbox
        .with_toolchains(&[crate::shell::Toolchain::Rust])
        .unwrap_err();
    assert_eq!(e.code, ErrorCode::SandboxUnavailable);
    assert_eq!(
        e.message,
        "engine \"docker\" cannot show this machine's toolchains: its commands have the image's; drop `toolchains` or pick an image that has them"
    );
}

/// Through [`CommandSandbox::run`], as `run_command` calls it: the client
/// gets the run's line, and a run cut at a limit is stopped by its name.
#[cfg(unix)]
#[tokio::test]
async fn a_run_goes_through_the_client_and_a_cut_run_is_stopped_by_name() {
    let dir = tempfile::tempdir().unwrap();
    let log = dir.path().join("log");
    fake_client(
        dir.path(),
        "podman",
        &format!(
            "case \"$1\" in\n  version) exit 0;;\n  kill) echo \"kill $2\" >> {log};;\n  *) for a in \"$@\"; do case \"$a\" in sleep*) sleep 30;; esac; done; echo \"$@\";;\nesac\n",
            log = log.display()
        ),
    );
    let sandbox = CommandSandbox::container_in(Engine::Podman, "alpine:3", &[dir.path()])
        .await
        .unwrap();
    assert_eq!(sandbox.engine(), Engine::Podman);
    assert!(
        sandbox.describe().starts_with("podman ("),
        "{}",
        sandbox.describe()
    );
    let work = tempfile::tempdir().unwrap();
    let ran = sandbox
        .run(
            work.path(),
            &argv("echo hi"),
            &[],
            &SandboxLimits::default(),
        )
        .await
        .unwrap();
    let line = String::from_utf8_lossy(&ran.stdout).into_owned();
    assert!(
        line.starts_with("run --rm --interactive=false --name tribunal-"),
        "{line}"
    );
    assert!(line.ends_with(" alpine:3 sh -c echo hi\n"), "{line}");
    let limits = SandboxLimits {
        wall_time: Duration::from_millis(300),
        ..SandboxLimits::default()
    };
    let ran = sandbox
        .run(work.path(), &argv("sleep 30"), &[], &limits)
        .await
        .unwrap();
    assert_eq!(ran.limit, Some(crate::shell::LimitHit::WallTime));
    let stopped = std::fs::read_to_string(&log).unwrap();
    assert!(stopped.starts_with("kill tribunal-"), "{stopped}");
}
