//! The terminal table: one line per item run, the summary lines under it
//! (also what `tribunal run` prints at the end), per-item rates with
//! repeats, and the calibrations.

use super::{MOCK_BANNER, REPLAY_BANNER, UNSANDBOXED_BANNER};
use crate::report::Report;
use crate::report::calibration::{Calibration, Subject};
use std::fmt::Write as _;

impl Report {
    /// A fixed-width table with the summary underneath.
    pub fn to_terminal(&self) -> String {
        let mut out = String::new();
        if self.mock {
            let _ = writeln!(out, "*** {MOCK_BANNER} ***\n");
        }
        if self.replayed {
            let _ = writeln!(out, "*** {REPLAY_BANNER} ***\n");
        }
        if self.unsandboxed {
            let _ = writeln!(out, "*** {UNSANDBOXED_BANNER} ***\n");
        }
        let _ = writeln!(
            out,
            "arena {} · backend {} · model {} · config {}",
            self.arena, self.backend, self.model, self.config_hash
        );
        if let Some(sampling) = &self.sampling {
            let _ = writeln!(out, "sampling: {sampling}");
        }
        for note in &self.notes {
            let _ = writeln!(out, "note: {note}");
        }
        let width = self
            .items
            .iter()
            .map(|i| i.id.len())
            .max()
            .unwrap_or(2)
            .max(2);
        let repeated = self.summary.repeats > 1;
        let _ = writeln!(out, "{:<width$}  {:<6} {:>8}  DETAIL", "ID", "RESULT", "MS");
        for item in &self.items {
            let id = if repeated {
                format!("{}#{}", item.id, item.repeat)
            } else {
                item.id.clone()
            };
            let _ = writeln!(
                out,
                "{:<width$}  {:<6} {:>8.0}  {}",
                id,
                item.outcome.as_str(),
                item.wall_ms,
                self.detail(item)
            );
        }
        let _ = writeln!(out, "\n{}", self.summary_line());
        if let Some(line) = self.pass_at_line() {
            let _ = writeln!(out, "{line}");
        }
        for line in self.spend_lines() {
            let _ = writeln!(out, "{line}");
        }
        if let Some(line) = self.cache_line() {
            let _ = writeln!(out, "{line}");
        }
        if !self.summary.per_item.is_empty() {
            let width = width.max("ITEM".len());
            let _ = writeln!(
                out,
                "\n{:<width$}  {:>9}  {:>6}  ERROR",
                "ITEM", "PASS/RUNS", "RATE"
            );
            for i in &self.summary.per_item {
                let _ = writeln!(
                    out,
                    "{:<width$}  {:>9}  {:>5.1}%  {}",
                    i.id,
                    format!("{}/{}", i.pass, i.runs),
                    i.pass_rate * 100.0,
                    i.error
                );
            }
        }
        for c in self.calibrations() {
            out.push_str(&c.to_terminal());
        }
        if self.mock {
            let _ = writeln!(out, "(mock run)");
        }
        out
    }

    /// `15 run(s) of 15 item(s): 15 PASS, 0 FAIL, 0 ERROR — pass rate 100.0%
    /// (95% CI 79.6–100.0%, Wilson, over all 15 runs; ERROR counts as not
    /// passed)`, and with repeats the per-repeat rates, pass^K and the
    /// unstable items; a conversation arena's line opens with pass^K.
    pub fn summary_line(&self) -> String {
        let s = &self.summary;
        let mut line = format!(
            "{} run(s) of {} item(s): {} PASS, {} FAIL, {} ERROR — pass rate {:.1}%",
            s.total,
            s.items,
            s.pass,
            s.fail,
            s.error,
            s.pass_rate * 100.0
        );
        if let Some(ci) = &s.pass_rate_ci {
            let _ = write!(
                line,
                " (95% CI {}, Wilson, over all {} runs; ERROR counts as not passed)",
                ci.percent(),
                s.total
            );
        }
        // A conversation arena's headline is pass^K: an agent that gets a
        // customer right only some of the times is not one to ship.
        if s.repeats > 1 && self.items.iter().any(|i| i.conversation.is_some()) {
            line = format!(
                "pass^{} {:.1}% (every repeat of an item passed) — {line}",
                s.repeats,
                s.pass_hat_k * 100.0
            );
        }
        if s.repeats > 1 {
            let per: Vec<String> = s
                .per_repeat
                .iter()
                .map(|r| format!("{:.1}%", r.pass_rate * 100.0))
                .collect();
            let _ = write!(line, "; per repeat [{}]", per.join(", "));
            if let Some(sp) = &s.repeat_spread {
                let _ = write!(
                    line,
                    " (spread {:.1}–{:.1}%, sd {:.1} points)",
                    sp.min * 100.0,
                    sp.max * 100.0,
                    sp.sd * 100.0
                );
            }
            let _ = write!(
                line,
                "; pass^{} {:.1}%; unstable: {}",
                s.repeats,
                s.pass_hat_k * 100.0,
                if s.unstable.is_empty() {
                    "none".to_string()
                } else {
                    s.unstable.join(", ")
                }
            );
        }
        line
    }

    /// With `--cache`: `cache: 28 hit(s), 2 miss(es) (2 model call(s) made)`.
    pub fn cache_line(&self) -> Option<String> {
        self.cache.map(|c| {
            format!(
                "cache: {} hit(s), {} miss(es) ({} model call(s) made)",
                c.hits, c.misses, c.misses
            )
        })
    }

    /// With repeats: `pass@k` and `pass^k` per listed `k` on one line,
    /// saying which items they average over; `None` without repeats.
    pub fn pass_at_line(&self) -> Option<String> {
        let s = &self.summary;
        if s.pass_at.is_empty() {
            return None;
        }
        let at: Vec<String> = s
            .pass_at
            .iter()
            .map(|p| format!("@{} {:.1}%", p.k, p.pass_at_k * 100.0))
            .collect();
        let hat: Vec<String> = s
            .pass_at
            .iter()
            .map(|p| format!("^{} {:.1}%", p.k, p.pass_hat_k * 100.0))
            .collect();
        let items = s.pass_at.iter().map(|p| p.items).min().unwrap_or(0);
        Some(format!(
            "pass{} · pass{} (unbiased estimators, per item over its runs, mean over the {} item(s) with ≥ k runs; ERROR counts as not passed)",
            at.join(", "),
            hat.join(", "),
            items
        ))
    }
}

impl Calibration {
    /// The terminal section.
    pub fn to_terminal(&self) -> String {
        let heading = match self.subject {
            Subject::Verdicts => "CALIBRATION",
            Subject::Rubric => "RUBRIC CALIBRATION",
        };
        let mut out = format!("\n{heading}\n");
        for line in self.lines() {
            let _ = writeln!(out, "{line}");
        }
        let rows = self.disagreement_rows();
        if !rows.is_empty() {
            let width = rows.iter().map(|r| r.0.len()).max().unwrap_or(2).max(4);
            let _ = writeln!(out, "\n{:<width$}  {:<5}  JUDGED", "ITEM", "GOLD");
            for (id, gold, judged) in rows {
                let _ = writeln!(out, "{id:<width$}  {gold:<5}  {judged}");
            }
        }
        out
    }
}
