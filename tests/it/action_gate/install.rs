//! Installing tribunal (`gate.sh install`, and the version `setup` picks):
//! the release of the action's own tag, or of the version in its
//! Cargo.toml when it is pinned by branch or commit; an archive is
//! installed only when its SHA-256 matches, its build attestation verifies
//! (when `gh` is on the runner) and the binary says it is that version; a
//! cached binary of another version is replaced; macOS and Windows runners
//! get their own archives (`uname` is stood in for).

use super::*;

const TAG: &str = "v9.9.9";

/// A folder of stand-in commands put first on PATH.
struct Shims(tempfile::TempDir);

impl Shims {
    fn new() -> Shims {
        Shims(tempfile::tempdir().unwrap())
    }

    /// `name` runs `script` (sh).
    fn add(&self, name: &str, script: &str) -> &Shims {
        use std::os::unix::fs::PermissionsExt;
        let file = self.0.path().join(name);
        std::fs::write(&file, format!("#!/bin/sh\n{script}\n")).unwrap();
        std::fs::set_permissions(&file, std::fs::Permissions::from_mode(0o755)).unwrap();
        self
    }

    fn path(&self) -> String {
        format!(
            "{}:{}",
            self.0.path().display(),
            std::env::var("PATH").unwrap_or_default()
        )
    }
}

/// The archive of `target` as the release workflow packs it:
/// `tribunal-<tag>-<target>/<exe>` (a script saying `says`) in a `.tar.gz`,
/// or a `.zip` for Windows. Its file name and bytes.
fn release_archive(dir: &Path, target: &str, exe: &str, says: &str) -> (String, Vec<u8>) {
    use std::os::unix::fs::PermissionsExt;
    let name = format!("tribunal-{TAG}-{target}");
    let folder = dir.join(&name);
    std::fs::create_dir_all(&folder).unwrap();
    let bin = folder.join(exe);
    std::fs::write(&bin, format!("#!/bin/sh\necho '{says}'\n")).unwrap();
    std::fs::set_permissions(&bin, std::fs::Permissions::from_mode(0o755)).unwrap();
    let zip = exe.ends_with(".exe");
    let file = format!("{name}.{}", if zip { "zip" } else { "tar.gz" });
    let status = if zip {
        std::process::Command::new("zip")
            .args(["-q", "-r", &file, &name])
            .current_dir(dir)
            .status()
    } else {
        std::process::Command::new("tar")
            .arg("-C")
            .arg(dir)
            .arg("-czf")
            .arg(dir.join(&file))
            .arg(&name)
            .status()
    };
    assert!(status.unwrap().success());
    std::fs::remove_dir_all(&folder).unwrap();
    let bytes = std::fs::read(dir.join(&file)).unwrap();
    (file, bytes)
}

/// The SHA-256 of `bytes` in hex (`sha256sum`, as the release workflow
/// makes it).
fn sha256(bytes: &[u8]) -> String {
    use std::io::Write;
    let mut child = std::process::Command::new("sha256sum")
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    child.stdin.take().unwrap().write_all(bytes).unwrap();
    let out = child.wait_with_output().unwrap();
    let hex = String::from_utf8_lossy(&out.stdout)
        .split_whitespace()
        .next()
        .unwrap()
        .to_string();
    assert_eq!(hex.len(), 64);
    hex
}

/// A release server holding `file` (and its `.sha256`, `checksum` or the
/// right one) under acme/tribunal's tag.
async fn releases(file: &str, bytes: &[u8], checksum: Option<&str>) -> MockServer {
    let server = tribunal_testkit::wire::own_server().await;
    let base = format!("/acme/tribunal/releases/download/{TAG}/{file}");
    Mock::given(method("GET"))
        .and(path(base.as_str()))
        .respond_with(ResponseTemplate::new(200).set_body_bytes(bytes.to_vec()))
        .mount(&server)
        .await;
    let sum = checksum.map_or_else(|| sha256(bytes), str::to_string);
    Mock::given(method("GET"))
        .and(path(format!("{base}.sha256")))
        .respond_with(ResponseTemplate::new(200).set_body_string(format!("{sum}  {file}\n")))
        .mount(&server)
        .await;
    server
}

/// `gate.sh install` of TAG into `bin` from `server`, with `shims` first on
/// PATH. Exit code, stderr, and what it wrote to GITHUB_ENV.
async fn install(server: &MockServer, bin: &Path, shims: &Shims) -> (Option<i32>, String, String) {
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("action/gate.sh");
    let env_file = bin.with_extension("env");
    let out = tokio::process::Command::new("bash")
        .arg(&script)
        .arg("install")
        .env_clear()
        .env("PATH", shims.path())
        .env("TG_BIN_DIR", bin)
        .env("TG_VERSION", TAG)
        .env("TG_RELEASE_REPO", "acme/tribunal")
        .env("GITHUB_SERVER_URL", server.uri())
        .env("GITHUB_ENV", &env_file)
        // No fallback build in these tests: a missing cargo fails loudly.
        .env("TG_SOURCE", "/nonexistent")
        .output()
        .await
        .unwrap();
    (
        out.status.code(),
        String::from_utf8_lossy(&out.stderr).to_string(),
        std::fs::read_to_string(env_file).unwrap_or_default(),
    )
}

