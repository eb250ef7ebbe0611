//! What action.yml, gate.sh and the workflows must say for rules the test
//! cannot run, because the Actions runner applies them:
//!
//! - **`github.action_ref` in a composite action.** The runner's
//!   `ActionRunner.RunAsync` (actions/runner, src/Runner.Worker/ActionRunner.cs)
//!   sets `github.action_ref` and `github.action_repository` to the step's
//!   own action (`SetGitHubContext("action_ref", repoPathReferenceAction.Ref)`)
//!   *before* it evaluates the step's inputs (`EvaluateStepInputs`), so in a
//!   nested `uses: actions/cache@v4` the `with:` sees `v4`; and for a `run:`
//!   step it sets them to null before evaluating the script. Only a step's
//!   `env:` sees the composite action's own: `CompositeActionHandler.RunStepsAsync`
//!   (src/Runner.Worker/Handlers/CompositeActionHandler.cs) evaluates each
//!   embedded step's `env` (on a shallow copy of the composite's `github`
//!   context) before `step.RunAsync()`. GitHub's contexts reference says the
//!   same: "Do not use in the run keyword. To make this context work with
//!   composite actions, reference it within the env context of the
//!   composite action."
//! - **A re-run's upload.** actions/upload-artifact@v4 fails when the run
//!   already has an artifact of that name (a re-run of the job keeps its
//!   first attempt's) unless `overwrite: true` (its README, "Overwriting an
//!   Artifact").
//! - **A failed step.** Composite steps run under `success()` unless their
//!   `if:` says otherwise; the comment step says `always()`.
//! - **bash 3.2** (macOS runners' `/bin/bash`): no `mapfile`/`readarray`
//!   (bash 4.0), no associative arrays (4.0), no `${x,,}` (4.0), no `wait -n`
//!   (4.3), and before 4.4 `"${a[@]}"` of an empty array is an unbound
//!   variable under `set -u`.

use super::*;

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

fn yaml(rel: &str) -> Value {
    serde_norway::from_str(&std::fs::read_to_string(root().join(rel)).unwrap()).unwrap()
}

fn steps() -> Vec<Value> {
    yaml("action/action.yml")["runs"]["steps"]
        .as_array()
        .unwrap()
        .clone()
}

/// Every string under `v`, with the path of keys that leads to it.
fn strings(v: &Value, at: &str, out: &mut Vec<(String, String)>) {
    match v {
        Value::String(s) => out.push((at.to_string(), s.clone())),
        Value::Array(a) => a
            .iter()
            .enumerate()
            .for_each(|(i, x)| strings(x, &format!("{at}[{i}]"), out)),
        Value::Object(o) => o
            .iter()
            .for_each(|(k, x)| strings(x, &format!("{at}.{k}"), out)),
        _ => {}
    }
}

#[test]
fn the_actions_own_ref_is_read_only_in_a_run_steps_env() {
    let mut found = 0;
    for (i, step) in steps().iter().enumerate() {
        let mut all = Vec::new();
        strings(step, "", &mut all);
        for (at, text) in all {
            if !(text.contains("github.action_ref") || text.contains("github.action_repository")) {
                continue;
            }
            assert!(
                step.get("run").is_some() && at.starts_with(".env."),
                "step {i} reads the action's ref at {at}, where the runner has set it to another action's or to null: {text}"
            );
            found += 1;
        }
    }
    assert!(found >= 2, "setup reads the action's ref and repository");
    // The binary cache's key and path are setup's outputs (its version),
    // never an expression of github.action_ref.
    let cache = steps()
        .into_iter()
        .find(|s| s["id"] == "bin-cache")
        .unwrap();
    assert_eq!(cache["with"]["key"], "${{ steps.setup.outputs.bin-key }}");
    assert_eq!(cache["with"]["path"], "${{ steps.setup.outputs.bin-dir }}");
}

