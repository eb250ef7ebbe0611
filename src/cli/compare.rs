//! `tribunal compare` (not built yet: the issue that owns it replaces this file).

use std::process::ExitCode;

#[derive(Debug, clap::Args)]
pub(crate) struct CompareArgs {}

pub(crate) fn run(_args: CompareArgs) -> anyhow::Result<ExitCode> {
    anyhow::bail!("`tribunal compare` is not available yet")
}
