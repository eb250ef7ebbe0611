//! The pull-request comment of a [`Comparison`] (`tribunal compare --report
//! comment`): the verdict of the gate first, then the figures a reviewer
//! weighs (pass rate with its interval, tokens and cost per item, cache
//! use), then the item runs that changed, each list capped so a comment
//! stays readable on a large arena, with a link to the rest. Whether either
//! side is a mock run or a replay is said before any figure: a comparison of
//! scripted answers proves the plumbing, not a model.
//!
//! The body carries no marker: `tribunal github comment` adds the hidden one
//! it finds the comment by on the next push.

use super::markdown::code_span as code;
use super::md_escape as md;
use crate::pricing::CostSummary;
use crate::report::compare::{Change, ChangeKind, Comparison, Gate, Side};
use std::fmt::Write as _;

/// The cost of each side, under one pricing table.
#[derive(Debug, Clone, PartialEq)]
pub struct SideCosts {
    /// The baseline's cost.
    pub base: CostSummary,
    /// The new run's cost.
    pub new: CostSummary,
}

/// What a comment shows beyond the comparison itself.
#[derive(Debug, Clone)]
pub struct CommentOptions<'a> {
    /// The gate the comment reports.
    pub gate: Gate,
    /// At most this many item runs per list; the rest are counted.
    pub max_items: usize,
    /// Where the full comparison is (the CI run's page): linked beside a
    /// capped list.
    pub details_url: Option<&'a str>,
    /// Lines said before the figures (where the baseline came from, why a
    /// fork's run is a mock), in order.
    pub notes: &'a [String],
    /// Both sides' costs; without them the comment has no cost row.
    pub costs: Option<&'a SideCosts>,
}

impl CommentOptions<'_> {
    /// The default cap of each list of item runs.
    pub const DEFAULT_MAX_ITEMS: usize = 10;
}

impl Comparison {
    /// The Markdown body of a pull-request comment.
    pub fn to_comment(&self, options: &CommentOptions<'_>) -> String {
        let mut out = String::new();
        let _ = writeln!(out, "### {}\n", self.headline(options.gate));
        for line in self.kind_notes().iter().chain(options.notes) {
            let _ = writeln!(out, "> {}", md(line));
        }
        if !self.kind_notes().is_empty() || !options.notes.is_empty() {
            out.push('\n');
        }
        if !self.problems.is_empty() {
            let _ = writeln!(out, "**The inputs cannot be gated on:**\n");
            for problem in &self.problems {
                let _ = writeln!(out, "- {}", code(&problem.to_string()));
            }
            out.push('\n');
        }
        let _ = writeln!(out, "**{}**\n", md(&self.gate_line(options.gate)));
        let _ = writeln!(out, "| | baseline | this change | change |");
        let _ = writeln!(out, "|---|---:|---:|---:|");
        for row in self.comment_figures(options.costs) {
            let cells: Vec<String> = row.iter().map(|c| md(c)).collect();
            let _ = writeln!(out, "| {} |", cells.join(" | "));
        }
        let _ = writeln!(out, "\n{}", md(&self.paired_line()));
        let list = |out: &mut String, title: &str, lines: Vec<String>| {
            capped_list(out, title, &lines, options.max_items, options.details_url)
        };
        let groups = [
            ("Newly failing", ChangeKind::Regression),
            ("Newly passing", ChangeKind::Fix),
            ("Still not passing, for another reason", ChangeKind::Changed),
            (
                "The checks changed (not a regression)",
                ChangeKind::ChecksChanged,
            ),
        ];
        for (title, kind) in groups {
            let lines = self
                .changes
                .iter()
                .filter(|c| c.kind == kind)
                .map(change_item)
                .collect();
            list(&mut out, title, lines);
        }
        let verdicts = self
            .verdict_changes
            .iter()
            .map(|v| format!("{} #{}: {}", code(&v.id), v.repeat, v.text()))
            .collect();
        list(&mut out, "Changed GREEN/RED verdicts", verdicts);
        let rates = self
            .item_rates
            .iter()
            .map(|r| {
                format!(
                    "{}: {}/{} → {}/{} PASS",
                    code(&r.id),
                    r.base_pass,
                    r.runs,
                    r.new_pass,
                    r.runs
                )
            })
            .collect();
        list(&mut out, "Items whose pass rate changed", rates);
        for (keys, label) in [
            (&self.only_base, "only in the baseline"),
            (&self.only_new, "only in this change"),
        ] {
            if !keys.is_empty() {
                let _ = writeln!(out, "\n{} item run(s) {label}.", keys.len());
            }
        }
        let (b, n) = (&self.base, &self.new);
        let _ = writeln!(
            out,
            "\n<sub>baseline: {} · this change: {}</sub>",
            side_label(b),
            side_label(n)
        );
        out
    }

