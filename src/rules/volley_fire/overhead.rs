//! Volley Fire! overhead fire: "C. For rifles or guns to fire overhead the
//! target must be further from any "obstacle" than the firer, and the
//! target or firer must be elevated." ("Dervish spears can throw overhead
//! with all figures in range": spears are not held to it.)
//!
//! # Conventions
//! Table inches. The "obstacle" is any standing figure of a unit other than
//! the firer's and the target's whose base the line of fire (centre to
//! centre) crosses; the firer's own ranks are the firing-ranks rule's. A
//! figure is elevated when he stands in a terrain area of kind `hill`.

use nalgebra::Point2;

use super::engine::in_terrain;
use crate::geometry::{TerrainKind, line_hits_base};
use crate::rules::{Figure, GameState, Unit};

/// The standing figures that may stand in the way of `u`'s fire at `t`.
pub(super) fn others<'a>(state: &'a GameState, u: &Unit, t: &Unit) -> Vec<&'a Figure> {
    state
        .figures
        .iter()
        .filter(|f| f.active() && !u.figures.contains(&f.id) && !t.figures.contains(&f.id))
        .collect()
}

/// Is the figure on high ground?
fn elevated(state: &GameState, p: Point2<f64>) -> bool {
    in_terrain(state, p, &[TerrainKind::Hill])
}

/// May `f` fire at `to` over the figures in the way? A clear line: yes.
/// Over others: only when the firer or the target is elevated and the
/// target is further from every one of them than the firer.
pub(super) fn may_fire_over(
    state: &GameState,
    others: &[&Figure],
    f: &Figure,
    to: &Figure,
) -> bool {
    let (a, b) = (f.placement.center_in_table, to.placement.center_in_table);
    let mut over = others
        .iter()
        .filter(|o| line_hits_base(a, b, &o.placement))
        .peekable();
    if over.peek().is_none() {
        return true;
    }
    if !(elevated(state, a) || elevated(state, b)) {
        return false;
    }
    over.all(|o| {
        let p = o.placement.center_in_table;
        (b - p).norm() > (a - p).norm()
    })
}
