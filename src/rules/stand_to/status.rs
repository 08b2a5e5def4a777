//! The state that Stand To! keeps about each figure, unit and side and about
//! the game, as Rust types (no string maps). The scenario file's `status`
//! tables are read into these once, when the scenario is loaded, and a key
//! or value the rule set does not know is a scenario error naming it.
//!
//! # Conventions
//! Turns are the game's turn numbers (both sides' turns of one round share
//! a number); a figure acts only in his own side's turn, so "done in turn
//! `t`" is "done this turn" while `state.turn == t`.

use serde::{Deserialize, Serialize};

use crate::core::FigureId;
use crate::rules::common::StatusReader;
use crate::rules::{Figure, FigureRules, GameState, ObstacleStage, Pace, SideRules, Status};

/// The rule set's name in scenario errors.
const RULE_SET: &str = "Stand To!";

/// What Stand To! records about one figure.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct FigureStatus {
    /// A fanatic who has started charging: the name of the enemy he
    /// charges. "Once he has started charging, the fanatic will not react to
    /// any other occurrence." Scenario key `charging`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub charging: Option<String>,
    /// The turn in which he last spent loading: loading takes the turn
    /// (once a turn, not after firing), and the aimed shot comes the turn
    /// after ("load on first turn, shoulder rifle and fire on second turn").
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub loaded_turn: Option<u32>,
    /// The turn in which he (a leader) last gave an order: "A leader can
    /// issue only one order per turn".
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub order_turn: Option<u32>,
    /// Orders he has given in `order_turn`.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub orders_in_turn: u32,
    /// The turn in which he charged to within an inch of an enemy: "A
    /// figure gets an immediate hand-to-hand attack when it charges to
    /// within one inch of an enemy figure". Cleared when he makes it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub charge_contact_turn: Option<u32>,
    /// A dismounted rider's mount: how it is held.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mount_held: Option<MountHeld>,
    /// How he moved in his side's turn `turn` (his movement save and melee
    /// bonus); stationary once his side's next turn begins. A scenario may
    /// start him moving (`pace = "charge"`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub moved: Option<MovedIn>,
    /// Lying down ("going prone").
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub prone: bool,
    /// Turns spent loading so far (a musket loads over several turns).
    #[serde(default, skip_serializing_if = "is_zero")]
    pub load_progress: u32,
    /// The figure he is aiming at.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub aiming_at: Option<FigureId>,
    /// The location he aims at ("A soldier can also aim at a location"),
    /// with the enemies who have appeared in it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub covering: Option<CoveredArea>,
    /// His side's turn from which the aiming bonus is ready: "a turn spent
    /// aiming without firing", so the turn after the one he aimed in.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub aim_ready_from: Option<u32>,
    /// Shots fired in his side's turn `turn`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub shots: Option<CountIn>,
    /// Turns of charging used (Europeans may charge only so many turns).
    #[serde(default, skip_serializing_if = "is_zero")]
    pub charge_turns_used: u32,
    /// Ducking after a close miss, or frozen: does nothing until this turn
    /// ends.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub idle_until_turn: Option<u32>,
    /// The order he is obeying.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub order: Option<String>,
    /// An order sounded by a musician, obeyed from his side's turn `.1`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pending_order: Option<(String, u32)>,
    /// Where he is in crossing an obstacle.
    #[serde(default, skip_serializing_if = "is_clear")]
    pub obstacle: ObstacleStage,
    /// Rounds left (guns).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ammo: Option<u32>,
}

/// The location a figure aims at: the area within the data's
/// `fire.covered_area_in` (rule inches) of `center_in` (table inches).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CoveredArea {
    pub center_in: nalgebra::Point2<f64>,
    /// His side's turn in which he took aim: he spends it aiming without
    /// firing.
    pub turn: u32,
    /// Enemies who appeared in it, each with the moment they appeared: he
    /// may fire at them "immediately", so in that phase of that turn.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub appeared: Vec<Appearance>,
}

/// An enemy appeared in a covered area at a moment of the game.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Appearance {
    pub target: FigureId,
    pub turn: u32,
    pub active_side: usize,
    pub phase: usize,
}

impl Appearance {
    /// Is this appearance now, in `state`'s turn, side and phase?
    pub fn is_now(&self, state: &GameState) -> bool {
        self.turn == state.turn
            && self.active_side == state.active_side
            && self.phase == state.phase
    }
}

/// A move made in the figure's side's turn `turn`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct MovedIn {
    pub turn: u32,
    pub pace: Pace,
    /// A charge that went through rough ground (no charging bonus).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub through_rough: bool,
}

/// A count of things done in the figure's side's turn `turn`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct CountIn {
    pub turn: u32,
    pub count: u32,
}

