//! The `command_passes` check, run: each such check of an item runs its
//! command in the sandbox on the run's final working copy, after the
//! agent finished and before the copy is removed, and its result replaces
//! the "not run" one the mechanical scoring gave it. The detail is the
//! exit code, the limit that cut the command (if one did) and the end of
//! its output, as the row and every report show it.

use crate::score::Scored;
use crate::score::checks::{Check, CheckResult, ItemCheck};
use std::path::Path;
use std::time::Duration;
use tribunal_runtime::internal::text::join_lines;
use tribunal_tools::SandboxError;
use tribunal_tools::shell::{CommandResult, CommandSandbox, SandboxLimits};

/// Characters of a command's output a check's detail keeps: its end,
/// where a test runner writes its summary.
const DETAIL_OUTPUT_CHARS: usize = 600;

/// Where a run's commands run: the sandbox, the run's copy, the variables
/// declared and the arena's limits.
pub(crate) struct CommandWorld<'a> {
    pub(crate) sandbox: &'a CommandSandbox,
    pub(crate) dir: &'a Path,
    pub(crate) env: &'a [(String, String)],
    pub(crate) limits: SandboxLimits,
}

/// Runs every `command_passes` check of `item_checks` on `world`, writing
/// each result into `scored`'s (an ERROR run's checks are skipped, so
/// nothing runs). `Err` when the sandbox itself failed: no check result
/// can be trusted then, and the caller makes the row ERROR.
pub(crate) async fn run_commands(
    world: CommandWorld<'_>,
    item_checks: &[ItemCheck],
    scored: &mut Scored,
) -> Result<(), SandboxError> {
    let Scored::Answered { checks, .. } = scored else {
        return Ok(());
    };
    for (check, result) in item_checks.iter().zip(checks.iter_mut()) {
        let Check::CommandPasses {
            command,
            timeout_secs,
            ..
        } = &check.check
        else {
            continue;
        };
        let mut limits = world.limits;
        if let Some(secs) = timeout_secs {
            limits.wall_time = Duration::from_secs(*secs);
        }
        let ran = world
            .sandbox
            .run(world.dir, command, world.env, &limits)
            .await?;
        *result = CheckResult {
            kind: check.check.kind(),
            ok: ran.exit_code == Some(0) && ran.limit.is_none(),
            detail: detail(&ran),
            spec: check.spec.clone(),
        };
    }
    Ok(())
}

/// `exit 1; output: …` or `cut at the wall_time limit; output: …`, the
/// output the last [`DETAIL_OUTPUT_CHARS`] of stdout then stderr, on one
/// line.
pub(crate) fn detail(ran: &CommandResult) -> String {
    let how = match (ran.limit, ran.exit_code) {
        (Some(limit), _) => format!("cut at the {limit} limit"),
        (None, Some(code)) => format!("exit {code}"),
        (None, None) => "no exit code".to_string(),
    };
    let mut output = String::from_utf8_lossy(&ran.stdout).into_owned();
    output.push('\n');
    output.push_str(&String::from_utf8_lossy(&ran.stderr));
    let output = join_lines(&output);
    let count = output.chars().count();
    if count == 0 {
        return format!("{how}; no output");
    }
    let tail: String = output
        .chars()
        .skip(count.saturating_sub(DETAIL_OUTPUT_CHARS))
        .collect();
    let clipped = if count > DETAIL_OUTPUT_CHARS {
        "…"
    } else {
        ""
    };
    format!("{how}; output: {clipped}{tail}")
}

#[cfg(test)]
mod tests {
    use super::*;
    use tribunal_tools::shell::LimitHit;

    fn ran(exit_code: Option<i32>, limit: Option<LimitHit>, out: &str, err: &str) -> CommandResult {
        CommandResult {
            exit_code,
            limit,
            stdout: out.as_bytes().to_vec(),
            stderr: err.as_bytes().to_vec(),
        }
    }

    #[test]
    fn the_detail_says_how_the_command_ended_and_the_end_of_its_output() {
        assert_eq!(
            detail(&ran(Some(1), None, "", "F\nFAILED (failures=1)\n")),
            "exit 1; output: F FAILED (failures=1)"
        );
        assert_eq!(
            detail(&ran(None, Some(LimitHit::WallTime), "", "")),
            "cut at the wall_time limit; no output"
        );
        let long = "x".repeat(2000) + "\nOK";
        let d = detail(&ran(Some(0), None, &long, ""));
        assert!(
            d.starts_with("exit 0; output: …x") && d.ends_with("x OK"),
            "{d}"
        );
        assert_eq!(d.chars().count(), "exit 0; output: …".chars().count() + 600);
    }
}
