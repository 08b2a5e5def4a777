//! The Soldiers in Time engine, its [`Action`]s each in its
//! phase of the turn (rally, command, the three movement sub-phases,
//! shooting, melee, follow-through), one file per part of the turn:
//! - `rally` (rally, [`super::morale`]): every routed figure of the side
//!   flips a card;
//! - `activate` (command, movement): an order's activation card, and
//!   `individual`: a figure outside every leader's command range flips on
//!   the out of command range chart ([`super::orders`]);
//! - `move` (its movement sub-phase: horses, then men and guns, then
//!   vehicles): foot at a walk or run, riders at a horse speed, guns 1 in;
//!   minefield squares roll where they are entered; `follow-through`
//!   (follow-through): 1 in, horses 1 in per 5 in moved ([`super::movement`]);
//! - `reload`, `fire`, `volley` (shooting, [`super::shooting`]);
//!   `load-gun`, `artillery`, `grenade` ([`super::artillery`]);
//! - `melee`, `horse-impact` (melee, [`super::melee`]);
//! - `spot` (shooting, [`super::observation`]): an observer looks for a
//!   hidden enemy (house);
//! - `morale-check` (any phase): a trigger the camera cannot see (a
//!   charge by cavalry, a lord killed out of sight);
//! - `end-phase`: the next side in the phase, or the next phase, whose first
//!   side a card flip decides.
//!
//! Morale triggers are applied as results come: a kill checks the figures
//! within 1 in, a dead leader the figures in his command range, a dead
//! flag bearer the figures within 8 in; a rout checks the figures within
//! 1 in of the routing figure where he stood.
//!
//! # Conventions
//! Table inches; command range and adjacency base edge to base edge, with
//! the positions' uncertainty (a distance too close to call counts as
//! within, and the reading says so). Each side draws from its own deck
//! `<side> cards` (a full 52-card deck, reshuffled when empty); the card
//! flips of the turn come from the deck `turn cards`. The rule set's state
//! of figures and sides is typed ([`super::status`]); its own events are
//! [`super::event::Event`].

use nalgebra::Point2;

use super::action::Action;
use super::event::Event as SitEvent;
use super::status::{self, Colour, FigureStatus, FirstSide, Order};
use super::{Card, NAME, SoldiersInTime, full_deck};
use crate::core::dice::Dice;
use crate::core::odds::NamedOdds;
use crate::core::{Inch, Length, RefusalKind};
use crate::geometry::RangeMethod;
use crate::rules::action::CheckDice;
use crate::rules::common::{Work, refusal, require_phase};
use crate::rules::deck;
use crate::rules::{Command, Deck, Event, Figure, FigureId, GameState};
use crate::rules::{FigureRules, RuleError, RuleSet, SideRules, Status, UnitRules};

/// Soldiers in Time as a [`RuleSet`].
#[derive(Debug, Clone)]
pub struct SoldiersInTimeRules {
    pub data: SoldiersInTime,
}

/// The phases of the turn the engine knows by name (the data file lists
/// them in order).
pub const RALLY: &str = "rally";
pub const COMMAND: &str = "command";
pub const HORSES: &str = "movement-horses";
pub const MEN: &str = "movement-men";
pub const VEHICLES: &str = "movement-vehicles";
pub const SHOOTING: &str = "shooting";
pub const MELEE: &str = "melee";
pub const FOLLOW_THROUGH: &str = "follow-through";
/// The three movement sub-phases, in order.
pub const MOVEMENT: [&str; 3] = [HORSES, MEN, VEHICLES];
/// Every phase the engine needs in the data file.
pub const PHASES: [&str; 8] = [
    RALLY,
    COMMAND,
    HORSES,
    MEN,
    VEHICLES,
    SHOOTING,
    MELEE,
    FOLLOW_THROUGH,
];

/// Floating-point slack on a measured length before it counts as over a
/// limit (a path summed from legs): far below anything a camera sees.
pub(super) const FLOAT_SLACK_IN: f64 = 1e-9;

