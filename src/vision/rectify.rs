//! The top-down view: the table resampled at a fixed scale on the plane of
//! the base tops, the camera pose behind it, and the white reference.
//!
//! # Conventions
//! - Table frame of `TABLE_KIT.md`: inches, x right, y up seen from above,
//!   z up.
//! - Top view pixels: column `i` and row `j`, origin at the centre of the
//!   top-left pixel; row 0 is the far edge of the table (y = depth), so the
//!   view is a map: x right, y up. Pixel (i, j) shows the table point
//!   x = (i + 0.5) / s, y = depth - (j + 0.5) / s at height z = `plane_z_in`,
//!   where s is `px_per_in`.
//! - Image pixels as in `calibration` (origin at the centre of the top-left
//!   pixel, distorted as seen unless called ideal).

use image::RgbImage;
use nalgebra::{Matrix3, Point2, Point3, Vector3};

use super::VisionError;
use super::cv;
use crate::calibration::{Lens, TableLayout, TableMapping};

/// Focal length assumed when no lens is given and the homography cannot
/// tell, as a fraction of the image width (about a 53 degree webcam).
const FALLBACK_FOCAL_PER_WIDTH: f64 = 1.0;
/// A focal estimate outside this range (fractions of the image width) is
/// not trusted.
const FOCAL_PER_WIDTH_RANGE: (f64, f64) = (0.3, 5.0);
/// Most sweeps the SVD that makes the pose's rotation orthogonal may take;
/// a 3x3 near-rotation converges in a handful.
const POSE_SVD_MAX_ITERATIONS: usize = 1000;

/// The camera's pose relative to the table, from the table homography and K.
#[derive(Debug, Clone, PartialEq)]
pub struct CameraPose {
    /// Camera matrix used (the lens's, or estimated).
    pub k: Matrix3<f64>,
    /// Rotation camera_from_table.
    pub camera_from_table_r: Matrix3<f64>,
    /// Translation camera_from_table, inches.
    pub camera_from_table_t: Vector3<f64>,
    /// Camera centre in the table frame, inches.
    pub center_in_table: Point3<f64>,
}

impl CameraPose {
    /// Decomposes `ideal_from_table` with K: H ~ K [r1 r2 t].
    pub fn from_mapping(mapping: &TableMapping, image_size: [u32; 2]) -> Result<Self, VisionError> {
        let k = match &mapping.lens {
            Some(lens) => lens.k,
            None => estimate_k(&mapping.ideal_from_table, image_size),
        };
        let k_inv = k
            .try_inverse()
            .ok_or_else(|| VisionError::Pose("camera matrix is singular".into()))?;
        let m = k_inv * mapping.ideal_from_table;
        let (m1, m2, m3) = (m.column(0), m.column(1), m.column(2));
        let norm = (m1.norm() + m2.norm()) / 2.0;
        if !(norm.is_finite() && norm > 0.0) {
            return Err(VisionError::Pose("degenerate homography".into()));
        }
        let mut scale = 1.0 / norm;
        if m3[2] * scale < 0.0 {
            // The table lies in front of the camera.
            scale = -scale;
        }
        let r1: Vector3<f64> = m1 * scale;
        let r2: Vector3<f64> = m2 * scale;
        let t: Vector3<f64> = m3 * scale;
        let r3 = r1.cross(&r2);
        // Nearest rotation (the homography is noisy).
        let raw = Matrix3::from_columns(&[r1, r2, r3]);
        if !(raw.iter().chain(t.iter()).all(|v| v.is_finite()) && k.iter().all(|v| v.is_finite())) {
            return Err(VisionError::Pose(
                "the table mapping or the camera matrix holds a number that is not finite (NaN or infinite): check the layout's marker positions and rotations and the camera file, then fit the table again".into(),
            ));
        }
        // Bounded: nalgebra's plain `svd` loops for ever on some inputs.
        let svd = raw
            .try_svd(true, true, f64::EPSILON, POSE_SVD_MAX_ITERATIONS)
            .ok_or_else(|| {
                VisionError::Pose(format!(
                    "the rotation did not settle in {POSE_SVD_MAX_ITERATIONS} steps: the table mapping is degenerate; check the layout and the camera file, then fit the table again"
                ))
            })?;
        let (Some(u), Some(v_t)) = (svd.u, svd.v_t) else {
            return Err(VisionError::Pose(
                "cannot orthogonalise the rotation".into(),
            ));
        };
        let r = u * v_t;
        let center = -(r.transpose() * t);
        Ok(Self {
            k,
            camera_from_table_r: r,
            camera_from_table_t: t,
            center_in_table: Point3::from(center),
        })
    }

