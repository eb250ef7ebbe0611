//! `tribunal search` (not built yet: the issue that owns it replaces this file).

use std::process::ExitCode;

#[derive(Debug, clap::Args)]
pub(crate) struct SearchArgs {}

pub(crate) fn run(_args: SearchArgs) -> anyhow::Result<ExitCode> {
    anyhow::bail!("`tribunal search` is not available yet")
}
