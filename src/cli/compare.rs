//! `tribunal compare BASE.jsonl NEW.jsonl [--html OUT.html]`: which item
//! runs changed outcome (PASS → FAIL/ERROR regressions, the reverse
//! fixes), the pass-rate delta, token and latency deltas. Exit 1 when
//! there is any regression (so CI can gate on it), 0 otherwise, 2 when an
//! input cannot be read.

use super::report::read_results;
use std::path::PathBuf;
use std::process::ExitCode;
use tribunal::judge::Comparison;
use tribunal::judge::html::render_compare;

#[derive(Debug, clap::Args)]
pub(crate) struct CompareArgs {
    /// The baseline results file (JSON Lines).
    base: PathBuf,
    /// The new results file (JSON Lines).
    new: PathBuf,
    /// Also write the comparison as a self-contained HTML page.
    #[arg(long, value_name = "OUT.html")]
    html: Option<PathBuf>,
}

pub(crate) fn run(args: CompareArgs) -> anyhow::Result<ExitCode> {
    let base = read_results(&args.base)?;
    let new = read_results(&args.new)?;
    let comparison = Comparison::new(&base, &new);
    print!("{}", comparison.to_text());
    if let Some(out) = &args.html {
        super::folder::write_file(out, render_compare(&comparison))?;
        eprintln!("comparison: {}", out.display());
    }
    Ok(if comparison.regressions() > 0 {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    })
}
