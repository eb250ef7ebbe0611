//! The `tribunal` command-line program. Thin: parse arguments, call the
//! library, map the result to an exit code (0 success, 1 a failing result,
//! 2 usage, configuration or input error).

mod cli;

use clap::Parser;
use std::process::ExitCode;

#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() -> ExitCode {
    let args = cli::Cli::parse();
    cli::init_tracing(args.verbose);
    match cli::dispatch(args.command) {
        Ok(code) => code,
        Err(e) => {
            eprintln!("tribunal: {e:#}");
            ExitCode::from(2)
        }
    }
}
