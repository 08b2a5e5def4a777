//! Segmentation of the top view into band colours, and connected components
//! of each colour.
//!
//! # Conventions
//! Top-view pixels (see [`super::rectify`]): column `i` right, row `j` down.
//! Colours are white-balanced: each channel times its gain, so the markers'
//! paper is at `white.paper_level`. Hues in degrees on the HSV wheel.

use image::RgbImage;

use super::EdgeColour;
use super::params::{ColourParams, HueRange};

/// Label of a pixel that is no band colour.
pub const NONE: u8 = 0;

/// The label of a band colour (1..=4).
pub fn label_of(colour: EdgeColour) -> u8 {
    match colour {
        EdgeColour::Green => 1,
        EdgeColour::White => 2,
        EdgeColour::Blue => 3,
        EdgeColour::Red => 4,
    }
}

pub fn colour_of(label: u8) -> Option<EdgeColour> {
    match label {
        1 => Some(EdgeColour::Green),
        2 => Some(EdgeColour::White),
        3 => Some(EdgeColour::Blue),
        4 => Some(EdgeColour::Red),
        _ => None,
    }
}

/// Hue (degrees), saturation (0..1) and value (max channel) of an RGB colour.
pub fn hsv(c: [f32; 3]) -> (f32, f32, f32) {
    let mx = c[0].max(c[1]).max(c[2]);
    let mn = c[0].min(c[1]).min(c[2]);
    let d = mx - mn;
    let h = if d <= 0.0 {
        0.0
    } else if mx == c[0] {
        // (g - b) / d lies in [-1, 1]: this is its rem_euclid(6.0), without
        // the fmod call (this runs for every pixel).
        let x = (c[1] - c[2]) / d;
        60.0 * if x < 0.0 { x + 6.0 } else { x }
    } else if mx == c[1] {
        60.0 * ((c[2] - c[0]) / d + 2.0)
    } else {
        60.0 * ((c[0] - c[1]) / d + 4.0)
    };
    (h, if mx > 0.0 { d / mx } else { 0.0 }, mx)
}

/// Band-colour labels of every top-view pixel.
#[derive(Debug, Clone)]
pub struct Segmentation {
    pub width: usize,
    pub height: usize,
    pub labels: Vec<u8>,
    /// The whole table's median hue the labels were made against, degrees.
    pub table_hue: f32,
}

/// Classifies every pixel. `gains` white-balance the view; `paper_level` is
/// where the paper lands; `cell_px` is the side of the table-brightness
/// cells that white must stand out from.
pub fn segment(
    top: &RgbImage,
    gains: [f32; 3],
    paper_level: f32,
    cell_px: usize,
    p: &ColourParams,
) -> Segmentation {
    segment_with(top, gains, paper_level, cell_px, p, None)
}

/// The table-wide values [`segment`] compares each cell with: the median
/// hue and the median level of the seen cells.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct TableGlobals {
    pub hue: f32,
    pub level: f32,
}

/// The [`TableGlobals`] of a whole top view (what [`segment`] uses on it).
pub fn table_globals(top: &RgbImage, gains: [f32; 3], cell_px: usize) -> TableGlobals {
    let (w, h) = (top.width() as usize, top.height() as usize);
    let cell = cell_px.max(1);
    let (cw, ch) = (w.div_ceil(cell), h.div_ceil(cell));
    let (sum, n) = cell_sums(top.as_raw(), w, cell, cw, ch);
    let mut hues = Vec::new();
    let mut levels = Vec::new();
    for (s, c) in sum.iter().zip(&n) {
        if *c > 0 {
            let rgb = [0, 1, 2].map(|k| s[k] as f32 * gains[k] / *c as f32);
            hues.push(hsv(rgb).0);
            let level = rgb[0].max(rgb[1]).max(rgb[2]);
            if level > 0.0 {
                levels.push(level);
            }
        }
    }
    hues.sort_by(f32::total_cmp);
    levels.sort_by(f32::total_cmp);
    TableGlobals {
        hue: hues.get(hues.len() / 2).copied().unwrap_or(0.0),
        level: levels.get(levels.len() / 2).copied().unwrap_or(0.0),
    }
}

/// [`segment`] on a part of a top view, with the table-wide values of the
/// whole view given (`None`: taken from `top` itself, as [`segment`] does).
/// Cells are counted from `top`'s corner, so a part whose corner lies on
/// the whole view's cell grid gets the same cells.
pub fn segment_with(
    top: &RgbImage,
    gains: [f32; 3],
    paper_level: f32,
    cell_px: usize,
    p: &ColourParams,
    globals: Option<TableGlobals>,
) -> Segmentation {
    segment_within(top, gains, paper_level, cell_px, p, globals, None)
}