    /// Ideal pixels from table points on the plane z = `z_in`.
    pub fn ideal_from_plane(&self, z_in: f64) -> Matrix3<f64> {
        let r = &self.camera_from_table_r;
        // The table's up is toward the camera; a layout seen mirrored would
        // put the camera below the table, so lift toward the camera instead.
        let up = if self.center_in_table.z >= 0.0 {
            1.0
        } else {
            -1.0
        };
        let t = self.camera_from_table_t + r.column(2) * (z_in * up);
        self.k * Matrix3::from_columns(&[r.column(0).into_owned(), r.column(1).into_owned(), t])
    }

    /// Where the camera shows a table point at height `z_in` (distorted
    /// pixels when a lens is given).
    pub fn pixel_from_table_at(
        &self,
        p: Point2<f64>,
        z_in: f64,
        lens: Option<&Lens>,
    ) -> Point2<f64> {
        let ideal = crate::calibration::homography::apply(&self.ideal_from_plane(z_in), p);
        lens.map_or(ideal, |l| l.pixel_from_ideal(ideal))
    }

    /// Where the camera's view ray through a point at height `z_in` above
    /// table point `p` meets the table plane, minus `p`: the parallax shift
    /// of a raised point, inches (zero straight below the camera).
    pub fn parallax_in(&self, p: Point2<f64>, z_in: f64) -> nalgebra::Vector2<f64> {
        let c = self.center_in_table;
        let h = c.z.abs();
        if h <= z_in {
            return nalgebra::Vector2::zeros();
        }
        let away = nalgebra::Vector2::new(p.x - c.x, p.y - c.y);
        away * (z_in / (h - z_in))
    }
}

/// K with the principal point at the image centre and the focal length from
/// the orthogonality of the homography's first two columns.
fn estimate_k(ideal_from_table: &Matrix3<f64>, image_size: [u32; 2]) -> Matrix3<f64> {
    let w = f64::from(image_size[0]);
    let (cx, cy) = ((w - 1.0) / 2.0, (f64::from(image_size[1]) - 1.0) / 2.0);
    let shift = Matrix3::new(1.0, 0.0, -cx, 0.0, 1.0, -cy, 0.0, 0.0, 1.0);
    let h = shift * ideal_from_table;
    let num = -(h[(0, 0)] * h[(0, 1)] + h[(1, 0)] * h[(1, 1)]);
    let den = h[(2, 0)] * h[(2, 1)];
    let f2 = num / den;
    let f = if f2.is_finite() && f2 > 0.0 {
        let f = f2.sqrt();
        if (FOCAL_PER_WIDTH_RANGE.0 * w..FOCAL_PER_WIDTH_RANGE.1 * w).contains(&f) {
            f
        } else {
            FALLBACK_FOCAL_PER_WIDTH * w
        }
    } else {
        FALLBACK_FOCAL_PER_WIDTH * w
    };
    Matrix3::new(f, 0.0, cx, 0.0, f, cy, 0.0, 0.0, 1.0)
}

/// The top view's geometry: which table point each pixel shows.
#[derive(Debug, Clone, PartialEq)]
pub struct TopView {
    pub px_per_in: f64,
    pub width_px: u32,
    pub height_px: u32,
    pub depth_in: f64,
    /// Height of the plane shown, inches above the table.
    pub plane_z_in: f64,
    /// Where this view's pixel (0, 0) lies in the whole table's view
    /// (columns, rows): zero for the whole table, the corner of the part
    /// for a part of it (see [`TopView::part`]).
    pub origin_px: [u32; 2],
}

impl TopView {
    pub fn new(layout: &TableLayout, px_per_in: f64, plane_z_in: f64) -> Self {
        // Sizes are small positive numbers (a table is a few feet).
        let width_px = (layout.width_in * px_per_in).ceil().max(1.0) as u32;
        let height_px = (layout.depth_in * px_per_in).ceil().max(1.0) as u32;
        Self {
            px_per_in,
            width_px,
            height_px,
            depth_in: layout.depth_in,
            plane_z_in,
            origin_px: [0, 0],
        }
    }

    /// The part of this view in `rect` (its own pixels: min column, min
    /// row, end column, end row, ends exclusive), clamped to the view. Its
    /// pixels show the same table points as the same pixels of this view;
    /// a part whose corner lies on the map grid gets the same maps there.
    pub fn part(&self, rect: [u32; 4]) -> Self {
        let x1 = rect[2].min(self.width_px);
        let y1 = rect[3].min(self.height_px);
        let x0 = rect[0].min(x1.saturating_sub(1));
        let y0 = rect[1].min(y1.saturating_sub(1));
        Self {
            width_px: (x1 - x0).max(1),
            height_px: (y1 - y0).max(1),
            origin_px: [self.origin_px[0] + x0, self.origin_px[1] + y0],
            ..self.clone()
        }
    }

