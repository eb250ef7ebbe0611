//! Telling a tool result that brings something new from one that only
//! shows again what the run's earlier results showed (the same passages
//! under another query, the same file under another path).

use std::collections::HashSet;
use std::hash::{DefaultHasher, Hash, Hasher};

/// The lines of the tool results a run has seen, each kept as a hash (a
/// run in flight is memory: a passage costs 8 bytes, not its text).
///
/// A result's lines are its non-blank lines, trimmed. A result brings
/// nothing new when every one of its lines was in an earlier result; a
/// result without a line (empty) brings nothing new either.
#[derive(Debug, Default)]
pub(crate) struct SeenResults {
    lines: HashSet<u64>,
}

impl SeenResults {
    /// Takes in `content`'s lines; whether any of them was new.
    pub(crate) fn take_in(&mut self, content: &str) -> bool {
        let mut new = false;
        for line in content.lines().map(str::trim).filter(|l| !l.is_empty()) {
            let mut hasher = DefaultHasher::new();
            line.hash(&mut hasher);
            new |= self.lines.insert(hasher.finish());
        }
        new
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_result_is_new_while_one_of_its_lines_is() {
        let mut seen = SeenResults::default();
        assert!(seen.take_in("[a] Alpha\n[b] Beta"));
        // The same passages in another order, under other spacing: nothing new.
        assert!(!seen.take_in("  [b] Beta\n\n[a] Alpha  "));
        assert!(seen.take_in("[b] Beta\n[c] Gamma"));
        assert!(!seen.take_in("[c] Gamma"));
        assert!(!seen.take_in(""));
    }
}
