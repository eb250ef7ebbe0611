//! Calibration: the judge's verdicts against gold, on the code_review
//! arena (a faithful scripted judge, and one that flips four items) and on
//! hand-built rows (repeats, ERROR runs, items without gold).

use serde_json::{Value, json};
use tribunal_judge::internal::report::calibration::calibrate;
use tribunal_judge::internal::verdict::Verdict;
use tribunal_judge::{Arena, Outcome, ResultRow};
use tribunal_runtime::{ScriptTurn, ScriptedBackend};
use tribunal_testkit::arenas::{arenas_dir, mock_run, options};

fn code_review() -> Arena {
    Arena::load(&arenas_dir().join("code_review")).unwrap()
}

/// The mock turns of a judge that reads the diff and answers `verdict`.
fn judge_turns(verdict: Verdict) -> Vec<ScriptTurn> {
    let fields = match verdict {
        Verdict::Green => json!({"summary": "The change meets every requirement as written."}),
        Verdict::Red => json!({
            "summary": "The change breaks a requirement.",
            "findings": [{"file": "CHANGE.diff", "line": 1, "problem": "a flipped verdict"}],
            "covered": ["R1"]
        }),
    };
    let turns = json!([
        {"tool_calls": [{"name": "read_file", "arguments": {"path": "CHANGE.diff"}}]},
        {"json": {"result": {"verdict": verdict.as_str(), "verdictFields": fields}}}
    ]);
    serde_json::from_value(turns).unwrap()
}

#[tokio::test]
async fn a_faithful_mock_judge_has_kappa_one_on_code_review() {
    let arena = code_review();
    let gold = arena.gold_verdicts();
    assert!(arena.items.len() >= 40, "the grown arena");
    assert_eq!(
        gold.len(),
        arena.items.len(),
        "every item has a gold verdict"
    );
    let reds = gold.values().filter(|v| **v == Verdict::Red).count();
    assert_eq!(reds * 2, gold.len(), "balanced GREEN/RED");

    let dir = tempfile::tempdir().unwrap();
    let result = mock_run(&arena, &options(&dir.path().join("r.jsonl"))).await;
    let c = calibrate(&gold, &result.rows);
    assert_eq!((c.items, c.runs), (gold.len(), gold.len()));
    assert_eq!(c.kappa.map(|k| k.value), Some(1.0));
    assert_eq!(c.accuracy.as_ref().map(|a| a.rate), Some(1.0));
    assert!(c.disagreements.is_empty());
    assert!(c.meets(1.0));
}

#[tokio::test]
async fn a_judge_that_flips_four_items_has_the_kappa_computed_by_hand() {
    let mut arena = code_review();
    let gold = arena.gold_verdicts();
    // Flip three gold-RED items to GREEN and one gold-GREEN item to RED.
    let mut flipped = Vec::new();
    for (want_gold, how_many) in [(Verdict::Red, 3), (Verdict::Green, 1)] {
        let opposite = match want_gold {
            Verdict::Green => Verdict::Red,
            Verdict::Red => Verdict::Green,
        };
        for item in arena
            .items
            .iter_mut()
            .filter(|i| gold[&i.id] == want_gold)
            .take(how_many)
        {
            item.mock = Some(ScriptedBackend::steps_of(&judge_turns(opposite)));
            flipped.push(item.id.clone());
        }
    }
    let dir = tempfile::tempdir().unwrap();
    let result = mock_run(&arena, &options(&dir.path().join("r.jsonl"))).await;
    assert!(result.rows.iter().all(|r| r.outcome != Outcome::Error));
    let c = calibrate(&gold, &result.rows);

    // By hand, n = 42 (21 gold GREEN, 21 gold RED):
    //   judged GREEN: 20 of gold GREEN, 3 of gold RED  → column 23/42
    //   judged RED:    1 of gold GREEN, 18 of gold RED → column 19/42
    //   p_o = (20 + 18) / 42 = 38/42
    //   p_e = (21/42)(23/42) + (21/42)(19/42) = (1/2)(42/42) = 1/2
    //   kappa = (38/42 − 1/2) / (1 − 1/2) = 76/42 − 1 = 34/42 = 17/21
    let n = gold.len();
    assert_eq!(n, 42, "the hand computation below is for 42 items");
    let k = c.kappa.unwrap();
    assert!((k.value - 17.0 / 21.0).abs() < 1e-12, "{}", k.value);
    let cells = &c.confusion;
    assert_eq!(
        (
            cells.green_green,
            cells.green_red,
            cells.red_green,
            cells.red_red
        ),
        (20, 1, 3, 18)
    );
    assert_eq!(c.accuracy.as_ref().map(|a| (a.agree, a.of)), Some((38, 42)));
    assert_eq!(c.true_red.as_ref().map(|a| (a.agree, a.of)), Some((18, 21)));
    assert_eq!(
        c.true_green.as_ref().map(|a| (a.agree, a.of)),
        Some((20, 21))
    );
    let mut disagreeing: Vec<String> = c.disagreements.iter().map(|d| d.id.clone()).collect();
    disagreeing.sort();
    flipped.sort();
    assert_eq!(disagreeing, flipped);
    assert!(c.meets(0.8) && !c.meets(0.82));
}