/// The deck a side draws from.
pub fn deck_name(state: &GameState, side: usize) -> String {
    format!(
        "{} cards",
        state.sides.get(side).map_or("?", |s| s.name.as_str())
    )
}

/// The deck of the turn's card flips (who goes first).
pub const TURN_DECK: &str = "turn cards";

/// The figure's Soldiers in Time state.
pub(super) fn st(f: &Figure) -> &FigureStatus {
    status::of(f)
}

pub(super) fn is_red(state: &GameState, side: usize) -> bool {
    state
        .sides
        .get(side)
        .is_some_and(|s| status::side_of(s).colour == Colour::Red)
}

/// Still in the battle: not killed or disabled, not removed after a failed
/// rally.
pub fn in_play(f: &Figure) -> bool {
    f.active() && st(f).removed.is_none()
}

pub(super) fn routed(f: &Figure) -> bool {
    st(f).routed
}

pub(super) fn point(p: [f64; 2]) -> Point2<f64> {
    Point2::new(p[0], p[1])
}

/// A Soldiers in Time event as a game event.
pub(super) fn sit(e: SitEvent) -> Event {
    Event::SoldiersInTime(e)
}

/// Base edge to base edge between two figures, with their uncertainty.
pub(super) fn edge_gap(a: &Figure, b: &Figure) -> Length<Inch> {
    Length::between(&a.placement, &b.placement, RangeMethod::EdgeToEdge)
}

/// Centre to centre between two figures, with their uncertainty.
pub(super) fn centre_gap(a: &Figure, b: &Figure) -> Length<Inch> {
    Length::centre_to_centre(&a.placement, &b.placement)
}

/// Is the length within `limit`? A length too close to call counts as
/// within (the player has the benefit of the doubt; the reading says so).
pub(super) fn within(len: Length<Inch>, limit: f64) -> bool {
    len.value() <= limit + FLOAT_SLACK_IN || len.near(limit)
}

/// This rule set refuses the command now, for a rule of `kind`.
pub(super) fn refuse(kind: RefusalKind, why: impl Into<String>) -> RuleError {
    refusal(NAME, kind, why)
}

impl SoldiersInTimeRules {
    pub fn builtin() -> Result<Self, crate::spec::SpecError> {
        Ok(Self {
            data: SoldiersInTime::builtin()?,
        })
    }

    pub(super) fn phase(
        &self,
        state: &GameState,
        action: &str,
        allowed: &[&str],
    ) -> Result<(), RuleError> {
        require_phase(NAME, &self.data.turn.phases, state, action, allowed)
    }

