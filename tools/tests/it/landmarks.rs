//! The near-namesake trap of the structured_output arena: for each of its
//! 15 landmarks, searching the landmark's name ranks that landmark's passage
//! first, although other passages mention it (Tokyo Tower mentions the
//! Eiffel Tower, Taipei 101 the Petronas Towers, Big Ben the Elizabeth
//! Tower, …). `fixtures/landmarks.json` has 27 passages like the arena's.

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
    let mut wrong = Vec::new();
    for name in LANDMARKS {
        let hits = c.search(name, 3);
        if hits.first().map(|h| h.id.as_str()) != Some(slug(name).as_str()) {
            wrong.push(format!(
                "{name}: {:?}",
                hits.iter().map(|h| &h.id).collect::<Vec<_>>()
            ));
        }
    }
    assert!(wrong.is_empty(), "{wrong:#?}");
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
fn known_limit_a_passage_saturated_with_the_name_wins() {
    // BM25 has no notion of phrases: a short passage that says "Tokyo" four
    // times and "tower" three times outranks the Tokyo Tower passage. Arena
    // corpora should avoid such passages (or the agent must read past hit 1).
    let mut passages: Vec<Passage> = corpus().passages().to_vec();
    let skytree = passages
        .iter_mut()
        .find(|p| p.id == "tokyo-skytree")
        .unwrap();
    skytree.text = "Tokyo Skytree is a broadcasting tower in Sumida, Tokyo, completed in 2012 \
                    and 634 m tall. It replaced Tokyo Tower as the main broadcasting tower of Tokyo."
        .to_string();
    let c = Corpus::from_passages(passages);
    let ids: Vec<String> = c
        .search("Tokyo Tower", 2)
        .into_iter()
        .map(|h| h.id)
        .collect();
    assert_eq!(ids, ["tokyo-skytree", "tokyo-tower"]);
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
