//! The check before the first item, as `run` and `judge run` say it: the
//! backends are asked `GET /models` (no tokens), so that a wrong base URL,
//! a server that is not running or never answers, something that is no API
//! at all, or a refused key is one line and exit 2 before anything is
//! written — not one error per item. Ctrl-C while it waits says so and
//! exits 130.

use std::process::ExitCode;
use tribunal::runtime::{BackendError, BackendErrorKind};

/// What the check decided.
pub(crate) enum Checked {
    /// The server answered like an API: go on.
    Passed,
    /// Ctrl-C while it waited (said on stderr): exit with this code.
    Interrupted(ExitCode),
}

/// Runs `check` on `runtime`, racing Ctrl-C; `what` names what did not
/// run when it fails (`no item`, `no review`). Errors: the check failed — the
/// text says what was wrong, which setting bounds a wait that ran out, and
/// that no item ran.
pub(crate) fn before_first_item(
    runtime: &tokio::runtime::Runtime,
    check: impl Future<Output = Result<(), BackendError>>,
    what: &str,
) -> anyhow::Result<Checked> {
    match super::unless_interrupted(runtime, check) {
        Some(Ok(())) => Ok(Checked::Passed),
        Some(Err(e)) => Err(anyhow::anyhow!("{}", failed_text(&e, what))),
        None => {
            eprintln!(
                "\ntribunal: interrupted while checking the model's server before the first item: {what} ran, nothing was written"
            );
            Ok(Checked::Interrupted(ExitCode::from(130)))
        }
    }
}

/// The one line a failed check prints: tribunal's own detail where it has
/// one (what answered, or which wait ran out and its setting), the
/// provider's error for a refused key, and that nothing ran.
pub(crate) fn failed_text(e: &BackendError, what_ran: &str) -> String {
    let what = match (&e.detail, e.kind) {
        // A refused key: the provider's own words say which key and why.
        (_, BackendErrorKind::Http) | (None, _) => e.to_string(),
        (Some(detail), _) => detail.clone(),
    };
    // A wait that ran out names its setting in the detail: say the flag too.
    let wait = e
        .stage
        .and_then(|s| s.setting())
        .filter(|setting| what.contains(&format!("the {setting} setting")))
        .map(|setting| {
            format!(
                "; to wait longer, set `{setting}` in [backend] or --{}",
                setting.replace('_', "-")
            )
        })
        .unwrap_or_default();
    format!(
        "{what}{wait}; {what_ran} ran (checked before the run: a server that is not running, a wrong --base-url, or a key the server refuses)"
    )
}