fn linux_target() -> &'static str {
    match std::env::consts::ARCH {
        "aarch64" => "aarch64-unknown-linux-gnu",
        _ => "x86_64-unknown-linux-gnu",
    }
}

/// A `gh` that says the attestation verifies, noting its arguments.
fn verifying_gh(shims: &Shims, log: &Path) {
    shims.add("gh", &format!("echo \"$@\" >> '{}'; exit 0", log.display()));
}

#[tokio::test]
async fn install_checks_the_checksum_and_the_attestation_before_it_installs() {
    let dir = tempfile::tempdir().unwrap();
    let (file, bytes) = release_archive(dir.path(), linux_target(), "tribunal", "tribunal 9.9.9");
    let gh_log = dir.path().join("gh.log");

    // Matching checksum, attestation verified by gh.
    let shims = Shims::new();
    verifying_gh(&shims, &gh_log);
    let server = releases(&file, &bytes, None).await;
    let bin = dir.path().join("bin-ok");
    let (code, log, env) = install(&server, &bin, &shims).await;
    assert_eq!(code, Some(0), "{log}");
    assert!(log.contains("SHA-256 checked"), "{log}");
    assert!(log.contains("build attestation"), "{log}");
    let gh = std::fs::read_to_string(&gh_log).unwrap();
    assert!(gh.starts_with("attestation verify "), "{gh}");
    assert!(
        gh.contains(&format!("/{file} --repo acme/tribunal")),
        "{gh}"
    );
    assert!(
        env.contains(&format!("{}\n", bin.join("tribunal").display())),
        "{env}"
    );
    let version = std::process::Command::new(bin.join("tribunal"))
        .output()
        .unwrap();
    assert_eq!(String::from_utf8_lossy(&version.stdout), "tribunal 9.9.9\n");

    // A checksum that does not match: refused, nothing installed.
    let server = releases(&file, &bytes, Some(&"0".repeat(64))).await;
    let bin = dir.path().join("bin-tampered");
    let (code, log, _) = install(&server, &bin, &shims).await;
    assert_eq!(code, Some(2), "{log}");
    assert!(log.contains("does not match"), "{log}");
    assert!(
        !bin.join("tribunal").exists(),
        "a tampered binary was installed"
    );

    // An attestation gh does not verify: refused, nothing installed.
    let refusing = Shims::new();
    refusing.add("gh", "echo 'no attestations found' >&2; exit 1");
    let server = releases(&file, &bytes, None).await;
    let bin = dir.path().join("bin-unattested");
    let (code, log, _) = install(&server, &bin, &refusing).await;
    assert_eq!(code, Some(2), "{log}");
    assert!(log.contains("build attestation of"), "{log}");
    assert!(log.contains("does not verify"), "{log}");
    assert!(!bin.join("tribunal").exists());
}

#[tokio::test]
async fn a_cached_binary_of_another_version_is_replaced_and_a_mislabelled_one_refused() {
    use std::os::unix::fs::PermissionsExt;
    let dir = tempfile::tempdir().unwrap();
    let shims = Shims::new();
    verifying_gh(&shims, &dir.path().join("gh.log"));
    let (file, bytes) = release_archive(dir.path(), linux_target(), "tribunal", "tribunal 9.9.9");
    let server = releases(&file, &bytes, None).await;
    // The cache restored last release's binary under this key.
    let bin = dir.path().join("bin");
    std::fs::create_dir_all(&bin).unwrap();
    std::fs::write(bin.join("tribunal"), "#!/bin/sh\necho 'tribunal 9.9.8'\n").unwrap();
    std::fs::set_permissions(bin.join("tribunal"), std::fs::Permissions::from_mode(0o755)).unwrap();
    let (code, log, _) = install(&server, &bin, &shims).await;
    assert_eq!(code, Some(0), "{log}");
    assert!(
        log.contains("the cached binary says 'tribunal 9.9.8', not tribunal 9.9.9: replacing it"),
        "{log}"
    );
    let version = std::process::Command::new(bin.join("tribunal"))
        .output()
        .unwrap();
    assert_eq!(String::from_utf8_lossy(&version.stdout), "tribunal 9.9.9\n");
    // The right version is taken from the cache without a download.
    let before = server.received_requests().await.unwrap().len();
    let (code, log, _) = install(&server, &bin, &shims).await;
    assert_eq!(code, Some(0), "{log}");
    assert!(
        log.contains("tribunal from the cache: tribunal 9.9.9"),
        "{log}"
    );
    assert_eq!(server.received_requests().await.unwrap().len(), before);

    // A release archive whose binary is another version is never run.
    let other = tempfile::tempdir().unwrap();
    let (file, bytes) = release_archive(other.path(), linux_target(), "tribunal", "tribunal 0.0.1");
    let server = releases(&file, &bytes, None).await;
    let fresh = dir.path().join("fresh");
    let (code, log, _) = install(&server, &fresh, &shims).await;
    assert_eq!(code, Some(2), "{log}");
    assert!(
        log.contains("holds 'tribunal 0.0.1', not tribunal 9.9.9"),
        "{log}"
    );
    assert!(!fresh.join("tribunal").exists());
}

