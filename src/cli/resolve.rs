//! `spotter resolve`: run one action from a scenario and print the
//! measurements, the number needed, the exact odds and the result.
//!
//! With `--photo`, the figures' positions and facings come from a photo of
//! the table: the detector finds the figures and each is bound to the
//! scenario figure it must be (same base, same edge colour, nearest to where
//! the scenario puts it; see [`crate::game::photo`]).

use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::Arc;

use anyhow::{Context, bail};
use nalgebra::Point2;
use serde::Serialize;

use crate::game::photo::{self, BindHints, BindParams, PhotoBinding};
use crate::game::{Command, Event, FigureId, Game, GameState, Pace, Scenario};
use crate::rules::Registry;
use crate::rules::dice::{Dice, TypedDice, seeded};
use crate::rules::odds::NamedOdds;
use crate::rules::stand_to::action::{Action as St, AimUse, FireMode, OrderVia};
use crate::rules::stand_to::event::Event as StandToEvent;
use crate::rules::stand_to::{StandTo, StandToRules};

/// Schema name of the JSON output.
pub const RESOLVE_SCHEMA: &str = "spotter.resolve/1";

#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Action {
    /// Aimed shot at the target.
    Fire,
    /// Snapshot at the target.
    Snap,
    Aim,
    Load,
    /// Hand-to-hand: the actor against every --target.
    Melee,
    /// A gun fires its 15 degree cone.
    Gun,
    /// A scout observes the 3 in circle at --at.
    Spot,
    /// Move along the --to points.
    Move,
    /// Give --order to every --target.
    Order,
    /// A novice leader's first-attack reaction.
    FirstAttack,
    /// The rescue reaction for the wounded actor.
    Rescue,
    /// After the battle: roll to advance experience.
    Advance,
    /// Between battles: roll to recover from a wound.
    Recover,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum ViaArg {
    Shout,
    HandSignal,
    Musician,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum PaceArg {
    Crawl,
    Walk,
    Doubletime,
    Charge,
    Evade,
}

#[derive(Debug, clap::Args)]
pub struct Args {
    /// Scenario file (scenarios/*.toml).
    #[arg(long)]
    pub scenario: PathBuf,
    /// Name of the acting figure (its side takes the action's turn).
    #[arg(long, required_unless_present = "rule_action")]
    pub actor: Option<String>,
    /// A Stand To! action.
    #[arg(long, value_enum, required_unless_present = "rule_action")]
    pub action: Option<Action>,
    /// Instead of --action: an action of the scenario's rule set by name,
    /// for every rule set (Little Colonial Rules' `fire`, Soldiers in Time's
    /// `volley`, Volley Fire!'s `fire` ...), its parameters in
    /// --action-params.
    #[arg(long, conflicts_with = "action")]
    pub rule_action: Option<String>,
    /// The --rule-action's parameters, a JSON object, e.g.
    /// '{"firers": ["Pte Ames"], "target": "Zulu", "individual": true}'.
    #[arg(long, default_value = "{}")]
    pub action_params: String,
    /// With --rule-action: the phase (by name) to take it in; default: the
    /// scenario's.
    #[arg(long)]
    pub phase: Option<String>,
    /// Target figure (repeat for melee against several, or order recipients).
    #[arg(long)]
    pub target: Vec<String>,
    /// Point "x,y" in table inches (spot centre).
    #[arg(long)]
    pub at: Option<String>,
    /// Path points "x,y" for a move (repeat).
    #[arg(long)]
    pub to: Vec<String>,
    #[arg(long, value_enum, default_value = "doubletime")]
    pub pace: PaceArg,
    /// Facing after a move, degrees.
    #[arg(long)]
    pub facing_deg: Option<f64>,
    /// New mount speed (walk, trot, canter, gallop).
    #[arg(long)]
    pub mount_speed: Option<String>,
    /// Order text.
    #[arg(long)]
    pub order: Option<String>,
    #[arg(long, value_enum, default_value = "shout")]
    pub via: ViaArg,
    /// Musician for --via musician.
    #[arg(long)]
    pub musician: Option<String>,
    /// Where the aiming bonus goes (chosen after the roll).
    #[arg(long, default_value = "best")]
    pub aim_use: String,
    /// Bolt-action rapid fire from the magazine.
    #[arg(long)]
    pub rapid: bool,
    /// Aim at the mount rather than the rider.
    #[arg(long)]
    pub at_mount: bool,
    /// Recovering under a doctor's care.
    #[arg(long)]
    pub cared_for: bool,
    /// Seed for Spotter's dice (repeatable results).
    #[arg(long)]
    pub seed: Option<u64>,
    /// Real dice typed in, in the order used, e.g. 5,5,4 (two white, then coloured).
    #[arg(long, value_delimiter = ',')]
    pub dice: Vec<u32>,
    /// Edited Stand To! data file.
    #[arg(long)]
    pub rules: Option<PathBuf>,
    /// Game log: a new file starts a game of the scenario there; an existing
    /// log of the same scenario is resumed, the action is taken in that
    /// game's state (its turn, phase and positions, not the scenario's) and
    /// appended to it.
    #[arg(long)]
    pub log: Option<PathBuf>,
    /// Photo of the table: the figures' positions and facings come from it.
    #[arg(long)]
    pub photo: Option<PathBuf>,
    /// Camera file for --photo (from `spotter calibrate-lens`).
    #[arg(long)]
    pub camera: Option<PathBuf>,
    /// Table layout file for --photo (default calibration/table.toml).
    #[arg(long)]
    pub layout: Option<PathBuf>,
    /// Detector parameters for --photo (default: the built-in ones).
    #[arg(long)]
    pub params: Option<PathBuf>,
    /// With --photo: "NAME=x,y" binds the figure to the one on the photo at
    /// x,y table inches (when two look-alike figures could be either).
    #[arg(long)]
    pub bind: Vec<String>,
    /// With --photo: keep this figure where the scenario puts it (the camera
    /// cannot see it).
    #[arg(long)]
    pub keep: Vec<String>,
    #[arg(long)]
    pub json: bool,
}

/// Largest difference between the scenario's table and the photo's layout
/// that is still the same table, inches.
const TABLE_SIZE_TOLERANCE_IN: f64 = 0.5;

#[derive(Debug, Serialize)]
struct ResolveJson<'a> {
    schema: &'static str,
    scenario: &'a str,
    command: &'a Command,
    #[serde(skip_serializing_if = "Option::is_none")]
    photo: Option<&'a PhotoBinding>,
    odds: &'a [NamedOdds],
    events: &'a [Event],
}

