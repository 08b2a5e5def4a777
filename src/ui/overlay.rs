//! Painting the table overlay: figure rings with name and facing, and the
//! selected figure's measurements. The same code paints over the live image
//! (through the table mapping and the lens) and in the top-down view
//! (a plain scale), because everything is drawn from table inches through a
//! [`ScreenFromTable`] transform.
//!
//! # Conventions
//! - Input positions are table inches (table frame of `TABLE_KIT.md`);
//!   outlines are sampled in table inches and mapped point by point, so
//!   circles stay correct under perspective and lens distortion.
//! - Facing is degrees counter-clockwise from +x.

use egui::{Align2, FontId, Painter, Pos2, Shape, Stroke};
use nalgebra::{Point2, Vector2};

use super::theme;
use crate::game::FigureId;
use crate::rules::overlay::{OverlayShape, Purpose, SightKind};
use crate::vision::{BaseKind, Detection};

/// Foot base diameter and mounted base size (`TABLE_KIT.md`), inches.
pub const FOOT_BASE_DIAMETER_IN: f64 = 1.0;
pub const MOUNTED_BASE_IN: [f64; 2] = [2.0, 1.0];
/// Sight lines labelled with range and band, nearest first.
const MAX_SIGHT_LABELS: usize = 6;
/// The band colour index of a target out of range.
const OUT_OF_RANGE_BAND: usize = 3;
/// Points sampled on a circle outline.
const CIRCLE_SEGMENTS: usize = 48;
/// Length of the facing tick beyond the base edge, inches.
const FACING_TICK_IN: f64 = 0.8;
/// Extra ring radius around the selected figure and the target, inches.
const HIGHLIGHT_GAP_IN: f64 = 0.25;

/// Maps a table point (inches) to a screen position (points).
pub type ScreenFromTable<'a> = &'a dyn Fn(Point2<f64>) -> Pos2;

/// The outline of a figure's base in table inches, closed (last point is not
/// repeated), grown by `grow_in`.
pub fn base_outline_in_table(det: &Detection, grow_in: f64) -> Vec<Point2<f64>> {
    let c = det.center_in_table;
    match det.base {
        BaseKind::Foot => circle_in_table(c, FOOT_BASE_DIAMETER_IN / 2.0 + grow_in),
        BaseKind::Mounted => {
            let facing = det.facing_deg.unwrap_or(0.0).to_radians();
            let along = Vector2::new(facing.cos(), facing.sin());
            let across = Vector2::new(-along.y, along.x);
            let (hl, hw) = (
                MOUNTED_BASE_IN[0] / 2.0 + grow_in,
                MOUNTED_BASE_IN[1] / 2.0 + grow_in,
            );
            vec![
                c + along * hl + across * hw,
                c - along * hl + across * hw,
                c - along * hl - across * hw,
                c + along * hl - across * hw,
            ]
        }
    }
}

/// A circle of `radius_in` about `center`, sampled in table inches.
pub fn circle_in_table(center: Point2<f64>, radius_in: f64) -> Vec<Point2<f64>> {
    (0..CIRCLE_SEGMENTS)
        .map(|i| {
            let a = std::f64::consts::TAU * i as f64 / CIRCLE_SEGMENTS as f64;
            center + Vector2::new(a.cos(), a.sin()) * radius_in
        })
        .collect()
}

/// A pie slice: the fire arc of `half_angle_deg` either side of `facing_deg`
/// out to `radius_in`.
pub fn arc_in_table(
    center: Point2<f64>,
    facing_deg: f64,
    half_angle_deg: f64,
    radius_in: f64,
) -> Vec<Point2<f64>> {
    let mut pts = vec![center];
    let steps = CIRCLE_SEGMENTS / 2;
    for i in 0..=steps {
        let a = (facing_deg - half_angle_deg + 2.0 * half_angle_deg * i as f64 / steps as f64)
            .to_radians();
        pts.push(center + Vector2::new(a.cos(), a.sin()) * radius_in);
    }
    pts
}

/// Half the base's extent along its facing, inches: where the facing tick
/// starts.
fn front_offset_in(det: &Detection) -> f64 {
    match det.base {
        BaseKind::Foot => FOOT_BASE_DIAMETER_IN / 2.0,
        BaseKind::Mounted => MOUNTED_BASE_IN[0] / 2.0,
    }
}

/// Draws a closed outline.
pub fn outline(painter: &Painter, to_screen: ScreenFromTable, pts: &[Point2<f64>], stroke: Stroke) {
    let screen: Vec<Pos2> = pts.iter().map(|p| to_screen(*p)).collect();
    painter.add(Shape::closed_line(screen, stroke));
}

