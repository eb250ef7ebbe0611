//! The report flags `run`, `merge` and `report` share (`--report`,
//! `--report-file`, `--min-pass-rate`, `--transcripts`, `--pricing`) and
//! writing the report they ask for, the HTML page included.

use std::path::{Path, PathBuf};
use std::process::ExitCode;
use tribunal::judge::internal::report::calibration::Calibration;
use tribunal::judge::internal::report::format::html::{ReportPage, render_page};
use tribunal::judge::{Pricing, Report, ReportFormat, ResultRow};

/// The accepted values of `--report`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, clap::ValueEnum)]
pub(crate) enum ReportChoice {
    /// A table for people.
    #[default]
    #[value(alias = "table")]
    Terminal,
    /// The JSON report.
    Json,
    /// Markdown, for CI summaries.
    #[value(alias = "md")]
    Markdown,
    /// JUnit XML, for CI test views.
    Junit,
    /// One self-contained HTML page (charts, each item's detail, transcripts).
    Html,
}

impl ReportChoice {
    /// The text format `Report` renders; `None` for the HTML page, which
    /// is built from the rows by `tribunal::judge::internal::report::format::html`.
    fn text_format(self) -> Option<ReportFormat> {
        match self {
            ReportChoice::Terminal => Some(ReportFormat::Terminal),
            ReportChoice::Json => Some(ReportFormat::Json),
            ReportChoice::Markdown => Some(ReportFormat::Markdown),
            ReportChoice::Junit => Some(ReportFormat::Junit),
            ReportChoice::Html => None,
        }
    }
}

/// The report options of `run` and `merge`.
#[derive(Debug, Clone, clap::Args)]
pub(crate) struct ReportOpts {
    /// The report format.
    #[arg(
        long,
        value_name = "FORMAT",
        value_enum,
        ignore_case = true,
        default_value_t
    )]
    report: ReportChoice,
    /// Write the report to this file instead of stdout.
    #[arg(long, value_name = "PATH")]
    pub(crate) report_file: Option<PathBuf>,
    /// Exit 0 when the pass rate (0..=1) reaches this, even if some items did not pass.
    #[arg(allow_negative_numbers = true, long, value_name = "RATE")]
    min_pass_rate: Option<f64>,
    /// Transcripts folder: `run` writes one file per item and repeat there
    /// (the conversation, usage, timings); `--report html` shows them.
    #[arg(long, value_name = "DIR")]
    pub(crate) transcripts: Option<PathBuf>,
    /// A pricing table (TOML, like the built-in `pricing.toml`) whose models
    /// are added to or replace the built-in prices for the report's costs.
    #[arg(long, value_name = "FILE")]
    pub(crate) pricing: Option<PathBuf>,
}

/// The built-in prices, overlaid by `arena`'s `[pricing]` and then by the
/// `--pricing` file.
pub(crate) fn pricing(arena: &Pricing, file: Option<&Path>) -> anyhow::Result<Pricing> {
    let mut pricing = Pricing::builtin().clone().overlaid(arena);
    if let Some(path) = file {
        pricing = pricing.overlaid(&Pricing::read(path)?);
    }
    Ok(pricing)
}

impl ReportOpts {
    /// Refuses a `--min-pass-rate` outside 0..=1 (before anything runs).
    pub(crate) fn check(&self) -> anyhow::Result<()> {
        if let Some(m) = self.min_pass_rate
            && !(0.0..=1.0).contains(&m)
        {
            anyhow::bail!("--min-pass-rate must be between 0 and 1, got {m}");
        }
        Ok(())
    }
}

/// Renders and writes the report, priced by `pricing`; the exit code says
/// whether the run passed. Takes the rows: the report moves their parts
/// instead of copying them.
pub(crate) fn emit_report(
    arena: &str,
    rows: Vec<ResultRow>,
    opts: &ReportOpts,
    pricing: &Pricing,
) -> anyhow::Result<ExitCode> {
    let passed = emit_report_with(arena, rows, opts, pricing, None, None, Vec::new())?;
    Ok(if passed {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    })
}

/// [`emit_report`] with calibration sections (the verdicts', the rubric
/// judge's) and notes about the rows read (a torn line left out); returns
/// whether the run passed (every item, or `--min-pass-rate`).
pub(crate) fn emit_report_with(
    arena: &str,
    rows: Vec<ResultRow>,
    opts: &ReportOpts,
    pricing: &Pricing,
    calibration: Option<Calibration>,
    rubric_calibration: Option<Calibration>,
    notes: Vec<String>,
) -> anyhow::Result<bool> {
    let format = opts.report.text_format();
    if format.is_none() {
        emit_html(
            &rows,
            opts.transcripts.as_deref(),
            opts.report_file.as_deref(),
            pricing,
            calibration
                .iter()
                .chain(&rubric_calibration)
                .cloned()
                .collect(),
            &notes,
        )?;
    }
    let mut report = Report::priced_owned(arena, rows, pricing);
    report.notes = notes;
    report.calibration = calibration;
    report.rubric_calibration = rubric_calibration;
    if let Some(format) = format {
        let text = report.render(format);
        match &opts.report_file {
            Some(path) => {
                super::folder::write_file(path, &text)?;
                eprintln!("{}", report.summary_line());
                if report.mock {
                    eprintln!("(mock run: the plumbing works; this says nothing about a model)");
                }
            }
            None => print!("{text}"),
        }
    }
    let passed = report.passed(opts.min_pass_rate);
    // The process exits next: freeing every item one by one is wasted work
    // (15% of a 10,005-run mock run, measured with perf). Plain data, no
    // destructor with an effect.
    std::mem::forget(report);
    Ok(passed)
}

/// Writes the HTML report of `rows` to `out` (creating its folder), with
/// transcripts from `transcripts` when given and `notes` about the rows
/// first. Returns the size in bytes.
pub(crate) fn write_html(
    rows: &[ResultRow],
    transcripts: Option<&Path>,
    out: &Path,
    pricing: &Pricing,
    notes: &[String],
) -> anyhow::Result<usize> {
    let mut page = page(rows, transcripts, pricing);
    page.notes.splice(0..0, notes.iter().cloned());
    write_page(&page, out)
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
    notes: &[String],
) -> anyhow::Result<()> {
    let mut page = page(rows, transcripts, pricing);
    page.notes.splice(0..0, notes.iter().cloned());
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
        Some(dir) => {
            tribunal::judge::internal::rows::transcript::Transcript::read(dir, &row.id, row.repeat)
                .map_err(|e| e.to_string())
        }
        None => Ok(None),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::ValueEnum;

    #[test]
    fn each_text_choice_is_the_format_of_its_name() {
        for choice in ReportChoice::value_variants() {
            let name = choice.to_possible_value().map(|p| p.get_name().to_string());
            let parsed = name.and_then(|n| n.parse::<ReportFormat>().ok());
            assert_eq!(parsed, choice.text_format(), "{choice:?}");
        }
    }
}
