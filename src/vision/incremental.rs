//! Perception at the cost of what changed: the detector run only where the
//! table looks different from the table as last understood.
//!
//! # How
//! Each frame is resampled into a coarse top view (a few pixels an inch)
//! and compared, cell by cell, with the reference: the coarse view of the
//! frames on which each part of the table was last detected. Colours are
//! compared after a per-channel gain taken as the median ratio over all
//! cells, so an auto-exposure or white-balance drift changes nothing, and a
//! cell's colour is the mean of several samples, so JPEG and sensor noise
//! stay well under the threshold. The changed cells, widened by a base, are
//! detected again with [`Detector::detect_in_part_view`] (with a margin of
//! table round them for context); every figure elsewhere keeps its fit.
//! Only the changed part of each part's top view is made from the frame:
//! the margin round it is the kept top view of the table as last
//! understood (it did not change), unless the exposure has drifted since
//! it was made.
//!
//! The figures kept are re-confirmed on a rolling schedule: a few samples
//! round each base's band, read from the frame and compared with what they
//! were when it was fitted; a figure that no longer looks the same is
//! detected again. A rolling sweep detects one tile of the table again
//! every few frames, so nothing the change test missed stays wrong for
//! long. The whole table is detected on the first frame, when the mapping
//! changes (a re-lock), when the frame size changes, and when a change is
//! too large for parts (a hand or an arm over the table: the hand finder
//! works on the whole view).
//!
//! # Conventions
//! Table frame of `TABLE_KIT.md` (inches, x right, y up seen from above);
//! top-view pixels as in [`super::rectify`]; times are milliseconds.

use std::time::Instant;

use image::RgbImage;
use nalgebra::Point2;

use super::cv::{self, FixedMaps};
use super::detect::{Detector, FittedComponent, FrameContext, KnownBarren, StageTimings};
use super::rectify::TopView;
use super::segment::{Segmentation, TableGlobals};
use super::track::OccludedRegion;
use super::{Detection, VisionError};
use crate::calibration::{Lens, TableMapping};
pub use crate::capture::FrameChanges;

/// What the incremental detector can be tuned by. Sizes are table inches.
#[derive(Debug, Clone, PartialEq)]
pub struct IncrementalParams {
    /// Scale of the coarse top view the change test samples, pixels an inch.
    pub coarse_px_per_in: f64,
    /// Side of a change cell, coarse pixels (its colour is their mean).
    pub cell_coarse_px: u32,
    /// A cell changed when a channel differs by more than this (0..255)...
    pub change_level: f32,
    /// ...plus this share of the reference's brightest channel.
    pub change_share: f32,
    /// Changed cells are widened by this before detection: a round base
    /// whose band changed has its centre within it (its radius; a mounted
    /// base that moved changes most of its cells, its centre's among them).
    pub reach_in: f64,
    /// Table round each part given to the detector for context: a round
    /// base centred on the part's wanted edge is seen whole with a quarter
    /// inch of table round it. The candidate test's far outside samples
    /// (half an inch beyond the band) may then fall outside the part; the
    /// crowd and seq01 tests of `tests/incremental_detect.rs` find the
    /// same figures as the whole detection with it.
    pub pad_in: f64,
    /// A changed blob larger than this (square inches) may be a hand: the
    /// whole table is detected (the hand finder needs the whole view).
    pub whole_blob_in2: f64,
    /// More than this share of the table changed: the whole is detected.
    pub whole_share: f64,
    /// Every kept figure is re-confirmed once in this many frames.
    pub confirm_frames: u32,
    /// A re-confirmation fails when the band samples differ by more than
    /// this on average (0..255, after the exposure gain).
    pub confirm_level: f32,
    /// Side of a sweep tile.
    pub sweep_tile_in: f64,
    /// One sweep tile is detected again every this many frames (0: never).
    pub sweep_every_frames: u32,
    /// A kept figure whose confidence is under the detector's report
    /// threshold plus this is detected again on every frame: a borderline
    /// figure comes and goes with each frame's noise exactly as a whole
    /// detection of that frame would have it (0: only changed parts).
    pub recheck_margin: f64,
    /// The kept top view and labels stand in for a part's margin while the
    /// exposure gain and the white balance are within this share of those
    /// they were made at (per channel); beyond it the whole part is made
    /// from the frame again.
    pub view_gain_tolerance: f32,
}

impl Default for IncrementalParams {
    fn default() -> Self {
        Self {
            coarse_px_per_in: 5.0,
            cell_coarse_px: 2,
            change_level: 14.0,
            change_share: 0.06,
            reach_in: 0.5,
            pad_in: 0.75,
            whole_blob_in2: 16.0,
            whole_share: 0.25,
            confirm_frames: 30,
            confirm_level: 28.0,
            sweep_tile_in: 4.0,
            sweep_every_frames: 4,
            recheck_margin: 0.25,
            view_gain_tolerance: 0.02,
        }
    }
}

/// Why the whole table was detected on a frame.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum WholeReason {
    /// Nothing known yet.
    Start,
    /// The table mapping or the frame size is not the one last seen.
    NewMapping,
    /// The change was too large for parts (a hand, an arm, the light).
    LargeChange,
}

/// How a frame was detected.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum FrameWork {
    Whole(WholeReason),
    /// Only parts of the table: how many, their share of the table, how
    /// many band-coloured components in them were not fitted again (known
    /// to give no base, and unchanged since), and how many parts' top views
    /// were made whole from the frame because the exposure or the white
    /// balance drifted since their margins were made.
    Parts {
        parts: usize,
        share: f64,
        unfitted: usize,
        drifted: usize,
    },
}

/// Milliseconds spent on one frame, per stage.
#[derive(Debug, Clone, Copy, Default, PartialEq, serde::Serialize)]
pub struct IncrementalTimings {
    /// Pose and white reference, the coarse view and the change test.
    pub change: f64,
    /// Re-confirming kept figures.
    pub confirm: f64,
    /// The detector's own stages, summed over the parts (or of the whole
    /// detection).
    pub detector: StageTimings,
    pub total: f64,
}

/// What the incremental detector reports for one frame.
#[derive(Debug, Clone, PartialEq)]
pub struct IncrementalFrame {
    pub detections: Vec<Detection>,
    /// From the last whole detection (parts do not look for hands).
    pub occluded_regions_in_table: Vec<OccludedRegion>,
    /// From the last whole detection: terrain moves seldom, and a part is
    /// too small to see a piece whole.
    pub terrain: Vec<super::terrain::SeenTerrain>,
    pub work: FrameWork,
    pub timings: IncrementalTimings,
}

/// A figure kept between frames and what its band looked like.
#[derive(Debug, Clone)]
struct Kept {
    detection: Detection,
    /// The frame's colours at the band samples when it was fitted; `None`
    /// where a sample fell outside the frame.
    band: Vec<Option<[f32; 3]>>,
}

/// Everything known about the table as last understood.
struct State {
    /// The mapping the reference and the cell samples were made with.
    mapping: TableMapping,
    frame_size: [u32; 2],
    coarse_view: TopView,
    /// Change cells across and down.
    cw: usize,
    ch: usize,
    /// The reference colour per change cell, in the exposure of the first
    /// frame after the last whole detection; `None` outside the photo.
    reference: Vec<Option<[f32; 3]>>,
    /// How the change cells sample the frame.
    samples: CellSamples,
    /// The [`sum_corners`] of `samples` for the decoder's cells of one size
    /// (cell pixels, cells across and down), made on the first frame that
    /// came with them.
    #[allow(clippy::type_complexity)]
    sum_corners: Option<(([u32; 2], usize, usize), Vec<[usize; 4]>)>,
    /// The detector's whole top view's maps (parts are cut from them).
    view_maps: FixedMaps,
    /// The whole top view as last made: from the last whole detection,
    /// each part's changed pixels made again from their frame.
    top: RgbImage,
    /// Per change cell, the [`Gains`] its pixels of `top` and their labels
    /// were made at, where all of them were made on one frame.
    top_gain: Vec<Gains>,
    /// The segmentation of `top` (markers cleared), one label a pixel.
    labels: Vec<u8>,
    /// The change cells' colours on the last frame, as measured (no gain).
    last_cells: Vec<Option<[f32; 3]>>,
    /// The stream and serial of the last frame, when it came with changes.
    seen: Option<(u64, u64)>,
    globals: TableGlobals,
    figures: Vec<Kept>,
    occluded: Vec<OccludedRegion>,
    terrain: Vec<super::terrain::SeenTerrain>,
    frame: u64,
    confirm_cursor: usize,
    sweep_cursor: usize,
    /// Components that gave no figure (terrain of a band's colour, most
    /// often: a hedge, a wood, a red roof). One is not fitted again while
    /// no change cell under it changes and the sweep does not reach it: a
    /// large one costs milliseconds to fit.
    barren: Vec<Barren>,
}

