//! The renderings of a [`Comparison`]: the terminal text, Markdown (for a
//! pull request), JSON, and the one-line figures every rendering shares —
//! the pass-rate change with, beside it, the change in tokens per item run
//! and per PASS.

use super::markdown::{code_cell, code_span};
use super::{MOCK_BANNER, md_escape as md};
use crate::report::compare::{ChangeKind, Comparison, Gate, Side, VerdictChange};
use crate::report::stats::PairedMethod;
use crate::report::tokens::{TokenUse, figure, grouped, signed_count};
use serde::Serialize;
use std::fmt::Write as _;

/// The version of the comparison's JSON layout (`tribunal compare --report
/// json`).
pub const COMPARE_VERSION: u32 = 1;

/// The JSON of a comparison: the gate's verdict, then every field of the
/// [`Comparison`].
#[derive(Serialize)]
struct ComparisonJson<'a> {
    version: u32,
    gate: String,
    gate_fails: bool,
    gate_line: String,
    /// What the caller exits with (`tribunal compare`: 0, 1, or an input
    /// problem's code), as it maps [`Comparison::gate_outcome`].
    exit_code: u8,
    #[serde(flatten)]
    comparison: &'a Comparison,
}

impl Comparison {
    /// A plain-text summary for the terminal.
    pub fn to_text(&self) -> String {
        let (b, n) = (&self.base, &self.new);
        let mut out = String::new();
        let _ = writeln!(out, "compare {} → {}", side_text(b), side_text(n));
        let _ = writeln!(out, "{} · {}", self.pass_rate_line(), self.changes_counts());
        let _ = writeln!(out, "{}", self.tokens_line());
        let _ = writeln!(out, "{}", self.paired_line());
        let _ = writeln!(out, "{}", self.latency_line());
        if let Some(note) = self.sampling_note() {
            let _ = writeln!(out, "note: {note}");
        }
        for c in &self.changes {
            let word = match c.kind {
                ChangeKind::Regression => "REGRESSION",
                ChangeKind::Fix => "fix",
                ChangeKind::Changed => "changed",
                ChangeKind::ChecksChanged => "the checks changed:",
            };
            let _ = write!(
                out,
                "  {word:<10} {} #{}: {} → {}",
                c.id,
                c.repeat,
                c.base.as_str(),
                c.new.as_str()
            );
            let why = c.why();
            if !why.is_empty() {
                let _ = write!(out, " ({why})");
            }
            out.push('\n');
        }
        for v in &self.verdict_changes {
            let _ = writeln!(
                out,
                "  {:<10} {} #{}: {}",
                "verdict",
                v.id,
                v.repeat,
                v.text()
            );
        }
        for r in &self.item_rates {
            let word = if r.new_pass < r.base_pass {
                "worse"
            } else {
                "better"
            };
            let _ = writeln!(
                out,
                "  {word:<10} {}: {}/{} → {}/{} PASS",
                r.id, r.base_pass, r.runs, r.new_pass, r.runs
            );
        }
        for (label, keys) in [
            ("only in baseline", &self.only_base),
            ("only in new", &self.only_new),
        ] {
            if !keys.is_empty() {
                let _ = writeln!(out, "{} item run(s) {label}", keys.len());
            }
        }
        for problem in &self.problems {
            let _ = writeln!(out, "cannot gate: {problem}");
        }
        out
    }
    /// When the two sides' answers were sampled differently (a temperature
    /// on one side only, another seed…): what each side did, since an
    /// outcome change may then be the sampling's and not the model's.
    /// `None` when they agree, or when a side does not say (mock rows,
    /// rows written before rows said).
    pub fn sampling_note(&self) -> Option<String> {
        match (&self.base.sampling, &self.new.sampling) {
            (Some(b), Some(n)) if b != n => Some(format!(
                "the sides were sampled differently (baseline: {b}; new: {n}): a changed outcome may be the sampling's, not the model's"
            )),
            _ => None,
        }
    }

