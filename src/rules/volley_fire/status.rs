//! The state that Volley Fire! keeps about each figure, unit and side and about
//! the game, as Rust types (no string maps). The scenario file's `status`
//! tables are read into these once, when the scenario is loaded, and a key
//! or value the rule set does not know is a scenario error naming it.
//!
//! # Conventions
//! Scenario keys and values are kebab-case words; flags are `true`,
//! `false`, `yes` or `no` (read by [`StatusReader`]). A [`TurnClock`] stamp says in which turn, side's turn and
//! phase something happened (a unit acted, a man fell).

use serde::{Deserialize, Serialize};

use super::{MoraleResult, VolleyFire};
use crate::core::TurnClock;
use crate::rules::Status;
use crate::rules::common::{StatusReader, one_of};

/// The troop types of the movement table (its rows).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Troops {
    Sudanese,
    BritishCavalry,
    BritishGuns,
    DervishFoot,
    DervishHorse,
    MountedLeaders,
}

impl Troops {
    /// Every troop type, in the table's order.
    pub const ALL: [Self; 6] = [
        Self::Sudanese,
        Self::BritishCavalry,
        Self::BritishGuns,
        Self::DervishFoot,
        Self::DervishHorse,
        Self::MountedLeaders,
    ];

    /// The row name in the data file (`move.dice.<name>`).
    pub fn name(self) -> &'static str {
        match self {
            Self::Sudanese => "sudanese",
            Self::BritishCavalry => "british-cavalry",
            Self::BritishGuns => "british-guns",
            Self::DervishFoot => "dervish-foot",
            Self::DervishHorse => "dervish-horse",
            Self::MountedLeaders => "mounted-leaders",
        }
    }

    /// The troop type called `name`.
    pub fn parse(name: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|t| t.name() == name)
    }

    /// Dervish groups (a leader within 24 in, no formations).
    pub fn dervish(self) -> bool {
        matches!(self, Self::DervishFoot | Self::DervishHorse)
    }

    /// The melee modifier row these troops fight on when the unit names
    /// none: "British Gunners" for the gun crews; the Sudanese and British
    /// cavalry rows go by formation (`<troops>/<formation>`).
    pub fn default_melee_row(self) -> Option<&'static str> {
        match self {
            Self::BritishGuns => Some("british-gunners"),
            Self::DervishHorse => Some("dervish-horse"),
            Self::MountedLeaders => Some("mounted-officer"),
            Self::Sudanese | Self::BritishCavalry | Self::DervishFoot => None,
        }
    }
}

/// The nationalities of the army morale table.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Nationality {
    Sudanese,
    Dervish,
}

impl Nationality {
    /// The row name in the data file (`morale.table.nationality`).
    pub fn name(self) -> &'static str {
        match self {
            Self::Sudanese => "sudanese",
            Self::Dervish => "dervish",
        }
    }
}

/// What Volley Fire! records about one figure.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct FigureStatus {
    /// A key figure (dervish rifleman, gunner) of a mixed group: the 1s and
    /// 2s of the firing die hit key figures first.
    #[serde(default)]
    pub key: bool,
    /// A force's commander: rolls a d20 when in a zone of fire.
    #[serde(default)]
    pub commander: bool,
    /// Down from heat stroke after double time.
    #[serde(default)]
    pub heat_stroke: bool,
    /// Fell to fire in this fire phase: he still fires in it (fire is
    /// simultaneous).
    #[serde(default)]
    pub fell_in_fire: Option<TurnClock>,
}