    /// The comment's first line: the gate's verdict in a word, and the arena.
    fn headline(&self, gate: Gate) -> String {
        let arena = if self.new.arena.is_empty() {
            &self.base.arena
        } else {
            &self.new.arena
        };
        let arena = code(arena);
        if !self.problems.is_empty() {
            format!("⚠️ tribunal: {arena} cannot be gated on")
        } else if self.fails(gate) {
            format!("❌ tribunal: {arena} regressed")
        } else {
            format!("✅ tribunal: {arena} passes the gate")
        }
    }

    /// What kind of runs the sides are, when either is not a live model's.
    fn kind_notes(&self) -> Vec<String> {
        let (b, n) = (&self.base, &self.new);
        let mut notes = Vec::new();
        let sides = |f: fn(&Side) -> bool| match (f(b), f(n)) {
            (true, true) => Some("both sides are"),
            (true, false) => Some("the baseline is"),
            (false, true) => Some("this change's run is"),
            (false, false) => None,
        };
        if let Some(who) = sides(|s| s.mock) {
            notes.push(format!(
                "**Mock:** {who} a mock run (a scripted model played each item's `mock` turns): it proves the plumbing, not a model."
            ));
        }
        if let Some(who) = sides(|s| s.replayed) {
            notes.push(format!(
                "**Replay:** {who} replayed from a cassette: no model was called, the answers are the recorded ones."
            ));
        }
        notes
    }

    /// The comment's table: `[label, baseline, new, change]` rows.
    fn comment_figures(&self, costs: Option<&SideCosts>) -> Vec<[String; 4]> {
        let (b, n) = (&self.base, &self.new);
        let rate = |s: &Side| match s.pass_rate_ci {
            Some(ci) => format!("{:.1}% ({})", s.pass_rate * 100.0, ci.percent()),
            None => format!("{:.1}%", s.pass_rate * 100.0),
        };
        let paired = self
            .paired
            .delta_ci
            .map(|ci| format!(" (paired {})", ci.points()))
            .unwrap_or_default();
        let figure =
            |x: Option<f64>| x.map_or_else(|| "none".to_string(), crate::report::tokens::figure);
        let share = |s: &Side| match s.tokens.cached_share {
            Some(x) => format!("{:.1}%", x * 100.0),
            None => "not reported".to_string(),
        };
        let mut rows = vec![
            [
                "pass rate (95% CI)".into(),
                rate(b),
                rate(n),
                format!("{:+.1} points{paired}", self.pass_rate_delta * 100.0),
            ],
            [
                "PASS / FAIL / ERROR".into(),
                format!("{} / {} / {}", b.pass, b.fail, b.error),
                format!("{} / {} / {}", n.pass, n.fail, n.error),
                format!("{} matched run(s)", self.matched),
            ],
            [
                "tokens per item run".into(),
                figure(b.tokens.per_item),
                figure(n.tokens.per_item),
                self.tokens_per_item.change_text(),
            ],
            [
                "tokens per PASS".into(),
                figure(b.tokens.per_pass),
                figure(n.tokens.per_pass),
                self.tokens_per_pass.change_text(),
            ],
        ];
        if let Some(costs) = costs {
            rows.push([
                "cost per item run".into(),
                cost_cell(&costs.base),
                cost_cell(&costs.new),
                cost_change(&costs.base, &costs.new),
            ]);
        }
        rows.push([
            "prompt-cache reads (share of input)".into(),
            share(b),
            share(n),
            String::new(),
        ]);
        if b.rerun_cache.is_some() || n.rerun_cache.is_some() {
            let cell = |s: &Side| match s.rerun_cache {
                Some(c) => format!(
                    "{} of {} request(s)",
                    c.hits,
                    u64::from(c.hits) + u64::from(c.misses)
                ),
                None => "not used".to_string(),
            };
            rows.push([
                "answered by the rerun cache".into(),
                cell(b),
                cell(n),
                String::new(),
            ]);
        }
        rows.push([
            "latency p50".into(),
            format!("{:.1} ms", b.wall_p50_ms),
            format!("{:.1} ms", n.wall_p50_ms),
            format!("{:+.1} ms", self.wall_p50_delta_ms),
        ]);
        rows
    }
}

