//! The state that Little Colonial Rules keeps about each figure, unit and side and about
//! the game, as Rust types (no string maps). The scenario file's `status`
//! tables are read into these once, when the scenario is loaded, and a key
//! or value the rule set does not know is a scenario error naming it.
//!
//! # Conventions
//! Scenario keys are kebab-case (`rallied-at`); points are table inches.
//! A figure with no typed state reads as [`FigureStatus::DEFAULT`] (a
//! regular soldier, on the table, who has not acted).

use serde::{Deserialize, Serialize};

use crate::rules::Status;

/// A troop level, lowest first: the five morale piles in this order.
#[derive(
    Debug, Clone, Copy, Default, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize,
)]
#[serde(rename_all = "kebab-case")]
pub enum Level {
    Raw,
    #[default]
    Regular,
    Seasoned,
    Veteran,
    Elite,
}

impl Level {
    /// Every level, lowest first.
    pub const ALL: [Self; 5] = [
        Self::Raw,
        Self::Regular,
        Self::Seasoned,
        Self::Veteran,
        Self::Elite,
    ];

    /// The name the data file and the scenarios use.
    pub fn name(self) -> &'static str {
        match self {
            Self::Raw => "raw",
            Self::Regular => "regular",
            Self::Seasoned => "seasoned",
            Self::Veteran => "veteran",
            Self::Elite => "elite",
        }
    }

    /// Its morale pile (0 = the first, raw).
    pub fn index(self) -> usize {
        self as usize
    }
}

/// The command a leader holds: his command radius and his seniority.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum CommandRank {
    Nco,
    Leader,
    PlatoonOfficer,
    CompanyCommander,
    Chieftain,
    FieldOfficer,
}

impl CommandRank {
    /// Every command, as the data file's `command_radius_cm` names them.
    pub const ALL: [Self; 6] = [
        Self::Nco,
        Self::Leader,
        Self::PlatoonOfficer,
        Self::CompanyCommander,
        Self::Chieftain,
        Self::FieldOfficer,
    ];

    /// The name the data file and the scenarios use.
    pub fn name(self) -> &'static str {
        match self {
            Self::Nco => "nco",
            Self::Leader => "leader",
            Self::PlatoonOfficer => "platoon-officer",
            Self::CompanyCommander => "company-commander",
            Self::Chieftain => "chieftain",
            Self::FieldOfficer => "field-officer",
        }
    }

    /// An NCO or a tribal leader: he activates his own unit only.
    pub fn is_nco(self) -> bool {
        matches!(self, Self::Nco | Self::Leader)
    }
}

/// The optional wounded rule's result for a figure that was hit.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum WoundKind {
    /// A 4: seriously wounded, dragged by one man at four times the cost.
    Torso,
    /// A 5: seriously wounded, cannot walk without help (three times).
    Leg,
    /// A 6: acts as before, paying double movement.
    Light,
}

impl WoundKind {
    /// Seriously wounded (torso or leg): cannot move by himself.
    pub fn serious(self) -> bool {
        matches!(self, Self::Torso | Self::Leg)
    }
}

/// How a side wrote down it treats its seriously wounded.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum WoundedPolicy {
    Compassionate,
    Ruthless,
}

/// The card a figure last acted on.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Acted {
    pub turn: u32,
    pub card: String,
}

/// What Little Colonial Rules records about one figure.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct FigureStatus {
    pub level: Level,
    /// Officers, NCOs and leaders: the command they hold.
    pub command: Option<CommandRank>,
    /// NCOs and leaders: the unit they lead (else the unit they are in).
    pub leads: Option<String>,
    /// Cavalry (mounted or not): ordered by cavalry cards only.
    pub cavalry: bool,
    /// A reinforcement: the turn he comes on (None: on the table).
    pub arrives: Option<u32>,
    /// The gun (its figure's name) he serves.
    pub crew: Option<String>,
    /// A trained artilleryman.
    pub gunner: bool,
    /// Rallied when this many morale piles were empty: he routs again when
    /// the next one runs out.
    pub rallied_at: Option<usize>,
    /// The card he last acted on.
    pub acted: Option<Acted>,
    /// The optional wounded rule's result.
    pub wound: Option<WoundKind>,
    /// His entry or starting point (table inches): where demoralised troops
    /// fall back to. Set to where he starts when the scenario does not say.
    pub entry_in: Option<[f64; 2]>,
    /// Demoralised and blocked from his entry point: he surrendered.
    pub surrendered: bool,
}

impl FigureStatus {
    /// A regular soldier on the table who has not acted.
    pub const DEFAULT: Self = Self {
        level: Level::Regular,
        command: None,
        leads: None,
        cavalry: false,
        arrives: None,
        crew: None,
        gunner: false,
        rallied_at: None,
        acted: None,
        wound: None,
        entry_in: None,
        surrendered: false,
    };

    /// The keys a scenario's figure `status` may hold.
    pub const KEYS: &[&str] = &[
        "level",
        "command",
        "leads",
        "cavalry",
        "arrives",
        "crew",
        "gunner",
        "rallied-at",
        "wound",
        "entry-in",
    ];

    /// Reads a scenario figure's `status` table.
    pub fn from_raw(raw: &Status) -> Result<Self, String> {
        let mut s = Self::DEFAULT;
        for (key, value) in raw {
            match key.as_str() {
                "level" => s.level = word(key, value)?,
                "command" => s.command = Some(word(key, value)?),
                "leads" => s.leads = Some(value.clone()),
                "cavalry" => s.cavalry = flag(key, value)?,
                "arrives" => s.arrives = Some(number(key, value)?),
                "crew" => s.crew = Some(value.clone()),
                "gunner" => s.gunner = flag(key, value)?,
                "rallied-at" => s.rallied_at = Some(number(key, value)?),
                "wound" => s.wound = Some(word(key, value)?),
                "entry-in" => s.entry_in = Some(point(key, value)?),
                _ => return Err(unknown_key(key, Self::KEYS)),
            }
        }
        Ok(s)
    }
}

