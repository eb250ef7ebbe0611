//! The command line's shape, through the binary: `-h` fits a screen with
//! its flags grouped, one spelling per flag across subcommands (an old one
//! is refused naming the new), completions and the man page.

use crate::tribunal;
use std::path::Path;
use std::process::Output;

const ARENA: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/arenas/structured_output");
const CODE_REVIEW: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/arenas/code_review");

fn out(o: &Output) -> (String, String) {
    (
        String::from_utf8_lossy(&o.stdout).into_owned(),
        String::from_utf8_lossy(&o.stderr).into_owned(),
    )
}

/// Where each heading line (`Model:`) of a help text is, in order.
fn headings(help: &str) -> Vec<String> {
    help.lines()
        .filter(|l| !l.starts_with(' ') && l.ends_with(':') && !l.is_empty())
        .map(|l| l.trim_end_matches(':').to_string())
        .collect()
}

#[test]
fn run_short_help_fits_a_screen_with_its_flags_grouped_and_logging_last() {
    let _snapshots = tribunal_testkit::bind_snapshots("cli");
    let dir = tempfile::tempdir().unwrap();
    let o = tribunal(&["run", "-h"], dir.path());
    let (help, err) = out(&o);
    assert_eq!(o.status.code(), Some(0), "{err}");
    let lines = help.lines().count();
    assert!(lines <= 40, "`run -h` is {lines} lines:\n{help}");
    assert_eq!(
        headings(&help),
        [
            "Arguments",
            "Options",
            "Model",
            "Budgets",
            "Items and scale",
            "Results",
            "Output",
            "Gate",
            "Logging"
        ]
    );
    // The rarer flags wait for --help, where every one is, grouped.
    assert!(!help.contains("--connect-secs"), "{help}");
    insta::assert_snapshot!("run_short_help", help);
    let o = tribunal(&["run", "--help"], dir.path());
    let (long, _) = out(&o);
    for flag in [
        "--connect-secs",
        "--no-cut-runaway",
        "--judge-model",
        "--batch-poll-secs",
    ] {
        assert!(long.contains(flag), "{flag} is not in `run --help`");
    }
    let groups = headings(&long);
    assert!(
        groups.contains(&"Backend settings".to_string()),
        "{groups:?}"
    );
    assert_eq!(groups.last().map(String::as_str), Some("Logging"));
    for sub in [&["judge", "run", "-h"][..], &["judge", "calibrate", "-h"]] {
        let o = tribunal(sub, dir.path());
        let (help, err) = out(&o);
        assert_eq!(o.status.code(), Some(0), "{err}");
        let lines = help.lines().count();
        assert!(lines <= 40, "`{}` is {lines} lines:\n{help}", sub.join(" "));
        assert_eq!(headings(&help).last().map(String::as_str), Some("Logging"));
    }
}

/// A spelling that was renamed is one line naming the new flag, exit 2, on
/// every subcommand that has the new one.
#[test]
fn old_spellings_are_refused_naming_the_new_flag() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("prompt.txt"), "Review it.").unwrap();
    let schemas = Path::new(CODE_REVIEW).join("schemas");
    let review = |extra: &[&str]| -> Vec<String> {
        let mut args: Vec<String> = ["judge", "run", "--prompt", "prompt.txt", "--root", "."]
            .map(String::from)
            .to_vec();
        for (flag, file) in [
            ("--pass-schema", "green.json"),
            ("--fail-schema", "red.json"),
        ] {
            args.push(flag.into());
            args.push(schemas.join(file).display().to_string());
        }
        args.extend(extra.iter().map(|s| s.to_string()));
        args
    };
    let cases: Vec<(Vec<String>, &str)> = vec![
        (
            review(&["--deadline", "30"]),
            "--deadline is now --deadline-secs",
        ),
        (
            ["run", ARENA, "--deadline", "30"]
                .map(String::from)
                .to_vec(),
            "--deadline is now --deadline-secs",
        ),
        (
            ["judge", "calibrate", CODE_REVIEW, "--deadline=30"]
                .map(String::from)
                .to_vec(),
            "--deadline is now --deadline-secs",
        ),
        (
            ["run", ARENA, "--batch-poll", "1"]
                .map(String::from)
                .to_vec(),
            "--batch-poll is now --batch-poll-secs",
        ),
        (
            ["run", ARENA, "--mock-latency", "5"]
                .map(String::from)
                .to_vec(),
            "--mock-latency is now --mock-latency-ms",
        ),
    ];
    for (args, says) in cases {
        let o = tribunal(&args, dir.path());
        let (stdout, err) = out(&o);
        assert_eq!(o.status.code(), Some(2), "{args:?}: {err}");
        assert_eq!(err, format!("tribunal: {says}\n"), "{args:?}");
        assert!(stdout.is_empty());
    }
    // `judge run --record` takes a folder, as `run`'s does.
    let o = tribunal(&review(&["--record", "cassettes/review.jsonl"]), dir.path());
    let (_, err) = out(&o);
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert!(
        err.contains("--record takes a folder, as on `run`") && err.contains("pass cassettes"),
        "{err}"
    );
}