/// What Volley Fire! records about one unit.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct UnitStatus {
    /// The row of the movement table (and of the melee table unless
    /// `melee` names one). Always set for a unit read from a scenario.
    pub troops: Option<Troops>,
    /// The melee modifier row, a key of `melee.modifier` (Dervish foot:
    /// spearmen, riflemen, swordsmen).
    #[serde(default)]
    pub melee: Option<String>,
    /// The player's word on cover: `None` reads it from the table's terrain.
    #[serde(default)]
    pub cover: Option<bool>,
    /// Defending buildings, trenches, walls.
    #[serde(default)]
    pub works: bool,
    /// A gun crew: two hits mark one gunner.
    #[serde(default)]
    pub gun: bool,
    /// Lost a melee and has not regrouped.
    #[serde(default)]
    pub shaken: bool,
    /// The Gardner gun jammed and is being cleared this turn.
    #[serde(default)]
    pub jammed: bool,
    /// When the unit last took its action (one a phase).
    #[serde(default)]
    pub acted: Option<TurnClock>,
    /// The turn in which it last rolled to regroup.
    #[serde(default)]
    pub regroup_rolled: Option<u32>,
    /// The turn in which the gun last limbered or unlimbered.
    #[serde(default)]
    pub limbered_turn: Option<u32>,
    /// Won a melee in this melee phase and has not taken its bonus move
    /// (reform, reface, or one normal move).
    #[serde(default)]
    pub won_melee: Option<TurnClock>,
    /// The crew tried to destroy its gun: `Some(true)` destroyed (it never
    /// fires again), `Some(false)` the d6 was a 6 and it cannot.
    #[serde(default)]
    pub gun_destroyed: Option<bool>,
    /// The turn it last fired out of cover ("they will then be exposed").
    #[serde(default)]
    pub exposed_turn: Option<u32>,
    /// It halted outside a building to enter it the next turn.
    #[serde(default)]
    pub halted_to_enter: Option<HaltedOutside>,
    /// The turn a deployed gun moved its full three d6 (it does not fire
    /// that turn; one d6 and it may).
    #[serde(default)]
    pub gun_moved_full: Option<u32>,
}

/// "To enter, must spend one turn halted outside": where and when.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct HaltedOutside {
    /// The building's terrain area name.
    pub building: String,
    /// The turn it halted (it enters in the next).
    pub turn: u32,
}

/// A gun standing on the table without its crew: "If a gun crew loses a
/// melee they rout to their direct rear, disordered, the gun stays in
/// place. Guns that are abandoned, crewless, or captured can be manned by
/// infantry or Dervish foot".
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct GunPiece {
    /// The crew unit that lost it (an index into the units).
    pub crew: usize,
    /// Its weapon (a line of the firing table).
    pub weapon: String,
    /// Where it stands, table inches.
    pub at_in: nalgebra::Point2<f64>,
    /// Its facing, degrees counter-clockwise from +x.
    pub facing_deg: f64,
    /// The unit that mans it now.
    #[serde(default)]
    pub manned_by: Option<usize>,
}

/// What Volley Fire! records about one side.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct SideStatus {
    /// The army morale table's row.
    pub nationality: Option<Nationality>,
    /// The result of its last army morale test.
    #[serde(default)]
    pub morale: Option<MoraleResult>,
    /// The turn of its last army morale test.
    #[serde(default)]
    pub morale_turn: Option<u32>,
}

/// What Volley Fire! records about the whole game.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct GameStatus {
    /// The sides in the order they move this turn (high first-move die
    /// first); empty: the scenario's order.
    #[serde(default)]
    pub move_order: Vec<usize>,
    /// When the last melee was fought (a gun is destroyed "prior to any
    /// melee" of its phase).
    #[serde(default)]
    pub melee_at: Option<TurnClock>,
    /// Guns left on the table by their crews.
    #[serde(default)]
    pub guns: Vec<GunPiece>,
}

/// The rule set's name in scenario errors.
const RULE_SET: &str = "Volley Fire!";

impl FigureStatus {
    /// Reads a scenario figure's `status` table: `key`, `commander`.
    pub fn from_raw(raw: &Status) -> Result<Self, String> {
        let mut r = StatusReader::new(RULE_SET, "figure", raw);
        let s = Self {
            key: r.flag("key")?.unwrap_or(false),
            commander: r.flag("commander")?.unwrap_or(false),
            ..Self::default()
        };
        r.finish()?;
        Ok(s)
    }
}