fn point(s: &str) -> anyhow::Result<Point2<f64>> {
    let (x, y) = s
        .split_once(',')
        .with_context(|| format!("`{s}` is not a point x,y"))?;
    Ok(Point2::new(
        x.trim().parse().with_context(|| format!("x in `{s}`"))?,
        y.trim().parse().with_context(|| format!("y in `{s}`"))?,
    ))
}

/// A figure by scenario name; the error lists the names.
pub(super) fn find(state: &GameState, name: &str) -> anyhow::Result<FigureId> {
    state.figure_named(name).map(|f| f.id).with_context(|| {
        let names: Vec<&str> = state.figures.iter().map(|f| f.name.as_str()).collect();
        format!("no figure `{name}` (figures: {})", names.join(", "))
    })
}

pub fn run(args: Args) -> anyhow::Result<ExitCode> {
    let mut registry = Registry::builtin().context("the built-in rule sets")?;
    if let Some(p) = &args.rules {
        registry.add(Arc::new(StandToRules {
            data: StandTo::load(p)?,
        }));
    }
    let scenario = Scenario::load(&args.scenario, &registry)?;
    let resumed = match args.log.as_deref() {
        Some(log) if log.exists() => Some(resume(log, &registry, &scenario.state, &args)?),
        _ => None,
    };
    let mut state = resumed
        .as_ref()
        .map_or_else(|| scenario.state.clone(), |g| g.state().clone());
    let rules = registry
        .get(&state.rule_set)
        .with_context(|| format!("unknown rule set {}", state.rule_set))?;
    let binding = match &args.photo {
        Some(path) => Some(positions_from_photo(
            &args,
            path,
            &mut state,
            rules.as_ref(),
        )?),
        None => {
            if !args.bind.is_empty() || !args.keep.is_empty() {
                bail!("--bind and --keep go with --photo");
            }
            None
        }
    };
    let actor = args.actor.as_deref().map(|a| find(&state, a)).transpose()?;
    let (command, phase) = match (&args.rule_action, args.action, actor) {
        (Some(name), _, _) => {
            let params: serde_json::Value = serde_json::from_str(&args.action_params)
                .with_context(|| {
                    format!(
                        "--action-params `{}` is not a JSON object",
                        args.action_params
                    )
                })?;
            (rules.parse_action(name, &params)?, args.phase.clone())
        }
        (None, Some(action), Some(actor)) => {
            let (c, p) = stand_to_command(&args, action, &state, rules.as_ref(), actor)?;
            (c, Some(p.to_owned()))
        }
        _ => bail!("give --actor and --action, or --rule-action"),
    };
    // One action taken out of a game: put the actor's side in the phase the
    // action belongs to. A resumed game stays where its log left it.
    if let (Some(phase), None) = (&phase, &resumed) {
        match rules.phases().iter().position(|p| p == phase) {
            Some(i) => state.phase = i,
            None if args.rule_action.is_some() => bail!(
                "the rule set has no phase `{phase}` (phases: {})",
                rules.phases().join(", ")
            ),
            None => {}
        }
    }
    if let Some(f) = actor
        .and_then(|a| state.figure(a))
        .filter(|_| resumed.is_none())
    {
        state.active_side = f.side;
    }
    let odds = rules.odds(&state, &command)?;
    let mut game = match resumed {
        Some(game) => game,
        None => Game::new(state.clone(), Arc::clone(&rules), args.log.as_deref())?,
    };
    let mut typed;
    let mut rng;
    let dice: &mut dyn Dice = if args.dice.is_empty() {
        rng = seeded(args.seed.unwrap_or_else(rand::random));
        &mut rng
    } else {
        typed = TypedDice::new(args.dice.iter().copied());
        &mut typed
    };
    let events = game.execute(command.clone(), dice)?;
    if args.json {
        let out = ResolveJson {
            schema: RESOLVE_SCHEMA,
            scenario: &scenario.name,
            command: &command,
            photo: binding.as_ref(),
            odds: &odds,
            events: &events,
        };
        println!("{}", serde_json::to_string_pretty(&out)?);
    } else {
        if let Some(b) = &binding {
            print_binding(b);
        }
        print_text(&state, &events);
    }
    Ok(ExitCode::SUCCESS)
}

