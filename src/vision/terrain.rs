//! Terrain pieces the camera sees on the table: the large patches that are
//! neither mat, nor a figure's base, nor a hand or arm.
//!
//! # Conventions
//! - Input is the detector's top view (see [`super::rectify`]), white
//!   balanced with the detector's gains, on the coarse cell grid of the hand
//!   finder ([`super::hands`]); outlines are reported in table inches (frame
//!   of `TABLE_KIT.md`: x right, y up seen from above), clipped to the table.
//! - Areas are square inches of the table, colours 0..255 sRGB after white
//!   balance.
//!
//! # What counts as a piece
//! The mat's colour is taken where it is (tables are lit unevenly): the
//! median chromaticity and level of the mat cells in blocks of
//! `mat_block_in`, interpolated between block centres; its spread is the
//! robust spread of the mat cells about that local colour. A cell is not mat
//! when its chromaticity lies `chroma_sigmas` spreads from the local mat's,
//! or it is `level_sigmas` spreads brighter (a shadow is darker and keeps the
//! mat's chromaticity: it stays mat). Cells of a figure's base (a disc round
//! each detection) and of a hand are left out. What is left is cleaned
//! (gaps closed, slivers opened away) and each blob of at least
//! `min_area_in2` is a piece. A piece is only what it looks like: what it is
//! in the rules (woods, a wall ...) is the player's word.

use image::RgbImage;
use nalgebra::Point2;
use serde::{Deserialize, Serialize};

use super::hands::{self, Grid};
use super::rectify::TopView;
use super::track::OccludedRegion;
use crate::calibration::TableLayout;
use crate::spec::{SourceFile, SpecError};

/// Each simplification pass that leaves too many vertices loosens the
/// tolerance by this factor.
const LOOSEN: f64 = 1.5;
/// The loosening stops after this many passes (the outline is kept as it is).
const MAX_PASSES: usize = 12;
/// A block needs this many mat cells for a colour of its own (else the
/// whole table's is used there).
const MIN_BLOCK_CELLS: usize = 8;

/// Everything the terrain finder can be tuned by. Sizes are table inches.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct TerrainParams {
    /// Side of the coarse cells, inches.
    pub cell_in: f64,
    /// Side of the blocks the local mat colour is the median of, inches.
    pub mat_block_in: f64,
    /// A cell is not mat when its chromaticity is this many spreads from
    /// the local mat's ...
    pub chroma_sigmas: f64,
    /// ... or its level this many spreads above the local mat's.
    pub level_sigmas: f64,
    /// Floor of the mat's spreads (natural-log units): a very even mat must
    /// not make JPEG noise look like terrain.
    pub min_spread: f64,
    /// Gaps up to about twice this are closed, inches.
    pub close_radius_in: f64,
    /// Then slivers narrower than about twice this go, inches.
    pub open_radius_in: f64,
    /// A piece covers at least this much of the table, square inches.
    pub min_area_in2: f64,
    /// Around each figure's base this much more is left out, inches (the
    /// model overhangs its base).
    pub figure_margin_in: f64,
    /// Around a hand region this much more is left out, inches.
    pub hand_margin_in: f64,
    /// Markers and their paper, this far beyond the printed square, are not
    /// looked at, inches.
    pub marker_margin_in: f64,
    /// Outline vertices may be this far from the cell outline, inches ...
    pub outline_tolerance_in: f64,
    /// ... loosened until the outline has at most this many vertices.
    pub max_vertices: usize,
}

impl Default for TerrainParams {
    fn default() -> Self {
        Self {
            cell_in: 0.25,
            mat_block_in: 8.0,
            chroma_sigmas: 3.5,
            level_sigmas: 6.0,
            min_spread: 0.03,
            close_radius_in: 0.25,
            open_radius_in: 0.25,
            min_area_in2: 3.0,
            figure_margin_in: 0.3,
            hand_margin_in: 0.5,
            marker_margin_in: 0.8,
            outline_tolerance_in: 0.25,
            max_vertices: 20,
        }
    }
}

impl TerrainParams {
    /// Loads a parameter file (TOML, any subset of the fields) and checks it.
    pub fn from_source(src: &SourceFile) -> Result<Self, SpecError> {
        let params: Self = src.parse_toml()?;
        let problems = params.problems();
        src.checked(params, problems)
    }

