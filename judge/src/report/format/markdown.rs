//! Markdown, for a CI summary or a pull request: the banner, the summary
//! lines, one table row per item run, per-item rates and calibrations.

use super::{MOCK_BANNER, REPLAY_BANNER};
use crate::report::Report;
use std::fmt::Write as _;

impl Report {
    /// Markdown: banner, summary, one table row per item.
    pub fn to_markdown(&self) -> String {
        let mut out = format!("# Arena `{}`\n\n", self.arena);
        if self.mock {
            let _ = writeln!(out, "> **{MOCK_BANNER}**\n");
        }
        if self.replayed {
            let _ = writeln!(out, "> **{REPLAY_BANNER}**\n");
        }
        let _ = writeln!(
            out,
            "Backend `{}`, model `{}`, config `{}`.\n",
            self.backend, self.model, self.config_hash
        );
        let _ = writeln!(out, "**{}**\n", self.summary_line());
        if let Some(line) = self.pass_at_line() {
            let _ = writeln!(out, "{line}\n");
        }
        for line in self.spend_lines() {
            let _ = writeln!(out, "{line}\n");
        }
        if let Some(line) = self.cache_line() {
            let _ = writeln!(out, "{line}\n");
        }
        let _ = writeln!(out, "| id | repeat | result | ms | detail |");
        let _ = writeln!(out, "|---|---:|---|---:|---|");
        for item in &self.items {
            let _ = writeln!(
                out,
                "| {} | {} | {} | {:.0} | {} |",
                md_escape(&item.id),
                item.repeat,
                item.outcome.as_str(),
                item.wall_ms,
                md_escape(&self.detail(item))
            );
        }
        if !self.summary.per_item.is_empty() {
            let _ = writeln!(out, "\n## Per item over {} repeats\n", self.summary.repeats);
            let _ = writeln!(out, "| id | PASS | runs | pass rate | ERROR |");
            let _ = writeln!(out, "|---|---:|---:|---:|---:|");
            for i in &self.summary.per_item {
                let _ = writeln!(
                    out,
                    "| {} | {} | {} | {:.1}% | {} |",
                    md_escape(&i.id),
                    i.pass,
                    i.runs,
                    i.pass_rate * 100.0,
                    i.error
                );
            }
        }
        for c in self.calibrations() {
            let _ = writeln!(out, "\n## Calibration: {}\n", c.title());
            for line in c.lines() {
                let _ = writeln!(out, "- {}", md_escape(&line));
            }
            let rows = c.disagreement_rows();
            if !rows.is_empty() {
                let _ = writeln!(out, "\n| item | gold | judged |\n|---|---|---|");
                for (id, gold, judged) in rows {
                    let _ = writeln!(out, "| {} | {gold} | {judged} |", md_escape(&id));
                }
            }
        }
        out
    }
}

/// Text made safe in a Markdown table cell or line: `|` escaped, newlines
/// as spaces.
pub(crate) fn md_escape(s: &str) -> String {
    s.replace('|', "\\|").replace('\n', " ")
}
