//! `spotter odds`: exact odds for players, computed by enumerating every
//! face of the dice.
//!
//! `spotter odds --scenario FILE --action NAME [--actor A] [--target B]`
//! gives the odds of any rule set's action in a scenario, built from the
//! rule set's own description of its actions ([`crate::rules::describe`])
//! and its [`crate::rules::RuleSet::odds`], the same path as the app's
//! action panel and `spotter resolve --rule-action`: a fifth rule set gets
//! it by describing its actions.
//!
//! `spotter odds <rule-set> <calculator> ...` (the older form) works on
//! bare numbers (a weapon, a range, modifiers) with no scenario; each rule
//! set has its own calculators.

use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::{Context, bail};
use serde::Serialize;

use crate::game::{Command, GameState, Scenario};
use crate::geometry::{Band, Measured, band_of};
use crate::rules::describe::{self, ActionSpec};
use crate::rules::odds::NamedOdds;
use crate::rules::stand_to::action::{AimUse, FireMode};
use crate::rules::stand_to::engine::{BAND_NAMES, StandToRules};
use crate::rules::stand_to::{FireSituation, MeleeSide, StandTo, fire_odds, melee_odds};
use crate::rules::{Registry, RuleSet};

/// Schema name of the JSON output.
pub const ODDS_SCHEMA: &str = "spotter.odds/1";

/// Schema name of the JSON output of an action's odds in a scenario.
pub const ACTION_ODDS_SCHEMA: &str = "spotter.action-odds/1";

#[derive(Debug, clap::Args)]
#[command(args_conflicts_with_subcommands = true)]
pub struct Args {
    #[command(flatten)]
    pub action: ActionArgs,
    /// The older form: a rule set's calculator on bare numbers.
    #[command(subcommand)]
    pub rule_set: Option<RuleSetOdds>,
}

/// The odds of an action of the scenario's rule set, as `spotter actions`
/// lists them.
#[derive(Debug, clap::Args)]
pub struct ActionArgs {
    /// Scenario file (scenarios/*.toml); its rule set gives the action.
    #[arg(long)]
    pub scenario: Option<PathBuf>,
    /// The action, by name or panel label (`spotter actions RULE-SET`
    /// lists them: `fire`, "Snap fire", `close-combat` ...).
    #[arg(long)]
    pub action: Option<String>,
    /// The figure who acts: fills the action's actor parameters (the
    /// figure, his unit or side, by the parameter) and puts his side on.
    #[arg(long)]
    pub actor: Option<String>,
    /// The figure acted on: fills the action's target parameters.
    #[arg(long)]
    pub target: Option<String>,
    /// The action's other parameters, a JSON object; they win over
    /// --actor, --target and the panel's presets, e.g. '{"snap": true}'.
    #[arg(long, default_value = "{}")]
    pub action_params: String,
    /// The phase (by name) to take it in; default: the scenario's when the
    /// action is allowed in it, else the first phase the action is allowed in.
    #[arg(long)]
    pub phase: Option<String>,
    #[arg(long)]
    pub json: bool,
}

