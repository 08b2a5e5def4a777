//! Volley Fire! concealment: "B. Visibility distance is the full table
//! except into cover when the viewer must be 6" away and can only see 6"
//! into and must call for "visibility". Concealed troops must be at the
//! edge of any cover to fire out and they will then be exposed. C. No
//! firing into concealment unless a target is visible. D. Small arms firing
//! range into and inside woods and scrub, etc., is 24". Gun range is 36".
//! E. Visibility into cover from the edge of is 12"."
//!
//! # Conventions
//! Table inches. Cover is the table's soft- and hard-cover areas (the
//! scenario's terrain: "All concealment must be defined at the
//! commencement of the game"); woods and scrub are the soft-cover areas.
//! Every distance is a [`Length`] with the figures' position uncertainty,
//! so a call near a limit is flagged too close to call by the shared
//! measurement. A viewer inside the cover sees into it as from its edge
//! (house reading).

use super::engine::{COVER_KINDS, VolleyFireRules, in_terrain, ust};
use crate::core::{Inch, Length};
use crate::geometry::{
    Call, TerrainArea, TerrainKind, distance_to_outline_in, length_inside_in, point_in_polygon,
};
use crate::rules::{Figure, GameState, Unit};

/// The cover area a point stands in.
fn cover_at(state: &GameState, p: nalgebra::Point2<f64>) -> Option<&TerrainArea> {
    state
        .terrain
        .iter()
        .find(|t| COVER_KINDS.iter().any(|k| t.is(*k)) && point_in_polygon(&t.polygon_in, p))
}

impl VolleyFireRules {
    /// A unit that fired out of cover is exposed for the rest of that turn
    /// and all of the next (house value: the text says only "exposed").
    pub(super) fn exposed(&self, state: &GameState, u: &Unit) -> bool {
        ust(u)
            .exposed_turn
            .is_some_and(|t| state.turn <= t.saturating_add(1))
    }

    /// Does the unit have a man in cover (it is concealed there)?
    pub(super) fn has_men_in_cover(&self, state: &GameState, men: &[&Figure]) -> bool {
        men.iter()
            .any(|f| in_terrain(state, f.placement.center_in_table, &COVER_KINDS))
    }

    /// Does the firer see the target man? In the open: yes (the full
    /// table). In cover: the viewer must stand within 6 in of the cover's
    /// outline and sees 6 in into it (the sight line's length inside), 12 in
    /// from its edge; an exposed target is seen. Returns the call and the
    /// length that decided it.
    pub(super) fn sees(
        &self,
        state: &GameState,
        f: &Figure,
        t: &Figure,
        t_exposed: bool,
    ) -> (Call<bool>, Length<Inch>) {
        let c = &self.data.concealment;
        let (fp, tp) = (f.placement.center_in_table, t.placement.center_in_table);
        let range = Length::<Inch>::centre_to_centre(&f.placement, &t.placement);
        let area = cover_at(state, tp);
        let Some(area) = area.filter(|_| !t_exposed) else {
            return (Call::sure(true), range);
        };
        let viewer_inside = point_in_polygon(&area.polygon_in, fp);
        let off = Length::<Inch>::new(
            if viewer_inside {
                0.0
            } else {
                distance_to_outline_in(&area.polygon_in, fp)
            },
            f.placement.sigma_in,
        );
        let near = off.at_most(c.view_from_in);
        if !near.value && !near.too_close_to_call {
            return (Call::sure(false), off);
        }
        let at_edge = off.at_most(c.edge_in);
        let depth = if at_edge.value {
            c.see_into_from_edge_in
        } else {
            c.see_into_in
        };
        let into = Length::<Inch>::new(length_inside_in(fp, tp, &area.polygon_in), range.sigma());
        let deep = into.at_most(depth);
        // The edge call matters only when the two depths would differ.
        let edge_matters = at_edge.too_close_to_call
            && into.value() > c.see_into_in
            && into.value() <= c.see_into_from_edge_in;
        let call = Call {
            value: near.value && deep.value,
            too_close_to_call: near.too_close_to_call || deep.too_close_to_call || edge_matters,
        };
        (call, if near.too_close_to_call { off } else { into })
    }

    /// "Concealed troops must be at the edge of any cover to fire out": a
    /// firer in cover shoots at a man outside it only from within
    /// `concealment.edge_in` of its outline. Returns the call and the
    /// firer's distance from the edge.
    pub(super) fn fires_out(
        &self,
        state: &GameState,
        f: &Figure,
        t: &Figure,
    ) -> (Call<bool>, Length<Inch>) {
        let fp = f.placement.center_in_table;
        let Some(area) = cover_at(state, fp) else {
            return (Call::sure(true), Length::exact(0.0));
        };
        if point_in_polygon(&area.polygon_in, t.placement.center_in_table) {
            return (Call::sure(true), Length::exact(0.0));
        }
        let depth = Length::<Inch>::new(
            distance_to_outline_in(&area.polygon_in, fp),
            f.placement.sigma_in,
        );
        (depth.at_most(self.data.concealment.edge_in), depth)
    }

    /// "Small arms firing range into and inside woods and scrub, etc., is
    /// 24". Gun range is 36"": the range limit for a target man standing in
    /// woods or scrub (a soft-cover area), if he does.
    pub(super) fn woods_range_in(&self, state: &GameState, t: &Figure, gun: bool) -> Option<f64> {
        let c = &self.data.concealment;
        in_terrain(
            state,
            t.placement.center_in_table,
            &[TerrainKind::SoftCover],
        )
        .then_some(if gun {
            c.woods_gun_range_in
        } else {
            c.woods_range_in
        })
    }
}