/// The game of an existing `--log`, resumed, when it is a game of
/// `scenario` (`--photo` would move its figures, so it is refused).
fn resume(
    log: &Path,
    registry: &Registry,
    scenario: &GameState,
    args: &Args,
) -> anyhow::Result<Game> {
    let shown = log.display();
    if args.photo.is_some() {
        bail!(
            "--photo places the scenario's figures, but --log {shown} is a game already under way (its positions are in the log): give a new --log file, or leave out --photo"
        );
    }
    let game = Game::resume(log, registry)
        .with_context(|| format!("resuming the game in --log {shown}"))?;
    let start = game.initial();
    if start.scenario != scenario.scenario || start.rule_set != scenario.rule_set {
        bail!(
            "--log {shown} is a game of `{}` ({}), not of `{}` ({}): give that game's scenario, or a new --log file",
            start.scenario,
            start.rule_set,
            scenario.scenario,
            scenario.rule_set
        );
    }
    Ok(game)
}

/// The Stand To! command of `--action` by `actor`, and the phase it
/// belongs to.
fn stand_to_command(
    args: &Args,
    action: Action,
    state: &GameState,
    rules: &dyn crate::rules::RuleSet,
    actor: FigureId,
) -> anyhow::Result<(Command, &'static str)> {
    let targets: Vec<FigureId> = args
        .target
        .iter()
        .map(|t| find(state, t))
        .collect::<anyhow::Result<_>>()?;
    let target = || {
        targets
            .first()
            .copied()
            .context("this action needs --target")
    };
    let aim_use = match args.aim_use.as_str() {
        "best" => AimUse::Best,
        "hit" => AimUse::Hit,
        "save" => AimUse::Save,
        other => bail!("--aim-use is best, hit or save, not {other}"),
    };
    Ok(match action {
        Action::Fire | Action::Snap => (
            Command::StandTo(St::Fire {
                shooter: actor,
                target: target()?,
                mode: if action == Action::Fire {
                    FireMode::Aimed
                } else {
                    FireMode::Snap
                },
                rapid: args.rapid,
                aim_use,
                at_mount: args.at_mount,
            }),
            "fire",
        ),
        Action::Aim => (
            Command::StandTo(St::Aim {
                figure: actor,
                target: target()?,
            }),
            "fire",
        ),
        Action::Load => (Command::StandTo(St::Load { figure: actor }), "fire"),
        Action::Melee => (
            Command::StandTo(St::Melee {
                attackers: vec![actor],
                defenders: targets.clone(),
            }),
            "melee",
        ),
        Action::Gun => (Command::StandTo(St::FireGun { gun: actor }), "fire"),
        Action::Spot => (
            Command::StandTo(St::Spot {
                scout: actor,
                center_in: point(args.at.as_deref().context("spot needs --at x,y")?)?,
            }),
            "observe",
        ),
        Action::Move => {
            let path_in: Vec<Point2<f64>> = args
                .to
                .iter()
                .map(|p| point(p))
                .collect::<anyhow::Result<_>>()?;
            let f = state.figure(actor).context("actor")?;
            let facing_deg = args.facing_deg.unwrap_or(f.placement.facing_deg);
            let mount_level = match &args.mount_speed {
                Some(s) => Some(
                    rules
                        .mount_level(s)
                        .with_context(|| format!("unknown mount speed {s}"))?,
                ),
                None => None,
            };
            let pace = match args.pace {
                PaceArg::Crawl => Pace::Crawl,
                PaceArg::Walk => Pace::Walk,
                PaceArg::Doubletime => Pace::Doubletime,
                PaceArg::Charge => Pace::Charge,
                PaceArg::Evade => Pace::Evade,
            };
            (
                Command::StandTo(St::Move {
                    figure: actor,
                    path_in,
                    facing_deg,
                    pace,
                    mount_level,
                }),
                "move",
            )
        }
        Action::Order => {
            let via = match args.via {
                ViaArg::Shout => OrderVia::Shout,
                ViaArg::HandSignal => OrderVia::HandSignal,
                ViaArg::Musician => OrderVia::Musician {
                    musician: find(
                        state,
                        args.musician
                            .as_deref()
                            .context("--via musician needs --musician")?,
                    )?,
                },
            };
            (
                Command::StandTo(St::Order {
                    giver: actor,
                    to: targets.clone(),
                    order: args.order.clone().context("order needs --order TEXT")?,
                    via,
                }),
                "non-combat",
            )
        }
        Action::FirstAttack => (
            Command::StandTo(St::FirstAttack { leader: actor }),
            "reactions",
        ),
        Action::Rescue => (Command::StandTo(St::Rescue { wounded: actor }), "reactions"),
        Action::Advance => (Command::StandTo(St::Advance { figure: actor }), "reactions"),
        Action::Recover => (
            Command::StandTo(St::Recover {
                figure: actor,
                cared_for: args.cared_for,
            }),
            "reactions",
        ),
    })
}

