//! The table markers of a live camera, followed from frame to frame.
//!
//! A webcam over a table barely moves, so each frame is searched first in a
//! small window around where each layout marker was seen on the last frame
//! (or, for a marker hidden then, where the last mapping puts it); the whole
//! frame is searched only when the windows give fewer than [`MIN_MARKERS`]
//! markers (the first frame, a camera that moved, a cut in the video). The
//! corners come from the same full-size ArUco search and pattern fit as a
//! whole-frame search, so they are as accurate.
//!
//! # Conventions
//! Pixels with the origin at the centre of the top-left pixel, distorted as
//! seen; marker corners in OpenCV order (TL, TR, BR, BL).

use image::{GrayImage, RgbImage};
use nalgebra::Point2;

use super::table::MIN_MARKERS;
use super::{
    CalibrationError, GrayFrame, Lens, MarkerObservation, MarkerSearch, TableLayout, TableMapping,
    bounds_around, cv, fit_marker, markers_in, pattern_window, refine_marker,
};

/// How far a marker may move between two frames and still be found in its
/// window: this share of its side, plus [`WINDOW_MARGIN_PX`].
const WINDOW_MARGIN_SIDES: f64 = 0.5;
const WINDOW_MARGIN_PX: f64 = 8.0;
/// A window narrower than this (pixels, after clipping to the frame) cannot
/// hold a readable marker and is not searched.
const MIN_WINDOW_PX: u32 = 12;

/// Least outline searched in a window, as a share of the marker's last
/// perimeter (a marker does not shrink by half between two frames).
const MIN_PERIMETER_SHARE: f64 = 0.5;

/// How a frame's markers were searched.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SearchKind {
    /// Only in windows around the last known positions.
    Windows,
    /// Over the whole frame.
    Whole,
}

/// Finds the table markers on consecutive frames of one camera.
#[derive(Debug, Clone)]
pub struct MarkerTracker {
    layout: TableLayout,
    /// The lens at its calibrated size (scaled to each frame).
    lens: Option<Lens>,
    search: MarkerSearch,
    frame_size: [u32; 2],
    last: Vec<MarkerObservation>,
    mapping: Option<TableMapping>,
    /// How the newest frame was searched (`None` before the first).
    pub last_search: Option<SearchKind>,
}

impl MarkerTracker {
    pub fn new(layout: TableLayout, lens: Option<Lens>) -> Self {
        Self {
            layout,
            lens,
            search: MarkerSearch::default(),
            frame_size: [0, 0],
            last: Vec::new(),
            mapping: None,
            last_search: None,
        }
    }

    /// Forgets the last positions: the next frame is searched whole.
    pub fn forget(&mut self) {
        self.last.clear();
        self.mapping = None;
    }

    /// The layout markers of a colour frame.
    pub fn find_rgb(&mut self, rgb: &RgbImage) -> Result<Vec<MarkerObservation>, CalibrationError> {
        let mut frame = GrayFrame::Colour {
            rgb,
            gray: GrayImage::new(rgb.width(), rgb.height()),
            whole: false,
        };
        self.find(&mut frame, [rgb.width(), rgb.height()])
    }

    /// The layout markers of a grey frame.
    pub fn find_gray(
        &mut self,
        gray: &GrayImage,
    ) -> Result<Vec<MarkerObservation>, CalibrationError> {
        self.find(&mut GrayFrame::Gray(gray), [gray.width(), gray.height()])
    }

    /// [`MarkerTracker::find_rgb`] and the table mapping fitted on them.
    pub fn table_rgb(&mut self, rgb: &RgbImage) -> Result<TableMapping, CalibrationError> {
        let markers = self.find_rgb(rgb)?;
        let lens = self.lens_for([rgb.width(), rgb.height()])?;
        TableMapping::fit(&markers, &self.layout, lens.as_ref())
    }