/// A band-coloured component that gave no figure.
#[derive(Debug, Clone, PartialEq)]
struct Barren {
    label: u8,
    /// Its pixels widened by [`BARREN_SLACK_PX`]: their box (the whole top
    /// view's pixels, inclusive) and a mask over it, row by row.
    bbox: [usize; 4],
    mask: Vec<bool>,
}

impl Barren {
    fn new(c: &FittedComponent) -> Option<Self> {
        let s = BARREN_SLACK_PX;
        let bbox = pixel_box(&c.pixels)?;
        let bbox = [
            bbox[0].saturating_sub(s),
            bbox[1].saturating_sub(s),
            bbox[2] + s,
            bbox[3] + s,
        ];
        let w = bbox[2] - bbox[0] + 1;
        let mut mask = vec![false; w * (bbox[3] - bbox[1] + 1)];
        for p in &c.pixels {
            for j in p[1].saturating_sub(s)..=p[1] + s {
                for i in p[0].saturating_sub(s)..=p[0] + s {
                    mask[(j - bbox[1]) * w + i - bbox[0]] = true;
                }
            }
        }
        Some(Self {
            label: c.label,
            bbox,
            mask,
        })
    }

    fn holds(&self, p: [usize; 2]) -> bool {
        let b = &self.bbox;
        (b[0]..=b[2]).contains(&p[0])
            && (b[1]..=b[3]).contains(&p[1])
            && self.mask[(p[1] - b[1]) * (b[2] - b[0] + 1) + p[0] - b[0]]
    }

    /// Its pixels (widened), the whole top view's columns and rows.
    fn pixels(&self) -> impl Iterator<Item = [usize; 2]> + '_ {
        let w = self.bbox[2] - self.bbox[0] + 1;
        self.mask
            .iter()
            .enumerate()
            .filter(|(_, m)| **m)
            .map(move |(k, _)| [self.bbox[0] + k % w, self.bbox[1] + k / w])
    }

    /// Whether it shares a pixel with `other`.
    fn meets(&self, other: &Barren) -> bool {
        boxes_meet(&self.bbox, &other.bbox) && self.pixels().any(|p| other.holds(p))
    }

    /// The two as one (pieces of one patch, cut by parts' edges).
    fn union(&self, other: &Barren) -> Barren {
        let (a, b) = (&self.bbox, &other.bbox);
        let bbox = [
            a[0].min(b[0]),
            a[1].min(b[1]),
            a[2].max(b[2]),
            a[3].max(b[3]),
        ];
        let w = bbox[2] - bbox[0] + 1;
        let mut mask = vec![false; w * (bbox[3] - bbox[1] + 1)];
        for p in self.pixels().chain(other.pixels()) {
            mask[(p[1] - bbox[1]) * w + p[0] - bbox[0]] = true;
        }
        Barren {
            label: self.label,
            bbox,
            mask,
        }
    }
}

/// The components known to give nothing, as a part's detection asks:
/// none that the sweep reaches (it looks afresh).
struct BarrenMemory<'a> {
    known: &'a [Barren],
    sweep: Option<[u32; 4]>,
    skipped: std::cell::Cell<usize>,
}

impl KnownBarren for BarrenMemory<'_> {
    fn may_be(&self, label: u8, b: [usize; 4]) -> bool {
        let swept = self.sweep.is_some_and(|r| {
            b[0] < r[2] as usize
                && b[2] >= r[0] as usize
                && b[1] < r[3] as usize
                && b[3] >= r[1] as usize
        });
        !swept
            && self.known.iter().any(|k| {
                k.label == label
                    && b[0] >= k.bbox[0]
                    && b[1] >= k.bbox[1]
                    && b[2] <= k.bbox[2]
                    && b[3] <= k.bbox[3]
            })
    }

    fn is(&self, label: u8, pixels: &[[usize; 2]]) -> bool {
        let known = is_known_barren(self.known, label, pixels);
        self.skipped.set(self.skipped.get() + usize::from(known));
        known
    }
}

/// Most components remembered as giving nothing (the oldest go first).
const MAX_BARREN: usize = 4096;

/// Pixels a component may reach beyond a remembered one's and still be it
/// (the labels at its edge come and go with the frame's noise).
const BARREN_SLACK_PX: usize = 2;

/// Share of a component's pixels that must lie on a remembered one's (the
/// rest: noise at its edge).
const BARREN_MIN_SHARE: f64 = 0.98;

/// The detector run at the cost of what changed. Feed it the frames of one
/// camera in order.
pub struct IncrementalDetector {
    detector: Detector,
    params: IncrementalParams,
    state: Option<State>,
}

/// Points round a base where its band is sampled for re-confirmation.
const BAND_SAMPLES: usize = 12;

impl IncrementalDetector {
    pub fn new(detector: Detector, params: IncrementalParams) -> Self {
        Self {
            detector,
            params,
            state: None,
        }
    }

    pub fn detector(&self) -> &Detector {
        &self.detector
    }

    /// Forgets the table: the next frame is detected whole.
    pub fn reset(&mut self) {
        self.state = None;
        self.detector.forget_hands();
    }

    /// The figures on `frame`, seen through `mapping`.
    pub fn detect(
        &mut self,
        frame: &RgbImage,
        mapping: &TableMapping,
    ) -> Result<IncrementalFrame, VisionError> {
        self.detect_changed(frame, mapping, None)
    }

