//! Soldiers in Time 5.1 (one figure is one man; d10 rolls and a deck of
//! playing cards per side): the data file, cards, the arithmetic with exact
//! odds, and the engine ([`engine`]).
//!
//! # Conventions
//! - Distances are table inches (25 mm figures).
//! - Cards are written rank then suit: `AH`, `10S`, `KD`. Ace counts 1,
//!   2..10 their number; J, Q, K are face cards. Hearts and diamonds are
//!   red, clubs and spades black.
//! - Fire and activation are "roll (or flip) at or under": a modifier of +N
//!   is added to the die and makes success harder.

pub mod action;
mod artillery;
pub mod engine;
pub mod event;
mod melee;
pub mod menu;
mod morale;
mod movement;
mod observation;
mod orders;
mod overlay;
mod shooting;
pub mod status;

use std::collections::BTreeMap;
use std::path::Path;

use serde::{Deserialize, Serialize};

use crate::core::odds::{card_probability, sum_distribution};
use crate::spec::{SourceFile, SpecError};

pub use engine::SoldiersInTimeRules;

/// Registry name of the rule set.
pub const NAME: &str = "soldiers-in-time";
/// The built-in data file.
pub const BUILTIN_TOML: &str = include_str!("../../../scenarios/rules/soldiers-in-time.toml");
/// Where the built-in data file lives in the repository.
pub const BUILTIN_PATH: &str = "scenarios/rules/soldiers-in-time.toml";

