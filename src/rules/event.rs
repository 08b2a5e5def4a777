//! Events: what happened, with every die and card that decided it. The game
//! log is the list of events; the state is their fold.

use nalgebra::Point2;
use serde::{Deserialize, Serialize};

use super::state::{FigureId, Pace};
use crate::core::Reading;
use crate::core::dice::DieRoll;
use crate::core::odds::NamedOdds;
use crate::geometry::TerrainKind;
use crate::rules::stand_to::Wound;

/// One thing that happened in a game.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "event", rename_all = "kebab-case")]
pub enum Event {
    /// Exact odds computed before a roll.
    Odds {
        purpose: String,
        odds: Vec<NamedOdds>,
    },
    /// Dice rolled (or typed in) for a purpose.
    Rolled {
        purpose: String,
        figure: Option<FigureId>,
        dice: Vec<DieRoll>,
    },
    /// A card drawn from a deck (card-driven rule sets).
    CardDrawn { deck: String, card: String },
    /// A measurement the rules used, in the rule set's unit (rule inches,
    /// or Little Colonial Rules' centimetres), with its uncertainty and
    /// whether that could flip the call. Logs from before the unit was
    /// recorded read as inches.
    Measured(Reading),
    /// Text for the player (a rule applied, a choice he must make).
    Note { text: String },
    /// The figure (or its mount) now has this wound.
    Wounded {
        figure: FigureId,
        wound: Wound,
        mount: bool,
    },
    /// The figure moved by the rules to `to_in` at `pace` (the rule set
    /// records what the pace means to it).
    Moved {
        figure: FigureId,
        to_in: Point2<f64>,
        facing_deg: f64,
        pace: Pace,
        distance_in: f64,
        through_rough: bool,
    },
    /// The camera saw the figure here (not a move by the rules: his pace
    /// and everything else stay). `sigma_in` is the position's 1-sigma
    /// uncertainty, table inches.
    Placed {
        figure: FigureId,
        to_in: Point2<f64>,
        facing_deg: f64,
        sigma_in: f64,
    },
    /// A rider's mount is now at speed `level` (index into the rule set's
    /// speeds).
    MountSpeed { figure: FigureId, level: u8 },
    /// The turn clock moved on.
    PhaseChanged {
        turn: u32,
        active_side: usize,
        phase: usize,
    },
    /// A drawn card is kept in hand (a reserved order card) instead of
    /// discarded.
    CardReserved { deck: String, card: String },
    /// A card held in hand is played (and discarded).
    CardPlayed { deck: String, card: String },
    /// Discards and held cards go back into the draw pile, with `added`
    /// cards (reinforcements) joining the deck.
    DeckShuffled {
        deck: String,
        #[serde(default)]
        added: Vec<String>,
    },
    /// A unit takes a new formation (and frontage: figures per rank).
    Formed {
        unit: usize,
        formation: String,
        frontage: u32,
    },
    /// The player said what a piece of terrain on the table is (one the
    /// camera sees, or any other): the area `name`, with its kinds and its
    /// outline (table inches), joins the game's terrain, replacing an area
    /// of that name. No kinds: the piece is not terrain at all (the rules
    /// read nothing from it).
    TerrainMarked {
        name: String,
        kinds: Vec<TerrainKind>,
        polygon_in: Vec<Point2<f64>>,
    },
    /// The terrain area `name` is taken off the table.
    TerrainCleared { name: String },
    /// A Soldiers in Time event.
    SoldiersInTime(SoldiersInTimeEvent),
    /// A Volley Fire! event.
    VolleyFire(VolleyFireEvent),
    /// A Stand To! event.
    StandTo(StandToEvent),
    /// A Little Colonial Rules event.
    LittleColonial(LittleColonialEvent),
}

/// Little Colonial Rules' own events.
pub use crate::rules::little_colonial::event::Event as LittleColonialEvent;
/// The events of one rule set that no other has (its own types, tagged
/// with the rule set's name).
pub use crate::rules::soldiers_in_time::event::Event as SoldiersInTimeEvent;
pub use crate::rules::stand_to::event::Event as StandToEvent;
/// Volley Fire!'s own events.
pub use crate::rules::volley_fire::event::Event as VolleyFireEvent;

impl Event {
    /// All dice in this event (empty for most).
    pub fn dice(&self) -> &[DieRoll] {
        match self {
            Self::Rolled { dice, .. } => dice,
            _ => &[],
        }
    }
}
