//! The perceiver the app runs on every frame: table markers -> the live
//! table lock -> figures -> identities. Each stage is a small trait so the
//! app can run with what is available (no lens file, no detector) and tests
//! can feed their own.
//!
//! # Conventions
//! Marker corners are image pixels as seen (distorted); detections are table
//! inches in the table frame of `TABLE_KIT.md`.

use std::sync::Arc;
use std::time::{Duration, Instant};

use crossbeam_channel::{Receiver, Sender, bounded};
use image::{GrayImage, RgbImage};

use crate::calibration::{
    self, Lens, LockStatus, MarkerObservation, TableLayout, TableLock, TableMapping,
};
use crate::vision::Detection;
use crate::vision::appearance;
use crate::vision::detect::Detector;
use crate::vision::incremental::{FrameChanges, IncrementalDetector, IncrementalParams};
use crate::vision::params::DetectorParams;
use crate::vision::terrain::SeenTerrain;
use crate::vision::track::{FigureState, FrameObservation, OccludedRegion, Tracker, TrackerParams};

use super::pipeline::{LockSummary, Perceiver, Perception, SeenFigure};

/// Finds the table markers on a grey frame.
pub trait MarkerFinder: Send {
    fn find(&mut self, gray: &GrayImage) -> Result<Vec<MarkerObservation>, String>;
}

/// What a figure detector found on one frame.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct FoundFigures {
    pub detections: Vec<Detection>,
    /// Where hands hide the table; `None` when the detector cannot tell.
    pub occluded_regions_in_table: Option<Vec<OccludedRegion>>,
    /// Terrain pieces seen on the table.
    pub terrain: Vec<SeenTerrain>,
}

/// Finds figures on a frame, given the table mapping.
pub trait FigureDetector: Send {
    fn detect(&mut self, image: &RgbImage, mapping: &TableMapping) -> Result<FoundFigures, String>;
    /// As [`FigureDetector::detect`], told where the pixels may differ from
    /// the earlier frames (a detector that cannot use it detects the frame).
    fn detect_changed(
        &mut self,
        image: &RgbImage,
        mapping: &TableMapping,
        changes: Option<&FrameChanges>,
    ) -> Result<FoundFigures, String> {
        let _ = changes;
        self.detect(image, mapping)
    }
}

/// Gives each detection a stable identity across frames.
pub trait FigureTracker: Send {
    fn track(&mut self, found: FoundFigures) -> Vec<SeenFigure>;
}

/// The table's ArUco markers, found by the calibration module.
pub struct ArucoMarkers {
    pub layout: TableLayout,
    pub lens: Option<Lens>,
}

impl MarkerFinder for ArucoMarkers {
    fn find(&mut self, gray: &GrayImage) -> Result<Vec<MarkerObservation>, String> {
        let lens = self
            .lens
            .as_ref()
            .map(|l| l.for_image([gray.width(), gray.height()]))
            .transpose()
            .map_err(|e| e.to_string())?;
        calibration::detect_table_markers(gray, &self.layout, lens.as_ref())
            .map_err(|e| e.to_string())
    }
}

/// The vision module's figure detector.
pub struct VisionDetector(pub Detector);

impl FigureDetector for VisionDetector {
    fn detect(&mut self, image: &RgbImage, mapping: &TableMapping) -> Result<FoundFigures, String> {
        self.0
            .detect(image, mapping)
            .map(|mut f| {
                appearance::measure_all(image, mapping, &mut f.detections);
                f
            })
            .map(|f| FoundFigures {
                detections: f.detections,
                occluded_regions_in_table: Some(f.occluded_regions_in_table),
                terrain: f.terrain,
            })
            .map_err(|e| e.to_string())
    }
}

/// The vision module's detector run at the cost of what changed (see
/// [`crate::vision::incremental`]): the whole table on the first frame and
/// after a re-lock, then only where the picture changed.
pub struct IncrementalVision(pub IncrementalDetector, pub Vec<Detection>);

impl IncrementalVision {
    pub fn new(detector: IncrementalDetector) -> Self {
        Self(detector, Vec::new())
    }

    /// Each base's look: a figure the detector kept (the very detection of
    /// the last frame: its neighbourhood did not change) keeps the look
    /// measured then; the others are measured on this frame.
    fn measure_looks(&mut self, image: &RgbImage, mapping: &TableMapping, dets: &mut [Detection]) {
        let last = std::mem::take(&mut self.1);
        let mut by_place: std::collections::HashMap<(u64, u64), &Detection> = last
            .iter()
            .map(|d| {
                (
                    (d.center_in_table.x.to_bits(), d.center_in_table.y.to_bits()),
                    d,
                )
            })
            .collect();
        for d in dets.iter_mut() {
            let key = (d.center_in_table.x.to_bits(), d.center_in_table.y.to_bits());
            d.appearance = match by_place.remove(&key) {
                Some(kept)
                    if kept.edge == d.edge
                        && kept.base == d.base
                        && kept.facing_deg == d.facing_deg
                        && kept.confidence == d.confidence =>
                {
                    kept.appearance
                }
                _ => appearance::measure(image, mapping, d),
            };
        }
        self.1 = dets.to_vec();
    }
}

