//! The regression the item's tests must catch (R2): a `slugify` that keeps
//! accents, as the previous release did. The gold test builds the item's
//! tests against it: they must fail.
pub fn slugify(title: &str) -> String {
    title
        .split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
        .map(str::to_lowercase)
        .collect::<Vec<_>>()
        .join("-")
}
