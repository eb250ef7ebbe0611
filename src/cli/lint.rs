//! `tribunal lint ARENA…`: every problem of each arena, one line each as
//! `ARENA/FILE:LINE:COLUMN: message` (as cargo prints them; `--mock`: and
//! every item mock mode cannot run). Exit 0 when all are clean, 2 when
//! there is any problem.

use std::path::PathBuf;
use std::process::ExitCode;

#[derive(Debug, clap::Args)]
pub(crate) struct LintArgs {
    /// Arena folders.
    #[arg(required = true)]
    arenas: Vec<PathBuf>,
    /// Also require what mock mode needs: `mock` turns on every item.
    #[arg(long)]
    mock: bool,
}

pub(crate) fn run(args: LintArgs) -> anyhow::Result<ExitCode> {
    let mut problems = 0;
    for dir in &args.arenas {
        if let Err(e) = super::folder::require_folder(dir, "the arena folder") {
            println!("{e}");
            problems += 1;
            continue;
        }
        let report = if args.mock {
            tribunal::judge::lint_for_mock(dir)
        } else {
            tribunal::judge::lint(dir)
        };
        for p in &report.problems {
            let located = tribunal::judge::Problem {
                file: dir.join(&p.file).display().to_string(),
                ..p.clone()
            };
            println!("{located}");
        }
        if report.is_clean() {
            println!("{}: ok, {} item(s)", dir.display(), report.items);
        }
        problems += report.problems.len();
    }
    if problems > 0 {
        eprintln!("tribunal: {problems} problem(s)");
        Ok(ExitCode::from(2))
    } else {
        Ok(ExitCode::SUCCESS)
    }
}
