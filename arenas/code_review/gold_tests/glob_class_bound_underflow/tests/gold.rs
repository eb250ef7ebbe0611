//! The gold test: R2, no short pattern makes `compile` panic; a malformed
//! class is an error and a one-character class still compiles.
use pattern::{compile, Token};

#[test]
fn gold_short_patterns_do_not_panic() {
    for p in ["[", "[a", "a[", "[]", "[!]", "[a]", "?[b]"] {
        let _ = compile(p);
    }
    assert!(compile("[").is_err());
    assert_eq!(compile("[a]"), Ok(vec![Token::AnyWithin(vec!['a'])]));
}
