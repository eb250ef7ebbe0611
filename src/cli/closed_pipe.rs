//! A closed pipe ends the program quietly: `tribunal … | head -1` stops
//! reading, the next write to stdout fails with `BrokenPipe`, and every
//! command then exits with 141 (128 + SIGPIPE, the status a shell shows
//! for `cat` ended the same way) and prints nothing — neither the panic of
//! `println!` nor an error line.

use std::process::ExitCode;

/// The exit status of a program whose output pipe was closed.
pub(crate) const CLOSED_PIPE_EXIT: u8 = 141;

/// Installs a panic hook that turns a panic about a broken pipe (what
/// `println!` and `clap_complete` do when stdout is closed) into a quiet
/// exit; every other panic goes to the hook installed before.
pub(crate) fn install() {
    let previous = std::panic::take_hook();
    std::panic::set_hook(Box::new(move |info| {
        let payload = info
            .payload()
            .downcast_ref::<String>()
            .map(String::as_str)
            .or_else(|| info.payload().downcast_ref::<&str>().copied())
            .unwrap_or("");
        if says_broken_pipe(payload) {
            std::process::exit(i32::from(CLOSED_PIPE_EXIT));
        }
        previous(info);
    }));
}

/// Whether a panic message is about a write to a closed pipe.
fn says_broken_pipe(message: &str) -> bool {
    message.contains("Broken pipe") || message.contains("BrokenPipe")
}

/// The quiet exit, when `error` (or one of its causes) is a write to a
/// closed pipe.
pub(crate) fn exit_of(error: &anyhow::Error) -> Option<ExitCode> {
    error
        .chain()
        .filter_map(|e| e.downcast_ref::<std::io::Error>())
        .any(|e| e.kind() == std::io::ErrorKind::BrokenPipe)
        .then(|| ExitCode::from(CLOSED_PIPE_EXIT))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_messages_of_println_and_clap_complete_are_broken_pipes() {
        assert!(says_broken_pipe(
            "failed printing to stdout: Broken pipe (os error 32)"
        ));
        assert!(says_broken_pipe(
            "failed to write completion file: Os { code: 32, kind: BrokenPipe, message: \"Broken pipe\" }"
        ));
        assert!(!says_broken_pipe("index out of bounds"));
    }

    #[test]
    fn an_error_caused_by_a_broken_pipe_exits_quietly() {
        let e = anyhow::Error::from(std::io::Error::from(std::io::ErrorKind::BrokenPipe))
            .context("writing the report");
        assert!(exit_of(&e).is_some());
        assert!(exit_of(&anyhow::anyhow!("no such file")).is_none());
    }
}
