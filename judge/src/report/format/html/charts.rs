//! The report's pictures as inline SVG: the outcome bar, the latency
//! histogram and the tokens-per-item chart, plus the chart data
//! ([`Histogram`], [`TokenBars`]) the page model carries.

use crate::report::format::html::escape::escape_html;
pub use crate::report::stats::percentile;
use crate::report::summary::Summary;
use serde::{Deserialize, Serialize};
use std::fmt::Write as _;
use tribunal_runtime::internal::conversation::Usage;

/// How many bins the latency histogram has at most.
pub const LATENCY_BINS: usize = 20;
/// How many bars the tokens chart draws at most; more items are grouped
/// into consecutive runs and each bar shows the group's mean.
pub const TOKEN_BARS: usize = 200;

/// A latency histogram: equal-width bins from 0 to the largest value.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Histogram {
    /// Width of each bin, in milliseconds (0 when there is no data).
    pub bin_ms: f64,
    /// Count per bin; bin `i` holds `[i·bin_ms, (i+1)·bin_ms)`, the last
    /// bin also its upper edge.
    pub counts: Vec<usize>,
    /// The median, in milliseconds.
    pub p50_ms: f64,
    /// The 95th percentile, in milliseconds.
    pub p95_ms: f64,
    /// The largest value, in milliseconds.
    pub max_ms: f64,
}

impl Histogram {
    /// The histogram of `values` (milliseconds; negative or non-finite
    /// values count as 0).
    pub fn of(values: &[f64]) -> Histogram {
        let mut v: Vec<f64> = values
            .iter()
            .map(|x| if x.is_finite() && *x > 0.0 { *x } else { 0.0 })
            .collect();
        v.sort_by(f64::total_cmp);
        let max = v.last().copied().unwrap_or(0.0);
        if v.is_empty() {
            return Histogram {
                bin_ms: 0.0,
                counts: Vec::new(),
                p50_ms: 0.0,
                p95_ms: 0.0,
                max_ms: 0.0,
            };
        }
        let bin_ms = nice_width(max / LATENCY_BINS as f64);
        let bins = ((max / bin_ms).floor() as usize + 1).clamp(1, LATENCY_BINS + 1);
        let mut counts = vec![0; bins];
        for x in &v {
            let i = ((x / bin_ms).floor() as usize).min(bins - 1);
            counts[i] += 1;
        }
        Histogram {
            bin_ms,
            counts,
            p50_ms: percentile(&v, 0.50),
            p95_ms: percentile(&v, 0.95),
            max_ms: max,
        }
    }
}

/// A width of 1, 2 or 5 × 10^n at least `raw` (at least 1 ms).
fn nice_width(raw: f64) -> f64 {
    if !(raw.is_finite() && raw > 1.0) {
        return 1.0;
    }
    let mag = 10f64.powf(raw.log10().floor());
    [1.0, 2.0, 5.0, 10.0]
        .iter()
        .map(|m| m * mag)
        .find(|w| *w >= raw)
        .unwrap_or(10.0 * mag)
}

/// The tokens-per-item chart: input and output tokens per bar, in report
/// order; one bar per item run, or the mean of `group` consecutive runs.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TokenBars {
    /// Runs per bar (1 unless there are more than [`TOKEN_BARS`] runs).
    pub group: usize,
    /// `(input, output)` tokens per bar.
    pub bars: Vec<(u64, u64)>,
    /// Total tokens over every run.
    pub total: u64,
}

impl TokenBars {
    /// The chart of `usages`, one per item run.
    pub fn of(usages: &[Usage]) -> TokenBars {
        let group = usages.len().div_ceil(TOKEN_BARS).max(1);
        let bars = usages
            .chunks(group)
            .map(|c| {
                let n = c.len() as u64;
                let input: u64 = c.iter().map(|u| u.input_tokens).sum();
                let output: u64 = c.iter().map(|u| u.output_tokens).sum();
                (input / n, output / n)
            })
            .collect();
        TokenBars {
            group,
            bars,
            total: usages.iter().map(Usage::total).sum(),
        }
    }
}

const W: f64 = 640.0;
const H: f64 = 160.0;

