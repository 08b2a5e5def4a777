//! Hands and arms over the table: the parts of the table a player's hand,
//! arm or sleeve hides from the camera in one frame.
//!
//! # Conventions
//! - Input is the detector's top view (see [`super::rectify`]): the table
//!   resampled on the plane of the base tops, row 0 at the far edge. What the
//!   top view shows of an arm is exactly the part of the table it hides, so
//!   regions are reported there, on the table plane, in table inches (frame
//!   of `TABLE_KIT.md`: x right, y up seen from above).
//! - The work is done on a coarse grid of square cells of `cell_in` inches
//!   (a few pixels of the top view each); colours are white-balanced with the
//!   detector's gains.
//!
//! # What counts as a hand
//! A cell is "not table" when its chromaticity lies far from the table
//! surface's (the median of the whole view, with its spread), or when it is
//! much brighter than the surface. Shadows keep the surface's chromaticity
//! and stay "table". Cells that match terrain seen in earlier frames are
//! dropped. What is left is cleaned (small gaps closed, then everything
//! narrower than about a base opened away, so that figures and walls go
//! while a palm or a forearm stays), and each remaining blob that is large
//! and either reaches the table edge (arms come from outside the table) or
//! is long and slender (a forearm whose elbow is out of sight) is a hand.
//!
//! Non-hand blobs are remembered as terrain; a hand blob that has not changed
//! for `still_frames` frames is remembered too (a piece of terrain at the
//! table edge seen in the first frame, or a road).

use std::path::Path;
use std::sync::Mutex;

use image::RgbImage;
use nalgebra::{Point2, Rotation2, Vector2};
use serde::{Deserialize, Serialize};

use super::rectify::TopView;
use super::track::OccludedRegion;
use crate::calibration::TableLayout;
use crate::spec::{SourceFile, SpecError};

/// Robust spread of a median absolute deviation, for a normal distribution.
pub(super) const MAD_TO_SIGMA: f32 = 1.4826;
/// A cell is used when at least this share of its samples were inside the
/// photo (the top view is black where the camera does not reach).
const MIN_SEEN_SHARE: f32 = 0.5;
/// Added to every channel before taking logs, so that black stays finite.
pub(super) const LOG_OFFSET: f32 = 4.0;

/// Everything the hand finder can be tuned by. Sizes are table inches.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct HandParams {
    /// Side of the coarse cells, inches.
    pub cell_in: f64,
    /// A cell is not table when its chromaticity is this many spreads from
    /// the table's.
    pub chroma_sigmas: f64,
    /// Floor of the table's chromaticity spread (natural-log units): a very
    /// even mat must not make JPEG noise look like a sleeve.
    pub min_chroma_spread: f64,
    /// ... or when it is this many times brighter than the table.
    pub brighter_than_table: f64,
    /// Gaps up to about twice this are closed first, inches.
    pub close_radius_in: f64,
    /// Then everything narrower than about twice this goes, inches (a base
    /// is 1 in across; a palm is 3).
    pub open_radius_in: f64,
    /// A hand covers at least this much of the table, square inches.
    pub min_area_in2: f64,
    /// A blob that comes this close to the table edge comes from outside
    /// the table, inches.
    pub edge_reach_in: f64,
    /// A blob that does not reach the edge is still an arm when it is at
    /// least this long, inches ...
    pub free_min_length_in: f64,
    /// ... and this many times longer than wide.
    pub free_min_elongation: f64,
    /// Markers and their paper, this far beyond the printed square, are not
    /// looked at (the paper is white, not table), inches.
    pub marker_margin_in: f64,
    /// A cell matches remembered terrain when its colour is within this
    /// distance (natural-log units, chromaticity and level).
    pub terrain_tolerance: f64,
    /// A blob with more than this share of remembered terrain is terrain.
    pub max_terrain_share: f64,
    /// A hand blob unchanged for this many frames is remembered as terrain.
    pub still_frames: u32,
    /// Outline vertices may be this far from the cell outline, inches.
    pub outline_tolerance_in: f64,
    /// Detections whose centre is this close to a hand region are dropped
    /// by the detector, inches.
    pub suppress_margin_in: f64,
    /// Around each figure the detector found whole, this much of the table
    /// (a radius, inches) is never taken for a hand: a figure standing by a
    /// hand is not part of it.
    pub figure_keep_out_in: f64,
}

impl Default for HandParams {
    fn default() -> Self {
        Self {
            cell_in: 0.25,
            chroma_sigmas: 5.0,
            min_chroma_spread: 0.04,
            brighter_than_table: 1.6,
            close_radius_in: 0.25,
            open_radius_in: 0.5,
            min_area_in2: 4.0,
            edge_reach_in: 1.0,
            free_min_length_in: 8.0,
            free_min_elongation: 3.0,
            marker_margin_in: 0.8,
            terrain_tolerance: 0.25,
            max_terrain_share: 0.5,
            still_frames: 20,
            outline_tolerance_in: 0.2,
            suppress_margin_in: 0.0,
            figure_keep_out_in: 0.6,
        }
    }
}

