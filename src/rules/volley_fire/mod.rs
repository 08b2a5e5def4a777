//! Volley Fire! (Sudan 1896, one figure is one man, units fire and move
//! together): the data file, the arithmetic with exact odds, and the engine
//! ([`engine`]).
//!
//! # Conventions
//! - Ranges are printed in feet (one foot = 25 yards) and measured in table
//!   inches: `table_in_per_foot` (12) converts. Movement dice give inches.
//! - Dice: d6 for movement and melee, one d20 per firing group, d10 for army
//!   morale. A firing die at or under the table number inflicts that many
//!   hits (house reading, noted in the data file).
//! - Range bands are indexed 0 = point blank, 1 = deadly, 2 = close.

pub mod action;
mod building;
mod captured;
mod charge;
mod concealment;
pub mod engine;
pub mod event;
mod fire;
mod gun;
mod melee;
pub mod menu;
mod morale;
mod movement;
mod overhead;
mod overlay;
mod scouts;
pub mod status;
mod winner;

use std::collections::BTreeMap;
use std::path::Path;

use serde::{Deserialize, Serialize};

use crate::core::odds::{convolve, sum_distribution};
use crate::spec::{SourceFile, SpecError};

pub use engine::VolleyFireRules;

/// Registry name of the rule set.
pub const NAME: &str = "volley-fire";
/// The built-in data file.
pub const BUILTIN_TOML: &str = include_str!("../../../scenarios/rules/volley-fire.toml");
/// Where the built-in data file lives in the repository.
pub const BUILTIN_PATH: &str = "scenarios/rules/volley-fire.toml";