    /// The leaders of the figure's side (other than the figure) within
    /// command range. A leader is only influenced by a leader of at least
    /// his experience.
    pub(super) fn leaders_in_range<'a>(
        &self,
        state: &'a GameState,
        f: &Figure,
    ) -> impl Iterator<Item = &'a Figure> {
        let (id, side, leader, experience) = (f.id, f.side, f.leader, f.experience);
        let placement = f.placement;
        let range = self.data.command.range_in;
        state.figures.iter().filter(move |l| {
            l.leader
                && l.id != id
                && in_play(l)
                && !routed(l)
                && l.side == side
                && (!leader || l.experience >= experience)
                && within(
                    Length::between(&l.placement, &placement, RangeMethod::EdgeToEdge),
                    range,
                )
        })
    }

    /// Is a leader of the figure's side (other than the figure) within
    /// command range?
    pub(super) fn leader_in_range(&self, state: &GameState, f: &Figure) -> bool {
        self.leaders_in_range(state, f).next().is_some()
    }

    /// A flag bearer of the side within 8 in (he modifies morale checks as
    /// a leader does).
    pub(super) fn flag_in_range(&self, state: &GameState, f: &Figure) -> bool {
        state.figures.iter().any(|b| {
            st(b).flag
                && b.id != f.id
                && in_play(b)
                && b.side == f.side
                && within(edge_gap(b, f), self.data.special.flag_bearer_radius_in)
        })
    }

    pub(super) fn influenced(&self, state: &GameState, f: &Figure) -> bool {
        self.leader_in_range(state, f) || self.flag_in_range(state, f)
    }

    pub(super) fn deck_pile(state: &GameState, side: usize) -> Vec<String> {
        deck::next_pile(state, &deck_name(state, side), true)
    }

    /// A card from the side's deck.
    pub(super) fn draw(
        work: &mut Work,
        side: usize,
        dice: &mut dyn Dice,
    ) -> Result<Card, RuleError> {
        let name = deck_name(&work.now, side);
        Self::draw_from(work, &name, dice)
    }

    pub(super) fn draw_from(
        work: &mut Work,
        deck_name: &str,
        dice: &mut dyn Dice,
    ) -> Result<Card, RuleError> {
        let card = deck::draw(NAME, work, deck_name, dice, true)?;
        Card::parse(&card).ok_or_else(|| {
            refuse(
                RefusalKind::Cards,
                format!("`{card}` is not a playing card"),
            )
        })
    }

    /// The events of one command (checked first, then rolled).
    fn resolve_inner(
        &self,
        state: &GameState,
        command: &Command,
        dice: &mut dyn Dice,
    ) -> Result<Vec<Event>, RuleError> {
        match command {
            Command::EndPhase => self.end_phase(state, dice),
            Command::SoldiersInTime(action) => match action {
                Action::Rally(p) => self.resolve_rally(state, p, dice),
                Action::Activate(p) => self.resolve_activate(state, p, dice),
                Action::Individual(p) => self.resolve_individual(state, p, dice),
                Action::LoadGun(p) => self.resolve_load_gun(state, p, dice),
                Action::Move(p) => self.resolve_move(state, p, dice),
                Action::Reload(p) => self.resolve_reload(state, p, dice),
                Action::Fire(p) => self.resolve_fire(state, p, dice),
                Action::Volley(p) => self.resolve_volley(state, p, dice),
                Action::Artillery(p) => self.resolve_artillery(state, p, dice),
                Action::Grenade(p) => self.resolve_grenade(state, p, dice),
                Action::Melee(p) => self.resolve_melee(state, p, dice),
                Action::HorseImpact(p) => self.resolve_impact(state, p, dice),
                Action::FollowThrough(p) => self.resolve_follow(state, p),
                Action::MoraleCheck(p) => self.resolve_morale(state, p, dice),
                Action::LeaveMelee(p) => self.resolve_leave(state, p, dice),
                Action::Spot(p) => self.resolve_spot(state, p, dice),
            },
            other => Err(unsupported(other)),
        }
    }

    /// Checks a command without rolling: each action's plan, which decides
    /// everything but the dice.
    fn check_inner(&self, state: &GameState, command: &Command) -> Result<(), RuleError> {
        match command {
            Command::EndPhase => Ok(()),
            Command::SoldiersInTime(action) => match action {
                Action::Rally(p) => self.plan_rally(state, p).map(drop),
                Action::Activate(p) => self.plan_activate(state, p).map(drop),
                Action::Individual(p) => self.plan_individual(state, p).map(drop),
                Action::LoadGun(p) => self.plan_load_gun(state, p).map(drop),
                Action::Move(p) => self.plan_move(state, p).map(drop),
                Action::Reload(p) => self.plan_reload(state, p).map(drop),
                Action::Fire(p) => {
                    self.phase(state, "fire", &[SHOOTING])?;
                    self.plan_fire(state, p).map(drop)
                }
                Action::Volley(p) => self.plan_volley(state, p).map(drop),
                Action::Artillery(p) => self.plan_artillery(state, p).map(drop),
                Action::Grenade(p) => self.plan_grenade(state, p).map(drop),
                Action::Melee(p) => self.plan_melee(state, p).map(drop),
                Action::HorseImpact(p) => self.plan_impact(state, p).map(drop),
                Action::FollowThrough(p) => self.resolve_follow(state, p).map(drop),
                Action::MoraleCheck(p) => self.plan_morale(state, p).map(drop),
                Action::LeaveMelee(p) => self.plan_leave(state, p).map(drop),
                Action::Spot(p) => self.plan_spot(state, p).map(drop),
            },
            other => Err(unsupported(other)),
        }
    }

    /// The side that goes first in this phase: the card flipped for it (at
    /// the start of the game, the scenario's first side), or the first side
    /// when none was flipped for it.
    fn first_side(state: &GameState) -> usize {
        status::game_of(state)
            .first
            .filter(|f| f.turn == state.turn && f.phase == state.phase)
            .map_or(0, |f| f.side)
    }

    /// The end of a side's part of a phase: the next side in it, or the next
    /// phase (the next turn after the last), whose first side is a card flip
    /// (2: "Flip a playing card and look at the color to decide who goes
    /// first for each sub phase"). A new turn ends the orders (but
    /// independent fire) and the charges of the last.
    fn end_phase(&self, state: &GameState, dice: &mut dyn Dice) -> Result<Vec<Event>, RuleError> {
        let sides = state.sides.len().max(1);
        let first = Self::first_side(state);
        let next_side = (state.active_side + 1) % sides;
        let mut work = Work::new(state);
        if next_side != first {
            work.push(Event::PhaseChanged {
                turn: state.turn,
                active_side: next_side,
                phase: state.phase,
            });
            return Ok(work.into_events());
        }
        let phases = self.data.turn.phases.len().max(1);
        let (turn, phase) = if state.phase + 1 >= phases {
            (state.turn + 1, 0)
        } else {
            (state.turn, state.phase + 1)
        };
        let card = Self::draw_from(&mut work, TURN_DECK, dice)?;
        let colour = if card.red { Colour::Red } else { Colour::Black };
        let side = (0..state.sides.len())
            .find(|&i| status::side_of(&state.sides[i]).colour == colour)
            .unwrap_or(first);
        let phase_name = self.data.turn.phases.get(phase).map_or("?", String::as_str);
        work.note(format!(
            "the card flip for the {phase_name} phase is {}: {} goes first",
            if card.red { "red" } else { "black" },
            state.sides.get(side).map_or("?", |s| s.name.as_str())
        ));
        work.push(sit(SitEvent::FirstSide(FirstSide { turn, phase, side })));
        if turn != state.turn {
            Self::new_turn(&mut work);
        }
        work.push(Event::PhaseChanged {
            turn,
            active_side: side,
            phase,
        });
        Ok(work.into_events())
    }

    /// 10.2: "As a rule, for every 10 soldiers you have on your force you
    /// must make one soldier of your choice a leader." Every figure of a
    /// side counts, its leaders among them.
    pub(super) fn check_leaders(&self, state: &GameState) -> Result<(), RuleError> {
        for (side, s) in state.sides.iter().enumerate() {
            let men = state.figures.iter().filter(|f| f.side == side).count();
            let leaders = state
                .figures
                .iter()
                .filter(|f| f.side == side && f.leader)
                .count();
            let needed = self
                .data
                .leaders_needed(u32::try_from(men).unwrap_or(u32::MAX));
            if u32::try_from(leaders).unwrap_or(u32::MAX) < needed {
                return Err(refuse(
                    RefusalKind::NoOrder,
                    format!(
                        "{} has {men} men and {leaders} leader(s): one leader for every {} men \
                         makes {needed}; set `leader = true` on {} more of them",
                        s.name,
                        self.data.command.men_per_leader,
                        needed as usize - leaders
                    ),
                ));
            }
        }
        Ok(())
    }

    /// Orders and the charge bonus last one turn; independent fire lasts
    /// until the leader dies or gives another order.
    fn new_turn(work: &mut Work) {
        let figures = work.now.figures.clone();
        for f in &figures {
            let s = st(f);
            if s.order
                .is_some_and(|o| !(o.passed && o.order == Order::IndependentFire))
            {
                work.push(sit(SitEvent::OrderEnded { figure: f.id }));
            }
            if s.charging {
                work.push(sit(SitEvent::ChargeSpent { figure: f.id }));
            }
        }
    }
}