impl HandParams {
    /// Loads a parameter file (TOML, any subset of the fields) and checks it.
    pub fn load(path: &Path) -> Result<Self, SpecError> {
        Self::from_source(&SourceFile::read(path)?)
    }

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
                ("chroma_sigmas", self.chroma_sigmas),
                ("min_chroma_spread", self.min_chroma_spread),
                ("min_area_in2", self.min_area_in2),
                ("free_min_length_in", self.free_min_length_in),
                ("free_min_elongation", self.free_min_elongation),
                ("terrain_tolerance", self.terrain_tolerance),
            ],
        );
        crate::spec::check_non_negative(
            &mut out,
            &[
                ("close_radius_in", self.close_radius_in),
                ("open_radius_in", self.open_radius_in),
                ("edge_reach_in", self.edge_reach_in),
                ("marker_margin_in", self.marker_margin_in),
                ("outline_tolerance_in", self.outline_tolerance_in),
                ("suppress_margin_in", self.suppress_margin_in),
                ("figure_keep_out_in", self.figure_keep_out_in),
            ],
        );
        if !(self.brighter_than_table.is_finite() && self.brighter_than_table > 1.0) {
            out.push((
                "brighter_than_table",
                format!("{} must be more than 1", self.brighter_than_table),
            ));
        }
        if !(0.0..=1.0).contains(&self.max_terrain_share) {
            out.push((
                "max_terrain_share",
                format!("{} must lie between 0 and 1", self.max_terrain_share),
            ));
        }
        if self.still_frames == 0 {
            out.push(("still_frames", "must be at least 1".to_owned()));
        }
        out
    }

    fn cells(&self, inches: f64) -> usize {
        // Small non-negative sizes by `problems`.
        (inches / self.cell_in).round().max(0.0) as usize
    }
}

/// The coarse grid: per cell, log chromaticity and level, or `None` where
/// the photo does not reach.
pub(super) struct Grid {
    pub(super) w: usize,
    pub(super) h: usize,
    /// Top-view pixels per cell side.
    pub(super) cell_px: f64,
    /// [ln(r/g), ln(b/g), ln(level)] per cell.
    pub(super) feat: Vec<Option<[f32; 3]>>,
}

impl Grid {
    pub(super) fn new(top: &RgbImage, gains: [f32; 3], cell_px: f64) -> Self {
        let (tw, th) = (top.width() as usize, top.height() as usize);
        let step = cell_px.max(1.0);
        // Sizes are small positive numbers.
        let w = ((tw as f64) / step).ceil().max(1.0) as usize;
        let h = ((th as f64) / step).ceil().max(1.0) as usize;
        // Every other pixel in each direction is plenty for a mean.
        let stride = if step >= 4.0 { 2 } else { 1 };
        let col_cell: Vec<usize> = (0..tw)
            .step_by(stride)
            .map(|i| (((i as f64) / step) as usize).min(w - 1))
            .collect();
        let mut sum = vec![[0u32; 3]; w * h];
        let mut seen = vec![0u32; w * h];
        let mut total = vec![0u32; w * h];
        let raw = top.as_raw();
        for j in (0..th).step_by(stride) {
            let base = (((j as f64) / step) as usize).min(h - 1) * w;
            let row = &raw[j * tw * 3..(j + 1) * tw * 3];
            for (px, &ci) in row.chunks_exact(3 * stride).zip(&col_cell) {
                let k = base + ci;
                total[k] += 1;
                // Black (outside the photo) adds nothing to the sums, so
                // only the count asks whether the sample was seen: no
                // branch per sample.
                seen[k] += u32::from((px[0] | px[1] | px[2]) != 0);
                let s = &mut sum[k];
                s[0] += u32::from(px[0]);
                s[1] += u32::from(px[1]);
                s[2] += u32::from(px[2]);
            }
        }
        let feat = (0..w * h)
            .map(|k| {
                let n = seen[k];
                if n == 0 || (n as f32) < MIN_SEEN_SHARE * total[k] as f32 {
                    return None;
                }
                let mut m = [0f32; 3];
                for c in 0..3 {
                    m[c] = sum[k][c] as f32 / n as f32 * gains[c] + LOG_OFFSET;
                }
                let level = (m[0] + m[1] + m[2]) / 3.0;
                Some([(m[0] / m[1]).ln(), (m[2] / m[1]).ln(), level.ln()])
            })
            .collect();
        Self {
            w,
            h,
            cell_px: step,
            feat,
        }
    }

    /// Centre of cell (i, j) in top-view pixel positions.
    pub(super) fn view_of(&self, i: f64, j: f64) -> Point2<f64> {
        Point2::new(i * self.cell_px - 0.5, j * self.cell_px - 0.5)
    }
}

/// Median and robust spread of a list (reordered in place).
pub(super) fn median_spread(v: &mut [f32]) -> Option<(f32, f32)> {
    if v.is_empty() {
        return None;
    }
    let mid = v.len() / 2;
    let (_, m, _) = v.select_nth_unstable_by(mid, f32::total_cmp);
    let m = *m;
    for x in v.iter_mut() {
        *x = (*x - m).abs();
    }
    let (_, d, _) = v.select_nth_unstable_by(mid, f32::total_cmp);
    Some((m, *d * MAD_TO_SIGMA))
}

/// What the hand finder remembers between frames, per cell.
#[derive(Debug, Clone, Default)]
struct Memory {
    w: usize,
    h: usize,
    /// Colour of the terrain remembered in each cell.
    terrain: Vec<Option<[f32; 3]>>,
    /// Colour of each cell of a hand in the last frame, and for how many
    /// frames it has not changed.
    hand: Vec<Option<([f32; 3], u32)>>,
}

