//! `tribunal report` (not built yet: the issue that owns it replaces this file).

use std::process::ExitCode;

#[derive(Debug, clap::Args)]
pub(crate) struct ReportArgs {}

pub(crate) fn run(_args: ReportArgs) -> anyhow::Result<ExitCode> {
    anyhow::bail!("`tribunal report` is not available yet")
}
