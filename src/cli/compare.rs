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
        if let Some(dir) = out.parent().filter(|d| !d.as_os_str().is_empty()) {
            std::fs::create_dir_all(dir)
                .map_err(|e| anyhow::anyhow!("creating {}: {e}", dir.display()))?;
        }
        std::fs::write(out, render_compare(&comparison))
            .map_err(|e| anyhow::anyhow!("{}: {e}", out.display()))?;
        eprintln!("comparison: {}", out.display());
    }
    Ok(if comparison.regressions() > 0 {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    })
}
