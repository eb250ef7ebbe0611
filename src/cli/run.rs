//! `tribunal run` (not built yet: the issue that owns it replaces this file).

use std::process::ExitCode;

#[derive(Debug, clap::Args)]
pub(crate) struct RunArgs {}

pub(crate) fn run(_args: RunArgs) -> anyhow::Result<ExitCode> {
    anyhow::bail!("`tribunal run` is not available yet")
}
