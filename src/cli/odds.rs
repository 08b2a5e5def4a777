//! `spotter odds <ruleset> <action>`: exact odds for players, computed by
//! enumerating every face of the dice. Each rule set is a subcommand, so
//! further rule sets add their own actions beside Stand To!'s.

use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::Context;
use serde::Serialize;

use crate::geometry::{Band, Measured, band_of};
use crate::rules::stand_to::action::{AimUse, FireMode};
use crate::rules::stand_to::engine::{BAND_NAMES, StandToRules};
use crate::rules::stand_to::{FireSituation, MeleeSide, StandTo, fire_odds, melee_odds};

/// Schema name of the JSON output.
pub const ODDS_SCHEMA: &str = "spotter.odds/1";

#[derive(Debug, clap::Args)]
pub struct Args {
    #[command(subcommand)]
    pub rule_set: RuleSetOdds,
}

/// One subcommand per rule set.
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
    match args.rule_set {
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
