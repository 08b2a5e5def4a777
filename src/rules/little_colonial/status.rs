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

use crate::core::FigureId;
use crate::rules::Status;
use crate::rules::common::StatusReader;

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
    /// Every result, as the scenarios name them.
    pub const ALL: [Self; 3] = [Self::Torso, Self::Leg, Self::Light];

    /// The name the scenarios use.
    pub fn name(self) -> &'static str {
        match self {
            Self::Torso => "torso",
            Self::Leg => "leg",
            Self::Light => "light",
        }
    }

    /// Seriously wounded (torso or leg): cannot move by himself.
    pub fn serious(self) -> bool {
        matches!(self, Self::Torso | Self::Leg)
    }
}

/// Where a man stands above the ground, for the optional line of sight.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Perch {
    /// "Man on roof of house" (12 ft).
    Roof,
    /// "Man in church steeple" (24 ft).
    Steeple,
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
    /// Seriously wounded and gathered behind the lines: he may fire, with
    /// doubled ranges, and may not move.
    pub gathered: bool,
    /// On a roof or in a steeple (the optional line of sight's heights).
    pub perch: Option<Perch>,
    /// A figure in no unit: the optional delay of the reinforcements'
    /// morale benefit he waits out (a unit's men wait out the unit's).
    pub morale_delay: Option<MoraleDelay>,
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
        gathered: false,
        perch: None,
        morale_delay: None,
    };

    /// Reads a scenario figure's `status` table.
    pub fn from_raw(raw: &Status) -> Result<Self, String> {
        let mut r = StatusReader::new(RULE_SET, "figure", raw);
        let d = Self::DEFAULT;
        let s = Self {
            level: r
                .choice("level", &Level::ALL.map(|l| (l.name(), l)))?
                .unwrap_or(d.level),
            command: r.choice("command", &CommandRank::ALL.map(|c| (c.name(), c)))?,
            leads: r
                .text("leads", "the name of the unit he leads")?
                .map(str::to_owned),
            cavalry: r.flag("cavalry")?.unwrap_or(d.cavalry),
            arrives: r.number("arrives")?,
            crew: r
                .text("crew", "the name of the gun he serves")?
                .map(str::to_owned),
            gunner: r.flag("gunner")?.unwrap_or(d.gunner),
            rallied_at: r.number("rallied-at")?,
            wound: r.choice("wound", &WoundKind::ALL.map(|w| (w.name(), w)))?,
            entry_in: entry_point(&mut r)?,
            gathered: r.flag("gathered")?.unwrap_or(d.gathered),
            perch: r.choice(
                "perch",
                &[("roof", Perch::Roof), ("steeple", Perch::Steeple)],
            )?,
            ..d
        };
        r.finish()?;
        Ok(s)
    }
}

impl Default for FigureStatus {
    fn default() -> Self {
        Self::DEFAULT
    }
}

/// The optional rule "restricting how and when the benefits of
/// reinforcements are applied": a unit (or a figure in none) whose
/// demoralised levels the reinforcements' chits restored stays demoralised,
/// counted as when `held_at` morale piles were empty, until the benefit
/// reaches it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "until", rename_all = "kebab-case")]
pub enum MoraleDelay {
    /// Seen from the edge of blocking terrain, or reached in loose
    /// formation: the benefit "at the beginning of the NEXT player turn",
    /// turn `turn`.
    Turn { turn: u32, held_at: usize },
    /// Unseen (deep within blocking terrain): the benefit waits until one of
    /// the reinforcements `by` makes base to base contact.
    Contact { held_at: usize, by: Vec<FigureId> },
}

impl MoraleDelay {
    /// The empty piles its men still count on turn `turn` (None: the
    /// benefit has reached them).
    pub fn held_at(&self, turn: u32) -> Option<usize> {
        match self {
            Self::Turn { turn: t, held_at } => (turn < *t).then_some(*held_at),
            Self::Contact { held_at, .. } => Some(*held_at),
        }
    }
}

/// What Little Colonial Rules records about one unit.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct UnitStatus {
    /// The optional delay of the reinforcements' morale benefit its men
    /// wait out (set in play, never by the scenario).
    pub morale_delay: Option<MoraleDelay>,
}

