//! Game state: figures, sides, turn and phase. Only [`GameState::apply`]
//! changes it, one [`Event`] at a time.
//!
//! # Conventions
//! Positions are base centres in the table frame (table inches);
//! `facing_deg` counter-clockwise from +x. Turns count from 1.

use std::collections::BTreeMap;

use nalgebra::Point2;
use serde::{Deserialize, Serialize};

use super::event::Event;
use super::stand_to::Wound;
use crate::geometry::{Placement, Scale, TerrainArea};

pub use crate::core::FigureId;

/// European (British, U.S.) or native troops.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum SideKind {
    European,
    Native,
}

/// A figure's rank: who may give orders, sound calls, scout.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Rank {
    Officer,
    Nco,
    Chief,
    Private,
    Warrior,
    Musician,
    Scout,
}

impl Rank {
    /// The name used in data files.
    pub fn name(self) -> &'static str {
        match self {
            Self::Officer => "officer",
            Self::Nco => "nco",
            Self::Chief => "chief",
            Self::Private => "private",
            Self::Warrior => "warrior",
            Self::Musician => "musician",
            Self::Scout => "scout",
        }
    }
}

/// How a figure moved this turn (its movement save and melee bonus).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, Default)]
#[serde(rename_all = "kebab-case")]
pub enum Pace {
    #[default]
    Stationary,
    Crawl,
    Walk,
    Doubletime,
    Charge,
    Evade,
}

/// Where a figure is in crossing an obstacle (stop, cross, move away).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "kebab-case")]
pub enum ObstacleStage {
    #[default]
    Clear,
    /// Stopped at an obstacle this turn; crosses next turn.
    Reached { turn: u32 },
    /// Crossed this turn; moves away the turn after.
    Crossed { turn: u32 },
}

/// One figure (one man, or one man and his mount).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Figure {
    pub id: FigureId,
    pub name: String,
    pub rank: Rank,
    /// Index into [`GameState::sides`].
    pub side: usize,
    /// Leader of his group (gives orders, gets the leader's save bonus).
    pub leader: bool,
    /// Missile weapon name from the rule set's weapon table.
    pub weapon: String,
    /// Melee weapon category name.
    pub melee_weapon: String,
    pub shield: bool,
    /// Experience number (Stand To!: 1 novice .. 6 hero or fanatic).
    pub experience: u8,
    /// Base on the table.
    pub placement: Placement,
    /// Riding: the mount speed level (index into the rule set's speeds).
    pub mount_level: Option<u8>,
    pub mount_wound: Option<Wound>,
    pub wound: Option<Wound>,
    /// A round is loaded for an aimed shot.
    pub loaded: bool,
    /// Hidden from the enemy.
    pub concealed: bool,
    /// The rule set's own typed state of this figure.
    #[serde(default, skip_serializing_if = "FigureRules::is_none")]
    pub rules: FigureRules,
}

impl FigureRules {
    /// The figure moved at `pace` in his side's turn `own_turn`: the rule
    /// sets that keep a figure's pace record it (Stand To!'s movement save
    /// and melee bonus).
    pub fn on_moved(&mut self, own_turn: u32, pace: Pace, through_rough: bool) {
        if let Self::StandTo(s) = self {
            s.on_moved(own_turn, pace, through_rough);
        }
    }
}

/// Rule-set values by name (numbers and words kept as text, parsed by the
/// rule set that owns them).
pub type Status = BTreeMap<String, String>;