impl Memory {
    fn fit(&mut self, w: usize, h: usize) {
        if self.w != w || self.h != h {
            *self = Self {
                w,
                h,
                terrain: vec![None; w * h],
                hand: vec![None; w * h],
            };
        }
    }
}

fn colour_distance(a: [f32; 3], b: [f32; 3]) -> f32 {
    ((a[0] - b[0]).powi(2) + (a[1] - b[1]).powi(2) + (a[2] - b[2]).powi(2)).sqrt()
}

/// A blob of cells and what its shape says.
pub(super) struct Blob {
    pub(super) cells: Vec<usize>,
    pub(super) area_in2: f64,
    length_in: f64,
    width_in: f64,
    edge_distance_in: f64,
}

/// Finds hands and arms over the table, frame after frame. It remembers the
/// terrain it has seen, so feed it the frames of one table in order; a clone
/// carries the memory along.
#[derive(Debug)]
pub struct HandFinder {
    params: HandParams,
    memory: Mutex<Memory>,
}

impl Clone for HandFinder {
    fn clone(&self) -> Self {
        Self {
            params: self.params.clone(),
            memory: Mutex::new(self.memory_snapshot()),
        }
    }
}

impl Default for HandFinder {
    fn default() -> Self {
        Self::new(HandParams::default())
    }
}

impl HandFinder {
    pub fn new(params: HandParams) -> Self {
        Self {
            params,
            memory: Mutex::new(Memory::default()),
        }
    }

    pub fn params(&self) -> &HandParams {
        &self.params
    }

    fn memory_snapshot(&self) -> Memory {
        match self.memory.lock() {
            Ok(m) => m.clone(),
            Err(poisoned) => poisoned.into_inner().clone(),
        }
    }

    /// Forgets the terrain seen so far (a new table, or the camera moved).
    pub fn forget(&self) {
        let mut m = match self.memory.lock() {
            Ok(m) => m,
            Err(poisoned) => poisoned.into_inner(),
        };
        *m = Memory::default();
    }

    /// The regions of the table hidden by hands or arms in this top view.
    /// `gains` white-balance the view (the detector's); `layout` gives the
    /// markers, whose paper is not table; `figures_in_table` are the centres
    /// of the figures found whole, which are not hands.
    pub fn find(
        &self,
        top: &RgbImage,
        view: &TopView,
        gains: [f32; 3],
        layout: &TableLayout,
        figures_in_table: &[Point2<f64>],
    ) -> Vec<OccludedRegion> {
        let grid = self.grid(top, view, gains);
        self.find_in(&grid, view, layout, figures_in_table)
    }

    /// The coarse grid [`HandFinder::find`] reads a top view through (the
    /// terrain finder reads the same one when its cells are the same size).
    pub(super) fn grid(&self, top: &RgbImage, view: &TopView, gains: [f32; 3]) -> Grid {
        Grid::new(top, gains, self.params.cell_in * view.px_per_in)
    }

    /// [`HandFinder::find`] on the top view's grid made already
    /// ([`HandFinder::grid`]).
    pub(super) fn find_in(
        &self,
        grid: &Grid,
        view: &TopView,
        layout: &TableLayout,
        figures_in_table: &[Point2<f64>],
    ) -> Vec<OccludedRegion> {
        let p = &self.params;
        let (w, h) = (grid.w, grid.h);
        let mut memory = match self.memory.lock() {
            Ok(m) => m,
            Err(poisoned) => poisoned.into_inner(),
        };
        memory.fit(w, h);

        let usable = self.usable_cells(grid, view, layout);
        let mut not_table = self.not_table(grid, &usable);
        let figure_cells = self.figure_cells(grid, view, figures_in_table);
        for &k in &figure_cells {
            not_table[k] = false;
        }
        // Terrain seen before is not a hand.
        let tol = p.terrain_tolerance as f32;
        let mut terrain_cells = vec![false; w * h];
        for k in 0..w * h {
            if let (true, Some(f), Some(t)) = (not_table[k], grid.feat[k], memory.terrain[k])
                && colour_distance(f, t) <= tol
            {
                terrain_cells[k] = true;
                not_table[k] = false;
            }
        }
        let close = p.cells(p.close_radius_in);
        let open = p.cells(p.open_radius_in);
        let mut mask = erode(&dilate(&not_table, w, h, close), w, h, close);
        mask = dilate(&erode(&mask, w, h, open), w, h, open);
        for (m, &u) in mask.iter_mut().zip(&usable) {
            *m &= u;
        }

        let cell_in = grid.cell_px / view.px_per_in;
        let mut hand_cells = vec![false; w * h];
        let mut regions = Vec::new();
        for blob in blobs(&mask, w, h, cell_in) {
            let terrain_share = blob.cells.iter().filter(|&&k| terrain_cells[k]).count() as f64
                / blob.cells.len() as f64;
            let from_outside = blob.edge_distance_in <= p.edge_reach_in;
            let arm_shaped = blob.length_in >= p.free_min_length_in
                && blob.length_in >= p.free_min_elongation * blob.width_in.max(cell_in);
            let still = blob
                .cells
                .iter()
                .filter(|&&k| {
                    matches!((memory.hand[k], grid.feat[k]),
                        (Some((c, n)), Some(f)) if n + 1 >= p.still_frames && colour_distance(c, f) <= tol)
                })
                .count()
                * 2
                > blob.cells.len();
            let is_hand = blob.area_in2 >= p.min_area_in2
                && (from_outside || arm_shaped)
                && terrain_share <= p.max_terrain_share
                && !still;
            if !is_hand {
                continue;
            }
            for &k in &blob.cells {
                hand_cells[k] = true;
            }
            let outline = trace_outline(&mask, w, h, blob.cells[0]);
            let tolerance = p.outline_tolerance_in / cell_in;
            let vertices_in_table: Vec<Point2<f64>> = simplify_closed(&outline, tolerance)
                .into_iter()
                .map(|(x, y)| view.table_from_view(grid.view_of(x, y)))
                .collect();
            if vertices_in_table.len() >= 3 {
                regions.push(OccludedRegion::Polygon { vertices_in_table });
            }
        }

        // Remember: what is not table and not a hand is terrain; the table
        // shows no terrain; a hand keeps what it covers remembered.
        let grown = dilate(&hand_cells, w, h, 1);
        for k in 0..w * h {
            let Some(f) = grid.feat[k] else {
                continue;
            };
            if hand_cells[k] {
                let n = match memory.hand[k] {
                    Some((c, n)) if colour_distance(c, f) <= tol => n + 1,
                    _ => 1,
                };
                memory.hand[k] = Some((f, n));
                if n >= p.still_frames {
                    memory.terrain[k] = Some(f);
                }
                continue;
            }
            memory.hand[k] = None;
            if grown[k] {
                continue;
            }
            if not_table[k] || terrain_cells[k] {
                memory.terrain[k] = Some(f);
            } else if usable[k] {
                memory.terrain[k] = None;
            }
        }
        regions
    }