    /// Table point (x, y) shown at top-view pixel position (i, j).
    pub fn table_from_view(&self, view: Point2<f64>) -> Point2<f64> {
        let (ox, oy) = (f64::from(self.origin_px[0]), f64::from(self.origin_px[1]));
        Point2::new(
            (view.x + ox + 0.5) / self.px_per_in,
            self.depth_in - (view.y + oy + 0.5) / self.px_per_in,
        )
    }

    /// Top-view pixel position showing table point (x, y).
    pub fn view_from_table(&self, table: Point2<f64>) -> Point2<f64> {
        Point2::new(
            table.x * self.px_per_in - 0.5 - f64::from(self.origin_px[0]),
            (self.depth_in - table.y) * self.px_per_in - 0.5 - f64::from(self.origin_px[1]),
        )
    }

    /// Source-pixel maps for the whole view, computed exactly on a grid of
    /// `grid_px` and bilinearly in between (the map is smooth).
    pub fn maps(
        &self,
        pose: &CameraPose,
        lens: Option<&Lens>,
        grid_px: u32,
    ) -> (Vec<f32>, Vec<f32>) {
        let n = self.width_px as usize * self.height_px as usize;
        let (mut map_x, mut map_y) = (Vec::with_capacity(n), Vec::with_capacity(n));
        self.source_rows(pose, lens, grid_px, |_, xs, ys| {
            map_x.extend_from_slice(xs);
            map_y.extend_from_slice(ys);
        });
        (map_x, map_y)
    }

    /// [`TopView::maps`] in OpenCV's fixed-point form, made a row at a time
    /// without the whole float maps: the same pixels, a cheaper remap.
    pub fn fixed_maps(
        &self,
        pose: &CameraPose,
        lens: Option<&Lens>,
        grid_px: u32,
    ) -> cv::FixedMaps {
        self.fixed_maps_from_nodes(&self.map_nodes(pose, lens, grid_px), grid_px)
    }

    /// [`TopView::fixed_maps`] from the grid nodes of [`TopView::map_nodes`].
    fn fixed_maps_from_nodes(&self, nodes: &[(f64, f64)], grid_px: u32) -> cv::FixedMaps {
        let mut maps = cv::FixedMaps::with_size(self.width_px, self.height_px);
        self.rows_from_nodes(nodes, grid_px, |j, xs, ys| maps.set_row(j, xs, ys));
        maps
    }

    /// Calls `put_row(j, xs, ys)` with the source pixels of each view row:
    /// exact on a grid of `grid_px`, bilinear in between.
    fn source_rows(
        &self,
        pose: &CameraPose,
        lens: Option<&Lens>,
        grid_px: u32,
        put_row: impl FnMut(usize, &[f32], &[f32]),
    ) {
        let nodes = self.map_nodes(pose, lens, grid_px);
        self.rows_from_nodes(&nodes, grid_px, put_row);
    }

    /// The exact source pixels of the map grid's nodes, row-major, on a
    /// grid of `grid_px` that reaches one node past the view's far sides.
    fn map_nodes(&self, pose: &CameraPose, lens: Option<&Lens>, grid_px: u32) -> Vec<(f64, f64)> {
        let g = grid_px.max(1) as usize;
        let (w, h) = (self.width_px as usize, self.height_px as usize);
        let gw = (w - 1) / g + 2;
        let gh = (h - 1) / g + 2;
        let ideal_from_plane = pose.ideal_from_plane(self.plane_z_in);
        let mut nodes = vec![(0.0f64, 0.0f64); gw * gh];
        for gj in 0..gh {
            for gi in 0..gw {
                let view = Point2::new((gi * g) as f64, (gj * g) as f64);
                let table = self.table_from_view(view);
                let ideal = crate::calibration::homography::apply(&ideal_from_plane, table);
                let px = lens.map_or(ideal, |l| l.pixel_from_ideal(ideal));
                nodes[gj * gw + gi] = (px.x, px.y);
            }
        }
        nodes
    }

