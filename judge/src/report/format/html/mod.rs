//! The HTML report: one self-contained file (inline CSS, JavaScript and
//! SVG; no network access; opens from `file://`) that shows why items
//! failed, not just how many.
//!
//! - [`ReportPage`] is the data the page is built from: header (arena,
//!   backend, model, date, config hash, mock flag), counts, pass^k and
//!   unstable items, chart data, and one [`PageItem`] per item run with its
//!   checks, error code, usage, tool calls and, when recorded, transcript.
//! - [`render_page`] turns it into HTML; [`render_compare`] does the same
//!   for a [`Comparison`](crate::report::compare::Comparison), [`render_leaderboard`] for a
//!   [`Leaderboard`](crate::report::leaderboard::Leaderboard).
//! - Everything that came from a model, a tool or a dataset is escaped:
//!   [`escape_html`] for markup, [`json_for_script`] for the item data
//!   embedded as JSON.
//!
//! ```
//! use tribunal_judge::internal::report::format::html::{ReportPage, render_page};
//!
//! let page = ReportPage::from_rows(&[]);
//! let html = render_page(&page);
//! assert!(html.starts_with("<!DOCTYPE html>"));
//! assert!(!html.contains("http://") && !html.contains("https://"));
//! ```

mod charts;
mod compare_page;
mod escape;
mod leaderboard_page;
mod page;
mod render;

pub use charts::{
    Histogram, LATENCY_BINS, TOKEN_BARS, TokenBars, latency_histogram, outcome_bar, percentile,
    token_chart,
};
pub use compare_page::render_compare;
pub(crate) use escape::escape_markup;
pub use escape::{escape_html, json_for_script, script_safe};
pub use leaderboard_page::render_leaderboard;
pub use page::{PageItem, ReportPage, utc_minute};
pub use render::{data_json, render_page};
