//! Line of sight, with the optional rule of heights: "Any terrain taller
//! than the (tallest*) figure (unit/formation) is considered blocking
//! terrain for line of sight purposes" (a man on foot 6 ft, mounted 9 ft,
//! on a roof 12 ft, in a steeple 24 ft).
//!
//! # Conventions
//! Heights are feet; the optional rule is in play when every side's status
//! says `sight-heights = "true"`; without it every blocking area blocks.

use super::engine::{LittleColonialRules, fights_on, side_st, st};
use super::status::Perch;
use super::terrain_height_ft;
use crate::geometry::{Placement, Sight, TerrainArea, TerrainKind, line_of_sight};
use crate::rules::{Figure, GameState};

impl LittleColonialRules {
    /// The optional heights are in play when every side agreed.
    pub(super) fn heights_rule(state: &GameState) -> bool {
        !state.sides.is_empty() && (0..state.sides.len()).all(|i| side_st(state, i).sight_heights)
    }

    /// A figure's height, feet: his perch, else mounted or on foot.
    pub(super) fn height_ft(&self, f: &Figure) -> f64 {
        let s = &self.data.sight;
        match st(f).perch {
            Some(Perch::Steeple) => s.steeple_ft,
            Some(Perch::Roof) => s.roof_ft,
            None if f.mounted() => s.mounted_ft,
            None => s.foot_ft,
        }
    }

    /// The tallest figure of `f`'s unit (he alone when in none), feet.
    fn tallest_ft(&self, state: &GameState, f: &Figure) -> f64 {
        let unit = state.units.iter().find(|u| u.figures.contains(&f.id));
        let mates = unit.into_iter().flat_map(|u| &u.figures);
        mates
            .filter_map(|id| state.figure(*id))
            .filter(|g| fights_on(g))
            .map(|g| self.height_ft(g))
            .fold(self.height_ft(f), f64::max)
    }

    /// The line of sight from `from` to `to` (a figure `to_ft` tall, 0 for
    /// a point on the ground): with the optional heights, a blocking area
    /// blocks only when it is taller than the tallest figure of the two.
    pub(super) fn sight(
        &self,
        state: &GameState,
        from: &Figure,
        to: &Placement,
        to_ft: f64,
    ) -> Sight {
        if !Self::heights_rule(state) {
            return line_of_sight(&from.placement, to, &state.terrain, 0.0);
        }
        let eye_ft = self.tallest_ft(state, from).max(to_ft);
        let terrain: Vec<TerrainArea> = state
            .terrain
            .iter()
            .filter(|a| {
                !a.is(TerrainKind::Blocking)
                    || terrain_height_ft(&self.data, &a.name).is_none_or(|h| h > eye_ft)
            })
            .cloned()
            .collect();
        line_of_sight(&from.placement, to, &terrain, 0.0)
    }
}