fn unsupported(command: &Command) -> RuleError {
    RuleError::Unsupported {
        rule_set: NAME.into(),
        action: crate::rules::action::action_name(command),
    }
}

impl RuleSet for SoldiersInTimeRules {
    fn name(&self) -> &str {
        NAME
    }

    fn actions(&self) -> Vec<crate::rules::describe::ActionSpec> {
        super::menu::actions()
    }

    fn phases(&self) -> Vec<String> {
        self.data.turn.phases.clone()
    }

    fn knows_weapon(&self, name: &str) -> bool {
        self.data.weapons.contains_key(name)
    }

    fn knows_melee_weapon(&self, name: &str) -> bool {
        self.data.melee_weapon.contains_key(name)
    }

    fn experience_range(&self) -> (u8, u8) {
        (1, 10)
    }

    fn mount_level(&self, name: &str) -> Option<u8> {
        self.data
            .movement
            .horse_speeds
            .iter()
            .position(|s| s == name)
            .and_then(|i| u8::try_from(i).ok())
    }

    /// Each side gets a full deck of playing cards, and the turn's card
    /// flips a deck of their own. A side without its leaders (one for every
    /// 10 men, 10.2) is refused.
    fn prepare(&self, state: &mut GameState) -> Result<(), RuleError> {
        self.check_leaders(state)?;
        let names = (0..state.sides.len())
            .map(|side| deck_name(state, side))
            .chain([TURN_DECK.to_owned()])
            .collect::<Vec<_>>();
        for name in names {
            if state.deck(&name).is_none() {
                state.decks.push(Deck {
                    name,
                    draw: full_deck(),
                    discard: Vec::new(),
                    held: Vec::new(),
                });
            }
        }
        let clock = (state.turn, state.phase, state.active_side);
        state
            .rules
            .soldiers_in_time_mut()
            .first
            .get_or_insert(FirstSide {
                turn: clock.0,
                phase: clock.1,
                side: clock.2,
            });
        Ok(())
    }