#[test]
fn the_baseline_upload_overwrites_and_the_comment_runs_always() {
    let steps = steps();
    let uploads: Vec<&Value> = steps
        .iter()
        .filter(|s| {
            s["uses"]
                .as_str()
                .is_some_and(|u| u.starts_with("actions/upload-artifact@"))
        })
        .collect();
    assert_eq!(uploads.len(), 2);
    for upload in uploads {
        assert_eq!(upload["with"]["overwrite"], true, "{upload}");
    }
    let comment = steps
        .iter()
        .find(|s| {
            s["run"]
                .as_str()
                .is_some_and(|r| r.ends_with("gate.sh\" comment"))
        })
        .unwrap();
    assert!(
        comment["if"].as_str().unwrap().starts_with("always() &&"),
        "{comment}"
    );
    // Every mode of kind gate runs the baseline and the comparison
    // (tests/it/action_gate/modes.rs runs each such mode's stages); the
    // verdict runs whatever the kind, and fails on one it does not know.
    for stage in ["run-baseline", "compare"] {
        let step = steps
            .iter()
            .find(|s| {
                s["run"]
                    .as_str()
                    .is_some_and(|r| r.ends_with(&format!("gate.sh\" {stage}")))
            })
            .unwrap();
        assert_eq!(step["if"], "steps.setup.outputs.kind == 'gate'", "{stage}");
    }
    let verdict = steps
        .iter()
        .find(|s| {
            s["run"]
                .as_str()
                .is_some_and(|r| r.ends_with("gate.sh\" verdict"))
        })
        .unwrap();
    assert_eq!(verdict["if"], "${{ !cancelled() }}");
    assert_eq!(
        verdict["env"]["TG_KIND_OUTPUT"],
        "${{ steps.setup.outputs.kind }}"
    );
    // Every working path is the use's own folder (setup's output).
    for step in &steps {
        let mut all = Vec::new();
        strings(step, "", &mut all);
        for (at, text) in all {
            assert!(!text.contains("tribunal-gate/"), "{at}: {text}");
        }
    }
}

/// The workflow `file` keeps one run per pull request (its concurrency
/// group names the pull request, else the ref) and cancels only a pull
/// request's older run.
fn one_run_per_pull_request(file: &str) -> Value {
    let workflow = yaml(file);
    let group = workflow["concurrency"]["group"].as_str().unwrap();
    assert!(
        group.contains("github.event.pull_request.number"),
        "{file}: {group}"
    );
    assert!(group.contains("github.ref"), "{file}: {group}");
    assert_eq!(
        workflow["concurrency"]["cancel-in-progress"], "${{ github.event_name == 'pull_request' }}",
        "{file}: only a pull request's older run is cancelled"
    );
    workflow
}

#[test]
fn the_template_keeps_one_run_per_pull_request_and_gates_the_merge_queue() {
    let deploy = one_run_per_pull_request("deploy/github-actions/tribunal-gate.yml");
    assert!(deploy["on"].get("merge_group").is_some());
}

#[test]
fn the_release_publishes_every_runners_archive_with_its_checksum_and_attestation() {
    let release = yaml(".github/workflows/release.yml");
    let targets: Vec<String> = release["jobs"]["build"]["strategy"]["matrix"]["include"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["target"].as_str().unwrap().to_string())
        .collect();
    for target in [
        "x86_64-unknown-linux-gnu",
        "aarch64-unknown-linux-gnu",
        "x86_64-apple-darwin",
        "aarch64-apple-darwin",
        "x86_64-pc-windows-msvc",
    ] {
        assert!(targets.iter().any(|t| t == target), "{target}: {targets:?}");
    }
    let build = &release["jobs"]["build"];
    assert_eq!(build["permissions"]["id-token"], "write");
    assert_eq!(build["permissions"]["attestations"], "write");
    let build_steps = build["steps"].as_array().unwrap();
    let attest = build_steps
        .iter()
        .find(|s| {
            s["uses"]
                .as_str()
                .is_some_and(|u| u.starts_with("actions/attest-build-provenance@"))
        })
        .expect("an attestation step");
    assert_eq!(attest["with"]["subject-path"], "dist/tribunal-*");
    let text = std::fs::read_to_string(root().join(".github/workflows/release.yml")).unwrap();
    assert!(text.contains(".sha256"));
}

