//! `spotter odds volley-fire|soldiers-in-time|little-colonial ...`: exact
//! odds of the main actions of the unit and card rule sets (d20 fire
//! groups, d10 rolls, card draws, buckets of d6). Output is text, or one
//! JSON object with `--json`.
//!
//! Conventions: Volley Fire! ranges in table inches (12 per printed foot);
//! Little Colonial ranges in cm; Soldiers in Time in inches.

use std::process::ExitCode;

use anyhow::Context;
use serde_json::json;

use crate::rules::little_colonial::{
    LittleColonial, cavalry_volley_odds, close_combat_p, gun_hit_p, struck_killed_p, volley_odds,
};
use crate::rules::odds::{card_probability, sum_distribution};
use crate::rules::soldiers_in_time::{
    Card, Shot, SoldiersInTime, activation_odds, damage_distribution, damage_odds, full_deck,
    horse_impact_distribution, melee_odds, mine_p, morale_odds, shot_odds,
};
use crate::rules::volley_fire::{
    FireDie, MeleeFighter, VolleyFire, fire_odds, move_distribution, pair_odds,
};

/// Volley Fire! actions.
#[derive(Debug, clap::Subcommand)]
pub enum VolleyFireOdds {
    /// A unit's fire: hits distribution over its d20 groups.
    Fire {
        #[arg(long)]
        weapon: String,
        /// Range to the target, table inches.
        #[arg(long, value_parser = crate::spec::flag::length)]
        range_in: f64,
        /// Figures in range and in the 45 degree cone (gunners for a gun).
        #[arg(long, value_parser = clap::value_parser!(u32).range(0..=crate::spec::flag::MAX_FIGURES))]
        firers: u32,
        #[arg(long)]
        double_rank: bool,
        /// Target in cover (or firers shaken).
        #[arg(long)]
        cover: bool,
        /// The target is a mixed group with key figures.
        #[arg(long)]
        mixed_key: bool,
        #[arg(long)]
        json: bool,
    },
    /// A unit's move: distribution of inches.
    Move {
        #[arg(long)]
        troops: String,
        #[arg(long)]
        formation: String,
        #[arg(long)]
        rough: bool,
        #[arg(long)]
        no_leader: bool,
        #[arg(long)]
        json: bool,
    },
    /// One melee pairing: d6 + modifier each.
    Melee {
        #[arg(long, allow_hyphen_values = true, default_value_t = 0, value_parser = clap::value_parser!(i32).range(-crate::spec::flag::MAX_MODIFIER..=crate::spec::flag::MAX_MODIFIER))]
        attacker_add: i32,
        #[arg(long)]
        attacker_wins_ties: bool,
        #[arg(long, allow_hyphen_values = true, default_value_t = 0, value_parser = clap::value_parser!(i32).range(-crate::spec::flag::MAX_MODIFIER..=crate::spec::flag::MAX_MODIFIER))]
        defender_add: i32,
        #[arg(long)]
        defender_wins_ties: bool,
        #[arg(long)]
        from_rear: bool,
        #[arg(long)]
        json: bool,
    },
    /// Army morale (d10).
    Morale {
        #[arg(long)]
        nationality: String,
        #[arg(long)]
        json: bool,
    },
}