/// A line between two table points, sampled so it bends with the lens.
pub fn segment(
    painter: &Painter,
    to_screen: ScreenFromTable,
    a: Point2<f64>,
    b: Point2<f64>,
    stroke: Stroke,
) {
    const SAMPLES: usize = 8;
    let pts: Vec<Pos2> = (0..=SAMPLES)
        .map(|i| to_screen(a + (b - a) * (i as f64 / SAMPLES as f64)))
        .collect();
    painter.add(Shape::line(pts, stroke));
}

/// Text on a dark plate, for reading over a busy photo.
pub fn label(painter: &Painter, pos: Pos2, text: &str, size: f32, colour: egui::Color32) {
    place_label(painter, pos, text, size, colour, true);
}

/// A label drawn only where it does not cover another label (a sight
/// line's or a ring's, which the player can read off the colour when the
/// table is crowded).
pub fn label_if_room(painter: &Painter, pos: Pos2, text: &str, size: f32, colour: egui::Color32) {
    place_label(painter, pos, text, size, colour, false);
}

/// The labels placed so far in this pass on one painter's area.
#[derive(Debug, Clone, Default)]
struct PlacedLabels {
    pass: u64,
    rects: Vec<egui::Rect>,
}

/// Places a label at `pos`, or moved down or up by its height when that
/// spot is taken; `always`: draw it at `pos` even when every spot is taken.
fn place_label(
    painter: &Painter,
    pos: Pos2,
    text: &str,
    size: f32,
    colour: egui::Color32,
    always: bool,
) {
    let galley = painter.layout_no_wrap(text.to_owned(), FontId::proportional(size), colour);
    let rect = Align2::CENTER_TOP
        .anchor_size(pos, galley.size())
        .expand(2.0);
    let clip = painter.clip_rect();
    let key = egui::Id::unique((
        "spotter-labels",
        painter.layer_id(),
        clip.min.x as i32,
        clip.min.y as i32,
        clip.max.x as i32,
        clip.max.y as i32,
    ));
    let pass = painter.ctx().cumulative_pass_nr();
    // Touching rectangles count as overlapping: step a point further.
    let h = rect.height() + 1.0;
    let chosen = painter.ctx().data_mut(|d| {
        let placed = d.get_temp_mut_or_default::<PlacedLabels>(key);
        if placed.pass != pass {
            placed.pass = pass;
            placed.rects.clear();
        }
        let free = [0.0, h, -h, 2.0 * h, -2.0 * h]
            .into_iter()
            .map(|dy| rect.translate(egui::vec2(0.0, dy)))
            .find(|r| !placed.rects.iter().any(|o| o.intersects(*r)));
        let chosen = free.or(always.then_some(rect));
        if let Some(r) = chosen {
            placed.rects.push(r);
        }
        chosen
    });
    let Some(rect) = chosen else { return };
    painter.rect_filled(rect, 3.0, theme::LABEL_PLATE);
    painter.galley(rect.min + egui::vec2(2.0, 2.0), galley, colour);
}

/// One figure: its ring in the edge colour, a facing tick, and its name
/// (where there is room for it, unless `always_named`).
pub fn figure(
    painter: &Painter,
    to_screen: ScreenFromTable,
    det: &Detection,
    name: &str,
    label_size: f32,
    always_named: bool,
) {
    let colour = theme::edge_colour(det.edge);
    // An uncertain figure (it may be a rock, a shadow or a building's
    // edge) is drawn dashed and named with a question mark; it is never
    // bound or followed by itself.
    let certain = is_certain(det);
    if certain {
        outline(
            painter,
            to_screen,
            &base_outline_in_table(det, 0.0),
            theme::ring(colour),
        );
    } else {
        dashed_outline(
            painter,
            to_screen,
            &base_outline_in_table(det, 0.0),
            theme::ring(colour),
        );
    }
    let mut text = if certain {
        name.to_owned()
    } else {
        format!("{name}?")
    };
    if let Some(f) = det.facing_deg {
        let dir = Vector2::new(f.to_radians().cos(), f.to_radians().sin());
        let start = det.center_in_table + dir * front_offset_in(det);
        segment(
            painter,
            to_screen,
            start,
            start + dir * FACING_TICK_IN,
            theme::ring(colour),
        );
        text = format!("{text} {f:.0}\u{b0}");
    }
    let below = det.center_in_table - Vector2::new(0.0, front_offset_in(det) + HIGHLIGHT_GAP_IN);
    // Below the base in table terms; in the image that may be any side, so
    // the label is anchored at the mapped point.
    place_label(
        painter,
        to_screen(below),
        &text,
        label_size,
        theme::LABEL_TEXT,
        always_named,
    );
}

