//! What `tribunal import` makes of one sample, whatever tool kept it: the
//! item, the system message it had, and what of it was not mapped.

use serde_json::Value;

/// One sample as an item.
pub(super) struct Mapped {
    pub(super) item: Value,
    /// The conversation's system message, when it had one.
    pub(super) system: Option<String>,
    /// What of the sample was not mapped.
    pub(super) notes: Vec<String>,
}

/// `s` as a regular expression matching it literally (its metacharacters
/// escaped).
pub(super) fn escaped(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        if "\\.+*?()|[]{}^$#&-~".contains(c) {
            out.push('\\');
        }
        out.push(c);
    }
    out
}