    /// As [`IncrementalDetector::detect`], told by the decoder where the
    /// frame's pixels may differ from the frames before: the change test
    /// reads the frame only there. `changes` must describe `frame`.
    pub fn detect_changed(
        &mut self,
        frame: &RgbImage,
        mapping: &TableMapping,
        changes: Option<&FrameChanges>,
    ) -> Result<IncrementalFrame, VisionError> {
        let t0 = Instant::now();
        let changes = changes.filter(|c| c.fits([frame.width(), frame.height()]));
        let size = [frame.width(), frame.height()];
        // The live lock follows a small drift of the mapping (a refit every
        // half second): a mapping within a tenth of a pixel of the one the
        // reference was made with is the same table.
        let layout = self.detector.layout();
        let known = self.state.as_ref().is_some_and(|s| {
            s.frame_size == size
                && (s.mapping.ideal_from_table == mapping.ideal_from_table
                    || mapping.shift_px(&s.mapping, layout) <= super::rectify::MAP_REUSE_PX)
        });
        if !known {
            let reason = if self.state.is_none() {
                WholeReason::Start
            } else {
                WholeReason::NewMapping
            };
            return self.whole(frame, mapping, reason, changes, t0);
        }
        let ctx = self.detector.frame_context(frame, mapping)?;
        let Some(state) = self.state.as_mut() else {
            return self.whole(frame, mapping, WholeReason::Start, changes, t0);
        };
        // The cells made on no frame after the last one seen are as they were.
        let since = changes.and_then(|c| match state.seen {
            Some((stream, serial)) if stream == c.stream && serial <= c.serial => Some((c, serial)),
            _ => None,
        });
        if let Some((c, _)) = since {
            let key = (c.cell_px, c.cols, c.rows);
            if state.sum_corners.as_ref().map(|k| k.0) != Some(key) {
                state.sum_corners = Some((key, sum_corners(&state.samples, c)));
            }
        }
        let coarse = coarse_cells(frame, state, since);
        state.last_cells.clone_from(&coarse);
        state.seen = changes.map(|c| (c.stream, c.serial));
        let gain = exposure_gain(&state.reference, &coarse);
        let mut changed = changed_cells(&state.reference, &coarse, gain, &self.params);
        let change_ms = ms_since(t0);

        // Re-confirm a batch of the kept figures.
        let t1 = Instant::now();
        let n = state.figures.len();
        let batch = n.div_ceil(self.params.confirm_frames.max(1) as usize);
        let cell_in = f64::from(self.params.cell_coarse_px) / self.params.coarse_px_per_in;
        for k in 0..batch.min(n) {
            let idx = (state.confirm_cursor + k) % n;
            let kept = &state.figures[idx];
            let now = band_samples(
                frame,
                &ctx,
                &self.detector,
                mapping.lens.as_ref(),
                kept.detection.center_in_table,
            );
            if band_differs(&kept.band, &now, gain, self.params.confirm_level) {
                mark_disc(
                    &mut changed,
                    state,
                    kept.detection.center_in_table,
                    self.detector.params().kit.foot_diameter_in / 2.0 + cell_in,
                );
            }
        }
        if n > 0 {
            state.confirm_cursor = (state.confirm_cursor + batch) % n;
        }
        let confirm_ms = ms_since(t1);

        let changed_share =
            changed.iter().filter(|c| **c).count() as f64 / (state.cw * state.ch).max(1) as f64;
        let blobs = blobs(&changed, state.cw, state.ch);
        let largest_in2 = blobs
            .iter()
            .map(|b| b.cells as f64 * cell_in * cell_in)
            .fold(0.0, f64::max);
        if changed_share > self.params.whole_share || largest_in2 > self.params.whole_blob_in2 {
            return self.whole(frame, mapping, WholeReason::LargeChange, changes, t0);
        }
        let cell_view_px = cell_in * ctx.view.px_per_in;
        forget_changed(&mut state.barren, &changed, state.cw, cell_view_px);

        // The rolling sweep: one tile, on some frames, as if it changed.
        state.frame += 1;
        let view = &ctx.view;
        let px = view.px_per_in;
        let mut wanted: Vec<[u32; 4]> = blobs
            .iter()
            .map(|b| {
                let r = self.params.reach_in * px;
                clamp_rect(
                    [
                        b.bbox[0] as f64 * cell_view_px - r,
                        b.bbox[1] as f64 * cell_view_px - r,
                        (b.bbox[2] + 1) as f64 * cell_view_px + r,
                        (b.bbox[3] + 1) as f64 * cell_view_px + r,
                    ],
                    view,
                )
            })
            .collect();
        // Borderline figures: detected again on every frame.
        let borderline = self.detector.params().confidence.min_report + self.params.recheck_margin;
        let around = self.params.reach_in * px;
        for k in state
            .figures
            .iter()
            .filter(|k| k.detection.confidence < borderline)
        {
            let v = view.view_from_table(k.detection.center_in_table);
            wanted.push(clamp_rect(
                [v.x - around, v.y - around, v.x + around, v.y + around],
                view,
            ));
        }
        let every = self.params.sweep_every_frames;
        let mut sweep = None;
        if every > 0 && state.frame.is_multiple_of(u64::from(every)) {
            let tile = (self.params.sweep_tile_in * px).max(1.0);
            let across = (f64::from(view.width_px) / tile).ceil().max(1.0) as usize;
            let down = (f64::from(view.height_px) / tile).ceil().max(1.0) as usize;
            let k = state.sweep_cursor % (across * down);
            state.sweep_cursor = (k + 1) % (across * down);
            let (ti, tj) = ((k % across) as f64, (k / across) as f64);
            let r = clamp_rect(
                [ti * tile, tj * tile, (ti + 1.0) * tile, (tj + 1.0) * tile],
                view,
            );
            sweep = Some(r);
            wanted.push(r);
        }
        let wanted = merge_rects(wanted, (self.params.pad_in * px).round() as u32);

        let mut detector_ms = StageTimings::default();
        let mut found: Vec<Detection> = Vec::new();
        let grid = self.detector.part_grid_px().max(1);
        let pad = (self.params.pad_in * px).round() as u32;
        let mut area = 0u64;
        // Components known to give nothing are not fitted again, except
        // where the sweep looks afresh.
        let barren = std::mem::take(&mut state.barren);
        let known = BarrenMemory {
            known: &barren,
            sweep,
            skipped: std::cell::Cell::new(0),
        };
        let mut fitted_comps = Vec::new();
        let parts: Vec<[u32; 4]> = wanted
            .iter()
            .map(|w| {
                [
                    w[0].saturating_sub(pad) / grid * grid,
                    w[1].saturating_sub(pad) / grid * grid,
                    (w[2] + pad).min(view.width_px),
                    (w[3] + pad).min(view.height_px),
                ]
            })
            .collect();
        let seen = Seen {
            frame,
            mapping,
            ctx: &ctx,
            made_at: gains(gain, ctx.gains),
            cells: ViewCells {
                cell_px: cell_view_px,
                across: state.cw,
                down: state.ch,
                view: [view.width_px, view.height_px],
            },
            tolerance: self.params.view_gain_tolerance,
        };
        let (views, drifted) = part_views(
            &self.detector,
            state,
            &seen,
            &wanted,
            &parts,
            &mut detector_ms,
        )?;
        for ((w, part), (top, labels)) in wanted.iter().zip(&parts).zip(views) {
            let part = *part;
            area += u64::from(part[2] - part[0]) * u64::from(part[3] - part[1]);
            let (dets, t, comps) = self.detector.detect_in_part_view(
                &top,
                &ctx,
                part,
                *w,
                state.globals,
                Some(&known as &dyn KnownBarren),
                Some(labels),
            );
            fitted_comps.extend(comps);
            add_timings(&mut detector_ms, &t);
            // Hands seen on the last whole detection still hide what
            // they hid (a hand that moved is a large change).
            let margin_in = self.detector.hands().params().suppress_margin_in;
            found.extend(dets.into_iter().filter(|d| {
                inside(view, w, d.center_in_table)
                    && !state
                        .occluded
                        .iter()
                        .any(|r| r.covers(d.center_in_table, margin_in))
            }));
        }
        let unfitted = known.skipped.get();
        state.barren = barren;
        learn_barren(&mut state.barren, &fitted_comps);
        // The figures in the parts are the new ones; the rest are kept.
        let min_sep = self.detector.params().kit.foot_diameter_in * 0.75;
        found.sort_by(|a, b| b.confidence.total_cmp(&a.confidence));
        let mut fresh: Vec<Detection> = Vec::new();
        for d in found {
            if fresh
                .iter()
                .all(|f| (f.center_in_table - d.center_in_table).norm() >= min_sep)
            {
                fresh.push(d);
            }
        }
        state.figures.retain(|k| {
            let c = k.detection.center_in_table;
            !wanted.iter().any(|w| inside(view, w, c))
                && fresh
                    .iter()
                    .all(|f| (f.center_in_table - c).norm() >= min_sep)
        });
        for d in fresh {
            let band = band_samples(
                frame,
                &ctx,
                &self.detector,
                mapping.lens.as_ref(),
                d.center_in_table,
            );
            state.figures.push(Kept { detection: d, band });
        }
        // The frame's share of the bases' side seen, with the new fits.
        let mut all: Vec<&mut Detection> =
            state.figures.iter_mut().map(|k| &mut k.detection).collect();
        super::side::settle(&mut all, &self.detector.params().side);
        // The parts are understood again: their cells are the reference.
        for w in &wanted {
            let (i0, j0) = (
                (f64::from(w[0]) / cell_view_px).floor() as usize,
                (f64::from(w[1]) / cell_view_px).floor() as usize,
            );
            let (i1, j1) = (
                ((f64::from(w[2]) / cell_view_px).ceil() as usize).min(state.cw),
                ((f64::from(w[3]) / cell_view_px).ceil() as usize).min(state.ch),
            );
            for j in j0..j1 {
                for i in i0..i1 {
                    let k = j * state.cw + i;
                    state.reference[k] = coarse[k].map(|c| [0, 1, 2].map(|ch| c[ch] / gain[ch]));
                }
            }
        }
        let share = area as f64 / (f64::from(view.width_px) * f64::from(view.height_px)).max(1.0);
        let detections = state.figures.iter().map(|k| k.detection.clone()).collect();
        Ok(IncrementalFrame {
            detections,
            occluded_regions_in_table: state.occluded.clone(),
            terrain: state.terrain.clone(),
            work: FrameWork::Parts {
                parts: wanted.len(),
                share,
                unfitted,
                drifted,
            },
            timings: IncrementalTimings {
                change: change_ms,
                confirm: confirm_ms,
                detector: detector_ms,
                total: ms_since(t0),
            },
        })
    }