/// [`segment_with`], labelling only the pixels of `within` (min column,
/// min row, end column, end row; `None`: all); every other pixel is left
/// [`NONE`]. The cells and their context are those of the whole of `top`,
/// so a pixel of `within` a cell or more from `top`'s edges gets the label
/// [`segment_with`] gives it, unless a gap in a band closes across the
/// edge of `within` (closing reaches [`ColourParams::bridge_in`]).
pub fn segment_within(
    top: &RgbImage,
    gains: [f32; 3],
    paper_level: f32,
    cell_px: usize,
    p: &ColourParams,
    globals: Option<TableGlobals>,
    within: Option<[usize; 4]>,
) -> Segmentation {
    let (w, h) = (top.width() as usize, top.height() as usize);
    let raw = top.as_raw();
    let cell = cell_px.max(1);
    let (cw, ch) = (w.div_ceil(cell), h.div_ceil(cell));
    // Mean colour per cell, counting only pixels that were seen (remap
    // leaves black outside the photo). Sums of bytes are whole numbers;
    // the gains apply to the mean.
    let (sum, n) = cell_sums(raw, w, cell, cw, ch);
    let cell_rgb: Vec<[f32; 3]> = sum
        .iter()
        .zip(&n)
        .map(|(s, c)| {
            if *c > 0 {
                [0, 1, 2].map(|k| s[k] as f32 * gains[k] / *c as f32)
            } else {
                [0.0; 3]
            }
        })
        .collect();
    let cell_level: Vec<f32> = cell_rgb.iter().map(|c| c[0].max(c[1]).max(c[2])).collect();
    let cell_hsv: Vec<(f32, f32, f32)> = cell_rgb.iter().map(|c| hsv(*c)).collect();
    // The table's hue near each cell: the median over the 3 x 3 cells
    // around it, so that a base, a model or an arm in one cell does not
    // move it; and over the whole table, for larger things (an arm across
    // several cells). A colour must stand out from both.
    let seen: Vec<bool> = n.iter().map(|c| *c > 0).collect();
    let local_hue = median_field(
        &cell_hsv.iter().map(|c| c.0).collect::<Vec<_>>(),
        &seen,
        cw,
        ch,
    );
    let global_hue = globals.map(|g| g.hue).unwrap_or_else(|| {
        let mut v: Vec<f32> = cell_hsv
            .iter()
            .zip(&seen)
            .filter(|(_, s)| **s)
            .map(|(c, _)| c.0)
            .collect();
        v.sort_by(f32::total_cmp);
        v.get(v.len() / 2).copied().unwrap_or(0.0)
    });
    // The table's local level: the median over the 3 x 3 cells around.
    let local_level = median_field(&cell_level, &seen, cw, ch);
    let unlike_level = p.unlike_table_level as f32;
    let unlike_sat = p.unlike_table_saturation as f32;
    let joint_sat = p.unlike_table_joint_saturation as f32;
    let joint_level = p.unlike_table_joint_level as f32;
    let green_joint_level = p.green_joint_level_over_table as f32;
    let local_sat = median_field(
        &cell_hsv.iter().map(|c| c.1).collect::<Vec<_>>(),
        &seen,
        cw,
        ch,
    );
    let bleed = p.white_bleed_share as f32;
    let illumination = illumination_field(
        &cell_level,
        cw,
        ch,
        p.white_min_illumination as f32,
        globals.map(|g| g.level),
    );
    let white_level = p.white_min_level as f32 * paper_level;
    let white_over = p.white_min_over_table as f32;
    let dark_level = p.band_min_level as f32 * paper_level;
    let coloured_table = p.white_coloured_table_saturation as f32;
    let rel_level = p.relative_min_level_over_table as f32;
    let green_pale_over = p.green_pale_over_table as f32;
    let white_on_colour = p.white_min_level_on_colour as f32;
    // What each cell's pixels are compared with, computed once per cell
    // (the same products the per-pixel tests would form).
    let context: Vec<CellContext> = (0..cw * ch)
        .map(|ck| {
            let table_level = cell_level[ck];
            // A grey pixel stands out from the table around: a cell that a
            // white base fills is brighter than the table, so the cell's
            // own level is not held against it where the cells around are
            // darker (nor its paler mean colour against a coloured mat).
            let around_level = table_level.min(local_level[ck]);
            let around_sat = cell_hsv[ck].1.max(local_sat[ck]);
            CellContext {
                table_hue: local_hue[ck],
                green_hue_floor: local_hue[ck].max(global_hue),
                bright_level: rel_level * table_level,
                unlike_level: unlike_level * local_level[ck],
                unlike_sat: local_sat[ck] + unlike_sat,
                joint_sat: local_sat[ck] + joint_sat,
                joint_level: joint_level * local_level[ck],
                green_joint_level: green_joint_level * local_level[ck],
                white_bleed_sat: bleed * local_sat[ck],
                pale_green_level: green_pale_over * table_level,
                white_level: white_level * illumination[ck],
                dark_level: dark_level * illumination[ck],
                white_over_level: white_over * table_level,
                white_on_colour_level: if cell_hsv[ck].1 >= coloured_table {
                    white_on_colour * table_level
                } else {
                    f32::INFINITY
                },
                grey_over_level: white_over * around_level,
                grey_on_colour_level: if around_sat >= coloured_table {
                    white_on_colour * around_level
                } else {
                    f32::INFINITY
                },
            }
        })
        .collect();
    let strict = Thresholds::new(p, global_hue, 1.0, 1.0);
    let mut labels = vec![NONE; w * h];
    let [x0, y0, x1, y1] = within.unwrap_or([0, 0, w, h]);
    label_rows(
        &RowJob {
            raw,
            width: w,
            cell,
            gains,
            strict: &strict,
            context: &context,
            cells_across: cw,
            columns: x0.min(w)..x1.min(w),
            rows: y0.min(h)..y1.min(h),
        },
        &mut labels,
    );
    let mut seg = Segmentation {
        width: w,
        height: h,
        labels,
        table_hue: global_hue,
    };
    let gap_px = (p.bridge_in * cell_px as f64 / p.table_cell_in).round() as usize;
    if gap_px > 0 {
        let weak = Thresholds::new(p, global_hue, p.weak_share as f32, p.weak_level as f32);
        bridge(&mut seg, gap_px, |k, label| {
            // Black is where the photo does not reach.
            if raw[3 * k..3 * k + 3] == [0, 0, 0] {
                return false;
            }
            let (hue, sat, val) = balanced_hsv(&raw[3 * k..3 * k + 3], gains);
            let (i, j) = (k % w, k / w);
            weak.label(hue, sat, val, &context[j / cell * cw + i / cell]) == label
        });
    }
    seg
}

/// Per table cell (`cell` pixels a side, `cw` x `ch` of them), the sums of
/// the red, green and blue bytes and the count of pixels seen (not black:
/// remap leaves black outside the photo). Eight lanes wide where the
/// processor has AVX2 (whole numbers: the same sums either way).
fn cell_sums(raw: &[u8], w: usize, cell: usize, cw: usize, ch: usize) -> (Vec<[u32; 3]>, Vec<u32>) {
    let job = CellJob {
        raw,
        width: w,
        cell,
        across: cw,
        down: ch,
    };
    #[cfg(target_arch = "x86_64")]
    if std::arch::is_x86_feature_detected!("avx2") {
        #[allow(
            unsafe_code,
            reason = "a function compiled for AVX2, called where AVX2 was detected"
        )]
        // SAFETY: the processor has AVX2, checked just above.
        return unsafe { cell_sums_avx2(&job) };
    }
    cell_sums_body(&job)
}

/// What [`cell_sums`] reads: the view's bytes, its width, the cell side and
/// the cells across and down.
struct CellJob<'a> {
    raw: &'a [u8],
    width: usize,
    cell: usize,
    across: usize,
    down: usize,
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
fn cell_sums_avx2(job: &CellJob<'_>) -> (Vec<[u32; 3]>, Vec<u32>) {
    cell_sums_body(job)
}

#[inline(always)]
fn cell_sums_body(job: &CellJob<'_>) -> (Vec<[u32; 3]>, Vec<u32>) {
    let (raw, w, cell, cw, ch) = (job.raw, job.width, job.cell, job.across, job.down);
    let mut sum = vec![[0u32; 3]; cw * ch];
    let mut n = vec![0u32; cw * ch];
    for (j, row) in raw.chunks_exact(3 * w.max(1)).enumerate() {
        let cells = j / cell * cw;
        for (ci, chunk) in row.chunks(3 * cell).enumerate() {
            // Black adds nothing to the sums, so only the count asks
            // whether a pixel was seen; in locals, without branches.
            let (mut r, mut g, mut b, mut seen) = (0u32, 0u32, 0u32, 0u32);
            for px in chunk.chunks_exact(3) {
                r += u32::from(px[0]);
                g += u32::from(px[1]);
                b += u32::from(px[2]);
                seen += u32::from((px[0] | px[1] | px[2]) != 0);
            }
            let s = &mut sum[cells + ci];
            s[0] += r;
            s[1] += g;
            s[2] += b;
            n[cells + ci] += seen;
        }
    }
    (sum, n)
}

/// What the strict labelling pass reads.
struct RowJob<'a> {
    raw: &'a [u8],
    width: usize,
    cell: usize,
    gains: [f32; 3],
    strict: &'a Thresholds,
    context: &'a [CellContext],
    cells_across: usize,
    /// The pixels labelled; the others are left as they are.
    columns: std::ops::Range<usize>,
    rows: std::ops::Range<usize>,
}

/// The strict label of every pixel, row by row. Where the processor has
/// AVX2 the same code runs eight lanes wide instead of four (no fused
/// multiply-add is enabled, so every value is the same as on the baseline
/// path).
fn label_rows(job: &RowJob<'_>, labels: &mut [u8]) {
    #[cfg(target_arch = "x86_64")]
    if std::arch::is_x86_feature_detected!("avx2") {
        #[allow(
            unsafe_code,
            reason = "a function compiled for AVX2, called where AVX2 was detected"
        )]
        // SAFETY: the processor has AVX2, checked just above.
        unsafe {
            label_rows_avx2(job, labels);
        }
        return;
    }
    label_rows_body(job, labels);
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
fn label_rows_avx2(job: &RowJob<'_>, labels: &mut [u8]) {
    label_rows_body(job, labels);
}

