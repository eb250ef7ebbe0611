//! Renders a [`ReportPage`] as one self-contained HTML file: inline CSS, inline
//! JavaScript, the item data as JSON in a `<script type="application/json">`
//! block, and the charts as inline SVG. No network access; opens from
//! `file://`.
//!
//! The header, charts and items table are rendered here, escaped, so the
//! page reads with scripts off; the script filters and sorts the table's
//! rows and builds each item's detail from the JSON data, with
//! `textContent` only — model, tool and dataset text never becomes markup.

use crate::report::ReportItem;
use crate::report::calibration::Calibration;
use crate::report::compare::{Change, clipped};
use crate::report::format::html::charts::{
    latency_caption, latency_histogram, outcome_bar, token_caption, token_chart,
};
use crate::report::format::html::escape::{escape_html, script_safe};
use crate::report::format::html::page::{PageItem, ReportPage};
use crate::report::format::{MOCK_BANNER, REPLAY_BANNER, UNSANDBOXED_BANNER};
use crate::report::tokens::figure;
use crate::rows::results::error_text;
use serde_json::{Value, json};
use std::collections::HashMap;
use std::fmt::Write as _;

/// The page's stylesheet.
pub(crate) const CSS: &str = include_str!("assets/report.css");
/// The page's script.
const JS: &str = include_str!("assets/report.js");

/// How many unstable item ids the header lists before "and N more".
const UNSTABLE_SHOWN: usize = 30;