    /// Detects the whole table and makes it the reference.
    fn whole(
        &mut self,
        frame: &RgbImage,
        mapping: &TableMapping,
        reason: WholeReason,
        changes: Option<&FrameChanges>,
        t0: Instant,
    ) -> Result<IncrementalFrame, VisionError> {
        if reason == WholeReason::NewMapping {
            // The terrain the hand finder remembers was seen through
            // another mapping.
            self.detector.forget_hands();
        }
        let whole = self.detector.detect_with_globals(frame, mapping)?;
        let (found, globals, comps) = (whole.found, whole.globals, whole.components);
        let ctx = self.detector.frame_context(frame, mapping)?;
        // The kept top view and labels start as the whole detection's; a
        // view of another size (never, but not assumed) is never taken as
        // made, so every part is then made whole from its frame.
        let (view_w, view_h) = (ctx.view.width_px, ctx.view.height_px);
        let (top, labels, made_at) = if whole.top.dimensions() == (view_w, view_h)
            && whole.labels.labels.len() == whole.top.len() / 3
        {
            (whole.top, whole.labels.labels, gains([1.0; 3], ctx.gains))
        } else {
            (
                RgbImage::new(view_w, view_h),
                vec![super::segment::NONE; view_w as usize * view_h as usize],
                [f32::INFINITY; 6],
            )
        };
        let p = &self.params;
        let coarse_view = TopView::new(
            self.detector.layout(),
            p.coarse_px_per_in,
            self.detector.params().kit.base_height_in,
        );
        let coarse_maps = coarse_view.fixed_maps(&ctx.pose, mapping.lens.as_ref(), 4);
        let cell = p.cell_coarse_px.max(1) as usize;
        let cw = (coarse_view.width_px as usize).div_ceil(cell);
        let ch = (coarse_view.height_px as usize).div_ceil(cell);
        let samples = CellSamples::new(
            &coarse_maps,
            cell,
            [cw, ch],
            [frame.width(), frame.height()],
        );
        let figures = found
            .detections
            .iter()
            .map(|d| Kept {
                detection: d.clone(),
                band: band_samples(
                    frame,
                    &ctx,
                    &self.detector,
                    mapping.lens.as_ref(),
                    d.center_in_table,
                ),
            })
            .collect();
        let mut state = State {
            mapping: mapping.clone(),
            frame_size: [frame.width(), frame.height()],
            coarse_view,
            cw,
            ch,
            reference: Vec::new(),
            samples,
            sum_corners: None,
            view_maps: ctx.view.fixed_maps(
                &ctx.pose,
                mapping.lens.as_ref(),
                self.detector.params().rectify.map_grid_px,
            ),
            top_gain: vec![made_at; cw * ch],
            labels,
            top,
            last_cells: Vec::new(),
            seen: changes.map(|c| (c.stream, c.serial)),
            globals,
            figures,
            occluded: found.occluded_regions_in_table.clone(),
            terrain: found.terrain.clone(),
            frame: 0,
            confirm_cursor: 0,
            sweep_cursor: 0,
            barren: Vec::new(),
        };
        learn_barren(&mut state.barren, &comps);
        state.reference = coarse_cells(frame, &state, None);
        state.last_cells.clone_from(&state.reference);
        self.state = Some(state);
        Ok(IncrementalFrame {
            detections: found.detections,
            occluded_regions_in_table: found.occluded_regions_in_table,
            terrain: found.terrain,
            work: FrameWork::Whole(reason),
            timings: IncrementalTimings {
                change: 0.0,
                confirm: 0.0,
                detector: found.timings,
                total: ms_since(t0),
            },
        })
    }
}

/// The change cells as they lie on the detector's top view: `cell_px`
/// view pixels a side, `across` x `down` of them over a view of `view`
/// pixels (the last row and column may be cut short by the view's edge).
struct ViewCells {
    cell_px: f64,
    across: usize,
    down: usize,
    view: [u32; 2],
}

impl ViewCells {
    /// The cells (column and row ranges, ends exclusive) that `r` (view
    /// pixels, ends exclusive) covers wholly.
    fn covered(&self, r: [u32; 4]) -> [usize; 4] {
        let first = |a: u32| (f64::from(a) / self.cell_px).ceil() as usize;
        let end = |b: u32, edge: u32, n: usize| {
            if b >= edge {
                n
            } else {
                ((f64::from(b) / self.cell_px).floor() as usize).min(n)
            }
        };
        [
            first(r[0]),
            first(r[1]),
            end(r[2], self.view[0], self.across),
            end(r[3], self.view[1], self.down),
        ]
    }

    /// The cells `r` reaches into.
    fn met(&self, r: [u32; 4]) -> [usize; 4] {
        let first = |a: u32, n: usize| ((f64::from(a) / self.cell_px).floor() as usize).min(n);
        let end = |b: u32, n: usize| ((f64::from(b) / self.cell_px).ceil() as usize).min(n);
        [
            first(r[0], self.across),
            first(r[1], self.down),
            end(r[2], self.across),
            end(r[3], self.down),
        ]
    }

    /// Records that `r`'s pixels were made at `gain`: the cells it covers
    /// wholly (a cell it cuts keeps pixels of another frame).
    fn set_made(&self, made: &mut [Gains], r: [u32; 4], gain: Gains) {
        let [i0, j0, i1, j1] = self.covered(r);
        for j in j0..j1 {
            for i in i0..i1 {
                if let Some(g) = made.get_mut(j * self.across + i) {
                    *g = gain;
                }
            }
        }
    }

    /// Whether some pixel of `r` may have been made at gains more than
    /// `tolerance` (a share, each of the six) from `gain`.
    fn made_at_other_gain(&self, made: &[Gains], r: [u32; 4], gain: Gains, tolerance: f32) -> bool {
        let [i0, j0, i1, j1] = self.met(r);
        (j0..j1).any(|j| {
            (i0..i1).any(|i| {
                made.get(j * self.across + i).is_none_or(|m| {
                    (0..6).any(|c| {
                        let off = (m[c] / gain[c] - 1.0).abs();
                        off.is_nan() || off > tolerance
                    })
                })
            })
        })
    }
}

/// What a top view's pixels and labels were made at: the exposure gain
/// against the reference (red, green, blue), then the white balance the
/// labels were made with (the frame context's gains). A drift of either
/// makes the kept view and labels stale.
type Gains = [f32; 6];

/// The [`Gains`] of an exposure gain and a white balance.
fn gains(exposure: [f32; 3], white: [f32; 3]) -> Gains {
    [
        exposure[0],
        exposure[1],
        exposure[2],
        white[0],
        white[1],
        white[2],
    ]
}

/// A frame as the incremental detector sees it: the picture, the table
/// mapping, the detector's frame context, its [`Gains`], the change cells
/// on the view and how far the gains may have drifted for the kept view to
/// stand in (see [`part_views`]).
struct Seen<'a> {
    frame: &'a RgbImage,
    mapping: &'a TableMapping,
    ctx: &'a FrameContext,
    /// The exposure gain against the reference and the white balance of
    /// this frame.
    made_at: Gains,
    cells: ViewCells,
    tolerance: f32,
}