/// Whether a detection is sure enough to be drawn plainly, bound and
/// followed without the player's word (its confidence is calibrated: see
/// [`crate::vision::confidence`]).
pub fn is_certain(det: &Detection) -> bool {
    det.confidence >= crate::vision::confidence::DEFAULT_MIN_CERTAIN
}

/// A highlight ring around the selected figure or the target.
pub fn highlight(
    painter: &Painter,
    to_screen: ScreenFromTable,
    det: &Detection,
    colour: egui::Color32,
) {
    outline(
        painter,
        to_screen,
        &base_outline_in_table(det, HIGHLIGHT_GAP_IN),
        theme::ring(colour),
    );
}

/// Where a game figure stands, table inches.
pub type FigurePlace<'a> = &'a dyn Fn(FigureId) -> Option<Point2<f64>>;
/// Radius of the ring marking a member of a circle or zone, inches.
const MEMBER_RING_IN: f64 = 0.8;
/// Dash and gap of dashed outlines, points.
const DASH_PT: f32 = 8.0;
const GAP_PT: f32 = 5.0;

/// A closed outline drawn dashed.
fn dashed_outline(
    painter: &Painter,
    to_screen: ScreenFromTable,
    pts: &[Point2<f64>],
    stroke: Stroke,
) {
    let mut screen: Vec<Pos2> = pts.iter().map(|p| to_screen(*p)).collect();
    if let Some(first) = screen.first().copied() {
        screen.push(first);
    }
    painter.extend(Shape::dashed_line(&screen, stroke, DASH_PT, GAP_PT));
}

/// The colour of a sight line: the band's colour, or the call's when it is
/// too close to call; blocked lines are the blocked colour.
pub fn sight_colour(sight: SightKind) -> egui::Color32 {
    match sight {
        SightKind::Clear => theme::LOS_CLEAR,
        SightKind::Soft => theme::LOS_SOFT,
        SightKind::Hard => theme::LOS_HARD,
        SightKind::Blocked => theme::LOS_BLOCKED,
    }
}

/// The text drawn on a sight line: range, band, line of sight, and the
/// calls that are too close.
pub fn sight_text(
    range_in: f64,
    band: Option<&str>,
    band_too_close: bool,
    sight: SightKind,
    sight_too_close: bool,
) -> String {
    let mut text = format!("{range_in:.1}\" {}", band.unwrap_or("out of range"));
    if band_too_close {
        text.push_str(" (TOO CLOSE TO CALL)");
    }
    text.push_str(" | ");
    text.push_str(sight.name());
    if sight_too_close {
        text.push_str(" (TOO CLOSE TO CALL)");
    }
    text
}