impl FigureDetector for IncrementalVision {
    fn detect(&mut self, image: &RgbImage, mapping: &TableMapping) -> Result<FoundFigures, String> {
        self.detect_changed(image, mapping, None)
    }

    fn detect_changed(
        &mut self,
        image: &RgbImage,
        mapping: &TableMapping,
        changes: Option<&FrameChanges>,
    ) -> Result<FoundFigures, String> {
        let found = self.0.detect_changed(image, mapping, changes);
        found
            .map(|mut f| {
                if matches!(f.work, crate::vision::incremental::FrameWork::Whole(_)) {
                    self.1.clear();
                }
                self.measure_looks(image, mapping, &mut f.detections);
                f
            })
            .map(|f| FoundFigures {
                detections: f.detections,
                occluded_regions_in_table: Some(f.occluded_regions_in_table),
                terrain: f.terrain,
            })
            .map_err(|e| e.to_string())
    }
}

/// Position uncertainty given to a tracked figure not seen on this frame
/// (held, or missed by the detector), inches: its last position may be off
/// by a nudge of the hand.
pub const UNSEEN_SIGMA_IN: f64 = 0.1;

/// The vision module's tracker: identities through moves and hands.
pub struct VisionTracker {
    tracker: Tracker,
    started: Instant,
}

impl VisionTracker {
    pub fn new(tracker: Tracker) -> Self {
        Self {
            tracker,
            started: Instant::now(),
        }
    }
}

impl FigureTracker for VisionTracker {
    fn track(&mut self, found: FoundFigures) -> Vec<SeenFigure> {
        let report = self.tracker.update(&FrameObservation {
            time_s: self.started.elapsed().as_secs_f64(),
            detections: found.detections.clone(),
            occluded_regions_in_table: found.occluded_regions_in_table,
        });
        let detections = found.detections;
        report
            .figures
            .into_iter()
            .filter(|f| f.state == FigureState::OnTable)
            .map(|f| {
                // The detection the track took this frame, for its
                // confidence and uncertainty.
                let seen = detections
                    .iter()
                    .filter(|d| f.seen && d.edge == f.edge)
                    .min_by(|a, b| {
                        (a.center_in_table - f.center_in_table)
                            .norm()
                            .total_cmp(&(b.center_in_table - f.center_in_table).norm())
                    });
                SeenFigure {
                    id: f.id.0,
                    ambiguous_with: f.ambiguous_with.map(|o| o.0),
                    detection: Detection {
                        center_in_table: f.center_in_table,
                        facing_deg: f.facing_deg,
                        edge: f.edge,
                        base: f.base,
                        confidence: seen.map_or(0.0, |d| d.confidence),
                        position_sigma_in: seen.map_or(UNSEEN_SIGMA_IN, |d| d.position_sigma_in),
                        appearance: seen.and_then(|d| d.appearance),
                        side: seen.map(|d| d.side).unwrap_or_default(),
                    },
                }
            })
            .collect()
    }
}

/// Without a tracker, a figure is known by its place in the frame's list.
pub struct NoTracker;

impl FigureTracker for NoTracker {
    fn track(&mut self, found: FoundFigures) -> Vec<SeenFigure> {
        found
            .detections
            .into_iter()
            .zip(0_u32..)
            .map(|(detection, id)| SeenFigure {
                id,
                detection,
                ambiguous_with: None,
            })
            .collect()
    }
}

/// How often the table markers are looked for once the table is locked.
/// The lock only has to notice a moved camera; figures are found on every
/// frame against the locked mapping.
pub const MARKER_CHECK_INTERVAL: Duration = Duration::from_millis(500);

/// Where the marker search runs.
pub enum MarkerSearch {
    /// On every frame, on the perception thread (tests, single images).
    EveryFrame(Box<dyn MarkerFinder>),
    /// On a thread of its own, every [`MARKER_CHECK_INTERVAL`] once locked
    /// (as often as it can before), so it never holds up a frame.
    Background(MarkerThread),
}

/// The marker search on its own thread.
pub struct MarkerThread {
    frames: Sender<GrayImage>,
    results: Receiver<Result<Vec<MarkerObservation>, String>>,
    busy: bool,
    last_submit: Option<Instant>,
}