    /// Cells within `figure_keep_out_in` of a figure's centre.
    fn figure_cells(&self, grid: &Grid, view: &TopView, figures: &[Point2<f64>]) -> Vec<usize> {
        let r_in = self.params.figure_keep_out_in;
        let discs: Vec<(Point2<f64>, f64)> = figures.iter().map(|c| (*c, r_in)).collect();
        cells_within(grid, view, &discs)
    }

    /// Cells inside the photo, away from the markers' paper.
    fn usable_cells(&self, grid: &Grid, view: &TopView, layout: &TableLayout) -> Vec<bool> {
        usable_cells(grid, view, layout, self.params.marker_margin_in)
    }

    /// Cells whose colour is not the table's.
    fn not_table(&self, grid: &Grid, usable: &[bool]) -> Vec<bool> {
        let p = &self.params;
        let used: Vec<[f32; 3]> = grid
            .feat
            .iter()
            .zip(usable)
            .filter_map(|(f, &u)| f.filter(|_| u))
            .collect();
        let stats: Vec<Option<(f32, f32)>> = (0..3)
            .map(|c| median_spread(&mut used.iter().map(|f| f[c]).collect::<Vec<_>>()))
            .collect();
        let (Some((m0, s0)), Some((m1, s1)), Some((ml, _))) = (stats[0], stats[1], stats[2]) else {
            return vec![false; usable.len()];
        };
        let floor = p.min_chroma_spread as f32;
        let (s0, s1) = (s0.max(floor), s1.max(floor));
        let k2 = (p.chroma_sigmas as f32).powi(2);
        let bright = (p.brighter_than_table as f32).ln();
        grid.feat
            .iter()
            .zip(usable)
            .map(|(f, &u)| match f {
                Some(f) if u => {
                    let d2 = ((f[0] - m0) / s0).powi(2) + ((f[1] - m1) / s1).powi(2);
                    d2 > k2 || f[2] - ml > bright
                }
                _ => false,
            })
            .collect()
    }
}

/// Cells inside the photo, away from the markers' paper (`margin` inches
/// beyond each printed square).
pub(super) fn usable_cells(
    grid: &Grid,
    view: &TopView,
    layout: &TableLayout,
    margin: f64,
) -> Vec<bool> {
    let mut usable: Vec<bool> = grid.feat.iter().map(Option::is_some).collect();
    let (w, h) = (grid.w, grid.h);
    if w == 0 || h == 0 {
        return usable;
    }
    for m in &layout.markers {
        let c = Point2::new(m.center_in[0], m.center_in[1]);
        let rot = Rotation2::new(-m.rotation_deg.to_radians());
        let half = m.size_in / 2.0 + margin;
        // Only cells near the marker can lie on it: those whose centres
        // fall in the box round the square turned any way (its corners
        // reach half a diagonal), widened by a cell; the test itself is
        // the exact one.
        let reach = half * std::f64::consts::SQRT_2;
        let (mut lo, mut hi) = ([f64::INFINITY; 2], [f64::NEG_INFINITY; 2]);
        for (dx, dy) in [(-1.0, -1.0), (1.0, -1.0), (-1.0, 1.0), (1.0, 1.0)] {
            let v = view.view_from_table(c + Vector2::new(dx, dy) * reach);
            // The cell whose centre `view_of` puts there.
            let cell = [
                (v.x + 0.5) / grid.cell_px - 0.5,
                (v.y + 0.5) / grid.cell_px - 0.5,
            ];
            for a in 0..2 {
                lo[a] = lo[a].min(cell[a]);
                hi[a] = hi[a].max(cell[a]);
            }
        }
        if !(lo[0].is_finite() && lo[1].is_finite() && hi[0].is_finite() && hi[1].is_finite()) {
            continue;
        }
        let range = |l: f64, u: f64, n: usize| {
            let a = (l.floor() - 1.0).clamp(0.0, n as f64) as usize;
            let b = (u.ceil() + 2.0).clamp(0.0, n as f64) as usize;
            a..b
        };
        for j in range(lo[1], hi[1], h) {
            for i in range(lo[0], hi[0], w) {
                let k = j * w + i;
                if !usable[k] {
                    continue;
                }
                let t = view.table_from_view(grid.view_of(i as f64 + 0.5, j as f64 + 0.5));
                let local: Vector2<f64> = rot * (t - c);
                if local.x.abs() <= half && local.y.abs() <= half {
                    usable[k] = false;
                }
            }
        }
    }
    usable
}

