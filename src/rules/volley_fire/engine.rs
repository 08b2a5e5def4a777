//! The Volley Fire! engine: unit actions as typed [`Action`]s
//! (`fire`, `move`, `form`, `melee`, `regroup`, `morale`) and `end-phase`.
//! Each action runs only in its phase of the turn (`turn.action_phase`);
//! `check` decides without dice (the same checks `resolve` runs first).
//!
//! # Conventions
//! Positions in table inches (table frame); a unit's front is the centre of
//! its front-rank figures. The rule state is typed ([`super::status`]):
//! a unit's troops (move-dice row, and melee row unless it names one),
//! cover (the player's word, else the terrain), shaken, jammed, works, gun,
//! the phase it acted in; a side's nationality and morale; a figure's key,
//! commander and heat-stroke flags.
//!
//! # The turn
//! "A. Commanders roll D6's for first move. High die roll will move first.
//! B. Simultaneously fire all weaponry in range. C. Fight and resolve all
//! hand-to-hand combat. D. Test Army morale if applicable." Each side has
//! its move phase, in the order of the first-move roll; then one fire, one
//! melee and one morale phase for both sides. The first turn's order is the
//! scenario's (house: the gamemaster "defines the scenario").

use nalgebra::{Point2, Vector2};

use super::action::*;
use super::event::Event as VfEvent;
use super::status::{FigureStatus, SideStatus, Troops, UnitStatus};
use super::{NAME, VolleyFire, fire_odds};
use crate::core::RefusalKind;
use crate::core::dice::Dice;
use crate::core::odds::{NamedOdds, named};
use crate::geometry::{TerrainKind, point_in_polygon};
use crate::rules::stand_to::Wound;
use crate::rules::{Command, Event, Figure, FigureId, GameState, Unit};
use crate::rules::{FigureRules, RuleError, RuleSet, SideRules, Status, UnitRules};

/// Distance between bases (edge gap plus a base) that counts as contact, in.
pub(super) const CONTACT_EXTRA_IN: f64 = 1.0;
/// Rolls of the first-move dice before a tie at the top is left to the
/// sides' order.
const MAX_FIRST_MOVE_ROLLS: usize = 20;

/// Volley Fire! as a [`RuleSet`].
#[derive(Debug, Clone)]
pub struct VolleyFireRules {
    pub data: VolleyFire,
}

/// This rule set refuses the command now, for a rule of `kind`.
pub(super) fn refuse(kind: RefusalKind, why: impl Into<String>) -> RuleError {
    crate::rules::common::refusal(NAME, kind, why)
}

pub(super) fn unit<'a>(state: &'a GameState, name: &str) -> Result<(usize, &'a Unit), RuleError> {
    state.unit_named(name).ok_or(RuleError::Unknown {
        what: "unit",
        name: name.to_owned(),
    })
}

static NO_UNIT: UnitStatus = UnitStatus {
    troops: None,
    melee: None,
    cover: None,
    works: false,
    gun: false,
    shaken: false,
    jammed: false,
    acted: None,
    regroup_rolled: None,
    limbered_turn: None,
    won_melee: None,
    gun_destroyed: None,
    exposed_turn: None,
    halted_to_enter: None,
    gun_moved_full: None,
};
static NO_FIGURE: FigureStatus = FigureStatus {
    key: false,
    commander: false,
    heat_stroke: false,
    fell_in_fire: None,
};
static NO_SIDE: SideStatus = SideStatus {
    nationality: None,
    morale: None,
    morale_turn: None,
};

/// The unit's Volley Fire! state.
pub(super) fn ust(u: &Unit) -> &UnitStatus {
    u.rules.volley_fire().unwrap_or(&NO_UNIT)
}

/// The figure's Volley Fire! state.
pub(super) fn fst(f: &Figure) -> &FigureStatus {
    f.rules.volley_fire().unwrap_or(&NO_FIGURE)
}

/// The side's Volley Fire! state.
pub(super) fn sst(state: &GameState, side: usize) -> &SideStatus {
    state
        .sides
        .get(side)
        .and_then(|s| s.rules.volley_fire())
        .unwrap_or(&NO_SIDE)
}

/// The unit's troops (every unit read from a scenario has them).
pub(super) fn troops(u: &Unit) -> Result<Troops, RuleError> {
    ust(u).troops.ok_or_else(|| {
        refuse(
            RefusalKind::NotInTables,
            format!("{} has no troops (the scenario's unit_status)", u.name),
        )
    })
}

/// Alive figures of a unit with their place in the unit.
pub(super) fn alive(state: &GameState, u: &Unit) -> Vec<(usize, FigureId)> {
    u.figures
        .iter()
        .enumerate()
        .filter(|(_, id)| state.figure(**id).is_some_and(Figure::active))
        .map(|(k, id)| (k, *id))
        .collect()
}

