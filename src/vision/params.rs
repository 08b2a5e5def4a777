//! Detector parameters (`calibration/vision.toml`): loaded as a raw spec,
//! then checked, with every problem reported with file, line and field.
//!
//! # Conventions
//! Sizes in table inches, angles in degrees, colour levels 0..255 after
//! white balance, hues in degrees on the HSV wheel (red 0, green 120,
//! blue 240).

use std::path::Path;

use serde::Deserialize;
use toml::Spanned;

use crate::spec::{SourceFile, SpecError, SpecProblem};

/// The defaults shipped with the program.
pub const DEFAULT_TOML: &str = include_str!("../../calibration/vision.toml");

/// Physical kit sizes (`TABLE_KIT.md`).
#[derive(Debug, Clone, PartialEq)]
pub struct KitParams {
    pub foot_diameter_in: f64,
    pub mounted_width_in: f64,
    pub mounted_length_in: f64,
    pub band_width_in: f64,
    pub base_height_in: f64,
    pub front_arc_deg: f64,
}

#[derive(Debug, Clone, PartialEq)]
pub struct RectifyParams {
    pub px_per_in: f64,
    pub map_grid_px: u32,
}

#[derive(Debug, Clone, PartialEq)]
pub struct WhiteParams {
    pub margin_inner_in: f64,
    pub margin_outer_in: f64,
    pub marker_keep_out_in: f64,
    pub paper_level: f64,
}

/// A hue interval on the wheel, degrees; wraps when `from > to`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct HueRange {
    pub from_deg: f64,
    pub to_deg: f64,
}

impl HueRange {
    pub fn contains(&self, hue_deg: f64) -> bool {
        if self.from_deg <= self.to_deg {
            (self.from_deg..=self.to_deg).contains(&hue_deg)
        } else {
            hue_deg >= self.from_deg || hue_deg <= self.to_deg
        }
    }
}

#[derive(Debug, Clone, PartialEq)]
pub struct ColourParams {
    pub min_saturation: f64,
    pub green_min_saturation: f64,
    pub green_pale_over_table: f64,
    pub green_pale_saturation: f64,
    /// Degrees a pale green must be bluer than the local table's hue.
    pub green_min_hue_over_table: f64,
    /// Hues a green that is bluer than its table may have (wider than
    /// `green_hue`: a thin band blurs toward the table's colour).
    pub green_relative_hue: HueRange,
    /// ... or, less blue than that, at least `green_joint_hue_over_table`
    /// degrees bluer than the table together with at least
    /// `green_joint_level_over_table` times the table's local level (a thin
    /// green band on a green mat blurred with pale groundwork: yellower
    /// than the paint, brighter than the mat).
    pub green_joint_hue_over_table: f64,
    pub green_joint_level_over_table: f64,
    /// A pale red or blue (at least `relative_min_saturation`) is accepted
    /// when its hue is this far round the wheel from the table's.
    pub relative_min_saturation: f64,
    pub relative_min_hue_distance_deg: f64,
    /// Colours accepted relative to the table must be at least this share
    /// of its level (shadowed foliage is darker than paint).
    pub relative_min_level_over_table: f64,
    /// A red or blue pixel must stand out from the table: its hue at least
    /// `unlike_table_hue_deg` from the whole table's median hue, or its
    /// level at least `unlike_table_level` times the table's local level
    /// (a brown wood mat has red's hue; paint is far brighter), or its
    /// saturation at least `unlike_table_saturation` over the table's
    /// local saturation (a dark red on a pale sand mat of near its hue).
    pub unlike_table_hue_deg: f64,
    pub unlike_table_level: f64,
    pub unlike_table_saturation: f64,
    /// ... or both, each by less: its hue at least
    /// `unlike_table_joint_hue_deg` from the whole table's and its
    /// saturation at least `unlike_table_joint_saturation` over the table's
    /// around it (a darker red on sand: neither alone, but both together).
    pub unlike_table_joint_hue_deg: f64,
    pub unlike_table_joint_saturation: f64,
    /// ... or its hue at least `unlike_table_joint_level_hue_deg` from the
    /// whole table's and its level at least `unlike_table_joint_level` times
    /// the table's local level (a red under warm light on a wood mat: a
    /// little redder and a little brighter than the wood, not enough of
    /// either alone).
    pub unlike_table_joint_level_hue_deg: f64,
    pub unlike_table_joint_level: f64,
    pub red_hue: HueRange,
    pub green_hue: HueRange,
    pub blue_hue: HueRange,
    pub white_max_saturation: f64,
    /// Share of the paper level.
    pub white_min_level: f64,
    pub white_min_over_table: f64,
    /// Lowest local illumination (table level here over the table's median
    /// level) that the white level is scaled down to, 0..1.
    pub white_min_illumination: f64,
    /// On a coloured table (mean saturation at least this), white may stand
    /// out by its greyness: it needs only `white_min_level_on_colour` of
    /// the table's level.
    pub white_coloured_table_saturation: f64,
    pub white_min_level_on_colour: f64,
    /// A thin white band takes on the table's colour (blur, and JPEG's
    /// chroma at half resolution): a pixel of the whole table's hue (within
    /// `white_bleed_hue_deg`) may be this share of the table's local
    /// saturation more saturated than `white_max_saturation`.
    pub white_bleed_share: f64,
    pub white_bleed_hue_deg: f64,
    pub table_cell_in: f64,
    /// No band colour is darker than this share of the paper level (times the
    /// local illumination, as for white).
    pub band_min_level: f64,
    /// Gaps in a band up to this long (inches) close where their pixels
    /// pass its test with relaxed thresholds: saturations and hue margins at
    /// `weak_share`, levels at `weak_level` (hysteresis).
    pub bridge_in: f64,
    pub weak_share: f64,
    pub weak_level: f64,
}