/// The top view and segmentation of each of `parts` (whole-view pixels),
/// `wanted` being the pixels that changed in each. What changed is made
/// from the frame (every part's first, as one part's margin may hold
/// another's change) and labelled again; the margins are the kept view
/// and labels, unless the exposure or the white balance drifted more than
/// `seen.tolerance` since they were made: then the whole part is made
/// again. The kept view and labels are updated; the milliseconds are added
/// to `timings`. Returns the views and labels, and how many parts were
/// made whole for a drift.
fn part_views(
    detector: &Detector,
    state: &mut State,
    seen: &Seen<'_>,
    wanted: &[[u32; 4]],
    parts: &[[u32; 4]],
    timings: &mut StageTimings,
) -> Result<(Vec<(RgbImage, Segmentation)>, usize), VisionError> {
    let t0 = Instant::now();
    let view = &seen.ctx.view;
    let (cells, tolerance) = (&seen.cells, seen.tolerance);
    let mut made: Vec<[u32; 4]> = Vec::new();
    let mut make = |state: &mut State, r: [u32; 4]| -> Result<(), VisionError> {
        let sub = view.part(r);
        let pixels = detector.rectify_part(
            seen.frame,
            seen.mapping,
            seen.ctx,
            r,
            Some(&state.view_maps),
        )?;
        paste(&mut state.top, &pixels, sub.origin_px);
        cells.set_made(&mut state.top_gain, r, seen.made_at);
        made.push([
            sub.origin_px[0],
            sub.origin_px[1],
            sub.origin_px[0] + sub.width_px,
            sub.origin_px[1] + sub.height_px,
        ]);
        Ok(())
    };
    for w in wanted {
        make(state, *w)?;
    }
    let mut drifted = 0;
    for part in parts {
        if cells.made_at_other_gain(&state.top_gain, *part, seen.made_at, tolerance) {
            make(state, *part)?;
            drifted += 1;
        }
    }
    timings.undistort_rectify += ms_since(t0);

    // Labels: each made rectangle with the table round it that its cells
    // and the closing of gaps in bands look at.
    let t1 = Instant::now();
    let size = [view.width_px as usize, view.height_px as usize];
    let cell = detector.segment_cell_px().max(1);
    let reach = (detector.params().colour.bridge_in * view.px_per_in).ceil() as usize + 1;
    for r in &made {
        let r = r.map(|v| v as usize);
        let within = [
            r[0].saturating_sub(reach),
            r[1].saturating_sub(reach),
            (r[2] + reach).min(size[0]),
            (r[3] + reach).min(size[1]),
        ];
        let around = [
            within[0].saturating_sub(cell) / cell * cell,
            within[1].saturating_sub(cell) / cell * cell,
            (within[2] + cell).min(size[0]),
            (within[3] + cell).min(size[1]),
        ];
        let around_u32 = around.map(|v| v as u32);
        let sub = view.part(around_u32);
        let top = cut(&state.top, sub.origin_px, [sub.width_px, sub.height_px]);
        let seg = detector.segment_view(
            &top,
            &sub,
            seen.ctx.gains,
            Some(state.globals),
            Some([
                within[0] - around[0],
                within[1] - around[1],
                within[2] - around[0],
                within[3] - around[1],
            ]),
        );
        let labels = Pixels {
            bytes: &seg.labels,
            size: [seg.width, seg.height],
            channels: 1,
        };
        paste_px(
            &mut state.labels,
            size,
            &labels,
            [around[0], around[1]],
            Some([
                r[0] - around[0],
                r[1] - around[1],
                r[2] - around[0],
                r[3] - around[1],
            ]),
        );
    }
    timings.segmentation += ms_since(t1);

    let t2 = Instant::now();
    let kept = Pixels {
        bytes: &state.labels,
        size,
        channels: 1,
    };
    let out = parts
        .iter()
        .map(|part| {
            let sub = view.part(*part);
            let at = sub.origin_px.map(|v| v as usize);
            let wh = [sub.width_px as usize, sub.height_px as usize];
            let seg = Segmentation {
                width: wh[0],
                height: wh[1],
                labels: cut_px(&kept, at, wh),
                table_hue: state.globals.hue,
            };
            (
                cut(&state.top, sub.origin_px, [sub.width_px, sub.height_px]),
                seg,
            )
        })
        .collect();
    timings.undistort_rectify += ms_since(t2);
    Ok((out, drifted))
}

/// An image's bytes: `size` pixels of `channels` bytes each, row-major.
struct Pixels<'a> {
    bytes: &'a [u8],
    size: [usize; 2],
    channels: usize,
}

/// Copies `from` into `into` (of `into_size` pixels of `from`'s channels)
/// with its corner at pixel `at`; `only` (in `from`'s pixels, ends
/// exclusive) copies that rectangle of it alone. What falls outside `into`
/// is left out.
fn paste_px(
    into: &mut [u8],
    into_size: [usize; 2],
    from: &Pixels<'_>,
    at: [usize; 2],
    only: Option<[usize; 4]>,
) {
    let ([iw, ih], [fw, fh], c) = (into_size, from.size, from.channels);
    let [x0, y0, x1, y1] = only.unwrap_or([0, 0, fw, fh]);
    let (x1, y1) = (
        x1.min(fw).min(iw.saturating_sub(at[0])),
        y1.min(fh).min(ih.saturating_sub(at[1])),
    );
    if x0 >= x1 {
        return;
    }
    for j in y0..y1 {
        let d = c * ((at[1] + j) * iw + at[0] + x0);
        let s = c * (j * fw + x0);
        into[d..d + c * (x1 - x0)].copy_from_slice(&from.bytes[s..s + c * (x1 - x0)]);
    }
}

/// The `size` pixels of `from` with their corner at `at` (zero where they
/// fall outside `from`).
fn cut_px(from: &Pixels<'_>, at: [usize; 2], size: [usize; 2]) -> Vec<u8> {
    let ([fw, fh], c) = (from.size, from.channels);
    let ([x, y], [w, h]) = (at, size);
    let mut out = vec![0u8; c * w * h];
    if x < fw && y < fh {
        let n = w.min(fw - x);
        for j in 0..h.min(fh - y) {
            let s = c * ((y + j) * fw + x);
            out[c * j * w..c * (j * w + n)].copy_from_slice(&from.bytes[s..s + c * n]);
        }
    }
    out
}

/// Copies `from` into `into` with its corner at pixel `at` (what falls
/// outside `into` is left out).
fn paste(into: &mut RgbImage, from: &RgbImage, at: [u32; 2]) {
    let size = [into.width() as usize, into.height() as usize];
    let from = Pixels {
        bytes: from.as_raw(),
        size: [from.width() as usize, from.height() as usize],
        channels: 3,
    };
    paste_px(into, size, &from, [at[0] as usize, at[1] as usize], None);
}

/// The `size` pixels of `from` with their corner at `at` (black where they
/// fall outside `from`).
fn cut(from: &RgbImage, at: [u32; 2], size: [u32; 2]) -> RgbImage {
    let from = Pixels {
        bytes: from.as_raw(),
        size: [from.width() as usize, from.height() as usize],
        channels: 3,
    };
    let bytes = cut_px(
        &from,
        [at[0] as usize, at[1] as usize],
        [size[0] as usize, size[1] as usize],
    );
    RgbImage::from_raw(size[0], size[1], bytes).unwrap_or_else(|| RgbImage::new(size[0], size[1]))
}

/// Forgets the components known to give nothing with a pixel in a change
/// cell that changed (`cw` cells across, `cell_view_px` a side).
fn forget_changed(barren: &mut Vec<Barren>, changed: &[bool], cw: usize, cell_view_px: f64) {
    if barren.is_empty() || cw == 0 || cell_view_px <= 0.0 {
        return;
    }
    let ch = changed.len() / cw;
    let cell = |px: usize| (px as f64 / cell_view_px).floor() as usize;
    let changed_at = |i: usize, j: usize| i < cw && j < ch && changed[j * cw + i];
    barren.retain(|b| {
        // The pixels are looked at only where a cell of the box changed.
        let [i0, j0, i1, j1] = b.bbox.map(cell);
        let any_in_box = (j0..=j1).any(|j| (i0..=i1).any(|i| changed_at(i, j)));
        !(any_in_box && b.pixels().any(|p| changed_at(cell(p[0]), cell(p[1]))))
    });
}

/// Whether the component of `label` with these pixels (whole top-view
/// pixels) is one known to give nothing: all but a few of its pixels on
/// one's.
fn is_known_barren(barren: &[Barren], label: u8, pixels: &[[usize; 2]]) -> bool {
    let Some(bbox) = pixel_box(pixels) else {
        return false;
    };
    let need = (BARREN_MIN_SHARE * pixels.len() as f64).ceil() as usize;
    // Only one whose box meets the pixels' box can hold them.
    barren.iter().any(|b| {
        b.label == label
            && boxes_meet(&b.bbox, &bbox)
            && pixels.iter().filter(|p| b.holds(**p)).count() >= need
    })
}

/// The box (inclusive) of pixels, columns and rows; `None` for none.
fn pixel_box(pixels: &[[usize; 2]]) -> Option<[usize; 4]> {
    let first = pixels.first()?;
    Some(
        pixels
            .iter()
            .fold([first[0], first[1], first[0], first[1]], |b, p| {
                [
                    b[0].min(p[0]),
                    b[1].min(p[1]),
                    b[2].max(p[0]),
                    b[3].max(p[1]),
                ]
            }),
    )
}

/// Whether two boxes (ends inclusive) share a pixel.
fn boxes_meet(a: &[usize; 4], b: &[usize; 4]) -> bool {
    a[0] <= b[2] && b[0] <= a[2] && a[1] <= b[3] && b[1] <= a[3]
}

/// Learns from components just fitted: one that gave a figure is no longer
/// known to give nothing (nor is any of its colour it overlaps); one that
/// gave none is remembered, joined with those of its colour it meets
/// (pieces of one patch cut by parts' edges).
fn learn_barren(barren: &mut Vec<Barren>, fitted: &[FittedComponent]) {
    for c in fitted.iter().filter(|c| c.found > 0) {
        barren.retain(|b| b.label != c.label || !boxes_meet(&b.bbox, &c.bbox));
    }
    for c in fitted.iter().filter(|c| c.found == 0) {
        if is_known_barren(barren, c.label, &c.pixels) {
            continue;
        }
        let Some(mut new) = Barren::new(c) else {
            continue;
        };
        let (meet, rest): (Vec<Barren>, Vec<Barren>) = std::mem::take(barren)
            .into_iter()
            .partition(|b| b.label == new.label && b.meets(&new));
        for b in &meet {
            new = new.union(b);
        }
        *barren = rest;
        barren.push(new);
    }
    if barren.len() > MAX_BARREN {
        let extra = barren.len() - MAX_BARREN;
        barren.drain(..extra);
    }
}

