use slugify::slugify;

#[test]
fn slug_is_lowercase() {
    assert_eq!(slugify("Hello World"), "hello-world");
}

#[test]
fn slug_drops_accents() {
    let slug = slugify("Crème Brûlée");
    println!("{slug}");
}