/// Field name -> where a house value comes from (one type for every rule
/// set's data file).
pub use crate::rules::common::House;

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ScaleData {
    pub yards_per_foot: f64,
    pub table_in_per_foot: f64,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TurnData {
    pub phases: Vec<String>,
    /// Action -> the phase of the turn it belongs to; an action runs only
    /// in its phase.
    pub action_phase: BTreeMap<String, String>,
    /// Actions only the side whose turn it is may take (fire and melee are
    /// simultaneous).
    pub own_side_actions: Vec<String>,
}

/// How a formation lays out its figures.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Default)]
#[serde(deny_unknown_fields)]
pub struct FormationData {
    /// Number of ranks (the frontage follows from the unit's size).
    #[serde(default)]
    pub ranks: Option<u32>,
    /// Figures per rank (a column's width).
    #[serde(default)]
    pub frontage: Option<u32>,
    /// A hollow square, sides as equal as possible, every side facing out.
    #[serde(default)]
    pub hollow: bool,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FormationsData {
    /// A formation change moves the present formation's move divided by
    /// this (rounded up).
    pub change_move_divisor: u32,
    /// Centre-to-centre spacing of the figures laid out, table inches.
    pub spacing_in: f64,
    /// The formation of detached scouts (not taken by a formation change).
    pub scouts: String,
    #[serde(default)]
    pub house: House,
    pub layout: BTreeMap<String, FormationData>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FireData {
    pub cone_deg: f64,
    pub firing_ranks: usize,
    pub infantry_group: u32,
    pub infantry_half_effect_max: u32,
    pub cavalry_group: u32,
    pub cavalry_half_effect_max: u32,
    pub key_figure_faces_max: u32,
    pub leader_hit_face: u32,
    pub commander_killed_face: u32,
    pub commander_wounded_face: u32,
    pub gun_jam_face: u32,
    pub gun_jam_fall_back_in: f64,
    pub hits_per_gunner: u32,
    pub gun_cover_gunners_max: u32,
    /// A d6 at or above this face: the crew cannot destroy its gun.
    pub gun_destroy_fails_face: u32,
    /// Figures a unit may choose as scouts.
    pub scouts_max: u32,
    /// d6 a deployed gun rolls to move and still fire that turn.
    pub gun_move_fire_dice: u32,
    /// d6 scouts roll to evade fire or melee (an even total moves them).
    pub scout_evade_dice: u32,
    pub scout_hit_open: u32,
    pub scout_hit_cover: u32,
    pub pistol_hit_face: u32,
    #[serde(default)]
    pub house: House,
}

/// Concealment and visibility, table inches.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ConcealmentData {
    /// A viewer outside cover sees into it only from this near its outline.
    pub view_from_in: f64,
    /// ... and only this far into it (the sight line's length inside).
    pub see_into_in: f64,
    /// A viewer at the edge of the cover sees this far into it.
    pub see_into_from_edge_in: f64,
    /// Small-arms range into and inside woods and scrub.
    pub woods_range_in: f64,
    /// Gun range into and inside woods and scrub.
    pub woods_gun_range_in: f64,
    /// A man this near a cover's outline is at its edge (house value).
    pub edge_in: f64,
    #[serde(default)]
    pub house: House,
}

/// Buildings, table inches.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct BuildingData {
    /// "To leave a building move out 12" in any direction from the center
    /// of same".
    pub leave_in: f64,
    /// A unit halts "outside" a building with a man this near its walls
    /// (house value).
    pub outside_in: f64,
    #[serde(default)]
    pub house: House,
}

/// One line of the firing table with its ranges.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Default)]
#[serde(deny_unknown_fields)]
pub struct WeaponData {
    /// Highest d20 face that hits, by band.
    #[serde(default)]
    pub hit_max: Vec<u32>,
    #[serde(default)]
    pub hit_max_double_rank: Vec<u32>,
    /// Pistols: d6 rolled by band, 6s hit.
    #[serde(default)]
    pub pistol_dice: Vec<u32>,
    /// Upper edges of the bands, feet.
    pub range_ft: Vec<f64>,
    #[serde(default)]
    pub cavalry: bool,
    #[serde(default)]
    pub gun: bool,
    /// Throws over friends with every figure in range.
    #[serde(default)]
    pub overhead: bool,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct NoPenalty {
    pub troops: Vec<String>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct MoveData {
    pub terrain_divisor: u32,
    pub no_leader_dice_less: u32,
    pub dervish_leader_radius_in: f64,
    pub melee_contact_gap_in: f64,
    /// How much further than the contact gap (centre to centre) a man may
    /// stand and still be in contact, table inches (house value).
    pub contact_slack_in: f64,
    /// troops -> formation -> number of d6.
    pub dice: BTreeMap<String, BTreeMap<String, u32>>,
    pub no_terrain_penalty: NoPenalty,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Default)]
#[serde(deny_unknown_fields)]
pub struct MeleeModifier {
    #[serde(default)]
    pub add: i32,
    #[serde(default)]
    pub win_ties: bool,
    #[serde(default)]
    pub defence_only: bool,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct MeleeData {
    pub support_in: f64,
    pub casualty_max: u32,
    pub rear_casualty_max: u32,
    pub fall_back_dice: u32,
    pub shaken_move_dice: u32,
    pub still_shaken_min: u32,
    #[serde(default)]
    pub house: House,
    pub modifier: BTreeMap<String, MeleeModifier>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct MoraleLine {
    pub nationality: String,
    pub holds_min: u32,
    pub routs_min: u32,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct MoraleData {
    pub test_below_fraction: f64,
    pub die: u32,
    pub table: Vec<MoraleLine>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DoubleTimeData {
    pub dice: u32,
    /// Troops that may double time (scouts never do).
    pub troops: Vec<String>,
    /// Troops that lose the high die to heat stroke (the others the low).
    pub high_die_troops: Vec<String>,
}

/// The checked Volley Fire! data.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct VolleyFire {
    pub name: String,
    pub scale: ScaleData,
    pub turn: TurnData,
    pub fire: FireData,
    pub concealment: ConcealmentData,
    pub building: BuildingData,
    pub weapon: BTreeMap<String, WeaponData>,
    #[serde(rename = "move")]
    pub movement: MoveData,
    pub melee: MeleeData,
    pub morale: MoraleData,
    pub double_time: DoubleTimeData,
    pub formation: FormationsData,
}

impl VolleyFire {
    /// The data file shipped with Spotter.
    pub fn builtin() -> Result<Self, SpecError> {
        Self::from_source(&SourceFile::from_text(BUILTIN_PATH, BUILTIN_TOML))
    }

    /// A data file the player edited.
    pub fn load(path: &Path) -> Result<Self, SpecError> {
        Self::from_source(&SourceFile::read(path)?)
    }

    /// Parses and checks; every problem at once.
    pub fn from_source(src: &SourceFile) -> Result<Self, SpecError> {
        let data: Self = src.parse_toml()?;
        let mut problems = Vec::new();
        for (name, w) in &data.weapon {
            let bands = w.range_ft.len();
            let lens = [w.hit_max.len(), w.pistol_dice.len()];
            if bands > 0 && lens.iter().all(|&l| l != bands) {
                problems.push(src.problem(
                    None,
                    format!("weapon.{name}"),
                    "hit_max or pistol_dice needs one entry per range band",
                ));
            }
            if w.range_ft.windows(2).any(|p| p[0] >= p[1]) {
                problems.push(src.problem(
                    None,
                    format!("weapon.{name}.range_ft"),
                    "band edges must rise",
                ));
            }
        }
        for (action, phase) in &data.turn.action_phase {
            if !data.turn.phases.contains(phase) {
                problems.push(src.problem(
                    None,
                    format!("turn.action_phase.{action}"),
                    format!("`{phase}` is not one of turn.phases"),
                ));
            }
        }
        for (troops, formations) in &data.movement.dice {
            if formations.values().any(|&n| n == 0) {
                problems.push(src.problem(
                    None,
                    format!("move.dice.{troops}"),
                    "a move needs at least one die",
                ));
            }
        }
        if !problems.is_empty() {
            return Err(src.error(problems));
        }
        Ok(data)
    }

    /// Band edges of a weapon in table inches.
    pub fn band_edges_in(&self, w: &WeaponData) -> Vec<f64> {
        w.range_ft
            .iter()
            .map(|ft| ft * self.scale.table_in_per_foot)
            .collect()
    }

    /// Number of d6 a unit rolls to move (before terrain halving), with the
    /// one die less for a unit without its leader.
    pub fn move_dice(&self, troops: &str, formation: &str, has_leader: bool) -> Option<u32> {
        let by_formation = self.movement.dice.get(troops)?;
        let n = by_formation
            .get(formation)
            .or_else(|| by_formation.get("mass"))
            .or_else(|| by_formation.get("any"))?;
        Some(if has_leader {
            *n
        } else {
            n.saturating_sub(self.movement.no_leader_dice_less)
        })
    }

    /// Does rough ground halve these troops' moves?
    pub fn terrain_halves(&self, troops: &str) -> bool {
        !self
            .movement
            .no_terrain_penalty
            .troops
            .iter()
            .any(|t| t == troops)
    }

    /// The army morale result for a d10 face.
    pub fn morale_result(&self, nationality: &str, face: u32) -> Option<MoraleResult> {
        let line = self
            .morale
            .table
            .iter()
            .find(|l| l.nationality == nationality)?;
        Some(if face >= line.holds_min {
            MoraleResult::Holds
        } else if face >= line.routs_min {
            MoraleResult::Routs
        } else {
            MoraleResult::Disaster
        })
    }

    /// The firing groups of `firers` figures: (figures in the group, half
    /// effect). Full groups of `group` figures; a remainder of more than the
    /// half-effect limit fires at full effect, a smaller one at half.
    pub fn fire_groups(&self, firers: u32, cavalry: bool) -> Vec<(u32, bool)> {
        let (group, half_max) = if cavalry {
            (self.fire.cavalry_group, self.fire.cavalry_half_effect_max)
        } else {
            (self.fire.infantry_group, self.fire.infantry_half_effect_max)
        };
        let group = group.max(1);
        let mut out = vec![(group, false); (firers / group) as usize];
        let rest = firers % group;
        if rest > 0 {
            out.push((rest, rest <= half_max));
        }
        out
    }
}

/// Army morale results.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum MoraleResult {
    Holds,
    Routs,
    /// Annihilated (Sudanese) or surrender (Dervish).
    Disaster,
}

/// Halves, rounding up (the text rounds every fraction up).
pub fn half_up(n: u32) -> u32 {
    n.div_ceil(2)
}

/// What one firing die does to the target.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct DieHits {
    pub hits: u32,
    /// Of those, on key figures (dervish riflemen, gunners) in a mixed group.
    pub key_hits: u32,
    /// Gardner gun jammed: no hits, falls back.
    pub jammed: bool,
}

/// The situation of one firing die.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct FireDie {
    /// Highest face that hits.
    pub hit_max: u32,
    /// Figures in the group (hits never exceed them).
    pub firers: u32,
    pub half_effect: bool,
    /// Target in cover, or firers shaken, or a gun with two gunners or fewer.
    pub cover: bool,
    /// The target is a mixed group holding key figures.
    pub mixed_key_target: bool,
    pub gun: bool,
}

/// Hits of one d20 face.
pub fn die_hits(data: &VolleyFire, die: &FireDie, face: u32) -> DieHits {
    if die.gun && face >= data.fire.gun_jam_face {
        return DieHits {
            hits: 0,
            key_hits: 0,
            jammed: true,
        };
    }
    let mut hits = if face <= die.hit_max { face } else { 0 };
    if die.half_effect {
        hits = half_up(hits);
    }
    if die.cover {
        hits = half_up(hits);
    }
    hits = hits.min(die.firers.max(1));
    let key_hits = if die.mixed_key_target && face <= data.fire.key_figure_faces_max {
        hits
    } else {
        0
    };
    DieHits {
        hits,
        key_hits,
        jammed: false,
    }
}

/// Exact odds of a unit's fire.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct FireOdds {
    /// Entry `h`: P(h men down in the target).
    pub hits: Vec<f64>,
    pub p_any_hit: f64,
    pub mean_hits: f64,
    /// P(a key-figure hit) in a mixed target.
    pub p_key_hit: f64,
    /// P(the gun jams).
    pub p_jam: f64,
    /// P(the unit's leader is among the casualties).
    pub p_leader_hit: f64,
    /// A commander in the zone of fire: killed, minor wound.
    pub p_commander_killed: f64,
    pub p_commander_wounded: f64,
}

/// Distribution of hits over every group's d20 (exact, by convolution).
pub fn fire_odds(data: &VolleyFire, dice: &[FireDie]) -> FireOdds {
    let mut hits = vec![1.0];
    let mut p_no_key = 1.0;
    let mut p_no_jam = 1.0;
    let d20 = 20_u32;
    for die in dice {
        let mut one = vec![0.0; 21];
        let (mut key, mut jam) = (0.0, 0.0);
        for face in 1..=d20 {
            let h = die_hits(data, die, face);
            one[h.hits as usize] += 1.0 / f64::from(d20);
            if h.key_hits > 0 {
                key += 1.0 / f64::from(d20);
            }
            if h.jammed {
                jam += 1.0 / f64::from(d20);
            }
        }
        hits = convolve(&hits, &one);
        p_no_key *= 1.0 - key;
        p_no_jam *= 1.0 - jam;
    }
    while hits.len() > 1 && hits.last() == Some(&0.0) {
        hits.pop();
    }
    let p_any_hit = 1.0 - hits.first().copied().unwrap_or(1.0);
    let face_p = |faces: u32| f64::from(faces) / f64::from(d20);
    FireOdds {
        mean_hits: crate::core::odds::mean(&hits),
        p_any_hit,
        hits,
        p_key_hit: 1.0 - p_no_key,
        p_jam: 1.0 - p_no_jam,
        p_leader_hit: p_any_hit * face_p(d20 + 1 - data.fire.leader_hit_face),
        p_commander_killed: face_p(d20 + 1 - data.fire.commander_killed_face),
        p_commander_wounded: face_p(
            data.fire.commander_killed_face - data.fire.commander_wounded_face,
        ),
    }
}

/// Distribution of a move in inches: `dice` d6, halved (up) in rough ground.
pub fn move_distribution(dice: u32, halved: bool, divisor: u32) -> Vec<f64> {
    let d = sum_distribution(dice as usize, 6);
    if !halved {
        return d;
    }
    let divisor = divisor.max(1) as usize;
    let mut out = vec![0.0; d.len().div_ceil(divisor) + 1];
    for (t, p) in d.iter().enumerate() {
        out[t.div_ceil(divisor)] += p;
    }
    out
}

/// One figure's side of a melee pairing.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Default)]
pub struct MeleeFighter {
    pub add: i32,
    pub win_ties: bool,
}

/// Exact odds of one pairing.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct PairOdds {
    /// Settled in the first roll-off (ties that neither wins are fought again).
    pub p_a_wins: f64,
    pub p_b_wins: f64,
    pub p_tie: f64,
    /// Given a decision (ties refought): A wins.
    pub p_a_wins_eventually: f64,
    /// The loser is a casualty (1 on his die, 1-2 hit from the rear).
    pub p_a_casualty: f64,
    pub p_b_casualty: f64,
}