#[derive(Debug, Clone, PartialEq)]
pub struct CandidateParams {
    pub min_ring_score: f64,
    /// A fainter ring, labelled on this share of its samples and up (below
    /// `min_ring_score`), is tried too, and stands only when its edge is
    /// found on `fit.faint_min_edge_share` of the rays.
    pub faint_ring_score: f64,
    pub min_rect_score: f64,
    pub max_inner_score: f64,
    pub max_outer_score: f64,
    /// A candidate whose inside is band colour (a model painted like its
    /// band) is still a base when at most this share of its outside is.
    pub max_outer_score_filled: f64,
    /// The outside counts as band colour only where it is also band colour
    /// this far beyond the edge, inches (a neighbour's band is narrower).
    pub outer_far_in: f64,
    pub min_component_share: f64,
    /// Pieces of one band smaller than a component (a faint ring broken
    /// by a few unlabelled pixels) are taken together when their boxes
    /// are this close, inches, and together span no more than a round
    /// base; components of a mounted base's band this close are also
    /// searched together for a rectangle.
    pub piece_gap_in: f64,
}

#[derive(Debug, Clone, PartialEq)]
pub struct FitParams {
    pub rays: usize,
    pub iterations: usize,
    pub max_edge_residual_in: f64,
    pub min_edge_points: usize,
    pub min_edge_share: f64,
    /// Share of the rays that must find the edge of a faint ring (see
    /// `candidates.faint_ring_score`).
    pub faint_min_edge_share: f64,
    /// Share of the rays that must find the outer edge of a filled base
    /// (its inside like its band; see `candidates.max_outer_score_filled`).
    pub filled_min_edge_share: f64,
    /// Ring or rectangle score minus its inside's below this: not a base.
    pub min_confidence: f64,
    /// A round base is foliage, not a base, when more than this share of
    /// its inside and this share of its surroundings are band-coloured.
    pub max_band_like_inside: f64,
    pub max_band_like_outside: f64,
    /// Ground round a ring that is darker than this share of the band's
    /// level and within `table_like_hue_deg` of the whole table's hue is
    /// table, not band-like, whatever its hue's nearness to the band's
    /// (0..1; 0: never).
    pub band_like_outside_max_table_level_share: f64,
    pub table_like_hue_deg: f64,
    /// ... except a white ring whose outer edge is found on this share of
    /// the rays or more: white has no hue, and the tint a warm light gives
    /// it is the mat's (0..1; above 1: never).
    pub white_terrain_min_edge_share: f64,
    /// Round a white band, like it is at most `white_like_saturation` more
    /// saturated and at least `white_like_level_share` of its level
    /// (0..1); a white ring whose inside is like its band is terrain
    /// with more than `white_filled_max_like_outside` round it like it.
    pub white_like_saturation: f64,
    pub white_like_level_share: f64,
    pub white_filled_max_like_outside: f64,
    /// Band-like: within this many degrees of the band's hue ...
    pub band_like_hue_deg: f64,
    /// ... and at least this share of its saturation.
    pub band_like_saturation_share: f64,
}