    /// The camera file's lens for frames of `size`; a frame of another
    /// shape is refused, naming both sizes.
    fn lens_for(&self, size: [u32; 2]) -> Result<Option<Lens>, CalibrationError> {
        self.lens
            .as_ref()
            .map(|l| l.for_image(size))
            .transpose()
            .map_err(CalibrationError::from)
    }

    fn find(
        &mut self,
        frame: &mut GrayFrame<'_>,
        size: [u32; 2],
    ) -> Result<Vec<MarkerObservation>, CalibrationError> {
        if size != self.frame_size {
            self.forget();
            self.frame_size = size;
        }
        let lens = self.lens_for(size)?;
        let mut found = self.search_windows(frame, size, lens.as_ref())?;
        let mut kind = SearchKind::Windows;
        if found.len() < MIN_MARKERS {
            found = markers_in(frame, &self.layout, lens.as_ref(), &self.search)?;
            kind = SearchKind::Whole;
        }
        self.mapping = TableMapping::fit(&found, &self.layout, lens.as_ref()).ok();
        self.last.clone_from(&found);
        self.last_search = Some(kind);
        Ok(found)
    }

    /// Where each layout marker is expected on this frame: its last corners
    /// (`true`), or where the last mapping puts a marker not seen last time.
    fn expected(&self) -> Vec<(u32, [Point2<f64>; 4], bool)> {
        self.layout
            .markers
            .iter()
            .filter_map(|marker| {
                if let Some(seen) = self.last.iter().find(|o| o.id == marker.id) {
                    return Some((marker.id, seen.corners_px, true));
                }
                let mapping = self.mapping.as_ref()?;
                Some((
                    marker.id,
                    marker
                        .corners_in_table()
                        .map(|t| mapping.pixel_from_table(t)),
                    false,
                ))
            })
            .collect()
    }

