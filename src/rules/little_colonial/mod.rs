//! Little Colonial Rules (figures activated by officers' cards from an
//! order deck; distances in cm): the data file, the arithmetic with exact
//! odds, and the engine ([`engine`]).
//!
//! # Conventions
//! - Rule distances are cm; the table frame is in inches and
//!   `cm_per_in` (2.5) converts.
//! - Troop levels, lowest first: raw, regular, seasoned, veteran, elite.
//! - Fire dice are d6 at or over the band's number; saves are 6s.

pub mod action;
mod artillery;
mod combat;
pub mod engine;
pub mod event;
mod fire;
pub mod menu;
mod movement;
mod overlay;
mod reinforcement;
mod sight;
pub mod status;
mod turn;
mod wounded;

use std::collections::BTreeMap;
use std::path::Path;

use nalgebra::Point2;
use serde::{Deserialize, Serialize};

use crate::core::odds::{binomial, sum_distribution};
use crate::rules::Rank;
use crate::spec::{SourceFile, SpecError};

pub use engine::LittleColonialRules;

pub const NAME: &str = "little-colonial";
pub const BUILTIN_TOML: &str = include_str!("../../../scenarios/rules/little-colonial.toml");
pub const BUILTIN_PATH: &str = "scenarios/rules/little-colonial.toml";