    /// The paired test in one line: the matched items' change in pass rate
    /// with its interval, and the p-value of worse against better.
    pub fn paired_line(&self) -> String {
        let p = &self.paired;
        let ci = p
            .delta_ci
            .map(|ci| format!(" (95% CI {})", ci.points()))
            .unwrap_or_default();
        let (test, unit) = match p.method {
            PairedMethod::McnemarExact => ("McNemar exact", "item runs"),
            PairedMethod::SignTestItemRates => ("sign test on per-item pass rates", "items"),
        };
        format!(
            "paired over {} matched {unit}: {:+.1} points{ci}; {} worse, {} better, p = {:.4} ({test}, two-sided; ERROR counts as not passed)",
            p.items,
            p.delta * 100.0,
            p.worse,
            p.better,
            p.p_value
        )
    }

    /// The gate's verdict in one line: `gate any regression: FAIL (2
    /// regressions)`.
    pub fn gate_line(&self, gate: Gate) -> String {
        if !self.problems.is_empty() {
            let codes: Vec<&str> = self.problems.iter().map(|p| p.code()).collect();
            return format!(
                "gate {}: FAIL (the inputs cannot be gated on: {})",
                gate.describe(),
                codes.join(", ")
            );
        }
        let verdict = if self.fails(gate) { "FAIL" } else { "pass" };
        let why = match gate {
            Gate::Any => format!("{} regression(s)", self.regressions()),
            Gate::Significant { .. } => format!(
                "{} worse, {} better, p = {:.4}",
                self.paired.worse, self.paired.better, self.paired.p_value
            ),
        };
        format!("gate {}: {verdict} ({why})", gate.describe())
    }

    /// `pass rate 80.0% → 80.0% (+0.0 points)`.
    pub fn pass_rate_line(&self) -> String {
        format!(
            "pass rate {:.1}% → {:.1}% ({:+.1} points)",
            self.base.pass_rate * 100.0,
            self.new.pass_rate * 100.0,
            self.pass_rate_delta * 100.0
        )
    }

    /// `1 regression(s), 0 fix(es), 0 other change(s)`, and `, 2 scored
    /// by changed checks` when the checks changed under some.
    fn changes_counts(&self) -> String {
        let rescored = match self.count(ChangeKind::ChecksChanged) {
            0 => String::new(),
            n => format!(", {n} scored by changed checks (not regressions)"),
        };
        format!(
            "{} regression(s), {} fix(es), {} other change(s){rescored}",
            self.regressions(),
            self.fixes(),
            self.count(ChangeKind::Changed)
        )
    }

    /// The change in tokens beside the pass-rate change: `tokens/item 3,434
    /// → 1,302 (-2,132, -62.1%) · tokens/PASS 4,293 → 1,628 (-2,665,
    /// -62.1%)`, with the definitions (input + output; per item over every
    /// run, ERROR included; per PASS over the PASS runs).
    pub fn tokens_line(&self) -> String {
        let (b, n) = (&self.base.tokens, &self.new.tokens);
        let judge = if b.judge.is_some() || n.judge.is_some() {
            ", the rubric judge's included"
        } else {
            ""
        };
        let mock = if self.base.mock || self.new.mock {
            "; mock: as the script's `usage` says"
        } else {
            ""
        };
        format!(
            "tokens/item {} · tokens/PASS {} (input + output{judge}; per item: over every run, ERROR included; per PASS: all runs' tokens over the PASS runs{mock})",
            self.tokens_per_item.text(),
            self.tokens_per_pass.text()
        )
    }

    /// `latency mean 10.0 → 12.0 ms (+2.0), p95 …`.
    fn latency_line(&self) -> String {
        let (b, n) = (&self.base, &self.new);
        format!(
            "latency mean {:.1} → {:.1} ms ({:+.1}), p95 {:.1} → {:.1} ms ({:+.1})",
            b.wall_mean_ms,
            n.wall_mean_ms,
            self.wall_mean_delta_ms,
            b.wall_p95_ms,
            n.wall_p95_ms,
            self.wall_p95_delta_ms
        )
    }