#[test]
fn gate_sh_keeps_to_bash_3_2() {
    let script = std::fs::read_to_string(root().join("action/gate.sh")).unwrap();
    let code: Vec<&str> = script
        .lines()
        .filter(|l| !l.trim_start().starts_with('#'))
        .collect();
    for (n, line) in code.iter().enumerate() {
        for bash4 in [
            "mapfile",
            "readarray",
            "declare -A",
            "local -A",
            ",,}",
            "^^}",
            "wait -n",
            "&>>",
            "|&",
        ] {
            assert!(
                !line.contains(bash4),
                "line {n}: {bash4} needs bash 4: {line}"
            );
        }
        // "${a[@]}" only inside its own guard ${a[@]+"${a[@]}"}, but for
        // arrays that are never empty where expanded (named here).
        let mut rest = *line;
        while let Some(at) = rest.find("\"${") {
            let tail = &rest[at + 3..];
            let name: String = tail
                .chars()
                .take_while(|c| c.is_alphanumeric() || *c == '_')
                .collect();
            if tail[name.len()..].starts_with("[@]}\"") {
                let guard = format!("${{{name}[@]+\"${{{name}[@]}}\"}}");
                let never_empty = ["files", "where", "notes"].contains(&name.as_str());
                assert!(
                    line.contains(&guard) || never_empty,
                    "line {n}: \"${{{name}[@]}}\" unguarded: {line}"
                );
            }
            rest = &tail[name.len()..];
        }
    }
}

/// Every workflow and action file this repository ships, with its text.
fn shipped_yaml() -> Vec<(String, String)> {
    let mut files = vec!["action/action.yml".to_string()];
    for dir in [".github/workflows", "deploy/github-actions"] {
        let mut names: Vec<String> = std::fs::read_dir(root().join(dir))
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().to_string())
            .filter(|n| n.ends_with(".yml") || n.ends_with(".yaml"))
            .map(|n| format!("{dir}/{n}"))
            .collect();
        names.sort();
        files.extend(names);
    }
    files
        .into_iter()
        .map(|f| {
            let text = std::fs::read_to_string(root().join(&f)).unwrap();
            (f, text)
        })
        .collect()
}

/// Issue 59, row 5: every `uses:` of the action, the workflows and the
/// templates is pinned by a full commit SHA (a tag or branch can be moved
/// to other code; release.yml's toolchain step runs in the job that holds
/// `id-token: write`), with the tag it was read from in a comment; only
/// the repository's own `./action` is not.
#[test]
fn every_uses_is_pinned_by_a_full_commit_sha_with_its_tag() {
    let mut seen = 0;
    for (file, text) in shipped_yaml() {
        for (n, line) in text.lines().enumerate() {
            let Some(rest) = line
                .trim_start()
                .trim_start_matches("- ")
                .strip_prefix("uses:")
            else {
                continue;
            };
            let (target, comment) = rest.split_once('#').unwrap_or((rest, ""));
            let target = target.trim();
            seen += 1;
            if target.starts_with("./") {
                continue;
            }
            let (_, sha) = target
                .rsplit_once('@')
                .unwrap_or_else(|| panic!("{file}:{}: {line}", n + 1));
            assert!(
                sha.len() == 40
                    && sha
                        .chars()
                        .all(|c| c.is_ascii_hexdigit() && !c.is_ascii_uppercase()),
                "{file}:{}: not pinned by a full commit SHA: {line}",
                n + 1
            );
            assert!(
                !comment.trim().is_empty(),
                "{file}:{}: no tag in a comment: {line}",
                n + 1
            );
        }
    }
    assert!(seen >= 15, "{seen} uses: found");
}