pub use crate::rules::common::House;

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ScaleData {
    pub m_per_cm: f64,
    pub cm_per_in: f64,
    pub turn_minutes: f64,
    pub rods_cm: Vec<f64>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DeckData {
    pub officer_cards: BTreeMap<String, u32>,
    pub nco_cards: u32,
    pub leader_cards: u32,
    pub end_of_turn_cards: u32,
    pub cavalry_troopers_per_card: u32,
    pub cavalry_officer_extra: u32,
    /// "X number of individual soldier cards": each side's, unless its
    /// scenario says (`soldier-cards`).
    pub soldier_cards: u32,
    #[serde(default)]
    pub house: House,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CommandData {
    pub mounted_add_cm: f64,
    pub rally_fraction_of_radius: f64,
    /// Who is whose superior, by command (higher is senior): a
    /// subordinate cannot activate his superiors.
    pub seniority: BTreeMap<String, u32>,
    #[serde(default)]
    pub house: House,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct MoveData {
    pub regular_cm: f64,
    pub raw_dice: u32,
    pub raw_max_cm: f64,
    pub wall_die: u32,
    pub reform_cm: f64,
    /// Movement cost per cm by terrain; a rough area takes the factor of
    /// the first name here that is a word of its own name.
    pub terrain_factor: BTreeMap<String, f64>,
    /// Stop within this many cm (base edge to base edge) of an enemy and
    /// fight.
    pub stop_near_enemy_cm: f64,
    #[serde(default)]
    pub house: House,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FireData {
    pub arc_deg: f64,
    pub die: u32,
    pub save_face: u32,
    pub soldiers_before_nco: u32,
    pub soldiers_before_officer: u32,
    pub third_rank_kills_on: u32,
    pub band_edges_cm: Vec<f64>,
    pub to_hit: Vec<u32>,
    #[serde(default)]
    pub house: House,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CloseCombatData {
    pub die: u32,
    pub contact_cm: f64,
    pub single_rank_wins_ties: bool,
    pub second_rank_add: i32,
    pub third_rank_vs_cavalry_add: i32,
    pub flank_add: i32,
    /// "From the front": the enemy within this many degrees of the
    /// fighter's facing.
    pub front_half_arc_deg: f64,
    /// A friend "to the flank": his base within this many cm of the
    /// fighter's (edge to edge) ...
    pub flank_gap_cm: f64,
    /// ... and within this many degrees of square to the fighter's facing.
    pub flank_spread_deg: f64,
    #[serde(default)]
    pub house: House,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CavalryMove {
    pub base_cm: f64,
    pub dice: u32,
    pub turns: u32,
    pub must_move_all: bool,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CavalryData {
    pub turn_max_deg: f64,
    pub horse_killed_faces: Vec<u32>,
    pub both_saved_face: u32,
    #[serde(rename = "move")]
    pub movement: BTreeMap<String, CavalryMove>,
    #[serde(default)]
    pub house: House,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct MoraleData {
    pub piles: Vec<String>,
    pub men_per_chit: u32,
    /// Demoralised troops fall back this many times their allowance at
    /// the End of Turn.
    pub flee_allowance_factor: f64,
    /// "While the "Civilised" player is certainly allowed to be Ruthless
    /// during a game, his forces will suffer a 5% decrease in Morale":
    /// percent of the chits taken off.
    pub ruthless_civilised_percent: u32,
    #[serde(default)]
    pub house: House,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ArtilleryData {
    pub crew: u32,
    pub missing_gunner_add: i32,
    pub substitutes_per_gunner: u32,
    /// d6 at or over this (plus the crew modifier) lands on the point.
    pub to_hit: u32,
    pub range_cm: f64,
    /// Deviation of a miss: d`deviation_die` x `deviation_cm_per_pip` cm
    /// toward a d`deviation_direction_faces` direction (1 = over, on along
    /// the line of fire, then clockwise).
    pub deviation_die: u32,
    pub deviation_cm_per_pip: f64,
    pub deviation_direction_faces: u32,
    /// The roundshot bounces on along its line d`bounce_die` x
    /// `bounce_cm_per_pip` cm.
    pub bounce_die: u32,
    pub bounce_cm_per_pip: f64,
    pub shrapnel_radius_cm: f64,
    pub shrapnel_hit_on: u32,
    /// Grapeshot: the gun's rating is its dice and its half circle, cm.
    pub grapeshot_rating: u32,
    pub grapeshot_range_cm: f64,
    #[serde(default)]
    pub house: House,
}

/// Napoleons fire roundshot and grapeshot; rifled guns shrapnel and
/// grapeshot.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum GunKind {
    Napoleon,
    Rifled,
}

impl GunKind {
    /// Napoleons fire roundshot and grapeshot, rifled guns shrapnel and
    /// grapeshot.
    pub fn fires(self, ammo: action::Ammo) -> bool {
        use action::Ammo;
        matches!(
            (self, ammo),
            (Self::Napoleon, Ammo::Roundshot | Ammo::Grapeshot)
                | (Self::Rifled, Ammo::Shrapnel | Ammo::Grapeshot)
        )
    }

    /// As the rules write it.
    pub fn name(self) -> &'static str {
        match self {
            Self::Napoleon => "Napoleon",
            Self::Rifled => "rifled",
        }
    }
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct WoundedData {
    pub die: u32,
    pub torso_face: u32,
    pub leg_face: u32,
    pub light_face: u32,
    /// A lightly wounded figure pays this many times the movement cost.
    pub light_cost_factor: f64,
    /// A man wounded in the torso dragged by one helper, by two: the
    /// helpers' movement cost factor.
    pub torso_drag_cost: [f64; 2],
    /// The same for a man hit in the leg.
    pub leg_drag_cost: [f64; 2],
    /// Seriously wounded men gathered behind the lines: "Firing ranges are
    /// doubled for calculation purposes".
    pub gathered_range_factor: f64,
    /// Found doing the opposite of what he wrote down: "ten percent (10%)
    /// casualties to his healthy forces".
    pub challenge_casualty_percent: u32,
    #[serde(default)]
    pub house: House,
}

/// The optional line of sight by heights: "Any terrain taller than the
/// (tallest*) figure (unit/formation) is considered blocking terrain for
/// line of sight purposes."
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SightData {
    /// "Man on Foot- Six feet tall (6')", feet.
    pub foot_ft: f64,
    /// "Mounted figure- Nine feet tall (9')".
    pub mounted_ft: f64,
    /// "Man on roof of house-Twelve Feet tall (12')".
    pub roof_ft: f64,
    /// "Man in church steeple- Twenty Four Feet tall (24')".
    pub steeple_ft: f64,
    /// Heights of blocking terrain, feet, by a word of the area's name (an
    /// area with none always blocks).
    pub terrain_height_ft: BTreeMap<String, f64>,
    #[serde(default)]
    pub house: House,
}

/// The checked Little Colonial Rules data.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LittleColonial {
    pub name: String,
    pub scale: ScaleData,
    pub deck: DeckData,
    pub command_radius_cm: BTreeMap<String, f64>,
    pub command: CommandData,
    #[serde(rename = "move")]
    pub movement: MoveData,
    pub fire: FireData,
    pub weapon: BTreeMap<String, toml::Value>,
    pub close_combat: CloseCombatData,
    pub cavalry: CavalryData,
    pub morale: MoraleData,
    pub artillery: ArtilleryData,
    pub wounded: WoundedData,
    pub sight: SightData,
    #[serde(skip)]
    pub weapons: BTreeMap<String, WeaponData>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct WeaponData {
    pub dice: u32,
    #[serde(default)]
    pub mounted_add: i32,
    /// Artillery pieces.
    #[serde(default)]
    pub gun: Option<GunKind>,
}

impl LittleColonial {
    pub fn builtin() -> Result<Self, SpecError> {
        Self::from_source(&SourceFile::from_text(BUILTIN_PATH, BUILTIN_TOML))
    }

    pub fn load(path: &Path) -> Result<Self, SpecError> {
        Self::from_source(&SourceFile::read(path)?)
    }

    pub fn from_source(src: &SourceFile) -> Result<Self, SpecError> {
        let mut data: Self = src.parse_toml()?;
        let mut problems = Vec::new();
        for (name, v) in &data.weapon {
            if name == "house" {
                continue;
            }
            match v.clone().try_into::<WeaponData>() {
                Ok(w) => {
                    data.weapons.insert(name.clone(), w);
                }
                Err(e) => problems.push(src.problem(None, format!("weapon.{name}"), e.to_string())),
            }
        }
        if data.fire.band_edges_cm.len() != data.fire.to_hit.len() {
            problems.push(src.problem(None, "fire.to_hit", "one number per range band"));
        }
        let levels: Vec<&str> = status::Level::ALL.iter().map(|l| l.name()).collect();
        if data
            .morale
            .piles
            .iter()
            .map(String::as_str)
            .ne(levels.iter().copied())
        {
            problems.push(src.problem(
                None,
                "morale.piles",
                format!("the five levels in order: {}", levels.join(", ")),
            ));
        }
        for level in &levels {
            for (table, has) in [
                (
                    "deck.officer_cards",
                    data.deck.officer_cards.contains_key(*level),
                ),
                ("cavalry.move", data.cavalry.movement.contains_key(*level)),
            ] {
                if !has {
                    problems.push(src.problem(None, table, format!("no entry for `{level}`")));
                }
            }
        }
        for c in status::CommandRank::ALL {
            for (table, has) in [
                (
                    "command_radius_cm",
                    data.command_radius_cm.contains_key(c.name()),
                ),
                (
                    "command.seniority",
                    data.command.seniority.contains_key(c.name()),
                ),
            ] {
                if !has {
                    problems.push(src.problem(None, table, format!("no entry for `{}`", c.name())));
                }
            }
        }
        if !problems.is_empty() {
            return Err(src.error(problems));
        }
        Ok(data)
    }

    /// Cards an officer of this level puts in the order deck (+1 cavalry).
    pub fn officer_cards(&self, level: &str, cavalry: bool) -> Option<u32> {
        let n = *self.deck.officer_cards.get(level)?;
        Some(if cavalry {
            n + self.deck.cavalry_officer_extra
        } else {
            n
        })
    }

    /// Cavalry's extra cards: one per 10 troopers or fewer.
    pub fn cavalry_cards(&self, troopers: u32) -> u32 {
        troopers.div_ceil(self.deck.cavalry_troopers_per_card.max(1))
    }

    /// Command radius by rank name, +10 cm mounted.
    pub fn command_radius_cm(&self, rank: &str, mounted: bool) -> Option<f64> {
        let r = *self.command_radius_cm.get(rank)?;
        Some(if mounted {
            r + self.command.mounted_add_cm
        } else {
            r
        })
    }

    /// Distance covered in a terrain with `allowance_cm` of movement left.
    pub fn terrain_distance_cm(&self, terrain: &str, allowance_cm: f64) -> Option<f64> {
        self.movement
            .terrain_factor
            .get(terrain)
            .map(|f| allowance_cm / f)
    }

    /// Raw infantry's move: 3d6 cm, at most 18, all of it.
    pub fn raw_move_cm(&self, total: u32) -> f64 {
        f64::from(total).min(self.movement.raw_max_cm)
    }

    /// Allowance left after crossing a wall with a d10 (None: not enough,
    /// wait for the next card).
    pub fn after_wall_cm(allowance_cm: f64, wall_face: u32) -> Option<f64> {
        let left = allowance_cm - f64::from(wall_face);
        (left >= 0.0).then_some(left)
    }

    /// The d6 face needed at a range (None: out of range).
    pub fn to_hit(&self, range_cm: f64) -> Option<u32> {
        let band = self
            .fire
            .band_edges_cm
            .iter()
            .position(|e| range_cm <= *e)?;
        self.fire.to_hit.get(band).copied()
    }

    /// Morale chits: one per `men_per_chit` men; five equal piles, the odd
    /// chits on the last.
    pub fn morale_piles(&self, men: u32) -> Vec<u32> {
        self.piles_of(men / self.morale.men_per_chit.max(1))
    }

    /// The chits of `men`, less `cut_percent` of them (rounded to the
    /// nearest chit, a half up: a Ruthless "civilised" side's 5%).
    pub fn morale_piles_cut(&self, men: u32, cut_percent: u32) -> Vec<u32> {
        let chits = men / self.morale.men_per_chit.max(1);
        let off = (u64::from(chits) * u64::from(cut_percent) + 50) / 100;
        self.piles_of(chits.saturating_sub(u32::try_from(off).unwrap_or(u32::MAX)))
    }

    /// `chits` in five equal piles, the odd chits on the last.
    fn piles_of(&self, chits: u32) -> Vec<u32> {
        let n = u32::try_from(self.morale.piles.len()).unwrap_or(1).max(1);
        let each = chits / n;
        let mut piles = vec![each; n as usize];
        if let Some(last) = piles.last_mut() {
            *last += chits - each * n;
        }
        piles
    }

    /// Artillery to-hit modifier for the crew: -1 for each gunner short of
    /// six; two infantry or cavalry stand in for one gunner.
    pub fn crew_modifier(&self, gunners: u32, substitutes: u32) -> i32 {
        let crew = gunners + substitutes / self.artillery.substitutes_per_gunner.max(1);
        let short = self.artillery.crew.saturating_sub(crew);
        i32::try_from(short).unwrap_or(i32::MAX) * self.artillery.missing_gunner_add
    }
}

/// A cavalry figure's save die.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum CavalrySave {
    BothSaved,
    HorseKilled,
    BothKilled,
}

pub fn cavalry_save(data: &LittleColonial, face: u32) -> CavalrySave {
    if face >= data.cavalry.both_saved_face {
        CavalrySave::BothSaved
    } else if data.cavalry.horse_killed_faces.contains(&face) {
        CavalrySave::HorseKilled
    } else {
        CavalrySave::BothKilled
    }
}

/// Optional wounded rule: a killed figure's d6.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum WoundedResult {
    Killed,
    Torso,
    Leg,
    Light,
}

pub fn wounded_result(data: &LittleColonial, face: u32) -> WoundedResult {
    let w = &data.wounded;
    if face == w.torso_face {
        WoundedResult::Torso
    } else if face == w.leg_face {
        WoundedResult::Leg
    } else if face == w.light_face {
        WoundedResult::Light
    } else {
        WoundedResult::Killed
    }
}

/// Exact odds of a volley: hits before saves, and final hits.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct VolleyOdds {
    pub dice: u32,
    pub need: u32,
    pub p_die_hits: f64,
    /// Entry `h`: P(h hits after saves).
    pub hits: Vec<f64>,
    pub mean_hits: f64,
}

/// `dice` d6 needing `need` (after `add`), each hit saved on a 6.
pub fn volley_odds(data: &LittleColonial, dice: u32, need: u32, add: i32) -> VolleyOdds {
    let faces = data.fire.die;
    let p_die_hits = (1..=faces)
        .filter(|f| i64::from(*f) + i64::from(add) >= i64::from(need))
        .count() as f64
        / f64::from(faces);
    let p_saved = f64::from(faces + 1 - data.fire.save_face.min(faces + 1)) / f64::from(faces);
    let hits = binomial(dice as usize, p_die_hits * (1.0 - p_saved));
    VolleyOdds {
        dice,
        need,
        p_die_hits,
        mean_hits: crate::core::odds::mean(&hits),
        hits,
    }
}

/// Exact odds of a volley at mounted cavalry: each hit's save die saves
/// both on a 6, kills the horse on 4-5, else kills the rider.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CavalryVolleyOdds {
    pub p_die_kills: f64,
    pub p_die_kills_horse: f64,
    /// Entry `k`: P(k riders killed).
    pub riders_killed: Vec<f64>,
}

pub fn cavalry_volley_odds(
    data: &LittleColonial,
    dice: u32,
    need: u32,
    add: i32,
) -> CavalryVolleyOdds {
    let v = volley_odds(data, 0, need, add);
    let faces = f64::from(data.fire.die);
    let horse = data.cavalry.horse_killed_faces.len() as f64 / faces;
    let both =
        f64::from(data.fire.die + 1 - data.cavalry.both_saved_face.min(data.fire.die + 1)) / faces;
    let kills = v.p_die_hits * (1.0 - horse - both);
    CavalryVolleyOdds {
        p_die_kills: kills,
        p_die_kills_horse: v.p_die_hits * horse,
        riders_killed: binomial(dice as usize, kills),
    }
}

/// P(a gun lands on its point): d6 plus the crew modifier at or over the
/// number.
pub fn gun_hit_p(data: &LittleColonial, crew_modifier: i32) -> f64 {
    let faces = data.fire.die;
    (1..=faces)
        .filter(|f| i64::from(*f) + i64::from(crew_modifier) >= i64::from(data.artillery.to_hit))
        .count() as f64
        / f64::from(faces)
}

/// P(a figure in the line of a roundshot, or under shrapnel, dies): the
/// shrapnel's hit die (1.0 for roundshot) and then the save.
pub fn struck_killed_p(data: &LittleColonial, hit_p: f64, mounted: bool) -> f64 {
    let faces = f64::from(data.fire.die);
    let survive = if mounted {
        (data.cavalry.horse_killed_faces.len() as f64
            + f64::from(data.fire.die + 1 - data.cavalry.both_saved_face.min(data.fire.die + 1)))
            / faces
    } else {
        f64::from(data.fire.die + 1 - data.fire.save_face.min(data.fire.die + 1)) / faces
    };
    hit_p * (1.0 - survive)
}

/// May the figure `i` of `ranks` be removed next, after `removed`? At
/// least 3 soldiers before an NCO, 6 before an officer, unless no other
/// soldier is left in the area.
fn may_remove(data: &LittleColonial, ranks: &[Rank], removed: &[usize], i: usize) -> bool {
    let soldiers = removed.iter().filter(|&&k| is_soldier(ranks[k])).count() as u32;
    let soldier_left =
        (0..ranks.len()).any(|k| k != i && !removed.contains(&k) && is_soldier(ranks[k]));
    match ranks[i] {
        Rank::Officer | Rank::Chief => {
            soldiers >= data.fire.soldiers_before_officer || !soldier_left
        }
        Rank::Nco => soldiers >= data.fire.soldiers_before_nco || !soldier_left,
        _ => true,
    }
}

/// A soldier, not a leader, for the removal of area-fire hits.
fn is_soldier(r: Rank) -> bool {
    !matches!(r, Rank::Officer | Rank::Chief | Rank::Nco)
}

/// Can the firer remove the figures `chosen` (indices into `ranks`), in
/// this order, should he score that many hits? Err: the first that breaks
/// the rule, and why.
pub fn check_removal(
    data: &LittleColonial,
    ranks: &[Rank],
    chosen: &[usize],
) -> Result<(), (usize, String)> {
    let mut removed = Vec::new();
    for (n, &i) in chosen.iter().enumerate() {
        if removed.contains(&i) {
            return Err((i, "is named twice".to_owned()));
        }
        if !may_remove(data, ranks, &removed, i) {
            let (need, who) = if is_soldier(ranks[i]) {
                (0, "")
            } else if ranks[i] == Rank::Nco {
                (data.fire.soldiers_before_nco, "an NCO")
            } else {
                (data.fire.soldiers_before_officer, "an officer")
            };
            return Err((
                i,
                format!(
                    "comes {} in the order: at least {need} soldiers go before {who} while soldiers are left in the area",
                    n + 1
                ),
            ));
        }
        removed.push(i);
    }
    Ok(())
}

/// Which figures are removed, in order, for `hits` area-fire hits: the
/// firer's `chosen` first (as [`check_removal`] allows them), then the
/// soldiers nearest first as given, an NCO after 3 soldiers, an officer
/// after 6, the leaders when nobody else is left; surplus hits are
/// ignored. Returns indices into `ranks`.
pub fn removal_order(
    data: &LittleColonial,
    ranks: &[Rank],
    chosen: &[usize],
    hits: u32,
) -> Vec<usize> {
    let mut out: Vec<usize> = Vec::new();
    let hits = hits as usize;
    for &i in chosen {
        if out.len() >= hits {
            return out;
        }
        if i < ranks.len() && !out.contains(&i) && may_remove(data, ranks, &out, i) {
            out.push(i);
        }
    }
    while out.len() < hits {
        let free: Vec<usize> = (0..ranks.len()).filter(|i| !out.contains(i)).collect();
        let next = free
            .iter()
            .copied()
            .find(|&i| is_soldier(ranks[i]))
            .or_else(|| {
                free.iter()
                    .copied()
                    .find(|&i| ranks[i] == Rank::Nco && may_remove(data, ranks, &out, i))
            })
            .or_else(|| {
                free.iter()
                    .copied()
                    .find(|&i| may_remove(data, ranks, &out, i))
            });
        let Some(i) = next else { break };
        out.push(i);
    }
    out
}

/// The movement cost factor of a terrain area: the first name of the
/// data's `terrain_factor` that is a word of the area's name (`Jungle
/// east` is jungle). None: the data has no factor for it.
pub fn terrain_factor(data: &LittleColonial, area_name: &str) -> Option<f64> {
    by_name_word(&data.movement.terrain_factor, area_name)
}

/// The height in feet of a blocking terrain area for the optional line of
/// sight: the first name of the data's `terrain_height_ft` that is a word
/// of the area's name. None: no height (it always blocks).
pub fn terrain_height_ft(data: &LittleColonial, area_name: &str) -> Option<f64> {
    by_name_word(&data.sight.terrain_height_ft, area_name)
}

/// The value of the first key of `table` that is a word of `area_name`.
fn by_name_word(table: &BTreeMap<String, f64>, area_name: &str) -> Option<f64> {
    let lower = area_name.to_lowercase();
    let words: Vec<&str> = lower
        .split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
        .collect();
    table
        .iter()
        .find(|(k, _)| words.contains(&k.as_str()))
        .map(|(_, f)| *f)
}

/// Is `p` in the area-fire half circle: within `radius_in` of the target
/// and beyond it, seen from the firers?
pub fn in_half_circle(
    target: Point2<f64>,
    firers_at: Point2<f64>,
    radius_in: f64,
    p: Point2<f64>,
) -> bool {
    crate::geometry::in_half_disc(target, firers_at, radius_in, p)
}

/// The levels (pile names) a figure of `level` belongs to, as an index.
pub fn level_index(data: &LittleColonial, level: &str) -> Option<usize> {
    data.morale.piles.iter().position(|l| l == level)
}

/// Is a figure of `level` demoralised with `empty` piles exhausted (the
/// first `empty` piles), if it was rallied when `rallied_at` piles were?
/// Rallied troops rout again when the next pile runs out.
pub fn demoralised(
    data: &LittleColonial,
    level: &str,
    empty: usize,
    rallied_at: Option<usize>,
) -> bool {
    let Some(i) = level_index(data, level) else {
        return false;
    };
    i < empty && rallied_at.is_none_or(|r| empty > r)
}

/// Piles added together (reinforcements' chits join the force's).
pub fn add_piles(a: &[u32], b: &[u32]) -> Vec<u32> {
    (0..a.len().max(b.len()))
        .map(|i| a.get(i).copied().unwrap_or(0) + b.get(i).copied().unwrap_or(0))
        .collect()
}

/// How many piles, from the first, are exhausted.
pub fn empty_piles(piles: &[u32]) -> usize {
    piles.iter().take_while(|p| **p == 0).count()
}

/// Close combat odds (d6 each; ties fought again unless one side wins
/// them): P(A wins).
pub fn close_combat_p(
    data: &LittleColonial,
    a_add: i32,
    a_wins_ties: bool,
    b_add: i32,
    b_wins_ties: bool,
) -> f64 {
    let (mut aw, mut bw) = (0.0, 0.0);
    let die = data.close_combat.die as i32;
    for fa in 1..=die {
        for fb in 1..=die {
            let (ta, tb) = (fa + a_add, fb + b_add);
            if ta > tb || (ta == tb && a_wins_ties && !b_wins_ties) {
                aw += 1.0;
            } else if tb > ta || (ta == tb && b_wins_ties && !a_wins_ties) {
                bw += 1.0;
            }
        }
    }
    if aw + bw == 0.0 { 0.5 } else { aw / (aw + bw) }
}

/// Cavalry move distribution in cm: entry `t` = P(base + dice = t).
pub fn cavalry_move_distribution(m: &CavalryMove) -> (f64, Vec<f64>) {
    (m.base_cm, sum_distribution(m.dice as usize, 6))
}