#[inline(always)]
fn label_rows_body(job: &RowJob<'_>, labels: &mut [u8]) {
    let (w, cell, cw, gains) = (job.width, job.cell.max(1), job.cells_across, job.gains);
    let (x0, x1) = (job.columns.start, job.columns.end.min(w));
    if x0 >= x1 || w == 0 {
        return;
    }
    let n = x1 - x0;
    // Hue, saturation and value of one row, computed without branches so
    // that the compiler can work on several pixels at once.
    let (mut hue_row, mut sat_row, mut val_row) = (vec![0f32; n], vec![0f32; n], vec![0f32; n]);
    for j in job.rows.clone() {
        let (Some(row), Some(out)) = (
            job.raw.get(3 * (j * w + x0)..3 * (j * w + x1)),
            labels.get_mut(j * w + x0..j * w + x1),
        ) else {
            break;
        };
        for (((px, hue), sat), val) in row
            .chunks_exact(3)
            .zip(&mut hue_row)
            .zip(&mut sat_row)
            .zip(&mut val_row)
        {
            (*hue, *sat, *val) = balanced_hsv(px, gains);
        }
        let cells = &job.context[j / cell * cw..(j / cell + 1) * cw];
        // The row's pixels a cell at a time: the first cell may be cut
        // short by the column range.
        let mut start = 0;
        while start < n {
            let ci = (x0 + start) / cell;
            let end = ((ci + 1) * cell - x0).min(n);
            let cx = &cells[ci];
            for (((o, &hue), &sat), &val) in out[start..end]
                .iter_mut()
                .zip(&hue_row[start..end])
                .zip(&sat_row[start..end])
                .zip(&val_row[start..end])
            {
                *o = job.strict.label(hue, sat, val, cx);
            }
            start = end;
        }
    }
}

/// Closes gaps of up to `gap` pixels in each band: walking from a labelled
/// pixel right, down and along both diagonals, when the band's label comes
/// back within `gap + 1` steps, the pixels between join it if `joins`
/// (pixel index, label) accepts each of them. This is hysteresis along the
/// band: a thin band only just told from the table is not cut into pieces
/// where a few of its pixels miss the strict test, while the band does not
/// grow sideways (into the table, a base's inside or a neighbour's band) and
/// holes in a patch of the colour stay open.
fn bridge(seg: &mut Segmentation, gap: usize, mut joins: impl FnMut(usize, u8) -> bool) {
    let (w, h) = (seg.width as i64, seg.height as i64);
    let steps: [(i64, i64); 4] = [(1, 0), (0, 1), (1, 1), (-1, 1)];
    let mut between: Vec<usize> = Vec::with_capacity(gap);
    for j in 0..h {
        for i in 0..w {
            // In range: i, j lie inside the image.
            let label = seg.labels[(j * w + i) as usize];
            if label == NONE {
                continue;
            }
            for (di, dj) in steps {
                between.clear();
                let mut closed = false;
                for n in 1..=gap as i64 + 1 {
                    let (x, y) = (i + di * n, j + dj * n);
                    if x < 0 || y < 0 || x >= w || y >= h {
                        break;
                    }
                    // In range by the check above.
                    let k = (y * w + x) as usize;
                    let l = seg.labels[k];
                    if l == label {
                        closed = n > 1;
                        break;
                    }
                    if l != NONE {
                        break;
                    }
                    between.push(k);
                }
                // A hole inside a patch of the colour (a model painted
                // like its band) is not a gap in a band: the label is there
                // on both sides across it too.
                let hole = closed && {
                    let mid = between[between.len() / 2] as i64;
                    let (mi, mj) = (mid % w, mid / w);
                    let reaches = |si: i64, sj: i64| {
                        (1..=gap as i64 + 1).any(|n| {
                            let (x, y) = (mi + si * n, mj + sj * n);
                            // In range by the bounds test before the index.
                            x >= 0
                                && y >= 0
                                && x < w
                                && y < h
                                && seg.labels[(y * w + x) as usize] == label
                        })
                    };
                    reaches(-dj, di) && reaches(dj, -di)
                };
                if closed && !hole && between.iter().all(|&k| joins(k, label)) {
                    for &k in &between {
                        seg.labels[k] = label;
                    }
                }
            }
        }
    }
}

/// The tests a pixel's colour must pass to carry a band label. The strict
/// set seeds the labels; the weak one (every threshold relaxed) only closes
/// gaps in them (see [`bridge`]).
struct Thresholds {
    global_hue: f32,
    min_sat: f32,
    green_sat: f32,
    green_pale_sat: f32,
    green_hue_over: f32,
    green_joint_hue: f32,
    rel_sat: f32,
    rel_hue: f32,
    unlike_hue: f32,
    joint_hue: f32,
    joint_level_hue: f32,
    white_sat: f32,
    bleed_hue: f32,
    /// Factor on every level a colour must reach.
    level: f32,
    red: HueBounds,
    green: HueBounds,
    green_relative: HueBounds,
    blue: HueBounds,
}

impl Thresholds {
    /// Saturations and hue margins at `share` of the parameters (white's
    /// greyness limit over it), levels at `level` of theirs.
    fn new(p: &ColourParams, global_hue: f32, share: f32, level: f32) -> Self {
        Self {
            global_hue,
            min_sat: p.min_saturation as f32 * share,
            green_sat: p.green_min_saturation as f32 * share,
            green_pale_sat: p.green_pale_saturation as f32 * share,
            green_hue_over: p.green_min_hue_over_table as f32 * share,
            green_joint_hue: p.green_joint_hue_over_table as f32 * share,
            rel_sat: p.relative_min_saturation as f32 * share,
            rel_hue: p.relative_min_hue_distance_deg as f32 * share,
            unlike_hue: p.unlike_table_hue_deg as f32 * share,
            joint_hue: p.unlike_table_joint_hue_deg as f32 * share,
            joint_level_hue: p.unlike_table_joint_level_hue_deg as f32 * share,
            white_sat: p.white_max_saturation as f32 / share,
            bleed_hue: p.white_bleed_hue_deg as f32,
            level,
            red: HueBounds::of(&p.red_hue),
            green: HueBounds::of(&p.green_hue),
            green_relative: HueBounds::of(&p.green_relative_hue),
            blue: HueBounds::of(&p.blue_hue),
        }
    }

    /// The band label of one pixel's colour, or `NONE`; written without
    /// branches so that the compiler can test several pixels at once.
    #[inline(always)]
    fn label(&self, hue: f32, sat: f32, val: f32, cx: &CellContext) -> u8 {
        let lv = self.level;
        // A pale or blurred green is accepted when it is bluer than the
        // table around it (mats and foliage are yellower than the paint).
        let bright_enough = val >= cx.bright_level * lv;
        // Or a little bluer and a little brighter, together.
        let over_floor = hue - cx.green_hue_floor;
        let greener_than_table = self.green_relative.contains(hue)
            & (sat >= self.green_pale_sat)
            & ((bright_enough & (over_floor >= self.green_hue_over))
                | ((over_floor >= self.green_joint_hue) & (val >= cx.green_joint_level * lv)));
        // A pale red or blue counts when its hue is far from the table's,
        // locally and overall.
        let unlike_table = (sat >= self.rel_sat)
            & bright_enough
            & (min_f32(
                hue_distance(hue, cx.table_hue),
                hue_distance(hue, self.global_hue),
            ) >= self.rel_hue);
        let coloured = (sat >= self.min_sat) | unlike_table;
        // Red and blue stand out from the table, in hue from the whole
        // table's or in level from the table around (a mat of red's own hue
        // is not a band; a red roof on a green mat stays red, and whole,
        // too large for a base).
        let from_table = hue_distance(hue, self.global_hue);
        let stands_out = (from_table >= self.unlike_hue)
            | (val >= cx.unlike_level * lv)
            | (sat >= cx.unlike_sat)
            | ((from_table >= self.joint_hue) & (sat >= cx.joint_sat))
            | ((from_table >= self.joint_level_hue) & (val >= cx.joint_level * lv));
        let coloured = coloured & stands_out;
        let is_red = self.red.contains(hue) & coloured;
        let is_green = greener_than_table
            | (self.green.contains(hue)
                & ((sat >= self.green_sat)
                    | ((sat >= self.green_pale_sat) & (val >= cx.pale_green_level * lv))));
        let is_blue = self.blue.contains(hue) & coloured;
        // Grey stands out from the table around it; a white tinted toward
        // the table's colour (a thin band's bleed, or a pale patch of the
        // mat) must stand out from its own cell as well.
        let grey = sat <= self.white_sat;
        let tinted = (sat <= cx.white_bleed_sat + self.white_sat)
            & (hue_distance(hue, self.global_hue) <= self.bleed_hue);
        let over_around = (val >= cx.grey_over_level * lv) | (val >= cx.grey_on_colour_level * lv);
        let over_cell = (val >= cx.white_over_level * lv) | (val >= cx.white_on_colour_level * lv);
        let is_white = (val >= cx.white_level * lv) & ((grey & over_around) | (tinted & over_cell));
        // The first that holds, in this order; none in the dark (deep
        // shadow under terrain is saturated brown or green noise).
        if val < cx.dark_level * lv {
            NONE
        } else if is_red {
            label_of(EdgeColour::Red)
        } else if is_green {
            label_of(EdgeColour::Green)
        } else if is_blue {
            label_of(EdgeColour::Blue)
        } else if is_white {
            label_of(EdgeColour::White)
        } else {
            NONE
        }
    }
}