impl UnitStatus {
    /// Reads a scenario unit's `unit_status` table; the melee row must be
    /// one of the data file's modifiers, and `troops` must be given.
    pub fn from_raw(raw: &Status, data: &VolleyFire) -> Result<Self, String> {
        let mut r = StatusReader::new(RULE_SET, "unit", raw);
        let troops = Troops::ALL.map(|t| (t.name(), t));
        let rows: Vec<&str> = data.melee.modifier.keys().map(String::as_str).collect();
        let s = Self {
            troops: r.choice("troops", &troops)?,
            melee: r.word("melee", &rows)?.map(str::to_owned),
            cover: r.flag("cover")?,
            works: r.flag("works")?.unwrap_or(false),
            gun: r.flag("gun")?.unwrap_or(false),
            shaken: r.flag("shaken")?.unwrap_or(false),
            ..Self::default()
        };
        r.finish()?;
        if s.troops.is_none() {
            return Err(format!(
                "a Volley Fire! unit needs `troops`: add it to the unit's status, one of {}",
                one_of(troops.iter().map(|t| t.0))
            ));
        }
        Ok(s)
    }
}

impl SideStatus {
    /// Reads a scenario side's `status` table: `nationality`, and the
    /// referee's `green` (a Stand To! rule: read, and nothing here).
    pub fn from_raw(raw: &Status) -> Result<Self, String> {
        let mut r = StatusReader::new(RULE_SET, "side", raw);
        let s = Self {
            nationality: r.choice(
                "nationality",
                &[
                    (Nationality::Sudanese.name(), Nationality::Sudanese),
                    (Nationality::Dervish.name(), Nationality::Dervish),
                ],
            )?,
            ..Self::default()
        };
        r.flag("green")?;
        r.finish()?;
        Ok(s)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    use crate::rules::common::raw_status as raw;

    #[test]
    fn a_unit_status_reads_its_keys_and_names_the_known_ones_otherwise() {
        let data = VolleyFire::builtin().unwrap();
        let u = UnitStatus::from_raw(
            &raw(&[
                ("troops", "dervish-foot"),
                ("melee", "dervish-riflemen"),
                ("cover", "true"),
            ]),
            &data,
        )
        .unwrap();
        assert_eq!(u.troops, Some(Troops::DervishFoot));
        assert_eq!(u.melee.as_deref(), Some("dervish-riflemen"));
        assert_eq!(u.cover, Some(true));
        let e = UnitStatus::from_raw(&raw(&[("troops", "british-gunners")]), &data).unwrap_err();
        assert!(e.contains("british-guns"), "{e}");
        let e = UnitStatus::from_raw(&raw(&[("troops", "sudanese"), ("armour", "1")]), &data)
            .unwrap_err();
        assert!(e.contains("armour") && e.contains("troops, melee"), "{e}");
        // Every flag takes true/false/yes/no alike.
        let u =
            UnitStatus::from_raw(&raw(&[("troops", "sudanese"), ("cover", "yes")]), &data).unwrap();
        assert_eq!(u.cover, Some(true));
        let e = UnitStatus::from_raw(&raw(&[("troops", "sudanese"), ("cover", "maybe")]), &data)
            .unwrap_err();
        assert!(e.contains("true, false, yes or no"), "{e}");
        let e = UnitStatus::from_raw(&raw(&[("melee", "dervish-spearmen")]), &data).unwrap_err();
        assert!(e.contains("needs `troops`"), "{e}");
    }

    #[test]
    fn figure_and_side_status_read_their_keys() {
        let f = FigureStatus::from_raw(&raw(&[("key", "true")])).unwrap();
        assert!(f.key && !f.commander);
        assert!(FigureStatus::from_raw(&raw(&[("ammo", "3")])).is_err());
        let s = SideStatus::from_raw(&raw(&[("nationality", "dervish")])).unwrap();
        assert_eq!(s.nationality, Some(Nationality::Dervish));
        let e = SideStatus::from_raw(&raw(&[("nationality", "zulu")])).unwrap_err();
        assert!(e.contains("sudanese or dervish"), "{e}");
    }
}