impl MarkerThread {
    pub fn spawn(mut finder: Box<dyn MarkerFinder>) -> std::io::Result<Self> {
        let (frames, frames_rx) = bounded::<GrayImage>(1);
        let (results_tx, results) = bounded(1);
        std::thread::Builder::new()
            .name("markers".into())
            .spawn(move || {
                for gray in frames_rx {
                    if results_tx.send(finder.find(&gray)).is_err() {
                        return;
                    }
                }
            })?;
        Ok(Self {
            frames,
            results,
            busy: false,
            last_submit: None,
        })
    }

    /// Hands the frame over when a search is due; returns a finished
    /// search's result when there is one.
    fn poll(
        &mut self,
        image: &RgbImage,
        locked: bool,
    ) -> Option<Result<Vec<MarkerObservation>, String>> {
        let result = match self.results.try_recv() {
            Ok(r) => {
                self.busy = false;
                Some(r)
            }
            Err(_) => None,
        };
        let due = self
            .last_submit
            .is_none_or(|t| !locked || t.elapsed() >= MARKER_CHECK_INTERVAL);
        if !self.busy && due {
            let gray = image::imageops::grayscale(image);
            if self.frames.try_send(gray).is_ok() {
                self.busy = true;
                self.last_submit = Some(Instant::now());
            }
        }
        result
    }
}

/// Markers, lock, detector and tracker, in that order.
pub struct TablePerceiver {
    pub lock: TableLock,
    markers: MarkerSearch,
    detector: Option<Box<dyn FigureDetector>>,
    tracker: Box<dyn FigureTracker>,
    /// The newest marker search: what it found and what went wrong.
    last_markers: Vec<MarkerObservation>,
    markers_found: Vec<u32>,
    lock_problem: Option<String>,
}

impl TablePerceiver {
    pub fn new(
        lock: TableLock,
        markers: MarkerSearch,
        detector: Option<Box<dyn FigureDetector>>,
        tracker: Box<dyn FigureTracker>,
    ) -> Self {
        Self {
            lock,
            markers,
            detector,
            tracker,
            last_markers: Vec::new(),
            markers_found: Vec::new(),
            lock_problem: Some("looking for the table markers".into()),
        }
    }

    fn summary(&self) -> LockSummary {
        let layout: &TableLayout = &self.lock.layout;
        LockSummary {
            markers_found: self.markers_found.clone(),
            markers_expected: layout.markers.iter().map(|m| m.id).collect(),
            table_in: [layout.width_in, layout.depth_in],
            locked: self.lock.locked.clone(),
            camera_moved: self.lock.camera_moved,
            moved_px: self.lock.moved_px,
            problem: self.lock_problem.clone(),
        }
    }

    fn take_markers(&mut self, found: Result<Vec<MarkerObservation>, String>) {
        match found {
            Ok(markers) => {
                let (ids, problem) = match self.lock.update(&markers) {
                    LockStatus::Fitted { markers_found } => (markers_found, None),
                    LockStatus::KeptLast {
                        markers_found,
                        reason,
                    } => (
                        markers_found,
                        Some(format!("kept the last table lock: {reason}")),
                    ),
                    LockStatus::NoMapping { reason } => (Vec::new(), Some(reason)),
                };
                self.markers_found = ids;
                self.lock_problem = problem;
                self.last_markers = markers;
            }
            Err(e) => {
                self.markers_found.clear();
                self.last_markers.clear();
                self.lock_problem = Some(format!("marker detection failed: {e}"));
            }
        }
    }
}

impl Perceiver for TablePerceiver {
    fn perceive(&mut self, image: &RgbImage) -> Perception {
        self.perceive_changed(image, None)
    }

    fn perceive_changed(&mut self, image: &RgbImage, changes: Option<&FrameChanges>) -> Perception {
        let locked = self.lock.locked.is_some();
        let found = match &mut self.markers {
            MarkerSearch::EveryFrame(finder) => {
                Some(finder.find(&image::imageops::grayscale(image)))
            }
            MarkerSearch::Background(thread) => thread.poll(image, locked),
        };
        if let Some(found) = found {
            self.take_markers(found);
        }
        let (figures, terrain, detector_problem) = match (&mut self.detector, &self.lock.locked) {
            (None, _) => (
                Vec::new(),
                Vec::new(),
                Some("no figure detector in this build".to_string()),
            ),
            (Some(_), None) => (Vec::new(), Vec::new(), None),
            (Some(det), Some(mapping)) => match det.detect_changed(image, mapping, changes) {
                Ok(mut d) => {
                    let terrain = std::mem::take(&mut d.terrain);
                    (self.tracker.track(d), terrain, None)
                }
                Err(e) => (
                    Vec::new(),
                    Vec::new(),
                    Some(format!("figure detection failed: {e}")),
                ),
            },
        };
        Perception {
            lock: self.summary(),
            markers: self.last_markers.clone(),
            figures,
            terrain,
            detector_problem,
            work_ms: 0.0,
        }
    }