pub use crate::rules::common::House;

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TurnData {
    pub phases: Vec<String>,
    #[serde(default)]
    pub house: House,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CommandData {
    pub range_in: f64,
    pub face_card_passes: bool,
    pub leader_fails_on_ace: bool,
    pub men_per_leader: u32,
    /// 5.2 Volley Fire "requires the unit to be in formation": each man
    /// within this gap of another of the volley or of his leader, inches
    /// base edge to base edge (house).
    pub formation_gap_in: f64,
    #[serde(default)]
    pub house: House,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FireData {
    pub die: u32,
    pub snap_add: i32,
    pub charging_firer_add: i32,
    pub charging_target_add: i32,
    pub hidden_target_add: i32,
    /// Beyond this fraction of the weapon's range a shot is at long range.
    pub long_range_from: f64,
    pub long_range_add: i32,
    pub soft_cover_add: i32,
    pub hard_cover_add: i32,
    /// The target moved this turn (not charging: that is its own +4).
    pub moving_target_add: i32,
    /// A horse and rider is a bigger target.
    pub mounted_target_add: i32,
    pub rout_in: f64,
    pub adjacent_in: f64,
    /// 11: "If there is a hit then all troops in a 2 inch radius are
    /// automatically exposed" (no hidden +2 in the next turn).
    pub exposed_radius_in: f64,
    /// 6.3, firing at an enemy engaged in melee with a friend: a hit
    /// strikes the target on a d10 at or under this, else the friend
    /// (house).
    pub into_melee_target_max: u32,
    /// 11, spotting hidden enemies: how far an observer may look, inches
    /// centre to centre (house).
    pub spot_range_in: f64,
    #[serde(default)]
    pub house: House,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct WeaponData {
    pub damage_dice: u32,
    pub damage_sides: u32,
    pub damage_add: u32,
    pub reload_max: u32,
    pub range_in: f64,
    /// Artillery pieces: `cannon` (ball or grapeshot), `catapult`,
    /// `bolt-thrower`. None for hand weapons.
    #[serde(default)]
    pub artillery: Option<ArtilleryKind>,
    /// 9: "HP=hit points/experience points for the weapon. This is the
    /// damage the weapon can sustain before becoming unusable." None: the
    /// weapon is not damaged apart from its bearer.
    #[serde(default)]
    pub hit_points: Option<u32>,
    /// 6.1, Multiple Shots: shots a turn (None: one).
    #[serde(default)]
    pub shots: Option<u32>,
    /// 6.1: "If there is only one figure alone because of casualties, then
    /// only 3 shots may be taken each turn": the shots of a crew down to
    /// its gunner (no friend within 1 in).
    #[serde(default)]
    pub shots_alone: Option<u32>,
}

/// The kinds of artillery piece the text describes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum ArtilleryKind {
    Cannon,
    Catapult,
    BoltThrower,
}

/// Foot and horse movement (the allowance tables are lost: house values).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct MovementData {
    pub foot_in: f64,
    pub run_in: f64,
    /// Horse speeds by name, slowest first, and their inches per turn.
    pub horse_speeds: Vec<String>,
    pub horse_speeds_in: Vec<f64>,
    /// Speed levels a rider may change in one turn with an order.
    pub horse_change_levels: u8,
    /// A rider who fails his activation may slow by this many levels.
    pub horse_fail_slow_levels: u8,
    pub artillery_move_in: f64,
    /// 5.1 Moving Backwards: the fraction of the walk a man keeping his
    /// facing moves (house).
    pub backward_fraction: f64,
    /// 5.3: "Cavalry previously halted or moving backwards can move
    /// backwards at 2 inches per turn."
    pub horse_back_in: f64,
    #[serde(default)]
    pub house: House,
}

/// A charging horse hitting a footman.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct HorseImpactData {
    /// The damage die; damage 1-5 is the face halved, rounded up.
    pub die: u32,
    pub damage_max: u32,
    pub fast_over_in: f64,
    pub fast_add: i32,
    pub stops_under_in: f64,
    pub small_add: i32,
    pub big_add: i32,
    #[serde(default)]
    pub house: House,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct MeleeData {
    pub die: u32,
    pub charging_add: i32,
    pub charge_turns_max: u32,
    pub retreat_in: f64,
    pub rout_in: f64,
    /// 7.2 Parry (house): added to the total of a figure who parries.
    pub parry_add: i32,
    /// 7.2 One Vs Many (house): for each enemy in contact beyond the first.
    pub one_vs_many_add: i32,
    /// 7.2 horses in melee (house): a rider against a man on foot.
    pub mounted_vs_foot_add: i32,
    #[serde(default)]
    pub house: House,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SpecialData {
    pub grenade_range_in: f64,
    pub grapeshot_range_in: f64,
    pub grapeshot_cone_deg: f64,
    pub grapeshot_damage_sides: u32,
    pub artillery_arc_deg: f64,
    pub catapult_hit_max: u32,
    pub catapult_damage_dice: u32,
    pub catapult_damage_add: u32,
    pub bolt_thrower_damage_dice: u32,
    pub bolt_thrower_damage_add: u32,
    pub flag_bearer_radius_in: f64,
    pub mine_square_in: f64,
    pub mine_explodes_max: u32,
    pub mine_blast_in: f64,
    pub follow_through_in: f64,
    pub horse_speed_in_per_follow_in: f64,
    /// "A target area the size of a quarter" (US quarter, 0.955 in).
    pub quarter_diameter_in: f64,
    /// A missed catapult shot (or grenade) scatters d`scatter_die` inches in
    /// the direction of a d`scatter_direction_faces` (clock face).
    pub scatter_die: u32,
    pub scatter_direction_faces: u32,
    pub grenade_damage_sides: u32,
    #[serde(default)]
    pub house: House,
}

/// Which experience number an order is checked against.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum OrderCheck {
    Leader,
    Highest,
    Lowest,
}

/// The checked Soldiers in Time data.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SoldiersInTime {
    pub name: String,
    pub turn: TurnData,
    pub command: CommandData,
    pub orders: BTreeMap<String, OrderCheck>,
    pub fire: FireData,
    pub weapon: BTreeMap<String, toml::Value>,
    pub melee: MeleeData,
    pub melee_weapon: BTreeMap<String, i32>,
    pub special: SpecialData,
    pub movement: MovementData,
    pub horse_impact: HorseImpactData,
    /// Parsed `weapon` entries (the `house` key excluded).
    #[serde(skip)]
    pub weapons: BTreeMap<String, WeaponData>,
}

impl SoldiersInTime {
    pub fn builtin() -> Result<Self, SpecError> {
        Self::from_source(&SourceFile::from_text(BUILTIN_PATH, BUILTIN_TOML))
    }

    pub fn load(path: &Path) -> Result<Self, SpecError> {
        Self::from_source(&SourceFile::read(path)?)
    }

