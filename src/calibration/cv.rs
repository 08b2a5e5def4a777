//! The OpenCV adapter of calibration: ArUco detection, marker patterns,
//! chessboard corner refinement and `calibrateCamera`. Nothing outside this
//! file sees an OpenCV type; points cross as nalgebra, images as `image`.
//!
//! OpenCV 4.6 (Debian 12) keeps ArUco in the contrib module `aruco`; 4.7 and
//! later in `objdetect`. `build.rs` sets `spotter_aruco_objdetect` for the
//! latter.
//!
//! # Conventions
//! Pixels with the origin at the centre of the top-left pixel (OpenCV's),
//! marker corners in OpenCV order (TL, TR, BR, BL of the printed marker).

use image::GrayImage;
use nalgebra::{Matrix3, Point2, Point3};
use opencv::core::{self as cvcore, Mat, Point2f, Point3f, Size, TermCriteria, Vector};
use opencv::prelude::*;

use super::CalibrationError;
use super::lens::Lens;
use super::lens_model::{DistortionModel, SIGMA_TERMS};
use super::table::MarkerObservation;

/// The predefined ArUco dictionaries of OpenCV (the kit uses two of them:
/// [`Self::Dict4x4_50`] for the table markers, [`Self::Dict5x5_100`] for
/// its ChArUco board; a board of the user's own may use any).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ArucoDictionary {
    Dict4x4_50,
    Dict4x4_100,
    Dict4x4_250,
    Dict4x4_1000,
    Dict5x5_50,
    Dict5x5_100,
    Dict5x5_250,
    Dict5x5_1000,
    Dict6x6_50,
    Dict6x6_100,
    Dict6x6_250,
    Dict6x6_1000,
    Dict7x7_50,
    Dict7x7_100,
    Dict7x7_250,
    Dict7x7_1000,
    ArucoOriginal,
    AprilTag16h5,
    AprilTag25h9,
    AprilTag36h10,
    AprilTag36h11,
}

/// Each dictionary: OpenCV's name, its `PredefinedDictionaryType` number
/// (the same in the contrib `aruco` module and in `objdetect`), bits per
/// side and number of markers.
const DICTIONARIES: [(ArucoDictionary, &str, i32, u32, u32); 21] = [
    (ArucoDictionary::Dict4x4_50, "DICT_4X4_50", 0, 4, 50),
    (ArucoDictionary::Dict4x4_100, "DICT_4X4_100", 1, 4, 100),
    (ArucoDictionary::Dict4x4_250, "DICT_4X4_250", 2, 4, 250),
    (ArucoDictionary::Dict4x4_1000, "DICT_4X4_1000", 3, 4, 1000),
    (ArucoDictionary::Dict5x5_50, "DICT_5X5_50", 4, 5, 50),
    (ArucoDictionary::Dict5x5_100, "DICT_5X5_100", 5, 5, 100),
    (ArucoDictionary::Dict5x5_250, "DICT_5X5_250", 6, 5, 250),
    (ArucoDictionary::Dict5x5_1000, "DICT_5X5_1000", 7, 5, 1000),
    (ArucoDictionary::Dict6x6_50, "DICT_6X6_50", 8, 6, 50),
    (ArucoDictionary::Dict6x6_100, "DICT_6X6_100", 9, 6, 100),
    (ArucoDictionary::Dict6x6_250, "DICT_6X6_250", 10, 6, 250),
    (ArucoDictionary::Dict6x6_1000, "DICT_6X6_1000", 11, 6, 1000),
    (ArucoDictionary::Dict7x7_50, "DICT_7X7_50", 12, 7, 50),
    (ArucoDictionary::Dict7x7_100, "DICT_7X7_100", 13, 7, 100),
    (ArucoDictionary::Dict7x7_250, "DICT_7X7_250", 14, 7, 250),
    (ArucoDictionary::Dict7x7_1000, "DICT_7X7_1000", 15, 7, 1000),
    (
        ArucoDictionary::ArucoOriginal,
        "DICT_ARUCO_ORIGINAL",
        16,
        5,
        1024,
    ),
    (
        ArucoDictionary::AprilTag16h5,
        "DICT_APRILTAG_16h5",
        17,
        4,
        30,
    ),
    (
        ArucoDictionary::AprilTag25h9,
        "DICT_APRILTAG_25h9",
        18,
        5,
        35,
    ),
    (
        ArucoDictionary::AprilTag36h10,
        "DICT_APRILTAG_36h10",
        19,
        6,
        2320,
    ),
    (
        ArucoDictionary::AprilTag36h11,
        "DICT_APRILTAG_36h11",
        20,
        6,
        587,
    ),
];