/// One closed enum over the four rule sets for each place a rule set keeps
/// state (a figure, a unit, a side, the game), holding that rule set's own
/// typed struct (`rules::<set>::status`). Serialised tagged with the rule
/// set's name; `None` when the rule set keeps nothing there.
macro_rules! rule_state {
    ($(#[$doc:meta])* $name:ident, $ty:ident) => {
        $(#[$doc])*
        #[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
        #[serde(tag = "rule_set", rename_all = "kebab-case")]
        pub enum $name {
            #[default]
            None,
            StandTo(crate::rules::stand_to::status::$ty),
            VolleyFire(crate::rules::volley_fire::status::$ty),
            SoldiersInTime(crate::rules::soldiers_in_time::status::$ty),
            LittleColonial(crate::rules::little_colonial::status::$ty),
        }

        impl $name {
            /// Nothing recorded (not serialised).
            pub fn is_none(&self) -> bool {
                matches!(self, Self::None)
            }

            /// Stand To!'s state, when it is the rule set's.
            pub fn stand_to(&self) -> Option<&crate::rules::stand_to::status::$ty> {
                match self {
                    Self::StandTo(s) => Some(s),
                    _ => None,
                }
            }

            /// Stand To!'s state, made (default) when missing.
            pub fn stand_to_mut(&mut self) -> &mut crate::rules::stand_to::status::$ty {
                if !matches!(self, Self::StandTo(_)) {
                    *self = Self::StandTo(Default::default());
                }
                match self {
                    Self::StandTo(s) => s,
                    _ => unreachable!("set just above"),
                }
            }

            /// Volley Fire!'s state, when it is the rule set's.
            pub fn volley_fire(&self) -> Option<&crate::rules::volley_fire::status::$ty> {
                match self {
                    Self::VolleyFire(s) => Some(s),
                    _ => None,
                }
            }

            /// Volley Fire!'s state, made (default) when missing.
            pub fn volley_fire_mut(&mut self) -> &mut crate::rules::volley_fire::status::$ty {
                if !matches!(self, Self::VolleyFire(_)) {
                    *self = Self::VolleyFire(Default::default());
                }
                match self {
                    Self::VolleyFire(s) => s,
                    _ => unreachable!("set just above"),
                }
            }

            /// Soldiers in Time's state, when it is the rule set's.
            pub fn soldiers_in_time(&self) -> Option<&crate::rules::soldiers_in_time::status::$ty> {
                match self {
                    Self::SoldiersInTime(s) => Some(s),
                    _ => None,
                }
            }

            /// Soldiers in Time's state, made (default) when missing.
            pub fn soldiers_in_time_mut(
                &mut self,
            ) -> &mut crate::rules::soldiers_in_time::status::$ty {
                if !matches!(self, Self::SoldiersInTime(_)) {
                    *self = Self::SoldiersInTime(Default::default());
                }
                match self {
                    Self::SoldiersInTime(s) => s,
                    _ => unreachable!("set just above"),
                }
            }

            /// Little Colonial Rules' state, when it is the rule set's.
            pub fn little_colonial(&self) -> Option<&crate::rules::little_colonial::status::$ty> {
                match self {
                    Self::LittleColonial(s) => Some(s),
                    _ => None,
                }
            }

            /// Little Colonial Rules' state, made (default) when missing.
            pub fn little_colonial_mut(
                &mut self,
            ) -> &mut crate::rules::little_colonial::status::$ty {
                if !matches!(self, Self::LittleColonial(_)) {
                    *self = Self::LittleColonial(Default::default());
                }
                match self {
                    Self::LittleColonial(s) => s,
                    _ => unreachable!("set just above"),
                }
            }
        }
    };
}

rule_state!(
    /// What the game's rule set records about one figure.
    FigureRules,
    FigureStatus
);
rule_state!(
    /// What the game's rule set records about one unit.
    UnitRules,
    UnitStatus
);
rule_state!(
    /// What the game's rule set records about one side.
    SideRules,
    SideStatus
);
rule_state!(
    /// What the game's rule set records about the whole game.
    GameRules,
    GameStatus
);

/// Units of figures that move and fire together (Volley Fire!'s sections and
/// masses, Little Colonial Rules' formations).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Unit {
    pub name: String,
    /// Index into [`GameState::sides`].
    pub side: usize,
    /// Its figures, front rank first, left to right seen from behind.
    pub figures: Vec<FigureId>,
    /// Formation name from the rule set (line, column, square, mass ...).
    pub formation: String,
    /// Figures per rank (0: all in one rank).
    pub frontage: u32,
    /// The rule set's own typed state of this unit.
    #[serde(default, skip_serializing_if = "UnitRules::is_none")]
    pub rules: UnitRules,
}

impl Unit {
    /// The rank (0 = front) of the unit's `k`-th figure.
    pub fn rank_of(&self, k: usize) -> usize {
        if self.frontage == 0 {
            0
        } else {
            k / self.frontage as usize
        }
    }
}

/// A deck of cards (an order deck, a side's playing cards). Cards are
/// drawn uniformly from `draw` (a shuffled deck), so the exact odds of a
/// draw are counts over `draw`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Deck {
    pub name: String,
    pub draw: Vec<String>,
    #[serde(default)]
    pub discard: Vec<String>,
    /// Drawn and kept in hand (reserved cards).
    #[serde(default)]
    pub held: Vec<String>,
}

