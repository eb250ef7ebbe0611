//! `resolve_shard`: `--shard` over `TRIBUNAL_SHARD` over
//! `JOB_COMPLETION_INDEX` with `--shards`/`TRIBUNAL_SHARDS`, and every
//! malformed, missing or conflicting value as a coded error naming it. The
//! environment is a map here; nothing touches the process's variables.

use std::collections::HashMap;
use tribunal::judge::Shard;
use tribunal::judge::internal::run::shard_env::{
    ChosenShard, ShardEnvError, ShardFlags, ShardOrigin, resolve_shard,
};

fn resolve(
    shard: Option<&str>,
    shards: Option<u32>,
    vars: &[(&str, &str)],
) -> Result<Option<ChosenShard>, ShardEnvError> {
    let vars: HashMap<String, String> = vars
        .iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect();
    resolve_shard(ShardFlags { shard, shards }, &|name| {
        vars.get(name).cloned()
    })
}

/// The chosen shard as `I/N` and where it came from, as displayed.
fn chosen(shard: Option<&str>, shards: Option<u32>, vars: &[(&str, &str)]) -> (String, String) {
    let c = resolve(shard, shards, vars)
        .unwrap()
        .expect("a shard is chosen");
    (c.shard.to_string(), c.from.to_string())
}

/// The error's code and message.
fn error(
    shard: Option<&str>,
    shards: Option<u32>,
    vars: &[(&str, &str)],
) -> (&'static str, String) {
    let e = resolve(shard, shards, vars).expect_err("an error");
    (e.code(), e.to_string())
}

fn pair(a: &str, b: &str) -> (String, String) {
    (a.to_string(), b.to_string())
}

#[test]
fn nothing_set_is_no_shard() {
    assert_eq!(resolve(None, None, &[]).unwrap(), None);
    // Other variables are not read.
    assert_eq!(resolve(None, None, &[("SHARD", "1/2")]).unwrap(), None);
}

#[test]
fn the_flag_wins_over_tribunal_shard_which_wins_over_the_completion_index() {
    let all = [
        ("TRIBUNAL_SHARD", "2/3"),
        ("JOB_COMPLETION_INDEX", "0"),
        ("TRIBUNAL_SHARDS", "3"),
    ];
    assert_eq!(chosen(Some("3/3"), None, &all), pair("3/3", "--shard 3/3"));
    assert_eq!(chosen(None, None, &all), pair("2/3", "TRIBUNAL_SHARD=2/3"));
    assert_eq!(
        chosen(None, None, &all[1..]),
        pair("1/3", "JOB_COMPLETION_INDEX=0 with TRIBUNAL_SHARDS=3")
    );
    let c = resolve(Some("1/3"), None, &all).unwrap().unwrap();
    assert_eq!(
        c,
        ChosenShard {
            shard: Shard { index: 1, count: 3 },
            from: ShardOrigin::Flag(tribunal::judge::internal::run::shard_env::Given {
                name: "--shard",
                value: "1/3".into()
            }),
        }
    );
}

#[test]
fn a_source_below_the_winner_is_not_read() {
    // A completion index without a count, and a malformed one, would be
    // errors if they were read.
    for index in ["5", "x"] {
        let vars = [("TRIBUNAL_SHARD", "1/2"), ("JOB_COMPLETION_INDEX", index)];
        assert_eq!(chosen(None, None, &vars), pair("1/2", "TRIBUNAL_SHARD=1/2"));
        let vars = [
            ("TRIBUNAL_SHARD", "nonsense"),
            ("JOB_COMPLETION_INDEX", index),
        ];
        assert_eq!(chosen(Some("2/2"), None, &vars), pair("2/2", "--shard 2/2"));
    }
}