    /// Every value that makes no sense, by field name.
    pub fn problems(&self) -> Vec<(&'static str, String)> {
        let mut out = Vec::new();
        crate::spec::check_positive(
            &mut out,
            &[
                ("cell_in", self.cell_in),
                ("mat_block_in", self.mat_block_in),
                ("chroma_sigmas", self.chroma_sigmas),
                ("level_sigmas", self.level_sigmas),
                ("min_spread", self.min_spread),
                ("min_area_in2", self.min_area_in2),
                ("outline_tolerance_in", self.outline_tolerance_in),
            ],
        );
        crate::spec::check_non_negative(
            &mut out,
            &[
                ("close_radius_in", self.close_radius_in),
                ("open_radius_in", self.open_radius_in),
                ("figure_margin_in", self.figure_margin_in),
                ("hand_margin_in", self.hand_margin_in),
                ("marker_margin_in", self.marker_margin_in),
            ],
        );
        if self.max_vertices < 3 {
            out.push(("max_vertices", "must be at least 3".to_owned()));
        }
        out
    }

    fn cells(&self, inches: f64) -> usize {
        // Small non-negative sizes by `problems`.
        (inches / self.cell_in).round().max(0.0) as usize
    }
}

/// One terrain piece the camera sees.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct SeenTerrain {
    /// Simplified outline, table inches, counter-clockwise seen from above,
    /// clipped to the table; at least three points.
    pub outline_in: Vec<Point2<f64>>,
    /// Area of the outline, square inches.
    pub area_in2: f64,
    /// Mean colour of its cells (white balanced, sRGB 0..255).
    pub mean_rgb: [u8; 3],
}

impl SeenTerrain {
    /// The centre of its outline's vertices, table inches.
    pub fn center_in(&self) -> Point2<f64> {
        let n = self.outline_in.len().max(1) as f64;
        let s = self
            .outline_in
            .iter()
            .fold(nalgebra::Vector2::zeros(), |acc, p| acc + p.coords);
        Point2::from(s / n)
    }

    /// Does its outline hold the point?
    pub fn contains(&self, p: Point2<f64>) -> bool {
        super::track::region::polygon_contains(&self.outline_in, p)
    }
}

/// What stands on the table that is not terrain: figures' bases (centre and
/// radius, table inches) and hands.
#[derive(Debug, Clone, Copy)]
pub struct NotTerrain<'a> {
    pub figures: &'a [(Point2<f64>, f64)],
    pub hands: &'a [OccludedRegion],
}

/// Per cell: its colour's distance from the local mat's.
struct MatModel {
    /// Local mat colour per cell ([ln(r/g), ln(b/g), ln(level)]).
    local: Vec<[f32; 3]>,
    /// Robust spread of the mat about its local colour, per feature.
    spread: [f32; 3],
}

/// Finds terrain pieces on the table's top view.
#[derive(Debug, Clone, Default)]
pub struct TerrainFinder {
    params: TerrainParams,
}

impl TerrainFinder {
    pub fn new(params: TerrainParams) -> Self {
        Self { params }
    }

    pub fn params(&self) -> &TerrainParams {
        &self.params
    }

    /// The terrain pieces in this top view. `gains` white-balance it (the
    /// detector's); `layout` gives the table and its markers; `not_terrain`
    /// the bases and hands to leave out.
    pub fn find(
        &self,
        top: &RgbImage,
        view: &TopView,
        gains: [f32; 3],
        layout: &TableLayout,
        not_terrain: NotTerrain<'_>,
    ) -> Vec<SeenTerrain> {
        let grid = Grid::new(top, gains, self.params.cell_in * view.px_per_in);
        self.find_in(&grid, view, layout, not_terrain)
    }

