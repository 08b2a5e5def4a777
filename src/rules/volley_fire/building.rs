//! Volley Fire! buildings: "A. To enter, must spend one turn halted
//! outside, fire at 1/2 hit result (round up) while so doing. B. Troops
//! inside take less casualties from fire and get a bonus in melee' combat,
//! but cannot support outside melee's. C. To leave a building move out 12"
//! in any direction from the center of same and form and face in any
//! direction in any formation." (The text's dash before "fire" is a comma
//! here: a doc line may not open with it.)
//!
//! # Conventions
//! A building is a scenario terrain area of kind `building` (read from the
//! table as cover and rough ground are); it is cover. A unit is in a
//! building when at least half its men stand inside its outline (house, as
//! for cover). Table inches; the centre is the outline's centroid.

use nalgebra::{Point2, Vector2};

use super::action::{BuildingParams, FormParams, MoveParams};
use super::engine::{VolleyFireRules, alive, pos, quantized, refuse, unit, ust};
use super::event::Event as VfEvent;
use super::status::HaltedOutside;
use crate::core::RefusalKind;
use crate::geometry::{
    TerrainArea, TerrainKind, distance_to_outline_in, point_in_polygon, segment_crosses,
};
use crate::rules::{Event, GameState, Pace, RuleError, Unit};

/// Share of a building's width and depth a block of men entering it fills
/// at most (they stand inside its walls).
const BLOCK_FILL: f64 = 0.8;

/// The buildings on the table.
fn buildings(state: &GameState) -> impl Iterator<Item = &TerrainArea> {
    state
        .terrain
        .iter()
        .filter(|t| t.is(TerrainKind::Building) && t.polygon_in.len() >= 3)
}

/// The centroid of a polygon's area (the corners' mean when it has none).
pub(super) fn centre_of(poly: &[Point2<f64>]) -> Point2<f64> {
    let n = poly.len().max(1);
    let mean = poly.iter().fold(Vector2::zeros(), |a, p| a + p.coords) / n as f64;
    let (mut area2, mut c) = (0.0, Vector2::zeros());
    for (i, p) in poly.iter().enumerate() {
        let q = poly[(i + 1) % poly.len()];
        let cross = p.x * q.y - q.x * p.y;
        area2 += cross;
        c += (p.coords + q.coords) * cross;
    }
    if area2.abs() <= f64::EPSILON {
        return Point2::from(mean);
    }
    Point2::from(c / (3.0 * area2))
}

/// What an `enter-building` does now.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum EnterPlan {
    /// The unit halts outside (this turn's fire at half).
    Halt,
    /// It halted last turn: it goes in.
    Enter,
}