#[test]
fn the_completion_index_counts_from_zero_and_the_shard_from_one() {
    for (index, shard) in [("0", "1/4"), ("1", "2/4"), ("3", "4/4")] {
        let (got, from) = chosen(None, Some(4), &[("JOB_COMPLETION_INDEX", index)]);
        assert_eq!(got, shard, "JOB_COMPLETION_INDEX={index}");
        assert_eq!(
            from,
            format!("JOB_COMPLETION_INDEX={index} with --shards 4")
        );
    }
    // Every index of a Job is one shard, and the shards are all of 1..=N.
    let shards: Vec<Shard> = (0..5)
        .map(|i| {
            resolve(None, Some(5), &[("JOB_COMPLETION_INDEX", &i.to_string())])
                .unwrap()
                .unwrap()
                .shard
        })
        .collect();
    let expected: Vec<Shard> = (1..=5).map(|index| Shard { index, count: 5 }).collect();
    assert_eq!(shards, expected);
}

#[test]
fn the_shards_flag_wins_over_tribunal_shards() {
    let vars = [("JOB_COMPLETION_INDEX", "3"), ("TRIBUNAL_SHARDS", "4")];
    assert_eq!(
        chosen(None, Some(5), &vars),
        pair("4/5", "JOB_COMPLETION_INDEX=3 with --shards 5")
    );
    assert_eq!(
        chosen(None, None, &vars),
        pair("4/4", "JOB_COMPLETION_INDEX=3 with TRIBUNAL_SHARDS=4")
    );
}

#[test]
fn an_empty_variable_counts_as_unset() {
    let vars = [
        ("TRIBUNAL_SHARD", ""),
        ("JOB_COMPLETION_INDEX", "1"),
        ("TRIBUNAL_SHARDS", " "),
    ];
    assert_eq!(
        chosen(None, Some(3), &vars),
        pair("2/3", "JOB_COMPLETION_INDEX=1 with --shards 3")
    );
    assert_eq!(
        resolve(
            None,
            None,
            &[("TRIBUNAL_SHARD", ""), ("JOB_COMPLETION_INDEX", "")]
        )
        .unwrap(),
        None
    );
}

#[test]
fn an_index_out_of_range_names_the_index_and_the_count() {
    assert_eq!(
        error(None, Some(4), &[("JOB_COMPLETION_INDEX", "7")]),
        (
            "shard_index_out_of_range",
            "JOB_COMPLETION_INDEX=7 is out of range for --shards 4: \
             a Job of 4 completions has indexes 0 to 3"
                .to_string()
        )
    );
    // The first index past the end (a 1-based reading would accept it).
    let (code, message) = error(
        None,
        None,
        &[("JOB_COMPLETION_INDEX", "4"), ("TRIBUNAL_SHARDS", "4")],
    );
    assert_eq!(code, "shard_index_out_of_range");
    assert!(
        message.starts_with("JOB_COMPLETION_INDEX=4 is out of range for TRIBUNAL_SHARDS=4"),
        "{message}"
    );
}

#[test]
fn an_index_without_a_count_asks_for_shards() {
    let (code, message) = error(None, None, &[("JOB_COMPLETION_INDEX", "2")]);
    assert_eq!(code, "shard_index_without_count");
    assert_eq!(
        message,
        "JOB_COMPLETION_INDEX=2 is set but the shard count is not: pass --shards N \
         (or set TRIBUNAL_SHARDS=N), N being the Job's completions"
    );
}

#[test]
fn a_count_without_an_index_asks_for_one() {
    for (shards, vars, named) in [
        (Some(3), vec![], "--shards 3"),
        (None, vec![("TRIBUNAL_SHARDS", "3")], "TRIBUNAL_SHARDS=3"),
    ] {
        let (code, message) = error(None, shards, &vars);
        assert_eq!(code, "shard_count_without_index");
        assert_eq!(
            message,
            format!(
                "{named} needs a shard index: JOB_COMPLETION_INDEX (a Kubernetes Indexed Job \
                 sets it) or TRIBUNAL_SHARD=I/N in the environment, or --shard I/N"
            )
        );
    }
}