/// Finds the figures on the photo, binds them to the scenario's and moves
/// the scenario's figures to where the photo shows them.
fn positions_from_photo(
    args: &Args,
    path: &std::path::Path,
    state: &mut GameState,
    rules: &dyn crate::rules::RuleSet,
) -> anyhow::Result<PhotoBinding> {
    let layout = super::load_layout(args.layout.as_deref())?;
    if (layout.width_in - state.table.width_in).abs() > TABLE_SIZE_TOLERANCE_IN
        || (layout.depth_in - state.table.depth_in).abs() > TABLE_SIZE_TOLERANCE_IN
    {
        bail!(
            "the scenario's table is {} x {} in but the layout is for a {} x {} in table: give the layout of the table in the photo with --layout",
            state.table.width_in,
            state.table.depth_in,
            layout.width_in,
            layout.depth_in
        );
    }
    let lens = super::load_camera(args.camera.as_deref())?;
    let params = super::detect::load_params(args.params.as_deref())?;
    let detector = crate::vision::detect::Detector::new(params, layout);
    let frame = super::images::open_rgb(path)?;
    let found = super::detect::detect_photo(&detector, &frame, lens.as_ref())?;
    if let Err(err) = &found.mapping {
        bail!("the table cannot be mapped on {}: {err}", path.display());
    }
    let detections = found.frame.map(|f| f.detections).unwrap_or_default();
    let mut hints = BindHints::default();
    for b in &args.bind {
        let (name, at) = b
            .split_once('=')
            .with_context(|| format!("--bind `{b}` is not NAME=x,y"))?;
        hints.pins.push((find(state, name.trim())?, point(at)?));
    }
    for k in &args.keep {
        hints.keep.push(find(state, k)?);
    }
    let edge_of = |f: &crate::game::Figure| rules.base_edge(state, f);
    let binding =
        photo::bind_detections(state, &detections, &edge_of, &hints, &BindParams::default())
            .with_context(|| format!("binding the figures on {}", path.display()))?;
    photo::apply_binding(state, &detections, &binding);
    Ok(binding)
}