impl Figure {
    /// Still on his feet in the fight (not killed, not seriously wounded).
    pub fn active(&self) -> bool {
        !matches!(self.wound, Some(Wound::Serious | Wound::Killed))
    }

    /// Alive at all.
    pub fn alive(&self) -> bool {
        self.wound != Some(Wound::Killed)
    }

    /// Riding a live mount.
    pub fn mounted(&self) -> bool {
        self.mount_level.is_some() && self.mount_wound != Some(Wound::Killed)
    }
}

/// One side of the game.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Side {
    pub name: String,
    pub kind: SideKind,
    /// The casualties the side accepts before its morale breaks, from the
    /// scenario (the rule set reads it; None: no limit set by the referee).
    pub preservation_limit: Option<u32>,
    /// The rule set's own typed state of this side.
    #[serde(default, skip_serializing_if = "SideRules::is_none")]
    pub rules: SideRules,
}

/// Table size, inches.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct TableSize {
    pub width_in: f64,
    pub depth_in: f64,
}

/// Everything about a game in progress.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct GameState {
    /// Name of the rule set in the registry.
    pub rule_set: String,
    pub scenario: String,
    pub scale: Scale,
    pub table: TableSize,
    pub terrain: Vec<TerrainArea>,
    pub sides: Vec<Side>,
    pub figures: Vec<Figure>,
    pub turn: u32,
    pub active_side: usize,
    /// Index into the rule set's phases.
    pub phase: usize,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub units: Vec<Unit>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub decks: Vec<Deck>,
    /// The rule set's own typed state of the game.
    #[serde(default, skip_serializing_if = "GameRules::is_none")]
    pub rules: GameRules,
}

impl GameState {
    /// Where the game is in its turns.
    pub fn clock(&self) -> crate::core::TurnClock {
        crate::core::TurnClock {
            turn: self.turn,
            active_side: self.active_side,
            phase: self.phase,
        }
    }

    /// A figure by id.
    pub fn figure(&self, id: FigureId) -> Option<&Figure> {
        self.figures.get(id.index())
    }

    /// A figure by name (exact, then case-insensitive).
    pub fn figure_named(&self, name: &str) -> Option<&Figure> {
        self.figures.iter().find(|f| f.name == name).or_else(|| {
            self.figures
                .iter()
                .find(|f| f.name.eq_ignore_ascii_case(name))
        })
    }

    fn fig_mut(&mut self, id: FigureId) -> Option<&mut Figure> {
        self.figures.get_mut(id.index())
    }

    /// A unit by name (exact, then case-insensitive), with its index.
    pub fn unit_named(&self, name: &str) -> Option<(usize, &Unit)> {
        let find = |exact: bool| {
            self.units.iter().enumerate().find(|(_, u)| {
                if exact {
                    u.name == name
                } else {
                    u.name.eq_ignore_ascii_case(name)
                }
            })
        };
        find(true).or_else(|| find(false))
    }

    /// A deck by name.
    pub fn deck(&self, name: &str) -> Option<&Deck> {
        self.decks.iter().find(|d| d.name == name)
    }

    fn deck_mut(&mut self, name: &str) -> Option<&mut Deck> {
        self.decks.iter_mut().find(|d| d.name == name)
    }