    /// The two sides' numbers, one `[label, baseline, new, change]` row
    /// each: outcomes, pass rate and its interval, tokens per item run,
    /// per PASS and in total, the cached share, latency. The Markdown table
    /// and the HTML page show these rows.
    pub fn figures(&self) -> Vec<[String; 4]> {
        let (b, n) = (&self.base, &self.new);
        let share = |t: &TokenUse| match t.cached_share {
            Some(s) => format!("{:.1}%", s * 100.0),
            None => "not reported".to_string(),
        };
        let ms = |x: f64| format!("{x:.1} ms");
        vec![
            [
                "PASS / FAIL / ERROR".into(),
                format!("{} / {} / {}", b.pass, b.fail, b.error),
                format!("{} / {} / {}", n.pass, n.fail, n.error),
                format!("{} matched run(s)", self.matched),
            ],
            [
                "pass rate".into(),
                format!("{:.1}%", b.pass_rate * 100.0),
                format!("{:.1}%", n.pass_rate * 100.0),
                format!("{:+.1} points", self.pass_rate_delta * 100.0),
            ],
            [
                "pass rate, 95% CI (Wilson)".into(),
                b.pass_rate_ci.map(|ci| ci.percent()).unwrap_or_default(),
                n.pass_rate_ci.map(|ci| ci.percent()).unwrap_or_default(),
                self.paired
                    .delta_ci
                    .map(|ci| format!("paired {}", ci.points()))
                    .unwrap_or_default(),
            ],
            [
                "tokens per item run (every run, ERROR included)".into(),
                b.tokens.per_item.map_or_else(|| "none".into(), figure),
                n.tokens.per_item.map_or_else(|| "none".into(), figure),
                self.tokens_per_item.change_text(),
            ],
            [
                "tokens per PASS (all runs' tokens over the PASS runs)".into(),
                b.tokens.per_pass.map_or_else(|| "none".into(), figure),
                n.tokens.per_pass.map_or_else(|| "none".into(), figure),
                self.tokens_per_pass.change_text(),
            ],
            [
                "tokens in total (input + output)".into(),
                grouped(b.tokens.total),
                grouped(n.tokens.total),
                signed_count(self.tokens_total_delta),
            ],
            [
                "cached share of input (cache reads)".into(),
                share(&b.tokens),
                share(&n.tokens),
                String::new(),
            ],
            [
                "latency mean".into(),
                ms(b.wall_mean_ms),
                ms(n.wall_mean_ms),
                format!("{:+.1} ms", self.wall_mean_delta_ms),
            ],
            [
                "latency p50".into(),
                ms(b.wall_p50_ms),
                ms(n.wall_p50_ms),
                format!("{:+.1} ms", self.wall_p50_delta_ms),
            ],
            [
                "latency p95".into(),
                ms(b.wall_p95_ms),
                ms(n.wall_p95_ms),
                format!("{:+.1} ms", self.wall_p95_delta_ms),
            ],
        ]
    }