fn print_binding(b: &PhotoBinding) {
    println!("from the photo:");
    for f in &b.bound {
        println!(
            "  {:<24} {:6.2},{:6.2}  facing {:5.1}{}  (moved {:.2} in)",
            f.name,
            f.x_in,
            f.y_in,
            f.facing_deg,
            if f.facing_seen {
                ""
            } else {
                " (not seen: the scenario's)"
            },
            f.moved_in
        );
    }
    for k in &b.kept {
        println!("  {k:<24} kept where the scenario puts him");
    }
    for u in &b.unexplained {
        println!(
            "  a {} {} figure at {:.2},{:.2} is not in the scenario: ignored",
            u.edge.name(),
            u.base.name(),
            u.x_in,
            u.y_in
        );
    }
}

fn name(state: &GameState, id: FigureId) -> String {
    state
        .figure(id)
        .map_or_else(|| format!("#{}", id.0), |f| f.name.clone())
}

fn print_text(state: &GameState, events: &[Event]) {
    for e in events {
        match e {
            Event::Measured(reading) => println!(
                "measured {}: {}{}",
                reading.what,
                reading.length_text(),
                if reading.too_close_to_call {
                    "  TOO CLOSE TO CALL"
                } else {
                    ""
                }
            ),
            Event::Odds { purpose, odds } => {
                println!("odds ({purpose}):");
                for o in odds {
                    println!("  {:<24} {:6.2}%", o.name, 100.0 * o.p);
                }
            }
            Event::Rolled {
                purpose,
                figure,
                dice,
            } => {
                let faces: Vec<String> = dice.iter().map(|d| d.face.to_string()).collect();
                let who = figure
                    .map(|f| format!(" ({})", name(state, f)))
                    .unwrap_or_default();
                println!("rolled {purpose}{who}: {}", faces.join(" "));
            }
            Event::StandTo(StandToEvent::FireResolved {
                band,
                needed,
                save,
                on_target,
                saved,
                aim_bonus,
                ..
            }) => println!(
                "{band} range, {needed}+ needed, save {save}: {}{}",
                match (on_target, saved) {
                    (false, _) => "off target",
                    (true, true) => "on target, saved",
                    (true, false) => "HIT",
                },
                aim_bonus
                    .map(|a| format!(" (aiming bonus on {a:?})"))
                    .unwrap_or_default()
            ),
            Event::StandTo(StandToEvent::MeleeResolved {
                attacker_totals,
                defender_totals,
                ..
            }) => {
                println!(
                    "melee totals: attacker {attacker_totals:?} against defender {defender_totals:?}"
                );
            }
            Event::Wounded {
                figure,
                wound,
                mount,
            } => println!(
                "{}{}: {wound:?}",
                name(state, *figure),
                if *mount { "'s mount" } else { "" }
            ),
            Event::Note { text } => println!("note: {text}"),
            other => println!("{}", serde_json::to_string(other).unwrap_or_default()),
        }
    }
}