impl ArucoDictionary {
    fn entry(self) -> (ArucoDictionary, &'static str, i32, u32, u32) {
        // Every variant has its row; the table is checked by a unit test.
        DICTIONARIES
            .iter()
            .copied()
            .find(|e| e.0 == self)
            .unwrap_or(DICTIONARIES[0])
    }

    /// Bits per side, without the border.
    pub fn marker_bits(self) -> u32 {
        self.entry().3
    }

    /// Markers in the dictionary (ids 0 to `len - 1`).
    pub fn size(self) -> u32 {
        self.entry().4
    }

    /// OpenCV's name, e.g. `DICT_5X5_100`.
    pub fn name(self) -> &'static str {
        self.entry().1
    }

    /// OpenCV's `PredefinedDictionaryType` number.
    fn cv_number(self) -> i32 {
        self.entry().2
    }

    /// The dictionary with OpenCV's name (case-insensitive, `DICT_` optional).
    pub fn from_name(name: &str) -> Option<Self> {
        let upper = name.trim().to_ascii_uppercase();
        let full = if upper.starts_with("DICT_") {
            upper
        } else {
            format!("DICT_{upper}")
        };
        DICTIONARIES
            .iter()
            .find(|e| e.1.eq_ignore_ascii_case(&full))
            .map(|e| e.0)
    }

    /// Every OpenCV name, for error messages.
    pub fn names() -> Vec<&'static str> {
        DICTIONARIES.iter().map(|e| e.1).collect()
    }
}

fn cv_err(err: opencv::Error) -> CalibrationError {
    CalibrationError::OpenCv(err.to_string())
}

/// Speed-related knobs of the ArUco search; the defaults are OpenCV's.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ArucoTuning {
    /// Adaptive threshold windows tried, pixels: min, max and step (one
    /// contour search per window).
    pub threshold_windows_px: (i32, i32, i32),
    /// Smallest marker perimeter, as a share of the image's larger side.
    pub min_perimeter_rate: f64,
    /// Refine corners with cornerSubPix (else contour corners).
    pub subpixel: bool,
}

impl Default for ArucoTuning {
    fn default() -> Self {
        Self {
            threshold_windows_px: (3, 23, 10),
            min_perimeter_rate: 0.03,
            subpixel: true,
        }
    }
}

/// Sub-pixel termination: OpenCV's own default for cornerSubPix.
const SUBPIX_MAX_ITER: i32 = 40;
const SUBPIX_EPS_PX: f64 = 0.001;

/// An `image::GrayImage` as an OpenCV Mat (copied once).
fn mat_from_gray(gray: &GrayImage) -> Result<Mat, CalibrationError> {
    let rows = i32::try_from(gray.height())
        .map_err(|_| CalibrationError::OpenCv("image too tall".into()))?;
    let flat = Mat::from_slice(gray.as_raw()).map_err(cv_err)?;
    flat.reshape(1, rows)
        .map_err(cv_err)?
        .try_clone()
        .map_err(cv_err)
}

fn corners_from_cv(points: &Vector<Point2f>) -> Option<[Point2<f64>; 4]> {
    if points.len() != 4 {
        return None;
    }
    let mut out = [Point2::origin(); 4];
    for (o, p) in out.iter_mut().zip(points.iter()) {
        *o = Point2::new(f64::from(p.x), f64::from(p.y));
    }
    Some(out)
}

#[cfg(not(spotter_aruco_objdetect))]
mod aruco_api {
    use super::*;
    use opencv::aruco;
    use opencv::core::Ptr;