/// The new spellings work on each subcommand that has them.
#[test]
fn the_new_spellings_work_on_each_subcommand() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let o = tribunal(
        &[
            "run",
            ARENA,
            "--deadline-secs",
            "30",
            "--mock-latency-ms",
            "1",
            "--limit",
            "1",
            "-q",
        ],
        d,
    );
    assert_eq!(o.status.code(), Some(0), "{}", out(&o).1);
    let o = tribunal(
        &[
            "judge",
            "calibrate",
            CODE_REVIEW,
            "--deadline-secs",
            "30",
            "--limit",
            "2",
            "-q",
        ],
        d,
    );
    assert_eq!(o.status.code(), Some(0), "{}", out(&o).1);
    let item = Path::new(CODE_REVIEW).join("items/iterator_refactor");
    std::fs::write(d.join("prompt.txt"), "Review it.").unwrap();
    std::fs::write(
        d.join("script.json"),
        r#"[{"json": {"result": {"verdict": "GREEN", "verdictFields": {"summary": "Same."}}}}]"#,
    )
    .unwrap();
    let schemas = Path::new(CODE_REVIEW).join("schemas");
    let o = tribunal(
        &[
            "judge",
            "run",
            "--pass-schema",
            &schemas.join("green.json").display().to_string(),
            "--fail-schema",
            &schemas.join("red.json").display().to_string(),
            "--prompt",
            "prompt.txt",
            "--root",
            &item.display().to_string(),
            "--mock",
            "script.json",
            "--deadline-secs",
            "30",
        ],
        d,
    );
    assert_eq!(o.status.code(), Some(0), "{}", out(&o).1);
    // Each `--X BOOL` setting has its `--no-X`: a backend setting, so the
    // mock refuses it as it refuses `--cut-runaway false`.
    for flag in [
        "--no-cut-runaway",
        "--no-prompt-cache",
        "--no-parallel-tool-calls",
        "--no-schema-on-tool-turns",
    ] {
        let o = tribunal(&["run", ARENA, flag], d);
        let (_, err) = out(&o);
        assert_eq!(o.status.code(), Some(2), "{flag}: {err}");
        assert!(err.contains("need a live --backend"), "{flag}: {err}");
    }
    let both = ["run", ARENA, "--backend", "openai-chat", "--model", "m"];
    let mut args = both.to_vec();
    args.extend(["--cut-runaway", "true", "--no-cut-runaway"]);
    let o = tribunal(&args, d);
    let (_, err) = out(&o);
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert!(err.contains("cannot be used with"), "{err}");
}

#[test]
fn completions_and_the_man_page_are_made_on_demand() {
    let dir = tempfile::tempdir().unwrap();
    let o = tribunal(&["completions", "bash"], dir.path());
    let (script, err) = out(&o);
    assert_eq!(o.status.code(), Some(0), "{err}");
    for word in [
        "tribunal",
        "run",
        "calibrate",
        "--deadline-secs",
        "completions",
    ] {
        assert!(
            script.contains(word),
            "{word} is not in the bash completions"
        );
    }
    // Renamed spellings are hidden: nobody is offered them.
    assert!(!script.contains("--mock-latency "), "{script}");
    for shell in ["zsh", "fish", "elvish", "powershell"] {
        let o = tribunal(&["completions", shell], dir.path());
        assert_eq!(o.status.code(), Some(0), "{shell}");
        assert!(!o.stdout.is_empty(), "{shell}");
    }
    let o = tribunal(&["man"], dir.path());
    let (page, err) = out(&o);
    assert_eq!(o.status.code(), Some(0), "{err}");
    assert!(
        page.starts_with(".ie") || page.contains(".TH tribunal"),
        "{page}"
    );
    assert!(page.contains(".TH tribunal 1"), "{page}");
    assert!(
        page.contains(".SH NAME") && page.contains("tribunal"),
        "{page}"
    );
    let pages = dir.path().join("man1");
    let o = tribunal(&["man", "--out", "man1"], dir.path());
    assert_eq!(o.status.code(), Some(0), "{}", out(&o).1);
    for name in ["tribunal.1", "tribunal-run.1", "tribunal-judge-calibrate.1"] {
        assert!(pages.join(name).is_file(), "{name}");
    }
    let o = tribunal(&["completions", "tcsh"], dir.path());
    assert_eq!(o.status.code(), Some(2));
}

/// Issue #62 point 8: a negative number given to a numeric flag is refused
/// by the flag's own parser, naming what the flag takes, and never with
/// clap's `-- -1` tip.
#[test]
fn a_negative_number_is_refused_by_the_flag_not_with_clap_tip() {
    let dir = tempfile::tempdir().unwrap();
    let a = crate::stand_in::arena();
    let a = a.to_str().unwrap();
    for (flags, says) in [
        (
            vec!["--concurrency", "-1"],
            "\"-1\" is not a number of runs in flight (1 or more)",
        ),
        (vec!["--limit", "-1"], "--limit"),
        (vec!["--mock-latency-ms", "-5"], "--mock-latency-ms"),
    ] {
        let mut args = vec!["run", a];
        args.extend(flags.iter().copied());
        let o = tribunal(&args, dir.path());
        let (_, err) = out(&o);
        assert_eq!(o.status.code(), Some(2), "{flags:?}: {err}");
        assert!(err.contains(says), "{flags:?}: {err}");
        assert!(
            !err.contains("-- -1") && !err.contains("tip:"),
            "{flags:?}: {err}"
        );
    }
}
