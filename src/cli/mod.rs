//! The subcommands of `spotter`. Each lives in its own file with its
//! arguments and its `run`; this file only dispatches. Errors are shown once,
//! here, with what to do about them.

use std::process::ExitCode;

use clap::{Parser, Subcommand};

#[derive(Debug, Parser)]
#[command(
    name = "spotter",
    version,
    about = "Tabletop companion for miniatures wargames: camera to table inches, figures, rules and odds"
)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Command,
}

pub mod app;

#[derive(Debug, Subcommand)]
pub enum Command {
    /// The companion app: live table, overlay, roster and actions.
    App(app::Args),
}

/// Runs the command line; the binary's `main`.
pub fn main() -> ExitCode {
    let cli = Cli::parse();
    match run(cli.command) {
        Ok(code) => code,
        Err(err) => {
            eprintln!("error: {err:#}");
            ExitCode::FAILURE
        }
    }
}

fn run(command: Command) -> anyhow::Result<ExitCode> {
    match command {
        Command::App(args) => app::run(args),
    }
}