    /// [`TopView::source_rows`] from the grid nodes of [`TopView::map_nodes`].
    fn rows_from_nodes(
        &self,
        nodes: &[(f64, f64)],
        grid_px: u32,
        mut put_row: impl FnMut(usize, &[f32], &[f32]),
    ) {
        let g = grid_px.max(1) as usize;
        let (w, h) = (self.width_px as usize, self.height_px as usize);
        let gw = (w - 1) / g + 2;
        if nodes.len() < gw * ((h - 1) / g + 2) {
            return;
        }
        // Row by row: the node row pair is blended once per output row, then
        // each grid cell of the row is filled from its two blended ends.
        let inv = 1.0 / g as f64;
        let fx: Vec<f64> = (0..g).map(|k| k as f64 * inv).collect();
        let mut row_nodes = vec![(0.0f64, 0.0f64); gw];
        let (mut row_x, mut row_y) = (vec![0f32; w], vec![0f32; w]);
        for j in 0..h {
            let gj = j / g;
            let fy = (j % g) as f64 * inv;
            let upper = &nodes[gj * gw..(gj + 1) * gw];
            let lower = &nodes[(gj + 1) * gw..(gj + 2) * gw];
            for ((r, a), c) in row_nodes.iter_mut().zip(upper).zip(lower) {
                *r = (a.0 + (c.0 - a.0) * fy, a.1 + (c.1 - a.1) * fy);
            }
            for ((cell_x, cell_y), ends) in row_x
                .chunks_mut(g)
                .zip(row_y.chunks_mut(g))
                .zip(row_nodes.windows(2))
            {
                let (a, b) = (ends[0], ends[1]);
                let (dx, dy) = (b.0 - a.0, b.1 - a.1);
                for ((ox, oy), f) in cell_x.iter_mut().zip(cell_y.iter_mut()).zip(&fx) {
                    *ox = (a.0 + dx * f) as f32;
                    *oy = (a.1 + dy * f) as f32;
                }
            }
            put_row(j, &row_x, &row_y);
        }
    }

    /// Resamples a frame into the top view.
    ///
    /// The maps depend only on the pose, the lens, the view and the frame
    /// size. A live camera's mapping is refitted on every frame but moves by
    /// a few hundredths of a pixel while the camera stands still, so the
    /// last maps are kept (per thread) and used again while the view and
    /// frame sizes are the same and no grid node of the maps has moved more
    /// than [`MAP_REUSE_PX`], well inside what the mapping is known to.
    pub fn render(
        &self,
        frame: &RgbImage,
        pose: &CameraPose,
        lens: Option<&Lens>,
        grid_px: u32,
    ) -> Result<RgbImage, VisionError> {
        let key = self.maps_key(frame, grid_px);
        let nodes = self.map_nodes(pose, lens, grid_px);
        let cached = MAPS.with(|m| {
            m.borrow()
                .as_ref()
                .filter(|kept| kept.key == key && nodes_within(&kept.nodes, &nodes, MAP_REUSE_PX))
                .map(|kept| std::rc::Rc::clone(&kept.maps))
        });
        let maps = match cached {
            Some(maps) => maps,
            None => {
                let maps = std::rc::Rc::new(self.fixed_maps_from_nodes(&nodes, grid_px));
                MAPS.with(|m| {
                    *m.borrow_mut() = Some(KeptMaps {
                        key,
                        nodes,
                        maps: std::rc::Rc::clone(&maps),
                    });
                });
                maps
            }
        };
        cv::remap_rgb_fixed(frame, &maps)
    }

    /// The sizes the maps are made for, as bits (the pose and the lens are
    /// compared through the map nodes).
    fn maps_key(&self, frame: &RgbImage, grid_px: u32) -> Vec<u64> {
        let mut key: Vec<u64> = [self.px_per_in, self.depth_in, self.plane_z_in]
            .iter()
            .map(|v| v.to_bits())
            .collect();
        key.extend([
            u64::from(self.origin_px[0]),
            u64::from(self.origin_px[1]),
            u64::from(self.width_px),
            u64::from(self.height_px),
            u64::from(grid_px),
            u64::from(frame.width()),
            u64::from(frame.height()),
        ]);
        key
    }
}

/// Kept maps are used again while no node moved further than this, pixels.
/// A live refit of the table mapping jitters by a few hundredths of a pixel
/// (the marker corners' own noise; the mapping's residual is about 0.05 px)
/// and remaking the maps for that is most of the top view's cost on a
/// cache miss. A tenth of a pixel is 0.005 in at 20 px/in, a third of the
/// mapping's leave-one-out corner error; a drift beyond it remakes the maps.
pub const MAP_REUSE_PX: f64 = 0.1;

/// Whether every node of `b` is within `tol` pixels (in x and in y) of the
/// same node of `a`.
fn nodes_within(a: &[(f64, f64)], b: &[(f64, f64)], tol: f64) -> bool {
    a.len() == b.len()
        && a.iter()
            .zip(b)
            .all(|(p, q)| (p.0 - q.0).abs() <= tol && (p.1 - q.1).abs() <= tol)
}

/// The last remap maps of a thread and what they were made for.
struct KeptMaps {
    key: Vec<u64>,
    nodes: Vec<(f64, f64)>,
    maps: std::rc::Rc<cv::FixedMaps>,
}

thread_local! {
    static MAPS: std::cell::RefCell<Option<KeptMaps>> = const { std::cell::RefCell::new(None) };
}

