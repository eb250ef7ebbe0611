//! `tribunal run --approve ask`: a person at the terminal decides each tool
//! call before it runs — the call and its arguments, pretty-printed, then
//! `y` (run it), `n` (refuse; an optional reason the model reads), `e`
//! (run it with other arguments, typed as one line of JSON) or `q` (end the
//! run). Only on a terminal: without one nobody could answer.

use std::future::Future;
use std::io::{BufRead, IsTerminal, Write};
use std::pin::Pin;
use std::sync::Arc;
use tribunal::judge::RunOptions;
use tribunal::runtime::Approver;
use tribunal::runtime::{ApprovalPolicy, Decision, PendingCall, ToolPolicy};

/// `options` with every tool call put to a person at this terminal, one
/// run at a time ([`require_terminal`] first).
pub(crate) fn person_decides(options: RunOptions) -> RunOptions {
    let policy = ApprovalPolicy::new(ToolPolicy::Ask);
    options
        .with_concurrency(1)
        .with_approval(policy, Arc::new(TerminalApprover::default()))
}

/// Refuses `--approve ask` without a terminal to ask on: checked before
/// any backend is connected or folder written.
pub(crate) fn require_terminal() -> anyhow::Result<()> {
    if std::io::stdin().is_terminal() && std::io::stderr().is_terminal() {
        Ok(())
    } else {
        anyhow::bail!(
            "--approve ask needs a terminal (stdin and stderr) to ask on; in a script, put the decisions in [approval] of arena.toml"
        )
    }
}

/// Asks on stderr, reads answers from stdin, one call at a time.
#[derive(Debug, Default)]
pub(crate) struct TerminalApprover {
    /// One question on the terminal at a time.
    asking: tokio::sync::Mutex<()>,
}

impl Approver for TerminalApprover {
    fn decide<'a>(
        &'a self,
        pending: &'a PendingCall,
    ) -> Pin<Box<dyn Future<Output = Decision> + Send + 'a>> {
        Box::pin(async move {
            let _turn = self.asking.lock().await;
            let call = pending.call.clone();
            let turn = pending.turn;
            tokio::task::spawn_blocking(move || {
                let stdin = std::io::stdin();
                let mut lines = stdin.lock().lines().map_while(Result::ok);
                ask(
                    &call.name,
                    &call.arguments,
                    turn,
                    &mut lines,
                    &mut std::io::stderr(),
                )
            })
            .await
            // A prompt that cannot run (its thread panicked) refuses.
            .unwrap_or_else(|_| Decision::reject("the approval prompt failed"))
        })
    }
}

/// One question: shows the call on `out`, reads the answer from `lines`
/// until it is one of y / n / e / q (end of input ends the run).
pub(crate) fn ask(
    tool: &str,
    arguments: &str,
    turn: u32,
    lines: &mut impl Iterator<Item = String>,
    out: &mut impl Write,
) -> Decision {
    let pretty = serde_json::from_str::<serde_json::Value>(arguments)
        .ok()
        .and_then(|v| serde_json::to_string_pretty(&v).ok())
        .unwrap_or_else(|| arguments.to_string());
    let _ = writeln!(out, "\ntool call (turn {turn}): {tool}\n{pretty}");
    loop {
        let _ = write!(
            out,
            "run it? [y]es / [n]o / [e]dit arguments / [q]uit the run: "
        );
        let _ = out.flush();
        let Some(answer) = lines.next() else {
            return Decision::terminate();
        };
        match answer.trim() {
            "y" | "yes" => return Decision::approve(),
            "n" | "no" => {
                let _ = write!(out, "reason for the model (empty: none): ");
                let _ = out.flush();
                let reason = lines.next().unwrap_or_default();
                let reason = match reason.trim() {
                    "" => "A person refused this call.".to_string(),
                    text => text.to_string(),
                };
                return Decision::reject(reason);
            }
            "e" | "edit" => {
                let _ = write!(out, "arguments as one line of JSON: ");
                let _ = out.flush();
                match lines.next().map(|l| serde_json::from_str(l.trim())) {
                    Some(Ok(value)) => return Decision::modify(value),
                    Some(Err(e)) => {
                        let _ = writeln!(out, "not JSON ({e}); asked again");
                    }
                    None => return Decision::terminate(),
                }
            }
            "q" | "quit" => return Decision::terminate(),
            _ => {
                let _ = writeln!(out, "answer y, n, e or q");
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn decide(answers: &[&str]) -> (Decision, String) {
        let mut lines = answers.iter().map(|s| s.to_string());
        let mut out = Vec::new();
        let decision = ask("write_file", r#"{"path":"a.txt"}"#, 2, &mut lines, &mut out);
        (decision, String::from_utf8(out).unwrap())
    }

    #[test]
    fn each_answer_is_its_decision() {
        let (d, shown) = decide(&["y"]);
        assert_eq!(d, Decision::approve());
        assert!(shown.contains("tool call (turn 2): write_file\n{\n  \"path\": \"a.txt\"\n}"));
        assert_eq!(decide(&["n", "not there"]).0, Decision::reject("not there"));
        assert_eq!(
            decide(&["no", ""]).0,
            Decision::reject("A person refused this call.")
        );
        let edited = decide(&["e", r#"{"path": "b.txt"}"#]).0;
        assert_eq!(
            edited,
            Decision::modify(serde_json::json!({"path": "b.txt"}))
        );
        assert_eq!(decide(&["q"]).0, Decision::terminate());
    }

    #[test]
    fn a_wrong_answer_asks_again_and_no_answer_ends_the_run() {
        let (d, shown) = decide(&["maybe", "e", "{not json", "y"]);
        assert_eq!(d, Decision::approve());
        assert!(shown.contains("answer y, n, e or q"));
        assert!(shown.contains("not JSON"));
        assert_eq!(decide(&[]).0, Decision::terminate());
    }
}