fn ms_since(t: Instant) -> f64 {
    t.elapsed().as_secs_f64() * 1e3
}

fn add_timings(sum: &mut StageTimings, t: &StageTimings) {
    sum.markers += t.markers;
    sum.undistort_rectify += t.undistort_rectify;
    sum.segmentation += t.segmentation;
    sum.fitting += t.fitting;
    sum.classification += t.classification;
    sum.total += t.total;
}

/// How the change cells sample the frame: per cell, the bilinear taps of
/// its coarse-view pixels (the coarse maps read once, when the table is
/// understood whole, instead of on every frame).
struct CellSamples {
    /// Per cell, the range of its samples: `start[k]..start[k + 1]`.
    start: Vec<usize>,
    /// Per sample, the byte offset of the frame pixel it reads first
    /// (`None`: it reads outside the frame) and its four weights.
    taps: Vec<Option<(usize, [u16; 4])>>,
    /// The frame's row, bytes.
    stride: usize,
    /// Per cell, the frame pixels its samples read: min x, min y, max x,
    /// max y (inclusive).
    reach: Vec<[i32; 4]>,
}

impl CellSamples {
    fn new(maps: &FixedMaps, cell: usize, [cw, ch]: [usize; 2], [fw, fh]: [u32; 2]) -> Self {
        let (w, h) = (maps.width() as usize, maps.height() as usize);
        let cell = cell.max(1);
        let mut start = Vec::with_capacity(cw * ch + 1);
        let mut taps = Vec::with_capacity(w * h);
        let mut reach = Vec::with_capacity(cw * ch);
        for cj in 0..ch {
            for ci in 0..cw {
                start.push(taps.len());
                let mut r = [i32::MAX, i32::MAX, i32::MIN, i32::MIN];
                for j in cj * cell..((cj + 1) * cell).min(h) {
                    for i in ci * cell..((ci + 1) * cell).min(w) {
                        let k = j * w + i;
                        let (x, y) = maps.source_px(k);
                        r = [r[0].min(x), r[1].min(y), r[2].max(x + 1), r[3].max(y + 1)];
                        taps.push(maps.taps(k, fw, fh));
                    }
                }
                reach.push(r);
            }
        }
        start.push(taps.len());
        Self {
            start,
            taps,
            stride: 3 * fw as usize,
            reach,
        }
    }

    /// Cell `k`'s mean colour on `raw` (the frame's bytes); `None` where a
    /// sample reads outside the frame.
    fn mean(&self, raw: &[u8], k: usize) -> Option<[f32; 3]> {
        let taps = &self.taps[self.start[k]..self.start[k + 1]];
        let mut sum = [0u32; 3];
        for t in taps {
            let (at, w) = (*t)?;
            let top = raw.get(at..at + 6)?;
            let below = raw.get(at + self.stride..at + self.stride + 6)?;
            for c in 0..3 {
                sum[c] += u32::from(top[c]) * u32::from(w[0])
                    + u32::from(top[c + 3]) * u32::from(w[1])
                    + u32::from(below[c]) * u32::from(w[2])
                    + u32::from(below[c + 3]) * u32::from(w[3]);
            }
        }
        let scale = (taps.len().max(1) as u32 * cv::FIXED_SAMPLE_ONE) as f32;
        (!taps.is_empty()).then(|| sum.map(|v| v as f32 / scale))
    }
}

/// The mean colour of each change cell of the frame's coarse top view;
/// `None` where a sample reads outside the photo. With `since` (the
/// frame's changes and the serial of the last frame measured), a cell whose
/// pixels were made on no later frame keeps its last colour unread.
fn coarse_cells(
    frame: &RgbImage,
    state: &State,
    since: Option<(&FrameChanges, u64)>,
) -> Vec<Option<[f32; 3]>> {
    let cells = &state.samples;
    let made = since.and_then(|(c, serial)| {
        let corners = state
            .sum_corners
            .as_ref()
            .filter(|k| k.0 == (c.cell_px, c.cols, c.rows))?;
        Some((&corners.1, c.made_after(serial)))
    });
    let unmade = |k: usize| -> bool {
        let Some((corners, sums)) = &made else {
            return false;
        };
        if state.last_cells.len() != state.cw * state.ch {
            return false;
        }
        let [a, b, c, d] = corners[k];
        sums[a] + sums[b] == sums[c] + sums[d]
    };
    let raw = frame.as_raw();
    (0..state.cw * state.ch)
        .map(|k| {
            if unmade(k) {
                state.last_cells[k]
            } else {
                cells.mean(raw, k)
            }
        })
        .collect()
}

/// Per change cell, the four entries of a decoder's table of made cells
/// summed (`FrameChanges::made_after`: `cols + 1` a row) whose
/// difference counts the decoder's cells under the change cell's samples
/// (the sum is unchanged when none was made again): bottom right, top left,
/// top right, bottom left.
fn sum_corners(cells: &CellSamples, c: &FrameChanges) -> Vec<[usize; 4]> {
    let [cw, ch] = c.cell_px.map(|v| v.max(1) as i32);
    let col = |x: i32| (x.div_euclid(cw)).clamp(0, c.cols as i32 - 1) as usize;
    let row = |y: i32| (y.div_euclid(ch)).clamp(0, c.rows as i32 - 1) as usize;
    let s = c.cols + 1;
    cells
        .reach
        .iter()
        .map(|&[x0, y0, x1, y1]| {
            let (i0, i1, j0, j1) = (col(x0), col(x1) + 1, row(y0), row(y1) + 1);
            [j1 * s + i1, j0 * s + i0, j0 * s + i1, j1 * s + i0]
        })
        .collect()
}

/// Per channel, the median ratio of the frame's cells to the reference's:
/// the exposure and white-balance drift since the reference.
fn exposure_gain(reference: &[Option<[f32; 3]>], now: &[Option<[f32; 3]>]) -> [f32; 3] {
    let mut gain = [1.0f32; 3];
    for (c, g) in gain.iter_mut().enumerate() {
        let mut ratios: Vec<f32> = reference
            .iter()
            .zip(now)
            .filter_map(|(r, n)| match (r, n) {
                (Some(r), Some(n)) if r[c] >= 16.0 => Some(n[c] / r[c]),
                _ => None,
            })
            .collect();
        if ratios.is_empty() {
            continue;
        }
        let mid = ratios.len() / 2;
        let (_, m, _) = ratios.select_nth_unstable_by(mid, f32::total_cmp);
        *g = m.clamp(0.25, 4.0);
    }
    gain
}

/// Cells whose colour, brought back by the exposure gain, differs from the
/// reference; a cell that came into or left the photo counts as changed.
fn changed_cells(
    reference: &[Option<[f32; 3]>],
    now: &[Option<[f32; 3]>],
    gain: [f32; 3],
    p: &IncrementalParams,
) -> Vec<bool> {
    reference
        .iter()
        .zip(now)
        .map(|(r, n)| match (r, n) {
            (Some(r), Some(n)) => {
                let top = r[0].max(r[1]).max(r[2]);
                let limit = p.change_level + p.change_share * top;
                (0..3).any(|c| (n[c] / gain[c] - r[c]).abs() > limit)
            }
            (None, None) => false,
            _ => true,
        })
        .collect()
}

/// Marks the change cells within `radius_in` of a table point.
fn mark_disc(changed: &mut [bool], state: &State, c: Point2<f64>, radius_in: f64) {
    let view = &state.coarse_view;
    let cell = changed_cell_px(state);
    let v = view.view_from_table(c);
    let r = radius_in * view.px_per_in;
    let i0 = ((v.x - r) / cell).floor().max(0.0) as usize;
    let j0 = ((v.y - r) / cell).floor().max(0.0) as usize;
    let i1 = (((v.x + r) / cell).ceil().max(0.0) as usize).min(state.cw);
    let j1 = (((v.y + r) / cell).ceil().max(0.0) as usize).min(state.ch);
    for j in j0..j1 {
        for i in i0..i1 {
            changed[j * state.cw + i] = true;
        }
    }
}

/// Side of a change cell in coarse-view pixels, from the state's sizes.
fn changed_cell_px(state: &State) -> f64 {
    f64::from(state.coarse_view.width_px) / state.cw as f64
}