/// Soldiers in Time actions.
#[derive(Debug, clap::Subcommand)]
pub enum SoldiersInTimeOdds {
    /// An activation card against an experience number (full deck unless
    /// cards already drawn are given).
    Activate {
        #[arg(long)]
        number: u8,
        #[arg(long)]
        leader: bool,
        /// Cards already drawn from this deck, e.g. `--drawn KH,3S`.
        #[arg(long, value_delimiter = ',')]
        drawn: Vec<String>,
        #[arg(long)]
        json: bool,
    },
    /// One shot: reload, hit, damage against armour, save card.
    Fire {
        #[arg(long)]
        weapon: String,
        #[arg(long)]
        skill: u8,
        #[arg(long, allow_hyphen_values = true, default_value_t = 0, value_parser = clap::value_parser!(i32).range(-crate::spec::flag::MAX_MODIFIER..=crate::spec::flag::MAX_MODIFIER))]
        modifier: i32,
        #[arg(long)]
        loaded: bool,
        #[arg(long, default_value_t = 0)]
        armour: u32,
        #[arg(long)]
        target_experience: u8,
        #[arg(long)]
        target_red: bool,
        #[arg(long)]
        leader_in_range: bool,
        #[arg(long)]
        json: bool,
    },
    /// A morale or rally card against an experience number (face cards
    /// pass only with a leader or flag bearer near).
    Morale {
        #[arg(long)]
        number: u8,
        #[arg(long)]
        leader: bool,
        /// A leader within 3 in or a flag bearer within 8 in.
        #[arg(long)]
        influenced: bool,
        #[arg(long)]
        json: bool,
    },
    /// Grapeshot (1d10 a stand) or a grenade blast against one figure.
    Grapeshot {
        #[arg(long, default_value_t = 0)]
        armour: u32,
        #[arg(long)]
        target_experience: u8,
        #[arg(long)]
        target_red: bool,
        #[arg(long)]
        leader_in_range: bool,
        #[arg(long)]
        json: bool,
    },
    /// A charging horse hitting a footman: damage by speed and size.
    HorseImpact {
        #[arg(long, value_parser = crate::spec::flag::length)]
        speed_in: f64,
        /// -1 small pony, +1 big war horse.
        #[arg(long, allow_hyphen_values = true, default_value_t = 0, value_parser = clap::value_parser!(i32).range(-crate::spec::flag::MAX_MODIFIER..=crate::spec::flag::MAX_MODIFIER))]
        size_add: i32,
        #[arg(long, default_value_t = 0)]
        armour: u32,
        #[arg(long)]
        target_experience: u8,
        #[arg(long)]
        json: bool,
    },
    /// A minefield square: P(a mine goes off) over the rolls it takes.
    Mine {
        #[arg(long, default_value_t = 1)]
        rolls: u32,
        #[arg(long)]
        json: bool,
    },
    /// Melee: base numbers (weapon value + skill + modifiers) and d10 each.
    Melee {
        #[arg(long, allow_hyphen_values = true, value_parser = clap::value_parser!(i32).range(-crate::spec::flag::MAX_MODIFIER..=crate::spec::flag::MAX_MODIFIER))]
        a_total: i32,
        #[arg(long, allow_hyphen_values = true, value_parser = clap::value_parser!(i32).range(-crate::spec::flag::MAX_MODIFIER..=crate::spec::flag::MAX_MODIFIER))]
        b_total: i32,
        #[arg(long, default_value_t = 0)]
        b_armour: u32,
        #[arg(long)]
        json: bool,
    },
}

