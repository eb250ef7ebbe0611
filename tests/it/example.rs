//! The README's embedding example compiles and runs.

#[path = "../../examples/embed.rs"]
mod embed;

#[tokio::test]
async fn embedding_example_runs() {
    let landmark = embed::demo().await.unwrap();
    assert_eq!(
        landmark,
        embed::Landmark {
            name: "CN Tower".into(),
            year: 1976,
            height_m: 553.0
        }
    );
}