/// Bilinear sample of an RGB image at a pixel position; `None` outside.
pub fn sample_rgb(img: &RgbImage, p: Point2<f64>) -> Option<[f32; 3]> {
    let (w, h) = (f64::from(img.width()), f64::from(img.height()));
    if !(p.x >= 0.0 && p.y >= 0.0 && p.x <= w - 1.0 && p.y <= h - 1.0) {
        return None;
    }
    // Non-negative and in range by the check above, so the cast is the
    // floor (without a libm call: this runs for every edge sample).
    let (x0, y0) = (p.x as u32, p.y as u32);
    let (fx, fy) = ((p.x - f64::from(x0)) as f32, (p.y - f64::from(y0)) as f32);
    let x1 = (x0 + 1).min(img.width() - 1);
    let y1 = (y0 + 1).min(img.height() - 1);
    let a = img.get_pixel(x0, y0).0;
    let b = img.get_pixel(x1, y0).0;
    let c = img.get_pixel(x0, y1).0;
    let d = img.get_pixel(x1, y1).0;
    let mut out = [0f32; 3];
    for k in 0..3 {
        let top = f32::from(a[k]) * (1.0 - fx) + f32::from(b[k]) * fx;
        let bot = f32::from(c[k]) * (1.0 - fx) + f32::from(d[k]) * fx;
        out[k] = top * (1.0 - fy) + bot * fy;
    }
    Some(out)
}

/// A paper channel at this level or above is taken as clipped.
const CLIPPED_LEVEL: f32 = 250.0;
/// Where the paper meets a marker's black border: inches beyond the
/// printed square's edge (the blur of the edge).
const EDGE_RING_IN: [f64; 3] = [0.0, 0.02, 0.04];
/// Edge samples whose brightest channel lies in this range are the paper
/// darkened by the blur (not black, not clipped).
const EDGE_LEVELS: (f32, f32) = (60.0, 230.0);
/// ... below this when every channel of the paper is clipped, read from
/// these rings (reaching into the printed square, where the blur is darker).
const EDGE_LEVELS_ALL_CLIPPED_TOP: f32 = 200.0;
const EDGE_RING_ALL_CLIPPED_IN: [f64; 5] = [-0.04, -0.02, 0.0, 0.02, 0.04];
/// ... and used only when a channel's ratio to the brightest is under this
/// (a clear cast).
const ALL_CLIPPED_MIN_CAST_RATIO: f32 = 0.93;
/// Fewest such samples the channel ratios are taken from.
const MIN_EDGE_SAMPLES: usize = 24;

/// The white reference: the colour of the markers' white paper margin.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct WhiteReference {
    /// Paper colour as seen, 0..255 per channel.
    pub paper_rgb: [f32; 3],
    /// Samples the estimate rests on.
    pub samples: usize,
}