/// Little Colonial Rules actions.
#[derive(Debug, clap::Subcommand)]
pub enum LittleColonialOdds {
    /// A volley: soldiers x weapon dice needing the band's number, 6s save.
    Fire {
        #[arg(long)]
        weapon: String,
        #[arg(long, value_parser = clap::value_parser!(u32).range(0..=crate::spec::flag::MAX_FIGURES))]
        soldiers: u32,
        #[arg(long, value_parser = crate::spec::flag::length)]
        range_cm: f64,
        #[arg(long, allow_hyphen_values = true, default_value_t = 0, value_parser = clap::value_parser!(i32).range(-crate::spec::flag::MAX_MODIFIER..=crate::spec::flag::MAX_MODIFIER))]
        modifier: i32,
        /// The target is mounted cavalry (saves 4-5 kill the horse).
        #[arg(long)]
        cavalry: bool,
        #[arg(long)]
        json: bool,
    },
    /// A gun: P(on the point) with its crew, P(a figure struck dies).
    Gun {
        #[arg(long, default_value_t = 6, value_parser = clap::value_parser!(u32).range(0..=crate::spec::flag::MAX_FIGURES))]
        gunners: u32,
        /// Infantry or cavalry helping (two count as one gunner).
        #[arg(long, default_value_t = 0, value_parser = clap::value_parser!(u32).range(0..=crate::spec::flag::MAX_FIGURES))]
        helpers: u32,
        #[arg(long)]
        json: bool,
    },
    /// The next card of an order deck: P(an officer's card), P(End of Turn).
    Draw {
        /// Cards left in the deck.
        #[arg(long, value_parser = crate::spec::flag::cards)]
        cards_left: usize,
        /// Of those, the officer's.
        #[arg(long, default_value_t = 0, value_parser = crate::spec::flag::cards)]
        officer_cards: usize,
        /// End of Turn cards left.
        #[arg(long, default_value_t = 1, value_parser = crate::spec::flag::cards)]
        end_of_turn: usize,
        #[arg(long)]
        json: bool,
    },
    /// Close combat, d6 + modifiers each; ties fought again.
    Combat {
        #[arg(long, allow_hyphen_values = true, default_value_t = 0, value_parser = clap::value_parser!(i32).range(-crate::spec::flag::MAX_MODIFIER..=crate::spec::flag::MAX_MODIFIER))]
        a_add: i32,
        #[arg(long)]
        a_single_rank: bool,
        #[arg(long, allow_hyphen_values = true, default_value_t = 0, value_parser = clap::value_parser!(i32).range(-crate::spec::flag::MAX_MODIFIER..=crate::spec::flag::MAX_MODIFIER))]
        b_add: i32,
        #[arg(long)]
        b_single_rank: bool,
        #[arg(long)]
        json: bool,
    },
    /// Cavalry move by level: base + d6s, cm.
    Cavalry {
        #[arg(long)]
        level: String,
        #[arg(long)]
        json: bool,
    },
}

fn pct(p: f64) -> String {
    format!("{:5.1}%", 100.0 * p)
}

fn show(json: bool, value: &serde_json::Value, text: &str) -> anyhow::Result<ExitCode> {
    if json {
        println!("{}", serde_json::to_string(value)?);
    } else {
        println!("{text}");
    }
    Ok(ExitCode::SUCCESS)
}

fn dist_text(dist: &[f64], offset: f64, unit: &str) -> String {
    dist.iter()
        .enumerate()
        .filter(|(_, p)| **p > 0.0)
        .map(|(i, p)| format!("  {:>5}{unit} {}", i as f64 + offset, pct(*p)))
        .collect::<Vec<_>>()
        .join("\n")
}