/// Who wins one roll-off: Some(true) = A.
pub fn pair_winner(a: MeleeFighter, b: MeleeFighter, fa: u32, fb: u32) -> Option<bool> {
    let (ta, tb) = (fa as i32 + a.add, fb as i32 + b.add);
    if ta != tb {
        return Some(ta > tb);
    }
    match (a.win_ties, b.win_ties) {
        (true, false) => Some(true),
        (false, true) => Some(false),
        _ => None,
    }
}

/// Exact odds of a pairing (two d6); `b_from_rear`: A hit B from the rear.
pub fn pair_odds(
    data: &VolleyFire,
    a: MeleeFighter,
    b: MeleeFighter,
    b_from_rear: bool,
) -> PairOdds {
    let (mut aw, mut bw, mut tie, mut ac, mut bc) = (0.0_f64, 0.0_f64, 0.0_f64, 0.0_f64, 0.0_f64);
    let b_cas = if b_from_rear {
        data.melee.rear_casualty_max
    } else {
        data.melee.casualty_max
    };
    for fa in 1..=6_u32 {
        for fb in 1..=6_u32 {
            let p = 1.0 / 36.0;
            match pair_winner(a, b, fa, fb) {
                Some(true) => {
                    aw += p;
                    if fb <= b_cas {
                        bc += p;
                    }
                }
                Some(false) => {
                    bw += p;
                    if fa <= data.melee.casualty_max {
                        ac += p;
                    }
                }
                None => tie += p,
            }
        }
    }
    let decided = (1.0 - tie).max(f64::MIN_POSITIVE);
    PairOdds {
        p_a_wins: aw,
        p_b_wins: bw,
        p_tie: tie,
        p_a_wins_eventually: aw / decided,
        p_a_casualty: ac / decided,
        p_b_casualty: bc / decided,
    }
}

/// Double time: extra inches (sum) and heat-stroke casualties (the low die
/// for Sudanese, the high die for British; none on doubles).
pub fn double_time(faces: [u32; 2], british: bool) -> (u32, u32) {
    let extra = faces[0] + faces[1];
    if faces[0] == faces[1] {
        return (extra, 0);
    }
    let casualties = if british {
        faces[0].max(faces[1])
    } else {
        faces[0].min(faces[1])
    };
    (extra, casualties)
}