impl Default for FigureStatus {
    fn default() -> Self {
        Self::DEFAULT
    }
}

/// What Little Colonial Rules records about one unit.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct UnitStatus {}

impl UnitStatus {
    /// A unit keeps nothing of its own: every key is unknown.
    pub fn from_raw(raw: &Status) -> Result<Self, String> {
        match raw.keys().next() {
            Some(key) => Err(format!(
                "unknown key `{key}`: Little Colonial Rules keeps no unit status (put figure values in the unit's `status`)"
            )),
            None => Ok(Self {}),
        }
    }
}

/// What Little Colonial Rules records about one side.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct SideStatus {
    /// The five morale piles, raw first (None: worked out from the men on
    /// the table when the game is prepared).
    pub chits: Option<Vec<u32>>,
    /// How the side treats its seriously wounded (the optional wounded
    /// rule is in play when both sides wrote it down).
    pub wounded: Option<WoundedPolicy>,
}

impl SideStatus {
    /// The keys a scenario's side `status` may hold.
    pub const KEYS: &[&str] = &["chits", "wounded"];

    /// Reads a scenario side's `status` table.
    pub fn from_raw(raw: &Status) -> Result<Self, String> {
        let mut s = Self::default();
        for (key, value) in raw {
            match key.as_str() {
                "chits" => s.chits = Some(piles(key, value)?),
                "wounded" => s.wounded = Some(word(key, value)?),
                _ => return Err(unknown_key(key, Self::KEYS)),
            }
        }
        Ok(s)
    }

    /// The piles (empty when not worked out yet).
    pub fn piles(&self) -> &[u32] {
        self.chits.as_deref().unwrap_or(&[])
    }

    /// How many piles, from the first, are exhausted.
    pub fn empty_piles(&self) -> usize {
        self.piles().iter().take_while(|p| **p == 0).count()
    }
}

/// What Little Colonial Rules records about the whole game.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct GameStatus {
    /// The order card in play (`<figure>#<k>`).
    pub card: Option<String>,
}

fn unknown_key(key: &str, known: &[&str]) -> String {
    format!(
        "unknown key `{key}`; the known keys are {}",
        known.join(", ")
    )
}

/// A kebab-case word read as its enum.
fn word<T: serde::de::DeserializeOwned>(key: &str, value: &str) -> Result<T, String> {
    serde_json::from_value(serde_json::Value::String(value.trim().to_owned()))
        .map_err(|e| format!("`{key} = \"{value}\"` cannot be read: {e}"))
}

fn flag(key: &str, value: &str) -> Result<bool, String> {
    match value.trim() {
        "true" | "yes" => Ok(true),
        "false" | "no" => Ok(false),
        _ => Err(format!("`{key} = \"{value}\"`: write true or false")),
    }
}

fn number<T: std::str::FromStr>(key: &str, value: &str) -> Result<T, String> {
    value
        .trim()
        .parse()
        .map_err(|_| format!("`{key} = \"{value}\"`: write a whole number"))
}

fn piles(key: &str, value: &str) -> Result<Vec<u32>, String> {
    let piles: Vec<u32> = value
        .split(',')
        .map(|x| number(key, x))
        .collect::<Result<_, _>>()?;
    if piles.len() == Level::ALL.len() {
        Ok(piles)
    } else {
        Err(format!(
            "`{key} = \"{value}\"`: write the five morale piles, raw first, e.g. \"5,5,5,5,5\""
        ))
    }
}

fn point(key: &str, value: &str) -> Result<[f64; 2], String> {
    let xy: Vec<f64> = value
        .split(',')
        .map(|x| x.trim().parse::<f64>())
        .collect::<Result<_, _>>()
        .map_err(|_| format!("`{key} = \"{value}\"`: write \"x, y\" in table inches"))?;
    match xy.as_slice() {
        [x, y] if x.is_finite() && y.is_finite() => Ok([*x, *y]),
        _ => Err(format!(
            "`{key} = \"{value}\"`: write \"x, y\" in table inches"
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    use crate::rules::common::raw_status as raw;

    #[test]
    fn a_figure_reads_its_typed_values() {
        let s = FigureStatus::from_raw(&raw(&[
            ("level", "veteran"),
            ("command", "platoon-officer"),
            ("cavalry", "true"),
            ("arrives", "3"),
        ]))
        .expect("reads");
        assert_eq!(s.level, Level::Veteran);
        assert_eq!(s.command, Some(CommandRank::PlatoonOfficer));
        assert!(s.cavalry);
        assert_eq!(s.arrives, Some(3));
    }

    #[test]
    fn an_unknown_key_or_value_names_it_and_the_known_keys() {
        let e = FigureStatus::from_raw(&raw(&[("levle", "raw")])).expect_err("unknown");
        assert!(e.contains("levle") && e.contains("rallied-at"), "{e}");
        let e = FigureStatus::from_raw(&raw(&[("level", "green")])).expect_err("bad");
        assert!(e.contains("level") && e.contains("green"), "{e}");
        let e = SideStatus::from_raw(&raw(&[("chits", "1,2")])).expect_err("bad");
        assert!(e.contains("five"), "{e}");
        assert_eq!(
            SideStatus::from_raw(&raw(&[("chits", "0, 3,3,3,3")]))
                .expect("reads")
                .empty_piles(),
            1
        );
    }
}