fn is_clear(o: &ObstacleStage) -> bool {
    *o == ObstacleStage::Clear
}

/// The figure's own side's turn ([`crate::core::TurnClock::side_turn`]):
/// whatever he did "this turn" was done in it, and lapses when his side's
/// next turn begins.
pub fn own_turn(state: &GameState, side: usize) -> u32 {
    state.clock().side_turn(side)
}

/// A figure's Stand To! state as of now: the counters and paces of "this
/// turn" read against his side's turn.
#[derive(Debug, Clone, Copy)]
pub struct Now<'a> {
    pub status: &'a FigureStatus,
    /// His side's turn ([`own_turn`]).
    pub own_turn: u32,
}

impl std::ops::Deref for Now<'_> {
    type Target = FigureStatus;
    fn deref(&self) -> &FigureStatus {
        self.status
    }
}

impl Now<'_> {
    /// How he moved this turn (stationary when he has not).
    pub fn pace(&self) -> Pace {
        self.moved
            .filter(|m| m.turn == self.own_turn)
            .map_or(Pace::Stationary, |m| m.pace)
    }

    /// He charged through rough ground this turn.
    pub fn charged_through_rough(&self) -> bool {
        self.moved
            .is_some_and(|m| m.turn == self.own_turn && m.pace == Pace::Charge && m.through_rough)
    }

    /// Shots he has fired this turn.
    pub fn shots_this_turn(&self) -> u32 {
        self.shots
            .filter(|c| c.turn == self.own_turn)
            .map_or(0, |c| c.count)
    }

    /// His aiming bonus is ready (he aimed in an earlier turn and has
    /// neither moved nor fired since).
    pub fn aim_ready(&self) -> bool {
        self.aiming_at.is_some() && self.aim_ready_from.is_some_and(|t| t <= self.own_turn)
    }

    /// He is aiming: his aim at a man is ready, or he covers a location
    /// ("Men whose attention is fully occupied (i.e., they are shooting,
    /// aiming, ...)"; "Figures which ... are aiming ignore this reaction").
    pub fn aiming(&self) -> bool {
        self.aim_ready() || self.covering.is_some()
    }

    /// The order he obeys now (a musician's order once it is due).
    pub fn order(&self) -> Option<&str> {
        match &self.pending_order {
            Some((o, from)) if *from <= self.own_turn => Some(o),
            _ => self.order.as_deref(),
        }
    }
}

/// The empty status (of a figure the scenario gave none).
static EMPTY: FigureStatus = FigureStatus::EMPTY;

impl FigureStatus {
    /// Nothing recorded.
    pub const EMPTY: FigureStatus = FigureStatus {
        charging: None,
        loaded_turn: None,
        order_turn: None,
        orders_in_turn: 0,
        charge_contact_turn: None,
        mount_held: None,
        moved: None,
        prone: false,
        load_progress: 0,
        aiming_at: None,
        covering: None,
        aim_ready_from: None,
        shots: None,
        charge_turns_used: 0,
        idle_until_turn: None,
        order: None,
        pending_order: None,
        obstacle: ObstacleStage::Clear,
        ammo: None,
    };

    /// A move in his side's turn `own_turn`: a move that is not standing
    /// still spoils his aim.
    pub fn on_moved(&mut self, own_turn: u32, pace: Pace, through_rough: bool) {
        self.moved = Some(MovedIn {
            turn: own_turn,
            pace,
            through_rough,
        });
        if pace != Pace::Stationary {
            self.aim_ready_from = None;
            self.aiming_at = None;
            self.covering = None;
        }
    }

    /// A shot in his side's turn `own_turn`: the round, the aim and his
    /// concealment are spent.
    pub fn on_shot(&mut self, own_turn: u32) {
        let before = Now {
            status: self,
            own_turn,
        }
        .shots_this_turn();
        self.shots = Some(CountIn {
            turn: own_turn,
            count: before + 1,
        });
        self.load_progress = 0;
        self.aim_ready_from = None;
        self.aiming_at = None;
        self.covering = None;
        if let Some(a) = self.ammo.as_mut() {
            *a = a.saturating_sub(1);
        }
    }

    /// An order: obeyed at once, or from turn `from` when it is sounded by
    /// a musician for later. An order that came due before it is settled
    /// first, so that the newest order is the one obeyed.
    pub fn on_order(&mut self, own_turn: u32, order: &str, from: u32) {
        if let Some((due, at)) = self.pending_order.take() {
            if at <= own_turn {
                self.order = Some(due);
            } else {
                self.pending_order = Some((due, at));
            }
        }
        if from <= own_turn {
            self.order = Some(order.to_owned());
        } else {
            self.pending_order = Some((order.to_owned(), from));
        }
    }
}

/// A figure's Stand To! status (the empty one when the scenario gave him
/// none).
pub fn st(f: &Figure) -> &FigureStatus {
    f.rules.stand_to().unwrap_or(&EMPTY)
}