impl UnitStatus {
    /// A unit keeps nothing a scenario sets: every key is unknown.
    pub fn from_raw(raw: &Status) -> Result<Self, String> {
        StatusReader::new(RULE_SET, "unit", raw)
            .hint("put a figure's values in the unit's `status`, which each of its figures gets")
            .finish()?;
        Ok(Self::default())
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
    /// How many individual soldier cards the side gets (None: the data's
    /// house default, `deck.soldier_cards`).
    pub soldier_cards: Option<u32>,
    /// The side has made its one challenge of the other side's wounded
    /// policy.
    pub challenged: bool,
    /// Agrees to the optional line of sight by heights (in play when every
    /// side does).
    pub sight_heights: bool,
    /// Agrees to the optional delay of the reinforcements' morale benefit
    /// by line of sight (in play when every side does).
    pub reinforcement_sight: bool,
}

impl SideStatus {
    /// A side with nothing recorded yet.
    pub const DEFAULT: Self = Self {
        chits: None,
        wounded: None,
        soldier_cards: None,
        challenged: false,
        sight_heights: false,
        reinforcement_sight: false,
    };

    /// Reads a scenario side's `status` table.
    pub fn from_raw(raw: &Status) -> Result<Self, String> {
        let mut r = StatusReader::new(RULE_SET, "side", raw);
        let s = Self {
            chits: morale_piles(&mut r)?,
            wounded: r.choice(
                "wounded",
                &[
                    ("compassionate", WoundedPolicy::Compassionate),
                    ("ruthless", WoundedPolicy::Ruthless),
                ],
            )?,
            soldier_cards: r.number("soldier-cards")?,
            challenged: false,
            sight_heights: r.flag("sight-heights")?.unwrap_or(false),
            reinforcement_sight: r.flag("reinforcement-sight")?.unwrap_or(false),
        };
        r.finish()?;
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
    /// The order card in play (`<figure>#<k>`, or a side's individual
    /// soldier card `soldier:<side>#<k>`).
    pub card: Option<String>,
    /// The last attempt to give aid to a wounded man (a `drag`): the
    /// other side may challenge while its card is in play.
    pub aid: Option<AidAttempt>,
}

/// A side gave aid to its wounded on this card of this turn.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct AidAttempt {
    pub side: usize,
    pub turn: u32,
    pub card: String,
}

/// The rule set's name in scenario errors.
const RULE_SET: &str = "Little Colonial Rules";

/// `chits`: the five morale piles, raw first.
fn morale_piles(r: &mut StatusReader<'_>) -> Result<Option<Vec<u32>>, String> {
    const WANT: &str = "the five morale piles, raw first, e.g. \"5,5,5,5,5\"";
    match r.list::<u32>("chits", WANT)? {
        Some(piles) if piles.len() != Level::ALL.len() => Err(r.bad("chits", WANT)),
        piles => Ok(piles),
    }
}

/// `entry-in`: a point `x, y` in table inches.
fn entry_point(r: &mut StatusReader<'_>) -> Result<Option<[f64; 2]>, String> {
    const WANT: &str = "\"x, y\" in table inches";
    match r.list::<f64>("entry-in", WANT)?.as_deref() {
        None => Ok(None),
        Some([x, y]) if x.is_finite() && y.is_finite() => Ok(Some([*x, *y])),
        Some(_) => Err(r.bad("entry-in", WANT)),
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

    #[test]
    fn the_reinforcements_delay_holds_until_its_turn_or_their_contact() {
        let side = SideStatus::from_raw(&raw(&[("reinforcement-sight", "true")])).expect("reads");
        assert!(side.reinforcement_sight);
        let unsaid = SideStatus::from_raw(&raw(&[])).expect("reads");
        assert!(!unsaid.reinforcement_sight, "off unless agreed");
        let next = MoraleDelay::Turn {
            turn: 3,
            held_at: 1,
        };
        assert_eq!(next.held_at(2), Some(1), "still held on turn 2");
        assert_eq!(next.held_at(3), None, "the benefit at the start of turn 3");
        let contact = MoraleDelay::Contact {
            held_at: 2,
            by: vec![FigureId(4)],
        };
        assert_eq!(contact.held_at(99), Some(2), "until the contact, any turn");
        let e = UnitStatus::from_raw(&raw(&[("morale-delay", "x")])).expect_err("set in play");
        assert!(e.contains("morale-delay"), "{e}");
    }
}