/// One subcommand per rule set (the calculators on bare numbers).
#[derive(Debug, clap::Subcommand)]
pub enum RuleSetOdds {
    /// Stand To! (2 white d6 to hit, 1 coloured d6 to save; 2d6 against 2d6 in melee).
    #[command(name = "stand-to")]
    StandTo {
        /// Edited rule data (default: the built-in scenarios/rules/stand-to.toml).
        #[arg(long, global = true)]
        rules: Option<PathBuf>,
        #[command(subcommand)]
        action: StandToOdds,
    },
    /// Volley Fire! (d20 per firing group, d6 moves and melee, d10 morale).
    #[command(name = "volley-fire", subcommand)]
    VolleyFire(super::odds_more::VolleyFireOdds),
    /// Soldiers in Time (d10 and playing cards).
    #[command(name = "soldiers-in-time", subcommand)]
    SoldiersInTime(super::odds_more::SoldiersInTimeOdds),
    /// Little Colonial Rules (buckets of d6, order deck cards).
    #[command(name = "little-colonial", subcommand)]
    LittleColonial(super::odds_more::LittleColonialOdds),
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum ModeArg {
    Aimed,
    Snap,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum AimUseArg {
    Best,
    Hit,
    Save,
}

/// Stand To! actions.
#[derive(Debug, clap::Subcommand)]
pub enum StandToOdds {
    /// One shot: P(on target), P(saved), P(hit), P(light), P(serious), P(killed).
    Fire {
        /// Weapon name from the weapon table (e.g. breech-loading-carbine).
        #[arg(long)]
        weapon: String,
        /// Range in rule inches (25 mm figures).
        #[arg(long, value_parser = crate::spec::flag::length)]
        range_in: f64,
        /// Uncertainty of the range, inches: a range this close to a band
        /// edge is reported as too close to call.
        #[arg(long, default_value_t = 0.0, value_parser = crate::spec::flag::sigma_in)]
        sigma_in: f64,
        /// Firing ability (added to the white dice).
        #[arg(long, default_value_t = 0, allow_hyphen_values = true, value_parser = clap::value_parser!(i32).range(-crate::spec::flag::MAX_MODIFIER..=crate::spec::flag::MAX_MODIFIER))]
        ability: i32,
        /// Target's save number (coloured die at or under it saves).
        #[arg(long, default_value_t = 0)]
        save: u32,
        #[arg(long, value_enum, default_value = "aimed")]
        mode: ModeArg,
        /// The firer is mounted (mounted hit numbers).
        #[arg(long)]
        mounted_firer: bool,
        /// The firer aimed last turn: +1 placed after the roll.
        #[arg(long)]
        aim_bonus: bool,
        #[arg(long, value_enum, default_value = "best")]
        aim_use: AimUseArg,
        /// The target is a leader (always saves on 1).
        #[arg(long)]
        leader: bool,
        /// The target is mounted (a die picks rider or mount).
        #[arg(long)]
        target_mounted: bool,
        /// The mount is the intended target.
        #[arg(long)]
        at_mount: bool,
        #[arg(long)]
        json: bool,
    },
    /// One melee exchange: P(attacker wounded), P(defender wounded), P(no wound).
    Melee {
        /// Sum of the attacker's modifiers (ability, weapon, charging, shield...).
        #[arg(long, default_value_t = 0, allow_hyphen_values = true, value_parser = clap::value_parser!(i32).range(-crate::spec::flag::MAX_MODIFIER..=crate::spec::flag::MAX_MODIFIER))]
        attacker_mod: i32,
        #[arg(long, default_value_t = 0, allow_hyphen_values = true, value_parser = clap::value_parser!(i32).range(-crate::spec::flag::MAX_MODIFIER..=crate::spec::flag::MAX_MODIFIER))]
        defender_mod: i32,
        #[arg(long)]
        attacker_evading: bool,
        #[arg(long)]
        defender_evading: bool,
        #[arg(long)]
        json: bool,
    },
}

#[derive(Debug, Serialize)]
struct FireJson {
    schema: &'static str,
    band: String,
    needed: u32,
    p_on_target: f64,
    p_saved: f64,
    p_hit: f64,
    p_light: f64,
    p_serious: f64,
    p_killed: f64,
    #[serde(skip_serializing_if = "Option::is_none")]
    too_close_to_call: Option<bool>,
    #[serde(skip_serializing_if = "Option::is_none")]
    p_mount_light: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    p_mount_serious: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    p_mount_killed: Option<f64>,
}

#[derive(Debug, Serialize)]
struct MeleeJson {
    schema: &'static str,
    p_attacker_wounded: f64,
    p_defender_wounded: f64,
    p_no_wound: f64,
}

pub fn run(args: Args) -> anyhow::Result<ExitCode> {
    let Some(rule_set) = args.rule_set else {
        return action_odds(&args.action);
    };
    match rule_set {
        RuleSetOdds::StandTo { rules, action } => {
            let data = match rules {
                Some(p) => StandTo::load(&p)?,
                None => StandTo::builtin().context("the built-in Stand To! data")?,
            };
            stand_to(data, action)
        }
        RuleSetOdds::VolleyFire(action) => super::odds_more::volley_fire(action),
        RuleSetOdds::SoldiersInTime(action) => super::odds_more::soldiers_in_time(action),
        RuleSetOdds::LittleColonial(action) => super::odds_more::little_colonial(action),
    }
}

#[derive(Debug, Serialize)]
struct ActionOddsJson<'a> {
    schema: &'static str,
    scenario: &'a str,
    rule_set: &'a str,
    action: &'a str,
    label: &'a str,
    command: &'a Command,
    odds: &'a [NamedOdds],
}

/// The odds of `--action` in `--scenario`, for any rule set: the command
/// is built from the rule set's description of the action, checked (no
/// dice) and its odds enumerated.
fn action_odds(args: &ActionArgs) -> anyhow::Result<ExitCode> {
    let (Some(path), Some(action)) = (&args.scenario, &args.action) else {
        bail!(
            "give --scenario FILE --action NAME (any rule set; `spotter actions RULE-SET` lists the actions), \
             or a rule set's calculator: `spotter odds stand-to fire --weapon W --range-in R`"
        );
    };
    let registry = Registry::builtin().context("the built-in rule sets")?;
    let scenario = Scenario::load(path, &registry)?;
    let mut state = scenario.state.clone();
    let rules = registry
        .get(&state.rule_set)
        .with_context(|| format!("unknown rule set {}", state.rule_set))?;
    let actions = rules.actions();
    let spec = describe::find_action(&actions, action).with_context(|| {
        let mut names: Vec<&str> = actions.iter().map(|a| a.name).collect();
        names.dedup();
        format!(
            "{} has no action `{action}`: give one of {}",
            rules.name(),
            names.join(", ")
        )
    })?;
    let find = |name: &Option<String>| {
        name.as_deref()
            .map(|n| super::resolve::find(&state, n))
            .transpose()
    };
    let (actor, target) = (find(&args.actor)?, find(&args.target)?);
    let given: serde_json::Value = serde_json::from_str(&args.action_params)
        .ok()
        .filter(serde_json::Value::is_object)
        .with_context(|| {
            format!(
                "--action-params `{}` is not a JSON object: write e.g. '{{\"snap\": true}}'",
                args.action_params
            )
        })?;
    let params = spec
        .params_from(
            &state,
            actor,
            target,
            given.as_object().unwrap_or(&Default::default()),
        )
        .map_err(|e| anyhow::anyhow!("{e}: give --actor, --target or --action-params"))?;
    let command = rules.parse_action(spec.name, &params)?;
    state.phase = phase_for(&spec, args.phase.as_deref(), rules.as_ref(), &state)?;
    if let Some(f) = actor.and_then(|a| state.figure(a)) {
        state.active_side = f.side;
    }
    rules.check(&state, &command)?;
    let odds = rules.odds(&state, &command)?;
    if args.json {
        let out = ActionOddsJson {
            schema: ACTION_ODDS_SCHEMA,
            scenario: &scenario.name,
            rule_set: rules.name(),
            action: spec.name,
            label: spec.label,
            command: &command,
            odds: &odds,
        };
        println!("{}", serde_json::to_string(&out)?);
    } else {
        println!("{} ({}), {}:", spec.label, spec.name, scenario.name);
        if odds.is_empty() {
            println!("  no dice: nothing to give odds of");
        }
        for o in &odds {
            println!("  {:<28} {}", o.name, pct(o.p));
        }
    }
    Ok(ExitCode::SUCCESS)
}

/// The phase index to take `spec` in: `--phase` by name; else the state's
/// when the action is allowed in it; else the first phase it is allowed in.
fn phase_for(
    spec: &ActionSpec,
    phase: Option<&str>,
    rules: &dyn RuleSet,
    state: &GameState,
) -> anyhow::Result<usize> {
    let phases = rules.phases();
    let index = |name: &str| phases.iter().position(|p| p == name);
    if let Some(name) = phase {
        return index(name).with_context(|| {
            format!(
                "{} has no phase `{name}`: give one of {}",
                rules.name(),
                phases.join(", ")
            )
        });
    }
    let now = phases.get(state.phase).map(String::as_str);
    if spec.phases.is_empty() || now.is_some_and(|n| spec.phases.iter().any(|p| p == n)) {
        return Ok(state.phase);
    }
    Ok(spec
        .phases
        .iter()
        .find_map(|p| index(p))
        .unwrap_or(state.phase))
}

fn pct(p: f64) -> String {
    format!("{:5.1}%", 100.0 * p)
}

fn stand_to(data: StandTo, action: StandToOdds) -> anyhow::Result<ExitCode> {
    match action {
        StandToOdds::Fire {
            weapon,
            range_in,
            sigma_in,
            ability,
            save,
            mode,
            mounted_firer,
            aim_bonus,
            aim_use,
            leader,
            target_mounted,
            at_mount,
            json,
        } => {
            let engine = StandToRules { data };
            let w = engine.data.weapon(&weapon).with_context(|| {
                let names: Vec<&str> = engine
                    .data
                    .weapons
                    .iter()
                    .map(|w| w.name.as_str())
                    .collect();
                format!("no weapon `{weapon}` (known: {})", names.join(", "))
            })?;
            let mode = match mode {
                ModeArg::Aimed => FireMode::Aimed,
                ModeArg::Snap => FireMode::Snap,
            };
            let edges = engine.band_edges(w, mode)?;
            let call = band_of(Measured::new(range_in, sigma_in), &edges);
            let Band::Within(i) = call.value else {
                anyhow::bail!(
                    "{range_in} in is beyond the {} ({} range ends at {} in)",
                    w.name,
                    BAND_NAMES[2],
                    edges[2]
                );
            };
            let needed = if mounted_firer {
                w.hit_mounted[i]
            } else {
                w.hit_dismounted[i]
            };
            let situation = FireSituation {
                needed,
                ability,
                save,
                leader,
                aim_bonus,
                aim_use: match aim_use {
                    AimUseArg::Best => AimUse::Best,
                    AimUseArg::Hit => AimUse::Hit,
                    AimUseArg::Save => AimUse::Save,
                },
                note1: w.notes.contains(&1),
                mounted_target: target_mounted,
                at_mount,
            };
            let o = fire_odds(&engine.data, &situation);
            if json {
                let out = FireJson {
                    schema: ODDS_SCHEMA,
                    band: BAND_NAMES[i].to_owned(),
                    needed,
                    p_on_target: o.p_on_target,
                    p_saved: o.p_saved,
                    p_hit: o.p_hit,
                    p_light: o.p_light,
                    p_serious: o.p_serious,
                    p_killed: o.p_killed,
                    too_close_to_call: (sigma_in > 0.0).then_some(call.too_close_to_call),
                    p_mount_light: target_mounted.then_some(o.p_mount_light),
                    p_mount_serious: target_mounted.then_some(o.p_mount_serious),
                    p_mount_killed: target_mounted.then_some(o.p_mount_killed),
                };
                println!("{}", serde_json::to_string(&out)?);
            } else {
                println!(
                    "{} at {range_in} in: {} range{}, {needed}+ to hit (ability {ability:+}), save {save}",
                    w.name,
                    BAND_NAMES[i],
                    if call.too_close_to_call {
                        " (TOO CLOSE TO CALL: measure by hand)"
                    } else {
                        ""
                    }
                );
                println!("  on target  {}", pct(o.p_on_target));
                println!("  saved      {}", pct(o.p_saved));
                println!("  hit        {}", pct(o.p_hit));
                println!("  light      {}", pct(o.p_light));
                println!("  serious    {}", pct(o.p_serious));
                println!("  killed     {}", pct(o.p_killed));
                if target_mounted {
                    println!(
                        "  mount light {}  serious {}  killed {}",
                        pct(o.p_mount_light),
                        pct(o.p_mount_serious),
                        pct(o.p_mount_killed)
                    );
                }
            }
        }
        StandToOdds::Melee {
            attacker_mod,
            defender_mod,
            attacker_evading,
            defender_evading,
            json,
        } => {
            let o = melee_odds(
                &data,
                &MeleeSide {
                    modifier: attacker_mod,
                    evading: attacker_evading,
                },
                &MeleeSide {
                    modifier: defender_mod,
                    evading: defender_evading,
                },
            );
            if json {
                let out = MeleeJson {
                    schema: ODDS_SCHEMA,
                    p_attacker_wounded: o.p_attacker_wounded,
                    p_defender_wounded: o.p_defender_wounded,
                    p_no_wound: o.p_no_wound,
                };
                println!("{}", serde_json::to_string(&out)?);
            } else {
                println!("melee, attacker {attacker_mod:+} against defender {defender_mod:+}:");
                println!("  attacker wounded {}", pct(o.p_attacker_wounded));
                println!("  defender wounded {}", pct(o.p_defender_wounded));
                println!("  no wound         {}", pct(o.p_no_wound));
            }
        }
    }
    Ok(ExitCode::SUCCESS)
}
