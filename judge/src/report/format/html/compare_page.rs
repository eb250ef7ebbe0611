//! Renders a [`Comparison`] as one self-contained, static HTML page: the
//! gate's verdict, the paired test, the two sides' numbers with deltas,
//! then every changed item run, regressions first. Everything from the
//! result files is escaped.

use crate::report::compare::{ChangeKind, Comparison, Gate};
use crate::report::format::MOCK_BANNER;
use crate::report::format::html::escape::escape_html;
use crate::report::format::html::render::head;
use std::fmt::Write as _;

/// Renders the comparison page, with the verdict of `gate`.
pub fn render_compare(c: &Comparison, gate: Gate) -> String {
    let mut out = String::with_capacity(16 * 1024 + c.changes.len() * 200);
    let title = format!("tribunal compare · {} → {}", c.base.arena, c.new.arena);
    head(&mut out, &title);
    let _ = writeln!(out, "<header><h1>{}</h1>", escape_html(&title));
    let mock = c.base.mock || c.new.mock;
    if mock {
        let _ = writeln!(
            out,
            r#"<p class="mock-banner" id="mock-banner">{}</p>"#,
            escape_html(MOCK_BANNER)
        );
    }
    out.push_str(r#"<div class="stats">"#);
    for (class, label, n) in [
        ("fail", "regressions", c.regressions()),
        ("pass", "fixes", c.fixes()),
        (
            "",
            "other changes",
            c.changes
                .iter()
                .filter(|x| x.kind == ChangeKind::Changed)
                .count(),
        ),
    ] {
        let _ = write!(
            out,
            r#"<div class="stat {class}"><span class="n">{n}</span><span class="k">{label}</span></div>"#
        );
    }
    let _ = write!(
        out,
        r#"<div class="stat"><span class="n">{:+.1}</span><span class="k">pass rate, points</span></div>"#,
        c.pass_rate_delta * 100.0
    );
    let _ = write!(
        out,
        r#"<div class="stat"><span class="n" id="tokens-per-item-change">{}</span><span class="k">tokens per item run, {}</span></div></div>"#,
        escape_html(&match c.tokens_per_item.change_text() {
            change if change.is_empty() => "n/a".to_string(),
            change => change,
        }),
        escape_html(&c.tokens_per_item.text())
    );
    let _ = write!(
        out,
        r#"<p class="gate {}" id="gate">{}</p><p class="paired" id="tokens">{}</p><p class="paired" id="paired">{}</p></header>"#,
        if c.fails(gate) { "fail" } else { "pass" },
        escape_html(&c.gate_line(gate)),
        escape_html(&c.tokens_line()),
        escape_html(&c.paired_line())
    );
    out.push_str(
        "\n<h2>Numbers</h2><table><tr><th></th><th>baseline</th><th>new</th><th class=\"num\">delta</th></tr>",
    );
    let (b, n) = (&c.base, &c.new);
    for (label, x, y) in [
        ("arena", &b.arena, &n.arena),
        ("backend", &b.backend, &n.backend),
        ("model", &b.model, &n.model),
        ("config hash", &b.config_hash, &n.config_hash),
    ] {
        let _ = write!(
            out,
            "<tr><td>{label}</td><td class=\"mono\">{}</td><td class=\"mono\">{}</td><td></td></tr>",
            escape_html(x),
            escape_html(y)
        );
    }
    for [label, x, y, d] in c.figures() {
        let _ = write!(
            out,
            "<tr><td>{}</td><td>{}</td><td>{}</td><td class=\"num\">{}</td></tr>",
            escape_html(&label),
            escape_html(&x),
            escape_html(&y),
            escape_html(&d)
        );
    }
    out.push_str("</table>");
    if !c.item_rates.is_empty() {
        out.push_str(
            "\n<h2>Items whose pass rate changed</h2><table id=\"item-rates\"><tr><th>id</th><th class=\"num\">baseline PASS</th><th class=\"num\">new PASS</th><th class=\"num\">runs</th></tr>",
        );
        for r in &c.item_rates {
            let _ = write!(
                out,
                "<tr class=\"{}\"><td class=\"mono\">{}</td><td class=\"num\">{}</td><td class=\"num\">{}</td><td class=\"num\">{}</td></tr>",
                if r.new_pass < r.base_pass {
                    "worse"
                } else {
                    "better"
                },
                escape_html(&r.id),
                r.base_pass,
                r.new_pass,
                r.runs
            );
        }
        out.push_str("</table>");
    }
    out.push_str("\n<h2>Changed item runs</h2>");
    if c.changes.is_empty() {
        out.push_str("<p class=\"muted\">No item run changed outcome.</p>");
    } else {
        out.push_str(
            "<table id=\"changes\"><tr><th>change</th><th>id</th><th>repeat</th><th>baseline</th><th>new</th><th>why</th><th class=\"num\">Δ tokens</th><th class=\"num\">Δ latency ms</th></tr>",
        );
        for ch in &c.changes {
            let (word, class) = match ch.kind {
                ChangeKind::Regression => ("regression", "FAIL"),
                ChangeKind::Fix => ("fix", "PASS"),
                ChangeKind::Changed => ("changed", "ERROR"),
                ChangeKind::ChecksChanged => ("the checks changed", "ERROR"),
            };
            let why = ch.why();
            let _ = write!(
                out,
                "<tr class=\"change {word}\"><td><span class=\"badge {class}\">{word}</span></td><td class=\"mono\">{}</td><td>{}</td><td>{}</td><td>{}</td><td class=\"mono\">{}</td><td class=\"num\">{:+}</td><td class=\"num\">{:+.1}</td></tr>",
                escape_html(&ch.id),
                ch.repeat,
                ch.base.as_str(),
                ch.new.as_str(),
                escape_html(&why),
                ch.tokens_delta,
                ch.wall_delta_ms
            );
        }
        out.push_str("</table>");
    }
    for (label, keys) in [
        ("Only in the baseline", &c.only_base),
        ("Only in the new file", &c.only_new),
    ] {
        if keys.is_empty() {
            continue;
        }
        let _ = write!(out, "<h2>{label} ({})</h2><p>", keys.len());
        for k in keys.iter().take(200) {
            let _ = write!(out, "<code>{} #{}</code> ", escape_html(&k.id), k.repeat);
        }
        if keys.len() > 200 {
            let _ = write!(out, "and {} more", keys.len() - 200);
        }
        out.push_str("</p>");
    }
    out.push_str("\n</body>\n</html>\n");
    out
}
