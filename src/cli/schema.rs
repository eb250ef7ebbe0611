//! `tribunal schema` (not built yet: the issue that owns it replaces this file).

use std::process::ExitCode;

#[derive(Debug, clap::Subcommand)]
pub(crate) enum SchemaCommand {}

pub(crate) fn run(command: SchemaCommand) -> anyhow::Result<ExitCode> {
    match command {}
}