/// Figures of a unit that stood when this fire phase began (fire is
/// simultaneous: a man hit in it still fires, and is still a target to
/// aim at).
pub(super) fn standing_this_phase(state: &GameState, u: &Unit) -> Vec<(usize, FigureId)> {
    let now = state.clock();
    u.figures
        .iter()
        .enumerate()
        .filter(|(_, id)| {
            state
                .figure(**id)
                .is_some_and(|f| f.active() || fst(f).fell_in_fire == Some(now))
        })
        .map(|(k, id)| (k, *id))
        .collect()
}

pub(super) fn ids(members: &[(usize, FigureId)]) -> Vec<FigureId> {
    members.iter().map(|(_, id)| *id).collect()
}

pub(super) fn pos(state: &GameState, id: FigureId) -> Point2<f64> {
    state
        .figure(id)
        .map_or_else(Point2::origin, |f| f.placement.center_in_table)
}

pub(super) fn centroid(state: &GameState, ids: &[FigureId]) -> Point2<f64> {
    if ids.is_empty() {
        return Point2::new(f64::NAN, f64::NAN);
    }
    let n = ids.len().max(1) as f64;
    let sum = ids
        .iter()
        .fold(Vector2::zeros(), |acc, id| acc + pos(state, *id).coords);
    Point2::from(sum / n)
}

/// Positions the engine computes are kept to a micro-inch (steps per
/// inch), far below any measurement, so that their short decimal form
/// survives the JSON log exactly.
const POSITION_STEPS_PER_IN: f64 = 1e6;

pub(super) fn quantized(p: Point2<f64>) -> Point2<f64> {
    let q = |v: f64| (v * POSITION_STEPS_PER_IN).round() / POSITION_STEPS_PER_IN;
    Point2::new(q(p.x), q(p.y))
}

pub(super) fn kill(id: FigureId) -> Event {
    Event::Wounded {
        figure: id,
        wound: Wound::Killed,
        mount: false,
    }
}

/// Is the point inside a terrain area of one of `kinds`?
pub(super) fn in_terrain(state: &GameState, p: Point2<f64>, kinds: &[TerrainKind]) -> bool {
    state
        .terrain
        .iter()
        .any(|t| kinds.iter().any(|k| t.is(*k)) && point_in_polygon(&t.polygon_in, p))
}

/// Cover: "woods, scrub, gullies, ravines, embankments, etc., and
/// buildings" (the table's soft and hard cover areas).
pub(super) const COVER_KINDS: [TerrainKind; 3] = [
    TerrainKind::SoftCover,
    TerrainKind::HardCover,
    TerrainKind::Building,
];

impl VolleyFireRules {
    /// The built-in data.
    pub fn builtin() -> Result<Self, crate::spec::SpecError> {
        Ok(Self {
            data: VolleyFire::builtin()?,
        })
    }

    /// Is the unit in cover? The player's word (`cover` in its status) if
    /// given, else the terrain: in cover when at least half of its men
    /// stand in a cover area (house value: the text does not say how much
    /// of a unit must be inside).
    pub fn in_cover(&self, state: &GameState, u: &Unit) -> bool {
        if let Some(c) = ust(u).cover {
            return c;
        }
        let men = standing_this_phase(state, u);
        let inside = men
            .iter()
            .filter(|(_, id)| in_terrain(state, pos(state, *id), &COVER_KINDS))
            .count();
        !men.is_empty() && 2 * inside >= men.len()
    }

    /// An action runs only in its phase of the turn; moves and formation
    /// changes only in the turn of the unit's side.
    fn check_phase(&self, state: &GameState, action: &Action) -> Result<(), RuleError> {
        let name = action.name();
        let Some(phase) = self.data.turn.action_phase.get(name) else {
            return Ok(());
        };
        let now = self
            .data
            .turn
            .phases
            .get(state.phase)
            .map_or("", String::as_str);
        if now != phase {
            return Err(refuse(
                RefusalKind::WrongPhase,
                format!(
                    "`{name}` belongs to the {phase} phase; this is the {now} phase (end the phase to go on)"
                ),
            ));
        }
        if self.data.turn.own_side_actions.iter().any(|a| a == name)
            && let Some(unit_name) = action.unit()
        {
            let (_, u) = unit(state, unit_name)?;
            if u.side != state.active_side {
                let side = state.sides.get(u.side).map_or("?", |s| s.name.as_str());
                return Err(refuse(
                    RefusalKind::NotYourTurn,
                    format!(
                        "{} moves in its own side's turn ({side}), not this one",
                        u.name
                    ),
                ));
            }
        }
        Ok(())
    }

