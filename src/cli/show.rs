//! `tribunal show RESULTS ITEM[#REPEAT] [--transcripts DIR]`: one run of a
//! results file in the terminal — the outcome, the conversation when its
//! transcript was kept (messages, tool calls and their results, clipped),
//! the answer, and each check with why. Exit 0, 2 when the file or the
//! item is not there.

use std::path::PathBuf;
use std::process::ExitCode;
use tribunal::judge::internal::report::format::show_run;
use tribunal::judge::internal::rows::transcript::Transcript;

#[derive(Debug, clap::Args)]
pub(crate) struct ShowArgs {
    /// The results file (JSON Lines) written by `tribunal run`.
    results: PathBuf,
    /// The item id, with `#K` for repeat K (default: the first repeat).
    #[arg(value_name = "ITEM[#REPEAT]")]
    item: String,
    /// The transcripts folder the run wrote (`run --transcripts DIR`): the
    /// conversation is shown from it.
    #[arg(long, value_name = "DIR")]
    transcripts: Option<PathBuf>,
}

pub(crate) fn run(args: ShowArgs) -> anyhow::Result<ExitCode> {
    // Every row, the latest per run (a torn last line is no run to show).
    let rows = tribunal::judge::internal::rows::results::latest(
        tribunal::judge::read_rows(&args.results)?.rows,
    );
    // `ITEM` as written (an id may hold `#`), else `ITEM#K`.
    let whole = rows.iter().find(|r| r.id == args.item);
    let split = || {
        let (id, k) = args.item.rsplit_once('#')?;
        let k = k.parse::<u32>().ok()?;
        rows.iter().find(|r| r.id == id && r.repeat == k)
    };
    let found = whole.or_else(split);
    let Some(row) = found else {
        let mut ids: Vec<&str> = rows.iter().map(|r| r.id.as_str()).collect();
        ids.dedup();
        let shown: Vec<&str> = ids.iter().take(10).copied().collect();
        let more = if ids.len() > shown.len() { ", …" } else { "" };
        anyhow::bail!(
            "{}: no run of item {:?}; its items: {}{more}",
            args.results.display(),
            args.item,
            shown.join(", ")
        );
    };
    let transcript = match &args.transcripts {
        Some(dir) => {
            let read = Transcript::read(dir, &row.id, row.repeat)?;
            if read.is_none() {
                eprintln!(
                    "tribunal: no transcript of {} #{} in {}",
                    row.id,
                    row.repeat,
                    dir.display()
                );
            }
            read
        }
        None => None,
    };
    print!("{}", show_run(row, transcript.as_ref()));
    Ok(ExitCode::SUCCESS)
}

/// The line a report ends with when a run did not pass: the `show`
/// command of the first such run, to read it up close.
pub(crate) fn hint(
    results: &std::path::Path,
    rows: &[tribunal::judge::ResultRow],
    transcripts: Option<&std::path::Path>,
) -> Option<String> {
    let failing: Vec<&tribunal::judge::ResultRow> = rows
        .iter()
        .filter(|r| r.outcome != tribunal::judge::Outcome::Pass)
        .collect();
    let first = failing.first()?;
    let repeat = if first.repeat > 0 {
        format!("#{}", first.repeat)
    } else {
        String::new()
    };
    let transcripts = transcripts
        .map(|d| format!(" --transcripts {}", d.display()))
        .unwrap_or_default();
    Some(format!(
        "{} run(s) did not pass; read one up close (conversation, tool calls, checks): tribunal show {} {}{repeat}{transcripts}",
        failing.len(),
        results.display(),
        first.id
    ))
}