    /// [`TerrainFinder::find`] on a grid of the top view made already
    /// (the hand finder's, when its cells are [`TerrainFinder::cell_px`]).
    pub(super) fn find_in(
        &self,
        grid: &Grid,
        view: &TopView,
        layout: &TableLayout,
        not_terrain: NotTerrain<'_>,
    ) -> Vec<SeenTerrain> {
        let p = &self.params;
        let (w, h) = (grid.w, grid.h);
        let mut usable = hands::usable_cells(grid, view, layout, p.marker_margin_in);
        let discs: Vec<(Point2<f64>, f64)> = not_terrain
            .figures
            .iter()
            .map(|(c, r)| (*c, r + p.figure_margin_in))
            .collect();
        let mut left_out = hands::cells_within(grid, view, &discs);
        left_out.extend(self.hand_cells(grid, view, not_terrain.hands));
        // Bases and hands tell nothing about the mat either.
        for &k in &left_out {
            usable[k] = false;
        }
        let Some(mat) = self.mat_model(grid, &usable) else {
            return Vec::new();
        };
        let not_mat: Vec<bool> = (0..w * h)
            .map(|k| usable[k] && grid.feat[k].is_some_and(|f| self.off_mat(f, &mat, k)))
            .collect();
        let (close, open) = (p.cells(p.close_radius_in), p.cells(p.open_radius_in));
        let mut mask = hands::erode(&hands::dilate(&not_mat, w, h, close), w, h, close);
        mask = hands::dilate(&hands::erode(&mask, w, h, open), w, h, open);
        for &k in &left_out {
            mask[k] = false;
        }
        for (m, f) in mask.iter_mut().zip(&grid.feat) {
            *m &= f.is_some();
        }
        let cell_in = grid.cell_px / view.px_per_in;
        hands::blobs(&mask, w, h, cell_in)
            .into_iter()
            .filter(|b| b.area_in2 >= p.min_area_in2)
            .filter_map(|b| self.piece(grid, view, layout, &mask, &b.cells))
            .filter(|t| t.area_in2 >= p.min_area_in2)
            .collect()
    }

    /// Side of the grid's cells on `view`, top-view pixels.
    pub(super) fn cell_px(&self, view: &TopView) -> f64 {
        self.params.cell_in * view.px_per_in
    }

    /// Cells under a hand region or within `hand_margin_in` of one.
    fn hand_cells(&self, grid: &Grid, view: &TopView, regions: &[OccludedRegion]) -> Vec<usize> {
        if regions.is_empty() {
            return Vec::new();
        }
        let margin = self.params.hand_margin_in;
        (0..grid.w * grid.h)
            .filter(|&k| {
                let (i, j) = ((k % grid.w) as f64 + 0.5, (k / grid.w) as f64 + 0.5);
                let t = view.table_from_view(grid.view_of(i, j));
                regions.iter().any(|r| r.covers(t, margin))
            })
            .collect()
    }

    /// The mat's local colour and spread, from the cells that are mat by the
    /// whole table's colour; `None` when no cell is usable.
    fn mat_model(&self, grid: &Grid, usable: &[bool]) -> Option<MatModel> {
        let p = &self.params;
        let used: Vec<[f32; 3]> = (0..usable.len())
            .filter(|&k| usable[k])
            .filter_map(|k| grid.feat[k])
            .collect();
        let stats: Vec<(f32, f32)> = (0..3)
            .map(|c| hands::median_spread(&mut used.iter().map(|f| f[c]).collect::<Vec<_>>()))
            .collect::<Option<_>>()?;
        let floor = p.min_spread as f32;
        let global = [stats[0].0, stats[1].0, stats[2].0];
        let global_spread = stats.iter().map(|s| s.1.max(floor)).collect::<Vec<_>>();
        let k2 = (p.chroma_sigmas as f32).powi(2);
        // First pass: mat by the whole table's colour.
        let is_mat: Vec<bool> = (0..usable.len())
            .map(|k| {
                usable[k]
                    && grid.feat[k].is_some_and(|f| {
                        ((f[0] - global[0]) / global_spread[0]).powi(2)
                            + ((f[1] - global[1]) / global_spread[1]).powi(2)
                            <= k2
                    })
            })
            .collect();
        let local = self.local_colour(grid, &is_mat, global);
        let mut spread = [floor; 3];
        for (c, s) in spread.iter_mut().enumerate() {
            let mut d: Vec<f32> = (0..usable.len())
                .filter(|&k| is_mat[k])
                .filter_map(|k| grid.feat[k].map(|f| f[c] - local[k][c]))
                .collect();
            if let Some((_, sp)) = hands::median_spread(&mut d) {
                *s = sp.max(floor);
            }
        }
        Some(MatModel { local, spread })
    }

