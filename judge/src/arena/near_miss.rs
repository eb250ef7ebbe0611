//! Near-miss names: a misspelt key, field, value or check type is told
//! the name it was probably meant to be ("did you mean `require_tool_first`?"),
//! as cargo and clap do, instead of every name it could have been.

/// The candidate closest to `name` by edit distance (case-insensitive,
/// a swap of two neighbours counting once), when it is close enough to be a
/// typo: at most a third of `name`'s length apart, at least 1, at most 3.
/// Ties go to the first candidate. Failing that, a candidate that `name`
/// begins with or that begins with `name` (at least 3 letters in common).
pub(crate) fn closest<'a>(
    name: &str,
    candidates: impl IntoIterator<Item = &'a str>,
) -> Option<&'a str> {
    let lower = name.to_lowercase();
    let limit = (lower.chars().count() / 3).clamp(1, 3);
    let candidates: Vec<&str> = candidates.into_iter().filter(|c| *c != name).collect();
    let near = candidates
        .iter()
        .map(|c| (strsim::damerau_levenshtein(&lower, &c.to_lowercase()), *c))
        .filter(|(d, _)| *d <= limit)
        .min_by_key(|(d, _)| *d)
        .map(|(_, c)| c);
    // Else a name written out or cut short (`tolerance` for `tol`).
    near.or_else(|| {
        candidates.into_iter().find(|c| {
            let c = c.to_lowercase();
            c.len().min(lower.len()) >= 3 && (lower.starts_with(&c) || c.starts_with(&lower))
        })
    })
}

/// `unknown {noun} `{name}`` and, when one of `known` is close, `; did you
/// mean `…`?`; else the list of the known names.
pub(crate) fn unknown(noun: &str, name: &str, known: &[&str]) -> String {
    match closest(name, known.iter().copied()) {
        Some(near) => format!("unknown {noun} `{name}`; did you mean `{near}`?"),
        None if known.is_empty() => format!("unknown {noun} `{name}`; there is none"),
        None => format!(
            "unknown {noun} `{name}`; expected one of {}",
            known
                .iter()
                .map(|k| format!("`{k}`"))
                .collect::<Vec<_>>()
                .join(", ")
        ),
    }
}

/// What to tell of a tool name the arena does not offer: the nearest
/// offered tool (`; did you mean `search`?`), else the tools it offers.
pub(crate) fn tool_hint(name: &str, offered: &[&str]) -> String {
    match closest(name, offered.iter().copied()) {
        Some(near) => format!("; did you mean `{near}`?"),
        None if offered.is_empty() => "; it offers none".to_string(),
        None => format!(
            "; it offers {}",
            offered
                .iter()
                .map(|k| format!("`{k}`"))
                .collect::<Vec<_>>()
                .join(", ")
        ),
    }
}

/// A serde "unknown field" or "unknown variant" error, read back from its
/// message (`unknown field `x`, expected one of `a`, `b``), so every reader
/// that deserialises with `deny_unknown_fields` can name the near miss.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct UnknownName {
    /// Whether it names a variant (a value), not a field.
    pub(crate) variant: bool,
    /// The name that is not known.
    pub(crate) name: String,
    /// The names that are.
    pub(crate) expected: Vec<String>,
}

impl UnknownName {
    /// Reads serde's message; `None` when it is another error.
    pub(crate) fn parse(message: &str) -> Option<UnknownName> {
        let (variant, rest) = if let Some(rest) = message.strip_prefix("unknown field `") {
            (false, rest)
        } else {
            (true, message.strip_prefix("unknown variant `")?)
        };
        let (name, rest) = rest.split_once("`, ")?;
        let expected = match rest.strip_prefix("expected ") {
            Some(list) => list
                .split('`')
                .skip(1)
                .step_by(2)
                .map(str::to_string)
                .collect(),
            None => Vec::new(),
        };
        Some(UnknownName {
            variant,
            name: name.to_string(),
            expected,
        })
    }

    /// The message in this crate's words: `unknown {noun} `x`; did you mean
    /// `y`?` (`noun` names a field; a variant is a `value`).
    pub(crate) fn explain(&self, noun: &str) -> String {
        let known: Vec<&str> = self.expected.iter().map(String::as_str).collect();
        unknown(
            if self.variant { "value" } else { noun },
            &self.name,
            &known,
        )
    }
}

/// `message` with a serde unknown-name error explained
/// ([`UnknownName::explain`]); any other message as it is.
pub(crate) fn explain_message(message: &str, noun: &str) -> String {
    match UnknownName::parse(message) {
        Some(unknown) => unknown.explain(noun),
        None => message.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_typo_finds_its_name_and_a_stranger_finds_none() {
        let known = ["require_tool_first", "name", "tools", "budget"];
        assert_eq!(
            closest("require_tool_frist", known),
            Some("require_tool_first")
        );
        assert_eq!(closest("Nmae", known), Some("name"));
        assert_eq!(closest("tool", known), Some("tools"));
        assert_eq!(closest("colour", known), None);
        assert_eq!(closest("tolerance", ["path", "tol"]), Some("tol"));
        assert_eq!(
            closest("desc", ["path", "description"]),
            Some("description")
        );
        assert_eq!(closest("to", ["tol"]), Some("tol"));
        assert_eq!(closest("x", known), None);
    }

    #[test]
    fn serde_messages_are_read_back() {
        let u = UnknownName::parse(
            "unknown field `tolerance`, expected one of `path`, `value`, `tol`, `description`",
        )
        .unwrap();
        assert_eq!(u.name, "tolerance");
        assert_eq!(u.expected, ["path", "value", "tol", "description"]);
        assert_eq!(
            u.explain("field"),
            "unknown field `tolerance`; did you mean `tol`?"
        );
        let u = UnknownName::parse("unknown field `colour`, expected `path` or `value`").unwrap();
        assert_eq!(
            u.explain("field"),
            "unknown field `colour`; expected one of `path`, `value`"
        );
        let u =
            UnknownName::parse("unknown variant `lenent`, expected `lenient` or `strict`").unwrap();
        assert_eq!(
            u.explain("key"),
            "unknown value `lenent`; did you mean `lenient`?"
        );
        let u = UnknownName::parse("unknown field `x`, there are no fields").unwrap();
        assert_eq!(u.explain("field"), "unknown field `x`; there is none");
        assert_eq!(UnknownName::parse("missing field `path`"), None);
    }
}