/// `--shard`, `--shards`, the variables, and the message expected.
type Case = (Option<&'static str>, Option<u32>, Vec<Var>, String);
type Var = (&'static str, &'static str);

#[test]
fn malformed_values_are_named_with_their_value() {
    let shard = "a shard: expected I/N with 1 <= I <= N";
    let count = "a shard count: expected a whole number of at least 1";
    let index = "a completion index: expected a whole number from 0";
    let cases: Vec<Case> = vec![
        (
            Some("3/2"),
            None,
            vec![],
            format!("--shard 3/2 is not {shard}"),
        ),
        (
            None,
            None,
            vec![("TRIBUNAL_SHARD", "abc")],
            format!("TRIBUNAL_SHARD=abc is not {shard}"),
        ),
        (
            None,
            None,
            vec![("TRIBUNAL_SHARD", "0/3")],
            format!("TRIBUNAL_SHARD=0/3 is not {shard}"),
        ),
        (
            None,
            None,
            vec![("TRIBUNAL_SHARD", "4/3")],
            format!("TRIBUNAL_SHARD=4/3 is not {shard}"),
        ),
        (
            None,
            None,
            vec![("TRIBUNAL_SHARD", "2")],
            format!("TRIBUNAL_SHARD=2 is not {shard}"),
        ),
        (
            None,
            Some(3),
            vec![("JOB_COMPLETION_INDEX", "x")],
            format!("JOB_COMPLETION_INDEX=x is not {index}"),
        ),
        (
            None,
            Some(3),
            vec![("JOB_COMPLETION_INDEX", "-1")],
            format!("JOB_COMPLETION_INDEX=-1 is not {index}"),
        ),
        (
            None,
            Some(3),
            vec![("JOB_COMPLETION_INDEX", "1.0")],
            format!("JOB_COMPLETION_INDEX=1.0 is not {index}"),
        ),
        (
            None,
            None,
            vec![("JOB_COMPLETION_INDEX", "0"), ("TRIBUNAL_SHARDS", "0")],
            format!("TRIBUNAL_SHARDS=0 is not {count}"),
        ),
        (
            None,
            None,
            vec![("JOB_COMPLETION_INDEX", "0"), ("TRIBUNAL_SHARDS", "four")],
            format!("TRIBUNAL_SHARDS=four is not {count}"),
        ),
        (
            None,
            Some(0),
            vec![("JOB_COMPLETION_INDEX", "0")],
            format!("--shards 0 is not {count}"),
        ),
        // A malformed count is refused even beside a winning --shard (it is read: the counts must agree).
        (
            Some("1/2"),
            None,
            vec![("TRIBUNAL_SHARDS", "two")],
            format!("TRIBUNAL_SHARDS=two is not {count}"),
        ),
    ];
    for (flag, shards, vars, expected) in cases {
        assert_eq!(
            error(flag, shards, &vars),
            ("shard_malformed", expected.clone()),
            "{flag:?} {shards:?} {vars:?}"
        );
    }
}

#[test]
fn a_count_other_than_the_shards_n_conflicts() {
    assert_eq!(
        error(Some("1/2"), Some(3), &[]),
        (
            "shard_count_conflict",
            "--shards 3 conflicts with --shard 1/2: the shard counts differ".to_string()
        )
    );
    assert_eq!(
        error(
            None,
            None,
            &[("TRIBUNAL_SHARD", "2/4"), ("TRIBUNAL_SHARDS", "3")]
        ),
        (
            "shard_count_conflict",
            "TRIBUNAL_SHARDS=3 conflicts with TRIBUNAL_SHARD=2/4: the shard counts differ"
                .to_string()
        )
    );
    // The same count is no conflict.
    assert_eq!(
        chosen(None, Some(4), &[("TRIBUNAL_SHARD", "2/4")]),
        pair("2/4", "TRIBUNAL_SHARD=2/4")
    );
}