/// Draws what the rule set describes around the selected figure. Areas
/// first (arc, movement, command, melee), then sight lines and labels on
/// top.
pub fn rule_shapes(
    painter: &Painter,
    to_screen: ScreenFromTable,
    shapes: &[OverlayShape],
    place: FigurePlace,
    label_size: f32,
) {
    let member_rings = |members: &[crate::rules::overlay::Member], colour: egui::Color32| {
        for m in members {
            if let Some(at) = place(m.figure) {
                let c = if m.too_close_to_call {
                    theme::TOO_CLOSE_TO_CALL
                } else {
                    colour
                };
                outline(
                    painter,
                    to_screen,
                    &circle_in_table(at, MEMBER_RING_IN),
                    Stroke::new(theme::LINE_WIDTH, c),
                );
            }
        }
    };
    for shape in shapes {
        match shape {
            OverlayShape::FireArc {
                origin_in,
                facing_deg,
                half_angle_deg,
                weapon,
                bands,
                ..
            } => {
                let all_round = *half_angle_deg >= 180.0;
                let outer = bands.last().map_or(0.0, |b| b.radius_in);
                if !all_round && outer > 0.0 {
                    let pie = arc_in_table(*origin_in, *facing_deg, *half_angle_deg, outer);
                    let screen: Vec<Pos2> = pie.iter().map(|p| to_screen(*p)).collect();
                    painter.add(Shape::convex_polygon(
                        screen,
                        theme::FIRE_ARC_FILL,
                        Stroke::new(theme::LINE_WIDTH, theme::FIRE_ARC_STROKE),
                    ));
                }
                for (i, band) in bands.iter().enumerate() {
                    let colour = theme::band_colour(i);
                    let pts = if all_round {
                        circle_in_table(*origin_in, band.radius_in)
                    } else {
                        arc_in_table(*origin_in, *facing_deg, *half_angle_deg, band.radius_in)
                            .split_off(1)
                    };
                    let screen: Vec<Pos2> = pts.iter().map(|p| to_screen(*p)).collect();
                    let stroke = Stroke::new(theme::THIN_LINE_WIDTH, colour);
                    if all_round {
                        painter.add(Shape::closed_line(screen, stroke));
                    } else {
                        painter.add(Shape::line(screen, stroke));
                    }
                    // The band's name where the facing meets its ring.
                    let f = facing_deg.to_radians();
                    let at = origin_in + Vector2::new(f.cos(), f.sin()) * band.radius_in;
                    let text = if i + 1 == bands.len() {
                        format!("{} ({weapon})", band.name)
                    } else {
                        band.name.clone()
                    };
                    label_if_room(painter, to_screen(at), &text, label_size * 0.85, colour);
                }
            }
            OverlayShape::Circle {
                purpose,
                center_in,
                radius_in,
                label: text,
                members,
            } => {
                let colour = purpose_colour(*purpose);
                let pts = circle_in_table(*center_in, *radius_in);
                let stroke = Stroke::new(theme::LINE_WIDTH, colour);
                if *purpose == Purpose::Movement {
                    dashed_outline(painter, to_screen, &pts, stroke);
                } else {
                    outline(painter, to_screen, &pts, stroke);
                }
                member_rings(members, colour);
                // Labels of concentric circles sit at different angles.
                let angle = match purpose {
                    Purpose::Movement => -60.0_f64,
                    Purpose::Command => 120.0,
                    _ => -120.0,
                }
                .to_radians();
                let at = center_in + Vector2::new(angle.cos(), angle.sin()) * *radius_in;
                label(painter, to_screen(at), text, label_size * 0.85, colour);
            }
            OverlayShape::Outline {
                purpose,
                outline_in,
                label: text,
                members,
            } => {
                let colour = purpose_colour(*purpose);
                outline(
                    painter,
                    to_screen,
                    outline_in,
                    Stroke::new(theme::LINE_WIDTH, colour),
                );
                member_rings(members, colour);
                if let Some(top) = outline_in.iter().max_by(|a, b| a.y.total_cmp(&b.y)) {
                    label(painter, to_screen(*top), text, label_size * 0.85, colour);
                }
            }
            OverlayShape::Sight { .. } => {}
        }
    }
    // Lines to every enemy; labels for the nearest few and every call
    // that is too close, where there is room (a crowd of enemies would
    // bury the table under text).
    let mut sights: Vec<&OverlayShape> = shapes
        .iter()
        .filter(|s| matches!(s, OverlayShape::Sight { .. }))
        .collect();
    sights.sort_by(|a, b| sight_range(a).total_cmp(&sight_range(b)));
    for (rank, shape) in sights.into_iter().enumerate() {
        if let OverlayShape::Sight {
            from_in,
            to_in,
            sight,
            sight_too_close_to_call,
            range_in,
            band,
            band_index,
            band_too_close_to_call,
            ..
        } = shape
        {
            let band_colour = if *band_too_close_to_call {
                theme::TOO_CLOSE_TO_CALL
            } else {
                theme::band_colour(band_index.unwrap_or(OUT_OF_RANGE_BAND))
            };
            let stroke = theme::line(band_colour);
            if *sight == SightKind::Blocked {
                let pts: Vec<Pos2> = [*from_in, *to_in].iter().map(|p| to_screen(*p)).collect();
                painter.extend(Shape::dashed_line(
                    &pts,
                    Stroke::new(theme::LINE_WIDTH, theme::LOS_BLOCKED),
                    DASH_PT,
                    GAP_PT,
                ));
            } else {
                segment(painter, to_screen, *from_in, *to_in, stroke);
            }
            // A dot by the target in the line-of-sight colour (magenta when
            // too close to call).
            let d = to_in - from_in;
            let len = d.norm();
            if len > 1.0 {
                let at = to_in - d / len * 1.0;
                let c = if *sight_too_close_to_call {
                    theme::TOO_CLOSE_TO_CALL
                } else {
                    sight_colour(*sight)
                };
                painter.circle_filled(to_screen(at), theme::LOS_DOT_RADIUS, c);
            }
            let mid = Point2::from((from_in.coords + to_in.coords) / 2.0);
            let text = sight_text(
                *range_in,
                band.as_deref(),
                *band_too_close_to_call,
                *sight,
                *sight_too_close_to_call,
            );
            let colour = if *band_too_close_to_call || *sight_too_close_to_call {
                theme::TOO_CLOSE_TO_CALL
            } else {
                band_colour
            };
            if rank < MAX_SIGHT_LABELS || *band_too_close_to_call || *sight_too_close_to_call {
                label_if_room(painter, to_screen(mid), &text, label_size, colour);
            }
        }
    }
}

