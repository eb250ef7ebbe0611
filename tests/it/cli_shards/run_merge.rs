//! Shard processes of the real binary, each choosing its shard from the
//! environment as a scheduler would start it, writing into one folder;
//! `tribunal merge FOLDER` gives the unsharded run's report.

use crate::stand_in::{arena, code, dataset_ids, stderr, stdout};
use crate::{json_lines, without_timings};
use serde_json::Value;
use std::path::Path;
use std::process::{Command, Output};
use tribunal_testkit::launch::assert_exit_says;

/// A process: its arguments, its shard variables, and what its stderr
/// says (starts with, for an error).
type Start<'a> = (&'a [&'a str], &'a [(&'a str, &'a str)], &'a str);

/// `tribunal ARGS` in `cwd` with the shard variables `vars` and no other
/// (the launcher clears them: the test's own environment, a CI runner
/// inside an Indexed Job, cannot leak in).
fn tribunal(args: &[&str], vars: &[(&str, &str)], cwd: &Path) -> Command {
    let mut command = crate::tribunal_command(args, cwd);
    command.envs(vars.iter().copied());
    command
}

/// `tribunal merge FOLDER --out OUT EXTRA` in `cwd`.
fn merge_into(folder: &Path, out: &Path, extra: &[&str], cwd: &Path) -> Output {
    let mut args = vec![
        "merge",
        folder.to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
    ];
    args.extend_from_slice(extra);
    output(tribunal(&args, &[], cwd))
}

fn output(mut command: Command) -> Output {
    command.output().unwrap()
}

#[test]
fn three_shard_processes_chosen_by_the_environment_merge_into_the_unsharded_report() {
    let dir = tempfile::tempdir().unwrap();
    let results = dir.path().join("results");
    std::fs::create_dir(&results).unwrap();
    let a = arena();
    let a = a.to_str().unwrap();
    let out = format!("{}/", results.display());
    let run = ["run", a, "--out", out.as_str()];
    let with_shards = ["run", a, "--out", out.as_str(), "--shards", "3"];
    // As a CI matrix starts shard 1 and a Kubernetes Indexed Job pods 1
    // and 2 (0-based): all three at once.
    let starts: [Start; 3] = [
        (
            &run,
            &[("TRIBUNAL_SHARD", "1/3")],
            "shard 1/3 (from TRIBUNAL_SHARD=1/3)",
        ),
        (
            &with_shards,
            &[("JOB_COMPLETION_INDEX", "1")],
            "shard 2/3 (from JOB_COMPLETION_INDEX=1 with --shards 3)",
        ),
        (
            &with_shards,
            &[("JOB_COMPLETION_INDEX", "2")],
            "shard 3/3 (from JOB_COMPLETION_INDEX=2 with --shards 3)",
        ),
    ];
    let children: Vec<_> = starts
        .iter()
        .map(|(args, vars, _)| {
            tribunal(args, vars, dir.path())
                .stdout(std::process::Stdio::piped())
                .stderr(std::process::Stdio::piped())
                .spawn()
                .unwrap()
        })
        .collect();
    for (child, (_, vars, says)) in children.into_iter().zip(&starts) {
        let o = child.wait_with_output().unwrap();
        assert_eq!(code(&o), 0, "{vars:?}: {}", stderr(&o));
        assert!(stderr(&o).contains(says), "{vars:?}: {}", stderr(&o));
    }

    // One file per shard, named by its shard; together every item once.
    let mut names: Vec<String> = std::fs::read_dir(&results)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    assert_eq!(
        names,
        (1..=3)
            .map(|i| format!("structured_output.mock.shard-{i}-of-3.jsonl"))
            .collect::<Vec<_>>()
    );
    let mut ids: Vec<String> = Vec::new();
    for name in &names {
        let rows = json_lines(&results.join(name));
        assert!(!rows.is_empty(), "{name} holds no rows");
        ids.extend(rows.iter().map(|r| r["id"].as_str().unwrap().to_string()));
    }
    ids.sort();
    let mut expected = dataset_ids();
    expected.sort();
    assert_eq!(ids, expected, "the shards hold every item exactly once");

    // Merged from the folder (a file written beside the shards is not a
    // shard, and subfolders are not read).
    std::fs::write(results.join("notes.txt"), "not a results file").unwrap();
    std::fs::create_dir(results.join("old")).unwrap();
    std::fs::write(results.join("old/broken.jsonl"), "not a row\n").unwrap();
    let merged = dir.path().join("merged.jsonl");
    let o = merge_into(&results, &merged, &["--report", "json"], dir.path());
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    let merged_report: Value = serde_json::from_str(&stdout(&o)).unwrap();
    let report_ids: Vec<&str> = merged_report["items"]
        .as_array()
        .unwrap()
        .iter()
        .map(|i| i["id"].as_str().unwrap())
        .collect();
    assert_eq!(
        report_ids,
        dataset_ids(),
        "every item once, in dataset order"
    );
    assert_eq!(merged_report["summary"]["total"], 15);
    assert_eq!(json_lines(&merged).len(), 15);

    // Every row says its shard; a merge that leaves a shard's file out
    // fails closed (exit 8, nothing written) unless told it is expected.
    let shard_of = |name: &str| -> Vec<Value> {
        json_lines(&results.join(name))
            .iter()
            .map(|r| r["shard"].clone())
            .collect()
    };
    assert!(
        shard_of(&names[1]).iter().all(|s| s == "2/3"),
        "{:?}",
        shard_of(&names[1])
    );
    let partial = dir.path().join("partial");
    std::fs::create_dir(&partial).unwrap();
    for name in [&names[0], &names[2]] {
        std::fs::copy(results.join(name), partial.join(name)).unwrap();
    }
    let cut = dir.path().join("cut.jsonl");
    let o = merge_into(&partial, &cut, &[], dir.path());
    assert_exit_says(&o, 8, "missing_shards: no row of shard(s) 2/3");
    assert!(!cut.exists(), "a merge missing a shard writes nothing");
    let o = merge_into(&partial, &cut, &["--allow-missing"], dir.path());
    assert_exit_says(&o, 0, "(allowed by --allow-missing)");
    assert_eq!(
        json_lines(&cut).len(),
        15 - json_lines(&results.join(&names[1])).len()
    );

    // The unsharded run's report is the same, timings aside.
    let whole = dir.path().join("whole.jsonl");
    let args = [
        "run",
        a,
        "--out",
        whole.to_str().unwrap(),
        "--report",
        "json",
    ];
    let o = output(tribunal(&args, &[], dir.path()));
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    assert!(!stderr(&o).contains("(from "), "{}", stderr(&o));
    let whole_report: Value = serde_json::from_str(&stdout(&o)).unwrap();
    assert_eq!(
        without_timings(merged_report),
        without_timings(whole_report)
    );
}

#[test]
fn a_shard_error_from_the_environment_exits_2_naming_the_variable() {
    let dir = tempfile::tempdir().unwrap();
    let a = arena();
    let a = a.to_str().unwrap();
    let cases: [Start; 3] = [
        (
            &["run", a, "--shards", "4"],
            &[("JOB_COMPLETION_INDEX", "7")],
            "tribunal: JOB_COMPLETION_INDEX=7 is out of range for --shards 4",
        ),
        (
            &["run", a],
            &[("JOB_COMPLETION_INDEX", "0")],
            "tribunal: JOB_COMPLETION_INDEX=0 is set but the shard count is not: pass --shards N",
        ),
        (
            &["run", a],
            &[("TRIBUNAL_SHARD", "5/4")],
            "tribunal: TRIBUNAL_SHARD=5/4 is not a shard",
        ),
    ];
    for (args, vars, says) in cases {
        let o = output(tribunal(args, vars, dir.path()));
        assert_eq!(code(&o), 2, "{vars:?}");
        assert!(stderr(&o).starts_with(says), "{vars:?}: {}", stderr(&o));
    }
    // clap refuses a zero count itself.
    let o = output(tribunal(&["run", a, "--shards", "0"], &[], dir.path()));
    assert_exit_says(&o, 2, "--shards");
    assert!(!dir.path().join("runs").exists(), "nothing ran");
}

/// Two files with a row for the same item: the later file by name wins,
/// whatever order the folder lists them in.
#[test]
fn a_folder_is_merged_in_name_order() {
    let dir = tempfile::tempdir().unwrap();
    let a = arena();
    let whole = dir.path().join("whole.jsonl");
    let args = ["run", a.to_str().unwrap(), "--out", whole.to_str().unwrap()];
    assert_eq!(code(&output(tribunal(&args, &[], dir.path()))), 0);
    let text = std::fs::read_to_string(&whole).unwrap();
    // Rows are written as runs finish: the first line is any item.
    let first = text.lines().next().unwrap();
    let mut changed: Value = serde_json::from_str(first).unwrap();
    let id = changed["id"].clone();
    let turns = changed["turns"].clone();
    assert_ne!(turns, 99);
    changed["turns"] = Value::from(99);
    let changed = format!("{changed}\n");
    let folder = dir.path().join("results");
    std::fs::create_dir(&folder).unwrap();
    let merged = dir.path().join("merged.jsonl");
    let turns_of_changed = |files: [(&str, &str); 2]| {
        for entry in std::fs::read_dir(&folder).unwrap() {
            std::fs::remove_file(entry.unwrap().path()).unwrap();
        }
        for (name, contents) in files {
            std::fs::write(folder.join(name), contents).unwrap();
        }
        let o = merge_into(&folder, &merged, &["--report", "json"], dir.path());
        assert_eq!(code(&o), 0, "{}", stderr(&o));
        let rows = json_lines(&merged);
        assert_eq!(rows.len(), 15);
        let row = rows.iter().find(|r| r["id"] == id).unwrap();
        row["turns"].clone()
    };
    assert_eq!(
        turns_of_changed([("a.jsonl", &text), ("b.jsonl", &changed)]),
        99
    );
    assert_eq!(
        turns_of_changed([("a.jsonl", &changed), ("b.jsonl", &text)]),
        turns
    );
    assert_eq!(
        turns_of_changed([("b.jsonl", &changed), ("a.jsonl", &text)]),
        99
    );
}

#[test]
fn merging_a_folder_refuses_an_empty_one_and_files_of_different_runs() {
    let dir = tempfile::tempdir().unwrap();
    let empty = dir.path().join("empty");
    std::fs::create_dir(&empty).unwrap();
    std::fs::write(empty.join("notes.txt"), "").unwrap();
    let o = output(tribunal(
        &["merge", empty.to_str().unwrap()],
        &[],
        dir.path(),
    ));
    assert_eq!(code(&o), 2);
    assert_eq!(
        stderr(&o),
        format!(
            "tribunal: the folder {} holds no *.jsonl result files to merge\n",
            empty.display()
        )
    );

    // Two shards of runs under different settings: a copy of the arena
    // with another tool-call budget (another config hash, the same name;
    // its results named after its folder, `changed.…`, read first).
    let changed = dir.path().join("changed");
    std::fs::create_dir(&changed).unwrap();
    for file in ["dataset.jsonl", "schema.json", "corpus.json", "arena.toml"] {
        std::fs::copy(arena().join(file), changed.join(file)).unwrap();
    }
    let toml = std::fs::read_to_string(changed.join("arena.toml")).unwrap();
    let toml = toml.replace("max_tool_calls = 6", "max_tool_calls = 7");
    std::fs::write(changed.join("arena.toml"), toml).unwrap();
    let mixed = dir.path().join("mixed");
    let out = format!("{}/", mixed.display());
    for (arena, shard) in [(arena(), "1/2"), (changed, "2/2")] {
        let args = [
            "run",
            arena.to_str().unwrap(),
            "--shard",
            shard,
            "--out",
            &out,
        ];
        let o = output(tribunal(&args, &[], dir.path()));
        assert_eq!(code(&o), 0, "{}", stderr(&o));
    }
    let o = output(tribunal(
        &["merge", mixed.to_str().unwrap()],
        &[],
        dir.path(),
    ));
    assert_eq!(code(&o), 2);
    assert!(
        stderr(&o).contains(&format!(
            "{}: written with config hash",
            mixed
                .join("structured_output.mock.shard-1-of-2.jsonl")
                .display()
        )),
        "{}",
        stderr(&o)
    );
}

/// `merge DIR --out DIR/all.jsonl` does not read its own output back: a
/// stale (here: broken) merged file in the folder is replaced, not merged.
#[test]
fn a_merge_written_into_its_folder_is_not_read_back() {
    let dir = tempfile::tempdir().unwrap();
    let folder = dir.path().join("results");
    let out = format!("{}/", folder.display());
    let a = arena();
    let args = ["run", a.to_str().unwrap(), "--shard", "1/1", "--out", &out];
    let o = output(tribunal(&args, &[], dir.path()));
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    let all = folder.join("all.jsonl");
    std::fs::write(&all, "not a row\n").unwrap();
    for _ in 0..2 {
        let o = merge_into(&folder, &all, &[], dir.path());
        assert_eq!(code(&o), 0, "{}", stderr(&o));
        assert_eq!(json_lines(&all).len(), 15);
    }
    // The merged file alone is no shard to merge.
    std::fs::remove_file(folder.join("structured_output.mock.shard-1-of-1.jsonl")).unwrap();
    let o = merge_into(&folder, &all, &[], dir.path());
    assert_exit_says(&o, 2, "holds no *.jsonl result files");
}

/// More shards than items: the empty shards still succeed and write their
/// (empty) results file, but say that they ran nothing.
#[test]
fn an_empty_shard_says_it_ran_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let arena = dir.path().join("two");
    let init = output(tribunal(
        &["init", arena.to_str().unwrap()],
        &[],
        dir.path(),
    ));
    assert!(init.status.success(), "{}", stderr(&init));
    let mut empty = 0;
    for shard in ["1/3", "2/3", "3/3"] {
        let out = dir.path().join(format!("r{}.jsonl", &shard[..1]));
        let run = output(tribunal(
            &[
                "run",
                arena.to_str().unwrap(),
                "--shard",
                shard,
                "--out",
                out.to_str().unwrap(),
            ],
            &[],
            dir.path(),
        ));
        assert_eq!(code(&run), 0, "{shard}: {}", stderr(&run));
        let rows = json_lines(&out).len();
        let said = stderr(&run).contains("holds none of the arena's 2 item(s): nothing to run");
        assert_eq!(said, rows == 0, "{shard}: {rows} row(s), {}", stderr(&run));
        empty += usize::from(said);
    }
    assert!(empty >= 1, "two items in three shards leave one empty");
}