/// One changed item run: `` `id` #0: PASS → FAIL (`json_path_equals: year:
/// expected 1889, got 1890`) ``.
fn change_item(c: &Change) -> String {
    // A code span: model text in a check's detail cannot format, link or
    // mention anyone.
    let why = match (c.error_code, c.why()) {
        (_, why) if why.is_empty() => String::new(),
        (Some(_), error_code) => format!(" ({error_code})"),
        (None, why) => format!(" ({})", code(&why)),
    };
    format!(
        "{} #{}: {} → {}{why}",
        code(&c.id),
        c.repeat,
        c.base.as_str(),
        c.new.as_str()
    )
}

/// A titled list of `lines` with its count, at most `max` of them and then
/// how many more (linked to `details_url`); nothing when `lines` is empty.
fn capped_list(
    out: &mut String,
    title: &str,
    lines: &[String],
    max: usize,
    details_url: Option<&str>,
) {
    if lines.is_empty() {
        return;
    }
    let _ = writeln!(out, "\n**{title} ({})**\n", lines.len());
    for line in lines.iter().take(max) {
        let _ = writeln!(out, "- {line}");
    }
    if lines.len() > max {
        let _ = writeln!(out, "- {}", more_line(lines.len() - max, details_url));
    }
}

/// `… and 5 more` with the link to the rest, when there is one.
fn more_line(n: usize, details_url: Option<&str>) -> String {
    match details_url {
        Some(url) => format!("… and {n} more: [the full comparison]({})", link(url)),
        None => format!("… and {n} more (the job summary lists them)"),
    }
}

/// A link target kept inside its parentheses.
fn link(url: &str) -> String {
    url.replace(' ', "%20")
        .replace('(', "%28")
        .replace(')', "%29")
}

/// `backend `openai-chat` · model `gpt-4.1-mini` · config `ab12…``.
fn side_label(s: &Side) -> String {
    format!(
        "backend {} · model {} · config {}",
        code(&s.backend),
        code(&s.model),
        code(&s.config_hash)
    )
}

/// A side's cost per item run: `$0.000820`, or why there is none.
fn cost_cell(c: &CostSummary) -> String {
    match (c.priced_runs, c.unpriced_runs) {
        (0, 0) => "no runs".to_string(),
        (0, _) => format!("unpriced ({})", c.unpriced_models.join(", ")),
        (_, 0) => format!("${:.6}", c.mean_usd_per_run),
        (_, n) => format!("${:.6} ({n} run(s) unpriced)", c.mean_usd_per_run),
    }
}

/// The change in cost per item run, when both sides are priced.
fn cost_change(base: &CostSummary, new: &CostSummary) -> String {
    if base.priced_runs == 0 || new.priced_runs == 0 {
        return String::new();
    }
    let d = new.mean_usd_per_run - base.mean_usd_per_run;
    let sign = if d < 0.0 { "-" } else { "+" };
    if base.mean_usd_per_run > 0.0 {
        format!(
            "{sign}${:.6}, {sign}{:.1}%",
            d.abs(),
            (d / base.mean_usd_per_run).abs() * 100.0
        )
    } else {
        format!("{sign}${:.6}", d.abs())
    }
}