#[derive(Debug, Clone, PartialEq)]
pub struct FacingParams {
    pub min_arc_blackness: f64,
    pub min_contrast: f64,
    pub arc_width_share: (f64, f64),
    pub min_mounted_contrast: f64,
    /// Width of the band compared with the front arc on each side of it.
    pub flank_deg: f64,
    /// No facing when another arc away from the best stands out by more
    /// than this share of the best one's contrast.
    pub max_rival_share: f64,
    /// The groundwork ring sampled just inside the band, inches inside the
    /// band's inner edge (nearer, farther): where it is darker than usual
    /// at a direction, a model or its shadow lies over the band there, not
    /// the front mark.
    pub groundwork_insets_in: (f64, f64),
    /// Share of that extra groundwork darkness taken off the band's
    /// blackness at the same direction.
    pub groundwork_weight: f64,
    /// An arc on the side of the base away from the camera that is seen
    /// narrower than this share of `front_arc_deg` is part-hidden by the
    /// model: its edge nearer the camera and the known width place it.
    pub hidden_width_share: f64,
    /// A round base's facing is given only when its arc's contrast is at
    /// least this, ...
    pub clear_min_contrast: f64,
    /// ... a rival arc's at most this share of it, ...
    pub clear_max_rival_share: f64,
    /// ... and, for an arc more than `far_side_deg` from the direction
    /// toward the camera, its contrast at least `far_side_min_contrast`.
    pub far_side_deg: f64,
    pub far_side_min_contrast: f64,
    /// ... and, for an arc more than `far_arc_deg` from the direction
    /// toward the camera (where the model leans over the band, hides the
    /// mark and its dark parts rival it), a rival arc at most
    /// `far_arc_max_rival_share` of its contrast and the line of sight at
    /// most `far_arc_max_view_deg` from the vertical.
    pub far_arc_deg: f64,
    pub far_arc_max_rival_share: f64,
    pub far_arc_max_view_deg: f64,
    /// ... and the longest stretch of band away from the arc that is not
    /// seen (terrain, a hand or the model over it) at most this share of
    /// `front_arc_deg` (a longer one may hide the mark).
    pub clear_max_hidden_share: f64,
    /// Unseen band counts only this many degrees either side of the
    /// direction toward the camera's nadir (the model hides the far side).
    pub hidden_near_deg: f64,
    /// ... unless no rival arc reaches this share of the arc's contrast
    /// (the mark is the only dark arc seen).
    pub clear_hidden_max_rival_share: f64,
    /// A round base's dark arc wider than this share of the kit's mark
    /// (between its edges) has something dark beside the mark (a model's
    /// dark part or its shadow) that moves its centre: no facing.
    pub clear_max_width_share: f64,
    /// Seen further from the vertical than `far_arc_max_view_deg`, an arc
    /// within this many degrees of the direction toward the camera (on the
    /// band's near side, seen directly) is given with a rival; further
    /// round, only alone (`clear_hidden_max_rival_share`). Dark enough
    /// (`far_side_min_contrast`) either way.
    pub oblique_near_deg: f64,
    /// A mounted base's facing is given only when its back edge is at most
    /// this share as black as its front edge.
    pub mounted_max_rival_share: f64,
}

/// All detector parameters, checked.
#[derive(Debug, Clone, PartialEq)]
pub struct DetectorParams {
    /// The model from a fitted base's evidence to its confidence.
    pub confidence: super::confidence::ConfidenceModel,
    pub kit: KitParams,
    pub rectify: RectifyParams,
    pub white: WhiteParams,
    pub colour: ColourParams,
    pub candidates: CandidateParams,
    pub fit: FitParams,
    pub facing: FacingParams,
    /// How the share of the bases' painted side seen is pooled.
    pub side: super::side::SideParams,
}

