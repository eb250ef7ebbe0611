//! The README's reference sections are made from the code's own lists, so
//! they cannot drift from what the program accepts.

use tribunal::judge::CheckKind;

const START: &str =
    "<!-- check-table start: CheckKind::markdown_table(), kept current by a test -->\n";
const END: &str = "<!-- check-table end -->";

#[test]
fn the_readme_check_table_is_the_check_kind_list() {
    let readme =
        std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/README.md")).unwrap();
    let start = readme.find(START).expect("the check-table start marker") + START.len();
    let end = readme[start..]
        .find(END)
        .expect("the check-table end marker")
        + start;
    let expected = CheckKind::markdown_table();
    assert!(
        readme[start..end] == expected,
        "README.md's check table is out of date; between the markers it must read:\n{expected}"
    );
}
