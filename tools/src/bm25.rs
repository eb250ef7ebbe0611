//! An in-memory inverted index ranked with Okapi BM25 (k1 = 1.2, b = 0.75).
//!
//! Built once from the token streams of the documents; read-only afterwards,
//! so one index serves any number of concurrent searches. Documents are known
//! only by their position (`u32`); the caller maps positions to passages and
//! supplies the tie-break order.
//!
//! The score of document `d` for query terms `q` (each counted once) is
//!
//! ```text
//! Σ idf(t) · tf(t,d) · (k1 + 1) / (tf(t,d) + k1 · (1 − b + b · |d| / avgdl))
//! idf(t) = ln(1 + (N − n(t) + 0.5) / (n(t) + 0.5))
//! ```
//!
//! (the Lucene form of idf, which never goes negative, so a very common word
//! still counts a little instead of pushing documents down).

use std::cmp::Ordering;
use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};

use crate::tokenize::for_each_token;

/// BM25 term-frequency saturation.
pub(crate) const K1: f64 = 1.2;
/// BM25 length normalisation.
pub(crate) const B: f64 = 0.75;

/// The Fx hash (rustc's): much faster than SipHash on short keys. The
/// index's keys are words from trusted corpus files, so its lack of
/// collision resistance does not matter here.
#[derive(Debug, Default, Clone, Copy)]
pub(crate) struct FxHasher(u64);

const FX_SEED: u64 = 0x51_7c_c1_b7_27_22_0a_95;

impl FxHasher {
    fn add(&mut self, word: u64) {
        self.0 = (self.0.rotate_left(5) ^ word).wrapping_mul(FX_SEED);
    }
}

impl Hasher for FxHasher {
    fn write(&mut self, bytes: &[u8]) {
        let mut chunks = bytes.chunks_exact(8);
        for c in &mut chunks {
            let mut w = [0u8; 8];
            w.copy_from_slice(c);
            self.add(u64::from_le_bytes(w));
        }
        let rest = chunks.remainder();
        if !rest.is_empty() {
            let mut w = [0u8; 8];
            w[..rest.len()].copy_from_slice(rest);
            self.add(u64::from_le_bytes(w));
        }
    }
    fn write_u8(&mut self, i: u8) {
        self.add(u64::from(i));
    }
    fn write_u32(&mut self, i: u32) {
        self.add(u64::from(i));
    }
    fn write_u64(&mut self, i: u64) {
        self.add(i);
    }
    fn write_usize(&mut self, i: usize) {
        self.add(i as u64);
    }
    fn finish(&self) -> u64 {
        self.0
    }
}

type FxMap<K, V> = HashMap<K, V, BuildHasherDefault<FxHasher>>;

#[derive(Debug, Clone, Copy)]
struct Posting {
    doc: u32,
    tf: u32,
}

/// The index: a posting list per term, plus each document's length norm.
#[derive(Debug, Default)]
pub(crate) struct Index {
    terms: FxMap<String, u32>,
    postings: Vec<Vec<Posting>>,
    idf: Vec<f64>,
    /// `k1 · (1 − b + b · |d| / avgdl)` per document.
    norms: Vec<f64>,
}

impl Index {
    /// Indexes the documents; each document is a list of fields (e.g. title
    /// and text) whose tokens are pooled.
    pub(crate) fn build<'a, D, F>(docs: D) -> Index
    where
        D: IntoIterator<Item = F>,
        F: IntoIterator<Item = &'a str>,
    {
        let mut index = Index::default();
        let mut lengths: Vec<u32> = Vec::new();
        let mut doc_terms: Vec<u32> = Vec::new();
        for (doc, fields) in docs.into_iter().enumerate() {
            let doc = u32::try_from(doc).unwrap_or(u32::MAX);
            doc_terms.clear();
            for field in fields {
                for_each_token(field, |tok| doc_terms.push(index.intern(tok)));
            }
            lengths.push(u32::try_from(doc_terms.len()).unwrap_or(u32::MAX));
            doc_terms.sort_unstable();
            let mut i = 0;
            while i < doc_terms.len() {
                let term = doc_terms[i];
                let run = doc_terms[i..].iter().take_while(|&&t| t == term).count();
                let tf = u32::try_from(run).unwrap_or(u32::MAX);
                index.postings[term as usize].push(Posting { doc, tf });
                i += run;
            }
        }
        let n = lengths.len() as f64;
        let avgdl = if lengths.is_empty() {
            1.0
        } else {
            (lengths.iter().map(|&l| f64::from(l)).sum::<f64>() / n).max(f64::MIN_POSITIVE)
        };
        index.norms = lengths
            .iter()
            .map(|&l| K1 * (1.0 - B + B * f64::from(l) / avgdl))
            .collect();
        index.idf = index
            .postings
            .iter()
            .map(|p| {
                let df = p.len() as f64;
                (1.0 + (n - df + 0.5) / (df + 0.5)).ln()
            })
            .collect();
        for p in &mut index.postings {
            p.shrink_to_fit();
        }
        index
    }

    fn intern(&mut self, tok: &str) -> u32 {
        if let Some(&id) = self.terms.get(tok) {
            return id;
        }
        let id = u32::try_from(self.postings.len()).unwrap_or(u32::MAX);
        self.terms.insert(tok.to_string(), id);
        self.postings.push(Vec::new());
        id
    }

