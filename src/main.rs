//! The `tribunal` command-line program. Thin: parse arguments, call the
//! library, map the result to an exit code (0 success, 1 a failing result,
//! 2 usage, configuration or input error).

mod cli;

use std::process::ExitCode;

#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() -> ExitCode {
    cli::closed_pipe::install();
    let args = match cli::parse(std::env::args_os()) {
        Ok(args) => args,
        Err(code) => return code,
    };
    cli::init_tracing(args.verbose, args.color);
    match cli::dispatch(args.command) {
        Ok(code) => code,
        Err(e) => {
            if let Some(code) = cli::closed_pipe::exit_of(&e) {
                return code;
            }
            eprintln!("tribunal: {}", error_text(&e));
            ExitCode::from(2)
        }
    }
}

/// `e` and its causes, `: `-separated, leaving out a cause whose text the
/// message before it already holds (a library error that names its source
/// in its own message), so no reason is printed twice.
fn error_text(e: &anyhow::Error) -> String {
    let mut text = e.to_string();
    for cause in e.chain().skip(1) {
        let cause = cause.to_string();
        if !text.contains(&cause) {
            text.push_str(": ");
            text.push_str(&cause);
        }
    }
    text
}
