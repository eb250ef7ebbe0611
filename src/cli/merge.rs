//! `tribunal merge` (not built yet: the issue that owns it replaces this file).

use std::process::ExitCode;

#[derive(Debug, clap::Args)]
pub(crate) struct MergeArgs {}

pub(crate) fn run(_args: MergeArgs) -> anyhow::Result<ExitCode> {
    anyhow::bail!("`tribunal merge` is not available yet")
}
