//! `tribunal lint ARENA…`: every problem of each arena, one line each as
//! `ARENA/FILE:LINE:COLUMN: message` (as cargo prints them; `--mock`: and
//! every item mock mode cannot run; `--run`: and every review item whose
//! gold its `gold_test` contradicts, run in the sandbox on the change and
//! on its parent). Exit 0 when all are clean, 2 when there is any problem.

use std::path::{Path, PathBuf};
use std::process::ExitCode;
use tribunal::judge::Problem;
use tribunal::judge::internal::gold_check::{check_gold_tests, gold_sandbox};

#[derive(Debug, clap::Args)]
pub(crate) struct LintArgs {
    /// Arena folders.
    #[arg(required = true)]
    arenas: Vec<PathBuf>,
    /// Also require what mock mode needs: `mock` turns on every item.
    #[arg(long)]
    mock: bool,
    /// Also run each review item's `gold_test` in the sandbox, on the
    /// change and on its parent, and list every item whose gold verdict
    /// the results contradict. Refuses when no sandbox can be made.
    #[arg(long)]
    run: bool,
}

pub(crate) fn run(args: LintArgs) -> anyhow::Result<ExitCode> {
    let mut problems = 0;
    let mut gold = if args.run {
        Some(GoldRunner::new()?)
    } else {
        None
    };
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
        if let Some(gold) = gold.as_mut().filter(|_| report.is_clean()) {
            problems += gold.run(dir)?;
        }
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

/// Runs the arenas' gold tests, each arena's in the sandbox its
/// `[sandbox]` names (engine, toolchains).
struct GoldRunner {
    runtime: tokio::runtime::Runtime,
}

impl GoldRunner {
    fn new() -> anyhow::Result<GoldRunner> {
        Ok(GoldRunner {
            runtime: super::tokio_runtime()?,
        })
    }

    /// Runs the gold tests of the arena in `dir`: prints each item whose
    /// gold they contradict at its dataset line and a summary line; gives
    /// the number of problems (contradicted items, or 1 when no sandbox
    /// can be made: nothing then runs unsandboxed).
    fn run(&mut self, dir: &Path) -> anyhow::Result<usize> {
        let arena = tribunal::judge::Arena::load(dir)?;
        if !arena.items.iter().any(|i| i.gold_test.is_some()) {
            println!(
                "{}: gold tests: none (no item has a gold_test)",
                dir.display()
            );
            return Ok(0);
        }
        let runtime = &self.runtime;
        let sandbox = match runtime.block_on(gold_sandbox(&arena)) {
            Ok(sandbox) => sandbox,
            Err(e) => {
                println!("{}: gold tests not run: {e}", dir.display());
                return Ok(1);
            }
        };
        eprintln!("{}: gold tests in {}", dir.display(), sandbox.describe());
        let checks = runtime.block_on(check_gold_tests(&arena, &sandbox))?;
        let contradicted: Vec<Problem> = checks
            .iter()
            .filter_map(|c| {
                let why = c.contradiction.as_ref()?;
                Some(Problem::at(
                    tribunal::judge::internal::arena::DATASET,
                    c.line,
                    format!("gold_test: item {:?} (gold {}): {why}", c.id, c.gold),
                ))
            })
            .collect();
        for line in located(dir, &contradicted) {
            println!("{line}");
        }
        for c in &checks {
            let parent = match &c.parent {
                Ok((end, _)) => end.as_str(),
                Err(_) => "cannot be made",
            };
            println!(
                "  {:<5} {}: change {}, parent {parent}: {}",
                c.gold.to_string(),
                c.id,
                c.change.0.as_str(),
                if c.contradiction.is_some() {
                    "CONTRADICTED"
                } else {
                    "agrees"
                }
            );
        }
        println!(
            "{}: gold tests: {} of {} item(s) runnable; {} agree, {} contradicted",
            dir.display(),
            checks.len(),
            arena.items.len(),
            checks.len() - contradicted.len(),
            contradicted.len()
        );
        Ok(contradicted.len())
    }
}
