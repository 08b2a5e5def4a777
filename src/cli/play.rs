//! `spotter play --script FILE`: plays a scripted game (scenario, seed,
//! commands) through the engine, prints what happened and writes the game
//! log, which `Game::resume` replays to the same state.

use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::Context;

use crate::game::script::Script;
use crate::game::{Event, Game};
use crate::rules::Registry;

#[derive(Debug, clap::Args)]
pub struct Args {
    /// The script: `scenario`, `seed` and `[[step]]` commands.
    #[arg(long)]
    pub script: PathBuf,
    /// Write the game log here (a new file); it is replayed afterwards to
    /// check that it gives the same state.
    #[arg(long)]
    pub log: Option<PathBuf>,
    /// Print only the summary.
    #[arg(long)]
    pub quiet: bool,
}

pub fn run(args: Args) -> anyhow::Result<ExitCode> {
    let registry = Registry::builtin().context("loading the built-in rule sets")?;
    let script = Script::load(&args.script, &registry)
        .with_context(|| format!("loading the script {}", args.script.display()))?;
    println!(
        "{} ({}), seed {}: {} steps",
        script.scenario.name,
        script.scenario.state.rule_set,
        script.seed,
        script.steps.len()
    );
    let quiet = args.quiet;
    let game = script
        .play(&registry, args.log.as_deref(), |n, command, events| {
            if quiet {
                return;
            }
            println!("{n:>3}. {}", crate::rules::action::action_name(command));
            for e in events {
                print_event(e);
            }
        })
        .context("playing the script")?;
    let s = game.state();
    println!("turn {} reached", s.turn);
    for (i, side) in s.sides.iter().enumerate() {
        let all = s.figures.iter().filter(|f| f.side == i).count();
        let up = s
            .figures
            .iter()
            .filter(|f| f.side == i && f.active())
            .count();
        println!("  {}: {up} of {all} figures in the fight", side.name);
    }
    if let Some(log) = args.log.as_deref() {
        let replayed = Game::resume(log, &registry).context("replaying the log")?;
        if replayed.state() == game.state() {
            println!("log {} replays to the same state", log.display());
        } else {
            eprintln!("log {} replays to a different state", log.display());
            return Ok(ExitCode::FAILURE);
        }
    }
    Ok(ExitCode::SUCCESS)
}

fn print_event(e: &Event) {
    match e {
        Event::Rolled { purpose, dice, .. } => {
            let faces: Vec<String> = dice.iter().map(|d| d.face.to_string()).collect();
            println!("     rolled {purpose}: {}", faces.join(" "));
        }
        Event::CardDrawn { deck, card } => println!("     drew {card} from {deck}"),
        Event::Note { text } => println!("     {text}"),
        Event::Odds { purpose, odds } => {
            let list: Vec<String> = odds
                .iter()
                .map(|o| format!("{} {:.1}%", o.name, o.p * 100.0))
                .collect();
            println!("     odds of {purpose}: {}", list.join(", "));
        }
        Event::PhaseChanged {
            turn,
            active_side,
            phase,
        } => println!("     now turn {turn}, side {active_side}, phase {phase}"),
        _ => {}
    }
}