    fn dictionary(dict: ArucoDictionary) -> opencv::Result<Ptr<aruco::Dictionary>> {
        aruco::get_predefined_dictionary_i32(dict.cv_number())
    }

    pub fn detect(
        image: &Mat,
        dict: ArucoDictionary,
        tuning: &ArucoTuning,
    ) -> opencv::Result<(Vector<Vector<Point2f>>, Vector<i32>)> {
        let dictionary = dictionary(dict)?;
        let mut params = aruco::DetectorParameters::create()?;
        let refine = if tuning.subpixel {
            aruco::CornerRefineMethod::CORNER_REFINE_SUBPIX
        } else {
            aruco::CornerRefineMethod::CORNER_REFINE_NONE
        };
        params.set_corner_refinement_method(refine as i32);
        let (lo, hi, step) = tuning.threshold_windows_px;
        params.set_adaptive_thresh_win_size_min(lo);
        params.set_adaptive_thresh_win_size_max(hi);
        params.set_adaptive_thresh_win_size_step(step);
        params.set_min_marker_perimeter_rate(tuning.min_perimeter_rate);
        let mut corners = Vector::<Vector<Point2f>>::new();
        let mut ids = Vector::<i32>::new();
        let mut rejected = Vector::<Vector<Point2f>>::new();
        aruco::detect_markers(
            image,
            &dictionary,
            &mut corners,
            &mut ids,
            &params,
            &mut rejected,
        )?;
        Ok((corners, ids))
    }

    pub fn draw(dict: ArucoDictionary, id: i32, side_px: i32) -> opencv::Result<Mat> {
        let dictionary = dictionary(dict)?;
        let mut img = Mat::default();
        aruco::draw_marker(&dictionary, id, side_px, &mut img, 1)?;
        Ok(img)
    }
}

#[cfg(spotter_aruco_objdetect)]
mod aruco_api {
    use super::*;
    use opencv::objdetect;

    fn dictionary(dict: ArucoDictionary) -> opencv::Result<objdetect::Dictionary> {
        objdetect::get_predefined_dictionary_i32(dict.cv_number())
    }

    pub fn detect(
        image: &Mat,
        dict: ArucoDictionary,
        tuning: &ArucoTuning,
    ) -> opencv::Result<(Vector<Vector<Point2f>>, Vector<i32>)> {
        let dictionary = dictionary(dict)?;
        let mut params = objdetect::DetectorParameters::default()?;
        let refine = if tuning.subpixel {
            objdetect::CornerRefineMethod::CORNER_REFINE_SUBPIX
        } else {
            objdetect::CornerRefineMethod::CORNER_REFINE_NONE
        };
        params.set_corner_refinement_method(refine as i32);
        let (lo, hi, step) = tuning.threshold_windows_px;
        params.set_adaptive_thresh_win_size_min(lo);
        params.set_adaptive_thresh_win_size_max(hi);
        params.set_adaptive_thresh_win_size_step(step);
        params.set_min_marker_perimeter_rate(tuning.min_perimeter_rate);
        let detector = objdetect::ArucoDetector::new(
            &dictionary,
            &params,
            objdetect::RefineParameters::new_def()?,
        )?;
        let mut corners = Vector::<Vector<Point2f>>::new();
        let mut ids = Vector::<i32>::new();
        let mut rejected = Vector::<Vector<Point2f>>::new();
        detector.detect_markers(image, &mut corners, &mut ids, &mut rejected)?;
        Ok((corners, ids))
    }

    pub fn draw(dict: ArucoDictionary, id: i32, side_px: i32) -> opencv::Result<Mat> {
        let dictionary = dictionary(dict)?;
        let mut img = Mat::default();
        objdetect::generate_image_marker(&dictionary, id, side_px, &mut img, 1)?;
        Ok(img)
    }
}

/// Detects the markers of one dictionary. Corners are OpenCV's sub-pixel
/// corners; see [`super::corners`] for the linear-light refinement.
pub fn detect_markers(
    gray: &GrayImage,
    dict: ArucoDictionary,
) -> Result<Vec<MarkerObservation>, CalibrationError> {
    detect_markers_tuned(gray, dict, &ArucoTuning::default())
}