    fn figure_status(&self, raw: &Status) -> Result<FigureRules, String> {
        status::FigureStatus::from_raw(raw).map(FigureRules::SoldiersInTime)
    }

    fn unit_status(&self, raw: &Status) -> Result<UnitRules, String> {
        status::UnitStatus::from_raw(raw).map(|_| UnitRules::None)
    }

    fn side_status(&self, raw: &Status) -> Result<SideRules, String> {
        status::SideStatus::from_raw(raw).map(SideRules::SoldiersInTime)
    }

    fn check(&self, state: &GameState, command: &Command) -> Result<(), RuleError> {
        self.check_inner(state, command)
    }

    fn odds(&self, state: &GameState, command: &Command) -> Result<Vec<NamedOdds>, RuleError> {
        // The odds are computed as the command resolves; read them back.
        Ok(crate::rules::odds_from_events(self.resolve_inner(
            state,
            command,
            &mut CheckDice,
        )?))
    }

    fn parse_action(&self, name: &str, params: &serde_json::Value) -> Result<Command, RuleError> {
        crate::rules::action::parse_action_or_shared(
            NAME,
            Action::NAMES,
            || Action::parse(name, params).map(Command::SoldiersInTime),
            name,
            params,
        )
    }

    fn overlays(
        &self,
        state: &GameState,
        figure: FigureId,
    ) -> Vec<crate::rules::overlay::OverlayShape> {
        self.overlay_shapes(state, figure)
    }

    fn resolve(
        &self,
        state: &GameState,
        command: &Command,
        dice: &mut dyn Dice,
    ) -> Result<Vec<Event>, RuleError> {
        self.resolve_inner(state, command, dice)
    }
}

/// The figure ids of a list of names (for tests and scripts).
pub fn ids(state: &GameState, names: &[&str]) -> Vec<FigureId> {
    names
        .iter()
        .filter_map(|n| state.figure_named(n))
        .map(|f| f.id)
        .collect()
}
