//! `tribunal report RESULTS.jsonl [--html OUT.html] [--transcripts DIR]`:
//! render a results file. With `--html`, one self-contained HTML page
//! (inline CSS, JavaScript and SVG; opens from `file://`) with each item's
//! checks, error code, usage, tool calls and, from DIR, its transcript.
//! Without it, the terminal table. Exit 0 on success, 2 on unreadable input.

use std::path::{Path, PathBuf};
use std::process::ExitCode;
use tribunal::judge::html::{ReportPage, render_page};
use tribunal::judge::pricing::Pricing;
use tribunal::judge::results::latest;
use tribunal::judge::{Calibration, Report, ResultRow, read_rows};

#[derive(Debug, clap::Args)]
pub(crate) struct ReportArgs {
    /// The results file (JSON Lines) written by `tribunal run`.
    results: PathBuf,
    /// Write the HTML report to this file.
    #[arg(long, value_name = "OUT.html")]
    html: Option<PathBuf>,
    /// Read the transcripts `tribunal run --transcripts DIR` recorded and
    /// show them in each item's detail.
    #[arg(long, value_name = "DIR")]
    transcripts: Option<PathBuf>,
    /// A pricing table (TOML) added to or replacing the built-in prices.
    #[arg(long, value_name = "FILE")]
    pricing: Option<PathBuf>,
}

pub(crate) fn run(args: ReportArgs) -> anyhow::Result<ExitCode> {
    let rows = read_results(&args.results)?;
    let pricing = super::report_opts::pricing(&Pricing::default(), args.pricing.as_deref())?;
    match &args.html {
        Some(out) => {
            let bytes = write_html(&rows, args.transcripts.as_deref(), out, &pricing)?;
            eprintln!("report: {} ({bytes} bytes)", out.display());
        }
        None => {
            let arena = rows.first().map(|r| r.arena.clone()).unwrap_or_default();
            print!("{}", Report::priced(&arena, &rows, &pricing).to_terminal());
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
        Some(dir) => tribunal::judge::transcript::Transcript::read(dir, &row.id, row.repeat)
            .map_err(|e| e.to_string()),
        None => Ok(None),
    })
}
