//! Arbitrary text through `Corpus::from_json_str`; a corpus that loads is
//! searched with a query taken from its own text.
#![no_main]

use libfuzzer_sys::fuzz_target;
use tribunal_tools::Corpus;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    if let Ok(corpus) = Corpus::from_json_str(text, "corpus.json") {
        let query: String = text.chars().filter(|c| c.is_alphanumeric() || *c == ' ').take(64).collect();
        let _ = corpus.search(&query, 5);
        let _ = corpus.search("tower height", 10);
        assert_eq!(corpus.len(), corpus.passages().len());
    }
});
