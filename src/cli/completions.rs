//! `tribunal completions SHELL` and `tribunal man [--out DIR]`: the shell
//! completion script and the man pages, made on demand from the same
//! command definition the program parses with (no build script).

use std::path::PathBuf;
use std::process::ExitCode;

#[derive(Debug, clap::Args)]
#[command(after_help = "Install: docs/cli.md \"Shell completions and the man page\".")]
pub(crate) struct CompletionsArgs {
    /// The shell whose completion script to print.
    #[arg(value_enum)]
    shell: clap_complete::Shell,
}

#[derive(Debug, clap::Args)]
pub(crate) struct ManArgs {
    /// Write tribunal.1 and a page per subcommand (tribunal-run.1, …) into
    /// this folder instead of printing tribunal.1.
    #[arg(long, value_name = "DIR")]
    out: Option<PathBuf>,
}

pub(crate) fn completions(args: CompletionsArgs) -> anyhow::Result<ExitCode> {
    let mut cmd = super::shape::documented_command();
    clap_complete::generate(args.shell, &mut cmd, "tribunal", &mut std::io::stdout());
    Ok(ExitCode::SUCCESS)
}

pub(crate) fn man(args: ManArgs) -> anyhow::Result<ExitCode> {
    let cmd = super::shape::documented_command();
    match &args.out {
        None => {
            let mut page = Vec::new();
            clap_mangen::Man::new(cmd).render(&mut page)?;
            std::io::Write::write_all(&mut std::io::stdout(), &page)?;
        }
        Some(dir) => {
            std::fs::create_dir_all(dir)?;
            clap_mangen::generate_to(cmd, dir)?;
            eprintln!("man pages: {}", dir.display());
        }
    }
    Ok(ExitCode::SUCCESS)
}