#[tokio::test]
async fn macos_and_windows_runners_get_their_own_archives() {
    for (os, arch, target, exe) in [
        ("Darwin", "arm64", "aarch64-apple-darwin", "tribunal"),
        ("Darwin", "x86_64", "x86_64-apple-darwin", "tribunal"),
        (
            "MINGW64_NT-10.0-20348",
            "x86_64",
            "x86_64-pc-windows-msvc",
            "tribunal.exe",
        ),
    ] {
        let dir = tempfile::tempdir().unwrap();
        let shims = Shims::new();
        verifying_gh(&shims, &dir.path().join("gh.log"));
        shims.add(
            "uname",
            &format!(
                "case \"$1\" in -s) echo '{os}' ;; -m) echo '{arch}' ;; *) echo '{os}' ;; esac"
            ),
        );
        let (file, bytes) = release_archive(dir.path(), target, exe, "tribunal 9.9.9");
        let server = releases(&file, &bytes, None).await;
        let bin = dir.path().join("bin");
        let (code, log, env) = install(&server, &bin, &shims).await;
        assert_eq!(code, Some(0), "{os} {arch}: {log}");
        assert!(
            log.contains(&format!(
                "installed the release binary tribunal-{TAG}-{target}"
            )),
            "{log}"
        );
        assert!(bin.join(exe).exists(), "{os}: {exe}");
        assert!(
            env.contains(&format!("{}\n", bin.join(exe).display())),
            "{env}"
        );
    }
}

/// `gate.sh setup` of a pull request with `extra`; its outputs.
async fn setup_outputs(extra: &[(&str, &str)]) -> (Job, Option<i32>, String) {
    let comments = Comments::default();
    let server = github(&comments).await;
    let mut job = Job::new(&server, "arenas/structured_output", extra);
    job.set("TG_RUNNER_OS", "Linux");
    job.set("TG_RUNNER_ARCH", "X64");
    let (code, log) = job.stage("setup").await;
    (job, code, log)
}

#[tokio::test]
async fn setup_picks_the_release_of_the_actions_tag_or_of_its_cargo_version() {
    let action = Path::new(env!("CARGO_MANIFEST_DIR")).join("action");
    let action = action.to_str().unwrap();
    let cargo = format!(
        "v{}",
        env!("CARGO_PKG_VERSION") // the workspace's version: the root package inherits it
    );
    for (why, extra, version) in [
        (
            "a release tag",
            vec![
                ("TG_ACTION_REF", "v0.3.1"),
                ("TG_ACTION_REPOSITORY", "acme/tribunal"),
            ],
            "v0.3.1".to_string(),
        ),
        (
            "a branch: its Cargo.toml's version",
            vec![
                ("TG_ACTION_REF", "main"),
                ("TG_ACTION_REPOSITORY", "acme/tribunal"),
            ],
            cargo.clone(),
        ),
        (
            "a commit: its Cargo.toml's version",
            vec![
                ("TG_ACTION_REF", "8f3c2a1d9e0b4c5f6a7b8c9d0e1f2a3b4c5d6e7f"),
                ("TG_ACTION_REPOSITORY", "acme/tribunal"),
            ],
            cargo.clone(),
        ),
        (
            "the version input",
            vec![
                ("TG_ACTION_REF", "main"),
                ("TG_ACTION_REPOSITORY", "acme/tribunal"),
                ("TG_VERSION_INPUT", "v0.2.0"),
            ],
            "v0.2.0".to_string(),
        ),
        ("a local action: its source", vec![], "source".to_string()),
    ] {
        let mut extra = extra;
        extra.push(("TG_ACTION_PATH", action));
        let (job, code, log) = setup_outputs(&extra).await;
        assert_eq!(code, Some(0), "{why}: {log}");
        assert_eq!(
            job.output("version").as_deref(),
            Some(version.as_str()),
            "{why}"
        );
        // The binary's cache key carries the version, whatever the
        // cache action's own ref is.
        assert_eq!(
            job.output("bin-key"),
            Some(format!("tribunal-bin-Linux-X64-{version}")),
            "{why}"
        );
        assert!(job.env["TG_BIN_DIR"].ends_with(&format!("tribunal-bin-{version}")));
    }
}