/// The PASS / FAIL / ERROR bar, one segment per outcome with its count.
pub fn outcome_bar(s: &Summary) -> String {
    let mut out = format!(
        r#"<svg class="chart outcome" viewBox="0 0 {W} 28" role="img" aria-label="outcomes: {} pass, {} fail, {} error">"#,
        s.pass, s.fail, s.error
    );
    if s.total == 0 {
        let _ = write!(
            out,
            r#"<rect width="{W}" height="28" class="empty"/><text x="8" y="19" class="axis">no rows</text></svg>"#
        );
        return out;
    }
    let mut x = 0.0;
    for (n, class, label) in [
        (s.pass, "pass", "PASS"),
        (s.fail, "fail", "FAIL"),
        (s.error, "error", "ERROR"),
    ] {
        if n == 0 {
            continue;
        }
        let w = W * n as f64 / s.total as f64;
        let _ = write!(
            out,
            r#"<rect x="{x:.1}" width="{w:.1}" height="28" class="{class}"><title>{label}: {n}</title></rect>"#
        );
        if w > 60.0 {
            let _ = write!(out, r#"<text x="{:.1}" y="19">{label} {n}</text>"#, x + 6.0);
        }
        x += w;
    }
    out.push_str("</svg>");
    out
}

/// The latency histogram as bars, with p50 / p95 in the caption.
pub fn latency_histogram(h: &Histogram) -> String {
    let label = latency_caption(h);
    let peak = h.counts.iter().copied().max().unwrap_or(0).max(1) as f64;
    let n = h.counts.len().max(1) as f64;
    let bw = W / n;
    let mut out = svg_open("latency", &label);
    for (i, c) in h.counts.iter().enumerate() {
        let bh = (H - 20.0) * *c as f64 / peak;
        let lo = i as f64 * h.bin_ms;
        let _ = write!(
            out,
            r#"<rect x="{:.1}" y="{:.1}" width="{:.1}" height="{bh:.1}" class="bar"><title>{lo:.0}–{:.0} ms: {c}</title></rect>"#,
            i as f64 * bw + 1.0,
            H - 20.0 - bh,
            (bw - 2.0).max(1.0),
            lo + h.bin_ms,
        );
    }
    let _ = write!(
        out,
        r#"<text x="0" y="{H}" class="axis">0 ms</text><text x="{W}" y="{H}" class="axis end">{:.0} ms</text></svg>"#,
        n * h.bin_ms
    );
    out
}

/// The tokens-per-item chart: stacked input / output bars.
pub fn token_chart(t: &TokenBars) -> String {
    let label = token_caption(t);
    let peak = t.bars.iter().map(|(i, o)| i + o).max().unwrap_or(0).max(1) as f64;
    let bw = W / t.bars.len().max(1) as f64;
    let mut out = svg_open("tokens", &label);
    if t.total == 0 {
        let _ = write!(
            out,
            r#"<rect width="{W}" height="{H}" class="empty"/><text x="12" y="{:.0}" class="axis">no token usage recorded</text></svg>"#,
            H / 2.0
        );
        return out;
    }
    for (k, (input, output)) in t.bars.iter().enumerate() {
        let x = k as f64 * bw;
        let hi = (H - 20.0) * *input as f64 / peak;
        let ho = (H - 20.0) * *output as f64 / peak;
        let w = (bw - 1.0).max(0.5);
        let _ = write!(
            out,
            r#"<g><title>#{}: {input} in, {output} out</title><rect x="{x:.1}" y="{:.1}" width="{w:.1}" height="{hi:.1}" class="in"/><rect x="{x:.1}" y="{:.1}" width="{w:.1}" height="{ho:.1}" class="out"/></g>"#,
            k * t.group + 1,
            H - 20.0 - hi,
            H - 20.0 - hi - ho,
        );
    }
    let _ = write!(
        out,
        r#"<text x="0" y="{H}" class="axis">input</text><text x="50" y="{H}" class="axis o">output</text><text x="{W}" y="{H}" class="axis end">peak {peak:.0}</text></svg>"#
    );
    out
}

/// The latency histogram's caption.
pub(crate) fn latency_caption(h: &Histogram) -> String {
    format!(
        "Latency: p50 {:.0} ms, p95 {:.0} ms, max {:.0} ms",
        h.p50_ms, h.p95_ms, h.max_ms
    )
}

/// The tokens chart's caption.
pub(crate) fn token_caption(t: &TokenBars) -> String {
    if t.group > 1 {
        format!(
            "Tokens per item run (each bar the mean of {} runs; input dark, output light), {} in total",
            t.group, t.total
        )
    } else {
        format!(
            "Tokens per item run (input dark, output light), {} in total",
            t.total
        )
    }
}

fn svg_open(class: &str, label: &str) -> String {
    format!(
        r#"<svg class="chart {class}" viewBox="0 0 {W} {h}" role="img" aria-label="{}">"#,
        escape_html(label),
        h = H + 4.0
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn histogram_bins_cover_every_value() {
        let h = Histogram::of(&[0.0, 5.0, 12.0, 99.0, 100.0, f64::NAN]);
        assert_eq!(h.bin_ms, 5.0);
        assert_eq!(h.counts.iter().sum::<usize>(), 6);
        assert_eq!(h.counts.first(), Some(&2));
        assert_eq!(h.counts.last(), Some(&1));
        assert_eq!(h.max_ms, 100.0);
        assert_eq!(h.p50_ms, 5.0);
        assert!(Histogram::of(&[]).counts.is_empty());
    }

    #[test]
    fn token_bars_group_long_runs() {
        let u = |i, o| Usage::new(i, o);
        let few = TokenBars::of(&[u(10, 1), u(20, 2)]);
        assert_eq!((few.group, few.bars.len(), few.total), (1, 2, 33));
        let many = TokenBars::of(&vec![u(3, 1); 1000]);
        assert_eq!(many.group, 5);
        assert_eq!(many.bars.len(), 200);
        assert_eq!(many.bars[0], (3, 1));
    }
}