/// A figure's Stand To! status as of now in `state`.
pub fn now<'a>(state: &GameState, f: &'a Figure) -> Now<'a> {
    Now {
        status: st(f),
        own_turn: own_turn(state, f.side),
    }
}

fn is_zero(n: &u32) -> bool {
    *n == 0
}

/// How a dismounted rider's mount is kept: "Dismounted riders must either
/// allocate one horseholder for every four mounts or spend one turn tying
/// the reins to a tree, or spend four turns driving a peg and tying the
/// reins to it."
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "by", rename_all = "kebab-case")]
pub enum MountHeld {
    /// A horseholder (a figure of his side, by name) holds it.
    Horseholder { holder: String },
    /// Tied to a tree: done the turn he dismounts.
    Tree,
    /// A peg is being driven: `turns_left` more turns of work.
    Peg { turns_left: u32 },
}

/// What Stand To! records about one unit (nothing: one figure is one man).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct UnitStatus {}

/// What Stand To! records about one side.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct SideStatus {
    /// Green units "just arrived from the home country or hastily-raised
    /// militia": their experience rolls lose a point. The referee's
    /// `green_sides` (scenario key `green = "true"`).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub green: bool,
    /// The turn in which the side last shed preservation points ("Each turn
    /// spent this way allows the force to shed 1d6").
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub shed_turn: Option<u32>,
    /// Preservation points lost so far (its casualties, by the text's
    /// count).
    #[serde(default, skip_serializing_if = "is_zero")]
    pub preservation_points: u32,
    /// Its preservation points reached its limit: its morale is broken.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub broken: bool,
    /// The novice leader's first-attack reaction has been rolled.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub first_attack_rolled: bool,
}

/// What Stand To! records about the whole game (nothing yet).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct GameStatus {}

/// Reads a figure's scenario `status` table: only `charging` (the enemy a
/// charging fanatic charges) is known.
pub fn figure_status(raw: &Status) -> Result<FigureRules, String> {
    let mut r = StatusReader::new(RULE_SET, "figure", raw);
    let s = FigureStatus {
        charging: r
            .text("charging", "the name of the enemy the fanatic charges")?
            .map(str::to_owned),
        ..FigureStatus::default()
    };
    r.finish()?;
    Ok(if s == FigureStatus::default() {
        FigureRules::None
    } else {
        FigureRules::StandTo(s)
    })
}

/// Reads a side's scenario `status` table: only `green` (a flag) is known;
/// the referee's `green_sides` arrive as it.
pub fn side_status(raw: &Status) -> Result<SideRules, String> {
    let mut r = StatusReader::new(RULE_SET, "side", raw);
    let s = SideStatus {
        green: r.flag("green")?.unwrap_or(false),
        ..SideStatus::default()
    };
    r.finish()?;
    Ok(if s == SideStatus::default() {
        SideRules::None
    } else {
        SideRules::StandTo(s)
    })
}

/// Orders the figure has given in turn `turn`.
pub fn orders_in(f: &crate::rules::Figure, turn: u32) -> u32 {
    f.rules
        .stand_to()
        .filter(|s| s.order_turn == Some(turn))
        .map_or(0, |s| s.orders_in_turn)
}

/// The empty side status (of a side the scenario gave none).
static EMPTY_SIDE: SideStatus = SideStatus {
    green: false,
    shed_turn: None,
    preservation_points: 0,
    broken: false,
    first_attack_rolled: false,
};

/// A side's Stand To! status, borrowed.
pub fn side_st(s: &crate::rules::Side) -> &SideStatus {
    s.rules.stand_to().unwrap_or(&EMPTY_SIDE)
}

#[cfg(test)]
mod tests {
    use super::*;

    use crate::rules::common::raw_status as raw;

    #[test]
    fn charging_and_green_are_read_and_unknown_keys_refused() {
        let f = figure_status(&raw(&[("charging", "Pte Carter")])).unwrap();
        assert_eq!(
            f.stand_to().and_then(|s| s.charging.as_deref()),
            Some("Pte Carter")
        );
        assert_eq!(figure_status(&raw(&[])).unwrap(), FigureRules::None);
        assert!(figure_status(&raw(&[("armour", "3")])).is_err());
        let s = side_status(&raw(&[("green", "true")])).unwrap();
        assert!(s.stand_to().is_some_and(|s| s.green));
        // Every flag takes true/false/yes/no alike.
        let s = side_status(&raw(&[("green", "yes")])).unwrap();
        assert!(s.stand_to().is_some_and(|s| s.green));
        assert!(side_status(&raw(&[("green", "maybe")])).is_err());
        assert!(side_status(&raw(&[("chits", "3")])).is_err());
    }
}