pub fn volley_fire(action: VolleyFireOdds) -> anyhow::Result<ExitCode> {
    let data = VolleyFire::builtin().context("the built-in Volley Fire! data")?;
    match action {
        VolleyFireOdds::Fire {
            weapon,
            range_in,
            firers,
            double_rank,
            cover,
            mixed_key,
            json,
        } => {
            let w = data
                .weapon
                .get(&weapon)
                .with_context(|| format!("no weapon `{weapon}` on the firing table"))?;
            let band = data
                .band_edges_in(w)
                .iter()
                .position(|e| range_in <= *e)
                .with_context(|| format!("{range_in} in is out of range"))?;
            let table = if double_rank && !w.hit_max_double_rank.is_empty() {
                &w.hit_max_double_rank
            } else {
                &w.hit_max
            };
            let hit_max = *table.get(band).context("no d20 fire for this weapon")?;
            let groups = if w.gun {
                vec![(u32::MAX, false)]
            } else {
                data.fire_groups(firers, w.cavalry)
            };
            let gun_cover = w.gun && firers <= data.fire.gun_cover_gunners_max;
            let dice: Vec<FireDie> = groups
                .into_iter()
                .map(|(n, half)| FireDie {
                    hit_max,
                    firers: n,
                    half_effect: half,
                    cover: cover || gun_cover,
                    mixed_key_target: mixed_key,
                    gun: w.gun,
                })
                .collect();
            let o = fire_odds(&data, &dice);
            let text = format!(
                "{weapon}, {firers} firers, band {band} (hits on 1-{hit_max}), {} d20:\n{}\n  any hit {}  mean {:.2}  key hit {}  jam {}  leader {}",
                dice.len(),
                dist_text(&o.hits, 0.0, " hits"),
                pct(o.p_any_hit),
                o.mean_hits,
                pct(o.p_key_hit),
                pct(o.p_jam),
                pct(o.p_leader_hit)
            );
            show(json, &serde_json::to_value(&o)?, &text)
        }
        VolleyFireOdds::Move {
            troops,
            formation,
            rough,
            no_leader,
            json,
        } => {
            let n = data
                .move_dice(&troops, &formation, !no_leader)
                .with_context(|| format!("no move dice for {troops} in {formation}"))?;
            let halved = rough && data.terrain_halves(&troops);
            let d = move_distribution(n, halved, data.movement.terrain_divisor);
            let text = format!(
                "{troops} in {formation}: {n} d6{}\n{}",
                if halved { ", halved" } else { "" },
                dist_text(&d, 0.0, " in")
            );
            show(
                json,
                &json!({ "dice": n, "halved": halved, "inches": d }),
                &text,
            )
        }
        VolleyFireOdds::Melee {
            attacker_add,
            attacker_wins_ties,
            defender_add,
            defender_wins_ties,
            from_rear,
            json,
        } => {
            let o = pair_odds(
                &data,
                MeleeFighter {
                    add: attacker_add,
                    win_ties: attacker_wins_ties,
                },
                MeleeFighter {
                    add: defender_add,
                    win_ties: defender_wins_ties,
                },
                from_rear,
            );
            let text = format!(
                "attacker wins {}  defender wins {}  tie {}\n  decided: attacker {}  attacker casualty {}  defender casualty {}",
                pct(o.p_a_wins),
                pct(o.p_b_wins),
                pct(o.p_tie),
                pct(o.p_a_wins_eventually),
                pct(o.p_a_casualty),
                pct(o.p_b_casualty)
            );
            show(json, &serde_json::to_value(o)?, &text)
        }
        VolleyFireOdds::Morale { nationality, json } => {
            let mut counts = [0.0; 3];
            for face in 1..=data.morale.die {
                let r = data
                    .morale_result(&nationality, face)
                    .with_context(|| format!("no morale table for `{nationality}`"))?;
                counts[r as usize] += 1.0 / f64::from(data.morale.die);
            }
            let text = format!(
                "holds {}  routs {}  disaster {}",
                pct(counts[0]),
                pct(counts[1]),
                pct(counts[2])
            );
            show(
                json,
                &json!({ "holds": counts[0], "routs": counts[1], "disaster": counts[2] }),
                &text,
            )
        }
    }
}

