//! `tribunal check` (not built yet: the issue that owns it replaces this file).

use std::process::ExitCode;

#[derive(Debug, clap::Args)]
pub(crate) struct CheckArgs {}

pub(crate) fn run(_args: CheckArgs) -> anyhow::Result<ExitCode> {
    anyhow::bail!("`tribunal check` is not available yet")
}