    fn relock(&mut self) {
        self.lock.relock();
    }
}

/// The marker search on its own thread; on the perception thread when no
/// thread can be started.
fn markers(layout: &TableLayout, lens: Option<&Lens>) -> MarkerSearch {
    let finder = || {
        Box::new(ArucoMarkers {
            layout: layout.clone(),
            lens: lens.cloned(),
        })
    };
    match MarkerThread::spawn(finder()) {
        Ok(t) => MarkerSearch::Background(t),
        Err(_) => MarkerSearch::EveryFrame(finder()),
    }
}

/// The perceiver the app runs: ArUco markers on their own thread, the
/// table lock, the vision detector (incremental) and the tracker.
pub fn standard_factory(
    layout: TableLayout,
    lens: Option<Lens>,
    params: DetectorParams,
    tracker_params: TrackerParams,
) -> Arc<dyn Fn() -> Box<dyn Perceiver> + Send + Sync> {
    Arc::new(move || {
        // The fits of a whole-table detection (the first frame, a re-lock,
        // a hand) are shared with the second core; the capture thread
        // decodes the next frame meanwhile.
        let threads = std::thread::available_parallelism()
            .map_or(1, std::num::NonZeroUsize::get)
            .min(2);
        let detector = Box::new(IncrementalVision::new(IncrementalDetector::new(
            Detector::new(params.clone(), layout.clone()).with_fit_threads(threads),
            IncrementalParams::default(),
        )));
        let tracker: Box<dyn FigureTracker> = match Tracker::new(tracker_params.clone()) {
            Ok(t) => Box::new(VisionTracker::new(t)),
            Err(e) => {
                tracing::warn!("tracker unavailable ({e}); figures are numbered per frame");
                Box::new(NoTracker)
            }
        };
        Box::new(TablePerceiver::new(
            TableLock::new(layout.clone(), lens.clone()),
            markers(&layout, lens.as_ref()),
            Some(detector),
            tracker,
        ))
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::calibration::homography;
    use crate::vision::{BaseKind, EdgeColour};
    use nalgebra::{Matrix3, Point2};

    /// Reports the layout's markers as a fixed camera would see them.
    struct Synthetic {
        layout: TableLayout,
        image_from_table: Matrix3<f64>,
    }
    impl MarkerFinder for Synthetic {
        fn find(&mut self, _gray: &GrayImage) -> Result<Vec<MarkerObservation>, String> {
            Ok(self
                .layout
                .markers
                .iter()
                .map(|m| MarkerObservation {
                    id: m.id,
                    corners_px: m
                        .corners_in_table()
                        .map(|c| homography::apply(&self.image_from_table, c)),
                })
                .collect())
        }
    }

    struct OneFigure;
    impl FigureDetector for OneFigure {
        fn detect(
            &mut self,
            _image: &RgbImage,
            mapping: &TableMapping,
        ) -> Result<FoundFigures, String> {
            Ok(FoundFigures {
                detections: vec![Detection {
                    center_in_table: mapping.table_from_pixel(Point2::new(100.0, 100.0)),
                    facing_deg: None,
                    edge: EdgeColour::Red,
                    base: BaseKind::Foot,
                    confidence: 1.0,
                    position_sigma_in: 0.02,
                    appearance: None,
                    side: Default::default(),
                }],
                occluded_regions_in_table: None,
                terrain: Vec::new(),
            })
        }
    }

    #[test]
    fn locks_the_table_then_detects_in_table_inches() {
        let layout = TableLayout::standard(48.0, 48.0);
        let camera = Matrix3::new(20.0, 0.0, 10.0, 0.0, -20.0, 1000.0, 0.0, 0.0, 1.0);
        let mut p = TablePerceiver::new(
            TableLock::new(layout.clone(), None),
            MarkerSearch::EveryFrame(Box::new(Synthetic {
                layout,
                image_from_table: camera,
            })),
            Some(Box::new(OneFigure)),
            Box::new(NoTracker),
        );
        let seen = p.perceive(&RgbImage::new(4, 4));
        assert_eq!(seen.lock.markers_found, vec![0, 1, 2, 3]);
        assert!(seen.lock.locked.is_some());
        assert_eq!(seen.figures.len(), 1);
        // Pixel (100, 100) is table (4.5, 45) under this camera.
        let c = seen.figures[0].detection.center_in_table;
        approx::assert_relative_eq!(c, Point2::new(4.5, 45.0), epsilon = 1e-6);
    }
}