/// Cells whose centre lies within one of the discs (table centre, radius
/// in inches).
pub(super) fn cells_within(
    grid: &Grid,
    view: &TopView,
    discs: &[(Point2<f64>, f64)],
) -> Vec<usize> {
    let cell_in = grid.cell_px / view.px_per_in;
    let mut out = Vec::new();
    for &(c, r_in) in discs {
        if !(r_in.is_finite() && r_in >= 0.0) {
            continue;
        }
        let reach = (r_in / cell_in).ceil() as i64 + 1;
        let v = view.view_from_table(c);
        // Grid coordinates of the centre (cell corners are integers).
        let (gi, gj) = ((v.x + 0.5) / grid.cell_px, (v.y + 0.5) / grid.cell_px);
        if !(gi.is_finite() && gj.is_finite()) {
            continue;
        }
        let (ci, cj) = (gi.floor() as i64, gj.floor() as i64);
        for j in cj - reach..=cj + reach {
            for i in ci - reach..=ci + reach {
                if i < 0 || j < 0 || i >= grid.w as i64 || j >= grid.h as i64 {
                    continue;
                }
                let d_cells = (i as f64 + 0.5 - gi).hypot(j as f64 + 0.5 - gj);
                if d_cells * cell_in <= r_in {
                    // In range by the check above.
                    out.push(j as usize * grid.w + i as usize);
                }
            }
        }
    }
    out
}

/// Square max filter of radius `r` cells (separable).
pub(super) fn dilate(mask: &[bool], w: usize, h: usize, r: usize) -> Vec<bool> {
    morph(mask, w, h, r, true)
}

/// Square min filter of radius `r` cells (separable); outside counts as set,
/// so that a blob running off the grid is not eaten at the border.
pub(super) fn erode(mask: &[bool], w: usize, h: usize, r: usize) -> Vec<bool> {
    morph(mask, w, h, r, false)
}

fn morph(mask: &[bool], w: usize, h: usize, r: usize, any: bool) -> Vec<bool> {
    if r == 0 || w == 0 || h == 0 || mask.len() != w * h {
        return mask.to_vec();
    }
    // Down the columns, then along the rows as columns of the transpose:
    // the filter is separable and each pass keeps a running count per
    // column, so the cost does not grow with `r` and the inner loops run
    // over whole rows.
    let down = morph_columns(mask, w, h, r, any);
    let across = morph_columns(&transpose(&down, w, h), h, w, r, any);
    transpose(&across, h, w)
}

/// `mask` (`w` x `h`, row-major) transposed.
fn transpose(mask: &[bool], w: usize, h: usize) -> Vec<bool> {
    let mut out = vec![false; w * h];
    for (j, row) in mask.chunks_exact(w).enumerate() {
        for (i, &v) in row.iter().enumerate() {
            out[i * h + j] = v;
        }
    }
    out
}

/// [`morph`] along the columns only: a running count of the set cells in
/// each column's window, updated a whole row at a time.
fn morph_columns(mask: &[bool], w: usize, h: usize, r: usize, any: bool) -> Vec<bool> {
    let row = |j: usize| &mask[j * w..(j + 1) * w];
    let mut count = vec![0u32; w];
    for j in 0..r.min(h) {
        for (c, &v) in count.iter_mut().zip(row(j)) {
            *c += u32::from(v);
        }
    }
    let mut out = vec![false; w * h];
    for (j, out_row) in out.chunks_exact_mut(w).enumerate() {
        if j + r < h {
            for (c, &v) in count.iter_mut().zip(row(j + r)) {
                *c += u32::from(v);
            }
        }
        if j > r {
            for (c, &v) in count.iter_mut().zip(row(j - r - 1)) {
                *c -= u32::from(v);
            }
        }
        // Cells of the window inside the grid (`u32` as the counts).
        let window = ((j + r).min(h - 1) + 1 - j.saturating_sub(r)) as u32;
        for (o, &c) in out_row.iter_mut().zip(&count) {
            *o = if any { c > 0 } else { c == window };
        }
    }
    out
}

/// The plain definition of [`morph`], to test it against.
#[cfg(test)]
fn morph_reference(mask: &[bool], w: usize, h: usize, r: usize, any: bool) -> Vec<bool> {
    let pass = |src: &[bool], along_rows: bool| -> Vec<bool> {
        let mut out = vec![false; w * h];
        for j in 0..h {
            for i in 0..w {
                let (pos, len) = if along_rows { (i, w) } else { (j, h) };
                let lo = pos.saturating_sub(r);
                let hi = (pos + r).min(len - 1);
                let at = |q: usize| {
                    if along_rows {
                        src[j * w + q]
                    } else {
                        src[q * w + i]
                    }
                };
                out[j * w + i] = if any {
                    (lo..=hi).any(at)
                } else {
                    (lo..=hi).all(at)
                };
            }
        }
        out
    };
    let rows = pass(mask, true);
    pass(&rows, false)
}