pub fn soldiers_in_time(action: SoldiersInTimeOdds) -> anyhow::Result<ExitCode> {
    let data = SoldiersInTime::builtin().context("the built-in Soldiers in Time data")?;
    match action {
        SoldiersInTimeOdds::Activate {
            number,
            leader,
            drawn,
            json,
        } => {
            let mut deck = full_deck();
            for c in &drawn {
                let i = deck
                    .iter()
                    .position(|x| x == c)
                    .with_context(|| format!("`{c}` is not in the deck"))?;
                deck.remove(i);
            }
            let p = activation_odds(&data, &deck, number, leader);
            let face = card_probability(&deck, |c| Card::parse(c).is_some_and(Card::is_face));
            let text = format!(
                "activation against {number}{}: {} ({} cards left, face card {})",
                if leader { " (leader)" } else { "" },
                pct(p),
                deck.len(),
                pct(face)
            );
            show(
                json,
                &json!({ "p_activates": p, "cards_left": deck.len(), "p_face": face }),
                &text,
            )
        }
        SoldiersInTimeOdds::Fire {
            weapon,
            skill,
            modifier,
            loaded,
            armour,
            target_experience,
            target_red,
            leader_in_range,
            json,
        } => {
            let w = data
                .weapons
                .get(&weapon)
                .with_context(|| format!("no weapon `{weapon}`"))?;
            let shot = Shot {
                fire_skill: skill,
                modifier,
                already_loaded: loaded,
                target_armour: armour,
                target_experience,
                target_red,
                leader_in_range,
            };
            let o = shot_odds(&data, w, &shot, &full_deck());
            let text = format!(
                "reloaded {}  hit {}  morale check only {}  save needed {}  killed {}",
                pct(o.p_reloaded),
                pct(o.p_hit),
                pct(o.p_morale_check_only),
                pct(o.p_save_needed),
                pct(o.p_killed)
            );
            show(json, &serde_json::to_value(&o)?, &text)
        }
        SoldiersInTimeOdds::Morale {
            number,
            leader,
            influenced,
            json,
        } => {
            let p = morale_odds(&data, &full_deck(), number, leader, influenced);
            show(
                json,
                &json!({ "p_holds": p }),
                &format!("holds {}  routs {}", pct(p), pct(1.0 - p)),
            )
        }
        SoldiersInTimeOdds::Grapeshot {
            armour,
            target_experience,
            target_red,
            leader_in_range,
            json,
        } => {
            let shot = Shot {
                fire_skill: 0,
                modifier: 0,
                already_loaded: true,
                target_armour: armour,
                target_experience,
                target_red,
                leader_in_range,
            };
            let dist = damage_distribution(1, data.special.grapeshot_damage_sides, 0);
            let (m, s, k) = damage_odds(&dist, &shot, &full_deck());
            show(
                json,
                &json!({ "p_morale_check_only": m, "p_save_needed": s, "p_killed": k }),
                &format!(
                    "morale check only {}  save needed {}  killed {}",
                    pct(m),
                    pct(s),
                    pct(k)
                ),
            )
        }
        SoldiersInTimeOdds::HorseImpact {
            speed_in,
            size_add,
            armour,
            target_experience,
            json,
        } => {
            let dist = horse_impact_distribution(&data, speed_in, size_add);
            if dist.is_empty() {
                return show(
                    json,
                    &json!({ "stops": true }),
                    "under 5 in the horse just stops",
                );
            }
            let shot = Shot {
                fire_skill: 0,
                modifier: 0,
                already_loaded: true,
                target_armour: armour,
                target_experience,
                target_red: false,
                leader_in_range: false,
            };
            let (m, _, k) = damage_odds(&dist, &shot, &full_deck());
            let text = format!(
                "damage:\n{}\n  morale check only {}  killed {} (if the horse goes in)",
                dist_text(&dist, 0.0, ""),
                pct(m),
                pct(k)
            );
            show(
                json,
                &json!({ "damage": dist, "p_morale_check_only": m, "p_killed": k }),
                &text,
            )
        }
        SoldiersInTimeOdds::Mine { rolls, json } => {
            let p = mine_p(&data, rolls);
            show(
                json,
                &json!({ "p_explodes": p }),
                &format!("a mine goes off {} over {rolls} rolls", pct(p)),
            )
        }
        SoldiersInTimeOdds::Melee {
            a_total,
            b_total,
            b_armour,
            json,
        } => {
            let o = melee_odds(&data, a_total, b_total, b_armour);
            let text = format!(
                "A wins {}  B wins {}  tie {}  (B must save when A wins: {})",
                pct(o.p_a_wins),
                pct(o.p_b_wins),
                pct(o.p_tie),
                pct(o.p_b_save_needed)
            );
            show(json, &serde_json::to_value(o)?, &text)
        }
    }
}

