//! The Stand To! data file: raw serde types and the checks that turn them
//! into [`StandTo`].
//!
//! # Conventions
//! Distances are rule inches (25 mm figures). Hit numbers are two-dice
//! totals needed; save numbers are the coloured die at or under which the
//! shot is saved.

use std::path::Path;

use serde::{Deserialize, Serialize};
use toml::Spanned;

use crate::geometry::RangeMethod;
use crate::rules::SideKind;
use crate::spec::{SourceFile, SpecError, SpecProblem};

/// The built-in data file (the copy shipped in `scenarios/rules/`).
pub const BUILTIN_TOML: &str = include_str!("../../../scenarios/rules/stand-to.toml");
/// Where the built-in data file lives in the repository.
pub const BUILTIN_PATH: &str = "scenarios/rules/stand-to.toml";

/// Field name -> where a house value comes from (one type for every rule
/// set's data file).
pub use crate::rules::common::House;

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ScaleData {
    pub inches_per_scale_yard: f64,
    pub scale_54mm_factor: f64,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct MeasureData {
    pub fire: RangeMethod,
    pub melee: RangeMethod,
    pub orders: RangeMethod,
    pub spotting: RangeMethod,
    pub cover_reach_in: f64,
    #[serde(default)]
    pub house: House,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TurnData {
    pub phases: Vec<String>,
    pub first_side: SideKind,
    /// "All of the following actions can be accomplished in a single
    /// turn": the actions (by name) that each take the man's turn, so that
    /// he does only one of them a turn, and none after firing. The list is
    /// lost from our copy: a house list of what the engine times.
    pub single_turn: Vec<String>,
    /// "The following actions take no time at all. Where applicable, they
    /// can be combined with any other actions and with movement up to
    /// doubletiming": a house list as `single_turn`.
    pub no_time: Vec<String>,
    #[serde(default)]
    pub house: House,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ExperienceLevel {
    pub name: String,
    pub numbers: Vec<u8>,
    #[serde(default)]
    pub side: Option<SideKind>,
    pub edge: String,
    pub firing: i32,
    pub melee: i32,
    pub spotting_needed: u32,
    pub ignores_close_miss: bool,
    #[serde(default)]
    pub light_wounds_ignored: bool,
    /// Always charges the closest enemy he sees, and once charging reacts
    /// to nothing else (the fanatic).
    #[serde(default)]
    pub charges_closest_enemy: bool,
    #[serde(default)]
    pub house: House,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ExperienceData {
    pub dice: usize,
    pub green_penalty: u8,
    pub advance_if_roll_above_number: bool,
    pub max_number: u8,
    pub level: Vec<ExperienceLevel>,
}

/// Which ranges a weapon uses when snapshooting.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum SnapRanges {
    /// The revolver's ranges ("all rifles use the ranges listed for revolvers").
    Revolver,
    /// Its own ranges.
    Own,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct WeaponData {
    pub name: String,
    #[serde(default)]
    pub gun: bool,
    pub range_in: [f64; 3],
    pub hit_dismounted: [u32; 3],
    pub hit_mounted: [u32; 3],
    pub aimed_load_turns: u32,
    #[serde(default)]
    pub rapid_aimed_load_turns: Option<u32>,
    pub snapshots_per_turn: u32,
    pub snap_ranges: SnapRanges,
    pub snap_range_factor: f64,
    pub notes: Vec<u8>,
    #[serde(default)]
    pub crew: Option<u32>,
    #[serde(default)]
    pub artillery_save: Option<u32>,
    #[serde(default)]
    pub ammo: Option<u32>,
    #[serde(default)]
    pub house: House,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FireData {
    pub dice_white: usize,
    pub dice_coloured: usize,
    pub aiming_bonus: u32,
    pub note1_doubles_light: bool,
    pub note2_hits_melee_partner: bool,
    /// Enemies this close to the nearest one count as one group for target
    /// priority (one of them is chosen at random), rule inches.
    pub target_group_in: f64,
    /// The radius of the area about a location a soldier aims at, rule
    /// inches ("A soldier can also aim at a location").
    pub covered_area_in: f64,
    #[serde(default)]
    pub house: House,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SaveData {
    pub charging: u32,
    pub stationary: u32,
    pub walking: u32,
    pub doubletime: u32,
    pub evading: u32,
    pub crawling: u32,
    pub mounted_walk: u32,
    pub mounted_trot: u32,
    pub mounted_canter: u32,
    pub mounted_gallop: u32,
    pub prone: u32,
    pub soft_cover: u32,
    pub hard_cover: u32,
    pub leader_bonus: u32,
    pub leader_always_saves_on: u32,
    pub max_save: u32,
    #[serde(default)]
    pub house: House,
}

/// The result of a hit by the unmodified white dice.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Wound {
    Light,
    Serious,
    Killed,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DamageTable {
    pub doubles: Wound,
    pub odd: Wound,
    pub even: Wound,
}

impl DamageTable {
    /// The wound for an unmodified roll of two dice.
    pub fn wound(&self, a: u32, b: u32) -> Wound {
        if a == b {
            self.doubles
        } else if (a + b) % 2 == 1 {
            self.odd
        } else {
            self.even
        }
    }
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct WoundRules {
    pub light_plus_light: Wound,
    pub serious_plus_any: Wound,
    pub light_ability_penalty: i32,
    #[serde(default)]
    pub house: House,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DamageData {
    pub men: DamageTable,
    pub mounts: DamageTable,
    pub wounds: WoundRules,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct MountedHitData {
    pub rider_max: u32,
    #[serde(default)]
    pub house: House,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct MeleeData {
    pub engagement_in: f64,
    pub dice: usize,
    pub wound_margin: i32,
    pub never_wound: Vec<u32>,
    pub always_wound: Vec<u32>,
    pub charging: i32,
    pub shield: i32,
    pub mounted_vs_foot: i32,
    pub prone: i32,
    #[serde(default)]
    pub house: House,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct MeleeWeaponData {
    pub name: String,
    pub modifier: i32,
    #[serde(default)]
    pub house: Option<String>,
}

/// Movement rates of one kind of troops, rule inches per turn.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Rates {
    pub crawl: f64,
    pub walk: f64,
    pub doubletime: f64,
    pub charge: f64,
    pub evade: f64,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct MovementData {
    pub rough_loss_european: f64,
    pub rough_loss_native: f64,
    pub european_charge_turns: u32,
    pub european: Rates,
    pub native: Rates,
    #[serde(default)]
    pub house: House,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct MountSpeedData {
    pub name: String,
    pub min_in: f64,
    pub max_in: f64,
    #[serde(default)]
    pub house: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct MountData {
    pub up_levels: u32,
    pub down_levels: u32,
    pub gallop_turn_after_in: f64,
    pub gallop_turn_deg: f64,
    pub speed: Vec<MountSpeedData>,
    /// Dismounting: one horseholder holds this many mounts.
    pub mounts_per_horseholder: u32,
    /// Turns spent tying the reins to a tree.
    pub tie_tree_turns: u32,
    /// Turns spent driving a peg and tying the reins to it.
    pub peg_turns: u32,
    /// How close a horseholder stands to the mount he holds, rule inches.
    pub horseholder_reach_in: f64,
    #[serde(default)]
    pub house: House,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct OrdersData {
    pub shout_in: f64,
    pub hand_signal_in: f64,
    pub musician_delay_turns: u32,
    pub orders_per_turn: u32,
    pub givers: Vec<String>,
    /// The orders a hand signal can carry (shouted orders are free text).
    pub hand_signals: Vec<String>,
    /// The only signals a scout can give.
    pub scout_signals: Vec<String>,
    /// Does a fanatic who has started charging take orders?
    pub fanatic_charging_takes_orders: bool,
    /// The calls a musician can sound.
    pub call: Vec<CallData>,
    #[serde(default)]
    pub house: House,
}

/// A trumpet, bugle or drum call.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CallData {
    pub name: String,
    /// Native musicians may sound it (the text's asterisk).
    pub native: bool,
    #[serde(default)]
    pub house: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RescueRow {
    pub rolls: Vec<u32>,
    pub result: String,
    #[serde(default)]
    pub house: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct NoviceLeaderData {
    pub dice: usize,
    pub needed: u32,
    pub becomes: u8,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ReactionsData {
    pub rescue: Vec<RescueRow>,
    pub novice_leader: NoviceLeaderData,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SpottingData {
    pub scout_radius_in: f64,
    pub dice: usize,
    pub target_in_cover: i32,
    pub scout_mounted: i32,
    #[serde(default)]
    pub house: House,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PreservationLimitRow {
    pub accepted_percent: u32,
    pub multiplier: f64,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PreservationData {
    pub light: u32,
    pub serious: u32,
    pub killed: u32,
    pub leader_extra: u32,
    pub shed_dice: usize,
    pub limit: Vec<PreservationLimitRow>,
    #[serde(default)]
    pub house: House,
    #[serde(default)]
    pub limit_house: House,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RecoveryData {
    pub dice: usize,
    pub bonus: u32,
    pub light_heals: u32,
    pub serious_heals: u32,
    pub serious_dies: u32,
    #[serde(default)]
    pub house: House,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ArtilleryData {
    pub cone_deg: f64,
    pub dice: usize,
    pub hit_european: u32,
    pub hit_native: u32,
    /// Men this close to the gun (edge to edge, rule inches) serve it.
    pub crew_reach_in: f64,
    /// Turns added to a gun's reload for each man short of its crew.
    pub turns_per_missing_crew: u32,
    #[serde(default)]
    pub house: House,
}

/// The whole file as parsed.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawStandTo {
    name: String,
    title: String,
    scale: ScaleData,
    measure: MeasureData,
    turn: TurnData,
    experience: ExperienceData,
    weapon: Vec<Spanned<WeaponData>>,
    fire: FireData,
    saves: SaveData,
    damage: DamageData,
    mounted_hit: MountedHitData,
    melee: MeleeData,
    melee_weapon: Vec<Spanned<MeleeWeaponData>>,
    movement: MovementData,
    mount: MountData,
    orders: OrdersData,
    reactions: ReactionsData,
    spotting: SpottingData,
    preservation: PreservationData,
    recovery: RecoveryData,
    artillery: ArtilleryData,
}

/// Stand To!, checked.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct StandTo {
    pub name: String,
    pub title: String,
    pub scale: ScaleData,
    pub measure: MeasureData,
    pub turn: TurnData,
    pub experience: ExperienceData,
    pub weapons: Vec<WeaponData>,
    pub fire: FireData,
    pub saves: SaveData,
    pub damage: DamageData,
    pub mounted_hit: MountedHitData,
    pub melee: MeleeData,
    pub melee_weapons: Vec<MeleeWeaponData>,
    pub movement: MovementData,
    pub mount: MountData,
    pub orders: OrdersData,
    pub reactions: ReactionsData,
    pub spotting: SpottingData,
    pub preservation: PreservationData,
    pub recovery: RecoveryData,
    pub artillery: ArtilleryData,
}

impl StandTo {
    /// The data shipped with Spotter.
    pub fn builtin() -> Result<Self, SpecError> {
        Self::from_source(&SourceFile::from_text(BUILTIN_PATH, BUILTIN_TOML))
    }

    /// Loads and checks a data file the player edited.
    pub fn load(path: &Path) -> Result<Self, SpecError> {
        Self::from_source(&SourceFile::read(path)?)
    }

    /// Parses and checks; reports every problem at once.
    pub fn from_source(src: &SourceFile) -> Result<Self, SpecError> {
        let raw: RawStandTo = src.parse_toml()?;
        let mut problems = Vec::new();
        check_house_keys(src, &raw, &mut problems);
        check_weapons(src, &raw, &mut problems);
        if !raw.weapon.iter().any(|w| w.get_ref().name == "revolver") {
            problems.push(src.problem(
                None,
                "weapon",
                "a weapon named `revolver` is needed: rifles snapshoot at revolver ranges",
            ));
        }
        for kind in [SideKind::European, SideKind::Native] {
            for n in 1..=raw.experience.max_number {
                let count = raw
                    .experience
                    .level
                    .iter()
                    .filter(|l| l.numbers.contains(&n) && l.side.is_none_or(|s| s == kind))
                    .count();
                if count != 1 {
                    problems.push(src.problem(
                        None,
                        "experience.level",
                        format!("experience number {n} must name exactly one level for {kind:?} figures (found {count})"),
                    ));
                }
            }
        }
        for (i, l) in raw.experience.level.iter().enumerate() {
            if !crate::vision::EdgeColour::ALL
                .iter()
                .any(|e| e.name() == l.edge)
            {
                problems.push(src.problem(
                    None,
                    format!("experience.level[{i}].edge"),
                    format!(
                        "`{}` is not a base edge colour (green, white, blue or red)",
                        l.edge
                    ),
                ));
            }
        }
        let mut names: Vec<&str> = raw.orders.call.iter().map(|c| c.name.as_str()).collect();
        names.extend(raw.orders.hand_signals.iter().map(String::as_str));
        names.extend(raw.orders.scout_signals.iter().map(String::as_str));
        for n in &names {
            if n.trim().is_empty() || n.chars().any(char::is_whitespace) {
                problems.push(src.problem(
                    None,
                    "orders",
                    format!("`{n}`: signal and call names are single words joined by -"),
                ));
            }
        }
        if raw.mount.speed.is_empty() {
            problems.push(src.problem(None, "mount.speed", "at least one speed is needed"));
        }
        check_numbers(src, &raw, &mut problems);
        check_timed_actions(src, &raw.turn, &mut problems);
        if !problems.is_empty() {
            return Err(src.error(problems));
        }
        Ok(Self {
            name: raw.name,
            title: raw.title,
            scale: raw.scale,
            measure: raw.measure,
            turn: raw.turn,
            experience: raw.experience,
            weapons: raw.weapon.into_iter().map(Spanned::into_inner).collect(),
            fire: raw.fire,
            saves: raw.saves,
            damage: raw.damage,
            mounted_hit: raw.mounted_hit,
            melee: raw.melee,
            melee_weapons: raw
                .melee_weapon
                .into_iter()
                .map(Spanned::into_inner)
                .collect(),
            movement: raw.movement,
            mount: raw.mount,
            orders: raw.orders,
            reactions: raw.reactions,
            spotting: raw.spotting,
            preservation: raw.preservation,
            recovery: raw.recovery,
            artillery: raw.artillery,
        })
    }

    /// A weapon by name.
    pub fn weapon(&self, name: &str) -> Option<&WeaponData> {
        self.weapons.iter().find(|w| w.name == name)
    }

    /// A melee weapon category by name.
    pub fn melee_weapon(&self, name: &str) -> Option<&MeleeWeaponData> {
        self.melee_weapons.iter().find(|w| w.name == name)
    }

    /// The experience level of a number for a side.
    pub fn level(&self, number: u8, side: SideKind) -> Option<&ExperienceLevel> {
        let n = number.clamp(1, self.experience.max_number);
        self.experience
            .level
            .iter()
            .find(|l| l.numbers.contains(&n) && l.side.is_none_or(|s| s == side))
    }

    /// Every house value in the file: (field path, reason).
    pub fn house_values(&self) -> Vec<(String, String)> {
        let value = toml::Value::try_from(self).unwrap_or(toml::Value::Boolean(false));
        let mut out = Vec::new();
        collect_house(&value, "", &mut out);
        out
    }
}

/// Dice counts the arithmetic reads: the odds and the outcome of each roll
/// are worked out for exactly this many dice, so the file must say the same
/// (field, dice).
const FIXED_DICE: [(&str, usize); 8] = [
    ("fire.dice_white", 2),
    ("fire.dice_coloured", 1),
    ("melee.dice", 2),
    ("experience.dice", 1),
    ("recovery.dice", 1),
    ("artillery.dice", 2),
    ("spotting.dice", 2),
    ("reactions.novice_leader.dice", 2),
];
/// Most dice a roll whose total is read as it comes may use.
const MAX_SHED_DICE: usize = 6;

/// Numbers the serde types cannot bound: every float finite, every length
/// (`*_in`) zero or more, dice counts the ones the arithmetic reads, mount
/// speeds from a minimum up to a maximum.
fn check_numbers(src: &SourceFile, raw: &RawStandTo, problems: &mut Vec<SpecProblem>) {
    let mut push = |field: String, message: String| {
        let line = src.line_of_key(&field);
        problems.push(SpecProblem {
            line,
            field,
            message,
        });
    };
    let counts = [
        raw.fire.dice_white,
        raw.fire.dice_coloured,
        raw.melee.dice,
        raw.experience.dice,
        raw.recovery.dice,
        raw.artillery.dice,
        raw.spotting.dice,
        raw.reactions.novice_leader.dice,
    ];
    for ((field, fixed), n) in FIXED_DICE.iter().zip(counts) {
        if n != *fixed {
            push(
                (*field).to_owned(),
                format!(
                    "{n} dice: Stand To! rolls {fixed} here (the odds and the results read {fixed}); set it to {fixed}"
                ),
            );
        }
    }
    if !(1..=MAX_SHED_DICE).contains(&raw.preservation.shed_dice) {
        push(
            "preservation.shed_dice".into(),
            format!("must be 1 to {MAX_SHED_DICE} dice"),
        );
    }
    for (i, s) in raw.mount.speed.iter().enumerate() {
        if s.min_in > s.max_in {
            push(
                format!("mount.speed[{i}].min_in"),
                format!(
                    "{} in is more than max_in {} in: a speed runs from its minimum up to its maximum",
                    s.min_in, s.max_in
                ),
            );
        }
    }
    if let Ok(value) = toml::Value::try_from(raw) {
        let mut bad = Vec::new();
        crate::spec::number_problems(&value, "", &mut bad);
        for (field, message) in bad {
            push(field, message);
        }
    }
}

fn collect_house(v: &toml::Value, path: &str, out: &mut Vec<(String, String)>) {
    match v {
        toml::Value::Table(t) => {
            for (k, child) in t {
                let p = if path.is_empty() {
                    k.clone()
                } else {
                    format!("{path}.{k}")
                };
                if k == "house" || k == "limit_house" {
                    match child {
                        toml::Value::String(s) => out.push((path.to_owned(), s.clone())),
                        toml::Value::Table(h) => {
                            for (field, reason) in h {
                                out.push((
                                    format!("{path}.{field}"),
                                    reason.as_str().unwrap_or_default().to_owned(),
                                ));
                            }
                        }
                        _ => {}
                    }
                } else {
                    collect_house(child, &p, out);
                }
            }
        }
        toml::Value::Array(a) => {
            for (i, child) in a.iter().enumerate() {
                collect_house(child, &format!("{path}[{i}]"), out);
            }
        }
        _ => {}
    }
}

/// The timed actions name Stand To!'s actions, each in one list only.
fn check_timed_actions(src: &SourceFile, turn: &TurnData, problems: &mut Vec<SpecProblem>) {
    let lists = [
        ("turn.single_turn", &turn.single_turn),
        ("turn.no_time", &turn.no_time),
    ];
    for (field, list) in lists {
        for name in list {
            if !super::action::NAMES.contains(&name.as_str()) {
                problems.push(src.problem(
                    None,
                    field,
                    format!("`{name}` is not a Stand To! action"),
                ));
            }
        }
    }
    for name in turn.single_turn.iter().filter(|n| turn.no_time.contains(n)) {
        problems.push(src.problem(
            None,
            "turn.no_time",
            format!("`{name}` cannot both take the turn and take no time"),
        ));
    }
}

/// Every key of a `house` table must name a field beside it, so that a typo
/// does not leave a value silently unmarked.
/// Each weapon's bands, hit numbers, notes, and a gun's crew, ammunition
/// and save.
fn check_weapons(src: &SourceFile, raw: &RawStandTo, problems: &mut Vec<SpecProblem>) {
    for (i, w) in raw.weapon.iter().enumerate() {
        let span = Some(w.span());
        let w = w.get_ref();
        let field = |f: &str| format!("weapon[{i}].{f}");
        if !w.range_in.windows(2).all(|p| p[0] < p[1]) || w.range_in[0] <= 0.0 {
            problems.push(src.problem(
                span.clone(),
                field("range_in"),
                "range bands must be positive and ascending",
            ));
        }
        for (name, hits) in [
            ("hit_dismounted", w.hit_dismounted),
            ("hit_mounted", w.hit_mounted),
        ] {
            if hits.iter().any(|&h| !(2..=13).contains(&h)) {
                problems.push(src.problem(
                    span.clone(),
                    field(name),
                    "hit numbers are two-dice totals, 2 to 13 (13 = cannot hit)",
                ));
            }
        }
        if w.notes.iter().any(|n| !(1..=2).contains(n)) {
            problems.push(src.problem(span.clone(), field("notes"), "notes are 1 or 2"));
        }
        if w.gun && (w.crew.is_none() || w.ammo.is_none()) {
            problems.push(src.problem(
                span.clone(),
                field("crew"),
                "a gun needs its crew and its ammunition (`crew`, `ammo`)",
            ));
        }
        if w.gun && w.artillery_save.is_none() {
            problems.push(src.problem(
                span.clone(),
                field("artillery_save"),
                "a gun needs the save each figure in its cone rolls",
            ));
        }
        if raw.weapon[..i].iter().any(|o| o.get_ref().name == w.name) {
            problems.push(src.problem(span, field("name"), "weapon named twice"));
        }
    }
}

fn check_house_keys(src: &SourceFile, raw: &RawStandTo, problems: &mut Vec<SpecProblem>) {
    let Ok(value) = toml::Value::try_from(raw) else {
        return;
    };
    fn walk(v: &toml::Value, path: &str, bad: &mut Vec<String>) {
        match v {
            toml::Value::Table(t) => {
                if let Some(toml::Value::Table(h)) = t.get("house") {
                    for key in h.keys() {
                        if !t.contains_key(key) {
                            bad.push(format!("{path}.house.{key}"));
                        }
                    }
                }
                if let Some(toml::Value::Table(h)) = t.get("limit_house") {
                    for key in h.keys() {
                        let in_rows = t
                            .get("limit")
                            .and_then(|l| l.as_array())
                            .and_then(|a| a.first())
                            .and_then(|r| r.as_table())
                            .is_some_and(|r| r.contains_key(key));
                        if !in_rows {
                            bad.push(format!("{path}.limit_house.{key}"));
                        }
                    }
                }
                for (k, child) in t {
                    let p = if path.is_empty() {
                        k.clone()
                    } else {
                        format!("{path}.{k}")
                    };
                    walk(child, &p, bad);
                }
            }
            toml::Value::Array(a) => {
                for (i, child) in a.iter().enumerate() {
                    walk(child, &format!("{path}[{i}]"), bad);
                }
            }
            _ => {}
        }
    }
    let mut bad = Vec::new();
    walk(&value, "", &mut bad);
    for field in bad {
        let key = field.rsplit('.').next().unwrap_or_default().to_owned();
        let line = src
            .text
            .lines()
            .position(|l| l.trim_start().starts_with(&format!("{key} =")))
            .map(|i| i + 1);
        problems.push(SpecProblem {
            line,
            field,
            message: "this house note names no field of its table".into(),
        });
    }
}
