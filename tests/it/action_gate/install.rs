//! Installing tribunal (`gate.sh install`, and the version `setup` picks):
//! the release of the action's own tag, or of the version in its
//! Cargo.toml when it is pinned by branch or commit; an archive is
//! installed only when its SHA-256 is the one the action pins in
//! `action/digests.txt` (written at release by `action/pin-digests.sh`),
//! its build attestation verifies (required: signed by release.yml at the
//! tag) and the binary says it is that version; only the archive is cached,
//! checked again on every restore, and its binary is called by path;
//! macOS and Windows runners get their own archives (`uname` is stood in
//! for).

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
    archive_of(dir, target, exe, &format!("#!/bin/sh\necho '{says}'\n"))
}

/// An archive under the release's name whose binary says the right
/// version but is not the release's (it also does something else).
fn forged_archive(dir: &Path, target: &str) -> (String, Vec<u8>) {
    archive_of(
        dir,
        target,
        "tribunal",
        "#!/bin/sh\n: forged, and it would read the job's secrets\necho 'tribunal 9.9.9'\n",
    )
}

/// [`release_archive`] of a binary that is `script`.
fn archive_of(dir: &Path, target: &str, exe: &str, script: &str) -> (String, Vec<u8>) {
    use std::os::unix::fs::PermissionsExt;
    let name = format!("tribunal-{TAG}-{target}");
    let folder = dir.join(&name);
    std::fs::create_dir_all(&folder).unwrap();
    let bin = folder.join(exe);
    std::fs::write(&bin, script).unwrap();
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

/// A release server holding `file` as `bytes` under acme/tribunal's tag,
/// and beside it a `.sha256` that names `/dev/null` (`sha256sum -c` checks
/// the file a line names, so the action before issue 59 passed any archive
/// with it: the release's own checksum proves nothing).
async fn releases(file: &str, bytes: &[u8]) -> MockServer {
    let server = tribunal_testkit::wire::own_server().await;
    let base = format!("/acme/tribunal/releases/download/{TAG}/{file}");
    Mock::given(method("GET"))
        .and(path(base.as_str()))
        .respond_with(ResponseTemplate::new(200).set_body_bytes(bytes.to_vec()))
        .mount(&server)
        .await;
    Mock::given(method("GET"))
        .and(path(format!("{base}.sha256")))
        .respond_with(
            ResponseTemplate::new(200).set_body_string(format!("{}  /dev/null\n", sha256(b""))),
        )
        .mount(&server)
        .await;
    server
}

/// An action folder whose `digests.txt` pins `pinned` (file name, bytes)
/// as a release does: the release's `SHA256SUMS` through
/// `action/pin-digests.sh`.
fn action_pinning(dir: &Path, pinned: &[(&str, &[u8])]) -> PathBuf {
    let action = dir.join("action");
    std::fs::create_dir_all(&action).unwrap();
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("action");
    for file in ["pin-digests.sh", "digests.txt"] {
        std::fs::copy(root.join(file), action.join(file)).unwrap();
    }
    if pinned.is_empty() {
        return action;
    }
    let sums: String = pinned
        .iter()
        .map(|(file, bytes)| format!("{}  {file}\n", sha256(bytes)))
        .collect();
    std::fs::write(dir.join("SHA256SUMS"), sums).unwrap();
    let out = std::process::Command::new("bash")
        .arg(action.join("pin-digests.sh"))
        .arg(TAG)
        .arg(dir.join("SHA256SUMS"))
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    action
}

/// What `gate.sh install` left: its exit code, its stderr, what it wrote to
/// GITHUB_ENV and to GITHUB_PATH.
struct Installed {
    code: Option<i32>,
    log: String,
    env: String,
    path: String,
}

impl Installed {
    /// The binary the later steps run (TRIBUNAL in GITHUB_ENV).
    fn binary(&self) -> Option<PathBuf> {
        github_env(&self.env)
            .into_iter()
            .find(|(k, _)| k == "TRIBUNAL")
            .map(|(_, v)| PathBuf::from(v))
    }
}

/// `gate.sh install` of TAG, its archive cached in `bin`, from `server`,
/// with the action folder `action` and `shims` first on PATH. The job's
/// environment holds a model key and the GitHub token, as a workflow that
/// sets them on the job gives every step.
async fn install(server: &MockServer, bin: &Path, action: &Path, shims: &Shims) -> Installed {
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("action/gate.sh");
    let env_file = bin.with_extension("env");
    let path_file = bin.with_extension("path");
    let temp = bin.with_extension("temp");
    std::fs::create_dir_all(&temp).unwrap();
    let out = tokio::process::Command::new("bash")
        .arg(&script)
        .arg("install")
        .env_clear()
        .env("PATH", shims.path())
        .env("TG_BIN_DIR", bin)
        .env("TG_VERSION", TAG)
        .env("TG_RELEASE_REPO", "acme/tribunal")
        .env("TG_ACTION_PATH", action)
        .env("TG_RUNNER_TEMP", &temp)
        .env("GITHUB_SERVER_URL", server.uri())
        .env("GITHUB_ENV", &env_file)
        .env("GITHUB_PATH", &path_file)
        .env("GH_TOKEN", GITHUB_TOKEN)
        .env("OPENAI_API_KEY", MODEL_KEY)
        // No fallback build here unless a test stands in for cargo.
        .env("TG_SOURCE", "/nonexistent")
        .output()
        .await
        .unwrap();
    Installed {
        code: out.status.code(),
        log: String::from_utf8_lossy(&out.stderr).to_string(),
        env: std::fs::read_to_string(env_file).unwrap_or_default(),
        path: std::fs::read_to_string(path_file).unwrap_or_default(),
    }
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

/// Issue 59, row 4: the archive's SHA-256 is checked against the digest
/// the action pins (never the release's own `.sha256`), and its build
/// attestation is required, signed by release.yml at the tag.
#[tokio::test]
async fn install_runs_only_the_archive_the_action_pins_and_requires_its_attestation() {
    let dir = tempfile::tempdir().unwrap();
    let (file, bytes) = release_archive(dir.path(), linux_target(), "tribunal", "tribunal 9.9.9");
    let action = action_pinning(dir.path(), &[(&file, &bytes)]);
    let digests = std::fs::read_to_string(action.join("digests.txt")).unwrap();
    assert!(
        digests.contains(&format!("{TAG} {} {}\n", linux_target(), sha256(&bytes))),
        "{digests}"
    );
    let gh_log = dir.path().join("gh.log");
    let shims = Shims::new();
    verifying_gh(&shims, &gh_log);

    let server = releases(&file, &bytes).await;
    let done = install(&server, &dir.path().join("bin-ok"), &action, &shims).await;
    assert_eq!(done.code, Some(0), "{}", done.log);
    assert!(
        done.log.contains("SHA-256 pinned by the action"),
        "{}",
        done.log
    );
    let gh = std::fs::read_to_string(&gh_log).unwrap();
    assert!(gh.starts_with("attestation verify "), "{gh}");
    assert!(
        gh.contains(&format!(
            "/{file} --repo acme/tribunal --signer-workflow acme/tribunal/.github/workflows/release.yml --source-ref refs/tags/{TAG}"
        )),
        "{gh}"
    );
    let binary = done.binary().expect("TRIBUNAL is set");
    let version = std::process::Command::new(&binary).output().unwrap();
    assert_eq!(String::from_utf8_lossy(&version.stdout), "tribunal 9.9.9\n");

    // Another archive whose binary says the right version, served with a
    // `.sha256` line that passes `sha256sum -c` (it names /dev/null):
    // refused, nothing installed.
    let other = tempfile::tempdir().unwrap();
    let (_, forged) = forged_archive(other.path(), linux_target());
    assert_ne!(forged, bytes);
    let server = releases(&file, &forged).await;
    let bin = dir.path().join("bin-tampered");
    let done = install(&server, &bin, &action, &shims).await;
    assert_eq!(done.code, Some(2), "{}", done.log);
    assert!(
        done.log.contains(&format!(
            "not the {} this action pins for it: refusing it",
            sha256(&bytes)
        )),
        "{}",
        done.log
    );
    assert_eq!(done.binary(), None, "{}", done.env);
    assert!(!bin.exists(), "a forged archive was cached");

    // An attestation gh does not verify: refused.
    let refusing = Shims::new();
    refusing.add("gh", "echo 'no attestations found' >&2; exit 1");
    let server = releases(&file, &bytes).await;
    let done = install(
        &server,
        &dir.path().join("bin-unattested"),
        &action,
        &refusing,
    )
    .await;
    assert_eq!(done.code, Some(2), "{}", done.log);
    assert!(done.log.contains("does not verify"), "{}", done.log);
    assert_eq!(done.binary(), None);

    // No gh on the runner (a container job, a self-hosted runner): the
    // attestation is required, never skipped.
    let done = install(
        &server,
        &dir.path().join("bin-no-gh"),
        &action,
        &Shims::new(),
    )
    .await;
    assert_eq!(done.code, Some(2), "{}", done.log);
    assert!(
        done.log.contains("gh is not on this runner"),
        "{}",
        done.log
    );
    assert_eq!(done.binary(), None);
}

/// Issue 59, row 3: what the cache restores is never trusted on its
/// `--version`. A planted binary (and a fake `git` beside it) in the cache
/// folder never runs and never goes on PATH; only the archive is cached,
/// checked against the pinned digest on every restore and unpacked to a
/// fresh folder; its binary is called by path.
#[tokio::test]
async fn a_planted_cache_is_never_run_and_nothing_goes_on_path() {
    use std::os::unix::fs::PermissionsExt;
    let dir = tempfile::tempdir().unwrap();
    let (file, bytes) = release_archive(dir.path(), linux_target(), "tribunal", "tribunal 9.9.9");
    let action = action_pinning(dir.path(), &[(&file, &bytes)]);
    let shims = Shims::new();
    verifying_gh(&shims, &dir.path().join("gh.log"));
    let server = releases(&file, &bytes).await;

    // Whatever wrote the cache in the default branch's scope left a binary
    // that prints the right version (and records that it ran, with its
    // environment), a fake git, and an archive of its own under the
    // archive's name.
    let bin = dir.path().join("bin");
    std::fs::create_dir_all(&bin).unwrap();
    let ran = dir.path().join("planted-ran");
    for name in ["tribunal", "git"] {
        let planted = bin.join(name);
        std::fs::write(
            &planted,
            format!(
                "#!/bin/sh\nenv >> '{}'\necho 'tribunal 9.9.9'\n",
                ran.display()
            ),
        )
        .unwrap();
        std::fs::set_permissions(&planted, std::fs::Permissions::from_mode(0o755)).unwrap();
    }
    let planted_dir = tempfile::tempdir().unwrap();
    let (_, planted_archive) = forged_archive(planted_dir.path(), linux_target());
    assert_ne!(planted_archive, bytes);
    std::fs::write(bin.join(&file), &planted_archive).unwrap();

    let done = install(&server, &bin, &action, &shims).await;
    assert_eq!(done.code, Some(0), "{}", done.log);
    assert!(
        done.log.contains(&format!(
            "the cached {file} does not match the digest this action pins: throwing it away"
        )),
        "{}",
        done.log
    );
    assert!(!ran.exists(), "the planted binary ran");
    assert_eq!(done.path, "", "nothing goes on PATH");
    let binary = done.binary().unwrap();
    assert!(
        !binary.starts_with(&bin),
        "the binary runs from a fresh folder, not the cache: {}",
        binary.display()
    );
    // The cache now holds the pinned archive, and a restore of it is
    // checked and used without a download.
    assert_eq!(std::fs::read(bin.join(&file)).unwrap(), bytes);
    let before = server.received_requests().await.unwrap().len();
    let done = install(&server, &bin, &action, &shims).await;
    assert_eq!(done.code, Some(0), "{}", done.log);
    assert!(
        done.log
            .contains("from the cache: its archive matches the digest this action pins"),
        "{}",
        done.log
    );
    assert_eq!(server.received_requests().await.unwrap().len(), before);
    assert!(!ran.exists(), "the planted binary ran");
}

/// Issue 59, rows 4 and 12: a version the action pins no digest for is
/// built from the action's source, and cargo (whose dependencies' build
/// scripts run) gets neither the model's key nor the GitHub token; nor
/// does the binary's `--version`.
#[tokio::test]
async fn an_unpinned_version_is_built_from_source_without_any_secret() {
    let dir = tempfile::tempdir().unwrap();
    let (file, bytes) = release_archive(dir.path(), linux_target(), "tribunal", "tribunal 9.9.9");
    // The release exists, but this action commit pins nothing for it.
    let server = releases(&file, &bytes).await;
    let action = action_pinning(dir.path(), &[]);
    let cargo_env = dir.path().join("cargo.env");
    let shims = Shims::new();
    verifying_gh(&shims, &dir.path().join("gh.log"));
    // cargo install --locked --root DIR …: leaves a binary that says the
    // version and records its own environment.
    shims.add(
        "cargo",
        &format!(
            "env >> '{log}'\nroot=$4\nmkdir -p \"$root/bin\"\nprintf '#!/bin/sh\\nenv >> {log}\\necho tribunal 9.9.9\\n' > \"$root/bin/tribunal\"\nchmod +x \"$root/bin/tribunal\"",
            log = cargo_env.display()
        ),
    );
    let done = install(&server, &dir.path().join("bin"), &action, &shims).await;
    assert_eq!(done.code, Some(0), "{}", done.log);
    assert!(
        done.log.contains("pins no digest of tribunal v9.9.9"),
        "{}",
        done.log
    );
    assert!(
        server.received_requests().await.unwrap().is_empty(),
        "nothing downloaded"
    );
    let seen = std::fs::read_to_string(&cargo_env).unwrap();
    assert!(seen.contains("PATH="), "{seen}");
    for secret in [MODEL_KEY, GITHUB_TOKEN] {
        assert!(
            !seen.contains(secret),
            "a secret reached cargo or the binary: {seen}"
        );
    }
    assert!(done.binary().is_some());
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
        let action = action_pinning(dir.path(), &[(&file, &bytes)]);
        let server = releases(&file, &bytes).await;
        let done = install(&server, &dir.path().join("bin"), &action, &shims).await;
        assert_eq!(done.code, Some(0), "{os} {arch}: {}", done.log);
        assert!(
            done.log.contains(&format!(
                "installed the release binary tribunal-{TAG}-{target}"
            )),
            "{}",
            done.log
        );
        let binary = done.binary().unwrap();
        assert!(
            binary.ends_with(format!("tribunal-{TAG}-{target}/{exe}")),
            "{os}: {}",
            binary.display()
        );
        assert!(binary.exists(), "{os}: {exe}");
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
            Some(format!("tribunal-archive-Linux-X64-{version}")),
            "{why}"
        );
        assert!(job.env["TG_BIN_DIR"].ends_with(&format!("tribunal-archive-{version}")));
    }
}