/// 8-connected blobs of set cells, with their size and shape in inches.
pub(super) fn blobs(mask: &[bool], w: usize, h: usize, cell_in: f64) -> Vec<Blob> {
    let mut seen = vec![false; w * h];
    let mut out = Vec::new();
    let mut stack = Vec::new();
    for start in 0..w * h {
        if !mask[start] || seen[start] {
            continue;
        }
        seen[start] = true;
        stack.push(start);
        let mut cells = Vec::new();
        while let Some(k) = stack.pop() {
            cells.push(k);
            let (i, j) = (k % w, k / w);
            for nj in j.saturating_sub(1)..=(j + 1).min(h - 1) {
                for ni in i.saturating_sub(1)..=(i + 1).min(w - 1) {
                    let nk = nj * w + ni;
                    if mask[nk] && !seen[nk] {
                        seen[nk] = true;
                        stack.push(nk);
                    }
                }
            }
        }
        cells.sort_unstable();
        let n = cells.len() as f64;
        let (mut si, mut sj) = (0.0, 0.0);
        let mut edge = usize::MAX;
        for &k in &cells {
            let (i, j) = (k % w, k / w);
            si += i as f64;
            sj += j as f64;
            edge = edge.min(i).min(j).min(w - 1 - i).min(h - 1 - j);
        }
        let (mi, mj) = (si / n, sj / n);
        let (mut cii, mut cij, mut cjj) = (0.0, 0.0, 0.0);
        for &k in &cells {
            let (di, dj) = ((k % w) as f64 - mi, (k / w) as f64 - mj);
            cii += di * di;
            cij += di * dj;
            cjj += dj * dj;
        }
        let (cii, cij, cjj) = (cii / n, cij / n, cjj / n);
        let half_tr = (cii + cjj) / 2.0;
        let disc = ((cii - cjj).powi(2) / 4.0 + cij * cij).sqrt();
        // A uniform bar of length L has variance L^2 / 12 along it.
        let length_cells = (12.0 * (half_tr + disc)).sqrt();
        let width_cells = (12.0 * (half_tr - disc).max(0.0)).sqrt();
        out.push(Blob {
            area_in2: n * cell_in * cell_in,
            length_in: length_cells * cell_in,
            width_in: width_cells * cell_in,
            edge_distance_in: edge as f64 * cell_in,
            cells,
        });
    }
    out
}

/// The outer outline of the blob holding cell `start` (its first cell in
/// row order), along the cell edges: grid corners (x, y), x right, y down,
/// the blob on the right-hand side (clockwise on screen). 8-connected.
pub(super) fn trace_outline(mask: &[bool], w: usize, h: usize, start: usize) -> Vec<(f64, f64)> {
    let set = |i: i64, j: i64| -> bool {
        i >= 0
            && j >= 0
            && (i as usize) < w
            && (j as usize) < h
            && mask[j as usize * w + i as usize]
    };
    // Directions: right, down, left, up (y down).
    const DIRS: [(i64, i64); 4] = [(1, 0), (0, 1), (-1, 0), (0, -1)];
    let (si, sj) = ((start % w) as i64, (start / w) as i64);
    // The top edge of the first cell, walked rightwards: the cell is below,
    // on the right-hand side.
    let (mut x, mut y, mut d) = (si, sj, 0usize);
    let mut out = Vec::new();
    let limit = 4 * (w + 1) * (h + 1);
    for _ in 0..limit {
        out.push((x as f64, y as f64));
        x += DIRS[d].0;
        y += DIRS[d].1;
        if (x, y, d) == (si, sj, 0) {
            break;
        }
        // The two cells ahead of the corner (x, y) when facing `d`: the one
        // on the left and the one on the right.
        let (ahead_left, ahead_right) = match d {
            0 => ((x, y - 1), (x, y)),
            1 => ((x, y), (x - 1, y)),
            2 => ((x - 1, y), (x - 1, y - 1)),
            _ => ((x - 1, y - 1), (x, y - 1)),
        };
        d = if set(ahead_left.0, ahead_left.1) {
            (d + 3) % 4
        } else if set(ahead_right.0, ahead_right.1) {
            d
        } else {
            (d + 1) % 4
        };
        if (x, y, d) == (si, sj, 0) {
            break;
        }
    }
    // Corners only: drop points in the middle of straight runs.
    let n = out.len();
    (0..n)
        .filter(|&k| {
            let (a, b, c) = (out[(k + n - 1) % n], out[k], out[(k + 1) % n]);
            (b.0 - a.0) * (c.1 - b.1) != (b.1 - a.1) * (c.0 - b.0)
        })
        .map(|k| out[k])
        .collect()
}

/// Douglas-Peucker on a closed outline.
pub(super) fn simplify_closed(points: &[(f64, f64)], tolerance: f64) -> Vec<(f64, f64)> {
    if points.len() <= 3 {
        return points.to_vec();
    }
    // Split at the point farthest from the first.
    let far = (1..points.len())
        .max_by(|&a, &b| {
            let d = |k: usize| (points[k].0 - points[0].0).hypot(points[k].1 - points[0].1);
            d(a).total_cmp(&d(b))
        })
        .unwrap_or(1);
    let mut first: Vec<(f64, f64)> = points[..=far].to_vec();
    let mut second: Vec<(f64, f64)> = points[far..].to_vec();
    second.push(points[0]);
    first = simplify_open(&first, tolerance);
    second = simplify_open(&second, tolerance);
    first.pop();
    second.pop();
    first.extend(second);
    first
}