/// The larger of two numbers that are never NaN (no NaN handling, unlike
/// `f32::max`).
fn max_f32(a: f32, b: f32) -> f32 {
    if a > b { a } else { b }
}

fn min_f32(a: f32, b: f32) -> f32 {
    if a < b { a } else { b }
}

/// Hue, saturation and value of one pixel's bytes after the white
/// balance `gains` (see [`balanced`]).
#[inline(always)]
fn balanced_hsv(px: &[u8], gains: [f32; 3]) -> (f32, f32, f32) {
    hsv_flat(balanced(
        [f32::from(px[0]), f32::from(px[1]), f32::from(px[2])],
        gains,
    ))
}

/// A colour of 8-bit channel values `c` after the white balance `gains`,
/// each channel no higher than a clipped byte of the least gain gives. A
/// byte at 255 is the sensor's clip: the light was at least that, so its
/// balanced value says nothing above `255 * min(gains)`, and a clipped
/// white highlight must not take on the tint of the largest gain (a white
/// band burnt out under warm light read blue or as no band at all).
#[inline(always)]
pub fn balanced(c: [f32; 3], gains: [f32; 3]) -> [f32; 3] {
    let clip = 255.0 * min_f32(min_f32(gains[0], gains[1]), gains[2]);
    [
        min_f32(c[0] * gains[0], clip),
        min_f32(c[1] * gains[1], clip),
        min_f32(c[2] * gains[2], clip),
    ]
}

/// [`hsv`] for colours of non-negative channels, computed without branches
/// (every candidate is formed and one is selected); the same values.
fn hsv_flat(c: [f32; 3]) -> (f32, f32, f32) {
    let mx = max_f32(max_f32(c[0], c[1]), c[2]);
    let mn = min_f32(min_f32(c[0], c[1]), c[2]);
    let d = mx - mn;
    // Where d is 0 these are not finite, and not selected.
    let x = (c[1] - c[2]) / d;
    let h_red = 60.0 * if x < 0.0 { x + 6.0 } else { x };
    let h_green = 60.0 * ((c[2] - c[0]) / d + 2.0);
    let h_blue = 60.0 * ((c[0] - c[1]) / d + 4.0);
    let h = if d <= 0.0 {
        0.0
    } else if mx == c[0] {
        h_red
    } else if mx == c[1] {
        h_green
    } else {
        h_blue
    };
    let s = if mx > 0.0 { d / mx } else { 0.0 };
    (h, s, mx)
}

/// A [`HueRange`] as f32 bounds that accept exactly the f32 hues the range
/// accepts.
#[derive(Debug, Clone, Copy)]
struct HueBounds {
    lo: f32,
    hi: f32,
    wraps: bool,
}

impl HueBounds {
    fn of(r: &HueRange) -> Self {
        // The least f32 at or above `from`, the largest at or below `to`.
        let mut lo = r.from_deg as f32;
        if f64::from(lo) < r.from_deg {
            lo = lo.next_up();
        }
        let mut hi = r.to_deg as f32;
        if f64::from(hi) > r.to_deg {
            hi = hi.next_down();
        }
        Self {
            lo,
            hi,
            wraps: r.from_deg > r.to_deg,
        }
    }

    fn contains(&self, hue: f32) -> bool {
        if self.wraps {
            (hue >= self.lo) | (hue <= self.hi)
        } else {
            (hue >= self.lo) & (hue <= self.hi)
        }
    }
}

/// What a cell's pixels are compared with: the table around them.
struct CellContext {
    /// The table's local hue, degrees.
    table_hue: f32,
    /// The hue a relatively green pixel must exceed by the margin: the
    /// larger of the local and the whole table's hue.
    green_hue_floor: f32,
    /// Level a relative colour needs (a share of the table's level).
    bright_level: f32,
    /// Level a red or blue of the table's own hue needs.
    unlike_level: f32,
    /// Saturation a red or blue of the table's own hue needs otherwise.
    unlike_sat: f32,
    /// The saturation that, with a hue `joint_hue` from the table's, makes
    /// a red or blue stand out.
    joint_sat: f32,
    /// The level that, with a hue `joint_level_hue` from the table's, makes
    /// a red or blue stand out.
    joint_level: f32,
    /// The level that, with a hue `green_joint_hue` bluer than the table's,
    /// makes a pale green.
    green_joint_level: f32,
    /// Saturation a white pixel of the table's hue may have over the
    /// limit (the table's colour bled into a thin band).
    white_bleed_sat: f32,
    /// Level a pale green needs.
    pale_green_level: f32,
    /// Level white needs under this cell's light.
    white_level: f32,
    /// Level under which no pixel is a band colour in this cell's light.
    dark_level: f32,
    /// Level white needs over the table in its cell.
    white_over_level: f32,
    /// Level white needs on a coloured table; infinite on a grey one.
    white_on_colour_level: f32,
    /// The same two for a grey pixel, over the table around the cell
    /// (the lower of the cell's level and the 3 x 3 median's).
    grey_over_level: f32,
    grey_on_colour_level: f32,
}

/// Distance round the hue wheel, degrees in [0, 180], of two hues in
/// [0, 360] (as [`hsv`] gives them).
pub(crate) fn hue_distance(a: f32, b: f32) -> f32 {
    // Both hues lie in [0, 360): this is rem_euclid(360.0) without fmod.
    let d = a - b;
    let d = if d < 0.0 { d + 360.0 } else { d };
    min_f32(d, 360.0 - d)
}

/// Median of each cell's value and its seen neighbours' (3 x 3).
fn median_field(value: &[f32], seen: &[bool], cw: usize, ch: usize) -> Vec<f32> {
    let mut out = value.to_vec();
    let mut near: Vec<f32> = Vec::with_capacity(9);
    for cj in 0..ch {
        for ci in 0..cw {
            near.clear();
            for nj in cj.saturating_sub(1)..=(cj + 1).min(ch - 1) {
                for ni in ci.saturating_sub(1)..=(ci + 1).min(cw - 1) {
                    if seen[nj * cw + ni] {
                        near.push(value[nj * cw + ni]);
                    }
                }
            }
            if !near.is_empty() {
                near.sort_by(f32::total_cmp);
                out[cj * cw + ci] = near[near.len() / 2];
            }
        }
    }
    out
}