    /// "One action per unit per phase": a unit that moved, changed
    /// formation, fired or charged in this phase does nothing more in it;
    /// a force that routed takes no more actions.
    pub(super) fn check_may_act(&self, state: &GameState, u: &Unit) -> Result<(), RuleError> {
        if ust(u).acted == Some(state.clock()) {
            return Err(refuse(
                RefusalKind::AlreadyActed,
                format!(
                    "{} has taken its action in this phase (one action per unit per phase)",
                    u.name
                ),
            ));
        }
        if let Some(m) = sst(state, u.side)
            .morale
            .filter(|m| *m != super::MoraleResult::Holds)
        {
            return Err(refuse(
                RefusalKind::OutOfTheFight,
                format!("{}'s force has left the fight (army morale: {m:?})", u.name),
            ));
        }
        Ok(())
    }

    /// The event that marks the unit's action of this phase.
    pub(super) fn acted(state: &GameState, unit: usize) -> Event {
        Event::VolleyFire(VfEvent::Acted {
            unit,
            at: state.clock(),
        })
    }

    /// The sides in the order they move this turn.
    fn move_order(state: &GameState) -> Vec<usize> {
        let order = state
            .rules
            .volley_fire()
            .map(|g| g.move_order.clone())
            .unwrap_or_default();
        if order.len() == state.sides.len() {
            order
        } else {
            (0..state.sides.len()).collect()
        }
    }

    /// "Commanders roll D6's for first move. High die roll will move
    /// first." Ties at the top are rolled again.
    fn first_move_roll(
        &self,
        state: &GameState,
        dice: &mut dyn Dice,
    ) -> Result<Vec<Event>, RuleError> {
        let mut ev = Vec::new();
        let mut order: Vec<usize> = (0..state.sides.len()).collect();
        for _ in 0..MAX_FIRST_MOVE_ROLLS {
            let rolls = dice.roll_n(state.sides.len(), 6)?;
            ev.push(Event::Rolled {
                purpose: "first move (high die moves first)".into(),
                figure: None,
                dice: rolls.clone(),
            });
            order.sort_by_key(|&i| std::cmp::Reverse(rolls[i].face));
            let top = rolls.iter().map(|r| r.face).max().unwrap_or(0);
            if rolls.iter().filter(|r| r.face == top).count() <= 1 {
                break;
            }
        }
        let first = state.sides.get(order[0]).map_or("?", |s| s.name.as_str());
        ev.push(Event::Note {
            text: format!("{first} moves first"),
        });
        ev.push(Event::VolleyFire(VfEvent::MoveOrder {
            order: order.clone(),
        }));
        ev.push(Event::PhaseChanged {
            turn: state.turn + 1,
            active_side: order[0],
            phase: 0,
        });
        Ok(ev)
    }

    /// Ends the phase: the next side's move phase, then fire, melee and
    /// morale for both sides, then the next turn's first-move roll.
    fn end_phase(&self, state: &GameState, dice: &mut dyn Dice) -> Result<Vec<Event>, RuleError> {
        let phases = self.data.turn.phases.len().max(1);
        let order = Self::move_order(state);
        let clock = |active_side, phase| Event::PhaseChanged {
            turn: state.turn,
            active_side,
            phase,
        };
        if state.phase == 0 {
            let k = order.iter().position(|&s| s == state.active_side);
            if let Some(next) = k.and_then(|k| order.get(k + 1)) {
                return Ok(vec![clock(*next, 0)]);
            }
        }
        if state.phase + 1 < phases {
            return Ok(vec![clock(state.active_side, state.phase + 1)]);
        }
        // A jammed gun "does not fire that turn": cleared at its end.
        let mut ev: Vec<Event> = state
            .units
            .iter()
            .enumerate()
            .filter(|(_, u)| ust(u).jammed)
            .map(|(unit, _)| {
                Event::VolleyFire(VfEvent::Jammed {
                    unit,
                    jammed: false,
                })
            })
            .collect();
        ev.extend(self.first_move_roll(state, dice)?);
        Ok(ev)
    }

    /// Can the action be taken now? No dice are rolled; `resolve` runs the
    /// same checks first.
    fn check_action(&self, state: &GameState, action: &Action) -> Result<(), RuleError> {
        self.check_phase(state, action)?;
        match action {
            Action::Fire(p) => self.check_fire(state, p),
            Action::Move(p) => self.check_move(state, p),
            Action::Form(p) => self.check_form(state, p),
            Action::Charge(p) => self.charge_plan(state, p).map(drop),
            Action::Melee(p) => self.melee_plan(state, p).map(drop),
            Action::Regroup(p) => self.check_regroup(state, p).map(drop),
            Action::Morale(p) => self.morale_plan(state, p).map(drop),
            Action::WinnerMove(p) => self.winner_plan(state, p).map(drop),
            Action::DestroyGun(p) => self.check_destroy_gun(state, p).map(drop),
            Action::EnterBuilding(p) => self.enter_plan(state, p).map(drop),
            Action::ManGun(p) => self.man_gun_plan(state, p).map(drop),
        }
    }