fn simplify_open(points: &[(f64, f64)], tolerance: f64) -> Vec<(f64, f64)> {
    if points.len() <= 2 {
        return points.to_vec();
    }
    let (a, b) = (points[0], points[points.len() - 1]);
    let (dx, dy) = (b.0 - a.0, b.1 - a.1);
    let len = dx.hypot(dy);
    let dist = |p: (f64, f64)| {
        if len == 0.0 {
            (p.0 - a.0).hypot(p.1 - a.1)
        } else {
            ((p.0 - a.0) * dy - (p.1 - a.1) * dx).abs() / len
        }
    };
    let (k, d) = (1..points.len() - 1)
        .map(|k| (k, dist(points[k])))
        .max_by(|x, y| x.1.total_cmp(&y.1))
        .unwrap_or((0, 0.0));
    if d <= tolerance {
        return vec![a, b];
    }
    let mut left = simplify_open(&points[..=k], tolerance);
    let right = simplify_open(&points[k..], tolerance);
    left.pop();
    left.extend(right);
    left
}

#[cfg(test)]
mod tests {
    use super::*;
    use image::Rgb;

    const MAT: Rgb<u8> = Rgb([70, 110, 50]);
    const SKIN: Rgb<u8> = Rgb([210, 150, 120]);
    const GREY: Rgb<u8> = Rgb([120, 120, 125]);

    fn table() -> (TableLayout, TopView) {
        let layout = TableLayout::standard(24.0, 24.0);
        let view = TopView::new(&layout, 10.0, 0.1);
        (layout, view)
    }

    /// A textured mat with rectangles (table inches) painted on it.
    fn scene(view: &TopView, rects: &[([f64; 4], Rgb<u8>)]) -> RgbImage {
        RgbImage::from_fn(view.width_px, view.height_px, |i, j| {
            let t = view.table_from_view(Point2::new(f64::from(i), f64::from(j)));
            for (r, c) in rects {
                if t.x >= r[0] && t.x <= r[2] && t.y >= r[1] && t.y <= r[3] {
                    return *c;
                }
            }
            // Deterministic texture of a few levels.
            let n = ((i * 7 + j * 13) % 11) as i16 - 5;
            Rgb(MAT.0.map(|v| (i16::from(v) + n) as u8))
        })
    }

    fn covers(regions: &[OccludedRegion], x: f64, y: f64) -> bool {
        regions.iter().any(|r| r.covers(Point2::new(x, y), 0.0))
    }

    #[test]
    fn cells_on_markers_are_those_every_cell_tested_finds() {
        // Markers turned several ways on tables of several sizes; the
        // cells looked at near each marker must be exactly the cells that
        // testing every cell against every marker finds.
        for (w_in, d_in, turn) in [(24.0, 24.0, 0.0), (48.0, 36.0, 30.0), (36.0, 72.0, 45.0)] {
            let mut layout = TableLayout::standard(w_in, d_in);
            for (k, m) in layout.markers.iter_mut().enumerate() {
                m.rotation_deg = turn * k as f64;
            }
            let view = TopView::new(&layout, 20.0, 0.1);
            let top = RgbImage::from_pixel(view.width_px, view.height_px, MAT);
            let grid = Grid::new(&top, [1.0; 3], 0.25 * view.px_per_in);
            for margin in [0.0, 0.8, 2.5] {
                let every: Vec<bool> = (0..grid.w * grid.h)
                    .map(|k| {
                        let (i, j) = ((k % grid.w) as f64 + 0.5, (k / grid.w) as f64 + 0.5);
                        let t = view.table_from_view(grid.view_of(i, j));
                        grid.feat[k].is_some()
                            && layout.markers.iter().all(|m| {
                                let c = Point2::new(m.center_in[0], m.center_in[1]);
                                let local: Vector2<f64> =
                                    Rotation2::new(-m.rotation_deg.to_radians()) * (t - c);
                                let half = m.size_in / 2.0 + margin;
                                local.x.abs() > half || local.y.abs() > half
                            })
                    })
                    .collect();
                let fast = usable_cells(&grid, &view, &layout, margin);
                assert!(every.iter().any(|u| !u), "no cell on a marker");
                assert_eq!(
                    fast, every,
                    "{w_in} x {d_in}, turned {turn}, margin {margin}"
                );
            }
        }
    }

    #[test]
    fn an_arm_from_the_edge_is_a_hand_and_figures_are_not() {
        let (layout, view) = table();
        let top = scene(
            &view,
            &[
                // Forearm from the right edge, hand at its end.
                ([12.0, 10.0, 24.0, 13.0], SKIN),
                // A figure's base and a wall: too small or too thin.
                ([5.0, 5.0, 6.0, 6.0], SKIN),
                ([4.0, 18.0, 10.0, 18.6], GREY),
            ],
        );
        let finder = HandFinder::default();
        let regions = finder.find(&top, &view, [1.0; 3], &layout, &[]);
        assert_eq!(regions.len(), 1, "{regions:?}");
        assert!(covers(&regions, 13.0, 11.5));
        assert!(covers(&regions, 20.0, 11.5));
        assert!(!covers(&regions, 11.0, 11.5));
        assert!(!covers(&regions, 5.5, 5.5));
        assert!(!covers(&regions, 7.0, 18.3));
    }