fn sight_range(shape: &OverlayShape) -> f64 {
    match shape {
        OverlayShape::Sight { range_in, .. } => *range_in,
        _ => f64::INFINITY,
    }
}

/// Is the polygon convex (either winding)? Only convex outlines are
/// filled; others are drawn as outlines.
pub fn is_convex(pts: &[Point2<f64>]) -> bool {
    let n = pts.len();
    if n < 3 {
        return false;
    }
    let mut sign = 0.0_f64;
    for i in 0..n {
        let (a, b, c) = (pts[i], pts[(i + 1) % n], pts[(i + 2) % n]);
        let cross = (b - a).perp(&(c - b));
        if cross.abs() <= f64::EPSILON {
            continue;
        }
        if sign == 0.0 {
            sign = cross.signum();
        } else if cross.signum() != sign {
            return false;
        }
    }
    true
}

/// The scenario's terrain areas with their names.
pub fn terrain(
    painter: &Painter,
    to_screen: ScreenFromTable,
    areas: &[crate::geometry::TerrainArea],
    label_size: f32,
) {
    for area in areas {
        if area.polygon_in.len() < 3 {
            continue;
        }
        let screen: Vec<Pos2> = area.polygon_in.iter().map(|p| to_screen(*p)).collect();
        let stroke = Stroke::new(theme::LINE_WIDTH, theme::TERRAIN_STROKE);
        if is_convex(&area.polygon_in) {
            painter.add(Shape::convex_polygon(screen, theme::TERRAIN_FILL, stroke));
        } else {
            painter.add(Shape::closed_line(screen, stroke));
        }
        let n = area.polygon_in.len() as f64;
        let centre = Point2::from(
            area.polygon_in
                .iter()
                .fold(Vector2::zeros(), |acc, p| acc + p.coords)
                / n,
        );
        label(
            painter,
            to_screen(centre),
            &area.name,
            label_size * 0.8,
            theme::TERRAIN_STROKE,
        );
    }
}

/// Terrain pieces the camera sees and the player has not named: a dashed
/// outline each, with its name (see [`crate::game::terrain::seen_name`]).
pub fn seen_terrain(
    painter: &Painter,
    to_screen: ScreenFromTable,
    pieces: &[crate::vision::terrain::SeenTerrain],
    chosen: Option<usize>,
    label_size: f32,
) {
    const DASH_PT: f32 = 6.0;
    const GAP_PT: f32 = 4.0;
    for (k, piece) in pieces.iter().enumerate() {
        let mut screen: Vec<Pos2> = piece.outline_in.iter().map(|p| to_screen(*p)).collect();
        if let Some(first) = screen.first().copied() {
            screen.push(first);
        }
        let width = if chosen == Some(k) {
            2.0 * theme::LINE_WIDTH
        } else {
            theme::LINE_WIDTH
        };
        painter.extend(Shape::dashed_line(
            &screen,
            Stroke::new(width, theme::SEEN_TERRAIN),
            DASH_PT,
            GAP_PT,
        ));
        let name = crate::game::terrain::seen_name(piece.center_in());
        label(
            painter,
            to_screen(piece.center_in()),
            &name,
            label_size * 0.8,
            theme::SEEN_TERRAIN,
        );
    }
}

fn purpose_colour(purpose: Purpose) -> egui::Color32 {
    match purpose {
        Purpose::Command => theme::COMMAND_RADIUS,
        Purpose::Melee => theme::MELEE_ZONE,
        Purpose::Movement => theme::MOVE_ALLOWANCE,
        Purpose::Observation => theme::OBSERVATION,
    }
}

/// Colour index of a range band name (short, medium, long, else out).
pub fn band_index(band: &str) -> usize {
    match band.to_ascii_lowercase().as_str() {
        "short" | "close" => 0,
        "medium" => 1,
        "long" => 2,
        _ => 3,
    }
}

