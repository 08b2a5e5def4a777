//! The state that Soldiers in Time keeps about each figure, unit and side and about
//! the game, as Rust types (no string maps). The scenario file's `status`
//! tables are read into these once, when the scenario is loaded, and a key
//! or value the rule set does not know is a scenario error naming it.
//!
//! # Conventions
//! Table inches; turns count from 1. The scenario keys of a figure and of
//! a side are those [`FigureStatus::from_raw`] and [`SideStatus::from_raw`]
//! read (through [`StatusReader`]); Soldiers in Time keeps nothing about
//! units, and about the game as a whole only [`GameStatus`].

use nalgebra::Point2;
use serde::{Deserialize, Serialize};

use crate::core::FigureId;
use crate::rules::common::StatusReader;
use crate::rules::{Figure, GameState, Side, Status};

/// The five group orders of 5.2 and a lone figure's individual action.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Order {
    ForwardMarch,
    FormedCharge,
    VolleyFire,
    IndependentFire,
    FollowHim,
    /// A figure outside every leader's command range, on the out of
    /// command range chart (a house chart: our copy lost it).
    Individual,
}

impl Order {
    /// Every order, as data files and scripts name them.
    pub const ALL: [Self; 6] = [
        Self::ForwardMarch,
        Self::FormedCharge,
        Self::VolleyFire,
        Self::IndependentFire,
        Self::FollowHim,
        Self::Individual,
    ];

    /// The name in data files and scripts.
    pub fn name(self) -> &'static str {
        match self {
            Self::ForwardMarch => "forward-march",
            Self::FormedCharge => "formed-charge",
            Self::VolleyFire => "volley-fire",
            Self::IndependentFire => "independent-fire",
            Self::FollowHim => "follow-him",
            Self::Individual => "individual",
        }
    }

    /// The order called `name`.
    pub fn parse(name: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|o| o.name() == name)
    }

    /// Orders under which a figure moves.
    pub fn moves(self) -> bool {
        matches!(
            self,
            Self::ForwardMarch | Self::FormedCharge | Self::FollowHim | Self::Individual
        )
    }

    /// Orders under which a figure takes an aimed shot.
    pub fn fires_aimed(self) -> bool {
        matches!(
            self,
            Self::VolleyFire | Self::IndependentFire | Self::Individual
        )
    }
}

/// An order a figure is under this turn: which, whether its activation
/// card passed, and who gave it (None: his own individual action).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Ordered {
    pub order: Order,
    pub passed: bool,
    #[serde(default)]
    pub by: Option<FigureId>,
    /// A Follow Him order declared moving away from the enemy (5.2): the
    /// card is against the leader's number, and no man may close on the
    /// enemy under it.
    #[serde(default)]
    pub away: bool,
}

/// What a cannon is loaded with (the face-down marker).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Ammo {
    Ball,
    Grapeshot,
    /// A catapult's rock or a bolt thrower's bolt.
    Shot,
}

impl Ammo {
    pub fn name(self) -> &'static str {
        match self {
            Self::Ball => "ball",
            Self::Grapeshot => "grapeshot",
            Self::Shot => "shot",
        }
    }

    /// Every kind of shot.
    pub const ALL: [Self; 3] = [Self::Ball, Self::Grapeshot, Self::Shot];

    pub fn parse(s: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|a| a.name() == s)
    }
}

/// A horse's size for its impact (5.5).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum HorseSize {
    Small,
    Big,
}

/// A side's card colour (2, setup): its face cards are its own.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Colour {
    Red,
    #[default]
    Black,
}

