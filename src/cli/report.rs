//! `tribunal report RESULTS.jsonl [--report FORMAT] [--report-file FILE]
//! [--html OUT.html] [--transcripts DIR]`: render a results file in any of
//! `run`'s formats. With `--html`, one self-contained HTML page (inline CSS,
//! JavaScript and SVG; opens from `file://`) with each item's checks, error
//! code, usage, tool calls and, from DIR, its transcript. Without a format,
//! the terminal table. Exit 0 on success, 2 on unreadable input or a file
//! without a result row.

use super::report_opts::{ReportOpts, emit_report_with, pricing, write_html};
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use tribunal::judge::Pricing;
use tribunal::judge::internal::rows::results::latest;
use tribunal::judge::{ResultRow, read_rows};

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
    let (rows, torn) = read_results_torn(&args.results)?;
    let notes: Vec<String> = torn.then(|| TORN_NOTE.to_string()).into_iter().collect();
    if rows.is_empty() {
        anyhow::bail!(
            "{}: no result row (an empty file, or not a results file of `tribunal run`)",
            args.results.display()
        );
    }
    let pricing = pricing(&Pricing::default(), args.opts.pricing.as_deref())?;
    let show = super::show::hint(&args.results, &rows, args.opts.transcripts.as_deref());
    match &args.html {
        Some(out) => {
            let bytes = write_html(
                &rows,
                args.opts.transcripts.as_deref(),
                out,
                &pricing,
                &notes,
            )?;
            eprintln!("report: {} ({bytes} bytes)", out.display());
        }
        None => {
            let arena = rows.first().map(|r| r.arena.clone()).unwrap_or_default();
            emit_report_with(&arena, rows, &args.opts, &pricing, None, None, notes)?;
        }
    }
    if let Some(line) = show {
        eprintln!("{line}");
    }
    Ok(ExitCode::SUCCESS)
}

/// What a report of a file torn mid-line says above its items.
const TORN_NOTE: &str = "the results file ends in a torn line (its run was killed mid-write): \
     that item run is left out of this report; `tribunal run --resume` runs it again";

/// The latest row per (item, repeat) of a results file, and whether a
/// torn last line was discarded (said on stderr too).
pub(crate) fn read_results_torn(path: &Path) -> anyhow::Result<(Vec<ResultRow>, bool)> {
    let read = read_rows(path)?;
    if read.torn {
        eprintln!("tribunal: discarded a torn last line in {}", path.display());
    }
    Ok((latest(read.rows), read.torn))
}
