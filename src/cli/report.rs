//! `tribunal report RESULTS.jsonl [--report FORMAT] [--report-file FILE]
//! [--html OUT.html] [--transcripts DIR]`: render a results file in any of
//! `run`'s formats. With `--html`, one self-contained HTML page (inline CSS,
//! JavaScript and SVG; opens from `file://`) with each item's checks, error
//! code, usage, tool calls and, from DIR, its transcript. Without a format,
//! the terminal table. Exit 0 on success, 2 on unreadable input or a file
//! without a result row.

use super::report_opts::{ReportOpts, emit_report_with};
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use tribunal::judge::pricing::Pricing;
use tribunal::judge::report::format::html::{ReportPage, render_page};
use tribunal::judge::rows::results::latest;
use tribunal::judge::{Calibration, ResultRow, read_rows};

#[derive(Debug, clap::Args)]
pub(crate) struct ReportArgs {
    /// The results file (JSON Lines) written by `tribunal run`.
    results: PathBuf,
    /// Write the HTML report to this file (the same as `--report html
    /// --report-file OUT.html`).
    #[arg(long, value_name = "OUT.html")]
    html: Option<PathBuf>,
    /// The format, the file, the transcripts folder and the prices, as
    /// `run` takes them. `--min-pass-rate` is accepted and changes nothing:
    /// `report` exits 0 whatever the outcomes.
    #[command(flatten)]
    opts: ReportOpts,
}

pub(crate) fn run(args: ReportArgs) -> anyhow::Result<ExitCode> {
    let rows = read_results(&args.results)?;
    if rows.is_empty() {
        anyhow::bail!(
            "{}: no result row (an empty file, or not a results file of `tribunal run`)",
            args.results.display()
        );
    }
    let pricing = super::report_opts::pricing(&Pricing::default(), args.opts.pricing.as_deref())?;
    match &args.html {
        Some(out) => {
            let bytes = write_html(&rows, args.opts.transcripts.as_deref(), out, &pricing)?;
            eprintln!("report: {} ({bytes} bytes)", out.display());
        }
        None => {
            let arena = rows.first().map(|r| r.arena.clone()).unwrap_or_default();
            emit_report_with(&arena, rows, &args.opts, &pricing, None, None)?;
        }
    }
    Ok(ExitCode::SUCCESS)
}

/// The latest row per (item, repeat) of a results file; a torn last line
/// is discarded with a warning.
pub(crate) fn read_results(path: &Path) -> anyhow::Result<Vec<ResultRow>> {
    Ok(read_results_torn(path)?.0)
}

/// [`read_results`], and whether a torn last line was discarded.
pub(crate) fn read_results_torn(path: &Path) -> anyhow::Result<(Vec<ResultRow>, bool)> {
    let read = read_rows(path)?;
    if read.torn {
        eprintln!("tribunal: discarded a torn last line in {}", path.display());
    }
    Ok((latest(read.rows), read.torn))
}

/// Writes the HTML report of `rows` to `out` (creating its folder), with
/// transcripts from `transcripts` when given. Returns the size in bytes.
pub(crate) fn write_html(
    rows: &[ResultRow],
    transcripts: Option<&Path>,
    out: &Path,
    pricing: &Pricing,
) -> anyhow::Result<usize> {
    write_page(&page(rows, transcripts, pricing), out)
}

/// Writes the rendered `page` to `out` (its notes to stderr); returns the
/// size in bytes.
fn write_page(page: &ReportPage, out: &Path) -> anyhow::Result<usize> {
    for note in &page.notes {
        eprintln!("tribunal: note: {note}");
    }
    let html = render_page(page);
    super::folder::write_file(out, &html)?;
    Ok(html.len())
}

/// `--report html` on `run` and `merge`: the HTML report to `file`, or to
/// stdout without one.
pub(crate) fn emit_html(
    rows: &[ResultRow],
    transcripts: Option<&Path>,
    file: Option<&Path>,
    pricing: &Pricing,
    calibrations: Vec<Calibration>,
) -> anyhow::Result<()> {
    let mut page = page(rows, transcripts, pricing);
    page.calibrations = calibrations;
    match file {
        Some(out) => {
            let bytes = write_page(&page, out)?;
            eprintln!("report: {} ({bytes} bytes)", out.display());
        }
        None => print!("{}", render_page(&page)),
    }
    Ok(())
}

/// The page model of `rows`, with the transcripts in `transcripts` when given.
fn page(rows: &[ResultRow], transcripts: Option<&Path>, pricing: &Pricing) -> ReportPage {
    ReportPage::build_priced(rows, pricing, |row| match transcripts {
        Some(dir) => tribunal::judge::rows::transcript::Transcript::read(dir, &row.id, row.repeat)
            .map_err(|e| e.to_string()),
        None => Ok(None),
    })
}