/// Issue 59, row 12: the model's key reaches only the two steps that run a
/// model (the api-key input, never the `uses:` step's environment, which
/// every step — cargo's build scripts and the cached binary included —
/// would hold), and no checkout leaves the token in `.git/config`.
#[test]
fn the_key_goes_only_to_the_model_steps_and_no_checkout_keeps_the_token() {
    for (i, step) in steps().iter().enumerate() {
        let mut all = Vec::new();
        strings(step, "", &mut all);
        for (at, text) in all {
            for secret in ["OPENAI_API_KEY", "ANTHROPIC_API_KEY"] {
                assert!(!at.contains(secret), "step {i} sets {secret}");
            }
            if !text.contains("inputs.api-key") {
                continue;
            }
            let stage = step["run"].as_str().unwrap_or_default();
            let model_step =
                stage.ends_with("gate.sh\" run") || stage.ends_with("gate.sh\" run-baseline");
            assert!(
                (model_step && at == ".env.TG_API_KEY")
                    || (at == ".env.TG_API_KEY_SET" && text == "${{ inputs.api-key != '' }}"),
                "step {i} reads the key at {at}: {text}"
            );
        }
    }
    for (file, _) in shipped_yaml() {
        if file == "action/action.yml" {
            continue;
        }
        let workflow = yaml(&file);
        for job in workflow["jobs"].as_object().unwrap().values() {
            for step in job["steps"].as_array().unwrap() {
                let uses = step["uses"].as_str().unwrap_or_default();
                if uses.starts_with("actions/checkout@") {
                    assert_eq!(step["with"]["persist-credentials"], false, "{file}: {step}");
                }
                if uses.contains("tribunal/action@") {
                    assert!(
                        step.get("env").is_none(),
                        "{file}: the key in the step's env: {step}"
                    );
                    assert_eq!(
                        step["with"]["api-key"], "${{ secrets.OPENAI_API_KEY }}",
                        "{file}"
                    );
                }
            }
        }
    }
}

/// Issue 59, rows 4 and 13: release archives are built with the `dist`
/// profile (no debug info, stripped: 26 MB, not 143; BENCHMARKS.md
/// "Release binary"), their digests are printed for action/digests.txt,
/// and an asset already on a release is never replaced (`--clobber` once
/// let a re-run swap the archives a pinned action downloads).
#[test]
fn release_archives_use_the_dist_profile_and_are_never_replaced() {
    let cargo: toml::Table =
        toml::from_str(&std::fs::read_to_string(root().join("Cargo.toml")).unwrap()).unwrap();
    let dist = &cargo["profile"]["dist"];
    assert_eq!(dist["inherits"].as_str(), Some("release"));
    assert_eq!(dist["strip"].as_bool(), Some(true));
    assert_eq!(dist["debug"].as_bool(), Some(false));
    let release = yaml(".github/workflows/release.yml");
    let runs: Vec<String> = release["jobs"]
        .as_object()
        .unwrap()
        .values()
        .flat_map(|job| job["steps"].as_array().unwrap().clone())
        .filter_map(|s| s["run"].as_str().map(str::to_string))
        .collect();
    assert!(
        runs.iter()
            .any(|r| r.contains("cargo build --profile dist --locked --bin tribunal")),
        "{runs:?}"
    );
    assert!(
        runs.iter()
            .any(|r| r.contains("target/${TARGET}/dist/tribunal"))
    );
    assert!(runs.iter().any(|r| r.contains("gh release upload")));
    assert!(
        runs.iter().all(|r| !r.contains("--clobber")),
        "release.yml replaces assets: {runs:?}"
    );
    assert!(
        runs.iter()
            .any(|r| r.contains("bash action/pin-digests.sh --print"))
    );
}

/// Issue 59, "also found": this repository's own gate had no concurrency
/// group (an older push's run could overwrite a newer comment), and the
/// template said a baseline run is never cancelled, which GitHub's
/// concurrency does not promise (a newer queued run replaces a pending
/// one in the group).
#[test]
fn the_repositorys_gate_keeps_one_run_per_pull_request_and_says_what_a_group_does() {
    one_run_per_pull_request(".github/workflows/gate.yml");
    for file in [
        ".github/workflows/gate.yml",
        "deploy/github-actions/tribunal-gate.yml",
    ] {
        let text = std::fs::read_to_string(root().join(file)).unwrap();
        assert!(!text.contains("never cancelled"), "{file}");
        assert!(
            text.contains("pending"),
            "{file} says what happens to a pending run"
        );
    }
}
