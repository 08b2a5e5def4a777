//! `table_from_image`: the mapping from image pixels to table inches, fitted
//! on the corners of the ArUco table markers, and the live lock that keeps
//! the last good mapping and notices when the camera moves.
//!
//! # Conventions
//! The homography maps *ideal* (undistorted) pixels to table inches on the
//! plane z = 0. [`TableMapping::table_from_pixel`] undistorts first when a
//! lens is known.

use nalgebra::{Matrix3, Point2};
use serde::Serialize;

use super::CalibrationError;
use super::homography;
use super::layout::TableLayout;
use super::lens::Lens;

/// Markers needed for a mapping: three give 12 corners, enough to fit and to
/// check the fit.
pub const MIN_MARKERS: usize = 3;

/// One detected ArUco marker: its id and its four corners (OpenCV order) in
/// image pixels as seen (distorted).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct MarkerObservation {
    pub id: u32,
    pub corners_px: [Point2<f64>; 4],
}

/// A fitted table mapping.
#[derive(Debug, Clone, PartialEq)]
pub struct TableMapping {
    /// Ideal pixels -> table inches.
    pub table_from_ideal: Matrix3<f64>,
    /// Table inches -> ideal pixels.
    pub ideal_from_table: Matrix3<f64>,
    pub lens: Option<Lens>,
    /// Ids of the layout markers used in the fit, ascending.
    pub markers_found: Vec<u32>,
    /// RMS distance between the observed corners and the layout projected
    /// into the image, pixels.
    pub residual_px: f64,
    /// The same residual on the table, inches.
    pub residual_in: f64,
}

impl TableMapping {
    /// Fits the mapping on every observed marker that the layout knows.
    /// Markers the layout does not list are ignored.
    pub fn fit(
        observations: &[MarkerObservation],
        layout: &TableLayout,
        lens: Option<&Lens>,
    ) -> Result<Self, CalibrationError> {
        let mut ideal = Vec::new();
        let mut table = Vec::new();
        let mut found: Vec<u32> = Vec::new();
        for obs in observations {
            let Some(marker) = layout.marker(obs.id) else {
                continue;
            };
            if found.contains(&obs.id) {
                continue;
            }
            found.push(obs.id);
            for (px, t) in obs.corners_px.iter().zip(marker.corners_in_table()) {
                ideal.push(lens.map_or(*px, |l| l.ideal_from_pixel(*px)));
                table.push(t);
            }
        }
        found.sort_unstable();
        if found.len() < MIN_MARKERS {
            return Err(CalibrationError::TooFewMarkers {
                found,
                needed: MIN_MARKERS,
            });
        }
        // Fitted as table -> image, so that the error minimised is in pixels,
        // where the noise is; the inverse maps pixels to inches.
        let ideal_from_table =
            homography::fit(&table, &ideal).ok_or(CalibrationError::DegenerateMarkers)?;
        let table_from_ideal = ideal_from_table
            .try_inverse()
            .ok_or(CalibrationError::DegenerateMarkers)?;
        let n = ideal.len() as f64;
        let residual_px = (ideal
            .iter()
            .zip(&table)
            .map(|(i, t)| (homography::apply(&ideal_from_table, *t) - i).norm_squared())
            .sum::<f64>()
            / n)
            .sqrt();
        let residual_in = (ideal
            .iter()
            .zip(&table)
            .map(|(i, t)| (homography::apply(&table_from_ideal, *i) - t).norm_squared())
            .sum::<f64>()
            / n)
            .sqrt();
        Ok(Self {
            table_from_ideal,
            ideal_from_table,
            lens: lens.cloned(),
            markers_found: found,
            residual_px,
            residual_in,
        })
    }

    /// An image pixel as seen to table inches on the plane z = 0.
    pub fn table_from_pixel(&self, pixel: Point2<f64>) -> Point2<f64> {
        let ideal = self
            .lens
            .as_ref()
            .map_or(pixel, |l| l.ideal_from_pixel(pixel));
        homography::apply(&self.table_from_ideal, ideal)
    }

    /// A table point (z = 0) to where the camera shows it.
    pub fn pixel_from_table(&self, table: Point2<f64>) -> Point2<f64> {
        let ideal = homography::apply(&self.ideal_from_table, table);
        self.lens
            .as_ref()
            .map_or(ideal, |l| l.pixel_from_ideal(ideal))
    }

    /// Inches per pixel near a table point: how big a one-pixel error is there.
    pub fn inches_per_pixel_at(&self, table: Point2<f64>) -> f64 {
        let p = self.pixel_from_table(table);
        let dx = self.table_from_pixel(p + nalgebra::Vector2::new(1.0, 0.0)) - table;
        let dy = self.table_from_pixel(p + nalgebra::Vector2::new(0.0, 1.0)) - table;
        (dx.norm() + dy.norm()) / 2.0
    }

    /// Largest displacement, in pixels, between where this and another
    /// mapping put the table's corners.
    pub fn shift_px(&self, other: &Self, layout: &TableLayout) -> f64 {
        [
            Point2::new(0.0, 0.0),
            Point2::new(layout.width_in, 0.0),
            Point2::new(layout.width_in, layout.depth_in),
            Point2::new(0.0, layout.depth_in),
        ]
        .iter()
        .map(|t| (self.pixel_from_table(*t) - other.pixel_from_table(*t)).norm())
        .fold(0.0, f64::max)
    }
}

