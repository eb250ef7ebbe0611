//! Slugs for URLs.

use unicode_normalization::UnicodeNormalization;

/// Lowercase ASCII words joined by `-`; accents are dropped.
pub fn slugify(title: &str) -> String {
    let ascii: String = title
        .nfd()
        .filter(|c| c.is_ascii())
        .collect();
    ascii
        .split(|c: char| !c.is_ascii_alphanumeric())
        .filter(|w| !w.is_empty())
        .map(str::to_lowercase)
        .collect::<Vec<_>>()
        .join("-")
}
