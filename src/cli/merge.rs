//! `tribunal merge SHARD.jsonl… | FOLDER…`: combine the result files of
//! shards of one run (same arena and config hash) into one report, and
//! optionally one results file. A folder stands for every `*.jsonl` file
//! directly inside it, in name order. Exit codes as for `tribunal run`, and
//! 8 when the rows of `run --shard I/N` do not cover every shard of N (a
//! shard file left out), unless `--allow-missing` says that is expected.

use super::report_opts::{ReportOpts, emit_report};
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use tribunal::judge::internal::rows::results::{merge_files, missing_shards, rewrite};

/// The exit code of a merge that leaves out shards of the run.
const MISSING_SHARDS_EXIT: u8 = 8;

#[derive(Debug, clap::Args)]
pub(crate) struct MergeArgs {
    /// Result files (JSON Lines) written by `tribunal run --shard`, or
    /// folders holding them: every `*.jsonl` file directly inside a folder
    /// (not its subfolders), in name order.
    #[arg(required = true, value_name = "FILE|FOLDER")]
    files: Vec<PathBuf>,
    /// Also write the merged rows to this results file (left out when a
    /// folder being merged holds it).
    #[arg(long)]
    out: Option<PathBuf>,
    /// Merge even when shards of the run are missing (their numbers are
    /// still printed). Without it, a missing shard exits 8 and writes
    /// nothing.
    #[arg(long)]
    allow_missing: bool,
    #[command(flatten)]
    report: ReportOpts,
}

pub(crate) fn run(args: MergeArgs) -> anyhow::Result<ExitCode> {
    args.report.check()?;
    let files = result_files(&args.files, args.out.as_deref())?;
    let rows = merge_files(&files)?;
    let missing = missing_shards(&rows);
    if !missing.is_empty() {
        let named: Vec<String> = missing.iter().map(ToString::to_string).collect();
        let what = format!(
            "missing_shards: no row of shard(s) {} in the files merged",
            named.join(", ")
        );
        if !args.allow_missing {
            eprintln!(
                "tribunal: merge: {what}; merge every shard's file, or pass --allow-missing if they are left out on purpose (a shard with no item of the arena writes no row)"
            );
            return Ok(ExitCode::from(MISSING_SHARDS_EXIT));
        }
        eprintln!("tribunal: merge: {what} (allowed by --allow-missing)");
    }
    if let Some(out) = &args.out {
        rewrite(out, &rows)?;
    }
    let arena = rows.first().map(|r| r.arena.clone()).unwrap_or_default();
    let pricing = super::report_opts::pricing(
        &tribunal::judge::Pricing::default(),
        args.report.pricing.as_deref(),
    )?;
    emit_report(&arena, rows, &args.report, &pricing)
}

/// The files to merge: each file as given; each folder's `*.jsonl` files
/// (not recursive), sorted by name, without `out` (a merge written into
/// the folder it reads is not read back as a shard). A folder without any
/// is an error.
fn result_files(paths: &[PathBuf], out: Option<&Path>) -> anyhow::Result<Vec<PathBuf>> {
    let out = out.and_then(|o| o.canonicalize().ok());
    let mut files = Vec::new();
    for path in paths {
        if !path.is_dir() {
            files.push(path.clone());
            continue;
        }
        let entries =
            std::fs::read_dir(path).map_err(|e| anyhow::anyhow!("{}: {e}", path.display()))?;
        let mut found = Vec::new();
        for entry in entries {
            let file = entry
                .map_err(|e| anyhow::anyhow!("{}: {e}", path.display()))?
                .path();
            if file.extension().is_some_and(|x| x == "jsonl") && file.is_file() {
                found.push(file);
            }
        }
        found.retain(|f| out.is_none() || f.canonicalize().ok() != out);
        if found.is_empty() {
            anyhow::bail!(
                "the folder {} holds no *.jsonl result files to merge",
                path.display()
            );
        }
        found.sort();
        files.extend(found);
    }
    Ok(files)
}