    /// Parses and checks; every problem at once.
    pub fn from_source(src: &SourceFile) -> Result<Self, SpecError> {
        let mut data: Self = src.parse_toml()?;
        let mut problems = Vec::new();
        for (name, v) in &data.weapon {
            if name == "house" {
                continue;
            }
            match v.clone().try_into::<WeaponData>() {
                Ok(w) => {
                    if w.damage_dice > 0 && w.damage_sides == 0 {
                        problems.push(src.problem(
                            None,
                            format!("weapon.{name}"),
                            "damage die needs faces",
                        ));
                    }
                    data.weapons.insert(name.clone(), w);
                }
                Err(e) => problems.push(src.problem(None, format!("weapon.{name}"), e.to_string())),
            }
        }
        for order in [
            "forward-march",
            "formed-charge",
            "volley-fire",
            "independent-fire",
            "follow-him",
        ] {
            if !data.orders.contains_key(order) {
                problems.push(src.problem(
                    None,
                    "orders",
                    format!("the order `{order}` is missing"),
                ));
            }
        }
        for phase in engine::PHASES {
            if !data.turn.phases.iter().any(|p| p == phase) {
                problems.push(src.problem(
                    None,
                    "turn.phases",
                    format!("the phase `{phase}` is missing"),
                ));
            }
        }
        if !(0.0..=1.0).contains(&data.movement.backward_fraction) {
            problems.push(src.problem(
                None,
                "movement.backward_fraction",
                "a fraction of the walk, 0 to 1",
            ));
        }
        if !(0.0..=1.0).contains(&data.fire.long_range_from) {
            problems.push(src.problem(
                None,
                "fire.long_range_from",
                "a fraction of the weapon's range, 0 to 1",
            ));
        }
        if data.movement.horse_speeds.len() != data.movement.horse_speeds_in.len()
            || data.movement.horse_speeds.is_empty()
        {
            problems.push(src.problem(
                None,
                "movement.horse_speeds_in",
                "one distance per horse speed name",
            ));
        }
        if !problems.is_empty() {
            return Err(src.error(problems));
        }
        Ok(data)
    }

    /// Inches a horse at speed level `level` moves in a turn.
    pub fn horse_speed_in(&self, level: u8) -> f64 {
        let s = &self.movement.horse_speeds_in;
        s.get(usize::from(level))
            .or(s.last())
            .copied()
            .unwrap_or(0.0)
    }

    /// The damage of a charging horse's impact for a damage-die face, at
    /// `speed_in`, with the horse's size modifier (None: under 5 in the
    /// horse just stops).
    pub fn horse_impact_damage(&self, face: u32, speed_in: f64, size_add: i32) -> Option<u32> {
        let h = &self.horse_impact;
        if speed_in < h.stops_under_in {
            return None;
        }
        let per = h.die.div_ceil(h.damage_max.max(1)).max(1);
        let base = i64::from(face.div_ceil(per));
        let fast = if speed_in > h.fast_over_in {
            h.fast_add
        } else {
            0
        };
        Some(u32::try_from((base + i64::from(fast) + i64::from(size_add)).max(0)).unwrap_or(0))
    }

    /// The experience number an order's activation card is checked against.
    pub fn order_number(&self, order: &str, leader: u8, unit: &[u8]) -> Option<u8> {
        Some(match self.orders.get(order)? {
            OrderCheck::Leader => leader,
            OrderCheck::Highest => unit.iter().copied().chain([leader]).max()?,
            OrderCheck::Lowest => unit.iter().copied().min().unwrap_or(leader),
        })
    }

    /// Leaders a force of `men` must have: one per `men_per_leader`.
    pub fn leaders_needed(&self, men: u32) -> u32 {
        men / self.command.men_per_leader.max(1)
    }

    /// Follow-through move at the end of the turn: 1 in, horses 1 in per
    /// 5 in moved this turn.
    pub fn follow_through_in(&self, mounted: bool, moved_in: f64) -> f64 {
        if mounted {
            (moved_in / self.special.horse_speed_in_per_follow_in).floor()
                * self.special.follow_through_in
        } else {
            self.special.follow_through_in
        }
    }
}

/// A playing card.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Card {
    /// 1 (Ace) .. 13 (King).
    pub rank: u8,
    pub red: bool,
}

impl Card {
    /// Parses `AH`, `10S`, `KD` ...
    pub fn parse(s: &str) -> Option<Self> {
        let (rank, suit) = s.split_at(s.len().checked_sub(1)?);
        let rank = match rank {
            "A" => 1,
            "J" => 11,
            "Q" => 12,
            "K" => 13,
            n => n.parse().ok().filter(|n| (2..=10).contains(n))?,
        };
        let red = match suit {
            "H" | "D" => true,
            "C" | "S" => false,
            _ => return None,
        };
        Some(Self { rank, red })
    }

    pub fn is_face(self) -> bool {
        self.rank > 10
    }

    pub fn is_ace(self) -> bool {
        self.rank == 1
    }
}