    /// Applies the events that are about cards, units and status values
    /// (the parts of the state that card-driven and unit rule sets use).
    fn apply_units_and_cards(&mut self, event: &Event) {
        match event {
            Event::CardDrawn { deck, card } => {
                if let Some(d) = self.deck_mut(deck)
                    && let Some(i) = d.draw.iter().position(|c| c == card)
                {
                    let c = d.draw.remove(i);
                    d.discard.push(c);
                }
            }
            Event::CardReserved { deck, card } => {
                if let Some(d) = self.deck_mut(deck)
                    && let Some(i) = d.discard.iter().rposition(|c| c == card)
                {
                    let c = d.discard.remove(i);
                    d.held.push(c);
                }
            }
            Event::CardPlayed { deck, card } => {
                if let Some(d) = self.deck_mut(deck)
                    && let Some(i) = d.held.iter().position(|c| c == card)
                {
                    let c = d.held.remove(i);
                    d.discard.push(c);
                }
            }
            Event::DeckShuffled { deck, added } => {
                if let Some(d) = self.deck_mut(deck) {
                    let mut back = std::mem::take(&mut d.discard);
                    back.append(&mut d.held);
                    d.draw.append(&mut back);
                    d.draw.extend(added.iter().cloned());
                }
            }
            Event::Formed {
                unit,
                formation,
                frontage,
            } => {
                if let Some(u) = self.units.get_mut(*unit) {
                    u.formation.clone_from(formation);
                    u.frontage = *frontage;
                }
            }
            _ => {}
        }
    }

    /// Applies one event. Events name their results, so applying is plain
    /// bookkeeping; events about unknown figures are ignored (a log from a
    /// different scenario is caught when it is opened).
    pub fn apply(&mut self, event: &Event) {
        match event {
            Event::CardDrawn { .. }
            | Event::CardReserved { .. }
            | Event::CardPlayed { .. }
            | Event::DeckShuffled { .. }
            | Event::Formed { .. } => self.apply_units_and_cards(event),
            Event::SoldiersInTime(e) => e.apply(self),
            Event::VolleyFire(e) => e.apply(self),
            Event::StandTo(e) => e.apply(self),
            Event::LittleColonial(e) => e.apply(self),
            Event::Odds { .. } | Event::Rolled { .. } | Event::Measured(_) | Event::Note { .. } => {
            }
            Event::Wounded { .. }
            | Event::Moved { .. }
            | Event::Placed { .. }
            | Event::MountSpeed { .. } => self.apply_to_figure(event),
            Event::TerrainMarked {
                name,
                kinds,
                polygon_in,
            } => {
                let area = TerrainArea {
                    name: name.clone(),
                    kinds: kinds.clone(),
                    polygon_in: polygon_in.clone(),
                };
                match self.terrain.iter_mut().find(|a| a.name == *name) {
                    Some(a) => *a = area,
                    None => self.terrain.push(area),
                }
            }
            Event::TerrainCleared { name } => self.terrain.retain(|a| a.name != *name),
            Event::PhaseChanged {
                turn,
                active_side,
                phase,
            } => {
                self.turn = *turn;
                self.active_side = *active_side;
                self.phase = *phase;
            }
        }
    }

    /// Applies the shared events about one figure: wounds, moves, places
    /// and mount speeds.
    fn apply_to_figure(&mut self, event: &Event) {
        let clock = self.clock();
        match event {
            Event::Wounded {
                figure,
                wound,
                mount,
            } => {
                if let Some(f) = self.fig_mut(*figure) {
                    if *mount {
                        f.mount_wound = Some(*wound);
                        if *wound == Wound::Killed {
                            f.mount_level = None;
                            f.placement.shape = crate::geometry::BaseShape::FOOT;
                        }
                    } else {
                        f.wound = Some(*wound);
                    }
                }
            }
            Event::Moved {
                figure,
                to_in,
                facing_deg,
                pace,
                through_rough,
                ..
            } => {
                if let Some(f) = self.fig_mut(*figure) {
                    f.placement.center_in_table = *to_in;
                    f.placement.facing_deg = *facing_deg;
                    let own = clock.side_turn(f.side);
                    f.rules.on_moved(own, *pace, *through_rough);
                }
            }
            Event::Placed {
                figure,
                to_in,
                facing_deg,
                sigma_in,
            } => {
                if let Some(f) = self.fig_mut(*figure) {
                    f.placement.center_in_table = *to_in;
                    f.placement.facing_deg = *facing_deg;
                    f.placement.sigma_in = *sigma_in;
                }
            }
            Event::MountSpeed { figure, level } => {
                if let Some(f) = self.fig_mut(*figure) {
                    f.mount_level = Some(*level);
                }
            }
            _ => {}
        }
    }

    /// A free point on the table? (inside the table rectangle)
    pub fn on_table(&self, p: Point2<f64>) -> bool {
        (0.0..=self.table.width_in).contains(&p.x) && (0.0..=self.table.depth_in).contains(&p.y)
    }
}