pub fn little_colonial(action: LittleColonialOdds) -> anyhow::Result<ExitCode> {
    let data = LittleColonial::builtin().context("the built-in Little Colonial data")?;
    match action {
        LittleColonialOdds::Fire {
            weapon,
            soldiers,
            range_cm,
            modifier,
            cavalry,
            json,
        } => {
            let w = data
                .weapons
                .get(&weapon)
                .with_context(|| format!("no weapon `{weapon}`"))?;
            let need = data
                .to_hit(range_cm)
                .with_context(|| format!("{range_cm} cm is out of range"))?;
            if cavalry {
                let o = cavalry_volley_odds(&data, soldiers * w.dice, need, modifier);
                let text = format!(
                    "{} dice needing {need}+ at cavalry: a die kills a rider {}, a horse {}\n{}",
                    soldiers * w.dice,
                    pct(o.p_die_kills),
                    pct(o.p_die_kills_horse),
                    dist_text(&o.riders_killed, 0.0, " riders")
                );
                show(json, &serde_json::to_value(&o)?, &text)
            } else {
                let o = volley_odds(&data, soldiers * w.dice, need, modifier);
                let text = format!(
                    "{} dice needing {need}+ (a die hits {}), saves on 6:\n{}\n  mean hits {:.2}  radius {soldiers} cm",
                    o.dice,
                    pct(o.p_die_hits),
                    dist_text(&o.hits, 0.0, " hits"),
                    o.mean_hits
                );
                show(json, &serde_json::to_value(&o)?, &text)
            }
        }
        LittleColonialOdds::Gun {
            gunners,
            helpers,
            json,
        } => {
            let m = data.crew_modifier(gunners, helpers);
            let p = gun_hit_p(&data, m);
            let line = struck_killed_p(&data, 1.0, false);
            let shrapnel_hit = f64::from(data.fire.die + 1 - data.artillery.shrapnel_hit_on)
                / f64::from(data.fire.die);
            let shrapnel = struck_killed_p(&data, shrapnel_hit, false);
            show(
                json,
                &json!({ "crew_modifier": m, "p_on_point": p, "p_killed_in_line": line, "p_killed_under_shrapnel": shrapnel }),
                &format!(
                    "crew {m:+}: on the point {}  a figure in the roundshot's line dies {}  under shrapnel {}",
                    pct(p),
                    pct(line),
                    pct(shrapnel)
                ),
            )
        }
        LittleColonialOdds::Draw {
            cards_left,
            officer_cards,
            end_of_turn,
            json,
        } => {
            anyhow::ensure!(
                cards_left > 0 && officer_cards + end_of_turn <= cards_left,
                "the counts do not fit the deck"
            );
            let deck: Vec<u8> = (0..cards_left)
                .map(|i| {
                    if i < officer_cards {
                        1
                    } else if i < officer_cards + end_of_turn {
                        2
                    } else {
                        0
                    }
                })
                .collect();
            let p_off = card_probability(&deck, |c| *c == 1);
            let p_eot = card_probability(&deck, |c| *c == 2);
            let text = format!("officer's card {}  End of Turn {}", pct(p_off), pct(p_eot));
            show(
                json,
                &json!({ "p_officer": p_off, "p_end_of_turn": p_eot }),
                &text,
            )
        }
        LittleColonialOdds::Combat {
            a_add,
            a_single_rank,
            b_add,
            b_single_rank,
            json,
        } => {
            let p = close_combat_p(&data, a_add, a_single_rank, b_add, b_single_rank);
            show(
                json,
                &json!({ "p_a_wins": p }),
                &format!("A wins {}  B wins {}", pct(p), pct(1.0 - p)),
            )
        }
        LittleColonialOdds::Cavalry { level, json } => {
            let m = data
                .cavalry
                .movement
                .get(&level)
                .with_context(|| format!("no cavalry level `{level}`"))?;
            let d = sum_distribution(m.dice as usize, 6);
            let text = format!(
                "{level} cavalry: {} + {}d6 cm, {} turns\n{}",
                m.base_cm,
                m.dice,
                m.turns,
                dist_text(&d, m.base_cm, " cm")
            );
            show(
                json,
                &json!({ "base_cm": m.base_cm, "dice": m.dice, "dist": d }),
                &text,
            )
        }
    }
}