/// Local illumination of each cell: the median level of the 3 x 3 cells
/// around it (a model or a base in one cell does not move it) over the
/// median of all cells, clamped to `[min, 1]`. The table's own brightness
/// field stands in for the light where no paper is.
fn illumination_field(
    level: &[f32],
    cw: usize,
    ch: usize,
    min: f32,
    global: Option<f32>,
) -> Vec<f32> {
    let mut seen: Vec<f32> = level.iter().copied().filter(|v| *v > 0.0).collect();
    if seen.is_empty() {
        return vec![1.0; level.len()];
    }
    seen.sort_by(f32::total_cmp);
    let global = global.filter(|g| *g > 0.0).unwrap_or(seen[seen.len() / 2]);
    let mut out = vec![1.0; level.len()];
    let mut near: Vec<f32> = Vec::with_capacity(9);
    for cj in 0..ch {
        for ci in 0..cw {
            near.clear();
            for nj in cj.saturating_sub(1)..=(cj + 1).min(ch - 1) {
                for ni in ci.saturating_sub(1)..=(ci + 1).min(cw - 1) {
                    let v = level[nj * cw + ni];
                    if v > 0.0 {
                        near.push(v);
                    }
                }
            }
            if near.is_empty() {
                continue;
            }
            near.sort_by(f32::total_cmp);
            out[cj * cw + ci] = (near[near.len() / 2] / global).clamp(min.min(1.0), 1.0);
        }
    }
    out
}

/// Clears the labels of every pixel for which `inside` holds (markers and
/// their paper: white and printed, never a base).
pub fn clear_where(
    seg: &mut Segmentation,
    bbox: [usize; 4],
    inside: impl Fn(usize, usize) -> bool,
) {
    for j in bbox[1]..=bbox[3].min(seg.height.saturating_sub(1)) {
        for i in bbox[0]..=bbox[2].min(seg.width.saturating_sub(1)) {
            if inside(i, j) {
                seg.labels[j * seg.width + i] = NONE;
            }
        }
    }
}

/// A connected set of pixels of one label (8-connected).
#[derive(Debug, Clone, PartialEq)]
pub struct Component {
    pub label: u8,
    pub count: usize,
    /// Inclusive bounding box: min column, min row, max column, max row.
    pub bbox: [usize; 4],
    /// Mean column and row.
    pub mean: (f64, f64),
    /// Second central moments: (ii, ij, jj).
    pub cov: (f64, f64, f64),
    /// A pixel of it (row-major index) when it is one connected patch
    /// ([`component_pixels`] finds the rest); `None` for pieces taken
    /// together.
    pub seed: Option<usize>,
}

impl Segmentation {
    /// Label at column `i`, row `j`; `NONE` outside the image.
    pub fn label_at(&self, i: i64, j: i64) -> u8 {
        if i < 0 || j < 0 || i >= self.width as i64 || j >= self.height as i64 {
            return NONE;
        }
        // In range by the check above.
        self.labels[j as usize * self.width + i as usize]
    }
}

/// All components with at least `min_count` pixels.
pub fn components(seg: &Segmentation, min_count: usize) -> Vec<Component> {
    let (w, h) = (seg.width, seg.height);
    let labels = &seg.labels[..(w * h).min(seg.labels.len())];
    let mut seen = vec![false; labels.len()];
    let mut out = Vec::new();
    // Pixels as (column, row): no division per pixel. The flood visits
    // them in the same order whatever the representation, so the sums
    // below (floating point) come out the same.
    let mut stack: Vec<(usize, usize)> = Vec::new();
    let mut pixels: Vec<(usize, usize)> = Vec::new();
    for start in 0..labels.len() {
        let label = labels[start];
        if label == NONE || seen[start] {
            continue;
        }
        seen[start] = true;
        stack.push((start % w, start / w));
        pixels.clear();
        while let Some((i, j)) = stack.pop() {
            pixels.push((i, j));
            if i > 0 && j > 0 && i + 1 < w && j + 1 < h {
                // Inside: all eight neighbours exist, in the order below.
                for (ni, nj) in [
                    (i - 1, j - 1),
                    (i, j - 1),
                    (i + 1, j - 1),
                    (i - 1, j),
                    (i + 1, j),
                    (i - 1, j + 1),
                    (i, j + 1),
                    (i + 1, j + 1),
                ] {
                    let nk = nj * w + ni;
                    if !seen[nk] && labels[nk] == label {
                        seen[nk] = true;
                        stack.push((ni, nj));
                    }
                }
                continue;
            }
            for nj in j.saturating_sub(1)..=(j + 1).min(h - 1) {
                for ni in i.saturating_sub(1)..=(i + 1).min(w - 1) {
                    let nk = nj * w + ni;
                    if !seen[nk] && labels[nk] == label {
                        seen[nk] = true;
                        stack.push((ni, nj));
                    }
                }
            }
        }
        if pixels.len() < min_count {
            continue;
        }
        let mut bbox = [usize::MAX, usize::MAX, 0, 0];
        let (mut si, mut sj) = (0.0, 0.0);
        for &(i, j) in &pixels {
            bbox[0] = bbox[0].min(i);
            bbox[1] = bbox[1].min(j);
            bbox[2] = bbox[2].max(i);
            bbox[3] = bbox[3].max(j);
            si += i as f64;
            sj += j as f64;
        }
        let n = pixels.len() as f64;
        let mean = (si / n, sj / n);
        let (mut cii, mut cij, mut cjj) = (0.0, 0.0, 0.0);
        for &(i, j) in &pixels {
            let (di, dj) = (i as f64 - mean.0, j as f64 - mean.1);
            cii += di * di;
            cij += di * dj;
            cjj += dj * dj;
        }
        out.push(Component {
            label,
            count: pixels.len(),
            bbox,
            mean,
            cov: (cii / n, cij / n, cjj / n),
            seed: Some(start),
        });
    }
    out
}

/// The pixels (row-major indices) of the 8-connected patch of one label
/// that holds pixel `seed` and lies within `bbox` (inclusive), as
/// [`components`] finds them; none when `seed` is unlabelled or outside.
pub fn component_pixels(seg: &Segmentation, seed: usize, bbox: [usize; 4]) -> Vec<usize> {
    let w = seg.width;
    let Some(&label) = seg.labels.get(seed) else {
        return Vec::new();
    };
    let (si, sj) = (seed % w, seed / w);
    let [i0, j0, i1, j1] = bbox;
    let h = seg.labels.len() / w.max(1);
    if label == NONE || i1 >= w || j1 >= h || !(i0..=i1).contains(&si) || !(j0..=j1).contains(&sj) {
        return Vec::new();
    }
    let bw = i1 - i0 + 1;
    let mut seen = vec![false; bw * (j1 - j0 + 1)];
    seen[(sj - j0) * bw + si - i0] = true;
    let (mut stack, mut out) = (vec![seed], Vec::new());
    while let Some(k) = stack.pop() {
        out.push(k);
        let (i, j) = (k % w, k / w);
        for nj in j.saturating_sub(1).max(j0)..=(j + 1).min(j1) {
            for ni in i.saturating_sub(1).max(i0)..=(i + 1).min(i1) {
                let nk = nj * w + ni;
                let b = (nj - j0) * bw + ni - i0;
                if seg.labels[nk] == label && !seen[b] {
                    seen[b] = true;
                    stack.push(nk);
                }
            }
        }
    }
    out
}