/// [`detect_markers`] with the search tuned for speed.
pub fn detect_markers_tuned(
    gray: &GrayImage,
    dict: ArucoDictionary,
    tuning: &ArucoTuning,
) -> Result<Vec<MarkerObservation>, CalibrationError> {
    let mat = mat_from_gray(gray)?;
    let (corners, ids) = aruco_api::detect(&mat, dict, tuning).map_err(cv_err)?;
    Ok(ids
        .iter()
        .zip(corners.iter())
        .filter_map(|(id, c)| {
            Some(MarkerObservation {
                id: u32::try_from(id).ok()?,
                corners_px: corners_from_cv(&c)?,
            })
        })
        .collect())
}

/// The cells of a marker, border included: `true` is black, row 0 on top.
pub fn marker_cells(dict: ArucoDictionary, id: u32) -> Result<Vec<Vec<bool>>, CalibrationError> {
    let n = dict.marker_bits() + 2;
    let side = i32::try_from(n).unwrap_or(6);
    let id = i32::try_from(id)
        .map_err(|_| CalibrationError::OpenCv(format!("marker id {id} too large")))?;
    let img = aruco_api::draw(dict, id, side).map_err(cv_err)?;
    let mut rows = Vec::new();
    for r in 0..side {
        let mut row = Vec::new();
        for c in 0..side {
            let v = *img.at_2d::<u8>(r, c).map_err(cv_err)?;
            row.push(v < 128);
        }
        rows.push(row);
    }
    Ok(rows)
}

/// Refines chessboard (saddle) corners with cornerSubPix. A saddle point
/// does not move under a tone curve, so no linearisation is needed here.
pub fn corner_sub_pix(
    gray: &GrayImage,
    guesses: &[Point2<f64>],
    half_win_px: i32,
) -> Result<Vec<Point2<f64>>, CalibrationError> {
    corner_sub_pix_smoothed(gray, guesses, half_win_px, 0.0)
}

/// [`corner_sub_pix`] on the image smoothed by a Gaussian of
/// `presmooth_sigma_px` first (none at 0). A symmetric blur leaves a saddle
/// point where it is and averages the sensor and JPEG noise out of the
/// gradients cornerSubPix weighs.
pub fn corner_sub_pix_smoothed(
    gray: &GrayImage,
    guesses: &[Point2<f64>],
    half_win_px: i32,
    presmooth_sigma_px: f64,
) -> Result<Vec<Point2<f64>>, CalibrationError> {
    let raw = mat_from_gray(gray)?;
    let mat = if presmooth_sigma_px > 0.0 {
        let mut out = Mat::default();
        opencv::imgproc::gaussian_blur(
            &raw,
            &mut out,
            Size::new(0, 0),
            presmooth_sigma_px,
            presmooth_sigma_px,
            cvcore::BORDER_REFLECT_101,
        )
        .map_err(cv_err)?;
        out
    } else {
        raw
    };
    let mut pts: Vector<Point2f> = guesses
        .iter()
        .map(|p| Point2f::new(p.x as f32, p.y as f32))
        .collect();
    let criteria = TermCriteria::new(
        cvcore::TermCriteria_COUNT + cvcore::TermCriteria_EPS,
        SUBPIX_MAX_ITER,
        SUBPIX_EPS_PX,
    )
    .map_err(cv_err)?;
    opencv::imgproc::corner_sub_pix(
        &mat,
        &mut pts,
        Size::new(half_win_px, half_win_px),
        Size::new(-1, -1),
        criteria,
    )
    .map_err(cv_err)?;
    Ok(pts
        .iter()
        .map(|p| Point2::new(f64::from(p.x), f64::from(p.y)))
        .collect())
}

fn points_from_cv(points: &Vector<Point2f>) -> Vec<Point2<f64>> {
    points
        .iter()
        .map(|p| Point2::new(f64::from(p.x), f64::from(p.y)))
        .collect()
}

