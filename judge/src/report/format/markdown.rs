//! Markdown, for a CI summary or a pull request: the banner, the summary
//! lines, one table row per item run, per-item rates and calibrations.

use super::{MOCK_BANNER, REPLAY_BANNER, UNSANDBOXED_BANNER};
use crate::report::Report;
use std::fmt::Write as _;

impl Report {
    /// Markdown: banner, summary, one table row per item.
    pub fn to_markdown(&self) -> String {
        let mut out = format!("# Arena {}\n\n", code_span(&self.arena));
        if self.mock {
            let _ = writeln!(out, "> **{MOCK_BANNER}**\n");
        }
        if self.replayed {
            let _ = writeln!(out, "> **{REPLAY_BANNER}**\n");
        }
        if self.unsandboxed {
            let _ = writeln!(out, "> **{UNSANDBOXED_BANNER}**\n");
        }
        let _ = writeln!(
            out,
            "Backend {}, model {}, config {}.\n",
            code_span(&self.backend),
            code_span(&self.model),
            code_span(&self.config_hash)
        );
        if let Some(sampling) = &self.sampling {
            let _ = writeln!(out, "Sampling: {}.\n", code_span(sampling));
        }
        for note in &self.notes {
            let _ = writeln!(out, "> **Note:** {note}\n");
        }
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
                code_cell(&item.id),
                item.repeat,
                item.outcome.as_str(),
                item.wall_ms,
                self.detail_as(item, code_cell)
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
                    code_cell(&i.id),
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
                    let _ = writeln!(out, "| {} | {gold} | {judged} |", code_cell(&id));
                }
            }
        }
        out
    }
}

/// Text made safe in a Markdown table cell or line: `|` escaped, newlines
/// as spaces. For text tribunal wrote itself (figures, codes, its own
/// words); text from a dataset, a model, a judge or a pull request goes
/// through [`code_span`] instead.
pub(crate) fn md_escape(s: &str) -> String {
    s.replace('|', "\\|").replace('\n', " ")
}

/// The one rule for text a dataset, a model, a judge or a pull request
/// controls (item ids, answers, check details, judge reasoning, file
/// names) in Markdown a person reads: a code span it cannot close. The
/// fence is one backtick longer than the longest run of backticks inside
/// (padded with a space when the text starts or ends with one), and line
/// breaks become spaces, so inside it nothing formats, links, mentions
/// anyone, opens HTML or starts another gate's marker. Empty text stays
/// empty.
pub(crate) fn code_span(s: &str) -> String {
    if s.is_empty() {
        return String::new();
    }
    let text = s.replace("\r\n", " ").replace(['\n', '\r'], " ");
    let (mut longest, mut run) = (0, 0);
    for c in text.chars() {
        run = if c == '`' { run + 1 } else { 0 };
        longest = longest.max(run);
    }
    let fence = "`".repeat(longest + 1);
    let pad = if text.starts_with('`') || text.ends_with('`') {
        " "
    } else {
        ""
    };
    format!("{fence}{pad}{text}{pad}{fence}")
}

/// [`code_span`] in a table cell: `|` escaped as well (GitHub splits a row
/// on it even inside a code span, and reads `\|` there as `|`).
pub(crate) fn code_cell(s: &str) -> String {
    code_span(s).replace('|', "\\|")
}