/// A full 52-card deck.
pub fn full_deck() -> Vec<String> {
    let ranks = [
        "A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K",
    ];
    ["H", "D", "C", "S"]
        .iter()
        .flat_map(|s| ranks.iter().map(move |r| format!("{r}{s}")))
        .collect()
}

/// Activation check: a face card passes, a number at or under the
/// experience number passes, a leader fails on an Ace.
pub fn activation_passes(data: &SoldiersInTime, card: Card, number: u8, leader: bool) -> bool {
    if leader && data.command.leader_fails_on_ace && card.is_ace() {
        return false;
    }
    if card.is_face() {
        return data.command.face_card_passes;
    }
    card.rank <= number
}

/// Exact probability that the next card from `draw` passes.
pub fn activation_odds(data: &SoldiersInTime, draw: &[String], number: u8, leader: bool) -> f64 {
    card_probability(draw, |c| {
        Card::parse(c).is_some_and(|c| activation_passes(data, c, number, leader))
    })
}

/// A morale (or rally) card: a number card as an activation check; a face
/// card passes only under a leader's (or flag bearer's) influence, and
/// routs the figure otherwise.
pub fn morale_passes(
    data: &SoldiersInTime,
    card: Card,
    number: u8,
    leader: bool,
    influenced: bool,
) -> bool {
    if card.is_face() {
        influenced
    } else {
        activation_passes(data, card, number, leader)
    }
}

/// Exact probability that the next card from `draw` passes a morale check.
pub fn morale_odds(
    data: &SoldiersInTime,
    draw: &[String],
    number: u8,
    leader: bool,
    influenced: bool,
) -> f64 {
    card_probability(draw, |c| {
        Card::parse(c).is_some_and(|c| morale_passes(data, c, number, leader, influenced))
    })
}

/// Distribution of a charging horse's impact damage (entry `t` =
/// P(damage = t)); empty when the horse just stops.
pub fn horse_impact_distribution(data: &SoldiersInTime, speed_in: f64, size_add: i32) -> Vec<f64> {
    let die = data.horse_impact.die.max(1);
    let mut dist = Vec::new();
    for face in 1..=die {
        let Some(d) = data.horse_impact_damage(face, speed_in, size_add) else {
            return Vec::new();
        };
        let d = d as usize;
        if dist.len() <= d {
            dist.resize(d + 1, 0.0);
        }
        dist[d] += 1.0 / f64::from(die);
    }
    dist
}

/// After damage and armour.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum Damage {
    /// No remainder after armour: only a morale check.
    MoraleCheck,
    /// The figure must flip at or under this save number.
    Save(i32),
}

/// Damage minus armour; the remainder comes off the experience number.
pub fn damage_result(damage: u32, armour: u32, experience: u8) -> Damage {
    let rest = i64::from(damage) - i64::from(armour);
    if rest <= 0 {
        Damage::MoraleCheck
    } else {
        Damage::Save(i32::from(experience) - i32::try_from(rest).unwrap_or(i32::MAX))
    }
}

/// A save card passes at or under the save number, or as a face card of the
/// owner's colour with a leader in command range.
pub fn save_passes(card: Card, save: i32, own_red: bool, leader_in_range: bool) -> bool {
    if card.is_face() {
        return leader_in_range && card.red == own_red;
    }
    i32::from(card.rank) <= save
}

/// A shot's to-hit roll: d10 plus modifiers at or under the fire skill.
pub fn hits(face: u32, modifier: i32, fire_skill: u8) -> bool {
    i64::from(face) + i64::from(modifier) <= i64::from(fire_skill)
}

/// Distribution of `dice` d`sides` + `add`: entry `t` = P(total = t).
pub fn damage_distribution(dice: u32, sides: u32, add: u32) -> Vec<f64> {
    let mut d = vec![0.0; add as usize];
    d.extend(sum_distribution(dice as usize, sides));
    d
}

/// Exact odds of one shot (reload, hit, damage, save from the target's deck).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ShotOdds {
    pub p_reloaded: f64,
    pub p_hit: f64,
    /// Hit, and the damage does not get through the armour.
    pub p_morale_check_only: f64,
    /// Hit and a save is needed.
    pub p_save_needed: f64,
    /// Killed (hit, save needed and failed).
    pub p_killed: f64,
}