impl WhiteReference {
    /// Samples the paper between `inner_in` and `outer_in` outside the edge
    /// of each found marker's printed square; keeps the brighter half of
    /// the samples (a shadow or a finger on the margin is darker) and takes
    /// their per-channel median. A channel clipped on the paper is read
    /// from the paper's blur into the marker's black border instead.
    pub fn from_markers(
        frame: &RgbImage,
        mapping: &TableMapping,
        layout: &TableLayout,
        inner_in: f64,
        outer_in: f64,
    ) -> Option<Self> {
        const STEPS_ALONG: usize = 24;
        const STEPS_ACROSS: usize = 3;
        // Points round each found marker at `d` inches from its centre.
        let ring = |d: f64| {
            let mut points = Vec::new();
            for id in &mapping.markers_found {
                let Some(marker) = layout.marker(*id) else {
                    continue;
                };
                let c = Point2::new(marker.center_in[0], marker.center_in[1]);
                let rot = nalgebra::Rotation2::new(marker.rotation_deg.to_radians());
                let d = marker.size_in / 2.0 + d;
                for side in 0..4 {
                    for s in 0..STEPS_ALONG {
                        let u = -d + 2.0 * d * (s as f64 + 0.5) / STEPS_ALONG as f64;
                        let local = match side {
                            0 => nalgebra::Vector2::new(u, d),
                            1 => nalgebra::Vector2::new(d, u),
                            2 => nalgebra::Vector2::new(u, -d),
                            _ => nalgebra::Vector2::new(-d, u),
                        };
                        if let Some(rgb) =
                            sample_rgb(frame, mapping.pixel_from_table(c + rot * local))
                        {
                            points.push(rgb);
                        }
                    }
                }
            }
            points
        };
        let mut samples: Vec<[f32; 3]> = (0..STEPS_ACROSS)
            .flat_map(|a| {
                ring(inner_in + (outer_in - inner_in) * (a as f64 + 0.5) / STEPS_ACROSS as f64)
            })
            .collect();
        if samples.len() < 8 {
            return None;
        }
        samples.sort_by(|a, b| (b[0] + b[1] + b[2]).total_cmp(&(a[0] + a[1] + a[2])));
        let bright = &samples[..samples.len() / 2];
        let mut paper = [0f32; 3];
        for (k, p) in paper.iter_mut().enumerate() {
            let mut v: Vec<f32> = bright.iter().map(|s| s[k]).collect();
            v.sort_by(f32::total_cmp);
            *p = v[v.len() / 2].max(1.0);
        }
        // A channel the camera clipped on the paper (warm light on a bright
        // print) reads low against the others, and balancing by it leaves a
        // cast. Where the paper meets the marker's black border the camera
        // blurs the two: those pixels are the paper's colour, darker, and
        // unclipped; their channel ratios give the clipped channels from an
        // unclipped one.
        //
        // When every channel is clipped (a bright print under a warm light
        // the camera's own white balance only half corrects), the paper reads
        // neutral whatever the light; the edges then give all three ratios,
        // against their brightest channel, which keeps the level it was read
        // at (the paper's true level is unknown, and the thresholds are
        // relative to it).
        let clipped = paper.map(|c| c >= CLIPPED_LEVEL);
        if clipped.iter().any(|&c| c) {
            // With every channel clipped, a sample taken between a clipped
            // pixel and a darker one mixes in a neutral white: only the
            // darker part of the edge is read.
            let all_clipped = clipped.iter().all(|&c| c);
            let (rings, top_level): (&[f64], f32) = if all_clipped {
                (&EDGE_RING_ALL_CLIPPED_IN, EDGE_LEVELS_ALL_CLIPPED_TOP)
            } else {
                (&EDGE_RING_IN, EDGE_LEVELS.1)
            };
            let edge: Vec<[f32; 3]> = rings
                .iter()
                .flat_map(|&d| ring(d))
                .filter(|s| {
                    let top = s[0].max(s[1]).max(s[2]);
                    (EDGE_LEVELS.0..=top_level).contains(&top)
                })
                .collect();
            let median_of = |k: usize| {
                let mut v: Vec<f32> = edge.iter().map(|s| s[k]).collect();
                v.sort_by(f32::total_cmp);
                v.get(v.len() / 2).copied().unwrap_or(0.0)
            };
            let unclipped = (0..3)
                .filter(|&k| !clipped[k])
                .max_by(|&a, &b| paper[a].total_cmp(&paper[b]));
            let reference = unclipped.unwrap_or_else(|| {
                (0..3).fold(0, |best, k| {
                    if median_of(k) > median_of(best) {
                        k
                    } else {
                        best
                    }
                })
            });
            if edge.len() >= MIN_EDGE_SAMPLES {
                let ratios: Vec<(usize, f32)> = (0..3)
                    .filter(|&k| clipped[k] && k != reference)
                    .filter_map(|k| {
                        let mut ratio: Vec<f32> = edge
                            .iter()
                            .filter(|s| s[reference] > 0.0)
                            .map(|s| s[k] / s[reference])
                            .collect();
                        ratio.sort_by(f32::total_cmp);
                        ratio.get(ratio.len() / 2).map(|r| (k, *r))
                    })
                    .collect();
                // With every channel clipped the edges are read only for a
                // clear cast: a few percent is within what the blur's
                // sampling and the camera's tone curve make of a neutral
                // paper (the DEV photos: ratios 0.95 to 1.0).
                let clear_cast = unclipped.is_some()
                    || ratios.iter().any(|(_, r)| *r < ALL_CLIPPED_MIN_CAST_RATIO);
                for (k, r) in ratios.into_iter().filter(|_| clear_cast) {
                    paper[k] = if unclipped.is_some() {
                        paper[k].max(paper[reference] * r)
                    } else {
                        paper[reference] * r
                    };
                }
            }
        }
        Some(Self {
            paper_rgb: paper,
            samples: samples.len(),
        })
    }