/// What Soldiers in Time records about one figure.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct FigureStatus {
    /// Armour factor taken off damage.
    pub armour: u32,
    /// Carries the flag (10.3): steadies morale within 8 in, does not fight.
    pub flag: bool,
    /// Routed: will not melee or shoot; must rally next rally phase.
    pub routed: bool,
    /// Left the battle (failed to rally): why.
    pub removed: Option<String>,
    /// Charged this turn (+2 in melee, +4 to hit him, +4 on his own shots).
    pub charging: bool,
    /// Charges running up to `charged_turn`.
    pub charge_turns: u32,
    pub charged_turn: Option<u32>,
    /// May charge more than two turns running (Zulus, Vikings).
    pub tireless: bool,
    /// Moved `moved_in` inches in turn `moved_turn`.
    pub moved_in: f64,
    pub moved_turn: Option<u32>,
    /// The order he is under.
    pub order: Option<Ordered>,
    /// The turn he last rolled his reload d10 (once a turn).
    pub reload_turn: Option<u32>,
    /// A gun's marker.
    pub loaded_with: Option<Ammo>,
    pub grenades: u32,
    pub horse: Option<HorseSize>,
    /// The rider's horsemanship number (his experience when None).
    pub horsemanship: Option<u8>,
    /// 11: a hit within 2 in exposed him: no hidden +2 up to this turn.
    pub exposed_until: Option<u32>,
    /// 9: the experience of each man of a gun's crew ("assigned by the
    /// players"); the best of them is the gun's to-hit number.
    pub crew: Vec<u8>,
    /// 9: the damage his weapon (a gun) has taken against its hit points.
    pub weapon_damage: u32,
    /// 5.5: his activation check to leave a melee this turn, and whether
    /// it passed (once a turn; not a scenario key).
    pub leave_check: Option<LeaveCheck>,
    /// The turn he last fought a melee and whom he fought in it (5.5: a
    /// footman engaged by the rider's unit cannot dodge the horse; not a
    /// scenario key).
    pub fought_turn: Option<u32>,
    pub fought_with: Vec<FigureId>,
    /// The turn of his last shot and how many he fired in it (6.1: one a
    /// turn but for a weapon of several shots; not a scenario key).
    pub shots_turn: Option<u32>,
    pub shots_fired: u32,
    /// The turn he last tried to spot a hidden enemy (11; not a scenario
    /// key).
    pub spot_turn: Option<u32>,
}

/// A figure's check to leave a melee (5.5, "Leaving Melee").
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct LeaveCheck {
    pub turn: u32,
    pub passed: bool,
}

/// What Soldiers in Time assumes about a figure it has no state of.
pub static NO_FIGURE_STATUS: FigureStatus = FigureStatus {
    armour: 0,
    flag: false,
    routed: false,
    removed: None,
    charging: false,
    charge_turns: 0,
    charged_turn: None,
    tireless: false,
    moved_in: 0.0,
    moved_turn: None,
    order: None,
    reload_turn: None,
    loaded_with: None,
    grenades: 0,
    horse: None,
    horsemanship: None,
    exposed_until: None,
    crew: Vec::new(),
    weapon_damage: 0,
    leave_check: None,
    fought_turn: None,
    fought_with: Vec::new(),
    shots_turn: None,
    shots_fired: 0,
    spot_turn: None,
};

/// What Soldiers in Time records about one unit (nothing: it orders men).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct UnitStatus {}

/// What Soldiers in Time records about one side.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct SideStatus {
    pub colour: Colour,
    /// Its minefield squares by lower-left corner, table inches.
    pub mines: Vec<Point2<f64>>,
}

/// What Soldiers in Time records about the whole game.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct GameStatus {
    /// The side that goes first in the present phase (the card flip), and
    /// the turn and phase it was flipped for.
    pub first: Option<FirstSide>,
}

/// The card flip of a phase: who goes first.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct FirstSide {
    pub turn: u32,
    pub phase: usize,
    pub side: usize,
}

/// The rule set's name in scenario errors.
const RULE_SET: &str = "Soldiers in Time";

impl FigureStatus {
    /// Reads a figure's scenario `status` table; every key is checked.
    pub fn from_raw(raw: &Status) -> Result<Self, String> {
        let mut r = StatusReader::new(RULE_SET, "figure", raw);
        let s = Self {
            armour: r.number("armour")?.unwrap_or(0),
            flag: r.flag("flag")?.unwrap_or(false),
            routed: r.flag("routed")?.unwrap_or(false),
            removed: r
                .text("removed", "why he left the battle")?
                .map(str::to_owned),
            charging: r.flag("charging")?.unwrap_or(false),
            charge_turns: r.number("charge-turns")?.unwrap_or(0),
            charged_turn: r.number("charged-turn")?,
            tireless: r.flag("tireless")?.unwrap_or(false),
            moved_in: r
                .value("moved-in", "inches, 0 or more", |v| {
                    v.parse::<f64>().ok().filter(|v| v.is_finite() && *v >= 0.0)
                })?
                .unwrap_or(0.0),
            moved_turn: r.number("moved-turn")?,
            order: r
                .choice("order", &Order::ALL.map(|o| (o.name(), o)))?
                .map(|order| Ordered {
                    order,
                    passed: true,
                    by: None,
                    away: false,
                }),
            loaded_with: r.choice("loaded-with", &Ammo::ALL.map(|a| (a.name(), a)))?,
            grenades: r.number("grenades")?.unwrap_or(0),
            horse: r.choice(
                "horse",
                &[("small", HorseSize::Small), ("big", HorseSize::Big)],
            )?,
            horsemanship: r.number("horsemanship")?,
            exposed_until: r.number("exposed-until")?,
            crew: r
                .list("crew", "the crew's experience numbers, as 7,5,4")?
                .unwrap_or_default(),
            weapon_damage: r.number("weapon-damage")?.unwrap_or(0),
            ..Self::default()
        };
        r.finish()?;
        Ok(s)
    }
}