    /// Markdown for a pull request: the pass-rate change and the token
    /// change beside it, the gate's verdict, the numbers of both sides, and
    /// every changed item run.
    pub fn to_markdown(&self, gate: Gate) -> String {
        let (b, n) = (&self.base, &self.new);
        let arena = |s: &Side| match s.total {
            0 => "(no result rows)".to_string(),
            _ => code_span(&s.arena),
        };
        let mut out = format!("# Compare {} → {}\n\n", arena(b), arena(n));
        if b.mock || n.mock {
            let _ = writeln!(out, "> **{MOCK_BANNER}**\n");
        }
        let _ = writeln!(
            out,
            "Baseline: {}. New: {}.\n",
            side_markdown(b),
            side_markdown(n)
        );
        if let (Some(_), Some(bs), Some(ns)) = (self.sampling_note(), &b.sampling, &n.sampling) {
            let _ = writeln!(
                out,
                "> **The sides were sampled differently** (baseline {}, new {}): a changed outcome may be the sampling's, not the model's.\n",
                code_span(bs),
                code_span(ns)
            );
        }
        if !self.problems.is_empty() {
            let _ = writeln!(out, "> **The inputs cannot be gated on:**");
            for problem in &self.problems {
                let _ = writeln!(out, "> - {}", code_span(&problem.to_string()));
            }
            out.push('\n');
        }
        let _ = writeln!(
            out,
            "**{} · tokens/item {}**\n",
            self.pass_rate_line(),
            self.tokens_per_item.text()
        );
        for line in [
            self.gate_line(gate),
            self.changes_counts(),
            self.tokens_line(),
            self.paired_line(),
        ] {
            let _ = writeln!(out, "- {}", md(&line));
        }
        let _ = writeln!(out, "\n| | baseline | new | change |\n|---|---:|---:|---:|");
        for row in self.figures() {
            let cells: Vec<String> = row.iter().map(|c| md(c)).collect();
            let _ = writeln!(out, "| {} |", cells.join(" | "));
        }
        if !self.changes.is_empty() {
            let _ = writeln!(
                out,
                "\n## Changed item runs\n\n| change | id | repeat | baseline | new | why | Δ tokens |\n|---|---|---:|---|---|---|---:|"
            );
            for c in &self.changes {
                let why = c.why();
                let _ = writeln!(
                    out,
                    "| {} | {} | {} | {} | {} | {} | {:+} |",
                    change_word(c.kind),
                    code_cell(&c.id),
                    c.repeat,
                    c.base.as_str(),
                    c.new.as_str(),
                    code_cell(&why),
                    c.tokens_delta
                );
            }
        }
        if !self.verdict_changes.is_empty() {
            let _ = writeln!(
                out,
                "\n## Changed GREEN/RED verdicts\n\n| id | repeat | baseline | new |\n|---|---:|---|---|"
            );
            for v in &self.verdict_changes {
                let _ = writeln!(
                    out,
                    "| {} | {} | {} | {} |",
                    code_cell(&v.id),
                    v.repeat,
                    VerdictChange::word(v.base),
                    VerdictChange::word(v.new)
                );
            }
        }
        if !self.item_rates.is_empty() {
            let _ = writeln!(
                out,
                "\n## Items whose pass rate changed\n\n| id | baseline PASS | new PASS | runs |\n|---|---:|---:|---:|"
            );
            for r in &self.item_rates {
                let _ = writeln!(
                    out,
                    "| {} | {} | {} | {} |",
                    code_cell(&r.id),
                    r.base_pass,
                    r.new_pass,
                    r.runs
                );
            }
        }
        for (label, keys) in [
            ("only in the baseline", &self.only_base),
            ("only in the new file", &self.only_new),
        ] {
            if !keys.is_empty() {
                let _ = writeln!(out, "\n{} item run(s) {label}.", keys.len());
            }
        }
        out
    }

    /// Pretty JSON, ending with a newline: `version`, the gate (`gate`,
    /// `gate_fails`, `gate_line`), `exit_code` (what the caller exits
    /// with: it maps [`Comparison::gate_outcome`] to a code, the judge
    /// holds no process exit codes) and every field of the comparison.
    pub fn to_json(&self, gate: Gate, exit_code: u8) -> String {
        let value = ComparisonJson {
            version: COMPARE_VERSION,
            gate: gate.describe(),
            gate_fails: self.fails(gate),
            gate_line: self.gate_line(gate),
            exit_code,
            comparison: self,
        };
        let mut s = serde_json::to_string_pretty(&value).unwrap_or_else(|e| {
            // Serialising plain data with string keys cannot fail.
            format!("{{\"error\": {:?}}}", e.to_string())
        });
        s.push('\n');
        s
    }
}

/// A side as the terminal names it: `arena (backend · model)`, or that it
/// has no rows (nothing to name).
fn side_text(s: &Side) -> String {
    match s.total {
        0 => "(no result rows)".to_string(),
        _ => format!("{} ({} · {})", s.arena, s.backend, s.model),
    }
}

/// A side as Markdown names it: backend, model and config, or that it has
/// no rows.
fn side_markdown(s: &Side) -> String {
    match s.total {
        0 => "no result rows".to_string(),
        _ => format!(
            "backend {}, model {}, config {}",
            code_span(&s.backend),
            code_span(&s.model),
            code_span(&s.config_hash)
        ),
    }
}

/// How a change reads in Markdown.
fn change_word(kind: ChangeKind) -> &'static str {
    match kind {
        ChangeKind::Regression => "**REGRESSION**",
        ChangeKind::Fix => "fix",
        ChangeKind::Changed => "changed",
        ChangeKind::ChecksChanged => "the checks changed",
    }
}