/// Gap between two inclusive boxes, pixels: the larger of the column and
/// row gaps (0 when they overlap or touch).
fn box_gap(a: &[usize; 4], b: &[usize; 4]) -> usize {
    let gi = b[0].saturating_sub(a[2]).max(a[0].saturating_sub(b[2]));
    let gj = b[1].saturating_sub(a[3]).max(a[1].saturating_sub(b[3]));
    gi.max(gj).saturating_sub(1)
}

/// `a` and `b` as one component.
fn merged(a: &Component, b: &Component) -> Component {
    let (na, nb) = (a.count as f64, b.count as f64);
    let n = na + nb;
    let mean = (
        (a.mean.0 * na + b.mean.0 * nb) / n,
        (a.mean.1 * na + b.mean.1 * nb) / n,
    );
    // Second moments about the joint mean: each part's own plus the shift
    // of its mean.
    let part = |c: &Component, w: f64| {
        let (di, dj) = (c.mean.0 - mean.0, c.mean.1 - mean.1);
        (
            w * (c.cov.0 + di * di),
            w * (c.cov.1 + di * dj),
            w * (c.cov.2 + dj * dj),
        )
    };
    let (pa, pb) = (part(a, na), part(b, nb));
    Component {
        label: a.label,
        count: a.count + b.count,
        bbox: [
            a.bbox[0].min(b.bbox[0]),
            a.bbox[1].min(b.bbox[1]),
            a.bbox[2].max(b.bbox[2]),
            a.bbox[3].max(b.bbox[3]),
        ],
        mean,
        cov: ((pa.0 + pb.0) / n, (pa.1 + pb.1) / n, (pa.2 + pb.2) / n),
        seed: None,
    }
}

/// Pieces of one colour too small to be a component on their own, taken
/// together: a faint band that a few unlabelled pixels break into arcs is
/// a base all the same. Pieces of one label join (largest first) while
/// their boxes are within `gap_px` of each other and the group spans no
/// more than `max_span_px`; groups of `min_count` pixels or more are
/// returned.
pub fn join_pieces(
    pieces: &[Component],
    gap_px: usize,
    max_span_px: usize,
    min_count: usize,
) -> Vec<Component> {
    let mut order: Vec<&Component> = pieces.iter().collect();
    order.sort_by_key(|p| std::cmp::Reverse(p.count));
    let mut groups: Vec<(Component, usize)> = Vec::new();
    for p in order {
        let home = groups.iter_mut().find(|(g, _)| {
            if g.label != p.label || box_gap(&g.bbox, &p.bbox) > gap_px {
                return false;
            }
            let w = g.bbox[2].max(p.bbox[2]) - g.bbox[0].min(p.bbox[0]) + 1;
            let h = g.bbox[3].max(p.bbox[3]) - g.bbox[1].min(p.bbox[1]) + 1;
            w.max(h) <= max_span_px
        });
        match home {
            Some((g, members)) => {
                *g = merged(g, p);
                *members += 1;
            }
            None => groups.push((p.clone(), 1)),
        }
    }
    groups
        .into_iter()
        .filter(|(g, members)| *members > 1 && g.count >= min_count)
        .map(|(g, _)| g)
        .collect()
}

