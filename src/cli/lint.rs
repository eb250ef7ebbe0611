//! `tribunal lint ARENA…`: every problem of each arena, one line each as
//! `ARENA/FILE:LINE:COLUMN: message` (as cargo prints them; `--mock`: and
//! every item mock mode cannot run). Exit 0 when all are clean, 2 when
//! there is any problem.

use std::path::{Path, PathBuf};
use std::process::ExitCode;
use tribunal::judge::Problem;

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
        for line in located(dir, &report.problems) {
            println!("{line}");
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

/// Each of `problems` as a line naming its file under the arena
/// folder `dir` (`my_arena/arena.toml:4:1: …`), as `lint` and `run` print
/// them.
pub(super) fn located<'a>(
    dir: &'a Path,
    problems: &'a [Problem],
) -> impl Iterator<Item = String> + 'a {
    problems.iter().map(move |p| {
        Problem {
            file: dir.join(&p.file).display().to_string(),
            ..p.clone()
        }
        .to_string()
    })
}