impl UnitStatus {
    /// A unit keeps nothing of its own (Soldiers in Time orders men, not
    /// units): every key is unknown.
    pub fn from_raw(raw: &Status) -> Result<Self, String> {
        StatusReader::new(RULE_SET, "unit", raw)
            .hint("it orders men, not units: put a figure's values in the unit's `status`, which each of its figures gets")
            .finish()?;
        Ok(Self {})
    }
}

impl SideStatus {
    /// Reads a side's scenario `status` table: `colour` (`red`, `black`),
    /// `mines` (`x,y;x,y`, the lower-left corners of its minefield squares).
    pub fn from_raw(raw: &Status) -> Result<Self, String> {
        let mut r = StatusReader::new(RULE_SET, "side", raw);
        let s = Self {
            colour: r
                .choice("colour", &[("red", Colour::Red), ("black", Colour::Black)])?
                .unwrap_or_default(),
            mines: r
                .value("mines", "square corners as x,y;x,y in inches", mines)?
                .unwrap_or_default(),
        };
        r.finish()?;
        Ok(s)
    }
}

/// Minefield squares `x,y;x,y` (`None`: not that shape).
fn mines(value: &str) -> Option<Vec<Point2<f64>>> {
    value
        .split(';')
        .filter(|xy| !xy.trim().is_empty())
        .map(|xy| {
            let (x, y) = xy.split_once(',')?;
            let n = |v: &str| v.trim().parse::<f64>().ok().filter(|v| v.is_finite());
            Some(Point2::new(n(x)?, n(y)?))
        })
        .collect()
}

/// A figure's Soldiers in Time state (the defaults when it has none).
pub fn of(f: &Figure) -> &FigureStatus {
    f.rules.soldiers_in_time().unwrap_or(&NO_FIGURE_STATUS)
}

/// A side's Soldiers in Time state (a black side without mines when none).
pub fn side_of(s: &Side) -> SideStatus {
    s.rules.soldiers_in_time().cloned().unwrap_or_default()
}

/// The game's Soldiers in Time state.
pub fn game_of(state: &GameState) -> GameStatus {
    state.rules.soldiers_in_time().cloned().unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    use crate::rules::common::raw_status as raw;

    #[test]
    fn a_figure_status_reads_into_its_fields() {
        let s = FigureStatus::from_raw(&raw(&[
            ("armour", "3"),
            ("order", "volley-fire"),
            ("loaded-with", "grapeshot"),
            ("horse", "big"),
        ]))
        .expect("reads");
        assert_eq!(s.armour, 3);
        assert_eq!(s.order.map(|o| o.order), Some(Order::VolleyFire));
        assert_eq!(s.loaded_with, Some(Ammo::Grapeshot));
        assert_eq!(s.horse, Some(HorseSize::Big));
    }

    #[test]
    fn an_unknown_key_or_bad_value_is_named() {
        let e = FigureStatus::from_raw(&raw(&[("armor", "3")])).unwrap_err();
        assert!(e.contains("`armor`") && e.contains("armour"), "{e}");
        let e = FigureStatus::from_raw(&raw(&[("armour", "heavy")])).unwrap_err();
        assert!(e.contains("`armour`") && e.contains("heavy"), "{e}");
        let e = SideStatus::from_raw(&raw(&[("colour", "green")])).unwrap_err();
        assert!(e.contains("red or black"), "{e}");
        let s = FigureStatus::from_raw(&raw(&[("routed", "yes"), ("flag", "false")])).unwrap();
        assert!(s.routed && !s.flag);
        let s = SideStatus::from_raw(&raw(&[("mines", "8,10; 11,10")])).expect("mines");
        assert_eq!(
            s.mines,
            vec![Point2::new(8.0, 10.0), Point2::new(11.0, 10.0)]
        );
    }
}