    /// Median mat colour in blocks of `mat_block_in`, interpolated
    /// bilinearly between block centres for every cell.
    fn local_colour(&self, grid: &Grid, is_mat: &[bool], global: [f32; 3]) -> Vec<[f32; 3]> {
        let (w, h) = (grid.w, grid.h);
        let b = (self.params.mat_block_in / self.params.cell_in)
            .round()
            .max(1.0) as usize;
        let (bw, bh) = (w.div_ceil(b), h.div_ceil(b));
        let mut blocks = vec![global; bw * bh];
        for (bk, block) in blocks.iter_mut().enumerate() {
            let (bi, bj) = (bk % bw, bk / bw);
            let cells: Vec<[f32; 3]> = (bj * b..((bj + 1) * b).min(h))
                .flat_map(|j| (bi * b..((bi + 1) * b).min(w)).map(move |i| j * w + i))
                .filter(|&k| is_mat[k])
                .filter_map(|k| grid.feat[k])
                .collect();
            if cells.len() < MIN_BLOCK_CELLS {
                continue;
            }
            for (c, v) in block.iter_mut().enumerate() {
                let mut col: Vec<f32> = cells.iter().map(|f| f[c]).collect();
                if let Some((m, _)) = hands::median_spread(&mut col) {
                    *v = m;
                }
            }
        }
        let at = |x: f64, n: usize| {
            // Block coordinate of a cell centre: block centres at 0, 1, ...
            let t = (x / b as f64 - 0.5).clamp(0.0, (n - 1) as f64);
            let lo = t.floor() as usize;
            (lo, (lo + 1).min(n - 1), (t - lo as f64) as f32)
        };
        (0..w * h)
            .map(|k| {
                let (i0, i1, fx) = at((k % w) as f64 + 0.5, bw);
                let (j0, j1, fy) = at((k / w) as f64 + 0.5, bh);
                let v = |i: usize, j: usize| blocks[j * bw + i];
                let (a, bb, c, d) = (v(i0, j0), v(i1, j0), v(i0, j1), v(i1, j1));
                [0, 1, 2].map(|ch| {
                    let top = a[ch] + (bb[ch] - a[ch]) * fx;
                    let bottom = c[ch] + (d[ch] - c[ch]) * fx;
                    top + (bottom - top) * fy
                })
            })
            .collect()
    }

    /// Is a cell of colour `f` off the mat's local colour?
    fn off_mat(&self, f: [f32; 3], mat: &MatModel, k: usize) -> bool {
        let m = mat.local[k];
        let s = mat.spread;
        let d2 = ((f[0] - m[0]) / s[0]).powi(2) + ((f[1] - m[1]) / s[1]).powi(2);
        d2 > (self.params.chroma_sigmas as f32).powi(2)
            || (f[2] - m[2]) / s[2] > self.params.level_sigmas as f32
    }

    /// One blob's outline (table inches, simplified, clipped), area and
    /// colour; `None` when too little of it lies on the table.
    fn piece(
        &self,
        grid: &Grid,
        view: &TopView,
        layout: &TableLayout,
        mask: &[bool],
        cells: &[usize],
    ) -> Option<SeenTerrain> {
        let p = &self.params;
        let cell_in = grid.cell_px / view.px_per_in;
        let outline = hands::trace_outline(mask, grid.w, grid.h, *cells.first()?);
        let mut tolerance = p.outline_tolerance_in / cell_in;
        let mut simple = hands::simplify_closed(&outline, tolerance);
        for _ in 0..MAX_PASSES {
            if simple.len() <= p.max_vertices {
                break;
            }
            tolerance *= LOOSEN;
            simple = hands::simplify_closed(&outline, tolerance);
        }
        let in_table: Vec<Point2<f64>> = simple
            .into_iter()
            .map(|(x, y)| view.table_from_view(grid.view_of(x, y)))
            .collect();
        let mut outline_in = clip_to_rect(
            &in_table,
            Point2::new(0.0, 0.0),
            Point2::new(layout.width_in, layout.depth_in),
        );
        outline_in.dedup();
        if outline_in.len() < 3
            || outline_in
                .iter()
                .any(|v| !(v.x.is_finite() && v.y.is_finite()))
        {
            return None;
        }
        // The trace runs clockwise on screen (rows down): counter-clockwise
        // seen from above once y points up, but keep it so whatever the
        // view's orientation.
        if signed_area(&outline_in) < 0.0 {
            outline_in.reverse();
        }
        Some(SeenTerrain {
            area_in2: signed_area(&outline_in).abs(),
            outline_in,
            mean_rgb: mean_colour(grid, cells),
        })
    }
}