/// findChessboardCorners for `inner` = (corners per row, rows) inner
/// corners: the corners row by row, or `None` when the whole pattern is not
/// found. The corners are OpenCV's first estimate; refine them with
/// [`corner_sub_pix`].
pub fn find_chessboard_corners(
    gray: &GrayImage,
    inner: (u32, u32),
) -> Result<Option<Vec<Point2<f64>>>, CalibrationError> {
    let mat = mat_from_gray(gray)?;
    let size = pattern_size(inner)?;
    let mut corners = Vector::<Point2f>::new();
    // FAST_CHECK: a photo without the board is given up in milliseconds,
    // not seconds.
    let flags = opencv::calib3d::CALIB_CB_ADAPTIVE_THRESH
        | opencv::calib3d::CALIB_CB_NORMALIZE_IMAGE
        | opencv::calib3d::CALIB_CB_FAST_CHECK;
    let found = opencv::calib3d::find_chessboard_corners(&mat, size, &mut corners, flags)
        .map_err(cv_err)?;
    Ok(found.then(|| points_from_cv(&corners)))
}

/// A blob detector for dark circles on white paper whose largest blob may
/// cover `max_area_px` (OpenCV's default stops at 5000 px, a circle some
/// 80 px across, too small for a close view of a printed grid).
fn circle_blob_detector(
    max_area_px: f64,
) -> opencv::Result<cvcore::Ptr<opencv::features2d::Feature2D>> {
    let mut params = opencv::features2d::SimpleBlobDetector_Params::default()?;
    params.max_area = max_area_px as f32;
    let detector = opencv::features2d::SimpleBlobDetector::create(params)?;
    Ok(detector.into())
}

/// findCirclesGrid for `grid` = (circles per row, rows), symmetric or
/// asymmetric (OpenCV's `acircles`): the centres row by row, or `None` when
/// the whole grid is not found.
pub fn find_circles_grid(
    gray: &GrayImage,
    grid: (u32, u32),
    asymmetric: bool,
) -> Result<Option<Vec<Point2<f64>>>, CalibrationError> {
    let mat = mat_from_gray(gray)?;
    let size = pattern_size(grid)?;
    let mut centres = Vector::<Point2f>::new();
    let flags = if asymmetric {
        opencv::calib3d::CALIB_CB_ASYMMETRIC_GRID
    } else {
        opencv::calib3d::CALIB_CB_SYMMETRIC_GRID
    };
    // A circle may fill up to a quarter of the shorter side of the frame.
    let side = f64::from(gray.width().min(gray.height())) / 4.0;
    let detector = circle_blob_detector(side * side).map_err(cv_err)?;
    let found =
        opencv::calib3d::find_circles_grid(&mat, size, &mut centres, flags, Some(&detector))
            .map_err(cv_err)?;
    Ok(found.then(|| points_from_cv(&centres)))
}

fn pattern_size((w, h): (u32, u32)) -> Result<Size, CalibrationError> {
    let w = i32::try_from(w).map_err(|_| CalibrationError::OpenCv("pattern too wide".into()))?;
    let h = i32::try_from(h).map_err(|_| CalibrationError::OpenCv("pattern too tall".into()))?;
    Ok(Size::new(w, h))
}

/// calibrateCamera with the k1 k2 p1 p2 k3 model. Returns the lens (with
/// the overall RMS) and the RMS of each view, pixels.
pub fn calibrate_camera(
    object: &[Vec<Point3<f64>>],
    image: &[Vec<Point2<f64>>],
    size: [u32; 2],
) -> Result<(Lens, Vec<f64>), CalibrationError> {
    calibrate_camera_model(object, image, size, DistortionModel::K1K2K3)
        .map(|(lens, views, _)| (lens, views))
}