    #[test]
    fn a_figure_found_beside_the_hand_is_not_part_of_it() {
        let (layout, view) = table();
        // A figure touching the fingers, wide enough to survive the opening.
        let top = scene(
            &view,
            &[
                ([12.0, 10.0, 24.0, 13.0], SKIN),
                ([10.9, 10.9, 12.0, 12.1], SKIN),
            ],
        );
        let params = HandParams {
            open_radius_in: 0.25,
            ..HandParams::default()
        };
        let figure = Point2::new(11.45, 11.5);
        let blind = HandFinder::new(params.clone()).find(&top, &view, [1.0; 3], &layout, &[]);
        assert!(covers(&blind, figure.x, figure.y));
        let regions = HandFinder::new(params).find(&top, &view, [1.0; 3], &layout, &[figure]);
        assert!(covers(&regions, 18.0, 11.5));
        assert!(!covers(&regions, figure.x, figure.y), "{regions:?}");
    }

    #[test]
    fn a_compact_blob_inside_the_table_is_terrain_and_is_remembered() {
        let (layout, view) = table();
        // A building in the middle: not a hand.
        let building = ([9.0, 9.0, 13.0, 13.0], GREY);
        let finder = HandFinder::default();
        let top = scene(&view, &[building]);
        assert!(finder.find(&top, &view, [1.0; 3], &layout, &[]).is_empty());
        // A grey sleeve reaching in from the edge over it: only the new part
        // is the arm.
        let top = scene(&view, &[building, ([11.0, 10.0, 24.0, 12.0], GREY)]);
        let regions = finder.find(&top, &view, [1.0; 3], &layout, &[]);
        assert_eq!(regions.len(), 1, "{regions:?}");
        assert!(covers(&regions, 18.0, 11.0));
        assert!(!covers(&regions, 9.5, 12.5));
    }

    #[test]
    fn terrain_at_the_edge_is_learnt_once_it_stays_still() {
        let (layout, view) = table();
        let road = ([0.0, 8.0, 10.0, 11.0], GREY);
        let finder = HandFinder::new(HandParams {
            still_frames: 3,
            ..HandParams::default()
        });
        let top = scene(&view, &[road]);
        let counts: Vec<usize> = (0..5)
            .map(|_| finder.find(&top, &view, [1.0; 3], &layout, &[]).len())
            .collect();
        assert_eq!(counts, [1, 1, 0, 0, 0]);
    }

    #[test]
    fn a_long_forearm_is_a_hand_even_when_its_elbow_is_out_of_sight() {
        let (layout, view) = table();
        let top = scene(&view, &[([5.0, 10.0, 19.0, 12.5], SKIN)]);
        let regions = HandFinder::default().find(&top, &view, [1.0; 3], &layout, &[]);
        assert_eq!(regions.len(), 1);
        assert!(covers(&regions, 12.0, 11.0));
    }

    #[test]
    fn shadows_and_an_empty_table_are_not_hands() {
        let (layout, view) = table();
        let shadow = Rgb([30, 50, 22]);
        let top = scene(&view, &[([10.0, 0.0, 14.0, 12.0], shadow)]);
        assert!(
            HandFinder::default()
                .find(&top, &view, [1.0; 3], &layout, &[])
                .is_empty()
        );
    }

    #[test]
    fn morphology_with_running_counts_is_the_plain_filter() {
        // A fixed pseudo-random mask, odd sizes, radii up to past the size.
        let (w, h) = (23, 17);
        let mut state = 12345u32;
        let mask: Vec<bool> = (0..w * h)
            .map(|_| {
                state = state.wrapping_mul(1_103_515_245).wrapping_add(12_345);
                (state >> 16).is_multiple_of(3)
            })
            .collect();
        for r in [0, 1, 2, 3, 5, 16, 30] {
            for any in [true, false] {
                assert_eq!(
                    morph(&mask, w, h, r, any),
                    morph_reference(&mask, w, h, r, any),
                    "r {r} any {any}"
                );
            }
        }
    }

    #[test]
    fn outline_of_an_l_is_its_six_corners() {
        // 3x3 with the top-right 2x2... an L of 5 cells.
        #[rustfmt::skip]
        let mask = [
            true, false, false,
            true, false, false,
            true, true, true,
        ];
        let o = trace_outline(&mask, 3, 3, 0);
        assert_eq!(
            o,
            vec![
                (0.0, 0.0),
                (1.0, 0.0),
                (1.0, 2.0),
                (3.0, 2.0),
                (3.0, 3.0),
                (0.0, 3.0)
            ]
        );
        let s = simplify_closed(&o, 0.1);
        assert_eq!(s.len(), 6);
    }

    #[test]
    fn parameters_are_checked() {
        assert!(HandParams::default().problems().is_empty());
        let src = SourceFile::from_text("h.toml", "cell_in = 0.5\nmax_terrain_share = 2.0\n");
        let err = HandParams::from_source(&src).unwrap_err();
        assert_eq!(err.problems[0].field, "max_terrain_share");
        assert_eq!(err.problems[0].line, Some(2));
    }
}
