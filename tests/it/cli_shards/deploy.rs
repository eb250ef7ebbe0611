//! The `deploy/` manifests parse, and say what the README says they do: a
//! GitHub Actions matrix of N shards whose results a merge job (which
//! `needs` them) merges into an HTML report; a Kubernetes Indexed Job of N
//! completions whose pods run `--shards N`. Keys only from secrets.

use serde::Deserialize;
use serde_json::Value;
use std::path::{Path, PathBuf};
use tribunal::judge::Shard;
use tribunal::judge::internal::run::shard_env::{ShardFlags, resolve_shard};

fn deploy(file: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("deploy")
        .join(file)
}

/// Every YAML document of `path`, as JSON values.
fn documents(path: &Path) -> Vec<Value> {
    let text = std::fs::read_to_string(path).unwrap();
    serde_norway::Deserializer::from_str(&text)
        .map(|doc| Value::deserialize(doc).unwrap_or_else(|e| panic!("{}: {e}", path.display())))
        .collect()
}

fn steps(job: &Value) -> &[Value] {
    job["steps"].as_array().expect("a job with steps")
}

/// The steps of `job` that use the action `name` (any version).
fn uses<'a>(job: &'a Value, name: &str) -> Vec<&'a Value> {
    steps(job)
        .iter()
        .filter(|s| {
            s["uses"]
                .as_str()
                .is_some_and(|u| u.starts_with(&format!("{name}@")))
        })
        .collect()
}

/// The one `run` script of `job` that contains `text`.
fn script<'a>(job: &'a Value, text: &str) -> &'a str {
    let found: Vec<&str> = steps(job)
        .iter()
        .filter_map(|s| s["run"].as_str())
        .filter(|r| r.contains(text))
        .collect();
    assert_eq!(found.len(), 1, "one step runs {text:?}: {found:?}");
    found[0]
}

/// Every `(key, value)` pair of an object anywhere in `value`.
fn pairs<'a>(value: &'a Value, out: &mut Vec<(&'a str, &'a Value)>) {
    match value {
        Value::Object(map) => {
            for (k, v) in map {
                out.push((k.as_str(), v));
                pairs(v, out);
            }
        }
        Value::Array(items) => items.iter().for_each(|v| pairs(v, out)),
        _ => {}
    }
}

/// The shard `--shard SPEC` chooses, through the same resolution `run` uses.
fn shard_of(spec: &str) -> Shard {
    let flags = ShardFlags {
        shard: Some(spec),
        shards: None,
    };
    resolve_shard(flags, &|_| None).unwrap().unwrap().shard
}

#[test]
fn the_github_actions_workflow_runs_a_matrix_of_shards_then_merges_them() {
    let path = deploy("github-actions/tribunal-shards.yml");
    let docs = documents(&path);
    assert_eq!(docs.len(), 1);
    let workflow = &docs[0];
    // `on` is a key (YAML 1.2), not the boolean a YAML 1.1 reader makes of it.
    assert!(workflow["on"].is_object(), "{workflow:#}");
    let jobs = workflow["jobs"].as_object().unwrap();

    // The shard job: a matrix 1..=N, each running --shard ${{ matrix.shard }}/N.
    let (shard_job_name, shard_job) = jobs
        .iter()
        .find(|(_, job)| job["strategy"]["matrix"]["shard"].is_array())
        .expect("a job with a `shard` matrix");
    let matrix: Vec<u64> = shard_job["strategy"]["matrix"]["shard"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_u64().expect("shard numbers"))
        .collect();
    let n = matrix.len() as u64;
    assert!(n >= 2, "{matrix:?}");
    assert_eq!(matrix, (1..=n).collect::<Vec<_>>());
    assert_eq!(shard_job["strategy"]["fail-fast"], false);
    let run = script(shard_job, "tribunal run");
    let placeholder = "${{ matrix.shard }}";
    assert!(run.contains(&format!("--shard {placeholder}/{n}")), "{run}");
    // Every shard of the matrix is a different shard of N, all of them.
    let shards: Vec<Shard> = matrix
        .iter()
        .map(|i| shard_of(&format!("{i}/{n}")))
        .collect();
    assert_eq!(
        shards,
        (1..=n as u32)
            .map(|index| Shard {
                index,
                count: n as u32
            })
            .collect::<Vec<_>>()
    );
    // Each shard uploads its results under a name of its own.
    let uploads = uses(shard_job, "actions/upload-artifact");
    assert_eq!(uploads.len(), 1);
    let artifact = uploads[0]["with"]["name"].as_str().unwrap();
    assert!(artifact.contains(placeholder), "{artifact}");
    let out = run
        .split_whitespace()
        .skip_while(|w| *w != "--out")
        .nth(1)
        .expect("--out FOLDER/");
    let uploaded = uploads[0]["with"]["path"].as_str().unwrap();
    assert!(uploaded.starts_with(out), "{uploaded} is not in {out}");

    // The merge job needs the shards, downloads every shard's artifact and
    // merges that folder into an HTML report it uploads.
    let (_, merge_job) = jobs
        .iter()
        .find(|(_, job)| {
            steps(job).iter().any(|s| {
                s["run"]
                    .as_str()
                    .is_some_and(|r| r.contains("tribunal merge"))
            })
        })
        .expect("a job running tribunal merge");
    let needs: Vec<&str> = match &merge_job["needs"] {
        Value::String(one) => vec![one.as_str()],
        Value::Array(many) => many.iter().filter_map(Value::as_str).collect(),
        other => panic!("needs: {other}"),
    };
    assert!(needs.contains(&shard_job_name.as_str()), "{needs:?}");
    let prefix = artifact.split(placeholder).next().unwrap();
    let download = uses(merge_job, "actions/download-artifact")
        .into_iter()
        .find(|s| s["with"]["pattern"] == format!("{prefix}*"))
        .expect("a download of every shard's artifact");
    assert_eq!(download["with"]["merge-multiple"], true);
    let folder = download["with"]["path"].as_str().unwrap();
    let merge = script(merge_job, "--report html");
    assert!(
        merge.contains(&format!("tribunal merge {folder}/")),
        "{merge}"
    );
    let html = merge
        .split_whitespace()
        .skip_while(|w| *w != "--report-file")
        .nth(1)
        .expect("--report-file");
    let report_upload = uses(merge_job, "actions/upload-artifact");
    assert_eq!(report_upload.len(), 1);
    let report_path = report_upload[0]["with"]["path"].as_str().unwrap();
    assert!(html.starts_with(report_path), "{html} not in {report_path}");
    // Uploaded even when the merge exits 1 for a failing item.
    assert_eq!(report_upload[0]["if"], "${{ !cancelled() }}");

    // Keys come from secrets only.
    let mut all = Vec::new();
    pairs(workflow, &mut all);
    let keys: Vec<_> = all
        .iter()
        .filter(|(k, _)| k.ends_with("_API_KEY"))
        .collect();
    assert!(!keys.is_empty());
    for (k, v) in keys {
        assert_eq!(*v, &format!("${{{{ secrets.{k} }}}}"), "{k}");
    }
}

