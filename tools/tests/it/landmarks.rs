//! The near-namesake trap of the structured_output arena: for each of its
//! 15 landmarks, searching the landmark's name ranks that landmark's passage
//! first, although other passages mention it (Tokyo Tower mentions the
//! Eiffel Tower, Taipei 101 the Petronas Towers, Big Ben the Elizabeth
//! Tower, …). `fixtures/landmarks.json` has 27 passages like the arena's;
//! the arena's own `arenas/structured_output/corpus.json` is checked too.

use std::path::Path;
use std::sync::Arc;

use tribunal_tools::{Corpus, Passage};

const LANDMARKS: [&str; 15] = [
    "Eiffel Tower",
    "Golden Gate Bridge",
    "Statue of Liberty",
    "Empire State Building",
    "Burj Khalifa",
    "CN Tower",
    "Space Needle",
    "Willis Tower",
    "Gateway Arch",
    "Washington Monument",
    "Elizabeth Tower",
    "Leaning Tower of Pisa",
    "Christ the Redeemer",
    "Tokyo Tower",
    "Petronas Towers",
];

fn corpus() -> Corpus {
    Corpus::load(&Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/it/fixtures/landmarks.json"))
        .unwrap()
}

fn arena_corpus() -> Corpus {
    Corpus::load(
        &Path::new(env!("CARGO_MANIFEST_DIR")).join("../arenas/structured_output/corpus.json"),
    )
    .unwrap()
}

/// The landmarks whose passage does not come first for `query(name)`.
fn misses(c: &Corpus, query: impl Fn(&str) -> String) -> Vec<String> {
    LANDMARKS
        .iter()
        .filter_map(|name| {
            let hits = c.search(&query(name), 3);
            let ids: Vec<&str> = hits.iter().map(|h| h.id.as_str()).collect();
            (ids.first() != Some(&slug(name).as_str())).then(|| format!("{name}: {ids:?}"))
        })
        .collect()
}

fn slug(name: &str) -> String {
    name.to_lowercase().replace(' ', "-")
}

#[test]
fn fixture_has_27_passages_and_every_landmark() {
    let c = corpus();
    assert_eq!(c.len(), 27);
    for name in LANDMARKS {
        assert_eq!(c.get(&slug(name)).unwrap().title, name);
    }
}

#[test]
fn each_landmark_name_ranks_its_own_passage_first() {
    let c = corpus();
    assert_eq!(misses(&c, |n| n.to_string()), Vec::<String>::new());
    // Also as the arena words the task, and with extra field words.
    assert_eq!(
        misses(&c, |n| format!("Return the record for {n}.")),
        Vec::<String>::new()
    );
    assert_eq!(
        misses(&c, |n| format!("{n} height year completed")),
        Vec::<String>::new()
    );
}

#[test]
fn on_the_arena_corpus_too() {
    // Its traps: "Tokyo Skytree … far taller than the older Tokyo Tower",
    // "Empire State Building spire" (443 m at the tip vs 381 m to the roof),
    // "Eiffel Tower (Paris, Texas)", "Leaning Tower of Niles", …
    let c = arena_corpus();
    assert_eq!(c.len(), 27);
    assert_eq!(misses(&c, |n| n.to_string()), Vec::<String>::new());
    assert_eq!(
        misses(&c, |n| format!("Return the record for {n}.")),
        Vec::<String>::new()
    );
    assert_eq!(
        misses(&c, |n| format!("{n} height year completed")),
        Vec::<String>::new()
    );
}

#[test]
fn the_trap_passages_do_come_second() {
    // Proof that the traps are real: the namesake is found, just lower.
    let c = corpus();
    let second = |q: &str| c.search(q, 2)[1].id.clone();
    assert_eq!(second("Eiffel Tower"), "gustave-eiffel");
    assert_eq!(second("Tokyo Tower"), "tokyo-skytree");
    assert_eq!(second("Elizabeth Tower"), "big-ben");
    assert_eq!(second("Petronas Towers"), "taipei-101");
    assert_eq!(second("Christ the Redeemer"), "redeemer-church");
    assert_eq!(second("Statue of Liberty"), "liberty-bell");
}

#[test]
fn the_title_match_beats_a_passage_saturated_with_the_name() {
    // Plain BM25 has no notion of phrases: a short passage that says "Tokyo"
    // four times and "tower" three times scores above the Tokyo Tower
    // passage (5.05 vs 4.75). The title match (×1.5) puts it back first.
    let mut passages: Vec<Passage> = corpus().passages().to_vec();
    let skytree = passages
        .iter_mut()
        .find(|p| p.id == "tokyo-skytree")
        .unwrap();
    skytree.text = "Tokyo Skytree is a broadcasting tower in Sumida, Tokyo, completed in 2012 \
                    and 634 m tall. It replaced Tokyo Tower as the main broadcasting tower of Tokyo."
        .to_string();
    let c = Corpus::from_passages(passages);
    let hits = c.search("Tokyo Tower", 2);
    let ids: Vec<&str> = hits.iter().map(|h| h.id.as_str()).collect();
    assert_eq!(ids, ["tokyo-tower", "tokyo-skytree"]);
    assert!(
        hits[1].score > hits[0].score / 1.5,
        "without the boost the namesake would win"
    );
}

#[test]
fn concurrent_searches_on_a_shared_corpus_agree() {
    let c = Arc::new(corpus());
    let expected: Vec<_> = LANDMARKS.iter().map(|q| c.search(q, 5)).collect();
    let handles: Vec<_> = (0..4)
        .map(|_| {
            let c = Arc::clone(&c);
            std::thread::spawn(move || LANDMARKS.iter().map(|q| c.search(q, 5)).collect::<Vec<_>>())
        })
        .collect();
    for h in handles {
        assert_eq!(h.join().unwrap(), expected);
    }
}