/// Renders the whole report page.
pub fn render_page(page: &ReportPage) -> String {
    let data = script_safe(&data_json(page));
    let mut out = String::with_capacity(data.len() + 16 * 1024);
    let title = format!("tribunal report · {}", page.arena);
    head(&mut out, &title);
    out.push_str("<header>\n");
    let _ = writeln!(out, "<h1>{}</h1>", escape_html(&title));
    if page.mock {
        let _ = writeln!(
            out,
            r#"<p class="mock-banner" id="mock-banner">{}</p>"#,
            escape_html(MOCK_BANNER)
        );
    }
    if page.replayed {
        let _ = writeln!(
            out,
            r#"<p class="mock-banner" id="replay-banner">{}</p>"#,
            escape_html(REPLAY_BANNER)
        );
    }
    if page.unsandboxed {
        let _ = writeln!(
            out,
            r#"<p class="mock-banner" id="unsandboxed-banner">{}</p>"#,
            escape_html(UNSANDBOXED_BANNER)
        );
    }
    out.push_str(r#"<dl class="meta">"#);
    for (k, v) in [
        ("arena", &page.arena),
        ("backend", &page.backend),
        ("model", &page.model),
        ("date", &page.date),
        ("config hash", &page.config_hash),
    ] {
        let _ = write!(out, "<div><dt>{k}</dt><dd>{}</dd></div>", escape_html(v));
    }
    if let Some(sampling) = &page.sampling {
        let _ = write!(
            out,
            "<div><dt>sampling</dt><dd>{}</dd></div>",
            escape_html(sampling)
        );
    }
    out.push_str("</dl>\n");
    stats(&mut out, page);
    out.push_str("</header>\n");
    for c in &page.calibrations {
        calibration(&mut out, c);
    }
    if !page.notes.is_empty() {
        out.push_str(r#"<section class="notes"><h2>Notes</h2><ul>"#);
        for n in &page.notes {
            let _ = write!(out, "<li>{}</li>", escape_html(n));
        }
        out.push_str("</ul></section>\n");
    }
    let _ = writeln!(
        out,
        r#"<section class="charts"><figure class="wide">{}<figcaption>Outcomes</figcaption></figure><figure>{}<figcaption>{}</figcaption></figure><figure>{}<figcaption>{}</figcaption></figure></section>"#,
        outcome_bar(&page.summary),
        latency_histogram(&page.latency),
        escape_html(&latency_caption(&page.latency)),
        token_chart(&page.tokens),
        escape_html(&token_caption(&page.tokens)),
    );
    let repeated = page.summary.repeats > 1;
    let _ = writeln!(
        out,
        r##"<section class="items"><h2>Items</h2>
<form class="controls" id="controls" hidden onsubmit="return false">
<label>Outcome <select id="filter"><option value="">all</option><option>PASS</option><option>FAIL</option><option>ERROR</option></select></label>
<label>Search id <input id="search" type="search" placeholder="item id" autocomplete="off"></label>
<label>Sort <select id="sort"><option value="">report order</option><option value="wall-desc">latency, slowest first</option><option value="wall-asc">latency, fastest first</option><option value="tokens-desc">tokens, most first</option><option value="tokens-asc">tokens, fewest first</option></select></label>
<span id="shown" class="shown"></span>
</form>
<table id="items"><thead><tr><th>id</th>{}<th>outcome</th><th>checks</th><th>error code</th><th class="num">tokens</th><th class="num">latency ms</th><th class="num">tool calls</th><th class="num">turns</th></tr></thead>
<tbody id="rows">"##,
        if repeated { "<th>repeat</th>" } else { "" },
    );
    for (i, item) in page.items.iter().enumerate().take(ROWS_IN_HTML) {
        item_row(&mut out, i, &item.run, repeated);
    }
    out.push_str("</tbody></table>\n");
    if let Some(rest) = page
        .items
        .len()
        .checked_sub(ROWS_IN_HTML)
        .filter(|n| *n > 0)
    {
        let _ = writeln!(
            out,
            r#"<p class="muted" id="rows-not-in-html">… and {rest} more item run(s): without scripts the table shows the first {ROWS_IN_HTML}; the JSON and Markdown reports hold every one.</p>"#
        );
    }
    out.push_str(
        r#"<p><button type="button" id="more" hidden></button></p>
</section>
"#,
    );
    let _ = writeln!(
        out,
        r#"<script type="application/json" id="report-data">{data}</script>"#
    );
    let _ = writeln!(out, "<script>\n{JS}</script>\n</body>\n</html>");
    out
}

/// How many item rows the page holds as HTML (report order): the page's
/// script draws this many at first too, and builds the rows past them from
/// the data. Laying out ten thousand rows takes seconds (BENCHMARKS.md).
const ROWS_IN_HTML: usize = 1000;

/// One row of the items table, as HTML: the page reads without its
/// script (with scripts off, in a mail client); the script only filters,
/// sorts and opens these rows (`data-i` is the item's index in the data).
/// A FAIL row says why under its check count, clipped.
fn item_row(out: &mut String, i: usize, item: &ReportItem, repeated: bool) {
    let outcome = item.outcome.as_str();
    let _ = write!(
        out,
        r#"<tr class="item {outcome}" data-i="{i}" data-outcome="{outcome}"><td class="id">{}</td>"#,
        escape_html(&item.id)
    );
    if repeated {
        let _ = write!(out, r#"<td class="num">{}</td>"#, item.repeat);
    }
    let _ = write!(
        out,
        r#"<td><span class="badge {outcome}">{outcome}</span></td><td>"#
    );
    if item.checks.is_empty() {
        out.push_str("skipped");
    } else {
        let held = item.checks.iter().filter(|c| c.ok).count();
        let _ = write!(out, "{held}/{}", item.checks.len());
        let failed = super::super::failed_checks(item);
        if !failed.is_empty() {
            let why = clipped(&failed.join("; "), Change::DETAIL_CHARS);
            let _ = write!(out, r#"<div class="why">{}</div>"#, escape_html(&why));
        }
    }
    let code = item
        .error_code
        .map(|code| {
            error_text(
                Some(code),
                item.backend_failure.as_ref(),
                item.error_detail.as_deref(),
            )
        })
        .unwrap_or_default();
    let _ = writeln!(
        out,
        r#"</td><td class="mono">{}</td><td class="num">{}</td><td class="num">{}</td><td class="num">{}</td><td class="num">{}</td></tr>"#,
        escape_html(&code),
        item.usage
            .input_tokens
            .saturating_add(item.usage.output_tokens),
        round1(item.wall_ms),
        item.tool_calls.len(),
        item.turns
    );
}

/// The calibration section: its summary lines and the disagreements.
fn calibration(out: &mut String, c: &Calibration) {
    let id = match c.subject {
        crate::report::calibration::Subject::Verdicts => "calibration",
        crate::report::calibration::Subject::Rubric => "rubric-calibration",
    };
    let _ = write!(
        out,
        r#"<section class="calibration" id="{id}"><h2>Calibration: {}</h2><ul>"#,
        escape_html(c.title())
    );
    for line in c.lines() {
        let _ = write!(out, "<li>{}</li>", escape_html(&line));
    }
    out.push_str("</ul>");
    let rows = c.disagreement_rows();
    if !rows.is_empty() {
        out.push_str(
            "<table><thead><tr><th>item</th><th>gold</th><th>judged</th></tr></thead><tbody>",
        );
        for (id, gold, judged) in rows {
            let _ = write!(
                out,
                "<tr><td>{}</td><td>{gold}</td><td>{judged}</td></tr>",
                escape_html(&id)
            );
        }
        out.push_str("</tbody></table>");
    }
    out.push_str("</section>\n");
}

/// Writes the document head and opens the body.
pub(crate) fn head(out: &mut String, title: &str) {
    let _ = writeln!(
        out,
        "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n\
         <meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n\
         <title>{}</title>\n<style>\n{CSS}</style>\n</head>\n<body>",
        escape_html(title)
    );
}

fn stats(out: &mut String, page: &ReportPage) {
    let s = &page.summary;
    out.push_str(r#"<div class="stats">"#);
    for (class, label, n) in [
        ("pass", "PASS", s.pass),
        ("fail", "FAIL", s.fail),
        ("error", "ERROR", s.error),
    ] {
        let _ = write!(
            out,
            r#"<div class="stat {class}"><span class="n" id="count-{class}">{n}</span><span class="k">{label}</span></div>"#
        );
    }
    let ci = s
        .pass_rate_ci
        .map(|ci| format!(", 95% CI {}", ci.percent()))
        .unwrap_or_default();
    let _ = write!(
        out,
        r#"<div class="stat"><span class="n" id="pass-rate">{}</span><span class="k" id="pass-rate-ci" title="Wilson score interval over all runs; ERROR counts as not passed">pass rate ({} of {}{ci})</span></div>"#,
        pct(s.pass_rate),
        s.pass,
        s.total
    );
    if let Some(line) = page.token_use.not_measured(page.mock) {
        let _ = write!(
            out,
            r#"<div class="stat" title="{}"><span class="n" id="not-measured">not measured</span><span class="k">tokens and cost (mock run)</span></div>"#,
            escape_html(line)
        );
    } else {
        cost_and_tokens(out, page);
    }
    if let Some(c) = page.cache {
        let _ = write!(
            out,
            r#"<div class="stat"><span class="n" id="cache">{} / {}</span><span class="k">cache hits / misses</span></div>"#,
            c.hits, c.misses
        );
    }
    if s.repeats > 1 {
        let _ = write!(
            out,
            r#"<div class="stat"><span class="n" id="pass-hat-k">{}</span><span class="k">pass^{} ({} items)</span></div>"#,
            pct(s.pass_hat_k),
            s.repeats,
            s.items
        );
        let per: Vec<String> = s
            .per_repeat
            .iter()
            .map(|r| format!("#{}: {}", r.repeat, pct(r.pass_rate)))
            .collect();
        let spread = s
            .repeat_spread
            .map(|sp| {
                format!(
                    " (spread {}–{}, sd {:.1} points)",
                    pct(sp.min),
                    pct(sp.max),
                    sp.sd * 100.0
                )
            })
            .unwrap_or_default();
        let at: Vec<String> = s
            .pass_at
            .iter()
            .map(|p| {
                format!(
                    "k={}: pass@k {}, pass^k {}",
                    p.k,
                    pct(p.pass_at_k),
                    pct(p.pass_hat_k)
                )
            })
            .collect();
        let _ = write!(
            out,
            r#"</div><p class="repeats">Pass rate per repeat: {}{spread}</p><p class="repeats" id="pass-at-k" title="unbiased estimators per item over its runs, averaged over items; ERROR counts as not passed">{}</p><p class="unstable" id="unstable"><b>{} unstable item(s)</b>"#,
            escape_html(&per.join(", ")),
            escape_html(&at.join(" · ")),
            s.unstable.len()
        );
        if !s.unstable.is_empty() {
            let shown: Vec<String> = s
                .unstable
                .iter()
                .take(UNSTABLE_SHOWN)
                .map(|id| format!("<code>{}</code>", escape_html(id)))
                .collect();
            let _ = write!(out, ": {}", shown.join(" "));
            if s.unstable.len() > UNSTABLE_SHOWN {
                let _ = write!(out, " and {} more", s.unstable.len() - UNSTABLE_SHOWN);
            }
        }
        out.push_str("</p>");
    } else {
        out.push_str("</div>");
    }
}

/// The cost and token stats of the header.
fn cost_and_tokens(out: &mut String, page: &ReportPage) {
    let _ = write!(
        out,
        r#"<div class="stat"><span class="n" id="cost">{}</span><span class="k" id="cost-detail">{}</span></div>"#,
        if page.cost.priced_runs == 0 && page.cost.unpriced_runs > 0 {
            "unpriced".to_string()
        } else {
            format!("${:.4}", page.cost.total_usd)
        },
        escape_html(&page.cost.line())
    );
    let t = &page.token_use;
    let _ = write!(
        out,
        r#"<div class="stat"><span class="n" id="tokens-per-item">{}</span><span class="k" id="tokens-detail">{}</span></div><div class="stat"><span class="n" id="tokens-per-pass">{}</span><span class="k">tokens per PASS (all runs' tokens over {} PASS run(s))</span></div>"#,
        t.per_item.map_or_else(|| "none".to_string(), figure),
        escape_html(&t.line(page.mock)),
        t.per_pass.map_or_else(|| "none".to_string(), figure),
        t.pass_runs
    );
}

/// A rate as a percentage with one decimal.
pub(crate) fn pct(rate: f64) -> String {
    format!("{:.1}%", rate * 100.0)
}

/// The item data the page's script reads, compact: one array per item run
/// (see `assets/report.js` for the field order), check specs stored once
/// and referred to by index.
pub fn data_json(page: &ReportPage) -> String {
    let mut specs: Vec<String> = Vec::new();
    let mut spec_index: HashMap<String, usize> = HashMap::new();
    let mut items = String::with_capacity(page.items.len() * 256);
    items.push('[');
    for (k, item) in page.items.iter().enumerate() {
        if k > 0 {
            items.push(',');
        }
        let row = item_json(item, &mut |spec: &Value| {
            let text = spec.to_string();
            let next = specs.len();
            let i = *spec_index.entry(text.clone()).or_insert(next);
            if i == next {
                specs.push(text);
            }
            i
        });
        items.push_str(&row.to_string());
    }
    items.push(']');
    format!(
        r#"{{"repeats":{},"specs":[{}],"items":{items}}}"#,
        page.summary.repeats,
        specs.join(",")
    )
}

fn item_json(page_item: &PageItem, spec: &mut dyn FnMut(&Value) -> usize) -> Value {
    let item = &page_item.run;
    let checks: Vec<Value> = item
        .checks
        .iter()
        .map(|c| json!([c.kind, u8::from(c.ok), c.detail, spec(&c.spec)]))
        .collect();
    let tools: Vec<Value> = item
        .tool_calls
        .iter()
        .map(|t| json!([t.name, t.arguments, u8::from(t.ok), round1(t.duration_ms)]))
        .collect();
    let transcript = page_item
        .transcript
        .as_ref()
        .map(|t| json!({"system": t.conversation.system, "messages": t.conversation.messages}));
    json!([
        item.id,
        item.repeat,
        item.outcome.as_str(),
        item.error_code.map(|code| error_text(
            Some(code),
            item.backend_failure.as_ref(),
            item.error_detail.as_deref(),
        )),
        round1(item.wall_ms),
        item.usage.input_tokens,
        item.usage.output_tokens,
        item.turns,
        u8::from(item.repair_used),
        checks,
        tools,
        item.answer,
        transcript,
        item.cost_usd,
        item.usage.cache_read_tokens,
        crate::report::format::conversation_detail(item),
        conversation_turns(item),
    ])
}

/// A conversation's exchanges turn by turn, `[user, agent, tool calls]`
/// (the agent `null` where it gave no reply); `null` on other items.
fn conversation_turns(item: &ReportItem) -> Value {
    let Some(talk) = &item.conversation else {
        return Value::Null;
    };
    let turns: Vec<Value> = talk
        .exchanges
        .iter()
        .enumerate()
        .map(|(i, e)| {
            json!([
                e.user,
                e.agent,
                talk.calls_per_turn.get(i).copied().unwrap_or(0)
            ])
        })
        .collect();
    Value::Array(turns)
}

fn round1(x: f64) -> f64 {
    if x.is_finite() {
        (x * 10.0).round() / 10.0
    } else {
        0.0
    }
}