    /// Per-channel gains that bring the paper to `level`.
    pub fn gains(&self, level: f32) -> [f32; 3] {
        self.paper_rgb.map(|c| level / c)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::calibration::{MarkerObservation, homography};
    use approx::assert_relative_eq;

    /// A pinhole camera over a 48 in table, looking down with some tilt.
    fn synthetic_mapping() -> (TableMapping, TableLayout, Matrix3<f64>, Point3<f64>) {
        let layout = TableLayout::standard(48.0, 48.0);
        let k = Matrix3::new(1300.0, 0.0, 960.0, 0.0, 1300.0, 540.0, 0.0, 0.0, 1.0);
        let center = Point3::new(24.0, 20.0, 70.0);
        // Look straight down, image x along table +x, image y along table -y,
        // then tilt a little about x.
        let down = Matrix3::new(1.0, 0.0, 0.0, 0.0, -1.0, 0.0, 0.0, 0.0, -1.0);
        // Tilt about an oblique axis: a tilt about an image axis alone leaves
        // the focal length unobservable from one homography.
        let axis = nalgebra::Unit::new_normalize(Vector3::new(1.0, 0.7, 0.0));
        let tilt = nalgebra::Rotation3::from_axis_angle(&axis, 0.25).into_inner();
        let r = tilt * down;
        let t = -(r * center.coords);
        let ideal_from_table =
            k * Matrix3::from_columns(&[r.column(0).into_owned(), r.column(1).into_owned(), t]);
        let obs: Vec<MarkerObservation> = layout
            .markers
            .iter()
            .map(|m| MarkerObservation {
                id: m.id,
                corners_px: m
                    .corners_in_table()
                    .map(|c| homography::apply(&ideal_from_table, c)),
            })
            .collect();
        let lens = Lens {
            k,
            dist: [0.0; 5],
            rational: [0.0; 3],
            image_size: [1920, 1080],
            rms_px: 0.0,
        };
        let mapping = TableMapping::fit(&obs, &layout, Some(&lens)).unwrap();
        (mapping, layout, r, center)
    }

    /// A frame of the synthetic camera under light of colour `light`
    /// (linear, 1 = the paper's white at 255): black marker squares
    /// (reflecting 4%), white paper round them, a grey table; each channel
    /// blurred over a tenth of an inch at the marker edges, then clipped
    /// at 255 as a camera clips.
    fn lit_frame(mapping: &TableMapping, layout: &TableLayout, light: [f64; 3]) -> RgbImage {
        RgbImage::from_fn(1920, 1080, |x, y| {
            let t = mapping.table_from_pixel(Point2::new(f64::from(x), f64::from(y)));
            // Reflectance: 1 on paper, 0.04 on the printed square (its edge
            // blurred), 0.5 on the table away from the markers.
            let mut refl = 0.5;
            for m in &layout.markers {
                let c = Point2::new(m.center_in[0], m.center_in[1]);
                let local = nalgebra::Rotation2::new(-m.rotation_deg.to_radians()) * (t - c);
                let out = local.x.abs().max(local.y.abs()) - m.size_in / 2.0;
                if out < 1.0 {
                    let blur = ((out + 0.05) / 0.1).clamp(0.0, 1.0);
                    refl = 0.04 + (1.0 - 0.04) * blur;
                }
            }
            image::Rgb(light.map(|l| (255.0 * refl * l).round().clamp(0.0, 255.0) as u8))
        })
    }

    #[test]
    fn a_paper_channel_clipped_by_warm_light_is_read_from_the_marker_edges() {
        let (mapping, layout, _, _) = synthetic_mapping();
        // Warm light: the paper would be (290, 245, 190); red clips at 255.
        let light = [290.0 / 255.0, 245.0 / 255.0, 190.0 / 255.0];
        let frame = lit_frame(&mapping, &layout, light);
        let white = WhiteReference::from_markers(&frame, &mapping, &layout, 0.15, 0.45).unwrap();
        let [r, g, b] = white.paper_rgb;
        // Green and blue as seen; red from the edges' ratios, not 255.
        assert!(
            (g - 245.0).abs() < 1.5 && (b - 190.0).abs() < 1.5,
            "{:?}",
            white
        );
        assert!((r / b - 290.0 / 190.0).abs() < 0.03, "{:?}", white);
        // Light that clips nothing is read as it is.
        let frame = lit_frame(&mapping, &layout, [0.9, 0.85, 0.7]);
        let white = WhiteReference::from_markers(&frame, &mapping, &layout, 0.15, 0.45).unwrap();
        let want = [0.9, 0.85, 0.7].map(|l: f32| l * 255.0);
        for (got, want) in white.paper_rgb.iter().zip(want) {
            assert!((got - want).abs() < 1.5, "{:?}", white);
        }
    }

    #[test]
    fn a_paper_clipped_in_every_channel_still_gives_the_lights_colour() {
        let (mapping, layout, _, _) = synthetic_mapping();
        // Warm light bright enough to clip all three channels on the paper
        // (it would be (340, 300, 260)): the paper reads (255, 255, 255).
        let light = [340.0 / 255.0, 300.0 / 255.0, 260.0 / 255.0];
        let frame = lit_frame(&mapping, &layout, light);
        let white = WhiteReference::from_markers(&frame, &mapping, &layout, 0.15, 0.45).unwrap();
        let [r, g, b] = white.paper_rgb;
        // The brightest channel keeps its level; the others follow the
        // edges' ratios.
        assert!((r - 255.0).abs() < 1.5, "{white:?}");
        assert!((g / r - 300.0 / 340.0).abs() < 0.03, "{white:?}");
        assert!((b / r - 260.0 / 340.0).abs() < 0.03, "{white:?}");
        // Neutral light clipping every channel stays neutral.
        let frame = lit_frame(&mapping, &layout, [1.3, 1.3, 1.3]);
        let white = WhiteReference::from_markers(&frame, &mapping, &layout, 0.15, 0.45).unwrap();
        for c in white.paper_rgb {
            assert!((c - 255.0).abs() < 1.5, "{white:?}");
        }
    }

    #[test]
    fn pose_from_homography_finds_the_camera() {
        let (mapping, _, r, center) = synthetic_mapping();
        let pose = CameraPose::from_mapping(&mapping, [1920, 1080]).unwrap();
        assert_relative_eq!(pose.center_in_table, center, epsilon = 1e-4);
        assert_relative_eq!(pose.camera_from_table_r, r, epsilon = 1e-6);
    }

    #[test]
    fn estimated_focal_matches_without_a_lens() {
        let (mut mapping, _, _, center) = synthetic_mapping();
        mapping.lens = None;
        let pose = CameraPose::from_mapping(&mapping, [1920, 1080]).unwrap();
        // Principal point assumed at the image centre, which it is here.
        assert_relative_eq!(pose.k[(0, 0)], 1300.0, epsilon = 2.0);
        assert_relative_eq!(pose.center_in_table, center, epsilon = 0.2);
    }

    #[test]
    fn raised_plane_moves_away_from_the_camera_nadir_in_the_image() {
        let (mapping, _, _, _) = synthetic_mapping();
        let pose = CameraPose::from_mapping(&mapping, [1920, 1080]).unwrap();
        let p = Point2::new(40.0, 10.0);
        let z0 = homography::apply(&pose.ideal_from_plane(0.0), p);
        let z1 = homography::apply(&pose.ideal_from_plane(1.0), p);
        // The raised point is seen where the ground ray meets the table
        // further out.
        let ground = mapping.table_from_pixel(z1);
        let expected = p + pose.parallax_in(p, 1.0);
        assert_relative_eq!(ground, expected, epsilon = 1e-6);
        assert!((z1 - z0).norm() > 1.0);
    }

    #[test]
    fn kept_maps_are_used_again_only_for_nearly_the_same_pose() {
        let (mapping, layout, _, _) = synthetic_mapping();
        let view = TopView::new(&layout, 4.0, 0.1);
        let frame = RgbImage::from_fn(1920, 1080, |x, y| {
            image::Rgb([(x / 7) as u8, (y / 5) as u8, ((x + y) / 11) as u8])
        });
        let fresh = |pose: &CameraPose| {
            let (mx, my) = view.maps(pose, mapping.lens.as_ref(), 8);
            cv::remap_rgb(&frame, &mx, &my, view.width_px, view.height_px).unwrap()
        };
        let pose = CameraPose::from_mapping(&mapping, [1920, 1080]).unwrap();
        let mut moved = pose.clone();
        moved.camera_from_table_t.x += 0.5;
        for p in [&pose, &pose, &moved, &pose] {
            let top = view.render(&frame, p, mapping.lens.as_ref(), 8).unwrap();
            assert_eq!(top, fresh(p));
            // The fixed-point maps are the float maps rounded as OpenCV does.
            let (mx, my) = view.maps(p, mapping.lens.as_ref(), 8);
            assert_eq!(
                view.fixed_maps(p, mapping.lens.as_ref(), 8),
                cv::FixedMaps::from_float(&mx, &my, view.width_px, view.height_px)
            );
        }
        assert_ne!(fresh(&pose), fresh(&moved));
        // A refit that moves the maps by far less than a pixel keeps them:
        // the picture is the one made for the first pose.
        let mut jitter = pose.clone();
        jitter.camera_from_table_t.x += 1e-7;
        view.render(&frame, &pose, mapping.lens.as_ref(), 8)
            .unwrap();
        assert_eq!(
            view.render(&frame, &jitter, mapping.lens.as_ref(), 8)
                .unwrap(),
            fresh(&pose)
        );
    }

    #[test]
    fn view_and_table_round_trip() {
        let layout = TableLayout::standard(36.0, 24.0);
        let view = TopView::new(&layout, 20.0, 0.1);
        assert_eq!((view.width_px, view.height_px), (720, 480));
        let p = Point2::new(3.3, 20.1);
        assert_relative_eq!(
            view.table_from_view(view.view_from_table(p)),
            p,
            epsilon = 1e-9
        );
        // Row 0 is the far edge.
        assert!(view.table_from_view(Point2::new(0.0, 0.0)).y > 23.9);
    }
}
