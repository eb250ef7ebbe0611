//! `tribunal judge` (not built yet: the issue that owns it replaces this file).

use std::process::ExitCode;

#[derive(Debug, clap::Subcommand)]
pub(crate) enum JudgeCommand {}

pub(crate) fn run(command: JudgeCommand) -> anyhow::Result<ExitCode> {
    match command {}
}
