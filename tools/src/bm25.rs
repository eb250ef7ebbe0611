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
//!
//! **Title match.** A document whose title words all appear in the query
//! (e.g. title "Tokyo Tower" for the query "Tokyo Tower height") has its
//! score multiplied by [`TITLE_MATCH_BOOST`]. Plain BM25 cannot tell the
//! passage *about* a landmark from a short near-namesake that mentions it
//! ("Tokyo Skytree … taller than the older Tokyo Tower", "Empire State
//! Building spire"): on the structured_output arena corpus it ranks the
//! namesake first for 2 of the 15 landmarks. A title the query names is the
//! strongest evidence of what a passage is about; the boost is soft, so a
//! much better BM25 match still wins.

use rustc_hash::FxHashMap;
use std::cmp::Ordering;

use crate::tokenize::for_each_token;

/// BM25 term-frequency saturation.
pub(crate) const K1: f64 = 1.2;
/// BM25 length normalisation.
pub(crate) const B: f64 = 0.75;
/// Score factor for a document whose title words are all in the query.
pub const TITLE_MATCH_BOOST: f64 = 1.5;

/// The index's maps use the Fx hash (rustc's, from `rustc-hash`): much
/// faster than SipHash on short keys. Its keys are words from corpus files
/// and document numbers, so its lack of collision resistance matters little
/// here.
type FxMap<K, V> = FxHashMap<K, V>;

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
    /// The distinct terms of every title, concatenated, sorted per title.
    title_terms: Vec<u32>,
    /// Where each document's title terms start in `title_terms` (N + 1).
    title_offsets: Vec<usize>,
    /// Per term, the documents whose rarest title term it is: each titled
    /// document is listed exactly once, under its most selective term.
    title_anchors: Vec<Vec<u32>>,
}

impl Index {
    /// Indexes `(title, text)` documents; the tokens of both are pooled,
    /// and the title's are also kept for the title match.
    pub(crate) fn build<'a, D>(docs: D) -> Index
    where
        D: IntoIterator<Item = (&'a str, &'a str)>,
    {
        let mut index = Index::default();
        let mut lengths: Vec<u32> = Vec::new();
        let mut doc_terms: Vec<u32> = Vec::new();
        for (doc, (title, text)) in docs.into_iter().enumerate() {
            let doc = u32::try_from(doc).unwrap_or(u32::MAX);
            doc_terms.clear();
            for_each_token(title, |tok| doc_terms.push(index.intern(tok)));
            let start = index.title_terms.len();
            index.title_offsets.push(start);
            index.title_terms.extend_from_slice(&doc_terms);
            index.title_terms[start..].sort_unstable();
            let unique = dedup_len(&mut index.title_terms[start..]);
            index.title_terms.truncate(start + unique);
            for_each_token(text, |tok| doc_terms.push(index.intern(tok)));
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
        index.title_offsets.push(index.title_terms.len());
        index.title_anchors = vec![Vec::new(); index.postings.len()];
        for doc in 0..lengths.len() {
            let anchor = index
                .title(doc)
                .iter()
                .copied()
                .min_by_key(|&t| index.postings[t as usize].len());
            if let Some(t) = anchor {
                index.title_anchors[t as usize].push(u32::try_from(doc).unwrap_or(u32::MAX));
            }
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
            for doc in self.title_matches(&terms) {
                if let Some(score) = acc.get_mut(&doc) {
                    *score *= TITLE_MATCH_BOOST;
                }
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
            for doc in self.title_matches(&terms) {
                acc[doc as usize] *= TITLE_MATCH_BOOST;
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

    /// The distinct terms of a document's title, sorted.
    fn title(&self, doc: usize) -> &[u32] {
        match (self.title_offsets.get(doc), self.title_offsets.get(doc + 1)) {
            (Some(&a), Some(&b)) => self.title_terms.get(a..b).unwrap_or(&[]),
            _ => &[],
        }
    }

    /// The documents with a non-empty title whose distinct terms are all
    /// among `terms` (distinct query terms, sorted).
    fn title_matches(&self, terms: &[u32]) -> Vec<u32> {
        let mut out = Vec::new();
        for &t in terms {
            for &doc in &self.title_anchors[t as usize] {
                let title = self.title(doc as usize);
                if title.iter().all(|x| terms.binary_search(x).is_ok()) {
                    out.push(doc);
                }
            }
        }
        out
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

/// Moves the distinct values of a sorted slice to its front; returns how
/// many there are.
fn dedup_len(sorted: &mut [u32]) -> usize {
    let mut len = 0;
    for i in 0..sorted.len() {
        if len == 0 || sorted[i] != sorted[len - 1] {
            sorted[len] = sorted[i];
            len += 1;
        }
    }
    len
}

#[cfg(test)]
mod tests {
    use super::Index;

    /// Untitled documents: plain BM25.
    fn index(docs: &[&str]) -> Index {
        Index::build(docs.iter().map(|d| ("", *d)))
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
        let idx = Index::build(docs.iter().enumerate().map(|(i, d)| {
            // Some titles match some queries, to exercise the boost too.
            (if i % 5 == 0 { "w1" } else { "" }, d.as_str())
        }));
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
    fn a_title_the_query_names_is_boosted() {
        let docs = [
            ("Tokyo Tower", "Lattice tower in Minato, 333 m."),
            ("Tokyo Skytree", "Tower in Tokyo, taller than Tokyo Tower."),
            ("", "Tokyo Tower Tokyo Tower"),
        ];
        let idx = Index::build(docs);
        let plain = index(&[
            "Tokyo Tower Lattice tower in Minato, 333 m.",
            "Tokyo Skytree Tower in Tokyo, taller than Tokyo Tower.",
            "Tokyo Tower Tokyo Tower",
        ]);
        let rank = [0, 1, 2];
        let boosted = idx.search("tokyo tower", 3, &rank);
        let unboosted = plain.search("tokyo tower", 3, &rank);
        let score = |hits: &[(u32, f64)], d: u32| hits.iter().find(|h| h.0 == d).map(|h| h.1);
        assert!((score(&boosted, 0).unwrap() - 1.5 * score(&unboosted, 0).unwrap()).abs() < 1e-12);
        assert_eq!(score(&boosted, 1), score(&unboosted, 1));
        assert_eq!(score(&boosted, 2), score(&unboosted, 2));
        // "Tokyo" alone names neither title in full.
        assert_eq!(
            idx.search("tokyo", 3, &rank),
            plain.search("tokyo", 3, &rank)
        );
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