/// Shift of the table's corners, pixels, above which the camera is said to
/// have moved (marker jitter is a fraction of a pixel).
pub const CAMERA_MOVED_PX: f64 = 3.0;

/// What one frame did to the live lock.
#[derive(Debug, Clone, PartialEq)]
pub enum LockStatus {
    /// A mapping was fitted on this frame.
    Fitted { markers_found: Vec<u32> },
    /// Too few markers: the last good mapping is kept.
    KeptLast {
        markers_found: Vec<u32>,
        reason: String,
    },
    /// No mapping yet.
    NoMapping { reason: String },
}

/// The live table lock: re-estimates the mapping on every frame, keeps the
/// last good one when markers are hidden, and raises "camera moved" when the
/// mapping jumps away from the locked one.
#[derive(Debug, Clone)]
pub struct TableLock {
    pub layout: TableLayout,
    pub lens: Option<Lens>,
    /// The mapping the game is measured against.
    pub locked: Option<TableMapping>,
    /// The newest mapping fitted on a frame.
    pub current: Option<TableMapping>,
    /// Set when the newest mapping moved more than [`CAMERA_MOVED_PX`] from
    /// the locked one; cleared by [`TableLock::relock`].
    pub camera_moved: bool,
    pub moved_px: f64,
}

impl TableLock {
    pub fn new(layout: TableLayout, lens: Option<Lens>) -> Self {
        Self {
            layout,
            lens,
            locked: None,
            current: None,
            camera_moved: false,
            moved_px: 0.0,
        }
    }

    /// Feeds one frame's marker observations.
    pub fn update(&mut self, observations: &[MarkerObservation]) -> LockStatus {
        match TableMapping::fit(observations, &self.layout, self.lens.as_ref()) {
            Ok(mapping) => {
                let markers_found = mapping.markers_found.clone();
                match &self.locked {
                    None => self.locked = Some(mapping.clone()),
                    Some(locked) => {
                        self.moved_px = mapping.shift_px(locked, &self.layout);
                        if self.moved_px > CAMERA_MOVED_PX {
                            self.camera_moved = true;
                        } else if !self.camera_moved {
                            // Small drift: follow it, so the lock stays fresh.
                            self.locked = Some(mapping.clone());
                        }
                    }
                }
                self.current = Some(mapping);
                LockStatus::Fitted { markers_found }
            }
            Err(err) => {
                let markers_found: Vec<u32> = observations
                    .iter()
                    .map(|o| o.id)
                    .filter(|id| self.layout.marker(*id).is_some())
                    .collect();
                if self.locked.is_some() {
                    LockStatus::KeptLast {
                        markers_found,
                        reason: err.to_string(),
                    }
                } else {
                    LockStatus::NoMapping {
                        reason: err.to_string(),
                    }
                }
            }
        }
    }

    /// Accepts the newest mapping after the camera moved.
    pub fn relock(&mut self) {
        if let Some(current) = &self.current {
            self.locked = Some(current.clone());
        }
        self.camera_moved = false;
        self.moved_px = 0.0;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use approx::assert_relative_eq;

    fn synthetic(layout: &TableLayout, image_from_table: &Matrix3<f64>) -> Vec<MarkerObservation> {
        layout
            .markers
            .iter()
            .map(|m| MarkerObservation {
                id: m.id,
                corners_px: m
                    .corners_in_table()
                    .map(|c| homography::apply(image_from_table, c)),
            })
            .collect()
    }

    fn camera() -> Matrix3<f64> {
        Matrix3::new(20.0, 0.5, 400.0, 0.3, -21.0, 1000.0, 1e-4, 2e-4, 1.0)
    }

    #[test]
    fn three_markers_are_enough() {
        let layout = TableLayout::standard(48.0, 48.0);
        let mut obs = synthetic(&layout, &camera());
        obs.remove(2);
        let m = TableMapping::fit(&obs, &layout, None).unwrap();
        assert_eq!(m.markers_found, vec![0, 1, 3]);
        let p = homography::apply(&camera(), Point2::new(46.0, 46.0));
        assert_relative_eq!(
            m.table_from_pixel(p),
            Point2::new(46.0, 46.0),
            epsilon = 1e-6
        );
        assert!(m.residual_px < 1e-6);
    }

    #[test]
    fn two_markers_keep_the_last_mapping_and_a_jump_is_a_camera_move() {
        let layout = TableLayout::standard(48.0, 48.0);
        let mut lock = TableLock::new(layout.clone(), None);
        let obs = synthetic(&layout, &camera());
        assert!(matches!(lock.update(&obs), LockStatus::Fitted { .. }));
        assert!(matches!(
            lock.update(&obs[..2]),
            LockStatus::KeptLast { .. }
        ));
        assert!(lock.locked.is_some());
        let moved = Matrix3::new(1.0, 0.0, 12.0, 0.0, 1.0, 0.0, 0.0, 0.0, 1.0) * camera();
        lock.update(&synthetic(&layout, &moved));
        assert!(lock.camera_moved);
        lock.relock();
        assert!(!lock.camera_moved);
    }

    #[test]
    fn unknown_ids_do_not_count() {
        let layout = TableLayout::standard(48.0, 48.0);
        let mut obs = synthetic(&layout, &camera());
        obs.truncate(2);
        obs.push(MarkerObservation {
            id: 17,
            corners_px: obs[0].corners_px,
        });
        assert!(matches!(
            TableMapping::fit(&obs, &layout, None),
            Err(CalibrationError::TooFewMarkers { .. })
        ));
    }
}
