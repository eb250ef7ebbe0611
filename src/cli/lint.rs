//! `tribunal lint` (not built yet: the issue that owns it replaces this file).

use std::process::ExitCode;

#[derive(Debug, clap::Args)]
pub(crate) struct LintArgs {}

pub(crate) fn run(_args: LintArgs) -> anyhow::Result<ExitCode> {
    anyhow::bail!("`tribunal lint` is not available yet")
}