/// A blob of changed cells: how many, and its inclusive bounding box in
/// cells (min column, min row, max column, max row).
struct Blob {
    cells: usize,
    bbox: [usize; 4],
}

/// 8-connected blobs of changed cells.
fn blobs(changed: &[bool], w: usize, h: usize) -> Vec<Blob> {
    let mut seen = vec![false; changed.len()];
    let mut out = Vec::new();
    let mut stack = Vec::new();
    for start in 0..changed.len() {
        if !changed[start] || seen[start] {
            continue;
        }
        seen[start] = true;
        stack.push(start);
        let mut blob = Blob {
            cells: 0,
            bbox: [usize::MAX, usize::MAX, 0, 0],
        };
        while let Some(k) = stack.pop() {
            let (i, j) = (k % w, k / w);
            blob.cells += 1;
            blob.bbox = [
                blob.bbox[0].min(i),
                blob.bbox[1].min(j),
                blob.bbox[2].max(i),
                blob.bbox[3].max(j),
            ];
            for nj in j.saturating_sub(1)..=(j + 1).min(h - 1) {
                for ni in i.saturating_sub(1)..=(i + 1).min(w - 1) {
                    let n = nj * w + ni;
                    if changed[n] && !seen[n] {
                        seen[n] = true;
                        stack.push(n);
                    }
                }
            }
        }
        out.push(blob);
    }
    out
}

/// A rectangle of view pixels (floats, ends exclusive) rounded outward
/// and clamped to the view.
fn clamp_rect(r: [f64; 4], view: &TopView) -> [u32; 4] {
    let (w, h) = (f64::from(view.width_px), f64::from(view.height_px));
    [
        r[0].floor().clamp(0.0, w) as u32,
        r[1].floor().clamp(0.0, h) as u32,
        r[2].ceil().clamp(0.0, w) as u32,
        r[3].ceil().clamp(0.0, h) as u32,
    ]
}

fn area(r: &[u32; 4]) -> u64 {
    u64::from(r[2].saturating_sub(r[0])) * u64::from(r[3].saturating_sub(r[1]))
}

/// `r` grown by `pad` on every side (saturating at zero).
fn padded(r: &[u32; 4], pad: u32) -> [u32; 4] {
    [
        r[0].saturating_sub(pad),
        r[1].saturating_sub(pad),
        r[2] + pad,
        r[3] + pad,
    ]
}

/// Merges rectangles whose padded parts overlap when one part round both
/// costs no more than the two apart; also drops empty ones.
fn merge_rects(mut rects: Vec<[u32; 4]>, pad: u32) -> Vec<[u32; 4]> {
    rects.retain(|r| area(r) > 0);
    loop {
        let mut merged = false;
        'outer: for a in 0..rects.len() {
            for b in a + 1..rects.len() {
                let (ra, rb) = (rects[a], rects[b]);
                let u = [
                    ra[0].min(rb[0]),
                    ra[1].min(rb[1]),
                    ra[2].max(rb[2]),
                    ra[3].max(rb[3]),
                ];
                let (pa, pb, pu) = (padded(&ra, pad), padded(&rb, pad), padded(&u, pad));
                let overlap = pa[0] < pb[2] && pb[0] < pa[2] && pa[1] < pb[3] && pb[1] < pa[3];
                if overlap && area(&pu) <= area(&pa) + area(&pb) {
                    rects[a] = u;
                    rects.swap_remove(b);
                    merged = true;
                    break 'outer;
                }
            }
        }
        if !merged {
            return rects;
        }
    }
}

/// Whether a table point lies in a rectangle of view pixels.
fn inside(view: &TopView, r: &[u32; 4], c: Point2<f64>) -> bool {
    let v = view.view_from_table(c);
    // Pixel i covers [i - 0.5, i + 0.5).
    v.x >= f64::from(r[0]) - 0.5
        && v.x < f64::from(r[2]) - 0.5
        && v.y >= f64::from(r[1]) - 0.5
        && v.y < f64::from(r[3]) - 0.5
}

/// The frame's colours at points round a base's band (on the plane of the
/// base tops), nearest pixel.
fn band_samples(
    frame: &RgbImage,
    ctx: &FrameContext,
    detector: &Detector,
    lens: Option<&Lens>,
    c: Point2<f64>,
) -> Vec<Option<[f32; 3]>> {
    let kit = &detector.params().kit;
    let r = kit.foot_diameter_in / 2.0 - kit.band_width_in / 2.0;
    (0..BAND_SAMPLES)
        .map(|s| {
            let a = std::f64::consts::TAU * s as f64 / BAND_SAMPLES as f64;
            let t = c + nalgebra::Vector2::new(a.cos(), a.sin()) * r;
            let p = ctx.pose.pixel_from_table_at(t, kit.base_height_in, lens);
            let (x, y) = (p.x.round(), p.y.round());
            (x >= 0.0 && y >= 0.0 && x < f64::from(frame.width()) && y < f64::from(frame.height()))
                .then(|| frame.get_pixel(x as u32, y as u32).0.map(f32::from))
        })
        .collect()
}