    /// Number of documents.
    pub(crate) fn len(&self) -> usize {
        self.norms.len()
    }

    /// Number of distinct terms.
    pub(crate) fn term_count(&self) -> usize {
        self.postings.len()
    }

    /// The `k` best documents for `query`, best first, as `(doc, score)`.
    /// Equal scores are ordered by `tie_rank[doc]` ascending. Documents that
    /// share no term with the query are never returned.
    pub(crate) fn search(&self, query: &str, k: usize, tie_rank: &[u32]) -> Vec<(u32, f64)> {
        if k == 0 {
            return Vec::new();
        }
        let mut terms: Vec<u32> = Vec::new();
        for_each_token(query, |tok| {
            if let Some(&t) = self.terms.get(tok) {
                terms.push(t);
            }
        });
        terms.sort_unstable();
        terms.dedup();
        let total: usize = terms.iter().map(|&t| self.postings[t as usize].len()).sum();
        if total == 0 {
            return Vec::new();
        }
        let mut scored: Vec<(u32, f64)> = if total.saturating_mul(8) < self.len() {
            // Few postings: a hash map is cheaper than a dense array.
            let mut acc: FxMap<u32, f64> =
                FxMap::with_capacity_and_hasher(total, Default::default());
            for &t in &terms {
                self.accumulate(t, |doc, s| *acc.entry(doc).or_insert(0.0) += s);
            }
            acc.into_iter().collect()
        } else {
            let mut acc = vec![0.0f64; self.len()];
            let mut touched: Vec<u32> = Vec::new();
            for &t in &terms {
                self.accumulate(t, |doc, s| {
                    let slot = &mut acc[doc as usize];
                    // Every contribution is > 0, so 0 means "not seen yet".
                    if *slot == 0.0 {
                        touched.push(doc);
                    }
                    *slot += s;
                });
            }
            touched.into_iter().map(|d| (d, acc[d as usize])).collect()
        };
        let rank = |d: u32| tie_rank.get(d as usize).copied().unwrap_or(d);
        let order = |a: &(u32, f64), b: &(u32, f64)| -> Ordering {
            b.1.total_cmp(&a.1).then_with(|| rank(a.0).cmp(&rank(b.0)))
        };
        if scored.len() > k {
            scored.select_nth_unstable_by(k - 1, order);
            scored.truncate(k);
        }
        scored.sort_unstable_by(order);
        scored
    }

    fn accumulate(&self, term: u32, mut add: impl FnMut(u32, f64)) {
        let idf = self.idf[term as usize];
        for p in &self.postings[term as usize] {
            let tf = f64::from(p.tf);
            add(
                p.doc,
                idf * tf * (K1 + 1.0) / (tf + self.norms[p.doc as usize]),
            );
        }
    }
}

#[cfg(test)]
mod tests {
    use super::Index;

    fn index(docs: &[&str]) -> Index {
        Index::build(docs.iter().map(|d| [*d]))
    }

    #[test]
    fn scores_match_the_formula() {
        // N = 2, "tower" in both docs, "eiffel" in one.
        let idx = index(&["eiffel tower", "tower tower tower paris"]);
        let hits = idx.search("eiffel", 5, &[0, 1]);
        assert_eq!(hits.len(), 1);
        let idf = (1.0f64 + (2.0 - 1.0 + 0.5) / 1.5).ln();
        let avgdl = 3.0;
        let norm = 1.2 * (1.0 - 0.75 + 0.75 * 2.0 / avgdl);
        let expected = idf * 1.0 * 2.2 / (1.0 + norm);
        assert!((hits[0].1 - expected).abs() < 1e-12, "{hits:?}");
    }

    #[test]
    fn repeated_query_words_count_once() {
        let idx = index(&["eiffel tower", "tokyo tower"]);
        assert_eq!(
            idx.search("eiffel", 2, &[0, 1]),
            idx.search("eiffel eiffel EIFFEL", 2, &[0, 1])
        );
    }

    #[test]
    fn ties_follow_the_rank() {
        let idx = index(&["same words", "same words", "same words"]);
        let docs =
            |r: &[u32]| -> Vec<u32> { idx.search("same", 3, r).into_iter().map(|h| h.0).collect() };
        assert_eq!(docs(&[0, 1, 2]), [0, 1, 2]);
        assert_eq!(docs(&[2, 0, 1]), [1, 2, 0]);
    }

    #[test]
    fn top_k_agrees_with_full_sort_on_both_accumulators() {
        let docs: Vec<String> = (0..200)
            .map(|i| format!("w{} w{} w{} common", i % 7, i % 11, i % 13))
            .collect();
        let idx = Index::build(docs.iter().map(|d| [d.as_str()]));
        let rank: Vec<u32> = (0..200).collect();
        for q in ["w1 w2", "common w3", "w5"] {
            let all = idx.search(q, 1000, &rank);
            for k in [1, 3, 10] {
                assert_eq!(
                    idx.search(q, k, &rank),
                    all[..k.min(all.len())],
                    "{q} k={k}"
                );
            }
        }
    }

    #[test]
    fn empty_index_and_empty_query() {
        let idx = index(&[]);
        assert!(idx.search("x", 3, &[]).is_empty());
        let idx = index(&["a b"]);
        assert!(idx.search("", 3, &[0]).is_empty());
        assert!(idx.search("zzz", 3, &[0]).is_empty());
        assert!(idx.search("a", 0, &[0]).is_empty());
    }
}