#[test]
fn the_kubernetes_indexed_job_runs_shards_n_of_its_completions() {
    let path = deploy("kubernetes/indexed-job.yaml");
    let docs = documents(&path);
    let job = docs
        .iter()
        .find(|d| d["kind"] == "Job")
        .expect("a Job document");
    assert_eq!(job["apiVersion"], "batch/v1");
    let spec = &job["spec"];
    assert_eq!(spec["completionMode"], "Indexed");
    let completions = spec["completions"].as_u64().expect("completions");
    let parallelism = spec["parallelism"].as_u64().expect("parallelism");
    assert!((1..=completions).contains(&parallelism));
    let pod = &spec["template"]["spec"];
    assert!(["Never", "OnFailure"].contains(&pod["restartPolicy"].as_str().unwrap()));
    let containers = pod["containers"].as_array().unwrap();
    assert_eq!(containers.len(), 1);
    let container = &containers[0];
    let argv: Vec<&str> = [&container["command"], &container["args"]]
        .into_iter()
        .filter_map(Value::as_array)
        .flatten()
        .map(|v| v.as_str().expect("arguments are strings"))
        .collect();
    assert_eq!(argv[..2], ["tribunal", "run"], "{argv:?}");
    let after = |flag: &str| {
        argv.iter()
            .skip_while(|a| **a != flag)
            .nth(1)
            .copied()
            .unwrap_or_else(|| panic!("{flag} in {argv:?}"))
    };
    let shards = after("--shards");
    assert_eq!(shards, completions.to_string());
    assert!(!argv.contains(&"--shard"), "the index comes from the Job");
    // Pod i of the Job runs shard i+1: every shard once.
    let n: u32 = shards.parse().unwrap();
    let chosen: Vec<Shard> = (0..completions)
        .map(|i| {
            let env = move |name: &str| (name == "JOB_COMPLETION_INDEX").then(|| i.to_string());
            let flags = ShardFlags {
                shard: None,
                shards: Some(n),
            };
            resolve_shard(flags, &env).unwrap().unwrap().shard
        })
        .collect();
    assert_eq!(
        chosen,
        (1..=n)
            .map(|index| Shard { index, count: n })
            .collect::<Vec<_>>()
    );

    // --out is a folder on a mounted volume.
    let out = after("--out");
    assert!(
        out.ends_with('/'),
        "{out}: a folder, so each shard names its file"
    );
    let mount = container["volumeMounts"]
        .as_array()
        .unwrap()
        .iter()
        .find(|m| out.starts_with(m["mountPath"].as_str().unwrap()))
        .unwrap_or_else(|| panic!("no volume mounted at {out}"));
    let volume = pod["volumes"]
        .as_array()
        .unwrap()
        .iter()
        .find(|v| v["name"] == mount["name"])
        .expect("the mounted volume");
    if let Some(claim) = volume["persistentVolumeClaim"]["claimName"].as_str() {
        let pvc = docs
            .iter()
            .find(|d| d["kind"] == "PersistentVolumeClaim" && d["metadata"]["name"] == claim);
        if let Some(pvc) = pvc {
            let modes = pvc["spec"]["accessModes"].as_array().unwrap();
            assert!(
                modes.contains(&Value::from("ReadWriteMany")),
                "pods on many nodes"
            );
        }
    }

    // The key from a Secret, never inline.
    let env = container["env"].as_array().unwrap();
    let keys: Vec<&Value> = env
        .iter()
        .filter(|e| e["name"].as_str().unwrap().ends_with("_API_KEY"))
        .collect();
    assert!(!keys.is_empty());
    for key in keys {
        assert!(key.get("value").is_none(), "{key}");
        let secret = &key["valueFrom"]["secretKeyRef"];
        assert!(
            secret["name"].is_string() && secret["key"].is_string(),
            "{key}"
        );
    }
}