    /// The markers found near where they are expected. A marker seen on the
    /// last frame is first fitted where it was (the pattern fit follows a
    /// shift of a pixel or two, and its cells must read as its id); when
    /// that fails, or for a marker not seen last time, ArUco searches a
    /// window around it, which answers only for that marker.
    fn search_windows(
        &self,
        frame: &mut GrayFrame<'_>,
        size: [u32; 2],
        lens: Option<&Lens>,
    ) -> Result<Vec<MarkerObservation>, CalibrationError> {
        let dict = cv::ArucoDictionary::Dict4x4_50;
        let cells = dict.marker_bits() as usize + 2;
        let mut found = Vec::new();
        for (id, corners, seen) in self.expected() {
            if seen {
                let last = MarkerObservation {
                    id,
                    corners_px: corners,
                };
                let window = pattern_window(&last, cells);
                if let Some(m) = fit_marker(frame.gray(Some(window)), &last, lens, true) {
                    found.push(m);
                    continue;
                }
            }
            let side = (0..4)
                .map(|k| (corners[(k + 1) % 4] - corners[k]).norm())
                .fold(0.0, f64::max);
            if !side.is_finite()
                || corners
                    .iter()
                    .any(|p| !(p.x.is_finite() && p.y.is_finite()))
            {
                continue;
            }
            let [x0, y0, x1, y1] =
                bounds_around(&corners, side * WINDOW_MARGIN_SIDES + WINDOW_MARGIN_PX);
            let (x1, y1) = (x1.min(size[0]), y1.min(size[1]));
            if x1 < x0 + MIN_WINDOW_PX || y1 < y0 + MIN_WINDOW_PX {
                continue;
            }
            let gray = frame.gray(Some([x0, y0, x1, y1]));
            let crop = image::imageops::crop_imm(gray, x0, y0, x1 - x0, y1 - y0).to_image();
            let origin = nalgebra::Vector2::new(f64::from(x0), f64::from(y0));
            // Outlines much shorter than the marker's are not it: on a
            // textured mat the small ones are most of the work.
            let tuning = cv::ArucoTuning {
                min_perimeter_rate: MIN_PERIMETER_SHARE * 4.0 * side
                    / f64::from((x1 - x0).max(y1 - y0)),
                ..self.search.full
            };
            let Some(m) = cv::detect_markers_tuned(&crop, dict, &tuning)?
                .into_iter()
                .find(|m| m.id == id)
            else {
                continue;
            };
            let m = MarkerObservation {
                id,
                corners_px: m.corners_px.map(|p| p + origin),
            };
            let window = pattern_window(&m, cells);
            found.push(refine_marker(frame.gray(Some(window)), m, lens));
        }
        Ok(found)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use image::Luma;

    /// A 48 x 36 in table seen straight down at 20 px/in, white, with its
    /// four corner markers drawn at their layout positions (offset by
    /// `shift_px`), `hide` left out.
    fn frame(layout: &TableLayout, shift_px: f64, hide: Option<u32>) -> GrayImage {
        let (s, x_off, y_off) = (20.0, 40.0 + shift_px, 30.0);
        let mut img = GrayImage::from_pixel(1240, 800, Luma([230]));
        for m in &layout.markers {
            if Some(m.id) == hide {
                continue;
            }
            let cells = cv::marker_cells(cv::ArucoDictionary::Dict4x4_50, m.id).unwrap();
            let n = cells.len() as f64;
            let c = m.corners_in_table();
            // Table y up, image y down; the marker's TL corner is c[0].
            let (left, top) = (c[0].x * s + x_off, (layout.depth_in - c[0].y) * s + y_off);
            let cell = m.size_in * s / n;
            for (r, row) in cells.iter().enumerate() {
                for (k, &black) in row.iter().enumerate() {
                    if !black {
                        continue;
                    }
                    let x0 = (left + k as f64 * cell).round() as u32;
                    let y0 = (top + r as f64 * cell).round() as u32;
                    let x1 = (left + (k + 1) as f64 * cell).round() as u32;
                    let y1 = (top + (r + 1) as f64 * cell).round() as u32;
                    for y in y0..y1 {
                        for x in x0..x1 {
                            img.put_pixel(x, y, Luma([25]));
                        }
                    }
                }
            }
        }
        img
    }

    #[test]
    fn windows_follow_the_markers_and_a_hidden_one_is_found_where_the_mapping_puts_it() {
        let layout = TableLayout::standard(48.0, 36.0);
        let mut tracker = MarkerTracker::new(layout.clone(), None);
        let first = frame(&layout, 0.0, None);
        let found = tracker.find_gray(&first).unwrap();
        assert_eq!(found.len(), 4);
        assert_eq!(tracker.last_search, Some(SearchKind::Whole));

        // A small shift: found in the windows, at the shifted place.
        let moved = frame(&layout, 6.0, None);
        let again = tracker.find_gray(&moved).unwrap();
        assert_eq!(tracker.last_search, Some(SearchKind::Windows));
        assert_eq!(again.len(), 4);
        for m in &again {
            let before = found.iter().find(|f| f.id == m.id).unwrap();
            let dx = m.corners_px[0].x - before.corners_px[0].x;
            assert!((dx - 6.0).abs() < 0.5, "marker {} moved {dx}", m.id);
        }

        // One marker hidden, then back: the windows still serve.
        let hidden = frame(&layout, 6.0, Some(2));
        assert_eq!(tracker.find_gray(&hidden).unwrap().len(), 3);
        assert_eq!(tracker.last_search, Some(SearchKind::Windows));
        let back = tracker.find_gray(&moved).unwrap();
        assert_eq!(back.len(), 4);
        assert_eq!(tracker.last_search, Some(SearchKind::Windows));

        // A jump far beyond the windows: the whole frame is searched.
        let jumped = frame(&layout, 120.0, None);
        assert_eq!(tracker.find_gray(&jumped).unwrap().len(), 4);
        assert_eq!(tracker.last_search, Some(SearchKind::Whole));
    }
}
