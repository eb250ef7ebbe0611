//! Toolchains in the sandbox: Java (in `/usr`, its configuration in
//! `/etc/java-*`) for every sandbox, and this machine's Rust toolchain
//! (rustup's, in the home) only when asked, read-only and alone: nothing
//! else of the home, no `~/.cargo`, no rustup variables.
//!
//! They need bubblewrap, a JDK (javac) and rustc, as `.ci/run`'s machine
//! has; without one they fail saying which.

use std::path::Path;

use tribunal_tools::shell::{CommandSandbox, Engine, SandboxLimits, Toolchain, WorkingFolder};

async fn bubblewrap() -> CommandSandbox {
    match CommandSandbox::detect().await {
        Ok(s) => s,
        Err(e) => panic!("{e}\n(install bubblewrap: `apt-get install bubblewrap`)"),
    }
}

/// `line` run by `sh -c` in `sandbox` over a copy of `files` (name,
/// text): exit code, stdout, stderr.
async fn run(
    sandbox: &CommandSandbox,
    files: &[(&str, &str)],
    line: &str,
) -> (i32, String, String) {
    let dir = tempfile::tempdir().unwrap();
    for (name, text) in files {
        std::fs::write(dir.path().join(name), text).unwrap();
    }
    let copy = WorkingFolder::copy_of(dir.path(), &std::env::temp_dir(), "toolchain").unwrap();
    sandbox.prepare(copy.path()).unwrap();
    let argv = ["sh", "-c", line].map(String::from);
    let limits = SandboxLimits {
        wall_time: std::time::Duration::from_secs(120),
        ..SandboxLimits::default()
    };
    let ran = sandbox.run(copy.path(), &argv, &[], &limits).await.unwrap();
    (
        ran.exit_code.unwrap_or(-1),
        String::from_utf8_lossy(&ran.stdout).into_owned(),
        String::from_utf8_lossy(&ran.stderr).into_owned(),
    )
}

const JAVA_TEST: &str = "public class Check {\n  public static void main(String[] a) {\n    \
     if (!\"ab\".equals(\"a\" + \"b\")) throw new AssertionError(\"concat\");\n    \
     System.out.println(\"java ok\");\n  }\n}\n";

/// javac and java run in every bubblewrap sandbox: the JVM reads its
/// `java.security` in `/etc/java-*`, shown read-only (without it: "Error
/// loading java.security file").
#[tokio::test]
async fn java_compiles_and_runs_in_the_sandbox() {
    assert!(
        Path::new("/usr/bin/javac").exists(),
        "no JDK: `apt-get install openjdk-17-jdk-headless`"
    );
    let sandbox = bubblewrap().await;
    let (code, out, err) = run(
        &sandbox,
        &[("Check.java", JAVA_TEST)],
        "javac -d /tmp/classes Check.java && java -cp /tmp/classes Check \
         && touch /etc/java-17-openjdk/x 2>/dev/null; echo touched=$?",
    )
    .await;
    assert_eq!((code, out.as_str()), (0, "java ok\ntouched=1\n"), "{err}");
}

const RUST_TEST: &str = "pub fn add(a: u32, b: u32) -> u32 { a + b }\n\
    #[cfg(test)]\nmod tests {\n    #[test]\n    fn adds() { assert_eq!(super::add(2, 2), 4); }\n}\n";

/// Asked for, Rust's toolchain is there: `rustc --test` builds a test
/// binary that runs; `rustc` reports its sysroot at
/// `/opt/toolchains/rust`, which holds only `bin`, `lib`, `libexec`,
/// read-only. Nothing else of the home is: not the host's home folder,
/// `~/.cargo` (credentials, registry), `~/.rustup` (settings, other
/// toolchains), and no `RUSTUP_`/`CARGO_` variable.
#[tokio::test]
async fn the_rust_toolchain_is_shown_read_only_and_nothing_else_of_the_home() {
    let sandbox = bubblewrap().await;
    // Without asking: no rustc.
    let (_, out, _) = run(&sandbox, &[], "command -v rustc || echo none").await;
    assert_eq!(out, "none\n");
    let sandbox = match sandbox.with_toolchains(&[Toolchain::Rust]) {
        Ok(s) => s,
        Err(e) => panic!("{e}\n(install Rust: rustup.rs)"),
    };
    assert!(
        sandbox.describe().contains("/opt/toolchains/rust/bin"),
        "{}",
        sandbox.describe()
    );
    let (code, out, err) = run(
        &sandbox,
        &[("lib.rs", RUST_TEST)],
        "rustc --edition 2021 --test -o /tmp/t lib.rs && /tmp/t -q 2>&1 | grep -c 'test result: ok'; \
         command -v rustc; rustc --print sysroot; ls /opt/toolchains; ls /opt/toolchains/rust",
    )
    .await;
    assert_eq!(
        (code, out.as_str()),
        (
            0,
            "1\n/opt/toolchains/rust/bin/rustc\n/opt/toolchains/rust\nrust\nbin\nlib\nlibexec\n"
        ),
        "{err}"
    );
    let home = std::env::var("HOME").unwrap_or_else(|_| "/root".to_string());
    let line = format!(
        "ls -d {home} {home}/.cargo {home}/.rustup {home}/.ssh {home}/.cargo/credentials* 2>&1 | wc -l; \
         ls -d {home} {home}/.cargo {home}/.rustup 2>/dev/null | wc -l; \
         env | grep -c -E '^(RUSTUP|CARGO)'; \
         touch /opt/toolchains/rust/bin/rustc 2>/dev/null; echo touched=$?; \
         rm -f /opt/toolchains/rust/lib/rustlib/components 2>/dev/null; echo removed=$?"
    );
    let (_, out, err) = run(&sandbox, &[], &line).await;
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(
        lines[1..],
        ["0", "0", "touched=1", "removed=1"],
        "{out}{err}"
    );
    assert!(lines[0].parse::<u32>().unwrap() >= 4, "{out}");
    // The toolchain itself is unchanged.
    let rustc = std::process::Command::new("rustc")
        .arg("--version")
        .output()
        .unwrap();
    assert!(rustc.status.success());
}

/// No toolchain asked: the sandbox as it was. Without a sandbox
/// (`none-trusted-container`) the toolchain's `bin` comes first on
/// `PATH`. (A container engine refuses: its unit tests.)
#[tokio::test]
async fn no_toolchain_changes_nothing_and_without_a_sandbox_the_toolchain_is_on_path() {
    let sandbox = bubblewrap().await;
    let before = sandbox.describe();
    let same = sandbox.with_toolchains(&[]).unwrap();
    assert_eq!(same.describe(), before);
    assert_eq!(same.engine(), Engine::Bubblewrap);
    let Ok(trusted) = CommandSandbox::trusted_container() else {
        panic!("prlimit is missing");
    };
    // Without a sandbox the host's rustc comes first on PATH.
    let trusted = trusted.with_toolchains(&[Toolchain::Rust]).unwrap();
    let (code, out, _) = run(&trusted, &[], "rustc --version").await;
    assert_eq!((code, out.starts_with("rustc ")), (0, true), "{out}");
}
