//! The subcommands of `spotter`. Each lives in its own file with its
//! arguments and its `run`; this file only dispatches. Errors are shown once,
//! here, with what to do about them.

use std::path::Path;
use std::process::ExitCode;

use anyhow::Context;
use clap::{Parser, Subcommand};

use crate::calibration::{Lens, TableLayout};

mod actions;
pub mod app;
mod bench;
mod bench_script;
mod calibrate_lens;
pub mod detect;
pub mod images;
mod markers;
mod odds;
mod odds_more;
mod play;
mod resolve;
mod table;
mod track;

/// The layout file used when none is given.
pub const DEFAULT_LAYOUT_PATH: &str = "calibration/table.toml";

#[derive(Debug, Parser)]
#[command(
    name = "spotter",
    version,
    about = "Tabletop companion for miniatures wargames: camera to table inches, figures, rules and odds"
)]
pub struct Cli {
    /// Without a subcommand, `spotter` opens the app (as `spotter app`).
    #[command(subcommand)]
    pub command: Option<Command>,
}

/// `spotter app`'s arguments, for the bare `spotter`.
#[derive(Debug, Parser)]
struct AppDefaults {
    #[command(flatten)]
    args: app::Args,
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// Write the printable kit: table markers and ChArUco board (PNG and true-size PDF).
    Markers(markers::Args),
    /// Calibrate the lens from photos of the ChArUco board.
    CalibrateLens(calibrate_lens::Args),
    /// Map photos to table inches from the corner markers, and check the mapping.
    Table(table::Args),
    /// The companion app: live table, overlay, roster and actions.
    App(app::Args),
    /// Exact odds of an action: `spotter odds --scenario FILE --action NAME ...`
    /// (any rule set), or a calculator: `spotter odds stand-to fire ...`.
    Odds(odds::Args),
    /// Run one action from a scenario: measurements, number needed, odds, result.
    Resolve(Box<resolve::Args>),
    /// Follow every figure through photos in order: moves, lifts, removals.
    Track(track::Args),
    /// Find the figures on photos of the table (spotter.detections/1).
    Detect(detect::Args),
    /// Time the figure detector per stage, on one thread and on all cores.
    Bench(bench::Args),
    /// Play a scripted game (scenario, seed, commands) and check its log replays.
    Play(play::Args),
    /// List a rule set's actions: what each takes and in which phase.
    Actions(actions::Args),
}

/// Runs the command line; the binary's `main`.
pub fn main() -> ExitCode {
    let cli = Cli::parse();
    let command = cli
        .command
        .unwrap_or_else(|| Command::App(AppDefaults::parse_from(["spotter"]).args));
    match run(command) {
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
        Command::Odds(args) => odds::run(args),
        Command::Resolve(args) => resolve::run(*args),
        Command::Markers(args) => markers::run(args),
        Command::CalibrateLens(args) => calibrate_lens::run(args),
        Command::Table(args) => table::run(args),
        Command::Track(args) => track::run(args),
        Command::Detect(args) => detect::run(args),
        Command::Bench(args) => bench::run(args),
        Command::Play(args) => play::run(args),
        Command::Actions(args) => actions::run(args),
    }
}

/// The default layout: `calibration/table.toml` when it exists here, else
/// the kit's standard 48 x 48 in table.
pub fn default_layout() -> anyhow::Result<TableLayout> {
    let path = Path::new(DEFAULT_LAYOUT_PATH);
    if path.exists() {
        Ok(TableLayout::load(path)?)
    } else {
        Ok(TableLayout::standard(48.0, 48.0))
    }
}

/// The layout given with `--layout`, or the default one.
pub fn load_layout(path: Option<&Path>) -> anyhow::Result<TableLayout> {
    match path {
        Some(p) => {
            TableLayout::load(p).with_context(|| "loading the table layout (--layout)".to_owned())
        }
        None => default_layout(),
    }
}

/// The camera file given with `--camera`, if any.
pub fn load_camera(path: Option<&Path>) -> anyhow::Result<Option<Lens>> {
    path.map(|p| Lens::load(p).with_context(|| "loading the camera file (--camera)".to_owned()))
        .transpose()
}