/// The part of a polygon inside the axis-aligned rectangle `min`..`max`
/// (Sutherland-Hodgman; a concave polygon cut in two keeps both parts
/// joined along the rectangle's edge). Fewer than three points when
/// nothing is left.
fn clip_to_rect(poly: &[Point2<f64>], min: Point2<f64>, max: Point2<f64>) -> Vec<Point2<f64>> {
    // Each edge of the rectangle as (axis, bound, keep the side below it).
    let planes = [
        (0, min.x, false),
        (0, max.x, true),
        (1, min.y, false),
        (1, max.y, true),
    ];
    let mut out = poly.to_vec();
    for (axis, bound, below) in planes {
        let inside = |p: &Point2<f64>| {
            if below {
                p[axis] <= bound
            } else {
                p[axis] >= bound
            }
        };
        let input = std::mem::take(&mut out);
        for (k, p) in input.iter().enumerate() {
            let q = input[(k + 1) % input.len()];
            let (pi, qi) = (inside(p), inside(&q));
            if pi {
                out.push(*p);
            }
            if pi != qi {
                let t = (bound - p[axis]) / (q[axis] - p[axis]);
                out.push(p + (q - p) * t);
            }
        }
    }
    out
}

fn signed_area(poly: &[Point2<f64>]) -> f64 {
    (0..poly.len())
        .map(|k| {
            let (a, b) = (poly[k], poly[(k + 1) % poly.len()]);
            a.x * b.y - b.x * a.y
        })
        .sum::<f64>()
        / 2.0
}

/// Mean white-balanced colour of the cells (from their log features).
fn mean_colour(grid: &Grid, cells: &[usize]) -> [u8; 3] {
    let mut sum = [0f64; 3];
    let mut n = 0.0;
    for f in cells.iter().filter_map(|&k| grid.feat[k]) {
        // Undo [ln(r/g), ln(b/g), ln((r+g+b)/3)] of the offset channels.
        let (rg, bg, level) = (f[0].exp(), f[1].exp(), f[2].exp());
        let g = 3.0 * level / (rg + 1.0 + bg);
        for (s, v) in sum.iter_mut().zip([rg * g, g, bg * g]) {
            *s += f64::from(v - hands::LOG_OFFSET);
        }
        n += 1.0;
    }
    if n == 0.0 {
        return [0; 3];
    }
    // Clamped to the byte range first.
    sum.map(|s| (s / n).round().clamp(0.0, 255.0) as u8)
}

#[cfg(test)]
mod tests {
    use super::*;
    use image::Rgb;

    const MAT: Rgb<u8> = Rgb([70, 110, 50]);

    fn table() -> (TableLayout, TopView) {
        let layout = TableLayout::standard(24.0, 24.0);
        let view = TopView::new(&layout, 10.0, 0.1);
        (layout, view)
    }

    /// A textured mat, lit brighter to the right, with rectangles (table
    /// inches) painted on it.
    fn scene(view: &TopView, rects: &[([f64; 4], Rgb<u8>)]) -> RgbImage {
        RgbImage::from_fn(view.width_px, view.height_px, |i, j| {
            let t = view.table_from_view(Point2::new(f64::from(i), f64::from(j)));
            let light = 0.8 + 0.4 * t.x / 24.0;
            for (r, c) in rects {
                if t.x >= r[0] && t.x <= r[2] && t.y >= r[1] && t.y <= r[3] {
                    return Rgb(c.0.map(|v| (f64::from(v) * light).min(255.0) as u8));
                }
            }
            let n = ((i * 7 + j * 13) % 11) as f64 - 5.0;
            Rgb(MAT
                .0
                .map(|v| ((f64::from(v) + n) * light).clamp(0.0, 255.0) as u8))
        })
    }

