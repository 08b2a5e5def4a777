//! Table geometry for the rules: ranges, range bands, arcs and cones, radii,
//! line of sight, cover and rough ground through terrain areas.
//!
//! # Conventions
//! - Table frame of `TABLE_KIT.md`: inches, origin at the corner nearest
//!   marker 0, +x right, +y up seen from above. Points are `Point2<f64>` in
//!   that frame, vectors are `Vector2<f64>`.
//! - Angles are degrees counter-clockwise from +x (`facing_deg`).
//! - Distances on the table are "table inches"; the rules are written in
//!   "rule inches" for 25 mm figures. [`Scale`] converts (54 mm doubles every
//!   distance, so a table inch is half a rule inch).
//! - Every measurement carries a 1-sigma uncertainty in inches
//!   ([`Measured`]). A decision that the uncertainty could flip is a
//!   [`Call`] flagged `too_close_to_call`; it is never silently decided.
//!
//! Pure nalgebra, no I/O.

mod arc;
mod base;
mod measure;
mod path;
mod terrain;

pub use arc::{angle_off_facing_deg, in_cone, normalize_deg};
pub use base::{BaseShape, Placement, RangeMethod, range_in, within_radius};
pub use measure::{Band, CALL_MARGIN_SIGMAS, Call, Measured, Scale, band_of, position_sigma_in};
pub use path::{
    bearing_deg, disc_touches_base, in_half_disc, line_hits_base, path_length_in, path_turns_deg,
    point_at, segment_base_distance_in, square_entries, square_outline, walk_path,
};
pub use terrain::{
    Cover, Sight, TerrainArea, TerrainKind, convex_hull, distance_to_outline_in, length_inside_in,
    line_of_sight, point_in_polygon, polygon_area_in2, segment_crosses,
};