/// As [`calibrate_camera`] with the distortion terms of `model` free (the
/// others held at zero), and the 1-sigma uncertainties OpenCV estimates
/// for fx, fy, cx, cy, k1, k2, p1, p2, k3, k4, k5, k6 (0 for a parameter
/// held fixed).
pub fn calibrate_camera_model(
    object: &[Vec<Point3<f64>>],
    image: &[Vec<Point2<f64>>],
    size: [u32; 2],
    model: DistortionModel,
) -> Result<(Lens, Vec<f64>, [f64; SIGMA_TERMS]), CalibrationError> {
    let obj: Vector<Vector<Point3f>> = object
        .iter()
        .map(|v| {
            v.iter()
                .map(|p| Point3f::new(p.x as f32, p.y as f32, p.z as f32))
                .collect()
        })
        .collect();
    let img: Vector<Vector<Point2f>> = image
        .iter()
        .map(|v| {
            v.iter()
                .map(|p| Point2f::new(p.x as f32, p.y as f32))
                .collect()
        })
        .collect();
    let mut k = Mat::default();
    let mut dist = Mat::default();
    let mut rvecs = Vector::<Mat>::new();
    let mut tvecs = Vector::<Mat>::new();
    let mut std_in = Mat::default();
    let mut std_ex = Mat::default();
    let mut per_view = Mat::default();
    let w = i32::try_from(size[0]).unwrap_or(0);
    let h = i32::try_from(size[1]).unwrap_or(0);
    let criteria = TermCriteria::new(
        cvcore::TermCriteria_COUNT + cvcore::TermCriteria_EPS,
        100,
        1e-9,
    )
    .map_err(cv_err)?;
    let rms = opencv::calib3d::calibrate_camera_extended(
        &obj,
        &img,
        Size::new(w, h),
        &mut k,
        &mut dist,
        &mut rvecs,
        &mut tvecs,
        &mut std_in,
        &mut std_ex,
        &mut per_view,
        match model {
            DistortionModel::K1K2 => opencv::calib3d::CALIB_FIX_K3,
            DistortionModel::K1K2K3 => 0,
            DistortionModel::Rational => opencv::calib3d::CALIB_RATIONAL_MODEL,
        },
        criteria,
    )
    .map_err(cv_err)?;
    let mut km = Matrix3::zeros();
    for r in 0..3 {
        for c in 0..3 {
            km[(r, c)] = *k.at_2d::<f64>(r as i32, c as i32).map_err(cv_err)?;
        }
    }
    let mut d = [0.0; 8];
    let n_dist = dist.rows() * dist.cols();
    for (i, v) in d.iter_mut().enumerate() {
        if (i as i32) < n_dist {
            *v = *dist.at::<f64>(i as i32).map_err(cv_err)?;
        }
    }
    let mut views = Vec::new();
    for i in 0..object.len() {
        views.push(*per_view.at::<f64>(i as i32).map_err(cv_err)?);
    }
    let mut sigma = [0.0; SIGMA_TERMS];
    for (i, v) in sigma.iter_mut().enumerate() {
        if (i as i32) < std_in.rows() * std_in.cols() {
            *v = *std_in.at::<f64>(i as i32).map_err(cv_err)?;
        }
    }
    Ok((
        Lens {
            k: km,
            dist: [d[0], d[1], d[2], d[3], d[4]],
            rational: [d[5], d[6], d[7]],
            image_size: size,
            rms_px: rms,
        },
        views,
        sigma,
    ))
}

#[cfg(test)]
mod dictionary_tests {
    use super::*;

    #[test]
    fn every_dictionary_is_in_the_table_once_and_found_by_name() {
        for (i, e) in DICTIONARIES.iter().enumerate() {
            assert_eq!(e.2, i32::try_from(i).unwrap(), "{}: OpenCV's number", e.1);
            assert_eq!(e.0.entry().1, e.1);
            assert_eq!(ArucoDictionary::from_name(e.1), Some(e.0));
        }
        assert_eq!(
            ArucoDictionary::from_name("6x6_250"),
            Some(ArucoDictionary::Dict6x6_250)
        );
        assert_eq!(ArucoDictionary::from_name("DICT_9X9_1"), None);
        // The kit's two dictionaries draw as before.
        assert_eq!(ArucoDictionary::Dict4x4_50.marker_bits(), 4);
        assert_eq!(ArucoDictionary::Dict5x5_100.size(), 100);
        assert_eq!(
            marker_cells(ArucoDictionary::Dict6x6_250, 3).unwrap().len(),
            8
        );
    }
}
