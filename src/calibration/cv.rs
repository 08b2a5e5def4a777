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
use super::table::MarkerObservation;

/// The ArUco dictionaries of the kit.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ArucoDictionary {
    /// Table corner markers.
    Dict4x4_50,
    /// ChArUco board markers.
    Dict5x5_100,
}

impl ArucoDictionary {
    /// Bits per side, without the border.
    pub fn marker_bits(self) -> u32 {
        match self {
            Self::Dict4x4_50 => 4,
            Self::Dict5x5_100 => 5,
        }
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
        let name = match dict {
            ArucoDictionary::Dict4x4_50 => aruco::PREDEFINED_DICTIONARY_NAME::DICT_4X4_50,
            ArucoDictionary::Dict5x5_100 => aruco::PREDEFINED_DICTIONARY_NAME::DICT_5X5_100,
        };
        aruco::get_predefined_dictionary(name)
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
        let name = match dict {
            ArucoDictionary::Dict4x4_50 => objdetect::PredefinedDictionaryType::DICT_4X4_50,
            ArucoDictionary::Dict5x5_100 => objdetect::PredefinedDictionaryType::DICT_5X5_100,
        };
        objdetect::get_predefined_dictionary(name)
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
    let mat = mat_from_gray(gray)?;
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

/// calibrateCamera with the k1 k2 p1 p2 k3 model. Returns the lens (with
/// the overall RMS) and the RMS of each view, pixels.
pub fn calibrate_camera(
    object: &[Vec<Point3<f64>>],
    image: &[Vec<Point2<f64>>],
    size: [u32; 2],
) -> Result<(Lens, Vec<f64>), CalibrationError> {
    calibrate_camera_model(object, image, size, true).map(|(lens, views, _)| (lens, views))
}

/// As [`calibrate_camera`], with k3 free (`with_k3`) or held at zero, and
/// the 1-sigma uncertainties OpenCV estimates for fx, fy, cx, cy, k1, k2,
/// p1, p2, k3 (0 for a parameter held fixed).
pub fn calibrate_camera_model(
    object: &[Vec<Point3<f64>>],
    image: &[Vec<Point2<f64>>],
    size: [u32; 2],
    with_k3: bool,
) -> Result<(Lens, Vec<f64>, [f64; 9]), CalibrationError> {
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
        if with_k3 {
            0
        } else {
            opencv::calib3d::CALIB_FIX_K3
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
    let mut d = [0.0; 5];
    for (i, v) in d.iter_mut().enumerate() {
        *v = *dist.at::<f64>(i as i32).map_err(cv_err)?;
    }
    let mut views = Vec::new();
    for i in 0..object.len() {
        views.push(*per_view.at::<f64>(i as i32).map_err(cv_err)?);
    }
    let mut sigma = [0.0; 9];
    for (i, v) in sigma.iter_mut().enumerate() {
        if (i as i32) < std_in.rows() * std_in.cols() {
            *v = *std_in.at::<f64>(i as i32).map_err(cv_err)?;
        }
    }
    Ok((
        Lens {
            k: km,
            dist: d,
            image_size: size,
            rms_px: rms,
        },
        views,
        sigma,
    ))
}
