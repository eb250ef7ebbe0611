//! `tribunal merge SHARD.jsonl…`: combine the result files of shards of one
//! run (same arena and config hash) into one report, and optionally one
//! results file. Exit codes as for `tribunal run`.

use super::report_opts::{ReportOpts, emit_report};
use std::path::PathBuf;
use std::process::ExitCode;
use tribunal::judge::results::{merge_files, rewrite};

#[derive(Debug, clap::Args)]
pub(crate) struct MergeArgs {
    /// Result files (JSON Lines) written by `tribunal run --shard`.
    #[arg(required = true)]
    files: Vec<PathBuf>,
    /// Also write the merged rows to this results file.
    #[arg(long)]
    out: Option<PathBuf>,
    #[command(flatten)]
    report: ReportOpts,
}

pub(crate) fn run(args: MergeArgs) -> anyhow::Result<ExitCode> {
    args.report.check()?;
    let rows = merge_files(&args.files)?;
    if let Some(out) = &args.out {
        rewrite(out, &rows)?;
    }
    let arena = rows.first().map(|r| r.arena.clone()).unwrap_or_default();
    let pricing = super::report_opts::pricing(
        &tribunal::judge::pricing::Pricing::default(),
        args.report.pricing.as_deref(),
    )?;
    emit_report(&arena, rows, &args.report, &pricing)
}