/// The shot's situation.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Shot {
    pub fire_skill: u8,
    pub modifier: i32,
    pub already_loaded: bool,
    pub target_armour: u32,
    pub target_experience: u8,
    pub target_red: bool,
    pub leader_in_range: bool,
}

/// Exact odds of damage from a distribution (entry `t` = P(damage = t))
/// against a figure: (P(only a morale check), P(a save is needed),
/// P(killed)); save cards are drawn from `target_draw`.
pub fn damage_odds(dist: &[f64], shot: &Shot, target_draw: &[String]) -> (f64, f64, f64) {
    let (mut morale, mut save, mut killed) = (0.0, 0.0, 0.0);
    for (dmg, p) in dist.iter().enumerate() {
        match damage_result(
            u32::try_from(dmg).unwrap_or(u32::MAX),
            shot.target_armour,
            shot.target_experience,
        ) {
            Damage::MoraleCheck => morale += p,
            Damage::Save(n) => {
                save += p;
                let p_save = card_probability(target_draw, |c| {
                    Card::parse(c)
                        .is_some_and(|c| save_passes(c, n, shot.target_red, shot.leader_in_range))
                });
                killed += p * (1.0 - p_save);
            }
        }
    }
    (morale, save, killed)
}

/// P(a d`die` roll plus `modifier` is at or under `skill`).
pub fn hit_p(die: u32, modifier: i32, skill: u8) -> f64 {
    (1..=die).filter(|f| hits(*f, modifier, skill)).count() as f64 / f64::from(die.max(1))
}

/// Exact odds of one shot; save cards are drawn from `target_draw`.
pub fn shot_odds(
    data: &SoldiersInTime,
    w: &WeaponData,
    shot: &Shot,
    target_draw: &[String],
) -> ShotOdds {
    let p_reloaded = if shot.already_loaded {
        1.0
    } else {
        f64::from(w.reload_max.min(data.fire.die)) / f64::from(data.fire.die)
    };
    let p_hit = p_reloaded * hit_p(data.fire.die, shot.modifier, shot.fire_skill);
    let (morale, save, killed) = damage_odds(
        &damage_distribution(w.damage_dice, w.damage_sides, w.damage_add),
        shot,
        target_draw,
    );
    ShotOdds {
        p_reloaded,
        p_hit,
        p_morale_check_only: p_hit * morale,
        p_save_needed: p_hit * save,
        p_killed: p_hit * killed,
    }
}

/// Melee base number: weapon value + melee skill (house, the table is lost).
pub fn melee_base(data: &SoldiersInTime, weapon: &str, skill: u8) -> Option<i32> {
    data.melee_weapon.get(weapon).map(|v| v + i32::from(skill))
}

/// Exact odds of one melee exchange between A and B (d10 each, highest
/// wins, ties strike nobody).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct MeleeOdds {
    pub p_a_wins: f64,
    pub p_b_wins: f64,
    pub p_tie: f64,
    /// Given B loses: P(damage beyond B's armour).
    pub p_b_save_needed: f64,
}

pub fn melee_odds(data: &SoldiersInTime, a_total: i32, b_total: i32, b_armour: u32) -> MeleeOdds {
    let n = f64::from(data.melee.die * data.melee.die);
    let (mut aw, mut bw, mut tie, mut bs) = (0.0_f64, 0.0_f64, 0.0_f64, 0.0_f64);
    for fa in 1..=data.melee.die as i32 {
        for fb in 1..=data.melee.die as i32 {
            let (ta, tb) = (a_total + fa, b_total + fb);
            if ta > tb {
                aw += 1.0 / n;
                if (ta - tb) as u32 > b_armour {
                    bs += 1.0 / n;
                }
            } else if tb > ta {
                bw += 1.0 / n;
            } else {
                tie += 1.0 / n;
            }
        }
    }
    MeleeOdds {
        p_a_wins: aw,
        p_b_wins: bw,
        p_tie: tie,
        p_b_save_needed: if aw > 0.0 { bs / aw } else { 0.0 },
    }
}

/// P(a catapult hits): d10 at or under the hit number.
pub fn catapult_hit_p(data: &SoldiersInTime) -> f64 {
    f64::from(data.special.catapult_hit_max) / 10.0
}

/// P(a mine goes off for a figure that rolls `rolls` times in a square).
pub fn mine_p(data: &SoldiersInTime, rolls: u32) -> f64 {
    1.0 - (1.0 - f64::from(data.special.mine_explodes_max) / 10.0)
        .powi(i32::try_from(rolls).unwrap_or(i32::MAX))
}