/// The figure nearest to a screen position, within `max_px` points.
pub fn pick(
    to_screen: ScreenFromTable,
    figures: &[(u32, Point2<f64>)],
    at: Pos2,
    max_px: f32,
) -> Option<u32> {
    figures
        .iter()
        .map(|(id, c)| (*id, to_screen(*c).distance(at)))
        .filter(|(_, d)| *d <= max_px)
        .min_by(|a, b| a.1.total_cmp(&b.1))
        .map(|(id, _)| id)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::vision::EdgeColour;
    use approx::assert_relative_eq;

    fn det(base: BaseKind) -> Detection {
        Detection {
            center_in_table: Point2::new(10.0, 10.0),
            facing_deg: Some(90.0),
            edge: EdgeColour::Blue,
            base,
            confidence: 1.0,
            position_sigma_in: 0.02,
            appearance: None,
            side: Default::default(),
        }
    }

    #[test]
    fn foot_outline_is_a_half_inch_circle() {
        for p in base_outline_in_table(&det(BaseKind::Foot), 0.0) {
            assert_relative_eq!((p - Point2::new(10.0, 10.0)).norm(), 0.5, epsilon = 1e-12);
        }
    }

    #[test]
    fn mounted_outline_runs_along_the_facing() {
        let pts = base_outline_in_table(&det(BaseKind::Mounted), 0.0);
        let ys: Vec<f64> = pts.iter().map(|p| p.y).collect();
        let xs: Vec<f64> = pts.iter().map(|p| p.x).collect();
        let span = |v: &[f64]| {
            v.iter().copied().fold(f64::MIN, f64::max) - v.iter().copied().fold(f64::MAX, f64::min)
        };
        assert_relative_eq!(span(&ys), 2.0, epsilon = 1e-12);
        assert_relative_eq!(span(&xs), 1.0, epsilon = 1e-12);
    }

    #[test]
    fn sight_text_marks_calls_too_close() {
        let t = sight_text(12.04, Some("short"), true, SightKind::Soft, false);
        assert_eq!(t, "12.0\" short (TOO CLOSE TO CALL) | soft cover");
        let t = sight_text(70.0, None, false, SightKind::Blocked, true);
        assert_eq!(t, "70.0\" out of range | blocked (TOO CLOSE TO CALL)");
    }

    #[test]
    fn convexity() {
        let square = [
            Point2::new(0.0, 0.0),
            Point2::new(1.0, 0.0),
            Point2::new(1.0, 1.0),
            Point2::new(0.0, 1.0),
        ];
        assert!(is_convex(&square));
        let dart = [
            Point2::new(0.0, 0.0),
            Point2::new(2.0, 1.0),
            Point2::new(0.0, 2.0),
            Point2::new(0.5, 1.0),
        ];
        assert!(!is_convex(&dart));
    }

    #[test]
    fn pick_takes_the_nearest_within_reach() {
        let to_screen = |p: Point2<f64>| Pos2::new(p.x as f32 * 10.0, p.y as f32 * 10.0);
        let figs = [(1, Point2::new(1.0, 1.0)), (2, Point2::new(2.0, 1.0))];
        assert_eq!(pick(&to_screen, &figs, Pos2::new(17.0, 10.0), 8.0), Some(2));
        assert_eq!(pick(&to_screen, &figs, Pos2::new(50.0, 50.0), 8.0), None);
    }

    /// Text shapes painted when `n` labels are asked for at one spot.
    fn texts_painted(n: usize, always: bool) -> usize {
        let ctx = egui::Context::default();
        let mut out = ctx.run_ui(egui::RawInput::default(), |ui| {
            let painter = ui.painter();
            for k in 0..n {
                let text = format!("label {k}");
                let at = Pos2::new(200.0, 200.0);
                if always {
                    label(painter, at, &text, 14.0, egui::Color32::WHITE);
                } else {
                    label_if_room(painter, at, &text, 14.0, egui::Color32::WHITE);
                }
            }
        });
        out.textures_delta.clear();
        out.shapes
            .iter()
            .filter(|c| matches!(c.shape, Shape::Text(_)))
            .count()
    }

    #[test]
    fn crowded_labels_move_aside_and_optional_ones_give_way() {
        // Five spots (the asked one, one and two heights below and above):
        // optional labels beyond them are left out, required ones are not.
        assert_eq!(texts_painted(3, false), 3);
        assert_eq!(texts_painted(9, false), 5);
        assert_eq!(texts_painted(9, true), 9);
    }
}