    fn resolve_inner(
        &self,
        state: &GameState,
        command: &Command,
        dice: &mut dyn Dice,
    ) -> Result<Vec<Event>, RuleError> {
        match command {
            Command::EndPhase => self.end_phase(state, dice),
            Command::VolleyFire(action) => {
                self.check_phase(state, action)?;
                match action {
                    Action::Fire(p) => self.resolve_fire(state, p, dice),
                    Action::Move(p) => self.resolve_move(state, p, dice),
                    Action::Form(p) => self.resolve_form(state, p, dice),
                    Action::Charge(p) => self.resolve_charge(state, p, dice),
                    Action::Melee(p) => self.resolve_melee(state, p, dice),
                    Action::Regroup(p) => self.resolve_regroup(state, p, dice),
                    Action::Morale(p) => self.resolve_morale(state, p, dice),
                    Action::WinnerMove(p) => self.resolve_winner_move(state, p, dice),
                    Action::DestroyGun(p) => self.resolve_destroy_gun(state, p, dice),
                    Action::EnterBuilding(p) => self.resolve_enter(state, p),
                    Action::ManGun(p) => self.resolve_man_gun(state, p),
                }
            }
            other => Err(RuleError::Unsupported {
                rule_set: NAME.into(),
                action: crate::rules::action::action_name(other),
            }),
        }
    }
}

/// Fire odds as named probabilities.
pub fn fire_named(o: &super::FireOdds) -> Vec<NamedOdds> {
    named(&[
        ("p_any_hit", o.p_any_hit),
        ("p_key_hit", o.p_key_hit),
        ("p_jam", o.p_jam),
        ("p_leader_hit", o.p_leader_hit),
    ])
}

impl RuleSet for VolleyFireRules {
    fn name(&self) -> &str {
        NAME
    }

    fn actions(&self) -> Vec<crate::rules::describe::ActionSpec> {
        super::menu::actions(|name| self.data.turn.action_phase.get(name).cloned())
    }

    fn phases(&self) -> Vec<String> {
        self.data.turn.phases.clone()
    }

    fn knows_weapon(&self, name: &str) -> bool {
        self.data.weapon.contains_key(name)
    }

    fn knows_melee_weapon(&self, _name: &str) -> bool {
        // Melee modifiers come from troops and formation, not weapons.
        true
    }

    fn figure_status(&self, raw: &Status) -> Result<FigureRules, String> {
        FigureStatus::from_raw(raw).map(FigureRules::VolleyFire)
    }

    fn prepare(&self, state: &mut GameState) -> Result<(), RuleError> {
        self.check_scouts_max(state)
    }

    fn unit_status(&self, raw: &Status) -> Result<UnitRules, String> {
        UnitStatus::from_raw(raw, &self.data).map(UnitRules::VolleyFire)
    }

    fn side_status(&self, raw: &Status) -> Result<SideRules, String> {
        SideStatus::from_raw(raw).map(SideRules::VolleyFire)
    }

    fn check(&self, state: &GameState, command: &Command) -> Result<(), RuleError> {
        match command {
            Command::EndPhase => Ok(()),
            Command::VolleyFire(action) => self.check_action(state, action),
            other => Err(RuleError::Unsupported {
                rule_set: NAME.into(),
                action: crate::rules::action::action_name(other),
            }),
        }
    }

    fn odds(&self, state: &GameState, command: &Command) -> Result<Vec<NamedOdds>, RuleError> {
        match command {
            Command::VolleyFire(Action::Fire(p)) => match self.fire_kind(state, p)? {
                super::fire::FireKind::Scouts => {
                    let (firers, need) = self.scout_fire_plan(state, p)?;
                    Ok(Self::scout_fire_odds(firers, need))
                }
                super::fire::FireKind::Pistols => {
                    let plan = self.pistol_fire_plan(state, p)?;
                    Ok(self.pistol_fire_odds(&plan))
                }
                super::fire::FireKind::Table => {
                    let plan = self.fire_plan(state, p)?;
                    Ok(fire_named(&fire_odds(&self.data, &plan.dice)))
                }
                super::fire::FireKind::CapturedGun => {
                    let plan = self.captured_gun_plan(state, p)?;
                    Ok(fire_named(&fire_odds(&self.data, &plan.dice)))
                }
            },
            _ => Ok(Vec::new()),
        }
    }

    fn parse_action(&self, name: &str, params: &serde_json::Value) -> Result<Command, RuleError> {
        crate::rules::action::parse_action_or_shared(
            NAME,
            Action::NAMES,
            || Action::parse(name, params).map(Command::VolleyFire),
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
