//! BM25 index build and query over 100,000 generated passages.
//!
//! The generator is deterministic (xorshift64, fixed seed): a 30,000-word
//! synthetic vocabulary drawn with a Zipf-like skew, titles of 2–4 words and
//! texts of 30–90 words, so a few words are in most passages (long posting
//! lists) and most are rare. Targets: build ≤ 2 s, p50 query ≤ 1 ms.
//!
//! Besides criterion's figures, the bench prints per-query percentiles
//! (p50/p95/max over 1,000 queries) to stderr.
#![allow(missing_docs)]

use std::hint::black_box;
use std::time::{Duration, Instant};

use criterion::{BatchSize, Criterion, criterion_group, criterion_main};
use tribunal_tools::{Corpus, Passage};

const PASSAGES: usize = 100_000;
const VOCABULARY: usize = 30_000;

struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        let mut x = self.0;
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        self.0 = x;
        x
    }
    /// Uniform in [0, 1).
    fn unit(&mut self) -> f64 {
        (self.next() >> 11) as f64 / (1u64 << 53) as f64
    }
    fn range(&mut self, lo: usize, hi: usize) -> usize {
        lo + (self.next() % (hi - lo) as u64) as usize
    }
}

fn vocabulary() -> Vec<String> {
    const SYLLABLES: [&str; 24] = [
        "ka", "to", "ri", "mon", "el", "sa", "vu", "ne", "dor", "pi", "la", "qua", "zen", "ho",
        "tri", "bel", "gar", "os", "un", "fi", "wes", "ly", "cor", "ba",
    ];
    (0..VOCABULARY)
        .map(|mut i| {
            let mut w = String::new();
            loop {
                w.push_str(SYLLABLES[i % SYLLABLES.len()]);
                i /= SYLLABLES.len();
                if i == 0 {
                    break;
                }
            }
            w
        })
        .collect()
}

/// A word index skewed towards the front of the vocabulary.
fn zipfish(rng: &mut Rng) -> usize {
    ((VOCABULARY as f64) * rng.unit().powi(3)) as usize
}

fn words(rng: &mut Rng, vocab: &[String], n: usize) -> String {
    let mut s = String::new();
    for i in 0..n {
        if i > 0 {
            s.push(' ');
        }
        s.push_str(&vocab[zipfish(rng)]);
    }
    s
}

fn passages() -> Vec<Passage> {
    let vocab = vocabulary();
    let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
    (0..PASSAGES)
        .map(|i| {
            let title_len = rng.range(2, 5);
            let text_len = rng.range(30, 91);
            let title = words(&mut rng, &vocab, title_len);
            let text = format!(
                "{} {}.",
                words(&mut rng, &vocab, text_len),
                rng.range(1000, 2100)
            );
            Passage::new(i.to_string(), title, text)
        })
        .collect()
}

fn queries(n: usize) -> Vec<String> {
    let vocab = vocabulary();
    let mut rng = Rng(42);
    (0..n)
        .map(|_| {
            let len = rng.range(2, 5);
            words(&mut rng, &vocab, len)
        })
        .collect()
}

fn percentiles(corpus: &Corpus, queries: &[String]) {
    let mut times: Vec<Duration> = queries
        .iter()
        .map(|q| {
            let t = Instant::now();
            black_box(corpus.search(black_box(q), 3));
            t.elapsed()
        })
        .collect();
    times.sort();
    let at = |p: f64| times[((times.len() - 1) as f64 * p) as usize];
    eprintln!(
        "bm25/query percentiles over {} queries, {} passages, {} terms: p50 {:?}, p95 {:?}, max {:?}",
        times.len(),
        corpus.len(),
        corpus.term_count(),
        at(0.5),
        at(0.95),
        at(1.0)
    );
}

fn bench(c: &mut Criterion) {
    let passages = passages();

    let mut group = c.benchmark_group("bm25");
    group.sample_size(10);
    group.bench_function("build_100k", |b| {
        b.iter_batched(
            || passages.clone(),
            |p| black_box(Corpus::from_passages(p)),
            BatchSize::LargeInput,
        )
    });
    group.finish();

    let corpus = Corpus::from_passages(passages);
    let qs = queries(1_000);
    percentiles(&corpus, &qs);
    let mut i = 0usize;
    c.bench_function("bm25/query_100k_k3", |b| {
        b.iter(|| {
            i = (i + 1) % qs.len();
            black_box(corpus.search(black_box(&qs[i]), 3))
        })
    });
}

criterion_group!(benches, bench);
criterion_main!(benches);