impl VolleyFireRules {
    /// The building the unit holds: at least half its men stand inside it.
    pub(super) fn building_of<'a>(
        &self,
        state: &'a GameState,
        u: &Unit,
    ) -> Option<&'a TerrainArea> {
        let men = alive(state, u);
        if men.is_empty() {
            return None;
        }
        buildings(state).find(|b| {
            let inside = men
                .iter()
                .filter(|(_, id)| point_in_polygon(&b.polygon_in, pos(state, *id)))
                .count();
            2 * inside >= men.len()
        })
    }

    /// Is the unit halted outside a building this turn ("fire at 1/2 hit
    /// result (round up) while so doing")?
    pub(super) fn halted_outside(&self, state: &GameState, u: &Unit) -> bool {
        ust(u)
            .halted_to_enter
            .as_ref()
            .is_some_and(|h| h.turn == state.turn)
    }

    /// A move or formation change along `path` that would take the unit
    /// into a building is refused: it halts outside a turn first.
    pub(super) fn check_not_walking_in(
        &self,
        state: &GameState,
        u: &Unit,
        path: (Point2<f64>, Point2<f64>),
    ) -> Result<(), RuleError> {
        if let Some(b) = buildings(state).find(|b| segment_crosses(path.0, path.1, &b.polygon_in)) {
            return Err(refuse(
                RefusalKind::CannotDo,
                format!(
                    "{} does not walk into {}: to enter, a unit must spend one turn halted outside (`enter-building` to halt, and again the next turn to go in)",
                    u.name, b.name
                ),
            ));
        }
        Ok(())
    }

    /// A move checked (no dice): out of a building, 12 in from its centre;
    /// else the move plan, never walking into a building.
    pub(super) fn check_move(&self, state: &GameState, p: &MoveParams) -> Result<(), RuleError> {
        let (_, u) = unit(state, &p.unit)?;
        if self.building_of(state, u).is_some() {
            return self.leave_plan(state, &p.unit, Some(p.to_in)).map(drop);
        }
        let plan = self.move_plan(state, p)?;
        let to = Point2::new(p.to_in[0], p.to_in[1]);
        self.check_not_walking_in(state, u, (plan.from, to))
    }

    /// A formation change checked (no dice), as [`Self::check_move`].
    pub(super) fn check_form(&self, state: &GameState, p: &FormParams) -> Result<(), RuleError> {
        let (_, u) = unit(state, &p.unit)?;
        if self.building_of(state, u).is_some() {
            self.form_plan_in_building(state, p)?;
            return self.leave_plan(state, &p.unit, p.to_in).map(drop);
        }
        let plan = self.form_plan(state, p)?;
        let to = p.to_in.map_or(plan.from, |t| Point2::new(t[0], t[1]));
        self.check_not_walking_in(state, u, (plan.from, to))
    }

    /// The formation asked for is one the unit may take.
    fn form_plan_in_building(&self, state: &GameState, p: &FormParams) -> Result<(), RuleError> {
        let (_, u) = unit(state, &p.unit)?;
        let allowed = ust(u)
            .troops
            .and_then(|t| self.data.movement.dice.get(t.name()))
            .is_some_and(|f| f.contains_key(&p.formation));
        if !allowed || p.formation == self.data.formation.scouts {
            return Err(refuse(
                RefusalKind::CannotDo,
                format!("{} cannot form {}", u.name, p.formation),
            ));
        }
        Ok(())
    }

    /// Where the front centre of a unit leaving its building goes: 12 in
    /// from the building's centre toward `to_in`.
    fn leave_plan(
        &self,
        state: &GameState,
        name: &str,
        to_in: Option<[f64; 2]>,
    ) -> Result<Point2<f64>, RuleError> {
        let (_, u) = unit(state, name)?;
        self.check_may_act(state, u)?;
        let Some(b) = self.building_of(state, u) else {
            return Err(refuse(
                RefusalKind::CannotDo,
                format!("{} is not in a building", u.name),
            ));
        };
        let c = centre_of(&b.polygon_in);
        let d = to_in.map(|t| Point2::new(t[0], t[1]) - c);
        match d {
            Some(d) if d.norm() > f64::EPSILON => {
                Ok(quantized(c + d / d.norm() * self.data.building.leave_in))
            }
            _ => Err(refuse(
                RefusalKind::CannotDo,
                format!(
                    "{} is in {}: give `to_in`, the way it leaves (its front goes {} in from the building's centre)",
                    u.name, b.name, self.data.building.leave_in
                ),
            )),
        }
    }

    /// "To leave a building move out 12" in any direction from the center
    /// of same and form and face in any direction in any formation": no
    /// dice; the front centre 12 in from the centre toward `to_in`, in the
    /// formation and facing given (default: the present ones).
    pub(super) fn resolve_leave(
        &self,
        state: &GameState,
        name: &str,
        to_in: Option<[f64; 2]>,
        formation: Option<&str>,
        facing_deg: Option<f64>,
    ) -> Result<Vec<Event>, RuleError> {
        let front = self.leave_plan(state, name, to_in)?;
        let (ui, u) = unit(state, name)?;
        let b = self.building_of(state, u).map_or("", |b| b.name.as_str());
        let members = alive(state, u);
        let formation = formation.unwrap_or(&u.formation);
        let facing = facing_deg.unwrap_or_else(|| {
            members
                .first()
                .and_then(|(_, id)| state.figure(*id))
                .map_or(0.0, |f| f.placement.facing_deg)
        });
        let (spots, frontage) = self.layout(formation, members.len(), front, facing)?;
        let mut ev = vec![
            Event::Formed {
                unit: ui,
                formation: formation.to_owned(),
                frontage,
            },
            Self::acted(state, ui),
        ];
        for ((_, id), (to, f)) in members.iter().zip(spots) {
            ev.push(Event::Moved {
                figure: *id,
                to_in: to,
                facing_deg: f,
                pace: Pace::Walk,
                distance_in: (to - pos(state, *id)).norm(),
                through_rough: false,
            });
        }
        ev.push(Event::Note {
            text: format!(
                "{} leaves {b}: its front {} in from the centre, in {formation}",
                u.name, self.data.building.leave_in
            ),
        });
        Ok(ev)
    }

    /// Can the unit halt outside the building, or go in? (No dice.)
    pub(super) fn enter_plan(
        &self,
        state: &GameState,
        p: &BuildingParams,
    ) -> Result<EnterPlan, RuleError> {
        let (_, u) = unit(state, &p.unit)?;
        self.check_may_act(state, u)?;
        let b = buildings(state)
            .find(|b| b.name == p.building)
            .ok_or_else(|| RuleError::Unknown {
                what: "building",
                name: p.building.clone(),
            })?;
        if self.building_of(state, u).is_some() {
            return Err(refuse(
                RefusalKind::CannotDo,
                format!("{} is in a building already: it leaves by a move", u.name),
            ));
        }
        let halted = ust(u)
            .halted_to_enter
            .as_ref()
            .is_some_and(|h| h.building == b.name && h.turn + 1 == state.turn);
        if halted {
            return Ok(EnterPlan::Enter);
        }
        let near = alive(state, u).iter().any(|(_, id)| {
            let at = pos(state, *id);
            !point_in_polygon(&b.polygon_in, at)
                && distance_to_outline_in(&b.polygon_in, at) <= self.data.building.outside_in
        });
        if !near {
            return Err(refuse(
                RefusalKind::TooFar,
                format!(
                    "{} is not outside {}: to enter it, halt a turn with a man within {} in of its walls",
                    u.name, b.name, self.data.building.outside_in
                ),
            ));
        }
        Ok(EnterPlan::Halt)
    }

    /// Halts the unit outside (this turn), or takes it in (the next).
    pub(super) fn resolve_enter(
        &self,
        state: &GameState,
        p: &BuildingParams,
    ) -> Result<Vec<Event>, RuleError> {
        let plan = self.enter_plan(state, p)?;
        let (ui, u) = unit(state, &p.unit)?;
        let mut ev = vec![Self::acted(state, ui)];
        if plan == EnterPlan::Halt {
            ev.push(Event::VolleyFire(VfEvent::HaltedToEnter {
                unit: ui,
                halted: Some(HaltedOutside {
                    building: p.building.clone(),
                    turn: state.turn,
                }),
            }));
            ev.push(Event::Note {
                text: format!(
                    "{} halts outside {} to enter it next turn (its fire this turn is at half)",
                    u.name, p.building
                ),
            });
            return Ok(ev);
        }
        ev.push(Event::VolleyFire(VfEvent::HaltedToEnter {
            unit: ui,
            halted: None,
        }));
        let members = alive(state, u);
        if let Some(b) = buildings(state).find(|b| b.name == p.building) {
            for ((_, id), to) in members.iter().zip(self.block_in(b, members.len())) {
                let facing = state.figure(*id).map_or(0.0, |f| f.placement.facing_deg);
                ev.push(Event::Moved {
                    figure: *id,
                    to_in: to,
                    facing_deg: facing,
                    pace: Pace::Walk,
                    distance_in: (to - pos(state, *id)).norm(),
                    through_rough: false,
                });
            }
        }
        ev.push(Event::Note {
            text: format!("{} enters {}", u.name, p.building),
        });
        Ok(ev)
    }

    /// `n` men in a block about the building's centre, inside the box of
    /// its outline (house: the figures mark that the unit holds it).
    fn block_in(&self, b: &TerrainArea, n: usize) -> Vec<Point2<f64>> {
        let xs = b.polygon_in.iter().map(|p| p.x);
        let ys = b.polygon_in.iter().map(|p| p.y);
        let width = xs.clone().fold(f64::NEG_INFINITY, f64::max) - xs.fold(f64::INFINITY, f64::min);
        let depth = ys.clone().fold(f64::NEG_INFINITY, f64::max) - ys.fold(f64::INFINITY, f64::min);
        let cols = ((n as f64).sqrt().ceil() as usize).max(1);
        let rows = n.div_ceil(cols).max(1);
        let sp = self
            .data
            .formation
            .spacing_in
            .min(BLOCK_FILL * width / cols as f64)
            .min(BLOCK_FILL * depth / rows as f64);
        let c = centre_of(&b.polygon_in);
        (0..n)
            .map(|k| {
                let (r, col) = (k / cols, k % cols);
                let dx = (col as f64 - (cols as f64 - 1.0) / 2.0) * sp;
                let dy = (r as f64 - (rows as f64 - 1.0) / 2.0) * sp;
                quantized(c + Vector2::new(dx, dy))
            })
            .collect()
    }
}
