//! BM25 ranking on a small hand-made corpus: exact order, scores, ties,
//! diacritics, empty queries. Expected scores were computed independently
//! (a 25-line Python BM25 with the same tokenisation, idf and title boost).

use tribunal_tools::{Corpus, Hit, Passage};

fn small() -> Corpus {
    Corpus::from_passages(vec![
        Passage::new(
            "a",
            "Apple pie",
            "Apple pie with apple slices and cinnamon.",
        ),
        Passage::new("b", "Apple", "A fruit."),
        Passage::new(
            "c",
            "Cinnamon roll",
            "A roll of dough with cinnamon and sugar.",
        ),
        Passage::new(
            "d",
            "Pie crust",
            "Butter, flour and water make a crust for any pie.",
        ),
        Passage::new("e", "Apple", "A fruit."),
        Passage::new(
            "f",
            "Crème brûlée",
            "A custard under a layer of caramelised sugar.",
        ),
    ])
}

fn ranked(hits: &[Hit]) -> Vec<(&str, f64)> {
    hits.iter()
        .map(|h| (h.id.as_str(), (h.score * 1e4).round() / 1e4))
        .collect()
}

#[test]
fn exact_order_and_scores() {
    let c = small();
    assert_eq!(
        ranked(&c.search("apple pie", 10)),
        // "Apple" and "Apple pie" are titles the query names: ×1.5.
        [("a", 3.6215), ("b", 1.3908), ("e", 1.3908), ("d", 1.2315)]
    );
    assert_eq!(
        ranked(&c.search("cinnamon", 10)),
        [("c", 1.3135), ("a", 0.9705)]
    );
    assert_eq!(
        ranked(&c.search("a", 10)),
        [
            ("b", 0.3226),
            ("e", 0.3226),
            ("f", 0.3077),
            ("c", 0.2166),
            ("d", 0.1981)
        ]
    );
}

#[test]
fn k_limits_the_list_without_changing_the_order() {
    let c = small();
    let all = c.search("apple pie", 10);
    assert_eq!(c.search("apple pie", 2), all[..2]);
    assert_eq!(c.search("apple pie", 1), all[..1]);
    assert!(c.search("apple pie", 0).is_empty());
}

#[test]
fn ties_are_broken_by_id_whatever_the_file_order() {
    let c = small();
    let ids = |hits: Vec<Hit>| hits.into_iter().map(|h| h.id).collect::<Vec<_>>();
    assert_eq!(ids(c.search("fruit", 5)), ["b", "e"]);
    assert_eq!(ids(c.search("sugar", 5)), ["c", "f"]);
    // Same passages, reversed file order and numeric ids: 2 < 10 by value.
    let c = Corpus::from_passages(vec![
        Passage::new("10", "x", "same"),
        Passage::new("b", "x", "same"),
        Passage::new("2", "x", "same"),
    ]);
    assert_eq!(ids(c.search("same", 5)), ["2", "10", "b"]);
}

#[test]
fn case_and_diacritics_are_folded_both_ways() {
    let c = small();
    assert_eq!(ranked(&c.search("CREME brulee", 5)), [("f", 4.1516)]);
    assert_eq!(c.search("crème BRÛLÉE", 5), c.search("creme brulee", 5));
}

#[test]
fn the_title_is_part_of_the_passage() {
    let c = Corpus::from_passages(vec![
        Passage::new("1", "Gateway Arch", "A monument in St. Louis."),
        Passage::new("2", "Monument", "An arch-shaped gate."),
    ]);
    assert_eq!(c.search("gateway", 5)[0].id, "1");
}

#[test]
fn a_title_named_by_the_query_is_boosted() {
    let c = small();
    // Plain BM25 would put "d" (1.2315) above "b" and "e" (0.9272).
    let ids: Vec<String> = c.search("apple pie", 4).into_iter().map(|h| h.id).collect();
    assert_eq!(ids, ["a", "b", "e", "d"]);
    // Only when every title word is in the query: "cinnamon" does not name
    // "Cinnamon roll", so no boost there.
    assert_eq!(
        ranked(&c.search("cinnamon", 5)),
        [("c", 1.3135), ("a", 0.9705)]
    );
    assert!((tribunal_tools::TITLE_MATCH_BOOST - 1.5).abs() < f64::EPSILON);
}

#[test]
fn numbers_are_searchable() {
    let c = small();
    let c2 = Corpus::from_passages(vec![
        Passage::new("x", "Tower", "Completed in 1889, 330 m."),
        Passage::new("y", "Tower", "Completed in 1958, 333 m."),
    ]);
    assert_eq!(c2.search("1958", 5)[0].id, "y");
    assert!(c.search("1889", 5).is_empty());
}

#[test]
fn empty_or_unmatched_queries_give_an_empty_list() {
    let c = small();
    assert!(c.search("", 3).is_empty());
    assert!(c.search("  ?!  ", 3).is_empty());
    assert!(c.search("zzz", 3).is_empty());
    assert!(Corpus::from_passages(vec![]).search("apple", 3).is_empty());
}

#[test]
fn hits_as_json() {
    let _snapshots = tribunal_testkit::bind_snapshots("tools");
    insta::assert_json_snapshot!("ranking_apple_pie", small().search("apple pie", 3));
}