    fn nothing() -> NotTerrain<'static> {
        NotTerrain {
            figures: &[],
            hands: &[],
        }
    }

    #[test]
    fn a_wood_and_a_house_are_pieces_and_a_shadow_is_not() {
        let (layout, view) = table();
        let top = scene(
            &view,
            &[
                ([4.0, 4.0, 10.0, 9.0], Rgb([30, 60, 25])),
                ([14.0, 12.0, 18.0, 15.0], Rgb([150, 60, 45])),
                ([4.0, 14.0, 9.0, 20.0], Rgb([35, 55, 25])),
            ],
        );
        let found = TerrainFinder::default().find(&top, &view, [1.0; 3], &layout, nothing());
        let holds = |x: f64, y: f64| {
            found
                .iter()
                .filter(|t| t.contains(Point2::new(x, y)))
                .count()
        };
        assert_eq!(holds(15.5, 13.5), 1, "{found:?}");
        assert_eq!(holds(12.0, 12.0), 0);
        let house = found
            .iter()
            .find(|t| t.contains(Point2::new(16.0, 13.5)))
            .unwrap();
        assert!((house.area_in2 - 12.0).abs() < 2.5, "{}", house.area_in2);
        assert!(house.mean_rgb[0] > house.mean_rgb[1]);
        assert!(house.outline_in.len() <= 20);
    }

    #[test]
    fn bases_and_small_things_are_not_pieces_and_the_table_edge_clips() {
        let (layout, view) = table();
        let top = scene(
            &view,
            &[
                // A base and a pebble.
                ([5.0, 5.0, 6.0, 6.0], Rgb([190, 35, 35])),
                ([12.0, 5.0, 13.0, 6.2], Rgb([150, 150, 150])),
                // A hill cut by the right edge of the table.
                ([20.0, 10.0, 24.0, 16.0], Rgb([140, 120, 60])),
            ],
        );
        let figures = [(Point2::new(5.5, 5.5), 0.5)];
        let not = NotTerrain {
            figures: &figures,
            hands: &[],
        };
        let found = TerrainFinder::default().find(&top, &view, [1.0; 3], &layout, not);
        assert_eq!(found.len(), 1, "{found:?}");
        assert!(
            found[0]
                .outline_in
                .iter()
                .all(|p| p.x <= 24.0 && p.y <= 24.0)
        );
        assert!(found[0].contains(Point2::new(22.0, 13.0)));
        // Without the base masked, a base is still under the minimum area.
        let found = TerrainFinder::default().find(&top, &view, [1.0; 3], &layout, nothing());
        assert_eq!(found.len(), 1);
    }

    #[test]
    fn a_polygon_clipped_to_the_table() {
        let square = |x0: f64, y0: f64, x1: f64, y1: f64| {
            vec![
                Point2::new(x0, y0),
                Point2::new(x1, y0),
                Point2::new(x1, y1),
                Point2::new(x0, y1),
            ]
        };
        let (lo, hi) = (Point2::new(0.0, 0.0), Point2::new(10.0, 10.0));
        let c = clip_to_rect(&square(8.0, 2.0, 12.0, 4.0), lo, hi);
        assert!((signed_area(&c).abs() - 4.0).abs() < 1e-9, "{c:?}");
        assert!(c.iter().all(|p| p.x <= 10.0));
        assert!(clip_to_rect(&square(11.0, 2.0, 12.0, 4.0), lo, hi).len() < 3);
        assert_eq!(clip_to_rect(&square(1.0, 1.0, 3.0, 2.0), lo, hi).len(), 4);
    }

    #[test]
    fn parameters_are_checked() {
        assert!(TerrainParams::default().problems().is_empty());
        let src = SourceFile::from_text("t.toml", "cell_in = 0.5\nmax_vertices = 2\n");
        let err = TerrainParams::from_source(&src).unwrap_err();
        assert_eq!(err.problems[0].field, "max_vertices");
    }
}
