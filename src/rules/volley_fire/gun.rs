//! Volley Fire! the Gardner gun's procedures beyond its fire (`fire.rs`):
//! "C. To self-destroy a gun, announce same prior to any melee, If a 6 is
//! rolled on a D6, cannot do so." and the jam's fall-back that "will not
//! leave building or square" (a gun left on the table: `captured.rs`).
//!
//! # Conventions
//! Table inches; a square's outline is the convex hull of its standing
//! men's base centres.

use nalgebra::{Point2, Vector2};

use super::action::UnitParams;
use super::engine::{VolleyFireRules, alive, centroid, ids, pos, refuse, sst, unit, ust};
use super::event::Event as VfEvent;
use super::melee::SQUARE;
use crate::core::RefusalKind;
use crate::core::dice::Dice;
use crate::geometry::{convex_hull, point_in_polygon};
use crate::rules::{Event, GameState, RuleError, Unit};

/// Halvings of the jam's fall-back tried to keep a gun inside its square.
const SQUARE_FALL_BACK_STEPS: usize = 40;

impl VolleyFireRules {
    /// May the crew try to destroy its gun now? A gun crew that has not
    /// tried, before any melee of this melee phase. (No dice.)
    pub(super) fn check_destroy_gun<'a>(
        &self,
        state: &'a GameState,
        p: &UnitParams,
    ) -> Result<&'a Unit, RuleError> {
        let (_, u) = unit(state, &p.unit)?;
        if !ust(u).gun {
            return Err(refuse(
                RefusalKind::CannotDo,
                format!("{} is not a gun crew", u.name),
            ));
        }
        if let Some(done) = ust(u).gun_destroyed {
            return Err(refuse(
                RefusalKind::CannotDo,
                if done {
                    format!("{}'s gun is destroyed already", u.name)
                } else {
                    format!("{} rolled a 6: it cannot destroy its gun", u.name)
                },
            ));
        }
        self.check_crew_has_gun(state, u)?;
        let fought = state.rules.volley_fire().and_then(|g| g.melee_at);
        if fought == Some(state.clock()) {
            return Err(refuse(
                RefusalKind::CannotDo,
                format!(
                    "a melee has been fought in this phase: announce the destruction of {}'s gun prior to any melee",
                    u.name
                ),
            ));
        }
        if alive(state, u).is_empty()
            || sst(state, u.side)
                .morale
                .is_some_and(|m| m != super::MoraleResult::Holds)
        {
            return Err(refuse(
                RefusalKind::OutOfTheFight,
                format!("{} is out of the fight", u.name),
            ));
        }
        Ok(u)
    }

    /// The crew rolls a d6: a 6 and it cannot; otherwise the gun never
    /// fires again.
    pub(super) fn resolve_destroy_gun(
        &self,
        state: &GameState,
        p: &UnitParams,
        dice: &mut dyn Dice,
    ) -> Result<Vec<Event>, RuleError> {
        let u = self.check_destroy_gun(state, p)?;
        let (ui, _) = unit(state, &p.unit)?;
        let roll = dice.roll(6)?;
        let destroyed = roll.face < self.data.fire.gun_destroy_fails_face;
        Ok(vec![
            Event::Rolled {
                purpose: format!(
                    "{} destroys its gun (fails on a {})",
                    u.name, self.data.fire.gun_destroy_fails_face
                ),
                figure: None,
                dice: vec![roll],
            },
            Event::VolleyFire(VfEvent::GunDestroyed {
                unit: ui,
                destroyed,
            }),
            Event::Note {
                text: if destroyed {
                    format!("{}'s gun is destroyed", u.name)
                } else {
                    format!("{} cannot destroy its gun", u.name)
                },
            },
        ])
    }

    /// The outline of a friendly square the crew stands in, if any.
    fn square_around(&self, state: &GameState, u: &Unit) -> Option<Vec<Point2<f64>>> {
        let at = centroid(state, &ids(&alive(state, u)));
        state
            .units
            .iter()
            .filter(|o| o.side == u.side && o.name != u.name && o.formation == SQUARE)
            .map(|o| {
                let men: Vec<Point2<f64>> = alive(state, o)
                    .iter()
                    .map(|(_, id)| pos(state, *id))
                    .collect();
                convex_hull(&men)
            })
            .find(|hull| hull.len() >= 3 && point_in_polygon(hull, at))
    }

    /// How far the jammed gun and crew fall back along `back` (a unit
    /// vector to their rear): the data file's 12 in, but a gun in a square
    /// "will not leave" it and goes only as far as every man stays inside.
    /// A gun in a building (the one it holds) stays in it the same way.
    pub(super) fn jam_fall_back_in(&self, state: &GameState, u: &Unit, back: Vector2<f64>) -> f64 {
        let full = self.data.fire.gun_jam_fall_back_in;
        let Some(hull) = self
            .square_around(state, u)
            .or_else(|| self.building_of(state, u).map(|b| b.polygon_in.clone()))
        else {
            return full;
        };
        let men: Vec<Point2<f64>> = alive(state, u)
            .iter()
            .map(|(_, id)| pos(state, *id))
            .collect();
        let inside = |d: f64| men.iter().all(|p| point_in_polygon(&hull, p + back * d));
        if inside(full) {
            return full;
        }
        // Inside at 0 (or as near as the men stand), outside at `full`.
        let (mut lo, mut hi) = (0.0, full);
        for _ in 0..SQUARE_FALL_BACK_STEPS {
            let mid = f64::midpoint(lo, hi);
            if inside(mid) {
                lo = mid;
            } else {
                hi = mid;
            }
        }
        lo
    }
}
