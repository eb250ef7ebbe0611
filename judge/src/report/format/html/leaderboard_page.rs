//! Renders a [`Leaderboard`] as one self-contained, static HTML page: the
//! table every format shows ([`Leaderboard::table`]), a bar of each run's
//! pass rate with its interval, and the notes. Everything from the result
//! files (run names, the arena's name) is escaped.

use crate::report::format::MOCK_BANNER;
use crate::report::format::html::escape::escape_html;
use crate::report::format::html::render::head;
use crate::report::format::leaderboard::LEADERBOARD_COLUMNS;
use crate::report::leaderboard::Leaderboard;
use std::fmt::Write as _;

/// Renders the leaderboard page.
pub fn render_leaderboard(board: &Leaderboard) -> String {
    let mut out = String::with_capacity(8 * 1024 + board.standings.len() * 600);
    let title = format!("tribunal leaderboard · {}", board.arena);
    head(&mut out, &title);
    let _ = writeln!(out, "<header><h1>{}</h1>", escape_html(&title));
    if board.has_mock() {
        let _ = writeln!(
            out,
            r#"<p class="mock-banner" id="mock-banner">{}</p>"#,
            escape_html(MOCK_BANNER)
        );
    }
    out.push_str("</header>\n<h2>Runs</h2><table id=\"leaderboard\"><tr>");
    for column in LEADERBOARD_COLUMNS {
        let _ = write!(out, "<th>{}</th>", escape_html(column));
    }
    out.push_str("<th>pass rate, 95% CI</th></tr>");
    for (row, standing) in board.table().iter().zip(&board.standings) {
        out.push_str("<tr>");
        for (i, cell) in row.iter().enumerate() {
            let class = if i == 1 { "mono" } else { "num" };
            let _ = write!(out, "<td class=\"{class}\">{}</td>", escape_html(cell));
        }
        let (rate, ci) = (
            standing.side.pass_rate,
            standing
                .side
                .pass_rate_ci
                .map_or((0.0, 0.0), |c| (c.low, c.high)),
        );
        // A bar of the pass rate, its interval drawn as a line across it.
        let _ = write!(
            out,
            "<td><svg width=\"200\" height=\"14\" role=\"img\"><title>{:.1}% ({:.1}–{:.1}%)</title><rect x=\"0\" y=\"2\" width=\"{:.1}\" height=\"10\" fill=\"#2e7d32\"/><line x1=\"{:.1}\" x2=\"{:.1}\" y1=\"7\" y2=\"7\" stroke=\"#000\" stroke-width=\"2\"/></svg></td></tr>",
            rate * 100.0,
            ci.0 * 100.0,
            ci.1 * 100.0,
            rate * 200.0,
            ci.0 * 200.0,
            ci.1 * 200.0
        );
    }
    out.push_str("</table>\n<ul id=\"notes\">");
    for note in board.notes() {
        let _ = write!(out, "<li>{}</li>", escape_html(&note));
    }
    out.push_str("</ul>\n</body>\n</html>\n");
    out
}