/// A row of item `id`, repeat `repeat`, whose answer's verdict is `verdict`
/// (`None`: an ERROR row).
fn row(id: &str, repeat: u32, verdict: Option<&str>) -> ResultRow {
    let outcome = if verdict.is_some() { "PASS" } else { "ERROR" };
    let answer = verdict.map_or(Value::Null, |v| json!({"verdict": v}));
    let error_code = if verdict.is_some() {
        Value::Null
    } else {
        json!("schema_mismatch")
    };
    serde_json::from_value(json!({
        "version": 1, "arena": "a", "id": id, "index": 0, "repeat": repeat,
        "config_hash": "h", "outcome": outcome, "error_code": error_code,
        "checks": [], "answer": answer, "usage": {"input_tokens": 0, "output_tokens": 0},
        "tool_calls": [], "wall_ms": 0.0, "turns": 1, "repair_used": false,
        "backend": "b", "model": "m", "finished_at_ms": 0
    }))
    .unwrap()
}

#[test]
fn errors_are_a_class_of_their_own_and_repeats_give_self_agreement() {
    let gold: indexmap::IndexMap<String, Verdict> = [
        ("a".to_string(), Verdict::Green),
        ("b".to_string(), Verdict::Red),
        ("c".to_string(), Verdict::Red),
    ]
    .into_iter()
    .collect();
    let rows = vec![
        row("a", 0, Some("GREEN")),
        row("a", 1, Some("GREEN")),
        row("a", 2, Some("GREEN")),
        row("b", 0, Some("RED")),
        row("b", 1, None),
        row("b", 2, Some("GREEN")),
        row("c", 1, Some("RED")),
        row("c", 0, Some("RED")),
        row("c", 2, Some("maybe")),
        row("unlabelled", 0, Some("RED")),
    ];
    let c = calibrate(&gold, &rows);
    assert_eq!((c.items, c.runs, c.runs_without_gold), (3, 9, 1));
    let x = &c.confusion;
    assert_eq!(
        (
            x.green_green,
            x.green_red,
            x.green_none,
            x.red_green,
            x.red_red,
            x.red_none
        ),
        (3, 0, 0, 1, 3, 2),
        "an ERROR and a verdict that is neither GREEN nor RED are both 'none'"
    );
    // accuracy 6/9; kappa over classes GREEN, RED, none:
    //   rows (gold): GREEN 3/9, RED 6/9; columns: GREEN 4/9, RED 3/9, none 2/9
    //   p_o = 6/9, p_e = (3·4 + 6·3) / 81 = 30/81
    //   kappa = (54/81 − 30/81) / (51/81) = 24/51
    assert_eq!(c.accuracy.as_ref().map(|a| (a.agree, a.of)), Some((6, 9)));
    let k = c.kappa.unwrap().value;
    assert!((k - 24.0 / 51.0).abs() < 1e-12, "{k}");
    assert_eq!(c.true_red.as_ref().map(|a| (a.agree, a.of)), Some((3, 6)));
    assert_eq!(c.true_green.as_ref().map(|a| (a.agree, a.of)), Some((3, 3)));
    // Self-agreement: a unanimous; b split three ways; c RED, RED, none.
    //   P_a = 1, P_b = 0, P_c = (2·1) / (3·2) = 1/3 → P̄ = 4/9
    //   shares: GREEN 4/9, RED 3/9, none 2/9 → P_e = 29/81
    //   Fleiss' kappa = (36/81 − 29/81) / (52/81) = 7/52
    let s = c.self_agreement.as_ref().unwrap();
    assert_eq!((s.items, s.unanimous), (3, 1));
    assert!((s.fleiss_kappa.unwrap() - 7.0 / 52.0).abs() < 1e-12);
    // Disagreements: b and c, their runs in repeat order.
    let rows = c.disagreement_rows();
    assert_eq!(
        rows,
        [
            (
                "b".to_string(),
                "RED".to_string(),
                "RED, none, GREEN".to_string()
            ),
            (
                "c".to_string(),
                "RED".to_string(),
                "RED, RED, none".to_string()
            ),
        ]
    );
    assert!(!c.meets(0.5) && c.meets(0.4));
}

#[test]
fn no_runs_and_one_class_leave_kappa_undefined() {
    let gold: indexmap::IndexMap<String, Verdict> =
        [("a".to_string(), Verdict::Green)].into_iter().collect();
    let empty = calibrate(&gold, &[]);
    assert_eq!((empty.runs, empty.accuracy.is_none()), (0, true));
    assert!(empty.kappa.is_none() && !empty.meets(-1.0));
    let one_class = calibrate(&gold, &[row("a", 0, Some("GREEN"))]);
    assert!(one_class.kappa.is_none());
    assert!(one_class.kappa_text().starts_with("kappa undefined"));
}

/// With one gold class kappa is 0 whatever the judge does: it is reported
/// undefined, naming the rate to read instead, and `--min-kappa` cannot
/// pass on it.
#[test]
fn one_gold_class_leaves_kappa_undefined() {
    let gold: indexmap::IndexMap<String, Verdict> = [("a", Verdict::Red), ("b", Verdict::Red)]
        .into_iter()
        .map(|(id, v)| (id.to_string(), v))
        .collect();
    let rows = [row("a", 0, Some("RED")), row("b", 0, Some("GREEN"))];
    let c = calibrate(&gold, &rows);
    assert!(c.kappa.is_none());
    assert!(
        c.kappa_text().contains("every gold label is RED") && c.kappa_text().contains("true-RED"),
        "{}",
        c.kappa_text()
    );
    assert!(!c.meets(-1.0));
    assert_eq!(c.true_red.as_ref().map(|a| (a.agree, a.of)), Some((1, 2)));
}