/// Whether the band samples now differ from those at the fit, on average
/// over the samples seen both times, by more than `level` after the gain.
fn band_differs(
    then: &[Option<[f32; 3]>],
    now: &[Option<[f32; 3]>],
    gain: [f32; 3],
    level: f32,
) -> bool {
    let mut sum = 0.0;
    let mut n = 0usize;
    for (a, b) in then.iter().zip(now) {
        if let (Some(a), Some(b)) = (a, b) {
            sum += (0..3).map(|c| (b[c] / gain[c] - a[c]).abs()).sum::<f32>() / 3.0;
            n += 1;
        }
    }
    n > 0 && sum / n as f32 > level
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A fitted component of `label` that gave `found` figures, from its
    /// pixels.
    fn fitted(label: u8, found: usize, pixels: Vec<[usize; 2]>) -> FittedComponent {
        FittedComponent {
            label,
            bbox: pixel_box(&pixels).expect("pixels"),
            found,
            pixels: if found == 0 { pixels } else { Vec::new() },
        }
    }

    /// The pixels of an L-shaped hedge: a bar 60 px long and 6 wide along
    /// the top, and one 6 wide down the left (the whole view's pixels).
    fn hedge() -> Vec<[usize; 2]> {
        let mut v = Vec::new();
        for j in 100..160 {
            for i in 200..260 {
                if j < 106 || i < 206 {
                    v.push([i, j]);
                }
            }
        }
        v
    }

    /// A ring of a base's band, 10 px across, centred at (x, y).
    fn ring(x: usize, y: usize) -> Vec<[usize; 2]> {
        let mut v = Vec::new();
        for j in y - 10..=y + 10 {
            for i in x - 10..=x + 10 {
                let d = ((i as f64 - x as f64).powi(2) + (j as f64 - y as f64).powi(2)).sqrt();
                if (7.0..=10.0).contains(&d) {
                    v.push([i, j]);
                }
            }
        }
        v
    }

    #[test]
    fn terrain_that_gave_nothing_is_known_by_its_pixels_not_its_box() {
        let mut barren = Vec::new();
        learn_barren(&mut barren, &[fitted(1, 0, hedge())]);
        let memory = BarrenMemory {
            known: &barren,
            sweep: None,
            skipped: std::cell::Cell::new(0),
        };
        // A piece of it, cut by a part's edge, with a pixel of noise at its
        // edge: known.
        let mut piece: Vec<[usize; 2]> = hedge().into_iter().filter(|p| p[0] < 230).collect();
        piece.push([231, 107]);
        assert!(memory.may_be(1, [200, 100, 231, 159]));
        assert!(memory.is(1, &piece));
        // A base of its colour standing in the corner the hedge makes:
        // inside its box, on other pixels; it is fitted.
        let base = ring(230, 130);
        assert!(memory.may_be(1, [220, 120, 240, 140]));
        assert!(!memory.is(1, &base));
        // Another colour on the hedge's pixels: not the hedge.
        assert!(!memory.may_be(2, [200, 100, 231, 159]));
        assert!(!memory.is(2, &piece));
        assert_eq!(memory.skipped.get(), 1);
        // Where the sweep looks, nothing is known.
        let swept = BarrenMemory {
            known: &barren,
            sweep: Some([220, 90, 300, 110]),
            skipped: std::cell::Cell::new(0),
        };
        assert!(!swept.may_be(1, [200, 100, 231, 159]));
        assert!(swept.may_be(1, [200, 120, 205, 159]));
    }

    #[test]
    fn pieces_cut_by_parts_join_and_a_figure_found_there_forgets_them() {
        let left: Vec<[usize; 2]> = hedge().into_iter().filter(|p| p[0] < 230).collect();
        let right: Vec<[usize; 2]> = hedge().into_iter().filter(|p| p[0] >= 225).collect();
        let mut barren = Vec::new();
        learn_barren(&mut barren, &[fitted(1, 0, left)]);
        learn_barren(&mut barren, &[fitted(1, 0, right)]);
        assert_eq!(barren.len(), 1, "two pieces of one hedge are one");
        assert!(is_known_barren(&barren, 1, &hedge()));
        // A piece of another colour that meets it is its own.
        learn_barren(&mut barren, &[fitted(3, 0, ring(300, 300))]);
        assert_eq!(barren.len(), 2);
        // The hedge fitted again gave a figure (one placed against it
        // joins it): no longer known.
        learn_barren(&mut barren, &[fitted(1, 1, hedge())]);
        assert_eq!(barren.len(), 1);
        assert!(!is_known_barren(&barren, 1, &hedge()));
        assert!(is_known_barren(&barren, 3, &ring(300, 300)));
    }

    #[test]
    fn a_changed_cell_on_its_pixels_forgets_terrain_one_beside_them_does_not() {
        // Cells of 8 px, 50 across.
        let (cw, cell) = (50, 8.0);
        let mut changed = vec![false; cw * 40];
        let mut barren = Vec::new();
        learn_barren(&mut barren, &[fitted(1, 0, hedge())]);
        // In the hedge's box, in its corner, away from its bars (cell
        // (28, 16): pixels 224-231, 128-135).
        changed[16 * cw + 28] = true;
        forget_changed(&mut barren, &changed, cw, cell);
        assert_eq!(barren.len(), 1);
        // On its top bar (cell (28, 12): pixels 224-231, 96-103).
        changed[12 * cw + 28] = true;
        forget_changed(&mut barren, &changed, cw, cell);
        assert!(barren.is_empty());
    }

    #[test]
    fn cells_made_after_a_serial_are_counted_by_rectangle() {
        let c = FrameChanges {
            stream: 1,
            serial: 5,
            cell_px: [16, 8],
            cols: 3,
            rows: 2,
            made_at: vec![1, 5, 2, 3, 4, 5],
        };
        // Made after frame 3: the second of the first row, the last two of
        // the second.
        let s = c.made_after(3);
        let w = c.cols + 1;
        assert_eq!(s[2 * w + 3], 3, "all");
        assert_eq!(s[w + 3], 1, "first row");
        assert_eq!(s[2 * w + 1], 0, "first column");
        assert_eq!(
            s[2 * w + 3] - s[2 * w + 1] - s[3] + s[1],
            3,
            "last two columns"
        );
        assert!(c.fits([48, 16]));
        assert!(!c.fits([49, 16]), "a frame wider than the cells");
    }

    #[test]
    fn rects_merge_only_when_one_part_costs_no_more() {
        // Side by side: one part round both is cheaper.
        let merged = merge_rects(vec![[0, 0, 10, 10], [12, 0, 22, 10]], 10);
        assert_eq!(merged, vec![[0, 0, 22, 10]]);
        // Diagonal and apart: two parts.
        let apart = merge_rects(vec![[0, 0, 10, 10], [40, 40, 50, 50]], 10);
        assert_eq!(apart.len(), 2);
        // Empty ones go.
        assert!(merge_rects(vec![[5, 5, 5, 9]], 3).is_empty());
    }

    #[test]
    fn drift_of_exposure_is_not_a_change_but_a_new_colour_is() {
        let reference: Vec<Option<[f32; 3]>> = (0..100)
            .map(|k| Some([60.0 + (k % 7) as f32, 120.0, 40.0 + (k % 3) as f32]))
            .collect();
        // 15% brighter, red 5% more again: nothing changed.
        let mut now: Vec<Option<[f32; 3]>> = reference
            .iter()
            .map(|c| c.map(|c| [c[0] * 1.2, c[1] * 1.15, c[2] * 1.15]))
            .collect();
        let p = IncrementalParams::default();
        let gain = exposure_gain(&reference, &now);
        assert!(changed_cells(&reference, &now, gain, &p).iter().all(|c| !c));
        // A red base put down on one cell.
        now[42] = Some([200.0, 40.0, 40.0]);
        let gain = exposure_gain(&reference, &now);
        let changed = changed_cells(&reference, &now, gain, &p);
        assert_eq!(
            changed
                .iter()
                .enumerate()
                .filter(|(_, c)| **c)
                .map(|(k, _)| k)
                .collect::<Vec<_>>(),
            vec![42]
        );
    }

    #[test]
    fn a_part_is_cut_from_the_kept_view_and_made_pixels_go_back_in_place() {
        let view = RgbImage::from_fn(30, 20, |x, y| image::Rgb([x as u8, y as u8, 7]));
        let part = cut(&view, [4, 6], [10, 5]);
        assert_eq!(part.dimensions(), (10, 5));
        assert_eq!(part.get_pixel(0, 0).0, [4, 6, 7]);
        assert_eq!(part.get_pixel(9, 4).0, [13, 10, 7]);
        // Past the view's edge the cut is black.
        let edge = cut(&view, [25, 18], [10, 5]);
        assert_eq!(edge.get_pixel(4, 1).0, [29, 19, 7]);
        assert_eq!(edge.get_pixel(5, 1).0, [0, 0, 0]);
        assert_eq!(edge.get_pixel(4, 2).0, [0, 0, 0]);
        // Pasting back a changed part changes those pixels only.
        let mut kept = view.clone();
        let made = RgbImage::from_pixel(10, 5, image::Rgb([200, 100, 50]));
        paste(&mut kept, &made, [25, 18]);
        for (x, y, p) in kept.enumerate_pixels() {
            let inside = x >= 25 && y >= 18;
            let want = if inside {
                [200, 100, 50]
            } else {
                view.get_pixel(x, y).0
            };
            assert_eq!(p.0, want, "({x}, {y})");
        }
    }

    #[test]
    fn the_kept_view_is_made_again_where_the_exposure_drifted_since() {
        // 8-pixel cells over a 30 x 20 view: 4 x 3 cells, cut short on the
        // right and at the bottom.
        let cells = ViewCells {
            cell_px: 8.0,
            across: 4,
            down: 3,
            view: [30, 20],
        };
        assert_eq!(cells.covered([4, 0, 20, 16]), [1, 0, 2, 2]);
        assert_eq!(cells.met([4, 0, 20, 16]), [0, 0, 3, 2]);
        // A rectangle to the view's edge covers the short cells too.
        assert_eq!(cells.covered([16, 8, 30, 20]), [2, 1, 4, 3]);
        let mut made = vec![[1.0f32; 6]; 12];
        let now = gains([1.05, 1.0, 1.0], [1.0; 3]);
        assert!(cells.made_at_other_gain(&made, [0, 0, 30, 20], now, 0.02));
        assert!(!cells.made_at_other_gain(&made, [0, 0, 30, 20], now, 0.06));
        // Pixels made at this frame's gain over cells [1, 2) x [0, 2): a
        // part over those cells alone needs nothing made.
        cells.set_made(&mut made, [4, 0, 20, 16], now);
        assert!(!cells.made_at_other_gain(&made, [8, 0, 16, 16], now, 0.02));
        // One reaching a cell only partly made is made again.
        assert!(cells.made_at_other_gain(&made, [8, 0, 17, 16], now, 0.02));
        // A cell never made (infinite gain) is never taken for made.
        made[0] = [f32::INFINITY; 6];
        assert!(cells.made_at_other_gain(&made, [0, 0, 1, 1], [1.0; 6], 0.5));
        // A white balance that moved (the exposure gain the same) makes the
        // kept labels stale too.
        let rebalanced = gains([1.05, 1.0, 1.0], [1.0, 1.0, 1.04]);
        assert!(cells.made_at_other_gain(&made, [8, 0, 16, 16], rebalanced, 0.02));
        assert!(!cells.made_at_other_gain(&made, [8, 0, 16, 16], rebalanced, 0.05));
    }

    #[test]
    fn blobs_are_eight_connected() {
        let w = 5;
        let mut c = vec![false; 25];
        for k in [0, 6, 12, 4, 9] {
            c[k] = true;
        }
        let b = blobs(&c, w, 5);
        let mut sizes: Vec<usize> = b.iter().map(|b| b.cells).collect();
        sizes.sort_unstable();
        assert_eq!(sizes, vec![2, 3]);
    }
}