type F = Spanned<f64>;
type U = Spanned<i64>;
type Pair = Spanned<[f64; 2]>;

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawKit {
    foot_diameter_in: F,
    mounted_width_in: F,
    mounted_length_in: F,
    band_width_in: F,
    base_height_in: F,
    front_arc_deg: F,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawRectify {
    px_per_in: F,
    map_grid_px: U,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawWhite {
    margin_inner_in: F,
    margin_outer_in: F,
    marker_keep_out_in: F,
    paper_level: F,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawColour {
    min_saturation: F,
    green_min_saturation: F,
    green_pale_over_table: F,
    green_pale_saturation: F,
    green_min_hue_over_table: F,
    green_relative_hue_deg: Pair,
    green_joint_hue_over_table: F,
    green_joint_level_over_table: F,
    relative_min_saturation: F,
    relative_min_hue_distance_deg: F,
    relative_min_level_over_table: F,
    unlike_table_hue_deg: F,
    unlike_table_level: F,
    unlike_table_saturation: F,
    unlike_table_joint_hue_deg: F,
    unlike_table_joint_saturation: F,
    unlike_table_joint_level_hue_deg: F,
    unlike_table_joint_level: F,
    red_hue_deg: Pair,
    green_hue_deg: Pair,
    blue_hue_deg: Pair,
    white_max_saturation: F,
    white_min_level: F,
    white_min_over_table: F,
    white_min_illumination: F,
    white_coloured_table_saturation: F,
    white_bleed_share: F,
    white_bleed_hue_deg: F,
    white_min_level_on_colour: F,
    table_cell_in: F,
    band_min_level: F,
    bridge_in: F,
    weak_share: F,
    weak_level: F,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawCandidates {
    min_ring_score: F,
    faint_ring_score: F,
    min_rect_score: F,
    max_inner_score: F,
    max_outer_score: F,
    max_outer_score_filled: F,
    outer_far_in: F,
    min_component_share: F,
    piece_gap_in: F,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawFit {
    rays: U,
    iterations: U,
    max_edge_residual_in: F,
    min_edge_points: U,
    min_edge_share: F,
    faint_min_edge_share: F,
    filled_min_edge_share: F,
    min_confidence: F,
    max_band_like_inside: F,
    max_band_like_outside: F,
    band_like_outside_max_table_level_share: F,
    table_like_hue_deg: F,
    white_terrain_min_edge_share: F,
    white_like_saturation: F,
    white_like_level_share: F,
    white_filled_max_like_outside: F,
    band_like_hue_deg: F,
    band_like_saturation_share: F,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawFacing {
    min_arc_blackness: F,
    min_contrast: F,
    arc_width_share: Pair,
    min_mounted_contrast: F,
    flank_deg: F,
    max_rival_share: F,
    groundwork_insets_in: Pair,
    groundwork_weight: F,
    hidden_width_share: F,
    clear_min_contrast: F,
    clear_max_rival_share: F,
    far_side_deg: F,
    far_side_min_contrast: F,
    far_arc_deg: F,
    far_arc_max_rival_share: F,
    far_arc_max_view_deg: F,
    clear_max_hidden_share: F,
    hidden_near_deg: F,
    clear_hidden_max_rival_share: F,
    clear_max_width_share: F,
    oblique_near_deg: F,
    mounted_max_rival_share: F,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawSide {
    prior_share: F,
    prior_figures: F,
    share_range: Pair,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawConfidence {
    bias: F,
    weights: Spanned<Vec<f64>>,
    min_report: F,
    min_certain: F,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawParams {
    confidence: RawConfidence,
    kit: RawKit,
    rectify: RawRectify,
    white: RawWhite,
    colour: RawColour,
    candidates: RawCandidates,
    fit: RawFit,
    facing: RawFacing,
    side: RawSide,
}

/// Collects every problem of one file.
struct Checker<'a> {
    src: &'a SourceFile,
    problems: Vec<SpecProblem>,
}

impl Checker<'_> {
    fn num(&mut self, field: &str, v: &F, min: f64, max: f64) -> f64 {
        let x = *v.get_ref();
        if !(x.is_finite() && x >= min && x <= max) {
            self.problems.push(self.src.problem(
                Some(v.span()),
                field,
                format!("is {x}, must be between {min} and {max}"),
            ));
        }
        x
    }

    fn count(&mut self, field: &str, v: &U, min: i64, max: i64) -> usize {
        let x = *v.get_ref();
        if !(min..=max).contains(&x) {
            self.problems.push(self.src.problem(
                Some(v.span()),
                field,
                format!("is {x}, must be a whole number from {min} to {max}"),
            ));
        }
        usize::try_from(x.clamp(min.max(0), max)).unwrap_or(0)
    }

    fn pair(&mut self, field: &str, v: &Pair, min: f64, max: f64, ordered: bool) -> (f64, f64) {
        let [a, b] = *v.get_ref();
        let in_range = |x: f64| x.is_finite() && x >= min && x <= max;
        if !(in_range(a) && in_range(b)) || (ordered && a > b) {
            let order = if ordered {
                ", the first not above the second"
            } else {
                ""
            };
            self.problems.push(self.src.problem(
                Some(v.span()),
                field,
                format!("is [{a}, {b}], both must be between {min} and {max}{order}"),
            ));
        }
        (a, b)
    }

    fn hue(&mut self, field: &str, v: &Pair) -> HueRange {
        let (from_deg, to_deg) = self.pair(field, v, 0.0, 360.0, false);
        HueRange { from_deg, to_deg }
    }
}

impl DetectorParams {
    /// The shipped defaults.
    pub fn defaults() -> Result<Self, SpecError> {
        Self::from_source(&SourceFile::from_text(
            "calibration/vision.toml (built in)",
            DEFAULT_TOML,
        ))
    }

    pub fn load(path: &Path) -> Result<Self, SpecError> {
        Self::from_source(&SourceFile::read(path)?)
    }

    pub fn from_source(src: &SourceFile) -> Result<Self, SpecError> {
        let raw: RawParams = src.parse_toml()?;
        let mut c = Checker {
            src,
            problems: Vec::new(),
        };
        let k = &raw.kit;
        let kit = KitParams {
            foot_diameter_in: c.num("kit.foot_diameter_in", &k.foot_diameter_in, 0.2, 4.0),
            mounted_width_in: c.num("kit.mounted_width_in", &k.mounted_width_in, 0.2, 4.0),
            mounted_length_in: c.num("kit.mounted_length_in", &k.mounted_length_in, 0.4, 6.0),
            band_width_in: c.num("kit.band_width_in", &k.band_width_in, 0.02, 1.0),
            base_height_in: c.num("kit.base_height_in", &k.base_height_in, 0.0, 1.0),
            front_arc_deg: c.num("kit.front_arc_deg", &k.front_arc_deg, 5.0, 180.0),
        };
        if kit.band_width_in * 2.0 >= kit.foot_diameter_in.min(kit.mounted_width_in) {
            c.problems.push(src.problem(
                Some(k.band_width_in.span()),
                "kit.band_width_in",
                "the band must be narrower than half the smallest base",
            ));
        }
        let r = &raw.rectify;
        let rectify = RectifyParams {
            px_per_in: c.num("rectify.px_per_in", &r.px_per_in, 4.0, 100.0),
            map_grid_px: u32::try_from(c.count("rectify.map_grid_px", &r.map_grid_px, 1, 64))
                .unwrap_or(1),
        };
        let w = &raw.white;
        let white = WhiteParams {
            margin_inner_in: c.num("white.margin_inner_in", &w.margin_inner_in, 0.0, 2.0),
            margin_outer_in: c.num("white.margin_outer_in", &w.margin_outer_in, 0.05, 3.0),
            marker_keep_out_in: c.num("white.marker_keep_out_in", &w.marker_keep_out_in, 0.0, 3.0),
            paper_level: c.num("white.paper_level", &w.paper_level, 50.0, 255.0),
        };
        if white.margin_outer_in <= white.margin_inner_in {
            c.problems.push(src.problem(
                Some(w.margin_outer_in.span()),
                "white.margin_outer_in",
                "must be larger than white.margin_inner_in",
            ));
        }
        let co = &raw.colour;
        let colour = ColourParams {
            min_saturation: c.num("colour.min_saturation", &co.min_saturation, 0.0, 1.0),
            green_pale_over_table: c.num(
                "colour.green_pale_over_table",
                &co.green_pale_over_table,
                0.0,
                10.0,
            ),
            green_joint_hue_over_table: c.num(
                "colour.green_joint_hue_over_table",
                &co.green_joint_hue_over_table,
                0.0,
                180.0,
            ),
            green_joint_level_over_table: c.num(
                "colour.green_joint_level_over_table",
                &co.green_joint_level_over_table,
                0.0,
                10.0,
            ),
            green_pale_saturation: c.num(
                "colour.green_pale_saturation",
                &co.green_pale_saturation,
                0.0,
                1.0,
            ),
            green_min_hue_over_table: c.num(
                "colour.green_min_hue_over_table",
                &co.green_min_hue_over_table,
                0.0,
                180.0,
            ),
            green_relative_hue: c.hue("colour.green_relative_hue_deg", &co.green_relative_hue_deg),
            relative_min_saturation: c.num(
                "colour.relative_min_saturation",
                &co.relative_min_saturation,
                0.0,
                1.0,
            ),
            relative_min_hue_distance_deg: c.num(
                "colour.relative_min_hue_distance_deg",
                &co.relative_min_hue_distance_deg,
                0.0,
                180.0,
            ),
            relative_min_level_over_table: c.num(
                "colour.relative_min_level_over_table",
                &co.relative_min_level_over_table,
                0.0,
                10.0,
            ),
            unlike_table_hue_deg: c.num(
                "colour.unlike_table_hue_deg",
                &co.unlike_table_hue_deg,
                0.0,
                180.0,
            ),
            unlike_table_level: c.num(
                "colour.unlike_table_level",
                &co.unlike_table_level,
                0.0,
                10.0,
            ),
            unlike_table_saturation: c.num(
                "colour.unlike_table_saturation",
                &co.unlike_table_saturation,
                0.0,
                1.0,
            ),
            unlike_table_joint_hue_deg: c.num(
                "colour.unlike_table_joint_hue_deg",
                &co.unlike_table_joint_hue_deg,
                0.0,
                180.0,
            ),
            unlike_table_joint_saturation: c.num(
                "colour.unlike_table_joint_saturation",
                &co.unlike_table_joint_saturation,
                0.0,
                1.0,
            ),
            unlike_table_joint_level_hue_deg: c.num(
                "colour.unlike_table_joint_level_hue_deg",
                &co.unlike_table_joint_level_hue_deg,
                0.0,
                180.0,
            ),
            unlike_table_joint_level: c.num(
                "colour.unlike_table_joint_level",
                &co.unlike_table_joint_level,
                0.0,
                10.0,
            ),
            green_min_saturation: c.num(
                "colour.green_min_saturation",
                &co.green_min_saturation,
                0.0,
                1.0,
            ),
            red_hue: c.hue("colour.red_hue_deg", &co.red_hue_deg),
            green_hue: c.hue("colour.green_hue_deg", &co.green_hue_deg),
            blue_hue: c.hue("colour.blue_hue_deg", &co.blue_hue_deg),
            white_max_saturation: c.num(
                "colour.white_max_saturation",
                &co.white_max_saturation,
                0.0,
                1.0,
            ),
            white_min_level: c.num("colour.white_min_level", &co.white_min_level, 0.0, 2.0),
            white_min_over_table: c.num(
                "colour.white_min_over_table",
                &co.white_min_over_table,
                0.0,
                10.0,
            ),
            white_min_illumination: c.num(
                "colour.white_min_illumination",
                &co.white_min_illumination,
                0.0,
                1.0,
            ),
            white_coloured_table_saturation: c.num(
                "colour.white_coloured_table_saturation",
                &co.white_coloured_table_saturation,
                0.0,
                1.0,
            ),
            white_min_level_on_colour: c.num(
                "colour.white_min_level_on_colour",
                &co.white_min_level_on_colour,
                0.0,
                10.0,
            ),
            white_bleed_share: c.num("colour.white_bleed_share", &co.white_bleed_share, 0.0, 1.0),
            white_bleed_hue_deg: c.num(
                "colour.white_bleed_hue_deg",
                &co.white_bleed_hue_deg,
                0.0,
                180.0,
            ),
            table_cell_in: c.num("colour.table_cell_in", &co.table_cell_in, 0.2, 12.0),
            band_min_level: c.num("colour.band_min_level", &co.band_min_level, 0.0, 1.0),
            bridge_in: c.num("colour.bridge_in", &co.bridge_in, 0.0, 1.0),
            weak_share: c.num("colour.weak_share", &co.weak_share, 0.1, 1.0),
            weak_level: c.num("colour.weak_level", &co.weak_level, 0.1, 1.0),
        };
        let ca = &raw.candidates;
        let candidates = CandidateParams {
            min_ring_score: c.num("candidates.min_ring_score", &ca.min_ring_score, 0.0, 1.0),
            faint_ring_score: c.num(
                "candidates.faint_ring_score",
                &ca.faint_ring_score,
                0.0,
                1.0,
            ),
            min_rect_score: c.num("candidates.min_rect_score", &ca.min_rect_score, 0.0, 1.0),
            max_inner_score: c.num("candidates.max_inner_score", &ca.max_inner_score, 0.0, 1.0),
            max_outer_score: c.num("candidates.max_outer_score", &ca.max_outer_score, 0.0, 1.0),
            max_outer_score_filled: c.num(
                "candidates.max_outer_score_filled",
                &ca.max_outer_score_filled,
                0.0,
                1.0,
            ),
            outer_far_in: c.num("candidates.outer_far_in", &ca.outer_far_in, 0.0, 4.0),
            min_component_share: c.num(
                "candidates.min_component_share",
                &ca.min_component_share,
                0.0,
                1.0,
            ),
            piece_gap_in: c.num("candidates.piece_gap_in", &ca.piece_gap_in, 0.0, 1.0),
        };
        let f = &raw.fit;
        let fit = FitParams {
            rays: c.count("fit.rays", &f.rays, 8, 720),
            iterations: c.count("fit.iterations", &f.iterations, 1, 50),
            max_edge_residual_in: c.num(
                "fit.max_edge_residual_in",
                &f.max_edge_residual_in,
                0.005,
                1.0,
            ),
            min_edge_points: c.count("fit.min_edge_points", &f.min_edge_points, 3, 720),
            min_edge_share: c.num("fit.min_edge_share", &f.min_edge_share, 0.0, 1.0),
            faint_min_edge_share: c.num(
                "fit.faint_min_edge_share",
                &f.faint_min_edge_share,
                0.0,
                1.0,
            ),
            filled_min_edge_share: c.num(
                "fit.filled_min_edge_share",
                &f.filled_min_edge_share,
                0.0,
                1.0,
            ),
            min_confidence: c.num("fit.min_confidence", &f.min_confidence, 0.0, 1.0),
            max_band_like_inside: c.num(
                "fit.max_band_like_inside",
                &f.max_band_like_inside,
                0.0,
                1.0,
            ),
            max_band_like_outside: c.num(
                "fit.max_band_like_outside",
                &f.max_band_like_outside,
                0.0,
                1.0,
            ),
            band_like_outside_max_table_level_share: c.num(
                "fit.band_like_outside_max_table_level_share",
                &f.band_like_outside_max_table_level_share,
                0.0,
                1.0,
            ),
            table_like_hue_deg: c.num("fit.table_like_hue_deg", &f.table_like_hue_deg, 0.0, 180.0),
            white_terrain_min_edge_share: c.num(
                "fit.white_terrain_min_edge_share",
                &f.white_terrain_min_edge_share,
                0.0,
                2.0,
            ),
            white_like_saturation: c.num(
                "fit.white_like_saturation",
                &f.white_like_saturation,
                0.0,
                1.0,
            ),
            white_like_level_share: c.num(
                "fit.white_like_level_share",
                &f.white_like_level_share,
                0.0,
                1.0,
            ),
            white_filled_max_like_outside: c.num(
                "fit.white_filled_max_like_outside",
                &f.white_filled_max_like_outside,
                0.0,
                1.0,
            ),
            band_like_hue_deg: c.num("fit.band_like_hue_deg", &f.band_like_hue_deg, 1.0, 180.0),
            band_like_saturation_share: c.num(
                "fit.band_like_saturation_share",
                &f.band_like_saturation_share,
                0.0,
                2.0,
            ),
        };
        let fa = &raw.facing;
        let facing = FacingParams {
            min_arc_blackness: c.num("facing.min_arc_blackness", &fa.min_arc_blackness, 0.0, 1.0),
            min_contrast: c.num("facing.min_contrast", &fa.min_contrast, 0.0, 1.0),
            arc_width_share: c.pair(
                "facing.arc_width_share",
                &fa.arc_width_share,
                0.0,
                10.0,
                true,
            ),
            min_mounted_contrast: c.num(
                "facing.min_mounted_contrast",
                &fa.min_mounted_contrast,
                0.0,
                1.0,
            ),
            flank_deg: c.num("facing.flank_deg", &fa.flank_deg, 2.0, 90.0),
            max_rival_share: c.num("facing.max_rival_share", &fa.max_rival_share, 0.0, 1.0),
            groundwork_insets_in: c.pair(
                "facing.groundwork_insets_in",
                &fa.groundwork_insets_in,
                0.0,
                0.5,
                true,
            ),
            groundwork_weight: c.num("facing.groundwork_weight", &fa.groundwork_weight, 0.0, 4.0),
            hidden_width_share: c.num(
                "facing.hidden_width_share",
                &fa.hidden_width_share,
                0.0,
                1.0,
            ),
            clear_min_contrast: c.num(
                "facing.clear_min_contrast",
                &fa.clear_min_contrast,
                0.0,
                1.0,
            ),
            clear_max_rival_share: c.num(
                "facing.clear_max_rival_share",
                &fa.clear_max_rival_share,
                0.0,
                1.0,
            ),
            far_side_deg: c.num("facing.far_side_deg", &fa.far_side_deg, 0.0, 180.0),
            far_side_min_contrast: c.num(
                "facing.far_side_min_contrast",
                &fa.far_side_min_contrast,
                0.0,
                1.0,
            ),
            far_arc_deg: c.num("facing.far_arc_deg", &fa.far_arc_deg, 0.0, 180.0),
            far_arc_max_rival_share: c.num(
                "facing.far_arc_max_rival_share",
                &fa.far_arc_max_rival_share,
                0.0,
                1.0,
            ),
            far_arc_max_view_deg: c.num(
                "facing.far_arc_max_view_deg",
                &fa.far_arc_max_view_deg,
                0.0,
                90.0,
            ),
            clear_max_hidden_share: c.num(
                "facing.clear_max_hidden_share",
                &fa.clear_max_hidden_share,
                0.0,
                9.0,
            ),
            hidden_near_deg: c.num("facing.hidden_near_deg", &fa.hidden_near_deg, 0.0, 180.0),
            clear_hidden_max_rival_share: c.num(
                "facing.clear_hidden_max_rival_share",
                &fa.clear_hidden_max_rival_share,
                0.0,
                1.0,
            ),
            clear_max_width_share: c.num(
                "facing.clear_max_width_share",
                &fa.clear_max_width_share,
                0.0,
                9.0,
            ),
            oblique_near_deg: c.num("facing.oblique_near_deg", &fa.oblique_near_deg, 0.0, 180.0),
            mounted_max_rival_share: c.num(
                "facing.mounted_max_rival_share",
                &fa.mounted_max_rival_share,
                0.0,
                1.0,
            ),
        };
        let sd = &raw.side;
        let side = super::side::SideParams {
            prior_share: c.num("side.prior_share", &sd.prior_share, -1.0, 2.0),
            prior_figures: c.num("side.prior_figures", &sd.prior_figures, 0.0, 1000.0),
            share_range: c.pair("side.share_range", &sd.share_range, -1.0, 2.0, true),
        };
        let cf = &raw.confidence;
        let mut weights = [0.0; super::confidence::FEATURES];
        let given = cf.weights.get_ref();
        if given.len() != weights.len() || given.iter().any(|w| !w.is_finite()) {
            c.problems.push(src.problem(
                Some(cf.weights.span()),
                "confidence.weights",
                format!(
                    "needs {} finite numbers, one per feature ({})",
                    weights.len(),
                    super::confidence::FEATURE_NAMES.join(", ")
                ),
            ));
        } else {
            weights.copy_from_slice(given);
        }
        let confidence = super::confidence::ConfidenceModel {
            bias: c.num("confidence.bias", &cf.bias, -100.0, 100.0),
            weights,
            min_report: c.num("confidence.min_report", &cf.min_report, 0.0, 1.0),
            min_certain: c.num("confidence.min_certain", &cf.min_certain, 0.0, 1.0),
        };
        if !c.problems.is_empty() {
            return Err(src.error(c.problems));
        }
        Ok(Self {
            confidence,
            kit,
            rectify,
            white,
            colour,
            candidates,
            fit,
            facing,
            side,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn defaults_load() {
        let p = DetectorParams::defaults().unwrap();
        assert!(p.kit.foot_diameter_in > 0.0);
        assert!(p.colour.red_hue.contains(5.0));
        assert!(p.colour.red_hue.contains(350.0));
        assert!(!p.colour.red_hue.contains(60.0));
    }

    #[test]
    fn every_bad_field_is_reported_with_its_line() {
        let text = DEFAULT_TOML
            .replace("px_per_in = 20.0", "px_per_in = -1.0")
            .replace("rays = 72", "rays = 2");
        let err = DetectorParams::from_source(&SourceFile::from_text("v.toml", text)).unwrap_err();
        assert_eq!(err.problems.len(), 2, "{err}");
        assert!(
            err.problems
                .iter()
                .any(|p| p.field == "rectify.px_per_in" && p.line.is_some())
        );
        assert!(err.problems.iter().any(|p| p.field == "fit.rays"));
    }

    #[test]
    fn unknown_fields_are_refused() {
        let text = DEFAULT_TOML.replace("[kit]", "[kit]\nfoot_size = 3");
        assert!(DetectorParams::from_source(&SourceFile::from_text("v.toml", text)).is_err());
    }
}