/// Two components of one label whose boxes touch or overlap (within
/// `gap_px`), taken together when at least one is too short for a
/// rectangle search on its own (spans less than `min_span_px`) and the two
/// span `min_span_px` to `max_span_px`: a mounted base's band broken into
/// pieces (the three green ones of rendered seed 94 at about 18 photo
/// pixels per inch, band about 3 pixels wide, each in two or three pieces
/// of 1.0 to 1.3 in) is searched as one. The pieces stay components too.
pub fn join_band_pieces(
    comps: &[Component],
    gap_px: usize,
    min_span_px: usize,
    max_span_px: usize,
) -> Vec<Component> {
    let span = |b: &[usize; 4]| (b[2] - b[0]).max(b[3] - b[1]) + 1;
    let mut out = Vec::new();
    for (k, a) in comps.iter().enumerate() {
        for b in &comps[k + 1..] {
            if a.label != b.label
                || span(&a.bbox).min(span(&b.bbox)) >= min_span_px
                || box_gap(&a.bbox, &b.bbox) > gap_px
            {
                continue;
            }
            let m = merged(a, b);
            if (min_span_px..=max_span_px).contains(&span(&m.bbox)) {
                out.push(m);
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::vision::params::DetectorParams;

    #[test]
    fn a_clipped_highlight_stays_grey_after_the_white_balance() {
        // Warm light: blue is raised. A burnt-out white (every byte at the
        // clip) must not turn blue, and a colour below the clip keeps its
        // balanced value.
        let gains = [0.8, 0.9, 1.2];
        let (_, s, v) = hsv_flat(balanced([255.0, 255.0, 255.0], gains));
        assert!(s.abs() < 1e-6, "saturation {s}");
        assert!((v - 204.0).abs() < 1e-3, "level {v}");
        assert_eq!(balanced([100.0, 50.0, 40.0], gains), [80.0, 45.0, 48.0]);
    }

    #[test]
    fn hues_of_the_kit_colours() {
        let (h, s, _) = hsv([30.0, 150.0, 60.0]);
        assert!((h - 135.0).abs() < 1.0 && s > 0.7);
        let (h, _, _) = hsv([35.0, 75.0, 190.0]);
        assert!((h - 224.5).abs() < 1.0);
        let (h, _, _) = hsv([190.0, 35.0, 35.0]);
        assert!(h.abs() < 1e-3);
    }

    #[test]
    fn flat_hsv_is_hsv() {
        let mut v = 0u32;
        for r in (0..=255).step_by(5) {
            for g in (0..=255).step_by(5) {
                for b in (0..=255).step_by(5) {
                    let c = [r as f32 * 1.07, g as f32 * 0.98, b as f32 * 1.21];
                    let (h0, s0, v0) = hsv(c);
                    let (h1, s1, v1) = hsv_flat(c);
                    assert_eq!(
                        (h0.to_bits(), s0.to_bits(), v0.to_bits()),
                        (h1.to_bits(), s1.to_bits(), v1.to_bits()),
                        "{c:?}"
                    );
                    v += 1;
                }
            }
        }
        assert!(v > 100_000);
    }

    #[test]
    fn hue_bounds_accept_what_the_range_accepts() {
        for (from, to) in [(340.0, 22.0), (105.0, 170.0), (0.1, 359.9), (195.3, 265.7)] {
            let r = HueRange {
                from_deg: from,
                to_deg: to,
            };
            let b = HueBounds::of(&r);
            for k in 0..36_000 {
                let h = k as f32 * 0.01;
                for x in [h, h.next_up(), h.next_down()] {
                    assert_eq!(
                        b.contains(x),
                        r.contains(f64::from(x)),
                        "{x} in {from}..{to}"
                    );
                }
            }
        }
    }

    #[test]
    fn a_painted_ring_is_one_component_of_its_colour() {
        let params = DetectorParams::defaults().unwrap();
        let mut img = RgbImage::from_pixel(60, 60, image::Rgb([80, 95, 55]));
        for j in 0..60u32 {
            for i in 0..60u32 {
                let r = ((f64::from(i) - 30.0).powi(2) + (f64::from(j) - 30.0).powi(2)).sqrt();
                if (7.0..10.0).contains(&r) {
                    img.put_pixel(i, j, image::Rgb([190, 35, 35]));
                }
            }
        }
        let seg = segment(&img, [1.0; 3], 220.0, 20, &params.colour);
        let comps = components(&seg, 10);
        assert_eq!(comps.len(), 1);
        assert_eq!(comps[0].label, label_of(EdgeColour::Red));
        assert!((comps[0].mean.0 - 30.0).abs() < 0.5);
    }

    /// [`components`] as it was written first (a pixel's position found by
    /// division, every neighbour tested against the edges): the reference
    /// the faster one must equal, field for field.
    fn components_reference(seg: &Segmentation, min_count: usize) -> Vec<Component> {
        let (w, h) = (seg.width, seg.height);
        let mut seen = vec![false; w * h];
        let mut out = Vec::new();
        let (mut stack, mut pixels): (Vec<usize>, Vec<usize>) = (Vec::new(), Vec::new());
        for start in 0..w * h {
            let label = seg.labels[start];
            if label == NONE || seen[start] {
                continue;
            }
            seen[start] = true;
            stack.push(start);
            pixels.clear();
            while let Some(k) = stack.pop() {
                pixels.push(k);
                let (i, j) = (k % w, k / w);
                for dj in -1i64..=1 {
                    for di in -1i64..=1 {
                        let (ni, nj) = (i as i64 + di, j as i64 + dj);
                        if ni < 0 || nj < 0 || ni >= w as i64 || nj >= h as i64 {
                            continue;
                        }
                        let nk = nj as usize * w + ni as usize;
                        if !seen[nk] && seg.labels[nk] == label {
                            seen[nk] = true;
                            stack.push(nk);
                        }
                    }
                }
            }
            if pixels.len() < min_count {
                continue;
            }
            let mut bbox = [usize::MAX, usize::MAX, 0, 0];
            let (mut si, mut sj) = (0.0, 0.0);
            for &k in &pixels {
                let (i, j) = (k % w, k / w);
                bbox = [
                    bbox[0].min(i),
                    bbox[1].min(j),
                    bbox[2].max(i),
                    bbox[3].max(j),
                ];
                si += i as f64;
                sj += j as f64;
            }
            let n = pixels.len() as f64;
            let mean = (si / n, sj / n);
            let (mut cii, mut cij, mut cjj) = (0.0, 0.0, 0.0);
            for &k in &pixels {
                let (di, dj) = ((k % w) as f64 - mean.0, (k / w) as f64 - mean.1);
                cii += di * di;
                cij += di * dj;
                cjj += dj * dj;
            }
            out.push(Component {
                label,
                count: pixels.len(),
                bbox,
                mean,
                cov: (cii / n, cij / n, cjj / n),
                seed: Some(start),
            });
        }
        out
    }

    #[test]
    fn components_equal_the_first_written_ones_bit_for_bit() {
        use rand::rngs::StdRng;
        use rand::{RngExt, SeedableRng};
        // Random blobs of three labels over images of several shapes,
        // touching every edge and corner; a fixed seed, so a failure repeats.
        let mut rng = StdRng::seed_from_u64(7);
        for (w, h) in [(1, 1), (1, 9), (9, 1), (2, 2), (37, 23), (64, 64)] {
            for density in [2u64, 5, 9] {
                let labels: Vec<u8> = (0..w * h)
                    .map(|_| {
                        if rng.random_range(0..10u64) < density {
                            rng.random_range(1..=3u8)
                        } else {
                            NONE
                        }
                    })
                    .collect();
                let seg = Segmentation {
                    width: w,
                    height: h,
                    labels,
                    table_hue: 0.0,
                };
                for min_count in [1, 4] {
                    let (a, b) = (
                        components(&seg, min_count),
                        components_reference(&seg, min_count),
                    );
                    assert_eq!(a.len(), b.len(), "{w} x {h}, density {density}");
                    for (x, y) in a.iter().zip(&b) {
                        assert_eq!(
                            (x.label, x.count, x.bbox, x.seed),
                            (y.label, y.count, y.bbox, y.seed)
                        );
                        assert_eq!(x.mean.0.to_bits(), y.mean.0.to_bits());
                        assert_eq!(x.mean.1.to_bits(), y.mean.1.to_bits());
                        assert_eq!(x.cov.0.to_bits(), y.cov.0.to_bits());
                        assert_eq!(x.cov.1.to_bits(), y.cov.1.to_bits());
                        assert_eq!(x.cov.2.to_bits(), y.cov.2.to_bits());
                    }
                }
            }
        }
    }

    #[test]
    fn labelling_a_rectangle_gives_the_whole_labelling_there_and_nothing_else() {
        let params = DetectorParams::defaults().unwrap();
        // Rings of several colours over 100 x 80 pixels, in 20-pixel cells.
        let mut img = RgbImage::from_pixel(100, 80, image::Rgb([80, 95, 55]));
        let rings = [
            (25.0, 25.0, [190, 35, 35]),
            (70.0, 30.0, [35, 75, 190]),
            (45.0, 60.0, [230, 230, 225]),
        ];
        for j in 0..80u32 {
            for i in 0..100u32 {
                for (cx, cy, rgb) in rings {
                    let r = (f64::from(i) - cx).hypot(f64::from(j) - cy);
                    if (7.0..10.0).contains(&r) {
                        img.put_pixel(i, j, image::Rgb(rgb));
                    }
                }
            }
        }
        let whole = segment(&img, [1.0; 3], 220.0, 20, &params.colour);
        assert!(whole.labels.iter().filter(|l| **l != NONE).count() > 300);
        // Rectangles not on the cells' grid, one reaching the edge.
        for within in [[13, 7, 61, 53], [50, 21, 100, 80], [0, 0, 100, 80]] {
            let part = segment_within(
                &img,
                [1.0; 3],
                220.0,
                20,
                &params.colour,
                None,
                Some(within),
            );
            let gap =
                (params.colour.bridge_in * 20.0 / params.colour.table_cell_in).ceil() as usize;
            for j in 0..80 {
                for i in 0..100 {
                    let k = j * 100 + i;
                    let inside =
                        (within[0]..within[2]).contains(&i) && (within[1]..within[3]).contains(&j);
                    if !inside {
                        assert_eq!(part.labels[k], NONE, "({i}, {j}) outside {within:?}");
                        continue;
                    }
                    // Closing a gap may reach across the rectangle's edge.
                    let deep = (i >= within[0] + gap || within[0] == 0)
                        && (j >= within[1] + gap || within[1] == 0)
                        && (i + gap < within[2] || within[2] == 100)
                        && (j + gap < within[3] || within[3] == 80);
                    if deep {
                        assert_eq!(part.labels[k], whole.labels[k], "({i}, {j}) in {within:?}");
                    }
                }
            }
        }
    }

    /// A mat with a red ring of radius 7..10 px around (30, 30); `paint`
    /// chooses the colour of each ring pixel from its angle (degrees).
    fn ring_on_mat(paint: impl Fn(f64) -> [u8; 3]) -> RgbImage {
        let mut img = RgbImage::from_pixel(60, 60, image::Rgb([80, 95, 55]));
        for j in 0..60u32 {
            for i in 0..60u32 {
                let (x, y) = (f64::from(i) - 30.0, f64::from(j) - 30.0);
                if (7.0..10.0).contains(&x.hypot(y)) {
                    img.put_pixel(i, j, image::Rgb(paint(y.atan2(x).to_degrees())));
                }
            }
        }
        img
    }

    /// A red ring on the mat whose stretch from 0 to 20 degrees is `stretch`.
    fn red_ring_with_stretch(stretch: [u8; 3]) -> RgbImage {
        ring_on_mat(|a| {
            if (0.0..20.0).contains(&a) {
                stretch
            } else {
                [190, 35, 35]
            }
        })
    }

    #[test]
    fn a_faint_stretch_of_band_closes_and_the_table_stays_out() {
        let params = DetectorParams::defaults().unwrap();
        // A stretch of the ring is paler (only just red): it fails the
        // strict test, passes the weak one.
        let img = red_ring_with_stretch([120, 108, 104]);
        let (w, red) = (60, label_of(EdgeColour::Red));
        let seg = segment(&img, [1.0; 3], 220.0, 20, &params.colour);
        assert_eq!(components(&seg, 10).len(), 1, "the ring is whole");
        // The faint stretch is labelled, and nothing off the ring is.
        let pale = (0..w * w).filter(|&k| {
            let (x, y) = ((k % w) as f64 - 30.0, (k / w) as f64 - 30.0);
            let a = y.atan2(x).to_degrees();
            (7.5..9.5).contains(&x.hypot(y)) && (5.0..15.0).contains(&a)
        });
        assert!(pale.clone().all(|k| seg.labels[k] == red));
        for k in 0..w * w {
            let (x, y) = ((k % w) as f64 - 30.0, (k / w) as f64 - 30.0);
            if !(6.5..10.5).contains(&x.hypot(y)) {
                assert_eq!(seg.labels[k], NONE, "({x}, {y}) off the ring");
            }
        }
        // Without hysteresis the ring is cut.
        let mut strict = params.colour.clone();
        strict.bridge_in = 0.0;
        let seg = segment(&img, [1.0; 3], 220.0, 20, &strict);
        assert!(pale.clone().all(|k| seg.labels[k] == NONE));
    }

    #[test]
    fn a_gap_of_table_colour_stays_open() {
        let params = DetectorParams::defaults().unwrap();
        // A stretch hidden by something of the table's colour is not band.
        let img = red_ring_with_stretch([80, 95, 55]);
        let seg = segment(&img, [1.0; 3], 220.0, 20, &params.colour);
        let at = |x: i64, y: i64| seg.labels[((30 + y) * 60 + 30 + x) as usize];
        // 10 degrees round at radius 8.5: (8.4, 1.5).
        assert_eq!(at(8, 1), NONE);
    }

    #[test]
    fn saturated_shadow_is_not_band_colour() {
        let params = DetectorParams::defaults().unwrap();
        // Deep shadow beside terrain on sand: dark, brown and saturated.
        let mut img = RgbImage::from_pixel(60, 60, image::Rgb([200, 170, 120]));
        for j in 20..40 {
            for i in 20..40 {
                img.put_pixel(i, j, image::Rgb([30, 14, 10]));
            }
        }
        // A bright red band next to it keeps its label.
        for j in 45..50 {
            for i in 10..50 {
                img.put_pixel(i, j, image::Rgb([190, 35, 35]));
            }
        }
        let seg = segment(&img, [1.0; 3], 220.0, 20, &params.colour);
        assert!(seg.labels[30 * 60 + 30] == NONE);
        assert_eq!(seg.labels[47 * 60 + 30], label_of(EdgeColour::Red));
    }

    #[test]
    fn a_components_pixels_are_found_again_from_its_seed() {
        // Two patches of label 1 touching a patch of label 2, one diagonal
        // step making the first two one.
        let (w, h) = (12, 8);
        let mut labels = vec![NONE; w * h];
        for (i, j, l) in [
            (1, 1, 1),
            (2, 1, 1),
            (2, 2, 1),
            (3, 3, 1),
            (4, 3, 1),
            (5, 3, 2),
            (6, 3, 2),
            (9, 6, 1),
            (10, 6, 1),
        ] {
            labels[j * w + i] = l;
        }
        let seg = Segmentation {
            width: w,
            height: h,
            labels,
            table_hue: 0.0,
        };
        let comps = components(&seg, 1);
        assert_eq!(comps.len(), 3);
        for c in &comps {
            let seed = c.seed.expect("one patch");
            let mut px = component_pixels(&seg, seed, c.bbox);
            px.sort_unstable();
            let mut want: Vec<usize> = (0..w * h)
                .filter(|&k| {
                    let (i, j) = (k % w, k / w);
                    seg.labels[k] == c.label
                        && (c.bbox[0]..=c.bbox[2]).contains(&i)
                        && (c.bbox[1]..=c.bbox[3]).contains(&j)
                })
                .collect();
            want.sort_unstable();
            assert_eq!(px.len(), c.count);
            assert_eq!(px, want, "component {c:?}");
        }
        // An unlabelled seed, or one outside the box: nothing.
        assert!(component_pixels(&seg, 0, [0, 0, 3, 3]).is_empty());
        assert!(component_pixels(&seg, w + 1, [5, 0, 8, 3]).is_empty());
    }

    fn piece(label: u8, bbox: [usize; 4], count: usize) -> Component {
        Component {
            label,
            count,
            bbox,
            mean: (
                (bbox[0] + bbox[2]) as f64 / 2.0,
                (bbox[1] + bbox[3]) as f64 / 2.0,
            ),
            cov: (1.0, 0.0, 1.0),
            seed: None,
        }
    }

    #[test]
    fn arcs_of_one_broken_ring_join() {
        // Three arcs of a ring 21 px across, as a faint band on a mat of its
        // colour breaks up; each is short of a component.
        let arcs = [
            piece(1, [257, 324, 264, 330], 26),
            piece(1, [272, 324, 277, 333], 28),
            piece(1, [261, 337, 275, 341], 33),
        ];
        let joined = join_pieces(&arcs, 8, 24, 34);
        assert_eq!(joined.len(), 1);
        assert_eq!(joined[0].count, 87);
        assert_eq!(joined[0].bbox, [257, 324, 277, 341]);
        let m = joined[0].mean;
        assert!((m.0 - (26.0 * 260.5 + 28.0 * 274.5 + 33.0 * 268.0) / 87.0).abs() < 1e-9);
    }

    #[test]
    fn a_mounted_band_in_pieces_is_searched_whole() {
        // Seed 94, frame 7: one green mounted band as two pieces of 23 and
        // 20 pixels (a rectangle search needs 28), boxes overlapping.
        let a = piece(1, [257, 381, 280, 400], 150);
        let b = piece(1, [242, 386, 258, 406], 120);
        let joined = join_band_pieces(&[a.clone(), b.clone()], 3, 28, 48);
        assert_eq!(joined.len(), 1);
        assert_eq!(joined[0].bbox, [242, 381, 280, 406]);
        assert_eq!(joined[0].count, 270);
        // Another colour, or a box further off than the band's width:
        // apart.
        let c = piece(2, [242, 386, 258, 406], 120);
        assert!(join_band_pieces(&[a.clone(), c], 3, 28, 48).is_empty());
        let d = piece(1, [220, 386, 252, 406], 120);
        assert!(join_band_pieces(&[a.clone(), d], 3, 28, 48).is_empty());
        // Both long enough for a search of their own.
        let e = piece(1, [250, 390, 285, 410], 200);
        let f = piece(1, [284, 395, 320, 412], 200);
        assert!(join_band_pieces(&[e, f], 3, 28, 48).is_empty());
        // Together wider than a mounted base.
        let g = piece(1, [281, 381, 310, 400], 150);
        assert!(join_band_pieces(&[a, g], 3, 28, 48).is_empty());
    }

    #[test]
    fn pieces_apart_of_other_colours_or_too_wide_stay_apart() {
        let a = piece(1, [100, 100, 106, 104], 20);
        // Another colour beside it.
        let b = piece(2, [108, 100, 114, 104], 20);
        // Its colour, but beyond the gap.
        let c = piece(1, [120, 100, 126, 104], 20);
        assert!(join_pieces(&[a.clone(), b, c], 8, 24, 34).is_empty());
        // Close pieces whose group would be wider than a base.
        let d = piece(1, [108, 100, 130, 104], 20);
        assert!(join_pieces(&[a.clone(), d], 8, 24, 34).is_empty());
        // Together still too few pixels for a ring.
        let e = piece(1, [108, 100, 112, 104], 10);
        assert!(join_pieces(&[a, e], 8, 24, 34).is_empty());
    }
}
